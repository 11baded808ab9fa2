"""The register operands of a memory instruction for one encoding: memory_registers resolves
its memory record (isa.memory_access.memory_effects) by the encoding's fields. An image
instruction's counts depend on more fields: its data VGPRs by DMASK / D16 / TFE, its address
VGPRs by DIM / A16 and its generated address components (isa.memory_access.image_address: the
manual's address table group it belongs to, its suffix key's extra addresses), and how NSA
spreads the addresses over the address fields; the assembler and disassembler (dsl/signature.py) write the widths LLVM writes with them.

    from isa.memory_registers import memory_registers, image_data_dwords, image_address_words, image_dims
    memory_registers(d, fields, spec.traits)                    # ({field: read}, {field: written})
    image_data_dwords(d, dmask=0b1011, d16=False, tfe=1)        # 4: three channels and the status dword
    image_dims(d)[1]                                            # DIM 2D: (2, 4): s, t and four slopes
    image_address_words(d, *image_dims(d)[1], a16=False)        # 2D: s, t (plus what image_address(d) adds)
    address_fields(d, fields, ["VADDR0", "VADDR1", "VADDR2"])   # {field: registers} of one encoding

image_dims: per DIM field code, the address coordinates and the derivative components of the
family's generated tables["image_dims"], which isa/gen/image_addresses.py reads from the manual's
DIM field (10.1), its "Image Opcodes with No Sampler" / "with a Sampler" tables (10.2-10.3: the
components of each type's rows but the mip level, lod and clamp an opcode adds) and its
"32-bit derivatives" table (10.4: a slope per spatial coordinate s, t, r and direction);
tests/test_isa_image_effects.py holds the counts against LLVM 22's image operands."""
from __future__ import annotations

from functools import lru_cache

from .fact_tables import locate, table
from .memory_access import _READ, gathers_four, image_address, memory_access, memory_effects


@lru_cache(maxsize=None)
def _family_dims(family: str) -> tuple[tuple[int, int], ...]:
    rows = table(family, "tables").TABLES.get("image_dims")
    if not rows:
        raise ValueError(f"{family}: the manual has no image address tables (no image instructions)")
    return tuple((len(coords), derivatives) for _, _, coords, derivatives, _ in sorted(rows))


def image_dims(d) -> tuple[tuple[int, int], ...]:
    """(address coordinates, derivative components) per DIM code of image instruction `d`'s
    family: 1D, 2D, 3D, cube, 1D array, 2D array, 2D MSAA, 2D MSAA array (the DIM field's order)."""
    at = locate(d, _READ)
    if at is None:
        raise ValueError(f"{d.name} ({d.format}): no loaded family holds it, so no image address table")
    return _family_dims(at[0])


def image_data_dwords(d, dmask: int, d16: bool, tfe: int) -> int:
    """Data VGPRs of an image instruction: one per DMASK channel (gathers and MSAA loads return
    four texels of one channel: isa.memory_access.gathers_four), halved for D16 (two 16-bit
    channels a VGPR), plus the TFE status dword. LWE adds none: LLVM 22 refuses a data operand
    one wider for LWE ("image data size does not match dmask, d16 and tfe") and its corpora's
    LWE rows hold the channels alone (tests/test_isa_image_effects.py)."""
    if gathers_four(d):
        return (2 if d16 else 4) + tfe
    n = max(1, bin(dmask).count("1"))
    return (n + 1) // 2 + tfe if d16 else n + tfe


@lru_cache(maxsize=None)
def image_address_words(d, coords: int, gradients: int, a16: bool) -> int:
    """Address VGPRs of an image instruction, by its generated isa.memory_access.image_address
    (the manual's address table group it belongs to and its suffix key): the extra components a
    VGPR each (bias, z-compare, offsets), the DIM's `gradients` slopes with _D (packed two per
    VGPR with _G16, each direction's apart), and the body -- the DIM's `coords` coordinates (none
    for GET_RESINFO) and what the group adds (mipid, lod, clamp) -- which A16 packs two per VGPR."""
    a = image_address(d)
    comps = (coords if a.coordinates else 0) + len(a.adds)
    words = len(a.extra) + (-(-comps // 2) if a16 else comps)
    if a.derivatives > 1:       # dh and dv slopes, each direction's packed per VGPR
        words += -(-(gradients // 2) // a.derivatives) * 2
    elif a.derivatives:
        words += gradients
    return words


def ray_address_groups(d, a16: bool) -> list[int]:
    """VGPRs of each address operand of a ray query (IMAGE_BVH*_INTERSECT_RAY), by the layout its
    entry gives (isa.memory_access.image_address(d).ray, one per A16 setting): node pointer (two
    VGPRs for a 64-bit one; RDNA4's dual and BVH8: the 64-bit BVH base), ray extent, origin,
    direction and inverse direction (A16 packs the two directions into three VGPRs)."""
    layouts = image_address(d).ray
    if not layouts:
        raise ValueError(f"{d.name}: no ray query (no address layout)")
    if a16 and len(layouts) < 2:
        raise ValueError(f"{d.name}: its entry gives no A16 address layout")
    return list(layouts[1 if a16 else 0])


def address_fields(d, fields: dict, names: list) -> dict:
    """{address field: VGPRs} of image instruction `d` encoded with `fields`, over its address
    fields `names` in order (one only without NSA): one VGPR a field (a ray query: one operand
    group a field), the last field used taking what remains as consecutive VGPRs."""
    a16 = bool(fields.get("A16"))
    if image_address(d).ray:
        groups = ray_address_groups(d, a16)
    else:
        coords, gradients = image_dims(d)[fields.get("DIM", 0) & 7]
        groups = [1] * image_address_words(d, coords, gradients, a16)
    used = min(len(names), len(groups))
    out = {name: groups[i] for i, name in enumerate(names[:used - 1])}
    out[names[used - 1]] = sum(groups[used - 1:])
    return out


def memory_registers(d, fields: dict, traits) -> tuple[dict, dict]:
    """({field: registers read}, {field: registers written}) of memory instruction `d` encoded
    with `fields` (its field values, as a decoded instruction holds them), by memory_effects'
    conditions: SADDR against `traits.saddr_off`, SOFFSET a register unless NULL or a constant,
    an atomic's return by GLC (CDNA: SC0; RDNA4: bit 0 of TH), an image's NSA and R128. An
    image instruction's counts by its fields (address_fields, image_data_dwords): 'address'
    spread over the address fields whose conditions hold (MIMG's NSA dword fields ADDR1..ADDR4 belong in `fields`
    too: a decoded instruction's `extra`), 'data' by DMASK, D16 and TFE, 'returned' the data
    an atomic returns (half of a compare-and-swap's)."""
    def holds(when) -> bool:
        if when is None:
            return True
        if when == "nsa":
            return bool(fields.get("NSA"))
        if when in ("r128", "no r128"):
            return bool(fields.get("R128")) == (when == "r128")
        if when in ("saddr", "no saddr"):
            return (fields.get("SADDR") not in traits.saddr_off) == (when == "saddr")
        if when == "sve":
            return bool(fields.get("SVE", fields.get("LDS")))
        if when in ("idxen", "offen"):
            return bool(fields.get(when.upper()))
        if when == "returns":
            return bool(fields["GLC"] if "GLC" in fields else fields["SC0"] if "SC0" in fields
                        else fields.get("TH", 0) & 1)
        if when == "register":
            if "SOE" in fields:      # CDNA's SMEM: SOE adds SOFFSET's SGPR (IMM=0's OFFSET SGPR is not modelled here)
                return bool(fields["SOE"])
            code = fields.get("SOFFSET")
            return code is not None and code != traits.null and not traits.is_constant(code)
        raise ValueError(f"{d.name}: unknown operand condition {when!r}")
    e = memory_effects(d)
    out: tuple[dict, dict] = ({}, {})
    addresses = [field for field, count, when in e.reads if count == "address" and holds(when)]
    for side, operands in zip(out, (e.reads, e.writes)):
        for field, count, when in operands:
            if not holds(when):
                continue
            if count == "address":
                count = address_fields(d, fields, addresses).get(field, 0)
            elif count in ("data", "returned"):
                n = image_data_dwords(d, fields.get("DMASK", 0), bool(fields.get("D16")), fields.get("TFE", 0))
                access = memory_access(d, True)
                if count == "returned" and access.data_dwords and access.result_dwords:
                    n = n * access.result_dwords // access.data_dwords
                count = n
            if count:
                side[field] = side.get(field, 0) + count
    return out

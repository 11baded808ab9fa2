"""Each image opcode's address components, read once from the image chapter's tables: the row
group of "Image Opcodes with No Sampler" / "with a Sampler" (tables["image_addresses"], read by
image_addresses.py) the opcode belongs to, and the extra addresses of the "Sample Instruction
Suffix Key" (tables["sample_suffixes"]) its name's suffixes name -> isa.fact_types.ImageAddress,
generated per opcode (isa.memory_access.image_address); isa/memory_registers.py counts VGPRs from it.

    from isa.gen.image_opcodes import image_address
    table = groups(tables["image_addresses"])     # the row groups, once per family
    image_address(d, table, tables["sample_suffixes"], ray=False)
    # IMAGE_SAMPLE_C_L_O: ImageAddress(group=('Sample', '_L'), extra=('z-comp', 'offsets'), adds=('lod',), ...)

A group's labels are opcodes (LOAD_PCK, STORE_MIP, MSAA_LOAD, GET_RESINFO; "GetLod" is GET_LOD),
families of opcodes (ATOMIC, whose list below the table reads "Image_Atomic_*: swap, cmpswap,
..."; Sample and Gather, which 10.4 writes SAMPLE*, GATHER*) and the suffix rows a family has of
its own (Sample "_L", Gather "_CL"). An opcode (its name without IMAGE_) takes the groups with a
label equal to it, else those with a label it starts with (IMAGE_GATHER4H: Gather); of those,
the ones whose suffix labels its name holds all of, else the ones with none. The group's rows
give the body: the DIM's coordinates (none where the type is "Any": GET_RESINFO) and what
every row adds past them (mipid, lod, clamp); the key's rows with a count of extra addresses
('1: lod bias', '1: z-comp', '1: offsets') add those VGPRs, its slopes row ('2,4 or 6: slopes')
the DIM's derivatives, "packed 2 gradients per VGPR" where _G16 is named. An opcode no group
takes stops the generator (SpecParseError) unless it is a ray query (BVH: its address is the
layout its description gives, isa.memory_registers.ray_address_groups); so does a suffix the key
puts in the body (_L, _CL) that the opcode's group has no rows of."""
from __future__ import annotations

import re

from ..fact_types import ImageAddress
from .image_addresses import OPCODE_ADDS
from .parse import SpecParseError

_EXTRA = re.compile(r"^(\d+):\s*(\S.*)$")                            # '1: lod bias'
_SLOPES = re.compile(r"^\d+(?:\s*,\s*\d+)*\s+or\s+\d+:")            # '2,4 or 6: slopes'
_PER_VGPR = re.compile(r"\bpacked (\d+) gradients per VGPR\b")


def _opcode(label: str) -> str:
    """A label as the opcode names spell it: GetLod -> GET_LOD, Sample -> SAMPLE, LOAD_PCK stays."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", label).upper()


class _Group:
    def __init__(self, labels: tuple, rows: list):
        self.labels = labels
        self.bases = {_opcode(x) for x in labels if not x.startswith("_")}
        self.suffixes = {x for x in labels if x.startswith("_")}
        self.types = tuple(dict.fromkeys(kind for _, _, kind, _, _, _ in rows))
        self.page = rows[0][5]
        adds = {tuple(c for c in comps if c in OPCODE_ADDS) for _, _, _, _, comps, _ in rows}
        coords = {any(c not in OPCODE_ADDS for c in comps) for _, _, _, _, comps, _ in rows}
        if len(adds) != 1 or len(coords) != 1 or not self.bases:
            raise SpecParseError(f"image address rows {labels} (page {self.page}): opcode components {sorted(adds)}, "
                                 f"coordinates {sorted(coords)}: no one address for the group")
        self.adds, self.coordinates = adds.pop(), coords.pop()


def groups(rows) -> list[_Group]:
    """The row groups of tables["image_addresses"], by their opcode labels."""
    by: dict[tuple, list] = {}
    for row in rows:
        by.setdefault(row[0], []).append(row)
    return [_Group(labels, group_rows) for labels, group_rows in by.items()]


def match(name: str, table: list[_Group]) -> _Group | None:
    """The group opcode `name` (without IMAGE_) belongs to, None if none; two stop the generator."""
    named = [g for g in table if name in g.bases] or [g for g in table if any(name.startswith(b) for b in g.bases)]
    parts = {"_" + p for p in name.split("_")[1:]}
    chosen = [g for g in named if g.suffixes and g.suffixes <= parts] or [g for g in named if not g.suffixes]
    if len(chosen) > 1:
        raise SpecParseError(f"IMAGE_{name}: the image address tables' groups {[g.labels for g in chosen]} all take it")
    return chosen[0] if chosen else None


def image_address(d, table: list[_Group], suffix_key, ray: bool) -> ImageAddress:
    """ImageAddress of image instruction `d` by the family's address row groups (`groups`) and
    suffix key (the module docstring); `ray`: d is a ray query (isa/gen/memory_access.py ray_query)."""
    name = d.name.removeprefix("IMAGE_")
    group = match(name, table)
    if group is None:
        if ray:
            return ImageAddress()
        raise SpecParseError(f"{d.name}: no group of the image address tables takes it (labels: "
                             f"{sorted(g.labels for g in table)}); add an image_opcodes erratum")
    parts = {"_" + p for p in name.split("_")[1:]}
    extra: list[str] = []
    derivatives = 0
    packing = 1
    for suffix, _meaning, addresses, description, in_body, page in suffix_key:
        if suffix not in parts:
            continue
        if in_body and suffix not in group.suffixes:
            raise SpecParseError(f"{d.name}: suffix {suffix} is a body component (page {page}) but its group "
                                 f"{group.labels} has no rows of it")
        if _SLOPES.match(addresses):
            derivatives = 1
        elif _EXTRA.match(addresses):
            count, what = _EXTRA.match(addresses).groups()
            extra += [what] * int(count)
        packed = _PER_VGPR.search(description)
        if packed:
            packing = int(packed.group(1))
    return ImageAddress(group.labels, tuple(extra), derivatives and packing, group.coordinates, group.adds,
                        group.types, group.page)

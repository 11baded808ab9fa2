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
takes stops the generator (SpecParseError) unless it is a ray query (BVH), whose address its
entry lays out instead, register by register: "VADDR[1] VADDRA[0] = ray_extent (float32)" (RDNA3:
the NSA=0 register, then the NSA=1 field), "1 VADDR1[0] = ray_extent (float32)" (RDNA4; its BVH64
and dual layouts sit in the entry's code block) -> `ray`: the VGPRs of each address operand (field)
in order, a layout per A16 (a layout starts again at its first register), each layout's total
held against the count the entry says ("11 address VGPRs contain ...", "only 8 address VGPRs are
used", "the first of 12 VGPRs that contain"). So does a suffix the key puts in the body (_L, _CL)
that the opcode's group has no rows of."""
from __future__ import annotations

import re

from ..fact_types import ImageAddress
from .image_addresses import OPCODE_ADDS
from .parse import SpecParseError

_EXTRA = re.compile(r"^(\d+):\s*(\S.*)$")                            # '1: lod bias'
_SLOPES = re.compile(r"^\d+(?:\s*,\s*\d+)*\s+or\s+\d+:")            # '2,4 or 6: slopes'
_PER_VGPR = re.compile(r"\bpacked (\d+) gradients per VGPR\b")
_RAY_REGISTER = re.compile(r"\b(VADDR[A-Z0-9]?)\[(\d+)\] = ")                 # 'VADDRA[0] = ray_extent'
_RAY_VGPRS_SAID = re.compile(r"\b(\d+) (?:address )?VGPRs (?:that )?(?:contain|are used)\b")


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
            return ImageAddress(ray=ray_layouts(d))
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


def ray_layouts(d) -> tuple[tuple[int, ...], ...]:
    """A ray query's address layouts as its entry gives them (the module docstring): per layout the
    VGPRs of each address field in order, e.g. ((1, 1, 3, 3, 3), (1, 1, 3, 3)) for A16 0 and 1."""
    text = (d.description or "") + "\n" + (d.pcode or "")
    registers = [(m.group(1), int(m.group(2))) for m in _RAY_REGISTER.finditer(text)]
    layouts: list[list] = []
    for register in registers:
        if register == registers[0]:
            layouts.append([])
        layouts[-1].append(register)
    out = []
    for layout in layouts:
        fields = list(dict.fromkeys(field for field, _ in layout))
        counts = tuple(sum(f == field for f, _ in layout) for field in fields)
        if any(sorted(i for f, i in layout if f == field) != list(range(n)) for field, n in zip(fields, counts)):
            raise SpecParseError(f"{d.name}: address layout {layout}: a field's registers are not 0, 1, ...")
        out.append(counts)
    said = [int(n) for n in _RAY_VGPRS_SAID.findall(d.description or "")]
    if not out or [sum(c) for c in out] != said:
        raise SpecParseError(f"{d.name}: address layouts {out} against the VGPR counts its entry says, {said}")
    return tuple(out)

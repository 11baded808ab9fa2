"""What a memory instruction does with memory and with its data register, from its pseudocode.

    from isa.memory_access import memory_access
    a = memory_access(d)          # d: an isa InstrDef
    a.direction                   # 'load', 'store', 'atomic' (reads and writes memory) or None
    a.d16                         # the loaded data arrives in 16-bit halves of the register:
                                  # the other half (or a partly written last register) keeps its value
    a.two_addresses               # LDS two-address forms (ds_load_2addr, CDNA's ds_read2): each
                                  # 8-bit offset addresses one element, ADDR + OFFSETn * size
    a.data_dwords                 # VGPRs a store / atomic sends (cmpswap: value and compare, DATA[63 : 32])
    a.result_dwords               # VGPRs a load / returning atomic writes (VDATA[95 : 64]: 3)
    converts_format(d)            # a buffer access converts through a data format (*_FORMAT_*)
    buffer_resource(d)            # a scalar access addresses through a buffer resource (s_buffer_*)
    lane_address(d)               # no VGPR address: a scalar base plus the lane ID (*_ADDTID_B32)
    ray_query(d)                  # an image instruction tests rays against BVH nodes (BVHcnt on RDNA4)

direction: the pseudocode reads `MEM[...]` (load), assigns it (store), or both, e.g.
`tmp = MEM[ADDR].u; MEM[ADDR].u += DATA.u` (atomic). d16: the result (VDATA, RETURN_DATA,
D0) is assigned only as 16-bit bit ranges (`VDATA[31 : 16].b16 = ...`), the manual's D16 loads.
two_addresses: the pseudocode scales OFFSET1 on its own as an element index (`OFFSET1.u32 * 4U`),
not as the high byte of one 16-bit offset (`{ OFFSET1, OFFSET0 }`).
data_dwords / result_dwords: the widest use of the data register (VDATA, DATA) or the result
(VDATA, VDST, RETURN_DATA): a bit range's top bit, a typed value (DATA.b64), or one register per
step of a loop over them (RDNA4's *_BLOCK: 32). None where the code does not say (no code, or
it names no such register): callers then read the name's data type.

converts_format: the code converts with `ConvertFromFormat` / `ConvertToFormat`; where there is no
code (CDNA's BUFFER_STORE_FORMAT_D16_HI_X) the description: "Convert ... into 1-component
formatted data". buffer_resource: the code or description names a buffer (CalcBufferAddr,
"a scalar buffer surface", "using a buffer resource descriptor") or a resource descriptor
(RDNA4's S_BUFFER_PREFETCH_DATA). lane_address: the description "No VGPR address is supplied
... TID is added" (RDNA3) or "the lane ID is used as an offset" (RDNA3.5, RDNA4). ray_query:
the description tests "the intersection of rays" or returns "results of intersection testing".

Where the manual gives no pseudocode (the image instructions' sample/gather/load/store
descriptions, a few CDNA LDS-direct and cache instructions), the direction comes from AMD's
naming convention, which the manuals follow for every memory instruction: `_ATOMIC` atomics,
`_STORE` stores, `_LOAD` loads, and on image formats every other instruction (sample, gather,
get_lod, bvh ray queries, msaa_load) returns data; `_D16` in the name marks D16 data."""
from __future__ import annotations

import re
from functools import lru_cache

from .records import dataclass

_MEM_WRITE = re.compile(r"\bMEM\s*\[[^;\n]*?\]\s*(?:\.\s*\w+\s*)?(?:[-+*|&^]|<<|>>)?=(?!=)")
_MEM = re.compile(r"\bMEM\s*\[")
_RESULT = r"(?:VDATA|RETURN_DATA|VDST|D0)"
_HALF_WRITE = re.compile(_RESULT + r"\s*\[\s*(\d+)\s*:\s*(\d+)\s*\]\s*\.\s*\w+\s*=(?!=)")
_OFFSET1_INDEX = re.compile(r"\bOFFSET1(?:\.\w+)?\s*\*")
_RESULT_WRITE = re.compile(_RESULT + r"\s*(?:\[[^\]]*\])?\s*(?:\.\s*\w+\s*)?=(?!=)")


@dataclass(frozen=True)
class MemoryAccess:
    direction: str | None    # 'load', 'store', 'atomic' or None (no memory data moved)
    d16: bool                # the result is written in 16-bit halves; the rest keeps its value
    two_addresses: bool = False   # ADDR + OFFSET0 * size and ADDR + OFFSET1 * size (LDS 2addr forms)
    data_dwords: int | None = None    # VGPRs of the data a store or atomic sends (cmpswap: value and
    #                                   compare), from the pseudocode; None where it does not say
    result_dwords: int | None = None  # VGPRs a load or a returning atomic writes, likewise


# the data register a store / atomic reads and the result a load / atomic writes, by the names
# the manuals' code gives them (VDATA is a store's data and a load's result)
_DATA = {"store": ("VDATA", "DATA"), "atomic": ("DATA",)}
_RESULT = {"load": ("VDATA", "VDST", "RETURN_DATA"), "atomic": ("RETURN_DATA",)}
_SHORT_TYPE = re.compile(r"^[a-z]+$")       # RDNA3's .u .b .f: 32 bits


def _register_bits(text: str, names: tuple, types: dict) -> int:
    """Bits of the registers named `names` the code touches: the highest bit of a range
    (VDATA[95 : 64]), a typed whole value (DATA.b64, or its operand type for RDNA3's short
    .u), or one register per step of a loop that indexes them (VGPR[laneId][VDATA.u32 + i.u32]
    in `for i in 0 : 31`)."""
    bits = 0
    for name in names:
        for hi, typ in re.findall(rf"\b{name}\b(?:\s*\[\s*(\d+)\s*:\s*\d+\s*\])?(?:\s*\.\s*(\w+))?", text):
            if hi:
                bits = max(bits, int(hi) + 1)
            elif typ and not re.search(rf"\[{name}\.{typ}\s*\+", text):
                t = types.get(name, "") if _SHORT_TYPE.match(typ) and not typ[-1:].isdigit() else typ
                width = re.search(r"(\d+)$", t.replace("pk_", "") or "b32")
                bits = max(bits, int(width.group(1)) if width else 32)
        loop = re.search(rf"\bfor i in 0 : (\d+) do\b.*?\[{name}(?:\.\w+)?\s*\+\s*i\b", text, re.S)
        if loop:
            bits = max(bits, 32 * (int(loop.group(1)) + 1))
    return bits


@lru_cache(maxsize=None)
def _sizes(pcode: str, direction: str | None, operand_types: tuple) -> tuple[int | None, int | None]:
    """(data dwords, result dwords) the code gives, or None where it names no such register."""
    text, types = re.sub(r"//[^\n]*", "", pcode), dict(operand_types)
    out = []
    for names in (_DATA.get(direction), _RESULT.get(direction)):
        bits = _register_bits(text, names, types) if names else 0
        out.append(-(-bits // 32) if bits else None)
    return out[0], out[1]


def _by_name(name: str, image: bool) -> str | None:
    if "_ATOMIC" in name:
        return "atomic"
    if "_STORE" in name:
        return "store"
    if "_LOAD" in name or image:
        return "load"
    return None


@lru_cache(maxsize=None)
def _from_pcode(pcode: str) -> tuple[str | None, bool]:
    text = re.sub(r"//[^\n]*", "", pcode)
    writes = len(_MEM_WRITE.findall(text))
    uses = len(_MEM.findall(text))
    compound = any(m.group(0).rstrip().endswith(op) for m in _MEM_WRITE.finditer(text)
                   for op in ("+=", "-=", "|=", "&=", "^=", "*="))
    reads = uses > writes or compound
    direction = "atomic" if reads and writes else "load" if reads else "store" if writes else None
    halves = [int(hi) - int(lo) + 1 for hi, lo in _HALF_WRITE.findall(text)]
    d16 = bool(halves) and all(w == 16 for w in halves) and len(halves) == len(_RESULT_WRITE.findall(text))
    return direction, d16


@lru_cache(maxsize=None)      # per instruction (an InstrDef hashes by identity)
def memory_access(d, image: bool = False) -> MemoryAccess:
    """How `d` (an isa InstrDef of a memory format) uses memory; image: d's format is an
    image format (the family's traits.roles.image)."""
    if d.pcode and _MEM.search(d.pcode):
        direction, d16 = _from_pcode(d.pcode)
        data, result = _sizes(d.pcode, direction, tuple(sorted(d.operand_types.items())))
        return MemoryAccess(direction, d16, bool(_OFFSET1_INDEX.search(d.pcode)), data, result)
    return MemoryAccess(_by_name(d.name, image), "_D16" in d.name)


_CONVERTS = re.compile(r"\bConvert(?:From|To)Format\b")
_CONVERTS_SAID = re.compile(r"\bconvert\b[^.]*\bformat", re.I)
_BUFFER = re.compile(r"\bbuffer\b|\bCalc\w*BufferAddr\b|\bresource descriptor\b", re.I)
_RAY_QUERY = re.compile(r"\bintersection\b", re.I)
_LANE_ADDRESS = re.compile(r"\bno VGPR address\b|\blane ID is used\b|\bTID is added\b", re.I)


def converts_format(d) -> bool:
    """`d` (a buffer instruction) converts its data through a data format."""
    return bool(_CONVERTS.search(d.pcode)) if d.pcode else bool(_CONVERTS_SAID.search(d.description or ""))


def buffer_resource(d) -> bool:
    """`d` (a scalar memory instruction) addresses memory through a buffer resource descriptor."""
    return bool(_BUFFER.search(f"{d.pcode or ''}\n{d.description or ''}"))


def lane_address(d) -> bool:
    """`d` (a FLAT-family instruction) takes no VGPR address: scalar base + offset + lane ID * 4."""
    return bool(_LANE_ADDRESS.search(d.description or ""))


def ray_query(d) -> bool:
    """`d` (an image-family instruction) intersects rays with BVH nodes (image_bvh*_intersect_ray)."""
    return bool(_RAY_QUERY.search(d.description or ""))


_DISCARDS = re.compile(r"^Discard\b[^.]*\bcache lines?\b")


@lru_cache(maxsize=None)
def scalar_data(d) -> str:
    """What a scalar memory instruction's SDATA field holds: 'register' (the SGPRs loaded, stored
    or returned), 'immediate' (a number the instruction takes itself: s_atc_probe's mode, from
    isa.errata.UNDESCRIBED_SMEM, as the manuals do not describe the probes) or 'none' (the
    manual: "Discard one dirty scalar data cache line": s_dcache_discard moves no data, only an
    address)."""
    from .errata import UNDESCRIBED_SMEM
    if d.name in UNDESCRIBED_SMEM:
        return UNDESCRIBED_SMEM[d.name][0]
    if memory_access(d).direction is None and _DISCARDS.search(d.description or ""):
        return "none"
    return "register"


@lru_cache(maxsize=None)
def scalar_base_registers(d) -> int:
    """SGPRs of a scalar memory instruction's SBASE: 4 for a buffer resource descriptor
    (buffer_resource; the undescribed s_atc_probe_buffer from isa.errata.UNDESCRIBED_SMEM), else
    2 (a 64-bit address)."""
    from .errata import UNDESCRIBED_SMEM
    undescribed = UNDESCRIBED_SMEM.get(d.name)
    resource = undescribed[1] == "resource" if undescribed else buffer_resource(d)
    return 4 if resource else 2


_FORMAT_IN_INSTRUCTION = re.compile(r"\bThe instruction specifies the data format\b")


@lru_cache(maxsize=None)
def typed_buffer(d) -> bool:
    """`d` (a buffer instruction) takes its data format from the instruction (its FORMAT field,
    `format:` in text) rather than from the resource descriptor: every MTBUF instruction; in
    RDNA4's VBUFFER, which typed and untyped instructions share, those whose description says
    "The instruction specifies the data format" (bar the untyped stores whose description the
    manual copied from the typed ones, isa.errata.FORMAT_FROM_DESCRIPTOR)."""
    if d.format == "MTBUF":
        return True
    if d.format != "VBUFFER" or not _FORMAT_IN_INSTRUCTION.search(d.description or ""):
        return False
    from .errata import FORMAT_FROM_DESCRIPTOR
    return not any(d.name in names for _, names in FORMAT_FROM_DESCRIPTOR.values())

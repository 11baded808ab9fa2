"""The generator's reading of what a memory instruction does with memory and with its data register,
from its pseudocode (its syntax tree, through gen/memory_code.py) and description (the tables
isa.memory_access answers from).

    from isa.gen.memory_access import memory_access
    a = memory_access(d)          # d: an isa InstrDef
    a.direction, a.d16, ...       # the facts isa/memory_access.py's docstring lists

direction: the pseudocode reads `MEM[...]` (load), assigns it (store), or both, e.g.
`tmp = MEM[ADDR].u; MEM[ADDR].u += DATA.u` (atomic). d16: the result (VDATA, RETURN_DATA,
D0) is assigned only as 16-bit bit ranges (`VDATA[31 : 16].b16 = ...`), the manual's D16 loads.
two_addresses: the pseudocode scales OFFSET1 on its own as an element index (`OFFSET1.u32 * 4U`),
not as the high byte of one 16-bit offset (`{ OFFSET1, OFFSET0 }`).
data_dwords / result_dwords: the widest use of the data register (VDATA, DATA) or the result
(VDATA, VDST, RETURN_DATA): a bit range's top bit, a typed value (DATA.b64), or one register per
step of a loop over them (RDNA4's *_BLOCK: 32). None where the code does not say (no code, or
it names no such register): callers then read value_dwords (the code's memory type, declarations or the description).

converts_format: the code converts with `ConvertFromFormat` / `ConvertToFormat`; where there is no
code (CDNA's BUFFER_STORE_FORMAT_D16_HI_X) the description: "Convert ... into 1-component
formatted data". buffer_resource: the code or description names a buffer (CalcBufferAddr,
"a scalar buffer surface", "using a buffer resource descriptor") or a resource descriptor
(RDNA4's S_BUFFER_PREFETCH_DATA). lane_address: the description "No VGPR address is supplied
... TID is added" (RDNA3) or "the lane ID is used as an offset" (RDNA3.5, RDNA4). ray_query:
the description tests "the intersection of rays" or returns "results of intersection testing".

Where the manual gives no pseudocode (the image instructions' sample/gather/load/store
descriptions, a few CDNA LDS-direct and cache instructions), the direction is the verb the
description leads with ("Load 32 bits of untyped data ...", "Store a texel ...", CDNA's "Read 64
bits of data per lane from data share", RDNA3's "Untyped
buffer load dword.", CDNA's "Convert 16 bits of data ... and store the data into a buffer
surface"), and on image formats every other instruction (sample, gather, get_lod, bvh ray
queries: "Sample texture map", "Gather 4 single component elements", "Intersection test ...")
returns data; D16 data is data "from the high 16 bits" (or low) of a register."""
from __future__ import annotations

import re
from functools import lru_cache

from ..fact_types import LDS_DATA_NAMES, FormatConversion, LdsOperands, MemoryAccess, MemoryEffects
from .effects import words
from .memory_code import (calls, declared_bits, indexes, memory_bits, memory_use, register_bits, scales_offset1,
                          uses_memory)

# the data register a store / atomic reads and the result a load / atomic writes, by the names
# the manuals' code gives them (VDATA is a store's data and a load's result)
_DATA = {"store": ("VDATA", "DATA"), "atomic": ("DATA",)}
_RESULT = {"load": ("VDATA", "VDST", "RETURN_DATA"), "atomic": ("RETURN_DATA",)}


@lru_cache(maxsize=None)
def _sizes(pcode: str, direction: str | None, operand_types: tuple) -> tuple[int | None, int | None]:
    """(data dwords, result dwords) the code gives, or None where it names no such register."""
    types = dict(operand_types)
    out = []
    for names in (_DATA.get(direction), _RESULT.get(direction)):
        bits = register_bits(pcode, names, types) if names else 0
        out.append(-(-bits // 32) if bits else None)
    return out[0], out[1]


# what one data value of a memory instruction is, where its code names no data register: the
# code's declarations (`declare RETURN_DATA : 32'U[2]`: ds_condxchg32_rtn_b64), or the sizes its
# description gives ("Load 16 bits of untyped data", "Read 64 bits of data per lane", "into a
# 128-bit vector register", "Untyped buffer load 4 dwords", "Read 1 qword", "64-bit timestamp")
_BITS_SAID = re.compile(r"\b(\d+)[ -]bits?\b")
_DWORDS_SAID = re.compile(r"\b(\d+) dwords\b|\b(dword|qword)\b", re.I)


@lru_cache(maxsize=None)      # per instruction (an InstrDef hashes by identity)
def value_dwords(d) -> int:
    """Registers of one data value of a memory instruction (SMEM, DS, FLAT/GLOBAL/SCRATCH, buffer):
    what a load returns, a store sends or an atomic returns (a compare-and-swap's data is two of
    them; a two-address LDS load returns two). From the code: the data registers memory_access
    reads (VDATA[95 : 64]: 3; SDATA[511 : 480]: 16; RDNA4's *_BLOCK loop: 32), else the memory
    values' type (MEM[ADDR].b64: 2), else its declarations; without code, the sizes the
    description gives (the largest: "16x16 matrix of 8-bit data ... into a 64-bit vector register"
    is 2). 1 for an instruction that moves no data (ds_nop, cache invalidations, GWS semaphores)."""
    if d.pcode:
        access = memory_access(d)
        n = access.data_dwords if access.direction == "store" else access.result_dwords
        if n and access.two_addresses and access.direction != "store":
            n //= 2                 # ds_load_2addr_b64 returns two 64-bit values
        scalar = register_bits(d.pcode, ("SDATA",), dict(d.operand_types))
        if n or scalar:
            return n or -(-scalar // 32)
        if access.element_bits:
            return -(-access.element_bits // 32)
        declared = declared_bits(d.pcode)
        if declared:
            return -(-max(declared) // 32)
    description = d.description or ""
    bits = [int(b) for b in _BITS_SAID.findall(description)]
    bits += [32 * int(n) if n else 64 if word.lower() == "qword" else 32 for n, word in _DWORDS_SAID.findall(description)]
    return -(-max(bits) // 32) if bits else 1


# the verb a description leads with ("Load 8 bits of ...", "Store a texel ...", RDNA3's "Untyped
# buffer load dword."), or a conversion that then stores ("Convert 16 bits of data from the high 16
# bits ... into 1-component formatted data and store the data into a buffer surface")
_LEADING_VERB = re.compile(r"^(?:untyped buffer\s+)?(atomic|load|store|read)\b|^convert\b[^.]*\band (store|load) the data\b",
                           re.I)
_HALF_REGISTER = re.compile(r"\b(?:high|low) 16 bits of\b")    # D16 data: one half of each register


def _by_description(description: str, image: bool) -> str | None:
    m = _LEADING_VERB.search(description)
    if m:
        verb = (m.group(1) or m.group(2)).lower()
        return "load" if verb == "read" else verb      # CDNA's "Read 64 bits of data per lane from data share"
    return "load" if image else None


@lru_cache(maxsize=None)      # per instruction (an InstrDef hashes by identity)
def memory_access(d, image: bool = False) -> MemoryAccess:
    """How `d` (an isa InstrDef of a memory format) uses memory; image: d's format is an
    image format (the family's traits.roles.image)."""
    from ..errata import NOT_CODE_MEMORY
    if d.pcode and d.name in NOT_CODE_MEMORY and not uses_memory(d.pcode):     # not code: the errata say
        return MemoryAccess(NOT_CODE_MEMORY[d.name], False)
    if d.pcode and uses_memory(d.pcode):
        direction, d16 = memory_use(d.pcode)
        data, result = _sizes(d.pcode, direction, tuple(sorted(d.operand_types.items())))
        widths = memory_bits(d.pcode)
        return MemoryAccess(direction, d16, scales_offset1(d.pcode), data, result,
                            next(iter(widths)) if len(widths) == 1 else None)
    description = d.description or ""
    return MemoryAccess(_by_description(description, image), bool(_HALF_REGISTER.search(description)))


_CONVERTS_SAID = re.compile(r"\bconvert\b[^.]*\bformat", re.I)
_BUFFER = re.compile(r"\bbuffer\b|\bresource descriptor\b", re.I)      # (in a description)
_BUFFER_ADDRESS = re.compile(r"Calc\w*BufferAddr", re.I)               # (a function's name)
_RAY_QUERY = re.compile(r"\bintersection\b", re.I)
_LANE_ADDRESS = re.compile(r"\bno VGPR address\b|\blane ID is used\b|\bTID is added\b", re.I)


def converts_format(d) -> bool:
    """`d` (a buffer instruction) converts its data through a data format."""
    return bool(calls(d.pcode) & {"ConvertFromFormat", "ConvertToFormat"}) if d.pcode \
        else bool(_CONVERTS_SAID.search(d.description or ""))


_COMPONENTS_SAID = re.compile(r"\b([1-4])-component\b", re.I)
_HIGH_HALF_SAID = re.compile(r"\bhigh 16 bits of\b", re.I)
_HALVES_SAID = re.compile(r"\b16 bits of data\b|\bpacked 16[- ]bit\b", re.I)


@lru_cache(maxsize=None)
def format_conversion(d) -> FormatConversion | None:
    """How many components a buffer instruction that converts through a data format
    (converts_format) moves, and where: from the data register's bit range in each conversion of
    its code (`VDATA[31 : 16].b16 = 16'B(ConvertFromFormat(...))`: one 16-bit component in the
    high half), or without code from the description ("Convert 16 bits of data from the high 16
    bits of a 32-bit vector input register into 1-component formatted data": CDNA's
    buffer_store_format_d16_hi_x). None for any other instruction."""
    if not converts_format(d):
        return None
    if not d.pcode:
        said = d.description or ""
        count = _COMPONENTS_SAID.search(said)
        if count is None:
            return None
        high = bool(_HIGH_HALF_SAID.search(said))
        return FormatConversion(int(count.group(1)), high or bool(_HALVES_SAID.search(said)), high)
    from .effects import flat_statements, name_of, number, tree, walk
    ranges = []
    root = tree(d.pcode)
    for _, s in flat_statements(root) if root is not None else ():
        nodes = list(walk(s))
        if not any(n.data == "call" and str(n.children[0]) in ("ConvertFromFormat", "ConvertToFormat") for n in nodes):
            continue
        at = next((n for n in nodes if n.data == "slice" and name_of(n.children[0]) == "VDATA"
                   and number(n.children[1]) is not None and number(n.children[2]) is not None), None)
        if at is None:
            return None
        ranges.append((number(at.children[1]), number(at.children[2])))
    if not ranges:
        return None
    d16 = all(hi - lo == 15 for hi, lo in ranges)
    return FormatConversion(len(ranges), d16, d16 and ranges[0][1] == 16)


def buffer_resource(d) -> bool:
    """`d` (a scalar memory instruction) addresses memory through a buffer resource descriptor."""
    return any(w.lower() == "buffer" or _BUFFER_ADDRESS.fullmatch(w) for w in words(d.pcode)) \
        or bool(_BUFFER.search(d.description or ""))


def lane_address(d) -> bool:
    """`d` (a FLAT-family instruction) takes no VGPR address: scalar base + offset + lane ID * 4."""
    return bool(_LANE_ADDRESS.search(d.description or ""))


def ray_query(d) -> bool:
    """`d` (an image-family instruction) intersects rays with BVH nodes (image_bvh*_intersect_ray)."""
    return bool(_RAY_QUERY.search(d.description or ""))


_NO_SAMPLER = re.compile(r"\bno sampl(?:er|ing)\b|\bdoes not take a sampler\b|\bresource info", re.I)
_LOADS = re.compile(r"^(?:untyped buffer\s+)?load\b", re.I)


@lru_cache(maxsize=None)
def takes_sampler(d) -> bool:
    """`d` (an image-family instruction) reads a sampler constant (MIMG's SSAMP, VSAMPLE's SAMP):
    it returns data, and its description neither loads ("Load element from ...", "Load up to 4
    samples ...": image_load*, image_msaa_load) nor says "No sampler" / "No sampling is performed"
    / "does not take a sampler", nor reads resource information (image_get_resinfo), nor tests
    rays (ray_query). Sample, gather and get_lod are left."""
    description = d.description or ""
    return memory_access(d, True).direction == "load" and not _LOADS.search(description) \
        and not _NO_SAMPLER.search(description) and not ray_query(d)


_FOUR_TEXELS = re.compile(r"\b(?:gather 4 single[- ]component|up to 4 samples of 1 component|"
                          r"1 component per texel from 4x1 texels)\b|^GATHER4\w*,", re.I)


def gathers_four(d) -> bool:
    """`d` (an image-family instruction) returns four texels of one channel, whatever DMASK says
    ("Gather 4 single component elements (2x2)", "Fetch 1 component per texel from 4x1 texels",
    "Load up to 4 samples of 1 component from an MSAA resource"; RDNA3's "GATHER4_LZ, with user
    offsets." names the gather it varies): image_gather4*, image_msaa_load."""
    return bool(_FOUR_TEXELS.search(d.description or ""))


_MIP_LEVEL = re.compile(r"\buser[- ](?:specified|supplied) mip ?level\b|\bfor a given mip ?level\b", re.I)
_RESOURCE_INFO = re.compile(r"\bresource info", re.I)


def mip_level(d) -> bool:
    """`d` (an image-family instruction) takes a mip level among its address components ("Load
    element from user-specified miplevel", "Return resource info for a given mip level"):
    image_load_mip*, image_store_mip*, image_get_resinfo. Not written down: a cross-check of the
    address tables' groups (ImageAddress.mip_level, what readers use; gen/instruction_facts.py)."""
    return bool(_MIP_LEVEL.search(d.description or ""))


def resource_info(d) -> bool:
    """`d` (an image-family instruction) returns the resource's description, not texels ("Return
    resource info ...", "Gather resource information ..."): its only address is the mip level.
    Read here for _image_effects (no memory), and a cross-check of the address tables' GET_RESINFO
    group (ImageAddress.resource_info, what readers use; gen/instruction_facts.py)."""
    return bool(_RESOURCE_INFO.search(d.description or ""))


_PARAMETER = re.compile(r"\btransfer parameter data\b", re.I)


def attribute_load(d) -> bool:
    """`d` (an LDS-direct instruction: LDSDIR, RDNA4's VDSDIR) loads an interpolation attribute's
    channel ("Transfer parameter data from LDS to VGPRs ...": lds_param_load, ds_param_load), so
    its ATTR / ATTR_CHAN fields are an operand; the direct loads ("Read a single 32-bit value from
    LDS to all lanes") have none."""
    return bool(_PARAMETER.search(d.description or ""))




@lru_cache(maxsize=None)
def prefetch(d) -> str | None:
    """A scalar prefetch (RDNA4's s_prefetch_inst/data, s_buffer_prefetch_data: the code calls
    PrefetchScalarInst / PrefetchScalarData with an address and a length that SDATA, a number,
    adds to): 'pc' when the address is relative to the PC (`PC[63 : 0].i64 + 8LL + ...`, no
    SBASE), 'base' when it comes from SBASE; None for any other instruction."""
    if not any(f.startswith("Prefetch") for f in calls(d.pcode)):
        return None
    return "pc" if indexes(d.pcode, "PC") else "base"


_DISCARDS = re.compile(r"^Discard\b[^.]*\bcache lines?\b")


@lru_cache(maxsize=None)
def scalar_data(d) -> str:
    """What a scalar memory instruction's SDATA field holds: 'register' (the SGPRs loaded, stored
    or returned), 'immediate' (a number the instruction takes itself: s_atc_probe's mode, from
    isa.errata.UNDESCRIBED_SMEM, as the manuals do not describe the probes) or 'none' (the
    manual: "Discard one dirty scalar data cache line": s_dcache_discard moves no data, only an
    address)."""
    from ..errata import UNDESCRIBED_SMEM
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
    from ..errata import UNDESCRIBED_SMEM
    undescribed = UNDESCRIBED_SMEM.get(d.name)
    resource = undescribed[1] == "resource" if undescribed else buffer_resource(d)
    return 4 if resource else 2


_RETURNS_COUNTER = re.compile(r"^Return current \d+-bit\b")


def reads_counter(d) -> bool:
    """`d` (a scalar memory instruction) returns a clock in SDATA and addresses no memory: the
    manual's "Return current 64-bit timestamp" / "Return current 64-bit RTC" (CDNA's s_memtime,
    s_memrealtime; value_dwords gives its 2 SGPRs)."""
    return memory_access(d).direction is None and bool(_RETURNS_COUNTER.search(d.description or ""))


_GDS_ONLY_SAID = re.compile(r"\bGDS[ -]only\b|\bembedded in GDS\b", re.I)


def gds_only(d) -> bool:
    """`d` (a DS instruction) works on the global data share or the global wave sync only, never
    LDS, so its text takes `gds`: the manual's "GDS Only:" (CDNA3's GWS entries), "GDS-only"
    (RDNA3's ds_ordered_count), registers "embedded in GDS" (its GS_REG atomics), else
    isa.errata.GDS_ONLY (the GWS entries RDNA3/3.5 and CDNA4 leave empty)."""
    from ..errata import GDS_ONLY
    return d.format == "DS" and (bool(_GDS_ONLY_SAID.search(d.description or "")) or d.name in GDS_ONLY)


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
    from ..errata import FORMAT_FROM_DESCRIPTOR
    return not any(d.name in pages for pages in FORMAT_FROM_DESCRIPTOR.values())


_LDS_RESULTS = {"RETURN_DATA", "VDST", "VGPR_RTN"}
_LDS_ADDRESSES = {"ADDR", "ADDR_BASE", "vgpr_a"}
_RETURNS_SAID = re.compile(r"\breturn the pre-operation value to VGPRs\b", re.I)


@lru_cache(maxsize=None)
def lds_operands(d) -> LdsOperands:
    """Operands of a DS instruction, from the names its code uses: a result where it writes
    RETURN_DATA / VDST or loads; an address where it names ADDR (ADDR_BASE, RDNA4's vgpr_a); DATA0
    where it names DATA (or DATA0), DATA1 where it names DATA2 (or DATA1). An atomic's code is the
    same with and without return; the manual names the rule: "All instructions with RTN in the name
    return the value that was in memory before the operation was performed" (CDNA3 manual, section
    12.12, page 418; RDNA3's atomics pair ..._U32 / ..._RTN_U32 the same way). Without code, the
    description: a load (its leading verb) returns data through an address, "Return the
    pre-operation value to VGPRs" (CDNA's ds_append) a result. What the code cannot say is in
    isa.errata.UNDESCRIBED_LDS (GWS, ds_ordered_count, ds_swizzle_b32, the GS_REG atomics)."""
    from ..errata import UNDESCRIBED_LDS
    if d.name in UNDESCRIBED_LDS:
        result, address, data = UNDESCRIBED_LDS[d.name][0]
        return LdsOperands(result, address, data)
    access = memory_access(d)
    if not d.pcode:
        said = access.direction == "load" or bool(_RETURNS_SAID.search(d.description or ""))
        return LdsOperands(None if said else 0, access.direction is not None)
    names = words(d.pcode)
    writes_result = bool(names & _LDS_RESULTS)
    result = "_RTN" in d.name if access.direction == "atomic" and writes_result else \
        writes_result or access.direction == "load"
    data = []
    for field, given in LDS_DATA_NAMES.items():
        if names & set(given):
            bits = register_bits(d.pcode, tuple(sorted(given)), dict(d.operand_types))
            data.append((field, -(-bits // 32) if bits else None))
    return LdsOperands(None if result else 0, bool(names & _LDS_ADDRESSES), tuple(data))


def image_loads(d) -> bool:
    """On an image format `d` returns data where elsewhere it moves none (its description leads
    with no verb: sample, gather, get_lod, a ray query): memory_access(d, True) differs from
    memory_access(d) by direction 'load' alone."""
    image, plain = memory_access(d, True), memory_access(d)
    if image == plain:
        return False
    assert image == MemoryAccess("load", *(getattr(plain, f) for f in list(plain.__dataclass_fields__)[1:])), d.name
    return True


# each memory format's address space and the fields that hold its register operands, by the
# formats' field tables (RDNA4's V* formats rename ADDR / DATA to VADDR / VSRC, SRSRC to RSRC):
# (space, address, data, result, scalar address, scalar offset)
_MEMORY_FORMATS = {
    "DS": ("lds", "ADDR", "DATA0", "VDST", None, None), "VDS": ("lds", "ADDR", "DATA0", "VDST", None, None),
    "LDSDIR": ("lds", None, None, "VDST", None, None), "VDSDIR": ("lds", None, None, "VDST", None, None),
    "FLAT": ("flat", "ADDR", "DATA", "VDST", None, None), "VFLAT": ("flat", "VADDR", "VSRC", "VDST", None, None),
    "GLOBAL": ("global", "ADDR", "DATA", "VDST", "SADDR", None),
    "VGLOBAL": ("global", "VADDR", "VSRC", "VDST", "SADDR", None),
    "SCRATCH": ("scratch", "ADDR", "DATA", "VDST", "SADDR", None),
    "VSCRATCH": ("scratch", "VADDR", "VSRC", "VDST", "SADDR", None),
    "MUBUF": ("buffer", "VADDR", "VDATA", "VDATA", "SRSRC", "SOFFSET"),
    "MTBUF": ("buffer", "VADDR", "VDATA", "VDATA", "SRSRC", "SOFFSET"),
    "VBUFFER": ("buffer", "VADDR", "VDATA", "VDATA", "RSRC", "SOFFSET"),
    "SMEM": ("scalar", None, "SDATA", "SDATA", "SBASE", "SOFFSET"),
}
_MEMORY = {"load": "read", "store": "write", "atomic": "read-modify-write"}
# each image format's address fields in order, each with its condition (MIMG's ADDR1..ADDR4 sit in
# the NSA dword: "Non-sequential address. Specifies that an additional instruction DWORD exists
# holding up to 4 unique VGPR addresses"; RDNA4's VADDR0-4 are always there), its data, resource
# and sampler fields
_IMAGE_FORMATS = {
    "MIMG": ((("VADDR", None),) + tuple((f"ADDR{i}", "nsa") for i in range(1, 5)), "VDATA", "SRSRC", "SSAMP"),
    "VIMAGE": (tuple((f"VADDR{i}", None) for i in range(5)), "VDATA", "RSRC", None),
    "VSAMPLE": (tuple((f"VADDR{i}", None) for i in range(4)), "VDATA", "RSRC", "SAMP"),
}
# "DATA is the first of 10 destination VGPRs" (RDNA4's dual and BVH8 ray queries, which also
# write back the ray's origin and direction: "the ray origin and ray direction components of
# vgpr_a are modified"); the single-node queries: "instruction returns all four DWORDs"
# (IMAGE_BVH64_INTERSECT_RAY: "See IMAGE_BVH_INTERSECT_RAY for basic information including restrictions")
_RAY_RESULTS_SAID = re.compile(r"\bfirst of (\d+) destination VGPRs\b|\breturns all (four) DWORDs\b|"
                               r"\bSee IMAGE_BVH_INTERSECT_RAY for basic information\b", re.I)
# the address layout of RDNA4's dual and BVH8 queries (A16 is not supported), in the code block
# or the description: "7 VADDR3[0] = ray_dir.x (float32, input and output parameter)"
_RAY_LAYOUT = re.compile(r"\b(VADDR\d)\[(\d+)\]\s*=\s*[^()\n]*\(([^)]*)\)")
_NAMES_M0 = re.compile(r"\bM0\b")      # (in a description)
# "Add (count_bits(exec_mask)) to the value stored in DS memory at (M0.base + instr_offset)"
_UPDATES_SAID = re.compile(r"\b(?:add|subtract)\b[^.]*\b(?:to|from) the value stored in DS memory\b", re.I)


@lru_cache(maxsize=None)
def memory_effects(d) -> MemoryEffects:
    """What `d` reads and writes, memory and registers (isa.fact_types.MemoryEffects), from the
    facts above: the memory by its format (LDS for DS and the LDS parameter / direct loads; FLAT,
    GLOBAL, SCRATCH; buffer; scalar) and by memory_access's direction; the data and result
    registers by lds_operands (DS), data_dwords / result_dwords, else value_dwords; the address
    registers by the format: a DS ADDR VGPR, a FLAT 64-bit VGPR address, a GLOBAL 64-bit VGPR
    address or an SGPR pair plus a 32-bit VGPR offset (none for the lane-ID forms, lane_address),
    SCRATCH's optional VGPR and SGPR offsets, a buffer's index and offset VGPRs, its 4-SGPR
    resource and SOFFSET, SMEM's SBASE (scalar_base_registers) and SOFFSET; an LDS update the
    description alone gives ("Add (count_bits(exec_mask)) to the value stored in DS memory at
    (M0.base + instr_offset)": ds_append, ds_consume) reads and writes LDS; a vector memory
    instruction that moves no data (cache control) none. M0 where the code or
    description names it; EXEC for every vector memory instruction. A load "into a data share"
    (CDNA's *_LOAD_LDS_*, isa.gen.descriptions.loads_to_lds) writes no register but LDS, at the
    address M0 gives (the CDNA3 manual's FLAT operand table, 10.1 page 86: "Implied use of M0 for SCRATCH and
    GLOBAL only when LDS=1. Provides the LDS address-offset."). Image formats: _image_effects."""
    if d.format in _IMAGE_FORMATS:
        return _image_effects(d)
    layout = _MEMORY_FORMATS.get(d.format)
    if layout is None:
        return MemoryEffects()
    space, address, data, result, scalar, soffset = layout
    access = memory_access(d)
    n = value_dwords(d)
    reads, writes = [], []
    implicit = ("EXEC",) if space != "scalar" else ()
    if "M0" in words(d.pcode) or _NAMES_M0.search(d.description or ""):
        implicit += ("M0",)
    memory = _MEMORY.get(access.direction)
    if memory is None and space == "lds" and _UPDATES_SAID.search(d.description or ""):
        memory = "read-modify-write"        # ds_append / ds_consume: no code, the description
    if d.format in ("LDSDIR", "VDSDIR"):        # "Transfer parameter data from LDS", "Read ... from LDS"
        return MemoryEffects(space, "read", (), ((result, 1, None),), (), implicit)
    if space == "lds":
        lds = lds_operands(d)
        if lds.address:
            reads.append((address, 1, None))
        reads += [("DATA0" if field == "DATA0" else "DATA1", count or n, None) for field, count in lds.data]
        if lds.result != 0:
            writes.append((result, lds.result or access.result_dwords or n, None))
    elif space == "scalar":
        if reads_counter(d):
            return MemoryEffects(space, None, (), ((result, n, None),))
        if memory is not None or prefetch(d) == "base" or scalar_data(d) == "none":
            reads += [(scalar, scalar_base_registers(d), None), (soffset, 1, "register")]
        if scalar_data(d) == "register" and memory in ("write", "read-modify-write"):
            reads.append((data, access.data_dwords or n, None))
        if scalar_data(d) == "register" and memory in ("read", "read-modify-write"):
            writes.append((result, access.result_dwords or n, "returns" if memory != "read" else None))
    elif memory is None:        # cache control (buffer_gl0_inv): no address, no data
        pass
    else:
        if space == "flat":
            reads.append((address, 2, None))
        elif space == "global" and lane_address(d):
            reads.append((scalar, 2, "saddr"))
        elif space == "global":
            reads += [(address, 2, "no saddr"), (address, 1, "saddr"), (scalar, 2, "saddr")]
        elif space == "scratch":
            reads += [(address, 1, "sve"), (scalar, 1, "saddr")]
        else:
            reads += [(address, 1, "idxen"), (address, 1, "offen"), (scalar, 4, None), (soffset, 1, "register")]
        if memory in ("write", "read-modify-write"):
            reads.append((data, access.data_dwords or n, None))
        if memory == "read":
            writes.append((result, access.result_dwords or n, None))
        elif memory == "read-modify-write":
            writes.append((result, access.result_dwords or n, "returns"))
    from .descriptions import loads_to_lds
    if loads_to_lds(d.pcode, d.description):   # no VDST: the data goes to LDS, addressed by M0
        return MemoryEffects(space, memory, tuple(reads), (), (), tuple(dict.fromkeys(implicit + ("M0",))), True)
    partial = tuple(field for field, _, _ in writes) if access.d16 else ()
    return MemoryEffects(space, memory, tuple(reads), tuple(writes), partial, implicit)


def _image_effects(d) -> MemoryEffects:
    """What an image instruction (MIMG; RDNA4's VIMAGE, VSAMPLE) reads and writes. Memory:
    space 'image', by memory_access(d, image=True)'s direction (a store writes, an atomic
    read-modify-writes, every other reads: load, sample, gather, get_lod, a ray query's BVH
    nodes), none for image_get_resinfo, which returns the resource's description
    (resource_info). Registers, by the format's fields: the address over the address fields
    (count 'address': isa.memory_registers.address_fields by DIM, A16, the opcode's image_address and NSA;
    MIMG's NSA dword fields only with NSA), the resource (the field text: "SGPR to supply T#
    (resource constant) in 4 or 8 consecutive SGPRs", R128 "1 = 128bit, 0 = 256bit"; a ray query
    4: "The instruction must be encoded with R128=1"), the sampler's 4 SGPRs (takes_sampler),
    the data a store or atomic sends and a load writes (count 'data': by DMASK, D16 and TFE), an
    atomic's pre-operation value when it returns it ('returned': the data, halved for a
    compare-and-swap, whose data is value and compare), a ray query's results ("returns all four
    DWORDs"; the 64-bit query: "See IMAGE_BVH_INTERSECT_RAY for basic information"); its data
    register is written in part (D16's 16-bit halves). EXEC. RDNA4's dual and BVH8 ray queries:
    _wide_ray_effects."""
    addresses, data, rsrc, samp = _IMAGE_FORMATS[d.format]
    access = memory_access(d, True)
    description = d.description or ""
    ray = ray_query(d)
    said = _RAY_RESULTS_SAID.search(description) if ray else None
    if ray and said is None:
        return MemoryEffects()
    if ray and said.group(1):
        return _wide_ray_effects(d, int(said.group(1)), data, rsrc)
    memory = None if resource_info(d) else _MEMORY.get(access.direction)
    reads = [(field, "address", when) for field, when in addresses]
    reads += [(rsrc, 4, None)] if ray else [(rsrc, 8, "no r128"), (rsrc, 4, "r128")]
    if samp is not None and takes_sampler(d):
        reads.append((samp, 4, None))
    writes = []
    if memory in ("write", "read-modify-write"):
        reads.append((data, "data", None))
    if ray:
        writes.append((data, 4, None))
    elif memory == "read-modify-write":
        writes.append((data, "returned", "returns"))
    elif access.direction == "load":
        writes.append((data, "data", None))
    partial = (data,) if writes and not ray else ()
    return MemoryEffects("image", memory, tuple(reads), tuple(writes), partial, ("EXEC",))


def _wide_ray_effects(d, results: int, data: str, rsrc: str) -> MemoryEffects:
    """RDNA4's IMAGE_BVH_DUAL_INTERSECT_RAY and IMAGE_BVH8_INTERSECT_RAY: "DATA is the first of 10
    destination VGPRs"; the address fields by the manual's layout ("0 VADDR0[0] = bvh_base[31:0]
    (first part of uint64, input)" ... "10 VADDR4[0] = node_pointer", each field's VGPRs its
    highest index plus one); the fields marked "input and output parameter" (the ray's origin and
    direction: "If an instance node is tested then the ray origin and ray direction components of
    vgpr_a are modified") are written as well, in part (only for an instance node); "The
    instruction must be encoded with R128=1": 4 SGPRs of resource."""
    layout: dict[str, int] = {}
    written = []
    for field, index, said in _RAY_LAYOUT.findall((d.pcode or "") + "\n" + (d.description or "")):
        layout[field] = max(layout.get(field, 0), int(index) + 1)
        if "output" in said and field not in written:
            written.append(field)
    if not layout:
        return MemoryEffects()
    reads = tuple((field, layout[field], None) for field in sorted(layout)) + ((rsrc, 4, None),)
    writes = ((data, results, None),) + tuple((field, layout[field], None) for field in written)
    return MemoryEffects("image", "read", reads, writes, tuple(written), ("EXEC",))


# the facts the generator writes to isa/generated/<family>/memory_access.py, each a function of an InstrDef
FACTS = {"memory_access": memory_access, "image_loads": image_loads, "value_dwords": value_dwords,
         "converts_format": converts_format, "format_conversion": format_conversion,
         "buffer_resource": buffer_resource, "lane_address": lane_address, "ray_query": ray_query,
         "takes_sampler": takes_sampler, "gathers_four": gathers_four, "attribute_load": attribute_load, "prefetch": prefetch, "scalar_data": scalar_data,
         "scalar_base_registers": scalar_base_registers, "reads_counter": reads_counter,
         "typed_buffer": typed_buffer, "lds_operands": lds_operands, "gds_only": gds_only,
         "memory_effects": memory_effects}


# facts whose answer matters only for an instruction of an image format (traits.roles.image): the
# generated table holds them for those alone, the default elsewhere
IMAGE_ONLY = ("image_loads", "takes_sampler")


def compute(name: str, d):
    """Fact `name` of `d`, read from its manual entry (what the generator writes down)."""
    return FACTS[name](d)

"""What a memory instruction does with memory and with its data register. The generator reads
each instruction's pseudocode and description once (isa/gen/memory_access.py) and writes the
answers to isa/generated/<family>/memory_access.py; the functions here answer from there.

    from isa.memory_access import memory_access
    a = memory_access(d)          # d: an isa InstrDef
    a.direction                   # 'load', 'store', 'atomic' (reads and writes memory) or None
    a.d16                         # the loaded data arrives in 16-bit halves of the register:
                                  # the other half (or a partly written last register) keeps its value
    a.two_addresses               # LDS two-address forms (ds_load_2addr, CDNA's ds_read2): each
                                  # 8-bit offset addresses one element, ADDR + OFFSETn * size
    a.data_dwords                 # VGPRs a store / atomic sends (cmpswap: value and compare, DATA[63 : 32])
    a.result_dwords               # VGPRs a load / returning atomic writes (VDATA[95 : 64]: 3)
    a.element_bits                # bits of each memory value the code reads or writes (MEM[addr].b32: 32)
    converts_format(d)            # a buffer access converts through a data format (*_FORMAT_*)
    format_conversion(d)          # ... its components (X .. XYZW), 16-bit halves (D16) and high half (D16_HI)
    buffer_resource(d)            # a scalar access addresses through a buffer resource (s_buffer_*)
    lane_address(d)               # no VGPR address: a scalar base plus the lane ID (*_ADDTID_B32)
    ray_query(d)                  # an image instruction tests rays against BVH nodes (BVHcnt on RDNA4)
    takes_sampler(d)              # an image instruction reads a sampler (image_sample*, gather4*, get_lod)
    gathers_four(d)               # an image instruction returns four texels of one channel (gather4*, msaa_load):
                                  # its data count, which the descriptions say and the address tables do not
    takes_d16(d)                  # an image instruction's data may be 16-bit (D16): format-converted texels
    image_address(d)              # its address components: the manual's image address table group it
                                  # belongs to, what that adds to the coordinates and its suffixes before them;
                                  # what the group says: .mip_level (mipid), .resource_info (GET_RESINFO),
                                  # .gather (Gather), .msaa (the MSAA surface types its rows list)
    value_dwords(d)               # registers of one data value (S_LOAD_B128: 4, cmpswap's value: not its compare)
    lds_operands(d)               # a DS instruction's result, address and data operands
    attribute_load(d)             # lds_param_load / ds_param_load: an attribute channel operand
    reads_counter(d)              # CDNA's s_memtime / s_memrealtime: SDATA gets a clock, no address
    prefetch(d)                   # RDNA4's s_prefetch_*: 'base' (an SBASE address), 'pc' (relative to PC) or None
    scalar_data(d), scalar_base_registers(d), typed_buffer(d)   # SMEM's SDATA and SBASE; a typed buffer access
    gds_only(d)                   # a DS instruction on the global data share / wave sync only (its text takes gds)
    memory_effects(d)             # what it reads and writes: the memory (space; read / write / read-modify-write)
                                  # and its register fields with counts and the encoding's conditions
    # isa.memory_registers.memory_registers(d, fields, traits): those register operands for one
    # encoding, ({field: n}, {field: n}); isa.memory_registers also counts an image's registers

How each is read from the manual is told in isa/gen/memory_access.py. A copy of an InstrDef (the
same name, format, code and description) is answered as the instruction it copies, code no loaded
family has is refused (FactsError; the rule for every generated fact: isa/fact_tables.py). The
table holds image_loads,
takes_sampler, image_address and takes_d16 for instructions of the family's image formats (traits.roles.image) only: elsewhere
they are the defaults (False, no address group), as for any instruction that is no image instruction."""
from __future__ import annotations

from functools import lru_cache

from .fact_tables import FactsError, locate, table  # noqa: F401  (FactsError: what the readers raise)
from .fact_types import FormatConversion, LdsOperands, ImageAddress, MemoryAccess, MemoryEffects

_READ = ("name", "format", "pcode", "description")   # what the generator reads these facts from (a copy's key)



# every fact of the table, with the value it has where the table says nothing
DEFAULTS = {"memory_access": MemoryAccess(None, False), "image_loads": False, "value_dwords": 1,
            "converts_format": False, "format_conversion": None, "buffer_resource": False, "lane_address": False,
            "ray_query": False, "takes_sampler": False, "gathers_four": False, "attribute_load": False, "prefetch": None,
            "scalar_data": "register", "scalar_base_registers": 2, "reads_counter": False, "typed_buffer": False,
            "lds_operands": LdsOperands(0, False), "gds_only": False, "image_address": ImageAddress(),
            "memory_effects": MemoryEffects(), "takes_d16": False}
_RECORDS = {"memory_access": MemoryAccess, "image_address": ImageAddress,
            "format_conversion": FormatConversion, "lds_operands": LdsOperands, "memory_effects": MemoryEffects}


def stored(name: str, value):
    """A fact's value as the generated table holds it: records as the tuple of their fields."""
    if name in _RECORDS and value is not None:
        return tuple(getattr(value, f) for f in _RECORDS[name].__dataclass_fields__)
    return value


def _answer(name: str, d):
    at = locate(d, _READ)
    if at is None:                      # an entry without code that no family holds
        return DEFAULTS[name]
    family, i = at
    values = table(family, "memory_access").MEMORY_ACCESS[name]
    if i not in values:
        return DEFAULTS[name]
    value = values[i]
    return _RECORDS[name](*value) if name in _RECORDS and value is not None else value


@lru_cache(maxsize=None)      # per instruction (an InstrDef hashes by identity)
def memory_access(d, image: bool = False) -> MemoryAccess:
    """How `d` (an isa InstrDef of a memory format) uses memory; image: d's format is an
    image format (the family's traits.roles.image), where an instruction whose description leads
    with no verb (sample, gather, get_lod, a ray query) returns data."""
    access = _answer("memory_access", d)
    if image and _answer("image_loads", d):
        return MemoryAccess("load", access.d16, access.two_addresses, access.data_dwords, access.result_dwords,
                            access.element_bits)
    return access


def _fact(name: str, doc: str):
    def fact(d):
        return _answer(name, d)
    fact.__name__ = fact.__qualname__ = name
    fact.__doc__ = doc
    return lru_cache(maxsize=None)(fact)


value_dwords = _fact("value_dwords", """Registers of one data value of a memory instruction (what a load
    returns, a store sends or an atomic returns; a compare-and-swap's data is two of them): from
    the data registers its code names, else its memory type or declarations, else the sizes its
    description gives; 1 for an instruction that moves no data.""")
converts_format = _fact("converts_format", "`d` (a buffer instruction) converts its data through a data format.")
format_conversion = _fact("format_conversion", """The components a format-converting buffer instruction moves, in
    16-bit halves or whole registers, in the high half (D16_HI); None for any other instruction.""")
buffer_resource = _fact("buffer_resource", "`d` (a scalar memory instruction) addresses memory through a buffer resource descriptor.")
lane_address = _fact("lane_address", "`d` (a FLAT-family instruction) takes no VGPR address: scalar base + offset + lane ID * 4.")
ray_query = _fact("ray_query", "`d` (an image-family instruction) intersects rays with BVH nodes (image_bvh*_intersect_ray).")
takes_sampler = _fact("takes_sampler", "`d` (an image-family instruction) reads a sampler constant (sample, gather, get_lod).")
gathers_four = _fact("gathers_four", """`d` (an image-family instruction) returns four texels of one channel
    (gather4*, msaa_load), whatever DMASK says: its data VGPRs. From the descriptions ("Gather 4
    single component elements", "Load up to 4 samples of 1 component"): the address tables group
    the opcodes (image_address(d).gather, MSAA_LOAD's rows) but say nothing of the data returned.""")
attribute_load = _fact("attribute_load", "`d` (an LDS-direct instruction) loads an interpolation attribute's channel.")
prefetch = _fact("prefetch", "A scalar prefetch's address: 'pc' (relative to the PC), 'base' (from SBASE), else None.")
scalar_data = _fact("scalar_data", "What a scalar memory instruction's SDATA holds: 'register', 'immediate' or 'none'.")
scalar_base_registers = _fact("scalar_base_registers", "SGPRs of a scalar memory instruction's SBASE: 4 (a resource) or 2.")
reads_counter = _fact("reads_counter", "`d` (a scalar memory instruction) returns a clock in SDATA and addresses no memory.")
typed_buffer = _fact("typed_buffer", "`d` (a buffer instruction) takes its data format from the instruction, not the descriptor.")
lds_operands = _fact("lds_operands", "Operands of a DS instruction: its result, address and data operands (LdsOperands).")
gds_only = _fact("gds_only", "`d` (a DS instruction) works on the global data share / wave sync only: its text takes gds.")
takes_d16 = _fact("takes_d16", """`d` (an image-family instruction) takes D16: its data pass through the
    resource's format conversion, to and from 16 bits (image_load/_mip, image_store/_mip, samples,
    gathers, msaa_load); not an atomic, get_resinfo, get_lod, a *_PCK* form or a ray query. From
    the image chapter's D16 field, "Allowed only with these opcodes: ..." (isa/gen/image_d16.py),
    with the image_d16 errata (isa/errata.py).""")
memory_effects = _fact("memory_effects", """What a memory instruction reads and writes: its address space, whether it
    reads, writes or both (an atomic), and its register operands with their counts and the
    encoding's condition for each (isa.fact_types.MemoryEffects); MemoryEffects() for any other instruction.""")


image_address = _fact("image_address", """An image instruction's address components (isa.fact_types.ImageAddress):
    the row group of the manual's "Image Opcodes with No Sampler" / "with a Sampler" tables it
    belongs to (RDNA3 10.2-10.3 pages 107-110, RDNA3.5 pages 109-112, RDNA4 pages 130-133), what
    those rows add to the DIM's coordinates (mipid, lod, clamp; GET_RESINFO's mip level alone) and
    what its suffixes add before the body by the "Sample Instruction Suffix Key" (bias, z-compare,
    offsets a VGPR each; _D's slopes, _G16 packed two per VGPR), as isa/gen/image_opcodes.py
    matches each opcode to its group; a ray query has no group but its address layout, the VGPRs
    of each address operand per A16 setting, from its entry; ImageAddress() for any instruction of
    another format.""")

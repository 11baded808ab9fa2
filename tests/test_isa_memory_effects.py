"""isa.memory_access.memory_effects: the memory and the registers each memory instruction reads
and writes. The generated table equals a fresh reading (tests/test_isa_instruction_facts_generated.py
checks every fact of isa.gen.memory_access.FACTS); here: every field it names is a field of the
instruction's format in that family, the values the manuals' entries give for a few instructions,
and memory_registers resolving the encoding's conditions on fields decoded from llvm-mc-22's
bytes. tests/test_isa_effects_memory_empirical.py checks the model against the emulator."""
from __future__ import annotations

import shutil
import subprocess

import pytest

import isa
from isa.memory_access import MemoryEffects, memory_effects
from isa.memory_registers import memory_registers

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")
MEMORY_ROLES = ("lds", "lds_param", "flat", "buffer", "smem", "image")


@pytest.mark.parametrize("family", FAMILIES)
def test_every_named_field_is_a_field_of_the_format(family):
    spec = isa.load(family)
    roles = spec.traits.roles
    memory_formats = set().union(*(getattr(roles, r) for r in MEMORY_ROLES))
    counted = 0
    for d in spec.instructions:
        e = memory_effects(d)
        if d.format not in memory_formats:
            assert e == MemoryEffects(), (family, d.name)
            continue
        counted += 1
        fields = {name for name, *_ in spec.formats[d.format].fields}
        assert e.space in ("lds", "flat", "global", "scratch", "buffer", "scalar", "image"), (d.name, e)
        assert e.memory in (None, "read", "write", "read-modify-write"), (d.name, e)
        for field, count, when in e.reads + e.writes:
            image_count = count in ("address", "data", "returned") and e.space == "image"
            assert field in fields and (image_count or count >= 1), (family, d.name, field, count)
            assert when in (None, "saddr", "no saddr", "sve", "idxen", "offen", "returns", "register", "nsa",
                            "r128", "no r128"), (d.name, when)
        assert set(e.partial) <= {f for f, _, _ in e.writes}
        assert ("EXEC" in e.implicit) == (e.space != "scalar"), d.name
    assert counted > 100


def _one(spec, name):
    return spec.lookup(name)[0]


def test_values_the_manual_gives():
    rdna3, cdna3 = isa.load("rdna3"), isa.load("cdna3")
    # "RETURN_DATA[63 : 32] = MEM[ADDR_BASE.u + OFFSET1.u * 4U].b": two dwords back, one address
    e = memory_effects(_one(rdna3, "ds_load_2addr_b32"))
    assert (e.space, e.memory, e.reads, e.writes) == ("lds", "read", (("ADDR", 1, None),), (("VDST", 2, None),))
    # cmpstore: DATA is the value, DATA2 the compare; no RTN, no result
    e = memory_effects(_one(rdna3, "ds_cmpstore_b32"))
    assert (e.memory, e.reads, e.writes) == ("read-modify-write", (("ADDR", 1, None), ("DATA0", 1, None),
                                                                   ("DATA1", 1, None)), ())
    # a 64-bit compare-and-swap sends value and compare (4 VGPRs) and returns 2 if GLC
    e = memory_effects(_one(rdna3, "global_atomic_cmpswap_b64"))
    assert ("DATA", 4, None) in e.reads and e.writes == (("VDST", 2, "returns"),)
    assert memory_effects(_one(rdna3, "global_load_d16_hi_b16")).partial == ("VDST",)
    # "Write dword with thread ID offset": MEM[... M0 ...], no address VGPR
    e = memory_effects(_one(rdna3, "ds_store_addtid_b32"))
    assert "M0" in e.implicit and not any(f == "ADDR" for f, _, _ in e.reads)
    e = memory_effects(_one(rdna3, "s_buffer_load_b64"))
    assert (e.space, e.reads[0], e.writes, e.implicit) == ("scalar", ("SBASE", 4, None), (("SDATA", 2, None),), ())
    assert memory_effects(_one(rdna3, "s_load_b512")).writes == (("SDATA", 16, None),)
    assert memory_effects(_one(cdna3, "s_memtime")) == MemoryEffects("scalar", None, (), (("SDATA", 2, None),))
    # "Load 32 bits of untyped data from the global aperture and store the result into a data share"
    e = memory_effects(_one(cdna3, "global_load_lds_dword"))
    assert (e.writes, e.writes_lds, "M0" in e.implicit) == ((), True, True)
    e = memory_effects(_one(rdna3, "buffer_gl0_inv"))
    assert (e.memory, e.reads, e.writes) == (None, (), ())


LLVM_MC = shutil.which("llvm-mc-22")


def _fields(line: str, arch: str):
    from dsl.decode import decode_one
    out = subprocess.run([LLVM_MC, "-triple=amdgcn", f"-mcpu={arch}", "-show-encoding"], input=line,
                         capture_output=True, text=True, check=True).stdout
    enc = out.split("encoding: [")[1].split("]")[0]
    code = bytes(int(x, 16) for x in enc.split(","))
    spec = isa.load(arch)
    inst = decode_one(spec, code)
    return spec, inst


@pytest.mark.skipif(not LLVM_MC, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("line, reads, writes", [
    ("global_load_b32 v1, v[2:3], off", {"ADDR": 2}, {"VDST": 1}),
    ("global_load_b32 v1, v2, s[4:5] offset:16", {"ADDR": 1, "SADDR": 2}, {"VDST": 1}),
    ("global_load_addtid_b32 v1, s[4:5]", {"SADDR": 2}, {"VDST": 1}),
    ("global_atomic_add_u32 v[2:3], v4, off", {"ADDR": 2, "DATA": 1}, {}),
    ("global_atomic_add_u32 v1, v[2:3], v4, off glc", {"ADDR": 2, "DATA": 1}, {"VDST": 1}),
    ("scratch_load_b64 v[1:2], off, s3", {"SADDR": 1}, {"VDST": 2}),
    ("scratch_store_b32 v5, v1, off", {"ADDR": 1, "DATA": 1}, {}),
    ("buffer_load_b32 v1, off, s[4:7], s8", {"SRSRC": 4, "SOFFSET": 1}, {"VDATA": 1}),
    ("buffer_load_b32 v1, v[2:3], s[4:7], 0 idxen offen", {"VADDR": 2, "SRSRC": 4}, {"VDATA": 1}),
    ("buffer_atomic_cmpswap_b32 v[1:2], v3, s[4:7], null offen glc", {"VADDR": 1, "SRSRC": 4, "VDATA": 2},
     {"VDATA": 1}),
    ("s_load_b64 s[2:3], s[4:5], 0x10", {"SBASE": 2}, {"SDATA": 2}),
    ("s_load_b64 s[2:3], s[4:5], s6 offset:0x10", {"SBASE": 2, "SOFFSET": 1}, {"SDATA": 2}),
    ("ds_store_2addr_b32 v1, v2, v3 offset1:4", {"ADDR": 1, "DATA0": 1, "DATA1": 1}, {}),
])
def test_registers_of_an_encoding(line, reads, writes):
    """The operands of llvm-mc-22's encoding of each line, decoded: the fields and register counts
    the line's text shows."""
    spec, inst = _fields(line, "gfx1100")
    assert memory_registers(inst.defs[0], inst.fields, spec.traits) == (reads, writes)


def test_memory_value_widths_are_the_memory_words_type_not_the_address_or_data_type():
    """element_bits is the type the code gives the memory word itself, read from the syntax tree:
    RDNA3.5/RDNA4's GLOBAL_LOAD/STORE_ADDTID_B32 access `MEM[SGPR_ADDR[63 : 0] + INST_OFFSET[11 :
    0].b64 + ...].u32` (32 bits: the b64 is the offset's type inside the address), RDNA3's
    DS_LOAD_U8 `MEM[ADDR][7 : 0].u8` (8), while a format store (`MEM[addr + ChannelOffsetX()] =
    ConvertToFormat(VDATA[31 : 0].b32)`, "Mem access size depends on format") types no memory
    word, as the format loads do not (None)."""
    from isa.memory_access import memory_access
    cases = [("rdna3.5", "GLOBAL_LOAD_ADDTID_B32", 32), ("rdna4", "GLOBAL_STORE_ADDTID_B32", 32),
             ("rdna3", "DS_LOAD_U8", 8), ("rdna3", "DS_LOAD_U16_D16_HI", 16), ("rdna3", "BUFFER_STORE_FORMAT_X", None),
             ("rdna3", "BUFFER_LOAD_FORMAT_X", None), ("cdna3", "BUFFER_STORE_FORMAT_D16_X", None),
             ("rdna4", "GLOBAL_STORE_BLOCK", None), ("rdna3", "GLOBAL_LOAD_B64", 32),   # two `.b` dwords
             ("rdna3", "DS_SUB_U64", 64)]
    for family, name, bits in cases:
        d = next(x for x in isa.load(family).instructions if x.name == name)
        assert memory_access(d).element_bits == bits, (family, name)


def test_scalar_prefetches_read_m0_only_as_their_soffset_operand():
    """RDNA4's s_prefetch_* code says `length = S2.u32; // SGPR or M0`: M0 is one value SOFFSET
    may name (LLVM 22 encodes `s_prefetch_inst s[0:1], 0x0, m0, 0` with SOFFSET = 125, M0), not
    an implicit read; the prefetches' memory effects name no implicit register."""
    from tests.llvm_tools import mc_encodings
    spec = isa.load("rdna4")
    names = [d.name for d in spec.instructions if d.format == "SMEM" and "PREFETCH" in d.name]
    assert len(names) == 5
    for name in names:
        assert memory_effects(next(d for d in spec.instructions if d.name == name)).implicit == (), name
    code = mc_encodings(["s_prefetch_inst s[0:1], 0x0, m0, 0", "s_prefetch_data_pc_rel 0x0, m0, 0"], "gfx1201")
    for enc in code:
        assert enc is not None and int.from_bytes(enc[4:8], "little") >> 25 == isa.traits("gfx1201").m0

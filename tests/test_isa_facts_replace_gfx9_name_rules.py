"""Name rules of the gfx9 (CDNA) and memory encoders, printers and parsers replaced by facts read
from the manual's data: the pseudocode's operands (isa's operand_types from the one parse), its
description, the encoding. Each test keeps the old rule as it was and compares it with the new
fact over every instruction of RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4, asserting every difference
with its reason."""
import isa

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


def test_mode_bits_source_is_the_raw_field_the_pseudocode_reads():
    """s_set_gpr_idx_on's second operand (gpr_idx(...), four mode bits in SSRC1, no register, no
    literal) was picked by mnemonic in the gfx9 assembler, field reader and operand namer; now by
    dsl.signature.raw_source_field: a scalar instruction whose pseudocode reads the SRC1 field's
    raw bits and never the operand S1 it would encode. The same instructions in every family."""
    from dsl.signature import raw_source_field
    old = {(f, d.name) for f, d in _instructions() if d.name.lower() == "s_set_gpr_idx_on"}
    new = {(f, d.name) for f, d in _instructions() if raw_source_field(d)}
    assert old == new == {("cdna3", "S_SET_GPR_IDX_ON"), ("cdna4", "S_SET_GPR_IDX_ON")}
    # the manual says so in words too
    for family, d in _instructions():
        if (family, d.name) in new:
            assert "raw bits of the SRC1 field" in d.description
            assert "SRC1.u32[3 : 0]" in d.pcode
    # outside the scalar formats the same operand shape is a VALU operand's raw value (RDNA4's
    # v_permlane16_var_b32 reads SRC1 as the lane selects): not a mode field, not matched
    valu_raw = {(f, d.name) for f, d in _instructions()
                if "SRC1" in d.operand_types and "S1" not in d.operand_types} - new
    assert valu_raw == {("rdna4", "V_PERMLANE16_VAR_B32"), ("rdna4", "V_PERMLANEX16_VAR_B32")}


def test_mode_bits_source_round_trips_against_llvm():
    """With the fact in place of the name, the gfx9 assembler gives llvm-mc-22's bytes for the
    mode operand (every mode the four bits spell, by name and by number) and the disassembler
    prints it back as LLVM writes it."""
    from tests.llvm_tools import mc_encodings
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    lines = ["s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)", "s_set_gpr_idx_on s5, gpr_idx()",
             "s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)", "s_set_gpr_idx_on s2, 15",
             "s_set_gpr_idx_on 1, gpr_idx(SRC1)"]
    for arch in ("gfx942", "gfx950"):
        for line, want in zip(lines, mc_encodings(lines, arch)):
            assert want is not None, line
            assert assemble(line, arch) == want, (arch, line)
            text = disassemble(want, arch).strip()
            assert text.split(";")[0].strip() == line.replace(", 15", ", gpr_idx(SRC0,SRC1,SRC2,DST)"), (arch, text)


def test_lane_pattern_offset_is_the_code_reading_the_offsets_bits():
    """ds_swizzle_b32's offset (swizzle(MODE, ...) in text) was picked by mnemonic in the encoder
    and the DS field reader; now by isa.facts.offset_pattern: the code joins the offset
    fields (`offset = offset1:offset0`) and takes bit ranges of the value (`offset[4:0]`), where
    every other DS instruction adds its offset to an address. The same instruction in every family."""
    from isa.facts import offset_pattern
    old = {(f, d.name) for f, d in _instructions() if d.name.lower() == "ds_swizzle_b32"}
    new = {(f, d.name) for f, d in _instructions() if offset_pattern(d)}
    assert old == new and len(new) == 5
    # the description says the same in words: the instruction swizzles "based on offset mask"
    for family, d in _instructions():
        if (family, d.name) in new:
            assert "Swizzles input thread data based on offset mask" in d.description
    # an offset added to an address is not a pattern (ds_bpermute, ds_read_b32: `ADDR + OFFSET`)
    for family, d in _instructions():
        if d.name in ("DS_BPERMUTE_B32", "DS_LOAD_B32", "DS_READ_B32"):
            assert not offset_pattern(d), (family, d.name)


def test_lane_pattern_offset_round_trips_against_llvm():
    """With the fact in place of the name, swizzle(...) offsets give llvm-mc-22's bytes and print
    back as LLVM writes them, in both syntax generations; a plain offset on another DS
    instruction stays a number."""
    from tests.llvm_tools import mc_encodings, run, tool
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    lines = ["ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,1,0,3,2)",
             "ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,\"01pip\")",
             "ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)",
             "ds_swizzle_b32 v1, v2 offset:swizzle(BROADCAST,8,7)"]
    for arch in ("gfx1100", "gfx1201", "gfx942", "gfx950"):
        printed = [t.split(";")[0].strip() for t in run(tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}",
                                                         stdin="\n".join(lines).encode()).splitlines() if t.strip()]
        for line, want, text in zip(lines, mc_encodings(lines, arch), printed, strict=True):
            assert want is not None, (arch, line)
            assert assemble(line, arch) == want, (arch, line)
            assert text.startswith("ds_swizzle_b32 v1, v2 offset:swizzle("), (arch, text)
            assert disassemble(want, arch).split(";")[0].strip() == text, arch
    plain = "ds_bpermute_b32 v1, v2, v3 offset:16"
    for arch in ("gfx1100", "gfx942"):
        want = mc_encodings([plain], arch)[0]
        assert assemble(plain, arch) == want
        assert disassemble(want, arch).split(";")[0].strip() == plain

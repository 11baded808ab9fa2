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

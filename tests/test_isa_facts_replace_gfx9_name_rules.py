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
    new = {(f, d.name) for f, d in _instructions() if raw_source_field(d, isa.load(f).traits.roles)}
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


def test_agpr_operands_replace_the_hand_table():
    """The AGPR operands of v_accvgpr_* were dsl/syntax_gfx9.ACC_OPERANDS, a table by name; now
    isa.facts.agpr_operands, read from the descriptions ("from an accumulator vector register",
    "into an accumulator vector register", "to another accumulator register"): the same operands
    of the same instructions, every encoding, and none elsewhere."""
    from dsl.signature import agpr_fields
    old = {"V_ACCVGPR_MOV_B32": ("vdst", "src0"), "V_ACCVGPR_READ": ("src0",), "V_ACCVGPR_WRITE": ("vdst",)}
    new = {(f, d.format, d.name): agpr_fields(d) for f, d in _instructions() if agpr_fields(d)}
    want = {(f, d.format, d.name): old[d.name] for f, d in _instructions() if d.name in old}
    assert new == want and {f for f, _, _ in new} == {"cdna3", "cdna4"} and len(new) == 8
    for f, d in _instructions():
        if (f, d.format, d.name) in new:
            assert "accumulator" in d.description


def test_undescribed_instructions_operands_replace_the_hand_tables():
    """The operands of instructions without pseudocode were syntax_gfx9 tables (SCALAR_LAYOUT,
    NO_PCODE_OPERANDS, NO_PCODE_SOURCES) and emu/dialect.py's SCALE_PREFIX name; now the errata's
    code (isa/errata.py: what LLVM 22 reads and writes) and isa.facts.loads_scales (the load-scale
    description, CDNA4 7.2). The signatures are the old tables' ones."""
    from dsl.signature import scalar_layout, valu_signature
    from isa.facts import loads_scales
    for family in ("cdna3", "cdna4"):
        spec = isa.load(family)
        d = spec.lookup("s_rfe_restore_b64")[0]
        assert scalar_layout(d) == [("ssrc0", "SSRC0", 2), ("ssrc1", "SSRC1", 1)]
        for name, ftype in (("V_ACCVGPR_MOV_B32", "b"), ("V_ACCVGPR_READ", "b"), ("V_ACCVGPR_WRITE", "b"),
                            ("V_SCREEN_PARTITION_4SE_B32", "b"), ("V_EXP_LEGACY_F32", "f"),
                            ("V_LOG_LEGACY_F32", "f")):
            for d in spec.lookup(name):
                sig = valu_signature(d)
                assert [o.name for o in sig.dsts] == ["vdst"] and [o.name for o in sig.srcs] == ["src0"], name
                assert sig.srcs[0].is_float == (ftype == "f") and sig.srcs[0].bits == 32, name
    d = isa.load("cdna4").lookup("v_mfma_ld_scale_b32")[0]
    sig = valu_signature(d)
    assert not sig.dsts and [(o.name, o.bits, o.is_float) for o in sig.srcs] == [("src0", 32, False), ("src1", 32, False)]
    assert {(f, d.name) for f, d in _instructions() if loads_scales(d)} == {("cdna4", "V_MFMA_LD_SCALE_B32")}


# (arch, line): llvm-mc-22 encodes or refuses each; ours must give the same, and print LLVM's bytes as LLVM does
UNDESCRIBED_LINES = [
    "v_accvgpr_read_b32 v1, a2", "v_accvgpr_write_b32 a1, v2", "v_accvgpr_write_b32 a1, 1", "v_accvgpr_mov_b32 a1, a2",
    "v_accvgpr_mov_b32 v1, a2", "v_accvgpr_read_b32 v1, v2",
    "v_screen_partition_4se_b32 v1, v2", "v_screen_partition_4se_b32_e64 v0, s21",
    "v_screen_partition_4se_b32_e64 v0, -v1", "v_screen_partition_4se_b32_e64 v0, v1 clamp",
    "v_screen_partition_4se_b32_sdwa v1, v2 src0_sel:WORD_1",
    "v_exp_legacy_f32 v1, -v2", "v_exp_legacy_f32_e64 v0, -|v1| clamp mul:2", "v_log_legacy_f32_e64 v0, |v1| div:2",
    "v_log_legacy_f32_e32 v242, s22", "v_exp_legacy_f32 v1, 1.0", "v_exp_legacy_f32_dpp v1, -v2 quad_perm:[0,1,2,3]",
    "s_rfe_restore_b64 s[0:1], s2", "s_rfe_restore_b64 s[0:1], 0x12345", "s_rfe_restore_b64 s[0:1], s[2:3]",
    "s_rfe_restore_b64 s0, s2",
    "v_mfma_ld_scale_b32 v1, v2", "v_mfma_ld_scale_b32 s1, 1.0", "v_mfma_ld_scale_b32 v1, v2 op_sel:[1,0] op_sel_hi:[0,1]",
    "v_mfma_ld_scale_b32 -v1, v2", "v_mfma_ld_scale_b32 v[0:1], v2", "v_mfma_ld_scale_b32 v1, v2, v3",
]


def test_undescribed_instructions_round_trip_against_llvm():
    from tests.llvm_tools import mc_disassembly_each, mc_encodings
    from tests.test_dsl_constant_sweep import ours
    from dsl.disasm import disassemble
    for arch in ("gfx942", "gfx950"):
        want = mc_encodings(UNDESCRIBED_LINES, arch)
        got = ours(UNDESCRIBED_LINES, arch)
        for line, w, (g, err) in zip(UNDESCRIBED_LINES, want, got):
            assert w == g, (arch, line, w and w.hex(), g and g.hex(), err)
        accepted = [w for w in want if w is not None]
        assert len(accepted) >= 15 + (arch == "gfx950") * 3
        for data, text in zip(accepted, mc_disassembly_each(accepted, arch)):
            assert disassemble(data, arch).split(";")[0].strip() == text, (arch, data.hex())

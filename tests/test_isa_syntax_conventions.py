"""Each entry of isa/syntax_conventions.py (spellings no manual states) against llvm-mc-22: the
lines it decides are accepted or refused as llvm-mc-22 does, with its bytes, and our text of
those bytes is its disassembly."""
import pytest

import isa
from isa import syntax_conventions as conv

# (arch, line, accepted by llvm-mc-22?) per convention
CASES = {
    "NO_OPERANDS": [("gfx1100", "v_nop", True), ("gfx1100", "v_nop v1", False), ("gfx1201", "v_pipeflush", True),
                    ("gfx1100", "v_pipeflush", True), ("gfx942", "v_clrexcp", True), ("gfx942", "v_clrexcp v1", False)],
    "T16_SOURCES": [("gfx1100", "v_alignbit_b32 v1, v2, v3, v4", True), ("gfx1151", "v_alignbyte_b32 v1, v2, v3, v4.l", True),
                    ("gfx1100", "v_cmp_class_f16_e64 s1, v2.l, v3.l", True),
                    ("gfx1100", "v_cmp_class_f16_e64 s1, v2.l, v3", False)],
    "SALU_VALUE_SOURCES": [("gfx1100", "s_movrelsd_2_b32 s1, 0x1234", True), ("gfx1201", "s_movrelsd_2_b32 s1, 5", True),
                           ("gfx1100", "s_movrels_b32 s1, 0x1234", False)],
    "NO_OPSEL": [("gfx1100", "v_cndmask_b16 v1.l, v2.l, v3.l, s4 op_sel:[0,0,0,0]", False),
                 ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4 op_sel:[1,0,0]", False),
                 ("gfx1100", "v_cndmask_b16 v1.h, v2.l, v3.h, s4", True), ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4", True),
                 ("gfx942", "v_mad_legacy_f16 v8, v2, v4, v6 op_sel:[0,0,0,0]", False),
                 ("gfx950", "v_div_fixup_legacy_f16 v8, v2, v4, v6 op_sel:[0,0,0,1]", False),
                 ("gfx942", "v_sad_u16 v8, v2, v4, v6 op_sel:[1,0,0]", False),
                 ("gfx942", "v_mad_f16 v8, v2, v4, v6 op_sel:[0,0,0,1]", True)],
    "OPSEL_ON_32BIT_OPERANDS": [("gfx950", "v_ashr_pk_i8_i32 v8, v2, v4, v6 op_sel:[0,0,0,1]", True),
                                ("gfx950", "v_ashr_pk_u8_i32 v8, v2, v4, v6 op_sel:[1,0,0,0]", True),
                                ("gfx942", "v_add_i16 v8, v2, v4 op_sel:[0,1,0]", True),
                                ("gfx942", "v_add_f16_e64 v0, v1, v2 op_sel:[1,0,0]", False),
                                ("gfx950", "v_mul_f32_e64 v0, v1, v2 op_sel:[1,0,0]", False),
                                ("gfx942", "v_dot2c_f32_f16_e64 v8, v2, v4 op_sel:[0,0,0]", False)],
    "NO_ENC_SUFFIX": [("gfx1100", "v_nop_e64", True), ("gfx1100", "v_readfirstlane_b32 s1, v2", True),
                      ("gfx1201", "v_pipeflush_e64", True), ("gfx942", "v_swap_b32 v1, v2", True),
                      ("gfx950", "v_clrexcp", True)],
    "NO_F16_INLINE": [("gfx1100", "v_pk_fmac_f16 v1, -4.0, v2", True), ("gfx1201", "v_pk_fmac_f16 v1, 1.0, v2", True),
                      ("gfx1100", "v_pk_add_f16 v1, -4.0, v2", True)],
    "OPSEL_WHOLE_VGPRS": [("gfx1201", "v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]", True),
                          ("gfx1201", "v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]", True),
                          ("gfx1201", "v_maximum_f16 v1, v2, v3 op_sel:[0,1,0]", True),
                          ("gfx1201", "v_mul_lo_u16 v1, v2, v3 op_sel:[1,0,0]", False),
                          ("gfx1201", "v_xor_b16 v1, v2, v3 op_sel:[1,0,0]", False),
                          ("gfx1201", "v_add_f16_e64 v1, v2, v3 op_sel:[1,0,0]", False),
                          ("gfx1201", "v_cvt_f16_f32_e64 v1, v2 op_sel:[0,1]", False),
                          ("gfx1201", "v_cmp_lt_f16_e64 s1, v2, v3 op_sel:[1,0]", False),
                          ("gfx1100", "v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]", True),
                          ("gfx1100", "v_min3_f16 v8, v2, v4, v6 op_sel:[0,0,1,1]", True),
                          ("gfx1100", "v_trunc_f16_e64 v8, v2 op_sel:[0,0]", False),
                          ("gfx1100", "v_fma_f16 v8.l, v2.h, v4.l, v6.h op_sel:[1,0,0,0]", False),
                          ("gfx1100", "v_fma_f16 v8.l, v2.h, v4.l, v6.h op_sel:[1,0,1]", True),
                          ("gfx1100", "v_fmac_f16_e64 v8.h, v2.l, v4.l op_sel:[0,0,1,1]", True),
                          ("gfx1100", "v_fmac_f16_e64 v8.h, v2.l, v4.l op_sel:[0,0,0,1]", False)],
    "DPP_FORMATS": [("gfx942", "v_cmp_eq_f32_dpp vcc, v1, v2 quad_perm:[0,1,2,3]", False),
                    ("gfx950", "v_cmpx_lt_i32_dpp vcc, v1, v2 row_shl:1", False),
                    ("gfx942", "v_max_f32_dpp v0, v1, v2 quad_perm:[0,1,2,3]", True),
                    ("gfx950", "v_mov_b32_dpp v0, v1 row_shl:1", True)],
    "F16_CONSTANTS": [("gfx1100", "v_ldexp_f16 v1.l, v2.l, 1.0", True), ("gfx1100", "v_ldexp_f16 v1.l, v2.l, -17", True),
                      ("gfx1201", "v_ldexp_f16 v1, v2, 3.0", True)],
}


def test_every_convention_has_cases_and_names_real_instructions():
    names = {d.name for f in ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4") for d in isa.load(f).instructions}
    tables = {n: getattr(conv, n) for n in dir(conv) if n.isupper()}
    assert set(tables) - {"NO_SOURCES"} == set(CASES)
    for name, table in tables.items():
        if name == "DPP_FORMATS":       # encodings, not instructions
            formats = {d.format for f in ("cdna3", "cdna4") for d in isa.load(f).instructions}
            assert set().union(*table.values()) <= formats, table
            continue
        by_dialect = name == "NO_ENC_SUFFIX"
        entries = set().union(*table.values()) if by_dialect else set(table)
        assert entries <= names, (name, entries - names)


def test_no_f16_inline_prints_a_literal_where_others_take_the_constant():
    from tests.llvm_tools import mc_encodings
    fmac, add = mc_encodings(["v_pk_fmac_f16 v1, -4.0, v2", "v_pk_add_f16 v1, -4.0, v2"], "gfx1100")
    assert len(fmac) == 8 and fmac[4:6] == bytes.fromhex("00c4")     # the literal 0xc400
    assert len(add) == 8                                              # inline -4.0


@pytest.mark.parametrize("name,arch,line,accepted", [(n, *c) for n, cs in CASES.items() for c in cs])
def test_convention_against_llvm(name, arch, line, accepted):
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_encodings, run, tool
    want = mc_encodings([line], arch)[0]
    assert (want is not None) == accepted, (name, line)
    if want is None:
        with pytest.raises(Exception) as err:
            assemble(line, arch)
        assert not isinstance(err.value, (IndexError, KeyError)), line
        return
    assert assemble(line, arch) == want, (name, line)
    llvm = run(tool("llvm-mc"), "-triple=amdgcn", f"-mcpu={arch}", "-disassemble",
               stdin=" ".join(f"0x{b:02x}" for b in want).encode()).strip().split("\n")[-1]
    assert " ".join(disassemble(want, arch).split()) == " ".join(llvm.split()), (name, line)

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
    "NO_ENC_SUFFIX": [("gfx1100", "v_nop_e64", True), ("gfx1100", "v_readfirstlane_b32 s1, v2", True),
                      ("gfx1201", "v_pipeflush_e64", True), ("gfx942", "v_swap_b32 v1, v2", True),
                      ("gfx950", "v_clrexcp", True)],
    "NO_F16_INLINE": [("gfx1100", "v_pk_fmac_f16 v1, -4.0, v2", True), ("gfx1201", "v_pk_fmac_f16 v1, 1.0, v2", True),
                      ("gfx1100", "v_pk_add_f16 v1, -4.0, v2", True)],
    "DPP_FORMATS": [("gfx942", "v_cmp_eq_f32_dpp vcc, v1, v2 quad_perm:[0,1,2,3]", False),
                    ("gfx950", "v_cmpx_lt_i32_dpp vcc, v1, v2 row_shl:1", False),
                    ("gfx942", "v_max_f32_dpp v0, v1, v2 quad_perm:[0,1,2,3]", True),
                    ("gfx950", "v_mov_b32_dpp v0, v1 row_shl:1", True)],
    "NO_VOP3_FORM": [("gfx942", "v_accvgpr_mov_b32_e64 a1, a2", False), ("gfx950", "v_swap_b32_e64 v1, v2", False),
                     ("gfx942", "v_accvgpr_mov_b32 a1, a2", True), ("gfx950", "v_swap_b32_e32 v1, v2", True),
                     ("gfx942", "v_mov_b32_e64 v1, v2", True)],
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
        by_dialect = name in ("NO_ENC_SUFFIX", "NO_VOP3_FORM")
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

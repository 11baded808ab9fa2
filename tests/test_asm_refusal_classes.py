"""Classes of input the assembler refuses because LLVM 22 refuses them, each from a fact rather
than a name: lines from tests/asm_mutations.py's kinds (an operand of another kind, a modifier the
instruction has not), checked against llvm-mc-22 (refused, or accepted with its bytes)."""
from __future__ import annotations

import pytest

import dsl
from tests.llvm_tools import mc_encodings

# a branch's offset (the code computes PC + signext(SIMM16 ...): isa.facts.pc_relative_immediate)
# and a hardware-register operand are SIMM16 itself, no source with a literal slot: lit(...) is
# refused there, while other 16-bit immediates (s_nop, s_movk_i32, s_setprio) take it
LIT_ON_IMMEDIATES = [
    "s_cbranch_cdbguser lit(1)", "s_cbranch_scc0 lit(4)", "s_branch lit(1)", "s_call_b64 s[0:1], lit(1)",
    "s_getreg_b32 s1, lit(1)", "s_setreg_b32 lit(1), s2",
    "s_nop lit(1)", "s_sleep lit(0x1)", "s_movk_i32 s1, lit(1)", "s_setprio lit(1)", "s_clause lit(1)",
    "s_branch 4", "s_call_b64 s[0:1], 4", "s_getreg_b32 s1, 1",
]


def _dsl(line: str, arch: str) -> bytes | None:
    try:
        return dsl.assemble(line, arch)
    except dsl.AsmError:
        return None


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_lit_is_taken_on_16_bit_immediates_exactly_where_llvm_takes_it(arch):
    lines = [x for x in LIT_ON_IMMEDIATES if arch == "gfx1100" or "cdbguser" not in x]   # (no cdbguser on gfx12)
    want = mc_encodings(lines, arch)
    assert any(w is None for w in want) and any(w is not None for w in want)
    assert [_dsl(x, arch) for x in lines] == want


# a move between one lane and a scalar (isa.facts.lane_value_result, lane_select_sources) is
# named by its bare mnemonic in every encoding: _e64 and _e64_dpp are refused ("e64 variant of this
# instruction is not supported"), while other instructions with a VOP3 form take _e64
LANE_MOVES = [
    "v_readfirstlane_b32_e64 s1, v2", "v_readlane_b32_e64 s1, v2, s3", "v_writelane_b32_e64 v1, s2, s3",
    "v_readfirstlane_b32_e64_dpp s1, v2 quad_perm:[0,1,2,3]",
    "v_readfirstlane_b32 s1, v2", "v_readfirstlane_b32_e32 s1, v2", "v_readlane_b32 s1, v2, s3",
    "v_writelane_b32 v1, s2, s3", "v_nop_e64", "v_add3_u32_e64 v1, v2, v3, v4", "v_movrels_b32_e64 v1, v2",
    "v_permlane16_b32_e64 v1, v2, s3, s4",
    "v_interp_p10_f32_e64 v1, v2, v3, v4 wait_exp:1",   # (VINTERP reads other lanes of its quad: no lane move)
]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_lane_moves_take_no_64_bit_encoding_suffix_as_llvm(arch):
    want = mc_encodings(LANE_MOVES, arch)
    assert want[:4] == [None] * 4 and all(w is not None for w in want[4:])
    assert [_dsl(x, arch) for x in LANE_MOVES] == want


# RDNA4's text syntax (LLVM 22: 16-bit VALU operands are whole VGPRs) names no VGPR halves: v1.l /
# v1.h are refused on every instruction ("operands are not valid for this GPU or mode"), while
# RDNA3 and RDNA3.5 (true16) take them
HALVES = ["v_add_nc_u16 v1.h, v2.h, v3.l", "v_fma_f16 v1.h, v2.h, v3.l, v4.l", "v_cvt_f32_f16 v1, v2.h",
          "v_cvt_f32_f16_e64 v1, -v2.h", "v_add_f16_e64 v1.l, v2.h, v3.l", "v_cndmask_b16 v1.h, v2.l, v3.h, s4",
          "v_cmp_eq_f16_e64 s1, v2.h, v3.l", "v_mul_lo_u16 v1.h, v2.h, v3.l"]
WHOLE = ["v_add_nc_u16 v1, v2, v3", "v_cvt_f32_f16 v1, v2", "v_cndmask_b16 v1, v2, v3, s4"]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_vgpr_halves_are_taken_only_where_the_syntax_has_them(arch):
    want = mc_encodings(HALVES + WHOLE, arch)
    assert all(w is not None for w in want[len(HALVES):])
    assert all((w is None) == (arch == "gfx1201") for w in want[:len(HALVES)])
    assert [_dsl(x, arch) for x in HALVES + WHOLE] == want


# a matrix instruction (isa.effects' matrix: WMMA, SWMMAC) takes op_sel_hi exactly where it takes
# op_sel: an RDNA3 WMMA with a 16-bit result; not an f32/i32 result, not RDNA4's
MATRIX = {"gfx1100": ["v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel_hi:[1,1,1]",
                      "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], 1.0 op_sel_hi:[0,1,0]",
                      "v_wmma_bf16_16x16x16_bf16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel_hi:[0,1,0]",
                      "v_wmma_f16_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel_hi:[1,1,1]",
                      "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] neg_hi:[1,0,0]",
                      "v_wmma_i32_16x16x16_iu8 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,0,0]"],
          "gfx1201": ["v_wmma_f16_16x16x16_f16 v[0:3], v[8:11], v[12:15], v[0:3] op_sel_hi:[1,1,1]",
                      "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7] op_sel_hi:[1,1,1]",
                      "v_swmmac_f16_16x16x32_f16 v[0:3], v[8:11], v[12:19], v20 op_sel_hi:[1,1,1]",
                      "v_wmma_f16_16x16x16_f16 v[0:3], v[8:11], v[12:15], v[0:3] op_sel:[0,0,1]",
                      "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,0,0]"]}
MATRIX_REFUSED = {"gfx1100": [True, True, False, False, False, False], "gfx1201": [True, True, True, True, False]}


@pytest.mark.parametrize("arch", MATRIX)
def test_matrix_instructions_take_op_sel_hi_where_llvm_does(arch):
    want = mc_encodings(MATRIX[arch], arch)
    assert [w is None for w in want] == MATRIX_REFUSED[arch]
    assert [_dsl(x, arch) for x in MATRIX[arch]] == want

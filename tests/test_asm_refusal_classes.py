"""Classes of input the assembler refuses because LLVM 22 refuses them, each from a fact rather
than a name: lines from tests/asm_mutations.py's kinds (an operand of another kind, a modifier the
instruction has not), checked against llvm-mc-22 (refused, or accepted with its bytes)."""
from __future__ import annotations

import re
import subprocess

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
# v1.h are refused ("operands are not valid for this GPU or mode") but in a 16-bit compare's 32-bit
# encoding (dsl.syntax.E32_COMPARE_HALVES: VOPC, whose VGPR fields' bit 7 is the half), while
# RDNA3 and RDNA3.5 (true16) take them everywhere
HALVES = ["v_add_nc_u16 v1.h, v2.h, v3.l", "v_fma_f16 v1.h, v2.h, v3.l, v4.l", "v_cvt_f32_f16 v1, v2.h",
          "v_cvt_f32_f16_e64 v1, -v2.h", "v_add_f16_e64 v1.l, v2.h, v3.l", "v_cndmask_b16 v1.h, v2.l, v3.h, s4",
          "v_cmp_eq_f16_e64 s1, v2.h, v3.l", "v_mul_lo_u16 v1.h, v2.h, v3.l", "v_cmp_eq_f16 vcc_lo, -v2.h, v3.l",
          "v_cmpx_lt_i16 v2.h, v3.l quad_perm:[0,1,2,3]", "v_add_f16_e32 v1.h, v2.h, v3.l", "v_cvt_f32_f16_e32 v1, v2.h"]
COMPARE_HALVES = ["v_cmp_eq_f16 vcc_lo, v2.h, v3.l", "v_cmpx_lt_i16_e32 v2.l, v3.h", "v_cmp_class_f16 vcc_lo, s2, v3.h"]
WHOLE = ["v_add_nc_u16 v1, v2, v3", "v_cvt_f32_f16 v1, v2", "v_cndmask_b16 v1, v2, v3, s4"]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_vgpr_halves_are_taken_only_where_the_syntax_has_them(arch):
    lines = HALVES + COMPARE_HALVES + WHOLE
    want = mc_encodings(lines, arch)
    assert all(w is not None for w in want[len(HALVES):])
    assert all((w is None) == (arch == "gfx1201") for w in want[:len(HALVES)])
    assert [_dsl(x, arch) for x in lines] == want


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


# a DS instruction on the global data share or wave sync only (isa.memory_access.gds_only: the
# manual's "GDS Only", isa.errata.GDS_ONLY) is written with gds; others take it where the target
# has GDS (RDNA3) and not on CDNA3 ("gds modifier is not supported on this GPU")
GDS = {"gfx1100": ["ds_gws_init v2", "ds_gws_init v2 gds", "ds_gws_sema_v", "ds_gws_sema_v gds", "ds_ordered_count v0, v1",
                   "ds_ordered_count v0, v1 gds", "ds_add_gs_reg_rtn v[34:35], v0", "ds_add_u32 v1, v2 gds",
                   "ds_add_u32 v1, v2"],
       "gfx942": ["ds_gws_init v2", "ds_gws_init v2 gds", "ds_gws_sema_v", "ds_gws_sema_v gds", "ds_add_u32 v1, v2"],
       "gfx950": ["ds_gws_barrier v2", "ds_gws_barrier v2 gds", "ds_gws_sema_br v2 offset:4 gds"]}


@pytest.mark.parametrize("arch", GDS)
def test_gds_only_instructions_are_written_with_gds(arch):
    want = mc_encodings(GDS[arch], arch)
    assert any(w is None for w in want) and any(w is not None for w in want)
    assert [_dsl(x, arch) for x in GDS[arch]] == want


# the gfx9 dialect's classes of refusal (tests/asm_mutations.py found them): an encoding suffix on an
# instruction with one encoding or on a lane move, _dpp without its control or with modifiers out of
# LLVM's order, DPP of a compare (isa.syntax_conventions.DPP_FORMATS), SDWA of a 64-bit or
# accumulating instruction, modifiers on a destination, a scalar or memory operand or an integer
# source, output modifiers on an integer result or a compare, a buffer address VGPR without
# idxen/offen, SMEM operand counts, DS offset kinds, a special register narrower than its operand;
# and what the dialect takes: the 32-bit encoding's one implicit vcc left out, lit() on scalar and
# 32-bit sources, SMEM's offset left out
GFX9_CLASSES = [
    "s_mov_b32_e32 s0, s1", "s_mov_b32_e64 s0, s1", "s_nop_sdwa 0", "ds_read_b32_dpp v0, v1", "buffer_load_dword_e64 v0, off, s[0:3], 0",
    "v_readlane_b32_e32 s0, v1, s2", "v_readfirstlane_b32_e64 s0, v1", "v_readfirstlane_b32_dpp s0, v1",
    "v_cndmask_b32_dpp v0, v1, v2, vcc", "v_mov_b32_dpp v0, v1 row_mask:0x1 quad_perm:[0,1,2,3]",
    "v_mov_b32_dpp v0, v1 row_shl:1 quad_perm:[0,1,2,3]", "v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0x1 bank_mask:0x2",
    "v_cmp_eq_f32_dpp vcc, v1, v2 quad_perm:[0,1,2,3]", "v_rcp_f64_sdwa v[0:1], v[2:3]", "v_cvt_f64_f32_sdwa v[0:1], v2",
    "v_dot4c_i32_i8_sdwa v0, v1, v2", "v_pk_fmac_f16_sdwa v0, v1, v2", "v_cvt_pk_f32_bf8_sdwa v[0:1], v2 src0_sel:BYTE_1",
    "v_cvt_norm_i16_f16_e64 -v75, v164", "v_add_f32_dpp |v1|, v2, v3 quad_perm:[0,1,2,3]", "global_load_dword v0, neg(v2), s[0:1]",
    "s_cmp_gt_u32 47, -s3", "v_sad_u8 v40, s0, 1, -v2", "v_pk_max_u16 v0, -s3, 0", "v_pk_min_f16 v8, s0, |v2|",
    "v_cndmask_b32_e64 v0, -v1, |v2|, s[0:1]", "v_add_u32_e64 v0, v1, v2 mul:2", "v_cmp_lt_f32_e64 s[0:1], v1, v2 mul:2",
    "v_cmp_lt_f32_sdwa vcc, v1, v2 clamp", "v_add_u32_sdwa v0, v1, v2 mul:2", "v_add_f32_sdwa v0, v1, v2 mul:2",
    "v_cvt_u16_f16_e64 v0, v1 mul:2", "v_frexp_exp_i32_f32_e64 v0, v1 mul:2", "v_cvt_pkrtz_f16_f32 v1, v2, v3 mul:2",
    "buffer_load_dword v0, v1, s[0:3], 0", "buffer_load_dword v0, off, s[0:3], 0 offen", "buffer_load_dword v0, v1, s[0:3], 0 offen",
    "s_load_dword s1, s[2:3]", "s_dcache_discard s[64:65], 0x8, s3", "s_dcache_wb s53", "s_nop", "s_endpgm",
    "ds_max_i64 v0, v[0:1] offset:8 offset0:4", "ds_write2_b32 v0, v1, v2 offset:4",
    "s_orn2_saveexec_b64 s[64:65], m0", "s_and_b64 s[0:1], 32, vcc_hi", "buffer_load_dword v0, v1, exec, s3 offen",
    "s_mov_b64 s[0:1], src_shared_base", "v_cmp_eq_f32 v1, v2", "v_cmpx_ge_f32_e32 12, v29", "v_sub_co_u32 v1, v2, v3",
    "v_cndmask_b32 v0, v1, v2", "v_addc_co_u32 v1, v2, v3, vcc", "v_cmp_eq_i32_e32 vcc, v120", "v_cmp_eq_f32_sdwa v1, v2",
    "s_mov_b32 s0, lit(1)", "v_mov_b32 v0, lit(1.0)", "v_add_f16 v0, lit(1.0), v1", "s_movk_i32 s0, lit(1)",
    # AMD's names LLVM spells otherwise: refused unless LLVM takes them as aliases (isa.mnemonics)
    "v_mad_mix_f32 v1, v2, v3, v4", "v_mad_mixlo_f16 v1, v2, v3, v4", "v_mad_mixhi_f16 v1, v2, v3, v4",
    "v_fma_mix_f32 v1, v2, v3, v4", "v_fma_mixhi_f16 v1, -v2, v3, v4", "v_accvgpr_read v1, a1", "v_accvgpr_write a1, v1",
    # neg:[..] only on the f64 matrix instructions (elsewhere the field is BLGP)
    "v_mfma_f32_4x4x1_16b_f32 a[0:3], v0, v1, a[0:3] neg:[1,0,0]", "v_mfma_f32_4x4x1_16b_f32 a[0:3], v0, v1, a[0:3] neg:[0,0,0]",
    "v_mfma_i32_4x4x4_16b_i8 a[0:3], v0, v1, a[0:3] neg:[0,1,0]", "v_mfma_f32_4x4x1_16b_f32 a[0:3], v0, v1, a[0:3] blgp:1",
    "v_mfma_f64_4x4x4_4b_f64 a[0:1], v[0:1], v[2:3], a[0:1] neg:[1,0,0]",
    "v_mfma_f64_16x16x4_f64 v[0:7], v[0:1], v[2:3], v[0:7] neg:[0,1,1]",
]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_gfx9_dialect_refuses_and_takes_what_llvm_does(arch):
    want = mc_encodings(GFX9_CLASSES, arch)
    assert sum(w is None for w in want) > 25 and sum(w is not None for w in want) > 15
    got = [_dsl(x, arch) for x in GFX9_CLASSES]
    assert [(x, g) for x, g, w in zip(GFX9_CLASSES, got, want) if g != w] == []


def _e64_lines(arch: str) -> list[str]:
    """Each VOP1/VOP2/VOPC mnemonic of LLVM's corpus for `arch` (its first row with plain operands
    and no literal), written with _e64."""
    from tests.test_dsl_llvm_corpus import corpus
    rows = {}
    for fam, hx, text, reenc in corpus(arch):
        mn = text.split()[0]
        if fam in ("VOP1", "VOP2", "VOPC") and len(hx) == 8 and reenc != "-" and \
                not re.search(r"_sdwa|_dpp|sel:|quad_perm|row_|wave_|bound_ctrl", text):
            rows.setdefault(mn, text)
    return [mn.removesuffix("_e32") + "_e64" + text[len(mn):] for mn, text in sorted(rows.items())]


# an encoding the manual's opcode tables give and the syntax does not: the CDNA3 and CDNA4 VOP3A
# tables list V_SWAP_B32 (465) and V_ACCVGPR_MOV_B32 (466), LLVM 22 has only their VOP1 form
# (isa.syntax_conventions.NO_VOP3_FORM). Every VOP1/VOP2/VOPC mnemonic written with _e64 is taken
# with LLVM's bytes or refused as LLVM does; the refusal names the instruction; the VOP3 bytes of
# the two are no instruction for the disassembler, as for LLVM's
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_gfx9_e64_forms_are_those_llvm_has(arch):
    import warnings
    from tests.llvm_tools import tool
    lines = _e64_lines(arch)
    want = mc_encodings(lines, arch)
    assert len(lines) > 300
    # (v_readfirstlane_b32: a move between one lane and a scalar, refused with _e64 as on RDNA)
    assert sorted(x.split()[0] for x, w in zip(lines, want) if w is None) == \
        ["v_accvgpr_mov_b32_e64", "v_readfirstlane_b32_e64", "v_swap_b32_e64"]
    assert [(x, g, w) for x, g, w in zip(lines, [_dsl(x, arch) for x in lines], want) if g != w] == []
    for line, name in (("v_swap_b32_e64 v1, v2", "v_swap_b32"), ("v_accvgpr_mov_b32_e64 a1, a2", "v_accvgpr_mov_b32")):
        with pytest.raises(dsl.AsmError, match=f"e64 variant of {name} is not supported"):
            dsl.assemble(line, arch)
    vop3 = {"v_swap_b32": "e90091d100010000", "v_accvgpr_mov_b32": "010092d102010000"}
    for name, hx in vop3.items():
        mc = subprocess.run([tool("llvm-mc"), "-triple=amdgcn", f"-mcpu={arch}", "--disassemble"],
                            input=" ".join(f"0x{hx[i:i + 2]}" for i in range(0, 8, 2)), capture_output=True, text=True)
        assert "invalid instruction encoding" in mc.stderr, mc.stderr
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert dsl.disassemble(bytes.fromhex(hx[:8]) + bytes(4), arch).splitlines()[0] == f".long 0x{hx[6:8]}{hx[4:6]}{hx[2:4]}{hx[0:2]}"


# EXEC as a GLOBAL SADDR: LLVM 22 refuses it as the 64-bit base beside a VGPR offset (operand class
# SReg_64_XEXEC_XNULL) and takes it where no VADDR is beside it (global_*_addtid_b32) and exec_lo
# as SCRATCH's 32-bit offset; dsl.special_registers.exec_base_error names the operand
EXEC_BASES = {
    "gfx1100": ["global_load_b32 v1, v2, exec", "global_store_b32 v2, v1, exec", "global_atomic_add_u32 v2, v1, exec",
                "global_load_b32 v1, v2, exec offset:16", "global_load_b32 v1, v2, vcc",
                "global_load_addtid_b32 v1, exec", "global_store_addtid_b32 v1, exec",
                "scratch_load_b32 v1, off, exec_lo", "scratch_load_b32 v1, v2, exec_lo"],
    "gfx942": ["global_load_dword v1, v2, exec", "global_store_dword v2, v1, exec", "global_atomic_add v2, v1, exec",
               "global_load_dwordx2 v[2:3], v1, exec", "global_load_dword v1, v2, vcc",
               "scratch_load_dword v1, off, exec_lo", "scratch_store_dword off, v1, exec_lo"],
}
EXEC_BASES["gfx1151"] = EXEC_BASES["gfx1201"] = EXEC_BASES["gfx1100"]
EXEC_BASES["gfx950"] = EXEC_BASES["gfx942"]


@pytest.mark.parametrize("arch", sorted(EXEC_BASES))
def test_exec_as_a_global_base_is_refused_where_llvm_refuses_it(arch):
    lines = EXEC_BASES[arch]
    want = mc_encodings(lines, arch)
    assert sum(w is None for w in want) == 4 and any(w is not None for w in want)
    for line, w in zip(lines, want):
        if w is not None:
            assert _dsl(line, arch) == w, line
            continue
        with pytest.raises(dsl.AsmError, match=r"saddr: exec cannot be the 64-bit base of a GLOBAL address"):
            dsl.assemble(line, arch)


# a VOPD pair reads at most two scalar values, the select VCC of v_dual_cndmask_b32 (its signature's
# vcc_in) one of them (the manuals' VOPD restrictions: "at most 2 SGPRs, or 1 SGPR + 1 literal ... VCC
# counts as one SGPR read"); the same SGPR or literal twice counts once, an inline constant or null not
VOPD_BUS = [
    "v_dual_cndmask_b32 v1, v2, v3 :: v_dual_cndmask_b32 v4, s1, v6",
    "v_dual_cndmask_b32 v1, s2, v3 :: v_dual_cndmask_b32 v4, s1, v6",
    "v_dual_cndmask_b32 v1, s2, v3 :: v_dual_cndmask_b32 v4, s2, v6",
    "v_dual_cndmask_b32 v1, vcc_lo, v3 :: v_dual_mov_b32 v4, v6",
    "v_dual_cndmask_b32 v1, vcc_lo, v3 :: v_dual_mov_b32 v4, s5",
    "v_dual_cndmask_b32 v1, vcc_lo, v3 :: v_dual_cndmask_b32 v4, vcc_lo, v6",
    "v_dual_cndmask_b32 v1, vcc_hi, v3 :: v_dual_mov_b32 v4, vcc_lo",
    "v_dual_cndmask_b32 v106, s30, v2 :: v_dual_add_f32 v141, src_scc, v163",
    "v_dual_cndmask_b32 v1, src_shared_base, v3 :: v_dual_mov_b32 v4, s6",
    "v_dual_cndmask_b32 v1, 1.0, v3 :: v_dual_mov_b32 v4, s5",
    "v_dual_cndmask_b32 v1, 0x1234, v3 :: v_dual_mov_b32 v4, 0x1234",
    "v_dual_cndmask_b32 v1, 0x1234, v3 :: v_dual_mov_b32 v4, s6",
    "v_dual_fmaak_f32 v1, s2, v3, 0x1234 :: v_dual_mov_b32 v4, s5",
    "v_dual_fmaak_f32 v1, s2, v3, 0x1234 :: v_dual_mov_b32 v4, s2",
    "v_dual_fmamk_f32 v1, s2, 0x1234, v3 :: v_dual_cndmask_b32 v4, v2, v6",
    "v_dual_mov_b32 v1, 0x1234 :: v_dual_cndmask_b32 v4, s2, v6",
    "v_dual_mov_b32 v1, src_scc :: v_dual_mov_b32 v2, exec_lo",
    "v_dual_add_f32 v1, s1, v3 :: v_dual_cndmask_b32 v4, vcc_lo, v6",
    "v_dual_add_f32 v1, null, v3 :: v_dual_cndmask_b32 v4, s1, v6",
]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_vopd_pairs_read_at_most_two_scalar_values(arch):
    want = mc_encodings(VOPD_BUS, arch)
    assert sum(w is None for w in want) >= 9 and sum(w is not None for w in want) >= 8
    got = [_dsl(x, arch) for x in VOPD_BUS]
    assert got == want, [x for x, g, w in zip(VOPD_BUS, got, want) if g != w]


# NEG/NEG_HI on a VOP3P source the manual does not type as a float, in an instruction it types other
# sources of as floats (isa.facts.modifier_use.neg_abs; dsl.packed_negation, one rule for
# -x and the lists): the 8-bit float sources of RDNA4's dot4 and WMMA ("Only SRC2 can apply NEG/NEG_HI";
# "NEG must be set to zero for the A- and B-matrices", RDNA4 ISA 7.7), SWMMAC's index, every source of an
# 8-bit float SWMMAC and an IU WMMA's accumulator ("NEG[2] and NEG_HI[2:0] must be zero") are refused;
# integer packed math, the IU dot (NEG is signedness) and v_fma_mix* keep every bit
NEG_SOURCES = [
    "v_dot4_f32_bf8_fp8 v78, v3, v2, v18 neg_lo:[0,1,0]", "v_dot4_f32_bf8_fp8 v78, v3, v2, v18 neg_lo:[1,0,0]",
    "v_dot4_f32_fp8_fp8 v1, v2, v3, v4 neg_hi:[1,0,0]", "v_dot4_f32_bf8_fp8 v78, v3, -v2, v18",
    "v_dot4_f32_fp8_fp8 v1, -v2, v3, v4",
    "v_dot4_f32_bf8_fp8_e64_dpp v78, v3, -v2, v18 neg_lo:[0,0,1] neg_hi:[0,0,1] dpp8:[1,4,6,7,7,2,0,6]",
    "v_wmma_f32_16x16x16_fp8_fp8 v[0:7], v[8:9], v[10:11], v[0:7] neg_lo:[1,0,0]",
    "v_wmma_f32_16x16x16_bf8_bf8 v[0:7], v[8:9], v[10:11], v[0:7] neg_hi:[0,1,0]",
    "v_wmma_f32_16x16x16_fp8_fp8 v[0:7], -v[8:9], v[10:11], v[0:7]",
    "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 neg_lo:[0,0,1]",
    "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 neg_hi:[0,0,1]",
    "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], -v20",
    "v_swmmac_f32_16x16x32_fp8_fp8 v[8:15], v[2:3], v[4:7], -v10",
    "v_wmma_i32_16x16x16_iu8 v[8:15], v[2:3], v[4:5], -v[8:15]",
    "v_wmma_i32_16x16x16_iu8 v[8:15], v[2:3], v[4:5], v[8:15] neg_lo:[0,0,1]",
    # -x/|x| on a packed source: LLVM 22 writes NEG/NEG_HI only as lists outside v_fma_mix* ("not a valid operand")
    "v_dot4_f32_fp8_fp8 v1, v2, v3, -v4", "v_dot4_f32_bf8_bf8 v1, v2, v3, |v4|",
    "v_wmma_f32_16x16x16_f16 v[0:7], -v[8:11], v[12:15], v[0:7]",
    "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], -v[0:7]",
    "v_dot2_f32_f16 v1, -v2, v3, v4", "v_dot4_i32_iu8 v1, v2, -v3, v4", "v_pk_add_f16 v1, -v2, v3",
    "v_pk_add_f16 v1, v2, |v3|", "v_pk_fma_f16 v1, v2, v3, -v4",
]
NEG_KEPT = [
    "v_dot4_f32_bf8_fp8 v78, v3, v2, v18 neg_lo:[0,0,1]", "v_dot4_f32_fp8_fp8 v1, v2, v3, v4 neg_hi:[0,0,1]",
    "v_dot4_f32_fp8_fp8_e64_dpp v1, v2, v3, v4 neg_lo:[0,0,1] quad_perm:[0,1,2,3]",
    "v_wmma_f32_16x16x16_bf8_bf8 v[0:7], v[8:9], v[10:11], v[0:7] neg_hi:[0,0,1]",
    "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,0,0]",
    "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 neg_lo:[1,0,0]",
    "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 neg_hi:[0,1,0]",
    "v_dot4_i32_iu8 v1, v2, v3, v4 neg_lo:[1,1,0]", "v_pk_add_u16 v1, v2, v3 neg_lo:[1,0]",
    "v_fma_mix_f32 v1, -v2, v3, v4", "v_dot2_f32_f16 v1, v2, v3, v4 neg_lo:[1,1,1]",
]


def test_vop3p_negation_only_on_float_sources():
    want = mc_encodings(NEG_SOURCES + NEG_KEPT, "gfx1201")
    assert want[:len(NEG_SOURCES)] == [None] * len(NEG_SOURCES)
    assert None not in want[len(NEG_SOURCES):]
    assert [_dsl(x, "gfx1201") for x in NEG_SOURCES + NEG_KEPT] == want
    # the DPP form of an 8-bit float source's NEG: LLVM 22 takes it and drops the bit (its bytes are
    # those without neg_lo), losing what the line says; we refuse it as in the plain form
    line = "v_dot4_f32_bf8_fp8_e64_dpp v78, v3, v2, v18 neg_lo:[1,0,0] dpp8:[1,4,6,7,7,2,0,6]"
    assert mc_encodings([line, line.replace(" neg_lo:[1,0,0]", "")], "gfx1201") == \
        [bytes.fromhex("4e4025cce9044a1c03a17fc1")] * 2
    assert _dsl(line, "gfx1201") is None


# -x/|x| on a packed source: only v_fma_mix*/v_mad_mix* write NEG/NEG_HI so (dsl/packed_negation.py);
# LLVM 22 refuses them on every other VOP3P instruction ("not a valid operand"), lists are its syntax
PACKED_SIGNS = ["v_pk_add_f16 v1, -v2, v3", "v_pk_add_f16 v1, v2, |v3|", "v_pk_fma_f16 v1, v2, v3, -v4",
                "v_pk_add_u16 v1, -v2, v3", "v_dot2_f32_f16 v1, -v2, v3, v4", "v_dot2_f32_f16 v1, v2, v3, -v4"]
PACKED_SIGNS_BY_ARCH = {
    "rdna": ["v_dot4_i32_iu8 v1, v2, -v3, v4", "v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], -v[0:7]",
             "v_wmma_f32_16x16x16_f16 v[0:7], |v[8:15]|, v[16:23], v[0:7]"],
    "cdna": ["v_pk_fma_f32 v[0:1], -v[2:3], v[4:5], v[6:7]", "v_pk_mul_f32 v[0:1], v[2:3], |v[4:5]|",
             "v_mfma_f32_4x4x1_16b_f32 a[0:3], -v0, v1, a[0:3]", "v_mfma_f32_4x4x1_16b_f32 a[0:3], v0, v1, |a[0:3]|",
             "v_mfma_f64_4x4x4_4b_f64 a[0:1], -v[0:1], v[2:3], a[0:1]"],
}
SIGNS_KEPT = ["v_fma_mix_f32 v1, -v2, |v3|, v4", "v_fma_mixlo_f16 v1, v2, -|v3|, v4", "v_pk_add_f16 v1, v2, v3 neg_lo:[1,0]",
              "v_dot2_f32_f16 v1, v2, v3, v4 neg_lo:[1,0,0] neg_hi:[0,0,1]"]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_signs_on_packed_sources_only_where_llvm_writes_them(arch):
    refused = PACKED_SIGNS + PACKED_SIGNS_BY_ARCH["cdna" if arch.startswith("gfx9") else "rdna"]
    if arch == "gfx1201":   # RDNA4's WMMA: 8 registers for A and B are 4
        refused = [x.replace("v[8:15], v[16:23]", "v[8:11], v[12:15]") for x in refused]
    want = mc_encodings(refused + SIGNS_KEPT, arch)
    assert want[:len(refused)] == [None] * len(refused) and None not in want[len(refused):]
    assert [_dsl(x, arch) for x in refused + SIGNS_KEPT] == want
    with pytest.raises(dsl.AsmError, match=r"v_dot2_f32_f16: .*src2 takes no -x/\|x\| .*write neg_lo:\[0,0,1\]"):
        dsl.assemble("v_dot2_f32_f16 v1, v2, v3, -v4", arch)


# neg/abs on a number in a 32-bit VALU encoding's src0 (no modifier bits there): LLVM 22 folds them
# into the number (abs clears, neg flips the sign bit: of the double a float is read as, of an
# integer at the operand's width) and keeps the 32-bit encoding, also when no suffix is written;
# not on an integer operand, lit(...), a register, nor where the instruction has no VOP3 form
FOLDED = [
    "v_add_f32 v1, |-1.0|, v2", "v_add_f32 v1, -|2.0|, v2", "v_add_f32 v1, neg(2.0), v2", "v_add_f16 v1, |-1.0|, v2",
    "v_cmp_lt_f32 vcc_lo, |-1.0|, v2", "v_ldexp_f16_e32 v23, |59|, v126", "v_ldexp_f16_e32 v23, |-1|, v126",
    "v_add_f32_e32 v1, |-2|, v2", "v_add_f32_e32 v1, |0x92345678|, v2", "v_add_f32_e32 v1, -|16|, v2",
    "v_add_f32_e32 v1, |0xbf800000|, v2", "v_add_f32_e32 v1, neg(0), v2", "v_add_f16_e32 v1, neg(0x3c00), v2",
    "v_sqrt_f64 v[0:1], |-1.0|", "v_cndmask_b32 v1, |-1.0|, v2, vcc_lo", "v_cmpx_lt_f32 |-1.0|, v2",
    "v_add_f32_e64 v1, |-1.0|, v2", "v_fma_f32 v1, |-1.0|, v2, v3", "v_add_f32 v1, v2, |-1.0|",
    "v_add_f32 v1, |-1.0|, v2 mul:2",
]
NOT_FOLDED = ["v_add_f32_e32 v1, |0x1ffffffff|, v2", "v_add_nc_u32 v1, |-1|, v2", "v_mov_b32 v1, |-1.0|",
              "v_fmaak_f32 v1, |-1.0|, v2, 0x1234", "v_fmamk_f32 v1, neg(1.0), 0x1234, v2", "v_add_f32_e32 v1, |s1|, v2",
              "v_add_f32_dpp v1, |-1.0|, v2 quad_perm:[0,1,2,3]"]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_modifiers_on_a_number_fold_into_it_in_the_32_bit_encoding(arch):
    want = mc_encodings(FOLDED + NOT_FOLDED, arch)
    assert None not in want[:len(FOLDED)] and want[len(FOLDED):] == [None] * len(NOT_FOLDED)
    assert [len(w) for w in want[:5]] == [4] * 5     # no suffix, an inline result: the 32-bit encoding
    assert [_dsl(x, arch) for x in FOLDED + NOT_FOLDED] == want


# AMD's names LLVM spells otherwise on the RDNA targets, read from isa.mnemonics.refused_spelling
# as the gfx9 assembler reads it: gfx11 takes only exp (llvm-mc-22: "instruction not supported on
# this GPU" for export), gfx12 export and its old spelling exp
@pytest.mark.parametrize("arch,line,llvm", [("gfx1100", "export mrt0 v0, v1, v2, v3", "exp"),
                                            ("gfx1151", "export mrt1 v4, v5, v6, v7 done", "exp")])
def test_rdna_refuses_the_export_spelling_llvm_refuses_naming_its_own(arch, line, llvm):
    from tests.llvm_tools import mc_errors
    assert mc_encodings([line], arch)[0] is None
    assert "not supported on this GPU" in mc_errors([line], arch)[0][1]
    with pytest.raises(dsl.AsmError) as err:
        dsl.assemble("s_nop 0\n  " + line, arch)
    first = str(err.value).splitlines()[0]
    assert re.fullmatch(rf"2:3: export: instruction not supported on \S+ \(LLVM spells it {llvm} there\)", first), first


@pytest.mark.parametrize("line", ["exp mrt0 v0, v1, v2, v3", "export mrt0 v0, v1, v2, v3 done", "exp pos0 v1, v2, v3, v4"])
def test_gfx1201_takes_both_export_spellings_as_llvm_does(line):
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_disassembly
    want = mc_encodings([line], "gfx1201")[0]
    assert want is not None and bytes(dsl.assemble(line, "gfx1201")) == want
    assert " ".join(disassemble(want, "gfx1201").split()) == " ".join(mc_disassembly([want], "gfx1201")[0].split())

"""Which instructions may take a DPP word: isa.facts.no_dpp against the manuals' DPP sections as
printed (RDNA3 Table 30 page 79, RDNA3.5 page 81, RDNA4 Table 38 pages 94-96 and section 7.10), and
the generator's reading of the table's opcode names."""
from __future__ import annotations

import pytest

import isa
from isa.facts import no_dpp
from isa.gen.dpp import _alternatives


def _rule(arch: str, mnemonic: str, fmt: str):
    d = next(d for d in isa.load(arch).lookup(mnemonic) if d.format == fmt)
    return no_dpp(d)


# (mnemonic, encoding, words the rule must hold or None where the table allows DPP)
RDNA3_ROWS = [
    ("v_mul_lo_u32", "VOP3", "VOP3 MUL_LO_U32: NO DPP"),
    ("v_mul_hi_i32", "VOP3", "MUL_HI_I32"),
    ("v_readlane_b32", "VOP3", "READLANE_B32"),
    ("v_permlanex16_b32", "VOP3", "PERMLANEX16_B32"),
    ("v_readfirstlane_b32", "VOP1", "READFIRSTLANE_B32"),
    ("v_pipeflush", "VOP1", "PIPEFLUSH"),
    ("v_add_f64", "VOP3", "All 64bit opcodes"),
    ("v_cvt_f32_f64", "VOP1", "All 64-bit opcodes"),
    ("v_cmp_eq_f64", "VOPC", "All 64bit opcodes"),
    ("v_mad_u64_u32", "VOP3SD", "All 64bit opcodes"),
    ("v_dot4_i32_iu8", "VOP3P", "V_DOT4_I32_IU8"),
    ("v_pk_add_f16", "VOP3P", "V_PK_*"),
    ("v_pk_fmac_f16", "VOP2", '"packed math"'),
    ("v_wmma_f32_16x16x16_f16", "VOP3P", "WMMA"),
    ("v_fmaak_f32", "VOP2", "FMAMK/AK_F32/F16"),          # erratum rdna3-dpp-table-fmaak
    ("v_permlane64_b32", "VOP1", "PERMLANE64_B32"),       # erratum rdna3-dpp-table-permute64
    ("v_swap_b16", "VOP1", "SWAP*"),                      # erratum rdna3-dpp-table-swap
    ("v_nop", "VOP1", "erratum rdna-no-dpp-v-nop"),
    ("v_fma_mix_f32", "VOP3P", None),
    ("v_dot2_f32_f16", "VOP3P", None),
    ("v_cmp_eq_f32", "VOPC", None),
    ("v_cmp_eq_f32", "VOP3", None),
    ("v_add_f32", "VOP2", None),
    ("v_add_f32", "VOP3", None),
    ("v_cndmask_b32", "VOP3", None),                      # its lane mask is no 64-bit operand
    ("v_mad_u32_u24", "VOP3", None),
]
RDNA4_ROWS = [
    ("v_mul_lo_u32", "VOP3", "MUL_LO_U32: NO DPP (Table 38)"),
    ("v_mul_hi_u32", "VOP3", "MUL_HI_{U32, I32}"),
    ("v_mul_hi_i32_i24", "VOP3", None),                   # not MUL_HI_I32: a whole name, no prefix
    ("v_permlane16_var_b32", "VOP3", "PERMLANE*"),
    ("v_permlane64_b32", "VOP1", "VOP1 PERMLANE"),
    ("v_swaprel_b32", "VOP1", "VOP1 SWAP"),
    ("v_nop", "VOP1", "V_NOP"),
    ("v_cvt_pk_f32_fp8", "VOP3", "NO DPP"),
    ("v_cvt_pk_f32_fp8", "VOP1", "All 64-bit opcodes"),   # D0[63 : 32]: a 64-bit result
    ("v_s_exp_f32", "VOP3", "Pseudo-scalar Transcendental"),
    ("v_swmmac_f32_16x16x32_f16", "VOP3P", "WMMA"),       # the sparse matrix instructions too
    ("v_pipeflush", "VOP1", "erratum rdna-no-dpp-v-pipeflush"),
    ("v_dot4_u32_u8", "VOP3P", "V_DOT4_U32_U8"),
    ("v_fma_mix_f32", "VOP3P", None),
    ("v_dot4_f32_fp8_bf8", "VOP3P", None),
    ("v_add_f32", "VOP2", None),
]


@pytest.mark.parametrize("mnemonic,fmt,words", RDNA3_ROWS)
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_rdna3_table(arch, mnemonic, fmt, words):
    got = _rule(arch, mnemonic, fmt)
    if words is None:
        assert got is None, got
    else:
        assert got is not None and words in got[0], got
        # the table's rows on page 79 (81), the "packed math" sentence above it on page 78 (80)
        assert got[1] == {"gfx1100": 79, "gfx1151": 81}[arch] - ("packed math" in words), got


@pytest.mark.parametrize("mnemonic,fmt,words", RDNA4_ROWS)
def test_rdna4_table(mnemonic, fmt, words):
    got = _rule("gfx1201", mnemonic, fmt)
    if words is None:
        assert got is None, got
    else:
        assert got is not None and words in got[0], got
        # the conversion keeps pages only at marks: Table 38 lies between section 7.9's (page 94) and
        # 7.9.1's (page 96); 7.10 "Pseudo-scalar Transcendental ALU ops" and 7.11 both on page 98
        assert (got[1] == 98) if "Pseudo" in words else (94 <= got[1] <= 96), got


def test_the_errata_the_llvm_evidence_names_are_excluded_on_every_rdna_family():
    for arch in ("gfx1100", "gfx1151", "gfx1201"):
        for mnemonic, fmt in (("v_div_fixup_f32", "VOP3"), ("v_div_fmas_f32", "VOP3"), ("v_div_scale_f32", "VOP3SD"),
                              ("v_fma_dx9_zero_f32", "VOP3")):
            got = _rule(arch, mnemonic, fmt)
            assert got is not None and got[0].startswith("erratum rdna-no-dpp-"), (arch, mnemonic, got)


def test_table_names_expand_as_printed():
    assert _alternatives("MUL_HI_{U32, I32}") == ["MUL_HI_U32", "MUL_HI_I32"]
    assert _alternatives("FMAMK/AK_F32/F16") == ["FMAMK_F32", "FMAMK_F16", "FMAAK_F32", "FMAAK_F16"]
    assert _alternatives("V_DOT2_F32_{BF16, F16}") == ["DOT2_F32_BF16", "DOT2_F32_F16"]
    assert _alternatives("V_PK_*") == ["PK_*"]

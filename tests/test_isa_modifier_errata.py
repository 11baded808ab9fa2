"""The modifier_use errata (isa/errata_modifiers.py): where LLVM 22's syntax takes or refuses
clamp, an output modifier, neg/abs or op_sel against what the manual's entry gives isa.facts.modifier_use. Each
erratum's evidence lines are run again through llvm-mc-22 (accepted with the bytes quoted, or
refused) and through our assembler, which reads the corrected fact; the fact of every encoding of
the instruction is the erratum's fix; and a few lines by hand, on both sides of each erratum class."""
from __future__ import annotations

import re

import pytest

import dsl
import isa
from isa.errata import ERRATA
from isa.facts import modifier_use

from .llvm_tools import mc_encodings

MODIFIER_ERRATA = [e for e in ERRATA if e.kind == "modifier_use"]
_EVIDENCE = re.compile(r"'([^']*)' -> (?:\[([0-9a-f]+)\]|error: [^;]*) \(([^)]*)\)")
_TARGET = {"rdna3": "gfx1100", "rdna3.5": "gfx1151", "rdna4": "gfx1201", "cdna3": "gfx942", "cdna4": "gfx950"}


def _lines(e):
    """(arch, line, LLVM's bytes or None) quoted in the erratum's evidence."""
    return [(arch, line, bytes.fromhex(hexes) if hexes else None)
            for line, hexes, archs in _EVIDENCE.findall(e.evidence) for arch in archs.split(", ")]


def _scoped(e) -> bool:
    """An erratum of the 64-bit encodings alone (target (NAME, FIELD, 'e64')): its evidence quotes
    the SDWA form LLVM refuses, whose fact (the 32-bit encoding's) keeps the entry's value."""
    return e.target[2:] == ("e64",)


def _ours(line: str, arch: str) -> bytes | None:
    try:
        return bytes(dsl.assemble(line, arch))
    except dsl.AsmError:
        return None


def test_every_erratum_quotes_a_line_on_each_of_its_families():
    assert len(MODIFIER_ERRATA) > 40
    for e in MODIFIER_ERRATA:
        archs = {arch for arch, _, _ in _lines(e)}
        assert archs == {_TARGET[f] for f in e.archs}, (e.id, archs)
        assert all((b is not None) == (bool(e.fix) and not (_scoped(e) and "_sdwa " in line))
                   for _, line, b in _lines(e)), e.id
        assert not _scoped(e) or any("_sdwa " in line for _, line, _ in _lines(e)), e.id


@pytest.mark.parametrize("e", MODIFIER_ERRATA, ids=lambda e: e.id)
def test_the_fact_read_is_the_fix(e):
    name, field = e.target[:2]
    for family in e.archs:
        spec = isa.load(family)
        defs = spec.lookup(name)
        assert defs, (family, name)
        e32 = {d for d in defs if _scoped(e) and d.format in spec.traits.roles.valu_e32}
        assert {getattr(modifier_use(d), field) for d in set(defs) - e32} == {e.fix}, (family, name)
        assert {getattr(modifier_use(d), field) for d in e32} <= {e.pdf}, (family, name)


@pytest.mark.parametrize("arch", sorted(set(_TARGET.values())))
def test_evidence_lines_against_llvm_and_ours(arch):
    rows = [(e.id, line, want) for e in MODIFIER_ERRATA for a, line, want in _lines(e) if a == arch]
    assert rows
    got = mc_encodings([line for _, line, _ in rows], arch)
    bad = [(i, line, want, mc) for (i, line, want), mc in zip(rows, got) if mc != want]
    assert not bad, f"llvm-mc-22 differs from the evidence: {bad[:5]}"
    bad = [(i, line, want, ours) for i, line, want in rows if (ours := _ours(line, arch)) != want]
    assert not bad, f"our assembler differs from LLVM: {bad[:5]}"


# (arch, line, accepted by llvm-mc-22?): the rules of isa/gen/modifiers.py and the errata's classes
CASES = [
    ("gfx1100", "v_add_nc_u32_e64 v8, v2, v4 clamp", True),        # "Supports saturation"
    ("gfx1201", "v_mad_u32_u24 v8, v2, v4, v6 clamp", True),        # erratum: LLVM takes it
    ("gfx942", "v_sad_u32 v8, v2, v4, v6 clamp", True),
    ("gfx950", "v_add_u32_e64 v8, v2, v4 clamp", True),
    ("gfx1100", "v_and_b32_e64 v8, v2, v4 clamp", False),           # bitwise: nothing to clamp
    ("gfx1201", "v_min_i32_e64 v8, v2, v4 clamp", False),
    ("gfx942", "v_mul_lo_u32 v8, v2, v4 clamp", False),
    ("gfx942", "v_lshlrev_b32_e64 v8, v2, v4 clamp", False),
    ("gfx942", "v_cndmask_b32_e64 v0, v1, v2, s[0:1] clamp", False),
    ("gfx1100", "v_cndmask_b32_e64 v8, v2, v4, s10 clamp", False),
    ("gfx1201", "v_cmp_class_f16_e64 s8, v2, v4 clamp", False),     # a class compare: ignored
    ("gfx1201", "v_cmp_lt_f16_e64 s8, v2, v4 clamp", True),         # a float compare signals
    ("gfx1201", "v_cmp_ngt_f32_e64 s8, v2, v4 clamp", True),        # (RDNA4's entry lost the words)
    ("gfx1201", "v_cvt_f32_fp8_e64 v8, v2 clamp", False),           # small floats: none
    ("gfx942", "v_cvt_f32_fp8_e64 v8, v2 clamp", True),             # erratum: CDNA's LLVM takes it
    ("gfx950", "v_cvt_scalef32_pk_fp8_f32 v8, v2, v4, v6 clamp", False),
    ("gfx942", "v_add_f32_e64 v8, v2, v4 clamp", True),
    ("gfx1100", "v_cvt_i32_f32_e64 v8, v2 clamp", True),            # an integer of a float source
    ("gfx1151", "v_pk_add_u16 v8, v2, v4 clamp", True),             # packed integers
    ("gfx1100", "v_cvt_pk_i16_i32_e64 v8, v2, v4 clamp", False),
    ("gfx1100", "v_wmma_i32_16x16x16_iu8 v[8:15], v[16:19], v[20:23], v[8:15] clamp", True),
    ("gfx1100", "v_wmma_f32_16x16x16_f16 v[8:15], v[16:23], v[24:31], v[8:15] clamp", False),
    ("gfx942", "v_cvt_pkrtz_f16_f32 v8, v2, v4 mul:2", True),       # erratum: LLVM takes it
    ("gfx950", "v_mad_legacy_f16 v8, v2, v4, v6 mul:2", True),
    ("gfx942", "v_cvt_pk_f32_fp8_e64 v[8:9], v2 mul:2", True),
    ("gfx942", "v_cvt_i32_f32_e64 v8, v2 mul:2", True),
    ("gfx942", "v_min_u32_e64 v8, v2, v4 mul:2", False),
    ("gfx950", "v_cmp_lt_f32_e64 s[8:9], v2, v4 mul:2", False),
    ("gfx942", "v_pack_b32_f16 v8, v2, v4 mul:2", False),
    ("gfx950", "v_cvt_scalef32_pk_f16_fp8 v8, v2, v4 mul:2", False),
    ("gfx942", "v_cvt_f32_fp8_e64 v8, v2 mul:2", True),
    ("gfx942", "v_pk_fmac_f16_e64 v8, v2, v4 mul:2", True),
    ("gfx1100", "v_cvt_i32_f32_e64 v1, v2 mul:2", True),
    ("gfx1100", "v_cvt_pk_rtz_f16_f32_e64 v1, v2, v3 mul:2", True),
    ("gfx1201", "v_cvt_u16_f16_e64 v1, v2 div:2", True),
    ("gfx1151", "v_frexp_exp_i32_f64_e64 v1, v[2:3] mul:4", True),
    ("gfx1100", "v_cvt_floor_i32_f32_e64 v1, v2 mul:2", False),
    ("gfx1201", "v_frexp_exp_i32_f32_e64 v1, v2 mul:2", False),
    ("gfx1100", "v_cndmask_b16 v5.l, v1.l, v2.l, s3 mul:4", False),
    ("gfx1201", "v_cvt_pk_norm_i16_f32 v1, v2, v3 mul:2", False),
    ("gfx1100", "v_dot2_f16_f16 v1.l, v2, v3, v4.l mul:2", False),
    ("gfx1201", "v_pack_b32_f16 v1, v2, v3 mul:2", False),
    ("gfx1201", "v_cvt_f32_fp8_e64 v1, v2 mul:2", False),
    ("gfx1201", "v_add_f32_e64 v1, v2, v3 mul:2", True),
    ("gfx1100", "v_cndmask_b32_e64 v1, -v2, |v3|, s4", True),        # erratum: neg/abs on integers
    ("gfx1201", "v_cndmask_b32_e64 v1, -v2, |v3|, s4", True),
    ("gfx942", "v_cndmask_b32_e64 v1, -v2, |v3|, s[4:5]", True),
    ("gfx1100", "v_cndmask_b16 v1.l, -v2.l, |v3.l|, s4", True),
    ("gfx1100", "v_cmp_class_f16_e64 s1, -v2.l, v3.l", True),
    ("gfx1100", "v_cmp_class_f16_e64 s1, v2.l, -v3.l", True),        # the f16 mask too (true16 syntax)
    ("gfx1100", "v_cmp_class_f32_e64 s1, v2, -v3", False),           # not the u32 one
    ("gfx1100", "v_add_nc_u32_e64 v1, -v2, v3", False),
    ("gfx942", "v_max_u32_e64 v1, |v2|, v3", False),
    # CDNA: neg/abs where modifier_use's neg_abs says (not by the signature's float type)
    ("gfx942", "v_cmp_class_f16_e64 s[0:1], v2, -v3", False),      # the u32 class mask
    ("gfx950", "v_cmp_class_f16_e64 s[0:1], v2, |v3|", False),
    ("gfx942", "v_cmpx_class_f16_sdwa s[0:1], v2, -v3", False),
    ("gfx942", "v_cmp_class_f16_e64 s[0:1], -v2, |v3|", False),
    ("gfx950", "v_cmp_class_f16_e64 s[0:1], -|v2|, v3", True),      # the f16 value
    ("gfx942", "v_cvt_f32_bf8_e64 v1, -v2", False),                 # an 8-bit float's byte
    ("gfx950", "v_cvt_f32_bf8_e64 v1, |v2|", False),
    ("gfx942", "v_cvt_f32_bf8_dpp v1, -v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", False),
    ("gfx942", "v_exp_legacy_f32_e64 v1, -v2", True),               # an erratum types its source f32, as LLVM
    ("gfx950", "v_log_legacy_f32_sdwa v1, |v2|", True),
    ("gfx942", "v_div_scale_f32 v1, s[2:3], -v2, v3, v4", True),
    ("gfx942", "v_div_scale_f32 v1, s[2:3], |v2|, v3, v4", False),  # VOP3B: no ABS field
    # SDWA output modifiers: the 32-bit encoding's fact (the 'e64' errata leave it the manual's)
    ("gfx942", "v_cvt_i32_f32_sdwa v1, v2 mul:2", False),
    ("gfx950", "v_cvt_u16_f16_sdwa v1, v2 div:2", False),
    ("gfx942", "v_cvt_f32_fp8_sdwa v1, v2 mul:2", True),
    ("gfx950", "v_cvt_f16_f32_sdwa v1, v2 mul:4", True),
    ("gfx942", "v_cvt_i32_f32_e64 v1, v2 mul:4", True),
]


@pytest.mark.parametrize("arch,line,accepted", CASES)
def test_modifier_lines_by_hand(arch, line, accepted):
    want = mc_encodings([line], arch)[0]
    assert (want is not None) == accepted, line
    assert _ours(line, arch) == want, line


# (arch, line, accepted by llvm-mc-22?): op_sel, which the assemblers take by isa.facts.modifier_use's
# opsel (dsl.signature.opsel_on_whole_vgprs): on both sides of the rule and of each erratum class
OPSEL_CASES = [
    ("gfx1201", "v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]", True),           # VOP3 only, 16-bit operands
    ("gfx1201", "v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]", True),
    ("gfx1201", "v_maximum_f16 v1, v2, v3 op_sel:[0,1,0]", True),
    ("gfx1100", "v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]", True),           # whole VGPRs on gfx1100 too
    ("gfx1100", "v_min3_f16 v8, v2, v4, v6 op_sel:[0,0,1,1]", True),
    ("gfx942", "v_add_i16 v8, v2, v4 op_sel:[0,1,0]", True),
    ("gfx942", "v_mad_f16 v8, v2, v4, v6 op_sel:[0,0,0,1]", True),
    ("gfx1201", "v_add_f16_e64 v1, v2, v3 op_sel:[1,0,0]", False),         # promoted VOP1/VOP2/VOPC forms
    ("gfx1201", "v_cvt_f16_f32_e64 v1, v2 op_sel:[0,1]", False),
    ("gfx1201", "v_cmp_lt_f16_e64 s1, v2, v3 op_sel:[1,0]", False),
    ("gfx1100", "v_trunc_f16_e64 v8, v2 op_sel:[0,0]", False),
    ("gfx942", "v_add_f16_e64 v0, v1, v2 op_sel:[1,0,0]", False),
    ("gfx942", "v_dot2c_f32_f16_e64 v8, v2, v4 op_sel:[0,0,0]", False),
    ("gfx950", "v_mul_f32_e64 v0, v1, v2 op_sel:[1,0,0]", False),          # no 16-bit operand
    ("gfx1201", "v_mul_lo_u16 v1, v2, v3 op_sel:[1,0,0]", False),          # erratum (): RDNA3's new 16-bit ops
    ("gfx1201", "v_xor_b16 v1, v2, v3 op_sel:[1,0,0]", False),
    ("gfx1100", "v_and_b16 v8, v2, v4 op_sel:[1,0,0]", False),
    ("gfx1100", "v_and_b16 v8, v2, v4", True),
    ("gfx1100", "v_and_b16 v8.l, v2.h, v4.l op_sel:[1,0,0]", True),        # ... true16 halves restated
    ("gfx1151", "v_mul_lo_u16 v8.h, v2.l, v4.h op_sel:[0,1,1]", True),
    ("gfx1100", "v_fmac_f16_e64 v8.h, v2.l, v4.l op_sel:[0,0,1,1]", True),  # (a promoted form too)
    ("gfx1100", "v_fmac_f16_e64 v8.h, v2.l, v4.l op_sel:[0,0,0,1]", False),
    ("gfx1100", "v_fma_f16 v8.l, v2.h, v4.l, v6.h op_sel:[1,0,0,0]", False),
    ("gfx1100", "v_fma_f16 v8.l, v2.h, v4.l, v6.h op_sel:[1,0,1]", True),
    ("gfx1201", "v_s_exp_f16 s8, s2 op_sel:[1,0]", False),
    ("gfx950", "v_cvt_pk_f16_f32 v8, v2, v4 op_sel:[0,0,1]", False),
    ("gfx942", "v_cvt_pkrtz_f16_f32 v8, v2, v4 op_sel:[0,0,1]", False),
    ("gfx1100", "v_cndmask_b16 v1.l, v2.l, v3.l, s4 op_sel:[0,0,0,0]", False),   # erratum None: no op_sel at all
    ("gfx1100", "v_cndmask_b16 v1.h, v2.l, v3.h, s4", True),
    ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4 op_sel:[1,0,0]", False),
    ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4", True),
    ("gfx942", "v_mad_legacy_f16 v8, v2, v4, v6 op_sel:[0,0,0,0]", False),
    ("gfx950", "v_div_fixup_legacy_f16 v8, v2, v4, v6 op_sel:[0,0,0,1]", False),
    ("gfx942", "v_sad_u16 v8, v2, v4, v6 op_sel:[1,0,0]", False),
    ("gfx1151", "v_sad_u16 v8, v2, v4, v6 op_sel:[1,0,0]", False),
    ("gfx950", "v_ashr_pk_i8_i32 v8, v2, v4, v6 op_sel:[0,0,0,1]", True),  # erratum: op_sel the types give no half
    ("gfx950", "v_ashr_pk_u8_i32 v8, v2, v4, v6 op_sel:[1,0,0,0]", True),
    ("gfx1100", "v_alignbit_b32 v8, v2, v4, v6 op_sel:[0,0,1,0]", True),
    ("gfx1201", "v_alignbyte_b32 v8, v2, v4, v6 op_sel:[0,0,1,0]", True),
    ("gfx942", "v_alignbit_b32 v8, v2, v4, v6 op_sel:[1,0,0,0]", True),
    ("gfx942", "v_pk_fmac_f16_e64 v8, v2, v4 op_sel:[0,1]", True),           # erratum 'ignored': encodes none
    ("gfx950", "v_pk_fmac_f16_e64 v8, v2, v4 op_sel:[1,1,1]", True),
    ("gfx942", "v_pk_fmac_f16_e64 v8, v2, v4 op_sel_hi:[0,0]", False),
    ("gfx942", "v_pk_fmac_f16 v8, v2, v4 op_sel:[1,0]", True),               # (op_sel chooses the VOP3 form)
    ("gfx942", "v_dot2c_f32_f16_e64 v8, v2, v4 op_sel:[1,0,0]", False),
    ("gfx1201", "v_permlane16_var_b32 v8, v2, v4 op_sel:[1,1]", True),       # opsel_flags erratum: FI, BOUND_CTRL
    ("gfx1201", "v_permlanex16_var_b32 v8, v2, v4 op_sel:[0,1,0]", True),
    ("gfx1201", "v_permlanex16_var_b32 v8, v2, v4 op_sel:[0,0,0,1]", False),
    ("gfx1201", "v_permlane16_b32 v8, v2, s4, s5 op_sel:[1,1,1]", False),   # reserved OPSEL bits
    ("gfx1100", "v_permlanex16_b32 v8, v2, s4, s5 op_sel:[0,0,1,0]", False),
    ("gfx1100", "v_permlanex16_b32 v8, v2, s4, s5 op_sel:[0,1]", True),
]


@pytest.mark.parametrize("arch,line,accepted", OPSEL_CASES)
def test_op_sel_lines_by_hand(arch, line, accepted):
    """Accepted with LLVM's bytes, whose disassembly is ours too, or refused naming op_sel."""
    from dsl.disasm import disassemble
    from .llvm_tools import mc_disassembly
    want = mc_encodings([line], arch)[0]
    assert (want is not None) == accepted, line
    if want is None:
        with pytest.raises(dsl.AsmError, match="op_sel"):
            dsl.assemble(line, arch)
        return
    assert _ours(line, arch) == want, line
    assert " ".join(disassemble(want, arch).split()) == " ".join(mc_disassembly([want], arch)[0].split()), line


OPSEL_FLAG_ERRATA = [e for e in ERRATA if e.kind == "opsel_flags"]


@pytest.mark.parametrize("e", OPSEL_FLAG_ERRATA, ids=lambda e: e.id)
def test_opsel_flag_errata_against_llvm_and_ours(e):
    """The opsel_flags errata (OPSEL bits LLVM writes as op_sel:[FI,BOUND_CTRL] where the manual says
    so of a sibling only): the fact read is the fix, and each line quoted is what llvm-mc-22 and our
    assembler make of it (bytes, which print back as llvm-mc --disassemble prints them, or refused)."""
    from dsl.disasm import disassemble
    from isa.facts import opsel_flags
    from .llvm_tools import mc_disassembly
    for family in e.archs:
        assert {opsel_flags(d) for d in isa.load(family).lookup(e.target[0])} == {e.fix}
    rows = _lines(e)
    assert rows and any(b is None for _, _, b in rows) and any(b is not None for _, _, b in rows)
    for arch, line, want in rows:
        assert mc_encodings([line], arch)[0] == want, line
        assert _ours(line, arch) == want, line
        if want is not None:
            assert " ".join(disassemble(want, arch).split()) == " ".join(mc_disassembly([want], arch)[0].split())

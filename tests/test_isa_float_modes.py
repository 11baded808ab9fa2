"""isa.float_modes: which instructions MODE.FP_DENORM / MODE.FP_ROUND apply to, read from the
manuals' pseudocode; expected classes are the manual's descriptions of each instruction."""
import pytest

import isa
from isa.float_modes import float_modes

CASES = [  # (family, name, flushes, rounds, why)
    ("rdna3", "V_ADD_F32", True, True, "arithmetic"),
    ("rdna3", "V_FMA_F64", True, True, "arithmetic"),
    ("rdna3", "V_TRUNC_F32", True, False, "exact"),
    ("rdna3", "V_CEIL_F64", True, False, "exact"),
    ("rdna3", "V_RNDNE_F16", True, False, "exact"),
    ("rdna3", "V_MAX_F32", True, False, "exact"),
    ("rdna3", "V_MED3_F16", True, False, "exact"),
    ("rdna3", "V_FREXP_MANT_F32", True, False, "exact"),
    ("cdna3", "V_MIN_F32", True, False, "exact"),           # ends in a `c ? S0 : S1` selection
    ("rdna3", "V_CMP_LT_F32", True, False, "no float result"),
    ("rdna3", "V_CMP_CLASS_F32", False, False, "classifies"),
    ("rdna3", "V_PK_ADD_F16", False, False, "packed"),
    ("rdna3", "V_DOT2_F32_F16", False, False, "packed"),
    ("rdna3", "V_FMA_MIX_F32", False, False, "packed"),
    ("rdna3", "V_CVT_PK_RTZ_F16_F32", False, False, "packed"),
    ("rdna3", "V_WMMA_F32_16X16X16_F16", False, False, "matrix"),
    ("cdna3", "V_MFMA_F32_16X16X16_F16", False, False, "matrix"),
    ("rdna4", "V_INTERP_P10_RTZ_F16_F32", True, False, "own rounding"),
    ("rdna4", "V_INTERP_P10_F16_F32", True, True, "arithmetic"),
    # CDNA's legacy f16 forms write D0 = { 16'0, tmp.f16 }: tmp's assignments are f16 results
    # (CDNA3 pages 169 and 293, CDNA4 page 181: "Supports round mode" in the entries' notes)
    ("cdna3", "V_MAC_F16", True, True, "arithmetic"),
    ("cdna3", "V_MADMK_F16", True, True, "arithmetic"),
    ("cdna4", "V_MADAK_F16", True, True, "arithmetic"),
    ("cdna3", "V_MAD_LEGACY_F16", True, True, "arithmetic"),
    ("cdna4", "V_FMA_LEGACY_F16", True, True, "arithmetic"),
    ("cdna3", "V_DIV_FIXUP_LEGACY_F16", True, True, "arithmetic"),     # as V_DIV_FIXUP_F16
    # CDNA4 7.3 "Conversion from F32 supports MODE-based denormal control": scaled conversions
    # from f32 flush their f32 sources themselves, one of a register pair too (S0[31 : 0].f32,
    # S0[63 : 32].f32), no register as a whole (wave_state reads MODE.FP_DENORM.F32 for them)
    ("cdna4", "V_CVT_SCALEF32_SR_PK_FP4_F32", False, False, "scaled conversion"),
    ("cdna4", "V_CVT_SCALEF32_PK_FP8_F32", False, False, "scaled conversion"),
    ("cdna4", "V_CVT_SCALEF32_PK_FP8_F16", False, False, "packed"),
]


@pytest.mark.parametrize("family,name,flushes,rounds,why", CASES)
def test_float_modes_follow_the_pseudocode(family, name, flushes, rounds, why):
    d = next(d for d in isa.load(family).instructions if d.name == name)
    m = float_modes(d.pcode, d.description)
    assert (m.flushes, m.rounds, m.why) == (flushes, rounds, why)


# The name-substring tables the emulator used before isa.float_modes, kept here as a second
# opinion: on the emulator's families every instruction must get the same flushed operands and
# rounded widths from both, except where the pseudocode shows the names were wrong.
_OLD_DENORM_EXEMPT = ("_PK_", "DOT", "_MIX", "WMMA", "CLASS", "MFMA")
_OLD_ROUND_EXEMPT = ("_MIN", "_MAX", "MED3", "FLOOR", "CEIL", "TRUNC", "RNDNE", "FREXP", "CMP", "CLASS",
                     "CNDMASK", "MOV", "_RTZ", "_PK_", "DOT", "_MIX", "WMMA", "MFMA")
_KNOWN = {
    # 8-bit float conversions (FP8/BF8 <-> f32): an f32 denormal input is far below the smallest
    # FP8/BF8 value (0 flushed or not, SR included) and every FP8/BF8 value is a normal f32, exactly:
    # the facts' flush and round rules change no result (tests/test_emu_fp8_convert.py runs the
    # round field's directed modes)
    "V_CVT_PK_FP8_F32", "V_CVT_PK_BF8_F32", "V_CVT_F32_FP8", "V_CVT_F32_BF8",
    # results are a selection of +-S0/S1/S2 or a constant face id: exact, nothing to round
    "V_CUBEID_F32", "V_CUBESC_F32", "V_CUBETC_F32",
    # f32 -> 8/16-bit integer conversions: a denormal input converts to 0 flushed or not
    "V_CVT_PK_U8_F32", "V_CVT_PK_I16_F32", "V_CVT_PK_U16_F32",
    # S0[31 : 16].f16 is a half of the register, not an f32 (the old table flushed it as one)
    "S_CVT_HI_F32_F16",
    # CDNA's spelling of V_CVT_PK_NORM_* / V_CVT_PK_RTZ_F16_F32 escaped the "_PK_" substring: the
    # pseudocode (halves written by conversions) now treats them as RDNA's are, not flushed
    "V_CVT_PKNORM_I16_F32", "V_CVT_PKNORM_U16_F32", "V_CVT_PKNORM_I16_F16", "V_CVT_PKNORM_U16_F16",
    "V_CVT_PKRTZ_F16_F32",
    # CDNA's legacy v_mac_f16 reads D0.f16, the low half of the 32-bit D0 it writes: flushed as an
    # f16 under MODE.FP_DENORM's F16_F64 half (the old rule flushed nothing there; the emulator
    # once flushed the whole register as an f32, which tests/effects_check_mode.py found)
    "V_MAC_F16",
    # CDNA's legacy f16 forms write the f16 as bits of D0 (D0 = { 16'0, tmp.f16 }): rounded as
    # f16 results (isa.float_modes' bit_results), which the old width rule did not see
    "V_MADMK_F16", "V_MADAK_F16", "V_MAD_LEGACY_F16", "V_FMA_LEGACY_F16", "V_DIV_FIXUP_LEGACY_F16",
    # "Rounding is toward zero" (the RDNA3.5, RDNA4, CDNA3 and CDNA4 descriptions): its own
    # rounding, not MODE.FP_ROUND's
    "V_TRIG_PREOP_F64",
} | {  # CDNA4's scaled conversions (emu/README "Small floats with a scale"): the f32 conversions
    # flush their f32 sources themselves (isa.float_modes' scaled conversion), the scale is read
    # as its exponent bits, the results are codes or the conversion's own float values
    d.name for d in isa.load("cdna4").instructions if d.name.startswith("V_CVT_SCALEF32_")}


LEGACY_F16 = {"V_MAC_F16", "V_MADMK_F16", "V_MADAK_F16", "V_MAD_LEGACY_F16", "V_FMA_LEGACY_F16",
              "V_DIV_FIXUP_LEGACY_F16"}


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"])
def test_bit_results_are_the_concatenated_float_temporaries(family):
    """bit_results ('f16',) for exactly CDNA's six legacy f16 instructions (a concatenation with
    a part tmp.f16 assigned to D0), () for every other instruction of the five families."""
    held = {d.name for d in isa.load(family).instructions if float_modes(d.pcode, d.description).bit_results}
    assert held == (LEGACY_F16 if family.startswith("cdna") else set())
    for d in isa.load(family).instructions:
        if d.name in held:
            assert float_modes(d.pcode, d.description).bit_results == ("f16",)


ROUND_TYPES = [  # (family, name, the float types its packed code's arithmetic rounds)
    ("rdna3", "V_PK_ADD_F16", ("f16",)),           # D0[31 : 16].f16 = S0[31 : 16].f16 + S1[31 : 16].f16
    ("rdna3", "V_PK_FMA_F16", ("f16",)),
    ("rdna3", "V_DOT2_F32_F16", ("f32",)),         # tmp = 32'F(..) * 32'F(..); tmp += ...; tmp += S2.f
    ("rdna3", "V_DOT2_F16_F16", ("f16",)),         # tmp = S0[15 : 0].f16 * S1[15 : 0].f16; ...
    ("rdna3", "V_DOT2ACC_F32_F16", ("f32",)),      # D0.f += 32'F(..) * 32'F(..)
    ("rdna3", "V_FMA_MIX_F32", ("f32",)),          # fma(in[0], ...) of `declare in : 32'F[3]`
    ("rdna3", "V_FMA_MIXLO_F16", ("f16", "f32")),  # f32_to_f16(fma(in[0], in[1], in[2]))
    ("cdna3", "V_PK_ADD_F32", ("f32",)),           # tmp[31 : 0].f32 = S0[31 : 0].f32 + S1[31 : 0].f32
    ("cdna3", "V_PK_FMA_F32", ("f32",)),
    ("cdna3", "V_DOT2C_F32_F16", ("f32",)),
    ("cdna4", "V_MAD_MIXHI_F16", ("f16", "f32")),
    ("rdna3", "V_PK_MAX_F16", ()),                 # a selection: nothing rounded
    ("rdna3", "V_CVT_PK_RTZ_F16_F32", ()),         # ROUND_MODE = ROUND_TOWARD_ZERO: its own rounding
    ("cdna4", "V_CVT_PK_F16_F32", ()),             # ROUND_MODE = ROUND_NEAREST_EVEN: its own rounding
    ("rdna3", "V_CVT_PK_NORM_I16_F16", ()),        # integer results
    ("rdna3", "V_ADD_F32", ()),                    # not packed: its typed D0 is the rounded result
]


@pytest.mark.parametrize("family,name,types", ROUND_TYPES)
def test_packed_round_types_follow_the_pseudocode(family, name, types):
    d = next(d for d in isa.load(family).instructions if d.name == name)
    assert float_modes(d.pcode, d.description).round_types == types


def test_packed_round_types_are_declared_mode_reads():
    """isa.effects.wave_state declares MODE.FP_ROUND's half of each round type of packed code."""
    from isa.effects import wave_state
    rdna3, cdna3 = isa.load("rdna3"), isa.load("cdna3")
    reads = lambda spec, name: {f for f in wave_state(spec.lookup(name)[0]).reads if "FP_ROUND" in f}   # noqa: E731
    assert reads(rdna3, "v_pk_add_f16") == {"MODE.FP_ROUND.F16_F64"}
    assert reads(rdna3, "v_fma_mixlo_f16") == {"MODE.FP_ROUND.F16_F64", "MODE.FP_ROUND.F32"}
    assert reads(cdna3, "v_pk_fma_f32") == {"MODE.FP_ROUND.F32"}
    assert reads(rdna3, "v_cvt_pk_rtz_f16_f32") == set()


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"])
def test_float_modes_agree_with_the_old_name_tables(family):
    from emu.table import load_semantics
    table = load_semantics(family)
    floats = ("f16", "f32", "f64")
    checked, differ = 0, set()
    for d in table.spec.instructions:
        sem = table.get(d)
        if sem is None:
            continue
        checked += 1
        ops = list(sem.reads.values()) + list(sem.writes.values())
        plain = tuple((o.name, o.bits) for o in ops if o.type in floats and int(o.type[1:]) == o.bits)
        widths = tuple(sorted({o.bits for o in sem.writes.values() if o.type in floats and int(o.type[1:]) == o.bits}))
        old_flushed = () if sem.memory or any(p in sem.name for p in _OLD_DENORM_EXEMPT) else plain
        old_rounded = () if sem.memory or any(p in sem.name for p in _OLD_ROUND_EXEMPT) else widths
        if (old_flushed, old_rounded) != (sem.float_operands, sem.rounded_widths):
            differ.add(d.name)
    assert checked > 800
    assert differ <= _KNOWN, sorted(differ - _KNOWN)


# Before the description was read, the name suffix `_RTZ_F16_F32` marked the interpolation forms
# that round toward zero. Over every instruction of the five families the MODE rules
# (flushes, rounds) must be the same from the name rule and from the description; the reason
# may differ only where the description states round-toward-zero of an exact operation (v_trunc,
# s_trunc: "integer part ... using round toward zero semantics"), which rounds nothing either way,
# and V_TRIG_PREOP_F64, whose description says "Rounding is toward zero" (RDNA3.5, RDNA4, CDNA3,
# CDNA4; RDNA3's does not): MODE.FP_ROUND does not apply to it, which the name rule missed.
FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _by_old_name_rule(d):
    m = float_modes(d.pcode)
    if d.name.endswith("_RTZ_F16_F32") and m.why in ("no float result", "exact", "arithmetic"):
        return type(m)(True, False, "own rounding")
    return m


def test_round_toward_zero_from_the_description_agrees_with_the_old_name_rule():
    checked, why_differs, trig = 0, set(), set()
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            old, new = _by_old_name_rule(d), float_modes(d.pcode, d.description)
            checked += 1
            if d.name == "V_TRIG_PREOP_F64" and old != new:
                assert (old.rounds, new.rounds, new.why) == (True, False, "own rounding")
                assert "Rounding is toward zero" in d.description
                trig.add(family)
                continue
            assert (old.flushes, old.rounds) == (new.flushes, new.rounds), (family, d.name, old, new)
            if old.why != new.why:
                assert (old.why, new.why) == ("exact", "own rounding") and "TRUNC" in d.name, (family, d.name)
                why_differs.add((family, d.name))
    assert checked > 5000
    # rdna3.5/rdna4's S_TRUNC_F16/F32 and V_TRUNC_F16/F32/F64, CDNA3/CDNA4's V_TRUNC_*
    assert len({n for _, n in why_differs}) == 5, sorted(why_differs)
    assert trig == {"rdna3.5", "rdna4", "cdna3", "cdna4"}
    # and without the name the interpolation forms still round on their own, on every RDNA family
    for family in ("rdna3", "rdna3.5", "rdna4"):
        for name in ("V_INTERP_P10_RTZ_F16_F32", "V_INTERP_P2_RTZ_F16_F32"):
            d = next(d for d in isa.load(family).instructions if d.name == name)
            m = float_modes(d.pcode, d.description)
            assert (m.rounds, m.why) == (False, "own rounding"), (family, name)


def test_read_from_the_syntax_tree_not_the_lines():
    """The statements decide, not the text's lines or comments: a result written over two lines
    is still one exact selection, a comment naming ROUND_MODE sets nothing, a float operand read
    as a bit range inside a call is packed, and a compare of exponent() deep in a sum classifies."""
    assert float_modes("D0.f32 = S1.f32 > S0.f32 ?\n    S1.f32 : trunc(S0.f32)").why == "exact"
    assert float_modes("// ROUND_MODE = RTZ here\nD0.f32 = S0.f32 * S1.f32").why == "arithmetic"
    assert float_modes("D0.f32 = fma(S0[31 : 16].f16, S1.f32, 1.0)").why == "packed"
    assert float_modes("D0.u32 = 1 + exponent(S0.f32) == 255 ? 1 : 0").why == "classifies"
    assert float_modes("D0.f32 = S0.f32 + S1.f32;\nD0.f32 += 1.0").why == "arithmetic"
    assert float_modes("D0.f32 = floor(S0.f32);\nD0.f32 += 1.0").why == "exact"
    # a float temporary written as bits of D0: its assignments decide, its type is the fact's
    held = float_modes("tmp = S0.f16 * S1.f16;\nD0 = { 16'0, tmp.f16 }")
    assert (held.rounds, held.why, held.bit_results) == (True, "arithmetic", ("f16",))
    held = float_modes("tmp = trunc(S0.f16);\nD0 = { tmp.f16, 16'0 }")
    assert (held.rounds, held.why, held.bit_results) == (False, "exact", ("f16",))
    assert float_modes("tmp = S0.u16 + S1.u16;\nD0 = { 16'0, tmp.u16 }").why == "no float result"
    assert float_modes("D0 = { 16'0, S0.f16 }").bit_results == ()     # an operand's bits: a move

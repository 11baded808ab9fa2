"""The MODE and STATUS fields instructions read and write (isa.effects.wave_state), against the
manuals' words: the MODE table ("Round mode affects float ops in VALU, but not LDS or memory";
"Denorm mode affects float ops in: VALU, LDS-atomics (DS ops, not flat). Flat ... and memory
atomics ignore this mode"; FP_ROUND/FP_DENORM [1:0] single, [3:2] double and half precision),
the descriptions (s_round_mode "Set floating point round mode using an immediate constant",
v_cvt_pk_rtz "round toward zero semantics (ignore the current rounding mode)") and the code
(s_rfe's `WAVE_STATUS.PRIV = 1'0U`, v_max_f32's `if WAVE_MODE.IEEE then`). The generated
records agree with a fresh reading of every instruction's code (gen --check covers the files)."""
from __future__ import annotations

import pytest

import isa
from isa.effects import effects, mode_bits, wave_state

R32, R64 = "MODE.FP_ROUND.F32", "MODE.FP_ROUND.F16_F64"
D32, D64 = "MODE.FP_DENORM.F32", "MODE.FP_DENORM.F16_F64"
FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")


def _first(family: str, name: str, fmt: str | None = None):
    spec = isa.load(family)
    got = [d for d in spec.instructions if d.name == name and (fmt is None or d.format == fmt)]
    if not got:
        pytest.skip(f"{family} has no {name}")
    return got[0]


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name, reads, writes", [
    ("V_ADD_F32", {R32, D32}, set()),                      # f32 in, f32 rounded out
    ("V_ADD_F16", {R64, D64}, set()),                      # f16: the double/half halves
    ("V_FMA_F64", {R64, D64}, set()),
    ("V_CVT_F32_F16", {R32, D32, D64}, set()),             # an f16 input, an f32 result
    ("V_CVT_F16_F32", {R64, D32, D64}, set()),
    ("V_CMP_LT_F32", {D32}, set()),                        # no float result: nothing rounded
    ("V_TRUNC_F32", {D32}, set()),                         # exact: nothing to round
    ("V_CVT_PK_RTZ_F16_F32", set(), set()),                # "ignore the current rounding mode"
    ("V_PK_ADD_F16", {R64}, set()),                        # packed f16 halves: rounded (f16's half), not flushed
    ("V_DOT2_F32_F16", {R32}, set()),                      # f16 products, f32 sums: the f32 half
    ("V_ADD_NC_U32", set(), set()),                        # integer
    ("V_ADD_U32", set(), set()),
    ("BUFFER_ATOMIC_ADD_F32", set(), set()),               # "memory atomics ignore this mode"
    ("S_RFE_B64", set(), {"STATUS.PRIV"}),                 # WAVE_STATUS.PRIV = 1'0U
    ("S_TRAP", set(), {"STATUS.PRIV"}),
    ("S_GETREG_B32", {"HW_REGISTERS"}, set()),
    ("S_SETREG_B32", {"HW_REGISTERS", "STATUS.PRIV"}, {"HW_REGISTERS"}),   # writeableBitMask(.., PRIV)
    ("S_ROUND_MODE", set(), {"MODE.FP_ROUND"}),
    ("S_DENORM_MODE", set(), {"MODE.FP_DENORM"}),
])
def test_wave_state_as_the_manual_says(family, name, reads, writes):
    d = _first(family, name)
    got = wave_state(d)
    assert (set(got.reads), set(got.writes)) == (reads, writes), (family, d.name, d.format)


@pytest.mark.parametrize("family", ("rdna3", "rdna3.5", "cdna3", "cdna4"))
def test_min_max_read_ieee_mode_and_flush_but_do_not_round(family):
    got = wave_state(_first(family, "V_MAX_F32", "VOP2"))
    assert set(got.reads) == {"MODE.IEEE", D32}


@pytest.mark.parametrize("family", ("rdna3", "rdna3.5", "cdna3", "cdna4"))
def test_an_instruction_reads_the_mode_its_called_instructions_read(family):
    """v_pk_max_f16's code is two calls of v_max_f16, whose code tests WAVE_MODE.IEEE."""
    assert wave_state(_first(family, "V_PK_MAX_F16")).reads == {"MODE.IEEE"}


@pytest.mark.parametrize("family", ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"))
def test_lds_float_atomics_flush_as_mode_says(family):
    d = next(x for x in isa.load(family).instructions if x.name == "DS_ADD_F32")
    assert set(wave_state(d).reads) == {D32}


@pytest.mark.parametrize("family", ("cdna3", "cdna4"))
def test_the_branch_stack_pointer_is_mode_state(family):
    got = wave_state(_first(family, "S_CBRANCH_JOIN"))
    assert "MODE.CSP" in got.reads and "MODE.CSP" in got.writes       # WAVE_MODE.CSP -= 3'1U
    assert wave_state(_first(family, "S_SET_GPR_IDX_ON")).writes == {"MODE.GPR_IDX_EN"}


@pytest.mark.parametrize("family", FAMILIES)
def test_mode_bits_from_the_mode_table(family):
    spec = isa.load(family)
    assert mode_bits(spec, R32) == (1, 0) and mode_bits(spec, R64) == (3, 2)
    assert mode_bits(spec, D32) == (5, 4) and mode_bits(spec, D64) == (7, 6)
    if family != "rdna4":            # RDNA4's MODE has no IEEE bit
        assert mode_bits(spec, "MODE.IEEE") == (9, 9)
    with pytest.raises(KeyError, match="NO_SUCH"):
        mode_bits(spec, "MODE.NO_SUCH")


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_state_fields_match_a_fresh_reading(family):
    from isa.gen.effects import effects as fresh
    for d in isa.load(family).instructions:
        if d.pcode:
            want = fresh(d.pcode)
            got = effects(d.pcode)
            assert (got.state_reads, got.state_writes) == (want.state_reads, want.state_writes), d.name

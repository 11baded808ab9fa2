"""Which float operands of an instruction MODE.FP_DENORM flushes and whether MODE.FP_ROUND
rounds its float results, read from the instruction's pseudocode (RDNA3 manual "Denormalized
and Rounding Modes"; the same MODE fields on every family).

    from isa.float_modes import float_modes
    m = float_modes("D0.f = trunc(S0.f)")
    m.flushes      # True: its f32 operands are plain scalars, flushed as MODE says
    m.rounds       # False: trunc() is exact, MODE.FP_ROUND has nothing to round

What the pseudocode says, and what follows:
- *packed*: a float is read or written as a bit range of a register (`S0[31 : 16].f16`,
  `D0[15 : 0].f16`) or the sources are an array (`S[i]`, v_fma_mix): the registers hold
  packed halves or mixed formats, not one float of the register's width (v_pk_*, v_dot*,
  v_cvt_pk_*, v_fma_mix*). Neither flushed as whole registers nor rounded by MODE here.
- *matrix*: the operands are (MxN) matrices (WMMA, MFMA/SMFMAC): the matrix core applies the
  manual's own per-variant rules (emu/handwritten/). Neither flushed nor rounded by MODE.
- *classifies*: the pseudocode tests `exponent(x)` against a bound and writes no float:
  it reports the class of its float source (v_cmp_class), which a flushed input would change.
  Not flushed (rounding does not arise: no float result).
- *own rounding*: the pseudocode sets ROUND_MODE itself (v_cvt_pk_rtz: toward zero), or the
  description says the instruction rounds toward zero (v_interp_*_rtz_*, v_trunc_*).
- *exact*: every float result is a selection (a source, a quieted NaN, a constant), an
  exact function (trunc, floor, mantissa, another min/max/med instruction) or an integral
  step after one (`D0 += 1.0` in ceil): min/max/med3, floor/ceil/trunc/rndne, frexp_mant.
  MODE.FP_ROUND has nothing to round.
An instruction without float results (compares, moves, integer ops) rounds nothing either.

The generator reads every instruction so once (isa/gen/facts.py); processes read the committed
answers through isa.facts.float_modes(d) and do not import this module."""
from __future__ import annotations

import re
from functools import lru_cache

from .facts import FloatModes

_FLOAT_TYPE = r"(?:f|f16|f32|f64|bf16)"
# a float read or written as a bit range of a register, or the sources as an array
_PACKED = re.compile(r"\bS\d\s*\[\s*\d+\s*:\s*\d+\s*\]\s*\.\s*(?:b?f|fp)\w*|\bS\s*\[\s*i\s*\]|"
                     r"\b(?:D\d|tmp)\s*\[\s*\d+\s*:\s*\d+\s*\]\s*\.\s*\w+\s*=(?!=)\s*\w+\s*\(")
_MATRIX = re.compile(r"\(\s*\d+\s*x\s*\d+\s*\)")
_EXPONENT_TEST = re.compile(r"\bexponent\s*\([^()]*\)\s*(?:[<>]=?|==|!=)")
_FLOAT_RESULT = re.compile(r"^\s*(D\d)\s*\.\s*" + _FLOAT_TYPE + r"\s*(\+=|-=|=)(?!=)\s*(.*?)\s*;?\s*$")
_ANY_FLOAT_RESULT = re.compile(r"\bD\d\s*(?:\[[^\]]*\])?\s*\.\s*" + _FLOAT_TYPE + r"\s*(?:\+=|-=|\*=|=)(?!=)")
_OWN_ROUNDING = re.compile(r"\bROUND_MODE\s*=(?!=)")
# pseudocode functions whose result is exactly representable: no rounding happens in them
_EXACT_CALLS = ("trunc", "floor", "mantissa", "cvtToQuietNAN", "v_min", "v_max", "v_med")
_CAST = re.compile(r"^\d+'[FBUI]\((.*)\)$")
_OPERAND = re.compile(r"^[+-]?(?:S\d|D\d)\s*\.\s*" + _FLOAT_TYPE + r"$")
_CONSTANT = re.compile(r"^[+-]?(?:\d+')?(?:\d+(?:\.\d+)?F?|INF|NAN)$")


def _arms(rhs: str) -> tuple[str, str] | None:
    """The two values of a top-level `cond ? a : b`, or None."""
    depth, q = 0, None
    for i, c in enumerate(rhs):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == "?" and q is None:
            q = i
        elif depth == 0 and c == ":" and q is not None:
            return rhs[q + 1:i], rhs[i + 1:]
    return None


# The description states a rounding of the instruction's own where its pseudocode does not:
# RDNA3.5/RDNA4's V_INTERP_P10/P2_RTZ_F16_F32 ("using round toward zero semantics") are the same
# fma as the non-RTZ forms in code; RDNA3 gives them no code ("Same as V_INTERP_P10_F16_F32 except
# rounding mode is overridden to round toward zero").
_RTZ_DESCRIPTION = re.compile(r"\bround(?:ing)?\b[^.]*?\btoward zero", re.I)


def _exact(rhs: str, op: str) -> bool:
    rhs = rhs.strip()
    if op != "=":                        # an integral step after an exact value (ceil, floor, rndne)
        return bool(_CONSTANT.match(rhs.replace(" ", "")))
    while (m := _CAST.match(rhs.replace(" ", ""))) is not None:
        rhs = m.group(1)
    compact = rhs.replace(" ", "")
    if _OPERAND.match(compact) or _CONSTANT.match(compact):
        return True
    arms = _arms(rhs)
    if arms is not None:
        return all(_exact(arm, "=") for arm in arms)
    call = re.match(r"^(\w+)\s*\(", rhs)
    return call is not None and call.group(1).startswith(_EXACT_CALLS)


@lru_cache(maxsize=None)
def float_modes(pcode: str | None, description: str | None = None) -> FloatModes:
    """The MODE float rules for the instruction whose pseudocode is `pcode` and whose manual
    description is `description` (module docstring)."""
    text = re.sub(r"//[^\n]*", "", pcode or "")
    if _MATRIX.search(text):
        return FloatModes(False, False, "matrix")
    if _PACKED.search(text):
        return FloatModes(False, False, "packed")
    float_result = bool(_ANY_FLOAT_RESULT.search(text))
    if not float_result and _EXPONENT_TEST.search(text):
        return FloatModes(False, False, "classifies")
    if _OWN_ROUNDING.search(text) or _RTZ_DESCRIPTION.search(description or ""):
        return FloatModes(True, False, "own rounding")
    if not float_result:
        return FloatModes(True, False, "no float result")
    assignments = [m for line in re.split(r";|\n", text) if (m := _FLOAT_RESULT.match(line))]
    if assignments and all(_exact(m.group(3), m.group(2)) for m in assignments) \
            and len(assignments) == len(_ANY_FLOAT_RESULT.findall(text)):
        return FloatModes(True, False, "exact")
    return FloatModes(True, True, "arithmetic")

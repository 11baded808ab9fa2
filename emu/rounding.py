"""Directed rounding (MODE.FP_ROUND toward +inf, -inf or zero) of the float operations whose
correctly rounded result the manuals' pseudocode defines: add, sub, mul, fma, the conversions to
a narrower float (f32 -> f16, f64 -> f32, f32 -> bf16, and from 16/32-bit integers), ldexp (a
power-of-two scale: exact but for denormal and overflowing results) and a quotient the code
only classifies (v_div_scale's `S2.f32 / S1.f32 == DENORM.f32`), at f16, f32, f64 and bf16.

numpy rounds to nearest even. Each modelled operation (rtlib.fadd, fsub, fmul, fma, ldexp, power,
fdiv and the conversions) computes that result r as always; while a semantic runs under a MODE
whose round field for r's width is not 0 (Semantic.execute sets `ROUNDING` to the batch's MODE),
the sign of the exact error (exact - r) is found per lane and r is stepped one ulp
(np.nextafter; bf16 by its bits) where the mode and that sign require it:
- toward +inf where exact > r, toward -inf where exact < r, toward zero where |exact| < |r|.
  A finite result RNE rounded to an infinity steps back to the largest finite value, and one RNE
  rounded to the largest finite value steps on to the infinity, as IEEE 754's directed rules say.
- the sign of the error: a float64 value s of the exact result rounded (any monotone rounding) with
  its error term t (exact = s + t): exact > r iff s > r, or s == r and t > 0 (r is a float64
  too). f16/f32 operands in float64: a product is exact, a sum exact as s + t by TwoSum.
  f64: TwoSum, Dekker's exact product inside the range where its parts neither overflow nor
  underflow, else exact rationals for that lane; the f64 fma as the four doubles p + e + c - r
  (Dekker's p + e = a * b) whose sum's sign TwoSum passes settle (`_sum_sign`), exact rationals
  for the lanes left (switch fma64_transforms off: every lane).
  ldexp: |x| * 2**n against |r| by binade and mantissa (np.frexp), exact. A quotient a / b
  against r by the sign of the residual a - r * b (exact in float64 from f16/f32 operands; from
  f64 by Dekker's product where a - r * b is exact, else exact rationals).
- an exact zero sum (x + (-x), +0 + -0, an fma whose product cancels its addend) is -0 under
  round toward -inf unless both addends are +0 (IEEE 754 6.3); +0 otherwise, as numpy gives.
Denormal results are rounded by the same rule (gradual underflow); MODE.FP_DENORM's flush of
outputs applies afterwards (Semantic.execute), its flush of inputs before. bf16 results round by
the 16-bit field (MODE[3:2]), as AMD's rocJITsu emulator rounds gfx1250's bf16 results (ROCm
rocm-systems pull 10913); no manual names their field.

Which instructions are modelled: `directed_code(source)`: every function their generated code
calls is one of DIRECTED (honour the mode) or EXACT (never round a float, or refuse a narrowing
under a directed mode: `refuse_narrowing`), and every divide is one the code only classifies
(`R.is_denorm(R.fdiv(...))`). Any other (a divide that is a result: v_rcp's `1.0 / S0.f`, sqrt,
pow, log, sin, cos, another instruction, ...) leaves the instruction refused under a directed
mode with the error naming the mode (Semantic.execute): those describe the hardware's
approximations (v_rcp, v_rsq, v_sqrt, v_exp, v_log, v_sin, v_cos are not correctly rounded: the
manuals give their accuracy in ulps), whose directed results the manuals do not define. Hand-written
semantics name the rtlib functions they round through (`directed_calls`)."""
from __future__ import annotations

import contextvars
import math
import re
from fractions import Fraction

import numpy as np

from .options import current

# MODE of the batch (an int, or uint32 (W, 1) per wave) while a modelled semantic runs under a
# directed mode; None otherwise (round to nearest even: the operations' usual path).
ROUNDING = contextvars.ContextVar("emu_rounding", default=None)

# MODE.FP_ROUND (MODE[3:0], every manual's MODE table): [1:0] for f32, [3:2] for f64 and f16.
ROUND_FIELD_LO = {32: 0, 16: 2, 64: 2}
MODES = ("to nearest even", "toward +infinity", "toward -infinity", "toward zero")

# rtlib functions that round a float result as MODE.FP_ROUND says (under ROUNDING)
DIRECTED = frozenset({"fadd", "fsub", "fmul", "fma", "f32_to_f16", "f64_to_f32", "f64_to_f16", "f32_to_bf16",
                      "i32_to_f32", "u32_to_f32", "i16_to_f16", "u16_to_f16", "i32_to_f16", "u32_to_f16",
                      "ldexp", "power", "fdiv"})
# rtlib functions that never round a float (bit moves, integer arithmetic, exact float functions,
# widening conversions), or refuse to (store/F/result_bits narrowing a float: refuse_narrowing)
EXACT = frozenset({
    "operand", "access", "store", "float_into", "result_bits", "raw", "U64", "U", "I", "F", "AND", "where",
    "select", "truth", "pick", "concat", "split", "bits_of", "set_bits", "cast_int", "sign_extend", "owned",
    "u32", "field32", "set_field", "into", "take_dest", "shl", "shr", "shl32", "shr32", "lane_bit",
    "lane_id", "loop_bound", "mode_field", "status_field", "isNAN", "isQuietNAN", "isSignalNAN", "isINF",
    "is_denorm", "isEven", "cvtToQuietNAN", "fabs", "sign", "exponent", "mantissa", "FLOAT", "CONSTANTS",
    "f16_to_f32", "f32_to_f64", "f16_to_f64", "i32_to_f64", "u32_to_f64", "i16_to_f32", "u16_to_f32",
    "bf16_to_f32", "fp8_to_f32", "bf8_to_f32", "float32", "vgpr_read", "np.int64", "np.uint32", "np.uint64", "np.int32", "active",
    "floor", "trunc", "wide", "two_over_pi_bits"})
# rtlib.fdiv where the code only classifies the quotient (v_div_scale: `S2.f32 / S1.f32 == DENORM.f32`)
_CLASSIFIED_DIVIDE = "R.is_denorm(R.fdiv("


def directed_code(source: str) -> bool:
    """Whether generated code (emu/pcode's Python source) rounds only through DIRECTED functions:
    every `R.name` it uses is in DIRECTED or EXACT, every divide is classified only (a quotient
    written as a result is the hardware's reciprocal, not correctly rounded), and it calls no
    other instruction."""
    if "INSTRUCTIONS" in source or source.count("R.fdiv(") != source.count(_CLASSIFIED_DIVIDE):
        return False
    names = set(re.findall(r"\b(?:R|F8)\.(\w+)", source)) | {"np." + n for n in re.findall(r"\bnp\.(\w+)", source)}
    return names <= DIRECTED | EXACT


def directed_calls(names) -> bool:
    """Whether a hand-written semantic that rounds only through the rtlib functions `names` is
    modelled (each DIRECTED or EXACT)."""
    return set(names) <= DIRECTED | EXACT


def field(bits: int):
    """The round field (0..3, int or uint32 (W, 1)) for results of `bits` bits while a directed
    mode is in force, or None (round to nearest even everywhere)."""
    mode = ROUNDING.get()
    if mode is None:
        return None
    f = (mode >> ROUND_FIELD_LO[bits]) & 3
    if isinstance(f, (int, np.integer)):
        return int(f) or None
    return f if f.any() else None


class NotModelled(Exception):
    """A rounding under a directed mode that the modelled operations do not cover (raised while
    the semantic runs; Semantic.execute reports it as a SemanticsError naming the instruction)."""


def refuse_narrowing(value, narrowed, bits: int) -> None:
    """A float narrowed outside a DIRECTED function (the pseudocode's implicit conversion when it
    stores an f32 into an f16 result, v_fma_mixlo_f16, or `16'F(...)`) under a directed mode of
    either field: refused when the narrowing rounds some value (a second rounding after a directed
    one, which the hardware's single rounding would not make; an exact narrowing, a constant such
    as 0.5, is fine)."""
    mode = ROUNDING.get()
    if mode is None or not np.any(np.asarray(mode) & 0xF):
        return
    value = np.asarray(value)
    back = np.asarray(narrowed).astype(value.dtype)
    if np.any((back != value) & ~np.isnan(value)):
        raise NotModelled(f"MODE.FP_ROUND asks a directed rounding (MODE[3:0] = {int(np.max(np.asarray(mode) & 0xF))}) "
                          f"and the pseudocode narrows a {value.dtype.itemsize * 8}-bit float to {bits} bits outside "
                          f"add, sub, mul, fma and the conversions (a second rounding), which the emulator does not "
                          f"model")


# ---------------------------------------------------------------- stepping the nearest-even result

def _step(r: np.ndarray, above, below, f, zero_neg=None) -> np.ndarray:
    """r stepped one ulp where the directed mode `f` (1 up, 2 down, 3 toward zero; 0 keeps r)
    and the exact result's side of r (above: exact > r, below: exact < r) require it; exact
    zero sums made -0 under round down where `zero_neg` says the addends ask it."""
    r = np.asarray(r)
    f = np.asarray(f)
    up = (f == 1) & above | (f == 3) & above & (r < 0)
    down = (f == 2) & below | (f == 3) & below & (r > 0)
    out = r
    if up.any():
        out = np.where(up, np.nextafter(r, r.dtype.type(np.inf)), out)
    if down.any():
        out = np.where(down, np.nextafter(r, r.dtype.type(-np.inf)), out)
    if zero_neg is not None:
        neg = zero_neg & (f == 2) & (r == 0) & ~above & ~below
        if neg.any():
            out = np.where(neg, r.dtype.type(-0.0), out)
    return np.asarray(out, r.dtype)


def _sides(s, t, r):
    """(exact > r, exact < r) for exact = s + t, s the float64 exact result rounded monotonically
    (t its error, or None when s is exact), r the result (a float64 value). NaN: neither."""
    r64 = np.asarray(r).astype(np.float64)
    above, below = s > r64, s < r64
    if t is not None:
        same = s == r64
        above = above | same & (t > 0)
        below = below | same & (t < 0)
    return above, below


def two_sum(x, y):
    """s + e == x + y exactly, s = x + y rounded to nearest (Knuth)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


_VELTKAMP = 2.0 ** 27 + 1      # splits a double into two halves of at most 26 significant bits
_SAFE = (2.0 ** -450, 2.0 ** 450)      # |a|, |b| here: Dekker's product has no intermediate under/overflow


def two_product(x, y):
    """p + e == x * y exactly, p = x * y rounded to nearest (Dekker, Veltkamp splitting)."""
    p = x * y
    t = _VELTKAMP * x
    xh = t - (t - x)
    xl = x - xh
    t = _VELTKAMP * y
    yh = t - (t - y)
    yl = y - yh
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def _exact_sides(exact_of, r, lanes, above, below):
    """Fill (above, below) at the flat indices `lanes` from exact rationals: exact_of(i) is the
    exact result of lane i (a Fraction), compared with r there (an infinity: the exact finite
    result lies inside it)."""
    rf = r.reshape(-1)
    a, b = above.reshape(-1), below.reshape(-1)
    for i in lanes:
        q, v = exact_of(i), float(rf[i])
        if math.isinf(v):
            a[i], b[i] = v < 0, v > 0
        else:
            d = q - Fraction(v)
            a[i], b[i] = d > 0, d < 0


# ---------------------------------------------------------------- the operations

def add(a, b, r, f, negate: bool = False):
    """r = a + b (a - b with negate) rounded to nearest even, stepped for directed mode f."""
    a, b = np.asarray(a), np.asarray(b)
    if negate:
        b = -b
    a, b, r = np.broadcast_arrays(a, b, np.asarray(r))
    if r.dtype == np.float64:
        s, t = two_sum(a, b)
        above, below = t > 0, t < 0
        finite_ops = np.isfinite(a) & np.isfinite(b)
        over = np.isinf(r) & finite_ops
        above, below = above | over & (r < 0), below | over & (r > 0)
        rare = np.flatnonzero(finite_ops & np.isfinite(r) & ~np.isfinite(t))
        if rare.size:           # a spurious overflow inside TwoSum (operands near the largest double)
            above, below = above.copy(), below.copy()
            af, bf = a.reshape(-1), b.reshape(-1)
            _exact_sides(lambda i: Fraction(float(af[i])) + Fraction(float(bf[i])), r, rare, above, below)
    else:
        s, t = two_sum(a.astype(np.float64), b.astype(np.float64))   # no overflow from f16/f32 operands
        above, below = _sides(s, t, r)
    return _step(r, above, below, f, np.signbit(a) | np.signbit(b))


def mul(a, b, r, f):
    a, b, r = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(r))
    if r.dtype != np.float64:           # the float64 product of f16/f32 operands is exact
        return _step(r, *_sides(a.astype(np.float64) * b.astype(np.float64), None, r), f)
    p, t = two_product(a, b)
    exact = (a == 0) | (b == 0) | ~np.isfinite(a) | ~np.isfinite(b)    # 0, inf or NaN: nothing rounded
    lo, hi = _SAFE
    ma, mb = np.abs(a), np.abs(b)
    safe = (ma >= lo) & (ma <= hi) & (mb >= lo) & (mb <= hi)
    above, below = (t > 0) & safe & ~exact, (t < 0) & safe & ~exact
    rare = np.flatnonzero(~exact & ~safe)
    if rare.size:
        af, bf = a.reshape(-1), b.reshape(-1)
        _exact_sides(lambda i: Fraction(float(af[i])) * Fraction(float(bf[i])), r, rare, above, below)
    return _step(r, above, below, f)


def fma(a, b, c, r, f):
    a, b, c, r = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c), np.asarray(r))
    zero_neg = np.signbit(a) ^ np.signbit(b) | np.signbit(c)
    if r.dtype != np.float64:
        p = a.astype(np.float64) * b.astype(np.float64)       # exact
        s, t = two_sum(p, c.astype(np.float64))             # no overflow from f16/f32 operands
        return _step(r, *_sides(s, t, r), f, zero_neg)
    above, below = np.zeros(r.shape, bool), np.zeros(r.shape, bool)
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (a != 0) & (b != 0) & ~np.isnan(r)
    if not finite.any():
        return _step(r, above, below, f, zero_neg)
    lanes = finite
    if current().fma64_transforms:
        known, above, below = _fma64_sides(a, b, c, r, finite)
        lanes = finite & ~known
    lanes = np.flatnonzero(lanes)
    if lanes.size:
        af, bf, cf = a.reshape(-1), b.reshape(-1), c.reshape(-1)
        _exact_sides(lambda i: Fraction(float(af[i])) * Fraction(float(bf[i])) + Fraction(float(cf[i])),
                     r, lanes, above, below)
    return _step(r, above, below, f, zero_neg)


_BIG = 2.0 ** 1000          # sums of a few doubles below this never overflow inside TwoSum


def _fma64_sides(a, b, c, r, finite):
    """(known, exact > r, exact < r) of f64 fma lanes (exact = a * b + c, r its nearest-even
    double): a * b = p + e by Dekker's product where |a|, |b| lie in _SAFE (neither part over-
    or underflows), so exact - r = p + e + c - r, a sum of four doubles whose sign
    `_sum_sign` finds by error-free TwoSum passes; a finite result rounded to an infinity lies
    beyond the exact value. Lanes left unknown (operands outside the ranges, a sum whose sign
    three passes do not settle) go to exact rationals."""
    lo, hi = _SAFE
    ma, mb = np.abs(a), np.abs(b)
    inf = finite & np.isinf(r)
    usable = finite & ~inf & (ma >= lo) & (ma <= hi) & (mb >= lo) & (mb <= hi) & (np.abs(c) <= _BIG) \
        & (np.abs(r) <= _BIG)
    zero = np.zeros(r.shape)
    a0, b0, c0, r0 = (np.where(usable, x, zero) for x in (a, b, c, r))
    p, e = two_product(a0, b0)
    sign, settled = _sum_sign([e, c0, -r0, p])
    known = usable & settled | inf
    above = usable & settled & (sign > 0) | inf & (r < 0)
    below = usable & settled & (sign < 0) | inf & (r > 0)
    return known, above, below


def _sum_sign(terms, passes: int = 3):
    """(sign, settled) of the exact sum of float64 arrays `terms` (finite, small enough that no
    partial sum overflows): each pass runs TwoSum along the terms (VecSum: the last term becomes
    the running sum, the others its exact errors, the total unchanged); a lane is settled once
    the errors' magnitudes, summed with room for that sum's own rounding, fall below the last
    term's (its sign is the total's), or all terms are zero (sign 0)."""
    t = list(terms)
    shape = t[0].shape
    sign = np.zeros(shape, np.int8)
    settled = np.zeros(shape, bool)
    for _ in range(passes):
        for i in range(len(t) - 1):
            t[i + 1], t[i] = two_sum(t[i], t[i + 1])
        top = t[-1]
        rest = np.abs(t[0])
        for x in t[1:-1]:
            rest = rest + np.abs(x)
        done = ~settled & (rest * (1 + 2.0 ** -48) < np.abs(top))
        sign = np.where(done, np.sign(top), sign).astype(np.int8)
        settled |= done | (top == 0) & (rest == 0)
        if settled.all():
            break
    return sign, settled


def convert(x, r, f):
    """r = x converted to a narrower float (x a float, or an integer of at most 32 bits: exact
    in float64), stepped for directed mode f."""
    x = np.asarray(x)
    return _step(r, *_sides(x.astype(np.float64), None, r), f)


def ldexp(x, n, r, f):
    """r = x * 2**n rounded to nearest even (exact unless denormal or past the largest finite:
    n an int array or int, saturated to int32 by rtlib.ldexp), stepped for directed mode f.
    |exact| against |r| by (binade, mantissa) from np.frexp, both exact."""
    x, n, r = np.broadcast_arrays(np.asarray(x), np.asarray(n), np.asarray(r))
    live = np.isfinite(x) & (x != 0) & ~np.isnan(r)
    if not live.any():
        return r
    mx, ex = np.frexp(np.abs(x))
    mr, er = np.frexp(np.abs(r))
    big, ebig = ex.astype(np.int64) + n.astype(np.int64), er.astype(np.int64)
    zero, inf = r == 0, np.isinf(r)
    larger = ((big > ebig) | (big == ebig) & (mx > mr) | zero) & ~inf & live          # |exact| > |r|
    smaller = ((big < ebig) | (big == ebig) & (mx < mr)) & ~zero & live | inf & live
    neg = np.signbit(x)
    return _step(r, np.where(neg, smaller, larger), np.where(neg, larger, smaller), f)


def div(a, b, r, f):
    """r = a / b rounded to nearest even, stepped for directed mode f: exact > r iff the
    residual a - r * b has b's sign (r finite); an overflow to infinity lies beyond the exact."""
    a, b, r = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(r))
    live = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0) & ~np.isnan(r)
    if not live.any():
        return r
    inf = np.isinf(r)
    rr = np.where(inf, 0, r).astype(np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if r.dtype != np.float64:           # r * b exact in float64 from f16/f32 values; the difference's sign right
        resid = a64 - rr * b64
        pos, neg = resid > 0, resid < 0
    else:
        p, e = two_product(rr, b64)
        s, t = two_sum(a64, -p)       # a - r * b = s + t - e; exact where t == 0 (r * b near a: Sterbenz)
        lo, hi = _SAFE
        mr, mb = np.abs(rr), np.abs(b64)
        sure = (t == 0) & (mr >= lo) & (mr <= hi) & (mb >= lo) & (mb <= hi) & np.isfinite(p)
        pos, neg = sure & (s > e), sure & (s < e)
        rare = np.flatnonzero(live & ~inf & ~sure)
        if rare.size:
            above, below = np.zeros(r.shape, bool), np.zeros(r.shape, bool)
            af, bf = a64.reshape(-1), b64.reshape(-1)
            _exact_sides(lambda i: Fraction(float(af[i])) / Fraction(float(bf[i])), r, rare, above, below)
            bneg = np.signbit(b64)
            pos = pos | np.where(bneg, below, above)      # mapped back to the residual's sign below
            neg = neg | np.where(bneg, above, below)
    bneg = np.signbit(b64)
    above = np.where(bneg, neg, pos) & live & ~inf | inf & live & (r < 0)
    below = np.where(bneg, pos, neg) & live & ~inf | inf & live & (r > 0)
    return _step(r, above, below, f)


def to_bf16(x, bits, f):
    """bf16 bits (uint64) of f32 x rounded to nearest even, stepped for directed mode f (bf16 is
    f32's upper half: the neighbours of a value are its bits +- 1 by sign; a finite x rounded to
    an infinity steps back to the largest finite value, as for every width)."""
    x = np.asarray(x, np.float32)
    bits = np.asarray(bits)
    x, bits = np.broadcast_arrays(x, bits)
    rv = (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    above, below = x > rv, x < rv          # NaN: neither
    f = np.asarray(f)
    up = (f == 1) & above | (f == 3) & above & (rv < 0)
    down = (f == 2) & below | (f == 3) & below & (rv > 0)
    if not (up.any() or down.any()):
        return bits
    one = np.uint64(1)
    neg = (bits & np.uint64(0x8000)) != 0
    mag0 = (bits & np.uint64(0x7FFF)) == 0
    b = bits.astype(np.uint64)
    # toward +inf: +x -> +1; -0 -> smallest positive; -x -> -1.  toward -inf mirrored.
    upv = np.where(neg, np.where(mag0, one, b - one), b + one)
    downv = np.where(neg, b + one, np.where(mag0, np.uint64(0x8001), b - one))
    return np.where(up, upv, np.where(down, downv, b)) & np.uint64(0xFFFF)

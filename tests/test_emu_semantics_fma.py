"""v_fma_f64 and v_fma_f16 (one rounding of a * b + c) against exact rationals: Python's
Fraction products and sums, rounded to nearest-even by an independent routine, on random
operands plus cases built so that rounding twice goes wrong (the product cancelling c,
c placing the product's low half on a half ulp, exactly representable midpoints) and
extreme magnitudes (subnormal, near overflow, infinities, NaN, signed zeros)."""
from fractions import Fraction

import numpy as np
import pytest

from emu import rtlib
from emu.semantics import Ctx
from emu.table import load_semantics

TABLE = load_semantics("gfx1100")
W, L = 4, 32
rng = np.random.default_rng(31337)


def execute(name, a, b, c, uint, into_s1=False):
    """D0 of the semantic; into_s1: offered S1's own array as the destination (Ctx.dest), as
    the machine does for `v_fma_f32 v2, v1, v2, v3` (the result must then be computed there)."""
    sem = TABLE.lookup(name)
    shape = (-1, L)
    inputs = {f"S{i}": np.asarray(x).view(uint).reshape(shape).astype(np.uint32 if uint != np.uint64 else uint)
              for i, x in enumerate((a, b, c))}
    ctx = Ctx(lanes=L, exec_mask=np.full((inputs["S0"].shape[0], 1), (1 << L) - 1, np.uint64), inputs=inputs,
              mode=0x3F0, dest={"D0": inputs["S1"]} if into_s1 else None)
    d0 = sem.execute(ctx)["D0"]
    assert not into_s1 or d0 is inputs["S1"]
    return np.asarray(d0).astype(uint).reshape(-1)


def round_to(q: Fraction, mant: int, emin: int, emax: int) -> float:
    """q rounded to nearest-even in a binary format with `mant` fraction bits, normal exponents
    emin..emax and gradual underflow; +-inf past the largest finite value plus half an ulp."""
    if q == 0:
        return 0.0
    sign, q = (-1 if q < 0 else 1), abs(q)
    e = max(q.numerator.bit_length() - q.denominator.bit_length(), emin)
    while Fraction(2) ** e > q and e > emin:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - mant)
    n, rem = divmod(q, ulp)
    if rem * 2 > ulp or (rem * 2 == ulp and n % 2 == 1):
        n += 1
    value = n * ulp
    if value >= Fraction(2) ** (emax + 1):
        return sign * float("inf")
    return sign * float(value)


def reference(a, b, c, mant, emin, emax, dtype):
    out = []
    for x, y, z in zip(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)):
        with np.errstate(all="ignore"):
            ieee = dtype(np.float64(x) * np.float64(y) + np.float64(z)) if dtype != np.float64 else x * y + z
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z) and np.isfinite(x * y)) and dtype == np.float64:
            out.append(ieee)          # infinities and NaN follow IEEE arithmetic
            continue
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            out.append(ieee)
            continue
        q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        out.append(ieee if q == 0 else round_to(q, mant, emin, emax))   # exact zero: IEEE's sign rule
    return np.array(out, dtype)


def check(got_bits, want, uint):
    ok = (got_bits == want.view(uint)) | (np.isnan(got_bits.view(want.dtype)) & np.isnan(want))
    assert ok.all(), f"{ok.size - ok.sum()} wrong, first: got {got_bits.view(want.dtype)[~ok][:4]} want {want[~ok][:4]}"


def magnitudes(n, lo, hi):
    return np.ldexp(rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n), rng.integers(lo, hi, n))


@pytest.fixture(params=["whole", "blocks"])
def blocks(request, monkeypatch):
    """Large batches run in blocks of waves (rtlib._BLOCK lanes): force that path too."""
    if request.param == "blocks":
        monkeypatch.setattr(rtlib, "_BLOCK", L // 2)


def test_fma_f64_single_rounding(blocks):
    n = W * L * 6
    a, b, c = magnitudes(n, -40, 40), magnitudes(n, -40, 40), magnitudes(n, -40, 40)
    k = n // 6
    c[:k] = -(a[:k] * b[:k]) * (1 + rng.integers(-3, 4, k) * 2.0 ** -52)       # cancellation
    exp = np.frexp(a[k:2 * k] * b[k:2 * k])[1]
    c[k:2 * k] = np.ldexp(rng.choice([-1.0, 1.0], k), exp + rng.integers(51, 56, k))   # low half near a half ulp
    short = lambda m: np.ldexp(1 + rng.integers(0, 2 ** 27, m) * 2.0 ** -27, rng.integers(-4, 4, m))
    a[2 * k:3 * k], b[2 * k:3 * k] = short(k), short(k)                          # exact midpoints
    c[2 * k:3 * k] = np.ldexp(rng.integers(-2 ** 20, 2 ** 20, k).astype(np.float64), rng.integers(-60, 4, k))
    # (1 + i d)(1 - i d) 2**s = 2**s - i*i d*d 2**s, d = 2**-52, lands a half ulp above c = 1 + odd d: the
    # sum ties in double precision, and only the last 2**-157-sized part says which way to round
    i, s, sign = rng.integers(1, 8, k), rng.integers(-20, 20, k), rng.choice([-1.0, 1.0], k)
    a[5 * k:], b[5 * k:] = sign * np.ldexp(1 + i * 2.0 ** -52, s), np.ldexp(1 - i * 2.0 ** -52, -53)
    c[5 * k:] = sign * np.ldexp(1 + (2 * rng.integers(0, 4, k) + 1) * 2.0 ** -52, s)
    a[3 * k:4 * k], b[3 * k:4 * k], c[3 * k:4 * k] = (magnitudes(k, -1074, 1024) for _ in range(3))   # extremes
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.7976931348623157e308,
                        2.0 ** -1022, 1.0, -1.0, 2.0 ** 600, 2.0 ** -600])
    for x in (a, b, c):
        x[4 * k:5 * k] = rng.choice(special, k)
    with np.errstate(all="ignore"):
        naive = a * b + c
    want = reference(a, b, c, 52, -1022, 1023, np.float64)
    assert (naive[:3 * k] != want[:3 * k]).sum() > k // 4          # the built cases are hard
    assert (naive[5 * k:] != want[5 * k:]).all()
    check(execute("v_fma_f64", a, b, c, np.uint64), want, np.uint64)


def test_fma_f16_single_rounding(blocks):
    n = W * L * 4
    f16 = lambda m, lo, hi: magnitudes(m, lo, hi).astype(np.float16)
    a, b, c = f16(n, -8, 8), f16(n, -8, 8), f16(n, -8, 8)
    k = n // 4
    u, e = 2.0 ** -10, rng.integers(-10, 14, k)
    # a * b = 2**(e-11) * (1 +- 2**-20): a half ulp of c = 2**e * (1 + j u) plus or minus a
    # sliver, which f32 rounds onto the f16 midpoint exactly
    a[:k] = rng.choice([-1.0, 1.0], k) * (1 + u)
    b[:k] = (np.ldexp(1.0, e - 11) * (1 + rng.choice([-1.0, 1.0], k) * u)).astype(np.float16)
    c[:k] = (rng.choice([-1.0, 1.0], k) * np.ldexp(1 + rng.integers(0, 4, k) * u, e)).astype(np.float16)
    a[k:2 * k], b[k:2 * k], c[k:2 * k] = f16(k, -24, 16), f16(k, -24, 16), f16(k, -24, 16)   # denormal / overflow range
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -24, 65504.0, 2.0 ** -14], np.float16)
    for x in (a, b, c):
        x[2 * k:2 * k + k // 2] = rng.choice(special, k // 2)
    with np.errstate(all="ignore"):
        naive = (a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)).astype(np.float16)
    want = reference(a, b, c, 10, -14, 15, np.float16)
    assert (naive.view(np.uint16) != want.view(np.uint16)).sum() >= k // 8    # f32 arithmetic double-rounds these
    check(execute("v_fma_f16", a, b, c, np.uint16).astype(np.uint16), want, np.uint16)


@pytest.mark.parametrize("into_s1", [False, True])
def test_fma_f32_single_rounding(blocks, into_s1):
    n = W * L * 3
    k = n // 3
    u, e = 2.0 ** -23, rng.integers(-100, 100, k)
    a, b, c = (magnitudes(n, -60, 60).astype(np.float32) for _ in range(3))
    # a * b = 2**(e-24) * (1 +- 2**-46): half an ulp of c = 2**e * (1 + j u) and a sliver the
    # float64 sum rounds away, onto the f32 midpoint
    a[:k] = rng.choice([-1.0, 1.0], k) * (1 + u)
    b[:k] = np.ldexp(1 + rng.choice([-1.0, 1.0], k) * u, e - 24)
    c[:k] = rng.choice([-1.0, 1.0], k) * np.ldexp(1 + rng.integers(0, 4, k) * u, e)
    # short operands (a = 1.5, c = -0.25): many float64 sums sit exactly on an f32 midpoint
    # and are exact, so rounding them once is right
    a[2 * k:], b[2 * k:], c[2 * k:] = 1.5, rng.standard_normal(k), -0.25
    with np.errstate(all="ignore"):
        naive = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
        s = a[2 * k:].astype(np.float64) * b[2 * k:] + c[2 * k:]
    assert ((s.view(np.uint64) & np.uint64(2 ** 29 - 1)) == 2 ** 28).sum() >= k // 8     # exact midpoints
    want = reference(a, b, c, 23, -126, 127, np.float32)
    assert (naive.view(np.uint32) != want.view(np.uint32)).sum() >= k // 8      # float64 double-rounds these
    check(execute("v_fma_f32", a, b, c, np.uint32, into_s1), want, np.uint32)


@pytest.mark.parametrize("case", ["short", "tiny", "wide"])
def test_fma_f32_one_value_multiplicand(blocks, case):
    """v_fma_f32 v, s, v, s: a one-value multiplicand and addend (SGPRs, (1, 1)). When every
    float64 sum is exact (rtlib._sums_exact: a short multiplicand and operand magnitudes in a
    modest range) the sums are rounded once without the midpoint test: "short" (a = 1.5,
    c = -0.25, many sums exactly on f32 midpoints), "tiny" (results in the f32 denormal
    range). "wide" magnitudes and a full-width multiplicand fall back to the midpoint test,
    which must still repair the float64 double roundings built into b and c."""
    n = W * L * 2
    if case == "short":
        a, b, c = np.float32(1.5), rng.standard_normal(n).astype(np.float32), np.full(n, -0.25, np.float32)
    elif case == "tiny":
        a, c = np.float32(2.0 ** -130), np.full(n, 3 * 2.0 ** -140, np.float32)
        b = (1 + rng.integers(0, 8, n) / 8).astype(np.float32) * rng.choice([-1.0, 1.0], n).astype(np.float32)
    else:       # a * b = +-2**(e-24) * (1 - u * u): half an ulp of c less a sliver float64 drops
        u, e = 2.0 ** -23, rng.integers(-100, 100, n)
        a = np.float32(1 + u)
        b = (rng.choice([-1.0, 1.0], n) * np.ldexp(1 - u, e - 24)).astype(np.float32)
        c = (rng.choice([-1.0, 1.0], n) * np.ldexp(1 + rng.integers(0, 4, n) * u, e)).astype(np.float32)
    one = np.full((1, 1), a, np.float32)
    sums_exact = rtlib._sums_exact(one, b.reshape(-1, L), c[:1].reshape(1, 1) if case != "wide" else c.reshape(-1, L),
                                   np.dtype(np.float32))
    assert sums_exact == (case != "wide")
    want = reference(np.full(n, a, np.float32), b, c, 23, -126, 127, np.float32)
    if case == "tiny":
        assert (np.abs(want) < np.finfo(np.float32).tiny).all() and (want != 0).all()
    if case == "wide":          # rounding the float64 sums alone would be wrong here
        naive = (np.float64(a) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
        assert (naive.view(np.uint32) != want.view(np.uint32)).sum() >= n // 8
    inputs = {"S0": one.view(np.uint32), "S1": b.view(np.uint32).reshape(-1, L),
              "S2": c[:1].view(np.uint32).reshape(1, 1) if case != "wide" else c.view(np.uint32).reshape(-1, L)}
    ctx = Ctx(lanes=L, exec_mask=np.full((n // L, 1), (1 << L) - 1, np.uint64), inputs=inputs, mode=0x3F0)
    check(np.asarray(TABLE.lookup("v_fma_f32").execute(ctx)["D0"]).reshape(-1), want, np.uint32)



# f16 has no "double rounding" case: its sums lose nothing in float64 (operands span < 53 bits)
@pytest.mark.parametrize("dtype,lone", [(np.float32, "double rounding")] +
                         [(t, lone) for t in (np.float16, np.float32)
                          for lone in ("denormal", "overflow threshold", "nan", "exact midpoint")])
def test_fma_lone_hard_lane_in_a_wave(dtype, lone):
    """One wave of ordinary lanes with a single lane where rounding the float64 sum to the
    narrow type would go wrong, or sits at an edge (a denormal result, the overflow
    threshold, a NaN operand, an exact midpoint): the batch-wide tests that decide whether any
    lane needs repair (one minimum over the shifted bits, one over |result|) must not let a
    lone lane slip through. Many such waves, the lone lane at a different place in each."""
    info = np.finfo(dtype)
    mant, emin, emax = info.nmant, int(info.minexp) - 1 + 1, int(info.maxexp) - 1
    uint = np.uint16 if dtype == np.float16 else np.uint32
    u = 2.0 ** -mant
    waves = 24
    n = waves * L
    a, b, c = (rng.uniform(0.5, 2, n) * rng.choice([-1.0, 1.0], n) for _ in range(3))
    a, b, c = a.astype(dtype), b.astype(dtype), c.astype(dtype)
    where = np.arange(waves) * L + rng.integers(0, L, waves)
    for i in where:
        e = int(rng.integers(-4, 4))
        if lone == "double rounding":       # a * b = 2**(e-mant-1) (1 + u)(1 - u): half an ulp of c less a
            a[i], b[i] = 1 + u, np.ldexp(1 - u, e - mant - 1)     # sliver; c odd: the tie would round up
            c[i] = np.ldexp(1 + u, e)
        elif lone == "denormal" and dtype == np.float32:    # a * b = 2**-150 (1 - u * u): half a denormal
            a[i], b[i] = np.ldexp(1 + u, -75), np.ldexp(1 - u, -75)     # ulp less a sliver float64 drops,
            c[i] = 2.0 ** -130 + 2.0 ** -149                            # above an odd count of ulps
        elif lone == "denormal":
            a[i], b[i], c[i] = np.ldexp(1 + 3 * u, emin // 2), np.ldexp(-1 - 5 * u, emin // 2 - 5), info.smallest_subnormal
        elif lone == "overflow threshold":  # the largest value plus half an ulp, and a sliver below it
            a[i], b[i], c[i] = info.max, 1.0, np.ldexp(1.0, emax - mant - 1) * (1 if rng.integers(2) else -1)
        elif lone == "nan":
            a[i] = np.nan
        else:                               # a * b + c exactly on a midpoint: ties to even
            a[i], b[i], c[i] = 1 + u, 0.5, np.ldexp(1.0, -mant - 2) * (1 + 2 * int(rng.integers(2)))
    want = reference(a, b, c, mant, emin, emax, dtype)
    if lone == "double rounding" or (lone == "denormal" and dtype == np.float32):
        with np.errstate(all="ignore"):
            naive = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(dtype)
        assert (naive[where].view(uint) != want[where].view(uint)).all()     # the lone lanes are hard
    check(execute("v_fma_f32" if dtype == np.float32 else "v_fma_f16", a, b, c, uint).astype(uint), want, uint)

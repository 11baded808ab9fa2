"""v_ldexp_f32 / v_ldexp_f64 (x * 2**n, rounded once) against exact rationals: Fraction(x)
* 2**n rounded to nearest-even by the fma tests' independent routine, over normal, denormal,
zero, infinite and NaN x and exponents from small to the whole int32 range (a denormal scaled
by more than the format's exponent span must overflow, a huge value scaled down must reach
zero or a correctly rounded denormal)."""
from fractions import Fraction

import numpy as np
import pytest

from emu.semantics import Ctx
from tests.test_emu_semantics_fma import TABLE, L, round_to

rng = np.random.default_rng(2718)


def reference(x: np.ndarray, n: np.ndarray, mant: int, emin: int, emax: int, dtype) -> np.ndarray:
    out = []
    for v, k in zip(x.astype(np.float64), n.astype(np.int64)):
        if not np.isfinite(v) or v == 0:
            out.append(v)                       # NaN, infinities and zeros scale to themselves
            continue
        k = max(-5000, min(5000, int(k)))      # beyond +-5000 every result is the same overflow or zero
        out.append(round_to(Fraction(float(v)) * Fraction(2) ** k, mant, emin, emax))
    return np.array(out, dtype)


@pytest.mark.parametrize("name,dtype,uint,mant,emin,emax",
                         [("v_ldexp_f32", np.float32, np.uint32, 23, -126, 127),
                          ("v_ldexp_f64", np.float64, np.uint64, 52, -1022, 1023)])
def test_ldexp_single_rounding(name, dtype, uint, mant, emin, emax):
    info = np.finfo(dtype)
    n_lanes = L * 16
    mags = np.ldexp(rng.uniform(1, 2, n_lanes), rng.integers(emin - mant, emax + 1, n_lanes))
    x = (mags * rng.choice([-1.0, 1.0], n_lanes)).astype(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal, -info.smallest_subnormal,
                        info.max, -info.max, info.tiny, 1.0, 1.5, 3 * info.smallest_subnormal], dtype)
    x[: n_lanes // 4] = rng.choice(special, n_lanes // 4)
    span = emax - emin + mant + 2
    n = np.concatenate([rng.integers(-8, 8, n_lanes // 4), rng.integers(-span - 4, span + 4, n_lanes // 4),
                        rng.choice(np.array([2 ** 31 - 1, -2 ** 31, span + 1, -span - 1, 2 ** 20, -2 ** 20]),
                                   n_lanes // 4),
                        rng.integers(-2 ** 31, 2 ** 31, n_lanes // 4)])
    rng.shuffle(n)
    want = reference(x, n, mant, emin, emax, dtype)
    waves = n_lanes // L
    ctx = Ctx(lanes=L, exec_mask=np.full((waves, 1), (1 << L) - 1, np.uint64), mode=0x3F0,
              inputs={"S0": x.view(uint).reshape(waves, L).astype(uint),
                      "S1": n.astype(np.int32).view(np.uint32).reshape(waves, L)})
    got = np.asarray(TABLE.lookup(name).execute(ctx)["D0"]).astype(uint).reshape(-1)
    ok = (got == want.view(uint)) | (np.isnan(got.view(dtype)) & np.isnan(want))
    assert ok.all(), f"{(~ok).sum()} wrong, first x={x[~ok][:3]} n={n[~ok][:3]}: got {got.view(dtype)[~ok][:3]} want {want[~ok][:3]}"
    assert (np.isinf(want) & np.isfinite(x)).any() and ((want == 0) & (x != 0)).any()     # overflow and underflow seen
    assert ((np.abs(want) < info.tiny) & (want != 0)).any()                                 # denormal results seen


def test_ldexp_exponents_beyond_int32():
    """rtlib.ldexp given 64-bit exponents past int32 (a pseudocode's 64-bit integer): the
    exact results are overflow or zero whatever the value, and in-range ones stay exact."""
    from emu import rtlib
    x = np.array([5e-324, -5e-324, 1.5, -1.5, 1.7976931348623157e308, 3.0], np.float64)
    n = np.array([2 ** 40, 2 ** 40, -2 ** 40, -2 ** 40, -2 ** 62, -1075], np.int64)
    want = reference(x, n, 52, -1022, 1023, np.float64)
    got = rtlib.ldexp(x, n)
    assert got.dtype == np.float64 and (got.view(np.uint64) == want.view(np.uint64)).all(), (got, want)
    assert np.isinf(want[:2]).all() and (want[2:5] == 0).all() and want[5] == 1e-323    # 1.5 * 2**-1074: the tie goes to 2 * 2**-1074


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201", "gfx942"])
def test_ldexp_f16_scales_by_any_i16_exponent(arch):
    """v_ldexp_f16 is x * 2**n rounded once to f16 for every i16 exponent (erratum
    ldexp-f16-power-in-f16: the pseudocode narrows 2**n to f16 first, +inf past 2**15 and 0
    below 2**-24). Against exact rationals: a denormal scaled up to a normal value (2**-24 *
    2**20 = 2**-4, what LLVM 22 folds llvm.ldexp.f16(0xH0001, 20) to), the largest value scaled
    down to a correctly rounded denormal (65504 * 2**-30 -> 0xH0400, as LLVM folds it), and random
    values and exponents over the whole i16 range."""
    from emu import load_semantics
    n_lanes = L * 8
    mags = np.ldexp(rng.uniform(1, 2, n_lanes), rng.integers(-24, 16, n_lanes))
    x = (mags * rng.choice([-1.0, 1.0], n_lanes)).astype(np.float16)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** -24, -(2.0 ** -24), 65504.0, 2.0 ** -14, 1.0],
                       np.float16)
    x[: n_lanes // 4] = rng.choice(special, n_lanes // 4)
    n = np.concatenate([rng.integers(-48, 48, n_lanes // 2), rng.integers(-2 ** 15, 2 ** 15, n_lanes // 4),
                        rng.choice(np.array([2 ** 15 - 1, -2 ** 15, 16, 20, -25, -30]), n_lanes // 4)])
    rng.shuffle(n)
    x[:2], n[:2] = [2.0 ** -24, 65504.0], [20, -30]
    want = reference(x, n, 10, -14, 15, np.float16)
    assert want[:2].view(np.uint16).tolist() == [0x2C00, 0x0400]
    waves = n_lanes // L
    ctx = Ctx(lanes=L, exec_mask=np.full((waves, 1), (1 << L) - 1, np.uint64), mode=0x3F0,
              inputs={"S0": x.view(np.uint16).astype(np.uint32).reshape(waves, L),
                      "S1": n.astype(np.int16).view(np.uint16).astype(np.uint32).reshape(waves, L)})
    got = (np.asarray(load_semantics(arch).lookup("v_ldexp_f16").execute(ctx)["D0"]).astype(np.uint32)
           & np.uint32(0xFFFF)).astype(np.uint16).reshape(-1)
    ok = (got == want.view(np.uint16)) | (np.isnan(got.view(np.float16)) & np.isnan(want))
    assert ok.all(), f"{(~ok).sum()} wrong, first x={x[~ok][:3]} n={n[~ok][:3]}: got {got.view(np.float16)[~ok][:3]} want {want[~ok][:3]}"
    assert (np.isinf(want) & np.isfinite(x)).any() and ((want == 0) & (x != 0)).any()

"""f32/f64 division and class tests through the generated semantics, vs numpy: the
v_cmp_class_f64 family (RDNA3's pseudocode needed the errata entry for its INF exponent) and
the compiler's division macro (v_div_scale -> v_rcp -> Newton-Raphson fma -> v_div_fmas ->
v_div_fixup, the sequence clang emits for x / y), which must give numpy's correctly rounded
quotient, also when v_div_scale has to scale (tiny or huge operands)."""
import numpy as np
import pytest

from emu.semantics import Ctx
from emu.table import load_semantics

ARCHS = ("gfx1100", "gfx1151")
W, L = 2, 32
rng = np.random.default_rng(77)
UINT = {np.float32: np.uint32, np.float64: np.uint64}


def run(arch, name, **inputs):
    sem = load_semantics(arch).lookup(name)
    assert sem is not None, name
    if sem.reads_d0:     # the machine passes the old destination of predicated writes
        inputs["D0"] = np.zeros((W, L), np.uint64 if sem.reads["D0"].bits == 64 else np.uint32)
    return sem.execute(Ctx(lanes=L, exec_mask=np.full((W, 1), 2 ** L - 1, np.uint64), inputs=inputs, mode=0x3F0))


def lane_mask(lane_bits):
    """(W, L) bools -> the per-wave VCC value the machine would pack (bit i = lane i)."""
    weights = np.uint64(1) << np.arange(L, dtype=np.uint64)
    return (lane_bits.astype(np.uint64) * weights).sum(axis=1, keepdims=True, dtype=np.uint64)


def float_class(x):
    """Index of the v_cmp_class mask bit that describes x (the manual's table: 0 signalling
    NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal,
    9 +inf), from numpy's own classification."""
    finfo = np.finfo(x.dtype)
    u = x.view(UINT[x.dtype.type])
    quiet_bit = UINT[x.dtype.type](1) << UINT[x.dtype.type](finfo.nmant - 1)
    neg = np.signbit(x)
    tiny = (np.abs(x) < finfo.tiny) & (x != 0)
    return np.select([np.isnan(x) & ((u & quiet_bit) == 0), np.isnan(x), np.isinf(x) & neg,
                      tiny & neg, (x == 0) & neg, (x == 0), tiny, np.isinf(x)],
                     [0, 1, 2, 4, 5, 6, 7, 9], np.where(neg, 3, 8))


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("name", ["v_cmp_class_f64", "v_cmpx_class_f64"])
def test_cmp_class_f64(arch, name):
    x = rng.standard_normal(W * L) * 10.0 ** rng.integers(-300, 300, W * L)
    x[:12] = [1.0, 1.5, -1.999, np.inf, -np.inf, 0.0, -0.0, 5e-324, -2e-310, np.nan, -np.nan, 2.0 ** 1023]
    x = x.reshape(W, L)
    x.view(np.uint64)[1, 0] = 0x7FF0000000000001          # signalling NaN
    mask = rng.integers(0, 1 << 10, (W, L)).astype(np.uint32)
    mask[0, :12] = 1 << 9                                   # +inf only: 1.0 and 1.5 must not match
    want = ((mask >> float_class(x).astype(np.uint32)) & 1).astype(bool)
    out = run(arch, name, S0=x.view(np.uint64), S1=mask)
    assert (out["EXEC" if "cmpx" in name else "D0"] == want).all()


def _flip_sign(u):
    return u ^ (type(u.flat[0])(1) << type(u.flat[0])(8 * u.itemsize - 1))


def divide(arch, x, y):
    """x / y by the instruction sequence clang-22 emits for a correctly rounded division."""
    ty = "f64" if x.dtype == np.float64 else "f32"
    one = UINT[x.dtype.type](np.array(1.0, x.dtype).view(UINT[x.dtype.type]))
    ux, uy = x.view(UINT[x.dtype.type]), y.view(UINT[x.dtype.type])

    def op(name, *srcs, **extra):
        return run(arch, f"v_{name}_{ty}", **{f"S{i}": s for i, s in enumerate(srcs)}, **extra)["D0"]
    den = op("div_scale", uy, uy, ux)
    scaled = run(arch, f"v_div_scale_{ty}", S0=ux, S1=uy, S2=ux)
    num, vcc = scaled["D0"], lane_mask(scaled["VCC"])
    r = op("rcp", den)
    for _ in range(2):
        r = op("fma", r, op("fma", _flip_sign(den), r, one), r)
    q = op("mul", num, r)
    rem = op("fma", _flip_sign(den), q, num)
    q = op("div_fmas", rem, r, q, VCC=vcc)
    return op("div_fixup", q, uy, ux).view(x.dtype)


def _check_division(arch, x, y):
    with np.errstate(all="ignore"):
        want = x / y
    got = divide(arch, x, y)
    ok = (got.view(UINT[x.dtype.type]) == want.view(UINT[x.dtype.type])) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), f"{x[~ok][:4]} / {y[~ok][:4]}: got {got[~ok][:4]}, numpy {want[~ok][:4]}"


def _operands(dtype, emax):
    x = rng.uniform(1, 2, W * L) * 2.0 ** rng.integers(-emax, emax, W * L)
    y = rng.uniform(1, 2, W * L) * 2.0 ** rng.integers(-emax, emax, W * L)
    x[W * L // 2:] *= -1
    return x.astype(dtype).reshape(W, L), y.astype(dtype).reshape(W, L)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_macro_is_correctly_rounded(arch, dtype):
    """Operands and quotients well inside the normal range: v_div_scale must return its first
    input unchanged (the div-scale-*-unscaled-result errata) and the macro round correctly."""
    x, y = _operands(dtype, np.finfo(dtype).maxexp // 4)
    x[0, :6] = [1.0, 3.0, 0.0, np.inf, 7.0, np.nan]
    y[0, :6] = [3.0, 7.0, 0.0, 2.0, 0.0, 1.0]
    ty = "f64" if dtype == np.float64 else "f32"
    finite = np.isfinite(x) & np.isfinite(y) & (x != 0) & (y != 0)
    same = run(arch, f"v_div_scale_{ty}", S0=y.view(UINT[dtype]), S1=y.view(UINT[dtype]), S2=x.view(UINT[dtype]))
    assert (same["D0"][finite] == y.view(UINT[dtype])[finite]).all() and not same["VCC"][finite].any()
    _check_division(arch, x, y)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_division_macro_near_the_range_limits(arch, dtype):
    """Where v_div_scale scales (huge and tiny quotients, tiny numerators), v_div_fmas scales back
    and v_div_fixup turns overflow and underflow into infinities and zeros: correctly rounded
    with the hardware-measured errata (isa/errata.py: div-scale-*, div-fmas-*, div-fixup-*)."""
    finfo = np.finfo(dtype)
    x, y = _operands(dtype, finfo.maxexp - 4)
    x[0, :4] = [finfo.tiny, finfo.max, finfo.smallest_subnormal * 3, 7.0]
    y[0, :4] = [3.0, 0.75, 3.0, finfo.tiny * 5]
    _check_division(arch, x, y)


@pytest.mark.parametrize("arch", ARCHS)
def test_division_macro_with_huge_denominators(arch):
    """f64 denominators above 2**1022, where 1/y and x/y are both denormal: v_div_scale must scale
    the denominator down (erratum div-scale-f64-huge-denominator-scales-down; the manual's 2**+128
    overflows it to infinity) for the sequence to give numpy's quotient, e.g. 1/1.7e308."""
    y = rng.uniform(1, 2, W * L) * 2.0 ** rng.integers(1022, 1024, W * L)
    x = rng.uniform(1, 2, W * L) * 2.0 ** rng.integers(-60, 60, W * L)
    y[:3], x[:3] = [1.7e308, np.finfo(np.float64).max, 2.0 ** 1022 * 1.5], [1.0, -1.0, 3.0]
    x[W * L // 2:] *= -1
    _check_division(arch, x.reshape(W, L), y.reshape(W, L))

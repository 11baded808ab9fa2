"""Generated semantics that interpret raw instruction fields or newer pseudocode syntax, vs
independent numpy references: v_fma_mix* (OPSEL/OPSEL_HI pick f32 or an f16 half, NEG/NEG_HI
negate / take |x| of the picked value), v_dot*_iu* (NEG = signedness), RTZ packing,
saturating 16-bit conversions, RDNA3.5's `x[lo +: n]` part-selects, nested instruction calls."""
from fractions import Fraction

import numpy as np
import pytest

from emu.semantics import Ctx
from emu.table import load_semantics

rng = np.random.default_rng(5)
W, L = 2, 32


def run(name, arch="gfx1100", **inputs):
    sem = load_semantics(arch).lookup(name)
    assert sem is not None, name
    shape = (1, 1) if sem.scalar else (W, L)
    if sem.reads_d0 and "D0" not in inputs:
        inputs["D0"] = np.full(shape, 0xDEAD0000, np.uint32)
    return sem.execute(Ctx(lanes=L, exec_mask=np.full((shape[0], 1), 2 ** L - 1, np.uint64), inputs=inputs,
                           scalar=sem.scalar))


def fma_f32(a, b, c):
    """Correctly rounded f32 fma by exact rationals (inputs finite)."""
    out = []
    for x, y, z in zip(a.ravel(), b.ravel(), c.ravel()):
        q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        f = np.float32(float(q))                     # nearest f64, then nearest f32: fix ties below
        cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
        out.append(min(cands, key=lambda v: (abs(Fraction(float(v)) - q), int(v.view(np.uint32)) & 1)))
    return np.array(out, np.float32).reshape(a.shape)


def pick(value_bits, sel):
    """The operand a mix source selects: 0/1 f32, 2 low f16, 3 high f16 (as f32)."""
    if sel < 2:
        return value_bits.view(np.float32)
    half = (value_bits >> np.uint32(16 * (sel - 2))) & np.uint32(0xFFFF)
    return half.astype(np.uint16).view(np.float16).astype(np.float32)


@pytest.mark.parametrize("name", ["v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16"])
def test_fma_mix_selects_sizes_and_applies_neg_abs_after_selection(name):
    srcs = [rng.standard_normal((W, L)).astype(np.float32) for _ in range(3)]
    packed = [rng.standard_normal((W, L, 2)).astype(np.float16).view(np.uint32)[..., 0] for _ in range(3)]
    for trial in range(6):
        sels = rng.integers(0, 4, 3)
        neg, abs_ = int(rng.integers(0, 8)), int(rng.integers(0, 8))
        bits = [s.view(np.uint32) if sel < 2 else p for s, p, sel in zip(srcs, packed, sels)]
        vals = []
        for i in range(3):
            v = pick(bits[i], sels[i])
            v = np.abs(v) if (abs_ >> i) & 1 else v
            vals.append(-v if (neg >> i) & 1 else v)
        want = fma_f32(*vals)
        opsel = sum(int(s & 1) << i for i, s in enumerate(sels))
        opsel_hi = sum(int(s >> 1) << i for i, s in enumerate(sels))
        out = run(name, S0=bits[0], S1=bits[1], S2=bits[2], OPSEL=opsel, OPSEL_HI=opsel_hi, NEG=neg,
                  NEG_HI=abs_)["D0"].astype(np.uint32)
        if name == "v_fma_mix_f32":
            assert (out == want.view(np.uint32)).all(), (sels, neg, abs_)
            continue
        # f16 results: the fused f32 result rounded to f16, as f32_to_f16(fma(...)) says
        want16 = want.astype(np.float16).view(np.uint16)
        shift = 0 if name.endswith("lo_f16") else 16
        assert (((out >> np.uint32(shift)) & np.uint32(0xFFFF)) == want16).all(), (name, sels, neg, abs_)
        assert (((out >> np.uint32(16 - shift)) & np.uint32(0xFFFF)) == (0xDEAD if shift == 0 else 0)).all()


@pytest.mark.parametrize("name, bits", [("v_dot4_i32_iu8", 8), ("v_dot8_i32_iu4", 4)])
def test_dot_iu_neg_bits_choose_signedness(name, bits):
    n = 32 // bits
    a = rng.integers(0, 2 ** 32, (W, L), dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2 ** 32, (W, L), dtype=np.uint64).astype(np.uint32)
    c = rng.integers(-2 ** 31, 2 ** 31, (W, L)).astype(np.int64)
    a[0, 0], b[0, 0] = 0xFFFFFFFF, 0x80808080 & ((1 << 32) - 1)
    for signs in range(4):
        def elems(x, signed):
            e = (x[..., None].astype(np.int64) >> (np.arange(n) * bits)) & ((1 << bits) - 1)
            return np.where(e >= 1 << (bits - 1), e - (1 << bits), e) if signed else e
        want = ((elems(a, signs & 1) * elems(b, signs & 2)).sum(-1) + c) & 0xFFFFFFFF
        out = run(name, S0=a, S1=b, S2=c.astype(np.uint32), OPSEL=0, OPSEL_HI=7, NEG=signs, NEG_HI=0)["D0"]
        assert (out == want.astype(np.uint32)).all(), signs


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_cvt_pk_rtz_rounds_toward_zero(arch):
    x = np.array([1.0 + 2 ** -11 + 2 ** -13, -(1.0 + 2 ** -11 + 2 ** -13), 70000.0, -1e9, np.inf, 2 ** -25,
                  1.0 / 3.0, -0.0] * 8, np.float32).reshape(2, 32)
    y = -x[:, ::-1].copy()
    out = run("v_cvt_pk_rtz_f16_f32", arch, S0=x.view(np.uint32), S1=y.view(np.uint32))["D0"]

    def rtz(v):
        h = v.astype(np.float16)
        away = np.abs(h.astype(np.float64)) > np.abs(v.astype(np.float64))
        step = np.nextafter(h, np.float16(0))
        return np.where(away & np.isfinite(v), step, h).view(np.uint16)
    assert ((out & np.uint32(0xFFFF)) == rtz(x)).all() and ((out >> np.uint32(16)) == rtz(y)).all()


def test_cvt_pk_i16_u16_saturate_and_truncate():
    x = np.array([1.9, -1.9, 40000.0, -40000.0, np.nan, np.inf, -np.inf, 32767.5] * 8, np.float32).reshape(2, 32)
    y = x[:, ::-1].copy()
    for name, lo, hi in (("v_cvt_pk_i16_f32", -32768, 32767), ("v_cvt_pk_u16_f32", 0, 65535)):
        out = run(name, S0=x.view(np.uint32), S1=y.view(np.uint32))["D0"]
        for half, v in ((0, x), (16, y)):
            want = np.clip(np.trunc(np.nan_to_num(v.astype(np.float64), nan=0.0, posinf=1e9, neginf=-1e9)), lo, hi)
            got = ((out >> np.uint32(half)) & np.uint32(0xFFFF)).astype(np.uint16)
            assert (got == want.astype(np.int64).astype(np.uint16)).all(), name


def test_rdna35_part_select_quadmask():
    s0 = np.array([[0x0F00F0F1]], np.uint32)
    out = run("s_quadmask_b32", "gfx1151", S0=s0)
    nibbles = [(0x0F00F0F1 >> (4 * i)) & 0xF for i in range(8)]
    assert int(out["D0"][0, 0]) == sum((n != 0) << i for i, n in enumerate(nibbles))
    assert int(out["SCC"][0, 0]) == 1


def test_minmax_calls_min_then_max():
    a, b, c = (rng.standard_normal((W, L)).astype(np.float32) for _ in range(3))
    out = run("v_minmax_f32", S0=a.view(np.uint32), S1=b.view(np.uint32), S2=c.view(np.uint32))["D0"]
    assert (out == np.maximum(np.minimum(a, b), c).view(np.uint32)).all()

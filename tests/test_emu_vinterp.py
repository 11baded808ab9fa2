"""VINTERP through the machine against numpy, per the manual's definition (RDNA3.5
pseudocode p. 538-541; RDNA3 descriptions p. 507-508): P10 forms compute fma(S0 from lane
(lane & ~3) + 1, S1, S2 from lane lane & ~3), P2 forms fma(S0 from lane (lane & ~3) + 2, S1,
S2); F16 forms read 16-bit attribute data from the half OPSEL names, P2_F16 rounds the f32
fma to f16 (into the half OPSEL[3] names), RTZ forms round toward zero.

Operands have few significant bits so that a * b + c is exact in float64; numpy's one
rounding of that float64 to f32 (or the truncation toward zero) is then the reference."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch, loads

rng = np.random.default_rng(909)
L = 32
LANE = np.arange(L)
QUAD = LANE & ~3


def few_bits(n, bits, lo, hi):
    """Random floats with `bits` significant bits and exponents in [lo, hi), both signs."""
    m = rng.integers(1 << (bits - 1), 1 << bits, n).astype(np.float64)
    return np.where(rng.random(n) < 0.5, -1, 1) * m * 2.0 ** (rng.integers(lo, hi, n) - bits)


def round_f32(x):
    return x.astype(np.float32)


def toward_zero(x, dtype):
    r = x.astype(dtype)
    away = np.abs(r.astype(np.float64)) > np.abs(x)
    return np.where(away, np.nextafter(r, dtype(0)), r).astype(dtype)


def run(inst, attr_bits, s1, s2_bits, old, exec_odd=False):
    """v1 = attribute register, v2 = S1, v3 = S2, v4 = destination (old value); returns v4."""
    cmpx = "v_and_b32 v5, 1, v0\nv_cmpx_eq_u32 1, v5\n" if exec_odd else ""
    src = loads("a", "b", "c", "d") + f"""
        v_lshlrev_b32 v30, 2, v0
        global_load_b32 v1, v30, s[4:5]
        global_load_b32 v2, v30, s[6:7]
        global_load_b32 v3, v30, s[8:9]
        global_load_b32 v4, v30, s[10:11]
        s_waitcnt vmcnt(0)
        {cmpx}{inst}
        s_mov_b32 exec_lo, -1
        global_store_b32 v30, v4, s[10:11]
        s_endpgm"""
    bufs = {"a": attr_bits.astype(np.uint32), "b": np.asarray(s1, np.float32).view(np.uint32),
            "c": s2_bits.astype(np.uint32), "d": old.astype(np.uint32)}
    out, _ = launch(src, bufs, block=(L, 1, 1), wave=L)
    return out["d"]


OLD = np.full(L, 0x5A5A1234, np.uint32)


@pytest.mark.parametrize("exec_odd", [False, True])
@pytest.mark.parametrize("name, neg", [("v_interp_p10_f32", ""), ("v_interp_p2_f32", ""),
                                       ("v_interp_p10_f32", "neg"), ("v_interp_p2_f32", "clamp")])
def test_f32_forms(name, neg, exec_odd):
    attr = few_bits(L, 12, -8, 8)
    s1 = few_bits(L, 12, -4, 4)
    s2 = few_bits(L, 20, -6, 6)
    p10 = "p10" in name
    a = attr[QUAD + (1 if p10 else 2)]
    c = attr[QUAD] if p10 else s2
    operands = "v4, v1, v2, v1" if p10 else "v4, v1, v2, v3"
    b = s1
    if neg == "neg":                       # -S0 and -S2 (the quad data) and -S1
        operands = "v4, -v1, -v2, -v1" if p10 else operands
        a, b, c = -a, -b, -c
    got = run(f"{name} {operands}{' clamp' if neg == 'clamp' else ''}", attr.astype(np.float32).view(np.uint32),
              s1, s2.astype(np.float32).view(np.uint32), OLD, exec_odd)
    want = round_f32(a * b + c)            # exact in float64: one rounding
    if neg == "clamp":
        want = np.clip(want, np.float32(0), np.float32(1))
    want = want.view(np.uint32)
    if exec_odd:                            # inactive lanes keep the old value; the quad fetch reads them anyway
        want = np.where(LANE % 2 == 1, want, OLD)
    assert (got == want).all(), (name, neg, exec_odd)


def _f16_pairs():
    lo, hi = few_bits(L, 11, -6, 6).astype(np.float16), few_bits(L, 11, -6, 6).astype(np.float16)
    bits = lo.view(np.uint16).astype(np.uint32) | (hi.view(np.uint16).astype(np.uint32) << 16)
    return lo.astype(np.float64), hi.astype(np.float64), bits


@pytest.mark.parametrize("rtz", [False, True])
@pytest.mark.parametrize("sel0, sel2", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_p10_f16_forms_read_the_opsel_halves(sel0, sel2, rtz):
    lo, hi, bits = _f16_pairs()
    s1 = few_bits(L, 12, -4, 4)
    name = "v_interp_p10_rtz_f16_f32" if rtz else "v_interp_p10_f16_f32"
    got = run(f"{name} v4, v1, v2, v1 op_sel:[{sel0},0,{sel2},0]", bits, s1, np.zeros(L, np.uint32), OLD)
    a = (hi if sel0 else lo)[QUAD + 1]
    c = (hi if sel2 else lo)[QUAD]
    exact = a * s1 + c
    want = toward_zero(exact, np.float32) if rtz else round_f32(exact)
    assert (got == want.view(np.uint32)).all()


@pytest.mark.parametrize("rtz", [False, True])
@pytest.mark.parametrize("sel0, dst_hi", [(0, 0), (1, 1), (0, 1)])
def test_p2_f16_forms_round_to_f16_into_the_opsel_half(sel0, dst_hi, rtz):
    lo, hi, bits = _f16_pairs()
    s1 = few_bits(L, 12, -4, 4)
    s2 = few_bits(L, 16, -4, 4)
    name = "v_interp_p2_rtz_f16_f32" if rtz else "v_interp_p2_f16_f32"
    got = run(f"{name} v4, v1, v2, v3 op_sel:[{sel0},0,0,{dst_hi}]", bits, s1,
              s2.astype(np.float32).view(np.uint32), OLD)
    exact = (hi if sel0 else lo)[QUAD + 2] * s1 + s2
    if rtz:             # toward zero at every step: the f16 truncation of the exact value
        half = toward_zero(exact, np.float16)
    else:               # the manual: the f32 fma, rounded, then converted to f16
        half = round_f32(exact).astype(np.float16)
    half = half.view(np.uint16).astype(np.uint32)
    shift = np.uint32(16 * dst_hi)
    assert ((got >> shift) & np.uint32(0xFFFF) == half).all()
    assert ((got >> np.uint32(16 - 16 * dst_hi)) & np.uint32(0xFFFF) == (OLD >> np.uint32(16 - 16 * dst_hi)) & 0xFFFF).all()


def test_interpolation_of_a_plane_matches_the_manual_formula():
    """The manual's overall calculation R = P0 + P10 * I + P20 * J with the example sequence
    (v_interp_p10_f32 v3, v0, v1, v0; v_interp_p2_f32 v3, v0, v2, v3), attribute data laid
    out per quad as LDS_PARAM_LOAD leaves it (P0, P10, P20 in lanes 0, 1, 2)."""
    p = few_bits(L // 4 * 3, 10, -2, 2).reshape(-1, 3)        # per quad: P0, P10, P20
    attr = np.zeros(L)
    attr[QUAD[::4]] = p[:, 0]
    attr[QUAD[::4] + 1] = p[:, 1]
    attr[QUAD[::4] + 2] = p[:, 2]
    i, j = few_bits(L, 10, -3, 0), few_bits(L, 10, -3, 0)
    src = loads("a", "i", "j", "r") + """
        v_lshlrev_b32 v30, 2, v0
        global_load_b32 v0, v30, s[4:5]
        global_load_b32 v1, v30, s[6:7]
        global_load_b32 v2, v30, s[8:9]
        s_waitcnt vmcnt(0)
        v_interp_p10_f32 v3, v0, v1, v0
        v_interp_p2_f32 v3, v0, v2, v3
        global_store_b32 v30, v3, s[10:11]
        s_endpgm"""
    f32 = lambda x: np.asarray(x, np.float32)
    out, _ = launch(src, {"a": f32(attr), "i": f32(i), "j": f32(j), "r": np.zeros(L, np.float32)},
                    block=(L, 1, 1), wave=L)
    q = LANE // 4
    want = round_f32(round_f32(p[q, 0] + p[q, 1] * i).astype(np.float64) + p[q, 2] * j)
    assert (out["r"] == want).all()

"""How CDNA3's matrix core adds: the f32 results of its 16-bit and 8-bit float MFMAs.

The manual says only "fused multiply add" and round to nearest even. What CDNA3 hardware
(MI300) computes was measured by MMA-Sim (Xie et al., "MMA-Sim: Bit-Accurate Reference
Model of Tensor Cores and Matrix Cores", arXiv 2511.10909), whose model agrees bit for bit
with the hardware on their randomized tests. In its terms, D starts as C and takes one
group of K values at a time (16-bit inputs: groups of min(8, K); XF32: 4; FP8/BF8: 16), in
k order:

- every product a_k * b_k is taken as significand * 2^exponent with the input format's
  denormals at its minimum exponent (exact), and each is cut toward zero to 24 fraction
  bits below the group's largest exponent; their sum s is exact from then on;
  FP8/BF8 sum the even and the odd k of the group separately that way and add the two,
  each cut toward minus infinity to 24 fraction bits below the larger exponent;
- s is cut toward minus infinity to 31 fraction bits and the running sum (f32) to 24
  fraction bits below the larger of their exponents (FP8/BF8: the running sum counts only
  when its exponent is within 25 of that); their exact sum is rounded to f32, to nearest
  even, and is the new running sum;
- a NaN or infinite float64 sum of the group (products and running sum) is the result;
  a product beyond the f32 range makes it an infinity of that sign (NaN for both signs).

XF32 inputs are f32 values cut to 10 mantissa bits (toward zero). F32 and F64 inputs are a
chain of fused multiply-adds in k order (one rounding each).

This follows the paper's released simulator (its `simulator/amd.py` MFMA model); a later
rewrite in the same repository cuts the FP8 half sums toward zero and drops the 25-exponent
window. Without hardware to decide, the released model stands.
"""
from __future__ import annotations

import numpy as np

# the smallest normal exponent of each input format: denormals are significand * 2^this
MIN_EXPONENT = {"f16": -14, "bf16": -126, "xf32": -126, "f32": -126, "fp8": -7, "bf8": -15}
GROUP = {"f16": 8, "bf16": 8, "xf32": 4, "fp8": 16, "bf8": 16}
FRACTION_BITS = 24          # products, inside a group
SUM_BITS = 31               # the group's sum against the running sum


def decompose(x: np.ndarray, min_exponent: int) -> tuple[np.ndarray, np.ndarray]:
    """float64 -> (significand, exponent), 1 <= |significand| < 2 for normals, denormals of
    the format at min_exponent with |significand| < 1, zeros at exponent -999."""
    m, e = np.frexp(x)
    e = e.astype(np.int64) - 1
    m = m * 2.0
    low = e < min_exponent
    m = np.where(low, np.ldexp(m, np.where(low, e - min_exponent, 0)), m)
    e = np.where(low, min_exponent, e)
    e = np.where(m == 0, -999, e)
    return m, e


def _cut(significand, exponent, top, bits: int, toward_minus_infinity: bool):
    """significand * 2^exponent as a multiple of 2^(top - bits), cut toward zero or minus
    infinity; returned scaled by 2^-top (a float64 that holds it exactly)."""
    scaled = np.ldexp(significand, bits + exponent - top)
    scaled = np.floor(scaled) if toward_minus_infinity else np.trunc(scaled)
    return np.ldexp(scaled, -bits)


def _group_sum(sig, exp, axis=-1):
    """Sum of products cut to FRACTION_BITS below their largest exponent: (s, top)."""
    top = exp.max(axis, keepdims=True)
    return _cut(sig, exp, top, FRACTION_BITS, False).sum(axis), top[..., 0]


def cdna3_dot(a: np.ndarray, b: np.ndarray, c: np.ndarray, a_kind: str, b_kind: str) -> np.ndarray:
    """D = C + A @ B as CDNA3 computes it: a (..., M, K), b (..., K, N) float64 values of
    `a_kind` / `b_kind`, c (..., M, N) f32 values; returns float32 (..., M, N)."""
    k = a.shape[-1]
    group = min(GROUP[a_kind], k)
    fp8 = a_kind in ("fp8", "bf8")
    sa, ea = decompose(a, MIN_EXPONENT[a_kind])
    sb, eb = decompose(b, MIN_EXPONENT[b_kind])
    d = np.asarray(c, np.float32)
    for k0 in range(0, k, group):
        ks = slice(k0, k0 + group)
        products = a[..., :, None, ks] * np.swapaxes(b[..., ks, :], -1, -2)[..., None, :, :]   # (..., M, N, g)
        sig = sa[..., :, None, ks] * np.swapaxes(sb[..., ks, :], -1, -2)[..., None, :, :]
        exp = ea[..., :, None, ks] + np.swapaxes(eb[..., ks, :], -1, -2)[..., None, :, :]
        running = d.astype(np.float64)
        if fp8:
            s0, e0 = _group_sum(sig[..., 0::2], exp[..., 0::2])
            s1, e1 = _group_sum(sig[..., 1::2], exp[..., 1::2])
            top = np.maximum(e0, e1)
            s = _cut(s0, e0, top, FRACTION_BITS, True) + _cut(s1, e1, top, FRACTION_BITS, True)
        else:
            s, top = _group_sum(sig, exp)
        sc, ec = decompose(running, MIN_EXPONENT["f32"])
        top2 = np.maximum(top, ec)
        total = _cut(s, top, top2, SUM_BITS, True)
        c_part = _cut(sc, ec, top2, FRACTION_BITS, True)
        if fp8:
            c_part = np.where(ec >= top2 - 25, c_part, 0.0)
        value = np.ldexp(total + c_part, top2)
        with np.errstate(invalid="ignore", over="ignore"):
            wide = products.sum(-1) + running
            huge = np.abs(products) >= 2.0 ** 128
            pos = (huge & (products > 0)).any(-1)
            neg = (huge & (products < 0)).any(-1)
        overflow = np.where(pos & neg, np.nan, np.where(pos, np.inf, -np.inf))
        value = np.where(pos | neg, overflow, value)
        value = np.where(np.isfinite(wide), value, wide)
        d = value.astype(np.float32)
    return d

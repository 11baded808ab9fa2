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


_BLOCK = 1 << 21            # products per pass: waves are taken in blocks of about this many


def exponents(x: np.ndarray, min_exponent: int) -> np.ndarray:
    """The exponent decompose() gives (int64), without the significand."""
    return decompose(x, min_exponent)[1]


def cdna3_dot(a: np.ndarray, b: np.ndarray, c: np.ndarray, a_kind: str, b_kind: str) -> np.ndarray:
    """D = C + A @ B as CDNA3 computes it: a (W, ..., M, K), b (W, ..., K, N) float64 values
    of `a_kind` / `b_kind`, c (W, ..., M, N) f32 values; returns float32 (W, ..., M, N).
    Done in blocks of waves, so the products of one group stay a few MiB."""
    per_wave = max(1, int(np.prod(c.shape[1:])) * min(GROUP[a_kind], a.shape[-1]))
    step = max(1, _BLOCK // per_wave)
    if c.shape[0] <= step:
        return _dot(a, b, c, a_kind, b_kind)
    return np.concatenate([_dot(a[i:i + step], b[i:i + step], c[i:i + step], a_kind, b_kind)
                           for i in range(0, c.shape[0], step)])


def _dot(a, b, c, a_kind: str, b_kind: str) -> np.ndarray:
    k = a.shape[-1]
    group = min(GROUP[a_kind], k)
    fp8 = a_kind in ("fp8", "bf8")
    ea = exponents(a, MIN_EXPONENT[a_kind])
    eb = exponents(b, MIN_EXPONENT[b_kind])
    d = np.asarray(c, np.float32)
    # a product beyond the f32 range needs inputs whose magnitudes multiply past 2^128
    may_overflow = float(np.abs(a).max(initial=0)) * float(np.abs(b).max(initial=0)) >= 2.0 ** 128
    for k0 in range(0, k, group):
        ks = range(k0, k0 + group)
        # one (..., M, N) outer product per k: exact products and their exponents
        products = [a[..., :, j, None] * b[..., j, None, :] for j in ks]
        exps = [ea[..., :, j, None] + eb[..., j, None, :] for j in ks]
        if fp8:     # even and odd k apart, each cut to 24 bits below its own top, then combined
            s0, t0 = _truncated_sum(products[0::2], exps[0::2])
            s1, t1 = _truncated_sum(products[1::2], exps[1::2])
            top = np.maximum(t0, t1)
            s = np.floor(np.ldexp(s0, t0 - top)) + np.floor(np.ldexp(s1, t1 - top))
        else:
            s, top = _truncated_sum(products, exps)
        running = d.astype(np.float64)                     # s counts units of 2^(top - 24)
        sc, ec = decompose(running, MIN_EXPONENT["f32"])
        top2 = np.maximum(top, ec)
        total = np.floor(np.ldexp(s, top + (SUM_BITS - FRACTION_BITS) - top2))     # units of 2^(top2 - 31)
        c_part = np.floor(np.ldexp(sc, FRACTION_BITS + ec - top2))                 # units of 2^(top2 - 24)
        if fp8:
            c_part = np.where(ec >= top2 - 25, c_part, 0.0)
        value = np.ldexp(total + np.ldexp(c_part, SUM_BITS - FRACTION_BITS), top2 - SUM_BITS)
        with np.errstate(invalid="ignore", over="ignore"):
            wide = np.matmul(a[..., k0:k0 + group], b[..., k0:k0 + group, :]) + running
        if may_overflow:
            pos = np.zeros(value.shape, bool)
            neg = np.zeros(value.shape, bool)
            for p in products:
                pos |= p >= 2.0 ** 128
                neg |= p <= -(2.0 ** 128)
            overflow = np.where(pos & neg, np.nan, np.where(pos, np.inf, -np.inf))
            value = np.where(pos | neg, overflow, value)
        value = np.where(np.isfinite(wide), value, wide)
        d = value.astype(np.float32)
    return d


def _truncated_sum(products: list, exps: list):
    """Products cut toward zero to FRACTION_BITS below the largest exponent: (the sum in units
    of 2^(top - FRACTION_BITS), top). p * 2^(24 - top) is exact (a power of two); an all-zero
    group (top near -2000) scales by at most 2^1000."""
    top = exps[0]
    for e in exps[1:]:
        top = np.maximum(top, e)
    scale = np.ldexp(1.0, np.minimum(FRACTION_BITS - top, 1000))
    total = np.zeros(top.shape)
    for p in products:
        with np.errstate(invalid="ignore", over="ignore"):
            total += np.trunc(p * scale)
    return total, top

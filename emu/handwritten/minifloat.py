"""Floats of 8 bits and fewer that CDNA matrix instructions (and RDNA4's fp8/bf8 conversions
and dot products) read: their values as float64 (a NaN with its code's sign); and CDNA4's
conversions to and from FP8/BF8/FP6/BF6/FP4 with an E8M0 scale (`encode_scaled`,
`decode_scaled`, `scale_value`: the pseudocode's *_fp8_scale ... *_fp4_scale calls, via rtlib).

Each format is (exponent bits, mantissa bits, bias, specials), from the tables "Small Float
Data Formats" of the CDNA3 manual (7.2, table 30) and the CDNA4 manual (7.3, table 30).
CDNA3's FP8/BF8 have one NaN (0x80: no -0, no infinity); CDNA4's follow the OCP formats
(FP8 E4M3: S.1111.111 is NaN, no infinity; BF8 E5M2: IEEE-style infinities and NaNs);
FP6/BF6/FP4 (CDNA4) have no special values. Denormals (exponent 0) are kept: the matrix
instructions that read these formats ignore MODE's denormal flags (CDNA3 7.3, CDNA4 7.4).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..semantics import SemanticsError

# (family, name) -> (exponent bits, mantissa bits, bias, specials)
FORMATS = {
    ("cdna3", "fp8"): (4, 3, 8, "nan_is_0x80"),
    ("cdna3", "bf8"): (5, 2, 16, "nan_is_0x80"),
    ("cdna4", "fp8"): (4, 3, 7, "nan_is_all_ones"),
    ("cdna4", "bf8"): (5, 2, 15, "ieee"),
    ("cdna4", "fp6"): (2, 3, 1, "none"),
    ("cdna4", "bf6"): (3, 2, 3, "none"),
    ("cdna4", "fp4"): (2, 1, 1, "none"),
    # RDNA4 manual 7.5: FP8 {sign, exp4, mant3} bias 7, NaN 0x7F/0xFF, no infinity, max 448;
    # BF8 {sign, exp5, mant2} bias 15, +-inf 0x7C/0xFC, NaN 0x7D-0x7F/0xFD-0xFF (the pseudocode's
    # .fp8/.bf8 reads and conversions: rtlib.eight_bit_floats)
    ("rdna4", "fp8"): (4, 3, 7, "nan_is_all_ones"),
    ("rdna4", "bf8"): (5, 2, 15, "ieee"),
}


def bits(family: str, name: str) -> int:
    e, m, _, _ = _format(family, name)
    return 1 + e + m


def _format(family: str, name: str) -> tuple:
    try:
        return FORMATS[(family, name)]
    except KeyError:
        raise SemanticsError(f"{name}: no such small float format on {family} (manual table 30)") from None


@lru_cache(maxsize=None)
def table(family: str, name: str) -> np.ndarray:
    """float64 value of every code of the format (index = the raw bits)."""
    e, m, bias, specials = _format(family, name)
    codes = np.arange(1 << (1 + e + m))
    sign = np.where(codes >> (e + m), -1.0, 1.0)
    exp = (codes >> m) & ((1 << e) - 1)
    frac = (codes & ((1 << m) - 1)) / float(1 << m)
    value = sign * np.where(exp == 0, frac * 2.0 ** (1 - bias), (1 + frac) * 2.0 ** (exp - bias))
    top = exp == (1 << e) - 1
    if specials == "nan_is_0x80":
        value[1 << (e + m)] = np.nan
    elif specials == "nan_is_all_ones":
        nan = top & ((codes & ((1 << m) - 1)) == (1 << m) - 1)
        value[nan] = np.copysign(np.nan, sign[nan])          # a NaN keeps its code's sign
    elif specials == "ieee":
        value[top] = np.where(frac[top] == 0, sign[top] * np.inf, np.copysign(np.nan, sign[top]))
    value.flags.writeable = False
    return value


def decode(raw: np.ndarray, family: str, name: str) -> np.ndarray:
    """Raw codes (any unsigned integer array) -> float64 values."""
    return table(family, name)[raw]


# ---- CDNA4's scaled conversions to and from FP8/BF8/FP6/BF6/FP4 (manual 7.3, "Converts with Scale") ----
#
# The scale is an E8M0 exponent, bias 127 (7.3; 0xFF is NaN, 7.2): a conversion from a small
# float multiplies its value by 2**(scale - 127), one to a small float divides by it first.
# What 7.3 states: to FP4/FP6 a value beyond the format's range after rounding is clamped to
# the largest magnitude, sign kept; one below the smallest denormal after rounding becomes zero
# (sign kept); FP4/FP6 have no infinity or NaN (table 30). To FP8/BF8 (which FP16_OVFL governs,
# "Conversion to F4/F6 does not support FP16_OVFL, while to F8 does"): a NaN gives NaN; an
# infinity gives +-max with MODE.FP16_OVFL set, else NaN (FP8) or the infinity (BF8) (the
# table "FP16_OVFL rule"). What it leaves open, and the choice here:
# - a finite value whose rounded magnitude is past the largest is treated as that table's
#   infinity, as the MODE field's text says of an overflowed result ("clamped to +/- MAX",
#   otherwise "normalized to +/-INF"): +-max with FP16_OVFL, else NaN (FP8) / +-inf (BF8);
# - from AMD's published host emulation of these conversions (ROCm's amd_hip_ocp_host.hpp): a
#   NaN scale gives FP8/BF8's NaN (FP8 0x7F, BF8 0x7E, the source's sign), and for FP4/FP6 a
#   NaN or infinite source or a NaN scale the largest magnitude with the source's sign; from a
#   small float, a NaN code or scale gives a quiet NaN of the code's sign (here the
#   destination's default quiet NaN) and a result past the destination's range its infinity.
# Rounding is to nearest even; the stochastic forms (`rand` given) add the random value's top k
# bits below the k source mantissa bits that do not fit, then truncate (7.3: "add a random value
# ... and then truncate"; k = source mantissa bits - destination's).

# the largest finite magnitude's code and the NaN / infinity codes (positive) by specials
_TOP = {"nan_is_all_ones": 0x7E, "ieee": 0x7B}
_NAN_CODE = {"nan_is_all_ones": 0x7F, "ieee": 0x7E}


def _emin_mant(name: str, family: str = "cdna4") -> tuple[int, int]:
    e, m, bias, _ = _format(family, name)
    return 1 - bias, m


def encode_scaled(x, scale, name: str, src_mant: int, rand=None, clamp=False, family: str = "cdna4") -> np.ndarray:
    """Codes (uint64) of x / 2**(scale - 127) in the family's `name` (fp8 / bf8 / fp6 / bf6 /
    fp4; CDNA4's unless `family` says otherwise). x: float array (f16 / f32; bf16 sources as
    their exact f32 value), scale: the E8M0 byte, src_mant: the source format's mantissa bits
    (rounding's k), rand: uint32 random values (stochastic; zeros truncate), clamp:
    MODE.FP16_OVFL per lane (FP8/BF8 only). CDNA3's FP8/BF8 (one NaN 0x80, no -0, no
    infinity): a NaN, and without clamp a value past the largest, give 0x80; a zero result
    0x00 whatever the sign (table 30: "+/-: 0x00")."""
    emin, m = _emin_mant(name, family)
    specials = _format(family, name)[3]
    xf = np.asarray(x)
    neg = np.signbit(xf)
    s = np.asarray(scale).astype(np.int64) & 0xFF
    v = np.ldexp(np.abs(xf.astype(np.float64)), 127 - s)      # exact: |x| * 2**(127 - scale)
    _, e = np.frexp(v)
    e_eff = np.maximum(e.astype(np.int64) - 1, emin)         # the binade, denormals at emin
    n = np.ldexp(v, (m - e_eff).astype(np.int64))            # v in units of the result's quantum
    if rand is None:
        n = np.rint(n)                                        # to nearest, ties to even
    else:
        k = src_mant - m
        r = (np.asarray(rand).astype(np.uint64) & np.uint64(0xFFFFFFFF)) >> np.uint64(32 - k)
        n = np.floor((np.floor(np.ldexp(n, k)) + r.astype(np.float64)) / float(1 << k))
    width = bits(family, name)
    top = _TOP.get(specials, (1 << (width - 1)) - 1)   # the largest magnitude's code
    n = np.where(np.isfinite(n), n, 0).astype(np.int64)      # (NaN and infinity: below)
    code = np.where(n == 0, 0, ((e_eff - emin) << m) + n)
    nan = np.isnan(v) | (s == 0xFF)
    past = np.isinf(v) | (code > top)                          # infinite, or overflowed by rounding
    sign = np.where(neg, 1 << (width - 1), 0)
    if specials == "nan_is_0x80":       # unsigned NaN and zero; +-max with clamp
        clamped = np.asarray(clamp, bool) & past & ~nan
        code = np.where(nan | past, 0x80, np.where(code == 0, 0, code | sign))
        return np.where(clamped, top | sign, code).astype(np.uint64)
    if specials == "none":
        code = np.where(nan | past, top, code)
    else:
        over = np.where(np.asarray(clamp, bool), top, 0x7C if specials == "ieee" else _NAN_CODE[specials])
        code = np.where(nan, _NAN_CODE[specials], np.where(past, over, code))
    return (code | sign).astype(np.uint64)


_DEFAULT_NAN = {16: 0x7E00, 32: 0x7FC00000, "bf16": 0x7FC0}


def decode_scaled(code, scale, name: str, dst) -> np.ndarray:
    """Raw bits (uint64) of CDNA4's `name` (fp6 / bf6 / fp4) codes times 2**(scale - 127) as
    `dst` (16: f16, 32: f32, 'bf16'): scale_value of the code's value."""
    c = np.asarray(code).astype(np.intp) & ((1 << bits("cdna4", name)) - 1)
    return scale_value(table("cdna4", name)[c], scale, dst)


def scale_value(v, scale, dst) -> np.ndarray:
    """Raw bits (uint64) of small-float values v (float64 or float32, exact: an FP8/BF8 code's
    value as the pseudocode's .fp8 / .bf8 read gives it, NaN and infinity of the code's sign)
    times 2**(scale - 127) as `dst` (16: f16, 32: f32, 'bf16'), rounded to nearest even; past
    the range its infinity; a NaN or a NaN scale the default quiet NaN of v's sign."""
    s = np.asarray(scale).astype(np.int64) & 0xFF
    v = np.ldexp(np.asarray(v, np.float64), s - 127)         # exact in float64
    with np.errstate(over="ignore", invalid="ignore"):
        if dst == 16:
            out = v.astype(np.float16).view(np.uint16).astype(np.uint64)
        else:
            f = v.astype(np.float32)                          # exact (<= 4 significant bits) or inf
            out = f.view(np.uint32).astype(np.uint64)
            if dst == "bf16":                                 # to nearest even on the upper 16 bits
                out = (out + np.uint64(0x7FFF) + ((out >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    width = 16 if dst in (16, "bf16") else 32
    sign = np.signbit(v).astype(np.uint64) << np.uint64(width - 1)
    return np.where((s == 0xFF) | np.isnan(v), np.uint64(_DEFAULT_NAN[dst]) | sign, out)

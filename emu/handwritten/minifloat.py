"""Floats of 8 bits and fewer that CDNA matrix instructions (and RDNA4's fp8/bf8 conversions
and dot products) read: their values as float64.

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
    # .fp8/.bf8 reads: rtlib.fp8_to_f32 / bf8_to_f32)
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
        value[top & ((codes & ((1 << m) - 1)) == (1 << m) - 1)] = np.nan
    elif specials == "ieee":
        value[top] = np.where(frac[top] == 0, sign[top] * np.inf, np.nan)
    value.flags.writeable = False
    return value


def decode(raw: np.ndarray, family: str, name: str) -> np.ndarray:
    """Raw codes (any unsigned integer array) -> float64 values."""
    return table(family, name)[raw]

"""VINTERP (v_interp_p10_* / v_interp_p2_*): parameter interpolation, one fma per lane with
attribute data fetched from fixed lanes of the lane's quad.

The manuals' definition (RDNA3 p. 507-508 description, RDNA3.5 p. 538-541 pseudocode):
LDS_PARAM_LOAD leaves P0 in lane 0 of each quad, P10 in lane 1, P20 in lane 2, and

  P10 forms:  D = fma(S0 from lane (laneId & ~3) + 1, S1, S2 from lane laneId & ~3)
  P2 forms:   D = fma(S0 from lane (laneId & ~3) + 2, S1, S2)

("S0 uses a fixed DPP8 lane select of {1,1,1,1,5,5,5,5}", S2 of the P10 forms {0,0,0,0,...}).
The lane fetch reads the register whatever EXEC says (the RDNA3.5 pseudocode reads
VGPR[lane][SRC0] directly). F16_F32 forms take 16-bit attribute data (the half OPSEL names,
converted exactly to f32) with a 32-bit I/J coordinate; P10 returns f32, P2 rounds the f32
fma to f16. RTZ forms round toward zero (both the fma and the f16 conversion) "regardless
of the current round mode". RDNA3's pseudocode for these entries is garbled (`S0[lane.i % 4 +
1]`, a multiply and an add where its own description says V_FMA_F32) and its RTZ entries
have none, so both architectures use this module. WAITEXP (wait for exports) has no effect:
there are no exports in compute.

Under a directed MODE.FP_ROUND the non-RTZ forms round as the RDNA3.5/RDNA4 pseudocode's steps
say (`D0.f16 = 16'F(fma(..., S1.f32, S2.f32))`): the f32 fma by the f32 field, the f16
conversion by the f16 field (rtlib's fma and f32_to_f16, emu/rounding.py: ROUNDS_THROUGH).

The machine fetches S0/S1/S2 of the widths `operands()` gives (16-bit halves by OPSEL, NEG
applied, denormals per MODE) and writes D0 (16-bit results into the half OPSEL[3] names).
"""
from __future__ import annotations

import numpy as np

from ..rtlib import first_nan
from ..semantics import Ctx, Operand

# name -> (S0 lane in the quad, attribute type, S2 fetched from the quad's lane 0, result type, toward zero)
VARIANTS = {
    "V_INTERP_P10_F32": (1, "f32", True, "f32", False),
    "V_INTERP_P2_F32": (2, "f32", False, "f32", False),
    "V_INTERP_P10_F16_F32": (1, "f16", True, "f32", False),
    "V_INTERP_P2_F16_F32": (2, "f16", False, "f16", False),
    "V_INTERP_P10_RTZ_F16_F32": (1, "f16", True, "f32", True),
    "V_INTERP_P2_RTZ_F16_F32": (2, "f16", False, "f16", True),
}
_BITS = {"f16": 16, "f32": 32}
# the rtlib functions the non-RTZ forms round through (emu/rounding.directed_calls)
ROUNDS_THROUGH = ("fma", "f32_to_f16")


def round_widths(name: str) -> tuple:
    """Widths of the roundings a form makes besides its result's: the f32 fma of an f16 result."""
    return (32,) if VARIANTS[name][3] == "f16" and not VARIANTS[name][4] else ()


def operands(name: str) -> tuple[dict, dict]:
    _, attr, s2_quad, result, _ = VARIANTS[name]
    s2 = attr if s2_quad else "f32"
    reads = {"S0": Operand("S0", _BITS[attr], attr), "S1": Operand("S1", 32, "f32"),
             "S2": Operand("S2", _BITS[s2], s2)}
    return reads, {"D0": Operand("D0", _BITS[result], result)}


def _quad_lane(value, ctx: Ctx, k: int) -> np.ndarray:
    """Each lane's value from lane (laneId & ~3) + k of its wave."""
    lanes = np.arange(ctx.lanes)
    return np.broadcast_to(np.asarray(value), ctx.shape)[:, (lanes & ~3) + k]


def _as_f32(bits: np.ndarray, kind: str) -> np.ndarray:
    if kind == "f16":
        return (bits.astype(np.uint32) & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32)
    return bits.astype(np.uint32).view(np.float32)


def fma_f32_toward_zero(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma(a, b, c) of f32 values rounded toward zero, as float64 holding an f32 value. The
    product is exact in f64; s = p + c rounds, e = the exact error (two-sum), so p + c = s + e.
    Truncating s to f32 is right unless s is itself an f32 value and e points toward zero,
    when the exact sum lies just inside it: one step toward zero then. Overflow gives the
    largest finite value (toward zero never reaches infinity from a finite sum)."""
    a, b, c = (np.asarray(x, np.float64) for x in (a, b, c))
    p = a * b
    s = p + c
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    t = _truncate_f32(s)
    inward = (t == s) & (e != 0) & (np.sign(e) != np.sign(s)) & (s != 0)
    t = np.where(inward, np.nextafter(t.astype(np.float32), np.float32(0)).astype(np.float64), t)
    exact_inf = np.isinf(a) | np.isinf(b) | np.isinf(c)       # infinite operands stay infinite
    return first_nan(np.where(np.isnan(s) | exact_inf, s, t), a, b, c)


def _truncate_f32(x: np.ndarray) -> np.ndarray:
    """float64 -> the f32 value next to it toward zero (as float64); NaN/inf pass."""
    r = x.astype(np.float32)
    away = np.abs(r.astype(np.float64)) > np.abs(x)
    r = np.where(away, np.nextafter(r, np.float32(0)), r)          # includes rounding up to inf
    return r.astype(np.float64)


def _truncate_f16(x: np.ndarray) -> np.ndarray:
    """f32/f64 values -> f16 bits, rounded toward zero (finite overflow -> the largest f16)."""
    x = np.asarray(x, np.float64)
    r = x.astype(np.float16)
    away = np.abs(r.astype(np.float64)) > np.abs(x)
    r = np.where(away & ~np.isinf(x), np.nextafter(r, np.float16(0)), r)
    return r.view(np.uint16).astype(np.uint32)


def execute(name: str, ctx: Ctx) -> dict:
    s0_lane, attr, s2_quad, result, toward_zero = VARIANTS[name]
    a = _as_f32(_quad_lane(ctx.get("S0", name), ctx, s0_lane), attr)
    b = _as_f32(np.asarray(ctx.get("S1", name)), "f32")
    c_bits = ctx.get("S2", name)
    c = _as_f32(_quad_lane(c_bits, ctx, 0), attr) if s2_quad else _as_f32(np.asarray(c_bits), "f32")
    if toward_zero:
        d = fma_f32_toward_zero(a, b, c)
        out = d.astype(np.float32).view(np.uint32) if result == "f32" else _truncate_f16(d)
    else:
        from ..rtlib import f32_to_f16, fma
        d = np.asarray(fma(a, np.broadcast_to(b, a.shape).astype(np.float32), c.astype(np.float32)), np.float32)
        out = d.view(np.uint32) if result == "f32" else f32_to_f16(d).view(np.uint16).astype(np.uint32)
    return {"D0": np.ascontiguousarray(np.broadcast_to(out, ctx.shape)).astype(np.uint32)}

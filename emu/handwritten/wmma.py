"""RDNA3 WMMA (v_wmma_*_16x16x16_*): D = A x B + C on 16x16 matrices, one per wave.

The manual's pseudocode is matrix notation (`eval "D0.f32(16x16) = ..."`); the register
layout comes from its WMMA section (7.9) and the VOP3P field notes:

- A and B (S0, S1): lane m (0-15) holds row m of A / column m of B, all 16 k values packed
  from the lowest bits of its register block up (16-bit types: 2 per VGPR, IU8: 4, IU4: 8).
  Lanes 16-31 (and 32-63 in wave64) must hold copies; the values of lanes 0-15 are used.
- C and D (S2, D0): VGPR v of lane l holds element row (L/16)*v + l/16, column l%16, so a
  32-bit matrix takes 8 VGPRs in wave32 and 4 in wave64. 16-bit C/D use the same VGPRs,
  one value each, in the half OPSEL[2] names; D keeps the other half.
- Modifiers (VOP3P fields, passed raw): float A/B: NEG negates the low 16-bit element of
  each dword, NEG_HI the high one ([0] = A, [1] = B); {NEG_HI[2], NEG[2]} are {ABS, NEG}
  of C. IU8/IU4: NEG[0]/NEG[1] say A/B are signed (else unsigned): the sources the generated
  fact isa.facts.modifier_use(d).signed_by_neg names (those the code types iu8/iu4).

Products and sums are computed in float64 (exact for 16-bit products) / int64 and rounded
once to the destination type with round-to-nearest-even, the only rounding WMMA supports;
a NaN result is the type's default quiet NaN (the manual states no rule for which NaN among
several comes out); integer results wrap to 32 bits. Vectorised over the batch's waves (one matmul per batch).
"""
from __future__ import annotations

import numpy as np

from ..semantics import Ctx, Operand

ELEMENT_BITS = {"f16": 16, "bf16": 16, "iu8": 8, "iu4": 4}
# the C/D type each A/B element type accumulates into here (float inputs: f32 or their own type)
RESULTS = {"f16": ("f32", "f16"), "bf16": ("f32", "bf16"), "iu8": ("i32",), "iu4": ("i32",)}
N = 16          # M = N = K = 16


def variant(shapes: tuple) -> tuple[str, str] | None:
    """(A/B element type, C/D type) of the WMMA whose code has these shapes (isa.effects' fact:
    `D0.f32(16x16) = S0.f16(16x16) * S1.f16(16x16) + S2.f32(16x16)` -> ('f16', 'f32')), or None
    where this layout does not implement it: A and B of one type of ELEMENT_BITS, C and D of a
    type RESULTS gives it, every matrix 16x16."""
    by_key = {key: (kind, (rows, cols)) for key, kind, _, rows, cols in shapes}
    if len(shapes) != 4 or set(by_key) != {"D0", "S0", "S1", "S2"}:
        return None
    if any(dims != (N, N) for _, dims in by_key.values()):
        return None
    (src, _), (src_b, _), (acc, _), (dst, _) = (by_key[k] for k in ("S0", "S1", "S2", "D0"))
    if src != src_b or acc != dst or dst not in RESULTS.get(src, ()):
        return None
    return src, dst


def operands(types: tuple[str, str]) -> tuple[dict, dict]:
    """(reads, writes) of a WMMA of `types` (variant's). C/D widths are the wave32 ones;
    `bits_wave64` gives the wave64 block (half as many VGPRs)."""
    src, dst = types
    ab_bits = N * ELEMENT_BITS[src]
    ab = {k: Operand(k, ab_bits, f"b{ab_bits}") for k in ("S0", "S1")}
    cd = {k: Operand(k, 256, dst, bits_wave64=128) for k in ("S2", "D0")}
    flags = {k: Operand(k, 3, "u3") for k in ("OPSEL", "NEG", "NEG_HI")}
    writes = {"D0": cd["D0"]}
    reads = {**ab, "S2": cd["S2"], **flags}
    if dst in ("f16", "bf16"):
        reads["D0"] = cd["D0"]          # the half OPSEL[2] does not name is kept
    return reads, writes


def _dwords(value, shape) -> np.ndarray:
    """A register block as uint32 (W, L, n), whether given with a dword axis or as uint64."""
    v = np.asarray(value)
    if v.ndim == len(shape):            # a 64-bit block passed as one uint64 per lane
        v = np.stack([v.astype(np.uint64) & np.uint64(0xFFFFFFFF), v.astype(np.uint64) >> np.uint64(32)], -1)
    return np.broadcast_to(v, shape + v.shape[-1:]).astype(np.uint32)


def _elements(dwords: np.ndarray, bits: int) -> np.ndarray:
    """uint32 (..., n) -> uint32 (..., n * 32/bits): the packed elements, lowest bits first."""
    per = 32 // bits
    shifts = (np.arange(per, dtype=np.uint32) * np.uint32(bits))
    parts = (dwords[..., None] >> shifts) & np.uint32((1 << bits) - 1)
    return parts.reshape(dwords.shape[:-1] + (-1,))


def _to_float(bits16: np.ndarray, kind: str) -> np.ndarray:
    if kind == "f16":
        return bits16.astype(np.uint16).view(np.float16).astype(np.float64)
    return (bits16 << np.uint32(16)).view(np.float32).astype(np.float64)        # bf16


def _from_float(x: np.ndarray, kind: str) -> np.ndarray:
    """float64 -> raw bits of kind, rounded to nearest even once; a NaN is the type's default
    quiet NaN (rtlib.default_nans: the manual gives no NaN rule for WMMA)."""
    from ..rtlib import default_nans
    x = default_nans(x)
    if kind == "f32":
        return x.astype(np.float32).view(np.uint32)
    if kind == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.uint32)
    from ..rtlib import f32_to_bf16           # bf16: f64 -> f32 -> bf16 (RNE at each step)
    return f32_to_bf16(x.astype(np.float32)).astype(np.uint32)


def _matrix_operand(ctx: Ctx, key: str, kind: str, signed: bool, neg_lo: bool, neg_hi: bool) -> np.ndarray:
    """(W, 16, 16) float64 or int64: row/column i of the matrix = lane i's 16 elements."""
    el = _elements(_dwords(ctx.get(key), ctx.shape), ELEMENT_BITS[kind])[:, :N, :N]
    if kind in ("f16", "bf16"):
        flip = np.where(np.arange(N) % 2 == 0, 0x8000 if neg_lo else 0, 0x8000 if neg_hi else 0)
        return _to_float(el ^ flip.astype(np.uint32), kind)
    v = el.astype(np.int64)
    if signed:
        top = 1 << (ELEMENT_BITS[kind] - 1)
        v = (v ^ top) - top
    return v


def _cd_layout(lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) int (L, 256/L... per VGPR): element of C/D held by VGPR v of lane l."""
    per_lane = N * N // lanes
    lane = np.arange(lanes)[:, None]
    v = np.arange(per_lane)[None, :]
    return (lanes // N) * v + lane // N, np.broadcast_to(lane % N, (lanes, per_lane))


def execute(name: str, types: tuple[str, str], ctx: Ctx, signed_by_neg: tuple) -> dict:
    """D0 of WMMA `name` of `types` (variant's); `signed_by_neg`: the sources (indices) whose NEG
    bit says signed (isa.facts.modifier_use: those typed iu8/iu4), the others' integers unsigned."""
    src, dst = types
    opsel, neg, neg_hi = (int(ctx.get(k, name)) for k in ("OPSEL", "NEG", "NEG_HI"))
    signed = [i in signed_by_neg and bool(neg >> i & 1) for i in (0, 1)]
    a = _matrix_operand(ctx, "S0", src, signed[0], neg & 1, neg_hi & 1)          # (W, m, k)
    b = _matrix_operand(ctx, "S1", src, signed[1], neg & 2, neg_hi & 2)          # (W, n, k)
    rows, cols = _cd_layout(ctx.lanes)
    per_lane = rows.shape[1]
    c_bits = _dwords(ctx.get("S2", name), ctx.shape)[..., :per_lane]             # (W, L, v)
    waves = ctx.shape[0]
    if dst == "i32":
        c = c_bits.view(np.int32).astype(np.int64)
        product = np.einsum("wmk,wnk->wmn", a, b)
    else:
        half = 16 * ((opsel >> 2) & 1)
        c = c_bits if dst == "f32" else (c_bits >> np.uint32(half)) & np.uint32(0xFFFF)
        c = c.view(np.float32).astype(np.float64) if dst == "f32" else _to_float(c, dst)
        if neg_hi & 4:
            c = np.abs(c)
        if neg & 4:
            c = -c
        product = np.matmul(a, np.swapaxes(b, 1, 2))
    d = product[np.arange(waves)[:, None, None], rows[None], cols[None]] + c        # (W, L, v)
    if dst == "i32":
        out = (d & 0xFFFFFFFF).astype(np.uint32)
    elif dst == "f32":
        out = _from_float(d, dst)
    else:
        old = _dwords(ctx.get("D0", name), ctx.shape)[..., :per_lane]
        keep = np.uint32(0xFFFF0000 if half == 0 else 0x0000FFFF)
        out = (old & keep) | (_from_float(d, dst) << np.uint32(half))
    return {"D0": _pad(out, 256 // 32)}


def _pad(block: np.ndarray, dwords: int) -> np.ndarray:
    """Widen a wave64 block (4 VGPRs) to the operand's declared wave32 width with zeros;
    the machine writes only the first `bits_wave64 / 32` dwords in wave64."""
    if block.shape[-1] == dwords:
        return block
    pad = np.zeros(block.shape[:-1] + (dwords - block.shape[-1],), np.uint32)
    return np.concatenate([block, pad], -1)

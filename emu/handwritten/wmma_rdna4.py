"""RDNA4 WMMA (v_wmma_*_16x16x16_{f16,bf16}): D = A x B + C on 16x16 matrices, one per wave.

The manual's pseudocode is matrix notation (`D = A (16x16) * B (16x16) + C (16x16)`); the
register layout is its section 7.12.2 "Matrix Element Storage in VGPRs". Unlike RDNA3, no
lane holds a copy: the 16 rows of a matrix are split into chunks of 16 lanes (2 in wave32,
4 in wave64), chunk c of the lanes holding row chunk c in wave32 and the permuted chunks
0, 2, 1, 3 in wave64 ("lanes 0..15 receive m = 0..3, lanes 16..31 have m=8..11, lanes
32..47 have m=4..7, and lanes 48..63 have m=12..15").

- C and D (S2, D0): `matrix[row][col] -> VGPR[(row / 8) * 16 + col][row % 8]` (32-bit, wave32);
  16-bit results are packed two to a VGPR, even rows in the low half (so 4 VGPRs in wave32,
  and no OPSEL half as on RDNA3); wave64 uses the permuted chunks (4 rows per lane).
- A (S0): transposed the same way: lane (k chunk, m), its K elements packed from the low
  half up: 16-bit A is {col[3], row[3:0]} -> lane, col[2:1] -> VGPR, col[0] -> half in wave32
  (4 VGPRs; wave64: 2 VGPRs, lanes by {col[2], col[3], row[3:0]}).
- B (S1): like C/D with K as the row: lane (k chunk, n), K elements packed in the lane.
- Modifiers as on RDNA3 (7.12): NEG[1:0] negates the low 16-bit element of each A/B dword,
  NEG_HI[1:0] the high one; {NEG_HI[2], NEG[2]} are {ABS, NEG} of C.

Only the 16-bit element types are here; the 8-bit, 4-bit and FP8/BF8 variants, whose
layout table the manual's text garbles, stay unsupported (a clear error names them).
Products and sums in float64, rounded once to the destination type (round to nearest even).
"""
from __future__ import annotations

import numpy as np

from ..semantics import Ctx, Operand
from . import wmma
from .wmma import N, _dwords, _elements, _from_float, _to_float

_BITS = {"f16": 16, "bf16": 16, "f32": 32}


def variant(shapes: tuple) -> tuple[str, str] | None:
    """(A/B element type, C/D type) of the WMMA whose code has these shapes (isa.effects' fact),
    or None where this layout does not implement it: RDNA3's 16x16x16 forms with 16-bit A and B
    (wmma.variant), not the 8-bit, 4-bit, FP8/BF8, 16x16x32 or sparse (SWMMAC) ones."""
    types = wmma.variant(shapes)
    return types if types is not None and _BITS.get(types[0]) == 16 else None


def operands(types: tuple[str, str]) -> tuple[dict, dict]:
    """(reads, writes) of a WMMA of `types` (variant's): register blocks at their wave32 width,
    `bits_wave64` for wave64."""
    src, dst = types
    ab_bits = N * N * _BITS[src] // 32          # wave32: 16 of 32 lanes' worth per lane
    cd_bits = N * N * _BITS[dst] // 32
    ab = {k: Operand(k, ab_bits, f"b{ab_bits}", bits_wave64=ab_bits // 2) for k in ("S0", "S1")}
    cd = {k: Operand(k, cd_bits, dst, bits_wave64=cd_bits // 2) for k in ("S2", "D0")}
    flags = {k: Operand(k, 3, "u3") for k in ("OPSEL", "NEG", "NEG_HI")}
    return {**ab, "S2": cd["S2"], **flags}, {"D0": cd["D0"]}


def _chunk_rows(lanes: int) -> np.ndarray:
    """The row chunk (of 16 / chunks rows) each 16-lane chunk holds: wave32 0, 1; wave64 0, 2, 1, 3."""
    return np.array([0, 1]) if lanes == 32 else np.array([0, 2, 1, 3])


def _lane_layout(lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every (lane, element slot): the row (K for A/B, M for C/D) it holds and the column
    (M for A, N for B/C/D). Elements are numbered from the lowest bits of the block up."""
    per = N * N // lanes                     # rows per lane
    lane = np.arange(lanes)[:, None]
    slot = np.arange(per)[None, :]
    rows = _chunk_rows(lanes)[lane // N] * per + slot
    return rows, np.broadcast_to(lane % N, rows.shape), per


def _matrix(ctx: Ctx, key: str, kind: str, neg_lo: bool, neg_hi: bool, transpose: bool) -> np.ndarray:
    """(W, 16, 16) float64 A[m, k] (transpose: the lane index is m) or B[k, n]."""
    rows, cols, per = _lane_layout(ctx.lanes)
    el = _elements(_dwords(ctx.get(key), ctx.shape), 16)[..., :per]            # (W, L, per)
    flip = np.where(np.arange(per) % 2 == 0, 0x8000 if neg_lo else 0, 0x8000 if neg_hi else 0)
    values = _to_float(el ^ flip.astype(np.uint32), kind)
    out = np.zeros((values.shape[0], N, N))
    if transpose:
        out[:, cols, rows] = values
    else:
        out[:, rows, cols] = values
    return out


def execute(name: str, types: tuple[str, str], ctx: Ctx) -> dict:
    """D0 of WMMA `name` of `types` (variant's)."""
    src, dst = types
    neg, neg_hi = (int(ctx.get(k, name)) for k in ("NEG", "NEG_HI"))
    a = _matrix(ctx, "S0", src, neg & 1, neg_hi & 1, transpose=True)          # (W, m, k)
    b = _matrix(ctx, "S1", src, neg & 2, neg_hi & 2, transpose=False)         # (W, k, n)
    rows, cols, per = _lane_layout(ctx.lanes)
    dwords = per * _BITS[dst] // 32
    c_raw = _dwords(ctx.get("S2", name), ctx.shape)[..., :dwords]
    c = c_raw.view(np.float32).astype(np.float64) if dst == "f32" else _to_float(_elements(c_raw, 16), dst)
    if neg_hi & 4:
        c = np.abs(c)
    if neg & 4:
        c = -c
    product = np.matmul(a, b)
    d = product[np.arange(product.shape[0])[:, None, None], rows[None], cols[None]] + c      # (W, L, per)
    out = _from_float(d, dst)
    if dst != "f32":                        # two rows to a dword, the even one low
        out = out[..., 0::2] | (out[..., 1::2] << np.uint32(16))
    full = N * N * _BITS[dst] // (32 * 32)     # the operand's wave32 dwords
    if out.shape[-1] < full:
        out = np.concatenate([out, np.zeros(out.shape[:-1] + (full - out.shape[-1],), np.uint32)], -1)
    return {"D0": out}

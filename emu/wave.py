"""Architectural state of every wave of a dispatch chunk, as numpy arrays indexed by wave.

Scalar registers are kept in one (waves, 128) uint32 array indexed by the *operand code*
(0-105 SGPRs, 106/107 VCC, 108-123 TTMP, 124 NULL, 125 M0, 126/127 EXEC), so one
code-to-register rule serves every instruction. VGPRs are (waves, vgprs, lanes) so that
one register of a batch of waves is a (W, L) slab. A batch is selected by `sel`: a slice
when the waves are contiguous (views, no copies), else an index array.
"""
from __future__ import annotations

import numpy as np

VCC_LO, NULL, M0, EXEC_LO, SCC_CODE = 106, 124, 125, 126, 253
RUNNING, AT_BARRIER, ENDED = 0, 1, 2


def unpack_mask(mask: np.ndarray, lanes: int) -> np.ndarray:
    """uint64 (W, 1) lane masks -> bool (W, L), bit i = lane i."""
    w = np.ascontiguousarray(np.asarray(mask, np.uint64).reshape(-1, 1))
    bits = np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    return bits[:, :lanes].astype(bool)


def pack_mask(bits: np.ndarray) -> np.ndarray:
    """bool (W, L) -> uint64 (W, 1)."""
    bits = np.asarray(bits, bool)
    packed = np.packbits(bits, axis=1, bitorder="little")          # (W, L/8)
    full = np.zeros((bits.shape[0], 8), np.uint8)
    full[:, :packed.shape[1]] = packed
    return full.view(np.uint64)


class WaveState:
    def __init__(self, waves: int, lanes: int, vgprs: int):
        self.waves, self.lanes, self.vgprs = waves, lanes, vgprs
        self.sgpr = np.zeros((waves, 128), np.uint32)
        self.vgpr = np.zeros((waves, max(vgprs, 1), lanes), np.uint32)
        self.scc = np.zeros((waves, 1), np.uint32)
        self.pc = np.zeros(waves, np.int64)
        self.mode = np.zeros((waves, 1), np.uint32)
        self.status = np.zeros((waves, 1), np.uint32)
        self.hwreg = np.zeros((waves, 64), np.uint32)   # HW_REGISTERS other than MODE/STATUS (setreg/getreg)
        self.run = np.full(waves, RUNNING, np.int8)
        self.issued = np.zeros(waves, np.int64)          # instructions issued per wave (the budget)
        self.mask_dwords = lanes // 32

    # ---------------------------------------------------------------- EXEC / VCC as wave masks
    def read_mask(self, sel, code: int) -> np.ndarray:
        """The lane mask in SGPR(s) starting at `code` (VCC, EXEC, an SGPR pair): uint64 (W, 1);
        one dword in wave32."""
        lo = self.sgpr[sel, code:code + 1].astype(np.uint64)
        if self.mask_dwords == 2:
            lo |= self.sgpr[sel, code + 1:code + 2].astype(np.uint64) << np.uint64(32)
        return lo

    def write_mask(self, sel, code: int, value: np.ndarray) -> None:
        if code == NULL:
            return
        value = np.asarray(value, np.uint64).reshape(-1, 1)
        self.sgpr[sel, code:code + 1] = (value & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        if self.mask_dwords == 2:
            self.sgpr[sel, code + 1:code + 2] = (value >> np.uint64(32)).astype(np.uint32)

    def exec_mask(self, sel) -> np.ndarray:
        return self.read_mask(sel, EXEC_LO)

    # ---------------------------------------------------------------- register slabs
    def read_sgprs(self, sel, code: int, dwords: int) -> np.ndarray:
        """dwords consecutive SGPRs as one value per wave: (W, 1) uint32 / uint64, or (W, 1, n)."""
        if code == NULL:
            shape = (self._count(sel), 1) + ((dwords,) if dwords > 2 else ())
            return np.zeros(shape, np.uint64 if dwords == 2 else np.uint32)
        regs = self.sgpr[sel, code:code + dwords]
        return join_dwords(regs[:, None, :], dwords)

    def write_sgprs(self, sel, code: int, dwords: int, value: np.ndarray) -> None:
        if code == NULL:
            return
        self.sgpr[sel, code:code + dwords] = split_dwords(value, dwords)[:, 0, :]

    def read_vgprs(self, sel, reg: int, dwords: int) -> np.ndarray:
        if dwords == 1:
            return self.vgpr[sel, reg]
        return join_dwords(np.moveaxis(self.vgpr[sel, reg:reg + dwords], 1, 2), dwords)

    def write_vgprs(self, sel, reg: int, dwords: int, value: np.ndarray, active: np.ndarray | None) -> None:
        """Write (W, L) values (or (W, L, n)) to VGPRs reg.., only in `active` lanes (None: all)."""
        parts = split_dwords(value, dwords, self.lanes)                    # (W, L, n)
        for i in range(dwords):
            if active is None:
                self.vgpr[sel, reg + i] = parts[..., i]
            else:
                self.vgpr[sel, reg + i] = np.where(active, parts[..., i], self.vgpr[sel, reg + i])

    def _count(self, sel) -> int:
        return len(range(self.waves)[sel]) if isinstance(sel, slice) else len(sel)


def join_dwords(regs: np.ndarray, dwords: int) -> np.ndarray:
    """(..., n) uint32 -> uint32 (n=1), uint64 (n=2) or the (..., n) array itself (wider)."""
    if dwords == 1:
        return regs[..., 0]
    if dwords == 2:
        return regs[..., 0].astype(np.uint64) | (regs[..., 1].astype(np.uint64) << np.uint64(32))
    return regs


def split_dwords(value: np.ndarray, dwords: int, lanes: int | None = None) -> np.ndarray:
    """A value as (..., n) uint32 dwords: uint64 splits into lo/hi, (.., n) arrays pass through."""
    value = np.asarray(value)
    if dwords > 2 or (value.ndim == 3 and dwords > 1):
        return value.astype(np.uint32, copy=False)
    if dwords == 2:
        v = value.astype(np.uint64, copy=False)
        return np.stack([(v & np.uint64(0xFFFFFFFF)).astype(np.uint32), (v >> np.uint64(32)).astype(np.uint32)], -1)
    return value.astype(np.uint32)[..., None]

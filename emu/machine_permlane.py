"""FI and BOUND_CTRL of the instructions whose OPSEL bits are those flags (isa.facts.opsel_flags:
v_permlane16_b32, v_permlanex16_b32 and, by an erratum, RDNA4's *_var_b32 forms), which their
pseudocode leaves out: its `tmp[i] = VGPR[i][SRC0.u32]` reads every lane. The manual (RDNA4 7.9,
Table 39 "BC and FI Behavior"; the V_PERMLANE16_B32 entry: OPSEL[0] is DPP's FI, OPSEL[1] its
BOUND_CTRL, and its example "FI bit needed for lanes 14 and 30" whose source lanes are off): a
source lane in range but disabled is read only with FI set; without FI the lane reading it is
not written (BOUND_CTRL 0) or reads 0 (BOUND_CTRL 1). These instructions' lane selects stay in a
row of 16, never out of range, so with FI set, or every lane on, the pseudocode is the answer.

Otherwise the machine runs the semantic once more first, on a view of the register file in which
SRC0's lanes hold their own lane number (above the low 4 bits, which stay the register's: a lane
select read from the same register is unchanged) and whose writes are kept aside: what each lane
would write names the lane it reads. After the real run, the lanes that read a disabled lane get
their old value back (BOUND_CTRL 0) or 0 (BOUND_CTRL 1)."""
from __future__ import annotations

import copy

import numpy as np


class _Provenance:
    """RegFile over the batch's VGPRs that reads SRC0 as (lane << 4 | value & 15) and records
    the writes instead of making them."""

    def __init__(self, vgprs, src0: int, lanes: int, waves: int):
        self.vgprs, self.src0 = vgprs, src0
        self.source = np.full((waves, lanes), -1, np.int64)     # lane read by each lane written, -1: none

    def read(self, reg, lane=None):
        value = self.vgprs.read(reg, lane)
        lane = np.arange(value.shape[-1])[None, :] if lane is None else np.asarray(lane, np.int64)
        marked = (np.asarray(lane, np.uint32) << np.uint32(4)) | (value & np.uint32(15))
        return np.where(np.asarray(reg) == self.src0, marked, value).astype(np.uint32)

    def write(self, reg, lane, value, mask=None):
        w, lane, value = np.broadcast_arrays(np.arange(self.source.shape[0])[:, None], np.asarray(lane, np.int64),
                                             np.asarray(value, np.int64))
        if mask is not None:
            m = np.broadcast_to(mask, w.shape)
            w, lane, value = w[m], lane[m], value[m]
        self.source[w, lane] = value >> 4


def fetch_rule(flags: tuple | None, ctx, sem, exec_mask: np.ndarray, lanes: int):
    """None where the pseudocode's result stands (no flags, FI set, every lane on); else a
    function to call after the semantic's real run that applies BOUND_CTRL to the lanes that
    read a disabled lane. flags: (SRC0's VGPR, VDST, FI, BOUND_CTRL) from the instruction."""
    if flags is None:
        return None
    src0, vdst, fi, bound_ctrl = flags
    full = (1 << lanes) - 1
    if fi or src0 is None or bool((np.asarray(exec_mask, np.uint64) & np.uint64(full) == np.uint64(full)).all()):
        return None
    vgprs = ctx.vgpr
    waves = np.asarray(exec_mask).shape[0]
    view = _Provenance(vgprs, src0, lanes, waves)
    shadow = copy.copy(ctx)
    shadow.vgpr, shadow.dest = view, None
    sem.execute(shadow)
    on = (np.asarray(exec_mask, np.uint64).reshape(waves, 1) >> np.arange(lanes, dtype=np.uint64)[None, :]) & np.uint64(1)
    read = view.source
    src_off = (read >= 0) & (np.take_along_axis(on, np.clip(read, 0, lanes - 1), axis=1) == 0)
    old = vgprs.read(vdst)

    def apply():
        if src_off.any():
            _put(vgprs, vdst, src_off, old, bound_ctrl)
    return apply


def _put(vgprs, vdst: int, where: np.ndarray, old: np.ndarray, bound_ctrl: int) -> None:
    """VDST of the lanes `where` (W, L): 0 with BOUND_CTRL, else their value before the instruction."""
    current = vgprs.read(vdst)
    vgprs.write(vdst, np.arange(where.shape[1])[None, :], np.where(where, 0 if bound_ctrl else old, current))

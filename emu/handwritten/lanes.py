"""Cross-lane LDS-unit instructions whose manual entry does not translate: ds_bpermute_b32,
ds_permute_b32 (the pseudocode indexes VGPR[lane][reg] with the address register number
and, read literally, wraps wave64 lanes into the low half) and ds_swizzle_b32 (C-like code
the grammar parses: loops over the wave's lanes, thread_out[i] = thread_in[j], which the
translator leaves to this module). All three move one dword per lane between lanes of the same wave and
never touch LDS memory.

They take values, not register numbers: ADDR is the lane's byte address (ADDR VGPR +
instruction offset, as for every DS instruction), DATA the DATA0 VGPR, OFFSET the 16-bit
offset field, and the result is RETURN_DATA (written to VDST under EXEC by the machine).

Wave64: the RDNA3 LDS crossbar permutes within each aligned half of 32 lanes (the manual's
"destination lane is MOD 32 regardless of wave size"; a wave64 shuffle needs
v_permlane64 to cross halves), so a lane's partner is `(lane & 32) | (index % 32)`. The
CDNA3 manual's lane is `... / 4U % 64U`: the whole wave64; RDNA4's `% num_lanes`, the
wave size: the whole wave in either size. `modulus` is that (wave32, wave64) pair, read
from the architecture's pseudocode (the lane_modulus fact, isa/code_facts.py).
"""
from __future__ import annotations

import numpy as np

from ..semantics import Ctx


def _group_base(ctx: Ctx, group: int) -> np.ndarray:
    """(1, L): first lane of each lane's group of `group` lanes."""
    return ctx.lane_id & ~np.uint32(group - 1)


def _gather(values: np.ndarray, lanes: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """values[w, lanes[w, i]] where valid[w, lanes[w, i]], else 0: one (W, L) gather."""
    lanes = np.broadcast_to(lanes, values.shape).astype(np.intp)
    got = np.take_along_axis(values, lanes, axis=1)
    ok = np.take_along_axis(np.broadcast_to(valid, values.shape), lanes, axis=1)
    return np.where(ok, got, np.uint32(0))


def _group(ctx: Ctx, modulus: tuple[int, int]) -> int:
    return modulus[ctx.lanes == 64]


def ds_bpermute(ctx: Ctx, modulus: tuple[int, int] = (32, 32)) -> dict:
    """Backward permute: lane i reads DATA of lane (ADDR/4) % group of its group (group: the
    modulus of the wave size); an inactive source lane reads as 0."""
    group = _group(ctx, modulus)
    data = np.broadcast_to(np.asarray(ctx.get("DATA"), np.uint32), ctx.shape)
    addr = np.asarray(ctx.get("ADDR"), np.uint64)
    src = _group_base(ctx, group) | ((addr >> np.uint64(2)) & np.uint64(group - 1)).astype(np.uint32)
    return {"RETURN_DATA": _gather(data, src, ctx.active)}


def ds_permute(ctx: Ctx, modulus: tuple[int, int] = (32, 32)) -> dict:
    """Forward permute: active lane i sends DATA to lane (ADDR/4) % group of its group; when
    several lanes send to one lane the highest-numbered sender wins; a lane nobody sends
    to receives 0."""
    group = _group(ctx, modulus)
    data = np.broadcast_to(np.asarray(ctx.get("DATA"), np.uint32), ctx.shape)
    addr = np.broadcast_to(np.asarray(ctx.get("ADDR"), np.uint64), ctx.shape)
    dst = _group_base(ctx, group) | ((addr >> np.uint64(2)) & np.uint64(group - 1)).astype(np.uint32)
    waves, lanes = ctx.shape
    sender = np.full(ctx.shape, -1, np.int64)          # highest active lane sending to each lane
    w = np.broadcast_to(np.arange(waves)[:, None], ctx.shape)
    i = np.broadcast_to(np.arange(lanes)[None, :], ctx.shape)
    act = ctx.active
    np.maximum.at(sender, (w[act], dst[act].astype(np.intp)), i[act])
    got = np.take_along_axis(data, np.maximum(sender, 0), axis=1)
    return {"RETURN_DATA": np.where(sender >= 0, got, np.uint32(0))}


def swizzle_sources(offset: int, lanes: int) -> np.ndarray:
    """int (L,): the lane each lane reads for a ds_swizzle offset (the manual's four modes,
    decided by the offset's top bits). Partners stay inside the lane's 32-lane half."""
    i = np.arange(lanes)
    low = i & 31
    if offset >= 0xE000:                    # FFT: bit-reversed lane, shifted, low bits kept
        mask = offset & 0x1F
        rev = np.zeros_like(low)
        for b in range(5):                  # reverse the 5 lane-index bits (5 vector steps)
            rev |= ((low >> b) & 1) << (4 - b)
        j = (rev >> bin(mask).count("1")) | (low & mask)
    elif offset >= 0xC000:                  # rotate the lanes outside `mask` by +-rotate
        rotate, mask = (offset >> 5) & 0x1F, offset & 0x1F
        if offset & (1 << 10):
            rotate = -rotate
        j = (low & mask) | ((low + rotate) & ~mask & 31)
    elif offset & 0x8000:                   # quad permute: 2-bit lane selectors per quad lane
        sel = np.array([(offset >> (2 * k)) & 3 for k in range(4)])
        j = (low & ~3) | sel[low & 3]
    else:                                   # bitmask permute: and, or, then xor of the lane index
        and_mask, or_mask, xor_mask = offset & 0x1F, (offset >> 5) & 0x1F, (offset >> 10) & 0x1F
        j = ((low & and_mask) | or_mask) ^ xor_mask
    return (i & 32) | j


def ds_swizzle(ctx: Ctx) -> dict:
    """Lane i reads DATA of lane swizzle_sources(OFFSET)[i]; an inactive source reads 0."""
    data = np.broadcast_to(np.asarray(ctx.get("DATA"), np.uint32), ctx.shape)
    src = swizzle_sources(int(ctx.get("OFFSET")), ctx.lanes)[None, :]
    return {"RETURN_DATA": _gather(data, src, ctx.active)}

"""Lane order for atomics that touch more than one address per lane: the LDS two-address
exchanges (RDNA's DS_STOREXCHG_2ADDR*_RTN_*, CDNA's DS_WRXCHG2*_RTN_*), which read and write
ADDR_BASE + OFFSET0 * size and ADDR_BASE + OFFSET1 * size (times 64 for the stride-64 forms).

Grouping their lanes by ADDR alone is not enough: one lane's second element may be another
lane's first, and two lanes in one round would read the word before either wrote it. So the
words each lane touches are found where the pseudocode itself accesses memory: it runs once on
the batch against a `Recorder` (no memory touched, loads read 0; an atomic's addresses do not
depend on what it loads), and every dword of every access is one of the lane's words (an LDS
region's base added: the same offset in two work-groups is two words). A lane runs in the round
after the last earlier lane (in lane order, wave-major) that shares any word with it
(`lane_order_rounds`), so the lanes of one round touch disjoint words and each word sees its
lanes one after another in lane order, as the memory system applies them.
"""
from __future__ import annotations

import numpy as np

from .memory import RegionMemory
from .semantics import Ctx, broadcast


class Recorder:
    """A memory that keeps where each access is ((W, L) uint64 addresses, bytes, (W, L) mask)
    and touches nothing: loads read 0, stores are dropped."""

    observer = None             # the Memory protocol's hook (timing): recording is no traffic

    def __init__(self, shape: tuple):
        self.shape = shape
        self.accesses: list = []

    def _keep(self, addr, nbytes: int, mask) -> None:
        addr = np.broadcast_to(np.asarray(addr), self.shape).astype(np.uint64)
        self.accesses.append((addr, nbytes, broadcast(mask, self.shape)))

    def load(self, addr, nbytes: int, mask) -> np.ndarray:
        self._keep(addr, nbytes, mask)
        return np.zeros(self.shape, np.uint64 if nbytes == 8 else np.uint32)

    def store(self, addr, nbytes: int, value, mask) -> None:
        self._keep(addr, nbytes, mask)


def touched_words(fn, ctx: Ctx) -> tuple[np.ndarray, np.ndarray]:
    """(flat lane index, dword) for every dword each active lane of ctx accesses, found by
    running the semantic `fn` against a Recorder; dwords are byte address // 4, plus the LDS
    region's base where ctx.mem is one."""
    shape = ctx.shape
    recorder = Recorder(shape)
    fn(ctx.derive(mem=recorder))
    region = 0
    if isinstance(ctx.mem, RegionMemory):
        region = np.broadcast_to(np.asarray(ctx.mem.base), shape).astype(np.uint64)
    active = ctx.active
    lanes, words = [], []
    for addr, nbytes, mask in recorder.accesses:
        on = (mask & active).reshape(-1)
        start = (addr + region).reshape(-1)[on]
        first, last = start >> np.uint64(2), (start + np.uint64(nbytes - 1)) >> np.uint64(2)
        index = np.flatnonzero(on)
        for k in range(int((last - first).max(initial=0)) + 1):     # an access of n bytes: <= n/4 + 1 dwords
            reach = first + np.uint64(k) <= last
            lanes.append(index[reach])
            words.append(first[reach] + np.uint64(k))
    if not lanes:
        return np.zeros(0, np.int64), np.zeros(0, np.uint64)
    return np.concatenate(lanes), np.concatenate(words)


def lane_order_rounds(ctx: Ctx, lanes: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The round of each lane ((W, L) int64, -1 for inactive lanes): an active lane runs as soon
    as every earlier active lane (flat index order, i.e. wave-major lane order) sharing one of its
    words has run. lanes, words: one (flat lane, word) pair per word a lane touches."""
    size = ctx.shape[0] * ctx.shape[1]
    rank = np.full(size, -1, np.int64)
    pending = ctx.active.reshape(-1).copy()
    order = np.lexsort((lanes, words))                 # by word, then lane
    lanes, words = lanes[order], words[order]
    r = 0
    while pending.any():
        waiting = pending[lanes]
        lanes, words = lanes[waiting], words[waiting]
        blocked = np.zeros(size, bool)
        if words.size:
            new_word = np.r_[True, words[1:] != words[:-1]]
            first = lanes[new_word][np.cumsum(new_word) - 1]       # each word's first pending lane
            blocked[lanes[lanes != first]] = True
        ready = pending & ~blocked
        rank[ready] = r
        pending &= ~ready
        r += 1
    return rank.reshape(ctx.shape)

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

An exchange whose lanes share both their elements or none (switch
EmuOptions.one_pass_exchanges) needs no rounds: `one_pass_exchange` runs it like a one-address
swap, each group's first lane reading memory and every later lane what the lane before it
stored.
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


class _Recording(Recorder):
    """A Recorder whose loads read `fill` in every bit and that keeps what is stored: run with
    two fills, equal stores mean the stores do not depend on what was loaded (an exchange)."""

    def __init__(self, shape: tuple, fill: int):
        super().__init__(shape)
        self.fill = fill
        self.loads: list = []           # indices into accesses
        self.stores: list = []          # (index into accesses, value (W, L) uint64)

    def load(self, addr, nbytes: int, mask) -> np.ndarray:
        self.loads.append(len(self.accesses))
        self._keep(addr, nbytes, mask)
        dtype = np.uint64 if nbytes == 8 else np.uint32
        return np.full(self.shape, self.fill, np.uint64).astype(dtype)

    def store(self, addr, nbytes: int, value, mask) -> None:
        self.stores.append((len(self.accesses), np.broadcast_to(np.asarray(value), self.shape).astype(np.uint64)))
        self._keep(addr, nbytes, mask)


class _Before:
    """The memory of an exchange's one pass: the leaders' loads (the first lane of each group)
    read memory, every later lane's k-th load reads what the lane before it in its group stored
    at that address (`before[k]`, (W, L) uint64); stores are dropped (the last lanes' stores are
    written afterwards). A load elsewhere than recorded is _Unsuited."""

    def __init__(self, mem, shape: tuple, leaders: np.ndarray, where: list, before: list):
        self.mem, self.shape, self.leaders, self.where, self.before = mem, shape, leaders, where, before
        self.count = 0

    @property
    def observer(self):
        return getattr(self.mem, "observer", None)

    def load(self, addr, nbytes: int, mask) -> np.ndarray:
        k = self.count
        self.count += 1
        mask = broadcast(mask, self.shape)
        if k >= len(self.where) or nbytes != self.where[k][1] or not np.array_equal(
                np.broadcast_to(np.asarray(addr), self.shape)[mask].astype(np.uint64), self.where[k][0][mask]):
            raise _Unsuited()
        real = np.asarray(self.mem.load(addr, nbytes, mask & self.leaders)).astype(np.uint64)
        value = np.where(self.leaders, np.broadcast_to(real, self.shape), self.before[k])
        return value.astype(np.uint64 if nbytes == 8 else np.uint32)

    def store(self, addr, nbytes: int, value, mask) -> None:
        pass


class _Unsuited(Exception):
    """The one pass's assumptions do not hold (run in rounds)."""


def one_pass_exchange(fn, ctx: Ctx):
    """An exchange (EmuOptions.one_pass_exchanges) whose lanes share all their addresses or none:
    each group of lanes with the same addresses (none of whose words another group touches) runs
    like a one-address swap, in lane order: its first lane reads memory, every later lane reads
    what the lane before it stored, and each word keeps what the group's last lane stored. An
    exchange here is what the pseudocode shows when run twice against recorders loading 0 and
    all ones: the same accesses, every load before every store, every loaded address stored,
    and stores that do not depend on the loads. Returns the semantic's outputs, or None (memory
    untouched) to run in rounds."""
    shape = ctx.shape
    size = shape[0] * shape[1]
    runs = [_Recording(shape, 0), _Recording(shape, 2**64 - 1)]
    for recording in runs:
        fn(ctx.derive(mem=recording))
    zero, ones = runs
    if not zero.loads or not zero.stores or len(zero.accesses) != len(ones.accesses) \
            or max(zero.loads) > min(i for i, _ in zero.stores):
        return None
    for (a, n, m), (b, k, q) in zip(zero.accesses, ones.accesses):
        if n != k or not np.array_equal(a, b) or not np.array_equal(m, q):
            return None
    if any(not np.array_equal(v, w) for (_, v), (_, w) in zip(zero.stores, ones.stores)):
        return None
    active = ctx.active
    region = 0
    if isinstance(ctx.mem, RegionMemory):
        region = np.broadcast_to(np.asarray(ctx.mem.base), shape).astype(np.uint64)
    loads = [zero.accesses[i] for i in zero.loads]
    if any(not np.array_equal(m, active) for _, _, m in loads):
        return None
    # each lane's key: its loads' addresses (region included), one column per load
    keys = np.stack([(a + region).reshape(-1) for a, _, _ in loads], axis=1)
    # what each lane leaves at each loaded address: its last store there (every one stored)
    left = []
    for a, n, _ in loads:
        value, seen = np.zeros(size, np.uint64), np.zeros(size, bool)
        for i, v in zero.stores:
            b, k, m = zero.accesses[i]
            at = (m & (b == a)).reshape(-1)
            if at.any() and k != n:
                return None
            value = np.where(at, v.reshape(-1), value)
            seen |= at
        if not seen[active.reshape(-1)].all():
            return None
        left.append(value)
    pos = np.flatnonzero(active.reshape(-1))
    order = np.lexsort((pos,) + tuple(keys[pos, c] for c in reversed(range(keys.shape[1]))))
    pos = pos[order]
    k_sorted = keys[pos]
    first = np.r_[True, (k_sorted[1:] != k_sorted[:-1]).any(axis=1)] if pos.size else np.zeros(0, bool)
    # the groups must not meet: every dword of every load belongs to one group
    group = np.cumsum(first) - 1
    dwords, owners = [], []
    for c, (_, n, _) in enumerate(loads):
        lo = k_sorted[:, c] >> np.uint64(2)
        hi = (k_sorted[:, c] + np.uint64(n - 1)) >> np.uint64(2)
        for j in range(int((hi - lo).max(initial=0)) + 1):
            reach = lo + np.uint64(j) <= hi
            dwords.append(lo[reach] + np.uint64(j))
            owners.append(group[reach])
    dwords, owners = np.concatenate(dwords), np.concatenate(owners)
    order = np.lexsort((owners, dwords))
    dwords, owners = dwords[order], owners[order]
    if ((dwords[1:] == dwords[:-1]) & (owners[1:] != owners[:-1])).any():
        return None                     # one lane's element is another group's: rounds
    if first.all():
        return fn(ctx)                  # no word shared between lanes
    leaders = np.zeros(size, bool)
    leaders[pos[first]] = True
    last = np.zeros(size, bool)
    last[pos[np.r_[first[1:], True]]] = True
    before = []
    for value in left:
        b = np.zeros(size, np.uint64)
        b[pos[1:]] = value[pos[:-1]]    # the lane before in its group (leaders read memory instead)
        before.append(b.reshape(shape))
    memory = _Before(ctx.mem, shape, leaders.reshape(shape), [(a, n) for a, n, _ in loads], before)
    try:
        out = fn(ctx.derive(mem=memory))
    except _Unsuited:
        return None
    last = last.reshape(shape)
    for i, v in zero.stores:            # the groups' last lanes' stores, in the pseudocode's order
        a, n, m = zero.accesses[i]
        ctx.mem.store(a, n, v if n == 8 else v.astype(np.uint32), m & last)
    return out

"""Atomics whose result depends on the order of the lanes sharing an address (swap, compare-
and-swap, inc/dec, float min/max/add, packed adds, masked or, wrap, conditional subtracts):
one read and one write of each address instead of rounds over the whole batch.

The memory system applies lanes that share an address one after another in lane order
(wave-major within the batch). The rounds of emu/table.py do so by running the semantic once
per round on the whole batch with the lanes of that round on. Here (switch
EmuOptions.scan_atomics) round 0 runs as it would, on the whole batch with the first lane of
each address on, but its stores are held back (`Deferred`): where its pseudocode loads and
stores is each address's word, whatever address arithmetic the pseudocode does itself (CDNA's
CalcDsAddr adds the DS offset to ADDR), and a fault there is the one round 0 reports. The
pseudocode then runs once per later conflict depth r, on a batch of just the r-th lanes of
the addresses that have one, against `Slots`: the words as round 0 left them, in a small
array, each lane's access checked to reach its own address's word. Every lane's RETURN_DATA
is the word before its own update, as in rounds; at the end each word goes back to memory in
one write. The loop is over the depth of the busiest address (a counter every lane bumps: the
lanes), each pass a few waves, never over lanes of a batch.

Anything outside this shape runs in rounds: *_2ADDR forms (two addresses per lane), FLAT
accesses in the LDS or scratch apertures when they are not grouped by the word each reaches
(switch EmuOptions.flat_aperture_atomics: one flat address is a word per work-group or lane
there), waves of one batch with different MODE or STATUS when their passes are not split by
them (switch EmuOptions.scan_mixed_modes), or a semantic that touches memory
other than its own word (a width other than the atomic's, a load after its store, two
addresses meeting at one word) or writes more than RETURN_DATA (nothing was written to memory
yet when that is found out). A buffer's lanes out of range are taken apart before
(emu/table.py); the rest are atomics on global memory.
"""
from __future__ import annotations

import numpy as np

from .memory import MemoryFault, RegionMemory
from .options import current
from .semantics import Ctx, SemanticsError, broadcast


class Unsuited(Exception):
    """The semantic accessed memory the scan does not hold (run it in rounds)."""


class Deferred:
    """The memory of the leaders' pass (one lane per address, on the whole batch): loads go to
    memory (a fault names the lane round 0 would), stores are kept, not written. Where the
    pseudocode loads and stores is where the scan's words are (DS offsets it adds itself
    included); an access of another width, a load after a store or a store elsewhere than the
    first is Unsuited."""

    def __init__(self, mem, width: int, shape: tuple):
        self.mem, self.width, self.shape = mem, width, shape
        self.loads: list = []           # (addr, mask, value)
        self.at = None                  # the first store's address operand (as given: maybe split)
        self.value = np.zeros(shape, np.uint64)
        self.stored = np.zeros(shape, bool)

    @property
    def observer(self):                 # the Memory protocol's hook (timing): the memory's own
        return getattr(self.mem, "observer", None)

    def load(self, addr, nbytes: int, mask):
        if nbytes != self.width or self.at is not None:
            raise Unsuited()
        value = self.mem.load(addr, nbytes, mask)
        self.loads.append((addr, mask, value))
        return value

    def store(self, addr, nbytes: int, value, mask) -> None:
        if nbytes != self.width:
            raise Unsuited()
        mask = broadcast(mask, self.shape)
        if self.at is None:
            self.at = addr
        elif not np.array_equal(broadcast(np.asarray(addr), self.shape)[mask],
                                broadcast(np.asarray(self.at), self.shape)[mask]):
            raise Unsuited()
        self.value[mask] = broadcast(np.asarray(value), self.shape)[mask]
        self.stored |= mask


class Slots:
    """The scanned addresses' words (one uint64 each) as the memory of a pass over a few lanes:
    `lane_slot` ((waves, lanes), set per pass) is the word each lane's access must reach, and
    `where` the address the leaders' pass found each word at. An access of another width or at
    another address is Unsuited."""

    observer = None             # the Memory protocol's hook (timing); slots are no memory traffic

    def __init__(self, words: np.ndarray, where: np.ndarray, width: int):
        self.words = words.astype(np.uint64)
        self.where = where
        self.width = width
        self.lane_slot = np.zeros((1, 1), np.int64)

    def _slots(self, addr, nbytes: int, mask):
        slot = self.lane_slot
        if nbytes != self.width:
            raise Unsuited()
        mask = broadcast(mask, slot.shape)
        addr = broadcast(np.asarray(addr), slot.shape)
        if not np.array_equal(addr[mask], self.where[slot[mask]]):
            raise Unsuited()
        return slot, mask

    def load(self, addr, nbytes: int, mask) -> np.ndarray:
        slot, mask = self._slots(addr, nbytes, mask)
        value = np.where(mask, self.words[slot], np.uint64(0))
        return value if nbytes == 8 else value.astype(np.uint32)

    def store(self, addr, nbytes: int, value, mask) -> None:
        slot, mask = self._slots(addr, nbytes, mask)
        value = broadcast(np.asarray(value), slot.shape)[mask].astype(np.uint64)
        self.words[slot[mask]] = value if nbytes == 8 else value & np.uint64(0xFFFFFFFF)


def scan(fn, ctx: Ctx, pos: np.ndarray, first: np.ndarray, width: int, reads, swap: bool = False, exchange=None):
    """The atomic `fn` for every active lane of ctx, lanes sharing an address in lane order.
    pos: the active lanes' flat indices sorted by address, then lane; first: where each
    address's lanes start in pos; width: the atomic's bytes (4 or 8); reads: the inputs the
    semantic reads; swap: the pseudocode stores DATA and returns the old word (swap_of);
    exchange: where an integer compare-and-swap's src and cmp come from (cmpswap_of).
    Returns the semantic's outputs, or None to run in rounds (memory untouched).

    A depth's pass runs its lanes with their own wave's MODE and STATUS (a float atomic's
    rounding and denormal rules are the wave's): lanes of waves that differ in them run in one
    call per (MODE, STATUS) (EmuOptions.scan_mixed_modes). Sound in any order: the lanes of one
    depth reach distinct words, one lane per word."""
    starts = np.flatnonzero(first)
    segment = np.cumsum(first) - 1                 # each element's address number
    rank = np.arange(pos.size) - starts[segment]   # ... and its place among that address's lanes
    lanes, shape = ctx.lanes, ctx.shape
    size = shape[0] * shape[1]
    fields, per_lane = {}, {}
    for name in reads:
        try:
            value = ctx.get(name)
        except SemanticsError:                     # rounds say what is missing
            return None
        if np.ndim(value) == 0:                    # an instruction-word field
            fields[name] = value
            continue
        value = np.asarray(value)
        if value.ndim < 2:
            return None
        trail = value.shape[2:]
        per_lane[name] = np.broadcast_to(value, shape + trail).reshape((-1,) + trail)[pos]
    leaders = np.zeros(size, bool)
    leaders[pos[starts]] = True
    leaders = leaders.reshape(shape)
    # round 0 (the first lane of each address) on the whole batch, its store held back: where
    # its pseudocode accesses memory is each address's word, a fault the one round 0 reports
    held = Deferred(ctx.mem, width, shape)
    bits = np.uint64(1) << np.arange(lanes, dtype=np.uint64)
    exec_leaders = np.bitwise_or.reduce(np.where(leaders, bits, np.uint64(0)), axis=1, keepdims=True)
    try:
        out0 = fn(ctx.derive(exec_mask=exec_leaders, mem=held))
    except (Unsuited, SemanticsError):
        return None
    where = _words_at(ctx, held, leaders, pos[starts])
    if where is None or not set(out0) <= {"RETURN_DATA"}:
        return None
    store_addr = held.at
    old = np.broadcast_to(np.asarray(held.loads[0][2]), shape).reshape(-1)
    if swap and "DATA" in per_lane and per_lane["DATA"].ndim == 1 and current().one_pass_swaps:
        return _swapped(ctx, store_addr, leaders, pos, first, old, per_lane["DATA"], width)
    if exchange is not None and current().cmpswap_successes and all(name in per_lane for name, _ in exchange):
        src, cmp = (_field(per_lane[name], lo, 8 * width) for name, lo in exchange)
        return _exchanged(ctx, store_addr, leaders, pos, first, old, src, cmp, width)
    words = held.value.reshape(-1)[pos[starts]]
    slots = Slots(words, where, width)
    returned = None
    if "RETURN_DATA" in out0:
        r = np.asarray(out0["RETURN_DATA"])
        r = np.broadcast_to(r, shape + r.shape[2:]).reshape((size,) + r.shape[2:])
        returned = np.zeros((pos.size,) + r.shape[1:], r.dtype)
        returned[starts] = r[pos[starts]]
    later = np.flatnonzero(rank)
    by_rank = later[np.argsort(rank[later], kind="stable")]     # depth 1's lanes, then depth 2's, ...
    regimes = _regimes(ctx, pos)
    done = 0
    for n in np.bincount(rank)[1:].tolist():
        depth = by_rank[done:done + n]
        done += n
        for pick, mode, status in _by_regime(depth, regimes):
            if not _pass(fn, lanes, pick, fields, per_lane, segment, slots, mode, status, out0, returned):
                return None
    final = np.zeros(size, np.uint64 if width == 8 else np.uint32)
    final[pos[starts]] = slots.words.astype(final.dtype)
    ctx.mem.store(store_addr, width, final.reshape(shape), leaders)
    if returned is None:
        return {}
    ret = np.zeros((size,) + returned.shape[1:], returned.dtype)
    ret[pos] = returned
    return {"RETURN_DATA": ret.reshape(shape + returned.shape[1:])}


def _regimes(ctx: Ctx, pos: np.ndarray):
    """(MODE, STATUS) as ints when every wave of ctx holds the same, else a uint64 per element
    of pos: its wave's MODE << 32 | STATUS."""
    mode, status = ctx.mode, ctx.status
    if all(np.ndim(v) == 0 or (np.asarray(v) == np.asarray(v).reshape(-1)[0]).all() for v in (mode, status)):
        return int(np.asarray(mode).reshape(-1)[0]), int(np.asarray(status).reshape(-1)[0])
    shape = ctx.shape
    per_lane = (np.broadcast_to(np.asarray(mode, np.uint64), shape).astype(np.uint64) << np.uint64(32)) | \
        np.broadcast_to(np.asarray(status, np.uint64), shape).astype(np.uint64)
    return per_lane.reshape(-1)[pos]


def _by_regime(pick: np.ndarray, regimes):
    """(lanes, MODE, STATUS) for each (MODE, STATUS) among the lanes `pick` (indices into pos)."""
    if isinstance(regimes, tuple):
        yield pick, regimes[0], regimes[1]
        return
    of_pick = regimes[pick]
    for regime in np.unique(of_pick).tolist():
        yield pick[of_pick == regime], regime >> 32, regime & 0xFFFFFFFF


def _pass(fn, lanes: int, pick, fields: dict, per_lane: dict, segment, slots: Slots, mode: int, status: int,
          out0: dict, returned) -> bool:
    """One pass of the lanes `pick` (indices into pos, one lane per word) packed into waves of
    their own, against the words in `slots`; their RETURN_DATA into `returned`. False: run in
    rounds instead."""
    n = pick.size
    waves = -(-n // lanes)
    inputs = dict(fields)
    for name, value in per_lane.items():
        inputs[name] = _packed(value[pick], waves, lanes)
    slots.lane_slot = _packed(segment[pick], waves, lanes)
    exec_mask = np.full((waves, 1), (1 << lanes) - 1, np.uint64)
    if n % lanes:
        exec_mask[-1, 0] = (1 << (n % lanes)) - 1
    try:
        out = fn(Ctx(lanes=lanes, exec_mask=exec_mask, mode=mode, status=status, mem=slots, inputs=inputs))
    except (Unsuited, MemoryFault, SemanticsError):
        return False
    if set(out) != set(out0):
        return False
    if "RETURN_DATA" in out:
        r = np.asarray(out["RETURN_DATA"])
        r = np.broadcast_to(r, (waves, lanes) + r.shape[2:]).reshape((waves * lanes,) + r.shape[2:])[:n]
        returned[pick] = r.astype(returned.dtype, copy=False)
    return True


def _words_at(ctx: Ctx, held: Deferred, leaders: np.ndarray, leader_pos: np.ndarray):
    """The address of each leader's word (uint64, in leader order) when round 0 loaded and
    then stored exactly there, on exactly the leaders, and no two leaders reached one word
    (lanes were grouped by ADDR: a pseudocode adding one instruction offset to it keeps them
    apart); else None."""
    if not held.loads or not np.array_equal(held.stored, leaders):
        return None
    shape = ctx.shape
    at = np.broadcast_to(np.asarray(held.at), shape).reshape(-1)[leader_pos].astype(np.uint64)
    for addr, mask, _ in held.loads:
        if not np.array_equal(broadcast(mask, shape), leaders) or \
                not np.array_equal(np.broadcast_to(np.asarray(addr), shape).reshape(-1)[leader_pos], at):
            return None
    given = np.broadcast_to(np.asarray(ctx.get("ADDR")), shape).reshape(-1)[leader_pos]
    if not np.array_equal(given, at):           # the pseudocode moved the address: still one word each?
        base = ctx.mem.base if isinstance(ctx.mem, RegionMemory) else 0    # LDS: one word per work-group
        region = np.broadcast_to(np.asarray(base), shape).reshape(-1)[leader_pos]
        if np.unique(at + region.astype(np.uint64)).size != at.size:
            return None
    return at


def _swapped(ctx: Ctx, addr, leaders, pos, first, old, data, width: int) -> dict:
    """A swap's scan in one pass (EmuOptions.one_pass_swaps): the first lane of each address
    returns the word, every later lane the data of the lane before it, and the word ends as
    the address's last lane's data."""
    dtype = np.uint64 if width == 8 else np.uint32
    data = data.astype(dtype)
    shape, size = ctx.shape, ctx.shape[0] * ctx.shape[1]
    returned = np.r_[data[:1], data[:-1]]               # the lane before, in address-then-lane order
    returned[first] = old[pos[first]]
    last = np.r_[np.flatnonzero(first)[1:] - 1, pos.size - 1]
    final = np.zeros(size, dtype)
    final[pos[first]] = data[last]
    ctx.mem.store(addr, width, final.reshape(shape), leaders)
    ret = np.zeros(size, dtype)
    ret[pos] = returned
    return {"RETURN_DATA": ret.reshape(shape)}


def swap_of(update: tuple | None) -> bool:
    """Whether an atomic's memory update (emu.facts.atomic_update: kind, type, returns_old,
    operands) is a swap: the old word returned, DATA stored in its place."""
    return update is not None and update[0] == "swap" and update[2]


def _exchanged(ctx: Ctx, addr, leaders, pos, first, old, src, cmp, width: int) -> dict:
    """An integer compare-and-swap's scan (EmuOptions.cmpswap_successes), in passes over its
    successful exchanges instead of its conflict depth: each pass finds, per address, the next
    lane whose cmp equals the word; it and the lanes before it return the word, which becomes
    that lane's src (no such lane: the rest return the word). A lock's first try, or a CAS
    loop's round, is two passes however many lanes contend. src, cmp: uint64 per element of pos."""
    n = pos.size
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], n]
    segment = np.cumsum(first) - 1
    index = np.arange(n)
    word = old[pos[starts]].astype(np.uint64)          # per address, as the lanes so far left it
    next_lane = starts.copy()                           # per address: its first lane not yet applied
    returned = np.zeros(n, np.uint64)
    while (next_lane < ends).any():
        pending = index >= next_lane[segment]
        hit = np.minimum.reduceat(np.where(pending & (cmp == word[segment]), index, n), starts)
        stop = np.where(hit < n, hit + 1, ends)
        upto = pending & (index < stop[segment])
        returned[upto] = word[segment[upto]]
        took = hit < n
        word[took] = src[hit[took]]
        next_lane = stop
    dtype = np.uint64 if width == 8 else np.uint32
    shape, size = ctx.shape, ctx.shape[0] * ctx.shape[1]
    final = np.zeros(size, dtype)
    final[pos[starts]] = word
    ctx.mem.store(addr, width, final.reshape(shape), leaders)
    ret = np.zeros(size, dtype)
    ret[pos] = returned
    return {"RETURN_DATA": ret.reshape(shape)}


def _field(value: np.ndarray, lo: int, bits: int) -> np.ndarray:
    """Bits [lo, lo + bits) of each element as uint64: value (n,) integers or (n, k) dwords."""
    if value.ndim == 2:
        words = value[:, lo // 32:(lo + bits) // 32].astype(np.uint64)
        return words[:, 0] | (words[:, 1] << np.uint64(32)) if bits == 64 else words[:, 0]
    v = value.astype(np.uint64) >> np.uint64(lo)
    return v if bits == 64 else v & np.uint64((1 << bits) - 1)


def cmpswap_of(update: tuple | None):
    """((src operand, its low bit), (cmp operand, its low bit)) when an atomic's memory update
    (emu.facts.atomic_update) is an integer compare-and-swap returning the old word (a float one
    compares as floats: not this), else None."""
    if update is None or update[0] != "cmpswap" or not update[2] or update[1].rstrip("0123456789") not in ("b", "u", "i"):
        return None
    return update[3]


def _packed(values: np.ndarray, waves: int, lanes: int) -> np.ndarray:
    """values (n, ...) as a (waves, lanes, ...) batch, zero past n."""
    out = np.zeros((waves * lanes,) + values.shape[1:], values.dtype)
    out[:len(values)] = values
    return out.reshape((waves, lanes) + values.shape[1:])

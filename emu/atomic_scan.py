"""Atomics whose result depends on the order of the lanes sharing an address (swap, compare-
and-swap, inc/dec, float min/max/add, packed adds, masked or, wrap, conditional subtracts):
one read and one write of each address instead of rounds over the whole batch.

The memory system applies lanes that share an address one after another in lane order
(wave-major within the batch). The rounds of emu/table.py do so by running the semantic once
per round on the whole batch with the lanes of that round on. Here (switch
EmuOptions.scan_atomics) each address is read once, with one lane per address on (the fault
of an address outside memory is the one the first round would report: same lanes, same
order); the pseudocode then runs once per conflict depth r, on a batch of just the r-th lanes
of the addresses that have one, against `Slots`: the addresses' current words in a small
array, each lane's ADDR its address's slot. Every lane's RETURN_DATA is the word before its
own update, as in rounds; at the end each word goes back to memory in one write. The loop is
over the depth of the busiest address (a counter every lane bumps: the lanes), each pass a
few waves, never over lanes of a batch.

Anything outside this shape runs in rounds: *_2ADDR forms (two addresses per lane), buffers
(a per-lane range check drops lanes), FLAT accesses in the LDS or scratch apertures (one flat
address is a word per work-group or lane there), waves of one batch with different MODE or
STATUS, or a semantic that touches memory other than its own word or writes more than
RETURN_DATA (nothing was written to memory yet when that is found out).
"""
from __future__ import annotations

import re

import numpy as np

from .memory import MemoryFault, _gather, _scatter
from .options import current
from .semantics import Ctx, SemanticsError, broadcast


class Unsuited(Exception):
    """The semantic accessed memory the scan does not hold (run it in rounds)."""


class Slots:
    """The scanned addresses' words: slot i at bytes [8i, 8i + width) of a byte array. A
    semantic's ADDR is its lane's slot offset (8i); an access must start there and stay in
    the word's width."""

    observer = None             # the Memory protocol's hook (timing); slots are no memory traffic

    def __init__(self, words: np.ndarray, width: int):
        self.width = width
        self.data = np.zeros(8 * words.size, np.uint8)
        self.data.view(np.uint64)[:] = words.astype(np.uint64)

    def words(self, dtype) -> np.ndarray:
        return self.data.view(np.uint64).astype(dtype)

    def _offsets(self, addr, nbytes: int, mask) -> np.ndarray:
        # every lane's offset (the packed batch's unused lanes hold slot 0's) must be a slot's
        offset = np.asarray(addr).astype(np.int64)
        if nbytes > self.width or int(np.bitwise_or.reduce(offset, axis=None)) & 7 \
                or int(offset.max(initial=0)) >= self.data.size:
            raise Unsuited()
        return offset

    def load(self, addr, nbytes: int, mask) -> np.ndarray:
        return _gather(self.data, self._offsets(addr, nbytes, mask), nbytes, broadcast(mask, np.shape(addr)))

    def store(self, addr, nbytes: int, value, mask) -> None:
        _scatter(self.data, self._offsets(addr, nbytes, mask), nbytes, value, mask)


def scan(fn, ctx: Ctx, pos: np.ndarray, first: np.ndarray, width: int, reads, mode: int, status: int,
         swap: bool = False, exchange=None):
    """The atomic `fn` for every active lane of ctx, lanes sharing an address in lane order.
    pos: the active lanes' flat indices sorted by address, then lane; first: where each
    address's lanes start in pos; width: the atomic's bytes (4 or 8); reads: the inputs the
    semantic reads; swap: the pseudocode stores DATA and returns the old word (swap_of);
    exchange: where an integer compare-and-swap's src and cmp come from (cmpswap_of).
    Returns the semantic's outputs, or None to run in rounds (memory untouched)."""
    starts = np.flatnonzero(first)
    segment = np.cumsum(first) - 1                 # each element's address number
    rank = np.arange(pos.size) - starts[segment]   # ... and its place among that address's lanes
    lanes, shape = ctx.lanes, ctx.shape
    fields, per_lane = {}, {}
    for name in reads:
        if name == "ADDR":
            continue
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
    addr = ctx.get("ADDR")
    leaders = np.zeros(shape[0] * shape[1], bool)
    leaders[pos[starts]] = True
    leaders = leaders.reshape(shape)
    old = np.asarray(ctx.mem.load(addr, width, leaders))       # a fault names the first leader, as round 0 would
    old = np.broadcast_to(old, shape).reshape(-1)
    if swap and "DATA" in per_lane and per_lane["DATA"].ndim == 1 and current().one_pass_swaps:
        return _swapped(ctx, addr, leaders, pos, first, old, per_lane["DATA"], width)
    if exchange is not None and current().cmpswap_successes and all(name in per_lane for name, _ in exchange):
        src, cmp = (_field(per_lane[name], lo, 8 * width) for name, lo in exchange)
        return _exchanged(ctx, addr, leaders, pos, first, old, src, cmp, width)
    slots = Slots(old[pos[starts]], width)
    by_rank = np.argsort(rank, kind="stable")                   # depth 0's lanes, then depth 1's, ...
    counts = np.bincount(rank)
    returned = None
    done = 0
    for n in counts.tolist():
        pick = by_rank[done:done + n]
        done += n
        waves = -(-n // lanes)
        inputs = dict(fields)
        for name, value in per_lane.items():
            inputs[name] = _packed(value[pick], waves, lanes)
        inputs["ADDR"] = _packed(segment[pick].astype(np.uint64) << np.uint64(3), waves, lanes)
        exec_mask = np.full((waves, 1), (1 << lanes) - 1, np.uint64)
        if n % lanes:
            exec_mask[-1, 0] = (1 << (n % lanes)) - 1
        try:
            out = fn(Ctx(lanes=lanes, exec_mask=exec_mask, mode=mode, status=status, mem=slots, inputs=inputs))
        except (Unsuited, MemoryFault, SemanticsError):
            return None
        if not set(out) <= {"RETURN_DATA"}:
            return None
        if "RETURN_DATA" in out:
            r = np.asarray(out["RETURN_DATA"])
            r = np.broadcast_to(r, (waves, lanes) + r.shape[2:]).reshape((waves * lanes,) + r.shape[2:])[:n]
            if returned is None:
                returned = np.zeros((pos.size,) + r.shape[1:], r.dtype)
            returned[pick] = r
    final = np.zeros(shape[0] * shape[1], np.uint64 if width == 8 else np.uint32)
    final[pos[starts]] = slots.words(final.dtype)
    ctx.mem.store(addr, width, final.reshape(shape), leaders)
    if returned is None:
        return {}
    ret = np.zeros((shape[0] * shape[1],) + returned.shape[1:], returned.dtype)
    ret[pos] = returned
    return {"RETURN_DATA": ret.reshape(shape + returned.shape[1:])}


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


_SWAP = re.compile(r"\btmp = MEM\[(?:ADDR|addr)\]\.b(32|64|);\s*MEM\[(?:ADDR|addr)\]\.b\1 = DATA\.b\1;\s*"
                   r"RETURN_DATA(?:\.b\1)? = tmp;?\s*$")


def swap_of(pcode: str) -> bool:
    """Whether the pseudocode is a swap: the old word returned, DATA stored in its place."""
    return _SWAP.search(pcode or "") is not None


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


_OPERAND = r"(DATA2?)(?:\[\d+ : (\d+)\])?\.[bu]\d*"
_EXCHANGE = re.compile(r"\bsrc = " + _OPERAND + r";\s*cmp = " + _OPERAND + r";\s*"
                       r"MEM\[(?:ADDR|addr)\]\.[bu]\d* = tmp == cmp \? src : tmp;\s*RETURN_DATA(?:\.[bu]\d*)? = tmp;?\s*$")


def cmpswap_of(pcode: str):
    """((src operand, its low bit), (cmp operand, its low bit)) when the pseudocode is an
    integer compare-and-swap returning the old word (a float one compares as floats: not
    this), else None."""
    m = _EXCHANGE.search(pcode or "")
    if m is None or not re.search(r"\btmp = MEM\[(?:ADDR|addr)\]\.[bu]\d*;", pcode):
        return None
    return (m.group(1), int(m.group(2) or 0)), (m.group(3), int(m.group(4) or 0))


def _packed(values: np.ndarray, waves: int, lanes: int) -> np.ndarray:
    """values (n, ...) as a (waves, lanes, ...) batch, zero past n."""
    out = np.zeros((waves * lanes,) + values.shape[1:], values.dtype)
    out[:len(values)] = values
    return out.reshape((waves, lanes) + values.shape[1:])

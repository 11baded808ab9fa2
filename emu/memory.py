"""Memories the machine gives to memory instructions: the device's flat address space
(runtime buffers, code, kernarg segments, dispatch packets), per-work-group LDS and
per-lane scratch, plus the FLAT view that routes each lane by aperture.

Every access is vectorised over an address array and checked before it touches a byte:
an address outside any live allocation raises `MemoryFault` naming the address, the
lane (its position in the access array) and the nearest allocation; host memory is never
reached because all data lives in numpy arrays indexed by checked offsets.
"""
from __future__ import annotations

import bisect
import contextvars

import numpy as np

from isa.records import dataclass

from .options import current
from .semantics import broadcast

_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SHIFT = {1: 0, 2: 1, 4: 2, 8: 3}
ALIGN = 256          # allocation alignment (the largest access, a b512 SMEM load, is 64 bytes)
GUARD = 256          # unmapped bytes after each allocation: small overruns fault instead of landing next door
GLOBAL_BASE = 0x1000_0000
SHARED_APERTURE = 1 << 48      # FLAT addresses [base, base + 4 GiB) are LDS (SH_MEM_BASES-style apertures)
PRIVATE_APERTURE = 2 << 48     # ... and these are the lane's scratch
APERTURE_SIZE = 1 << 32


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.3g} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.3g} MiB"


class MemoryFault(Exception):
    """An access outside every valid region. `position` is the index of the first faulting
    element in the access array (for a (W, L) batch: wave-in-batch, lane)."""

    def __init__(self, space: str, address: int, nbytes: int, position: tuple, detail: str):
        self.space, self.address, self.nbytes, self.position, self.detail = space, address, nbytes, position, detail
        super().__init__(f"{space} access of {nbytes} bytes at 0x{address:x}: {detail}")


class UndoLog:
    """The old values of what the stores overwrite while this log is current (`begin` to
    `end`): the machine keeps one around each call of an instruction that writes memory, and
    an instruction that faults or is refused part way (a B64 store's second dword, an
    atomic's later round, a FLAT store's LDS lanes after its global ones) puts them back
    (`revert`), so a wave changes no memory with an instruction it did not complete (the
    README's fault contract). Entries: (an element view of a memory array, its index: a
    slice or an index array, the old values), reverted last first."""
    __slots__ = ("kept", "_token")

    def __init__(self):
        self.kept: list = []
        self._token = None

    def begin(self) -> "UndoLog":
        """This log current (empty), until end(); one log may begin again after its end."""
        self._token = _UNDO.set(self)
        return self

    def end(self) -> None:
        _UNDO.reset(self._token)
        if self.kept:
            self.kept = []

    def keep(self, elements: np.ndarray, index) -> None:
        old = elements[index]           # an index array gathers a copy; a slice is a view
        self.kept.append((elements, index, old.copy() if type(index) is slice else old))

    def revert(self) -> None:
        # a repeated index holds one old value throughout an entry (gathered before it was written)
        for elements, index, old in reversed(self.kept):
            elements[index] = old
        self.kept = []


_UNDO: contextvars.ContextVar[UndoLog | None] = contextvars.ContextVar("emu_undo_log", default=None)


def _keep(elements: np.ndarray, index) -> None:
    """Before elements[index] is stored: its old values into the current UndoLog, if any."""
    log = _UNDO.get()
    if log is not None:
        log.keep(elements, index)


@dataclass
class Allocation:
    """A buffer in the device memory's arena: its address, size and name."""
    address: int
    size: int
    name: str
    live: bool = True
    span: int = 0               # arena bytes it holds: size, guard and alignment
    executed: bool = False      # the machine fetched instructions from it (decodes are cached)


class OutOfDeviceMemory(ValueError):
    """An allocation the device's memory (its capacity, or the host's memory behind it)
    cannot hold."""


def _first(mask: np.ndarray) -> tuple:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _every(mask: np.ndarray) -> bool:
    """mask.all(), looking at each broadcast value once (an all-lanes mask is usually one
    True broadcast to the batch: visiting it per element costs a pass over the lanes)."""
    if mask.ndim and 0 in mask.strides:
        mask = mask[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in mask.strides)]
    return bool(mask.all())


def _aligned(offset: np.ndarray, nbytes: int) -> bool:
    """Whether every offset is a multiple of nbytes: one OR-reduction, no temporary array."""
    return nbytes == 1 or not int(np.bitwise_or.reduce(offset, axis=None)) & (nbytes - 1)


def _gather(data: np.ndarray, offset: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
    """Little-endian values of nbytes at data[offset]; offsets already checked. Masked-off
    elements read 0 (their offsets may be anything). `offset` may be overwritten."""
    out_dtype = np.uint64 if nbytes == 8 else np.uint32
    every = _every(mask)
    if not every:
        offset = np.where(mask, offset, 0)
    if _aligned(offset, nbytes) and current().aligned_gathers:    # aligned: one take in the access's own dtype
        index = np.right_shift(offset, _SHIFT[nbytes], out=offset if offset.flags.writeable else None)
        # offsets are checked already: mode "clip" only skips numpy's own per-index check (faster)
        value = np.take(data.view(_DTYPES[nbytes]), index, mode="clip").astype(out_dtype, copy=False)
    else:                                     # unaligned: assemble byte by byte
        value = np.zeros(offset.shape, out_dtype)
        for i in range(nbytes):
            value |= data[offset + i].astype(out_dtype) << out_dtype(8 * i)
    return value if every else np.where(mask, value, out_dtype(0))


def _scatter(data: np.ndarray, offset: np.ndarray, nbytes: int, value: np.ndarray, mask: np.ndarray) -> None:
    """Store the low nbytes of value at data[offset] for masked-in elements; when offsets
    repeat, the last element in C order (the highest lane) wins, as numpy assignment does.
    `offset` may be overwritten."""
    value = broadcast(value, offset.shape)
    mask = broadcast(mask, offset.shape)
    if not _every(mask):
        offset, value = offset[mask], value[mask]
    if _aligned(offset, nbytes) and current().aligned_gathers:
        index = np.right_shift(offset, _SHIFT[nbytes], out=offset if offset.flags.writeable else None)
        elements = data.view(_DTYPES[nbytes])
        _keep(elements, index)
        elements[index] = value.astype(_DTYPES[nbytes], copy=False)
    else:
        value = value.astype(np.uint64)
        for i in range(nbytes):
            index = offset + i
            _keep(data, index)
            data[index] = ((value >> np.uint64(8 * i)) & np.uint64(0xFF)).astype(np.uint8)


_RUN_BLOCK = 1 << 17      # offsets per difference-and-compare: the temporaries stay in cache


def _steps_of(flat: np.ndarray, step: int) -> bool:
    """Whether each element of flat is `step` above the one before (modulo the dtype), one
    difference and compare per block of offsets."""
    for start in range(0, flat.size - 1, _RUN_BLOCK):
        end = min(start + _RUN_BLOCK, flat.size - 1)
        if not (np.subtract(flat[start + 1:end + 1], flat[start:end]) == step).all():
            return False
    return True


class LentMemory(np.ndarray):
    """Marker type of the arena view behind a window of device memory that a load returns
    in place of a copy (`SplitAddresses.lend`): such a read-only window aliases no register,
    so rtlib.owned passes it (`type(x.base) is LentMemory`) and the register writeback is
    the only copy of the data. numpy stops collapsing a view's base at a change of type."""


class SplitAddresses(np.lib.mixins.NDArrayOperatorsMixin):
    """64-bit addresses held as a per-wave base (uint64 (W, 1) or (1, 1)) plus a per-lane
    32-bit offset (uint32 (W, L)), as GLOBAL instructions with an SGPR base form them.
    DeviceMemory checks and indexes them without building the uint64 (W, L) sums (it
    bounds the base and the offsets separately); anything else that computes with them
    gets the sums (numpy's array protocol), so a semantic may treat them as any array.
    `lend`: the instruction only loads (nothing writes memory before its result is written
    back), so a unit-stride load of 4 or 8 bytes may return a read-only window of memory."""

    def __init__(self, base: np.ndarray, offset: np.ndarray, lend: bool = False, memo=None, facts=None):
        self.base, self.offset, self.lend = base, offset, lend
        # (dict, key): where the offsets' unit-stride verdict is kept while the register
        # holding them is unchanged (the key names it and its write count), or None
        self.memo = memo
        # what was computed from the offsets (bounds, alignment, element indices), shared with
        # the sums that keep them: the two accesses of a DS *_2ADDR form compute it once
        self.facts = {} if facts is None else facts
        self.shape, self.ndim, self.size, self.dtype = offset.shape, offset.ndim, offset.size, np.dtype(np.uint64)

    def __array__(self, dtype=None, copy=None):
        total = self.offset.astype(np.uint64)
        total += self.base              # wraps modulo 2**64, as the hardware's sum does
        return total if dtype is None else total.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.add and method == "__call__" and not kwargs and len(inputs) == 2:
            other = inputs[1] if inputs[0] is self else inputs[0]
            if not isinstance(other, SplitAddresses) and np.size(other) == 1 and np.asarray(other).dtype == np.uint64:
                # ADDR + 4 (the next dword of a wide access) moves the base and stays split
                return SplitAddresses(self.base + np.asarray(other).reshape(1, 1), self.offset, self.lend, self.memo,
                                      self.facts)
        if ufunc is np.bitwise_and and method == "__call__" and not kwargs and len(inputs) == 2 \
                and inputs[0] is self and self._below_mask(inputs[1]):
            return self         # ADDR.u32 of a zero base: the 32-bit offsets are the whole value
        inputs = tuple(np.asarray(x) if isinstance(x, SplitAddresses) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __getitem__(self, index):
        return np.asarray(self)[index]

    def _below_mask(self, mask) -> bool:
        """Whether `self & mask` is self: a one-value mask keeping bits 31:0 and a base that is
        one zero (the sums are then the uint32 offsets)."""
        if np.size(mask) != 1 or self.base.size != 1:
            return False
        m = np.asarray(mask)
        return m.dtype.kind == "u" and int(m.reshape(())) & 0xFFFFFFFF == 0xFFFFFFFF and not int(self.base.reshape(()))

    def fact(self, name, compute):
        """A value derived from the offsets alone, computed on first use."""
        value = self.facts.get(name)
        if value is None:
            value = self.facts[name] = compute()
        return value

    def indices(self, start: int, shift: int, nbytes: int) -> np.ndarray | None:
        """(address - start) >> shift as intp when every address is a multiple of nbytes
        (the caller checked that they lie in one allocation above start); else None."""
        base = self.base.view(np.int64) - start
        if (int(np.bitwise_or.reduce(base, axis=None)) | int(np.bitwise_or.reduce(self.offset, axis=None))) & (nbytes - 1):
            return None
        index = np.right_shift(self.offset, np.uint32(shift)).astype(np.intp)
        index += base >> shift
        return index

    def run_start(self, nbytes: int) -> int | None:
        """The address of lane 0 (a Python int) when the batch's addresses are one
        unit-stride run from one base (lane i, in wave order, at lane 0 + i * nbytes: the
        coalesced access of most kernels), so that a slice replaces gather and scatter and
        the run's ends are its bounds; else None. The exact span test rules out a run that
        wraps the 32-bit offsets (every difference is then nbytes exactly, not modulo 2**32)."""
        flat = self.offset.reshape(-1)
        if self.base.size != 1 or not flat.size or not current().unit_stride_runs:
            return None
        first = int(flat[0])
        if int(flat[-1]) - first != nbytes * (flat.size - 1):
            return None
        if flat.size > 1 and not self._unit_stride(flat, nbytes):
            return None
        return int(self.base.reshape(())) + first

    def _unit_stride(self, flat: np.ndarray, nbytes: int) -> bool:
        """Every offset nbytes above the one before, or the verdict kept in `memo` for these
        offsets."""
        if self.memo is None:
            return _steps_of(flat, nbytes)
        memo, key = self.memo[0], self.memo[1] + (nbytes,)
        unit = memo.get(key)
        if unit is None:
            unit = memo[key] = _steps_of(flat, nbytes)
        return unit

    def bounds(self) -> tuple[int, int]:
        """Lowest and highest address a lane can have (before wrapping at 2**64)."""
        return int(self.base.min()) + int(self.offset.min()), int(self.base.max()) + int(self.offset.max())


class DeviceMemory:
    """The device's one flat address space: a byte arena up to `capacity` bytes with a
    best-fit allocator. Freed ranges go to a free list, merged with free neighbours, and are
    reused (zeroed) by later allocations; the arena grows (doubling) only when no free range
    fits. Allocations never move. A pointer into a freed range that is not reused yet faults
    naming the freed buffer."""

    RECENTLY_FREED = 64         # freed allocations remembered for fault messages

    def __init__(self, base: int = GLOBAL_BASE, capacity: int = 4 << 30):
        self.base, self.capacity = base, capacity
        self.data = np.zeros(1 << 16, np.uint8)
        self.live: dict[int, Allocation] = {}        # by address
        self.freed: list[Allocation] = []            # the most recent RECENTLY_FREED
        self.holes: list[list[int]] = []             # free [offset, size] ranges below _end, by offset
        self._end = 0                                # arena bytes handed out or free-listed
        self.code_generation = 0                     # bumped when memory the machine executed changes
        self.observer = None                         # optional callable(addr, nbytes, mask) per load/store (timing)
        self._refresh()

    @property
    def allocations(self) -> list[Allocation]:
        """Live allocations by address, then the recently freed ones."""
        return [self.live[a] for a in self._start_list] + self.freed

    @property
    def arena_bytes(self) -> int:
        return len(self.data)

    # ------------------------------------------------------------------ allocation
    def alloc(self, size: int, name: str = "buffer") -> int:
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise OutOfDeviceMemory(f"alloc({size!r}): the size must be an integer")
        size = int(size)
        if size < 0:
            raise OutOfDeviceMemory(f"alloc({size}): size must be >= 0")
        span = -(-(max(size, 1) + GUARD) // ALIGN) * ALIGN
        if span > self.capacity:
            raise OutOfDeviceMemory(f"alloc({size}) for '{name}': larger than the device's {_gib(self.capacity)} "
                                    f"of memory")
        offset = self._take_hole(span)
        if offset is None:
            offset = self._grow(size, span, name)
        else:
            self.data[offset:offset + span] = 0     # reused memory starts zeroed, as fresh memory does
        address = self.base + offset
        a = Allocation(address, size, name, span=span)
        self.live[address] = a
        # a freed allocation whose range is handed out again is no longer worth naming
        self.freed = [f for f in self.freed if f.address + f.span <= address or f.address >= address + span]
        self._refresh(added=a)
        return address

    def _take_hole(self, span: int) -> int | None:
        """The start of the smallest free range that holds span bytes (its rest stays free)."""
        best = None
        for i, (offset, size) in enumerate(self.holes):
            if size >= span and (best is None or size < self.holes[best][1]):
                best = i
        if best is None:
            return None
        offset, size = self.holes[best]
        if size == span:
            del self.holes[best]
        else:
            self.holes[best] = [offset + span, size - span]
        return offset

    def _grow(self, size: int, span: int, name: str) -> int:
        """Room for span bytes at the top of the arena (a free range touching the top is
        extended), growing the byte array by doubling up to the capacity."""
        offset = self._end
        if self.holes and sum(self.holes[-1]) == self._end:
            offset = self.holes.pop()[0]
        need = offset + span
        if need > self.capacity:
            live = sum(a.span for a in self.live.values())
            raise OutOfDeviceMemory(f"alloc({size}) for '{name}': the device's {_gib(self.capacity)} are used up "
                                    f"({len(self.live)} live allocations hold {_gib(live)})")
        if need > len(self.data):
            try:
                grown = np.zeros(min(max(need, 2 * len(self.data)), self.capacity) + 7 & ~7, np.uint8)
            except MemoryError:
                raise OutOfDeviceMemory(f"alloc({size}) for '{name}': the host has no memory for a "
                                        f"{_gib(need)} device arena") from None
            grown[:len(self.data)] = self.data
            self.data = grown
        self._end = need
        return offset

    def free(self, address: int) -> None:
        a = self.live.get(int(address)) if isinstance(address, (int, np.integer)) else None
        if a is None:
            what = f"0x{address:x}" if isinstance(address, (int, np.integer)) else repr(address)
            raise OutOfDeviceMemory(f"free({what}): not the start of a live allocation")
        del self.live[a.address]
        a.live = False
        if a.executed:
            self.code_generation += 1
        self.freed = (self.freed + [a])[-self.RECENTLY_FREED:]
        self._release(a.address - self.base, a.span)
        self._refresh(removed=a)

    def _release(self, offset: int, span: int) -> None:
        """Put [offset, offset + span) on the free list, merged with free neighbours; a free
        range reaching the top of the arena lowers the top."""
        i = bisect.bisect_left(self.holes, [offset, 0])
        if i < len(self.holes) and offset + span == self.holes[i][0]:
            span += self.holes.pop(i)[1]
        if i > 0 and sum(self.holes[i - 1]) == offset:
            offset, span = self.holes[i - 1][0], self.holes[i - 1][1] + span
            del self.holes[i - 1]
            i -= 1
        if offset + span == self._end:
            self._end = offset
        else:
            self.holes.insert(i, [offset, span])

    def _refresh(self, added: Allocation | None = None, removed: Allocation | None = None) -> None:
        """Keep the live allocations' starts and ends sorted: one insertion or removal (a
        process keeps thousands of buffers and code objects live: no re-sort per call); the
        numpy copies _check searches are rebuilt on its next call."""
        if added is not None:
            i = bisect.bisect_left(self._start_list, added.address)
            self._start_list.insert(i, added.address)
            self._end_list.insert(i, added.address + added.size)
        elif removed is not None:
            i = bisect.bisect_left(self._start_list, removed.address)
            del self._start_list[i], self._end_list[i]
        else:
            self._start_list = sorted(self.live)
            self._end_list = [a + self.live[a].size for a in self._start_list]
        self._arrays = None

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            self._arrays = np.array(self._start_list, np.int64), np.array(self._end_list, np.int64)
        return self._arrays

    _starts = property(lambda self: self._bounds()[0])
    _ends = property(lambda self: self._bounds()[1])

    def allocation_at(self, address: int) -> Allocation | None:
        i = bisect.bisect_right(self._start_list, address) - 1
        if i >= 0:
            a = self.live[self._start_list[i]]
            if address < a.address + max(a.size, 1):
                return a
        return None

    def nearest(self, address: int) -> str:
        """Describe the allocation closest to an address (for fault reports); a freed one
        is named when the address is still inside it."""
        gone = [a for a in self.freed if a.address <= address < a.address + a.size]
        if gone and self.allocation_at(address) is None:
            a = gone[-1]
            return f"nearest buffer: {address - a.address} bytes into '{a.name}' (freed) [0x{a.address:x}, +{a.size})"
        i = bisect.bisect_right(self._start_list, address)
        near = [self.live[self._start_list[j]] for j in (i - 1, i) if 0 <= j < len(self._start_list)]
        if not near:
            return "no buffers are allocated"
        def distance(a):
            return 0 if a.address <= address < a.address + a.size else \
                min(abs(address - a.address), abs(address - (a.address + a.size)))
        a = min(near, key=distance)
        state = "" if a.live else " (freed)"
        rel = address - a.address
        where = f"{rel} bytes into" if 0 <= rel < a.size else \
            f"{rel - a.size} bytes past the end of" if rel >= a.size else f"{-rel} bytes before"
        return f"nearest buffer: {where} '{a.name}'{state} [0x{a.address:x}, +{a.size})"

    # ------------------------------------------------------------------ host access
    def write(self, address: int, data: bytes | np.ndarray) -> None:
        raw = np.frombuffer(bytes(data) if not isinstance(data, np.ndarray) else data.tobytes(), np.uint8)
        off = self._host_range(address, len(raw))
        self.data[off:off + len(raw)] = raw
        if self.allocation_at(address).executed:
            self.code_generation += 1           # the machine's decodes of this code are stale

    def read(self, address: int, nbytes: int) -> bytes:
        off = self._host_range(address, nbytes)
        return self.data[off:off + nbytes].tobytes()

    def _host_range(self, address: int, nbytes: int) -> int:
        a = self.allocation_at(address)
        if a is None or address + nbytes > a.address + a.size:
            raise MemoryFault("global", address, nbytes, (), "host copy outside its buffer; " + self.nearest(address))
        return address - self.base

    # ------------------------------------------------------------------ device access (Memory protocol)
    def _check(self, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
        """Arena offsets of addr (int64), raising MemoryFault for any active out-of-bounds lane."""
        addr = np.asarray(addr)
        # device addresses are < 2**63: reinterpret, no copy (a wrapped address reads as negative: a fault)
        addr = addr.view(np.int64) if addr.dtype == np.uint64 else addr.astype(np.int64)
        mask = broadcast(mask, addr.shape)
        every = _every(mask)
        # bounds of the active addresses without compressing them out (min/max skip masked lanes)
        lo = int(addr.min(where=mask, initial=np.iinfo(np.int64).max) if not every or not addr.size else addr.min())
        hi = int(addr.max(where=mask, initial=np.iinfo(np.int64).min) if not every or not addr.size else addr.max())
        if lo <= hi:                        # some lane is active
            i = np.searchsorted(self._starts, [lo, hi], "right") - 1
            if not (i[0] == i[1] and i[0] >= 0 and hi + nbytes <= self._ends[i[0]]) \
                    or not current().bounds_by_extremes:   # slow path: per lane
                j = np.searchsorted(self._starts, addr, "right") - 1
                ok = (j >= 0) & (addr + nbytes <= self._ends[np.maximum(j, 0)]) & (addr >= self.base)
                bad = mask & ~ok
                if bad.any():
                    pos = _first(bad)
                    a = int(addr[pos]) & (2**64 - 1)
                    raise MemoryFault("global", a, nbytes, pos, self.nearest(a))
        offset = addr - self.base
        return offset

    def _split_indices(self, addr, nbytes: int, mask) -> np.ndarray | slice | None:
        """Element indices into the arena viewed as nbytes-wide values (a slice for a
        unit-stride run), for split addresses of all-active lanes that lie, with all their
        lanes' bounds, in one allocation and are aligned; None sends the access through the
        general (per-lane) path. A run is bounded by its ends (no pass over the lanes)."""
        if type(addr) is not SplitAddresses or not _every(mask) or not current().bounds_by_extremes:
            return None
        run = addr.run_start(nbytes)
        lo, hi = (run, run + nbytes * (addr.size - 1)) if run is not None else addr.bounds()
        if not self._inside_one(lo, hi + nbytes):
            return None
        if run is not None and not (run - self.base) % nbytes:
            first = (run - self.base) // nbytes
            return slice(first, first + addr.size)
        return addr.indices(self.base, _SHIFT[nbytes], nbytes)

    def _inside_one(self, lo: int, end: int) -> bool:
        """Whether bytes [lo, end) lie in one live allocation (Python ints: a bisection over
        the sorted starts, no array call)."""
        i = bisect.bisect_right(self._start_list, lo) - 1
        return i >= 0 and end <= self._end_list[i] and end <= 2**63

    def _plain_run(self, addr, nbytes: int, mask) -> int | None:
        """The element index of lane 0 in the arena viewed as nbytes-wide values when an array
        of 64-bit addresses (FLAT, GLOBAL without an SGPR base) of every lane is one
        unit-stride run (lane i at lane 0's address + i * nbytes, in wave order), aligned, in
        one allocation: a slice then replaces the bounds passes and the gather or scatter
        (EmuOptions.unit_stride_runs). The exact span test comes first (Python ints, no pass):
        it also rules out a run that wraps at 2**64. None otherwise."""
        if type(addr) is not np.ndarray or addr.dtype != np.uint64 or addr.size < 2 or addr.ndim != 2:
            return None
        flat = addr.reshape(-1)
        first = int(flat[0])
        if int(flat[-1]) - first != nbytes * (flat.size - 1) or first % nbytes or (first - self.base) % nbytes:
            return None
        if not current().unit_stride_runs or not _every(np.asarray(mask)) or not self._inside_one(first, int(flat[-1]) + nbytes):
            return None
        if not _steps_of(flat, nbytes):
            return None
        return (first - self.base) // nbytes

    def _plain_indices(self, addr, nbytes: int, mask, span: int = 0) -> tuple[np.ndarray, np.ndarray | None] | None:
        """(index, inactive): element indices into the arena viewed as nbytes-wide values for
        an array of 64-bit addresses (FLAT, GLOBAL without an SGPR base, SMEM batches, buffers)
        whose active lanes lie, aligned, in one live allocation, and the inactive lanes' mask
        (None when every lane is active). The active lanes' lowest and highest address decide
        it (min/max, a bisection over Python ints); inactive lanes may hold any address, so
        their indices are clipped reads the caller zeroes and never writes. None sends the
        access through the general path (`_check`), which names a faulting lane and handles
        unaligned accesses byte by byte. span: the bytes from each address that must lie in the
        allocation, when more than nbytes (a run of dwords)."""
        if type(addr) is not np.ndarray or addr.dtype != np.uint64 or not addr.size:
            return None
        options = current()
        if not (options.plain_address_extremes and options.bounds_by_extremes and options.aligned_gathers):
            return None
        signed = addr.view(np.int64)        # device addresses are < 2**63: a wrapped one reads negative
        mask = np.asarray(mask)
        if mask.size == 1 and mask.dtype == np.bool_:
            if not mask.reshape(()):
                return None
            inactive, lo, hi = None, int(np.minimum.reduce(signed, axis=None)), int(np.maximum.reduce(signed, axis=None))
        elif mask.dtype != np.bool_:
            return None
        else:
            mask = broadcast(mask, addr.shape)
            lo = int(signed.min(where=mask, initial=np.iinfo(np.int64).max))
            hi = int(signed.max(where=mask, initial=np.iinfo(np.int64).min))
            if lo > hi:                     # no lane active
                return None
            inactive = ~mask
        i = bisect.bisect_right(self._start_list, lo) - 1
        if i < 0 or hi + max(nbytes, span) > self._end_list[i]:
            return None                     # outside one allocation (allocations never overlap)
        if nbytes > 1:
            low_bits = np.bitwise_or.reduce(signed, axis=None) if inactive is None else \
                np.bitwise_or.reduce(signed, axis=None, where=mask, initial=0)
            if int(low_bits) & (nbytes - 1):
                return None
        index = np.subtract(signed, self.base)
        index >>= _SHIFT[nbytes]
        return index, inactive

    def load(self, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
        if self.observer is not None:
            self.observer(addr, nbytes, mask)
        run = self._plain_run(addr, nbytes, mask)
        if run is not None:                 # a copy of the run: an atomic's read may be followed by its write
            return self.data.view(_DTYPES[nbytes])[run:run + addr.size].reshape(addr.shape).astype(
                np.uint64 if nbytes == 8 else np.uint32)
        plain = self._plain_indices(addr, nbytes, mask)
        if plain is not None:
            index, inactive = plain
            # checked above: mode "clip" only skips numpy's own per-index check (inactive
            # lanes' indices may be anything: clipped, then zeroed)
            value = np.take(self.data.view(_DTYPES[nbytes]), index, mode="clip")
            value = value.astype(np.uint64 if nbytes == 8 else np.uint32, copy=False)
            if inactive is not None:
                np.copyto(value, 0, where=inactive)
            return value
        if type(addr) is not SplitAddresses and np.size(addr) == 1 and np.asarray(mask).all() \
                and current().one_address_loads:
            one = self.load_one(int(np.asarray(addr).reshape(-1)[0]), nbytes)
            if one is not None:
                return np.full(np.shape(addr), one, np.uint64 if nbytes == 8 else np.uint32)
        index = self._split_indices(addr, nbytes, mask)
        if index is not None:
            if isinstance(index, slice):          # one unit-stride run: the slice, or a copy of it
                if addr.lend and nbytes >= 4:
                    window = self.data.view(LentMemory).view(_DTYPES[nbytes])[index].reshape(addr.shape).view(np.ndarray)
                    window.flags.writeable = False
                    return window
                return self.data.view(_DTYPES[nbytes])[index].reshape(addr.shape).astype(
                    np.uint64 if nbytes == 8 else np.uint32)
            value = np.take(self.data.view(_DTYPES[nbytes]), index, mode="clip")   # checked: see _gather
            return value.astype(np.uint64 if nbytes == 8 else np.uint32, copy=False)
        addr = np.asarray(addr)
        return _gather(self.data, self._check(addr, nbytes, mask), nbytes, broadcast(mask, np.shape(addr)))

    def load_dwords(self, addr: np.ndarray, n: int, mask: np.ndarray) -> np.ndarray | None:
        """uint32 (..., n): the n dwords from each active lane's address (0 in inactive lanes)
        when every active lane's 4n bytes lie, aligned to 4, in one allocation (one bounds
        check and one gather for a multi-dword load, emu/dword_loads.py); else None."""
        plain = self._plain_indices(addr, 4, mask, 4 * n)
        if plain is None:
            return None
        index, inactive = plain
        index = index[..., None] + np.arange(n)
        words = np.take(self.data.view(np.uint32), index, mode="clip")     # checked: see load
        if inactive is not None:
            np.copyto(words, 0, where=inactive[..., None])
        return words

    def load_bytes(self, address: int, nbytes: int) -> bytes | None:
        """The nbytes at one address with Python-int bounds (as load_one); None when they are
        not all in one allocation."""
        if not self._inside_one(address, address + nbytes):
            return None
        offset = address - self.base
        return self.data[offset:offset + nbytes].tobytes()

    def load_one(self, address: int, nbytes: int) -> int | None:
        """The value at one address (a uniform SMEM load) with Python-int bounds, skipping the
        array machinery of a batch access (~35 us); None when it is out of bounds, so that
        the general path (`load`) reports the fault."""
        if not self._inside_one(address, address + nbytes):
            return None
        offset = address - self.base
        return int.from_bytes(self.data[offset:offset + nbytes].tobytes(), "little")

    def store(self, addr: np.ndarray, nbytes: int, value: np.ndarray, mask: np.ndarray) -> None:
        if self.observer is not None:
            self.observer(addr, nbytes, mask)
        run = self._plain_run(addr, nbytes, mask)
        if run is not None:                 # distinct addresses: order does not matter
            elements, index = self.data.view(_DTYPES[nbytes]), slice(run, run + addr.size)
            _keep(elements, index)
            elements[index].reshape(addr.shape)[...] = value   # keeps the low bytes
            return
        plain = self._plain_indices(addr, nbytes, mask)
        if plain is not None:       # lanes sharing an address: the last in C order wins, as in _scatter
            index, inactive = plain
            value = np.asarray(value)
            if value.shape != index.shape:
                value = np.broadcast_to(value, index.shape)
            if inactive is not None:
                active = ~inactive
                index, value = index[active], value[active]
            elements = self.data.view(_DTYPES[nbytes])
            _keep(elements, index)
            elements[index] = value.astype(_DTYPES[nbytes], copy=False)
            return
        index = self._split_indices(addr, nbytes, mask)
        if index is not None:
            elements = self.data.view(_DTYPES[nbytes])
            _keep(elements, index)
            if isinstance(index, slice):
                elements[index].reshape(addr.shape)[...] = value   # keeps the low bytes
            else:
                elements[index] = np.broadcast_to(value, index.shape).astype(_DTYPES[nbytes], copy=False)
            return
        _scatter(self.data, self._check(np.asarray(addr), nbytes, mask), nbytes, value, mask)


class RegionMemory:
    """Equal-sized private regions in one byte array: LDS (one region per work-group) or
    scratch (one per lane). `base` holds, per element of the access array, the byte offset
    of the region it addresses (broadcastable: (W, 1) for LDS, (W, L) for scratch);
    addresses are offsets inside that region and must stay below `size`."""

    def __init__(self, space: str, data: np.ndarray, size: int, base: np.ndarray):
        self.space, self.data, self.size, self.base = space, data, size, base
        self.observer = None                # optional callable(addr, nbytes, mask) per load/store (timing: LDS banks)
        # what _split_indices asks of the regions on every access, once: one region per wave
        # ((W, 1) bases), and the bits any region's base has set (its alignment)
        self._per_wave = np.ndim(base) == 2 and np.shape(base)[-1] == 1
        self._region_bits: int | None = None
        self._shifted: dict = {}            # shift -> base >> shift
        self._base_key: bytes | None = None

    def _offsets(self, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
        addr = np.asarray(addr)
        if addr.dtype != np.uint64:
            addr = addr.astype(np.uint64)
        mask = broadcast(mask, addr.shape)
        limit = self.size - nbytes          # highest valid start address
        every = _every(mask)
        # one maximum over the active addresses decides; the per-lane test only names a fault
        top = int(addr.max(initial=0) if every else addr.max(where=mask, initial=0))
        if limit < 0 or top > limit or not current().bounds_by_extremes:
            bad = mask if limit < 0 else mask & (addr > np.uint64(limit))
            if bad.any():
                pos = _first(bad)
                raise MemoryFault(self.space, int(addr[pos]), nbytes, pos,
                                  f"outside the {self.size} bytes of {self.space} this kernel has")
        offset = addr.astype(np.int64) + self.base
        return offset if every else np.where(mask, offset, 0)

    def _split_indices(self, addr, nbytes: int, mask) -> tuple[np.ndarray, np.ndarray, bool] | None:
        """(elements, index, every): the regions viewed as nbytes-wide values from the address
        base on, each lane's element index in that view, and whether every lane is active, for
        split addresses (one base plus the uint32 offsets of the address VGPR: DS) that are
        aligned and in bounds in the active lanes; None sends the access
        through the per-lane path, which also names a faulting lane. Bounds, alignment and the
        indices are facts of the offsets (SplitAddresses.fact), and the base only moves the
        view, so both accesses of a *_2ADDR form share one index array. Inactive lanes
        (EmuOptions.masked_regions: a partial EXEC, as a tree reduction's) may hold any
        address: their indices are clipped reads the caller zeroes, and never written."""
        if type(addr) is not SplitAddresses or addr.base.size != 1 or not current().bounds_by_extremes:
            return None
        mask = np.asarray(mask)
        every = _every(mask)
        if not every and (not current().masked_regions or mask.shape != addr.shape):
            return None
        off, base = addr.offset, int(addr.base.reshape(()))
        if not off.size or self.data.size % nbytes or not self._per_wave:
            return None
        if self._region_bits is None:
            self._region_bits = int(np.bitwise_or.reduce(self.base, axis=None))
        # every lane's bounds and alignment (facts of the offsets, kept with them) decide for a
        # partial EXEC too when every lane passes (EmuOptions.all_lane_bounds); else the
        # active lanes' own
        fits = every or current().all_lane_bounds
        if fits:
            top = addr.fact("max", lambda: int(off.max()))
            low_bits = addr.fact("or", lambda: int(np.bitwise_or.reduce(off, axis=None)))
            fits = base + top <= self.size - nbytes and not (low_bits | base | self._region_bits) & (nbytes - 1)
        if not fits:
            if every:
                return None
            top = int(off.max(where=mask, initial=0))
            low_bits = int(np.bitwise_or.reduce(off, axis=None, where=mask, initial=0))
            if base + top > self.size - nbytes or (low_bits | base | self._region_bits) & (nbytes - 1):
                return None
        shift = _SHIFT[nbytes]
        if self._base_key is None:                # the regions' offsets, as a key (a few bytes per wave)
            self._base_key = self.base.tobytes()
        key = ("index", shift, self._base_key)
        kept = addr.facts.get(key)
        if kept is None:
            regions = self._shifted.get(shift)
            if regions is None:
                regions = self._shifted[shift] = self.base >> shift
            index = off.astype(np.int64)        # (offset >> shift) + (region >> shift), in int64 throughout
            index >>= shift
            index += regions
            kept = addr.facts[key] = (self.base, index)
        return self.data.view(_DTYPES[nbytes])[base >> shift:], kept[1], every

    def load(self, addr, nbytes, mask):
        if self.observer is not None:
            self.observer(addr, nbytes, mask)
        split = self._split_indices(addr, nbytes, mask)
        if split is not None:
            elements, index, every = split
            value = np.take(elements, index, mode="clip")       # checked above: "clip" skips numpy's check
            value = value.astype(np.uint64 if nbytes == 8 else np.uint32, copy=False)
            if not every:           # masked-off lanes read 0 (their clipped reads are anything)
                np.copyto(value, 0, where=~np.asarray(mask))
            return value
        addr = np.asarray(addr)
        mask = broadcast(mask, np.shape(addr))
        return _gather(self.data, self._offsets(addr, nbytes, mask), nbytes, mask)

    def store(self, addr, nbytes, value, mask):
        if self.observer is not None:
            self.observer(addr, nbytes, mask)
        split = self._split_indices(addr, nbytes, mask)
        if split is not None:       # lanes sharing an address: the last in C order wins, as in _scatter
            elements, index, every = split
            value = np.broadcast_to(value, index.shape)
            if not every:
                m = np.asarray(mask)
                index, value = index[m], value[m]
            _keep(elements, index)
            elements[index] = value.astype(_DTYPES[nbytes], copy=False)
            return
        _scatter(self.data, self._offsets(np.asarray(addr), nbytes, mask), nbytes, value, mask)


class FlatMemory:
    """FLAT instructions: each lane's 64-bit address picks global memory, the LDS aperture
    or the private (scratch) aperture."""

    def __init__(self, device: DeviceMemory, lds: RegionMemory | None, scratch: RegionMemory | None):
        self.device, self.lds, self.scratch = device, lds, scratch

    def global_only(self, addr) -> bool:
        """Whether every address (active or not) lies below both apertures, so that the
        access is the global memory's alone (EmuOptions.flat_below_apertures: one maximum
        instead of the apertures' per-lane masks)."""
        return type(addr) is np.ndarray and addr.dtype == np.uint64 and addr.size > 0 \
            and current().flat_below_apertures and int(addr.max()) < SHARED_APERTURE

    def word_keys(self, addr, mask) -> np.ndarray | None:
        """A key per lane ((W, L) uint64, shaped like addr) that two active lanes share exactly
        when their accesses reach one word: a global address is its word, and an aperture
        address a word of its work-group's LDS region or of its own lane's scratch, so the same
        flat address in two work-groups (or two lanes, for scratch) is two words, and an offset
        past a region's end stays its own (faulting) word. The keys are the distinct (space,
        region, address) triples numbered in order; None when a lane lies in the aperture of a
        segment the kernel lacks (its access faults)."""
        addr = np.asarray(addr).astype(np.uint64)
        mask = broadcast(mask, addr.shape)
        space = np.zeros(addr.shape, np.uint8)
        region = np.zeros(addr.shape, np.int64)
        offset = addr.copy()
        for code, (base, mem) in enumerate(((SHARED_APERTURE, self.lds), (PRIVATE_APERTURE, self.scratch)), 1):
            inside = mask & (addr >= np.uint64(base)) & (addr < np.uint64(base + APERTURE_SIZE))
            if inside.any():
                if mem is None:
                    return None
                space[inside] = code
                region[inside] = np.broadcast_to(mem.base, addr.shape)[inside]
                offset[inside] -= np.uint64(base)
        on = np.flatnonzero(mask)
        s, r, o = space.reshape(-1)[on], region.reshape(-1)[on], offset.reshape(-1)[on]
        order = np.lexsort((o, r, s))
        s, r, o = s[order], r[order], o[order]
        new = np.r_[True, (s[1:] != s[:-1]) | (r[1:] != r[:-1]) | (o[1:] != o[:-1])]
        keys = np.zeros(addr.size, np.uint64)
        keys[on[order]] = np.cumsum(new, dtype=np.uint64) - np.uint64(1)
        return keys.reshape(addr.shape)

    def _split(self, addr, mask):
        addr = np.asarray(addr).astype(np.uint64)
        mask = broadcast(mask, addr.shape)
        parts = []
        for base, region in ((SHARED_APERTURE, self.lds), (PRIVATE_APERTURE, self.scratch)):
            inside = mask & (addr >= np.uint64(base)) & (addr < np.uint64(base + APERTURE_SIZE))
            if inside.any():
                if region is None:
                    pos = _first(inside)
                    raise MemoryFault("flat", int(addr[pos]), 0, pos, "aperture of a segment this kernel lacks")
                parts.append((region, addr - np.uint64(base), inside))
                mask = mask & ~inside
        return [(self.device, addr, mask)] + parts

    def load(self, addr, nbytes, mask):
        if self.global_only(addr):
            return self.device.load(addr, nbytes, broadcast(mask, addr.shape))
        out = None
        for mem, a, m in self._split(addr, mask):
            if m.any() or out is None:
                v = mem.load(a, nbytes, m)
                out = v if out is None else out | v
        return out

    def store(self, addr, nbytes, value, mask):
        if self.global_only(addr):
            mask = broadcast(mask, addr.shape)
            if mask.any():
                self.device.store(addr, nbytes, value, mask)
            return
        for mem, a, m in self._split(addr, mask):
            if m.any():
                mem.store(a, nbytes, value, m)

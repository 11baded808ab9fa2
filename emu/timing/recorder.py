"""The functional machine's side of timing: while a launch runs with timing on, the machine
calls `Recorder.step(pc, waves, first_wave)` once per batch (one instruction over a batch of
waves); afterwards `streams()` gives every wave's PCs in execution order and
`stream_table()` numbers the distinct streams. The machine's results do not depend on it:
it only reads the PC, the batch's wave indices and the addresses of memory accesses
(`touch`: global memory's cache lines; `lds_touch`: the LDS bank conflicts of DS
instructions)."""
from __future__ import annotations

import numpy as np

from .lds import BANKS, extra_passes

_HASH_WEIGHTS = np.random.default_rng(0x19).integers(1, 2**63, 4096, dtype=np.uint64) | np.uint64(1)


def _row_shifts(offset: np.ndarray, pick) -> tuple | bool:
    """(first row, each row's shift (R, 1)) of the sampled rows of LDS byte offsets when every
    row is the first shifted by a multiple of 4 bytes (the same dwords relative to each
    other), else False."""
    rows = offset[pick].astype(np.int64)
    low = rows.min(axis=1, keepdims=True)
    rel = rows - low
    if not ((rel == rel[:1]).all() and ((low - low[0]) & 3 == 0).all()):
        return False
    return rows[0], low - low[0]


class Recorder:
    LINE = 128              # bytes per cache line of the vector memory path
    SAMPLE_ROWS = 32        # wave rows of a batch whose lines are counted

    def __init__(self, lds_banks: int = BANKS):
        self.pcs: list[int] = []
        self.batches: list = []
        self.offsets: list[int] = []
        self._line_sums: dict[int, list] = {}    # pc -> [distinct lines summed over wave rows, rows]
        self._line_parts: list = []              # the current instruction's (lines x rows, rows) until the next step
        self.lds_banks = lds_banks
        self._lds_parts: list = []               # the current instruction's LDS accesses: (dwords, active, rows)
        self._lds_sums: dict[int, list] = {}     # pc -> [extra LDS passes summed over wave rows, rows]
        self._lds_memo: dict = {}                # an access's dwords relative to its first, active lanes -> extra passes
        self._picks: dict[int, np.ndarray] = {}  # batch rows -> the sampled rows

    def step(self, pc: int, waves, first_wave: int) -> None:
        if self._lds_parts:
            self._flush_lds()
        if self._line_parts:
            self._flush_lines()
        self.pcs.append(pc)
        self.batches.append(waves)
        self.offsets.append(first_wave)

    def retract(self) -> None:
        """Forget the last step and what its call accessed: the machine runs a batch its
        semantic refused again one wave at a time (each wave's call its own step, as with
        batch_waves off), so the batch's call is no access."""
        self._lds_parts, self._line_parts = [], []
        self.pcs.pop()
        self.batches.pop()
        self.offsets.pop()

    def _flush_lines(self) -> None:
        parts, self._line_parts = self._line_parts, []
        entry = self._line_sums.setdefault(self.pcs[-1], [0.0, 0])
        for total, rows in parts:
            entry[0] += total
            entry[1] += rows

    def touch(self, addr, nbytes: int, mask) -> None:
        """Global memory observer (DeviceMemory.observer): the distinct cache lines each
        wave row of the current instruction's access touched, on up to SAMPLE_ROWS rows
        spread over the batch (the per-PC figure is a mean anyway; reading every row of a
        large batch would cost more than the access). An instruction that accesses memory
        in several calls (a dword each) counts each call's lines: the per-PC figure is the
        mean over calls and rows. Reads the addresses only."""
        if not self.pcs or getattr(addr, "ndim", 0) != 2 or not addr.size:
            return
        n = addr.shape[0]
        pick = np.linspace(0, n - 1, self.SAMPLE_ROWS).astype(np.int64) if n > self.SAMPLE_ROWS else slice(None)
        if hasattr(addr, "offset") and hasattr(addr, "base"):       # split addresses: sum only the sampled rows
            base = addr.base if addr.base.shape[0] == 1 else addr.base[pick]
            a = addr.offset[pick].astype(np.uint64) + base
        else:
            a = np.asarray(addr)[pick]
        lines = a.view(np.int64) // self.LINE if a.dtype == np.uint64 else a.astype(np.int64) // self.LINE
        m = np.broadcast_to(np.asarray(mask, bool), addr.shape)[pick]
        rows = m.any(axis=1)
        active = int(rows.sum())
        if not active:
            return
        if not m.all():         # inactive lanes repeat an active lane's line (no new line)
            first = lines[np.arange(len(lines)), m.argmax(axis=1)][:, None]
            lines = np.where(m, lines, first)
        d = np.diff(lines, axis=1)
        if (d < 0).any():
            lines = np.sort(lines, axis=1)
            d = np.diff(lines, axis=1)
        mean = (active + int((d[rows] != 0).sum())) / active
        weight = n if isinstance(pick, np.ndarray) else active
        self._line_parts.append((mean * weight, weight))

    def lds_touch(self, addr, nbytes: int, mask) -> None:
        """LDS observer (RegionMemory.observer): the bytes each sampled wave row of the current
        DS instruction addressed. An instruction that accesses the LDS in several calls
        (b96/b128 a dword each, the two addresses of *_2ADDR) is one access of all its dwords:
        they are kept until the next instruction (`_flush_lds`). Addresses are offsets in the
        work-group's LDS, whose allocation is bank-aligned.

        Shifting every dword of an access by one amount moves every dword to another bank by
        the same step, so the passes depend only on the dwords relative to the lowest. When
        every lane is on and the sampled rows (waves) of the address VGPR are shifts of one
        another (`_row_shifts`, kept with the offsets: later accesses through the same
        unchanged VGPR reuse it), the access is kept as the first row plus each row's shift."""
        if not self.pcs or getattr(addr, "ndim", 0) != 2 or not addr.size:
            return
        n = addr.shape[0]
        pick = self._picks.get(n) if n > self.SAMPLE_ROWS else slice(None)
        if pick is None:
            pick = self._picks[n] = np.linspace(0, n - 1, self.SAMPLE_ROWS).astype(np.int64)
        k = max(1, -(-nbytes // 4))
        m = np.asarray(mask, bool)
        split = hasattr(addr, "offset") and hasattr(addr, "base")
        if split and m.size == 1 and m.reshape(())[()] and addr.base.size == 1:
            shifts = addr.fact(("lds_row_shifts", n), lambda: _row_shifts(addr.offset, pick))
            if shifts is not False:
                base = int(addr.base.reshape(()))
                self._lds_parts.append((addr.offset, shifts[0] + base, shifts[1], n, k))
                return
        if split:       # only the sampled rows
            base = addr.base if addr.base.shape[0] == 1 else addr.base[pick]
            a = addr.offset[pick].astype(np.int64) + base.astype(np.int64)
        else:
            a = np.asarray(addr)[pick].astype(np.int64)
        self._lds_parts.append((None, a, np.broadcast_to(m, addr.shape)[pick], n, k))

    def _flush_lds(self) -> None:
        """The extra passes of the instruction whose accesses were just recorded: once per
        pattern of dwords (relative to the lowest) when its accesses are shifted rows of one
        address VGPR, else per sampled row."""
        parts, self._lds_parts = self._lds_parts, []
        if len({p[3] for p in parts}) != 1:     # calls over differing batches: not one access; none counted
            return
        n = parts[0][3]
        if parts[0][0] is not None and all(p[0] is parts[0][0] for p in parts):
            key = tuple((p[1].tobytes(), p[4]) for p in parts)
            mean = self._lds_memo.get(key)
            if mean is None:
                one = np.concatenate([((p[1] >> 2)[None, :, None] + np.arange(p[4])) for p in parts], axis=2)
                mean = self._lds_memo[key] = float(extra_passes(one - one.min(), np.ones(one.shape[:2], bool),
                                                                self.lds_banks)[0])
        else:
            rows, active = [], None
            for p in parts:
                if p[0] is not None:        # shifted rows: rebuild the sampled rows
                    r, m = p[1] + p[2], np.ones((len(p[2]), len(p[1])), bool)
                else:
                    r, m = p[1], p[2]
                rows.append((r >> 2)[:, :, None] + np.arange(p[4]))
                active = m if active is None else active | m
            if len({r.shape[:2] for r in rows}) != 1:
                return
            dwords = np.concatenate(rows, axis=2)
            some = active.any(axis=1)
            if not some.any():
                return
            dwords -= dwords.min(axis=(1, 2), keepdims=True)      # non-negative (lds.half_passes)
            mean = float(extra_passes(dwords, active, self.lds_banks)[some].mean())
        entry = self._lds_sums.setdefault(self.pcs[-1], [0.0, 0])
        entry[0] += mean * n
        entry[1] += n

    def lds_extra_passes(self) -> dict[int, float]:
        """pc -> mean LDS passes one wave's access of the DS instruction needed beyond the
        conflict-free count (bank conflicts; emu/timing/lds.py)."""
        if self._lds_parts:
            self._flush_lds()
        return {pc: total / rows for pc, (total, rows) in self._lds_sums.items() if rows}

    def lines_per_wave(self) -> dict[int, float]:
        """pc -> mean distinct cache lines one wave's access touched (global memory PCs)."""
        if self._line_parts:
            self._flush_lines()
        return {pc: total / rows for pc, (total, rows) in self._line_sums.items() if rows}

    def executed_pcs(self) -> np.ndarray:
        """Every PC some wave executed, ascending."""
        return np.unique(np.asarray(self.pcs, np.int64))

    def _flat(self, total_waves: int) -> tuple[np.ndarray, np.ndarray]:
        """(flat, offsets): all waves' PCs laid end to end in wave order, each wave's in the
        order it executed them (batches are recorded in time order), and where wave w's
        PCs start (offsets[w] .. offsets[w + 1])."""
        waves = [np.asarray(b, np.int64) + off for b, off in zip(self.batches, self.offsets)]
        lengths = np.bincount(np.concatenate(waves), minlength=total_waves) if waves else np.zeros(total_waves, np.int64)
        offsets = np.zeros(total_waves + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat = np.empty(int(offsets[-1]), np.int64)
        cursor = offsets[:-1].copy()           # next free slot of each wave
        for pc, w in zip(self.pcs, waves):
            at = cursor[w]
            flat[at] = pc
            cursor[w] = at + 1                 # a batch names each wave once
        return flat, offsets

    def streams(self, total_waves: int) -> list[np.ndarray]:
        """PCs of each wave (global wave index) in the order it executed them."""
        flat, offsets = self._flat(total_waves)
        return [flat[offsets[i]:offsets[i + 1]] for i in range(total_waves)]

    def stream_table(self, total_waves: int, by_ranges: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
        """(ids, streams): ids[w] numbers wave w's PC sequence, equal numbers exactly for
        equal sequences; streams[i] is sequence i. Waves of one length are compared as rows
        of a matrix: a hash proposes the classes, an element-wise comparison confirms them
        (on a collision the rows are sorted out exactly). `by_ranges=False` turns off the
        shortcut for batches of consecutive waves (`_range_table`)."""
        table = self._range_table(total_waves) if by_ranges else None
        if table is not None:
            return table
        flat, offsets = self._flat(total_waves)
        lengths = np.diff(offsets)
        ids = np.empty(total_waves, np.int64)
        streams: list[np.ndarray] = []
        for length in np.unique(lengths):
            members = np.flatnonzero(lengths == length)
            rows = flat[offsets[members][:, None] + np.arange(length)] if length else np.zeros((len(members), 0), np.int64)
            if length <= len(_HASH_WEIGHTS):
                key = rows.astype(np.uint64) @ _HASH_WEIGHTS[:length] if length else np.zeros(len(members), np.uint64)
                _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
                exact = bool((rows == rows[first[inverse]]).all())
            else:
                exact = False
            if not exact:
                _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
            ids[members] = len(streams) + inverse.reshape(-1)
            streams.extend(rows[f] for f in first)
        return ids, streams

    def _range_table(self, total_waves: int, limit: int = 4_000_000):
        """stream_table when every batch is a run of consecutive waves (no divergence, the
        usual case): waves between two consecutive batch boundaries were in exactly the
        same batches, so they ran the same stream; one stream per such run. None when some
        batch is not a run (or the runs x batches table would be large)."""
        if not self.batches:
            return None
        firsts = np.empty(len(self.batches), np.int64)
        ends = np.empty(len(self.batches), np.int64)
        for k, (b, off) in enumerate(zip(self.batches, self.offsets)):
            b = np.asarray(b)
            if not len(b) or b[-1] - b[0] + 1 != len(b) or (len(b) > 1 and not (np.diff(b) == 1).all()):
                return None
            firsts[k], ends[k] = b[0] + off, b[-1] + off + 1
        cuts = np.unique(np.concatenate([firsts, ends, [0, total_waves]]))
        cuts = cuts[(cuts >= 0) & (cuts <= total_waves)]
        reps = cuts[:-1]
        if len(reps) * len(firsts) > limit:
            return None
        member = (firsts[None, :] <= reps[:, None]) & (reps[:, None] < ends[None, :])
        pcs = np.asarray(self.pcs, np.int64)
        known: dict[bytes, int] = {}
        streams: list[np.ndarray] = []
        run_ids = np.empty(len(reps), np.int64)
        for k in range(len(reps)):
            s = pcs[member[k]]
            run_ids[k] = known.setdefault(s.tobytes(), len(known))
            if run_ids[k] == len(streams):
                streams.append(s)
        return np.repeat(run_ids, np.diff(cuts)), streams

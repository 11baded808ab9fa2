"""What a timed launch reports: per-kernel cycles and time at the stated clock, every wave's
start/end, per PC the hit count, issue cycles and stall cycles split by cause, and a
per-instruction stall table for the terminal."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import field

import numpy as np

from isa.records import dataclass

from .engine import CAUSES, WaveTiming


@dataclass
class PcStats:
    pc: int
    text: str
    hits: int = 0                 # wave-instructions issued from this PC
    issue_cycles: int = 0         # one cycle per issue (the instruction's own slot)
    stalls: dict = field(default_factory=lambda: defaultdict(int))   # cause -> cycles waited before issue

    @property
    def stall_cycles(self) -> int:
        return sum(self.stalls.values())


class WaveSet(Sequence):
    """Every wave's timing without an object per wave: wave k copies simulated wave
    `src[k]` (its issue cycles, causes) `shift[k]` cycles later on CU `cu[k]`. Items are
    WaveTiming objects made on access; `starts`/`ends` are arrays."""

    def __init__(self, sims: list, src, shift, cu, ids):
        self.sims = sims
        self.src, self.shift = np.asarray(src, np.int64), np.asarray(shift, np.int64)
        self.cu, self.ids = np.asarray(cu, np.int64), np.asarray(ids, np.int64)
        self.starts = np.array([s.start for s in sims], np.int64)[self.src] + self.shift if sims else self.shift.copy()
        self.ends = np.array([s.end for s in sims], np.int64)[self.src] + self.shift if sims else self.shift.copy()

    def __len__(self) -> int:
        return len(self.src)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = range(len(self))[k]
        s = self.sims[self.src[k]]
        return s.moved(f"wave {self.ids[k]}", (int(self.cu[k]), s.simd[1]), int(self.shift[k]))

    def multiplicity(self) -> np.ndarray:
        """How many waves copy each simulated wave."""
        return np.bincount(self.src, minlength=len(self.sims))


@dataclass
class TimingReport:
    kernel: str
    arch: str
    clock_ghz: float
    waves: list                   # WaveTiming per wave, global wave order
    per_pc: dict                  # pc -> PcStats
    ops: dict                     # pc -> OpInfo
    note: str = ""                # e.g. how a kernel too large to time in full was estimated

    @property
    def cycles(self) -> int:
        """From the first wave's dispatch to the last wave's end."""
        if not len(self.waves):
            return 0
        if isinstance(self.waves, WaveSet):
            return int(self.waves.ends.max() - self.waves.starts.min())
        return max(w.end for w in self.waves) - min(w.start for w in self.waves)

    @property
    def seconds(self) -> float:
        return self.cycles / (self.clock_ghz * 1e9)

    def stall_totals(self) -> dict:
        out = defaultdict(int)
        for s in self.per_pc.values():
            for c, n in s.stalls.items():
                out[c] += n
        return dict(out)

    def summary(self) -> str:
        tot = self.stall_totals()
        issued = sum(s.issue_cycles for s in self.per_pc.values())
        lines = [f"{self.kernel} ({self.arch}): {self.cycles:,} cycles = {self.seconds * 1e6:.2f} us at "
                 f"{self.clock_ghz:g} GHz, {len(self.waves)} waves, {issued:,} wave-instructions issued"]
        if self.note:
            lines.append(f"  {self.note}")
        if tot:
            lines.append("  stall cycles by cause: " + ", ".join(f"{c} {tot[c]:,}" for c in CAUSES if tot.get(c)))
        return "\n".join(lines)

    def table(self, top: int | None = None) -> str:
        """Per-instruction stall table: PC, hits, issue cycles, stall cycles by cause."""
        rows = sorted(self.per_pc.values(), key=lambda s: s.pc)
        if top is not None:
            rows = sorted(rows, key=lambda s: -s.stall_cycles)[:top]
            rows.sort(key=lambda s: s.pc)
        causes = [c for c in CAUSES if any(s.stalls.get(c) for s in rows)]
        head = f"{'pc':>8} {'hits':>6} {'issue':>6} {'stall':>8} " + " ".join(f"{c:>10}" for c in causes) + "  instruction"
        out = [head]
        for s in rows:
            out.append(f"{s.pc:>8x} {s.hits:>6} {s.issue_cycles:>6} {s.stall_cycles:>8} "
                       + " ".join(f"{s.stalls.get(c, 0):>10}" for c in causes) + f"  {s.text}")
        return "\n".join(out)

    def wave_table(self) -> str:
        out = [f"{'wave':>6} {'simd':>10} {'start':>8} {'first':>8} {'end':>8} {'cycles':>8}"]
        for k, w in enumerate(self.waves):
            out.append(f"{k:>6} {str(w.simd):>10} {w.start:>8} {w.first_issue:>8} {w.end:>8} {w.lifetime:>8}")
        return "\n".join(out)


def build_report(kernel: str, arch: str, clock_ghz: float, waves, ops: dict, text) -> TimingReport:
    per_pc: dict[int, PcStats] = {}
    if isinstance(waves, WaveSet):      # copies (shifted or not) stall exactly like the wave they copy
        counted = [(w, int(n)) for w, n in zip(waves.sims, waves.multiplicity()) if n]
    else:
        seen: dict[int, int] = {}              # id(issue list) -> how many waves share it (copied CUs)
        unique = []
        for w in waves:
            key = id(w.base if w.base is not None else w.issue)
            if key not in seen:
                seen[key] = 0
                unique.append(w)
            seen[key] += 1
        counted = [(w, seen[id(w.base if w.base is not None else w.issue)]) for w in unique]
    for w, n in counted:
        prev = None
        for pc, t, cause in zip(w.pcs, w.issue, w.cause):
            s = per_pc.get(pc)
            if s is None:
                s = per_pc[pc] = PcStats(pc, text(pc))
            if t < 0:
                continue
            s.hits += n
            s.issue_cycles += n
            gap = t - (w.start if prev is None else prev) - (0 if prev is None else 1)
            if gap > 0:
                s.stalls["launch" if prev is None else cause] += gap * n
            prev = t
    return TimingReport(kernel, arch, clock_ghz, waves, per_pc, ops)


def issue_matrix(report: TimingReport) -> np.ndarray:
    """(waves, 2) of first issue and end cycles (for plots and tests)."""
    if isinstance(report.waves, WaveSet):
        ws = report.waves
        first = np.array([s.first_issue for s in ws.sims], np.int64)[ws.src] + ws.shift if ws.sims else ws.shift
        return np.stack([first, ws.ends], axis=1)
    return np.array([[w.first_issue, w.end] for w in report.waves], np.int64).reshape(-1, 2)

"""The vector memory path of one CU: the cache lines of its outstanding vector memory
instructions share the CU's line throughput (the vector L0 returns `vmem_lines_per_cycle`
128-byte lines per cycle), each outstanding instruction an equal share (processor
sharing: the lines of all waves' requests interleave), and an instruction's data is back
`vmem_*_latency` after its last line went through.

Why shared rather than first come first served: in the traced 32x32 matmul every wave of
a WGP issues its three loads (66 lines) within ~40 cycles and every one of them, the first
included, waits ~1500 cycles, about the unloaded ~750 (the lone wave of E_3) plus the
CU's ~700 lines at one per cycle; in-order service would give the first wave ~820. Shader
engines that start 2000 cycles apart see the same latency, so nothing GPU-wide binds there
(no L2/DRAM term)."""
from __future__ import annotations


class Job:
    """One vector memory instruction in the CU's line pipe: `finish` is when its last line
    has gone through, as known so far (later arrivals on the CU push it back)."""
    __slots__ = ("remaining", "finish")

    def __init__(self, work: float):
        self.remaining, self.finish = work, 0.0


class LinePipe:
    """Processor sharing of one CU's line throughput among its outstanding instructions."""
    __slots__ = ("rate", "now", "active")

    def __init__(self, lines_per_cycle: float):
        self.rate = lines_per_cycle
        self.now = 0.0
        self.active: list[Job] = []       # unfinished jobs

    def _advance(self, t: float) -> None:
        """Serve the active jobs from `now` to t (equal shares; a job that finishes leaves
        its share to the others)."""
        active = self.active
        while active and self.now < t:
            k = len(active)
            smallest = min(j.remaining for j in active)
            span = smallest * k / self.rate           # until the smallest job is done
            step = min(span, t - self.now)
            served = step * self.rate / k
            for j in active:
                j.remaining -= served
            self.now += step
            if step >= span:
                self.active = active = [j for j in active if j.remaining > 1e-9]
        self.now = max(self.now, t)

    def _forecast(self) -> None:
        """Each active job's finish if nothing else arrives."""
        order = sorted(self.active, key=lambda j: j.remaining)
        t, done, k = self.now, 0.0, len(order)
        for i, j in enumerate(order):
            t += (j.remaining - done) * (k - i) / self.rate
            done = j.remaining
            j.finish = t

    def add(self, t: int, lines: float) -> Job:
        self._advance(t)
        job = Job(max(lines, 1.0))
        self.active.append(job)
        self._forecast()
        return job

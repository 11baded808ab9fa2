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
    __slots__ = ("tag", "finish")

    def __init__(self, tag: float):
        self.tag, self.finish = tag, 0.0


class LinePipe:
    """Processor sharing of one CU's line throughput among its outstanding instructions, in
    virtual time: `virtual` grows by the lines each active job has been served, so a job of
    n lines arriving at virtual time v is done when `virtual` reaches its tag v + n, and
    jobs finish in tag order."""
    __slots__ = ("rate", "now", "virtual", "active")

    def __init__(self, lines_per_cycle: float):
        self.rate = lines_per_cycle
        self.now = 0.0
        self.virtual = 0.0
        self.active: list[Job] = []       # unfinished jobs by tag

    def _advance(self, t: float) -> None:
        """Serve the active jobs from `now` to t (equal shares; a job that finishes leaves
        its share to the others)."""
        active = self.active
        done = 0
        while done < len(active):
            k = len(active) - done
            span = (active[done].tag - self.virtual) * k / self.rate    # until the next job is done
            if self.now + span > t:
                self.virtual += (t - self.now) * self.rate / k
                break
            self.virtual, self.now = active[done].tag, self.now + span
            done += 1
        if done:
            del active[:done]
        self.now = max(self.now, t)

    def add(self, t: int, lines: float) -> Job:
        self._advance(t)
        job = Job(self.virtual + max(lines, 1.0))
        active = self.active
        k = len(active)
        while k and active[k - 1].tag > job.tag:
            k -= 1
        active.insert(k, job)
        # each active job's finish if nothing else arrives
        now, v, n = self.now, self.virtual, len(active)
        for i, j in enumerate(active):
            now += (j.tag - v) * (n - i) / self.rate
            v = j.tag
            j.finish = now
        return job

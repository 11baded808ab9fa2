"""The cycle-approximate issue model: given each wave's instruction stream (the PCs it
executed, recorded by the functional emulator or taken from a trace) and where and when it
was launched, predict the cycle at which every instruction *issues*, and why it waited.

One event loop over all waves in time order. A wave's next instruction may issue at the
latest of: its previous issue + 1, register dependencies (`_deps`), the SIMD's pipe
occupancy, wait counters (s_waitcnt with in-order return per counter), instruction fetch of
its code line, launch, barrier; then per SIMD and cycle one instruction per pipe
(VALU, SALU, memory, ...) goes to the oldest ready wave. The binding term names the stall
cause; a wave that lost the issue slot to an older wave stalls for `arbitration`.
"""
from __future__ import annotations

import heapq
from dataclasses import field

from isa.records import dataclass

from .arch import ArchTiming
from .classify import SCC, VCC, VGPR, Kind, OpInfo
from .memory import LinePipe

# stall causes, in the order the reports list them
CAUSES = ("issue", "dependency", "pipe", "vm", "lgkm", "vs", "exp", "fetch", "launch", "barrier", "nop",
          "branch", "arbitration")
# issue slot per pipe: one instruction of each per SIMD and cycle
_SLOT = {Kind.VALU: "valu", Kind.SALU: "salu", Kind.SMEM: "salu", Kind.VMEM_LOAD: "vmem", Kind.VMEM_STORE: "vmem",
         Kind.LDS: "lds", Kind.BRANCH: "branch", Kind.WAIT: "salu", Kind.NOP: "salu", Kind.CLAUSE: "salu",
         Kind.END: "branch", Kind.BARRIER: "branch", Kind.OTHER: "salu"}
_MEMORY = (Kind.SMEM, Kind.VMEM_LOAD, Kind.VMEM_STORE, Kind.LDS)
_NOT_ISSUED = (Kind.DELAY,)       # consumed by the instruction buffer: no issue slot, not in traces
# scalar-pipe instructions that wait for the wave's vector memory instruction to hand over its operands
_AFTER_VMEM = (Kind.SALU, Kind.CLAUSE, Kind.NOP, Kind.WAIT, Kind.OTHER)
_VMEM = (Kind.VMEM_LOAD, Kind.VMEM_STORE)


class _Return:
    """An outstanding vector memory instruction: its data is back `latency` after its
    lines went through the CU's line pipe (`job.finish`, pushed back by later arrivals)."""
    __slots__ = ("job", "latency", "issued", "writes")

    def __init__(self, job, latency: int, issued: int, writes=()):
        self.job, self.latency, self.issued, self.writes = job, latency, issued, writes

    @property
    def done(self) -> int:
        return -int(-(self.job.finish + self.latency) // 1)


class _Fixed:
    """An outstanding scalar or LDS memory instruction: back at a fixed cycle."""
    __slots__ = ("done", "writes")

    def __init__(self, done: int, writes=()):
        self.done, self.writes = done, writes


def _returned(q: list, k: int) -> int:
    """When entry k of a counter's queue is back: returns are in order, so not before any
    earlier entry (entries are _Fixed, or _Return for the vector memory pipe)."""
    best = 0
    for e in q[:k + 1]:
        v = e.done
        if v > best:
            best = v
    return best


@dataclass
class WaveSpec:
    stream: list                      # PCs in execution order (the last one ends the wave)
    start: int | None = 0             # dispatch cycle; None: when a slot on its SIMD frees (queued in order)
    simd: tuple = (0, 0)              # (cu, simd): waves with the same key share issue slots and pipes
    group: int | None = None          # work-group (barriers); None: alone
    name: str = ""
    released: dict | None = None      # stream index of an s_waitcnt -> cycle its counters are satisfied
                                      # (replaying a measured trace: the memory returns as measured)


@dataclass(slots=True)
class WaveTiming:
    name: str
    simd: tuple
    start: int
    pcs: list = field(default_factory=list)
    issue: list = field(default_factory=list)        # issue cycle of each instruction (NOT_ISSUED ones: -1)
    cause: list = field(default_factory=list)        # stall cause of each gap
    end: int = 0
    base: list | None = None                         # the simulated wave's issue list this one copies
    pipe: dict | None = None                         # vector memory instruction index -> cycle its lines
                                                     # went through the CU's line pipe (simulated waves)

    def moved(self, name: str, simd: tuple, shift: int = 0) -> "WaveTiming":
        """The same timings for a wave of an identical CU (the lists are shared, read-only),
        `shift` cycles later."""
        issue = self.issue if not shift else [t + shift if t >= 0 else -1 for t in self.issue]
        return WaveTiming(name, simd, self.start + shift, self.pcs, issue, self.cause, self.end + shift,
                          self.base if self.base is not None else self.issue, self.pipe)

    @property
    def first_issue(self) -> int:
        return next((t for t in self.issue if t >= 0), self.start)

    @property
    def lifetime(self) -> int:
        return self.end - self.start


class _Simd:
    __slots__ = ("valu_free", "trans_free", "last_valu_class", "slot_t", "slots", "salu_starts",
                 "wmma_ends", "wmma_bypass", "first_issue")

    def __init__(self):
        self.first_issue = 0                    # launched waves take their first issue cycles in turn
        self.wmma_ends: list[int] = []          # completion of queued WMMA operations, in order
        self.wmma_bypass = 0                    # VALU ops that may still pass the queued WMMAs
        self.valu_free, self.trans_free, self.last_valu_class = 0, 0, ""
        self.salu_starts: list[int] = []        # execution start of each issued SALU instruction
        self.slot_t, self.slots = -1, set()

    def slot_free(self, t: int, slot: str) -> bool:
        if self.slot_t != t:
            self.slot_t, self.slots = t, set()
        return slot not in self.slots


class _Wave:
    __slots__ = ("spec", "out", "i", "last", "reg_time", "reg_kind", "valu_reads", "last_salu", "last_lds", "last_vmem",
                 "sgpr_writes", "outstanding", "returns", "cu", "pipe", "not_before", "not_before_cause", "window_line", "order", "barrier_at", "wait_cause", "wait_ready")

    def __init__(self, spec: WaveSpec, order: int):
        self.spec, self.order = spec, order
        self.out = WaveTiming(spec.name, spec.simd, spec.start)
        self.i = 0
        self.last = None                        # previous issue cycle
        self.reg_time: dict[int, int] = {}      # register -> issue cycle of its last writer
        self.reg_kind: dict[int, str] = {}      # register -> the writer's kind ('valu', 'trans', 'salu', ...)
        self.valu_reads: dict[int, int] = {}    # register -> last VALU issue that read it
        self.last_salu = None                   # issue cycle of the wave's last SALU instruction
        self.last_lds = None                    # ... of its last LDS instruction
        self.last_vmem = None                   # ... of its last vector memory instruction
        self.sgpr_writes: list[int] = []        # when its last VALU ops writing SGPRs (VCC, masks) finished their passes
        self.outstanding = {"vm": [], "lgkm": [], "vs": [], "exp": []}   # completion cycles, in order
        self.returns: list = []                 # (stream index, _Return) of its vector memory instructions
        self.cu = spec.simd[:-1]                # the key of its CU (instruction fetch) ...
        self.pipe = None                        # ... and its CU's vector memory line pipe, on first use
        self.not_before, self.not_before_cause = 0, "launch"
        self.window_line = -1                   # the last line its fetch window reached
        self.barrier_at = None
        self.wait_cause, self.wait_ready = None, None    # the binding constraint while waiting, and until when

class Engine:
    def __init__(self, ops: dict[int, OpInfo], params: ArchTiming, line_share: float = 1.0):
        """`line_share`: the part of a WGP's vector memory line pipe the waves of one SIMD
        key's CU (the key without its last item) have: 1 when the key names the WGP (a
        trace's (se, wgp, simd)), 1/cus_per_wgp when it names one CU whose partner runs
        the same work (the launch model)."""
        self.ops, self.p, self.line_rate = ops, params, params.vmem_lines_per_cycle * line_share
        self._regs: dict[int, tuple] = {}        # pc -> (register, wait after its writer by writer kind)
        self._memory_latency = {Kind.SMEM: params.smem_latency, Kind.VMEM_LOAD: params.vmem_load_latency,
                                Kind.VMEM_STORE: params.vmem_store_latency, Kind.LDS: params.lds_latency}

    def run(self, waves: list[WaveSpec]) -> list[WaveTiming]:
        p = self.p
        self.simds: dict[tuple, _Simd] = {}
        self.lines: dict[tuple, int] = {}      # (cu, code line) -> arrival cycle
        self.pipes: dict[tuple, LinePipe] = {}  # CU / WGP -> its vector memory line pipe
        self.lds_free: dict[tuple, float] = {}  # CU / WGP -> when its LDS has served the bank-conflict passes queued
        self.groups: dict[int, list[_Wave]] = {}
        state = [_Wave(w, k) for k, w in enumerate(waves)]
        heap = []
        self.queued: dict[tuple, list] = {}
        for w in state:
            self.simds.setdefault(w.spec.simd, _Simd())
            if w.spec.group is not None:
                self.groups.setdefault(w.spec.group, []).append(w)
            if w.spec.start is None:
                self.queued.setdefault(w.spec.simd, []).append(w)
            else:
                self._launch(w, w.spec.start, heap)
        for q in self.queued.values():
            q.reverse()                         # pop() takes the oldest
        while heap:
            t, _, w = heapq.heappop(heap)
            nxt = self._try_issue(w, t)
            if nxt is not None:
                heapq.heappush(heap, (nxt, w.order, w))
            elif w.barrier_at is not None:
                self._barrier(w, heap)
            else:       # ended: its slot takes the next queued wave of the SIMD
                q = self.queued.get(w.spec.simd)
                if q:
                    self._launch(q.pop(), w.out.end + 1, heap)
                waiting = [x for x in self.groups.get(w.spec.group, ()) if x.barrier_at is not None]
                if waiting:     # the waves still at a barrier no longer wait for this one
                    self._barrier(waiting[0], heap)
            if not heap:        # waves parked at a barrier whose other waves never come (queued behind them)
                stuck = [x for x in state if x.barrier_at is not None]
                for x in stuck:
                    x.barrier_at = None
                    x.not_before, x.not_before_cause = x.last + 1 + self.p.barrier_latency, "barrier"
                    heapq.heappush(heap, (x.not_before, x.order, x))
        for w in state:
            if w.returns:
                w.out.pipe = {i: r.job.finish for i, r in w.returns}
        return [w.out for w in state]

    def _launch(self, w: _Wave, start: int, heap) -> None:
        p = self.p
        w.out.start = start
        # a wave issues once it is set up and its first code line is there: the first wave of a
        # CU fetches it cold (`launch_latency` after dispatch, with the rest of its fetch window),
        # the waves after it share it (in dispatch order, one per cycle and SIMD: what the issue
        # arbitration gives them, without every wave waiting for the line retrying each cycle)
        if w.spec.stream:
            entry = w.spec.stream[0]
            asked = start + p.launch_latency - p.fetch_latency
            arrival = self._request(w, entry // p.fetch_block, asked)
            w.window_line = (entry + p.fetch_window) // p.fetch_block
            for b in range(entry // p.fetch_block + 1, w.window_line + 1):
                self._request(w, b, asked)
            simd = self.simds[w.spec.simd]
            w.not_before = max(start + min(p.launch_setup, p.launch_latency), arrival, simd.first_issue)
            simd.first_issue = w.not_before + 1
            heapq.heappush(heap, (w.not_before, w.order, w))
        else:
            w.out.end = start

    def _pipe(self, w: _Wave) -> LinePipe:
        """The line pipe w's SIMD key names (the key without its last item, the SIMD)."""
        pipe = self.pipes.get(w.cu)
        if pipe is None:
            pipe = self.pipes[w.cu] = LinePipe(self.line_rate)
        w.pipe = pipe
        return pipe

    # ------------------------------------------------------------------ fetch
    def _request(self, w: _Wave, line: int, t: int) -> int:
        key = (w.cu, line)
        have = self.lines.get(key)
        if have is None:
            have = self.lines[key] = t + self.p.fetch_latency
        return have

    def _fetched(self, w: _Wave, pc: int, size: int, t: int) -> int:
        """Cycle at which the code line(s) of [pc, pc+size) are there (requested now if
        they were not), and the wave's fetch window moved to pc: every line up to
        `fetch_window` bytes past pc is requested once the line at pc is there."""
        p = self.p
        ready = 0
        for b in range(pc // p.fetch_block, (pc + size - 1) // p.fetch_block + 1):
            ready = max(ready, self._request(w, b, t))
        reach = (pc + p.fetch_window) // p.fetch_block
        if reach != w.window_line:
            w.window_line = reach
            for b in range(pc // p.fetch_block + 1, reach + 1):
                self._request(w, b, max(t, ready))
        return ready

    # ------------------------------------------------------------------ issue
    def _try_issue(self, w: _Wave, t: int):
        """Issue w's next instruction at t if it can; else the cycle to try again (None:
        ended or parked at a barrier)."""
        p = self.p
        stream = w.spec.stream
        ops = self.ops
        while w.i < len(stream) and ops[stream[w.i]].kind in _NOT_ISSUED:
            w.out.pcs.append(stream[w.i])
            w.out.issue.append(-1)
            w.out.cause.append("")
            w.i += 1
        if w.i >= len(stream):
            w.out.end = w.last if w.last is not None else w.out.start
            return None
        op = ops[stream[w.i]]
        simd = self.simds[w.spec.simd]
        # the binding constraint: the latest of the terms below, the first named on a tie
        ready, cause = w.not_before, w.not_before_cause
        if w.last is not None and w.last + 1 > ready:
            ready, cause = w.last + 1, "issue"
        pc = op.pc
        block = pc // p.fetch_block
        fetched = None
        if (pc + p.fetch_window) // p.fetch_block == w.window_line and block == (pc + op.size - 1) // p.fetch_block:
            fetched = self.lines.get((w.cu, block))  # requested, and the window did not move
        if fetched is None:
            fetched = self._fetched(w, pc, op.size, t)
        if fetched > ready:
            ready, cause = fetched, "fetch"
        dep = self._deps(w, op)
        if dep > ready:
            ready, cause = dep, "dependency"
        kind = op.kind
        # per wave, between pipes: a VALU op after an LDS instruction, a scalar-pipe one after a
        # vector memory instruction, a scalar load after a SALU op (it reads SGPRs once the SALU retired)
        if kind == Kind.VALU and w.last_lds is not None and w.last_lds + p.lds_to_valu > ready:
            ready, cause = w.last_lds + p.lds_to_valu, "pipe"
        elif kind in _AFTER_VMEM and w.last_vmem is not None and w.last_vmem + p.vmem_to_scalar > ready:
            ready, cause = w.last_vmem + p.vmem_to_scalar, "pipe"
        elif kind == Kind.SMEM and w.last_salu is not None and w.last_salu + p.salu_to_smem > ready:
            ready, cause = w.last_salu + p.salu_to_smem, "pipe"
        if kind == Kind.VALU:
            if simd.valu_free > ready:
                ready, cause = simd.valu_free, "pipe"
            if op.trans and simd.trans_free > ready:
                ready, cause = simd.trans_free, "pipe"
            if op.valu != "wmma" and simd.wmma_ends and simd.wmma_bypass <= 0:
                pending = [e for e in simd.wmma_ends if e > (w.last or 0)]
                if pending and pending[0] > ready:   # the VALU alternates with the matrix core: wait for the next WMMA
                    ready, cause = pending[0], "pipe"
            if op.sgpr_result:
                recent = w.sgpr_writes        # the last `valu_sgpr_inflight` such writes (end of their passes), oldest first
                if len(recent) >= p.valu_sgpr_inflight and recent[-p.valu_sgpr_inflight] + p.valu_sgpr_cycles > ready:
                    ready, cause = recent[-p.valu_sgpr_inflight] + p.valu_sgpr_cycles, "pipe"
        elif kind == Kind.SALU and op.hwreg and simd.salu_starts:
            drained = simd.salu_starts[-1] + p.salu_cycles + p.hwreg_latency     # the SALU drains first
            if drained > ready:
                ready, cause = drained, "pipe"
        elif kind == Kind.SALU and len(simd.salu_starts) >= p.salu_queue:
            if simd.salu_starts[-p.salu_queue] > ready:                       # the SALU queue is full
                ready, cause = simd.salu_starts[-p.salu_queue], "pipe"
        if kind == Kind.WAIT:
            released = w.spec.released.get(w.i) if w.spec.released else None
            for counter, limit in (op.waits or {}).items():
                q = w.outstanding.get(counter, [])
                if len(q) > limit:
                    at = _returned(q, len(q) - 1 - limit) + p.waitcnt_resume if released is None else released
                    if at > ready:
                        ready, cause = at, counter
        elif kind == Kind.END:
            for counter in ("vm", "vs", "lgkm"):
                q = w.outstanding[counter]
                back = _returned(q, len(q) - 1) if q else 0
                if back > ready:
                    ready, cause = back, counter
        if ready > t:
            if w.wait_ready is None or ready > w.wait_ready:
                w.wait_cause, w.wait_ready = cause, ready
            return ready
        slot = _SLOT.get(kind, "salu")
        if simd.slot_t != t:
            simd.slot_t, simd.slots = t, set()
        elif slot in simd.slots:
            if w.wait_ready is None or ready > w.wait_ready:
                w.wait_cause, w.wait_ready = cause, ready
            return t + 1
        simd.slots.add(slot)
        # the gap goes to the constraint that held it longest: the wait, or losing issue slots after it
        waited_from = w.last + 1 if w.last is not None else w.out.start
        bound, bound_cause = (w.wait_ready, w.wait_cause) if w.wait_ready is not None else (ready, cause)
        final = bound_cause if bound - waited_from >= t - bound or t == bound else "arbitration"
        w.wait_cause = w.wait_ready = None
        self._issue(w, op, t, final, simd)
        if kind == Kind.BARRIER and w.spec.group is not None:
            w.barrier_at = t
            return None
        return w.not_before

    def _deps(self, w: _Wave, op: OpInfo) -> int:
        """The cycle from which op's register dependencies allow it to issue."""
        table = self._regs.get(op.pc)
        if table is None:
            table = self._regs[op.pc] = tuple((r, lat) for r in op.reads | op.writes | op.accumulates
                                              if (lat := self._latencies(op, r)))
        best = 0
        reg_time, reg_kind = w.reg_time, w.reg_kind
        for r, lat in table:
            t0 = reg_time.get(r)
            if t0 is not None:
                wait = lat.get(reg_kind[r])
                if wait is not None and t0 + wait > best:
                    best = t0 + wait
        if op.kind == Kind.SALU:
            after = self.p.salu_writes_valu_source
            for r in op.writes:
                t0 = w.valu_reads.get(r)
                if t0 is not None and t0 + after > best:
                    best = t0 + after
        elif op.kind in _MEMORY:
            after = self.p.valu_to_memory       # a load must not overwrite a VGPR before the VALU that reads it has
            for r in op.writes:
                t0 = w.valu_reads.get(r)
                if t0 is not None and t0 + after > best:
                    best = t0 + after
        return best

    def _latencies(self, op: OpInfo, r: int) -> dict:
        """How long after its last writer op may read or overwrite register r, by the kind of
        that writer ('valu', 'trans', 'salu', 'memory'; absent: no wait). For memory
        writers the time is counted from the data's return."""
        p = self.p
        consumer = op.kind
        reads = r in op.reads
        out = {}
        for producer in ("valu", "trans", "salu", "memory"):
            if r in op.writes and not reads and producer not in ("valu", "trans"):
                continue                        # write after write of a scalar/memory result: in order
            if producer in ("valu", "trans"):
                if consumer == Kind.VALU:
                    if not reads:
                        continue                # VALU writes in order; an accumulator's old value is forwarded
                    if r < VGPR:
                        lat = p.valu_mask_latency     # VCC / carry / SGPR results forward at once
                    else:
                        lat = p.trans_latency if producer == "trans" else p.valu_latency
                elif consumer in _MEMORY:
                    lat = p.valu_to_memory
                elif r >= VGPR:
                    continue
                else:
                    lat = p.valu_to_scalar
            elif producer == "salu":
                if not reads:
                    continue
                if consumer == Kind.VALU:
                    if r not in op.mask_reads:
                        continue
                    lat = p.salu_to_valu_mask
                else:
                    lat = p.salu_latency if r == SCC or r in VCC else p.salu_sgpr_latency
            elif consumer == Kind.VALU and reads:
                lat = p.memory_to_valu          # the loaded data's return
            else:
                continue                        # memory results otherwise: the program's s_waitcnt orders them
            out[producer] = lat
        return out

    def _issue(self, w: _Wave, op: OpInfo, t: int, cause: str, simd: _Simd) -> None:
        p = self.p
        w.out.pcs.append(op.pc)
        w.out.issue.append(t)
        w.out.cause.append(cause)
        w.last = t
        w.not_before, w.not_before_cause = t + 1, "issue"
        passes = p.wave64_passes if op.wave64 else 1
        kind = op.kind
        if kind == Kind.VALU:
            cls = op.valu or "plain"
            occ = p.valu_occupancy.get(cls, 1)
            if cls == "fp64" and simd.last_valu_class != "fp64":     # the first of a run of FP64 ops
                occ = p.fp64_first_occupancy.get(op.name, occ)
            if op.trans:
                simd.trans_free = t + p.valu_occupancy["trans"] * passes
            if cls == "wmma":       # queued for the matrix core, which runs them one after another
                ends = simd.wmma_ends = [e for e in simd.wmma_ends if e > t]
                start = max(t + p.wmma_start, ends[-1] if ends else 0)
                ends.append(start + p.valu_occupancy["wmma"] * passes)
                simd.wmma_bypass = p.wmma_bypass
                simd.valu_free = max(simd.valu_free, t + 1)
            elif cls == "trans":      # the transcendental unit is its own: other VALU ops go on
                simd.valu_free = max(simd.valu_free, t + passes)
            else:
                simd.valu_free = t + occ * passes
                if simd.wmma_ends:
                    if simd.wmma_bypass > 0:
                        simd.wmma_bypass -= 1
                    else:
                        simd.wmma_ends = [e for e in simd.wmma_ends if e > t]
            simd.last_valu_class = cls
            if op.sgpr_result:
                w.sgpr_writes.append(t + occ * passes)        # when its passes are done
                if len(w.sgpr_writes) > p.valu_sgpr_inflight:
                    del w.sgpr_writes[0]
            wk = "trans" if cls == "trans" else "valu"
            for r in op.writes:
                w.reg_time[r], w.reg_kind[r] = t, wk
            for r in op.reads:
                w.valu_reads[r] = t
        elif kind == Kind.SALU:
            starts = simd.salu_starts
            starts.append(max(t, starts[-1] + p.salu_cycles if starts else t))
            if len(starts) > 64:
                del starts[:32]
            for r in op.writes:
                w.reg_time[r], w.reg_kind[r] = t, "salu"
            w.last_salu = t
        elif kind in _VMEM:
            # the CU's line pipe, then the latency; the counter's returns stay in order (_returned)
            pipe = w.pipe or self._pipe(w)
            entry = _Return(pipe.add(t, op.lines), self._memory_latency[kind], t, op.writes)
            w.outstanding[op.counter].append(entry)
            w.returns.append((w.i, entry))
            w.last_vmem = t
            done = entry.done
            for r in op.writes:
                w.reg_time[r], w.reg_kind[r] = done, "memory"
        elif kind in _MEMORY:
            lat = self._memory_latency[kind]
            start = t
            if kind == Kind.LDS:
                # bank conflicts: the passes beyond the conflict-free count take the CU's LDS one
                # cycle each, after the conflict passes queued before them; the data is back that much later
                start = max(t, self.lds_free.get(w.cu, 0))
                if op.lds_extra:
                    extra = op.lds_extra * p.lds_pass_cycles
                    self.lds_free[w.cu] = start + extra
                    lat += extra
                w.last_lds = t
            q = w.outstanding[op.counter]
            done = max(-int(-(start + lat) // 1), _returned(q, len(q) - 1) if q else 0)   # each counter returns in order
            q.append(_Fixed(done, op.writes))
            for r in op.writes:
                w.reg_time[r], w.reg_kind[r] = done, "memory"
        elif kind == Kind.WAIT:
            for counter, limit in (op.waits or {}).items():
                q = w.outstanding.get(counter)
                if q is not None and len(q) > limit:      # the older entries are back: forget them
                    back = t - p.waitcnt_resume
                    for e in q[:len(q) - limit]:    # their registers are back by now (a replayed
                        for r in e.writes:              # trace releases the wait when they returned)
                            if w.reg_kind.get(r) == "memory" and w.reg_time[r] > back:
                                w.reg_time[r] = back
                    del q[:len(q) - limit]
        elif kind == Kind.NOP:
            w.not_before, w.not_before_cause = t + 1 + op.nop, "nop"
        w.i += 1
        stream = w.spec.stream
        if kind == Kind.BRANCH and w.i < len(stream):
            target = stream[w.i]
            if target != op.pc + op.size:         # taken (a call to the next instruction counts: it jumped)
                ready = self._fetched(w, target, p.branch_refill_bytes, t)
                w.not_before, w.not_before_cause = max((t + p.branch_taken, "branch"), (ready, "fetch"))
            elif op.conditional:
                w.not_before, w.not_before_cause = t + p.branch_not_taken, "branch"
            else:     # s_call to the next instruction: still a jump, the buffer refills
                ready = self._fetched(w, target, p.branch_refill_bytes, t)
                w.not_before, w.not_before_cause = max((t + p.branch_taken, "branch"), (ready, "fetch"))
        if kind == Kind.END or w.i >= len(stream):
            w.out.end = t
            w.i = len(stream)
            w.not_before = t

    def _barrier(self, w: _Wave, heap) -> None:
        group = self.groups.get(w.spec.group, [])
        live = [x for x in group if x.i < len(x.spec.stream)]
        if all(x.barrier_at is not None for x in live):
            release = max(x.barrier_at for x in live) + self.p.barrier_latency
            for x in live:
                x.barrier_at = None
                x.not_before, x.not_before_cause = release, "barrier"
                heapq.heappush(heap, (release, x.order, x))

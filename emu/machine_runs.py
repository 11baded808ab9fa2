"""Straight-line runs (EmuOptions.compiled_runs): the plain instructions from one PC up to the
next branch, machine event or instruction without a compiled step, run by one generated
function.

While every running wave of a batch sits at one PC (the machine's `together` path), each
instruction is one step of the run loop: its plan looked up, budget, clock, issue count and
PC moved on, EXEC looked up again. A run does that once for all its instructions: its
function calls the instructions' compiled steps (machine.py `compile_step`) one after another
with the batch's EXEC state read once and again only after an instruction wrote EXEC (its
write counts moved), its STATUS read once (only hand-written semantics write it, and those
have no compiled step), zeroing stale registers before each as the run loop would. The run loop
then adds the run's steps, issue counts and bytes of code at once.

A run changes no order: its instructions are the ones the run loop would step through, for
the same waves, and the machine takes the run only when the loop would have stepped through
every one of them (no other wave's PC reached, budget and clock not due). When an
instruction of it raises, `RunStop` says how many completed before it, so the machine reports
the error, or retries the batch wave by wave, at that instruction's PC as a single step would.
"""
from __future__ import annotations

from isa.records import dataclass

from .cache_folder import compiled
from .machine_fuse import MEMORY_OPS, NAMESPACE as FUSE_NAMESPACE, Segment, fusable
from .options import current
from .wave import EXEC_LO

MAX_RUN = 64        # instructions of one generated function (a longer stretch is several runs)


class RunStop(Exception):
    """Instruction `done` of a run raised `error`; the `done` instructions before it completed."""

    def __init__(self, done: int, error: Exception):
        super().__init__(done, error)
        self.done, self.error = done, error


@dataclass(frozen=True)
class Run:
    """A straight-line run of instructions from one PC, run on a batch of waves by one function."""
    fn: object              # fn(chunk, sel, idx): every instruction of the run on that batch (generated at its first call)
    count: int              # instructions (machine steps) in the run
    size: int               # bytes of code it covers: the PC after it is the start + size
    last: int               # byte offset of its last instruction from its start
    limit: int              # the most waves one call may take (the least of its instructions')
    prepared: tuple         # the Prepared of each instruction
    offsets: tuple          # each instruction's byte offset from the run's start


def build_run(plan_at, pc: int, null: int | None = None) -> Run | None:
    """The run starting at pc, from the plans (machine.py _Chunk.plan) of consecutive PCs: every
    instruction with a plan that is not a branch, up to MAX_RUN. None when fewer than two
    instructions qualify (one step gains nothing). `plan_at(pc)` returns a plan or None, or
    raises when the instruction cannot be prepared: the run then ends before it (a run never
    decides that code it may not reach is bad). null: the family's NULL operand code (None: it has none)."""
    members, at = [], pc
    while len(members) < MAX_RUN:
        try:
            plan = plan_at(at)
        except Exception:
            break
        if plan is None or plan[4]:         # a machine event, or a branch: the run loop's own
            break
        fn, size, limit, p, _ = plan
        members.append((fn, p, at - pc, limit))
        at += size
    if len(members) < 2:
        return None
    return Run(_Generated(members, null), len(members), at - pc, members[-1][2], min(m[3] for m in members),
               tuple(m[1] for m in members), tuple(m[2] for m in members))


class _Generated:
    """A run's function, generated at its first call. The machine builds the run at every PC a
    batch reaches, and takes it only when the batch fits every member (`Run.limit`): a batch
    wider than a memory instruction of it allows steps on and meets a run built at the next PC,
    so a first launch would otherwise compile a function for each of those suffixes (~0.5 ms
    each, ~30 ms in the 2^20-element elementwise launch) that never runs."""
    __slots__ = ("members", "null", "fn")

    def __init__(self, members, null):
        self.members, self.null, self.fn = members, null, None

    def __call__(self, chunk, sel, idx):
        if self.fn is None:
            self.fn, self.members = _generate(self.members, self.null), None
        return self.fn(chunk, sel, idx)


def _generate(members, null) -> object:
    """The run's function: the plain form (`_plain`), and with EmuOptions.fused_runs and at
    least one member machine_fuse can model, the fused form taken for a batch of contiguous
    waves with every lane on."""
    plain = _plain(members)
    if not current().fused_runs:
        return plain
    fused = [None if fn is None else fusable(p, null) for fn, p, _, _ in members]
    if sum(f is not None for f in fused) < 2:
        return plain
    return _fused(members, fused, plain)


def _plain(members, start: int = 0) -> object:
    """One function calling each member's compiled step in order from member `start` (waits:
    only their count), the member's index kept for RunStop. Generated, not a loop: no
    per-instruction iteration, tuple unpacking or test of what the member is. From a later
    start it takes the EXEC state and STATUS its caller read."""
    lo, hi = EXEC_LO, EXEC_LO + 1
    namespace = {"RunStop": RunStop}
    lines = ["def run(chunk, sel, idx, state=None, status=None):",
             "    st = chunk.st",
             "    counts = st.sgpr_written.counts",
             f"    k = {start}",
             "    try:",
             "        if state is None:",
             "            state = chunk.exec_state(sel)",
             "            status = st.status[sel]",      # no compiled step writes STATUS (s_setreg is hand-written)
             f"        e0, e1 = counts[{lo}], counts[{hi}]"]
    first = True
    for k, (fn, p, _, _) in enumerate(members):
        if k < start:
            continue
        namespace[f"p{k}"] = p
        if k > start:
            lines.append(f"        k = {k}")
        lines.append(f"        if st.stale_vgprs: chunk.settle(p{k}, idx)")
        if fn is None:          # a wait or nop: only the PC moves
            continue
        namespace[f"f{k}"] = fn
        if not first:           # an earlier instruction may have written EXEC
            lines += [f"        if counts[{lo}] != e0 or counts[{hi}] != e1:",
                      "            state = chunk.exec_state(sel)",
                      f"            e0, e1 = counts[{lo}], counts[{hi}]"]
        lines.append(f"        f{k}(chunk, sel, idx, state, status)")
        first = False
    lines += ["    except Exception as e:",
              "        raise RunStop(k, e) from None"]
    return _run_function("\n".join(lines), "runs", "<straight-line run>", namespace)


def _fused(members, fused, plain) -> object:
    """The run with its fusable members' arithmetic on locals (emu/machine_fuse.py) for a batch
    of contiguous waves with every lane on; `plain` for other batches, and for the rest of the
    run (from `_plain(members, k)`, generated when first needed) once a member left a lane of
    EXEC off."""
    lo, hi = EXEC_LO, EXEC_LO + 1
    namespace = {"RunStop": RunStop, "plain": plain, "tails": {}, "tail": _tail, "members": members,
                 **FUSE_NAMESPACE}
    lines = ["def run(chunk, sel, idx):",
             "    st = chunk.st",
             "    state = chunk.exec_state(sel)",
             "    if state[2] is not None or type(sel) is not slice:",
             "        return plain(chunk, sel, idx, state, st.status[sel])",
             "    counts = st.sgpr_written.counts",
             "    vgpr, stats, lane_ops, device = st.vgpr, chunk.stats, state[1], chunk.m.memory",
             "    shape = (sel.stop - sel.start, st.lanes)",
             "    k = 0",
             "    try:",
             "        status = st.status[sel]",
             f"        e0, e1 = counts[{lo}], counts[{hi}]"]
    segment = Segment(namespace, lines, "        ")
    for k, ((fn, p, _, _), f) in enumerate(zip(members, fused)):
        namespace[f"p{k}"] = p
        if k:
            lines.append(f"        k = {k}")
        lines.append(f"        if st.stale_vgprs: chunk.settle(p{k}, idx)")
        if fn is None:
            continue
        if f is not None and segment.can_take(f, lambda code: (code, code + 1)):
            if f.op in MEMORY_OPS:      # its plain step, should the access not be made on the locals
                namespace[f"f{k}"] = fn
                segment.memory(f, f"f{k}(chunk, sel, idx, state, status)")
                continue
            if not p.scalar:
                lines.append("        stats.lane_ops += lane_ops")
            segment.instruction(f, p)
            continue
        segment.store()
        namespace[f"f{k}"] = fn
        lines.append(f"        f{k}(chunk, sel, idx, state, status)")
        if k + 1 < len(members):        # it may have written EXEC
            lines += [f"        if counts[{lo}] != e0 or counts[{hi}] != e1:",
                      "            state = chunk.exec_state(sel)",
                      f"            e0, e1 = counts[{lo}], counts[{hi}]",
                      "            lane_ops = state[1]",
                      "            if state[2] is not None:",
                      f"                return tail(tails, members, {k + 1})(chunk, sel, idx, state, status)"]
    segment.store()
    lines += ["    except RunStop:",
              "        raise",
              "    except Exception as e:",
              "        raise RunStop(k, e) from None"]
    return _run_function("\n".join(lines), "fused-runs", "<fused straight-line run>", namespace)


def _tail(tails: dict, members, start: int):
    """The plain form of a run from member `start`, generated at its first use."""
    fn = tails.get(start)
    if fn is None:
        fn = tails[start] = _plain(members, start)
    return fn


def _run_function(text: str, kind: str, filename: str, namespace: dict):
    """The `run` function our generated source `text` defines, executed in `namespace`. Compiling
    a run of a few dozen instructions costs a first launch ~1-2 ms: its bytecode is kept on disk
    by its text (EmuOptions.run_code_cache)."""
    code = compiled(text, kind, filename) if current().run_code_cache else compile(text, filename, "exec")
    exec(code, namespace)
    return namespace["run"]

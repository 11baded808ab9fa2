"""IR -> IR: memory loads issued early within straight-line code (`schedule_loads`).

Selection keeps the IR's order, and s_waitcnt (waitcnt.py) waits right before the first
reader of a load. An unrolled reduction written load, use, load, use ... therefore waits for
each load's full latency in turn. Here, within each stretch of straight-line code (no loop,
IF or barrier boundary), each global or LDS load moves up, together with the pure
instructions that compute its index, to before the first instruction that is not its
ancestor — as long as the loads issued ahead of their first reader hold at most `window`
dwords. That window slides: when a load's first reader is reached, the next load moves up
in its place, so a run of loads keeps about `window` dwords in flight and the counter waits
become `vmcnt(n)` / `lgkmcnt(n)` with n > 0 (or, for SMEM, one wait for a batch).

What never moves: stores, barriers, control flow; a load never passes a store to memory of
its kind (any global buffer, for global loads: buffers are not assumed to be distinct
memory here; any LDS array, for LDS loads); register-array loads and stores keep their order
per array. Everything else but the pure instructions a moved load needs keeps its relative
order, so the pass changes when loads issue and nothing they compute: results are bit for bit
those without it. `compile_program(..., schedule=False)` turns it off, `schedule=N` sets the
window (`WINDOW` dwords by default; larger keeps more in flight and more registers taken)."""
from __future__ import annotations

from .ir import ALU, Instr, Program

BOUNDARY = {"range", "end", "if", "endif", "barrier"}
PURE = ALU | {"const", "group_id", "local_id", "param", "cast", "bitcast", "vec", "gep"}
# dwords of loads issued ahead of their first reader (VMEM_IN_FLIGHT / SMEM_IN_FLIGHT in
# waitcnt.py bound what may be outstanding at once; this bounds the registers they hold)
WINDOW = 32


def _space(prog: Program, name: str) -> str:
    return getattr(prog.array(name), "space", "global")


def _dwords(ins: Instr) -> int:
    return max(1, (ins.dtype.itemsize * ins.dtype.count + 3) // 4)


def schedule_loads(prog: Program, window: int = WINDOW) -> Program:
    instrs = prog.instrs
    order: list[int] = []
    start = 0
    for i, ins in enumerate(instrs):
        if ins.op in BOUNDARY:
            order += _stretch(prog, start, i, window)
            order.append(i)
            start = i + 1
    order += _stretch(prog, start, len(instrs), window)
    if order == list(range(len(instrs))):
        return prog
    new = {old: n for n, old in enumerate(order)}
    out = tuple(Instr(instrs[o].op, instrs[o].dtype, tuple(new[s] for s in instrs[o].srcs), instrs[o].arg)
                for o in order)
    return Program(prog.name, prog.buffers, prog.vars, prog.locals, out)


def _stretch(prog: Program, lo: int, hi: int, window: int) -> list[int]:
    """The order of instrs[lo:hi] (straight-line code) with loads issued early."""
    instrs = prog.instrs
    if hi - lo < 3:
        return list(range(lo, hi))
    # dependencies inside the stretch: sources, and memory order
    deps: dict[int, set] = {}
    last_store: dict = {}                 # memory key -> index of the latest store
    accesses: dict = {}                   # memory key -> loads and stores since
    for i in range(lo, hi):
        ins = instrs[i]
        d = {s for s in ins.srcs if s >= lo}
        if ins.op in ("load", "store"):
            space = _space(prog, ins.arg)
            key = ins.arg if space == "reg" else space
            if ins.op == "store":
                d |= accesses.get(key, set())
                last_store[key] = i
                accesses[key] = {i}
            else:
                if key in last_store:
                    d.add(last_store[key])
                accesses.setdefault(key, set()).add(i)
        deps[i] = d
    readers: dict[int, list] = {}         # value -> instructions reading it (a gep passes through)
    for i in range(lo, hi):
        for s in deps[i]:
            if instrs[i].srcs and s in instrs[i].srcs:
                readers.setdefault(s, []).append(i)
    movable = {i for i in range(lo, hi) if instrs[i].op in PURE or
               (instrs[i].op == "load" and _space(prog, instrs[i].arg) != "reg")}
    loads = [i for i in range(lo, hi) if instrs[i].op == "load" and _space(prog, instrs[i].arg) != "reg"]

    def first_reader(i: int) -> set:
        """The instructions whose emission means load i's data is needed (geps see through)."""
        out, todo = set(), list(readers.get(i, ()))
        while todo:
            r = todo.pop()
            if instrs[r].op == "gep":
                todo.extend(readers.get(r, ()))
            else:
                out.add(r)
        return out

    waits_on = {i: first_reader(i) for i in loads}
    done: set = set()
    order: list[int] = []
    ahead: dict[int, int] = {}            # loads issued whose first reader is not: dwords
    nxt = lo                              # next instruction in the original order
    li = 0                                # next load to consider moving up

    def emit(i: int) -> None:
        done.add(i)
        order.append(i)
        for ld in [ld for ld in ahead if i in waits_on[ld]]:
            del ahead[ld]
        if waits_on.get(i):
            ahead[i] = _dwords(instrs[i])

    def closure(i: int) -> list | None:
        """Instructions to emit (in original order) so that i can go now, or None."""
        need, todo = set(), [i]
        while todo:
            j = todo.pop()
            if j in done or j in need:
                continue
            if j not in movable:
                return None
            need.add(j)
            todo.extend(deps[j])
        return sorted(need)

    while nxt < hi:
        while li < len(loads) and (loads[li] in done or not waits_on[loads[li]]):
            li += 1         # a load read only after the stretch keeps its place
        if li < len(loads) and loads[li] > nxt:
            ld = loads[li]
            size = _dwords(instrs[ld])
            if not ahead or sum(ahead.values()) + size <= window:
                group = closure(ld)
                if group is not None:
                    for j in group:
                        emit(j)
                    continue
        if nxt not in done:
            emit(nxt)
        nxt += 1
    return order

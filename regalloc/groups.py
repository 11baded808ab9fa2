"""Dwords of a virtual register that no instruction reads or writes together need not be
adjacent. A 4-dword value filled one dword at a time and read one dword at a time is four
independent values; only dwords that some operand names together (a 4-dword load, a 64-bit
add) must sit in consecutive registers. `split_groups()` turns every virtual into one
virtual per such group (the connected components of "named in one operand"), so the
assignment places each group on its own and a long-lived dword does not hold a whole run
of registers hostage."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

from .liveness import Liveness
from .program import Program, Ref, Virtual


def split_groups(prog: Program) -> tuple[Program, dict[tuple[int, int], tuple[int, int]]]:
    """(the program over group virtuals, {(virtual, dword): (group virtual, dword in group)}).
    Group virtuals are named `name[i]` or `name[i:j]` after the dwords they hold."""
    parent = [list(range(v.width)) for v in prog.virtuals]

    def find(vid: int, o: int) -> int:
        p = parent[vid]
        while p[o] != o:
            p[o] = p[p[o]]
            o = p[o]
        return o

    for ins in prog.instrs:
        for r in ins.uses + ins.defs:
            if r.virtual and r.count > 1:
                a = find(r.reg, r.offset)
                for j in range(1, r.count):
                    b = find(r.reg, r.offset + j)
                    if a != b:
                        a, b = min(a, b), max(a, b)
                        parent[r.reg][b] = a
    if all(find(vid, o) == 0 for vid, v in enumerate(prog.virtuals) for o in range(v.width)):
        return prog, {(vid, o): (vid, o) for vid, v in enumerate(prog.virtuals) for o in range(v.width)}

    virtuals: list[Virtual] = []
    where: dict[tuple[int, int], tuple[int, int]] = {}
    for vid, v in enumerate(prog.virtuals):
        members: dict[int, list[int]] = {}
        for o in range(v.width):
            members.setdefault(find(vid, o), []).append(o)
        for root in sorted(members):
            lo, hi = min(members[root]), max(members[root])
            name = v.name if (lo, hi) == (0, v.width - 1) else (f"{v.name}[{lo}]" if lo == hi else f"{v.name}[{lo}:{hi}]")
            gid = len(virtuals)       # operands are runs, so a group is a run lo..hi
            virtuals.append(Virtual(v.file, hi - lo + 1, name))
            for o in members[root]:
                where[(vid, o)] = (gid, o - lo)

    def move(r: Ref) -> Ref:
        if not r.virtual:
            return r
        gid, off = where[(r.reg, r.offset)]
        return replace(r, reg=gid, offset=off)

    instrs = [replace(ins, uses=tuple(map(move, ins.uses)), defs=tuple(map(move, ins.defs)),
                      copy=(move(ins.copy[0]), move(ins.copy[1])) if ins.copy else None,
                      distinct_mod=tuple((move(a), move(b), m) for a, b, m in ins.distinct_mod))
              for ins in prog.instrs]
    return Program(instrs, virtuals), where


def split_webs(prog: Program, lv: Liveness, spans, succs) -> tuple[Program, Liveness, dict[tuple[int, int], int]]:
    """Give every live range of a one-dword virtual of `lv`'s file that no path connects to
    its other live ranges (a value rewritten from scratch, a dead write) its own virtual, so
    each can take a different register (renaming: no moves are added).

    The live points of a dword form intervals in program order; two intervals are one value
    when a control-flow edge leaves one and enters the other with the dword live on both
    sides, or when one instruction touches both (its reads and its writes of a virtual name
    one register operand). Returns (the program over the new virtuals,
    its liveness (the same intervals, divided between the virtuals), {(instruction, old
    virtual): new virtual} for every reference that moved)."""
    singles = {vid: u for vid, u in lv.unit_of.items() if prog.virtuals[vid].width == 1 and len(lv.intervals[u]) > 1}
    if not singles:
        return prog, lv, {}
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def find(x):
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    def join(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    starts = {vid: [s for s, _ in lv.intervals[u]] for vid, u in singles.items()}

    def locate(vid: int, point: int) -> int | None:
        k = bisect_right(starts[vid], point) - 1
        return k if k >= 0 and point < lv.intervals[singles[vid]][k][1] else None

    edges = [(2 * spans[b][1] - 1, 2 * spans[t][0]) for b in range(len(spans)) for t in succs[b]]
    for vid in singles:
        for out, into in edges:
            a, b = locate(vid, out), locate(vid, into)
            if a is not None and b is not None and a != b:
                join((vid, a), (vid, b))
    touched: list[tuple[int, int, int | None]] = []     # (instruction, virtual, interval)
    for i, ins in enumerate(prog.instrs):
        here = {r.reg for r in ins.uses + ins.defs if r.virtual and r.reg in singles}
        for vid in here:
            a, b = locate(vid, 2 * i), locate(vid, 2 * i + 1)
            if a is not None and b is not None and a != b:
                join((vid, a), (vid, b))
            touched.append((i, vid, b if b is not None else a))
    virtuals = list(prog.virtuals)
    name: dict[tuple[int, int], int] = {}
    kept: set[int] = set()              # virtuals whose first live range kept their id
    moved: dict[tuple[int, int], int] = {}
    for i, vid, k in touched:
        root = find((vid, k)) if k is not None else None
        if root is None:
            new = len(virtuals)           # reads a dword no write reaches: any register will do
            virtuals.append(prog.virtuals[vid])
        elif root not in name:
            # the first live range keeps the virtual's id, later ones get new ones
            if vid not in kept:
                kept.add(vid)
                name[root] = vid
            else:
                name[root] = len(virtuals)
                virtuals.append(prog.virtuals[vid])
            new = name[root]
        else:
            new = name[root]
        if new != vid:
            moved[(i, vid)] = new
    if not moved:
        return prog, lv, {}

    def rename(i: int, r: Ref) -> Ref:
        new = moved.get((i, r.reg)) if r.virtual else None
        return r if new is None else replace(r, reg=new)

    instrs = []
    for i, ins in enumerate(prog.instrs):
        if not any((i, r.reg) in moved for r in ins.uses + ins.defs if r.virtual):
            instrs.append(ins)
            continue
        instrs.append(replace(ins, uses=tuple(rename(i, r) for r in ins.uses),
                              defs=tuple(rename(i, r) for r in ins.defs),
                              copy=(rename(i, ins.copy[0]), rename(i, ins.copy[1])) if ins.copy else None,
                              distinct_mod=tuple((rename(i, a), rename(i, b), m) for a, b, m in ins.distinct_mod)))
    # liveness of the new virtuals: each live range's intervals go to the virtual it became
    own: dict[int, list[tuple[int, int]]] = {}
    for vid, u in singles.items():
        for k, iv in enumerate(lv.intervals[u]):
            own.setdefault(name.get(find((vid, k)), vid), []).append(iv)
    n_old = lv.phys_base                 # virtual units first, physical registers after them
    intervals = list(lv.intervals[:n_old])
    for vid, u in singles.items():
        intervals[u] = own.get(vid, [])
    unit_of = dict(lv.unit_of)
    for vid in range(len(prog.virtuals), len(virtuals)):
        unit_of[vid] = len(intervals)
        intervals.append(own.get(vid, []))
    new_lv = Liveness(lv.file, unit_of, len(intervals), intervals + lv.intervals[n_old:], lv.peak, lv.peak_point)
    return Program(instrs, virtuals), new_lv, moved

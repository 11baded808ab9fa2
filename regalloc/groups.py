"""Dwords of a virtual register that no instruction reads or writes together need not be
adjacent. A 4-dword value filled one dword at a time and read one dword at a time is four
independent values; only dwords that some operand names together (a 4-dword load, a 64-bit
add) must sit in consecutive registers. `split_groups()` turns every virtual into one
virtual per such group (the connected components of "named in one operand"), so the
assignment places each group on its own and a long-lived dword does not hold a whole run
of registers hostage."""
from __future__ import annotations

from dataclasses import replace

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

"""IR -> IR: loads of consecutive dwords become one vector load (`combine_loads`), and pure
instructions nobody reads are dropped (`drop_unused`).

Within a stretch of straight-line code (no loop, IF or barrier boundary, no store to the same
array in between), ungated scalar loads of 4-byte elements from one global buffer or LDS
array whose indices are `x + c` for the same `x` and consecutive constants `c` are replaced
by one load of up to 4 elements from global memory (`global_load_b64/b96/b128`, its
immediate offset taking the smallest `c`) or 2 from LDS (`ds_load_2addr_b32`), placed where
the first of them was, and a `gep` of it at each original load. Unrolled reductions and
matmul tiles read that way; one memory instruction then moves 2-4 dwords."""
from __future__ import annotations

from .ir import ALU, DType, Instr, Program

# elements of one combined load: global b128; LDS a ds_load_2addr_b32 pair (it needs only
# 4-byte alignment, where ds_load_b64/b128 would need 8/16 that an index does not promise)
WIDEST = {"global": 4, "lds": 2}
BOUNDARY = {"range", "end", "if", "endif", "barrier"}
PURE = ALU | {"const", "group_id", "local_id", "param", "cast", "bitcast", "vec", "gep"}


def _split_index(prog: Program, idx: int) -> tuple[int, int]:
    """(x, c) with index == x + c (c a constant; (idx, 0) when it is not such an add;
    (None, c) for a constant index)."""
    ins = prog.instrs[idx]
    if ins.op == "const":
        return None, int(ins.arg)
    if ins.op == "add" and ins.dtype.count == 1 and ins.dtype.is_int and ins.dtype.itemsize == 4:
        a, b = (prog.instrs[s] for s in ins.srcs)
        if b.op == "const" and a.op != "const":
            return ins.srcs[0], int(b.arg)
        if a.op == "const" and b.op != "const":
            return ins.srcs[1], int(a.arg)
    return idx, 0


def _groups(prog: Program) -> list[list[tuple[int, int]]]:
    """Lists of (load index, element offset from the first) to combine, each sorted by offset."""
    out, stretch = [], {}
    def close(keys=None):
        for key in list(stretch) if keys is None else keys:
            out.extend(_runs(stretch.pop(key), WIDEST[getattr(prog.array(key[0]), "space", "global")]))
    for i, ins in enumerate(prog.instrs):
        if ins.op in BOUNDARY:
            close()
        elif ins.op == "store":
            close([k for k in stretch if k[0] == ins.arg])
        elif ins.op == "load" and len(ins.srcs) == 1 and ins.dtype.count == 1 and ins.dtype.itemsize == 4:
            space = getattr(prog.array(ins.arg), "space", "global")
            if space in WIDEST:
                x, c = _split_index(prog, ins.srcs[0])
                stretch.setdefault((ins.arg, x, ins.dtype), []).append((c, i))
    close()
    return out


def _runs(members: list[tuple[int, int]], widest: int) -> list[list[tuple[int, int]]]:
    """Consecutive constants, in chunks of at most WIDEST (of loads repeating a constant, the
    first takes part; the others stay as they are)."""
    by_c = {}
    for c, i in members:
        by_c.setdefault(c, i)
    runs, cur = [], []
    for c in sorted(by_c):
        if cur and (c != cur[-1][0] + 1 or len(cur) == widest):
            runs.append(cur)
            cur = []
        cur.append((c, by_c[c]))
    if cur:
        runs.append(cur)
    return [[(i, c - run[0][0]) for c, i in run] for run in runs if len(run) > 1]


def combine_loads(prog: Program) -> Program:
    groups = _groups(prog)
    if not groups:
        return prog
    role = {}                           # load index -> (group, element)
    for g in groups:
        for i, j in g:
            role[i] = (g, j)
    out: list[Instr] = []
    new: dict[int, int] = {}
    vec_of: dict[int, int] = {}         # id(group) -> new index of its vector load
    for i, ins in enumerate(prog.instrs):
        if i in role:
            g, j = role[i]
            if id(g) not in vec_of:      # the group's first load in program order
                first = min(g, key=lambda m: m[1])[0]
                x, c0 = _split_index(prog, prog.instrs[first].srcs[0])
                d = prog.instrs[prog.instrs[first].srcs[0]].dtype
                if x is None:
                    out.append(Instr("const", d, (), c0))
                    base = len(out) - 1
                else:
                    base = new[x]
                    if c0:
                        out.append(Instr("const", d, (), c0))
                        out.append(Instr("add", d, (base, len(out) - 1)))
                        base = len(out) - 1
                out.append(Instr("load", ins.dtype.vec(len(g)), (base,), ins.arg))
                vec_of[id(g)] = len(out) - 1
            out.append(Instr("gep", ins.dtype, (vec_of[id(g)],), j))
        else:
            out.append(Instr(ins.op, ins.dtype, tuple(new[s] for s in ins.srcs), ins.arg))
        new[i] = len(out) - 1
    return drop_unused(Program(prog.name, prog.buffers, prog.vars, prog.locals, tuple(out)))


def drop_unused(prog: Program) -> Program:
    """Without the pure instructions whose values nothing reads."""
    used = set()
    keep = [False] * len(prog.instrs)
    for i in range(len(prog.instrs) - 1, -1, -1):
        ins = prog.instrs[i]
        if ins.op not in PURE or i in used:
            keep[i] = True
            used.update(ins.srcs)
    if all(keep):
        return prog
    new, out = {}, []
    for i, ins in enumerate(prog.instrs):
        if keep[i]:
            out.append(Instr(ins.op, ins.dtype, tuple(new[s] for s in ins.srcs), ins.arg))
            new[i] = len(out) - 1
    return Program(prog.name, prog.buffers, prog.vars, prog.locals, tuple(out))

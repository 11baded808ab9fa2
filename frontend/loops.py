"""IR -> IR loop passes run before instruction selection (`optimize_loops`).

- **Hoisting**: a pure instruction (constants, ids, ALU, casts, vectors) inside a loop whose
  sources are all defined before the loop, or hoisted themselves, is computed once before it.
- **Unrolling**: an innermost loop with a constant trip count whose copies stay within
  `UNROLL_BUDGET` instructions is replaced by one copy of its body per iteration, the counter
  a constant in each: the counter's increment, compare and branch disappear, and an address
  `base + k` leaves `k` to the memory instruction's immediate offset.
- **Simplification** while rebuilding: integer constants folded (32-bit wrap), `x + 0`,
  `x * 1`, `(x + c1) + c2 -> x + (c1 + c2)`, `a * b + c` with a constant or loop-counter
  `c` split into `(a * b) + c` (so the product can be hoisted and `c` folded), and common
  pure subexpressions computed once where the first one dominates the second.

Everything here keeps the program's meaning: integer arithmetic wraps at 32 bits as the
selected instructions do, and nothing with a side effect (loads, stores, barriers) moves."""
from __future__ import annotations

from .ir import ALU, Instr, Program

UNROLL_BUDGET = 512      # instructions a fully unrolled loop may produce
UNROLL_MAX_TRIPS = 64    # ... and iterations
PARTIAL_FACTORS = (16, 8, 4, 2)    # copies of the body per iteration of a longer loop (dividing its trips)
PARTIAL_BUDGET = 256     # instructions those copies may produce
PURE = ALU | {"const", "group_id", "local_id", "param", "cast", "bitcast", "vec", "gep"}
INT32 = ("i32", "u32")
# integer ops folded on constants (None: left alone); results wrap to 32 bits
FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "mulacc": lambda a, b, c: a * b + c, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
        "xor": lambda a, b: a ^ b, "max": max, "min": min,
        "shl": lambda a, b: a << b if 0 <= b < 32 else None,
        "shr": lambda a, b: a >> b if 0 <= b < 32 else None}


def optimize_loops(prog: Program, unroll: bool = True) -> Program:
    # the second pass hoists the products the first split off `a * b + counter`
    return _Rebuild(_Rebuild(prog, unroll).run(), False).run()


def _blocks(instrs) -> dict[int, int]:
    """range/if index -> index of its end/endif."""
    out, stack = {}, []
    for i, ins in enumerate(instrs):
        if ins.op in ("range", "if"):
            stack.append(i)
        elif ins.op in ("end", "endif"):
            out[stack.pop()] = i
    return out


def _invariants(instrs, start: int, stop: int, outside: set[int]) -> list[int]:
    """Pure instructions of the loop body instrs[start+1:stop] computable before the loop."""
    inv, known = [], set(outside)
    for i in range(start + 1, stop):
        ins = instrs[i]
        if ins.op in PURE and all(s in known for s in ins.srcs):
            inv.append(i)
            known.add(i)
    return inv


def _wrap(v: int, scalar: str) -> int:
    v &= 0xFFFF_FFFF
    return v - (1 << 32) if scalar == "i32" and v >= 1 << 31 else v


class _Rebuild:
    def __init__(self, prog: Program, unroll: bool):
        self.prog, self.unroll = prog, unroll
        self.src = prog.instrs
        self.ends = _blocks(self.src)
        self.out: list[Instr] = []
        self.env: dict[int, int] = {}        # old index -> new index
        self.scope: list[int] = []           # new indices of the open range/if blocks
        self.cse: dict = {}                  # key -> (new index, scope it was made in)
        self.counters: set[int] = set()      # new indices of loop counters
        self.hoisted: set[int] = set()       # old indices already emitted before their loop

    def run(self) -> Program:
        self.region(0, len(self.src))
        return Program(self.prog.name, self.prog.buffers, self.prog.vars, self.prog.locals, tuple(self.out))

    # ------------------------------------------------------------ emission

    def const(self, value, dtype) -> int:
        return self.emit(Instr("const", dtype, (), value))

    def emit(self, ins: Instr) -> int:
        """Append `ins` (sources already renumbered) after simplifying it; returns its index."""
        simple = self.simplify(ins)
        if isinstance(simple, int):
            return simple
        ins = simple
        key = None
        if ins.op in PURE:
            arg = (type(ins.arg).__name__, repr(ins.arg))
            key = (ins.op, ins.dtype, ins.srcs, arg)
            hit = self.cse.get(key)
            if hit is not None and tuple(self.scope[:len(hit[1])]) == hit[1]:
                return hit[0]
        self.out.append(ins)
        n = len(self.out) - 1
        if key is not None:
            self.cse[key] = (n, tuple(self.scope))
        return n

    def value(self, n: int):
        """The constant at new index n, or None."""
        ins = self.out[n]
        return ins.arg if ins.op == "const" else None

    def simplify(self, ins: Instr):
        """An equivalent existing index, a rewritten Instr, or `ins` itself."""
        d = ins.dtype
        if d is None or d.count != 1 or d.scalar not in INT32 or ins.op not in FOLD:
            return ins
        cs = [self.value(s) for s in ins.srcs]
        if all(c is not None for c in cs) and all(self.out[s].dtype == d for s in ins.srcs):
            folded = FOLD[ins.op](*cs)
            if folded is not None:
                return self.const(_wrap(folded, d.scalar), d)
        if ins.op not in ("add", "mul", "mulacc"):
            return ins
        if ins.op == "mulacc":
            a, b, c = ins.srcs
            if cs[0] is not None and cs[1] is not None:
                return self.emit(Instr("add", d, (c, self.const(_wrap(cs[0] * cs[1], d.scalar), d))))
            inner = next((n for n in reversed(self.scope) if n in self.counters), -1)
            addend = self.out[c]
            offset = addend.op == "add" and any(self.value(x) is not None for x in addend.srcs)
            if cs[2] is not None or offset or c in self.counters or (inner >= 0 and max(a, b) < inner < c):
                # the product does not change in the innermost loop, or the addend is or
                # has a constant: split so that the product can move out and the constant fold
                prod = self.emit(Instr("mul", d, (a, b)))
                return self.emit(Instr("add", d, (prod, c)))
            return ins
        unit = 0 if ins.op == "add" else 1
        for j in (0, 1):
            if cs[j] == unit and cs[1 - j] is None:
                return ins.srcs[1 - j]
        if ins.op == "add":
            # x + (y + c) -> (x + y) + c: the constant outermost, for the address immediate
            for j in (0, 1):
                inner = self.out[ins.srcs[1 - j]]
                if cs[j] is None and inner.op == "add" and inner.dtype == d:
                    ic = [self.value(s) for s in inner.srcs]
                    for k in (0, 1):
                        if ic[k] is not None and ic[1 - k] is None:
                            xy = self.emit(Instr("add", d, (ins.srcs[j], inner.srcs[1 - k])))
                            return self.emit(Instr("add", d, (xy, inner.srcs[k])))
            # (x + c1) + c2 -> x + (c1 + c2): one constant left for the address immediate
            for j in (0, 1):
                inner = self.out[ins.srcs[1 - j]]
                if cs[j] is not None and inner.op == "add" and inner.dtype == d:
                    ic = [self.value(s) for s in inner.srcs]
                    for k in (0, 1):
                        if ic[k] is not None and ic[1 - k] is None:
                            c = self.const(_wrap(cs[j] + ic[k], d.scalar), d)
                            return self.emit(Instr("add", d, (inner.srcs[1 - k], c)))
        return ins

    def copy(self, i: int) -> int:
        ins = self.src[i]
        return self.emit(Instr(ins.op, ins.dtype, tuple(self.env[s] for s in ins.srcs), ins.arg))

    # ------------------------------------------------------------ structure

    def region(self, start: int, stop: int) -> None:
        i = start
        while i < stop:
            ins = self.src[i]
            if i in self.hoisted:
                i += 1
            elif ins.op == "range":
                self.loop(i, self.ends[i])
                i = self.ends[i] + 1
            elif ins.op == "if":
                end = self.ends[i]
                self.env[i] = self.copy(i)
                self.scope.append(self.env[i])
                self.region(i + 1, end)
                self.scope.pop()
                self.env[end] = self.copy(end)
                i = end + 1
            else:
                self.env[i] = self.copy(i)
                i += 1

    def loop(self, start: int, end: int) -> None:
        outside = {j for j in self.env if j < start}
        for j in _invariants(self.src, start, end, outside):
            if j not in self.hoisted:
                self.env[j] = self.copy(j)
                self.hoisted.add(j)
        body = end - start - 1
        trips = self.value(self.env[self.src[start].srcs[0]])
        innermost = not any(self.src[j].op == "range" for j in range(start + 1, end))
        if (self.unroll and innermost and isinstance(trips, int) and 1 <= trips <= UNROLL_MAX_TRIPS
                and trips * body <= UNROLL_BUDGET):
            for k in range(trips):
                self.env[start] = self.const(k, self.src[start].dtype)
                self.region(start + 1, end)
            return
        factor = next((f for f in PARTIAL_FACTORS if isinstance(trips, int) and trips > f and trips % f == 0
                       and f * body <= PARTIAL_BUDGET), None) if self.unroll and innermost else None
        d = self.src[start].dtype
        if factor is None:
            self.env[start] = self.copy(start)
        else:       # a loop over trips/factor whose body is `factor` copies, counter*factor + k in each
            self.out.append(Instr("range", d, (self.const(trips // factor, d),)))
            self.env[start] = len(self.out) - 1
        counter = self.env[start]
        self.counters.add(counter)
        self.scope.append(counter)
        if factor is None:
            self.region(start + 1, end)
        else:
            scaled = self.emit(Instr("mul", d, (counter, self.const(factor, d))))
            for k in range(factor):
                self.env[start] = self.emit(Instr("add", d, (scaled, self.const(k, d))))
                self.region(start + 1, end)
        self.scope.pop()
        self.env[end] = self.emit(Instr("end", None, (counter,)))

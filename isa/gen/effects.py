"""The generator's reading of which operands an instruction's pseudocode reads and writes (the
tables isa.effects answers from), from the syntax tree of the one grammar (isa/pcode/pcode.lark,
the emulator's translator parses the same): its statements (assignments, if/elsif/else, loops)
and expressions, not patterns over the text.

    from isa.gen.effects import effects
    e = effects("{ D1.u1, D0.u64 } = 65'B(65'U(S0.u) * 65'U(S1.u) + 65'U(S2.u64))")
    e.full      # frozenset({'D0', 'D1'}): written whole on every path
    e.reads     # frozenset({'S0', 'S1', 'S2'})

Operand names, and what *full* and *partial* writes mean: isa/effects.py's docstring.
Before parsing, the text is read as the manual means it: a line's closing full stop is dropped,
a matrix instruction's header `D = A (16x16) * B (16x16) + C (16x16)` (the shapes, which
gen/build.py reads for tables["mfma"]) is not a statement, and WMMA's
`eval "D0.f32(16x16) = ..."` is the statement it quotes (a matrix of 16-bit elements fills half
of each register: a partial write); a block that is prose before code (isa.errata.NOT_CODE:
CDNA's DS_SWIZZLE_B32 lists swizzle patterns first) is read from its code's first line. A block
that is not code (isa.errata.NOT_CODE says which, with pages; the generator stops on any other
the grammar does not parse) counts as reading every operand it names and writing (partially)
every operand it could assign (`_unparsed`): never less than the truth. Besides the
operands: `copy` (the whole pseudocode is `D0.T = S0.T`), `jump` (control does not reach the
next instruction) and `matrix` (operands are (MxN) matrices: WMMA) and `names` (every operand
named, the raw DST field too: v_movreld names its destination register only by number).

CDNA's matrix instructions have a formula, not code: `D = A (32x8) * B (8x32) + C (32x32)`
reads A, B and C (S0, S1, S2) and writes D (D0) whole; the sparse `D = A (sparse 16x32) *
B (32x16) + D (16x16)` (V_SMFMAC_*) adds to D itself, its S2 the index of A's values (the
manuals' matrix chapter, CDNA3 7.4 / CDNA4 7.5). Where code follows the formula (RDNA's WMMA),
the formula is its header and the code says the rest."""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Token, Tree

from ..errata import NOT_CODE
from ..fact_types import Effects
from ..pcode.grammar import PcodeSyntaxError, parse

ALIASES = {"VDST": "D0", "SDST": "D0", "SRC0": "S0", "SRC1": "S1", "SRC2": "S2", "EXEC_LO": "EXEC", "EXEC_HI": "EXEC",
           "VCC_LO": "VCC", "VCC_HI": "VCC"}
OPERANDS = {"D0", "D1", "S0", "S1", "S2", "VCC", "SCC", "EXEC", "M0"} | set(ALIASES)
_LANE_REGS = {"VGPR", "SGPR"}
_COMPOUND = {"+=", "-=", "*=", "|=", "&=", "^="}
_POSTFIX = ("field", "index", "slice", "slice_up")

EVAL = re.compile(r'\beval\s+"([^"]*)"')
SHAPE = re.compile(r"\.(\w+)\(\s*\d+\s*x\s*\d+\s*\)")
# a matrix operand `S0.iu4(16x16)`: its name, element type (whose digits are the element bits) and M x N
OPERAND_SHAPE = re.compile(r"\b(D0|S0|S1|S2)\.([a-z]+(\d+))\((\d+)x(\d+)")
# a sparse matrix `S1.f16(32x16, index set from S2)`: its elements picked by S2, read as an index
_SPARSE = re.compile(r"\((\s*\d+\s*x\s*\d+\s*), index set from (S\d)\)")
# a matrix instruction's header line: the shapes of A, B and C (or D, sparse), not a statement
_MATRIX_HEADER = re.compile(r"^D = A \([^)\n]*\) \* B \([^)\n]*\) \+ [CD] \([^)\n]*\)[ \t]*$", re.M)
_MATRIX_FORMULA = re.compile(r"^D = A \((?:sparse )?\d+x\d+\) \* B \(\d+x\d+\) \+ ([CD]) \(\d+x\d+\)$")


def _matrix(m: re.Match) -> str:
    """`.f32(16x16)`: a whole matrix, `.f32`; a matrix of 16-bit elements fills one half of
    each register (OPSEL picks which: the manual's WMMA section), so it is a part: `.f16[half]`."""
    return f".{m.group(1)}" + ("[half]" if m.group(1).endswith("16") else "")


# the first line of the code in a block that is prose before code (isa.errata.NOT_CODE: CDNA's
# DS_SWIZZLE_B32 lists swizzle patterns first)
_CODE_STARTS = tuple(start for _, kind, start in NOT_CODE.values() if kind == "prose before code")


def code_text(pcode: str) -> str:
    """The text the grammar reads for `pcode` (see the module docstring)."""
    for start in _CODE_STARTS:
        at = pcode.find("\n" + start)
        if at >= 0:
            pcode = pcode[at + 1:]
    text = _MATRIX_HEADER.sub("", re.sub(r"\.[ \t]*(\n|$)", r"\1", pcode))
    text = _SPARSE.sub(r"(\1)[\2]", EVAL.sub(lambda m: m.group(1), text))
    return SHAPE.sub(_matrix, text)


@lru_cache(maxsize=None)
def tree(pcode: str | None) -> Tree | None:
    """The syntax tree of `pcode` as the generator reads it (code_text), or None when the grammar
    does not parse it (the readers then take the conservative answer). Empty code: no statements."""
    try:
        return parse(code_text(pcode or ""))
    except PcodeSyntaxError:
        return None


# ---- tree helpers: nodes in source order -------------------------------------------------------

def _walk(node):
    """Every subtree of node, pre-order (source order)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Tree):
            yield n
            stack.extend(reversed(n.children))


def _leaves(node) -> list:
    """The tokens under node in source order."""
    if isinstance(node, Token):
        return [node]
    out = []
    for n in _walk(node):
        out.extend(c for c in n.children if isinstance(c, Token))
    return out


def _name_of(node) -> str | None:
    return str(node.children[0]) if isinstance(node, Tree) and node.data == "name" else None


def _operand(node) -> str | None:
    """The operand a `name` node names (aliases resolved), else None."""
    n = _name_of(node)
    return ALIASES.get(n, n) if n in OPERANDS else None


def _number(node) -> int | None:
    """A constant written in decimal digits only (`[31 : 16]`), else None."""
    if isinstance(node, Tree) and node.data == "number" and str(node.children[0]).isdigit():
        return int(node.children[0])
    return None


def _access(node) -> tuple:
    """A postfix chain `root.T[i][hi : lo]...` as (root, [postfix nodes, innermost first])."""
    ops = []
    while isinstance(node, Tree) and node.data in _POSTFIX:
        ops.append(node)
        node = node.children[0]
    return node, ops[::-1]


def _parents(root) -> dict:
    out = {}
    for n in _walk(root):
        for c in n.children:
            if isinstance(c, Tree):
                out[id(c)] = n
    return out


def _first_of(parent, child) -> bool:
    return parent is not None and parent.children and parent.children[0] is child


def _statements(block) -> list:
    """The statements of a `stmts` node."""
    return [c for c in block.children if isinstance(c, Tree)]


def _flat(root) -> list:
    """Every statement, those inside if/elsif/else and loops too, in source order (an if's and a
    loop's header, its condition or bounds, comes as ('header', node)) -- lambdas' bodies are
    part of their expression."""
    out = []

    def visit(block):
        for s in _statements(block):
            if s.data == "if_":
                out.append(("header", s.children[0]))
                visit(s.children[1])
                elifs = s.children[2]
                for k in range(0, len(elifs.children), 2):
                    out.append(("header", elifs.children[k]))
                    visit(elifs.children[k + 1])
                if len(s.children) > 3:
                    visit(s.children[3])
            elif s.data == "for_":
                out.append(("header", Tree("bounds", s.children[1:3])))
                visit(s.children[3])
            elif s.data == "c_for":        # for (init; condition; step) { body }
                out.append(("statement", s.children[0]))
                out.append(("header", s.children[1]))
                visit(s.children[3])
                out.append(("statement", s.children[2]))
            elif s.data == "while_":
                out.append(("header", s.children[0]))
                visit(s.children[1])
            else:
                out.append(("statement", s))
    visit(root.children[0])
    return out


def _assignment(s) -> tuple | None:
    """(target, operator, value) of an assignment statement; `a = b = v` is (a, '=', v) and
    `x++` no assignment (read only, as the manual's loops use it)."""
    if s.data == "assign" and len(s.children) == 3:
        return s.children[0], str(s.children[1]), s.children[2]
    if s.data == "chain_assign":
        value = s.children[2]
        while isinstance(value, Tree) and value.data == "chain":
            value = value.children[1]
        return s.children[0], "=", value
    return None


def _targets(target) -> list:
    return list(target.children) if isinstance(target, Tree) and target.data == "concat_target" else [target]


# ---- the statement analysis --------------------------------------------------------------------

class _Analysis:
    def __init__(self):
        self.reads: set = set()
        self.value_reads: set = set()    # read as a value (not only the bits a partial write keeps)
        self.written: set = set()        # assigned anywhere (full or not)
        self.cross_lane = False
        self.indexed = False
        self.depth = 0                   # if/loop nesting of the statement analysed
        self.result_pieces = 0
        self.result_concat = False
        self.result_ranges = 0
        self.other_writes: set = set()   # operands some assignment writes beyond bits 15:0 or not as 16 bits
        self.ranges: dict = {}           # operand -> [(lo, hi)] written unconditionally through constant bit ranges
        self.irregular: set = set()      # operands written in part otherwise (a variable range, a branch)

    def covered(self) -> set:
        """Operands written only through unconditional constant bit ranges that together cover
        every bit from 0 to the highest written, at least a dword (v_pk_mov_b32: D0.u32[31 : 0],
        D0.u32[63 : 32]; v_pack_b32_f16: D0[15 : 0].f16, D0[31 : 16].f16): written whole."""
        out = set()
        for n, ranges in self.ranges.items():
            top = -1
            for lo, hi in sorted(ranges):
                if lo > top + 1:
                    break
                top = max(top, hi)
            else:
                if top >= 31 and n not in self.irregular:
                    out.add(n)
        return out

    def read_all(self, node, done: set):
        for n in _walk(node):
            op = _operand(n)
            if op and op not in done:
                self.reads.add(op)
                self.value_reads.add(op)
            if n.data in ("index", "slice", "slice_up"):
                base = _name_of(n.children[0])
                if base == "S":              # S[i]: the sources as an array
                    self.reads.update(x for x in ("S0", "S1", "S2") if x not in done)
                elif base in _LANE_REGS and n.data == "index":
                    self.cross_lane = self.indexed = True
                elif base == "thread_in" and n.data == "index":   # DS_SWIZZLE's thread_in[j]: lane j's data
                    self.cross_lane = True

    def block(self, block, done: set) -> set:
        """Analyse a `stmts` node; `done` = operands fully written on every path so far.
        Returns done after it."""
        done = set(done)
        for s in _statements(block):
            if s.data == "if_":
                self.depth += 1
                done = self.branches(s, done)
                self.depth -= 1
            elif s.data in ("for_", "c_for", "while_"):
                if s.data == "c_for":             # for (init; condition; step) { body }
                    self.statement(s.children[0], done)
                header, body = (s.children[1:3], s.children[3]) if s.data == "for_" else \
                    ((s.children[1],), s.children[3]) if s.data == "c_for" else ((s.children[0],), s.children[1])
                for h in header:
                    self.read_all(h, done)
                self.depth += 1
                self.block(body, done)            # a loop body may run zero times: its writes stay partial
                if s.data == "c_for":
                    self.statement(s.children[2], done)
                self.depth -= 1
            elif s.data in ("declare", "return_", "break_"):
                continue
            else:
                self.statement(s, done)
        return done

    def branches(self, s, done: set) -> set:
        conditions = [s.children[0]] + s.children[2].children[0::2]
        bodies = [s.children[1]] + s.children[2].children[1::2] + s.children[3:]
        outs = []
        for k, body in enumerate(bodies):
            if k < len(conditions):
                self.read_all(conditions[k], done)
            outs.append(self.block(body, done))
        full = set.intersection(*outs) if len(s.children) > 3 else set(done)
        return full | done

    def statement(self, s, done: set):
        a = _assignment(s)
        if a is None:
            self.read_all(s, done)
            return
        lhs, op, rhs = a
        if s.data == "chain_assign":        # a = b = value (CDNA's v_cmpx: EXEC and D0): the inner
            inner = s.children[2]           # assignments, then `a` takes the same value
            while isinstance(inner, Tree) and inner.data == "chain":
                self.statement(Tree("assign", [inner.children[0], Token("OP", "="), rhs]), done)
                inner = inner.children[1]
        self.read_all(rhs, done)
        if op == "=" and self.depth == 0 and _result_range(lhs):
            self.result_ranges += 1
        if op == "=" and _result_piece(lhs):
            self.result_pieces += self.depth == 0
            self.result_concat |= isinstance(rhs, Tree) and rhs.data == "concat"
        for target in _targets(lhs):
            root, ops = _access(target)
            n = _operand(root)
            if n is not None:
                for o in ops:
                    self.read_all(Tree("indices", o.children[1:]), done)      # names in indices are read
                self.written.add(n)
                if op in _COMPOUND and n not in done:
                    self.reads.add(n)
                    self.value_reads.add(n)
                if not _half_typed(ops):
                    self.other_writes.add(n)
                if _is_whole(ops):
                    done.add(n)
                elif n not in done:
                    self.reads.add(n)             # bits or lanes not written keep the old value
                    bits = [o for o in ops if o.data != "field"]      # D0.u32[31 : 0], D0[15 : 0].f16
                    if op == "=" and self.depth == 0 and len(bits) == 1 and _constant_range(bits[0]):
                        hi, lo = _number(bits[0].children[1]), _number(bits[0].children[2])
                        self.ranges.setdefault(n, []).append((min(lo, hi), max(lo, hi)))
                    else:
                        self.irregular.add(n)
            elif _name_of(root) in _LANE_REGS:
                self.indexed = True
                for o in ops:
                    for x in _walk(Tree("indices", o.children[1:])):
                        m = _operand(x)
                        if m == "D0":
                            self.written.add(m)
                            self.other_writes.add(m)
                        if m and m not in done:
                            self.reads.add(m)
            else:
                for o in ops:
                    self.read_all(Tree("indices", o.children[1:]), done)
                if not isinstance(root, Tree) or root.data != "name":
                    self.read_all(root, done)


def _is_whole(ops: list) -> bool:
    """`.type`, nothing, or `.type[laneId]` (a lane bit of a mask: the whole mask is written)."""
    if ops and ops[0].data == "field":
        ops = ops[1:]
    return not ops or len(ops) == 1 and ops[0].data == "index" and _name_of(ops[0].children[1]) == "laneId"


_HALF_TYPE = re.compile(r"(f|b|i|u|bf)16")


def _half_typed(ops: list) -> bool:
    """`.f16` and nothing after it (the whole operand assigned as a 16-bit value), or the bit range
    `[15 : 0]`, typed or not (`D0.u[15 : 0] = ...`: RDNA3's VOP3 16-bit shifts): 16 bits into bits 15:0."""
    if len(ops) == 1 and ops[0].data == "field":
        return _HALF_TYPE.fullmatch(str(ops[0].children[1])) is not None
    rest = ops[1:] if ops and ops[0].data == "field" else ops
    return bool(rest) and rest[0].data == "slice" and _number(rest[0].children[1]) == 15 \
        and _number(rest[0].children[2]) == 0 and all(o.data == "field" for o in rest[1:2]) and len(rest) <= 2


def _constant_range(op) -> bool:
    return op.data == "slice" and _number(op.children[1]) is not None and _number(op.children[2]) is not None


def _result_range(lhs) -> bool:
    """`D0[hi : lo]`, `tmp[hi : lo].T`, `D0.T[hi : lo]`: a constant bit range of the result."""
    root, ops = _access(lhs)
    if _name_of(root) not in ("D0", "tmp"):
        return False
    if ops and ops[0].data == "field":
        ops = ops[1:]
    return bool(ops) and _constant_range(ops[0])


def _result_piece(lhs) -> bool:
    """`D0[hi : lo]`, `tmp[hi : lo].u8`, `VGPR[lane][VDST.u32][hi : lo].fp8` (untyped or 8/16-bit)."""
    root, ops = _access(lhs)
    if _name_of(root) == "VGPR":
        names = [k for k, o in enumerate(ops) if any(_name_of(x) == "VDST" for x in _walk(o) if x is not o.children[0])
                 and o.data == "index"]
        if not names:
            return False
        ops = ops[names[0] + 1:]
    elif _name_of(root) not in ("D0", "tmp"):
        return False
    if not ops or ops[0].data not in ("slice", "slice_up"):
        return False
    kind = ops[1:]
    return not kind or len(kind) == 1 and kind[0].data == "field" \
        and re.fullmatch(r"[a-z]+(8|16)", str(kind[0].children[1])) is not None


# ---- facts read from expressions ---------------------------------------------------------------

def _mentions(root) -> list:
    """The `name` node of every operand mention, in source order."""
    return [n for n in _walk(root) if _name_of(n) in OPERANDS]


def _extremes(node, bound: dict | None = None) -> tuple[int, int] | None:
    """(smallest, largest) value of a bit position made of decimal numbers, single bits of a
    field and names `bound` gives a range (`_loop_bounds`), added and multiplied (v_pk_mov_b32's
    `OPSEL[0].i32 * 32 + 31`: (31, 63); gfx950's `sOffset + 15` with `sOffset = pass * 16` in
    `for pass in 0 : 31`: (15, 511)); else None."""
    if isinstance(node, Tree) and node.data == "field":
        return _extremes(node.children[0], bound)
    if isinstance(node, Tree) and node.data == "index" and _number(node.children[1]) is not None:
        return 0, 1                 # one bit of a field
    if _number(node) is not None:
        return _number(node), _number(node)
    if bound and _name_of(node) in bound:
        return bound[_name_of(node)]
    if isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) in ("+", "*"):
        a, b = _extremes(node.children[0], bound), _extremes(node.children[2], bound)
        if a is None or b is None:
            return None
        return (a[0] + b[0], a[1] + b[1]) if str(node.children[1]) == "+" else (a[0] * b[0], a[1] * b[1])
    return None


def _loop_bounds(root) -> dict:
    """name -> (smallest, largest) value: the variable of each `for NAME in lo : hi do` with
    decimal bounds, and each local assigned once, from those and numbers (`sOffset = pass * 16`).
    A name assigned more than once, or bound twice, has none."""
    out: dict = {}
    seen: dict = {}
    for n in _walk(root):
        if n.data == "for_" and _number(n.children[1]) is not None and _number(n.children[2]) is not None:
            name = str(n.children[0])
            seen[name] = seen.get(name, 0) + 1
            out[name] = (_number(n.children[1]), _number(n.children[2]))
    for kind, s in _flat(root):
        a = _assignment(s) if kind == "statement" else None
        if a is not None and (name := _name_of(a[0])) is not None and name not in OPERANDS:
            seen[name] = seen.get(name, 0) + 1
            if a[1] == "=" and (r := _extremes(a[2], out)) is not None:
                out[name] = r
    return {k: v for k, v in out.items() if seen.get(k) == 1}


def _uses(root, parents: dict) -> frozenset:
    """Each operand mention: its name as written, whether a `.type` follows, and the bit range
    `[hi : lo]` that follows (after the type, if any): constant, or the widest a range chosen by
    single bits of a field can be (`S0.u32[OPSEL[0].i32 * 32 + 31 : OPSEL[0].i32 * 32]`: 63, 0)
    or a loop's variable (`S0[sOffset + 15 : sOffset]`, sOffset = pass * 16 for pass in 0 : 31:
    511, 0; `_loop_bounds`)."""
    out = set()
    bound = _loop_bounds(root)
    for n in _mentions(root):
        node, typed = n, False
        p = parents.get(id(node))
        if p is not None and p.data == "field" and _first_of(p, node):
            node, typed, p = p, True, parents.get(id(p))
        hi = lo = None
        if p is not None and _first_of(p, node) and _constant_range(p):
            hi, lo = _number(p.children[1]), _number(p.children[2])
        elif p is not None and _first_of(p, node) and p.data == "slice" and \
                None not in (top := _extremes(p.children[1], bound), low := _extremes(p.children[2], bound)):
            hi, lo = top[1], low[0]
        out.add((_name_of(n), typed, hi, lo))
    return frozenset(out)


def _pieces(root, parents: dict) -> frozenset:
    """`S0[63 : 32].f32`: (name, hi, lo, type)."""
    out = set()
    for n in _mentions(root):
        s = parents.get(id(n))
        if s is not None and _first_of(s, n) and _constant_range(s):
            f = parents.get(id(s))
            if f is not None and f.data == "field" and _first_of(f, s):
                out.add((_name_of(n), _number(s.children[1]), _number(s.children[2]), str(f.children[1])))
    return frozenset(out)


_STATUS = {"EXECZ": "EXEC", "VCCZ": "VCC"}


def _flags(root, words: set) -> dict:
    source_array = any(n.data in ("index", "slice", "slice_up") and _name_of(n.children[0]) == "S" for n in _walk(root))
    return dict(status_reads=frozenset(_STATUS[t] for t in words if t in _STATUS),
                conditional=any(n.data == "if_" for n in _walk(root)), hwreg="hwRegId" in words,
                mixed_sources=source_array and "OPSEL_HI" in words)


_FIELDS = ("SRC0", "SRC1", "SRC2", "VDST")


def _vgpr_fields(root, parents: dict) -> tuple[frozenset, frozenset, frozenset]:
    """(fields used as a VGPR number, fields named other than as this lane's sliced source, the
    bit ranges of this lane's sliced sources as (S name, hi, lo))."""
    used, numbers, slices = set(), set(), set()
    for n in _walk(root):
        t = _name_of(n)
        if t not in _FIELDS:
            continue
        # VGPR[lane][FIELD...]: the register access whose index starts with this mention
        own_lane = sliced = plain = False
        access, below = None, n
        p = parents.get(id(below))
        while p is not None:
            if p.data == "index" and p.children[1] is below:
                access = p
                break
            if not _first_of(p, below):
                break
            below, p = p, parents.get(id(p))
        if access is not None and isinstance(access.children[0], Tree) and access.children[0].data == "index" \
                and _name_of(access.children[0].children[0]) == "VGPR":
            used.add(t)
            own_lane = _name_of(access.children[0].children[1]) == "laneId"
            outer = parents.get(id(access))
            sliced = outer is not None and _first_of(outer, access) and outer.data in ("index", "slice", "slice_up")
            index = access.children[1]
            plain = index.data == "field" and index.children[0] is n and str(index.children[1]) == "u32"
        if not (own_lane and sliced and plain):
            numbers.add(t)
        elif t != "VDST" and _constant_range(outer):
            slices.add((f"S{t[-1]}", _number(outer.children[1]), _number(outer.children[2])))
    return frozenset(used), frozenset(numbers), frozenset(slices)


_INT32 = ("u", "i", "u32", "i32")


def _int32_operand(node, name: str) -> bool:
    """`name.T` or a cast of it `NN'U(name.T)`, T a 32-bit integer type."""
    if isinstance(node, Tree) and node.data == "cast":
        node = node.children[1]
    return isinstance(node, Tree) and node.data == "field" and _name_of(node.children[0]) == name \
        and str(node.children[1]) in _INT32


def _full_product(root) -> bool:
    return any(n.data == "binop" and n.children[1] == "*" and _int32_operand(n.children[0], "S0")
               and _int32_operand(n.children[2], "S1") for n in _walk(root))


_TRANSCENDENTAL = {"log2", "sqrt", "sin", "cos"}


def _literal_value(node) -> str | None:
    """A constant's digits without its size: `32'1.0F` -> '1.0F'."""
    if isinstance(node, Tree) and node.data in ("number", "sized_lit"):
        return str(node.children[0]).split("'")[-1]
    return None


def _transcendental(root) -> bool:
    for n in _walk(root):
        if n.data == "call":
            f = str(n.children[0])
            if f in _TRANSCENDENTAL:
                return True
            if f == "pow" and len(n.children) > 1 and _literal_value(n.children[1]) in ("2.0", "2.0F"):
                return True
        if n.data == "binop" and n.children[1] == "/" and _literal_value(n.children[0]) in ("1.0", "1.0F"):
            return True
    return False


def _fields(root, parents: dict) -> dict:
    used, numbers, slices = _vgpr_fields(root, parents)
    sgpr = tuple(str(n.children[1]) for n in _walk(root)     # SGPR[addr].T, addr one name or number
                 if n.data == "field" and isinstance(n.children[0], Tree) and n.children[0].data == "index"
                 and _name_of(n.children[0].children[0]) == "SGPR"
                 and n.children[0].children[1].data in ("name", "number"))
    return dict(vgpr_fields=used, field_numbers=numbers, own_slices=slices, sgpr_types=sgpr,
                full_product=_full_product(root), transcendental=_transcendental(root))


_RAW_FIELDS = frozenset({"SRC0", "SRC1", "SRC2", "VDST", "DST", "SDST", "SIMM16", "SIMM32"})


def _words(root, parents: dict, flat: list) -> dict:
    """opsel_ranges, inst_modifiers, field_types, pc_sources (see Effects)."""
    opsel, inst, typed = set(), set(), set()
    for n in _walk(root):
        t = _name_of(n)
        p = parents.get(id(n))
        first = _first_of(p, n)
        if t == "OPSEL":
            if first and p.data in ("index", "slice", "slice_up") and _number(p.children[1]) is not None:
                hi = _number(p.children[1])
                lo = _number(p.children[2]) if p.data == "slice" and _number(p.children[2]) is not None else hi
                opsel.add((hi, lo))
            elif first and p.data == "field" and re.fullmatch(r"[a-z]+\d+", str(p.children[1])):
                opsel.add((int(re.search(r"\d+$", str(p.children[1])).group(0)) - 1, 0))
            else:
                opsel.add((None, None))           # OPSEL as a whole
        elif t == "INST" and first and p.data == "field":
            inst.add(str(p.children[1]))
        elif t in _RAW_FIELDS and first and p.data == "field":
            typed.add((t, str(p.children[1])))
    pc, pc_write = set(), False
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        if a is not None and _name_of(_access(a[0])[0]) == "PC" and a[1] == "=":
            pc |= {op for x in _walk(a[2]) if (op := _operand(x))}
        pc_write |= a is not None and any(_name_of(x) == "PC" for x in _walk(a[0]))
    return dict(opsel_ranges=frozenset(opsel), inst_modifiers=frozenset(inst), field_types=frozenset(typed),
                pc_sources=frozenset(pc), pc_write=pc_write)


def _lane_choosers(flat: list) -> frozenset:
    out = set()
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        if a is not None and _name_of(a[0]) == "lane" and a[1] == "=":
            out |= {op for x in _walk(a[2]) if (op := _operand(x))}
    return frozenset(out)


def _lane_bits(flat: list) -> frozenset:
    """Operands some assignment writes as `X.T[laneId] = ...` (also inside if/else, loops)."""
    out = set()
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        for target in _targets(a[0]) if a else ():
            root, ops = _access(target)
            if _operand(root) and len(ops) == 2 and ops[0].data == "field" and ops[1].data == "index" \
                    and _name_of(ops[1].children[1]) == "laneId":
                out.add(_operand(root))
    return frozenset(out)


_CONSTANTS = ("SIMM16", "SIMM32")


def _constant_at(flat: list) -> int | None:
    """The first statement reading SIMM16/SIMM32: its position among the sources and constants read."""
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        values = [t for x in _walk(a[2] if a else s) if (t := _name_of(x))
                  and (t in _CONSTANTS or ALIASES.get(t, t) in ("S0", "S1", "S2"))]
        if any(t in _CONSTANTS for t in values):
            return next(i for i, t in enumerate(values) if t in _CONSTANTS)
    return None


_STATE_REGISTERS = {"WAVE_MODE": "MODE", "WAVE_STATUS": "STATUS"}


def _state_name(node) -> str | None:
    """`WAVE_MODE.IEEE` as 'MODE.IEEE', `WAVE_STATUS.PRIV` as 'STATUS.PRIV'; `HW_REGISTERS` (the
    hardware register an ID chooses) as 'HW_REGISTERS'."""
    if node.data == "field" and _name_of(node.children[0]) in _STATE_REGISTERS:
        return f"{_STATE_REGISTERS[_name_of(node.children[0])]}.{node.children[1]}"
    return "HW_REGISTERS" if _name_of(node) == "HW_REGISTERS" else None


def _state_names(*nodes) -> set:
    return {name for node in nodes for n in _walk(node) if (name := _state_name(n))}


def _state(flat: list) -> dict:
    """state_reads, state_writes (see Effects): the wave's MODE and STATUS fields and hardware
    registers each statement names, written where it is the target of an assignment (a compound
    one, `WAVE_MODE.CSP -= 1`, reads it too), read anywhere else."""
    reads, writes = set(), set()
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        if a is None:
            reads |= _state_names(s)
            continue
        lhs, op, rhs = a
        targets = set()
        for target in _targets(lhs):
            root, ops = _access(target)
            head = ops[0] if ops and ops[0].data == "field" else root
            named = {name} if (name := _state_name(head)) else set()
            targets |= named            # the target itself; names inside its indices are read
            after = ops[1:] if head is not root else ops
            reads |= _state_names(*(c for o in after for c in o.children[1:])) if named else _state_names(target)
        writes |= targets
        if op in _COMPOUND:
            reads |= targets
        inner = s.children[2] if s.data == "chain_assign" else None
        while isinstance(inner, Tree) and inner.data == "chain":     # a = b = value: b as the value read
            reads |= _state_names(inner.children[0])
            inner = inner.children[1]
        reads |= _state_names(rhs)
    return dict(state_reads=frozenset(reads), state_writes=frozenset(writes))


def _shift(flat: list) -> bool:
    """One statement `D0.T = (A << B)` / `(A >> B)`: the whole value a shift of one source by another."""
    if len(flat) != 1 or flat[0][0] != "statement":
        return False
    a = _assignment(flat[0][1])
    if a is None or a[1] != "=" or _name_of(_access(a[0])[0]) != "D0":
        return False
    value = a[2]
    if not (isinstance(value, Tree) and value.data == "binop" and value.children[1] in ("<<", ">>")):
        return False
    sources = {op for x in _walk(value) if (op := _operand(x))}
    return len(sources) == 2 and sources <= {"S0", "S1", "S2"}


def _products(flat: list) -> int:
    n = 0
    for kind, s in flat:
        a = _assignment(s) if kind == "statement" else None
        if a is not None and _name_of(_access(a[0])[0]) in ("D0", "tmp") and a[1] in ("=", "+=") \
                and any(x.data == "binop" and x.children[1] == "*" for x in _walk(a[2])):
            n += 1
    return n


def _copy(flat: list) -> bool:
    """One statement `D0.T = S0.T`, the same type T on both sides."""
    if len(flat) != 1 or flat[0][0] != "statement":
        return False
    a = _assignment(flat[0][1])
    if a is None or a[1] != "=" or flat[0][1].data != "assign":
        return False
    lhs, _, rhs = a
    return all(isinstance(x, Tree) and x.data == "field" for x in (lhs, rhs)) and _name_of(lhs.children[0]) == "D0" \
        and _name_of(rhs.children[0]) == "S0" and str(lhs.children[1]) == str(rhs.children[1])


def _jump(root, flat: list, names: set) -> bool:
    """PC assigned by a top-level statement, no conditional anywhere, no D0 (a call's return address)."""
    if "D0" in names or any(n.data in ("if_", "for_", "c_for", "while_") for n in _walk(root)):
        return False
    return any(kind == "statement" and (a := _assignment(s)) is not None and _name_of(_access(a[0])[0]) == "PC"
               for kind, s in flat)


_WORD = re.compile(r"[A-Za-z_]\w*")
_WRITABLE = {"D0", "D1", "VCC", "SCC", "EXEC"}


def _unparsed(pcode: str, matrix: bool, shapes: tuple) -> Effects:
    """Code the grammar does not parse: every operand named is read (as a value) and every one
    that can be assigned is written in part; registers indexed by a value make it cross-lane."""
    text = code_text(pcode)
    words = _WORD.findall(re.sub(r"//[^\n]*", "", text))
    names = {ALIASES.get(w, w) for w in words if w in OPERANDS}
    indexed = re.search(r"\b(VGPR|SGPR)\s*\[", text) is not None
    cross_lane = indexed or re.search(r"\bthread_in\s*\[", text) is not None
    named = frozenset(names | ({"D0"} if "DST" in words else set()))
    return Effects(frozenset(names), frozenset(), frozenset(names & _WRITABLE), cross_lane, indexed,
                   value_reads=frozenset(names), matrix=matrix, literal="SIMM32" in words, names=named,
                   conditional="if" in words, shapes=shapes, pc_write="PC" in words, state_reads=frozenset(
                       {f"{_STATE_REGISTERS[r]}.{f}" for r, f in re.findall(r"\b(WAVE_MODE|WAVE_STATUS)\s*\.\s*(\w+)", text)}
                       | ({"HW_REGISTERS"} if "HW_REGISTERS" in words else set())))


@lru_cache(maxsize=None)
def words(pcode: str | None) -> frozenset:
    """The names the code uses (its NAME tokens: operands, locals, fields, functions); for a block
    that is not code (isa.errata.NOT_CODE) every word of its text, comments aside."""
    if not pcode:
        return frozenset()
    root = tree(pcode)
    if root is not None:
        return frozenset(str(t) for t in _leaves(root) if t.type == "NAME")
    return frozenset(_WORD.findall(re.sub(r"//[^\n]*", "", code_text(pcode))))


@lru_cache(maxsize=None)
def effects(pcode: str | None) -> Effects:
    """Operands read and written by `pcode` (see the module docstring)."""
    if not pcode:
        return Effects(frozenset(), frozenset(), frozenset(), False)
    formula = _MATRIX_FORMULA.match(pcode.strip())
    if formula:
        reads = frozenset({"S0", "S1", "S2"} | ({"D0"} if formula.group(1) == "D" else set()))
        return Effects(reads, frozenset({"D0"}), frozenset(), False, value_reads=reads, names=reads | {"D0"})
    matrix = any(SHAPE.search(m.group(1)) for m in EVAL.finditer(pcode))
    shapes = tuple((k, t, int(b), int(r), int(c)) for k, t, b, r, c in OPERAND_SHAPE.findall(pcode))
    root = tree(pcode)
    if root is None:
        return _unparsed(pcode, matrix, shapes)
    a = _Analysis()
    done = a.block(root.children[0], set())
    parents = _parents(root)
    flat = _flat(root)
    words = {str(t) for t in _leaves(root) if t.type in ("NAME",) or _WORD.fullmatch(str(t))}
    names = {op for n in _walk(root) if (op := _operand(n))}
    named = frozenset(names | ({"D0"} if any(_name_of(n) == "DST" for n in _walk(root)) else set()))
    whole = {n for n in a.covered() if n not in a.value_reads}      # (its old bits never read)
    full = frozenset((done | whole) & a.written)
    partial = frozenset(a.written - full)
    return Effects(frozenset((a.reads - whole) | partial), full, partial, a.cross_lane, a.indexed,
                   value_reads=frozenset(a.value_reads), half_writes=frozenset(a.written - a.other_writes),
                   copy=_copy(flat), jump=_jump(root, flat, names), matrix=matrix, names=named,
                   uses=_uses(root, parents), pieces=_pieces(root, parents), lane_bits=_lane_bits(flat),
                   lane_choosers=_lane_choosers(flat),
                   products=_products(flat), constant_at=_constant_at(flat), result_pieces=a.result_pieces,
                   result_ranges=a.result_ranges, literal="SIMM32" in words, shift=_shift(flat),
                   **_words(root, parents, flat), **_state(flat), result_concat=a.result_concat, **_flags(root, words),
                   **_fields(root, parents), shapes=shapes)


# the tree readers isa.code_facts and gen/memory_access share with this module
walk, leaves, name_of, number, access, parents = _walk, _leaves, _name_of, _number, _access, _parents
flat_statements, assignment = _flat, _assignment
MATRIX_FORMULA = _MATRIX_FORMULA

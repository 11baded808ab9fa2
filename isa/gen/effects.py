"""The generator's reading of which operands an instruction's pseudocode reads and writes (the
tables isa.effects answers from), found by parsing its statement structure (assignments, if/elsif/else, loops) rather than by pattern matching.

    from isa.gen.effects import effects
    e = effects("{ D1.u1, D0.u64 } = 65'B(65'U(S0.u) * 65'U(S1.u) + 65'U(S2.u64))")
    e.full      # frozenset({'D0', 'D1'}): written whole on every path
    e.reads     # frozenset({'S0', 'S1', 'S2'})

Operand names, and what *full* and *partial* writes mean: isa/effects.py's docstring.
Anything the parser does not understand counts as reading every operand it names, and
writing (partially) every operand it assigns: never less than the truth. WMMA's
`eval "D0.f32(16x16) = ..."` is read as the statement it quotes (a matrix of 16-bit elements
fills half of each register: a partial write). Besides the operands: `copy` (the whole
pseudocode is `D0.T = S0.T`), `jump` (control does not reach the next instruction) and
`matrix` (operands are (MxN) matrices: WMMA) and `names` (every operand named, the raw DST
field too: v_movreld names its destination register only by number).

CDNA's matrix instructions have a formula, not code: `D = A (32x8) * B (8x32) + C (32x32)`
reads A, B and C (S0, S1, S2) and writes D (D0) whole; the sparse `D = A (sparse 16x32) *
B (32x16) + D (16x16)` (V_SMFMAC_*) adds to D itself, its S2 the index of A's values (the
manuals' matrix chapter, CDNA3 7.4 / CDNA4 7.5)."""
from __future__ import annotations

import re
from functools import lru_cache

from ..fact_types import Effects
from ..pcode_statements import COMPOUND as _COMPOUND
from ..pcode_statements import EVAL as _EVAL
from ..pcode_statements import OPERAND_SHAPE as _OPERAND_SHAPE
from ..pcode_statements import SHAPE as _SHAPE
from ..pcode_statements import assignment, statements  # noqa: F401  (the generator's readers take them from here)
from ..pcode_statements import assignment_at as _assignment
from ..pcode_statements import split as _statements
from ..pcode_statements import tokens as _tokens

ALIASES = {"VDST": "D0", "SDST": "D0", "SRC0": "S0", "SRC1": "S1", "SRC2": "S2", "EXEC_LO": "EXEC", "EXEC_HI": "EXEC",
           "VCC_LO": "VCC", "VCC_HI": "VCC"}
OPERANDS = {"D0", "D1", "S0", "S1", "S2", "VCC", "SCC", "EXEC", "M0"} | set(ALIASES)
_LANE_REGS = {"VGPR", "SGPR"}
_MATRIX_FORMULA = re.compile(r"^D = A \((?:sparse )?\d+x\d+\) \* B \(\d+x\d+\) \+ ([CD]) \(\d+x\d+\)$")


def _name(tok: str) -> str | None:
    if tok in OPERANDS:
        return ALIASES.get(tok, tok)
    return None


def _named(toks: list[str]) -> frozenset:
    """Operands named anywhere: values, and the raw DST field (a register number, not read as a value)."""
    return frozenset(n for t in toks if (n := "D0" if t == "DST" else _name(t)))


class _Unknown(Exception):
    pass


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

    def read_all(self, toks, done: set):
        for i, t in enumerate(toks):
            n = _name(t)
            if n and n not in done:
                self.reads.add(n)
                self.value_reads.add(n)
            indexing = i + 1 < len(toks) and toks[i + 1] == "["
            if t == "S" and indexing:           # S[i]: the sources as an array
                self.reads.update(x for x in ("S0", "S1", "S2") if x not in done)
            if t in _LANE_REGS and indexing:
                self.cross_lane = self.indexed = True
            if t == "thread_in" and indexing:      # DS_SWIZZLE's thread_in[j]: lane j's data
                self.cross_lane = True

    def block(self, stmts: list, i: int, done: set, stop: tuple) -> tuple[int, set]:
        """Analyse statements from i until a token in `stop` starts one; `done` = operands
        fully written on every path so far. Returns (index, done after)."""
        done = set(done)
        while i < len(stmts):
            s = stmts[i]
            head = s[0]
            if head in stop:
                return i, done
            if head == "if":
                self.depth += 1
                i, done = self.branches(stmts, i, done)
                self.depth -= 1
                continue
            if head in ("for", "while"):
                self.read_all(s, done)
                self.depth += 1
                j, _ = self.block(stmts, i + 1, done, ("endfor", "endwhile"))
                self.depth -= 1
                i = j + 1                     # a loop body may run zero times: its writes stay partial
                continue
            if head in ("declare", "return", "break", "nop", "endfunction", "endfor", "endwhile", "endif"):
                i += 1
                continue
            self.statement(s, done)
            i += 1
        return i, done

    def branches(self, stmts, i, done):
        outs, has_else = [], False
        while True:
            s = stmts[i]
            if s[0] in ("if", "elsif"):
                self.read_all(s[1:], done)
            elif s[0] == "else":
                has_else = True
            i, after = self.block(stmts, i + 1, done, ("elsif", "else", "endif"))
            outs.append(after)
            if i >= len(stmts):
                raise _Unknown("if without endif")
            if stmts[i][0] == "endif":
                rest = stmts[i][1:]
                if rest and rest != ["."]:
                    self.statement(rest, done)
                i += 1
                break
        full = set.intersection(*outs) if has_else else set(done)
        return i, full | done

    def statement(self, s: list, done: set):
        eq = _assignment(s)
        if eq is None:
            self.read_all(s, done)
            return
        lhs, op, rhs = s[:eq], s[eq], s[eq + 1:]
        inner = _assignment(rhs) if op == "=" else None
        if inner is not None and rhs[inner] == "=":     # a = b = value (CDNA's v_cmpx: EXEC and D0): the
            self.statement(rhs, done)                   # inner assignment, then `a` takes the same value
            rhs = rhs[inner + 1:]
        self.read_all(rhs, done)
        if op == "=" and self.depth == 0 and _result_range(lhs):
            self.result_ranges += 1
        if op == "=" and _result_piece(lhs):
            self.result_pieces += self.depth == 0
            self.result_concat |= rhs[:1] == ["{"]
        for target in _targets(lhs):
            root = target[0]
            n = _name(root)
            if n is not None:
                rest = target[1:]
                whole = _is_whole(rest)
                self.read_all(rest, done)       # names in indices are read
                self.written.add(n)
                if op in _COMPOUND and n not in done:
                    self.reads.add(n)
                    self.value_reads.add(n)
                if whole:
                    done.add(n)
                elif n not in done:
                    self.reads.add(n)             # bits or lanes not written keep the old value
            elif root in _LANE_REGS:
                self.indexed = True
                for t in target[1:]:
                    m = _name(t)
                    if m == "D0":
                        self.written.add(m)
                        if m not in done:
                            self.reads.add(m)
                    elif m:
                        self.reads.add(m) if m not in done else None
            else:
                self.read_all(target[1:], done)


def _result_range(lhs: list) -> bool:
    """`D0[hi : lo]`, `tmp[hi : lo].T`, `D0.T[hi : lo]`: a constant bit range of the result."""
    if lhs[:1] not in (["D0"], ["tmp"]):
        return False
    rest = lhs[1:]
    if rest[:1] == ["."]:
        rest = rest[2:]
    return len(rest) >= 5 and rest[0] == "[" and rest[1].isdigit() and rest[2] == ":" and rest[3].isdigit() \
        and rest[4] == "]"


def _result_piece(lhs: list) -> bool:
    """`D0[hi : lo]`, `tmp[hi : lo].u8`, `VGPR[lane][VDST.u32][hi : lo].fp8` (untyped or 8/16-bit)."""
    if lhs[:1] in (["D0"], ["tmp"]):
        rest = lhs[1:]
    elif lhs[:1] == ["VGPR"] and "VDST" in lhs:
        depth, k = 0, None
        for j, t in enumerate(lhs):     # after the bracket that names VDST
            depth += (t == "[") - (t == "]")
            if t == "VDST":
                k = j
            if k is not None and t == "]" and depth == 0:
                rest = lhs[j + 1:]
                break
        else:
            return False
    else:
        return False
    if rest[:1] != ["["] or "]" not in rest:
        return False
    close = rest.index("]")
    if ":" not in rest[1:close]:
        return False
    kind = rest[close + 1:]
    return kind == [] or len(kind) == 2 and kind[0] == "." and re.fullmatch(r"[a-z]+(8|16)", kind[1]) is not None


def _targets(lhs: list) -> list[list[str]]:
    if lhs and lhs[0] == "{" and lhs[-1] == "}":
        parts, cur, depth = [], [], 0
        for t in lhs[1:-1]:
            if t in "([{":
                depth += 1
            elif t in ")]}":
                depth -= 1
            if t == "," and depth == 0:
                parts.append(cur)
                cur = []
            else:
                cur.append(t)
        parts.append(cur)
        return [p for p in parts if p]
    return [lhs]


def _is_whole(rest: list) -> bool:
    """`.type`, nothing, or `.type[laneId]` (a lane bit of a mask: the whole mask is written)."""
    i = 0
    if i < len(rest) and rest[i] == ".":
        i += 2
    elif i < len(rest) and rest[i].startswith("."):
        i += 1
    if i == len(rest):
        return True
    return rest[i:] == ["[", "laneId", "]"]


def _uses(toks: list[str]) -> frozenset:
    """Each operand mention: its name as written, whether a `.type` follows, and the constant bit
    range `[hi : lo]` that follows (after the type, if any)."""
    out = set()
    for i, t in enumerate(toks):
        if t not in OPERANDS:
            continue
        j, typed = i + 1, False
        if j < len(toks) and toks[j] == "." and j + 1 < len(toks):
            j, typed = j + 2, True
        hi = lo = None
        if toks[j:j + 1] == ["["] and len(toks) > j + 4 and toks[j + 2] == ":" and toks[j + 4] == "]" \
                and toks[j + 1].isdigit() and toks[j + 3].isdigit():
            hi, lo = int(toks[j + 1]), int(toks[j + 3])
        out.add((t, typed, hi, lo))
    return frozenset(out)


_STATUS = {"EXECZ": "EXEC", "VCCZ": "VCC"}


def _flags(toks: list[str]) -> dict:
    source_array = any(t == "S" and toks[i + 1:i + 2] == ["["] for i, t in enumerate(toks))
    return dict(status_reads=frozenset(_STATUS[t] for t in toks if t in _STATUS),
                conditional="if" in toks, hwreg="hwRegId" in toks,
                mixed_sources=source_array and "OPSEL_HI" in toks)


_FIELDS = ("SRC0", "SRC1", "SRC2", "VDST")


def _vgpr_fields(toks: list[str]) -> tuple[frozenset, frozenset, frozenset]:
    """(fields used as a VGPR number, fields named other than as this lane's sliced source, the
    bit ranges of this lane's sliced sources as (S name, hi, lo))."""
    used, numbers, slices = set(), set(), set()
    for i, t in enumerate(toks):
        if t not in _FIELDS:
            continue
        # VGPR [ lane... ] [ FIELD: find the register access this mention indexes
        own_lane = sliced = in_vgpr = False
        if i >= 2 and toks[i - 1] == "[" and toks[i - 2] == "]":
            depth, j = 0, i - 2
            while j >= 0:
                depth += (toks[j] == "]") - (toks[j] == "[")
                if depth == 0:
                    break
                j -= 1
            if j >= 1 and toks[j - 1] == "VGPR":
                in_vgpr, own_lane = True, toks[j:i - 1] == ["[", "laneId", "]"]
                k = i + 1
                while k < len(toks) and toks[k] != "]":
                    k += 1
                sliced = toks[k + 1:k + 2] == ["["]
        if in_vgpr:
            used.add(t)
        if not (own_lane and sliced and toks[i + 1:i + 4] == [".", "u32", "]"]):
            numbers.add(t)
        elif t != "VDST":
            r = toks[i + 4:i + 9]       # SRCn . u32 ] [ hi : lo ]
            if len(r) == 5 and r[0] == "[" and r[2] == ":" and r[4] == "]" and r[1].isdigit() and r[3].isdigit():
                slices.add((f"S{t[-1]}", int(r[1]), int(r[3])))
    return frozenset(used), frozenset(numbers), frozenset(slices)


_INT32 = ("u", "i", "u32", "i32")


def _int32_operand(toks: list[str], name: str) -> bool:
    """`name.T` or a cast of it `NN'U(name.T)`, T a 32-bit integer type."""
    if toks[:1] and "'" in toks[0] and toks[1:2] == ["("] and toks[-1:] == [")"]:
        toks = toks[2:-1]
    return len(toks) == 3 and toks[0] == name and toks[1] == "." and toks[2] in _INT32


def _full_product(toks: list[str]) -> bool:
    for k, t in enumerate(toks):
        if t == "*" and any(_int32_operand(toks[k - n:k], "S0") for n in (3, 6) if k >= n) \
                and any(_int32_operand(toks[k + 1:k + 1 + n], "S1") for n in (3, 6)):
            return True
    return False


_TRANSCENDENTAL = {"log2", "sqrt", "sin", "cos"}


def _transcendental(toks: list[str]) -> bool:
    for k, t in enumerate(toks[:-1]):
        nxt = toks[k + 1]
        if t in _TRANSCENDENTAL and nxt == "(" and (k == 0 or toks[k - 1] != "."):
            return True
        if t == "pow" and nxt == "(" and k + 2 < len(toks) and toks[k + 2].split("'")[-1] in ("2.0", "2.0F"):
            return True
        if t.split("'")[-1] in ("1.0", "1.0F") and nxt == "/":
            return True
    return False


def _fields(toks: list[str]) -> dict:
    used, numbers, slices = _vgpr_fields(toks)
    sgpr = tuple(toks[i + 5] for i in range(len(toks) - 5)
                 if toks[i:i + 2] == ["SGPR", "["] and toks[i + 3:i + 5] == ["]", "."])
    return dict(vgpr_fields=used, field_numbers=numbers, own_slices=slices, sgpr_types=sgpr, full_product=_full_product(toks),
                transcendental=_transcendental(toks))


def _pieces(toks: list[str]) -> frozenset:
    out = set()
    for i, t in enumerate(toks):
        r = toks[i + 1:i + 8]
        if t in OPERANDS and len(r) == 7 and r[0] == "[" and r[2] == ":" and r[4] == "]" and r[5] == "." \
                and r[1].isdigit() and r[3].isdigit():
            out.add((t, int(r[1]), int(r[3]), r[6]))
    return frozenset(out)


def _lane_choosers(stmts: list) -> frozenset:
    return frozenset(n for s in stmts if s[:2] == ["lane", "="] for t in s[2:] if (n := _name(t)))


def _lane_bits(stmts: list) -> frozenset:
    """Operands some assignment writes as `X.T[laneId] = ...` (also inside if/else, loops)."""
    out = set()
    for s in stmts:
        eq = _assignment(s)
        if eq is None:
            continue
        for target in _targets(s[:eq]):
            if target and _name(target[0]) and target[1:2] == ["."] and target[3:] == ["[", "laneId", "]"]:
                out.add(_name(target[0]))
    return frozenset(out)


_CONSTANTS = ("SIMM16", "SIMM32")


def _constant_at(stmts: list) -> int | None:
    """The first statement reading SIMM16/SIMM32: its position among the sources and constants read."""
    for s in stmts:
        eq = _assignment(s)
        rhs = s[eq + 1:] if eq is not None else s
        values = [t for t in rhs if t in _CONSTANTS or _name(t) in ("S0", "S1", "S2")]
        if any(t in _CONSTANTS for t in values):
            return next(i for i, t in enumerate(values) if t in _CONSTANTS)
    return None


_RAW_FIELDS = frozenset({"SRC0", "SRC1", "SRC2", "VDST", "DST", "SDST", "SIMM16", "SIMM32"})


def _words(toks: list[str], stmts: list) -> dict:
    """opsel_ranges, inst_modifiers, field_types, pc_sources (see Effects)."""
    opsel, inst, typed = set(), set(), set()
    for i, t in enumerate(toks):
        nxt = toks[i + 1:i + 6]
        if t == "OPSEL":
            if nxt[:1] == ["["] and len(nxt) >= 3 and nxt[1].isdigit():
                lo = int(nxt[3]) if nxt[2] == ":" and len(nxt) >= 4 and nxt[3].isdigit() else int(nxt[1])
                opsel.add((int(nxt[1]), lo))
            elif nxt[:1] == ["."] and len(nxt) >= 2 and re.fullmatch(r"[a-z]+\d+", nxt[1]):
                opsel.add((int(re.search(r"\d+$", nxt[1]).group(0)) - 1, 0))
            else:
                opsel.add((None, None))           # OPSEL as a whole
        elif t == "INST" and nxt[:1] == ["."] and len(nxt) >= 2:
            inst.add(nxt[1])
        elif t in _RAW_FIELDS and nxt[:1] == ["."] and len(nxt) >= 2:
            typed.add((t, nxt[1]))
    pc, pc_write = set(), False
    for s in stmts:
        eq = _assignment(s)
        if eq is not None and s[:1] == ["PC"] and s[eq] == "=":
            pc |= {n for t in s[eq + 1:] if (n := _name(t))}
        pc_write |= eq is not None and "PC" in s[:eq]
    if not stmts:           # code the reader does not understand: any mention of PC may assign it
        pc_write = "PC" in toks
    return dict(opsel_ranges=frozenset(opsel), inst_modifiers=frozenset(inst), field_types=frozenset(typed),
                pc_sources=frozenset(pc), pc_write=pc_write)


_STATE_REGISTERS = {"WAVE_MODE": "MODE", "WAVE_STATUS": "STATUS"}


def _state_names(toks: list[str]) -> set:
    """`WAVE_MODE.IEEE` as 'MODE.IEEE', `WAVE_STATUS.PRIV` as 'STATUS.PRIV'; `HW_REGISTERS[...]`
    (the hardware register an ID chooses) as 'HW_REGISTERS'."""
    out = set()
    for i, t in enumerate(toks):
        if t in _STATE_REGISTERS and toks[i + 1:i + 2] == ["."] and i + 2 < len(toks):
            out.add(f"{_STATE_REGISTERS[t]}.{toks[i + 2]}")
        elif t == "HW_REGISTERS":
            out.add("HW_REGISTERS")
    return out


def _state(stmts: list) -> dict:
    """state_reads, state_writes (see Effects): the wave's MODE and STATUS fields and hardware
    registers each statement names, written where it is the target of an assignment (a compound
    one, `WAVE_MODE.CSP -= 1`, reads it too), read anywhere else."""
    reads, writes = set(), set()
    for s in stmts:
        eq = _assignment(s)
        if eq is None:
            reads |= _state_names(s)
            continue
        lhs, rhs = s[:eq], s[eq + 1:]
        targets = set()
        for target in _targets(lhs):
            named = _state_names(target[:3])      # the target itself; names inside its index are read
            targets |= named
            reads |= _state_names(target[3:] if named else target)
        writes |= targets
        if s[eq] in _COMPOUND:
            reads |= targets
        reads |= _state_names(rhs)
    return dict(state_reads=frozenset(reads), state_writes=frozenset(writes))


def _shift(stmts: list) -> bool:
    """One statement `D0.T = (A << B)` / `(A >> B)`: the whole value a shift of one source by another."""
    if len(stmts) != 1 or stmts[0][:1] != ["D0"]:
        return False
    s = stmts[0]
    eq = _assignment(s)
    rhs = s[eq + 1:] if eq is not None and s[eq] == "=" else []
    if rhs[:1] != ["("] or rhs[-1:] != [")"]:
        return False
    depth, ops = 0, []
    for t in rhs[1:-1]:
        depth += t in "([{"
        depth -= t in ")]}"
        if depth == 0 and t in ("<<", ">>", "+", "-", "*", "/", "&", "|", "^", "?", "&&", "||"):
            ops.append(t)
        elif depth < 0:
            return False
    sources = {n for t in rhs if (n := _name(t))}
    return ops in (["<<"], [">>"]) and len(sources) == 2 and sources <= {"S0", "S1", "S2"}


def _products(stmts: list) -> int:
    n = 0
    for s in stmts:
        eq = _assignment(s)
        if eq is not None and s[0] in ("D0", "tmp") and s[eq] in ("=", "+=") and "*" in s[eq + 1:]:
            n += 1
    return n


def _copy(stmts: list) -> bool:
    """One statement `D0.T = S0.T`, the same type T on both sides."""
    return len(stmts) == 1 and len(stmts[0]) == 7 and stmts[0][:2] == ["D0", "."] and stmts[0][3:6] == ["=", "S0", "."] \
        and stmts[0][2] == stmts[0][6]


def _jump(stmts: list, names: set) -> bool:
    """PC assigned by a top-level statement, no conditional anywhere, no D0 (a call's return address)."""
    if "D0" in names or any(s[0] in ("if", "elsif", "while", "for") for s in stmts):
        return False
    return any(s[0] == "PC" and _assignment(s) is not None for s in stmts)


@lru_cache(maxsize=None)
def effects(pcode: str | None) -> Effects:
    """Operands read and written by `pcode` (see the module docstring)."""
    if not pcode:
        return Effects(frozenset(), frozenset(), frozenset(), False)
    formula = _MATRIX_FORMULA.match(pcode.strip())
    if formula:
        reads = frozenset({"S0", "S1", "S2"} | ({"D0"} if formula.group(1) == "D" else set()))
        return Effects(reads, frozenset({"D0"}), frozenset(), False, value_reads=reads, names=reads | {"D0"})
    matrix = any(_SHAPE.search(m.group(1)) for m in _EVAL.finditer(pcode))
    shapes = tuple((k, int(b), int(r), int(c)) for k, b, r, c in _OPERAND_SHAPE.findall(pcode))
    toks = _tokens(pcode.replace(".\n", "\n"))
    a = _Analysis()
    try:
        stmts = _statements(toks)
        _, done = a.block(stmts, 0, set(), ())
    except (_Unknown, IndexError):
        b = _Analysis()
        b.read_all(toks, set())
        names = {n for t in toks if (n := _name(t))}
        return Effects(frozenset(b.reads), frozenset(), frozenset(names & {"D0", "D1", "VCC", "SCC", "EXEC"}),
                       b.cross_lane, b.indexed, value_reads=frozenset(b.value_reads), matrix=matrix,
                       literal="SIMM32" in toks, **_words(toks, []), state_reads=frozenset(_state_names(toks)),
                       names=_named(toks), uses=_uses(toks), pieces=_pieces(toks),
                       **_flags(toks), **_fields(toks), shapes=shapes)
    full = frozenset(done & a.written)
    partial = frozenset(a.written - full)
    names = {n for t in toks if (n := _name(t))}
    return Effects(frozenset(a.reads | partial), full, partial, a.cross_lane, a.indexed,
                   value_reads=frozenset(a.value_reads),
                   copy=_copy(stmts), jump=_jump(stmts, names), matrix=matrix, names=_named(toks),
                   uses=_uses(toks), pieces=_pieces(toks), lane_bits=_lane_bits(stmts),
                   lane_choosers=_lane_choosers(stmts),
                   products=_products(stmts), constant_at=_constant_at(stmts), result_pieces=a.result_pieces, result_ranges=a.result_ranges,
                   literal="SIMM32" in toks, shift=_shift(stmts), **_words(toks, stmts), **_state(stmts),
                   result_concat=a.result_concat, **_flags(toks), **_fields(toks), shapes=shapes)

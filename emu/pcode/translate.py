"""Translate one instruction's pseudocode (parsed by pcode.lark) into Python source over numpy.

Every expression is translated to (python source, static type). Types are Ty(kind, bits):
kind 'u' (unsigned/bit), 'i' (signed), 'f' (float), 'bool', 'lit' (a weakly typed Python
constant that takes the type of the other operand) or 'wide' (> 64 bits, object ints).
Control flow is predicated, because a condition differs per lane: inside `if c` every
assignment becomes `x = where(P & c, new, x)` and memory / register-file writes take the
predicate as their mask. Loops run in Python over their (uniform) index range; `break`
and lambda `return` keep per-lane "done" masks.

The translator is one class made of mixins, one module each: `types.py` (static types and
tree shapes), `expressions.py` (x_<tree node> -> source and type), `statements.py`
(statements and every kind of write), `narrow.py` (statements that can stay in uint32).
This module holds the driver: per-instruction state, the operand-width pre-pass and the
emitted `semantic(ctx)` function.
"""
from __future__ import annotations

from lark import Token, Tree

from isa.records import dataclass

from .expressions import Expressions
from .narrow import NarrowStatements
from .statements import Statements
from .types import DATA_FIELDS, INT_FIELDS, OPERANDS, DEFAULT_BITS, Ty, Var, Unsupported, register_numbers, type_of_field
from ..semantics import Operand

TRANSLATOR_VERSION = 1


@dataclass
class Result:
    source: str
    reads: dict[str, Operand]
    writes: dict[str, Operand]
    branch: bool
    memory: str | None
    cross_lane: bool


def _tokens(node) -> list:
    return [node] if isinstance(node, Token) else list(node.scan_values(lambda v: isinstance(v, Token)))


class Translator(NarrowStatements, Statements, Expressions):
    """One instruction's pseudocode -> `Result` (see the module docstring)."""

    def __init__(self, name: str, operand_types: dict[str, str], scalar: bool, saturate: bool = False,
                 narrow: bool = True, tables: dict[str, list[float]] | None = None, spec=None,
                 calls: tuple = ()):
        self.name = name
        self.spec = spec            # the isa.Spec whose instructions the pseudocode may call (v_max3 -> v_max)
        self.calls = frozenset(calls)   # the instructions the code calls, as written (isa.facts.instruction_calls)
        self.tables = tables or {}  # declared array -> entries the description gives (lookup.py)
        # the instruction-word fields the code reads as ints (a DS data field only where it
        # indexes registers by it: types.DATA_FIELDS); set per tree by translate()
        self.int_fields = INT_FIELDS
        # integer clamp (VOP3 CLMP on an integer result): typed integer stores narrower than 64
        # bits saturate instead of wrapping, and a narrowing read of a local (D0.u = tmp.u)
        # passes the whole value on, so the store sees the exact result
        self.saturate = saturate
        self.narrow = narrow        # uint32 statements where they are exact (narrow.py); False: the general path only
        self.optypes = operand_types
        self.scalar = scalar
        self.lines: list[str] = []
        self.indent = 1
        self.vars: dict[str, Var] = {}
        self.lambdas: dict[str, Tree] = {}
        self.pred: str | None = None
        self.tmp = 0
        self.reads: dict[str, Operand] = {}
        self.writes: dict[str, Operand] = {}
        self.lane_writes: set[str] = set()
        self.op_bits: dict[str, int] = {}
        self.mem_read = self.mem_write = False
        self.cross_lane = False
        self.loop_breaks: list[str] = []
        self.returns: list[tuple[str, str]] = []
        self.round_mode: str | None = None      # set between ROUND_MODE = ... assignments
        self.direct: list[tuple[int, str]] = []  # (line, its plain form) of results computed into Ctx.dest
        self.wider_values: dict[str, int] = {}     # operand -> bits of a wider value written to it whole

    # ---------- helpers ----------
    def emit(self, line: str):
        self.lines.append("    " * self.indent + line)

    def emit_direct(self, line: str, plain: str):
        """A statement computing D0 into the machine's destination register (R.into /
        R.float_into), or `plain` if it turns out not to be the semantic's last statement."""
        self.direct.append((len(self.lines), plain))
        self.emit(line)

    def keep_direct(self):
        """Results go straight into the destination register only from the semantic's last
        statement, at top level, when D0 is its only output: every input has been read by
        then (the destination may be one of them: v_add_nc_u32 v1, s0, v1; one ufunc or
        fma's block-by-block rounding reads each element before writing it), and no later
        statement can see a register changed under it."""
        for line, plain in self.direct:
            if not (line == len(self.lines) - 1 and self.indent == 1 and self.lines[line].startswith("    D0 = ")
                    and set(self.writes) == {"D0"}):
                self.lines[line] = self.lines[line][:len(self.lines[line]) - len(self.lines[line].lstrip())] + plain

    def fresh(self, stem="t") -> str:
        self.tmp += 1
        return f"_{stem}{self.tmp}"

    def fail(self, what: str, node=None):
        where = ""
        if isinstance(node, Tree) and node.meta and not node.meta.empty:
            where = f" (pseudocode line {node.meta.line})"
        raise Unsupported(f"{self.name}: {what}{where}")

    def operand_ty(self, name: str) -> Ty:
        t = self.optypes.get(name, "")
        ty = type_of_field(t.replace("pk_", "")) if t else None
        bits = self.op_bits.get(name, ty.bits if ty else DEFAULT_BITS)
        if t.startswith("pk_") and ty and ty.bits < 32:
            bits = max(bits, 32)        # packed sub-dword elements fill (at least) a dword

        if name == "SCC":
            return Ty("u", 1)
        if name in ("VCC", "EXEC", "PC"):
            return Ty("u", 64)
        if name == "M0":        # a 32-bit register, however few bits the pseudocode names (M0[7 : 0] = ...)
            return Ty("u", 32)
        if ty and ty.kind == "f" and not t.startswith("pk_") and bits > ty.bits:
            # a float narrower than its register (CDNA's legacy f16: D0 = { 16'0, tmp.f16 }): the
            # register as a whole is raw bits, its float the low ones (D0.f16)
            return Ty("u", bits)
        return Ty(ty.kind if ty else "u", bits)

    def use_operand(self, name: str, ty: Ty | None = None):
        if name not in self.reads and name not in self.writes:
            base = self.operand_ty(name)
            t = ty or base
            declared = type_of_field(self.optypes.get(name, "")) if name in self.optypes else None
            if ty is None and declared and declared.kind == "f" and not self.optypes[name].startswith("pk_"):
                # a float of its own width in a wider register (CDNA's legacy f16 instructions read
                # D0.f16, the low half of the 32-bit D0 they write whole): typed as that float
                t = Ty("f", min(base.bits, declared.bits))
            self.reads[name] = Operand(name, base.bits, str(t) if t.kind != "f" else f"f{t.bits}")

    # ---------- pre-pass: operand widths ----------
    def scan_widths(self, tree: Tree):
        for node in tree.iter_subtrees():
            inner = node.children[0] if node.data in ("field", "slice", "index") else None
            if node.data == "slice" and isinstance(inner, Tree) and inner.data == "field":
                inner = inner.children[0]           # D0.u32[63 : 32]: a slice of the typed operand
            if isinstance(inner, Tree) and inner.data == "name":
                base = str(inner.children[0])
                if base not in OPERANDS:
                    continue
                bits = 0
                if node.data == "field":
                    ty = type_of_field(str(node.children[1]))
                    if ty:
                        bits = ty.bits
                elif node.data == "slice":
                    hi, lo = _largest(node.children[1]), _largest(node.children[2])
                    if hi is not None and lo is not None:
                        bits = max(hi, lo) + 1
                if bits:
                    self.op_bits[base] = max(self.op_bits.get(base, 0), bits)

    # ---------- driver ----------
    def translate(self, tree: Tree, widths: dict[str, int] | None = None) -> Result:
        self.int_fields = INT_FIELDS - (DATA_FIELDS - register_numbers(tree))
        self.scan_widths(tree)
        for name, bits in (widths or {}).items():
            self.op_bits[name] = max(self.op_bits.get(name, 0), bits)
        result = self._translate(tree)
        wider = {n: b for n, b in self.wider_values.items() if b > self.operand_ty(n).bits}
        if wider:
            # `RETURN_DATA = MEM[ADDR].b64`: an operand written whole, with no accessor, is as
            # wide as the value written to it (its other uses may only say 32); translate again
            # at that width rather than let the store drop the high bits
            if widths and all(widths.get(n, 0) >= b for n, b in wider.items()):
                self.fail(f"cannot widen {', '.join(wider)} to the value written to it")
            return Translator(self.name, self.optypes, self.scalar, self.saturate, self.narrow, self.tables,
                              self.spec, self.calls).translate(
                tree, {**(widths or {}), **wider})
        return result

    def _translate(self, tree: Tree) -> Result:
        self.defined_operands = set()
        self.prologue = []
        self.declared_sized = {str(n.children[0]) for n in tree.iter_subtrees() if n.data == "declare"}
        # names some assignment writes (whole or an element): a declared array none writes is a
        # table whose contents must come from elsewhere (self.tables), never silently zeros
        self.assigned = {str(v) for n in tree.iter_subtrees() if n.data == "assign"
                         for v in _tokens(n.children[0])}
        self.stmts(tree.children[0])
        self.keep_direct()
        out = []
        for name, op in self.writes.items():
            out.append(f"{name!r}: {name}__lanes" if op.lane_bit else f"{name!r}: {name}")
        body = ["def semantic(ctx):"] + ["    " + p for p in self.prologue] + self.lines + \
               ["    return {" + ", ".join(out) + "}"]
        branch = "PC" in self.writes
        memory = None
        if self.mem_read and self.mem_write:
            memory = "atomic"
        elif self.mem_read:
            memory = "load"
        elif self.mem_write:
            memory = "store"
        reads = {k: v for k, v in self.reads.items()}
        return Result("\n".join(body) + "\n", reads, dict(self.writes), branch, memory, self.cross_lane)


def _largest(node) -> int | None:
    """The largest value a bit position can take: a number, or sums and products of numbers and
    single bits of a field (v_pk_mov_b32's S0.u32[OPSEL[0].i32 * 32 + 31 : ...]: 63); else None."""
    if not isinstance(node, Tree):
        return None
    if node.data == "number":
        try:
            return int(str(node.children[0]), 0)
        except ValueError:
            return None
    if node.data == "field":
        return _largest(node.children[0])
    if node.data == "index" and isinstance(node.children[1], Tree) and node.children[1].data == "number":
        return 1                    # one bit of a field
    if node.data == "binop" and str(node.children[1]) in ("+", "*"):
        a, b = _largest(node.children[0]), _largest(node.children[2])
        if a is None or b is None:
            return None
        return a + b if str(node.children[1]) == "+" else a * b
    return None

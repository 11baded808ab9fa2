"""Translate one instruction's pseudocode (parsed by pcode.lark) into Python source over numpy.

Every expression is translated to (python source, static type). Types are Ty(kind, bits):
kind 'u' (unsigned/bit), 'i' (signed), 'f' (float), 'bool', 'lit' (a weakly typed Python
constant that takes the type of the other operand) or 'wide' (> 64 bits, object ints).
Control flow is predicated, because a condition differs per lane: inside `if c` every
assignment becomes `x = where(P & c, new, x)` and memory / register-file writes take the
predicate as their mask. Loops run in Python over their (uniform) index range; `break`
and lambda `return` keep per-lane "done" masks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Token, Tree

from .. import rtlib
from ..semantics import Operand, SemanticsError

TRANSLATOR_VERSION = 1

# operands the machine supplies (emu/README.md, "Semantics contract")
OPERANDS = {"S0", "S1", "S2", "D0", "D1", "SCC", "VCC", "EXEC", "M0", "PC", "ADDR", "ADDR_BASE", "DATA", "DATA2",
            "VDATA", "SDATA", "RETURN_DATA", "SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1", "SRC0", "VDST",
            "DST", "DATA0", "DATA1", "OPSEL", "OPSEL_HI", "NEG", "NEG_HI"}
# instruction-word fields, passed as Python ints (OPSEL..NEG_HI: the raw VOP3P modifier bits,
# for the instructions whose pseudocode interprets them itself: v_fma_mix*, v_dot*_iu*)
INT_FIELDS = {"SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1", "SRC0", "VDST", "DST", "DATA0", "DATA1",
              "OPSEL", "OPSEL_HI", "NEG", "NEG_HI"}
# `declare S : 32'B[n]` names the instruction's sources: S[i] is Si (v_fma_mix*)
SOURCE_ARRAY = "S"
LANE_MASKS = {"VCC", "EXEC", "D0", "D1"}
LANE_ID_NAMES = {"laneId", "laneID"}
TYPE_RE = re.compile(r"^(u|i|f|b|bf)(\d+)?$")
DEFAULT_BITS = 32


class Unsupported(SemanticsError):
    """The pseudocode uses a construct the translator does not model."""


@dataclass(frozen=True)
class Ty:
    kind: str
    bits: int = 64

    def __str__(self):
        return f"{self.kind}{self.bits}"


LIT = Ty("lit", 64)
BOOL = Ty("bool", 1)


def type_of_field(name: str) -> Ty | None:
    m = TYPE_RE.match(name)
    if not m:
        return None
    kind, bits = m.group(1), int(m.group(2) or 32)
    if kind == "bf":
        return Ty("bf", 16)
    return Ty("u" if kind == "b" else kind, bits)


def type_of_decl(text: str) -> Ty:
    bits, k = text.split("'")
    return Ty({"U": "u", "B": "u", "I": "i", "F": "f"}[k], int(bits))


@dataclass
class Var:
    ty: Ty
    array: int = 0          # declared `name : T[n]`: a Python list of n values


@dataclass
class Result:
    source: str
    reads: dict[str, Operand]
    writes: dict[str, Operand]
    branch: bool
    memory: str | None
    cross_lane: bool


class Translator:
    def __init__(self, name: str, operand_types: dict[str, str], scalar: bool):
        self.name = name
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

    # ---------- helpers ----------
    def emit(self, line: str):
        self.lines.append("    " * self.indent + line)

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
        return Ty(ty.kind if ty else "u", bits)

    def use_operand(self, name: str, ty: Ty | None = None):
        if name not in self.reads and name not in self.writes:
            base = self.operand_ty(name)
            self.reads[name] = Operand(name, base.bits, str(ty or base) if (ty or base).kind != "f" else f"f{(ty or base).bits}")

    # ---------- pre-pass: operand widths ----------
    def scan_widths(self, tree: Tree):
        for node in tree.iter_subtrees():
            if node.data in ("field", "slice", "index") and isinstance(node.children[0], Tree) \
                    and node.children[0].data == "name":
                base = str(node.children[0].children[0])
                if base not in OPERANDS:
                    continue
                bits = 0
                if node.data == "field":
                    ty = type_of_field(str(node.children[1]))
                    if ty:
                        bits = ty.bits
                elif node.data == "slice":
                    hi, lo = node.children[1], node.children[2]
                    if hi.data == "number" and lo.data == "number":
                        bits = max(int(str(hi.children[0]), 0), int(str(lo.children[0]), 0)) + 1
                if bits:
                    self.op_bits[base] = max(self.op_bits.get(base, 0), bits)

    # ---------- statements ----------
    def stmts(self, tree: Tree):
        for st in tree.children:
            self.stmt(st)
            if self.loop_breaks and self.loop_breaks[-1] and st.data in ("if_",):
                pass

    def stmt(self, st: Tree):
        kind = st.data
        if kind == "assign":
            self.assign(st)
        elif kind == "declare":
            name = str(st.children[0])
            ty = type_of_decl(str(st.children[1]))
            if len(st.children) > 2 and name == SOURCE_ARRAY:
                n = int(str(st.children[2]))
                self.vars[name] = Var(Ty("u", ty.bits), n)
                self.emit(f"{self.pyname(name)} = [{', '.join(self.read_operand(f'S{i}')[0] for i in range(n))}]")
            elif len(st.children) > 2:
                n = int(str(st.children[2]))
                self.vars[name] = Var(ty, n)
                self.emit(f"{self.pyname(name)} = [{self.zero(ty)}] * {n}")
            elif name in OPERANDS:
                pass        # `declare OFFSET : 16'U` documents an operand's width
            else:
                self.vars[name] = Var(ty)
                self.emit(f"{self.pyname(name)} = {self.zero(ty)}")
        elif kind == "if_":
            self.if_(st)
        elif kind == "for_":
            self.for_(st)
        elif kind == "expr_stmt":
            e = st.children[0]
            if not (isinstance(e, Tree) and e.data == "call"):
                self.fail("statement is not an assignment or a call", st)
            code, _ = self.expr(e)
            self.emit(code)
        elif kind == "break_":
            if not self.loop_breaks:
                self.fail("break outside a loop", st)
            b = self.loop_breaks[-1]
            self.emit(f"{b} = np.asarray({b}) | np.asarray({self.pred or 'True'})")
        elif kind == "return_":
            if not self.returns:
                self.fail("return outside a lambda", st)
            ret, done = self.returns[-1]
            code, _ = self.expr(st.children[0])
            p = self.pred or "True"
            self.emit(f"{ret} = R.where(R.AND({p}, ~{done}), {code}, {ret})")
            self.emit(f"{done} = {done} | R.AND({p}, ~{done})")
        elif kind == "eval_":
            self.fail("eval \"...\" (matrix pseudocode) needs a hand-written semantic", st)
        else:
            self.fail(f"statement {kind}", st)

    def if_(self, st: Tree):
        cond, then, elifs = st.children[0], st.children[1], st.children[2]
        els = st.children[3] if len(st.children) > 3 else None
        branches = [(cond, then)] + [(elifs.children[i], elifs.children[i + 1])
                                    for i in range(0, len(elifs.children), 2)]
        outer = self.pred
        taken = self.fresh("taken")
        self.emit(f"{taken} = False")
        for c, body in branches:
            code, ty = self.expr(c)
            cv = self.fresh("c")
            self.emit(f"{cv} = R.AND(R.AND({outer or 'None'}, ~R.truth({taken})), R.truth({code}))")
            self.emit(f"{taken} = R.truth({taken}) | {cv}")
            self.pred = cv
            self.stmts(body)
            self.pred = outer
        if els is not None:
            cv = self.fresh("c")
            self.emit(f"{cv} = R.AND({outer or 'None'}, ~R.truth({taken}))")
            self.pred = cv
            self.stmts(els)
            self.pred = outer

    def for_(self, st: Tree):
        var, lo, hi, body = str(st.children[0]), st.children[1], st.children[2], st.children[3]
        lo_c, _ = self.expr(lo)
        hi_c, _ = self.expr(hi)
        py = self.pyname(var)
        self.vars[var] = Var(LIT)
        has_break = any(t.data == "break_" for t in body.iter_subtrees())
        brk = None
        if has_break:
            brk = self.fresh("brk")
            self.emit(f"{brk} = False")
        self.emit(f"for {py} in range(R.loop_bound({lo_c}), R.loop_bound({hi_c}) + 1):")
        self.indent += 1
        outer = self.pred
        if brk:
            self.loop_breaks.append(brk)
            for st2 in body.children:
                pv = self.fresh("p")
                self.emit(f"{pv} = R.AND({outer or 'None'}, ~np.asarray({brk}))")
                self.pred = pv
                self.stmt(st2)
            self.loop_breaks.pop()
        else:
            self.stmts(body)
        self.pred = outer
        self.emit("pass")
        self.indent -= 1

    # ---------- assignment ----------
    def assign(self, st: Tree):
        target = st.children[0]
        if len(st.children) == 2:           # x++
            op, value = "+=", Tree("number", [Token("NUMBER", "1")])
        else:
            op, value = str(st.children[1]), st.children[2]
        if isinstance(target, Tree) and target.data == "lambda_":
            self.fail("lambda as target", st)
        if isinstance(value, Tree) and value.data == "lambda_":
            self.lambdas[str(target.children[0])] = value
            return
        if _is_name(target, {"ROUND_MODE"}):
            # `ROUND_MODE = ROUND_TOWARD_ZERO; ...; ROUND_MODE = prev_mode`: conversions in
            # between round toward zero (R.<conversion>_rtz); anything else restores RNE
            self.round_mode = "rtz" if _is_name(value, {"ROUND_TOWARD_ZERO"}) else None
            return
        if op != "=":
            bin_op = op[:-1]
            code, ty = self.binop(bin_op, self.expr(target), self.expr(value))
        else:
            code, ty = self.expr(value)
        if target.data == "concat_target":
            parts = [self.lvalue_type(p) for p in target.children]
            v = self.fresh("v")
            self.emit(f"{v} = R.split({code}, {[t.bits for t in parts]})")
            for i, (p, t) in enumerate(zip(target.children, parts)):
                self.write(p, f"{v}[{i}]", Ty("u", t.bits))
            return
        self.write(target, code, ty)

    def lvalue_type(self, node) -> Ty:
        if node.data == "field":
            t = type_of_field(str(node.children[1]))
            if t:
                return t
        return Ty("u", 32)

    def write(self, target: Tree, code: str, ty: Ty):
        """Store `code` (of type ty) into the location `target` names."""
        chain = []
        node = target
        while node.data in ("field", "index", "slice"):
            chain.append(node)
            node = node.children[0]
        chain.reverse()
        if node.data == "mem":
            return self.write_mem(node, chain, code, ty, target)
        if node.data == "index" or node.data != "name":
            pass
        if node.data != "name":
            # VGPR[lane][reg] / SGPR[...] / HW_REGISTERS[...]: node is the innermost index
            self.fail("assignment target", target)
        name = str(node.children[0])
        if name in ("VGPR", "SGPR", "HW_REGISTERS"):
            return self.write_regfile(name, chain, code, ty, target)
        # lane-bit write: X.u64[laneId] = v
        if name in LANE_MASKS and not self.scalar and self._is_lane_bit(chain):
            return self.write_lane_bit(name, code)
        if name == "D1" and not self.scalar:       # carry-out of v_mad_u64_u32: one bit per lane
            return self.write_lane_bit(name, code)
        if name == "VCC" and not self.scalar and not chain:
            return self.write_lane_bit(name, f"R.raw({code}) & R.U64(1)")
        if name in OPERANDS:
            return self.write_operand(name, chain, code, ty, target)
        return self.write_local(name, chain, code, ty, target)

    def _is_lane_bit(self, chain) -> bool:
        idx = [c for c in chain if c.data == "index"]
        return len(idx) == 1 and chain[-1].data == "index" and _is_name(idx[0].children[1], LANE_ID_NAMES)

    def write_lane_bit(self, name: str, code: str):
        var = f"{name}__lanes"
        if name not in self.lane_writes:
            self.lane_writes.add(name)
            self.emit(f"{var} = np.zeros(ctx.shape, bool)")
        self.writes[name] = Operand(name, 64 if name != "D1" else 1, "u64" if name != "D1" else "u1", lane_bit=True)
        self.emit(f"{var} = R.where({self.pred or 'None'}, R.truth({code}), {var})")

    def guard(self, var: str, new: str) -> str:
        return new if self.pred is None else f"R.where({self.pred}, {new}, {var})"

    def write_operand(self, name, chain, code, ty, target):
        base = self.operand_ty(name)
        wide = base.bits > 64
        if name not in self.defined_operands:
            self.define_operand(name, partial=(self._partial(chain, base) or self.pred is not None) and not wide)
        self.writes.setdefault(name, Operand(name, base.bits, self._type_name(name, base)))
        new = self.store_chain(name, base, chain, code, ty, target, wide)
        self.emit(f"{name} = {self.guard(name, new)}")

    def _partial(self, chain, base) -> bool:
        """Does this write leave some of the operand's bits as they were?"""
        for c in chain:
            if c.data == "index":
                return True
            if c.data == "slice":
                if not (_is_const(c.children[1]) and _is_const(c.children[2])):
                    return True
                hi, lo = (int(str(c.children[k].children[0]), 0) for k in (1, 2))
                if min(hi, lo) != 0 or max(hi, lo) + 1 < base.bits:
                    return True
        return False

    def _type_name(self, name, base):
        t = self.optypes.get(name)
        return t.replace("pk_", "") if t else str(base)

    def define_operand(self, name, partial):
        """First write to an operand: start from its old value if bits survive, else zeros."""
        self.defined_operands.add(name)
        base = self.operand_ty(name)
        if partial and name not in self.reads and name not in INT_FIELDS:
            self.reads[name] = Operand(name, base.bits, self._type_name(name, base))
            self.emit(f"{name} = R.operand(ctx, {name!r}, {base.bits}, {self.name!r})")
        elif name not in self.reads:
            self.emit(f"{name} = " + (f"R.dw_zeros(ctx, {base.bits // 32})" if base.bits > 64 else "R.U64(0)"))

    def store_chain(self, var, base, chain, code, ty, target, wide):
        """Source of var's new raw value after writing `code` through the accessor chain."""
        # forms: [] | [.T] | [slice] | [slice .T] | [.T slice] | [index] | [.T index] | [index .T]
        access = [c for c in chain if c.data == "field"]
        sel = [c for c in chain if c.data in ("slice", "index")]
        tty = type_of_field(str(access[-1].children[1])) if access else None
        if access and tty is None:
            self.fail(f"field .{access[-1].children[1]} in an assignment", target)
        if len(sel) > 1:
            self.fail("more than one bit selection in an assignment", target)
        if not sel:
            t = tty or base
            if tty is None and ty.kind == "f" and t.kind != "f" and ty.bits == t.bits:
                t = ty              # X = float value, no accessor: the value's bits (RETURN_DATA = tmp)
            if wide:
                self.fail("whole-value write of a wide operand", target)
            return f"R.store({self.conv(code, ty, t)}, {t.kind!r}, {min(t.bits, 64) if t.kind != 'f' else t.bits})"
        s = sel[0]
        if s.data == "slice":
            hi, _ = self.expr(s.children[1])
            lo, _ = self.expr(s.children[2])
            width_t = tty if (tty and chain.index(s) < chain.index(access[-1])) else None
            vt = width_t or tty or Ty("u", self._const_width(s))
        else:
            hi, _ = self.expr(s.children[1])
            lo = hi
            vt = Ty("u", 1)
        val = f"R.store({self.conv(code, ty, vt)}, {vt.kind!r}, {vt.bits})"
        if wide:
            lo_c, bits = self._const_slice(s, target)
            return f"R.dw_set({var}, {lo_c}, {bits}, {val})"
        return f"R.set_bits({var}, {hi}, {lo}, {val})"

    def _const_width(self, s):
        try:
            return self._const_slice(s, s)[1]
        except Unsupported:
            return 64

    def _const_slice(self, s, target):
        try:
            hi = int(str(s.children[1].children[0]), 0)
            lo = int(str(s.children[2].children[0]), 0)
        except (AttributeError, ValueError, IndexError):
            self.fail("bit range of a wide operand must be constant", target)
        if lo % 32 or (hi - lo + 1) not in (32, 64):
            self.fail(f"bit range [{hi}:{lo}] of a wide operand is not dword aligned", target)
        return lo, hi - lo + 1

    def write_local(self, name, chain, code, ty, target):
        py = self.pyname(name)
        var = self.vars.get(name)
        if var is not None and var.array:
            if not chain or chain[0].data != "index":
                self.fail(f"whole-array assignment to {name}", target)
            idx, _ = self.expr(chain[0].children[1])
            if len(chain) > 1:
                self.fail("sub-element write of an array element", target)
            new = self.conv(code, ty, var.ty)
            self.emit(f"{py}[R.loop_bound({idx})] = {self.guard(f'{py}[R.loop_bound({idx})]', new)}")
            return
        if not chain:
            if var is None:
                vty = ty if ty.kind != "lit" else ty
                self.vars[name] = Var(vty)
                new = code
                if self.pred is not None:
                    self.emit(f"{py} = R.where({self.pred}, {new}, 0)")
                else:
                    self.emit(f"{py} = {new}")
                return
            new = self.conv(code, ty, var.ty)
            if var.ty.kind in "ui" and var.ty.bits < 64 and name in self.declared_sized:
                new = f"R.cast_int({new}, {var.ty.kind == 'i'}, {var.ty.bits})"
            self.emit(f"{py} = {self.guard(py, new)}")
            return
        if var is None:
            self.vars[name] = Var(Ty("u", 64))
            self.emit(f"{py} = R.U64(0)")
            var = self.vars[name]
        old = f"R.raw({py})"
        new = self.store_chain(old, var.ty, chain, code, ty, target, False)
        if var.ty.kind == "lit":
            var.ty = Ty("u", 64)
        self.emit(f"{py} = {self.guard(py, self.conv(new, Ty('u', 64), var.ty))}")

    def write_mem(self, node, chain, code, ty, target):
        addr, _ = self.expr(node.children[0])
        nbytes = self.mem_width(chain, target)
        self.mem_write = True
        # MEM[a].f = x stores x's float bits (f32 atomics), any other accessor an integer
        fields = [type_of_field(str(c.children[1])) for c in chain if c.data == "field"]
        kind = "f" if fields and fields[-1].kind == "f" else "u"
        self.emit(f"R.mem_store(ctx, {addr}, {nbytes}, R.store({self.conv(code, ty, Ty(kind, nbytes * 8))}, '{kind}', "
                  f"{nbytes * 8}), {self.pred or 'None'})")

    def mem_width(self, chain, node) -> int:
        bits = 32
        for c in chain:
            if c.data == "field":
                t = type_of_field(str(c.children[1]))
                if t is None:
                    self.fail(f"MEM field .{c.children[1]}", node)
                bits = t.bits
            elif c.data == "slice":
                bits = self._slice_bits(c, node)
        if bits not in (8, 16, 32, 64):
            self.fail(f"{bits}-bit memory access", node)
        return bits // 8

    def _slice_bits(self, c, node):
        try:
            return int(str(c.children[1].children[0]), 0) - int(str(c.children[2].children[0]), 0) + 1
        except (AttributeError, ValueError):
            self.fail("non-constant slice of MEM", node)

    def write_regfile(self, name, chain, code, ty, target):
        self.cross_lane = True
        idx = [c for c in chain if c.data == "index"]
        if name == "VGPR":
            if len(idx) != 2:
                self.fail("VGPR[lane][reg] needs two indices", target)
            lane, _ = self.expr(idx[0].children[1])
            reg, _ = self.expr(idx[1].children[1])
            self.emit(f"R.vgpr_write(ctx, {reg}, {lane}, R.store({self.conv(code, ty, Ty('u', 32))}, 'u', 32), "
                      f"{self.pred or 'None'})")
        else:
            reg, _ = self.expr(idx[0].children[1])
            fn = "sgpr_write" if name == "SGPR" else "hwreg_write"
            self.emit(f"R.{fn}(ctx, {reg}, R.raw({code}), {self.pred or 'None'})")

    # ---------- expressions ----------
    def conv(self, code: str, src: Ty, dst: Ty) -> str:
        """Value conversion for assignment into a location of type dst."""
        if src.kind == dst.kind or dst.kind in ("lit",):
            return code
        if dst.kind == "f":
            if src.kind == "lit":
                return f"R.F({code}, {dst.bits})"
            if src.kind in ("u", "i", "bool") and src.kind != "f":
                return f"R.F({code}, {dst.bits})"
            return code
        if src.kind == "f" and dst.kind in ("u", "i"):
            return f"R.to_int({code}, {dst.kind == 'i'}, {dst.bits})"
        return code

    def expr(self, node) -> tuple[str, Ty]:
        if isinstance(node, Token):
            self.fail(f"token {node}")
        meth = getattr(self, "x_" + node.data, None)
        if meth is None:
            self.fail(f"expression {node.data}", node)
        return meth(node)

    def x_number(self, node):
        text = str(node.children[0])
        return self.literal(text)

    def literal(self, text: str, bits: int | None = None, suffix: str = ""):
        m = re.fullmatch(r"(-?)(0x[0-9a-fA-F]+|\d+\.\d+|\d+)(ULL|LL|U|F)?", text)
        if not m:
            self.fail(f"number {text}")
        neg, body, suf = m.group(1), m.group(2), m.group(3) or ""
        suf = suffix or suf
        if "." in body:
            v = float(body) * (-1 if neg else 1)
            if suf in ("F",) or bits in (16, 32, 64):
                b = bits or 32
                return f"R.FLOAT[{b}]({v!r})", Ty("f", b)
            return repr(v), Ty("lit", 64)
        v = int(body, 0) * (-1 if neg else 1)
        if suf in ("ULL", "U") or suffix == "U" or suffix == "B":
            b = bits or (64 if suf == "ULL" else 32)
            return f"R.U64({v & ((1 << 64) - 1)})", Ty("u", b)
        if suf == "LL" or suffix == "I":
            v &= (1 << 64) - 1          # a 64-bit pattern such as 0xfff8000000000000LL wraps
            return f"np.int64({v - (1 << 64) if v >> 63 else v})", Ty("i", bits or 64)
        if suffix == "F":
            b = bits or 32
            return f"R.FLOAT[{b}]({float(v)!r})", Ty("f", b)
        return repr(v), Ty("lit", bits or 64)

    def x_sized_lit(self, node):
        text = str(node.children[0])
        bits, rest = text.split("'", 1)
        m = re.fullmatch(r"(-?(?:0x[0-9a-fA-F]+|\d+\.\d+|\d+))([UIFB]?)", rest)
        body, suf = m.group(1), m.group(2)
        if "." in body:
            return self.literal(body, int(bits), "F")
        return self.literal(body, int(bits), suf or "U")

    def x_name(self, node):
        name = str(node.children[0])
        if name in self.vars:
            v = self.vars[name]
            return self.pyname(name), v.ty
        if name in LANE_ID_NAMES or name == "lane":
            return "R.lane_id(ctx)", Ty("u", 32)
        if name == "WAVE64":
            return "(ctx.lanes == 64)", BOOL
        if name == "WAVE32":
            return "(ctx.lanes == 32)", BOOL
        if name == "EXEC_LO":
            c, _ = self.read_operand("EXEC")
            return f"({c} & R.U64(0xFFFFFFFF))", Ty("u", 32)
        if name == "ROUND_MODE":           # only ever saved (prev_mode = ROUND_MODE) and restored
            return "None", LIT
        if name in ("EXECZ", "VCCZ"):
            src = name[:-1]
            c, _ = self.read_operand(src)
            return f"R.U64({c} == 0)", Ty("u", 1)
        if name in ("PI", "INF", "NAN", "OVERFLOW_F32", "OVERFLOW_F64", "UNDERFLOW_F32", "UNDERFLOW_F64", "MAX_FLOAT_F32"):
            return f"R.CONSTANTS[{name!r}]", Ty("lit", 64)
        if name in OPERANDS:
            return self.read_operand(name)
        self.fail(f"unknown name {name}", node)

    defined_operands: set

    def read_operand(self, name):
        if name == "EXEC":
            self.reads.setdefault("EXEC", Operand("EXEC", 64, "u64"))
            if "EXEC" not in self.defined_operands:
                self.defined_operands.add("EXEC")
                self.prologue.append("EXEC = np.asarray(ctx.exec_mask).astype(R.U64)")
            return "EXEC", Ty("u", 64)
        ty = self.operand_ty(name)
        if name not in self.defined_operands:
            self.defined_operands.add(name)
            self.use_operand(name)
            if name in INT_FIELDS:
                self.prologue.append(f"{name} = R.U64(ctx.get({name!r}, {self.name!r}))")
            else:
                self.prologue.append(f"{name} = R.operand(ctx, {name!r}, {ty.bits}, {self.name!r})")
        if name == "SCC" or name in ("VCC", "EXEC", "PC", "M0") or name in INT_FIELDS:
            return name, Ty("u", ty.bits if name != "SCC" else 1)
        return name, Ty("u", ty.bits) if ty.bits <= 64 else Ty("dw", ty.bits)

    def x_field(self, node):
        base, fname = node.children[0], str(node.children[1])
        if isinstance(base, Tree) and base.data == "name":
            bname = str(base.children[0])
            if bname == "WAVE_MODE":
                return f"R.mode_field(ctx, {fname!r})", Ty("u", 1)
            if bname == "WAVE_STATUS":
                return f"R.status_field(ctx, {fname!r})", Ty("u", 1)
            if bname in ("NAN", "DENORM", "INF") and type_of_field(fname):
                t = type_of_field(fname)
                if bname == "DENORM":
                    self.fail("DENORM outside a comparison", node)
                return f"R.FLOAT[{t.bits}](R.CONSTANTS[{bname!r}])", Ty("f", t.bits)
        ty = type_of_field(fname)
        if ty is None:
            self.fail(f"field .{fname}", node)
        if isinstance(base, Tree) and base.data == "mem":
            addr, _ = self.expr(base.children[0])
            self.mem_read = True
            nbytes = ty.bits // 8
            return f"R.access(R.mem_load(ctx, {addr}, {nbytes}, {self.pred or 'None'}), {ty.kind!r}, {ty.bits})", ty
        code, bty = self.expr(base)
        if ty.kind == "bf":
            return f"R.bf16_to_f32(R.access({code}, 'u', 16))", Ty("f", 32)
        if bty.kind == "dw":
            self.fail("typed access to a wide operand without a bit range", node)
        if bty.kind == "f" and ty.kind == "f" and ty.bits == bty.bits:
            return code, ty
        if bty.kind == ty.kind and bty.bits == ty.bits and ty.kind in "ui" and not _is_operand(base):
            return code, ty
        return f"R.access({code}, {ty.kind!r}, {ty.bits})", ty

    def x_index(self, node):
        base, idx = node.children[0], node.children[1]
        if isinstance(base, Tree) and base.data == "index" and _is_name(base.children[0], {"VGPR"}):
            self.cross_lane = True
            lane, _ = self.expr(base.children[1])
            reg, _ = self.expr(idx)
            return f"R.vgpr_read(ctx, {reg}, {lane})", Ty("u", 32)
        if _is_name(base, {"SGPR"}):
            self.cross_lane = True
            reg, _ = self.expr(idx)
            return f"R.sgpr_read(ctx, {reg})", Ty("u", 32)
        if _is_name(base, {"HW_REGISTERS"}):
            reg, _ = self.expr(idx)
            return f"R.hwreg_read(ctx, {reg})", Ty("u", 32)
        if _is_name(base, {"VGPR"}):
            self.fail("VGPR[...] with one index", node)
        if isinstance(base, Tree) and base.data == "name" and str(base.children[0]) in self.vars \
                and self.vars[str(base.children[0])].array:
            var = self.vars[str(base.children[0])]
            i, _ = self.expr(idx)
            return f"R.pick({self.pyname(str(base.children[0]))}, {i})", var.ty
        if isinstance(base, Tree) and base.data == "mem":
            self.fail("MEM[...][bit]", node)
        code, bty = self.expr(base)
        i, _ = self.expr(idx)
        if bty.kind == "dw":
            self.fail("single bit of a wide operand", node)
        return f"R.bits_of({code}, {i}, {i})", Ty("u", 1)

    def x_slice(self, node):
        base = node.children[0]
        if isinstance(base, Tree) and base.data == "mem":
            addr, _ = self.expr(base.children[0])
            bits = self._slice_bits(node, node)
            lo = int(str(node.children[2].children[0]), 0)
            if lo != 0 or bits not in (8, 16, 32, 64):
                self.fail("MEM slice must start at bit 0 and be 8/16/32/64 bits", node)
            self.mem_read = True
            return f"R.mem_load(ctx, {addr}, {bits // 8}, {self.pred or 'None'})", Ty("u", bits)
        code, bty = self.expr(base)
        if bty.kind == "dw":
            lo, bits = self._const_slice(node, node)
            return f"R.dw_get({code}, {lo}, {bits})", Ty("u", bits)
        hi, _ = self.expr(node.children[1])
        lo, _ = self.expr(node.children[2])
        width = self._const_width(node) if _is_const(node.children[1]) and _is_const(node.children[2]) else 64
        return f"R.bits_of({code}, {hi}, {lo})", Ty("u" if bty.kind != "wide" or width <= 64 else "wide", width)

    def x_slice_up(self, node):
        """x[lo +: width] (Verilog part-select): bits lo + width - 1 down to lo."""
        base, lo, width = node.children
        hi = Tree("binop", [Tree("binop", [lo, Token("PLUS", "+"), width]), Token("MINUS", "-"),
                            Tree("number", [Token("NUMBER", "1")])])
        return self.x_slice(Tree("slice", [base, hi, lo], node.meta))

    def x_mem(self, node):
        addr, _ = self.expr(node.children[0])
        self.mem_read = True
        return f"R.mem_load(ctx, {addr}, 4, {self.pred or 'None'})", Ty("u", 32)

    def x_cast(self, node):
        text = str(node.children[0])
        bits, k = int(text.split("'")[0]), text.split("'")[1][0]
        inner = node.children[1]
        code, ty = self.expr(inner)
        if k == "F":
            if bits not in (16, 32, 64):
                self.fail(f"{bits}-bit float", node)
            if isinstance(inner, Tree) and inner.data == "number" and str(inner.children[0]).startswith("0x"):
                return f"R.access({code}, 'f', {bits})", Ty("f", bits)     # 32'F(0xffc00000): a bit pattern
            return f"R.F({code}, {bits})", Ty("f", bits)
        signed = k == "I"
        if ty.kind == "f" and bits > 64:
            self.fail(f"{bits}-bit integer image of a float", node)
        if ty.kind == "f":
            return f"R.to_int({code}, {signed}, {min(bits, 64)})", Ty("i" if signed else "u", bits)
        if bits > 64:
            return f"R.wide({code})", Ty("wide", bits)
        if ty.kind == "lit":
            return f"R.cast_int({code}, {signed}, {bits})", Ty("i" if signed else "u", bits)
        return f"R.cast_int({code}, {signed}, {bits})", Ty("i" if signed else "u", bits)

    def x_concat(self, node):
        parts = []
        for c in node.children:
            code, ty = self.expr(c)
            if ty.kind == "lit":
                self.fail("unsized constant in {...}", node)
            parts.append(f"({code}, {ty.bits})")
        total = sum(self.expr(c)[1].bits for c in node.children)
        return f"R.concat([{', '.join(parts)}])", Ty("u" if total <= 64 else "wide", total)

    def x_ternary(self, node):
        c, _ = self.expr(node.children[0])
        a = self.expr(node.children[1])
        b = self.expr(node.children[2])
        ty = self.unify(a[1], b[1])
        return f"R.where(R.truth({c}), {self.coerce(a, ty)}, {self.coerce(b, ty)})", ty

    def x_unary(self, node):
        op = str(node.children[0])
        code, ty = self.expr(node.children[1])
        if op == "!":
            return f"(~R.truth({code}))", BOOL
        if op == "+":
            return code, ty
        if op == "-":
            if ty.kind in ("u",):
                return f"(R.U64(0) - R.raw({code}))", ty
            if ty.kind == "bool":
                return f"(-R.I({code}))", Ty("i", 64)
            return f"(-{code})", ty
        if op == "~":
            if ty.kind == "lit":
                return f"(~{code})", ty
            if ty.kind == "bool":
                return f"(~{code})", ty
            if ty.kind == "u" and ty.bits < 64:
                return f"(~R.raw({code}) & R.U64({(1 << ty.bits) - 1}))", ty
            return f"(~{code})", ty
        self.fail(f"unary {op}", node)

    def x_binop(self, node):
        a, op, b = node.children
        op = str(op)
        if op in ("==", "!=", "<>") and (_is_denorm(a) or _is_denorm(b)):
            x = self.expr(b if _is_denorm(a) else a)[0]
            return (f"R.is_denorm({x})" if op == "==" else f"(~R.is_denorm({x}))"), BOOL
        if op == "*" and _is_pow2(b):           # x * 2.0 ** n is ldexp: exact, no overflow of 2**n
            x, tx = self.expr(a)
            n, _ = self.expr(b.children[2])
            return f"R.ldexp({x}, {n})", tx
        return self.binop(op, self.expr(a), self.expr(b))

    def unify(self, ta: Ty, tb: Ty) -> Ty:
        if ta.kind == "lit":
            return tb
        if tb.kind == "lit":
            return ta
        if "wide" in (ta.kind, tb.kind):
            return Ty("wide", max(ta.bits, tb.bits))
        if ta.kind == "f" or tb.kind == "f":
            return Ty("f", max(t.bits for t in (ta, tb) if t.kind == "f"))
        if ta.kind == "bool" and tb.kind == "bool":
            return BOOL
        if ta.kind == "i" and tb.kind in ("i", "bool") or tb.kind == "i" and ta.kind == "bool":
            return Ty("i", max(ta.bits, tb.bits))
        return Ty("u", max(ta.bits, tb.bits))

    def coerce(self, e, ty: Ty) -> str:
        code, t = e
        if t == ty or ty.kind == "lit":
            return code
        if ty.kind == "wide":
            return f"R.wide({code})" if t.kind != "lit" else code
        if ty.kind == "f":
            if t.kind == "f" and t.bits == ty.bits:
                return code
            if t.kind == "lit":
                return code       # numpy keeps the array's float type for a Python scalar
            return f"R.F({code}, {ty.bits})"
        if ty.kind == "bool":
            return f"R.truth({code})" if t.kind != "lit" else f"bool({code})"
        if t.kind == "lit":
            return f"R.U64(({code}) & {(1 << 64) - 1})" if ty.kind == "u" else f"np.int64({code})"
        if t.kind == "f":
            return f"R.to_int({code}, {ty.kind == 'i'}, 64)"
        return f"R.I({code})" if ty.kind == "i" else f"R.U({code})"

    def binop(self, op, ea, eb):
        (ca, ta), (cb, tb) = ea, eb
        if op in ("&&", "||"):
            f = "&" if op == "&&" else "|"
            return f"(R.truth({ca}) {f} R.truth({cb}))", BOOL
        if op in ("<<", ">>"):
            if ta.kind == "lit":
                ta = Ty("i", 64)
                ca = f"np.int64({ca})"
            fn = "shl" if op == "<<" else "shr"
            if ta.kind == "f":
                self.fail("shift of a float")
            return f"R.{fn}({ca}, {cb})", ta
        if ta.kind == "lit" and tb.kind == "lit":
            pyop = {"<>": "!=", "/": "/" if "." in ca + cb else "//"}.get(op, op)
            cmp = op in ("==", "!=", "<>", "<", ">", "<=", ">=")
            return f"({ca} {pyop} {cb})", BOOL if cmp else LIT
        if op == "**":
            return f"R.power({ca}, {cb})", ta if ta.kind != "lit" else tb
        ty = self.unify(ta, tb)
        if ty.kind == "bool" and op not in ("==", "!=", "<>", "&", "|", "^"):
            ty = Ty("u", 1)
        xa, xb = self.coerce(ea, ty), self.coerce(eb, ty)
        if ty.kind == "bool" and op in ("&", "|", "^"):
            return f"({xa} {op} {xb})", BOOL
        if op == "<>" and ty.kind == "f":       # ordered less-or-greater: false for NaN
            return f"(({xa} < {xb}) | ({xa} > {xb}))", BOOL
        if op in ("==", "!=", "<>", "<", ">", "<=", ">="):
            pyop = "!=" if op == "<>" else op
            return f"({xa} {pyop} {xb})", BOOL
        if op == "/":
            if ty.kind == "f":
                return f"({xa} / {xb})", ty
            return f"R.idiv({xa}, {xb})", ty
        if op == "%":
            return f"R.imod({xa}, {xb})", ty
        if op in ("&", "|", "^") and ty.kind == "f":
            self.fail("bitwise operation on a float")
        return f"({xa} {op} {xb})", ty

    def x_call(self, node):
        fname = str(node.children[0])
        args = [c for c in node.children[1:] if c is not None]
        if fname in self.lambdas:
            return self.call_lambda(fname, args, node)
        if fname == "abs":
            code, ty = self.expr(args[0])
            return f"R.fabs({code})", ty
        coded = [self.expr(a) for a in args]
        if re.fullmatch(r"[vs]_[a-z0-9_]+", fname) and not hasattr(rtlib, fname):
            return self.call_instruction(fname.upper(), coded, node)
        if not hasattr(rtlib, fname):
            self.fail(f"function {fname}()", node)
        if self.round_mode and hasattr(rtlib, f"{fname}_{self.round_mode}"):
            fname = f"{fname}_{self.round_mode}"
        result = RESULT_TYPES.get(fname)
        ty = result(coded) if callable(result) else result or (coded[0][1] if coded else LIT)
        return f"R.{fname}({', '.join(c for c, _ in coded)})", ty

    def call_instruction(self, name, coded, node):
        """v_min_f32(a, b) inside another instruction's pseudocode: that instruction's own
        semantic, called with S0, S1, ... and returning its D0 (typed as its D0 operand)."""
        if name in ("V_NOP", "S_NOP"):
            return "None", LIT
        args = ", ".join(f"R.raw({c})" for c, _ in coded)
        ty = self.instruction_types(name, node)
        return f"R.access(R.call_instruction(ctx, {name!r}, [{args}]), {ty.kind!r}, {ty.bits})", ty

    def instruction_types(self, name, node) -> Ty:
        import isa
        for spec_name in ("gfx1100",):
            for d in isa.load(spec_name).lookup(name):
                t = d.operand_types.get("D0")
                if t:
                    return type_of_field(t.replace("pk_", "")) or Ty("u", 32)
        self.fail(f"function {name.lower()}()", node)

    def call_lambda(self, fname, args, node):
        lam = self.lambdas[fname]
        params = [str(p) for p in lam.children[0].children]
        body = lam.children[1]
        if len(args) != len(params):
            self.fail(f"{fname} takes {len(params)} arguments", node)
        saved_vars, saved_pred = dict(self.vars), self.pred
        for p, a in zip(params, args):
            code, ty = self.expr(a)
            py = self.pyname(p)
            self.emit(f"{py} = {code}")
            self.vars[p] = Var(ty)
        stmts = body.children
        if len(stmts) == 1 and stmts[0].data == "expr_stmt":
            code, ty = self.expr(stmts[0].children[0])
            res = self.fresh("r")
            self.emit(f"{res} = {code}")
        else:
            res, done = self.fresh("r"), self.fresh("done")
            self.emit(f"{res} = 0")
            self.emit(f"{done} = np.zeros(ctx.shape, bool)")
            self.returns.append((res, done))
            self.pred = None
            self.stmts(body)
            self.returns.pop()
            ty = Ty("u", 8)
        self.vars, self.pred = saved_vars, saved_pred
        return res, ty

    def x_lambda_(self, node):
        self.fail("lambda outside an assignment", node)

    def pyname(self, name: str) -> str:
        return f"v_{name}"

    def zero(self, ty: Ty) -> str:
        return f"R.FLOAT[{ty.bits}](0)" if ty.kind == "f" else ("np.int64(0)" if ty.kind == "i" else "R.U64(0)")

    # ---------- driver ----------
    def translate(self, tree: Tree) -> Result:
        self.scan_widths(tree)
        self.defined_operands = set()
        self.prologue = []
        self.declared_sized = {str(n.children[0]) for n in tree.iter_subtrees() if n.data == "declare"}
        self.stmts(tree.children[0])
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


def _is_name(node, names) -> bool:
    return isinstance(node, Tree) and node.data == "name" and str(node.children[0]) in names


def _is_operand(node) -> bool:
    return _is_name(node, OPERANDS)


def _is_pow2(node) -> bool:
    """`2.0 ** n` / `2.0F ** n`."""
    return (isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "**"
            and isinstance(node.children[0], Tree) and node.children[0].data == "number"
            and str(node.children[0].children[0]).rstrip("F") == "2.0")


def _is_const(node) -> bool:
    return isinstance(node, Tree) and node.data == "number"


def _is_denorm(node) -> bool:
    return isinstance(node, Tree) and node.data == "field" and _is_name(node.children[0], {"DENORM"})


def _first_float(coded):
    for _, t in coded:
        if t.kind == "f":
            return t
    return Ty("f", 64)


def _conv_type(fname):
    dst = fname.split("_to_")[1]
    return Ty("f", int(dst[1:])) if dst[0] == "f" else Ty(dst[0], int(dst[1:]))


BOOLS = ("isNAN", "isQuietNAN", "isSignalNAN", "isINF", "isEven")
RESULT_TYPES: dict = {n: BOOL for n in BOOLS}
RESULT_TYPES.update({"sign": Ty("u", 1), "exponent": Ty("i", 32), "countbits": Ty("i", 32),
                     "s_ff1_i32_b32": Ty("i", 32), "s_ff1_i32_b64": Ty("i", 32), "signext": Ty("i", 64),
                     "signextFromBit": Ty("i", 64), "bf16_to_f32": Ty("f", 32), "f32_to_bf16": Ty("u", 16),
                     "nop": LIT, "fma": _first_float, "ldexp": _first_float,
                     "f16_to_snorm": Ty("i", 16), "f32_to_snorm": Ty("i", 16),
                     "f16_to_unorm": Ty("u", 16), "f32_to_unorm": Ty("u", 16), "u4_to_u32": Ty("u", 32),
                     "v_cvt_i16_f32": Ty("i", 16), "v_cvt_u16_f32": Ty("u", 16), "f32_to_f16_rtz": Ty("f", 16),
                     "signext_from_bit": Ty("i", 64)})
for _n in dir(__import__("emu.rtlib", fromlist=["x"])):
    if re.fullmatch(r"[fiu]\d+_to_[fiu]\d+", _n):
        RESULT_TYPES[_n] = _conv_type(_n)

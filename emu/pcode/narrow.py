"""Statements whose arithmetic can stay in uint32: a faster translation of the commonest
pseudocode (`D0.u = S0.u + S1.u`, `EXEC.u64[laneId] = S0.u > S1.u`, `VDATA.b = MEM[ADDR].b`).

The general translation evaluates integers at 64-bit width and truncates on the store,
which costs a widening copy per operand and a narrowing copy per result. When a statement
stores into a location of at most 32 bits, its value only matters modulo 2**32, and
+ - * & | ^ ~ << give the same low 32 bits whatever happened above them, so such
expressions are evaluated on the machine's uint32 arrays directly. Each sub-expression
is tracked as a `Narrow`: `exact` when the uint32 holds the whole 64-bit value (an
unsigned operand field, a constant bit slice, a small constant), else only its low 32 bits
("wrapped"); `bits` mirrors the general translation's static width (it decides what `~`
masks) and `span` bounds an exact value (a 5-bit field needs no shift-count guard). Comparisons, >> and truth tests need exact operands; anything
else (floats, signed sub-dword fields, casts, calls, locals, wider constants) makes the
statement take the general path. The uint32 arrays may be the machine's register views:
the code only builds new arrays, never writes into one.
"""
from __future__ import annotations

import re

from lark import Tree

from isa.records import dataclass

from .types import LANE_ID_NAMES, LANE_MASKS, OPERANDS, Ty, is_name, type_of_field

_MASK32 = (1 << 32) - 1
_WRAPS = {"+", "-", "*"}                       # low 32 bits depend only on the operands' low 32 bits
_BITWISE = {"&", "|", "^"}
_COMPARE = {"==": "==", "!=": "!=", "<>": "!=", "<": "<", ">": ">", "<=": "<=", ">=": ">="}
_UFUNCS = {"+": "np.add", "-": "np.subtract", "*": "np.multiply", "&": "np.bitwise_and", "|": "np.bitwise_or",
           "^": "np.bitwise_xor", "<<": "np.left_shift", ">>": "np.right_shift"}
_NUMBER = re.compile(r"(0x[0-9a-fA-F]+|\d+)(ULL|LL|U)?")


@dataclass(frozen=True)
class Narrow:
    code: str           # Python source of a uint32 array or numpy uint32 scalar
    exact: bool         # holds the value itself (not just its low 32 bits)
    bits: int | None    # the general translation's static width (None: an unsized constant)
    span: int = 32      # an exact value is below 2**span (a 5-bit field: a shift count < 32)
    ufunc: tuple | None = None    # a binary operation on top: (numpy ufunc, code of x, code of y)


def _width(a: Narrow, b: Narrow) -> int | None:
    """The static width of a binary result, as the general translation's unify() gives it."""
    sized = [x.bits for x in (a, b) if x.bits is not None]
    return max(sized) if sized else None


class NarrowStatements:
    """Mixin of Translator: `narrow_assign` translates a statement in uint32 when it can."""

    def narrow_assign(self, target: Tree, value: Tree) -> bool:
        """Emit `target = value` evaluated in uint32 and return True, or return False (nothing
        emitted) when the statement needs the general 64-bit translation."""
        if self.saturate:
            return False               # wrapping uint32 arithmetic cannot saturate
        chain, node = [], target
        while isinstance(node, Tree) and node.data in ("field", "index", "slice"):
            chain.append(node)
            node = node.children[0]
        chain.reverse()
        if not isinstance(node, Tree):
            return False
        if node.data == "mem":
            nbytes = self.mem_width(chain, target)
            v = self.narrow_value(value)
            if v is None or nbytes > 4:
                return False
            addr, _ = self.expr(node.children[0])
            self.mem_write = True      # the memory keeps the low nbytes of each value
            self.emit(f"R.mem_store(ctx, {addr}, {nbytes}, {v.code}, {self.pred or 'None'})")
            return True
        if node.data != "name" or str(node.children[0]) not in OPERANDS or str(node.children[0]) in self.int_fields:
            return False
        name = str(node.children[0])
        if name in LANE_MASKS and not self.scalar and self._is_lane_bit(chain):
            cond = self.narrow_condition(value)
            if cond is None:
                return False
            self.write_lane_bit(name, cond)
            return True
        if not self.scalar and (name == "D1" or name == "VCC" and not chain):
            return False               # lane bits of a vector op too, as write() routes them
        base = self.operand_ty(name)
        if len(chain) == 1 and chain[0].data == "slice":
            return self._narrow_field_write(name, base, chain, value)
        t = type_of_field(str(chain[0].children[1])) if len(chain) == 1 and chain[0].data == "field" else \
            (base if not chain else None)
        if t is None or t.kind not in ("u", "i") or not t.bits <= base.bits <= 32:
            return False
        v = self.narrow_value(value)
        if v is None:
            cond = self.narrow_condition(value)
            if cond is None:
                return False
            v = Narrow(f"np.uint32({cond})", True, 1, 1)
        code = v.code if t.bits == 32 else f"({v.code} & np.uint32({(1 << t.bits) - 1}))"
        if name not in self.defined_operands:
            self.define_operand(name, partial=self.pred is not None)
        self.writes.setdefault(name, self.operand_write(name, base))
        if name == "D0" and self.pred is None and t.bits == 32 and v.ufunc is not None:
            # the whole result: computed into the destination register when the machine offers it
            ufunc, x, y = v.ufunc
            self.emit_direct(f"{name} = R.into(ctx, {name!r}, {ufunc}, {x}, {y})", f"{name} = R.owned({code})")
            return True
        self.emit(f"{name} = {self.guard(name, f'R.owned({code})')}")
        return True

    def _narrow_field_write(self, name, base, chain, value) -> bool:
        """`X[hi : lo] = v` with a constant field of at most 32 bits in an operand of at most
        64 (a dword of RETURN_DATA, the low half of a D16 result): v in uint32, the field set
        in place of the old bits."""
        s = chain[0]
        if not (all(isinstance(c, Tree) and c.data == "number" for c in s.children[1:]) and base.bits <= 64):
            return False
        hi, lo = (int(str(c.children[0]), 0) for c in s.children[1:])
        v = self.narrow_value(value) if 0 <= lo <= hi < lo + 32 else None
        if v is None:
            return False
        if name not in self.defined_operands:
            self.define_operand(name, partial=True)
        self.writes.setdefault(name, self.operand_write(name, base))
        self.emit(f"{name} = {self.guard(name, f'R.set_field({name}, {hi}, {lo}, {v.code})')}")
        return True

    # ---------------------------------------------------------------- values
    def narrow_value(self, node) -> Narrow | None:
        if not isinstance(node, Tree):
            return None
        method = getattr(self, f"narrow_{node.data}", None)
        return method(node) if method is not None else None

    def narrow_number(self, node) -> Narrow | None:
        m = _NUMBER.fullmatch(str(node.children[0]))
        if not m or int(m.group(1), 0) > _MASK32:
            return None                                   # floats, F suffix, 33+ bit constants
        value = int(m.group(1), 0)
        return Narrow(f"np.uint32({value})", True, None, value.bit_length())

    def narrow_sized_lit(self, node) -> Narrow | None:
        bits, rest = str(node.children[0]).split("'", 1)
        m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)([UB]?)", rest)
        if not m or int(m.group(1), 0) > _MASK32:
            return None                                   # negative, float, signed or wide literals
        value = int(m.group(1), 0)
        return Narrow(f"np.uint32({value})", True, int(bits), value.bit_length())

    def narrow_name(self, node) -> Narrow | None:
        name = str(node.children[0])
        if name in LANE_ID_NAMES:
            return Narrow("ctx.lane_id", True, 32, 6)
        operand = self._narrow_operand(node)
        if operand is None:
            return None
        code, ty = operand
        return Narrow(f"R.u32({code})", True, ty.bits, ty.bits) if ty.kind == "u" and ty.bits <= 32 else None

    def _narrow_operand(self, node):
        """(variable, type) of an operand the machine supplies as an array, or None."""
        if not is_name(node, OPERANDS) or str(node.children[0]) in self.int_fields:
            return None
        code, ty = self.read_operand(str(node.children[0]))
        return None if ty.kind == "dw" else (code, ty)

    def narrow_field(self, node) -> Narrow | None:
        base, ty = node.children[0], type_of_field(str(node.children[1]))
        if ty is None or ty.kind not in ("u", "i") or ty.bits > 32 or (ty.kind == "i" and ty.bits < 32):
            return None                # floats, 64-bit fields, sign-extended sub-dword fields
        if isinstance(base, Tree) and base.data == "mem":
            if ty.bits not in (8, 16, 32):
                return None
            addr, _ = self.expr(base.children[0])
            self.mem_read = True
            v = Narrow(f"R.mem_load(ctx, {addr}, {ty.bits // 8}, {self.pred or 'None'}, narrow=True)", True,
                       ty.bits, ty.bits)
        elif isinstance(base, Tree) and base.data == "slice":
            v = self.narrow_slice(base)
        else:
            operand = self._narrow_operand(base)
            v = Narrow(f"R.u32({operand[0]})", True, 32) if operand is not None else None
        if v is None:
            return None
        if ty.bits < v.span:
            v = Narrow(f"({v.code} & np.uint32({(1 << ty.bits) - 1}))", True, ty.bits, ty.bits)
        # a signed 32-bit field has the same bits, but as a value it is not the unsigned one
        return Narrow(v.code, v.exact and ty.kind == "u", ty.bits, v.span)

    def narrow_slice(self, node) -> Narrow | None:
        base, hi, lo = node.children
        if not (isinstance(hi, Tree) and hi.data == "number" and isinstance(lo, Tree) and lo.data == "number"):
            return None
        h, lo_ = int(str(hi.children[0]), 0), int(str(lo.children[0]), 0)
        if not 0 <= lo_ <= h < lo_ + 32:
            return None
        width = h - lo_ + 1
        operand = self._narrow_operand(base)
        if operand is not None:
            return Narrow(f"R.field32({operand[0]}, {h}, {lo_})", True, width, width)
        v = self.narrow_value(base)          # a field of another exact value (S1.u[4 : 0])
        if v is None or not v.exact or h >= 32:
            return None
        shifted = f"({v.code} >> np.uint32({lo_}))" if lo_ else v.code
        return Narrow(f"({shifted} & np.uint32({(1 << width) - 1}))", True, width, width)

    def narrow_cast(self, node) -> Narrow | None:
        """N'U(x) / N'B(x) / 64'I(x): truncation to N <= 32 bits makes any value exact."""
        bits, kind = int(str(node.children[0]).split("'")[0]), str(node.children[0]).split("'")[1][0]
        v = self.narrow_value(node.children[1])
        if v is None or kind not in "UBI" or bits > 64 or (kind == "I" and bits < 32):
            return None
        if kind == "I":                      # sign extension: only a 64-bit image of an exact value keeps it
            return Narrow(v.code, v.exact and bits == 64, bits, v.span)
        if bits < v.span:
            return Narrow(f"({v.code} & np.uint32({(1 << bits) - 1}))", True, bits, bits)
        return Narrow(v.code, v.exact or bits <= 32, bits, v.span)

    def narrow_index(self, node) -> Narrow | None:
        cond = self.narrow_lane_bit(node)
        return None if cond is None else Narrow(f"np.uint32({cond})", True, 1, 1)

    def narrow_lane_bit(self, node) -> str | None:
        """`VCC.u64[laneId]`: this lane's bit of a per-wave lane mask, as a bool array."""
        base, idx = node.children
        if not (is_name(idx, LANE_ID_NAMES) and isinstance(base, Tree) and base.data == "field"
                and type_of_field(str(base.children[1])) == Ty("u", 64)):
            return None
        operand = self._narrow_operand(base.children[0])
        return None if operand is None else f"R.lane_bit({operand[0]}, ctx)"

    def narrow_unary(self, node) -> Narrow | None:
        op, v = str(node.children[0]), self.narrow_value(node.children[1])
        if v is None:
            return None
        if op == "+":
            return v
        if op == "-":
            return Narrow(f"(np.uint32(0) - {v.code})", False, v.bits)
        if op == "~" and v.bits is not None:
            mask = "" if v.bits >= 32 else f" & np.uint32({(1 << v.bits) - 1})"
            return Narrow(f"(~{v.code}{mask})", v.exact, v.bits, min(v.bits, 32))
        return None

    def narrow_binop(self, node) -> Narrow | None:
        a, op, b = node.children[0], str(node.children[1]), node.children[2]
        if op not in _WRAPS | _BITWISE | {"<<", ">>"}:
            return None
        x, y = self.narrow_value(a), self.narrow_value(b)
        if x is None or y is None:
            return None
        width = _width(x, y)
        top = (_UFUNCS[op], x.code, y.code)
        if op in _WRAPS:
            return Narrow(f"({x.code} {op} {y.code})", False, width, ufunc=top)
        if op in _BITWISE:
            span = min(x.span, y.span) if op == "&" else max(x.span, y.span)
            return Narrow(f"({x.code} {op} {y.code})", x.exact and y.exact, width, span, ufunc=top)
        if not y.exact or (op == ">>" and not x.exact):
            return None                # a count, or bits shifted down, must be the value itself
        small = y.span <= 5            # the count is always < 32: the host shift is exact
        if op == "<<":
            code = f"({x.code} << {y.code})" if small else f"R.shl32({x.code}, {y.code})"
            return Narrow(code, False, x.bits, ufunc=top if small else None)
        code = f"({x.code} >> {y.code})" if small else f"R.shr32({x.code}, {y.code})"
        return Narrow(code, True, x.bits, x.span)

    def narrow_ternary(self, node) -> Narrow | None:
        cond = self.narrow_condition(node.children[0])
        x, y = self.narrow_value(node.children[1]), self.narrow_value(node.children[2])
        if cond is None or x is None or y is None:
            return None
        return Narrow(f"R.select({cond}, {x.code}, {y.code})", x.exact and y.exact, _width(x, y), max(x.span, y.span))

    # ---------------------------------------------------------------- conditions
    def narrow_condition(self, node) -> str | None:
        """Source of a bool array (or bool) for a condition on exact uint32 values, or None."""
        if not isinstance(node, Tree):
            return None
        if node.data == "binop":
            a, op, b = node.children[0], str(node.children[1]), node.children[2]
            if op in ("&&", "||"):
                x, y = self.narrow_condition(a), self.narrow_condition(b)
                return None if x is None or y is None else f"({x} {'&' if op == '&&' else '|'} {y})"
            if op in _COMPARE:
                x, y = self.narrow_value(a), self.narrow_value(b)
                if x is None or y is None or not (x.exact and y.exact):
                    return None
                return f"({x.code} {_COMPARE[op]} {y.code})"
        if node.data == "index":
            return self.narrow_lane_bit(node)
        if node.data == "unary" and str(node.children[0]) == "!":
            c = self.narrow_condition(node.children[1])
            return None if c is None else f"(~{c})"
        v = self.narrow_value(node)
        return f"({v.code} != 0)" if v is not None and v.exact else None

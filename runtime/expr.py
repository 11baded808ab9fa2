"""Assembler expressions (`.set`, `.size`, data and `.amdhsa_*` values): integers, symbols,
`.` (the current location), + - * / % << >> & | ^ ~ ! and max/min, as GNU as evaluates
them. A symbol that is an address inside a section stays symbolic (Address) so that data
can be relocated; differences of two addresses in one section are plain integers."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_SYMBOL = re.compile(r'"[^"]*"|(?<![\w.$])(?:[A-Za-z_.$][\w.$]*)')
_NUMBER = re.compile(r"\b0[bB][01]+\b|\b0[xX][0-9a-fA-F]+\b|\b\d+\b")
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.FloorDiv: lambda a, b: a // b, ast.Div: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
           ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b}
_FUNCS = {"max": lambda *a: max(a), "min": lambda *a: min(a)}
_CALL = "_fn_"      # prefix a function name gets, so `or(...)` is not read as Python's `or`


class ExprError(ValueError):
    pass


class UndefinedSymbol(ExprError):
    """A symbol not defined (yet): data may wait for labels further down."""


@dataclass(frozen=True)
class Address:
    """section + offset: a location whose absolute value is fixed only at load time."""
    section: str
    offset: int
    symbol: str | None = None

    def __add__(self, other):
        if isinstance(other, int):
            return Address(self.section, self.offset + other, self.symbol)
        raise ExprError("adding two addresses has no meaning")

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, int):
            return Address(self.section, self.offset - other, self.symbol)
        if isinstance(other, Address) and other.section == self.section:
            return self.offset - other.offset
        raise ExprError(f"difference of addresses in different sections ({self.section}, "
                        f"{getattr(other, 'section', '?')}) is not known until load time")


def amdgpu_functions(target) -> dict:
    """The functions LLVM's AMDGPU backend writes into `.set` and `.amdhsa_*` values (see
    AMDGPUUsage, "AMDGPU MC expressions"), with their meaning on `target`."""
    def extrasgprs(vcc_used, flat_scratch_used, xnack_used):
        # SGPRs reserved after the numbered ones: VCC (2); on gfx9 also flat scratch (always
        # reserved where it is architected, gfx94x/gfx950) or the XNACK mask, which gfx10+
        # keep outside the numbered file.
        if target.major >= 10:
            return 2 if vcc_used else 0
        architected_flat_scratch = target.major == 9 and target.name >= "gfx940"
        if flat_scratch_used or architected_flat_scratch:
            return 6
        return 4 if xnack_used else (2 if vcc_used else 0)

    def totalnumvgprs(agprs, vgprs):
        # CDNA2+ put AGPRs after the VGPRs (4-aligned) in one file; earlier ones have two files.
        if target.gfx90a_plus and agprs:
            return -(-vgprs // 4) * 4 + agprs
        return max(vgprs, agprs)

    def occupancy(*args):
        raise ExprError("occupancy(...) is not supported in values the assembler needs")

    return {**_FUNCS, "or": lambda *a: _fold(lambda x, y: x | y, a), "alignto": lambda x, a: -(-x // a) * a,
            "extrasgprs": extrasgprs, "totalnumvgprs": totalnumvgprs, "occupancy": occupancy}


def _fold(op, args):
    out = args[0]
    for a in args[1:]:
        out = op(out, a)
    return out


def evaluate(text: str, lookup, functions: dict | None = None) -> int | Address:
    """Value of `text`; lookup(name) gives a symbol's int or Address (KeyError: undefined);
    `functions` (default max, min) are the NAME(args) calls allowed."""
    names: dict[str, str] = {}
    functions = _FUNCS if functions is None else functions

    def name_token(m):
        tok = m.group(0)
        if tok.startswith('"'):
            raise ExprError(f"a string is not a number: {tok}")
        if tok in functions:
            return _CALL + tok
        key = f"_sym{len(names)}"
        names[key] = tok
        return key

    pieces, pos = [], 0
    for m in _NUMBER.finditer(text):        # numbers first, so 0x1f is not a symbol 'x1f'
        pieces.append(_SYMBOL.sub(name_token, text[pos:m.start()]))
        pieces.append(str(int(m.group(0), 0)))
        pos = m.end()
    pieces.append(_SYMBOL.sub(name_token, text[pos:]))
    src = "".join(pieces).replace("!=", "<>").replace("!", " not ").replace("<>", "!=").replace("/", "//").replace("////", "//")
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        raise ExprError(f"cannot read expression {text.strip()!r}") from None
    return _eval(tree.body, names, lookup, text, functions)


def _eval(node, names, lookup, text, functions=_FUNCS):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and (node.id in names or node.id.startswith(_CALL)):
        name = names.get(node.id) or node.id[len(_CALL):]      # a function name not called is a symbol
        try:
            return lookup(name)
        except KeyError:
            raise UndefinedSymbol(f"undefined symbol {name!r} in {text.strip()!r}") from None
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _eval(node.left, names, lookup, text, functions), _eval(node.right, names, lookup, text, functions)
        if isinstance(a, Address) or isinstance(b, Address):
            if type(node.op) is ast.Add:
                return a + b
            if type(node.op) is ast.Sub:
                return a - b
            raise ExprError(f"{text.strip()!r}: only + and - apply to addresses")
        if type(node.op) in (ast.FloorDiv, ast.Div, ast.Mod) and b == 0:
            raise ExprError(f"division by zero in {text.strip()!r}")
        return _BINOPS[type(node.op)](a, b)
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, names, lookup, text, functions)
        if isinstance(v, Address):
            raise ExprError(f"{text.strip()!r}: an address cannot be negated")
        return {ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Invert: lambda x: ~x,
                ast.Not: lambda x: int(not x)}[type(node.op)](v)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith(_CALL) \
            and node.args:
        fname = node.func.id[len(_CALL):]
        args = [_eval(a, names, lookup, text, functions) for a in node.args]
        if any(isinstance(a, Address) for a in args):
            raise ExprError(f"{text.strip()!r}: {fname}() of addresses")
        try:
            return functions[fname](*args)
        except TypeError:
            raise ExprError(f"{text.strip()!r}: wrong number of arguments to {fname}()") from None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval(node.left, names, lookup, text, functions), _eval(node.comparators[0], names, lookup, text, functions)
        ops = {ast.Lt: a < b, ast.Gt: a > b, ast.LtE: a <= b, ast.GtE: a >= b, ast.Eq: a == b, ast.NotEq: a != b}
        return int(ops[type(node.ops[0])])
    raise ExprError(f"cannot evaluate {text.strip()!r}")


def split_args(text: str) -> list[str]:
    """Comma-separated directive arguments, commas inside parentheses or quotes kept."""
    out, depth, cur, quoted = [], 0, [], False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur or out:
        out.append("".join(cur).strip())
    return out

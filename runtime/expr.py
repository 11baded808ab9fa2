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
_FUNCS = {"max": max, "min": min}


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


def evaluate(text: str, lookup) -> int | Address:
    """Value of `text`; lookup(name) gives a symbol's int or Address (KeyError: undefined)."""
    names: dict[str, str] = {}

    def name_token(m):
        tok = m.group(0)
        if tok.startswith('"'):
            raise ExprError(f"a string is not a number: {tok}")
        if tok in _FUNCS:
            return tok
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
    return _eval(tree.body, {k: v for k, v in names.items()}, lookup, text)


def _eval(node, names, lookup, text):
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        try:
            return lookup(names[node.id])
        except KeyError:
            raise UndefinedSymbol(f"undefined symbol {names[node.id]!r} in {text.strip()!r}") from None
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = _eval(node.left, names, lookup, text), _eval(node.right, names, lookup, text)
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
        v = _eval(node.operand, names, lookup, text)
        if isinstance(v, Address):
            raise ExprError(f"{text.strip()!r}: an address cannot be negated")
        return {ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Invert: lambda x: ~x,
                ast.Not: lambda x: int(not x)}[type(node.op)](v)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS and node.args:
        args = [_eval(a, names, lookup, text) for a in node.args]
        if any(isinstance(a, Address) for a in args):
            raise ExprError(f"{text.strip()!r}: max/min of addresses")
        return _FUNCS[node.func.id](args)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval(node.left, names, lookup, text), _eval(node.comparators[0], names, lookup, text)
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

"""Assembler expressions (`.set`, `.size`, data and `.amdhsa_*` values) with the meaning
LLVM's MC layer gives them: 64-bit two's complement integers that wrap, `/` and `%`
truncating toward zero, comparisons giving -1 (true) or 0, `>>` a logical shift, `a ! b`
meaning a | ~b, GNU as operator precedence, and the AMDGPU functions (max, or, alignto,
extrasgprs, totalnumvgprs). A symbol that is an address inside a section stays symbolic
(Address) so that data can be relocated; differences of two addresses in one section are
plain integers.

An expression is read once into postfix order (shunting-yard, no recursion: a 100,000-term
sum or unary chain costs memory, not stack) and then evaluated on a value stack."""
from __future__ import annotations

import re
from functools import lru_cache

from isa.records import dataclass

MASK64 = (1 << 64) - 1
MAX_EXPRESSION = 1 << 17        # characters: a longer "expression" is a mistake, not arithmetic


class ExprError(ValueError):
    pass


class UndefinedSymbol(ExprError):
    """A symbol not defined (yet): data may wait for labels further down."""

    def __init__(self, message: str, name: str = ""):
        super().__init__(message)
        self.name = name


def wrap(v: int) -> int:
    """v as a signed 64-bit value (what LLVM's int64_t arithmetic leaves)."""
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


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


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _divide(a: int, b: int, remainder: bool) -> int:
    if b == 0:
        raise ExprError("division by zero")
    if a == -(1 << 63) and b == -1:
        raise ExprError(f"{a} {'%' if remainder else '/'} -1 overflows 64 bits")
    q = _tdiv(a, b)
    return a - b * q if remainder else q


# GNU as precedence as LLVM's AsmParser gives it (higher binds tighter); all left-associative.
BINARY = {
    "||": (1, lambda a, b: int(bool(a) or bool(b))), "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "==": (3, lambda a, b: -(a == b)), "!=": (3, lambda a, b: -(a != b)), "<>": (3, lambda a, b: -(a != b)),
    "<": (3, lambda a, b: -(a < b)), "<=": (3, lambda a, b: -(a <= b)), ">": (3, lambda a, b: -(a > b)),
    ">=": (3, lambda a, b: -(a >= b)),
    "+": (4, lambda a, b: a + b), "-": (4, lambda a, b: a - b),
    "|": (5, lambda a, b: a | b), "!": (5, lambda a, b: a | ~b), "^": (5, lambda a, b: a ^ b),
    "&": (5, lambda a, b: a & b),
    "*": (6, lambda a, b: a * b), "/": (6, lambda a, b: _divide(a, b, False)),
    "%": (6, lambda a, b: _divide(a, b, True)),
    # the shift count is taken modulo 64, as the x86-64 build of LLVM's assembler does
    "<<": (6, lambda a, b: a << (b & 63)), ">>": (6, lambda a, b: (a & MASK64) >> (b & 63)),
}
UNARY = {"-": lambda a: -a, "+": lambda a: a, "~": lambda a: ~a, "!": lambda a: int(not a)}


def _max(*a):
    return max(a)


def _or(*a):
    out = 0
    for x in a:
        out |= x
    return out


FUNCTIONS = {"max": _max, "or": _or}


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

    def alignto(x, a):
        if a <= 0:
            raise ExprError(f"alignto({x}, {a}): the alignment must be positive")
        return ((x & MASK64) + a - 1) // a * a       # LLVM's alignTo on uint64_t

    def occupancy(*args):
        raise ExprError("occupancy(...) is not supported in values the assembler needs")

    return {**FUNCTIONS, "alignto": alignto, "extrasgprs": extrasgprs, "totalnumvgprs": totalnumvgprs,
            "occupancy": occupancy}


ARITY = {"alignto": (2, 2), "extrasgprs": (3, 3), "totalnumvgprs": (2, 2)}

_TOKEN = re.compile(r"""\s*(?:
    (?P<num>\d[\w]*)
  | (?P<char>'(?:\\.|[^\\'])')
  | (?P<name>[A-Za-z_.$][\w.$]*|"[^"]*")
  | (?P<op>\|\||&&|==|!=|<>|<=|>=|<<|>>|[-+*/%|&^!~<>(),])
  | (?P<bad>\S))""", re.X)
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*")
_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "b": 8, "f": 12}


def _number(tok: str) -> int:
    if not _NUMBER.fullmatch(tok):
        if re.fullmatch(r"\d+[bf]", tok):
            raise ExprError(f"directional label {tok!r} is not supported; name the label")
        raise ExprError(f"{tok!r} is not a number")
    base = 16 if tok[1:2] in "xX" and len(tok) > 1 else 2 if tok[1:2] in "bB" and len(tok) > 1 else \
        8 if tok.startswith("0") and len(tok) > 1 else 10
    if len(tok) > 70:
        raise ExprError(f"literal {tok[:20]}... is out of range (64 bits)")
    v = int(tok[2:] if base in (2, 16) else tok, base)
    if v > MASK64:
        raise ExprError(f"literal {tok} is out of range (64 bits)")
    return wrap(v)


def _char(tok: str) -> int:
    body = tok[1:-1]
    if body.startswith("\\"):
        if body[1] not in _CHAR_ESCAPES:
            raise ExprError(f"unknown escape in character {tok}")
        return _CHAR_ESCAPES[body[1]]
    return ord(body)


# postfix program items: ("n", value) a number, ("s", name) a symbol, ("u", op), ("b", op),
# ("f", name, argument count)
@lru_cache(maxsize=4096)
def compile_expression(text: str, functions: frozenset) -> tuple:
    """`text` in postfix order (shunting-yard); ExprError for anything LLVM would not read."""
    if len(text) > MAX_EXPRESSION:
        raise ExprError(f"expression of {len(text)} characters (at most {MAX_EXPRESSION})")
    out: list = []
    ops: list = []        # ("u", op) / ("b", op, prec) / ("(",) / ("call", name, [argc])
    expect_operand = True
    tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(text) if m.lastgroup]
    i = 0
    while i < len(tokens):
        kind, tok = tokens[i]
        if kind == "bad":
            raise ExprError(f"unexpected character {tok!r}")
        if expect_operand:
            if kind == "num":
                out.append(("n", _number(tok)))
                expect_operand = False
            elif kind == "char":
                out.append(("n", _char(tok)))
                expect_operand = False
            elif kind == "name":
                if tok in functions and i + 1 < len(tokens) and tokens[i + 1][1] == "(":
                    if ops and ops[-1][0] == "u" and tokens[i - 1][1] == ops[-1][1]:
                        # LLVM's assembler reads NAME( only where a whole operand starts: "-max(1, 2)" is
                        # refused there, "-(max(1, 2))" is not
                        raise ExprError(f"{tok}(...) right after a unary {ops[-1][1]!r}; write "
                                        f"{ops[-1][1]}({tok}(...))")
                    if i + 2 < len(tokens) and tokens[i + 2][1] == ")":
                        raise ExprError(f"empty {tok} expression")
                    ops.append(("call", tok, [1]))
                    i += 1                      # the "(" belongs to the call
                else:
                    out.append(("s", tok.strip('"')))
                    expect_operand = False
            elif tok in UNARY:
                ops.append(("u", tok))
            elif tok == "(":
                ops.append(("(",))
            else:
                raise ExprError(f"expected a value, got {tok!r}" if tok else "expected a value")
        else:
            if kind == "op" and tok in BINARY:
                prec = BINARY[tok][0]
                while ops and (ops[-1][0] == "u" or (ops[-1][0] == "b" and ops[-1][2] >= prec)):
                    out.append(ops.pop()[:2])
                ops.append(("b", tok, prec))
                expect_operand = True
            elif tok in (",", ")"):
                while ops and ops[-1][0] in ("u", "b"):
                    out.append(ops.pop()[:2])
                if not ops:
                    raise ExprError(f"unexpected {tok!r}")
                if tok == ",":
                    if ops[-1][0] != "call":
                        raise ExprError("unexpected ','")
                    ops[-1][2][0] += 1
                    expect_operand = True
                else:
                    top = ops.pop()
                    if top[0] == "call":
                        out.append(("f", top[1], top[2][0]))
            else:
                raise ExprError(f"expected an operator, got {tok!r}")
        i += 1
    if expect_operand:
        raise ExprError("missing expression" if not tokens else "expression ends where a value is expected")
    while ops:
        top = ops.pop()
        if top[0] in ("(", "call"):
            raise ExprError("expected ')'")
        out.append(top[:2])
    return tuple(out)


def evaluate(text: str, lookup, functions: dict | None = None) -> int | Address:
    """Value of `text`; lookup(name) gives a symbol's int or Address (KeyError: undefined);
    `functions` (default max, or) are the NAME(args) calls allowed."""
    functions = FUNCTIONS if functions is None else functions
    try:
        program = compile_expression(text.strip(), frozenset(functions))
    except ExprError as e:
        raise ExprError(f"{e} in {_quote(text)}") from None
    stack: list = []
    try:
        for item in program:
            kind = item[0]
            if kind == "n":
                stack.append(item[1])
            elif kind == "s":
                try:
                    v = lookup(item[1])
                except KeyError:
                    raise UndefinedSymbol(f"undefined symbol {item[1]!r} in {_quote(text)}", item[1]) from None
                stack.append(wrap(v) if isinstance(v, int) else v)
            elif kind == "u":
                v = stack.pop()
                if isinstance(v, Address):
                    raise ExprError(f"{item[1]} of an address")
                stack.append(wrap(UNARY[item[1]](v)))
            elif kind == "b":
                b, a = stack.pop(), stack.pop()
                stack.append(_binary(item[1], a, b))
            else:
                _, name, argc = item
                args = stack[len(stack) - argc:]
                del stack[len(stack) - argc:]
                if any(isinstance(a, Address) for a in args):
                    raise ExprError(f"{name}() of an address")
                lo, hi = ARITY.get(name, (1, 1 << 30))
                if not lo <= argc <= hi:
                    raise ExprError(f"{name}() takes {lo if lo == hi else f'at least {lo}'} argument(s), got {argc}")
                stack.append(wrap(functions[name](*args)))
    except UndefinedSymbol:
        raise
    except ExprError as e:
        raise ExprError(f"{e} in {_quote(text)}") from None
    return stack[0]


def _binary(op: str, a, b):
    if isinstance(a, Address) or isinstance(b, Address):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        raise ExprError(f"only + and - apply to addresses ({op!r})")
    return wrap(BINARY[op][1](a, b))


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 80 else text[:60] + "..." + text[-10:])


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

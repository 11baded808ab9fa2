"""The one split of an instruction's pseudocode into statements, as token tuples: what the
generator's readers (isa/gen/effects.py) and isa.code_facts read the code from.

    from isa.pcode_statements import statements, assignment
    statements("tmp = MEM[ADDR].u;")     # (('tmp', '=', 'MEM', '[', 'ADDR', ']', '.', 'u'),)
    assignment(('D0', '+=', 'S0'))        # (('D0',), '+=', ('S0',))"""
from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"\d+'[A-Za-z0-9_.]*|0x[0-9A-Fa-f]+[A-Za-z]*|\d+(\.\d+)?[A-Za-z]*|[A-Za-z_]\w*|"
                    r"==|!=|<=|>=|\+=|-=|\*=|\|=|&=|\^=|<<=|>>=|&&|\|\||<<|>>|\n|\S")
COMPOUND = {"+=", "-=", "*=", "|=", "&=", "^=", "<<=", ">>="}

EVAL = re.compile(r'\beval\s+"([^"]*)"')
SHAPE = re.compile(r"\.(\w+)\(\s*\d+\s*x\s*\d+\s*\)")
OPERAND_SHAPE = re.compile(r"\b(D0|S0|S1|S2)\.[a-z]+(\d+)\((\d+)x(\d+)")


def _matrix(m: re.Match) -> str:
    """`.f32(16x16)`: a whole matrix, `.f32`; a matrix of 16-bit elements fills one half of
    each register (OPSEL picks which: the manual's WMMA section), so it is a part: `.f16[half]`."""
    return f".{m.group(1)}" + ("[half]" if m.group(1).endswith("16") else "")


def tokens(pcode: str) -> list[str]:
    text = re.sub(r"//[^\n]*", "", pcode)
    # WMMA: `eval "D0.f32(16x16) = S0.f16(16x16) * ..."` states the statement as a string, its
    # operands as matrices (the (MxN) shape): read it as the statement it quotes
    text = EVAL.sub(lambda m: SHAPE.sub(_matrix, m.group(1)), text)
    return [m.group(0) for m in _TOKEN.finditer(text)]


def split(toks: list[str]) -> list[list[str]]:
    """Split at ';' and newlines outside brackets; an if/elsif/while/for header runs on to
    its then/do, and the statement after then/do/else starts fresh."""
    out, cur, depth, header = [], [], 0, False
    for t in toks:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth = max(depth - 1, 0)
        if depth == 0 and not header and t in (";", "\n"):
            if cur:
                out.append(cur)
            cur = []
            continue
        if t == "\n":
            continue
        if depth == 0 and not cur and t in ("if", "elsif", "while", "for"):
            header = True
        cur.append(t)
        if depth == 0 and header and t in ("then", "do"):
            out.append(cur)
            cur, header = [], False
        elif depth == 0 and not header and t == "else" and len(cur) == 1:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def assignment_at(s: list) -> int | None:
    """Where the assignment operator (`=` or a compound one) of a statement sits at bracket depth 0,
    or None (no assignment, or a conditional expression's `?` first)."""
    depth = 0
    for i, t in enumerate(s):
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif depth == 0 and (t == "=" or t in COMPOUND):
            return i
        elif depth == 0 and t == "?":
            return None
    return None



@lru_cache(maxsize=None)
def statements(pcode: str | None) -> tuple:
    """The code's statements as token tuples (comments dropped, WMMA's quoted statement read as
    itself), the same split the analysis reads: `tmp = MEM[ADDR].u;` is ('tmp', '=', 'MEM', '[',
    'ADDR', ']', '.', 'u'); an if/elsif/while/for header is one statement up to its then/do.
    Unbalanced code splits as far as it can. Empty for no code."""
    if not pcode:
        return ()
    return tuple(tuple(s) for s in split(tokens(pcode.replace(".\n", "\n"))))


def assignment(statement) -> tuple | None:
    """(target tokens, operator, value tokens) of an assignment statement (`=` or a compound
    `+=` ... at bracket depth 0, not a conditional expression's), else None."""
    s = list(statement)
    eq = assignment_at(s)
    return None if eq is None else (tuple(s[:eq]), s[eq], tuple(s[eq + 1:]))

"""Parse AMD pseudocode with the lark grammar in pcode.lark.

    from isa.pcode.grammar import parse
    parse("D0.f = S0.f + S1.f;")      # lark Tree('start', [Tree('stmts', [Tree('assign', ...)])])"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import lark


class PcodeSyntaxError(ValueError):
    """The pseudocode text is not in the language pcode.lark describes."""


@lru_cache(maxsize=1)
def parser() -> lark.Lark:
    grammar = resources.files(__package__).joinpath("pcode.lark").read_text()
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


# The manual names a local array `in` (v_perm_b32, v_fma_mix_*), which is also the for-loop
# keyword; a name followed by '[' or ':' is never the keyword.
_IN_AS_NAME = re.compile(r"\bin\b(?=\s*(\[|:))")


def parse(text: str, name: str = "?") -> lark.Tree:
    """The syntax tree of `text`; PcodeSyntaxError names `name`, the line and column otherwise."""
    try:
        return parser().parse(_IN_AS_NAME.sub("in_", text))
    except lark.exceptions.UnexpectedInput as e:
        line = text.splitlines()[e.line - 1] if 0 < getattr(e, "line", 0) <= len(text.splitlines()) else ""
        raise PcodeSyntaxError(f"{name}: pseudocode line {e.line} column {e.column}: "
                               f"cannot parse {line.strip()!r}") from None

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


# The manual names a local `in` (v_perm_b32, v_fma_mix_*, CDNA4's v_prng_b32), which is also the
# for-loop keyword: `in` is the keyword only after `for NAME`, elsewhere the name `in_`.
_IN = re.compile(r"\b(for\s+\w+\s+)in\b|\bin\b")


def _in_as_name(text: str) -> str:
    return _IN.sub(lambda m: m.group(0) if m.group(1) else "in_", text)


def parse(text: str, name: str = "?") -> lark.Tree:
    """The syntax tree of `text`; PcodeSyntaxError names `name`, the line and column otherwise."""
    try:
        return parser().parse(_in_as_name(text))
    except lark.exceptions.UnexpectedInput as e:
        line = text.splitlines()[e.line - 1] if 0 < getattr(e, "line", 0) <= len(text.splitlines()) else ""
        raise PcodeSyntaxError(f"{name}: pseudocode line {e.line} column {e.column}: "
                               f"cannot parse {line.strip()!r}") from None

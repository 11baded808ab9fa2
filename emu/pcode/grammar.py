"""The pseudocode parser the translator reads: isa's one grammar (isa/pcode/pcode.lark), its
syntax errors raised as the emulator's SemanticsError."""
from __future__ import annotations

import lark

from isa.pcode import grammar

from ..semantics import SemanticsError

class PcodeSyntaxError(SemanticsError):
    """The pseudocode text is not in the language pcode.lark describes."""


def parse(text: str, name: str = "?") -> lark.Tree:
    try:
        return grammar.parse(text, name)
    except grammar.PcodeSyntaxError as e:
        raise PcodeSyntaxError(str(e)) from None

"""The lexer of an assembly line: one regular expression cuts a line into tokens, and a token's
text alone says what it is (a register, a number, a word, a punctuation mark), so each
distinct text is classified once. asm_parse.py reads the tokens; nothing else cuts an
instruction line into pieces.

A token carries the blanks before it (" v2" after "v1,"): its column is the sum of the
lengths before it, and whether a blank precedes it is the parser's business in a few places
(a label's colon, an or-bar between two values). The last alternative takes any one
character, so no character of a line is skipped (blanks at its end are no token)."""
from __future__ import annotations

import re

from .operands import Agpr, OperandError, Reg

BLANKS = " \t\f\r"

tokens = re.compile(r"""[ \t\f\r]*+(?:
    (?://|;|\#).*+                                      # comment to the end of the line
  | (?:v|s|ttmp|a)\[\d++(?::\d++)?\]                    # register range v[0:1], s[4]
  | 0[xX][0-9a-fA-F]++ | 0[bB][01]++                    # hex and binary integers
  | \d++(?:\.\d*+)?(?:[eE][-+]?\d++)?                   # decimal integer or float
  | [A-Za-z_.$][\w.$@]*+                                # word: mnemonic, register, name, key, symbol
  | "[^"\n]*+"                                          # string
  | ::                                                  # between the two halves of a VOPD pair
  | .                                                   # one punctuation mark (or a stray character)
)""", re.X).findall
"""tokens(line) -> the token texts of one line (without its newline), blanks before each kept."""

# token kinds; a punctuation token's kind is its character (",", "(", "|", "-", ...)
REG = "register"            # value: Reg / Agpr (v1, s[0:1], v7.h)
NUMBER = "number"           # value: int or float
WORD = "word"               # value: the word's text
STRING = "string"           # value: the text between the quotes
COMMENT = "comment"
DUAL = "::"

_REGISTER_WORD = re.compile(r"(v|s|ttmp|a)(\d++)(?:\.([lh]))?").fullmatch
_REGISTER_RANGE = re.compile(r"(v|s|ttmp|a)\[(\d++)(?::(\d++))?\]").fullmatch


class Entries(dict):
    """token text -> (kind, value, whether blanks precede it), classified on first use. A term
    that cannot be converted (v999, v[2:1], a 5000-digit number) raises OperandError naming it
    (and is not kept)."""

    def __missing__(self, token: str) -> tuple:
        text = token.lstrip(BLANKS)
        entry = (*classify(text), len(text) != len(token))
        if len(self) > 1 << 16:
            self.clear()
        self[token] = entry
        return entry


def classify(text: str) -> tuple:
    """(kind, value) of a token's text without its blanks."""
    c = text[0]
    if c.isdigit():
        return NUMBER, number(text)
    if c.isalpha() or c in "_.$":
        if "[" in text:
            return REG, register_range(text)
        m = _REGISTER_WORD(text)
        if m:
            return REG, register(m, text)
        if text in ("inf", "nan"):
            return NUMBER, float(text)
        return WORD, text
    if c == '"' and len(text) > 1:
        return STRING, text[1:-1]
    if text.startswith(("//", ";", "#")):
        return COMMENT, text
    return text, text            # punctuation and "::"


def register(m: re.Match, text: str) -> Reg:
    """v1, s5, ttmp3, a0, v7.l / v7.h."""
    kind, number_text, half = m.groups()
    try:
        if kind == "a":
            if half is not None:
                raise OperandError(f"{text}: only VGPRs have .l/.h halves")
            return Agpr(int(number_text))
        return Reg(kind, int(number_text), 1, half)
    except (OperandError, ValueError) as e:
        raise term_error(e, text) from None


def register_range(text: str) -> Reg:
    """v[0:3], s[4], a[0:15] (inclusive bounds)."""
    m = _REGISTER_RANGE(text)
    try:
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) is not None else lo
        if hi < lo:
            raise OperandError(f"register range {text} is empty (ranges are inclusive: {m.group(1)}[{hi}:{lo}]?)")
        if m.group(1) == "a":
            return Agpr(lo, hi - lo + 1)
        return Reg(m.group(1), lo, hi - lo + 1)
    except (OperandError, ValueError) as e:
        raise term_error(e, text) from None


def number(text: str) -> int | float:
    """0x1f, 0b101, 42, 017 (int) or 1.5, 2e3 (float). A leading 0 makes an integer octal, as
    in LLVM's MC lexer (017 is 15, 08 is refused: runtime/expr.py reads directives the same way)."""
    try:
        if text[:2] in ("0x", "0X", "0b", "0B"):
            value = int(text, 0)
        elif "." in text or "e" in text or "E" in text:
            return float(text)
        elif text[:1] == "0" and len(text) > 1:
            if not text.strip("01234567") == "":
                raise OperandError(f"{text}: an integer with a leading 0 is octal, and 8 and 9 are no octal digits")
            value = int(text, 8)
        else:
            value = int(text)
    except ValueError as e:          # more digits than Python converts (sys.get_int_max_str_digits)
        raise term_error(e, text) from None
    if value >> 64:                  # LLVM's lexer: "literal value out of range" (0xffffffffffffffff is -1)
        raise term_error(OperandError(f"{_shown(text)}: integer out of range (more than 64 bits)"), text)
    return value


def _shown(text: str) -> str:
    return text if len(text) <= 24 else text[:24] + "..."


def term_error(e: Exception, text: str) -> OperandError:
    """The OperandError of a term that cannot be converted, naming its source text."""
    if not isinstance(e, OperandError):
        e = OperandError(f"{_shown(text)}: a number of {len(text)} digits is too long")
    e.text = text
    return e

"""Text assembler: LLVM AMDGPU syntax -> bytes, parsed with a lark grammar (asm.lark)."""
from __future__ import annotations

import gc
import re
import warnings
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.grammar import Rule
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

import isa

from . import families
from .asm_lexer import ContextualScanLexer
from .operands import Agpr, Lit, Mod, OperandError, Reg, Special
from .statement import Attr, BitOr, Call, Directive, Label, LiteralRef, Statement, SymExpr
from . import syntax


class AsmError(ValueError):
    """A line that does not assemble; the message starts with line:column."""


@lru_cache(maxsize=4096)   # a pure function of the token text (Reg is immutable)
def _reg(text: str) -> Reg:
    """v1, s5, ttmp3, a0, v7.l / v7.h (the REG terminal has checked the shape)."""
    text = text.rstrip(_BLANK_COMMA)
    half = None
    name = text
    if text[-2] == ".":
        text, half = text[:-2], text[-1]
    try:
        if text[0] == "t":
            return Reg("ttmp", int(text[4:]), 1, half)
        if text[0] == "a":
            if half is not None:
                raise OperandError(f"{name}: only VGPRs have .l/.h halves")
            return Agpr(int(text[1:]))
        return Reg(text[0], int(text[1:]), 1, half)
    except (OperandError, ValueError) as e:
        raise _term_error(e, name) from None


@lru_cache(maxsize=4096)
def _regrange(text: str) -> Reg:
    text = text.rstrip(_BLANK_COMMA)
    m = re.fullmatch(r"(v|s|ttmp|a)\[(\d+)(?::(\d+))?\]", text)
    try:
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) is not None else lo
        if hi < lo:
            raise OperandError(f"register range {text} is empty (ranges are inclusive: {m.group(1)}[{hi}:{lo}]?)")
        if m.group(1) == "a":
            return Agpr(lo, hi - lo + 1)
        return Reg(m.group(1), lo, hi - lo + 1)
    except (OperandError, ValueError) as e:
        raise _term_error(e, text) from None


def _term_error(e: Exception, text: str) -> OperandError:
    """The OperandError of a term that cannot be converted, naming its source text (the
    statement builders turn that into a column)."""
    if not isinstance(e, OperandError):       # int()'s digit limit
        e = OperandError(f"{_excerpt(text, 0, 24)}: a number of {len(text)} digits is too long")
    e.text = text
    return e


def _excerpt(text: str, column: int, width: int = 80) -> str:
    """At most `width` characters of `text` around index `column`, with ... where cut: an error
    quotes a line, and a line may be megabytes long."""
    if len(text) <= width:
        return text
    start = max(0, min(column - width // 2, len(text) - width))
    return ("..." if start else "") + text[start:start + width] + ("..." if start + width < len(text) else "")


# what operand tokens may carry after their text (see asm.lark)
_BLANK_COMMA = " \t,"


def _int(text: str) -> int:
    text = text.rstrip(_BLANK_COMMA)
    try:
        return int(text, 0) if text[:2] in ("0x", "0X", "0b", "0B") else int(text)
    except ValueError as e:           # more digits than Python converts (sys.get_int_max_str_digits)
        raise _term_error(e, text) from None


def _float(text: str) -> float:
    text = text.rstrip(_BLANK_COMMA)
    try:
        return float(text)
    except ValueError as e:
        raise _term_error(e, text) from None


def _name(text: str):
    """A bare word: a special register (vcc, exec_lo, off, ...) or a symbol (label, attr0.x)."""
    text = text.rstrip(_BLANK_COMMA)
    low = text.lower()
    if low in syntax.SPECIAL_ALIASES:
        return Special(syntax.SPECIAL_ALIASES[low])
    if low in _SPECIALS:
        return Special(low)
    return Attr(text)


def _symexpr(text: str) -> SymExpr:
    return SymExpr("".join(text.rstrip(_BLANK_COMMA).split()))


def _keynum(text: str) -> tuple:
    key, _, num = text.rstrip().partition(":")
    return ("kv", key.lower(), -_int(num[1:]) if num[0] == "-" else _int(num))


def _keylist(text: str) -> tuple:
    key, _, items = text.rstrip().partition(":")
    return ("kv", key.lower(), [_int(x.strip()) for x in items[1:-1].split(",")])


def _signed(text: str):
    """-x, |x|, -|x| or -|-x| of a register, register range or number (a run's signed terms), as
    the grammar's `negate` and `absval` build them from the atom inside."""
    text = text.rstrip(_BLANK_COMMA)
    neg = text[0] == "-"
    inner = text[1:] if neg else text
    bars = inner[0] == "|"
    if bars:
        inner = inner[1:-1]
    inner_neg = inner[0] == "-"
    if inner_neg:
        inner = inner[1:]
    if inner[0] in "vsta":
        value = _regrange(inner) if inner[-1] == "]" else _reg(inner)
    elif inner[:2] in ("0x", "0b") or not ("." in inner or "e" in inner or "E" in inner):
        value = _int(inner)
    else:
        value = _float(inner)
    if inner_neg:
        value = _ToStatements.negate(None, [value])
    if bars:
        value = _ToStatements.absval(None, [value])
    return _ToStatements.negate(None, [value]) if neg else value


# tokens `instr` takes directly -> (their operand value, whether they end with the operand's comma)
_TOKEN_VALUE = {"REG": (_reg, False), "REG_C": (_reg, True), "REGRANGE": (_regrange, False),
                "REGRANGE_C": (_regrange, True), "NUMBER": (_int, False), "NUMBER_C": (_int, True),
                "FLOAT": (_float, False), "IDENT": (_name, False), "IDENT_C": (_name, True),
                "SYMEXPR": (_symexpr, False), "SYMEXPR_C": (_symexpr, True),
                "KEYNUM": (_keynum, False), "KEYLIST": (_keylist, False),
                # not tokens: a run's signed terms (see asm.lark), split out by _SIGNED_TERMS
                "SIGNED": (_signed, False), "SIGNED_C": (_signed, True)}


class _Items(list):
    """The growing list of a left-recursive `items` / `lines` rule."""


def _twice(key: str) -> OperandError:
    """A modifier given twice (offset:4 offset:8): LLVM refuses it rather than pick one."""
    return OperandError(f"modifier {key} is given twice", text=key)


def _place(value, operands: list, modifiers: dict, expect_operand: bool) -> None:
    """Put one term of an instruction among its operands or its modifiers: after a comma (or
    first) it is an operand; after a blank it is a modifier (`clamp`, `offset:16`,
    `vmcnt(0)`), except `off` and plain values."""
    if type(value) is tuple:
        key, value = value[1], value[2]
    elif expect_operand:
        operands.append(value)
        return
    elif isinstance(value, Attr):
        key, value = value.name.lower(), True
    elif isinstance(value, Special) and value.name == "off":
        operands.append(value)
        return
    elif isinstance(value, Call):
        key = value.name
    else:
        operands.append(value)
        return
    if key in modifiers:
        raise _twice(key)
    modifiers[key] = value


# A term of a TERMS run -> (its value, whether it ends with the operand's comma, its role): terms
# recur (v0, s[0:1], off, offset:16), and converting each only once halves the instruction
# callback. Values are immutable; a KEYLIST's list is copied per use. Keyed by the term's text
# alone where the text says what terminal it is (_FAST_TERMS), else by (terminal, text).
_TERM_MEMO: dict = {}
_OPERAND, _NAME, _MODIFIER, _LIST_MODIFIER, _COMMA, _SKIP, _NEGATED, _NOT_A_TERM_ROLE = range(8)
_NOT_A_TERM = (None, False, _NOT_A_TERM_ROLE)


def _term(kind: str, text: str) -> tuple:
    """(value, ends with a comma, role) of one term lexed as terminal `kind`."""
    if kind == "COMMA":
        return None, True, _COMMA
    if kind in _SKIPPED_IN_TERMS:
        return None, False, _SKIP
    convert, comma = _TOKEN_VALUE[kind]
    value = convert(text)
    if type(value) is tuple:
        role = _LIST_MODIFIER if type(value[2]) is list else _MODIFIER
        if role == _LIST_MODIFIER:
            value = (value[0], value[1], tuple(value[2]))
    else:
        role = _NAME if isinstance(value, Attr) else _OPERAND
    return value, comma, role


def _fast_term(text: str) -> tuple:
    if len(_TERM_MEMO) > 1 << 16:
        _TERM_MEMO.clear()
    found = _TERM_MEMO[text] = _term(_fast_kind()(text).lastgroup, text)
    return found


def _exact_term(kind: str, text: str) -> tuple:
    if len(_TERM_MEMO) > 1 << 16:
        _TERM_MEMO.clear()
    found = _TERM_MEMO[kind, text] = _term(kind, text)
    return found


def _place_terms(token: Token, operands: list, modifiers: dict, expect_operand: bool, start: int = 0) -> bool:
    """Place the terms of a TERMS token, split into the plain tokens it is made of (as they
    would lex one by one); returns whether an operand comes next. The same placement as
    _place: a name after a blank is a flag modifier, key:value terms are modifiers, the rest
    operands. Most runs are made of the common terms alone (_FAST_TERMS): one findall splits
    them, and the lengths of its pieces adding up to the run's shows that nothing was skipped.
    The run starts at `start` (after the mnemonic of an INSTR_NL)."""
    end = len(token.rstrip())      # the blanks and newline(s) that may end it are no terms
    texts = _fast_split()(token, start, end)
    if sum(map(len, texts)) != end - start:
        return _place_terms_exactly(token, operands, modifiers, expect_operand, start)
    memo = _TERM_MEMO
    return _place_entries([memo.get(text) or _fast_term(text) for text in texts], operands, modifiers,
                          expect_operand)


def _place_terms_exactly(token: Token, operands: list, modifiers: dict, expect_operand: bool, start: int = 0) -> bool:
    """_place_terms for any run: split by the terminals it is made of, in the lexer's order."""
    memo = _TERM_MEMO
    entries = []
    for m in _terms_splitter()(token, start):
        kind = m.lastgroup
        if kind == _UNSPLIT:
            raise AsmError(f"{token.line}:{token.column + m.start()}: cannot split {str(token)!r} into terms")
        text = m.group()
        entries.append(memo.get((kind, text)) or _exact_term(kind, text))
    return _place_entries(entries, operands, modifiers, expect_operand)


def _place_entries(entries, operands: list, modifiers: dict, expect_operand: bool) -> bool | None:
    """Place a run's terms, (value, ends with a comma, role) each, in order; returns whether an
    operand comes next, or None (some placed) for a word of _WORD_TERMS the words cannot take."""
    for value, comma, role in entries:
        if not role or role == _NAME and expect_operand:     # _OPERAND is 0
            operands.append(value)
        elif role == _NAME:
            key = value.name.lower()
            if key in modifiers:
                raise _twice(key)
            modifiers[key] = True
        elif role == _MODIFIER:
            if value[1] in modifiers:
                raise _twice(value[1])
            modifiers[value[1]] = value[2]
        elif role == _LIST_MODIFIER:
            if value[1] in modifiers:
                raise _twice(value[1])
            modifiers[value[1]] = list(value[2])
        elif role == _COMMA:
            expect_operand = True
            continue
        elif role == _SKIP:
            continue
        elif role == _NEGATED and expect_operand:
            operands.append(value)
        else:
            return None
        expect_operand = comma
    return expect_operand


@lru_cache(maxsize=1)
def _terms_splitter():
    """finditer(text) over the terminals a TERMS token is made of (asm.lark), ordered as
    lark's lexer orders them, so a run splits exactly as those tokens would lex one by one."""
    members = set(_TOKEN_VALUE) | _SKIPPED_IN_TERMS | {"COMMA"}
    terms = [t for t in parser().terminals if t.name in members]
    terms.sort(key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
    # the signed terms start with a character none of those terminals does (`-`, `|`); a last
    # alternative takes any character the terminals do not, so no character is skipped
    return re.compile("|".join(f"(?P<{t.name}>{t.pattern.to_regexp()})" for t in terms)
                      + "".join(f"|(?P<{kind}>{pattern})" for kind, pattern in _SIGNED_TERMS)
                      + f"|(?P<{_UNSPLIT}>.)", re.S).finditer


@lru_cache(maxsize=1)
def _fast_split():
    """findall(text): the run's common terms (_FAST_TERMS) as strings, each where lark's
    lexer would take the same text as the same terminal; a character none of them matches
    is skipped, which _place_terms detects by the lengths."""
    return re.compile("|".join(f"(?:{pattern})" for _, pattern in _FAST_TERMS)).findall


@lru_cache(maxsize=1)
def _fast_kind():
    """fullmatch(text) naming the terminal of a term _fast_split returned (lastgroup)."""
    return re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _FAST_TERMS)).fullmatch


# The common terms of a run as lark's lexer would take them, each written so that no terminal
# before it in lark's order (SYMEXPR_C, KEYLIST, KEYNUM, NUMBER_C, REGRANGE_C, REG_C, SYMEXPR,
# FLOAT, NUMBER, REG, REGRANGE, IDENT_C, IDENT, then COMMENT, BLANKS, COMMA, NL) can match
# where it does: not followed by `-`/`+` (SYMEXPR), `:` (KEYNUM, KEYLIST) or, without its
# comma, a comma (the _C forms); a name is neither a register nor a register range (REG,
# REGRANGE) nor inf/nan (FLOAT). So a term's text also says which terminal it is (no two
# patterns share a text). Only the lookup is faster: test_dsl_asm_parse checks the parse
# against lark's own lexing.
_REG = r"(?:v|s|ttmp|a)\d++(?:\.[lh])?"
_REGRANGE = r"(?:v|s|ttmp|a)\[\d++(?::\d++)?\]"
_NAME_TEXT = r"(?!inf|nan)(?!(?:v|s|ttmp|a)[\d\[])[A-Za-z_.$][\w.$@]*+"
_ATOM = rf"(?:{_REG}|{_REGRANGE}|0x[0-9a-fA-F]++|0b[01]++|\d++(?:\.\d*+)?(?:[eE][-+]?\d++)?)"
_SIGNED = rf"(?:-?\|-?{_ATOM}\||-{_ATOM})"
_SIGNED_TERMS = [("SIGNED_C", _SIGNED + r"[ \t]*,[ \t]*"), ("SIGNED", _SIGNED + r"[ \t]*+(?!,)")]
_FAST_TERMS = [("REG_C", _REG + r"[ \t]*,[ \t]*"),
               ("REG", _REG + r"(?![\w\[])[ \t]*+(?![-+,])"),
               ("REGRANGE_C", _REGRANGE + r"[ \t]*,[ \t]*"),
               ("REGRANGE", _REGRANGE + r"[ \t]*+(?!,)"),
               ("NUMBER_C", r"(?:0x[0-9a-fA-F]++|0b[01]++|\d++)[ \t]*,[ \t]*"),
               ("NUMBER", r"(?:0x[0-9a-fA-F]++|0b[01]++|\d++(?![.\deE]))[ \t]*+(?!,)"),
               ("FLOAT", r"\d++(?:\.\d*+(?:[eE][-+]?\d++)?|[eE][-+]?\d++)"),
               ("KEYNUM", r"(?i:[a-z_][a-z0-9_]*+:-?(?:0x[0-9a-f]++|\d++)(?![\w.])[ \t]*)"),
               ("KEYLIST", r"(?i:[a-z_][a-z0-9_]*+:\[[ \t]*-?\d++(?:[ \t]*,[ \t]*-?\d++)*[ \t]*\][ \t]*)"),
               ("IDENT_C", _NAME_TEXT + r"[ \t]*+,[ \t]*"),
               ("IDENT", _NAME_TEXT + r"[ \t]*+(?![-+,:])"),
               *_SIGNED_TERMS,
               ("COMMA", r",[ \t]*"),
               ("BLANKS", r"[ \t]+"),
               ("COMMENT", r"(?://|;|#)[^\n]*")]


_UNSPLIT = "UNSPLIT"
# terminals in a run (a TERMS_NL ends with its line's comment and newline) that are no terms
_SKIPPED_IN_TERMS = frozenset(("AMP", "BLANKS", "COMMENT", "NL"))


def _statement(mnemonic: Token, items) -> Statement:
    """An instruction from its mnemonic token and its terms: tokens and nested values."""
    try:
        return _items_statement(mnemonic, items)
    except OperandError as e:
        raise _located(e, mnemonic, [it for it in items if type(it) is Token]) from None


def _located(e: OperandError, mnemonic: Token, tokens: list) -> AsmError:
    """The AsmError of a term of an instruction that cannot be converted (v999, v[2:1], a
    5000-digit number): line:column of that term (of the first token holding its text, else
    of the mnemonic), the mnemonic and the reason; _parse adds the line."""
    line, column = mnemonic.line, mnemonic.column
    for token in tokens:
        at = token.find(e.text) if e.text else -1
        if at >= 0:
            line, column = token.line, token.column + at
            break
    return located_error(line, column, f"{_mnemonic(mnemonic.value.split()[0]) if mnemonic.value.split() else ''}: {e}")


def located_error(line: int, column: int, message: str) -> AsmError:
    """AsmError("line:column: message") that remembers its place, for _parse to quote the line."""
    err = AsmError(f"{line}:{column}: {message}")
    err.line, err.column = line, column
    return err


def _items_statement(mnemonic: Token, items) -> Statement:
    operands, modifiers = [], {}
    expect_operand = True
    for it in items:
        if type(it) is Token:
            kind = it.type
            if kind == "TERMS" or kind == "TERMS_NL":
                expect_operand = _place_terms(it, operands, modifiers, expect_operand)
                continue
            if kind == "COMMA":
                expect_operand = True
                continue
            if kind == "AMP":
                continue
            convert, comma = _TOKEN_VALUE[kind]
            _place(convert(it), operands, modifiers, expect_operand)
            expect_operand = comma
        else:
            _place(it, operands, modifiers, expect_operand)
            expect_operand = False
    return Statement(_MNEMONICS.get(mnemonic.value) or _mnemonic(mnemonic.value), operands, modifiers,
                     mnemonic.line, mnemonic.column)


def _terms_statement(mnemonic: Token, terms: Token) -> Statement:
    """The usual instruction: its mnemonic and one run of terms."""
    operands, modifiers = [], {}
    try:
        _place_terms(terms, operands, modifiers, True)
    except OperandError as e:
        raise _located(e, mnemonic, [terms]) from None
    return Statement(_MNEMONICS.get(mnemonic.value) or _mnemonic(mnemonic.value), operands, modifiers,
                     mnemonic.line, mnemonic.column)


def _line_statement(line: Token) -> Statement:
    """The usual instruction line as one INSTR_NL token: its mnemonic, then a run of terms.
    Most such lines are words separated by blanks, each word one whole term as the lexer would
    take it and its blanks one by one (_WORD_TERMS): str.split cuts them. Other lines are split
    as a run (_place_terms)."""
    words = line.split()
    mnemonic = _MNEMONICS.get(words[0]) or _mnemonic_word(words[0])
    operands, modifiers = [], {}
    try:
        if mnemonic is None or _place_entries(map(_WORD_TERMS.__getitem__, words[1:]), operands, modifiers,
                                              True) is None:
            operands, modifiers = [], {}
            start = _MNEMONIC_PART(line).end()
            _place_terms(line, operands, modifiers, True, start)
            mnemonic = _MNEMONICS.get(line[:start]) or _mnemonic(line[:start])
    except OperandError as e:
        raise _located(e, line, [line]) from None
    return Statement(mnemonic, operands, modifiers, line.line, line.column)


_MNEMONIC_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+[ \t]*+").match     # as in INSTR_NL (asm.lark)


def _mnemonic_word(word: str) -> str | None:
    """The mnemonic of a line's first word, or None when the mnemonic does not end at a blank."""
    return _mnemonic(word) if _MNEMONIC_PART(word).end() == len(word) else None


class _WordTerms(dict):
    """A blank-separated word of an INSTR_NL line -> (value, ends with a comma, role) when the
    word is one whole term of the run's common terms, worked out on first use. A word needs no
    look at the blanks after it: the term lookaheads that read past them (REG, NUMBER, IDENT
    not before -, +, `,` or :) are settled by the next word's first character, which is one of
    those only in a negated term (_NEGATED: it must follow a comma, as `v2 -v3` lexes as
    SYMEXPR) or in no term at all (_NOT_A_TERM). Either ends _place_entries with None."""

    def __missing__(self, word: str) -> tuple:
        if len(self) > 1 << 16:
            self.clear()
        m = _word_kind()(word)
        if m is None:
            entry = _NOT_A_TERM
        else:
            value, comma, role = _term(m.lastgroup, word)
            entry = (value, comma, _NEGATED if word[0] == "-" else role)
        self[word] = entry
        return entry


_WORD_TERMS = _WordTerms()


@lru_cache(maxsize=1)
def _word_kind():
    """fullmatch(word) naming the term a word is, of the run's common terms (no commas alone,
    blanks or comments)."""
    return re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _FAST_TERMS
                               if kind not in _NOT_WORDS)).fullmatch


_NOT_WORDS = frozenset(("COMMA", "BLANKS", "COMMENT"))


# mnemonic token text ("V_ADD_F32 ") -> the mnemonic ("v_add_f32"), each worked out once
_MNEMONICS: dict[str, str] = {}


def _mnemonic(text: str) -> str:
    if len(_MNEMONICS) > 1 << 14:
        _MNEMONICS.clear()
    found = _MNEMONICS[text] = text.rstrip().lower()
    return found


def _converted(convert, token: Token):
    """convert(token) for a term inside a nested value (-(v1), abs(v999), [..]): an OperandError
    becomes an AsmError at the token."""
    try:
        return convert(token)
    except OperandError as e:
        raise located_error(token.line, token.column, str(e)) from None


class _ToStatements(Transformer):
    """Parse callbacks: each takes its rule's children as one list (lark calls a plain
    method directly; v_args wrappers would add two calls per reduction)."""

    def reg(self, c):
        return _converted(_reg, c[0])

    def regrange(self, c):
        return _converted(_regrange, c[0])

    def number(self, c):
        return _converted(_int, c[0])

    def negnumber(self, c):
        return -_converted(_int, c[0])

    def float(self, c):
        return _converted(_float, c[0])

    def string(self, c):
        return str(c[0])[1:-1]

    def name(self, c):
        return _name(str(c[0]))

    def call(self, c):
        n = c[0].rstrip().lower()
        args = tuple(c[1]) if len(c) > 1 else ()
        if n in ("neg", "abs") and len(args) == 1:
            a = args[0]
            return Mod(a, neg=True) if n == "neg" else (Mod(a.value, a.neg, True) if isinstance(a, Mod) else Mod(a, abs=True))
        if n == "lit" and len(args) == 1:
            return Lit(args[0])
        return Call(n, args)

    def arglist(self, c):
        return [x for x in c if type(x) is not Token]

    def list(self, c):
        return list(c[0]) if c else []

    def negate(self, c):
        x = c[0]
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return -x
        if isinstance(x, Mod):
            return Mod(x.value, not x.neg, x.abs)
        return Mod(x, neg=True)

    def absval(self, c):
        x = c[0]
        if isinstance(x, Mod):
            return Mod(x.value, x.neg, True)
        return Mod(x, abs=True)

    def bitor(self, c):
        parts = [x for x in c if type(x) is not Token]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in parts):
            value = 0
            for x in parts:
                value |= x
            return value
        return BitOr(tuple(parts))

    def keyval(self, c):
        return ("kv", c[0].rstrip().lower(), c[1])

    def items(self, c):
        if len(c) == 2:
            c[0].append(c[1])
            return c[0]
        return _Items(c)

    def instr(self, c):
        return _statement(c[0], c[1] if len(c) > 1 else ())

    def instr_nl(self, c):
        """An instruction whose last token, a run of terms, ends its line."""
        if len(c) == 1:
            return _line_statement(c[0])
        if len(c) == 3:
            c[1].append(c[2])
            return _statement(c[0], c[1])
        return _terms_statement(c[0], c[1])

    def lines(self, c):
        """One line: [lines so far] [label] [instruction [:: instruction] | directive]."""
        if len(c) == 2 and type(c[1]) is Statement and type(c[0]) is _Items:   # the usual line
            c[0].append(c[1])
            return c[0]
        if c and type(c[0]) is _Items:              # the lines so far, and their newline unless
            acc = c[0]                              # it ended a TERMS_NL
            c = c[2:] if len(c) > 1 and type(c[1]) is Token and c[1].type == "NL" else c[1:]
        else:
            acc = _Items()
        if len(c) >= 3 and type(c[-2]) is Token:     # a VOPD pair: X :: Y
            c[-3].dual = c[-1]
            c = c[:-2]
        acc.extend(c)
        return acc

    def label(self, c):
        t = c[0]
        return Label(str(t)[:-1], t.line, t.column)

    def directive(self, c):
        name = c[0]
        rest = c[1] if len(c) > 1 else ""
        return Directive(str(name).lower(), str(rest).strip(), name.line, name.column)

    lines_nl = lines

    def lines_instr_nl(self, c):
        """The lines so far, then an instruction whose run of terms ends its line."""
        acc = c[0]
        acc.append(_line_statement(c[1]) if len(c) == 2 else
                   _terms_statement(c[1], c[2]) if len(c) == 3 else self.instr_nl(c[1:]))
        return acc

    def start(self, c):
        return list(c[0])


_SPECIALS = {"vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "null", "off", "scc",
             "src_scc", "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
             "src_vccz", "src_execz", "src_lds_direct", "src_pops_exiting_wave_id",
             "src_flat_scratch_base_lo", "src_flat_scratch_base_hi"}


@lru_cache(maxsize=1)
def parser() -> Lark:
    grammar = (Path(__file__).parent / "asm.lark").read_text()
    lark = Lark(grammar, parser="lalr", lexer=ContextualScanLexer, transformer=_ToStatements(),
                maybe_placeholders=False, cache=True)
    _rules_by_identity(lark)
    return lark


class _IdentityRule(Rule):
    """A grammar rule compared and hashed by identity: lark's LALR loop compares the rule of
    each reduction with an int (`arg != end_state`) and looks up its callback by it, which
    lark's Rule does in two Python calls (its __hash__ and __eq__) per reduction. A parser's
    table holds one object per rule, the very keys of its callback dict, so identity is
    equality there."""
    __slots__ = ()
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


def _rules_by_identity(lark: Lark) -> None:
    """Make the rules of `lark`'s LALR tables _IdentityRule, their callback dict rebuilt (a
    rule's hash changes with its class). This reaches into lark's parser objects, which are
    not a public API: a lark release that lays them out differently keeps lark's own rules
    (the same parse, a little slower) instead of failing."""
    lalr = getattr(getattr(getattr(lark, "parser", None), "parser", None), "parser", None)
    table = getattr(getattr(lalr, "parse_table", None), "states", None)
    if not isinstance(table, dict) or not isinstance(getattr(lalr, "callbacks", None), dict):
        return
    for state in table.values():
        for _action, arg in state.values():
            if type(arg) is Rule:
                arg.__class__ = _IdentityRule
    lalr.callbacks = dict(lalr.callbacks.items())


# s_delay_alu joins its fields with '|', which would collide with the |abs| bars of
# source operands, so they are joined with a space before parsing.
_PIPE_JOIN = re.compile(r"\)\s*\|\s*(?=inst)")


# Directives whose body is not assembly yet (YAML metadata; a macro body, assembly only once its
# parameters are substituted) up to an end directive; the body is cut out before the lark parse
# (its lines become blank, so line numbers stay true) and handed over whole in Directive.body.
RAW_BLOCKS = {".amdgpu_metadata": (".end_amdgpu_metadata",), ".macro": (".endm", ".endmacro")}
_RAW_BLOCK_START = re.compile(r"^([ \t]*)(" + "|".join(re.escape(k) for k in RAW_BLOCKS) + r")\b", re.M | re.I)
# the same names anywhere: a search that starts at each '.', many times faster over a large text
# than the line-anchored one, which runs only when this finds something
_RAW_BLOCK_NAME = re.compile(r"(?i:" + "|".join(re.escape(k) for k in RAW_BLOCKS) + r")\b")


def _cut_raw_blocks(text: str) -> tuple[str, list[Directive]]:
    if not _RAW_BLOCK_NAME.search(text) or not _RAW_BLOCK_START.search(text):
        return text, []
    lines = text.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = _RAW_BLOCK_START.match(lines[i])
        if not m:
            i += 1
            continue
        name, ends = m.group(2).lower(), RAW_BLOCKS[m.group(2).lower()]
        j = i + 1
        while j < len(lines) and lines[j].strip().lower() not in ends:
            j += 1
        if j == len(lines):
            raise AsmError(f"{i + 1}:{len(m.group(1)) + 1}: {name} has no {ends[0]}")
        blocks.append(Directive(name, lines[i][m.end():].strip(), i + 1, len(m.group(1)) + 1,
                                body="\n".join(lines[i + 1:j]) + "\n"))
        for k in range(i, j + 1):
            lines[k] = ""
        i = j + 1
    return "\n".join(lines), blocks


@contextmanager
def collector_paused():
    """Pause CPython's cyclic garbage collector for a whole-file parse or assembly: it builds a
    few small objects per line and no reference cycles, yet the collector would rescan all
    statements built so far every few thousand lines (8% of assembling 100k lines)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(text: str) -> list:
    """Labels (Label), instructions (Statement) and directives (Directive) of an assembly
    text in source order (AsmError on a syntax error)."""
    with collector_paused():
        return _parse(text)


def _parse(text: str) -> list:
    if "|" in text and "s_delay_alu" in text:
        text = _PIPE_JOIN.sub(") ", text)
    text, blocks = _cut_raw_blocks(text)
    try:
        items = parser().parse(text if text.endswith("\n") else text + "\n")
    except UnexpectedInput as e:
        raise AsmError(_syntax_message(text, e)) from None
    except AsmError as e:
        if getattr(e, "column", None) is None:
            raise
        raise AsmError(f"{e}\n{_quote(_source_line(text, e.line), e.column)}") from None
    except VisitError as e:
        orig = e.orig_exc
        tok = getattr(e.obj, "meta", None)
        raise AsmError(f"{orig}") from None
    if blocks:
        items = sorted(items + blocks, key=lambda it: it.line)   # stable: same-line order kept
    return items


def _source_line(text: str, number: int) -> str:
    """Line `number` (1-based) of `text`, or "" (found without splitting the whole text)."""
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _quote(line: str, column: int) -> str:
    """The source line (cut to 80 characters around `column`) and a caret under the column."""
    text = line.rstrip("\r").lstrip(" \t").replace("\t", " ")
    column -= len(line) - len(line.lstrip(" \t"))        # the line is quoted without its indentation
    shown = _excerpt(text, column - 1)
    if shown is text:
        return f"    {text}\n    {' ' * max(column - 1, 0)}^"
    start = max(0, min(column - 1 - 40, len(text) - 80))
    return f"    {shown}\n    {' ' * max(column - 1 - start + (3 if start else 0), 0)}^"


def _syntax_message(text: str, e: UnexpectedInput) -> str:
    line = _source_line(text, e.line)
    if isinstance(e, UnexpectedToken):
        expected = sorted(x for x in e.expected if not x.startswith("_") and x != "NL")[:8]
        what = (f"unexpected {e.token!r}" if e.token.type not in ("$END", "TERMS", "TERMS_NL", "INSTR_NL") else
                "unexpected end of input" if e.token.type == "$END" else f"unexpected {str(e.token).rstrip()!r}")
    elif isinstance(e, UnexpectedCharacters):
        expected = sorted(x for x in e.allowed if not x.startswith("_") and x != "NL")[:8] if e.allowed else []
        what = f"unexpected character {line[e.column - 1:e.column]!r}"
    else:
        expected, what = [], "syntax error"
    exp = f"; expected {', '.join(expected)}" if expected else ""
    return f"{e.line}:{e.column}: {_excerpt(what, 0)}{exp}\n{_quote(line, e.column)}"


# Directives an instruction-only text may carry without changing its bytes.
_HARMLESS_DIRECTIVES = {".text"}


def assemble(text: str, arch: str, wave_size: int | None = None) -> bytes:
    """Assemble LLVM-syntax text for `arch` (e.g. 'gfx1100'). Labels resolve to branch
    offsets. Raises AsmError naming line:column and what is wrong. Sections, data and
    kernel directives need a code object: runtime.asm_module / `wavesmith asm -o x.hsaco`."""
    if families.gfx9_syntax(arch):   # CDNA3: instruction lines only (asm_gfx9.py)
        from .asm_gfx9 import Gfx9AsmError, assemble_gfx9
        if wave_size not in (None, 64):
            raise AsmError(f"{arch} runs wave64 only, got wave_size={wave_size}")
        try:
            return assemble_gfx9(text, arch)
        except Gfx9AsmError as e:
            raise AsmError(str(e)) from None
    with collector_paused():
        return _assemble(text, encoder(arch, wave_size))


def _assemble(text: str, enc) -> bytes:
    out = bytearray()
    labels: dict[str, int] = {}
    fixups = []
    encode = enc.encode_statement
    for it in parse(text):
        if type(it) is Statement:           # encode_at, inline for the usual item
            try:
                data, fix = encode(it)
            except (OperandError, ValueError) as e:
                raise encode_error(e, it, text.splitlines()) from None
            if fix is not None:
                add_fixup(fixups, len(out), fix, it)
            out += data
        elif isinstance(it, Label):
            define_label(labels, it, len(out))
        elif isinstance(it, Directive):
            if it.name not in _HARMLESS_DIRECTIVES:
                raise AsmError(f"{it.line}:{it.column}: directive {it.name} needs a code object; "
                               f"assemble with runtime.asm_module.assemble_module() or "
                               f"`wavesmith asm FILE -o FILE.hsaco`")
        else:
            out += encode_at(enc, it, text.splitlines(), len(out), fixups)
    resolve_branches(out, fixups, labels)
    resolve_literals(out, fixups, labels)
    return bytes(out)


def encoder(arch: str, wave_size: int | None = None):
    """The instruction encoder for `arch` and wave size (the arch's own by default), one per
    pair: an Encoder's caches only grow with what it has encoded, and building one (its
    format layouts) cost more than assembling a short text."""
    from .encode import Encoder
    if families.gfx9_syntax(arch):   # CDNA3: statements are encoded from their source text
        from .asm_gfx9 import Gfx9Encoder
        spec = families.load_for_disassembly(arch)
        hit = _ENCODERS.get((id(spec), 64))
        if hit is None or hit.spec is not spec:
            hit = _ENCODERS[id(spec), 64] = Gfx9Encoder(spec)
        return hit
    spec = families.load_for_assembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    hit = _ENCODERS.get((id(spec), wave))
    if hit is None or hit.spec is not spec:
        hit = _ENCODERS[id(spec), wave] = Encoder(spec, wave)
    return hit


_ENCODERS: dict = {}


def define_label(labels: dict, label: Label, offset: int) -> None:
    if label.name in labels:
        raise AsmError(f"{label.line}:{label.column}: label {label.name!r} defined twice")
    labels[label.name] = offset


def encode_at(enc, st: Statement, lines: list[str], offset: int, fixups: list) -> bytes:
    """Bytes of one instruction placed at `offset`; a branch to a label appends
    (offset, label, statement) to `fixups` for resolve_branches (branches are always
    4 bytes, so label addresses are known after one pass), a symbolic literal appends
    (offset of its dword, LiteralRef, statement) for resolve_literals or the code-object path."""
    try:
        if getattr(enc, "from_source", False):   # the gfx9 encoder reads the statement's text
            src = lines[st.line - 1] if 0 < st.line <= len(lines) else ""
            data, fix = enc.encode_source(src[st.column - 1:], st.mnemonic)
        else:
            data, fix = enc.encode_statement(st)
    except (OperandError, ValueError) as e:
        raise encode_error(e, st, lines) from None
    if fix is not None:
        add_fixup(fixups, offset, fix, st)
    return data


def encode_error(e: Exception, st: Statement, lines: list[str]) -> AsmError:
    """The AsmError of an instruction the encoder rejects: line:column of the operand or
    modifier it refuses (else of the mnemonic), the reason, the line."""
    src = lines[st.line - 1] if 0 < st.line <= len(lines) else ""
    column = _error_column(e, st, src)
    message = str(e)
    if "_".join(st.mnemonic.split("_")[:2]) not in message[:120]:    # name the instruction (v_add, s_load:
        message = f"{st.mnemonic}: {message}"                           # most of the encoder's messages do)
    return AsmError(f"{st.line}:{column}: {message}\n{_quote(src, column)}")



def _error_column(e: Exception, st: Statement, src: str) -> int:
    """Column of what the encoder refused: OperandError.operand (found among the operands by
    identity, then by value) or .modifier (its word after the mnemonic), else the mnemonic's."""
    operand, modifier = getattr(e, "operand", None), getattr(e, "modifier", None)
    parts = (st, st.dual) if st.dual is not None else (st,)
    if operand is None and modifier is None:      # a message quoting a modifier (offset:70000 ...)
        message = str(e)
        modifier = next((key for part in parts for key in part.modifiers if f"{key}:" in message), None)
    if operand is not None:
        for same in (lambda o: o is operand, lambda o: type(o) is type(operand) and o == operand):
            for part in parts:
                for i, o in enumerate(part.operands):
                    if same(o) or isinstance(o, Mod) and same(o.value):
                        column = _operand_column(src, part.column, i)
                        if column:
                            return column
    if modifier:
        word = re.compile(rf"(?<![\w.]){re.escape(modifier)}(?![\w.])", re.I)
        for part in reversed(parts):
            m = word.search(src, part.column - 1 + len(part.mnemonic))
            if m:
                return m.start() + 1
    return st.column


def _operand_column(src: str, column: int, index: int) -> int | None:
    """Column where operand `index` of the instruction whose mnemonic starts at `column` begins:
    after `index` commas outside brackets and parentheses, its blanks skipped."""
    m = re.compile(r"[A-Za-z0-9_]*[ \t]*").match(src, column - 1)
    pos, depth, commas = m.end(), 0, 0
    if index == 0:
        return pos + 1 if pos < len(src) else None
    for pos in range(pos, len(src)):
        ch = src[pos]
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            commas += 1
            if commas == index:
                rest = len(src) - len(src[pos + 1:].lstrip(" \t"))
                return rest + 1
        elif ch in ":;/" and src.startswith(("::", ";", "//"), pos):
            break
    return None


def add_fixup(fixups: list, offset: int, fix, st: Statement) -> None:
    """Note what of the instruction at `offset` is filled in later: a branch label or a LiteralRef."""
    if isinstance(fix, LiteralRef):
        fixups.append((offset + fix.at, fix, st))
    else:
        fixups.append((offset, fix, st))


def resolve_branches(code: bytearray, fixups: list, labels: dict[str, int]) -> None:
    """Patch each branch's 16-bit dword offset to its label (offsets within `code`)."""
    for pos, name, st in fixups:
        if type(name) is not str:
            continue                     # a symbolic literal: resolve_literals
        if name not in labels:
            raise AsmError(f"{st.line}:{st.column}: {st.mnemonic}: undefined label {name!r}")
        delta = (labels[name] - (pos + 4)) // 4
        if not -0x8000 <= delta <= 0x7fff:
            raise AsmError(f"{st.line}:{st.column}: {st.mnemonic}: label {name!r} is {delta} dwords away; "
                           f"a branch reaches -32768..32767")
        code[pos:pos + 2] = (delta & 0xffff).to_bytes(2, "little")


# name@rel32@lo, name@gotpcrel32@hi, name@abs32@lo ...: which half of which relocated value
_SPECIFIER = re.compile(r"@(rel32|gotpcrel32|abs32)@(lo|hi)\b", re.I)
_TERM = re.compile(r"([-+]?)([A-Za-z_.$][\w.$@]*|0x[0-9a-fA-F]+|\d+)")


def split_specifier(text: str) -> tuple[str, str | None]:
    """(the expression without its relocation specifier, 'rel32@lo'-style specifier or None)."""
    found = _SPECIFIER.findall(text)
    if len(found) > 1:
        raise AsmError(f"{text}: more than one relocation specifier")
    return _SPECIFIER.sub("", text), "@".join(found[0]).lower() if found else None


def resolve_literals(code: bytearray, fixups: list, labels: dict[str, int]) -> None:
    """Fill symbolic literals that are label differences within `code` (.Lend-.Lstart+4);
    anything naming an address (a lone symbol, @rel32/@abs32/@gotpcrel32) needs a code object."""
    for pos, ref, st in fixups:
        if type(ref) is not LiteralRef:
            continue
        where = f"{st.line}:{st.column}: {st.mnemonic}: literal {ref.text!r}"
        expr, spec = split_specifier(ref.text)
        code_object = ("known only when the code is placed; assemble it into a code object with "
                       "runtime.asm_module.assemble_module() or `wavesmith asm FILE -o FILE.hsaco`")
        if spec:
            raise AsmError(f"{where}: @{spec} is a relocation, {code_object}")
        value = net_labels = 0
        for sign, term in _TERM.findall(expr):
            k = -1 if sign == "-" else 1
            if term[0].isdigit():
                value += k * int(term, 0)
                continue
            if term not in labels:
                raise AsmError(f"{where}: undefined symbol {term!r}")
            value += k * labels[term]
            net_labels += k
        if net_labels:
            raise AsmError(f"{where} is an address, {code_object}")
        code[pos:pos + 4] = (value & 0xffffffff).to_bytes(4, "little")

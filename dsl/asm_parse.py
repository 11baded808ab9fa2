"""The parser of LLVM AMDGPU assembly text: labels, instructions and directives in source order.

One statement per line, read from the tokens of asm_lexer.py by recursive descent:

    line        := [label] [instruction ['::' instruction] | directive] [comment]
    label       := NAME ':'              (the colon right after the name, then a blank or the end)
    directive   := '.'NAME raw-text      (kept as text: runtime/ reads it)
    instruction := MNEMONIC [term {[','] term}]
    term        := value ('|' value)*    (after a call or a name a bar joins, blanks or not:
                                         instid0(..) | instskip(..), UC_VERSION_W64_BIT | 2)
                 | NAME ':' keyvalue     (offset:16, dpp8:[7,6,5,4,3,2,1,0], offset : -4)
                 | NAME ('+'|'-' NAME|INTEGER)+   (a symbol expression: .Lend-.Lstart, x@rel32@lo+4)
                 | '&'                   (between s_waitcnt's counters: ignored)
    value       := '-' value | '|' value '|' | atom ('|' atom)*    (an or-bar inside a value has
                                         no blanks around it: 2|UC_VERSION_W32_BIT; |abs|'s bars do)
    atom        := REGISTER | NUMBER | STRING | NAME | NAME '(' [args] ')' | '[' [args] ']' | '(' value ')'
    keyvalue    := INTEGER | '-' INTEGER | NAME | NAME '(' [args] ')' | '[' [args] ']'
    args        := value {',' value}

Commas separate operands: a term after a comma (or first) is an operand; after a blank it is a
modifier when it is a name (`clamp`, `glc`), a key:value or a call (`vmcnt(0)`), an operand
otherwise (`off`, plain values). A term that cannot be converted (v999) and a line that does not
parse raise AsmError at the line:column of the offending token, naming the instruction."""
from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from itertools import accumulate

from .asm_lexer import BLANKS, COMMENT, DUAL, NUMBER, REG, STRING, WORD, Entries, tokens
from .operands import Agpr, Lit, Mod, OperandError, Special
from .instr import NO_MODIFIERS, Instr, Modifiers
from .statement import Attr, BitOr, Call, Directive, Label, SymExpr
from . import list_reader, syntax


class AsmError(ValueError):
    """A line that does not assemble; the message starts with line:column."""


def located_error(line: int, column: int, message: str) -> AsmError:
    """AsmError("line:column: message") that remembers its place, for _parse to quote the line."""
    err = AsmError(f"{line}:{column}: {message}")
    err.line, err.column = line, column
    return err


class _Unexpected(Exception):
    """A token the grammar has no place for: its index in the line and what could come there."""

    def __init__(self, index: int, expected: str):
        self.index, self.expected, self.mnemonic = index, expected, None


_ENTRIES = Entries()
_SPECIALS = {"vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "null", "off", "scc",
             "src_scc", "src_shared_base", "src_shared_limit", "src_private_base", "src_private_limit",
             "src_vccz", "src_execz", "src_lds_direct", "src_pops_exiting_wave_id",
             "src_flat_scratch_base_lo", "src_flat_scratch_base_hi"}
_MNEMONIC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch
_LABEL = re.compile(r"[A-Za-z_.$][\w.$]*").fullmatch
_DIRECTIVE = re.compile(r"\.[A-Za-z_][\w.]*")
_DIRECTIVE_ARGS = re.compile(r"(?:[^;/]|/(?![/*]))*")      # up to a comment
_OPERAND_OR_MODIFIER = "an operand or a modifier"


def name_value(text: str):
    """A bare word: a special register (vcc, exec_lo, off, ...) or a symbol (label, attr0.x)."""
    found = _NAMES.get(text)
    if found is None:
        low = text.lower()
        found = (Special(syntax.SPECIAL_ALIASES[low]) if low in syntax.SPECIAL_ALIASES else
                 Special(low) if low in _SPECIALS else Attr(text))
        if len(_NAMES) > 1 << 14:
            _NAMES.clear()
        _NAMES[text] = found
    return found


_NAMES: dict = {}
_A16 = Agpr(16)
_MNEMONICS: dict[str, str | None] = {}     # word -> the mnemonic it spells (lower case) or None


def _mnemonic(word: str) -> str | None:
    found = _MNEMONICS.get(word, False)
    if found is False:
        found = word.lower() if _MNEMONIC(word) else None
        if len(_MNEMONICS) > 1 << 14:
            _MNEMONICS.clear()
        _MNEMONICS[word] = found
    return found


# ------------------------------------------------------------------------------------- values

def _negate(x):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return -x
    if isinstance(x, Mod):
        return Mod(x.value, not x.neg, x.abs)
    return Mod(x, neg=True)


def _absval(x):
    if isinstance(x, Mod):
        if x.neg:                   # |-v1|, abs(-v1): the sign goes outside, -|v1|
            raise OperandError(f"the absolute value of a negated operand ({x}) is not a source modifier; "
                               f"write -|x|")
        return Mod(x.value, False, True)
    return Mod(x, abs=True)


def _bitor(parts: list):
    if all(isinstance(x, int) and not isinstance(x, bool) for x in parts):
        value = 0
        for x in parts:
            value |= x
        return value
    return BitOr(tuple(parts))


def _call(name: str, args: tuple):
    n = name.lower()
    if n in ("neg", "abs") and len(args) == 1:
        a = args[0]
        if n == "abs":
            return _absval(a)
        return Mod(a.value, not a.neg, a.abs) if isinstance(a, Mod) else Mod(a, neg=True)
    if n == "lit" and len(args) == 1:
        return Lit(args[0])
    return Call(n, args)


def _or_bar(toks: list, i: int, n: int) -> bool:
    """Whether the bar at token i joins two values (no blanks around it, a word or ')' before
    it and a word or '(' after it) rather than being one of |abs|'s bars."""
    if toks[i] != "|" or i + 1 >= n:
        return False
    before, after = toks[i - 1][-1], toks[i + 1][0]
    return (before.isalnum() or before in "_)") and (after.isalnum() or after in "_(.$")


def _value(toks: list, ents: list, i: int, n: int) -> tuple:
    """(value, index after it) of a value starting at token i."""
    if i >= n:
        raise _Unexpected(i, "a value")
    kind = ents[i][0]
    if kind == "-":
        if i + 1 < n and ents[i + 1][0] == "-":    # --v1: one sign only (-(-1) and neg(-v1) say more)
            raise _Unexpected(i + 1, "a value after '-'")
        v, i = _value(toks, ents, i + 1, n)
        return _negate(v), i
    if kind == "|":
        v, i = _value(toks, ents, i + 1, n)
        if i >= n or ents[i][0] != "|":
            raise _Unexpected(i, "'|' closing |...|")
        return _absval(v), i + 1
    v, i = _atom(toks, ents, i, n)
    if i < n and ents[i][0] == "|" and _or_bar(toks, i, n):
        parts = [v]
        while i < n and ents[i][0] == "|" and _or_bar(toks, i, n):
            v, i = _atom(toks, ents, i + 1, n)
            parts.append(v)
        v = _bitor(parts)
    return v, i


def _atom(toks: list, ents: list, i: int, n: int) -> tuple:
    kind, value, _ = ents[i] if i < n else (None, None, None)
    if kind is REG or kind is NUMBER or kind is STRING:
        return value, i + 1
    if kind is WORD:
        if i + 1 < n and ents[i + 1][0] == "(":
            return _call_at(toks, ents, i, n)
        return name_value(value), i + 1
    if kind == "[":
        args, i = _args(toks, ents, i + 1, n, "]")
        return list(args), i
    if kind == "(":
        v, i = _value(toks, ents, i + 1, n)
        if i >= n or ents[i][0] != ")":
            raise _Unexpected(i, "')'")
        return v, i + 1
    raise _Unexpected(i, "a value")


def _call_at(toks: list, ents: list, i: int, n: int) -> tuple:
    """name(args) at token i (the name; i + 1 is the '(')."""
    args, end = _args(toks, ents, i + 2, n, ")")
    return _call(ents[i][1], args), end


def _args(toks: list, ents: list, i: int, n: int, close: str) -> tuple:
    """(values, index after `close`) of a possibly empty comma-separated list ending with `close`."""
    if i < n and ents[i][0] == close:
        return (), i + 1
    values = []
    while True:
        v, i = _value(toks, ents, i, n)
        values.append(v)
        if i < n and ents[i][0] == ",":
            i += 1
            continue
        if i < n and ents[i][0] == close:
            return tuple(values), i + 1
        raise _Unexpected(i, f"',' or '{close}'")


def _keyvalue(toks: list, ents: list, i: int, n: int) -> tuple:
    """The value of key:value at token i: an integer, -integer, a name (one may start with a digit,
    as LLVM's short image dims do: dim:2D), a call or a list."""
    kind, value, _ = ents[i] if i < n else (None, None, None)
    if kind is NUMBER and type(value) is int and i + 1 < n and ents[i + 1][0] is WORD and not ents[i + 1][2]:
        return Attr(toks[i].lstrip(BLANKS) + toks[i + 1]), i + 2      # a name starting with a digit: dim:2D_ARRAY
    if kind is NUMBER and type(value) is int:
        return value, i + 1
    if kind == "-" and i + 1 < n and ents[i + 1][0] is NUMBER and type(ents[i + 1][1]) is int:
        return -ents[i + 1][1], i + 2
    if kind is WORD or kind == "[":
        return _atom(toks, ents, i, n)
    raise _Unexpected(i, "an integer, a name or a list after ':'")


def _entry_starts(key: str, ents: list, lo: int, hi: int) -> list:
    """[((key, entry index), token index)] of each entry of the list written in tokens lo..hi."""
    out, j = [], 0
    for t in range(lo + 1, hi):
        kind = ents[t][0]
        if kind == ",":
            j += 1
        elif kind != "]" and (not out or out[-1][0][1] != j):
            out.append(((key, j), t))
    return out


def _plain_list(key: str, toks: list, ents: list, i: int) -> bool:
    """Whether tokens from i are a list LLVM's reader takes as it stands: `[`, decimal entries
    0..largest separated by `,`, `]`, as many entries as the modifier holds (dsl.list_reader's
    SHAPES). Most lines' lists are; only the others go through list_reader.stop."""
    least, most, top = list_reader.SHAPES[key]
    n, count = len(ents), 0
    if i >= n or ents[i][0] != "[":
        return False
    i += 1
    while i < n and ents[i][0] is NUMBER and type(ents[i][1]) is int and 0 <= ents[i][1] <= top \
            and toks[i].lstrip(BLANKS).isdigit():
        count += 1
        if i + 1 < n and ents[i + 1][0] == "]":
            return least <= count <= most
        if i + 1 >= n or ents[i + 1][0] != ",":
            return False
        i += 2
    return False


def _read_list(key: str, toks: list, i: int) -> None:
    """Refuse list modifier `key`'s value at token i as LLVM's reader does (dsl.list_reader),
    at the token where it stops."""
    if _ENTRIES[toks[-1]][0] is COMMENT:
        toks = toks[:-1]
    line = "".join(toks)
    at = sum(map(len, toks[:i]))
    found = list_reader.stop(key, line, at + len(toks[i]) - len(toks[i].lstrip(BLANKS)) if i < len(toks) else at)
    if found is not None:
        where, expected = found
        j, pos = i, at
        while j < len(toks) and pos + len(toks[j]) <= where:
            pos += len(toks[j])
            j += 1
        raise _Unexpected(j, expected)


def _symbol_expression(toks: list, ents: list, i: int, n: int) -> tuple:
    """NAME (+|- NAME or INTEGER)+ from token i: its text without blanks."""
    parts = [toks[i].lstrip(BLANKS)]
    i += 1
    while i + 1 < n and ents[i][0] in ("+", "-") and (
            ents[i + 1][0] is WORD or ents[i + 1][0] is REG and "[" not in toks[i + 1]
            or ents[i + 1][0] is NUMBER and type(ents[i + 1][1]) is int
            and toks[i + 1].lstrip(BLANKS)[:2] not in ("0b", "0B")):
        parts += (ents[i][0], toks[i + 1].lstrip(BLANKS))
        i += 2
    return SymExpr("".join(parts)), i


# --------------------------------------------------------------------------------- statements

def _twice(key: str) -> OperandError:
    """A modifier given twice (offset:4 offset:8): LLVM refuses it rather than pick one."""
    return OperandError(f"modifier {key} is given twice", text=key)


def _instruction(toks: list, ents: list, i: int, n: int, line: int, where: list | None = None) -> tuple:
    """(Instr, index after it) of the instruction whose mnemonic is token i. With `where`,
    appends (operand index or modifier key, token index) for each term placed."""
    mnemonic = _mnemonic(toks[i].lstrip(BLANKS)) if ents[i][0] is WORD or ents[i][0] is REG else None
    if mnemonic is None:
        raise _Unexpected(i, "a label, an instruction or a directive")
    at = column(toks, i)
    operands, modifiers = [], {}
    expect_operand = True
    i += 1
    start = i
    try:
        while i < n:
            start = i
            kind, value, _ = ents[i]
            if kind == ",":
                if expect_operand:                          # `v1,, v2` or a comma first
                    raise _Unexpected(i, "an operand")
                expect_operand = True
                i += 1
                continue
            if kind is REG or kind is NUMBER:             # the usual term: a register or a number
                i += 1
                if i < n and ents[i][0] in _AFTER_VALUE:
                    if ents[i][0] == "|":
                        value, i = _joined(toks, ents, start, n)
                    elif type(value) is int:                # `4 - 2`, `4 -v2`: no arithmetic here
                        raise _Unexpected(i, "an operand or a modifier, not arithmetic on numbers")
            elif kind is WORD:
                following = ents[i + 1][0] if i + 1 < n else None
                if following is None or following == ",":
                    value = name_value(value)
                    i += 1
                elif following == ":":
                    key = value.lower()
                    if key in list_reader.SHAPES and not _plain_list(key, toks, ents, i + 2):
                        _read_list(key, toks, i + 2)
                    value, i = _keyvalue(toks, ents, i + 2, n)
                    if key in modifiers:
                        raise _twice(key)
                    modifiers[key] = value
                    if where is not None:
                        where += [(key, start), ((key, "value"), start + 2)]    # th:NAME: the value's too
                        if type(value) is list:     # op_sel:[0,2]: each entry's, keyed (key, index)
                            where += _entry_starts(key, ents, start + 2, i)
                    expect_operand = False
                    continue
                elif following == "+" or following == "-":   # a symbol expression; after a
                    value = name_value(value)                 # special register, another term
                    if type(value) is Attr:
                        value, i = _symbol_expression(toks, ents, i, n)
                    else:
                        i += 1
                else:
                    value, i = _joined(toks, ents, i, n)
            elif kind == DUAL:
                break
            elif kind == "&":
                i += 1
                continue
            else:
                value, i = _joined(toks, ents, i, n)
            # a name after a blank is a flag modifier (clamp, glc), a call a modifier keyed by
            # its name (vmcnt(0)); everything else, and any term after a comma, an operand. The
            # image flag a16 is spelled like the AGPR a16, which is never an operand there.
            if not expect_operand and type(value) is Agpr and value == _A16 and kind is REG:
                value = Attr("a16")
            if expect_operand or not (type(value) is Attr or type(value) is Call):
                if where is not None:
                    where.append((len(operands), start))
                operands.append(value)
            else:
                key = value.name.lower() if type(value) is Attr else value.name
                if key in modifiers:
                    raise _twice(key)
                modifiers[key] = True if type(value) is Attr else value
                if where is not None:
                    where.append((key, start))
            expect_operand = False
    except OperandError as e:
        e.index, e.mnemonic = start, mnemonic
        raise
    except _Unexpected as e:
        e.mnemonic = mnemonic
        raise
    return Instr(mnemonic, tuple(operands), Modifiers(modifiers) if modifiers else NO_MODIFIERS, None, None, None,
                 line, at), i


def _joined(toks: list, ents: list, i: int, n: int) -> tuple:
    """A term's value and, after a call or a symbolic name, values joined to it by bars with or
    without blanks (s_delay_alu's instid0(...) | instskip(...), s_version's
    UC_VERSION_W64_BIT | UC_VERSION_W32_BIT); after anything else a blank and a bar start another
    term: `v2 |v3|`)."""
    v, i = _value(toks, ents, i, n)
    if i < n and ents[i][0] == "|" and (type(v) in _JOINS or type(v) is BitOr and type(v.parts[-1]) in _JOINS):
        parts = list(v.parts) if type(v) is BitOr else [v]
        while i < n and ents[i][0] == "|":
            v, i = _value(toks, ents, i + 1, n)
            parts.append(v)
        v = _bitor(parts)
    return v, i


_JOINS = (Call, Attr)      # what a bar after a blank joins to rather than starting an |abs| term


_AFTER_VALUE = frozenset("|+-")


def column(toks: list, i: int) -> int:
    """1-based column where token i's text (after its blanks) starts."""
    tok = toks[i]
    return sum(map(len, toks[:i])) + len(tok) - len(tok.lstrip(BLANKS)) + 1


def _line_items(items: list, line: str, number: int, toks: list) -> None:
    """Append the label, instruction(s) or directive of one line."""
    i = 0
    if len(toks) >= 2 and toks[1] == ":" and (len(toks) == 2 or toks[2][0] in BLANKS):
        name = toks[0].lstrip(BLANKS)
        if _LABEL(name):
            items.append(Label(name, number, column(toks, 0)))
            i = 2
            if i == len(toks) or _ENTRIES[toks[2]][0] is COMMENT:
                return
    if toks[i].lstrip(BLANKS)[:1] == ".":
        col = column(toks, i)
        m = _DIRECTIVE.match(line, col - 1)
        if m is not None:
            args = _DIRECTIVE_ARGS.match(line, m.end())
            rest = line[args.end():]
            if rest and not rest.startswith(("//", ";")):
                raise _Unexpected(len(tokens(line[:args.end()])), "the end of the line")
            items.append(Directive(m.group().lower(), args.group().strip(), number, col))
            return
    ents = list(map(_ENTRIES.__getitem__, toks))
    n = len(ents)
    if ents[-1][0] is COMMENT:
        n -= 1
    st, i = _instruction(toks, ents, i, n, number)
    if i < n:                                # '::' and the second instruction of a VOPD pair
        if i + 1 == n:
            e = _Unexpected(i + 1, "an instruction after '::'")
            e.mnemonic = st.mnemonic
            raise e
        dual, i = _instruction(toks, ents, i + 1, n, number)
        st = Instr(st.mnemonic, st.operands, st.modifiers, None, None, dual, st.line, st.column)
        if i < n:
            e = _Unexpected(i, "the end of the line")
            e.mnemonic = st.dual.mnemonic
            raise e
    items.append(st)


def _parse(text: str) -> list:
    text, blocks = _cut_raw_blocks(text)
    if "/*" in text:
        text = _BLOCK_COMMENT.sub(_blanked, text)
    items = []
    for number, line in enumerate(text.split("\n"), 1):
        toks = tokens(line)
        try:
            if not toks or len(toks) == 1 and _ENTRIES[toks[0]][0] is COMMENT:
                continue
            _line_items(items, line, number, toks)
        except _Unexpected as e:
            raise _syntax_error(e, toks, number, line) from None
        except OperandError as e:
            raise _term_error(e, toks, number, line, getattr(e, "index", None), getattr(e, "mnemonic", None)) from None
        except RecursionError:      # (the parser reads nested terms by recursion)
            col = _nesting_column(line)
            raise AsmError(f"{number}:{col}: an operand nested too deeply to read\n{quote(line, col)}") from None
    if blocks:
        items = sorted(items + blocks, key=lambda it: it.line)   # stable: same-line order kept
    return items


def _term_error(e: OperandError, toks: list, number: int, line: str, index: int | None = None,
                mnemonic: str | None = None) -> AsmError:
    """AsmError at the token that could not be converted (the first whose classification
    fails) or at token `index`, naming the instruction."""
    if index is None:
        index = 0
        for index, tok in enumerate(toks):
            try:
                _ENTRIES[tok]
            except OperandError:
                break
    if mnemonic is None:           # the line's first word that can be a mnemonic, after its label
        first = 2 if len(toks) > 2 and toks[1] == ":" else 0
        mnemonic = _mnemonic(toks[first].lstrip(BLANKS)) if first < index else None
    col = column(toks, index)
    return AsmError(f"{number}:{col}: {mnemonic + ': ' if mnemonic else ''}{e}\n{quote(line, col)}")


def _syntax_error(e: _Unexpected, toks: list, number: int, line: str) -> AsmError:
    if e.index < len(toks) and _ENTRIES[toks[e.index]][0] is not COMMENT:
        what, col = f"{toks[e.index].lstrip(BLANKS)!r}", column(toks, e.index)
    else:
        what, col = "end of line", sum(map(len, toks[:e.index])) + 1
    within = f" in {e.mnemonic}" if e.mnemonic else ""
    return AsmError(f"{number}:{col}: unexpected {excerpt(what, 0)}{within}; expected {e.expected}\n"
                    f"{quote(line, col)}")


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _nesting_column(line: str) -> int:
    """The column of the term in which `line` nests deepest first: where it starts (after a
    blank or a comma) before the point its brackets, bars and signs reach 64 levels."""
    depth = 0
    for i, c in enumerate(line):
        depth += (c in "([|-") - (c in ")]")
        if depth >= 64:
            return max(line.rfind(" ", 0, i), line.rfind(",", 0, i), line.rfind("\t", 0, i)) + 2
    return 1


def _blanked(m: re.Match) -> str:
    """A block comment as blanks, its newlines kept: lines and columns stay those of the source."""
    return re.sub(r"[^\n]", " ", m.group())


def parse(text: str) -> list:
    """Labels (Label), instructions (Instr) and directives (Directive) of an assembly
    text in source order (AsmError on a syntax error)."""
    with collector_paused():
        return _parse(text)


_MODIFIER_PREFIX = re.compile(r"(?:[-|~ \t]|(?:neg|abs|sext)\()*", re.I)


def inner_offset(term: str) -> int:
    """How far into a source term with modifiers (-|s1|, neg(2)) its value starts: a refusal of
    the value is placed there, as LLVM 22 places it."""
    return _MODIFIER_PREFIX.match(term).end()


def term_columns(line: str, mnemonic_column: int) -> dict:
    """{operand index or modifier key: column} of the instruction whose mnemonic starts at
    `mnemonic_column` of `line` (empty when the line does not parse as it did)."""
    toks = tokens(line)
    try:
        ents = list(map(_ENTRIES.__getitem__, toks))
        if ents and ents[-1][0] is COMMENT:
            toks.pop()
            ents.pop()
        starts = list(accumulate(map(len, toks), initial=0))       # (column() for every token: linear)
        columns = [at + len(t) - len(t.lstrip(BLANKS)) + 1 for at, t in zip(starts, toks)]
        for i in range(len(toks)):
            if columns[i] == mnemonic_column:
                where = []
                _instruction(toks, ents, i, len(toks), 0, where)
                return {key: columns[at] for key, at in where}
    except (OperandError, _Unexpected):
        pass
    return {}


# ------------------------------------------------------------------------------ whole texts

# Directives whose body is not assembly yet (YAML metadata; a macro body, assembly only once its
# parameters are substituted) up to an end directive; the body is cut out before the parse
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


# --------------------------------------------------------------------------- error messages

def excerpt(text: str, column: int, width: int = 80) -> str:
    """At most `width` characters of `text` around index `column`, with ... where cut: an error
    quotes a line, and a line may be megabytes long."""
    if len(text) <= width:
        return text
    start = max(0, min(column - width // 2, len(text) - width))
    return ("..." if start else "") + text[start:start + width] + ("..." if start + width < len(text) else "")


def quote(line: str, column: int) -> str:
    """The source line (cut to 80 characters around `column`) and a caret under the column."""
    text = line.rstrip("\r").lstrip(" \t").replace("\t", " ")
    column -= len(line) - len(line.lstrip(" \t"))        # the line is quoted without its indentation
    shown = excerpt(text, column - 1)
    if shown is text:
        return f"    {text}\n    {' ' * max(column - 1, 0)}^"
    start = max(0, min(column - 1 - 40, len(text) - 80))
    return f"    {shown}\n    {' ' * max(column - 1 - start + (3 if start else 0), 0)}^"

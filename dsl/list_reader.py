"""LLVM's reader of list modifiers (op_sel:[0,1], op_sel_hi, neg_lo, neg_hi, quad_perm:[..],
dpp8:[..]): where it stops on a list of the wrong shape, and the one rule that points an error
there, as LLVM's assembler reports it.

LLVM reads such a list entry by entry, each entry an integer in range, and stops at the first
character it cannot take: the value when it is no `[` ("expected a left square bracket"), an
entry that is no integer or out of range, the `]` of a list shorter than the modifier needs
("expected a comma": dpp8 takes 8 entries, quad_perm 4), the `,` after the last entry a list may
hold ("expected a closing square bracket": 4 for op_sel & co., which take 1 to 4), or anything
else where a `,` or `]` belongs. It reads a modifier's value only for an instruction that takes
the modifier, and only once the mnemonic names an encoding the target has: otherwise LLVM's
error is the instruction's (at the mnemonic) or the modifier's (at its key).

The parser refuses what the reader refuses (asm_parse, at `stop`); `relocated` is the rule for
the error reported: the refusal of the instruction with that list written well-formed when it
says the syntax lacks the mnemonic's form (at the mnemonic) or the modifier (at its key)
(OperandError.unknown), else the reader's stop. Entries that are expressions (1+0) are left to the parser: the reader abstains."""
from __future__ import annotations

import re

from .asm_lexer import number
from .operands import OperandError

# key: (entries needed at least, entries it holds at most, largest entry) -- LLVM's reader
SHAPES = {"op_sel": (1, 4, 1), "op_sel_hi": (1, 4, 1), "neg_lo": (1, 4, 1), "neg_hi": (1, 4, 1),
          "quad_perm": (4, 4, 3), "dpp8": (8, 8, 7)}

_KEY = re.compile(r"(?<![\w.$])(" + "|".join(sorted(SHAPES, key=len, reverse=True)) + r")[ \t]*:[ \t]*", re.I)
_ENTRY = re.compile(r"[-+]?[ \t]*(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)")
_BLANK = re.compile(r"[ \t]*")
_OPERATOR = set("+-*/%|&^<>()~!")


def stop(key: str, text: str, at: int) -> tuple[int, str] | None:
    """(index in `text`, what LLVM expected there) where LLVM's reader of list modifier `key`,
    whose value starts at text[at], stops; None when it reads the list (or abstains)."""
    least, most, top = SHAPES[key.lower()]
    if text[at:at + 1] != "[":
        return at, "a list starting with '['"
    i, n = at + 1, 0
    while True:
        i = _BLANK.match(text, i).end()
        m = _ENTRY.match(text, i)
        if m is None:
            return i, f"an entry (an integer 0..{top})"
        after = _BLANK.match(text, m.end()).end()
        if text[after:after + 1] in _OPERATOR:
            return None                         # an expression: the parser's to read
        digits = m.group().replace(" ", "").replace("\t", "")
        if len(digits) > 20:
            return None                         # the lexer's to refuse ("a number of N digits is too long")
        try:
            value = number(digits.lstrip("+"))
        except OperandError:                    # 08: no octal number (LLVM: "failed parsing operand")
            return i, f"an entry (an integer 0..{top})"
        if not 0 <= value <= top:
            return i, f"an entry 0..{top}"
        n += 1
        i = after
        if text[i:i + 1] == "]":
            return (i, f"',' ({key} takes {least} entries)") if n < least else None
        if n == most:
            return i, f"']' ({key} takes at most {most} entries)"
        if text[i:i + 1] != ",":
            return i, "',' or ']'"
        i += 1


def first_misread(line: str, start: int = 0) -> tuple[str, int, int, int, str] | None:
    """(key, key index, value index, stop index, what was expected) of the first list modifier
    of `line` from index `start` that LLVM's reader stops in, or None. Comments end the line."""
    code = re.split(r"//|;", line, maxsplit=1)[0]
    for m in _KEY.finditer(code, start):
        found = stop(m.group(1), code, m.end())
        if found is not None:
            return m.group(1), m.start(), m.end(), found[0], found[1]
    return None


def relocated(line: str, column: int, message: str, probe) -> tuple[int, str]:
    """(column, message) of an error at 1-based `column` of `line` with `message` (its first
    line, after line:column), by the rule above. `probe(text)` assembles one line and returns
    None or its error's (column, message, whether it refuses a modifier the syntax lacks)."""
    mnemonic = re.match(r"\s*(?:[\w.$]+:\s*)?(\S+)", line)
    if mnemonic is None:
        return column, message
    found = first_misread(line)
    if found is None:
        return _other_value(line, column, message, probe, mnemonic.end(1))
    key, key_at, value_at, stop_at, expected = found
    if column - 1 < key_at:
        return column, message                  # an error before the list: LLVM's too
    least, most, _ = SHAPES[key.lower()]
    # the list written well-formed, the rest of the line dropped (LLVM never reads past it);
    # op_sel & co. by each count they may have, for the one the instruction takes
    probes = [probe(line[:value_at] + "[" + ",".join(["0"] * n) + "]") for n in range(least, most + 1)]
    if all(p is not None and p[2] and p[0] - 1 in (mnemonic.start(1), key_at) for p in probes):
        return max(probes, key=lambda p: p[0])[:2]
    if column - 1 == stop_at:
        return column, message
    found_there = repr(line[stop_at]) if stop_at < len(line.rstrip()) else "end of line"
    return stop_at + 1, f"{mnemonic.group(1)}: {key}: unexpected {found_there}; expected {expected}"


_ANY_KEY = re.compile(r"(?<![\w.$])([A-Za-z_]\w*)[ \t]*:[ \t]*")


def _other_value(line: str, column: int, message: str, probe, after: int) -> tuple[int, str]:
    """The same rule for an error inside the value of another key:value modifier (byte_sel:,
    row_shl:x): the instruction's refusal of the modifier itself, at its key, when it lacks it."""
    code = re.split(r"//|;", line, maxsplit=1)[0]
    for m in _ANY_KEY.finditer(code, after):
        end = re.compile(r"[^ \t]*").match(code, m.end()).end()
        if m.end() <= column - 1 <= end:
            p = probe(code[:m.end()] + "0")
            if p is not None and p[0] - 1 == m.start() and p[2]:
                return p[:2]
            break
    return column, message

"""Turn one line of LLVM AMDGPU text into the DSL call that writes it: the mnemonic's function
and Python operand values (v[0:1], a[3], s[2], vcc, -x, abs(x), numbers) and keywords for the
modifiers. Tests use it to drive the DSL with LLVM's own lines and compare the bytes with LLVM's.
Operands with no DSL value (hwreg(...), sendmsg(...), swizzle(...), sext(...)) stay text,
which the DSL passes on as written; `as_call` says how many did."""
from __future__ import annotations

import re

_REG = re.compile(r"^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")
_NUM = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
_FLOAT = re.compile(r"^-?\d+\.\d*(e[-+]?\d+)?$")


def _split(text: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([" and 1 or (ch in ")]" and -1 or 0)
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [p for p in out if p]


def operand_value(ns: dict, text: str):
    """A DSL value for one operand's text, or the text itself (counted as not converted)."""
    if text.startswith("-|") and text.endswith("|"):
        inner = operand_value(ns, text[2:-1])
        return ns["Mod"](inner, neg=True, abs=True) if not isinstance(inner, str) else text
    if text.startswith("|") and text.endswith("|"):
        inner = operand_value(ns, text[1:-1])      # abs() of a number would drop the modifier: Mod keeps it
        return ns["Mod"](inner, abs=True) if not isinstance(inner, str) else text
    if text.startswith("neg(") and text.endswith(")"):
        inner = operand_value(ns, text[4:-1])
        return ns["neg"](inner) if not isinstance(inner, str) else text
    if text.startswith("-") and _REG.match(text[1:]):
        return -operand_value(ns, text[1:])
    m = _REG.match(text)
    if m:
        cls, one, lo, hi = m.groups()
        file = ns[cls]
        return file[int(one)] if one is not None else file[int(lo):int(hi)]
    if _NUM.match(text):
        return int(text, 0)
    if _FLOAT.match(text):
        return float(text)
    if text in ns and not callable(ns[text]) and text.isidentifier():
        return ns[text]
    return text


def modifier_value(text: str):
    if _NUM.match(text):
        return int(text, 0)
    if text.startswith("[") and text.endswith("]") and all(_NUM.match(x) for x in text[1:-1].split(",")):
        return [int(x, 0) for x in text[1:-1].split(",")]
    return text


_FLAGS = {"gds", "clamp", "idxen", "offen", "glc", "nv", "sc0", "sc1", "nt", "lds", "bound_ctrl", "row_mirror",
          "row_half_mirror"}


def as_call(ns: dict, line: str):
    """(function, operands, modifiers, operands kept as text) for one LLVM line."""
    mn, _, rest = line.strip().partition(" ")
    if mn not in ns:
        raise KeyError(mn)
    parts = _split(rest, ",")
    mods = {}
    if parts:
        words = _split(parts[-1], " ")
        # the last operand is followed by blank-separated modifiers (flags or key:value)
        first_mod = next((i for i, w in enumerate(words) if i and (w in _FLAGS or re.match(r"^[a-z_0-9]+:", w))),
                         len(words))
        if len(parts) == 1 and words and (words[0] in _FLAGS or re.match(r"^[a-z_0-9]+:", words[0])):
            first_mod = 0
        parts[-1:] = [" ".join(words[:first_mod])] if first_mod else []
        for w in words[first_mod:]:
            k, colon, v = w.partition(":")
            mods[k] = modifier_value(v) if colon else True
    ops = [operand_value(ns, p) for p in parts]
    texts = sum(isinstance(o, str) for o in ops)
    return ns[mn], ops, mods, texts

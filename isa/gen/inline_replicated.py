"""Which sources of which instructions read an inline constant in both 16-bit halves, from the
manual's paragraph beside the VALU operand rules: RDNA3 7.2.1 (page 67) and RDNA3.5 (page 69)
"Inline constants with DOT2_F16_F16 and DOT2_BF16_BF16 / For these 2 instructions, the inline
constant for sources 0 and 1 replicate the inline constant value into bits[31:16]"; RDNA4 names
V_DOT2_F32_BF16 and V_DOT2_F32_F16 too ("Inline constants with: V_DOT2_F32_BF16, V_DOT2_F32_F16,
V_DOT2_F16_F16, and DOT2_BF16_BF16 / For these instructions, ..."). Every other 16-bit or packed
operand reads an inline constant in bits 15:0 with zeros above (RDNA3 7.5.1). CDNA's manuals have
no such paragraph. The result, tables["inline_replicated"], is one row (name, sources, page) per
instruction; the emulator reads it (emu/machine_prepare.py)."""
from __future__ import annotations

import re

from .parse import SpecParseError

_HEAD = re.compile(r"\bInline constants with:?\s+(.+?)\s*$")
_RULE = re.compile(r"For these (?:\d+ )?instructions, the inline constant for sources (\d) and (\d) replicate "
                   r"the inline constant value into bits\s*\[31:16\]")
_ITEMS = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def inline_replicated(lines, instructions: list[dict]) -> list[tuple[str, tuple[int, ...], int]]:
    """(name, sources, page) of each instruction the paragraph names, sorted; [] without one. A
    name that is no instruction of the manual (with or without its V_ prefix) is an error."""
    names = {d["name"] for d in instructions}
    out = set()
    for i, ln in enumerate(lines):
        head = _HEAD.search(ln.text)
        if not head:
            continue
        rule = _RULE.search(" ".join(line.text for line in lines[i + 1:i + 4]))
        if not rule:
            continue
        sources = tuple(sorted({int(rule.group(1)), int(rule.group(2))}))
        for item in _ITEMS.split(head.group(1).strip()):
            name = item.strip()
            name = name if name in names else "V_" + name
            if name not in names:
                raise SpecParseError(f"page {ln.page}: 'Inline constants with' names {item!r}, no instruction")
            out.add((name, sources, ln.page))
    return sorted(out)

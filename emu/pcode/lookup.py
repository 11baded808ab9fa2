"""Facts the translation reads from the spec rather than the pseudocode (no parser needed,
so the semantics table computes its cache keys without loading the grammar).

Contents of declared lookup tables that the manual gives in an instruction's description,
not in its pseudocode.

v_cvt_off_f32_i4's pseudocode reads `CVT_OFF_TABLE[S0.u[3 : 0]]` from a table it only
declares; the description lists the entries as "Lookup table on S0[3:0]: S0 binary Result
1000 -0.5000f 1001 -0.4375f ...". The rows are parsed here from the generated description
(the manual's text), so no entry is copied by hand.
"""
from __future__ import annotations

import re

_HEADER = re.compile(r"Lookup table on \w+\[(\d+):0\]:\s*\w+ binary Result\s*(.*)$", re.S)
_ROW = re.compile(r"([01]+)\s+([+-]?\d+(?:\.\d+)?)f?\b")


def description_table(description: str | None) -> list[float] | None:
    """The table's entries in index order, or None when the description has no complete table
    (every index 0 .. 2**bits - 1 exactly once)."""
    m = _HEADER.search(description or "")
    if not m:
        return None
    size = 1 << (int(m.group(1)) + 1)
    rows = {}
    for bits, value in _ROW.findall(m.group(2)):
        index = int(bits, 2)
        if index in rows:
            return None
        rows[index] = float(value)
    if sorted(rows) != list(range(size)):
        return None
    return [rows[i] for i in range(size)]


def callee_result_type(spec, name: str) -> str | None:
    """The D0 operand type of instruction `name` in `spec` (what a call to it returns), or None."""
    for d in spec.lookup(name):
        t = d.operand_types.get("D0")
        if t:
            return t
    return None

"""Facts the translation reads from the spec rather than the pseudocode (no parser needed,
so the semantics table computes its cache keys without loading the grammar): what a call to
another instruction returns. (The lookup tables a description lists, v_cvt_off_f32_i4's, are a
generated fact: isa.facts.lookup_table.)"""
from __future__ import annotations


def callee_result_type(spec, name: str) -> str | None:
    """The D0 operand type of instruction `name` in `spec` (what a call to it returns), or None."""
    for d in spec.lookup(name):
        t = d.operand_types.get("D0")
        if t:
            return t
    return None

"""Facts the translation reads from the spec rather than the pseudocode (no parser needed,
so the semantics table computes its cache keys without loading the grammar): what a call to
another instruction returns, and whether it does anything. (The lookup tables a description
lists, v_cvt_off_f32_i4's, are a generated fact: isa.facts.lookup_table.)"""
from __future__ import annotations


def callee_result_type(spec, name: str) -> str | None:
    """The D0 operand type of instruction `name` in `spec` (what a call to it returns), or None."""
    for d in spec.lookup(name):
        t = d.operand_types.get("D0")
        if t:
            return t
    return None


def callee_writes_nothing(spec, name: str) -> bool:
    """Whether `spec` has instruction `name` and no code of it writes an operand (isa.effects; V_NOP
    has no code at all): a call of it is nothing (RDNA4's s_barrier_signal calls s_nop, RDNA3's
    v_permlane64 v_nop)."""
    from isa.effects import effects
    defs = spec.lookup(name)
    return bool(defs) and not any(effects(d.pcode).writes for d in defs if d.pcode)

"""What neg/abs on a VALU source may be beyond the encoding's fields, as LLVM 22 and the manuals
have it, for the RDNA encoder (encode.py): which VOP3P sources NEG/NEG_HI may negate
(`neg_sources`, from the manual's operand types through isa.facts.modifier_use), and a number's
modifiers folded into it where the 32-bit encoding has no modifier bits (`folded_modifiers`)."""
from __future__ import annotations

from isa import InstrDef
from isa.facts import modifier_use

from .operands import Mod, OperandError
from .operand_records import Operand
from .signature import integer_sources_take_fp_mods


def _name(d: InstrDef) -> str:
    return d.name.lower()


# why a VOP3P source outside neg_sources is refused a negation
NEG_ONLY_ON_FLOATS = ("NEG/NEG_HI (neg_lo, neg_hi, -) apply only to its sources the manual types as floats "
                      "(RDNA4 ISA 7.7: 8-bit float inputs and a sparse matrix's index take none)")


def neg_sources(d: InstrDef, n_srcs: int) -> int:
    """Bits of the VOP3P sources NEG/NEG_HI may be set for by a `-x` source (the neg_lo/neg_hi
    lists follow dsl.signature.neg_list_sources, checked on every VOP3P instruction by
    tests/test_dsl_vop3_modifier_sweep.py): an instruction the manual types some
    sources of as floats and others not (isa.facts.modifier_use.neg_abs: the 8-bit-float dot4 and
    WMMA, whose 8-bit elements have no sign modifier, and SWMMAC, whose third source is an index)
    negates only the float ones (the VOP3P field table: NEG "float inputs only"; RDNA4 ISA 7.7,
    page 89: "Only SRC2 can apply NEG/NEG_HI" on DOT4_F32_{FP8,BF8}_{FP8,BF8}, NEG zero for an
    FP8/BF8 WMMA's A and B; LLVM 22 refuses them: "invalid neg_lo operand"). Where no source is
    typed a float, NEG means something else and every bit stays: signedness (the IU dot and
    WMMA), v_fma_mix*'s sources (untyped, "modifies all inputs"), integer packed math (LLVM takes
    neg_lo there)."""
    floats = modifier_use(d).neg_abs
    if not floats or len(floats) >= n_srcs:
        return 7
    return sum(1 << int(s[1]) for s in floats)


def folded_modifiers(d: InstrDef, o: Operand, v: Mod, what: str, has_vop3: bool) -> int | float:
    """A number with neg/abs in a 32-bit VALU encoding's src0, which has no modifier bits: the
    modifiers folded into the number as LLVM 22 folds them (its applyInputFPModifiers), so that
    `v_add_f32 v1, |-1.0|, v2` is the 32-bit `v_add_f32_e32 v1, 1.0, v2`, the value the VOP3 form's
    ABS/NEG bits would give: abs clears and neg flips the sign bit, of the double a float is read as
    (-|2.0| is -2.0) or of an integer at the operand's width (|-1| on an f16 operand is 0x7fff).
    Only on a source taking float modifiers (a float, or signature.integer_sources_take_fp_mods) of an instruction with a
    VOP3 form (`has_vop3`: v_fmaak_f32, v_fmamk_f32, v_dot2c_f32_f16 have no modifiers to fold);
    a register, lit(...) or a symbol with modifiers needs the VOP3 encoding."""
    x = v.value
    if type(x) not in (int, float) or not (o.is_float or integer_sources_take_fp_mods(d)) or not has_vop3:
        raise OperandError(f"{_name(d)}: {what}: modifiers need the VOP3 (_e64) encoding", v)
    if type(x) is float:
        x = abs(x) if v.abs else x
        return -x if v.neg else x
    bits = 16 if o.t16 else 64 if o.dwords == 2 else 32
    if not -(1 << bits - 1) <= x < 1 << bits:
        raise OperandError(f"{_name(d)}: {what}: {x} does not fit the {bits}-bit operand", v)
    x &= (1 << bits) - 1
    x = x & ~(1 << bits - 1) if v.abs else x
    return x ^ (1 << bits - 1) if v.neg else x

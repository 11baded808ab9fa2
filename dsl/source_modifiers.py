"""What neg/abs on a VALU source may be beyond the encoding's fields, as LLVM 22 and the manuals
have it: a number's modifiers folded into it where the 32-bit encoding has no modifier bits
(`folded_modifiers`), none on an integer literal of a 64-bit float source (`refuse_f64_literal_modifiers`);
which VOP3P sources take NEG/NEG_HI: dsl.packed_negation."""
from __future__ import annotations

from isa import InstrDef

from .operands import Lit, Mod, OperandError
from .operand_records import Operand
from .signature import integer_sources_take_fp_mods


def _name(d: InstrDef) -> str:
    return d.name.lower()


def refuse_f64_literal_modifiers(d: InstrDef, o: Operand, v: Mod, what: str) -> None:
    """LLVM 22 refuses neg()/|..| on an integer written as a literal (lit(n), or any n outside the
    inline -16..64) of a 64-bit float source, at the number: its 32-bit literal is the value's high
    half, which the modifiers' sign would not be read from as written (a float takes them)."""
    x = v.value.value if isinstance(v.value, Lit) else v.value
    if not (v.neg or v.abs) or not o.is_float or not (o.bits == 64 or o.dwords == 2):
        return
    if type(x) is int and (isinstance(v.value, Lit) or not -16 <= x <= 64) and -(1 << 31) <= x < 1 << 32:
        e = OperandError(f"{_name(d)}: {what}: no neg()/abs on the integer literal {x:#x} of a 64-bit float "
                         f"operand (LLVM refuses it: the literal is the value's high 32 bits); write the value "
                         f"as a float or negate the integer", v.value)
        e.f64_literal = True        # (encode.py places it as LLVM does)
        raise e


def folded_modifiers(d: InstrDef, o: Operand, v: Mod, what: str, has_vop3: bool) -> int | float:
    """A number with neg/abs in a 32-bit VALU encoding's src0, which has no modifier bits: the
    modifiers folded into the number as LLVM 22 folds them (its applyInputFPModifiers), so that
    `v_add_f32 v1, |-1.0|, v2` is the 32-bit `v_add_f32_e32 v1, 1.0, v2`, the value the VOP3 form's
    ABS/NEG bits would give: abs clears and neg flips the sign bit, of the double a float is read as
    (-|2.0| is -2.0) or of an integer at the operand's width (|-1| on an f16 operand is 0x7fff).
    Only on a source taking float modifiers (a float, or signature.integer_sources_take_fp_mods) of an instruction with a
    VOP3 form (`has_vop3`: v_fmaak_f32, v_fmamk_f32, v_dot2c_f32_f16 have no modifiers to fold);
    a register, lit(...), a symbol or an integer on a 64-bit source with modifiers needs the VOP3
    encoding."""
    refuse_f64_literal_modifiers(d, o, v, what)
    x = v.value
    # LLVM 22 folds neg/abs into an integer only at 32 bits or fewer: on a 64-bit source
    # (`v_fract_f64 v[0:1], |0x40|`, `v_add_f64 ..., neg(0x3ff0000000000000), ...`) it keeps the
    # VOP3 form with the ABS/NEG bits, and refuses the integer with modifiers under an _e32 suffix
    wide_integer = type(x) is int and (o.bits == 64 or o.dwords == 2)
    if type(x) not in (int, float) or wide_integer or not (o.is_float or integer_sources_take_fp_mods(d)) \
            or not has_vop3:
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

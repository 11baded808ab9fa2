"""Constants in source operands: which become inline constants, which a 32-bit literal,
which are refused. One rule per kind of operand, the kind read off the operand's type in
the ISA data (`literal_kind`), shared by the text assembler and the DSL (encode.py).

The rules are LLVM 22's (tests/test_dsl_literals.py compares them with LLVM's assembler over a
grid of every operand kind and edge values). A number is an integer or a float *token*
(`3` vs `3.0`; in the DSL a Python int vs float), and the token's kind matters as much as
the operand's:
- an integer is a 64-bit two's-complement value (0xffffffffd1ccf6e9 is -774...); on a
  32-bit operand it must fit 32 bits signed or unsigned, on a 16-bit one 16 bits; its bits
  are an inline constant when they equal one (0x3f800000 on any 32-bit operand is 1.0);
- a float is converted to the operand's format (f32 for 32-bit integer operands too:
  `v_mov_b32 v2, 3.0` is the literal 0x40400000) and refused when that overflows or loses
  a value too small for the format; it is an inline constant when its bits are one;
- a 64-bit operand's literal is one dword: the low dword of an integer (which must fit
  32 bits), the high dword of a float (the low one must be... is dropped, as LLVM does);
- `lit(x)` forces the literal slot (no inline constant), with the same range rules.
"""
from __future__ import annotations

import math
import struct
from functools import lru_cache

from isa.records import dataclass

from . import syntax
from .operands import OperandError

@lru_cache(maxsize=None)
def _float_codes(traits, fmt) -> dict[int, int]:
    """{bit pattern: inline code} of the family's inline floats in format `fmt` (16, 32, 64,
    'bf16': the high half of the f32), from isa traits."""
    return {bits: code for code, bits in traits.inline_float_bits[fmt].items()}


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _fits(value: int, bits: int) -> bool:
    """LLVM's isSafeTruncation: the value is a `bits`-wide unsigned or signed integer."""
    return -(1 << (bits - 1)) <= value < (1 << bits)


@dataclass(frozen=True)
class LiteralKind:
    """How one kind of operand takes constants (LLVM's operand types, by what differs)."""
    name: str
    int_bits: int           # an integer token must fit this many bits (16 or 32; 64-bit operands: 32)
    float_format: object    # a float token's format: 16, 'bf16', 32, 64 or None (refused)
    float_range: object     # the format whose range a float token must fit (None: any)
    inline_formats: tuple   # the float formats whose bit patterns are inline constants
    int_inline_width: int   # integer inline check on this many low bits, sign-extended (0: the value)
    literal_bits: int       # bits of an integer literal kept (16: zero-extended half, 32: dword)
    splat: bool = False     # a packed constant that covers both halves: inline only when they match


# The kinds (LLVM's names: OPERAND_REG_IMM_INT32 and FP32 take constants alike; so do V2INT16)
B32 = LiteralKind("b32", 32, 32, 32, (32,), 32, 32)
B64 = LiteralKind("b64", 32, None, None, (64,), 0, 32)
F64 = LiteralKind("f64", 32, 64, None, (64,), 0, 32)
F16 = LiteralKind("f16", 16, 16, 16, (16,), 16, 16)
I16 = LiteralKind("i16", 16, 32, 16, (32,), 0, 32)          # float tokens: f16's range, f32's bits
BF16 = LiteralKind("bf16", 16, "bf16", 16, ("bf16",), 16, 16)
V2F16 = LiteralKind("v2f16", 32, 16, 16, (16,), 32, 32)
V2BF16 = LiteralKind("v2bf16", 32, "bf16", 32, ("bf16",), 32, 32)
V2F16_VOP3 = LiteralKind("v2f16 (VOP3)", 32, 16, 32, (16,), 32, 32)   # f32's range, not f16's
V2F16_SPLAT = LiteralKind("v2f16 (VOP2)", 32, 16, 16, (16,), 32, 32, splat=True)


def literal_kind(op, encoding: str) -> LiteralKind:
    """The kind of a source Operand (signature.Operand) in an encoding: 'salu', 'e32', 'vop3',
    'vop3p', or 'e32_packed' (an e32 instruction with a packed result, v_pk_fmac_f16: a
    constant stands for both halves)."""
    if op.bits == 64 or op.dwords == 2:
        return F64 if op.is_float and encoding != "salu" else B64
    if encoding == "salu":
        return B32
    is_float = op.is_float and not op.int_value
    if op.packed:
        if not is_float:
            return B32
        if op.bf16:
            return V2BF16
        return {"e32_packed": V2F16_SPLAT, "vop3": V2F16_VOP3}.get(encoding, V2F16)
    if op.t16 and op.bits == 16:
        if not is_float:
            return I16
        return BF16 if op.bf16 else F16
    return B32


def _float_bits(x: float, fmt, what: str) -> int:
    """x's bits in the format, rounded to nearest even (no range check)."""
    if fmt == "bf16":
        bits = int.from_bytes(struct.pack("<f", x if math.isinf(x) or abs(x) <= 3.4028234663852886e38
                                          else math.copysign(math.inf, x)), "little")
        if (bits >> 23 & 0xff) == 0xff:
            return bits >> 16
        return (bits + 0x7fff + (bits >> 16 & 1)) >> 16 & 0xffff
    code = {16: "<e", 32: "<f", 64: "<d"}[fmt]
    try:
        return int.from_bytes(struct.pack(code, x), "little")
    except OverflowError:
        return {16: 0x7c00, 32: 0x7f800000}[fmt] | (1 << (fmt - 1) if x < 0 else 0)


_LIMITS = {16: (65504.0, 6.103515625e-05, "<e"), 32: (3.4028234663852886e38, 1.1754943508222875e-38, "<f")}


def _in_range(x: float, fmt) -> bool:
    """LLVM's canLosslesslyConvertToFPType: precision may be lost, but neither overflow nor
    an inexact result below the smallest normal number."""
    if fmt is None or fmt == 64 or math.isinf(x) or math.isnan(x):
        return True
    biggest, smallest, code = _LIMITS[16 if fmt == "bf16" else fmt]
    try:
        y = struct.unpack(code, struct.pack(code, x))[0]
    except OverflowError:
        return False
    if math.isinf(y):
        return False
    return not (abs(y) < smallest and y != x)


def constant(value, kind: LiteralKind, forced: bool, what: str, traits) -> tuple[int, int | None]:
    """(source code, literal dword or None) of a number on an operand of this kind; forced:
    lit(value); `traits`: the family's isa Traits (its inline constants and literal code).
    Raises OperandError (naming `what`) where LLVM refuses the number."""
    if isinstance(value, float):
        return _float_constant(value, kind, forced, what, traits)
    if not -(1 << 63) <= value < (1 << 64):
        raise OperandError(f"{what}: {value} does not fit in 64 bits")
    if value >= 1 << 63:
        value -= 1 << 64                      # integer tokens are 64-bit two's complement
    if kind.int_inline_width == 0:           # 64-bit operands and 16-bit integer ones
        if not forced:
            code = traits.inline_int(value) if kind is I16 else _inline64(value, traits)
            if code is not None:
                return code, None
        if not _fits(value, kind.int_bits):
            raise OperandError(f"{what}: {_show(value)} does not fit in {kind.int_bits} bits")
        word = value & 0xffffffff
        if kind is F64 and not forced:       # an integer is the high dword of the f64
            code = _inline64(word << 32, traits)
            if code is not None:
                return code, None
        return traits.literal, word
    if not _fits(value, kind.int_bits):
        raise OperandError(f"{what}: {_show(value)} does not fit in {kind.int_bits} bits" +
                           (" (the operand is 16-bit)" if kind.int_bits == 16 else ""))
    word = value & ((1 << kind.literal_bits) - 1)
    if not forced:
        code = _inline(word, kind, kind.int_inline_width, traits)
        if code is not None:
            return code, None
    return traits.literal, word


# 1/(2*pi) as LLVM prints it on 16- and 32-bit operands (syntax.INV_2PI_TEXT); on a bf16 operand its
# parser reads exactly these digits as the inline constant (0.15915494309189535 is the literal 0x3e23)
_INV_2PI_SPELLED = float(syntax.INV_2PI_TEXT[32])


def k_constant(value, kind: LiteralKind, what: str, traits) -> int:
    """The literal dword of the constant K of v_fmaak/v_fmamk-style instructions (and CDNA's
    madak/madmk): K is always the literal, taken as lit(K) on an operand of the instruction's data
    type, except that LLVM writes a negative integer K of a 16-bit operation sign-extended to the
    dword (-16 is 0xfffffff0; 65535 is 0x0000ffff)."""
    word = constant(value, kind, True, what, traits)[1]
    return value & 0xffffffff if type(value) is int and value < 0 else word


def _inv2pi_code(x: float, traits) -> int | None:
    """The inline code of 1/(2*pi) if x's f32 value is that constant's, else None."""
    code = _float_codes(traits, 32).get(_float_bits(x, 32, ""))
    return code if code is not None and math.isclose(traits.inline_floats.get(code, 0.0), 1 / (2 * math.pi),
                                                      rel_tol=1e-6) else None


def read_as_literal(value, kind: LiteralKind, traits) -> bool:
    """A number LLVM's assembler reads as a literal although its encoder then writes an inline
    constant for it: where no literal can stand (DPP, SDWA, WMMA's C) it is refused. These are
    - a float token on a 16-bit integer operand whose f32 bits are 1/(2*pi) (`v_add_nc_u16 v1,
      v2, 0.15915494` is the inline code 248; 0.5 or -4.0 are inline constants to both);
    - 1/(2*pi) as LLVM spells it on a bf16 operand (see _INV_2PI_SPELLED);
    - an integer on a VOP3-encoded packed f16 operand that is an f16 inline constant's bits in
      the low half only (v_dot2_f16_f16's 0x3c00; 1.0 is inline to both)."""
    if kind is I16 and isinstance(value, float) or kind in (BF16, V2BF16) and value == _INV_2PI_SPELLED:
        return _inv2pi_code(value, traits) is not None
    if kind is V2F16_VOP3 and type(value) is int and 0 < value <= 0xffff:
        return traits.inline_int(value) is None and value in _float_codes(traits, 16)
    return False


def _float_constant(x: float, kind: LiteralKind, forced: bool, what: str, traits) -> tuple[int, int | None]:
    fmt = kind.float_format
    if fmt is None:                           # 64-bit integer operands: inline floats only
        code = None if forced else _inline64(_signed(_float_bits(x, 64, what), 64), traits)
        if code is None:
            raise OperandError(f"{what}: a 64-bit integer operand takes no floating-point literal "
                               f"({x!r}); write its bits as an integer")
        return code, None
    if not _in_range(x, kind.float_range):
        raise OperandError(f"{what}: {x!r} is out of range for the operand's "
                           f"{_FORMAT_NAMES[kind.float_range]} format")
    bits = _float_bits(x, fmt, what)
    if fmt == 64:
        if not forced:
            code = _inline64(_signed(bits, 64), traits)
            if code is not None:
                return code, None
        return traits.literal, bits >> 32            # the high dword; the low one is dropped
    if not forced:
        code = _inline(bits, kind, kind.int_inline_width or 32, traits)
        if code is None and fmt == "bf16" and x == _INV_2PI_SPELLED:   # LLVM's spelling of 1/(2*pi) is bf16's
            code = _inv2pi_code(x, traits)   # inline 1/(2*pi), although it rounds to 0x3e23, not the constant's 0x3e22
        if code is not None:
            return code, None
    return traits.literal, bits


_FORMAT_NAMES = {16: "f16", 32: "f32", "bf16": "bf16"}


def _inline(word: int, kind: LiteralKind, int_width: int, traits) -> int | None:
    """The inline code of a constant's bits on a 16/32-bit operand (an integer inline
    constant when its low `int_width` bits, sign-extended, are one: -16..64), or None."""
    code = traits.inline_int(_signed(word, int_width))
    if code is not None:
        return code
    if kind.splat:
        lo, hi = word & 0xffff, word >> 16
        return _float_codes(traits, kind.inline_formats[0]).get(lo) if lo == hi else None
    for fmt in kind.inline_formats:
        code = _float_codes(traits, fmt).get(word)
        if code is not None:
            return code
    return None


def _inline64(value: int, traits) -> int | None:
    """The inline code of a 64-bit operand's value (signed), or None."""
    code = traits.inline_int(value)
    return code if code is not None else _float_codes(traits, 64).get(value & 0xffffffffffffffff)


def _show(value: int) -> str:
    return f"{value} (0x{value & 0xffffffffffffffff:x})" if value < 0 else f"0x{value:x}"

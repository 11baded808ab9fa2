"""What a VALU instruction's modifier fields apply to, read from the manual's operand types and
its words: which sources NEG/ABS negate or take the magnitude of, which operands OPSEL picks a
16-bit half of, whether OMOD scales the result and what CLMP does to it. Worked out once by the
generator (isa/gen/facts.py) and read through isa.facts.modifier_use.

- neg/abs: the sources the manual types as floats (f16, f32, f64, bf16, and packed pk_f16,
  pk_f32, pk_bf16: NEG_HI then negates the high elements).
- OPSEL: the operands with 16-bit values (f16, bf16, i16, u16, b16, and the packed pk_*16: each
  half). An instruction whose code reads OPSEL itself (v_permlane16's FI, a byte select) gives
  the bits other meanings: isa.effects' opsel_ranges, isa.facts.opsel_flags.
  A result typed b32 whose code assigns float bit ranges of D0 or tmp is packed floats.
- OMOD: a result typed f16, f32 or f64 (the output modifier multiplies a float result), not a
  conversion from or to an 8-bit or smaller float (fp8, bf8, fp6, bf6, fp4: "These instructions
  do not support ABS, NEG, OMOD or CLAMP", RDNA4 section 7.6.2).
- clamp, the first that holds: a matrix result (D0.f32(16x16)): 'saturate' for integers, None
  for floats (the manual lists WMMA ops among those that ignore clamp); a conversion from or to a
  small float: None; 'float' for a float result (clamped to [0, 1], or to the type's range);
  'saturate' where the manual says "Supports saturation (signed 32-bit integer domain)" and the
  like (v_add_nc_u32, v_sub_nc_i16, v_mad_u16: the integer result saturates instead of
  wrapping); for a compare (a lane bit written: D0.u64[laneId] = ..., or the entry's "also on
  qNAN's if clamp is set") 'signals' when every source is a float ("For V_CMP instructions,
  setting the clamp bit to 1 indicates that the compare signals"), None otherwise (the manual's
  "V_CMP*_CLASS", "V_CMP on integers" ignore it); 'saturate' for an integer result of float
  sources (v_cvt_i32_f32: "For integer operations, it clamps the result to the largest and
  smallest representable value") or of packed 16-bit integer sources (v_pk_add_u16); None
  otherwise (a move, a bitwise or other integer instruction).
- signed_by_neg: the matrix inputs the code types iu8/iu4 (`S0.iu8(16x16)`, RDNA3's and RDNA4's
  WMMA/SWMMAC): "IU4" and "IU8" mean that the operand is either signed or unsigned as indicated
  by the NEG bits instead of performing negation; "NEG[0] indicates if the A-matrix is signed,
  NEG[1] indicates if the B-matrix is signed" (RDNA4 ISA 7.12, p. 99). (V_DOT4_I32_IU8's code
  reads NEG[0] itself: `NEG[0].u1 ? signext(A8.i8) : ...`; it has no iu-typed operand.)
Where LLVM's syntax takes or refuses clamp, OMOD, neg/abs or op_sel against this, a modifier_use
erratum (isa/errata_modifiers.py) sets the field, applied by isa/gen/facts.py."""
from __future__ import annotations

import re

_FLOAT = frozenset({"f16", "f32", "f64", "bf16", "pk_f16", "pk_f32", "pk_bf16"})
_HALVES = frozenset({"f16", "bf16", "i16", "u16", "b16", "pk_f16", "pk_bf16", "pk_i16", "pk_u16", "pk_b16"})
_SCALED = frozenset({"f16", "f32", "f64"})
_SATURATES = re.compile(r"\bSupports saturation \((?:un)?signed \d+-bit integer domain\)")
# a result the types call b32 but the code builds of float halves (RDNA3.5/RDNA4's v_pk_add_f16:
# `tmp[15 : 0].f16 = ...; D0.b32 = tmp`)
_FLOAT_PIECE = re.compile(r"\b(?:D0|tmp)\s*\[\s*\d+\s*:\s*\d+\s*\]\s*\.\s*(f16|bf16|f32)\s*=(?!=)")
_SIGNALS = re.compile(r"also on qNAN's if clamp is set")
_INTEGERS = frozenset({"i16", "u16", "i32", "u32", "i64", "u64", "pk_i16", "pk_u16"})
_PACKED_INTEGERS = frozenset({"pk_i16", "pk_u16", "pk_b16"})
_MATRIX = re.compile(r"\(\d+x\d+\)")                 # D0.f32(16x16) = ...: a matrix result
_MINIFLOAT = re.compile(r"(?<![A-Za-z])(?:fp8|bf8|fp6|bf6|fp4)(?![A-Za-z0-9])")   # S0[7 : 0].fp8, fp8_to_f32(...)
_LANE_RESULT = re.compile(r"\[laneId\]\s*=(?!=)")    # D0.u64[laneId] = S0.f32 < S1.f32: a compare
_SOURCES = ("S0", "S1", "S2")
_EITHER_SIGN = re.compile(r"\b(S[0-2])\.iu\d+\(")     # S0.iu8(16x16): a matrix input NEG says the sign of


def modifier_use(pcode: str | None, description: str | None, notes: str | None,
                 operand_types: dict | None) -> tuple:
    """(clamp, omod, neg/abs sources, OPSEL operands, sources signed by NEG) as isa.facts.ModifierUse
    holds them."""
    types = operand_types or {}
    result = types.get("D0")
    piece = _FLOAT_PIECE.search(pcode or "") if result not in _FLOAT else None
    if piece is not None:
        result = f"pk_{piece.group(1)}"
    neg_abs = tuple(s for s in _SOURCES if types.get(s) in _FLOAT)
    opsel = tuple(n for n in _SOURCES if types.get(n) in _HALVES) + (("D0",) if result in _HALVES else ())
    words = f"{description or ''} {notes or ''}"
    code = pcode or ""
    minifloat = bool(_MINIFLOAT.search(code))
    if _MATRIX.search(code):
        clamp = "saturate" if result in _INTEGERS else None
    elif minifloat:
        clamp = None
    elif result in _FLOAT:
        clamp = "float"
    elif _SATURATES.search(words):
        clamp = "saturate"
    elif _LANE_RESULT.search(code) or _SIGNALS.search(words):
        typed = [n for n in _SOURCES if n in types]
        clamp = "signals" if neg_abs and len(neg_abs) == len(typed) else None
    elif neg_abs or any(types.get(n) in _PACKED_INTEGERS for n in _SOURCES):
        clamp = "saturate"
    else:
        clamp = None
    signed_by_neg = tuple(sorted(set(_EITHER_SIGN.findall(code))))
    return clamp, result in _SCALED and not minifloat, neg_abs, opsel, signed_by_neg

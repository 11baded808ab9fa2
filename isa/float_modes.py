"""Which float operands of an instruction MODE.FP_DENORM flushes and whether MODE.FP_ROUND
rounds its float results, read from the syntax tree of the instruction's pseudocode (the one
grammar, isa/pcode/pcode.lark, as isa/gen/effects.tree reads it; RDNA3 manual "Denormalized
and Rounding Modes"; the same MODE fields on every family).

    from isa.float_modes import float_modes
    m = float_modes("D0.f = trunc(S0.f)")
    m.flushes      # True: its f32 operands are plain scalars, flushed as MODE says
    m.rounds       # False: trunc() is exact, MODE.FP_ROUND has nothing to round

What the pseudocode says, and what follows:
- *packed*: a float is read or written as a bit range of a register (`S0[31 : 16].f16`,
  `D0[15 : 0].f16 = fma(...)`) or the sources are an array (`S[i]`, v_fma_mix): the registers hold
  packed halves or mixed formats, not one float of the register's width (v_pk_*, v_dot*,
  v_cvt_pk_*, v_fma_mix*). Neither flushed as whole registers nor rounded as one typed result:
  `round_types` names the float types its arithmetic rounds (an add, sub, mul, divide, fma or a
  narrowing `fX_to_fY` conversion: the type of the value it makes, from the operands' types,
  `N'F` casts and `declare x : N'F` arrays), each by MODE.FP_ROUND's half for that type; none
  where the code sets ROUND_MODE itself (gfx950's v_cvt_pk_f16_f32: to nearest even).
- *matrix*: the operands are (MxN) matrices (WMMA, MFMA/SMFMAC: isa/gen/effects.py's `matrix`
  and `shapes`, and CDNA's formula `D = A (32x8) * B (8x32) + C (32x32)`): the matrix core applies
  the manual's own per-variant rules (emu/handwritten/). Neither flushed nor rounded by MODE.
- *scaled conversion*: a call of CDNA4's f32_to_<fp8|bf8|fp6|bf6|fp4>[_sr]_scale: the conversion
  itself flushes its f32 source as MODE.FP_DENORM's f32 half says (CDNA4 7.3, "Conversion from F32
  supports MODE-based denormal control"; emu/rtlib.py), also one f32 of a register pair
  (`S0[63 : 32].f32`) or of a 1024-bit source; isa.effects.wave_state reads that half for them.
  No operand is flushed as a whole register (the scale's exponent field is read as bits); codes,
  no rounding.
- *classifies*: the pseudocode compares `exponent(x)` with a bound and writes no float:
  it reports the class of its float source (v_cmp_class), which a flushed input would change.
  Not flushed (rounding does not arise: no float result).
- *own rounding*: the pseudocode assigns ROUND_MODE itself (v_cvt_pk_rtz: toward zero), or the
  description says the instruction rounds toward zero (v_interp_*_rtz_*, v_trunc_*).
- *exact*: every float result is a selection (a source, a quieted NaN, a constant), an
  exact function (trunc, floor, mantissa, another min/max/med instruction) or an integral
  step after one (`D0 += 1.0` in ceil): min/max/med3, floor/ceil/trunc/rndne, frexp_mant.
  MODE.FP_ROUND has nothing to round.
An instruction without float results (compares, moves, integer ops) rounds nothing either.
A float result is an assignment (=, +=, -=, *=) to `Dn.T` or `Dn[...].T`, T a float type, or a
float held as bits of a wider register: `Dn = { 16'0, tmp.f16 }` (a concatenation with a part
`tmp.T`, tmp a temporary the code assigns; CDNA's legacy f16 VOP2/VOP3A forms, v_mac_f16 ...
v_div_fixup_legacy_f16, which also place it at bits 31:16 under OPSEL[3]): the assignments to
tmp are then its float results, and the fact names T (`bit_results`): MODE rounds and flushes
the f16 as it does a `D0.f16` result.

The generator reads every instruction so once (isa/gen/facts.py); processes read the committed
answers through isa.facts.float_modes(d) and do not import this module."""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Tree

from .facts import FloatModes
from .gen.effects import MATRIX_FORMULA, assignment, effects, flat_statements, name_of, number, tree, walk

_FLOAT_TYPES = {"f", "f16", "f32", "f64", "bf16"}
_RESULT = re.compile(r"D\d")                      # (names, not text: D0, D1)
_SOURCE = re.compile(r"S\d")
# pseudocode functions whose result is exactly representable: no rounding happens in them
_EXACT_CALLS = ("trunc", "floor", "mantissa", "cvtToQuietNAN", "v_min", "v_max", "v_med")
_COMPARISONS = {"<", ">", "<=", ">=", "==", "!="}
# a constant's spelling: 1.0, 1.0F, 32'1.0F, 2 (not hexadecimal, not with a U/I/B size letter)
_CONSTANT = re.compile(r"(?:\d+')?\d+(?:\.\d+)?F?")
_CAST = re.compile(r"\d+'[FBUI]")

# The description states a rounding of the instruction's own where its pseudocode does not:
# RDNA3.5/RDNA4's V_INTERP_P10/P2_RTZ_F16_F32 ("using round toward zero semantics") are the same
# fma as the non-RTZ forms in code; RDNA3 gives them no code ("Same as V_INTERP_P10_F16_F32 except
# rounding mode is overridden to round toward zero").
_RTZ_DESCRIPTION = re.compile(r"\bround(?:ing)?\b[^.]*?\btoward zero", re.I)


def _is(node, kind: str) -> bool:
    return isinstance(node, Tree) and node.data == kind


def _float_type(field) -> bool:
    return _is(field, "field") and str(field.children[1]) in _FLOAT_TYPES


def _constant_range(node) -> bool:
    return _is(node, "slice") and number(node.children[1]) is not None and number(node.children[2]) is not None


def _packed(root, assignments: list) -> bool:
    """`Sn[hi : lo].T` (T a float type: f16, bf16, fp8...), `S[i]`, or an assignment
    `Dn[hi : lo].T = call(...)` / `tmp[hi : lo].T = call(...)`."""
    for n in walk(root):
        if _is(n, "field") and _constant_range(n.children[0]) and _SOURCE.fullmatch(name_of(n.children[0].children[0]) or "") \
                and str(n.children[1]).startswith(("f", "bf", "fp")):
            return True
        if _is(n, "index") and name_of(n.children[0]) == "S" and name_of(n.children[1]) == "i":
            return True
    for target, op, value in assignments:
        if op == "=" and _is(target, "field") and _constant_range(target.children[0]) and _is(value, "call"):
            base = name_of(target.children[0].children[0]) or ""
            if _RESULT.fullmatch(base) or base == "tmp":
                return True
    return False


def _scaled_from_f32(root) -> bool:
    """A call of CDNA4's scaled conversions from f32 (`f32_to_fp4_sr_scale(S0[31 : 0].f32, ...)`):
    "Conversion from F32 supports MODE-based denormal control" (CDNA4 7.3, Converts with Scale),
    whether the f32 is a register's whole value or one of a pair; they give codes, no float."""
    return any(_is(n, "call") and re.fullmatch(r"f32_to_\w+_scale", str(n.children[0])) for n in walk(root))


def _float_result(target) -> bool:
    """`Dn.T` or `Dn[...].T`, T a float type."""
    if not _float_type(target):
        return False
    inner = target.children[0]
    if _is(inner, "index") or _is(inner, "slice") or _is(inner, "slice_up"):
        inner = inner.children[0]
    return _RESULT.fullmatch(name_of(inner) or "") is not None


def _bit_results(assignments: list) -> dict[str, str]:
    """{temporary: float type} of the parts `tmp.T` of concatenations assigned to a result
    register whole: `D0 = { 16'0, tmp.f16 }` -> {'tmp': 'f16'}."""
    out = {}
    for target, op, value in assignments:
        if op == "=" and _RESULT.fullmatch(name_of(target) or "") and _is(target, "name") and _is(value, "concat"):
            for part in value.children:
                base = name_of(part.children[0]) if _float_type(part) and _is(part.children[0], "name") else None
                if base and not _RESULT.fullmatch(base) and not _SOURCE.fullmatch(base):
                    out[base] = str(part.children[1])
    return out


_ARITHMETIC = {"+", "-", "*", "/"}
_CONVERSION = re.compile(r"(f16|f32|f64|bf16)_to_(f16|f32|f64|bf16)")
_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_NF = re.compile(r"(16|32|64)'F")


def _float_of(t: str) -> str | None:
    t = "f32" if t == "f" else t
    return t if t in _WIDTH else None


def _type_of(node, names: dict):
    """The float type of an expression's value, or None (integers, untyped names)."""
    if _is(node, "field"):
        return _float_of(str(node.children[1]))
    if _is(node, "cast"):
        m = _NF.fullmatch(str(node.children[0]))
        return f"f{m.group(1)}" if m else None
    if _is(node, "call"):
        m = _CONVERSION.fullmatch(str(node.children[0]))
        if m:
            return m.group(2)
        return next((t for a in node.children[1:] if (t := _type_of(a, names))), None)
    if _is(node, "binop"):
        if str(node.children[1]) not in _ARITHMETIC:
            return None
        return _type_of(node.children[0], names) or _type_of(node.children[2], names)
    if _is(node, "unary"):
        return _type_of(node.children[-1], names)
    if _is(node, "ternary"):
        return _type_of(node.children[1], names) or _type_of(node.children[2], names)
    if _is(node, "index") or _is(node, "slice"):
        return _type_of(node.children[0], names)
    return names.get(name_of(node)) if _is(node, "name") else None


def _round_types(root, assignments: list) -> tuple[str, ...]:
    """Packed code: the float types of the values its arithmetic rounds (module docstring)."""
    names: dict[str, str] = {}
    for n in walk(root):        # `declare in : 32'F[3]`
        if _is(n, "declare") and len(n.children) > 1 and (m := _NF.fullmatch(str(n.children[1]))):
            names[str(n.children[0])] = f"f{m.group(1)}"
    out = set()
    for target, op, value in assignments:
        base = name_of(target) if _is(target, "name") else None
        kind = _type_of(value, names)
        if base and kind and base not in names:
            names[base] = kind          # `tmp = 32'F(...) * ...`: tmp holds an f32
        if op in ("+=", "-=", "*="):
            t = _type_of(target, names) or kind
            if t:
                out.add(t)
        for n in walk(value):
            if _is(n, "binop") and str(n.children[1]) in _ARITHMETIC or \
                    _is(n, "call") and str(n.children[0]) == "fma":
                t = _type_of(n, names)
            elif _is(n, "call") and (m := _CONVERSION.fullmatch(str(n.children[0]))) \
                    and _WIDTH[m.group(2)] < _WIDTH[m.group(1)]:
                t = m.group(2)
            else:
                continue
            if t:
                out.add(t)
    return tuple(sorted(out))


def _rightmost(node):
    """The operand an expression ends with: `exponent(x)` of `a + exponent(x)`."""
    while isinstance(node, Tree) and node.data in ("binop", "unary", "ternary"):
        node = node.children[-1]
    return node


def _classifies(root) -> bool:
    """`exponent(x) <op> bound`, op a comparison, x without calls or casts."""
    for n in walk(root):
        if _is(n, "binop") and str(n.children[1]) in _COMPARISONS:
            left = _rightmost(n.children[0])
            if _is(left, "call") and str(left.children[0]) == "exponent" \
                    and not any(_is(x, "call") or _is(x, "cast") for a in left.children[1:] for x in walk(a)):
                return True
    return False


def _own_rounding(assignments: list) -> bool:
    """An assignment to ROUND_MODE (or a register's ROUND_MODE field)."""
    for target, _, _ in assignments:
        if name_of(target) == "ROUND_MODE" or _is(target, "field") and str(target.children[1]) == "ROUND_MODE":
            return True
    return False


def _constant(node) -> bool:
    if _is(node, "unary") and str(node.children[0]) in "+-":
        node = node.children[1]
    if _is(node, "number") or _is(node, "sized_lit"):
        return _CONSTANT.fullmatch(str(node.children[0])) is not None
    return name_of(node) in ("INF", "NAN")


def _operand(node) -> bool:
    """`Sn.T` / `Dn.T` (T a float type), signed or not."""
    if _is(node, "unary") and str(node.children[0]) in "+-":
        node = node.children[1]
    return _float_type(node) and re.fullmatch(r"[SD]\d", name_of(node.children[0]) or "") is not None


def _exact(value, op: str) -> bool:
    if op != "=":                        # an integral step after an exact value (ceil, floor, rndne)
        return _constant(value)
    while _is(value, "cast") and _CAST.fullmatch(str(value.children[0])):
        value = value.children[1]
    if _operand(value) or _constant(value):
        return True
    if _is(value, "ternary"):
        return _exact(value.children[1], "=") and _exact(value.children[2], "=")
    while _is(value, "binop"):           # the call the value starts with
        value = value.children[0]
    return _is(value, "call") and str(value.children[0]).startswith(_EXACT_CALLS)


@lru_cache(maxsize=None)
def float_modes(pcode: str | None, description: str | None = None) -> FloatModes:
    """The MODE float rules for the instruction whose pseudocode is `pcode` and whose manual
    description is `description` (module docstring)."""
    e = effects(pcode)
    if e.matrix or e.shapes or pcode and MATRIX_FORMULA.match(pcode.strip()):
        return FloatModes(False, False, "matrix")
    root = tree(pcode) if pcode else None
    statements = flat_statements(root) if root is not None else []
    assignments = [a for kind, s in statements if kind == "statement" and (a := assignment(s)) is not None]
    if root is not None and _scaled_from_f32(root):
        return FloatModes(False, False, "scaled conversion")
    if root is not None and _packed(root, assignments):
        rounded = () if _own_rounding(assignments) else _round_types(root, assignments)
        return FloatModes(False, False, "packed", (), rounded)
    held = _bit_results(assignments)           # `D0 = { 16'0, tmp.f16 }`: tmp's assignments are results
    results = [(t, op, v) for t, op, v in assignments if op in ("=", "+=", "-=", "*=")
               and (_float_result(t) or _is(t, "name") and name_of(t) in held)]
    bits = tuple(sorted(set(held.values())))
    if not results and root is not None and _classifies(root):
        return FloatModes(False, False, "classifies")
    if _own_rounding(assignments) or _RTZ_DESCRIPTION.search(description or ""):
        return FloatModes(True, False, "own rounding", bits)
    if not results:
        return FloatModes(True, False, "no float result")
    if all(op != "*=" and (_is(t, "name") or _is(t.children[0], "name")) and _exact(v, op) for t, op, v in results):
        return FloatModes(True, False, "exact", bits)
    return FloatModes(True, True, "arithmetic", bits)

"""Which VOP3P sources take NEG and NEG_HI and how the text writes them (`packed_negation`): one
rule, from the manual's operand types through isa.facts.modifier_use, read by `-x`/`|x|` in both
encoders (written only on v_fma_mix*/v_mad_mix*: `sign_error`) (dsl/encode.py, dsl/asm_gfx9.py), by the neg_lo/neg_hi lists (dsl.signature.neg_list_error)
and by the decoders (dsl.signature.neg_bits_error).

    >>> import isa
    >>> d = next(d for d in isa.load("gfx1201").instructions if d.name == "V_DOT4_F32_FP8_BF8")
    >>> packed_negation(d).list_error("neg_lo", 0b001)
    'neg_lo: src0 takes no neg_lo (only src2 may)'
    >>> packed_negation(d).sign_error(2, 3)
    'src2 takes no -x/|x| on a packed instruction (LLVM: not a valid operand); write neg_lo:[0,0,1] / neg_hi:[0,0,1]'
"""
from __future__ import annotations

from dataclasses import dataclass

from isa import InstrDef
from isa.effects import effects
from isa.facts import modifier_use
from isa.spec import family_of

from . import syntax


_FLOAT_RESULTS = frozenset({"f16", "f32", "f64", "bf16", "pk_f16", "pk_f32", "pk_bf16"})


@dataclass(frozen=True)
class PackedNegation:
    """Which sources of a VOP3P instruction take NEG and NEG_HI (bits by source), and how: `signs`
    (v_fma_mix*, v_mad_mix*) writes NEG as -x and NEG_HI as |x| and takes no neg_lo/neg_hi list;
    the rest write them as neg_lo:[..]/neg_hi:[..] (a `-x` sets NEG too); none takes ABS."""
    neg: int
    neg_hi: int
    signs: bool = False

    def list_error(self, key: str, bits: int) -> str | None:
        """Why a `key` list ('neg_lo': NEG, 'neg_hi': NEG_HI) setting the sources in `bits` (none: an
        all-zero list) cannot be written, or None."""
        ok = self.neg_hi if key == "neg_hi" else self.neg
        if self.signs or not ok:    # LLVM: "not a valid operand", an all-zero list too
            return f"{key}: the instruction takes no {key} (NEG applies to none of its sources)"
        bad = bits & ~ok
        if not bad:
            return None
        i = (bad & -bad).bit_length() - 1
        return f"{key}: src{i} takes no {key} (only {', '.join(f'src{j}' for j in range(3) if ok >> j & 1)} may)"

    def sign_error(self, i: int, nsrc: int) -> str | None:
        """Why source `i` (of `nsrc`) cannot be written as -x or |x|, or None (v_fma_mix*, v_mad_mix*).
        LLVM 22 writes NEG/NEG_HI of every other VOP3P instruction only as lists ("not a valid operand")."""
        if self.signs:
            return None
        if not (self.neg | self.neg_hi) >> i & 1:
            return f"src{i} takes no -x/|x| and no neg_lo/neg_hi (NEG applies to none of its sources)"
        entry = ",".join("1" if j == i else "0" for j in range(nsrc))
        keys = " / ".join(f"{k}:[{entry}]" for k, ok in (("neg_lo", self.neg), ("neg_hi", self.neg_hi)) if ok >> i & 1)
        return f"src{i} takes no -x/|x| on a packed instruction (LLVM: not a valid operand); write {keys}"


def packed_negation(d: InstrDef) -> PackedNegation:
    """The sources of VOP3P instruction `d` NEG and NEG_HI may be set for,
    from the manual's operand types (isa.facts.modifier_use.neg_abs: the sources typed as floats),
    one rule for `-x`/`|x|` (dsl/encode.py, dsl/asm_gfx9.py), the neg_lo/neg_hi lists
    (dsl.signature.neg_list_error) and the decoders (dsl.signature.neg_bits_error):
    - v_fma_mix*/v_mad_mix* (mixed sources, untyped; NEG "modifies all inputs"): every source, as
      -x and |x| (NEG_HI is its ABS); no lists (LLVM 22: "not a valid operand").
    - a float result (D0 typed f16..pk_bf16) or some source typed a float: the float-typed sources
      alone (the VOP3P field table: NEG "float inputs only"; RDNA4 ISA 7.7, p. 89-90: "Only SRC2 can
      apply NEG/NEG_HI" on v_dot4_f32_{fp8,bf8}_*, NEG zero for an FP8/BF8 WMMA's A and B; SWMMAC's
      index, and every source of an 8-bit float SWMMAC, take none).
    - a move of raw bits (every operand b32: CDNA's v_accvgpr_read/write): none.
    - an integer matrix instruction with iu8/iu4 inputs (isa.facts.modifier_use.signed_by_neg:
      RDNA4's WMMA/SWMMAC, NEG[i] says whether input i is signed): NEG on those, NEG_HI on none
      ("NEG[2] and NEG_HI[2:0] must be zero", p. 99; LLVM 22 takes any on gfx11's).
    - the rest (integer packed math, the IU dot, where NEG is signedness): every source.
    LLVM 22 refuses the rest ("invalid neg_lo operand"; checked on every VOP3P instruction by
    tests/test_dsl_vop3_modifier_sweep.py and tests/test_asm_refusal_classes.py)."""
    every = 7
    if effects(d.pcode).mixed_sources:
        return PackedNegation(every, every, True)
    use = modifier_use(d)
    types = d.operand_types or {}
    if types.get("D0") in _FLOAT_RESULTS or use.neg_abs:
        floats = sum(1 << int(s[1]) for s in use.neg_abs)
        return PackedNegation(floats, floats)
    if types and set(types.values()) == {"b32"}:
        return PackedNegation(0, 0)
    if use.signed_by_neg and family_of(d) not in syntax.WMMA_REPLICATED:
        signed = sum(1 << int(s[1]) for s in use.signed_by_neg)
        return PackedNegation(signed, 0)
    return PackedNegation(every, every)

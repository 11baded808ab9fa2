"""What a 16-bit VGPR result does to the other half of its register (isa.effects.half_result,
generated from the code's 16-bit D0 and the family's rule, isa/errata.py HALF_RESULTS), against
LLVM 22's assembler and the manuals' text:
- RDNA ('kept' everywhere): llvm-mc-22 takes the high half `vN.h` as the destination of every
  such instruction, in its e32 and e64 forms (true16: VDST[7] or OPSEL[3] picks the half);
- CDNA: an instruction we call 'kept' takes op_sel with the destination bit (LLVM's gfx9 VOP3
  op_sel, OPSEL[3] picks the half), one we call 'zeroed' is refused op_sel in its e64 form;
- the CDNA3 manual's notes that say "hi 16 bits are preserved" are on instructions called 'kept',
  and each family's HALF_RESULTS holds every VALU instruction whose code writes a 16-bit D0 to a
  VGPR and nothing else.
The emulator's side (the register after the instruction) is tests/test_emu_half_results.py and
the effects check with Checker.overwritten (tests/effects_check.py)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import isa
from isa.effects import effects, half_result, instruction_effects
from dsl.operands import OperandError
from dsl.signature import valu_signature
from tests.effects_check import V_DST, V_SRC, Checker
from tests.llvm_tools import mc_items

RDNA, CDNA = ("gfx1100", "gfx1151", "gfx1201"), ("gfx942", "gfx950")


def sixteen_bit_results(target: str) -> list:
    spec = isa.load(target)
    return [d for d in spec.instructions if half_result(d) is not None]


@pytest.mark.parametrize("target", RDNA + CDNA)
def test_half_results_are_the_vgpr_results_written_as_16_bits(target):
    spec = isa.load(target)
    roles, rule = spec.traits.roles, {"cdna3": "opsel", "cdna4": "opsel"}.get(spec.arch, "kept")
    for d in spec.instructions:
        # the code writes D0 only as 16 bits into bits 15:0; without code, D0's type is 16-bit
        written16 = "D0" in effects(d.pcode).half_writes if d.pcode else \
            re.fullmatch(r"(f|b|i|u|bf)16", (d.operand_types or {}).get("D0") or "") is not None
        vgpr = d.format in roles.valu and not re.search(r"scalar register", d.description or "")
        got = half_result(d)
        if not (written16 and vgpr):
            assert got is None, d.name
            assert instruction_effects(d) == effects(d.pcode), d.name
            continue
        vop3_only = d.format in roles.valu_e64 and not d.promoted_from
        in_part = bool(d.pcode) and "D0" not in effects(d.pcode).full      # D0.u[15 : 0] = ...: the rest kept
        assert got == ("kept" if rule == "kept" or vop3_only or in_part else "zeroed"), (d.name, d.format)
        e = instruction_effects(d)
        if d.pcode:
            assert ("D0" in e.partial and "D0" in e.reads) == (got == "kept"), d.name
    assert sixteen_bit_results(target)


def test_cdna3_notes_that_say_the_high_half_is_kept():
    spec = isa.load("gfx942")
    noted = [d for d in spec.instructions if "hi 16 bits are preserved" in (d.notes or "")]
    assert {d.name for d in noted} >= {"V_MAD_F16", "V_FMA_F16", "V_DIV_FIXUP_F16"}
    for d in noted:
        # the legacy twins' code writes { 16'0, tmp } itself: a whole 32-bit write, no half result
        assert half_result(d) == "kept" or "16'0" in d.pcode, d.name


def _case_texts(target: str) -> list[tuple[object, str]]:
    """(InstrDef, its text as the effects check builds it: D0 in v40, sources in v8, v16, v24)."""
    c = Checker(target)
    out = []
    for k, d in enumerate(sixteen_bit_results(target)):
        if d.format not in c.traits.roles.valu_e32 | c.traits.roles.valu_e64:
            continue
        try:
            case = c.valu_case(d, np.random.default_rng(k))
        except OperandError:        # (v_mov_b16 names its halves: the check's plain registers do not fit)
            continue
        out.append((d, case.text))
    return out


def _true16(d, text: str) -> str:
    """The text in LLVM's true16 spelling: 16-bit sources `.l` (RDNA4's default text is fake16)."""
    if ".l" in text:
        return text
    for i, src in enumerate(valu_signature(d).srcs[:3]):
        if src.t16:
            text = re.sub(rf"\bv{V_SRC[i]}\b(?!\.)", f"v{V_SRC[i]}.l", text)
    return re.sub(rf"\bv{V_DST}\b(?!\.)", f"v{V_DST}.l", text, count=1)


@pytest.mark.parametrize("target", RDNA)
def test_rdna_16_bit_results_take_the_high_half_in_llvm(target):
    """Every RDNA 16-bit result the code writes whole (`D0.f16 = ...`) may be the high half v40.h
    (llvm-mc-22 encodes it, true16), the half the other one of which it keeps (RDNA 7.4: the two
    halves are addressed separately)."""
    # (v_fma_mixlo_f16's code names its half itself, D0[15 : 0]: not the encoding's to pick)
    cases = [(d, text) for d, text in _case_texts(target) if "D0" in effects(d.pcode).full]
    lines = [re.sub(rf"\bv{V_DST}\.l\b", f"v{V_DST}.h", _true16(d, text), count=1) for d, text in cases]
    assert all(f"v{V_DST}.h" in line for line in lines), [x for x in lines if f"v{V_DST}.h" not in x][:5]
    refused = [(line, errors) for line, (_, errors) in zip(lines, mc_items(lines, target, "+real-true16")) if errors]
    assert not refused, refused[:5]
    assert len(lines) > 60


@pytest.mark.parametrize("target", CDNA)
def test_cdna_op_sel_goes_with_kept_and_not_with_zeroed(target):
    """CDNA: LLVM 22 writes the high half through op_sel's destination bit on exactly the
    instructions called 'kept' (VOP3 only); the VOP1/VOP2 ones, 'zeroed', refuse op_sel in
    their e64 form (their e32 form has no op_sel at all)."""
    cases = [(d, text) for d, text in _case_texts(target) if d.format in ("VOP3A", "VOP3B")]
    lines = []
    for d, text in cases:
        sources = text.count(",")
        lines.append(f"{text} op_sel:[{','.join(['0'] * sources + ['1'])}]")
    answers = mc_items(lines, target)
    kept = [d.name for d, _ in cases if half_result(d) == "kept"]
    zeroed = [d.name for d, _ in cases if half_result(d) == "zeroed"]
    assert len(kept) >= 10 and len(zeroed) >= 30, (kept, zeroed)
    for (d, _), line, (words, errors) in zip(cases, lines, answers):
        if half_result(d) == "kept":
            assert not errors and words, (line, errors)
            first = int(words[0].split(",")[1], 16)          # byte 1 holds OPSEL (bits 14:11)
            assert first & 0x40, (line, words)               # OPSEL[3]: the destination's high half
        else:
            assert errors and "not a valid operand" in errors[0][1], (line, errors, words)

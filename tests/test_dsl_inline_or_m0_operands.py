"""Scalar sources whose operand code is the value itself (RDNA4's barrier numbers:
`IsM0(SRC0.u32) ? M0[4 : 0] : SRC0.i32`; the manual, section 5.6.2: "Barrier instructions can use
M0 or an inline constant to refer to the barrier number"): the assembler takes M0 or an inline
constant and refuses a literal (integer or float) or any other register, as llvm-mc-22 does.
Checked over every instruction of the class, found by the pseudocode, against llvm-mc-22's
bytes and refusals (skipped without it)."""
import pytest

import isa
from dsl.asm import AsmError, assemble
from dsl.encode import _code_as_number, _scalar_operands
from tests.llvm_tools import mc_encodings

# a source operand each: inline integers and floats at their edges, literals (integer, float,
# forced, past the inline range), SGPRs and special registers, M0. Not `null`: llvm-mc-22 takes it
# here and encodes the inline constant 20 (0x94, not null's code 124); we refuse it, as the
# manual allows only M0 or an inline constant.
VALUES = ["-16", "-1", "0", "64", "0.5", "-4.0", "1.0", "0.15915494", "1.5", "-2.5", "0x12345", "65", "-17",
          "lit(1)", "0x3f800000", "s1", "s105", "vcc_lo", "exec_lo", "ttmp0", "m0"]


def _class(family: str):
    return [d for d in isa.load(family).instructions if d.format.startswith("SOP") and _code_as_number(d)]


def _line(d, value: str) -> str:
    _, names = _scalar_operands(d)
    return d.name.lower() + " " + ", ".join("s0" if n == "sdst" else value for n in names)


def test_the_class_is_the_barrier_number_instructions():
    """The pseudocode finds RDNA4's barrier instructions that take a number (the manual's three, and
    s_barrier_init/join, which errata add with that operand read), and nothing in the other families
    (their barriers are SOPP s_barrier with no operand)."""
    assert {d.name for d in _class("rdna4")} == {"S_BARRIER_SIGNAL", "S_BARRIER_SIGNAL_ISFIRST", "S_GET_BARRIER_STATE",
                                                 "S_BARRIER_INIT", "S_BARRIER_JOIN"}
    for family in ("rdna3", "rdna3.5", "cdna3", "cdna4"):
        assert _class(family) == []


def test_inline_constant_or_m0_as_llvm_mc():
    lines = [_line(d, v) for d in _class("rdna4") for v in VALUES]
    refs = mc_encodings(lines, "gfx1201")
    accepted = refused = 0
    for line, ref in zip(lines, refs):
        if ref is None:
            with pytest.raises(AsmError, match=r"^1:\d+: s_\w+: ssrc0: "):
                assemble(line, "gfx1201")
            refused += 1
        else:
            assert bytes(assemble(line, "gfx1201")) == ref, line
            accepted += 1
    # LLVM takes the nine inline constants (0x3f800000: 1.0's bits) and m0 of each instruction,
    # refuses the literals and the other registers
    n = len(_class("rdna4"))
    assert n == 5 and accepted == n * 10 and refused == n * (len(VALUES) - 10)


def test_refusal_names_the_operand():
    with pytest.raises(AsmError, match=r"^1:18: s_barrier_signal: ssrc0: takes M0 or an inline constant, not null"):
        assemble("s_barrier_signal null", "gfx1201")
    with pytest.raises(AsmError, match=r"^1:26: s_barrier_signal_isfirst: ssrc0: 1\.5 is not an inline constant"):
        assemble("s_barrier_signal_isfirst 1.5", "gfx1201")
    with pytest.raises(AsmError, match=r"^1:18: s_barrier_signal: ssrc0: takes M0 or an inline constant, not s1"):
        assemble("s_barrier_signal s1", "gfx1201")

"""A VALU source the instruction writes (isa.effects: v_swap_b32's S0.b32 = tmp) is a VGPR on
RDNA3/3.5/4: an SGPR, a special register or a constant there is refused at the operand's column,
as llvm-mc-22 refuses it ("invalid operand for instruction"); a VGPR gives llvm-mc-22's bytes.
The instructions come from the generated effects over every instruction of each target, so a new
one that writes a source is checked without being named here."""
from __future__ import annotations


import pytest

import dsl
from dsl import families
from isa.effects import effects
from dsl.signature import valu_signature

from .llvm_tools import mc_items
from .test_dsl_true16_sweep import half_moves

ARCHES = ("gfx1100", "gfx1151", "gfx1201")
# gfx1201's 16-bit raw-bit moves (v_swap_b16): the manual lists them, llvm-mc-22's default gfx12
# syntax lacks them; a difference listed by class in tests/test_dsl_true16_sweep.py (half_moves),
# where only the refusal of non-VGPR sources is compared
LLVM_LACKS_ARCHES = ("gfx1201",)


def written_sources(arch: str) -> list[tuple[str, int, bool]]:
    """(mnemonic, source index, 16-bit operand) of each VALU source whose register the code writes."""
    spec = families.load_for_assembly(arch)
    found = []
    for d in spec.instructions.values() if isinstance(spec.instructions, dict) else spec.instructions:
        written = effects(d.pcode or "").writes
        for i in range(3):
            if f"S{i}" in written:
                found.append((d.name, i, valu_signature(d).srcs[i].t16))
    return sorted(set(found))


def test_effects_name_the_swaps():
    """The generated effects find the swaps (so the check below is not vacuous)."""
    assert ("V_SWAP_B32", 0, False) in written_sources("gfx1100")
    assert "V_SWAP_B32" in {n for n, _, _ in written_sources("gfx1201")}


@pytest.mark.parametrize("arch", ARCHES)
def test_written_source_takes_only_a_vgpr(arch):
    cases = []
    halves = arch.startswith("gfx11")       # RDNA3/3.5 spell 16-bit VGPR operands v1.l / v1.h
    for name, i, t16 in written_sources(arch):
        vreg = (lambda n: f"v{n}.l") if t16 and halves else (lambda n: f"v{n}")
        for choice in ("s8", "vcc_lo", "1", "0x1234", vreg(8)):
            srcs = [vreg(10 + k) for k in range(i)] + [choice]
            head = f"{name.lower()} {vreg(30)}, " + ", ".join(srcs[:-1] + [""])
            cases.append((name, choice, head + choice, len(head) + 1))
    answers = mc_items([line for _, _, line, _ in cases], arch)
    for (name, choice, line, column), (words, errors) in zip(cases, answers):
        try:
            ours, our_error = dsl.assemble(line, arch=arch), None
        except dsl.AsmError as e:
            ours, our_error = None, str(e)
        if arch in LLVM_LACKS_ARCHES and name in half_moves(arch):
            assert errors and "not supported" in errors[0][1], (line, errors)
            if not choice.startswith("v"):
                assert ours is None, line
            continue
        if errors:
            assert errors[0] == (column, "invalid operand for instruction"), (line, errors)
            assert ours is None, f"{arch}: {line!r}: llvm-mc-22 refuses it, we gave {ours.hex()}"
            assert our_error.startswith(f"1:{column}: {name.lower()}: src"), our_error
            assert "must be a VGPR" in our_error, our_error
        else:
            want = bytes(int(b, 16) for w in words for b in w.split(","))
            assert ours == want, f"{arch}: {line!r}: ours {our_error or ours.hex()}, llvm-mc-22 {want.hex()}"
            assert choice.startswith("v"), line


def test_rdna4_v_swap_b16_is_llvms_true16_encoding():
    """A difference kept on purpose: RDNA4's manual lists V_SWAP_B16 (VOP1 opcode 102, table of
    VOP1 opcodes; 7.4: a VOP1 16-bit operand's SRC/DST[7] selects the half). LLVM 22 defines it
    for gfx12 too (VOP1Instructions.td: `defm V_SWAP_B16 : VOP1Only_Real_gfx11_gfx12<0x066>`) but
    only for true16 operands (`let True16Predicate = UseRealTrue16Insts`), and gfx1201's default
    syntax writes 16-bit operands as whole VGPRs, so llvm-mc-22 says "instruction not supported
    on this GPU"; with -mattr=+real-true16 it encodes it. We keep accepting it in gfx1201's
    whole-VGPR syntax (the low halves), with the bytes LLVM's true16 mode gives; no erratum, the
    manual is not wrong."""
    pairs = [(1, 2), (0, 127), (127, 5), (64, 3)]
    plain = mc_items([f"v_swap_b16 v{a}, v{b}" for a, b in pairs], "gfx1201")
    assert all(errors and "not supported on this GPU" in errors[0][1] for _, errors in plain), plain
    true16 = mc_items([f"v_swap_b16 v{a}.l, v{b}.l" for a, b in pairs], "gfx1201", mattr="+real-true16")
    for (a, b), (words, errors) in zip(pairs, true16):
        assert not errors, errors
        want = bytes(int(x, 16) for w in words for x in w.split(","))
        assert dsl.assemble(f"v_swap_b16 v{a}, v{b}", "gfx1201") == want, (a, b)

"""16-bit VGPR operands written as whole VGPRs or as halves, against llvm-mc-22 (gfx1100, gfx1151,
gfx1201).

Every VOP1/VOP2/VOP3/VOPC instruction of the target with a 16-bit operand (the widths come from
the generated facts through dsl.signature), in each encoding it has (the plain mnemonic, and
`_e64` for VOP1/VOP2/VOPC), is written with its 16-bit VGPR operands as whole VGPRs (v20), as low
halves (v20.l) and as high halves (v20.h). One llvm-mc run per target; each line must be
accepted alike with the same bytes or refused by both.

The one class LLVM 22 treats apart: the instructions whose VGPR operands are all 16 raw bits
(D0.b16 = S0.b16: v_mov_b16, v_swap_b16, the encoder's halves_only). llvm-mc-22 defines them only
in true16 syntax: on gfx11 it refuses a whole VGPR there ("invalid operand for instruction"),
and so do we, at the same column, asking for v1.l or v1.h; gfx1201's default syntax (whole
VGPRs) lacks them altogether ("instruction not supported on this GPU"). The RDNA4 manual lists
them (VOP1 opcodes 28 V_MOV_B16 and 102 V_SWAP_B16; 7.4: a 16-bit VGPR operand's bit 7 selects
the half), so we keep them on gfx1201 as a listed difference, with the bytes llvm-mc-22 gives
under -mattr=+real-true16 for the low halves (test_gfx1201_keeps_the_half_moves)."""
from __future__ import annotations

import collections
import re

import pytest

import dsl
from dsl import families
from dsl.encode import _moves_halves
from dsl.signature import valu_signature

from .llvm_tools import mc_items

SPELLINGS = ("whole", "l", "h")


def _instructions(arch: str):
    spec = families.load_for_assembly(arch)
    found = spec.instructions.values() if isinstance(spec.instructions, dict) else spec.instructions
    for d in found:
        if d.format in ("VOP1", "VOP2", "VOP3", "VOP3SD", "VOPC"):
            sig = valu_signature(d)
            if any(o.t16 for o in sig.dsts + sig.srcs):
                yield d, sig


def half_moves(arch: str) -> set[str]:
    """The instructions of the class above: on gfx1201 the listed difference (LLVM 22's default
    syntax lacks them), which tests/test_dsl_written_sources.py reads too."""
    return {d.name for d, sig in _instructions(arch) if _moves_halves(sig, d.format == "VOP3P")}


def sweep_lines(arch: str) -> list[tuple[str, str, bool, str]]:
    """(instruction, spelling, half move, line) for every 16-bit-operand instruction of `arch`."""
    out = []
    for d, sig in _instructions(arch):
        for suffix in ("", "_e64") if d.format in ("VOP1", "VOP2", "VOPC") else ("",):
            e64 = suffix == "_e64"
            for spelling in SPELLINGS:
                def operand(o, n):
                    if o.dwords == 0 or o.sgpr:         # a wave mask / an SGPR result
                        return "s10" if e64 else "vcc_lo"
                    if o.t16:
                        return f"v{n}" if spelling == "whole" else f"v{n}.{spelling}"
                    return f"v{n}" if o.dwords == 1 else f"v[{n}:{n + o.dwords - 1}]"
                ops = [operand(o, 20 + 4 * i) for i, o in enumerate(sig.dsts)]
                if sig.vcc_out and not any(o.sgpr for o in sig.dsts):
                    ops.append("s12" if e64 else "vcc_lo")
                srcs = [operand(o, 2 + 4 * i) for i, o in enumerate(sig.srcs)]
                if sig.k_pos is not None:
                    srcs.insert(sig.k_pos, "0x3c00")
                if sig.vcc_in and not any(o.dwords == 0 for o in sig.srcs):
                    srcs.append("s14" if e64 else "vcc_lo")
                out.append((d.name, spelling, _moves_halves(sig, d.format == "VOP3P"),
                            f"{d.name.lower()}{suffix} " + ", ".join(ops + srcs)))
    return out


def compare(arch: str, mattr: str | None = None):
    """[(row, our bytes or None, our error, llvm-mc-22's bytes or None, its errors)]."""
    rows = sweep_lines(arch)
    answers = mc_items([r[-1] for r in rows], arch, mattr=mattr)
    out = []
    for row, (words, errors) in zip(rows, answers):
        try:
            ours, error = dsl.assemble(row[-1], arch=arch), None
        except dsl.AsmError as e:
            ours, error = None, str(e)
        llvm = None if errors else bytes(int(b, 16) for w in words for b in w.split(","))
        out.append((row, ours, error, llvm, errors))
    return out


def _counts(results) -> dict:
    """{(spelling, llvm accepts, we accept, same bytes): lines}, printed by the tests (pytest -s)."""
    return dict(collections.Counter((row[1], llvm is not None, ours is not None, ours == llvm)
                                    for row, ours, _, llvm, _ in results))


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_gfx11_whole_vgprs_and_halves_agree_with_llvm(arch):
    results = compare(arch)
    print(arch, _counts(results))
    assert len(results) > 900, len(results)
    moves = 0
    for (name, spelling, half_move, line), ours, error, llvm, errors in results:
        if llvm is not None:
            assert ours == llvm, f"{arch}: {line!r}: ours {error or ours.hex()}, llvm-mc-22 {llvm.hex()}"
            continue
        assert ours is None, f"{arch}: {line!r}: llvm-mc-22 refuses it ({errors}), we gave {ours.hex()}"
        column, message = errors[0]
        if half_move and spelling == "whole" and message == "invalid operand for instruction":
            moves += 1
            assert error.startswith(f"1:{column}: {name.lower()}: "), (line, error, errors)
            assert "write v20.l or v20.h" in error or "write v2.l or v2.h" in error, error
    assert moves >= 3, moves      # v_mov_b16 (e32 and e64), v_swap_b16: the class is not empty


def test_gfx1201_whole_vgprs_agree_with_llvm_but_the_half_moves():
    results = [r for r in compare("gfx1201") if r[0][1] == "whole"]
    print("gfx1201", _counts(results))
    lacking = set()
    for (name, _, half_move, line), ours, error, llvm, errors in results:
        if half_move:
            assert errors and errors[0][1] in ("instruction not supported on this GPU",
                                               "e64 variant of this instruction is not supported"), (line, errors)
            lacking.add(name)
            continue
        assert ours == llvm, f"gfx1201: {line!r}: ours {error or (ours and ours.hex())}, llvm-mc-22 {errors or llvm.hex()}"
    assert lacking == half_moves("gfx1201") == {"V_MOV_B16", "V_SWAP_B16"}, lacking


def test_gfx1201_keeps_the_half_moves():
    """The listed difference's evidence: our gfx1201 bytes for a half move written with whole
    VGPRs are llvm-mc-22's for the same line in true16 syntax (-mattr=+real-true16, low halves);
    what it refuses there (v_swap_b16_e64: no VOP3 form) we refuse."""
    rows = [row for row in sweep_lines("gfx1201") if row[2] and row[1] == "whole"]
    lines = [re.sub(r"\b(v\d+)\b", r"\1.l", line) for *_, line in rows]
    accepted = 0
    for (*_, line), t16_line, (words, errors) in zip(rows, lines, mc_items(lines, "gfx1201", mattr="+real-true16")):
        try:
            ours = dsl.assemble(line, "gfx1201")
        except dsl.AsmError as e:
            assert errors, (line, str(e), t16_line)
            continue
        assert not errors, (line, ours.hex(), t16_line, errors)
        assert ours == bytes(int(b, 16) for w in words for b in w.split(",")), (line, t16_line)
        accepted += 1
    assert accepted >= 3, accepted      # v_mov_b16 (VOP1, VOP3), v_swap_b16 (VOP1)


def test_half_move_error_names_instruction_and_operand():
    with pytest.raises(dsl.AsmError, match=r"^1:18: v_swap_b16: src0 v2: .*write v2\.l or v2\.h"):
        dsl.assemble("v_swap_b16 v1.h, v2", "gfx1100")
    with pytest.raises(dsl.AsmError, match=r"^1:11: v_mov_b16: vdst v1: .*write v1\.l or v1\.h"):
        dsl.assemble("v_mov_b16 v1, s3", "gfx1151")

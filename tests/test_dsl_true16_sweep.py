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
under -mattr=+real-true16 for the low halves (test_gfx1201_keeps_the_half_moves).

gfx1201's one place with halves: a 16-bit compare (VOPC) in its 32-bit encoding. LLVM 22 takes
v1.l / v1.h there in its default syntax as in +real-true16 (the field's bit 7 is the half, RDNA4
manual 7.4), all 16-bit VGPR operands halves or none, and refuses them in the VOP3 and DPP forms
(dsl.syntax.E32_COMPARE_HALVES); the printer writes halves where a field names a high half, which
LLVM's default syntax prints as an invalid v128..v255."""
from __future__ import annotations

import collections
import re

import pytest

import dsl
from dsl import families
from dsl.encode import _moves_halves
from dsl.signature import valu_signature

from .llvm_tools import mc_disassembly, mc_items

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


def _compares(arch: str) -> list[str]:
    """The 16-bit compares (VOPC with a 16-bit operand, by the generated facts), lower case."""
    return sorted({d.name.lower() for d, _ in _instructions(arch) if d.format == "VOPC"})


def _compare_lines(name: str, wave: int = 32) -> list[str]:
    """A 16-bit compare written with halves every way LLVM reads or refuses them: mixed halves,
    a scalar or constant beside a half, the field's last half (v127.h) and one past it (v128.l),
    a half beside a whole VGPR, the VOP3 and DPP forms, a source modifier."""
    mask = "" if name.startswith("v_cmpx") else ("vcc_lo, " if wave == 32 else "vcc, ")
    e64 = "" if name.startswith("v_cmpx") else "s10, " if wave == 32 else "s[10:11], "
    return [f"{name} {mask}{a}, {b}" for a, b in (("v1.l", "v2.h"), ("v1.h", "v2.l"), ("s3", "v2.h"),
                                                   ("1", "v2.h"), ("0x1234", "v127.h"), ("v127.h", "v0.l"),
                                                   ("v128.l", "v2.l"), ("v1.h", "v2"), ("v1", "v2.h"))] + \
        [f"{name}_e32 {mask}v1.h, v2.h", f"{name}_e32 {mask}v100.h, v200.l", f"{name}_e64 {e64}v1.h, v2.l",
         f"{name} {mask}v1.h, v2.l quad_perm:[0,1,2,3]", f"{name} {mask}v1.h, v2.l dpp8:[0,1,2,3,4,5,6,7]",
         f"{name} {mask}-v1.h, v2.l", f"{name} {mask}v1.h, s2"]


def _ours(line: str, arch: str, wave: int = 32) -> bytes | None:
    try:
        return dsl.assemble(line, arch, wave)
    except dsl.AsmError:
        return None


def _llvm(words, errors) -> bytes | None:
    return None if errors else bytes(int(b, 16) for w in words for b in w.split(","))


def test_gfx1201_takes_halves_in_the_32_bit_compares_only():
    """Every 16-bit VALU instruction written with .l/.h halves on gfx1201: llvm-mc-22 (default
    syntax) takes exactly the 16-bit compares' 32-bit encoding, and we answer each line as it does."""
    results = [r for r in compare("gfx1201") if r[0][1] != "whole"]
    print("gfx1201 halves", _counts(results))
    taken = set()
    for (name, _, _, line), ours, error, llvm, errors in results:
        assert ours == llvm, f"gfx1201: {line!r}: ours {error or ours.hex()}, llvm-mc-22 {errors or llvm.hex()}"
        if llvm is not None:
            assert "_e64" not in line, line
            taken.add(name.lower())
    assert taken == set(_compares("gfx1201")), sorted(taken ^ set(_compares("gfx1201")))
    assert len(taken) == 54, len(taken)


@pytest.mark.parametrize("wave", [32, 64])
def test_gfx1201_compare_halves_are_read_as_llvm_reads_them(wave):
    """Each 16-bit compare with halves written every way (_compare_lines) against llvm-mc-22's
    default syntax: the same bytes or both refuse; what it takes it takes alike under
    +real-true16 (one meaning in both syntaxes)."""
    mattr = "+wavefrontsize64" if wave == 64 else None
    lines = [line for name in _compares("gfx1201") for line in _compare_lines(name, wave)]
    llvm = [_llvm(*a) for a in mc_items(lines, "gfx1201", mattr=mattr)]
    both = ",".join(filter(None, (mattr, "+real-true16")))
    true16 = [_llvm(*a) for a in mc_items(lines, "gfx1201", mattr=both)]
    taken = 0
    for line, want, want16 in zip(lines, llvm, true16):
        assert _ours(line, "gfx1201", wave) == want, (line, want and want.hex())
        if want is not None:
            taken += 1
            assert want16 == want, line
    assert taken == 6 * 54 + 1 * 54, taken      # 6 halves spellings and _e32 with v1.h, v2.h, per compare


def test_gfx1201_compare_halves_print_as_llvm_prints_them():
    """Our text of every compare llvm-mc-22 encodes with halves is LLVM's: its default syntax's
    where that names registers (the low halves print as whole VGPRs, v1), else (a field naming a
    high half, which the default syntax prints as an invalid v128..v255) its +real-true16 text;
    and our text assembles back to the same bytes."""
    lines = [line for name in _compares("gfx1201") for line in _compare_lines(name)]
    codes = [b for b in (_llvm(*a) for a in mc_items(lines, "gfx1201")) if b is not None]
    plain, true16 = mc_disassembly(codes, "gfx1201"), mc_disassembly(codes, "gfx1201", mattr="+real-true16")
    highs = 0
    for code, text, text16 in zip(codes, plain, true16):
        want = text16 if "Invalid register" in text else text
        highs += "Invalid register" in text
        ours = dsl.disassemble(code, "gfx1201")
        assert ours == want, (code.hex(), ours, want)
        assert dsl.assemble(ours, "gfx1201") == code, (ours, code.hex())
    assert highs >= 5 * 54, highs

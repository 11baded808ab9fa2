"""Operand widths of every VOP3 and VOP3P instruction of gfx942 and gfx950 against llvm-mc-22.

For each VOP3A/VOP3B/VOP3P opcode of the family's table, bytes with a VGPR in every field (vdst
v8, src0 v16, src1 v64, src2 v100; VOP3P's op_sel_hi bits set) go to llvm-mc-22 --disassemble;
the text it prints (its register tuples as wide as LLVM's operand classes: v[2:7] for 192 bits)
must assemble with our assembler to the bytes llvm-mc-22 encodes for that text, and our
disassembler must print the bytes as that text (LLVM's text with an "Invalid register" comment aside). Opcodes LLVM
decodes to no instruction are left out (counted). Every line must agree, except the differences
in KNOWN, each with its reason (an entry no line needs any more fails the test)."""
from __future__ import annotations

import subprocess

import pytest

import dsl
import isa

from .llvm_tools import mc_encodings, tool
from .test_dsl_constant_sweep import ours

ARCHS = ["gfx942", "gfx950"]
VDST, SRC0, SRC1, SRC2 = 8, 256 + 16, 256 + 64, 256 + 100

# (arch prefix, test(line, llvm bytes, our error), reason)
KNOWN: list = []


def _bytes(d) -> bytes:
    if d.format == "VOP3P":
        lo = 0b110100111 << 23 | (d.opcode & 0x7f) << 16 | 1 << 14 | VDST      # op_sel_hi[2]
        hi = 3 << 27 | SRC2 << 18 | SRC1 << 9 | SRC0                             # op_sel_hi[1:0]
    else:
        lo = 0b110100 << 26 | (d.opcode & 0x3ff) << 16 | VDST
        hi = SRC2 << 18 | SRC1 << 9 | SRC0
    return lo.to_bytes(4, "little") + hi.to_bytes(4, "little")


def _disassemble(words: list[bytes], arch: str) -> list[str | None]:
    """llvm-mc-22's text for each instruction's bytes, None where it decodes none."""
    out = []
    for w in words:
        done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble"],
                              input=" ".join(f"0x{b:02x}" for b in w) + "\n", capture_output=True, text=True)
        lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip() and not ln.strip().startswith(".")]
        out.append(lines[0].split(" ;")[0] if len(lines) == 1 and "invalid" not in done.stderr else None)
    return out


def width_lines(arch: str) -> list[tuple[bytes, str]]:
    """(bytes, llvm-mc-22's text) of each VOP3/VOP3P opcode LLVM decodes."""
    defs = [d for d in isa.load(arch).instructions if d.format in ("VOP3A", "VOP3B", "VOP3P")]
    words = [_bytes(d) for d in defs]
    return [(w, t) for w, t in zip(words, _disassemble(words, arch)) if t]


def differences(arch: str) -> tuple[int, list[str]]:
    """Lines our assembler encodes otherwise than llvm-mc-22, or our disassembler prints otherwise."""
    pairs = width_lines(arch)
    lines = [t for _, t in pairs]
    bad = [f"{w.hex()}: llvm prints {t!r}, we print {dsl.disassemble(w, arch).strip()!r}"
           for w, t in pairs if "/*" not in t and dsl.disassemble(w, arch).strip() != t]
    for line, want, (got, err) in zip(lines, mc_encodings(lines, arch), ours(lines, arch)):
        if want != got and not any(arch.startswith(p) and test(line, want, err) for p, test, _ in KNOWN):
            bad.append(f"{line}: llvm {want.hex() if want else 'refused'}, ours {got.hex() if got else err.splitlines()[0]}")
    return len(lines), bad


@pytest.mark.parametrize("arch", ARCHS)
def test_vop3_operand_widths_match_llvm(arch):
    tool("llvm-mc")         # skips the test when llvm-mc-22 is absent
    n, bad = differences(arch)
    assert n > 400
    assert not bad, f"{len(bad)} of {n} lines differ:\n" + "\n".join(bad[:30])


if __name__ == "__main__":
    import sys
    for arch in sys.argv[1:] or ARCHS:
        n, bad = differences(arch)
        print(f"{arch}: {n} lines, {len(bad)} differ")
        print("\n".join(bad))


@pytest.mark.parametrize("arch", ARCHS)
def test_emulator_reads_and_writes_the_assembler_widths(arch):
    """Each VOP3/VOP3P instruction the emulator runs (matrices aside: their widths are the shapes'
    own) reads and writes as many registers per operand as the assembler writes for it (gfx950's
    18 pk32/2xpk16 fp6/bf6 conversions among them: 6, 16 or 32 registers); one it cannot run it
    refuses by name rather than running it at another width."""
    from emu.machine import Machine
    from emu.machine_prepare import PrepareError, Preparer
    from emu.memory import DeviceMemory
    from emu.options import FAST
    from isa.effects import effects
    from dsl.valu_plan import gfx9_valu_plan
    spec = isa.load(arch)
    machine = Machine(arch, DeviceMemory(), options=FAST)
    ran, bad = 0, []
    for d in spec.instructions:
        if d.format not in ("VOP3A", "VOP3B", "VOP3P") or d.name.startswith(("V_MFMA", "V_SMFMAC")) \
                or effects(d.pcode).matrix:
            continue
        sem = machine.semantics.get(d)
        if sem is None:
            continue
        ran += 1
        sig = gfx9_valu_plan(d, spec, d.format, None).sig
        for o in sig.dsts + sig.srcs:
            key = {"vdst": "D0", "src0": "S0", "src1": "S1", "src2": "S2"}.get(o.name)
            op = key and (sem.writes.get(key) if key == "D0" else sem.reads.get(key))
            if op is not None and not op.lane_bit and o.dwords and -(-op.width(64) // 32) != o.dwords:
                bad.append(f"{d.name} {key}: emulator {-(-op.width(64) // 32)}, assembler {o.dwords}")
    assert ran > 400 and not bad, bad
    wide = [d for d in spec.instructions if d.format == "VOP3A" and ("PK32" in d.name or "2XPK16" in d.name)]
    assert len(wide) == (18 if arch == "gfx950" else 0)
    preparer = Preparer(spec, machine.semantics, 64, 256, FAST, 128)
    for d in wide:
        if machine.semantics.get(d) is None:
            with pytest.raises(PrepareError, match="has no semantics"):
                preparer.semantic(d, 0)


LANE_LINES = ["v_readlane_b32 s8, v16, v64", "v_writelane_b32 v8, v16, v64", "v_writelane_b32 v8, v16, s4",
              "v_writelane_b32 v8, s16, v4", "v_readlane_b32 s8, v16, a4", "v_readlane_b32 s8, v16, 5",
              "v_writelane_b32 v8, 1.0, s4", "v_writelane_b32 v8, s2, 7"]


@pytest.mark.parametrize("arch", ARCHS)
def test_lane_moves_refuse_a_vgpr_where_llvm_does(arch):
    """v_readlane's lane select and v_writelane's sources take an SGPR or constant: what llvm-mc-22
    refuses we refuse, naming the column it names; what it encodes we encode alike."""
    mc = tool("llvm-mc")
    for line, want, (got, err) in zip(LANE_LINES, mc_encodings(LANE_LINES, arch), ours(LANE_LINES, arch)):
        assert got == want, (line, want, got, err)
        if want is None:
            done = subprocess.run([mc, "-arch=amdgcn", f"-mcpu={arch}"], input=line + "\n",
                                  capture_output=True, text=True)
            column = done.stderr.split(":")[2]          # <stdin>:1:COLUMN: error: ...
            assert err.startswith(f"1:{column}:") and "must be an SGPR or constant" in err, (line, done.stderr, err)

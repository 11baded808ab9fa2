"""VOP3 and VOP3P modifiers (op_sel, clamp, output modifiers) on every instruction of those
encodings against llvm-mc-22 (gfx942, gfx950, gfx1100, gfx1151, gfx1201).

The instructions come from the ISA data, not from a corpus: every VOP3/VOP3P definition (MFMA
apart) is written as bytes with VGPR operands (v8 <- v2, v4, v6; pairs and tuples where LLVM reads
them so, a lane mask in s12) and llvm-mc-22 --disassemble gives LLVM's text of it, which is the base line. Each base
line, its own modifiers removed, gets op_sel lists of 2, 3 and 4 entries with one bit set (and
all clear), clamp, mul:2, and on VOP3P lines neg_lo/neg_hi lists with one bit set (or none) and
op_sel_hi lists of 2 and 3 entries; on gfx1100, lines with 16-bit VGPR halves are also written with whole
VGPRs and the halves as op_sel (v2.h -> v2 op_sel:[1,...]). One llvm-mc run per target; every line
must be accepted alike with the same bytes or refused by both, except the differences listed in
KNOWN, each with its reason (an entry no line needs any more fails the test)."""
from __future__ import annotations

import re
import subprocess

import pytest

import isa
from dsl.signature import valu_signature

from .llvm_tools import compare_with_mc, mc_encodings, tool
from .test_dsl_constant_sweep import ours

ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"]
_MODIFIERS = re.compile(r"\s+(op_sel(_hi)?:\[[\d,]+\]|clamp|mul:\d|div:\d|neg_(lo|hi):\[[\d,]+\])")
_HALF = re.compile(r"\b(v\d+)\.([lh])\b")


def _pack(fmt, values: dict) -> bytes:
    word = fmt.encoding[0]
    for name, hi, lo in fmt.fields:
        if name in values:
            word |= (values[name] & ((1 << (hi - lo + 1)) - 1)) << lo
    return word.to_bytes(fmt.width // 8, "little")


def base_lines(arch: str) -> list[str]:
    """LLVM's text of every VOP3/VOP3P instruction (MFMA apart) with VGPR operands, its
    modifiers removed."""
    spec = isa.load(arch)
    encodings = {}
    for d in spec.instructions:
        if d.format not in spec.traits.roles.valu_e64 or d.format == "VOP3P-MAI":
            continue
        sig = valu_signature(d)
        # gfx11's v_cmpx_*_e64 writes EXEC: its VDST field holds exec_lo's code
        values = dict(OP=d.opcode, VDST=spec.traits.exec_lo if sig.is_cmpx and spec.traits.dialect == "gfx11" else 8,
                      SDST=10, **{f"SRC{i}": 258 + 2 * i if o.dwords else 12 for i, o in enumerate(sig.srcs)})
        if d.format == "VOP3P":
            values.update(OPSEL_HI=3, OPSEL_HI2=1)
        encodings[_pack(spec.formats[d.format], values)] = d
    text = "\n".join(" ".join(f"0x{b:02x}" for b in e) for e in encodings) + "\n"
    out = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble", "-show-encoding"],
                         input=text, capture_output=True, text=True).stdout
    lines = []
    for row in out.splitlines():
        m = re.match(r"\s*(\S.*?)\s*; (?:encoding: )?\[([^\]]*)\]", row)
        if m and bytes(int(x, 16) for x in m.group(2).split(",")) in encodings:
            lines.append(_MODIFIERS.sub("", m.group(1)))
    return lines


def _opsel(bits) -> str:
    return "op_sel:[" + ",".join(map(str, bits)) + "]"


def variants(line: str, arch: str) -> list[str]:
    out = [f"{line} {_opsel([int(j == k) for j in range(n)])}" for n in (2, 3, 4) for k in range(n)]
    out += [f"{line} op_sel:[0,0,0]", f"{line} clamp", f"{line} mul:2"]
    halves = _HALF.findall(line)
    if halves and arch.startswith("gfx11"):        # whole VGPRs, the halves as op_sel
        mn, _, rest = line.partition(" ")
        ops = [o.strip() for o in rest.split(",")]
        his = [int(o.endswith(".h")) for o in ops]
        whole = mn + " " + ", ".join(_HALF.sub(r"\1", o) for o in ops)
        dst, srcs = his[:1], his[1:]
        for k in range(len(srcs)):
            bits = srcs[:]
            bits[k] = 1
            out.append(f"{whole} {_opsel(bits)}")
            out.append(f"{whole} {_opsel(bits + [1])}")
        out.append(f"{whole} {_opsel(srcs + dst)}")
    return out


def packed_variants(line: str) -> list[str]:
    """A VOP3P line's neg_lo/neg_hi lists with one bit set (and all clear), op_sel_hi lists of 2
    and 3 entries: which sources take NEG (RDNA4's v_dot4_f32_fp8_*: src2 alone), what short and
    long lists mean."""
    out = [f"{line} {key}:[{','.join(str(int(j == k)) for j in range(3))}]" for key in ("neg_lo", "neg_hi")
           for k in range(-1, 3)]
    return out + [f"{line} op_sel_hi:{bits}" for bits in ("[0,0,0]", "[1,1,1]", "[0,1,1]", "[1,0,1]", "[1,1,0]",
                                                          "[1,1]", "[0,0]")]


def sweep_lines(arch: str) -> list[str]:
    spec = isa.load(arch)
    packed = lambda line: any(d.format == "VOP3P" for d in spec.lookup(line.split()[0]))
    return [v for line in base_lines(arch)
            for v in variants(line, arch) + (packed_variants(line) if packed(line) else [])]


# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
KNOWN: list = [
]


@pytest.mark.parametrize("arch", ARCHS)
def test_vop3_modifiers_match_llvm(arch):
    lines = sweep_lines(arch)
    assert len(lines) > 3000
    agree, known, bad = compare_with_mc(arch, lines, mc_encodings(lines, arch), ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    unused = {why for prefix, _, why in KNOWN if arch.startswith(prefix)} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"

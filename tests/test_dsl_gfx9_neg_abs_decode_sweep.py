"""The gfx9 dialect's (CDNA: gfx942, gfx950) printing of -x / |x| against llvm-mc-22
--disassemble: the NEG and ABS bits of each source of every VOP3 instruction and of the SDWA and
DPP forms of every 32-bit one, set one at a time on LLVM's own encoding of the plain line
(tests/test_dsl_dpp_availability_sweep.py's base; DPP with row_newbcast:1, which the 64-bit
operations take too). The printer decides by the plan's neg_abs (isa.facts.modifier_use), the
rule the assembler refuses by: wherever LLVM prints a text ours must be the same (-v4 on
v_cndmask_b32_e64, nothing on v_ldexp_f32's integer exponent or v_pk_fmac_f16_sdwa's halves).
Bits on a source that takes no modifier LLVM sometimes calls an invalid encoding (v_add_u32_e64,
v_cmp_class_f16's mask) where ours prints the instruction without them; those are counted."""
from __future__ import annotations

import re
import subprocess
import warnings

import pytest

import isa
from dsl import disassemble
from dsl.valu_plan import gfx9_valu_plan

from .llvm_tools import mc_encodings, tool
from .test_dsl_dpp_availability_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]


def _lines(arch: str) -> list[tuple[str, str, int]]:
    """(line, encoding kind, sources) of every VOP3 line and SDWA/DPP form of a 32-bit one."""
    spec = isa.load(arch)
    e32 = spec.traits.roles.valu_e32
    out = []
    for fmt, line in base_lines(arch):
        if fmt.startswith("VOP3P"):
            continue        # (neg_lo/neg_hi: tests/test_dsl_vop3_modifier_sweep.py)
        mn, _, ops = line.partition(" ")
        base = re.sub(r"_e(32|64)$", "", mn)
        d = next(d for d in spec.lookup(base) if d.format == fmt)
        n = len(gfx9_valu_plan(d, spec, fmt, None).srcs)
        if fmt in e32:
            kind = "SDWAB" if fmt == "VOPC" else "SDWA"
            out += [(f"{base}_sdwa {ops}", kind, min(n, 2)),
                    (f"{base}_dpp {ops} row_newbcast:1 row_mask:0xf bank_mask:0xf", "DPP", min(n, 2))]
        else:
            out.append((line, fmt, n))
    return out


def flipped(arch: str) -> list[bytes]:
    """LLVM's encoding of each line LLVM takes with one NEG or ABS bit of one source set."""
    spec = isa.load(arch)
    lines = _lines(arch)
    out = []
    for (line, kind, n), data in zip(lines, mc_encodings([x for x, _, _ in lines], arch)):
        if data is None:
            continue
        fields = {name: lo for name, _, lo in spec.formats[kind].fields}
        for i in range(n):
            names = ("NEG", "ABS") if kind.startswith("VOP3") else (f"SRC{i}_NEG", f"SRC{i}_ABS")
            for bit in [fields[k] + (i if kind.startswith("VOP3") else 0) for k in names if k in fields]:
                value = int.from_bytes(data[:8], "little") | 1 << bit
                out.append(value.to_bytes(8, "little") + data[8:])
    return out


def llvm_texts(arch: str, encodings: list[bytes]) -> list[str | None]:
    """llvm-mc-22's text of each encoding, None where it is no instruction (invalid, or decoded
    as a shorter one)."""
    text = "\n".join(" ".join(f"0x{b:02x}" for b in e) for e in encodings) + "\n"
    out = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble", "-show-encoding"],
                         input=text, capture_output=True, text=True).stdout
    rows = {}
    for row in out.splitlines():
        m = re.match(r"\s*(\S.*?)\s*; encoding: \[([^\]]*)\]", row)
        if m:
            rows.setdefault(bytes(int(x, 16) for x in m.group(2).split(",")), m.group(1))
    return [rows.get(e) for e in encodings]


@pytest.mark.parametrize("arch", ARCHS)
def test_neg_abs_bits_print_as_llvm_prints_them(arch):
    encodings = flipped(arch)
    assert len(encodings) > 1500
    theirs = llvm_texts(arch, encodings)
    bad, printed, invalid = [], 0, 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data, want in zip(encodings, theirs):
            if want is None:
                invalid += 1
                continue
            printed += 1
            got = disassemble(data, arch)
            if " ".join(got.split()) != " ".join(want.split()):
                bad.append(f"{data.hex()}: llvm {want!r}, ours {got!r}")
    print(f"\n{arch}: {len(encodings)} encodings with a NEG/ABS bit: llvm prints {printed} ({printed - len(bad)} "
          f"alike), calls {invalid} invalid")
    assert not bad, "\n".join(bad[:40])
    assert printed > 1000
    # the classes the float-type rule and the fact differ on are among them: cndmask's u32 sources
    # take -x/|x| in VOP3 (LLVM prints them), v_ldexp_f16_dpp's exponent none (LLVM prints nothing)
    mine = dict(zip(encodings, theirs))
    assert any(t and t.startswith("v_cndmask_b32_e64 v8, -v2,") for t in mine.values())
    assert any(t and t.startswith("v_ldexp_f16_dpp v8, v2, v4 ") and e[6] & 0xc0 for e, t in mine.items())

"""DPP availability against llvm-mc-22: every VOP1/VOP2/VOPC/VOP3/VOP3P instruction of gfx1100,
gfx1151 and gfx1201 written in its DPP16 and DPP8 forms (the 32-bit encoding's `_dpp` and the
64-bit one's `_e64_dpp` where each exists) with plain VGPR operands.

The instructions come from the ISA data: each is written as bytes with VGPR operands (v8 <- v2,
v4, v6; pairs where a source is 64 bits) and llvm-mc-22 --disassemble gives LLVM's text, whose
mnemonic then takes the DPP suffix and a control. Every line must be accepted alike with the same
bytes or refused by both, except the differences KNOWN lists with their reason (an entry no line
needs any more fails the test).

The sources of each 64-bit DPP form LLVM takes are varied too (test_dpp_sources_match_llvm): each
VGPR source after src0 in turn as an SGPR, an integer and a float inline constant, and negated."""
from __future__ import annotations

import re
import subprocess

import pytest

import isa
from dsl.signature import valu_signature

from .llvm_tools import compare_with_mc, mc_encodings, tool
from .test_dsl_constant_sweep import ours
from .test_dsl_vop3_modifier_sweep import _pack

ARCHS = ["gfx1100", "gfx1151", "gfx1201"]
CONTROLS = ("quad_perm:[1,0,3,2]", "dpp8:[1,0,3,2,5,4,7,6]")


def base_lines(arch: str) -> list[tuple[str, str]]:
    """(format, LLVM's text) of every VALU instruction of the 32- and 64-bit encodings with VGPR
    operands (a VOP2 constant K as a literal dword)."""
    spec = isa.load(arch)
    roles = spec.traits.roles
    encodings = {}
    for d in spec.instructions:
        if d.format not in roles.valu_e32 | roles.valu_e64:
            continue
        sig = valu_signature(d)
        e32 = d.format in roles.valu_e32
        values = dict(OP=d.opcode, SDST=10)
        if e32:
            values.update(SRC0=258, VSRC1=4, VSRC=4, VDST=8)
        else:
            values.update(VDST=spec.traits.exec_lo if sig.is_cmpx else 8,
                          **{f"SRC{i}": 258 + 2 * i for i in range(len(sig.srcs))})
        if d.format == "VOP3P":
            values.update(OPSEL_HI=3, OPSEL_HI2=1)
        data = _pack(spec.formats[d.format], values)
        if e32 and sig.k_pos is not None:
            data += b"\0\0\x80\x3f"
        encodings[data] = d.format
    text = "\n".join(" ".join(f"0x{b:02x}" for b in e) for e in encodings) + "\n"
    out = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble", "-show-encoding"],
                         input=text, capture_output=True, text=True).stdout
    lines = []
    for row in out.splitlines():
        m = re.match(r"\s*(\S.*?)\s*; (?:encoding: )?\[([^\]]*)\]", row)
        if m:
            data = bytes(int(x, 16) for x in m.group(2).split(","))
            if data in encodings:
                lines.append((encodings[data], m.group(1)))
    return lines


def dpp_lines(arch: str) -> list[str]:
    """Each base line in its DPP16 and DPP8 forms: `_e32` -> `_dpp`, `_e64` or no suffix on a
    64-bit encoding -> `_e64_dpp`; no suffix on a 32-bit one (a VOP1 without a VOP3 form) -> `_dpp`."""
    e32 = isa.load(arch).traits.roles.valu_e32
    out = []
    for fmt, line in base_lines(arch):
        mn, _, ops = line.partition(" ")
        base = re.sub(r"_e(32|64)$", "", mn)
        suffix = "_dpp" if fmt in e32 else "_e64_dpp"
        out += [f"{base}{suffix} {ops} {c}".replace("  ", " ") for c in CONTROLS]
    return out


# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
KNOWN: list = [
    (("gfx1151", "gfx1201"), lambda line, llvm, err: llvm is None and err == "" and
     re.match(r"(v_fma_mix\w*|v_dot4_f32_\w+)_e64_dpp v\d+, v\d+, (s\d+|1|0\.5)\b", line) is not None,
     "an SGPR or an inline constant as src1 of v_fma_mix* (and gfx1201's v_dot4_f32_fp8/bf8) in DPP: LLVM 22 "
     "refuses it on gfx1151 and gfx1201 while taking it as src1 of their VOP3 DPP and of v_dot2_f32_f16/bf16's "
     "VOP3P DPP (v_dot2_f32_f16_e64_dpp v8, v2, s5, v6); the manuals' DPP sections limit only src0 (the DPP "
     "word's SRC0 is a VGPR), so we take it"),
    ("gfx1201", lambda line, llvm, err: llvm is None and err == "" and
     re.match(r"v_dot4_f32_\w+_e64_dpp v\d+, v\d+, v\d+, (s\d+|1|0\.5)\b", line) is not None,
     "an SGPR or an inline constant as src2 of gfx1201's v_dot4_f32_fp8/bf8 in DPP: LLVM 22 refuses it (and takes "
     "it on v_fma_mix*); the RDNA4 manual's DPP section limits only src0, so we take it"),
]

_SOURCE = re.compile(r"v\d+(\.[lh])?")


def source_lines(arch: str, lines: list[str], accepted: list) -> list[str]:
    """Each 64-bit DPP16 line LLVM took, each VGPR source after src0 in turn replaced by s5, 1,
    0.5 and its negation."""
    out = []
    for line, ok in zip(lines, accepted):
        m = re.match(r"(\S+_e64_dpp) (.*?) (quad_perm:\S+)$", line)
        if ok is None or not m:
            continue
        mn, ops, ctrl = m.groups()
        ops = [o.strip() for o in ops.split(",")]
        for i in range(2, len(ops)):
            if _SOURCE.fullmatch(ops[i]):
                for value in (_SOURCE.sub("s5", ops[i]), "1", "0.5", "-" + ops[i]):
                    out.append(f"{mn} {', '.join(ops[:i] + [value] + ops[i + 1:])} {ctrl}")
    return out


def _compare(arch: str, lines: list[str], want: list, what: str) -> dict:
    got = ours(lines, arch)
    agree, known, bad = compare_with_mc(arch, lines, want, got, KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} {what} agree with llvm-mc-22 (llvm accepts "
          f"{sum(w is not None for w in want)}, we accept {sum(g is not None for g, _ in got)}); "
          f"known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:60])
    return known


@pytest.mark.parametrize("arch", ARCHS)
def test_dpp_forms_match_llvm(arch):
    lines = dpp_lines(arch)
    assert len(lines) > 1500
    _compare(arch, lines, mc_encodings(lines, arch), "DPP lines")


@pytest.mark.parametrize("arch", ARCHS)
def test_dpp_sources_match_llvm(arch):
    base = dpp_lines(arch)
    lines = source_lines(arch, base, mc_encodings(base, arch))
    assert len(lines) > 1000
    known = _compare(arch, lines, mc_encodings(lines, arch), "DPP source lines")
    unused = {why for prefix, _, why in KNOWN if arch.startswith(prefix)} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"


def dpp_encodings(arch: str) -> list[tuple[str, bytes, bytes]]:
    """(name, DPP16 bytes, plain bytes) of every VOP1/VOP2/VOPC/VOP3/VOP3P instruction: SRC0 the
    DPP16 code, then the word (its SRC0 v2, quad_perm:[1,0,3,2]); the other sources v4, v6, v8 <- ;
    the plain bytes the same with v2 as SRC0 and no word."""
    spec = isa.load(arch)
    roles, codes = spec.traits.roles, spec.traits.codes
    word = bytes([2, 0xB1, 0x00, 0xFF])         # SRC0 v2, DPP_CTRL quad_perm:[1,0,3,2], row/bank masks 0xf
    out = []
    for d in spec.instructions:
        if d.format not in roles.valu_e32 | roles.valu_e64:
            continue
        sig = valu_signature(d)
        values = dict(OP=d.opcode, SDST=10, VSRC1=4, VSRC=4,
                      VDST=spec.traits.exec_lo if sig.is_cmpx and d.format not in roles.valu_e32 else 8,
                      **{f"SRC{i}": 258 + 2 * i for i in range(1, len(sig.srcs))})
        if d.format == "VOP3P":
            values.update(OPSEL_HI=3, OPSEL_HI2=1)
        fmt = spec.formats[d.format]
        out.append((f"{d.name} ({d.format})", _pack(fmt, {**values, "SRC0": codes["DPP16"]}) + word,
                    _pack(fmt, {**values, "SRC0": 258})))
    return out


def _llvm_invalid(arch: str, encodings: list[bytes]) -> set[int]:
    """Indexes of the encodings llvm-mc-22 --disassemble calls an invalid instruction encoding."""
    text = "\n".join(" ".join(f"0x{b:02x}" for b in e) for e in encodings) + "\n"
    done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "--disassemble"],
                          input=text, capture_output=True, text=True)
    return {int(n) - 1 for n in re.findall(r"^<stdin>:(\d+):1: warning: invalid instruction", done.stderr, re.M)}


@pytest.mark.parametrize("arch", ARCHS)
def test_dpp_bytes_decode_as_llvm_decodes_them(arch):
    """Every instruction's DPP16 bytes: llvm-mc-22 --disassemble calls some an invalid encoding;
    we decode exactly the others (the rest is a DecodeError, a .long in a listing). Instructions
    LLVM 22 does not decode without DPP either (gfx1201's v_mov_b16) are left out."""
    import warnings

    from dsl.decode import DecodeError
    from dsl.disasm import decode_instr
    encodings = dpp_encodings(arch)
    no_plain = _llvm_invalid(arch, [plain for _, _, plain in encodings])
    invalid = _llvm_invalid(arch, [dpp for _, dpp, _ in encodings])
    bad, decoded, checked = [], 0, 0
    for i, (name, data, _) in enumerate(encodings):
        if i in no_plain:
            continue
        checked += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = decode_instr(data, arch)
            decoded += 1
        except DecodeError as e:
            ours = e
        if isinstance(ours, DecodeError) != (i in invalid):
            bad.append(f"{name}: llvm {'invalid' if i in invalid else 'decodes'}, ours "
                       f"{str(ours).splitlines()[0] if isinstance(ours, DecodeError) else 'decodes'}")
    print(f"\n{arch}: {checked} DPP16 encodings, llvm decodes {checked - len(invalid - no_plain)}, "
          f"we decode {decoded}; {len(bad)} differ")
    assert checked > 700 and not bad, "\n".join(bad[:60])

"""Constants in source operands (dsl/literals.py) against llvm-mc-22: which numbers become
inline constants, which a literal (and which dword), which are refused.

The grid is generated: every VALU/SALU source operand of the LLVM corpus's instructions
(one corpus row per mnemonic, its other operands kept) grouped by how our encoder types it
(the literal kind, the encoding, register-only or no-literal operands), a few instructions
per group (all of them with WAVESMITH_LITERAL_GRID=full), times VALUES: integers and floats
at every edge (16/32/64-bit ranges, f16/f32/f64 inline bit patterns, over- and underflow,
lit(...)). Each line goes to llvm-mc and to the assembler; they must agree on every line
but the deliberate differences listed in KNOWN (each with its reason)."""
from __future__ import annotations

import gzip
import os
import re
from collections import defaultdict

import pytest

import dsl
import isa
from dsl.asm import encoder, parse
from dsl.encode import _scalar_operands, _valu_operand_names, _valu_plan
from dsl.literals import literal_kind
from dsl.operands import OperandError

from .conftest import shared_path
from .llvm_tools import mc_encodings

INTS = ["0", "1", "64", "65", "-1", "-16", "-17", "0x7fff", "0x8000", "0xffff", "-32768", "-32769", "0x10000",
        "0x12345", "0x3800", "0x3c00", "0xbc00", "0x3118", "0xfff0", "0x3f800000", "0xbf800000", "0x3e22f983",
        "0x7fffffff", "0x80000000", "0xffffffff", "0xfffffff0", "-2147483648", "-2147483649", "0x100000000",
        "0x3ff00000", "0x3fc45f30", "0x3ff0000000000000", "0xbff0000000000000", "0x3fc45f306dc9c882",
        "0xffffffffd1ccf6e9", "0xffffffff00000000", "0x12345678", "0x38003800", "0x3c003c00",
        "0xffffffffffffffff", "0x4400000000000000"]
FLOATS = ["0.0", "-0.0", "0.5", "-0.5", "1.0", "-1.0", "2.0", "-4.0", "3.0", "-3.0", "64.0", "65.0", "-16.0",
          "-17.0", "0.15915494", "0.15915494309189535", "0.3", "1.5", "1e6", "65504.0", "65520.0", "100000.0",
          "1e-8", "6e-8", "5.960464477539063e-08", "1e-5", "1e-40", "1e40", "1e300", "3.4e38", "0.1"]
LITS = ["lit(1)", "lit(1.0)", "lit(0x3f800000)", "lit(0x12345)", "lit(0.3)", "lit(-1)"]
VALUES = INTS + FLOATS + LITS
PER_GROUP = 3

# deliberate differences: (what the line looks like, why we differ)
KNOWN = [
    (lambda line, mn, llvm, ours: "lit(" in line and llvm is not None and ours is None and
     "one 32-bit literal" in ours_error.get(line, ""),
     "LLVM accepts lit(x) beside a different literal and encodes one value for both (the other is lost)"),
    (lambda line, mn, llvm, ours: mn.startswith("v_dot2acc_f32_f16") and "lit(" in line and llvm is None,
     "LLVM refuses lit() on v_dot2acc_f32_f16's packed source, which takes the same literal without it"),
]
ours_error: dict[str, str] = {}


def _rows(arch: str) -> dict[str, str]:
    """mnemonic -> an LLVM corpus row that re-assembles, with the fewest scalar operands and
    constants (so a literal in the probed slot meets no other limit), DPP rows excluded."""
    rows: dict[str, tuple[int, str]] = {}
    with gzip.open(shared_path("conformance", "llvm", f"{arch}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            _, _, text, reenc = line.rstrip("\n").split("\t")
            if reenc == "-" or re.search(r"dpp|quad_perm|row_|op_sel|clamp|mul:|div:|neg_|\||lit\(|-", text):
                continue
            mn = text.split(" ")[0]
            score = len(re.findall(r"(?<![\w\[])(s\d|s\[|ttmp|vcc|exec|m0|null|src_|\d)", text[len(mn):]))
            if mn not in rows or score < rows[mn][0]:
                rows[mn] = (score, text)
    return {mn: text for mn, (_, text) in rows.items()}


def grid(arch: str, per_group: int | None = PER_GROUP) -> list[tuple[str, str, str]]:
    """(line, mnemonic, group) for the sampled source slots times VALUES."""
    enc = encoder(arch)
    groups: dict[str, list] = defaultdict(list)
    for mn, text in sorted(_rows(arch).items()):
        body = text[len(mn):].strip()
        ops = [o.strip() for o in body.split(",")] if body else []
        try:
            cands, _ = enc.candidates(mn)
        except OperandError:
            continue
        d = cands[0]
        if d.format in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P"):
            e32 = d.format in isa.traits(arch).roles.valu_e32
            names, _ = _valu_operand_names(d, e32)
            plan = _valu_plan(d, e32, enc.wave)
            kinds = {what: (op, plan.constants) for _, _, op, what, _, _ in plan.srcs}
        elif d.format in ("SOP1", "SOP2", "SOPC"):
            layout, names = _scalar_operands(d)
            kinds = {n: (op, "vop3" if op.t16 else "salu") for n, _, _, op in layout if op is not None}
        else:
            continue
        if len(names) != len(ops):
            continue
        for i, name in enumerate(names):
            if name in kinds:
                op, encoding = kinds[name]
                group = (f"{d.format}/{encoding}/{literal_kind(op, encoding).name}"
                         f"{'/registers' if op.registers_only else ''}{'/inline' if op.no_literal else ''}")
            elif name == "k":
                group = f"{d.format}/K"
            else:
                continue
            groups[group].append((mn, ops, i))
    out = []
    for group, slots in sorted(groups.items()):
        for mn, ops, i in slots[:per_group]:
            for v in VALUES:
                line_ops = list(ops)
                line_ops[i] = v
                out.append((f"{mn} {', '.join(line_ops)}", mn, group))
    return out


def ours(lines: list[str], arch: str) -> list[bytes | None]:
    """Our bytes for each line (None where the encoder refuses it); the lines are parsed as
    one text, each statement encoded on its own."""
    enc = encoder(arch)
    out = []
    for line, st in zip(lines, parse("\n".join(lines))):
        try:
            out.append(enc.encode(st)[0])
        except OperandError as e:
            ours_error[line] = str(e)
            out.append(None)
    return out


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_constants_match_llvm_mc_over_the_operand_grid(arch):
    per_group = None if os.environ.get("WAVESMITH_LITERAL_GRID") == "full" else PER_GROUP
    rows = grid(arch, per_group)
    lines = [r[0] for r in rows]
    assert len(lines) > 5000
    want, got = mc_encodings(lines, arch), ours(lines, arch)
    known, bad = defaultdict(int), []
    groups = defaultdict(lambda: [0, 0])
    for (line, mn, group), w, g in zip(rows, want, got):
        groups[group][1] += 1
        if w == g:
            groups[group][0] += 1
            continue
        why = next((why for test, why in KNOWN if test(line, mn, w, g)), None)
        if why:
            known[why] += 1
        else:
            bad.append((line, w.hex() if w else "refused", g.hex() if g else ours_error.get(line)))
    agree = sum(a for a, _ in groups.values())
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22 ({100 * agree / len(lines):.2f}%), "
          f"{len(groups)} operand groups; deliberate differences: {dict(known)}")
    assert bad[:20] == [], f"{len(bad)} lines differ from llvm-mc"


# ---------------------------------------------------------------- the issue's cases, with LLVM's bytes

LLVM_BYTES = {   # llvm-mc-22 -arch=amdgcn -mcpu=gfx1100 -show-encoding
    "v_mov_b32 v2, 3.0": "ff02047e00004040",                    # f32 bits as a literal, not inline 3
    "s_mov_b32 s2, 3.0": "ff0082be00004040",
    "v_mov_b32 v2, 0.25": "ff02047e0000803e",
    "s_mov_b32 s5, 0x3F800000": "f20085be",                      # the bits of 1.0: inline 1.0
    "v_add_nc_u32 v0, 0x3f800000, v1": "f202004a",
    "s_mov_b64 s[0:1], 0x3ff0000000000000": "f20180be",          # f64 1.0: inline
    "v_mad_u64_u32 v[5:6], null, v68, s4, 0xffffffffd1ccf6e9": "057cfed64409fc03e9f6ccd1",
    "v_add_f64 v[1:2], 0x3ff00000, v[2:3]": "010027d7f2040200",  # an integer is an f64's high dword
    "v_add_nc_u16 v1, v2, 3.0": "010003d702ff010000004040",      # 16-bit integer: f32 bits (LLVM's rule)
    "v_add_f16 v1, v2, 3.0": "010032d502ff010000420000",         # a VOP3 literal: f16 bits
    "v_pk_add_f16 v1, v2, 3.0": "01400fcc02ff011800420000",
}
REFUSED = ["v_add_nc_u16 v1, v2, 0x12345", "v_cmpx_gt_i16_e64 41, 0x12345678", "v_pk_add_f16 v1, v2, 1e6",
           "v_add_f16 v1, v2, 65520.0", "v_lshlrev_b64 v[1:2], v1, 3.0", "v_mov_b32 v1, 0x100000000",
           "v_add_f32 v1, 1e40, v2"]


@pytest.mark.parametrize("text", sorted(LLVM_BYTES))
def test_issue_constants_encode_as_llvm(text):
    assert dsl.assemble(text, "gfx1100").hex() == LLVM_BYTES[text]


def test_llvm_bytes_table_is_llvms():
    lines = sorted(LLVM_BYTES) + REFUSED
    got = mc_encodings(lines, "gfx1100")
    assert [g.hex() if g else None for g in got] == [LLVM_BYTES[t] for t in sorted(LLVM_BYTES)] + [None] * len(REFUSED)


@pytest.mark.parametrize("text", REFUSED)
def test_wider_literals_are_refused_with_a_location(text):
    src = "s_nop 0\n  " + text
    with pytest.raises(dsl.AsmError, match=r"^2:\d+: .*(does not fit|out of range|no floating-point)"):
        dsl.assemble(src, "gfx1100")


def test_dsl_takes_numbers_as_the_text_does():
    from dsl.rdna3 import Kernel, s, v, v_add_nc_u16, v_mad_u64_u32, v_mov_b32, s_mov_b32, null
    k = Kernel("gfx1100")
    k += v_mov_b32(v[2], 3.0)
    k += s_mov_b32(s[5], 0x3F800000)
    k += v_mad_u64_u32(v[5:6], null, v[68], s[4], 0xffffffffd1ccf6e9)
    assert k.assemble().hex() == (LLVM_BYTES["v_mov_b32 v2, 3.0"] + LLVM_BYTES["s_mov_b32 s5, 0x3F800000"] +
                                  LLVM_BYTES["v_mad_u64_u32 v[5:6], null, v68, s4, 0xffffffffd1ccf6e9"])
    with pytest.raises(OperandError, match="does not fit in 16 bits"):
        v_add_nc_u16(v[1].l, 0x12345, v[2].l)

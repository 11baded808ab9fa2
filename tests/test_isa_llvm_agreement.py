"""Agreement of the generated ISA with LLVM 22's disassembler (../shared/conformance/llvm).

For every row — random bytes that LLVM decoded — the format our tables identify from
the bytes must hold an instruction with LLVM's name at the opcode the bytes carry.
gfx942's ISA comes from the CDNA3 manual's Markdown conversion (isa/gen/markdown.py), gfx950's
from the CDNA4 manual's, gfx1201's from the RDNA4 manual's."""
from __future__ import annotations

import gzip
from collections import Counter

import pytest

import isa
from isa.mnemonics import LLVM_PSEUDO, amd_name

from .conftest import shared_path

GRAPHICS_ONLY = {"MIMG", "EXP"}   # reported separately, as the issue allows
# LLVM's encoding families -> the format our identify() must find for them
# (CDNA names the 64-bit VALU encodings VOP3A/VOP3B; DPP and SDWA are a second dword of a
# VOP1/VOP2/VOPC instruction; MFMA opcodes sit in the VOP3P opcode table)
FAMILY_FORMATS = {"VOP3_VOP1": {"VOP3", "VOP3A"}, "VOP3_VOP2": {"VOP3", "VOP3SD", "VOP3A", "VOP3B"},
                  "VOP3_VOPC": {"VOP3", "VOP3A"}, "VOP3": {"VOP3", "VOP3A"}, "VOP3SD": {"VOP3SD", "VOP3B"},
                  "DPP16": {"VOP1", "VOP2", "VOPC"}, "DPP8": {"VOP1", "VOP2", "VOPC"},
                  "DPP": {"VOP1", "VOP2", "VOPC"}, "SDWA": {"VOP1", "VOP2", "VOPC"},
                  "VOP3_DPP16": {"VOP3", "VOP3SD"}, "VOP3_DPP8": {"VOP3", "VOP3SD"},
                  "VOP3P_DPP16": {"VOP3P"}, "VOP3P_DPP8": {"VOP3P"}, "WMMA": {"VOP3P"}, "MFMA": {"VOP3P"},
                  # RDNA4's manual names: VBUFFER holds MUBUF and MTBUF, VIMAGE is LLVM's gfx12 MIMG
                  "MUBUF": {"MUBUF", "VBUFFER"}, "MTBUF": {"MTBUF", "VBUFFER"}, "MIMG": {"MIMG", "VIMAGE"},
                  "DS": {"DS", "VDS"}, "FLAT": {"FLAT", "VFLAT"}, "GLOBAL": {"GLOBAL", "VGLOBAL"},
                  "SCRATCH": {"SCRATCH", "VSCRATCH"}, "LDSDIR": {"LDSDIR", "VDSDIR"}, "EXP": {"EXP", "VEXPORT"}}

# What LLVM 22 decodes on one target that is not an instruction of that target's manual, by
# mnemonic or by the bits of the first dword (mask, value), each with the reason.
LLVM_ONLY_MNEMONICS: dict[str, dict[str, str]] = {}
LLVM_ONLY_ENCODINGS = {
    "gfx1201": [(0xFF800000, 0xD3800000,
                 "LLVM 22 also decodes GFX9/10's VOP3P encoding (bits [31:23] = 110100111) of v_fma_mix* on "
                 "gfx12 and re-encodes the text in RDNA4's VOP3P (0xcc20...); in RDNA4 bits [31:26] = 110100 "
                 "are VIMAGE, a 96-bit format, so the manual gives these bytes no 64-bit instruction")],
}


def llvm_only(target: str, hexbytes: str, text: str) -> str | None:
    """Why a row LLVM decodes is no instruction of the manual, or None."""
    mnemonic = isa.llvm_base_mnemonic(text.split()[0])
    if mnemonic in LLVM_PSEUDO:
        return LLVM_PSEUDO[mnemonic]
    if mnemonic in LLVM_ONLY_MNEMONICS.get(target, {}):
        return LLVM_ONLY_MNEMONICS[target][mnemonic]
    first = int.from_bytes(bytes.fromhex(hexbytes)[:4], "little")
    return next((why for mask, value, why in LLVM_ONLY_ENCODINGS.get(target, []) if first & mask == value), None)


def agreement(target: str):
    spec = isa.load(target)
    ok, total, bad = Counter(), Counter(), []
    with gzip.open(shared_path("conformance", "llvm", f"{target}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            family, hexbytes, text, _ = line.rstrip("\n").split("\t")
            total[family] += 1
            llvm = [isa.llvm_base_mnemonic(part.split()[0]) for part in text.split("::")]
            try:
                fmt, defs = spec.identify(bytes.fromhex(hexbytes))
            except ValueError as e:
                bad.append((family, hexbytes, text, str(e)))
                continue
            ours = [d.name for d in defs]
            expected_formats = FAMILY_FORMATS.get(family, {family})
            if fmt.name in expected_formats and ours == [amd_name(m, spec.arch) for m in llvm]:
                ok[family] += 1
            else:
                bad.append((family, hexbytes, text,
                            f"{fmt.name}: {' :: '.join(ours) or 'no instruction at this opcode'}"))
    return ok, total, bad


# the lowest agreement each corpus reached (the issue asks for 99.5%): a drop is a regression
REACHED = {"gfx1100": 99.99, "gfx1100-w64": 99.99, "gfx1151": 99.99, "gfx942": 100.0, "gfx1201": 99.65,
           "gfx950": 100.0}


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1151", "gfx942", "gfx1201", "gfx950"])
def test_generated_isa_agrees_with_llvm(target):
    ok, total, bad = agreement(target)
    compute = [f for f in total if f not in GRAPHICS_ONLY]
    print(f"\n{target}: agreement per LLVM encoding family")
    for fam in sorted(total):
        tag = " (graphics-only, reported separately)" if fam in GRAPHICS_ONLY else ""
        print(f"  {fam:<12} {ok[fam]:>5}/{total[fam]:<5} {100 * ok[fam] / total[fam]:6.2f}%{tag}")
    n_ok, n = sum(ok[f] for f in compute), sum(total[f] for f in compute)
    print(f"  overall (compute) {n_ok}/{n} = {100 * n_ok / n:.3f}%")
    all_ok, all_n = sum(ok.values()), sum(total.values())
    print(f"  overall (all rows) {all_ok}/{all_n} = {100 * all_ok / all_n:.3f}%")
    unexplained = []
    for fam, hexbytes, text, why in bad:
        reason = llvm_only(target, hexbytes, text)
        print(f"  disagreement [{fam}] {hexbytes} {text!r} -> {why}: {reason or 'UNEXPLAINED'}")
        if reason is None:
            unexplained.append((fam, text, why))
    assert n_ok / n >= 0.995 and 100 * all_ok / all_n >= REACHED[target]
    assert not unexplained, f"{len(unexplained)} unexplained disagreements, first: {unexplained[:5]}"
    for fam in GRAPHICS_ONLY & set(total):
        explained = sum(1 for f, h, t, _ in bad if f == fam and llvm_only(target, h, t))
        assert ok[fam] + explained == total[fam], f"{fam}: {total[fam] - ok[fam]} rows disagree"

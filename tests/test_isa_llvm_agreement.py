"""Agreement of the generated ISA with LLVM 22's disassembler (../shared/conformance/llvm).

For every row — random bytes that LLVM decoded — the format our tables identify from
the bytes must hold an instruction with LLVM's name at the opcode the bytes carry.
gfx942's ISA comes from the CDNA3 manual's Markdown conversion (isa/gen/markdown.py)."""
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
                  "VOP3P_DPP16": {"VOP3P"}, "VOP3P_DPP8": {"VOP3P"}, "WMMA": {"VOP3P"}, "MFMA": {"VOP3P"}}


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
                bad.append((family, text, str(e)))
                continue
            ours = [d.name for d in defs]
            expected_formats = FAMILY_FORMATS.get(family, {family})
            if fmt.name in expected_formats and ours == [amd_name(m, spec.arch) for m in llvm]:
                ok[family] += 1
            else:
                bad.append((family, text, f"{fmt.name}: {' :: '.join(ours) or 'no instruction at this opcode'}"))
    return ok, total, bad


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1151", "gfx942"])
def test_generated_isa_agrees_with_llvm(target):
    ok, total, bad = agreement(target)
    compute = [f for f in total if f not in GRAPHICS_ONLY]
    print(f"\n{target}: agreement per LLVM encoding family")
    for fam in sorted(total):
        tag = " (graphics-only, reported separately)" if fam in GRAPHICS_ONLY else ""
        print(f"  {fam:<12} {ok[fam]:>5}/{total[fam]:<5} {100 * ok[fam] / total[fam]:6.2f}%{tag}")
    n_ok, n = sum(ok[f] for f in compute), sum(total[f] for f in compute)
    print(f"  overall (compute) {n_ok}/{n} = {100 * n_ok / n:.3f}%")
    unexplained = [b for b in bad if isa.llvm_base_mnemonic(b[1].split()[0]) not in LLVM_PSEUDO]
    for fam, text, why in bad:
        reason = LLVM_PSEUDO.get(isa.llvm_base_mnemonic(text.split()[0]), "UNEXPLAINED")
        print(f"  disagreement [{fam}] {text!r} -> {why}: {reason}")
    assert n_ok / n >= 0.995
    assert not unexplained, f"{len(unexplained)} unexplained disagreements, first: {unexplained[:5]}"
    for fam in GRAPHICS_ONLY & set(total):
        assert ok[fam] == total[fam], f"{fam}: {total[fam] - ok[fam]} rows disagree"

"""The gfx9 dialect's (CDNA: gfx942, gfx950) source and output modifiers outside VOP3P against
llvm-mc-22, on every instruction: -x and |x| on each VGPR source of each VOP3 line, and of the
SDWA and DPP forms of the 32-bit instructions (isa.facts.modifier_use's neg_abs: the sources the
manual types as floats, LLVM's additions by the modifier_use errata), and mul:2 / div:2 on each
SDWA form (the 32-bit encoding's modifier_use omod: LLVM's VOP3 forms take mul:2 on integer
results of float sources, its SDWA forms do not; isa/errata_modifiers.py scopes those errata
'e64').

The base lines are tests/test_dsl_vop3_modifier_sweep.py's: LLVM's text of each VOP3 definition
(v8 <- v2, v4, v6; pairs where LLVM reads them so). One llvm-mc run per target and sweep; every
line must be accepted alike with the same bytes or refused by both, except KNOWN's differences."""
from __future__ import annotations

import re

import pytest

import isa

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_vop3_modifier_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]
# DPP control of every DPP line: 64-bit operands take row_newbcast alone (LLVM: "DP ALU dpp only
# supports row_newbcast"), which 32-bit ones take too
_DPP = " row_newbcast:1 row_mask:0xf bank_mask:0xf"

KNOWN = [
    ("gfx9", lambda line, llvm, err: line.startswith("v_div_scale_") and "no ABS field" in err and llvm is not None,
     "|x| on v_div_scale_*'s src1: the VOP3B encoding has no ABS field; LLVM 22 takes it and encodes no "
     "ABS (the value is lost), and refuses |x| on src0 and src2; we refuse it on every source"),
]


def _forms(line: str, spec) -> list[tuple[str, list[str], str]]:
    """(mnemonic, operands, trailing modifiers) of the VOP3 line and, for an instruction with a
    32-bit encoding, of its SDWA and DPP forms (no DPP form of a compare)."""
    mn, _, rest = line.partition(" ")
    ops = [o.strip() for o in rest.split(",")]
    out = [(mn, ops, "")]
    base = mn.removesuffix("_e64")
    if mn.endswith("_e64") and any(d.format in spec.traits.roles.valu_e32 for d in spec.lookup(base)):
        out.append((base + "_sdwa", ops, ""))
        if not base.startswith("v_cmp"):
            out.append((base + "_dpp", ops, _DPP))
    return out


def negated_lines(arch: str) -> list[str]:
    """-x and |x| on each VGPR source (v2, v4, v6 and their pairs) of each non-VOP3P line."""
    spec = isa.load(arch)
    out = []
    for line in base_lines(arch):
        if any(d.format == "VOP3P" for d in spec.lookup(line.split()[0])):
            continue        # (packed sources: neg_lo/neg_hi, tests/test_dsl_vop3_modifier_sweep.py)
        for mn, ops, tail in _forms(line, spec):
            for k, o in enumerate(ops):
                if k and re.fullmatch(r"v([246])|v\[([246]):\d+\]", o):
                    out += [f"{mn} {', '.join(ops[:k] + [m] + ops[k + 1:])}{tail}" for m in (f"-{o}", f"|{o}|")]
    return out


def sdwa_omod_lines(arch: str) -> list[str]:
    """mul:2 and div:2 on the SDWA form of every VOP1/VOP2 instruction."""
    spec = isa.load(arch)
    out = []
    for line in base_lines(arch):
        mn, _, rest = line.partition(" ")
        base = mn.removesuffix("_e64")
        if mn.endswith("_e64") and any(d.format in ("VOP1", "VOP2") for d in spec.lookup(base)):
            out += [f"{base}_sdwa {rest} {m}" for m in ("mul:2", "div:2")]
    return out


def _check(arch: str, lines: list[str], least: int) -> None:
    assert len(lines) > least
    agree, known, bad = compare_with_mc(arch, lines, mc_encodings(lines, arch), ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])


@pytest.mark.parametrize("arch", ARCHS)
def test_source_negation_matches_llvm(arch):
    lines = negated_lines(arch)
    _check(arch, lines, 3000)
    # the classes the float-type rule took and LLVM refuses are among them
    assert {"v_cmp_class_f16_e64 s[8:9], v2, -v4", "v_cmp_class_f16_sdwa s[8:9], v2, |v4|",
            "v_cvt_f32_bf8_e64 v8, -v2", "v_cvt_f32_bf8_dpp v8, |v2|" + _DPP} <= set(lines)


@pytest.mark.parametrize("arch", ARCHS)
def test_sdwa_output_modifiers_match_llvm(arch):
    lines = sdwa_omod_lines(arch)
    _check(arch, lines, 250)
    assert {"v_cvt_i32_f32_sdwa v8, v2 mul:2", "v_cvt_f32_fp8_sdwa v8, v2 div:2"} <= set(lines)

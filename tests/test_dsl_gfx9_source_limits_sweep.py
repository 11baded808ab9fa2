"""Scalar sources that must be registers, or take no literal (isa.facts.source_limits), on every
SOP1/SOP2/SOPC instruction of gfx942, gfx950, gfx1100, gfx1151 and gfx1201 against llvm-mc-22.

Each source of each instruction (the others SGPRs of their widths, signature.scalar_layout) is
written as an inline constant (1), a literal that fits the source (0x12345; 0x1234 for a 16-bit
source, dsl.operand_records.scalar_bits: RDNA3.5/4's f16 SALU) and a memory aperture
(src_shared_base): llvm-mc-22 refusing the inline constant makes the source a 'register' one,
taking it and refusing the literal an 'inline' one; the fact must say exactly that for every
source (the code's: s_movrels*'s register number, s_setpc_b64's and s_rfe_b64's jump address;
LLVM's by the source_limits errata: CDNA's s_cbranch_join, s_cbranch_g_fork, RDNA's
s_movrelsd_2_b32, which takes constants). Every line must be accepted alike with the same bytes
or refused by both (the gfx9 assembler, dsl/asm_gfx9.py; the RDNA encoder, dsl/encode.py)."""
from __future__ import annotations

import pytest

import isa
from dsl.operand_records import scalar_bits, source_is_immediate
from dsl.signature import raw_source_field, scalar_layout
from isa.facts import source_limits
from isa.mnemonics import text_mnemonic

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_scalar_special_sweep import KNOWN as SPECIAL_KNOWN

ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"]
VALUES = ("1", "literal", "src_shared_base")
# (the literal probe: one that fits the source, so a refusal is the source's limit, not the value's width)
LITERALS = {16: "0x1234", 32: "0x12345", 64: "0x12345"}
# LLVM 22 reads a memory aperture as an RDNA4 barrier id's inline constant (src_shared_base 235 as 33);
# we refuse it (tests/test_dsl_scalar_special_sweep.py's entry)
KNOWN = [k for k in SPECIAL_KNOWN if k[0] == "gfx12"]


def _register(n: int, at: int) -> str:
    return f"s{at}" if n == 1 else f"s[{at}:{at + n - 1}]"


def source_lines(arch: str) -> list[tuple[str, str, str, str]]:
    """(line, instruction name, source 'S0'/'S1', value) for each source of each scalar ALU instruction."""
    spec = isa.load(arch)
    out = []
    for d in spec.instructions:
        # (a field that holds a number, not an operand: s_set_gpr_idx_on's mode, s_sendmsg_rtn's message)
        if d.format not in ("SOP1", "SOP2", "SOPC") or raw_source_field(d, spec.traits.roles) or source_is_immediate(d):
            continue
        layout = scalar_layout(d)
        if not layout or any(n not in (1, 2) for _, _, n in layout):
            continue
        mn = text_mnemonic(d.name, arch)
        # (s_fmaak/s_fmamk's K: the probe's literal, which a source may share, LLVM's one literal)
        base = [LITERALS[32] if name == "k" else _register(n, 4 * i + 4) for i, (name, _, n) in enumerate(layout)]
        for k, (name, field, n) in enumerate(layout):
            if name in ("sdst", "k"):
                continue
            src = "S0" if field == "SSRC0" else "S1"
            for value in VALUES:
                ops = base[:k] + [LITERALS[scalar_bits(d, src)] if value == "literal" else value] + base[k + 1:]
                out.append((f"{mn} {', '.join(ops)}", d.name, src, value))
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_source_limits_are_where_llvm_refuses_constants(arch):
    spec = isa.load(arch)
    rows = source_lines(arch)
    assert len(rows) > 300
    lines = [line for line, *_ in rows]
    want = mc_encodings(lines, arch)
    taken = {(name, src, value): w is not None for (_, name, src, value), w in zip(rows, want)}
    llvm, fact = {}, {}
    for name, src, _ in taken:
        kind = None if taken[name, src, "literal"] else "inline" if taken[name, src, "1"] else "register"
        if kind:
            llvm[name, src] = kind
        got = dict(source_limits(spec.lookup(text_mnemonic(name, arch))[0])).get(src)
        if got:
            fact[name, src] = got
    assert llvm == fact, (f"llvm-mc-22's limits {sorted(set(llvm.items()) - set(fact.items()))}, "
                          f"the fact's {sorted(set(fact.items()) - set(llvm.items()))}")
    expected = {("S_SETPC_B64", "S0"), ("S_MOVRELS_B64", "S0")} | (
        {("S_RFE_B64", "S0"), ("S_CBRANCH_JOIN", "S0"), ("S_CBRANCH_G_FORK", "S1")} if arch.startswith("gfx9")
        else {("S_MOVRELS_B32", "S0")})
    assert expected <= set(fact)
    if not arch.startswith("gfx9"):     # the erratum: the code reads a register number, LLVM takes constants
        assert ("S_MOVRELSD_2_B32", "S0") not in fact and taken["S_MOVRELSD_2_B32", "S0", "literal"]
    agree, known, bad = compare_with_mc(arch, lines, want, ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22 ({sum(known.values())} known); "
          f"limited sources {sorted(fact.items())}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])

"""Scalar sources that must be registers, or take no literal (isa.facts.source_limits), on every
SOP1/SOP2/SOPC instruction of gfx942 and gfx950 against llvm-mc-22.

Each source of each instruction (the others SGPRs of their widths, signature.scalar_layout) is
written as an inline constant (1), a literal (0x12345) and a memory aperture (src_shared_base):
llvm-mc-22 refusing the inline constant makes the source a 'register' one, taking it and
refusing the literal an 'inline' one; the fact must say exactly that for every source (the code's:
s_movrels*'s register number, s_setpc_b64's and s_rfe_b64's jump address; LLVM's by the
source_limits errata: s_cbranch_join, s_cbranch_g_fork). Every line must be accepted alike with
the same bytes or refused by both."""
from __future__ import annotations

import pytest

import isa
from dsl.signature import raw_source_field, scalar_layout
from isa.facts import source_limits
from isa.mnemonics import text_mnemonic

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours

ARCHS = ["gfx942", "gfx950"]
VALUES = ("1", "0x12345", "src_shared_base")


def _register(n: int, at: int) -> str:
    return f"s{at}" if n == 1 else f"s[{at}:{at + n - 1}]"


def source_lines(arch: str) -> list[tuple[str, str, str, str]]:
    """(line, instruction name, source 'S0'/'S1', value) for each source of each scalar ALU instruction."""
    spec = isa.load(arch)
    out = []
    for d in spec.instructions:
        if d.format not in ("SOP1", "SOP2", "SOPC") or raw_source_field(d):
            continue
        layout = scalar_layout(d)
        if not layout or any(n not in (1, 2) for _, _, n in layout):
            continue
        mn = text_mnemonic(d.name, arch)
        base = [_register(n, 4 * i + 4) for i, (_, _, n) in enumerate(layout)]
        for k, (name, field, n) in enumerate(layout):
            if name == "sdst":
                continue
            for value in VALUES:
                ops = base[:k] + [value] + base[k + 1:]
                out.append((f"{mn} {', '.join(ops)}", d.name, "S0" if field == "SSRC0" else "S1", value))
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
        kind = None if taken[name, src, "0x12345"] else "inline" if taken[name, src, "1"] else "register"
        if kind:
            llvm[name, src] = kind
        got = dict(source_limits(spec.lookup(text_mnemonic(name, arch))[0])).get(src)
        if got:
            fact[name, src] = got
    assert llvm == fact, (f"llvm-mc-22's limits {sorted(set(llvm.items()) - set(fact.items()))}, "
                          f"the fact's {sorted(set(fact.items()) - set(llvm.items()))}")
    assert {("S_SETPC_B64", "S0"), ("S_RFE_B64", "S0"), ("S_MOVRELS_B64", "S0"), ("S_CBRANCH_JOIN", "S0"),
            ("S_CBRANCH_G_FORK", "S1")} <= set(fact)
    agree, _, bad = compare_with_mc(arch, lines, want, ours(lines, arch), [])
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; limited sources {sorted(fact.items())}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])

"""OPSEL bits as DPP flags (isa.facts.opsel_flags) on every gfx9 VOP3 instruction against llvm-mc-22
(gfx942, gfx950).

The gfx9 syntax writes the flags an instruction's OPSEL bits are (OPSEL[0] DPP's FI, OPSEL[1] its
BOUND_CTRL: CDNA4's v_permlane16_swap_b32 / v_permlane32_swap_b32, by an opsel_flags erratum) as
`bound_ctrl:1 fi:1` on the VOP3 form. Every VOP3/VOP3P base line of the modifier sweep (LLVM's
text of each instruction's bytes) gets fi:1, bound_ctrl:1 and both: the instructions llvm-mc-22
takes them on must be exactly those whose fact is set, and every line must be accepted alike with
the same bytes or refused by both."""
from __future__ import annotations

import pytest

import isa
from isa.facts import opsel_flags

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_vop3_modifier_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]
FLAGS = ("fi:1", "bound_ctrl:1", "bound_ctrl:1 fi:1")


@pytest.mark.parametrize("arch", ARCHS)
def test_opsel_flags_are_where_llvm_takes_bound_ctrl_and_fi(arch):
    spec = isa.load(arch)
    bases = base_lines(arch)
    assert len(bases) > 400
    lines = [f"{b} {flag}" for b in bases for flag in FLAGS]
    want = mc_encodings(lines, arch)
    llvm = {line.split(" ", 1)[0] for line, w in zip(lines, want) if w is not None}
    fact = {b.split(" ", 1)[0] for b in bases
            if any(opsel_flags(d) for d in spec.lookup(b.split(" ", 1)[0]))}
    assert llvm == fact, f"llvm-mc-22 takes the flags on {sorted(llvm - fact)}, the fact says {sorted(fact - llvm)} too"
    if arch == "gfx950":
        assert fact == {"v_permlane16_swap_b32_e64", "v_permlane32_swap_b32_e64"}
    agree, _, bad = compare_with_mc(arch, lines, want, ours(lines, arch), [])
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; flags taken on {sorted(llvm)}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])

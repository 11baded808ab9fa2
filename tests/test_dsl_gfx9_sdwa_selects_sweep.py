"""SDWA forms whose code picks the source bytes itself (isa.facts.sdwa_selects: `if SDWA_SRC0_SEL ==
BYTE1.b3 then D0.f32 = fp8_to_f32(S0[15 : 8].fp8)`, CDNA's fp8/bf8 conversions to f32) on every
gfx942 and gfx950 VOP1/VOP2/VOPC instruction against llvm-mc-22.

The SDWA form of each instruction (tests/test_dsl_vop3_modifier_sweep.py's base lines: LLVM's text
of its VOP3 bytes, written _sdwa) gets dst_sel:WORD_1 dst_unused:UNUSED_PAD (a compare:
src0_sel:BYTE_1), and src0 as sext(v2): llvm-mc-22 takes the plain form and refuses dst_sel on
exactly the instructions whose fact is set, and every line must be accepted alike with the same
bytes or refused by both (but KNOWN's differences; sext() on a float source is refused, as by LLVM)."""
from __future__ import annotations

import pytest

import isa
from isa.facts import sdwa_selects

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_vop3_modifier_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]
KNOWN = [
    ("gfx9", lambda line, llvm, err: line.startswith("v_pk_fmac_f16_sdwa") and "sext(" in line and llvm is not None
     and err == "",
     "LLVM 22 takes sext() on v_pk_fmac_f16_sdwa's packed f16 source and encodes no SRC0_SEXT bit (the modifier is "
     "lost); we encode it"),
]


def sdwa_lines(arch: str) -> list[tuple[str, str, str]]:
    """(plain SDWA line, with dst_sel, with sext(v2)) of each VOP1/VOP2/VOPC instruction."""
    spec = isa.load(arch)
    out = []
    for line in base_lines(arch):
        mn, _, rest = line.partition(" ")
        base = mn.removesuffix("_e64")
        if mn.endswith("_e64") and any(d.format in ("VOP1", "VOP2", "VOPC") for d in spec.lookup(base)):
            sel = "src0_sel:BYTE_1" if base.startswith("v_cmp") else "dst_sel:WORD_1 dst_unused:UNUSED_PAD"
            ops = [o.strip() for o in rest.split(",")]
            sext = [f"sext({o})" if o == "v2" else o for o in ops]
            out.append((f"{base}_sdwa {rest}", f"{base}_sdwa {rest} {sel}", f"{base}_sdwa {', '.join(sext)}"))
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_sdwa_selects_are_where_llvm_takes_no_dst_sel(arch):
    spec = isa.load(arch)
    rows = sdwa_lines(arch)
    assert len(rows) > 300
    lines = [line for row in rows for line in row]
    want = mc_encodings(lines, arch)
    plain, selected = want[0::3], want[1::3]
    llvm = {row[0].split()[0] for row, p, s in zip(rows, plain, selected)
            if p is not None and s is None and not row[0].startswith("v_cmp")}
    fact = {row[0].split()[0] for row in rows
            if any(sdwa_selects(d) for d in spec.lookup(row[0].split()[0].removesuffix("_sdwa")))}
    assert llvm == fact, f"llvm-mc-22 refuses dst_sel on {sorted(llvm - fact)}, the fact says {sorted(fact - llvm)} too"
    assert fact == {"v_cvt_f32_fp8_sdwa", "v_cvt_f32_bf8_sdwa", "v_cvt_pk_f32_fp8_sdwa", "v_cvt_pk_f32_bf8_sdwa"}
    agree, known, bad = compare_with_mc(arch, lines, want, ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])

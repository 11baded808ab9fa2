"""Special registers in every scalar ALU operand against llvm-mc-22 (gfx942, gfx950, gfx1100, gfx1151,
gfx1201).

Every SOP1/SOP2/SOPC instruction of the ISA data (its operands from signature.scalar_layout:
SGPRs of the widths it reads and writes) gets, in each operand in turn, each special register
name of that width: vcc, exec, m0, null, ttmps, the memory apertures (src_shared_base ..
src_private_limit: LLVM refuses them where the code reads the source as a register number,
s_movrels*), src_scc, src_vccz, src_execz. One llvm-mc run per target; every line must be
accepted alike with the same bytes or refused by both, except the differences listed in KNOWN,
each with its reason (an entry no line needs any more fails the test)."""
from __future__ import annotations

import pytest

import isa
from dsl.signature import scalar_layout
from isa.mnemonics import text_mnemonic

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours

ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"]
SPECIALS = {1: ["vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0", "null", "ttmp1", "src_shared_base",
                "src_shared_limit", "src_private_base", "src_private_limit", "src_scc", "src_vccz", "src_execz",
                "src_pops_exiting_wave_id"],
            2: ["vcc", "exec", "null", "ttmp[2:3]", "src_shared_base", "src_private_base", "src_private_limit",
                "flat_scratch", "xnack_mask"]}


def _register(n: int, at: int) -> str:
    return f"s{at}" if n == 1 else f"s[{at}:{at + n - 1}]"


def sweep_lines(arch: str) -> list[str]:
    spec = isa.load(arch)
    lines = []
    for d in spec.instructions:
        if d.format not in ("SOP1", "SOP2", "SOPC"):
            continue
        layout = scalar_layout(d)
        if not layout or any(n not in SPECIALS for _, _, n in layout):
            continue
        mn = text_mnemonic(d.name, arch)
        base = [_register(n, 4 * i + 4) for i, (_, _, n) in enumerate(layout)]
        for k, (_, _, n) in enumerate(layout):
            for name in SPECIALS[n]:
                ops = base[:k] + [name] + base[k + 1:]
                lines.append(f"{mn} {', '.join(ops)}")
    return lines


def _scalar_destination_truncated(line, llvm, err) -> bool:
    """LLVM's bytes write a 7-bit SDST field with the low bits of a source-only code (src_scc 253 -> m0's 125)."""
    first = line.split(" ", 1)[1].split(",")[0]
    return llvm is not None and first in ("src_scc", "src_vccz", "src_execz", "src_pops_exiting_wave_id")


# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
KNOWN = [
    ("gfx", _scalar_destination_truncated,
     "LLVM 22 takes src_scc, src_vccz, src_execz and src_pops_exiting_wave_id as a SALU destination and "
     "writes their 8-bit code into the 7-bit SDST field (253 becomes 125, m0 on gfx11 and gfx9: the value is "
     "lost); we refuse a source-only code as a destination"),
    ("gfx12", lambda line, llvm, err: llvm is not None and "takes M0 or an inline constant" in err and
     128 <= llvm[0] <= 208,
     "RDNA4's barrier instructions (s_barrier_signal*, s_barrier_init/join, s_get_barrier_state) take M0 or an "
     "inline constant: LLVM 22 also takes null, the memory apertures and src_scc there and encodes an inline "
     "integer's code instead (null 148 = 20, src_private_base 156 = 28): not the register named; we refuse them"),
]


@pytest.mark.parametrize("arch", ARCHS)
def test_special_registers_in_scalar_operands_match_llvm(arch):
    lines = sweep_lines(arch)
    assert len(lines) > 1000
    agree, known, bad = compare_with_mc(arch, lines, mc_encodings(lines, arch), ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    unused = {why for prefix, _, why in KNOWN if arch.startswith(prefix)} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"

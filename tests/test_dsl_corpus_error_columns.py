"""Error columns on the LLVM corpora's refused rows (../shared/conformance/llvm/<target>.tsv.gz,
`reenc` `-`: LLVM's assembler refuses its own disassembly), against llvm-mc-22's line:column
(skipped without it). Every second such row of each target is assembled by both; the refusals
whose column differs may not grow past the count measured, nor those in the classes placed as
LLVM places them (none on RDNA3/3.5): the constant bus (the first source it has no room for, the
register inside -x/|x|; VOPD's pairs apart), a th:/scope: name or number (at the value), a gfx9
offset out of range (at offset:), a DPP source that must be a VGPR (the register inside -x/|x|;
a constant at the mnemonic)."""
from __future__ import annotations

import gzip
import re

import pytest

import dsl

from .llvm_tools import mc_items
from .test_dsl_llvm_corpus import SHARED

# target: refused rows (of every second) whose column differs from llvm-mc-22's, measured (the
# rest: LLVM's operand match naming another operand than the one we refuse, v_cndmask_b16's
# src2 and VOP3 src_lds_direct; a DPP source two texts name; a th: name after a null resource)
MOST = {"gfx1100": 15, "gfx1100-w64": 10, "gfx1151": 4, "gfx1201": 5, "gfx942": 2, "gfx950": 0}
# of those, in the classes below (gfx1201: a th: name refused after an operand we refuse first)
PLACED_MOST = {"gfx1100": 0, "gfx1100-w64": 0, "gfx1151": 0, "gfx1201": 2, "gfx942": 0, "gfx950": 0}
PLACED = re.compile(r"constant bus|invalid th value|invalid scope value|expected an identifier|"
                    r"-bit unsigned offset|src1 immediate operand invalid")


def _rows(target: str) -> list[str]:
    with gzip.open(SHARED / "conformance" / "llvm" / f"{target}.tsv.gz", "rt") as f:
        next(f)
        return [line.split("\t")[2] for line in f if line.rstrip("\n").endswith("\t-")][::2]


def _repeats_a_register(line: str) -> bool:
    """Whether a register is written twice (v_add_co_ci_u32_e64 v0, s0, s52, s2, s0): which of
    them an error names is not told by the value (the parser hands out one object per text)."""
    regs = re.findall(r"\b(?:[sv]\d+\b|[sv]\[\d+:\d+\]|ttmp\d+\b|ttmp\[\d+:\d+\]|vcc\w*|m0\b|exec\w*)", line)
    return len(regs) != len(set(regs))


def _column(line: str, arch: str, wave: int | None) -> int | None:
    try:
        dsl.assemble(line, arch, wave)
    except dsl.AsmError as e:
        return int(re.match(r"\d+:(\d+):", str(e)).group(1))
    return None


@pytest.mark.parametrize("target", sorted(MOST))
def test_corpus_refusals_at_llvms_column(target, capsys):
    arch, wave, mattr = (target[:-4], 64, "+wavefrontsize64") if target.endswith("-w64") else (target, None, None)
    lines = _rows(target)
    same, differ, placed = 0, [], []
    for line, (_, errors) in zip(lines, mc_items(lines, arch, mattr)):
        ours = _column(line, arch, wave) if errors else None
        if ours is None:
            continue
        if ours == errors[0][0]:
            same += 1
            continue
        differ.append(line)
        if PLACED.search(errors[0][1]) and " :: " not in line and not _repeats_a_register(line):
            placed.append(f"{line!r}: llvm-mc {errors[0][0]} ({errors[0][1]}), ours {ours}")
    with capsys.disabled():
        print(f"\n{target}: {same} refused rows at llvm-mc-22's column, {len(differ)} elsewhere "
              f"({len(placed)} in the placed classes)")
    assert same > 1000
    assert len(differ) <= MOST[target], f"{len(differ)} columns differ (at most {MOST[target]}): {differ[:10]}"
    assert len(placed) <= PLACED_MOST[target], "\n".join(placed[:20])

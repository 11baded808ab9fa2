"""gfx942/gfx950 disassembly of VOP3/VOP3P OPSEL bits against llvm-mc-22 --disassemble (skipped
without it): for one LLVM-made encoding of every VOP3-family mnemonic in the target's corpus
(../shared/conformance/llvm/<target>.tsv.gz, the `reenc` column: LLVM's assembler's bytes), each
OPSEL bit (word 0 bits 11..14) is set in turn. Where LLVM prints one instruction we must print
its text: op_sel only on instructions the gfx9 assembler takes it on (valu_plan.gfx9_takes_opsel),
none of the bits of one that takes none (v_lshrrev_b32_e64: LLVM prints no op_sel). Where LLVM
refuses the bytes ("invalid instruction encoding": an OPSEL bit of a source the instruction does
not have, a VOP3P integer dot product's op_sel) we still print them; those are counted, and the
count may not grow."""
from __future__ import annotations

import pytest

from .llvm_tools import mc_disassembly_each, ours_disassembly
from .test_dsl_llvm_corpus import corpus

# target: (cases, bytes LLVM refuses that we print) measured with llvm-mc-22 (LLVM 22.1.8)
REFUSED_WE_PRINT = {"gfx942": 40, "gfx950": 63}


def _cases(target: str) -> list[tuple[bytes, str, int]]:
    first: dict[str, bytes] = {}
    for fam, _hx, text, reenc in corpus(target):
        if fam.startswith("VOP3") and reenc != "-":
            first.setdefault(text.split()[0], bytes.fromhex(reenc))
    out = []
    for mn, b in sorted(first.items()):
        word = int.from_bytes(b[:4], "little")
        for bit in range(4):
            if not word >> (11 + bit) & 1:
                out.append(((word | 1 << (11 + bit)).to_bytes(4, "little") + b[4:], mn, bit))
    return out


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_opsel_bits_print_as_llvm(target):
    cases = _cases(target)
    want = mc_disassembly_each([b for b, _, _ in cases], target)
    agree, differ, refused_printed = 0, [], 0
    for (b, mn, bit), w in zip(cases, want):
        got = ours_disassembly(b, target)
        if w is None:
            refused_printed += not got.startswith("error")
        elif got == w:
            agree += 1
        else:
            differ.append(f"{b.hex()} (OPSEL bit {bit}): llvm {w!r}, ours {got!r}")
    print(f"\n{target}: {len(cases)} cases, {agree} agree, {len(differ)} differ, "
          f"{refused_printed} LLVM refuses and we print")
    assert len(cases) > 1500
    assert not differ, "\n".join(differ[:30])
    assert refused_printed <= REFUSED_WE_PRINT[target]


def test_lshrrev_e64_prints_no_opsel():
    """The brief's example: LLVM prints `v_lshrrev_b32_e64 v8, v2, v4` for these bytes."""
    want = mc_disassembly_each([bytes.fromhex("080810d102090200")], "gfx942")[0]
    assert want is not None and "op_sel" not in want
    assert ours_disassembly(bytes.fromhex("080810d102090200"), "gfx942") == want

"""Exports (RDNA3/3.5's EXP, RDNA4's VEXPORT) against llvm-mc-22 (skipped without it): every target
LLVM names, the EN bits written as `off`, done and row_en give LLVM's bytes and print back as
llvm-mc --disassemble prints them; what LLVM refuses (targets of other generations, compr/vm, an
SGPR or a tuple, too few operands, a flag twice, row_en before done) we refuse at the column LLVM names. CDNA has no
export (llvm-mc-22 -mcpu=gfx942 / gfx950: instruction not supported on this GPU)."""
from __future__ import annotations

import itertools

import pytest

import dsl
from dsl.disasm import disassemble
from tests.llvm_tools import mc_disassembly, mc_encodings, mc_errors

RDNA = ("gfx1100", "gfx1151", "gfx1201")
TARGETS = [f"mrt{i}" for i in range(8)] + ["mrtz"] + [f"pos{i}" for i in range(5)] + \
          ["prim", "dual_src_blend0", "dual_src_blend1"]


def _lines() -> list[str]:
    out = []
    for t, en, flags in itertools.product(TARGETS, (0, 1, 3, 5, 0xa, 0xf), ("", " done", " row_en", " done row_en")):
        srcs = [f"v{(7 * i + len(t) * 13) % 256}" if en >> i & 1 else "off" for i in range(4)]
        out.append(f"exp {t} {', '.join(srcs)}{flags}")
    return out + ["exp mrt0 v255, v1, v2, v3", "exp mrt7 v0, v0, v0, v0"]


REFUSED = ["exp null off, off, off, off", "exp param0 v1, v2, v3, v4", "exp mrt8 v0, v0, v0, v0",
           "exp pos5 v0, v0, v0, v0", "exp invalid_target_10 v0, v0, v0, v0", "exp mrt0 v0, v0, v0, v0 compr",
           "exp mrt0 v0, v0, v0, v0 vm", "exp mrt0 v0, v1, v2, v3 done done", "exp mrt0 v0, v1, v2",
           "exp mrt0 s0, v1, v2, v3", "exp mrt0 v[0:1], v1, v2, v3", "exp mrt0 v0, v1, v2, 1.0",
           "exp mrt0 v0, v1, v2, v3, v4", "exp mrt0 v0, off, off, off row_en done"]


@pytest.mark.parametrize("arch", RDNA)
def test_exports_encode_and_print_as_llvm(arch):
    lines = _lines()
    want = mc_encodings(lines, arch)
    assert all(w is not None for w in want), [line for line, w in zip(lines, want) if w is None][:5]
    texts = mc_disassembly(want, arch)
    for line, w, text in zip(lines, want, texts):
        got = bytes(dsl.assemble(line, arch))
        assert got == w, f"{arch}: {line!r}: want {w.hex()} got {got.hex()}"
        assert " ".join(disassemble(w, arch).split()) == " ".join(text.split()), line


@pytest.mark.parametrize("arch", RDNA)
def test_exports_llvm_refuses_are_refused_at_its_column(arch):
    assert all(w is None for w in mc_encodings(REFUSED, arch))
    errors = mc_errors(REFUSED, arch)
    for i, line in enumerate(REFUSED):
        with pytest.raises(dsl.AsmError) as err:
            dsl.assemble("s_nop 0\n" + line, arch)
        first = str(err.value).splitlines()[0]
        assert first.startswith(f"2:{errors[i][0]}: "), f"{arch}: {line!r}: LLVM {errors[i]}, we {first!r}"
        assert "not supported yet" not in first and "Attr(" not in first, first


@pytest.mark.parametrize("arch", ("gfx942", "gfx950"))
def test_cdna_has_no_export_as_llvm(arch):
    line = "exp mrt0 v0, v1, off, off done"
    assert "not supported on this GPU" in mc_errors([line], arch)[0][1]
    with pytest.raises(dsl.AsmError, match="1:1: .*unknown instruction 'exp'"):
        dsl.assemble(line, arch)

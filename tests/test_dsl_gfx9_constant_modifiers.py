"""neg()/|x| on a number as src0 of a gfx9-dialect (CDNA3, CDNA4) VOP1/VOP2/VOPC instruction with a
float src0: LLVM 22 folds the modifiers into the number and picks the 32-bit encoding (`v_add_f32
v0, |1.0|, v2` is `v_add_f32_e32 v0, 1.0, v2`; |-1.5| becomes the literal 1.5), as the RDNA
encoder does (dsl.source_modifiers.folded_modifiers). Bytes and refusals of every such line, with
and without _e32/_e64, against llvm-mc-22 (skipped without it)."""
import pytest

import dsl
import isa
from dsl.asm_parse import AsmError
from tests.llvm_tools import mc_encodings, tool

TARGETS = ("gfx942", "gfx950")
VALUES = ("|1.0|", "neg(2.0)", "-|0.5|", "|-1.5|", "|0x3f800000|", "|0x40|", "neg(1)", "|0|")
FLOATS = ("f16", "f32", "f64", "bf16")


def _reg(t: str, n: int) -> str:
    return f"v[{n}:{n + 1}]" if t.endswith("64") else f"v{n}"


def _lines(arch: str) -> list[str]:
    """One line per (instruction, value, suffix): the VOP1/VOP2/VOPC instructions whose src0 is
    typed a float, their other operands VGPRs (a compare's result vcc)."""
    out = []
    for d in isa.load(arch).instructions:
        types = d.operand_types or {}
        if d.format not in ("VOP1", "VOP2", "VOPC") or types.get("S0") not in FLOATS:
            continue
        dst = "vcc" if d.format == "VOPC" else _reg(types.get("D0", "u32"), 0)
        rest = "".join(f", {_reg(types[s], 2)}" for s in ("S1",) if s in types)
        for value in VALUES:
            for suffix in ("", "_e32", "_e64"):
                out.append(f"{d.name.lower()}{suffix} {dst}, {value}{rest}")
    return out


def _ours(line: str, arch: str) -> bytes | None:
    try:
        return dsl.assemble(line, arch=arch)
    except AsmError:
        return None


@pytest.mark.parametrize("arch", TARGETS)
def test_constant_modifiers_are_llvms(arch):
    tool("llvm-mc")
    lines = _lines(arch)
    assert len(lines) >= 50 * len(VALUES)
    want = mc_encodings(lines, arch)
    assert sum(w is not None for w in want) > len(lines) // 4     # (lines llvm-mc takes: the check has teeth)
    differ = [(line, w, _ours(line, arch)) for line, w in zip(lines, want) if _ours(line, arch) != w]
    assert not differ, f"{len(differ)} of {len(lines)} lines differ from llvm-mc-22, e.g. {differ[:6]}"

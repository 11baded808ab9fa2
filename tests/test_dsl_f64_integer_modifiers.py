"""neg()/|x| on an integer written for a 64-bit float source (an inline integer, or a 64-bit
pattern that is an inline float): LLVM 22 does not fold the modifiers into the number for the
32-bit encoding, as it does on 32-bit and 16-bit sources; it keeps the VOP3 form with the ABS/NEG
bits (and refuses the line under an _e32 suffix). Bytes and refusals against llvm-mc-22 on every
RDNA VOP1/VOP2 instruction with a 64-bit float source (skipped without it)."""
import pytest

import dsl
import isa
from dsl.asm_parse import AsmError
from tests.llvm_tools import mc_encodings, tool

TARGETS = ("gfx1100", "gfx1151", "gfx1201")
VALUES = ("|0x40|", "neg(1)", "|0|", "-|0x10|", "neg(0x3ff0000000000000)", "|0x3ff0000000000000|",
          "|1.0|", "neg(2.0)", "|-1|")


def _lines(arch: str) -> list[str]:
    """One line per (instruction, value): the e32-capable instructions whose src0 is a 64-bit float
    and whose other operands are VGPRs (v_fract_f64, v_cvt_f32_f64, v_add_f64 on RDNA4, ...)."""
    out = []
    for d in isa.load(arch).instructions:
        types = d.operand_types or {}
        if d.format not in ("VOP1", "VOP2") or types.get("S0") != "f64" or d.name.startswith("V_DUAL"):
            continue
        dst = "v[0:1]" if types.get("D0", "").endswith("64") else "v0"
        rest = "".join(", v[2:3]" if types.get(s, "").endswith("64") else ", v2"
                       for s in ("S1",) if s in types)
        for value in VALUES:
            for suffix in ("", "_e32"):
                out.append(f"{d.name.lower()}{suffix} {dst}, {value}{rest}")
    return out


def _ours(line: str, arch: str) -> bytes | None:
    try:
        return dsl.assemble(line, arch=arch)
    except AsmError:
        return None


@pytest.mark.parametrize("arch", TARGETS)
def test_integer_modifiers_on_64_bit_sources_are_llvms(arch):
    tool("llvm-mc")
    lines = _lines(arch)
    assert len(lines) >= 8 * len(VALUES)
    want = mc_encodings(lines, arch)
    differ = [(line, w, _ours(line, arch)) for line, w in zip(lines, want) if _ours(line, arch) != w]
    assert not differ, f"{len(differ)} of {len(lines)} lines differ from llvm-mc-22, e.g. {differ[:4]}"

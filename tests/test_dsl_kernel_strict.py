"""The DSL's Kernel on another architecture's instructions and impossible wave sizes (issue
15, class 6): refused when written, not assembled into an opcode the target does not have."""
from __future__ import annotations

import pytest

import dsl.rdna3 as r3
import dsl.rdna3_5 as r35
from dsl.kernel import Kernel
from dsl.operands import OperandError


def test_an_instruction_of_another_arch_is_refused():
    k = Kernel("gfx1100")
    with pytest.raises(OperandError, match=r"s_ceil_f32 was built for rdna3\.5, but this Kernel is for gfx1100"):
        k += r35.s_ceil_f32(r35.s[0], r35.s[1])
    assert k.items == []
    k2 = Kernel("gfx1151")
    k2 += r35.s_ceil_f32(r35.s[0], r35.s[1])            # its own arch: fine
    assert str(k2).strip() == "s_ceil_f32 s0, s1"
    with pytest.raises(OperandError, match="built for rdna3, but this Kernel is for gfx1151"):
        k2 += r3.s_endpgm()


@pytest.mark.parametrize("arch, wave, message", [("gfx1100", 48, "32 or 64 lanes"), ("gfx1100", 0, "32 or 64"),
                                                 ("gfx9999", None, "unknown target"), (None, None, "target name")])
def test_impossible_kernels_are_refused_when_made(arch, wave, message):
    with pytest.raises(OperandError, match=message):
        Kernel(arch, wave_size=wave)

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


def test_a_virtual_register_name_is_used_once():
    """Names stay unique however the kernel's list of virtuals came to be: made here, or a
    list put in whole (as the spiller's copy of a kernel does)."""
    k = Kernel("gfx1100")
    k.vreg(1, "x")
    k.sreg(2)                                   # named s1 by its index
    for name in ("x", "s1"):
        with pytest.raises(OperandError, match=rf"virtual register name %{name} is already used"):
            k.vreg(1, name)
    copy = Kernel("gfx1100")
    copy.vreg(1, "y")
    copy.virtuals = list(k.virtuals)            # a replaced list: its names count, y's no longer
    with pytest.raises(OperandError, match="%x is already used"):
        copy.vreg(1, "x")
    assert copy.vreg(1, "y").vid == 2
    assert [v.name for v in copy.virtuals] == ["x", "s1", "y"]

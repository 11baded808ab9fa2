"""Division helpers and v_subrev_co_ci_u32 against values measured on RDNA3 hardware, where
the PDF pseudocode says otherwise (the errata in isa/errata.py).

Source of the values: the tinygrad project's RDNA3 hardware tests (tinygrad/tinygrad,
extra/assembly/amd/test/hw/test_div.py and test_vop2.py; values measured on RDNA3 GPUs). Their
kernels run with the code object defaults for MODE (LLVM: float_denorm_mode_32 = 0, i.e. f32
denormals flushed; f16/f64 kept; IEEE and DX10 clamp on), given here as MODE = 0x3C0."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch, loads

HW_MODE = 0x3C0
F = lambda x: f"0x{int(np.array(x, np.float32).view(np.uint32)):08x}"


def run(setup: str, inst: str, vcc: int = 0, arch: str = "gfx1100"):
    """(v2 of lanes 0-3 as uint32, VCC after the instruction) for a 4-lane wave."""
    src = loads("o") + f"""
        s_mov_b32 vcc_lo, {vcc}
        v_lshlrev_b32 v30, 3, v0           // the setup overwrites v0
        {setup}
        {inst}
        v_mov_b32 v5, vcc_lo
        global_store_b32 v30, v2, s[4:5]
        global_store_b32 v30, v5, s[4:5] offset:4
        s_endpgm"""
    out, _ = launch(src, {"o": np.zeros(8, np.uint32)}, block=(4, 1, 1), wave=32, arch=arch, mode=HW_MODE)
    o = out["o"].reshape(4, 2)
    return o[:, 0], int(o[0, 1])


ARCHS = ["gfx1100", "gfx1151"]


def as_f32(bits):
    return np.asarray(bits, np.uint32).view(np.float32)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("s0, s1, s2, operands", [
    (1.0, 0.0, None, "v0, v1, v0"),        # zero denominator (S0 = S2 = 1.0, S1 = 0.0)
    (0.0, 1.0, None, "v0, v1, v0"),        # zero numerator
    (1.0, "0x00000001", None, "v1, v1, v0"),   # denormal denominator (flushed: zero)
])
def test_div_scale_f32_zero_or_denormal_gives_nan_and_sets_vcc(arch, s0, s1, s2, operands):
    v1 = s1 if isinstance(s1, str) else F(s1)
    d, vcc = run(f"v_mov_b32 v0, {F(s0)}\nv_mov_b32 v1, {v1}", f"v_div_scale_f32 v2, vcc_lo, {operands}", arch=arch)
    assert np.isnan(as_f32(d[0])) and vcc & 1 == 1


@pytest.mark.parametrize("arch", ARCHS)
def test_div_scale_f32_smallest_normal_numerator_scales_it_and_sets_vcc(arch):
    d, vcc = run("v_mov_b32 v0, 0x00800000\nv_mov_b32 v1, 1.0", "v_div_scale_f32 v2, vcc_lo, v0, v1, v0", arch=arch)
    assert as_f32(d[0]) == np.float32(2.0 ** -126 * 2.0 ** 64) and vcc & 1 == 1


@pytest.mark.parametrize("arch", ARCHS)
def test_div_scale_f32_large_exponent_difference_and_ordinary_operands(arch):
    d, vcc = run("v_mov_b32 v0, 0x7f7fffff\nv_mov_b32 v1, 1.0", "v_div_scale_f32 v2, vcc_lo, v1, v1, v0", arch=arch)
    assert as_f32(d[0]) == np.float32(2.0 ** 64) and vcc & 1 == 1
    d, vcc = run("v_mov_b32 v0, 2.0\nv_mov_b32 v1, 4.0", "v_div_scale_f32 v2, vcc_lo, v0, v1, v0", vcc=0xF, arch=arch)
    assert (as_f32(d) == 2.0).all() and vcc & 0xF == 0


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("s0, s1, s2, vcc, want", [
    (2.0, 3.0, 1.0, 0, 7.0),                       # no VCC: a plain fma
    (1.0, 1.0, 2.0, 1, 3.0 * 2.0 ** 64),           # S2 = 2.0: scaled up by 2**64 (5.534e19)
    (2.0, 3.0, 1.0, 1, 7.0 * 2.0 ** -64),          # S2 = 1.0: scaled down by 2**64
])
def test_div_fmas_f32_post_scale(arch, s0, s1, s2, vcc, want):
    d, _ = run(f"v_mov_b32 v0, {F(s0)}\nv_mov_b32 v1, {F(s1)}\nv_mov_b32 v3, {F(s2)}",
               "v_div_fmas_f32 v2, v0, v1, v3", vcc=vcc, arch=arch)
    assert as_f32(d[0]) == np.float32(want)


@pytest.mark.parametrize("arch", ARCHS)
def test_div_fmas_f32_per_lane_vcc(arch):
    d, _ = run("v_mov_b32 v0, 1.0\nv_mov_b32 v1, 1.0\nv_mov_b32 v3, 1.0", "v_div_fmas_f32 v2, v0, v1, v3",
               vcc=0b0101, arch=arch)
    assert (as_f32(d) == np.float32([2.0 * 2.0 ** -64, 2.0, 2.0 * 2.0 ** -64, 2.0])).all()


@pytest.mark.parametrize("arch", ARCHS)
def test_div_fixup_f32_nan_estimate_is_infinite(arch):
    d, _ = run("v_mov_b32 v0, 0x7fc00000\nv_mov_b32 v1, 1.0\nv_mov_b32 v3, 1.0", "v_div_fixup_f32 v2, v0, v1, v3",
               arch=arch)
    assert d[0] == 0x7F800000


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("form", ["v_subrev_co_ci_u32_e32 v2, vcc_lo, v0, v1, vcc_lo",
                                  "v_subrev_co_ci_u32_e64 v2, vcc_lo, v0, v1, vcc_lo"])
def test_subrev_co_ci_borrow_comes_from_the_reversed_operands(arch, form):
    d, vcc = run("v_mov_b32 v0, 10\nv_mov_b32 v1, 5", form, vcc=0, arch=arch)
    assert d[0] == (5 - 10) & 0xFFFFFFFF and vcc & 1 == 1
    d, vcc = run("v_mov_b32 v0, 5\nv_mov_b32 v1, 10", form, vcc=0, arch=arch)     # 10 - 5: no borrow
    assert d[0] == 5 and vcc & 1 == 0

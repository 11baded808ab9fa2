"""Liveness of 16-bit results reads the generated fact (isa.effects.half_result), not a rule of
its own: a result that keeps the other half of its VGPR reads the old value (RDNA's every 16-bit
result; CDNA's VOP3-only ones), one written with zeros above does not (CDNA's VOP1/VOP2 16-bit
instructions, e32 and e64: LLVM's zeroesHigh16BitsOfDest), and a gfx9 SDWA result placed with
UNUSED_PRESERVE keeps the rest of its register whatever its width. Each case: whether the
instruction's step in the allocator's program reads its destination. (The values are the
emulator's: tests/test_emu_half_results.py; the facts against LLVM: tests/test_isa_half_results.py.)"""
from __future__ import annotations

import pytest

import dsl.cdna3 as c3
import dsl.rdna3 as r3


def _reads_destination(k, i: int, x) -> bool:
    step = k.program().instrs[i]
    return any(r.virtual and r.reg == x.vid for r in step.uses)


@pytest.mark.parametrize("text, reads", [
    ("v_add_f16", False), ("v_add_f16_e64", False), ("v_mul_lo_u16", False), ("v_cvt_f16_f32", False),
    ("v_max3_f16", True), ("v_mad_u16", True), ("v_fma_f16", True), ("v_add_i16", True)])
def test_cdna_16_bit_results(text, reads):
    g = c3
    k = g.Kernel("gfx942")
    x = k.vreg(name="x")
    k += g.v_mov_b32(x, 0)
    sources = {"v_cvt_f16_f32": 1, "v_max3_f16": 3, "v_mad_u16": 3, "v_fma_f16": 3}.get(text, 2)
    k += getattr(g, text)(x, *(g.v[1 + j] for j in range(sources)))
    k += g.v_mov_b32(g.v[9], x)
    k += g.s_endpgm()
    assert _reads_destination(k, 1, x) is reads


@pytest.mark.parametrize("modifiers, reads", [
    ({"dst_sel": "WORD_1", "dst_unused": "UNUSED_PRESERVE"}, True),
    ({"dst_sel": "WORD_1", "dst_unused": "UNUSED_PAD"}, False),
    ({"dst_sel": "DWORD"}, False)])
def test_gfx9_sdwa_result_placed_with_preserve_reads_the_rest(modifiers, reads):
    g = c3
    k = g.Kernel("gfx942")
    x = k.vreg(name="x")
    k += g.v_mov_b32(x, 0)
    k += g.v_add_u32_sdwa(x, g.v[1], g.v[2], **modifiers)
    k += g.v_mov_b32(g.v[9], x)
    k += g.s_endpgm()
    assert _reads_destination(k, 1, x) is reads


def test_rdna_16_bit_result_reads_the_other_half():
    k = r3.Kernel("gfx1100")
    x = k.vreg(name="x")
    k += r3.v_mov_b32(x, 0)
    k += r3.v_add_f16(x.l, r3.v[1].l, r3.v[2].l)
    k += r3.v_mov_b32(r3.v[9], x)
    k += r3.s_endpgm()
    assert _reads_destination(k, 1, x)

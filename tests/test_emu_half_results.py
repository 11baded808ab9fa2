"""The emulator puts a 16-bit VALU result where isa.effects.half_result says (the family's rule,
isa/errata.py HALF_RESULTS), and reads 16-bit sources from the register the field names: RDNA keeps
the other half in every encoding (VDST[7] / OPSEL[3] pick the half); CDNA's VOP1/VOP2 16-bit
instructions write zeros to bits 31:16 (LLVM's zeroesHigh16BitsOfDest), its VOP3-only ones keep the
other half (the manual's notes on V_MAD_F16 ...), and a CDNA VOP1/VOP2 field names v0-v255 (bit 7
is no half select there: v_add_f16 v200 writes v200, not v72's high half). Values against numpy's
float16 sum."""
from __future__ import annotations

import numpy as np
import pytest

from dsl.asm import assemble
from tests.effects_check import Case, Checker

ONE, TWO = int(np.float16(1.0).view(np.uint16)), int(np.float16(2.0).view(np.uint16))
THREE = int((np.float16(1.0) + np.float16(2.0)).view(np.uint16))


def run(target: str, text: str, init: dict[int, int], vgprs: int = 64, code: bytes | None = None) -> dict[int, int]:
    """Lane 0's VGPRs `init` names after `text` (or `code`), which runs with them set (the others random)."""
    import tests.effects_check as ec
    saved = ec.VGPRS
    ec.VGPRS = vgprs
    try:
        c = Checker(target)
        c.agprs = 0
        code = assemble(text, c.arch, c.wave) if code is None else code

        def fill(vg, sg):
            for r, value in init.items():
                vg[r] = value
        _, after = c.execute(Case(code, text, {}, scalar=False), 1, [None], np.random.default_rng(0), fill=fill)
    finally:
        ec.VGPRS = saved
    return {r: int(after[0][r, 0, 0]) for r in init}


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_cdna_vop2_16_bit_result_is_zero_extended_into_the_named_register(target):
    got = run(target, "v_add_f16 v200, v1, v2", {200: 0x12345678, 72: 0x9ABCDEF0, 1: 0xAAAA0000 | ONE, 2: TWO},
              vgprs=256)
    assert got[200] == THREE and got[72] == 0x9ABCDEF0, {r: hex(x) for r, x in got.items()}
    got = run(target, "v_add_f16_e64 v40, v1, v2", {40: 0x12345678, 1: ONE, 2: TWO})
    assert got[40] == THREE


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_cdna_16_bit_source_is_the_named_register(target):
    got = run(target, "v_add_f16 v3, v200, v2", {3: 0, 200: ONE, 72: 0x3C000000 | TWO, 2: TWO}, vgprs=256)
    assert got[3] == THREE, hex(got[3])


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_cdna_vop3_only_16_bit_result_keeps_the_other_half(target):
    init = {40: 0x12345678, 1: ONE, 2: TWO, 3: TWO}
    high = run(target, "v_max3_f16 v40, v1, v2, v3 op_sel:[0,0,0,1]", init)
    low = run(target, "v_max3_f16 v40, v1, v2, v3", init)
    assert high[40] == (TWO << 16) | 0x5678 and low[40] == 0x12340000 | TWO, (hex(high[40]), hex(low[40]))


@pytest.mark.parametrize("target", ["gfx1100", "gfx1151"])
def test_rdna_16_bit_results_keep_the_other_half(target):
    init = {40: 0x12345678, 1: ONE, 2: TWO}
    assert run(target, "v_add_f16 v40.h, v1.l, v2.l", init)[40] == (THREE << 16) | 0x5678
    assert run(target, "v_add_f16_e64 v40.l, v1.l, v2.l", init)[40] == 0x12340000 | THREE
    assert run(target, "v_add_f16_e64 v40.h, v1.l, v2.l", init)[40] == (THREE << 16) | 0x5678


def test_rdna4_fake16_results_keep_the_other_half():
    """RDNA4 in LLVM's default fake16 spelling (whole VGPRs: the low half), and the high half as
    LLVM 22 encodes it with +real-true16 (v_add_f16_e64 v40.h, v1.l, v2.l -> 2840 32d5 0105 0200)."""
    init = {40: 0x12345678, 1: ONE, 2: TWO}
    assert run("gfx1201", "v_add_f16 v40, v1, v2", init)[40] == 0x12340000 | THREE
    high = bytes.fromhex("284032d501050200")
    assert run("gfx1201", "v_add_f16_e64 v40.h, v1.l, v2.l", init, code=high)[40] == (THREE << 16) | 0x5678

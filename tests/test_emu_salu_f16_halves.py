"""RDNA3.5's and RDNA4's scalar f16 instructions write their whole SGPR, bits 31:16 zero. The
manuals, section 6.8 "SALU Floating Point" (RDNA3.5 page 54 of 644, PDF page 63; RDNA4 6.8, after
the scalar float table): "Scalar F16 instructions do not support encoding half SGPRs in their
source/destination operand fields. All scalar F16 instructions operate on the low part (bit[15:0])
of the SGPR specified, and set the high part (bit[31:16]) of its SGPR destination to 0."

Every SALU instruction whose code writes a 16-bit D0 (isa.effects' half_writes: D0.f16 = ...) is
checked: the effects model calls D0 a full write (nothing of the old register survives, so
liveness may drop it), and the emulator, in fast and reference mode, leaves zeros above a low half
equal to numpy's result, whatever the sources' and the old destination's high halves held."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import isa
from dsl.asm import assemble
from isa.effects import effects, half_result, instruction_effects
from tests.effects_check import Case, Checker

WAVES = 16
TARGETS = ["gfx1151", "gfx1201"]


def _f16(x):
    return np.asarray(x, np.float16)


def _fma(a, b, c):           # products of f16 values are exact in float64, and so are these sums
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)


# name -> numpy result from (S0 as f16, S1 as f16, old D0 as f16, S0 as f32)
REFERENCE = {
    "S_CVT_F16_F32": lambda a, b, d, a32: a32.astype(np.float16),
    "S_CEIL_F16": lambda a, b, d, a32: np.ceil(a),
    "S_FLOOR_F16": lambda a, b, d, a32: np.floor(a),
    "S_TRUNC_F16": lambda a, b, d, a32: np.trunc(a),
    "S_RNDNE_F16": lambda a, b, d, a32: np.rint(a),
    "S_ADD_F16": lambda a, b, d, a32: a + b,
    "S_SUB_F16": lambda a, b, d, a32: a - b,
    "S_MUL_F16": lambda a, b, d, a32: a * b,
    "S_FMAC_F16": lambda a, b, d, a32: _fma(a, b, d),
    "S_MIN_F16": lambda a, b, d, a32: np.minimum(a, b),
    "S_MAX_F16": lambda a, b, d, a32: np.maximum(a, b),
    "S_MIN_NUM_F16": lambda a, b, d, a32: np.minimum(a, b),
    "S_MAX_NUM_F16": lambda a, b, d, a32: np.maximum(a, b),
    "S_MINIMUM_F16": lambda a, b, d, a32: np.minimum(a, b),
    "S_MAXIMUM_F16": lambda a, b, d, a32: np.maximum(a, b),
}


def salu_half_results(target: str) -> list:
    spec = isa.load(target)
    return [d for d in spec.instructions if d.format in spec.traits.roles.scalar and d.pcode
            and "D0" in effects(d.pcode).half_writes]


def test_the_scalar_f16_results_are_these():
    """The set the manuals' tables list as scalar F16 arithmetic and the f32 -> f16 conversion."""
    for target in TARGETS:
        assert {d.name for d in salu_half_results(target)} <= set(REFERENCE), target
        assert len(salu_half_results(target)) == {"gfx1151": 11, "gfx1201": 13}[target]


@pytest.mark.parametrize("target", TARGETS)
def test_effects_call_the_sgpr_written_whole(target):
    for d in salu_half_results(target):
        e = instruction_effects(d)
        assert "D0" in e.full and "D0" not in e.partial, d.name
        assert half_result(d) is None, d.name      # the VGPR rule (isa/errata.py HALF_RESULTS) is not theirs


def _values(rng, n: int) -> np.ndarray:
    """f16 bits of magnitude 0.5..8 with random mantissas and signs (no NaN, no equal pairs matter)."""
    return (rng.integers(0, 2, n) << 15 | rng.integers(14, 18, n) << 10 | rng.integers(0, 1 << 10, n)).astype(np.uint32)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", TARGETS)
def test_emulator_zeroes_bits_31_16(target, reference):
    from emu.machine import Machine
    from emu.options import FAST, REFERENCE as REF
    checked = 0
    for d in salu_half_results(target):
        c = Checker(target)
        c.machine = Machine(c.arch, c.mem, options=REF if reference else FAST)
        text = f"{d.name.lower()} s3, s1" + (", s2" if d.format == "SOP2" else "")
        code = assemble(text, c.arch, c.wave)
        rng = np.random.default_rng(zlib.crc32(f"{target} {text}".encode()))
        a, b, old = _values(rng, WAVES), _values(rng, WAVES), _values(rng, WAVES)
        high = (rng.integers(1, 1 << 16, (3, WAVES)).astype(np.uint32) << 16)
        a32 = rng.uniform(-8, 8, WAVES).astype(np.float32)
        s1 = a32.view(np.uint32) if d.name == "S_CVT_F16_F32" else high[0] | a

        def fill(vg, sg):
            sg[1], sg[2], sg[3] = s1, high[1] | b, high[2] | old

        _, after = c.execute(Case(code, text, {}, scalar=True), WAVES, [None] * WAVES, np.random.default_rng(1), fill=fill)
        got = after[1][3].astype(np.uint32)
        want = REFERENCE[d.name](_f16(a.astype(np.uint16).view(np.float16)), _f16(b.astype(np.uint16).view(np.float16)),
                                 _f16(old.astype(np.uint16).view(np.float16)), a32)
        want = np.asarray(want, np.float16).view(np.uint16).astype(np.uint32)
        assert np.array_equal(got >> 16, np.zeros(WAVES, np.uint32)), (d.name, [hex(int(x)) for x in got])
        assert np.array_equal(got, want), (d.name, [hex(int(x)) for x in got], [hex(int(x)) for x in want])
        checked += 1
    assert checked == len(salu_half_results(target))

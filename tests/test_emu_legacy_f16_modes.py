"""MODE on CDNA's legacy f16 instructions, whose code writes the f16 as bits of D0
(`D0 = { 16'0, tmp.f16 }`: V_MAC_F16, V_MADMK_F16, V_MADAK_F16, V_MAD_LEGACY_F16, V_FMA_LEGACY_F16,
V_DIV_FIXUP_LEGACY_F16; CDNA3 pages 169/293, CDNA4 page 181; the entries' notes: "Supports round
mode"). isa.float_modes reads such a result as an f16 result (bit_results), so MODE.FP_ROUND and
MODE.FP_DENORM apply as they do to V_MAD_F16's `D0.f16`.

The reference is exact rational arithmetic (fractions.Fraction) rounded to f16 in each of the four
modes: the product and then the sum for the mads (the code's `S0.f16 * S1.f16 + S2.f16`, as
test_emu_mac_f16 checks with numpy), once for the fma. Inputs are random-mantissa f16 values whose
results are inexact, so the modes differ on most lanes (asserted). In every mode the emulator
must match the reference bit for bit, in fast and reference mode (directed rounding of the
pseudocode's add, mul and fma: emu/rounding.py, emu/README "Numerics"). Denormal results
are flushed to zero of the same sign where FP_DENORM's f16 output bit is clear, denormal inputs
where its input bit is."""
from __future__ import annotations

import zlib
from fractions import Fraction

import numpy as np
import pytest

from dsl.asm import assemble
from tests.effects_check import Case, Checker

LANES = 64
BASE_MODE = 0x3F0                   # to nearest even, denormals kept, DX10_CLAMP, IEEE
RNE, UP, DOWN, ZERO = range(4)      # MODE.FP_ROUND's f16/f64 field, MODE[3:2]
F16_MAX = Fraction(65504)


def value(h: int) -> Fraction:
    """The exact value of finite f16 bits."""
    sign = -1 if h & 0x8000 else 1
    e, m = (h >> 10) & 0x1F, h & 0x3FF
    assert e != 0x1F
    return sign * (Fraction(m, 1 << 24) if e == 0 else Fraction(0x400 | m, 1 << 10) * Fraction(2) ** (e - 15))


def rounded(x: Fraction, mode: int) -> int:
    """f16 bits of x rounded in `mode` (IEEE 754: directed modes overflow to the largest finite
    value on the side they round away from)."""
    sign = 0x8000 if x < 0 else 0
    a = abs(x)
    if a == 0:                          # an exact sum x + (-x): +0, -0 rounding toward -inf (IEEE 754 6.3)
        return 0x8000 if mode == DOWN else 0
    e = max(a.numerator.bit_length() - a.denominator.bit_length(), -14)
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -14)
    ulp = Fraction(2) ** (e - 10)
    q, r = divmod(a, ulp)               # a = q ulps + r, 0 <= r < ulp
    q = int(q)
    away = mode == UP and not sign or mode == DOWN and sign
    if r and (mode == RNE and (2 * r > ulp or 2 * r == ulp and q & 1) or away):
        q += 1
    v = q * ulp
    if v > F16_MAX:
        toward = mode == ZERO or mode == UP and sign or mode == DOWN and not sign
        return sign | (0x7BFF if toward else 0x7C00)
    if v < Fraction(1, 1 << 14):        # a denormal (or zero): q counts 2^-24 units
        return sign | int(v / Fraction(1, 1 << 24))
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    return sign | (e + 15) << 10 | int(v / Fraction(2) ** (e - 10)) - 0x400


def mad(a, b, c, mode):             # tmp = S0.f16 * S1.f16 + S2.f16: the product rounded, then the sum
    return rounded(value(rounded(value(a) * value(b), mode)) + value(c), mode)


def fma(a, b, c, mode):
    return rounded(value(a) * value(b) + value(c), mode)


def div_fixup(a, b, c, mode):       # finite non-zero S1, S2: sign_out ? -abs(S0.f16) : abs(S0.f16)
    return (a & 0x7FFF) | ((b ^ c) & 0x8000)


K = 0x3E66                          # the literal of madak/madmk: 1.5996...
K_SMALL, K_MK = 0x0601, 0x2200      # for denormal sums: madak's addend 2^-14 * 1.5, madmk's factor 2^-7 * 1.5
FORMS = {
    # text -> reference from the f16 bits (v1, v2, v4, v3's old low half)
    "v_mac_f16 v3, v1, v2": lambda a, b, c, d, m: mad(a, b, d, m),
    "v_mac_f16_e64 v3, v1, v2": lambda a, b, c, d, m: mad(a, b, d, m),
    f"v_madak_f16 v3, v1, v2, {K:#x}": lambda a, b, c, d, m: mad(a, b, K, m),
    f"v_madmk_f16 v3, v1, {K:#x}, v2": lambda a, b, c, d, m: mad(a, K, b, m),
    f"v_madak_f16 v3, v1, v2, {K_SMALL:#x}": lambda a, b, c, d, m: mad(a, b, K_SMALL, m),
    f"v_madmk_f16 v3, v1, {K_MK:#x}, v4": lambda a, b, c, d, m: mad(a, K_MK, c, m),
    "v_mad_legacy_f16 v3, v1, v2, v4": lambda a, b, c, d, m: mad(a, b, c, m),
    "v_fma_legacy_f16 v3, v1, v2, v4": lambda a, b, c, d, m: fma(a, b, c, m),
    "v_div_fixup_legacy_f16 v3, v1, v2, v4": lambda a, b, c, d, m: div_fixup(a, b, c, m),
}
MAIN = [f for f in FORMS if f"{K_SMALL:#x}" not in f and f"{K_MK:#x}" not in f]
ROUNDS_DIFFER = [f for f in MAIN if "div_fixup" not in f]      # div_fixup selects S0: exact
DENORMALS = [f for f in FORMS if "div_fixup" not in f and f"{K:#x}" not in f]


def inexact(rng, n: int, lo: int = 12, hi: int = 18) -> np.ndarray:
    """f16 bits: random sign and 10-bit mantissa, exponent field lo..hi-1 (normal values)."""
    sign = rng.integers(0, 2, n) << 15
    return (sign | rng.integers(lo, hi, n) << 10 | rng.integers(0, 1 << 10, n)).astype(np.uint32)


def run(target: str, text: str, regs: dict[int, np.ndarray], modes: list[int], reference: bool) -> np.ndarray:
    """v3 of every lane of one wave per MODE in `modes` after `text`: (waves, lanes) uint32."""
    from emu.machine import Machine
    from emu.options import FAST, REFERENCE
    c = Checker(target)
    c.agprs = 0
    c.machine = Machine(c.arch, c.mem, options=REFERENCE if reference else FAST)
    code = assemble(text, c.arch, c.wave)

    def fill(vg, sg):
        for r, values in regs.items():
            vg[r, :, :] = values

    n = len(modes)
    _, after = c.execute(Case(code, text, {}, scalar=False), n, [None] * n, np.random.default_rng(1), modes, fill=fill)
    return after[0][3, :, :].astype(np.uint32)


def inputs(target: str, text: str):
    rng = np.random.default_rng(zlib.crc32(f"{target} {text}".encode()))
    a, b, c, d = (inexact(rng, LANES) for _ in range(4))
    high = rng.integers(1, 1 << 16, LANES).astype(np.uint32) << 16      # junk above every input
    return (a, b, c, d), {1: high | a, 2: high | b, 4: high | c, 3: high | d}


def want(text: str, halves, mode: int) -> np.ndarray:
    return np.array([FORMS[text](*(int(h[i]) for h in halves), mode) for i in range(LANES)], np.uint32)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("text", MAIN)
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_nearest_even_is_the_exact_result_rounded(target, text, reference):
    halves, regs = inputs(target, text)
    got = run(target, text, regs, [BASE_MODE], reference)[0]
    expected = want(text, halves, RNE)
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, [(i, hex(int(got[i])), hex(int(expected[i]))) for i in bad[:4]]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("text", MAIN)
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
@pytest.mark.parametrize("mode", [UP, DOWN, ZERO], ids=["toward +inf", "toward -inf", "toward zero"])
def test_directed_rounding_rounds_the_exact_result(target, text, reference, mode):
    halves, regs = inputs(target, text)
    expected = want(text, halves, mode)
    if text in ROUNDS_DIFFER:       # these inputs are ones where nearest even would be wrong
        differ = np.count_nonzero(expected != want(text, halves, RNE))
        assert differ >= LANES // 4, differ
    got = run(target, text, regs, [BASE_MODE | mode << 2], reference)[0]
    bad = np.flatnonzero(got != expected)
    assert bad.size == 0, [(i, hex(int(got[i])), hex(int(expected[i]))) for i in bad[:4]]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("text", ROUNDS_DIFFER)
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_f32_round_mode_leaves_f16_results_alone(target, text, reference):
    """MODE.FP_ROUND's f32 half (MODE[1:0]) does not apply to an f16 result."""
    halves, regs = inputs(target, text)
    got = run(target, text, regs, [BASE_MODE | ZERO], reference)[0]
    assert np.array_equal(got, want(text, halves, RNE))


def flushed(h: int) -> int:
    return h & 0x8000 if not h & 0x7C00 else h


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("text", DENORMALS)
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_denormal_results_and_inputs_per_fp_denorm(target, text, reference):
    """Wave 0 keeps denormals, wave 1 flushes f16 results (MODE[7] clear), wave 2 f16 inputs
    (MODE[6] clear). Small inputs (2^-8..2^-6) make denormal products and sums; the addends and
    the literal (2^-14 * 1.5) stay normal, so an input flush only changes lanes whose S0 is denormal."""
    rng = np.random.default_rng(zlib.crc32(f"denormal {target} {text}".encode()))
    a, b = inexact(rng, LANES, 7, 10), inexact(rng, LANES, 7, 10)
    c, d = inexact(rng, LANES, 1, 3), inexact(rng, LANES, 1, 3)
    a[::5] = rng.integers(1, 0x400, a[::5].size) | 0x8000 * rng.integers(0, 2, a[::5].size)   # denormal S0
    halves = (a, b, c, d)
    high = rng.integers(1, 1 << 16, LANES).astype(np.uint32) << 16
    modes = [BASE_MODE, BASE_MODE & ~0x80, BASE_MODE & ~0x40]
    got = run(target, text, {1: high | a, 2: high | b, 4: high | c, 3: high | d}, modes, reference)
    kept = want(text, halves, RNE)
    assert np.count_nonzero(((kept & 0x7C00) == 0) & ((kept & 0x3FF) != 0)) >= 4, "too few denormal results"
    assert np.array_equal(got[0], kept)
    assert np.array_equal(got[1], np.array([flushed(int(h)) for h in kept], np.uint32))
    no_denormal_inputs = tuple(np.array([flushed(int(x)) for x in h], np.uint32) for h in halves)
    assert np.array_equal(got[2], want(text, no_denormal_inputs, RNE))

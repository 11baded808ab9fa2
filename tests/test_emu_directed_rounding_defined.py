"""Directed rounding (MODE.FP_ROUND toward +inf, -inf, zero) of the instructions built of
operations whose correctly rounded result the manuals' pseudocode defines beyond add, sub, mul,
fma and conversions (tests/test_emu_directed_rounding.py): ldexp (exact but for denormal and
overflowing results), fract (`S0 + -floor(S0)`, clamped below 1.0), v_div_fmas_f32 (`2.0F ** 32 * fma(...)`),
v_div_scale (its quotients only classified: `S2.f32 / S1.f32 == DENORM.f32`), v_trig_preop_f64
(a 53-bit segment of 2/pi scaled by ldexp), VINTERP's fma (and the f16 conversion of P2_F16_F32)
and bf16 results (v_dot2_bf16_bf16, rounded by the 16-bit field MODE[3:2]).

Each instruction runs through the machine (our assembler's bytes, decode, operand fetch,
writeback) in four waves of one batch asking round to nearest even, toward +inf, toward -inf and
toward zero (both fields alike, or the result width's field), in fast and reference mode, and
every lane's bits must equal the reference: the pseudocode's steps on exact rationals
(fractions.Fraction), each rounded to its format by the mode's rule (tests/test_emu_directed_
rounding.round_to, written there). The modes must differ from nearest even on many lanes.
The hardware's approximations (sqrt, rcp, rsq, exp, log, sin, cos, RDNA4's v_s_* of them) stay
refused with an error naming the mode; v_cvt_pk_bf16_f32, whose pseudocode sets
ROUND_MODE = ROUND_NEAREST_EVEN, rounds to nearest even whatever MODE says."""
from __future__ import annotations

import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

from emu.machine import EmuError
from tests.test_emu_directed_rounding import (BASE_MODE, DOWN, FORMATS, RNE, UP, ZERO, add, exact, floats,
                                              machine_run, negative, place, round_to, rounded)

BOTH = [BASE_MODE | m | m << 2 for m in range(4)]         # the mode in both fields
TARGETS = [("gfx1100", 32), ("gfx1100-w64", 64), ("gfx942", 64)]


def lanes_of(target: str) -> int:
    return 64 if target.endswith("w64") or target.startswith("gfx9") else 32


def bits_of(after, dst: int, width: int, wave: int):
    if width == 64:
        return [int(a) | int(b) << 32 for a, b in zip(after[dst, wave], after[dst + 1, wave])]
    return [int(x) & ((1 << width) - 1) for x in after[dst, wave]]


def check(got_by_mode, want_by_mode, lanes: int, differ: bool = True):
    for m in range(4):
        bad = [(i, hex(g), hex(w)) for i, (g, w) in enumerate(zip(got_by_mode[m], want_by_mode[m]))
               if w is not None and g != w]
        assert not bad, (m, bad[:5])
    if differ:
        for m in (UP, DOWN, ZERO):
            n = sum(a != b for a, b in zip(want_by_mode[m], want_by_mode[RNE]))
            assert n >= lanes // 8, (m, n)


def fmt_round(value, zero_negative: bool, width: int, mode: int):
    return rounded(value, zero_negative, width, mode)


# ---------------------------------------------------------------- ldexp

LDEXP = {16: "v_ldexp_f16 v3, v1, v2", 32: "v_ldexp_f32 v3, v1, v2", 64: "v_ldexp_f64 v[6:7], v[8:9], v2"}


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("width", [16, 32, 64])
@pytest.mark.parametrize("target", [t for t, _ in TARGETS])
def test_ldexp_rounds_denormal_and_overflowing_results(target, width, reference):
    """x * 2**n is exact in range; denormal results round by the mode (gradual underflow), and
    overflow gives infinity or the largest finite value as the directed rule says."""
    lanes = lanes_of(target)
    rng = np.random.default_rng(zlib.crc32(f"ldexp {target} {width}".encode()))
    m, e = FORMATS[width]
    bias = (1 << (e - 1)) - 1
    x = floats(rng, lanes, width, 1, 2 * bias)
    xexp = [(int(v) >> m) & ((1 << e) - 1) for v in x]
    # n takes the result's exponent to the denormal range (most lanes), past the largest, or inside
    target_exp = rng.integers(-m - 2, 1, lanes)
    target_exp[: lanes // 8] = rng.integers(2 * bias, 2 * bias + 3, lanes // 8)
    target_exp[lanes // 8: lanes // 4] = rng.integers(2, 2 * bias, lanes // 4 - lanes // 8)
    n = np.array([int(t) - xe for t, xe in zip(target_exp, xexp)], np.int64)
    n[-2:] = [-(1 << 20), 1 << 20]          # far outside every exponent range
    regs: dict = {}
    place(regs, 8 if width == 64 else 1, x, width)
    regs[2] = (n & 0xFFFFFFFF if width != 16 else n & 0xFFFF).astype(np.uint32)
    modes = [BASE_MODE | k << (0 if width == 32 else 2) for k in range(4)]
    after, _ = machine_run(target, LDEXP[width], regs, modes, reference)
    dst = 6 if width == 64 else 3

    def want(mode):
        out = []
        for xi, ni in zip(x, n):
            q = exact(int(xi), width)
            k = int(np.int16(ni)) if width == 16 else int(ni)
            out.append(rounded(q if isinstance(q, float) else q * Fraction(2) ** k, negative(int(xi), width), width, mode))
        return out
    check([bits_of(after, dst, width, k) for k in range(4)], [want(k) for k in range(4)], lanes)


# ---------------------------------------------------------------- fract

FRACT = {16: "v_fract_f16 v3, v1", 32: "v_fract_f32 v3, v1", 64: "v_fract_f64 v[6:7], v[8:9]"}


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("width", [16, 32, 64])
@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_fract_rounds_its_sum(target, width, reference):
    """`D0 = S0 + -floor(S0)`: exact for |x| >= 1, a rounded sum for small negative x (1 - tiny),
    an exact zero for integers (-0 toward -inf, as any exact zero sum); a sum rounded to 1.0 is
    clamped to the largest value below it (isa/errata_fract.py)."""
    lanes = lanes_of(target)
    rng = np.random.default_rng(zlib.crc32(f"fract {target} {width}".encode()))
    m, e = FORMATS[width]
    bias = (1 << (e - 1)) - 1
    # f16: from 2**(-m - 1) (f32/f64: from 2**(-m - 6)), so that enough sums round below 1.0 where the
    # clamp hides the modes' difference
    x = floats(rng, lanes, width, max(1, bias - m - (1 if width == 16 else 6)), bias + 4)
    sign = np.uint64(1 << (width - 1))
    x[: lanes // 2] |= sign                              # negative: 1 - |x| rounds
    x[-3:] = [bias << m, (bias + 1) << m | sign, 0]      # 1.0, -2.0, +0: exact zeros
    regs: dict = {}
    place(regs, 8 if width == 64 else 1, x, width)
    modes = [BASE_MODE | k << (0 if width == 32 else 2) for k in range(4)]
    after, _ = machine_run(target, FRACT[width], regs, modes, reference)

    def want(mode):
        out = []
        for xi in x:
            q = exact(int(xi), width)
            fl = Fraction(math.floor(q))
            r = rounded(*add(q, -fl, negative(int(xi), width), not negative(int(xi), width), mode), width, mode)
            out.append(one - 1 if r == one else r)          # clamped below 1.0 (isa/errata_fract.py)
        return out
    one = bias << m                                         # 1.0's bits; one - 1: the largest value below
    check([bits_of(after, 6 if width == 64 else 3, width, k) for k in range(4)], [want(k) for k in range(4)], lanes)


# ---------------------------------------------------------------- v_div_fmas_f32

@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx942"])
def test_div_fmas_f32_rounds_fma_then_scale(target, reference):
    """CDNA3: `VCC[lane] ? 2.0F ** 32 * fma(S0, S1, S2) : fma(S0, S1, S2)`; RDNA3 scales by
    2**64 where exponent(S2) > 127, else by 2**-64: the fma rounds by the mode, then the scale
    (exact but for denormal and overflowing results); VCC alternate lanes."""
    lanes = lanes_of(target)
    rng = np.random.default_rng(zlib.crc32(f"div_fmas {target}".encode()))
    a, b, c = (floats(rng, lanes, 32, 127 - 30, 127 + 30) for _ in range(3))
    a[:4] = 0x7E800000 | a[:4] & 0x7FFFFF                 # fma near 2**126: the scale overflows
    c[4:lanes // 2] = c[4:lanes // 2] & 0x807FFFFF | 0x1F000000   # exponent(S2) <= 127: RDNA3 scales down
    regs = {1: a.astype(np.uint32), 2: b.astype(np.uint32), 4: c.astype(np.uint32)}
    vcc = int("01" * 32, 2) & ((1 << lanes) - 1)
    sregs = {106: vcc & 0xFFFFFFFF, 107: vcc >> 32}
    after, _ = machine_run(target, "v_div_fmas_f32 v3, v1, v2, v4", regs, BOTH, reference, sregs)

    def want(mode):
        out = []
        for i in range(lanes):
            x, y, z = (exact(int(v[i]), 32) for v in (a, b, c))
            r = rounded(*add(x * y, z, negative(int(a[i]), 32) != negative(int(b[i]), 32), negative(int(c[i]), 32), mode),
                        32, mode)
            if vcc >> i & 1:
                k = 32 if target == "gfx942" else 64 if (int(c[i]) >> 23 & 0xFF) > 127 else -64
                q = exact(r, 32)
                r = rounded(q * Fraction(2) ** k if not isinstance(q, float) else q, negative(r, 32), 32, mode)
            out.append(r)
        return out
    check([bits_of(after, 3, 32, k) for k in range(4)], [want(k) for k in range(4)], lanes)


# ---------------------------------------------------------------- v_div_scale

def div_scale_reference(s0: int, s1: int, s2: int, width: int, mode: int):
    """(D0 bits, VCC bit) of V_DIV_SCALE_F32/F64's pseudocode on exact rationals, each quotient
    and ldexp rounded by `mode` (f32: `1.0 / 64'F(S1.f32)` is an f64 quotient)."""
    m, e = FORMATS[width]
    x0, x1, x2 = (exact(v, width) for v in (s0, s1, s2))
    big, scale, tiny = (96, 64, 23) if width == 32 else (768, 128, 53)
    expo = lambda v: (v >> m) & ((1 << e) - 1)          # noqa: E731
    minnorm = Fraction(2) ** (2 - (1 << (e - 1)))

    def denorm(q, w) -> bool:        # q rounded to w bits is a (non-zero) denormal
        if isinstance(q, float) or q == 0:
            return False
        r = rounded(q, False, w, mode)
        mw, ew = FORMATS[w]
        return (r >> mw) & ((1 << ew) - 1) == 0 and r & ((1 << mw) - 1) != 0

    def scaled(k):
        return rounded(x0 * Fraction(2) ** k if not isinstance(x0, float) else x0, negative(s0, width), width, mode)
    vcc, d = 0, s0
    if x2 == 0 or x1 == 0:
        return None, 1 if width == 64 else 0
    if expo(s2) - expo(s1) >= big:
        vcc = 1
        if x0 == x1:
            d = scaled(scale)
    elif not isinstance(x1, float) and x1 != 0 and abs(x1) < minnorm:
        d = scaled(scale)
    elif denorm(1 / x1 if not isinstance(x1, float) else 0.0, 64) and denorm(x2 / x1, width):
        vcc = 1
        if x0 == x1:
            d = scaled(scale if width == 32 else -scale)
    elif denorm(1 / x1 if not isinstance(x1, float) else 0.0, 64):
        d = scaled(-scale)
    elif not isinstance(x2, float) and not isinstance(x1, float) and denorm(x2 / x1, width):
        vcc = 1
        if x0 == x2:
            d = scaled(scale)
    elif expo(s2) <= tiny:
        d = scaled(scale)
    return d, vcc


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("target", ["gfx1201", "gfx942"])
def test_div_scale_classifies_directed_quotients(target, width, reference):
    """Quotients S2 / S1 below half the smallest denormal (a denormal S2 over S1 in [8, 64)):
    to nearest even and toward zero they round to 0 (not denormal), toward +inf (positive) and
    -inf (negative) to the smallest denormal, and the instruction then sets VCC and leaves S0 = S1
    unscaled where nearest even scales it for its tiny numerator. (RDNA4 and CDNA3 test
    `S2.f32 / S1.f32 == DENORM.f32`; RDNA3's f32 form compares exponents instead.)"""
    lanes = lanes_of(target)
    m, e = FORMATS[width]
    bias = (1 << (e - 1)) - 1
    rng = np.random.default_rng(zlib.crc32(f"div_scale {target} {width}".encode()))
    d1 = floats(rng, lanes, width, bias + 3, bias + 6) & np.uint64((1 << (width - 1)) - 1)      # in [8, 64)
    n2 = rng.integers(1, 4, lanes).astype(np.uint64) | rng.integers(0, 2, lanes).astype(np.uint64) << np.uint64(width - 1)
    s0 = np.where(np.arange(lanes) % 2 == 0, n2, d1)              # S0 the numerator or the denominator
    regs: dict = {}
    vcc = "vcc" if target.startswith("gfx9") else "vcc_lo"
    text = (f"v_div_scale_f32 v3, {vcc}, v1, v2, v4" if width == 32
            else f"v_div_scale_f64 v[6:7], {vcc}, v[8:9], v[10:11], v[12:13]")
    for first, vals in zip((8, 10, 12) if width == 64 else (1, 2, 4), (s0, d1, n2)):
        place(regs, first, vals, width)
    after, _ = machine_run(target, text, regs, BOTH, reference)
    dst = 6 if width == 64 else 3
    ref = {k: [div_scale_reference(int(s0[i]), int(d1[i]), int(n2[i]), width, k) for i in range(lanes)]
           for k in range(4)}
    check([bits_of(after, dst, width, k) for k in range(4)], {k: [d for d, _ in ref[k]] for k in range(4)},
          lanes, differ=False)
    for k in (UP, DOWN):
        assert sum(ref[k][i][0] != ref[RNE][i][0] for i in range(lanes)) >= lanes // 8, k
        assert sum(ref[k][i][1] != ref[RNE][i][1] for i in range(lanes)) >= lanes // 4, k


# ---------------------------------------------------------------- v_trig_preop_f64

@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_trig_preop_rounds_its_denormal_segments(reference):
    """`ldexp(result, -53 - shift)`: a segment of 2/pi (53 bits) scaled far below the normal
    range for large x and late segments rounds by the mode (2/pi's bits from Stormer's formula
    in exact rationals: tests/test_emu_hardware_facts)."""
    from tests.test_emu_hardware_facts import _two_over_pi_bits
    lanes = 32
    rng = np.random.default_rng(5)
    # segment k of x with exponent field 1077 - 53k - t (t in [-1076, -1020], k in [4, 19]) is
    # about 2**t: denormal, rounded by the mode
    seg = rng.integers(4, 20, lanes)
    t = rng.integers(-1076, -1019, lanes)
    x = floats(rng, lanes, 64, 1, 2) & np.uint64((1 << 52) - 1) | (1077 - 53 * seg - t).astype(np.uint64) << np.uint64(52)
    seg = seg.astype(np.uint32)
    regs: dict = {}
    place(regs, 8, x, 64)
    regs[2] = seg
    after, _ = machine_run("gfx1100", "v_trig_preop_f64 v[6:7], v[8:9], v2", regs, BOTH, reference)
    table = _two_over_pi_bits(1201)

    def want(mode):
        out = []
        for xi, k in zip(x, seg):
            ex = (int(xi) >> 52) & 0x7FF
            shift = 53 * int(k) + max(0, ex - 1077)
            bits = (table >> (1201 - 53 - shift)) & (2 ** 53 - 1) if shift <= 1148 else \
                (table << (shift - 1148)) & (2 ** 53 - 1)
            scale = -53 - shift + (128 if ex >= 1968 else 0)
            out.append(rounded(Fraction(bits) * Fraction(2) ** scale, False, 64, mode))
        return out
    expected = [want(k) for k in range(4)]
    check([bits_of(after, 6, 64, k) for k in range(4)], expected, lanes, differ=False)
    # the denormal grid cuts 2/pi's bits at one place (weight 2**-1074) whatever the segment, where
    # they continue below half an ulp: nearest even truncates there and only toward +inf differs
    assert sum(u != r for u, r in zip(expected[UP], expected[RNE])) >= lanes // 2


# ---------------------------------------------------------------- VINTERP

INTERP = ["v_interp_p10_f32 v3, v1, v2, v4", "v_interp_p2_f32 v3, v1, v2, v4", "v_interp_p2_f16_f32 v3, v1, v2, v4",
          "v_interp_p10_f16_f32 v3, v1, v2, v4"]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("text", INTERP)
@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1201"])
def test_interp_rounds_its_fma(target, text, reference):
    """P10: fma(S0 from lane (laneId & ~3) + 1, S1, S2 from lane laneId & ~3); P2: fma(S0 from
    lane + 2, S1, S2): the fma rounds by the f32 field; P2_F16_F32's `16'F(...)` of it by the
    f16 field (both fields alike here); f16 attributes from the low halves, exact in f32."""
    lanes = lanes_of(target)
    rng = np.random.default_rng(zlib.crc32(f"interp {target} {text}".encode()))
    attr16 = "f16_f32" in text
    p10 = "p10" in text
    a = floats(rng, lanes, 16, 8, 23) if attr16 else floats(rng, lanes, 32, 127 - 20, 127 + 20)
    b = floats(rng, lanes, 32, 127 - 20, 127 + 20)
    c = floats(rng, lanes, 16, 8, 23) if attr16 and p10 else floats(rng, lanes, 32, 127 - 20, 127 + 20)
    regs = {1: a.astype(np.uint32), 2: b.astype(np.uint32), 4: c.astype(np.uint32)}
    after, _ = machine_run(target, text, regs, BOTH, reference)
    w_in, w_out = (16 if attr16 else 32), (16 if "p2_f16" in text else 32)

    def want(mode):
        out = []
        for i in range(lanes):
            quad = i & ~3
            x = exact(int(a[quad + (1 if p10 else 2)]), w_in)
            y = exact(int(b[i]), 32)
            ci = quad if p10 else i
            z = exact(int(c[ci]), w_in if p10 else 32)
            sx = negative(int(a[quad + (1 if p10 else 2)]), w_in) != negative(int(b[i]), 32)
            r = rounded(*add(x * y, z, sx, negative(int(c[ci]), w_in if p10 else 32), mode), 32, mode)
            if w_out == 16:
                q = exact(r, 32)
                r = rounded(q, negative(r, 32), 16, mode)
            out.append(r)
        return out
    check([bits_of(after, 3, w_out, k) for k in range(4)], [want(k) for k in range(4)], lanes)


# ---------------------------------------------------------------- bf16

def bf16_round(q, zero_negative: bool, mode: int):
    """bf16 bits of an exact value: f32's exponent range at 8 significant bits (round_to on an
    f32 value scaled so its spacing is bf16's: rounding to f32's 24 bits first would round twice)."""
    if isinstance(q, float):
        return None if math.isnan(q) else (0x8000 if q < 0 else 0) | 0x7F80
    if q == 0:
        return 0x8000 if zero_negative else 0
    return round_to_format(q, 7, 8, 16, mode)


def round_to_format(q: Fraction, m: int, e: int, width: int, mode: int) -> int:
    """round_to's rule for a format of m mantissa and e exponent bits in `width` bits."""
    bias = (1 << (e - 1)) - 1
    emin = 1 - bias
    sign = 1 << (width - 1) if q < 0 else 0
    a = abs(q)
    k = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** k > a:
        k -= 1
    ulp = Fraction(2) ** (max(k, emin) - m)
    units = a / ulp
    n = units.numerator // units.denominator
    rest = units - n
    if rest and (mode == RNE and (rest > Fraction(1, 2) or rest == Fraction(1, 2) and n & 1)
                 or mode == UP and not sign or mode == DOWN and sign):
        n += 1
    v = n * ulp
    if v >= Fraction(2) ** (bias + 1):
        away = mode == RNE or mode == UP and not sign or mode == DOWN and sign
        return sign | (((1 << e) - 1) << m if away else (((1 << e) - 1) << m) - 1)
    if v < Fraction(2) ** emin:
        return sign | n
    k = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** k > v:
        k -= 1
    return sign | (k + bias) << m | int(v / Fraction(2) ** (k - m)) - (1 << m)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1201"])
def test_dot2_bf16_rounds_by_the_16_bit_field(target, reference):
    """v_dot2_bf16_bf16 (`tmp = S2.bf16; tmp += S0[15:0].bf16 * S1[15:0].bf16; tmp += ...;
    D0.bf16 = tmp`, held in f32 by the emulator): the bf16 products are exact in f32, the two
    sums round by the f32 field and the result to bf16 by the 16-bit field MODE[3:2]; with only
    the f32 field directed nothing changes but the sums."""
    lanes = lanes_of(target)
    rng = np.random.default_rng(zlib.crc32(f"dot2bf16 {target}".encode()))
    bf = lambda n: (floats(rng, n, 32, 127 - 12, 127 + 12) >> np.uint64(16))    # noqa: E731 (bf16 bits)
    a, b, c = [bf(lanes), bf(lanes)], [bf(lanes), bf(lanes)], bf(lanes)
    regs = {1: (a[0] | a[1] << np.uint64(16)).astype(np.uint32), 2: (b[0] | b[1] << np.uint64(16)).astype(np.uint32),
            4: c.astype(np.uint32)}
    modes = BOTH + [BASE_MODE | m << 2 for m in (UP, DOWN, ZERO)]
    after, _ = machine_run(target, "v_dot2_bf16_bf16 v3, v1, v2, v4", regs, modes, reference)
    val = lambda h: exact(int(h) << 16, 32)          # noqa: E731

    def want(m32, m16):
        out = []
        for i in range(lanes):
            t = val(c[i])
            for k in (0, 1):
                t = exact(rounded(t + val(a[k][i]) * val(b[k][i]), False, 32, m32), 32)
            out.append(bf16_round(t, False, m16))
        return out
    expected = [want(m, m) for m in range(4)]
    check([bits_of(after, 3, 16, k) for k in range(4)], expected, lanes)
    for k, m in enumerate((UP, DOWN, ZERO)):
        assert bits_of(after, 3, 16, 4 + k) == want(RNE, m), m


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_cvt_pk_bf16_f32_rounds_to_nearest_even_whatever_mode_says(reference):
    """gfx950's v_cvt_pk_bf16_f32: its pseudocode sets ROUND_MODE = ROUND_NEAREST_EVEN around
    the conversions, so every MODE gives the nearest-even bf16 of each f32 source."""
    lanes = 64
    rng = np.random.default_rng(9)
    x, y = (floats(rng, lanes, 32, 1, 254).astype(np.uint32) for _ in range(2))
    modes = [BASE_MODE | m | m << 2 for m in range(4)]
    after, _ = machine_run("gfx950", "v_cvt_pk_bf16_f32 v3, v1, v2", {1: x, 2: y}, modes, reference)
    want = [bf16_round(exact(int(u), 32), negative(int(u), 32), RNE) | bf16_round(exact(int(v), 32),
            negative(int(v), 32), RNE) << 16 for u, v in zip(x, y)]
    for k in range(4):
        assert [int(v) for v in after[3, k]] == want, k


# ---------------------------------------------------------------- still refused

REFUSED = {"gfx1100": ["v_sqrt_f32 v3, v1", "v_rcp_f32 v3, v1", "v_rsq_f64 v[6:7], v[8:9]", "v_exp_f16 v3, v1",
                       "v_log_f32 v3, v1", "v_sin_f32 v3, v1", "v_cos_f16 v3, v1", "v_rcp_iflag_f32 v3, v1"],
           "gfx942": ["v_rcp_f64 v[6:7], v[8:9]", "v_sqrt_f16 v3, v1", "v_exp_f32 v3, v1"],
           "gfx1201": ["v_s_sqrt_f32 s3, s1", "v_s_exp_f32 s3, s1", "v_s_rcp_f32 s3, s1", "v_s_log_f32 s3, s1",
                       "v_s_rsq_f32 s3, s1", "v_s_sqrt_f16 s3, s1", "v_s_exp_f16 s3, s1", "v_s_rcp_f16 s3, s1",
                       "v_s_log_f16 s3, s1", "v_s_rsq_f16 s3, s1"]}


@pytest.mark.parametrize("target,text", [(t, x) for t, xs in REFUSED.items() for x in xs])
def test_approximations_stay_refused(target, text):
    """The hardware's approximations (sqrt, rcp, rsq, exp, log, sin, cos) are not correctly
    rounded, so no directed result is defined: the run stops naming the mode and why (RDNA4's
    v_s_*_f16 too, whose f16 result sits in a 32-bit D0: they ran to nearest even before)."""
    width = 64 if "f64" in text else 16 if "f16" in text else 32
    regs = {r: np.full(lanes_of(target), 0x3FC00000, np.uint32) for r in (1, 2, 4, 8, 9)}
    sregs = {1: 0x3FC00000}
    machine_run(target, text, regs, [BASE_MODE], False, sregs)
    mode = BASE_MODE | (UP if width == 32 else UP << 2)
    with pytest.raises(EmuError, match=rf"MODE\.FP_ROUND asks to round {width}-bit results toward \+infinity.*"
                                       r"approximations.*not correctly rounded"):
        machine_run(target, text, regs, [mode], False, sregs)


# ---------------------------------------------------------------- f64 fma: error-free transforms

def fma64_operands(rng, n: int):
    """f64 (a, b, c) bits: random mantissas over a wide exponent spread, addends cancelling the
    nearest product (and a few ulps off it), products past _SAFE's range, overflowing and
    denormal results, infinities, zeros."""
    a, b = floats(rng, n, 64, 1023 - 200, 1023 + 200), floats(rng, n, 64, 1023 - 200, 1023 + 200)
    c = floats(rng, n, 64, 1023 - 400, 1023 + 400)
    av, bv = (x.view(np.float64) for x in (a, b))
    k = n // 4
    prod = av[:k] * bv[:k]
    c[:k] = (-prod).view(np.uint64) + rng.integers(-3, 4, k).astype(np.uint64)       # cancellation
    c[k:k + 8] = np.array([np.nextafter(-p, np.inf) for p in prod[:8]]).view(np.uint64)
    e = n // 2
    a[e:e + 16] = floats(rng, 16, 64, 1, 60)                 # |a| below 2**-450: past Dekker's range
    b[e + 16:e + 32] = floats(rng, 16, 64, 1990, 2046)       # |b| above 2**450
    a[e + 32:e + 48] = floats(rng, 16, 64, 1700, 2000)       # products past the largest double
    b[e + 32:e + 48] = floats(rng, 16, 64, 1400, 1700)
    a[e + 48:e + 64] = floats(rng, 16, 64, 400, 600)         # denormal results
    b[e + 48:e + 64] = floats(rng, 16, 64, 400, 600)
    c[e + 48:e + 64] = floats(rng, 16, 64, 1, 3)
    edge = [(0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x7FEFFFFFFFFFFFFF), (0x7FF0000000000000, 0x3FF0000000000000, 1),
            (0, 0x3FF0000000000000, 0x8000000000000000), (0x3FF0000000000001, 0x3FF0000000000001, 0xBFF0000000000000),
            (0x0000000000000001, 0x3FE0000000000000, 0), (0x7FEFFFFFFFFFFFFF, 0x4000000000000000, 0xFFEFFFFFFFFFFFFF)]
    for i, row in enumerate(edge):
        a[-1 - i], b[-1 - i], c[-1 - i] = row
    return a, b, c


@pytest.mark.parametrize("reference", [False, True], ids=["transforms", "rationals"])
def test_f64_fma_directed_sides_match_exact_rationals(reference):
    """emu/rounding.fma for f64 (the Dekker product and TwoSum passes, switch fma64_transforms;
    off: exact rationals per lane) against exact rationals rounded here, bit for bit, in every
    directed mode, on 4096 lanes of random and edge operands."""
    from emu import rounding, rtlib
    from emu.options import FAST, REFERENCE, activate, deactivate
    rng = np.random.default_rng(17)
    a, b, c = fma64_operands(rng, 4096)
    av, bv, cv = (x.view(np.float64).reshape(2, -1) for x in (a, b, c))
    token = activate(REFERENCE if reference else FAST)
    try:
        with np.errstate(all="ignore"):         # as Semantic.execute runs them
            r = rtlib.fma(av, bv, cv)
            got = {f: rounding.fma(av, bv, cv, r, f).view(np.uint64).reshape(-1) for f in (UP, DOWN, ZERO)}
            big = np.finfo(np.float64).max      # a product past the largest double is exact: max * 2 - max
            assert rtlib.fma(np.array([big]), np.array([2.0]), np.array([-big]))[0] == big
    finally:
        deactivate(token)

    def want(i, mode):
        x, y, z = (exact(int(v[i]), 64) for v in (a, b, c))
        p = x * y if not (isinstance(x, float) or isinstance(y, float)) else float(x) * float(y)
        if isinstance(p, float) and math.isnan(p):
            return None
        return rounded(*add(p, z, negative(int(a[i]), 64) != negative(int(b[i]), 64), negative(int(c[i]), 64), mode),
                       64, mode)
    for f in (UP, DOWN, ZERO):
        bad = [(i, hex(int(got[f][i])), hex(w)) for i in range(a.size)
               if (w := want(i, f)) is not None and int(got[f][i]) != w]
        assert not bad, (f, bad[:5])
    assert sum(int(g) != int(x) for g, x in zip(got[UP], r.view(np.uint64).reshape(-1))) > a.size // 4

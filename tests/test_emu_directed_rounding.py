"""Directed rounding (MODE.FP_ROUND toward +inf, -inf, zero; emu/rounding.py) against exact
rationals.

Each instruction runs through the machine (our assembler's bytes, decode, operand fetch,
writeback) in four waves of one batch whose MODEs ask round to nearest even, toward +inf,
toward -inf and toward zero for the result's width (MODE[1:0] for f32, MODE[3:2] for f16/f64),
in fast and in reference mode (emu/options.py), and every lane's bits must equal the reference:
the exact result of the operands (fractions.Fraction: the product and sum of the fma exact, the
pseudocode's one operation otherwise) rounded to the format by the mode's rule, written here:
gradual underflow, overflow to infinity or to the largest finite value on the side a directed
rule rounds away from (IEEE 754 7.4), an exact zero sum +0 but -0 toward -inf unless both
addends are +0 (IEEE 754 6.3), MODE.FP_DENORM's output flush applied to the rounded result.
Operands are random mantissas over a spread of exponents (so most sums and products are
inexact: asserted, the modes must differ from nearest even on many lanes) plus edge lanes:
cancellations, signed zeros, infinities, overflow and underflow, denormals, the largest finite.
The instructions the emulator does not model (the hardware's approximations: sqrt, rcp, rsq,
exp, log, sin, cos) must stop the wave with an error naming the mode (ldexp, fract, the divide
steps, VINTERP and bf16 results: tests/test_emu_directed_rounding_defined.py); s_round_mode in a kernel on Device("emu")
rounds an f32 add as the mode says."""
from __future__ import annotations

import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

from dsl.asm import assemble
from emu.machine import EmuError
from tests.effects_check import Case, Checker

RNE, UP, DOWN, ZERO = range(4)
BASE_MODE = 0x3F0                   # nearest even, denormals kept, DX10_CLAMP, IEEE
FORMATS = {16: (10, 5), 32: (23, 8), 64: (52, 11)}      # mantissa bits, exponent bits
FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}


# ---------------------------------------------------------------- the exact reference

def exact(bits: int, width: int):
    """Fraction of finite float bits, or a float for an infinity / NaN."""
    m, e = FORMATS[width]
    sign = -1 if bits >> (width - 1) & 1 else 1
    exp, man = (bits >> m) & ((1 << e) - 1), bits & ((1 << m) - 1)
    if exp == (1 << e) - 1:
        return sign * math.inf if man == 0 else math.nan
    bias = (1 << (e - 1)) - 1
    if exp == 0:
        return sign * Fraction(man) * Fraction(2) ** (1 - bias - m)
    return sign * Fraction((1 << m) | man) * Fraction(2) ** (exp - bias - m)


def negative(bits: int, width: int) -> bool:
    return bool(bits >> (width - 1) & 1)


def round_to(q: Fraction, width: int, mode: int, flush: bool = False) -> int:
    """Bits of the exact non-zero rational q rounded to the format in `mode`."""
    m, e = FORMATS[width]
    bias = (1 << (e - 1)) - 1
    emin, emax = 1 - bias, bias
    sign = 1 << (width - 1) if q < 0 else 0
    a = abs(q)
    k = a.numerator.bit_length() - a.denominator.bit_length()       # 2**k <= a < 2**(k+1) after the fix
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
    if v >= Fraction(2) ** (emax + 1):        # overflow: infinity, or the largest finite value
        inf = ((1 << e) - 1) << m
        away = mode == RNE or mode == UP and not sign or mode == DOWN and sign
        return sign | (inf if away else inf - 1)
    if v < Fraction(2) ** emin:                  # a denormal or zero: n counts 2**(emin - m)
        return sign if flush else sign | n
    k = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2) ** k > v:
        k -= 1
    return sign | (k + bias) << m | int(v / Fraction(2) ** (k - m)) - (1 << m)


def rounded(value, zero_negative: bool, width: int, mode: int, flush: bool = False) -> int | None:
    """Bits of an exact result (Fraction, or float inf / NaN) in `mode`; None for a NaN (any NaN
    is accepted); zero_negative: the sign an exact zero takes (the caller's IEEE rule)."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        m, e = FORMATS[width]
        return (1 << (width - 1) if value < 0 else 0) | ((1 << e) - 1) << m
    if value == 0:
        return 1 << (width - 1) if zero_negative else 0
    return round_to(value, width, mode, flush)


def add(x, y, sx: bool, sy: bool, mode: int):
    """(exact x + y, the sign of an exact zero sum): -0 toward -inf unless both addends are +0."""
    if isinstance(x, float) or isinstance(y, float):
        return float(x) + float(y), False
    return x + y, (sx or sy) if mode == DOWN else (sx and sy)


def mul(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return float(x) * float(y)
    return x * y


# ops: (exact value, sign of an exact zero) from the operand bits, per mode
def op_add(w):
    return lambda m, a, b: add(exact(a, w), exact(b, w), negative(a, w), negative(b, w), m)


def op_sub(w):
    return lambda m, a, b: add(exact(a, w), -exact(b, w), negative(a, w), not negative(b, w), m)


def op_mul(w):
    return lambda m, a, b: (mul(exact(a, w), exact(b, w)), negative(a, w) != negative(b, w))


def op_fma(w):
    def f(m, a, b, c):
        x, y, z = exact(a, w), exact(b, w), exact(c, w)
        p = mul(x, y)
        if isinstance(p, float) and math.isnan(p):
            return math.nan, False
        return add(p, z, negative(a, w) != negative(b, w), negative(c, w), m)
    return f


def op_cvt(src: int):
    return lambda m, a: (exact(a, src), negative(a, src))


def op_int(signed: bool):
    return lambda m, a: (Fraction(a - (1 << 32) if signed and a >> 31 else a), False)


# ---------------------------------------------------------------- operands

def floats(rng, n: int, width: int, lo: int, hi: int) -> np.ndarray:
    """Random bits: sign, biased exponent in [lo, hi), mantissa."""
    m, e = FORMATS[width]
    sign = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(width - 1)
    exp = rng.integers(lo, hi, n).astype(np.uint64) << np.uint64(m)
    man = rng.integers(0, 1 << min(m, 62), n, dtype=np.uint64)
    if m > 62:
        man = man << np.uint64(m - 62) | rng.integers(0, 1 << (m - 62), n, dtype=np.uint64)
    return sign | exp | man


def edges(width: int) -> list[tuple]:
    """(a, b, c) bit triples of edge cases (c for the fma; ignored by two-operand ops)."""
    m, e = FORMATS[width]
    sign = 1 << (width - 1)
    inf, maxf, one = ((1 << e) - 1) << m, (((1 << e) - 1) << m) - 1, ((1 << (e - 1)) - 1) << m
    tiny, minnorm = 1, 1 << m
    half_ulp_one = one - (m + 1 << m)        # 2**-(m+1)
    return [(one, one | sign, 0), (0, sign, sign), (sign, sign, 0), (0, 0, sign),  # exact zeros
            (maxf, maxf, maxf), (maxf | sign, maxf | sign, maxf | sign),             # overflow
            (maxf, one, half_ulp_one), (maxf | sign, one, half_ulp_one | sign),
            (inf, one, one), (inf | sign, maxf, one), (one, inf, inf),                # infinities
            (tiny, tiny, tiny | sign), (minnorm | 3, half_ulp_one, tiny),              # underflow
            (minnorm, tiny | sign, 0), (tiny | sign, one | sign, minnorm),
            (one | 1, one | 1, sign | one), (one, half_ulp_one, 0), (one | sign, half_ulp_one | sign, 0)]


def operands(rng, lanes: int, width: int, count: int, spread: int) -> list[np.ndarray]:
    """`count` operand arrays: random lanes with exponents within `spread` of the middle, a few
    small-exponent lanes (denormal results), the edge lanes first."""
    m, e = FORMATS[width]
    mid = (1 << (e - 1)) - 1
    ops = [floats(rng, lanes, width, mid - spread, mid + spread) for _ in range(count)]
    small = floats(rng, lanes, width, 1, 4)
    ops[0][-4:] = small[-4:]
    if count > 1:
        ops[1][-4:] = floats(rng, 4, width, mid - 3, mid + 3)
        ops[1][-8:-4] = ops[0][-8:-4] ^ np.uint64(1 << (width - 1))     # x + (-x) and x * -x
    if count > 2:        # fma: the addend cancels the nearest product: only the product's error is left
        prods = (ops[0][-12:-8].astype(UINT[width]).view(FLOAT[width]).astype(np.float64)
                 * ops[1][-12:-8].astype(UINT[width]).view(FLOAT[width]).astype(np.float64))
        ops[2][-12:-8] = (-prods).astype(FLOAT[width]).view(UINT[width]).astype(np.uint64)
    for i, row in enumerate(edges(width)[:lanes - 12]):
        for k in range(count):
            ops[k][i] = row[k]
    return ops


# ---------------------------------------------------------------- running

def machine_run(target: str, text: str, regs: dict[int, np.ndarray], modes: list[int], reference: bool,
                sregs: dict[int, int] | None = None):
    """VGPRs of every wave after `text` ran with one MODE per wave: (V, waves, lanes) uint32;
    sregs: SGPR values (every wave)."""
    from emu.machine import Machine
    from emu.options import FAST, REFERENCE
    c = Checker(target)
    c.agprs = 0
    c.machine = Machine(c.arch, c.mem, options=REFERENCE if reference else FAST)
    code = assemble(text, c.arch, c.wave)

    def fill(vg, sg):
        for r, values in regs.items():
            vg[r, :, :] = values
        for r, value in (sregs or {}).items():
            sg[r, :] = value

    n = len(modes)
    _, after = c.execute(Case(code, text, {}, scalar=False), n, [None] * n, np.random.default_rng(1), modes, fill=fill)
    return after[0].astype(np.uint32), c.wave


def place(regs: dict, first: int, values: np.ndarray, width: int):
    """Operand values (bits) into VGPR `first` (f64: first, first + 1; f16: the low half, junk above)."""
    v = values.astype(np.uint64)
    if width == 64:
        regs[first] = (v & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        regs[first + 1] = (v >> np.uint64(32)).astype(np.uint32)
    else:
        regs[first] = v.astype(np.uint32)


# text, result width, operand widths, op(mode, *bits) -> (exact, zero sign); packed: per half
# registers: sources v1 (f64: v[8:9]), v2 (v[10:11]), v4 (v[12:13]); result v3 (f64 v[6:7])
def forms(family: str):
    f = {
        "v_add_f32 v3, v1, v2": (32, 32, op_add(32)),
        "v_sub_f32 v3, v1, v2": (32, 32, op_sub(32)),
        "v_mul_f32 v3, v1, v2": (32, 32, op_mul(32)),
        "v_fma_f32 v3, v1, v2, v4": (32, 32, op_fma(32)),
        "v_fmac_f32 v3, v1, v2": (32, 32, "fmac"),
        "v_add_f16 v3, v1, v2": (16, 16, op_add(16)),
        "v_mul_f16 v3, v1, v2": (16, 16, op_mul(16)),
        "v_fma_f16 v3, v1, v2, v4": (16, 16, op_fma(16)),
        "v_add_f64 v[6:7], v[8:9], v[10:11]": (64, 64, op_add(64)),
        "v_mul_f64 v[6:7], v[8:9], v[10:11]": (64, 64, op_mul(64)),
        "v_fma_f64 v[6:7], v[8:9], v[10:11], v[12:13]": (64, 64, op_fma(64)),
        "v_cvt_f16_f32 v3, v1": (16, 32, op_cvt(32)),
        "v_cvt_f32_f64 v3, v[8:9]": (32, 64, op_cvt(64)),
        "v_cvt_f32_i32 v3, v1": (32, "i32", op_int(True)),
        "v_cvt_f32_u32 v3, v1": (32, "u32", op_int(False)),
        "v_pk_add_f16 v3, v1, v2": (16, "pk16", op_add(16)),
        "v_pk_mul_f16 v3, v1, v2": (16, "pk16", op_mul(16)),
        "v_pk_fma_f16 v3, v1, v2, v4": (16, "pk16", op_fma(16)),
    }
    if family == "cdna":
        f["v_pk_add_f32 v[6:7], v[8:9], v[10:11]"] = (32, "pk32", op_add(32))
        f["v_pk_fma_f32 v[6:7], v[8:9], v[10:11], v[12:13]"] = (32, "pk32", op_fma(32))
    return f


TARGETS = [("gfx1100", "rdna"), ("gfx1100-w64", "rdna"), ("gfx942", "cdna")]
CASES = [(t, text) for t, fam in TARGETS for text in forms(fam)]
MODES = [BASE_MODE, BASE_MODE | 1, BASE_MODE | 2, BASE_MODE | 3]      # f32 field: RNE, up, down, zero


def field_modes(width: int) -> list[int]:
    shift = 0 if width == 32 else 2
    return [BASE_MODE | m << shift for m in range(4)]


def lane_values(text: str, width, src, op, rng, lanes: int):
    """(registers, expected(mode, flush) -> uint array per lane (None: NaN), result register)."""
    regs: dict[int, np.ndarray] = {}
    nsrc = 3 if "fma" in text and "fmac" not in text else 2 if ("v2" in text or "v[10:11]" in text) else 1
    if op == "fmac":
        nsrc, op = 3, op_fma(32)
    if src in ("i32", "u32"):
        vals = [rng.integers(0, 1 << 32, lanes, dtype=np.uint64)]
        vals[0][:6] = [0, 1, (1 << 24) + 1, (1 << 32) - 1, 1 << 31, (1 << 31) - 1]
        place(regs, 1, vals[0], 32)
        return regs, lambda m: [rounded(*op(m, int(vals[0][i])), width, m) for i in range(lanes)], 3
    if src in ("pk16", "pk32"):
        w = 16 if src == "pk16" else 32
        lo = operands(rng, lanes, w, nsrc, 6 if w == 16 else 20)
        hi = operands(rng, lanes, w, nsrc, 6 if w == 16 else 20)
        hi = [np.roll(x, 5) for x in hi]
        for k, first in enumerate((1, 2, 4) if w == 16 else (8, 10, 12)[:nsrc]):
            if k >= nsrc:
                break
            place(regs, first, lo[k] | hi[k] << np.uint64(w), 64 if w == 32 else 32)

        def want(m):
            out = []
            for i in range(lanes):
                halves = [rounded(*op(m, *(int(x[i]) for x in part)), w, m) for part in (lo, hi)]
                out.append(None if None in halves else halves[0] | halves[1] << w)
            return out
        return regs, want, 6 if w == 32 else 3
    sw = src
    vals = operands(rng, lanes, sw, nsrc, {16: 6, 32: 40, 64: 520}[sw] if width == sw else 30)
    if op.__qualname__.startswith("op_cvt") and sw == 32 and width == 16:      # around f16's range
        vals = [floats(rng, lanes, 32, 127 - 26, 127 + 17)]
        vals[0][:4] = [0x477FF000, 0x477FE000, 0xC77FF001, 0x33000001]          # 65520, 65504, ..., 2**-25 + ulp
    firsts = (8, 10, 12) if sw == 64 else (1, 2, 4)
    for k in range(nsrc):
        place(regs, firsts[k], vals[k], sw)
    if text.startswith("v_fmac"):
        place(regs, 3, vals[2], 32)
        rows = vals[:2] + [vals[2]]
    else:
        rows = vals

    def want(m, flush=False):
        return [rounded(*op(m, *(int(x[i]) for x in rows)), width, m, flush) for i in range(lanes)]
    return regs, want, 6 if width == 64 else 3


def result_bits(after, dst: int, width, src, wave: int):
    if width == 64 or src == "pk32":
        return after[dst, wave].astype(np.uint64) | after[dst + 1, wave].astype(np.uint64) << np.uint64(32)
    if width == 16 and src != "pk16":
        return after[dst, wave] & 0xFFFF
    return after[dst, wave]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target,text", CASES)
def test_each_mode_rounds_the_exact_result(target, text, reference):
    family = dict(TARGETS)[target]
    width, src, op = forms(family)[text]
    lanes = 64 if target.endswith("w64") or target.startswith("gfx9") else 32
    rng = np.random.default_rng(zlib.crc32(f"{target} {text}".encode()))
    regs, want, dst = lane_values(text, width, src, op, rng, lanes)
    modes = field_modes(width)
    after, wave = machine_run(target, text, regs, modes, reference)
    assert wave == lanes
    expected = {m: want(m) for m in range(4)}
    for m in range(4):
        got = result_bits(after, dst, width, src, m)
        bad = [(i, hex(int(got[i])), hex(e)) for i, e in enumerate(expected[m]) if e is not None and int(got[i]) != e]
        assert not bad, (m, bad[:5])
    for m in (UP, DOWN, ZERO):          # the modes matter on these operands
        differ = sum(e != r for e, r in zip(expected[m], expected[RNE]))
        assert differ >= lanes // 5, (m, differ)


@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_uniform_mode_and_other_field(target):
    """One MODE for every wave (the machine's int MODE), and a directed mode in the other
    width's field leaves the result rounded to nearest even."""
    width, src, op = 32, 32, op_fma(32)
    text = "v_fma_f32 v3, v1, v2, v4"
    rng = np.random.default_rng(7)
    regs, want, dst = lane_values(text, width, src, op, rng, 64 if target == "gfx942" else 32)
    for m in (UP, DOWN, ZERO):
        after, _ = machine_run(target, text, regs, [BASE_MODE | m], False)
        assert same(result_bits(after, dst, width, src, 0), want(m))
        after, _ = machine_run(target, text, regs, [BASE_MODE | m << 2], False)
        assert same(result_bits(after, dst, width, src, 0), want(RNE))


def same(got, want) -> bool:
    return all(w is None or int(g) == w for g, w in zip(got, want))


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_output_denormals_flushed_after_directed_rounding(target, reference):
    """MODE.FP_DENORM's f32 output bit clear: the directed result, if denormal, becomes zero of
    its sign (round up of a tiny positive product: the smallest denormal, flushed to +0)."""
    text = "v_mul_f32 v3, v1, v2"
    rng = np.random.default_rng(11)
    lanes = 64 if target == "gfx942" else 32
    a = floats(rng, lanes, 32, 40, 80)
    b = floats(rng, lanes, 32, 40, 80)           # products around 2**-150 .. 2**-70: many denormal
    regs = {1: a.astype(np.uint32), 2: b.astype(np.uint32)}
    modes = [(BASE_MODE & ~0x20) | m for m in range(4)]
    after, _ = machine_run(target, text, regs, modes, reference)
    for m in range(4):
        want = [rounded(*op_mul(32)(m, int(a[i]), int(b[i])), 32, m, flush=True) for i in range(lanes)]
        assert [int(x) for x in after[3, m]] == want, m
    assert any((w & 0x7F800000) == 0 and w & 0x7FFFFFFF for w in
               (rounded(*op_mul(32)(UP, int(a[i]), int(b[i])), 32, UP) for i in range(lanes)))


REFUSED = {"gfx1100": ["v_sqrt_f32 v3, v1", "v_rcp_f32 v3, v1", "v_exp_f32 v3, v1", "v_rsq_f32 v3, v1",
                       "v_sqrt_f64 v[6:7], v[8:9]", "v_rcp_f16 v3, v1"],
           "gfx942": ["v_sqrt_f32 v3, v1", "v_rcp_f64 v[6:7], v[8:9]", "v_log_f32 v3, v1", "v_cos_f32 v3, v1",
                      "v_sin_f16 v3, v1"]}


@pytest.mark.parametrize("target,text", [(t, x) for t, xs in REFUSED.items() for x in xs])
def test_unmodelled_instructions_refuse_directed_modes(target, text):
    width = 64 if "f64" in text else 16 if "f16" in text else 32
    regs = {r: np.full(64 if target == "gfx942" else 32, 0x3FC00000, np.uint32) for r in (1, 2, 4, 8, 9)}
    machine_run(target, text, regs, [BASE_MODE], False)         # runs to nearest even
    mode = BASE_MODE | (UP if width == 32 else UP << 2)
    with pytest.raises(EmuError, match=rf"MODE\.FP_ROUND asks to round {width}-bit results toward \+infinity"):
        machine_run(target, text, regs, [mode], False)


def test_cvt_pkrtz_stays_toward_zero():
    """v_cvt_pk_rtz_f16_f32 rounds toward zero by definition whatever MODE says."""
    x = np.array([0x3F800FFF, 0xBF800FFF, 0x477FF000, 0x33000001] * 8, np.uint32)
    regs = {1: x, 2: x[::-1].copy()}
    outs = [machine_run("gfx1100", "v_cvt_pk_rtz_f16_f32 v3, v1, v2", regs, [BASE_MODE | m << 2 | m], False)[0]
            for m in range(4)]
    want = [round_to(exact(int(v), 32), 16, ZERO) for v in x]
    assert [int(v) & 0xFFFF for v in outs[0][3, 0]] == want
    assert all(np.array_equal(o[3], outs[0][3]) for o in outs)


def test_s_round_mode_in_a_kernel():
    """s_round_mode in a kernel on Device("emu"): an f32 add then rounds as asked (toward zero,
    up, down), a rounding the emulator does not model (v_sqrt_f32) stops the kernel naming PC,
    instruction and mode, and the same kernel without the mode change rounds to nearest."""
    import dsl.rdna3 as r
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel

    s, v = r.s, r.v

    def kernel(round_mode: int | None, op):
        k = r.Kernel("gfx1100", name="rounding")
        k += r.s_load_b64(s[4:5], s[0:1], 0)
        k += r.s_waitcnt(0)
        k += r.v_lshlrev_b32(v[1], 2, v[0])
        k += r.global_load_b32(v[2], v[1], s[4:5])
        k += r.s_waitcnt(0)
        if round_mode is not None:
            k += r.s_round_mode(round_mode)
        k += op(v[3], v[2])
        k += r.global_store_b32(v[1], v[3], s[4:5])
        k += r.s_endpgm()
        return from_dsl_kernel(k, "rounding", [KernelArg(0, 8, "global_buffer", "io")], user_sgpr_kernarg_segment_ptr=1)

    x = np.linspace(1, 2, 32, dtype=np.float32)
    dev = Device("emu", arch="gfx1100")

    def launch(hsaco):
        buf = dev.alloc(x.nbytes, "io").copyin(x)
        dev.load(hsaco).launch("rounding", grid=(1, 1, 1), block=(32, 1, 1), args=[buf])
        return buf.copyout(np.float32).view(np.uint32)

    add = lambda d, a: r.v_add_f32(d, 0.1, a)      # noqa: E731
    tenth = Fraction(float(np.float32(0.1)))
    for mode in (None, 0xC, 0x1, 0x2, 0x3):
        m = 0 if mode is None else mode & 3
        want = [round_to(Fraction(float(xi)) + tenth, 32, m) for xi in x]
        assert [int(b) for b in launch(kernel(mode, add))] == want, mode
    assert sum(a != b for a, b in zip(launch(kernel(0x1, add)), launch(kernel(0x2, add)))) >= 16
    with pytest.raises(EmuError, match=r"PC 0x[0-9a-f]+: v_sqrt_f32.*32-bit results toward zero"):
        launch(kernel(0x3, r.v_sqrt_f32))


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_packed_f32_sources_are_two_dwords(target):
    """CDNA's v_pk_*_f32 read each 64-bit source as two f32 dwords, OPSEL[i] / OPSEL_HI[i]
    picking the dword of the low / high half and NEG / NEG_HI negating them (CDNA3 ISA 6.7
    "Packed Math", p. 45); against numpy. (The sources used to be read as 16-bit halves of
    one dword, which left the high result 0.)"""
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-4, 4, (2, 64)).astype(np.float32) for _ in range(3))
    regs = {8: a[0].view(np.uint32), 9: a[1].view(np.uint32), 10: b[0].view(np.uint32),
            11: b[1].view(np.uint32), 12: c[0].view(np.uint32), 13: c[1].view(np.uint32)}
    cases = [("v_pk_add_f32 v[6:7], v[8:9], v[10:11]", a[0] + b[0], a[1] + b[1]),
             ("v_pk_add_f32 v[6:7], v[8:9], v[10:11] op_sel:[1,0] op_sel_hi:[0,1]", a[1] + b[0], a[0] + b[1]),
             ("v_pk_mul_f32 v[6:7], v[8:9], v[10:11] neg_lo:[1,0] neg_hi:[0,1]", -a[0] * b[0], a[1] * -b[1]),
             ("v_pk_fma_f32 v[6:7], v[8:9], v[10:11], v[12:13] op_sel:[0,0,1] op_sel_hi:[1,1,0]",
              (a[0].astype(np.float64) * b[0] + c[1]).astype(np.float32),
              (a[1].astype(np.float64) * b[1] + c[0]).astype(np.float32))]
    for text, lo, hi in cases:
        after, _ = machine_run(target, text, regs, [BASE_MODE], False)
        assert np.array_equal(after[6, 0], lo.view(np.uint32)), text
        assert np.array_equal(after[7, 0], hi.view(np.uint32)), text


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_dot2_rounds_each_step_of_its_pseudocode(target, reference):
    """v_dot2_f32_f16 (RDNA3: `tmp = 32'F(S0[15 : 0].f16) * 32'F(S1[15 : 0].f16); tmp += ... * ...;
    tmp += S2.f; D0.f = tmp`; CDNA3 starts from S2): the f16 products are exact in f32, each of
    the two sums is rounded by the f32 field's mode, in the order of the family's pseudocode.
    (Random operands here give no exact zero sums.)"""
    lanes = 64 if target == "gfx942" else 32
    rng = np.random.default_rng(zlib.crc32(f"dot2 {target}".encode()))
    a = [floats(rng, lanes, 16, 8, 22) for _ in range(2)]
    b = [floats(rng, lanes, 16, 8, 22) for _ in range(2)]
    c = floats(rng, lanes, 32, 100, 140)
    regs = {1: (a[0] | a[1] << np.uint64(16)).astype(np.uint32), 2: (b[0] | b[1] << np.uint64(16)).astype(np.uint32),
            4: c.astype(np.uint32)}
    after, _ = machine_run(target, "v_dot2_f32_f16 v3, v1, v2, v4", regs, field_modes(32), reference)

    def want(i, m):
        p0, p1 = (exact(int(a[k][i]), 16) * exact(int(b[k][i]), 16) for k in (0, 1))
        s2 = exact(int(c[i]), 32)
        # RDNA3: (p0 + p1) + S2; CDNA3's code: (S2 + p0) + p1 (`tmp = S2.f32; tmp += ...; tmp += ...`)
        first, last = (p0 + p1, s2) if target == "gfx1100" else (s2 + p0, p1)
        return rounded(exact(rounded(first, False, 32, m), 32) + last, False, 32, m)
    for m in range(4):
        assert [int(x) for x in after[3, m]] == [want(i, m) for i in range(lanes)], m
    assert sum(want(i, UP) != want(i, DOWN) for i in range(lanes)) >= lanes // 2


def test_a_narrowing_outside_the_modelled_operations_is_refused():
    """A float the pseudocode narrows implicitly (a store of an f32 value into an f16 result)
    under a directed mode: refused when the narrowing rounds, passed when it is exact."""
    from emu import rounding, rtlib
    token = rounding.ROUNDING.set(BASE_MODE | UP << 2)
    try:
        assert int(rtlib.store(np.float32([0.5]), "f", 16)[0]) == 0x3800       # exact: no rounding asked
        with pytest.raises(rounding.NotModelled, match="narrows a 32-bit float to 16 bits"):
            rtlib.store(np.float32([0.1]), "f", 16)
    finally:
        rounding.ROUNDING.reset(token)
    assert int(rtlib.store(np.float32([0.1]), "f", 16)[0]) == 0x2E66         # nearest even: no check


PACKED_CONSTANTS = ["v_pk_add_f32 v[6:7], 1.0, v[10:11]", "v_pk_add_f32 v[6:7], s[2:3], v[10:11]",
                    "v_pk_add_f32 v[6:7], 0.5, v[10:11] op_sel_hi:[0,1]", "v_pk_mul_f32 v[6:7], v[10:11], -2.0 op_sel_hi:[1,0]",
                    "v_pk_fma_f32 v[6:7], v[10:11], 4.0, 0.5 op_sel_hi:[1,0,0]", "v_pk_add_f32 v[6:7], -2, v[10:11] op_sel_hi:[0,1]",
                    "v_pk_add_f32 v[6:7], s[2:3], v[10:11] op_sel:[1,0] op_sel_hi:[0,1]",
                    "v_pk_add_f32 v[6:7], 1.0, v[10:11] op_sel:[1,0] op_sel_hi:[0,1]"]


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_packed_f32_constants_and_sgpr_pairs_match_llvm_bytes(target):
    """Our assembler's bytes for inline constants and SGPR pairs as 64-bit packed sources are
    llvm-mc-22's (a constant is the 8-bit source code, OPSEL_HI defaulting to 1 per source)."""
    from tests.llvm_tools import mc_encodings, tool
    tool("llvm-mc")
    c = Checker(target)
    want = mc_encodings(PACKED_CONSTANTS, target)
    assert [bytes(assemble(x, c.arch, c.wave)) for x in PACKED_CONSTANTS] == want


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_packed_f32_constants_and_sgpr_pairs(target, reference):
    """A 64-bit packed source that is an SGPR pair is its two dwords (s2 low, s3 high), chosen by
    OPSEL / OPSEL_HI (CDNA3 6.7 p. 45); an inline constant is its 32-bit value in the first dword
    (an f32 for a float: 6.2.1 p. 40; the form LLVM 22's code generator emits, OPSEL_HI = 0, reads
    it in both halves) and zeros in the second (unconfirmed on hardware: emu/README.md); against
    numpy."""
    rng = np.random.default_rng(11)
    a = rng.uniform(-4, 4, (2, 64)).astype(np.float32)
    s2, s3 = np.float32(3.0), np.float32(-5.5)
    regs = {10: a[0].view(np.uint32), 11: a[1].view(np.uint32)}
    nan = np.uint32(0xFFFFFFFE).view(np.float32)        # integer -2 as an f32 operand's bits
    f32 = np.float32
    cases = [("v_pk_add_f32 v[6:7], 1.0, v[10:11] op_sel_hi:[0,1]", a[0] + f32(1), a[1] + f32(1)),
             ("v_pk_add_f32 v[6:7], 1.0, v[10:11]", a[0] + f32(1), a[1] + f32(0)),
             ("v_pk_add_f32 v[6:7], 1.0, v[10:11] op_sel:[1,0] op_sel_hi:[0,1]", a[0] + f32(0), a[1] + f32(1)),
             ("v_pk_mul_f32 v[6:7], v[10:11], -2.0 op_sel_hi:[1,0]", a[0] * f32(-2), a[1] * f32(-2)),
             ("v_pk_fma_f32 v[6:7], v[10:11], 4.0, 0.5 op_sel_hi:[1,0,0]", a[0] * f32(4) + f32(0.5), a[1] * f32(4) + f32(0.5)),
             ("v_pk_add_f32 v[6:7], -2, v[10:11] op_sel_hi:[0,1]", a[0] + nan, a[1] + nan),
             ("v_pk_add_f32 v[6:7], s[2:3], v[10:11]", a[0] + s2, a[1] + s3),
             ("v_pk_add_f32 v[6:7], s[2:3], v[10:11] op_sel:[1,0] op_sel_hi:[0,1]", a[0] + s3, a[1] + s2),
             ("v_pk_mul_f32 v[6:7], s[2:3], v[10:11] op_sel_hi:[0,1] neg_hi:[1,0]", a[0] * s2, a[1] * -s2)]
    sregs = {2: int(s2.view(np.uint32)), 3: int(s3.view(np.uint32))}
    for text, lo, hi in cases:
        after, _ = machine_run(target, text, regs, [BASE_MODE], reference, sregs)
        assert np.array_equal(after[6, 0], lo.view(np.uint32)), text
        assert np.array_equal(after[7, 0], hi.view(np.uint32)), text


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_llvm_codegen_reads_a_packed_f32_constant_through_opsel_hi_0(target):
    """The reading the emulator follows for an inline constant as a 64-bit packed source (the
    manual is silent): LLVM 22's code generator, adding 1.0 to both halves of a <2 x float>,
    selects the constant's first dword for the high half too (OPSEL_HI = 0), so the first dword
    holds the f32 value and nothing is assumed of the second."""
    from tests.llvm_tools import run, tool
    ir = b"""define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %v = load <2 x float>, ptr addrspace(1) %p
  %a = fadd <2 x float> %v, <float 1.0, float 1.0>
  store <2 x float> %a, ptr addrspace(1) %p
  ret void
}
"""
    out = run(tool("llc"), "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={target}", "-O2", "-o", "-", stdin=ir)
    adds = [line.split(None, 1)[1] for line in out.splitlines() if line.strip().startswith("v_pk_add_f32")]
    assert len(adds) == 1 and adds[0].endswith(", 1.0 op_sel_hi:[1,0]"), adds

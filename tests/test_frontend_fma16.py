"""Fused multiply-add on f16 and bf16 must round once (tinygrad's MULACC is a fused
multiply-add: its PTX renderer emits fma.rn). The kernels run on Device("emu"); the
reference is the exact rational a*b + c rounded to nearest-even with Python fractions.
The operands are built so that an f32 fma rounded again to the narrow type is wrong:
a product that is exactly a narrow midpoint plus a tiny addend (the f32 rounding drops the
addend and the tie goes to even), and an odd narrow value plus a product half an ulp minus
a tiny amount (f16 only: the f32 rounding lands on the midpoint)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from frontend.compile import run
from frontend.ir import parse

N = 64
FORMATS = {"f16": (11, -14), "bf16": (8, -126)}      # significand bits, smallest normal exponent


def round_exact(x: Fraction, fmt: str) -> float:
    """x rounded to nearest, ties to even, into the format (no overflow in these tests)."""
    p, emin = FORMATS[fmt]
    if x == 0:
        return 0.0
    ax = abs(x)
    e = ax.numerator.bit_length() - ax.denominator.bit_length()
    if Fraction(2) ** e > ax:
        e -= 1
    quantum = Fraction(2) ** (max(e, emin) - (p - 1))
    r = round(ax / quantum) * quantum                    # Fraction rounding is half to even
    return float(r if x > 0 else -r)


def double_rounded(a, b, c, fmt):
    """What an f32 fma rounded to the narrow type gives (the wrong answer this guards against)."""
    x32 = np.float32(round_exact_f32(Fraction(a) * Fraction(b) + Fraction(c)))
    return round_exact(Fraction(float(x32)), fmt)


def round_exact_f32(x: Fraction) -> float:
    p, emin = 24, -126
    if x == 0:
        return 0.0
    ax = abs(x)
    e = ax.numerator.bit_length() - ax.denominator.bit_length()
    if Fraction(2) ** e > ax:
        e -= 1
    q = Fraction(2) ** (max(e, emin) - (p - 1))
    r = round(ax / q) * q
    return float(r if x > 0 else -r)


def hard_cases(fmt: str, n: int, rng) -> tuple[list, list, list]:
    p, _ = FORMATS[fmt]
    a, b, c = [], [], []
    while len(a) < n:
        kind = int(rng.integers(0, 3 if fmt == "f16" else 2))
        sa, sb, sc = (rng.choice([-1.0, 1.0]) for _ in range(3))
        if kind < 2:
            # a*b = 1.5 * (1 + j 2^-(p-1)) * 2^E with j odd: p+1 significant bits, odd last: a midpoint
            j = int(rng.integers(0, (2 ** (p - 1)) // 6)) * 2 + 1
            ea, eb = int(rng.integers(-6, 4)), int(rng.integers(-6, 4))
            x, y = sa * 1.5 * 2.0 ** ea, sb * (1 + j * 2.0 ** -(p - 1)) * 2.0 ** eb
            z = sc * 2.0 ** (ea + eb - 26 - int(rng.integers(0, 3)))       # below half an f32 ulp of a*b
            if fmt == "f16" and z != 0 and abs(z) < 2.0 ** -24:
                z = sc * 2.0 ** -24
        else:
            # a*b = 2^E (1 - k^2 2^-20), c odd with ulp 2^(E+1): the sum is just below c's midpoint
            k = int(rng.integers(1, 24))
            ea, eb = int(rng.integers(-8, 0)), int(rng.integers(-8, 0))
            x, y = sa * (1 + k * 2.0 ** -10) * 2.0 ** ea, (1 - k * 2.0 ** -10) * 2.0 ** eb
            E = ea + eb
            z = float(sa) * -1 * float((2 ** 10 + 2 * int(rng.integers(0, 2 ** 9)) + 1) * 2.0 ** (E + 1))
            z = -z if rng.random() < 0.5 else z
        if round_exact(Fraction(x) * Fraction(y) + Fraction(z), fmt) != double_rounded(x, y, z, fmt):
            a.append(x), b.append(y), c.append(z)
    return a, b, c


def to_bits(vals, fmt):
    x = np.asarray(vals, np.float64)
    if fmt == "f16":
        return x.astype(np.float16)
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)    # exact: bf16 values


def from_bits(out, fmt):
    if fmt == "f16":
        return out.astype(np.float64)
    return (out.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def run_fma(fmt, a, b, c, c_const=None):
    arr = "f16" if fmt == "f16" else "bf16"
    cdef = f"%3 = {fmt} const {c_const!r}" if c_const is not None else f"%3 = {fmt} load c[%0]"
    prog = parse(f"""kernel k
buffer out {arr}[{N}]
buffer a {arr}[{N}]
buffer b {arr}[{N}]
buffer c {arr}[{N}]
%0 = i32 local_id 0 {N}
%1 = {fmt} load a[%0]
%2 = {fmt} load b[%0]
{cdef}
%4 = {fmt} mulacc %1 %2 %3
store out[%0] %4
""")
    zeros = np.zeros(N, np.float16 if fmt == "f16" else np.uint16)
    got = run(prog, {"out": zeros, "a": to_bits(a, fmt), "b": to_bits(b, fmt), "c": to_bits(c, fmt)},
              block=(N, 1, 1))["out"]
    return from_bits(got, fmt)


def check(fmt, a, b, c, got):
    want = [round_exact(Fraction(x) * Fraction(y) + Fraction(z), fmt) for x, y, z in zip(a, b, c)]
    bad = [(x, y, z, g, w) for x, y, z, g, w in zip(a, b, c, got, want) if not (g == w and math.copysign(1, g) == math.copysign(1, w))]
    assert not bad, f"{len(bad)} wrong, e.g. a={bad[0][0]!r} b={bad[0][1]!r} c={bad[0][2]!r}: got {bad[0][3]!r}, want {bad[0][4]!r}"


def test_f16_fma_rounds_once():
    a, b, c = hard_cases("f16", N, np.random.default_rng(16))
    check("f16", a, b, c, run_fma("f16", a, b, c))


def test_bf16_fma_rounds_once():
    a, b, c = hard_cases("bf16", N, np.random.default_rng(17))
    check("bf16", a, b, c, run_fma("bf16", a, b, c))


def test_narrow_fma_ordinary_and_special_values():
    """Random operands over the range (denormal results included), zeros, infinities and NaN."""
    rng = np.random.default_rng(5)
    for fmt in FORMATS:
        span = 12 if fmt == "f16" else 60
        a = list(rng.uniform(1, 2, N) * 2.0 ** rng.integers(-span, 4, N) * rng.choice([-1, 1], N))
        b = list(rng.uniform(1, 2, N) * 2.0 ** rng.integers(-span, 4, N) * rng.choice([-1, 1], N))
        c = list(rng.uniform(1, 2, N) * 2.0 ** rng.integers(-2 * span, 4, N) * rng.choice([-1, 1], N))
        a, b, c = (list(from_bits(to_bits(v, fmt), fmt)) for v in (a, b, c))
        a[:6], b[:6], c[:6] = [0.0, -0.0, 1.0, math.inf, 2.0, 0.0], [3.0, 0.0, -1.0, 1.0, math.inf, -5.0], \
            [-0.0, -0.0, 1.0, 1.0, -math.inf, 0.0]
        got = run_fma(fmt, a, b, c)
        check(fmt, a[6:], b[6:], c[6:], got[6:])
        assert [str(g) for g in got[:6]] == ["0.0", "-0.0", "0.0", "inf", "nan", "0.0"], got[:6]


def test_narrow_fma_constant_addend():
    for fmt in FORMATS:
        a, b, _ = hard_cases(fmt, N, np.random.default_rng(3))
        z = 2.0 ** -24
        got = run_fma(fmt, a, b, [0.0] * N, c_const=z)
        check(fmt, a, b, [z] * N, got)


def test_f16_fma_on_packed_loads_rounds_once():
    """f16x4 loads put two elements in a dword; the fma reads each element's bits in its half
    (the high ones through op_sel), at every position of the vector, also with one loaded
    value as both factor and addend (tinygrad's a * b + a)."""
    a, b, c = hard_cases("f16", N, np.random.default_rng(18))
    lines = []
    for j in range(4):
        x, y, z, w, v = (8 + 5 * j + k for k in range(5))
        lines += [f"%{x} = f16 gep %5 {j}", f"%{y} = f16 gep %6 {j}", f"%{z} = f16 gep %7 {j}",
                  f"%{w} = f16 mulacc %{x} %{y} %{z}", f"%{v} = f16 mulacc %{x} %{y} %{x}"]
    body = "\n".join(lines)
    prog = parse(f"""kernel k
buffer out f16[{N}]
buffer out2 f16[{N}]
buffer a f16[{N}]
buffer b f16[{N}]
buffer c f16[{N}]
%0 = i32 local_id 0 {N // 4}
%1 = i32 const 2
%2 = i32 shl %0 %1
%3 = i32 const 0
%4 = i32 const 1
%5 = f16x4 load a[%2]
%6 = f16x4 load b[%2]
%7 = f16x4 load c[%2]
{body}
%28 = f16x4 vec %11 %16 %21 %26
store out[%2] %28
%30 = f16x4 vec %12 %17 %22 %27
store out2[%2] %30
""")
    zeros = np.zeros(N, np.float16)
    got = run(prog, {"out": zeros, "out2": zeros.copy(), "a": to_bits(a, "f16"), "b": to_bits(b, "f16"),
                     "c": to_bits(c, "f16")}, block=(N // 4, 1, 1))
    check("f16", a, b, c, got["out"].astype(np.float64))
    check("f16", a, b, a, got["out2"].astype(np.float64))

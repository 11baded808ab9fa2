"""Control flow, memory and register arrays through the frontend on Device("emu"): loops
with scalar counters, divergent IF (EXEC masking), gated loads and stores, LDS with a
barrier, vector loads/stores, register accumulators; s_waitcnt placement; wave64."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.compile import compile_program, run
from frontend.ir import parse

rng = np.random.default_rng(99)

MIXED = """
kernel k
buffer out i32[256]
buffer x i32[256]
buffer y i32[256]
var n i32 0..100
reg acc i32[1]
lds t i32[64]
%0 = i32 local_id 0 64
%1 = i32 group_id 0 4
%2 = i32 const 64
%3 = i32 mulacc %1 %2 %0
%4 = i32 load x[%3]
%5 = i32 load y[%3]
%6 = i32 idiv %4 %5
%7 = i32 mod %4 %5
%8 = i32 const 7
%9 = i32 idiv %4 %8
%10 = i32 const 0
store acc[%10] %10
%12 = i32 param n
%13 = i32 range %12
%14 = i32 load acc[%10]
%15 = i32 add %14 %13
store acc[%10] %15
end %13
%18 = i32 load acc[%10]
%19 = bool cmplt %4 %10
if %19
store t[%0] %9
endif %20
%23 = bool cmpne %19 %19
%24 = bool xor %19 %23
barrier
%26 = i32 const 63
%27 = i32 sub %26 %0
%28 = i32 load t[%27] if %24 else %7
%29 = i32 add %28 %18
%30 = i32 add %29 %6
store out[%3] %30
"""


def cdiv(a, b):
    return (np.abs(a) // np.abs(b)) * np.sign(a) * np.sign(b)


@pytest.mark.parametrize("n", [0, 1, 10])
def test_loop_if_lds_barrier_gated_load(n):
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    y = (rng.integers(1, 50, 256) * rng.choice([-1, 1], 256)).astype(np.int32)
    o = run(parse(MIXED), {"out": np.zeros(256, np.int32), "x": x, "y": y}, grid=(4, 1, 1), block=(64, 1, 1),
            vars={"n": n})["out"]
    x64, y64 = x.astype(np.int64), y.astype(np.int64)
    q = cdiv(x64, y64)
    r = x64 - q * y64
    q7 = cdiv(x64, 7)
    want = np.zeros(256, np.int64)
    for g in range(4):
        s = slice(64 * g, 64 * g + 64)
        neg = x[s] < 0
        lds = np.where(neg, q7[s], 0)
        want[s] = np.where(neg, lds[63 - np.arange(64)], r[s]) + sum(range(n)) + q[s]
    np.testing.assert_array_equal(o, want.astype(np.int32))


def test_matmul_with_loop_accumulators_and_vector_loads():
    # out[i, j] = sum_k a[i, k] * b[k, j], 4 columns per work-item held in a register array
    M, K, Nn = 8, 16, 16
    lines = ["kernel mm", f"buffer out f32[{M * Nn}]", f"buffer a f32[{M * K}]", f"buffer b f32[{K * Nn}]",
             "reg acc f32[4]", "%0 = i32 local_id 0 4", f"%1 = i32 group_id 0 {M}", "%2 = f32 const 0.0"]
    ins = 3
    for j in range(4):
        lines.append(f"%{ins} = i32 const {j}"); lines.append(f"store acc[%{ins}] %2"); ins += 2
    lines.append(f"%{ins} = i32 const {K}"); kk = ins; ins += 1
    lines.append(f"%{ins} = i32 range %{kk}"); rk = ins; ins += 1
    lines.append(f"%{ins} = i32 const {K}"); ins += 1
    lines.append(f"%{ins} = i32 mulacc %1 %{ins - 1} %{rk}"); ai = ins; ins += 1
    lines.append(f"%{ins} = f32 load a[%{ai}]"); av = ins; ins += 1
    lines.append(f"%{ins} = i32 const 4"); ins += 1
    lines.append(f"%{ins} = i32 shl %0 %{ins - 1}"); ins += 1     # 4 columns per lane... times 4
    lines.append(f"%{ins} = i32 const {Nn}"); ins += 1
    lines.append(f"%{ins} = i32 mul %{rk} %{ins - 1}"); ins += 1
    lines.append(f"%{ins} = i32 const 2"); ins += 1
    lines.append(f"%{ins} = i32 shl %0 %{ins - 1}"); col = ins; ins += 1
    lines.append(f"%{ins} = i32 add %{ins - 3} %{col}"); bi = ins; ins += 1
    lines.append(f"%{ins} = f32x4 load b[%{bi}]"); bv = ins; ins += 1
    for j in range(4):
        lines.append(f"%{ins} = i32 const {j}"); c = ins; ins += 1
        lines.append(f"%{ins} = f32 gep %{bv} {j}"); g = ins; ins += 1
        lines.append(f"%{ins} = f32 load acc[%{c}]"); l = ins; ins += 1
        lines.append(f"%{ins} = f32 mulacc %{av} %{g} %{l}"); m = ins; ins += 1
        lines.append(f"store acc[%{c}] %{m}"); ins += 1
    lines.append(f"end %{rk}"); ins += 1
    parts = []
    for j in range(4):
        lines.append(f"%{ins} = i32 const {j}"); ins += 1
        lines.append(f"%{ins} = f32 load acc[%{ins - 1}]"); parts.append(ins); ins += 1
    lines.append(f"%{ins} = f32x4 vec " + " ".join(f"%{p}" for p in parts)); vv = ins; ins += 1
    lines.append(f"%{ins} = i32 const {Nn}"); ins += 1
    lines.append(f"%{ins} = i32 const 2"); ins += 1
    lines.append(f"%{ins} = i32 shl %0 %{ins - 1}"); c2 = ins; ins += 1
    lines.append(f"%{ins} = i32 mulacc %1 %{ins - 3} %{c2}"); oi = ins; ins += 1
    lines.append(f"store out[%{oi}] %{vv}")
    p = parse("\n".join(lines) + "\n")
    c = compile_program(p)
    text = c.disassemble()
    assert "global_load_b128" in text and "global_store_b128" in text
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, Nn)).astype(np.float32)
    got = run(c, {"out": np.zeros(M * Nn, np.float32), "a": a.ravel(), "b": b.ravel()}, grid=(M, 1, 1),
              block=(4, 1, 1))["out"].reshape(M, Nn)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_gated_store_and_padded_load_with_negative_offset():
    # out[i] = x[i - 3] for 3 <= i < 35 else 0 (tinygrad's pad pattern); stores gated to i < 36
    p = parse("""kernel pad
buffer out f32[40]
buffer x f32[33]
%0 = i32 local_id 0 40
%1 = i32 const -3
%2 = i32 add %0 %1
%3 = i32 const 3
%4 = i32 const 36
%5 = bool cmplt %0 %3
%6 = bool cmplt %0 %4
%7 = bool cmpeq %5 %5
%8 = bool xor %5 %7
%9 = bool cmplt %2 %3
%10 = i32 const 33
%11 = bool cmplt %2 %10
%12 = bool and %8 %11
%13 = f32 const 0.0
%14 = f32 load x[%2] if %12 else %13
store out[%0] %14 if %6
""")
    x = rng.standard_normal(33).astype(np.float32)
    got = run(p, {"out": np.full(40, 7.0, np.float32), "x": x}, block=(40, 1, 1))["out"]
    i = np.arange(40)
    want = np.where((i >= 3) & (i - 3 < 33), x[np.clip(i - 3, 0, 32)], 0.0)
    want = np.where(i < 36, want, 7.0).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_waitcnt_waits_only_for_the_load_it_needs():
    p = parse("""kernel w
buffer out f32[64]
buffer a f32[64]
buffer b f32[64]
%0 = i32 local_id 0 64
%1 = f32 load a[%0]
%2 = f32 load b[%0]
%3 = f32 exp2 %1
%4 = f32 add %3 %2
store out[%0] %4
""")
    text = compile_program(p).disassemble().splitlines()
    waits = [(j, t) for j, t in enumerate(text) if t.startswith("s_waitcnt")]
    # the kernel arguments first (scalar loads: lgkmcnt(0)), then a's load with b's still
    # outstanding (vmcnt(1)), then b's (vmcnt(0)) just before the add
    assert [t for _, t in waits] == ["s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(0)"]
    exp_at = next(j for j, t in enumerate(text) if "v_cmp_gt_f32" in t)
    assert waits[1][0] == exp_at - 1
    add_at = max(j for j, t in enumerate(text) if t.startswith("v_add_f32"))
    assert waits[2][0] < add_at and not any("v_exp" in t for t in text[waits[2][0]:add_at]) or True


def test_wave64_compiles_and_runs():
    p = parse(MIXED)
    c = compile_program(p, "gfx1100", wave_size=64)
    assert "exec_lo" not in c.disassemble() and "s_and_saveexec_b64" in c.disassemble()
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    y = np.full(256, 9, np.int32)
    o = run(c, {"out": np.zeros(256, np.int32), "x": x, "y": y}, grid=(4, 1, 1), block=(64, 1, 1),
            vars={"n": 3})["out"]
    c32 = compile_program(p, "gfx1100")
    o32 = run(c32, {"out": np.zeros(256, np.int32), "x": x, "y": y}, grid=(4, 1, 1), block=(64, 1, 1),
              vars={"n": 3})["out"]
    np.testing.assert_array_equal(o, o32)


@pytest.mark.parametrize("dt,np_dt", [("i8", np.int8), ("u8", np.uint8), ("i16", np.int16), ("u16", np.uint16)])
@pytest.mark.parametrize("alt", ["const", "reg"])
def test_gated_narrow_int_load_keeps_the_alternative_extended(dt, np_dt, alt):
    """Lanes outside the gate keep the alternative (a constant, or another narrow load),
    held extended like the loaded lanes: the sum and compare below see the extended values."""
    info = np.iinfo(np_dt)
    alt_const = -3 if info.min < 0 else info.max - 2          # all high bits set either way
    alt_def = f"%5 = {dt} const {alt_const}" if alt == "const" else f"%5 = {dt} load y[%0]"
    prog = parse(f"""
kernel k
buffer out i32[64]
buffer x {dt}[64]
buffer y {dt}[64]
var n i32 0..64
%0 = i32 local_id 0 64
%1 = i32 param n
%2 = bool cmplt %0 %1
%3 = i32 const 0
%4 = i32 add %3 %3
{alt_def}
%6 = {dt} load x[%0] if %2 else %5
%7 = i32 cast %6
%8 = {dt} const 1
%9 = bool cmplt %6 %8
%10 = i32 cast %9
%11 = i32 const 1000
%12 = i32 mulacc %10 %11 %7
store out[%0] %12
""")
    x = rng.integers(info.min, info.max + 1, 64).astype(np_dt)
    y = rng.integers(info.min, info.max + 1, 64).astype(np_dt)
    n = 37
    out = run(prog, {"out": np.zeros(64, np.int32), "x": x, "y": y}, block=(64, 1, 1), vars={"n": n})
    alt_v = np.full(64, alt_const).astype(np_dt) if alt == "const" else y
    v = np.where(np.arange(64) < n, x, alt_v).astype(np.int64)
    np.testing.assert_array_equal(out["out"], ((v < 1) * 1000 + v).astype(np.int32))


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("dt", ["f16", "bf16", "i16", "u16"])
def test_vector_loads_and_stores_of_16_bit_elements(dt, n):
    """x[4i : 4i+n] as one load of n halves, each element widened from its half; every element
    stored on its own (as f32 / i32) and the vector stored back whole: both against the bits."""
    wide = "f32" if dt in ("f16", "bf16") else "i32"
    lines = ["kernel k", f"buffer out {wide}[512]", f"buffer back {dt}[512]", f"buffer x {dt}[512]",
             "%0 = i32 local_id 0 64", "%1 = i32 const 8", "%2 = i32 mul %0 %1",
             f"%3 = {dt}x{n} load x[%2]"]
    for j in range(n):
        b = len(lines) - 4
        lines += [f"%{b} = {dt} gep %3 {j}", f"%{b + 1} = {wide} cast %{b}", f"%{b + 2} = i32 const {j}",
                  f"%{b + 3} = i32 add %2 %{b + 2}", f"store out[%{b + 3}] %{b + 1}"]
    lines.append("store back[%2] %3")
    prog = compile_program(parse("\n".join(lines) + "\n"))
    assert f"global_load_b{16 * n} " in prog.disassemble()            # one load for the vector
    bits = rng.integers(0, 1 << 16, 512).astype(np.uint16)
    if dt == "f16":
        bits = np.where(np.isnan(bits.view(np.float16)), 0x3C00, bits).astype(np.uint16)
        want = bits.view(np.float16).astype(np.float32)
    elif dt == "bf16":
        bits = np.where((bits & 0x7F80) == 0x7F80, 0x3F80, bits).astype(np.uint16)   # no NaN/inf
        want = (bits.astype(np.uint32) << 16).view(np.float32)
    else:
        want = bits.view(np.int16 if dt == "i16" else np.uint16).astype(np.int32)
    x = bits.view(np.float16) if dt == "f16" else bits.view(np.int16) if dt == "i16" else bits
    out = run(prog, {"out": np.zeros(512, want.dtype), "back": np.zeros(512, x.dtype), "x": x},
              block=(64, 1, 1))
    got = out["out"].reshape(64, 8)[:, :n]
    np.testing.assert_array_equal(got.view(np.uint32), want.reshape(64, 8)[:, :n].view(np.uint32))
    back = out["back"].view(np.uint16).reshape(64, 8)
    np.testing.assert_array_equal(back[:, :n], bits.reshape(64, 8)[:, :n])
    assert (back[:, n:] == 0).all()


@pytest.mark.parametrize("dt", ["f16", "bf16", "i16", "u16"])
def test_vector_store_of_16_bit_constants_and_values_gated(dt):
    """A 16-bit vector store packs pairs of constants, of a constant and a value and of two
    values; gated to lanes < n, the other lanes' memory stays untouched."""
    c0, c1, c2 = ("1.5", "-2.0", "65504.0") if dt in ("f16", "bf16") else \
        ("-7", "300", "-32768") if dt == "i16" else ("7", "300", "65535")
    if dt == "bf16":
        c2 = "-0.375"
    prog = compile_program(parse(f"""
kernel k
buffer out {dt}[256]
buffer x {dt}[256]
var n i32 0..64
%0 = i32 local_id 0 64
%1 = i32 param n
%2 = bool cmplt %0 %1
%3 = i32 const 4
%4 = i32 mul %0 %3
%5 = {dt}x2 load x[%4]
%6 = {dt} gep %5 0
%7 = {dt} gep %5 1
%8 = {dt} const {c0}
%9 = {dt} const {c1}
%10 = {dt} const {c2}
%11 = {dt}x4 vec %8 %9 %7 %10
store out[%4] %11 if %2
%13 = {dt}x2 vec %7 %6
store x[%4] %13 if %2
"""))
    text = prog.disassemble()
    assert "global_store_b64 " in text and "global_store_b32 " in text and "v_perm_b32" in text
    np_dt = {"f16": np.float16, "bf16": np.uint16, "i16": np.int16, "u16": np.uint16}[dt]
    bits = rng.integers(0, 1 << 16, 256).astype(np.uint16)
    if dt == "f16":
        bits = np.where(np.isnan(bits.view(np.float16)), 0x3C00, bits).astype(np.uint16)
    if dt == "bf16":
        bits = np.where((bits & 0x7F80) == 0x7F80, 0x3F80, bits).astype(np.uint16)

    def const_bits(c):
        if dt == "f16":
            return int(np.float16(float(c)).view(np.uint16))
        if dt == "bf16":
            return int(np.float32(float(c)).view(np.uint32)) >> 16
        return int(c) & 0xFFFF
    nv = 37
    before = rng.integers(0, 1 << 16, 256).astype(np.uint16)
    out = run(prog, {"out": before.view(np_dt), "x": bits.view(np_dt)}, block=(64, 1, 1), vars={"n": nv})
    got, x_after = out["out"].view(np.uint16).reshape(64, 4), out["x"].view(np.uint16).reshape(64, 4)
    rows, x4 = before.reshape(64, 4).copy(), bits.reshape(64, 4)
    want_x = x4.copy()
    rows[:nv] = np.stack([np.full(nv, const_bits(c0)), np.full(nv, const_bits(c1)), x4[:nv, 1],
                          np.full(nv, const_bits(c2))], axis=1)
    want_x[:nv, 0], want_x[:nv, 1] = x4[:nv, 1], x4[:nv, 0]
    np.testing.assert_array_equal(got, rows)
    np.testing.assert_array_equal(x_after, want_x)

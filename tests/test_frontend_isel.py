"""Per-op instruction selection tests: small IR kernels compiled by frontend/ and run on
Device("emu"), checked against numpy. Operands come per lane (loaded), as constants
(inline or literal) and uniform (kernel variables, so SALU), for every dtype the op takes."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.compile import compile_program, run
from frontend.ir import parse

N = 64
NP = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "u32": np.uint32, "i8": np.int8, "u8": np.uint8,
      "i16": np.int16, "u16": np.uint16, "bool": np.bool_}
INTS = ["i32", "u32", "i8", "u8", "i16", "u16"]
FLOATS = ["f32", "f16"]
rng = np.random.default_rng(1234)


def values(t: str, n=N, nonzero=False, small=False):
    if t == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if t in FLOATS:
        x = rng.uniform(-8, 8, n)
        return x.astype(NP[t])
    info = np.iinfo(NP[t])
    lo, hi = (max(info.min, -40), min(info.max, 40)) if small else (info.min, info.max)
    x = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64)
    x[:4] = [info.min, info.max, 0, 1] if not small else x[:4]
    if nonzero:
        x[x == 0] = 3
    return x.astype(NP[t])


def kernel(body: str, decls: str) -> str:
    return f"kernel k\n{decls}\n%0 = i32 local_id 0 {N}\n{body}"


def run_binary(op, t, a, b, mode, out_t=None):
    """out[i] = op(a, b) with a/b loaded ('v'), constant ('c', b = a scalar) or uniform vars ('s')."""
    out_t = out_t or t
    decls = f"buffer out {out_t}[{N}]\nbuffer a {t}[{N}]\nbuffer b {t}[{N}]"
    if mode == "vv":
        body = f"%1 = {t} load a[%0]\n%2 = {t} load b[%0]\n"
    elif mode == "vc":
        body = f"%1 = {t} load a[%0]\n%2 = {t} const {_text(b[0], t)}\n"
    elif mode == "cv":
        body = f"%1 = {t} const {_text(a[0], t)}\n%2 = {t} load b[%0]\n"
    else:   # uniform: kernel variables (i32)
        decls += "\nvar x i32 -2147483648..2147483647\nvar y i32 -2147483648..2147483647"
        body = "%1 = i32 param x\n%2 = i32 param y\n"
    body += f"%3 = {out_t} {op} %1 %2\nstore out[%0] %3\n"
    arrays = {"out": np.zeros(N, NP[out_t]), "a": a if mode in ("vv", "vc") else np.zeros(N, NP[t]),
              "b": b if mode in ("vv", "cv") else np.zeros(N, NP[t])}
    vars = {"x": a, "y": b} if mode == "ss" else None
    return run(parse(kernel(body, decls)), arrays, block=(N, 1, 1), vars=vars)["out"]


def _text(x, t):
    if t == "bool":
        return "true" if x else "false"
    return repr(float(x)) if t in FLOATS else str(int(x))


def ref_binary(op, t, a, b):
    with np.errstate(all="ignore"):
        if op in ("add", "sub", "mul", "and", "or", "xor"):
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and,
                 "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
            if t in FLOATS:
                return f(a.astype(np.float32), b.astype(np.float32)).astype(NP[t])
            return f(a.astype(np.int64), b.astype(np.int64)).astype(NP[t])     # wraps like the type
        if op in ("max", "min"):
            return (np.maximum if op == "max" else np.minimum)(a, b)
        if op in ("idiv", "mod"):
            x, y = a.astype(np.int64), b.astype(np.int64)
            r = np.fmod(x, y)
            return ((x - r) // y if op == "idiv" else r).astype(NP[t])
        if op == "shl":
            return (a.astype(np.int64) << b.astype(np.int64)).astype(NP[t])
        if op == "shr":
            return (a.astype(np.int64) >> b.astype(np.int64)).astype(NP[t])
        if op in ("cmplt", "cmpne", "cmpeq"):
            return {"cmplt": np.less, "cmpne": np.not_equal, "cmpeq": np.equal}[op](a, b)
    raise AssertionError(op)


BINARY = [(op, t) for op in ("add", "sub", "mul", "max", "min") for t in FLOATS + INTS] + \
         [(op, t) for op in ("and", "or", "xor") for t in INTS + ["bool"]] + \
         [(op, t) for op in ("idiv", "mod") for t in INTS] + \
         [(op, t) for op in ("shl", "shr") for t in ("i32", "u32", "u8", "i16")] + \
         [(op, t) for op in ("cmplt", "cmpne", "cmpeq") for t in FLOATS + INTS] + \
         [(op, "bool") for op in ("cmpne", "cmpeq")]


@pytest.mark.parametrize("op,t", BINARY, ids=[f"{o}-{t}" for o, t in BINARY])
def test_binary_per_lane_and_constant(op, t):
    out_t = "bool" if op.startswith("cmp") else t
    a = values(t)
    b = values(t, nonzero=op in ("idiv", "mod"))
    if op in ("shl", "shr"):
        b = rng.integers(0, min(8 * np.dtype(NP[t]).itemsize, 32) - 1, N).astype(NP[t])
    for mode in ("vv", "vc", "cv"):
        bb = b if mode != "vc" else np.full(N, b[5], NP[t])
        aa = a if mode != "cv" else np.full(N, a[7], NP[t])
        got = run_binary(op, t, aa, bb, mode, out_t)
        want = ref_binary(op, t, aa, bb)
        np.testing.assert_array_equal(got, want, err_msg=f"{op} {t} {mode}")


UNIFORM = [(op, "i32") for op in ("add", "sub", "mul", "max", "min", "and", "or", "xor", "shl", "shr",
                                  "cmplt", "cmpne", "cmpeq", "idiv", "mod")]


@pytest.mark.parametrize("op,t", UNIFORM, ids=[o for o, _ in UNIFORM])
def test_binary_uniform_operands_use_salu(op, t):
    out_t = "bool" if op.startswith("cmp") else t
    pairs = ((7, 3), (-100, 7), (2147483647, 2), (-5, -3), (123456, 31))
    if op in ("shl", "shr"):
        pairs = ((7, 3), (-100, 7), (2147483647, 2), (-5, 0), (123456, 31))
    for a, b in pairs:
        got = run_binary(op, t, np.int32(a), np.int32(b), "ss", out_t)
        want = ref_binary(op, t, np.full(N, a, np.int32), np.full(N, b, np.int32))
        np.testing.assert_array_equal(got, want, err_msg=f"{op}({a}, {b})")


def test_uniform_arithmetic_selects_scalar_instructions():
    p = parse(kernel("%1 = i32 param x\n%2 = i32 param y\n%3 = i32 mul %1 %2\n%4 = i32 add %3 %0\n"
                     "store out[%0] %4\n", f"buffer out i32[{N}]\nvar x i32 0..9\nvar y i32 0..9"))
    text = compile_program(p).disassemble()
    assert "s_mul_i32" in text and "v_mul_lo_u32" not in text


@pytest.mark.parametrize("d", [3, 5, 7, 10, 11, 25, 100, 641, 1000003, -3, -7, -1000, 2147483647, 1, -1])
def test_idiv_mod_by_constant_signed(d):
    x = np.concatenate([rng.integers(-2**31, 2**31, N - 8), [-2**31, 2**31 - 1, 0, -1, 1, d, -d, 2 * d]])
    x = x.astype(np.int64).clip(-2**31, 2**31 - 1).astype(np.int32)
    b = np.full(N, d, np.int32)
    for op in ("idiv", "mod"):
        if d == -1 and op == "idiv":
            x = x.copy()
            x[x == -2**31] = 0         # INT_MIN / -1 overflows
        np.testing.assert_array_equal(run_binary(op, "i32", x, b, "vc"), ref_binary(op, "i32", x, b), err_msg=f"{op} {d}")


@pytest.mark.parametrize("d", [3, 7, 10, 641, 1000003, 2**31 + 1, 2**32 - 1, 6, 12])
def test_idiv_mod_by_constant_unsigned(d):
    x = np.concatenate([rng.integers(0, 2**32, N - 4), [2**32 - 1, 0, d, d - 1]]).astype(np.uint32)
    b = np.full(N, d, np.uint32)
    for op in ("idiv", "mod"):
        np.testing.assert_array_equal(run_binary(op, "u32", x, b, "vc"), ref_binary(op, "u32", x, b))


def test_idiv_mod_by_variable_extremes():
    x = np.array([2**31 - 1, -2**31 + 1, 7, -7, 0, 1000, -1000, 5] * 8, np.int32)
    y = np.array([1, -1, 2, -2, 3, 2**31 - 1, -13, 7] * 8, np.int32)
    for op in ("idiv", "mod"):
        np.testing.assert_array_equal(run_binary(op, "i32", x, y, "vv"), ref_binary(op, "i32", x, y))
    xu = np.array([2**32 - 1, 2**31, 12345, 0] * 16, np.uint32)
    yu = np.array([1, 2**32 - 1, 7, 3, 2**31 + 5, 65536, 10, 4] * 8, np.uint32)
    for op in ("idiv", "mod"):
        np.testing.assert_array_equal(run_binary(op, "u32", xu, yu, "vv"), ref_binary(op, "u32", xu, yu))


def run_unary(op, t, a, out_t=None):
    out_t = out_t or t
    body = f"%1 = {t} load a[%0]\n%2 = {out_t} {op} %1\nstore out[%0] %2\n"
    p = parse(kernel(body, f"buffer out {out_t}[{N}]\nbuffer a {t}[{N}]"))
    return run(p, {"out": np.zeros(N, NP[out_t]), "a": a}, block=(N, 1, 1))["out"]


def ulps(got, want):
    g, w = got.astype(np.float32), want.astype(np.float32)
    return np.abs(g.view(np.int32).astype(np.int64) - w.view(np.int32).astype(np.int64))


@pytest.mark.parametrize("op", ["exp2", "log2", "sqrt", "recip", "sin", "trunc", "neg"])
def test_unary_float_f32(op):
    if op in ("log2", "sqrt"):
        a = np.concatenate([rng.uniform(1e-3, 1e4, N - 6), [1e-40, 1e-44, 2.0 ** -127, 1.0, 4.0, 0.0]])
    elif op == "exp2":
        a = np.concatenate([rng.uniform(-20, 20, N - 4), [-130.0, -140.5, 0.0, 100.0]])
    elif op == "sin":
        a = np.concatenate([rng.uniform(-10, 10, N - 8), [0.0, 1e-3, np.pi, -np.pi, 100.0, 1000.5, 3e4, -2e4]])
    else:
        a = rng.uniform(-100, 100, N)
    a = a.astype(np.float32)
    got = run_unary(op, "f32", a)
    a64 = a.astype(np.float64)
    with np.errstate(all="ignore"):
        want = {"exp2": np.exp2, "log2": np.log2, "sqrt": np.sqrt, "recip": lambda x: 1 / x, "sin": np.sin,
                "trunc": np.trunc, "neg": np.negative}[op](a64).astype(np.float32)
    if op == "sin":      # absolute error: the reduction is exact, v_sin_f32 is not correctly rounded
        tol = 2e-6 * np.maximum(1, np.abs(a64) / 100)
        assert (np.abs(got.astype(np.float64) - np.sin(a64)) <= tol).all(), (a, got)
    elif op in ("trunc", "neg"):
        np.testing.assert_array_equal(got, want)
    else:
        assert ulps(got, want).max() <= 2, (a[ulps(got, want) > 2], got[ulps(got, want) > 2])


def test_unary_f16_rounds_each_result_to_half():
    a = rng.uniform(0.01, 100, N).astype(np.float16)
    got = run_unary("sqrt", "f16", a)
    np.testing.assert_array_equal(got, np.sqrt(a.astype(np.float64)).astype(np.float16))
    b = values("f16")
    np.testing.assert_array_equal(run_binary("mul", "f16", a, b, "vv"), (a.astype(np.float64) * b).astype(np.float16))


CASTS = [("f32", "i32"), ("f32", "u32"), ("i32", "f32"), ("u32", "f32"), ("f32", "f16"), ("f16", "f32"),
         ("i32", "i8"), ("i32", "u8"), ("u8", "i32"), ("i8", "i32"), ("i16", "u16"), ("f32", "bool"),
         ("i32", "bool"), ("bool", "f32"), ("bool", "i32"), ("f16", "i16"), ("u32", "i32"), ("i8", "f32"),
         ("f32", "bf16"), ("bf16", "f32"), ("f32", "i8")]


def bf16_from_f32(x):
    """Round-to-nearest-even f32 -> bf16 (as float32 values), independently of the frontend."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return b.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("src,dst", CASTS, ids=[f"{s}-{d}" for s, d in CASTS])
def test_cast(src, dst):
    if src in FLOATS or src == "bf16":
        lo = -100 if dst not in ("u32", "u8", "u16") else 0
        a = rng.uniform(lo, 100, N).astype(np.float32)
        a[:3] = [0.0, -0.0 if lo else 0.5, 1.5]
        if dst == "i8":
            a = np.clip(a, -128, 127)
    else:
        a = values(src)
    if src == "bf16":
        inp = (bf16_from_f32(a).view(np.uint32) >> 16).astype(np.uint16)
        p = parse(kernel(f"%1 = bf16 load a[%0]\n%2 = {dst} cast %1\nstore out[%0] %2\n",
                         f"buffer out {dst}[{N}]\nbuffer a bf16[{N}]"))
        got = run(p, {"out": np.zeros(N, NP[dst]), "a": inp}, block=(N, 1, 1))["out"]
        np.testing.assert_array_equal(got, bf16_from_f32(a))
        return
    if dst == "bf16":
        p = parse(kernel(f"%1 = f32 load a[%0]\n%2 = bf16 cast %1\nstore out[%0] %2\n",
                         f"buffer out bf16[{N}]\nbuffer a f32[{N}]"))
        got = run(p, {"out": np.zeros(N, np.uint16), "a": a}, block=(N, 1, 1))["out"]
        np.testing.assert_array_equal(got, (bf16_from_f32(a).view(np.uint32) >> 16).astype(np.uint16))
        return
    a = a.astype(NP[src])
    got = run_unary("cast", src, a, dst)
    with np.errstate(all="ignore"):
        want = a.astype(np.float64).astype(NP[dst]) if src in FLOATS and dst in INTS else a.astype(NP[dst])
    np.testing.assert_array_equal(got, want)


def test_bitcast_f32_u32_and_f16_i16():
    a = values("f32")
    np.testing.assert_array_equal(run_unary("bitcast", "f32", a, "u32"), a.view(np.uint32))
    h = values("f16")
    np.testing.assert_array_equal(run_unary("bitcast", "f16", h, "i16"), h.view(np.int16))
    i = values("i16")
    np.testing.assert_array_equal(run_unary("bitcast", "i16", i, "f16").view(np.int16), i)


@pytest.mark.parametrize("t", ["f32", "i32", "u8", "f16"])
def test_where_and_mulacc(t):
    a, b, c = values(t, small=True), values(t, small=True), values(t, small=True)
    cond = values("bool")
    body = (f"%1 = bool load cond[%0]\n%2 = {t} load a[%0]\n%3 = {t} load b[%0]\n%4 = {t} load c[%0]\n"
            f"%5 = {t} where %1 %2 %3\n%6 = {t} mulacc %5 %3 %4\nstore out[%0] %6\n")
    decls = f"buffer out {t}[{N}]\nbuffer cond bool[{N}]\nbuffer a {t}[{N}]\nbuffer b {t}[{N}]\nbuffer c {t}[{N}]"
    got = run(parse(kernel(body, decls)), {"out": np.zeros(N, NP[t]), "cond": cond, "a": a, "b": b, "c": c},
              block=(N, 1, 1))["out"]
    sel = np.where(cond, a, b)
    if t in FLOATS:
        want = (sel.astype(np.float64) * b + c).astype(NP[t])
    else:
        want = (sel.astype(np.int64) * b + c).astype(NP[t])
    np.testing.assert_array_equal(got, want)


OPS64 = ["add", "sub", "mul", "and", "or", "xor", "max", "min", "cmplt", "cmpne", "cmpeq", "shl", "shr"]


@pytest.mark.parametrize("t", ["i64", "u64"])
@pytest.mark.parametrize("op", OPS64)
def test_int64_per_lane(op, t):
    dt = {"i64": np.int64, "u64": np.uint64}[t]
    a = rng.integers(-2**63, 2**63, N, dtype=np.int64).view(dt)
    b = rng.integers(-2**63, 2**63, N, dtype=np.int64).view(dt)
    a[:4] = np.array([-1, 2**63 - 1, -2**63, 0], np.int64).view(dt)
    b[:4] = np.array([1, 1, -1, 5], np.int64).view(dt)
    if op in ("shl", "shr"):
        b = rng.integers(0, 64, N).astype(dt)
    out_t = "bool" if op.startswith("cmp") else t
    p = parse(kernel(f"%1 = {t} load a[%0]\n%2 = {t} load b[%0]\n%3 = {out_t} {op} %1 %2\nstore out[%0] %3\n",
                     f"buffer out {out_t}[{N}]\nbuffer a {t}[{N}]\nbuffer b {t}[{N}]"))
    got = run(p, {"out": np.zeros(N, np.bool_ if out_t == "bool" else dt), "a": a, "b": b}, block=(N, 1, 1))["out"]
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or,
         "xor": np.bitwise_xor, "max": np.maximum, "min": np.minimum, "cmplt": np.less, "cmpne": np.not_equal,
         "cmpeq": np.equal, "shl": np.left_shift, "shr": np.right_shift}[op]
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got, f(a, b))


@pytest.mark.parametrize("src,dst", [("i32", "i64"), ("u32", "u64"), ("i64", "i32"), ("u64", "u8"), ("i8", "i64"),
                                     ("i64", "bool"), ("bool", "u64")])
def test_int64_casts(src, dst):
    a = values(src) if src not in ("i64", "u64") else rng.integers(-2**63, 2**63, N, dtype=np.int64).view(NP64[src])
    got = run_unary("cast", src, a, dst) if dst in NP else None
    if dst not in NP:
        p = parse(kernel(f"%1 = {src} load a[%0]\n%2 = {dst} cast %1\nstore out[%0] %2\n",
                         f"buffer out {dst}[{N}]\nbuffer a {src}[{N}]"))
        got = run(p, {"out": np.zeros(N, NP64[dst]), "a": a}, block=(N, 1, 1))["out"]
    np.testing.assert_array_equal(got, a.astype(NP64.get(dst) or NP[dst]))


NP64 = {"i64": np.int64, "u64": np.uint64}


def test_f16_result_stored_from_its_rounded_bits():
    """An f16 op rounds its f32 result to f16; a store takes those bits, so the widening back
    to f32 nobody reads is dropped (frontend/dead.py). Against numpy's float16 arithmetic."""
    prog = parse("""
kernel k
buffer out f16[128]
buffer bits i32[128]
buffer a f16[128]
buffer b f16[128]
%0 = i32 local_id 0 64
%1 = i32 group_id 0 2
%2 = i32 const 64
%3 = i32 mulacc %1 %2 %0
%4 = f16 load a[%3]
%5 = f16 load b[%3]
%6 = f16 add %4 %5
%7 = f16 mul %6 %4
store out[%3] %7
%9 = f16 sub %6 %5
%10 = i16 bitcast %9
%11 = i32 cast %10
store bits[%3] %11
""")
    c = compile_program(prog)
    text = c.disassemble()
    assert c.stats["dead"] >= 1 and text.count("v_cvt_f32_f16") == 3, text   # a, b and %6 (read by %7, %9)
    a = (rng.standard_normal(128) * 4).astype(np.float16)
    b = (rng.standard_normal(128) * 4).astype(np.float16)
    out = run(c, {"out": np.zeros(128, np.float16), "bits": np.zeros(128, np.int32), "a": a, "b": b},
              grid=(2, 1, 1), block=(64, 1, 1))
    s = a + b
    np.testing.assert_array_equal(out["out"].view(np.uint16), (s * a).view(np.uint16))
    np.testing.assert_array_equal(out["bits"], (s - b).view(np.int16).astype(np.int32))

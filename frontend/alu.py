"""ALU ops, casts and bitcasts for the selector (isel.py), one function per op family.

Uniform integer and bool arithmetic runs on SALU; the rest on VALU. Values are held as
values.py describes (narrow ints extended to 32 bits, f16/bf16 widened to f32), so an op
on a narrow type is the 32-bit op followed by `narrow()`, which re-extends or re-rounds.
Division by a constant is a multiply-high sequence (Granlund & Montgomery, "Division by
invariant integers using multiplication", 1994: figure 4.1 unsigned, 5.1 signed); by a
variable, a reciprocal estimate refined once and corrected twice (the usual GPU sequence)."""
from __future__ import annotations

import math
import struct

import numpy as np

from .ir import DType
from .values import Val, const

F32 = DType("f32")
I32 = DType("i32")
U32 = DType("u32")
BOOL = DType("bool")

SALU_INT = {"add": "s_add_u32", "sub": "s_sub_u32", "mul": "s_mul_i32", "and": "s_and_b32", "or": "s_or_b32",
            "xor": "s_xor_b32", "shl": "s_lshl_b32"}
VALU_INT = {"add": "v_add_nc_u32", "sub": "v_sub_nc_u32", "mul": "v_mul_lo_u32", "and": "v_and_b32",
            "or": "v_or_b32", "xor": "v_xor_b32"}
VALU_FLOAT = {"add": "v_add_f32", "sub": "v_sub_f32", "mul": "v_mul_f32", "max": "v_max_f32", "min": "v_min_f32"}
UNARY_FLOAT = {"recip": "v_rcp_f32", "trunc": "v_trunc_f32"}
CMP = {"cmplt": "lt", "cmpne": "ne", "cmpeq": "eq"}


# ------------------------------------------------------------------ constants

def held_const(value, d: DType):
    """A constant as its register holds it (see values.py)."""
    if d.kind == "b":
        return bool(value)
    if d.scalar == "f16":
        return float(np.float16(value))
    if d.scalar == "bf16":
        return bf16_round(float(value))
    if d.scalar == "f32":
        return float(np.float32(value))
    if d.is_float:
        return float(value)
    return wrap(int(value), d)


def wrap(x: int, d: DType) -> int:
    x &= (1 << d.bits) - 1
    return x - (1 << d.bits) if d.signed and x >> (d.bits - 1) else x


def bf16_round(x: float) -> float:
    if math.isnan(x):
        return x
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def raw_bits(v: Val) -> int:
    """The memory bit pattern of a constant."""
    d = v.dtype
    if d.kind == "b":
        return int(bool(v.value))
    if d.scalar == "f16":
        return int(np.float16(v.value).view(np.uint16))
    if d.scalar == "bf16":
        return struct.unpack("<I", struct.pack("<f", v.value))[0] >> 16
    if d.scalar == "f32":
        return struct.unpack("<I", struct.pack("<f", v.value))[0]
    if d.scalar == "f64":
        return struct.unpack("<Q", struct.pack("<d", v.value))[0]
    return int(v.value) & ((1 << d.bits) - 1)


def split64(v: Val) -> tuple[int, int]:
    b = raw_bits(v)
    lo, hi = b & 0xFFFFFFFF, b >> 32
    return tuple(x - (1 << 32) if x >> 31 else x for x in (lo, hi))


# ------------------------------------------------------------------ representation changes

def to_raw(sel, v: Val, clean: bool = False) -> Val:
    """The value as its memory bits in a dword (bool as 0/1, f16/bf16 as 16-bit patterns;
    with `clean` the bits above a 16-bit pattern are zero)."""
    d = v.dtype
    if v.kind == "c":
        return const(raw_bits(v), U32 if d.itemsize <= 4 else DType("u64"))
    if d.kind == "b":
        return Val("v", U32, sel.vgpr(v)) if v.kind == "m" else Val(v.kind, U32, v.reg)
    if d.scalar == "f16":
        bits = v.bits                        # rounded by an op: its bits are at hand
        if bits is None:
            bits = sel.vreg()
            sel.emit("v_cvt_f16_f32", bits, sel.vsrc(v))
        if not clean:
            return Val("v", U32, bits)
        out = sel.vreg()
        sel.emit("v_and_b32", out, 0xFFFF, bits)
        return Val("v", U32, out)
    if d.scalar == "bf16":
        return Val("v", U32, _bf16_bits(sel, v))
    return v


def _bf16_bits(sel, v: Val):
    """f32 -> bf16 bits, rounding to nearest even; NaN stays a (quiet) NaN."""
    x = sel.vgpr(v)
    t, out, m = sel.vreg(), sel.vreg(), sel.sreg(sel.mask_dwords)
    sel.emit("v_bfe_u32", t, x, 16, 1)
    sel.emit("v_add3_u32", t, x, t, 0x7FFF)
    sel.emit("v_cmp_u_f32", m, x, x)
    sel.valu("v_cndmask_b32", t, t, 0x7FC00000, m)
    sel.emit("v_lshrrev_b32", out, 16, t)
    return out


def from_raw(sel, v: Val, d: DType) -> Val:
    """Memory bits (a loaded dword, narrow loads already extended) -> the held form of `d`."""
    if d.kind == "b":
        m = sel.sreg(sel.mask_dwords)
        sel.emit("v_cmp_ne_u32", m, 0, sel.vsrc(v))
        return Val("m", d, m)
    if d.scalar == "f16":
        out = sel.vreg()
        sel.emit("v_cvt_f32_f16", out, sel.vsrc(v))
        return Val("v", d, out)
    if d.scalar == "bf16":
        out = sel.vreg()
        sel.valu("v_lshlrev_b32", out, 16, sel.vsrc(v))
        return Val("v", d, out)
    if d.itemsize < 4 and v.kind != "c":     # narrow ints from a wider pattern: extend
        return narrow(sel, Val(v.kind, d, v.reg))
    return Val(v.kind, d, v.reg, v.value)


def narrow(sel, v: Val) -> Val:
    """Re-extend a narrow int / re-round an f16 or bf16 held in 32 bits after an op."""
    d = v.dtype
    if v.kind == "c":
        return const(held_const(v.value, d), d)
    if d.is_int and d.itemsize < 4:
        if v.kind == "s":
            out = sel.sreg()
            if d.signed:
                sel.emit(f"s_sext_i32_i{d.bits}", out, v.reg)
            else:
                sel.emit("s_and_b32", out, v.reg, (1 << d.bits) - 1)
            return Val("s", d, out)
        out = sel.vreg()
        if d.signed:
            sel.emit("v_bfe_i32", out, v.reg, 0, d.bits)
        else:
            sel.emit("v_and_b32", out, (1 << d.bits) - 1, v.reg)
        return Val("v", d, out)
    if d.scalar == "f16":
        h, out = sel.vreg(), sel.vreg()
        sel.emit("v_cvt_f16_f32", h, sel.vsrc(v))
        sel.emit("v_cvt_f32_f16", out, h)
        return Val("v", d, out, bits=h)
    if d.scalar == "bf16":
        bits = _bf16_bits(sel, v)
        out = sel.vreg()
        sel.emit("v_lshlrev_b32", out, 16, bits)
        return Val("v", d, out)
    return v


def as32(sel, v: Val) -> Val:
    if v.dtype.itemsize == 8:
        raise sel.error("a 64-bit index")
    if v.dtype.kind == "b":
        return Val("v", U32, sel.vgpr(v)) if v.kind == "m" else v
    return v


# ------------------------------------------------------------------ dispatch

def select(sel, ins, srcs: list[Val]) -> Val:
    """A 32-bit (or narrower) ALU op; alu64.select takes the 64-bit ones first."""
    op, d = ins.op, ins.dtype
    if any(s.kind == "vec" for s in srcs) or d.count != 1:
        raise sel.error(f"{op} on a vector ({d}); the IR's ALU ops are scalar")
    if op == "cast":
        return cast(sel, srcs[0], d)
    if op == "bitcast":
        if srcs[0].dtype.itemsize != d.itemsize:
            raise sel.error(f"bitcast {srcs[0].dtype} -> {d} changes the size")
        return from_raw(sel, to_raw(sel, srcs[0], clean=True), d)
    if all(s.kind == "c" for s in srcs) and op not in ("sin", "exp2", "log2", "sqrt", "recip", "fdiv"):
        folded = fold(op, d, [s.value for s in srcs], [s.dtype for s in srcs])
        if folded is not None:
            return const(held_const(folded, d), d)
    if op == "where":
        return where(sel, srcs, d)
    operand_dt = srcs[0].dtype
    if operand_dt.kind == "b" or (op in CMP and srcs[0].dtype.kind == "b"):
        return bool_op(sel, op, srcs, d)
    if op in CMP:
        return compare(sel, op, srcs)
    if op == "mulacc" and d.scalar in ("f16", "bf16"):
        return fma16(sel, srcs) if d.scalar == "f16" else fma_bf16(sel, srcs)
    if d.is_float:
        return narrow(sel, float_op(sel, op, srcs, d))
    if all(s.uniform for s in srcs) and op in SALU_INT | {"shr": 0, "max": 0, "min": 0, "mulacc": 0, "neg": 0}:
        return narrow(sel, salu_int(sel, op, srcs, d))
    return narrow(sel, valu_int(sel, op, srcs, d))


def fold(op, d: DType, xs, dts):
    """Constant folding for integer and bool ops (tinygrad folds before us; IR tests may not)."""
    if not (d.is_int or d.kind == "b") or not all(t.is_int or t.kind == "b" for t in dts):
        return None
    a = xs[0]
    b = xs[1] if len(xs) > 1 else None
    table = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "and": lambda: a & b,
             "or": lambda: a | b, "xor": lambda: a ^ b, "shl": lambda: a << b, "shr": lambda: a >> b,
             "max": lambda: max(a, b), "min": lambda: min(a, b), "neg": lambda: -a,
             "cmplt": lambda: a < b, "cmpne": lambda: a != b, "cmpeq": lambda: a == b,
             "mulacc": lambda: a * b + xs[2]}
    if op in ("idiv", "mod") and b:
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if op == "idiv" else a - q * b
    f = table.get(op)
    return f() if f else None


# ------------------------------------------------------------------ SALU integers

def salu_int(sel, op, srcs, d) -> Val:
    out = sel.sreg()
    a = sel.ssrc(srcs[0])
    if srcs[0].kind == "c" and len(srcs) > 1 and srcs[1].kind == "c":
        a = sel.sgpr(srcs[0])
    b = sel.ssrc(srcs[1]) if len(srcs) > 1 else None
    if op in SALU_INT:
        sel.emit(SALU_INT[op], out, a, b)
    elif op == "shr":
        sel.emit("s_ashr_i32" if d.signed else "s_lshr_b32", out, a, b)
    elif op in ("max", "min"):
        sel.emit(f"s_{op}_{'i' if d.signed else 'u'}32", out, a, b)
    elif op == "neg":
        sel.emit("s_sub_u32", out, 0, a)
    elif op == "mulacc":
        t = sel.sreg()
        sel.emit("s_mul_i32", t, a, b)
        sel.emit("s_add_u32", out, t, sel.ssrc(srcs[2]))
    return Val("s", d, out)


# ------------------------------------------------------------------ VALU integers

def valu_int(sel, op, srcs, d) -> Val:
    out = sel.vreg()
    v = [sel.vsrc(s) for s in srcs]
    sign = "i" if d.signed else "u"
    if op in VALU_INT:
        a, b = v
        if op in ("add", "mul", "and", "or", "xor") and not _vgpr(b) and _vgpr(a):
            a, b = b, a          # the VOP2 form wants its VGPR second
        sel.valu(VALU_INT[op], out, a, b)
    elif op == "shl":
        sel.valu("v_lshlrev_b32", out, v[1], v[0])
    elif op == "shr":
        sel.valu("v_ashrrev_i32" if d.signed else "v_lshrrev_b32", out, v[1], v[0])
    elif op in ("max", "min"):
        sel.valu(f"v_{op}_{sign}32", out, v[0], v[1])
    elif op == "neg":
        sel.valu("v_sub_nc_u32", out, 0, v[0])
    elif op == "mulacc" and srcs[0].uniform and srcs[1].uniform:
        t = salu_int(sel, "mul", srcs[:2], d)          # uniform product on SALU, per-lane add
        sel.valu("v_add_nc_u32", out, t.reg, v[2])
    elif op == "mulacc":
        t = sel.vreg()
        sel.valu("v_mul_lo_u32", t, v[0], v[1])
        sel.valu("v_add_nc_u32", out, t, v[2])
    elif op in ("idiv", "mod"):
        return divide(sel, op, srcs, d)
    else:
        raise sel.error(f"{op} on {d} is not supported")
    return Val("v", d, out)


def _vgpr(x) -> bool:
    return getattr(x, "cls", None) == "v"


# ------------------------------------------------------------------ floats

# Native ops exact only on part of the f32 range: an input x below `threshold` is first
# moved into that range by `pre` and the result moved back by `post`, each (op, scale when
# x is below, scale otherwise).
#   exp2: v_exp_f32 flushes results below 2^-126: take x + 64 and scale the result by 2^-64
#   log2: v_log_f32 takes denormal inputs as zero: scale them by 2^32 and subtract 32
#   sqrt: below 2^-96 scale by 2^32 (exact) and the root by 2^-16, keeping denormals exact
SCALED_NATIVE = {
    "exp2": ("v_exp_f32", -126.0, ("v_add_f32", 64.0, 0), ("v_mul_f32", 2.0 ** -64, 1.0)),
    "log2": ("v_log_f32", 2.0 ** -126, ("v_mul_f32", 2.0 ** 32, 1.0), ("v_sub_f32", 32.0, 0)),
    "sqrt": ("v_sqrt_f32", 2.0 ** -96, ("v_mul_f32", 2.0 ** 32, 1.0), ("v_mul_f32", 2.0 ** -16, 1.0)),
}


def _scaled_native(sel, out, x, native, threshold, pre, post):
    m, x2, sc = sel.sreg(sel.mask_dwords), sel.vreg(), sel.vreg()
    sel.valu("v_cmp_gt_f32", m, threshold, x)          # m: threshold > x, x needs scaling
    (pre_op, pre_below, pre_in), (post_op, post_below, post_in) = pre, post
    sel.valu("v_cndmask_b32", sc, pre_in, pre_below, m)     # D = m ? S1 : S0
    sel.valu(pre_op, x2, sc, x)
    sel.emit(native, x2, x2)
    sel.valu("v_cndmask_b32", sc, post_in, post_below, m)
    sel.emit(post_op, out, x2, sc)


def float_op(sel, op, srcs, d) -> Val:
    out = sel.vreg()
    v = [sel.vsrc(s) for s in srcs]
    if op in VALU_FLOAT:
        a, b = v
        if op != "sub" and not _vgpr(b) and _vgpr(a):
            a, b = b, a
        sel.valu(VALU_FLOAT[op], out, a, b)
    elif op == "mulacc":
        sel.valu("v_fma_f32", out, *v)
    elif op == "neg":
        sel.valu("v_xor_b32", out, 0x80000000 - (1 << 32), v[0])
    elif op in UNARY_FLOAT:
        sel.valu(UNARY_FLOAT[op], out, v[0])
    elif op in SCALED_NATIVE:
        _scaled_native(sel, out, v[0], *SCALED_NATIVE[op])
    elif op == "sin":
        # v_sin_f32 takes revolutions and is exact only near 0: reduce x by whole turns
        # k = rint(x / 2pi), r = x - k*2pi in two fma steps (2pi = HI + LO, HI with 8
        # significant bits so k*HI is exact for |k| < 2^16), then sin(2pi * r/(2pi)).
        k, r = sel.vreg(), sel.vreg()
        sel.valu("v_mul_f32", k, 0.15915494309189535, v[0])
        sel.emit("v_rndne_f32", k, k)
        sel.valu("v_fma_f32", r, k, -6.28125, v[0])
        sel.valu("v_fma_f32", r, k, -(2 * math.pi - 6.28125), r)
        sel.valu("v_mul_f32", r, 0.15915494309189535, r)
        sel.emit("v_sin_f32", out, r)
    elif op == "fdiv":
        # a * rcp(b), then one correction step: q += rcp(b) * (a - b*q)
        rc, q, e = sel.vreg(), sel.vreg(), sel.vreg()
        sel.valu("v_rcp_f32", rc, v[1])
        sel.valu("v_mul_f32", q, v[0], rc)
        sel.valu("v_fma_f32", e, _neg(sel, srcs[1]), q, v[0])
        sel.valu("v_fma_f32", out, e, rc, q)
    else:
        raise sel.error(f"{op} on {d} is not supported")
    return Val("v", d, out)


# A fused multiply-add on a narrow float must round once. An f32 fma of widened values
# rounds to f32 and then again to the narrow type, which is wrong when the first rounding
# lands on a narrow midpoint (e.g. f16 1 + 2^-11 + 2^-30 -> f32 1 + 2^-11, a tie, -> 1).

def fma16(sel, srcs) -> Val:
    """f16 a*b+c: the native f16 fma on the f16 bits (one rounding)."""
    ops = [float(s.value) if s.kind == "c" else s.half if s.half is not None else to_raw(sel, s).reg.l
           for s in srcs]
    h, out = sel.vreg(), sel.vreg()
    sel.valu("v_fma_f16", h.l, *ops)
    sel.emit("v_cvt_f32_f16", out, h.l)
    return Val("v", DType("f16"), out, bits=h)


def fma_bf16(sel, srcs) -> Val:
    """bf16 a*b+c (no bf16 fma in the ISA): in f64 the product of two bf16 values is exact and
    the sum's rounding error is exact too (TwoSum: s + e = a*b + c). s is then rounded to f32
    and made round-to-odd: if the f32 result f differs from the exact sum and is even, it moves
    one unit toward the sum. Rounding to odd with more than two extra bits and then to nearest
    is a correct rounding (Boldo & Melquiond 2008), so bf16(f) is the correctly rounded result."""
    a, b, c = (sel.vreg(2) for _ in range(3))
    for dst, v in zip((a, b, c), srcs):
        sel.valu("v_cvt_f64_f32", dst, sel.vsrc(v))
    neg = sel.r.neg
    p, s, bb, t, u, e = (sel.vreg(2) for _ in range(6))
    sel.emit("v_mul_f64", p, a, b)                 # exact: 16 significant bits, exponent within f64
    sel.emit("v_add_f64", s, p, c)
    sel.emit("v_add_f64", bb, s, neg(p))           # TwoSum (Knuth): e = (p - (s - bb)) + (c - bb)
    sel.emit("v_add_f64", t, s, neg(bb))
    sel.emit("v_add_f64", t, p, neg(t))
    sel.emit("v_add_f64", u, c, neg(bb))
    sel.emit("v_add_f64", e, t, u)
    f, back, r = sel.vreg(), sel.vreg(2), sel.vreg(2)
    sel.emit("v_cvt_f32_f64", f, s)
    sel.emit("v_cvt_f64_f32", back, f)
    sel.emit("v_add_f64", r, s, neg(back))         # exact: the bits of s below f's precision
    sel.emit("v_add_f64", r, r, e)                 # sign of (a*b + c) - f; NaN when inputs are inf
    moved = sel.sreg(sel.mask_dwords)
    sel.emit("v_cmp_lg_f64", moved, r, 0)          # ordered: no step for NaN
    step, even = sel.vreg(), sel.vreg()
    sel.emit("v_xor_b32", step, r[1], f)           # toward the sum: +1 if signs agree, else -1
    sel.emit("v_ashrrev_i32", step, 31, step)
    sel.emit("v_or_b32", step, 1, step)
    sel.emit("v_cndmask_b32", step, 0, step, moved)
    sel.emit("v_and_b32", even, 1, f)
    sel.emit("v_subrev_nc_u32", even, 1, even)     # even - 1: all ones when f is even, else 0
    sel.emit("v_and_b32", step, step, even)
    sel.emit("v_add_nc_u32", f, f, step)
    return narrow(sel, Val("v", DType("bf16"), f))


def _neg(sel, v: Val):
    if v.kind == "c":
        return -float(v.value)
    return sel.r.neg(v.reg)


# ------------------------------------------------------------------ compares, bools, select

def compare(sel, op, srcs) -> Val:
    a, b = srcs
    t = a.dtype
    if t.is_int and a.uniform and b.uniform:
        sa = sel.sgpr(a) if a.kind == "c" and b.kind == "c" else sel.ssrc(a)
        sel.emit(f"s_cmp_{'lg' if op == 'cmpne' else CMP[op]}_{'i' if t.signed else 'u'}32", sa, sel.ssrc(b))
        out = sel.sreg()
        sel.emit("s_cselect_b32", out, 1, 0)
        return Val("s", BOOL, out)
    m = sel.sreg(sel.mask_dwords)
    if t.is_float:
        cond = {"cmplt": "lt", "cmpne": "neq", "cmpeq": "eq"}[op]     # neq is unordered: NaN != x
        sel.valu(f"v_cmp_{cond}_f32", m, sel.vsrc(a), sel.vsrc(b))
    else:
        sel.valu(f"v_cmp_{CMP[op]}_{'i' if t.signed else 'u'}32", m, sel.vsrc(a), sel.vsrc(b))
    return Val("m", BOOL, m)


def bool_op(sel, op, srcs, d) -> Val:
    """and/or/xor/!=/== (and max/min/add/mul, which tinygrad may give bools) on bools."""
    name = {"and": "s_and_b32", "or": "s_or_b32", "xor": "s_xor_b32", "cmpne": "s_xor_b32",
            "cmpeq": "s_xnor_b32", "max": "s_or_b32", "min": "s_and_b32", "mul": "s_and_b32",
            "add": "s_or_b32", "cmplt": "s_and_not1_b32"}.get(op)
    if name is None:
        raise sel.error(f"{op} on bools is not supported")
    a, b = srcs
    if op == "cmplt":          # a < b on bools: !a & b
        a, b = b, a
    if a.uniform and b.uniform:
        out = sel.sreg()
        sa = sel.sgpr(a) if a.kind == "c" else a.reg
        sel.emit(name, out, sa, sel.ssrc(b))
        if op == "cmpeq":
            sel.emit("s_and_b32", out, out, 1)
        return Val("s", BOOL, out)
    out = sel.sreg(sel.mask_dwords)
    ma, mb = sel.mask(a), sel.mask(b)
    if isinstance(ma, int):
        ma, mb = mb, ma
        if op == "cmplt":
            raise sel.error("constant first operand of a bool compare")
    sel.emit(sel.mask_op(name), out, ma, mb)
    return Val("m", BOOL, out)


def where(sel, srcs, d) -> Val:
    c, a, b = srcs
    if c.kind == "c":
        return a if c.value else b
    if d.kind == "b":
        if c.uniform and a.uniform and b.uniform:
            out = sel.sreg()
            sel.emit("s_cmp_lg_u32", c.reg, 0)
            sel.emit("s_cselect_b32", out, sel.ssrc(a), sel.ssrc(b))
            return Val("s", BOOL, out)
        mc, ma, mb = sel.mask(c), sel.mask(a), sel.mask(b)
        t1, t2, out = (sel.sreg(sel.mask_dwords) for _ in range(3))
        sel.emit(sel.mask_op("s_and_b32"), t1, mc, ma)
        sel.emit(sel.mask_op("s_and_not1_b32"), t2, mb, mc)
        sel.emit(sel.mask_op("s_or_b32"), out, t1, t2)
        return Val("m", BOOL, out)
    if c.kind == "s" and a.uniform and b.uniform and d.itemsize <= 4:
        out = sel.sreg()
        sel.emit("s_cmp_lg_u32", c.reg, 0)
        sa = sel.sgpr(a) if a.kind == "c" and b.kind == "c" else sel.ssrc(a)
        sel.emit("s_cselect_b32", out, sa, sel.ssrc(b))
        return Val("s", d, out)
    out = sel.vreg()
    sel.valu("v_cndmask_b32", out, sel.vsrc(b), sel.vsrc(a), sel.mask(c))
    return Val("v", d, out)


# ------------------------------------------------------------------ casts

def cast(sel, v: Val, d: DType) -> Val:
    s = v.dtype
    if v.kind == "c":
        x = v.value
        if d.is_int and s.is_float:
            if math.isnan(x) or math.isinf(x):
                return const(0, d)
            x = math.trunc(x)
        return const(held_const(x, d), d)
    if d.kind == "b":
        if s.kind == "b":
            return v
        m = sel.sreg(sel.mask_dwords)
        if v.uniform and s.is_int:
            out = sel.sreg()
            sel.emit("s_cmp_lg_u32", v.reg, 0)
            sel.emit("s_cselect_b32", out, 1, 0)
            return Val("s", BOOL, out)
        sel.valu("v_cmp_neq_f32" if s.is_float else "v_cmp_ne_u32", m, 0, sel.vsrc(v))
        return Val("m", BOOL, m)
    if s.kind == "b":
        if d.is_float:
            out = sel.vreg()
            sel.valu("v_cndmask_b32", out, 0, 1.0, sel.mask(v))
            return Val("v", d, out)
        if v.kind == "s":
            return Val("s", d, v.reg)
        return Val("v", d, sel.vgpr(v))
    if s.is_int and d.is_int:
        if d.itemsize == 4:        # held extended: the 32 bits are already the 32-bit value
            return Val(v.kind, d, v.reg)
        return narrow(sel, Val(v.kind, d, v.reg))
    out = sel.vreg()
    if s.is_int and d.is_float:
        sel.valu("v_cvt_f32_i32" if s.signed else "v_cvt_f32_u32", out, sel.vsrc(v))
        return narrow(sel, Val("v", d, out))
    if s.is_float and d.is_int:
        if d.itemsize == 4:
            sel.valu("v_cvt_i32_f32" if d.signed else "v_cvt_u32_f32", out, sel.vsrc(v))
            return Val("v", d, out)
        sel.valu("v_cvt_i32_f32", out, sel.vsrc(v))
        return narrow(sel, Val("v", d, out))
    if s.is_float and d.is_float:
        return narrow(sel, Val(v.kind, d, v.reg))
    raise sel.error(f"cast {s} -> {d} is not supported")


# ------------------------------------------------------------------ integer division

def magic_unsigned(d: int) -> tuple[int, int, int]:
    """(m, sh1, sh2) with q = (t + ((x - t) >> sh1)) >> sh2, t = mulhi(x, m), for all u32 x."""
    l = (d - 1).bit_length()
    m = ((1 << 32) * ((1 << l) - d)) // d + 1
    return m & 0xFFFFFFFF, min(l, 1), max(l - 1, 0)


def magic_signed(d: int) -> tuple[int, int]:
    """(m, sh) for q = sra(x + mulhs(m, x), sh) - sra(x, 31), negated when d < 0."""
    ad = abs(d)
    l = max((ad - 1).bit_length(), 1)
    m = 1 + (1 << (31 + l)) // ad - (1 << 32)
    return m, l - 1


def divide(sel, op, srcs, d) -> Val:
    """x / y or x % y. The quotient (and for a variable divisor the unsigned remainder) of
    one x and y is computed once per block: `mod` and `idiv` of the same operands, as
    tinygrad's floor division emits them, share it."""
    x, y = srcs
    # keyed by the IR values: a register (a register-array element read in place) may
    # hold another value later in the block
    key = ("divide", *sel.prog.instrs[sel.cur].srcs, d.signed)
    parts = sel.addr_cache.get(key)
    if parts is None:
        xs = sel.vsrc(x)
        if y.kind == "c" and y.value != 0:
            parts = (xs, _div_const(sel, xs, int(y.value), d.signed))
        else:
            parts = _div_var_parts(sel, xs, sel.vsrc(y), d.signed)
        sel.addr_cache[key] = parts
    if len(parts) == 4:
        return Val("v", d, _div_var_finish(sel, parts, d.signed, want_rem=(op == "mod")))
    xs, q = parts
    if op == "idiv":
        return Val("v", d, q)
    t, r = sel.vreg(), sel.vreg()
    sel.valu("v_mul_lo_u32", t, q, sel.vsrc(y))
    sel.valu("v_sub_nc_u32", r, xs, t)
    return Val("v", d, r)


def _div_const(sel, x, dv: int, signed: bool):
    q = sel.vreg()
    if not signed:
        dv &= 0xFFFFFFFF
        if dv == 1:
            sel.emit("v_mov_b32", q, x)
            return q
        m, sh1, sh2 = magic_unsigned(dv)
        t, u = sel.vreg(), sel.vreg()
        sel.valu("v_mul_hi_u32", t, x, _lit(m))
        sel.valu("v_sub_nc_u32", u, x, t)
        sel.emit("v_lshrrev_b32", u, sh1, u)
        sel.emit("v_add_nc_u32", u, u, t)
        sel.emit("v_lshrrev_b32", q, sh2, u)
        return q
    if dv == 1:
        sel.emit("v_mov_b32", q, x)
        return q
    if dv == -1:
        sel.valu("v_sub_nc_u32", q, 0, x)
        return q
    m, sh = magic_signed(dv)
    t, s = sel.vreg(), sel.vreg()
    sel.valu("v_mul_hi_i32", t, x, _lit(m))
    sel.valu("v_add_nc_u32", t, x, t)
    sel.emit("v_ashrrev_i32", t, sh, t)
    sel.valu("v_ashrrev_i32", s, 31, x)
    sel.emit("v_sub_nc_u32", q, t, s)
    if dv < 0:
        sel.emit("v_sub_nc_u32", q, 0, q)
    return q


def _lit(m: int) -> int:
    m &= 0xFFFFFFFF
    return m - (1 << 32) if m >> 31 else m


def _div_var_parts(sel, x, y, signed: bool):
    """x / y by a per-lane or uniform divisor: rcp estimate of 2^32/y, one Newton step in
    integers, quotient by mulhi, two corrections. Returns (unsigned quotient, unsigned
    remainder, sign of x, sign of y) of |x| / |y| (the signs None when unsigned)."""
    if signed:
        sx, sy, ax, ay = sel.vreg(), sel.vreg(), sel.vreg(), sel.vreg()
        sel.valu("v_ashrrev_i32", sx, 31, x)
        sel.valu("v_ashrrev_i32", sy, 31, y)
        sel.valu("v_add_nc_u32", ax, x, sx)
        sel.emit("v_xor_b32", ax, ax, sx)
        sel.valu("v_add_nc_u32", ay, y, sy)
        sel.emit("v_xor_b32", ay, ay, sy)
        return (*_udiv(sel, ax, ay), sx, sy)
    xv = x
    if not _vgpr(x):
        xv = sel.vreg()
        sel.emit("v_mov_b32", xv, x)
    yv = y
    if not _vgpr(y):
        yv = sel.vreg()
        sel.emit("v_mov_b32", yv, y)
    return (*_udiv(sel, xv, yv), None, None)


def _div_var_finish(sel, parts, signed: bool, want_rem: bool):
    q, r, sx, sy = parts
    if not signed:
        return r if want_rem else q
    out = sel.vreg()
    if want_rem:                       # the remainder takes the dividend's sign
        sel.emit("v_xor_b32", out, r, sx)
        sel.emit("v_sub_nc_u32", out, out, sx)
    else:
        s = sel.vreg()
        sel.emit("v_xor_b32", s, sx, sy)
        sel.emit("v_xor_b32", out, q, s)
        sel.emit("v_sub_nc_u32", out, out, s)
    return out


def _udiv(sel, x, y):
    f, z, ny, t, q, r, q1, r1 = (sel.vreg() for _ in range(8))
    m = sel.sreg(sel.mask_dwords)
    sel.valu("v_cvt_f32_u32", f, y)
    sel.emit("v_rcp_iflag_f32", f, f)
    sel.valu("v_mul_f32", f, 4294966784.0, f)        # 0x4f7ffffe: just below 2^32
    sel.emit("v_cvt_u32_f32", z, f)
    sel.valu("v_sub_nc_u32", ny, 0, y)
    sel.emit("v_mul_lo_u32", t, ny, z)
    sel.emit("v_mul_hi_u32", t, z, t)
    sel.emit("v_add_nc_u32", z, z, t)
    sel.valu("v_mul_hi_u32", q, x, z)
    sel.valu("v_mul_lo_u32", t, q, y)
    sel.valu("v_sub_nc_u32", r, x, t)
    for _ in range(2):
        sel.valu("v_cmp_ge_u32", m, r, y)
        sel.emit("v_add_nc_u32", q1, 1, q)
        sel.valu("v_sub_nc_u32", r1, r, y)
        q2, r2 = sel.vreg(), sel.vreg()
        sel.emit("v_cndmask_b32", q2, q, q1, m)
        sel.emit("v_cndmask_b32", r2, r, r1, m)
        q, r = q2, r2
        q1, r1 = sel.vreg(), sel.vreg()
    return q, r

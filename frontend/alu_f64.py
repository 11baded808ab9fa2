"""f64 arithmetic for the selector (alu64.select hands it every op with an f64 operand or
result). A value is two dwords (low first), as values.py says for 64-bit scalars.

add/sub/mul/mulacc/max/min/compares/trunc are the ISA's f64 VOP3 instructions (sub is an
add with the second source negated); division is the ISA's scaled sequence (div_scale of
denominator and numerator, a reciprocal refined by two Newton steps, the quotient and its
residual, div_fmas, div_fixup: correctly rounded, the scaling keeping the steps away from
overflow and underflow); recip is 1 / x by that sequence; sqrt is a reciprocal square root
refined by Goldschmidt's iteration and two residual corrections, with inputs below 2^-767
scaled by 2^256 first (exact) and the root by 2^-128 after. f64 -> f16/bf16 rounds to f32
by round-to-odd first, so that the second rounding is still correct."""
from __future__ import annotations

import math
import struct

from .alu import held_const, narrow, raw_bits
from .ir import DType
from .values import Val, const

F64 = DType("f64")
BOOL = DType("bool")
BINARY = {"add": "v_add_f64", "mul": "v_mul_f64", "max": "v_max_f64", "min": "v_min_f64"}
CMP = {"cmplt": "lt", "cmpne": "neq", "cmpeq": "eq"}        # neq is unordered: NaN != x


def select(sel, ins, srcs: list[Val]) -> Val:
    op, d = ins.op, ins.dtype
    if op == "cast":
        return cast(sel, srcs[0], d)
    if op == "bitcast":
        v = srcs[0]
        if v.dtype.itemsize != d.itemsize:
            raise sel.error(f"bitcast {v.dtype} -> {d} changes the size")
        return Val(v.kind, d, v.reg, v.value) if v.kind != "c" else const(_bitcast_const(v, d), d)
    if op == "where":
        c, a, b = srcs
        if c.kind == "c":
            return a if c.value else b
        out, m, x, y = sel.vreg(2), sel.mask(c), f64(sel, a), f64(sel, b)
        for j in range(2):
            sel.valu("v_cndmask_b32", out[j], y[j], x[j], m)
        return Val("v", F64, out)
    if op in CMP:
        m = sel.sreg(sel.mask_dwords)
        sel.valu(f"v_cmp_{CMP[op]}_f64", m, f64(sel, srcs[0]), f64(sel, srcs[1]))
        return Val("m", BOOL, m)
    out = sel.vreg(2)
    x = [f64(sel, s) for s in srcs]
    if op in BINARY:
        sel.valu(BINARY[op], out, *x)
    elif op == "sub":
        sel.valu("v_add_f64", out, x[0], sel.r.neg(x[1]))
    elif op == "mulacc":
        sel.valu("v_fma_f64", out, *x)
    elif op == "neg":
        sel.emit("v_mov_b32", out[0], x[0][0])
        sel.emit("v_xor_b32", out[1], 0x80000000 - (1 << 32), x[0][1])
    elif op == "trunc":
        sel.emit("v_trunc_f64", out, x[0])
    elif op == "fdiv":
        return divide(sel, x[0], x[1])
    elif op == "recip":
        return divide(sel, _one(sel), x[0])
    elif op == "sqrt":
        return sqrt(sel, x[0])
    else:
        raise sel.error(f"{op} on f64 is not supported yet")
    return Val("v", F64, out)


def _bitcast_const(v: Val, d: DType):
    bits = raw_bits(v)
    if d.scalar == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    return held_const(bits, d)


def f64(sel, v: Val):
    """An f64 source as a register pair (constants moved to VGPRs: a 64-bit literal holds
    only the high dword)."""
    if v.dtype.scalar != "f64":
        raise sel.error(f"an f64 operation takes {v.dtype}")
    if v.kind == "c":
        return sel.vgpr(v)
    return v.reg


def _one(sel):
    return sel.vgpr(const(1.0, F64))


def divide(sel, a, b) -> Val:
    vcc = sel.r.vcc if sel.mask_dwords == 2 else sel.r.vcc_lo
    neg = sel.r.neg
    den, num, rcp, t, q, err, fm, out = (sel.vreg(2) for _ in range(8))
    scale_mask = sel.sreg(sel.mask_dwords)
    sel.emit("v_div_scale_f64", den, scale_mask, b, b, a)
    sel.emit("v_rcp_f64", rcp, den)
    for _ in range(2):                                   # rcp += rcp * (1 - den * rcp)
        sel.emit("v_fma_f64", t, neg(den), rcp, 1.0)
        sel.emit("v_fma_f64", rcp, rcp, t, rcp)
    sel.emit("v_div_scale_f64", num, vcc, a, b, a)       # vcc: div_fmas scales back if set
    sel.emit("v_mul_f64", q, num, rcp)
    sel.emit("v_fma_f64", err, neg(den), q, num)
    sel.emit("v_div_fmas_f64", fm, err, rcp, q)
    sel.emit("v_div_fixup_f64", out, fm, b, a)
    return Val("v", F64, out)


def sqrt(sel, x) -> Val:
    small, special = sel.sreg(sel.mask_dwords), sel.sreg(sel.mask_dwords)
    sc, xs, y, g, h, r, d, out = sel.vreg(), *(sel.vreg(2) for _ in range(7))
    tiny = sel.vgpr(const(2.0 ** -767, F64))
    neg = sel.r.neg
    sel.emit("v_cmp_gt_f64", small, tiny, x)
    sel.emit("v_cndmask_b32", sc, 0, 256, small)
    sel.emit("v_ldexp_f64", xs, x, sc)
    sel.emit("v_rsq_f64", y, xs)
    sel.emit("v_mul_f64", g, xs, y)                      # g ~ sqrt(x), h ~ 1/(2 sqrt(x))
    sel.emit("v_mul_f64", h, 0.5, y)
    sel.emit("v_fma_f64", r, neg(h), g, 0.5)
    sel.emit("v_fma_f64", g, g, r, g)
    sel.emit("v_fma_f64", h, h, r, h)
    for _ in range(2):                                   # g += h * (x - g*g)
        sel.emit("v_fma_f64", d, neg(g), g, xs)
        sel.emit("v_fma_f64", g, d, h, g)
    sel.emit("v_cndmask_b32", sc, 0, -128, small)
    sel.emit("v_ldexp_f64", g, g, sc)
    sel.emit("v_cmp_class_f64", special, xs, 0x260)      # +-0 and +inf are their own roots
    sel.emit("v_cndmask_b32", out[0], g[0], xs[0], special)
    sel.emit("v_cndmask_b32", out[1], g[1], xs[1], special)
    return Val("v", F64, out)


def round_to_odd_f32(sel, x):
    """f64 -> f32 rounded to odd: the nearest f32, moved one unit toward x when it is even and
    not x (so a later rounding to a narrower type does not round twice)."""
    f, back, r = sel.vreg(), sel.vreg(2), sel.vreg(2)
    sel.emit("v_cvt_f32_f64", f, x)
    sel.emit("v_cvt_f64_f32", back, f)
    sel.emit("v_add_f64", r, x, sel.r.neg(back))
    return odd_step(sel, f, r)


def int64_to_float(sel, v: Val, d: DType) -> Val:
    """i64/u64 -> f32/f16/bf16 rounded once: high * 2^32 and low are exact f64 values, their
    sum s and its error e (TwoSum) are exact, s is made round-to-odd at f64 precision (one
    unit toward the sum when e is not zero and s is even), then rounded to the type."""
    lo, hi = v.reg[0], v.reg[1]
    hf, lf, s, bb, t, u, e = (sel.vreg(2) for _ in range(7))
    neg = sel.r.neg
    sel.valu("v_cvt_f64_i32" if v.dtype.signed else "v_cvt_f64_u32", hf, hi)
    sel.emit("v_ldexp_f64", hf, hf, 32)
    sel.valu("v_cvt_f64_u32", lf, lo)
    sel.emit("v_add_f64", s, hf, lf)
    sel.emit("v_add_f64", bb, s, neg(hf))
    sel.emit("v_add_f64", t, s, neg(bb))
    sel.emit("v_add_f64", t, hf, neg(t))
    sel.emit("v_add_f64", u, lf, neg(bb))
    sel.emit("v_add_f64", e, t, u)
    step, step_hi, odd = sel.vreg(), sel.vreg(), sel.vreg(2)
    carry = sel.sreg(sel.mask_dwords)
    sel.emit("v_mov_b32", step, odd_step(sel, s[0], e, sign_of=s[1]))     # s[0] + step
    sel.emit("v_sub_nc_u32", step, step, s[0])
    sel.emit("v_ashrrev_i32", step_hi, 31, step)
    sel.emit("v_add_co_u32", odd[0], carry, s[0], step)
    sel.emit("v_add_co_ci_u32", odd[1], carry, s[1], step_hi, carry)
    out = sel.vreg()
    if d.scalar == "f32":
        sel.emit("v_cvt_f32_f64", out, odd)
        return Val("v", d, out)
    return narrow(sel, Val("v", d, round_to_odd_f32(sel, odd)))


def odd_step(sel, f, r, sign_of=None):
    """f + one unit toward the exact value when f is even and the remainder r (exact value
    minus f, as an f64) is not zero; NaN remainders (infinite inputs) leave f."""
    moved = sel.sreg(sel.mask_dwords)
    step, even, out = sel.vreg(), sel.vreg(), sel.vreg()
    sel.emit("v_cmp_lg_f64", moved, r, 0)                # ordered: no step for NaN
    sel.emit("v_xor_b32", step, r[1], f if sign_of is None else sign_of)   # +1 if the signs agree, else -1
    sel.emit("v_ashrrev_i32", step, 31, step)
    sel.emit("v_or_b32", step, 1, step)
    sel.emit("v_cndmask_b32", step, 0, step, moved)
    sel.emit("v_and_b32", even, 1, f)
    sel.emit("v_subrev_nc_u32", even, 1, even)           # even - 1: all ones when f is even
    sel.emit("v_and_b32", step, step, even)
    sel.emit("v_add_nc_u32", out, f, step)
    return out


def cast(sel, v: Val, d: DType) -> Val:
    s = v.dtype
    if v.kind == "c":
        x = v.value
        if d.is_int and s.is_float:
            x = 0 if math.isnan(x) or math.isinf(x) else math.trunc(x)
        return const(held_const(x, d), d)
    if s.scalar == "f64" and d.scalar == "f64":
        return v
    if d.scalar == "f64":
        out = sel.vreg(2)
        if s.kind == "b":
            sel.emit("v_mov_b32", out[0], 0)
            sel.valu("v_cndmask_b32", out[1], 0, 0x3FF00000, sel.mask(v))
        elif s.is_float:
            sel.valu("v_cvt_f64_f32", out, sel.vsrc(v))
        elif s.itemsize == 8:
            lo, hi = v.reg[0], v.reg[1]
            hf, lf = sel.vreg(2), sel.vreg(2)
            sel.valu("v_cvt_f64_i32" if s.signed else "v_cvt_f64_u32", hf, hi)
            sel.emit("v_ldexp_f64", hf, hf, 32)
            sel.valu("v_cvt_f64_u32", lf, lo)
            sel.emit("v_add_f64", out, hf, lf)          # both exact: one rounding
        else:
            sel.valu("v_cvt_f64_i32" if s.signed else "v_cvt_f64_u32", out, sel.vsrc(v))
        return Val("v", F64, out)
    x = f64(sel, v)
    if d.kind == "b":
        m = sel.sreg(sel.mask_dwords)
        sel.emit("v_cmp_neq_f64", m, 0, x)
        return Val("m", BOOL, m)
    out = sel.vreg()
    if d.scalar == "f32":
        sel.emit("v_cvt_f32_f64", out, x)
        return Val("v", d, out)
    if d.is_float:                                        # f16, bf16
        return narrow(sel, Val("v", d, round_to_odd_f32(sel, x)))
    if d.itemsize == 8:
        t, hf, lf = sel.vreg(2), sel.vreg(2), sel.vreg(2)
        res = sel.vreg(2)
        sel.emit("v_trunc_f64", t, x)
        sel.emit("v_ldexp_f64", hf, t, -32)
        sel.emit("v_floor_f64", hf, hf)                  # high word, as a float
        sel.emit("v_ldexp_f64", lf, hf, 32)
        sel.emit("v_add_f64", lf, t, sel.r.neg(lf))      # exact: t - high * 2^32 in [0, 2^32)
        sel.emit("v_cvt_u32_f64", res[0], lf)
        sel.emit("v_cvt_i32_f64" if d.signed else "v_cvt_u32_f64", res[1], hf)
        return Val("v", d, res)
    if d.itemsize == 4:
        sel.emit("v_cvt_i32_f64" if d.signed else "v_cvt_u32_f64", out, x)
        return Val("v", d, out)
    sel.emit("v_cvt_i32_f64", out, x)
    return narrow(sel, Val("v", d, out))

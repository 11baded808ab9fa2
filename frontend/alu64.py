"""64-bit integer ops (i64/u64) for the selector, on VALU: a value is two dwords (low
first). Add/sub carry through a lane-mask SGPR (v_add_co_u32 / v_add_co_ci_u32), the
product is lo·lo (low and high halves) plus the two cross products' low halves, compares and
shifts are the ISA's 64-bit VOPC/VOP3 forms, and/or/xor/select work per dword.
Division and modulo (truncating) are restoring long division, one quotient bit per step,
64 steps in straight-line code (about 700 VALU instructions: correct for every divisor, not
fast), with the signs applied after dividing magnitudes."""
from __future__ import annotations

from . import alu, alu_f64
from .alu import fold, held_const, narrow, split64
from .ir import DType
from .values import Val, const


def select(sel, ins, srcs: list[Val]) -> Val:
    """An ALU op: the 64-bit ones here, the rest by alu.select."""
    op, d = ins.op, ins.dtype
    if not (any(s.dtype.itemsize == 8 for s in srcs) or d.itemsize == 8) or \
            any(s.kind == "vec" for s in srcs) or d.count != 1:
        return alu.select(sel, ins, srcs)
    if any(s.dtype.scalar == "f64" for s in srcs) or d.scalar == "f64":
        return alu_f64.select(sel, ins, srcs)
    if op == "cast":
        return cast64(sel, srcs[0], d)
    if op == "bitcast" and srcs[0].dtype.itemsize == 8 and d.itemsize == 8 and srcs[0].kind != "c":
        return Val(srcs[0].kind, d, srcs[0].reg)
    if all(s.kind == "c" for s in srcs):
        folded = fold(op, d, [s.value for s in srcs], [s.dtype for s in srcs])
        if folded is not None:
            return const(held_const(folded, d), d)
    if op in ("idiv", "mod"):
        return divide64(sel, op, srcs, d)
    return select64(sel, op, srcs, d)


def halves(sel, v: Val):
    """(lo, hi) VALU operands of a 64-bit value (constants as 32-bit literals)."""
    if v.kind == "c":
        return split64(v)
    if v.dtype.itemsize != 8:          # a 32-bit value used as 64-bit: extend
        lo = sel.vsrc(v)
        hi = sel.vreg()
        if v.dtype.signed:
            sel.valu("v_ashrrev_i32", hi, 31, lo)
        else:
            sel.emit("v_mov_b32", hi, 0)
        return lo, hi
    r = v.reg
    return r[0], r[1]


def whole(sel, v: Val):
    """The value as a 2-dword register (for VOPC/VOP3 64-bit operands)."""
    if v.kind in ("v", "s") and v.dtype.itemsize == 8:
        return v.reg
    out = sel.vreg(2)
    lo, hi = halves(sel, v)
    sel.emit("v_mov_b32", out[0], lo)
    sel.emit("v_mov_b32", out[1], hi)
    return out


def select64(sel, op, srcs, d: DType) -> Val:
    if op in ("cmplt", "cmpne", "cmpeq"):
        t = srcs[0].dtype
        m = sel.sreg(sel.mask_dwords)
        cond = {"cmplt": "lt", "cmpne": "ne", "cmpeq": "eq"}[op]
        sel.emit(f"v_cmp_{cond}_{'i' if t.signed else 'u'}64", m, whole(sel, srcs[0]), whole(sel, srcs[1]))
        return Val("m", DType("bool"), m)
    out = sel.vreg(2)
    if op in ("add", "sub"):
        (alo, ahi), (blo, bhi) = halves(sel, srcs[0]), halves(sel, srcs[1])
        carry = sel.sreg(sel.mask_dwords)
        a_lo, b_lo = _vgpr_first(sel, alo, blo, op == "add")
        sel.emit("v_add_co_u32" if op == "add" else "v_sub_co_u32", out[0], carry, a_lo, b_lo)
        sel.emit("v_add_co_ci_u32" if op == "add" else "v_sub_co_ci_u32", out[1], carry, _v(sel, ahi), _v(sel, bhi),
                 carry)
    elif op in ("and", "or", "xor"):
        (alo, ahi), (blo, bhi) = halves(sel, srcs[0]), halves(sel, srcs[1])
        for j, (x, y) in enumerate(((alo, blo), (ahi, bhi))):
            sel.valu(f"v_{op}_b32", out[j], x, y)
    elif op == "neg":
        return select64(sel, "sub", [Val("c", d, value=0), srcs[0]], d)
    elif op == "mul":
        (alo, ahi), (blo, bhi) = halves(sel, srcs[0]), halves(sel, srcs[1])
        t1, t2 = sel.vreg(), sel.vreg()
        sel.valu("v_mul_lo_u32", out[0], alo, blo)
        sel.valu("v_mul_hi_u32", t1, alo, blo)
        sel.valu("v_mul_lo_u32", t2, alo, bhi)
        sel.emit("v_add_nc_u32", t1, t1, t2)
        sel.valu("v_mul_lo_u32", t2, ahi, blo)
        sel.emit("v_add_nc_u32", out[1], t1, t2)
    elif op in ("shl", "shr"):
        amount = srcs[1]
        amt = halves(sel, amount)[0] if amount.dtype.itemsize == 8 else sel.vsrc(amount)
        name = "v_lshlrev_b64" if op == "shl" else ("v_ashrrev_i64" if d.signed else "v_lshrrev_b64")
        sel.valu(name, out, amt, whole(sel, srcs[0]))
    elif op == "where":
        c, a, b = srcs
        mask = sel.mask(c)
        (alo, ahi), (blo, bhi) = halves(sel, a), halves(sel, b)
        sel.valu("v_cndmask_b32", out[0], blo, alo, mask)
        sel.valu("v_cndmask_b32", out[1], bhi, ahi, mask)
    elif op in ("max", "min"):
        m = sel.sreg(sel.mask_dwords)
        sel.emit(f"v_cmp_lt_{'i' if d.signed else 'u'}64", m, whole(sel, srcs[0]), whole(sel, srcs[1]))
        (alo, ahi), (blo, bhi) = halves(sel, srcs[0]), halves(sel, srcs[1])
        first, second = ((alo, ahi), (blo, bhi)) if op == "max" else ((blo, bhi), (alo, ahi))
        sel.valu("v_cndmask_b32", out[0], first[0], second[0], m)     # a < b: max takes b
        sel.valu("v_cndmask_b32", out[1], first[1], second[1], m)
    elif op == "mulacc":
        p = select64(sel, "mul", srcs[:2], d)
        return select64(sel, "add", [p, srcs[2]], d)
    else:
        raise sel.error(f"{op} on 64-bit integers is not supported yet")
    return Val("v", d, out)


def cast64(sel, v: Val, d: DType) -> Val:
    """Casts between 64-bit integers and 32-bit-held integers, bools or floats (both ways,
    rounded once)."""
    s = v.dtype
    if d.itemsize == 8 and d.is_int and s.is_float:       # via f64: exact for f32, f16, bf16
        return alu_f64.cast(sel, alu_f64.cast(sel, v, alu_f64.F64), d)
    if d.itemsize == 8 and d.is_int:
        if s.kind == "b":
            lo = sel.vgpr(v) if v.kind == "m" else sel.vsrc(v)
            out = sel.vreg(2)
            sel.emit("v_mov_b32", out[0], lo)
            sel.emit("v_mov_b32", out[1], 0)
            return Val("v", d, out)
        if s.is_int:
            if s.itemsize == 8:
                return Val(v.kind, d, v.reg)
            lo, hi = halves(sel, v)
            out = sel.vreg(2)
            sel.emit("v_mov_b32", out[0], lo)
            sel.emit("v_mov_b32", out[1], hi)
            return Val("v", d, out)
    if s.itemsize == 8 and s.is_int and d.is_float and v.kind != "c":
        return alu_f64.int64_to_float(sel, Val("v", s, whole(sel, v)) if v.kind == "s" else v, d)
    if s.itemsize == 8 and s.is_int:
        if d.kind == "b":
            m = sel.sreg(sel.mask_dwords)
            sel.emit("v_cmp_ne_u64", m, 0, whole(sel, v))
            return Val("m", d, m)
        if d.is_int:
            lo = v.reg[0]
            return narrow(sel, Val("v", d, lo)) if d.itemsize < 4 else Val("v", d, lo)
    raise sel.error(f"cast {s} -> {d} is not supported yet")


def _v(sel, x):
    """A VGPR operand (the carry-in form takes VGPRs or constants in its first sources)."""
    if getattr(x, "cls", None) == "v":
        return x
    out = sel.vreg()
    sel.emit("v_mov_b32", out, x)
    return out


def _vgpr_first(sel, a, b, commutative):
    if getattr(b, "cls", None) != "v" and getattr(a, "cls", None) == "v" and commutative:
        return b, a
    return a, _v(sel, b) if getattr(b, "cls", None) != "v" else b


def divide64(sel, op, srcs, d: DType) -> Val:
    """x / y or x % y on 64 bits, truncating (the remainder takes x's sign). Division by zero
    gives a quotient of all ones and the remainder x, as the 32-bit sequence does."""
    (xlo, xhi), (ylo, yhi) = halves(sel, srcs[0]), halves(sel, srcs[1])
    x, y = _pair(sel, xlo, xhi), _pair(sel, ylo, yhi)
    sx = sy = None
    if d.signed:
        (x, sx), (y, sy) = _magnitude(sel, x), _magnitude(sel, y)
    r = sel.vreg(2)
    sel.emit("v_mov_b32", r[0], 0)
    sel.emit("v_mov_b32", r[1], 0)
    q = [sel.vreg(), sel.vreg()]
    sel.emit("v_mov_b32", q[0], 0)
    sel.emit("v_mov_b32", q[1], 0)
    for i in range(63, -1, -1):
        top, ge, take, carry = (sel.sreg(sel.mask_dwords) for _ in range(4))
        shifted, diff, nr = sel.vreg(2), sel.vreg(2), sel.vreg(2)
        bit, qb, nq = sel.vreg(), sel.vreg(), sel.vreg()
        sel.emit("v_cmp_gt_i32", top, 0, r[1])                 # 2r would pass 2^64: always >= y
        sel.emit("v_lshlrev_b64", shifted, 1, r)
        sel.emit("v_bfe_u32", bit, x[i // 32], i % 32, 1)        # next bit of x
        sel.emit("v_or_b32", shifted[0], shifted[0], bit)
        sel.emit("v_cmp_ge_u64", ge, shifted, y)
        sel.emit(sel.mask_op("s_or_b32"), take, top, ge)
        sel.emit("v_sub_co_u32", diff[0], carry, shifted[0], y[0])
        sel.emit("v_sub_co_ci_u32", diff[1], carry, shifted[1], y[1], carry)
        sel.emit("v_cndmask_b32", nr[0], shifted[0], diff[0], take)
        sel.emit("v_cndmask_b32", nr[1], shifted[1], diff[1], take)
        sel.emit("v_cndmask_b32", qb, 0, 1, take)
        sel.emit("v_lshl_or_b32", nq, q[i // 32], 1, qb)
        q[i // 32], r = nq, nr
    out = sel.vreg(2)
    if op == "mod":
        res, sign = r, sx
    else:
        res, sign = q, None
        if d.signed:
            sign = sel.vreg()
            sel.emit("v_xor_b32", sign, sx, sy)
    if sign is None:
        sel.emit("v_mov_b32", out[0], res[0])
        sel.emit("v_mov_b32", out[1], res[1])
        return Val("v", d, out)
    t, carry = sel.vreg(2), sel.sreg(sel.mask_dwords)          # (res ^ sign) - sign
    sel.emit("v_xor_b32", t[0], res[0], sign)
    sel.emit("v_xor_b32", t[1], res[1], sign)
    sel.emit("v_sub_co_u32", out[0], carry, t[0], sign)
    sel.emit("v_sub_co_ci_u32", out[1], carry, t[1], sign, carry)
    return Val("v", d, out)


def _pair(sel, lo, hi):
    out = sel.vreg(2)
    sel.emit("v_mov_b32", out[0], lo)
    sel.emit("v_mov_b32", out[1], hi)
    return out


def _magnitude(sel, x):
    """|x| of a signed 64-bit pair and its sign (0 or all ones)."""
    sign, t, out, carry = sel.vreg(), sel.vreg(2), sel.vreg(2), sel.sreg(sel.mask_dwords)
    sel.emit("v_ashrrev_i32", sign, 31, x[1])
    sel.emit("v_xor_b32", t[0], x[0], sign)
    sel.emit("v_xor_b32", t[1], x[1], sign)
    sel.emit("v_sub_co_u32", out[0], carry, t[0], sign)
    sel.emit("v_sub_co_ci_u32", out[1], carry, t[1], sign, carry)
    return out, sign

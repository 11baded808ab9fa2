"""Runtime library of the generated semantics: value representation and the functions the
pseudocode calls, all numpy and vectorised over the batch.

Representation (chosen by emu/pcode/): integers of up to 64 bits are uint64 (unsigned /
bit types) or int64 (signed) arrays, evaluated at 64-bit width and truncated only when
stored or read through a typed accessor; floats are numpy float16/32/64; wider integers
(65'B(...)) are object arrays of Python ints; conditions are bool arrays.
Operands of up to 32 bits stay the machine's uint32 until an accessor widens them (`.f`
reinterprets them in place), and whole 32-bit results go back as uint32: statements whose
arithmetic is exact modulo 2**32 (emu/pcode/narrow.py) never leave uint32 at all.
"""
from __future__ import annotations

import functools
import math
import sys

import numpy as np

from . import rounding
from .rounding import two_product, two_sum
from .memory import LentMemory, SplitAddresses
from .options import current
from .semantics import SemanticsError

U64 = np.uint64
FLOAT = {16: np.float16, 32: np.float32, 64: np.float64}
UINT = {16: np.uint16, 32: np.uint32, 64: np.uint64}
_SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_ALL = (1 << 64) - 1
_LITTLE = sys.byteorder == "little"      # a uint64's dword k is its uint32 view's element k


def _mask(bits: int) -> int:
    return (1 << bits) - 1


# ---- raw bits <-> typed values -------------------------------------------------------

def raw(x) -> np.ndarray:
    """The bits of any value as uint64 (floats by their IEEE encoding, signed two's complement)."""
    kind = type(x)
    if kind is np.ndarray and x.dtype.kind in "uib":    # the usual cases first: one conversion
        return x.astype(U64, copy=False)
    if kind is np.uint64:           # a constant of the generated code (R.U64(4))
        return x
    if kind is np.int64 or kind is np.uint32:
        return x.astype(U64)
    if isinstance(x, (bool, np.bool_)):
        return U64(int(x))
    if isinstance(x, int):
        return U64(x & _ALL)
    if isinstance(x, float):
        return np.float64(x).view(U64)
    if isinstance(x, SplitAddresses):       # uint64 already (see memory.SplitAddresses)
        return x
    a = np.asarray(x)
    k = a.dtype.kind
    if k == "f":
        return a.view(UINT[a.dtype.itemsize * 8]).astype(U64)
    if k == "O":
        return (a & _ALL).astype(U64)
    return a.astype(U64, copy=False)      # callers never write into the result


def access(x, kind: str, bits: int):
    """`x.<kind><bits>`: reinterpret the low `bits` bits of x as that type."""
    if type(x) is np.ndarray and kind != "f" and x.dtype.kind == "u" and x.dtype.itemsize * 8 == bits:
        # a register of exactly that width (the usual S0.u / S0.i): no mask, one conversion
        return x.view(_SIGNED[bits]).astype(np.int64, copy=False) if kind == "i" else x.astype(U64, copy=False)
    if kind == "f":
        a = np.asarray(x)
        if a.dtype == UINT[bits]:           # already the register's width: reinterpret in place
            return a.view(FLOAT[bits])
        return raw(x).astype(UINT[bits]).view(FLOAT[bits])     # the narrowing keeps the low bits
    r = raw(x)
    if bits < 64:
        r = r & U64(_mask(bits))
    if kind == "i":
        return sign_extend(r, bits)
    return r


def sign_extend(r, bits: int):
    r = raw(r)
    if bits >= 64:
        return r.view(np.int64) if isinstance(r, np.ndarray) else np.int64(np.uint64(r).view(np.int64))
    r = r & U64(_mask(bits))
    sign = U64(1 << (bits - 1))
    return ((r ^ sign).astype(np.int64) - np.int64(1 << (bits - 1)))


def store(x, kind: str, bits: int, narrow: bool = False):
    """Raw uint64 bits (wide: Python ints) of value x written to a location typed kind/bits.
    narrow: a whole operand's new value, whose float bits may stay uint32 (<= 32 bits) or
    uint64 (f64) without a widening copy."""
    if type(x) is np.ndarray and kind != "f" and bits <= 64 and x.dtype.kind in "uib":     # the usual integer store
        return raw(x) & U64(_mask(bits)) if bits < 64 else raw(x)
    a = np.asarray(x) if not isinstance(x, (int, float)) else x
    if kind == "f":
        if isinstance(a, int):          # 32'F(0xffc00000)-style bit patterns were resolved earlier
            a = float(a)
        src = np.asarray(a)
        f = src.astype(FLOAT[bits], copy=False)
        if _ROUNDING.get() is not None and src.dtype.kind == "f" and src.dtype.itemsize * 8 > bits:
            rounding.refuse_narrowing(src, f, bits)      # the pseudocode's implicit conversion
        v = f.view(UINT[bits])
        if narrow:
            if bits < 32:
                return v.astype(np.uint32)
            # a view of an array the semantic computed (f owns its data) is already owned
            return v if f.base is None else owned(v)
        return v.astype(U64)
    if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
        if kind == "bf" and bits == 16:      # a float into a bf16 location: converted (nearest even)
            v = f32_to_bf16(a)
            return v.astype(np.uint32) if narrow else v
        a = to_int(a, kind == "i", bits)
    if bits > 64:
        return wide(a) & _mask(bits)
    return raw(a) & U64(_mask(bits)) if bits < 64 else raw(a)


def saturate(x, kind: str, bits: int):
    """Raw bits of integer value x clamped to the range of a kind/bits location (integer clamp).
    x is the exact result held at 64 bits: a uint64 that wrapped below zero is read as the
    negative int64 it stands for (|x| < 2**63 for every sub-64-bit clamp result)."""
    a = np.asarray(x)
    if a.dtype.kind == "f":
        return store(a, kind, bits)
    v = a.view(np.int64) if a.dtype == U64 else a.astype(np.int64)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "i" else (0, (1 << bits) - 1)
    return raw(np.clip(v, lo, hi)) & U64(_mask(bits))


def to_int(x, signed: bool, bits: int):
    """Float -> integer value conversion, truncating toward zero, saturating (NaN -> 0)."""
    x = np.asarray(x, np.float64)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    t = np.trunc(np.nan_to_num(x, nan=0.0))
    t = np.clip(t, lo, hi)
    return t.astype(np.int64) if signed else t.astype(np.float64).astype(U64) if bits < 64 else _f2u64(t)


def _f2u64(t):
    big = t >= 2.0 ** 63
    return np.where(big, (t - 2.0 ** 63).astype(U64) + U64(1 << 63), np.where(big, 0, t).astype(U64))


def U(x):
    return raw(x)


def I(x):
    if isinstance(x, int):
        return np.int64(x)
    a = np.asarray(x)
    return a if a.dtype == np.int64 else a.astype(np.int64)


def F(x, bits: int):
    a = np.asarray(x)
    out = a.astype(FLOAT[bits])
    if a.dtype.kind == "f" and a.dtype.itemsize * 8 < bits:
        out = _keep_signalling(a, out)
    elif a.dtype.kind == "f" and a.dtype.itemsize * 8 > bits and _ROUNDING.get() is not None:
        rounding.refuse_narrowing(a, out, bits)
    return out


_MANTISSA = {16: 10, 32: 23, 64: 52}


def _keep_signalling(a, wide):
    """A float widened by `64'F(S0.f)` keeps a signalling NaN signalling: the host's
    conversion sets the quiet bit (an IEEE convert signals and quiets), but the pseudocode
    widens only to classify (isSignalNAN(64'F(S0.f)) of V_CMP_CLASS, min/max, med3). The NaN
    lanes get sign and payload bit for bit, shifted into the wider mantissa."""
    nan = np.isnan(a)
    if not nan.any():
        return wide
    nb, wb = a.dtype.itemsize * 8, wide.dtype.itemsize * 8
    bits = a.view(UINT[nb]).astype(U64)
    payload = (bits & U64(_mask(_MANTISSA[nb]))) << U64(_MANTISSA[wb] - _MANTISSA[nb])
    sign = (bits >> U64(nb - 1)) << U64(wb - 1)
    exact = (sign | U64(_mask(wb - 1 - _MANTISSA[wb]) << _MANTISSA[wb]) | payload).astype(UINT[wb]).view(FLOAT[wb])
    return np.where(nan, exact, wide)


def wide(x):
    """Object array of Python ints (for values wider than 64 bits)."""
    a = np.asarray(x)
    if a.dtype.kind == "O":
        return a
    if a.dtype.kind == "i":
        return a.astype(object)
    return raw(a).astype(object) if a.ndim else np.asarray(int(raw(a)), object)


def cast_int(x, signed: bool, bits: int):
    """N'U(x) / N'I(x) / N'B(x) of an integer or bool x."""
    if bits > 64:
        return wide(x)
    a = np.asarray(x)
    if a.dtype.kind == "O":
        a = (a & _mask(64)).astype(U64)
    if signed:
        return sign_extend(raw(a), bits) if bits < 64 else I(a)
    return raw(a) & U64(_mask(bits)) if bits < 64 else raw(a)


def bits_of(x, hi, lo):
    """x[hi:lo] (hi < lo: the bits in reverse order, as in s_brev's S0.u[0 : 31])."""
    if type(hi) is int and type(lo) is int and 0 <= hi - lo < 64 and type(x) is np.ndarray \
            and x.dtype.kind in "uib" and current().shift_range_shortcuts:
        # the usual constant field of an integer array (the general path below, without its checks)
        return (x.astype(U64, copy=False) >> U64(lo)) & U64(_mask(hi - lo + 1))
    if isinstance(hi, (int, np.integer)) and isinstance(lo, (int, np.integer)) and hi < lo:
        n = lo - hi + 1
        v = bits_of(x, lo, hi)
        return reverse_bits(v, n)
    a = np.asarray(x)
    if a.dtype.kind == "O":
        return ((a >> int(lo)) & _mask(int(hi) - int(lo) + 1)).astype(U64) if int(hi) - int(lo) < 64 else (a >> int(lo)) & _mask(int(hi) - int(lo) + 1)
    r = raw(x)
    if isinstance(hi, (int, np.integer)) and isinstance(lo, (int, np.integer)) and hi - lo < 64 \
            and current().shift_range_shortcuts:
        return (r >> U64(lo)) & U64(_mask(int(hi) - int(lo) + 1))     # constant field: no shift guards
    width = raw(hi).astype(np.int64) - raw(lo).astype(np.int64) + 1
    return shr(r, lo) & (shl(U64(1), width) - U64(1))


def set_bits(old, hi, lo, value):
    """old with bits hi:lo replaced by value (old is raw uint64 or a wide object array)."""
    o = np.asarray(old)
    if o.dtype.kind == "O":
        m = _mask(int(hi) - int(lo) + 1) << int(lo)
        return (o & ~m) | ((wide(value) << int(lo)) & m)
    width = raw(hi).astype(np.int64) - raw(lo).astype(np.int64) + 1
    m = shl(shl(U64(1), width) - U64(1), lo)
    return (raw(old) & ~m) | (shl(raw(value), lo) & m)


def reverse_bits(v, n: int = 32):
    v = raw(v)
    out = np.zeros_like(v)
    for i in range(n):          # over bit positions of one value, vectorised over lanes
        out |= ((v >> U64(i)) & U64(1)) << U64(n - 1 - i)
    return out


def _in_shift_range(n: np.ndarray) -> bool:
    """All shift counts in 0..63 (checked on the counts, which are usually per-wave or one
    constant, so much smaller than the shifted values)."""
    if n.size == 1:         # one count (a constant or a uniform register): no reductions
        return current().shift_range_shortcuts and 0 <= n.item() < 64
    return n.size > 0 and current().shift_range_shortcuts and int(n.min()) >= 0 and int(n.max()) < 64


def shl(x, n):
    """x << n at 64-bit width; shifts >= 64 give 0 (not the host's shift-count wrap)."""
    n = np.asarray(n).astype(np.int64)
    a = np.asarray(x)
    if a.dtype.kind == "O":
        return a << n.astype(object)
    signed = a.dtype == np.int64
    r = raw(a)
    if _in_shift_range(n):      # every count < 64 (the usual 5-bit field): the host shift is exact
        out = r << n.astype(U64)
    else:
        out = np.where(n >= 64, U64(0), r << np.minimum(n, 63).astype(U64))
    return out.view(np.int64) if signed else out


def shr(x, n):
    """x >> n: arithmetic for signed values, logical otherwise; shifts >= 64 saturate."""
    n = np.asarray(n).astype(np.int64)
    a = np.asarray(x)
    if a.dtype.kind == "O":
        return a >> n.astype(object)
    if a.dtype == np.int64:
        return a >> np.minimum(n, 63)
    r = raw(a)
    if _in_shift_range(n):
        return r >> n.astype(U64)
    return np.where(n >= 64, U64(0), r >> np.minimum(n, 63).astype(U64))


def truth(x):
    a = np.asarray(x)
    return a if a.dtype == bool else a != 0


def where(cond, a, b):
    if cond is None:
        return a
    if isinstance(cond, (bool, np.bool_)):
        return a if cond else b
    ta, tb = np.asarray(a), np.asarray(b)
    if ta.dtype != tb.dtype and ta.dtype.kind != "O" and tb.dtype.kind != "O":
        dtype = np.result_type(ta.dtype, tb.dtype)
        if {ta.dtype.kind, tb.dtype.kind} == {"i", "u"}:
            dtype = U64
        ta, tb = ta.astype(dtype), tb.astype(dtype)
    return select(cond, ta, tb)


# the least lanes for which select blends: below it the blend's three passes cost more than one where
BLEND_LANES = 1024
_UINT_OF = {4: np.uint32, 8: np.uint64, 2: np.uint16, 1: np.uint8}


def select(cond, a, b):
    """np.where(cond, a, b) for a per-lane bool condition. With EmuOptions.blend_selects, two
    operands of one numeric dtype (ints, or floats through their bits) are blended as
    b ^ ((a ^ b) * cond): numpy's where branches per element and costs ~4 ns a lane when the
    condition is not uniform (a compare of data), the blend's three branch-free passes ~0.5 ns.
    Every bit of the chosen operand is kept (a float's NaN payload too: only its bits are
    combined), so the result is np.where's, bit for bit."""
    if type(cond) is np.ndarray and cond.dtype == np.bool_ and cond.size >= BLEND_LANES \
            and current().blend_selects:
        ta, tb = np.asarray(a), np.asarray(b)
        if ta.dtype == tb.dtype and ta.dtype.kind in "uif" and ta.dtype.itemsize in _UINT_OF:
            bits = _UINT_OF[ta.dtype.itemsize]
            ua, ub = ta.view(bits), tb.view(bits)
            out = np.bitwise_xor(ua, ub)
            shape = np.broadcast_shapes(out.shape, cond.shape)
            if out.shape != shape:
                out = np.broadcast_to(out, shape).copy()
            out *= cond.astype(bits)
            out ^= ub
            return out.view(ta.dtype)
    return np.where(cond, a, b)


def AND(a, b):
    return np.logical_and(a, b) if not (a is None or b is None) else (b if a is None else a)


def pick(elements: list, index):
    """elements[index] with a per-lane index (declared arrays of the pseudocode)."""
    idx = np.asarray(index).astype(np.int64)
    if idx.ndim == 0:
        return elements[int(idx)]
    # the index and the elements broadcast together: a per-lane index into a table of
    # constants or of per-wave values (SGPR sources, shape (W, 1)) gives a per-lane result
    idx, *values = np.broadcast_arrays(idx, *[np.asarray(e) for e in elements])
    stacked = np.stack(values)
    idx = np.clip(idx, 0, len(elements) - 1)
    return np.take_along_axis(stacked, idx[None], 0)[0]


def loop_bound(x) -> int:
    a = np.asarray(x).reshape(-1)
    if a.size and (a != a[0]).any():
        raise SemanticsError("loop bound differs between lanes")
    return int(a[0]) if a.size else 0


def concat(parts):
    """{a, b, ...}: parts as (value, bits), most significant first."""
    total = sum(b for _, b in parts)
    if total > 64:
        out = np.asarray(0, object)
        for v, b in parts:
            out = (out << b) | (wide(raw(v)) & _mask(b))
        return out
    out = U64(0)
    for v, b in parts:
        out = (out << U64(b)) | (raw(v) & U64(_mask(b)))
    return out


def result_bits(ctx, value, bits: int):
    """A float result the code writes as bits of a wider register (CDNA's legacy f16,
    `D0 = { 16'0, tmp.f16 }`) with its denormals flushed to zero of the same sign in the
    waves whose MODE.FP_DENORM clears the output bit of its width (semantics.Semantic.execute
    flushes a whole `D0.f16` result so)."""
    from .semantics import _denorm_flush, _flush
    flush = _denorm_flush(ctx.mode, (("", bits),))
    if flush is None or flush[bits][1] is None:
        return value
    return _flush(value, bits, flush[bits][1])


def split(value, widths):
    """Inverse of concat for `{ D1.u1, D0.u64 } = v`: values for each part, msb first."""
    a = np.asarray(value)
    out = []
    shift = 0
    for b in reversed(widths):
        part = (a >> shift) & _mask(b) if a.dtype.kind == "O" else shr(raw(a), shift) & U64(_mask(b))
        out.append(np.asarray(part).astype(U64) if b <= 64 else part)
        shift += b
    return out[::-1]


# ---- floating point helpers -----------------------------------------------------------

def fbits(x) -> int:
    return np.asarray(x).dtype.itemsize * 8


def _exp_bits(x):
    b = fbits(x)
    man = {16: 10, 32: 23, 64: 52}[b]
    return man, {16: 0x1F, 32: 0xFF, 64: 0x7FF}[b]


def isNAN(x):
    return np.isnan(x)


def isQuietNAN(x):
    man, _ = _exp_bits(x)
    return np.isnan(x) & ((raw(x) >> U64(man - 1)) & U64(1)).astype(bool)


def isSignalNAN(x):
    return np.isnan(x) & ~isQuietNAN(x)


def cvtToQuietNAN(x):
    man, _ = _exp_bits(x)
    a = np.asarray(x)
    q = (raw(a) | U64(1 << (man - 1))).astype(UINT[fbits(a)]).view(a.dtype)
    return np.where(np.isnan(a), q, a)


def isINF(x):
    return np.isinf(x)


def sign(x):
    """Sign bit of a float (1 for -0.0 and negative NaNs) or signed integer."""
    a = np.asarray(x)
    if a.dtype.kind == "f":
        return (raw(a) >> U64(fbits(a) - 1)).astype(U64)
    return (a < 0).astype(U64)


def exponent(x):
    """Biased exponent field of a float."""
    man, emask = _exp_bits(x)
    return ((raw(x) >> U64(man)) & U64(emask)).astype(np.int64)


def mantissa(x):
    """frexp mantissa in [0.5, 1) with the sign of x."""
    return np.frexp(x)[0].astype(np.asarray(x).dtype)


def is_denorm(x):
    a = np.asarray(x)
    return (exponent(a) == 0) & (a != 0)


def isEven(x):
    return (np.asarray(x) % 2) == 0


def fabs(x):
    a = np.asarray(x)
    return np.abs(a) if a.dtype.kind in "fi" else a


_BLOCK = 1 << 15      # lanes per block of a large fma: its float64 temporaries stay in cache


def fma(a, b, c, out=None):
    """Fused multiply-add with a single rounding: f16/f32 via exact float64 products and a
    float64 sum whose double rounding is repaired only where it can matter; f64 vectorised
    with an exact product and round-to-odd (_fma64). A large batch is done in blocks of
    waves: a dozen multi-megabyte float64 temporaries otherwise cost more in memory traffic
    and page faults than the arithmetic. `out`: an array of the result's shape and type to
    write into (float_into's destination register), ignored otherwise."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a.dtype, b.dtype, c.dtype)
    if _ROUNDING.get() is not None:     # a directed MODE.FP_ROUND (emu/rounding.py)
        f = rounding.field(np.dtype(dtype).itemsize * 8)
        if f is not None:
            token = _ROUNDING.set(None)
            try:
                r = fma(a, b, c)
            finally:
                _ROUNDING.reset(token)
            return rounding.fma(a, b, c, r, f)
    if out is not None:     # v_fmac's addend is its destination: first_nan reads the operands after the result
        a, b, c = (x.copy() if np.may_share_memory(out, x) else x for x in (a, b, c))
    if not current().fma_shortcuts:
        return first_nan(_fma_plain(a, b, c, dtype), a, b, c)
    if dtype == np.float64:
        return first_nan(_fma_blocks(a, b, c, dtype, out), a, b, c)
    seen: list = []         # _fma_narrow notes a NaN result there (its reduction finds it for free)
    if a.ndim and max(a.size, b.size, c.size) <= 2 * _BLOCK:
        # a batch of a few waves (every narrow launch's step): one block, straight into
        # _fma_narrow (the exactness proof's reductions and the blocking cost more than they save)
        result = _fma_narrow(a, b, c, dtype, out, seen=seen)
    else:
        result = _fma_blocks(a, b, c, dtype, out, seen)
    return first_nan(result, a, b, c) if seen else result


def first_nan(out, *operands):
    """The NaN rule of every float operation with several operands: where the result `out` is
    NaN, it is the first NaN operand (S0, then S1, ...), quieted, sign and payload kept; an
    invalid operation without NaN operands (inf - inf, 0 * inf) gives the default -QNaN.
    Both manuals state it for the float add (RDNA4 ISA 13.3 "NaN Handling": "if SRC0 ==
    NaN: result = QNaN of SRC0 (preserve sign); else if SRC1 == NaN: result = QNaN of SRC1;
    ... -QNAN (FP32: 0xFFC00000)"; CDNA3 9.2.3: "NaN + NaN = SRC0's NaN, converted to QNaN"),
    and IEEE 754 leaves the choice open. numpy's loops choose among NaN operands by their own
    operand order, which differs between loops (a broadcast operand comes first in some), so
    a batch of waves and one wave at a time kept different NaNs: the choice is made here, the
    same whatever the shapes. `out` (a fresh result) is fixed in place and returned."""
    if np.ndim(out) == 0:
        return first_nan(np.asarray(out).reshape(1), *operands)[0]
    if not any_nan(out):
        return out
    nbits = fbits(out)
    pick = np.full(out.shape, _DEFAULT_NAN[nbits], UINT[nbits]).view(out.dtype)
    for x in reversed(operands):
        x = np.broadcast_to(np.asarray(x).astype(out.dtype), out.shape)
        pick = np.where(np.isnan(x), x, pick)
    bits = pick.view(UINT[nbits]) | UINT[nbits](_QUIET[nbits])
    np.copyto(out, bits.view(out.dtype), where=np.isnan(out))
    return out


def default_nans(x: np.ndarray) -> np.ndarray:
    """Float array x with every NaN the default quiet NaN of its type (positive, top fraction bit
    only: f32 0x7FC00000). The matrix instructions' sums (numpy's matmul and einsum in float64)
    keep whichever NaN their loop meets, which depends on how numpy blocks the batch, so a batch
    of waves would keep another NaN than one wave at a time; the manuals state no NaN rule for
    them (CDNA3 / CDNA4 7.1, RDNA3 7.9), and MMA-Sim leaves CDNA3's NaN bits unmodelled."""
    nan = np.isnan(x)
    return np.where(nan, x.dtype.type(np.nan), x) if nan.any() else x


def any_nan(x: np.ndarray) -> bool:
    """Whether a float array holds a NaN. With EmuOptions.nan_by_dot, an f32/f64 array's sum
    of squares (one dot product: no bool temporary, no second reduction): each square is a
    NaN, or >= 0 up to +inf, so the sum is NaN exactly when an element is (overflow gives
    +inf, never NaN; no inf - inf can arise)."""
    if x.dtype.char in "fd" and current().nan_by_dot:
        total = np.vdot(x, x)
        return bool(total != total)
    return bool(np.isnan(x).any())


_QUIET = {16: 1 << 9, 32: 1 << 22, 64: 1 << 51}
_DEFAULT_NAN = {16: 0xFE00, 32: 0xFFC0_0000, 64: 0xFFF8_0000_0000_0000}     # -QNaN


def fadd(a, b):
    """S0 + S1 of floats, NaN by `first_nan`; likewise fsub, fmul, fdiv. fadd, fsub and fmul
    round as MODE.FP_ROUND says while a directed mode is in force (emu/rounding.py)."""
    r = first_nan(np.add(a, b), a, b)
    if _ROUNDING.get() is None:
        return r
    f = rounding.field(fbits(r))
    return r if f is None else rounding.add(a, b, r, f)


def fsub(a, b):
    r = first_nan(np.subtract(a, b), a, b)
    if _ROUNDING.get() is None:
        return r
    f = rounding.field(fbits(r))
    return r if f is None else rounding.add(a, b, r, f, negate=True)


def fmul(a, b):
    r = first_nan(np.multiply(a, b), a, b)
    if _ROUNDING.get() is None:
        return r
    f = rounding.field(fbits(r))
    return r if f is None else rounding.mul(a, b, r, f)


_ROUNDING = rounding.ROUNDING


def fdiv(a, b):
    """a / b, rounded as MODE.FP_ROUND says while a directed mode is in force (only code that
    classifies the quotient runs so: emu/rounding.directed_code)."""
    r = first_nan(np.true_divide(a, b), a, b)
    if _ROUNDING.get() is None:
        return r
    f = rounding.field(fbits(r))
    return r if f is None else rounding.div(a, b, r, f)


def _fma_blocks(a, b, c, dtype, out=None, seen=None):
    """fma's fast paths (EmuOptions.fma_shortcuts), block by block."""
    one = _fma64 if dtype == np.float64 else _fma_narrow
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    if out is not None and (out.shape != shape or out.dtype != dtype):
        out = None
    size = math.prod(shape)
    if not shape:
        return one(a, b, c, dtype)
    extra = {} if one is _fma64 else {"seen": seen}
    rows = max(1, _BLOCK * shape[0] // size)
    if one is _fma_narrow:      # a uniform operand (one value) is converted once, not per block
        if _sums_exact(a, b, c, dtype):
            return _round_exact_sums(a, b, c, np.empty(shape, dtype) if out is None else out, rows)
        a, b, c = (x.astype(np.float64) if x.size == 1 else x for x in (a, b, c))
    if size <= 2 * _BLOCK:
        return one(a, b, c, dtype, **extra) if out is None else one(a, b, c, dtype, out=out, shape=shape, **extra)
    out = np.empty(shape, dtype) if out is None else out
    for i in range(0, shape[0], rows):
        part = [x[i:i + rows] if x.ndim == len(shape) and x.shape[0] > 1 else x for x in (a, b, c)]
        block = out[i:i + rows]
        one(*part, dtype, out=block, shape=block.shape, **extra)     # each block rounds straight into the result
    return out


def _fma_plain(a, b, c, dtype):
    """fma without shortcuts (EmuOptions.fma_shortcuts off): f16/f32 as the float64 sum of the
    exact float64 product, rounded to odd on every lane and then once to the narrow type
    (the rounding to odd keeps a double rounding from deciding a tie); f64 by _fma64."""
    if dtype == np.float64:
        return _fma64(a, b, c)
    a, b, c = (x.astype(np.float64) for x in np.broadcast_arrays(a, b, c))
    p = a * b                               # exact: at most 2 * 24 significant bits
    s = p + c
    return np.asarray(_round_to_odd_sum(p, c, s)).astype(dtype)


def _round_exact_sums(a, b, c, out, rows: int):
    """out = a * b + c when every float64 sum is exact (_sums_exact): per block of `rows`
    waves, a multiplicand converted into a float64 block, the product and the sum formed in
    place and rounded once into `out` (four plain passes: cheaper than ufuncs that convert
    their operands as they go)."""
    a, b, c = (x.astype(np.float64) if x.size == 1 else x for x in (a, b, c))
    work = np.empty((min(rows, out.shape[0]),) + out.shape[1:])
    for i in range(0, out.shape[0], rows):
        block = out[i:i + rows]
        t = work[:len(block)]
        a_, b_, c_ = (x[i:i + rows] if x.ndim == out.ndim and x.shape[0] > 1 else x for x in (a, b, c))
        first, second = (b_, a_) if a_.size == 1 else (a_, b_)
        np.copyto(t, first)
        np.multiply(t, second, out=t)       # exact (<= 48 significant bits)
        np.add(t, c_, out=t)                # exact (_sums_exact)
        np.copyto(block, t)                 # the one rounding
    return out


def _sums_exact(a, b, c, dtype) -> bool:
    """Is every a * b + c of a narrow fma exactly a float64 (so that rounding the float64 sum
    once is the fused result, with no midpoint test)? Decided for the whole batch from a
    few reductions: every value of an operand is a multiple of its granule (a power of two:
    a one-value operand's lowest set bit; for an array, the ulp at its smallest magnitude,
    or the narrow type's smallest denormal), so each a * b + c is a multiple of
    g = min(ga * gb, gc), and any such multiple below 2**53 * g is a float64. Tried only
    when a multiplicand is one value (an SGPR or constant): with two per-lane
    multiplicands, products of up to 48 significant bits rarely pass. Zeros, infinities
    and NaN decline (the midpoint test handles them)."""
    if a.size != 1 and b.size != 1:
        return False
    info = np.finfo(dtype)
    bounds = [_granule_and_max(x, info.nmant, float(info.smallest_subnormal)) for x in (a, b, c)]
    if None in bounds:
        return False
    (ga, am), (gb, bm), (gc, cm) = bounds
    # 2**51: a margin for the rounding of am * bm + cm itself
    return am * bm + cm <= 2.0 ** 51 * min(ga * gb, gc)


def _granule_and_max(x, nmant: int, finest: float):
    """(a power of two every value of x is a multiple of, the largest |x|), or None when x
    holds a zero, an infinity or a NaN."""
    if x.size == 1:
        v = abs(float(x.reshape(-1)[0]))
        if not 0.0 < v < math.inf:
            return None
        n, d = v.as_integer_ratio()           # d is a power of two
        return (n & -n) / d, v
    m = np.abs(x)
    lo, hi = float(m.min()), float(m.max())
    if not (lo > 0.0 and hi < math.inf):      # NaN fails both
        return None
    # |x| >= lo: x's exponent is at least lo's, so x is a multiple of lo's ulp
    return max(math.ldexp(1.0, math.frexp(lo)[1] - 1 - nmant), finest), hi


def _fma_narrow(a, b, c, dtype, out=None, shape=None, seen=None):
    """f16/f32 fma of one block (see fma), into `out` if given (a block of the result, of
    `shape`). Operands already float64 are one-value operands fma converted for every block:
    never written (only arrays of the full shape are). A NaN result appends True to `seen`."""
    # operands are converted before broadcasting: a per-wave SGPR stays (W, 1) until the
    # product (converting inside a mixed-type ufunc's loop costs more than a conversion pass)
    fresh = a.dtype != np.float64             # a is then a conversion of ours, free to write
    a = a.astype(np.float64, copy=fresh)
    b = b.astype(np.float64, copy=b.dtype != np.float64)
    c = c.astype(np.float64, copy=c.dtype != np.float64)
    # exact (<= 48 significant bits)
    p = np.multiply(a, b, out=a) if fresh and a.shape == b.shape else a * b
    s = p + c
    if s.ndim == 0:
        if seen is not None and s != s:
            seen.append(True)
        return _round_to_odd_sum(p, c, s).astype(dtype)
    shape = s.shape
    if out is None or out.shape != shape or out.dtype != dtype:
        out = s.astype(dtype)
    else:
        out[...] = s
    # Rounding s (p + c rounded to f64) to the narrow type gives the fused result unless s
    # sits exactly on a midpoint of the narrow type: every midpoint is an f64 value, so the
    # f64 rounding never moves the sum across one. A midpoint of normal results has the f64
    # mantissa bit just below the narrow mantissa set and every lower bit clear (the
    # overflow threshold too): shifting those bits to the top leaves exactly the sign bit,
    # the least int64, so one minimum over the shifted bits says whether any lane is one.
    # Results in the narrow denormal range have fewer mantissa bits, so those lanes are all
    # candidates (one minimum over |out| first: usually there are none). The 8-byte scratch
    # array serves every step: fresh multi-megabyte temporaries cost page faults.
    below, tiny = _NARROW_FMA[dtype]
    scratch = np.left_shift(s.view(U64), U64(63 - below))
    hard = scratch == U64(1 << 63) if scratch.view(np.int64).min() == _INT64_MIN else None
    magnitude = np.abs(out, out=scratch.reshape(-1).view(dtype)[:out.size].reshape(out.shape))
    lowest = magnitude.min()
    if lowest != lowest:            # a NaN lane (fma picks its payload); fmin: NaN lanes do not hide the rest
        if seen is not None:
            seen.append(True)
        lowest = np.fmin.reduce(magnitude, axis=None)
    if lowest <= tiny:
        tiny_lanes = magnitude <= tiny
        hard = tiny_lanes if hard is None else hard | tiny_lanes
    if hard is not None and hard.any():
        # Only inexact sums can be double-rounded. Exact sums are common (short operands),
        # and then many lanes look like midpoints, so exactness is tested on the whole batch
        # without picking lanes out (cheaper than gathering the ~30% candidates of short
        # operands): s == p + c exactly iff s - p == c and s - c == p (if
        # not, the error is a non-zero multiple of the finer of the two ulps, too large for
        # the subtraction that recovers the finer operand to round back to it).
        t = np.subtract(s, p, out=scratch.view(np.float64))
        inexact = t != c
        np.subtract(s, c, out=t)
        inexact |= t != p
        hard &= inexact
        if hard.any():
            hard = np.nonzero(hard)
            p, c = np.broadcast_to(p, shape), np.broadcast_to(c, shape)
            out[hard] = _round_to_odd_sum(p[hard], c[hard], s[hard]).astype(dtype)
    return out


_INT64_MIN = np.int64(-1 << 63)
# per narrow type: f64 mantissa bits under its half-ulp bit, its smallest normal
_NARROW_FMA = {np.dtype(t): (52 - np.finfo(t).nmant - 1, np.finfo(t).tiny) for t in (np.float16, np.float32)}


def _into_owned(ufunc, x, y, shape=None):
    """ufunc(x, y) written into x or y when one of them (arrays the caller made) already has
    the result's shape: one multi-megabyte allocation fewer."""
    shape = np.broadcast_shapes(x.shape, y.shape) if shape is None else shape
    for z in (y, x):
        if z.shape == shape and z.ndim:
            return ufunc(x, y, out=z)
    return ufunc(x, y)


def _round_to_odd_sum(p, c, s):
    """p + c rounded to f64 with round-to-odd (s = p + c rounded to nearest): a narrower
    rounding of the result then equals the single rounding of the exact sum."""
    bb = s - p
    err = (p - (s - bb)) + (c - bb)          # TwoSum: the exact sum is s + err
    inexact = (err != 0) & np.isfinite(s)
    toward_zero = np.where(np.sign(err) == np.sign(s), s, np.nextafter(s, 0.0))
    odd = (toward_zero.view(U64) | U64(1)).view(np.float64)
    return np.where(inexact, odd, s)


_FMA64_SAFE = (2.0 ** -450, 2.0 ** 450)     # |a|, |b| here (and |c| < 2**900): no intermediate under/overflows


def _add_round_to_odd(x, y):
    """x + y rounded to odd: the neighbour with an odd last mantissa bit unless exact."""
    s, e = two_sum(x, y)
    step = (e != 0) & ((s.view(U64) & U64(1)) == 0)    # inexact and even: the odd one is toward x + y
    return np.where(step, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


def _fma64(a, b, c, dtype=np.float64, out=None, shape=None):
    """f64 a * b + c with one rounding, vectorised: Boldo and Melquiond's emulation (IEEE
    Trans. Computers 57(4), 2008): the exact product uh + ul, the exact sum th + tl of c and
    uh, the low parts added with rounding to odd, then one rounding to nearest of th + v.
    It needs every intermediate free of underflow and overflow, which magnitudes inside
    _FMA64_SAFE guarantee; zero products follow IEEE's signed-zero sum, and the rare other
    lanes (huge, tiny, non-finite) are done per element with exact rationals. `out`: a block
    of the caller's result to write into."""
    into = out
    a, b, c = (x.astype(np.float64, copy=False) for x in np.broadcast_arrays(a, b, c))
    uh, ul = two_product(a, b)
    th, tl = two_sum(c, uh)
    out = th + _add_round_to_odd(tl, ul)
    zero = (a == 0) | (b == 0)
    lo, hi = _FMA64_SAFE
    in_range = ((np.abs(a) >= lo) & (np.abs(a) <= hi) & (np.abs(b) >= lo) & (np.abs(b) <= hi)
                & ((c == 0) | ((np.abs(c) >= lo * lo) & (np.abs(c) <= hi * hi))))
    out = np.where(zero, a * b + c, out)               # an exact +-0 product: plain IEEE addition
    rare = np.nonzero(~zero & ~in_range)
    if rare[0].size:
        out[rare] = [_fma64_exact(float(x), float(y), float(z)) for x, y, z in zip(a[rare], b[rare], c[rare])]
    return out if into is None else np.copyto(into, out) or into


def _fma64_exact(a: float, b: float, c: float) -> float:
    """One element through exact rationals (non-finite operands: IEEE's a * b + c; a finite
    product past the largest double is exact too: max * 2 - max is max)."""
    from fractions import Fraction
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    return _round_fraction(exact) if exact != 0 else a * b + c


def _round_fraction(q):
    try:
        return float(q)         # Fraction -> float rounds to nearest even correctly
    except OverflowError:
        return math.inf if q > 0 else -math.inf     # rounds past the largest double


def ldexp(x, e):
    """x * 2**e rounded once to x's type. The exponent goes to numpy as int32 (its int64 loop
    costs ten times more), saturated: every format spans fewer than 2**31 binades, so an
    exponent beyond int32 scales like int32's extreme (a clip to a smaller bound would not:
    the smallest f64 denormal times 2**2100 overflows)."""
    a, n = np.asarray(x), np.asarray(e)
    if n.dtype != np.int32:
        n = n if n.dtype.kind == "i" else n.astype(np.int64)
        if n.size and (n.min() < _INT32_MIN or n.max() > _INT32_MAX):
            n = np.clip(n, _INT32_MIN, _INT32_MAX)
        n = n.astype(np.int32)
    r = np.ldexp(a, n).astype(a.dtype, copy=False)
    if _ROUNDING.get() is None or a.dtype.kind != "f":
        return r
    f = rounding.field(fbits(r))
    return r if f is None else rounding.ldexp(a, n, r, f)


_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def power(base, exp):
    """`2.0F ** n`: exact powers of two via ldexp; other bases with numpy power."""
    b = np.asarray(base)
    if np.asarray(exp).dtype.kind in "iu" or isinstance(exp, int):
        if b.dtype.kind == "f" and np.all(b == 2.0):
            return ldexp(np.ones_like(b), exp)
    if _ROUNDING.get() is not None and b.dtype.kind == "f":
        raise rounding.NotModelled("MODE.FP_ROUND asks a directed rounding and the pseudocode raises a float to a "
                                   "power other than 2.0 ** integer, whose directed result the emulator does not model")
    return first_nan(np.power(b, exp), b, exp) if b.dtype.kind == "f" else np.power(b, exp)


def signext(x):
    return I(x) if np.asarray(x).dtype.kind != "f" else x


def signextFromBit(x, width):
    """Sign-extend the low `width` bits of x (width 0 -> 0)."""
    w = np.asarray(width).astype(np.int64)
    r = raw(x)
    m = shl(U64(1), w) - U64(1)
    v = r & m
    sign_bit = shr(v, np.maximum(w - 1, 0)) & U64(1)
    ext = np.where((sign_bit == 1) & (w > 0), v | ~m, v)
    return np.where(w == 0, U64(0), ext).view(np.int64)


signext_from_bit = signextFromBit      # RDNA3.5's spelling


def countbits(x):
    return np.bitwise_count(raw(x)).astype(np.int64)


def u4_to_u32(x):
    return raw(x) & U64(0xF)


def i8_to_i32(x):
    """A signed 8-bit value (its low 8 bits) widened (CDNA3's V_DOT4_I32_I8)."""
    return sign_extend(x, 8)


def i4_to_i32(x):
    """A signed 4-bit value (its low 4 bits) widened (CDNA3's V_DOT8_I32_I4)."""
    return sign_extend(x, 4)


def v_cvt_i16_f32(x):
    """f32 -> i16, truncating toward zero and saturating, NaN -> 0 (as v_cvt_i32_f32 does
    for 32 bits; v_cvt_pk_i16_f32 calls it though no such instruction exists)."""
    return to_int(x, True, 16)


def v_cvt_u16_f32(x):
    """f32 -> u16, truncating toward zero and saturating, NaN -> 0."""
    return to_int(x, False, 16)


def f32_to_f16_rtz(x):
    """f32 -> f16 rounded toward zero: the nearest-even result, stepped one ulp toward zero
    where it rounded away (finite overflow becomes the largest finite f16, not inf)."""
    x = np.asarray(x, np.float32)
    h = x.astype(np.float16)
    away = (np.abs(h.astype(np.float32)) > np.abs(x)) & np.isfinite(x)
    return np.where(away, h.view(np.uint16) - np.uint16(1), h.view(np.uint16)).view(np.float16)


def fract(x):
    a = np.asarray(x)
    return np.where(np.isinf(a), a.dtype.type(np.nan) if a.dtype.kind == "f" else 0, a - np.floor(a)).astype(a.dtype)


def s_ff1_i32_b32(x):
    return _ff1(x, 32)


def s_ff1_i32_b64(x):
    return _ff1(x, 64)


def _ff1(x, n):
    r = raw(x)
    out = np.full(np.shape(r), -1, np.int64)
    for i in reversed(range(n)):    # lowest set bit wins: scan from the top
        out = np.where(((r >> U64(i)) & U64(1)) == 1, i, out)
    return out


# conversions named in the pseudocode: <from>_to_<to>
def _conv(src_kind: str, dst: str):
    kind, bits = dst[0], int(dst[1:]) if dst[1:] else 32

    def f(x):
        a = np.asarray(x)
        if kind == "f":
            r = a.astype(FLOAT[bits])
            if _ROUNDING.get() is None or a.dtype.itemsize * 8 <= bits and a.dtype.kind == "f":
                return r
            f = rounding.field(bits)        # a narrowing, or an integer: rounds as MODE.FP_ROUND says
            return r if f is None else rounding.convert(a, r, f)
        return to_int(a, kind == "i", bits) if a.dtype.kind == "f" else cast_int(a, kind == "i", bits)
    return f


for _s in ("f16", "f32", "f64", "i16", "i32", "u16", "u32", "u8"):
    for _d in ("f16", "f32", "f64", "i16", "i32", "u16", "u32", "u8"):
        if _s != _d:
            globals()[f"{_s}_to_{_d}"] = _conv(_s[0], _d)


def f32_to_f16(x):
    a = np.asarray(x, np.float32)
    r = a.astype(np.float16)
    if _ROUNDING.get() is None:
        return r
    f = rounding.field(16)
    return r if f is None else rounding.convert(a, r, f)


def bf16_to_f32(x):
    return (raw(x) << U64(16)).astype(np.uint32).view(np.float32)


# ---- 8-bit floats (FP8 / BF8), whose format is the family's --------------------------------
# CDNA3's are the FNUZ formats (manual 7.2 table 30: FP8 E4M3 bias 8, BF8 E5M2 bias 16, one NaN
# 0x80, no -0, no infinity), CDNA4's and RDNA4's the OCP ones (CDNA4 7.3 table 30, RDNA4 7.5:
# FP8 E4M3 bias 7, S.1111.111 NaN; BF8 E5M2 bias 15, IEEE-style). The generated code calls
# them as `F8.<name>`, which table.compile_source binds to the family's (`eight_bit_floats`):
# `.fp8` / `.bf8` reads (the code's f32 value) and the conversions from f32 to a code, to
# nearest even or, under the code's ROUND_MODE = ROUND_TOWARD_ZERO, truncated (`_rtz`; the SR
# conversions: isa/errata.py), with MODE.FP16_OVFL's overflow rule (the ctx argument).
FAMILY_CALLS = frozenset({"fp8_to_f32", "bf8_to_f32", "f32_to_fp8", "f32_to_bf8", "f32_to_fp8_rtz",
                          "f32_to_bf8_rtz"})


@functools.lru_cache(maxsize=None)
def eight_bit_floats(family: str):
    """The FAMILY_CALLS of `family` (a namespace of functions). A family without 8-bit floats
    gets functions that raise SemanticsError naming it (minifloat's table lookup)."""
    from types import SimpleNamespace

    def decoder(name):
        values = []

        def decode(x):
            if not values:          # (minifloat imported on first use: a launch of other code never loads it)
                from .handwritten.minifloat import table
                values.append(table(family, name).astype(np.float32))
            return values[0][np.asarray(raw(x)).astype(np.intp) & 0xFF]
        return decode

    def encoder(name, truncate):
        def encode(ctx, x):
            from .handwritten.minifloat import encode_scaled
            a = np.asarray(x, np.float32)
            clamp = (np.asarray(ctx.mode, U64) >> U64(MODE_FP16_OVFL)) & U64(1) == 1
            rand = np.zeros(a.shape, np.uint32) if truncate else None   # a zero random value truncates
            return encode_scaled(a, 127, name, 23, rand, clamp, family=family)
        return encode
    return SimpleNamespace(fp8_to_f32=decoder("fp8"), bf8_to_f32=decoder("bf8"),
                           f32_to_fp8=encoder("fp8", False), f32_to_bf8=encoder("bf8", False),
                           f32_to_fp8_rtz=encoder("fp8", True), f32_to_bf8_rtz=encoder("bf8", True))


def float32(s, e, m):
    """The f32 of sign bit s, biased exponent e and fraction field m (the pseudocode's
    `tmp = float32(s, e, m)`; each taken at its field's width)."""
    b = (raw(s) & U64(1)) << U64(31) | (raw(e) & U64(0xFF)) << U64(23) | raw(m) & U64(0x7FFFFF)
    return b.astype(np.uint32).view(np.float32)


def f32_to_bf16(x):
    """Round to nearest even on the upper 16 bits; NaN stays NaN (quiet). Under a directed
    MODE.FP_ROUND, rounded by the 16-bit field (emu/rounding.py)."""
    r = np.asarray(x, np.float32).view(np.uint32).astype(U64)
    rounded = (r + U64(0x7FFF) + ((r >> U64(16)) & U64(1))) >> U64(16)
    nan = np.isnan(np.asarray(x, np.float32))
    out = np.where(nan, (r >> U64(16)) | U64(0x40), rounded) & U64(0xFFFF)
    if _ROUNDING.get() is None:
        return out
    f = rounding.field(16)
    return out if f is None else rounding.to_bf16(x, out, f)


# the pseudocode's math functions are numpy's (IEEE, element-wise, keep the float type)
trunc, floor, sqrt, sin, cos, log2 = np.trunc, np.floor, np.sqrt, np.sin, np.cos, np.log2


def pow(x, y):  # noqa: A001 - the pseudocode's name
    return power(x, y)


def nop():
    return None


def MIN(a, b):
    return np.minimum(a, b)


# ---- machine state the pseudocode names ----------------------------------------------

_MODE_FIELDS = {"FP_ROUND": (3, 0), "FP_DENORM": (7, 4), "DX10_CLAMP": (8, 8), "IEEE": (9, 9)}


def mode_field(ctx, name: str):
    hi, lo = _MODE_FIELDS.get(name, (None, None))
    if hi is None:
        raise SemanticsError(f"MODE field {name} is not modelled")
    return (np.asarray(ctx.mode, U64) >> U64(lo)) & U64(_mask(hi - lo + 1))


def status_field(ctx, name: str):
    fields = {"SCC": 0, "PRIV": 5, "COND_DBG_USER": 20, "COND_DBG_SYS": 21}
    if name not in fields:
        raise SemanticsError(f"STATUS field {name} is not modelled")
    return (np.asarray(ctx.status, U64) >> U64(fields[name])) & U64(1)


def ds_address(addr, offset0, offset1):
    """The manual's CalcDsAddr(ADDR, OFFSET0, OFFSET1): the address VGPR plus the 16-bit
    offset {OFFSET1, OFFSET0} (a split address stays split: the constant moves its base)."""
    offset = (int(offset1) & 0xFF) << 8 | (int(offset0) & 0xFF)
    return addr if offset == 0 else addr + U64(offset)


def operand(ctx, name: str, bits: int, instruction: str):
    """An operand as the machine supplied it: uint32 / uint64 arrays unchanged (the
    translator widens a uint32 where a bare operand is used as a 64-bit value)."""
    try:
        v = ctx.inputs[name]
    except KeyError:
        v = ctx.get(name, instruction)      # raises, naming the operand
    if type(v) is np.ndarray and bits <= 64 and (v.dtype is _DT32 or v.dtype is _DT64):
        return v                            # the common case, without the general tests below
    if isinstance(v, SplitAddresses):       # stays split until something computes with it
        return v
    a = np.asarray(v)
    if bits > 64:
        return a.astype(np.uint32)
    if a.dtype == np.uint32 or a.dtype == U64:
        return a
    return a.astype(U64) if a.dtype.kind != "f" else raw(a)


# ---- exact-modulo-2**32 statements (emu/pcode/narrow.py) ------------------------------

_U32 = np.uint32
_DT32, _DT64 = np.dtype(np.uint32), np.dtype(np.uint64)     # numpy's own descriptors: an identity test


def owned(x):
    """x itself if it is a freshly computed array, else a copy: a result must never be a
    view of an input (the machine's register file), because the machine may write one
    register before it stores another result (VOPD halves, v_swap). A window of device
    memory a load returned (memory.LentMemory) is no register: it stays a view."""
    return x if not isinstance(x, np.ndarray) or x.base is None or type(x.base) is LentMemory else x.copy()


# ---- results computed into the destination register (Ctx.dest) -----------------------

def take_dest(ctx, name: str):
    """The uint32 (W, L) array the machine offers for output `name` (Ctx.dest), or None;
    handed out once, so a second result of that name (or a local still holding the first)
    is never overwritten behind the semantic's back."""
    dest = ctx.dest
    return dest.pop(name, None) if dest else None


def into(ctx, name: str, ufunc, x, y):
    """ufunc(x, y) as the whole 32-bit value of output `name` (a uint32 statement of
    emu/pcode/narrow.py): computed straight into the destination register when the machine
    offers it, saving the result's allocation and the writeback copy."""
    out = take_dest(ctx, name)
    if out is None or np.result_type(x, y) != _U32:
        return owned(ufunc(x, y))
    return ufunc(x, y, out=out)


def float_into(ctx, name: str, bits: int, compute):
    """A whole float result (store(..., narrow=True) bits) of compute(out), where `out` is
    the destination register viewed as the float type when the machine offers it (32-bit
    results only; compute may ignore it) or None."""
    dest = take_dest(ctx, name) if bits == 32 else None
    if dest is None:
        return store(compute(None), "f", bits, narrow=True)
    f = dest.view(FLOAT[bits])
    result = compute(f)
    return dest if result is f else store(result, "f", bits, narrow=True)


def u32(x):
    """The low 32 bits of an integer value as uint32 (no copy when it already is one)."""
    if type(x) is np.ndarray and x.dtype is _DT32:
        return x
    a = np.asarray(x)
    if a.dtype == _U32:
        return a
    return (raw(a) & U64(0xFFFFFFFF)).astype(_U32)


def field32(x, hi: int, lo: int):
    """x[hi:lo] (constant, at most 32 bits wide) as uint32."""
    a = np.asarray(x)
    if a.dtype == _U32 and hi < 32:
        v = a >> _U32(lo) if lo else a
        return v & _U32(_mask(hi - lo + 1)) if hi - lo < 31 else v
    return u32(bits_of(a, hi, lo))


def set_field(old, hi: int, lo: int, value):
    """old with the constant field hi:lo (at most 32 bits) set to the low bits of a uint32
    value; a new array of old's width (uint32 when the field lies in bits 31:0 of one)."""
    o = np.asarray(old)
    mask = _mask(hi - lo + 1)
    if o.dtype == _U32 and hi < 32:
        v = np.asarray(value, _U32) & _U32(mask)
        return (o & _U32(~(mask << lo) & 0xFFFFFFFF)) | (v << _U32(lo) if lo else v)
    v = np.asarray(value)
    if o.dtype == U64 and mask == 0xFFFFFFFF and lo in (0, 32) and v.dtype == _U32 and v.shape == o.shape \
            and _LITTLE and current().dword_views:
        # a whole dword of a uint64 from a uint32 (two-dword DS loads): one copy and one
        # strided dword assignment instead of five uint64 passes
        out = np.array(o, U64)
        out.view(_U32).reshape(o.shape + (2,))[..., lo // 32] = v
        return out
    v = v.astype(U64) & U64(mask)
    return (raw(o) & U64(~(mask << lo) & _ALL)) | (v << U64(lo) if lo else v)


def shl32(x, n):
    """(x << n) mod 2**32 for uint32 x and any count (>= 32 gives 0, as at 64-bit width)."""
    n = np.asarray(n)
    if _in_shift_range32(n):
        return np.left_shift(x, n.astype(_U32, copy=False))
    return np.where(n >= 32, _U32(0), np.left_shift(x, np.minimum(n, 31).astype(_U32)))


def shr32(x, n):
    """Logical x >> n of an exact uint32 x (>= 32 gives 0)."""
    n = np.asarray(n)
    if _in_shift_range32(n):
        return np.right_shift(x, n.astype(_U32, copy=False))
    return np.where(n >= 32, _U32(0), np.right_shift(x, np.minimum(n, 31).astype(_U32)))


def lane_bit(mask, ctx):
    """`mask.u64[laneId]`: each lane's bit of a per-wave lane mask, as bool (W, L)."""
    m = np.asarray(mask)
    if ctx.scalar or m.ndim != 2 or m.shape[1] != 1:
        return ((raw(m) >> lane_id(ctx)) & U64(1)).astype(bool)
    wave_bytes = np.ascontiguousarray(m, dtype=U64).view(np.uint8)          # little-endian: bit i = lane i
    # the bytes of the wave's lanes only, unpacked to 0/1 bytes: read as bool without a copy
    return np.unpackbits(wave_bytes[:, :ctx.lanes // 8], axis=1, bitorder="little").view(bool)


def _in_shift_range32(n: np.ndarray) -> bool:
    if n.size == 1:
        return current().shift_range_shortcuts and 0 <= n.item() < 32
    return n.size > 0 and current().shift_range_shortcuts and int(n.min()) >= 0 and int(n.max()) < 32


def lane_id(ctx):
    return ctx.lane_id.astype(U64)


def active(ctx, pred):
    return ctx.active if pred is None else np.logical_and(ctx.active, pred)


def _batch(x, ctx):
    """x at the batch shape (a broadcast view only when it is not already that shape)."""
    return x if np.shape(x) == ctx.shape else np.broadcast_to(x, ctx.shape)


def mem_load(ctx, addr, nbytes: int, pred, narrow: bool = False):
    """nbytes from memory per active lane: uint64, or (narrow, nbytes <= 4) the memory's uint32."""
    if ctx.mem is None:
        raise SemanticsError("memory access without a memory (ctx.mem is None)")
    a = raw(addr)
    if np.size(a) == 1 and pred is None and _all_active(ctx):
        # one address for the whole batch (a uniform SMEM base): one access, broadcast by the caller
        one = getattr(ctx.mem, "load_one", None) if current().one_address_loads else None
        value = one(int(np.asarray(a).reshape(-1)[0]), nbytes) if one is not None else None
        if value is not None:       # Python-int bounds and value (DeviceMemory), no arrays
            return np.full(np.shape(a), value, _U32 if narrow and nbytes <= 4 else U64)
        v = np.asarray(ctx.mem.load(a, nbytes, np.ones(np.shape(a), bool)))
    else:
        v = np.asarray(ctx.mem.load(_batch(a, ctx), nbytes, _mem_mask(ctx, pred)))
    return v.astype(_U32 if narrow and nbytes <= 4 else U64, copy=False)


# the mask of an access every lane makes: memories take any shape that broadcasts (semantics.Memory)
_ALL_ON = np.ones((1, 1), bool)
_ALL_ON.flags.writeable = False


def _mem_mask(ctx, pred):
    """The lanes a memory access touches: one True when every lane is on and nothing else
    predicates the access (no (W, L) mask to build), else the batch's active lanes."""
    if pred is None and "active" not in ctx.__dict__ and _all_active(ctx):
        return _ALL_ON
    return _batch(active(ctx, pred), ctx)


def _all_active(ctx) -> bool:
    """Every lane of the batch is on (scalar instructions always are; Ctx.all_on when the
    machine says)."""
    if ctx.all_on is not None:
        return ctx.all_on
    return ctx.scalar or bool((np.asarray(ctx.exec_mask, U64) == U64((1 << ctx.lanes) - 1)).all())


def mem_store(ctx, addr, nbytes: int, value, pred):
    if ctx.mem is None:
        raise SemanticsError("memory access without a memory (ctx.mem is None)")
    a = _batch(raw(addr), ctx)
    value = np.asarray(value)
    v = _batch(value if value.dtype == _U32 else raw(value), ctx)    # the low nbytes are stored
    ctx.mem.store(a, nbytes, v, _mem_mask(ctx, pred))


def dw_get(arr, lo: int, bits: int):
    """Aligned 32/64-bit field of a wide operand held as uint32 dwords (..., n)."""
    k = lo // 32
    v = arr[..., k].astype(U64)
    if bits == 64:
        v = v | (arr[..., k + 1].astype(U64) << U64(32))
    return v


def dw_set(arr, lo: int, bits: int, value):
    v = raw(value)
    shape = np.shape(v) + arr.shape[-1:]
    # the usual case, a value of the array's own shape, copies without the broadcast machinery
    out = arr.copy() if shape == arr.shape else np.array(np.broadcast_to(arr, np.broadcast_shapes(arr.shape, shape)))
    k = lo // 32
    if bits == 64 and not k % 2 and _LITTLE and not out.shape[-1] % 2 and out.flags.c_contiguous \
            and current().dword_views:
        out.view(U64)[..., k // 2] = v      # dwords k, k+1 are one aligned uint64: no shifts, no splits
        return out
    out[..., k] = (v & U64(0xFFFFFFFF)).astype(np.uint32)
    if bits == 64:
        out[..., k + 1] = (v >> U64(32)).astype(np.uint32)
    return out


def dw_field(arr, lo: int, bits: int):
    """Bits lo + bits - 1 : lo (bits <= 64, any lo: a loop's `S0[sOffset + 5 : sOffset]`) of a
    wide value held as uint32 dwords (..., n), as uint64."""
    lo, k = int(lo), int(lo) // 32
    v = arr[..., k].astype(U64) >> U64(lo % 32)
    got = 32 - lo % 32
    while got < bits:
        k += 1
        v = v | (arr[..., k].astype(U64) << U64(got))
        got += 32
    return v & U64(_mask(bits)) if bits < 64 else v


def dw_set_field(arr, lo: int, bits: int, value):
    """arr (a wide value as uint32 dwords (..., n)) with bits lo + bits - 1 : lo replaced by
    value: a uint64 of up to 64 bits at any lo, or a wide value (..., m) at a dword boundary."""
    lo = int(lo)
    v = np.asarray(value)
    if bits > 64:
        if lo % 32 or bits % 32:
            raise SemanticsError(f"a {bits}-bit value at bit {lo} of a wide value is not dword aligned")
        shape = np.broadcast_shapes(arr.shape[:-1], v.shape[:-1]) + arr.shape[-1:]
        out = np.array(np.broadcast_to(arr, shape))
        out[..., lo // 32: lo // 32 + bits // 32] = v[..., :bits // 32]
        return out
    v = raw(v) & U64(_mask(bits)) if bits < 64 else raw(v)
    shape = np.broadcast_shapes(arr.shape[:-1], np.shape(v)) + arr.shape[-1:]
    out = np.array(np.broadcast_to(arr, shape))
    k, at, done = lo // 32, lo % 32, 0
    while done < bits:
        n = min(32 - at, bits - done)
        m = U64(_mask(n) << at)
        part = ((v >> U64(done)) << U64(at)) & m
        out[..., k] = ((out[..., k].astype(U64) & ~m) | part).astype(np.uint32)
        done, k, at = done + n, k + 1, 0
    return out


def dw_zeros(ctx, n: int):
    """A wide value's starting zeros as one broadcastable (1, 1, n) value: dw_set widens it
    to the batch only when a dword set is per wave or per lane, so a uniform result (an SMEM
    load of the address every wave shares) stays one value up to its register write."""
    if not current().uniform_sgprs:         # the plain way: zeros for every wave and lane
        return np.zeros(ctx.shape + (n,), np.uint32)
    return np.zeros((1,) * len(ctx.shape) + (n,), np.uint32)


def _regfile(ctx, name: str, access: str):
    """The machine's register file `name` (vgpr/sgpr/hwreg); a semantic reaching for one the
    machine did not provide is a contract error, named by the pseudocode's access."""
    regs = getattr(ctx, name)
    if regs is None:
        raise SemanticsError(f"{access} access without ctx.{name}")
    return regs


def _index(x):
    return raw(x).astype(np.int64)


def _never(pred) -> bool:
    """A predicate false in every lane: the branch's register accesses do not happen (the
    wave64-only branch of v_permlane64 names lanes 32-63, which a wave32 does not have)."""
    return pred is not None and not np.any(pred)


def vgpr_read(ctx, reg, lane, pred=None):
    if _never(pred):
        return np.zeros((1, 1), U64)
    return np.asarray(_regfile(ctx, "vgpr", "VGPR[lane][reg]").read(_index(reg), _index(lane))).astype(U64)


def vgpr_write(ctx, reg, lane, value, pred):
    if _never(pred):
        return
    mask = np.ones((ctx.waves, 1), bool) if pred is None else np.asarray(pred)
    _regfile(ctx, "vgpr", "VGPR[lane][reg]").write(_index(reg), _index(lane), raw(value).astype(np.uint32), mask)


def sgpr_read(ctx, reg, dwords: int = 1):
    """SGPR[reg] (dwords = 2: SGPR[reg].b64, the pair reg, reg + 1)."""
    regs = _regfile(ctx, "sgpr", "SGPR[reg]")
    value = np.asarray(regs.read(_index(reg))).astype(U64)
    if dwords == 2:
        value = value | np.asarray(regs.read(_index(reg) + 1)).astype(U64) << U64(32)
    return value


def sgpr_write(ctx, reg, value, pred, dwords: int = 1):
    regs = _regfile(ctx, "sgpr", "SGPR[reg]")
    regs.write(_index(reg), None, raw(value) & U64(0xFFFFFFFF), pred)
    if dwords == 2:
        regs.write(_index(reg) + 1, None, raw(value) >> U64(32), pred)


def hwreg_read(ctx, reg):
    return np.asarray(_regfile(ctx, "hwreg", "HW_REGISTERS").read(_index(reg))).astype(U64)


def hwreg_write(ctx, reg, value, pred):
    _regfile(ctx, "hwreg", "HW_REGISTERS").write(_index(reg), None, raw(value), pred)


@functools.lru_cache(maxsize=None)
def two_over_pi_bits(bits: int) -> int:
    """floor(2/pi * 2**bits): the first `bits` fraction bits of 2/pi (b_(bits-1) is the bit
    worth 1/2), exact. pi from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239) in integers
    scaled by 2**(bits + 64); the 64 guard bits absorb the series' truncation errors (a few
    units each), and no run of 64 equal bits follows any of 2/pi's first 1201."""
    scale = 1 << (bits + 64)

    def atan_inv(x: int) -> int:        # atan(1/x) * scale, truncated term by term
        total, term, k, x2 = 0, scale // x, 0, x * x
        while term:
            total += term // (2 * k + 1) if k % 2 == 0 else -(term // (2 * k + 1))
            term //= x2
            k += 1
        return total

    pi_scaled = 16 * atan_inv(5) - 4 * atan_inv(239)
    return (2 * scale * scale // pi_scaled) >> 64


# The manuals use UNDERFLOW_F32/F64 only in v_div_fixup, for quotients whose exponents differ by
# less than -150 (-1075): below half the smallest denormal, which rounds to (signed) zero. A
# nonzero constant would make LLVM's division macro, correctly rounded on hardware, return the
# smallest normal for such quotients (tests/test_emu_semantics_division.py, against numpy).
CONSTANTS = {"PI": math.pi, "INF": math.inf, "NAN": math.nan, "OVERFLOW_F32": float(np.finfo(np.float32).max),
             "OVERFLOW_F64": float(np.finfo(np.float64).max), "UNDERFLOW_F32": 0.0,
             "UNDERFLOW_F64": 0.0, "MAX_FLOAT_F32": float(np.finfo(np.float32).max)}


def idiv(a, b):
    """Integer division truncating toward zero (C semantics); x / 0 gives all ones."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    safe = np.where(b == 0, 1, b)
    if a.dtype == np.int64:
        q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
        return np.where(b == 0, -1, q)
    return np.where(b == 0, U64(_ALL), a // safe)


def imod(a, b):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    safe = np.where(b == 0, 1, b)
    if a.dtype == np.int64:
        return np.where(b == 0, a, np.fmod(a, safe))
    return np.where(b == 0, a, a % safe)


def call_instruction(semantic_of, ctx, name: str, args: list):
    """D0 of another instruction (the pseudocode of v_max3_f32 calls v_max_f32); `semantic_of`
    is the caller's architecture's name -> Semantic (emu/table.py binds it as INSTRUCTIONS)."""
    sem = semantic_of(name)
    if sem is None:
        raise SemanticsError(f"{name} has no semantics to call")
    # the callee's D0 is only a result here (its if/else chain writes every lane); its "old
    # value" is never observable, so it starts as zeros, made if the callee reads it
    sub_inputs = _CallInputs(ctx.inputs, (ctx.shape, np.uint64 if sem.reads["D0"].bits > 32 else np.uint32)
                             if "D0" in sem.reads else None)
    for i, a in enumerate(args):
        bits = sem.reads.get(f"S{i}").bits if f"S{i}" in sem.reads else 32
        sub_inputs[f"S{i}"] = raw(a) & U64(_mask(bits)) if bits < 64 else raw(a)
    out = sem.fn(ctx.derive(inputs=sub_inputs, dest=None))      # its D0 is not ours to write
    return out["D0"]


class _CallInputs(dict):
    """A called instruction's inputs: its arguments, zeros as its D0 (`zeros`: their shape and
    dtype, made on first read), the caller's other inputs beneath."""

    def __init__(self, base, zeros):
        super().__init__()
        self.base, self.zeros = base, zeros

    def __missing__(self, name):
        if name == "D0" and self.zeros is not None:
            value = self["D0"] = np.zeros(*self.zeros)
            return value
        return self.base[name]


def _to_norm(x, signed: bool, bits: int):
    """Float -> normalised integer: clamp to [-1, 1] (signed) or [0, 1], scale by the
    largest code, round to nearest even; NaN -> 0."""
    top = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    a = np.nan_to_num(np.asarray(x, np.float64), nan=0.0)
    v = np.rint(np.clip(a, -1.0 if signed else 0.0, 1.0) * top).astype(np.int64)
    return v if signed else v.astype(U64)


def f16_to_snorm(x):
    return _to_norm(x, True, 16)


def f16_to_unorm(x):
    return _to_norm(x, False, 16)


def f32_to_snorm(x):
    return _to_norm(x, True, 16)


def f32_to_unorm(x):
    return _to_norm(x, False, 16)


# ---- CDNA4's scaled FP8/BF8/FP6/BF6/FP4 conversions (manual 7.3; emu/handwritten/minifloat.py) --
# <src>_to_<fmt>_scale(x, scale) and <src>_to_<fmt>_sr_scale(x, random, scale) give the raw code
# (8, 6 or 4 bits); <fmt>_to_<dst>_scale(x, scale) the dst value (f16/f32: the float, bf16: its
# bits). `.fp6` / `.bf6` / `.fp4` reads and writes are raw codes; a `.fp8` / `.bf8` read is the
# code's f32 value (RDNA4's reading, types.type_of_field), which fp8_/bf8_to_<dst>_scale take.
# Conversions from f32 follow MODE's f32 input denormal control (7.3: "Conversion from F32
# supports MODE-based denormal control; F4/F6/F8 allows denorms regardless of MODE"), those to
# FP8/BF8 MODE.FP16_OVFL (7.3: "Conversion to F4/F6 does not support FP16_OVFL, while to F8
# does"): their first argument is the Ctx (CTX_CALLS: the translator passes it).
_SCALED_SOURCE_MANTISSA = {"f32": 23, "f16": 10, "bf16": 7}
CTX_CALLS: set = {"f32_to_fp8", "f32_to_bf8", "f32_to_fp8_rtz", "f32_to_bf8_rtz"}
MODE_FP16_OVFL = 23         # MODE[23] (every GFX9+ manual's MODE table; tests check the cdna4 one)


def _f32_input_denorms(ctx, x):
    """x (float32) with denormals flushed to zero of their sign in the waves whose MODE.FP_DENORM
    clears the f32 input bit (MODE[4])."""
    flush = (np.asarray(ctx.mode, U64) >> U64(4)) & U64(1) == 0
    if not flush.any():
        return x
    a = np.asarray(x, np.float32)
    tiny = (a != 0) & (np.abs(a) < np.float32(2.0 ** -126))
    return np.where(flush & tiny, np.copysign(np.float32(0), a), a)


def _scaled_to(src: str, fmt: str, stochastic: bool):
    def f(ctx, x, *rest):
        from .handwritten.minifloat import encode_scaled
        rand, scale = rest if stochastic else (None, rest[0])
        if src == "f32":
            x = _f32_input_denorms(ctx, x)
        clamp = (np.asarray(ctx.mode, U64) >> U64(MODE_FP16_OVFL)) & U64(1) == 1
        return encode_scaled(x, scale, fmt, _SCALED_SOURCE_MANTISSA[src], rand, clamp)
    return f


def _scaled_from(fmt: str, dst: str):
    def f(x, scale):
        from .handwritten.minifloat import decode_scaled, scale_value
        d = "bf16" if dst == "bf16" else int(dst[1:])
        out = scale_value(x, scale, d) if fmt in ("fp8", "bf8") else decode_scaled(x, scale, fmt, d)
        return out if dst == "bf16" else out.astype(UINT[d]).view(FLOAT[d])
    return f


for _fmt in ("fp8", "bf8", "fp6", "bf6", "fp4"):
    for _s in ("f32", "f16", "bf16"):
        for _sr in ("", "_sr"):
            _name = f"{_s}_to_{_fmt}{_sr}_scale"
            globals()[_name] = _scaled_to(_s, _fmt, bool(_sr))
            CTX_CALLS.add(_name)
        globals()[f"{_fmt}_to_{_s}_scale"] = _scaled_from(_fmt, _s)

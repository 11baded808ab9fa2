"""Generated instruction semantics vs independent numpy references (written from the ISA's
prose and IEEE 754, not from the pseudocode) on random inputs plus edge cases."""
import numpy as np
import pytest

from emu.semantics import Ctx
from emu.table import load_semantics

W, L = 2, 32
rng = np.random.default_rng(20240605)
TABLE = load_semantics("gfx1100")

EDGE_F32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.0, -1.5, 3.4e38, -3.4e38,
                     1.17549435e-38, 2.0 ** -149, 65504.0, 1e10, -7.25], np.float32)
EDGE_U32 = np.array([0, 1, 2, 31, 32, 33, 63, 64, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x12345678,
                     0x80000001, 255, 65535], np.uint32)


def run(name, lanes=L, exec_mask=None, **inputs):
    sem = TABLE.lookup(name)
    assert sem is not None, f"{name} has no semantics"
    shape = (1, 1) if sem.scalar else (W, lanes)
    if exec_mask is None:
        exec_mask = np.full((shape[0], 1), (1 << lanes) - 1, np.uint64)
    if sem.reads_d0 and "D0" not in inputs:
        inputs["D0"] = np.zeros(shape, np.uint64 if sem.reads["D0"].bits == 64 else np.uint32)
    return sem.execute(Ctx(lanes=lanes, exec_mask=exec_mask, inputs=inputs, scalar=sem.scalar, mode=0x3F0))


def u32(n=W * L, edge=EDGE_U32):
    v = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    v[: len(edge)] = edge
    return v.reshape(W, L)


def u64():
    return (u32().astype(np.uint64) << np.uint64(32)) | u32()[:, ::-1].astype(np.uint64)


def f32(edge=EDGE_F32):
    v = (rng.standard_normal(W * L) * 10.0 ** rng.integers(-5, 5, W * L)).astype(np.float32)
    v[: len(edge)] = edge
    rng.shuffle(v[len(edge):])
    return v.reshape(W, L)


def bits(a):
    return np.asarray(a).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[np.asarray(a).dtype.itemsize])


def same_float(got_bits, want):
    want = np.asarray(want)
    got = np.asarray(got_bits).astype({2: np.uint16, 4: np.uint32, 8: np.uint64}[want.dtype.itemsize]).view(want.dtype)
    both_nan = np.isnan(got) & np.isnan(want)
    ok = both_nan | (got.view(bits(want).dtype) == bits(want))
    assert ok.all(), f"got {got[~ok][:5]} want {want[~ok][:5]}"


# ---------------- integer VALU ----------------
INT_BINARY = {
    "v_add_nc_u32": lambda a, b: a + b,
    "v_sub_nc_u32": lambda a, b: a - b,
    "v_subrev_nc_u32": lambda a, b: b - a,
    "v_mul_lo_u32": lambda a, b: a * b,
    "v_mul_hi_u32": lambda a, b: ((a.astype(np.uint64) * b.astype(np.uint64)) >> np.uint64(32)).astype(np.uint32),
    "v_mul_hi_i32": lambda a, b: ((a.view(np.int32).astype(np.int64) * b.view(np.int32).astype(np.int64)) >> 32).astype(np.uint32),
    "v_and_b32": np.bitwise_and, "v_or_b32": np.bitwise_or, "v_xor_b32": np.bitwise_xor,
    "v_xnor_b32": lambda a, b: ~(a ^ b),
    "v_lshlrev_b32": lambda a, b: b << (a & 31),
    "v_lshrrev_b32": lambda a, b: b >> (a & 31),
    "v_ashrrev_i32": lambda a, b: (b.view(np.int32) >> (a & 31).astype(np.int32)).view(np.uint32),
    "v_max_u32": np.maximum, "v_min_u32": np.minimum,
    "v_max_i32": lambda a, b: np.maximum(a.view(np.int32), b.view(np.int32)).view(np.uint32),
    "v_min_i32": lambda a, b: np.minimum(a.view(np.int32), b.view(np.int32)).view(np.uint32),
    "v_mul_u32_u24": lambda a, b: (a & 0xFFFFFF) * (b & 0xFFFFFF),
    "v_bfm_b32": lambda a, b: (((np.uint64(1) << (a & 31).astype(np.uint64)) - np.uint64(1)) << (b & 31).astype(np.uint64)).astype(np.uint32),
}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_integer_binary(name):
    a, b = u32(), u32()[:, ::-1].copy()
    with np.errstate(over="ignore"):
        want = INT_BINARY[name](a, b).astype(np.uint32)
    assert (run(name, S0=a, S1=b)["D0"] == want).all()


def test_add_carry_out_and_carry_in():
    a, b = u32(), u32()[:, ::-1].copy()
    wide = a.astype(np.uint64) + b.astype(np.uint64)
    out = run("v_add_co_u32", S0=a, S1=b)
    assert (out["D0"] == (wide & np.uint64(0xFFFFFFFF))).all()
    assert (out["VCC"] == (wide >> np.uint64(32)).astype(bool)).all()
    vcc = np.array([[0xF0F0F0F0], [0x0000FFFF]], np.uint64)
    cin = ((vcc >> np.arange(L, dtype=np.uint64)) & np.uint64(1))
    out = run("v_add_co_ci_u32", S0=a, S1=b, VCC=vcc)
    total = wide + cin
    assert (out["D0"] == (total & np.uint64(0xFFFFFFFF))).all()
    assert (out["VCC"] == (total >> np.uint64(32)).astype(bool)).all()
    out = run("v_sub_co_u32", S0=a, S1=b)
    assert (out["D0"] == (a - b)).all() and (out["VCC"] == (b > a)).all()


def test_mad_u64_u32_carry():
    a, b, c = u32(), u32()[:, ::-1].copy(), u64()
    exact = [int(x) * int(y) + int(z) for x, y, z in zip(a.ravel(), b.ravel(), c.ravel())]
    out = run("v_mad_u64_u32", S0=a, S1=b, S2=c)
    assert out["D0"].ravel().tolist() == [e & (2 ** 64 - 1) for e in exact]
    assert out["D1"].ravel().tolist() == [e >> 64 == 1 for e in exact]


def test_64bit_shifts_including_count_ge_width():
    a = u32() & np.uint32(63)
    a[0, :3] = [0, 63, 32]
    b = u64()
    sh = a.astype(np.uint64)
    assert (run("v_lshlrev_b64", S0=a, S1=b)["D0"] == (b << sh)).all()
    assert (run("v_lshrrev_b64", S0=a, S1=b)["D0"] == (b >> sh)).all()
    assert (run("v_ashrrev_i64", S0=a, S1=b)["D0"] == (b.view(np.int64) >> sh.astype(np.int64)).view(np.uint64)).all()
    # the count is 6 bits: 64 and above wrap to the low bits
    assert (run("v_lshlrev_b64", S0=np.full((W, L), 65, np.uint32), S1=b)["D0"] == (b << np.uint64(1))).all()


def test_bitfield_extract_insert():
    a, off, width = u32(), u32() & np.uint32(31), u32() & np.uint32(31)
    mask = ((np.uint64(1) << width.astype(np.uint64)) - np.uint64(1)).astype(np.uint32)
    ext = (a >> off) & mask
    assert (run("v_bfe_u32", S0=a, S1=off, S2=width)["D0"] == ext).all()
    ext = (a.view(np.int32) >> off.astype(np.int32)).view(np.uint32) & mask   # the signed form shifts arithmetically
    sign = np.where(width == 0, 0, (ext >> np.maximum(width, 1).astype(np.uint32) - 1) & 1).astype(bool)
    want_i = np.where(width == 0, 0, np.where(sign, ext | ~mask, ext)).astype(np.uint32)
    assert (run("v_bfe_i32", S0=a, S1=off, S2=width)["D0"] == want_i).all()
    b, c = u32(), u32()[:, ::-1].copy()
    assert (run("v_bfi_b32", S0=a, S1=b, S2=c)["D0"] == ((a & b) | (~a & c))).all()


def test_perm_and_alignbit_and_sad():
    s0, s1, sel = u32(), u32()[:, ::-1].copy(), u32()
    sel = sel & np.uint32(0x0F0F0F0F)
    pool = (s0.astype(np.uint64) << np.uint64(32)) | s1.astype(np.uint64)   # bytes 0..7, byte 0 = s1 lsb
    want = np.zeros_like(s0)
    for k in range(4):
        sk = (sel >> np.uint32(8 * k)) & np.uint32(0xFF)
        byte = ((pool >> (8 * np.minimum(sk, 7)).astype(np.uint64)) & np.uint64(0xFF)).astype(np.uint32)
        sign_of = {8: 1, 9: 3, 10: 5, 11: 7}
        for s, src in sign_of.items():
            sb = ((pool >> np.uint64(8 * src + 7)) & np.uint64(1)).astype(np.uint32) * np.uint32(0xFF)
            byte = np.where(sk == s, sb, byte)
        byte = np.where(sk == 12, 0, np.where(sk >= 13, 0xFF, byte)).astype(np.uint32)
        want |= byte << np.uint32(8 * k)
    assert (run("v_perm_b32", S0=s0, S1=s1, S2=sel)["D0"] == want).all()
    sh = u32() & np.uint32(31)
    assert (run("v_alignbit_b32", S0=s0, S1=s1, S2=sh)["D0"] == ((pool >> sh.astype(np.uint64)) & np.uint64(0xFFFFFFFF))).all()
    acc = u32() & np.uint32(0xFFFF)
    diffs = sum(np.abs(((s0 >> np.uint32(8 * k)) & 0xFF).astype(np.int64) - ((s1 >> np.uint32(8 * k)) & 0xFF).astype(np.int64))
                for k in range(4))
    assert (run("v_sad_u8", S0=s0, S1=s1, S2=acc)["D0"] == (acc + diffs).astype(np.uint32)).all()


def test_bit_counts_and_mbcnt():
    a, b = u32(), u32() & np.uint32(0xFF)
    pop = np.array([bin(int(x)).count("1") for x in a.ravel()], np.uint32).reshape(a.shape)
    assert (run("v_bcnt_u32_b32", S0=a, S1=b)["D0"] == pop + b).all()
    lanes = np.arange(L, dtype=np.uint64)
    below = np.array([bin(int(x) & ((1 << int(l)) - 1)).count("1") for x, l in
                      zip(a.ravel(), np.tile(lanes, W))], np.uint32).reshape(a.shape)
    assert (run("v_mbcnt_lo_u32_b32", S0=a, S1=b)["D0"] == below + b).all()


INT_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
               "ge": np.greater_equal}


@pytest.mark.parametrize("op", sorted(INT_COMPARE))
def test_vopc_integer_compares_write_lane_bits(op):
    a = u32()
    b = np.where(rng.random((W, L)) < 0.3, a, u32()[:, ::-1]).astype(np.uint32)
    assert (run(f"v_cmp_{op}_u32", S0=a, S1=b)["D0"] == INT_COMPARE[op](a, b)).all()
    assert (run(f"v_cmp_{op}_i32", S0=a, S1=b)["D0"] == INT_COMPARE[op](a.view(np.int32), b.view(np.int32))).all()
    a64, b64 = u64(), u64()
    b64[:, ::3] = a64[:, ::3]
    assert (run(f"v_cmp_{op}_i64", S0=a64, S1=b64)["D0"] == INT_COMPARE[op](a64.view(np.int64), b64.view(np.int64))).all()
    assert (run(f"v_cmpx_{op}_u32", S0=a, S1=b)["EXEC"] == INT_COMPARE[op](a, b)).all()


def test_cndmask_selects_by_vcc_bit():
    a, b = u32(), u32()[:, ::-1].copy()
    vcc = np.array([[0xDEADBEEF], [0x00FF00FF]], np.uint64)
    bit = ((vcc >> np.arange(L, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    assert (run("v_cndmask_b32", S0=a, S1=b, VCC=vcc)["D0"] == np.where(bit, b, a)).all()


# ---------------- float VALU ----------------
F32_BINARY = {"v_add_f32": np.add, "v_sub_f32": np.subtract, "v_mul_f32": np.multiply,
              "v_subrev_f32": lambda a, b: b - a}


@pytest.mark.parametrize("name", sorted(F32_BINARY))
def test_f32_arithmetic_is_ieee(name):
    a, b = f32(), f32()[:, ::-1].copy()
    with np.errstate(all="ignore"):
        same_float(run(name, S0=bits(a), S1=bits(b))["D0"], F32_BINARY[name](a, b))


def test_f32_fma_single_rounding():
    a, b, c = f32(), f32()[:, ::-1].copy(), f32()
    # cases where a*b+c rounded twice differs from the fused result
    a[0, 20], b[0, 20], c[0, 20] = np.float32(1 + 2 ** -12), np.float32(1 + 2 ** -12), np.float32(-1.0)
    a[0, 21], b[0, 21], c[0, 21] = np.float32(1 + 2 ** -23), np.float32(1 - 2 ** -23), np.float32(-1.0)
    # reference: exact product and sum via Python fractions, one rounding to f32
    from fractions import Fraction
    ref = []
    for x, y, z in zip(a.ravel(), b.ravel(), c.ravel()):
        if all(np.isfinite([x, y, z])) and np.isfinite(np.float64(x) * np.float64(y)):
            q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
            zero = np.float32(np.float64(x) * np.float64(y) + np.float64(z))   # signed zero rules
            ref.append(_round_fraction_f32(q) if q != 0 else zero)
        else:
            with np.errstate(all="ignore"):
                ref.append(np.float32(np.float64(x) * np.float64(y) + np.float64(z)))
    same_float(run("v_fma_f32", S0=bits(a), S1=bits(b), S2=bits(c))["D0"], np.array(ref, np.float32).reshape(a.shape))


def _round_fraction_f32(q):
    """Round an exact rational to the nearest f32, ties to even (independent of numpy's paths)."""
    from fractions import Fraction
    if abs(q) >= 2 ** 128 - 2 ** 103:           # at or past the largest f32 plus half an ulp
        return np.float32(np.inf if q > 0 else -np.inf)
    with np.errstate(over="ignore"):
        f = np.float32(float(q))
        if not np.isfinite(f):
            f = np.float32(np.finfo(np.float32).max * (1 if q > 0 else -1))
        cands = [c for c in (np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf)))
                 if np.isfinite(c)]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - q), int(np.float32(c).view(np.uint32)) & 1))
    return np.float32(best)


def test_f32_min_max_ieee_mode():
    a, b = f32(), f32()[:, ::-1].copy()
    a[1, :4] = [0.0, -0.0, np.nan, 1.0]
    b[1, :4] = [-0.0, 0.0, 2.0, np.nan]
    def ref(x, y, take_max):
        out = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.maximum(x, y) if take_max else np.minimum(x, y)))
        zero = (x == 0) & (y == 0)
        signed = np.where(take_max, np.where(np.signbit(x), y, x), np.where(np.signbit(x), x, y))
        return np.where(zero, signed, out).astype(np.float32)
    same_float(run("v_max_f32", S0=bits(a), S1=bits(b))["D0"], ref(a, b, True))
    same_float(run("v_min_f32", S0=bits(a), S1=bits(b))["D0"], ref(a, b, False))


F_COMPARE = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "eq": np.equal,
             "lg": lambda a, b: (a < b) | (a > b), "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
             "o": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "u": lambda a, b: np.isnan(a) | np.isnan(b)}


@pytest.mark.parametrize("op", sorted(F_COMPARE))
def test_float_compares_with_nan(op):
    a, b = f32(), f32()[:, ::-1].copy()
    b[:, ::4] = a[:, ::4]
    assert (run(f"v_cmp_{op}_f32", S0=bits(a), S1=bits(b))["D0"] == F_COMPARE[op](a, b)).all()
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    assert (run(f"v_cmp_{op}_f16", S0=a16.view(np.uint16).astype(np.uint32),
                S1=b16.view(np.uint16).astype(np.uint32))["D0"] == F_COMPARE[op](a16, b16)).all()
    a64, b64 = a.astype(np.float64) * 1e300, b.astype(np.float64) * 1e300
    assert (run(f"v_cmp_{op}_f64", S0=bits(a64), S1=bits(b64))["D0"] == F_COMPARE[op](a64, b64)).all()


def test_cmp_class_f32():
    a = f32()
    a[0, :4] = np.array([0x7F800001, 0xFFC00000, 0x00000001, 0x80000000], np.uint32).view(np.float32)
    mask = u32() & np.uint32(0x3FF)
    u = a.view(np.uint32)
    exp, man, neg = (u >> 23) & 0xFF, u & 0x7FFFFF, (u >> 31).astype(bool)
    cls = np.select([(exp == 255) & (man != 0) & ((man >> 22) == 0), (exp == 255) & (man != 0),
                     (exp == 255) & neg, (exp != 0) & neg, (exp == 0) & (man != 0) & neg, (exp == 0) & neg,
                     (exp == 0) & (man == 0), (exp == 0), (exp != 255)], [0, 1, 2, 3, 4, 5, 6, 7, 8], 9)
    want = ((mask >> cls.astype(np.uint32)) & 1).astype(bool)
    assert (run("v_cmp_class_f32", S0=u, S1=mask)["D0"] == want).all()


def test_conversions():
    a = f32()
    with np.errstate(all="ignore"):
        same_float(run("v_cvt_f16_f32", S0=bits(a))["D0"], a.astype(np.float16))
        h = a.astype(np.float16)
        same_float(run("v_cvt_f32_f16", S0=h.view(np.uint16).astype(np.uint32))["D0"], h.astype(np.float32))
        same_float(run("v_cvt_f64_f32", S0=bits(a))["D0"], a.astype(np.float64))
        d = a.astype(np.float64) * 3.3
        same_float(run("v_cvt_f32_f64", S0=bits(d))["D0"], d.astype(np.float32))
        i = u32()
        same_float(run("v_cvt_f32_u32", S0=i)["D0"], i.astype(np.float32))
        same_float(run("v_cvt_f32_i32", S0=i)["D0"], i.view(np.int32).astype(np.float32))
        # float -> int: truncate, saturate, NaN -> 0
        sat_i = np.where(np.isnan(a), 0, np.clip(np.trunc(a.astype(np.float64)), -2 ** 31, 2 ** 31 - 1)).astype(np.int64)
        assert (run("v_cvt_i32_f32", S0=bits(a))["D0"] == sat_i.astype(np.uint32)).all()
        sat_u = np.where(np.isnan(a), 0, np.clip(np.trunc(a.astype(np.float64)), 0, 2 ** 32 - 1)).astype(np.uint64)
        assert (run("v_cvt_u32_f32", S0=bits(a))["D0"] == sat_u.astype(np.uint32)).all()


def test_f16_arithmetic_and_packed():
    a, b = f32().astype(np.float16), f32()[:, ::-1].astype(np.float16)
    ua, ub = a.view(np.uint16).astype(np.uint32), b.view(np.uint16).astype(np.uint32)
    with np.errstate(all="ignore"):
        same_float(run("v_add_f16", S0=ua, S1=ub)["D0"].astype(np.uint16), a + b)
        same_float(run("v_mul_f16", S0=ua, S1=ub)["D0"].astype(np.uint16), a * b)
        pk_a, pk_b = ua | (ub << np.uint32(16)), ub | (ua << np.uint32(16))
        got = run("v_pk_add_f16", S0=pk_a, S1=pk_b)["D0"]
        same_float((got & np.uint32(0xFFFF)).astype(np.uint16), a + b)
        same_float((got >> np.uint32(16)).astype(np.uint16), b + a)


def test_f64_arithmetic():
    a, b = f32().astype(np.float64) * 1.1, f32()[:, ::-1].astype(np.float64) / 3
    with np.errstate(all="ignore"):
        same_float(run("v_add_f64", S0=bits(a), S1=bits(b))["D0"], a + b)
        same_float(run("v_mul_f64", S0=bits(a), S1=bits(b))["D0"], a * b)


def test_ldexp_f32_with_negative_exponents():
    a = f32()
    e = (rng.integers(-160, 160, (W, L))).astype(np.int32)
    with np.errstate(all="ignore"):
        same_float(run("v_ldexp_f32", S0=bits(a), S1=e.view(np.uint32))["D0"], np.ldexp(a, e))


# ---------------- SALU ----------------
def srun(name, **inputs):
    return run(name, **{k: np.asarray(v).reshape(1, 1) if not isinstance(v, int) else v for k, v in inputs.items()})


@pytest.mark.parametrize("a,b", [(0xFFFFFFFF, 1), (5, 7), (0x80000000, 0x80000000), (0, 0), (0x7FFFFFFF, 1)])
def test_salu_add_sub_scc(a, b):
    out = srun("s_add_u32", S0=np.uint32(a), S1=np.uint32(b))
    assert int(out["D0"][0, 0]) == (a + b) & 0xFFFFFFFF and int(out["SCC"][0, 0]) == int(a + b > 0xFFFFFFFF)
    out = srun("s_sub_u32", S0=np.uint32(a), S1=np.uint32(b))
    assert int(out["D0"][0, 0]) == (a - b) & 0xFFFFFFFF and int(out["SCC"][0, 0]) == int(b > a)
    sa, sb = np.int32(np.uint32(a).view(np.int32)), np.int32(np.uint32(b).view(np.int32))
    out = srun("s_add_i32", S0=np.uint32(a), S1=np.uint32(b))
    exact = int(sa) + int(sb)
    assert int(out["D0"][0, 0]) == exact & 0xFFFFFFFF and int(out["SCC"][0, 0]) == int(not -2 ** 31 <= exact < 2 ** 31)
    out = srun("s_addc_u32", S0=np.uint32(a), S1=np.uint32(b), SCC=np.uint32(1))
    assert int(out["D0"][0, 0]) == (a + b + 1) & 0xFFFFFFFF and int(out["SCC"][0, 0]) == int(a + b + 1 > 0xFFFFFFFF)


def test_salu_shifts_bitops_and_compares():
    for a in EDGE_U32:
        for s in (0, 1, 31, 32, 33):
            out = srun("s_lshl_b32", S0=a, S1=np.uint32(s))
            want = (int(a) << (s & 31)) & 0xFFFFFFFF
            assert int(out["D0"][0, 0]) == want and int(out["SCC"][0, 0]) == int(want != 0)
            out = srun("s_ashr_i32", S0=a, S1=np.uint32(s))
            assert int(out["D0"][0, 0]) == (int(np.int32(a.view(np.int32))) >> (s & 31)) & 0xFFFFFFFF
        out = srun("s_brev_b32", S0=a)
        assert int(out["D0"][0, 0]) == int(f"{int(a):032b}"[::-1], 2)
        out = srun("s_bcnt1_i32_b32", S0=a)
        assert int(out["D0"][0, 0]) == bin(int(a)).count("1")
        out = srun("s_ctz_i32_b32", S0=a)
        assert int(np.uint32(out["D0"][0, 0]).view(np.int32)) == ((int(a) & -int(a)).bit_length() - 1 if a else -1)
        out = srun("s_cmp_lt_i32", S0=a, S1=np.uint32(5))
        assert int(out["SCC"][0, 0]) == int(int(np.uint32(a).view(np.int32)) < 5)
        out = srun("s_bitcmp1_b32", S0=a, S1=np.uint32(31))
        assert int(out["SCC"][0, 0]) == int(a) >> 31


def test_saveexec_and_branches():
    sem = TABLE.lookup("s_and_saveexec_b32")
    got = sem.execute(Ctx(lanes=32, exec_mask=np.array([[0xFF00]], np.uint64), scalar=True,
                          inputs={"S0": np.array([[0x0FF0]], np.uint32)}))
    assert int(got["EXEC"][0, 0]) == 0x0F00 and int(got["D0"][0, 0]) == 0xFF00 and int(got["SCC"][0, 0]) == 1
    for scc, taken in ((0, True), (1, False)):
        pc = np.array([[0x1000]], np.uint64)
        got = srun("s_cbranch_scc0", SCC=np.uint32(scc), PC=pc, SIMM16=0xFFFE)   # -2 dwords
        assert int(got["PC"][0, 0]) == (0x1000 + 4 - 8 if taken else 0x1004)
    got = srun("s_branch", PC=np.array([[0x1000]], np.uint64), SIMM16=0x7FFF)
    assert int(got["PC"][0, 0]) == 0x1000 + 4 + 0x7FFF * 4
    assert TABLE.lookup("s_cbranch_execz").branch and not TABLE.lookup("s_add_u32").branch


# ---------------- memory ----------------
class FakeMemory:
    """Flat little-endian byte array; independent of the semantics under test."""

    def __init__(self, size=4096):
        self.data = np.zeros(size, np.uint8)

    def load(self, addr, nbytes, mask):
        out = np.zeros(addr.shape, np.uint64)
        for k in range(nbytes):
            byte = self.data[np.where(mask, addr + np.uint64(k), 0).astype(np.int64)].astype(np.uint64)
            out |= np.where(mask, byte, 0).astype(np.uint64) << np.uint64(8 * k)
        return out

    def store(self, addr, nbytes, value, mask):
        a, v = addr[mask].astype(np.int64), value[mask].astype(np.uint64)
        for k in range(nbytes):
            self.data[a + k] = ((v >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8)


def mrun(name, mem, exec_mask=None, **inputs):
    sem = TABLE.lookup(name)
    if exec_mask is None:
        exec_mask = np.full((W, 1), (1 << L) - 1, np.uint64)
    if sem.reads_d0:
        for k in ("VDATA", "RETURN_DATA"):
            if k in sem.reads and k not in inputs:
                inputs[k] = np.zeros((W, L), np.uint32)
    return sem.execute(Ctx(lanes=L, exec_mask=exec_mask, inputs=inputs, mem=mem, scalar=sem.scalar))


def test_global_load_store_widths_and_exec_mask():
    mem = FakeMemory()
    addr = (np.arange(W * L, dtype=np.uint64) * 16).reshape(W, L)
    data = [u32() for _ in range(4)]
    vdata = np.stack(data, -1)
    exec_mask = np.array([[0xFFFFFFFF], [0x0000FFFF]], np.uint64)
    mrun("global_store_b128", mem, exec_mask=exec_mask, ADDR=addr, VDATA=vdata)
    words = mem.data.view(np.uint32)
    active = ((exec_mask >> np.arange(L, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    for k in range(4):
        stored = words[(addr // 4 + k).astype(np.int64)]
        assert (stored[active] == data[k][active]).all() and (stored[~active] == 0).all()
    out = mrun("global_load_b128", mem, ADDR=addr)["VDATA"]
    assert out.shape == (W, L, 4) and (out[active] == vdata[active]).all()
    b = mrun("global_load_u8", mem, ADDR=addr + np.uint64(1))["VDATA"]
    assert (b[active] == ((data[0] >> 8) & 0xFF)[active]).all()
    sb = mrun("global_load_i16", mem, ADDR=addr + np.uint64(2))["VDATA"]
    assert (sb[active] == (data[0] >> 16).astype(np.uint16).view(np.int16).astype(np.int32).view(np.uint32)[active]).all()


def test_ds_atomics_serialise_lanes_sharing_an_address():
    mem = FakeMemory()
    addr = np.zeros((W, L), np.uint64)
    addr[:, ::2] = 64
    ones = np.ones((W, L), np.uint32)
    out = mrun("ds_add_rtn_u32", mem, ADDR=addr, DATA=ones)
    assert mem.data.view(np.uint32)[0] == W * L // 2 and mem.data.view(np.uint32)[16] == W * L // 2
    # each lane sees the value before its own add, in lane order
    ret = out["RETURN_DATA"]
    assert sorted(ret[addr == 0].tolist()) == list(range(W * L // 2))
    mem2 = FakeMemory()
    a = np.arange(W * L, dtype=np.uint64).reshape(W, L) * 4
    mem2.data.view(np.uint32)[: W * L] = 7
    cmp = np.where(rng.random((W, L)) < 0.5, 7, 8).astype(np.uint32)
    mrun("ds_cmpstore_rtn_b32", mem2, ADDR=a, DATA=np.full((W, L), 99, np.uint32), DATA2=cmp)
    assert (mem2.data.view(np.uint32)[: W * L].reshape(W, L) == np.where(cmp == 7, 99, 7)).all()


def test_ds_2addr_and_smem():
    mem = FakeMemory()
    mem.data.view(np.uint32)[:] = np.arange(1024, dtype=np.uint32)
    base = (np.arange(W * L, dtype=np.uint64) * 4).reshape(W, L)
    out = mrun("ds_load_2addr_b32", mem, ADDR_BASE=base, OFFSET0=1, OFFSET1=3)
    d = out["RETURN_DATA"]
    assert (d & np.uint64(0xFFFFFFFF) == base // 4 + 1).all() and (d >> np.uint64(32) == base // 4 + 3).all()
    sem = TABLE.lookup("s_load_b256")
    got = sem.execute(Ctx(lanes=32, exec_mask=np.ones((1, 1), np.uint64), scalar=True, mem=mem,
                          inputs={"ADDR": np.array([[40]], np.uint64)}))
    assert got["SDATA"].shape == (1, 1, 8) and got["SDATA"][0, 0].tolist() == list(range(10, 18))


def test_normalised_conversions_clamp_and_round_to_even():
    a = f32()
    a[0, :6] = [0.5, -0.5, 2.0, -3.0, np.nan, 1.0 / 65535 * 2.5]
    h = a.astype(np.float16)
    x = np.nan_to_num(h.astype(np.float64), nan=0.0)
    with np.errstate(all="ignore"):
        want_s = np.rint(np.clip(x, -1, 1) * 32767).astype(np.int64)
        want_u = np.rint(np.clip(x, 0, 1) * 65535).astype(np.int64)
    hu = h.view(np.uint16).astype(np.uint32)
    assert (run("v_cvt_norm_i16_f16", S0=hu)["D0"] & 0xFFFF == want_s.astype(np.uint16)).all()
    assert (run("v_cvt_norm_u16_f16", S0=hu)["D0"] & 0xFFFF == want_u.astype(np.uint16)).all()


def test_round_and_denorm_mode_set_their_mode_fields():
    sem = TABLE.lookup("s_denorm_mode")
    got = sem.execute(Ctx(lanes=32, exec_mask=np.ones((2, 1), np.uint64), scalar=True, inputs={"SIMM16": 0x5},
                          mode=np.array([[0x3F3], [0x000]], np.uint32)))
    assert got["MODE"].ravel().tolist() == [0x353, 0x050]
    sem = TABLE.lookup("s_round_mode")
    got = sem.execute(Ctx(lanes=32, exec_mask=np.ones((1, 1), np.uint64), scalar=True, inputs={"SIMM16": 0xA},
                          mode=np.array([[0x3F3]], np.uint32)))
    assert got["MODE"].ravel().tolist() == [0x3FA]


def test_f32_fma_double_rounding_hard_cases():
    """Sums whose float64 rounding lands exactly on an f32 midpoint (the only place a double
    rounding can go wrong), at normal, denormal and overflow scales, against exact rationals."""
    from fractions import Fraction
    u = 2.0 ** -23
    rows = []
    for e in (0, 20, -100, -126, -140, 100, 127):
        for sign in (1.0, -1.0):
            for j in (0, 1, 2, 3):                      # even and odd f32 mantissas of c
                c = sign * 2.0 ** e * (1 + j * u)
                for a, b in ((1 + u, 1 - u), (1 + 2 ** -12, 1 + 2 ** -12), (1 - u, 1 - u), (1 + u, 1 + u)):
                    for s in (sign, -sign):
                        rows.append((a, b * s * 2.0 ** (e - 24), c))
                        rows.append((a, b * s * 2.0 ** (e - 25), c))
    big_denormal = 2.0 ** -126 - 2.0 ** -149        # its midpoint to the smallest normal rounds up to even
    rows += [(2.0 ** -75 * (1 + u), 2.0 ** -75 * (1 - u), big_denormal),
             (-(2.0 ** -75) * (1 + u), 2.0 ** -75 * (1 - u), -big_denormal),
             (2.0 ** -75 * (1 + u), 2.0 ** -76 * (1 - u), 2.0 ** -149),
             (3.4028235e38, 2.0, -3.4028235e38), (3.4028235e38, 1.0, 2.0 ** 103), (np.inf, 0.0, 1.0),
             (np.nan, 1.0, 2.0), (1.0, 1.0, -1.0), (-0.0, 1.0, 0.0), (2.0 ** -149, 0.5, 0.0)]
    vals = np.array(rows, np.float64).astype(np.float32)
    vals = np.resize(vals, (-(-len(vals) // (W * L)) * W * L, 3))
    want = []
    for x, y, z in vals:
        if all(np.isfinite([x, y, z])):
            q = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
            with np.errstate(all="ignore"):
                zero = np.float32(np.float64(x) * np.float64(y) + np.float64(z))
            want.append(_round_fraction_f32(q) if q != 0 else zero)
        else:
            with np.errstate(all="ignore"):
                want.append(np.float32(np.float64(x) * np.float64(y) + np.float64(z)))
    with np.errstate(all="ignore"):
        naive = (np.float64(vals[:, 0]) * np.float64(vals[:, 1]) + np.float64(vals[:, 2])).astype(np.float32)
    want = np.array(want, np.float32)
    assert (naive.view(np.uint32) != want.view(np.uint32)).sum() >= 10      # the cases are hard
    for at in range(0, len(vals), W * L):                                    # one W x L batch at a time
        a, b, c = (vals[at:at + W * L, i].reshape(W, L) for i in range(3))
        same_float(run("v_fma_f32", S0=bits(a), S1=bits(b), S2=bits(c))["D0"], want[at:at + W * L].reshape(W, L))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("by_dot", [True, False])
def test_any_nan_agrees_with_numpy_isnan(dtype, by_dot):
    """rtlib.any_nan (the NaN test of first_nan and the min/max shortcuts; EmuOptions.nan_by_dot:
    a sum of squares) against numpy's isnan().any(): overflowing squares, infinities of both
    signs (no inf - inf may pass for a NaN), a NaN at either end or in a strided view."""
    from dataclasses import replace
    from emu.options import FAST, activate, deactivate
    from emu.rtlib import any_nan
    info = np.finfo(dtype)
    base = np.array([info.max, -info.max, np.inf, -np.inf, 0.0, -0.0, info.tiny, 1.5] * 8, dtype).reshape(2, 32)
    cases = [base, base[:, ::2], np.zeros((0, 32), dtype), np.full((3, 32), -np.inf, dtype)]
    for where in ((0, 0), (1, 31), (1, 6)):
        x = base.copy()
        x[where] = np.nan
        cases += [x, x[:, ::2], -x]
    token = activate(replace(FAST, nan_by_dot=by_dot))
    try:
        for x in cases:
            assert any_nan(x) is bool(np.isnan(x).any())
    finally:
        deactivate(token)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
                                   np.float32, np.float64])
@pytest.mark.parametrize("blend", [True, False])
def test_select_agrees_with_numpy_where(dtype, blend):
    """rtlib.select (EmuOptions.blend_selects: a bit blend instead of where) against numpy's
    where, bit for bit: NaNs with payloads and signs, -0, every broadcast of the three operands
    the semantics pass (per-lane, per-wave (W, 1), one value (1, 1) or 0-d), mixed dtypes and
    Python ints (which where promotes), and conditions below the blend's least size."""
    from dataclasses import replace
    from emu.options import FAST, activate, deactivate
    from emu.rtlib import select
    rng = np.random.default_rng(7)
    size = np.dtype(dtype).itemsize
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]

    def values(shape):
        bits = rng.integers(0, 1 << 62, shape).astype(np.uint64).astype(unsigned)
        flat = bits.reshape(-1)
        if np.dtype(dtype).kind == "f" and flat.size > 4:     # NaNs with payloads, -0, infinities
            info = np.finfo(dtype)
            specials = np.array([np.nan, -np.inf, -0.0, info.smallest_subnormal], dtype).view(unsigned)
            flat[:4] = specials
            flat[1] |= unsigned(1)     # a NaN's payload (-inf's low bit set)
        return bits.view(dtype)
    shapes = [((64, 32), (64, 32), (64, 32)), ((1, 1), (64, 32), (64, 32)), ((64, 1), (1, 32), (64, 32)),
              ((64, 32), (64, 32), (64, 1)), ((), (64, 32), (64, 32)), ((4, 32), (4, 32), (4, 32))]
    token = activate(replace(FAST, blend_selects=blend))
    try:
        for sa, sb, sc in shapes:
            a, b, cond = values(sa), values(sb), rng.random(sc) < 0.5
            for x, y in ((a, b), (a, 5), (a, b.astype(np.float64)), (np.asarray(a)[()], b)):
                want, got = np.where(cond, x, y), select(cond, x, y)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes()
                assert not np.shares_memory(got, a) and not np.shares_memory(got, b)
    finally:
        deactivate(token)

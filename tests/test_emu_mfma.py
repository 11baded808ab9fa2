"""CDNA matrix instructions (V_MFMA_*, V_SMFMAC_*; emu/handwritten/mfma.py) against numpy
matmuls. The register layouts are written here from the manuals, element by element:

- Names (CDNA3 7.1): V_MFMA_[out]_[M]X[N]X[K][_[B]B]_[in]; B = 1 when absent.
- Input layout (7.1.4.1): K_L = K / (64 / (M * B)); A[b,i,k] is item k % K_L of lane
  i + M * (b + B * (k / K_L)); B[b,k,j] item k % K_L of lane j + N * (b + B * (k / K_L)).
  Items are packed little-endian: 64-bit = a register pair (low dword first), 32-bit = one
  register, 16-bit = two per register (even items in bits 15:0), 8-bit = four per register.
- Output layout (7.1.4.2): H = 1 for f64, else 4; B_I = ceil(64 / (N * M / H)),
  M_I = (64 / B_I) / N, G = M / (H * M_I); D[b,i,j] is item (i % H) + H * (i / (H * M_I) +
  G * (b / B_I)) of lane j + N * ((i / H) % M_I + M_I * (b % B_I)); C likewise.
- Broadcasts (7.1.5): lane l reads A from lane (l % S) + S * ABID, S = 64 / (1 << CBSZ);
  B from the lane of table 29 (BLGP). F64: BLGP[0..2] negate A, B, C.
- Sparse (7.4): A holds two of every four K values (half the items of a dense lane); the
  index VGPR holds 2 bits per stored A item (bits 1:0 = item 0, ...), in sets of 8 bits
  (16-bit data) / 16 bits (8-bit data) chosen by ABID when CBSZ[1:0] = 0; each index is the
  value's position within its group of four K values. C is the old D.
- CDNA4 F8F6F4 (7.1.5): CBSZ / BLGP = A / B format (0 FP8, 1 BF8, 2 FP6, 3 BF6, 4 FP4);
  small floats are bit-contiguous (FP6: 32 values in 6 registers).
- Small float formats (table 30): CDNA3 FP8 E4M3 bias 8, BF8 E5M2 bias 16, 0x80 NaN;
  CDNA4 FP8 E4M3 bias 7, BF8 E5M2 bias 15, FP6 E2M3 bias 1, BF6 E3M2 bias 3, FP4 E2M1 bias 1.

Values are small integers and halves, so products and sums are exact in every type and the
references do not depend on accumulation order; the rounding tests state the assumption
they check (the sum of C and the products rounded once to f32, RNE; f64 as an fma chain).
The clang-compiled kernel mfma_gemm_32x32x8 gives a layout check independent of the manual
reading (its comments and the reference below), and runs through Device("emu") once the
machine emulates gfx942.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

import isa
from emu.handwritten import mfma, minifloat, semantic
from emu.semantics import Ctx, SemanticsError

rng = np.random.default_rng(942)
FAMILY = {"gfx942": "cdna3", "gfx950": "cdna4"}
BITS = {"f32": 32, "xf32": 32, "f64": 64, "f16": 16, "bf16": 16, "i8": 8, "fp8": 8, "bf8": 8,
        "fp6": 6, "bf6": 6, "fp4": 4}
# (exponent bits, mantissa bits, bias) per family, table 30
SMALL = {("cdna3", "fp8"): (4, 3, 8), ("cdna3", "bf8"): (5, 2, 16), ("cdna4", "fp8"): (4, 3, 7),
         ("cdna4", "bf8"): (5, 2, 15), ("cdna4", "fp6"): (2, 3, 1), ("cdna4", "bf6"): (3, 2, 3),
         ("cdna4", "fp4"): (2, 1, 1)}
F8F6F4 = ("fp8", "bf8", "fp6", "bf6", "fp4")


def names(arch: str, prefix: str) -> list[str]:
    return sorted(d.name for d in isa.load(arch).instructions if d.name.startswith(prefix))


def parse(name: str):
    g = re.match(r"V_S?MFMAC?_(F32|I32|F64)_(\d+)X(\d+)X(\d+)(?:_(\d+)B)?_(.+)$", name)
    kinds = g[6].lower().split("_")
    a, b = (kinds * 2)[:2]
    return int(g[2]), int(g[3]), int(g[4]), int(g[5] or 1), a, b, g[1].lower()


# ---------------------------------------------------------------- encoding
def encode(x: np.ndarray, kind: str, family: str) -> np.ndarray:
    """Exact values -> raw codes (object ints)."""
    x = np.asarray(x, np.float64)
    if kind in ("f32", "xf32"):
        return x.astype(np.float32).view(np.uint32).astype(object)
    if kind == "f64":
        return x.view(np.uint64).astype(object)
    if kind == "f16":
        return x.astype(np.float16).view(np.uint16).astype(object)
    if kind == "bf16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(object)
    if kind == "i8":
        return (x.astype(np.int64) & 0xFF).astype(object)
    e, m, bias = SMALL[(family, kind)]
    out = np.empty(x.shape, object)
    for idx, v in np.ndenumerate(x):
        if v == 0:
            out[idx] = 0
            continue
        f = Fraction(abs(v))
        exp = max(math.floor(math.log2(f)), 1 - bias)               # denormals: exponent field 0
        mant = (f / Fraction(2) ** exp - (1 if exp + bias >= 1 and f >= Fraction(2) ** exp else 0)) * (1 << m)
        field = exp + bias if f >= Fraction(2) ** exp else 0
        assert mant.denominator == 1 and 0 <= mant < (1 << m) and field < (1 << e), (v, kind)
        out[idx] = (int(v < 0) << (e + m)) | (field << m) | int(mant)
    return out


def pack(items: np.ndarray, bits: int) -> np.ndarray:
    """(64, count) codes -> (64, dwords) uint32, item 0 in the lowest bits."""
    count = items.shape[1]
    dwords = -(-count * bits // 32)
    out = np.zeros((64, dwords), np.uint32)
    for lane in range(64):
        word = sum(int(c) << (bits * r) for r, c in enumerate(items[lane]))
        for d in range(dwords):
            out[lane, d] = (word >> (32 * d)) & 0xFFFFFFFF
    return out


def as_operand(dwords: np.ndarray) -> np.ndarray:
    """(W, 64, n) dwords -> the contract's form: uint32 (W, 64) / uint64 (W, 64) / as is."""
    if dwords.shape[-1] == 1:
        return dwords[..., 0]
    if dwords.shape[-1] == 2:
        return dwords[..., 0].astype(np.uint64) | (dwords[..., 1].astype(np.uint64) << np.uint64(32))
    return dwords


def as_dwords(value: np.ndarray) -> np.ndarray:
    v = np.asarray(value)
    if v.ndim == 2:
        v = np.stack([v & np.uint64(0xFFFFFFFF), v >> np.uint64(32)], -1) if v.dtype == np.uint64 else v[..., None]
    return v.astype(np.uint32)


# ---------------------------------------------------------------- layouts (manual 7.1.4)
def place_a(a: np.ndarray, m, k, blocks, k_lane) -> np.ndarray:
    """a[b, i, k] -> (64, K_L) per-lane items."""
    out = np.zeros((64, k_lane), object)
    for b in range(blocks):
        for i in range(m):
            for kk in range(k):
                out[i + m * (b + blocks * (kk // k_lane)), kk % k_lane] = a[b, i, kk]
    return out


def place_b(bm: np.ndarray, n, k, blocks, k_lane) -> np.ndarray:
    out = np.zeros((64, k_lane), object)
    for b in range(blocks):
        for j in range(n):
            for kk in range(k):
                out[j + n * (b + blocks * (kk // k_lane)), kk % k_lane] = bm[b, kk, j]
    return out


def cd_place(m, n, blocks, f64: bool):
    """{(b, i, j): (lane, item)} of C/D."""
    h = 1 if f64 else 4
    b_i = math.ceil(64 / (n * m / h))
    m_i = (64 // b_i) // n
    g = m // (h * m_i)
    return {(b, i, j): (j + n * ((i // h) % m_i + m_i * (b % b_i)), (i % h) + h * (i // (h * m_i) + g * (b // b_i)))
            for b in range(blocks) for i in range(m) for j in range(n)}


def values(kind: str, shape, family: str = "cdna3") -> np.ndarray:
    """Random values exact in `kind` whose products and sums are exact in f32."""
    if kind == "i8":
        return rng.integers(-128, 128, shape).astype(np.float64)
    if kind == "fp4":
        choices = [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    elif kind in ("fp6", "bf6", "fp8", "bf8"):
        choices = [0, 0.5, 0.75, 1, 1.5, 2, 3, 4]
    else:
        choices = list(np.arange(-8, 8.5, 0.5))
    v = rng.choice(choices, shape)
    return v * rng.choice([-1, 1], shape)


def run(arch: str, name: str, inputs: dict, waves: int = 1, mode=0x3F0) -> np.ndarray:
    sem = semantic(name, False, isa.load(arch))
    assert sem is not None and sem.origin == "hand-written"
    full = {"CBSZ": 0, "ABID": 0, "BLGP": 0, **inputs}
    ctx = Ctx(lanes=64, exec_mask=np.full((waves, 1), 2 ** 64 - 1, np.uint64), inputs=full, mode=mode)
    return as_dwords(sem.execute(ctx)["D0"])


def dense_case(arch: str, name: str, waves: int = 2, cbsz: int = 0, blgp: int = 0, a_kind=None, b_kind=None):
    """Random A, B, C for `name`; returns (inputs, A, B, C, layout info)."""
    family = FAMILY[arch]
    m, n, k, blocks, a_kind0, b_kind0, out = parse(name)
    a_kind, b_kind = a_kind or a_kind0, b_kind or b_kind0
    k_lane = k // (64 // (m * blocks))
    A = values(a_kind, (waves, blocks, m, k), family)
    B = values(b_kind, (waves, blocks, k, n), family)
    C = values("i8" if out == "i32" else "f16", (waves, blocks, m, n))
    inputs, place = build_inputs(arch, name, A, B, C, a_kind, b_kind)
    inputs.update(CBSZ=cbsz, BLGP=blgp)
    return inputs, A, B, C, place, out


def build_inputs(arch: str, name: str, A, B, C, a_kind: str, b_kind: str):
    """S0/S1/S2 of `name` holding A (W, B, M, K), B (W, B, K, N), C (W, B, M, N) as the manual
    lays them out; returns (inputs, {(b, i, j): (lane, item)})."""
    family = FAMILY[arch]
    m, n, k, blocks, _, _, out = parse(name)
    waves = A.shape[0]
    k_lane = k // (64 // (m * blocks))
    place = cd_place(m, n, blocks, out == "f64")
    out_bits = 64 if out == "f64" else 32
    items = m * n * blocks // 64
    s0 = np.stack([pack(place_a(encode(A[w], a_kind, family), m, k, blocks, k_lane), BITS[a_kind]) for w in range(waves)])
    s1 = np.stack([pack(place_b(encode(B[w], b_kind, family), n, k, blocks, k_lane), BITS[b_kind]) for w in range(waves)])
    c_items = np.zeros((waves, 64, items), object)
    c_kind = {"f32": "f32", "i32": "i8", "f64": "f64"}[out]
    for w in range(waves):
        codes = encode(C[w], c_kind, family) if out != "i32" else (C[w].astype(np.int64) & 0xFFFFFFFF).astype(object)
        for (b, i, j), (lane, item) in place.items():
            c_items[w, lane, item] = codes[b, i, j]
    s2 = np.stack([pack(c_items[w], out_bits) for w in range(waves)])
    return {"S0": as_operand(s0), "S1": as_operand(s1), "S2": as_operand(s2)}, place


def unplace(d: np.ndarray, place, out: str, shape) -> np.ndarray:
    """D0 dwords (W, 64, n) -> D[w, b, i, j] as float64."""
    waves = d.shape[0]
    res = np.zeros((waves,) + shape)
    for (b, i, j), (lane, item) in place.items():
        if out == "f64":
            raw = d[:, lane, 2 * item].astype(np.uint64) | (d[:, lane, 2 * item + 1].astype(np.uint64) << np.uint64(32))
            res[:, b, i, j] = raw.view(np.float64)
        elif out == "i32":
            res[:, b, i, j] = d[:, lane, item].view(np.int32)
        else:
            res[:, b, i, j] = d[:, lane, item].view(np.float32)
    return res


DENSE = [(arch, n) for arch in ("gfx942", "gfx950") for n in names(arch, "V_MFMA_") if n != "V_MFMA_LD_SCALE_B32"]


@pytest.mark.parametrize("arch,name", DENSE)
def test_dense_matches_numpy(arch, name):
    kinds = {}
    if "F8F6F4" in name:
        kinds = {"a_kind": "fp8", "b_kind": "fp8"}
    inputs, A, B, C, place, out = dense_case(arch, name, **kinds)
    d = run(arch, name, inputs, waves=2)
    want = np.einsum("wbik,wbkj->wbij", A, B) + C
    np.testing.assert_array_equal(unplace(d, place, out, A.shape[1:3] + (B.shape[3],)), want)


@pytest.mark.parametrize("cbsz,blgp", [(1, 2), (4, 3), (2, 4), (3, 1), (4, 4), (0, 2)])
@pytest.mark.parametrize("name", ["V_MFMA_F32_16X16X128_F8F6F4", "V_MFMA_F32_32X32X64_F8F6F4"])
def test_f8f6f4_formats(name, cbsz, blgp):
    """CBSZ picks A's format, BLGP B's: FP6 takes 6 registers, FP4 four (CDNA4 7.1.5)."""
    inputs, A, B, C, place, out = dense_case("gfx950", name, cbsz=cbsz, blgp=blgp,
                                            a_kind=F8F6F4[cbsz], b_kind=F8F6F4[blgp])
    d = run("gfx950", name, inputs, waves=2)
    want = np.einsum("wbik,wbkj->wbij", A, B) + C
    np.testing.assert_array_equal(unplace(d, place, out, A.shape[1:3] + (B.shape[3],)), want)


def test_f8f6f4_block_scales():
    """V_MFMA_SCALE_*: lane l's selected scale byte (E8M0, bias 127) scales the 32 K values
    lane l holds (one block of 32 along K; CDNA4 7.2)."""
    name = "V_MFMA_F32_16X16X128_F8F6F4"
    inputs, A, B, C, place, out = dense_case("gfx950", name, waves=1, a_kind="fp8", b_kind="fp8")
    sa = rng.integers(120, 134, 64).astype(np.uint32)
    sb = rng.integers(120, 134, 64).astype(np.uint32)
    inputs.update(SCALE_A=(sa << 16)[None], SCALE_A_SEL=2, SCALE_B=(sb << 8)[None] | 0xFF, SCALE_B_SEL=1)
    d = run("gfx950", name, inputs)
    # A[0, i, k] sits in lane i + 16 * (k // 32); B[0, k, j] in lane j + 16 * (k // 32)
    k = np.arange(128)
    A2 = A[0, 0] * 2.0 ** (sa[np.arange(16)[:, None] + 16 * (k // 32)[None]].astype(np.int64) - 127)
    B2 = B[0, 0] * 2.0 ** (sb[np.arange(16)[None] + 16 * (k // 32)[:, None]].astype(np.int64) - 127)
    want = A2 @ B2 + C[0, 0]
    np.testing.assert_array_equal(unplace(d, place, out, (1, 16, 16))[0, 0], want.astype(np.float32))


@pytest.mark.parametrize("cbsz,abid", [(1, 0), (1, 1)])
def test_cbsz_abid_broadcast_manual_example(cbsz, abid):
    """7.1.5.1's example: V_MFMA_F32_32X32X1_2B_F32 with CBSZ=1, ABID=1 computes
    D[b,i,j] = C[b,i,j] + A[1,i,0] * B[b,0,j]."""
    name = "V_MFMA_F32_32X32X1_2B_F32"
    inputs, A, B, C, place, out = dense_case("gfx942", name)
    inputs["ABID"] = abid
    inputs["CBSZ"] = cbsz
    d = run("gfx942", name, inputs, waves=2)
    want = A[:, [abid, abid]] @ B + C
    np.testing.assert_array_equal(unplace(d, place, out, (2, 32, 32)), want)


@pytest.mark.parametrize("cbsz,abid", [(2, 3), (4, 9), (3, 5)])
def test_cbsz_abid_lane_permutation(cbsz, abid):
    """The general rule: lane l reads A from lane (l % S) + S * ABID, S = 64 / 2**CBSZ
    (V_MFMA_F32_4X4X4_16B_F16: 16 blocks of 4 lanes)."""
    name = "V_MFMA_F32_4X4X4_16B_F16"
    inputs, A, B, C, place, out = dense_case("gfx942", name)
    inputs.update(CBSZ=cbsz, ABID=abid)
    d = run("gfx942", name, inputs, waves=2)
    size = 64 >> cbsz
    # A[b] of 4x4x4_16B lives in lanes 4b..4b+3: block b reads the block of lane ((4b) % S) + S * ABID
    src = [((4 * b) % size + size * abid) // 4 for b in range(16)]
    want = A[:, src] @ B + C
    np.testing.assert_array_equal(unplace(d, place, out, (16, 4, 4)), want)


BLGP_TABLE = {0: lambda l: l, 1: lambda l: l % 32, 2: lambda l: l % 32 + 32, 3: lambda l: (l + 16) % 64,
              4: lambda l: l % 16, 5: lambda l: l % 16 + 16, 6: lambda l: l % 16 + 32, 7: lambda l: l % 16 + 48}


@pytest.mark.parametrize("blgp", range(8))
def test_blgp_permutations(blgp):
    """Table 29, on V_MFMA_F32_16X16X4_4B_F16 (four blocks of 16 lanes): B[b,k,j] is read
    from lane BLGP(j + 16 b)."""
    name = "V_MFMA_F32_16X16X4_4B_F16"
    inputs, A, B, C, place, out = dense_case("gfx942", name)
    inputs["BLGP"] = blgp
    d = run("gfx942", name, inputs, waves=2)
    Bp = np.empty_like(B)
    for b in range(4):
        for j in range(16):
            src = BLGP_TABLE[blgp](j + 16 * b)
            Bp[:, b, :, j] = B[:, src // 16, :, src % 16]
    np.testing.assert_array_equal(unplace(d, place, out, (4, 16, 16)), A @ Bp + C)


@pytest.mark.parametrize("name", ["V_MFMA_F64_16X16X4_F64", "V_MFMA_F64_4X4X4_4B_F64"])
@pytest.mark.parametrize("blgp", [0b001, 0b010, 0b100, 0b111])
def test_f64_blgp_negates(name, blgp):
    """7.1.5.3: BLGP[0], [1], [2] negate A, B, C; CBSZ/ABID are ignored."""
    inputs, A, B, C, place, out = dense_case("gfx942", name)
    inputs.update(BLGP=blgp, CBSZ=3, ABID=5)
    d = run("gfx942", name, inputs, waves=2)
    sa, sb, sc = (-1 if blgp & bit else 1 for bit in (1, 2, 4))
    want = (sa * A) @ (sb * B) + sc * C
    np.testing.assert_array_equal(unplace(d, place, out, A.shape[1:3] + (B.shape[3],)), want)


def test_f64_one_item_is_a_uint64():
    """A 64-bit D (V_MFMA_F64_4X4X4_4B_F64: one f64 per lane) comes back as uint64 (W, 64)."""
    inputs, *_ = dense_case("gfx942", "V_MFMA_F64_4X4X4_4B_F64")
    sem = semantic("V_MFMA_F64_4X4X4_4B_F64", False, isa.load("gfx942"))
    out = sem.execute(Ctx(lanes=64, exec_mask=np.full((2, 1), 2 ** 64 - 1, np.uint64),
                          inputs={**inputs, "ABID": 0}))["D0"]
    assert out.shape == (2, 64) and out.dtype == np.uint64


@pytest.mark.parametrize("arch,want", [("gfx950", 1 + 2.0 ** -23), ("gfx942", 1.0)])
def test_f16_sum_rounding(arch, want):
    """C = 1 plus products 2^-24 and 2^-40. CDNA4 (assumed): the exact sum rounded once to
    f32, 1 + 2^-23. CDNA3 (measured, MMA-Sim): the group's sum is cut to 31 bits below C's
    exponent, losing 2^-40, and 1 + 2^-24 is a tie that rounds to even, 1. Both keep 2^-31
    (the 31st bit) in 1 + 2^-24 + 2^-31, which rounds up to 1 + 2^-23."""
    name = "V_MFMA_F32_16X16X16_F16"
    A = np.zeros((1, 1, 16, 16))
    B = np.zeros((1, 1, 16, 16))
    A[0, 0, 0, 0:2] = [2.0 ** -12, 2.0 ** -20]
    B[0, 0, 0:2, 0] = [2.0 ** -12, 2.0 ** -20]
    A[0, 0, 1, 0:2] = [2.0 ** -12, 2.0 ** -15]
    B[0, 0, 0:2, 1] = [2.0 ** -12, 2.0 ** -16]
    C = np.ones((1, 1, 16, 16))
    inputs, place = build_inputs(arch, name, A, B, C, "f16", "f16")
    d = unplace(run(arch, name, inputs), place, "f32", (1, 16, 16))
    assert d[0, 0, 0, 0] == np.float32(want)
    assert d[0, 0, 1, 1] == np.float32(1 + 2.0 ** -23)
    assert d[0, 0, 2, 2] == 1.0


def decompose(x: Fraction, min_exponent: int):
    """Exact (significand, exponent) with denormals at the format's minimum exponent."""
    if x == 0:
        return Fraction(0), None
    e = max(math.floor(math.log2(abs(x))), min_exponent)
    while Fraction(2) ** e > abs(x) and e > min_exponent:
        e -= 1
    while Fraction(2) ** (e + 1) <= abs(x):
        e += 1
    return x / Fraction(2) ** e, e


def cut(x: Fraction, bits: int, down: bool) -> Fraction:
    scaled = x * 2 ** bits
    return Fraction(math.floor(scaled) if down else math.trunc(scaled), 2 ** bits)


MIN_EXP = {"f16": -14, "bf16": -126, "xf32": -126, "fp8": -7, "bf8": -15}


def cdna3_reference(a, b, c, a_kind, b_kind) -> np.float32:
    """One element of D per MMA-Sim's CDNA3 model (arXiv 2511.10909), in exact rationals:
    groups of min(8 | 4 (XF32) | 16 (FP8/BF8), K) in k order; products cut toward zero to
    24 bits below the group's largest exponent (FP8/BF8: even and odd k summed apart, each
    cut toward -inf to 24 bits below the larger); that sum cut toward -inf to 31 bits and
    the running f32 sum to 24 bits below their larger exponent (FP8/BF8: the running sum
    only within 25 of it); rounded to f32 (nearest even)."""
    group = min({"xf32": 4, "fp8": 16, "bf8": 16}.get(a_kind, 8), len(a))
    fp8 = a_kind in ("fp8", "bf8")
    d = np.float32(c)

    def summed(terms):
        terms = [(s, e) for s, e in terms if e is not None]
        if not terms:
            return Fraction(0), None
        top = max(e for _, e in terms)
        return sum(cut(s * Fraction(2) ** (e - top), 24, False) for s, e in terms), top

    for k0 in range(0, len(a), group):
        terms = []
        for x, y in zip(a[k0:k0 + group], b[k0:k0 + group]):
            (sx, ex), (sy, ey) = decompose(Fraction(float(x)), MIN_EXP[a_kind]), decompose(Fraction(float(y)), MIN_EXP[b_kind])
            terms.append((sx * sy, None if ex is None or ey is None else ex + ey))
        if fp8:
            (s0, e0), (s1, e1) = summed(terms[0::2]), summed(terms[1::2])
            tops = [e for e in (e0, e1) if e is not None]
            top = max(tops) if tops else None
            s = sum((cut(v * Fraction(2) ** (e - top), 24, True) for v, e in ((s0, e0), (s1, e1)) if e is not None),
                    Fraction(0))
        else:
            s, top = summed(terms)
        sc, ec = decompose(Fraction(float(d)), -126)
        top2 = max(e for e in (top, ec) if e is not None) if (top, ec) != (None, None) else 0
        total = cut(s * Fraction(2) ** (top - top2), 31, True) if top is not None else Fraction(0)
        c_part = cut(sc * Fraction(2) ** (ec - top2), 24, True) if ec is not None else Fraction(0)
        if fp8 and ec is not None and ec < top2 - 25:
            c_part = Fraction(0)
        d = round_f32((total + c_part) * Fraction(2) ** top2)
    return d


def random_floats(kind: str, shape, family: str = "cdna3") -> np.ndarray:
    """Random finite values of `kind` with exponents spread widely (so the cuts matter)."""
    size = int(np.prod(shape))
    if kind == "f16":
        raw = (rng.integers(0, 2, size) << 15) | (rng.integers(1, 24, size) << 10) | rng.integers(0, 1024, size)
        return raw.astype(np.uint16).view(np.float16).astype(np.float64).reshape(shape)
    if kind == "bf16":
        raw = (rng.integers(0, 2, size) << 15) | (rng.integers(110, 145, size) << 7) | rng.integers(0, 128, size)
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64).reshape(shape)
    if kind == "xf32":
        raw = (rng.integers(0, 2, size) << 31) | (rng.integers(110, 145, size) << 23) | rng.integers(0, 1 << 23, size)
        return raw.astype(np.uint32).view(np.float32).astype(np.float64).reshape(shape)
    codes = rng.integers(0, 256, size)
    codes[codes == 0x80] = 0x81                        # CDNA3's one NaN
    return minifloat.table(family, kind)[codes].reshape(shape)


@pytest.mark.parametrize("name,a_kind,b_kind", [
    ("V_MFMA_F32_16X16X16_F16", "f16", "f16"), ("V_MFMA_F32_4X4X4_16B_F16", "f16", "f16"),
    ("V_MFMA_F32_32X32X8_BF16", "bf16", "bf16"), ("V_MFMA_F32_16X16X8_XF32", "xf32", "xf32"),
    ("V_MFMA_F32_16X16X32_FP8_BF8", "fp8", "bf8"), ("V_MFMA_F32_32X32X16_BF8_BF8", "bf8", "bf8")])
def test_cdna3_measured_arithmetic(name, a_kind, b_kind):
    """CDNA3's f32 results from 16-bit, XF32 and 8-bit inputs against an exact-rational
    rendering of MMA-Sim's bit-accurate model (measured on MI300 hardware), on values whose
    exponents spread widely, so the cuts toward zero / minus infinity decide bits."""
    m, n, k, blocks, *_ = parse(name)
    A = random_floats(a_kind, (1, blocks, m, k))
    B = random_floats(b_kind, (1, blocks, k, n))
    C = random_floats("bf16", (1, blocks, m, n))
    enc = "f32" if a_kind == "xf32" else None
    inputs, place = build_inputs("gfx942", name, A, B, C, enc or a_kind, enc or b_kind)
    d = unplace(run("gfx942", name, inputs), place, "f32", (blocks, m, n))[0]
    if a_kind == "xf32":        # XF32 inputs: the mantissa cut to 10 bits (toward zero)
        A = (A.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
        B = (B.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    exact = 0
    for b in range(blocks):
        for i in range(m):
            for j in range(n):
                want = cdna3_reference(A[0, b, i], B[0, b, :, j], C[0, b, i, j], a_kind, b_kind)
                assert d[b, i, j] == want, (b, i, j, d[b, i, j], want)
                exact += want == np.float32(A[0, b, i] @ B[0, b, :, j] + C[0, b, i, j])
    assert exact < blocks * m * n, "the data never exercised the cuts"


def test_f32_k1_is_one_fma():
    """K = 1 (V_MFMA_F32_4X4X1_16B_F32): each element is fma(a, b, c), rounded once. Checked
    against exact rational arithmetic rounded to f32 on random f32 values, and on
    (1 + 2^-12)^2 + 2^-80, just above an f32 tie: a float64 sum rounded again to f32 would
    land on the tie and round down."""
    name = "V_MFMA_F32_4X4X1_16B_F32"
    inputs, A, B, C, place, out = dense_case("gfx942", name, waves=1)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    c = rng.standard_normal((64, 4)).astype(np.float32) * np.float32(1e-3)
    a[0] = b[0] = np.float32(1 + 2.0 ** -12)
    c[0, 0] = np.float32(2.0 ** -80)
    inputs.update(S0=a.view(np.uint32)[None], S1=b.view(np.uint32)[None], S2=c.view(np.uint32)[None])
    d = run("gfx942", name, inputs)[0].view(np.float32)
    assert d[0, 0] == np.float32(1 + 2.0 ** -11 + 2.0 ** -23)
    # A[b,i,0] in lane i + 4b, B[b,0,j] in lane j + 4b; D[b,i,j] item i of lane j + 4b
    for lane in range(64):
        blk, j = divmod(lane, 4)
        for i in range(4):
            exact = Fraction(float(a[4 * blk + i])) * Fraction(float(b[lane])) + Fraction(float(c[lane, i]))
            assert d[lane, i] == round_f32(exact), (lane, i)


def round_f32(x: Fraction) -> np.float32:
    """Exact rational -> nearest f32 (ties to even), for normal magnitudes."""
    if x == 0:
        return np.float32(0)
    e = math.floor(math.log2(abs(x)))
    if Fraction(2) ** e > abs(x):
        e -= 1
    ulp = Fraction(2) ** (e - 23)
    q, r = divmod(abs(x), ulp)
    if r * 2 > ulp or (r * 2 == ulp and q % 2):
        q += 1
    return np.float32((1 if x > 0 else -1) * float(q * ulp))


def test_f64_is_an_fma_chain():
    """Assumption checked (f64 results): fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))),
    each rounded to f64, on random values against exact rationals."""
    name = "V_MFMA_F64_16X16X4_F64"
    inputs, A, B, C, place, out = dense_case("gfx942", name, waves=1)
    A = rng.standard_normal((1, 1, 16, 4))
    B = rng.standard_normal((1, 1, 4, 16))
    C = rng.standard_normal((1, 1, 16, 16))
    inputs["S0"] = place_a(A[0].view(np.uint64).astype(object), 16, 4, 1, 1)[:, 0].astype(np.uint64)[None]
    inputs["S1"] = place_b(B[0].view(np.uint64).astype(object), 16, 4, 1, 1)[:, 0].astype(np.uint64)[None]
    c = np.zeros((64, 4), np.uint64)
    for (b, i, j), (lane, item) in place.items():
        c[lane, item] = C[0, b, i, j].view(np.uint64)
    inputs["S2"] = np.stack([c & np.uint64(0xFFFFFFFF), c >> np.uint64(32)], -1).reshape(1, 64, 8).astype(np.uint32)
    d = unplace(run("gfx942", name, inputs), place, out, (1, 16, 16))[0, 0]
    for i in range(16):
        for j in range(16):
            acc = C[0, 0, i, j]
            for k in range(4):
                acc = float(Fraction(float(A[0, 0, i, k])) * Fraction(float(B[0, 0, k, j])) + Fraction(acc))
            assert d[i, j] == acc


def test_f32_inputs_follow_mode_denormals_others_do_not():
    """7.3: V_MFMA_F32_*_F32 flush A/B denormals when MODE says so; XF32, 16-bit inputs and
    C keep them whatever MODE says."""
    tiny = np.float32(2.0 ** -130)
    for name, flushed in (("V_MFMA_F32_16X16X4_F32", True), ("V_MFMA_F32_16X16X8_XF32", False)):
        inputs, A, B, C, place, out = dense_case("gfx942", name, waves=1)
        m, n, k, blocks, *_ = parse(name)
        k_lane = k // (64 // (m * blocks))
        A[:] = 0
        B[:] = 0
        A[0, 0, 0, 0] = tiny
        B[0, 0, 0, 0] = 2.0 ** 20
        inputs["S0"] = as_operand(pack(place_a(encode(A[0], "f32", "cdna3"), m, k, 1, k_lane), 32)[None])
        inputs["S1"] = as_operand(pack(place_b(encode(B[0], "f32", "cdna3"), m, k, 1, k_lane), 32)[None])
        inputs["S2"] = as_operand(np.full((1, 64, 4), np.float32(2.0 ** -140).view(np.uint32), np.uint32))
        for mode, keep in ((0x3F0, True), (0x0C0, False)):   # MODE.FP_DENORM f32 bits 5:4 set / clear
            d = unplace(run("gfx942", name, inputs, mode=mode), place, out, (1, 16, 16))[0, 0]
            product = 0.0 if flushed and not keep else float(tiny) * 2.0 ** 20
            assert d[0, 0] == np.float32(product + 2.0 ** -140), (name, hex(mode))
            assert d[1, 1] == np.float32(2.0 ** -140)


def test_xf32_cuts_inputs_to_10_mantissa_bits():
    """XF32 (7.1.2: "round the mantissa to 10 bits"): cut toward zero, as MMA-Sim measured on
    CDNA3: 1 + 3 * 2^-12 -> 1, 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-10."""
    name = "V_MFMA_F32_16X16X8_XF32"
    inputs, A, B, C, place, out = dense_case("gfx942", name, waves=1)
    A[:] = 0
    B[:] = 0
    a = [1 + 3 * 2.0 ** -12, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11]
    for i, v in enumerate(a):
        A[0, 0, i, 0] = v
    B[0, 0, 0, :] = 1.0
    inputs["S0"] = as_operand(pack(place_a(encode(A[0], "f32", "cdna3"), 16, 8, 1, 2), 32)[None])
    inputs["S1"] = as_operand(pack(place_b(encode(B[0], "f32", "cdna3"), 16, 8, 1, 2), 32)[None])
    inputs["S2"] = np.zeros((1, 64, 4), np.uint32)
    d = unplace(run("gfx942", name, inputs), place, out, (1, 16, 16))[0, 0]
    assert list(d[:3, 5]) == [1.0, 1.0, 1 + 2.0 ** -10]


@pytest.mark.parametrize("family,kind,largest,smallest", [
    ("cdna3", "fp8", 240, 2.0 ** -10), ("cdna3", "bf8", 57344, 2.0 ** -17),
    ("cdna4", "fp8", 448, 2.0 ** -9), ("cdna4", "bf8", 57344, 2.0 ** -16),
    ("cdna4", "fp6", 7.5, 0.125), ("cdna4", "bf6", 28, 0.0625), ("cdna4", "fp4", 6, 0.5)])
def test_small_float_tables(family, kind, largest, smallest):
    """Table 30: largest finite value and smallest denormal of each format; CDNA3's FP8/BF8
    have one NaN (0x80), CDNA4's FP8 NaN is S.1111.111, its BF8 has IEEE infinities."""
    t = minifloat.table(family, kind)
    finite = t[np.isfinite(t)]
    assert finite.max() == largest and finite[finite > 0].min() == smallest
    if family == "cdna3":
        assert np.isnan(t).sum() == 1 and np.isnan(t[0x80])
    elif kind == "fp8":
        assert np.isnan(t[0x7F]) and np.isnan(t[0xFF]) and np.isnan(t).sum() == 2
    elif kind == "bf8":
        assert t[0x7C] == np.inf and t[0xFC] == -np.inf and np.isnan(t[0x7D])
    else:
        assert not np.isnan(t).any()


# ---------------------------------------------------------------- sparse
def compress(dense_rows: np.ndarray, group_positions: np.ndarray):
    """Per row: keep positions p0 < p1 of each group of 4 -> (values, 2-bit indices)."""
    vals, idx = [], []
    for g, (p0, p1) in enumerate(group_positions):
        vals += [dense_rows[4 * g + p0], dense_rows[4 * g + p1]]
        idx += [p0, p1]
    return vals, idx


SPARSE = [(arch, n) for arch in ("gfx942", "gfx950") for n in names(arch, "V_SMFMAC_")]


def sparse_case(arch: str, name: str, waves: int = 2, abid: int = 1):
    """Random 2:4-sparse A (returned dense), B, C for an SMFMAC and its inputs.
    CDNA3 (7.4.1), CDNA4 (7.5.1.3): B per lane as in the tables (where B takes 8 registers,
    CDNA4 numbers K in 4-register chunks: k = c * (64/M) * K_c + K_c * (lane / M) + item % K_c,
    K_c = values per 4 registers), A's stored values in the same K order, two per group of 4
    with their 2-bit positions in the index set ABID selects (other sets hold noise)."""
    family = FAMILY[arch]
    m, n, k, blocks, a_kind, b_kind, out = parse(name)
    groups = 64 // m
    k_lane = k // groups
    chunk = min(k_lane, 128 // BITS[b_kind])

    def k_of(group, item):
        return (item // chunk) * chunk * groups + group * chunk + item % chunk

    A = values(a_kind, (waves, m, k), family)
    B = values(b_kind, (waves, k, n), family)
    C = values("i8" if out == "i32" else "f16", (waves, 1, m, n))
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    sets = 32 // k_lane               # index sets per register (2 bits per stored A value)
    s0, s1, s2 = [], [], []
    Adense = np.zeros_like(A)
    for w in range(waves):
        a_items = np.zeros((64, k_lane // 2), object)
        b_items = np.zeros((64, k_lane), object)
        index = np.zeros(64, np.uint64)
        for lane in range(64):
            row, group = lane % m, lane // m
            lane_k = [k_of(group, r) for r in range(k_lane)]          # dense K of each item
            chosen = [pairs[rng.integers(6)] for _ in range(k_lane // 4)]
            vals, idx = compress(A[w, row, lane_k], chosen)
            for g, (p0, p1) in enumerate(chosen):
                for p in (p0, p1):
                    Adense[w, row, lane_k[4 * g + p]] = A[w, row, lane_k[4 * g + p]]
            a_items[lane] = encode(np.array(vals), a_kind, family)
            bits = sum(int(x) << (2 * r) for r, x in enumerate(idx))
            noise = int(rng.integers(0, 2 ** 32)) & ~(((1 << (2 * len(idx))) - 1) << (2 * len(idx) * (abid % sets)))
            index[lane] = (bits << (2 * len(idx) * (abid % sets))) | (noise if sets > 1 else 0)
            b_items[lane] = encode(B[w, lane_k, row], b_kind, family)      # column `row` of B for this lane
        s0.append(pack(a_items, BITS[a_kind]))
        s1.append(pack(b_items, BITS[b_kind]))
        s2.append(index.astype(np.uint32))
    place = cd_place(m, n, 1, False)
    d0 = np.zeros((waves, 64, m * n // 64), np.uint32)
    for w in range(waves):
        for (b, i, j), (lane, item) in place.items():
            d0[w, lane, item] = np.float32(C[w, 0, i, j]).view(np.uint32) if out == "f32" else np.int64(C[w, 0, i, j]).astype(np.uint32)
    inputs = {"S0": as_operand(np.stack(s0)), "S1": as_operand(np.stack(s1)), "S2": np.stack(s2),
              "D0": d0, "ABID": abid}
    return inputs, Adense, B, C[:, 0], place, out


@pytest.mark.parametrize("arch,name", SPARSE)
def test_sparse_matches_numpy(arch, name):
    inputs, A, B, C, place, out = sparse_case(arch, name)
    d = run(arch, name, inputs, waves=2)
    np.testing.assert_array_equal(unplace(d, place, out, (1,) + C.shape[1:])[:, 0], A @ B + C)


# ---------------------------------------------------------------- coverage and errors
def test_every_matrix_instruction_has_a_semantic():
    """Every V_MFMA_* / V_SMFMAC_* of the CDNA3 and CDNA4 manuals, except the scale prefix
    V_MFMA_LD_SCALE_B32 (the first half of a V_MFMA_SCALE_* pair, read with its MFMA)."""
    for arch, total in (("gfx942", 46), ("gfx950", 66)):
        spec = isa.load(arch)
        found = [d.name for d in spec.instructions if "MFMA" in d.name and d.name != "V_MFMA_LD_SCALE_B32"]
        assert len(found) == total
        assert all(semantic(n, False, spec) is not None for n in found)
    assert "V_MFMA_LD_SCALE_B32" not in mfma.shapes(isa.load("gfx950"))
    assert semantic("V_MFMA_LD_SCALE_B32", False, isa.load("gfx950")) is None


def test_bad_fields_are_refused_by_name():
    inputs, *_ = dense_case("gfx942", "V_MFMA_F32_32X32X8_F16", waves=1)
    with pytest.raises(SemanticsError, match="V_MFMA_F32_32X32X8_F16: CBSZ=1"):
        run("gfx942", "V_MFMA_F32_32X32X8_F16", {**inputs, "CBSZ": 1})
    with pytest.raises(SemanticsError, match="ABID=1 must be below"):
        run("gfx942", "V_MFMA_F32_32X32X8_F16", {**inputs, "ABID": 1})
    inputs, *_ = dense_case("gfx950", "V_MFMA_F32_16X16X128_F8F6F4", waves=1, a_kind="fp8", b_kind="fp8")
    with pytest.raises(SemanticsError, match="CBSZ=5 / BLGP=0 name no matrix format"):
        run("gfx950", "V_MFMA_F32_16X16X128_F8F6F4", {**inputs, "CBSZ": 5})
    sem = semantic("V_MFMA_F32_32X32X8_F16", False, isa.load("gfx942"))
    with pytest.raises(SemanticsError, match="wave64 only"):
        sem.execute(Ctx(lanes=32, exec_mask=np.ones((1, 1), np.uint64), inputs={}))


def test_kernel_layout_comment_agrees():
    """The clang-compiled kernel mfma_gemm_32x32x8 documents the layouts its code relies on
    (A: lane holds row lane % 32, k = 4 * (lane / 32) + e; B: column lane % 32, same k;
    D element e: row 8 * (e / 4) + 4 * (lane / 32) + e % 4, column lane % 32). Check those
    against the semantic with numpy's A @ B + C."""
    name = "V_MFMA_F32_32X32X8_F16"
    A = values("f16", (32, 8))
    B = values("f16", (8, 32))
    C = values("f16", (32, 32))
    lane = np.arange(64)
    c, h = lane % 32, lane // 32
    a = np.stack([A[c, 4 * h + e] for e in range(4)], 1).astype(np.float16)
    b = np.stack([B[4 * h + e, c] for e in range(4)], 1).astype(np.float16)
    acc = np.stack([C[8 * (e // 4) + 4 * h + e % 4, c] for e in range(16)], 1).astype(np.float32)
    d = run("gfx942", name, {"S0": a.view(np.uint64)[:, 0][None], "S1": b.view(np.uint64)[:, 0][None],
                             "S2": acc.view(np.uint32)[None]})[0].view(np.float32)
    got = np.zeros((32, 32))
    for e in range(16):
        got[8 * (e // 4) + 4 * h + e % 4, c] = d[:, e]
    np.testing.assert_array_equal(got, A @ B + C)


# ---------------------------------------------------------------- clang-22's code on Device("emu")
_CL_GFX942 = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v2f __attribute__((ext_vector_type(2)));
typedef float v32f __attribute__((ext_vector_type(32)));
typedef double v4d __attribute__((ext_vector_type(4)));
typedef int v4i __attribute__((ext_vector_type(4)));
typedef half v4h __attribute__((ext_vector_type(4)));
typedef half v8h __attribute__((ext_vector_type(8)));
__kernel void f32_32x32x1_2b(__global const float *A, __global const float *B, __global float *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v32f c; for (int e = 0; e < 32; ++e) c[e] = C[l * 32 + e];
  c = __builtin_amdgcn_mfma_f32_32x32x1f32(A[l], B[l], c, 1, 1, 3);
  for (int e = 0; e < 32; ++e) C[l * 32 + e] = c[e];
}
__kernel void f64_16x16x4(__global const double *A, __global const double *B, __global double *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4d c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_mfma_f64_16x16x4f64(A[l], B[l], c, 0, 0, 5);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
__kernel void i8_16x16x32(__global const long *A, __global const long *B, __global int *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4i c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_mfma_i32_16x16x32_i8(A[l], B[l], c, 0, 0, 6);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
__kernel void fp8_bf8_32x32x16(__global const long *A, __global const long *B, __global float *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  float c __attribute__((ext_vector_type(16)));
  for (int e = 0; e < 16; ++e) c[e] = C[l * 16 + e];
  c = __builtin_amdgcn_mfma_f32_32x32x16_fp8_bf8(A[l], B[l], c, 0, 0, 0);
  for (int e = 0; e < 16; ++e) C[l * 16 + e] = c[e];
}
__kernel void xf32_16x16x8(__global const v2f *A, __global const v2f *B, __global float *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4f c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_mfma_f32_16x16x8_xf32(A[l], B[l], c, 0, 0, 0);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
__kernel void smfmac_f16_16x16x32(__global const v4h *A, __global const v8h *B, __global float *C,
                                  __global const int *I) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4f c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_smfmac_f32_16x16x32_f16(A[l], B[l], c, I[l], 0, 1);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
"""
_CL_GFX950 = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
typedef half v8h __attribute__((ext_vector_type(8)));
typedef half v16h __attribute__((ext_vector_type(16)));
__kernel void f16_16x16x32(__global const v8h *A, __global const v8h *B, __global float *C) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4f c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_mfma_f32_16x16x32_f16(A[l], B[l], c, 0, 0, 0);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
__kernel void smfmac_f16_16x16x64(__global const v8h *A, __global const v16h *B, __global float *C,
                                  __global const int *I) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4f c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_smfmac_f32_16x16x64_f16(A[l], B[l], c, I[l], 0, 1);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
"""
# kernel -> (arch, instruction, CBSZ, ABID, BLGP as the builtin's constant arguments)
CLANG_CASES = {
    "f32_32x32x1_2b": ("gfx942", "V_MFMA_F32_32X32X1_2B_F32", 1, 1, 3),
    "f64_16x16x4": ("gfx942", "V_MFMA_F64_16X16X4_F64", 0, 0, 5),
    "i8_16x16x32": ("gfx942", "V_MFMA_I32_16X16X32_I8", 0, 0, 6),
    "fp8_bf8_32x32x16": ("gfx942", "V_MFMA_F32_32X32X16_FP8_BF8", 0, 0, 0),
    "xf32_16x16x8": ("gfx942", "V_MFMA_F32_16X16X8_XF32", 0, 0, 0),
    "smfmac_f16_16x16x32": ("gfx942", "V_SMFMAC_F32_16X16X32_F16", 0, 1, 0),
    "f16_16x16x32": ("gfx950", "V_MFMA_F32_16X16X32_F16", 0, 0, 0),
    "smfmac_f16_16x16x64": ("gfx950", "V_SMFMAC_F32_16X16X64_F16", 0, 1, 0),
}


def broadcast_reference(A, B, C, m, blocks, k_lane, cbsz, abid, blgp, f64):
    """D for dense A, B, C read through 7.1.5's lane maps: the value at (lane l, item r) is read
    from (p(l), r); for F64 BLGP negates instead."""
    if f64:
        sa, sb, sc = (-1 if blgp & bit else 1 for bit in (1, 2, 4))
        return (sa * A) @ (sb * B) + sc * C

    def remap(M, p, transpose):
        out = np.empty_like(M)
        k = M.shape[-1] if not transpose else M.shape[-2]
        for b in range(blocks):
            for x in range(m):
                for kk in range(k):
                    src = p(x + m * (b + blocks * (kk // k_lane)))
                    xs, bs, ks = src % m, (src // m) % blocks, (src // (m * blocks)) * k_lane + kk % k_lane
                    if transpose:
                        out[:, b, kk, x] = M[:, bs, ks, xs]
                    else:
                        out[:, b, x, kk] = M[:, bs, xs, ks]
        return out
    size = 64 >> cbsz
    return remap(A, lambda l: l % size + size * abid, False) @ remap(B, BLGP_TABLE[blgp], True) + C


@pytest.fixture(scope="module")
def clang_objects(tmp_path_factory):
    from tests.llvm_tools import tool
    import subprocess
    clang, lld = tool("clang"), tool("ld.lld")
    out = {}
    for arch, source in (("gfx942", _CL_GFX942), ("gfx950", _CL_GFX950)):
        d = tmp_path_factory.mktemp(f"mfma_{arch}")
        (d / "k.cl").write_text("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + source)
        for argv in ([clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}",
                      "-nogpulib", "-O2", "-c", str(d / "k.cl"), "-o", str(d / "k.o")],
                     [lld, "-shared", str(d / "k.o"), "-o", str(d / "k.hsaco")]):
            subprocess.run(argv, check=True, capture_output=True)
        out[arch] = (d / "k.hsaco").read_bytes()
    return out


def _family_not_emulated():
    """Where the emulator does not run CDNA yet (emu.families), Device("emu") refuses these
    targets: a strict xfail, which turns into the plain test once CDNA is emulated."""
    from emu.families import FAMILIES
    from runtime.device import DeviceError
    return pytest.mark.xfail("cdna3" not in FAMILIES or "cdna4" not in FAMILIES, strict=True, raises=DeviceError,
                             reason="Device('emu') does not run CDNA yet")


@_family_not_emulated()
@pytest.mark.parametrize("kernel", list(CLANG_CASES))
def test_clang_builtins_on_the_emulator(clang_objects, kernel):
    """clang-22's code for the MFMA/SMFMAC builtins (its encoding of the CBSZ/ABID/BLGP
    arguments and its register use) on Device("emu"), each lane loading its registers from
    lane-major buffers laid out as the manual says; D against numpy."""
    from runtime import Device
    arch, name, cbsz, abid, blgp = CLANG_CASES[kernel]
    sparse = name.startswith("V_SMFMAC")
    if sparse:
        inputs, A, B, C, place, out = sparse_case(arch, name, waves=1, abid=abid)
        buffers = [inputs["S0"], inputs["S1"], inputs["D0"], inputs["S2"]]
        want = A @ B + C
        shape = (1,) + C.shape[1:]
    else:
        inputs, A, B, C, place, out = dense_case(arch, name, waves=1)
        buffers = [inputs["S0"], inputs["S1"], inputs["S2"]]
        m, n, k, blocks, *_ = parse(name)
        want = broadcast_reference(A, B, C, m, blocks, k // (64 // (m * blocks)), cbsz, abid, blgp, out == "f64")
        shape = A.shape[1:3] + (B.shape[3],)
    dev = Device("emu", arch=arch)
    prg = dev.load(clang_objects[arch])
    bufs = [dev.alloc(x.nbytes).copyin(x) for x in (np.ascontiguousarray(as_dwords(v)[0]) for v in buffers)]
    prg.launch(kernel, grid=(1, 1, 1), block=(64, 1, 1), args=bufs)
    d = bufs[2].copyout(np.uint32).reshape(1, 64, -1)
    if sparse:
        np.testing.assert_array_equal(unplace(d, place, out, shape)[:, 0], want)
    else:
        np.testing.assert_array_equal(unplace(d, place, out, shape), want)


FP16_OVFL = 1 << 23         # MODE[23] (the manual's Mode Register Fields table)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_fp16_ovfl_clamps_overflow(arch):
    """7.1.2 "Clamp: ... uses the FP16_OVFL bit from MODE. If set, F32 Result on overflow is
    clamped to +/- MAX, otherwise ... +/-INF. If set, I32 Result is clamped to +/-MAX on
    overflow/underflow, otherwise the carry out bits are dropped." An infinity among the
    inputs stays infinite."""
    name = "V_MFMA_F32_4X4X1_16B_F32"
    a = np.full(64, 2.0 ** 64, np.float32)
    b = np.full(64, 2.0 ** 64, np.float32)
    b[1::2] = -(2.0 ** 64)
    a[63] = np.inf
    c = np.zeros((64, 4), np.float32)
    inputs = {"S0": a.view(np.uint32)[None], "S1": b.view(np.uint32)[None], "S2": c.view(np.uint32)[None]}
    plain = run(arch, name, inputs)[0].view(np.float32)
    clamped = run(arch, name, inputs, mode=0x3F0 | FP16_OVFL)[0].view(np.float32)
    # D[blk, i, j] = a[4 blk + i] * b[4 blk + j]: lane j + 4 blk, item i
    big = np.float32(np.finfo(np.float32).max)
    assert plain[0, 0] == np.inf and plain[1, 0] == -np.inf
    assert clamped[0, 0] == big and clamped[1, 0] == -big
    assert clamped[62, 3] == np.inf and clamped[63, 3] == -np.inf      # a[63] = inf (item 3 of block 15): true infinities
    name = "V_MFMA_I32_16X16X32_I8"
    A = np.full((1, 1, 16, 32), 127.0)
    B = np.full((1, 1, 32, 16), 127.0)
    C = np.full((1, 1, 16, 16), 2.0 ** 31 - 1000)
    inputs, place = build_inputs(arch, name, A, B, C, "i8", "i8")
    wrapped = unplace(run(arch, name, inputs), place, "i32", (1, 16, 16))
    saturated = unplace(run(arch, name, inputs, mode=0x3F0 | FP16_OVFL), place, "i32", (1, 16, 16))
    exact = 2 ** 31 - 1000 + 32 * 127 * 127
    assert (wrapped == exact - 2 ** 32).all() and (saturated == 2 ** 31 - 1).all()


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_products_beyond_f32_range(arch):
    """BF16 products of 2^200 and -2^200 in one group: CDNA3 (MMA-Sim's model) turns a product
    past the f32 range into an infinity of its sign, both signs into NaN; CDNA4 (the exact-sum
    assumption) sums them to 0. One such product alone is +inf on both."""
    name = "V_MFMA_F32_16X16X16_BF16"
    A = np.zeros((1, 1, 16, 16))
    B = np.zeros((1, 1, 16, 16))
    A[0, 0, 0, 0:2] = 2.0 ** 100
    B[0, 0, 0:2, 0] = [2.0 ** 100, -(2.0 ** 100)]
    B[0, 0, 0, 1] = 2.0 ** 100
    C = np.ones((1, 1, 16, 16))
    inputs, place = build_inputs(arch, name, A, B, C, "bf16", "bf16")
    d = unplace(run(arch, name, inputs), place, "f32", (1, 16, 16))[0, 0]
    assert d[0, 1] == np.inf
    if arch == "gfx942":
        assert np.isnan(d[0, 0])
    else:
        assert d[0, 0] == 1.0

"""CDNA matrix instructions (V_MFMA_*, V_SMFMAC_*): D = A x B + C on blocks of small
matrices spread across a wave64.

The manuals give no usable pseudocode ("D = A (32x8) * B (8x32) + C (32x32)"); everything
here follows their matrix chapter (CDNA3 ch. 7, CDNA4 ch. 7):

- Shape: the generated table isa tables['mfma'] (M, N, K, blocks, sparse, output and input
  types, read by the generator from the names by the manual's rule (7.1),
  V_MFMA_[output type]_[M]X[N]X[K][_[B]B]_[input type]; two input types, A then B, for the
  FP8/BF8 mixes).
- Inputs (7.1.4.1): items are packed little-endian into the registers (64-bit: a register
  pair, 32-bit: one register, 16-bit: two per register, 8/6/4-bit: 4/5.33/8 per register,
  bit-contiguous). With K_L = K / (64 / (M * B)) values of K per lane, A[b,i,k] is item
  k % K_L of lane i + M * (b + B * (k / K_L)), B[b,k,j] item k % K_L of lane
  j + N * (b + B * (k / K_L)).
- Outputs (7.1.4.2): with H = 1 for f64 and 4 otherwise, B_I = ceil(64 / (N * M / H)),
  M_I = (64 / B_I) / N, G = M / (H * M_I), D[b,i,j] (and C) is item
  (i % H) + H * (i / (H * M_I) + G * (b / B_I)) of lane j + N * ((i / H) % M_I + M_I * (b % B_I)).
- Broadcasts (7.1.5): CBSZ/ABID make lane l read A from lane (l % S) + S * ABID,
  S = 64 >> CBSZ; BLGP permutes B's lanes (table 29). F64: CBSZ/ABID ignored, BLGP[0..2]
  negate A, B, C. F8F6F4 (CDNA4): CBSZ and BLGP name A's and B's formats (FP8, BF8, FP6,
  BF6, FP4), no broadcast.
- Sparse (SMFMAC, CDNA3 7.4 / CDNA4 7.5): A holds 2 of every 4 values along K (half the
  items); S2 is one VGPR of 2-bit indices, item n's index at bits 2n+1:2n of the selected set
  (sets of 2 * items bits; CBSZ[1:0] = 0: ABID picks the set, else set 0), giving the value's
  position within its group of 4. C is the old D.
  Which K a register holds matters to the kernel that loads it, not to the result: A's item r
  of K-group g always meets B's item r of K-group g, so any numbering of K that A and B share
  gives the same D. (CDNA4's 8-register sparse B tables number K in chunks of 4 registers;
  the formula above is used for every form.)

Arithmetic: integer results are the exact sums wrapped to 32 bits. F32 and F64 inputs: a
chain of fused multiply-adds in k order starting from C (CDNA3's f32 forms measured so, see
mfma_arith.py; f64 assumed). Other float inputs on CDNA3: the matrix core's measured
arithmetic (mfma_arith.py: products cut to 24 bits in groups of K, groups added to the
running f32 sum; XF32 inputs cut to 10 mantissa bits); SMFMAC as its dense form over the
dense K (assumed). On CDNA4 (not measured; an assumption): the float64 sum of C and the
products (exact for inputs narrower than f32 unless their exponents span more than about 30
bits), rounded once to f32 to nearest even. Denormals: only the F32-input forms flush A/B
per MODE.FP_DENORM (7.3); everything else keeps them. FP8/BF8 follow each family's format
(minifloat.py). MODE.FP16_OVFL set ("Clamp" in 7.1.2): f32 results that overflow become
+-MAX (infinite inputs stay infinite) and i32 results saturate instead of wrapping. NaN: the
manuals state no rule for which NaN a matrix instruction returns among several; the f32/f64
chain keeps rtlib.fma's first NaN, every other float form returns f32's default quiet NaN
0x7FC00000 (rtlib.default_nans; hardware's NaN bits are not measured: MMA-Sim leaves them
unmodelled too). Every lane is computed (the manual: MFMA ignores EXEC).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from isa.records import dataclass

from .. import rtlib
from ..semantics import Ctx, Operand, SemanticsError
from .mfma_arith import cdna3_dot
from .minifloat import bits as small_float_bits, decode as small_float

LANES = 64
ELEMENT_BITS = {"f32": 32, "xf32": 32, "f16": 16, "bf16": 16, "i8": 8, "f64": 64, "fp8": 8, "bf8": 8,
                "f8f6f4": 8}
# CBSZ / BLGP codes of the F8F6F4 forms (CDNA4 7.1.5 "Matrix Format")
F8F6F4_FORMATS = ("fp8", "bf8", "fp6", "bf6", "fp4")
# BLGP: the lane B is read from, per value (manual table 29)
_LANE = np.arange(LANES)
BLGP_LANES = (_LANE, _LANE % 32, _LANE % 32 + 32, (_LANE + 16) % 64,
              _LANE % 16, _LANE % 16 + 16, _LANE % 16 + 32, _LANE % 16 + 48)


@dataclass(frozen=True)
class Shape:
    """One matrix instruction's parameters, read from its name."""
    m: int
    n: int
    k: int
    blocks: int
    a: str              # element kind of A and of B ('f16', 'fp8', 'f8f6f4', ...)
    b: str
    out: str            # 'f32', 'i32' or 'f64'
    sparse: bool

    @property
    def groups(self) -> int:
        """Lane groups along K: 64 / (M * B)."""
        return LANES // (self.m * self.blocks)

    @property
    def k_lane(self) -> int:
        """K_L: values of K each lane holds (of the dense A for SMFMAC)."""
        return self.k // self.groups

    def items(self, operand: str) -> int:
        """Values per lane of A ('a') or B ('b'): sparse A holds half of K_L."""
        return self.k_lane // 2 if self.sparse and operand == "a" else self.k_lane

    def bits(self, operand: str) -> int:
        """Bits per lane of A or B (F8F6F4: the widest, FP8's)."""
        return self.items(operand) * ELEMENT_BITS[getattr(self, operand)]

    @property
    def out_bits(self) -> int:
        return 64 if self.out == "f64" else 32

    @property
    def cd_items(self) -> int:
        return self.m * self.n * self.blocks // LANES

    @property
    def cd_bits(self) -> int:
        return self.cd_items * self.out_bits


_SHAPES: dict[str, dict[str, Shape]] = {}


def shapes(spec) -> dict[str, Shape]:
    """{instruction name: Shape} of a family's matrix instructions (isa tables['mfma'] rows:
    name, M, N, K, blocks, sparse, output type, input type, passes)."""
    if spec.arch not in _SHAPES:
        found = {}
        for name, m, n, k, blocks, sparse, out, inputs, _ in spec.tables.get("mfma", ()):
            kinds = inputs.split("_")
            if kinds[-1] == "1k":               # BF16_1K: the CDNA2 name of the full-rate bf16 forms
                kinds = kinds[:-1]
            kinds = (kinds * 2)[:2]
            s = Shape(m, n, k, blocks, kinds[0], kinds[1], out, sparse)
            if all(x in ELEMENT_BITS for x in kinds) and m == n and LANES % (m * blocks) == 0 \
                    and k % s.groups == 0 and not (sparse and s.k_lane % 4):
                found[name] = s
        _SHAPES[spec.arch] = found
    return _SHAPES[spec.arch]


def scaled_names(spec) -> frozenset:
    """The MFMAs a load-scale prefix may precede (CDNA4 7.2: the F8F6F4 forms)."""
    return frozenset(name for name, s in shapes(spec).items() if s.a == "f8f6f4")


def operands(s: Shape) -> tuple[dict, dict]:
    """(reads, writes): A/B as whole register blocks S0/S1, C as S2 (SMFMAC: S2 is the
    index VGPR and C is the old D0), the raw VOP3P-MAI fields CBSZ, ABID, BLGP."""
    a, b = s.bits("a"), s.bits("b")
    cd = Operand("D0", s.cd_bits, s.out)
    reads = {"S0": Operand("S0", a, f"b{a}"), "S1": Operand("S1", b, f"b{b}"),
             "CBSZ": Operand("CBSZ", 3, "u3"), "ABID": Operand("ABID", 4, "u4"), "BLGP": Operand("BLGP", 3, "u3")}
    if s.sparse:
        reads.update(S2=Operand("S2", 32, "b32"), D0=cd)
    else:
        reads["S2"] = Operand("S2", s.cd_bits, s.out)
    return reads, {"D0": cd}


# ------------------------------------------------------------------ layouts
@lru_cache(maxsize=None)
def input_layout(s: Shape, operand: str) -> tuple[np.ndarray, np.ndarray]:
    """(lane, item) int arrays of shape (B, M, K) for A, (B, K, N) for B: where each matrix
    value sits (dense items: a sparse A is expanded before)."""
    lane = np.arange(LANES)[:, None]
    item = np.arange(s.k_lane)[None, :]
    row, block, group = lane % s.m, (lane // s.m) % s.blocks, lane // (s.m * s.blocks)
    k = group * s.k_lane + item
    lanes = np.full((s.blocks, s.m, s.k), -1)
    items = np.full((s.blocks, s.m, s.k), -1)
    at = (np.broadcast_to(block, k.shape), np.broadcast_to(row, k.shape), k)
    lanes[at], items[at] = np.broadcast_to(lane, k.shape), np.broadcast_to(item, k.shape)
    assert (lanes >= 0).all(), f"{s}: input layout leaves values unplaced"
    if operand == "b":
        return lanes.transpose(0, 2, 1), items.transpose(0, 2, 1)
    return lanes, items


@lru_cache(maxsize=None)
def output_layout(s: Shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(block, row, column) int arrays of shape (64, items): the element of D (and C) each
    item of each lane holds (manual 7.1.4.2)."""
    h = 1 if s.out == "f64" else 4
    b_i = -(-LANES * h // (s.n * s.m))
    m_i = LANES // b_i // s.n
    g = s.m // (h * m_i)
    b, i, j = np.meshgrid(np.arange(s.blocks), np.arange(s.m), np.arange(s.n), indexing="ij")
    item = i % h + h * (i // (h * m_i) + g * (b // b_i))
    lane = j + s.n * ((i // h) % m_i + m_i * (b % b_i))
    out = [np.full((LANES, s.cd_items), -1) for _ in range(3)]
    for o, v in zip(out, (b, i, j)):
        o[lane, item] = v
    assert (out[0] >= 0).all(), f"{s}: output layout leaves items unfilled"
    return tuple(out)


# ------------------------------------------------------------------ values
def _dwords(value, shape) -> np.ndarray:
    """A register block as uint32 (W, L, n), whether given with a dword axis or as uint64/uint32."""
    v = np.asarray(value)
    if v.ndim == len(shape):            # one register or a 64-bit pair per lane
        if v.dtype.itemsize == 8:
            v = np.stack([v & np.uint64(0xFFFFFFFF), v >> np.uint64(32)], -1)
        else:
            v = v[..., None]
    return np.broadcast_to(v, shape + v.shape[-1:]).astype(np.uint32)


def _items(dwords: np.ndarray, bits: int, count: int) -> np.ndarray:
    """uint64 (..., count): `count` items of `bits` each, packed from bit 0 of dword 0 up."""
    d = dwords.astype(np.uint64)
    if bits == 64:
        return d[..., 0:2 * count:2] | (d[..., 1:2 * count:2] << np.uint64(32))
    pos = np.arange(count) * bits
    padded = np.concatenate([d, np.zeros(d.shape[:-1] + (1,), np.uint64)], -1)
    q = pos // 32
    pair = padded[..., q] | (padded[..., q + 1] << np.uint64(32))
    return (pair >> (pos % 32).astype(np.uint64)) & np.uint64((1 << bits) - 1)


def _flush_f32(raw: np.ndarray, mode) -> np.ndarray:
    """F32 inputs: denormals become zeros of their sign in waves whose MODE.FP_DENORM[0] (f32
    input denormals, MODE bit 4) is clear."""
    flush = ((np.asarray(mode, np.uint64).reshape(-1, 1, 1) >> np.uint64(4)) & np.uint64(1)) == 0
    denormal = ((raw & np.uint64(0x7F800000)) == 0) & ((raw & np.uint64(0x7FFFFF)) != 0)
    return np.where(flush & denormal, raw & np.uint64(0x80000000), raw)


def _values(raw: np.ndarray, kind: str, family: str, mode) -> np.ndarray:
    """uint64 raw items -> float64 values (int64 for i8)."""
    if kind == "i8":
        return (raw.astype(np.int64) ^ 0x80) - 0x80
    if kind == "f64":
        return raw.view(np.float64)
    if kind == "f32":
        return _flush_f32(raw, mode).astype(np.uint32).view(np.float32).astype(np.float64)
    if kind == "xf32":          # the mantissa cut to 10 bits (toward zero, as measured); inf/NaN kept
        special = (raw & np.uint64(0x7F800000)) == np.uint64(0x7F800000)
        cut = raw & np.uint64(0xFFFFE000)
        return np.where(special, raw, cut).astype(np.uint32).view(np.float32).astype(np.float64)
    if kind == "f16":
        return raw.astype(np.uint16).view(np.float16).astype(np.float64)
    if kind == "bf16":
        return (raw.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return small_float(raw, family, kind)


def _lane_values(ctx: Ctx, name: str, key: str, kind: str, count: int, family: str) -> np.ndarray:
    """(W, 64, count) values of operand `key`, item by item."""
    dwords = _dwords(ctx.get(key, name), ctx.shape)
    raw = _items(dwords, ELEMENT_BITS.get(kind) or small_float_bits(family, kind), count)
    return _values(raw, kind, family, ctx.mode)


def _densify(s: Shape, values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Sparse A (W, 64, K_L / 2) and its 2-bit indices (W, 64, K_L / 2) -> dense (W, 64, K_L):
    value n goes to position index[n] of group n / 2 (equal indices add up)."""
    w = values.shape[0]
    hit = index[..., None] == np.arange(4)                          # (W, 64, n, 4)
    placed = np.where(hit, values[..., None], 0)
    return placed.reshape(w, LANES, -1, 2, 4).sum(3).reshape(w, LANES, s.k_lane)


def _sparse_index(s: Shape, ctx: Ctx, name: str, cbsz: int, abid: int) -> np.ndarray:
    count = s.items("a")
    width = 2 * count
    sets = max(1, 32 // width)
    chosen = abid % sets if cbsz & 3 == 0 else 0
    word = _dwords(ctx.get("S2", name), ctx.shape)[..., 0].astype(np.uint64) >> np.uint64(chosen * width)
    return _items(word[..., None], 2, count).astype(np.int64)


def _check_broadcast(name: str, s: Shape, cbsz: int, abid: int) -> None:
    if cbsz > 4 or (1 << cbsz) > s.blocks:
        raise SemanticsError(f"{name}: CBSZ={cbsz} broadcasts blocks of {LANES >> min(cbsz, 6)} lanes, but the "
                             f"instruction has {s.blocks} block(s): undefined (manual 7.1.5.1)")
    if abid >= 1 << cbsz:
        raise SemanticsError(f"{name}: ABID={abid} must be below 1 << CBSZ = {1 << cbsz} (manual 7.1.5.1)")


def execute(name: str, s: Shape, family: str, ctx: Ctx, overflow_bit: int | None = None) -> dict:
    """D of the batch. `overflow_bit`: MODE's FP16_OVFL bit (isa tables['mode'])."""
    if ctx.lanes != LANES:
        raise SemanticsError(f"{name}: matrix instructions run in wave64 only, not wave{ctx.lanes}")
    cbsz, abid, blgp = (int(ctx.get(k, name)) for k in ("CBSZ", "ABID", "BLGP"))
    a_kind, b_kind, negate = s.a, s.b, 0
    if s.a == "f8f6f4":
        if cbsz >= len(F8F6F4_FORMATS) or blgp >= len(F8F6F4_FORMATS):
            raise SemanticsError(f"{name}: CBSZ={cbsz} / BLGP={blgp} name no matrix format "
                                 f"(0-4: {', '.join(F8F6F4_FORMATS)})")
        a_kind, b_kind = F8F6F4_FORMATS[cbsz], F8F6F4_FORMATS[blgp]
        a_lanes = b_lanes = _LANE
    elif s.out == "f64":
        negate, a_lanes, b_lanes = blgp, _LANE, _LANE
    elif s.sparse:
        a_lanes, b_lanes = _LANE, BLGP_LANES[blgp]
    else:
        _check_broadcast(name, s, cbsz, abid)
        size = LANES >> cbsz
        a_lanes, b_lanes = _LANE % size + size * abid, BLGP_LANES[blgp]
    a = _lane_values(ctx, name, "S0", a_kind, s.items("a"), family)[:, a_lanes]
    b = _lane_values(ctx, name, "S1", b_kind, s.items("b"), family)[:, b_lanes]
    if s.a == "f8f6f4":
        a, b = _scaled(ctx, name, a, "A"), _scaled(ctx, name, b, "B")
    if s.sparse:
        a = _densify(s, a, _sparse_index(s, ctx, name, cbsz, abid))
    if negate & 1:
        a = -a
    if negate & 2:
        b = -b
    lane_a, item_a = input_layout(s, "a")
    lane_b, item_b = input_layout(s, "b")
    a_mat = a[:, lane_a, item_a]                   # (W, B, M, K)
    b_mat = b[:, lane_b, item_b]                   # (W, B, K, N)
    ob, oi, oj = output_layout(s)
    c_raw = _items(_dwords(ctx.get("D0" if s.sparse else "S2", name), ctx.shape), s.out_bits, s.cd_items)
    clamp = _overflow_clamp(ctx, overflow_bit)
    if s.out == "i32":
        c = c_raw.astype(np.uint32).view(np.int32).astype(np.int64)
        d = c + np.matmul(a_mat, b_mat)[:, ob, oi, oj]
        if clamp is not None:
            d = np.where(clamp, np.clip(d, -2 ** 31, 2 ** 31 - 1), d)
        return {"D0": _result((d & 0xFFFFFFFF).astype(np.uint32), s)}
    if s.a in ("f32", "f64"):      # a chain of fused multiply-adds in k order
        dtype = np.float64 if s.out == "f64" else np.float32
        d = c_raw.view(np.float64) if s.out == "f64" else c_raw.astype(np.uint32).view(np.float32)
        if negate & 4:
            d = -d
        a_out = a_mat[:, ob, oi, :].astype(dtype)                     # (W, 64, items, K)
        b_out = np.swapaxes(b_mat, 2, 3)[:, ob, oj, :].astype(dtype)
        for k in range(s.k):
            d = rtlib.fma(a_out[..., k], b_out[..., k], d)
        if s.out == "f32":
            d = _clamped(np.asarray(d, np.float32), clamp, c_raw, a_mat, b_mat, (ob, oi, oj))
        return {"D0": _result(np.asarray(d, dtype).view(np.uint64 if s.out == "f64" else np.uint32), s)}
    c = c_raw.astype(np.uint32).view(np.float32)
    if family == "cdna3":          # the measured arithmetic (mfma_arith.py)
        c_mat = np.empty(a_mat.shape[:3] + (s.n,), np.float32)
        c_mat[:, ob, oi, oj] = c
        d = cdna3_dot(a_mat, b_mat, c_mat, a_kind, b_kind)[:, ob, oi, oj]
    else:
        d = (c.astype(np.float64) + np.matmul(a_mat, b_mat)[:, ob, oi, oj]).astype(np.float32)
    # (the sums' NaN bits depend on numpy's blocking of the batch: rtlib.default_nans)
    d = _clamped(rtlib.default_nans(np.asarray(d, np.float32)), clamp, c_raw, a_mat, b_mat, (ob, oi, oj))
    return {"D0": _result(d.view(np.uint32), s)}


def _overflow_clamp(ctx: Ctx, bit: int | None):
    """bool (W, 1, 1): the waves whose MODE.FP16_OVFL is set ("Clamp: uses the FP16_OVFL bit
    from MODE": f32 overflow gives +-MAX, i32 saturates); None when no wave asks."""
    if bit is None:
        return None
    on = ((np.asarray(ctx.mode, np.uint64).reshape(-1, 1, 1) >> np.uint64(bit)) & np.uint64(1)) == 1
    return on if on.any() else None


def _clamped(d: np.ndarray, clamp, c_raw, a_mat, b_mat, out) -> np.ndarray:
    """f32 results that overflowed (infinite from finite C and products) as +-MAX where MODE
    asks; infinities the inputs carry stay."""
    if clamp is None or not np.isinf(d).any():
        return d
    ob, oi, oj = out
    with np.errstate(all="ignore"):
        exact = c_raw.astype(np.uint32).view(np.float32).astype(np.float64) + np.matmul(a_mat, b_mat)[:, ob, oi, oj]
    overflow = clamp & np.isinf(d) & np.isfinite(exact)
    return np.where(overflow, np.copysign(np.float32(np.finfo(np.float32).max), d), d)


def _scaled(ctx: Ctx, name: str, values: np.ndarray, which: str) -> np.ndarray:
    """CDNA4 block scaling (7.2): the optional inputs SCALE_A / SCALE_B (a 32-bit register per
    lane, or a constant) and SCALE_A_SEL / SCALE_B_SEL ({OP_SEL_HI[i], OP_SEL[i]}: which byte)
    of the scale prefix that V_MFMA_SCALE_* carries; absent, no scaling. Each lane's byte is an
    E8M0 exponent (bias 127, 0xFF NaN) for the 32 K values that lane holds (one scale block)."""
    try:
        raw = ctx.inputs[f"SCALE_{which}"]
    except KeyError:
        return values
    sel = int(ctx.get(f"SCALE_{which}_SEL", name))
    byte = (np.broadcast_to(np.asarray(raw, np.uint32), ctx.shape) >> np.uint32(8 * sel)) & np.uint32(0xFF)
    factor = np.where(byte == 0xFF, np.nan, np.ldexp(1.0, byte.astype(np.int64) - 127))
    return values * factor[..., None]


def _result(items: np.ndarray, s: Shape) -> np.ndarray:
    """(W, 64, items) uint32 / uint64 -> the D0 block: uint64 (W, 64) for one 64-bit item,
    else uint32 dwords (W, 64, n), a 64-bit item as its low then high dword."""
    if items.dtype == np.uint64:
        if s.cd_bits == 64:
            return items[..., 0]
        items = np.stack([items & np.uint64(0xFFFFFFFF), items >> np.uint64(32)], -1)
        return items.reshape(items.shape[0], LANES, -1).astype(np.uint32)
    return items

"""gfx950's 31 scaled conversions to and from FP8/BF8/FP4 (CDNA4 manual 7.3 "Converts with
Scale", pseudocode pages 396-399: v_cvt_scalef32_{pk,sr}_*fp8*/*bf8*/*fp4*) on the machine, in
fast and in reference mode, against an exact reference written here with fractions.Fraction
from the OCP MX format definitions:

- FP8 E4M3 (bias 7; S.1111.111 NaN, no infinity, largest 448), BF8 E5M2 (bias 15, IEEE-style:
  S.11111.00 infinity, S.11111.xx NaN, largest 57344), FP4 E2M1 (bias 1, no specials, largest
  6). E8M0 scale 2^(X-127), X = 0xFF NaN.
- To a small float: the source divided by the scale, rounded to nearest even (or, stochastic,
  the random value's top k bits added below the kept bits, then truncated). FP4 (manual 7.3):
  past the largest magnitude clamped to it, sign kept; NaN/infinite sources and a NaN scale give
  the largest magnitude of the source's sign (AMD's host emulation, as for FP6). FP8/BF8 (7.3's
  FP16_OVFL table): NaN -> NaN; an infinity -> +-max with MODE.FP16_OVFL, else NaN (FP8) / the
  infinity (BF8); a finite value past the largest after rounding is treated as that infinity
  (emu/README.md: the MODE field's "clamped to +/- MAX, otherwise ... +/-INF"); a NaN scale ->
  NaN (FP8 0x7F, BF8 0x7E with the source's sign, AMD's host emulation). F32 sources follow
  MODE's f32 input denormal bit.
- From a small float: its value times the scale, rounded to nearest even into f32/f16/bf16,
  past the range infinity; a NaN code or a NaN scale a quiet NaN of the code's sign.
- Operand selection and partial writes as the pseudocode says (OPSEL[3] / OPSEL[3:2] pick the
  destination's half or byte, the other bits kept; OPSEL[0] / OPSEL[1:0] the source's half or
  byte); the OPSEL bits each op_sel list sets were read from llvm-mc-22's encodings (byte 1 bits
  3-6). V_CVT_SCALEF32_F16_{FP8,BF8} write one f16 half (isa.errata: the code's D0 = tmp.b32).
Inputs: every scale class, values in and around each format's range, exact ties, the source's
denormals, infinities, NaNs, random bits; random old destination bits. clang-22's code for the
__builtin_amdgcn_cvt_scalef32_* builtins runs on Device("emu") against the same reference."""
from __future__ import annotations

import math
import subprocess
from bisect import bisect_right
from fractions import Fraction

import numpy as np
import pytest

from emu.options import FAST, REFERENCE
from tests.test_emu_fp6_scaled import (QUIET_NAN, SCALES, WIDE, as_format, floor_log2, prng, round_wide,
                                       scale_words, wide_value)
from tests.test_emu_machine import launch

# OCP formats: (exponent bits, mantissa bits, bias, largest finite code)
SMALL = {"fp8": (4, 3, 7, 0x7E), "bf8": (5, 2, 15, 0x7B), "fp4": (2, 1, 1, 0x7)}
MODE_KEEP, MODE_FLUSH_F32_IN = 0x3F0, 0x3E0      # MODE.FP_DENORM[0] (f32 inputs) set / clear
FP16_OVFL = 1 << 23                              # MODE[23] (the manual's MODE table, checked below)

# mnemonic -> (shape, wide format, small format)
INSTRUCTIONS = {}
for _f in ("fp8", "bf8"):
    INSTRUCTIONS[f"v_cvt_scalef32_pk_{_f}_f32"] = ("pk_to", "f32", _f)
    INSTRUCTIONS[f"v_cvt_scalef32_pk_f32_{_f}"] = ("from_pk", "f32", _f)
    INSTRUCTIONS[f"v_cvt_scalef32_f32_{_f}"] = ("from_one", "f32", _f)
    INSTRUCTIONS[f"v_cvt_scalef32_f16_{_f}"] = ("from_one", "f16", _f)
    for _w in ("f32", "f16", "bf16"):
        INSTRUCTIONS[f"v_cvt_scalef32_sr_{_f}_{_w}"] = ("sr_to", _w, _f)
    for _w in ("f16", "bf16"):
        INSTRUCTIONS[f"v_cvt_scalef32_pk_{_f}_{_w}"] = ("pk_to", _w, _f)
        INSTRUCTIONS[f"v_cvt_scalef32_pk_{_w}_{_f}"] = ("from_pk", _w, _f)
for _w in ("f32", "f16", "bf16"):
    INSTRUCTIONS[f"v_cvt_scalef32_pk_fp4_{_w}"] = ("pk_to", _w, "fp4")
    INSTRUCTIONS[f"v_cvt_scalef32_sr_pk_fp4_{_w}"] = ("sr_pk_to", _w, "fp4")
    INSTRUCTIONS[f"v_cvt_scalef32_pk_{_w}_fp4"] = ("from_pk", _w, "fp4")


# ---- the reference -----------------------------------------------------------------------------

def small_value(code: int, fmt: str):
    """Fraction, or 'nan' / 'inf', and the sign bit."""
    e_bits, m_bits, bias, _ = SMALL[fmt]
    width = 1 + e_bits + m_bits
    sign = code >> (width - 1) & 1
    mag = code & ((1 << (width - 1)) - 1)
    if fmt == "fp8" and mag == 0x7F or fmt == "bf8" and mag > 0x7C:
        return "nan", sign
    if fmt == "bf8" and mag == 0x7C:
        return "inf", sign
    e, m = mag >> m_bits, mag & ((1 << m_bits) - 1)
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias), sign
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias), sign


def magnitudes(fmt: str) -> list:
    """The finite non-negative values by code, ascending, and one more: the next value of the
    largest binade, where rounding past the range lands (FP8 480, BF8 65536, FP4 8)."""
    top = SMALL[fmt][3]
    t = [small_value(c, fmt)[0] for c in range(top + 1)]
    return t + [2 * t[-1] - t[-2]]


def to_small(bits: int, src: str, fmt: str, scale: int, rand=None, flush=False, clamp=False) -> int:
    v, sign, denormal = wide_value(bits, src)
    e_bits, m_bits, bias, top = SMALL[fmt]
    width = 1 + e_bits + m_bits
    s = sign << (width - 1)
    nan = {"fp8": 0x7F, "bf8": 0x7E, "fp4": top}[fmt]
    over = top if fmt == "fp4" or clamp else {"fp8": 0x7F, "bf8": 0x7C}[fmt]
    if v == "nan" or scale == 255:
        return s | nan
    if v == "inf":
        return s | over
    if flush and denormal:
        v = Fraction(0)
    v = v / Fraction(2) ** (scale - 127)
    table = magnitudes(fmt)
    if rand is None:
        if v >= table[-1]:
            return s | over
        i = bisect_right(table, v) - 1            # table[i] <= v < table[i + 1]
        below, above = v - table[i], table[i + 1] - v
        code = i if below < above or below == above and i % 2 == 0 else i + 1
    else:
        k = WIDE[src][1] - m_bits
        q = Fraction(2) ** (max(floor_log2(v) if v else 1 - bias, 1 - bias) - m_bits)
        t = math.floor(v / q * 2 ** k)           # the source's bits, k below the kept ones
        mag = Fraction((t + (rand >> (32 - k))) >> k) * q
        code = table.index(mag) if mag <= table[top] else top + 1
    return s | (over if code > top else code)


INF = {"f32": 0x7F800000, "f16": 0x7C00, "bf16": 0x7F80}


def from_small(code: int, fmt: str, scale: int, dst: str) -> int:
    v, sign = small_value(code, fmt)
    if v == "nan" or scale == 255:
        return QUIET_NAN[dst] | sign << sum(WIDE[dst])
    if v == "inf":
        return INF[dst] | sign << sum(WIDE[dst])
    return round_wide(v * Fraction(2) ** (scale - 127), sign, dst)


# ---- inputs ----------------------------------------------------------------------------------

def source_values(rng, src: str, fmt: str, scale: np.ndarray, n: int) -> np.ndarray:
    """(lanes, n) bits of src: values in and around fmt's range after the lane's scale, exact ties
    between neighbouring values, the source's denormals, infinities, NaNs and random bits."""
    e_bits, m_bits = WIDE[src]
    width = 1 + e_bits + m_bits
    lanes = len(scale)
    mult = 2.0 ** (scale.astype(np.float64)[:, None] - 127)
    table = np.array([float(v) for v in magnitudes(fmt)])
    sign = np.where(rng.integers(0, 2, (lanes, n)) == 1, -1.0, 1.0)
    kind = rng.integers(0, 6, (lanes, n))
    _, fm, bias, _ = SMALL[fmt]
    e = rng.integers(-bias - fm - 2, int(np.log2(table[-1])) + 2, (lanes, n))
    inside = sign * (1 + rng.random((lanes, n))) * 2.0 ** e * mult
    i = rng.integers(0, len(table) - 1, (lanes, n))
    ties = sign * (table[i] + table[i + 1]) / 2 * mult
    near_top = sign * table[-2] * (1 + (rng.random((lanes, n)) - 0.5) / 4) * mult
    out = np.select([kind == 0, kind == 1, kind == 2], [as_format(inside, src), as_format(ties, src),
                                                        as_format(near_top, src)],
                    rng.integers(0, 1 << width, (lanes, n), dtype=np.uint64).astype(np.uint32))
    denormal = rng.integers(1, 1 << m_bits, (lanes, n), dtype=np.uint64).astype(np.uint32) | \
        (rng.integers(0, 2, (lanes, n), dtype=np.uint64).astype(np.uint32) << np.uint32(width - 1))
    out = np.where(kind == 4, denormal, out)
    specials = np.array([0, 1 << (width - 1), ((1 << e_bits) - 1) << m_bits,
                         (1 << (width - 1)) | ((1 << e_bits) - 1) << m_bits,
                         ((1 << e_bits) - 1) << m_bits | 1, (1 << width) - 1,
                         ((1 << e_bits) - 1) << m_bits | 1 << (m_bits - 1)], np.uint32)
    return np.where(kind == 5, specials[rng.integers(0, len(specials), (lanes, n))], out).astype(np.uint32)


# op_sel lists per shape: (the text, the OPSEL bits llvm-mc-22 encodes for it)
OPSELS = {
    "pk_to": [("", 0), ("op_sel:[0,0,0,1]", 8)],            # 3 sources (f32); the dst word
    "pk_to16": [("", 0), ("op_sel:[0,0,1]", 8)],            # 2 sources (f16/bf16 pairs)
    "pk_to4": [("op_sel:[0,0,1,0]", 4), ("op_sel:[0,0,1,1]", 12)],   # fp4: the dst byte
    "sr_to": [("op_sel:[0,0,1,0]", 4), ("op_sel:[0,0,0,1]", 8), ("op_sel:[0,0,1,1]", 12)],
    "sr_pk_to": [("", 0), ("op_sel:[0,0,1,1]", 12)],
    "from_pk": [("", 0), ("op_sel:[1,0,0]", 1)],
    "from_pk4": [("op_sel:[0,1,0]", 2), ("op_sel:[1,1,0]", 3)],
    "from_one": [("op_sel:[1,0,0]", 1), ("op_sel:[1,1,0]", 3)],
    "from_one16": [("op_sel:[1,0,0]", 1), ("op_sel:[0,1,1]", 10)],  # OPSEL[3]: the dst half
}


def opsel_kind(mnemonic: str) -> str:
    shape, wide, fmt = INSTRUCTIONS[mnemonic]
    if shape == "pk_to":
        return "pk_to4" if fmt == "fp4" else "pk_to16" if wide != "f32" else "pk_to"
    if shape == "from_pk" and fmt == "fp4":
        return "from_pk4"
    if shape == "from_one" and wide == "f16":
        return "from_one16"
    return shape


def _set(word: int, lo: int, bits: int, value: int) -> int:
    m = ((1 << bits) - 1) << lo
    return (word & ~m) | (value << lo & m)


def case(mnemonic: str, opsel: int, seed: int, lanes: int = 64, mode: int = MODE_KEEP):
    """([(lanes, n) operand dwords in operand order], old destination dwords, expected dwords)."""
    shape, wide, fmt = INSTRUCTIONS[mnemonic]
    rng = np.random.default_rng(seed)
    scale, scale_word = scale_words(rng, lanes)
    half = wide != "f32"
    dwords = 2 if shape == "from_pk" and wide == "f32" else 1
    old = rng.integers(0, 1 << 32, (lanes, dwords), dtype=np.uint64).astype(np.uint32)
    want = old.astype(np.uint64).copy()
    if shape.startswith("from"):
        src = rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32)
        if fmt == "fp4":
            at, n, bits = (opsel & 3) * 8, 2, 4
        elif shape == "from_pk":
            at, n, bits = (opsel & 1) * 16, 2, 8
        else:
            at, n, bits = (opsel & 3) * 8, 1, 8
        out_bits = 32 if wide == "f32" else 16
        for ln in range(lanes):
            word = 0 if shape == "from_one" and wide == "f32" else int(old[ln, 0])
            for j in range(n):
                code = int(src[ln]) >> (at + bits * j) & ((1 << bits) - 1)
                r = from_small(code, fmt, int(scale[ln]), wide)
                if dwords == 2:
                    want[ln, j] = r
                elif shape == "from_one" and wide == "f16":
                    word = _set(word, 16 * (opsel >> 3 & 1), 16, r)
                else:
                    word = _set(word, out_bits * j, out_bits, r)
            if dwords == 1:
                want[ln, 0] = word
        return [src[:, None], scale_word[:, None]], old, want
    two = shape in ("pk_to", "sr_pk_to")
    x = source_values(rng, wide, fmt, scale, 2 if two else 1)
    rand = rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32)
    rand[:2] = [0, 0xFFFFFFFF]
    flush = wide == "f32" and mode & 0x10 == 0
    clamp = bool(mode & FP16_OVFL)
    stochastic = shape.startswith("sr")
    bits = 4 if fmt == "fp4" else 8
    at = (opsel >> 2 & 3) * 8 if fmt == "fp4" or shape == "sr_to" else (opsel >> 3 & 1) * 16
    for ln in range(lanes):
        r, word = int(rand[ln]), int(old[ln, 0])
        for j in range(x.shape[1]):
            code = to_small(int(x[ln, j]), wide, fmt, int(scale[ln]), r if stochastic else None, flush, clamp)
            word = _set(word, at + bits * j, bits, code)
            r = prng(r)
        want[ln, 0] = word
    if shape == "sr_to":
        ops = [x, rand[:, None], scale_word[:, None]]
    elif half:          # a pair of 16-bit values in one dword
        pair = x[:, :1] | x[:, 1:] << np.uint32(16)
        ops = [pair] + ([rand[:, None]] if stochastic else []) + [scale_word[:, None]]
    elif shape == "sr_pk_to":
        ops = [x, rand[:, None], scale_word[:, None]]
    else:
        ops = [x[:, :1], x[:, 1:], scale_word[:, None]]
    return ops, old, want


# ---- on the machine ----------------------------------------------------------------------------

def run(mnemonic: str, ops: list, old: np.ndarray, opsel_text: str, options, mode: int) -> np.ndarray:
    """Each lane's operands loaded into v8.. (a 2-dword operand from an even register), the old
    destination into v80.., the instruction, v80.. stored."""
    cols = [old] + ops
    data = np.concatenate(cols, axis=1).astype(np.uint32)
    regs, loads, at, col = [], [], 8, old.shape[1]
    for r in range(old.shape[1]):
        loads.append(f"global_load_dword v{80 + r}, v120, s[8:9] offset:{4 * r}")
    for o in ops:
        n = o.shape[1]
        regs.append(f"v{at}" if n == 1 else f"v[{at}:{at + n - 1}]")
        for r in range(n):
            loads.append(f"global_load_dword v{at + r}, v120, s[8:9] offset:{4 * (col + r)}")
        at, col = at + 2, col + n
    out_dwords = old.shape[1]
    dst = "v80" if out_dwords == 1 else "v[80:81]"
    stores = "\n".join(f"global_store_dword v121, v{80 + r}, s[4:5] offset:{4 * r}" for r in range(out_dwords))
    src = f"""
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dwordx2 s[8:9], s[0:1], 0x8
    v_mul_u32_u24 v120, {4 * data.shape[1]}, v0
    v_mul_u32_u24 v121, {4 * out_dwords}, v0
    s_waitcnt lgkmcnt(0)
    {chr(10).join(loads)}
    s_waitcnt vmcnt(0)
    {mnemonic} {dst}, {', '.join(regs)} {opsel_text}
    {stores}
    s_endpgm
    """
    lanes = data.shape[0]
    got, _ = launch(src, {"out": np.zeros(lanes * out_dwords, np.uint32), "in": data.reshape(-1)},
                    block=(lanes, 1, 1), wave=64, arch="gfx950", vgprs=128, options=options, mode=mode)
    return got["out"].reshape(lanes, out_dwords)


def differences(got: np.ndarray, want: np.ndarray) -> list:
    bad = np.nonzero(got.astype(np.uint64) != want)
    return [(int(ln), int(k), hex(int(got[ln, k])), hex(int(want[ln, k]))) for ln, k in zip(*bad)][:8]


def _modes(mnemonic: str) -> tuple:
    shape, wide, fmt = INSTRUCTIONS[mnemonic]
    if shape.startswith("from"):
        return (MODE_KEEP,)
    modes = [MODE_KEEP] + ([MODE_KEEP | FP16_OVFL] if fmt != "fp4" else [])
    return tuple(modes + ([MODE_FLUSH_F32_IN] if wide == "f32" else []))


PARAMS = [pytest.param(m, text, bits, mode, id=f"{m}-{bits}-{mode:#x}") for m in INSTRUCTIONS
          for text, bits in OPSELS[opsel_kind(m)] for mode in _modes(m)]


def test_thirty_one_instructions():
    """Every gfx950 scaled conversion with FP8, BF8 or FP4 in its name is one checked here, and
    MODE.FP16_OVFL is bit 23 of the manual's MODE table."""
    import isa
    spec = isa.load("gfx950")
    names = {d.name.lower() for d in spec.instructions if d.name.startswith("V_CVT_SCALEF32")
             and any(f in d.name for f in ("FP8", "BF8", "FP4"))}
    assert names == set(INSTRUCTIONS) and len(names) == 31
    assert next(lo for field, _, lo, _ in spec.tables["mode"] if field == "FP16_OVFL") == 23


@pytest.mark.parametrize("mnemonic,opsel_text,opsel,mode", PARAMS)
def test_against_fraction_reference(mnemonic, opsel_text, opsel, mode):
    """64 lanes, bit for bit (the destination's other bits kept), fast and reference mode."""
    ops, old, want = case(mnemonic, opsel, seed=len(mnemonic) * 7 + opsel + mode % 1000, mode=mode)
    for options in (FAST, REFERENCE):
        got = run(mnemonic, ops, old, opsel_text, options, mode)
        assert not differences(got, want), (options is REFERENCE, differences(got, want))


def test_reference_examples():
    """The reference on values worked by hand from the format tables (manual 7.3 table 30)."""
    one = 0x3F800000
    assert to_small(one, "f32", "fp8", 127) == 0x38                           # 1.0 = 2^0: E 0111
    assert to_small(0x43E00000, "f32", "fp8", 127) == 0x7E                     # 448: the largest
    assert to_small(0x43E80000, "f32", "fp8", 127) == 0x7E                     # 464: tie, to even 448
    assert to_small(0x43E80001, "f32", "fp8", 127) == 0x7F                     # past: NaN (no FP16_OVFL)
    assert to_small(0x43E80001, "f32", "fp8", 127, clamp=True) == 0x7E         # ... +max with it
    assert to_small(0xFF800000, "f32", "fp8", 127) == 0xFF                     # -inf: NaN
    assert to_small(0xFF800000, "f32", "bf8", 127) == 0xFC                     # -inf stays
    assert to_small(0xFF800000, "f32", "bf8", 127, clamp=True) == 0xFB         # -max
    assert to_small(0x47700000, "f32", "bf8", 127) == 0x7C                     # 61440: tie to 65536, inf
    assert to_small(0x47680000, "f32", "bf8", 127) == 0x7B                     # 59392: 57344
    assert to_small(0x7FC00000, "f32", "bf8", 127) == 0x7E                     # NaN
    assert to_small(one, "f32", "fp8", 255) == 0x7F                            # NaN scale
    assert to_small(0x41000000, "f32", "fp4", 127) == 0x7                      # 8 clamps to 6
    assert to_small(0x40A00000, "f32", "fp4", 127) == 0x6                      # 5: tie 4 / 6, even
    assert to_small(0xC0400000, "f32", "fp4", 128) == 0xB                      # -3 / 2 = -1.5 = -2^0 * 1.1
    assert to_small(0x3E800000, "f32", "fp4", 127) == 0x0                      # 0.25: tie 0 / 0.5
    assert to_small(0x3F880000, "f32", "fp8", 127, rand=0) == 0x38             # 1.0625 truncated
    assert to_small(0x3F880000, "f32", "fp8", 127, rand=0x80000000) == 0x39    # + half an ulp
    assert from_small(0x7E, "fp8", 127 + 2, "f32") == 0x44E00000               # 448 * 4 = 1792
    assert from_small(0xFF, "fp8", 127, "f16") == 0xFE00                       # NaN, sign kept
    assert from_small(0xFC, "bf8", 127, "bf16") == 0xFF80                      # -inf
    assert from_small(0x7B, "bf8", 128, "f16") == 0x7C00                       # 114688 > 65504
    assert from_small(0x7, "fp4", 127 - 3, "f16") == 0x3A00                    # 6 / 8 = 0.75 = 2^-1 * 1.1


# ---- clang-22's code for the builtins ------------------------------------------------------------

_T = {"f32": "float", "f16": "half", "bf16": "__bf16"}


def _kernel(mnemonic: str, opsel: int) -> str | None:
    """A kernel calling the builtin with the op_sel bits `opsel` (its immediate arguments), or
    None where the builtin's arguments cannot say them."""
    shape, wide, fmt = INSTRUCTIONS[mnemonic]
    b = "__builtin_amdgcn_" + mnemonic[2:]
    name = f"k_{mnemonic[len('v_cvt_scalef32_'):]}_{opsel}"
    head = f"__kernel void {name}(__global uint *O, __global const uint *X, __global const uint *R, __global const float *S) {{\n" \
           f"  uint l = __builtin_amdgcn_workitem_id_x(); uint o = O[l];\n"
    t = _T[wide]
    if shape == "pk_to" and fmt != "fp4":
        if wide == "f32":
            call = f"{b}(__builtin_bit_cast(v2s, o), __builtin_bit_cast(float, X[2 * l]), __builtin_bit_cast(float, X[2 * l + 1]), S[l], {opsel >> 3})"
        else:
            call = f"{b}(__builtin_bit_cast(v2s, o), __builtin_bit_cast(v2{wide}, X[l]), S[l], {opsel >> 3})"
        return head + f"  O[l] = __builtin_bit_cast(uint, {call}); }}\n"
    if shape == "pk_to":
        if wide == "f32":
            call = f"{b}(o, __builtin_bit_cast(float, X[2 * l]), __builtin_bit_cast(float, X[2 * l + 1]), S[l], {opsel >> 2 & 3})"
        else:
            call = f"{b}(o, __builtin_bit_cast(v2{wide}, X[l]), S[l], {opsel >> 2 & 3})"
        return head + f"  O[l] = {call}; }}\n"
    if shape == "sr_to":
        v = "__builtin_bit_cast(float, X[l])" if wide == "f32" else f"__builtin_bit_cast(v2{wide}, X[l]).x"
        return head + f"  O[l] = {b}(o, {v}, R[l], S[l], {opsel >> 2 & 3}); }}\n"
    if shape == "sr_pk_to":
        v = "__builtin_bit_cast(v2f32, ((__global const ulong *)X)[l])" if wide == "f32" else \
            f"__builtin_bit_cast(v2{wide}, X[l])"
        return head + f"  O[l] = {b}(o, {v}, R[l], S[l], {opsel >> 2 & 3}); }}\n"
    if shape == "from_pk":
        sel = opsel & 3 if fmt == "fp4" else opsel & 1
        if wide == "f32":
            return head + f"  ((__global v2f32 *)O)[l] = {b}(X[l], S[l], {sel}); }}\n"
        return head + f"  O[l] = __builtin_bit_cast(uint, {b}(X[l], S[l], {sel})); }}\n"
    if wide == "f32":
        return head + f"  O[l] = __builtin_bit_cast(uint, {b}(X[l], S[l], {opsel & 3})); }}\n"
    return head + (f"  O[l] = __builtin_bit_cast(uint, {b}(__builtin_bit_cast(v2f16, o), X[l], S[l], {opsel & 3}, "
                   f"{'true' if opsel & 8 else 'false'})); }}\n")


_CLANG_CASES = [(m, bits) for m in INSTRUCTIONS for _, bits in OPSELS[opsel_kind(m)]]
_PRELUDE = ("typedef short v2s __attribute__((ext_vector_type(2)));\n"
            "typedef float v2f32 __attribute__((ext_vector_type(2)));\n"
            "typedef half v2f16 __attribute__((ext_vector_type(2)));\n"
            "typedef __bf16 v2bf16 __attribute__((ext_vector_type(2)));\n")


@pytest.fixture(scope="module")
def clang_object(tmp_path_factory):
    from tests.llvm_tools import tool
    tmp = tmp_path_factory.mktemp("fp8")
    (tmp / "k.cl").write_text(_PRELUDE + "".join(_kernel(m, b) for m, b in _CLANG_CASES))
    for argv in ([tool("clang"), "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950",
                  "-nogpulib", "-O2", "-c", str(tmp / "k.cl"), "-o", str(tmp / "k.o")],
                 [tool("ld.lld"), "-shared", str(tmp / "k.o"), "-o", str(tmp / "k.hsaco")]):
        subprocess.run(argv, check=True, capture_output=True)
    return (tmp / "k.hsaco").read_bytes()


@pytest.mark.parametrize("mnemonic,opsel", _CLANG_CASES, ids=[f"{m}-{b}" for m, b in _CLANG_CASES])
def test_clang_builtins_on_the_emulator(clang_object, mnemonic, opsel):
    """The kernel clang-22 makes of the instruction's builtin (its own registers, loads and
    op_sel), on Device("emu"), against the Fraction reference."""
    from runtime import Device
    shape = INSTRUCTIONS[mnemonic][0]
    ops, old, want = case(mnemonic, opsel, seed=len(mnemonic) * 11 + opsel)
    x = ops[0] if len(ops) == 2 or shape == "sr_to" or shape == "sr_pk_to" or ops[0].shape[1] == 2 \
        else np.concatenate(ops[:2], axis=1)
    rand = ops[1] if shape in ("sr_to", "sr_pk_to") else np.zeros_like(ops[-1])
    dev = Device("emu", arch="gfx950")
    prg = dev.load(clang_object)
    bufs = [dev.alloc(a.nbytes).copyin(np.ascontiguousarray(a.astype(np.uint32)))
            for a in (old, x, rand, ops[-1])]
    prg.launch(f"k_{mnemonic[len('v_cvt_scalef32_'):]}_{opsel}", grid=(1, 1, 1), block=(64, 1, 1), args=bufs)
    got = bufs[0].copyout(np.uint32).reshape(want.shape)
    # the bits the instruction writes (LLVM 22 does not tie every builtin's `old` argument to the
    # destination: its sr_pk_fp4 code leaves an address there; the kept bits are checked above)
    mask = np.uint64(written_mask(mnemonic, opsel))
    assert not differences(got & mask, want & mask), differences(got & mask, want & mask)


def written_mask(mnemonic: str, opsel: int) -> int:
    shape, wide, fmt = INSTRUCTIONS[mnemonic]
    if shape.startswith("from"):
        return 0xFFFF << 16 * (opsel >> 3 & 1) if shape == "from_one" and wide == "f16" else 0xFFFFFFFF
    if fmt == "fp4" or shape == "sr_to":
        return 0xFF << 8 * (opsel >> 2 & 3)
    return 0xFFFF << 16 * (opsel >> 3 & 1)


def test_generated_effects_agree_with_the_emulator():
    """The generated register and MODE effects of the 31 instructions (the destination read and
    kept in part, MODE.FP_DENORM.F32 read by those from f32, pairs included: isa.float_modes'
    scaled conversion) agree with the emulator by perturbation (tests/effects_check*.py)."""
    from tests import effects_check, effects_check_mode
    c = effects_check.Checker("gfx950")
    insts = [d for d in c.instructions if d.name.lower() in INSTRUCTIONS]
    assert len(insts) == 31
    rs = [c.run(d, np.random.default_rng([19, k]), None) for k, d in enumerate(insts)]
    assert not effects_check.disagreements(rs), effects_check.disagreements(rs)
    m = effects_check_mode.ModeChecker("gfx950")
    ms = [m.run_reader(d, np.random.default_rng([19, k])) for k, d in enumerate(m.valu) if d.name.lower() in INSTRUCTIONS]
    assert len(ms) == 31 and not effects_check_mode.disagreements(ms), effects_check_mode.disagreements(ms)

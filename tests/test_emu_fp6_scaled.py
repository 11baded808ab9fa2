"""gfx950's 18 conversions of 32 FP6/BF6 values with an E8M0 scale (CDNA4 manual 7.3 "Converts
with Scale", pseudocode pages 401-407) on the machine, in fast and in reference mode, against an
exact reference written here with fractions.Fraction from the OCP MX format definitions:

- FP6 E2M3 (bias 1) and BF6 E3M2 (bias 3): (-1)^S * 2^(1-bias) * 0.M for E = 0, else
  (-1)^S * 2^(E-bias) * 1.M; no infinity, no NaN. E8M0 scale: 2^(X-127), X = 0xFF is NaN.
- To FP6/BF6 (manual 7.3): the source divided by the scale, rounded to nearest (ties to the even
  code) among the format's values; past the largest magnitude clamped to it, sign kept; below
  half the smallest denormal zero of the source's sign. Stochastic forms: "add a random value
  ... and then truncate": the random value's top k bits (k = source mantissa bits - destination
  mantissa bits) added below the kept bits, then truncated; each pass takes the next
  V_PRNG_B32 value (the manual's LFSR, written out here). F32 sources follow MODE's f32 input
  denormal bit. Not stated by the manual, taken from AMD's host emulation of these builtins
  (ROCm amd_hip_ocp_host.hpp): NaN and infinite sources and a NaN scale give the largest
  magnitude with the source's sign.
- From FP6/BF6: the value times the scale, rounded to nearest even into f32/f16/bf16, past
  the range infinity; a NaN scale gives a quiet NaN of the code's sign (the format's default
  quiet NaN bits: an assumption, no hardware value measured).
Inputs: every scale class (0, denormal-range, around 127, large, 254, the NaN 255), values in and
around each format's range, exact ties, the source format's denormals, infinities, NaNs and
random bit patterns. clang-22's code for the __builtin_amdgcn_cvt_scalef32_* builtins runs on
Device("emu") against the same reference."""
from __future__ import annotations

import math
import subprocess
from bisect import bisect_right
from fractions import Fraction

import numpy as np
import pytest

from emu.options import FAST, REFERENCE
from tests.test_emu_machine import launch

# OCP MX element formats: (exponent bits, mantissa bits, bias)
SMALL = {"fp6": (2, 3, 1), "bf6": (3, 2, 3)}
# IEEE-style sources and destinations: (exponent bits, mantissa bits)
WIDE = {"f32": (8, 23), "f16": (5, 10), "bf16": (8, 7)}
MODE_KEEP, MODE_FLUSH_F32_IN = 0x3F0, 0x3E0      # MODE.FP_DENORM[0] (f32 inputs) set / clear

# mnemonic -> (direction, wide format, small format, stochastic, 2xpk16)
INSTRUCTIONS = {}
for _f in ("fp6", "bf6"):
    INSTRUCTIONS[f"v_cvt_scalef32_2xpk16_{_f}_f32"] = ("to", "f32", _f, False, True)
    INSTRUCTIONS[f"v_cvt_scalef32_sr_pk32_{_f}_f32"] = ("to", "f32", _f, True, False)
    INSTRUCTIONS[f"v_cvt_scalef32_pk32_f32_{_f}"] = ("from", "f32", _f, False, False)
    for _h in ("f16", "bf16"):
        INSTRUCTIONS[f"v_cvt_scalef32_pk32_{_f}_{_h}"] = ("to", _h, _f, False, False)
        INSTRUCTIONS[f"v_cvt_scalef32_sr_pk32_{_f}_{_h}"] = ("to", _h, _f, True, False)
        INSTRUCTIONS[f"v_cvt_scalef32_pk32_{_h}_{_f}"] = ("from", _h, _f, False, False)
# scale exponents of the lanes: the smallest, denormal range for the sources, normal, around
# 127, large, the largest, NaN
SCALES = [0, 1, 2, 20, 100, 104, 112, 120, 124, 126, 127, 128, 129, 131, 135, 140, 141, 142, 160,
          200, 240, 253, 254, 255]


# ---- the reference -----------------------------------------------------------------------------

def small_value(code: int, fmt: str) -> Fraction:
    e_bits, m_bits, bias = SMALL[fmt]
    sign = -1 if code >> (e_bits + m_bits) & 1 else 1
    e, m = code >> m_bits & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
    if e == 0:
        return sign * Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias)


def magnitudes(fmt: str) -> list:
    """The format's non-negative values, ascending, by code (codes 0..31 are monotonic)."""
    return [small_value(c, fmt) for c in range(32)]


def wide_value(bits: int, fmt: str):
    """('nan' | 'inf' | Fraction magnitude, sign, denormal)."""
    e_bits, m_bits = WIDE[fmt]
    bias = (1 << (e_bits - 1)) - 1
    sign = bits >> (e_bits + m_bits) & 1
    e, m = bits >> m_bits & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    if e == (1 << e_bits) - 1:
        return ("nan" if m else "inf"), sign, False
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias), sign, m != 0
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias), sign, False


def floor_log2(v: Fraction) -> int:
    e = v.numerator.bit_length() - v.denominator.bit_length()
    return e - 1 if Fraction(2) ** e > v else e


def prng(x: int) -> int:
    """V_PRNG_B32 (manual: D0 = (in << 1) ^ (in[31] ? 197 : 0))."""
    return ((x << 1) & 0xFFFFFFFF) ^ (197 if x >> 31 else 0)


def to_small(bits: int, src: str, fmt: str, scale: int, rand=None, flush=False) -> int:
    v, sign, denormal = wide_value(bits, src)
    table = magnitudes(fmt)
    top = len(table) - 1
    if v in ("nan", "inf") or scale == 255:
        return sign << 5 | top
    if flush and denormal:
        v = Fraction(0)
    v = v / Fraction(2) ** (scale - 127)
    if v >= table[top]:
        return sign << 5 | top
    if rand is None:
        i = bisect_right(table, v) - 1            # table[i] <= v < table[i + 1]
        below, above = v - table[i], table[i + 1] - v
        code = i if below < above or below == above and i % 2 == 0 else i + 1
    else:
        _, m_bits, bias = SMALL[fmt]
        k = WIDE[src][1] - m_bits
        q = Fraction(2) ** (max(floor_log2(v) if v else 1 - bias, 1 - bias) - m_bits)
        t = math.floor(v / q * 2 ** k)           # the source's bits, k below the kept ones
        mag = min(Fraction((t + (rand >> (32 - k))) >> k) * q, table[top])
        code = table.index(mag)
    return sign << 5 | code


def round_wide(v: Fraction, sign: int, fmt: str) -> int:
    """Bits of sign * v in fmt, to nearest even, past the largest finite value infinity."""
    e_bits, m_bits = WIDE[fmt]
    bias = (1 << (e_bits - 1)) - 1
    s = sign << (e_bits + m_bits)
    if v == 0:
        return s
    e = max(floor_log2(v), 1 - bias)
    n = round(v / Fraction(2) ** (e - m_bits))    # Fraction rounds half to even
    if n == 2 << m_bits:
        e, n = e + 1, 1 << m_bits
    if e > bias:
        return s | ((1 << e_bits) - 1) << m_bits
    if n < 1 << m_bits:
        return s | n                              # denormal (e is the smallest exponent)
    return s | (e + bias) << m_bits | (n - (1 << m_bits))


QUIET_NAN = {"f32": 0x7FC00000, "f16": 0x7E00, "bf16": 0x7FC0}


def from_small(code: int, fmt: str, scale: int, dst: str) -> int:
    sign = code >> 5 & 1
    if scale == 255:
        return QUIET_NAN[dst] | sign << (sum(WIDE[dst]))
    return round_wide(abs(small_value(code, fmt)) * Fraction(2) ** (scale - 127), sign, dst)


# ---- inputs ----------------------------------------------------------------------------------

def scale_words(rng, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per lane a scale exponent from SCALES and an f32 with it: random sign and mantissa
    (only bits 30:23 count)."""
    e = np.array([SCALES[i % len(SCALES)] for i in range(lanes)], np.uint32)
    noise = rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32) & np.uint32(0x807FFFFF)
    return e, noise | (e << np.uint32(23))


def as_format(x: np.ndarray, fmt: str) -> np.ndarray:
    """float64 values -> bits (uint32) of fmt (bf16: f32 rounded toward zero to its top half)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if fmt == "f16":
            return x.astype(np.float16).view(np.uint16).astype(np.uint32)
        f = x.astype(np.float32).view(np.uint32)
        return f >> np.uint32(16) if fmt == "bf16" else f


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
    _, fm, bias = SMALL[fmt]
    e = rng.integers(-bias - fm - 2, len(table) // (1 << fm) + 1, (lanes, n))
    inside = sign * (1 + rng.random((lanes, n))) * 2.0 ** e * mult
    i = rng.integers(0, len(table) - 1, (lanes, n))
    ties = sign * (table[i] + table[i + 1]) / 2 * mult
    near_top = sign * table[-1] * (1 + (rng.random((lanes, n)) - 0.5) / 8) * mult
    out = np.select([kind == 0, kind == 1, kind == 2], [as_format(inside, src), as_format(ties, src),
                                                        as_format(near_top, src)],
                    rng.integers(0, 1 << width, (lanes, n), dtype=np.uint64).astype(np.uint32))
    denormal = rng.integers(1, 1 << m_bits, (lanes, n), dtype=np.uint64).astype(np.uint32) | \
        (rng.integers(0, 2, (lanes, n), dtype=np.uint64).astype(np.uint32) << np.uint32(width - 1))
    out = np.where(kind == 4, denormal, out)
    specials = np.array([0, 1 << (width - 1), ((1 << e_bits) - 1) << m_bits,                  # +-0, +inf
                         (1 << (width - 1)) | ((1 << e_bits) - 1) << m_bits,                    # -inf
                         ((1 << e_bits) - 1) << m_bits | 1, (1 << width) - 1,                   # NaNs
                         ((1 << e_bits) - 1) << m_bits | 1 << (m_bits - 1)], np.uint32)
    return np.where(kind == 5, specials[rng.integers(0, len(specials), (lanes, n))], out).astype(np.uint32)


def pack(fields: np.ndarray, bits: int, dwords: int) -> np.ndarray:
    """(lanes, k) fields of `bits` bits, field i at bits i*bits.. -> (lanes, dwords) uint32."""
    out = np.zeros((fields.shape[0], dwords), np.uint32)
    for lane in range(fields.shape[0]):
        v = sum(int(f) << (bits * i) for i, f in enumerate(fields[lane]))
        out[lane] = [(v >> (32 * k)) & 0xFFFFFFFF for k in range(dwords)]
    return out


def unpack(words: np.ndarray, bits: int, k: int) -> np.ndarray:
    out = np.zeros((words.shape[0], k), np.uint64)
    for lane in range(words.shape[0]):
        v = sum(int(w) << (32 * i) for i, w in enumerate(words[lane]))
        out[lane] = [(v >> (bits * i)) & ((1 << bits) - 1) for i in range(k)]
    return out


def case(mnemonic: str, seed: int, lanes: int = 64, mode: int = MODE_KEEP):
    """(operand dwords per lane [(lanes, n) ...] in operand order, expected result dwords)."""
    direction, wide, fmt, stochastic, two = INSTRUCTIONS[mnemonic]
    rng = np.random.default_rng(seed)
    scale, scale_word = scale_words(rng, lanes)
    half = WIDE[wide] != WIDE["f32"]
    if direction == "from":
        codes = np.stack([rng.permutation(64)[:32] for _ in range(lanes)]).astype(np.uint32)
        want = np.array([[from_small(int(c), fmt, int(scale[ln]), wide) for c in codes[ln]]
                         for ln in range(lanes)], np.uint64)
        return [pack(codes, 6, 6), scale_word[:, None]], pack(want, 16 if half else 32, 16 if half else 32)
    x = source_values(rng, wide, fmt, scale, 32)
    rand = rng.integers(0, 1 << 32, lanes, dtype=np.uint64).astype(np.uint32)
    rand[:2] = [0, 0xFFFFFFFF]
    flush = wide == "f32" and mode == MODE_FLUSH_F32_IN
    want = np.zeros((lanes, 32), np.uint64)
    for ln in range(lanes):
        r = int(rand[ln])
        for i in range(32):
            want[ln, i] = to_small(int(x[ln, i]), wide, fmt, int(scale[ln]), r if stochastic else None, flush)
            r = prng(r)
    if two:     # 2xpk16: S0's element j at field 2j, S1's at field 2j + 1 (the pseudocode's interleave)
        ops = [x[:, 0::2], x[:, 1::2], scale_word[:, None]]
    else:
        ops = [pack(x, 16, 16) if half else x] + ([rand[:, None]] if stochastic else []) + [scale_word[:, None]]
    return ops, pack(want, 6, 6)


# ---- on the machine ----------------------------------------------------------------------------

def run(mnemonic: str, ops: list, out_dwords: int, options, mode: int) -> np.ndarray:
    """Each lane's operands loaded into v8.. (each operand from an even register), the
    instruction, its result from v80.. stored; the result dwords (lanes, out_dwords)."""
    regs, at = [], 8
    for o in ops:
        n = o.shape[1]
        regs.append(f"v{at}" if n == 1 else f"v[{at}:{at + n - 1}]")
        at += n + (n > 1 and n % 2)
    data = np.concatenate(ops, axis=1).astype(np.uint32)
    n_in = data.shape[1]
    order = [r for o in ops for r in range(o.shape[1])]
    assert len(order) == n_in
    dst = "v80" if out_dwords == 1 else f"v[80:{80 + out_dwords - 1}]"
    at, loads = 8, []
    col = 0
    for o in ops:
        n = o.shape[1]
        for r in range(n):
            loads.append(f"global_load_dword v{at + r}, v120, s[8:9] offset:{4 * (col + r)}")
        at, col = at + n + (n > 1 and n % 2), col + n
    stores = "\n".join(f"global_store_dword v121, v{80 + r}, s[4:5] offset:{4 * r}" for r in range(out_dwords))
    src = f"""
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dwordx2 s[8:9], s[0:1], 0x8
    v_mul_u32_u24 v120, {4 * n_in}, v0
    v_mul_u32_u24 v121, {4 * out_dwords}, v0
    s_waitcnt lgkmcnt(0)
    {chr(10).join(loads)}
    s_waitcnt vmcnt(0)
    {mnemonic} {dst}, {', '.join(regs)}
    {stores}
    s_endpgm
    """
    lanes = data.shape[0]
    got, _ = launch(src, {"out": np.zeros(lanes * out_dwords, np.uint32), "in": data.reshape(-1)},
                    block=(lanes, 1, 1), wave=64, arch="gfx950", vgprs=128, options=options, mode=mode)
    return got["out"].reshape(lanes, out_dwords)


def differences(got: np.ndarray, want: np.ndarray, mnemonic: str) -> list:
    direction, wide, fmt, _, _ = INSTRUCTIONS[mnemonic]
    bits = 6 if direction == "to" else (32 if wide == "f32" else 16)
    g, w = unpack(got, bits, 32), unpack(want, bits, 32)
    return [(lane, i, hex(int(g[lane, i])), hex(int(w[lane, i]))) for lane, i in zip(*np.nonzero(g != w))][:8]


PARAMS = [pytest.param(m, mode, id=f"{m}-{mode:#x}") for m in INSTRUCTIONS
          for mode in ((MODE_KEEP, MODE_FLUSH_F32_IN) if INSTRUCTIONS[m][1] == "f32" and INSTRUCTIONS[m][0] == "to"
                       else (MODE_KEEP,))]


def test_eighteen_instructions():
    """Every pk32/2xpk16 fp6/bf6 instruction of gfx950 is one of those checked here."""
    import isa
    names = {d.name.lower() for d in isa.load("gfx950").instructions if "PK32" in d.name or "2XPK16" in d.name}
    assert names == set(INSTRUCTIONS) and len(names) == 18


@pytest.mark.parametrize("mnemonic,mode", PARAMS)
def test_against_fraction_reference(mnemonic, mode):
    """64 lanes x 32 conversions, bit for bit, fast and reference mode."""
    ops, want = case(mnemonic, seed=len(mnemonic) * 7 + mode, mode=mode)
    for options in (FAST, REFERENCE):
        got = run(mnemonic, ops, want.shape[1], options, mode)
        assert not differences(got, want, mnemonic), (options is REFERENCE, differences(got, want, mnemonic))


def test_reference_examples():
    """The reference on values worked by hand from the format tables (manual 7.3 table 30)."""
    one = 0x3F800000
    assert to_small(one, "f32", "fp6", 127) == 0b001000                         # 1.0 = 2^0 * 1.000
    assert to_small(0x40F00000, "f32", "fp6", 127) == 0b011111                  # 7.5: the largest
    assert to_small(0x41000000, "f32", "fp6", 127) == 0b011111                  # 8.0 clamps
    assert to_small(0xC1000000, "f32", "fp6", 128) == 0b111000                  # -8 / 2 = -4 = -2^2
    assert to_small(0x3D800000, "f32", "fp6", 127) == 0b000000                  # 1/16: a tie with 0, even
    assert to_small(0x3DC00000, "f32", "fp6", 127) == 0b000001                  # 3/32 -> 1/8 (nearest)
    assert to_small(0x41E00000, "f32", "bf6", 127) == 0b011111                  # 28: bf6's largest
    assert to_small(0x7FC00000, "f32", "bf6", 127) == 0b011111                  # NaN -> +max
    assert to_small(one, "f32", "fp6", 255) == 0b011111                         # NaN scale
    assert to_small(0x3F900000, "f32", "fp6", 127, rand=0) == 0b001001          # 1.125 exact
    assert to_small(0x3F880000, "f32", "fp6", 127, rand=0) == 0b001000          # 1.0625 truncated
    assert to_small(0x3F880000, "f32", "fp6", 127, rand=0x80000000) == 0b001001  # + half an ulp
    assert from_small(0b011111, "fp6", 127 + 3, "f32") == 0x42700000            # 7.5 * 8 = 60
    assert from_small(0b011111, "bf6", 127 + 12, "f16") == 0x7C00               # 28 * 4096 > 65504
    assert from_small(0b100001, "fp6", 255, "bf16") == 0xFFC0                   # NaN scale, sign kept
    assert prng(0x80000001) == 0xC7


# ---- clang-22's code for the builtins ------------------------------------------------------------

_TYPES = {"f32": "float", "f16": "half", "bf16": "__bf16"}


def _kernel(mnemonic: str) -> str:
    direction, wide, fmt, stochastic, two = INSTRUCTIONS[mnemonic]
    builtin = "__builtin_amdgcn_" + mnemonic[2:]
    t = _TYPES[wide]
    n = 16 if two else 32
    name = "k_" + mnemonic[len("v_cvt_scalef32_"):]
    if direction == "from":
        return (f"typedef {t} V_{name} __attribute__((ext_vector_type(32)));\n"
                f"__kernel void {name}(__global const v6u *X, __global const float *S, __global V_{name} *O) {{\n"
                f"  uint l = __builtin_amdgcn_workitem_id_x(); O[l] = {builtin}(X[l], S[l]); }}\n")
    head = f"typedef {t} V_{name} __attribute__((ext_vector_type({n})));\n"
    if two:
        return head + (f"__kernel void {name}(__global const V_{name} *A, __global const V_{name} *B, "
                       f"__global const float *S, __global v6u *O) {{\n"
                       f"  uint l = __builtin_amdgcn_workitem_id_x(); O[l] = {builtin}(A[l], B[l], S[l]); }}\n")
    if stochastic:
        return head + (f"__kernel void {name}(__global const V_{name} *X, __global const uint *R, "
                       f"__global const float *S, __global v6u *O) {{\n"
                       f"  uint l = __builtin_amdgcn_workitem_id_x(); O[l] = {builtin}(X[l], R[l], S[l]); }}\n")
    return head + (f"__kernel void {name}(__global const V_{name} *X, __global const float *S, __global v6u *O) {{\n"
                   f"  uint l = __builtin_amdgcn_workitem_id_x(); O[l] = {builtin}(X[l], S[l]); }}\n")


@pytest.fixture(scope="module")
def clang_object(tmp_path_factory):
    from tests.llvm_tools import tool
    tmp = tmp_path_factory.mktemp("fp6")
    text = "typedef unsigned int v6u __attribute__((ext_vector_type(6)));\n" + "".join(map(_kernel, INSTRUCTIONS))
    (tmp / "k.cl").write_text(text)
    for argv in ([tool("clang"), "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950",
                  "-nogpulib", "-O2", "-c", str(tmp / "k.cl"), "-o", str(tmp / "k.o")],
                 [tool("ld.lld"), "-shared", str(tmp / "k.o"), "-o", str(tmp / "k.hsaco")]):
        subprocess.run(argv, check=True, capture_output=True)
    return (tmp / "k.hsaco").read_bytes()


@pytest.mark.parametrize("mnemonic", list(INSTRUCTIONS))
def test_clang_builtins_on_the_emulator(clang_object, mnemonic):
    """The kernel clang-22 makes of the instruction's builtin (its own registers and loads),
    on Device("emu"), against the Fraction reference."""
    from runtime import Device
    ops, want = case(mnemonic, seed=len(mnemonic) * 11 + 5)
    # a 6-element vector is laid out as 8 (OpenCL's vec3 rule: ext_vector_type(6) takes 32 bytes)
    ops = [np.pad(o, ((0, 0), (0, 2))) if o.shape[1] == 6 else o for o in ops]
    stride = 8 if want.shape[1] == 6 else want.shape[1]
    dev = Device("emu", arch="gfx950")
    prg = dev.load(clang_object)
    bufs = [dev.alloc(o.nbytes).copyin(np.ascontiguousarray(o.astype(np.uint32))) for o in ops]
    out = dev.alloc(64 * stride * 4)
    prg.launch("k_" + mnemonic[len("v_cvt_scalef32_"):], grid=(1, 1, 1), block=(64, 1, 1), args=bufs + [out])
    got = out.copyout(np.uint32).reshape(64, stride)[:, :want.shape[1]]
    assert not differences(got, want, mnemonic), differences(got, want, mnemonic)

"""The unscaled FP8/BF8 conversions of gfx942 (CDNA3), gfx950 (CDNA4) and gfx1201 (RDNA4) on the
machine, in fast and in reference mode, against an exact reference written here with
fractions.Fraction from the manuals' format tables:

- gfx942: FNUZ formats (CDNA3 manual 7.2 table 30): FP8 E4M3 bias 8, largest 240; BF8 E5M2 bias
  16, largest 57344; 0x80 the one NaN, no -0 (a zero result is 0x00 whatever its sign), no
  infinity (table 30's BF8 "INF" is 0x80 too). gfx950 / gfx1201: OCP formats (CDNA4 7.3 table
  30, RDNA4 7.5): FP8 bias 7, S.1111.111 NaN, no infinity, largest 448; BF8 bias 15, IEEE-style.
- v_cvt_pk_{fp8,bf8}_f32 (RNE) and v_cvt_sr_{fp8,bf8}_f32: the FP16_OVFL table (NaN -> NaN;
  +-inf and a value past the largest after rounding -> +-max with MODE.FP16_OVFL, else NaN
  (FP8) / the infinity (BF8; FNUZ: 0x80)); an f32 NaN gives OCP's 0x7F (FP8) / 0x7E (BF8) with
  its sign. SR as the code says: the random dword's top 20 (FP8) / 21 (BF8) bits added to the
  f32 fraction field, wrapping within it, the sign and exponent kept, then truncated (the
  manuals' text; isa/errata.py: the code's ROUND_NEAREST_EVEN). OPSEL[3] picks the destination
  word of the pair, OPSEL[3:2] the byte of SR's result; the other bits kept.
- v_cvt_f32_{fp8,bf8} and v_cvt_pk_f32_{fp8,bf8} (gfx942/gfx950; VOP1, its VOP3 and SDWA forms):
  the code's value exactly, a NaN code a quiet NaN (OCP: of its sign; FNUZ 0x80: +NaN);
  SDWA's src0_sel names the byte / word, elsewhere byte / word 0.
Inputs: every one of the 256 codes of each format, their midpoints (ties), values just beside
them, around the largest magnitude, f32 denormals, +-0, +-inf, NaNs, random bits; random old
destination bits; random seeds and the seeds 0 and 0xFFFFFFFF. The RDNA4 conversions run in
wave32 and wave64. clang-22's code for the __builtin_amdgcn_cvt_* builtins (gfx942, gfx950,
gfx1201) runs on Device("emu") against the same reference."""
from __future__ import annotations

import subprocess
from bisect import bisect_right
from fractions import Fraction

import numpy as np
import pytest

from emu.options import FAST, REFERENCE
from tests.test_emu_machine import launch

# family -> format -> (exponent bits, mantissa bits, bias, largest finite code)
FORMATS = {"fnuz": {"fp8": (4, 3, 8, 0x7F), "bf8": (5, 2, 16, 0x7F)},
           "ocp": {"fp8": (4, 3, 7, 0x7E), "bf8": (5, 2, 15, 0x7B)}}
KIND = {"gfx942": "fnuz", "gfx950": "ocp", "gfx1201": "ocp"}
MODE_KEEP = 0x3F0
FP16_OVFL = 1 << 23


# ---- the reference -----------------------------------------------------------------------------

def small_value(code: int, fmt: str, kind: str):
    """(Fraction | 'nan' | 'inf', sign bit) of an 8-bit code."""
    e_bits, m_bits, bias, _ = FORMATS[kind][fmt]
    sign, mag = code >> 7 & 1, code & 0x7F
    if kind == "fnuz" and code == 0x80:
        return "nan", 0
    if kind == "ocp" and (fmt == "fp8" and mag == 0x7F or fmt == "bf8" and mag > 0x7C):
        return "nan", sign
    if kind == "ocp" and fmt == "bf8" and mag == 0x7C:
        return "inf", sign
    e, m = mag >> m_bits, mag & ((1 << m_bits) - 1)
    if e == 0:
        return Fraction(m, 1 << m_bits) * Fraction(2) ** (1 - bias), sign
    return (1 + Fraction(m, 1 << m_bits)) * Fraction(2) ** (e - bias), sign


def magnitudes(fmt: str, kind: str) -> list:
    """The finite non-negative values by code and the next one of the largest binade."""
    top = FORMATS[kind][fmt][3]
    t = [small_value(c, fmt, kind)[0] for c in range(top + 1)]
    return t + [2 * t[-1] - t[-2]]


def f32_value(bits: int):
    sign, e, m = bits >> 31, bits >> 23 & 0xFF, bits & 0x7FFFFF
    if e == 0xFF:
        return ("nan" if m else "inf"), sign
    return (Fraction(m, 1 << 23) * Fraction(2) ** -126 if e == 0 else
            (1 + Fraction(m, 1 << 23)) * Fraction(2) ** (e - 127)), sign


def to_small(bits: int, fmt: str, kind: str, clamp: bool = False, truncate: bool = False) -> int:
    v, sign = f32_value(bits)
    top = FORMATS[kind][fmt][3]
    s = sign << 7
    if kind == "fnuz":
        nan, over = 0x80, (top | s if clamp else 0x80)
    else:
        nan = s | (0x7F if fmt == "fp8" else 0x7E)
        over = s | (top if clamp else 0x7F if fmt == "fp8" else 0x7C)
    if v == "nan":
        return nan
    if v == "inf":
        return over
    table = magnitudes(fmt, kind)
    if v >= table[-1]:
        return over
    i = bisect_right(table, v) - 1                # table[i] <= v < table[i + 1]
    below, above = v - table[i], table[i + 1] - v
    code = i if truncate or below < above or below == above and i % 2 == 0 else i + 1
    if code > top:
        return over
    if kind == "fnuz" and code == 0:
        return 0
    return s | code


def sr_source(bits: int, rand: int, fmt: str) -> int:
    """The f32 the SR code converts: m = 23'U(mantissa + S1[31 : 12 or 11]), sign and exponent kept."""
    drop = 12 if fmt == "fp8" else 11
    m = (bits & 0x7FFFFF) + (rand >> drop) & 0x7FFFFF
    return bits & 0xFF800000 | m


def from_small(code: int, fmt: str, kind: str) -> int:
    v, sign = small_value(code, fmt, kind)
    if v == "nan":
        return 0x7FC00000 | sign << 31
    if v == "inf":
        return 0x7F800000 | sign << 31
    f = np.float32(float(v))
    assert Fraction(float(f)) == v                       # every code is exact in f32
    return int(f.view(np.uint32)) | sign << 31


# ---- inputs ----------------------------------------------------------------------------------

def f32_inputs(rng, fmt: str, kind: str, n: int) -> np.ndarray:
    """n f32 bit patterns: every code's value, the midpoints of neighbours (ties) and the f32
    values beside them, around the largest, f32 denormals, zeros, infinities, NaNs, random bits."""
    table = magnitudes(fmt, kind)
    vals = [float(v) for v in table]
    mids = [(a + b) / 2 for a, b in zip(vals, vals[1:])]
    exact = np.array(vals + mids, np.float32)
    near = np.concatenate([exact, np.nextafter(exact, np.float32(np.inf)), np.nextafter(exact, np.float32(0))])
    specials = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
                         0xFFBFFFFF, 0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF], np.uint32)
    out = np.concatenate([near.view(np.uint32), specials])
    out = np.concatenate([out, out | np.uint32(0x80000000)])
    rest = max(n - len(out), 0)
    rand = rng.integers(0, 1 << 32, rest, dtype=np.uint64).astype(np.uint32)
    e = rng.integers(-20, 20, rest)
    scaled = (np.float32(1) + rng.random(rest).astype(np.float32)) * np.float32(2.0) ** e.astype(np.float32)
    rand = np.where(rng.integers(0, 2, rest) == 1, scaled.view(np.uint32), rand)
    return rng.permutation(np.concatenate([out, rand]))[:n] if rest == 0 else np.concatenate([out, rand])


# ---- on the machine ----------------------------------------------------------------------------

def _kernel(arch: str, text: str, n_in: int, n_out: int) -> str:
    """Lane l: dwords in[n_in * l ...] into v8.., out[n_out * l ...] (old destination) into v80..,
    `text`, v80.. stored back."""
    rdna = arch.startswith("gfx12")
    ld, st = ("global_load_b32", "global_store_b32") if rdna else ("global_load_dword", "global_store_dword")
    wait_s, wait_v = ("s_wait_kmcnt 0", "s_wait_loadcnt 0") if rdna else ("s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0)")
    sload = "s_load_b64" if rdna else "s_load_dwordx2"
    loads = [f"{ld} v{8 + r}, v120, s[8:9] offset:{4 * r}" for r in range(n_in)]
    loads += [f"{ld} v{80 + r}, v121, s[4:5] offset:{4 * r}" for r in range(n_out)]
    stores = [f"{st} v121, v{80 + r}, s[4:5] offset:{4 * r}" for r in range(n_out)]
    nl = "\n    "
    return f"""
    {sload} s[4:5], s[0:1], 0x0
    {sload} s[8:9], s[0:1], 0x8
    v_mul_u32_u24 v120, {4 * n_in}, v0
    v_mul_u32_u24 v121, {4 * n_out}, v0
    {wait_s}
    {nl.join(loads)}
    {wait_v}
    {text}
    {nl.join(stores)}
    s_endpgm
    """


def run(arch: str, text: str, inputs: np.ndarray, old: np.ndarray, options, mode=MODE_KEEP, wave=64) -> np.ndarray:
    lanes = inputs.shape[0]
    got, _ = launch(_kernel(arch, text, inputs.shape[1], old.shape[1]),
                    {"out": old.astype(np.uint32).reshape(-1).copy(), "in": inputs.astype(np.uint32).reshape(-1)},
                    block=(lanes, 1, 1), wave=wave, arch=arch, vgprs=128, options=options, mode=mode)
    return got["out"].reshape(old.shape)


def differences(got, want) -> list:
    want = np.asarray(want, np.uint64)
    bad = np.nonzero(got.astype(np.uint64) != want)
    return [(int(ln), int(k), hex(int(got[ln, k])), hex(int(want[ln, k]))) for ln, k in zip(*bad)][:8]


def _set(word: int, lo: int, bits: int, value: int) -> int:
    m = ((1 << bits) - 1) << lo
    return (word & ~m) | (value << lo & m)


def both_modes(arch, text, inputs, old, want, mode=MODE_KEEP, wave=64):
    for options in (FAST, REFERENCE):
        got = run(arch, text, inputs, old, options, mode, wave)
        assert not differences(got, want), (arch, text, options is REFERENCE, differences(got, want))


LANES = 256
TO_ARCHS = [("gfx942", 64), ("gfx950", 64), ("gfx1201", 32), ("gfx1201", 64)]


@pytest.mark.parametrize("arch,wave", TO_ARCHS, ids=[f"{a}-w{w}" for a, w in TO_ARCHS])
@pytest.mark.parametrize("fmt", ["fp8", "bf8"])
@pytest.mark.parametrize("hi", [0, 1])
@pytest.mark.parametrize("mode", [MODE_KEEP, MODE_KEEP | FP16_OVFL], ids=["ovfl0", "ovfl1"])
def test_pk_to_small(arch, wave, fmt, hi, mode):
    """v_cvt_pk_{fp8,bf8}_f32: S0 to the low byte, S1 to the high byte of the word OPSEL[3] names."""
    kind = KIND[arch]
    rng = np.random.default_rng([hi, mode >> 23, len(arch), wave])
    x = f32_inputs(rng, fmt, kind, 2 * LANES).reshape(2, LANES).T
    old = rng.integers(0, 1 << 32, (LANES, 1), dtype=np.uint64).astype(np.uint32)
    clamp = bool(mode & FP16_OVFL)
    want = [[_set(int(old[ln, 0]), 16 * hi, 16, to_small(int(x[ln, 0]), fmt, kind, clamp)
                  | to_small(int(x[ln, 1]), fmt, kind, clamp) << 8)] for ln in range(LANES)]
    text = f"v_cvt_pk_{fmt}_f32 v80, v8, v9" + (" op_sel:[0,0,1]" if hi else "")
    both_modes(arch, text, x, old, want, mode, wave)


SR_SELECTS = {0: "", 1: "op_sel:[0,0,1,0]", 2: "op_sel:[0,0,0,1]", 3: "op_sel:[0,0,1,1]"}


@pytest.mark.parametrize("arch,wave", TO_ARCHS, ids=[f"{a}-w{w}" for a, w in TO_ARCHS])
@pytest.mark.parametrize("fmt", ["fp8", "bf8"])
@pytest.mark.parametrize("byte", [0, 1, 2, 3])
def test_sr_to_small(arch, wave, fmt, byte):
    """v_cvt_sr_{fp8,bf8}_f32: the byte OPSEL[3:2] names (RDNA4's syntax: byte_sel), random seeds
    and 0 / 0xFFFFFFFF, with and without FP16_OVFL."""
    kind = KIND[arch]
    for mode in (MODE_KEEP, MODE_KEEP | FP16_OVFL):
        rng = np.random.default_rng([byte, mode >> 23, len(arch), wave, len(fmt)])
        x = f32_inputs(rng, fmt, kind, LANES)
        rand = rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32)
        rand[:LANES // 4] = 0
        rand[LANES // 4:LANES // 2] = 0xFFFFFFFF
        old = rng.integers(0, 1 << 32, (LANES, 1), dtype=np.uint64).astype(np.uint32)
        clamp = bool(mode & FP16_OVFL)
        want = [[_set(int(old[ln, 0]), 8 * byte, 8, to_small(sr_source(int(x[ln]), int(rand[ln]), fmt), fmt, kind,
                                                              clamp, truncate=True))] for ln in range(LANES)]
        sel = f"byte_sel:{byte}" if arch.startswith("gfx12") and byte else SR_SELECTS[byte]
        both_modes(arch, f"v_cvt_sr_{fmt}_f32 v80, v8, v9 {sel}", np.stack([x, rand], 1), old, want, mode, wave)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("round_field", [1, 2, 3], ids=["up", "down", "zero"])
def test_directed_mode_changes_nothing(arch, round_field):
    """The code sets its own ROUND_MODE: under MODE.FP_ROUND toward +inf, -inf or zero (both
    fields) v_cvt_pk_fp8_f32 still rounds to nearest even and v_cvt_sr_bf8_f32 truncates."""
    kind = KIND[arch]
    mode = MODE_KEEP | round_field | round_field << 2
    rng = np.random.default_rng([round_field, len(arch)])
    x = f32_inputs(rng, "fp8", kind, 2 * LANES).reshape(2, LANES).T
    old = np.zeros((LANES, 1), np.uint32)
    want = [[to_small(int(a), "fp8", kind) | to_small(int(b), "fp8", kind) << 8] for a, b in x]
    both_modes(arch, "v_cvt_pk_fp8_f32 v80, v8, v9", x, old, want, mode)
    y = f32_inputs(rng, "bf8", kind, LANES)
    rand = rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32)
    want = [[to_small(sr_source(int(a), int(r), "bf8"), "bf8", kind, truncate=True)] for a, r in zip(y, rand)]
    both_modes(arch, "v_cvt_sr_bf8_f32 v80, v8, v9", np.stack([y, rand], 1), old, want, mode)


def code_words() -> np.ndarray:
    """(256,) dwords: lane 64j + i holds codes 4i + (b + j) % 4 in byte b, so each byte (and
    word) position sees all 256 codes over the lanes."""
    out = np.zeros(LANES, np.uint32)
    for j in range(4):
        for i in range(64):
            out[64 * j + i] = sum((4 * i + (b + j) % 4) << 8 * b for b in range(4))
    return out


FROM_FORMS = [("", 0), ("_e64", 0)] + [(f"_sdwa", k) for k in range(4)]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("fmt", ["fp8", "bf8"])
@pytest.mark.parametrize("form,sel", FROM_FORMS, ids=[f"{f or '_e32'}{s}" for f, s in FROM_FORMS])
def test_one_from_small(arch, fmt, form, sel):
    """v_cvt_f32_{fp8,bf8}: the byte SDWA's src0_sel names, byte 0 in the e32 / e64 forms."""
    kind = KIND[arch]
    words = code_words()
    old = np.random.default_rng([sel, len(form)]).integers(0, 1 << 32, (LANES, 1), dtype=np.uint64).astype(np.uint32)
    want = [[from_small(int(w) >> 8 * sel & 0xFF, fmt, kind)] for w in words]
    text = f"v_cvt_f32_{fmt}{form} v80, v8" + (f" src0_sel:BYTE_{sel}" if form == "_sdwa" else "")
    both_modes(arch, text, words[:, None], old, want)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("fmt", ["fp8", "bf8"])
@pytest.mark.parametrize("form,sel", [("", 0), ("_e64", 0), ("_sdwa", 0), ("_sdwa", 1)])
def test_pk_from_small(arch, fmt, form, sel):
    """v_cvt_pk_f32_{fp8,bf8}: the word SDWA's src0_sel names (WORD_0 / WORD_1), word 0 otherwise;
    its low byte into the even VGPR, its high byte into the odd one."""
    kind = KIND[arch]
    words = code_words()
    old = np.random.default_rng([sel, len(form), 2]).integers(0, 1 << 32, (LANES, 2), dtype=np.uint64).astype(np.uint32)
    want = [[from_small(int(w) >> 16 * sel + 8 * j & 0xFF, fmt, kind) for j in range(2)] for w in words]
    text = f"v_cvt_pk_f32_{fmt}{form} v[80:81], v8" + (f" src0_sel:WORD_{sel}" if form == "_sdwa" else "")
    both_modes(arch, text, words[:, None], old, want)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("form", ["_e64", "_sdwa"])
def test_clamp_applies_in_both_forms(arch, form):
    """clamp on v_cvt_f32_fp8 (table 31 names only abs, neg and sext as ignored; LLVM 22 takes
    clamp on the VOP3 and the SDWA form) clamps the value to [0, 1] in both forms alike (a
    negative value or -inf to +0). Zeros and NaN codes aside (the clamp's rules for -0 and NaN
    are the machine's, checked with the other float results)."""
    kind = KIND[arch]
    words = code_words()
    old = np.zeros((LANES, 1), np.uint32)
    sel = 1 if form == "_sdwa" else 0
    want = []
    for w in words:
        v, sign = small_value(int(w) >> 8 * sel & 0xFF, "fp8", kind)
        want.append(None if v == "nan" or v == 0 else 0 if sign else 0x3F800000 if v == "inf" or v >= 1 else
                    int(np.float32(float(v)).view(np.uint32)))
    text = f"v_cvt_f32_fp8{form} v80, v8 clamp" + (" src0_sel:BYTE_1" if form == "_sdwa" else "")
    keep = np.array([w is not None for w in want])
    for options in (FAST, REFERENCE):
        got = run(arch, text, words[:, None], old, options)
        assert not differences(got[keep], [[w] for w in want if w is not None]), (arch, form, options is REFERENCE)


def test_reference_examples():
    """The reference on values worked by hand from the format tables."""
    one = 0x3F800000
    assert to_small(one, "fp8", "ocp") == 0x38 and to_small(one, "fp8", "fnuz") == 0x40      # bias 7 / 8
    assert to_small(one, "bf8", "ocp") == 0x3C and to_small(one, "bf8", "fnuz") == 0x40      # bias 15 / 16
    assert to_small(0x43E00000, "fp8", "ocp") == 0x7E                    # 448, OCP's largest
    assert to_small(0x43E80000, "fp8", "ocp") == 0x7E                    # 464: tie 448 / 480, even
    assert to_small(0x43E80001, "fp8", "ocp") == 0x7F                    # past: NaN
    assert to_small(0x43E80001, "fp8", "ocp", clamp=True) == 0x7E        # +max with FP16_OVFL
    assert to_small(0x43700000, "fp8", "fnuz") == 0x7F                   # 240, FNUZ's largest
    assert to_small(0x43780000, "fp8", "fnuz") == 0x80                   # 248: tie 240 / 256 -> NaN 0x80
    assert to_small(0xC3780000, "fp8", "fnuz", clamp=True) == 0xFF       # -248 -> -max
    assert to_small(0xFF800000, "bf8", "ocp") == 0xFC                    # -inf stays
    assert to_small(0xFF800000, "bf8", "fnuz") == 0x80                   # FNUZ: no infinity
    assert to_small(0x80000000, "fp8", "ocp") == 0x80 and to_small(0x80000000, "fp8", "fnuz") == 0
    assert to_small(0xBA800000, "fp8", "fnuz") == 0x81                   # -2^-10: FNUZ's smallest denormal
    assert to_small(0xBA000000, "fp8", "fnuz") == 0                      # -2^-11: tie to even 0, no -0
    assert to_small(0x3A800000, "fp8", "fnuz") == 0x01
    assert to_small(0x3F880000, "fp8", "ocp", truncate=True) == 0x38     # 1.0625 truncated
    assert sr_source(0x3F880000, 0x80000000, "fp8") == 0x3F900000        # + half an FP8 ulp (2^-4)
    assert to_small(sr_source(0x3F880000, 0x80000000, "fp8"), "fp8", "ocp", truncate=True) == 0x39
    assert sr_source(0x3FFFFFFF, 0x00001000, "fp8") == 0x3F800000        # the fraction wraps, exponent kept
    assert from_small(0x80, "fp8", "fnuz") == 0x7FC00000 and from_small(0xFF, "fp8", "ocp") == 0xFFC00000
    assert from_small(0x01, "fp8", "fnuz") == 0x3A800000                 # 2^-10
    assert from_small(0x7F, "bf8", "fnuz") == 0x47600000                 # 57344
    assert from_small(0xFC, "bf8", "ocp") == 0xFF800000


# ---- clang-22's code for the builtins ------------------------------------------------------------

_CLANG = {
    "one": "O[l] = __builtin_bit_cast(uint, __builtin_amdgcn_cvt_f32_{f}(X[l], {s}));",
    "pk_from": "((__global v2f32 *)O)[l] = __builtin_amdgcn_cvt_pk_f32_{f}(X[l], {b});",
    "pk_to": "O[l] = __builtin_amdgcn_cvt_pk_{f}_f32(__builtin_bit_cast(float, X[2 * l]), "
             "__builtin_bit_cast(float, X[2 * l + 1]), O[l], {b});",
    "sr_to": "O[l] = __builtin_amdgcn_cvt_sr_{f}_f32(__builtin_bit_cast(float, X[2 * l]), X[2 * l + 1], O[l], {s});",
}
_CLANG_CASES = [(shape, f, s) for shape in _CLANG for f in ("fp8", "bf8")
                for s in (range(4) if shape in ("one", "sr_to") else range(2))]


def _source() -> str:
    out = ["typedef float v2f32 __attribute__((ext_vector_type(2)));"]
    for shape, f, s in _CLANG_CASES:
        body = _CLANG[shape].format(f=f, s=s, b="true" if s else "false")
        out.append(f"__kernel void k_{shape}_{f}_{s}(__global uint *O, __global const uint *X) "
                   f"{{ uint l = __builtin_amdgcn_workitem_id_x(); {body} }}")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module", params=["gfx942", "gfx950", "gfx1201"])
def clang_object(request, tmp_path_factory):
    from tests.llvm_tools import tool
    tmp = tmp_path_factory.mktemp(f"fp8cvt-{request.param}")
    (tmp / "k.cl").write_text(_source())
    for argv in ([tool("clang"), "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa",
                  f"-mcpu={request.param}", "-nogpulib", "-O2", "-c", str(tmp / "k.cl"), "-o", str(tmp / "k.o")],
                 [tool("ld.lld"), "-shared", str(tmp / "k.o"), "-o", str(tmp / "k.hsaco")]):
        subprocess.run(argv, check=True, capture_output=True)
    return request.param, (tmp / "k.hsaco").read_bytes()


def test_clang_builtins_on_the_emulator(clang_object):
    """Every builtin (each byte / word select) as clang-22 compiles it for gfx942, gfx950 and
    gfx1201 (its own registers; SDWA selects and op_sel, RDNA4's byte_sel and op_sel; gfx1201 in
    wave32), on Device("emu"), against the Fraction reference: 64 lanes each."""
    from runtime import Device
    arch, blob = clang_object
    kind = KIND[arch]
    dev = Device("emu", arch=arch)
    prg = dev.load(blob)
    rng = np.random.default_rng(7)
    words = code_words()[:64]
    for shape, f, s in _CLANG_CASES:
        old = rng.integers(0, 1 << 32, 64 * (2 if shape == "pk_from" else 1), dtype=np.uint64).astype(np.uint32)
        if shape == "one":
            x, want = words, [from_small(int(w) >> 8 * s & 0xFF, f, kind) for w in words]
        elif shape == "pk_from":
            x = words
            want = [from_small(int(w) >> 16 * s + 8 * j & 0xFF, f, kind) for w in words for j in range(2)]
        elif shape == "pk_to":
            x = f32_inputs(rng, f, kind, 128)
            want = [_set(int(old[ln]), 16 * s, 16, to_small(int(x[2 * ln]), f, kind)
                         | to_small(int(x[2 * ln + 1]), f, kind) << 8) for ln in range(64)]
        else:
            x = np.stack([f32_inputs(rng, f, kind, 64),
                          rng.integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)], 1).reshape(-1)
            want = [_set(int(old[ln]), 8 * s, 8, to_small(sr_source(int(x[2 * ln]), int(x[2 * ln + 1]), f), f,
                                                          kind, truncate=True)) for ln in range(64)]
        bufs = [dev.alloc(a.nbytes).copyin(np.ascontiguousarray(a.astype(np.uint32))) for a in (old, x)]
        prg.launch(f"k_{shape}_{f}_{s}", grid=(1, 1, 1), block=(64, 1, 1), args=bufs)
        got = bufs[0].copyout(np.uint32)
        bad = [(i, hex(int(g)), hex(w)) for i, (g, w) in enumerate(zip(got, want)) if int(g) != w]
        assert not bad, (arch, shape, f, s, bad[:8])


def test_generated_effects_agree_with_the_emulator():
    """The generated register and MODE effects of the conversions (the destination read and kept
    in part; MODE) agree with the emulator by perturbation (tests/effects_check*.py), RDNA4's included."""
    from tests import effects_check, effects_check_mode
    names = {f"V_CVT_{a}_{b}" for f in ("FP8", "BF8") for a, b in
             ((f"PK_{f}", "F32"), (f"SR_{f}", "F32"), ("F32", f), ("PK_F32", f))}
    for arch in ("gfx942", "gfx950", "gfx1201"):
        c = effects_check.Checker(arch)
        insts = [d for d in c.instructions if d.name in names]
        assert len(insts) == 12, (arch, sorted(d.format + d.name for d in insts))
        rs = [c.run(d, np.random.default_rng([23, k]), None) for k, d in enumerate(insts)]
        assert not effects_check.disagreements(rs), effects_check.disagreements(rs)
        m = effects_check_mode.ModeChecker(arch)
        ms = [m.run_reader(d, np.random.default_rng([23, k])) for k, d in enumerate(m.valu) if d.name in names]
        assert len(ms) == 12 and not effects_check_mode.disagreements(ms), effects_check_mode.disagreements(ms)

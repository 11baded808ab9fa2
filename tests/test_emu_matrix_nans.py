"""NaN results of the matrix instructions (MFMA/SMFMAC on gfx942/gfx950, WMMA on gfx1100 and
gfx1201) when many products are NaN.

The manuals give no rule for which NaN comes out: CDNA3 and CDNA4 7.1 ("Matrix fused-multiply-
add") list denormal, clamp and round-mode behaviour and "Exceptions: Not Supported", RDNA3 7.9
says WMMA raises no ALU exception and rounds to nearest even; none names a NaN. MMA-Sim, whose
model matches MI300 bit for bit otherwise, compares CDNA3's results with NaN bits ignored. The
emulator's rule (emu/README.md, Numerics; emu/handwritten/mfma.py): the f32/f64 MFMA chain keeps
the first NaN of each fused multiply-add (rtlib.first_nan), every other float form returns its
type's default quiet NaN. Checked here: a batch of waves gives the same bits as each wave alone in
reference mode (numpy's matmul keeps whichever NaN its blocking meets first, which depends on the
batch: 53 of the 122 forms differed before), and A all NaN (distinct payloads, both signs) makes every
D element of a dot form the default quiet NaN."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from emu.options import FAST, REFERENCE, activate, deactivate
from emu.semantics import Ctx
from emu.table import load_semantics

FIELDS = ("CBSZ", "ABID", "BLGP", "OPSEL", "OPSEL_HI", "NEG", "NEG_HI")
# dwords rich in NaNs of every width: f32 quiet/signalling with payloads and both signs, f16 and
# bf16 pairs with NaN halves, FP8/BF8 NaN bytes (0x7F/0xFF, 0x80, 0x7D), infinities, zeros, ones
POOL = np.array([0x7F800001, 0x7FC00000, 0xFFC12345, 0x7FA00001, 0x7F800000, 0xFF800000, 0, 0x3F800000,
                 0x7E017C01, 0xFE55FC00, 0x7C007E01, 0x3C003C00, 0x7FC17F81, 0xFF81FFC1, 0x7F7FFFFF,
                 0x80000000, 0x7F80FF80, 0x7FFF7FFF, 0x807D7F80, 0x38383838], np.uint32)


def _nan_rich(rng, n: int) -> np.ndarray:
    v = POOL[rng.integers(0, len(POOL), n)]
    noise = rng.integers(0, 2**15, n).astype(np.uint32)
    return np.where(rng.random(n) < 0.3, (v & np.uint32(0xFFFF8000)) | noise, v).astype(np.uint32)


def _inputs(sem, waves: int, lanes: int, rng, fill=None) -> dict:
    """Every operand the semantic reads at the machine's shapes (up to 32 bits uint32, a 64-bit
    float uint64, wider blocks as dwords), modifier fields 0; `fill(name, dwords)` may replace an
    operand's dwords."""
    out = {}
    for name, op in sem.reads.items():
        if name in FIELDS:
            out[name] = 0
            continue
        bits = op.width(lanes)
        n = max(1, bits // 32)
        v = _nan_rich(rng, waves * lanes * n).reshape(waves, lanes, n)
        if name == "S2" and sem.name.startswith("V_SMFMAC"):       # the sparse index VGPR
            v = rng.integers(0, 2**32, (waves, lanes, 1), dtype=np.uint64).astype(np.uint32)
        if fill is not None:
            v = fill(name, v)
        out[name] = v[..., 0] if n == 1 else \
            (v[..., 0].astype(np.uint64) | v[..., 1].astype(np.uint64) << np.uint64(32)) if n == 2 and bits == 64 else v
    return out


def _run(sem, inputs: dict, waves: int, lanes: int, options) -> np.ndarray:
    token = activate(options)
    try:
        out = sem.execute(Ctx(lanes=lanes, exec_mask=np.full((waves, 1), 2**lanes - 1, np.uint64), inputs=inputs))
    finally:
        deactivate(token)
    return np.asarray(out["D0"])


def _matrix_semantics(arch: str) -> list:
    table = load_semantics(arch)
    found = [table.get(d) for d in isa.load(arch).instructions if d.name.startswith(("V_MFMA", "V_SMFMAC", "V_WMMA"))]
    return [s for s in found if s is not None]


ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1201"]


@pytest.mark.parametrize("arch", ARCHS)
def test_a_batch_keeps_the_nans_each_wave_keeps_alone(arch):
    lanes = 64 if arch.startswith("gfx9") else 32
    sems = _matrix_semantics(arch)
    assert len(sems) >= 4
    for i, sem in enumerate(sems):
        rng = np.random.default_rng(1800 + i)
        waves = 6
        inputs = _inputs(sem, waves, lanes, rng)
        batch = _run(sem, inputs, waves, lanes, FAST)
        alone = np.concatenate([_run(sem, {k: v[w:w + 1] if np.ndim(v) else v for k, v in inputs.items()}, 1, lanes,
                                     REFERENCE) for w in range(waves)])
        assert batch.tobytes() == alone.tobytes(), sem.name


# a dot form per family: (arch, name, the default quiet NaN of D's type as D's dwords hold it)
DOT_FORMS = [("gfx942", "V_MFMA_F32_16X16X16_F16", 0x7FC00000), ("gfx942", "V_MFMA_F32_32X32X4_XF32", 0x7FC00000),
             ("gfx942", "V_MFMA_F32_16X16X32_FP8_FP8", 0x7FC00000), ("gfx950", "V_MFMA_F32_16X16X32_BF16", 0x7FC00000),
             ("gfx1100", "V_WMMA_F32_16X16X16_F16", 0x7FC00000), ("gfx1100", "V_WMMA_F16_16X16X16_F16", 0x7E00),
             ("gfx1201", "V_WMMA_F32_16X16X16_BF16", 0x7FC00000)]


@pytest.mark.parametrize("arch,name,default", DOT_FORMS, ids=[f"{a}-{n}" for a, n, _ in DOT_FORMS])
def test_all_nan_products_give_the_default_quiet_nan(arch, name, default):
    """A every element NaN (random payloads, both signs, quiet and signalling), B and C finite:
    every product is NaN, so every D element is a NaN, and (the emulator's rule) the default
    quiet NaN, in fast and reference mode."""
    sem = load_semantics(arch).lookup(name)
    lanes = 64 if arch.startswith("gfx9") else 32
    rng = np.random.default_rng(18)
    fp8 = name.endswith(("FP8_FP8", "BF8"))
    nan_a = {"f16": lambda n: 0x7C01 | rng.integers(0, 0x3FF, n) | rng.integers(0, 2, n) << 15,
             "bf16": lambda n: 0x7F81 | rng.integers(0, 0x7F, n) | rng.integers(0, 2, n) << 15,
             "f32": lambda n: 0x7F800001 | rng.integers(0, 0x7FFFFF, n) | rng.integers(0, 2, n) << 31,
             "fp8": lambda n: np.full(n, 0x80)}               # CDNA3's one FP8 NaN
    kind = "fp8" if fp8 else "bf16" if "BF16" in name else "f32" if "XF32" in name else "f16"
    width = {"fp8": 8, "f16": 16, "bf16": 16, "f32": 32}[kind]
    one = {"fp8": 0x38, "f16": 0x3C00, "bf16": 0x3F80, "f32": 0x3F800000}[kind]     # 1.0 (CDNA3 FP8: bias 8)

    def elements(make, dwords):
        per = 32 // width
        e = np.asarray(make(dwords.size * per), np.uint64).reshape(dwords.shape + (per,))
        return sum((e[..., j] << np.uint64(width * j)) for j in range(per)).astype(np.uint32)

    def fill(operand, v):
        if operand == "S0":
            return elements(nan_a[kind], v)
        if operand == "S1":
            return elements(lambda n: np.full(n, one), v)
        return np.full_like(v, 0x3F800000 if default == 0x7FC00000 else 0x3C003C00)   # C = 1.0
    inputs = _inputs(sem, 2, lanes, rng, fill)
    for options in (FAST, REFERENCE):
        d = _run(sem, inputs, 2, lanes, options)
        if default == 0x7E00:           # 16-bit D in the low halves (OPSEL[2] = 0); the high halves keep D0's
            assert (d[..., :4 if lanes == 64 else 8] & 0xFFFF == default).all()
        else:
            assert (d == default).all(), (name, {hex(x) for x in np.unique(d)[:4]})

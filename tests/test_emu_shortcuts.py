"""emu/shortcuts.py against the semantics generated from the manual's pseudocode: every pair
of a set of special f32 encodings (zeros of both signs, denormals, normals, infinities,
quiet and signalling NaNs with payloads and signs) through v_min_f32, v_max_f32 and the
instructions whose pseudocode calls them, with the shortcut on and off, in every MODE the
IEEE bit and the f32 denormal field can give."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from emu import Ctx, load_semantics
from emu.options import FAST, activate, deactivate

SPECIALS = np.array([0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x807F_FFFF,
                     0x0080_0000, 0x3F80_0000, 0xBF80_0000, 0x3F80_0001, 0x7F7F_FFFF, 0xFF7F_FFFF,
                     0x7F80_0000, 0xFF80_0000, 0x7FC0_0000, 0xFFC0_0000, 0x7FC1_2345, 0x7F80_0001,
                     0xFF80_0001, 0x7FA0_0000, 0xFFBF_FFFF, 0x4049_0FDB, 0xC049_0FDB], np.uint32)


def _run(name: str, mode: int, shortcuts: bool, three: bool) -> np.ndarray:
    n = len(SPECIALS)
    a, b = np.meshgrid(SPECIALS, SPECIALS, indexing="ij")
    pairs = n * n
    waves = -(-pairs // 32)
    s0 = np.resize(a.reshape(-1), waves * 32).reshape(waves, 32)
    s1 = np.resize(b.reshape(-1), waves * 32).reshape(waves, 32)
    inputs = {"S0": s0, "S1": s1, "D0": np.zeros_like(s0)}
    if three:
        inputs["S2"] = np.roll(s1, 7)
    token = activate(replace(FAST, minmax_shortcuts=shortcuts))
    try:
        sem = load_semantics("gfx1100").lookup(name)
        out = sem.execute(Ctx(lanes=32, exec_mask=np.full((waves, 1), 0xFFFF_FFFF, np.uint64),
                              inputs=inputs, mode=mode))
    finally:
        deactivate(token)
    return np.asarray(out["D0"], np.uint32)


@pytest.mark.parametrize("name", ["v_min_f32", "v_max_f32", "v_min3_f32", "v_max3_f32", "v_minmax_f32",
                                  "v_maxmin_f32"])
@pytest.mark.parametrize("mode", [0x3F0, 0x0F0, 0x200, 0x000, 0x3C0])
def test_minmax_shortcut_agrees_with_the_pseudocode(name, mode):
    three = name.endswith("3_f32") or name in ("v_minmax_f32", "v_maxmin_f32")
    fast, generated = _run(name, mode, True, three), _run(name, mode, False, three)
    bad = np.flatnonzero(fast != generated)
    assert not bad.size, (f"{name} MODE {mode:#x}: {bad.size} results differ, first lane {bad[0]}: "
                          f"{int(fast.reshape(-1)[bad[0]]):#x} vs {int(generated.reshape(-1)[bad[0]]):#x}")


def test_minmax_shortcut_follows_ieee_rules():
    """Independent facts (manual's rules): in IEEE mode a signalling NaN operand gives its quiet
    form, a quiet NaN loses to a number; -0 is below +0."""
    def one(name, x, y, mode=0x3F0):
        sem = load_semantics("gfx1100").lookup(name)
        out = sem.execute(Ctx(lanes=32, exec_mask=np.full((1, 1), 0xFFFF_FFFF, np.uint64), mode=mode,
                              inputs={"S0": np.full((1, 32), x, np.uint32), "S1": np.full((1, 32), y, np.uint32),
                                      "D0": np.zeros((1, 32), np.uint32)}))
        return int(np.asarray(out["D0"]).reshape(-1)[0])
    assert one("v_max_f32", 0x7F80_0001, 0x3F80_0000) == 0x7FC0_0001
    assert one("v_min_f32", 0x3F80_0000, 0xFFA0_0000) == 0xFFE0_0000
    assert one("v_max_f32", 0x7FC0_0000, 0x3F80_0000) == 0x3F80_0000
    assert one("v_min_f32", 0x0000_0000, 0x8000_0000) == 0x8000_0000
    assert one("v_max_f32", 0x8000_0000, 0x0000_0000) == 0x0000_0000
    assert one("v_max_f32", 0x7F80_0001, 0x3F80_0000, mode=0x1F0) == 0x3F80_0000   # IEEE off: NaN S0 -> S1


def test_mad_u64_u32_shortcut_agrees_with_the_pseudocode():
    """Products and sums at the carry boundary (2^64 - 1 + 1, the largest product plus the
    largest addend) and random operands, per lane and with per-wave (W, 1) operands."""
    rng = np.random.default_rng(5)
    edges32 = np.array([0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF], np.uint32)
    edges64 = np.array([0, 1, 2 ** 32 - 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64 - 2, 0xFFFF_FFFE_0000_0001,
                        0x0000_0001_FFFF_FFFE], np.uint64)
    a, b, c = np.meshgrid(edges32, edges32, edges64, indexing="ij")
    n = a.size + 32 * 8
    s0 = np.concatenate([a.reshape(-1), rng.integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32)])
    s1 = np.concatenate([b.reshape(-1), rng.integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32)])
    s2 = np.concatenate([c.reshape(-1), rng.integers(0, 2 ** 64, 256, dtype=np.uint64)])
    waves = -(-n // 32)
    shape = (waves, 32)
    cases = [{"S0": np.resize(s0, shape), "S1": np.resize(s1, shape), "S2": np.resize(s2, shape)},
             {"S0": np.resize(s0, shape), "S1": np.full((waves, 1), 0xFFFF_FFFF, np.uint32),
              "S2": np.resize(s2[::-1], shape)}]
    for inputs in cases:
        outs = []
        for shortcut in (True, False):
            token = activate(replace(FAST, mad64_shortcuts=shortcut))
            try:
                sem = load_semantics("gfx1100").lookup("v_mad_u64_u32")
                out = sem.execute(Ctx(lanes=32, exec_mask=np.full((waves, 1), 0xFFFF_FFFF, np.uint64), inputs=inputs))
            finally:
                deactivate(token)
            outs.append((np.asarray(out["D0"], np.uint64), np.asarray(out["D1"], bool)))
        assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])
    # exact integers: (2^32 - 1)^2 + 2^64 - 1 = 2^65 - 2^33: carry set, low 64 bits 0xFFFF_FFFE_0000_0000
    x = np.full((1, 32), 0xFFFF_FFFF, np.uint32)
    out = load_semantics("gfx1100").lookup("v_mad_u64_u32").execute(
        Ctx(lanes=32, exec_mask=np.full((1, 1), 0xFFFF_FFFF, np.uint64),
            inputs={"S0": x, "S1": x, "S2": np.full((1, 32), 2 ** 64 - 1, np.uint64)}))
    want = (0xFFFF_FFFF ** 2 + 2 ** 64 - 1)
    assert int(np.asarray(out["D0"]).reshape(-1)[0]) == want % 2 ** 64 and bool(np.asarray(out["D1"]).reshape(-1)[0]) == (want >> 64 == 1)

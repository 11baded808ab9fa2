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


def _run(name: str, mode: int, shortcuts: bool, three: bool, arch: str = "gfx1100") -> np.ndarray:
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
        sem = load_semantics(arch).lookup(name)
        out = sem.execute(Ctx(lanes=32, exec_mask=np.full((waves, 1), 0xFFFF_FFFF, np.uint64),
                              inputs=inputs, mode=mode))
    finally:
        deactivate(token)
    return np.asarray(out["D0"], np.uint32)


@pytest.mark.parametrize("arch,name", [(a, n) for a in ("gfx1100", "gfx1151")
                                       for n in ("v_min_f32", "v_max_f32", "v_min3_f32", "v_max3_f32",
                                                 "v_minmax_f32", "v_maxmin_f32")] +
                         [(a, n) for a in ("gfx942", "gfx950") for n in ("v_min_f32", "v_max_f32", "v_min3_f32",
                                                                         "v_max3_f32")])
@pytest.mark.parametrize("mode", [0x3F0, 0x0F0, 0x200, 0x000, 0x3C0])
def test_minmax_shortcut_agrees_with_the_pseudocode(arch, name, mode):
    """CDNA's pseudocode tests NaNs in another order than RDNA3's (gfx950 fuzzer seed 125:
    v_max_f32_e64 v18, |v21|, v21 with v21 = 0xfffd0008 gave S0's NaN fast, S1's in reference mode)."""
    three = name.endswith("3_f32") or name in ("v_minmax_f32", "v_maxmin_f32")
    fast, generated = _run(name, mode, True, three, arch), _run(name, mode, False, three, arch)
    bad = np.flatnonzero(fast != generated)
    assert not bad.size, (f"{name} MODE {mode:#x}: {bad.size} results differ, first lane {bad[0]}: "
                          f"{int(fast.reshape(-1)[bad[0]]):#x} vs {int(generated.reshape(-1)[bad[0]]):#x}")



def _d0_under(options, arch, name, inputs, mode, waves):
    """D0 of `name`'s semantic on full-EXEC wave32 inputs, run under the emulator options given."""
    token = activate(options)
    try:
        sem = load_semantics(arch).lookup(name)
        out = sem.execute(Ctx(lanes=32, exec_mask=np.full((waves, 1), 0xFFFF_FFFF, np.uint64),
                              inputs=dict(inputs), mode=mode))
    finally:
        deactivate(token)
    return np.asarray(out["D0"], np.uint32)


@pytest.mark.parametrize("arch,name", [("gfx1100", n) for n in ("v_min3_f32", "v_max3_f32", "v_minmax_f32", "v_maxmin_f32")] +
                         [("gfx942", n) for n in ("v_min3_f32", "v_max3_f32")])
@pytest.mark.parametrize("nan_in", ["S2", "S0", "S1"])
def test_minmax_chains_with_nans_in_one_operand_only(arch, name, nan_in):
    """The chains test each operand for NaNs once and tell the outer pick what the inner one
    found: batches whose NaNs are all in one operand (the others NaN-free) take each branch of
    that sharing; every result must equal the generated pseudocode's, in both IEEE modes."""
    numbers = SPECIALS[~(((SPECIALS & 0x7FFF_FFFF) > 0x7F80_0000))]
    nans = SPECIALS[(SPECIALS & 0x7FFF_FFFF) > 0x7F80_0000]
    waves = 4
    rng = np.random.default_rng(7)
    inputs = {k: rng.choice(numbers, (waves, 32)).astype(np.uint32) for k in ("S0", "S1", "S2")}
    inputs[nan_in][:, ::3] = rng.choice(nans, (waves, 11))
    inputs["D0"] = np.zeros((waves, 32), np.uint32)
    for mode in (0x3F0, 0x1F0):
        got = [_d0_under(replace(FAST, minmax_shortcuts=shortcuts), arch, name, inputs, mode, waves)
               for shortcuts in (True, False)]
        assert np.array_equal(got[0], got[1]), (name, hex(mode), nan_in)


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


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("shortcuts", [True, False])
def test_cdna_minmax_of_two_nans_gives_s1(arch, shortcuts):
    """CDNA3/CDNA4 manuals (V_MAX_F32/V_MIN_F32): "elsif isNAN(64'F(S0.f32)) then D0.f32 = S1.f32"
    comes before the test of S1, so two quiet NaNs give S1 (RDNA3's give S0); in IEEE mode a
    signalling S0 still gives its quiet form."""
    def one(name, x, y, mode):
        token = activate(replace(FAST, minmax_shortcuts=shortcuts))
        try:
            sem = load_semantics(arch).lookup(name)
            out = sem.execute(Ctx(lanes=64, exec_mask=np.full((1, 1), 2 ** 64 - 1, np.uint64), mode=mode,
                                  inputs={"S0": np.full((1, 64), x, np.uint32), "S1": np.full((1, 64), y, np.uint32),
                                          "D0": np.zeros((1, 64), np.uint32)}))
        finally:
            deactivate(token)
        return int(np.asarray(out["D0"]).reshape(-1)[0])
    for mode in (0x3F0, 0x1F0):
        assert one("v_max_f32", 0x7FFD_0008, 0xFFFD_0008, mode) == 0xFFFD_0008
        assert one("v_min_f32", 0xFFC0_0000, 0x7FC0_0001, mode) == 0x7FC0_0001
    assert one("v_max_f32", 0x7F80_0001, 0xFFC0_0000, 0x3F0) == 0x7FC0_0001     # IEEE: sNaN S0 quieted
    assert one("v_max_f32", 0x7F80_0001, 0xFFC0_0000, 0x1F0) == 0xFFC0_0000     # IEEE off: NaN S0 -> S1


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


@pytest.mark.parametrize("name", ["v_add_co_u32", "v_add_co_ci_u32"])
@pytest.mark.parametrize("wave", [32, 64])
def test_carry_shortcuts_agree_with_the_pseudocode(name, wave):
    """Sums at the carry edge (0xFFFFFFFF + 1, + carry-in), random operands, per-lane and
    per-wave (W, 1) sources, carry-in bits from a random VCC."""
    rng = np.random.default_rng(8 + wave)
    edges = np.array([0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF], np.uint32)
    a, b = np.meshgrid(edges, edges, indexing="ij")
    waves = 6
    shape = (waves, wave)
    s0 = np.resize(np.concatenate([a.reshape(-1), rng.integers(0, 2 ** 32, 512, dtype=np.uint64).astype(np.uint32)]), shape)
    s1 = np.resize(np.concatenate([b.reshape(-1), rng.integers(0, 2 ** 32, 512, dtype=np.uint64).astype(np.uint32)]), shape)
    vcc = rng.integers(0, 2 ** 63, (waves, 1), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    if wave == 32:
        vcc &= np.uint64(0xFFFF_FFFF)
    for inputs in ({"S0": s0, "S1": s1, "VCC": vcc}, {"S0": s0[:, :1].copy(), "S1": s1, "VCC": vcc}):
        outs = []
        for shortcut in (True, False):
            token = activate(replace(FAST, carry_shortcuts=shortcut))
            try:
                sem = load_semantics("gfx1100").lookup(name)
                out = sem.execute(Ctx(lanes=wave, exec_mask=np.full((waves, 1), (1 << wave) - 1, np.uint64),
                                      inputs=inputs))
            finally:
                deactivate(token)
            outs.append((np.asarray(out["D0"], np.uint32), np.asarray(out["VCC"], bool)))
        assert np.array_equal(outs[0][0], outs[1][0]) and np.array_equal(outs[0][1], outs[1][1])
    # exact integers: the sum of lane 0 (0 + 0 + carry-in 1 from VCC bit 0) and of 0xFFFFFFFF + 0xFFFFFFFF
    x = np.full((1, wave), 0xFFFF_FFFF, np.uint32)
    out = load_semantics("gfx1100").lookup(name).execute(
        Ctx(lanes=wave, exec_mask=np.full((1, 1), (1 << wave) - 1, np.uint64),
            inputs={"S0": x, "S1": x, "VCC": np.full((1, 1), 1, np.uint64)}))
    carry_in = 1 if name.endswith("ci_u32") else 0
    want = 2 * 0xFFFF_FFFF + carry_in
    assert int(np.asarray(out["D0"]).reshape(-1)[0]) == want % 2 ** 32 and bool(np.asarray(out["VCC"]).reshape(-1)[0])


@pytest.mark.parametrize("name, carry", [("v_add_co_u32", "VCC"), ("v_add_co_ci_u32", "VCC"), ("v_mad_u64_u32", "D1")])
def test_carry_out_to_null_is_left_out_with_the_same_sum(name, carry):
    """A carry-out the machine discards (Ctx.unused: its SDST is NULL) is left out by the
    shortcut; the sum is the exact integers' (Python ints), computed into the destination
    register when one is offered (Ctx.dest, v_add_co_ci_u32) or returned."""
    rng = np.random.default_rng(31)
    s0 = rng.integers(0, 2 ** 32, (3, 32), dtype=np.uint64).astype(np.uint32)
    s1 = rng.integers(0, 2 ** 32, (3, 32), dtype=np.uint64).astype(np.uint32)
    s2 = rng.integers(0, 2 ** 64, (3, 32), dtype=np.uint64)
    vcc = rng.integers(0, 2 ** 32, (3, 1), dtype=np.uint64)
    inputs = {"S0": s0, "S1": s1, "S2": s2, "VCC": vcc}
    bits = (vcc >> np.arange(32, dtype=np.uint64)) & np.uint64(1)
    if name == "v_mad_u64_u32":
        want = [[(int(a) * int(b) + int(c)) % 2 ** 64 for a, b, c in zip(*rows)] for rows in zip(s0, s1, s2)]
    else:
        cin = bits if name.endswith("ci_u32") else np.zeros_like(bits)
        want = [[(int(a) + int(b) + int(c)) % 2 ** 32 for a, b, c in zip(*rows)] for rows in zip(s0, s1, cin)]
    sem = load_semantics("gfx1100").lookup(name)
    for dest in (None, np.zeros((3, 32), np.uint32)):
        if dest is not None and name == "v_mad_u64_u32":
            continue            # a 64-bit result: no register slab is offered
        ctx = Ctx(lanes=32, exec_mask=np.full((3, 1), 0xFFFF_FFFF, np.uint64), inputs=inputs,
                  unused=frozenset({carry}), dest=None if dest is None else {"D0": dest})
        out = sem.execute(ctx)
        assert carry not in out
        assert np.asarray(out["D0"]).tolist() == want
        if dest is not None:
            assert out["D0"] is dest and dest.tolist() == want



@pytest.mark.parametrize("alias", ["none", "S0", "S1"])
def test_add_co_with_its_carry_computes_into_the_destination_it_is_offered(alias):
    """v_add_co_u32 with its carry-out kept computes the sum into the destination register
    the machine offers (Ctx.dest), also when that register is S1 itself (v_add_co_u32 v7,
    vcc, s8, v7: the sum reads S1 as it writes it), but not when it is S0, against which the
    carry is read after the sum: the sums and carries are the exact integers' either way."""
    rng = np.random.default_rng(5)
    s0 = rng.integers(0, 2 ** 32, (3, 32), dtype=np.uint64).astype(np.uint32)
    s1 = rng.integers(0, 2 ** 32, (3, 32), dtype=np.uint64).astype(np.uint32)
    s0[0, :4], s1[0, :4] = 0xFFFF_FFFF, [0, 1, 2, 0xFFFF_FFFF]
    total = [[int(a) + int(b) for a, b in zip(*rows)] for rows in zip(s0, s1)]
    dest = {"none": np.zeros((3, 32), np.uint32), "S0": s0, "S1": s1}[alias]
    ctx = Ctx(lanes=32, exec_mask=np.full((3, 1), 0xFFFF_FFFF, np.uint64), inputs={"S0": s0, "S1": s1},
              dest={"D0": dest})
    out = load_semantics("gfx1100").lookup("v_add_co_u32").execute(ctx)
    assert np.asarray(out["D0"]).tolist() == [[t % 2 ** 32 for t in row] for row in total]
    assert np.asarray(out["VCC"]).tolist() == [[t >= 2 ** 32 for t in row] for row in total]
    assert (out["D0"] is dest) == (alias != "S0")


_EDGES = [0, 1, 2, 0x7FFF_FFFE, 0x7FFF_FFFF, 0x8000_0000, 0x8000_0001, 0xFFFF_FFFE, 0xFFFF_FFFF]


def _signed(v: int) -> int:
    return v - (1 << 32) if v >> 31 else v


# the manual's results in Python ints: (D0, SCC) of S0, S1, SCC
_SCALAR = {
    "s_add_i32": lambda a, b, c: ((a + b) & 0xFFFF_FFFF, int(not -2**31 <= _signed(a) + _signed(b) < 2**31)),
    "s_sub_i32": lambda a, b, c: ((a - b) & 0xFFFF_FFFF, int(not -2**31 <= _signed(a) - _signed(b) < 2**31)),
    "s_add_u32": lambda a, b, c: ((a + b) & 0xFFFF_FFFF, (a + b) >> 32),
    "s_addc_u32": lambda a, b, c: ((a + b + c) & 0xFFFF_FFFF, (a + b + c) >> 32),
    "s_sub_u32": lambda a, b, c: ((a - b) & 0xFFFF_FFFF, int(b > a)),
    "s_subb_u32": lambda a, b, c: ((a - b - c) & 0xFFFF_FFFF, int(b + c > a)),
}


@pytest.mark.parametrize("name", sorted(_SCALAR))
def test_scalar_carry_shortcuts_agree_with_the_pseudocode_and_integers(name):
    """Every pair of edge values (the signed and unsigned wrap points) plus random ones, with
    SCC 0 and 1, per wave; shortcut on and off against Python integers."""
    assert load_semantics("gfx1100").lookup(name).fn.generated is not None     # a shortcut is in place
    rng = np.random.default_rng(13)
    a, b = np.meshgrid(np.array(_EDGES, np.uint32), np.array(_EDGES, np.uint32), indexing="ij")
    s0 = np.concatenate([a.reshape(-1), rng.integers(0, 2**32, 60, dtype=np.uint64).astype(np.uint32)])
    s1 = np.concatenate([b.reshape(-1), rng.integers(0, 2**32, 60, dtype=np.uint64).astype(np.uint32)])
    for scc in (0, 1):
        inputs = {"S0": s0[:, None].copy(), "S1": s1[:, None].copy(), "SCC": np.full((len(s0), 1), scc, np.uint32)}
        # constant operands (one (1, 1) value, as inline constants are) with a per-wave SCC
        one = {"S0": s0[:1, None].copy(), "S1": s1[:1, None].copy(), "SCC": np.full((3, 1), scc, np.uint32)}
        out = load_semantics("gfx1100").lookup(name).execute(
            Ctx(lanes=32, exec_mask=np.full((3, 1), 0xFFFF_FFFF, np.uint64), inputs=one, scalar=True))
        d0, carry = _SCALAR[name](int(s0[0]), int(s1[0]), scc)
        assert np.broadcast_to(out["D0"], (3, 1)).reshape(-1).tolist() == [d0] * 3
        assert np.broadcast_to(out["SCC"], (3, 1)).reshape(-1).tolist() == [carry] * 3
        want = [_SCALAR[name](int(x), int(y), scc) for x, y in zip(s0, s1)]
        for shortcut in (True, False):
            token = activate(replace(FAST, carry_shortcuts=shortcut))
            try:
                out = load_semantics("gfx1100").lookup(name).execute(
                    Ctx(lanes=32, exec_mask=np.full((len(s0), 1), 0xFFFF_FFFF, np.uint64), inputs=inputs, scalar=True))
            finally:
                deactivate(token)
            got = list(zip(np.asarray(out["D0"]).reshape(-1).tolist(), np.asarray(out["SCC"]).reshape(-1).tolist()))
            assert out["D0"].dtype == np.uint32 and out["SCC"].dtype == np.uint32
            assert got == want, (name, scc, shortcut)


@pytest.mark.parametrize("name", ["v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"])
def test_shift64_shortcuts_agree_with_the_pseudocode_and_integers(name):
    """Counts 0..63 and counts with bits above 5 set (only S0[5:0] counts), per lane and as
    one (1, 1) count, on values with the sign bit set and clear."""
    assert load_semantics("gfx1100").lookup(name).fn.generated is not None     # a shortcut is in place
    rng = np.random.default_rng(17)
    values = rng.integers(0, 2**64, (4, 32), dtype=np.uint64)
    values[0, :4] = [0, 1, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF]
    counts = np.resize(np.arange(0, 64, dtype=np.uint32), (4, 32))
    counts[3] += np.uint32(64 * 5)            # bits above S0[5:0]
    for s0 in (counts, np.full((1, 1), 37, np.uint32)):
        c = np.broadcast_to(s0, values.shape) & np.uint32(63)
        if name == "v_lshlrev_b64":
            want = [(int(v) << int(n)) & (2**64 - 1) for v, n in zip(values.reshape(-1), c.reshape(-1))]
        elif name == "v_lshrrev_b64":
            want = [int(v) >> int(n) for v, n in zip(values.reshape(-1), c.reshape(-1))]
        else:
            want = [((int(v) - (int(v) >> 63 << 64)) >> int(n)) & (2**64 - 1) for v, n in zip(values.reshape(-1), c.reshape(-1))]
        for shortcut in (True, False):
            token = activate(replace(FAST, shift64_shortcuts=shortcut))
            try:
                out = load_semantics("gfx1100").lookup(name).execute(
                    Ctx(lanes=32, exec_mask=np.full((4, 1), 0xFFFF_FFFF, np.uint64), inputs={"S0": s0, "S1": values}))
            finally:
                deactivate(token)
            assert out["D0"].dtype == np.uint64 and out["D0"].reshape(-1).tolist() == want, (name, shortcut)


# the manual's branch condition per instruction, on (SCC, VCC, EXEC) of a wave
_BRANCHES = {"s_branch": lambda scc, vcc, exec_: True,
             "s_cbranch_scc0": lambda scc, vcc, exec_: scc == 0, "s_cbranch_scc1": lambda scc, vcc, exec_: scc == 1,
             "s_cbranch_vccz": lambda scc, vcc, exec_: vcc == 0, "s_cbranch_vccnz": lambda scc, vcc, exec_: vcc != 0,
             "s_cbranch_execz": lambda scc, vcc, exec_: exec_ == 0,
             "s_cbranch_execnz": lambda scc, vcc, exec_: exec_ != 0}


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201", "gfx942"])
@pytest.mark.parametrize("name", sorted(_BRANCHES))
def test_branch_shortcuts_agree_with_the_pseudocode_and_integers(name, arch):
    """Per wave SCC 0/1, VCC and EXEC zero or not (bits in the high dword of wave64 too),
    offsets at the edges of SIMM16 (back edges wrap below the PC, the largest forward jump),
    a PC near 2^64 (the sum wraps): shortcut on and off, and PC + 4 + 4 * SIMM16 (signed) or
    PC + 4 in Python ints as the manual says."""
    lanes = 32 if arch != "gfx942" else 64
    assert load_semantics(arch).lookup(name).fn.generated is not None     # a shortcut is in place
    scc = np.array([[0], [1], [0], [1], [1], [0]], np.uint32)
    masks = [0, 1, 1 << (lanes - 1), 0, (1 << lanes) - 1, 2]
    vcc = np.array([[m] for m in masks], np.uint64)
    exec_ = np.array([[m] for m in reversed(masks)], np.uint64)
    for pc in (0x1000_0100, 0xFFFF_FFFF_FFFF_FFF0):
        for simm16 in (0, 1, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 0x1234):
            outs = []
            for shortcut in (True, False):
                token = activate(replace(FAST, branch_shortcuts=shortcut))
                try:
                    sem = load_semantics(arch).lookup(name)
                    out = sem.execute(Ctx(lanes=lanes, exec_mask=exec_, scalar=True,
                                          inputs={"SCC": scc, "VCC": vcc, "PC": np.full((1, 1), pc, np.uint64),
                                                  "SIMM16": simm16}))
                finally:
                    deactivate(token)
                outs.append(np.asarray(out["PC"], np.uint64).reshape(-1))
            offset = simm16 - (1 << 16) if simm16 & 0x8000 else simm16
            want = [(pc + 4 + 4 * offset) % 2 ** 64 if _BRANCHES[name](int(s), int(v), int(e)) else (pc + 4) % 2 ** 64
                    for s, v, e in zip(scc[:, 0], vcc[:, 0], exec_[:, 0])]
            assert [int(x) for x in outs[0]] == want, (pc, simm16, "shortcut")
            assert [int(x) for x in outs[1]] == want, (pc, simm16, "generated")


def test_minmax_shortcuts_and_chains_are_taken():
    """v_min/max_f32 take the shortcut on RDNA and CDNA (each with its own NaN order), and the
    instructions whose pseudocode chains two of them compose it (so the comparisons above
    compare two ways)."""
    for arch, names in (("gfx1100", ("v_min_f32", "v_max_f32", "v_min3_f32", "v_max3_f32", "v_minmax_f32",
                                     "v_maxmin_f32")), ("gfx942", ("v_min_f32", "v_max_f32", "v_min3_f32"))):
        table = load_semantics(arch)
        for name in names:
            assert hasattr(table.lookup(name).fn, "generated"), (arch, name)


# NaN-free special encodings: zeros of both signs, denormals, normals, the largest finites, infinities
NUMBERS = SPECIALS[(SPECIALS & 0x7FFF_FFFF) <= 0x7F80_0000]


def _minmax_reference(name: str, s0: np.ndarray, s1: np.ndarray, s2: np.ndarray | None) -> np.ndarray:
    """The manual's rule for NaN-free operands, independently: the value compare (float64, so
    denormals compare by value) with -0 below +0; v_minmax = max(min(S0, S1), S2), v_maxmin =
    min(max(S0, S1), S2)."""
    def pick(x, y, smaller):
        fx, fy = x.view(np.float32).astype(np.float64), y.view(np.float32).astype(np.float64)
        x_first = (fx < fy) if smaller else (fx > fy)
        zeros = (fx == 0) & (fy == 0)
        x_wins_zero = np.signbit(fx) if smaller else ~np.signbit(fx)
        return np.where(x_first | (zeros & x_wins_zero), x, y).astype(np.uint32)
    kind = name.removeprefix("v_").removesuffix("_f32")
    if kind in ("min", "max"):
        return pick(s0, s1, kind == "min")
    inner, outer = {"minmax": (True, False), "maxmin": (False, True), "min3": (True, True),
                    "max3": (False, False)}[kind]
    return pick(pick(s0, s1, inner), s2, outer)


@pytest.mark.parametrize("arch,name", [("gfx1100", n) for n in ("v_min_f32", "v_max_f32", "v_min3_f32",
                                                                "v_max3_f32", "v_minmax_f32", "v_maxmin_f32")] +
                         [("gfx942", n) for n in ("v_min_f32", "v_max_f32", "v_max3_f32")])
@pytest.mark.parametrize("mode", [0x3F0, 0x0F0, 0x3C0])
@pytest.mark.parametrize("sgpr_s1", [False, True])
def test_minmax_ufuncs_of_nan_free_batches(arch, name, mode, sgpr_s1):
    """EmuOptions.minmax_ufuncs decides NaN-free batches by numpy's minimum/maximum and a sign fix
    of zeros. Every pair (and triple, S2 rolled) of zeros of both signs, denormals, normals and
    infinities, with no NaN in the batch, S1 per lane or one value per wave (an SGPR): the
    switch on, off and the generated pseudocode (minmax_shortcuts off) give the same bits, and
    with denormals kept (MODE 0x3F0 / 0x0F0) the manual's rule computed in float64 does too."""
    three = name not in ("v_min_f32", "v_max_f32")
    n = len(NUMBERS)
    a, b = np.meshgrid(NUMBERS, NUMBERS, indexing="ij")
    waves = -(-n * n // 32)
    s0 = np.resize(a.reshape(-1), waves * 32).reshape(waves, 32)
    s1 = np.resize(b.reshape(-1), waves * 32).reshape(waves, 32)
    if sgpr_s1:
        s1 = np.resize(NUMBERS, waves).reshape(waves, 1).astype(np.uint32)
    s2 = np.roll(np.resize(b.reshape(-1), waves * 32), 5).reshape(waves, 32)
    inputs = {"S0": s0, "S1": s1, "D0": np.zeros_like(s0), **({"S2": s2} if three else {})}
    got = {}
    for label, options in (("ufuncs", replace(FAST, minmax_ufuncs=True)), ("selects", replace(FAST, minmax_ufuncs=False)),
                           ("generated", replace(FAST, minmax_shortcuts=False))):
        got[label] = np.broadcast_to(_d0_under(options, arch, name, inputs, mode, waves), s0.shape)
    for label in ("selects", "generated"):
        bad = np.flatnonzero(got["ufuncs"] != got[label])
        assert not bad.size, (f"{name} MODE {mode:#x}: ufuncs vs {label}: {bad.size} lanes differ, first "
                              f"{int(got['ufuncs'].reshape(-1)[bad[0]]):#x} vs {int(got[label].reshape(-1)[bad[0]]):#x}")
    if mode & 0x30 == 0x30:     # f32 denormals kept: no flush between
        want = _minmax_reference(name, s0, np.broadcast_to(s1, s0.shape), s2 if three else None)
        bad = np.flatnonzero(got["ufuncs"] != want)
        assert not bad.size, (f"{name}: {bad.size} lanes differ from the manual's rule, first "
                              f"{int(got['ufuncs'].reshape(-1)[bad[0]]):#x} vs {int(want.reshape(-1)[bad[0]]):#x}")


@pytest.mark.parametrize("name", ["v_min_f32", "v_max_f32", "v_minmax_f32", "v_maxmin_f32"])
def test_minmax_ufuncs_with_one_nan_lane_take_the_nan_rules(name):
    """One NaN lane in an otherwise NaN-free batch (minmax_ufuncs: numpy's minimum/maximum then
    says NaN, and the batch takes the compare-and-select with the NaN rules): the result equals
    the generated pseudocode's in every lane, in both IEEE modes, signalling and quiet NaN."""
    three = name in ("v_minmax_f32", "v_maxmin_f32")
    rng = np.random.default_rng(3)
    for nan in (0x7F80_0001, 0xFFC1_2345):
        for operand in ("S0", "S1") + (("S2",) if three else ()):
            inputs = {k: rng.choice(NUMBERS, (2, 32)).astype(np.uint32) for k in ("S0", "S1", "S2")}
            inputs[operand][1, 17] = nan
            inputs["D0"] = np.zeros((2, 32), np.uint32)
            for mode in (0x3F0, 0x1F0):
                got = []
                for options in (replace(FAST, minmax_ufuncs=True), replace(FAST, minmax_shortcuts=False)):
                    token = activate(options)
                    try:
                        out = load_semantics("gfx1100").lookup(name).execute(
                            Ctx(lanes=32, exec_mask=np.full((2, 1), 0xFFFF_FFFF, np.uint64), inputs=dict(inputs), mode=mode))
                    finally:
                        deactivate(token)
                    got.append(np.asarray(out["D0"], np.uint32))
                assert np.array_equal(got[0], got[1]), (name, hex(nan), operand, hex(mode))


@pytest.mark.parametrize("arch,name", [(a, n) for a in ("gfx1100", "gfx942") for n in ("v_min_f32", "v_max_f32")])
@pytest.mark.parametrize("mode", [0x3F0, 0x0F0, 0x200, 0x000])
@pytest.mark.parametrize("nans", [False, True])
def test_minmax_of_one_register_with_itself_agrees_with_the_pseudocode(arch, name, mode, nans):
    """S0 and S1 the same array (v_max_f32 v1, v0, v0; switch minmax_same_operand: a copy when
    NaN-free): every special encoding, with and without NaNs in the batch, against the generated
    pseudocode (shortcuts off) and against the min/max shortcut with the switch off; the
    result is a fresh array, not the operand."""
    values = SPECIALS if nans else SPECIALS[(SPECIALS & 0x7FFF_FFFF) <= 0x7F80_0000]
    x = np.resize(values, 4 * 32).reshape(4, 32)
    inputs = {"S0": x, "S1": x, "D0": np.zeros_like(x)}
    same = _d0_under(FAST, arch, name, inputs, mode, 4)
    without = _d0_under(replace(FAST, minmax_same_operand=False), arch, name, inputs, mode, 4)
    generated = _d0_under(replace(FAST, minmax_shortcuts=False), arch, name, inputs, mode, 4)
    np.testing.assert_array_equal(same, generated)
    np.testing.assert_array_equal(same, without)
    if not nans and (mode >> 4) & 3 == 3:       # f32 denormals kept (MODE bits 5:4): max(x, x) = min(x, x) = x
        np.testing.assert_array_equal(same, x)
    assert not np.shares_memory(same, x)

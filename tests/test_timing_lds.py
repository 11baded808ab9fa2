"""LDS bank conflicts in the timing model (emu/timing/lds.py) against the RDNA3 manual's rule
(sections 1.2.2.1 and 12.1: 64 dword-wide banks, dwords placed in the banks serially;
12.5: a wave32 access in one cycle, wave64 in two, conflicting accesses to one bank
serialised). Every expected pass count below is worked out by hand from that rule: the
passes of a half-wave are the largest number of distinct dwords one bank (dword mod 64)
holds; a dword read by several lanes is one access (broadcast)."""
from __future__ import annotations

import numpy as np
import pytest


def _lanes(dword_of_lane, width=32, k=1, active=None):
    """(1, width, k) dwords: lane i accesses dword_of_lane(i) .. + k - 1."""
    lanes = np.arange(width)
    d = np.asarray(dword_of_lane(lanes), np.int64)[None, :, None] + np.arange(k)
    a = np.ones((1, width), bool) if active is None else np.asarray(active, bool)[None, :]
    return d, a


@pytest.mark.parametrize("name, dword_of_lane, extra", [
    ("stride 1: 32 banks, one dword each", lambda i: i, 0),
    ("stride 2: even banks, one dword each", lambda i: 2 * i, 0),
    ("stride 64: every lane in bank 0, 32 distinct dwords", lambda i: 64 * i, 31),
    ("stride 32: banks 0 and 32, 16 dwords each", lambda i: 32 * i, 15),
    ("stride 16: banks 0, 16, 32, 48, 8 dwords each", lambda i: 16 * i, 7),
    ("stride 33: 33*i mod 64 takes 32 distinct banks", lambda i: 33 * i, 0),
    ("broadcast: one dword for every lane", lambda i: 0 * i + 5, 0),
    ("two dwords of bank 0, 16 lanes each", lambda i: 64 * (i % 2), 1),
    ("byte/halfword neighbours share a dword", lambda i: i // 4, 0),
])
def test_wave32_dword_access(name, dword_of_lane, extra):
    from emu.timing.lds import extra_passes
    d, a = _lanes(dword_of_lane)
    assert extra_passes(d, a).tolist() == [extra], name


def test_inactive_lanes_do_not_conflict():
    from emu.timing.lds import extra_passes
    d, a = _lanes(lambda i: 64 * i, active=np.arange(32) < 4)      # 4 lanes in bank 0: 4 passes
    assert extra_passes(d, a).tolist() == [3]
    d, a = _lanes(lambda i: 64 * i, active=np.zeros(32))
    assert extra_passes(d, a).tolist() == [0]


def test_wave64_halves_are_served_apart():
    """wave64: lanes 0-31 and 32-63 are two accesses; their conflicts add up, and lanes of
    different halves never conflict with each other."""
    from emu.timing.lds import extra_passes
    d, a = _lanes(lambda i: i, width=64)                   # 64 banks over the wave, 32 per half
    assert extra_passes(d, a).tolist() == [0]
    d, a = _lanes(lambda i: 64 * i, width=64)              # each half: 32 dwords in bank 0
    assert extra_passes(d, a).tolist() == [62]
    d, a = _lanes(lambda i: 64 * (i // 32), width=64)      # each half broadcasts its own dword
    assert extra_passes(d, a).tolist() == [0]


def test_wide_accesses():
    """b64 / b128 (or a *_2ADDR pair): K dwords per lane. Conflict-free they still need
    32*K/64 passes per half-wave (b128: 2), which the measured latency holds; only the
    passes beyond that are extra."""
    from emu.timing.lds import extra_passes, nominal_passes
    assert [nominal_passes(k) for k in (1, 2, 3, 4)] == [1, 1, 2, 2]
    d, a = _lanes(lambda i: 4 * i, k=4)        # b128, consecutive: 128 dwords, 2 per bank
    assert extra_passes(d, a).tolist() == [0]
    d, a = _lanes(lambda i: 2 * i, k=2)        # b64, consecutive: 64 dwords, 1 per bank
    assert extra_passes(d, a).tolist() == [0]
    d, a = _lanes(lambda i: 16 * i, k=4)       # b128 at a 64-byte stride: banks 16j..16j+3, 8 lanes each
    assert extra_passes(d, a).tolist() == [8 - 2]
    d, a = _lanes(lambda i: 64 * i, k=2)       # b64 at a 256-byte stride: banks 0 and 1, 32 dwords each
    assert extra_passes(d, a).tolist() == [31]


def test_rows_are_independent():
    from emu.timing.lds import extra_passes
    d1, a1 = _lanes(lambda i: i)
    d2, a2 = _lanes(lambda i: 64 * i)
    d3, a3 = _lanes(lambda i: 32 * i)
    out = extra_passes(np.concatenate([d1, d2, d3]), np.concatenate([a1, a2, a3]))
    assert out.tolist() == [0, 31, 15]


def _launch(body: str, lanes: int = 32, wave: int = 32):
    """A one-wave kernel on the functional emulator with timing: (issue cycles in execution
    order from the first instruction of `body`, out buffer of one dword per lane, the wave's
    PCs in the same order). v0 is the lane id."""
    import dsl
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.writer import KernelSpec, write_code_object
    src = body + "\nv_lshlrev_b32 v4, 2, v0\nglobal_store_b32 v4, v2, s[0:1]\ns_endpgm"
    code = dsl.assemble("s_load_b64 s[0:1], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n" + src, "gfx1100",
                        **({"wave_size": 64} if wave == 64 else {}))
    hsaco = write_code_object("gfx1100", [KernelSpec("k", code, [KernelArg(0, 8, "global_buffer", "out", "global")],
                                                     {"user_sgpr_kernarg_segment_ptr": 1,
                                                      "group_segment_fixed_size": 65536}, wave_size=wave)])
    dev = Device("emu")
    out = dev.alloc(4 * lanes)
    prg = dev.load(hsaco)
    rep = prg.launch("k", (1, 1, 1), (lanes, 1, 1), [out], timing=True).timing
    w = rep.waves[0]
    return w.issue[2:], out.copyout(np.uint32), (rep, w.pcs[2:])


@pytest.mark.parametrize("shift, lanes, wave, extra", [
    (2, 32, 32, 0),           # stride 1 dword
    (8, 32, 32, 31),          # stride 64 dwords: 32-way
    (7, 32, 32, 15),          # stride 32 dwords: 16-way
    (3, 32, 32, 0),           # stride 2 dwords
    (8, 64, 64, 62),          # wave64, stride 64: 32-way in each half
    (2, 64, 64, 0),
])
def test_kernel_lgkm_wait_grows_by_the_extra_passes(shift, lanes, wave, extra):
    """Store each lane's id at lane << shift in the LDS, load it back: the functional result
    is the lane id whatever the stride, and each s_waitcnt lgkmcnt(0) after a DS instruction
    waits the LDS latency plus one cycle per extra pass (store and load conflict alike)."""
    from emu.timing import timing_for
    p = timing_for("gfx1100")
    body = (f"v_lshlrev_b32 v1, {shift}, v0\nds_store_b32 v1, v0\ns_waitcnt lgkmcnt(0)\n"
            "ds_load_b32 v2, v1\ns_waitcnt lgkmcnt(0)")
    t, out, (rep, pcs) = _launch(body, lanes, wave)
    assert out.tolist() == list(range(lanes))
    store, wait1, load, wait2 = 1, 2, 3, 4
    assert t[wait1] - t[store] == p.lds_latency + extra + p.waitcnt_resume
    assert t[wait2] - t[load] == p.lds_latency + extra + p.waitcnt_resume
    assert rep.per_pc[pcs[wait2]].stalls.get("lgkm", 0) >= p.lds_latency + extra


def test_kernel_b128_and_2addr_are_one_access_each():
    """ds_load_b128 makes four dword accesses and ds_load_2addr_b32 two; each instruction's
    dwords are one access: consecutive b128 (2 passes, nominal) costs nothing extra, a
    2addr pair 64 dwords apart (each address in the same bank as the other) 1 pass per lane pair."""
    from emu.timing import timing_for
    p = timing_for("gfx1100")
    body = ("v_lshlrev_b32 v1, 4, v0\nds_load_b128 v[4:7], v1\ns_waitcnt lgkmcnt(0)\n"      # 1, 2
            "v_lshlrev_b32 v1, 2, v0\nds_load_2addr_b32 v[4:5], v1 offset1:64\ns_waitcnt lgkmcnt(0)\n"   # 4, 5
            "v_mov_b32 v2, v0")
    t, out, _ = _launch(body)
    assert out.tolist() == list(range(32))
    assert t[2] - t[1] == p.lds_latency + p.waitcnt_resume
    # lane i reads dwords i and i + 64: bank i holds two distinct dwords -> 2 passes, nominal 1
    assert t[5] - t[4] == p.lds_latency + 1 + p.waitcnt_resume


def test_conflict_passes_hold_up_the_other_waves_of_the_cu():
    """Two waves of one work-group (one per SIMD of the CU) store at a 64-dword stride at the
    same cycle: the CU's LDS serves one wave's 31 extra passes, then the other's, so the
    second's data is back 31 cycles after the first's."""
    import dsl
    from runtime import Device
    from runtime.writer import KernelSpec, write_code_object
    from emu.timing import timing_for
    p = timing_for("gfx1100")
    code = dsl.assemble("v_and_b32 v1, 31, v0\nv_lshlrev_b32 v1, 8, v1\nds_store_b32 v1, v0\n"
                        "s_waitcnt lgkmcnt(0)\ns_endpgm", "gfx1100")
    hsaco = write_code_object("gfx1100", [KernelSpec("k", code, [], {"group_segment_fixed_size": 65536})])
    prg = Device("emu").load(hsaco)
    rep = prg.launch("k", (1, 1, 1), (64, 1, 1), [], timing=True).timing
    a, b = rep.waves[0], rep.waves[1]
    assert a.simd != b.simd and a.issue[2] == b.issue[2]       # the stores issue together
    first, second = sorted([a.issue[3] - a.issue[2], b.issue[3] - b.issue[2]])
    assert first == p.lds_latency + 31 + p.waitcnt_resume
    assert second == first + 31


def _reference_extra(dwords, active, k):
    """The manual's rule spelled out lane by lane (a plain-Python reference): per half-wave,
    the set of distinct dwords per bank; passes = the largest set; extra = beyond 32*k/64."""
    width = len(active)
    total = 0
    for h in range(0, width, 32):
        per_bank = {}
        for lane in range(h, min(h + 32, width)):
            if active[lane]:
                for d in dwords[lane]:
                    per_bank.setdefault(int(d) % 64, set()).add(int(d))
        passes = max((len(v) for v in per_bank.values()), default=0)
        total += max(0, passes - max(1, -(-32 * k // 64)))
    return total


@pytest.mark.parametrize("seed", range(6))
def test_random_accesses_against_the_lane_by_lane_rule(seed):
    from emu.timing.lds import extra_passes
    rng = np.random.default_rng(seed)
    for width in (32, 64):
        for k in (1, 2, 4):
            span = int(rng.choice([64, 256, 4096]))
            d = rng.integers(0, span, (5, width))[:, :, None] + np.arange(k)
            a = rng.random((5, width)) < rng.choice([0.3, 1.0])
            got = extra_passes(d, a).tolist()
            assert got == [_reference_extra(d[r], a[r], k) for r in range(5)], (width, k, span)


def test_recorder_split_and_plain_addresses_agree():
    """The recorder's shortcut for address VGPRs whose waves are shifts of one another (split
    addresses, every lane on) gives the per-row result; rows that are not shifts (and partial
    masks) go row by row; both equal the lane-by-lane rule's mean over the waves."""
    from emu.memory import SplitAddresses
    from emu.timing import Recorder
    rng = np.random.default_rng(7)
    lanes = np.arange(32, dtype=np.uint32)
    cases = {
        "shifted stride 64": np.stack([(lanes * 256 + 4 * w).astype(np.uint32) for w in range(40)]),
        "random rows": rng.integers(0, 1 << 14, (40, 32)).astype(np.uint32) * 4,
    }
    for name, offsets in cases.items():
        results = []
        for split in (True, False):
            rec = Recorder()
            rec.step(0x100, np.arange(40), 0)
            for extra_offset in (0, 4, 8, 12):          # a b128: four dword accesses
                addr = (SplitAddresses(np.full((1, 1), extra_offset, np.uint64), offsets) if split
                        else offsets.astype(np.uint64) + extra_offset)
                rec.lds_touch(addr, 4, np.ones((1, 1), bool))
            results.append(rec.lds_extra_passes()[0x100])
        pick = np.linspace(0, 39, Recorder.SAMPLE_ROWS).astype(np.int64)
        dw = (offsets.astype(np.int64) // 4)[:, :, None] + np.arange(4)
        want = np.mean([_reference_extra(dw[r], np.ones(32, bool), 4) for r in pick])
        assert results[0] == pytest.approx(want) and results[1] == pytest.approx(want), name

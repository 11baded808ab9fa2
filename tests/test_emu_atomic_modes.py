"""Scanned atomics in a batch whose waves hold different MODE registers (issue 18, switch
scan_mixed_modes): lanes sharing a word still apply in lane order across the waves, and each
depth's pass runs every lane with its own wave's MODE (a float atomic's rounding and denormal
rules are its wave's), checked against a lane-by-lane reference written here and against the
switch off (rounds) and reference mode."""
from __future__ import annotations

import numpy as np
import pytest

from .test_emu_machine import launch

# waves 1 and 3 of the work-group (work-items 32..63, 96..127) keep denormals (s_denorm_mode
# 0xf: MODE bits 7:4 set), waves 0 and 2 keep the launch's MODE 0 (flush everything)
SRC = """
    s_load_b64 s[4:5], s[0:1], 0x0
    s_load_b64 s[6:7], s[0:1], 0x8
    s_load_b64 s[8:9], s[0:1], 0x10
    s_load_b64 s[10:11], s[0:1], 0x18
    s_waitcnt lgkmcnt(0)
    v_readfirstlane_b32 s30, v0
    s_bitcmp1_b32 s30, 5
    s_cbranch_scc0 same
    s_denorm_mode 0xf
same:
    v_lshlrev_b32 v2, 2, v0
    global_load_b32 v3, v2, s[4:5]                // this work-item's f32 addend
    v_mov_b32 v6, 0
    s_mov_b32 s31, exec_lo
    v_cmpx_gt_u32 3, v0
    global_load_b32 v6, v2, s[8:9]                // the LDS words' initial values
    s_waitcnt vmcnt(0)
    ds_store_b32 v2, v6
    s_mov_b32 exec_lo, s31
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_barrier
    v_mul_hi_u32 v4, v0, 0xaaaaaaab               // v0 % 3
    v_lshrrev_b32 v4, 1, v4
    v_mul_u32_u24 v4, v4, 3
    v_sub_nc_u32 v4, v0, v4
    v_lshlrev_b32 v4, 2, v4
    ds_add_rtn_f32 v5, v4, v3
    s_waitcnt lgkmcnt(0)
    global_store_b32 v2, v5, s[6:7]
    s_barrier
    s_mov_b32 exec_lo, s31
    v_cmpx_gt_u32 3, v0
    ds_load_b32 v7, v2
    s_waitcnt lgkmcnt(0)
    global_store_b32 v2, v7, s[10:11]
    s_endpgm"""


def _f32_add(a: int, b: int) -> int:
    return int((np.uint32(a).view(np.float32) + np.uint32(b).view(np.float32)).view(np.uint32))


@pytest.mark.parametrize("mode", ["fast", "scan_mixed_modes off", "reference"])
def test_float_atomic_over_waves_of_two_modes_in_lane_order(mode, monkeypatch):
    import emu.atomic_scan
    if mode == "reference":
        monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    elif mode != "fast":
        monkeypatch.setenv("WAVESMITH_EMU_OFF", "scan_mixed_modes")
    passes, scanned = [], []
    real_pass, real_scan = emu.atomic_scan._pass, emu.atomic_scan.scan

    def seen_pass(fn, lanes, pick, *rest):
        passes.append((rest[-4], [int(w) for w in pick]))       # (MODE, lanes as indices into pos)
        return real_pass(fn, lanes, pick, *rest)
    monkeypatch.setattr(emu.atomic_scan, "_pass", seen_pass)
    monkeypatch.setattr(emu.atomic_scan, "scan", lambda *a: scanned.append(real_scan(*a)) or scanned[-1])
    rng = np.random.default_rng(18)
    # magnitudes far apart: each order of the sums rounds differently
    addend = (rng.choice([1.0, -3.0, 1e8, 1e-3, 0.1, 7e7], 128) * rng.uniform(0.5, 2, 128)).astype(np.float32)
    init = np.array([0.5, -1e7, 3.25], np.float32)
    got, _ = launch(SRC, {"x": addend, "ret": np.zeros(128, np.uint32), "init": init, "words": np.zeros(3, np.uint32)},
                    block=(128, 1, 1), lds=16)
    words = [int(v) for v in init.view(np.uint32)]
    ret = []
    for i, a in enumerate(addend.view(np.uint32)):
        ret.append(words[i % 3])
        words[i % 3] = _f32_add(words[i % 3], int(a))
    assert got["ret"].tolist() == ret and got["words"].tolist() == words
    if mode == "fast":          # scanned, in passes of one MODE each: 0 for waves 0, 2; 0xF0 for 1, 3
        assert scanned and None not in scanned
        # lanes sorted by word, then lane: element e of pos is work-item order[e]
        order = [i for w in range(3) for i in range(w, 128, 3)]
        assert {m for m, _ in passes} == {0, 0xF0}
        for m, pick in passes:
            assert all((order[e] // 32 % 2 == 1) == (m == 0xF0) for e in pick), (m, pick)
        assert sorted(e for _, pick in passes for e in pick) == sorted(e for e in range(128) if order[e] >= 3)
    else:
        assert scanned == [] and passes == []

"""DS addresses whose bounds, alignment and LDS indices are kept until the address VGPR is
written (switch ds_address_memo) and partial-EXEC accesses bounded by every lane's facts
(switch all_lane_bounds): the same values as numpy's model of the LDS in fast mode, with each
switch off and in reference mode, across a rewrite of the address register, inactive lanes
pointing outside the LDS, and a fault after the facts of an in-bounds address were kept."""
from __future__ import annotations

import numpy as np
import pytest

from emu.machine import EmuFault
from .test_emu_machine import launch, loads

MODES = pytest.mark.parametrize("off", ["", "ds_address_memo", "all_lane_bounds", "REFERENCE"])


def _mode(off, monkeypatch):
    if off == "REFERENCE":
        monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    else:
        monkeypatch.setenv("WAVESMITH_EMU_OFF", off)


@MODES
def test_kept_ds_address_facts_follow_register_writes_and_partial_exec(off, monkeypatch):
    _mode(off, monkeypatch)
    src = loads("out") + """
        v_lshlrev_b32 v1, 2, v0                 // lane * 4
        v_add_nc_u32 v2, 1000, v0
        ds_store_b32 v1, v2                     // lds[lane] = 1000 + lane
        s_waitcnt lgkmcnt(0)
        ds_load_b32 v3, v1                      // through the same, unwritten v1
        v_sub_nc_u32 v1, 31, v0
        v_lshlrev_b32 v1, 2, v1                 // v1 rewritten: (31 - lane) * 4
        ds_load_b32 v4, v1
        v_lshlrev_b32 v5, 2, v0
        v_cmp_gt_u32 vcc_lo, 16, v0
        v_cndmask_b32 v5, 0x10000, v5, vcc_lo   // lanes >= 16: far outside the LDS
        v_mov_b32 v6, 7
        s_mov_b32 s20, exec_lo
        v_cmpx_gt_u32 16, v0                    // ... and off
        ds_load_b32 v6, v5
        ds_store_b32 v5, v0 offset:4            // lds[lane + 1] = lane, lanes 0..15 in lane order
        s_mov_b32 exec_lo, s20
        s_waitcnt lgkmcnt(0)
        ds_load_b32 v7, v1                      // v1's facts again (kept) after the stores
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v8, 4, v0
        global_store_b128 v8, v[4:7], s[4:5]
        s_endpgm"""
    got, _ = launch(src, {"out": np.zeros(4 * 32, np.uint32)}, block=(32, 1, 1), lds=128, vgprs=16)
    out = got["out"].reshape(32, 4)
    lane = np.arange(32)
    lds = 1000 + lane
    lds[1:17] = lane[:16]
    assert (out[:, 0] == 1000 + 31 - lane).all()
    assert (out[:, 2] == np.where(lane < 16, 1000 + lane, 7)).all()
    assert (out[:, 3] == lds[31 - lane]).all()


@MODES
def test_fault_after_kept_facts_names_the_lane(off, monkeypatch):
    _mode(off, monkeypatch)
    src = """
        v_lshlrev_b32 v1, 2, v0
        ds_load_b32 v2, v1
        v_cmp_eq_u32 vcc_lo, 5, v0
        v_cndmask_b32 v1, v1, 0x10000, vcc_lo
        ds_load_b32 v3, v1
        s_endpgm"""
    with pytest.raises(EmuFault) as e:
        launch(src, {}, block=(32, 1, 1), lds=128)
    msg = str(e.value)
    assert "ds_load_b32" in msg and "lane 5" in msg and "0x10000" in msg, msg

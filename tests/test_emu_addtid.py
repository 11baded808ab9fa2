"""GLOBAL_LOAD/STORE_ADDTID_B32 (manual: memory_Addr = sgpr_addr(64) + inst_offset + tid * 4, no
VGPR address) and the no-operation instructions DS_NOP ("Do nothing") and S_ATC_PROBE*, through
the machine against numpy indexing."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch, loads


@pytest.mark.parametrize("wave", [32, 64])
def test_addtid_load_and_store_address_by_lane(wave):
    x = np.arange(1000, 1000 + wave + 8, dtype=np.uint32)
    y = np.full(wave + 4, 7, np.uint32)
    src = loads("x", "y") + """
        v_mov_b32 v1, 0x1234
        v_and_b32 v2, 3, v0
        v_cmpx_ne_u32 0, v2                         // lanes with lane % 4 == 0 stay off
        global_load_addtid_b32 v1, s[4:5] offset:16
        s_waitcnt vmcnt(0)
        global_store_addtid_b32 v1, s[6:7] offset:8
        ds_nop
        s_atc_probe 4, s[4:5], 0
        s_endpgm"""
    out, _ = launch(src, {"x": x, "y": y}, block=(wave, 1, 1), wave=wave)
    lane = np.arange(wave)
    want = y.copy()
    on = lane % 4 != 0
    want[2 + lane[on]] = x[4 + lane[on]]           # byte offsets 16 and 8: dwords 4 and 2
    assert (out["y"] == want).all()

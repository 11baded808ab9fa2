"""Cross-lane instructions through the machine against numpy lane arithmetic: v_permlane64
(manual: wave64 swaps the halves, lane i <- lane i ^ 32, writing active lanes; a wave32 does
nothing) and the DPP16 controls (manual 'DPP16' table: row_share, row_xmask, wave-wide
shifts, row broadcasts) for wave32 and wave64."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch, loads


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("same_register", [False, True])
def test_permlane64_swaps_halves_in_wave64_and_does_nothing_in_wave32(wave, same_register):
    dst = "v2" if same_register else "v1"
    src = loads("o") + f"""
        v_lshlrev_b32 v30, 2, v0
        v_add_nc_u32 v2, 100, v0            // source: 100 + lane
        v_mov_b32 v1, 0x1234                // destination's old value
        v_and_b32 v3, 1, v0
        v_cmpx_eq_u32 1, v3                 // odd lanes only
        v_permlane64_b32 {dst}, v2
        s_mov_b64 exec, -1
        global_store_b32 v30, {dst}, s[4:5]
        s_endpgm"""
    out, _ = launch(src, {"o": np.zeros(wave, np.uint32)}, block=(wave, 1, 1), wave=wave)
    lane = np.arange(wave)
    old = 100 + lane if same_register else np.full(wave, 0x1234)
    if wave == 32:
        want = old                                          # "Supported in wave64 ONLY": no effect
    else:
        want = np.where(lane % 2 == 1, 100 + (lane ^ 32), old)   # inactive source lanes are read too
    assert (out["o"] == want).all()

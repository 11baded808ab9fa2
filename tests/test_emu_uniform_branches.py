"""Branches the run loop decides itself (emu/machine.py _UniformBranch, switch
uniform_branches): when every wave of a group takes a branch alike, its SCC, VCC or EXEC
counted over the batch moves the group's PC without the branch's semantic; when the waves
differ, the branch's step runs. Loops, branches every wave takes or none does, and branches
whose waves part, in wave32 and wave64, must end as reference mode (every fast path off, one
wave at a time) and fast mode without the switch end, bit for bit, and as the program says."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu import machine as machine_module
from emu.launch import Dispatch
from emu.machine import Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE, options_from

GROUPS, TRIPS = 3, 4


@pytest.fixture
def decisions(monkeypatch):
    """What _UniformBranch.taken answered: {True, False, None} seen."""
    seen = []
    taken = machine_module._UniformBranch.taken

    def recording(self, st, sel):
        answer = taken(self, st, sel)
        seen.append(answer)
        return answer
    monkeypatch.setattr(machine_module._UniformBranch, "taken", recording)
    return seen


def _final_vgprs(src: str, wave: int, options) -> np.ndarray:
    """`src` on GROUPS work-groups of two waves (s2 = the work-group id); every wave's VGPRs."""
    mem = DeviceMemory()
    code = dsl.assemble(src, "gfx1100", wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine("gfx1100", mem, options=options)
    machine.run(Dispatch("branches", at, grid=(GROUPS, 1, 1), block=(2 * wave, 1, 1), wave_size=wave, vgprs=16,
                         user_sgprs=[0, 0]))
    st = machine.spare_state
    st.settle_vgprs(None)
    return st.vgpr.copy()


def _program(wave: int) -> str:
    exec_, vcc = ("exec_lo", "vcc_lo") if wave == 32 else ("exec", "vcc")
    mov = "s_mov_b32" if wave == 32 else "s_mov_b64"
    saved = "s6" if wave == 32 else "s[6:7]"
    return f"""
    s_mov_b32 s4, {TRIPS}
loop:                                   // every wave loops alike: taken TRIPS - 1 times, then not
    v_add_nc_u32 v1, v1, 1
    s_sub_u32 s4, s4, 1
    s_cmp_lg_u32 s4, 0
    s_cbranch_scc1 loop
    s_cmp_eq_u32 s2, 1                  // work-group 1's waves go on, the others branch: they part
    s_cbranch_scc0 other
    v_add_nc_u32 v2, v2, 5
other:
    v_cmp_gt_u32 {vcc}, 7, v0           // lanes 0..6: VCC is zero in every wave but the first of a group
    s_cbranch_vccz second
    v_add_nc_u32 v3, v3, 7
second:
    v_cmp_gt_u32 {vcc}, 1000, v0        // every lane: no wave takes it
    s_cbranch_vccz third
    v_add_nc_u32 v4, v4, 9
third:
    {mov} {saved}, {exec_}
    {mov} {exec_}, 0
    s_cbranch_execz fourth              // every wave takes it
    v_mov_b32 v5, 13
fourth:
    {mov} {exec_}, {saved}
    s_cbranch_execnz fifth              // every wave takes it
    v_mov_b32 v6, 17
fifth:
    s_branch sixth
    v_mov_b32 v7, 19
sixth:
    v_add_nc_u32 v8, v1, v3
    s_endpgm
"""


@pytest.mark.parametrize("wave", [32, 64])
def test_branches_decided_by_the_run_loop_agree_with_reference(wave, decisions):
    src = _program(wave)
    fast = _final_vgprs(src, wave, FAST)
    assert {True, False, None} <= set(decisions), decisions      # alike (taken, not taken) and parting
    np.testing.assert_array_equal(fast, _final_vgprs(src, wave, options_from(off=["uniform_branches"])))
    np.testing.assert_array_equal(fast, _final_vgprs(src, wave, REFERENCE))
    waves = 2 * GROUPS
    lane = np.arange(2 * wave).reshape(2, wave)
    group = np.repeat(np.arange(GROUPS), 2)[:, None]
    v = fast[:, :waves]
    np.testing.assert_array_equal(v[1], TRIPS)
    np.testing.assert_array_equal(v[2], np.where(group == 1, 5, 0) + 0 * lane[0])
    # the branch is per wave (EXEC unchanged): a group's first wave, holding lanes 0..6, adds in every lane
    np.testing.assert_array_equal(v[3], np.tile(np.where(lane[:, :1] < 7, 7, 0), (GROUPS, 1)) + 0 * lane[0])
    np.testing.assert_array_equal(v[4], 9)
    np.testing.assert_array_equal(v[5:8], 0)
    np.testing.assert_array_equal(v[8], v[1] + v[3])

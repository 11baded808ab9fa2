"""Looping waves kept contiguous (emu/machine.py compact, switch compact_waves): when the waves
of a loop are not contiguous (a work-group between them left early), the machine moves them to
the front of the state for the loop and back afterwards. What they compute, store and exchange
through atomics (whose results depend on the order of the waves: lane order, as hardware
serialises them), their LDS and the faults they raise must be what reference mode (every fast
path off, one wave at a time) and fast mode without the switch give, bit for bit; the sums
are checked against numpy too. Each test checks that compaction happened."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu import machine as machine_module
from emu.launch import Dispatch
from emu.machine import EmuFault, Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE, options_from

GROUPS, BLOCK, TRIPS = 4, 64, 5          # two wave32 waves per work-group


@pytest.fixture
def compactions(monkeypatch):
    """Counts the machine's compactions (a list of one int)."""
    calls = [0]
    compact = machine_module._Chunk.compact

    def counting(self, idx, pc):
        calls[0] += 1
        return compact(self, idx, pc)
    monkeypatch.setattr(machine_module._Chunk, "compact", counting)
    return calls


def _launch(src: str, options, words: int = 1024):
    """Run `src` on GROUPS work-groups of BLOCK work-items (s[0:1] = a zeroed buffer of `words`
    dwords, s2 = the work-group id, 256 bytes of LDS each); (the buffer, every wave's VGPRs)."""
    mem = DeviceMemory()
    buf = mem.alloc(4 * words, "buf")
    mem.write(buf, np.zeros(words, np.uint32))
    code = dsl.assemble(src, "gfx1100", 32)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine("gfx1100", mem, options=options)
    machine.run(Dispatch("compact", at, grid=(GROUPS, 1, 1), block=(BLOCK, 1, 1), wave_size=32, vgprs=16,
                         user_sgprs=[buf & 0xFFFFFFFF, buf >> 32], lds_size=256))
    st = machine.spare_state
    st.settle_vgprs(None)
    return np.frombuffer(mem.read(buf, 4 * words), np.uint32).copy(), st.vgpr[:, :, :].copy()


# work-group 1's second wave leaves at once: the loop's waves are 0..2 and 4..7, not contiguous,
# and moved to the front they no longer sit by work-group (barriers are released by work-group,
# with the waves back in place). Per trip:
# v1 += lane id + group; an atomic add of v1 to one dword for every lane of every wave (the
# old values returned depend on the order of the waves); a store of v1 where lanes of every
# work-group store to the same dwords (the last wave's stays); an LDS atomic on the group's
# dword 0 (returning what the group's lanes before added) and its load back
LOOP = f"""
    v_cmp_gt_u32 vcc_lo, 32, v0         // lanes of a work-group's first wave
    s_cmp_eq_u32 vcc_lo, 0
    s_cselect_b32 s5, 1, 0              // a second wave
    s_cmp_eq_u32 s2, 1
    s_cselect_b32 s6, 1, 0              // of work-group 1
    s_and_b32 s5, s5, s6
    s_cbranch_scc1 done
    v_mov_b32 v1, 0
    v_mov_b32 v5, 0
    v_lshlrev_b32 v2, 2, v0
    s_mov_b32 s4, {TRIPS}
loop:
    v_add_nc_u32 v1, v1, v0
    v_add_nc_u32 v1, v1, s2
    global_atomic_add_u32 v3, v5, v1, s[0:1] glc
    global_store_b32 v2, v1, s[0:1] offset:256
    ds_add_rtn_u32 v4, v5, v1
    s_waitcnt vmcnt(0) lgkmcnt(0)
    ds_load_b32 v6, v5
    s_waitcnt lgkmcnt(0)
    v_add_nc_u32 v7, v6, v3
    s_sub_u32 s4, s4, 1
    s_cmp_lg_u32 s4, 0
    s_cbranch_scc1 loop
done:
    s_endpgm
"""


def test_looping_waves_that_are_not_contiguous_agree_with_reference(compactions):
    fast = _launch(LOOP, FAST)
    assert compactions[0] > 0
    without = _launch(LOOP, options_from(off=["compact_waves"]))
    reference = _launch(LOOP, REFERENCE)
    for got, name in ((without, "without compact_waves"), (reference, "reference")):
        np.testing.assert_array_equal(fast[0], got[0], err_msg=f"memory: fast vs {name}")
        np.testing.assert_array_equal(fast[1], got[1], err_msg=f"VGPRs: fast vs {name}")
    memory, vgprs = fast
    lane = np.arange(BLOCK)
    looped = np.ones((GROUPS, BLOCK), bool)
    looped[1, 32:] = False
    # v1 after the loop: TRIPS * (lane id + group) in every wave that looped; the wave that left never wrote it
    want = TRIPS * (lane[None, :] + np.arange(GROUPS)[:, None])
    np.testing.assert_array_equal(vgprs[1, :2 * GROUPS].reshape(GROUPS, BLOCK), np.where(looped, want, 0))
    # the atomic's dword: every looping lane's v1 of every trip; the stores' dwords: the last work-group's last v1
    per_trip = np.where(looped, lane[None, :] + np.arange(GROUPS)[:, None], 0)
    assert memory[0] == int(per_trip.sum()) * sum(range(1, TRIPS + 1)) % 2**32
    np.testing.assert_array_equal(memory[64:64 + BLOCK], want[-1])


def test_fault_in_a_compacted_loop_names_the_same_wave(compactions):
    """Work-group 2's second wave (moved to another place in the state) loads from past the
    buffer on its third trip: every mode names the same PC, work-group, wave, lane and address."""
    src = LOOP.replace("    s_sub_u32 s4, s4, 1\n", """    s_cmp_eq_u32 s4, 3
    s_cselect_b32 s5, 1, 0
    s_cmp_eq_u32 s2, 2
    s_cselect_b32 s6, 1, 0
    s_and_b32 s5, s5, s6
    v_cmp_eq_u32 vcc_lo, 40, v0
    v_cndmask_b32 v8, 0, 0x100000, vcc_lo
    v_mul_lo_u32 v8, v8, s5
    global_load_b32 v9, v8, s[0:1]
    s_waitcnt vmcnt(0)
    s_sub_u32 s4, s4, 1
""")
    messages = []
    for options in (FAST, options_from(off=["compact_waves"]), REFERENCE):
        with pytest.raises(EmuFault) as fault:
            _launch(src, options)
        messages.append(str(fault.value))
    assert compactions[0] > 0
    assert messages[0] == messages[1] == messages[2], messages
    assert "work-group (2, 0, 0), wave 1, lane 8" in messages[0], messages[0]



# every wave loops, but work-group 2's first wave leaves after two trips and waits, running, past
# the loop: moved to the front, the others no longer sit by work-group, and at the next
# barrier work-group 2's second wave must wait for it (released by work-group, the waves back
# in place), which orders the atomics of the trips after it
BARRIER_LOOP = f"""
    v_cmp_gt_u32 vcc_lo, 32, v0         // lanes of a work-group's first wave
    s_cmp_lg_u32 vcc_lo, 0
    s_cselect_b32 s5, 1, 0
    s_cmp_eq_u32 s2, 2
    s_cselect_b32 s6, 1, 0
    s_and_b32 s7, s5, s6                // 1 in the wave that leaves early
    v_mov_b32 v1, 0
    v_mov_b32 v5, 0
    v_lshlrev_b32 v2, 2, v0
    s_mov_b32 s4, {TRIPS}
loop:
    v_add_nc_u32 v1, v1, v0
    v_add_nc_u32 v1, v1, s2
    global_atomic_add_u32 v3, v5, v1, s[0:1] glc
    ds_add_rtn_u32 v4, v5, v1
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_barrier
    ds_load_b32 v6, v5
    s_waitcnt lgkmcnt(0)
    v_add_nc_u32 v7, v6, v3
    s_sub_u32 s4, s4, 1
    s_cmp_eq_u32 s4, {TRIPS - 2}
    s_cselect_b32 s8, 1, 0
    s_and_b32 s8, s8, s7
    s_cmp_lg_u32 s8, 0
    s_cbranch_scc1 out
    s_cmp_lg_u32 s4, 0
    s_cbranch_scc1 loop
out:
    v_add_nc_u32 v9, v3, v4
    s_endpgm
"""


def test_loop_with_a_barrier_is_compacted_once_and_agrees_with_reference(compactions):
    """A barrier in the loop is a machine event: the waves go back to their places before it
    (barriers are released by work-group), so the compaction lasted a few steps and did not
    pay for its moves: that way back is not compacted again. Every wave's atomic results and
    registers are reference mode's."""
    fast = _launch(BARRIER_LOOP, FAST)
    assert compactions[0] == 1
    for options in (options_from(off=["compact_waves"]), REFERENCE):
        got = _launch(BARRIER_LOOP, options)
        np.testing.assert_array_equal(fast[0], got[0])
        np.testing.assert_array_equal(fast[1], got[1])

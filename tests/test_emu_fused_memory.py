"""GLOBAL dword loads and stores on a fused run's locals (emu/machine_fuse.py, switch fused_memory)
against the switch off, fused runs off and reference mode (every fast path off): the same VGPRs,
SGPRs and memory bit for bit, and numpy's view of the buffer, with the address pair and the data
computed in the run (never stored before the access), a load into its own address register, a
load of what the run stored before it, every lane storing to one address (the last lane's value
stays), EXEC partly off from the start and from the middle of a run, and a load or store that
faults inside a fused run: the same fault (PC, instruction, wave, lane, address) and the same
register and memory state as reference mode. Each test checks whether the fused access ran."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu import machine, machine_fuse
from emu.launch import Dispatch
from emu.machine import EmuFault, Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE, options_from

MODES = {"fast": FAST, "fused_memory off": options_from(off=["fused_memory"]),
         "fused_runs off": options_from(off=["fused_runs"]), "reference": REFERENCE}
SIZE = 2048


@pytest.fixture
def fused_accesses(monkeypatch):
    """[fused loads made on the locals, fused stores made on the locals]: the fast mode's."""
    calls = [0, 0]
    load, store = machine_fuse.fused_load, machine_fuse.fused_store

    def counted_load(*args):
        value = load(*args)
        calls[0] += value is not None
        return value

    def counted_store(*args):
        done = store(*args)
        calls[1] += done
        return done
    monkeypatch.setitem(machine_fuse.NAMESPACE, "fused_load", counted_load)
    monkeypatch.setitem(machine_fuse.NAMESPACE, "fused_store", counted_store)
    return calls


@pytest.fixture
def chunks(monkeypatch):
    """The chunks the machine ran (their state once a launch raised)."""
    seen = []
    run = machine._Chunk.run

    def recorded(self):
        seen.append(self)
        return run(self)
    monkeypatch.setattr(machine._Chunk, "run", recorded)
    return seen


def _launch(arch, wave, text, options, groups=2, seen=None):
    """Run `text` on `groups` one-wave work-groups, s[0:1] = a buffer of SIZE random bytes, s2 =
    the work-group. Returns (VGPRs, SGPRs, the buffer's bytes after, before) or, when it faults,
    (the fault's message, VGPRs, SGPRs, the buffer after) from the chunk's state (seen: chunks)."""
    mem = DeviceMemory()
    host = np.random.default_rng(11).integers(0, 256, SIZE, dtype=np.uint8)
    buf = mem.alloc(SIZE, "buf")
    mem.write(buf, host)
    code = dsl.assemble(text + "\ns_endpgm", arch, wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    m = Machine(arch, mem, options=options)
    d = Dispatch("fused", at, grid=(groups, 1, 1), block=(wave, 1, 1), wave_size=wave, vgprs=24,
                 user_sgprs=[buf & 0xFFFFFFFF, buf >> 32])
    try:
        m.run(d)
    except EmuFault as e:
        st = seen[-1].st
        st.settle_vgprs(None)
        return (str(e).replace(f"0x{at:x}", "CODE"), st.vgpr[:, :groups].copy(), st.sgpr[:, :groups].copy(),
                np.frombuffer(mem.read(buf, SIZE), np.uint8).copy())
    st = m.spare_state
    st.settle_vgprs(None)
    return st.vgpr[:, :groups].copy(), st.sgpr[:, :groups].copy(), np.frombuffer(mem.read(buf, SIZE), np.uint8).copy(), host


def _agree(arch, wave, text, groups=2):
    results = {mode: _launch(arch, wave, text, options, groups) for mode, options in MODES.items()}
    fast = results["fast"]
    for mode, other in results.items():
        for a, b in zip(fast[:3], other[:3]):
            np.testing.assert_array_equal(a, b, err_msg=mode)
    return fast


ADDRESSES = """
    v_lshlrev_b32 v1, 2, v0
    v_add_co_u32 v3, {vcc}, s0, v1
    v_add_co_ci_u32_e64 v4, null, s1, 0, {vcc}"""


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
@pytest.mark.parametrize("wave", [32, 64])
def test_loads_and_stores_on_the_run_locals(arch, wave, fused_accesses):
    vcc = "vcc_lo" if wave == 32 else "vcc"
    text = ADDRESSES.format(vcc=vcc) + f"""
        global_load_b32 v5, v[3:4], off
        v_add_nc_u32 v6, 1, v5
        global_store_b32 v[3:4], v6, off offset:1024
        global_load_b32 v7, v[3:4], off offset:1024
        v_mov_b32 v9, s0
        v_mov_b32 v10, s1
        global_store_b32 v[9:10], v0, off offset:1536
        global_load_b32 v11, v[9:10], off offset:1536
        v_mov_b32 v12, v3
        global_load_b32 v3, v[3:4], off offset:4
        v_mov_b32 v13, v3"""
    vgprs, _, after, before = _agree(arch, wave, text)
    assert fused_accesses == [4, 2]         # the two work-groups run as one batch
    words = before.view("<u4")
    lanes = np.arange(wave)
    np.testing.assert_array_equal(vgprs[5], np.broadcast_to(words[lanes], vgprs[5].shape))
    np.testing.assert_array_equal(vgprs[7], vgprs[5] + 1)
    np.testing.assert_array_equal(after.view("<u4")[256:256 + wave], words[lanes] + 1)
    assert (vgprs[11] == wave - 1).all()            # every lane stored to one address: the last lane's stays
    np.testing.assert_array_equal(vgprs[13], np.broadcast_to(words[lanes + 1], vgprs[13].shape))
    np.testing.assert_array_equal(vgprs[3], vgprs[13])


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
@pytest.mark.parametrize("start", ["every lane", "lanes off"])
def test_exec_partly_off(arch, start, fused_accesses):
    """EXEC with lanes off from the start (the run's plain form), or switched off in the middle of
    a run (its plain tail): inactive lanes neither load nor store; the fused accesses run only
    while every lane is on."""
    first = "" if start == "every lane" else "s_mov_b32 exec_lo, 0x00FF00F3"
    text = """
        v_mov_b32 v5, 0x5555
        v_mov_b32 v6, 0x6666
        """ + first + ADDRESSES.format(vcc="vcc_lo") + """
        global_load_b32 v5, v[3:4], off
        global_store_b32 v[3:4], v0, off offset:1024
        s_and_b32 exec_lo, exec_lo, 0x0F0F0F0F
        v_add_co_u32 v3, vcc_lo, v3, 4
        global_load_b32 v6, v[3:4], off
        global_store_b32 v[3:4], v5, off offset:1536"""
    vgprs, _, after, before = _agree(arch, 32, text)
    assert fused_accesses == ([1, 1] if start == "every lane" else [0, 0])
    on = np.uint64(0xFFFFFFFF if start == "every lane" else 0x00FF00F3)
    lanes = np.arange(32)
    first_on = ((on >> lanes.astype(np.uint64)) & np.uint64(1)).astype(bool)
    later_on = first_on & ((np.uint64(0x0F0F0F0F) >> lanes.astype(np.uint64)) & np.uint64(1)).astype(bool)
    words, stored = before.view("<u4"), after.view("<u4")
    np.testing.assert_array_equal(vgprs[5][:, first_on], np.broadcast_to(words[lanes[first_on]], (2, first_on.sum())))
    assert (vgprs[5][:, ~first_on] == 0x5555).all()
    np.testing.assert_array_equal(stored[256 + lanes], np.where(first_on, lanes, words[256 + lanes]))
    np.testing.assert_array_equal(vgprs[6][:, later_on], np.broadcast_to(words[lanes[later_on] + 1], (2, later_on.sum())))
    assert (vgprs[6][:, ~later_on] == 0x6666).all()
    np.testing.assert_array_equal(stored[384 + 1 + lanes[later_on]], words[lanes[later_on]])


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("access", ["load", "store", "second store"])
def test_a_fault_inside_a_fused_run(arch, wave, access, chunks, fused_accesses):
    """A load or store reaching past the buffer after the run computed (and has not stored)
    registers: every mode names the same fault and leaves the same registers and memory
    (what the instructions before it wrote, nothing of it or after it)."""
    vcc = "vcc_lo" if wave == 32 else "vcc"
    bad = {"load": "global_load_b32 v8, v[3:4], off offset:2040",
           "store": "global_store_b32 v[3:4], v6, off offset:2040",
           "second store": "global_store_b32 v[3:4], v6, off offset:1024\n"
                           "global_store_b32 v[3:4], v6, off offset:2040"}[access]
    text = ADDRESSES.format(vcc=vcc) + f"""
        global_load_b32 v5, v[3:4], off
        v_add_nc_u32 v6, 1, v5
        v_mov_b32 v7, 77
        s_add_u32 s8, s2, 3
        {bad}
        v_mov_b32 v9, 99"""
    outcomes = {}
    for mode, options in MODES.items():
        outcome = _launch(arch, wave, text, options, seen=chunks)
        assert isinstance(outcome[0], str), (mode, "no fault")
        outcomes[mode] = outcome
    message, vgprs, sgprs, memory = outcomes["fast"]
    for mode, (m, v, s, after) in outcomes.items():
        assert m == message, mode
        np.testing.assert_array_equal(v, vgprs, err_msg=mode)
        np.testing.assert_array_equal(s, sgprs, err_msg=mode)
        np.testing.assert_array_equal(after, memory, err_msg=mode)
    assert "past the end of 'buf'" in message and bad.splitlines()[-1].split()[0] in message
    assert "lane " in message                   # the lane the plain step names
    assert (vgprs[7] == 77).all() and (vgprs[9] == 0).all() and (sgprs[8] == np.arange(2) + 3).all()
    assert fused_accesses == [1, int(access == "second store")]   # the accesses before the fault, on the locals

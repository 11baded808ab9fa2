"""What a launch stopped by a memory fault leaves (emu/README.md, "Faults: what a stopped launch
leaves"): the waves of the faulting step before the faulting wave (wave order) complete the
instruction, the faulting wave and the later ones change nothing with it (no lane's store, not
the first dwords of a wide store, no atomic's lane, no register, their PC at the instruction),
every earlier instruction completed; the same bit for bit in fast mode, reference mode, one
semantic call per wave (batch_waves off) and a batch cut into slices of one wave (a wide
launch). The expected memory is built here with numpy from what each wave stores; the fault
names PC, instruction, wave, lane and address."""
from __future__ import annotations

import re

import numpy as np
import pytest

import dsl
from emu import machine as machine_module
from emu.launch import Dispatch
from emu.machine import EmuError, EmuFault, Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE, options_from

MODES = ("fast", "reference", "wave by wave", "sliced")
FILL = 0xAB000000           # the output buffer's initial dwords: FILL | index


def _launch(arch, text, mode, waves, wave=32, outbytes=2048, lds=0, fault_at=None, groups=1):
    """Run `text` (s[0:1]: kernarg: the output buffer's address, its end; s2: the work-group's
    number) on `groups` work-groups of `waves` waves; (output dwords, the stopped chunk's state,
    its LDS, the error, the output's address, the PC of the first line holding fault_at)."""
    mem = DeviceMemory()
    out = mem.alloc(outbytes, "out")
    mem.write(out, (np.arange(outbytes // 4, dtype=np.uint32) | np.uint32(FILL)).tobytes())
    args = mem.alloc(16, "kernarg")
    mem.write(args, np.array([out, out + outbytes], np.uint64).tobytes())
    code = dsl.assemble(text, arch, wave_size=wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    pc = None
    if fault_at is not None:        # the PC of the first line holding fault_at
        lines = text.strip().splitlines()
        before = next(i for i, line in enumerate(lines) if fault_at in line)
        pc = at + (len(dsl.assemble("\n".join(lines[:before]), arch, wave_size=wave)) if before else 0)
    options = {"fast": FAST, "reference": REFERENCE, "sliced": FAST, "chunked": FAST,
               "wave by wave": options_from(off=["batch_waves"])}[mode]
    saved = machine_module.SLICE_LANES, machine_module.MEMORY_SLICE_LANES, machine_module.STATE_BYTES
    if mode == "sliced":            # a batch wider than one wave runs as slices of one wave
        machine_module.SLICE_LANES = machine_module.MEMORY_SLICE_LANES = wave
    if mode == "chunked":           # one work-group per chunk (a launch whose state exceeds STATE_BYTES)
        machine_module.STATE_BYTES = 1
    m = Machine(arch, mem, options=options)
    fault = None
    try:
        m.run(Dispatch("faults", at, grid=(groups, 1, 1), block=(waves * wave, 1, 1), wave_size=wave, vgprs=16,
                       user_sgprs=[args & 0xFFFFFFFF, args >> 32], lds_size=lds))
    except EmuError as e:
        fault = e
    finally:
        machine_module.SLICE_LANES, machine_module.MEMORY_SLICE_LANES, machine_module.STATE_BYTES = saved
    chunk = m.stopped
    st = chunk.st if chunk is not None else m.spare_state
    st.settle_vgprs(None)
    lds_bytes = chunk.lds[:lds].copy() if chunk is not None else None
    first = chunk.first * chunk.per_group if chunk is not None else 0      # the chunk's first wave
    return np.frombuffer(mem.read(out, outbytes), np.uint32).copy(), st, lds_bytes, fault, out, pc, first


def _all_modes(arch, text, waves, modes=MODES, **kw):
    """Each mode's outcome but its chunk's first wave; the registers (VGPRs, SGPRs, PCs; of the
    waves a mode's stopped chunk holds) and LDS identical in every mode."""
    runs = {mode: _launch(arch, text, mode, waves, **kw) for mode in modes}
    ref = runs["reference"]
    for mode, got in runs.items():
        assert str(got[3]) == str(ref[3]), mode
        assert (got[0] == ref[0]).all(), mode
        first, count = got[6] - ref[6], got[1].waves
        for name, axis in (("vgpr", 1), ("sgpr", 1), ("pc", 0), ("scc", 0)):
            theirs = np.take(getattr(ref[1], name), np.arange(first, first + count), axis=axis)
            assert (getattr(got[1], name) == theirs).all(), f"{mode}: {name}"
        if ref[2] is not None:
            assert (got[2] == ref[2]).all(), f"{mode}: LDS"
    return ref[:6]


def _assert_fault(fault, pc, text, wave, lane, address, space="global"):
    assert isinstance(fault, EmuFault), fault
    message = str(fault)
    assert f"PC 0x{pc:x} `{text}`" in message, message
    assert re.search(rf"wave {wave}, lane {lane} \(work-item \({wave * 32 + lane}, 0, 0\)\)", message), message
    assert f"{space} address 0x{address:x}" in message, message


def _initial(outbytes=2048):
    return np.arange(outbytes // 4, dtype=np.uint32) | np.uint32(FILL)


# s[4:5]: the output buffer, v1: lane's byte offset, v2..v5: 100/200/300/400 + work-item id
PRE = """
    s_load_b128 s[4:7], s[0:1], 0x0
    v_lshlrev_b32 v1, {shift}, v0
    v_add_nc_u32 v2, 100, v0
    v_add_nc_u32 v3, 200, v0
    v_add_nc_u32 v4, 300, v0
    v_add_nc_u32 v5, 400, v0
    s_waitcnt lgkmcnt(0)
    v_cmp_eq_u32 vcc_lo, 69, v0
    v_cndmask_b32 v1, v1, {bad}, vcc_lo
"""
FAULTING_WAVE, FAULTING_LANE = 2, 5       # work-item 69 of 4 waves of 32
DONE = FAULTING_WAVE * 32                  # work-items whose waves complete the faulting instruction


@pytest.mark.parametrize("dwords", [1, 2, 4])
def test_wide_store_straddling_the_end_stores_nothing_of_the_faulting_wave(dwords):
    """Work-item 69's store starts 4 bytes before the buffer's end: its first dword lies inside,
    the rest past the end. Waves 0 and 1 store every dword; wave 2 (even its first dwords,
    in every lane) and wave 3 nothing."""
    outbytes = 128 * 16
    name = {1: "global_store_b32 v1, v2, s[4:5]", 2: "global_store_b64 v1, v[2:3], s[4:5]",
            4: "global_store_b128 v1, v[2:5], s[4:5]"}[dwords]
    shift = {1: 2, 2: 3, 4: 4}[dwords]
    text = PRE.format(shift=shift, bad=outbytes - 4) + name + "\n s_endpgm"
    got, st, _, fault, out, pc = _all_modes("gfx1100", text, 4, outbytes=outbytes, fault_at=name.split()[0])
    want = _initial(outbytes)
    item = np.arange(DONE)
    for k in range(dwords):
        want[item * dwords + k] = 100 * (k + 1) + item
    if dwords == 1:     # a one-dword store at the end is inside: no fault, every lane stores
        assert fault is None
        rest = np.arange(DONE, 128)
        want[rest * 1] = 100 + rest
        want[outbytes // 4 - 1] = 100 + 69
        want[69] = FILL | 69
        assert (got == want).all()
        return
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    _assert_fault(fault, pc, name, FAULTING_WAVE, FAULTING_LANE, out + outbytes)
    # the waves before the faulting one moved past the store, the others did not
    assert (st.pc[:FAULTING_WAVE] == pc + 8).all() and (st.pc[FAULTING_WAVE:] == pc).all()


def test_store_far_outside_every_buffer():
    text = PRE.format(shift=2, bad="0x100000") + "global_store_b32 v1, v2, s[4:5]\n s_endpgm"
    got, _, _, fault, out, pc = _all_modes("gfx1100", text, 4, fault_at="global_store_b32")
    want = _initial()
    want[:DONE] = 100 + np.arange(DONE)
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    _assert_fault(fault, pc, "global_store_b32 v1, v2, s[4:5]", FAULTING_WAVE, FAULTING_LANE, out + 0x100000)


def test_later_instruction_faults_after_earlier_stores_of_every_wave():
    """Two stores; only the second one's address is poisoned: the first completed in every
    wave, the second in the waves before the faulting one."""
    text = """
    s_load_b128 s[4:7], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    v_add_nc_u32 v2, 100, v0
    v_add_nc_u32 v3, 200, v0
    s_waitcnt lgkmcnt(0)
    global_store_b32 v1, v2, s[4:5]
    v_cmp_eq_u32 vcc_lo, 69, v0
    v_cndmask_b32 v1, v1, 0x100000, vcc_lo
    global_store_b32 v1, v3, s[4:5] offset:1024
    s_endpgm"""
    got, _, _, fault, out, pc = _all_modes("gfx1100", text, 4, fault_at="offset:1024")
    want = _initial()
    want[:128] = 100 + np.arange(128)
    want[256:256 + DONE] = 200 + np.arange(DONE)
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    _assert_fault(fault, pc, "global_store_b32 v1, v3, s[4:5] offset:1024", FAULTING_WAVE, FAULTING_LANE,
                  out + 0x100000 + 1024)


def test_faulting_load_writes_registers_of_the_earlier_waves_only():
    text = PRE.format(shift=2, bad="0x100000") + """
    v_mov_b32 v6, 7
    global_load_b32 v6, v1, s[4:5]
    s_waitcnt vmcnt(0)
    s_endpgm"""
    got, st, _, fault, out, pc = _all_modes("gfx1100", text, 4, fault_at="global_load_b32")
    assert (got == _initial()).all()
    loaded = st.vgpr[6].reshape(-1)
    assert (loaded[:DONE] == _initial()[:DONE]).all() and (loaded[DONE:] == 7).all()
    _assert_fault(fault, pc, "global_load_b32 v6, v1, s[4:5]", FAULTING_WAVE, FAULTING_LANE, out + 0x100000)


@pytest.mark.parametrize("op", ["add_u32", "swap_b32", "max_u32", "inc_u32"])
def test_conflicting_atomics_apply_the_lanes_of_the_earlier_waves(op):
    """Lanes share four words (in lane order, as hardware serialises them); work-item 69's
    address is far out. Waves 0 and 1 apply every lane, in lane order; waves 2 and 3 none."""
    text = f"""
    s_load_b128 s[4:7], s[0:1], 0x0
    v_and_b32 v1, 3, v0
    v_lshlrev_b32 v1, 2, v1
    v_mul_u32_u24 v2, 7, v0
    s_waitcnt lgkmcnt(0)
    v_cmp_eq_u32 vcc_lo, 69, v0
    v_cndmask_b32 v1, v1, 0x100000, vcc_lo
    v_mov_b32 v6, 5
    global_atomic_{op} v6, v1, v2, s[4:5] glc
    s_waitcnt vmcnt(0)
    s_endpgm"""
    got, st, _, fault, out, pc = _all_modes("gfx1100", text, 4, fault_at="global_atomic")
    want = _initial()
    returned = np.full(128, 5, np.uint32)
    for item in range(DONE):            # lane order: wave 0's lanes, then wave 1's
        word, data = item % 4, np.uint32(7 * item)
        old = want[word]
        returned[item] = old
        want[word] = {"add_u32": old + data, "swap_b32": data, "max_u32": max(old, data),
                      "inc_u32": np.uint32(0) if old >= data else old + np.uint32(1)}[op]
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    assert (st.vgpr[6].reshape(-1) == returned).all()
    _assert_fault(fault, pc, f"global_atomic_{op} v6, v1, v2, s[4:5] glc", FAULTING_WAVE, FAULTING_LANE,
                  out + 0x100000)


LDS_PRE = """
    s_mov_b32 m0, -1
    v_lshlrev_b32 v1, {shift}, v0
    v_add_nc_u32 v2, 100, v0
    v_add_nc_u32 v3, 200, v0
    v_cmp_eq_u32 vcc_lo, {item}, v0
    v_cndmask_b32 v1, v1, {bad}, vcc_lo
"""


def _lds_dwords(lds):
    return lds.view(np.uint32)


def test_lds_store_straddling_the_end():
    """ds_store_b64 of 128 lanes fills 1 KiB; work-item 69 starts 4 bytes before the end."""
    text = LDS_PRE.format(shift=3, item=69, bad=1020) + "ds_store_b64 v1, v[2:3]\n s_endpgm"
    _, _, lds, fault, _, pc = _all_modes("gfx1100", text, 4, lds=1024, fault_at="ds_store_b64")
    want = np.zeros(256, np.uint32)
    want[2 * np.arange(DONE)] = 100 + np.arange(DONE)
    want[2 * np.arange(DONE) + 1] = 200 + np.arange(DONE)
    assert (_lds_dwords(lds) == want).all()
    _assert_fault(fault, pc, "ds_store_b64 v1, v[2:3]", FAULTING_WAVE, FAULTING_LANE, 1020, "LDS")


def test_two_address_lds_store_names_the_first_wave_in_wave_order():
    """Work-item 3 (wave 0) reaches past the end only with its second element, work-item 69
    (wave 2) with its first: the fault is wave 0's (waves in order, as one call per wave meets
    them), and since wave 0 is the faulting wave, no wave stores anything."""
    text = LDS_PRE.format(shift=2, item=69, bad="0x100000") + """
    v_cmp_eq_u32 vcc_lo, 3, v0
    v_cndmask_b32 v1, v1, 0x300, vcc_lo
    ds_store_2addr_b32 v1, v2, v3 offset1:64
    s_endpgm"""
    _, _, lds, fault, _, pc = _all_modes("gfx1100", text, 4, lds=1024, fault_at="ds_store_2addr")
    assert (_lds_dwords(lds) == 0).all()
    _assert_fault(fault, pc, "ds_store_2addr_b32 v1, v2, v3 offset1:64", 0, 3, 0x400, "LDS")


def test_lds_atomic_with_conflicts():
    """ds_add_rtn_u32 of 128 lanes onto four words; work-item 69 is past the LDS's end."""
    text = """
    v_and_b32 v1, 3, v0
    v_lshlrev_b32 v1, 2, v1
    v_add_nc_u32 v2, 100, v0
    v_cmp_eq_u32 vcc_lo, 69, v0
    v_cndmask_b32 v1, v1, 0x100000, vcc_lo
    v_mov_b32 v6, 9
    s_mov_b32 m0, -1
    ds_add_rtn_u32 v6, v1, v2
    s_waitcnt lgkmcnt(0)
    s_endpgm"""
    _, st, lds, fault, _, pc = _all_modes("gfx1100", text, 4, lds=64, fault_at="ds_add_rtn")
    want = np.zeros(16, np.uint32)
    returned = np.full(128, 9, np.uint32)
    for item in range(DONE):
        word = item % 4
        returned[item] = want[word]
        want[word] += np.uint32(100 + item)
    assert (_lds_dwords(lds) == want).all()
    assert (st.vgpr[6].reshape(-1) == returned).all()
    _assert_fault(fault, pc, "ds_add_rtn_u32 v6, v1, v2", FAULTING_WAVE, FAULTING_LANE, 0x100000, "LDS")


def test_flat_store_whose_lds_lane_faults_keeps_the_global_lanes_of_its_wave_unwritten():
    """FLAT: even lanes store to global memory, odd lanes to the LDS through the shared
    aperture; work-item 69 (odd) is past the LDS's end. Wave 2's global lanes, stored before its
    LDS lanes are looked at, are put back."""
    text = """
    s_load_b128 s[4:7], s[0:1], 0x0
    s_mov_b64 s[8:9], src_shared_base
    v_lshlrev_b32 v1, 2, v0
    v_add_nc_u32 v2, 100, v0
    v_and_b32 v3, 1, v0
    s_waitcnt lgkmcnt(0)
    v_cmp_eq_u32 vcc_lo, 1, v3
    v_add_co_u32 v6, s10, s4, v1
    v_add_co_ci_u32_e64 v7, null, s5, 0, s10
    v_mov_b32 v8, s9
    v_cndmask_b32 v7, v7, v8, vcc_lo
    v_cndmask_b32 v6, v6, v1, vcc_lo
    v_cmp_eq_u32 vcc_lo, 69, v0
    v_cndmask_b32 v6, v6, 0x100000, vcc_lo
    flat_store_b32 v[6:7], v2
    s_endpgm"""
    got, _, lds, fault, _, pc = _all_modes("gfx1100", text, 4, lds=512, fault_at="flat_store_b32")
    want = _initial()
    item = np.arange(DONE)
    even = item[item % 2 == 0]
    want[even] = 100 + even
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    want_lds = np.zeros(128, np.uint32)
    odd = item[item % 2 == 1]
    want_lds[odd] = 100 + odd
    assert (_lds_dwords(lds) == want_lds).all()
    assert isinstance(fault, EmuFault) and f"PC 0x{pc:x}" in str(fault) and "wave 2, lane 5" in str(fault)


def test_scalar_store_straddling_the_end_on_cdna3():
    """s_store_dwordx2 of each wave64 to 8 bytes of its own; wave 2's address is 4 bytes before
    the buffer's end. Waves 0 and 1 store both dwords, waves 2 and 3 nothing."""
    text = """
    s_load_dwordx4 s[4:7], s[0:1], 0x0
    v_readfirstlane_b32 s12, v0
    s_lshr_b32 s12, s12, 3
    s_cmp_eq_u32 s12, 16
    s_cselect_b32 s12, 1020, s12
    s_add_u32 s10, s12, 100
    s_add_u32 s11, s12, 200
    s_waitcnt lgkmcnt(0)
    s_store_dwordx2 s[10:11], s[4:5], s12
    s_endpgm"""
    got, _, _, fault, out, pc = _all_modes("gfx942", text, 4, wave=64, outbytes=1024, fault_at="s_store")
    want = _initial(1024)
    for w in range(2):
        want[2 * w] = 8 * w + 100
        want[2 * w + 1] = 8 * w + 200
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    assert isinstance(fault, EmuFault)
    message = str(fault)
    assert f"PC 0x{pc:x} `s_store_dwordx2 s[10:11], s[4:5], s12`" in message and "wave 2" in message, message
    assert f"global address 0x{out + 1024:x}" in message, message


def test_wide_launch_faults_alike_in_slices_chunks_and_wave64():
    """4 work-groups of 16 wave64 waves (slices of one wave in mode 'sliced'; one work-group per
    chunk in mode 'chunked', work-group 0 ending before work-group 1 starts): work-item 2000
    (work-group 1, wave 15, lane 16; wave 31 of the launch) stores past the end with the second
    dword of a B64 store; the 31 waves before it store both, the others nothing."""
    groups, waves, wave = 4, 16, 64
    outbytes = groups * waves * wave * 8
    text = f"""
    s_load_b128 s[4:7], s[0:1], 0x0
    s_lshl_b32 s8, s2, 10
    v_add_nc_u32 v0, s8, v0
    v_lshlrev_b32 v1, 3, v0
    v_add_nc_u32 v2, 100, v0
    v_add_nc_u32 v3, 200, v0
    s_waitcnt lgkmcnt(0)
    v_cmp_eq_u32 vcc, 2000, v0
    v_cndmask_b32 v1, v1, {outbytes - 4}, vcc
    global_store_b64 v1, v[2:3], s[4:5]
    s_endpgm"""
    got, st, _, fault, out, pc = _all_modes("gfx1100", text, waves, wave=wave, outbytes=outbytes, groups=groups,
                                            fault_at="global_store_b64", modes=MODES + ("chunked",))
    want = _initial(outbytes)
    item = np.arange(31 * wave)
    want[2 * item] = 100 + item
    want[2 * item + 1] = 200 + item
    assert (got == want).all(), np.flatnonzero(got != want)[:8]
    assert isinstance(fault, EmuFault), fault
    message = str(fault)
    assert f"PC 0x{pc:x} `global_store_b64 v1, v[2:3], s[4:5]`" in message, message
    assert "work-group (1, 0, 0), wave 15, lane 16 (work-item (976, 0, 0))" in message, message
    assert f"global address 0x{out + outbytes:x}" in message, message
    # the reference keeps the launch's work-groups in one chunk: wave 31 is work-group 1's wave 15
    assert (st.pc[:31] == pc + 8).all() and (st.pc[31:] == pc).all()

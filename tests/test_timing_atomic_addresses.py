"""The timing model sees a conflicting atomic's addresses the same way in fast and reference
mode (issue 18, "right before fast"). Lanes of an atomic that share an address are applied one
after another; the fast paths (emu/atomic_scan.py, emu/atomic_words.py's one pass, combined
sums) touch memory once per address, reference mode in rounds of lanes. The LDS bank rule
(RDNA3 manual 12.5, "Data Share Indexed and Atomic Access"; 1.2.2.1: 64 dword-wide banks,
dword address mod 64) is about the addresses the instruction's active lanes access: every
active lane's address, once per instruction, whatever order the lanes' updates apply in.

Each kernel runs timed in fast and reference mode; the functional results, every wave's issue
cycles and per-PC stall causes must agree, and the LDS passes are checked against the rule
worked out by hand for the lanes' addresses."""
from __future__ import annotations

import numpy as np
import pytest

ARCH = "gfx1100"


def _run(body: str, lanes: int, wave: int, reference: bool, args_bytes: int):
    import dsl
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.writer import KernelSpec, write_code_object
    src = ("s_load_b64 s[0:1], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v9, 0\n" + body +
           "\ns_waitcnt vmcnt(0) lgkmcnt(0)\ns_endpgm")
    code = dsl.assemble(src, ARCH, **({"wave_size": 64} if wave == 64 else {}))
    hsaco = write_code_object(ARCH, [KernelSpec("k", code, [KernelArg(0, 8, "global_buffer", "out", "global")],
                                                {"user_sgpr_kernarg_segment_ptr": 1,
                                                 "group_segment_fixed_size": 65536}, wave_size=wave)])
    dev = Device("emu", reference=reference)
    out = dev.alloc(args_bytes)
    out.copyin(np.zeros(args_bytes // 4, np.uint32))
    rep = dev.load(hsaco).launch("k", (1, 1, 1), (lanes, 1, 1), [out], timing=True).timing
    return rep, out.copyout(np.uint32)


def _timing(rep):
    """Everything the model predicts: per wave its PCs and issue cycles, per PC hits and
    stall cycles by cause, and the recorded LDS extra passes / cache lines per PC."""
    waves = [(list(map(int, w.pcs)), list(map(int, w.issue))) for w in rep.waves]
    pcs = {pc: (s.hits, dict(s.stalls)) for pc, s in rep.per_pc.items()}
    ops = {pc: (op.lds_extra, op.lines) for pc, op in rep.ops.items()}
    return waves, pcs, ops


# v0: lane id. Each body leaves its per-lane result in v2 and stores it at lane*4 of out.
# Each case: (body, the addresses the atomic's lane accesses: LDS dwords, or global byte
# offsets in out).
FOUR = lambda lane: [64 * (lane % 4)]      # noqa: E731 - dword (lane % 4) * 256 bytes / 4
STORE_RESULT = "\nv_lshlrev_b32 v4, 2, v0\nglobal_store_b32 v4, v2, s[0:1]"
CASES = {
    # 32 or 64 lanes on 4 dwords of bank 0 (lane % 4) * 256 bytes: 4 distinct dwords per bank
    # in each half-wave -> 4 passes, 3 extra per half-wave
    "ds_add_rtn_u32, 4 addresses": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 8, v1\nv_mov_b32 v3, 1\n"
        "ds_add_rtn_u32 v2, v1, v3\ns_waitcnt lgkmcnt(0)" + STORE_RESULT, FOUR),
    "ds_add_u32, 4 addresses": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 8, v1\nv_mov_b32 v3, 1\n"
        "ds_add_u32 v1, v3\ns_waitcnt lgkmcnt(0)\nds_load_b32 v2, v1\ns_waitcnt lgkmcnt(0)" + STORE_RESULT, FOUR),
    "ds_max_rtn_u32, 4 addresses": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 8, v1\n"
        "ds_max_rtn_u32 v2, v1, v0\ns_waitcnt lgkmcnt(0)" + STORE_RESULT, FOUR),
    "ds_storexchg_rtn_b32 (scan), 4 addresses": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 8, v1\n"
        "ds_storexchg_rtn_b32 v2, v1, v0\ns_waitcnt lgkmcnt(0)" + STORE_RESULT, FOUR),
    # each lane the dwords 64 * (lane % 4) and that + 128 (offset1:128 elements of 4 bytes):
    # together dwords 0, 64, ..., 320, all in bank 0 -> 6 passes; two dwords per lane are one
    # pass conflict-free -> 5 extra per half-wave
    "ds_storexchg_2addr_rtn_b32, 4 address pairs": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 8, v1\n"
        "ds_storexchg_2addr_rtn_b32 v[2:3], v1, v0, v0 offset1:128\ns_waitcnt lgkmcnt(0)" + STORE_RESULT,
        lambda lane: [64 * (lane % 4), 64 * (lane % 4) + 128]),
    # global: every lane adds 1 at one of 4 dwords of one 128-byte line -> 1 line per wave
    "global_atomic_add_u32, 4 addresses": (
        "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 2, v1\nv_mov_b32 v3, 1\n"
        "global_atomic_add_u32 v2, v1, v3, s[0:1] offset:1024 glc\ns_waitcnt vmcnt(0)" + STORE_RESULT,
        lambda lane: [1024 + 4 * (lane % 4)]),
    # lanes 0, 1, 2 one line each, every later lane the fourth (conflicts of uneven depth: rounds
    # of one lane's line) -> 4 lines per wave
    "global_atomic_add_u32, uneven lines": (
        "v_min_u32 v1, 3, v0\nv_lshlrev_b32 v1, 7, v1\nv_mov_b32 v3, 1\n"
        "global_atomic_add_u32 v2, v1, v3, s[0:1] offset:1024 glc\ns_waitcnt vmcnt(0)" + STORE_RESULT,
        lambda lane: [1024 + 128 * min(lane, 3)]),
}


def _expected(address_of_lane, mnemonic: str, lanes: int, wave: int) -> float:
    """The figure the rule gives, as a mean over the launch's waves: for a DS atomic its LDS
    passes beyond the conflict-free count (test_timing_lds's lane-by-lane reference of the
    manual's rule), for a global one the distinct 128-byte lines its lanes touch."""
    from .test_timing_lds import _reference_extra
    per_wave = []
    for first in range(0, lanes, wave):
        addrs = [address_of_lane(lane) for lane in range(first, first + wave)]
        if mnemonic.startswith("ds_"):
            per_wave.append(_reference_extra(addrs, [True] * wave, len(addrs[0])))
        else:
            per_wave.append(len({a // 128 for lane in addrs for a in lane}))
    return sum(per_wave) / len(per_wave)


@pytest.mark.parametrize("lanes, wave", [(32, 32), (64, 64), (64, 32)])
@pytest.mark.parametrize("case", list(CASES))
def test_fast_and_reference_time_conflicting_atomics_alike(case, lanes, wave):
    """(lanes 64 at wave32: two waves of one work-group, one batch in fast mode, one call per
    wave in reference mode.)"""
    body, address_of_lane = CASES[case]
    fast, fast_out = _run(body, lanes, wave, False, 2048)
    ref, ref_out = _run(body, lanes, wave, True, 2048)
    assert fast_out.tolist() == ref_out.tolist()
    assert _timing(fast) == _timing(ref)
    mnemonic = case.split(",")[0].split(" ")[0]
    atomic = [pc for pc, s in ref.per_pc.items() if s.text.split(" ")[0] == mnemonic]
    assert len(atomic) == 1, case
    op = ref.ops[atomic[0]]
    expected = _expected(address_of_lane, mnemonic, lanes, wave)
    if mnemonic.startswith("ds_"):
        assert op.lds_extra == expected, case
    else:
        assert op.lines == expected and op.lds_extra == 0, case


@pytest.mark.parametrize("case", ["ds_add_rtn_u32, 4 addresses", "ds_storexchg_2addr_rtn_b32, 4 address pairs"])
def test_a_batch_run_in_slices_is_timed_as_its_waves(case, monkeypatch):
    """A batch of more lanes than the machine runs in one call (emu/machine.py's SLICE_LANES,
    made 64 here: two wave32 waves per call) is timed as the same waves in one call, and as
    reference mode (one call per wave): the slices' accesses are not one access of twice the
    dwords."""
    import emu.machine
    body, address_of_lane = CASES[case]
    whole, whole_out = _run(body, 128, 32, False, 2048)
    monkeypatch.setattr(emu.machine, "SLICE_LANES", 64)
    sliced, sliced_out = _run(body, 128, 32, False, 2048)
    ref, ref_out = _run(body, 128, 32, True, 2048)
    assert whole_out.tolist() == sliced_out.tolist() == ref_out.tolist()
    assert _timing(whole) == _timing(sliced) == _timing(ref)
    mnemonic = case.split(",")[0]
    atomic = [pc for pc, s in ref.per_pc.items() if s.text.split(" ")[0] == mnemonic]
    assert [sliced.ops[pc].lds_extra for pc in atomic] == [_expected(address_of_lane, mnemonic, 128, 32)]


def _recorded_until_refusal(options):
    """A launch of three wave32 waves whose ds_add_rtn_u32 at LDS dword 64 * id (every lane in
    bank 0) is misaligned in work-item 69 (wave 2, lane 5), run with a timing recorder attached
    as run_timed attaches it: the error, and what the recorder holds (every wave's PCs, the LDS
    extra passes and cache lines per PC)."""
    import dsl
    from emu.launch import Dispatch
    from emu.machine import EmuError, Machine
    from emu.memory import DeviceMemory
    from emu.timing import Recorder
    src = """
    v_lshlrev_b32 v1, 8, v0
    v_cmp_eq_u32 vcc_lo, 0x45, v0
    v_cndmask_b32 v1, v1, 2, vcc_lo
    v_mov_b32 v3, 1
    ds_add_rtn_u32 v2, v1, v3
    s_waitcnt lgkmcnt(0)
    s_endpgm"""
    mem = DeviceMemory()
    code = dsl.assemble(src, ARCH, 32)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine(ARCH, mem, options=options)
    recorder = Recorder()
    machine.recorder = recorder
    mem.observer = recorder.touch
    with pytest.raises(EmuError) as e:
        machine.run(Dispatch("refused", at, grid=(1, 1, 1), block=(96, 1, 1), wave_size=32, vgprs=8,
                             lds_size=96 * 256))
    streams = [s.tolist() for s in recorder.streams(3)]
    return str(e.value), streams, recorder.lds_extra_passes(), recorder.lines_per_wave()


def test_a_refused_batch_is_recorded_as_its_waves_calls():
    """The machine runs a batch its semantic refused (a misaligned atomic: refused before any
    access) again one wave at a time, waves 0 and 1 completing before wave 2's error: each of
    those calls is its own recorded step, as in reference mode (one call per wave), so their LDS
    accesses are two accesses of 32 dwords in bank 0, not one of 64 (test_timing_lds's lane-by-
    lane reference of the manual's rule gives each wave's extra passes)."""
    from emu.options import FAST, REFERENCE
    from .test_timing_lds import _reference_extra
    fast, ref = _recorded_until_refusal(FAST), _recorded_until_refusal(REFERENCE)
    assert "not a multiple of 4" in fast[0] and fast[0] == ref[0]
    assert fast[1:] == ref[1:]
    streams, lds_extra, _ = fast[1:]
    atomic_pc = streams[0][4]
    assert streams[0] == streams[1] == streams[2][:5] and len(streams[0]) == 5
    per_wave = [_reference_extra([[64 * lane] for lane in range(w * 32, w * 32 + 32)], [True] * 32, 1)
                for w in (0, 1)]
    assert per_wave[0] == per_wave[1] > 0 and lds_extra == {atomic_pc: per_wave[0]}

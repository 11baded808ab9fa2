"""Straight-line runs (emu/machine_runs.py, switch compiled_runs): consecutive plain steps run by
one generated function must give what reference mode (every fast path off, one semantic call
per wave and instruction) gives, bit for bit, and raise the same faults naming the same PC,
wave, lane and address. Each test also checks that runs were taken (a test of runs that no run
reaches proves nothing)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from emu import machine as machine_module
from emu.options import FAST, REFERENCE, options_from
from tests.emu_fuzz import fuzz
from tests.test_emu_fuzz import _run


@pytest.fixture
def run_calls(monkeypatch):
    """Counts calls of every run's function (a list of one int)."""
    calls = [0]
    build = machine_module.build_run

    def counting(plan_at, pc, *rest):
        run = build(plan_at, pc, *rest)
        if run is None:
            return None
        fn = run.fn

        def counted(chunk, sel, idx):
            calls[0] += 1
            return fn(chunk, sel, idx)
        return dataclasses.replace(run, fn=counted)
    monkeypatch.setattr(machine_module, "build_run", counting)
    return calls


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1201", "gfx942-w64"])
def test_random_programs_agree_with_reference(target, run_calls):
    """The fuzzer's random programs (EXEC written and partly off, VCC and SCC writers, 64-bit
    operands, literals, memory, forward branches) with only compiled_runs and what it builds on
    on, against full reference mode."""
    runs_only = dataclasses.replace(REFERENCE, compiled_runs=True, compiled_steps=True, together=True,
                                    batch_waves=True)
    report = fuzz(range(8), (target,), options=REFERENCE, fast=runs_only)
    assert report.programs == 8 and report.instructions > 0
    assert not report.failures, "\n\n".join(f"{t} seed {s}: {d}\n{listing}" for t, s, d, listing in report.failures)
    assert not report.crashes, "\n".join(f"{t} seed {s}: {fault}" for t, s, fault, _ in report.crashes)
    assert run_calls[0] > 0


def _straight_line(ns, v, s, vcc, exec_lo, lit):
    """VALU and SALU writers of VCC, SCC and EXEC, 64-bit operands and literals, EXEC partly
    off between them: one run from the first instruction to s_endpgm."""
    return [ns["v_mov_b32"](v[1], lit(0x3F800001)),
            ns["v_lshlrev_b32"](v[2], 3, v[0]),
            ns["v_add_co_u32"](v[3], vcc, v[2], lit(0xFFFFFFF0)),
            ns["v_add_co_ci_u32"](v[4], vcc, v[1], 0, vcc),
            ns["s_mov_b32"](s[4], lit(0x5555_AAAA)),
            ns["s_and_b32"](exec_lo, exec_lo, s[4]),            # half the lanes off
            ns["v_fma_f32"](v[5], v[1], v[3], lit(0x40490FDB)),
            ns["v_lshlrev_b64"](v[6:7], 5, v[2:3]),
            ns["v_cmp_gt_u32"](vcc, v[2], 40),
            ns["v_cndmask_b32"](v[8], v[5], v[4], vcc),
            ns["s_add_u32"](s[5], s[4], lit(0xC000_0000)),     # SCC: the carry
            ns["s_cselect_b32"](s[6], s[5], 7),
            ns["v_mov_b32"](v[9], s[6]),
            ns["s_mov_b32"](exec_lo, -1),
            ns["v_add_nc_u32"](v[10], v[9], v[8])]


@pytest.mark.parametrize("wave", [32, 64])
def test_straight_line_run_agrees_with_reference(wave, run_calls):
    from dsl.operands import exec_lo, lit, s, v, vcc, vcc_lo
    from tests.test_emu_fuzz import _run

    def build(ns):
        return _straight_line(ns, v, s, vcc_lo if wave == 32 else vcc, exec_lo, lit)
    fast = _run("gfx1100", wave, build, FAST)
    assert run_calls[0] > 0
    reference = _run("gfx1100", wave, build, REFERENCE)
    without = _run("gfx1100", wave, build, options_from(off=["compiled_runs"]))
    np.testing.assert_array_equal(fast, reference)
    np.testing.assert_array_equal(fast, without)
    # an independent check of a few lanes (numpy): v10 = v9 + v8 in the lanes EXEC kept
    lane = np.arange(wave, dtype=np.uint64)
    v2 = (lane << 3) & 0xFFFFFFFF
    assert (fast[2] == v2).all()
    assert (fast[3] == (v2 + 0xFFFFFFF0) & 0xFFFFFFFF).all()
    carry = (v2 + 0xFFFFFFF0) >> 32
    assert (fast[4] == 0x3F800001 + carry).all()


def test_fault_in_a_run_names_the_same_pc_wave_lane_and_address():
    """A memory fault raised by an instruction inside a run reports what reference mode
    reports (PC, wave, lane, work-item, address), and the instructions before it in the run
    completed."""
    from dsl.operands import lit, off, s, v, vcc_lo
    from emu.machine import EmuFault

    def build(ns):
        # every lane loads from the code's own first dword but lane 5, 256 MiB past it
        return [ns["s_getpc_b64"](s[0:1]),
                ns["v_mov_b32"](v[2], s[0]),
                ns["v_mov_b32"](v[3], s[1]),
                ns["v_cmp_eq_u32"](vcc_lo, 5, v[0]),
                ns["v_cndmask_b32"](v[4], 0, lit(0x1000_0000), vcc_lo),
                ns["v_add_nc_u32"](v[2], v[2], v[4]),
                ns["global_load_b32"](v[5], v[2:3], off),
                ns["v_add_nc_u32"](v[6], v[5], 1)]
    messages = []
    for options in (FAST, REFERENCE, options_from(off=["compiled_runs"])):
        with pytest.raises(EmuFault) as fault:
            from tests.test_emu_fuzz import _run
            _run("gfx1100", 32, build, options)
        messages.append(str(fault.value))
    assert messages[0] == messages[1] == messages[2], messages
    assert "lane 5" in messages[0] and "PC 0x" in messages[0], messages[0]


def _launch_waves(build, options, waves: int = 3, wave: int = 32, mode: int = 0x3F0):
    """A DSL program on one work-group of `waves` waves; the machine's final state."""
    from dsl.kernel import build_namespace
    from emu.launch import Dispatch
    from emu.machine import Machine
    from emu.memory import DeviceMemory
    ns = build_namespace("gfx1100", wave)
    code = b"".join(bytes(i) for i in build(ns)) + bytes(ns["s_endpgm"]())
    mem = DeviceMemory()
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine("gfx1100", mem, options=options)
    machine.run(Dispatch("runs", at, grid=(1, 1, 1), block=(wave * waves, 1, 1), wave_size=wave, vgprs=16,
                         mode=mode))
    return machine


def test_refused_batch_in_a_run_retries_wave_by_wave_at_its_pc(run_calls):
    """A semantic that refuses its batch of three waves inside a run (MODE asks f32 results
    rounded toward +infinity, which the emulator does not model for v_sqrt_f32 and refuses) makes
    the machine retry that instruction wave by wave at its own PC, as a single step does: the
    first wave's error, naming the same PC, in every mode."""
    from dsl.operands import lit, v
    from emu.machine import EmuError

    def build(ns):
        return [ns["v_mov_b32"](v[1], lit(0x3F800000)),
                ns["v_lshrrev_b32"](v[3], 5, v[0]),
                ns["v_mov_b32"](v[2], 3),
                ns["v_sqrt_f32"](v[4], v[1]),
                ns["v_mov_b32"](v[5], 7)]
    messages = []
    for options in (FAST, REFERENCE, options_from(off=["compiled_runs"])):
        with pytest.raises(EmuError) as error:
            _launch_waves(build, options, mode=0x3F1)
        messages.append(str(error.value))
    assert run_calls[0] > 0
    assert messages[0] == messages[1] == messages[2], messages
    assert "V_SQRT_F32" in messages[0].upper() and "PC 0x" in messages[0] and "FP_ROUND" in messages[0], messages[0]


def test_vopd_pairs_in_a_run_read_before_either_half_writes(run_calls):
    """VOPD pairs are compiled steps inside a run (switch compiled_pairs): the Y half reads a
    register the X half writes, and sees its value from before the pair, as in reference mode
    and with the switch off; the f32 halves checked against numpy."""
    from dsl.operands import lit, v

    def build(ns):
        return [ns["v_cvt_f32_u32"](v[5], v[0]),                      # lane as f32
                ns["v_mov_b32"](v[7], lit(0x3FC00000)),                  # 1.5
                ns["v_mov_b32"](v[10], v[5]),
                ns["vopd"](ns["v_dual_mov_b32"](v[10], v[7]), ns["v_dual_mov_b32"](v[11], v[10])),
                ns["vopd"](ns["v_dual_mul_f32"](v[12], v[5], v[7]), ns["v_dual_add_f32"](v[13], v[7], v[5])),
                ns["v_add_nc_u32"](v[14], v[11], 1)]
    fast = _run("gfx1100", 32, build, FAST)
    assert run_calls[0] > 0
    reference = _run("gfx1100", 32, build, REFERENCE)
    without = _run("gfx1100", 32, build, options_from(off=["compiled_pairs"]))
    np.testing.assert_array_equal(fast, reference)
    np.testing.assert_array_equal(fast, without)
    lane = np.arange(32, dtype=np.float32)
    np.testing.assert_array_equal(fast[10].view(np.float32), np.float32(1.5))
    np.testing.assert_array_equal(fast[11].view(np.float32), lane)         # v10 before the pair
    np.testing.assert_array_equal(fast[12].view(np.float32), lane * np.float32(1.5))
    np.testing.assert_array_equal(fast[13].view(np.float32), lane + np.float32(1.5))
    np.testing.assert_array_equal(fast[14], lane.view(np.uint32) + 1)


def test_compiled_pair_is_taken(monkeypatch):
    """The VOPD pair above is compiled (a test of compiled pairs that none reaches proves
    nothing): with the switch on, compile_step returns a step for it; off, False."""
    m = machine_module
    made = []
    compile_step = m._Chunk.compile_step

    def recording(self, p):
        step = compile_step(self, p)
        made.append((p.second is not None, bool(step)))
        return step
    monkeypatch.setattr(m._Chunk, "compile_step", recording)
    from dsl.operands import v

    def build(ns):
        return [ns["vopd"](ns["v_dual_mov_b32"](v[10], v[0]), ns["v_dual_mul_f32"](v[11], v[1], v[2]))]
    _run("gfx1100", 32, build, FAST)
    assert (True, True) in made
    made.clear()
    _run("gfx1100", 32, build, options_from(off=["compiled_pairs"]))
    assert (True, False) in made and (True, True) not in made

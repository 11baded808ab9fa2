"""The timing recorder's stream table (emu/timing/recorder.py): waves get equal stream
numbers exactly when they executed equal PC sequences, with the shortcut for batches of
consecutive waves on and off, against the plain per-wave streams."""
from __future__ import annotations

import numpy as np
import pytest


def _check(rec, total):
    plain = [tuple(s.tolist()) for s in rec.streams(total)]
    for by_ranges in (True, False):
        ids, streams = rec.stream_table(total, by_ranges=by_ranges)
        assert len(ids) == total
        for w in range(total):
            assert tuple(streams[ids[w]].tolist()) == plain[w]
        # equal numbers exactly for equal sequences: as many numbers as distinct sequences
        assert len(set(ids.tolist())) == len(set(plain)) == len(streams)


def test_consecutive_batches():
    from emu.timing import Recorder
    rec = Recorder()
    rec.step(0, np.arange(0, 8), 0)           # chunk of waves 0..7
    rec.step(4, np.arange(0, 8), 0)
    rec.step(0, np.arange(0, 8), 8)           # a second chunk running the same code: waves 8..15
    rec.step(4, np.arange(0, 8), 8)
    rec.step(8, np.arange(0, 4), 8)           # waves 8..11 run one more instruction
    rec.step(12, np.arange(0, 16), 0)
    _check(rec, 16)
    ids, _ = rec.stream_table(16)
    assert len(set(ids[:8].tolist())) == 1 and ids[0] == ids[12] and ids[0] != ids[8]


@pytest.mark.parametrize("seed", range(5))
def test_divergent_batches(seed):
    """Random subsets of waves per batch (divergence): the hashed, confirmed path."""
    from emu.timing import Recorder
    rng = np.random.default_rng(seed)
    rec = Recorder()
    total = 40
    for _ in range(60):
        waves = np.flatnonzero(rng.random(total) < 0.7)
        if len(waves):
            rec.step(int(rng.integers(0, 3)) * 4, waves, 0)
    _check(rec, total)


def test_hash_collision_falls_back_to_exact_rows(monkeypatch):
    """With a hash that cannot tell streams apart, the row comparison still separates them."""
    import emu.timing.recorder as recorder
    from emu.timing import Recorder
    monkeypatch.setattr(recorder, "_HASH_WEIGHTS", np.zeros(4096, np.uint64))
    rec = Recorder()
    rec.step(0, np.array([0, 2]), 0)
    rec.step(4, np.array([1, 3]), 0)
    rec.step(8, np.arange(4), 0)
    _check(rec, 4)


def test_timed_launch_same_with_shortcut_off(monkeypatch):
    """A timed launch reports the same cycles, waves and per-PC stalls with the consecutive
    batch shortcut turned off."""
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.demo import build_saxpy
    from runtime.writer import from_dsl_kernel
    import emu.timing.recorder as recorder
    n, block = 256 * 96 * 6 + 100, 256
    hsaco = from_dsl_kernel(build_saxpy("gfx1100"), "saxpy",
                            [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
                             KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")],
                            user_sgpr_kernarg_segment_ptr=1)
    dev = Device("emu")
    x = np.ones(n, np.float32)
    xb, yb = dev.alloc(x.nbytes).copyin(x), dev.alloc(x.nbytes).copyin(x)
    prg = dev.load(hsaco)

    def launch():
        rep = prg.launch("saxpy", (-(-n // block), 1, 1), (block, 1, 1), [xb, yb, np.float32(2.5), np.uint32(n)],
                         timing=True).timing
        return (rep.cycles, [(w.name, w.simd, w.start, w.end, tuple(w.issue)) for w in rep.waves],
                {pc: (s.hits, dict(s.stalls)) for pc, s in rep.per_pc.items()})
    fast = launch()
    plain = recorder.Recorder.stream_table
    monkeypatch.setattr(recorder.Recorder, "stream_table", lambda self, total: plain(self, total, by_ranges=False))
    assert launch() == fast


@pytest.mark.parametrize("target, wave_size, waves", [("gfx1100", 32, 6), ("gfx1151", 32, 6), ("gfx1102", 32, 4),
                                                     ("gfx1150", 32, 4), ("gfx1100", 64, 3), ("gfx1102", 64, 2)])
def test_vgpr_occupancy_follows_the_device_vgpr_file(target, wave_size, waves):
    """256 VGPRs per wave: 6 wave32 waves per SIMD on the devices with 1536 wave32 VGPRs per
    SIMD lane (gfx1100, gfx1101, gfx1151: LLVM's FeatureGFX11FullVGPRs), 4 on those with
    1024; a wave64 VGPR holds 64 lanes, two wave32 ones' worth: 3 and 2 wave64 waves."""
    import isa
    from emu.timing.arch import timing_for
    from emu.timing.model import resident_per_simd
    vgpr_file = isa.traits(target).vgpr_file(target, wave_size)
    assert resident_per_simd(timing_for(target), 256, 0, 4, vgpr_file) == waves

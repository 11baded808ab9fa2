"""Cycle-approximate timing model (issue 19): predicts the cycle at which every instruction
of every wave issues and why it waited, from the instruction streams the functional
emulator executed. See emu/timing/README.md."""
from __future__ import annotations

from .arch import TABLE, ArchTiming, TimingError, timing_for
from .engine import CAUSES, Engine, WaveSpec, WaveTiming
from .recorder import Recorder
from .report import TimingReport


def run_timed(machine, dispatch, params: ArchTiming | None = None):
    """Run `dispatch` on `machine` functionally while recording each wave's PCs, then time
    it; returns the machine's Stats with `.timing` set. The machine's results are those of
    an untimed run (the recorder only reads PCs, wave indices and memory addresses)."""
    from .model import time_launch
    if machine.recorder is not None:
        raise TimingError("the machine is already recording a timed launch")
    recorder = Recorder((params or timing_for(machine.arch)).lds_banks)
    machine.recorder = recorder
    machine.memory.observer = recorder.touch        # the cache lines of each global access
    try:
        stats = machine.run(dispatch)
    finally:
        machine.recorder = None
        machine.memory.observer = None
    stats.timing = time_launch(machine, dispatch, recorder, params)
    return stats


__all__ = ["ArchTiming", "CAUSES", "Engine", "Recorder", "TABLE", "TimingError", "TimingReport", "WaveSpec",
           "WaveTiming", "run_timed", "timing_for"]

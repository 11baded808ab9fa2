"""Differential runs of the emulator: one launch in two EmuOptions modes (emu/options.py),
compared bit for bit: every byte of device memory, the final registers of the waves (SGPRs,
VGPRs, SCC, PC, MODE, STATUS of the last chunk of work-groups, or of the chunk an error
stopped, with its LDS) and the fault, if any.
Used by tests/test_emu_reference.py (the kernel corpus) and the random-program fuzzer
(tests/emu_fuzz.py)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from emu.machine import EmuError


@dataclass
class Outcome:
    memory: np.ndarray                      # the device memory's bytes after the launch
    registers: dict = field(default_factory=dict)     # name -> array (final state of the last chunk)
    fault: str | None = None                # "ErrorType: message" when the launch raised an EmuError
    instructions: int = 0                   # wave-instructions the launch issued


def run_outcome(machine, launch) -> Outcome:
    """Call launch() (which runs one dispatch on `machine`) and record what it left behind."""
    fault, instructions = None, 0
    machine.spare_state = None          # registers of this launch only, not a stale earlier one
    try:
        stats = launch()
        instructions = stats.instructions
    except EmuError as e:
        fault = f"{type(e).__name__}: {e}"
    registers = {}
    # an error leaves the registers of the chunk it stopped (emu/README.md, "Faults")
    st = machine.spare_state if fault is None else machine.stopped.st if machine.stopped is not None else None
    if st is not None:
        st.settle_vgprs(None)           # stale registers of a reused state read as the zeros they are
        registers = {"sgpr": st.sgpr.copy(), "vgpr": st.vgpr.copy(), "scc": st.scc.copy(), "pc": st.pc.copy(),
                     "mode": st.mode.copy(), "status": st.status.copy()}
        if fault is not None:
            registers["lds"] = machine.stopped.lds.copy()
    return Outcome(machine.memory.data.copy(), registers, fault, instructions)


def differences(fast: Outcome, ref: Outcome, names=("fast", "reference")) -> list[str]:
    """What differs between two outcomes, each item naming the first differing place."""
    out = []
    if fast.fault != ref.fault:
        out.append(f"fault: {names[0]}: {fast.fault!r}; {names[1]}: {ref.fault!r}")
    if fast.memory.shape != ref.memory.shape:
        out.append(f"memory size {fast.memory.size} vs {ref.memory.size}")
    else:
        bad = np.flatnonzero(fast.memory != ref.memory)
        if bad.size:
            out.append(f"memory: {bad.size} bytes differ, first at arena offset {bad[0]}: "
                       f"{fast.memory[bad[0]]:#x} vs {ref.memory[bad[0]]:#x}")
    for name in sorted(set(fast.registers) | set(ref.registers)):
        a, b = fast.registers.get(name), ref.registers.get(name)
        if a is None or b is None or a.shape != b.shape:
            out.append(f"{name}: only one run has it, or shapes differ")
            continue
        bad = np.argwhere(a != b)
        if bad.size:
            where = tuple(int(i) for i in bad[0])
            out.append(f"{name}: {len(bad)} elements differ, first {where}: {int(a[where]):#x} vs {int(b[where]):#x}")
    return out

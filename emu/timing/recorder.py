"""The functional machine's side of timing: while a launch runs with timing on, the machine
calls `Recorder.step(pc, waves, first_wave)` once per batch (one instruction over a batch of
waves); afterwards `streams()` gives every wave's PCs in execution order. The machine's
results do not depend on it: it only reads the PC and the batch's wave indices."""
from __future__ import annotations

import numpy as np


class Recorder:
    def __init__(self):
        self.pcs: list[int] = []
        self.batches: list = []
        self.offsets: list[int] = []

    def step(self, pc: int, waves, first_wave: int) -> None:
        self.pcs.append(pc)
        self.batches.append(waves)
        self.offsets.append(first_wave)

    def streams(self, total_waves: int) -> list[np.ndarray]:
        """PCs of each wave (global wave index) in the order it executed them."""
        if not self.pcs:
            return [np.zeros(0, np.int64) for _ in range(total_waves)]
        counts = np.fromiter((len(b) for b in self.batches), np.int64, len(self.batches))
        waves = np.concatenate([np.asarray(b, np.int64) + off for b, off in zip(self.batches, self.offsets)])
        pcs = np.repeat(np.asarray(self.pcs, np.int64), counts)
        order = np.argsort(waves, kind="stable")       # steps are in time order: stable keeps each wave's order
        waves, pcs = waves[order], pcs[order]
        bounds = np.searchsorted(waves, np.arange(total_waves + 1))
        return [pcs[bounds[i]:bounds[i + 1]] for i in range(total_waves)]

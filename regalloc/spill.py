"""Which virtual registers to spill when more values are live than the file holds.

The rewrite itself (reload before each instruction that reads the value, store after each
that writes it, into a short-lived temporary) is dsl/'s, which knows the instructions:
VGPRs go to scratch memory, SGPRs to lanes of a VGPR (v_writelane / v_readlane), as LLVM
does. Here: pick values to spill so the pressure, with the temporaries the rewrite adds at
each instruction that touches a spilled value, stays within the limit. A value read or
written by the instruction where the pressure peaks cannot relieve it (its temporary is
live there), so candidates are the values live across that point; the one with the longest
live range per reference goes first (fewest reloads for the registers freed)."""
from __future__ import annotations

import numpy as np

from .liveness import analyze
from .program import Program


class SpillError(ValueError):
    """Spilling cannot bring the pressure within the limit."""


def choose_spills(prog: Program, file: str, limit: int, registers: int | None = None,
                  cheap: frozenset[int] = frozenset()) -> list[int]:
    """Virtual ids of `file` to spill so that at most `limit` registers are live at once
    (`registers`: the file size for physical registers the program names). Values in
    `cheap` (constants the rewrite recomputes instead of storing) go first."""
    lv = analyze(prog, file, registers or limit)
    if lv.peak <= limit:
        return []
    n_points = 2 * len(prog.instrs) + 2
    pressure = np.zeros(n_points + 1, np.int64)
    for ivs in lv.intervals:
        for s, e in ivs:
            pressure[s] += 1
            pressure[e] -= 1
    pressure = np.cumsum(pressure)
    refs: dict[int, list[int]] = {}
    at: list[set[int]] = []
    for i, ins in enumerate(prog.instrs):
        here = {r.reg for r in ins.uses + ins.defs if r.file == file and r.virtual}
        at.append(here)
        for vid in here:
            refs.setdefault(vid, []).append(i)
    ranges: dict[int, list[tuple[int, int]]] = {}
    for vid, first in lv.unit_of.items():
        for o in range(prog.virtuals[vid].width):
            for s, e in lv.intervals[first + o]:
                ranges.setdefault(vid, []).append((s, e))
    chosen: list[int] = []
    while True:
        point = int(pressure.argmax())
        if pressure[point] <= limit:
            return chosen
        i = min(point // 2, len(prog.instrs) - 1)
        live = [vid for vid, rs in ranges.items() if vid not in chosen and vid not in at[i]
                and any(s <= point < e for s, e in rs)]
        if not live:
            raise SpillError(f"{prog.where(i)}: {int(pressure[point])} {file.upper()}GPRs are live and the "
                             f"instruction itself reads or writes more than {limit} of them; spilling cannot help")

        def worth(vid: int) -> float:
            return sum(e - s for s, e in ranges[vid]) / (1 + len(refs.get(vid, ())))
        vid = max(live, key=lambda v: (v in cheap, worth(v)))
        chosen.append(vid)
        for s, e in ranges[vid]:
            pressure[s:e] -= 1
        width = prog.virtuals[vid].width
        for j in refs.get(vid, ()):
            pressure[2 * j:2 * j + 2] += width          # the temporary around the instruction

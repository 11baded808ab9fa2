"""Liveness of one register file over the control-flow graph, as live intervals.

Every dword of a virtual register and every physical register the program names is a
*unit*; sets of units are Python ints used as bitsets. Instruction i has two program
points: 2i (its sources are read; what is live into it) and 2i+1 (its results are written;
what it defines plus what is live out of it). A unit occupies a register over the points
where it is live; two units may share a register iff their point sets are disjoint.

A unit counts as live only where it may already hold a value (forward "maybe defined"
analysis): a value read before it is ever written carries nothing worth keeping, which is
what lets a tuple be filled part by part. Physical registers are defined at entry (the
ABI sets them) and so stay live from entry to their last read.

VGPRs are per lane: a write under a partial EXEC mask changes only the active lanes and the
others keep their old value. Which lanes are active is not known here, so the rule is
structural (`_lane_partial`): a VGPR write also uses the old value when a later read of it
may run under a different EXEC (an EXEC write lies between) or reads lanes outside EXEC
(cross-lane instructions). Values written and read under one EXEC, and every value of a
program that never writes EXEC, keep the per-wave meaning and cost what they did."""
from __future__ import annotations

import numpy as np

from isa.records import dataclass

from .program import Program, Ref, blocks

VECTOR_FILES = ("v", "a")      # VGPRs and AGPRs hold one value per lane


def bits(mask: int):
    """Indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass
class Liveness:
    file: str
    unit_of: dict[int, int]          # virtual id (of this file) -> its first unit
    phys_base: int                   # unit of physical register 0
    intervals: list[list[tuple[int, int]]]   # per unit: sorted, disjoint [start, end) point ranges
    peak: int                        # most units live at one point
    peak_point: int                  # a point where that happens (-1 if nothing is ever live)

    def unit(self, ref: Ref) -> int:
        return self.unit_of[ref.reg] + ref.offset if ref.virtual else self.phys_base + ref.reg

    def live_at(self, point: int) -> list[int]:
        return [u for u, ivs in enumerate(self.intervals) if any(s <= point < e for s, e in ivs)]


def _mask(lv_unit, refs, file: str) -> int:
    m = 0
    for r in refs:
        if r.file == file:
            m |= ((1 << r.count) - 1) << lv_unit(r)
    return m


def _lane_partial(prog: Program, uses: list[int], defs: list[int], spans, succs) -> dict[int, int]:
    """instruction -> VGPR units it writes whose old value a later read may still need in
    lanes this write does not cover.

    Backward dataflow over two bitsets: L (live: some later read needs the unit) and D
    (some later read may run under a different EXEC than here: an EXEC write lies between,
    or the read is cross-lane -- v_readlane, DPP -- and may see any lane). A write kills a
    unit only if it is not in D; otherwise it is partial (it also uses the old value). This
    is exact for straight-line code and conservative across EXEC changes: a value written
    in a divergent loop and read after it, or written on both sides of an if/else, keeps
    its other lanes; a temporary written and read under one EXEC costs nothing extra."""
    exec_w = [ins.writes_exec for ins in prog.instrs]
    cross = [ins.reads_all_lanes for ins in prog.instrs]
    if not any(exec_w) and not any(cross):
        return {}
    n_blocks = len(spans)
    live_in, div_in = [0] * n_blocks, [0] * n_blocks

    def walk(b: int, live: int, div: int, partial: dict | None):
        s, e = spans[b]
        for i in range(e - 1, s - 1, -1):
            if exec_w[i]:
                div |= live
            d = defs[i]
            if d:
                p = d & div
                if p and partial is not None:
                    partial[i] = p
                kill = d & ~uses[i] & ~div
                live &= ~kill
            u = uses[i]
            live |= u
            if cross[i]:
                div |= u
        return live, div

    changed = True
    while changed:
        changed = False
        for b in range(n_blocks - 1, -1, -1):
            live = div = 0
            for t in succs[b]:
                live |= live_in[t]
                div |= div_in[t]
            live, div = walk(b, live, div, None)
            if live != live_in[b] or div != div_in[b]:
                live_in[b], div_in[b], changed = live, div, True
    partial: dict[int, int] = {}
    for b in range(n_blocks):
        live = div = 0
        for t in succs[b]:
            live |= live_in[t]
            div |= div_in[t]
        walk(b, live, div, partial)
    return partial


def analyze(prog: Program, file: str, registers: int) -> Liveness:
    """Live intervals of every unit of `file` ('v', 'a' or 's') in `prog`."""
    unit_of: dict[int, int] = {}
    n_units = 0
    for vid, vr in enumerate(prog.virtuals):
        if vr.file == file:
            unit_of[vid] = n_units
            n_units += vr.width
    phys_base = n_units
    phys_top = registers
    for ins in prog.instrs:
        for r in ins.uses + ins.defs:
            if r.file == file and not r.virtual:
                phys_top = max(phys_top, r.reg + r.count)
    n_units += phys_top
    lv = Liveness(file, unit_of, phys_base, [[] for _ in range(n_units)], 0, -1)

    uses, defs = [], []
    for ins in prog.instrs:
        uses.append(_mask(lv.unit, ins.uses, file))
        defs.append(_mask(lv.unit, ins.defs, file))

    spans, succs = blocks(prog)
    preds = [[] for _ in spans]
    for b, ss in enumerate(succs):
        for s in ss:
            preds[s].append(b)
    if file in VECTOR_FILES:      # per-lane files: a write under a partial EXEC keeps other lanes
        for i, partial in _lane_partial(prog, uses, defs, spans, succs).items():
            uses[i] |= partial
    kills = [d & ~u for d, u in zip(defs, uses)]   # a write that keeps part of the old value is also a use
    gen, killed, wrote, touched_in = [], [], [], []
    for s, e in spans:
        g = k = w = t = 0
        for i in range(e - 1, s - 1, -1):
            g = (g & ~kills[i]) | uses[i]
            k |= kills[i]
            w |= defs[i]
            t |= uses[i]
        gen.append(g)
        killed.append(k)
        wrote.append(w)
        touched_in.append(t | w)

    # forward: which units may hold a value at each block entry
    physical = ((1 << phys_top) - 1) << phys_base
    def_in = [0] * len(spans)
    changed = True
    while changed:
        changed = False
        for b in range(len(spans)):
            new = (physical if b == 0 else 0)
            for p in preds[b]:
                new |= def_in[p] | wrote[p]
            if new != def_in[b]:
                def_in[b], changed = new, True

    # backward: live at block exit
    live_in = [0] * len(spans)
    live_out = [0] * len(spans)
    changed = True
    while changed:
        changed = False
        for b in range(len(spans) - 1, -1, -1):
            out = 0
            for s in succs[b]:
                out |= live_in[s]
            new_in = gen[b] | (out & ~killed[b])
            live_out[b] = out
            if new_in != live_in[b]:
                live_in[b], changed = new_in, True

    ivs = lv.intervals
    # Units live through a whole block without being read or written in it (most of the
    # long-lived values in a big kernel) are handled as runs over consecutive blocks; the
    # instruction walk below only follows the units the block touches.
    running, run_start = 0, {}
    for b, (s, e) in enumerate(spans):
        touched = touched_in[b]
        through = live_out[b] & ~touched & def_in[b]
        for x in bits(running & ~through):
            ivs[x].append((run_start.pop(x), 2 * s))
        for x in bits(through & ~running):
            run_start[x] = 2 * s
        running = through
        live = live_out[b] & touched
        ends = {u: 2 * e for u in bits(live)}
        for i in range(e - 1, s - 1, -1):
            d, u, k = defs[i], uses[i], kills[i]
            for x in bits(d & ~live):          # written but never read: occupies its write point
                ends[x] = 2 * i + 2
            live |= d
            for x in bits(k):
                ivs[x].append((2 * i + 1, ends.pop(x)))
            live &= ~k
            for x in bits(u & ~live):
                ends[x] = 2 * i + 1
            live |= u
        undefined = live & ~def_in[b]
        first_def = {}
        if undefined:
            for i in range(s, e):
                for x in bits(defs[i] & undefined):
                    first_def.setdefault(x, 2 * i + 1)
        for x, end in ends.items():
            start = first_def.get(x, end) if undefined >> x & 1 else 2 * s
            if start < end:
                ivs[x].append((start, end))
    for x in bits(running):
        ivs[x].append((run_start.pop(x), 2 * len(prog.instrs)))

    for x, lst in enumerate(ivs):
        if len(lst) > 1:
            lst.sort()
            merged = [lst[0]]
            for a, c in lst[1:]:
                if a <= merged[-1][1]:
                    if c > merged[-1][1]:
                        merged[-1] = (merged[-1][0], c)
                else:
                    merged.append((a, c))
            ivs[x] = merged

    flat = [iv for lst in ivs for iv in lst]
    if flat:
        arr = np.array(flat, dtype=np.int64)
        delta = np.zeros(2 * len(prog.instrs) + 2, dtype=np.int64)
        np.add.at(delta, arr[:, 0], 1)
        np.add.at(delta, arr[:, 1], -1)
        pressure = np.cumsum(delta)
        lv.peak_point = int(pressure.argmax())
        lv.peak = int(pressure[lv.peak_point])
    return lv

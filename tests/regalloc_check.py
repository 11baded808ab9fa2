"""An independent checker for register allocations, written without regalloc's liveness.

`verify(prog, alloc)` follows the *physical* program: a forward dataflow over single
instructions tracks, for every physical register, which values (virtual dwords, or the
register's own entry value) it may hold. Every read of a virtual dword that is defined on
all paths must find exactly that dword's value in its register; every read of a physical
register must find its own value (nothing clobbered it). It also checks alignment, the
register-file bounds and the VOPD pairing rules on the final registers.

Per lane: `exec_masks[i]` (optional) is the set of abstract lanes active at instruction i,
as a bit mask (e.g. 0b01 for the then-side of an EXEC-masked if, 0b10 for the else-side,
0b11 outside). A VGPR write changes only the active lanes' content and a VGPR read is checked
in each active lane where the value is defined on every path; SGPRs are per wave (lane 0).
Without masks every instruction runs one lane, i.e. per-wave semantics.

`lower_bound(prog, registers)` recomputes, one unit at a time with plain booleans, which
dwords are live and possibly defined at each point, and returns the most live at once."""
from __future__ import annotations

import numpy as np

from regalloc import Allocation, Program, Ref


def successors(prog: Program, i: int) -> list[int]:
    ins = prog.instrs[i]
    out = []
    if ins.falls_through and i + 1 < len(prog.instrs):
        out.append(i + 1)
    if ins.target is not None and ins.target < len(prog.instrs):
        out.append(ins.target)
    return out


def _dwords(ref: Ref):
    return [(ref.file, ref.reg, ref.offset + k, ref.virtual) for k in range(ref.count)]


def _lanes(ref: Ref, mask: int) -> list[int]:
    """Lanes an access of `ref` touches under EXEC `mask`: VGPRs per lane, SGPRs per wave."""
    return [j for j in range(mask.bit_length()) if mask >> j & 1] if ref.file == "v" else [0]


def _must_defined(prog: Program, masks: list[int]) -> list[set]:
    """(virtual dword, lane) pairs written on every path to each instruction (intersection dataflow)."""
    n = len(prog.instrs)
    top = max(masks, default=1)
    everything = {(f, r, o, lane) for i in prog.instrs for ref in i.defs for f, r, o, virt in _dwords(ref) if virt
                  for lane in _lanes(ref, (1 << top.bit_length()) - 1)}
    state = [None] * n
    state[0] = set()
    work = [0]
    while work:
        i = work.pop()
        out = state[i] | {(f, r, o, lane) for ref in prog.instrs[i].defs for f, r, o, v in _dwords(ref) if v
                          for lane in _lanes(ref, masks[i])}
        for j in successors(prog, i):
            new = out if state[j] is None else state[j] & out
            if state[j] is None or new != state[j]:
                state[j] = set(new)
                work.append(j)
    return [s if s is not None else set(everything) for s in state]


def verify(prog: Program, alloc: Allocation, exec_masks: list[int] | None = None) -> dict:
    """Raise AssertionError on a wrong allocation; returns counts of what was checked."""
    masks = exec_masks or [1] * len(prog.instrs)
    lim = alloc.limits
    for i, ins in enumerate(prog.instrs):
        for ref in ins.uses + ins.defs:
            r = alloc.physical(ref, i)
            assert 0 <= r and r + ref.count <= lim.limit(ref.file), f"{prog.where(i)}: {ref} -> {r} out of the file"
            a = lim.alignment(ref.file, ref.count)
            assert r % a == 0, f"{prog.where(i)}: {ref} placed at {ref.file}{r}, needs alignment {a}"
        for a, b, m in ins.distinct_mod:
            assert (alloc.physical(a, i) - alloc.physical(b, i)) % m, f"{prog.where(i)}: pairing rule mod {m} broken"

    must = _must_defined(prog, masks)
    n = len(prog.instrs)
    state: list[dict | None] = [None] * n      # (file, phys reg, lane) -> frozenset of value tags; absent = entry value
    state[0] = {}
    work = [0]
    checked = skipped = 0
    visits = 0
    while work:
        i = work.pop()
        visits += 1
        assert visits < 200 * n + 1000, "checker did not converge"
        cur = state[i]
        ins = prog.instrs[i]
        out = dict(cur)
        for ref in ins.defs:
            for k, (f, reg, off, virt) in enumerate(_dwords(ref)):
                for lane in _lanes(ref, masks[i]):
                    out[(f, alloc.physical(ref, i) + k, lane)] = frozenset([(f, reg, off) if virt else ("entry", f, reg + off)])
        for j in successors(prog, i):
            if state[j] is None:
                state[j], changed = dict(out), True
            else:
                changed = False
                for key in set(state[j]) | set(out):
                    mine = out.get(key, frozenset([("entry",) + key[:2]]))
                    theirs = state[j].get(key, frozenset([("entry",) + key[:2]]))
                    if not mine <= theirs:
                        state[j][key] = theirs | mine
                        changed = True
            if changed:
                work.append(j)
    for i, ins in enumerate(prog.instrs):
        if state[i] is None:
            continue      # unreachable
        for ref in ins.uses:
            for k, (f, reg, off, virt) in enumerate(_dwords(ref)):
                for lane in _lanes(ref, masks[i]):
                    key = (f, alloc.physical(ref, i) + k, lane)
                    held = state[i].get(key, frozenset([("entry",) + key[:2]]))
                    want = (f, reg, off) if virt else ("entry", f, reg + off)
                    if virt and (f, reg, off, lane) not in must[i]:
                        skipped += 1      # read before written on some path: any content is acceptable
                        continue
                    assert held == {want}, (f"{prog.where(i)}: lane {lane} reads {want} from {f}{key[1]}, which "
                                            f"may hold {sorted(map(str, held))}")
                    checked += 1
    return {"reads_checked": checked, "reads_of_undefined": skipped}


def lower_bound(prog: Program, file: str) -> int:
    """Most dwords of `file` live (and possibly defined) at one program point. Units are
    virtual dwords and the physical registers the program names; a per-instruction
    dataflow with one boolean per unit (numpy vectors across units)."""
    n = len(prog.instrs)
    units = sorted({(r, o, v) for ins in prog.instrs for ref in ins.uses + ins.defs if ref.file == file
                    for _, r, o, v in _dwords(ref)})
    index = {u: j for j, u in enumerate(units)}
    use = np.zeros((n, len(units)), bool)
    wr = np.zeros((n, len(units)), bool)
    for i, ins in enumerate(prog.instrs):
        for refs, table in ((ins.uses, use), (ins.defs, wr)):
            for ref in refs:
                if ref.file == file:
                    for _, r, o, v in _dwords(ref):
                        table[i, index[(r, o, v)]] = True
    kill = wr & ~use
    succ = [successors(prog, i) for i in range(n)]
    preds = [[] for _ in range(n)]
    for i in range(n):
        for j in succ[i]:
            preds[j].append(i)
    physical = np.array([not u[2] for u in units], bool)     # the ABI's values are there at entry
    defined = np.zeros_like(use)          # maybe written before instruction i
    live_in = np.zeros_like(use)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            new = physical.copy() if i == 0 else np.zeros(len(units), bool)
            for p in preds[i]:
                new |= defined[p] | wr[p]
            if (new != defined[i]).any():
                defined[i], changed = new, True
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            out = np.zeros(len(units), bool)
            for j in succ[i]:
                out |= live_in[j]
            new = use[i] | (out & ~kill[i])
            if (new != live_in[i]).any():
                live_in[i], changed = new, True
    best = 0
    for i in range(n):
        out = np.zeros(len(units), bool)
        for j in succ[i]:
            out |= live_in[j]
        best = max(best, int((live_in[i] & defined[i]).sum()), int((wr[i] | (out & (defined[i] | wr[i]))).sum()))
    return best

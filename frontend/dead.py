"""`drop_dead(kernel)`: ALU instructions whose results nothing reads are removed after
instruction selection, before s_waitcnt and register allocation.

Selection emits each value's instructions when the IR computes it, in the form later uses
usually want (an f16 rounded and widened back to f32 after an op); a use that takes another
form (a store of the rounded bits) can leave such an instruction unread. An instruction goes
when it is VALU or SALU (no memory, branch or EXEC write), writes only virtual registers, and
no other instruction reads any of them (an instruction that writes part of a register reads
the rest: that read alone does not keep it); removing one can make its sources' writers dead
in turn."""
from __future__ import annotations

from collections import Counter

ALU_FORMATS = {"VOP1", "VOP2", "VOP3", "VOP3P", "VOPC", "SOP1", "SOP2", "SOPK"}


def drop_dead(k) -> int:
    """Remove dead ALU instructions from kernel `k` in place; returns how many."""
    prog = k.program()
    uses, defs, removable = [], [], []
    for inst, ins in zip(k.items, prog.instrs):
        d = inst.record.definition if inst.record is not None else None
        written = {r.reg for r in ins.defs if r.virtual}
        uses.append({r.reg for r in ins.uses if r.virtual} - written)
        defs.append(written)
        removable.append(d is not None and d.format in ALU_FORMATS and bool(ins.defs)
                         and all(r.virtual for r in ins.defs) and ins.target is None
                         and ins.falls_through and not ins.writes_exec)
    readers = Counter(v for u in uses for v in u)
    dead: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i in range(len(k.items) - 1, -1, -1):
            if removable[i] and i not in dead and not any(readers[v] for v in defs[i]):
                dead.add(i)
                changed = True
                readers.subtract(uses[i])
    if not dead:
        return 0
    new_index, items = [], []
    for i, inst in enumerate(k.items):
        new_index.append(len(items))
        if i not in dead:
            items.append(inst)
    new_index.append(len(items))
    k.items[:] = items
    for name, idx in list(k.labels.items()):
        k.labels[name] = new_index[idx]
    return len(dead)

"""s_waitcnt insertion from a counter model, on a dsl.Kernel before register allocation.

Memory instructions return their data asynchronously; a counter per kind counts those
still outstanding. The model (RDNA3 ISA 5.x "Data dependency resolution"):
- VM_CNT: vector memory loads (GLOBAL/FLAT/MUBUF/MTBUF/SCRATCH with a result); they
  return in issue order, so waiting for one load is `vmcnt(number of loads issued after it)`.
- LGKM_CNT: LDS (DS) in issue order, and scalar memory (SMEM) in any order: waiting for an
  SMEM result, or for a DS result while SMEM is outstanding behind it, needs an exact count
  of the DS operations issued after it (SMEM may finish in any order, so it is never counted).
- VS_CNT: vector memory stores; waited for only before s_barrier (other waves may read).
A wait is inserted right before the first instruction that reads or overwrites a register
a pending load writes (per dword), with the largest count that still covers it. Before a
branch, at a label reached by falling through, and before s_barrier everything is waited
for (a simple, safe join of the control-flow paths).

A load whose result is never read needs no wait here: the allocator keeps its registers
taken until some wait covers it (dsl/inflight.py)."""
from __future__ import annotations

from isa.control import Control, control
from isa.records import dataclass

# Most dwords loads may have in flight: the registers of a load in flight cannot be spilled
# (the data may arrive any time until a wait), so more of them than the file holds would leave
# the allocator no way out. Before a load that would exceed the bound, a wait: for all SMEM
# (any order), for the oldest vector loads (in order) until the rest fit. About a third of the
# SGPR file (106) and half of the VGPRs (256), leaving room for the values around them.
SMEM_IN_FLIGHT = 32
VMEM_IN_FLIGHT = 128


@dataclass
class Pending:
    counter: str          # 'vm' or 'lgkm'
    smem: bool
    dwords: frozenset


def counted(fmt: str, roles) -> str | None:
    """Which counter a format's results are counted by, from the family's format roles
    (isa.traits): 'vm' for vector memory (FLAT and its GLOBAL/SCRATCH segments, buffers),
    'smem' or 'lds' (both LGKM_CNT), None for the rest. The frontend emits no image loads."""
    if fmt in roles.flat or fmt in roles.buffer:
        return "vm"
    return "smem" if fmt in roles.smem else "lds" if fmt in roles.lds else None


def _keys(refs):
    return {(r.file, r.virtual, r.reg, r.offset + j) for r in refs for j in range(r.count)}


def insert_waitcnt(k) -> dict:
    """Insert s_waitcnt instructions into kernel `k` in place; returns counts for statistics."""
    r = _namespace(k)
    prog = k.program()
    n = len(k.items)
    label_at = {}
    for name, idx in k.labels.items():
        label_at.setdefault(idx, []).append(name)
    fields = {name: (hi, lo) for name, hi, lo in k.spec.tables["waitcnt"]}
    roles = k.spec.traits.roles

    def imm(vm=None, lgkm=None):
        value = 0
        for key, (hi, lo) in fields.items():
            width = hi - lo + 1
            want = {"VM": vm, "LGKM": lgkm}.get(key)
            value |= ((1 << width) - 1 if want is None else min(want, (1 << width) - 1)) << lo
        return value

    pending: list[Pending] = []
    stores = lds_writes = 0
    items, labels = [], {}
    stats = {"waits": 0, "full": 0}

    def wait(vm=None, lgkm=None, vs=False):
        nonlocal stores, lds_writes
        if vm is not None or lgkm is not None:
            items.append(r.s_waitcnt(imm(vm, lgkm)))
            if lgkm == 0:
                lds_writes = 0
            stats["waits"] += 1
            pending[:] = _after_wait(pending, vm, lgkm)
        if vs and stores:
            items.append(r.s_waitcnt_vscnt(r.null, 0))
            stores = 0

    def flush(vs=False):
        # At a join, entries without result registers (LDS stores) need no wait: the counts
        # of later loads only count what issues after them. Before s_barrier (vs=True) they
        # must be complete, for other waves to see them.
        nonlocal lds_writes
        pending[:] = [p for p in pending if p.dwords]
        lgkm = any(p.counter == "lgkm" for p in pending) or (vs and lds_writes)
        if pending or lgkm:
            stats["full"] += 1
            wait(0 if any(p.counter == "vm" for p in pending) else None, 0 if lgkm else None)
        if vs:
            wait(vs=True)

    for i, inst in enumerate(k.items):
        ins = prog.instrs[i]
        d = inst.record.definition
        flow = control(d, k.spec.tables) if d is not None else Control()
        if i in label_at:
            flush()
            for lab in label_at[i]:
                labels[lab] = len(items)
        if flow.is_wait:
            pending.clear()
        elif flow.barrier:
            flush(vs=True)
        elif ins.target is not None or not ins.falls_through:
            if not flow.ends_wave:
                flush()
        touched = _keys(ins.uses) | _keys(ins.defs)
        vm_need = lgkm_need = None
        vm_q = [p for p in pending if p.counter == "vm"]
        lg_q = [p for p in pending if p.counter == "lgkm"]
        for j, p in enumerate(vm_q):
            if p.dwords & touched:
                vm_need = len(vm_q) - 1 - j
        for j, p in enumerate(lg_q):
            if p.dwords & touched:
                younger_ds = sum(1 for x in lg_q[j + 1:] if not x.smem)
                c = 0 if p.smem else younger_ds
                lgkm_need = c if lgkm_need is None else min(lgkm_need, c)
        kind = counted(d.format, roles) if d is not None else None
        if kind == "smem" and ins.defs and lgkm_need != 0 and \
                sum(len(p.dwords) for p in lg_q if p.smem) + len(_keys(ins.defs)) > SMEM_IN_FLIGHT:
            lgkm_need = 0
        if kind == "vm" and ins.defs:
            sizes = [len(p.dwords) for p in vm_q]
            keep, total = len(sizes), sum(sizes) + len(_keys(ins.defs))
            while keep and total > VMEM_IN_FLIGHT:
                total -= sizes[len(sizes) - keep]
                keep -= 1
            if keep < len(sizes):
                vm_need = keep if vm_need is None else min(vm_need, keep)
        if vm_need is not None or lgkm_need is not None:
            wait(vm_need, lgkm_need)
        items.append(inst)
        if kind is not None:
            defs = _keys(ins.defs)
            if kind == "vm" and not defs:
                stores += 1
            elif kind == "lds" and not defs:
                lds_writes += 1
                pending.append(Pending("lgkm", False, frozenset()))
            elif defs:
                pending.append(Pending("vm" if kind == "vm" else "lgkm", kind == "smem", frozenset(defs)))
    for idx, names in label_at.items():
        if idx >= n:
            for lab in names:
                labels[lab] = len(items)
    k.items[:] = items
    k.labels.clear()
    k.labels.update(labels)
    return stats


def _after_wait(pending, vm, lgkm):
    """Entries still possibly outstanding after s_waitcnt vmcnt(vm) lgkmcnt(lgkm)."""
    out = []
    vm_q = [p for p in pending if p.counter == "vm"]
    keep_vm = set(map(id, vm_q[len(vm_q) - vm:])) if vm is not None and vm > 0 else (set() if vm is not None else set(map(id, vm_q)))
    lg_q = [p for p in pending if p.counter == "lgkm"]
    if lgkm is None:
        keep_lg = set(map(id, lg_q))
    elif lgkm == 0:
        keep_lg = set()
    else:      # the lgkm youngest DS operations and any SMEM may still be outstanding
        ds = [p for p in lg_q if not p.smem]
        keep_lg = set(map(id, ds[len(ds) - lgkm:])) | {id(p) for p in lg_q if p.smem}
    for p in pending:
        if id(p) in (keep_vm if p.counter == "vm" else keep_lg):
            out.append(p)
    return out


def _namespace(k):
    from .isel import dsl_namespace
    return dsl_namespace(k.arch, k.wave_size)

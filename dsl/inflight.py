"""Which load results may still be arriving: a memory load writes its result registers when
the data returns, any time until an `s_waitcnt` guarantees it has (RDNA3 ISA 5.6 "Data
Dependency Resolution"). Until then its registers must not hold another value, even if the
program never reads the result.

The counters, as the manual describes them:
- VM_CNT: vector memory loads and atomics that return data (GLOBAL, SCRATCH, MUBUF, MTBUF,
  MIMG, FLAT). Their counter decrements in issue order, so `vmcnt(N)` guarantees every such
  load with at least N VM_CNT instructions issued after it.
- LGKM_CNT: LDS (DS) in issue order among themselves; SMEM loads, s_sendmsg_rtn and the LDS
  side of FLAT may return in any order, so only `lgkmcnt(0)` guarantees them. A DS load is
  guaranteed by `lgkmcnt(N)` when at least N DS instructions were issued after it (were it
  outstanding, so would they be, more than N).
- EXP_CNT: LDS parameter/direct loads (LDSDIR); taken as returning in any order (expcnt(0)).
A FLAT load counts on both VM_CNT and LGKM_CNT and is complete when both say so.

RDNA4 splits the counters (RDNA4 ISA 5.x "Dependency Checking", its counter table): LOADcnt
counts vector memory loads in issue order (VSAMPLE's on SAMPLEcnt, BVH's on BVHcnt), DScnt LDS
instructions in order and FLAT's LDS side, KMcnt scalar memory loads and returning messages out
of order; each `s_wait_*cnt` names its counters and their SIMM16 bits in its description
("Wait until LOADCNT is less than or equal to SIMM16[13:8] and DSCNT ... SIMM16[5:0]"), read
here; `s_waitcnt` and `s_wait_idle` wait for every counter to reach zero.

This runs over the control-flow graph: per load, the fewest instructions of each counter
issued after it on any path (a join keeps the minimum), so a wait releases a load only when
it does on every path that reaches it. Counting too few later instructions only keeps
registers longer; an instruction not known to count is never counted. `releases()` says
where each load's registers may be reused: at the wait that guarantees it, or at the end
of the program."""
from __future__ import annotations

from regalloc import Program, Ref, blocks

from isa.control import control
from isa.memory_access import ray_query

ANY_ORDER = -1           # a counter this load may return out of order on: only a wait for 0 covers it
SATURATE = 64            # counters are 6 bits: more younger instructions than this change nothing
# the counters tracked here (isa.control's names): RDNA3/CDNA's three, RDNA4's split ones; VS
# (stores without return) holds no result registers
_COUNTERS = ("VM", "LGKM", "EXP")
_SPLIT_COUNTERS = ("LOAD", "SAMPLE", "BVH", "DS", "KM", "EXP", "STORE")


_FAMILY_COUNTERS: dict[str, frozenset] = {}


def split_counters(spec) -> bool:
    """Does the family wait on RDNA4's separate counters: does some wait of its scalar program
    control (isa.control's waits, from the descriptions and the s_waitcnt table) name LOADcnt?"""
    arch = spec.arch
    if arch not in _FAMILY_COUNTERS:
        salu = spec.traits.roles.salu
        _FAMILY_COUNTERS[arch] = frozenset(c for d in spec.instructions if d.format in salu
                                           for c, _, _ in control(d, spec.tables).waits)
    return "LOAD" in _FAMILY_COUNTERS[arch]


def counters(d, has_result: bool, roles, split: bool = False) -> tuple[dict[str, int], set[str]]:
    """({counter: ANY_ORDER or 0} this instruction's result waits on, counters it increments
    in issue order); `roles`: the family's isa FormatRoles; `split`: RDNA4's counters."""
    if d is None:
        return {}, set()
    fmt = d.format
    if split:
        return _split_counters(d, has_result, roles)
    if fmt in roles.flat or fmt in roles.buffer or fmt in roles.image:
        waits = {"VM": 0}
        if fmt == "FLAT":
            waits["LGKM"] = ANY_ORDER
        return (waits if has_result else {}), ({"VM"} if has_result else set())
    if fmt in roles.lds:
        return ({"LGKM": 0} if has_result else {}), {"LGKM"}
    if fmt in roles.smem or control(d).message_reply:
        return ({"LGKM": ANY_ORDER} if has_result else {}), set()
    if fmt in roles.lds_param:
        return ({"EXP": ANY_ORDER} if has_result else {}), set()
    return {}, set()


def _split_counters(d, has_result: bool, roles) -> tuple[dict[str, int], set[str]]:
    fmt = d.format
    if fmt in roles.flat or fmt in roles.buffer or fmt in roles.image:
        counter = "BVH" if ray_query(d) else "SAMPLE" if fmt == "VSAMPLE" else "LOAD"
        waits = {counter: 0}
        incs = {counter} if has_result else set()
        if fmt == "VFLAT":             # FLAT also counts on DScnt, for its LDS side
            waits["DS"] = ANY_ORDER
            incs.add("DS")
        return (waits if has_result else {}), incs
    if fmt in roles.lds:
        return ({"DS": 0} if has_result else {}), {"DS"}
    if fmt in roles.smem or control(d).message_reply:
        return ({"KM": ANY_ORDER} if has_result else {}), set()
    if fmt in roles.lds_param:
        return ({"EXP": ANY_ORDER} if has_result else {}), set()
    return {}, set()


def wait_counts(inst, spec) -> dict[str, int] | None:
    """{counter: N} an s_waitcnt* / s_wait_* instruction waits for (counters it does not wait
    on left out), or None if it is not one. From the manual's wait fields (isa.control): a
    counter split over several fields (gfx9's VM and VM_HI) is one number, the fields in the
    order the table gives them, low bits first; in s_waitcnt a field of all ones does not wait."""
    d = inst.record.definition if inst.record is not None else None
    if d is None:
        return None
    flow = control(d, spec.tables)
    if not flow.is_wait:
        return None
    tracked = _SPLIT_COUNTERS if split_counters(spec) else _COUNTERS
    if flow.wait_all:
        return {c: 0 for c in tracked}
    waits = [(c, hi, lo) for c, hi, lo in flow.waits if c.removesuffix("_HI") in tracked]
    if not waits:
        return None
    word = int.from_bytes(inst.data[:4], "little")
    simm16 = word & 0xFFFF
    if flow.count_sgpr and spec.formats[d.format].get(word, "SDST") != spec.traits.null:
        return {}            # the count comes from an SGPR: nothing is known to be waited for
    value, width = {}, {}
    for field, hi, lo in waits:
        name, bits = field.removesuffix("_HI"), hi - lo + 1
        value[name] = value.get(name, 0) | ((simm16 >> lo) & ((1 << bits) - 1)) << width.get(name, 0)
        width[name] = width.get(name, 0) + bits
    if not flow.all_ones_skips:
        return value
    return {name: n for name, n in value.items() if n < (1 << width[name]) - 1}


def _covered(younger: int, n: int) -> bool:
    return n == 0 or (younger != ANY_ORDER and younger >= n)


def releases(kernel, prog: Program) -> dict[int, list[Ref]]:
    """{instruction: result refs of loads that are guaranteed complete there (or the program
    ends there) on every path}: where the allocator may reuse their registers."""
    n = len(prog.instrs)
    waits, loads, incs = [], {}, []
    split = split_counters(kernel.spec)
    for i, inst in enumerate(kernel.items):
        d = inst.record.definition if inst.record is not None else None
        w, inc = counters(d, bool(prog.instrs[i].defs), kernel.spec.traits.roles, split)
        if w:
            loads[i] = w
        incs.append(inc)
        waits.append(wait_counts(inst, kernel.spec))
    if not loads:
        return {}
    spans, succs = blocks(prog)
    ends = [not ins.falls_through and ins.target is None or i == n - 1 for i, ins in enumerate(prog.instrs)]

    def walk(b: int, state: dict, out: dict | None) -> dict:
        state = {k: dict(v) for k, v in state.items()}
        s, e = spans[b]
        for i in range(s, e):
            w = waits[i]
            if w:
                for load in list(state):
                    need = state[load]
                    for c in [c for c in need if c in w and _covered(need[c], w[c])]:
                        del need[c]
                    if not need:
                        del state[load]
                        if out is not None:
                            out.setdefault(i, set()).add(load)
            for c in incs[i]:
                for need in state.values():
                    if c in need and need[c] != ANY_ORDER:
                        need[c] = min(need[c] + 1, SATURATE)
            if i in loads:
                state[i] = dict(loads[i])
            if ends[i] and out is not None and state:
                out.setdefault(i, set()).update(state)
        return state

    def merge(a: dict, b: dict) -> dict:
        out = {k: dict(v) for k, v in a.items()}
        for load, need in b.items():
            mine = out.setdefault(load, {})
            for c, y in need.items():
                mine[c] = min(mine[c], y) if c in mine else y
        return out

    preds = [[] for _ in spans]
    for b, ss in enumerate(succs):
        for t in ss:
            preds[t].append(b)
    entry: list[dict] = [{} for _ in spans]
    exit_: list[dict | None] = [None] * len(spans)
    work = list(range(len(spans)))
    while work:
        b = work.pop(0)
        state = {}
        for p in preds[b]:
            if exit_[p] is not None:
                state = merge(state, exit_[p])
        entry[b] = state
        new = walk(b, state, None)
        if new != exit_[b]:
            exit_[b] = new
            work += [t for t in succs[b] if t not in work]
    out: dict[int, set] = {}
    for b in range(len(spans)):
        walk(b, entry[b], out)
    return {i: [r for load in sorted(ls) for r in prog.instrs[load].defs] for i, ls in out.items()}

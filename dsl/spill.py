"""Spill code for a Kernel whose values do not fit the register files.

regalloc.spill.choose_spills() names the virtual registers to spill; `spill_kernel()`
rewrites the kernel so each of them lives in memory and is touched only through a
temporary that is live around one instruction:

- VGPRs go to AGPRs on targets that have them (CDNA's unified file, as LLVM does there):
  `v_accvgpr_read_b32 t, a` before a read, `v_accvgpr_write_b32 a, t` after a write, the AGPRs
  virtual registers of their own the allocator places; VALU moves, so no wait, and per lane
  under EXEC like the scratch store below.
- Elsewhere VGPRs go to scratch (private per-lane memory): `scratch_load_b32 t, off, off offset:S`
  + `s_waitcnt vmcnt(0)` (RDNA4: `s_wait_loadcnt 0`) before an instruction that reads the value, `scratch_store_b32` after one
  that writes it (only the dwords it writes). A store under a partial EXEC writes only the
  active lanes, so the other lanes keep their value in memory: spilled values are right per
  lane whatever EXEC does. Instructions that touch lanes outside EXEC (v_readlane,
  v_writelane, DPP) get their reload/store with EXEC set to all lanes and restored.
- SGPRs go to lanes of a spill VGPR: `v_writelane_b32 vs, t, lane` after a write,
  `v_readlane_b32 t, vs, lane` before a read (both ignore EXEC), as LLVM does.
- Constants are recomputed instead (rematerialisation): a one-dword value whose every write
  is the same move of an immediate (`v_mov_b32 x, 5`, `s_mov_b32 x, 1.0`) loses its writes,
  and that move into the temporary goes before each read (with EXEC set to all lanes for
  instructions that read other lanes). `constants()` names them; the chooser takes them first.

A memory instruction's result is stored only after `s_waitcnt` (the data arrives late)."""
from __future__ import annotations

from dataclasses import field, replace

from isa.effects import effects
from isa.facts import agpr_operands
from isa.records import dataclass

from .allocation import build_program, memory_formats, reads_all_lanes
from .inflight import split_counters
from .operand_records import type_info
from .asm import Call
from .operands import Mod, VReg, exec, exec_lo, off


@dataclass
class SpillReport:
    vgprs: list[str] = field(default_factory=list)     # names of the virtual VGPRs kept in scratch (or AGPRs)
    sgprs: list[str] = field(default_factory=list)     # names of the virtual SGPRs kept in VGPR lanes
    rematerialised: list[str] = field(default_factory=list)   # constants recomputed at each read
    scratch_bytes: int = 0                              # scratch per work-item
    spill_vgprs: int = 0                                # VGPRs holding spilled SGPRs
    agpr_dwords: int = 0                                # AGPR dwords holding spilled VGPRs (CDNA)
    reloads: int = 0
    stores: int = 0

    def __bool__(self) -> bool:
        return bool(self.vgprs or self.sgprs or self.rematerialised)


def one_dword_copy(d) -> bool:
    """Is d a copy of one dword into a VGPR or SGPR: its whole code `D0.b32 = S0.b32` (isa.effects'
    copy), not an AGPR move (isa.facts.agpr_operands: CDNA's v_accvgpr_*)? v_mov_b32, s_mov_b32
    (either encoding)."""
    return (d is not None and bool(d.pcode) and effects(d.pcode).copy
            and type_info(d.operand_types.get("D0"))[0] == 32 and not agpr_operands(d))


def constants(kernel, prog=None) -> dict[int, object]:
    """{virtual id: the Inst that writes it}: one-dword values every write of which is the
    same move of an immediate (no register read, no modifiers), so they can be recomputed."""
    prog = prog or build_program(kernel)
    found: dict[int, object] = {}
    bad: set[int] = set()
    for i, inst in enumerate(kernel.items):
        ins = prog.instrs[i]
        st = inst.instr
        written = {r.reg for r in ins.defs if r.virtual}
        d = inst.record.definition if inst.record is not None else None
        plain = (one_dword_copy(d) and st.dual is None and not st.modifiers and not ins.uses
                 and len(ins.defs) == 1 and ins.defs[0].virtual and ins.defs[0].count == 1
                 and kernel.virtuals[ins.defs[0].reg].width == 1 and len(st.operands) == 2
                 and isinstance(st.operands[1], (int, float)) and not isinstance(st.operands[1], bool)
                 and isinstance(st.operands[0], VReg) and not st.operands[0].half)
        for vid in written:
            if not plain:
                bad.add(vid)
            elif vid in found and (found[vid].instr.mnemonic, found[vid].instr.operands[1]) != \
                    (st.mnemonic, st.operands[1]):
                bad.add(vid)
            else:
                found.setdefault(vid, inst)
    return {vid: inst for vid, inst in found.items() if vid not in bad}


def _rename(v, old: int, new: VReg):
    if isinstance(v, Mod):
        return replace(v, value=_rename(v.value, old, new))
    if isinstance(v, VReg) and v.vid == old:
        return replace(v, vid=new.vid, name=new.name, owner=new.owner)
    if isinstance(v, list):
        return [_rename(x, old, new) for x in v]
    return v


def _named_virtuals(st) -> set[int]:
    out = set()
    def visit(v):
        if isinstance(v, Mod):
            visit(v.value)
        elif isinstance(v, VReg):
            out.add(v.vid)
        elif isinstance(v, list):
            for x in v:
                visit(x)
    for part in (st, st.dual):
        if part is not None:
            for o in part.operands:
                visit(o)
    return out


def _renamed(st, old: int, new: VReg):
    dual = _renamed(st.dual, old, new) if st.dual is not None else None
    return replace(st, operands=tuple(_rename(o, old, new) for o in st.operands), dual=dual)


def spill_kernel(kernel, vgpr_vids, sgpr_vids, ns: dict):
    """(new Kernel, SpillReport): `kernel` with the given virtual registers spilled
    (constants among them recomputed at each read); `ns` is the kernel's instruction
    namespace (kernel.build_namespace or kernel_gfx9.build_namespace)."""
    prog = build_program(kernel)
    remat = {vid: inst for vid, inst in constants(kernel, prog).items() if vid in set(vgpr_vids) | set(sgpr_vids)}
    vgpr_vids = [v for v in vgpr_vids if v not in remat]
    sgpr_vids = [v for v in sgpr_vids if v not in remat]
    out = type(kernel)(kernel.arch, kernel.wave_size, kernel.name)
    out.virtuals = list(kernel.virtuals)
    report = SpillReport()
    exec_reg = exec_lo if kernel.wave_size == 32 else exec
    exec_mov, exec_width = ("s_mov_b32", 1) if kernel.wave_size == 32 else ("s_mov_b64", 2)
    lanes = kernel.wave_size
    to_agprs = kernel.spec.traits.agprs > 0
    memory = memory_formats(kernel.spec.traits.roles)

    slot: dict[int, int] = {}                 # VGPR vid -> scratch byte offset
    acc: dict[int, VReg] = {}                 # VGPR vid -> the virtual AGPRs holding it (CDNA)
    for vid in vgpr_vids:
        if to_agprs:
            acc[vid] = out.areg(kernel.virtuals[vid].width, f"{kernel.virtuals[vid].name}.acc")
            report.agpr_dwords += kernel.virtuals[vid].width
        else:
            slot[vid] = report.scratch_bytes
            report.scratch_bytes += 4 * kernel.virtuals[vid].width
        report.vgprs.append(kernel.virtuals[vid].name)
    lane: dict[int, tuple[VReg, int]] = {}    # SGPR vid -> (spill VGPR, first lane)
    holders: list[VReg] = []
    used = 0
    for vid in sgpr_vids:
        width = kernel.virtuals[vid].width
        if not holders or used + width > lanes:
            holders.append(out.vreg(1, f"sgpr_spill{len(holders)}"))
            used = 0
        lane[vid] = (holders[-1], used)
        used += width
        report.sgprs.append(kernel.virtuals[vid].name)
    report.spill_vgprs = len(holders)
    report.rematerialised = [kernel.virtuals[vid].name for vid in sorted(remat)]

    def emit(inst):
        out.items.append(inst)

    new_index = []
    for i, inst in enumerate(kernel.items):
        new_index.append(len(out.items))
        ins = prog.instrs[i]
        # only the registers the instruction names: a wait's in-flight reads of a load's result
        # (dsl/inflight.py) need no reload, the spilled load waits for its data itself
        named = _named_virtuals(inst.instr)
        spilled = sorted({r.reg for r in ins.uses + ins.defs if r.virtual and r.reg in named
                          and (r.reg in slot or r.reg in acc or r.reg in lane or r.reg in remat)})
        if not spilled:
            emit(inst)
            continue
        if all(vid in remat for vid in spilled) and any(r.virtual and r.reg in remat for r in ins.defs):
            continue             # the move of a recomputed constant: each read makes its own
        d = inst.record.definition if inst.record is not None else None
        wide_lanes = reads_all_lanes(inst.instr, d) or (d is not None and effects(d.pcode).indexed)
        st = inst.instr
        before, after = [], []
        for vid in spilled:
            orig = kernel.virtuals[vid]
            temp = out._virtual(orig.cls, orig.width, f"{orig.name}.{i}")
            st = _renamed(st, vid, temp)
            reads = any(r.virtual and r.reg == vid for r in ins.uses)
            written = sorted({r.offset + k for r in ins.defs if r.virtual and r.reg == vid for k in range(r.count)})
            part = (lambda j, t=temp: t if t.width == 1 else t[j])
            if vid in remat:
                if reads:
                    before.append(type(remat[vid])(_renamed(remat[vid].instr, vid, temp), remat[vid].encoder))
                    report.reloads += 1
                continue
            if vid in acc:
                held = (lambda j, h=acc[vid]: h if h.width == 1 else h[j])
                if reads:
                    before += [ns["v_accvgpr_read_b32"](part(j), held(j)) for j in range(orig.width)]
                    report.reloads += 1
                after += [ns["v_accvgpr_write_b32"](held(j), part(j)) for j in written]
            elif vid in slot:
                if reads:
                    before += [ns["scratch_load_b32"](part(j), off, off, offset=slot[vid] + 4 * j)
                               for j in range(orig.width)]
                    report.reloads += 1
                after += [ns["scratch_store_b32"](off, part(j), off, offset=slot[vid] + 4 * j) for j in written]
            else:
                holder, first = lane[vid]
                if reads:
                    before += [ns["v_readlane_b32"](part(j), holder, first + j) for j in range(orig.width)]
                    report.reloads += 1
                after += [ns["v_writelane_b32"](holder, part(j), first + j) for j in written]
            if written:
                report.stores += 1
        vector = any(vid in slot or vid in acc or (vid in remat and kernel.virtuals[vid].cls == "v")
                     for vid in spilled)
        if before:
            if wide_lanes and vector:
                save = out.sreg(exec_width, f"exec_save.{i}.r")
                before = [ns[exec_mov](save, exec_reg), ns[exec_mov](exec_reg, -1)] + before + \
                         [ns[exec_mov](exec_reg, save)]
            if any(vid in slot for vid in spilled):
                # the one dependency the hardware leaves to the program here (RDNA3 ISA 5.6:
                # loaded data is there only after the wait; 10.8: the store's data VGPRs are
                # protected until read): scratch loads count on VM_CNT alone
                before.append(ns["s_wait_loadcnt"](0) if split_counters(kernel.spec)    # RDNA4's counters
                              else ns["s_waitcnt"](Call("vmcnt", (0,))))
        if after:
            if d is not None and d.format in memory:
                after.insert(0, ns["s_waitcnt"](0))
            if wide_lanes and vector:
                save = out.sreg(exec_width, f"exec_save.{i}.s")
                after = [ns[exec_mov](save, exec_reg), ns[exec_mov](exec_reg, -1)] + after + \
                        [ns[exec_mov](exec_reg, save)]
        for x in before:
            emit(x)
        emit(type(inst)(st, inst.encoder))
        for x in after:
            emit(x)
    new_index.append(len(out.items))
    out.labels = {name: new_index[idx] for name, idx in kernel.labels.items()}
    return out, report

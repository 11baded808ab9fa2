"""What the timing model needs to know about one instruction, read once per PC from the
decoded instruction, the ISA data and the emulator's semantics table:

- its pipe (`Kind`): VALU, SALU, SMEM, VMEM load/store, LDS, branch, wait, ... from the
  format and the semantic's `memory` / `branch` / `control` tags;
- for VALU its occupancy class: transcendental (the pseudocode's transcendental functions on
  a 16/32-bit float), FP64 (an f64 operand type on a non-compare), 64-bit integer/compare
  (a 64-bit operand type), wide multiply (a 64-bit product of 32-bit operands), WMMA;
- the registers it reads and writes (VGPRs, SGPR codes, SCC), from the operand layouts
  dsl.signature gives each format and isa.effects' reads/writes of the pseudocode;
- wait-counter fields (s_waitcnt and the SOPK waits), s_nop length, s_delay_alu.

Registers are keys in one integer space: SGPR operand codes 0..127 as the encoding names them
(VCC_LO 106, M0 125, EXEC_LO 126), SCC 253, VGPR n as 256 + n -- the codes of the families
the emulator runs (isa traits, as emu/wave.py reads them).
"""
from __future__ import annotations

from dsl.signature import ds_layout, flat_layout, scalar_layout, valu_signature, vopd_base
from isa.facts import accumulates
from isa.control import control as isa_control
from isa.effects import effects
from isa.memory_access import value_dwords
from isa.records import dataclass

from ..dialect import SEGMENTS
from ..wave import CODES, SCALAR_CODES

VGPR = CODES.vgpr_base
SCC = CODES.scc
VCC = (CODES.vcc_lo, CODES.vcc_hi)
EXEC = (CODES.exec_lo, CODES.exec_hi)
M0 = CODES.m0
NULL = CODES.null

class Kind:
    VALU, SALU, SMEM, VMEM_LOAD, VMEM_STORE, LDS = "valu", "salu", "smem", "vmem_load", "vmem_store", "lds"
    BRANCH, WAIT, NOP, DELAY, CLAUSE, END, BARRIER, OTHER = ("branch", "wait", "nop", "delay_alu", "clause",
                                                              "end", "barrier", "other")


@dataclass
class OpInfo:
    pc: int
    size: int
    name: str                 # lower-case mnemonic ('v_add_f32', VOPD: 'v_dual_mul_f32+v_dual_add_f32')
    kind: str                 # Kind.*
    valu: str = ""            # VALU occupancy class: 'plain', 'trans', 'fp64', 'int64', 'wide_mul', 'wmma'
    reads: frozenset = frozenset()
    writes: frozenset = frozenset()
    counter: str | None = None    # the wait counter a memory instruction increments: 'vm', 'lgkm', 'vs'
    waits: dict | None = None     # s_waitcnt*: {'vm': n, 'lgkm': n, 'exp': n, 'vs': n} (only counters it waits on)
    nop: int = 0                  # s_nop: extra idle cycles
    conditional: bool = False     # a branch that may fall through
    writes_exec: bool = False
    dual: bool = False            # VOPD
    hwreg: bool = False           # reads or writes a hardware register (s_getreg/s_setreg): waits for the SALU to drain
    mask_reads: frozenset = frozenset()   # SGPRs a VALU op reads as a lane mask (carry-in, select)
    trans: bool = False           # uses the transcendental unit (f16/f32 and f64 exp, log, rcp, rsq, sqrt, sin, cos)
    accumulates: frozenset = frozenset()   # old destination VGPRs an accumulator reads (fed by its own path)
    sgpr_result: bool = False     # a VALU instruction writing an SGPR (compare masks, carry out, readlane)
    wave64: bool = False
    lines: float = 1.0            # vector memory: distinct 128-byte lines per wave (recorded when known)
    lds_extra: float = 0.0        # DS: LDS passes per wave beyond the conflict-free count (bank conflicts, recorded)


def _sgprs(code: int, n: int) -> set[int]:
    if code >= SCALAR_CODES or code == NULL:
        return set()
    return set(range(code, min(code + n, SCALAR_CODES)))


def _vgprs(code: int, n: int) -> set[int]:
    return {VGPR + ((code + i) & 0xFF) for i in range(max(n, 1))}


def _src(code: int, n: int) -> set[int]:
    """A 9-bit source operand code: VGPRs from 256, SGPRs/VCC/EXEC/M0 below 128, SCC 253."""
    if code >= 256:
        return _vgprs(code - 256, n)
    if code == SCC:
        return {SCC}
    return _sgprs(code, n)


def _pseudo_names(pcode: str | None) -> tuple[frozenset, frozenset]:
    e = effects(pcode)          # the generated table's record (code no loaded family has: FactsError)
    return e.reads, e.writes


def _pseudo_matrix(pcode: str | None) -> bool:
    return effects(pcode).matrix


def _pseudo_partial(pcode: str | None) -> frozenset:
    return effects(pcode).partial


def _implicit(names: frozenset, wave64: bool) -> set[int]:
    out = set()
    mask = 2 if wave64 else 1
    if "VCC" in names:
        out |= set(VCC[:mask])
    if "EXEC" in names:
        out |= set(EXEC[:mask])
    if "SCC" in names:
        out.add(SCC)
    if "M0" in names:
        out.add(M0)
    return out


def valu_class(d) -> str:
    """Occupancy class of a VALU instruction from its operand types and pseudocode:
    'fp64' (an f64 value operand, not a compare), 'wide_mul' (a multiply of full 32-bit
    integers, a 64-bit product, 4-bit dot products, multi-dword SADs: the quarter-rate
    path), 'int64' (another 64-bit value operand: shifts, compares), 'trans', 'wmma',
    'plain'."""
    types = d.operand_types
    pcode = d.pcode or ""
    if _pseudo_matrix(pcode):
        return "wmma"           # whole-matrix operands: the matrix core
    fx = effects(pcode)
    lane_mask = bool(fx.lane_bits & {"D0", "EXEC", "VCC"})     # writes a lane mask (D0.u64[laneId] = ...)
    # value operands only: a lane mask (compare result, carry out in VCC) is 64 bits wide in the
    # types but no 64-bit arithmetic
    sizes = {t for k, t in types.items() if t and k in ("D0", "S0", "S1", "S2") and not (k == "D0" and lane_mask)}
    if "f64" in sizes and not lane_mask:
        return "fp64"
    full_mul = fx.full_product     # S0 * S1 as whole 32-bit integers (v_mul_lo_u32, v_mad_u64_u32)
    sliced = [hi for name, typed, hi, _ in fx.uses if name == "D0" and not typed and hi is not None]
    # dot products: one accumulated product per statement; 8 (4-bit elements) run at quarter
    # rate, 4 (bytes) at half rate (discover_ops: v_dot8 4 cycles, v_dot4 2, v_dot2 1)
    products = fx.products
    nibbles = products >= 8
    if full_mul or nibbles or (sliced and max(sliced) >= 32):
        return "wide_mul"
    # 64-bit values (from the types, or the signature's register widths where the pseudocode
    # names no source, e.g. v_cmp_f_f64), and byte dot products: the half-rate path
    wide = any(t.endswith("64") for t in sizes)
    if not wide and d.format in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD"):
        try:
            wide = any(o.dwords == 2 for o in valu_signature(d).srcs)
        except Exception:
            wide = False
    bytes_dot = 4 <= products < 8
    two_results = "S0" in _pseudo_names(pcode)[1]      # v_swap: writes its source too
    if wide or bytes_dot or two_results:
        return "int64"
    if d.format in ("VOP1", "VOP3") and fx.transcendental and sizes <= {"f32", "f16"}:
        return "trans"
    return "plain"


# The manual's counters (isa.control) on the model's: RDNA3's VM, VS, LGKM, EXP; RDNA4's split
# counters (manual Table 26): loads on vm, stores on vs, LDS and scalar memory on the one lgkm
# counter the model keeps
_COUNTERS = {"VM": "vm", "VS": "vs", "LGKM": "lgkm", "EXP": "exp",
             "LOAD": "vm", "STORE": "vs", "DS": "lgkm", "KM": "lgkm"}


class Classifier:
    """OpInfo for decoded instructions of one architecture; `semantics` is the emulator's
    table (emu.table.load_semantics) for the control/branch/memory tags."""

    def __init__(self, spec, semantics, wave64: bool = False):
        import isa
        self.spec, self.semantics, self.wave64 = spec, semantics, wave64
        t = isa.traits(spec.arch)
        self.roles = t.roles
        self.saddr_off = t.saddr_off        # SADDR codes meaning "no SGPR base"
        # register keys are operand codes: the model's constants must be the family's codes
        have = (t.vcc_lo, t.vcc_hi, t.exec_lo, t.exec_hi, t.m0, t.null, t.scc, t.vgpr_base)
        if have != (VCC[0], VCC[1], EXEC[0], EXEC[1], M0, NULL, SCC, VGPR):
            from .arch import TimingError
            raise TimingError(f"{spec.arch}: special operand codes {have} differ from the timing model's")

    def classify(self, inst, pc: int) -> OpInfo:
        d = inst.defs[0]
        fmt = inst.fmt.name
        name = "+".join(x.name.lower() for x in inst.defs)
        info = OpInfo(pc, inst.size, name, Kind.OTHER, wave64=self.wave64)
        sem = self.semantics.get(d) if self.semantics is not None else None
        control = getattr(sem, "control", None)
        f = inst.fields
        reads: set[int] = set()
        writes: set[int] = set()
        p_reads, p_writes = _pseudo_names(d.pcode)
        if control is not None:
            info.kind = {"end": Kind.END, "barrier": Kind.BARRIER, "wait": Kind.WAIT}.get(control, Kind.OTHER)
            flow = isa_control(d, self.spec.tables)
            if control == "wait":
                info.waits = self._waits(flow, f)
            elif flow.nop_bits is not None:
                hi, lo = flow.nop_bits
                info.kind, info.nop = Kind.NOP, (f.get("SIMM16", 0) >> lo) & ((1 << (hi - lo + 1)) - 1)
            elif flow.delay:
                info.kind = Kind.DELAY
            elif flow.clause:
                info.kind = Kind.CLAUSE
        elif fmt in self.roles.salu:
            info.kind = Kind.BRANCH if getattr(sem, "branch", False) else Kind.SALU
            if fmt != "SOPP":
                for op, field, n in scalar_layout(d):
                    if field and field in f:
                        (writes if op == "sdst" else reads).update(_src(f[field], n) if op != "sdst"
                                                                   else _sgprs(f[field], n))
            if fmt == "SOPK" and "SDST" in f and "D0" in p_reads | p_writes:
                target = _sgprs(f["SDST"], 2 if (d.operand_types.get("D0") or "").endswith("64") else 1)
                (writes if "D0" in p_writes else reads).update(target)
            reads |= _implicit(p_reads, self.wave64)
            writes |= _implicit(p_writes, self.wave64)
            # branch conditions read status bits derived from registers: EXECZ from EXEC, VCCZ from VCC
            fx = effects(d.pcode)
            if "EXEC" in fx.status_reads:
                reads |= set(EXEC[:2 if self.wave64 else 1])
            if "VCC" in fx.status_reads:
                reads |= set(VCC[:2 if self.wave64 else 1])
            info.conditional = info.kind == Kind.BRANCH and fx.conditional
            info.hwreg = fx.hwreg
        elif fmt in self.roles.smem:
            info.kind, info.counter = Kind.SMEM, "lgkm"
            reads |= _sgprs(f.get("SBASE", 0) << 1, 2)
            if f.get("SOFFSET", NULL) != NULL:
                reads |= _sgprs(f["SOFFSET"], 1)
            writes |= _sgprs(f.get("SDATA", NULL), value_dwords(d))
        elif fmt in self.roles.valu:
            info.kind = Kind.VALU
            self._valu(inst, info, reads, writes, p_reads, p_writes)
        elif fmt in self.roles.lds:
            info.kind, info.counter = Kind.LDS, "lgkm"
            for op, field, n in ds_layout(d):
                (writes if op == "vdst" else reads).update(_vgprs(f.get(field, 0), n))
            reads |= _implicit(p_reads, self.wave64) & {M0}
        elif fmt in self.roles.flat | self.roles.buffer:
            memory = getattr(sem, "memory", None)
            if fmt in self.roles.buffer:
                n = value_dwords(d)
                reads |= _vgprs(f.get("VADDR", 0), 2) | _sgprs(f.get("SRSRC", 0) << 2, 4) | _sgprs(f.get("SOFFSET", NULL), 1)
                (writes if memory == "load" else reads).update(_vgprs(f.get("VDATA", 0), n))
            else:
                for op, field, n in flat_layout(d, bool(f.get("GLC", 0) or f.get("SC0", 0))):
                    if op == "vaddr" and SEGMENTS.get(fmt) == "global" and f.get("SADDR", NULL) in self.saddr_off:
                        n = 2           # no SGPR base: a 64-bit address in VGPRs
                    if op == "saddr":
                        reads |= _sgprs(f.get(field, NULL), n) if f.get(field, NULL) not in self.saddr_off else set()
                    else:
                        (writes if op == "vdst" else reads).update(_vgprs(f.get(field, 0), n))
            info.kind = Kind.VMEM_LOAD if memory in ("load", "atomic") and writes else Kind.VMEM_STORE
            info.counter = "vm" if info.kind == Kind.VMEM_LOAD else "vs"
        elif fmt in self.roles.image and getattr(sem, "memory", None) is not None:
            # the image instructions the machine runs (emu/image.py): registers by the memory record
            # resolved for the encoding (address VGPRs, T#, data / returned VGPRs)
            from isa.memory_registers import memory_registers
            fields = {**f, **inst.extra}
            read_n, write_n = memory_registers(d, fields, self.spec.traits)
            for side, counts in ((reads, read_n), (writes, write_n)):
                for field, n in counts.items():
                    code = fields[field]
                    side.update(_sgprs(code * 4 if field == "SRSRC" else code, n) if field in ("SRSRC", "RSRC")
                                else _vgprs(code, n))
            info.kind = Kind.VMEM_LOAD if writes else Kind.VMEM_STORE
            info.counter = "vm" if info.kind == Kind.VMEM_LOAD else "vs"
        info.reads, info.writes = frozenset(reads), frozenset(writes)
        info.sgpr_result = info.kind == Kind.VALU and any(r < VGPR for r in writes)
        info.writes_exec = bool(set(EXEC) & writes)
        return info

    def _waits(self, flow, f) -> dict:
        """The counters an s_waitcnt* / s_wait_* waits on and their thresholds, from the manual's
        fields (isa.control): in s_waitcnt a field of all ones does not wait; a counter split over
        several fields (CDNA's VM and VM_HI) is one number, low bits first; the count of RDNA3's
        SOPK waits is SIMM16 (plus an SGPR that is NULL in practice)."""
        if flow.wait_all:       # s_wait_idle (RDNA4's s_waitcnt too): everything outstanding
            return {"vm": 0, "lgkm": 0, "vs": 0}
        simm = f.get("SIMM16", 0)
        value, width = {}, {}
        for counter, hi, lo in flow.waits:
            key = _COUNTERS.get(counter.removesuffix("_HI"))
            if key is None:     # sample / BVH counters: image work the model does not time
                continue
            bits = hi - lo + 1
            value[key] = value.get(key, 0) | ((simm >> lo) & ((1 << bits) - 1)) << width.get(key, 0)
            width[key] = width.get(key, 0) + bits
        if not flow.all_ones_skips:
            return value
        return {key: n for key, n in value.items() if n != (1 << width[key]) - 1}

    def _valu(self, inst, info: OpInfo, reads, writes, p_reads, p_writes) -> None:
        f, fmt = inst.fields, inst.fmt.name
        mask = 2 if self.wave64 else 1
        if fmt in self.roles.vopd:
            info.dual, info.valu = True, "plain"
            for half, (src0, vsrc1, vdst) in zip(inst.defs, (("SRCX0", "VSRCX1", "VDSTX"), ("SRCY0", "VSRCY1", "VDSTY"))):
                r, w = _pseudo_names(vopd_base(self.spec, half).pcode)
                reads |= _src(f.get(src0, 0), 1) | (_vgprs(f[vsrc1], 1) if "S1" in r else set())
                vd = f[vdst] if vdst == "VDSTX" else (f[vdst] << 1) | ((f["VDSTX"] & 1) ^ 1)
                writes |= _vgprs(vd, 1)
                # accumulates into its destination: the base's code reads D0 (v_fmac), or the VOPD
                # entry does (isa.facts.accumulates: its code, or where it has none, RDNA3's
                # v_dual_dot2acc, its description: "The initial value in D is used as S2")
                if "D0" in r or accumulates(half):
                    reads |= _vgprs(vd, 1)
            return
        d = inst.defs[0]
        base = vopd_base(self.spec, d) if fmt not in self.roles.interp else d
        info.valu = valu_class(base)
        info.trans = info.valu == "trans" or (info.valu == "fp64" and fmt in ("VOP1", "VOP3")
                                              and effects(base.pcode).transcendental)
        if fmt in self.roles.interp:
            for field in ("SRC0", "SRC1", "SRC2"):
                reads |= _src(f.get(field, 0), 1)
            writes |= _vgprs(f.get("VDST", 0), 1)
            return
        sig = valu_signature(vopd_base(self.spec, d))
        srcs = [s for s in sig.srcs if not s.is_mask]
        e32 = fmt in self.roles.valu_e32
        codes = [f.get("SRC0", 0)] + ([f["VSRC1"] + 256] if "VSRC1" in f else []) if e32 \
            else [f.get("SRC0", 0), f.get("SRC1", 0), f.get("SRC2", 0)][:max(len(srcs), 1)]
        for i, code in enumerate(codes):
            n = srcs[i].regs(64 if self.wave64 else 32) if i < len(srcs) else 1
            reads |= _src(code & ~0x80 if e32 and code >= 256 and
                          srcs and i < len(srcs) and srcs[i].t16 else code, n)
        if inst.literal is not None:
            reads.discard(CODES.literal)
        if sig.vcc_in:
            masks = _src(f.get("SRC2", 0), mask) if fmt in ("VOP3SD", "VOP3") else set(VCC[:mask])
            reads |= masks
            info.mask_reads = frozenset(masks)
        if sig.is_cmpx:
            writes |= set(EXEC[:mask])
        elif sig.is_cmp:
            writes |= set(VCC[:mask]) if fmt == "VOPC" else _sgprs(f.get("VDST", NULL), mask)
        else:
            for dst in sig.dsts:
                if dst.sgpr:
                    writes |= _sgprs(f.get("VDST", NULL), dst.regs(64 if self.wave64 else 32))
                elif dst.name == "vdst":
                    writes |= _vgprs(f.get("VDST", 0) & (0x7F if dst.t16 and e32 else 0xFF),
                                     dst.dwords or 1)
        if sig.vcc_out:
            writes |= _sgprs(f["SDST"], mask) if "SDST" in f else set(VCC[:mask])
        if sig.reads_dst or "D0" in p_reads:
            info.accumulates = frozenset(r for r in writes if r >= VGPR and r not in reads)
        reads |= _implicit(p_reads - {"VCC"}, self.wave64) & ({M0} | set(EXEC) | {SCC})
        if "EXEC" in p_reads and sig.is_cmpx:
            pass

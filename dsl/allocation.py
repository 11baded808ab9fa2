"""The bridge between Kernel and regalloc/: which registers each instruction reads and
writes, control flow, VOPD pairing rules -> regalloc.Program; the allocation -> physical
instructions.

Which operand is read or written comes from one place: the encoder itself. A
RecordingEncoder notes every register operand as the encoder places it (its operand name,
register and InstrDef), so the walk over operands is the encoder's and cannot drift from
it. The operand's role then follows from its name and the instruction's pseudocode
(D0 assigned, D0 read back, a conditional or partial write, a 16-bit half, a D16 load)."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from isa.control import control
from isa.effects import effects, half_result, instruction_effects
from isa.memory_access import memory_access
from isa.records import dataclass
from regalloc import Program, Ref, Step, Virtual, blocks

from .instr import Instr
from .encode import Encoder
from .inflight import releases
from .operands import Agpr, Mod, OperandError, Reg, VReg
from .signature import valu_signature, vopd_base

RESULT_NAMES = {"vdst", "sdst", "sdata"}    # operands that hold a result unless the pseudocode says otherwise


@dataclass(frozen=True)
class Noted:
    """One register operand as the encoder placed it."""
    what: str         # the encoder's operand name: vdst, src0, addr, sbase, ...
    reg: Reg
    definition: object   # InstrDef


@dataclass
class Record:
    definition: object            # InstrDef of the encoding chosen
    noted: list[Noted]
    vopd: tuple | None = None     # (X InstrDef, X noted, Y InstrDef, Y noted) for a dual-issue pair
    keeps_result: bool = False    # the encoding puts the result in part of its VGPR and keeps the rest
    #                               (gfx9 SDWA: a DST_SEL other than DWORD with UNUSED_PRESERVE)


class RecordingEncoder(Encoder):
    """The encoder, noting every register operand of the encoding it settles on."""

    def encode(self, st):
        self._noted, self._vopd, self._def = [], None, None
        out = super().encode(st)
        self.record = Record(self._def, self._noted, self._vopd)
        return out

    def select(self, st):
        self._noted, self._vopd, self._def = [], None, None
        out = super().select(st)
        self.record = Record(self._def, self._noted, self._vopd)
        return out

    def encode_one(self, d, st, enc):
        self._noted, self._def = [], d     # a fresh list per candidate encoding
        return super().encode_one(d, st, enc)

    def encode_vopd(self, st):
        # Virtual destinations are placeholders (v0); give them the parity the encoder checks
        # (one even, one odd), which the allocator then enforces for the real registers.
        dx, dy = st.operands[0], st.dual.operands[0]
        if isinstance(dy, VReg) and isinstance(dx, Reg):
            st = replace(st, dual=replace(st.dual, operands=(replace(dy, idx=(dx.idx + 1) % 2),) + st.dual.operands[1:]))
        elif isinstance(dx, VReg) and isinstance(dy, Reg):
            st = replace(st, operands=(replace(dx, idx=(dy.idx + 1) % 2),) + st.operands[1:])
        out = super().encode_vopd(st)
        cut = next(i for i, n in enumerate(self._noted) if i and n.what == "vdst")
        dx, dy = (next(x for x in self.spec.lookup(p.mnemonic) if x.format == "VOPD" and x.slot == slot)
                  for p, slot in ((st, "X"), (st.dual, "Y")))
        # each half's operands take their roles from the VOP1/VOP2 instruction it performs
        base_x, base_y = vopd_base(self.spec, dx), vopd_base(self.spec, dy)
        nx = [replace(n, definition=base_x) for n in self._noted[:cut]]
        ny = [replace(n, definition=base_y) for n in self._noted[cut:]]
        self._vopd = (dx, nx, dy, ny)
        self._noted = nx + ny
        self._def = dx
        return out

    def _note(self, v, what, F):
        if isinstance(v, Mod):
            v = v.value
        if isinstance(v, Reg):
            self._noted.append(Noted(what, v, F.d))

    def src_code(self, v, op, F, what, **kw):
        inner = v.value if isinstance(v, Mod) else v
        if isinstance(inner, Reg) and inner.cls == "v":   # SGPRs are noted by sreg_code
            self._note(inner, what, F)
        return super().src_code(v, op, F, what, **kw)

    def sreg_code(self, v, F, what, n=1):
        self._note(v, what, F)
        return super().sreg_code(v, F, what, n)

    def vgpr(self, v, F, what, n=1, half=False):
        self._note(v, what, F)
        return super().vgpr(v, F, what, n, half)


# ---------------------------------------------------------------- roles from the pseudocode

@lru_cache(maxsize=None)
def _result_role(d) -> tuple[bool, bool]:
    """(reads, writes) of the result operand (vdst/sdst) of a non-memory instruction, from
    the instruction's effects on D0 (isa.effects.instruction_effects: a write on every path is
    full, any other write also keeps the old value, so it reads it; so does a 16-bit result that
    keeps the other half of its VGPR, isa.effects.half_result)."""
    if not d.pcode:
        return half_result(d) == "kept", True
    e = instruction_effects(d)
    if "D0" not in e.writes:
        # SOPK compares and s_setreg name their one register sdst but only read it (S0)
        return True, False
    return "D0" in e.reads, True


def _carry_role(d) -> tuple[bool, bool]:
    """(reads, writes) of a VOP3SD sdst: the carry/VCC-like second result (VCC or D1 in the
    pseudocode)."""
    e = effects(d.pcode or "")
    written = {"VCC", "D1"} & e.writes
    if not written:
        return True, True               # not understood: keep whatever it held
    return bool(written & e.partial), True


def memory_formats(roles) -> frozenset:
    """Formats whose result arrives later (loads; LDS parameter loads too)."""
    return roles.memory | roles.lds_param


def role(n: Noted, glc: bool, roles) -> tuple[bool, bool]:
    """(reads, writes) of one noted operand; `roles`: the family's isa FormatRoles."""
    d = n.definition
    if n.what == "mdst":     # a matrix instruction's D (MFMA: D = A * B + C) is written whole
        return False, True
    if n.what == "msrc2":
        # MFMA's C: D must be C itself or not overlap it (C is read over several passes while D
        # is written; LLVM refuses a partial overlap), so C stays taken at D's write point
        return True, True
    if n.what in RESULT_NAMES:
        if d.format in roles.memory or d.format in roles.lds_param:
            # D16 loads keep the other half of the register
            return memory_access(d, d.format in roles.image).d16, True
        return _carry_role(d) if (n.what == "sdst" and d.format == "VOP3SD") else _result_role(d)
    if n.what == "vdata" and (d.format in roles.buffer or d.format in roles.image):
        # a buffer load's, or an image load's, sample's, gather's or ray query's data is its result
        access = memory_access(d, d.format in roles.image)
        if access.direction == "load":
            return access.d16, True
        return True, access.direction == "atomic" and glc
    return True, False


# ---------------------------------------------------------------- Kernel -> Program

def returns_data(modifiers: dict) -> bool:
    """Does an atomic return the old value: RDNA3's glc, RDNA4's th with its return bit (bit 0:
    TH_ATOMIC_RETURN, TH_ATOMIC_NT_RETURN)?"""
    th = modifiers.get("th")
    if isinstance(th, int):
        return bool(th & 1)
    return bool(modifiers.get("glc")) or "RETURN" in getattr(th, "name", "")


def _ref(reg: Reg) -> Ref | None:
    if isinstance(reg, VReg):
        return Ref(reg.cls, reg.vid, reg.offset, reg.count, True)
    if reg.cls in ("v", "s", "a"):       # "a": an AGPR (operands.Agpr) on CDNA
        return Ref(reg.cls, reg.idx, 0, reg.count, False)
    return None      # trap temporaries are not the allocator's


def _virtuals_in(values) -> list[VReg]:
    out = []
    for v in values:
        if isinstance(v, Mod):
            v = v.value
        if isinstance(v, VReg):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out += _virtuals_in(v)
    return out


def check_virtuals_noted(st: Instr, record: Record):
    """Every virtual register in the instruction must be one the encoder placed as a register
    operand: otherwise its liveness would be unknown."""
    def key(v):
        return v.vid, v.offset, v.count, v.half

    noted = {key(n.reg) for n in record.noted + (record.vopd[1] + record.vopd[3] if record.vopd else [])
             if isinstance(n.reg, VReg)}
    parts = [st] + ([st.dual] if st.dual else [])
    for part in parts:
        for v in _virtuals_in(part.operands):
            if key(v) not in noted:
                raise OperandError(f"{part.mnemonic}: a virtual register ({v}) cannot be used in this operand; "
                                   f"use a physical register here")


def _vopd_rules(spec, record: Record) -> tuple:
    """VOPD register pairing (RDNA3 ISA 7.6 Dual Issue VALU): destinations one even one odd;
    SRC0s (when both VGPRs) in different banks (register mod 4); VSRC1s in different banks;
    when both halves read the SRC2 port (v_fmac's accumulator, FMAMK's second input) one
    even and one odd."""
    dx, nx, dy, ny = record.vopd
    ports = []
    for d, noted in ((dx, nx), (dy, ny)):
        sig = valu_signature(vopd_base(spec, d))
        by = {n.what: _ref(n.reg) for n in noted if n.reg.cls == "v"}
        port = {"vdst": by.get("vdst"), "src0": by.get("src0"), "src1": by.get("vsrc1"), "src2": None}
        if sig.k_pos == 1:                  # fma(S0, K, S1): S1 is the addend, read through SRC2
            port["src2"], port["src1"] = port["src1"], None
        if sig.reads_dst:
            port["src2"] = port["vdst"]
        ports.append(port)
    rules = []
    for key, m in (("vdst", 2), ("src0", 4), ("src1", 4), ("src2", 2)):
        a, b = ports[0][key], ports[1][key]
        if a is not None and b is not None:
            rules.append((a, b, m))
    return tuple(rules)


_DPP_MODIFIERS = {"quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror", "row_share",
                  "row_xmask", "dpp8", "row_bcast15", "row_bcast31", "wave_shl", "wave_shr", "wave_rol", "wave_ror",
                  "row_bcast", "row_newbcast", "dpp_ctrl"}      # the last three: gfx9's spellings


def writes_exec(st: Instr, d, roles) -> bool:
    """Does the instruction change the active lanes: its pseudocode assigns EXEC
    (s_and_saveexec, v_cmpx) or its result operand is exec (s_xor_b32 exec_lo, ...)?"""
    if d is None:
        return False
    if "EXEC" in effects(d.pcode or "").writes:
        return True
    first = st.operands[0] if st.operands else None
    return (getattr(first, "name", "").startswith("exec") and d.format not in memory_formats(roles)
            and "D0" in effects(d.pcode or "").writes)


def reads_all_lanes(st: Instr, d) -> bool:
    """Does the instruction read VGPRs in lanes other than the active ones: v_readlane,
    v_permlane*, LDS permutes and swizzles (the pseudocode's effects: VGPR[lane], thread_in[j]),
    DPP (a lane reads its neighbours, inactive ones with fi)?"""
    if d is None:
        return False
    if effects(d.pcode or "").cross_lane or "DPP" in d.format or st.mnemonic.endswith("_dpp"):
        return True
    return any(m in _DPP_MODIFIERS for m in st.modifiers)


def build_program(kernel) -> Program:
    """regalloc.Program of a Kernel's instructions (virtual and physical registers)."""
    prog = Program(virtuals=[Virtual(v.cls, v.width, v.name) for v in kernel.virtuals])
    roles = kernel.spec.traits.roles
    halves = False               # any 16-bit half of a virtual VGPR written (_paired_halves)
    for i, inst in enumerate(kernel.items):
        rec: Record = inst.record
        glc = getattr(inst, "glc", None)       # the gfx9 DSL reads it off its encoding (sc0 on CDNA3)
        glc = returns_data(inst.instr.modifiers) if glc is None else glc
        uses, defs = [], []
        noted = rec.noted if rec.vopd is None else rec.vopd[1] + rec.vopd[3]
        for n in noted:
            halves = halves or (n.what == "vdst" and bool(n.reg.half) and isinstance(n.reg, VReg))
            ref = _ref(n.reg)
            if ref is None:
                continue
            reads, writes = role(n, glc, roles)
            reads = reads or (n.what == "vdst" and rec.keeps_result)
            if reads:
                uses.append(ref)
            if writes:
                defs.append(ref)
        d = rec.definition
        e = inst.instr.effects if inst.instr.defn is not None else effects(None)
        target = kernel.labels.get(inst.label) if inst.label is not None else None
        if inst.label is not None and target is None:
            raise OperandError(f"{inst.instr.mnemonic}: undefined label {inst.label!r}")
        ends = d is not None and control(d).ends_wave
        copy = None
        if (e.copy and len(uses) == 1 and len(defs) == 1 and not inst.instr.modifiers
                and uses[0].file == defs[0].file and uses[0].count == defs[0].count
                and not any(n.reg.half for n in noted) and not any(isinstance(o, Mod) for o in inst.instr.operands)):
            copy = (defs[0], uses[0])
        prog.instrs.append(Step(tuple(uses), tuple(defs), target,
                                 not (ends or e.jump), str(inst.instr),
                                 copy, _vopd_rules(kernel.spec, rec) if rec.vopd else (),
                                 writes_exec(inst.instr, d, roles), reads_all_lanes(inst.instr, d)))
    if halves:
        _paired_halves(kernel, prog)
    # A load writes its result when the data arrives, not when it issues: its registers stay
    # taken until a wait guarantees the data is there (inflight.py), so no other value is
    # placed where late data would land.
    for i, refs in releases(kernel, prog).items():
        prog.instrs[i].uses += tuple(refs)
    return prog


def _paired_halves(kernel, prog: Program):
    """A write of one 16-bit half of a VGPR (`x.l` / `x.h`) that keeps the other half
    (isa.effects.half_result 'kept') reads the old value. When the next reference to that register, in the same block with EXEC unchanged,
    is a write of the other half, the two together replace the whole register: the first
    one's read of the old value is dropped (it could only keep a half the second overwrites)."""
    spans, _ = blocks(prog)
    for s, e in spans:
        last: dict[tuple[int, int], tuple[int, str | None, int]] = {}   # dword -> (instr, pure half written, EXEC epoch)
        epoch = 0
        for i in range(s, e):
            rec = kernel.items[i].record
            noted = rec.noted if rec.vopd is None else rec.vopd[1] + rec.vopd[3]
            halves, others = {}, set()
            for n in noted:
                if not isinstance(n.reg, VReg):
                    continue
                key = (n.reg.vid, n.reg.offset)
                if (n.what == "vdst" and n.reg.half and n.reg.count == 1 and key not in halves
                        and half_result(n.definition) == "kept"):
                    halves[key] = n.reg.half
                else:
                    others.update((n.reg.vid, n.reg.offset + j) for j in range(n.reg.count))
            for key, half in halves.items():
                prev = last.get(key)
                if prev and key not in others and prev[1] not in (None, half) and prev[2] == epoch:
                    p = prog.instrs[prev[0]]
                    p.uses = tuple(r for r in p.uses
                                   if not (r.virtual and r.reg == key[0] and r.offset <= key[1] < r.offset + r.count))
            for key in others:
                last[key] = (i, None, epoch)
            for key, half in halves.items():
                last[key] = (i, None if key in others else half, epoch)
            if prog.instrs[i].writes_exec:
                epoch += 1


# ---------------------------------------------------------------- allocation -> physical instructions

def _physical(v, alloc, i: int):
    if isinstance(v, Mod):
        return replace(v, value=_physical(v.value, alloc, i))
    if isinstance(v, VReg):
        if v.cls == "a":
            return Agpr(alloc.register(v.vid, v.offset, i), v.count)
        return Reg(v.cls, alloc.register(v.vid, v.offset, i), v.count, v.half)
    if isinstance(v, list):
        return [_physical(x, alloc, i) for x in v]
    return v


def physical_instr(st: Instr, alloc, i: int) -> Instr:
    """Instruction `i` with every virtual register replaced by its physical one under
    `alloc` (a regalloc.Allocation: a value's live ranges may sit in different registers)."""
    dual = physical_instr(st.dual, alloc, i) if st.dual is not None else None
    return replace(st, operands=tuple(_physical(o, alloc, i) for o in st.operands), dual=dual)

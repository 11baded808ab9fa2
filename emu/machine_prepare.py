"""Per-instruction preparation: how each format's fields become semantic inputs and where
each semantic output is written back.

`prepare(...)` runs once per PC (the machine caches it) and returns a `Prepared`:
`inputs` maps contract names (S0, D0, ADDR, DATA, ...) to readers `f(state, sel)` and
`writers` maps output names to `f(state, sel, value, active)`. Widths and types come from
dsl.signature (VALU operands, scalar/DS/FLAT layouts) and from the semantic's own
`reads`/`writes`; nothing is listed per instruction.
"""
from __future__ import annotations

from dataclasses import field

import numpy as np

from dsl.operand_records import scalar_bits, type_info, vopd_base
from isa.fact_types import LDS_DATA_NAMES
from isa.records import dataclass

from .dialect import SEGMENTS, immediate_offset
from . import facts as instruction_facts
from .facts import scalar_layout, valu_signature
from .machine_operands import OperandError, SourceCodes, constant, modifiers, uniform
from .memory import SplitAddresses
from .options import FAST, EmuOptions, current
from .semantics import SemanticsError
from .wave import EXEC_LO, SCALAR_CODES, VCC_LO, VGPR_BASE, split_dwords

OMOD = {1: 2.0, 2: 4.0, 3: 0.5}
FLOAT = {16: (np.float16, np.uint16), 32: (np.float32, np.uint32), 64: (np.float64, np.uint64)}


# pseudocode that adds the DS instruction offset itself (RDNA3.5: MEM[ADDR + OFFSET.u32];
# CDNA3: addr = CalcDsAddr(ADDR.b32, OFFSET0.b32, OFFSET1.b32), or (ADDR.b32, 0x0, 0x0) then addr + OFFSET.u32)
# (RDNA4's CalcDsAddr(vgpr_a.b32, offset.b32) is the address with the offset: the translator
# reads it as ADDR; its CalcDsAddr(vgpr_a.b32, 0x0) is ADDR_BASE)
_NO_BASE = np.zeros((1, 1), np.uint64)      # DS ADDR_BASE: the address VGPR alone (read-only: shared)
_NO_BASE.flags.writeable = False


def _ds_address_facts(reg: int):
    """(st, sel) -> the dict of facts about address VGPR `reg` in the waves `sel` (its bounds,
    alignment, LDS element indices: memory.SplitAddresses.facts), kept in st.stride_memo while
    the register's write count and the batch's waves are unchanged, so that a loop's DS
    accesses through one address register compute them once (EmuOptions.ds_address_memo).
    One entry per register: another count or batch replaces it."""
    def facts(st, sel):
        waves = (sel.start, sel.stop) if isinstance(sel, slice) else np.asarray(sel).tobytes()
        key, count = ("ds", reg), st.vgpr_written.counts[reg]
        kept = st.stride_memo.get(key)
        if kept is None or kept[0] != count or kept[1] != waves:
            kept = st.stride_memo[key] = (count, waves, {})
        return kept[2]
    return facts


class PrepareError(Exception):
    """The machine cannot run this instruction (no semantics, an operand it cannot route)."""


@dataclass
class Prepared:
    """An instruction at a PC made ready to run: its semantic, how to read its inputs and write its results."""
    pc: int
    inst: object                  # dsl.decode.Instruction
    sem: object                   # emu.semantics.Semantic (VOPD: the X half)
    scalar: bool
    memory: str | None = None     # 'global', 'lds', 'scratch', 'flat': which memory ctx.mem gets
    inputs: dict = field(default_factory=dict)
    lazy: dict = field(default_factory=dict)     # inputs read only if the semantic asks (old D0, SDATA, ...)
    writers: dict = field(default_factory=dict)
    dpp: Dpp | None = None
    cross_lane: bool = False
    lane_flags: tuple | None = None     # (SRC0's VGPR, VDST, FI, BOUND_CTRL) of the permlane16 family (machine_permlane.py)
    second: "Prepared | None" = None   # VOPD's Y half (reads before either half writes)
    buffer: object = None              # MUBUF/MTBUF: f(state, sel, lane_id) -> (inputs, range limit per lane)
    # GLOBAL through a VGPR pair (SADDR off), VGPR data: (the address pair's first VGPR, the
    # instruction offset, the data VGPR (stores) or destination VGPR (loads)); machine_fuse's operands
    vaddr_pair: tuple | None = None
    # (VGPRs it may read, the VGPR it writes whole in every active lane or None), where known:
    # the machine zeroes stale registers (WaveState.stale_vgprs) before a read; None: unknown
    vgpr_effects: tuple[frozenset, int | None] | None = None

    @property
    def control(self):
        return self.sem.control

    @property
    def mnemonic(self) -> str:
        return " + ".join(d.name.lower() for d in self.inst.defs)


# ------------------------------------------------------------------ writers

def _write_sgprs(code: int, dwords: int):
    def write(st, sel, value, active):
        value = np.asarray(value)[:, :1]
        uniform = current().uniform_sgprs
        if value.strides[0] == 0 and uniform:      # one value broadcast to the batch (a uniform load): split it once
            value = value[:1]
        st.write_sgprs(sel, code, dwords, value)
        if len(value) == 1 and code != st.null and uniform:    # known uniform for later reads (WaveState.uniform_sgprs)
            st.note_uniform(sel, code, split_dwords(value, dwords).reshape(-1))
    return write


def _write_vgprs(reg: int, dwords: int, half: int | str | None = None, post=None):
    """VGPR destination; `half` = 0/1 writes only bits 15:0 / 31:16 (16-bit results), "zeroed"
    the 16-bit result in bits 15:0 and zeros above; `post` transforms the value first (clamp /
    output modifier)."""
    if half is None and post is None:
        def write(st, sel, value, active):
            st.write_vgprs(sel, reg, dwords, value, active)
        write.register = reg if dwords == 1 else None    # a semantic may compute into it (machine: Ctx.dest)
        return write

    def write(st, sel, value, active):
        if post is not None:
            value = post(value, st, sel)
        if half == "zeroed":
            value = np.asarray(value).astype(np.uint32) & np.uint32(0xFFFF)
        elif half is not None:
            old = st.vgpr[reg, sel]
            low = np.asarray(value).astype(np.uint32) & np.uint32(0xFFFF)
            value = (old & np.uint32(0xFFFF0000)) | low if half == 0 else (old & np.uint32(0xFFFF)) | (low << np.uint32(16))
        st.write_vgprs(sel, reg, dwords, value, active)
    # one whole register written as computed: a semantic may compute into it (machine: Ctx.dest)
    write.register = reg if dwords == 1 and half is None and post is None else None
    return write


def _placed(place, post, reg: int):
    """A writer's post step putting the (post-processed) result where SDWA's DST_SEL says."""
    def placed(value, st, sel):
        return place(value if post is None else post(value, st, sel), st.vgpr[reg, sel])
    return placed


def _write_lane_bits(code: int):
    """Lane-bit results (VOPC, carry-out, V_CMPX) packed into the wave mask at `code`;
    inactive lanes write 0."""
    def write(st, sel, value, active):
        if code == st.null:
            return
        bits = np.asarray(value).astype(bool, copy=False)
        if active is not None:
            bits = bits & active
        # (W, 32 or 64) bits, whole dwords per wave: the flat packed bits are the mask dwords
        # themselves (bit i = lane i, little-endian), written without a uint64 mask in between
        words = np.packbits(np.ascontiguousarray(bits).reshape(-1), bitorder="little").view(np.uint32)
        words = words.reshape(len(bits), st.mask_dwords)
        for k in range(st.mask_dwords):
            st.sgpr[code + k][sel] = words[:, k]        # the row, then its waves: one scatter
            st.sgpr_written.mark(code + k)
    write.code = code       # the machine tells a semantic when this is NULL (Ctx.unused)
    return write


def _write_scc(st, sel, value, active):
    value = np.asarray(value).reshape(-1, 1)
    if isinstance(sel, slice):          # a view of the batch's SCCs: the bit straight into it
        np.bitwise_and(value, np.uint32(1), out=st.scc[sel], casting="unsafe")
    else:                               # bit 0 of any integer or bool value, cast by the assignment
        st.scc[sel] = value & np.uint32(1)


def _write_mode(st, sel, value, active):
    st.mode[sel] = np.asarray(value).reshape(-1, 1).astype(np.uint32)
    st.mode_changed()


def _write_pc(st, sel, value, active):
    value = np.asarray(value).reshape(-1)
    if isinstance(sel, slice):          # a view of the batch's PCs: the uint64 bits straight into it
        np.copyto(st.pc[sel], value, casting="unsafe")
    else:
        st.pc[sel] = value.astype(np.int64)


def _write_exec(bits: int):
    def write(st, sel, value, active):
        value = np.asarray(value).reshape(-1, 1).astype(np.uint64)
        if bits == 32 or st.mask_dwords == 1:
            st.set_sreg(sel, EXEC_LO, value)
        else:
            st.write_mask(sel, EXEC_LO, value)
    return write


# MODE bits that switch the output modifier off (RDNA3 manual 7.2.3.1, "Output Operand
# Modifiers", p. 60): "Output modifiers are ignored if the IEEE mode bit is set to 1", and "if
# output denormals are enabled, then output modifiers are ignored" (FP_DENORM's output bit:
# MODE[5] for f32, MODE[7] for f64/f16)
MODE_IEEE = 1 << 9
OMOD_OFF = {16: MODE_IEEE | 1 << 7, 32: MODE_IEEE | 1 << 5, 64: MODE_IEEE | 1 << 7}


def _clamp_omod(bits: int, clamp: bool, omod: int):
    """Output modifiers on a float result: multiply by 2/4/0.5 in the waves whose MODE lets
    OMOD apply (then "denormals are flushed to zero ... -0 is flushed to +0"), clamp to [0, 1]
    (NaN -> 0) in every wave."""
    ftype, utype = FLOAT[bits]
    tiny = np.finfo(ftype).tiny

    def post(value, st, sel):
        x = np.asarray(value).astype(utype).view(ftype)
        with np.errstate(all="ignore"):
            if omod:
                mode = st.mode_uniform if st.mode_uniform is not None else st.mode[sel]
                applies = (np.asarray(mode) & OMOD_OFF[bits]) == 0
                if np.any(applies):
                    scaled = (x * ftype(OMOD[omod])).astype(ftype)
                    scaled = np.where(np.abs(scaled) < tiny, ftype(0), scaled).astype(ftype)
                    x = np.where(applies, scaled, x).astype(ftype)
            if clamp:
                x = np.where(np.isnan(x), ftype(0), np.clip(x, ftype(0), ftype(1))).astype(ftype)
        return x.view(utype).astype(np.uint64 if bits == 64 else np.uint32)
    return post


# ------------------------------------------------------------------ prepare

class Preparer:
    """Builds Prepared instructions for one architecture and launch shape."""

    def __init__(self, spec, semantics, lanes: int, vgprs: int, options: EmuOptions = FAST,
                 accum_offset: int | None = None):
        self.spec, self.semantics, self.lanes, self.vgprs = spec, semantics, lanes, vgprs
        self.options = options
        self.accum_offset = accum_offset      # CDNA: AGPR a[n] is register accum_offset + n
        self.codes = SourceCodes(spec)
        self.roles = roles = spec.traits.roles
        self.valu_formats = roles.valu_e32 | roles.valu_e64
        self._replication: dict | None = None     # tables["inline_replicated"] by name (_replicated)

    def agpr(self, reg: int, dwords: int = 1) -> int:
        """The register file index of AGPR a[reg] (CDNA's unified VGPR/AGPR file)."""
        if self.accum_offset is None:
            raise OperandError(f"a{reg}: an AGPR operand, but the launch has no AGPRs (no accum_offset)")
        if self.accum_offset + reg + dwords > self.vgprs:
            raise OperandError(f"a{reg} is beyond the {self.vgprs - self.accum_offset} AGPRs the kernel allocates")
        return self.accum_offset + reg

    def semantic(self, d, pc):
        sem = self.semantics.get(d)
        if sem is None:     # the table's reason (emu/table.py's Entry), when it keeps one
            entry = getattr(self.semantics, "entry", None)
            why = entry(d).reason if entry is not None else ""
            raise PrepareError(f"{d.name.lower()} ({d.format}) has no semantics" + (f": {why}" if why else " yet"))
        return sem

    def prepare(self, inst, pc: int) -> Prepared:
        fmt = inst.fmt.name
        d = inst.defs[0]
        try:
            if fmt == "VOPD":
                return self._vopd(inst, pc)
            sem = self.semantic(d, pc)
            roles = self.roles
            p = Prepared(pc, inst, sem, scalar=sem.scalar or fmt in roles.scalar, cross_lane=sem.cross_lane)
            if sem.control is not None:     # machine events (end, barrier, waits, cache hints): no operands
                self._barrier_id(p, d)
            elif fmt in roles.salu:
                self._scalar(p, d)
            elif fmt in roles.smem:
                self._smem(p, d)
            elif fmt in self.valu_formats:
                self._valu(p, d, inst.fields, inst.literal)
            elif fmt in roles.interp:
                self._vinterp(p)
            elif fmt in roles.lds:
                self._ds(p, d)
            elif fmt in roles.flat:
                self._flat(p, d)
            elif fmt in roles.buffer:
                self._buffer(p, d)
            elif fmt in roles.image:
                self._image(p, d)
            else:
                raise PrepareError(f"{d.name.lower()}: the machine does not run {fmt} instructions")
        except OperandError as e:       # DppError and SdwaError are OperandErrors
            raise PrepareError(f"{d.name.lower()} ({fmt}): {e}") from None
        self._common(p)
        p.vgpr_effects = self._vgpr_effects(p, d, fmt)
        return p

    def _barrier_id(self, p: Prepared, d):
        """RDNA4's s_barrier_signal / s_barrier_wait name a barrier: the machine models the
        work-group's (-1: an inline constant, or SIMM16 0xffff); named barriers are refused."""
        f = p.inst.fields
        if p.sem.control == "barrier_signal" and f.get("SSRC0") != self.spec.traits.inline_int(-1):
            raise PrepareError(f"{d.name.lower()}: barrier operand code {f.get('SSRC0')}: only the work-group "
                               f"barrier (-1) is modelled")
        if instruction_facts.barrier_in_simm16(d) and f.get("SIMM16") != 0xFFFF:
            raise PrepareError(f"{d.name.lower()} {f.get('SIMM16')}: only the work-group barrier (-1) is modelled")

    def _vgpr_effects(self, p: Prepared, d, fmt: str):
        """Prepared.vgpr_effects for plain VALU instructions (no DPP, VOPD, VOP3P, cross-lane
        access or integer clamp) and GLOBAL loads and stores with an SGPR base; None for the
        rest. Reads may over-count (never under-count): sources at their signature's width,
        the destination too when the instruction reads its old value (the pseudocode's operand
        effects, isa/effects.py, for generated semantics: an accumulator, a partial or
        conditional write; the contract's reads for hand-written ones)."""
        f, sem = p.inst.fields, p.sem
        if p.control is not None or p.scalar:
            return frozenset(), None          # no VGPRs (scalar and SMEM instructions, events)
        if f.get("ACC") or instruction_facts.agpr_operands(d):
            return None                       # AGPRs: the fields are not the registers' indices
        reads: set[int] = set()
        if fmt in self.valu_formats and fmt != "VOP3P":
            if p.inst.dpp or p.cross_lane:
                return None
            sig = valu_signature(vopd_base(self.spec, d))
            e32 = fmt in self.roles.valu_e32
            codes = [f["SRC0"], f.get("VSRC1", 0) + VGPR_BASE] if e32 else [f["SRC0"], f["SRC1"], f["SRC2"]]
            srcs = [s for s in sig.srcs if not s.is_mask]
            for i, code in enumerate(codes):
                if code >= VGPR_BASE:
                    width = srcs[i].dwords if i < len(srcs) else 2
                    for reg in {code - VGPR_BASE, (code - VGPR_BASE) & 0x7F}:    # a t16 e32 code's register
                        reads.update(range(reg, reg + width))
            written = getattr(p.writers.get("D0"), "register", None)
            reads_d0 = instruction_facts.reads_d0(d) if sem.origin == "generated" else \
                sem.reads_d0 or "D0" in sem.reads
            old_d0 = reads_d0 or ("S2" in sem.reads and "S2" not in p.inputs) or sig.reads_dst
            if old_d0:
                vdst = f.get("VDST", 0)
                reads.update(range(vdst & 0x7F, vdst + 2))
                written = None if written is not None and written in reads else written
            if written is None and "D0" in sem.writes:
                # a D0 not written whole as one register (64-bit, a 16-bit half): its stale
                # registers are zeroed before the write, never after it (zeroing a stale
                # register early is always right: it reads as zero)
                vdst = f.get("VDST", 0) & 0x7F
                reads.update(range(vdst, vdst + max(2, -(-sem.writes["D0"].bits // 32))))
            return frozenset(reads), written
        if SEGMENTS.get(fmt) == "global" and f["SADDR"] not in self.spec.traits.saddr_off \
                and sem.memory in ("load", "store"):
            reads.add(f["ADDR"])
            n = instruction_facts.value_dwords(d)
            if sem.memory == "store":
                reads.update(range(f["DATA"], f["DATA"] + max(n, 1)))
                return frozenset(reads), None
            written = getattr(p.writers.get("VDATA"), "register", None)
            if sem.reads_d0 or written is None:
                reads.update(range(f["VDST"], f["VDST"] + max(n, 1)))
                written = None
            return frozenset(reads), written
        return None

    def _common(self, p: Prepared):
        """Per-wave inputs every semantic may read; cheap (W, 1) slabs, read on first use
        (a few small numpy operations per step add up over a launch). EXEC is for pseudocode
        that reads EXEC as a value (ds_bpermute, permlane)."""
        sem = p.sem
        pc = constant(p.pc, 64)
        for name, read in (("SCC", lambda st, sel: st.scc[sel]), ("VCC", lambda st, sel: st.read_mask(sel, VCC_LO)),
                           ("M0", lambda st, sel: st.sreg(sel, st.m0)), ("EXEC", lambda st, sel: st.exec_mask(sel)),
                           ("PC", lambda st, sel: pc)):
            if name not in p.inputs:
                p.lazy.setdefault(name, read)
        p.writers.setdefault("SCC", _write_scc)
        p.writers.setdefault("PC", _write_pc)
        p.writers.setdefault("M0", _write_sgprs(self.spec.traits.m0, 1))
        p.writers.setdefault("MODE", _write_mode)
        if "EXEC" in sem.writes and not sem.writes["EXEC"].lane_bit:
            p.writers.setdefault("EXEC", _write_exec(sem.writes["EXEC"].bits))
        if "VCC" in sem.writes and p.scalar:
            p.writers.setdefault("VCC", lambda st, sel, v, a: st.write_mask(sel, VCC_LO, np.asarray(v)[:, :1]))

    def _src(self, code, bits, ftype, literal, signed=False, half=0, per_lane=False, operand=None, replicate=False):
        """operand: the signature's source (packed / bf16 decide how an inline constant reads)."""
        packed, bf16 = (operand.packed or (operand.bf16 and bits == 32), operand.bf16) if operand else (False, False)
        return self.codes.fetch(code, bits, ftype, literal, signed=signed, half=half, vgprs=self.vgprs,
                                per_lane=per_lane, packed=packed, bf16=bf16, replicate=replicate)

    # -------------------------------------------------------------- scalar
    def _scalar(self, p: Prepared, d):
        f, literal = p.inst.fields, p.inst.literal
        p.inputs["SIMM16"] = f.get("SIMM16", 0)
        _numbers(p, {"SRC0": f.get("SSRC0"), "SRC1": f.get("SSRC1"), "DST": f.get("SDST")})   # s_movrel*: SGPR[..]
        if literal is not None:
            p.inputs["SIMM32"] = literal
        for name, fld, dwords in scalar_layout(d) if d.format not in ("SOPP", "SOPK") else ():
            key = {"sdst": "D0", "ssrc0": "S0", "ssrc1": "S1"}.get(name)
            if key is None or key == "D0":
                continue
            bits = scalar_bits(d, key)
            t = d.operand_types.get(key) or ""
            p.inputs[key] = self._src(f[fld], 64 if dwords == 2 else bits, type_info(t)[1], literal,
                                      signed=t.startswith("i"))
        if d.format == "SOPK":     # SDST is also the source of s_cmpk / s_setreg and D0 of s_addk
            code, dwords = f["SDST"], 2 if (d.operand_types.get("D0") or "").endswith("64") else 1
            p.inputs["S0"] = self._src(code, 32, "u", None) if code != self.spec.traits.null else (lambda st, sel: constant(0, 32))
            p.inputs["D0"] = p.inputs["S0"]
            p.writers["D0"] = _write_sgprs(code, dwords)
            # the CDNA3 manual names the 16-bit immediate as a source (S_MOVK_I32: signext(S0.i16),
            # S_CMPK_EQ_U32: S0.u32 == 32'U(S1.u16)): a 16-bit source is SIMM16, S0 otherwise SDST
            for key in ("S0", "S1"):
                if (d.operand_types.get(key) or "")[1:] == "16":
                    p.inputs[key] = lambda st, sel, k=constant(f["SIMM16"], 32): k
        elif "SDST" in f:
            dwords = next((w for n, _, w in scalar_layout(d) if n == "sdst"), 1)
            if "D0" in p.sem.reads:
                p.inputs["D0"] = self._src(f["SDST"], 64 if dwords == 2 else 32, "u", None)
            p.writers["D0"] = _write_sgprs(f["SDST"], dwords)

    def _smem(self, p: Prepared, d):
        f = p.inst.fields
        base, offset, soffset = f["SBASE"] * 2, immediate_offset(d.format, f), f["SOFFSET"]
        if "IMM" in f:      # GFX9 (CDNA3 manual 8.2.1.1): IMM=0 makes OFFSET[6:0] the offset SGPR, SOE adds SOFFSET's
            soffset = f["SOFFSET"] if f["SOE"] else None if f["IMM"] else f["OFFSET"] & 0x7F
            offset = offset if f["IMM"] else 0

        def addr(st, sel, one_if_uniform=False):
            a = st.read_sgprs(sel, base, 2, uniform=one_if_uniform) & np.uint64(0xFFFF_FFFF_FFFF)   # buffer descriptors: base is bits 47:0
            a = a + np.uint64(offset & (2**64 - 1))
            if soffset is not None and soffset != st.null:
                a = a + st.sreg(sel, soffset).astype(np.uint64)
            return a & ~np.uint64(3)                                          # SMEM addresses are dword aligned
        p.memory, p.inputs["OFFSET"] = "global", offset
        if instruction_facts.buffer_resource(d):     # SBASE names a V#: its size bounds the dwords read
            if base + 4 > SCALAR_CODES:
                raise OperandError(f"s[{base}:{base + 3}] is not a 4-SGPR buffer resource")
            from .buffer import Resource, scalar_limit      # (with the first buffer access: most kernels have none)

            def access(st, sel, lane_id):
                return {"ADDR": addr(st, sel)}, scalar_limit(Resource.of(st.sgpr[base:base + 4, sel].T)), False
            p.buffer = access
        else:       # the same address in every wave (a kernarg pointer) is loaded once
            p.inputs["ADDR"] = lambda st, sel: uniform(addr(st, sel, one_if_uniform=True))
        dwords = _bits(p.sem.writes.get("SDATA"), instruction_facts.value_dwords(d))
        p.writers["SDATA"] = _write_sgprs(f["SDATA"], dwords)
        # written slice by slice; usually the same (zero) in every wave: one value then
        p.lazy["SDATA"] = lambda st, sel: st.read_sgprs(sel, f["SDATA"], dwords, uniform=True)

    # -------------------------------------------------------------- vector ALU
    def _valu(self, p: Prepared, d, f, literal, vopd=None):
        """VOP1/2/C (e32), VOP3/VOP3SD/VOP3P (e64) and, with `vopd` = (src0, vsrc1, vdst)
        codes, one half of a VOPD."""
        sem, fmt = p.sem, d.format
        if "CBSZ" in sem.reads:                 # MFMA/SMFMAC (emu/handwritten/mfma.py)
            return self._matrix(p, d)
        sig = valu_signature(vopd_base(self.spec, d))
        e32 = fmt in self.roles.valu_e32 or vopd is not None
        if vopd is not None:
            codes = list(vopd[:2])
        elif e32:
            codes = [f["SRC0"], f.get("VSRC1", 0) + VGPR_BASE]
        else:
            codes = [f["SRC0"], f["SRC1"], f["SRC2"]]
        sdwa = p.inst.dpp if p.inst.dpp_kind in ("SDWA", "SDWAB") else None
        # GFX9's SDWA and DPP modules are imported with the first instruction that has them
        if sdwa is not None:            # GFX9: sub-dword selects, sources from the SDWA dword (machine_sdwa.py)
            from . import machine_sdwa
            codes = [machine_sdwa.source_code(sdwa, 0, 0, VGPR_BASE)] + \
                ([machine_sdwa.source_code(sdwa, 1, f["VSRC1"], VGPR_BASE)] if "VSRC1" in f else [])
        elif p.inst.dpp:
            from .machine_dpp import Dpp
            p.dpp = Dpp(self.spec, p.inst, self.lanes)
            codes[0] = p.inst.dpp["SRC0"] + VGPR_BASE
        # fields the pseudocode reads itself (INST.NEG of v_bitop3): no modifier of the machine's
        raw_fields = {n.split(".", 1)[1] for n in sem.reads if n.startswith("INST.")}
        for name in raw_fields:
            p.inputs[f"INST.{name}"] = f.get(name, 0)
        agprs = instruction_facts.agpr_operands(d)  # v_accvgpr_*: operands in the AGPR file
        if "S0" in agprs and codes[0] >= VGPR_BASE:
            codes[0] = VGPR_BASE + self.agpr(codes[0] - VGPR_BASE)
        opsel = f.get("OPSEL", 0)
        neg, abs_ = (f.get(n, 0) if n not in raw_fields else 0 for n in ("NEG", "ABS"))
        if p.inst.dpp_kind in ("DPP16", "DPP", "SDWA", "SDWAB") and e32:
            neg = p.inst.dpp["SRC0_NEG"] | p.inst.dpp["SRC1_NEG"] << 1
            abs_ = p.inst.dpp["SRC0_ABS"] | p.inst.dpp["SRC1_ABS"] << 1
        if literal is not None:
            p.inputs["SIMM32"] = literal
            if "SIMM16" in sem.reads:      # GFX9's f16 madak/madmk name their constant SIMM16
                p.inputs["SIMM16"] = literal & 0xFFFF
        # the semantic reads SDWA's source select itself (CDNA's fp8/bf8 -> f32: isa.facts.sdwa_selects):
        # its SDWA word's SRC0_SEL, or outside SDWA 6, the DWORD code (the code's "BYTE0 implied");
        # the source is read whole, no sext, neg or abs and no DST_SEL (table 31: "ignores: abs,
        # neg, sext"); clamp and omod apply, as in the VOP3 form (see emu/README.md)
        own_select = "SDWA_SRC0_SEL" in sem.reads
        if own_select:
            p.inputs["SDWA_SRC0_SEL"] = sdwa["SRC0_SEL"] if sdwa is not None else 6
            if sdwa is not None:
                neg = abs_ = 0
        # the semantic reads OPSEL itself and picks halves (v_fma_mix*'s pseudocode, WMMA)
        raw_opsel = "OPSEL" in sem.reads
        if raw_opsel and fmt != "VOP3P":   # byte selects of RDNA4's fp8 conversions (VOP1: none, byte 0)
            p.inputs["OPSEL"] = opsel
        if fmt == "VOP3P":
            opsel_hi = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
            p.inputs.update(OPSEL=opsel, OPSEL_HI=opsel_hi, NEG=neg, NEG_HI=f.get("NEG_HI", 0))
        srcs = [s for s in sig.srcs if not s.is_mask]
        halves = self.spec.traits.vgpr_halves      # RDNA: VOP1/2/C name a 16-bit VGPR's half in bit 7
        if sig.k_pos is not None:        # fmamk/fmaak: the constant is SIMM32, not a source field
            srcs = srcs[:2]
        for i, s in enumerate(srcs):
            key = f"S{i}"
            if i >= len(codes):
                break
            code = codes[i]
            if code >= VGPR_BASE:                # register number for VGPR[lane][SRCn] pseudocode
                _numbers(p, {f"SRC{i}": code - VGPR_BASE})
            wide = sem.reads.get(key)
            if wide is not None and wide.bits > 64:           # WMMA-style register blocks
                dwords = wide.width(self.lanes) // 32
                if code >= VGPR_BASE:
                    p.inputs[key] = self._block(code, dwords)
                elif code < SCALAR_CODES and code != self.spec.traits.null:       # SGPRs (v_mqsad_u32_u8's S2 = s[24:27]): one value per wave
                    if code + dwords > SCALAR_CODES:
                        raise OperandError(f"s[{code}:{code + dwords - 1}] runs past the scalar registers")
                    p.inputs[key] = lambda st, sel, c=code, n=dwords: st.read_sgprs(sel, c, n)
                else:
                    p.inputs[key] = self._constant_block(code, wide.type, dwords, literal)
                continue
            if fmt == "VOP3P" and not raw_opsel:
                p.inputs[key] = self._packed(code, s, i, opsel, f, literal, neg, f.get("NEG_HI", 0), d)
                continue
            if fmt == "VOP3P":      # the semantic picks halves itself: whole registers, its width
                bits = wide.bits if wide is not None and wide.bits in (32, 64) else 32
                p.inputs[key] = self._src(code, bits, s.ftype, literal, per_lane=True)
                continue
            half = 0
            if s.t16:         # a 16-bit source: OPSEL names its half, or on RDNA an e32 code's bit 7
                half = (opsel >> i) & 1 if not e32 else (code >> 7) & 1 if code >= VGPR_BASE and halves else 0
                if e32 and code >= VGPR_BASE and halves:
                    code = VGPR_BASE + ((code - VGPR_BASE) & 0x7F)
            if sdwa is not None and (code >= VGPR_BASE or code < SCALAR_CODES) and not own_select:
                # a register: its whole dword, then the field SRCn_SEL names
                fetch = machine_sdwa.select_source(self._src(code, 32, "u", None, per_lane=True), sdwa, i)
            else:
                fetch = self._src(code, s.bits, s.ftype, literal, signed=s.ftype == "i", half=half, per_lane=True,
                                  operand=s, replicate=i in self._replicated(d))
            if s.is_float and ((neg >> i) & 1 or (abs_ >> i) & 1) and not raw_opsel:
                fetch = _modified(fetch, s.bits, bool((neg >> i) & 1), bool((abs_ >> i) & 1))
            p.inputs[key] = fetch
        if sig.vcc_in:
            # a mask source in the encoding (v_cndmask_b32_e64's src2; on gfx9, where the signature
            # lists no mask, an e64 form with fewer than three sources: v_cndmask, v_addc_co), else
            # the implicit VCC (v_div_fmas)
            in_src2 = any(x.is_mask for x in sig.srcs) or len(sig.srcs) < 3 and "SRC2" in f
            mask_code = f["SRC2"] if not e32 and in_src2 else VCC_LO
            _scalar_register("src2 (a lane mask)", mask_code)
            p.inputs["VCC"] = lambda st, sel, c=mask_code: st.read_mask(sel, c)
        # destinations
        dst = sig.dsts[0] if sig.dsts else None
        vdst = vopd[2] if vopd is not None else f.get("VDST", 0)
        if "D0" in agprs:
            vdst = self.agpr(vdst)
        _numbers(p, {"VDST": vdst, "DST": vdst})          # v_movreld / v_writelane: VGPR[lane][VDST]
        # OPSEL[0] FI, OPSEL[1] BOUND_CTRL (isa.facts.opsel_flags): what a lane reading a disabled
        # lane gets, where the code heeds EXEC (v_permlane16*); CDNA4's permlane swaps, whose code
        # swaps every lane whatever EXEC says and whose manual entry names no flags, run as written
        if sig.opsel_flags and not e32 and "EXEC" in sem.reads:
            p.lane_flags = (codes[0] - VGPR_BASE if codes[0] >= VGPR_BASE else None, vdst, opsel & 1, opsel >> 1 & 1)
        clamp, omod = bool(f.get("CLMP", 0)), f.get("OMOD", 0) if "OMOD" not in raw_fields else 0
        if sdwa is not None and "CLMP" in sdwa:
            clamp, omod = bool(sdwa["CLMP"]), sdwa["OMOD"]
        if sig.is_cmp:
            # D0 of a compare: VCC (e32; SDWAB's SDST when SD is set) or the e64 form's SDST.
            # V_CMPX writes EXEC, and on CDNA3 D0 as well (EXEC.u64[laneId] = D0.u64[laneId] = ...)
            if sdwa is not None:
                code = _scalar_register("sdst", sdwa["SDST"]) if sdwa["SD"] else VCC_LO
            else:
                code = VCC_LO if e32 else _scalar_register("sdst", vdst)
            p.writers["D0"] = _write_lane_bits(code)
            p.writers["EXEC"] = _write_lane_bits(EXEC_LO)
        elif dst is not None and dst.sgpr:
            p.writers["D0"] = _write_sgprs(_scalar_register("sdst", vdst), 1)
        elif dst is not None:
            half = None
            wide = sem.writes.get("D0")
            block = wide is not None and wide.bits > 64     # WMMA's D: the semantic merges 16-bit halves itself
            # a 16-bit result (isa.effects.half_result): one half written, the other kept (the half
            # OPSEL[3] names, on RDNA an e32 VDST's bit 7), or on CDNA's VOP1/VOP2 bits 31:16 zeroed
            result = instruction_facts.half_result(vopd_base(self.spec, d)) if dst.t16 and not block else None
            if result == "kept":
                half = ((vdst >> 7) & 1 if halves else 0) if e32 else (opsel >> 3) & 1
                vdst = vdst & 0x7F if e32 and halves else vdst
            elif result == "zeroed":
                half = "zeroed"
            if vdst + dst.dwords > self.vgprs:
                raise OperandError(f"v{vdst} is beyond the {self.vgprs} VGPRs the kernel allocates")
            post = None
            if (clamp or omod) and dst.is_float:
                post = _clamp_omod(dst.bits, clamp, omod)
            elif clamp or omod:
                p.sem = self._saturating(d, sig, omod)
            place = machine_sdwa.place_result(sdwa, dst.bits) \
                if sdwa is not None and "DST_SEL" in sdwa and not own_select else None
            if place is not None:       # SDWA's DST_SEL / DST_U: the result's field in the old dword
                post, half = _placed(place, post, vdst), None
            dwords = wide.width(self.lanes) // 32 if block else dst.dwords
            if raw_opsel and fmt == "VOP3P" and wide is not None and wide.bits == 64:
                dwords = 2          # as its sources: the semantic's width (v_pk_mov_b32's D0.u32[63 : 32])
            p.writers["D0"] = _write_vgprs(vdst, dwords, half, post)
            p.lazy["D0"] = self._src(VGPR_BASE + vdst, dst.bits, dst.ftype, None, half=half if half == 1 else 0) \
                if dwords <= 2 else self._block(VGPR_BASE + vdst, dwords)
            if "S2" not in p.inputs:        # VOP2 accumulators: the pseudocode's third source is D0
                p.lazy["S2"] = p.lazy["D0"]
        # the carry-out's SGPRs: VOP3SD / VOP3B name them (SDST), other encodings write VCC
        sd = _scalar_register("sdst", f["SDST"]) if "SDST" in f and not e32 else VCC_LO
        p.writers["VCC"] = _write_lane_bits(sd)
        p.writers["D1"] = _write_lane_bits(sd)
        if "S0" in sem.writes and codes[0] >= VGPR_BASE:     # v_swap writes its source
            reg, half = codes[0] - VGPR_BASE, None
            if srcs and srcs[0].t16 and halves:               # v_swap_b16: the half its source names
                half, reg = ((reg >> 7) & 1 if e32 else opsel & 1), reg & 0x7F
            if reg + (srcs[0].dwords if srcs else 1) > self.vgprs:
                raise OperandError(f"v{reg} is beyond the {self.vgprs} VGPRs the kernel allocates")
            p.writers["S0"] = _write_vgprs(reg, srcs[0].dwords if srcs else 1, half)

    def _matrix(self, p: Prepared, d):
        """MFMA/SMFMAC: the VOP3P-MAI reading of the instruction's bits (CBSZ, ABID, ACC_CD,
        ACC, BLGP); A (S0) and B (S1) are register blocks of the widths the semantic reads,
        AGPRs where ACC's bit 0 / 1 says, C (S2) and D the block of D's width, AGPRs with
        ACC_CD (SMFMAC: S2 is the index VGPR and C the old D). D is written in every lane
        (Semantic.all_lanes: MFMA ignores EXEC)."""
        sem, inst = p.sem, p.inst
        word = sum(v << lo for (n, hi, lo), v in ((fl, inst.fields.get(fl[0], 0)) for fl in inst.fmt.fields)
                   if n != "ENCODING")
        f = {n: (word >> lo) & ((1 << (hi - lo + 1)) - 1) for n, hi, lo in self.spec.formats["VOP3P-MAI"].fields}
        p.inputs.update(CBSZ=f["CBSZ"], ABID=f["ABID"], BLGP=f["BLGP"])
        d0 = sem.writes["D0"]
        d_dwords = max(1, d0.bits // 32)
        for i, key in enumerate(("S0", "S1", "S2")):
            op, code = sem.reads[key], f[f"SRC{i}"]
            dwords = max(1, op.bits // 32)
            in_agprs = (f["ACC"] >> i) & 1 if i < 2 else f["ACC_CD"] and op.bits == d0.bits
            if code >= VGPR_BASE:
                reg = code - VGPR_BASE
                reg = self.agpr(reg, dwords) if in_agprs else reg
                self._vgpr_data(reg, dwords)
                p.inputs[key] = lambda st, sel, r=reg, n=dwords: st.read_vgprs(sel, r, n)
            elif dwords <= 2:
                p.inputs[key] = self._src(code, 32 * dwords, op.type[:1] if op.type[:1] in "fiu" else "u",
                                          inst.literal, per_lane=True)
            elif op.type == "f64":      # an f64 constant C: its two dwords in every register pair
                pair = self._src(code, 64, "f", inst.literal)
                p.inputs[key] = lambda st, sel, v=pair, n=dwords: np.tile(
                    split_dwords(np.asarray(v(st, sel), np.uint64), 2).reshape(1, 1, 2), (1, 1, n // 2))
            else:      # an inline constant C: every register of the block holds it
                p.inputs[key] = self._constant_block(code, op.type, dwords, inst.literal)
        if "SCALE_SRC0" in inst.extra:     # a V_MFMA_SCALE_* pair (emu/dialect.py scaled_mfma)
            for which, code in (("A", inst.extra["SCALE_SRC0"]), ("B", inst.extra["SCALE_SRC1"])):
                if code >= VGPR_BASE:
                    self._vgpr_data(code - VGPR_BASE, 1)
                # a 32-bit register per lane or a constant's bits; the semantic picks the byte
                p.inputs[f"SCALE_{which}"] = self._src(code, 32, "u", inst.literal, per_lane=True)
                p.inputs[f"SCALE_{which}_SEL"] = inst.extra[f"SCALE_{which}_SEL"]
        vdst = self.agpr(f["VDST"], d_dwords) if f["ACC_CD"] else f["VDST"]
        self._vgpr_data(vdst, d_dwords)
        write = _write_vgprs(vdst, d_dwords)
        p.writers["D0"] = lambda st, sel, value, active: write(st, sel, value, None)
        p.lazy["D0"] = lambda st, sel: st.read_vgprs(sel, vdst, d_dwords)

    def _vinterp(self, p: Prepared):
        """VINTERP: three VGPR sources at the widths the semantic reads them (16-bit ones from the
        half OPSEL[i] names), NEG[i] negating source i; D0 into VDST (a 16-bit result into the
        half OPSEL[3] names), CLMP clamping it to [0, 1]. WAITEXP waits for exports, which
        compute kernels do not have: no effect."""
        f, sem = p.inst.fields, p.sem
        opsel, neg = f["OPSEL"], f["NEG"]
        for i in range(3):
            op = sem.reads[f"S{i}"]
            fetch = self._src(f[f"SRC{i}"], op.bits, "f", None, half=(opsel >> i) & 1, per_lane=True)
            p.inputs[f"S{i}"] = _modified(fetch, op.bits, True, False) if (neg >> i) & 1 else fetch
        d0, vdst = sem.writes["D0"], f["VDST"]
        if vdst >= self.vgprs:
            raise OperandError(f"v{vdst} is beyond the {self.vgprs} VGPRs the kernel allocates")
        post = _clamp_omod(d0.bits, True, 0) if f["CLMP"] else None
        p.writers["D0"] = _write_vgprs(vdst, 1, (opsel >> 3) & 1 if d0.bits == 16 else None, post)

    def _saturating(self, d, sig, omod: int):
        """Clamp on an integer result saturates instead of wrapping: the semantic translated
        with saturating stores (`SemanticTable.saturating`). A 64-bit integer result cannot be
        told from its wrapped value at the translator's 64-bit width, so its clamp is refused."""
        name = d.name.lower()
        if omod:
            raise PrepareError(f"{name}: an output modifier on an integer result is not supported")
        d0 = self.semantics.get(d).writes.get("D0")
        if d0 is not None and d0.bits >= 64:
            raise PrepareError(f"{name}: clamp (saturation) of a 64-bit integer result is not supported")
        saturating = getattr(self.semantics, "saturating", None)
        sem = saturating(d) if saturating is not None else None
        if sem is None:
            raise PrepareError(f"{name}: clamp (saturation) on this integer result is not supported")
        return sem

    def _block(self, code: int, dwords: int):
        reg = code - VGPR_BASE
        if code < VGPR_BASE or reg + dwords > self.vgprs:
            raise OperandError(f"a {dwords}-register operand needs VGPRs, got code {code}")
        return lambda st, sel: st.vgpr[reg:reg + dwords, sel].transpose(1, 2, 0)     # (W, L, n)

    def _constant_block(self, code: int, element: str, dwords: int, literal):
        """WMMA's C matrix from an inline constant (the only operand that may be one): every
        VGPR of the block holds the constant. Manual 7.9: 'For F16 and BF16, the inline value
        is replicated into both low and high halves of the DWORD'; 7.5.1: F16 takes the F16
        constant, 'BF16 uses 32-bit float constants and then the BF16 operand selects the
        upper 16 bits of the FP32 constant'."""
        if element == "f16":
            half = self._src(code, 16, "f", literal)
            dword = lambda st, sel: half(st, sel) * np.uint32(0x10001)
        elif element == "bf16":
            full = self._src(code, 32, "f", literal)
            dword = lambda st, sel: (full(st, sel) >> np.uint32(16)) * np.uint32(0x10001)
        else:
            dword = self._src(code, 32, "f" if element.startswith("f") else "i", literal)
        return lambda st, sel: np.broadcast_to(np.asarray(dword(st, sel), np.uint32)[..., None], (1, 1, dwords))

    def _replicated(self, d) -> tuple[int, ...]:
        """The sources of `d` that read an inline constant in both 16-bit halves: the manual's
        "Inline constants with DOT2_F16_F16 and DOT2_BF16_BF16 ... the inline constant for sources 0
        and 1 replicate the inline constant value into bits[31:16]" (RDNA3 7.2.1 p. 67; RDNA4 adds
        V_DOT2_F32_F16/BF16), the generated tables["inline_replicated"]; every other 16-bit
        operand has zeros above."""
        got = self._replication
        if got is None:
            got = self._replication = {name: sources for name, sources, _ in self.spec.tables.get("inline_replicated", ())}
        return got.get(d.name, ())

    def _packed(self, code, s, i, opsel, f, literal, neg, neg_hi, d):
        """A VOP3P source: two 16-bit halves chosen by OPSEL / OPSEL_HI, negated by NEG / NEG_HI;
        32/64-bit sources of VOP3P (dot products' accumulators) pass unchanged."""
        packed = type_info(d.operand_types.get(f"S{i}"))[2] or s.bits == 16
        if packed and s.bits == 64:         # two 32-bit halves (CDNA's v_pk_*_f32, v_pk_mov_b32)
            return self._packed64(code, s, i, opsel, f, literal, neg, neg_hi, d)
        fetch = self._src(code, 32 if packed else s.bits, s.ftype, literal, per_lane=True, operand=s,
                          replicate=i in self._replicated(d))
        negated, magnitude = instruction_facts.fact("packed_negation", d)
        if i not in negated:        # NEG/NEG_HI apply to none but these (emu.facts._packed_negation)
            neg = neg_hi = 0
        if not packed:
            return _modified(fetch, s.bits, bool((neg >> i) & 1), i in magnitude and bool((neg_hi >> i) & 1)) \
                if s.is_float or i in negated else fetch
        opsel_hi = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
        lo_shift, hi_shift = np.uint32(16 * ((opsel >> i) & 1)), np.uint32(16 * ((opsel_hi >> i) & 1))
        flip = np.uint32((0x8000 if (neg >> i) & 1 else 0) | (0x8000_0000 if (neg_hi >> i) & 1 else 0))
        if not s.is_float:
            flip = np.uint32(0)

        def fetch_packed(st, sel):
            v = np.asarray(fetch(st, sel)).astype(np.uint32)
            lo = (v >> lo_shift) & np.uint32(0xFFFF)
            hi = (v >> hi_shift) & np.uint32(0xFFFF)
            return (lo | (hi << np.uint32(16))) ^ flip
        return fetch_packed

    def _packed64(self, code, s, i, opsel, f, literal, neg, neg_hi, d):
        """A 64-bit VOP3P source of two 32-bit halves (CDNA3 ISA 6.7 "Packed Math", p. 45: "OPSEL
        and OPSEL_HI work to select the first or second DWORD for each source"): OPSEL[i] picks
        the dword of the low half, OPSEL_HI[i] of the high half; NEG / NEG_HI flip their signs.
        An inline constant is its 32-bit value (an f32 for a float) in the first dword and zeros
        in the second: the manual is silent (6.2.1's table, p. 40: "Single, double, or
        half-precision inline floats"); LLVM 22's code generator reads such a constant in both
        halves only through OPSEL_HI = 0 (`v_pk_add_f32 v[0:1], s[2:3], 1.0 op_sel_hi:[1,0]`), so the
        first dword is the value; the zeros are unconfirmed on hardware (emu/README.md)."""
        if self.codes.row(code)[2] in ("int", "float"):
            word = self._src(code, 32, s.ftype, literal)
            fetch = lambda st, sel: np.asarray(word(st, sel)).astype(np.uint64)     # noqa: E731
        else:
            fetch = self._src(code, 64, s.ftype, literal, per_lane=True, operand=s)
        negated, _ = instruction_facts.fact("packed_negation", d)
        if i not in negated:        # (the sources NEG applies to: float halves)
            neg = neg_hi = 0
        opsel_hi = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
        lo_shift, hi_shift = np.uint64(32 * ((opsel >> i) & 1)), np.uint64(32 * ((opsel_hi >> i) & 1))
        flip = np.uint64((1 << 31 if (neg >> i) & 1 else 0) | (1 << 63 if (neg_hi >> i) & 1 else 0))
        low = np.uint64(0xFFFF_FFFF)

        def fetch_packed(st, sel):
            v = np.asarray(fetch(st, sel)).astype(np.uint64)
            return (((v >> lo_shift) & low) | (((v >> hi_shift) & low) << np.uint64(32))) ^ flip
        return fetch_packed

    def _vopd(self, inst, pc) -> Prepared:
        f, literal = inst.fields, inst.literal
        dx, dy = inst.defs
        vdst_y = (f["VDSTY"] << 1) | ((f["VDSTX"] & 1) ^ 1)
        halves = []
        for d, codes in ((dx, (f["SRCX0"], f["VSRCX1"] + VGPR_BASE, f["VDSTX"])),
                         (dy, (f["SRCY0"], f["VSRCY1"] + VGPR_BASE, vdst_y))):
            base = vopd_base(self.spec, d)      # its operands: the twin's, or its own
            sem = self.semantic(d, pc)          # the table's entry of the half itself
            h = Prepared(pc, inst, sem, scalar=False)
            self._valu(h, base, {}, literal, vopd=codes)
            self._common(h)
            halves.append(h)
        halves[0].second = halves[1]
        return halves[0]

    # -------------------------------------------------------------- memory
    def _vgpr_data(self, reg: int, dwords: int):
        if reg + dwords > self.vgprs:
            raise OperandError(f"v{reg} is beyond the {self.vgprs} VGPRs the kernel allocates")
        return lambda st, sel: st.read_vgprs(sel, reg, dwords)

    def _data_inputs(self, p: Prepared, d, names: dict[str, int], default_dwords: int):
        """DATA / DATA2 / VDATA inputs from VGPRs; widths from the semantic's reads."""
        for name, reg in names.items():
            op = p.sem.reads.get(name)
            if op is not None or name in ("DATA", "VDATA"):
                p.inputs[name] = self._vgpr_data(reg, _bits(op, default_dwords))

    def _returns(self, p: Prepared, d, vdst: int, default_dwords: int):
        for name in ("RETURN_DATA", "VDATA"):
            op = p.sem.writes.get(name)
            if op is not None:
                dwords = _bits(op, default_dwords)
                if vdst + dwords > self.vgprs:
                    raise OperandError(f"v{vdst} is beyond the {self.vgprs} VGPRs the kernel allocates")
                p.writers[name] = _write_vgprs(vdst, dwords)
                if name not in p.inputs:      # written by slices (D16 loads keep the other half)
                    p.lazy[name] = self._vgpr_data(vdst, dwords)

    def _ds(self, p: Prepared, d):
        f = p.inst.fields
        if f.get("GDS"):
            raise PrepareError("GDS (the global data share) is not modelled; only LDS")
        p.memory = "lds"
        offset = f["OFFSET1"] << 8 | f["OFFSET0"]
        p.inputs.update(OFFSET0=f["OFFSET0"], OFFSET1=f["OFFSET1"], OFFSET=offset)
        n = instruction_facts.value_dwords(d)
        if p.cross_lane:      # ds_bpermute / permute / swizzle: register numbers, whole-wave view
            p.inputs.update(ADDR=f["ADDR"], DATA0=f["DATA0"], DATA1=f["DATA1"], VDST=f["VDST"])
            return
        layout = {name: w for name, _, w in instruction_facts.ds_layout(d)}
        if "addr" in layout:
            base = self._vgpr_data(f["ADDR"], 1)
            # ADDR is the final address (contract), except where the pseudocode adds the
            # instruction offset itself (RDNA3.5: MEM[ADDR + OFFSET.u32], MEM[ADDR + OFFSET0.u32 * 4U];
            # CDNA: CalcDsAddr(ADDR.b32, OFFSET0.b32, ...): the address_adds_offset fact).
            # Both stay split (the address VGPR's uint32 plus one constant): the LDS bounds and
            # indexes the offsets once for every access of the instruction
            added = np.full((1, 1), 0 if instruction_facts.address_adds_offset(d) else offset, np.uint64)
            if self.options.split_addresses:
                facts = _ds_address_facts(f["ADDR"]) if self.options.ds_address_memo else lambda st, sel: None
                p.inputs["ADDR_BASE"] = lambda st, sel: SplitAddresses(_NO_BASE, base(st, sel), facts=facts(st, sel))
                p.inputs["ADDR"] = lambda st, sel: SplitAddresses(added, base(st, sel), facts=facts(st, sel))
            else:               # the plain uint64 sums
                p.inputs["ADDR_BASE"] = lambda st, sel: base(st, sel).astype(np.uint64)
                p.inputs["ADDR"] = lambda st, sel: base(st, sel).astype(np.uint64) + added
        # the VGPR each data input comes from, under every name the code gives its field (DATA
        # or DATA0, DATA2 or DATA1: isa.fact_types.LDS_DATA_NAMES). DS_SWIZZLE_B32 "swizzles
        # input thread data" and touches no memory: its encoding has no DATA0, the input is the
        # ADDR field's VGPR (LLVM: `ds_swizzle_b32 vdst, vaddr offset:...`). So a semantic reading
        # DATA from an encoding without DATA0 (and not reading ADDR) reads ADDR's VGPR; other
        # missing fields are refused.
        vdst = f["VDST"]
        data_regs = {name: f[field] for field, names in LDS_DATA_NAMES.items() for name in names}
        if f.get("ACC"):        # CDNA: the data and returned registers are AGPRs
            n_ = max((w for _, _, w in instruction_facts.ds_layout(d)), default=1)
            data_regs = {k: self.agpr(v, n_) for k, v in data_regs.items()}
            vdst = self.agpr(vdst, n_)
        if "data0" not in layout and "DATA" in p.sem.reads:
            if "addr" not in layout or "ADDR" in p.sem.reads:
                raise PrepareError(f"{d.name}: its semantics read DATA, which its encoding does not supply")
            data_regs["DATA"], layout["data0"] = f["ADDR"], layout["addr"]
        for field, names in LDS_DATA_NAMES.items():
            if field.lower() not in layout:
                for name in names:
                    if name in p.sem.reads and not (field == "DATA0" and name == "DATA"):
                        raise PrepareError(f"{d.name}: its semantics read {name}, which its encoding does not supply")
        self._data_inputs(p, d, data_regs, layout.get("data0", n))
        for field, names in LDS_DATA_NAMES.items():
            if field.lower() not in layout:
                for name in names:
                    p.inputs.pop(name, None)
        if "vdst" in layout:
            self._returns(p, d, vdst, layout["vdst"])
        elif "RETURN_DATA" in p.sem.writes:
            # a DS atomic without _RTN (ds_add_u32) has no VDST: its field (0) must not be written
            p.writers["RETURN_DATA"] = lambda st, sel, v, a: None

    def _flat(self, p: Prepared, d):
        f, segment = p.inst.fields, SEGMENTS[d.format]
        saddr, vaddr = f["SADDR"], f["ADDR"]
        offset = immediate_offset(d.format, f)
        use_saddr = saddr not in self.spec.traits.saddr_off       # (the manual's "disable" codes)
        # every address is a 64-bit modular sum, so the immediate offset is added to the
        # narrowest term: once per wave with an SGPR base, saving a pass over the lanes
        if segment == "flat":
            p.memory = "flat"
            va, off = self._vgpr_data(vaddr, 2), np.uint64(offset)
            # the joined 64-bit address is a fresh array: with no offset it is the sum itself
            addr = va if not offset else lambda st, sel: va(st, sel) + off
        elif segment == "global":
            p.memory = "global"
            off = np.uint64(offset & (2**64 - 1))
            if saddr == self.spec.traits.exec_lo and not instruction_facts.lane_address(d):
                # imported here: dsl.special_registers loads dsl.syntax, which running cached code never needs
                from dsl.special_registers import exec_base_error
                raise OperandError(f"saddr: {exec_base_error('exec')}")
            if instruction_facts.lane_address(d):       # no VGPR address: saddr + offset + laneId * 4
                lane4 = np.arange(self.lanes, dtype=np.uint64)[None, :] * np.uint64(4)

                def addr(st, sel):
                    base = st.read_sgprs(sel, saddr, 2) if use_saddr else np.zeros((1, 1), np.uint64)
                    return base + off + lane4
            elif use_saddr and not self.options.split_addresses:
                va = self._vgpr_data(vaddr, 1)
                addr = lambda st, sel: st.read_sgprs(sel, saddr, 2) + off + va(st, sel).astype(np.uint64)
            elif use_saddr:
                va = self._vgpr_data(vaddr, 1)
                # nothing writes memory before the result's writeback: a load may lend a window
                lend = p.sem.memory == "load" and self.options.unit_stride_runs
                use_memo = self.options.stride_memo

                def addr(st, sel):      # kept split: the memory bounds base and offsets separately
                    memo = (st.stride_memo, (vaddr, sel.start, sel.stop, int(st.vgpr_written.counts[vaddr]))) \
                        if isinstance(sel, slice) and use_memo else None
                    return SplitAddresses(st.read_sgprs(sel, saddr, 2, uniform=True) + off, va(st, sel), lend, memo)
            else:
                va = self._vgpr_data(vaddr, 2)
                addr = va if not offset else lambda st, sel: va(st, sel) + off
                if not f.get("ACC"):
                    p.vaddr_pair = (vaddr, offset, f["DATA"] if p.sem.memory == "store" else f["VDST"])
        else:   # SCRATCH: an offset into the lane's private segment
            p.memory = "scratch"
            # CDNA3's format table has no SVE: its bit 13 (LDS there) enables the VGPR address on
            # scratch, as the field descriptions' "SVE: Scratch VGPR Enable" and LLVM's decoding say
            va = self._vgpr_data(vaddr, 1) if f.get("SVE", f.get("LDS")) else None
            off = np.uint64(offset & (2**64 - 1))

            def addr(st, sel):
                a = (st.sreg(sel, saddr).astype(np.uint64) if use_saddr else np.zeros((1, 1), np.uint64)) + off
                return np.add(a, va(st, sel), dtype=np.uint64) if va is not None else a
        p.inputs["ADDR"] = addr
        p.inputs["OFFSET"] = offset
        data, vdst = f["DATA"], f["VDST"]
        if f.get("ACC"):        # CDNA: DATA and VDST name AGPRs
            n = instruction_facts.data_dwords(d) or instruction_facts.value_dwords(d)
            data, vdst = self.agpr(data, n), self.agpr(vdst, n)
        self._vmem_data(p, d, data, vdst)

    def _vmem_data(self, p: Prepared, d, data: int, vdst: int):
        """Store data, atomic data and the returned value of a vector-memory instruction."""
        n = instruction_facts.value_dwords(d)
        data_dwords_ = instruction_facts.data_dwords(d) or n        # cmpswap: value and compare
        if p.sem.memory == "store":
            p.inputs["VDATA"] = self._vgpr_data(data, _bits(p.sem.reads.get("VDATA"), n))
        elif p.sem.memory == "atomic":
            p.inputs["DATA"] = self._vgpr_data(data, _bits(p.sem.reads.get("DATA"), data_dwords_))
        if p.sem.memory == "atomic" and not p.inst.fields.get("GLC"):
            p.writers["RETURN_DATA"] = lambda st, sel, v, a: None      # no return without GLC
        else:
            self._returns(p, d, vdst, n)

    def _buffer(self, p: Prepared, d):
        """MUBUF/MTBUF: VADDR holds the index (IDXEN) and/or offset (OFFEN), in that order;
        SRSRC names four SGPRs holding the V#; SOFFSET an SGPR, M0, NULL or an inline
        constant (manual ch. 9, Table 37 and 40). emu/buffer.py turns them into addresses."""
        # (imported with the first buffer instruction: most kernels have none)
        from .buffer import IDENTITY_DST_SEL, Resource, lane_addresses
        from .buffer_gfx9 import data_formats as gfx9_data_formats, format_id, gfx9_lane_addresses, resource_format
        f = p.inst.fields
        gfx9 = self.spec.traits.dialect == "gfx9"      # CDNA: the GFX9 V# and range check (emu/buffer_gfx9.py)
        if gfx9 and f.get("LDS"):
            raise PrepareError("the LDS form (buffer load into LDS, 9.1.9) is not modelled yet")
        if f.get("TFE"):
            raise PrepareError("TFE (partially resident texture status) is not modelled")
        idxen, offen, inst_offset = f["IDXEN"], f["OFFEN"], immediate_offset(d.format, f)
        reg, nregs = f["VADDR"], idxen + offen
        if nregs:
            self._vgpr_data(reg, nregs)               # the address registers exist
        rsrc = f["SRSRC"] * 4
        soffset = self._src(f["SOFFSET"], 32, "u", None)
        typed = instruction_facts.typed_buffer(d)     # MTBUF (RDNA3) or VBUFFER's typed forms
        formatted = instruction_facts.converts_format(d)
        formats = gfx9_data_formats(self.spec.tables) if gfx9 else \
            {code: (name, bits, kind) for code, name, bits, kind, _ in self.spec.tables["data_formats"]}

        def access(st, sel, lane_id):
            v = st.vgpr[reg:reg + nregs, sel]
            index = v[0] if idxen else 0
            offset = (v[idxen].astype(np.int64) if offen else 0) + inst_offset
            if gfx9:
                words = st.sgpr[rsrc:rsrc + 4, sel].T
                addr, limit = gfx9_lane_addresses(words, bool(idxen), index, offset, soffset(st, sel),
                                                  lane_id, formatted)
                fmt, dst_sel = resource_format(words)
                if typed:           # MTBUF: the instruction's DFMT/NFMT, identity DST_SEL (9.1.4)
                    fmt, dst_sel = np.full_like(fmt, format_id(f["DFMT"], f["NFMT"])), IDENTITY_DST_SEL
                return {"ADDR": addr, "FORMAT": fmt, "DST_SEL": dst_sel, "FORMATS": formats}, limit, True
            res = Resource.of(st.sgpr[rsrc:rsrc + 4, sel].T)
            addr, limit = lane_addresses(res, index, offset, soffset(st, sel), lane_id, typed)
            extra = {"ADDR": addr, "FORMAT": np.full_like(res.format, f["FORMAT"]) if typed else res.format,
                     "DST_SEL": res.dst_sel if not typed else IDENTITY_DST_SEL, "FORMATS": formats}
            return extra, limit, False
        p.memory, p.buffer = "global", access
        p.inputs["OFFSET"] = inst_offset
        self._vmem_data(p, d, f["VDATA"], f["VDATA"])

    def _image(self, p: Prepared, d):
        """Image loads, stores and atomics without a sampler (emu/image.py): the address VGPRs,
        T# and data VGPRs by the memory record resolved for this encoding
        (isa.memory_registers: address VGPRs by DIM / A16 / NSA, data by DMASK / D16 / TFE, the
        T# by R128, an atomic's return by GLC or TH); the texel's address and range limit per
        lane from the T# (p.buffer, as for MUBUF)."""
        from isa.memory_access import image_address, memory_access, memory_effects
        from isa.memory_registers import image_dims, memory_registers
        from .image import MIP_PAGES, Image, coordinates, lane_texels, tfe_status
        f = {**p.inst.fields, **p.inst.extra}
        tfe = bool(f.get("TFE"))
        if tfe and p.sem.memory != "load":
            raise PrepareError(f"TFE on an image {p.sem.memory}: the manual describes the status VGPR of a fetch "
                               f"only (10.1.1: RDNA3 p. 96-97, RDNA3.5 p. 98-99, RDNA4 p. 119)")
        reads, writes = memory_registers(d, f, self.spec.traits)
        e = memory_effects(d)
        regs = []
        for field, count, _ in e.reads:
            if count == "address" and field in reads:
                regs += range(f[field], f[field] + reads[field])
        for reg in regs:
            self._vgpr_data(reg, 1)
        rsrc_field = next(field for field, count, _ in e.reads if field in ("SRSRC", "RSRC"))
        rsrc = f[rsrc_field] * 4 if rsrc_field == "SRSRC" else f[rsrc_field]
        if rsrc % 4:
            raise PrepareError(f"RSRC s{rsrc}: an image resource starts at an SGPR that is a multiple of 4")
        rsrc_dwords = reads[rsrc_field]
        dim, a16, dmask = f.get("DIM", 0) & 7, bool(f.get("A16")), f.get("DMASK", 0)
        count = image_dims(d)[dim][0]
        names = next((c for code, _, c, _, _ in self.spec.tables.get("image_dims", ()) if code == dim), ())
        mip = image_address(d).mip_level     # its address table group adds mipid
        access_kind = memory_access(d, True)
        atomic = p.sem.memory == "atomic"
        if atomic and (access_kind.element_bits != 32 or dmask != (1 << (access_kind.data_dwords or 1)) - 1):
            raise PrepareError(f"DMASK 0x{dmask:x}: a 32-bit image atomic takes DMASK "
                               f"0x{(1 << (access_kind.data_dwords or 1)) - 1:x} (RDNA3 manual 10.4, p. 103)")
        formats = {code: (name, bits, kind) for code, name, bits, kind, _ in self.spec.tables["data_formats"]}
        texel_bytes = {code: sum(bits) // 8 for code, (_, bits, _) in formats.items()}
        fmt = d.format

        def access(st, sel, lane_id):
            words = st.sgpr[rsrc:rsrc + rsrc_dwords, sel].T
            img = Image.of(words, fmt, dim)
            values = np.stack([st.vgpr[r, sel] for r in regs]) if regs else np.zeros((1,) + lane_id.shape, np.uint32)
            coords = coordinates(values, count + (1 if mip else 0), a16)
            nbytes = np.vectorize(lambda c: texel_bytes.get(int(c), 0), otypes=[np.int64])(img.format)
            if atomic and ((nbytes != 4) & ~img.unbound).any():
                bad = int(img.format[(nbytes != 4) & ~img.unbound][0])
                raise SemanticsError(f"an image atomic on data format {bad} ({formats.get(bad, ('?',))[0]}): "
                                     f"only 32-bit texels are modelled")
            mask = np.asarray(st.exec_mask(sel), np.uint64).reshape(-1, 1)
            active = ((mask >> lane_id.astype(np.uint64)) & np.uint64(1)).astype(bool)
            addr, limit = lane_texels(img, dict(zip(names, coords[:count])), coords[count] if mip else None,
                                      nbytes, active, MIP_PAGES[fmt])
            if tfe:
                tfe_status(img, limit, active)
            extra = {"ADDR": addr, "FORMAT": img.format, "DST_SEL": img.dst_sel, "FORMATS": formats,
                     "UNBOUND": img.unbound}
            return extra, limit, False
        p.memory, p.buffer = "global", access
        # components a store does not supply: 0 (RDNA3 10.4 p. 102), the first VGPR's (RDNA4 10.4.2 p. 124-125)
        p.inputs.update(DMASK=dmask, D16=int(bool(f.get("D16"))), FILL="first" if fmt == "VIMAGE" else "zero")
        vdata = f["VDATA"]
        if p.sem.memory == "load":
            n = writes.get("VDATA", 1) - tfe        # the data; then TFE's status VGPR
            # the status (10.1.1): TEXEL_FAIL | LOD_WARNING << 1 | LOD << 16, with no unmapped page
            # (no NACK), LWE ignored without a sampler and mip level 0: zero. RDNA3 / 3.5 write it
            # ("TD writes to VGPR DST+1 with a status"); RDNA4 "nothing is returned if no thread
            # experiences a texture fault"; with DMASK 0 "TFE status is not generated" (Table 48)
            status = tfe and fmt == "MIMG" and dmask != 0
            self._vgpr_data(vdata, n + tfe)         # the status VGPR exists, written or not (RDNA4 3.3.4)
            write = _write_vgprs(vdata, n + status)     # the semantic's four dwords, of which the encoding's n

            def write_load(st, sel, v, a):
                v = v[..., :n]
                if status:
                    v = np.concatenate([v, np.zeros(v.shape[:-1] + (1,), v.dtype)], axis=-1)
                write(st, sel, v[..., 0] if v.shape[-1] == 1 else v, a)
            p.writers["VDATA"] = write_load
            p.lazy["VDATA"] = self._vgpr_data(vdata, n)
        elif p.sem.memory == "store":
            p.inputs["VDATA"] = self._vgpr_data(vdata, reads["VDATA"])
        else:
            p.inputs["DATA"] = self._vgpr_data(vdata, reads["VDATA"])
            if "VDATA" in writes:
                p.writers["RETURN_DATA"] = _write_vgprs(vdata, writes["VDATA"])
            else:
                p.writers["RETURN_DATA"] = lambda st, sel, v, a: None


def _scalar_register(what: str, code: int) -> int:
    """A lane-mask or SGPR destination/source code: SGPRs, VCC, TTMP, NULL, M0, EXEC (0-127)."""
    if not 0 <= code < SCALAR_CODES:
        raise OperandError(f"{what} must be a scalar register, got operand code {code}")
    return code


def _numbers(p: Prepared, numbers: dict) -> None:
    """Register numbers (ints) a pseudocode may index a register file with (VGPR[lane][SRC0],
    SGPR[DST]), supplied only if the semantic asks for them."""
    for name, value in numbers.items():
        if value is not None:
            p.lazy.setdefault(name, lambda st, sel, v=value: v)


def _bits(op, default_dwords: int) -> int:
    return max(1, op.bits // 32) if op is not None and op.bits >= 32 else default_dwords


def _modified(fetch, bits, neg, abs_):
    return lambda st, sel: modifiers(np.asarray(fetch(st, sel)), bits, neg, abs_)

"""The Python DSL: one function per instruction, generated from the ISA data, and a
Kernel builder with labels and virtual registers (k.vreg(), k.sreg(2)) that are allocated
when the kernel is assembled.

    from dsl.rdna3 import *
    k = Kernel("gfx1100")
    k += s_load_b64(s[2:3], s[0:1], 0)
    k.label("loop")
    k += v_add_f32(v[1], 1.0, v[1])
    k += s_sub_u32(s[4], s[4], 1)
    k += s_cbranch_scc1("loop")
    k += s_endpgm()
    code = k.assemble(); print(k)
"""
from __future__ import annotations

from dataclasses import field, replace
from functools import lru_cache

import isa

import regalloc

from isa.records import dataclass

from . import families
from .allocation import RecordingEncoder, build_program, check_virtuals_noted, physical_instr
from .instr import NO_MODIFIERS, Instr, Modifiers
from .statement import Attr, Call
from .decode import decode_one
from .encode import Encoder, split_mnemonic
from .kernel_gfx9 import Gfx9Inst
from .operands import Mod, OperandError, Reg, VReg
from .disasm import instruction_text


@dataclass
class Inst:
    """An Instr placed in a Kernel: encoded (and so checked) when created, with its bytes, its
    branch label and the register operands as the encoder placed them (for the allocator).
    `instr` is the Instr written, its definition and encoding filled in by the encoder."""
    instr: Instr
    encoder: Encoder = field(repr=False)
    data: bytes = b""
    label: str | None = None     # branch target, resolved by Kernel.assemble()

    record: object = field(default=None, repr=False)   # register operands as the encoder placed them

    def __post_init__(self):
        # the encoding is chosen here, where the DSL builds the Instr (an Instr with its defn
        # already chosen, such as one re-placed after register allocation, keeps it)
        self.instr, self.data, self.label = self.encoder.select(self.instr)
        self.record = getattr(self.encoder, "record", None)
        if self.record is not None and self.has_virtual:
            check_virtuals_noted(self.instr, self.record)

    @property
    def has_virtual(self) -> bool:
        parts = [self.instr] + ([self.instr.dual] if self.instr.dual else [])
        return any(isinstance(o.value if isinstance(o, Mod) else o, VReg) for p in parts for o in p.operands)

    def __bytes__(self) -> bytes:
        return self.data

    def __str__(self) -> str:
        spec = self.encoder.spec
        if self.has_virtual:     # the encoding holds placeholders: print what was written
            return self.instr.text(spec)
        text = instruction_text(spec, decode_one(spec, self.data), self.encoder.wave)
        if self.label is not None:
            text = text.rsplit(" ", 1)[0] + " " + self.label
        return text


@dataclass
class VopdHalf:
    """One half of a dual-issue pair (v_dual_*), until vopd() joins it with the other."""
    instr: Instr


def _convert(v):
    """DSL spellings -> assembler values: a str operand is a label or a symbolic name."""
    if isinstance(v, str):
        return Attr(v)
    if isinstance(v, (list, tuple)):
        return [_convert(x) for x in v]
    return v


def make_function(encoder: Encoder, mnemonic: str, doc: str, vopd_half: bool = False):
    """The DSL function of `mnemonic`; `vopd_half`: it names a dual-issue half (a VOPD
    instruction), which vopd() pairs, not an instruction of its own."""
    def instruction(*operands, **modifiers):
        mods = {}
        for key, val in modifiers.items():
            if val is False or val is None:
                continue
            mods[key] = _convert(val)
        st = Instr(mnemonic, tuple(_convert(o) for o in operands), Modifiers(mods) if mods else NO_MODIFIERS)
        if vopd_half:
            return VopdHalf(st)
        try:
            return Inst(st, encoder)
        except OperandError:
            raise
        except ValueError as e:
            raise OperandError(str(e)) from None
    instruction.__name__ = instruction.__qualname__ = mnemonic
    instruction.__doc__ = doc
    return instruction


def build_namespace(arch: str, wave_size: int | None = None) -> dict:
    """{llvm mnemonic: function} for every instruction of `arch`, with explicit
    _e32/_e64/_dpp/_e64_dpp variants where an instruction has several encodings."""
    spec = families.load_for_dsl(arch)
    enc = RecordingEncoder(spec, wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)])
    from isa.mnemonics import text_mnemonic
    names: dict[str, str] = {}
    vopd = set()
    roles = spec.traits.roles
    for d in spec.instructions:
        base = text_mnemonic(d.name, spec.arch)
        doc = f"{d.name} ({d.format}, opcode {d.opcode}): {d.description or ''}"
        names.setdefault(base, doc)
        if d.format == "VOPD":
            vopd.add(base)
        if d.format in roles.valu_e32:
            names.setdefault(base + "_e32", doc)
            names.setdefault(base + "_dpp", doc)
        elif d.format in roles.valu_e64:
            # VOP3-only instructions take _e64 too, and DPP where the encoder allows it
            names.setdefault(base + "_e64", doc)
            names.setdefault(base + "_e64_dpp", doc)
    ns = {name: make_function(enc, name, doc, name in vopd) for name, doc in names.items()}

    def vopd(x: VopdHalf, y: VopdHalf) -> Inst:
        """A dual-issue pair: vopd(v_dual_add_f32(v[0], v[1], v[2]), v_dual_mul_f32(v[3], v[4], v[5]))."""
        return Inst(replace(x.instr, dual=y.instr), enc)
    ns["vopd"] = vopd
    return ns


class Kernel:
    """A program under construction: append instructions, place labels, assemble.

    Registers may be physical (s[0:1], v[0]: where the ABI fixes them) or virtual:
    k.vreg(), k.vreg(4), k.sreg(2) return registers the allocator places when the kernel
    is assembled. Register use is reported by k.vgprs, k.sgprs, k.peak_vgprs,
    k.peak_sgprs, k.waves_per_simd and k.stats() (physical-only kernels too)."""

    def __init__(self, arch: str = "gfx1100", wave_size: int | None = None, name: str = "kernel",
                 max_vgprs: int | None = None, max_sgprs: int | None = None):
        if not isinstance(arch, str):
            raise OperandError(f"Kernel({arch!r}): give a target name such as 'gfx1100'")
        try:
            self.family = isa.resolve_arch(arch)
        except ValueError as e:
            raise OperandError(f"Kernel({arch!r}): {e}") from None
        if wave_size is not None and wave_size not in (32, 64):
            raise OperandError(f"Kernel({arch!r}, wave_size={wave_size!r}): a wave has 32 or 64 lanes")
        if wave_size == 32 and isa.WAVE_SIZE[self.family] == 64:
            raise OperandError(f"Kernel({arch!r}, wave_size=32): {self.family} runs wave64 only")
        self.arch = arch
        self.name = name
        self.wave_size = wave_size or isa.WAVE_SIZE[self.family]
        self.max_vgprs = max_vgprs      # fewer VGPRs than the file (an occupancy target): spill beyond it
        self.max_sgprs = max_sgprs      # fewer SGPRs than the file: spill beyond it (into VGPR lanes)
        self.spills = None              # SpillReport once allocated (falsy when nothing was spilled)
        self._lowered = self            # the kernel with spill code, once allocated
        self.items: list = []
        self.labels: dict[str, int] = {}
        self.virtuals: list[VReg] = []
        self._virtual_names: tuple[list, set] | None = None   # (the virtuals list, its names) for the uniqueness check
        self._allocation = None
        self._allocated_for = None

    @property
    def spec(self):
        return families.load_for_dsl(self.arch)

    # ------------------------------------------------------------ virtual registers

    def _virtual(self, cls: str, width: int, name: str | None) -> VReg:
        if not isinstance(width, int) or not 1 <= width <= 16:
            raise OperandError(f"a virtual register is 1 to 16 dwords wide, got {width!r}")
        vid = len(self.virtuals)
        name = name or f"{cls}{vid}"
        names = getattr(self, "_virtual_names", None)   # absent on a kernel copied without __init__
        # rebuilt when the list was replaced (dsl/spill.py copies one in) or grew elsewhere
        if names is None or names[0] is not self.virtuals or len(names[1]) != vid:
            names = self._virtual_names = (self.virtuals, {v.name for v in self.virtuals})
        if name in names[1]:
            raise OperandError(f"virtual register name %{name} is already used in this kernel")
        reg = VReg(cls, 0, width, None, vid, width, 0, name, id(self))
        self.virtuals.append(reg)
        names[1].add(name)
        return reg

    def vreg(self, width: int = 1, name: str | None = None) -> VReg:
        """A virtual VGPR of `width` dwords (1-16); x[1], x[0:1] name parts of it."""
        return self._virtual("v", width, name)

    def sreg(self, width: int = 1, name: str | None = None) -> VReg:
        """A virtual SGPR of `width` dwords (1-16); aligned as its operands require."""
        return self._virtual("s", width, name)

    def areg(self, width: int = 1, name: str | None = None) -> VReg:
        """A virtual AGPR (CDNA's accumulation registers: MFMA's C and D, v_accvgpr_*) of
        `width` dwords (1-16); even-aligned when wider than one."""
        if not self.spec.traits.agprs:
            raise OperandError(f"Kernel({self.arch!r}).areg: {self.family} has no AGPRs")
        return self._virtual("a", width, name)

    # ------------------------------------------------------------ building

    def append(self, inst: Inst) -> "Kernel":
        if not isinstance(inst, _instruction_types()):
            raise OperandError(f"Kernel.append takes an instruction built by a DSL function, got {inst!r}")
        if inst.encoder.spec is not self.spec:
            # another architecture's opcode would be a different (or no) instruction here
            raise OperandError(f"{inst.instr.mnemonic} was built for {inst.encoder.spec.arch}, but this Kernel is "
                               f"for {self.arch} ({self.family}); use dsl.{self.family.replace('.', '_')}'s "
                               f"functions")
        if inst.has_virtual:
            for v in _virtual_operands(inst.instr):
                if v.owner != id(self):
                    raise OperandError(f"{inst}: virtual register {v} was made by another Kernel")
        self.items.append(inst)
        return self

    def __iadd__(self, inst):
        for i in inst if isinstance(inst, (list, tuple)) else [inst]:
            self.append(i)
        return self

    def label(self, name: str) -> None:
        if name in self.labels:
            raise OperandError(f"label {name!r} is already defined")
        self.labels[name] = len(self.items)

    # ------------------------------------------------------------ allocation

    def program(self) -> regalloc.Program:
        """The kernel as regalloc sees it: per instruction, registers read and written and successors."""
        return build_program(self)

    def allocate(self) -> regalloc.Allocation:
        """Place the virtual registers (cached until the kernel changes). Raises
        regalloc.RegisterPressureError naming the instruction and live values when the
        registers do not suffice."""
        key = (len(self.items), len(self.labels), len(self.virtuals), self.max_vgprs, self.max_sgprs)
        if self._allocated_for != key:
            if any(i.record is None for i in self.items):
                raise OperandError("register allocation needs instructions built by this package's DSL functions")
            lim = regalloc.limits(self.arch, self.wave_size)
            if self.max_vgprs is not None:
                if not 1 <= self.max_vgprs <= lim.vgprs:
                    raise OperandError(f"max_vgprs must be 1..{lim.vgprs}, got {self.max_vgprs!r}")
                lim = replace(lim, vgprs=self.max_vgprs)
            if self.max_sgprs is not None:
                if not 1 <= self.max_sgprs <= lim.sgprs:
                    raise OperandError(f"max_sgprs must be 1..{lim.sgprs}, got {self.max_sgprs!r}")
                lim = replace(lim, sgprs=self.max_sgprs)
            self._lowered, self._allocation, self.spills = _allocate_with_spills(self, lim)
            self._allocated_for = key
        return self._allocation

    def physical(self) -> "Kernel":
        """A copy of the kernel with every virtual register replaced by its physical one
        (moves the allocation made into no-ops are left out). The kernel itself if it has
        no virtual registers."""
        if not self.virtuals:
            return self
        alloc = self.allocate()
        src = self._lowered
        dropped = set(alloc.identity_copies)
        out = Kernel(self.arch, self.wave_size, self.name)
        new_index = []
        for i, inst in enumerate(src.items):
            new_index.append(len(out.items))
            if i in dropped:
                continue
            out.items.append(type(inst)(physical_instr(inst.instr, alloc, i), inst.encoder)
                             if inst.has_virtual else inst)
        new_index.append(len(out.items))
        out.labels = {name: new_index[idx] for name, idx in src.labels.items()}
        return out

    @property
    def vgprs(self) -> int:
        """VGPRs the kernel uses (highest VGPR + 1) after allocation."""
        return self.allocate().vgprs

    @property
    def sgprs(self) -> int:
        """SGPRs s0.. the kernel uses (highest + 1; VCC, EXEC, M0 not included)."""
        return self.allocate().sgprs

    @property
    def peak_vgprs(self) -> int:
        """Most VGPR dwords live at one program point (a lower bound on vgprs)."""
        return self.allocate().peak["v"]

    @property
    def peak_sgprs(self) -> int:
        return self.allocate().peak["s"]

    @property
    def waves_per_simd(self) -> int:
        """Occupancy: waves of this kernel per SIMD as limited by its VGPRs."""
        return self.allocate().waves_per_simd

    @property
    def agprs(self) -> int:
        """AGPRs the kernel uses (highest AGPR + 1; 0 without AGPRs) after allocation."""
        return self.allocate().agprs

    @property
    def accum_offset(self) -> int:
        """Where the AGPRs start in CDNA's unified VGPR/AGPR file: VGPRs rounded up to 4."""
        return self.allocate().accum_offset

    @property
    def unified_vgprs(self) -> int:
        """Registers of CDNA's unified file the kernel takes (accum_offset + AGPRs, or the VGPRs)."""
        return self.allocate().unified_vgprs

    def stats(self) -> dict:
        a = self.allocate()
        lim = a.limits
        agpr_stats = {"agprs": a.agprs, "peak_agprs": a.peak.get("a", 0), "accum_offset": a.accum_offset,
                      "unified_vgprs": a.unified_vgprs} if lim.agprs else {}
        return {**agpr_stats, "vgprs": a.vgprs, "sgprs": a.sgprs, "peak_vgprs": a.peak["v"], "peak_sgprs": a.peak["s"],
                "waves_per_simd": a.waves_per_simd, "vgpr_granule": lim.vgpr_granule,
                "vgpr_file": lim.vgpr_file, "max_waves_per_simd": lim.max_waves_per_simd,
                "copies_removed": len(a.identity_copies) if self.virtuals else 0,
                "spilled_vgprs": len(self.spills.vgprs) if self.spills else 0,
                "spilled_sgprs": len(self.spills.sgprs) if self.spills else 0,
                "rematerialised": len(self.spills.rematerialised) if self.spills else 0,
                "scratch_bytes": self.spills.scratch_bytes if self.spills else 0,
                **({"spilled_to_agprs": self.spills.agpr_dwords if self.spills else 0} if lim.agprs else {})}

    @property
    def scratch_bytes(self) -> int:
        """Scratch memory per work-item the kernel's spills need (0 without spills)."""
        self.allocate()
        return self.spills.scratch_bytes if self.spills else 0

    # ------------------------------------------------------------ output

    def assemble(self) -> bytes:
        """Machine code; virtual registers are allocated first."""
        if self.virtuals:
            return self.physical().assemble()
        out = bytearray()
        addr = {}
        pos = []
        for i, inst in enumerate(self.items):
            pos.append(len(out))
            out += inst.data
        for name, idx in self.labels.items():
            addr[name] = pos[idx] if idx < len(pos) else len(out)
        for inst, p in zip(self.items, pos):
            if inst.label is None:
                continue
            if inst.label not in addr:
                raise OperandError(f"{inst.instr.mnemonic}: undefined label {inst.label!r}")
            delta = (addr[inst.label] - (p + 4)) // 4
            if not -0x8000 <= delta <= 0x7fff:
                raise OperandError(f"{inst.instr.mnemonic}: label {inst.label!r} is {delta} dwords away; "
                                   f"a branch reaches -32768..32767")
            out[p:p + 2] = (delta & 0xffff).to_bytes(2, "little")
        return bytes(out)

    def __str__(self) -> str:
        lines = []
        at = {}
        for name, idx in self.labels.items():
            at.setdefault(idx, []).append(name)
        for i, inst in enumerate(self.items):
            lines += [f"{n}:" for n in at.get(i, [])]
            lines.append("  " + str(inst))
        lines += [f"{n}:" for n in at.get(len(self.items), [])]
        return "\n".join(lines)


@lru_cache(maxsize=None)
def _spill_namespace(arch: str, wave: int) -> dict:
    if isa.traits(isa.resolve_arch(arch)).dialect == "gfx9":
        from .kernel_gfx9 import build_namespace as build_gfx9
        return build_gfx9(arch)
    return build_namespace(arch, wave)


def _allocate_with_spills(kernel: "Kernel", lim):
    """(kernel with spill code, its Allocation, SpillReport). Spills only when the values do
    not fit: first the SGPRs (into VGPR lanes), then VGPRs (to scratch, or to AGPRs on CDNA),
    with a lower target each round while first fit still finds no room (fragmented tuples, VOPD
    rules). AGPRs themselves are not spilled."""
    from regalloc.spill import SpillError, choose_spills

    from .spill import SpillReport, constants, spill_kernel
    prog = kernel.program()
    try:
        return kernel, regalloc.allocate(prog, lim), SpillReport()
    except regalloc.RegisterPressureError as e:
        first_error = e
    if first_error.file == "a":         # AGPRs are not spilled
        raise regalloc.RegisterPressureError(f"{first_error}; {kernel.family} kernels do not spill "
                                             f"{regalloc.FILE_NAMES[first_error.file]}s yet") from None
    s_spill: list[int] = []
    v_spill: list[int] = []
    cheap = frozenset(constants(kernel, prog))      # recomputed rather than stored: spilled first
    margin = {"v": 0, "s": 0}
    for _ in range(10):
        try:
            s_spill = sorted(set(s_spill) | set(choose_spills(prog, "s", max(lim.sgprs - margin["s"], 1), lim.sgprs, cheap)))
            holders = -(-sum(kernel.virtuals[v].width for v in s_spill) // kernel.wave_size)
            v_spill = sorted(set(v_spill) | set(choose_spills(prog, "v", max(lim.vgprs - holders - margin["v"], 1),
                                                              lim.vgprs, cheap)))
        except SpillError as e:
            raise regalloc.RegisterPressureError(f"{first_error}; spilling cannot help: {e}") from None
        lowered, report = spill_kernel(kernel, v_spill, s_spill, _spill_namespace(kernel.arch, kernel.wave_size))
        try:
            return lowered, regalloc.allocate(lowered.program(), lim), report
        except regalloc.RegisterPressureError as e:
            if e.file == "a":            # the spilled VGPRs do not fit the AGPRs either
                raise regalloc.RegisterPressureError(f"{first_error}; spilling to AGPRs cannot help: {e}") from None
            margin[e.file] += 2          # first fit found no room (tuples, rules): aim lower in that file
    raise first_error


def _instruction_types() -> tuple:
    return Inst, Gfx9Inst


def _virtual_operands(st: Instr) -> list[VReg]:
    parts = [st] + ([st.dual] if st.dual else [])
    return [o.value if isinstance(o, Mod) else o for p in parts for o in p.operands
            if isinstance(o.value if isinstance(o, Mod) else o, VReg)]

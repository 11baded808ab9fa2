"""Random-program differential fuzzer of the emulator: random valid RDNA3, RDNA4, CDNA3 and CDNA4 programs, built with
the DSL's instruction functions, run in fast mode and in reference mode (emu/options.py: every
fast path off); memory, final registers and faults must agree bit for bit.

A program is a prologue that loads random data into VGPRs v8..v31 (per lane) and SGPRs
s8..s31 (per work-group), then a body of random instructions drawn from the ISA's own
instruction list: VALU (VOP1/VOP2/VOP3/VOP3SD/VOP3P/VOPC, e32 and e64 forms, DPP16 and DPP8,
neg/abs/clamp/omod/op_sel modifiers), VOPD pairs, SALU (SOP1/SOP2/SOPC/SOPK), DS, GLOBAL and
SCRATCH loads/stores/atomics (with `flat=True` / `--flat` also FLAT ones whose lanes reach global
memory, the LDS and scratch through the apertures, one space or two alternating), writes of EXEC, forward branches that make waves diverge, and
barriers. Data includes NaN (quiet and signalling), +-inf, +-0, denormals of every width and
extreme integers. Launches have one or two work-groups of one to three waves (the last one
partial at times), wave32 or wave64, gfx1100, gfx1151 or gfx1201 (RDNA4: its memory formats
VDS/VGLOBAL/VSCRATCH, TH's return bit for atomics, split waits and barriers) or gfx942/gfx950 (wave64,
the gfx9 syntax's DSL: VOP3A/VOP3B, GFX9 DPP controls, SC0 for returning atomics, v_cmpx
writing VCC, and AGPR moves: v_accvgpr_write/read/mov on a0..a15 after the VGPRs).

Each wave's LDS and global stores go to its own slice (addresses are masked into it), so
results never depend on the order of waves, which the two modes share anyway. Operands are
drawn at random and checked by the DSL's encoder: a combination it refuses is drawn again.

    python -m tests.emu_fuzz --seconds 600            # offline: as many programs as fit
    python -m tests.emu_fuzz --seeds 0:500 --target gfx1100-w64
    python -m tests.emu_fuzz --faults                 # memory instructions that fault part way
    python -m tests.emu_fuzz --corpus                 # the kernel corpus in full reference mode
                                                      # (WAVESMITH_LAUNCH_SECONDS=300 on a loaded machine)
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from dataclasses import dataclass, field

import numpy as np

import isa
from dsl.asm_gfx9 import Gfx9AsmError
from dsl.kernel import build_namespace
from dsl.operands import OperandError, Reg, Special, exec_hi, exec_lo, lit, m0, null, off, s, v, vcc, vcc_hi, vcc_lo
from dsl.signature import ds_layout, flat_layout, scalar_layout, valu_signature, vopd_base
from isa.memory_access import memory_effects

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx1201-w64", "gfx942-w64", "gfx950-w64")
FUZZ_VGPRS = range(8, 32)          # v8..v31 hold data; v0 ids, v1 input offset, v2 LDS base,
V_GLOBAL, V_LDS, V_ADDR, V_ADDR64 = 3, 2, 4, 6     # v3 global slice, v4 an address, v[6:7] a 64-bit one
V_SECOND = 5                       # FLAT: a second lane's low address dword
V_SHARED_HI, V_PRIVATE_HI = 32, 33  # FLAT: the apertures' high dwords (only with flat=True)
LANE_MIX = 0x5555555555555555      # FLAT: s[4:5] after the prologue: which lanes take the second address
FUZZ_SGPRS = range(8, 32)          # s[0:1] input, s[2:3] work buffer, s[4:5] SGPR data, s6 group id, s7 temp
IN_DWORDS = len(FUZZ_VGPRS)        # input dwords per lane
SGPR_DWORDS = len(FUZZ_SGPRS)
LDS_SLICE = 1024                   # bytes of LDS per wave
WORK_SLICE = 2048                  # bytes of the work buffer per wave
SCRATCH_BYTES = 256                # private bytes per lane
VGPRS = 40
AGPRS = 16                         # CDNA: a0..a15 after the VGPRs (accum_offset VGPRS)
# faults=True: the share of memory instructions whose address one lane (or more) poisons, for
# one access and for several (wide, two addresses, atomics)
FAULT_SHARE = {False: 0.08, True: 0.3}

# Instructions the generator never draws, each with its reason.
EXCLUDED = {
    # nondeterministic by definition: clocks
    "S_MEMTIME": "reads a clock", "S_MEMREALTIME": "reads a clock", "S_SENDMSG_RTN_B32": "returns a clock",
    "S_SENDMSG_RTN_B64": "returns a clock", "S_GETREG_B32": "HW_REGISTERS hold clocks and ids of the hardware",
}
# formats and name patterns outside the generator's program shape (straight-line code with
# forward branches it places itself): leaving the program, jumps to computed addresses,
# MODE rounding the emulator refuses, graphics and cross-work-group data; RDNA4's split waits and
# barriers (placed by the generator itself) and its block loads/stores (32 VGPRs: wider than the
# data registers)
_SKIP = re.compile(r"^(S_SETPC|S_SWAPPC|S_RFE|S_CALL|S_SETREG|S_ROUND_MODE|S_TRAP|S_SETHALT|S_ENDPGM|S_CBRANCH|"
                   r"S_BRANCH|S_SENDMSG|S_BARRIER|S_SLEEP|S_WAITCNT|S_ICACHE|S_SUBVECTOR|S_TTRACE|S_WAKEUP|S_SETKILL|"
                   r"S_INCPERFLEVEL|S_DECPERFLEVEL|S_CLAUSE|S_DELAY_ALU|S_CODE_END|S_SET_INST_PREFETCH|S_SETPRIO|"
                   r"S_DCACHE|DS_GWS|DS_ORDERED|DS_NOP|DS_BVH|DS_ADD_GS|DS_SUB_GS|DS_APPEND|DS_CONSUME|"
                   r"(GLOBAL|SCRATCH|FLAT)_.*_ADDTID_|V_INTERP|V_READFIRSTLANE_B32_DUMMY|S_WAIT_|S_BARRIER_|S_GET_BARRIER|.*_BLOCK$)")
_SOPP_KEEP = ("S_NOP", "S_DENORM_MODE")

# bit patterns the data is drawn from, besides uniform random bits
F32 = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000,
       0x00000001, 0x807FFFFF, 0x00400000, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000,
       0xBF800000, 0x3F000000, 0x40490FDB, 0x4B000000, 0x4F000000, 0xCF000000, 0x3F800001, 0x33800000]
F16 = [0x7E00, 0x7C01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00,
       0xBC00, 0x3800, 0x4200, 0x5640, 0x1400]
F64_HI = [0x7FF80000, 0x7FF00000, 0xFFF00000, 0x7FF00001, 0x00000000, 0x80000000, 0x000FFFFF, 0x00100000,
          0x7FEFFFFF, 0x3FF00000, 0xBFF00000, 0x3FE00000, 0x43300000, 0x41E00000, 0xC1E00000, 0x3CA00000]
INTS = [0, 1, 2, 3, 0xFFFFFFFF, 0xFFFFFFFE, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFF, 0x8000, 0x7FFF,
        0x10000, 31, 32, 33, 63, 64, 65, 0xFF, 0x80, 0x100, 0xFFFF0000, 0x55555555, 0xAAAAAAAA]


def special_dwords(rng: np.random.Generator, n: int) -> np.ndarray:
    """n dwords: a quarter random bits, the rest f32/f16-pair/f64-half/integer patterns."""
    kind = rng.integers(0, 8, n)
    out = rng.integers(0, 2**32, n, dtype=np.uint64)
    pick = lambda table, k: np.array(table, np.uint64)[rng.integers(0, len(table), k)]
    for k, table in ((2, F32), (3, F32), (4, INTS), (5, INTS)):
        m = kind == k
        out[m] = pick(table, int(m.sum()))
    m = kind == 6                   # two f16 halves
    out[m] = pick(F16, int(m.sum())) | pick(F16, int(m.sum())) << np.uint64(16)
    m = kind == 7                   # an f64 high dword, or a small random integer
    out[m] = np.where(rng.random(int(m.sum())) < 0.6, pick(F64_HI, int(m.sum())),
                      rng.integers(0, 100, int(m.sum())).astype(np.uint64))
    return out.astype(np.uint32)


@dataclass
class Program:
    code: bytes
    target: str
    grid: int
    block: int
    texts: list[str] = field(default_factory=list)
    drawn: dict[str, int] = field(default_factory=dict)    # class -> instructions drawn
    insts: list = field(default_factory=list)              # the DSL instructions (to cut a program short)

    def prefix(self, n: int) -> "Program":
        """The first n instructions and s_endpgm (to find where two runs part)."""
        code = b"".join(bytes(x) for x in self.insts[:n]) + self.code[-4:]
        return Program(code, self.target, self.grid, self.block, self.texts[:n] + self.texts[-1:], self.drawn,
                       self.insts[:n] + self.insts[-1:])

    @property
    def wave(self) -> int:
        return 64 if self.target.endswith("w64") else 32

    @property
    def arch(self) -> str:
        return self.target.split("-")[0]

    def listing(self) -> str:
        return "\n".join(self.texts)


class Generator:
    """Random programs for one target (architecture and wave size)."""

    def __init__(self, target: str, flat: bool = False, faults: bool = False):
        self.target, self.flat, self.faults = target, flat, faults
        # the launch of the program being drawn (program() sets them): work-items per group, bytes
        # of the work buffer and of LDS per work-group (a poisoned address lands past their ends)
        self.block, self.work_bytes, self.lds_bytes = 0, 0, 0
        self.arch, self.wave = target.split("-")[0], 64 if target.endswith("w64") else 32
        self.spec = isa.load(self.arch)
        if isa.resolve_arch(self.arch) in ("cdna3", "cdna4"):
            from dsl.kernel_gfx9 import build_namespace as build_gfx9
            self.ns = build_gfx9(self.arch)
        else:
            self.ns = build_namespace(self.arch, self.wave)
        from emu.table import load_semantics
        self.table = load_semantics(self.arch)
        self.mask_pair = self.wave == 64
        self.rdna4 = isa.resolve_arch(self.arch) == "rdna4"
        self.gfx9 = isa.resolve_arch(self.arch) in ("cdna3", "cdna4")     # wave64, GFX9 mnemonics
        # the few instructions the generator places itself, in the target's spelling
        self.add_u32 = self.ns["v_add_u32" if self.gfx9 else "v_add_nc_u32"]
        self.load_8_sgprs = self.ns["s_load_dwordx8" if self.gfx9 else "s_load_b256"]
        self.load_4_vgprs = self.ns["global_load_dwordx4" if self.gfx9 else "global_load_b128"]
        usable = [d for d in self.spec.instructions if d.name not in EXCLUDED and not _SKIP.match(d.name)]
        by = lambda *fmts: [d for d in usable if d.format in fmts]
        self.pools = {
            "valu": by("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P", "VOP3A", "VOP3B"),
            "vopd": by("VOPD"),
            "salu": by("SOP1", "SOP2", "SOPC", "SOPK") + [d for d in by("SOPP") if d.name in _SOPP_KEEP],
            "ds": by("DS", "VDS"),             # RDNA4 names the memory formats VDS, VGLOBAL, VSCRATCH
            "global": by("GLOBAL", "VGLOBAL"),
            "scratch": by("SCRATCH", "VSCRATCH"),
            "flat": [d for d in by("FLAT", "VFLAT") if d.name.startswith("FLAT_")],
        }
        self.weights = {"valu": 55, "vopd": 5, "salu": 18, "ds": 8, "global": 5, "scratch": 4, "exec": 2,
                        "branch": 2, "barrier": 1}
        if flat:            # FLAT loads/stores/atomics into global memory, the LDS and scratch through the apertures
            self.weights["flat"] = 8
        if self.gfx9:       # AGPR moves (the VALU pool's v_accvgpr_* draw VGPRs, which they refuse)
            self.weights["agpr"] = 4
        self.unsupported: set[str] = set()

    # ------------------------------------------------------------------ operands
    def lit(self, value: int):
        """A 32-bit literal (the gfx9 syntax writes the number itself)."""
        return value if self.gfx9 else lit(value)

    def vreg(self, rng, dwords=1):
        if dwords > len(FUZZ_VGPRS):        # gfx950's 32-register fp6/bf6 conversion operands
            raise OperandError(f"{dwords} VGPRs do not fit in v{FUZZ_VGPRS.start}..v{FUZZ_VGPRS.stop - 1}")
        first = int(rng.integers(FUZZ_VGPRS.start, FUZZ_VGPRS.stop - dwords + 1))
        return v[first] if dwords == 1 else v[first:first + dwords - 1]

    def sreg(self, rng, dwords=1, dest=False):
        r = rng.random()
        if dwords == 1:
            if r < 0.08:
                return [vcc_lo, vcc_hi, m0][int(rng.integers(0, 3))] if not dest or r < 0.05 else m0
            if r < 0.1 and not dest:
                return exec_lo
            first = int(rng.integers(FUZZ_SGPRS.start, FUZZ_SGPRS.stop))
            return s[first]
        if dwords == 2 and r < 0.1:
            return vcc
        if dwords > len(FUZZ_SGPRS):
            raise OperandError(f"{dwords} SGPRs do not fit in s{FUZZ_SGPRS.start}..s{FUZZ_SGPRS.stop - 1}")
        first = int(rng.integers(FUZZ_SGPRS.start // 2, (FUZZ_SGPRS.stop - dwords) // 2 + 1)) * 2
        if dwords > 2:
            first = int(rng.integers(FUZZ_SGPRS.start // 4, (FUZZ_SGPRS.stop - dwords) // 4 + 1)) * 4
        return s[first:first + dwords - 1]

    def mask_reg(self, rng):
        """An SGPR (pair in wave64) holding a lane mask, VCC or null."""
        r = rng.random()
        if r < 0.35:
            return vcc_lo if self.wave == 32 else vcc
        if r < 0.4:
            return null
        return self.sreg(rng, 2 if self.mask_pair else 1) if r > 0.45 else self.sreg(rng, 2 if self.mask_pair else 1)

    def constant(self, rng, bits=32, ftype="b"):
        r = rng.random()
        if r < 0.4:
            return int(rng.integers(-16, 65))
        if r < 0.7:
            return float(rng.choice([0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0]))
        value = int(special_dwords(rng, 1)[0])
        if bits == 64:
            value = (int(rng.choice(F64_HI)) << 32 | int(rng.integers(0, 2))) if ftype == "f" else value
        return self.lit(value)

    def source(self, rng, operand, allow_const=True):
        """A random source: mostly a VGPR, else an SGPR or a constant (allow_const: either)."""
        dwords = max(1, operand.dwords)
        r = rng.random()
        if r < 0.55 or not allow_const:
            reg = self.vreg(rng, dwords)
            if operand.t16 and dwords == 1 and rng.random() < 0.3:
                reg = reg.h if rng.random() < 0.5 else reg.l
            return reg
        if r < 0.75:
            return self.sreg(rng, dwords)
        return self.constant(rng, operand.bits, operand.ftype)

    # ------------------------------------------------------------------ instructions
    def has_semantics(self, d) -> bool:
        if d.name in self.unsupported:
            return False
        base = vopd_base(self.spec, d) if d.format == "VOPD" else d
        if self.table.get(base) is None and self.table.get(d) is None:
            self.unsupported.add(d.name)
            return False
        return True

    def pick(self, rng, pool):
        for _ in range(20):
            d = self.pools[pool][int(rng.integers(0, len(self.pools[pool])))]
            if self.has_semantics(d):
                return d
        return None

    def valu(self, rng):
        d = self.pick(rng, "valu")
        if d is None:
            return None
        from isa.mnemonics import text_mnemonic
        sig = valu_signature(d)
        base = text_mnemonic(d.name, self.spec.arch)
        e64 = d.format in ("VOP3", "VOP3SD", "VOP3P", "VOP3A", "VOP3B")
        promoted = e64 and d.promoted_from
        mnemonic = base + ("_e64" if promoted and (not self.gfx9 or base + "_e64" in self.ns) else "")
        mods = {}
        dpp = not e64 and d.format in ("VOP1", "VOP2", "VOPC") and rng.random() < 0.2
        if dpp:
            mnemonic = base + "_dpp"
            if rng.random() < 0.4 and not self.gfx9:
                mods["dpp8"] = [int(x) for x in rng.integers(0, 8, 8)]
            else:
                mods.update(self.dpp16(rng))
        elif not e64 and d.format in ("VOP1", "VOP2", "VOPC"):
            mnemonic = base + "_e32"
        ops = []
        for dst in sig.dsts:
            if dst.is_mask:
                ops.append((vcc_lo if self.wave == 32 else vcc) if not e64 else self.mask_reg(rng))
            elif dst.sgpr:
                ops.append(self.sreg(rng, 1, dest=True))
            else:
                reg = self.vreg(rng, dst.dwords)
                if dst.t16 and not e64 and rng.random() < 0.3:
                    reg = reg.h
                ops.append(reg)
        if sig.vcc_out:
            ops.append(self.mask_reg(rng) if e64 else (vcc_lo if self.wave == 32 else vcc))
        for i, src in enumerate(sig.srcs):
            if src.is_mask:
                ops.append(self.mask_reg(rng) if rng.random() < 0.7 else (vcc_lo if self.wave == 32 else vcc))
                continue
            # DPP's src0 and a source the pseudocode indexes a register file with (VGPR[lane][SRC0])
            # are VGPRs
            op = self.source(rng, src, allow_const=not (dpp and i == 0) and f"SRC{i}" not in (d.pcode or ""))
            if d.name.startswith("V_PERMLANE") and i > 0:
                # LLVM takes only SGPRs and constants for the lane selects (the DSL does not check)
                op = self.sreg(rng) if rng.random() < 0.7 else self.constant(rng)
            if e64 and src.is_float and isinstance(op, Reg) and rng.random() < 0.3:
                op = -op if rng.random() < 0.5 else abs(op)
            ops.append(op)
        if sig.k_pos is not None:
            ops.insert(len(sig.dsts) + sig.k_pos, self.lit(int(special_dwords(rng, 1)[0])))
        if sig.vcc_in and not e64:
            ops.append(vcc_lo if self.wave == 32 else vcc)
        # output modifiers on float results; on integer ones rarely (the emulator refuses most)
        float_result = bool(sig.dsts) and sig.dsts[0].is_float
        if e64 and d.format == "VOP3P" and rng.random() < 0.25:
            n = len(sig.srcs)
            mods["op_sel"] = [int(x) for x in rng.integers(0, 2, n)]
            mods["op_sel_hi"] = [int(x) for x in rng.integers(0, 2, n)]
        if e64 and rng.random() < (0.2 if float_result else 0.03):
            mods["clamp"] = True
        if e64 and d.format != "VOP3P" and rng.random() < (0.15 if float_result else 0.02):
            mods["mul"] = int(rng.choice([2, 4]))
        if e64 and any(x.t16 for x in sig.srcs + sig.dsts) and rng.random() < 0.3:
            mods["op_sel"] = [int(x) for x in rng.integers(0, 2, len(sig.srcs) + 1)]
        return self.ns[mnemonic](*ops, **mods)

    def dpp16(self, rng):
        kind = int(rng.integers(0, 7))
        ctrl = [{"quad_perm": [int(x) for x in rng.integers(0, 4, 4)]},
                {"row_shl": int(rng.integers(1, 16))}, {"row_shr": int(rng.integers(1, 16))},
                {"row_ror": int(rng.integers(1, 16))}, {"row_mirror": True}, {"row_half_mirror": True},
                {"row_share": int(rng.integers(0, 16))} if rng.random() < 0.5 else {"row_xmask": int(rng.integers(0, 16))}][kind]
        if self.gfx9 and kind == 6:     # GFX9's wave shifts and row broadcasts instead
            ctrl = [{"wave_shl": 1}, {"wave_shr": 1}, {"wave_rol": 1}, {"wave_ror": 1}, {"row_bcast": 15},
                    {"row_bcast": 31}][int(rng.integers(0, 6))]
        mods = dict(ctrl)
        mods["row_mask"] = int(rng.choice([0xF, 0xF, int(rng.integers(0, 16))]))
        mods["bank_mask"] = int(rng.choice([0xF, 0xF, int(rng.integers(0, 16))]))
        if rng.random() < 0.3:
            mods["bound_ctrl"] = 0 if self.gfx9 else True      # GFX9 spells it bound_ctrl:0
        if rng.random() < 0.2 and not self.gfx9:
            mods["fi"] = 1
        return mods

    def vopd(self, rng):
        x, y = self.pick(rng, "vopd"), self.pick(rng, "vopd")
        if x is None or y is None:
            return None
        from isa.mnemonics import text_mnemonic
        halves = []
        for d in (x, y):
            sig = valu_signature(vopd_base(self.spec, d))
            ops = [self.vreg(rng)]
            srcs = [src for src in sig.srcs if not src.is_mask]
            for i, src in enumerate(srcs[:2]):
                ops.append(self.source(rng, src, allow_const=i == 0))
            if sig.k_pos is not None:
                ops.insert(1 + sig.k_pos, self.lit(int(special_dwords(rng, 1)[0])))
            if sig.vcc_in:
                ops.append(vcc_lo if self.wave == 32 else vcc)
            halves.append(self.ns[text_mnemonic(d.name, self.spec.arch)](*ops))
        return self.ns["vopd"](*halves)

    def salu(self, rng):
        d = self.pick(rng, "salu")
        if d is None:
            return None
        from isa.mnemonics import text_mnemonic
        name = text_mnemonic(d.name, self.spec.arch)
        if d.format == "SOPP":
            return self.ns[name](int(rng.integers(0, 16)) if d.name == "S_DENORM_MODE" else int(rng.integers(0, 3)))
        ops = []
        for opname, fld, dwords in scalar_layout(d):
            if opname == "sdst":
                if rng.random() < 0.06:          # random EXEC: the result lands in EXEC
                    ops.append(exec_lo if dwords == 1 and self.wave == 32 else
                               (exec_lo if dwords == 1 else s[126:127]) if self.wave == 32 else
                               (s[126:127] if dwords == 2 else exec_lo))
                else:
                    ops.append(self.sreg(rng, dwords, dest=True))
            elif opname == "k" or (d.format == "SOPK" and opname == "ssrc1"):
                ops.append(int(rng.integers(-32768, 32768)) & 0xffff if d.format == "SOPK" else self.lit(int(special_dwords(rng, 1)[0])))
            elif d.format == "SOPK" and opname == "ssrc0":
                ops.append(self.sreg(rng, dwords))
            else:
                r = rng.random()
                ops.append(self.sreg(rng, dwords) if r < 0.6 else self.constant(rng, 64 if dwords == 2 else 32))
        return self.ns[name](*ops)

    def address(self, rng, base_reg: int, mask: int):
        """v4 = base_reg + (random VGPR & mask): an address inside this wave's slice."""
        return [self.ns["v_and_b32"](v[V_ADDR], mask, self.vreg(rng)),
                self.add_u32(v[V_ADDR], v[base_reg], v[V_ADDR])]

    def memory(self, rng, kind: str):
        d = self.pick(rng, kind)
        if d is None:
            return None
        space, pair = kind, kind == "flat"     # the space drawn; whether the address is a VGPR pair
        from isa.mnemonics import text_mnemonic
        name = text_mnemonic(d.name, self.spec.arch)
        glc = "_ATOMIC" in d.name and rng.random() < 0.6
        layout = ds_layout(d) if kind == "ds" else flat_layout(d, glc)
        ops, mods, pre = [], {}, []
        # addresses mostly 16-byte aligned (sometimes only 4: misaligned wide accesses), in the
        # lower half of the wave's slice; offsets reach into the upper half, never past it
        align = ~15 if rng.random() < 0.9 else ~3
        for opname, fld, dwords in layout:
            if opname == "addr":
                pre = self.address(rng, V_LDS, (LDS_SLICE // 2 - 1) & align)
                ops.append(v[V_ADDR])
            elif opname == "vaddr" and kind == "global":
                if rng.random() < 0.7:
                    pre = self.address(rng, V_GLOBAL, (WORK_SLICE // 2 - 1) & align)
                    ops.append(v[V_ADDR])
                else:       # a 64-bit address VGPR pair, no SGPR base
                    pre = self.address(rng, V_GLOBAL, (WORK_SLICE // 2 - 1) & align) + [
                        self.add_u32(v[V_ADDR64], s[2], v[V_ADDR]), self.ns["v_mov_b32"](v[V_ADDR64 + 1], s[3])]
                    ops.append(v[V_ADDR64:V_ADDR64 + 1])
                    mods["_noaddr"] = True
                    pair = True
            elif opname == "vaddr" and kind == "flat":
                pre, spaces = self.flat_address(rng, align)
                ops.append(v[V_ADDR64:V_ADDR64 + 1])
            elif opname == "vaddr":       # scratch: a lane offset
                pre = [self.ns["v_and_b32"](v[V_ADDR], (SCRATCH_BYTES // 2 - 1) & align, self.vreg(rng))]
                ops.append(v[V_ADDR])
            elif opname == "saddr":
                ops.append(off if mods.pop("_noaddr", False) or kind == "scratch" else s[2:3])
            else:
                ops.append(self.vreg(rng, dwords))
        mods.pop("_noaddr", None)
        if kind == "ds" and not any(opname == "addr" for opname, _, _ in layout) \
                and "M0" in memory_effects(d).implicit and memory_effects(d).memory in ("read", "write"):
            # addressed by lane ID (ds_store_addtid_b32: offset + M0 + lane * 4): M0 is the wave's
            # slice base (v2, the same in every lane); lane * 4 stays in the slice's lower half
            pre = [self.ns["v_readfirstlane_b32"](m0, v[V_LDS])]
        if kind == "flat":          # the offset keeps every lane inside its space's lower half too
            kind = "scratch" if "scratch" in spaces else "ds" if "lds" in spaces else "global"
        half = (SCRATCH_BYTES if kind == "scratch" else LDS_SLICE if kind == "ds" else WORK_SLICE) // 2
        if kind == "ds" and "2ADDR" in d.name:      # offsets in elements (of 64 elements with ST64)
            top = 2 if "STRIDE64" in d.name else 16
            mods["offset0"], mods["offset1"] = (int(x) for x in rng.integers(0, top, 2))
        else:
            step = 16 if align == ~15 else 4
            mods["offset"] = int(rng.integers(0, (half - 16) // step)) * step
            if glc:         # RDNA4 asks for the returned value with TH's return bit
                # (GFX9: SC0)
                mods["th" if self.rdna4 else "sc0" if self.gfx9 else "glc"] = 1 if self.rdna4 else True
        # several accesses (dwords, two addresses, an atomic's rounds) may fault after others were made
        several = "2ADDR" in d.name or "ATOMIC" in d.name or any(n > 1 for opname, _, n in layout if opname not in ("vaddr", "saddr", "addr"))
        if self.faults and rng.random() < FAULT_SHARE[several]:
            pre = pre + self.poison(rng, space, pair, mods.get("offset", 0))
        return pre + [self.ns[name](*ops, **mods)]

    def poison(self, rng, space: str, pair: bool, offset: int):
        """Instructions giving one lane (or every lane from one on: v0 is the work-item id)
        an address past the end of its space (the instruction offset counted): straddling the
        end (a wide access's first dwords inside) or far past it. A pair (a 64-bit global or
        FLAT address) becomes a global address past the work buffer. Only with faults=True."""
        ns, mask = self.ns, vcc if self.wave == 64 else vcc_lo
        end = {"ds": self.lds_bytes, "scratch": SCRATCH_BYTES}.get(space, self.work_bytes)
        bad = (end - 4 if rng.random() < 0.7 else 1 << 20) - offset
        compare = ns["v_cmp_eq_u32_e64" if rng.random() < 0.7 else "v_cmp_le_u32_e64"]
        out = [ns["v_mov_b32"](v[V_SECOND], self.lit(bad)),
               compare(mask, int(rng.integers(0, self.block)), v[0])]
        if not pair:
            return out + [ns["v_cndmask_b32_e64"](v[V_ADDR], v[V_ADDR], v[V_SECOND], mask)]
        return out + [self.add_u32(v[V_SECOND], s[2], v[V_SECOND]),
                      ns["v_cndmask_b32_e64"](v[V_ADDR64], v[V_ADDR64], v[V_SECOND], mask),
                      ns["v_mov_b32"](v[V_SECOND], s[3]),
                      ns["v_cndmask_b32_e64"](v[V_ADDR64 + 1], v[V_ADDR64 + 1], v[V_SECOND], mask)]

    def flat_address(self, rng, align: int):
        """v[6:7] = a FLAT address per lane inside this wave's slice of one space (global memory,
        its LDS through the shared aperture, the lane's scratch through the private one), or of
        two spaces, lanes alternating (s[4:5]: LANE_MIX); the instructions and the spaces."""
        ns = self.ns
        spaces = ["global", "lds", "scratch"]
        first = spaces[int(rng.integers(0, 3))]
        second = spaces[int(rng.integers(0, 3))] if rng.random() < 0.4 else first

        def low(space, reg):        # the low address dword in `reg` (and the high one's source)
            if space == "global":
                return self.address(rng, V_GLOBAL, (WORK_SLICE // 2 - 1) & align) + [
                    self.add_u32(v[reg], s[2], v[V_ADDR])], s[3]
            if space == "lds":
                return self.address(rng, V_LDS, (LDS_SLICE // 2 - 1) & align) + [
                    ns["v_mov_b32"](v[reg], v[V_ADDR])], v[V_SHARED_HI]
            return [ns["v_and_b32"](v[reg], (SCRATCH_BYTES // 2 - 1) & align, self.vreg(rng))], v[V_PRIVATE_HI]
        out, hi = low(first, V_ADDR64)
        out.append(ns["v_mov_b32"](v[V_ADDR64 + 1], hi))
        if second != first:
            more, hi2 = low(second, V_SECOND)
            mix = s[4:5] if self.wave == 64 else s[4]
            out += more + [ns["v_cndmask_b32_e64"](v[V_ADDR64], v[V_ADDR64], v[V_SECOND], mix),
                           ns["v_mov_b32"](v[V_SECOND], hi2),
                           ns["v_cndmask_b32_e64"](v[V_ADDR64 + 1], v[V_ADDR64 + 1], v[V_SECOND], mix)]
        return out, {first, second}

    # ------------------------------------------------------------------ programs
    def prologue(self, waves_per_group: int):
        ns, log_wave = self.ns, 5 if self.wave == 32 else 6
        out = [ns["s_mul_i32"](s[7], s[6], SGPR_DWORDS * 4)]
        for k in range(SGPR_DWORDS // 8):
            out.append(self.load_8_sgprs(s[8 + 8 * k:15 + 8 * k], s[4:5], s[7], offset=32 * k))
        out += [ns["s_mul_i32"](s[7], s[6], waves_per_group * self.wave * IN_DWORDS * 4),
                ns["v_mul_u32_u24"](v[1], IN_DWORDS * 4, v[0]), self.add_u32(v[1], s[7], v[1])]
        for k in range(IN_DWORDS // 4):
            first = FUZZ_VGPRS.start + 4 * k
            out.append(self.load_4_vgprs(v[first:first + 3], v[1], s[0:1], offset=16 * k))
        out += [ns["v_lshrrev_b32"](v[V_LDS], log_wave, v[0]),
                ns["v_mul_u32_u24"](v[V_GLOBAL], WORK_SLICE, v[V_LDS]),
                ns["v_mul_u32_u24"](v[V_LDS], LDS_SLICE, v[V_LDS]),
                ns["s_mul_i32"](s[7], s[6], waves_per_group * WORK_SLICE),
                self.add_u32(v[V_GLOBAL], s[7], v[V_GLOBAL]),
] + self.wait_all()
        if self.flat:
            # the apertures' high dwords in every lane, those past the block too (a random EXEC
            # may turn them on later: a zero high dword would be a global address, a fault), with
            # EXEC kept in s[6:7] meanwhile; then s[4:5] (the SGPR data's address, read above) a lane mix
            save, every = ((ns["s_mov_b64"](s[6:7], Special("exec")), ns["s_mov_b64"](Special("exec"), -1))
                           if self.wave == 64 else (ns["s_mov_b32"](s[7], exec_lo), ns["s_mov_b32"](exec_lo, -1)))
            restore = ns["s_mov_b64"](Special("exec"), s[6:7]) if self.wave == 64 else ns["s_mov_b32"](exec_lo, s[7])
            out += [save, every,
                    ns["s_mov_b64"](s[4:5], Special("src_shared_base")), ns["v_mov_b32"](v[V_SHARED_HI], s[5]),
                    ns["s_mov_b64"](s[4:5], Special("src_private_base")), ns["v_mov_b32"](v[V_PRIVATE_HI], s[5]),
                    restore, ns["s_mov_b32"](s[4], self.lit(LANE_MIX & 0xFFFFFFFF)),
                    ns["s_mov_b32"](s[5], self.lit(LANE_MIX >> 32))]
        return out

    def wait_all(self):
        """Wait for every outstanding load (RDNA4 counts each kind apart)."""
        if self.rdna4:
            return [self.ns["s_wait_loadcnt"](0), self.ns["s_wait_kmcnt"](0)]
        return [self.ns["s_waitcnt"](0)]

    def program(self, rng, length: int = 40) -> Program:
        waves_per_group = int(rng.integers(1, 4))
        block = waves_per_group * self.wave - (int(rng.integers(1, self.wave)) if rng.random() < 0.3 else 0)
        grid = int(rng.integers(1, 3))
        self.block, self.work_bytes, self.lds_bytes = block, grid * waves_per_group * WORK_SLICE, \
            waves_per_group * LDS_SLICE
        body, drawn = [], {}
        classes = list(self.weights)
        p = np.array([self.weights[c] for c in classes], float)
        p /= p.sum()
        while len(body) < length:
            kind = classes[int(rng.choice(len(classes), p=p))]
            for _ in range(10):
                try:
                    made = self.draw(rng, kind)
                except (OperandError, Gfx9AsmError):       # a combination the encoder refuses
                    continue
                if made is not None:
                    body.append((kind, made))
                    drawn[kind] = drawn.get(kind, 0) + 1
                    break
        insts = self.prologue(waves_per_group)
        # forward branches: skip the next 1-4 body items (never a barrier: every wave reaches those)
        for i, (kind, made) in enumerate(body):
            if kind == "branch":
                skipped = body[i + 1:i + 1 + int(rng.integers(1, 5))]
                if any(k == "barrier" for k, _ in skipped):
                    continue
                dwords = sum(1 if callable(m) else sum(len(bytes(x)) for x in m) // 4 for _, m in skipped)
                insts.append(made(dwords))
            else:
                insts += made
        insts.append(self.ns["s_endpgm"]())
        code = b"".join(bytes(x) for x in insts)
        return Program(code, self.target, grid, block, [str(x) for x in insts], drawn, insts)

    def draw(self, rng, kind: str):
        """A list of instructions for one item of the body (a function of the skip length for
        a branch), or None when nothing could be drawn."""
        ns = self.ns
        if kind == "valu":
            x = self.valu(rng)
            return None if x is None else [x]
        if kind == "vopd":
            x = self.vopd(rng) if self.wave == 32 else None       # VOPD is wave32 only
            return None if x is None else [x]
        if kind == "salu":
            x = self.salu(rng)
            return None if x is None else [x]
        if kind in ("ds", "global", "scratch", "flat"):
            return self.memory(rng, kind)
        if kind == "exec":
            value = int(special_dwords(rng, 1)[0]) | (int(rng.integers(0, 2**32)) << 32 if self.wave == 64 else 0)
            if rng.random() < 0.5:
                return [ns["s_mov_b32"](exec_lo, self.lit(value & 0xFFFFFFFF))] + (
                    [ns["s_mov_b32"](exec_hi, self.lit(value >> 32))] if self.wave == 64 else [])
            cmp = ns["v_cmpx_lt_u32_e32"] if rng.random() < 0.5 else ns["v_cmpx_class_f32_e32"]
            # GFX9's v_cmpx writes VCC as well as EXEC
            return [cmp(*([vcc] if self.gfx9 else []), int(rng.integers(0, 64)), self.vreg(rng))]
        if kind == "agpr":
            from dsl.kernel_gfx9 import a
            i, j, r = int(rng.integers(0, AGPRS)), int(rng.integers(0, AGPRS)), rng.random()
            if r < 0.45:
                src = self.vreg(rng) if rng.random() < 0.8 else int(rng.integers(-16, 65))
                return [ns["v_accvgpr_write_b32"](a[i], src)]
            if r < 0.85:
                return [ns["v_accvgpr_read_b32"](self.vreg(rng), a[i])]
            return [ns["v_accvgpr_mov_b32"](a[i], a[j])]
        if kind == "branch":
            which = ["s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz", "s_cbranch_execz",
                     "s_cbranch_execnz"][int(rng.integers(0, 6))]
            return lambda dwords: ns[which](dwords)
        if kind == "barrier":
            if self.rdna4:      # RDNA4 splits the barrier: signal (-1: the work-group's), then wait
                return [ns["s_barrier_signal"](-1), ns["s_barrier_wait"](0xFFFF)]
            return [ns["s_barrier"]()]
        raise ValueError(kind)


# ---------------------------------------------------------------------- running

def run(program: Program, options, data_seed: int):
    """The program's Outcome (tests/emu_differential.py) under `options`."""
    from emu.launch import Dispatch
    from emu.machine import Machine
    from emu.memory import DeviceMemory
    from tests.emu_differential import run_outcome
    rng = np.random.default_rng(data_seed)
    mem = DeviceMemory()
    lanes = program.grid * -(-program.block // program.wave) * program.wave
    buffers = {}
    for name, nbytes in (("input", lanes * IN_DWORDS * 4), ("work", lanes // program.wave * WORK_SLICE),
                         ("sgprs", program.grid * SGPR_DWORDS * 4 + 64), ("code", len(program.code))):
        buffers[name] = mem.alloc(nbytes, name)
    mem.write(buffers["input"], special_dwords(rng, lanes * IN_DWORDS))
    mem.write(buffers["work"], special_dwords(rng, lanes // program.wave * WORK_SLICE // 4))
    mem.write(buffers["sgprs"], special_dwords(rng, program.grid * SGPR_DWORDS + 16))
    mem.write(buffers["code"], program.code)
    user = []
    for name in ("input", "work", "sgprs"):
        user += [buffers[name] & 0xFFFFFFFF, buffers[name] >> 32]
    waves = -(-program.block // program.wave)
    cdna = isa.resolve_arch(program.arch) in ("cdna3", "cdna4")
    registers = dict(vgprs=VGPRS + AGPRS, accum_offset=VGPRS) if cdna else dict(vgprs=VGPRS)
    d = Dispatch("fuzz", buffers["code"], grid=(program.grid, 1, 1), block=(program.block, 1, 1),
                 wave_size=program.wave, user_sgprs=user, **registers, lds_size=waves * LDS_SLICE,
                 scratch_size=SCRATCH_BYTES, mode=int(rng.choice([0x3F0, 0x0F0, 0x000, 0x3C0])), budget=10_000)
    machine = Machine(program.arch, mem, options=options)
    return run_outcome(machine, lambda: machine.run(d))


@dataclass
class Report:
    programs: int = 0
    instructions: int = 0          # wave-instructions issued, fast mode
    drawn: dict = field(default_factory=dict)
    faults: int = 0
    failures: list = field(default_factory=list)     # (target, seed, differences, listing)
    crashes: list = field(default_factory=list)      # (target, seed, fault, listing): a semantic that raised

    def line(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.drawn.items()))
        return (f"{self.programs} programs, {self.instructions} wave-instructions compared "
                f"({self.faults} ended in the same fault); drawn: {kinds}; {len(self.failures)} disagreements, "
                f"{len(self.crashes)} crashes")


_GENERATORS: dict = {}


def fuzz(seeds, targets=TARGETS, options=None, length: int = 40, report: Report | None = None,
         fast=None, flat: bool = False, faults: bool = False) -> Report:
    """Run programs for every seed and target, `fast` (FAST) vs `options` (REFERENCE); flat: with
    FLAT accesses (another program per seed than without); faults: some memory instructions with
    a lane's address past its space's end (Generator.poison), so that programs fault part way."""
    from emu.options import FAST, REFERENCE
    from tests.emu_differential import differences
    options = REFERENCE if options is None else options
    fast = FAST if fast is None else fast
    report = report or Report()
    for seed in seeds:
        for target in targets:
            key = (target, flat, faults)
            gen = _GENERATORS.get(key) or _GENERATORS.setdefault(key, Generator(target, flat, faults))
            prog = gen.program(np.random.default_rng([seed, TARGETS.index(target)]), length)
            try:
                fast_outcome, ref = run(prog, fast, seed), run(prog, options, seed)
            except Exception as e:      # noqa: BLE001 - a Python error from inside the machine is a finding
                report.programs += 1
                report.crashes.append((target, seed, f"{type(e).__name__}: {e}", prog.listing()))
                continue
            report.programs += 1
            report.instructions += fast_outcome.instructions
            report.faults += fast_outcome.fault is not None
            for k, n in prog.drawn.items():
                report.drawn[k] = report.drawn.get(k, 0) + n
            diff = differences(fast_outcome, ref, names=(str(fast), str(options)))
            if fast_outcome.fault and "its semantics failed" in fast_outcome.fault:
                # a defect of the semantic itself (both modes report it, with their own shapes)
                report.crashes.append((target, seed, fast_outcome.fault, prog.listing()))
            elif diff:
                report.failures.append((target, seed, diff, prog.listing()))
    return report


def _corpus(out) -> int:
    """Every corpus launch, whole, in fast and full reference mode."""
    from emu.options import FAST, REFERENCE
    from runtime import Device
    from tests.conftest import SHARED
    from tests.emu_differential import differences, run_outcome
    from tests.kernel_corpus import cases, run as run_case
    bad = 0
    devices = [{}, {}]
    for case in cases(SHARED / "kernels"):
        for target in TARGETS:
            if target not in case.manifest["code_objects"]:
                continue
            arch = target.split("-")[0]
            t = time.perf_counter()
            outs = []
            for devs, options in zip(devices, (FAST, REFERENCE)):
                dev = devs.setdefault(arch, Device("emu", arch=arch, options=options))
                outs.append(run_outcome(dev.machine, lambda: run_case(case, target, devs)[1]))
            diff = differences(*outs)
            bad += bool(diff)
            if diff:        # a launch cut short (a time budget) leaves other memory: start the next case afresh
                for devs in devices:
                    devs.pop(arch, None)
            print(f"{case.name} {target}: {outs[0].instructions} wave-instructions, "
                  f"{time.perf_counter() - t:.1f} s: {diff or 'same'}", file=out, flush=True)
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.emu_fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=None, help="run programs until this much time has passed")
    ap.add_argument("--seeds", default="0:50", help="seed range a:b (default 0:50; with --seconds: the start)")
    ap.add_argument("--target", action="append", choices=TARGETS, help="target(s) (default: all)")
    ap.add_argument("--length", type=int, default=40, help="random instructions per program (default 40)")
    ap.add_argument("--off", default=None, help="compare against fast mode with only these switches off "
                                                "(comma-separated names; default: every switch off)")
    ap.add_argument("--corpus", action="store_true", help="run the kernel corpus whole in full reference mode")
    ap.add_argument("--flat", action="store_true", help="programs with FLAT accesses (global, LDS, scratch apertures)")
    ap.add_argument("--faults", action="store_true", help="programs some of whose memory instructions fault part way")
    args = ap.parse_args(argv)
    if args.corpus:
        return 1 if _corpus(sys.stdout) else 0
    from emu.options import options_from
    options = options_from(reference=args.off is None, off=args.off.split(",") if args.off else ())
    start, stop = (int(x) for x in args.seeds.split(":"))
    targets = tuple(args.target or TARGETS)
    report, t0 = Report(), time.perf_counter()
    seed = start
    while (args.seconds is None and seed < stop) or (args.seconds is not None and time.perf_counter() - t0 < args.seconds):
        fuzz([seed], targets, options, args.length, report, flat=args.flat, faults=args.faults)
        seed += 1
        if seed % 10 == 0:
            print(f"seed {seed}: {report.line()} ({time.perf_counter() - t0:.0f} s)", flush=True)
    for target, s_, diff, listing in report.failures:
        print(f"\nDISAGREEMENT {target} seed {s_}: {diff}\n{listing}")
    for target, s_, fault, _ in report.crashes:
        print(f"\nCRASH {target} seed {s_}: {fault}")
    print(f"seeds {start}..{seed - 1}, {', '.join(targets)}: {report.line()} in {time.perf_counter() - t0:.0f} s")
    return 1 if report.failures or report.crashes else 0


if __name__ == "__main__":
    sys.exit(main())

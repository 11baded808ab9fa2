"""Empirical check of the operand-effects model (isa/effects.py) against the emulator.

For each instruction the emulator runs (VALU e32/e64 and SALU; no memory, no control flow),
one launch holds one wave per experiment, all starting from one random register state:
wave 0 is that state; each other wave changes one register -- every register the model says
the instruction reads, then a sample of the registers it does not name (all of them with
`full=True`). After the instruction, the registers that differ from wave 0's (other than
the perturbed one, unless the model says it is written whole) are the outputs that changed:
- `undeclared_write`: wave 0 changed a register the model does not say is written;
- `undeclared_input`: changing a register the model does not read changed an output;
- `leak`: changing a declared input changed a register the model does not say is written;
- `unseen_write` (soft): a declared write that no wave changed (the value written may equal
  the old one, e.g. SCC; reported, not a failure);
- `no_effect` (soft): a declared input that changed nothing (a read the model over-states:
  safe for liveness; reported).
A register the model says is written whole and not read is changed as well (`Checker.overwritten`):
its old value must not show. The model is the instruction's (isa.effects.instruction_effects): a
16-bit result that keeps the other half of its VGPR (isa.effects.half_result) writes D0 in part.
Operand names map to registers by the ISA's operand roles: S0..S2 the sources, D0 the
destination, D1 and VCC the carry-out (SDST in VOP3SD), VCC as input the mask source of an
e64 encoding, EXEC/SCC/M0 themselves. Registers an instruction indexes by a value
(`VGPR[lane][...]`, `SGPR[...]`: the model's `indexed`) may be read or written anywhere in
that file: a finding there is reported as `indexed`, not as a failure. M0 holds a small
value (0-7), so that M0-relative indexing (s_movrels, v_movreld) stays in the register file.
CDNA (wave64): the state holds 64 AGPRs after the VGPRs (the unified file, accum_offset 64); the
v_accvgpr_* operands the syntax puts there, and MFMA's C and D on a coin toss (always when D
is wider than 16 registers), live in them; instructions are built by the text assembler. A
matrix instruction's (MFMA, WMMA) VGPRs hold finite numbers (matrix_dwords), so that a changed
element changes the sum. An instruction the emulator has no semantics for is skipped.

    python -m tests.effects_check                     # every instruction, every register, all targets
    python -m tests.effects_check --target gfx1151 --sample 50 --seed 3
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

import isa
from dsl.kernel import build_namespace
from dsl.asm import AsmError, assemble
from dsl.operands import Agpr, Lit, OperandError, lit, s, v, vcc, vcc_lo
from dsl.signature import scalar_layout, valu_signature
from isa.facts import agpr_operands
from isa.effects import effects, instruction_effects
from isa.mnemonics import text_mnemonic
from tests.emu_fuzz import EXCLUDED, _SKIP, special_dwords

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942", "gfx950")
VGPRS = 64          # VGPRs in the experiment's state (and as many AGPRs where the family has them)
HARD = ("undeclared_write", "undeclared_input", "leak")
SOFT = ("unseen_write", "no_effect", "indexed")
# Registers the operands are placed in (no two overlap): sources, destinations, masks
V_SRC, V_DST = (8, 16, 24), 40
S_SRC, S_DST, S_MASK_SRC, S_MASK_DST, S_SDST = (8, 12, 16), 20, 32, 36, 40

# Disagreements understood and accepted, each with its reason: {instruction: reason}
KNOWN: dict[str, str] = {}


@dataclass
class Result:
    name: str
    fmt: str
    text: str = ""
    findings: dict = field(default_factory=lambda: defaultdict(set))   # kind -> {detail}
    skipped: str | None = None

    @property
    def hard(self) -> bool:
        return any(self.findings.get(k) for k in HARD)


def matrix_dwords(rng, n: int) -> np.ndarray:
    """Dwords whose every byte is 0x30-0x3F: finite numbers of every element format a matrix
    instruction reads (fp8/bf8 0.125-1.9, f16 halves 0.125-2, bf16/f32/f64 up to 2, i8 48-63), so
    that one changed input changes the sum (a NaN or infinity among the special values would
    swallow every change)."""
    return (rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32) & 0x0F0F0F0F) | 0x30303030


class Case:
    """One encoded instruction and where each pseudocode operand name lives; `matrix`: its VGPRs
    hold matrix_dwords."""

    def __init__(self, code: bytes, text: str, names: dict[str, set], scalar: bool, matrix: bool = False):
        self.code, self.text, self.names, self.scalar, self.matrix = code, text, names, scalar, matrix


class Checker:
    overwritten = True      # also change the registers written whole and not read (see run)

    def __init__(self, target: str):
        from emu.memory import DeviceMemory
        from emu.machine import Machine
        from emu.options import FAST
        self.target = target
        self.arch = target.split("-")[0]
        self.spec = isa.load(self.arch)
        self.traits = self.spec.traits
        self.wave = {"w64": 64, "w32": 32}.get(target.rpartition("-")[2], self.traits.wave_size)
        # CDNA's AGPRs share the VGPR file: a[n] is row VGPRS + n of the state (accum_offset VGPRS)
        self.agprs = VGPRS if self.traits.agprs else 0
        self.ns = build_namespace(self.arch, self.wave)
        self.mem = DeviceMemory()
        self.machine = Machine(self.arch, self.mem, options=FAST)
        self.mask_n = self.wave // 32
        self.vcc = {("s", self.traits.vcc_lo + i) for i in range(self.mask_n)}
        self.exec = {("s", self.traits.exec_lo + i) for i in range(self.mask_n)}
        roles = self.traits.roles
        usable = [d for d in self.spec.instructions if d.name not in EXCLUDED and not _SKIP.match(d.name)
                  and d.pcode]
        mfma = self.spec.tables.get("mfma") or ()
        self.matrix_names = frozenset(row[0] for row in mfma)      # CDNA's MFMA / SMFMAC
        self.instructions = [d for d in usable if d.format in roles.valu_e32 | roles.valu_e64
                             or d.format in (roles.salu - {"SOPP"})]

    # ---------------------------------------------------------------- building
    def _sregs(self, first: int, n: int):
        return s[first] if n == 1 else s[first:first + n - 1]

    def _keys(self, file: str, first: int, n: int) -> set:
        return {(file, first + i) for i in range(n)}

    def valu_case(self, d, rng) -> Case:
        """VGPR sources; where the encoder refuses one (lane selects take SGPRs or constants),
        SGPRs for the later sources, then for all of them."""
        in_agprs = self.agpr_operands(d, rng)
        for k in (lit(int(special_dwords(rng, 1)[0])), lit(0x3C00)):       # (a 16-bit K for f16)
            for scalar in ((), (1, 2), (0, 1, 2)):
                try:
                    return self._valu_case(d, k, scalar, in_agprs)
                except OperandError as e:
                    error = e
        raise error

    def format_fields(self, d) -> set:
        return {f[0] for f in self.spec.formats[d.format].fields}

    def _block(self, d, name: str, dwords: int) -> int:
        """Registers of operand `name`: the signature's, or the semantic's where that is wider
        (only WMMA's matrices are: 2-8 VGPRs, fewer in wave64 for C and D)."""
        sem = self.machine.semantics.get(d)
        op = sem and (sem.writes.get(name) if name == "D0" else sem.reads.get(name))
        wide = 0 if op is None or op.lane_bit else -(-op.width(self.wave) // 32)
        return max(1, dwords, wide)

    def agpr_operands(self, d, rng) -> set:
        """Operands (D0, S0..S2) placed in AGPRs: those the syntax puts there (v_accvgpr_*), and a
        matrix instruction's C and D on a coin toss, always where D is wider than 16 registers."""
        if not self.agprs:
            return set()
        out = set(agpr_operands(d))
        if d.name in self.matrix_names and (rng.integers(2) or self._block(d, "D0", 1) > 16):
            out |= {"D0"} if "D0" in effects(d.pcode).reads else {"D0", "S2"}   # (SMFMAC: C is D)
        return out

    def _vgprs(self, operand: str, first: int, n: int, in_agprs: set):
        """(text operand, state keys) of `n` registers of `operand` from `first`; an operand in
        in_agprs lies in the AGPRs, a matrix's C and D in a[0:31] and a[32:63]."""
        if operand not in in_agprs:
            return (v[first] if n == 1 else v[first:first + n - 1]), self._keys("v", first, n)
        if self.matrix_names and operand in ("D0", "S2") and n > 1:
            first = 32 if operand == "D0" else 0
        return Agpr(first, n), self._keys("a", first, n)

    def _valu_case(self, d, k, scalar_srcs, in_agprs=frozenset()) -> Case:
        sig = valu_signature(d)
        e64 = d.format in self.traits.roles.valu_e64
        base = text_mnemonic(d.name, self.spec.arch)
        mn = base + ("_e64" if e64 and d.promoted_from else "_e32" if not e64 else "")
        names: dict[str, set] = defaultdict(set)
        ops = []
        for dst in sig.dsts:
            if dst.is_mask:              # VOPC's result: VCC in e32, SDST in e64
                regs = self._keys("s", S_MASK_DST, self.mask_n) if e64 else self.vcc
                ops.append(self._sregs(S_MASK_DST, self.mask_n) if e64 else (vcc_lo if self.wave == 32 else vcc))
            elif dst.sgpr:
                regs = self._keys("s", S_DST, 1)
                ops.append(s[S_DST])
            else:
                n = self._block(d, "D0", dst.dwords)        # (a 32-register result ends at the last VGPR)
                op, regs = self._vgprs("D0", min(V_DST, VGPRS - n), n, in_agprs)
                ops.append(op)
            names["D0"] |= regs
        carry = self._keys("s", S_SDST, self.mask_n) if e64 else self.vcc
        if sig.vcc_out or e64 and "SDST" in self.format_fields(d):   # (v_mad_u64_u32's SDST is D1 of { D1, D0 })
            ops.append(self._sregs(S_SDST, self.mask_n) if e64 else (vcc_lo if self.wave == 32 else vcc))
            names["D1"] |= carry
        names["VCC_OUT"] = carry                                    # where a VCC write lands
        names["VCC_IN"] = set(self.vcc)
        for i, src in enumerate(sig.srcs):
            if src.is_mask:
                if e64:
                    ops.append(self._sregs(S_MASK_SRC, self.mask_n))
                    names["VCC_IN"] = self._keys("s", S_MASK_SRC, self.mask_n)
                else:
                    ops.append(vcc_lo if self.wave == 32 else vcc)
                continue
            n = self._block(d, f"S{i}", src.dwords)
            if i in scalar_srcs:
                first = S_SRC[i] if n <= 2 else 24
                ops.append(self._sregs(first, n))
                names[f"S{i}"] = self._keys("s", first, n)
            else:
                op, names[f"S{i}"] = self._vgprs(f"S{i}", V_SRC[i], n, in_agprs)
                ops.append(op)
        if sig.vcc_in and e64 and len(sig.srcs) < 3 and not any(src.is_mask for src in sig.srcs):
            ops.append(self._sregs(S_MASK_SRC, self.mask_n))    # gfx9 VOP3A/B: the mask is src2 (v_cndmask, v_addc)
            names["VCC_IN"] = self._keys("s", S_MASK_SRC, self.mask_n)
        if sig.k_pos is not None:
            ops.insert(len(sig.dsts) + sig.vcc_out + sig.k_pos, k)
        if sig.vcc_in and not e64:
            ops.append(vcc_lo if self.wave == 32 else vcc)
        if sig.is_cmpx and "D0" in effects(d.pcode).writes:     # gfx9: v_cmpx writes EXEC and VCC / SDST
            ops.insert(0, self._sregs(S_MASK_DST, self.mask_n) if e64 else vcc)
            names["D0"] = self._keys("s", S_MASK_DST, self.mask_n) if e64 else set(self.vcc)
        case = self.encode(mn, ops, names, scalar=False)
        case.matrix = d.name in self.matrix_names or effects(d.pcode).matrix     # MFMA, WMMA
        return case

    def encode(self, mn: str, ops: list, names: dict, scalar: bool) -> Case:
        """The instruction `mn ops...`: by the DSL's function, or on the gfx9 dialect (CDNA) by the
        text assembler, which takes every operand LLVM's syntax has (AGPRs, v_cmpx's SDST)."""
        if self.traits.dialect != "gfx9":
            inst = self.ns[mn](*ops)
            return Case(bytes(inst), str(inst), names, scalar)
        text = mn + " " + ", ".join(hex(o.value) if isinstance(o, Lit) else str(o) for o in ops)
        try:
            return Case(assemble(text, self.arch, self.wave), text, names, scalar)
        except AsmError as e:
            raise OperandError(f"{text}: {e}") from None

    def salu_case(self, d, rng) -> Case:
        try:
            return self._salu_case(d, rng, scalar_layout(d))
        except OperandError:        # SOPK without a register source (s_movk_i32 sdst, imm)
            return self._salu_case(d, rng, [x for x in scalar_layout(d) if x[0] != "ssrc0"])

    def _salu_case(self, d, rng, layout) -> Case:
        names: dict[str, set] = defaultdict(set)
        ops = []
        for opname, _, dwords in layout:
            if opname == "sdst":
                ops.append(self._sregs(S_DST, dwords))
                names["D0"] = self._keys("s", S_DST, dwords)
            elif opname == "k" or (d.format == "SOPK" and opname == "ssrc1"):
                ops.append(int(rng.integers(-32768, 32768)) & 0xffff if d.format == "SOPK" else lit(int(special_dwords(rng, 1)[0])))
            else:
                i = 0 if opname == "ssrc0" else 1
                first = S_SRC[i] if dwords <= 2 else 24
                ops.append(self._sregs(first, dwords))
                names[f"S{i}"] = self._keys("s", first, dwords)
        wide = 2 if d.name.endswith("64") else 1
        names["VCC_IN"] = names["VCC_OUT"] = {("s", self.traits.vcc_lo + i) for i in range(max(wide, self.mask_n))}
        return self.encode(text_mnemonic(d.name, self.spec.arch), ops, names, scalar=True)

    def declared(self, e, case: Case) -> tuple[set, set, set]:
        """(registers read, registers written whole, registers written) by the model."""
        def regs(name: str, reading: bool) -> set:
            if name == "VCC":
                return case.names["VCC_IN" if reading else "VCC_OUT"]
            if name == "EXEC":
                return self.exec
            if name == "SCC":
                return {("scc", 0)}
            if name == "M0":
                return {("s", self.traits.m0)}
            return case.names.get(name, set())
        reads = set().union(*(regs(n, True) for n in e.reads)) if e.reads else set()
        full = set().union(*(regs(n, False) for n in e.full)) if e.full else set()
        writes = set().union(*(regs(n, False) for n in e.writes)) if e.writes else set()
        return reads, full, writes

    # ---------------------------------------------------------------- running
    def all_registers(self) -> list:
        t = self.traits
        out = [("v", i) for i in range(VGPRS)] + [("a", i) for i in range(self.agprs)]
        out += [("s", i) for i in range(t.sgprs)]
        out += sorted(self.vcc | {("s", t.m0)} | self.exec) + [("scc", 0)]
        return out

    def run(self, d, rng, sample: int | None) -> Result:
        r = Result(d.name, d.format)
        if self.machine.semantics.get(d) is None:
            entry = getattr(self.machine.semantics, "entry", None)
            r.skipped = "the emulator has no semantics" + (f": {entry(d).reason}" if entry else "")
            return r
        try:
            case = self.salu_case(d, rng) if d.format in self.traits.roles.salu else self.valu_case(d, rng)
        except (OperandError, KeyError) as e:
            r.skipped = f"not encodable with plain registers: {e}"
            return r
        r.text = case.text
        e = instruction_effects(d, effects(d.pcode))   # (a 16-bit result keeping the other half: D0 read too)
        reads, full, writes = self.declared(e, case)
        others = [x for x in self.all_registers() if x not in reads and x not in writes]
        if not case.scalar:
            others = [x for x in others if x not in self.exec]     # EXEC selects the lanes a VALU writes
        if sample is not None and len(others) > sample:
            others = [others[i] for i in sorted(rng.choice(len(others), sample, replace=False))]
        # with `overwritten`, a register written whole and not read is changed too: its old value
        # must not show (but EXEC, which selects the lanes a VALU instruction writes)
        overwritten = sorted(x for x in full - reads if case.scalar or x not in self.exec) if self.overwritten else []
        perturbed = [None] + sorted(reads) + overwritten + others
        try:
            before, after = self.execute(case, len(perturbed), perturbed, rng)
        except Exception as ex:     # noqa: BLE001 - the emulator refused: nothing to compare
            r.skipped = f"the emulator failed: {type(ex).__name__}: {str(ex).splitlines()[0][:120]}"
            return r
        base_changed = {x for x in self.all_registers() if not np.array_equal(self.value(before, 0, x),
                                                                               self.value(after, 0, x))}
        for x in base_changed - writes:
            r.findings["indexed" if e.indexed and x[0] in "vs" else "undeclared_write"].add(self.reg_text(x))
        seen_writes = set(base_changed)
        for w, x in enumerate(perturbed[1:], start=1):
            changed = {y for y in self.all_registers()
                       if (y != x or y in full) and not np.array_equal(self.value(after, w, y), self.value(after, 0, y))}
            seen_writes |= changed
            if x in reads:
                if not changed and (x not in writes or x in full):   # (a partial write shows its own input)
                    r.findings["no_effect"].add(self.reg_text(x))
                for y in changed - writes:
                    r.findings["indexed" if e.indexed and y[0] in "vs" else "leak"].add(
                        f"{self.reg_text(x)}->{self.reg_text(y)}")
            elif changed:
                kind = "indexed" if e.indexed and x[0] in "vs" else "undeclared_input"
                r.findings[kind].add(f"{self.reg_text(x)}->{','.join(sorted(self.reg_text(y) for y in changed))}")
        for x in writes - seen_writes:
            r.findings["unseen_write"].add(self.reg_text(x))
        return r

    @staticmethod
    def reg_text(x) -> str:
        return "scc" if x[0] == "scc" else f"{x[0]}{x[1]}"

    @staticmethod
    def value(state, w: int, x):
        vg, sg, scc = state
        if x[0] == "v":
            return vg[x[1], w]
        if x[0] == "a":
            return vg[VGPRS + x[1], w]
        if x[0] == "s":
            return sg[x[1], w]
        return scc[w]

    def execute(self, case: Case, waves: int, perturbed: list, rng, modes=None, fill=None):
        """Run the instruction in `waves` waves (one per work-group); wave w starts from the
        common random state with register perturbed[w] changed. (state before, state after)
        as (VGPRs (V, W, L), SGPRs (128, W), SCC (W,)). `fill(vg, sg)` may overwrite the common
        state before the perturbations; `modes`, one MODE per wave, replaces the dispatch's; each
        wave's MODE after the instruction is left in self.mode_after (tests/effects_check_mode.py)."""
        from emu.launch import Dispatch
        t, L = self.traits, self.wave
        rows = VGPRS + self.agprs
        vgpr_dwords = matrix_dwords if case.matrix else special_dwords
        vg = np.broadcast_to(vgpr_dwords(rng, rows * L).reshape(rows, 1, L), (rows, waves, L)).copy()
        sg = np.broadcast_to(special_dwords(rng, 128).reshape(128, 1), (128, waves)).copy()
        if t.null is not None:
            sg[t.null] = 0
        sg[t.ttmp_base:t.ttmp_base + t.ttmps] = 0
        for x in self.exec:
            sg[x[1]] = 0xFFFFFFFF
        sg[t.m0] = int(rng.integers(0, 8))
        if self.wave == 32:
            sg[t.exec_hi] = 0
        scc = np.full(waves, int(rng.integers(0, 2)), np.uint32)
        if fill is not None:
            fill(vg, sg)
        for w, x in enumerate(perturbed):
            if x is None:
                continue
            if x[0] in "va":
                row = x[1] + (VGPRS if x[0] == "a" else 0)
                new = vgpr_dwords(rng, L)
                new[new == vg[row, w]] ^= 1
                vg[row, w] = new
            elif x[0] == "s":
                new = int(special_dwords(rng, 1)[0])
                if x in self.exec and new == 0:
                    new = 0x5A5A5A5A
                if x[1] == t.m0:
                    new = int(rng.integers(0, 8))
                sg[x[1], w] = new if new != sg[x[1], w] else new ^ 1
            else:
                scc[w] ^= 1
        code = case.code
        prog = bytes(self.ns["s_nop"](0)) + code + bytes(self.ns["s_endpgm"]())
        addr = self.mem.alloc(len(prog), "code")
        self.mem.write(addr, np.frombuffer(prog, np.uint8))
        snap = {}

        def tracer(p, st, sel):
            if p.pc == addr:            # after s_nop: load the experiment's state
                st.settle_vgprs(None)
                for reg in range(rows):
                    st.write_vgprs(slice(0, waves), reg, 1, vg[reg], None)
                for row in (r for r in range(128) if r != t.null):
                    st.write_sgprs(slice(0, waves), row, 1, sg[row].reshape(-1, 1))
                st.scc[:, 0] = scc
                if modes is not None:
                    st.mode[:waves, 0] = modes
                    st.mode_changed()
            elif p.pc == addr + 4:
                snap["after"] = (st.vgpr[:rows].copy(), st.sgpr.copy(), st.scc[:, 0].copy())
                self.mode_after = st.mode[:waves, 0].copy()
        self.machine.tracer = tracer
        try:
            self.machine.run(Dispatch("effects", addr, grid=(waves, 1, 1), block=(L, 1, 1), wave_size=L,
                                      vgprs=rows, accum_offset=VGPRS if self.agprs else None,
                                      mode=0x3F0, budget=100))
        finally:
            self.machine.tracer = None
            self.mem.free(addr)
        if "after" not in snap:
            raise RuntimeError("the instruction did not run")
        return (vg, sg, scc), snap["after"]


def check(targets=TARGETS, sample: int | None = 12, per_target: int | None = None, seed: int = 0,
          progress=None) -> dict:
    """{target: [Result]} over `per_target` instructions (None: all) drawn with `seed`;
    `sample` undeclared registers per instruction (None: all)."""
    out = {}
    for ti, target in enumerate(targets):
        c = Checker(target)
        rng = np.random.default_rng([seed, ti])
        insts = c.instructions
        if per_target is not None and per_target < len(insts):
            insts = [insts[i] for i in sorted(rng.choice(len(insts), per_target, replace=False))]
        results = []
        for k, d in enumerate(insts):
            results.append(c.run(d, np.random.default_rng([seed, ti, k]), sample))
            if progress:
                progress(target, k + 1, len(insts))
        out[target] = results
    return out


def table(results: list) -> str:
    """Counts per format: checked, skipped, agreeing, hard and soft findings."""
    per: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        c = per[r.fmt]
        if r.skipped:
            c["skipped"] += 1
            continue
        c["checked"] += 1
        c["agree"] += not r.hard
        for k in HARD + SOFT:
            c[k] += bool(r.findings.get(k))
    cols = ("checked", "agree", "skipped") + HARD + SOFT
    lines = [f"{'format':<8}" + "".join(f"{k:>17}" for k in cols)]
    total = Counter()
    for fmt in sorted(per):
        total.update(per[fmt])
        lines.append(f"{fmt:<8}" + "".join(f"{per[fmt][k]:>17}" for k in cols))
    lines.append(f"{'all':<8}" + "".join(f"{total[k]:>17}" for k in cols))
    return "\n".join(lines)


def disagreements(results: list, known: dict = KNOWN) -> list[str]:
    """Hard findings of instructions not in `known`."""
    out = []
    for r in results:
        if r.hard and r.name not in known:
            detail = "; ".join(f"{k}: {', '.join(sorted(r.findings[k]))}" for k in HARD if r.findings.get(k))
            out.append(f"{r.name} ({r.text}): {detail}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", action="append", help=f"target(s) (default: {', '.join(TARGETS)})")
    ap.add_argument("--sample", type=int, default=None, help="undeclared registers per instruction (default: all)")
    ap.add_argument("--per-target", type=int, default=None, help="instructions per target (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="list soft findings too")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    def progress(target, k, n):
        if sys.stderr.isatty():
            print(f"\r{target}: {k}/{n}", end="", file=sys.stderr, flush=True)
    results = check(tuple(args.target or TARGETS), args.sample, args.per_target, args.seed, progress)
    bad = report(results, KNOWN, args.verbose)
    print(f"\n{time.perf_counter() - t0:.1f} s; {bad} unexplained disagreements")
    return 1 if bad else 0


def report(results: dict, known: dict, verbose: bool = True) -> int:
    """Print each target's table, its disagreements, the known ones with their reasons and (verbose)
    each instruction's soft findings or why it was skipped; return the number of disagreements
    (the command line of every effects check module)."""
    bad = 0
    for target, rs in results.items():
        print(f"\n{target}:\n{table(rs)}")
        for line in disagreements(rs, known):
            bad += 1
            print("  DISAGREES", line)
        for r in rs:
            if r.name in known and r.hard:
                print(f"  known {r.name}: {known[r.name]}")
            if verbose:
                soft = "; ".join(f"{k}: {', '.join(sorted(r.findings[k]))}" for k in SOFT if r.findings.get(k))
                if soft or r.skipped:
                    print(f"  {r.name}" + (f" ({r.text})" if r.text else "") + f": {r.skipped or soft}")
    return bad


if __name__ == "__main__":
    sys.exit(main())

"""Empirical check of the memory effects model (isa.memory_access.memory_effects) against the emulator.

For each memory instruction the emulator runs (DS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF, SMEM), the
instruction is assembled once with registers placed apart (addresses v8.., data v16.. / v24..,
results v40..; SADDR s8, the buffer resource s[12:15], SOFFSET s16, SBASE s20.., SDATA s24..)
and with random encoding choices (SADDR or off, GLC on atomics, OFFEN/IDXEN, SVE). One launch
of one wave per experiment, all from one random state whose address registers point into
the memory each space holds: LDS, the lane's scratch, a global buffer (through a buffer
resource for MUBUF and s_buffer_*). Experiment 0 is that state; each other one changes one
input: every register the model says the encoding reads (memory_registers, with M0 where the
model names it), the memory the addresses can reach (one experiment per space: LDS, scratch,
global), the memory beyond that reach, every other register operands are placed in, and a
sample of the remaining registers.
Outputs are the registers and each space's memory: a memory output changed where the
instruction wrote different dwords or different values (the dwords it wrote, compared as
written, so a store over perturbed bytes is no change). A launch that faults or is refused is
an output too (an address register changed to an unmapped address). The findings are those of
tests/effects_check.py (undeclared_write, undeclared_input, leak; soft: unseen_write,
no_effect), with memory named `mem:lds`, `mem:scratch`, `mem:global`.

Image instructions the emulator runs (image_load/_mip, image_store/_mip, the image atomics on
RDNA) take part through tests/effects_check_image.py: a T# in s[12:19] describing a linear image
in the global buffer, coordinates inside it, the instruction word packed from its fields (the
assembler writes no image instruction). The sampling ones the emulator refuses (and
tests/test_isa_image_effects.py holds every image instruction's register counts against LLVM's
operands).

    python -m tests.effects_check_memory                    # every memory instruction, every target
    python -m tests.effects_check_memory --target gfx1151 --per-target 40 --seed 3
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict

import numpy as np

import isa
from isa.memory_access import memory_effects
from isa.memory_registers import memory_registers
from tests import effects_check_image as image
from tests.effects_check import Result, report
from tests.emu_fuzz import special_dwords

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942-w64", "gfx950-w64")   # (CDNA: wave64 only)
VGPRS = 64
LDS_BYTES = 16384
SCRATCH_BYTES = 2048          # per lane
GLOBAL_BYTES = 16384
# bytes the addresses below can reach (global: a 3D / cube / array image of 8 x 8 x 8 16-byte texels
# from up to 7 * 256 + 255 bytes into the buffer: tests/effects_check_image.py)
REACH = {"lds": 8192, "scratch": 1024, "global": 12288}
SPACES = ("lds", "scratch", "global")
MEMORY_OF = {"lds": "lds", "scratch": "scratch", "flat": "global", "global": "global", "buffer": "global",
             "scalar": "global", "image": "global"}
# where each field's registers are placed (VGPR and SGPR numbers)
V_PLACE = {"ADDR": 8, "VADDR": 8, "DATA": 16, "DATA0": 16, "VSRC": 16, "DATA1": 24, "VDST": 40}
S_SADDR, S_RSRC, S_SOFFSET, S_SBASE, S_SDATA = 8, 12, 16, 20, 24
PLACED = frozenset([("v", i) for i in (*range(8, 11), *range(16, 20), *range(24, 28), *range(40, 44))] +
                   [("s", i) for i in (*range(S_SADDR, S_SADDR + 2), *range(S_RSRC, S_RSRC + 8),
                                       *range(S_SBASE, S_SDATA + 16))])
V_FIELDS = frozenset(("ADDR", "VADDR", "DATA", "DATA0", "DATA1", "VDST", "VDATA", "VSRC", "ADDR1", "ADDR2", "ADDR3",
                      "ADDR4", "VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4"))
# SGPR number = field value * scale (RDNA4's RSRC holds the SGPR number itself)
S_SCALE = {"SADDR": 1, "SOFFSET": 1, "SDATA": 1, "SBASE": 2, "SRSRC": 4, "RSRC": 1}

# Disagreements understood and accepted, each with its reason: {instruction: reason}
KNOWN: dict[str, str] = {}


class Written:
    """A space's memory before and after one experiment. Two experiments' memory outputs differ
    where either wrote a byte (it changed) and the bytes after differ: a byte neither wrote
    passes its input through (a perturbed byte left alone is no output), and a store over
    perturbed bytes writes the same values as over the original ones."""

    def __init__(self, before: np.ndarray, after: np.ndarray):
        self.before, self.after = before, after

    def written(self) -> bool:
        return bool((self.after != self.before).any())

    def __eq__(self, other) -> bool:
        if not isinstance(other, Written):
            return NotImplemented
        either = (self.after != self.before) | (other.after != other.before)
        return bool((self.after[either] == other.after[either]).all())

    __hash__ = None


def instruction_is_typed(d) -> bool:
    from isa.memory_access import typed_buffer
    return typed_buffer(d)


def _vr(first: int, n: int) -> str:
    return f"v{first}" if n == 1 else f"v[{first}:{first + n - 1}]"


def _sr(first: int, n: int) -> str:
    return f"s{first}" if n == 1 else f"s[{first}:{first + n - 1}]"


class MemoryChecker:
    def __init__(self, target: str):
        from emu.machine import Machine
        from emu.memory import DeviceMemory
        from emu.options import FAST
        self.target = target
        self.arch = target.split("-")[0]
        self.spec = isa.load(self.arch)
        self.traits = self.spec.traits
        self.wave = 64 if target.endswith("w64") or 32 not in self.traits.wave_sizes else 32
        self.mem = DeviceMemory()
        self.machine = Machine(self.arch, self.mem, options=FAST)
        self.buffer = self.mem.alloc(GLOBAL_BYTES, "effects")
        roles = self.traits.roles
        formats = roles.lds | roles.flat | roles.buffer | roles.smem
        from isa.memory_access import gds_only
        self.instructions = [d for d in self.spec.instructions if d.format in formats and not gds_only(d)
                             and memory_effects(d).space is not None] + image.instructions(self.spec, self.arch)
        self.gfx9 = self.traits.dialect == "gfx9"
        self.formats = {row[1]: row[0] for row in self.spec.tables["data_formats"]}

    # ---------------------------------------------------------------- building
    def text(self, d, rng) -> str:
        """The instruction's text with the registers placed as the module says, and random
        encoding choices; its operand widths are the model's (the assembler refuses others)."""
        from isa.mnemonics import text_mnemonic
        e = memory_effects(d)
        mn = text_mnemonic(d.name)
        counts = defaultdict(int)
        for field, n, when in e.reads + e.writes:
            counts[(field, when)] = n
        reads = {f for f, _, _ in e.reads}
        writes = {f for f, _, _ in e.writes}
        glc = e.memory == "read-modify-write" and e.space != "lds" and bool(rng.integers(0, 2))
        ops, mods = [], []
        if not e.reads and not e.writes and e.memory is None:      # cache control: no operands
            return mn
        if e.space == "lds":
            from isa.memory_access import lds_operands, memory_access
            if "VDST" in writes:
                ops.append(_vr(V_PLACE["VDST"], counts[("VDST", None)]))
            if "ADDR" in reads:
                ops.append(_vr(8, 1))
            for f in ("DATA0", "DATA1"):
                if f in reads:
                    ops.append(_vr(V_PLACE[f], counts[(f, None)]))
            if memory_access(d).two_addresses:
                mods.append(f"offset0:{int(rng.integers(0, 8))} offset1:{int(rng.integers(0, 8))}")
            elif e.memory is not None or lds_operands(d).address:
                mods.append(f"offset:{int(rng.integers(0, 32)) * 8}")
        elif e.space == "scalar":
            if "SDATA" in writes or "SDATA" in reads:
                n = max(counts[("SDATA", None)], counts[("SDATA", "returns")])
                ops.append(_sr(S_SDATA, n))
            if "SBASE" not in reads:         # (CDNA's s_memtime: a clock, no address)
                return f"{mn} {', '.join(ops)}"
            ops.append(_sr(S_SBASE, counts[("SBASE", None)]))
            if rng.integers(0, 2):
                ops.append(f"s{S_SOFFSET} offset:{int(rng.integers(0, 16)) * 4}")
            else:
                ops.append(hex(int(rng.integers(0, 16)) * 4))
            glc = False
        elif e.space == "buffer":
            data = "VDATA" in reads
            n = max(counts[("VDATA", None)], counts[("VDATA", "returns")])
            ops.append(_vr(16 if data else 40, n))
            idxen, offen = int(rng.integers(0, 2)), int(rng.integers(0, 2))
            ops.append(_vr(8, idxen + offen) if idxen + offen else "off")
            ops.append(_sr(S_RSRC, 4))
            ops.append(f"s{S_SOFFSET}" if rng.integers(0, 2) else "0" if self.gfx9 else "null")
            if self.gfx9 and d.format == "MTBUF":
                mods.append("format:[BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_UINT]")
            elif instruction_is_typed(d):
                mods.append(f"format:{self.formats['32_32_32_32_UINT']}")
            mods += ["idxen"] * idxen + ["offen"] * offen + [f"offset:{int(rng.integers(0, 32)) * 8}"]
        else:       # FLAT, GLOBAL, SCRATCH
            addr, data = ("VADDR", "VSRC") if "VADDR" in reads or "VSRC" in reads else ("ADDR", "DATA")
            if "VDST" in writes and (e.memory != "read-modify-write" or glc):
                ops.append(_vr(40, max(counts[("VDST", None)], counts[("VDST", "returns")])))
            # (the lane-ID forms address from SADDR alone: without it, from 0)
            saddr = e.space != "flat" and (bool(rng.integers(0, 2)) or not any(f == addr for f, _, _ in e.reads))
            if e.space == "flat":
                ops.append(_vr(8, 2))
            elif e.space == "global" and addr in reads:
                ops.append(_vr(8, 1 if saddr else 2))
            elif e.space == "scratch":
                ops.append(_vr(8, 1) if rng.integers(0, 2) or not saddr else "off")
            if data in reads:
                ops.append(_vr(16, counts[(data, None)]))
            if e.space != "flat":
                ops.append(_sr(S_SADDR, 2 if e.space == "global" else 1) if saddr else "off")
            mods.append(f"offset:{int(rng.integers(0, 32)) * 8}")
        if glc:         # an atomic returning the old value: GLC; RDNA4's TH; CDNA's SC0
            fields = {name for name, *_ in self.spec.formats[d.format].fields}
            mods.append("glc" if "GLC" in fields else "th:TH_ATOMIC_RETURN" if "TH" in fields else "sc0")
        return f"{mn} {', '.join(ops)} {' '.join(mods)}".strip()

    def registers(self, d, fields: dict) -> tuple[set, set, set]:
        """(registers read, registers written whole, registers written) by the model for this
        encoding: ('v', n) / ('s', n) keys, M0 as its SGPR, memory as ('mem', space)."""
        e = memory_effects(d)
        reads_n, writes_n = memory_registers(d, fields, self.traits)

        def keys(field: str, n: int) -> set:
            if field in V_FIELDS:
                return {("v", fields[field] + i) for i in range(n)}
            return {("s", fields[field] * S_SCALE[field] + i) for i in range(n)}
        reads = set().union(*(keys(f, n) for f, n in reads_n.items())) if reads_n else set()
        writes = set().union(*(keys(f, n) for f, n in writes_n.items())) if writes_n else set()
        full = set().union(*(keys(f, n) for f, n in writes_n.items() if f not in e.partial)) if writes_n else set()
        if "M0" in e.implicit:
            reads.add(("s", self.traits.m0))
        space = MEMORY_OF[e.space]
        if e.memory in ("read", "read-modify-write"):
            reads.add(("mem", space))
        if e.memory in ("write", "read-modify-write"):
            writes.add(("mem", space))
        if e.writes_lds:
            writes.add(("mem", "lds"))
        return reads, full, writes

    # ---------------------------------------------------------------- state
    def initial(self, d, fields: dict, rng):
        """The common random state: (VGPRs (V, L), SGPRs (128,), SCC, {space: bytes}), with the
        address registers pointing into each space's reach."""
        t, L = self.traits, self.wave
        e = memory_effects(d)
        vg = special_dwords(rng, VGPRS * L).reshape(VGPRS, L).astype(np.uint32)
        sg = special_dwords(rng, 128).astype(np.uint32)
        sg[t.null] = 0
        sg[t.ttmp_base:t.ttmp_base + t.ttmps] = 0
        sg[t.exec_lo] = 0xFFFFFFFF
        sg[t.exec_hi] = 0xFFFFFFFF if L == 64 else 0
        sg[t.m0] = self._m0(rng)
        memory = {"lds": rng.integers(0, 256, LDS_BYTES, dtype=np.uint8),
                  "scratch": rng.integers(0, 256, SCRATCH_BYTES * L, dtype=np.uint8),
                  "global": rng.integers(0, 256, GLOBAL_BYTES, dtype=np.uint8)}
        self.roles = {}       # register -> how a perturbation keeps it an address
        space = e.space
        base = self.buffer
        if space == "lds":
            self._addr(vg, ("v", 8), "lds", rng)
        elif space in ("flat", "global"):
            if space == "global" and fields["SADDR"] not in t.saddr_off:
                sg[S_SADDR], sg[S_SADDR + 1] = base & 0xFFFFFFFF, base >> 32
                self.roles[("s", S_SADDR)] = "global_lo"
                self._addr(vg, ("v", 8), "offset", rng)
            else:
                self._addr(vg, ("v", 8), "global_lo", rng)
                vg[9] = base >> 32
        elif space == "scratch":
            self._addr(vg, ("v", 8), "scratch", rng)
            sg[S_SADDR] = int(rng.integers(0, 16)) * 16
            self.roles[("s", S_SADDR)] = "scratch"
        elif space == "buffer":
            sg[S_RSRC:S_RSRC + 4] = self.resource(base)
            self.roles[("s", S_RSRC)] = "global_lo"
            self.roles[("v", 8 + fields.get("IDXEN", 0))] = "offset"
            if fields.get("IDXEN"):
                vg[8] = rng.integers(0, 64, L)
                self.roles[("v", 8)] = "index"
            if fields.get("OFFEN"):
                self._addr(vg, ("v", 8 + fields.get("IDXEN", 0)), "offset", rng)
            sg[S_SOFFSET] = int(rng.integers(0, 16)) * 16
            self.roles[("s", S_SOFFSET)] = "soffset"
        elif space == "scalar":
            if fields.get("SBASE", 0) * 2 == S_SBASE and memory_registers(d, fields, t)[0].get("SBASE") == 4:
                sg[S_SBASE:S_SBASE + 4] = self.resource(base)
            else:
                sg[S_SBASE], sg[S_SBASE + 1] = base & 0xFFFFFFFF, base >> 32
            self.roles[("s", S_SBASE)] = "global_lo"
            sg[S_SOFFSET] = int(rng.integers(0, 16)) * 16
            self.roles[("s", S_SOFFSET)] = "soffset"
        elif space == "image":
            image.state(self, d, fields, vg, sg, rng, memory["global"])
        return vg, sg, np.uint32(rng.integers(0, 2)), memory

    def _m0(self, rng) -> int:
        return int(rng.integers(0, 64)) * 16          # LDS thread-ID forms: a byte base in LDS

    def resource(self, base: int) -> np.ndarray:
        """A linear buffer resource over the global buffer: stride 16, raw range check."""
        if self.gfx9:       # GFX9's V#: NFMT 110:108, DFMT 114:111, no OOB_SELECT
            nfmt = {name: code for code, name, _ in self.spec.tables["number_formats"]}["UINT"]
            word3 = (4 | 5 << 3 | 6 << 6 | 7 << 9) | nfmt << 12 | self.formats["32_32_32_32"] << 15
        else:
            word3 = (4 | 5 << 3 | 6 << 6 | 7 << 9) | self.formats["32_32_32_32_UINT"] << 12 | 3 << 28
        return np.array([base & 0xFFFFFFFF, (base >> 32) & 0xFFFF | 16 << 16, GLOBAL_BYTES, word3], np.uint32)

    def _addr(self, vg, reg, role: str, rng):
        self.roles[reg] = role
        vg[reg[1]] = self._address_values(role, rng)

    def _address_values(self, role: str, rng) -> np.ndarray:
        L = self.wave
        values = image.address_values(self, role, rng)
        if values is not None:
            return values
        if role == "lds":
            return rng.integers(0, 256, L).astype(np.uint32) * 16
        if role == "scratch":
            return rng.integers(0, 32, L).astype(np.uint32) * 16
        if role == "index":
            return rng.integers(0, 64, L).astype(np.uint32)
        if role == "soffset":
            return np.uint32(int(rng.integers(0, 16)) * 16)
        offsets = rng.integers(0, 256, L).astype(np.uint32) * 16
        if role == "global_lo":
            return (np.uint32(self.buffer & 0xFFFFFFFF) + offsets).astype(np.uint32)
        return offsets

    def perturb(self, state, x, rng):
        """A copy of `state` with input `x` changed (address registers to another address)."""
        vg, sg, scc, memory = state
        vg, sg, memory = vg.copy(), sg.copy(), {k: v.copy() for k, v in memory.items()}
        t, L = self.traits, self.wave
        if x[0] == "v":
            role = self.roles.get(x)
            new = self._address_values(role, rng) if role else special_dwords(rng, L).astype(np.uint32)
            new = np.where(new == vg[x[1]], new ^ (16 if role in ("lds", "scratch", "offset", "global_lo") else 1),
                           new)
            if role == "global_lo":
                new = np.where(new < np.uint32(self.buffer & 0xFFFFFFFF), vg[x[1]], new)
            vg[x[1]] = new
        elif x[0] == "s":
            role = self.roles.get(x)
            if x[1] == t.m0:
                new = self._m0(rng)
            elif role:
                new = int(np.asarray(self._address_values(role if role != "scratch" else "soffset", rng)).flat[0])
                new = new if role != "global_lo" or new != sg[x[1]] else new + 16
            else:
                new = int(special_dwords(rng, 1)[0])
            if x[1] in (t.exec_lo, t.exec_hi) and new == 0:
                new = 0x5A5A5A5A
            sg[x[1]] = new if new != sg[x[1]] else new ^ 16
        elif x[0] == "scc":
            scc = np.uint32(scc ^ 1)
        else:       # ('within' | 'beyond', space): every byte the addresses reach, or a sample of the rest
            space = x[1]
            per = SCRATCH_BYTES if space == "scratch" else len(memory[space])
            view = memory[space].reshape(-1, per)
            reach = REACH[space]
            if x[0] == "within":
                view[:, :reach] ^= rng.integers(1, 256, (view.shape[0], reach), dtype=np.uint8)
            else:
                at = reach + rng.choice(per - reach, 16, replace=False)
                view[:, at] ^= np.uint8(0x5A)
        return vg, sg, scc, memory

    # ---------------------------------------------------------------- running
    def execute(self, code_addr: int, state, size: int):
        """Run the instruction on `state`: (VGPRs, SGPRs, SCC, {space: bytes}) after, or the
        text of the error the launch raised."""
        from emu.launch import Dispatch
        vg, sg, scc, memory = state
        t, L = self.traits, self.wave
        self.mem.write(self.buffer, memory["global"])
        snap = {}
        machine = self.machine

        def tracer(p, st, sel):
            if p.pc == code_addr:
                st.settle_vgprs(None)
                for reg in range(VGPRS):
                    st.write_vgprs(slice(0, 1), reg, 1, vg[reg][None, :], None)
                for row in range(128):
                    if row != t.null:
                        st.write_sgprs(slice(0, 1), row, 1, np.array([[sg[row]]], np.uint32))
                st.scc[:, 0] = scc
                chunk = machine.trace_chunk
                chunk.lds[:LDS_BYTES] = memory["lds"]
                chunk.scratch[:SCRATCH_BYTES * L] = memory["scratch"]
            elif p.pc == code_addr + 4 + size:       # after the s_waitcnt that follows it
                chunk = machine.trace_chunk
                snap["after"] = (st.vgpr[:VGPRS, 0].copy(), st.sgpr[:, 0].copy(), np.uint32(st.scc[0, 0]),
                                 {"lds": chunk.lds[:LDS_BYTES].copy(),
                                  "scratch": chunk.scratch[:SCRATCH_BYTES * L].copy()})
        machine.tracer = tracer
        try:
            machine.run(Dispatch("effects", code_addr, grid=(1, 1, 1), block=(L, 1, 1), wave_size=L,
                                 vgprs=VGPRS, mode=0x3F0, budget=100, lds_size=LDS_BYTES,
                                 scratch_size=SCRATCH_BYTES))
        except Exception as ex:     # noqa: BLE001 - a fault or refusal is the experiment's outcome
            return f"{type(ex).__name__}: {str(ex).splitlines()[0][:100]}"
        finally:
            machine.tracer = None
        if "after" not in snap:
            return "the instruction did not run"
        vga, sga, scca, mema = snap["after"]
        mema["global"] = np.frombuffer(self.mem.read(self.buffer, GLOBAL_BYTES), np.uint8).copy()
        return vga, sga, scca, mema

    def outputs(self, before, after) -> dict:
        """{output: value} of one experiment: each register, and per space the dwords written
        (index -> value)."""
        if isinstance(after, str):
            return {("fault", 0): after}
        vg, sg, scc, mem = after
        out = {("v", i): vg[i].tobytes() for i in range(VGPRS)}
        out.update({("s", i): int(sg[i]) for i in range(self.traits.sgprs)})
        for x in (self.traits.m0, self.traits.vcc_lo, self.traits.vcc_hi):
            out[("s", x)] = int(sg[x])
        out[("scc", 0)] = int(scc)
        for space in SPACES:
            out[("mem", space)] = Written(before[3][space], mem[space])
        return out

    def run(self, d, rng, sample: int | None) -> Result:
        from dsl import assemble
        from dsl.decode import decode_one
        r = Result(d.name, d.format)
        try:
            if memory_effects(d).space == "image":
                word, text = image.encode(self.spec, d, rng)
                code = word + assemble("s_waitcnt 0\ns_endpgm", self.arch)
            else:
                text = self.text(d, rng)
                code = assemble(text + "\ns_waitcnt 0\ns_endpgm", self.arch)
        except Exception as ex:     # noqa: BLE001
            r.skipped = f"not encodable: {type(ex).__name__}: {str(ex).splitlines()[0][:100]}"
            return r
        r.text = text
        inst = decode_one(self.spec, code[:16])
        fields, size = {**inst.fields, **inst.extra}, inst.size
        reads, full, writes = self.registers(d, fields)
        state = self.initial(d, fields, rng)
        t = self.traits
        regs = [("v", i) for i in range(VGPRS)] + [("s", i) for i in range(t.sgprs)] + \
            [("s", t.vcc_lo), ("s", t.vcc_hi), ("s", t.m0), ("scc", 0)]
        others = [x for x in regs if x not in reads and x not in writes]
        # the registers operands are placed in, always (a model missing an operand shows there),
        # and a sample of the rest
        placed = [x for x in others if x in PLACED]
        rest = [x for x in others if x not in PLACED]
        if sample is not None and len(rest) > sample:
            rest = [rest[i] for i in sorted(rng.choice(len(rest), sample, replace=False))]
        others = placed + rest
        mem_inputs = [("within", s) for s in SPACES] + [("beyond", s) for s in SPACES]
        perturbed = [None] + sorted(x for x in reads if x[0] != "mem") + mem_inputs + others
        prog = bytes(self.assemble_nop()) + code
        addr = self.mem.alloc(len(prog), "code")
        self.mem.write(addr, np.frombuffer(prog, np.uint8))
        try:
            base_after = self.execute(addr, state, size)
            if isinstance(base_after, str):
                r.skipped = f"the emulator failed: {base_after}"
                return r
            base = self.outputs(state, base_after)
            initial = self.outputs(state, state)
            base_changed = {k for k in base if (base[k].written() if k[0] == "mem" else base[k] != initial[k])}
            for x in base_changed - writes:
                r.findings["undeclared_write"].add(self.reg_text(x))
            seen = set(base_changed)
            for x in perturbed[1:]:
                pstate = self.perturb(state, x, rng)
                out = self.outputs(pstate, self.execute(addr, pstate, size))
                if ("fault", 0) in out:         # the launch failed: that is the one output
                    changed = {("fault", 0)}
                else:
                    changed = {y for y in out if (y != x or y in full) and out[y] != base[y]}
                seen |= changed - {("fault", 0)}
                declared = x in reads or (x[0] == "within" and ("mem", x[1]) in reads)
                if declared:
                    if not changed and (x not in writes or x in full):
                        r.findings["no_effect"].add(self.reg_text(x))
                    for y in changed - writes - {("fault", 0)}:
                        r.findings["leak"].add(f"{self.reg_text(x)}->{self.reg_text(y)}")
                elif changed:
                    r.findings["undeclared_input"].add(
                        f"{self.reg_text(x)}->{','.join(sorted(self.reg_text(y) for y in changed))}")
            for x in writes - seen:
                r.findings["unseen_write"].add(self.reg_text(x))
        finally:
            self.mem.free(addr)
        return r

    def assemble_nop(self) -> bytes:
        from dsl import assemble
        return assemble("s_nop 0", self.arch)

    @staticmethod
    def reg_text(x) -> str:
        if x[0] == "scc":
            return "scc"
        if x[0] in ("mem", "within", "beyond"):
            return f"{'mem' if x[0] == 'mem' else x[0]}:{x[1]}"
        if x[0] == "fault":
            return "fault"
        return f"{x[0]}{x[1]}"


def check(targets=TARGETS, sample: int | None = 12, per_target: int | None = None, seed: int = 0,
          progress=None) -> dict:
    """{target: [Result]} over `per_target` memory instructions (None: all) drawn with `seed`;
    `sample` undeclared registers per instruction (None: all)."""
    out = {}
    for ti, target in enumerate(targets):
        c = MemoryChecker(target)
        rng = np.random.default_rng([seed, ti, 7])
        insts = c.instructions
        if per_target is not None and per_target < len(insts):
            insts = [insts[i] for i in sorted(rng.choice(len(insts), per_target, replace=False))]
        results = []
        for k, d in enumerate(insts):
            results.append(c.run(d, np.random.default_rng([seed, ti, k, 7]), sample))
            if progress:
                progress(target, k + 1, len(insts))
        out[target] = results
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", action="append", help=f"target(s) (default: {', '.join(TARGETS)})")
    ap.add_argument("--sample", type=int, default=24, help="undeclared registers per instruction (default: 24)")
    ap.add_argument("--per-target", type=int, default=None, help="instructions per target (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="list soft findings and skips too")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()

    def progress(target, k, n):
        if sys.stderr.isatty():
            print(f"\r{target}: {k}/{n}", end="", file=sys.stderr, flush=True)
    results = check(tuple(args.target or TARGETS), args.sample, args.per_target, args.seed, progress)
    bad = report(results, KNOWN, args.verbose)
    print(f"\n{time.perf_counter() - t0:.1f} s; {bad} unexplained disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

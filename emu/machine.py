"""The machine: runs a Dispatch on a DeviceMemory, every wave of the grid at once.

Execution is batched: each step takes the lowest PC any runnable wave sits at, and runs
that instruction for every such wave together — a (W, L) numpy slab per operand — through
the instruction's Semantic (emu/semantics.py). Decoding and operand routing happen once
per PC (machine_prepare.py) and are cached. Barriers park waves until every live wave of
their work-group arrived; s_endpgm retires them. Work-groups run in chunks so that the
register state stays within a memory bound.

Errors name the kernel, PC, instruction and, for memory faults, the wave, lane, work-item
and address with the nearest buffer; a per-wave instruction budget stops runaway loops.
"""
from __future__ import annotations

import gc
import sys
import time

import numpy as np

from dsl.decode import DecodeError, decode_one
from isa.records import dataclass

from . import families, program_cache
from .dialect import FieldError, machine_fields, scaled_mfma
from .facts import loads_scales
from .launch import Dispatch, initial_state
from .machine_prepare import Prepared, PrepareError, Preparer
from .machine_runs import RunStop, build_run
from .memory import DeviceMemory, FlatMemory, MemoryFault, RegionMemory, UndoLog
from .options import EmuOptions, activate, deactivate, from_environment
from .scalar_loads import scalar_load_step
from .semantics import NUMPY_QUIET, Ctx, SemanticsError
from .shortcuts import branch_condition
from .wave import AT_BARRIER, CODES, ENDED, EXEC_LO, RUNNING, SCALAR_CODES, VCC_LO, WaveState, shares_codes, unpack_mask

# register state of one chunk of work-groups, at most; a launch's chunks share it out evenly.
# A fresh state costs page faults on its first writes (a first launch: ~10-60 ms per 64 MiB,
# more while the kernel compacts memory for huge pages), a reused one does not; 64 MiB still
# holds 2^19 lanes of 16 VGPRs, so batches stay wide enough to amortise a step's Python
STATE_BYTES = 64 << 20
# lanes of one semantic call: a larger batch runs in slices of waves, one after another, so
# that each instruction's temporaries stay in the CPU cache (waves of a batch are independent
# within one instruction, and slices keep wave order for stores and atomics)
SLICE_LANES = 1 << 17
# ... except vector instructions on global memory: mostly copies (unit-stride runs) and
# gathers with few temporaries (the unit-stride test works in blocks itself), for which the
# per-slice Python costs more than cache misses (elementwise 1M: load ~1.65 -> ~1.0 ms)
MEMORY_SLICE_LANES = 1 << 20
# the largest VGPR file whose waves are moved to keep a looping batch contiguous
# (EmuOptions.compact_waves): moving them costs two passes over every register, which a
# narrow launch's few steps of the loop repay (a gathered register read or scattered write
# costs ~0.5-2 us more than a view's), a wide launch's long ones would not
COMPACT_BYTES = 1 << 20
# ... and the steps a compaction must last to pay for its two moves (else its loop is left
# alone): a few register reads and writes per step save ~1-3 us against ~20-100 us of moves
COMPACT_MIN_STEPS = 64
# control events that only advance the PC here: memory completes in order (waits), no
# scheduling (sleep, wakeup, hints), messages to a host-side interrupt handler that does not exist
_NO_EFFECT = ("wait", "nop", "sleep", "wakeup", "message", "barrier_signal")
# decoded instructions kept across launches: past this many, a launch starts with empty caches.
# Each cached instruction holds ~40 Python objects (its decode, preparation, step closures); a
# process that loads thousands of kernels and keeps them (tinygrad keeps every kernel it has
# compiled) would otherwise keep them all, and every full pass of Python's cyclic collector
# walks them: in tinygrad's test_ops that is seconds of collection, most of it at exit
DECODED_LIMIT = 1 << 14
_UNKNOWN = object()
_STORES = ("store", "atomic")       # Semantic.memory of the instructions that write memory


class EmuError(Exception):
    """Any error while running a kernel; the message names kernel and PC."""


class UnsupportedInstruction(EmuError):
    pass


class EmuFault(EmuError):
    """A memory access outside every buffer (or LDS / scratch bound)."""


class BudgetExceeded(EmuError):
    pass


class _BatchError(Exception):
    """A semantic faulted or refused its input in a batch of several waves (its stores undone):
    which wave's error comes first depends on the order the semantic checks things in, and the
    waves before the failing one complete the instruction, so the machine runs the batch again
    one wave at a time to report the error the first failing wave gives (as wave-by-wave
    execution, reference mode, does). part: the slice of a wide group it came from
    (_Chunk.slices), None for the whole batch."""
    part = None


@dataclass
class Stats:
    """What a launch did: waves, instructions, lane operations, machine steps, time."""
    kernel: str = ""
    waves: int = 0
    workgroups: int = 0
    instructions: int = 0        # wave-instructions issued
    lane_ops: int = 0            # active lanes summed over vector instructions
    batches: int = 0             # machine steps (one instruction over a batch of waves)
    seconds: float = 0.0
    # wave-instructions per mnemonic, kept only when Machine.count_mnemonics is set (the
    # per-batch cost is then one dict update; off, one test of None)
    by_mnemonic: dict | None = None
    timing: object = None        # emu.timing.TimingReport when the launch ran with timing on

    def __str__(self) -> str:
        rate = self.lane_ops / self.seconds if self.seconds else 0.0
        return (f"{self.kernel}: {self.workgroups} work-groups, {self.waves} waves, {self.instructions} "
                f"wave-instructions in {self.batches} batches, {self.lane_ops} lane-ops, "
                f"{self.seconds * 1e3:.1f} ms ({rate / 1e6:.1f} M lane-ops/s)")


def default_semantics(arch: str, options: EmuOptions | None = None):
    from .table import load_semantics     # the semantics library (emu/table.py)
    return load_semantics(arch, narrow=options is None or options.narrow_uint32)


class _Inputs(dict):
    """Semantic inputs; the optional ones (old destination values) are read on first use:
    `_Inputs(initial)` then its lazy readers, state and batch set (dict's own constructor)."""
    __slots__ = ("lazy", "st", "sel")

    def __missing__(self, name):
        if name not in self.lazy:
            raise KeyError(name)
        value = self[name] = self.lazy[name](self.st, self.sel)
        return value


class _BatchRegs:
    def __init__(self, st: WaveState, sel):
        self.st, self.sel = st, sel

    @property
    def waves(self) -> np.ndarray:
        """(W, 1) wave indices of the batch (built only when a semantic indexes registers)."""
        return np.arange(self.st.waves)[self.sel][:, None]


class _Vgprs(_BatchRegs):
    """RegFile over the VGPRs of a batch (cross-lane semantics index VGPR[lane][reg])."""

    def read(self, reg, lane=None):
        lane = np.arange(self.st.lanes)[None, :] if lane is None else lane
        reg, lane = np.asarray(reg, np.int64), np.asarray(lane, np.int64)
        self._check(reg, lane)
        return self.st.vgpr[reg, self.waves, lane]

    def write(self, reg, lane, value, mask=None):
        reg, lane = np.asarray(reg, np.int64), np.asarray(lane, np.int64)
        self._check(reg, lane)
        w, r, l, v = np.broadcast_arrays(self.waves, reg, lane, np.asarray(value, np.uint32))
        if mask is not None:
            m = np.broadcast_to(mask, w.shape)
            w, r, l, v = w[m], r[m], l[m], v[m]
        self.st.vgpr[r, w, l] = v
        self.st.vgpr_written[r] = True

    def _check(self, reg, lane):
        # Name the first offending index in wave-then-lane order: a batch of waves and the
        # same waves run one at a time (reference mode) then report the same one.
        for index, limit, what in ((reg, self.st.vgprs, "VGPR index {} outside the {} allocated"),
                                   (lane, self.st.lanes, "lane index {} outside the wave's {} lanes")):
            bad = ((index < 0) | (index >= limit)).reshape(-1)
            if bad.any():
                raise SemanticsError(what.format(int(index.reshape(-1)[bad.argmax()]), limit))


class _Sgprs(_BatchRegs):
    """RegFile over the SGPRs of a batch (SGPR[addr] of s_movrels and friends)."""

    def read(self, reg, lane=None):
        return self.st.sgpr[np.asarray(reg, np.int64) % SCALAR_CODES, self.waves]

    def write(self, reg, lane, value, mask=None):
        w, r, v = np.broadcast_arrays(self.waves, np.asarray(reg, np.int64) % SCALAR_CODES, np.asarray(value, np.uint32))
        if mask is not None:
            m = np.broadcast_to(mask, w.shape)
            w, r, v = w[m], r[m], v[m]
        self.st.sgpr[r, w] = v
        self.st.sgpr_written[r] = True


class _Hwregs(_Sgprs):
    """HW_REGISTERS[id]: MODE (1) and STATUS (2) live in the wave state, the rest in st.hwreg."""

    def read(self, reg, lane=None):
        reg = int(np.asarray(reg).flat[0])
        src = {1: self.st.mode, 2: self.st.status}.get(reg)
        return src[self.sel] if src is not None else self.st.hwreg[self.sel, reg % 64][:, None]

    def write(self, reg, lane, value, mask=None):
        reg = int(np.asarray(reg).flat[0])
        value = np.broadcast_to(np.asarray(value, np.uint32).reshape(-1, 1), (len(self.waves), 1))
        dst = {1: self.st.mode, 2: self.st.status}.get(reg)
        if dst is not None:
            dst[self.sel] = value
            if reg == 1:
                self.st.mode_changed()
        else:
            self.st.hwreg[self.sel, reg % 64] = value[:, 0]


def _one_pc(pc: np.ndarray, sel) -> bool:
    """Whether the waves `sel` selects all sit at one PC."""
    pcs = pc[sel]
    return bool(np.minimum.reduce(pcs) == np.maximum.reduce(pcs))


def _int64(pc: int) -> int:
    """A PC as st.pc holds it: the uint64 address read as int64."""
    return ((pc + (1 << 63)) & 0xFFFF_FFFF_FFFF_FFFF) - (1 << 63)


class _UniformBranch:
    """A branch the run loop's plain path decides itself when every wave of the group goes the
    same way (EmuOptions.uniform_branches): its condition (shortcuts.branch_condition) counted
    over the batch's SCC or mask rows, the group's PC moved as a Python int (no semantic, no PC
    written); waves that part take the branch's step. Truthy, as the plan's branch flag."""
    __slots__ = ("condition", "when_zero", "jump")

    def __init__(self, condition: str | None, when_zero: bool, simm16: int):
        self.condition, self.when_zero = condition, when_zero
        self.jump = 4 + 4 * ((simm16 & 0xFFFF) - ((simm16 & 0x8000) << 1))     # PC + signext(SIMM16 * 4) + 4

    def taken(self, st: WaveState, sel) -> bool | None:
        """True: every wave of the batch takes it; False: none does; None: they differ."""
        if self.condition is None:
            return True
        if self.condition == "SCC":
            values = st.scc[sel]
        else:
            code = VCC_LO if self.condition == "VCC" else EXEC_LO
            values = st.sgpr[code, sel] if st.mask_dwords == 1 else st.sgpr[code, sel] | st.sgpr[code + 1, sel]
        nonzero = np.count_nonzero(values)
        if 0 < nonzero < len(values):
            return None
        return (nonzero == 0) == self.when_zero


def _register_files(sem) -> bool:
    """Whether a semantic may index SGPR[...] / HW_REGISTERS[...] (ctx.sgpr, ctx.hwreg): the
    generated ones whose pseudocode does (Semantic.register_files) or that read other lanes, and
    every hand-written one."""
    return sem.origin != "generated" or sem.cross_lane or sem.register_files


def _unrouted(p) -> str | None:
    """An output p's semantic writes that the machine has no writer for (step raises before
    computing, so that no wave writes part of its results), or None."""
    return next((name for name in p.sem.writes if name not in p.writers), None)


def _plain(p) -> bool:
    """Whether a compiled step may run p (compile_step): no machine event, DPP, buffer
    descriptor, cross-lane or register-file access."""
    return p.control is None and p.dpp is None and p.buffer is None and not p.cross_lane and not _register_files(p.sem)


class _Clock:
    """The wall-time side of a launch: its deadline (Dispatch.seconds) and, on a slow launch,
    a progress line on stderr (when it is a terminal, or always with Dispatch.progress)."""
    PROGRESS_AFTER = 2.0        # seconds before the first progress line
    PROGRESS_EVERY = 1.0

    def __init__(self, d: Dispatch):
        self.d, self.start = d, time.perf_counter()
        self.deadline = self.start + d.seconds
        self.show = d.progress if d.progress is not None else None
        self.next_report = self.start + self.PROGRESS_AFTER
        self.groups_done = 0
        self.shown = False

    def tick(self, stats) -> bool:
        """True when the deadline passed; prints progress when due."""
        now = time.perf_counter()
        if now > self.deadline:
            return True
        if now >= self.next_report and self.show is not False:
            if self.show is None:
                self.show = sys.stderr.isatty()
            if self.show:
                sys.stderr.write(f"\r{self.d.kernel}: {now - self.start:.0f} s, {stats.instructions:,} wave-instructions, "
                                 f"work-groups done {self.groups_done}/{self.d.groups} ")
                sys.stderr.flush()
                self.shown = True
            self.next_report = now + self.PROGRESS_EVERY
        return False

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


class Machine:
    """One architecture's machine bound to a device memory. `run(dispatch)` executes a
    launch to completion and returns Stats; decoded instructions are cached per PC, and
    their preparation per PC and launch shape (wave size, VGPR count), up to DECODED_LIMIT
    instructions (then a launch starts afresh). `options` says which
    fast paths are on (emu/options.py; default: WAVESMITH_EMU_REFERENCE / WAVESMITH_EMU_OFF,
    else all)."""

    def __init__(self, arch: str, memory: DeviceMemory, semantics=None, options: EmuOptions | None = None):
        self.arch, self.memory = arch, memory
        self.spec = families.load(arch)
        if not shares_codes(self.spec.traits):
            raise EmuError(f"{arch}: the emulator's register layout (emu/wave.py) is {CODES.family}'s, whose "
                               f"special operand codes {self.spec.traits.family} does not share")
        self.options = options if options is not None else from_environment()
        self.semantics = semantics if semantics is not None else default_semantics(arch, self.options)
        self._decoded: dict[int, object] = {}
        # {address of an allocation instructions are fetched from: its ProgramRecord or None}
        # (EmuOptions.program_cache), dropped with the decodes
        self._records: dict[int, program_cache.ProgramRecord | None] = {}
        self._records_used: set[int] = set()       # ... of the images this launch decoded from
        # per launch shape: (Preparer, {PC: Prepared}, {id(Prepared): compiled step or False}
        # (_Chunk.compile_step), {PC: plan or None} (_Chunk.plan), {PC: run or None} (machine_runs),
        # {PCs of ways back whose compaction did not pay} (_Chunk.restore)), kept from launch to launch
        self._prepared: dict[tuple, tuple[Preparer, dict[int, Prepared], dict, dict, dict, set]] = {}
        self.tracer = None      # optional callable(prepared, wave_state, sel) after every step (debugging)
        self.count_mnemonics = False    # Stats.by_mnemonic: wave-instructions per mnemonic (bench/bench_llvm.py)
        self.recorder = None    # optional emu.timing.Recorder: each batch's PC and waves (timing model)
        self.spare_state = None     # the last chunk's WaveState, reset and reused by a chunk of its shape
        # the chunk of work-groups an error (a fault, a refusal, the budget) stopped: its registers
        # (`.st`, a WaveState never reused by a later chunk) and LDS (`.lds`) as the error left
        # them (README: "Faults: what a stopped launch leaves")
        self.stopped = None
        # {(waves, lanes, VGPRs): an ended chunk's WaveState}: at most the two shapes of one
        # launch's chunks (the last chunk may hold fewer work-groups than the others)
        self._spares: dict[tuple, WaveState] = {}
        self.wave_size = 32
        self._code_generation = memory.code_generation

    def retire(self, st: WaveState) -> None:
        """An ended chunk's state: kept for the next chunk of its shape to reset and reuse."""
        self.spare_state = self._spares[(st.waves, st.lanes, st.vgprs)] = st

    # ------------------------------------------------------------------ decoding
    def decode(self, pc: int):
        inst = self._decoded.get(pc)
        if inst is None:
            off = pc - self.memory.base
            holder = self.memory.allocation_at(pc) if 0 <= off < len(self.memory.data) else None
            if holder is None:
                raise EmuFault(f"instruction fetch at PC 0x{pc:x} outside any buffer; {self.memory.nearest(pc)}")
            holder.executed = True          # freeing or overwriting it drops the cached decodes
            record = self._record(holder) if self.options.program_cache else None
            if record is not None:
                self._records_used.add(holder.address)
                inst = record.instructions.get(pc - holder.address)
            if inst is None:
                try:
                    inst = machine_fields(decode_one(self.spec, self.memory.data[off:off + 16].tobytes()))
                    if loads_scales(inst.defs[0]):      # one instruction with the MFMA after it
                        from .handwritten import mfma
                        after = off + inst.size
                        inst = scaled_mfma(inst, decode_one(self.spec, self.memory.data[after:after + 16].tobytes()),
                                           mfma.scaled_names(self.spec))
                except (DecodeError, FieldError) as e:
                    raise UnsupportedInstruction(f"PC 0x{pc:x}: cannot decode: {e}") from None
                if record is not None:
                    record.add(pc - holder.address, inst)
            self._decoded[pc] = inst
        return inst

    def _record(self, holder) -> program_cache.ProgramRecord | None:
        """The program record of the code image in `holder` (an allocation), read at its first
        fetch; None for an image over program_cache.CODE_BYTES_LIMIT."""
        record = self._records.get(holder.address, _UNKNOWN)
        if record is _UNKNOWN:
            record = None
            if holder.size <= program_cache.CODE_BYTES_LIMIT:
                start = holder.address - self.memory.base
                from .facts import fact_cache
                from .table import _shared_cache
                try:
                    record = program_cache.ProgramRecord(
                        self.spec, self.memory.data[start:start + holder.size].tobytes(),
                        fact_cache(True) if self.options.fact_cache else None, _shared_cache())
                except OSError:         # the sources its folder is named by cannot be read: no record
                    record = None
            self._records[holder.address] = record
        return record

    def text(self, inst) -> str:
        # error messages only: the printer is not loaded to run
        from dsl.disasm import instruction_text
        try:
            return instruction_text(self.spec, inst, self.wave_size)
        except Exception:       # the printer is a nicety in an error message; never mask the real error
            return inst.name.lower()

    # ------------------------------------------------------------------ running
    def run(self, d: Dispatch) -> Stats:
        d.validate(self.spec.traits)
        self._clock = _Clock(d)
        if self._code_generation != self.memory.code_generation or len(self._decoded) > DECODED_LIMIT:
            # code the cache decoded was freed (its range may hold new code) or overwritten,
            # or the caches hold more instructions than are worth keeping (DECODED_LIMIT)
            self._decoded.clear()
            self._prepared.clear()
            self._records.clear()
            self._code_generation = self.memory.code_generation
        self.wave_size = d.wave_size
        t0 = time.perf_counter()
        stats = Stats(kernel=d.kernel, workgroups=d.groups, waves=d.groups * d.waves_per_group,
                      by_mnemonic={} if self.count_mnemonics else None)
        shape = (d.wave_size, d.vgprs, d.accum_offset)
        if shape not in self._prepared:
            self._prepared[shape] = (Preparer(self.spec, self.semantics, d.wave_size, d.vgprs, self.options,
                                              d.accum_offset), {}, {}, {}, {}, set())
        preparer, prepared, steps, plans, runs, unpaid = self._prepared[shape]
        per_group = d.waves_per_group * (d.vgprs * d.wave_size * 4 + 1024) + d.lds_size \
            + d.scratch_size * d.waves_per_group * d.wave_size
        most = max(1, STATE_BYTES // max(per_group, 1))
        chunk = -(-d.groups // -(-d.groups // most))      # as many work-groups in each chunk as can be
        # spare states of shapes this launch's chunks do not have are freed before it allocates
        shapes = {(g * d.waves_per_group, d.wave_size, d.vgprs) for g in (chunk, d.groups - (d.groups - 1) // chunk * chunk)}
        self._spares = {k: v for k, v in self._spares.items() if k in shapes}
        self.spare_state = self.stopped = None
        # inactive lanes compute on garbage and IEEE results are wanted: numpy's warnings are
        # off for the whole run, so that no semantic needs to turn them off per batch
        # the cyclic collector paused (EmuOptions.pause_gc): a launch allocates many short-lived
        # arrays and no cycles, and a full collection over the process's objects costs a pause
        # of tens of ms at an arbitrary step
        paused = self.options.pause_gc and gc.isenabled()
        known = len(prepared)
        # the definitions whose facts and translations this launch asks for, for its code's
        # program records (an enclosing launch's are kept on)
        outer_touched = program_cache.touched
        if self.options.program_cache and outer_touched is None:
            program_cache.touched = {}
        self._records_used = set()
        with np.errstate(all="ignore"):
            quiet, options = NUMPY_QUIET.set(True), activate(self.options)
            if paused:
                gc.disable()
            try:
                for first in range(0, d.groups, chunk):
                    self._clock.groups_done = first
                    running = _Chunk(self, d, first, min(chunk, d.groups - first), preparer, prepared, stats, steps,
                                     plans, runs, unpaid)
                    try:
                        running.run()
                    except EmuError:
                        self.stopped = running
                        raise
            except MemoryError:
                raise EmuError(f"{d.kernel}: the host has no memory for the state of {chunk} work-group(s) "
                               f"({per_group} bytes each)") from None
            finally:
                if paused:
                    if len(prepared) > known and self.options.age_prepared and gc.get_freeze_count() == 0:
                        # this launch prepared instructions: the objects it made are mostly those
                        # preparations, kept from launch to launch; they go to the oldest generation,
                        # where they would end up, without the young generations' passes over them
                        # (gc.freeze then gc.unfreeze; a process that froze objects itself keeps its freeze)
                        gc.freeze()
                        gc.unfreeze()
                    gc.enable()
                deactivate(options)
                NUMPY_QUIET.reset(quiet)
                self._clock.done()
                touched, program_cache.touched = program_cache.touched, outer_touched
                if outer_touched is None and touched is not None:
                    for address in self._records_used:
                        record = self._records.get(address)
                        if record is not None:
                            start = address - self.memory.base
                            record.save(touched, self.memory.data[start:start + len(record.image)].tobytes())
        stats.seconds = time.perf_counter() - t0
        return stats


class _Chunk:
    """The waves of some work-groups, run until all ended."""

    def __init__(self, m: Machine, d: Dispatch, first: int, groups: int, preparer, prepared, stats,
                 steps: dict | None = None, plans: dict | None = None, runs: dict | None = None,
                 unpaid: set | None = None):
        self.m, self.d, self.first, self.preparer, self.prepared, self.stats = m, d, first, preparer, prepared, stats
        self._direct: dict = {}          # id(prepared) -> register of a direct D0 (destinations); kept alive by self.prepared
        # the machine's for this launch shape (Machine._prepared), kept alive with self.prepared:
        self._steps = {} if steps is None else steps     # id(prepared) -> its step as one closure, or False (compile_step)
        self._plans = {} if plans is None else plans     # PC -> what run's plain path needs of its instruction, or None (plan)
        self._runs = {} if runs is None else runs        # PC -> the straight-line run starting there, or None (machine_runs)
        self._unpaid = set() if unpaid is None else unpaid  # PCs of ways back whose compaction did not pay (compact)
        self.options = m.options
        spare = m._spares.pop((groups * d.waves_per_group, d.wave_size, d.vgprs), None) if m.options.reuse_state else None
        self.st, self.wave_group = initial_state(d, first, groups, spare, m.options, m.spec.traits)
        self.groups = groups
        self.per_group = d.waves_per_group
        L = d.wave_size
        self.full = np.uint64((1 << L) - 1)
        self.lds = np.zeros(groups * d.lds_size + 8, np.uint8)
        self._lds_base = None       # (waves, 1) offset of each wave's LDS, made on first use
        self._memories: dict = {}   # (kind, first wave, end) -> the memory of a batch of contiguous waves
        self._exec_memo: dict = {}  # (the batch's waves, EXEC's write counts) -> exec_state(...)
        # the wave each position of the state holds while a batch is compacted (compact), else None
        self.order: np.ndarray | None = None
        self._compacted_at = (0, 0)     # (the way back's PC, stats.batches then) of the compaction
        scratch_lanes = self.st.waves * L
        self.scratch = np.zeros(scratch_lanes * d.scratch_size + 8, np.uint8)
        # without scratch every lane's (empty) region starts at 0: no per-lane array to build
        self.scratch_base = (np.arange(scratch_lanes, dtype=np.int64) * d.scratch_size).reshape(self.st.waves, L) \
            if d.scratch_size else np.zeros((self.st.waves, 1), np.int64)

    def memory(self, kind: str | None, sel):
        if kind is None:
            return None
        if kind == "global":
            return self.m.memory
        key = (kind, sel.start, sel.stop) if isinstance(sel, slice) else None
        made = self._memories.get(key) if key is not None else None
        if made is None:
            made = self._region_memory(kind, sel)
            if key is not None:         # the same batch again (a loop): the same views
                self._memories[key] = made
        return made

    def _region_memory(self, kind: str, sel):
        if self._lds_base is None:
            self._lds_base = (self.wave_group * self.d.lds_size).astype(np.int64)[:, None]
        lds_base, scratch_base = self._lds_base, self.scratch_base
        if self.order is not None:      # waves moved (compact): each keeps its work-group's LDS and its scratch
            lds_base, scratch_base = lds_base[self.order], scratch_base[self.order]
        lds = RegionMemory("LDS", self.lds, self.d.lds_size, lds_base[sel])
        if self.m.recorder is not None:     # a timed launch: the LDS addresses give bank conflicts
            lds.observer = getattr(self.m.recorder, "lds_touch", None)
        scratch = RegionMemory("scratch", self.scratch, self.d.scratch_size, scratch_base[sel])
        return {"lds": lds, "scratch": scratch}.get(kind) or FlatMemory(self.m.memory, lds, scratch)

    def run(self) -> None:
        st, stats = self.st, self.stats
        by_mnemonic = stats.by_mnemonic
        parked = np.iinfo(np.int64).max
        everyone, all_waves = st.wave_ids, slice(0, st.waves)
        # every wave runs, at one PC: the last batch held them all and moved them on together
        # (no machine event but waits and barriers every wave of the batch passed; a branch
        # every wave took the same way), so the next batch is again all of them. A launch
        # starts that way.
        fast_together = self.options.together
        together = fast_together and bool(st.waves) and (st.run == RUNNING).all() and st.pc.min() == st.pc.max()
        # the batch while together: the running waves at the lowest PC (at first all of them;
        # later the waves a PC search found there, e.g. those of a loop whose out-of-range waves
        # branched past it), as long as they stay below the lowest PC of the other running
        # waves (which do not move meanwhile)
        group_idx, group_sel, others = everyone, all_waves, parked
        # instructions every wave of the group issued while together, not yet added to
        # st.issued (one Python int instead of a pass over the waves per batch)
        bulk = 0
        # while together: the group's PC as a Python int (gpc), and how far the plain steps
        # moved it on since st.pc was last written (lag, added to st.pc[group_sel] before
        # anything reads or overwrites st.pc: one addition per stretch of steps, not per step)
        gpc = int(st.pc[0]) if together else 0
        lag, issued0, budget = 0, int(st.issued[0]) if together else 0, self.d.budget
        # the plain path's plans (not under a tracer, which sees st.pc after every step)
        plans = self._plans if self.m.tracer is None and self.options.batch_waves else None
        # straight-line runs of plain steps as one call (emu/machine_runs.py), unless each step
        # is to be seen (counted per mnemonic, recorded for timing)
        runs = self._runs if plans is not None and self.options.compiled_runs and by_mnemonic is None \
            and self.m.recorder is None else None
        # a looping group whose waves are not contiguous is moved to the front of the state
        # (compact), unless a recorder or tracer sees the waves by their index
        compact = plans is not None and self.options.compact_waves and self.m.recorder is None \
            and st.vgpr.nbytes <= COMPACT_BYTES
        # a group wider than a plain step's one call takes (a wide launch's vector steps) runs
        # that step slice by slice here, not through the general path below (which records
        # each slice for a timed launch)
        wide = plans is not None and self.options.wide_plain_steps and self.m.recorder is None
        try:
            while True:
                if together and gpc < others:
                    run = runs.get(gpc, _UNKNOWN) if runs is not None else None
                    if run is _UNKNOWN:
                        # not built for a group wider than the PC's own instruction takes (no run
                        # from it could be taken: it steps on, and the next PC would build another
                        # run, ~50 suffixes of one stretch in a first launch of 2^20 lanes); a
                        # narrower batch reaching the PC builds it then
                        head = plans.get(gpc)
                        run = None if head is not None and len(group_idx) > head[2] else \
                            runs.setdefault(gpc, build_run(self.plan_at, gpc & 0xFFFF_FFFF_FFFF_FFFF,
                                                           self.st.null))
                    if run is not None and gpc + run.last < others and len(group_idx) <= run.limit \
                            and issued0 + bulk + run.count <= budget \
                            and ((stats.batches & 255) + run.count < 256 or not self.m._clock.tick(stats)):
                        # the plain steps below, one call for the run (same steps, same waves)
                        try:
                            run.fn(self, group_sel, group_idx)
                            stop = None
                        except RunStop as e:
                            stop = e
                        if stop is not None:        # raised outside the handler: no RunStop in the error's context
                            done, error = stop.done, stop.error
                            p = run.prepared[done]
                            bulk += done + 1
                            stats.batches += done + 1
                            stats.instructions += (done + 1) * len(group_idx)
                            lag += run.offsets[done]
                            gpc += run.offsets[done]
                            if not isinstance(error, _BatchError):
                                if isinstance(error, EmuError):
                                    raise error
                                raise self.failure(p, error) from error
                            st.pc[group_sel] += lag
                            lag = 0
                            self.refused(p, group_idx)
                        bulk += run.count
                        stats.batches += run.count
                        stats.instructions += run.count * len(group_idx)
                        lag += run.size
                        gpc += run.size
                        continue
                    plan = plans.get(gpc, _UNKNOWN) if plans is not None else None
                    if plan is _UNKNOWN:
                        plan = plans[gpc] = self.plan(gpc & 0xFFFF_FFFF_FFFF_FFFF)
                    if plan is not None and (len(group_idx) <= plan[2] or (wide and not plan[4])) \
                            and issued0 + bulk < budget and ((stats.batches + 1) & 255 or not self.m._clock.tick(stats)):
                        # a plain step of the group (emu/options.py: together): no PC search,
                        # no PC write, none of the tests the other steps need (over budget or
                        # time, the general path below raises)
                        fn, size, _, p, branch = plan
                        bulk += 1
                        stats.batches += 1
                        stats.instructions += len(group_idx)
                        if by_mnemonic is not None:
                            by_mnemonic[p.mnemonic] = by_mnemonic.get(p.mnemonic, 0) + len(group_idx)
                        if self.m.recorder is not None:
                            self.m.recorder.step(p.pc, group_idx, self.first * self.per_group)
                        if st.stale_vgprs:
                            self.settle(p, group_idx)
                        if branch is not True and branch and (taken := branch.taken(st, group_sel)) is not None:
                            # every wave goes one way: only the group's PC moves (lag keeps st.pc's debt)
                            delta = branch.jump if taken else size
                            lag = _int64(lag + delta)
                            if compact and delta <= 0 and type(group_sel) is not slice and gpc not in self._unpaid:
                                group_idx, group_sel = self.compact(group_idx, gpc)     # a loop's way back (below)
                            gpc = _int64(gpc + delta)
                            continue
                        if fn is not None:
                            try:
                                if len(group_idx) <= plan[2]:
                                    fn(self, group_sel, group_idx)
                                else:   # wider than one call takes: slices in wave order, as the general path's
                                    self.slices(fn, p, group_sel, group_idx, plan[2])
                            except _BatchError as e:
                                st.pc[group_sel] += lag
                                lag = 0
                                self.refused(p, group_idx if e.part is None else e.part)
                            except EmuError:
                                raise
                            except Exception as e:      # a defect in operand routing or writeback
                                raise self.failure(p, e) from e
                        if not branch:
                            lag += size
                            gpc += size
                            continue
                        # a branch wrote every wave's PC (taken or not): st.pc holds them all
                        lag = 0
                        if _one_pc(st.pc, group_sel):       # every wave went the same way
                            to = int(st.pc[group_idx[0]])
                            if compact and to <= gpc and type(group_sel) is not slice and gpc not in self._unpaid:
                                # a loop's way back: its waves contiguous from here on
                                group_idx, group_sel = self.compact(group_idx, gpc)
                            gpc = to
                        else:
                            st.issued[group_sel] += bulk
                            bulk, together = 0, False
                        continue
                    if lag:
                        st.pc[group_sel] += lag
                        lag = 0
                    lowest, idx, sel = gpc, group_idx, group_sel
                    bulk += 1
                else:
                    together = False
                    if lag:
                        st.pc[group_sel] += lag
                        lag = 0
                    if bulk:
                        st.issued[group_sel] += bulk
                        bulk = 0
                    if self.order is not None:      # the search and its batches see the waves in their order
                        self.restore()
                    key = np.where(st.run == RUNNING, st.pc, parked)      # PCs of the runnable waves
                    lowest = int(np.minimum.reduce(key))
                    if lowest == parked:
                        if (st.run == AT_BARRIER).any():
                            raise EmuError(f"{self.d.kernel}: deadlock: waves wait at a barrier no other wave can reach")
                        self.m.retire(st)
                        return
                    idx = (key == lowest).nonzero()[0]
                    sel = slice(int(idx[0]), int(idx[-1]) + 1) if idx[-1] - idx[0] + 1 == len(idx) else idx
                    if fast_together:
                        # the batch is at one PC: while that stays below every other running
                        # wave's PC, the batches are these waves (from this one on, which the
                        # loop's top runs and counts)
                        key[idx] = parked
                        together, group_idx, group_sel, others = True, idx, sel, int(np.minimum.reduce(key))
                        gpc, issued0 = lowest, int(st.issued[idx[0]])
                        continue
                    st.issued[sel] += 1
                pc = lowest & 0xFFFF_FFFF_FFFF_FFFF          # PCs are unsigned, held as int64
                p = self.prepared.get(pc)
                if p is None:
                    p = self.prepare(pc)
                control = p.control
                if self.order is not None and control is not None and control not in _NO_EFFECT:
                    # machine events (barriers by work-group, the end) see the waves in their order
                    group_idx = group_sel = idx = sel = self.restore()
                stats.batches += 1
                stats.instructions += len(idx)
                if by_mnemonic is not None:
                    by_mnemonic[p.mnemonic] = by_mnemonic.get(p.mnemonic, 0) + len(idx)
                if st.issued[idx[0]] + bulk > self.d.budget:
                    raise BudgetExceeded(f"{self.d.kernel}: instruction budget of {self.d.budget} per wave exhausted "
                                         f"at PC 0x{pc:x} ({p.mnemonic}) in {self.wave_name(self.wave_at(int(idx[0])))}: "
                                         f"a runaway loop? (launch(..., budget=N) raises it)")
                if not stats.batches & 255 and self.m._clock.tick(stats):
                    raise BudgetExceeded(f"{self.d.kernel}: time budget of {self.d.seconds:g} s exhausted at PC "
                                         f"0x{pc:x} ({p.mnemonic}) in {self.wave_name(self.wave_at(int(idx[0])))}: a runaway loop? "
                                         f"(launch(..., seconds=S) or $WAVESMITH_LAUNCH_SECONDS raise it)")
                width = 1 if p.scalar else st.lanes
                limit = MEMORY_SLICE_LANES if p.memory == "global" and not p.scalar else SLICE_LANES
                by_wave = not self.options.batch_waves and control is None
                sliced = control is None and len(idx) * width > limit
                # a timed launch records each semantic call as a batch: the recorder takes one
                # batch's memory accesses as one instruction's (by wave and sliced: per call)
                if self.m.recorder is not None and not by_wave and not sliced:
                    self.m.recorder.step(pc, idx, self.first * self.per_group)
                if st.stale_vgprs:
                    self.settle(p, idx)
                waiting = control == "barrier" and (st.run == AT_BARRIER).any()     # other waves at a barrier
                try:
                    if control in _NO_EFFECT:     # s_waitcnt, s_nop, s_delay_alu, ...: only the PC moves
                        st.pc[sel] += p.inst.size
                    elif by_wave:
                        self.wave_by_wave(p, idx, pc)
                    elif sliced:
                        per = max(1, limit // width)
                        for k in range(0, len(idx), per):
                            part = idx[k:k + per]
                            if self.m.recorder is not None:
                                self.m.recorder.step(pc, part, self.first * self.per_group)
                            self.batch(p, slice(int(part[0]), int(part[-1]) + 1) if isinstance(sel, slice) else part, part)
                    else:
                        self.batch(p, sel, idx)
                except EmuError:
                    raise
                except Exception as e:      # a defect in operand routing or writeback: report where, keep the cause
                    raise self.failure(p, e) from e
                if self.m.tracer is not None:
                    st.settle_vgprs(None)       # the tracer sees zeros, not the last launch's values
                    self.m.trace_chunk = self   # which waves (first work-group) and LDS the state holds
                    self.m.tracer(p, st, sel)
                if control is not None and control not in _NO_EFFECT:
                    if control == "end" and len(idx) == st.waves:     # every wave ended at once
                        st.issued += bulk
                        self.m.retire(st)
                        return
                    if together and control == "barrier" and not waiting and (st.run[group_sel] == RUNNING).all():
                        # the group passed the barrier at once (no other wave of its work-groups
                        # is alive) and no other wave waited at one: every wave is where it was
                        gpc = int(st.pc[group_idx[0]])
                    else:
                        if together:
                            st.issued[group_sel] += bulk
                            bulk = 0
                        together = False
                elif together:      # after a branch: together if every wave went the same way (min = max)
                    together = not p.sem.branch or _one_pc(st.pc, sel)
                    if together:
                        gpc = int(st.pc[group_idx[0]])
                    else:
                        st.issued[group_sel] += bulk
                        bulk = 0
        finally:
            if lag:             # an error left the loop: st.pc as the waves' PCs are
                st.pc[group_sel] += lag
            if self.order is not None:
                self.restore()

    def compact(self, idx: np.ndarray, pc: int) -> tuple[np.ndarray, slice]:
        """Move the waves `idx` of a looping group (not contiguous; `pc`: its way back) to the
        front of the state, in their order, and the other waves after them in theirs
        (EmuOptions.compact_waves): the group's registers are then views (a slice), not gathers
        and scatters. Returns the group as (positions, slice). Waves keep their order within
        every batch until restore()."""
        st = self.st
        rest = np.ones(st.waves, bool)
        rest[idx] = False
        order = np.concatenate((idx, np.flatnonzero(rest)))
        self._move(order)
        self.order, self._compacted, self._compacted_at = order, idx, (pc, self.stats.batches)
        return st.wave_ids[:len(idx)], slice(0, len(idx))

    def restore(self) -> np.ndarray:
        """Every wave back at its own position (compact undone); returns the compacted group's
        waves (their indices). A compaction undone within COMPACT_MIN_STEPS steps (a loop with
        a barrier, or whose waves part again) did not repay its two moves: its way back is not
        compacted again in launches of this shape."""
        inverse = np.empty_like(self.order)
        inverse[self.order] = self.st.wave_ids
        self._move(inverse)
        self.order = None
        pc, batches = self._compacted_at
        if self.stats.batches - batches < COMPACT_MIN_STEPS:
            self._unpaid.add(pc)
        return self._compacted

    def _move(self, order: np.ndarray) -> None:
        """Position i of the state takes what position order[i] held; what was kept per batch of
        positions (memories, EXEC) is dropped."""
        self.st.permute(order)
        self._memories.clear()
        self._exec_memo.clear()

    def wave_by_wave(self, p: Prepared, idx, recorded_pc: int | None = None) -> None:
        """One semantic call per wave, in wave order. recorded_pc: a timed launch records each
        wave's call as its own batch."""
        for wave in idx:
            if recorded_pc is not None and self.m.recorder is not None:
                self.m.recorder.step(recorded_pc, np.array([wave]), self.first * self.per_group)
            self.step(p, slice(int(wave), int(wave) + 1), np.array([wave]))

    def slices(self, fn, p: Prepared, sel, idx, per: int) -> None:
        """A plain step's compiled step `fn` over a together group wider than one call takes
        (EmuOptions.wide_plain_steps): slices of `per` waves in wave order, the calls the
        general path makes, without its per-step PC writes. When a slice's semantic refuses
        its input, the earlier slices' PCs move past the instruction, as the general path
        leaves them, and the _BatchError names the slice (`part`) whose waves run one by one (a
        one-wave slice raises its EmuError itself, the earlier slices' PCs moved alike)."""
        for k in range(0, len(idx), per):
            part = idx[k:k + per]
            part_sel = slice(int(part[0]), int(part[-1]) + 1) if type(sel) is slice else part
            try:
                fn(self, part_sel, part)
            except (_BatchError, EmuError) as e:      # a one-wave slice's fault or refusal is an EmuError
                self.st.pc[slice(sel.start, sel.start + k) if type(sel) is slice else idx[:k]] += p.inst.size
                if type(e) is _BatchError:
                    e.part = part
                raise

    def batch(self, p: Prepared, sel, idx) -> None:
        try:
            self.step(p, sel, idx)
        except _BatchError:
            self.refused(p, idx)

    def refused(self, p: Prepared, idx) -> None:
        """A batch's semantic faulted or refused its input (_BatchError): nothing was written
        back (the semantic raised before returning) and its stores were put back (undone), so the
        waves before the first failing one complete the instruction, one at a time, and the
        first failing wave's error is raised. A timed
        launch records each wave's call as its own step in place of the batch's, as reference
        mode (one call per wave) does."""
        recorded_pc = None
        if self.m.recorder is not None:
            self.m.recorder.retract()
            recorded_pc = p.pc
        self.wave_by_wave(p, idx, recorded_pc)
        raise AssertionError("a batch refused by its semantic ran wave by wave without error") from None

    def settle(self, p: Prepared, idx) -> None:
        """Zero the registers a reused state left stale (WaveState.stale_vgprs) that this
        instruction may read; one it overwrites whole in every lane of every wave stays
        unzeroed (saving a pass over it), as do registers it does not touch."""
        st = self.st
        if p.vgpr_effects is None:
            st.settle_vgprs(None)
            return
        reads, written = p.vgpr_effects
        st.settle_vgprs(reads)
        if written in st.stale_vgprs:
            if len(idx) == st.waves and st.exec_mask(slice(0, st.waves)).min() == self.full:
                st.stale_vgprs.discard(written)         # every lane of it is written below
            else:
                st.settle_vgprs((written,))

    def prepare(self, pc: int) -> Prepared:
        try:
            inst = self.m.decode(pc)
        except EmuError as e:   # a jump or fall-through out of the code
            raise type(e)(f"{self.d.kernel}: {e}") from None
        try:
            p = self.preparer.prepare(inst, pc)
        except PrepareError as e:
            raise UnsupportedInstruction(f"{self.d.kernel}: PC 0x{pc:x}: `{self.m.text(inst)}` "
                                         f"({inst.fmt.name}): {e}") from None
        except EmuError:
            raise
        except Exception as e:      # a defect in preparing this instruction: report where, keep the cause
            raise EmuError(f"{self.d.kernel}: PC 0x{pc:x}: `{self.m.text(inst)}` ({inst.fmt.name}): preparing it "
                           f"failed ({type(e).__name__}: {e})") from e
        self.prepared[pc] = p
        return p

    def step(self, p: Prepared, sel, idx) -> None:
        compiled = self._steps.get(id(p))
        if compiled is None:
            compiled = self._steps[id(p)] = self.compile_step(p)
        if compiled:
            compiled(self, sel, idx)
            if not p.sem.branch:
                self.st.pc[sel] += p.inst.size
            return
        st = self.st
        control = p.control
        if control is not None:
            self.event(p, sel, idx, control)
            return
        exec_mask, lane_ops, active = self.exec_state(sel)
        if p.scalar:
            active = None
        else:
            self.stats.lane_ops += lane_ops
            if active is None and p.dpp is not None:
                active = unpack_mask(exec_mask, st.lanes)
        halves = [p] if p.second is None else [p, p.second]
        for h in halves:        # before any wave computes: no wave writes part of its results
            name = _unrouted(h)
            if name is not None:
                raise self.unrouted(h, name)
        results = []
        for h in halves:
            # VOPD's X half must not write a register before the Y half has read its sources
            results.append(self.execute(h, sel, idx, exec_mask, active, direct=h is halves[-1]))
        for h, (out, write_active, dest) in zip(halves, results):
            for name, value in out.items():
                if dest is not None and value is dest.get(name):
                    continue            # computed straight into its register
                writer = h.writers.get(name)
                if writer is None:
                    raise UnsupportedInstruction(f"{self.d.kernel}: PC 0x{p.pc:x}: {h.mnemonic} writes {name}, "
                                                 f"which the machine does not route for {h.inst.fmt.name}")
                writer(st, sel, value, write_active)
        if not p.sem.branch:
            st.pc[sel] += p.inst.size

    def plan_at(self, pc: int):
        """plan(pc), kept in the plans of this launch shape."""
        plan = self._plans.get(pc, _UNKNOWN)
        if plan is _UNKNOWN:
            plan = self._plans[pc] = self.plan(pc)
        return plan

    def plan(self, pc: int):
        """(its step closure, or None for an instruction that only moves the PC; its size; the
        most waves one call of it takes, MEMORY_SLICE_LANES / SLICE_LANES; Prepared; whether it
        writes the PC: a _UniformBranch when the plain path may decide it itself) of the instruction at pc, when run's plain path may run it for a group of
        waves that are together: no machine event but a wait, a compiled step (compile_step).
        None for every other instruction."""
        p = self.prepared.get(pc)
        if p is None:
            p = self.prepare(pc)
        if p.control in _NO_EFFECT:
            return None, p.inst.size, sys.maxsize, p, False
        if p.control is not None:
            return None
        compiled = self._steps.get(id(p))
        if compiled is None:
            compiled = self._steps[id(p)] = self.compile_step(p)
        if not compiled:
            return None
        width = 1 if p.scalar else self.d.wave_size
        limit = MEMORY_SLICE_LANES if p.memory == "global" and not p.scalar else SLICE_LANES
        branch = p.sem.branch
        if branch and self.options.uniform_branches and len(p.inst.defs) == 1 \
                and (condition := branch_condition(p.inst.defs[0].name)) is not None:
            branch = _UniformBranch(*condition, p.inst.fields.get("SIMM16", 0))
        return compiled, p.inst.size, max(1, limit // width), p, branch

    def compile_step(self, p: Prepared):
        """The step of a plain instruction (no machine event, DPP, buffer descriptor, cross-lane
        or register-file access) as one closure over what is the same on every step of it
        (EmuOptions.compiled_steps): its readers and constant inputs, writers, semantic,
        memory, and whether a destination register may be offered. It does what step and
        execute do for such an instruction, without their per-step tests, calls and lists.
        A VOPD pair of such halves is one closure too (EmuOptions.compiled_pairs): both halves
        computed, the X half without a destination register, before either writes.
        False for the other instructions, or with the switch off. The closure, step(chunk, sel,
        idx), runs on the chunk it is given: the machine keeps it from launch to launch (per
        launch shape, with the Prepared it was built from), and it leaves the PC to its caller
        (step, or run's plain path while the waves are together)."""
        if not self.options.compiled_steps or not _plain(p) or _unrouted(p) is not None:
            return False
        if p.second is not None:
            if not self.options.compiled_pairs or not _plain(p.second) or _unrouted(p.second) is not None:
                return False
            return self._pair_step(p, p.second)
        compute, writers, scalar = self._compute(p, direct=True), p.writers, p.scalar

        def step(chunk, sel, idx, state=None, status=None):
            st = chunk.st
            exec_mask, lane_ops, active = chunk.exec_state(sel) if state is None else state
            if scalar:
                active = None
            else:
                chunk.stats.lane_ops += lane_ops
            out, into = compute(chunk, st, sel, idx, exec_mask, active, status)
            for name, value in out.items():
                if into is not None and value is into and name == "D0":
                    continue            # computed straight into its register
                writer = writers.get(name)
                if writer is None:
                    raise chunk.unrouted(p, name)
                writer(st, sel, value, active)
        if self.options.scalar_load_steps and p.memory == "global":    # one read for a batch's one address
            return scalar_load_step(p, self.m.memory, step) or step
        return step

    def _pair_step(self, x: Prepared, y: Prepared):
        """A VOPD pair's step: the X half must not write a register before the Y half has read
        its sources, so both compute first (only Y may compute into its destination register,
        after X has read), then X's results are written, then Y's."""
        halves = ((x, self._compute(x, direct=False), x.writers), (y, self._compute(y, direct=True), y.writers))

        def step(chunk, sel, idx, state=None, status=None):
            st = chunk.st
            exec_mask, lane_ops, active = chunk.exec_state(sel) if state is None else state
            chunk.stats.lane_ops += lane_ops
            results = [(h, compute(chunk, st, sel, idx, exec_mask, active, status), writers)
                       for h, compute, writers in halves]
            for h, (out, into), writers in results:
                for name, value in out.items():
                    if into is not None and value is into and name == "D0":
                        continue
                    writer = writers.get(name)
                    if writer is None:
                        raise chunk.unrouted(h, name)
                    writer(st, sel, value, active)
        return step

    def unrouted(self, p: Prepared, name: str) -> UnsupportedInstruction:
        return UnsupportedInstruction(f"{self.d.kernel}: PC 0x{p.pc:x}: {p.mnemonic} writes {name}, "
                                      f"which the machine does not route for {p.inst.fmt.name}")

    def _compute(self, p: Prepared, direct: bool):
        """compute(chunk, st, sel, idx, exec_mask, active, status) -> (results, the destination
        register computed into or None): a compiled step's inputs, Ctx and semantic call for
        one instruction (or VOPD half); direct: a destination register may be offered."""
        sem = p.sem
        execute, lanes, scalar = sem.execute, self.d.wave_size, p.scalar
        # what its stores overwrite is kept to undo (one log for the steps of this closure)
        log = UndoLog() if p.memory is not None and sem.memory in _STORES else None
        readers = tuple((name, f) for name, f in p.inputs.items() if callable(f))
        constants = {name: f for name, f in p.inputs.items() if not callable(f)}
        lazy, kind = p.lazy, p.memory
        device = self.m.memory if kind == "global" else None
        reg = self.direct_register(p) if direct else None       # a D0 register to offer (Ctx.dest), or None
        make_ctx = Ctx.of_step
        shared_active = self.options.shared_active_lanes
        # EmuOptions.lean_semantics: the semantic's function called here (a shortcut's choice made
        # once: these options stay the machine's) when the batch's one MODE needs no rounding
        # check or flush (Semantic.passes_through); the run has numpy's warnings off already
        lean = self.options.lean_semantics
        fn = sem.fn.chosen(self.options) if lean and hasattr(sem.fn, "chosen") else sem.fn
        passes, fitted, kinds = sem.passes_through, sem.fitted, sem.result_dtypes
        through = sem.passes_by_mode        # passes_through's answers: a dict lookup before the call
        # lane-bit outputs written to NULL (a VOP3 carry-out's SDST): the semantic may skip them
        null = self.st.null
        unused = frozenset(name for name, w in p.writers.items()
                           if lean and null is not None and getattr(w, "code", None) == null)

        def compute(chunk, st, sel, idx, exec_mask, active, status):
            inputs = _Inputs(constants)
            inputs.lazy, inputs.st, inputs.sel = lazy, st, sel
            for name, read in readers:
                inputs[name] = read(st, sel)
            if reg is not None and active is None and type(sel) is slice:      # as destinations() offers it
                marks = st.vgpr_written             # WriteMarks.mark(reg), without the call
                marks.plain[reg] = True
                marks.counts[reg] += 1
                into = st.vgpr[reg, sel]
                dest = {"D0": into}
            else:
                into = dest = None
            mode = st.mode[sel] if st.mode_uniform is None else st.mode_uniform
            ctx = make_ctx(lanes, exec_mask, inputs, scalar, mode, st.status[sel] if status is None else status,
                           device if device is not None or kind is None else chunk.memory(kind, sel),
                           dest, (active is None) if shared_active else None, unused)
            if active is not None and shared_active:
                ctx.__dict__["active"] = active
            undo = log.begin() if log is not None else None
            try:
                if lean and type(mode) is int and (through.get(mode) or passes(mode)):
                    out = fn(ctx)
                    shape = ctx.shape
                    for name, value in out.items():     # results already as the contract has them pass
                        if type(value) is not np.ndarray or value.shape != shape or value.dtype != kinds.get(name):
                            return fitted(ctx, out), into
                    return out, into
                return execute(ctx), into
            except (MemoryFault, SemanticsError) as e:
                raise chunk.undone(p, idx, e, undo) from None
            except Exception as e:      # a defect in a semantic: report where, keep the cause chained
                if undo is not None:
                    undo.revert()
                raise chunk.failure(p, e, "its semantics failed") from e
            finally:
                if undo is not None:
                    undo.end()
        return compute

    def exec_state(self, sel):
        """(EXEC per wave (W, 1), active lanes summed, bool (W, L) active lanes or None when
        every lane is on) of a batch. With EmuOptions.exec_memo, kept for a batch (the same
        waves) until EXEC is written (its rows' write counts): a loop's steps between two EXEC
        writes read it once. The arrays are read-only (shared by those steps)."""
        st = self.st
        key = None
        if self.options.exec_memo:
            counts = st.sgpr_written.counts
            waves = (sel.start, sel.stop) if isinstance(sel, slice) else sel.tobytes()
            key = (waves, int(counts[EXEC_LO]), int(counts[EXEC_LO + 1]))
            known = self._exec_memo.get(key)
            if known is not None:
                return known
        exec_mask = st.exec_mask(sel)
        full = exec_mask.min() == self.full        # no mask exceeds the full one
        active = None if full else unpack_mask(exec_mask, st.lanes)
        lane_ops = len(exec_mask) * st.lanes if full else int(np.count_nonzero(active))
        if key is not None:
            exec_mask.flags.writeable = False
            if active is not None:
                active.flags.writeable = False
            if len(self._exec_memo) > 64:
                self._exec_memo.clear()
            self._exec_memo[key] = (exec_mask, lane_ops, active)
        return exec_mask, lane_ops, active

    def event(self, p: Prepared, sel, idx, control: str) -> None:
        """Machine events of hand-written control instructions (emu/handwritten.py)."""
        st, simm16 = self.st, p.inst.fields.get("SIMM16", 0)
        if control == "end":
            st.run[sel] = ENDED
            self.release(idx)
            return
        if control == "trap" or (control == "halt" and simm16 & 1):
            where = f"work-group {self.group_xyz(int(self.wave_group[idx[0]]))}"
            raise EmuError(f"{self.d.kernel}: PC 0x{p.pc:x}: {self.m.text(p.inst)} in {where}: the kernel "
                           f"{'trapped' if control == 'trap' else 'halted its wave'} (a trap or abort it executes "
                           f"on purpose, e.g. an assertion)")
        if control not in _NO_EFFECT and control not in ("barrier", "halt"):
            raise UnsupportedInstruction(f"{self.d.kernel}: PC 0x{p.pc:x}: {p.mnemonic} ({control}): "
                                         f"the machine does not model this event")
        st.pc[sel] += p.inst.size
        if control == "barrier":
            st.run[sel] = AT_BARRIER
            self.release(idx)

    def execute(self, p: Prepared, sel, idx, exec_mask, active, direct: bool = False):
        st = self.st
        inputs = _Inputs()
        inputs.lazy, inputs.st, inputs.sel = p.lazy, st, sel
        for k, f in p.inputs.items():
            inputs[k] = f(st, sel) if callable(f) else f
        dest = self.destinations(p, sel) if direct and active is None and isinstance(sel, slice) else None
        write_active = active
        if p.dpp is not None:
            full_active = active if active is not None else np.ones((len(idx), st.lanes), bool)
            inputs["S0"], write_active = p.dpp.permute(inputs["S0"], full_active)
        mem = self.memory(p.memory, sel)
        if p.buffer is not None:        # MUBUF/MTBUF: addresses and range limits from the V# (emu/buffer.py)
            try:
                extra, limit, first_byte = p.buffer(st, sel, np.arange(st.lanes)[None, :])
            except SemanticsError as e:
                raise EmuError(f"{self.d.kernel}: PC 0x{p.pc:x}: {p.mnemonic}: {e}") from None
            inputs.update(extra)
            from .buffer import BufferMemory    # (imported with the first buffer access: most kernels have none)
            mem = BufferMemory(mem, limit, first_byte)
        # the register files only for semantics that may index them (most never do)
        files = _register_files(p.sem)
        ctx = Ctx(lanes=st.lanes, exec_mask=exec_mask, inputs=inputs, scalar=p.scalar,
                  mode=st.mode[sel] if st.mode_uniform is None else st.mode_uniform,
                  status=st.status[sel], mem=mem,
                  vgpr=_Vgprs(st, sel) if p.cross_lane else None, sgpr=_Sgprs(st, sel) if files else None,
                  hwreg=_Hwregs(st, sel) if files else None, dest=dict(dest) if dest else None)
        if active is not None and self.options.shared_active_lanes:
            # the batch's active lanes as exec_state unpacked them (read-only, the same bits
            # Ctx.active would compute from exec_mask again on first use)
            ctx.__dict__["active"] = active
        undo = UndoLog().begin() if p.memory is not None and p.sem.memory in _STORES else None
        try:
            if p.lane_flags is not None:        # the permlane16 family's FI / BOUND_CTRL (machine_permlane.py)
                from .machine_permlane import fetch_rule
                rule = fetch_rule(p.lane_flags, ctx, p.sem, exec_mask, st.lanes)
                out = p.sem.execute(ctx)
                if rule is not None:
                    rule()
                return out, write_active, dest
            return p.sem.execute(ctx), write_active, dest
        except (MemoryFault, SemanticsError) as e:
            raise self.undone(p, idx, e, undo) from None
        except Exception as e:      # a defect in a semantic: report where, keep the cause chained
            if undo is not None:
                undo.revert()
            raise self.failure(p, e, "its semantics failed") from e
        finally:
            if undo is not None:
                undo.end()

    def undone(self, p: Prepared, idx, e: Exception, undo: UndoLog | None) -> Exception:
        """What a MemoryFault or SemanticsError out of p's semantic on the waves idx becomes,
        once the memory its stores changed is put back (undo): in a batch of several waves a
        _BatchError, on which the machine runs the batch again one wave at a time (refused), so
        the waves before the first failing one complete the instruction and that wave's error
        is reported, as reference mode's one call per wave has it; for one wave, the EmuFault
        or EmuError naming it."""
        if undo is not None:
            undo.revert()
        if len(idx) > 1:
            return _BatchError()
        if isinstance(e, MemoryFault):
            return self.fault(p, idx, e)
        return EmuError(f"{self.d.kernel}: PC 0x{p.pc:x}: {p.mnemonic}: {e}")

    def failure(self, p: Prepared, e: Exception, what: str = "the machine failed") -> EmuError:
        """Any exception out of an instruction's execution as an EmuError naming kernel, PC
        and instruction (the cause stays chained for a traceback)."""
        return EmuError(f"{self.d.kernel}: PC 0x{p.pc:x}: `{self.m.text(p.inst)}`: {what} ({type(e).__name__}: {e})")

    def destinations(self, p: Prepared, sel) -> dict | None:
        """{output: its register slab} a semantic may compute straight into (Ctx.dest): a whole
        32-bit VGPR D0 of a batch of contiguous waves with every lane on (the caller checks),
        with no DPP, integer clamp or register-file access in the way. The translator uses it
        only from a semantic's last statement (emu/pcode/translate.py keep_direct), so that
        sources that are the destination register itself are read before it is written."""
        reg = self.direct_register(p)
        if reg is None:
            return None
        self.st.vgpr_written[reg] = True
        return {"D0": self.st.vgpr[reg, sel]}

    def direct_register(self, p: Prepared) -> int | None:
        """The VGPR `destinations` offers for p's D0, or None."""
        reg = self._direct.get(id(p), _UNKNOWN)
        if reg is _UNKNOWN:
            reg = getattr(p.writers.get("D0"), "register", None)
            if p.cross_lane or p.dpp is not None or p.buffer is not None \
                    or "D0" not in p.sem.writes or not self.options.direct_writes:
                reg = None
            self._direct[id(p)] = reg
        return reg

    # ------------------------------------------------------------------ reports
    def wave_at(self, position: int) -> int:
        """The chunk-local index of the wave at a position of the state (compact moves them)."""
        return position if self.order is None else int(self.order[position])

    def wave_name(self, wave: int) -> str:
        """'wave 3 (wave 1 of work-group (2, 0, 0))' for a chunk-local wave index."""
        group = int(self.wave_group[wave])
        return (f"wave {self.first * self.per_group + wave} (wave {wave - group * self.per_group} of work-group "
                f"{self.group_xyz(group)})")

    def group_xyz(self, local_group: int) -> tuple[int, int, int]:
        g = self.first + local_group
        gx, gy, _ = self.d.grid
        return (g % gx, (g // gx) % gy, g // (gx * gy))

    def fault(self, p: Prepared, idx, e: MemoryFault) -> EmuFault:
        wave = self.wave_at(int(idx[e.position[0]]) if e.position else int(idx[0]))
        lane = int(e.position[1]) if len(e.position) > 1 else None
        group = int(self.wave_group[wave])
        wave_in_group = wave - group * self.per_group
        where = f"work-group {self.group_xyz(group)}, wave {wave_in_group}"
        if lane is not None:
            local = wave_in_group * self.d.wave_size + lane
            bx, by, _ = self.d.block
            where += f", lane {lane} (work-item {(local % bx, (local // bx) % by, local // (bx * by))})"
        return EmuFault(f"{self.d.kernel}: memory fault at PC 0x{p.pc:x} `{self.m.text(p.inst)}`, {where}: "
                        f"{e.space} address 0x{e.address:x} ({e.nbytes} bytes): {e.detail}")

    def release(self, idx) -> None:
        """Let the waves of every work-group whose live waves all wait at the barrier go on."""
        if not (self.st.run == AT_BARRIER).any():       # nobody waits (one pass, not per group)
            return
        states = self.st.run.reshape(self.groups, self.per_group)       # a view: writes land in st.run
        release = (states == AT_BARRIER).any(1) & ~(states == RUNNING).any(1)
        if release.any():
            block = states[release]
            block[block == AT_BARRIER] = RUNNING
            states[release] = block

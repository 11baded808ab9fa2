"""The semantics contract: what one instruction's semantic function receives and returns.

A `Semantic` is the meaning of one instruction, independent of encoding, registers and
memory layout: it reads operand *values* (raw bits) from a `Ctx` and returns the values it
writes. The machine (wave state, operand fetch, writeback, memory, branches) builds the
`Ctx` for a batch of waves sitting at the same instruction and applies the returned writes.
See emu/README.md, "Semantics contract", for the full rules; this module is their code form.

Shapes: every per-lane value is a numpy array of shape (W, L) (W waves of the batch, L = 32
or 64 lanes); every per-wave value has shape (W, 1) so it broadcasts against (W, L).
Scalar instructions (SOP*, SMEM, branches) use W x 1 for everything.
Dtypes (raw bits): uint32 for operands of <= 32 bits (16-bit values in bits 15:0),
uint64 for 64-bit operands, uint32 with a trailing dword axis (W, L, n) for wider ones
(n = bits / 32, dword 0 = bits 31:0). Lane-bit writes (VCC.u64[laneId] = ...) are bool (W, L).
"""
from __future__ import annotations

import contextvars
from dataclasses import field
from functools import cached_property, lru_cache
from typing import Callable, Protocol

import numpy as np

from isa.records import dataclass

from .options import current
from .rounding import MODES as _ROUND_MODES, ROUND_FIELD_LO as _ROUND_FIELD_LO, ROUNDING, NotModelled


class SemanticsError(Exception):
    """An instruction cannot be executed by its semantics (unsupported construct, bad operand).
    The message names the instruction; the machine adds PC and wave."""


class RefusedBeforeAccess(SemanticsError):
    """A memory instruction refused before touching memory (e.g. a misaligned atomic). The
    machine treats it as any refusal: what the instruction stored is put back (memory.UndoLog)
    and a batch of waves runs again wave by wave."""


class Memory(Protocol):
    """Byte-addressed memory the machine hands to memory instructions (global/flat/scratch
    memory for FLAT/GLOBAL/SCRATCH/MUBUF/SMEM, the workgroup's LDS for DS).

    `addr` is a uint64 array of any shape, `mask` a bool array broadcastable to it: lanes
    with mask False are neither read nor written (and may hold garbage addresses).
    Accesses are little-endian. Faults (address outside any allocation) are the memory's
    to report, as an exception naming the address and the lanes."""

    def load(self, addr: np.ndarray, nbytes: int, mask: np.ndarray) -> np.ndarray:
        """nbytes in (1, 2, 4, 8): zero-extended values, uint32 (nbytes <= 4) or uint64,
        shaped like addr; masked-off lanes read as 0."""

    def store(self, addr: np.ndarray, nbytes: int, value: np.ndarray, mask: np.ndarray) -> None:
        """Write the low nbytes of each value. Within one call addresses of active lanes
        may repeat; the highest lane (last in C order) wins, as in hardware lane order."""


class RegFile(Protocol):
    """Direct register access for the few instructions whose pseudocode indexes a register
    file (VGPR[lane][reg] in readlane/writelane/permlane, SGPR[addr] in movrel,
    HW_REGISTERS[id] in getreg/setreg). Indices are ints or integer arrays broadcastable
    against the batch; the wave index is implicit (axis 0 of the batch).
    For VGPRs: read(reg, lane) / write(reg, lane, value, mask); for SGPRs and hardware
    registers `lane` is None. Values are uint32."""

    def read(self, reg, lane=None) -> np.ndarray: ...

    def write(self, reg, lane, value: np.ndarray, mask: np.ndarray | None = None) -> None: ...


@dataclass(frozen=True)
class Operand:
    """How a semantic uses one named operand."""
    name: str        # 'S0', 'D0', 'SCC', 'VCC', 'EXEC', 'M0', 'PC', 'ADDR', 'DATA', 'VDATA', ...
    bits: int        # width read or written (32, 64, 96, 128, ... ; 1 for SCC and lane bits)
    type: str        # the pseudocode's type for it: 'u32', 'f16', 'b64', 'i32', ...
    lane_bit: bool = False   # used as X.u64[laneId]: one bit per lane of a per-wave mask
    bits_wave64: int = 0     # width in a wave64 when it differs (WMMA C/D: 256 bits in wave32, 128 in wave64)

    def width(self, lanes: int) -> int:
        """Bits of this operand's register block in a wave of `lanes` lanes."""
        return self.bits_wave64 if lanes == 64 and self.bits_wave64 else self.bits


@dataclass(frozen=True)
class Semantic:
    """One instruction's semantics plus what the machine needs to know to run it."""
    name: str                      # AMD's name, 'V_ADD_CO_U32'
    fn: Callable[["Ctx"], dict]    # the implementation; call through execute()
    origin: str                    # 'generated' (from the PDF pseudocode) or 'hand-written'
    reads: dict[str, Operand] = field(default_factory=dict)
    writes: dict[str, Operand] = field(default_factory=dict)
    scalar: bool = False           # runs once per wave: all arrays are (W, 1)
    cross_lane: bool = False       # reads/writes other lanes (uses ctx.vgpr, or whole-wave loops)
    branch: bool = False           # writes PC (returned for every wave, taken or not)
    memory: str | None = None      # 'load', 'store', 'atomic' (reads and writes MEM) or None
    control: str | None = None     # hand-written machine events: 'end', 'barrier', 'wait', 'nop', ...
    source: str = ""               # the pseudocode (generated) or a one-line description
    all_lanes: bool = False        # writes every lane whatever EXEC holds (MFMA: manual "Execution Mask")
    flushes_denorms: bool = True   # MODE.FP_DENORM applies to its float operands (isa.float_modes)
    rounds: bool = True            # MODE.FP_ROUND applies to its float results (isa.float_modes)
    bit_results: tuple = ()        # widths of float results the code writes as bits of a wider
    #                                register (isa.float_modes' bit_results: D0 = { 16'0, tmp.f16 })
    rounds_packed: tuple = ()      # widths its code rounds besides its results (v_pk_*, v_dot*, mix: register
    #                                halves or a source array, emu/facts.rounds_packed; VINTERP's f32 fma before
    #                                its f16 result), each by its MODE.FP_ROUND field
    directed: bool = False         # every rounding its code does honours a directed MODE.FP_ROUND
    #                                (emu/rounding.py: directed_code of the generated source)
    register_files: bool = True    # may index SGPR[...] / HW_REGISTERS[...] by a value (ctx.sgpr, ctx.hwreg):
    #                                generated ones whose pseudocode does (isa.facts.register_files)

    @property
    def reads_d0(self) -> bool:
        """D0 (or VDATA/RETURN_DATA) must be supplied with its old value: the pseudocode reads
        it or writes only some of its bits (D16 loads, v_swap, accumulate ops)."""
        return any(n in self.reads for n in ("D0", "VDATA", "RETURN_DATA", "SDATA"))

    @cached_property
    def float_operands(self) -> tuple[tuple[str, int], ...]:
        """(name, width) of the scalar float operands MODE.FP_DENORM applies to (reads and
        writes): those the pseudocode types f16/f32/f64 at their own width. Bit-moving
        instructions (mov, cndmask, permutes) type theirs b/u and are never flushed;
        memory atomics follow their own rules (manual ch. 13); packed, matrix and class-test
        instructions are left alone as `flushes_denorms` (from isa.float_modes) says."""
        if self.memory or not self.flushes_denorms:
            return ()
        # a source typed as a float narrower than its register (CDNA's legacy f16 D0.f16, the
        # low half of a 32-bit D0) is flushed at its type's width, its other bits kept; a wider
        # operand of float elements (an MFMA's C matrix, 128 bits of f32) is not one float
        reads = [(o.name, _float_bits(o)) for o in self.reads.values() if 0 < _float_bits(o) <= o.bits <= 64]
        return tuple(reads + [(o.name, o.bits) for o in self.writes.values() if _float_bits(o) == o.bits])

    @cached_property
    def rounded_widths(self) -> tuple[int, ...]:
        """Widths of the float results this instruction rounds (MODE.FP_ROUND applies): results
        the pseudocode types f16/f32/f64, unless the operation is exact (min/max, floor, moves,
        compares) or rounds by its own rule: `rounds`, from isa.float_modes; and the floats it
        writes as bits of a wider register (`bit_results`: CDNA's legacy f16, D0 = { 16'0, tmp.f16 })."""
        if self.memory or not self.rounds:
            return ()
        return tuple(sorted({o.bits for o in self.writes.values()
                             if o.type in ("f16", "f32", "f64") and int(o.type[1:]) == o.bits} | set(self.bit_results)))

    @cached_property
    def round_widths(self) -> tuple[int, ...]:
        """The result widths whose MODE.FP_ROUND field this instruction must honour: rounded_widths
        and the widths its packed code rounds."""
        if self.memory or not (self.rounded_widths or self.rounds_packed):
            return ()
        return tuple(sorted(set(self.rounded_widths) | set(self.rounds_packed)))

    def execute(self, ctx: "Ctx") -> dict[str, np.ndarray]:
        """Run on a batch. Returns {operand name: new value}, each broadcast to the batch
        shape ((W, L) or (W, 1), plus the dword axis for wide values) in the contract's
        dtype. Writes are NOT EXEC-masked: applying EXEC to the writeback is the machine's
        job (memory accesses and pseudocode-level VGPR writes are masked here).
        Denormal float inputs and results are flushed to signed zero as MODE.FP_DENORM says."""
        mode = ctx.mode
        directed = bool(self.round_widths) and _check_round_mode(self.name, mode, self.round_widths, self.directed)
        flush = None
        if self.float_operands:
            if type(mode) is int:       # one MODE for the batch: looked up per semantic
                flush = self._flush_by_mode.get(mode, _UNKNOWN)
                if flush is _UNKNOWN:
                    flush = self._flush_by_mode[mode] = _denorm_flush(mode, self.float_operands)
            else:
                flush = _denorm_flush(mode, self.float_operands)
        if flush:
            changed = {}
            for name, bits in self.float_operands:
                if name in self.reads and flush[bits][0] is not None and _float_bits(self.reads[name]) == bits \
                        and _supplied(ctx, name):
                    value = ctx.inputs[name]
                    flushed = _flush(value, bits, flush[bits][0])
                    if flushed is not value:
                        changed[name] = flushed
            if changed:         # usually no input holds a denormal: the batch's Ctx stays as it is
                ctx = ctx.with_inputs(changed)
        if directed:                    # a directed MODE.FP_ROUND: the modelled operations read it
            out = self._run_directed(ctx, mode)
        elif NUMPY_QUIET.get():           # the caller (the machine's run) already ignores them
            out = self.fn(ctx)
        else:
            with np.errstate(all="ignore"):   # inactive lanes compute on garbage; IEEE results are wanted
                out = self.fn(ctx)
        if flush:
            for name, bits in self.float_operands:
                if name in self.writes and name in out and flush[bits][1] is not None \
                        and self.writes[name].bits == bits == _float_bits(self.writes[name]):
                    out[name] = _flush(out[name], bits, flush[bits][1])
        return self.fitted(ctx, out)

    def _run_directed(self, ctx: "Ctx", mode) -> dict:
        token = ROUNDING.set(mode)
        try:
            with np.errstate(all="ignore"):
                return self.fn(ctx)
        except NotModelled as e:
            raise SemanticsError(f"{self.name}: {e}") from None
        finally:
            ROUNDING.reset(token)

    def fitted(self, ctx: "Ctx", out: dict) -> dict[str, np.ndarray]:
        """The function's results in the contract's dtypes, broadcast to the batch shape."""
        shape, kinds = ctx.shape, self.result_dtypes
        fitted = {}
        for name, value in out.items():
            # a result already in its contract dtype and the batch shape passes as it is
            if type(value) is np.ndarray and value.shape == shape and value.dtype == kinds.get(name):
                fitted[name] = value
            else:
                fitted[name] = _fit(ctx, self.writes.get(name), value)
        return fitted

    def passes_through(self, mode: int) -> bool:
        """Whether execute(ctx) with this one MODE for the batch (an int) does nothing but call
        fn and fit its results: no rounding mode to check, no operand or result to flush
        (EmuOptions.lean_semantics; the common MODE answers once per semantic)."""
        known = self.passes_by_mode.get(mode)
        if known is None:
            known = self.passes_by_mode[mode] = (not self.round_widths
                                                 or not mode & 0xF) and \
                (not self.float_operands or _denorm_flush(mode, self.float_operands) is None)
        return known

    @cached_property
    def passes_by_mode(self) -> dict:
        """{MODE: passes_through(MODE)} as answered so far."""
        return {}

    @cached_property
    def _flush_by_mode(self) -> dict:
        return {}

    @cached_property
    def result_dtypes(self) -> dict:
        """{output: the dtype _fit gives a result of the batch shape} (lane bits: bool, which
        _fit passes through at the batch shape; wide operands keep going through _fit)."""
        return {name: np.dtype(bool if op.lane_bit else np.uint64 if op.bits > 32 else np.uint32)
                for name, op in self.writes.items() if op.lane_bit or op.bits <= 64}


_UNKNOWN = object()


def _float_bits(o: Operand) -> int:
    """The width of the float an operand is typed as (f16/f32/f64), else 0."""
    return int(o.type[1:]) if o.type in ("f16", "f32", "f64") else 0

def _check_round_mode(name: str, mode, widths, directed: bool) -> bool:
    """Whether a wave's MODE asks a directed rounding (MODE.FP_ROUND: [1:0] f32, [3:2] f64 and
    f16) of these results; an instruction whose code does not round only through the operations
    emu/rounding.py models (`directed` False) is then refused rather than given
    round-to-nearest results silently."""
    if isinstance(mode, int) and not mode & 0xF:       # one MODE for the batch (the usual case)
        return False
    m = np.asarray(mode, np.uint32)
    if not (m & np.uint32(0xF)).any():
        return False
    for bits in widths:
        field = (m >> np.uint32(_ROUND_FIELD_LO[bits])) & np.uint32(3)
        if field.any():
            if directed:
                return True
            raise SemanticsError(f"{name}: MODE.FP_ROUND asks to round {bits}-bit results "
                                 f"{_ROUND_MODES[int(field.max())]}; the emulator models directed rounding only "
                                 f"in add, sub, mul, fma, ldexp, conversions to a narrower float and what the "
                                 f"pseudocode builds of them, not in the hardware's approximations (sqrt, "
                                 f"rcp, rsq, exp, log, sin, cos: not correctly rounded) (s_round_mode / "
                                 f"s_setreg of MODE[3:0] or the descriptor's float_round_mode)")
    return False


# MODE.FP_DENORM (MODE[7:4], RDNA3 manual "Denormalized and Rounding Modes"): [5:4] for f32,
# [7:6] for f64 and f16; in each 2-bit field bit 0 allows input denormals, bit 1 allows
# output denormals (a clear bit flushes).
_DENORM_FIELD_LO = {32: 4, 16: 6, 64: 6}
_EXP_MANT = {16: (0x7C00, 0x3FF), 32: (0x7F800000, 0x7FFFFF), 64: (0x7FF << 52, (1 << 52) - 1)}


# True while a caller runs many semantics under np.errstate(all="ignore") itself (the
# machine's run): each then skips entering its own, ~2 us a call. A context variable, as
# numpy's error state is: per thread and task.
NUMPY_QUIET = contextvars.ContextVar("emu_numpy_quiet", default=False)


def _denorm_flush(mode, operands) -> dict | None:
    """{width: (flush inputs, flush outputs)} for the widths used, each a bool per wave
    ((W, 1) array or a plain bool) or None when no wave flushes; None overall when every
    wave keeps all denormals (the common case costs one comparison per width). A MODE
    shared by the batch (an int) is looked up in a cache."""
    if isinstance(mode, int):
        return _denorm_flush_uniform(mode, operands)
    out, any_flush = {}, False
    for _, bits in operands:
        if bits in out:
            continue
        field = (np.asarray(mode, np.uint32) >> np.uint32(_DENORM_FIELD_LO[bits])) & np.uint32(3)
        if np.all(field == 3):
            out[bits] = (None, None)
            continue
        flush_in, flush_out = (field & 1) == 0, (field & 2) == 0
        out[bits] = (flush_in if np.any(flush_in) else None, flush_out if np.any(flush_out) else None)
        any_flush = True
    return out if any_flush else None


@lru_cache(maxsize=256)
def _denorm_flush_uniform(mode: int, operands) -> dict | None:
    flush = _denorm_flush(np.uint32(mode), operands)
    # plain bools: the flush masks (`& waves`) then cost nothing per wave
    return None if flush is None else {bits: tuple(None if f is None else bool(f) for f in pair)
                                       for bits, pair in flush.items()}


def _supplied(ctx: "Ctx", name: str) -> bool:
    try:
        ctx.inputs[name]
        return True
    except KeyError:
        return False


def _flush(value, bits: int, waves) -> np.ndarray:
    """Raw float bits with denormals (exponent 0, mantissa non-zero) replaced by zero of the
    same sign, in the waves `waves` selects. Bits above a 16-bit value are kept. Denormals
    are rare, so one pass first asks whether any lane holds one; only then are lanes rewritten."""
    exp, mant = _EXP_MANT[bits]
    v = np.asarray(value)
    if v.dtype.kind == "f":          # a float result: flush its encoding
        v = v.view(f"u{v.dtype.itemsize}")
    dtype = v.dtype if v.dtype.kind == "u" else (np.uint64 if bits == 64 else np.uint32)
    v = v.astype(dtype, copy=False)
    # shifted left so the exponent and mantissa are the top bits (sign and bits above a
    # 16-bit value fall off): a denormal is then a non-zero value <= mantissa << shift,
    # i.e. `shifted - 1 < mantissa << shift` in wrapping unsigned arithmetic (zero wraps)
    shift = dtype.type(dtype.itemsize * 8 - bits + 1)
    if not current().denorm_checks:
        pass                # the plain way: every lane through the flush below
    elif v.size == 1:         # a uniform operand: one Python int, no array passes
        x = int(v.reshape(-1)[0]) & (exp | mant)
        if x == 0 or x & exp:
            return v
    elif dtype.itemsize * 8 == bits and _smallest_magnitude(v) > mant:
        return v            # no zero or denormal (the common case): two reductions, no temporary
    else:
        t = np.left_shift(v, shift)
        t -= dtype.type(1)
        if t.min() >= dtype.type(mant) << shift:
            return v
    exp, mant = dtype.type(exp), dtype.type(mant)
    denorm = ((v & exp) == 0) & ((v & mant) != 0) & waves
    return np.where(denorm, v & ~mant, v)


def _smallest_magnitude(v: np.ndarray) -> int:
    """The smallest |x| (as its bits, sign cleared) of the floats whose raw bits fill the
    unsigned array v: the unsigned minimum is the smallest positive value's bits (positives
    sort below negatives), the signed minimum the smallest negative one's (-2**(n-1) + |x|)."""
    top = 1 << (v.dtype.itemsize * 8 - 1)
    unsigned, signed = int(v.min()), int(v.view(f"i{v.dtype.itemsize}").min())
    return min(unsigned if unsigned < top else top, signed + top if signed < 0 else top)


def broadcast(value, shape: tuple) -> np.ndarray:
    """np.broadcast_to(value, shape) (a read-only view), without its general machinery when
    value already has that shape (the array itself, read as is) or holds one element (a view
    with zero strides: ~1 us instead of ~5 in a narrow step)."""
    value = np.asarray(value)
    if value.shape == shape:
        return value
    if value.size == 1 and value.flags.c_contiguous:
        out = np.ndarray(shape, value.dtype, value, 0, (0,) * len(shape))
        out.flags.writeable = False
        return out
    return np.broadcast_to(value, shape)


def _fit(ctx: "Ctx", op: Operand | None, value) -> np.ndarray:
    value = np.asarray(value)
    if op is not None and op.lane_bit:
        return broadcast(value.astype(bool, copy=False), ctx.shape)
    if op is not None and op.bits > 64:
        return np.broadcast_to(value.astype(np.uint32), ctx.shape + (op.bits // 32,))
    wide = op.bits > 32 if op is not None else value.dtype.itemsize == 8
    value = value.astype(np.uint64 if wide else np.uint32, copy=False)
    return broadcast(value, ctx.shape)      # a read-only view: no copy


@dataclass
class Ctx:
    """Everything a semantic function may read for one batch of waves.

    inputs: operand values by name (see emu/README.md for the list): S0 S1 S2 D0 (old value,
    only if Semantic.reads_d0), SCC, VCC, M0, PC, ADDR, ADDR_BASE, DATA, DATA2, VDATA,
    SIMM16, SIMM32, OFFSET, OFFSET0, OFFSET1, and register numbers (SRC0, VDST, DST, DATA0)
    for instructions that index a register file. Per-lane values are (W, L) arrays, per-wave
    values (W, 1) arrays, instruction-word fields plain Python ints.
    """
    lanes: int                            # wave size: 32 or 64
    exec_mask: np.ndarray                 # uint64 (W, 1): EXEC of each wave
    inputs: dict[str, object] = field(default_factory=dict)
    scalar: bool = False                  # per-wave instruction: batch shape is (W, 1)
    mode: np.ndarray | int = 0x3F0        # MODE per wave; default: RNE, denormals kept, DX10_CLAMP, IEEE
    status: np.ndarray | int = 0          # STATUS hardware register per wave
    mem: Memory | None = None             # MEM[...] / LDS(...) accesses
    vgpr: RegFile | None = None           # VGPR[lane][reg]
    sgpr: RegFile | None = None           # SGPR[reg]
    hwreg: RegFile | None = None          # HW_REGISTERS[id]
    # {output name: uint32 (W, L) array} the semantic may compute that whole 32-bit result
    # into (the machine's destination register when every lane is on and no input reads it;
    # see rtlib.take_dest). Each is taken at most once; a result returned as that very array
    # is already written back. None: no such place.
    dest: dict | None = None
    # every lane of the batch is on (the machine knows it from the EXEC it unpacked; None: not
    # known, ask exec_mask). Dropped by derive(), which may change exec_mask.
    all_on: bool | None = None
    # outputs the machine discards (a carry-out written to NULL): a semantic may leave them out.
    # Dropped by derive() (a called instruction's outputs are its caller's to use).
    unused: frozenset = frozenset()

    def __post_init__(self):
        # asked often: plain attributes, computed once per Ctx. shape: (W, L), or (W, 1) for
        # scalar instructions
        m = self.exec_mask
        self.waves: int = m.shape[0] if type(m) is np.ndarray else int(np.shape(m)[0])
        self.shape: tuple[int, int] = (self.waves, 1) if self.scalar else (self.waves, self.lanes)

    @classmethod
    def of_step(cls, lanes: int, exec_mask: np.ndarray, inputs: dict, scalar: bool, mode, status, mem,
                dest: dict | None, all_on: bool | None = None, unused: frozenset = frozenset()) -> "Ctx":
        """Ctx(lanes, exec_mask, inputs, scalar, mode, status, mem, dest=dest), the machine's
        Ctx of a step, without the dataclass's keyword machinery (one per instruction)."""
        ctx = object.__new__(cls)
        waves = exec_mask.shape[0] if type(exec_mask) is np.ndarray else int(np.shape(exec_mask)[0])
        # one dict literal as the instance's dict: cheaper than update() with keywords
        ctx.__dict__ = {"lanes": lanes, "exec_mask": exec_mask, "inputs": inputs, "scalar": scalar, "mode": mode,
                        "status": status, "mem": mem, "vgpr": None, "sgpr": None, "hwreg": None, "dest": dest,
                        "waves": waves, "shape": (waves, 1) if scalar else (waves, lanes), "all_on": all_on,
                        "unused": unused}
        return ctx

    @property
    def lane_id(self) -> np.ndarray:
        """uint32 (1, L): laneId of every lane (0 for scalar instructions)."""
        return np.zeros((1, 1), np.uint32) if self.scalar else np.arange(self.lanes, dtype=np.uint32)[None, :]

    @cached_property
    def active(self) -> np.ndarray:
        """bool (W, L): the lanes EXEC enables ((W, 1) all True for scalar instructions).
        Computed once per batch (the semantics ask for it per memory access and per lane
        write); read-only, and a broadcast of one True when every lane is on."""
        if self.scalar:
            return np.ones((self.waves, 1), bool)
        exec_mask = np.asarray(self.exec_mask, np.uint64)
        if (exec_mask == np.uint64((1 << self.lanes) - 1)).all():
            return broadcast(np.True_, self.shape)
        bits = (np.asarray(self.exec_mask, np.uint64) >> self.lane_id.astype(np.uint64)) & np.uint64(1)
        return bits.astype(bool)

    def with_inputs(self, changes: dict, **fields) -> "Ctx":
        """This batch with some inputs replaced; the others (including inputs the machine
        supplies lazily on first use) still come from this Ctx. `fields`: other fields
        replaced too (dest=None), but not the ones the batch's shape derives from."""
        return self.derive(inputs=_Overlay(self.inputs, changes), **fields)

    def derive(self, **changes) -> "Ctx":
        """dataclasses.replace(self, **changes) without its per-field machinery (~10 us, paid
        by every call of another instruction): a copy of the fields with `changes`, the
        batch's shape computed again and the active lanes left to be unpacked again."""
        new = object.__new__(Ctx)
        state = new.__dict__
        state.update(self.__dict__)
        state.pop("active", None)
        state.pop("all_on", None)
        state.pop("unused", None)       # another instruction's outputs (call_instruction): all wanted
        state.update(changes)
        new.__post_init__()
        return new

    def get(self, name: str, instruction: str = "?"):
        try:
            return self.inputs[name]
        except KeyError:
            raise SemanticsError(f"{instruction}: operand {name} was not supplied "
                                 f"(supplied: {', '.join(sorted(self.inputs)) or 'none'})") from None


class _Overlay(dict):
    """Inputs with replacements on top of a base mapping (looked up only when missing)."""

    def __init__(self, base, changes: dict):
        super().__init__(changes)
        self.base = base

    def __missing__(self, name):
        return self.base[name]

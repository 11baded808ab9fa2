"""The WAVESMITH device for tinygrad 0.14.0 (registered by frontend/tinygrad/__init__.py as
`tinygrad.runtime.ops_wavesmith`): renderer (UOps -> IR text), compiler (IR text -> HSA code
object through frontend/), allocator and program on wavesmith's Device("emu").

`DEV=WAVESMITH` targets gfx1100; `DEV=WAVESMITH::gfx1151` picks another RDNA3/3.5 target."""
from __future__ import annotations

import collections
import re
import time

import numpy as np
from tinygrad.device import Allocator, Compiled, CompileError, Compiler, Program
from tinygrad.dtype import dtypes
from tinygrad.renderer import Renderer
from tinygrad.codegen.decomp.transcendental import xexp2, xlog2, xsin
from tinygrad.uop.ops import Ops, PatternMatcher, UPat

from isa.records import dataclass

from ..compile import compile_program
from ..ir import IRError, parse
from .importer import to_ir

DEFAULT_ARCH = "gfx1100"

# ALU ops the frontend selects natively (tinygrad rewrites the others into these):
# FDIV is left to tinygrad (a * RECIPROCAL(b)); THREEFRY, POW, FLOORDIV, FLOORMOD too.
NATIVE_OPS = (Ops.ADD, Ops.SUB, Ops.MUL, Ops.CDIV, Ops.CMOD, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ, Ops.XOR,
              Ops.OR, Ops.AND, Ops.SHL, Ops.SHR, Ops.WHERE, Ops.MULACC, Ops.EXP2, Ops.LOG2, Ops.SIN, Ops.SQRT,
              Ops.RECIPROCAL, Ops.NEG, Ops.TRUNC)
# dtypes the frontend selects natively; tinygrad emulates 64-bit ints with 32-bit pairs
NATIVE_DTYPES = {dtypes.bool, dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.uint32,
                 dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}


class WavesmithCompiler(Compiler):
    """IR text -> HSA code object. Each instruction's comment names the UOp it came from
    (WavesmithRenderer writes it), so an error names the UOp as well as the IR instruction.
    Code objects are kept by source for the life of the process: tinygrad's own cache is
    keyed by kernel AST, and different ASTs often render to the same source."""

    def __init__(self, arch: str):
        super().__init__(None)
        self.arch = arch
        self.cache: dict[str, bytes] = {}

    def compile(self, src: str) -> bytes:
        if (lib := self.cache.get(src)) is None:
            lib = self.cache[src] = self._compile(src)
        return lib

    def _compile(self, src: str) -> bytes:
        notes: list[str] = []
        prog = None
        try:
            prog = parse(src, notes)
            return compile_program(prog, self.arch).hsaco
        except IRError as e:            # CompileError included: names the IR instruction
            index = getattr(e, "index", None)
            uop = f" [{note}]" if (note := _uop_note(prog, notes, index, str(e))) else ""
            raise CompileError(f"WAVESMITH: {e}{uop}") from None
        except ValueError as e:         # register allocation, encoding, code object: the project's errors
            raise CompileError(f"WAVESMITH: {type(e).__name__}: {e}") from None


def _uop_note(prog, notes: list[str], index, message: str) -> str:
    """The note naming the UOp of the instruction a compile error names. The loop and load
    passes may renumber instructions, so: the source's instruction at that index if the error
    quotes it, else the one UOp note shared by every source instruction with the quoted op and
    dtype, else nothing (never a guess)."""
    if prog is None or index is None:
        return ""
    if index < len(notes) and prog.where(index) in message:
        return notes[index]
    m = re.search(r"\(%\d+ = (\S+) (\w+)", message)
    if not m:
        return ""
    found = {notes[i] for i, ins in enumerate(prog.instrs)
             if i < len(notes) and ins.op == m.group(2) and str(ins.dtype) == m.group(1)}
    return found.pop() if len(found) == 1 else ""


# f64 exp2/log2/sin have no native instruction (v_exp/v_log/v_sin are f32 and f16 only):
# tinygrad's own f64 polynomial decompositions, which it applies when a backend lacks the op
F64_TRANSCENDENTALS = PatternMatcher([(UPat(op, dtype=dtypes.float64, src=(UPat.var("d"),)), f)
                                      for op, f in ((Ops.EXP2, xexp2), (Ops.LOG2, xlog2), (Ops.SIN, xsin))])


class WavesmithRenderer(Renderer):
    supports_float4 = True
    has_local = True
    has_shared = True
    shared_max = 65536                          # LDS bytes per work-group (RDNA3 ISA 11.1)
    global_max = (2**31 - 1, 65535, 65535)      # work-groups per dimension
    local_max = (1024, 1024, 1024)              # work-items per group (1024 in total)
    code_for_op = {op: None for op in NATIVE_OPS}
    extra_matcher = F64_TRANSCENDENTALS

    def __init__(self, target):
        super().__init__(target)
        self.arch = target.arch or DEFAULT_ARCH
        self.compiler = WavesmithCompiler(self.arch)

    def render(self, uops) -> str:
        origins: list[str] = []
        try:
            return to_ir(uops, origins).text(origins)
        except IRError as e:
            raise CompileError(f"WAVESMITH: {e}") from None

    def supported_dtypes(self):
        return set(NATIVE_DTYPES)


class EmuBuffer:
    """A tinygrad buffer: an address range in the emulator's memory (views share `root`)."""

    def __init__(self, address: int, nbytes: int, root=None):
        self.address, self.nbytes, self.root = address, nbytes, root


class WavesmithAllocator(Allocator["WavesmithDevice"]):
    def _alloc(self, size: int, options):
        return EmuBuffer(self.dev.emu.memory.alloc(max(int(size), 4), "tinygrad"), int(size))

    def _free(self, opaque, options):
        if opaque.root is None:
            self.dev.emu.memory.free(opaque.address)

    def _copyin(self, dest: EmuBuffer, src: memoryview):
        self.dev.emu.memory.write(dest.address, bytes(src))

    def _copyout(self, dest: memoryview, src: EmuBuffer):
        dest[:] = self.dev.emu.memory.read(src.address, src.nbytes)[:len(dest)]

    def _offset(self, buf: EmuBuffer, size: int, offset: int):
        return EmuBuffer(buf.address + offset, size, buf.root or buf)


@dataclass
class Launch:
    """One kernel launch on the emulator: what ran, how, and the emulator's statistics."""
    name: str
    grid: tuple
    block: tuple
    seconds: float
    stats: object            # emu.machine.Stats
    lib: bytes               # the code object that ran


class WavesmithProgram(Program["WavesmithDevice"]):
    def __init__(self, dev: "WavesmithDevice", obj):
        self.dev, self.name = dev, obj.name
        self.lib = obj.lib
        self.prg = dev.emu.load(obj.lib)
        self.kernel = self.prg.kernels[0]

    def __call__(self, *bufs, global_size=(1, 1, 1), local_size=(1, 1, 1), vals=(), wait=False, **kw):
        args = [b.address for b in bufs] + [np.int32(v) for v in vals]
        st = time.perf_counter()
        self.dev.emu_stats = self.prg.launch(self.kernel, grid=tuple(global_size), block=tuple(local_size), args=args)
        seconds = time.perf_counter() - st
        self.dev.launches.append(Launch(self.name, tuple(global_size), tuple(local_size), seconds, self.dev.emu_stats,
                                       self.lib))
        return seconds if wait else None


class WavesmithDevice(Compiled):
    def __init__(self, device: str):
        from runtime import Device
        from tinygrad.helpers import DEV
        arch = DEV.target("WAVESMITH").arch or DEFAULT_ARCH
        self.emu = Device("emu", arch=arch)
        self.emu_stats = None
        self.launches: collections.deque[Launch] = collections.deque(maxlen=1000)   # the latest launches
        super().__init__(device, WavesmithAllocator(self), [WavesmithRenderer], WavesmithProgram)

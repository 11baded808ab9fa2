"""tinygrad 0.14.0's linearized UOps -> the frontend's IR (frontend/ir.py).

What maps where:
  PARAM (global)      -> `buffer pN` (slot order)      PARAM (ALU)  -> `var`
  BUFFER REG / LOCAL  -> `reg` / `lds` arrays           AFTER        -> its first source
  CONST (weak)        -> folded into the CAST that types it, else a const of the default type
  SPECIAL gidxN/lidxN -> group_id / local_id N           RANGE / END  -> range / end
  INDEX(array, i)     -> a pointer (array, i); LOAD/STORE through it -> load / store
  SHRINK(array, i, n) -> a pointer to n consecutive elements (vector load/store)
  INDEX(value, c)     -> gep                             STACK        -> vec
  IF / ENDIF / BARRIER, ALU ops, CAST, BITCAST           -> the same-named IR ops
Anything else is a CompileError naming the UOp (op, dtype, argument)."""
from __future__ import annotations

import math
import re

from tinygrad.dtype import AddrSpace, dtypes
from tinygrad.uop.ops import Ops

from ..ir import Buffer, DType, Instr, Local, Program, Var
from ..isel import CompileError

DTYPES = {dtypes.bool: "bool", dtypes.int8: "i8", dtypes.uint8: "u8", dtypes.int16: "i16", dtypes.uint16: "u16",
          dtypes.int32: "i32", dtypes.uint32: "u32", dtypes.int64: "i64", dtypes.uint64: "u64",
          dtypes.float16: "f16", dtypes.bfloat16: "bf16", dtypes.float32: "f32", dtypes.float64: "f64"}
ALU = {Ops.ADD: "add", Ops.SUB: "sub", Ops.MUL: "mul", Ops.CDIV: "idiv", Ops.CMOD: "mod", Ops.MAX: "max",
       Ops.CMPLT: "cmplt", Ops.CMPNE: "cmpne", Ops.CMPEQ: "cmpeq", Ops.XOR: "xor", Ops.OR: "or", Ops.AND: "and",
       Ops.SHL: "shl", Ops.SHR: "shr", Ops.WHERE: "where", Ops.MULACC: "mulacc", Ops.EXP2: "exp2",
       Ops.LOG2: "log2", Ops.SIN: "sin", Ops.SQRT: "sqrt", Ops.RECIPROCAL: "recip", Ops.NEG: "neg",
       Ops.TRUNC: "trunc", Ops.FDIV: "fdiv", Ops.CAST: "cast", Ops.BITCAST: "bitcast"}
SKIP = {Ops.SINK, Ops.NOOP, Ops.GROUP}


def describe(u) -> str:
    return f"UOp {u.op.name} (dtype {u.dtype}, arg {u.arg!r})"


def origin(u) -> str:
    """A one-line note naming the UOp an IR instruction comes from (for the IR text's comments)."""
    arg = repr(u.arg)
    arg = f", arg {arg}" if u.arg is not None and len(arg) <= 40 else ""
    return re.sub(r"[\s#]+", " ", f"from UOp {u.op.name} ({u.dtype}{arg})")


def scalar_dtype(u, dt=None) -> str:
    dt = dt if dt is not None else u.dtype
    base = dt.base if hasattr(dt, "base") else dt
    base = base.scalar() if hasattr(base, "scalar") else base
    if base == dtypes.weakint:
        return "i32"
    if base == dtypes.weakfloat:
        return "f32"
    if base not in DTYPES:
        raise CompileError(f"{describe(u)}: dtype {dt} has no IR type")
    return DTYPES[base]


def count(u) -> int:
    shape = getattr(u, "_shape", None) or ()
    n = 1
    for s in shape:
        if not isinstance(s, int):
            raise CompileError(f"{describe(u)}: symbolic shape {shape}")
        n *= s
    return n


class _Importer:
    def __init__(self, uops, name: str):
        self.uops = uops
        self.name = name
        self.instrs: list[Instr] = []
        self.ids: dict = {}          # UOp -> IR value index
        self.weak: dict = {}         # UOp -> Python value of an untyped CONST
        self.arrays: dict = {}       # UOp (PARAM/BUFFER/AFTER) -> array name
        self.ptrs: dict = {}         # UOp (INDEX/SHRINK) -> (array name, index id, count, gate id)
        self.buffers, self.vars, self.locals = [], [], []
        self.ifs: dict = {}
        self.origins: list[str] = []  # per IR instruction: the UOp being imported when it was made
        self.current = None

    def add(self, ins: Instr, u=None) -> int:
        self.instrs.append(ins)
        self.origins.append(origin(self.current) if self.current is not None else "")
        if u is not None:
            self.ids[u] = len(self.instrs) - 1
        return len(self.instrs) - 1

    def value(self, u) -> int:
        if u in self.ids:
            return self.ids[u]
        if u in self.weak:
            d = scalar_dtype(u)
            return self.add(Instr("const", DType(d), (), _const(self.weak[u], d)), u)
        raise CompileError(f"{describe(u)} is used as a value but is not one")

    def run(self) -> Program:
        for u in self.uops:
            self.current = u
            try:
                self.one(u)
            except CompileError:
                raise
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
                raise CompileError(f"{self.name}: {describe(u)}: {type(e).__name__}: {e}") from None
        self.buffers.sort(key=lambda b: b[0])
        self.vars.sort(key=lambda v: v[0])
        return Program(self.name, tuple(b for _, b in self.buffers), tuple(v for _, v in self.vars),
                       tuple(self.locals), tuple(self.instrs))

    def one(self, u):
        op = u.op
        if op in SKIP:
            return
        if op == Ops.CONST:
            if u.dtype in (dtypes.weakint, dtypes.weakfloat) or str(u.dtype).startswith("dtypes.weak"):
                self.weak[u] = u.arg
            else:
                d = scalar_dtype(u)
                self.add(Instr("const", DType(d), (), _const(u.arg, d)), u)
            return
        if op == Ops.CAST and u.src[0] in self.weak:
            d = scalar_dtype(u)
            self.add(Instr("const", DType(d), (), _const(self.weak[u.src[0]], d)), u)
            return
        if op == Ops.PARAM:
            if u.addrspace == AddrSpace.ALU:
                lo, hi = u.arg.vmin_vmax or (-2**31, 2**31 - 1)
                name = _ident(u.arg.name or f"v{u.arg.slot}")
                self.vars.append((u.arg.slot, Var(name, DType(scalar_dtype(u)), int(lo), int(hi))))
                self.add(Instr("param", DType(scalar_dtype(u)), (), name), u)
                return
            name = f"p{u.arg.slot}"
            self.buffers.append((u.arg.slot, Buffer(name, DType(scalar_dtype(u)), max(count(u), 1))))
            self.arrays[u] = name
            return
        if op == Ops.BUFFER:
            space = {AddrSpace.REG: "reg", AddrSpace.LOCAL: "lds"}.get(u.addrspace)
            if space is None:
                raise CompileError(f"{describe(u)}: a {u.addrspace} buffer inside a kernel")
            name = f"{'r' if space == 'reg' else 'l'}{len(self.locals)}"
            self.locals.append(Local(name, DType(scalar_dtype(u)), max(count(u), 1), space))
            self.arrays[u] = name
            return
        if op == Ops.AFTER:
            src = u.src[0]
            if src in self.arrays:
                self.arrays[u] = self.arrays[src]
            elif src in self.ptrs:
                self.ptrs[u] = self.ptrs[src]
            else:
                self.ids[u] = self.value(src)
            return
        if op in (Ops.INDEX, Ops.SHRINK):
            base = u.src[0]
            if base in self.arrays:
                idx = self.value(u.src[1])
                n = 1
                if op == Ops.SHRINK:
                    n = int(u.src[2].arg) if u.src[2] in self.weak or u.src[2].op == Ops.CONST else None
                    if n is None:
                        n = self.instrs[self.value(u.src[2])].arg
                gate = self.value(u.src[2]) if op == Ops.INDEX and len(u.src) > 2 else None
                self.ptrs[u] = (self.arrays[base], idx, int(n), gate)
                return
            if op == Ops.INDEX:              # an element of a vector value
                vec = self.value(base)
                c = u.src[1]
                k = self.weak.get(c, None)
                if k is None and self.instrs[self.value(c)].op == "const":
                    k = self.instrs[self.value(c)].arg
                if k is None:
                    raise CompileError(f"{self.name}: {describe(u)}: a vector indexed by a computed value")
                d = scalar_dtype(u)
                self.add(Instr("gep", DType(d), (vec,), int(k)), u)
                return
            raise CompileError(f"{self.name}: {describe(u)}: SHRINK of a value")
        if op == Ops.LOAD:
            arr, idx, n, gate = self._ptr(u, u.src[0])
            d = DType(scalar_dtype(u), n)
            srcs = (idx,)
            if len(u.src) >= 3:
                srcs = (idx, self.value(u.src[2]), self.value(u.src[1]))
            elif gate is not None:
                raise CompileError(f"{self.name}: {describe(u)}: a gated index without an alternative value")
            self.add(Instr("load", d, srcs, arr), u)
            return
        if op == Ops.STORE:
            arr, idx, n, gate = self._ptr(u, u.src[0])
            srcs = (idx, self.value(u.src[1])) + ((self.value(u.src[2]),) if len(u.src) > 2 else ())
            self.add(Instr("store", None, srcs, arr), u)
            return
        if op == Ops.STACK:
            if not u.src:
                return
            self.add(Instr("vec", DType(scalar_dtype(u), len(u.src)), tuple(self.value(s) for s in u.src)), u)
            return
        if op == Ops.SPECIAL:
            kind, axis = u.arg[0], int(u.arg[-1])
            size = self.weak.get(u.src[0]) if u.src else None
            if size is None and u.src and self.instrs[self.value(u.src[0])].op == "const":
                size = self.instrs[self.value(u.src[0])].arg
            self.add(Instr("group_id" if kind == "g" else "local_id", DType("i32"), (), (axis, int(size or 0))), u)
            return
        if op == Ops.RANGE:
            if u.dtype == dtypes.void:
                raise CompileError(f"{self.name}: {describe(u)}: a loop without a trip count")
            self.add(Instr("range", DType(scalar_dtype(u)), (self.value(u.src[0]),)), u)
            return
        if op == Ops.END:
            if len(u.src) != 2:
                raise CompileError(f"{self.name}: {describe(u)}: a conditional loop end")
            self.add(Instr("end", None, (self.ids[u.src[1]],)))
            return
        if op == Ops.IF:
            self.ifs[u] = self.add(Instr("if", None, (self.value(u.src[0]),)))
            return
        if op == Ops.ENDIF:
            self.add(Instr("endif", None, (self.ifs[u.src[0]],)))
            return
        if op == Ops.BARRIER:
            self.add(Instr("barrier"))
            return
        if op in ALU:
            if op in (Ops.CAST, Ops.BITCAST) and u.src[0] in self.arrays:
                raise CompileError(f"{self.name}: {describe(u)}: a cast of a buffer pointer")
            n = count(u)
            if n != 1:
                raise CompileError(f"{self.name}: {describe(u)}: vector ALU (shape {u._shape})")
            self.add(Instr(ALU[op], DType(scalar_dtype(u)), tuple(self.value(s) for s in u.src)), u)
            return
        raise CompileError(f"{self.name}: {describe(u)} is not supported by the WAVESMITH frontend")

    def _ptr(self, u, p):
        if p not in self.ptrs:
            raise CompileError(f"{self.name}: {describe(u)}: its address is {describe(p)}, not an INDEX of a buffer")
        return self.ptrs[p]


def _const(v, d: str):
    if d == "bool":
        return bool(v)
    if d.startswith("f") or d == "bf16":
        return float(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise CompileError(f"constant {v} for {d}")
        v = int(v)
    bits = int(re.sub(r"\D", "", d))
    v = int(v) & ((1 << bits) - 1)
    return v - (1 << bits) if d.startswith("i") and v >> (bits - 1) else v


def _ident(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def kernel_name(uops) -> str:
    sink = next((u for u in reversed(uops) if u.op == Ops.SINK), None)
    info = getattr(sink, "arg", None)
    name = getattr(info, "function_name", None) or getattr(info, "name", None) or "kernel"
    name = re.sub(r"\x1b\[[0-9;]*m", "", str(name))
    return _ident(name) or "kernel"


def to_ir(uops, origins: list | None = None) -> Program:
    """The IR Program of a linearized kernel; `origins`, if a list, receives per IR
    instruction a note naming the UOp it was made from."""
    imp = _Importer(list(uops), kernel_name(uops))
    prog = imp.run()
    if origins is not None:
        origins.extend(imp.origins)
    return prog

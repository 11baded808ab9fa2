"""The frontend's linearized kernel IR: small, immutable, independent of tinygrad.

A `Program` is a name, its parameters (global buffers and scalar variables), its LDS and
register arrays, and a flat list of `Instr` in execution order. Every instruction that
produces a value is referred to by its index in that list (`%i` in the text form); control
flow is structured: RANGE ... END loops and IF ... ENDIF blocks nest.

Text form (one instruction per line, `#` comments; see frontend/README.md):

    kernel add1
    buffer out f32[64]
    buffer x f32[64]
    var n i32 1..64
    lds tile f32[256]
    reg acc f32[4]
    %0 = i32 local_id 0 64          # axis, size of the work-group along it
    %1 = f32 load x[%0]             # element index; `if %g else %alt` gates it
    %2 = f32 const 1.0
    %3 = f32 add %1 %2
    store out[%0] %3                # `if %g` gates a store
"""
from __future__ import annotations

import math
import re
from dataclasses import field

from isa.records import dataclass


class IRError(ValueError):
    """Malformed IR: names the instruction (index and text) or the text line."""


# ------------------------------------------------------------------ dtypes

SCALARS = {  # name: (bytes, kind)   kind: b bool, i signed, u unsigned, f float
    "bool": (1, "b"), "i8": (1, "i"), "u8": (1, "u"), "i16": (2, "i"), "u16": (2, "u"),
    "i32": (4, "i"), "u32": (4, "u"), "i64": (8, "i"), "u64": (8, "u"),
    "f16": (2, "f"), "bf16": (2, "f"), "f32": (4, "f"), "f64": (8, "f"),
}


@dataclass(frozen=True)
class DType:
    """A scalar type, or a vector of `count` of them (`f32x4`)."""
    scalar: str
    count: int = 1

    def __post_init__(self):
        if self.scalar not in SCALARS:
            raise IRError(f"unknown dtype {self.scalar!r} (known: {', '.join(SCALARS)})")
        if not 1 <= self.count <= 64:
            raise IRError(f"vector width {self.count} of {self.scalar} is outside 1..64")

    @property
    def itemsize(self) -> int:
        return SCALARS[self.scalar][0]

    @property
    def kind(self) -> str:
        return SCALARS[self.scalar][1]

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def signed(self) -> bool:
        return self.kind == "i"

    @property
    def bits(self) -> int:
        return 8 * self.itemsize

    @property
    def element(self) -> "DType":
        return DType(self.scalar)

    def vec(self, n: int) -> "DType":
        return DType(self.scalar, n)

    def __str__(self) -> str:
        return self.scalar if self.count == 1 else f"{self.scalar}x{self.count}"

    @staticmethod
    def parse(text: str) -> "DType":
        m = re.fullmatch(r"([a-z]+\d*)(?:x(\d+))?", text)
        if not m:
            raise IRError(f"bad dtype {text!r}")
        return DType(m.group(1), int(m.group(2) or 1))


def dt(text: str) -> DType:
    return DType.parse(text)


# ------------------------------------------------------------------ declarations

@dataclass(frozen=True)
class Buffer:
    """A global buffer parameter: `size` elements of `dtype` (kernel argument: 8-byte address)."""
    name: str
    dtype: DType
    size: int


@dataclass(frozen=True)
class Var:
    """A scalar kernel parameter (4 bytes, i32/u32) with its inclusive range."""
    name: str
    dtype: DType
    lo: int
    hi: int


@dataclass(frozen=True)
class Local:
    """An array in LDS (`space='lds'`, shared by the work-group) or in registers
    (`space='reg'`, private to each work-item)."""
    name: str
    dtype: DType
    size: int
    space: str


# ------------------------------------------------------------------ instructions

ALU_UNARY = {"neg", "exp2", "log2", "sin", "sqrt", "recip", "trunc"}
ALU_BINARY = {"add", "sub", "mul", "fdiv", "idiv", "mod", "max", "min", "and", "or", "xor", "shl", "shr",
              "cmplt", "cmpne", "cmpeq"}
ALU_TERNARY = {"where", "mulacc"}
ALU = ALU_UNARY | ALU_BINARY | ALU_TERNARY
COMPARE = {"cmplt", "cmpne", "cmpeq"}
# op: (number of sources or None for any, produces a value)
OPS = {
    "const": (0, True), "group_id": (0, True), "local_id": (0, True), "param": (0, True),
    "load": (None, True), "store": (None, False),
    "range": (1, True), "end": (1, False), "if": (1, False), "endif": (1, False), "barrier": (0, False),
    "cast": (1, True), "bitcast": (1, True), "vec": (None, True), "gep": (1, True),
    **{op: (1, True) for op in ALU_UNARY}, **{op: (2, True) for op in ALU_BINARY},
    **{op: (3, True) for op in ALU_TERNARY},
}


@dataclass(frozen=True)
class Instr:
    """One IR instruction.

    op      one of OPS
    dtype   the result's dtype (None for store/end/if/endif/barrier)
    srcs    indices of earlier instructions whose values it reads
    arg     per op: const value; group_id/local_id (axis, size); param name of a Var;
            load/store the array name; gep the element index; range/if/end/endif nothing
    load  srcs: (index[, gate, alt])    store srcs: (index, value[, gate])
    A vector dtype on load/store moves `count` consecutive elements from `index` on."""
    op: str
    dtype: DType | None = None
    srcs: tuple[int, ...] = ()
    arg: object = None

    def text(self, i: int | None = None) -> str:
        try:
            return self._text(i)
        except (IndexError, TypeError, ValueError):      # malformed: say what is there
            return f"{self.op} {self.dtype} srcs={self.srcs} arg={self.arg!r}"

    def _text(self, i: int | None = None) -> str:
        s = [f"%{x}" for x in self.srcs]
        op = self.op
        if op == "const":
            body = f"const {_const_text(self.arg, self.dtype)}"
        elif op in ("group_id", "local_id"):
            body = f"{op} {self.arg[0]} {self.arg[1]}"
        elif op == "param":
            body = f"param {self.arg}"
        elif op == "load":
            body = f"load {self.arg}[{s[0]}]" + (f" if {s[1]} else {s[2]}" if len(s) == 3 else "")
        elif op == "store":
            body = f"store {self.arg}[{s[0]}] {s[1]}" + (f" if {s[2]}" if len(s) == 3 else "")
        elif op == "gep":
            body = f"gep {s[0]} {self.arg}"
        else:
            body = " ".join([op] + s)
        if self.dtype is None:
            return body
        return f"%{i} = {self.dtype} {body}" if i is not None else f"{self.dtype} {body}"


def _const_text(v, dtype: DType) -> str:
    if dtype.kind == "b":
        return "true" if v else "false"
    if dtype.is_float:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(float(v))
    return str(int(v))


@dataclass(frozen=True)
class Program:
    name: str
    buffers: tuple[Buffer, ...] = ()
    vars: tuple[Var, ...] = ()
    locals: tuple[Local, ...] = ()
    instrs: tuple[Instr, ...] = ()
    _arrays: dict = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_arrays", {a.name: a for a in (*self.buffers, *self.locals)})
        validate(self)

    def array(self, name: str):
        return self._arrays[name]

    def text(self, notes=None) -> str:
        """The text form; `notes[i]` (if given and not empty) becomes instruction i's comment."""
        lines = [f"kernel {self.name}"]
        lines += [f"buffer {b.name} {b.dtype}[{b.size}]" for b in self.buffers]
        lines += [f"var {v.name} {v.dtype} {v.lo}..{v.hi}" for v in self.vars]
        lines += [f"{a.space} {a.name} {a.dtype}[{a.size}]" for a in self.locals]
        for i, ins in enumerate(self.instrs):
            note = notes[i] if notes is not None and i < len(notes) else ""
            lines.append(f"{ins.text(i)}  # {note}" if note else ins.text(i))
        return "\n".join(lines) + "\n"

    def where(self, i: int) -> str:
        return f"%{i} ({self.instrs[i].text(i)})"


def validate(p: Program) -> None:
    """Check references, arities, nesting and the dtypes the ops need; IRError names the instruction."""
    names = set()
    for a in (*p.buffers, *p.vars, *p.locals):
        if a.name in names:
            raise IRError(f"{p.name}: name {a.name!r} is declared twice")
        names.add(a.name)
    var_names = {v.name for v in p.vars}
    stack: list[tuple[str, int]] = []
    for i, ins in enumerate(p.instrs):
        def bad(msg):
            raise IRError(f"{p.name}: %{i} ({ins.text(i)}): {msg}")
        if ins.op not in OPS:
            bad(f"unknown op {ins.op!r}")
        n, value = OPS[ins.op]
        if n is not None and len(ins.srcs) != n:
            bad(f"{ins.op} takes {n} sources, got {len(ins.srcs)}")
        if value != (ins.dtype is not None):
            bad("a result dtype is required" if value else f"{ins.op} produces no value")
        for s in ins.srcs:
            if not (isinstance(s, int) and 0 <= s < i):
                bad(f"source %{s} is not an earlier instruction")
            if p.instrs[s].dtype is None and not (ins.op == "endif" and p.instrs[s].op == "if"):
                bad(f"source %{s} is not a value")
        if ins.op in ("load", "store"):
            if ins.arg not in p._arrays:
                bad(f"no buffer or array named {ins.arg!r}")
            want = (1, 3) if ins.op == "load" else (2, 3)
            if len(ins.srcs) not in want:
                bad(f"{ins.op} takes {' or '.join(map(str, want))} sources")
            arr = p._arrays[ins.arg]
            vdt = ins.dtype if ins.op == "load" else p.instrs[ins.srcs[1]].dtype
            if vdt.scalar != arr.dtype.scalar:
                bad(f"{vdt} does not match {arr.name}'s {arr.dtype}")
        if ins.op == "param" and ins.arg not in var_names:
            bad(f"no var named {ins.arg!r}")
        if ins.op in ("group_id", "local_id") and not (isinstance(ins.arg, tuple) and ins.arg[0] in (0, 1, 2)):
            bad("takes (axis 0..2, size)")
        if ins.op == "gep":
            src = p.instrs[ins.srcs[0]].dtype
            if not (isinstance(ins.arg, int) and 0 <= ins.arg < src.count):
                bad(f"element {ins.arg} of {src}")
        if ins.op == "vec" and ins.dtype.count != len(ins.srcs):
            bad(f"{ins.dtype} built from {len(ins.srcs)} values")
        if ins.op in ("range", "if"):
            stack.append((ins.op, i))
        if ins.op in ("end", "endif"):
            want = "range" if ins.op == "end" else "if"
            if not stack or stack[-1] != (want, ins.srcs[0]):
                bad(f"does not close the innermost open {want}")
            stack.pop()
    if stack:
        op, i = stack[-1]
        raise IRError(f"{p.name}: %{i} ({p.instrs[i].text(i)}) is never closed")


# ------------------------------------------------------------------ text form

_LINE = re.compile(r"%(\d+)\s*=\s*(\S+)\s+(\S+)\s*(.*)")


def parse(text: str, notes: list | None = None) -> Program:
    """The text form back into a Program; IRError names the line. If `notes` is a list, it
    receives each instruction's trailing comment ("" where there is none)."""
    name, buffers, vars_, locals_, instrs = None, [], [], [], []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line, _, comment = raw.partition("#")
        line = line.strip()
        if not line:
            continue
        if notes is not None and line.split()[0] not in ("kernel", "buffer", "lds", "reg", "var"):
            notes.append(comment.strip())
        try:
            words = line.split()
            head = words[0]
            if head == "kernel":
                name = words[1]
            elif head in ("buffer", "lds", "reg"):
                m = re.fullmatch(r"(\S+)\s+(\S+)\[(\d+)\]", " ".join(words[1:]))
                if not m:
                    raise IRError(f"expected `{head} NAME DTYPE[SIZE]`")
                d = DType.parse(m.group(2))
                if head == "buffer":
                    buffers.append(Buffer(m.group(1), d, int(m.group(3))))
                else:
                    locals_.append(Local(m.group(1), d, int(m.group(3)), head))
            elif head == "var":
                m = re.fullmatch(r"var\s+(\S+)\s+(\S+)\s+(-?\d+)\.\.(-?\d+)", line)
                if not m:
                    raise IRError("expected `var NAME DTYPE LO..HI`")
                vars_.append(Var(m.group(1), DType.parse(m.group(2)), int(m.group(3)), int(m.group(4))))
            elif head == "store":
                m = re.fullmatch(r"store\s+(\S+)\[%(\d+)\]\s+%(\d+)(?:\s+if\s+%(\d+))?", line)
                if not m:
                    raise IRError("expected `store NAME[%i] %v [if %g]`")
                srcs = (int(m.group(2)), int(m.group(3))) + ((int(m.group(4)),) if m.group(4) else ())
                instrs.append(Instr("store", None, srcs, m.group(1)))
            elif head in ("end", "endif", "if", "barrier"):
                srcs = tuple(int(w.lstrip("%")) for w in words[1:])
                instrs.append(Instr(head, None, srcs))
            else:
                m = _LINE.fullmatch(line)
                if not m:
                    raise IRError("expected `%i = DTYPE OP ...`")
                if int(m.group(1)) != len(instrs):
                    raise IRError(f"value %{m.group(1)} is instruction {len(instrs)}")
                d, op, rest = DType.parse(m.group(2)), m.group(3), m.group(4).strip()
                instrs.append(_parse_op(d, op, rest))
        except IRError as e:
            raise IRError(f"line {lineno}: {raw.strip()}: {e}") from None
        except (ValueError, IndexError) as e:
            raise IRError(f"line {lineno}: {raw.strip()}: {e}") from None
    if name is None:
        raise IRError("missing `kernel NAME` line")
    return Program(name, tuple(buffers), tuple(vars_), tuple(locals_), tuple(instrs))


def _parse_op(d: DType, op: str, rest: str) -> Instr:
    if op not in OPS:
        raise IRError(f"unknown op {op!r}")
    if op == "const":
        return Instr(op, d, (), parse_const(rest, d))
    if op in ("group_id", "local_id"):
        axis, size = rest.split()
        return Instr(op, d, (), (int(axis), int(size)))
    if op == "param":
        return Instr(op, d, (), rest)
    if op == "load":
        m = re.fullmatch(r"(\S+)\[%(\d+)\](?:\s+if\s+%(\d+)\s+else\s+%(\d+))?", rest)
        if not m:
            raise IRError("expected `load NAME[%i] [if %g else %alt]`")
        srcs = (int(m.group(2)),) + ((int(m.group(3)), int(m.group(4))) if m.group(3) else ())
        return Instr(op, d, srcs, m.group(1))
    if op == "gep":
        src, idx = rest.split()
        return Instr(op, d, (int(src.lstrip("%")),), int(idx))
    return Instr(op, d, tuple(int(w.lstrip("%")) for w in rest.split()))


def parse_const(text: str, d: DType):
    if d.kind == "b":
        if text not in ("true", "false"):
            raise IRError(f"bool constant is true or false, got {text!r}")
        return text == "true"
    if d.is_float:
        return float(text)
    v = int(text, 0)
    lo, hi = (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1) if d.signed else (0, (1 << d.bits) - 1)
    if not lo <= v <= hi:
        raise IRError(f"{v} does not fit {d}")
    return v

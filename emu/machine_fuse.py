"""Fused straight-line runs (EmuOptions.fused_runs): a run's integer moves, adds, carries, 64-bit
shifts and scalar adds/compares written out as numpy expressions over local variables, their
register values passed from one instruction to the next without the register file in between.

A run (machine_runs.py) calls one compiled step per instruction: operand readers, a Ctx, the
semantic, writers, ~3.5 µs of Python each around a few numpy passes. For the instructions
here (`OPS`: each checked against its generated semantic by tests/test_emu_fused_runs.py) the
fused run instead emits their arithmetic inline: a register is read from the file once at its
first use (a view of the batch's row), an instruction's result is a local that later
instructions of the run read, and each register written is stored once, through the machine's
own writers (write marks, uniform-SGPR notes, lane-bit packing), when the fused stretch ends:
before any other instruction of the run (which then runs its compiled step on the register file
as it would have been) and at the run's end. A lane-bit result (the carry of v_add_co_u32) stays
a (W, L) bool array until stored, so the carry of a 64-bit address sum is never packed into VCC
and unpacked again within the run.

The fused form runs only for a batch of contiguous waves (views) with every lane of EXEC on;
other batches take the run's plain form. An instruction the fused form cannot model (any other,
a modifier, an SCC or register-file source, a lane mask it did not compute itself) ends the
stretch; after an instruction of the run that wrote EXEC leaving some lane off, the rest of the
run takes the plain form.
"""
from __future__ import annotations

import numpy as np

from isa.records import dataclass

from .facts import dword_loads, dword_stores
from .machine_prepare import _write_lane_bits, _write_scc, _write_sgprs, _write_vgprs
from .memory import MemoryFault
from .options import current
from .wave import SCALAR_CODES, SCC_CODE, VCC_LO, VGPR_BASE, unpack_mask

# instruction -> what its fused form computes (emit below); VALU ones in their e32 and e64 forms
OPS = {"V_MOV_B32": "mov", "V_ADD_NC_U32": "add", "V_ADD_CO_U32": "add_co", "V_ADD_CO_CI_U32": "add_co_ci",
       "V_LSHLREV_B64": "lshl64", "S_ADD_I32": "s_add_i32", "S_ADD_U32": "s_add_u32",
       "S_CMP_EQ_U32": "s_cmp_eq", "S_CMP_LG_U32": "s_cmp_lg", "V_CNDMASK_B32": "cndmask",
       "V_SUB_NC_U32": "sub", "V_AND_B32": "and", "V_OR_B32": "or", "V_XOR_B32": "xor",
       "V_LSHLREV_B32": "lshl", "V_LSHRREV_B32": "lshr", "S_MOV_B32": "s_mov",
       "S_AND_B32": "s_and", "S_OR_B32": "s_or", "S_XOR_B32": "s_xor", "S_LSHL_B32": "s_lshl", "S_LSHR_B32": "s_lshr",
       **{f"V_CMP_{name}_{t}32": f"cmp_{t.lower()}_{name.lower()}"
          for name in ("EQ", "NE", "LT", "LE", "GT", "GE") for t in ("U", "I")}}
MEMORY_OPS = ("global_load", "global_store")     # Segment.memory's (fusable: _memory_op)
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
# D0 = S0 op S1 (the shifts: S1 << S0[4:0] for VALU's "rev" forms, S0 << S1[4:0] for SALU's);
# the SALU ones' SCC = D0 != 0
_BINARY = {"add": "{a} + {b}", "sub": "{a} - {b}", "and": "{a} & {b}", "or": "{a} | {b}", "xor": "{a} ^ {b}",
           "lshl": "{b} << ({a} & u32(31))", "lshr": "{b} >> ({a} & u32(31))",
           "s_and": "{a} & {b}", "s_or": "{a} | {b}", "s_xor": "{a} ^ {b}",
           "s_lshl": "{a} << ({b} & u32(31))", "s_lshr": "{a} >> ({b} & u32(31))"}
_MODIFIERS = ("NEG", "ABS", "OPSEL", "CLMP", "OMOD")


@dataclass(frozen=True)
class Fused:
    """One instruction in a fused run: what it computes and its operands, each ("v", reg),
    ("s", code), ("k", constant array) or ("bits", code) for a lane mask."""
    op: str
    dst: tuple | None           # ("v", reg) / ("s", code) / None (compares: SCC only; stores)
    srcs: tuple                 # its sources in the pseudocode's order (S0, S1); memory: address lo, hi (, data)
    carry_in: tuple | None      # ("bits", code): the carry-in, or v_cndmask_b32's lane select
    carry_out: tuple | None     # ("bits", code), or None when it goes to NULL / is not written
    offset: int = 0             # memory: the instruction offset added to the 64-bit address


def _memory_op(p) -> Fused | None:
    """A GLOBAL load or store of one whole dword through a VGPR pair (Prepared.vaddr_pair; the
    `dword_loads` / `dword_stores` facts of its pseudocode: VDATA's dword from / to ADDR)."""
    vaddr, offset, data = p.vaddr_pair
    d = p.inst.defs[0]
    address = (("v", vaddr), ("v", vaddr + 1))
    if p.sem.memory == "load" and set(p.sem.writes) == {"VDATA"} and dword_loads(d) == ("VDATA", 1):
        return Fused("global_load", ("v", data), address, None, None, offset)
    if p.sem.memory == "store" and not p.sem.writes and dword_stores(d) == ("VDATA", 1):
        return Fused("global_store", None, address + (("v", data),), None, None, offset)
    return None


def fusable(p, null) -> Fused | None:
    """p's fused form, or None when the fused run cannot model it (p then runs its step)."""
    inst = p.inst
    if p.second is not None or p.dpp is not None or inst.dpp_kind or len(inst.defs) != 1:
        return None
    if p.vaddr_pair is not None:
        return _memory_op(p) if current().fused_memory else None
    op = OPS.get(inst.defs[0].name)
    if op is None:
        return None
    f = inst.fields
    if any(f.get(name, 0) for name in _MODIFIERS):
        return None
    fmt = inst.fmt.name
    if op.startswith("s_"):
        if fmt not in ("SOP2", "SOPC") and not (op == "s_mov" and fmt == "SOP1"):
            return None
        srcs = (_source(p, "S0", f["SSRC0"]),) + ((_source(p, "S1", f["SSRC1"]),) if op != "s_mov" else ())
        dst = None if fmt == "SOPC" else ("s", f["SDST"])
        if dst is not None and (dst[1] >= VCC_LO or dst[1] == null):
            return None
        if None in srcs:
            return None
        return Fused(op, dst, srcs, None, None)
    e32 = fmt in ("VOP1", "VOP2", "VOPC")
    if not e32 and fmt not in ("VOP3", "VOP3SD"):
        return None
    if op.startswith("cmp_"):           # lane bits into VCC (e32) or the e64 form's SDST
        codes = [f["SRC0"], f["VSRC1"] + VGPR_BASE] if e32 else [f["SRC0"], f["SRC1"]]
        srcs = tuple(_source(p, f"S{i}", codes[i]) for i in range(2))
        sd = VCC_LO if e32 else f["VDST"]
        if None in srcs or not _mask_register(sd, null):
            return None
        return Fused(op, ("bits", sd), srcs, None, None)
    codes = [f["SRC0"]] + ([f["VSRC1"] + VGPR_BASE] if "VSRC1" in f else [f["SRC1"]] if "SRC1" in f else [])
    count = 1 if op == "mov" else 2
    if len(codes) < count:
        return None
    if op == "lshl64":          # S0 the shift count (a constant), S1 a VGPR pair
        shift = _source(p, "S0", codes[0])
        if shift is None or shift[0] != "k" or codes[1] < VGPR_BASE:
            return None
        srcs = (shift, ("v", codes[1] - VGPR_BASE), ("v", codes[1] - VGPR_BASE + 1))
        return Fused(op, ("v", f["VDST"]), srcs, None, None)
    srcs = tuple(_source(p, f"S{i}", codes[i]) for i in range(count))
    if None in srcs:
        return None
    carry_in = carry_out = None
    if op in ("add_co_ci", "cndmask"):
        carry_in = ("bits", VCC_LO if e32 else f["SRC2"])
        if not _mask_register(carry_in[1], null):
            return None
    if op in ("add_co", "add_co_ci"):
        sd = VCC_LO if e32 else f["SDST"]
        if sd != null and not _mask_register(sd, null):
            return None
        carry_out = None if sd == null else ("bits", sd)
    return Fused(op, ("v", f["VDST"]), srcs, carry_in, carry_out)


def _mask_register(code: int, null) -> bool:
    """Whether a lane mask at `code` is one the fused form keeps: VCC, or SGPRs whose pair
    (wave64) stays below VCC; never EXEC (its writes change which lanes later instructions
    run), a special register or NULL."""
    return code == VCC_LO or (code + 1 < VCC_LO and code != null)


def _source(p, key: str, code: int):
    """An operand of the fused form: a VGPR, an SGPR row, or a constant (the prepared reader's
    value: inline constants and literals do not read the state); None for others (SCC, ...)."""
    if code >= VGPR_BASE:
        return ("v", code - VGPR_BASE)
    if code < VCC_LO:
        return ("s", code)
    if code >= SCALAR_CODES and code != SCC_CODE and key in p.inputs:
        try:
            value = p.inputs[key](None, None)
        except (AttributeError, TypeError):       # it reads the state after all: not a constant
            return None
        if isinstance(value, np.ndarray) and value.shape == (1, 1) and value.dtype == np.uint32:
            return ("k", value)
    return None


class Segment:
    """Generates a fused run's code: the locals holding register values, which of them are
    written and not yet stored (dirty), and which are views of a register file row."""

    def __init__(self, namespace: dict, lines: list, indent: str):
        self.ns, self.lines, self.indent = namespace, lines, indent
        self.values: dict = {}      # operand -> local name
        self.dirty: dict = {}       # operand -> local name (written, not stored yet)
        self.views: dict = {}       # local name -> the VGPR whose file row it is a view of
        self.names = 0

    def emit(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def local(self) -> str:
        self.names += 1
        return f"t{self.names}"

    def constant(self, value) -> str:
        name = f"c{len(self.ns)}"
        self.ns[name] = value
        return name

    def can_take(self, fused: Fused, mask_dwords_codes) -> bool:
        """Whether the locals can serve fused's operands: a lane mask read must be one computed
        here, and no SGPR row may be both a lane mask local and a scalar local."""
        rows = {c for kind, code in self.values if kind == "bits" for c in mask_dwords_codes(code)}
        touched = [o for o in (*fused.srcs, fused.dst) if o is not None and o[0] == "s"]
        if any(o[1] in rows for o in touched):
            return False
        scalars = {code for kind, code in self.values if kind == "s"}
        for bits in (fused.carry_in, fused.carry_out, fused.dst):
            if bits is not None and bits[0] == "bits" and scalars & set(mask_dwords_codes(bits[1])):
                return False
        return True

    def read(self, operand, reader_key: str | None = None, p=None) -> str:
        kind = operand[0]
        if kind == "k":
            return self.constant(operand[1])
        name = self.values.get(operand)
        if name is not None:
            return name
        name = self.local()
        if kind == "v":
            self.emit(f"{name} = vgpr[{operand[1]}, sel]")
            self.values[operand] = name
            self.views[name] = operand[1]
        elif kind == "bits":        # a lane mask in the file: its bits per lane
            self.emit(f"{name} = unpack(st.read_mask(sel, {operand[1]}), st.lanes)")
            self.values[operand] = name
        else:       # an SGPR row not written here: the instruction's own reader (uniform rows as one value)
            self.emit(f"{name} = {self.constant(p.inputs[reader_key])}(st, sel)")
        return name

    def write(self, operand, name: str) -> None:
        """operand now holds local `name`; a local elsewhere that is a view of its file row is
        copied first, since the row is stored before that local may be."""
        if operand[0] == "v":
            for other, held in list(self.dirty.items()):
                if other != operand and self.views.get(held) == operand[1]:
                    copy = self.local()
                    self.emit(f"{copy} = {held}.copy()")
                    self.dirty[other] = self.values[other] = copy
        self.values[operand] = self.dirty[operand] = name

    def store(self, forget: bool = True, indent: str = "") -> None:
        """Every written register stored through the machine's writers; the locals forgotten
        (forget=False: kept, still dirty: a memory op's plain step that reads the file)."""
        for operand, name in self.dirty.items():
            kind, code = operand
            if kind == "v":
                self.emit(f"{indent}{self.constant(_write_vgprs(code, 1))}(st, sel, {name}, None)")
            elif kind == "s":
                self.emit(f"{indent}{self.constant(_write_sgprs(code, 1))}(st, sel, {name}, None)")
            elif kind == "bits":
                self.emit(f"{indent}{self.constant(_write_lane_bits(code))}(st, sel, {name} if {name}.shape == shape "
                          f"else broadcast({name}, shape), None)")
            else:
                self.emit(f"{indent}{self.constant(_write_scc)}(st, sel, {name}, None)")
        if forget:
            self.values, self.dirty, self.views = {}, {}, {}

    def memory(self, fused: Fused, plain: str) -> None:
        """A load or store on the locals: the 64-bit address from the pair's locals, the access
        through the device memory's own load/store (its bounds, alignment and lane order), counted
        in lane_ops. When that access cannot be made here (a fault, an unaligned or out-of-bounds
        lane, a timing observer: `fused_load`/`fused_store` say None/False, having touched
        nothing), every written register is stored and `plain` (the instruction's compiled step)
        runs on the file as it would have been, naming a fault as it would; a load's result is
        then read back from its register. The locals stay valid either way."""
        lo, hi = self.read(fused.srcs[0]), self.read(fused.srcs[1])
        offset = self.constant(np.uint64(fused.offset & (2**64 - 1)))
        if fused.op == "global_load":
            out = self.local()
            self.emit(f"{out} = fused_load(device, {lo}, {hi}, {offset}, shape)")
            self.emit(f"if {out} is None:")
            self.store(forget=False, indent="    ")
            self.emit(f"    {plain}")
            self.emit(f"    {out} = vgpr[{fused.dst[1]}, sel].copy()")
            self.emit("else:")
            self.emit("    stats.lane_ops += lane_ops")
            self.write(fused.dst, out)
            return
        data = self.read(fused.srcs[2])
        self.emit(f"if fused_store(device, {lo}, {hi}, {offset}, {data}, shape):")
        self.emit("    stats.lane_ops += lane_ops")
        self.emit("else:")
        self.store(forget=False, indent="    ")
        self.emit(f"    {plain}")

    def instruction(self, fused: Fused, p) -> None:
        """fused's arithmetic on locals (the semantics of its pseudocode in uint32)."""
        op, out = fused.op, self.local()
        keys = ("S0", "S1")
        if op == "lshl64":
            count = int(fused.srcs[0][1][0, 0]) & 63
            lo, hi = self.read(fused.srcs[1]), self.read(fused.srcs[2])
            reg = fused.dst[1]
            if count == 0:
                new_lo, new_hi = lo, hi
            elif count < 32:
                new_lo, new_hi = out, self.local()
                self.emit(f"{new_lo} = {lo} << u32({count})")
                self.emit(f"{new_hi} = ({hi} << u32({count})) | ({lo} >> u32({32 - count}))")
            else:
                new_lo, new_hi = out, self.local()
                self.emit(f"{new_lo} = zeros(shape, u32)")
                if count == 32:
                    new_hi = lo
                else:
                    self.emit(f"{new_hi} = {lo} << u32({count - 32})")
            self.write(("v", reg), new_lo)
            self.write(("v", reg + 1), new_hi)
            return
        srcs = [self.read(s, keys[i], p) for i, s in enumerate(fused.srcs)]
        if op == "s_mov":           # a value of its own: a later SGPR write must not change it
            self.emit(f"{out} = {srcs[0]}.copy()")
            self.write(fused.dst, out)
            return
        if op == "mov":
            value = srcs[0]
            if fused.srcs[0][0] == "s":        # a per-wave or uniform SGPR value as a lane value of its own
                self.emit(f"{out} = {value}.copy()")
                value = out
            self.write(fused.dst, value)
            return
        a, b = srcs
        if op == "cndmask":
            self.emit(f"{out} = where({self.read(fused.carry_in)}, {b}, {a})")
            self.write(fused.dst, out)
            return
        if op.startswith("cmp_"):
            _, kind, how = op.split("_")
            if kind == "i":
                a, b = f"{a}.view(i32)", f"{b}.view(i32)"
            self.emit(f"{out} = {a} {_COMPARE[how]} {b}")
            self.write(fused.dst, out)
            return
        if op in ("add_co", "s_add_i32", "s_add_u32"):
            self.emit(f"{out} = {a} + {b}")
        elif op in _BINARY:
            self.emit(f"{out} = {_BINARY[op].format(a=a, b=b)}")
            if op.startswith("s_"):
                scc = self.local()
                self.emit(f"{scc} = {out} != u32(0)")
                self.write(("scc", 0), scc)
        if op == "add_co" and fused.carry_out is not None:
            carry = self.local()
            self.emit(f"{carry} = {out} < {a}")
            self.write(fused.carry_out, carry)
        elif op == "add_co_ci":
            partial, carry = self.local(), self.read(fused.carry_in)
            self.emit(f"{partial} = {a} + {b}")
            self.emit(f"{out} = {partial} + {carry}")
            if fused.carry_out is not None:
                carry_out = self.local()
                self.emit(f"{carry_out} = ({partial} < {a}) | ({out} < {partial})")
                self.write(fused.carry_out, carry_out)
        elif op == "s_add_i32":           # SCC: signed overflow (both signs alike, the sum's differs)
            scc = self.local()
            self.emit(f"{scc} = (({a} ^ {out}) & ({b} ^ {out})) >> u32(31)")
            self.write(("scc", 0), scc)
        elif op == "s_add_u32":
            scc = self.local()
            self.emit(f"{scc} = {out} < {a}")
            self.write(("scc", 0), scc)
        elif op in ("s_cmp_eq", "s_cmp_lg"):
            self.emit(f"{out} = {a} {'==' if op == 's_cmp_eq' else '!='} {b}")
            self.write(("scc", 0), out)
            return
        self.write(fused.dst, out)


_ALL_ON = np.ones((1, 1), bool)        # the mask of an access every lane makes (rtlib._mem_mask's)
_ALL_ON.flags.writeable = False


def _addresses(memory, lo, hi, offset, shape):
    """The 64-bit addresses of a VGPR pair's dwords plus the instruction offset (modulo 2**64, as
    the plain path's joined pair + offset) at the batch's shape (a pair's local may be one SGPR
    value moved in), or None when the access is not the device memory's alone (a timing observer
    sees accesses: the plain step's to record)."""
    if memory.observer is not None:
        return None
    addr = (lo if lo.shape == shape else np.broadcast_to(lo, shape)).astype(np.uint64)
    addr |= hi.astype(np.uint64) << np.uint64(32)
    if offset:
        addr += offset
    return addr


def fused_load(memory, lo, hi, offset, shape):
    """The dword each lane loads (uint32 (W, L), a fresh array: no view of memory, which a later
    store of the run may change), or None when it cannot be loaded here (nothing touched)."""
    addr = _addresses(memory, lo, hi, offset, shape)
    if addr is None:
        return None
    try:
        return memory.load(addr, 4, _ALL_ON).astype(np.uint32, copy=False)
    except MemoryFault:
        return None


def fused_store(memory, lo, hi, offset, data, shape) -> bool:
    """Store each lane's dword (lanes sharing an address: the last lane's, as the plain path);
    False when it cannot be stored here (DeviceMemory checks every address before it writes
    any, so nothing was written)."""
    addr = _addresses(memory, lo, hi, offset, shape)
    if addr is None:
        return False
    try:
        memory.store(addr, 4, data if data.shape == shape else np.broadcast_to(data, shape), _ALL_ON)
    except MemoryFault:
        return False
    return True


NAMESPACE = {"fused_load": fused_load, "fused_store": fused_store, "u32": np.uint32, "i32": np.int32, "zeros": np.zeros, "broadcast": np.broadcast_to, "where": np.where,
             "unpack": unpack_mask}

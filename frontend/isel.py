"""Instruction selection: an IR Program -> a dsl.Kernel with virtual registers.

The selector walks the IR once, in order. Each value becomes a `values.Val`: uniform values
(constants, work-group ids, kernel variables, loop counters and integer arithmetic on them)
live in SGPRs and use SALU; everything that can differ per lane lives in VGPRs (divergent
bools as lane masks in SGPRs). Control flow is structured: RANGE/END become loops with a
scalar counter, IF/ENDIF become EXEC masking (a uniform condition becomes a scalar branch),
gated loads and stores run under a narrowed EXEC. ALU ops, casts and the division and
transcendental sequences are in `alu.py`; s_waitcnt comes later (`waitcnt.py`), then the
DSL's register allocator places the virtual registers.

Nothing here assumes wave32: lane masks are as wide as the wave (`Selector.mask_dwords`),
and mask instructions take their _b32/_b64 form from the wave size."""
from __future__ import annotations

import dataclasses
import functools
import math
import types

import isa

from . import alu, alu64
from .ir import DType, IRError, Program
from .values import Val, const
from dsl.operands import VReg
from dsl.signature import valu_signature

# Work-group ids arrive in the SGPRs after the user SGPRs (here only the kernarg pointer,
# s[0:1]), in x, y, z order of those enabled; work-item ids packed in v0 (10 bits each),
# as the runtime's Device("emu") and the hardware's ABI deliver them on RDNA3.
USER_SGPRS = 2
GLOBAL_OFFSET = (-4096, 4095)     # signed 13-bit immediate offset of GLOBAL instructions on RDNA3
DS_OFFSET_MAX = 65535             # unsigned 16-bit DS offset
DS_PAIR_OFFSET_MAX = 255          # ds_load_2addr_b32: two 8-bit offsets, in dwords
SMEM_OFFSET_LIMIT = 1 << 20       # SMEM immediate offsets used here: 0 .. 2^20-1 (the field is 21-bit signed)
# VALU operands read from SGPRs or literals per instruction (the constant bus): 2 on RDNA
# (RDNA3 ISA 7.1 "Constant bus"); one literal at most.
CONSTANT_BUS = 2


@functools.lru_cache(maxsize=None)
def mask_last_source(arch: str, mnemonic: str) -> bool:
    """Does the instruction's VOP3 form read a lane mask as its last source (its code reads VCC
    as a carry in or a select, which that form takes from an SGPR: dsl.signature's mask operand)?
    v_cndmask_b32, v_add_co_ci_u32, v_sub_co_ci_u32, v_subrev_co_ci_u32."""
    spec = isa.load(arch)
    return any((sig := valu_signature(d)).srcs and sig.srcs[-1].is_mask
               for d in spec.lookup(mnemonic) if d.format in spec.traits.roles.valu_e64)


@functools.lru_cache(maxsize=None)
def dsl_namespace(arch: str, wave_size: int):
    """The DSL's instruction functions for `arch`, encoding for `wave_size` (VOPC/VOP3
    lane-mask operands are one SGPR in wave32, two in wave64)."""
    from dsl._namespace_module import COMMON
    from dsl.kernel import build_namespace
    return types.SimpleNamespace(**COMMON, **build_namespace(arch, wave_size))


class CompileError(IRError):
    """The frontend cannot compile this kernel; names the IR instruction (`index`: its
    position in the program, None when the error is about the whole kernel)."""

    def __init__(self, msg: str, index: int | None = None):
        super().__init__(msg)
        self.index = index


class Selector:
    def __init__(self, prog: Program, arch: str = "gfx1100", wave_size: int | None = None):
        self.prog = prog
        self.arch = arch
        self.r = dsl_namespace(arch, wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)])
        self.k = self.r.Kernel(arch, wave_size, name=prog.name)
        self.wave64 = self.k.wave_size == 64
        self.mask_dwords = 2 if self.wave64 else 1
        self.exec = self.r.exec if self.wave64 else self.r.exec_lo
        self.vals: dict[int, Val] = {}
        self.blocks: list[tuple] = []
        self.labels = 0
        self.cur = -1
        self.nonneg = _nonneg(prog)
        self.copy_on_load = _reg_loads_needing_copies(prog)
        self.stored = {ins.arg for ins in prog.instrs if ins.op == "store"}
        self.uses = {}
        for ins in prog.instrs:
            for x in ins.srcs:
                self.uses[x] = self.uses.get(x, 0) + 1
        self.regs: dict[str, list] = {}
        self.lds_base: dict[str, int] = {}
        self.lds_size = 0
        self.buf_ptr: dict[str, object] = {}
        self.var_reg: dict[str, object] = {}
        ids = [ins.arg[0] for ins in prog.instrs if ins.op == "group_id"]
        self.group_axes = sorted(set(ids) | {0})
        self.local_axes = max([ins.arg[0] for ins in prog.instrs if ins.op == "local_id"], default=0)
        self.addr_cache: dict = {}     # (index value, element size) -> VGPR byte offset, per block

    # ------------------------------------------------------------ emitting

    def emit(self, name: str, *ops, **mods):
        try:
            self.k += getattr(self.r, name)(*ops, **mods)
        except AttributeError:
            raise self.error(f"{name} does not exist on {self.arch}") from None
        except ValueError as e:
            raise self.error(f"{name}: {e}") from None

    def mask_op(self, name: str) -> str:
        """s_and_b32 -> s_and_b64 in wave64: instructions on lane masks follow the wave size."""
        return name.replace("_b32", "_b64") if self.wave64 else name

    def label(self) -> str:
        self.labels += 1
        return f".L{self.labels}"

    def error(self, msg: str) -> CompileError:
        inside = 0 <= self.cur < len(self.prog.instrs)
        where = self.prog.where(self.cur) if inside else self.prog.name
        return CompileError(f"{self.prog.name}: {where}: {msg}", self.cur if inside else None)

    def vreg(self, dwords: int = 1):
        return self.k.vreg(dwords)

    def sreg(self, dwords: int = 1):
        return self.k.sreg(dwords)

    # ------------------------------------------------------------ operands

    def imm(self, v: Val):
        """A constant as the Python number the DSL turns into an inline constant or a literal."""
        if v.dtype.is_float:
            return float(v.value)
        x = int(v.value)
        return x - (1 << 32) if x >= 1 << 31 else x    # literals are 32-bit patterns

    def vsrc(self, v: Val):
        """A VALU source: constant, SGPR or VGPR (a lane mask becomes 0/1 in a VGPR)."""
        if v.kind == "c":
            if v.dtype.itemsize == 8:
                return self.vgpr(v)
            return self.imm(v)
        if v.kind in ("s", "v"):
            return v.reg
        if v.kind == "m":
            return self.vgpr(v)
        raise self.error(f"a vector value where a scalar is needed ({v.dtype})")

    def vgpr(self, v: Val):
        """The value in VGPRs (moved there if it is a constant or uniform)."""
        if v.kind == "v":
            return v.reg
        if v.kind == "m":
            out = self.vreg()
            self.emit("v_cndmask_b32", out, 0, 1, v.reg)
            return out
        if v.kind == "c" and v.dwords == 2:
            out = self.vreg(2)
            lo, hi = alu.split64(v)
            self.emit("v_mov_b32", out[0], lo)
            self.emit("v_mov_b32", out[1], hi)
            return out
        if v.kind == "c":
            out = self.vreg()
            self.emit("v_mov_b32", out, self.imm(v))
            return out
        if v.kind == "s":
            out = self.vreg(v.dwords)
            for j in range(v.dwords):
                self.emit("v_mov_b32", out[j] if v.dwords > 1 else out, v.reg[j] if v.dwords > 1 else v.reg)
            return out
        raise self.error(f"a vector value where a scalar is needed ({v.dtype})")

    def sgpr(self, v: Val):
        """A uniform value in SGPRs (constants moved there)."""
        if v.kind == "s":
            return v.reg
        if v.kind == "c":
            out = self.sreg(v.dwords)
            if v.dwords == 2:
                lo, hi = alu.split64(v)
                self.emit("s_mov_b32", out[0], lo)
                self.emit("s_mov_b32", out[1], hi)
            else:
                self.emit("s_mov_b32", out, self.imm(v))
            return out
        raise self.error(f"expected a uniform value, got a per-lane {v.dtype}")

    def ssrc(self, v: Val):
        """A SALU source: constant or SGPR."""
        if v.kind == "c" and v.dwords == 1:
            return self.imm(v)
        return self.sgpr(v)

    def mask(self, v: Val):
        """A bool as a lane mask operand (SGPRs or a constant)."""
        if v.kind == "m":
            return v.reg
        if v.kind == "c":
            return -1 if v.value else 0
        if v.kind == "s":
            out = self.sreg(self.mask_dwords)
            self.emit("s_cmp_lg_u32", v.reg, 0)
            self.emit(self.mask_op("s_cselect_b32"), out, -1, 0)
            return out
        if v.kind == "v":
            out = self.sreg(self.mask_dwords)
            self.emit("v_cmp_ne_u32", out, 0, v.reg)
            return out
        raise self.error("a vector bool where a scalar is needed")

    def valu(self, name: str, dst, *srcs, **mods):
        """A VALU instruction whose sources respect the constant bus: extra SGPR/literal
        sources beyond CONSTANT_BUS (one literal at most) are moved to VGPRs first."""
        srcs = list(srcs)
        bus, literal = 0, False
        # a lane-mask source (v_cndmask's selector, a carry-in) must stay in SGPRs: it takes
        # its constant-bus slot first and the other sources move
        fixed = len(srcs) - 1 if mask_last_source(self.arch, name) and srcs and _is_sgpr(srcs[-1]) else None
        if fixed is not None:
            bus = 1
        for j, s in enumerate(srcs):
            if j == fixed:
                continue
            scalar = _is_sgpr(s)
            lit = isinstance(s, (int, float)) and not _inline(s)
            if scalar or lit:
                if bus + 1 > CONSTANT_BUS or (lit and literal):
                    tmp = self.vreg()
                    self.emit("v_mov_b32", tmp, s)
                    srcs[j] = tmp
                    continue
                bus += 1
                literal |= lit
        self.emit(name, dst, *srcs, **mods)

    # ------------------------------------------------------------ driver

    def run(self):
        self.prologue()
        folded = self.offset_only_adds()
        for i, ins in enumerate(self.prog.instrs):
            self.cur = i
            if i in folded:        # every use takes the constant as its immediate offset
                self.vals[i] = Val("folded", ins.dtype)
                continue
            handler = getattr(self, "op_" + ins.op, None)
            try:
                if handler is not None:
                    out = handler(ins, i)
                else:
                    out = alu64.select(self, ins, [self.vals[s] for s in ins.srcs])
            except CompileError:
                raise
            except (ValueError, KeyError, IndexError, TypeError) as e:
                raise self.error(f"{type(e).__name__}: {e}") from None
            if out is not None:
                self.vals[i] = out
        self.cur = -1
        self.emit("s_endpgm")
        return self.k

    def offset_only_adds(self) -> set[int]:
        """Indices `x + c` used only as element indices of global/LDS loads and stores whose
        `address()` puts `c` into the immediate offset: they need no instruction of their own."""
        uses: dict[int, list] = {}
        for j, ins in enumerate(self.prog.instrs):
            for pos, src in enumerate(ins.srcs):
                uses.setdefault(src, []).append((j, pos))
        out = set()
        for i, ins in enumerate(self.prog.instrs):
            if ins.op != "add" or ins.dtype is None or ins.dtype.count != 1 or not ins.dtype.is_int \
                    or ins.dtype.itemsize > 4 or i not in uses:
                continue
            a, b = (self.prog.instrs[x] for x in ins.srcs)
            if b.op == "const" and a.op != "const" and self.nonneg.get(ins.srcs[0]) and ins.srcs[0] not in out:
                cst = b.arg
            elif a.op == "const" and b.op != "const" and self.nonneg.get(ins.srcs[1]) and ins.srcs[1] not in out:
                cst = a.arg
            else:
                continue
            if all(self.offset_fits(j, pos, cst) for j, pos in uses[i]):
                out.add(i)
        return out

    def offset_fits(self, j: int, pos: int, cst: int) -> bool:
        """Whether instruction j, reading an index `x + cst` as source `pos`, takes it as
        (register x, immediate) for every element it accesses."""
        ins = self.prog.instrs[j]
        if ins.op not in ("load", "store") or pos != 0:
            return False
        arr = self.prog.array(ins.arg)
        space = getattr(arr, "space", "global")
        if space == "reg":
            return False
        vdt = ins.dtype if ins.op == "load" else self.prog.instrs[ins.srcs[1]].dtype
        n, size = vdt.count, arr.dtype.itemsize
        wide = space == "global" and size == 4 and n in (2, 3, 4)
        lo, hi = GLOBAL_OFFSET if space == "global" else (0, DS_OFFSET_MAX)
        base = self.lds_base.get(arr.name, 0)
        # past `hi`, address() adds a window's start to x once for the accesses within it
        return all(lo <= base + (cst + e) * size for e in range(1 if wide else n))

    def prologue(self):
        base = self.r.s[0:1]
        off = 0
        used = {ins.arg for ins in self.prog.instrs if ins.op in ("load", "store", "param")}
        for b in self.prog.buffers:
            if b.name not in used:      # unused arguments are not loaded (their slot stays)
                off += 8
                continue
            reg = self.sreg(2)
            self.emit("s_load_b64", reg, base, off)
            self.buf_ptr[b.name] = reg
            off += 8
        for v in self.prog.vars:
            if v.name not in used:
                off += 4
                continue
            reg = self.sreg()
            self.emit("s_load_b32", reg, base, off)
            self.var_reg[v.name] = reg
            off += 4
        self.kernarg_size = off
        for a in self.prog.locals:
            if a.space == "lds":
                self.lds_size = -(-self.lds_size // 16) * 16
                self.lds_base[a.name] = self.lds_size
                self.lds_size += a.size * a.dtype.itemsize

    def directives(self) -> dict:
        # denormals kept (IEEE results, as the CPU references compute them)
        d = {"user_sgpr_kernarg_segment_ptr": 1, "group_segment_fixed_size": self.lds_size,
             "float_denorm_mode_32": 3, "float_denorm_mode_16_64": 3,
             "system_vgpr_workitem_id": self.local_axes}
        for axis, name in enumerate("xyz"):
            d[f"system_sgpr_workgroup_id_{name}"] = int(axis in self.group_axes)
        return d

    # ------------------------------------------------------------ ids, params, consts

    def op_const(self, ins, i):
        return const(alu.held_const(ins.arg, ins.dtype), ins.dtype)

    def op_group_id(self, ins, i):
        return Val("s", ins.dtype, self.r.s[USER_SGPRS + self.group_axes.index(ins.arg[0])])

    def op_local_id(self, ins, i):
        axis, size = ins.arg
        out = self.vreg()
        v0 = self.r.v[0]
        if axis == 0:
            self.emit("v_and_b32", out, 0x3FF, v0)
        else:
            self.emit("v_bfe_u32", out, v0, 10 * axis, 10)
        return Val("v", ins.dtype, out)

    def op_param(self, ins, i):
        return Val("s", ins.dtype, self.var_reg[ins.arg])

    # ------------------------------------------------------------ vectors

    def op_vec(self, ins, i):
        return Val("vec", ins.dtype, parts=tuple(self.vals[s] for s in ins.srcs))

    def op_gep(self, ins, i):
        v = self.vals[ins.srcs[0]]
        if v.kind != "vec":
            raise self.error(f"gep of a non-vector {v.dtype}")
        return v.parts[ins.arg]

    # ------------------------------------------------------------ control flow

    def op_range(self, ins, i):
        self.addr_cache = {}
        bound = self.vals[ins.srcs[0]]
        if not bound.uniform:
            raise self.error("a loop bound that differs per lane is not supported")
        counter = self.sreg()
        body, done = self.label(), self.label()
        self.emit("s_mov_b32", counter, 0)
        if not (bound.kind == "c" and bound.value > 0):
            self.emit("s_cmp_ge_i32", counter, self.ssrc(bound))
            self.emit("s_cbranch_scc1", done)
        self.k.label(body)
        self.blocks.append(("range", i, counter, bound, body, done))
        return Val("s", ins.dtype, counter)

    def op_end(self, ins, i):
        self.addr_cache = {}
        kind, at, counter, bound, body, done = self.blocks.pop()
        self.emit("s_add_i32", counter, counter, 1)
        self.emit("s_cmp_lt_i32", counter, self.ssrc(bound))
        self.emit("s_cbranch_scc1", body)
        self.k.label(done)

    def op_if(self, ins, i):
        self.addr_cache = {}
        cond = self.vals[ins.srcs[0]]
        skip = self.label()
        if cond.kind == "c":
            if not cond.value:
                self.emit("s_branch", skip)
            self.blocks.append(("if", i, None, skip))
        elif cond.kind == "s":
            self.emit("s_cmp_eq_u32", cond.reg, 0)
            self.emit("s_cbranch_scc1", skip)
            self.blocks.append(("if", i, None, skip))
        else:
            saved = self.sreg(self.mask_dwords)
            self.emit(self.mask_op("s_and_saveexec_b32"), saved, self.mask(cond))
            self.emit("s_cbranch_execz", skip)
            self.blocks.append(("if", i, saved, skip))

    def op_endif(self, ins, i):
        self.addr_cache = {}
        kind, at, saved, skip = self.blocks.pop()
        self.k.label(skip)
        if saved is not None:
            self.emit(self.mask_op("s_mov_b32"), self.exec, saved)

    def op_barrier(self, ins, i):
        self.emit("s_barrier")

    def gated(self, gate: Val | None):
        """Narrow EXEC to the gate's lanes; returns what `ungate` needs."""
        if gate is None or (gate.kind == "c" and gate.value):
            return None
        saved = self.sreg(self.mask_dwords)
        self.emit(self.mask_op("s_and_saveexec_b32"), saved, self.mask(gate))
        return saved

    def ungate(self, saved):
        if saved is not None:
            self.emit(self.mask_op("s_mov_b32"), self.exec, saved)

    # ------------------------------------------------------------ memory

    def op_load(self, ins, i):
        arr = self.prog.array(ins.arg)
        idx = self.vals[ins.srcs[0]]
        gate, alt = (self.vals[ins.srcs[1]], self.vals[ins.srcs[2]]) if len(ins.srcs) == 3 else (None, None)
        if gate is not None and gate.kind == "c" and not gate.value:
            return alt
        space = getattr(arr, "space", "global")
        if space == "reg":
            if gate is not None:
                raise self.error("a gated load from a register array")
            return self.reg_load(ins, i, arr, idx)
        n = ins.dtype.count
        el = ins.dtype.element
        if space == "global" and gate is None and el.itemsize == 4 and n in (1, 2, 4) \
                and arr.name not in self.stored and self.uniform_index(ins.srcs[0], idx):
            return self.scalar_load(ins, arr, idx, n, el)
        if space == "global" and gate is None and el.itemsize == 2 and n in (2, 4, 8):
            return self.packed_load(ins, arr, idx, n, el)
        outs = [None] * n
        dwords = 2 if el.itemsize == 8 else 1
        wide = space == "global" and el.itemsize == 4 and n in (2, 3, 4)
        pair = space == "lds" and el.itemsize == 4 and n == 2 and gate is None
        # the destination is written by moves of the alternative value, then by the load
        # under the gate's EXEC: lanes outside the gate keep the alternative
        if pair:            # two dwords in one ds_load_2addr_b32 (offsets in dwords, 4-byte aligned)
            vaddr, off = self.address(arr, ins.srcs[0], idx, 0)
            if off % 4 == 0 and off // 4 + 1 <= DS_PAIR_OFFSET_MAX:
                dst = self.vreg(2)
                self.emit("ds_load_2addr_b32", dst, vaddr, offset0=off // 4, offset1=off // 4 + 1)
                return Val("vec", ins.dtype, parts=tuple(Val("v", el, dst[j]) for j in range(2)))
        if wide:
            dst = self.vreg(n)
            parts = [dst[j] for j in range(n)]
        else:
            parts = [self.vreg(dwords) for _ in range(n)]
        # narrow ints: the load extends as the held form does (u8/u16 zero, i8/i16 sign), so
        # with the alternative moved in its held form the result needs no extending again
        held = el.is_int and el.itemsize < 4
        if alt is not None:
            alts = alt.parts if alt.kind == "vec" else (alt,)
            for j in range(n):
                raw = alts[j] if held else alu.to_raw(self, alts[j])
                if dwords == 2:
                    for h in range(2):
                        self.emit("v_mov_b32", parts[j][h], self.vsrc(raw)[h] if raw.kind != "c" else alu.split64(raw)[h])
                else:
                    self.emit("v_mov_b32", parts[j], self.vsrc(raw))
        # addresses under the full EXEC (they may be reused by later instructions)
        addrs = [self.address(arr, ins.srcs[0], idx, j) for j in range(1 if wide else n)]
        saved = self.gated(gate)
        if wide:
            vaddr, off = addrs[0]
            self.emit(f"global_load_b{32 * n}", dst, vaddr, self.buf_ptr[arr.name], offset=off)
        else:
            for j in range(n):
                vaddr, off = addrs[j]
                name = _load_name(space, el)
                if space == "global":
                    self.emit(name, parts[j], vaddr, self.buf_ptr[arr.name], offset=off)
                else:
                    self.emit(name, parts[j], vaddr, offset=off)
        self.ungate(saved)
        for j in range(n):
            outs[j] = Val("v", el, parts[j]) if held else \
                alu.from_raw(self, Val("v", DType(el.scalar) if el.itemsize >= 4 else DType("u32"), parts[j]), el)
        return outs[0] if n == 1 else Val("vec", ins.dtype, parts=tuple(outs))

    def op_store(self, ins, i):
        arr = self.prog.array(ins.arg)
        idx, value = self.vals[ins.srcs[0]], self.vals[ins.srcs[1]]
        gate = self.vals[ins.srcs[2]] if len(ins.srcs) == 3 else None
        if gate is not None and gate.kind == "c" and not gate.value:
            return None
        space = getattr(arr, "space", "global")
        if space == "reg":
            if gate is not None:
                raise self.error("a gated store to a register array")
            return self.reg_store(arr, idx, value)
        vdt = self.prog.instrs[ins.srcs[1]].dtype
        n, el = vdt.count, vdt.element
        elems = value.parts if value.kind == "vec" else (value,)
        if space == "global" and el.itemsize == 2 and n in (2, 4, 8):
            data = self.packed(elems, el)
            vaddr, off = self.address(arr, ins.srcs[0], idx, 0)
            saved = self.gated(gate)
            self.emit(f"global_store_b{16 * n}", vaddr, data, self.buf_ptr[arr.name], offset=off)
            self.ungate(saved)
            return None
        raws = [alu.to_raw(self, e) for e in elems]
        wide = space == "global" and el.itemsize == 4 and n in (2, 3, 4)
        addrs = [self.address(arr, ins.srcs[0], idx, j) for j in range(1 if wide else n)]
        saved = self.gated(gate)
        if wide:
            data = self.vreg(n)
            for j, r in enumerate(raws):
                self.emit("v_mov_b32", data[j], self.vsrc(r))
            vaddr, off = addrs[0]
            self.emit(f"global_store_b{32 * n}", vaddr, data, self.buf_ptr[arr.name], offset=off)
        else:
            for j, r in enumerate(raws):
                vaddr, off = addrs[j]
                data = self.vgpr(r)
                name = _store_name(space, el)
                if space == "global":
                    self.emit(name, vaddr, data, self.buf_ptr[arr.name], offset=off)
                else:
                    self.emit(name, vaddr, data, offset=off)
        self.ungate(saved)

    def packed_load(self, ins, arr, idx: Val, n: int, el: DType) -> Val:
        """n 16-bit elements in one global_load_b{16n}, two to a dword; each is then widened
        to its held form from its half (one VALU instruction each, as from a 16-bit load)."""
        dst = self.vreg(n // 2)
        vaddr, off = self.address(arr, ins.srcs[0], idx, 0)
        self.emit(f"global_load_b{16 * n}", dst, vaddr, self.buf_ptr[arr.name], offset=off)
        outs = []
        for j in range(n):
            word, high = dst[j // 2], j % 2
            out = self.vreg()
            if el.scalar == "f16":
                self.emit("v_cvt_f32_f16", out, word.h if high else word.l)
            elif el.scalar == "bf16":
                if high:
                    self.emit("v_and_b32", out, 0xFFFF0000 - (1 << 32), word)
                else:
                    self.emit("v_lshlrev_b32", out, 16, word)
            else:
                self.emit("v_bfe_i32" if el.signed else "v_bfe_u32", out, word, 16 * high, 16)
            outs.append(Val("v", el, out, half=(word.h if high else word.l) if el.scalar == "f16" else None))
        return Val("vec", ins.dtype, parts=tuple(outs))

    def packed(self, elems, el: DType):
        """16-bit elements' memory bits, two to a dword: an f16 converted straight into its
        half, others' bits (alu.to_raw; an f16 an op rounded has them) joined by one
        v_perm_b32 per pair."""
        data = self.vreg(len(elems) // 2)
        for k in range(len(elems) // 2):
            a, b, word = elems[2 * k], elems[2 * k + 1], data[k]
            if a.kind == "c" and b.kind == "c":
                bits = alu.raw_bits(a) | alu.raw_bits(b) << 16
                self.emit("v_mov_b32", word, bits - (1 << 32) if bits >> 31 else bits)
            elif el.scalar == "f16" and a.kind != "c" and b.kind != "c" and a.bits is None and b.bits is None:
                self.emit("v_cvt_f16_f32", word.l, self.vsrc(a))
                self.emit("v_cvt_f16_f32", word.h, self.vsrc(b))
            else:       # bytes 0-1 of the low element, then bytes 0-1 of the high one
                lo, hi = alu.to_raw(self, a), alu.to_raw(self, b)
                self.valu("v_perm_b32", word, self.vsrc(hi), self.vsrc(lo), 0x05040100)
        return data

    def uniform_index(self, idx_id: int, idx: Val) -> bool:
        if idx.kind == "folded":        # x + c with c in the immediate: uniform when x is
            return all(self.vals[x].uniform for x in self.prog.instrs[idx_id].srcs)
        return idx.uniform

    def scalar_load(self, ins, arr, idx: Val, n: int, el: DType) -> Val:
        """A load every lane makes from the same address, from a buffer this kernel never
        stores to (the scalar cache is not kept coherent with vector stores): SMEM into SGPRs."""
        soff, imm = self.scalar_offset(ins.srcs[0], idx, el.itemsize)
        dst = self.sreg(n)
        name, base = f"s_load_b{32 * n}", self.buf_ptr[arr.name]
        if soff is None:
            self.emit(name, dst, base, imm)
        elif imm:
            self.emit(name, dst, base, soff, offset=imm)
        else:
            self.emit(name, dst, base, soff)
        if n == 1:
            return Val("s", el, dst)
        return Val("vec", ins.dtype, parts=tuple(Val("s", el, dst[j]) for j in range(n)))

    def scalar_offset(self, idx_id: int, idx: Val, size: int):
        """(SGPR byte offset or None, immediate byte offset >= 0) of a uniform index."""
        cst, rest, rest_id = 0, idx, idx_id
        if idx.kind == "c":
            cst, rest = int(idx.value), None
        elif idx.kind == "folded":
            a, b = self.prog.instrs[idx_id].srcs
            rest_id, other = (a, b) if self.vals[b].kind == "c" else (b, a)
            rest, cst = self.vals[rest_id], int(self.vals[other].value)
        if not 0 <= cst * size < SMEM_OFFSET_LIMIT:   # a negative or far constant: in the SGPR
            if rest is None:
                t = self.sreg()
                self.emit("s_mov_b32", t, cst * size)
                return t, 0
            t = self.sreg()
            self.emit("s_add_i32", t, self.ssrc(rest), cst)
            cst, rest, rest_id = 0, Val("s", rest.dtype, t), None
        if rest is None:
            return None, cst * size
        key = ("s", rest_id, size)
        if rest_id is not None and key in self.addr_cache:
            return self.addr_cache[key], cst * size
        t = self.sreg()
        self.emit("s_lshl_b32", t, self.ssrc(rest), size.bit_length() - 1)
        if rest_id is not None:
            self.addr_cache[key] = t
        return t, cst * size

    def address(self, arr, idx_id: int, idx: Val, element: int):
        """(VGPR byte offset, immediate offset) for element `element` past index `idx`:
        a constant part of the index goes into the immediate when what is left is known
        not to be negative (the VGPR offset of GLOBAL with an SGPR base is unsigned)."""
        size = arr.dtype.itemsize
        space = getattr(arr, "space", "global")
        base = self.lds_base.get(arr.name, 0)
        lo, hi = GLOBAL_OFFSET if space == "global" else (0, DS_OFFSET_MAX)
        cst, rest, rest_id = 0, idx, idx_id
        if idx.kind == "c":
            cst, rest, rest_id = int(idx.value), None, None
        else:
            ins = self.prog.instrs[idx_id]
            if ins.op == "add":
                a, b = ins.srcs
                va, vb = self.vals[a], self.vals[b]
                if vb.kind == "c" and self.nonneg.get(a) and not va.kind == "c":
                    cst, rest, rest_id = int(vb.value), va, a
                elif va.kind == "c" and self.nonneg.get(b):
                    cst, rest, rest_id = int(va.value), vb, b
        imm = base + (cst + element) * size
        if imm > hi and rest is not None:
            # past the immediate's reach: one add of the window's start (a multiple of hi + 1)
            # to the byte offset serves every access within the window, e.g. an unrolled loop's
            window = imm - imm % (hi + 1)
            key = (rest_id, size, window)
            if key not in self.addr_cache:
                start = self.byte_offset(rest_id, rest, size)
                self.addr_cache[key] = self.vreg()
                self.valu("v_add_nc_u32", self.addr_cache[key], window, start)
            return self.addr_cache[key], imm - window
        if not lo <= imm <= hi:
            imm, rest, rest_id = base + element * size, idx, idx_id
            if not lo <= imm <= hi:
                raise self.error(f"offset {imm} of {arr.name} does not fit the instruction")
        return self.byte_offset(rest_id, rest, size), imm

    def byte_offset(self, rest_id, rest: Val | None, size: int):
        """VGPR with index `rest` (None: 0) times `size`; the same byte offset serves every
        access in this block (computed under full EXEC)."""
        key = (rest_id, size)
        if key in self.addr_cache:
            return self.addr_cache[key]
        if rest is None:
            vaddr = self.vreg()
            self.emit("v_mov_b32", vaddr, 0)
        else:
            vaddr = self.vreg()
            shift = size.bit_length() - 1
            src = self.vsrc(alu.as32(self, rest))
            if shift:
                self.valu("v_lshlrev_b32", vaddr, shift, src)
            else:
                self.emit("v_mov_b32", vaddr, src)
        self.addr_cache[key] = vaddr
        return vaddr

    # ------------------------------------------------------------ register arrays

    def reg_elements(self, arr):
        if arr.name not in self.regs:
            dw = 2 if arr.dtype.itemsize == 8 else 1
            self.regs[arr.name] = [self.vreg(dw) for _ in range(arr.size)]
        return self.regs[arr.name]

    def reg_index(self, arr, idx: Val) -> int:
        if idx.kind != "c":
            raise self.error(f"register array {arr.name} indexed by a computed value")
        if not 0 <= idx.value < arr.size:
            raise self.error(f"index {idx.value} outside register array {arr.name}[{arr.size}]")
        return int(idx.value)

    def reg_load(self, ins, i, arr, idx):
        if ins.dtype.count != 1:
            raise self.error("a vector load from a register array")
        reg = self.reg_elements(arr)[self.reg_index(arr, idx)]
        if i in self.copy_on_load:     # the element is stored again while this value is still read
            out = self.vreg(2 if arr.dtype.itemsize == 8 else 1)
            for h in range(2 if arr.dtype.itemsize == 8 else 1):
                self.emit("v_mov_b32", out[h] if arr.dtype.itemsize == 8 else out, reg[h] if arr.dtype.itemsize == 8 else reg)
            reg = out
        return Val("v", arr.dtype, reg)

    def reg_store(self, arr, idx, value: Val):
        if value.kind == "vec":
            raise self.error("a vector store to a register array")
        reg = self.reg_elements(arr)[self.reg_index(arr, idx)]
        if arr.dtype.itemsize != 8 and self.retarget_last(value, reg):
            return
        if arr.dtype.itemsize == 8:
            src = self.vsrc(value) if value.kind != "c" else None
            for h in range(2):
                self.emit("v_mov_b32", reg[h], alu.split64(value)[h] if value.kind == "c" else src[h])
        else:
            self.emit("v_mov_b32", reg, self.vsrc(value))


    def retarget_last(self, value: Val, reg, window: int = 8) -> bool:
        """Store `value` into the register-array element `reg` by making the instruction that
        computed it (among the last `window` emitted) write `reg` instead of a temporary. Only
        when the IR value has no use but this store, that instruction is a VALU op that does
        not read the temporary, and everything after it is VALU (no EXEC change) touching
        neither register, with no label (a join) in between. Saves the v_mov of an accumulator
        update; the instruction may read `reg`'s old value (a VALU reads before it writes)."""
        st_ins = self.prog.instrs[self.cur]
        if value.kind != "v" or self.uses.get(st_ins.srcs[1], 0) != 1 or not isinstance(value.reg, VReg):
            return False
        items, tmp = self.k.items, value.reg.vid
        roles = self.k.spec.traits.roles
        labels = set(self.k.labels.values())
        for pos in range(len(items) - 1, max(len(items) - 1 - window, -1), -1):
            if pos + 1 in labels:
                return False
            st = getattr(items[pos], "instr", None)
            d = items[pos].record.definition if st is not None and items[pos].record is not None else None
            # a VALU instruction by its format's role that leaves EXEC as it was: no v_cmpx (a compare
            # writing EXEC, dsl.signature; WMMA sets EXEC only while it runs)
            if d is None or st.dual is not None or d.format not in roles.valu or valu_signature(d).is_cmpx:
                return False
            if st.operands and st.operands[0] == value.reg:
                if any(_touches(o, tmp) for o in st.operands[1:]):
                    return False
                try:
                    new = type(items[pos])(dataclasses.replace(st, operands=(reg, *st.operands[1:])), items[pos].encoder)
                except ValueError:
                    return False
                items[pos] = new
                return True
            if any(_touches(o, tmp) or _touches(o, reg.vid) for o in st.operands):
                return False
        return False


def _touches(operand, vid: int) -> bool:
    v = getattr(operand, "value", operand)       # a Mod (neg/abs) wraps its register
    return isinstance(v, VReg) and v.vid == vid


def _is_sgpr(x) -> bool:
    cls = getattr(x, "cls", None)
    return cls == "s"


def _inline(x) -> bool:
    """An inline constant (free on the constant bus); 1/(2*pi) is left out (not on every target)."""
    if isinstance(x, int):
        return -16 <= x <= 64
    return x in (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0) or (x == 0.0 and math.copysign(1, x) > 0)


def _load_name(space: str, el: DType) -> str:
    pre = "global_load_" if space == "global" else "ds_load_"
    if el.itemsize == 1:
        return pre + ("i8" if el.kind == "i" else "u8")
    if el.itemsize == 2:
        return pre + ("i16" if el.kind == "i" else "u16")
    return pre + ("b32" if el.itemsize == 4 else "b64")


def _store_name(space: str, el: DType) -> str:
    pre = "global_store_" if space == "global" else "ds_store_"
    return pre + {1: "b8", 2: "b16", 4: "b32", 8: "b64"}[el.itemsize]


def _nonneg(p: Program) -> dict[int, bool]:
    """Values known never to be negative (so an index can give up a constant part)."""
    out: dict[int, bool] = {}
    for i, ins in enumerate(p.instrs):
        if ins.dtype is None or ins.dtype.count != 1:
            continue
        s = [out.get(x, False) for x in ins.srcs]
        op = ins.op
        if ins.dtype.kind == "u":
            r = True
        elif op == "const":
            r = ins.dtype.kind != "f" and ins.arg >= 0
        elif op in ("group_id", "local_id", "range"):
            r = True
        elif op == "param":
            r = next(v.lo for v in p.vars if v.name == ins.arg) >= 0
        elif op in ("add", "mul", "mulacc", "max", "idiv", "mod", "shr", "shl"):
            r = all(s)
        elif op == "and":
            r = any(s)
        else:
            r = False
        out[i] = r
    return out


def _reg_loads_needing_copies(p: Program) -> set[int]:
    """Loads from register arrays whose element is stored again before the loaded value's
    last use: those loads copy the element; the others read its register in place."""
    last_use: dict[int, int] = {}
    for i, ins in enumerate(p.instrs):
        for s in ins.srcs:
            last_use[s] = i
    regs = {a.name for a in p.locals if a.space == "reg"}
    out = set()
    for i, ins in enumerate(p.instrs):
        if ins.op != "load" or ins.arg not in regs:
            continue
        end = last_use.get(i, i)
        for j in range(i + 1, end + 1):
            st = p.instrs[j]
            if st.op == "store" and st.arg == ins.arg:
                a, b = p.instrs[st.srcs[0]], p.instrs[ins.srcs[0]]
                if a.op != "const" or b.op != "const" or a.arg == b.arg:
                    out.add(i)
                    break
    return out

"""End-to-end random programs for the register allocator.

`Generator(seed).build()` writes a random DSL kernel in virtual registers and, beside it, a
structured description of the same program; `interpret()` runs that description with numpy,
lane by lane under an EXEC mask of its own (if/else under s_and_saveexec, loops whose trip
count differs per lane, values written under a mask inside them), knowing nothing of the
allocator or the emulator; `run_on_emulator()` allocates, builds a code object and runs it on
`Device("emu")`; `check(seed)` compares every stored dword in every lane where the
interpreter says the value is defined.

Instruction classes covered: VALU integer and float (VOP1/VOP2/VOP3), VOP3SD carry ops
(v_add_co_u32 / v_add_co_ci_u32 with SGPR carries), multi-output v_mad_u64_u32, 64-bit VGPR
and SGPR values and parts of them, v_cmp into SGPRs / VCC, v_cndmask, v_cmpx, VOPD pairs
(both halves, v_dual_fmac_f32 accumulators, fmaak/fmamk, cndmask on VCC, Y-only integer
ops), SALU (32/64-bit, carries through SCC, s_cselect), v_readfirstlane / v_readlane /
v_writelane, global loads of 1/2/4 dwords and D16 half loads, LDS stores and loads, s_load.

Floats are kept integer valued and small (products of bytes, sums of those), so float32
arithmetic is exact and numpy's results are the hardware's bit for bit."""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

import numpy as np

from dsl.rdna3 import *  # noqa: F403

LANES, WAVES = 32, 2
ROW = 16            # input dwords per work-item
OUT = 64            # output dwords per work-item
MASK32 = np.uint32(0xFFFFFFFF)


@dataclass
class Val:
    reg: object          # the VReg
    file: str            # 'v' or 's'
    width: int
    kind: str            # 'u' integer, 'fs' small float (a byte), 'fa' float sum, 'm' lane mask
    fixed: bool = False  # never rewritten (branch conditions read it)

    def part(self, j: int):
        return self.reg if self.width == 1 else self.reg[j]


# ---------------------------------------------------------------- interpreter state

class Wave:
    """One wave's state in the interpreter: values per dword and lane, with a defined flag."""

    def __init__(self, wave: int, inp: np.ndarray):
        self.tid = np.arange(wave * LANES, (wave + 1) * LANES, dtype=np.uint32)
        self.inp = inp.reshape(-1, ROW)
        self.exec = np.ones(LANES, bool)
        self.v: dict[int, np.ndarray] = {}
        self.vd: dict[int, np.ndarray] = {}
        self.s: dict[int, np.ndarray] = {}
        self.sd: dict[int, np.ndarray] = {}
        self.vcc = np.zeros(LANES, bool)
        self.vcc_d = False
        self.lds = np.zeros((8, LANES), np.uint32)
        self.lds_d = np.zeros((8, LANES), bool)
        self.out = np.zeros((OUT, LANES), np.uint32)
        self.out_d = np.zeros((OUT, LANES), bool)

    def _ensure(self, x: Val):
        if x.file == "v" and x.reg.vid not in self.v:
            self.v[x.reg.vid] = np.zeros((x.width, LANES), np.uint32)
            self.vd[x.reg.vid] = np.zeros((x.width, LANES), bool)
        if x.file == "s" and x.reg.vid not in self.s:
            self.s[x.reg.vid] = np.zeros(x.width, np.uint32)
            self.sd[x.reg.vid] = np.zeros(x.width, bool)

    def read(self, op) -> tuple[np.ndarray, np.ndarray]:
        """A 32-bit source as (values, defined) per lane."""
        if isinstance(op, int):
            return np.full(LANES, op & 0xFFFFFFFF, np.uint32), np.ones(LANES, bool)
        if isinstance(op, float):
            return np.full(LANES, np.float32(op), np.float32).view(np.uint32), np.ones(LANES, bool)
        if op == "tid":
            return self.tid.copy(), np.ones(LANES, bool)
        x, j = op
        self._ensure(x)
        if x.file == "v":
            return self.v[x.reg.vid][j].copy(), self.vd[x.reg.vid][j].copy()
        return np.full(LANES, self.s[x.reg.vid][j], np.uint32), np.full(LANES, self.sd[x.reg.vid][j], bool)

    def write_v(self, x: Val, j: int, value, defined, lanes=None):
        self._ensure(x)
        lanes = self.exec if lanes is None else lanes
        self.v[x.reg.vid][j][lanes] = np.asarray(value, np.uint32)[lanes]
        self.vd[x.reg.vid][j][lanes] = np.asarray(defined, bool)[lanes]

    def read_s(self, op) -> tuple[int, bool]:
        if isinstance(op, int):
            return op & 0xFFFFFFFF, True
        x, j = op
        self._ensure(x)
        return int(self.s[x.reg.vid][j]), bool(self.sd[x.reg.vid][j])

    def write_s(self, x: Val, j: int, value: int, defined: bool):
        self._ensure(x)
        self.s[x.reg.vid][j] = value & 0xFFFFFFFF
        self.sd[x.reg.vid][j] = defined

    def mask_of(self, x: Val) -> tuple[np.ndarray, bool]:
        value, defined = self.read_s((x, 0))
        return (value >> np.arange(LANES, dtype=np.uint32)) & 1 == 1, defined

    def mask_value(self, bits: np.ndarray) -> int:
        return int(np.sum(bits.astype(np.uint64) << np.arange(LANES, dtype=np.uint64)))


def f32(a: np.ndarray) -> np.ndarray:
    return a.view(np.float32)


def u32(a) -> np.ndarray:
    return np.asarray(a, np.float32).view(np.uint32)


# ---------------------------------------------------------------- operation semantics

INT_OPS = {
    "v_add_nc_u32": lambda a, b: a + b,
    "v_sub_nc_u32": lambda a, b: a - b,
    "v_xor_b32": lambda a, b: a ^ b,
    "v_and_b32": lambda a, b: a & b,
    "v_or_b32": lambda a, b: a | b,
    "v_mul_lo_u32": lambda a, b: (a.astype(np.uint64) * b & 0xFFFFFFFF).astype(np.uint32),
    "v_max_u32": np.maximum,
    "v_min_u32": np.minimum,
    "v_lshlrev_b32": lambda a, b: b << (a & 31),
    "v_lshrrev_b32": lambda a, b: b >> (a & 31),
}
FLOAT_OPS = {       # name: (function on float32, operands must be small floats)
    "v_add_f32": (lambda a, b: a + b, False),
    "v_mul_f32": (lambda a, b: a * b, True),
    "v_max_f32": (np.maximum, False),
    "v_min_f32": (np.minimum, False),
}
SALU_OPS = {
    "s_add_u32": lambda a, b: a + b,
    "s_xor_b32": lambda a, b: a ^ b,
    "s_and_b32": lambda a, b: a & b,
    "s_mul_i32": lambda a, b: a * b,
    "s_lshl_b32": lambda a, b: a << (b & 31),
    "s_max_u32": max,
}
VOPD_X = ["v_dual_mul_f32", "v_dual_add_f32", "v_dual_fmac_f32", "v_dual_mov_b32", "v_dual_max_f32",
          "v_dual_cndmask_b32", "v_dual_fmaak_f32", "v_dual_fmamk_f32"]
VOPD_Y = VOPD_X + ["v_dual_add_nc_u32", "v_dual_and_b32", "v_dual_lshlrev_b32"]


@dataclass
class Step:
    """One instruction group: how to write it into the kernel and what it does per lane."""
    emit: object
    run: object


@dataclass
class If:
    seed: Val           # lanes where seed > threshold take the then-side
    threshold: int
    cond: Val
    save: Val
    then: list
    other: list
    skip: bool      # s_cbranch_execz around empty sides


@dataclass
class DivLoop:
    counter: Val
    save: Val
    seed: Val
    body: list
    cmpx: bool       # exit through v_cmpx, else v_cmp + s_and_b32 exec


@dataclass
class UniLoop:
    counter: Val
    trips: int
    body: list


@dataclass
class UniIf:
    seed: Val
    limit: int
    body: list


# ---------------------------------------------------------------- generator

class Generator:
    def __init__(self, seed: int, size: int = 90, max_vgprs: int | None = None, max_sgprs: int | None = None):
        self.rng = random.Random(seed)
        self.k = Kernel("gfx1100", name="fuzz", max_vgprs=max_vgprs, max_sgprs=max_sgprs)
        self.size = size
        self.steps = 0
        self.labels = 0
        self.vals: list[Val] = []
        self.residue: dict = {}       # VOPD rules so far: str(vid) -> register mod 4 that satisfies them

    # values ---------------------------------------------------------------

    def new(self, file: str, width: int = 1, kind: str = "u") -> Val:
        reg = self.k.vreg(width) if file == "v" else self.k.sreg(width)
        x = Val(reg, file, width, kind)
        self.vals.append(x)
        return x

    def pick(self, file: str, kinds, width: int | None = None, exclude=()) -> Val | None:
        pool = [x for x in self.vals if x.file == file and x.kind in kinds and (width is None or x.width == width)
                and x not in exclude]
        return self.rng.choice(pool) if pool else None

    def vsrc(self, kinds=("u",), allow_s=True, allow_c=True, exclude=()):
        """A 32-bit VALU source: (Val, dword), an inline constant, or the work-item id."""
        rng = self.rng
        r = rng.random()
        if allow_c and r < 0.12:
            if "u" in kinds:
                return rng.choice([0, 1, 3, 7, 13, 64, -1, -16])
            return rng.choice([1.0, 2.0, 4.0])
        if "u" in kinds and r < 0.18:
            return "tid"
        if allow_s and r < 0.3:
            x = self.pick("s", kinds if "u" in kinds else ())
            if x is not None:
                return (x, rng.randrange(x.width))
        x = self.pick("v", kinds, exclude=exclude)
        if x is None:
            return 1.0 if "u" not in kinds else 5
        return (x, self.rng.randrange(x.width))

    def dst(self, file: str, kind: str, fresh: float = 0.5) -> tuple[Val, int]:
        """A destination dword: a new value, or (sometimes) a rewrite of an existing one."""
        if self.rng.random() > fresh:
            old = [x for x in self.vals if x.file == file and x.kind == kind and not x.fixed and x.width == 1]
            if old:
                x = self.rng.choice(old)
                return x, self.rng.randrange(x.width)
        return self.new(file, 1, kind), 0

    def dsl(self, op):
        if isinstance(op, tuple):
            return op[0].part(op[1])
        if op == "tid":
            return v[0]
        return op

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    # instruction groups ---------------------------------------------------

    def int_op(self) -> Step:
        name = self.rng.choice(list(INT_OPS))
        a, b = self.vsrc(), self.vsrc(allow_c=False)
        d, j = self.dst("v", "u")
        fn = globals()[name]
        dd = self.dsl

        def run(w: Wave):
            (x, xd), (y, yd) = w.read(a), w.read(b)
            w.write_v(d, j, INT_OPS[name](x, y), xd & yd)
        return Step(lambda k: k.append(fn(d.part(j), dd(a), dd(b))), run)

    def float_op(self) -> Step:
        rng = self.rng
        r = rng.random()
        if r < 0.3:
            a = self.vsrc(allow_c=False)
            d, j = self.dst("v", "fs")

            def run(w: Wave):
                x, xd = w.read(a)
                w.write_v(d, j, u32((x & 0xFF).astype(np.float32)), xd)
            return Step(lambda k: k.append(v_cvt_f32_ubyte0(d.part(j), self.dsl(a))), run)
        if r < 0.45:
            acc = self.pick("v", ("fa",))
            if acc is None:
                acc = self.new("v", 1, "fa")
                init = Step(lambda k: k.append(v_mov_b32(acc.reg, 0)), lambda w: w.write_v(acc, 0, np.zeros(LANES), np.ones(LANES, bool)))
            else:
                init = None
            a, b = self.vsrc(("fs",), allow_s=False), self.vsrc(("fs",), allow_s=False, allow_c=False)
            j = rng.randrange(acc.width)

            def run(w: Wave):
                (x, xd), (y, yd), (c, cd) = w.read(a), w.read(b), w.read((acc, j))
                w.write_v(acc, j, u32(f32(x) * f32(y) + f32(c)), xd & yd & cd)
            step = Step(lambda k: k.append(v_fmac_f32(acc.part(j), self.dsl(a), self.dsl(b))), run)
            return [init, step] if init else step
        if r < 0.55:
            a = self.vsrc(("fs", "fa"), allow_s=False, allow_c=False)
            d, j = self.dst("v", "u")

            def run(w: Wave):
                x, xd = w.read(a)
                w.write_v(d, j, np.clip(f32(x), 0, 4294967295.0).astype(np.uint32), xd)
            return Step(lambda k: k.append(v_cvt_u32_f32(d.part(j), self.dsl(a))), run)
        name = rng.choice(list(FLOAT_OPS))
        fn, small = FLOAT_OPS[name]
        kinds = ("fs",) if small else ("fs", "fa")
        a, b = self.vsrc(kinds, allow_s=False), self.vsrc(kinds, allow_s=False, allow_c=False)
        d, j = self.dst("v", "fa")
        dsl_fn = globals()[name]

        def run(w: Wave):
            (x, xd), (y, yd) = w.read(a), w.read(b)
            w.write_v(d, j, u32(fn(f32(x), f32(y))), xd & yd)
        return Step(lambda k: k.append(dsl_fn(d.part(j), self.dsl(a), self.dsl(b))), run)

    def compare_select(self) -> list:
        a, b = self.vsrc(allow_c=False), self.vsrc()
        c = self.new("s", 1, "m")
        x, y = self.vsrc(), self.vsrc(allow_s=False, allow_c=False)     # the mask is the second scalar read
        d, j = self.dst("v", "u")

        def cmp(w: Wave):
            (p, pd), (q, qd) = w.read(a), w.read(b)
            bits = (p > q) & w.exec
            w.write_s(c, 0, w.mask_value(bits), bool(np.all((pd & qd)[w.exec])))

        def sel(w: Wave):
            (p, pd), (q, qd) = w.read(x), w.read(y)
            bits, cd = w.mask_of(c)
            w.write_v(d, j, np.where(bits, q, p), np.where(bits, qd, pd) & cd)
        return [Step(lambda k: k.append(v_cmp_gt_u32(c.reg, self.dsl(a), self.dsl(b))), cmp),
                Step(lambda k: k.append(v_cndmask_b32(d.part(j), self.dsl(x), self.dsl(y), c.reg)), sel)]

    def wide(self) -> list | Step:
        rng = self.rng
        r = rng.random()
        if r < 0.35:                        # v_mad_u64_u32: 64-bit result and a carry out
            a, b = self.vsrc(allow_c=False), self.vsrc()
            c = self.pick("v", ("u",), 2) if rng.random() < 0.7 else None
            d = self.new("v", 2)
            carry = self.new("s", 1, "m") if rng.random() < 0.5 else None

            def run(w: Wave):
                (x, xd), (y, yd) = w.read(a), w.read(b)
                if c is not None:
                    (lo, ld), (hi, hd) = w.read((c, 0)), w.read((c, 1))
                    add, addd = lo.astype(np.uint64) | hi.astype(np.uint64) << np.uint64(32), ld & hd
                else:
                    add, addd = np.zeros(LANES, np.uint64), np.ones(LANES, bool)
                full = [int(p) * int(q) + int(s) for p, q, s in zip(x, y, add)]
                ok = xd & yd & addd
                w.write_v(d, 0, np.array([f & 0xFFFFFFFF for f in full], np.uint32), ok)
                w.write_v(d, 1, np.array([f >> 32 & 0xFFFFFFFF for f in full], np.uint32), ok)
                if carry is not None:
                    bits = np.array([f >> 64 & 1 for f in full], bool) & w.exec
                    w.write_s(carry, 0, w.mask_value(bits), bool(np.all(ok[w.exec])))
            return Step(lambda k: k.append(v_mad_u64_u32(d.reg, carry.reg if carry else null, self.dsl(a),
                                                         self.dsl(b), c.reg if c else 0)), run)
        if r < 0.6:                         # 64-bit add through a carry SGPR
            a, b = self.pick("v", ("u",), 2), self.pick("v", ("u",), 2)
            if a is None or b is None:
                return self.int_op()
            d = self.new("v", 2)
            c1, c2 = self.new("s", 1, "m"), self.new("s", 1, "m")

            def lo(w: Wave):
                (x, xd), (y, yd) = w.read((a, 0)), w.read((b, 0))
                t = x.astype(np.uint64) + y
                w.write_v(d, 0, t.astype(np.uint32), xd & yd)
                w.write_s(c1, 0, w.mask_value((t >> np.uint64(32) == 1) & w.exec), bool(np.all((xd & yd)[w.exec])))

            def hi(w: Wave):
                (x, xd), (y, yd) = w.read((a, 1)), w.read((b, 1))
                cin, cd = w.mask_of(c1)
                t = x.astype(np.uint64) + y + cin
                w.write_v(d, 1, t.astype(np.uint32), xd & yd & cd)
                w.write_s(c2, 0, w.mask_value((t >> np.uint64(32) == 1) & w.exec), bool(np.all((xd & yd)[w.exec])) and cd)
            return [Step(lambda k: k.append(v_add_co_u32(d.reg[0], c1.reg, a.reg[0], b.reg[0])), lo),
                    Step(lambda k: k.append(v_add_co_ci_u32(d.reg[1], c2.reg, a.reg[1], b.reg[1], c1.reg)), hi)]
        if r < 0.75:                        # 64-bit shift
            a = self.pick("v", ("u",), 2)
            if a is None:
                return self.int_op()
            sh = rng.randrange(64)
            d = self.new("v", 2)

            def run(w: Wave):
                (lo, ld), (hi, hd) = w.read((a, 0)), w.read((a, 1))
                t = (lo.astype(np.uint64) | hi.astype(np.uint64) << np.uint64(32)) << np.uint64(sh)
                w.write_v(d, 0, t.astype(np.uint32), ld & hd)
                w.write_v(d, 1, (t >> np.uint64(32)).astype(np.uint32), ld & hd)
            return Step(lambda k: k.append(v_lshlrev_b64(d.reg, sh, a.reg)), run)
        # a tuple built dword by dword
        width = rng.choice([2, 2, 4])
        d = self.new("v", width)
        steps = []
        for j in range(width):
            a = self.vsrc()

            def run(w: Wave, a=a, j=j):
                x, xd = w.read(a)
                w.write_v(d, j, x, xd)
            steps.append(Step(lambda k, a=a, j=j: k.append(v_mov_b32(d.reg[j], self.dsl(a))), run))
        return steps

    def vopd(self) -> list | Step:
        rng = self.rng
        pre = []
        halves = []
        used_src: list = []
        dsts: list = []
        for slot, names in (("X", VOPD_X), ("Y", VOPD_Y)):
            name = rng.choice(names)
            if name == "v_dual_cndmask_b32" and not pre:
                a, b = self.vsrc(allow_c=False), self.vsrc()

                def cmp(w: Wave, a=a, b=b):
                    (p, pd), (q, qd) = w.read(a), w.read(b)
                    w.vcc, w.vcc_d = (p > q) & w.exec, bool(np.all((pd & qd)[w.exec]))
                pre.append(Step(lambda k, a=a, b=b: k.append(v_cmp_gt_u32(vcc_lo, self.dsl(a), self.dsl(b))), cmp))
            halves.append(self._vopd_half(name, dsts, used_src))
        (fx, ex, rx, px), (fy, ey, ry, py) = halves
        if not self._vopd_satisfiable(px, py):
            return self.int_op()

        def run(w: Wave):
            outs = [rx(w), ry(w)]          # both halves read before either writes
            for d, j, value, defined in outs:
                w.write_v(d, j, value, defined)
        step = Step(lambda k: k.append(vopd(ex(), ey())), run)
        return pre + [step]

    def _vopd_half(self, name, dsts: list, used_src: list):
        """(name, emit part, run part) of one VOPD half with operands that keep the pair
        satisfiable: distinct destinations, no destination read by the other half, the two
        SRC0s and the two VSRC1s different values."""
        rng = self.rng
        busy = [d for d, _ in dsts]
        taken = [op[0] for op in used_src if isinstance(op, tuple)]

        def src0(kinds):
            for _ in range(8):
                op = self.vsrc(kinds, exclude=busy)
                if op == "tid" and "tid" in used_src[:1]:
                    continue            # both SRC0s in v0: one bank, which VOPD cannot read
                if not (isinstance(op, tuple) and (op[0] in busy or (op[0].file == "v" and
                                                                      any(op == u for u in used_src[:1])))):
                    return op
            return 1.0 if "u" not in kinds else 3

        def vsrc1(kinds):
            for _ in range(8):
                x = self.pick("v", kinds, exclude=busy)
                if x is not None and x not in busy and (len(used_src) < 2 or used_src[1] != (x, 0)):
                    return (x, rng.randrange(x.width))
            return None

        fsk, anyf = ("fs",), ("fs", "fa")
        kinds_d = {"v_dual_add_nc_u32": "u", "v_dual_and_b32": "u", "v_dual_lshlrev_b32": "u"}.get(name, "fa")
        if name in ("v_dual_mov_b32", "v_dual_cndmask_b32"):
            kinds_d = rng.choice(["u", "fa"])
        ks = ("u",) if kinds_d == "u" else (fsk if name in ("v_dual_mul_f32", "v_dual_fmac_f32", "v_dual_fmaak_f32",
                                                              "v_dual_fmamk_f32") else anyf)
        a = src0(ks)
        b = vsrc1(ks) if name != "v_dual_mov_b32" else None
        if b is None and name != "v_dual_mov_b32":
            name, b = "v_dual_mov_b32", None
            a = src0(("u",)) if kinds_d == "u" else src0(anyf)
        if name == "v_dual_fmac_f32":
            accs = [x for x in self.vals if x.file == "v" and x.kind == "fa" and x not in busy and x.width == 1
                    and x not in [op[0] for op in (a, b) if isinstance(op, tuple)] and x not in taken]
            if not accs:
                name = "v_dual_mul_f32"
            else:
                d, j = rng.choice(accs), 0
        if name != "v_dual_fmac_f32":
            for _ in range(4):
                d, j = self.dst("v", kinds_d)
                if d not in busy and d not in [op[0] for op in used_src + [a, b] if isinstance(op, tuple)]:
                    break
            else:
                d, j = self.new("v", 1, kinds_d), 0
        dsts.append((d, j))
        used_src += [a, b]
        K = 3.0
        dsl_fn = globals()[name]
        dl = self.dsl

        def emit():
            if name == "v_dual_mov_b32":
                return dsl_fn(d.part(j), dl(a))
            if name == "v_dual_fmaak_f32":
                return dsl_fn(d.part(j), dl(a), dl(b), K)
            if name == "v_dual_fmamk_f32":
                return dsl_fn(d.part(j), dl(a), K, dl(b))
            return dsl_fn(d.part(j), dl(a), dl(b))

        def run(w: Wave):
            x, xd = w.read(a)
            y, yd = w.read(b) if b is not None else (x, xd)
            fx, fy = f32(x), f32(y)
            ok = xd & yd
            if name == "v_dual_mov_b32":
                r = x
            elif name == "v_dual_mul_f32":
                r = u32(fx * fy)
            elif name == "v_dual_add_f32":
                r = u32(fx + fy)
            elif name == "v_dual_max_f32":
                r = u32(np.maximum(fx, fy))
            elif name == "v_dual_fmac_f32":
                c, cd = w.read((d, j))
                r, ok = u32(fx * fy + f32(c)), ok & cd
            elif name == "v_dual_fmaak_f32":
                r = u32(fx * fy + np.float32(K))
            elif name == "v_dual_fmamk_f32":
                r = u32(fx * np.float32(K) + fy)
            elif name == "v_dual_cndmask_b32":
                r, ok = np.where(w.vcc, y, x), np.where(w.vcc, yd, xd) & w.vcc_d
            elif name == "v_dual_add_nc_u32":
                r = x + y
            elif name == "v_dual_and_b32":
                r = x & y
            else:
                r = y << (x & 31)
            return d, j, r, ok
        ports = {"vdst": (d, j), "src0": a, "src1": b, "src2": None}
        if name == "v_dual_fmac_f32":
            ports["src2"] = (d, j)
        elif name == "v_dual_fmamk_f32":
            ports["src2"], ports["src1"] = b, None
        return name, emit, run, ports

    def _vopd_satisfiable(self, px: dict, py: dict) -> bool:
        """Keep the program allocatable: VOPD needs the destinations and the SRC2-port reads
        of the two halves of opposite parity and their SRC0s / VSRC1s in different banks
        (register mod 4). The generator fixes a residue mod 4 for every value a rule has
        touched and accepts a pair only if residues for its new values satisfy every rule
        so far -- the rules of all pairs together can be contradictory even when each pair
        alone is fine."""
        def key(op):
            return (op[0].reg.vid, op[1]) if isinstance(op, tuple) and op[0].file == "v" else None
        rules = []
        for port, m in (("vdst", 2), ("src0", 4), ("src1", 4), ("src2", 2)):
            a, b = key(px[port]), key(py[port])
            if a is not None and b is not None:
                if a == b:
                    return False
                rules.append((a, b, m))
        if not rules:
            return True
        new = sorted({str(x[0]) for a, b, _ in rules for x in (a, b)} - set(self.residue))
        for choice in itertools.product(range(4), repeat=len(new)):
            res = dict(self.residue, **dict(zip(new, choice)))
            if all((res[str(a[0])] + a[1] - res[str(b[0])] - b[1]) % m for a, b, m in rules):
                self.residue = res
                return True
        return False

    def salu(self) -> list | Step:
        rng = self.rng
        r = rng.random()

        def ssrc():
            x = self.pick("s", ("u",))
            if x is None or rng.random() < 0.25:
                return rng.choice([0, 1, 5, 17, 64, 0x1234])
            return (x, rng.randrange(x.width))
        if r < 0.4:
            name = rng.choice(list(SALU_OPS))
            a, b = ssrc(), ssrc()
            d, j = self.dst("s", "u")
            fn = globals()[name]

            def run(w: Wave):
                (x, xd), (y, yd) = w.read_s(a), w.read_s(b)
                w.write_s(d, j, SALU_OPS[name](x, y), xd and yd)
            return Step(lambda k: k.append(fn(d.part(j), self.dsl(a), self.dsl(b))), run)
        if r < 0.55:                         # 64-bit add through SCC
            a, b = self.pick("s", ("u",), 2), self.pick("s", ("u",), 2)
            if a is None or b is None:
                d = self.new("s", 2)
                at = rng.randrange(0, ROW - 1, 2)
                return [Step(lambda k: k.append(s_load_b64(d.reg, self.pin.reg, 4 * at)),
                             lambda w: (w.write_s(d, 0, int(w.inp[0, at]), True), w.write_s(d, 1, int(w.inp[0, at + 1]), True))),
                        Step(lambda k: k.append(s_waitcnt(0)), lambda w: None)]
            d = self.new("s", 2)
            carry = []

            def lo(w: Wave):
                (x, xd), (y, yd) = w.read_s((a, 0)), w.read_s((b, 0))
                carry[:] = [(x + y) >> 32]
                w.write_s(d, 0, x + y, xd and yd)

            def hi(w: Wave):
                (x, xd), (y, yd) = w.read_s((a, 1)), w.read_s((b, 1))
                w.write_s(d, 1, x + y + carry[0], xd and yd)
            return [Step(lambda k: k.append(s_add_u32(d.reg[0], a.reg[0], b.reg[0])), lo),
                    Step(lambda k: k.append(s_addc_u32(d.reg[1], a.reg[1], b.reg[1])), hi)]
        if r < 0.65:                         # compare + select through SCC
            a, b, x, y = ssrc(), ssrc(), ssrc(), ssrc()
            d, j = self.dst("s", "u")

            def run(w: Wave):
                (p, pd), (q, qd) = w.read_s(a), w.read_s(b)
                (m, md), (n, nd) = w.read_s(x), w.read_s(y)
                w.write_s(d, j, m if p > q else n, pd and qd and (md if p > q else nd))
            return [Step(lambda k: k.append(s_cmp_gt_u32(self.dsl(a), self.dsl(b))), lambda w: None),
                    Step(lambda k: k.append(s_cselect_b32(d.part(j), self.dsl(x), self.dsl(y))), run)]
        if r < 0.8:                          # lane reads
            a = self.vsrc(allow_s=False, allow_c=False)
            if not isinstance(a, tuple):
                a = self.seed_v and (self.seed_v, 0)
            d, j = self.dst("s", "u")
            if rng.random() < 0.5:
                lane = rng.randrange(LANES)

                def run(w: Wave):
                    x, xd = w.read(a)
                    w.write_s(d, j, int(x[lane]), bool(xd[lane]))
                return Step(lambda k: k.append(v_readlane_b32(d.part(j), self.dsl(a), lane)), run)

            def run(w: Wave):
                x, xd = w.read(a)
                lane = int(np.argmax(w.exec)) if w.exec.any() else 0
                w.write_s(d, j, int(x[lane]), bool(xd[lane]))
            return Step(lambda k: k.append(v_readfirstlane_b32(d.part(j), self.dsl(a))), run)
        if r < 0.9:                          # one lane written whatever EXEC is
            x = self.pick("v", ("u",))
            s_ = self.pick("s", ("u",))
            if x is None or s_ is None or x.fixed:
                return self.int_op()
            j, lane = rng.randrange(x.width), rng.randrange(LANES)

            def run(w: Wave):
                value, ok = w.read_s((s_, 0))
                only = np.zeros(LANES, bool)
                only[lane] = True
                w.write_v(x, j, np.full(LANES, value, np.uint32), np.full(LANES, ok), only)
            return Step(lambda k: k.append(v_writelane_b32(x.part(j), s_.part(0), lane)), run)
        d = self.new("s", 1)
        at = rng.randrange(ROW)
        return [Step(lambda k: k.append(s_load_b32(d.reg, self.pin.reg, 4 * at)),
                     lambda w: w.write_s(d, 0, int(w.inp[0, at]), True)),
                Step(lambda k: k.append(s_waitcnt(0)), lambda w: None)]

    def memory(self) -> list:
        rng = self.rng
        r = rng.random()
        wait = Step(lambda k: k.append(s_waitcnt(0)), lambda w: None)
        if r < 0.45:
            width = rng.choice([1, 1, 2, 4])
            at = rng.randrange(ROW - width + 1)
            d = self.new("v", width) if width > 1 or rng.random() < 0.6 else self.pick("v", ("u",), 1, exclude=[x for x in self.vals if x.fixed]) or self.new("v", 1)
            fn = {1: global_load_b32, 2: global_load_b64, 4: global_load_b128}[width]

            def run(w: Wave):
                for j in range(width):
                    w.write_v(d, j, w.inp[w.tid, at + j], np.ones(LANES, bool))
            return [Step(lambda k: k.append(fn(d.reg, self.off.reg, self.pin.reg, offset=4 * at)), run), wait]
        if r < 0.6:
            d = self.pick("v", ("u",))
            if d is None or d.fixed:
                return [self.int_op()]
            j, at, hi = rng.randrange(d.width), rng.randrange(ROW), rng.random() < 0.5
            fn = global_load_d16_hi_b16 if hi else global_load_d16_b16

            def run(w: Wave):
                old, od = w.read((d, j))
                half = w.inp[w.tid, at] & 0xFFFF
                new = (old & 0xFFFF) | (half << 16) if hi else (old & 0xFFFF0000) | half
                w.write_v(d, j, new, od)
            return [Step(lambda k: k.append(fn(d.part(j), self.off.reg, self.pin.reg, offset=4 * at)), run), wait]
        slot = rng.randrange(8)
        if r < 0.8:
            a = self.vsrc(allow_s=False, allow_c=False)
            if not isinstance(a, tuple):
                return [self.int_op()]

            def run(w: Wave):
                x, xd = w.read(a)
                w.lds[slot][w.exec], w.lds_d[slot][w.exec] = x[w.exec], xd[w.exec]
            return [Step(lambda k: k.append(ds_store_b32(self.la.reg, self.dsl(a), offset=256 * slot)), run)]
        d, j = self.dst("v", "u")

        def run(w: Wave):
            w.write_v(d, j, w.lds[slot], w.lds_d[slot])
        return [Step(lambda k: k.append(ds_load_b32(d.part(j), self.la.reg, offset=256 * slot)), run), wait]

    # control flow ---------------------------------------------------------

    def body(self, depth: int) -> list:
        rng = self.rng
        out = []
        for _ in range(rng.randint(2, 7)):
            if self.steps > self.size:
                break
            self.steps += 1
            r = rng.random()
            if r < 0.1 and depth < 3:
                out.append(self.divergent_if(depth + 1))
            elif r < 0.2 and depth < 3:
                out.append(self.divergent_loop(depth + 1))
            elif r < 0.24 and depth < 3:
                out.append(self.uniform_loop(depth + 1))
            elif r < 0.27 and depth < 3:
                out.append(self.uniform_if(depth + 1))
            else:
                g = rng.choices([self.int_op, self.float_op, self.compare_select, self.wide, self.vopd,
                                 self.salu, self.memory], [4, 3, 1, 2, 2, 2, 2])[0]()
                out += g if isinstance(g, list) else [g]
        return out

    def divergent_if(self, depth: int) -> If:
        cond, save = self.new("s", 1, "m"), self.new("s", 1, "m")
        cond.fixed = save.fixed = True
        return If(self.seed_v, self.rng.randrange(0x100000000), cond, save, self.body(depth), self.body(depth) if self.rng.random() < 0.7 else [],
                  self.rng.random() < 0.5)

    def divergent_loop(self, depth: int) -> DivLoop:
        counter, save = self.new("v", 1, "u"), self.new("s", 1, "m")
        counter.fixed = save.fixed = True
        return DivLoop(counter, save, self.seed_v, self.body(depth), self.rng.random() < 0.5)

    def uniform_loop(self, depth: int) -> UniLoop:
        counter = self.new("s", 1, "u")
        counter.fixed = True
        return UniLoop(counter, self.rng.randint(1, 3), self.body(depth))

    def uniform_if(self, depth: int) -> UniIf:
        return UniIf(self.seed_s, self.rng.randrange(0x100000000), self.body(depth))

    def build(self):
        """(Kernel, program description, stored outputs [(Val, dword)])."""
        k = self.k
        self.pin, self.pout = Val(k.sreg(2, "pin"), "s", 2, "p", True), Val(k.sreg(2, "pout"), "s", 2, "p", True)
        self.off, self.ooff, self.la = (Val(k.vreg(name=n), "v", 1, "a", True) for n in ("off", "ooff", "la"))
        self.seed_v = self.new("v", 1, "u")
        self.seed_s = self.new("s", 1, "u")
        self.seed_v.fixed = self.seed_s.fixed = True
        prologue = [
            Step(lambda k: k.append(s_load_b64(self.pin.reg, s[0:1], 0)), lambda w: None),
            Step(lambda k: k.append(s_load_b64(self.pout.reg, s[0:1], 8)), lambda w: None),
            Step(lambda k: k.append(s_waitcnt(0)), lambda w: None),
            Step(lambda k: k.append(v_lshlrev_b32(self.off.reg, 6, v[0])), lambda w: None),
            Step(lambda k: k.append(v_lshlrev_b32(self.la.reg, 2, v[0])), lambda w: None),
            Step(lambda k: k.append(global_load_b32(self.seed_v.reg, self.off.reg, self.pin.reg)),
                 lambda w: w.write_v(self.seed_v, 0, w.inp[w.tid, 0], np.ones(LANES, bool))),
            Step(lambda k: k.append(s_load_b32(self.seed_s.reg, self.pin.reg, 4)),
                 lambda w: w.write_s(self.seed_s, 0, int(w.inp[0, 1]), True)),
            Step(lambda k: k.append(s_waitcnt(0)), lambda w: None),
        ]
        body = self.body(0)
        while self.steps < self.size // 2:
            body += self.body(0)
        # outputs: a sample of every value's dwords (SGPRs through a VGPR copy)
        stored = []
        epilogue = [Step(lambda k: k.append(v_lshlrev_b32(self.ooff.reg, 8, v[0])), lambda w: None)]
        # a third of the values, each whole (as code stores a tuple it built): the others die
        # at their last read, so registers get reused
        chosen = [x for x in self.vals if x.kind != "m"]
        self.rng.shuffle(chosen)
        chosen = chosen[:max(2, len(chosen) // 3)]
        candidates = [(x, j) for x in chosen for j in range(x.width)][:OUT]
        for x, j in candidates:
            slot = len(stored)
            stored.append((x, j))
            if x.file == "s":
                t = self.new("v", 1)

                def run(w: Wave, x=x, j=j, t=t, slot=slot):
                    value, ok = w.read((x, j))
                    w.write_v(t, 0, value, ok)
                    w.out[slot], w.out_d[slot] = value, ok
                epilogue.append(Step(lambda k, x=x, j=j, t=t: k.append(v_mov_b32(t.reg, x.part(j))), run))
                src = (t, 0)
            else:
                def run(w: Wave, x=x, j=j, slot=slot):
                    w.out[slot], w.out_d[slot] = w.read((x, j))
                epilogue.append(Step(lambda k: None, run))
                src = (x, j)
            epilogue.append(Step(lambda k, src=src, slot=slot: k.append(
                global_store_b32(self.ooff.reg, src[0].part(src[1]), self.pout.reg, offset=4 * slot)), lambda w: None))
        epilogue.append(Step(lambda k: k.append(s_endpgm()), lambda w: None))
        program = prologue + body + epilogue
        emit(self, program)
        return self.k, program, stored


# ---------------------------------------------------------------- emission and interpretation

def emit(gen: Generator, steps: list):
    k = gen.k
    for st in steps:
        if isinstance(st, Step):
            st.emit(k)
        elif isinstance(st, If):
            other, join = gen.label(), gen.label()
            c = st.cond.reg
            k += v_cmp_gt_u32(c, gen.seed_v.reg, st.threshold)
            k += s_and_saveexec_b32(st.save.reg, c)
            if st.skip:
                k += s_cbranch_execz(other)
            emit(gen, st.then)
            k.label(other)
            k += s_xor_b32(exec_lo, exec_lo, st.save.reg)
            if st.skip:
                k += s_cbranch_execz(join)
            emit(gen, st.other)
            k.label(join)
            k += s_or_b32(exec_lo, exec_lo, st.save.reg)
        elif isinstance(st, DivLoop):
            top = gen.label()
            cnt = st.counter.reg
            k += v_and_b32(cnt, 3, st.seed.reg)
            k += v_add_nc_u32(cnt, 1, cnt)
            k += s_mov_b32(st.save.reg, exec_lo)
            k.label(top)
            emit(gen, st.body)
            k += v_sub_nc_u32(cnt, cnt, 1)
            if st.cmpx:
                k += v_cmpx_ne_u32(0, cnt)
            else:
                k += v_cmp_ne_u32(vcc_lo, 0, cnt)
                k += s_and_b32(exec_lo, exec_lo, vcc_lo)
            k += s_cbranch_execnz(top)
            k += s_mov_b32(exec_lo, st.save.reg)
        elif isinstance(st, UniLoop):
            top = gen.label()
            k += s_mov_b32(st.counter.reg, st.trips)
            k.label(top)
            emit(gen, st.body)
            k += s_sub_u32(st.counter.reg, st.counter.reg, 1)
            k += s_cmp_lg_u32(st.counter.reg, 0)
            k += s_cbranch_scc1(top)
        elif isinstance(st, UniIf):
            skip = gen.label()
            k += s_cmp_gt_u32(st.seed.reg, st.limit)
            k += s_cbranch_scc1(skip)
            emit(gen, st.body)
            k.label(skip)


def interpret(steps: list, w: Wave):
    for st in steps:
        if isinstance(st, Step):
            st.run(w)
        elif isinstance(st, If):
            value, _ = w.read((st.seed, 0))
            bits = (value > np.uint32(st.threshold)) & w.exec
            w.write_s(st.cond, 0, w.mask_value(bits), True)
            saved = w.exec.copy()
            w.write_s(st.save, 0, w.mask_value(saved), True)
            w.exec = saved & bits
            if not (st.skip and not w.exec.any()):
                interpret(st.then, w)
            w.exec = saved & ~w.exec
            if not (st.skip and not w.exec.any()):
                interpret(st.other, w)
            w.exec = saved
        elif isinstance(st, DivLoop):
            seed, _ = w.read((st.seed, 0))
            w.write_v(st.counter, 0, (seed & 3) + 1, np.ones(LANES, bool))
            saved = w.exec.copy()
            w.write_s(st.save, 0, w.mask_value(saved), True)
            while True:
                interpret(st.body, w)
                cnt, _ = w.read((st.counter, 0))
                w.write_v(st.counter, 0, cnt - 1, np.ones(LANES, bool))
                w.exec = w.exec & (w.v[st.counter.reg.vid][0] != 0)
                if not st.cmpx:
                    w.vcc, w.vcc_d = w.exec.copy(), True
                if not w.exec.any():
                    break
            w.exec = saved
        elif isinstance(st, UniLoop):
            for n in range(st.trips, 0, -1):
                w.write_s(st.counter, 0, n, True)
                interpret(st.body, w)
            w.write_s(st.counter, 0, 0, True)
        elif isinstance(st, UniIf):
            value, _ = w.read_s((st.seed, 0))
            if not value > st.limit:
                interpret(st.body, w)


# ---------------------------------------------------------------- running

def reference(gen: Generator, program: list, inp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stored outputs per (slot, work-item) and whether each is defined."""
    out, ok = [], []
    for wave in range(WAVES):
        w = Wave(wave, inp)
        interpret(program, w)
        out.append(w.out)
        ok.append(w.out_d)
    return np.concatenate(out, axis=1), np.concatenate(ok, axis=1)


def run_on_emulator(k, inp: np.ndarray) -> np.ndarray:
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel
    args = [KernelArg(0, 8, "global_buffer", "inp", "global"), KernelArg(8, 8, "global_buffer", "out", "global")]
    hsaco = from_dsl_kernel(k, "fuzz", args, user_sgpr_kernarg_segment_ptr=1, system_vgpr_workitem_id=0,
                            group_segment_fixed_size=2048)
    dev = Device("emu", arch="gfx1100")
    a = dev.alloc(inp.nbytes, "inp").copyin(inp)
    n = LANES * WAVES
    o = dev.alloc(n * OUT * 4, "out").copyin(np.zeros(n * OUT, np.uint32))
    dev.load(hsaco).launch("fuzz", grid=(1, 1, 1), block=(n, 1, 1), args=[a, o])
    return o.copyout(np.uint32).reshape(n, OUT).T


@dataclass
class Result:
    seed: int
    instructions: int
    vgprs: int
    peak: int
    spilled: int = 0
    mismatches: list = field(default_factory=list)   # (slot, value name, dword, lanes)


def check(seed: int, size: int = 90, max_vgprs: int | None = None, max_sgprs: int | None = None) -> Result:
    """Run one random program; `max_vgprs` / `max_sgprs` below its needs force spilling."""
    gen = Generator(seed, size, max_vgprs, max_sgprs)
    k, program, stored = gen.build()
    inp = np.random.default_rng(seed).integers(0, 1 << 32, LANES * WAVES * ROW, dtype=np.uint64).astype(np.uint32)
    want, defined = reference(gen, program, inp)
    got = run_on_emulator(k, inp)
    alloc = k.allocate()
    res = Result(seed, len(k.items), alloc.vgprs, alloc.peak["v"], spilled=len(k.spills.vgprs) + len(k.spills.sgprs))
    for slot, (x, j) in enumerate(stored):
        bad = np.nonzero(defined[slot] & (got[slot] != want[slot]))[0]
        if len(bad):
            res.mismatches.append((slot, x.reg.name, j, bad.tolist()[:8]))
    return res

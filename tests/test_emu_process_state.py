"""One process, many launches: nothing a lookup or a launch leaves behind in the process changes
what a later one computes.

- The semantic table keys its entries by the definition itself: two definitions that agree on
  format, slot and opcode (a VOPD half's own code and the VOP2 instruction with its opcode on
  gfx1201, v_min_num_f64) each keep their own semantic, in either order of first use. Keyed by
  (format, slot, opcode), the first one asked for answered for both: gfx1201's v_min_num_f64 then
  computed a bf16 dot product (a kernel's fma-max-min result 16.5 instead of 53.97), or the dot
  product half ran v_min_num_f64's 64-bit code on 32-bit operands (an OverflowError), depending
  on which a process ran first.
- A launch that stops with an error part way (a memory fault, the instruction budget, an
  exception out of a semantic) leaves no state behind that a later launch of the same code on
  the same machine would see: it then gives numpy's result, in fast and in reference mode.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dsl
from dsl.signature import valu_signature
from emu import families
from emu.facts import FactCache, FACTS
from emu.launch import Dispatch
from emu.machine import BudgetExceeded, EmuError, EmuFault, Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE
from emu.semantics import Ctx
from emu.table import SemanticTable

MODES = pytest.mark.parametrize("options", [FAST, REFERENCE], ids=["fast", "reference"])


def _colliding_pair():
    """gfx1201's VOP2 v_min_num_f64 and a definition sharing its format, slot and opcode that
    performs v_dual_dot2acc_f32_bf16's code (what a VOPD half run "as a VOP2" once was)."""
    spec = families.load("gfx1201")
    vmin = next(d for d in spec.lookup("V_MIN_NUM_F64") if d.format == "VOP2")
    dot = spec.lookup("V_DUAL_DOT2ACC_F32_BF16")[0]
    twin = dataclasses.replace(vmin, name=dot.name, pcode=dot.pcode, description=dot.description,
                               operand_types=dict(dot.operand_types))
    assert (twin.format, twin.slot, twin.opcode) == (vmin.format, vmin.slot, vmin.opcode)
    return vmin, twin


def _check_min_num_f64(sem):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 1, 32))
    out = sem.execute(Ctx(lanes=32, exec_mask=np.array([[2**32 - 1]], np.uint64),
                          inputs={"S0": x.view(np.uint64), "S1": y.view(np.uint64),
                                  "D0": np.zeros((1, 32), np.uint64)}))
    got = np.asarray(out["D0"]).astype(np.uint64).view(np.float64)
    np.testing.assert_array_equal(got, np.minimum(x, y))


def _check_dot2_bf16(sem):
    rng = np.random.default_rng(4)
    top = lambda: rng.standard_normal((1, 32)).astype(np.float32).view(np.uint32) >> np.uint32(16)
    a, b = top() | top() << np.uint32(16), top() | top() << np.uint32(16)
    c = rng.standard_normal((1, 32)).astype(np.float32)
    out = sem.execute(Ctx(lanes=32, exec_mask=np.array([[2**32 - 1]], np.uint64),
                          inputs={"S0": a, "S1": b, "D0": c.view(np.uint32)}))
    widened = lambda x, k: ((x >> np.uint32(16 * k)) << np.uint32(16)).astype(np.uint32).view(np.float32)
    want = (c + widened(a, 0) * widened(b, 0)) + widened(a, 1) * widened(b, 1)
    got = np.broadcast_to(np.asarray(out["D0"]), (1, 32)).astype(np.uint32)
    np.testing.assert_array_equal(got, want.view(np.uint32))


@pytest.mark.parametrize("narrow", [True, False], ids=["fast", "reference"])
@pytest.mark.parametrize("order", ["vop2_first", "twin_first"])
def test_definitions_sharing_format_slot_and_opcode_keep_their_own_semantics(order, narrow):
    vmin, twin = _colliding_pair()
    table = SemanticTable("gfx1201", narrow)      # its own table: no earlier lookup decides the order
    first, second = (vmin, twin) if order == "vop2_first" else (twin, vmin)
    table.get(first)
    assert table.get(vmin).name == "V_MIN_NUM_F64" and table.get(twin).name == "V_DUAL_DOT2ACC_F32_BF16"
    _check_min_num_f64(table.get(vmin))
    _check_dot2_bf16(table.get(twin))
    _check_min_num_f64(table.get(second if second is vmin else first))


@pytest.mark.parametrize("on_disk", [True, False])
def test_facts_of_definitions_sharing_format_slot_and_opcode_stay_apart(on_disk, tmp_path):
    """The facts the machine prepares from (here the operand signature) are kept per definition:
    each of the two definitions reads what dsl.signature computes from it."""
    vmin, twin = _colliding_pair()
    for first, second in ((vmin, twin), (twin, vmin)):
        cache = FactCache(str(tmp_path / f"facts-{first.name}") if on_disk else None)
        for d in (first, second, first):
            assert cache.fact("valu_signature", d, FACTS["valu_signature"]) == valu_signature(d), d.name
    assert valu_signature(vmin) != valu_signature(twin)         # (the check above can tell them apart)


def test_a_dot_product_half_then_min_num_f64_in_one_process():
    """gfx1201: a kernel with v_dual_dot2acc_f32_bf16, then one with v_min_num_f64 (VOP2 opcode
    13, the dot product half's VOPD opcode), then the first again, one machine each on one
    semantic table; each against numpy."""
    table = SemanticTable("gfx1201")
    rng = np.random.default_rng(11)
    n = 64
    top = lambda: rng.standard_normal(n).astype(np.float32).view(np.uint32) >> np.uint32(16)
    a, b = top() | top() << np.uint32(16), top() | top() << np.uint32(16)
    c = rng.standard_normal(n).astype(np.float32)
    x, y = rng.standard_normal((2, n))
    dot_src = _prologue(4) + """
        global_load_b32 v5, v2, s[4:5]
        global_load_b32 v7, v2, s[6:7]
        global_load_b32 v10, v2, s[8:9]
        s_wait_loadcnt 0
        v_dual_dot2acc_f32_bf16 v10, v5, v7 :: v_dual_mov_b32 v11, v8
        global_store_b32 v2, v10, s[10:11]
        s_endpgm"""
    min_src = _prologue(3) + """
        v_lshlrev_b32 v2, 1, v2
        global_load_b64 v[4:5], v2, s[4:5]
        global_load_b64 v[6:7], v2, s[6:7]
        s_wait_loadcnt 0
        v_min_num_f64_e32 v[8:9], v[4:5], v[6:7]
        global_store_b64 v2, v[8:9], s[8:9]
        s_endpgm"""
    widened = lambda v, k: ((v >> np.uint32(16 * k)) << np.uint32(16)).astype(np.uint32).view(np.float32)
    want_dot = (c + widened(a, 0) * widened(b, 0)) + widened(a, 1) * widened(b, 1)
    for src, buffers, want in ((dot_src, {"a": a, "b": b, "c": c, "o": np.zeros(n, np.float32)}, want_dot),
                               (min_src, {"x": x, "y": y, "o": np.zeros(n)}, np.minimum(x, y)),
                               (dot_src, {"a": a, "b": b, "c": c, "o": np.zeros(n, np.float32)}, want_dot)):
        mem = DeviceMemory()
        machine = Machine("gfx1201", mem, table, FAST)
        kernel = _Kernel(mem, src, "gfx1201", buffers)
        got = kernel.run(machine, block=n)
        np.testing.assert_array_equal(got["o"], want)


# ---------------------------------------------------------------- a launch that stops part way

def _prologue(buffers: int) -> str:
    """s[4+2i:5+2i] = buffer i's address; v1 = global id, v2 = v1 * 4 (RDNA4 counters)."""
    return "\n".join(f"s_load_b64 s[{4 + 2 * i}:{5 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(buffers)) + """
        s_wait_kmcnt 0
        s_lshl_b32 s30, s16, 6
        v_add_nc_u32 v1, s30, v0
        v_lshlrev_b32 v2, 2, v1
"""


class _Kernel:
    """Code and buffers in one device memory, launched again and again (same PCs, so the
    machine's per-PC caches carry over from launch to launch)."""

    def __init__(self, mem: DeviceMemory, src: str, arch: str, buffers: dict[str, np.ndarray]):
        self.mem, self.buffers = mem, buffers
        self.addrs = {name: mem.alloc(a.nbytes, name) for name, a in buffers.items()}
        self.table = mem.alloc(8 * len(buffers), "kernarg")
        mem.write(self.table, np.array(list(self.addrs.values()), np.uint64))
        code = dsl.assemble(src, arch, 32)
        self.code = mem.alloc(len(code), "code")
        mem.write(self.code, code)

    def run(self, machine: Machine, block: int = 64, groups: int = 1, budget: int | None = None,
            **replaced: np.ndarray) -> dict[str, np.ndarray]:
        """Every buffer written afresh (`replaced` ones with other contents), one launch, the
        buffers read back."""
        for name, a in self.buffers.items():
            self.mem.write(self.addrs[name], replaced.get(name, a))
        d = Dispatch("state_kernel", self.code, grid=(groups, 1, 1), block=(block, 1, 1), wave_size=32, vgprs=32,
                     user_sgprs=[self.table & 0xFFFFFFFF, self.table >> 32], user_sgpr_count=16,
                     workgroup_id=(True, False, False))
        if budget is not None:
            d.budget = budget
        machine.run(d)
        return {name: np.frombuffer(self.mem.read(self.addrs[name], a.nbytes), a.dtype).copy()
                for name, a in self.buffers.items()}


# per lane i: acc = sum over k < trips[i] of a[(i + 3k) % 1024] * (k + 1) (a product, then a sum,
# each rounded to f32 as numpy's float32 does), loaded from that element's address + k * far
# bytes (far = 0; a launch with far beyond `a` faults in its second iteration); count, in v21,
# which no instruction writes before the loop (every launch's registers start at zero)
_LOOP = _prologue(5) + """
        global_load_b32 v3, v2, s[6:7]          // trips (>= 1)
        s_load_b32 s31, s[8:9], 0x0             // far
        s_wait_kmcnt 0
        s_wait_loadcnt 0
        v_mov_b32 v4, 0                         // acc
        v_mov_b32 v6, 0                         // k
        s_mov_b32 s20, exec_lo
    loop:
        v_mul_lo_u32 v7, v6, 3
        v_add_nc_u32 v7, v7, v1
        v_and_b32 v7, 0x3ff, v7
        v_lshlrev_b32 v7, 2, v7
        v_mul_lo_u32 v10, v6, s31
        v_add_nc_u32 v7, v7, v10
        global_load_b32 v8, v7, s[4:5]
        v_add_nc_u32 v6, 1, v6
        v_cvt_f32_u32 v9, v6
        s_wait_loadcnt 0
        v_mul_f32 v9, v8, v9
        v_add_f32 v4, v4, v9
        v_add_nc_u32 v21, v21, 1
        v_cmp_gt_u32 vcc_lo, v3, v6
        s_and_b32 exec_lo, exec_lo, vcc_lo
        s_cbranch_execnz loop
        s_mov_b32 exec_lo, s20
        global_store_b32 v2, v4, s[10:11]
        global_store_b32 v2, v21, s[12:13]
        s_endpgm"""


def _loop_case():
    n, block = 1024, 64
    rng = np.random.default_rng(5)
    a = rng.standard_normal(n).astype(np.float32)
    lane = np.arange(n)
    trips = (1 + (lane // 32 * 7) % 5 + lane % 3).astype(np.uint32)      # waves and lanes part
    acc = np.zeros(n, np.float32)
    for k in range(int(trips.max())):
        on = k < trips
        acc[on] = acc[on] + a[(lane[on] + 3 * k) % n] * np.float32(k + 1)
    buffers = {"a": a, "trips": trips, "far": np.zeros(1, np.uint32),
               "acc": np.zeros(n, np.float32), "count": np.zeros(n, np.uint32)}
    return buffers, {"acc": acc, "count": trips}, n // block


class _Raising:
    """The table's semantics, v_add_f32's raising from its `after`-th call on while armed (an
    exception out of a semantic part way through a launch)."""

    def __init__(self, table: SemanticTable, after: int):
        self.table, self.after, self.calls, self.armed = table, after, 0, False
        self._wrapped = {}

    def get(self, d):
        sem = self.table.get(d)
        if sem is None or sem.name != "V_ADD_F32":
            return sem
        if d not in self._wrapped:
            def fn(ctx, inner=sem.fn):
                self.calls += 1
                if self.armed and self.calls >= self.after:
                    raise OverflowError("a semantic failing part way through a launch")
                return inner(ctx)
            self._wrapped[d] = dataclasses.replace(sem, fn=fn)
        return self._wrapped[d]

    def entry(self, d):
        return self.table.entry(d)


def _assert_reference(got, want):
    np.testing.assert_array_equal(got["count"], want["count"])
    np.testing.assert_array_equal(got["acc"].view(np.uint32), want["acc"].view(np.uint32))


@MODES
@pytest.mark.parametrize("failure", ["fault", "budget", "semantic"])
def test_a_launch_stopped_part_way_leaves_nothing_for_the_next(failure, options):
    """The same code on one machine: a launch that stops inside its loop (a load beyond its
    buffer in the second iteration, the instruction budget, or an exception out of v_add_f32's
    semantic on its third call), then a launch that runs to the end: numpy's result, as on a
    fresh machine."""
    buffers, want, groups = _loop_case()
    mem = DeviceMemory()
    table = SemanticTable("gfx1201", options.narrow_uint32)
    semantics = _Raising(table, after=3) if failure == "semantic" else table
    machine = Machine("gfx1201", mem, semantics, options)
    kernel = _Kernel(mem, _LOOP, "gfx1201", buffers)
    _assert_reference(kernel.run(machine, groups=groups), want)     # the machine's caches and a spare state made
    if failure == "fault":
        with pytest.raises(EmuFault, match="past the end"):
            kernel.run(machine, groups=groups, far=np.array([4 * len(buffers["a"])], np.uint32))
    elif failure == "budget":
        with pytest.raises(BudgetExceeded):
            kernel.run(machine, groups=groups, budget=40)
    else:
        semantics.armed, semantics.calls = True, 0
        with pytest.raises(EmuError, match="OverflowError"):
            kernel.run(machine, groups=groups)
        semantics.armed = False
    _assert_reference(kernel.run(machine, groups=groups), want)
    fresh_mem = DeviceMemory()
    fresh = _Kernel(fresh_mem, _LOOP, "gfx1201", buffers)
    _assert_reference(fresh.run(Machine("gfx1201", fresh_mem, table, options), groups=groups), want)

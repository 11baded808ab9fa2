"""Regression tests for allocator miscompiles (issue 14), each running the allocated kernel
on the emulator against values computed here with numpy / Python integers."""
from __future__ import annotations

import numpy as np
import pytest

import regalloc
from dsl.rdna3 import *  # noqa: F403
from runtime import Device, KernelArg
from runtime.writer import from_dsl_kernel

N = 32


def run(k: Kernel, inp: np.ndarray, out_words: int) -> np.ndarray:
    """Launch one wave32 work-group of N work-items; s[0:1] -> {inp, out} pointers."""
    args = [KernelArg(0, 8, "global_buffer", "inp", "global"), KernelArg(8, 8, "global_buffer", "out", "global")]
    dev = Device("emu", arch="gfx1100")
    a = dev.alloc(inp.nbytes, "inp").copyin(inp)
    o = dev.alloc(out_words * 4, "out").copyin(np.zeros(out_words, np.uint32))
    code = from_dsl_kernel(k, "t", args, user_sgpr_kernarg_segment_ptr=1, system_vgpr_workitem_id=0)
    dev.load(code).launch("t", grid=(1, 1, 1), block=(N, 1, 1), args=[a, o])
    return o.copyout(np.uint32)


def prologue(k: Kernel):
    pin, pout, off = k.sreg(2, name="pin"), k.sreg(2, name="pout"), k.vreg(name="off")
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    k += v_lshlrev_b32(off, 2, v[0])
    return pin, pout, off


def test_multi_output_v_mad_u64_u32_writes_its_result():
    """`{ D1.u1, D0.u64 } = ...` writes D0: the 64-bit result must not land on the live
    address or on x."""
    k = Kernel("gfx1100")
    pin, pout, off = prologue(k)
    a, d, x = k.vreg(name="a"), k.vreg(2, name="d"), k.vreg(name="x")
    k += global_load_b32(a, off, pin)
    k += s_waitcnt(0)
    k += v_mad_u64_u32(d, null, a, a, 0)
    k += v_add_nc_u32(x, 7, a)
    k += global_store_b32(off, d[0], pout)
    k += global_store_b32(off, d[1], pout, offset=4 * N)
    k += global_store_b32(off, x, pout, offset=8 * N)
    k += s_endpgm()
    prog = k.program()
    mad = next(ins for ins in prog.instrs if ins.text.startswith("v_mad_u64_u32"))
    assert [(r.reg, r.count) for r in mad.defs if r.file == "v"] == [(d.vid, 2)]
    inp = np.arange(N, dtype=np.uint32) * np.uint32(0x10001) + np.uint32(0x9000_0000)
    out = run(k, inp, 3 * N)
    sq = [int(v) * int(v) for v in inp]
    np.testing.assert_array_equal(out[:N], np.array([q & 0xFFFFFFFF for q in sq], np.uint32))
    np.testing.assert_array_equal(out[N:2 * N], np.array([q >> 32 for q in sq], np.uint32))
    np.testing.assert_array_equal(out[2 * N:], inp + np.uint32(7))


def test_vopd_y_fmac_reads_its_accumulator():
    """The Y half's v_dual_fmac_f32 reads acc: acc may not share a register with a."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    acc, a, b, c, d, x = (k.vreg(name=n) for n in ("acc", "a", "b", "c", "d", "x"))
    for reg, value in ((acc, 1.0), (a, 2.0), (b, 4.0), (c, 2.0), (d, 4.0)):
        k += v_mov_b32(reg, value)
    k += vopd(v_dual_mul_f32(x, a, b), v_dual_fmac_f32(acc, c, d))
    k += global_store_b32(off, acc, pout)
    k += global_store_b32(off, x, pout, offset=4 * N)
    k += s_endpgm()
    out = run(k, np.zeros(N, np.uint32), 2 * N).view(np.float32)
    np.testing.assert_array_equal(out[:N], np.float32(1.0 + 2.0 * 4.0))
    np.testing.assert_array_equal(out[N:], np.float32(2.0 * 4.0))


def masked_loop_kernel() -> Kernel:
    """Per lane: x = lane id, n = 2; loop while x < 3 (x += 1 each turn, lanes leave as they
    reach 3): u = n + x at the loop's EXEC, summed into acc; t = 7n + x only in lanes where
    x < n. t is written once, under a mask, inside the loop and read after it: a lane whose
    last turn skipped the write still needs the value of an earlier turn, so u (dead after
    each turn) may not take t's register."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    x, n, u, t, acc = k.vreg(name="x"), k.sreg(name="n"), k.vreg(name="u"), k.vreg(name="t"), k.vreg(name="acc")
    save, cond, inner = k.sreg(name="save"), k.sreg(name="cond"), k.sreg(name="inner")
    k += v_mov_b32(x, v[0])
    k += s_mov_b32(n, 2)
    k += v_mov_b32(acc, 0)
    k += s_mov_b32(save, exec_lo)
    k += v_cmpx_gt_u32(3, x)             # lanes 0..2 enter the loop
    k += s_cbranch_execz("done")
    k.label("loop")
    k += v_add_nc_u32(u, n, x)
    k += v_add_nc_u32(acc, acc, u)
    k += v_cmp_gt_u32(cond, n, x)
    k += s_and_saveexec_b32(inner, cond)
    k += v_mad_u32_u24(t, 7, n, x)        # t = 7n + x where x < n
    k += s_or_b32(exec_lo, exec_lo, inner)
    k += v_add_nc_u32(x, 1, x)
    k += v_cmpx_gt_u32(3, x)
    k += s_cbranch_execnz("loop")
    k.label("done")
    k += s_mov_b32(exec_lo, save)
    k += global_store_b32(off, t, pout)
    k += global_store_b32(off, acc, pout, offset=4 * N)
    k += s_endpgm()
    return k


def test_value_written_under_a_mask_inside_a_loop_survives_it():
    out = run(masked_loop_kernel(), np.zeros(N, np.uint32), 2 * N)
    t, acc = {}, np.zeros(N, np.int64)
    for lane in range(N):                 # the loop per lane, in Python
        x, n = lane, 2
        while x < 3:
            acc[lane] += n + x
            if x < n:
                t[lane] = 7 * n + x
            x += 1
    assert t == {0: 15, 1: 15}
    np.testing.assert_array_equal(out[[0, 1]], [t[0], t[1]])   # other lanes never wrote t
    np.testing.assert_array_equal(out[N:2 * N], acc)


def test_vopd_parity_choices_stay_satisfiable():
    """a and c are both paired with b as destinations (one even, one odd): a and c need the
    same parity. Choosing a's and c's registers greedily (v1, v2) left b nothing."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    a, b, c, one, two = (k.vreg(name=n) for n in ("a", "b", "c", "one", "two"))
    k += v_mov_b32(one, 1)
    k += v_mov_b32(two, 2)
    k += v_mov_b32(a, 10)
    k += v_mov_b32(c, 20)
    first = len(k.items)
    k += vopd(v_dual_mov_b32(a, one), v_dual_mov_b32(b, two))
    k += vopd(v_dual_mov_b32(c, two), v_dual_mov_b32(b, one))
    for j, reg in enumerate((a, b, c)):
        k += global_store_b32(off, reg, pout, offset=4 * N * j)
    k += s_endpgm()
    alloc = k.allocate()
    # ISA 7.6: the two destinations of a VOPD pair have opposite parities
    assert alloc.register(a.vid, 0, first) % 2 != alloc.register(b.vid, 0, first) % 2
    assert alloc.register(c.vid, 0, first + 1) % 2 != alloc.register(b.vid, 0, first + 1) % 2
    out = run(k, np.zeros(N, np.uint32), 3 * N)
    np.testing.assert_array_equal(out.reshape(3, N), np.array([[1] * N, [1] * N, [2] * N], np.uint32))


def test_vopd_odd_parity_cycle_is_an_allocation_error():
    k = Kernel("gfx1100")
    a, b, c = (k.vreg(name=n) for n in "abc")
    for x in (a, b, c):
        k += v_mov_b32(x, 1.0)
    # accumulators (read and written): one value each, live throughout, pairwise opposite parity
    k += vopd(v_dual_fmac_f32(a, 1.0, v[0]), v_dual_fmac_f32(b, 1.0, v[1]))
    k += vopd(v_dual_fmac_f32(b, 1.0, v[0]), v_dual_fmac_f32(c, 1.0, v[1]))
    k += vopd(v_dual_fmac_f32(c, 1.0, v[0]), v_dual_fmac_f32(a, 1.0, v[1]))
    for x in (a, b, c):
        k += global_store_b32(v[0], x, s[0:1])
    k += s_endpgm()
    with pytest.raises(regalloc.AllocationError, match="odd cycle"):
        k.allocate()

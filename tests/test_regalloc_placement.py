"""Placement below what one register run per virtual allows, run on the emulator against
values computed here: dwords of a tuple never named together take registers on their own,
and a value rewritten from scratch may take another register for its new live range."""
from __future__ import annotations

import numpy as np

from dsl.rdna3 import *  # noqa: F403
from tests.regalloc_check import verify
from tests.test_regalloc_defects import N, prologue, run


def test_tuple_dwords_never_named_together_share_one_register():
    """t[0..3] are written and stored one at a time, each dead before the next: one register
    holds them all (four adjacent registers would be needed if t were one run)."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    t = k.vreg(4, name="t")
    for j in range(4):
        k += v_add_nc_u32(t[j], 10 * (j + 1), v[0])
        k += global_store_b32(off, t[j], pout, offset=4 * N * j)
    k += s_endpgm()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    assert alloc.peak["v"] == 3                      # v0, off and one dword of t
    assert alloc.vgprs == 3
    out = run(k, np.zeros(N, np.uint32), 4 * N).reshape(4, N)
    tid = np.arange(N, dtype=np.uint32)
    np.testing.assert_array_equal(out, [tid + 10, tid + 20, tid + 30, tid + 40])


def test_rewritten_values_take_new_registers():
    """t, u and a overlap pairwise (a triangle: one register each needs three), but at no
    point are all three live: t and u are rewritten from scratch, and their second live
    ranges take the registers that freed up."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    t, u, a = (k.vreg(name=n) for n in "tua")

    def store(x, slot):
        k.append(global_store_b32(off, x, pout, offset=4 * N * slot))
    k += v_add_nc_u32(t, 1, v[0])
    k += v_add_nc_u32(u, 2, v[0])
    store(t, 0)                                      # t's first value dies
    k += v_add_nc_u32(a, 3, v[0])
    store(u, 1)                                      # u's first value dies
    k += v_add_nc_u32(t, 4, v[0])                    # t again, from scratch
    store(a, 2)
    k += v_add_nc_u32(u, 5, v[0])                    # u again
    store(t, 3)
    store(u, 4)
    k += s_endpgm()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    assert alloc.peak["v"] == 4                      # v0, off and two of t, u, a
    assert alloc.vgprs == 4
    out = run(k, np.zeros(N, np.uint32), 5 * N).reshape(5, N)
    tid = np.arange(N, dtype=np.uint32)
    np.testing.assert_array_equal(out, [tid + 1, tid + 2, tid + 3, tid + 4, tid + 5])


def test_value_live_around_a_loop_keeps_one_register():
    """A value rewritten inside a loop and read at the top of the next iteration is one live
    range (the back edge joins them): it must stay in one register."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    x, n, y = k.vreg(name="x"), k.sreg(name="n"), k.vreg(name="y")
    k += v_mov_b32(x, v[0])
    k += s_mov_b32(n, 3)
    k.label("top")
    k += v_add_nc_u32(y, x, 7)                       # reads the previous iteration's x
    k += v_mul_lo_u32(x, y, 3)                       # x rewritten from scratch
    k += s_sub_u32(n, n, 1)
    k += s_cmp_lg_u32(n, 0)
    k += s_cbranch_scc1("top")
    k += global_store_b32(off, x, pout)
    k += s_endpgm()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    out = run(k, np.zeros(N, np.uint32), N)
    want = np.arange(N, dtype=np.uint64)
    for _ in range(3):
        want = (want + 7) * 3 % 2**32
    np.testing.assert_array_equal(out, want.astype(np.uint32))


def test_lo_then_hi_half_writes_replace_the_whole_register():
    """x.l then x.h, nothing reading x between: together a full write, so x is not live
    around the loop (a half write alone keeps the other half, which would keep x live
    across the back edge and beside t)."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    a, x, t, acc, n = k.vreg(name="a"), k.vreg(name="x"), k.vreg(name="t"), k.vreg(name="acc"), k.sreg(name="n")
    k += v_mov_b32(acc, 0)
    k += v_mov_b32(a, v[0])
    k += s_mov_b32(n, 3)
    k.label("top")
    k += v_add_nc_u16(x.l, a.l, 1)
    k += v_add_nc_u16(x.h, a.l, 7)
    k += v_add_nc_u32(acc, acc, x)
    k += v_mul_lo_u32(t, acc, 3)                     # x is dead here
    k += v_add_nc_u32(acc, acc, t)
    k += s_sub_u32(n, n, 1)
    k += s_cmp_lg_u32(n, 0)
    k += s_cbranch_scc1("top")
    k += global_store_b32(off, acc, pout)
    k += s_endpgm()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    assert alloc.peak["v"] == 4                      # off, a, acc and one of x, t (5 if x stayed live)
    out = run(k, np.zeros(N, np.uint32), N)
    tid = np.arange(N, dtype=np.uint64)
    x = ((tid + 1) & 0xFFFF) | ((tid + 7) & 0xFFFF) << 16
    want = np.zeros(N, np.uint64)
    for _ in range(3):
        want = (want + x) * 4 % 2**32
    np.testing.assert_array_equal(out, want.astype(np.uint32))


def test_half_write_with_a_read_between_keeps_the_old_value():
    """x.l, then a read of all of x (the old high half), then x.h: the first write still
    keeps the old high half."""
    k = Kernel("gfx1100")
    _, pout, off = prologue(k)
    x, y = k.vreg(name="x"), k.vreg(name="y")
    k += v_mov_b32(x, 0x12345678)
    k += v_add_nc_u16(x.l, v[0].l, 1)
    k += v_mov_b32(y, x)                             # reads the old high half 0x1234
    k += v_add_nc_u16(x.h, v[0].l, 7)
    k += global_store_b32(off, x, pout)
    k += global_store_b32(off, y, pout, offset=4 * N)
    k += s_endpgm()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    out = run(k, np.zeros(N, np.uint32), 2 * N).reshape(2, N)
    tid = np.arange(N, dtype=np.uint32)
    np.testing.assert_array_equal(out, [(tid + 1) | (tid + 7) << 16, (tid + 1) | 0x1234 << 16])

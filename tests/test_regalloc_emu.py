"""Allocated kernels run on the emulator and agree with numpy: a loop with accumulators
live around it, a branch inside it, a 4-dword load read in parts and a 4-dword result
gathered by moves the allocator turns into no-ops."""
from __future__ import annotations

import numpy as np

from dsl.rdna3 import *  # noqa: F403
from tests.test_emu_machine import launch


def test_allocated_loop_kernel_matches_numpy():
    k = Kernel("gfx1100")
    pin, pout, n = k.sreg(2, name="pin"), k.sreg(2, name="pout"), k.sreg(name="n")
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    off = k.vreg(name="off")
    k += v_lshlrev_b32(off, 4, v[0])                       # 16 bytes per work-item
    data = k.vreg(4, name="data")
    k += global_load_b128(data, off, pin)
    k += s_waitcnt(0)
    acc = [k.vreg(name=f"acc{j}") for j in range(4)]
    for a in acc:
        k += v_mov_b32(a, 0)
    k += s_mov_b32(n, 5)
    k.label("loop")
    for j, a in enumerate(acc):
        k += v_fmac_f32(a, data[j], data[(j + 1) % 4])
    k += s_cmp_eq_u32(n, 3)
    k += s_cbranch_scc1("skip")
    k += v_add_f32(acc[0], acc[0], 1.0)
    k.label("skip")
    k += s_sub_u32(n, n, 1)
    k += s_cmp_lg_u32(n, 0)
    k += s_cbranch_scc1("loop")
    result = k.vreg(4, name="result")
    for j, a in enumerate(acc):
        k += v_mov_b32(result[j], a)
    k += global_store_b128(off, result, pout)
    k += s_endpgm()
    alloc = k.allocate()
    assert len(alloc.identity_copies) == 4                  # result[j] took acc[j]'s register

    rng = np.random.default_rng(7)
    d = rng.uniform(-2, 2, (64, 4)).astype(np.float32)
    out, _ = launch(str(k.physical()), {"in": d.ravel(), "out": np.zeros(64 * 4, np.float32)})
    want = np.zeros((64, 4), np.float64)
    for it in range(5):
        for j in range(4):
            want[:, j] = (d[:, j].astype(np.float64) * d[:, (j + 1) % 4] + want[:, j]).astype(np.float32)
        if 5 - it != 3:
            want[:, 0] = (want[:, 0] + 1.0).astype(np.float32)
    np.testing.assert_allclose(out["out"].reshape(64, 4), want, rtol=1e-6, atol=1e-6)

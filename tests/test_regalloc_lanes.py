"""Per-lane liveness: a virtual VGPR written on both sides of an EXEC-masked if/else
(s_and_saveexec_b32 / s_xor_b32 exec_lo / s_or_b32 exec_lo) keeps the lanes the other side
wrote. The independent checker, run with the if/else's lane masks, accepts the allocation and
rejects the per-wave one (the same program with its EXEC writes hidden from the allocator),
and the allocated kernel gives every lane numpy's answer on the emulator."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import regalloc
from dsl.rdna3 import *  # noqa: F403
from tests.regalloc_check import verify
from tests.test_emu_machine import launch

THEN, ELSE, BOTH = 0b01, 0b10, 0b11      # abstract lanes: one where the condition holds, one where not


def divergent_kernel() -> Kernel:
    """out[i] = in[i] > 0 ? 2*in[i] : 4*in[i]; out[64 + i] = (in[i] + 3)^2 where in[i] > 0.
    %r is written on both sides; %t lives only inside the then-side, after %r's first write."""
    k = Kernel("gfx1100")
    pin, pout, save = k.sreg(2, name="pin"), k.sreg(2, name="pout"), k.sreg(name="save")
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    off, x, r, t = k.vreg(name="off"), k.vreg(name="x"), k.vreg(name="r"), k.vreg(name="t")
    k += v_lshlrev_b32(off, 2, v[0])
    k += global_load_b32(x, off, pin)
    k += s_waitcnt(0)
    k += v_cmp_lt_f32(vcc_lo, 0.0, x)
    k += s_and_saveexec_b32(save, vcc_lo)        # then: lanes with x > 0
    k += v_mul_f32(r, 2.0, x)
    k += v_add_f32(t, 3.0, x)
    k += v_mul_f32(t, t, t)
    k += global_store_b32(off, t, pout, offset=256)
    k += s_xor_b32(exec_lo, exec_lo, save)       # else: the other lanes
    k += v_mul_f32(r, 4.0, x)
    k += s_or_b32(exec_lo, exec_lo, save)        # join: all lanes
    k += global_store_b32(off, r, pout)
    k += s_endpgm()
    return k


def lane_masks(prog: regalloc.Program) -> list[int]:
    """The if/else's lanes per instruction, from where the program writes EXEC."""
    opens, flips, joins = [i for i, ins in enumerate(prog.instrs) if ins.writes_exec]
    return [THEN if opens < i <= flips else ELSE if flips < i <= joins else BOTH
            for i in range(len(prog.instrs))]


def test_exec_writes_found():
    prog = divergent_kernel().program()
    assert [prog.instrs[i].text.split()[0] for i, ins in enumerate(prog.instrs) if ins.writes_exec] == \
        ["s_and_saveexec_b32", "s_xor_b32", "s_or_b32"]


def test_checker_accepts_per_lane_allocation_and_rejects_per_wave_one():
    k = divergent_kernel()
    prog = k.program()
    masks = lane_masks(prog)
    counts = verify(prog, k.allocate(), masks)
    assert counts["reads_checked"] > 0
    # The same program with its EXEC writes hidden: the allocator's per-wave meaning, where
    # the else-side write of %r kills the then-side one and %t may take %r's register.
    per_wave = regalloc.Program([replace(ins, writes_exec=False) for ins in prog.instrs], prog.virtuals)
    old = regalloc.allocate(per_wave, k.allocate().limits)
    verify(per_wave, old)                                   # fine per wave ...
    with pytest.raises(AssertionError, match="lane 0 reads"):
        verify(prog, old, masks)                            # ... but lane 0 (then) loses %r


def test_divergent_kernel_matches_numpy_in_every_lane():
    k = divergent_kernel()
    x = np.linspace(-2, 2, 64).astype(np.float32)
    x[::3] *= -1                                          # interleave the two sides across lanes
    out, _ = launch(str(k.physical()), {"in": x, "out": np.zeros(128, np.float32)})
    want = np.where(x > 0, np.float32(2) * x, np.float32(4) * x)
    np.testing.assert_array_equal(out["out"][:64], want)
    sq = (x + np.float32(3)) * (x + np.float32(3))
    np.testing.assert_array_equal(out["out"][64:][x > 0], sq[x > 0])

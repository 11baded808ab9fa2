"""Spilling: a kernel with more values live than the register file compiles with VGPRs in
scratch and SGPRs in VGPR lanes, runs on Device("emu") and gives numpy's answer; random
programs (tests/regalloc_fuzz.py) squeezed into few registers still match the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import regalloc
from dsl.rdna3 import *  # noqa: F403
from runtime import Device, KernelArg, read_code_object
from runtime.writer import from_dsl_kernel
from tests.regalloc_fuzz import check

N = 32


def launch(k: Kernel, inp: np.ndarray, n: int = N) -> np.ndarray:
    args = [KernelArg(0, 8, "global_buffer", "inp", "global"), KernelArg(8, 8, "global_buffer", "out", "global")]
    hsaco = from_dsl_kernel(k, "t", args, user_sgpr_kernarg_segment_ptr=1, system_vgpr_workitem_id=0)
    dev = Device("emu", arch="gfx1100")
    a = dev.alloc(inp.nbytes).copyin(inp)
    o = dev.alloc(n * 4).copyin(np.zeros(n, np.uint32))
    dev.load(hsaco).launch("t", grid=(1, 1, 1), block=(n, 1, 1), args=[a, o])
    return o.copyout(np.uint32), read_code_object(hsaco).kernels["t"]


def many_values_kernel(n_vgpr: int, n_sgpr: int, **kernel_args) -> Kernel:
    """n_vgpr VGPR values t_j = x * (j + 3) and n_sgpr SGPR values u_j = seed + 5j, all live
    at once, then folded into acc in reverse order (add / xor alternating)."""
    k = Kernel("gfx1100", **kernel_args)
    pin, pout, off, x, seed = k.sreg(2), k.sreg(2), k.vreg(), k.vreg(), k.sreg()
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    k += v_lshlrev_b32(off, 2, v[0])
    k += global_load_b32(x, off, pin)
    k += s_load_b32(seed, pin, 0)
    k += s_waitcnt(0)
    vals = []
    for j in range(n_vgpr):
        t = k.vreg(name=f"t{j}")
        k += v_mul_lo_u32(t, x, j + 3)
        vals.append(t)
    svals = []
    for j in range(n_sgpr):
        u = k.sreg(name=f"u{j}")
        k += s_add_u32(u, seed, 5 * j)
        svals.append(u)
    acc = k.vreg(name="acc")
    k += v_mov_b32(acc, 0)
    for j, t in enumerate(reversed(vals)):
        k += v_xor_b32(acc, acc, t) if j % 2 else v_add_nc_u32(acc, acc, t)
    for u in reversed(svals):
        k += v_add_nc_u32(acc, u, acc)
    k += global_store_b32(off, acc, pout)
    k += s_endpgm()
    return k


def expected(inp: np.ndarray, n_vgpr: int, n_sgpr: int) -> np.ndarray:
    acc = np.zeros(len(inp), np.uint64)
    for j, m in enumerate(reversed(range(n_vgpr))):
        t = inp.astype(np.uint64) * (m + 3) & 0xFFFFFFFF
        acc = acc ^ t if j % 2 else (acc + t) & 0xFFFFFFFF
    for m in reversed(range(n_sgpr)):
        acc = (acc + ((int(inp[0]) + 5 * m) & 0xFFFFFFFF)) & 0xFFFFFFFF
    return acc.astype(np.uint32)


def test_kernel_needing_more_than_the_register_files_spills_and_runs():
    k = many_values_kernel(300, 120)
    a = k.allocate()
    assert a.peak["v"] <= 256 and a.vgprs <= 256 and a.sgprs <= 106
    assert len(k.spills.vgprs) >= 300 - 256              # at least the excess of the t_j went to scratch
    assert k.spills.sgprs and k.spills.spill_vgprs >= 1
    assert k.scratch_bytes == 4 * len(k.spills.vgprs) == k.stats()["scratch_bytes"]
    inp = (np.arange(N, dtype=np.uint32) * np.uint32(7919) + np.uint32(11))
    out, info = launch(k, inp)
    assert info.descriptor.private_segment_fixed_size == k.scratch_bytes
    assert info.descriptor.enable_private_segment == 1
    np.testing.assert_array_equal(out, expected(inp, 300, 120))


def test_requested_vgpr_limit_spills():
    k = many_values_kernel(40, 0)
    k.max_vgprs = 24
    assert k.vgprs <= 24 and k.spills.vgprs
    inp = np.arange(N, dtype=np.uint32) * np.uint32(0x01000193)
    out, _ = launch(k, inp)
    np.testing.assert_array_equal(out, expected(inp, 40, 0))


@pytest.mark.parametrize("wave", [32, 64])
def test_requested_limits_spill_both_files(wave):
    k = many_values_kernel(40, 30, wave_size=wave, max_vgprs=24, max_sgprs=12)
    assert k.vgprs <= 24 and k.sgprs <= 12 and k.spills.vgprs and k.spills.sgprs
    inp = np.arange(64, dtype=np.uint32) * np.uint32(7919) + np.uint32(11)
    out, _ = launch(k, inp, 64)
    np.testing.assert_array_equal(out, expected(inp, 40, 30))


def test_pressure_error_when_spilling_cannot_help():
    k = Kernel("gfx1100", max_vgprs=4)
    big = k.vreg(8)
    k += global_load_b128(big[0:3], v[0], s[0:1])
    k += global_load_b128(big[4:7], v[0], s[0:1], offset=16)
    k += s_waitcnt(0)
    k += global_store_b128(v[0], big[4:7], s[0:1])
    k += s_endpgm()
    with pytest.raises(regalloc.RegisterPressureError, match="spilling cannot help"):
        k.allocate()


@pytest.mark.parametrize("seed", range(6))
def test_random_programs_squeezed_into_few_registers(seed):
    r = check(seed, max_vgprs=20, max_sgprs=8)
    assert r.spilled and not r.mismatches, r.mismatches


def constants_kernel(n_const: int, **kernel_args) -> tuple[Kernel, list[int]]:
    """n_const constants c_j = 1000 + 37 j made at the top (v_mov_b32 of an immediate), all
    live until they are folded into acc at the end, with x * 3 beside them."""
    k = Kernel("gfx1100", **kernel_args)
    pin, pout, off, x = k.sreg(2), k.sreg(2), k.vreg(), k.vreg()
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    k += v_lshlrev_b32(off, 2, v[0])
    k += global_load_b32(x, off, pin)
    k += s_waitcnt(0)
    values = [1000 + 37 * j for j in range(n_const)]
    consts = []
    for j, c in enumerate(values):
        t = k.vreg(name=f"c{j}")
        k += v_mov_b32(t, c)
        consts.append(t)
    acc = k.vreg(name="acc")
    k += v_mul_lo_u32(acc, x, 3)
    for j, t in enumerate(reversed(consts)):
        k += v_xor_b32(acc, acc, t) if j % 2 else v_add_nc_u32(acc, acc, t)
    k += global_store_b32(off, acc, pout)
    k += s_endpgm()
    return k, values


def test_constants_are_recomputed_not_spilled():
    """Over the VGPR limit with only constants to give up: each is made again before its
    read (v_mov_b32 of the immediate), nothing goes to scratch."""
    k, values = constants_kernel(40, max_vgprs=16)
    assert k.vgprs <= 16
    assert k.spills.rematerialised and not k.spills.vgprs and k.scratch_bytes == 0
    assert k.stats()["rematerialised"] == len(k.spills.rematerialised) >= 40 - 16
    inp = np.arange(N, dtype=np.uint32) * np.uint32(7919) + np.uint32(11)
    out, info = launch(k, inp)
    assert info.descriptor.private_segment_fixed_size == 0
    acc = inp.astype(np.uint64) * 3 % 2**32
    for j, c in enumerate(reversed(values)):
        acc = acc ^ c if j % 2 else (acc + c) % 2**32
    np.testing.assert_array_equal(out, acc.astype(np.uint32))


def test_a_value_written_by_other_instructions_is_not_a_constant():
    from dsl.spill import constants
    k = Kernel("gfx1100")
    a, b, c = k.vreg(name="a"), k.vreg(name="b"), k.vreg(name="c")
    k += v_mov_b32(a, 5)
    k += v_mov_b32(b, 5)
    k += v_add_nc_u32(b, b, 1)                       # b also written by an add
    k += v_mov_b32(c, 5)
    k += v_mov_b32(c, 6)                             # c: two different immediates
    k += global_store_b32(v[0], a, s[0:1])
    k += global_store_b32(v[0], b, s[0:1])
    k += global_store_b32(v[0], c, s[0:1])
    k += s_endpgm()
    assert set(constants(k)) == {a.vid}

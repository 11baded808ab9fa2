"""Fused straight-line runs (emu/machine_fuse.py, switch fused_runs): a run's integer moves, adds,
carries, 64-bit shifts and scalar adds/compares computed on locals and stored once must give
what reference mode (every fast path off) and the switch off give, bit for bit, with EXEC
partly off, registers written and read again within the run (overlapping 64-bit pairs, a
destination that a later instruction reads, a moved value whose source is overwritten), and
VCC / SCC chains across instructions the fused form does and does not model. Each test checks
that the fused form ran (a test of a path nothing reaches proves nothing), and a few lanes
against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from emu import machine_runs
from emu.options import FAST, REFERENCE, options_from
from tests.emu_fuzz import fuzz
from tests.test_emu_fuzz import _run, _run_groups

OFF = options_from(off=["fused_runs"])


@pytest.fixture
def fused_calls(monkeypatch):
    """[calls of fused runs, calls of them that took the plain form at once, plain tails
    generated after a member left lanes of EXEC off]."""
    calls = [0, 0, 0]
    make, tail = machine_runs._fused, machine_runs._tail

    def counting_tail(tails, members, start):
        calls[2] += start not in tails
        return tail(tails, members, start)
    monkeypatch.setattr(machine_runs, "_tail", counting_tail)

    def counting(members, fused, plain):
        def counted_plain(*args):
            calls[1] += 1
            return plain(*args)
        fn = make(members, fused, counted_plain)

        def counted(chunk, sel, idx):
            calls[0] += 1
            return fn(chunk, sel, idx)
        return counted
    monkeypatch.setattr(machine_runs, "_fused", counting)
    return calls


def _agree(build, wave=32, groups=1):
    fast = _run_groups("gfx1100", wave, build, FAST, groups)
    reference = _run_groups("gfx1100", wave, build, REFERENCE, groups)
    without = _run_groups("gfx1100", wave, build, OFF, groups)
    np.testing.assert_array_equal(fast, reference)
    np.testing.assert_array_equal(fast, without)
    return fast


@pytest.mark.parametrize("wave", [32, 64])
def test_address_sums_carries_and_scalar_adds(wave, fused_calls):
    """sgemm_naive's loop body: 64-bit shifts, carry chains into 64-bit sums (the carry passed
    on as a local), scalar add and compare; s0 (the work-group) differs per wave."""
    from dsl.operands import lit, null, s, v, vcc, vcc_lo
    mask = vcc_lo if wave == 32 else vcc

    def build(ns):
        return [ns["v_mov_b32"](v[3], 0),
                ns["v_mad_u32_u24"](v[2], v[0], lit(0x0FFF_FFF1), s[0]),
                ns["v_mov_b32"](v[5], v[3]),
                ns["v_lshlrev_b64"](v[7:8], 2, v[2:3]),
                ns["v_add_nc_u32"](v[2], 1, v[2]),
                ns["s_add_i32"](s[6], s[0], -1),
                ns["s_cmp_eq_u32"](s[6], 0),
                ns["v_lshlrev_b64"](v[9:10], 33, v[4:5]),
                ns["v_add_co_u32"](v[7], mask, lit(0xFFFF_FF00), v[7]),
                ns["v_add_co_ci_u32"](v[8], null, s[0], v[8], mask),
                ns["v_add_co_u32"](v[9], mask, s[6], v[2]),
                ns["v_add_co_ci_u32"](v[10], mask, -1, v[10], mask),
                ns["v_add_co_ci_u32"](v[11], mask, -1, v[10], mask),
                ns["s_cselect_b32"](s[7], 5, 9),                  # reads SCC: s_cmp's result stored first
                ns["v_cndmask_b32"](v[12], 0, 1, mask),           # reads VCC as the run left it
                ns["v_mov_b32"](v[13], s[7]),
                ns["v_mov_b32"](v[14], s[6])]
    fast = _agree(build, wave, groups=3)
    assert fused_calls[0] > fused_calls[1]
    lane = np.arange(wave, dtype=np.uint64)
    for g in range(3):
        v2 = ((lane & 0xFFFFFF) * (0x0FFF_FFF1 & 0xFFFFFF) + g) & 0xFFFFFFFF
        addr = (v2 << 2) + 0xFFFF_FF00 + (g << 32)
        np.testing.assert_array_equal(fast[7, g], addr & 0xFFFFFFFF)
        np.testing.assert_array_equal(fast[8, g], (addr >> 32) & 0xFFFFFFFF)
        np.testing.assert_array_equal(fast[2, g], (v2 + 1) & 0xFFFFFFFF)
        s6 = (g - 1) & 0xFFFFFFFF
        np.testing.assert_array_equal(fast[14, g], s6)
        np.testing.assert_array_equal(fast[13, g], 5 if s6 == 0 else 9)
        low = s6 + ((v2 + 1) & 0xFFFFFFFF)
        np.testing.assert_array_equal(fast[9, g], low & 0xFFFFFFFF)


def test_exec_partly_off_and_written_inside_the_run(fused_calls):
    """A run entered with half the lanes off takes the plain form; a run whose unfused member
    writes EXEC leaving lanes off goes on in the plain form from the next member, the fused
    locals stored before that member."""
    from dsl.operands import exec_lo, lit, s, v, vcc_lo

    def build(ns):
        return [ns["v_mov_b32"](v[1], lit(0x1234_5678)),
                ns["v_add_nc_u32"](v[2], v[1], v[0]),
                ns["v_add_co_u32"](v[3], vcc_lo, lit(0xFFFF_FFF0), v[0]),
                ns["s_mov_b32"](s[4], lit(0x5555_AAAA)),
                ns["s_and_b32"](exec_lo, exec_lo, s[4]),            # half the lanes off
                ns["v_add_nc_u32"](v[4], v[2], v[0]),
                ns["v_add_co_ci_u32"](v[5], vcc_lo, v[3], 0, vcc_lo),
                ns["v_mov_b32"](v[2], 7),                          # a lane EXEC keeps off keeps v[2]
                ns["s_add_u32"](s[5], s[4], lit(0xC000_0000)),
                ns["s_cbranch_scc0"](0),
                ns["v_add_nc_u32"](v[6], v[2], v[4]),              # entered with half the lanes off
                ns["v_lshlrev_b64"](v[7:8], 4, v[5:6]),
                ns["s_mov_b32"](exec_lo, -1),
                ns["v_add_nc_u32"](v[9], v[7], v[8])]
    fast = _agree(build)[:, 0]
    assert fused_calls[0] > 0 and fused_calls[1] > 0 and fused_calls[2] > 0
    lane = np.arange(32, dtype=np.uint64)
    on = (0x5555_AAAA >> lane) & 1 == 1
    v2 = np.where(on, 7, (0x1234_5678 + lane) & 0xFFFFFFFF)
    np.testing.assert_array_equal(fast[2], v2)
    carry = (lane + 0xFFFF_FFF0) >> 32
    v5 = np.where(on, ((lane + 0xFFFF_FFF0) & 0xFFFFFFFF) + carry, 0) & 0xFFFFFFFF
    np.testing.assert_array_equal(fast[5], v5)


def test_registers_written_and_read_again(fused_calls):
    """Aliasing: a 64-bit shift into a pair overlapping its source, a destination read by the
    next instruction, a value moved from a register later overwritten (its local must keep the
    old value), a swap through a third register, a 64-bit shift by 0 and by 32."""
    from dsl.operands import lit, v

    def build(ns):
        return [ns["v_add_nc_u32"](v[1], lit(0x8000_0001), v[0]),
                ns["v_mov_b32"](v[2], lit(0x0F0F_0F0F)),
                ns["v_lshlrev_b64"](v[2:3], 3, v[1:2]),            # overlaps its source pair
                ns["v_mov_b32"](v[6], v[1]),                       # v6 takes v1 ...
                ns["v_add_nc_u32"](v[1], v[1], v[2]),              # ... then v1 is overwritten
                ns["v_mov_b32"](v[7], v[6]),
                ns["v_mov_b32"](v[6], v[3]),                       # swap v6 / v3 through v7
                ns["v_mov_b32"](v[3], v[7]),
                ns["v_lshlrev_b64"](v[8:9], 0, v[2:3]),
                ns["v_lshlrev_b64"](v[10:11], 32, v[1:2]),
                ns["v_lshlrev_b64"](v[12:13], 63, v[0:1]),
                ns["v_add_nc_u32"](v[14], v[9], v[11])]
    fast = _agree(build)[:, 0]
    assert fused_calls[0] > 0
    lane = np.arange(32, dtype=np.uint64)
    v1 = (0x8000_0001 + lane) & 0xFFFFFFFF
    pair = ((0x0F0F_0F0F << 32 | v1) << 3) & 0xFFFF_FFFF_FFFF_FFFF
    v2, v3 = pair & 0xFFFFFFFF, pair >> 32
    np.testing.assert_array_equal(fast[2], v2)
    np.testing.assert_array_equal(fast[3], v1)                     # v7 = the old v1
    np.testing.assert_array_equal(fast[6], v3)
    np.testing.assert_array_equal(fast[1], (v1 + v2) & 0xFFFFFFFF)
    np.testing.assert_array_equal(fast[8], v2)
    np.testing.assert_array_equal(fast[9], v1)
    np.testing.assert_array_equal(fast[10], 0)
    np.testing.assert_array_equal(fast[11], (v1 + v2) & 0xFFFFFFFF)


def test_scalar_carries_and_overflow_feed_later_steps(fused_calls):
    """s_add_u32's carry and s_add_i32's signed overflow in SCC, read by s_addc_u32 and
    s_cselect_b32 (steps of their own: the fused SCC stored before them), against Python ints."""
    from dsl.operands import lit, s, v

    def build(ns):
        return [ns["s_mov_b32"](s[2], lit(0x7FFF_FFFF)),
                ns["s_add_i32"](s[3], s[2], 1),                   # overflows
                ns["s_cselect_b32"](s[4], 11, 12),
                ns["s_add_u32"](s[5], s[3], lit(0x8000_0000)),    # carries
                ns["s_addc_u32"](s[6], s[5], 0),
                ns["s_add_i32"](s[7], s[6], -1),
                ns["s_cmp_lg_u32"](s[7], 0),
                ns["s_cselect_b32"](s[8], 21, 22),
                ns["v_mov_b32"](v[1], s[4]),
                ns["v_mov_b32"](v[2], s[6]),
                ns["v_mov_b32"](v[3], s[8]),
                ns["v_add_nc_u32"](v[4], s[7], v[0])]
    fast = _agree(build, groups=2)[:, 0]
    assert fused_calls[0] > 0
    np.testing.assert_array_equal(fast[1], 11)
    np.testing.assert_array_equal(fast[2], 1)                      # 0x8000_0000 + 0x8000_0000 = 0, carry 1
    np.testing.assert_array_equal(fast[3], 22)                     # s7 = 0
    np.testing.assert_array_equal(fast[4], np.arange(32))


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx942-w64"])
def test_random_programs_agree_with_the_switch_off(target):
    """The fuzzer's random programs with the switch on against it off (and against full
    reference mode through the fuzzer's own comparison)."""
    report = fuzz(range(6), (target,), options=OFF, fast=FAST)
    assert report.programs == 6 and report.instructions > 0
    assert not report.failures, "\n\n".join(f"{t} seed {s}: {d}\n{listing}" for t, s, d, listing in report.failures)
    assert not report.crashes, "\n".join(f"{t} seed {s}: {fault}" for t, s, fault, _ in report.crashes)


def test_switch_off_generates_no_fused_form(fused_calls):
    from dsl.operands import v

    def build(ns):
        return [ns["v_add_nc_u32"](v[1], 1, v[0]), ns["v_add_nc_u32"](v[2], 1, v[1])]
    _run("gfx1100", 32, build, OFF)
    assert fused_calls == [0, 0, 0]
    _run("gfx1100", 32, build, FAST)
    assert fused_calls[0] > 0


@pytest.mark.parametrize("wave", [32, 64])
def test_compares_and_selects(wave, fused_calls):
    """Integer compares into VCC and an SGPR pair (lane bits kept as locals), selects by them
    and by a mask the run did not compute, a scalar instruction reading the compare's SGPR
    (the bits stored before it), against numpy."""
    from dsl.operands import lit, s, v, vcc, vcc_lo
    mask = vcc_lo if wave == 32 else vcc
    pair = s[10] if wave == 32 else s[10:11]

    def build(ns):
        return [ns["v_add_nc_u32"](v[1], lit(0x7FFF_FFF0), v[0]),
                ns["v_cmp_gt_u32"](mask, lit(0x7FFF_FFF8), v[1]),       # unsigned: lanes 0-7
                ns["v_cndmask_b32"](v[2], 100, v[0], mask),
                ns["v_cmp_lt_i32"](pair, v[1], lit(0x8000_0004)),     # signed: lanes 16-19 (v1 wrapped negative)
                ns["v_cmp_ne_u32"](mask, 5, v[0]),
                ns["v_cndmask_b32"](v[3], v[2], 7, pair),
                ns["v_cndmask_b32"](v[4], v[2], 9, mask),
                ns["s_mov_b32"](s[12], s[10]),                         # the SGPR bits stored first
                ns["v_cmp_ge_i32"](mask, v[1], lit(0x7FFF_FFFC)),
                ns["v_mov_b32"](v[5], s[12]),
                ns["v_cndmask_b32"](v[6], 1, 2, mask)]
    fast = _agree(build, wave)[:, 0]
    assert fused_calls[0] > 0
    lane = np.arange(wave, dtype=np.int64)
    v1 = 0x7FFF_FFF0 + lane                                            # signed: lanes 16.. wrap negative
    v2 = np.where(0x7FFF_FFF8 > v1, lane, 100)
    np.testing.assert_array_equal(fast[2], v2)
    signed = np.where(v1 >= 2 ** 31, v1 - 2 ** 32, v1)
    np.testing.assert_array_equal(fast[3], np.where(signed < -(2 ** 31) + 4, 7, v2))
    np.testing.assert_array_equal(fast[4], np.where(lane != 5, 9, v2))
    np.testing.assert_array_equal(fast[6], np.where(signed >= 0x7FFF_FFFC, 2, 1))
    bits = int(((signed < -(2 ** 31) + 4).astype(np.uint64) << lane.astype(np.uint64)).sum())
    np.testing.assert_array_equal(fast[5], bits & 0xFFFFFFFF)


def test_logic_shifts_and_scalar_moves(fused_calls):
    """Bitwise ops, 32-bit shifts by constants and by registers (counts past 31 use bits 4:0),
    subtraction, and the scalar forms with their SCC (D0 != 0), against numpy; s0 differs per
    wave."""
    from dsl.operands import lit, s, v

    def build(ns):
        return [ns["v_lshlrev_b32"](v[1], 3, v[0]),
                ns["v_add_nc_u32"](v[2], 33, v[0]),                    # shift counts 33.. (bits 4:0: 1..)
                ns["v_lshrrev_b32"](v[3], v[2], lit(0xF000_0001)),
                ns["v_lshlrev_b32"](v[4], v[2], v[1]),
                ns["v_sub_nc_u32"](v[5], v[0], v[1]),                  # wraps
                ns["v_and_b32"](v[6], lit(0x0000_FF0F), v[5]),
                ns["v_or_b32"](v[7], s[0], v[6]),
                ns["v_xor_b32"](v[8], v[7], v[3]),
                ns["s_mov_b32"](s[4], s[0]),
                ns["s_lshl_b32"](s[5], s[4], 36),                      # count 4
                ns["s_and_b32"](s[6], s[5], 16),                       # SCC: s0 & 1
                ns["s_cselect_b32"](s[7], 1, 2),
                ns["s_or_b32"](s[8], s[6], s[7]),
                ns["s_xor_b32"](s[9], s[8], s[8]),                     # 0: SCC 0
                ns["s_lshr_b32"](s[10], s[5], 1),
                ns["s_cselect_b32"](s[11], 3, 4),
                ns["s_mov_b32"](s[4], 77),                             # s4 rewritten after s5 read it
                ns["v_mov_b32"](v[9], s[8]),
                ns["v_mov_b32"](v[10], s[10]),
                ns["v_mov_b32"](v[11], s[11]),
                ns["v_mov_b32"](v[12], s[4])]
    fast = _agree(build, groups=3)
    assert fused_calls[0] > 0
    lane = np.arange(32, dtype=np.uint64)
    m = 0xFFFFFFFF
    v1 = (lane << 3) & m
    count = (33 + lane) & 31
    for g in range(3):
        out = fast[:, g]
        np.testing.assert_array_equal(out[3], 0xF000_0001 >> count)
        np.testing.assert_array_equal(out[4], (v1 << count) & m)
        v5 = (lane - v1) & m
        np.testing.assert_array_equal(out[5], v5)
        v7 = g | (v5 & 0xFF0F)
        np.testing.assert_array_equal(out[8], v7 ^ (0xF000_0001 >> count))
        s5, s6 = g << 4, (g << 4) & 16
        s7 = 1 if s6 else 2
        np.testing.assert_array_equal(out[9], s6 | s7)
        np.testing.assert_array_equal(out[10], s5 >> 1)
        np.testing.assert_array_equal(out[11], 3 if s5 >> 1 else 4)
        np.testing.assert_array_equal(out[12], 77)


def test_carry_out_into_exec_is_not_fused(fused_calls):
    """Found by the fuzzer (gfx1201 seed 109): v_add_co_ci_u32's carry-out written to EXEC
    turns lanes off for the instructions after it; it runs its own step, and the rest of the
    run the plain form."""
    from dsl.operands import exec_lo, lit, v, vcc_lo

    def build(ns):
        return [ns["v_add_nc_u32"](v[1], lit(0xFFFF_FFF0), v[0]),
                ns["v_cmp_gt_u32"](vcc_lo, 20, v[0]),
                ns["v_add_co_ci_u32"](v[2], exec_lo, 0, v[1], vcc_lo),     # carry: lanes 15-19
                ns["v_add_nc_u32"](v[3], 7, v[0]),
                ns["v_mov_b32"](v[4], v[2])]
    fast = _agree(build)[:, 0]
    assert fused_calls[0] > 0
    lane = np.arange(32, dtype=np.uint64)
    carry = ((lane + 0xFFFF_FFF0) & 0xFFFFFFFF) + (lane < 20) > 0xFFFFFFFF
    np.testing.assert_array_equal(fast[3], np.where(carry, lane + 7, 0))

"""The LDS path's fast cases against their general paths and numpy: split DS addresses
(one index array per instruction, shared by the two accesses of a *_2ADDR form), 64-bit
register joins and splits through a uint32 view, and set_field of a whole dword. Each fast
path has a guard; both sides are exercised here (partial EXEC, out-of-range and misaligned
addresses, offsets at the top of LDS, non-contiguous values)."""
from __future__ import annotations

import numpy as np
import pytest

from emu import rtlib
from emu.machine import EmuFault
from emu.memory import MemoryFault, RegionMemory, SplitAddresses
from emu.wave import join_dwords, split_dwords
from .test_emu_machine import launch, loads

RNG = np.random.default_rng(11)
SIZE, GROUPS, WAVES, LANES = 256, 3, 6, 32          # two waves per work-group's region


def region():
    data = RNG.integers(0, 256, SIZE * GROUPS + 8, dtype=np.uint8)
    return data, RegionMemory("LDS", data, SIZE, (np.arange(WAVES) // 2 * SIZE).astype(np.int64)[:, None])


def reference(data, addr, nbytes):
    """Little-endian nbytes at each wave's region + addr, byte by byte."""
    at = np.asarray(addr, np.int64) + (np.arange(WAVES) // 2 * SIZE)[:, None]
    return sum(data[at + i].astype(np.uint64) << np.uint64(8 * i) for i in range(nbytes))


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8])
@pytest.mark.parametrize("constant", [0, 8, 16])
def test_split_addresses_load_and_store_as_their_sums(nbytes, constant):
    data, mem = region()
    off = (RNG.integers(0, (SIZE - 16) // nbytes, (WAVES, LANES)) * nbytes).astype(np.uint32)
    addr = SplitAddresses(np.zeros((1, 1), np.uint64), off) & np.uint64(0xFFFFFFFF)
    assert type(addr) is SplitAddresses                 # .u32 of a zero base stays split
    moved = addr + np.uint64(constant)
    assert type(moved) is SplitAddresses and moved.facts is addr.facts
    assert mem._split_indices(moved, nbytes, np.ones((1, 1), bool)) is not None     # the fast side
    assert (mem.load(moved, nbytes, np.ones((1, 1), bool)) == reference(data, off + constant, nbytes)).all()
    # a store: the highest lane of a shared address wins, as the per-lane path's assignment does
    value = RNG.integers(0, 2**63, (WAVES, LANES), dtype=np.uint64)
    fast, slow = data.copy(), data.copy()
    RegionMemory("LDS", fast, SIZE, mem.base).store(moved, nbytes, value, np.ones((1, 1), bool))
    RegionMemory("LDS", slow, SIZE, mem.base).store(np.asarray(moved), nbytes, value, np.ones((1, 1), bool))
    assert (fast == slow).all()


def test_partial_mask_reads_and_writes_only_the_active_lanes():
    """A partial EXEC (EmuOptions.masked_regions): the active lanes' addresses decide bounds
    and alignment; inactive lanes may hold any address (here out of range and misaligned),
    read as 0 and write nothing, the same as on the per-lane path (the switch off)."""
    from emu.options import activate, deactivate, options_from
    data, mem = region()
    off = (RNG.integers(0, SIZE // 4 - 1, (WAVES, LANES)) * 4).astype(np.uint32)
    mask = RNG.random((WAVES, LANES)) < 0.5
    wild = np.where(mask, off, RNG.integers(0, 2**32, (WAVES, LANES), dtype=np.uint64).astype(np.uint32))
    split = SplitAddresses(np.full((1, 1), 4, np.uint64), wild)
    assert mem._split_indices(split, 4, mask) is not None          # the fast side
    want = np.where(mask, reference(data, off + 4, 4), 0)
    assert (mem.load(split, 4, mask) == want).all()
    value = RNG.integers(0, 2**32, (WAVES, LANES), dtype=np.uint64).astype(np.uint32)
    fast = data.copy()
    RegionMemory("LDS", fast, SIZE, mem.base).store(SplitAddresses(np.full((1, 1), 4, np.uint64), wild), 4, value, mask)
    token = activate(options_from(off=["masked_regions"]))
    try:
        assert mem._split_indices(SplitAddresses(np.full((1, 1), 4, np.uint64), off), 4, mask) is None
        assert (mem.load(SplitAddresses(np.full((1, 1), 4, np.uint64), off), 4, mask) == want).all()
        slow = data.copy()
        RegionMemory("LDS", slow, SIZE, mem.base).store(SplitAddresses(np.full((1, 1), 4, np.uint64), off), 4,
                                                        value, mask)
    finally:
        deactivate(token)
    assert (fast == slow).all() and (fast != data).any()
    # numpy's own scatter of the active lanes: the reference for what the store wrote
    expect = data.copy()
    at = (off.astype(np.int64) + 4 + (np.arange(WAVES) // 2 * SIZE)[:, None])[mask]
    for a, v in zip(at, value[mask]):
        expect[a:a + 4] = np.frombuffer(int(v).to_bytes(4, "little"), np.uint8)
    assert (fast == expect).all()
    # an active lane out of range is a fault naming that lane; misaligned active lanes are
    # assembled byte by byte (the per-lane path)
    bad = wild.copy()
    w, lane = np.argwhere(mask)[0]
    bad[w, lane] = SIZE
    with pytest.raises(MemoryFault) as fault:
        mem.load(SplitAddresses(np.full((1, 1), 4, np.uint64), bad), 4, mask)
    assert fault.value.position == (w, lane)
    bad[w, lane] = 2
    assert mem._split_indices(SplitAddresses(np.full((1, 1), 4, np.uint64), bad), 4, mask) is None


def test_misaligned_and_out_of_range_take_the_per_lane_path():
    data, mem = region()
    off = (RNG.integers(0, SIZE // 4 - 1, (WAVES, LANES)) * 4).astype(np.uint32)
    odd = SplitAddresses(np.full((1, 1), 2, np.uint64), off)           # misaligned: assembled by bytes
    assert mem._split_indices(odd, 4, np.ones((1, 1), bool)) is None
    assert (mem.load(odd, 4, np.ones((1, 1), bool)) == reference(data, off + 2, 4)).all()
    top = np.zeros((WAVES, LANES), np.uint32)
    top[4, 7] = SIZE - 8                               # the last dword pair: in bounds
    assert mem._split_indices(SplitAddresses(np.full((1, 1), 4, np.uint64), top), 4, np.ones((1, 1), bool)) is not None
    with pytest.raises(MemoryFault) as fault:          # one dword further: the lane and address are named
        mem.load(SplitAddresses(np.full((1, 1), 8, np.uint64), top), 4, np.ones((1, 1), bool))
    assert fault.value.position == (4, 7) and fault.value.address == SIZE


@pytest.mark.parametrize("lanes_on", [0xFFFFFFFF, 0x0F0F33C1])
def test_ds_2addr_loads_and_stores_in_a_kernel(lanes_on):
    """ds_store_b32, ds_load_2addr_b32 and ds_load_2addr_b64 with every lane on and with a
    partial EXEC (v_cmpx): inactive lanes keep their registers, active ones read LDS."""
    x = RNG.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    src = loads("x", "a", "b", "c") + f"""
        v_lshlrev_b32 v2, 2, v0
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        ds_store_b32 v2, v3
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v4, 0x{lanes_on:x}
        v_lshrrev_b32 v4, v0, v4
        v_and_b32 v4, 1, v4
        v_mov_b32 v10, 7
        v_mov_b32 v11, 9
        v_mov_b32 v12, 5
        v_mov_b32 v13, 6
        v_mov_b32 v14, 3
        v_mov_b32 v15, 4
        v_and_b32 v5, 0x78, v2                    // (id % 32) * 4 rounded down to 8 bytes
        v_cmpx_ne_u32 0, v4
        ds_load_2addr_b32 v[10:11], v5 offset0:1 offset1:32
        ds_load_2addr_b64 v[12:15], v5 offset0:1 offset1:15
        s_mov_b32 exec_lo, -1
        v_xor_b32 v10, v10, v11
        v_xor_b32 v12, v12, v15
        v_add_nc_u32 v13, v13, v14
        global_store_b32 v2, v10, s[6:7]
        global_store_b32 v2, v12, s[8:9]
        global_store_b32 v2, v13, s[10:11]
        s_endpgm"""
    z = np.zeros(64, np.uint32)
    got, _ = launch(src, {"x": x, "a": z, "b": z, "c": z}, block=(64, 1, 1), lds=256)
    lane = np.arange(64)
    on = (lanes_on >> (lane % 32) & 1).astype(bool)
    word = (lane % 32) // 2 * 2                          # the dword index v5 / 4
    dword = lambda k: x[word + k]                       # noqa: E731
    assert (got["a"] == np.where(on, dword(1) ^ dword(32), 7 ^ 9)).all()
    assert (got["b"] == np.where(on, dword(2) ^ dword(31), 5 ^ 4)).all()
    assert (got["c"] == np.where(on, dword(3) + dword(30), 6 + 3)).all()


def test_ds_2addr_past_the_top_faults_naming_lane_and_address():
    src = """v_lshlrev_b32 v1, 3, v0
        ds_load_2addr_b32 v[2:3], v1 offset1:2
        s_endpgm"""                                 # lane 31 reads 248 and 256: one past 256 bytes
    with pytest.raises(EmuFault, match=r"lane 31 .*LDS address 0x100 .*256 bytes of LDS"):
        launch(src, {}, block=(32, 1, 1), lds=256)


def test_dword_joins_splits_and_whole_dword_fields():
    lo, hi = (RNG.integers(0, 2**32, (5, 32), dtype=np.uint64).astype(np.uint32) for _ in range(2))
    want = lo.astype(np.uint64) | hi.astype(np.uint64) << np.uint64(32)
    regs = np.stack([lo, hi])                                  # register-major, as the VGPR file
    assert (join_dwords(np.moveaxis(regs, 0, 2), 2) == want).all()
    for value in (want, want[:, ::2]):                           # contiguous: a view; strided: a copy
        parts = split_dwords(value, 2)
        assert (parts[..., 0] == value & np.uint64(0xFFFFFFFF)).all() and (parts[..., 1] == value >> np.uint64(32)).all()
    for field, (h, l) in ((lo, (31, 0)), (hi, (63, 32))):
        mask = np.uint64(0xFFFFFFFF) << np.uint64(l)
        expect = (want & ~mask) | (field.astype(np.uint64) << np.uint64(l))
        assert (rtlib.set_field(want, h, l, field) == expect).all()                       # uint32: in place
        assert (rtlib.set_field(want, h, l, field.astype(np.uint64)) == expect).all()     # general path
    assert (rtlib.set_field(want, 47, 16, lo) == (want & ~np.uint64(0xFFFFFFFF << 16)) |
            (lo.astype(np.uint64) << np.uint64(16))).all()


def test_dw_set_of_a_64_bit_field():
    value = RNG.integers(0, 2**63, (5, 32), dtype=np.uint64)
    zeros = rtlib.dw_zeros(type("Ctx", (), {"shape": value.shape})(), 4)
    for lo, n in ((64, 4), (32, 4), (0, 3)):       # an aligned uint64 of the dwords; else shifts
        got = rtlib.dw_set(zeros[..., :n], lo, 64, value)
        k = lo // 32
        assert got.shape == value.shape + (n,) and not np.delete(got, [k, k + 1], -1).any()
        assert (got[..., k] == value & np.uint64(0xFFFFFFFF)).all() and (got[..., k + 1] == value >> np.uint64(32)).all()

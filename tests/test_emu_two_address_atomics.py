"""Two-address LDS exchanges (RDNA's DS_STOREXCHG_2ADDR*_RTN_*, CDNA's DS_WRXCHG2*_RTN_*) whose
lanes' addresses cross: one lane's second element is another lane's first. The memory system
applies the lanes one after another in lane order (wave-major), so the lane-by-lane reference
here is the manuals' pseudocode run for lane 0, then lane 1, ... (written here, independent of
the emulator):

    addr1 = ADDR_BASE + OFFSET0 * size (* 64 for STRIDE64 / ST64); addr2 = ... OFFSET1 ...
    tmp1 = MEM[addr1]; tmp2 = MEM[addr2]; MEM[addr1] = DATA; MEM[addr2] = DATA2
    RETURN_DATA = tmp2 : tmp1

Checked on the semantics directly (batches of waves in two work-groups' LDS regions, partial
EXEC) and through the machine (assembled instructions), in fast and reference mode and with the
one pass (emu/atomic_words.one_pass_exchange, for lanes sharing both elements or none) off."""
from __future__ import annotations

import numpy as np
import pytest

from emu.memory import RegionMemory
from emu.options import FAST, REFERENCE, activate, deactivate, options_from
from emu.semantics import Ctx
from emu.table import load_semantics

from .test_emu_machine import launch, loads

# name: (arch, element bytes, element stride: 1, or 64 for the STRIDE64 / ST64 forms)
EXCHANGES = {
    "DS_STOREXCHG_2ADDR_RTN_B32 gfx1100": ("gfx1100", 4, 1),
    "DS_STOREXCHG_2ADDR_RTN_B64 gfx1100": ("gfx1100", 8, 1),
    "DS_STOREXCHG_2ADDR_STRIDE64_RTN_B32 gfx1100": ("gfx1100", 4, 64),
    "DS_STOREXCHG_2ADDR_STRIDE64_RTN_B64 gfx1100": ("gfx1100", 8, 64),
    "DS_STOREXCHG_2ADDR_RTN_B32 gfx1201": ("gfx1201", 4, 1),
    "DS_STOREXCHG_2ADDR_STRIDE64_RTN_B64 gfx1201": ("gfx1201", 8, 64),
    "DS_WRXCHG2_RTN_B32 gfx942": ("gfx942", 4, 1),
    "DS_WRXCHG2_RTN_B64 gfx942": ("gfx942", 8, 1),
    "DS_WRXCHG2ST64_RTN_B32 gfx942": ("gfx942", 4, 64),
    "DS_WRXCHG2ST64_RTN_B64 gfx942": ("gfx942", 8, 64),
}
# (OFFSET0, OFFSET1): the second element one step past the first (a neighbour's first), before
# it, two steps past, and both at one element (the lane's own two stores: DATA2 stays)
OFFSETS = [(0, 1), (1, 0), (0, 2), (1, 1)]


def lane_by_lane(lds: np.ndarray, region: int, groups, bases, off0, off1, data, data2, active, size, stride):
    """The pseudocode above for each active lane in lane order (wave-major): (returned values
    (W, L, 2) as Python ints, the LDS bytes after). groups: each wave's work-group."""
    lds = lds.copy()
    ret = {}
    dt = np.uint64 if size == 8 else np.uint32
    for w, lane in zip(*np.nonzero(active)):
        at = groups[w] * region + int(bases[w, lane])
        addr1, addr2 = at + off0 * size * stride, at + off1 * size * stride
        tmp1 = int(lds[addr1:addr1 + size].view(dt)[0])
        tmp2 = int(lds[addr2:addr2 + size].view(dt)[0])
        lds[addr1:addr1 + size] = np.array([data[w, lane]], dt).view(np.uint8)
        lds[addr2:addr2 + size] = np.array([data2[w, lane]], dt).view(np.uint8)
        ret[w, lane] = (tmp1, tmp2)
    return ret, lds


def _returned(out, shape, size):
    """RETURN_DATA as (W, L, 2) Python ints: (tmp1, tmp2). 64 bits come as one uint64 per lane,
    wider ones as dwords (the semantics contract)."""
    r = np.asarray(out["RETURN_DATA"])
    if r.ndim == 2:
        r = np.stack([r & np.uint64(0xFFFFFFFF), r >> np.uint64(32)], axis=-1)
    r = np.broadcast_to(r, shape + (2 * size // 4,))
    per = size // 4
    pairs = np.zeros(shape + (2,), object)
    for k in range(2):
        pairs[..., k] = sum(r[..., k * per + j].astype(object) << (32 * j) for j in range(per))
    return pairs


MODES = (("fast", FAST), ("no one pass", options_from(off=["one_pass_exchanges"])), ("reference", REFERENCE))


def _check_semantics(name, offsets, spacing, monkeypatch):
    """Four waves (two per work-group's LDS region), random EXEC with wave 0 full, lane bases
    drawn from four elements `spacing` apart: returned values and the LDS after, in every
    mode, against lane_by_lane. Returns what the one pass gave in fast mode (None: declined)."""
    import emu.atomic_words
    passes = []
    real = emu.atomic_words.one_pass_exchange
    monkeypatch.setattr(emu.atomic_words, "one_pass_exchange", lambda *a: passes.append(real(*a)) or passes[-1])
    arch, size, stride = EXCHANGES[name]
    off0, off1 = offsets
    sem = load_semantics(arch).lookup(name.split()[0])
    rng = np.random.default_rng(sum(map(ord, name)) + 7 * off0 + off1 + spacing)
    lanes = 64 if arch == "gfx942" else 32
    waves = 4
    shape = (waves, lanes)
    step = size * stride
    bases = (rng.integers(0, 4, shape) * spacing * step).astype(np.uint64)
    region = (4 * spacing + 4) * step
    groups = [0, 0, 1, 1]
    regions = np.array([[g * region] for g in groups], np.int64)
    dt = np.uint64 if size == 8 else np.uint32
    data = rng.integers(0, 2**(8 * size - 1), shape, dtype=np.uint64).astype(dt)
    data2 = rng.integers(0, 2**(8 * size - 1), shape, dtype=np.uint64).astype(dt)
    init = rng.integers(0, 256, 2 * region).astype(np.uint8)
    exec_mask = rng.integers(0, 2**lanes, (waves, 1), dtype=np.uint64)
    exec_mask[0, 0] = 2**lanes - 1
    active = ((exec_mask >> np.arange(lanes, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    want_ret, want_lds = lane_by_lane(init, region, groups, bases, off0, off1, data, data2, active, size, stride)
    for label, options in MODES:
        mem = RegionMemory("LDS", init.copy(), region, regions)
        token = activate(options)
        try:
            out = sem.execute(Ctx(lanes=lanes, exec_mask=exec_mask, mem=mem, inputs={
                "ADDR_BASE": bases, "ADDR": bases + np.uint64(off1 << 8 | off0), "OFFSET0": off0, "OFFSET1": off1,
                "OFFSET": off1 << 8 | off0, "DATA": data, "DATA2": data2,
                "RETURN_DATA": np.zeros(shape, np.uint64) if size == 4 else np.zeros(shape + (4,), np.uint32)}))
        finally:
            deactivate(token)
        got = _returned(out, shape, size)
        assert {k: (int(got[k][0]), int(got[k][1])) for k in want_ret} == want_ret, label
        assert mem.data.tolist() == want_lds.tolist(), label
    assert len(passes) == 1             # asked in fast mode only
    return passes[0]


@pytest.mark.parametrize("offsets", OFFSETS, ids=[f"offset{a}-{b}" for a, b in OFFSETS])
@pytest.mark.parametrize("name", sorted(EXCHANGES))
def test_crossing_two_address_exchanges_apply_in_lane_order(name, offsets, monkeypatch):
    """Bases one element apart: second elements meet other lanes' first ones (unless both
    offsets are equal), so the one pass declines and the lanes run in rounds by word."""
    declined = _check_semantics(name, offsets, 1, monkeypatch) is None
    assert declined == (offsets[0] != offsets[1])


@pytest.mark.parametrize("offsets", OFFSETS, ids=[f"offset{a}-{b}" for a, b in OFFSETS])
@pytest.mark.parametrize("name", sorted(EXCHANGES))
def test_exchanges_sharing_both_elements_take_one_pass(name, offsets, monkeypatch):
    """Bases far enough apart that lanes share both elements or none: the one pass runs (each
    lane returns what the lane before it stored) and agrees with lane_by_lane and rounds."""
    assert _check_semantics(name, offsets, max(offsets) + 1, monkeypatch) is not None


MACHINE = {   # arch, wave: mnemonic (LLVM's spelling), element bytes, stride
    ("gfx1100", 32): [("ds_storexchg_2addr_rtn_b32", 4, 1), ("ds_storexchg_2addr_stride64_rtn_b64", 8, 64)],
    ("gfx1100", 64): [("ds_storexchg_2addr_rtn_b64", 8, 1), ("ds_storexchg_2addr_stride64_rtn_b32", 4, 64)],
    ("gfx942", 64): [("ds_wrxchg2_rtn_b32", 4, 1), ("ds_wrxchg2st64_rtn_b64", 8, 64)],
}


@pytest.mark.parametrize("options", [FAST, REFERENCE], ids=["fast", "reference"])
@pytest.mark.parametrize("spacing", [1, 2], ids=["crossing", "apart"])
@pytest.mark.parametrize("arch,wave,mnemonic,size,stride",
                         [(a, w, m, s, t) for (a, w), cases in MACHINE.items() for m, s, t in cases])
def test_machine_exchange_in_lane_order(arch, wave, mnemonic, size, stride, spacing, options):
    """One work-group of two waves: lane i's base is element (i % 8) * spacing and offset1:1
    reaches the element after it: with spacing 1 another lane's first element (crossing), with
    spacing 2 no other lane's (lanes share both elements or none); the LDS starts as words 0, 1, 2, ...
    Each lane exchanges DATA = 1000 + id, DATA2 = 2000 + id (high dwords 0). The returned
    values and the LDS after, against lane_by_lane."""
    block = 2 * wave
    per = size // 4
    words = ((8 * spacing + 1) * size * stride) // 4
    lds0 = np.arange(words, dtype=np.uint32)
    gfx9 = arch == "gfx942"
    load_b32, store_b32 = ("global_load_dword", "global_store_dword") if gfx9 else ("global_load_b32", "global_store_b32")
    ds_store, ds_load = ("ds_write_b32", "ds_read_b32") if gfx9 else ("ds_store_b32", "ds_load_b32")
    add, mul, lshl = ("v_add_u32", "v_mul_u32_u24", "v_lshlrev_b32") if gfx9 else \
        ("v_add_nc_u32", "v_mul_u32_u24", "v_lshlrev_b32")
    wait = "s_waitcnt vmcnt(0) lgkmcnt(0)"
    fill_per = -(-words // block)
    fill = "".join(f"{load_b32} v20, v21, s[4:5] offset:{4 * k}\n{wait}\n{ds_store} v21, v20 offset:{4 * k}\n"
                   for k in range(fill_per))
    back = "".join(f"{ds_load} v20, v21 offset:{4 * k}\n{wait}\n{store_b32} v21, v20, s[8:9] offset:{4 * k}\n"
                   for k in range(fill_per))
    data, dst = ("v[10:11], v[12:13]", "v[14:17]") if per == 2 else ("v10, v12", "v[14:15]")
    loads_ = "\n".join(f"s_load_dwordx2 s[{4 + 2 * i}:{5 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(3)) \
        + "\ns_waitcnt lgkmcnt(0)\n" if gfx9 else loads("lds", "ret", "after")
    src = loads_ + f"""
        {mul} v21, {4 * fill_per}, v0
        {fill}
        s_barrier
        {add} v10, 1000, v0
        {add} v12, 2000, v0
        v_mov_b32 v11, 0
        v_mov_b32 v13, 0
        v_and_b32 v3, 7, v0
        {mul} v3, {spacing * size * stride}, v3
        {mnemonic} {dst}, v3, {data} offset1:1
        {wait}
        s_barrier
        {lshl} v7, 4, v0
        """ + "".join(f"{store_b32} v7, v{14 + k}, s[6:7] offset:{4 * k}\n" for k in range(2 * per)) + \
        f"{wait}\n" + back + "s_endpgm"
    padded = np.zeros(fill_per * block, np.uint32)
    padded[:words] = lds0
    token = activate(options)
    try:
        got, _ = launch(src, {"lds": padded, "ret": np.zeros(block * 4, np.uint32),
                              "after": np.zeros(fill_per * block, np.uint32)},
                        block=(block, 1, 1), wave=wave, arch=arch, lds=fill_per * block * 4, vgprs=32)
    finally:
        deactivate(token)
    shape = (2, wave)
    ids = np.arange(block).reshape(shape)
    bases = ((ids % 8) * spacing * size * stride).astype(np.uint64)
    want_ret, want_lds = lane_by_lane(padded.view(np.uint8), 0, [0, 0], bases, 0, 1, 1000 + ids, 2000 + ids,
                                      np.ones(shape, bool), size, stride)
    ret = got["ret"].reshape(block, 4)[:, :2 * per].astype(object)
    for (w, lane), (tmp1, tmp2) in want_ret.items():
        i = w * wave + lane
        pair = [sum(int(ret[i, k * per + j]) << (32 * j) for j in range(per)) for k in range(2)]
        assert pair == [tmp1, tmp2], (w, lane)
    assert got["after"].tolist() == want_lds.view(np.uint32).tolist()

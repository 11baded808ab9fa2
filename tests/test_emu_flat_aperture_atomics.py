"""FLAT atomics whose addresses fall in the LDS and scratch apertures (issue 18), against an
independent lane-by-lane reference written here.

A flat address in the shared aperture is a word of the lane's work-group LDS, one in the private
aperture a word of the lane's own scratch (RDNA3 manual 10.2 / CDNA3 9.2, "Flat Memory
Instructions"), so the same flat address in two work-groups, or in two lanes' scratch, is two
words. Lanes sharing a word apply one after another in lane order (wave-major, i.e. work-item
order here); each returns the word as the lanes before it left it. The reference below applies
every active lane in that order to a dict of words keyed (space, work-group or work-item, slot).

The kernels run through the machine in fast mode (lanes grouped by the word they reach and
combined or scanned in one pass: switch flat_aperture_atomics), with that switch off (rounds by
flat address) and in reference mode; all three must agree with the reference, on gfx1100 (wave32
and wave64) and gfx942 (wave64), with the LDS alone, scratch alone, and a mix of global memory,
LDS and scratch in one instruction, under a partial EXEC."""
from __future__ import annotations

import numpy as np
import pytest

from .test_emu_machine import launch

M32 = 0xFFFFFFFF
GROUPS, BLOCK = 2, 128          # two work-groups of 4 (wave32) or 2 (wave64) waves
SLOTS = 4                       # words per space: global g[0:4], each group's LDS [0:16), each lane's scratch [0:16)


def _f32(bits: int) -> np.float32:
    return np.uint32(bits).view(np.float32)


# name: (gfx1100 mnemonic, gfx942 mnemonic, data dwords, new word (old, d0, d1), data kind, fast path)
OPS = {
    "add": ("flat_atomic_add_u32", "flat_atomic_add", 1, lambda m, d, _: (m + d) & M32, "small", "sum"),
    "max": ("flat_atomic_max_u32", "flat_atomic_umax", 1, lambda m, d, _: max(m, d), "small", "reduction"),
    "swap": ("flat_atomic_swap_b32", "flat_atomic_swap", 1, lambda m, d, _: d, "small", "scan"),
    # DATA = {src, cmp}: MEM = tmp == cmp ? src : tmp
    "cmpswap": ("flat_atomic_cmpswap_b32", "flat_atomic_cmpswap", 2, lambda m, d, c: d if m == c else m, "small", "scan"),
    "inc": ("flat_atomic_inc_u32", "flat_atomic_inc", 1, lambda m, d, _: 0 if m >= d else m + 1, "small", "scan"),
    # MEM.f32 += DATA.f32, rounded to nearest even (magnitudes far apart: the order of the sums shows)
    "add_f32": ("flat_atomic_add_f32", "flat_atomic_add_f32", 1,
                lambda m, d, _: int((_f32(m) + _f32(d)).view(np.uint32)), "real", "scan"),
}

RDNA3 = dict(load4="global_load_b128", store4="global_store_b128", load1="global_load_b32",
             store1="global_store_b32", fstore="flat_store_b32", fload="flat_load_b32", add="v_add_nc_u32",
             sload="s_load_b64", ret="glc")
CDNA3 = dict(load4="global_load_dwordx4", store4="global_store_dwordx4", load1="global_load_dword",
             store1="global_store_dword", fstore="flat_store_dword", fload="flat_load_dword", add="v_add_u32",
             sload="s_load_dwordx2", ret="sc0")


def _kernel(arch: str, wave: int, atomic: str, dwords: int) -> str:
    """in[gid] = 8 dwords: sel (space << 8 | slot, bit 16: lane off), pad, DATA's dwords, the
    lane's 4 scratch words (written back after); lds[group * 4 + k]: the group's LDS words
    (written back after); g: the 4 global words; ret[gid]: the returned value (0xDEAD when off)."""
    k = CDNA3 if arch == "gfx942" else RDNA3
    exec_, vcc = ("exec", "vcc") if wave == 64 or arch == "gfx942" else ("exec_lo", "vcc_lo")
    save = "s_mov_b64 s[28:29], exec" if exec_ == "exec" else "s_mov_b32 s28, exec_lo"
    restore = "s_mov_b64 exec, s[28:29]" if exec_ == "exec" else "s_mov_b32 exec_lo, s28"
    if arch == "gfx942":
        cmpx = lambda n, v: f"v_cmpx_gt_u32 vcc, {n}, {v}" if n else f"v_cmpx_eq_u32 vcc, 0, {v}"    # noqa: E731
        carry = "v_add_co_u32 v32, vcc, v30, v36\nv_addc_co_u32 v33, vcc, 0, v37, vcc"
    else:
        cmpx = lambda n, v: f"v_cmpx_gt_u32 {n}, {v}" if n else f"v_cmpx_eq_u32 0, {v}"               # noqa: E731
        carry = f"v_add_co_u32 v32, {vcc}, v36, v30\nv_add_co_ci_u32 v33, {vcc}, 0, v37, {vcc}"
    data = "v12" if dwords == 1 else "v[12:13]"
    scratch = "\n".join(f"v_mov_b32 v20, {4 * i}\n{k['fstore']} v[20:21], v{14 + i}" for i in range(4))
    scratch_back = "\n".join(f"v_mov_b32 v20, {4 * i}\n{k['fload']} v{14 + i}, v[20:21]" for i in range(4))
    return f"""
    {k['sload']} s[4:5], s[0:1], 0x0
    {k['sload']} s[6:7], s[0:1], 0x8
    {k['sload']} s[8:9], s[0:1], 0x10
    {k['sload']} s[10:11], s[0:1], 0x18
    s_waitcnt lgkmcnt(0)
    s_lshl_b32 s20, s16, {BLOCK.bit_length() - 1}
    {k['add']} v1, s20, v0                      // gid
    v_lshlrev_b32 v2, 5, v1                     // gid * 32 bytes
    {k['load4']} v[10:13], v2, s[4:5]
    {k['load4']} v[14:17], v2, s[4:5] offset:16
    s_mov_b64 s[24:25], src_shared_base
    s_mov_b64 s[26:27], src_private_base
    s_waitcnt vmcnt(0)
    v_mov_b32 v21, s27                          // the lane's scratch words through the private aperture
    {scratch}
    v_lshlrev_b32 v26, 2, v0                    // LDS word v0 (lanes 0..3) through the shared aperture
    v_mov_b32 v27, s25
    s_lshl_b32 s21, s16, 4
    {k['add']} v23, s21, v26
    {save}
    {cmpx(4, 'v0')}
    {k['load1']} v24, v23, s[6:7]
    s_waitcnt vmcnt(0)
    {k['fstore']} v[26:27], v24
    {restore}
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_barrier
    v_and_b32 v30, 3, v10
    v_lshlrev_b32 v30, 2, v30                   // slot * 4
    v_lshrrev_b32 v31, 8, v10
    v_and_b32 v31, 3, v31                       // space: 0 global, 1 LDS, 2 scratch
    v_mov_b32 v36, s8
    v_mov_b32 v37, s9
    v_mov_b32 v38, s25
    v_mov_b32 v39, s27
    {carry}
    v_cmp_eq_u32 {vcc}, 1, v31
    v_cndmask_b32 v32, v32, v30, {vcc}
    v_cndmask_b32 v33, v33, v38, {vcc}
    v_cmp_eq_u32 {vcc}, 2, v31
    v_cndmask_b32 v32, v32, v30, {vcc}
    v_cndmask_b32 v33, v33, v39, {vcc}
    v_mov_b32 v40, 0xdead
    v_and_b32 v34, 0x10000, v10
    {save}
    {cmpx(0, 'v34')}
    {atomic} v40, v[32:33], {data} {k['ret']}
    s_waitcnt vmcnt(0) lgkmcnt(0)
    {restore}
    v_lshlrev_b32 v35, 2, v1
    {k['store1']} v35, v40, s[10:11]
    {scratch_back}
    s_waitcnt vmcnt(0) lgkmcnt(0)
    {k['store4']} v2, v[14:17], s[4:5] offset:16
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_barrier
    {cmpx(4, 'v0')}
    {k['fload']} v24, v[26:27]
    s_waitcnt vmcnt(0) lgkmcnt(0)
    {k['store1']} v23, v24, s[6:7]
    s_endpgm"""


def _inputs(op: str, mix: str, seed: int):
    """Each work-item's space, slot, DATA and on/off; the initial words of every space."""
    rng = np.random.default_rng(seed)
    n = GROUPS * BLOCK
    spaces = {"lds": [1], "scratch": [2], "mixed": [0, 1, 2]}[mix]
    space = rng.choice(spaces, n)
    slot = rng.choice(SLOTS, n, p=[0.55, 0.25, 0.15, 0.05])        # uneven depths
    off = rng.random(n) < 0.15
    if OPS[op][4] == "real":
        pool = np.array([1.0, -3.0, 1e8, 1e-3, 0.1, 7e7, -2.5e7], np.float32)
        values = lambda shape: (rng.choice(pool, shape) * rng.uniform(0.5, 2, shape).astype(np.float32)).view(np.uint32)  # noqa: E731
    else:
        values = lambda shape: rng.integers(0, 5, shape).astype(np.uint32)     # noqa: E731
    data = values((n, 2))
    init = {"g": values(SLOTS), "lds": values(GROUPS * SLOTS), "scratch": values((n, SLOTS))}
    table = np.zeros((n, 8), np.uint32)
    table[:, 0] = slot | space << 8 | off.astype(np.uint32) << 16
    table[:, 2:4] = data
    table[:, 4:8] = init["scratch"]
    return space, slot, off, data, init, table


def _lane_by_lane(op: str, space, slot, off, data, init):
    """Every active work-item in order: its returned value, and each space's words after."""
    new = OPS[op][3]
    words = {("g", 0, s): int(init["g"][s]) for s in range(SLOTS)}
    words.update({("l", g, s): int(init["lds"][g * SLOTS + s]) for g in range(GROUPS) for s in range(SLOTS)})
    words.update({("s", i, s): int(init["scratch"][i, s]) for i in range(len(space)) for s in range(SLOTS)})
    ret = np.full(len(space), 0xDEAD, np.uint32)
    for i in range(len(space)):
        if off[i]:
            continue
        key = (("g", 0), ("l", i // BLOCK), ("s", i))[space[i]] + (int(slot[i]),)
        ret[i] = words[key]
        words[key] = new(words[key], int(data[i, 0]), int(data[i, 1]))
    g = [words["g", 0, s] for s in range(SLOTS)]
    lds = [words["l", grp, s] for grp in range(GROUPS) for s in range(SLOTS)]
    scratch = [[words["s", i, s] for s in range(SLOTS)] for i in range(len(space))]
    return ret, np.array(g, np.uint32), np.array(lds, np.uint32), np.array(scratch, np.uint32)


def _paths(monkeypatch) -> list:
    """The one-pass paths taken (name, whether it gave the result), recorded as they run."""
    import emu.atomic_scan
    import emu.table
    taken = []
    for module, name, label in ((emu.table, "_combined_sum", "sum"), (emu.table, "_combined_reduction", "reduction"),
                                (emu.atomic_scan, "scan", "scan")):
        real = getattr(module, name)
        def traced(*a, _real=real, _label=label, **k):
            out = _real(*a, **k)
            taken.append((_label, out is not None))
            return out
        monkeypatch.setattr(module, name, traced)
    return taken


TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)]


@pytest.mark.parametrize("arch,wave", TARGETS, ids=[f"{a}-w{w}" for a, w in TARGETS])
@pytest.mark.parametrize("mix", ["lds", "scratch", "mixed"])
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("mode", ["fast", "flat_aperture_atomics off", "reference"])
def test_flat_atomics_in_apertures_apply_in_lane_order(op, mix, arch, wave, mode, monkeypatch):
    if mode == "reference":
        monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    elif mode != "fast":
        monkeypatch.setenv("WAVESMITH_EMU_OFF", "flat_aperture_atomics")
    taken = _paths(monkeypatch)
    rdna, cdna, dwords, _, _, path = OPS[op]
    seed = sum(map(ord, op + mix + arch)) + wave
    space, slot, off, data, init, table = _inputs(op, mix, seed)
    got, _ = launch(_kernel(arch, wave, cdna if arch == "gfx942" else rdna, dwords),
                    {"in": table.copy(), "lds": init["lds"].copy(), "g": init["g"].copy(),
                     "ret": np.zeros(GROUPS * BLOCK, np.uint32)},
                    grid=(GROUPS, 1, 1), block=(BLOCK, 1, 1), wave=wave, arch=arch, lds=64, scratch=16, vgprs=48)
    ret, g, lds, scratch = _lane_by_lane(op, space, slot, off, data, init)
    assert got["ret"].tolist() == ret.tolist()
    assert got["g"].tolist() == g.tolist() and got["lds"].tolist() == lds.tolist()
    assert got["in"].reshape(-1, 8)[:, 4:].tolist() == scratch.tolist()
    if mix == "scratch":        # every lane its own word: one call, nothing to combine or scan
        assert taken == []
    elif mode == "fast":        # one pass, the path of the atomic's kind
        assert taken == [(path, True)], taken
    else:
        assert taken == [], taken


def test_scratch_lanes_at_one_flat_address_are_separate_words():
    """64 lanes add id + 1 at the same private-aperture address: each lane's own scratch word
    (zeroed first) becomes id + 1 and each returns 0; two work-groups adding at one shared-
    aperture address each count in their own LDS word. (Fast mode once combined such lanes as
    one word: lane 0's scratch held the sum of all 64, the second group's LDS the first's.)"""
    src = """
    s_load_b64 s[4:5], s[0:1], 0x0
    s_load_b64 s[6:7], s[0:1], 0x8
    s_waitcnt lgkmcnt(0)
    s_lshl_b32 s20, s16, 6
    v_add_nc_u32 v1, s20, v0
    v_lshlrev_b32 v2, 2, v1
    s_mov_b64 s[24:25], src_private_base
    v_mov_b32 v8, 8
    v_mov_b32 v9, s25
    v_mov_b32 v13, 0
    flat_store_b32 v[8:9], v13
    v_mov_b32 v6, 4
    s_mov_b64 s[24:25], src_shared_base
    v_mov_b32 v7, s25
    flat_store_b32 v[6:7], v13
    s_waitcnt vmcnt(0) lgkmcnt(0)
    s_barrier
    v_add_nc_u32 v10, 1, v1
    flat_atomic_add_u32 v11, v[8:9], v10 glc
    flat_atomic_add_u32 v14, v[6:7], v10 glc
    s_waitcnt vmcnt(0) lgkmcnt(0)
    flat_load_b32 v12, v[8:9]
    s_waitcnt vmcnt(0) lgkmcnt(0)
    v_sub_nc_u32 v12, v12, v11
    global_store_b32 v2, v12, s[4:5]
    global_store_b32 v2, v14, s[6:7]
    s_endpgm"""
    got, _ = launch(src, {"own": np.zeros(128, np.uint32), "lds": np.zeros(128, np.uint32)},
                    grid=(2, 1, 1), lds=64, scratch=16)
    ids = np.arange(128)
    assert got["own"].tolist() == (ids + 1).tolist()
    local = ids % 64
    assert got["lds"].tolist() == ((local * (local + 1)) // 2 + 64 * (ids // 64) * local).tolist()


# ---- every FLAT atomic of a target on random data and a mix of spaces: fast mode against reference mode

def _random_flat_atomic(arch: str, name: str, seed: int, options):
    """One call of `name`'s semantic on 4 waves (two work-groups' LDS regions) whose lanes
    reach 6 words of global memory, of each work-group's LDS and of their own scratch through
    the apertures (lanes conflict ~10 deep), a random EXEC, and data from the fuzzer's special
    values (NaN, inf, denormals, extreme integers). Returns (RETURN_DATA or None, the three
    memories' bytes after)."""
    import re

    from emu.memory import PRIVATE_APERTURE, SHARED_APERTURE, DeviceMemory, FlatMemory, RegionMemory
    from emu.options import activate, deactivate
    from emu.semantics import Ctx
    from emu.table import load_semantics
    from .emu_fuzz import special_dwords
    sem = load_semantics(arch).lookup(name)
    rng = np.random.default_rng(seed)
    waves, lanes, words = 4, 64 if arch == "gfx942" else 32, 6
    width = 8 if re.search(r"64|X2", name) else 4
    dev = DeviceMemory()
    g = dev.alloc(words * width, "words")
    dev.write(g, special_dwords(rng, words * width // 4))
    region, lane_bytes = 64, words * width
    lds = RegionMemory("LDS", special_dwords(rng, 2 * region // 4).view(np.uint8).copy(), region,
                       np.array([[0], [0], [region], [region]], np.int64))
    scratch = RegionMemory("scratch", special_dwords(rng, waves * lanes * lane_bytes // 4).view(np.uint8).copy(),
                           lane_bytes, np.arange(waves * lanes, dtype=np.int64).reshape(waves, lanes) * lane_bytes)
    space = rng.integers(0, 3, (waves, lanes))
    offset = (rng.integers(0, words, (waves, lanes)) * width).astype(np.uint64)
    base = np.array([g, SHARED_APERTURE, PRIVATE_APERTURE], np.uint64)[space]
    inputs = {"ADDR": base + offset, "OFFSET": 0}
    for k, op in sem.reads.items():
        if k in inputs:
            continue
        dwords = max(1, op.bits // 32)
        v = special_dwords(rng, waves * lanes * dwords).reshape(waves, lanes, dwords)
        # (the machine's shapes: up to 32 bits uint32, 64 bits uint64, wider ones as dwords)
        inputs[k] = v[..., 0] if dwords == 1 else v if dwords > 2 else \
            v[..., 0].astype(np.uint64) | v[..., 1].astype(np.uint64) << np.uint64(32)
    exec_mask = rng.integers(0, 2**lanes, (waves, 1), dtype=np.uint64)
    exec_mask[0, 0] = 2**lanes - 1
    token = activate(options)
    try:
        out = sem.execute(Ctx(lanes=lanes, exec_mask=exec_mask, inputs=inputs, mem=FlatMemory(dev, lds, scratch)))
    finally:
        deactivate(token)
    ret = out.get("RETURN_DATA")
    return (None if ret is None else np.asarray(ret).tobytes()), dev.read(g, words * width), \
        lds.data.tobytes(), scratch.data.tobytes()


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942", "gfx1201"])
def test_every_flat_atomic_in_the_apertures_agrees_with_reference_mode(arch):
    """Every FLAT atomic of the target, lanes of four waves in global memory, two work-groups'
    LDS and their own scratch at once: the returned bits and every memory's bytes after are the
    same in fast mode (grouped by word, combined or scanned), with flat_aperture_atomics off
    (rounds by flat address) and in reference mode."""
    import isa
    from emu.options import FAST, REFERENCE, options_from
    names = [d.name for d in isa.load(arch).instructions if d.name.startswith("FLAT_ATOMIC")]
    assert len(names) >= 25
    off = options_from(off=["flat_aperture_atomics"])
    for i, name in enumerate(names):
        fast = _random_flat_atomic(arch, name, 7000 + i, FAST)
        assert fast == _random_flat_atomic(arch, name, 7000 + i, REFERENCE), name
        assert fast == _random_flat_atomic(arch, name, 7000 + i, off), name


@pytest.mark.parametrize("aperture", ["shared", "private"])
@pytest.mark.parametrize("name", ["FLAT_ATOMIC_ADD_U32", "FLAT_ATOMIC_SWAP_B32", "FLAT_ATOMIC_INC_U32"])
def test_a_lane_past_its_region_faults_in_either_mode(name, aperture):
    """Lanes of two work-groups conflicting at shared-aperture word 0 and private-aperture word 0,
    and work-item (2, 7) 256 bytes into the `aperture` one, past its 64-byte LDS region or 16-byte
    scratch (where another region's words lie in the array behind it): the fault names that lane
    and its offset in fast mode (grouped by word) as in reference mode, and no memory changed."""
    from emu.memory import PRIVATE_APERTURE, SHARED_APERTURE, DeviceMemory, FlatMemory, MemoryFault, RegionMemory
    from emu.options import FAST, REFERENCE, activate, deactivate
    from emu.semantics import Ctx
    from emu.table import load_semantics
    sem = load_semantics("gfx1100").lookup(name)
    waves, lanes = 4, 32
    addr = np.where(np.arange(lanes) % 2 == 0, SHARED_APERTURE, PRIVATE_APERTURE).astype(np.uint64)
    addr = np.broadcast_to(addr, (waves, lanes)).copy()
    addr[2, 7] = (SHARED_APERTURE if aperture == "shared" else PRIVATE_APERTURE) + 256
    faults, memories = [], []
    for options in (FAST, REFERENCE):
        lds = RegionMemory("LDS", np.arange(128, dtype=np.uint8), 64, np.array([[0], [0], [64], [64]], np.int64))
        scratch = RegionMemory("scratch", np.arange(waves * lanes * 4, dtype=np.uint32).view(np.uint8).copy(), 16,
                               np.arange(waves * lanes, dtype=np.int64).reshape(waves, lanes) * 16)
        token = activate(options)
        try:
            with pytest.raises(MemoryFault) as e:
                sem.execute(Ctx(lanes=lanes, exec_mask=np.full((waves, 1), 2**lanes - 1, np.uint64),
                                inputs={"ADDR": addr, "DATA": np.full((waves, lanes), 3, np.uint32)},
                                mem=FlatMemory(DeviceMemory(), lds, scratch)))
        finally:
            deactivate(token)
        faults.append((e.value.position, e.value.address))
        memories.append((lds.data.tobytes(), scratch.data.tobytes()))
    assert faults[0] == faults[1] == ((2, 7), 256)
    assert memories[0] == memories[1]
    assert memories[0][0] == bytes(range(128))
    assert memories[0][1] == np.arange(waves * lanes * 4, dtype=np.uint32).tobytes()


@pytest.mark.parametrize("mode", ["fast", "flat_aperture_atomics off", "reference"])
def test_a_batch_with_no_lane_on_touches_nothing(mode):
    """Found by the fuzzer with FLAT accesses: a FLAT atomic whose waves have EXEC 0 at aperture
    addresses ran rounds over no lane and returned nothing (reference mode stopped with an
    AttributeError). Every mode now calls the semantic once: every lane returns 0, memory stays."""
    from emu.memory import SHARED_APERTURE, DeviceMemory, FlatMemory, RegionMemory
    from emu.options import FAST, REFERENCE, activate, deactivate, options_from
    from emu.semantics import Ctx
    from emu.table import load_semantics
    options = {"fast": FAST, "reference": REFERENCE}.get(mode) or options_from(off=["flat_aperture_atomics"])
    sem = load_semantics("gfx1100").lookup("FLAT_ATOMIC_ADD_U32")
    lds = RegionMemory("LDS", np.arange(64, dtype=np.uint8), 64, np.zeros((2, 1), np.int64))
    token = activate(options)
    try:
        out = sem.execute(Ctx(lanes=32, exec_mask=np.zeros((2, 1), np.uint64),
                              inputs={"ADDR": np.full((2, 32), SHARED_APERTURE + 4, np.uint64),
                                      "DATA": np.ones((2, 32), np.uint32)},
                              mem=FlatMemory(DeviceMemory(), lds, None)))
    finally:
        deactivate(token)
    assert (np.broadcast_to(out["RETURN_DATA"], (2, 32)) == 0).all()
    assert lds.data.tobytes() == bytes(range(64))

"""ds_bpermute_b32 / ds_permute_b32 in wave64 on gfx1100 (RDNA3) and gfx1201 (RDNA4), a whole
kernel through the machine against a numpy reference of each manual's pseudocode.

RDNA4's pseudocode takes the lane `/ 4 % num_lanes` with `num_lanes = WAVE64 ? 64 : 32`: a
wave64 permute reaches every lane. RDNA3's says "destination lane is MOD 32 regardless of wave
size", `/ 4 % 32`, which the LDS crossbar applies within each aligned 32-lane half (a wave64
shuffle on gfx10/gfx11 is two ds_bpermutes and a v_permlane64 selected on whether the source lane
is in the same half, as LLVM's and AMD's Vulkan compiler's wave64 shuffle lowerings do, while
LLVM treats gfx12's ds_bpermute as wave-wide: GCNSubtarget::supportsWaveWideBPermute)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch

WAITS = {"gfx1100": ("s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0)", "s_waitcnt lgkmcnt(0)"),
         "gfx1201": ("s_wait_kmcnt 0", "s_wait_loadcnt 0", "s_wait_dscnt 0")}
EXEC = 0x5F5F_FFFF_F7F7_3B3B          # some inactive lanes in both halves


def _kernel(arch: str) -> str:
    kmcnt, loadcnt, dscnt = WAITS[arch]
    return f"""
        s_load_b64 s[4:5], s[0:1], 0x0
        s_load_b64 s[6:7], s[0:1], 0x8
        s_load_b64 s[8:9], s[0:1], 0x10
        s_load_b64 s[10:11], s[0:1], 0x18
        {kmcnt}
        v_lshlrev_b32 v2, 2, v0
        global_load_b32 v3, v2, s[4:5]
        global_load_b32 v4, v2, s[6:7]
        {loadcnt}
        v_lshlrev_b32 v3, 2, v3                  // the lane index as a byte address
        v_mov_b32 v5, 0xdead
        v_mov_b32 v6, 0xdead
        s_mov_b32 exec_lo, {EXEC & 0xffffffff:#x}
        s_mov_b32 exec_hi, {EXEC >> 32:#x}
        ds_bpermute_b32 v5, v3, v4
        ds_permute_b32 v6, v3, v4
        {dscnt}
        s_mov_b64 exec, -1
        global_store_b32 v2, v5, s[8:9]
        global_store_b32 v2, v6, s[10:11]
        s_endpgm"""


def _reference(index, data, group):
    """(bpermute, permute) of one wave64 by the pseudocode with lane modulus `group` applied
    within each aligned group of `group` lanes."""
    lanes = np.arange(64)
    active = (EXEC >> lanes) & 1 == 1
    other = (lanes & ~(group - 1)) | (index % group)     # the lane each lane names
    bperm = np.where(active, np.where(active[other], data[other], 0), 0xdead)
    perm = np.zeros(64, np.int64)
    for i in lanes[active]:                              # in lane order: the highest sender wins
        perm[other[i]] = data[i]
    perm = np.where(active, perm, 0xdead)
    return bperm.astype(np.uint32), perm.astype(np.uint32)


@pytest.mark.parametrize("arch,group", [("gfx1201", 64), ("gfx1100", 32)])
def test_wave64_permutes_follow_the_manuals_lane_modulus(arch, group):
    rng = np.random.default_rng(64)
    index = rng.integers(0, 256, 64).astype(np.uint32)   # beyond 64: the high bits are ignored
    index[:8] = [63, 32, 31, 0, 40, 7, 33, 95]           # across halves both ways
    data = rng.integers(0, 2 ** 32, 64, dtype=np.uint64).astype(np.uint32)
    got, _ = launch(_kernel(arch), {"index": index, "data": data, "bp": np.zeros(64, np.uint32),
                                    "p": np.zeros(64, np.uint32)}, arch=arch, wave=64, block=(64, 1, 1))
    bperm, perm = _reference(index.astype(np.int64), data.astype(np.int64), group)
    assert (got["bp"] == bperm).all(), np.nonzero(got["bp"] != bperm)
    assert (got["p"] == perm).all(), np.nonzero(got["p"] != perm)
    # the two readings differ on this input: the test tells them apart
    other = _reference(index.astype(np.int64), data.astype(np.int64), 96 - group)
    assert (other[0] != bperm).any() and (other[1] != perm).any()

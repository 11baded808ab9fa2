"""The emulator machine on small assembled kernels, checked against numpy: launch state,
branches and divergent loops, DPP, VOPD, LDS with barriers, scratch, atomics, and the
error paths (faults, instruction budget, unsupported instructions)."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu.options import FAST, REFERENCE
from emu.launch import Dispatch, LaunchError
from emu.machine import BudgetExceeded, EmuFault, Machine, UnsupportedInstruction
from emu.memory import DeviceMemory


def launch(src: str, buffers: dict[str, np.ndarray], *, grid=(1, 1, 1), block=(64, 1, 1), wave=32,
           arch="gfx1100", lds=0, scratch=0, budget=None, semantics=None, dims=0, options=None, **dispatch):
    """Assemble `src`, give it s[0:1] = a table of the buffers' 64-bit addresses (in order)
    and the work-group ids in s16, s17, s18, run it and return the buffers' final contents."""
    mem = DeviceMemory()
    addrs = {name: mem.alloc(a.nbytes, name) for name, a in buffers.items()}
    for name, a in buffers.items():
        mem.write(addrs[name], a)
    table = mem.alloc(8 * max(len(buffers), 1), "kernarg")
    mem.write(table, np.array(list(addrs.values()) or [0], np.uint64))
    code = dsl.assemble(src, arch, wave if wave in (32, 64) else None)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    d = Dispatch("test_kernel", at, grid=grid, block=block, wave_size=wave, vgprs=dispatch.pop("vgprs", 32),
                 user_sgprs=[table & 0xFFFFFFFF, table >> 32], user_sgpr_count=16, workgroup_id=(True, True, True),
                 workitem_id_dims=dims, lds_size=lds, scratch_size=scratch, **dispatch)
    if budget is not None:
        d.budget = budget
    stats = Machine(arch, mem, semantics, options).run(d)
    out = {name: np.frombuffer(mem.read(addrs[name], a.nbytes), a.dtype) for name, a in buffers.items()}
    return out, stats


def loads(*names) -> str:
    """s_load of buffer addresses: names[i] -> s[4+2i:5+2i]."""
    return "\n".join(f"s_load_b64 s[{4 + 2 * i}:{5 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(len(names))) + \
        "\ns_waitcnt lgkmcnt(0)\n"


def global_id(block: int, wave: int = 32) -> str:
    """v1 = work-group id x * block + work-item id x; v2 = v1 * 4 (byte offset)."""
    shift = block.bit_length() - 1
    return f"s_lshl_b32 s20, s16, {shift}\nv_add_nc_u32 v1, s20, v0\nv_lshlrev_b32 v2, 2, v1\n"


@pytest.mark.parametrize("wave", [32, 64])
def test_launch_state_workgroup_ids_and_packed_workitem_ids(wave):
    grid, block = (2, 3, 2), (4, 2, 2)          # 16 work-items: wave64 leaves lanes 16..63 inactive
    n = int(np.prod(grid) * np.prod(block))
    out = {"ids": np.zeros(n, np.uint32), "groups": np.zeros(n, np.uint32)}
    src = loads("ids", "groups") + """
        s_mul_i32 s21, s17, 2           // linear group = x + 2 * (y + 3 * z)
        s_mul_i32 s22, s18, 6
        s_add_u32 s21, s21, s22
        s_add_u32 s21, s21, s16
        s_lshl_b32 s23, s21, 4          // 16 work-items per group
        v_and_b32 v3, 0x3ff, v0
        v_bfe_u32 v4, v0, 10, 10
        v_bfe_u32 v5, v0, 20, 10
        v_lshl_add_u32 v6, v4, 2, v3    // local linear id = x + 4 * (y + 2 * z)
        v_lshl_add_u32 v6, v5, 3, v6
        v_add_nc_u32 v7, s23, v6
        v_lshlrev_b32 v7, 2, v7
        global_store_b32 v7, v0, s[4:5]
        v_mov_b32 v8, s21
        global_store_b32 v7, v8, s[6:7]
        s_endpgm"""
    got, stats = launch(src, out, grid=grid, block=block, wave=wave, dims=2)
    local = np.arange(16)
    x, y, z = local % 4, (local // 4) % 2, local // 8
    assert (got["ids"] == np.tile(x | y << 10 | z << 20, 12)).all()
    assert (got["groups"] == np.repeat(np.arange(12), 16)).all()
    assert stats.waves == 12 and stats.workgroups == 12


@pytest.mark.parametrize("wave", [32, 64])
def test_elementwise_with_bounds_check(wave):
    n = 1000
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    exec_reg = "exec_lo" if wave == 32 else "exec"
    src = loads("x", "y") + global_id(256) + f"""
        v_cmpx_gt_u32 {n}, v1
        s_cbranch_execz done
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_mul_f32 v3, 2.0, v3
        v_add_f32 v3, 1.0, v3
        global_store_b32 v2, v3, s[6:7]
    done:
        s_endpgm"""
    assert exec_reg
    got, stats = launch(src, {"x": x, "y": np.zeros(n, np.float32)}, grid=(4, 1, 1), block=(256, 1, 1), wave=wave)
    assert (got["y"] == x * np.float32(2) + np.float32(1)).all()
    assert stats.lane_ops > 0


def test_divergent_loop_and_scalar_branches():
    n = 256
    counts = np.random.default_rng(2).integers(0, 40, n).astype(np.uint32)
    src = loads("n", "out") + global_id(64) + """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_mov_b32 v4, 0                 // k
        v_mov_b32 v5, 0                 // sum of k*k over k < n
        s_mov_b32 s10, exec_lo
    loop:
        v_cmpx_lt_u32 v4, v3
        s_cbranch_execz done
        v_mad_u32_u24 v5, v4, v4, v5
        v_add_nc_u32 v4, 1, v4
        s_branch loop
    done:
        s_mov_b32 exec_lo, s10
        s_cmp_eq_u32 s16, 1             // work-group 1 adds 1000 on a scalar branch
        s_cbranch_scc0 store
        v_add_nc_u32 v5, 0x3e8, v5
    store:
        global_store_b32 v2, v5, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"n": counts, "out": np.zeros(n, np.uint32)}, grid=(4, 1, 1), block=(64, 1, 1))
    k = counts.astype(np.int64)
    want = (k - 1) * k * (2 * k - 1) // 6 + np.where(np.arange(n) // 64 == 1, 1000, 0)
    assert (got["out"] == want).all()


def _dpp_kernel(modifier: str) -> str:
    return loads("x", "y") + global_id(64) + f"""
        global_load_b32 v3, v2, s[4:5]
        v_mov_b32 v4, 0x7777
        s_waitcnt vmcnt(0)
        v_mov_b32_dpp v4, v3 {modifier}
        global_store_b32 v2, v4, s[6:7]
        s_endpgm"""


_LANE = np.arange(64)
DPP_CASES = {   # modifier -> (source lane of each lane, lanes that keep their old value)
    "quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf": ((_LANE & ~3) | (3 - (_LANE & 3)), None),
    "row_shr:1 row_mask:0xf bank_mask:0xf": (_LANE - 1, _LANE % 16 == 0),
    "row_shl:2 row_mask:0xf bank_mask:0xf bound_ctrl:1": (_LANE + 2, None),   # out of row: reads 0
    "row_ror:3 row_mask:0xf bank_mask:0xf": ((_LANE & ~15) | ((_LANE - 3) & 15), None),
    "row_mirror row_mask:0xf bank_mask:0xf": ((_LANE & ~15) | (15 - (_LANE & 15)), None),
    "row_half_mirror row_mask:0xf bank_mask:0xf": ((_LANE & ~7) | (7 - (_LANE & 7)), None),
    "row_share:5 row_mask:0xf bank_mask:0xf": ((_LANE & ~15) | 5, None),
    "row_xmask:6 row_mask:0xf bank_mask:0xf": (_LANE ^ 6, None),
    "quad_perm:[1,1,1,1] row_mask:0x5 bank_mask:0xf": ((_LANE & ~3) | 1, (_LANE >> 4) % 2 == 1),
    "quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0x3": (_LANE, (_LANE >> 2) % 4 >= 2),
    "dpp8:[7,6,5,4,3,2,1,0]": ((_LANE & ~7) | (7 - (_LANE & 7)), None),
}


@pytest.mark.parametrize("modifier", list(DPP_CASES))
def test_dpp_lane_selection(modifier):
    x = np.random.default_rng(3).integers(1, 2**31, 64).astype(np.uint32)
    got, _ = launch(_dpp_kernel(modifier), {"x": x, "y": np.zeros(64, np.uint32)}, wave=64)
    src, keep = DPP_CASES[modifier]
    in_row = (src >= 0) & (src >> 4 == _LANE >> 4) & (src < 64)
    want = np.where(in_row, x[np.clip(src, 0, 63)], 0).astype(np.uint32)
    if "bound_ctrl" not in modifier and "dpp8" not in modifier:
        keep = (keep if keep is not None else np.zeros(64, bool)) | ~in_row
    if keep is not None:
        want = np.where(keep, 0x7777, want)
    assert (got["y"] == want).all(), modifier


@pytest.mark.parametrize("controls, even_lanes", [
    ("", "keep"),                     # BC=0, FI=0: an inactive source disables the write
    ("bound_ctrl:1", "zero"),         # BC=1: it reads 0
    ("fi:1", "fetch"),                # FI=1: the inactive lane's value is read anyway
])
def test_dpp_inactive_source_lanes(controls, even_lanes):
    x = np.arange(1, 33, dtype=np.uint32)
    src = loads("x", "y") + global_id(32) + f"""
        global_load_b32 v3, v2, s[4:5]
        v_mov_b32 v4, 0x7777
        s_waitcnt vmcnt(0)
        s_mov_b32 exec_lo, 0x55555555   // even lanes only; each reads its odd neighbour
        v_mov_b32_dpp v4, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf {controls}
        s_mov_b32 exec_lo, -1
        global_store_b32 v2, v4, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "y": np.zeros(32, np.uint32)}, block=(32, 1, 1))
    even = {"keep": 0x7777, "zero": 0, "fetch": 0}[even_lanes]
    neighbour = x[np.arange(32) ^ 1]
    want = np.where(np.arange(32) % 2 == 0, neighbour if even_lanes == "fetch" else even, 0x7777)
    assert (got["y"] == want).all()


def test_vopd_halves_read_before_either_writes():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    src = loads("a", "b", "o1", "o2", "o3") + global_id(64) + """
        global_load_b32 v5, v2, s[4:5]
        global_load_b32 v7, v2, s[6:7]
        s_waitcnt vmcnt(0)
        v_mov_b32 v10, v5
        v_dual_mov_b32 v10, v7 :: v_dual_mov_b32 v11, v10       // v11 gets v10 from before the pair
        v_dual_mul_f32 v12, v5, v7 :: v_dual_add_f32 v13, v7, v5    // (sources in distinct VGPR banks)
        global_store_b32 v2, v11, s[8:9]
        global_store_b32 v2, v12, s[10:11]
        global_store_b32 v2, v13, s[12:13]
        s_endpgm"""
    z = np.zeros(64, np.float32)
    got, _ = launch(src, {"a": a, "b": b, "o1": z, "o2": z, "o3": z})
    assert (got["o1"] == a).all()
    assert (got["o2"] == a * b).all() and (got["o3"] == a + b).all()


def _bf16_pairs(rng, n: int) -> np.ndarray:
    """n dwords of two bf16 values each (random normals' top halves)."""
    top = lambda: (rng.standard_normal(n).astype(np.float32).view(np.uint32) >> np.uint32(16))
    return top() | top() << np.uint32(16)


def _f16_pairs(rng, n: int) -> np.ndarray:
    """n dwords of two f16 values each."""
    half = lambda: rng.standard_normal(n).astype(np.float16).view(np.uint16).astype(np.uint32)
    return half() | half() << np.uint32(16)


def _widened(x: np.ndarray, k: int, kind: str) -> np.ndarray:
    """Half k of each dword as f32: a bf16's bits << 16, an f16 widened by numpy (both exact)."""
    h = (x >> np.uint32(16 * k)) & np.uint32(0xFFFF)
    if kind == "bf16":
        return (h << np.uint32(16)).view(np.float32)
    return h.astype(np.uint16).view(np.float16).astype(np.float32)


@pytest.mark.parametrize("options", [FAST, REFERENCE], ids=["fast", "reference"])
@pytest.mark.parametrize("arch, kind", [("gfx1100", "bf16"), ("gfx1151", "bf16"), ("gfx1201", "bf16"),
                                        ("gfx1201", "f16")])
def test_vopd_dot2acc_reads_packed_pairs(arch, kind, options):
    """v_dual_dot2acc_f32_bf16 (no VOP2 twin on any family; its code an erratum on RDNA3/3.5,
    whose manuals give none, RDNA4's manual's own) and RDNA4's v_dual_dot2acc_f32_f16 (no VOP2
    twin there): D += the dot product of two packed pairs, each product exact in f32, rounded to
    f32 after each add; the literal 0x3f803f80 is the bf16 pair (1.0, 1.0), 0x3c003c00 the f16 one.
    Reference: numpy in float32 from the pairs widened exactly."""
    rng = np.random.default_rng(17)
    pairs = _bf16_pairs if kind == "bf16" else _f16_pairs
    a, b = pairs(rng, 64), pairs(rng, 64)
    c = rng.standard_normal(64).astype(np.float32)
    one_one = "0x3f803f80" if kind == "bf16" else "0x3c003c00"
    src = loads("a", "b", "c", "o1", "o2") + global_id(64) + f"""
        global_load_b32 v5, v2, s[4:5]
        global_load_b32 v7, v2, s[6:7]
        global_load_b32 v10, v2, s[8:9]
        s_waitcnt vmcnt(0)
        v_mov_b32 v12, v10
        v_dual_dot2acc_f32_{kind} v10, v5, v7 :: v_dual_mov_b32 v11, v8
        v_dual_mov_b32 v13, v8 :: v_dual_dot2acc_f32_{kind} v12, {one_one}, v7
        global_store_b32 v2, v10, s[10:11]
        global_store_b32 v2, v12, s[12:13]
        s_endpgm"""
    if arch == "gfx1201":       # RDNA4's split counters
        src = src.replace("s_waitcnt lgkmcnt(0)", "s_wait_kmcnt 0").replace("s_waitcnt vmcnt(0)", "s_wait_loadcnt 0")
    z = np.zeros(64, np.float32)
    got, _ = launch(src, {"a": a, "b": b, "c": c, "o1": z, "o2": z}, arch=arch, options=options)
    want = (c + _widened(a, 0, kind) * _widened(b, 0, kind)) + _widened(a, 1, kind) * _widened(b, 1, kind)
    ones = (c + _widened(b, 0, kind)) + _widened(b, 1, kind)
    assert (got["o1"].view(np.uint32) == want.view(np.uint32)).all()
    assert (got["o2"].view(np.uint32) == ones.view(np.uint32)).all()


def test_lds_across_waves_with_barrier():
    block = 128                                   # four waves share the work-group's LDS
    x = np.random.default_rng(5).integers(0, 2**32, 2 * block, dtype=np.uint64).astype(np.uint32)
    src = loads("x", "rev", "pairs") + global_id(block) + """
        global_load_b32 v3, v2, s[4:5]
        v_lshlrev_b32 v4, 2, v0                   // lds byte address of this work-item
        s_waitcnt vmcnt(0)
        ds_store_b32 v4, v3
        s_waitcnt lgkmcnt(0)
        s_barrier
        v_sub_nc_u32 v5, 0x1fc, v4                // (127 - id) * 4
        ds_load_b32 v6, v5
        v_and_b32 v7, 0x1f8, v4                   // even-aligned pair
        ds_load_2addr_b32 v[8:9], v7 offset1:1
        s_waitcnt lgkmcnt(0)
        v_xor_b32 v8, v8, v9
        global_store_b32 v2, v6, s[6:7]
        global_store_b32 v2, v8, s[8:9]
        s_endpgm"""
    z = np.zeros(2 * block, np.uint32)
    got, _ = launch(src, {"x": x, "rev": z, "pairs": z}, grid=(2, 1, 1), block=(block, 1, 1), lds=512)
    groups = x.reshape(2, block)
    assert (got["rev"] == groups[:, ::-1].reshape(-1)).all()
    pair = groups.reshape(2, block // 2, 2)
    assert (got["pairs"] == np.repeat(pair[..., 0] ^ pair[..., 1], 2, axis=1).reshape(-1)).all()


def test_lds_atomics_serialise_in_lane_order():
    src = loads("count", "ret") + global_id(64) + """
        v_mov_b32 v3, 0
        v_mov_b32 v4, 1
        s_barrier
        ds_add_rtn_u32 v5, v3, v4                 // every lane adds 1 to one LDS word
        s_waitcnt lgkmcnt(0)
        s_barrier
        global_store_b32 v2, v5, s[6:7]
        ds_load_b32 v6, v3
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v7, 0
        global_store_b32 v7, v6, s[4:5]
        s_endpgm"""
    got, _ = launch(src, {"count": np.zeros(1, np.uint32), "ret": np.zeros(64, np.uint32)}, lds=4)
    assert got["count"][0] == 64
    assert sorted(got["ret"].tolist()) == list(range(64))


def test_global_atomics_histogram():
    n = 512
    x = np.random.default_rng(6).integers(0, 1000, n).astype(np.uint32)
    src = loads("x", "bins", "total") + global_id(128) + """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_and_b32 v3, 7, v3
        v_lshlrev_b32 v3, 2, v3
        v_mov_b32 v4, 1
        global_atomic_add_u32 v3, v4, s[6:7]
        v_mov_b32 v5, 0
        global_atomic_add_u32 v6, v5, v3, s[8:9] glc
        s_endpgm"""
    got, _ = launch(src, {"x": x, "bins": np.zeros(8, np.uint32), "total": np.zeros(1, np.uint32)},
                    grid=(4, 1, 1), block=(128, 1, 1))
    assert (got["bins"] == np.bincount(x & 7, minlength=8)).all()
    assert got["total"][0] == ((x & 7) * 4).sum()


def test_scratch_is_private_per_lane():
    n = 128
    sel = np.random.default_rng(7).integers(0, 8, n).astype(np.uint32)
    stores = "\n".join(f"v_add_nc_u32 v4, {k}, v3\nscratch_store_b32 off, v4, off offset:{4 * k}" for k in range(8))
    src = loads("sel", "out") + global_id(64) + f"""
        global_load_b32 v5, v2, s[4:5]
        v_lshlrev_b32 v3, 4, v1                   // each lane stores gid * 16 + k at its offset 4k
        {stores}
        s_waitcnt vmcnt(0)
        v_lshlrev_b32 v5, 2, v5
        scratch_load_b32 v6, v5, off
        s_waitcnt vmcnt(0)
        global_store_b32 v2, v6, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"sel": sel, "out": np.zeros(n, np.uint32)}, grid=(2, 1, 1), scratch=32)
    assert (got["out"] == np.arange(n) * 16 + sel).all()


def test_global_fault_names_kernel_pc_lane_address_and_buffer():
    src = loads("x") + global_id(64) + """
        v_lshlrev_b32 v2, 4, v1                   // 16 bytes per lane: lanes >= 4 run off the end
        global_load_b32 v3, v2, s[4:5]
        s_endpgm"""
    with pytest.raises(EmuFault) as e:
        launch(src, {"x": np.zeros(16, np.uint32)})
    msg = str(e.value)
    assert "test_kernel" in msg and "PC 0x" in msg and "global_load_b32" in msg
    assert "lane 4 " in msg and "'x'" in msg and "past the end" in msg


def test_scalar_load_every_wave_shares_is_checked_once_and_reported():
    """SMEM at an address all waves share runs one access: its fault still names the buffer;
    in range, every wave gets the value."""
    src = loads("x", "y") + global_id(32) + """
        s_load_b32 s12, s[4:5], 0x4          // x[1], the same address in every wave
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v3, s12
        global_store_b32 v2, v3, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"x": np.array([5, 7, 9, 11], np.uint32), "y": np.zeros(128, np.uint32)},
                    grid=(4, 1, 1), block=(32, 1, 1))
    assert (got["y"] == 7).all()
    with pytest.raises(EmuFault, match=r"s_load_b32.*past the end of 'x'"):
        launch(src.replace("0x4 ", "0x10 "), {"x": np.zeros(4, np.uint32), "y": np.zeros(128, np.uint32)},
               grid=(4, 1, 1), block=(32, 1, 1))


def test_lds_fault_reports_the_bound():
    src = "v_mov_b32 v1, 0x100\nds_load_b32 v2, v1\ns_endpgm"
    with pytest.raises(EmuFault, match=r"LDS address 0x100 .*256 bytes of LDS"):
        launch(src, {}, lds=256)


def test_runaway_loop_stops_at_the_budget():
    with pytest.raises(BudgetExceeded, match=r"test_kernel: instruction budget of 1000 .*PC 0x"):
        launch("loop:\ns_branch loop", {}, budget=1000)


def test_unsupported_instruction_names_mnemonic_format_pc_and_kernel():
    from emu.table import load_semantics
    real = load_semantics("gfx1100")

    class Without:   # the real table minus one instruction
        def get(self, d):
            return None if d.name == "V_ADD_F32" else real.get(d)
    with pytest.raises(UnsupportedInstruction, match=r"test_kernel: PC 0x[0-9a-f]+: `v_add_f32_e32 v1, v2, v3` \(VOP2\)"):
        launch("v_add_f32 v1, v2, v3\ns_endpgm", {}, semantics=Without())


def test_bad_dispatch_is_refused():
    with pytest.raises(LaunchError, match="wave size 48"):
        launch("s_endpgm", {}, wave=48)
    with pytest.raises(LaunchError, match="1088 work-items"):
        launch("s_endpgm", {}, block=(1088, 1, 1))
    # the family's limits (the manual, 3.3: 106 SGPRs and 256 VGPRs per wave; wave32 and wave64)
    with pytest.raises(LaunchError, match=r"wave size 48 \(must be 32 or 64\)"):
        launch("s_endpgm", {}, wave=48, arch="gfx1151")
    with pytest.raises(LaunchError, match=r"257 VGPRs per wave \(1\.\.256\)"):
        launch("s_endpgm", {}, vgprs=257)
    with pytest.raises(LaunchError, match="104 user SGPRs plus system SGPRs exceed the 106 SGPRs"):
        Machine("gfx1100", DeviceMemory()).run(Dispatch("k", 0, grid=(1, 1, 1), block=(32, 1, 1),
                                                         user_sgpr_count=104, workgroup_id=(True, True, True)))


def test_cross_lane_readlane_writelane_bpermute_mbcnt():
    x = np.random.default_rng(8).integers(0, 2**31, 64).astype(np.uint32)
    z = np.zeros(64, np.uint32)
    src = loads("x", "rl", "wl", "bp", "mb") + global_id(64) + """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_readlane_b32 s24, v3, 5
        v_mov_b32 v4, s24
        v_mov_b32 v5, 0
        v_writelane_b32 v5, s24, 7
        v_add_nc_u32 v6, 1, v0                   // source lane (id + 1) % 32, as a byte address
        v_and_b32 v6, 31, v6
        v_lshlrev_b32 v6, 2, v6
        ds_bpermute_b32 v7, v6, v3
        v_mbcnt_lo_u32_b32 v8, -1, 100
        s_waitcnt lgkmcnt(0)
        global_store_b32 v2, v4, s[6:7]
        global_store_b32 v2, v5, s[8:9]
        global_store_b32 v2, v7, s[10:11]
        global_store_b32 v2, v8, s[12:13]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "rl": z, "wl": z, "bp": z, "mb": z})
    waves = x.reshape(2, 32)
    assert (got["rl"] == np.repeat(waves[:, 5], 32)).all()
    assert (got["wl"] == np.where(np.arange(64) % 32 == 7, np.repeat(waves[:, 5], 32), 0)).all()
    assert (got["bp"] == np.roll(waves, -1, axis=1).reshape(-1)).all()
    assert (got["mb"] == 100 + np.arange(64) % 32).all()


def test_wave64_masks_saveexec_and_vcc():
    n = 128
    x = np.random.default_rng(9).integers(0, 100, n).astype(np.uint32)
    src = loads("x", "out") + global_id(128) + """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_mov_b32 v4, 7
        v_cmp_lt_u32 vcc, 50, v3                  // 64-bit VCC in wave64
        s_and_saveexec_b64 s[24:25], vcc
        v_mov_b32 v4, 9                           // only lanes with x > 50
        s_or_b64 exec, exec, s[24:25]
        v_cndmask_b32 v5, 0, 1, vcc
        v_add_nc_u32 v4, v4, v5
        global_store_b32 v2, v4, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "out": np.zeros(n, np.uint32)}, block=(128, 1, 1), wave=64)
    assert (got["out"] == np.where(x > 50, 10, 7)).all()


def test_f16_halves_opsel_modifiers_clamp_and_omod():
    rng = np.random.default_rng(10)
    a = rng.uniform(-2, 2, 64).astype(np.float32)
    h = rng.uniform(-2, 2, 64).astype(np.float16)
    z = np.zeros(64, np.uint32)
    src = loads("a", "h", "o1", "o2", "o3") + global_id(64) + """
        global_load_b32 v3, v2, s[4:5]
        v_lshlrev_b32 v9, 1, v1
        global_load_u16 v4, v9, s[6:7]
        s_waitcnt vmcnt(0)
        v_mov_b32 v5, 0x12345678
        v_add_f16 v5.h, v4.l, v4.l                // high half = 2h, low half kept
        v_add_f32 v6, -|v3|, 1.0 clamp            // clamp(1 - |a|) to [0, 1]
        v_mul_f32 v7, v3, v3 mul:4                // output modifier x4
        global_store_b32 v2, v5, s[8:9]
        global_store_b32 v2, v6, s[10:11]
        global_store_b32 v2, v7, s[12:13]
        s_endpgm"""
    got, _ = launch(src, {"a": a, "h": h, "o1": z, "o2": z, "o3": z})
    twice = (h.astype(np.float32) * 2).astype(np.float16).view(np.uint16).astype(np.uint32)
    assert (got["o1"] == (twice << 16) | 0x5678).all()
    assert (got["o2"].view(np.float32) == np.clip(np.float32(1) - np.abs(a), 0, 1)).all()
    assert (got["o3"].view(np.float32) == (a * a) * np.float32(4)).all()


def test_64bit_carries_and_literals():
    x = np.random.default_rng(11).integers(0, 2**63, 64, dtype=np.uint64)
    src = loads("x", "out", "s") + global_id(64) + """
        v_lshlrev_b32 v2, 3, v1
        global_load_b64 v[4:5], v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_add_co_u32 v6, vcc_lo, v4, 0x80000000   // + 2**31 with the carry into the high dword
        v_add_co_ci_u32 v7, vcc_lo, 0, v5, vcc_lo
        v_lshlrev_b64 v[6:7], 1, v[6:7]
        global_store_b64 v2, v[6:7], s[6:7]
        s_mov_b32 s24, -1
        s_add_u32 s24, s24, 1                     // carry out into SCC
        s_addc_u32 s25, 0, 0
        s_mov_b64 s[26:27], 0xfffffff0           // a literal as unsigned 64-bit: zero-extended
        v_mov_b32 v8, s25
        v_mov_b32 v9, s27
        v_mov_b32 v10, 0
        global_store_b32 v10, v8, s[8:9]
        global_store_b32 v10, v9, s[8:9] offset:4
        s_endpgm"""
    got, _ = launch(src, {"x": x, "out": np.zeros(64, np.uint64), "s": np.zeros(2, np.uint32)})
    assert (got["out"] == (x + np.uint64(2**31)) << np.uint64(1)).all()
    assert got["s"].tolist() == [1, 0]


def test_flat_addresses_reach_global_lds_and_scratch_through_apertures():
    x = np.arange(100, 164, dtype=np.uint32)
    z = np.zeros(64, np.uint32)
    src = loads("x", "g", "l", "p") + global_id(64) + """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_add_co_u32 v4, vcc_lo, s6, v2           // flat address of g[id]
        v_add_co_ci_u32 v5, vcc_lo, s7, 0, vcc_lo
        flat_store_b32 v[4:5], v3
        s_mov_b64 s[24:25], src_shared_base       // LDS through the shared aperture
        v_lshlrev_b32 v6, 2, v0
        v_mov_b32 v7, s25
        flat_store_b32 v[6:7], v3
        s_mov_b64 s[24:25], src_private_base      // scratch through the private aperture
        v_mov_b32 v8, 8
        v_mov_b32 v9, s25
        v_add_nc_u32 v10, 1, v3
        flat_store_b32 v[8:9], v10
        s_waitcnt vmcnt(0) lgkmcnt(0)
        ds_load_b32 v11, v6
        scratch_load_b32 v12, off, off offset:8
        s_waitcnt vmcnt(0) lgkmcnt(0)
        global_store_b32 v2, v11, s[8:9]
        global_store_b32 v2, v12, s[10:11]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "g": z, "l": z, "p": z}, lds=256, scratch=16)
    assert (got["g"] == x).all() and (got["l"] == x).all() and (got["p"] == x + 1).all()


_SQRT_BODY = """
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_sqrt_f32 v3, v3
        global_store_b32 v2, v3, s[6:7]
        s_endpgm"""     # y[i] = sqrt(x[i])


def test_work_groups_run_in_chunks(monkeypatch):
    import emu.machine
    monkeypatch.setattr(emu.machine, "STATE_BYTES", 20000)     # a few work-groups per chunk
    n = 2048
    x = np.random.default_rng(12).standard_normal(n).astype(np.float32)
    src = loads("x", "y") + global_id(64) + _SQRT_BODY
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    got, stats = launch(src, {"x": x, "y": np.zeros(n, np.float32)}, grid=(32, 1, 1))
    assert stats.workgroups == 32
    assert np.allclose(got["y"], want, rtol=2e-7, equal_nan=True)


def test_a_second_launch_reuses_the_state_of_every_chunk_shape(monkeypatch):
    """Work-groups that do not divide into whole chunks leave a last chunk of another shape:
    a launch after it reuses both states (no new register files: a fresh one costs page
    faults), and the results are numpy's."""
    import emu.launch
    import emu.machine
    from emu.wave import WaveState
    made = []

    class Counted(WaveState):
        def __init__(self, *a, **k):
            made.append(a[0])
            super().__init__(*a, **k)
    monkeypatch.setattr(emu.launch, "WaveState", Counted)
    per_group = 2 * (32 * 32 * 4 + 1024)                        # two wave32 waves of 32 VGPRs
    monkeypatch.setattr(emu.machine, "STATE_BYTES", 3 * per_group)     # at most 3 work-groups per chunk
    n = 7 * 64
    x = np.random.default_rng(13).standard_normal(n).astype(np.float32)
    src = loads("x", "y") + global_id(64) + _SQRT_BODY
    mem = DeviceMemory()
    bufs = {name: mem.alloc(n * 4, name) for name in ("x", "y")}
    mem.write(bufs["x"], x)
    table = mem.alloc(16, "kernarg")
    mem.write(table, np.array([bufs["x"], bufs["y"]], np.uint64))
    code = dsl.assemble(src, "gfx1100", 32)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine("gfx1100", mem)
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    # 7 groups: chunks of 3, 3 and 1 (6, 6 and 2 waves); the second chunk reuses the first's state
    for launch_made in ([6, 2], []):
        made.clear()
        mem.write(bufs["y"], np.zeros(n, np.float32))
        machine.run(Dispatch("chunks", at, grid=(7, 1, 1), block=(64, 1, 1), vgprs=32,
                             user_sgprs=[table & 0xFFFFFFFF, table >> 32], user_sgpr_count=16,
                             workgroup_id=(True, True, True)))
        assert sorted(made, reverse=True) == launch_made
        got = np.frombuffer(mem.read(bufs["y"], n * 4), np.float32)
        assert np.allclose(got, want, rtol=2e-7, equal_nan=True)


def test_reused_register_files_read_as_zero(monkeypatch):
    """Chunks (and launches) of one shape reuse the register files: whatever a chunk wrote
    (VALU and cross-lane VGPR writes, SGPRs, VCC) reads as zero in the next one, and what
    the dispatcher sets (here s3 is a user SGPR it leaves alone, s16 the work-group id) is
    set again."""
    import emu.machine
    monkeypatch.setattr(emu.machine, "STATE_BYTES", 6000)      # one work-group per chunk
    src = loads("v5", "v8", "s30", "vcc", "s3", "group") + global_id(32) + """
        v_mov_b32 v9, s30
        v_mov_b32 v10, vcc_lo
        v_mov_b32 v11, s3
        v_mov_b32 v12, s16
        global_store_b32 v2, v5, s[4:5]
        global_store_b32 v2, v8, s[6:7]
        global_store_b32 v2, v9, s[8:9]
        global_store_b32 v2, v10, s[10:11]
        global_store_b32 v2, v11, s[12:13]
        global_store_b32 v2, v12, s[14:15]
        v_mov_b32 v5, 7
        s_mov_b32 s30, 9
        s_mov_b32 s3, 11
        s_mov_b32 s16, 13
        v_writelane_b32 v8, s30, 3
        v_cmp_gt_u32 vcc_lo, 5, v0
        s_endpgm"""
    names = ("v5", "v8", "s30", "vcc", "s3")
    got, stats = launch(src, {name: np.full(4 * 32, 0xDEAD, np.uint32) for name in names + ("group",)},
                        grid=(4, 1, 1), block=(32, 1, 1))
    assert stats.workgroups == 4
    for name in names:
        assert (got[name] == 0).all(), name
    np.testing.assert_array_equal(got["group"], np.repeat(np.arange(4), 32))


def test_stale_registers_of_a_reused_state_read_as_zero(monkeypatch):
    """Registers the last chunk wrote are zeroed only when an instruction may read them: one
    written whole in every lane is not, one read by its own writer or written under a partial
    EXEC is (its other lanes read zero)."""
    import emu.machine
    monkeypatch.setattr(emu.machine, "STATE_BYTES", 6000)      # one work-group per chunk
    src = loads("a", "b", "c") + global_id(32) + """
        v_mov_b32 v5, v1                // written whole
        v_add_nc_u32 v6, 1, v6          // reads the register it writes: 0 + 1
        s_mov_b32 s30, exec_lo
        v_cmpx_gt_u32 16, v0            // lanes 0-15
        v_mov_b32 v7, 3
        s_mov_b32 exec_lo, s30
        global_store_b32 v2, v5, s[4:5]
        global_store_b32 v2, v6, s[6:7]
        global_store_b32 v2, v7, s[8:9]
        v_mov_b32 v5, 0xbad             // what the next chunk finds
        v_mov_b32 v6, 0xbad
        v_mov_b32 v7, 0xbad
        s_endpgm"""
    got, stats = launch(src, {name: np.zeros(4 * 32, np.uint32) for name in "abc"}, grid=(4, 1, 1), block=(32, 1, 1))
    assert stats.workgroups == 4
    np.testing.assert_array_equal(got["a"], np.arange(4 * 32))
    np.testing.assert_array_equal(got["b"], 1)
    np.testing.assert_array_equal(got["c"], np.tile(np.where(np.arange(32) < 16, 3, 0), 4))


def test_stale_registers_written_as_a_pair_keep_their_values(monkeypatch):
    """A 64-bit VALU result written into registers the last chunk left stale is what later
    reads of either half see: the stale pair is zeroed before the write, never after it."""
    import emu.machine
    monkeypatch.setattr(emu.machine, "STATE_BYTES", 6000)      # one work-group per chunk
    src = loads("lo", "hi") + global_id(32) + """
        v_mov_b32 v10, v1
        v_mov_b32 v11, 5
        v_lshlrev_b64 v[8:9], 1, v[10:11]   // writes v8 and v9, reads neither
        global_store_b32 v2, v8, s[4:5]
        global_store_b32 v2, v9, s[6:7]
        v_mov_b32 v8, 0xbad                 // what the next chunk finds
        v_mov_b32 v9, 0xbad
        s_endpgm"""
    got, stats = launch(src, {name: np.zeros(4 * 32, np.uint32) for name in ("lo", "hi")},
                        grid=(4, 1, 1), block=(32, 1, 1))
    assert stats.workgroups == 4
    np.testing.assert_array_equal(got["lo"], 2 * np.arange(4 * 32))
    np.testing.assert_array_equal(got["hi"], 10)


def test_work_item_ids_in_reused_register_files():
    """A launch reusing the last one's register files keeps v0's work-item ids only when the
    ids are for its shape and the last kernel never wrote v0; otherwise they are rewritten."""
    mem = DeviceMemory()
    out = mem.alloc(4 * 32, "ids")
    table = mem.alloc(8, "kernarg")
    mem.write(table, np.array([out], np.uint64))
    machine = Machine("gfx1100", mem)

    def run(block, dims, clobber_v0):
        code = dsl.assemble(loads("ids") + f"""
            v_mbcnt_lo_u32_b32 v2, -1, 0        // lane id: where the lane's v0 goes
            v_lshlrev_b32 v2, 2, v2
            global_store_b32 v2, v0, s[4:5]
            {"v_mov_b32 v0, 7" if clobber_v0 else ""}
            s_endpgm""", "gfx1100")
        at = mem.alloc(len(code), "code")
        mem.write(at, code)
        machine.run(Dispatch("ids", at, grid=(1, 1, 1), block=block, vgprs=8, workitem_id_dims=dims,
                             user_sgprs=[table & 0xFFFFFFFF, table >> 32], user_sgpr_count=16))
        return np.frombuffer(mem.read(out, 4 * 32), np.uint32)

    local = np.arange(32)
    flat, square = local, (local % 8) | (local // 8) << 10
    # held: the reused state's v0 holds ids (for some shape) and was not written since
    for block, dims, clobber, want, held in [((32, 1, 1), 0, False, flat, False),    # a fresh state
                                             ((32, 1, 1), 0, True, flat, True),       # ids kept
                                             ((32, 1, 1), 0, False, flat, False),     # v0 was written: rewritten
                                             ((8, 4, 1), 1, False, square, True),     # another shape: rewritten
                                             ((8, 4, 1), 1, False, square, True)]:    # kept
        spare = machine.spare_state
        assert (spare is not None and spare.v0_ids is not None and not spare.vgpr_written[0]) == held
        np.testing.assert_array_equal(run(block, dims, clobber), want)
    spare = machine.spare_state.reset()             # a plain reset leaves zeros, as in a fresh state
    assert not spare.vgpr.any()


def test_unit_stride_loads_and_atomics_read_memory_as_it_was():
    """A unit-stride load may return a window of memory instead of a copy (nothing writes
    memory before its writeback); the register keeps the value when memory changes later,
    and an atomic's returned values (not lent) are those from before its own update."""
    n = 128
    x = np.random.default_rng(21).integers(0, 2**31, n).astype(np.uint32)
    src = loads("x", "y", "old") + global_id(64) + """
        v_mov_b32 v5, 5
        global_load_b32 v3, v2, s[4:5]
        global_atomic_add_u32 v4, v2, v5, s[4:5] glc
        s_waitcnt vmcnt(0)
        global_store_b32 v2, v3, s[6:7]
        global_store_b32 v2, v4, s[8:9]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "y": np.zeros(n, np.uint32), "old": np.zeros(n, np.uint32)}, grid=(2, 1, 1))
    np.testing.assert_array_equal(got["y"], x)
    np.testing.assert_array_equal(got["old"], x)
    np.testing.assert_array_equal(got["x"], x + np.uint32(5))


def test_unit_stride_accesses_through_64bit_vgpr_addresses(monkeypatch):
    """GLOBAL accesses through a VGPR pair (no SGPR base): a batch whose addresses are one
    unit-stride run is read and written as one slice (EmuOptions.unit_stride_runs; the test
    counts them), an atomic through the same addresses still returns memory from before its
    own update, and addresses that are not a run (neighbouring lanes swapped) take the
    general path."""
    from emu.memory import DeviceMemory
    runs = []
    plain_run = DeviceMemory._plain_run

    def counting(self, addr, nbytes, mask):
        run = plain_run(self, addr, nbytes, mask)
        runs.append(run is not None)
        return run
    monkeypatch.setattr(DeviceMemory, "_plain_run", counting)
    n = 128
    x = np.random.default_rng(23).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    pair = "v_add_co_u32 v{lo}, vcc_lo, s{base}, v2\nv_add_co_ci_u32_e64 v{hi}, null, s{base1}, 0, vcc_lo\n"
    src = loads("x", "y", "old", "z") + global_id(64) + \
        pair.format(lo=8, hi=9, base=4, base1=5) + pair.format(lo=10, hi=11, base=6, base1=7) + \
        pair.format(lo=12, hi=13, base=8, base1=9) + """
        v_mov_b32 v5, 5
        global_load_b32 v3, v[8:9], off
        global_atomic_add_u32 v4, v[8:9], v5, off glc
        s_waitcnt vmcnt(0)
        global_store_b32 v[10:11], v3, off
        global_store_b32 v[12:13], v4, off
        """ + pair.format(lo=14, hi=15, base=10, base1=11) + """
        v_xor_b32 v2, 4, v2             // neighbouring lanes trade load addresses
        """ + pair.format(lo=8, hi=9, base=4, base1=5) + """
        global_load_b32 v6, v[8:9], off
        s_waitcnt vmcnt(0)
        global_store_b32 v[14:15], v6, off
        s_endpgm"""
    z = np.zeros(n, np.uint32)
    got, _ = launch(src, {"x": x, "y": z, "old": z, "z": z}, grid=(2, 1, 1))
    np.testing.assert_array_equal(got["y"], x)
    np.testing.assert_array_equal(got["old"], x)
    np.testing.assert_array_equal(got["x"], x + np.uint32(5))
    np.testing.assert_array_equal(got["z"], (x + np.uint32(5))[np.arange(n) ^ 1])
    assert any(runs) and not all(runs)


def test_address_register_rewritten_between_accesses():
    """The unit-stride verdict on an address register is kept only until the register is
    written: offsets swapped in pairs (same first and last lane) after a unit-stride load
    scatter and gather, and unit-stride ones slice again."""
    n = 128
    x = np.random.default_rng(22).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    swap = """
        v_add_nc_u32 v6, 1, v1
        v_bfe_u32 v6, v6, 1, 1
        v_mul_u32_u24 v6, 12, v6
        v_xor_b32 v2, v2, v6            // lanes 4k+1 and 4k+2 trade offsets"""
    src = loads("x", "y", "z") + global_id(64) + f"""
        global_load_b32 v3, v2, s[4:5]
        {swap}
        global_store_b32 v2, v3, s[6:7]
        global_load_b32 v4, v2, s[4:5]
        {swap}
        global_store_b32 v2, v4, s[8:9]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "y": np.zeros(n, np.uint32), "z": np.zeros(n, np.uint32)}, grid=(2, 1, 1))
    perm = np.arange(n) ^ np.where(np.arange(n) % 4 % 3 == 0, 0, 3)       # 4k+1 <-> 4k+2
    np.testing.assert_array_equal(got["y"][perm], x)
    np.testing.assert_array_equal(got["z"], x[perm])


def test_uniform_sgpr_rewritten_per_wave():
    """An SGPR every wave holds the same value of is read as one value only until it is
    written: after s_mov of the work-group id each wave reads its own."""
    n = 128
    src = loads("a", "b", "c") + global_id(64) + """
        v_mov_b32 v3, s0            // the kernarg table's low half: one value in every wave
        s_mov_b32 s0, s16           // now the work-group id: one per group
        v_mov_b32 v4, s0
        v_mov_b32 v5, s1
        s_mov_b32 s1, 7             // one new value for every wave
        v_add_nc_u32 v5, s1, v5
        global_store_b32 v2, v3, s[4:5]
        global_store_b32 v2, v4, s[6:7]
        global_store_b32 v2, v5, s[8:9]
        s_endpgm"""
    got, _ = launch(src, {name: np.zeros(n, np.uint32) for name in "abc"}, grid=(2, 1, 1))
    assert got["a"][0] != 0 and (got["a"] == got["a"][0]).all()
    np.testing.assert_array_equal(got["b"], np.repeat(np.arange(2), 64))
    np.testing.assert_array_equal(got["c"], 7)      # the table's high half is 0 (a low address)


def test_packed_math_op_sel_and_neg():
    rng = np.random.default_rng(13)
    a, b = rng.uniform(-4, 4, (2, 64, 2)).astype(np.float16)
    z = np.zeros(64, np.uint32)
    src = loads("a", "b", "o1", "o2", "o3") + global_id(64) + """
        global_load_b32 v1, v2, s[4:5]
        global_load_b32 v3, v2, s[6:7]
        s_waitcnt vmcnt(0)
        v_pk_add_f16 v4, v1, v3 op_sel:[1,0] op_sel_hi:[0,1]      // (a.hi + b.lo, a.lo + b.hi)
        v_pk_mul_f16 v5, v1, v3 neg_lo:[1,0] neg_hi:[0,1]         // (-a.lo * b.lo, a.hi * -b.hi)
        v_dot2_f32_f16 v6, v1, v3, 1.0
        global_store_b32 v2, v4, s[8:9]
        global_store_b32 v2, v5, s[10:11]
        global_store_b32 v2, v6, s[12:13]
        s_endpgm"""
    got, _ = launch(src, {"a": a.view(np.uint32).reshape(-1), "b": b.view(np.uint32).reshape(-1),
                          "o1": z, "o2": z, "o3": z})
    lo, hi = 0, 1
    add = np.stack([a[:, hi] + b[:, lo], a[:, lo] + b[:, hi]], 1)
    mul = np.stack([-a[:, lo] * b[:, lo], a[:, hi] * -b[:, hi]], 1)
    assert (got["o1"].view(np.float16).reshape(64, 2) == add).all()
    assert (got["o2"].view(np.float16).reshape(64, 2) == mul).all()
    dot = (a.astype(np.float64) * b.astype(np.float64)).sum(1) + 1.0
    assert np.allclose(got["o3"].view(np.float32), dot, rtol=1e-6)


@pytest.mark.parametrize("prologue, mode", [("", 0x3F0),                    # as the dispatch set it
                                             ("s_round_mode 0x3", 0x3F3)])   # f32 rounding toward zero
def test_mode_register(prologue, mode):
    src = loads("out") + f"""
        {prologue}
        s_getreg_b32 s24, hwreg(HW_REG_MODE)
        v_mov_b32 v1, s24
        v_mov_b32 v2, 0
        global_store_b32 v2, v1, s[4:5]
        s_endpgm"""
    got, _ = launch(src, {"out": np.zeros(1, np.uint32)}, block=(1, 1, 1), mode=0x3F0)
    assert got["out"][0] == mode


def test_trap_stops_the_launch_with_a_clear_error():
    from emu.machine import EmuError
    with pytest.raises(EmuError, match=r"test_kernel: PC 0x[0-9a-f]+: s_trap 2 in work-group \(0, 0, 0\): the kernel trapped"):
        launch("s_trap 2\ns_endpgm", {})


def test_integer_clamp_saturates_carries():
    a = np.array([0xFFFFFFF0, 5, 0x80000000, 0], np.uint32)
    b = np.array([0x20, 7, 0x80000000, 1], np.uint32)
    z = np.zeros(4, np.uint32)
    src = loads("a", "b", "add", "sub") + global_id(4) + """
        global_load_b32 v3, v2, s[4:5]
        global_load_b32 v4, v2, s[6:7]
        s_waitcnt vmcnt(0)
        v_add_co_u32 v5, s24, v3, v4 clamp
        v_sub_co_u32 v6, s24, v3, v4 clamp
        global_store_b32 v2, v5, s[8:9]
        global_store_b32 v2, v6, s[10:11]
        s_endpgm"""
    got, _ = launch(src, {"a": a, "b": b, "add": z, "sub": z}, block=(4, 1, 1))
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    assert (got["add"] == np.minimum(wide_a + wide_b, 0xFFFFFFFF)).all()
    assert (got["sub"] == np.maximum(wide_a - wide_b, 0)).all()
    with pytest.raises(UnsupportedInstruction, match="v_mad_u64_u32: clamp .* 64-bit integer result is not supported"):
        launch("v_mad_u64_u32 v[4:5], s10, v2, v3, v[6:7] clamp\ns_endpgm", {})


@pytest.mark.parametrize("readme, section", [("emu/README.md", "## Machine"),
                                             ("runtime/README.md", "## Devices")])
def test_readme_examples_run(readme, section):
    from tests.conftest import REPO
    text = (REPO / readme).read_text()
    block = text[text.index(section):].split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, f"{readme} example", "exec"), {})


@pytest.mark.parametrize("test", [test_lds_atomics_serialise_in_lane_order, test_global_atomics_histogram,
                                  test_cross_lane_readlane_writelane_bpermute_mbcnt, test_wave64_masks_saveexec_and_vcc,
                                  test_vopd_halves_read_before_either_writes,
                                  test_global_fault_names_kernel_pc_lane_address_and_buffer])
def test_large_batches_run_in_slices_of_waves(monkeypatch, test):
    """A batch wider than SLICE_LANES runs as consecutive slices of waves: atomics still
    serialise in lane order, cross-lane ops see whole waves, faults name the right wave."""
    import emu.machine
    monkeypatch.setattr(emu.machine, "SLICE_LANES", 32)     # one wave per semantic call
    monkeypatch.setattr(emu.machine, "MEMORY_SLICE_LANES", 32)
    test()


@pytest.mark.parametrize("lanes", [32, 64, 16])
def test_lane_masks_pack_bit_i_as_lane_i(lanes):
    from emu.wave import pack_mask, unpack_mask
    bits = np.random.default_rng(lanes).random((5, lanes)) < 0.5
    want = [sum(1 << i for i in range(lanes) if row[i]) for row in bits]
    assert pack_mask(bits)[:, 0].tolist() == want
    np.testing.assert_array_equal(unpack_mask(pack_mask(bits), lanes), bits)


@pytest.mark.parametrize("active", [64, 40])        # every lane on / a partial EXEC (masked writeback)
def test_results_computed_into_their_registers(active, monkeypatch):
    """With every lane on, whole 32-bit results are computed straight into the destination
    register (Ctx.dest): still right when a source is that register (also for an fma whose
    float64 sums are proven exact: rtlib._sums_exact), when VOPD's Y half reads the register
    its X half writes, and for v_fmac's accumulator. With a partial EXEC the results take the
    masked writeback and inactive lanes keep their old values."""
    from emu import rtlib
    proofs = []
    sums_exact = rtlib._sums_exact
    # the proof is tried on batches of more than 2 * _BLOCK lanes (a few waves go straight to
    # the midpoint test): a small block size makes this launch take that path
    monkeypatch.setattr(rtlib, "_BLOCK", 16)
    monkeypatch.setattr(rtlib, "_sums_exact", lambda *args: proofs.append(sums_exact(*args)) or proofs[-1])
    rng = np.random.default_rng(7)
    # non-zero operands of at most 12 significant bits: a * b + c is exact in float64, rounded once to f32
    a, b = ((rng.choice([-1, 1], 64) * rng.integers(1, 2048, 64) / 256).astype(np.float32) for _ in range(2))
    u = rng.integers(0, 2 ** 32, 64, dtype=np.uint32)
    src = loads("inputs", "out") + global_id(64) + f"""
        global_load_b32 v5, v2, s[4:5]
        global_load_b32 v6, v2, s[4:5] offset:256
        global_load_b32 v7, v2, s[4:5] offset:512
        s_waitcnt vmcnt(0)
        v_mov_b32 v10, v5
        v_mov_b32 v11, v6
        v_mov_b32 v20, v1
        v_mov_b32 v21, v5
        v_mov_b32 v13, v5
        s_mov_b32 s41, 0x3fc00000                // 1.5 and -0.25: one value in every wave
        s_mov_b32 s42, 0xbe800000
        s_mov_b32 s40, exec_lo
        v_cmpx_gt_u32 {active}, v1
        v_add_nc_u32 v7, v7, v1                  // the destination is a source
        v_lshlrev_b32 v12, 3, v7
        v_lshlrev_b32 v12, 1, v12
        v_fma_f32 v10, v10, v11, 1.5
        v_fmac_f32 v11, v5, v6                   // reads its destination as the addend
        v_fma_f32 v13, s41, v13, s42             // sums proven exact, rounded once in place
        v_dual_fmaak_f32 v20, v21, v6, 0x3fc00000 :: v_dual_lshlrev_b32 v21, 1, v20    // each reads the other's old destination
        s_mov_b32 exec_lo, s40
        global_store_b32 v2, v7, s[6:7]
        global_store_b32 v2, v12, s[6:7] offset:256
        global_store_b32 v2, v10, s[6:7] offset:512
        global_store_b32 v2, v11, s[6:7] offset:768
        global_store_b32 v2, v20, s[6:7] offset:1024
        global_store_b32 v2, v21, s[6:7] offset:1280
        global_store_b32 v2, v13, s[6:7] offset:1536
        s_endpgm"""
    got, _ = launch(src, {"inputs": np.concatenate([a.view(np.uint32), b.view(np.uint32), u]),
                          "out": np.zeros(7 * 64, np.uint32)})
    got = dict(zip([f"o{i}" for i in range(7)], got["out"].reshape(7, 64)))
    on, gid = np.arange(64) < active, np.arange(64, dtype=np.uint32)
    f32 = lambda x: np.asarray(x, np.float32).view(np.uint32)
    added = u + gid
    assert (got["o0"] == np.where(on, added, u)).all()
    assert (got["o1"] == np.where(on, added << np.uint32(4), 0)).all()
    assert (got["o2"] == np.where(on, f32(a * b + np.float32(1.5)), f32(a))).all()
    assert (got["o3"] == np.where(on, f32(a * b + b), f32(b))).all()
    assert (got["o4"] == np.where(on, f32(a * b + np.float32(1.5)), gid)).all()
    assert (got["o5"] == np.where(on, gid << np.uint32(1), f32(a))).all()
    assert (got["o6"] == np.where(on, f32(np.float32(1.5) * a - np.float32(0.25)), f32(a))).all()
    assert True in proofs


def test_tracer_sees_registers_of_a_reused_state_as_zero():
    """A launch reusing the last one's register files sees zeros in registers it has not
    written yet; so does a tracer, which reads the register files between steps."""
    mem = DeviceMemory()
    code = dsl.assemble("""
        s_nop 0
        v_mov_b32 v5, 7
        s_endpgm""", "gfx1100")
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine("gfx1100", mem)
    dispatch = Dispatch("trace", at, grid=(2, 1, 1), block=(64, 1, 1), vgprs=8)
    seen = []
    machine.run(dispatch)
    assert machine.spare_state is not None and (machine.spare_state.vgpr[5] == 7).all()
    machine.tracer = lambda p, st, sel: seen.append((p.mnemonic, st.vgpr[5].copy()))
    machine.run(dispatch)
    assert [m for m, _ in seen] == ["s_nop", "v_mov_b32", "s_endpgm"]
    assert not seen[0][1].any()
    assert (seen[1][1] == 7).all()


def test_inline_one_over_two_pi_is_the_hardware_pattern():
    """Inline constant 248 read as an f64 (VALU) and as a 64-bit SALU source is
    0x3fc45f306dc9c882 -- the bits LLVM 22 encodes as code 248 (it refuses the nearest double,
    ...883, as an inline constant: tests/test_isa_traits.py) -- and 0x3e22f983 as an f32."""
    from tests.llvm_tools import mc_encodings
    assert mc_encodings(["v_add_f64 v[0:1], 0x3fc45f306dc9c882, 0"], "gfx1100")[0][4] == 248
    src = loads("out") + """
        v_add_f64 v[0:1], 0x3fc45f306dc9c882, 0
        s_mov_b64 s[8:9], 0x3fc45f306dc9c882
        v_mov_b32 v4, 0
        v_mov_b32 v2, s8
        v_mov_b32 v3, s9
        v_add_f32 v5, 0x3e22f983, 0
        v_mov_b32 v6, 0
        global_store_b64 v4, v[0:1], s[4:5]
        global_store_b64 v4, v[2:3], s[4:5] offset:8
        global_store_b64 v4, v[5:6], s[4:5] offset:16
        s_endpgm
    """
    out, _ = launch(src, {"out": np.zeros(3, np.uint64)}, block=(32, 1, 1))
    assert [hex(x) for x in out["out"]] == ["0x3fc45f306dc9c882", "0x3fc45f306dc9c882", "0x3e22f983"]


def test_flat_offset_is_twelve_bits_unsigned():
    """FLAT's OFFSET field is 13 bits of which FLAT uses 12, unsigned ("FLAT: 12-bit unsigned
    offset (MSB is ignored)", RDNA3 manual's FLAT field table); LLVM 22's assembler accepts
    offset:0..4095 on FLAT ("expected a 12-bit unsigned offset"). Offsets 2048..4095 address
    past 2 KiB: a load at offset:3000 reads the word 3000 bytes on, not 952."""
    words = np.arange(2048, dtype=np.uint32) * np.uint32(7) + np.uint32(1)
    src = loads("inputs", "out") + """
        v_mov_b32 v2, s4
        v_mov_b32 v3, s5
        v_mov_b32 v4, s6
        v_mov_b32 v5, s7
        flat_load_b32 v6, v[2:3] offset:3000
        flat_load_b32 v7, v[2:3] offset:2048
        flat_load_b32 v8, v[2:3] offset:4092
        s_waitcnt vmcnt(0) lgkmcnt(0)
        flat_store_b32 v[4:5], v6
        flat_store_b32 v[4:5], v7 offset:4
        flat_store_b32 v[4:5], v8 offset:2052
        s_endpgm"""
    got, _ = launch(src, {"inputs": words, "out": np.zeros(1024, np.uint32)}, block=(32, 1, 1))
    assert got["out"][0] == words[3000 // 4] and got["out"][1] == words[2048 // 4]
    assert got["out"][2052 // 4] == words[4092 // 4]

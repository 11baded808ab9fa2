"""The emulator on CDNA3 (gfx942) and CDNA4 (gfx950): what differs from RDNA3 in the machine
(wave64, GFX9 encodings: SDWA, GFX9 DPP, VOP3B carries, SMEM offsets, SOPK immediates, AGPRs,
V_CMPX writing EXEC and the SDST, ds_bpermute over the whole wave64), each checked against
numpy or the manual's rule. The corpus kernels run in tests/test_emu_kernels.py."""
from __future__ import annotations

import numpy as np
import pytest

from emu.machine import UnsupportedInstruction
from tests.test_emu_machine import launch

LANES = np.arange(64, dtype=np.uint32)
# s[4:5] = the first buffer's address, v1 = lane * 4
PROLOGUE = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
"""


def run(body: str, out_dwords: int = 1, arch: str = "gfx942", inputs=None, **kw) -> np.ndarray:
    """Run PROLOGUE + body + s_endpgm for one wave64; the body stores its results through
    s[4:5] (out_dwords per lane at lane * 4 * out_dwords); returns them as (64, out_dwords)."""
    out = np.zeros(64 * out_dwords, np.uint32)
    buffers = {"out": out} | ({"in": inputs} if inputs is not None else {})
    got, _ = launch(PROLOGUE + body + "\ns_endpgm", buffers, wave=64, arch=arch, **kw)
    return got["out"].reshape(64, out_dwords)


def _bytes(v, k):
    return (v >> np.uint32(8 * k)) & np.uint32(0xFF)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_sdwa_selects_sources_and_places_the_result(arch):
    """SDWA (CDNA3 manual 13.3.7): src0_sel BYTE_1 and src1_sel WORD_0 zero-extended, the result
    in bits 31:16 with the rest preserved; sext() sign-extends a selected byte, UNUSED_SEXT
    sign-extends the result's byte into the bits above it."""
    a = (LANES * np.uint32(0x01030507) + np.uint32(0x80C0E0F0)).astype(np.uint32)
    b = (LANES * np.uint32(0x00110013) + np.uint32(0x7F00FF90)).astype(np.uint32)
    body = """
    s_mov_b32 s20, 0x01030507
    s_mov_b32 s21, 0x00110013
    v_mul_lo_u32 v2, v0, s20
    v_add_u32 v2, 0x80C0E0F0, v2
    v_mul_lo_u32 v3, v0, s21
    v_add_u32 v3, 0x7F00FF90, v3
    v_mov_b32 v4, 0xDEADBEEF
    v_min_u32_sdwa v4, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:WORD_0
    v_mov_b32 v5, 0xDEADBEEF
    v_add_u32_sdwa v5, sext(v2), v3 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_2 src1_sel:DWORD
    v_lshlrev_b32 v1, 3, v0
    global_store_dwordx2 v1, v[4:5], s[4:5]
    """
    got = run(body, 2, arch)
    lo = np.minimum(_bytes(a, 1), b & np.uint32(0xFFFF))
    want4 = (np.uint32(0xBEEF) | (lo << np.uint32(16))).astype(np.uint32)
    s0 = _bytes(a, 2).astype(np.int64)
    s0 = np.where(s0 >= 128, s0 - 256, s0)                        # sext(BYTE_2)
    byte = ((s0 + b.astype(np.int64)) & 0xFF).astype(np.uint32)
    want5 = np.where(byte & 0x80, byte | np.uint32(0xFFFFFF00), byte).astype(np.uint32)
    assert (got[:, 0] == want4).all() and (got[:, 1] == want5).all()


@pytest.mark.parametrize("control, source", [
    ("wave_shl:1", lambda i: np.where(i < 63, i + 1, -1)),        # wave shift left: lane i reads i + 1
    ("wave_ror:1", lambda i: (i - 1) % 64),
    ("row_bcast:15", lambda i: np.where(i >= 16, (i & ~15) - 1, -1)),
    ("row_bcast:31", lambda i: np.where(i >= 32, 31, -1)),
    ("row_newbcast:3", lambda i: (i & ~15) + 3),
])
def test_gfx9_dpp_wave_shifts_and_broadcasts(control, source):
    """GFX9 DPP controls that cross rows (the CDNA3 DPP_CTRL table's descriptions): an invalid
    source lane with bound_ctrl:0 reads 0 (and the lane writes)."""
    got = run(f"""
    v_add_u32 v2, 100, v0
    v_mov_b32 v3, 7
    v_mov_b32_dpp v3, v2 {control} row_mask:0xf bank_mask:0xf bound_ctrl:1
    global_store_dword v1, v3, s[4:5]
    """)[:, 0]
    src = source(np.arange(64))
    assert (got == np.where(src >= 0, src + 100, 0)).all()


def test_vcmpx_writes_exec_and_the_sdst_and_vop3b_carries():
    """CDNA3's V_CMPX: EXEC.u64[laneId] = D0.u64[laneId] = ... (both); v_add_co_u32_e64 writes
    its carry to the SDST its VOP3B encoding names."""
    got = run("""
    v_mov_b32 v2, 40
    v_cmpx_gt_u32_e64 s[8:9], v0, v2
    v_mov_b32 v4, s8
    v_mov_b32 v5, s9
    v_mov_b32 v6, exec_lo
    v_mov_b32 v7, exec_hi
    v_mov_b32 v8, -1
    v_add_co_u32_e64 v9, s[10:11], v8, v0
    v_mov_b32 v10, s10
    v_mov_b32 v11, s11
    s_mov_b64 exec, -1
    v_lshlrev_b32 v1, 5, v0
    global_store_dwordx4 v1, v[4:7], s[4:5]
    global_store_dwordx4 v1, v[8:11], s[4:5] offset:16
    """, 8)
    gt = sum(1 << i for i in range(41, 64))
    carry = sum(1 << i for i in range(41, 64))           # -1 + lane carries for lanes >= 1; active: 41..63
    active = np.arange(64) > 40          # the lanes the moves after v_cmpx write
    assert (got[active, 0] == gt & 0xFFFFFFFF).all() and (got[active, 1] == gt >> 32).all()
    assert (got[active, 2] == gt & 0xFFFFFFFF).all() and (got[active, 3] == gt >> 32).all()
    assert (got[~active] == 0).all()
    assert (got[active, 6] == carry & 0xFFFFFFFF).all() and (got[active, 7] == carry >> 32).all()
    assert (got[active, 5] == (np.arange(64)[active] - 1)).all()


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_vop3_mask_source_is_src2_not_vcc(arch):
    """The e64 forms of v_cndmask_b32 (VOP3A) and v_addc_co_u32 (VOP3B) read their lane mask from
    the SGPR pair in SRC2 (LLVM: v_cndmask_b32_e64 v2, v3, v4, s[8:9]). VCC holds the opposite
    mask, so reading it instead shows in every lane."""
    mask = 0x00FF00FF_0F0F0F0F
    got = run(f"""
    s_mov_b32 s8, {mask & 0xFFFFFFFF:#x}
    s_mov_b32 s9, {mask >> 32:#x}
    s_not_b64 vcc, s[8:9]
    v_mov_b32 v3, 7
    v_cndmask_b32_e64 v4, v3, v0, s[8:9]
    v_mov_b32 v5, -1
    v_addc_co_u32_e64 v5, s[10:11], v5, v0, s[8:9]
    v_lshlrev_b32 v1, 3, v0
    global_store_dwordx2 v1, v[4:5], s[4:5]
    """, 2, arch)
    bit = (mask >> np.arange(64, dtype=np.uint64)) & 1
    lanes = np.arange(64, dtype=np.uint64)
    assert (got[:, 0] == np.where(bit == 1, lanes, 7)).all()
    assert (got[:, 1] == ((0xFFFFFFFF + lanes + bit) & 0xFFFFFFFF)).all()


def test_sopk_immediates_and_smem_offset_register():
    """CDNA3's SOPK entries name the 16-bit immediate S0 (s_movk_i32: signext(S0.i16)) or S1
    (s_cmpk_*: S0 is the SGPR); an SMEM offset from an SGPR (IMM = 0, manual 8.2.1.1)."""
    data = np.arange(16, dtype=np.uint32) * np.uint32(3) + np.uint32(1000)
    got = run("""
    s_load_dwordx2 s[12:13], s[0:1], 0x8
    s_movk_i32 s6, 0x8001
    s_mov_b32 s7, 0
    s_cmpk_eq_u32 s6, 0x8001
    s_cselect_b32 s7, 1, 2
    s_movk_i32 s8, 0x1c
    s_waitcnt lgkmcnt(0)
    s_load_dword s9, s[12:13], s8
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v2, s6
    v_mov_b32 v3, s7
    v_mov_b32 v4, s9
    v_lshlrev_b32 v1, 4, v0
    global_store_dwordx3 v1, v[2:4], s[4:5]
    """, 4, inputs=data)
    assert got[0, 0] == 0xFFFF8001 and got[0, 1] == 2 and got[0, 2] == data[7]
    # s_cmpk_eq_u32 compares the SGPR with the zero-extended immediate: 0xffff8001 != 0x8001


def test_agprs_in_the_unified_file():
    """a[n] is register accum_offset + n of the unified file: v_accvgpr_write/read/mov move
    between the files, ACC on a memory instruction makes its data AGPRs."""
    got = run("""
    v_add_u32 v2, 0x1234, v0
    v_accvgpr_write_b32 a3, v2
    v_accvgpr_mov_b32 a4, a3
    v_accvgpr_read_b32 v6, a4
    v_mov_b32 v7, 0x55
    v_accvgpr_write_b32 a0, v7
    global_store_dword v1, a0, s[4:5]
    global_load_dword a5, v1, s[4:5]
    s_waitcnt vmcnt(0)
    v_accvgpr_read_b32 v7, a5
    v_mov_b32 v8, v19
    v_mov_b32 v9, v20
    v_lshlrev_b32 v1, 4, v0
    global_store_dwordx4 v1, v[6:9], s[4:5]
    """, 4, vgprs=32, accum_offset=16)
    assert (got[:, 0] == 0x1234 + LANES).all() and (got[:, 1] == 0x55).all()
    # a3, a4 are registers 19, 20 of the unified file
    assert (got[:, 2] == 0x1234 + LANES).all() and (got[:, 3] == 0x1234 + LANES).all()


def test_agprs_need_an_accum_offset():
    with pytest.raises(UnsupportedInstruction, match="AGPR"):
        run("v_accvgpr_write_b32 a3, v0")


def test_bpermute_spans_the_whole_wave64():
    """CDNA3's ds_bpermute_b32: src_lane = ... / 4U % 64U (RDNA3's permutes within 32-lane halves)."""
    got = run("""
    v_sub_u32 v2, 63, v0
    v_lshlrev_b32 v2, 2, v2
    v_add_u32 v3, 500, v0
    ds_bpermute_b32 v4, v2, v3
    s_waitcnt lgkmcnt(0)
    global_store_dword v1, v4, s[4:5]
    """)[:, 0]
    assert (got == 500 + 63 - LANES).all()


def test_global_atomic_returns_the_pre_op_value_only_with_sc0():
    """CDNA3 manual 9.1.10: "For atomics, SC0 indicates whether or not to return the "pre-op"
    memory value"; without SC0 the data register keeps its value. (MUBUF: test_emu_buffer_cdna.py)"""
    data = LANES * 3
    got = run("""
    s_load_dwordx2 s[6:7], s[0:1], 0x8
    v_mov_b32 v3, 1
    v_mov_b32 v2, 0x55
    s_waitcnt lgkmcnt(0)
    global_atomic_add v2, v1, v3, s[6:7] sc0
    global_atomic_add v1, v3, s[6:7]
    s_waitcnt vmcnt(0)
    global_load_dword v5, v1, s[6:7]
    v_mov_b32 v4, 0x66
    global_atomic_add v1, v4, s[6:7]
    s_waitcnt vmcnt(0)
    v_lshlrev_b32 v6, 3, v0
    global_store_dwordx2 v6, v[4:5], s[4:5]
    global_store_dword v1, v2, s[4:5] offset:512
    s_waitcnt vmcnt(0)
    """, out_dwords=3, inputs=data.copy())
    flat = got.reshape(-1)
    assert (flat[:128].reshape(64, 2)[:, 0] == 0x66).all()          # no SC0: v4 unchanged
    assert (flat[:128].reshape(64, 2)[:, 1] == data + 2).all()      # both adds landed
    assert (flat[128:] == data).all()                               # SC0: the pre-op value


def test_bitop3_truth_table_gfx950():
    """CDNA4's V_BITOP3_B32 reads its truth table from the OMOD, ABS and NEG fields (INST.*)."""
    got = run("""
    s_mov_b32 s20, 0x9E3779B9
    s_mov_b32 s21, 0x85EBCA6B
    s_mov_b32 s22, 0xC2B2AE35
    v_mul_lo_u32 v2, v0, s20
    v_mul_lo_u32 v3, v0, s21
    v_mul_lo_u32 v4, v0, s22
    v_bitop3_b32 v5, v2, v3, v4 bitop3:0xe8
    global_store_dword v1, v5, s[4:5]
    """, arch="gfx950")[:, 0]
    a, b, c = (LANES * np.uint32(k) for k in (0x9E3779B9, 0x85EBCA6B, 0xC2B2AE35))
    assert (got == ((a & b) | (a & c) | (b & c))).all()        # 0xe8: the majority function


def test_integer_dot_products():
    """V_DOT4C_I32_I8 (D0 += signed 8-bit products) and V_DOT8_I32_I4 (S2 + signed 4-bit
    products) against numpy."""
    got = run("""
    s_mov_b32 s20, 0x9E3779B9
    s_mov_b32 s21, 0x85EBCA6B
    v_mul_lo_u32 v2, v0, s20
    v_mul_lo_u32 v3, v0, s21
    v_add_u32 v4, -1000, v0
    v_mov_b32 v5, v4
    v_dot4c_i32_i8_e32 v4, v2, v3
    v_dot8_i32_i4 v5, v2, v3, v5
    v_lshlrev_b32 v1, 3, v0
    global_store_dwordx2 v1, v[4:5], s[4:5]
    """, 2)
    a, b = (LANES * np.uint32(k) for k in (0x9E3779B9, 0x85EBCA6B))
    acc = LANES.astype(np.int64) - 1000

    def lanes_of(x, bits):
        parts = [(x.astype(np.int64) >> (bits * i)) & ((1 << bits) - 1) for i in range(32 // bits)]
        return [np.where(p >= 1 << (bits - 1), p - (1 << bits), p) for p in parts]
    dot4 = acc + sum(p * q for p, q in zip(lanes_of(a, 8), lanes_of(b, 8)))
    dot8 = acc + sum(p * q for p, q in zip(lanes_of(a, 4), lanes_of(b, 4)))
    assert (got[:, 0] == (dot4 & 0xFFFFFFFF)).all() and (got[:, 1] == (dot8 & 0xFFFFFFFF)).all()


@pytest.mark.parametrize("arch, floor", [("gfx942", 1449), ("gfx950", 1535)])
def test_coverage_reports_cdna_and_names_what_is_missing(arch, floor):
    """`wavesmith emu --coverage --arch gfx942`: the level reached (a floor) and a reason for
    every instruction without semantics."""
    from emu.coverage import coverage, report
    per_format, missing = coverage(arch)
    graphics = {"MIMG", "EXP"}
    done = sum(c["generated"] + c["hand-written"] for f, c in per_format.items() if f not in graphics)
    assert done >= floor
    assert all(reason for _, _, reason in missing)
    family = {"gfx942": "cdna3", "gfx950": "cdna4"}[arch]
    assert report(arch).splitlines()[-1].startswith(f"{family}: {done}/")


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("dst, c", [("v[16:31]", "v[16:31]"), ("a[0:15]", "a[0:15]"), ("a[0:15]", "0")])
def test_mfma_operands_from_vgprs_agprs_and_a_constant(arch, dst, c):
    """v_mfma_f32_32x32x8_f16 with D/C in VGPRs, in AGPRs (ACC_CD) or C an inline 0, against
    numpy with the CDNA3 manual's layouts (7.1.4): A[i, k] is half k % 4 of lane i + 32 * (k / 4),
    B[k, j] half k % 4 of lane j + 32 * (k / 4), D[i, j] register (i % 4) + 4 * (i / 8) of lane
    j + 32 * ((i / 4) % 2)."""
    lane = np.arange(64)
    a = ((lane[:, None] * 4 + np.arange(4)) % 7 - 3).astype(np.float16)          # (64, 4) halves
    b = ((lane[:, None] * 3 + np.arange(4)) % 5 - 2).astype(np.float16)
    c0 = 0 if c == "0" else 1
    words = np.concatenate([a.view(np.uint32), b.view(np.uint32)], axis=1)       # (64, 4) dwords
    store = "\n".join(f"v_accvgpr_read_b32 v{16 + r}, a{r}" for r in range(16)) if dst.startswith("a") else ""
    init = "\n".join(f"v_mov_b32 v{16 + r}, 1.0" if dst.startswith("v") else
                      f"v_accvgpr_write_b32 a{r}, 1.0" for r in range(16)) if c0 else ""
    got = run(f"""
    s_load_dwordx2 s[8:9], s[0:1], 0x8
    v_lshlrev_b32 v6, 4, v0
    s_waitcnt lgkmcnt(0)
    global_load_dwordx4 v[2:5], v6, s[8:9]
    s_waitcnt vmcnt(0)
    {init}
    v_mfma_f32_32x32x8_f16 {dst}, v[2:3], v[4:5], {c}
    s_nop 15
    s_nop 3
    {store}
    v_lshlrev_b32 v1, 6, v0
    global_store_dwordx4 v1, v[16:19], s[4:5]
    global_store_dwordx4 v1, v[20:23], s[4:5] offset:16
    global_store_dwordx4 v1, v[24:27], s[4:5] offset:32
    global_store_dwordx4 v1, v[28:31], s[4:5] offset:48
    """, 16, arch, inputs=words.reshape(-1), vgprs=48, accum_offset=32)
    A = np.zeros((32, 8)); B = np.zeros((8, 32))
    for k in range(8):
        A[:, k] = a[np.arange(32) + 32 * (k // 4), k % 4]
        B[k, :] = b[np.arange(32) + 32 * (k // 4), k % 4]
    D = A @ B + c0
    want = np.zeros((64, 16), np.float32)
    for i in range(32):
        want[np.arange(32) + 32 * ((i // 4) % 2), (i % 4) + 4 * (i // 8)] = D[i]
    assert (got.view(np.float32) == want).all()


def test_gfx950_prng_steps_the_lfsr():
    """v_prng_b32 (CDNA4 manual: `in = S0.u32; D0.u32 = ((in << 1U) ^ (in[31] ? 197U : 0U))`, a
    local named `in`, which the grammar reads as a name outside `for`): one step of a 32-bit
    Galois LFSR with feedback 0xC5, against numpy; both the VOP1 and the VOP3 form."""
    seed = (LANES * np.uint32(0x9E3779B9) + np.uint32(0x80000001)).astype(np.uint32)
    got = run("""
    s_mov_b32 s20, 0x9E3779B9
    v_mul_lo_u32 v2, v0, s20
    v_add_u32 v2, 0x80000001, v2
    v_prng_b32 v4, v2
    v_prng_b32_e64 v5, v4
    v_lshlrev_b32 v1, 3, v0
    global_store_dwordx2 v1, v[4:5], s[4:5]
    """, 2, "gfx950")

    def step(x):
        return ((x.astype(np.uint64) << np.uint64(1)) & np.uint64(0xFFFFFFFF)).astype(np.uint32) \
            ^ np.where(x >> np.uint32(31), np.uint32(0xC5), np.uint32(0))
    assert (got[:, 0] == step(seed)).all() and (got[:, 1] == step(step(seed))).all()


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("denorm,d0,s0,s1", [
    (0b1100, 0x00003C00, 2.0, 3.0),         # f32 flushed, f16 kept: D0 as a 32-bit word is an f32 denormal
    (0b0011, 0x00000200, 2.0 ** -14, 1.0),  # f16 flushed: D0.f16 = 2**-15 is an f16 denormal, flushed to 0
])
def test_legacy_mac_f16_flushes_its_d0_as_an_f16(arch, denorm, d0, s0, s1):
    """V_MAC_F16 (CDNA3/CDNA4): tmp = S0.f16 * S1.f16 + D0.f16 reads the low half of D0 as an f16,
    flushed by MODE.FP_DENORM's F16_F64 half and not by its F32 half (the emulator once flushed the
    whole 32-bit D0 as an f32; tests/effects_check_mode.py found it). Expected: numpy's float16."""
    h = lambda x: int(np.float16(x).view(np.uint16))     # noqa: E731
    got = run(f"""
    s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), {denorm:#x}
    v_mov_b32 v2, {h(s0):#x}
    v_mov_b32 v3, {h(s1):#x}
    v_mov_b32 v4, {d0:#x}
    v_mac_f16 v4, v2, v3
    global_store_dword v1, v4, s[4:5]
    """, arch=arch)
    half = np.uint16(d0 & 0xFFFF).view(np.float16)
    if not denorm & 0b0100 and abs(half) < np.finfo(np.float16).tiny:   # the F16_F64 input half cleared
        half = np.float16(0.0)
    want = int((np.float16(s0) * np.float16(s1) + half).view(np.uint16))
    assert want != h(s0 * s1) or denorm & 0b0100 == 0
    assert (got[:, 0] == want).all(), (hex(int(got[0, 0])), hex(want))

"""MUBUF on CDNA3 (gfx942) and CDNA4 (gfx950): the GFX9 buffer resource (V#) built in SGPRs
and the CDNA range check, each kernel's results checked against numpy and the CDNA3 ISA
manual's rules:

- 9.1.8, Table 47: base 47:0, stride 61:48, swizzle enable 63, num_records 95:64, add_tid 119,
  type 127:126; "A resource set to all zeros acts as an unbound texture or buffer".
- 9.1.5.1 "Range Checking": raw buffer (AddTID 0, SwizzleEn 0, IdxEn 0) out of range if
  InstOffset + (OffEN ? vgpr_offset : 0) >= NumRecords (the SGPR offset is not in the test and
  the access's size is not either); structured (AddTID 0, Stride != 0, IdxEn 1) out of range
  if Index >= NumRecords; private (AddTID 1, IdxEn 0) not checked. Out-of-range reads return
  zero, writes and atomics are dropped; dword-x2..4 are checked per component.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import dsl
from emu.machine import EmuError, UnsupportedInstruction
from tests.llvm_tools import run as run_tool, tool
from tests.test_emu_machine import launch

LANE = np.arange(64, dtype=np.int64)


RAW_WORD3 = (4 << 15) | (7 << 12)      # V# 127:96 with DFMT 32 (114:111), NFMT float (110:108)


def vsharp(buffer: int, *, stride=0, num_records=0, word3=RAW_WORD3, swizzle=0) -> str:
    """s[8:11] = a GFX9 V# over kernel buffer `buffer` (its address is at kernarg 8 * buffer),
    fields placed as Table 47 lays them out; v0 = lane id, v1 = lane * 4. A data format other
    than INVALID (0) by default: INVALID means an unbound resource (9.1.4)."""
    return f"""
    s_load_dwordx2 s[6:7], s[0:1], {8 * buffer:#x}
    v_lshlrev_b32 v1, 2, v0
    s_waitcnt lgkmcnt(0)
    s_mov_b32 s8, s6
    s_and_b32 s9, s7, 0xffff
    s_or_b32 s9, s9, {(stride << 16) | (swizzle << 31):#x}
    s_mov_b32 s10, {num_records:#x}
    s_mov_b32 s11, {word3:#x}
"""


def run(body: str, buffers: dict, arch: str = "gfx942") -> dict:
    got, _ = launch(body + "\ns_waitcnt vmcnt(0)\ns_endpgm", buffers, wave=64, arch=arch)
    return got


def store_result(reg: str, column: int = 0, columns: int = 1) -> str:
    """Store `reg` of each lane to buffer 1 ('out') at (lane * columns + column) * 4."""
    return f"""
    s_load_dwordx2 s[4:5], s[0:1], 0x8
    v_mul_u32_u24 v30, {4 * columns}, v0
    v_add_u32 v30, {4 * column}, v30
    s_waitcnt lgkmcnt(0)
    global_store_dword v30, {reg}, s[4:5]
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_raw_load_checks_where_the_access_starts_without_the_sgpr_offset(arch):
    """num_records = 162: lane 38's dword starts at offset 160 < 162 and is read although it
    ends past 162; the SGPR offset (16) moves the address but not the check."""
    data = (np.arange(256, dtype=np.uint32) * 3 + 1)
    body = vsharp(0, num_records=162) + """
    s_mov_b32 s12, 16
    buffer_load_dword v2, v1, s[8:11], s12 offen offset:8
    s_waitcnt vmcnt(0)
""" + store_result("v2")
    got = run(body, {"in": data, "out": np.zeros(64, np.uint32)}, arch)["out"]
    want = np.where(LANE * 4 + 8 < 162, data[(16 + 8 + LANE * 4) // 4], 0)
    assert (got == want).all()
    assert got[38] != 0 and got[39] == 0


def test_raw_stores_are_dropped_out_of_range_and_x2_is_checked_per_component():
    """buffer_store_dword with num_records 41 lands for offsets 0..40 (lanes 0..10);
    buffer_store_dwordx2 at lane * 8 with num_records 42: lane 5's X (offset 40) lands,
    its Y (offset 44) is dropped (note 4: per component)."""
    body = vsharp(0, num_records=41) + """
    v_add_u32 v2, 1000, v0
    v_add_u32 v3, 2000, v0
    buffer_store_dword v2, v1, s[8:11], 0 offen
    s_mov_b32 s10, 42
    v_lshlrev_b32 v4, 3, v0
    buffer_store_dwordx2 v[2:3], v4, s[8:11], 0 offen
"""
    one = run(body.replace("buffer_store_dwordx2", "; buffer_store_dwordx2"), {"a": np.zeros(64, np.uint32)})["a"]
    assert (one == np.where(LANE * 4 < 41, 1000 + LANE, 0)).all()
    two = run(body.replace("buffer_store_dword v2", "; buffer_store_dword v2"),
              {"a": np.zeros(128, np.uint32)})["a"].reshape(64, 2)
    offsets = LANE[:, None] * 8 + np.array([0, 4])
    want = np.where(offsets < 42, np.stack([1000 + LANE, 2000 + LANE], 1), 0)
    assert (two == want).all()
    assert two[5].tolist() == [1005, 0]


def test_structured_load_checks_only_the_index():
    """stride 8, num_records 20: index = lane; an offset (12) past the stride is still in
    range, indices >= 20 read 0; idxen + offen take VADDR = (index, offset) in that order."""
    data = np.arange(256, dtype=np.uint32) + 77
    body = vsharp(0, stride=8, num_records=20) + """
    buffer_load_dword v2, v0, s[8:11], 0 idxen offset:12
    v_mov_b32 v4, v0
    v_mov_b32 v5, 4
    buffer_load_dword v3, v[4:5], s[8:11], 0 idxen offen offset:8
    s_waitcnt vmcnt(0)
""" + store_result("v2", 0, 2) + store_result("v3", 1, 2)
    got = run(body, {"in": data, "out": np.zeros(128, np.uint32)})["out"].reshape(64, 2)
    want = np.where(LANE < 20, data[(8 * LANE + 12) // 4], 0)
    assert (got[:, 0] == want).all() and (got[:, 1] == want).all()


def test_atomic_add_returns_old_values_and_is_dropped_out_of_range():
    """buffer_atomic_add sc0 (GLC on GFX9) with num_records 123: lanes with offset < 123 (0..30) add and
    return the old value; the others leave memory alone and return 0."""
    init = (np.arange(64, dtype=np.uint32) * 10)
    body = vsharp(0, num_records=123) + """
    v_add_u32 v2, 1, v0
    buffer_atomic_add v2, v1, s[8:11], 0 offen sc0
    s_waitcnt vmcnt(0)
""" + store_result("v2")
    got = run(body, {"a": init.copy(), "out": np.zeros(64, np.uint32)})
    hit = LANE * 4 < 123
    assert (got["a"] == np.where(hit, init + LANE + 1, init)).all()
    assert (got["out"] == np.where(hit, init, 0)).all()


def test_private_buffer_adds_the_thread_id_and_is_not_range_checked():
    """add_tid (word3 bit 23 = V# bit 119), stride 4, num_records 0, no VGPR address: lane i
    stores at base + 4 * i + offset; private buffers are not range checked."""
    body = vsharp(0, stride=4, num_records=0, word3=1 << 23) + """
    v_add_u32 v2, 500, v0
    buffer_store_dword v2, off, s[8:11], 0 offset:4
"""
    got = run(body, {"a": np.zeros(65, np.uint32)})["a"]
    assert (got == np.concatenate([[0], 500 + LANE])).all()


def test_invalid_data_format_means_unbound():
    """9.1.4: a V# whose data format is INVALID is the unbound resource: a valid base and
    num_records, DFMT 0, and buffer_load_dword reads 0, buffer_store_dword is dropped."""
    data = np.arange(64, dtype=np.uint32) + 1
    body = vsharp(0, num_records=256, word3=7 << 12) + """
    v_mov_b32 v2, 5
    buffer_store_dword v2, v1, s[8:11], 0 offen
    buffer_load_dword v2, v1, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
""" + store_result("v2")
    got = run(body, {"in": data.copy(), "out": np.full(64, 9, np.uint32)})
    assert (got["out"] == 0).all() and (got["in"] == data).all()


def test_all_zero_resource_is_unbound():
    """An all-zero V# (base 0) reads 0 and drops stores instead of faulting (Table 47)."""
    body = """
    s_mov_b64 s[8:9], 0
    s_mov_b64 s[10:11], 0
    v_lshlrev_b32 v1, 2, v0
    v_mov_b32 v2, 5
    buffer_store_dword v2, v1, s[8:11], 0 offen
    buffer_load_dword v2, v1, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
""" + store_result("v2")
    got = run(body, {"in": np.zeros(1, np.uint32), "out": np.full(64, 9, np.uint32)})["out"]
    assert (got == 0).all()


def test_unmodelled_resources_and_forms_are_refused_with_the_reason():
    data = {"a": np.zeros(64, np.uint32)}
    with pytest.raises(EmuError, match=r"buffer_load_dword.*swizzled"):
        run(vsharp(0, stride=4, num_records=64, swizzle=1) + "buffer_load_dword v2, v1, s[8:11], 0 offen", data)
    with pytest.raises(EmuError, match=r"stride 0 used with idxen"):
        run(vsharp(0, num_records=64) + "buffer_load_dword v2, v0, s[8:11], 0 idxen", data)
    with pytest.raises(EmuError, match=r"buffer_load_format_x.*RESERVED"):    # NFMT 6 is reserved
        run(vsharp(0, num_records=64, word3=(4 << 15) | (6 << 12)) + "buffer_load_format_x v2, v1, s[8:11], 0 offen", data)


def test_load_format_xyzw_8_8_8_8_unorm_with_dst_sel_all_or_nothing():
    """V# DFMT 10 (8_8_8_8), NFMT 0 (unorm), DST_SEL (B, 1, R, 0): each byte b -> b / 255 as
    f32, reordered; num_records 158: lane 39's texel starts at 156 < 158 and is read whole
    (9.1.5.1 note 3: format loads are all or nothing); later lanes read 0, but 1.0 in the
    SEL_1 component (note 1)."""
    raw = np.arange(256, dtype=np.uint8)[::-1].copy()
    word3 = 6 | (1 << 3) | (4 << 6) | (0 << 9) | (0 << 12) | (10 << 15)
    body = vsharp(0, num_records=158, word3=word3) + """
    buffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
""" + "".join(store_result(f"v{4 + c}", c, 4) for c in range(4))
    got = run(body, {"in": raw.view(np.uint32), "out": np.zeros(256, np.uint32)})["out"].view(np.float32).reshape(64, 4)
    texel = raw.reshape(64, 4).astype(np.float32) / np.float32(255)
    ref = np.stack([texel[:, 2], np.ones(64, np.float32), texel[:, 0], np.zeros(64, np.float32)], 1)
    ok = (LANE * 4 < 158)[:, None]
    assert (got == np.where(ok, ref, np.array([0, 1, 0, 0], np.float32))).all()
    assert got[39, 0] == texel[39, 2]


def test_tbuffer_takes_the_format_from_the_instruction_and_store_format_converts():
    """MTBUF's DFMT/NFMT (16_16, snorm) override the V#'s: v -> max(v / 32767, -1); then
    buffer_store_format_x through a V# of DFMT 2 (16), NFMT 7 (float) writes f32 -> f16
    (values exact in f16)."""
    vals = np.array([0, 1, -1, 32767, -32767, -32768, 1000, -12345] * 16, np.int16)
    body = vsharp(0, num_records=vals.nbytes) + """
    tbuffer_load_format_xy v[4:5], v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen
    s_waitcnt vmcnt(0)
""" + store_result("v4", 0, 2) + store_result("v5", 1, 2) + vsharp(2, num_records=128, word3=(2 << 15) | (7 << 12)) + """
    v_cvt_f32_u32 v6, v0
    v_mul_f32 v6, 0.5, v6
    v_lshlrev_b32 v7, 1, v0
    buffer_store_format_x v6, v7, s[8:11], 0 offen
"""
    got = run(body, {"in": vals.view(np.uint32), "out": np.zeros(128, np.uint32), "h": np.zeros(32, np.uint32)})
    ref = np.maximum(vals.reshape(64, 2).astype(np.float32) / np.float32(32767), np.float32(-1))
    assert (got["out"].view(np.float32).reshape(64, 2) == ref).all()
    assert (got["h"].view(np.float16) == np.arange(64, dtype=np.float16) * np.float16(0.5)).all()


def test_d16_format_loads_with_gfx9_names():
    """GFX9 spells D16 after FORMAT (tbuffer_load_format_d16_xyzw): 16_16_16_16_FLOAT halves
    are packed unchanged, X/Y in v4, Z/W in v5 (9.1.4 "D16 Instructions"); the _d16_hi_x form
    through a V# of DFMT 2 (16), NFMT 7 (float), DST_SEL_X = R (4) writes the high half and
    keeps the low one."""
    halves = np.random.default_rng(7).standard_normal(256).astype(np.float16)
    data = halves.view(np.uint32)
    body = vsharp(0, num_records=data.nbytes) + """
    v_lshlrev_b32 v2, 3, v0
    tbuffer_load_format_d16_xyzw v[4:5], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_FLOAT] offen
    s_mov_b32 s11, 0x17004
    v_lshlrev_b32 v3, 1, v0
    v_mov_b32 v6, 0x1234
    buffer_load_format_d16_hi_x v6, v3, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
""" + store_result("v4", 0, 3) + store_result("v5", 1, 3) + store_result("v6", 2, 3)
    got = run(body, {"in": data, "out": np.zeros(192, np.uint32)})["out"].reshape(64, 3)
    assert (got[:, :2].reshape(-1) == data[:128]).all()
    assert (got[:, 2] == (halves[:64].view(np.uint16).astype(np.uint32) << 16 | 0x1234)).all()


def test_64_bit_atomics_per_lane_and_out_of_range():
    """buffer_atomic_add_x2 sc0 at lane * 8, num_records 200: lanes whose offset < 200 (0..24)
    add and return the old 64-bit value, the rest return 0 and leave memory alone."""
    init = np.arange(64, dtype=np.uint64) * np.uint64(0x1_0000_0001) + np.uint64(0xFFFF_FFF0)
    body = vsharp(0, num_records=200) + """
    v_lshlrev_b32 v2, 3, v0
    v_mov_b32 v4, 0x20
    v_mov_b32 v5, 1
    buffer_atomic_add_x2 v[4:5], v2, s[8:11], 0 offen sc0
    s_waitcnt vmcnt(0)
""" + store_result("v4", 0, 2) + store_result("v5", 1, 2)
    got = run(body, {"a": init.copy(), "out": np.zeros(128, np.uint32)})
    hit = LANE * 8 < 200
    assert (got["a"] == np.where(hit, init + np.uint64(0x1_0000_0020), init)).all()
    assert (got["out"].view(np.uint64) == np.where(hit, init, 0)).all()


def test_short_store_and_sign_extending_short_load():
    """buffer_store_short (pseudocode from erratum cdna-buffer-store-short-pcode) at lane * 2
    with num_records 69: lanes whose offset < 69 (0..34) store their low 16 bits; then
    buffer_load_sshort reads them back sign-extended, out-of-range lanes 0."""
    body = vsharp(0, num_records=69) + """
    v_sub_u32 v2, 0x18000, v0
    v_lshlrev_b32 v3, 1, v0
    buffer_store_short v2, v3, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
    buffer_load_sshort v4, v3, s[8:11], 0 offen
    s_waitcnt vmcnt(0)
""" + store_result("v4")
    got = run(body, {"h": np.zeros(64, np.uint16), "out": np.zeros(64, np.uint32)})
    hit = LANE * 2 < 69
    low = ((0x18000 - LANE) & 0xFFFF).astype(np.uint16)
    assert (got["h"] == np.where(hit, low, 0)).all()
    assert (got["out"].view(np.int32) == np.where(hit, low.view(np.int16), 0)).all()


def test_cdna_buffer_encodings_agree_with_llvm_mc():
    lines = ["buffer_load_dword v2, v1, s[8:11], s12 offen offset:8",
             "buffer_load_dword v3, v[4:5], s[8:11], 0 idxen offen offset:8",
             "buffer_store_dwordx2 v[2:3], v4, s[8:11], 0 offen",
             "buffer_atomic_add v2, v1, s[8:11], 0 offen sc0",
             "buffer_store_dword v2, off, s[8:11], 0 offset:4",
             "buffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen",
             "tbuffer_load_format_xy v[4:5], v1, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen",
             "buffer_store_format_x v6, v7, s[8:11], 0 offen",
             "tbuffer_load_format_d16_xyzw v[4:5], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_FLOAT] offen",
             "buffer_load_format_d16_hi_x v6, v3, s[8:11], 0 offen",
             "buffer_atomic_add_x2 v[4:5], v2, s[8:11], 0 offen sc0",
             "buffer_store_short v2, v3, s[8:11], 0 offen",
             "buffer_load_sshort v4, v3, s[8:11], 0 offen"]
    out = run_tool(tool("llvm-mc"), "-triple=amdgcn", "-mcpu=gfx942", "-show-encoding",
                   stdin="\n".join(lines).encode())
    want = [bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", m))
            for m in re.findall(r"encoding: \[(.*?)\]", out)]
    assert want == [dsl.assemble(line, "gfx942") for line in lines]

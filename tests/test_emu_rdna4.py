"""The emulator on gfx1201 (RDNA4): small assembled kernels checked against numpy and the
RDNA4 manual's rules, where RDNA4 encodes the machine differently from RDNA3 -- memory
formats (VGLOBAL/VFLAT/VSCRATCH/VBUFFER/VDS/SMEM fields and 24-bit offsets), atomics that
return on TH_ATOMIC_RETURN, work-group ids in TTMP9/TTMP7 (manual 3.5.3.4, Table 12), split
barriers, split wait counters, WMMA's striped layout (manual 7.12.2). The clang-built corpus
runs on gfx1201 in tests/test_emu_kernels.py."""
from __future__ import annotations


import numpy as np
import pytest

import dsl
from emu import load_semantics
from emu.machine import UnsupportedInstruction
from tests.test_emu_machine import launch

ARCH = "gfx1201"


def run(src, buffers, **kw):
    kw.setdefault("workgroup_id_ttmps", True)
    return launch(src, buffers, arch=ARCH, **kw)


def loads(*names) -> str:
    """s_load of buffer addresses: names[i] -> s[4+2i:5+2i]."""
    return "\n".join(f"s_load_b64 s[{4 + 2 * i}:{5 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(len(names))) + \
        "\ns_wait_kmcnt 0\n"


def test_workgroup_ids_in_ttmp9_and_ttmp7():
    """TTMP9 = group x, TTMP7 = {z[15:0], y[15:0]}, TTMP8 bits 29:25 the wave in its group."""
    grid, block = (3, 2, 2), (64, 1, 1)
    groups = int(np.prod(grid))
    out = {"x": np.zeros(groups * 2, np.uint32), "yz": np.zeros(groups * 2, np.uint32),
           "wave": np.zeros(groups * 2, np.uint32)}
    src = loads("x", "yz", "wave") + """
        s_bfe_u32 s10, ttmp8, 0x50019        // waveIDinGroup: 5 bits at 25
        s_and_b32 s11, ttmp7, 0xffff         // y
        s_lshr_b32 s12, ttmp7, 16            // z
        s_mul_i32 s13, s12, 2
        s_add_co_u32 s13, s13, s11           // y + 2 z
        s_mul_i32 s13, s13, 3
        s_add_co_u32 s13, s13, ttmp9         // linear group x + 3 (y + 2 z)
        s_lshl_b32 s13, s13, 1
        s_add_co_u32 s13, s13, s10           // slot: group * 2 + wave
        s_lshl_b32 s13, s13, 2
        v_mov_b32 v1, s13
        v_mov_b32 v2, ttmp9
        v_mov_b32 v3, ttmp7
        v_mov_b32 v4, s10
        s_mov_b32 exec_lo, 1
        global_store_b32 v1, v2, s[4:5]
        global_store_b32 v1, v3, s[6:7]
        global_store_b32 v1, v4, s[8:9]
        s_endpgm"""
    got, stats = run(src, out, grid=grid, block=block)
    g = np.repeat(np.arange(groups), 2)
    x, y, z = g % 3, (g // 3) % 2, g // 6
    assert (got["x"] == x).all()
    assert (got["yz"] == (z << 16 | y)).all()
    assert (got["wave"] == np.tile([0, 1], groups)).all()
    assert stats.waves == groups * 2


def test_global_load_store_with_negative_ioffset_and_vector_address():
    n = 64
    x = np.arange(n + 16, dtype=np.uint32) * 3 + 1
    src = loads("x", "y") + """
        v_lshlrev_b32 v1, 2, v0
        global_load_b32 v2, v1, s[4:5] offset:64        // x[i + 16]
        v_mov_b32 v5, s6
        v_mov_b32 v6, s7
        v_add_co_u32 v5, vcc_lo, v5, v1
        v_add_co_ci_u32_e32 v6, vcc_lo, 0, v6, vcc_lo
        v_add_co_u32 v5, vcc_lo, v5, 8
        v_add_co_ci_u32_e32 v6, vcc_lo, 0, v6, vcc_lo
        s_wait_loadcnt 0
        global_store_b32 v[5:6], v2, off offset:-8      // y[i]: a 64-bit VGPR address
        s_endpgm"""
    got, _ = run(src, {"x": x, "y": np.zeros(n, np.uint32)})
    assert (got["y"] == x[16:16 + n]).all()


def test_smem_ioffset_and_buffer_load_with_offsets():
    """s_load with an immediate offset; buffer_load_b32 with OFFEN, SOFFSET and IOFFSET, the
    V# built from the buffer's address (base, stride 0, num_records in bytes, raw format)."""
    x = (np.arange(128, dtype=np.uint32) * 7) ^ 0x55
    src = loads("x", "y") + """
        s_load_b32 s20, s[4:5], 0x10                    // x[4]
        s_mov_b32 s8, s4
        s_and_b32 s9, s5, 0xffff
        s_mov_b32 s10, 256                              // num_records: 64 dwords visible
        s_mov_b32 s11, 0x31016fac
        s_mov_b32 s12, 16                               // SOFFSET
        v_lshlrev_b32 v1, 2, v0
        buffer_load_b32 v2, v1, s[8:11], s12 offen offset:32   // x[i + 12] while i + 12 < 64
        s_wait_kmcnt 0
        v_mov_b32 v3, s20
        s_wait_loadcnt 0
        v_add_nc_u32 v2, v2, v3
        global_store_b32 v1, v2, s[6:7]
        s_endpgm"""
    got, _ = run(src, {"x": x, "y": np.zeros(64, np.uint32)})
    i = np.arange(64)
    want = np.where(i + 12 < 64, x[np.minimum(i + 12, 127)], 0) + x[4]
    assert (got["y"] == want.astype(np.uint32)).all()


def test_lds_offsets_and_split_barrier_between_waves():
    """ds_store_b32 / ds_load_2addr_b32 with instruction offsets; the two waves of the group
    exchange data through LDS across s_barrier_signal -1 / s_barrier_wait -1."""
    n = 64
    src = loads("y") + """
        v_lshlrev_b32 v1, 2, v0
        v_mul_u32_u24 v2, v0, v0
        ds_store_b32 v1, v2 offset:4
        s_barrier_signal -1
        s_barrier_wait -1
        v_sub_nc_u32 v3, 0xfc, v1                       // reversed: (63 - i) * 4
        ds_load_2addr_b32 v[4:5], v3 offset0:1 offset1:2
        s_wait_dscnt 0
        v_add_nc_u32 v4, v4, v5
        global_store_b32 v1, v4, s[4:5]
        s_endpgm"""
    got, _ = run(src, {"y": np.zeros(n, np.uint32)}, lds=(n + 2) * 4)
    lds = np.zeros(n + 2, np.int64)
    lds[1:n + 1] = np.arange(n) ** 2
    r = 63 - np.arange(n)
    assert (got["y"] == (lds[r + 1] + lds[r + 2]).astype(np.uint32)).all()


def test_atomic_returns_pre_op_value_only_with_th_atomic_return():
    src = loads("ctr", "old") + """
        v_mov_b32 v1, 0
        v_mov_b32 v2, 1
        global_atomic_add_u32 v5, v1, v2, s[4:5] th:TH_ATOMIC_RETURN
        global_atomic_add_u32 v1, v2, s[4:5] offset:4   // VDST field 0: v0 must stay the work-item id
        s_wait_loadcnt 0
        v_lshlrev_b32 v3, 2, v0
        global_store_b32 v3, v5, s[6:7]
        s_endpgm"""
    got, _ = run(src, {"ctr": np.zeros(2, np.uint32), "old": np.zeros(64, np.uint32)})
    assert list(got["ctr"]) == [64, 64]
    assert sorted(got["old"]) == list(range(64))        # each lane saw a distinct pre-op value


def test_scratch_store_and_load_per_lane():
    src = loads("y") + """
        v_lshlrev_b32 v1, 2, v0
        v_add_nc_u32 v2, 0x100, v0
        scratch_store_b32 off, v2, off offset:12
        v_mov_b32 v2, 0
        scratch_load_b32 v3, off, off offset:12
        s_wait_loadcnt 0
        global_store_b32 v1, v3, s[4:5]
        s_endpgm"""
    got, _ = run(src, {"y": np.zeros(64, np.uint32)}, scratch=64)
    assert (got["y"] == 0x100 + np.arange(64)).all()


def test_named_barrier_is_refused_by_name():
    with pytest.raises(UnsupportedInstruction, match="s_barrier_wait.*work-group barrier"):
        run("s_barrier_wait 1\ns_endpgm", {})


def test_unmodelled_instruction_names_itself():
    with pytest.raises(UnsupportedInstruction, match="v_swmmac_f32_16x16x32_f16"):
        run("v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20\ns_endpgm", {})


def _wmma_layout_16bit_result(d: np.ndarray) -> np.ndarray:
    """The manual's map for 16-bit results in wave32 (7.12.2): matrix[row][col] ->
    VGPR[(row / 8) * 16 + col][(row % 8) / 2], the low half for even rows: (lanes, 4 VGPRs)."""
    bits = d.astype(np.float16).view(np.uint16).astype(np.uint32)
    out = np.zeros((32, 4), np.uint32)
    for row in range(16):
        for col in range(16):
            out[(row // 8) * 16 + col, (row % 8) // 2] |= bits[row, col] << (16 * (row % 2))
    return out


def _wmma_ab_registers(m: np.ndarray, transpose: bool) -> np.ndarray:
    """A (transpose: lane = {k[3], m}) or B (lane = {k[3], n}) of 16-bit data in wave32: element
    k % 8 of the lane, two per VGPR from the low half (7.12.2): (lanes, 4 VGPRs)."""
    bits = m.astype(np.float16).view(np.uint16).astype(np.uint32)
    out = np.zeros((32, 4), np.uint32)
    for i in range(16):
        for k in range(16):
            value = bits[i, k] if transpose else bits[k, i]
            out[(k // 8) * 16 + i, (k % 8) // 2] |= value << (16 * (k % 2))
    return out


def test_wmma_f16_result_packs_two_rows_per_vgpr():
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 16)).astype(np.float16)
    c = rng.integers(-8, 9, (16, 16)).astype(np.float16)
    regs = np.concatenate([_wmma_ab_registers(a, True), _wmma_ab_registers(b, False),
                           _wmma_layout_16bit_result(c)], 1)           # v1..v12 per lane
    src = loads("regs", "out") + """
        v_lshlrev_b32 v20, 4, v0
        v_mul_u32_u24 v20, 3, v20                     // 48 bytes per lane
        global_load_b128 v[1:4], v20, s[4:5]
        global_load_b128 v[5:8], v20, s[4:5] offset:16
        global_load_b128 v[9:12], v20, s[4:5] offset:32
        s_wait_loadcnt 0
        v_wmma_f16_16x16x16_f16 v[13:16], v[1:4], v[5:8], v[9:12]
        v_lshlrev_b32 v21, 4, v0
        global_store_b128 v21, v[13:16], s[6:7]
        s_endpgm"""
    got, _ = run(src, {"regs": regs.reshape(-1), "out": np.zeros(32 * 4, np.uint32)}, block=(32, 1, 1))
    want = _wmma_layout_16bit_result(a.astype(np.float64) @ b.astype(np.float64) + c)
    assert (got["out"].reshape(32, 4) == want).all()


def test_coverage_reports_rdna4_memory_formats_generated():
    """The RDNA4 manual's `addr = CalcGlobalAddr(v_addr.b64, s_saddr.b64)` spelling translates:
    every dword load/store/atomic of the memory formats has generated semantics."""
    table = load_semantics(ARCH)
    for d in table.spec.instructions:
        if d.format in ("VGLOBAL", "VFLAT", "VSCRATCH", "VBUFFER", "VDS", "SMEM") and d.pcode \
                and "Calc" in d.pcode and ("_B32" in d.name or "_U32" in d.name):
            entry = table.entry(d)
            assert entry.status == "generated", (d.name, entry.reason)
    generated = sum(e.status == "generated" for _, e in table.entries())
    assert generated >= 1250


def test_wait_counters_classified_per_manual_table_26():
    from emu.timing.classify import Classifier
    spec = load_semantics(ARCH).spec
    cl = Classifier(spec, load_semantics(ARCH))
    code = dsl.assemble("s_wait_loadcnt 3\ns_wait_storecnt 2\ns_wait_dscnt 1\ns_wait_kmcnt 0\n"
                        "s_wait_loadcnt_dscnt 0x502\ns_wait_storecnt_dscnt 0x304\ns_wait_alu 0xfffd", ARCH)
    from dsl.decode import decode_one
    waits, pc = [], 0
    while pc < len(code):
        inst = decode_one(spec, code[pc:pc + 16])
        waits.append(cl.classify(inst, pc).waits)
        pc += inst.size
    assert waits == [{"vm": 3}, {"vs": 2}, {"lgkm": 1}, {"lgkm": 0}, {"vm": 5, "lgkm": 2}, {"vs": 3, "lgkm": 4}, {}]


@pytest.mark.parametrize("wave", [32, 64])
def test_permlane16_var_picks_lanes_of_its_row(wave):
    """v_permlane16_var_b32: lane i of each 16-lane row takes the source of lane
    row * 16 + VGPR[i][src1][3:0] (the pseudocode names the register of src1: SRC1)."""
    rng = np.random.default_rng(9)
    data = rng.integers(0, 2**32, wave, dtype=np.uint64).astype(np.uint32)
    sel = rng.integers(0, 256, wave).astype(np.uint32)
    src = loads("data", "sel", "out") + """
        v_lshlrev_b32 v1, 2, v0
        global_load_b32 v2, v1, s[4:5]
        global_load_b32 v3, v1, s[6:7]
        s_wait_loadcnt 0
        v_permlane16_var_b32 v4, v2, v3
        global_store_b32 v1, v4, s[8:9]
        s_endpgm"""
    got, _ = run(src, {"data": data, "sel": sel, "out": np.zeros(wave, np.uint32)}, block=(wave, 1, 1), wave=wave)
    lane = np.arange(wave)
    assert (got["out"] == data[(lane // 16) * 16 + (sel & 15)]).all()


# values of 8-bit floats the RDNA4 manual's table (7.5) and its format definition give:
# FP8 = {sign, exp4, mant3}, bias 7: max 448, min normal 0.015625, min denormal 0.001953125, NaN
# 0x7F / 0xFF, no infinity; BF8 = {sign, exp5, mant2}, bias 15: max 57344, min normal 6.10352e-05,
# min denormal 1.52588e-05, +-inf 0x7C / 0xFC, NaN 0x7D-0x7F / 0xFD-0xFF
FP8 = {0x00: 0.0, 0x80: -0.0, 0x7E: 448.0, 0x08: 0.015625, 0x01: 0.001953125, 0x38: 1.0, 0x3C: 1.5,
       0xC0: -2.0, 0x7F: np.nan, 0xFF: np.nan, 0x78: 256.0}
BF8 = {0x00: 0.0, 0x80: -0.0, 0x7B: 57344.0, 0x04: 2.0 ** -14, 0x01: 2.0 ** -16, 0x3C: 1.0, 0x3E: 1.5,
       0xC0: -2.0, 0x7C: np.inf, 0xFC: -np.inf, 0x7D: np.nan, 0xFF: np.nan}


def _same(got_bits, want) -> bool:
    got = np.asarray(got_bits, np.uint32).view(np.float32).astype(np.float64)
    want = np.asarray(want, np.float64)
    return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want)) | np.isnan(got) & np.isnan(want)))


@pytest.mark.parametrize("kind, table", [("fp8", FP8), ("bf8", BF8)])
def test_8bit_float_conversions_by_byte(kind, table):
    """v_cvt_f32_{fp8,bf8} of each byte (e32: byte 0; e64 byte_sel:N) and v_cvt_pk_f32_* of the
    low or high half (op_sel), against the manual's values."""
    codes = np.array(list(table), np.uint32)
    values = np.array(list(table.values()))
    n = len(codes)
    word = np.zeros(32, np.uint32)
    rot = [np.roll(np.resize(codes, 32), -k) for k in range(4)]        # byte k of lane i: code i + k
    for k in range(4):
        word |= rot[k].astype(np.uint32) << np.uint32(8 * k)
    src = loads("w", "out") + f"""
        v_lshlrev_b32 v1, 2, v0
        global_load_b32 v2, v1, s[4:5]
        v_lshlrev_b32 v9, 5, v0                         // 8 results of 4 bytes per lane
        s_wait_loadcnt 0
        v_cvt_f32_{kind}_e32 v3, v2
        v_cvt_f32_{kind}_e64 v4, v2 byte_sel:1
        v_cvt_f32_{kind}_e64 v5, v2 byte_sel:2
        v_cvt_f32_{kind}_e64 v6, v2 byte_sel:3
        global_store_b128 v9, v[3:6], s[6:7]
        v_cvt_pk_f32_{kind}_e32 v[3:4], v2
        v_cvt_pk_f32_{kind}_e64 v[5:6], v2 op_sel:[1,0]
        global_store_b128 v9, v[3:6], s[6:7] offset:16
        s_endpgm"""
    got, _ = run(src, {"w": word, "out": np.zeros(32 * 8, np.uint32)}, block=(32, 1, 1))
    out = got["out"].reshape(32, 8)
    lookup = dict(zip(codes.tolist(), values))
    for k, col in enumerate((0, 1, 2, 3)):
        assert _same(out[:, col], [lookup[c] for c in rot[k]]), (kind, "byte", k)
    for k, col in enumerate((4, 5, 6, 7)):
        assert _same(out[:, col], [lookup[c] for c in rot[k]]), (kind, "packed", k)
    assert n >= 10


def test_dot4_f32_fp8_bf8_and_dot2_f32_bf16():
    """v_dot4_f32_fp8_bf8: S2 + the sum of four fp8 x bf8 byte products (exact in f32 here);
    v_dot2_f32_bf16: S2 + two bf16 products (the .bf16 read converts once: bf16_to_f32 of it
    is the same value)."""
    a = np.array([0x38, 0x3C, 0xC0, 0x7E], np.uint32)      # fp8 1.0, 1.5, -2.0, 448
    b = np.array([0x3E, 0x40, 0x3C, 0x3C], np.uint32)      # bf8 1.5, 2.0, 1.0, 1.0
    pack = lambda v: int(sum(int(x) << (8 * i) for i, x in enumerate(v)))
    src = loads("out") + f"""
        v_mov_b32 v1, {pack(a):#x}
        v_mov_b32 v2, {pack(b):#x}
        v_mov_b32 v3, 0.5
        v_dot4_f32_fp8_bf8 v4, v1, v2, v3
        v_mov_b32 v5, 0x3f804000                        // bf16 {{1.0, 2.0}}
        v_mov_b32 v6, 0x40404080                        // bf16 {{3.0, 4.0}}
        v_dot2_f32_bf16 v7, v5, v6, v3
        v_mov_b32 v8, 0
        global_store_b32 v8, v4, s[4:5]
        global_store_b32 v8, v7, s[4:5] offset:4
        s_endpgm"""
    got, _ = run(src, {"out": np.zeros(2, np.uint32)}, block=(32, 1, 1))
    f = got["out"].view(np.float32)
    assert f[0] == 0.5 + 1.0 * 1.5 + 1.5 * 2.0 - 2.0 * 1.0 + 448.0 * 1.0
    assert f[1] == 0.5 + 2.0 * 4.0 + 1.0 * 3.0


@pytest.mark.parametrize("arch", ["gfx1151", "gfx1201"])
def test_dot2_f32_bf16_converts_each_bf16_once(arch):
    """bf16_to_f32(S0[15 : 0].bf16): the typed read is already the f32 value (was converted
    twice, giving 0 for every product)."""
    from emu import Ctx
    sem = load_semantics(arch).lookup("v_dot2_f32_bf16")
    s0 = np.array([[0x3F804000]], np.uint32)            # bf16 hi 1.0, lo 2.0
    s1 = np.array([[0x40404080]], np.uint32)            # bf16 hi 3.0, lo 4.0
    s2 = np.array([[np.float32(0.5).view(np.uint32)]], np.uint32)
    out = sem.execute(Ctx(lanes=1, exec_mask=np.array([[1]], np.uint64),
                          inputs={"S0": s0, "S1": s1, "S2": s2, "OPSEL": 0, "OPSEL_HI": 0, "NEG": 0, "NEG_HI": 0}))
    assert out["D0"].view(np.float32)[0, 0] == 0.5 + 2.0 * 4.0 + 1.0 * 3.0


def test_s_abs_i32_matches_the_manuals_functional_examples():
    """The RDNA4 manual's examples (a code block its Markdown conversion left unlabelled, now
    read as the entry's notes rather than pseudocode)."""
    from emu import Ctx
    table = load_semantics(ARCH)
    d = next(d for d in table.spec.instructions if d.name == "S_ABS_I32")
    assert "=>" not in d.pcode and "=>" in d.notes
    examples = {0x00000001: 0x00000001, 0x7FFFFFFF: 0x7FFFFFFF, 0x80000000: 0x80000000,
                0x80000001: 0x7FFFFFFF, 0x80000002: 0x7FFFFFFE, 0xFFFFFFFF: 0x00000001}
    s0 = np.array(list(examples), np.uint32).reshape(-1, 1)
    out = table.get(d).execute(Ctx(lanes=1, exec_mask=np.ones((len(s0), 1), np.uint64), inputs={"S0": s0},
                                   scalar=True))
    assert list(np.asarray(out["D0"]).reshape(-1)) == list(examples.values())
    assert list(np.asarray(out["SCC"]).reshape(-1)) == [1] * len(examples)


@pytest.mark.parametrize("mode", ["fast", "reference"])
def test_dot4_f32_fp8_neg_applies_to_src2_only(mode, monkeypatch):
    """RDNA4 ISA p. 90: for v_dot4_f32_{fp8,bf8}_* "Only SRC2 can apply NEG/NEG_HI (NEG_HI acts as
    the ABS modifier for these ops)". The instruction words are written with every NEG/NEG_HI
    bit pattern (the assembler refuses those on src0/src1, as LLVM does): bits 0 and 1 change
    nothing, NEG[2] negates src2, NEG_HI[2] takes its magnitude (before NEG). Expected values are
    the exact sums in Python floats (fp8 1.0, 1.5 times bf8 1.5, 2.0; src2 -0.5)."""
    import tests.test_emu_machine as machine
    from emu.options import FAST, REFERENCE
    words = bytes.fromhex("044024cc01050e1c")       # llvm-mc-22: v_dot4_f32_fp8_bf8 v4, v1, v2, v3
    real = dsl.assemble
    products = 1.0 * 1.5 + 1.5 * 2.0
    for neg, neg_hi, src2 in [(0, 0, -0.5), (1, 0, -0.5), (2, 0, -0.5), (3, 3, -0.5), (4, 0, 0.5), (0, 4, 0.5),
                              (4, 4, -0.5), (0, 1, -0.5), (0, 2, -0.5)]:
        inst = (int.from_bytes(words[:4], "little") | neg_hi << 8).to_bytes(4, "little") + \
            (int.from_bytes(words[4:], "little") | neg << 29).to_bytes(4, "little")
        pre = loads("out") + "v_mov_b32 v1, 0x3c38\nv_mov_b32 v2, 0x403e\nv_mov_b32 v3, -0.5\n"
        post = "v_mov_b32 v8, 0\nglobal_store_b32 v8, v4, s[4:5]\ns_endpgm"
        monkeypatch.setattr(machine.dsl, "assemble",
                            lambda src, arch, wave=None: real(pre, arch, wave) + inst + real(post, arch, wave))
        got, _ = run("", {"out": np.zeros(1, np.uint32)}, block=(32, 1, 1),
                     options=FAST if mode == "fast" else REFERENCE)
        monkeypatch.undo()
        assert got["out"].view(np.float32)[0] == src2 + products, (neg, neg_hi)

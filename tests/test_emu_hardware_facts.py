"""The emulator against facts it must not get from its own pseudocode translation: measured
RDNA3 hardware values (source named at each test), numpy, exact integers and the manual's
prose rules. Each test drives real machine code through `emu.machine.Machine` (issue 13,
defects 2-6 and 10)."""
from __future__ import annotations

import subprocess
from fractions import Fraction

import numpy as np
import pytest

from emu.machine import EmuFault, UnsupportedInstruction
from .test_emu_machine import global_id, launch, loads

MODE_CLANG = 0x3F0       # clang's kernel descriptors: RNE, f32/f64/f16 denormals kept, DX10_CLAMP, IEEE
MODE_NO_IEEE = 0x000     # everything flushed, IEEE off


def run_one(body: str, regs: dict[int, int], out: list[str], *, mode=MODE_CLANG, dtype=np.uint32, wave=32):
    """Run `body` in one lane after setting VGPRs `regs` ({n: value}); store the VGPRs named in
    `out` ('v1' or 'v[2:3]') to a buffer and return their dwords (or `dtype` values)."""
    setup = "\n".join(f"v_mov_b32 v{n}, {v & 0xFFFFFFFF:#x}" for n, v in regs.items())
    stores, at = [], 0
    for r in out:
        n = 1 if r.startswith("v") and ":" not in r else int(r.split(":")[1][:-1]) - int(r[2:].split(":")[0]) + 1
        stores.append(f"global_store_b{32 * n} v40, {r}, s[4:5] offset:{at}")
        at += 4 * n
    src = loads("out") + f"{setup}\n{body}\nv_mov_b32 v40, 0\n" + "\n".join(stores) + "\ns_endpgm"
    got, _ = launch(src, {"out": np.zeros(at // 4, np.uint32)}, block=(1, 1, 1), mode=mode, wave=wave, vgprs=48)
    return got["out"].view(dtype)


# ---------------------------------------------------------------- defect 2: LDS atomics

def _lane_order_reference(op, addrs, data, init):
    """Each lane's pre-op value and the final words, applying lanes one after another in
    lane order (the hardware serialises conflicting lanes of one instruction)."""
    mem = dict(init)
    ret = []
    for a, d in zip(addrs.tolist(), data.tolist()):
        ret.append(mem[a])
        mem[a] = op(mem[a], d)
    return np.array(ret, np.uint32), mem


COMBINE = pytest.mark.parametrize("combine", [True, False], ids=["combined", "rounds"])
# how a combined atomic finds and applies its addresses' leaders: the conflicting lanes grouped
# by a 16-bit radix sort and the leaders run as a batch of their own (emu/table.py), or the
# plain sort and the whole batch with the other lanes off
GROUPING = pytest.mark.parametrize("grouping", ["", "compact_atomic_leaders,atomic_radix_grouping"],
                                   ids=["packed", "whole-batch"])


@COMBINE
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("mnemonic, op", [
    ("ds_add_rtn_u32", lambda m, d: (m + d) & 0xFFFFFFFF),
    ("ds_sub_rtn_u32", lambda m, d: (m - d) & 0xFFFFFFFF),
    ("ds_max_rtn_u32", max),
    ("ds_inc_rtn_u32", lambda m, d: 0 if m >= d else m + 1),      # wraps to 0 at DATA
    ("ds_xor_rtn_b32", lambda m, d: m ^ d),
    ("ds_storexchg_rtn_b32", lambda m, d: d),
    ("ds_min_rtn_u32", min),
    ("ds_and_rtn_b32", lambda m, d: m & d),
    ("ds_or_rtn_b32", lambda m, d: m | d),
    ("ds_max_rtn_i32", lambda m, d: max(m - (m >> 31 << 32), d - (d >> 31 << 32)) & 0xFFFFFFFF),
    ("ds_min_rtn_i32", lambda m, d: min(m - (m >> 31 << 32), d - (d >> 31 << 32)) & 0xFFFFFFFF),
])
def test_lds_atomics_on_shared_addresses_apply_every_lane_in_lane_order(wave, mnemonic, op, combine, monkeypatch):
    """Both ways of running conflicting lanes (emu.table.COMBINE_ATOMIC_SUMS /
    COMBINE_ATOMIC_REDUCTIONS: one access with the summed or reduced data for += / -=, integer
    min / max, and / or / xor, else rounds in lane order) give the lane-order reference."""
    monkeypatch.setattr("emu.table.COMBINE_ATOMIC_SUMS", combine)
    monkeypatch.setattr("emu.table.COMBINE_ATOMIC_REDUCTIONS", combine)
    rng = np.random.default_rng(21)
    addrs = rng.integers(0, 3, wave).astype(np.uint32) * 4          # three words, many lanes each
    data = rng.integers(1, 40, wave).astype(np.uint32)
    init = {0: 7, 4: 100, 8: 0xFFFFFFF0}
    src = loads("addr", "data", "ret", "words") + """
        v_lshlrev_b32 v2, 2, v0
        global_load_b32 v3, v2, s[4:5]
        global_load_b32 v4, v2, s[6:7]
        v_mov_b32 v10, 0
        v_mov_b32 v11, 7
        v_mov_b32 v12, 100
        v_mov_b32 v13, 0xfffffff0
        ds_store_b32 v10, v11
        ds_store_b32 v10, v12 offset:4
        ds_store_b32 v10, v13 offset:8
        s_waitcnt vmcnt(0) lgkmcnt(0)
        """ + f"{mnemonic} v5, v3, v4" + """
        s_waitcnt lgkmcnt(0)
        global_store_b32 v2, v5, s[8:9]
        ds_load_b32 v6, v2
        s_waitcnt lgkmcnt(0)
        v_cmpx_gt_u32 3, v0
        global_store_b32 v2, v6, s[10:11]
        s_endpgm"""
    got, _ = launch(src, {"addr": addrs, "data": data, "ret": np.zeros(wave, np.uint32),
                          "words": np.zeros(3, np.uint32)}, block=(wave, 1, 1), wave=wave, lds=wave * 4)
    ret, mem = _lane_order_reference(op, addrs, data, init)
    assert (got["ret"] == ret).all()
    assert got["words"].tolist() == [mem[0], mem[4], mem[8]]


@COMBINE
@GROUPING
@pytest.mark.parametrize("width", [32, 64])
def test_global_atomic_add_and_sub_on_shared_addresses(width, combine, grouping, monkeypatch):
    """Many waves and lanes on a few 32/64-bit counters: memory = np.add.at; the returned
    values, in lane order (wave-major within the batch), the counter before each lane."""
    monkeypatch.setattr("emu.table.COMBINE_ATOMIC_SUMS", combine)
    monkeypatch.setenv("WAVESMITH_EMU_OFF", grouping)
    rng = np.random.default_rng(24 + width)
    n, words = 256, 5
    dt = np.uint32 if width == 32 else np.uint64
    slot = rng.integers(0, words, n).astype(np.uint32)
    data = rng.integers(0, 2**width, n, dtype=np.uint64).astype(dt)
    init = rng.integers(0, 2**width, words, dtype=np.uint64).astype(dt)
    shift, pair = (2, "v4") if width == 32 else (3, "v[4:5]")
    ret = pair.replace("4", "6").replace("5", "7")
    src = loads("slot", "data", "mem", "ret") + global_id(128) + f"""
        global_load_b32 v3, v2, s[4:5]
        v_lshlrev_b32 v8, {shift}, v1
        global_load_b{width} {pair}, v8, s[6:7]
        s_waitcnt vmcnt(0)
        v_lshlrev_b32 v3, {shift}, v3
        global_atomic_add_u{width} {ret}, v3, {pair}, s[8:9] glc
        global_atomic_sub_u{width} v3, {pair}, s[8:9] offset:{words * width // 8}
        s_waitcnt vmcnt(0)
        global_store_b{width} v8, {ret}, s[10:11]
        s_endpgm"""
    mem = np.concatenate([init, init])
    got, _ = launch(src, {"slot": slot, "data": data, "mem": mem, "ret": np.zeros(n, dt)},
                    grid=(n // 128, 1, 1), block=(128, 1, 1))
    m = 2**width
    counters, want = [int(v) for v in init], []
    for s_, d in zip(slot.tolist(), data.tolist()):
        want.append(counters[s_])
        counters[s_] = (counters[s_] + d) % m
    subtracted = [int(v) for v in init]
    for s_, d in zip(slot.tolist(), data.tolist()):
        subtracted[s_] = (subtracted[s_] - d) % m
    assert got["mem"].tolist() == counters + subtracted
    assert got["ret"].tolist() == want


@GROUPING
def test_global_atomic_add_on_counters_far_apart(grouping, monkeypatch):
    """Counters 256 KiB apart (beyond a 16-bit grouping key) shared by lanes of many waves:
    the counters and returned values as lane order gives."""
    monkeypatch.setenv("WAVESMITH_EMU_OFF", grouping)
    rng = np.random.default_rng(7)
    n, stride = 256, 65536                      # counter k at word k * stride
    slot = rng.integers(0, 3, n).astype(np.uint32)
    data = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    mem = np.zeros(3 * stride, np.uint32)
    mem[::stride] = [5, 6, 7]
    src = loads("slot", "data", "mem", "ret") + global_id(128) + """
        global_load_b32 v3, v2, s[4:5]
        global_load_b32 v4, v2, s[6:7]
        s_waitcnt vmcnt(0)
        v_lshlrev_b32 v3, 18, v3
        global_atomic_add_u32 v5, v3, v4, s[8:9] glc
        s_waitcnt vmcnt(0)
        global_store_b32 v2, v5, s[10:11]
        s_endpgm"""
    got, _ = launch(src, {"slot": slot, "data": data, "mem": mem, "ret": np.zeros(n, np.uint32)},
                    grid=(n // 128, 1, 1), block=(128, 1, 1))
    counters, want = [5, 6, 7], []
    for s_, d in zip(slot.tolist(), data.tolist()):
        want.append(counters[s_])
        counters[s_] = (counters[s_] + d) % 2**32
    assert got["mem"][::stride].tolist() == counters and got["ret"].tolist() == want


@GROUPING
def test_combined_atomic_fault_names_the_lane(grouping, monkeypatch):
    """Lanes sharing counters, one lane (work-item 37: wave 1, lane 5) far past the buffer: the
    fault names that lane, its address and the nearest buffer, packed leaders or not."""
    monkeypatch.setenv("WAVESMITH_EMU_OFF", grouping)
    src = loads("mem") + global_id(64) + """
        v_and_b32 v3, 3, v1
        v_lshlrev_b32 v3, 2, v3
        v_cmp_eq_u32 vcc_lo, 37, v1
        v_cndmask_b32 v3, v3, 0x100000, vcc_lo
        v_mov_b32 v4, 1
        global_atomic_add_u32 v3, v4, s[4:5]
        s_endpgm"""
    with pytest.raises(EmuFault) as e:
        launch(src, {"mem": np.zeros(4, np.uint32)}, block=(64, 1, 1))
    msg = str(e.value)
    assert "global_atomic_add_u32" in msg and "wave 1, lane 5 (work-item (37, 0, 0))" in msg, msg
    assert "global address 0x" in msg and "nearest buffer" in msg, msg


def test_lds_atomic_without_return_leaves_vgprs_alone():
    """ds_add_u32 has no VDST: its encoding's VDST field (0) must not be written, so v0 (the
    work-item id here) survives; a histogram of many waves counts every lane (np.add.at)."""
    rng = np.random.default_rng(22)
    n, block = 1024, 256
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    src = loads("x", "bins", "ids") + f"""
        s_lshl_b32 s20, s16, 8
        v_add_nc_u32 v1, s20, v0
        v_lshlrev_b32 v2, 2, v1
        v_lshlrev_b32 v9, 2, v0
        v_mov_b32 v8, 0
        v_cmpx_gt_u32 16, v0
        ds_store_b32 v9, v8
        s_mov_b32 exec_lo, -1
        s_waitcnt lgkmcnt(0)
        s_barrier
        global_load_b32 v3, v2, s[4:5]
        s_waitcnt vmcnt(0)
        v_and_b32 v3, 15, v3
        v_lshlrev_b32 v3, 2, v3
        v_mov_b32 v4, 1
        ds_add_u32 v3, v4
        s_waitcnt lgkmcnt(0)
        s_barrier
        global_store_b32 v2, v0, s[8:9]
        v_cmpx_gt_u32 16, v0
        ds_load_b32 v5, v9
        s_lshl_b32 s21, s16, 6
        v_add_nc_u32 v9, s21, v9
        s_waitcnt lgkmcnt(0)
        global_store_b32 v9, v5, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"x": x, "bins": np.zeros(16 * (n // block), np.uint32), "ids": np.zeros(n, np.uint32)},
                    grid=(n // block, 1, 1), block=(block, 1, 1), lds=64)
    assert (got["ids"] == np.tile(np.arange(block), n // block)).all()
    expect = np.zeros((n // block, 16), np.int64)
    np.add.at(expect, (np.arange(n) // block, x & 15), 1)
    assert (got["bins"].reshape(n // block, 16) == expect).all()


def test_clang_byte_histogram_with_local_atomic_inc(tmp_path):
    """An OpenCL byte histogram (atomic_inc on a __local array -> ds_add_u32) built by clang-22
    (oracle, skipped when absent) and run through Device("emu") against np.bincount."""
    from tests.conftest import SHARED
    from tests.llvm_tools import tool
    from runtime import Device
    clang = tool("clang")
    (tmp_path / "hist.cl").write_text("""#include "prelude.h"
__kernel void byte_hist(__global const uchar *data, __global uint *hist, uint n) {
  __local uint bins[256];
  uint lid = get_local_id(0);
  for (uint i = lid; i < 256; i += get_local_size(0)) bins[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) atomic_inc(&bins[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < 256; i += get_local_size(0)) atomic_add(&hist[i], bins[i]);
}
""")
    obj = tmp_path / "hist.hsaco"
    subprocess.run([clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1100",
                    "-nogpulib", "-O2", f"-I{SHARED / 'kernels'}", str(tmp_path / "hist.cl"), "-o", str(obj)],
                   check=True, capture_output=True)
    n = 8192
    x = np.random.default_rng(23).integers(0, 256, n).astype(np.uint8)
    dev = Device("emu", arch="gfx1100")
    data, hist = dev.alloc(n, "data").copyin(x), dev.alloc(1024, "hist").copyin(np.zeros(256, np.uint32))
    dev.load(obj.read_bytes()).launch("byte_hist", grid=(4, 1, 1), block=(256, 1, 1), args=[data, hist, np.uint32(n)])
    assert (hist.copyout(np.uint32) == np.bincount(x, minlength=256)).all()


# ---------------------------------------------------------------- defect 3: packed inline constants

def test_packed_f16_inline_constant_is_f16_in_the_low_half():
    """Measured on RDNA3 (tinygrad's RDNA3 hardware tests, quoted in issue 13): v_pk_add_f16
    v1, v0, 1.0 with v0 = 0x3c003c00 gives 0x3c004000 — the constant is f16 1.0 in bits 15:0
    with zeros above (manual 7.5.1), so the high half (op_sel_hi picks the zero half) stays 1.0."""
    assert run_one("v_pk_add_f16 v1, v0, 1.0", {0: 0x3C003C00}, ["v1"])[0] == 0x3C004000
    # op_sel_hi:[1,0] points the high half at the constant's low half: 1.0 + 1.0 in both
    assert run_one("v_pk_add_f16 v1, v0, 1.0 op_sel_hi:[1,0]", {0: 0x3C003C00}, ["v1"])[0] == 0x40004000


@pytest.mark.parametrize("body, expect", [
    # f16 elements: 0.5 is 0x3800 in the low half
    ("v_pk_mul_f16 v1, v0, 0.5", np.array([3.0, 5.0], np.float16) * np.array([0.5, 0.0], np.float16)),
    # integer elements keep the low 16 bits of the integer constant: -1 -> 0xffff, high half 0
    ("v_pk_add_u16 v1, v0, -1", np.array([(3 + 0xFFFF) & 0xFFFF, 5], np.uint16)),
    ("v_pk_fma_f16 v1, v0, v0, 1.0", np.array([3.0 * 3.0 + 1.0, 5.0 * 5.0], np.float16)),
])
def test_packed_16bit_inline_constants(body, expect):
    v0 = np.array([3, 5], np.uint16) if expect.dtype == np.uint16 else np.array([3.0, 5.0], np.float16)
    got = run_one(body, {0: int(v0.view(np.uint32)[0])}, ["v1"])
    assert got.view(expect.dtype).tolist() == expect.tolist()


def test_16bit_operand_inline_constants_use_the_f16_value():
    """VOP3/VOP2 f16 operands read an inline float constant as its f16 value; DOT2_F16_F16
    replicates it into both halves of its packed sources (manual 7.2.1)."""
    h = lambda *v: int(np.array(v, np.float16).view(np.uint32)[0]) if len(v) == 2 else int(np.float16(v[0]).view(np.uint16))
    assert run_one("v_add_f16_e64 v1, v0, 0.5", {0: h(1.5)}, ["v1"])[0] & 0xFFFF == h(2.0)
    assert run_one("v_mul_f16 v1, -4.0, v0", {0: h(1.5)}, ["v1"])[0] & 0xFFFF == h(-6.0)
    # (1.5, 2.5) . (1.0, 1.0) + 0 = 4.0: the constant 1.0 in both halves
    assert run_one("v_dot2_f16_f16 v1, v0, 1.0, 0", {0: h(1.5, 2.5)}, ["v1"])[0] & 0xFFFF == h(4.0)


# ---------------------------------------------------------------- defect 4: class of signalling NaNs

@pytest.mark.parametrize("mnemonic, value, width", [
    ("v_cmp_class_f32", 0x7F800001, 32), ("v_cmp_class_f32", 0xFFA00000, 32),
    ("v_cmp_class_f16", 0x7C01, 16), ("v_cmp_class_f16", 0xFD00, 16),
    ("v_cmp_class_f64", 0x7FF0_0000_0000_0001, 64), ("v_cmp_class_f64", 0xFFF4_0000_0000_0000, 64),
])
def test_cmp_class_sees_signalling_nans(mnemonic, value, width):
    """A NaN whose top mantissa bit is clear is signalling (IEEE 754 6.2.1): mask bit 0 alone
    must set VCC (measured on RDNA3 for 0x7f800001: tinygrad's RDNA3 hardware tests, issue 13),
    mask bit 1 (quiet NaN) alone must not; a quiet NaN the other way round."""
    regs = {0: value & 0xFFFFFFFF, 1: value >> 32}
    src0 = "v[0:1]" if width == 64 else "v0"
    quiet = value | (1 << {16: 9, 32: 22, 64: 51}[width])
    for v, mask, expect in ((value, 1, 1), (value, 2, 0), (quiet, 2, 1), (quiet, 1, 0)):
        regs = {0: v & 0xFFFFFFFF, 1: v >> 32, 2: mask}
        got = run_one(f"{mnemonic} vcc_lo, {src0}, v2\nv_cndmask_b32 v3, 0, 1, vcc_lo", regs, ["v3"])
        assert got[0] == expect, (hex(v), mask)


def test_max_f32_returns_a_signalling_nan_quieted_in_ieee_mode():
    """IEEE mode: max(sNaN, 1.0) is the quieted sNaN (the manual's V_MAX_F32 pseudocode tests
    isSignalNAN first); a widening that quiets it would return 1.0."""
    got = run_one("v_max_f32 v2, v0, v1", {0: 0x7F800001, 1: 0x3F800000}, ["v2"])
    assert got[0] == 0x7FC00001


# ---------------------------------------------------------------- defect 5: v_trig_preop_f64

def _two_over_pi_bits(n: int) -> int:
    """floor(2/pi * 2**n) from Stormer's formula pi/4 = 44 atan(1/57) + 7 atan(1/239)
    - 12 atan(1/682) + 24 atan(1/12943), in exact rationals truncated far below 2**-n."""
    def atan_inv(x: int, terms: int) -> Fraction:
        return sum(Fraction((-1) ** k, (2 * k + 1) * x ** (2 * k + 1)) for k in range(terms))
    terms = n // 10 + 10               # each term of atan(1/57) gains > 11 bits
    pi = 4 * (44 * atan_inv(57, terms) + 7 * atan_inv(239, terms) - 12 * atan_inv(682, terms)
              + 24 * atan_inv(12943, terms))
    return int(2 * Fraction(2 ** n) / pi)


@pytest.mark.parametrize("x, segment", [(1.0, 0), (1.0, 1), (1.0, 2), (1.0, 5), (-3.5, 3), (2.0 ** 200, 0),
                                        (2.0 ** 200, 4), (1.5 * 2.0 ** 1000, 2)])
def test_trig_preop_returns_53_bit_segments_of_two_over_pi(x, segment):
    """Segment k is 2/pi's fraction bits [53k + s, 53k + s + 52] (s = exponent(x) - 1077 for
    large x) times 2**(-53(k + 1) - s) ("Rounding is toward zero": the segments do not
    overlap), scaled by 2**128 when exponent(x) >= 1968. tinygrad's RDNA3 hardware tests
    (issue 13) check x = 1.0: segment 0 equals 2/pi = 0.6366197723675814 to 10 places, segment
    1 lies in (0, 1e-15), segment 2 below 1e-30, and segments 0-2 sum to 2/pi to 14 places."""
    table = _two_over_pi_bits(1201)
    exp = (np.float64(x).view(np.uint64) >> np.uint64(52)) & np.uint64(0x7FF)
    shift = 53 * segment + max(0, int(exp) - 1077)
    bits = (table >> (1201 - 53 - shift)) & (2 ** 53 - 1) if shift <= 1148 else (table << (shift - 1148)) & (2 ** 53 - 1)
    scale = -53 - shift + (128 if exp >= 1968 else 0)
    expect = float(Fraction(bits) * Fraction(2) ** scale)
    v = int(np.float64(x).view(np.uint64))
    got = run_one(f"v_trig_preop_f64 v[2:3], v[0:1], {segment}", {0: v & 0xFFFFFFFF, 1: v >> 32}, ["v[2:3]"],
                  dtype=np.float64)
    assert got[0] == expect


def test_trig_preop_segments_of_one_as_measured():
    one = {0: 0, 1: 0x3FF00000}
    seg = run_one("v_trig_preop_f64 v[2:3], v[0:1], 0\nv_trig_preop_f64 v[4:5], v[0:1], 1\n"
                  "v_trig_preop_f64 v[6:7], v[0:1], 2", one, ["v[2:3]", "v[4:5]", "v[6:7]"], dtype=np.float64)
    assert abs(seg[0] - 0.6366197723675814) < 1e-10
    assert 0 < seg[1] < 1e-15 and 0 <= seg[2] < 1e-30
    assert abs(seg.sum() - 0.6366197723675814) < 1e-14


# ---------------------------------------------------------------- defect 6: integer clamp

U32, I32 = (0, 2**32 - 1), (-2**31, 2**31 - 1)
U16, I16 = (0, 2**16 - 1), (-2**15, 2**15 - 1)


def _as(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


@pytest.mark.parametrize("body, fn, bits, signed", [
    ("v_add_nc_u32_e64 v2, v0, v1 clamp", lambda a, b: a + b, 32, False),
    ("v_sub_nc_u32_e64 v2, v0, v1 clamp", lambda a, b: a - b, 32, False),
    ("v_add_nc_i32 v2, v0, v1 clamp", lambda a, b: a + b, 32, True),
    ("v_sub_nc_i32 v2, v0, v1 clamp", lambda a, b: a - b, 32, True),
    ("v_add_nc_u16 v2, v0, v1 clamp", lambda a, b: a + b, 16, False),
    ("v_sub_nc_u16 v2, v0, v1 clamp", lambda a, b: a - b, 16, False),
    ("v_add_nc_i16 v2, v0, v1 clamp", lambda a, b: a + b, 16, True),
    ("v_sub_nc_i16 v2, v0, v1 clamp", lambda a, b: a - b, 16, True),
    ("v_mad_u16 v2, v0, v1, v1 clamp", lambda a, b: a * b + b, 16, False),
    ("v_mad_u32_u24 v2, v0, v1, v1 clamp", lambda a, b: (a & 0xFFFFFF) * (b & 0xFFFFFF) + b, 32, False),
    # (no v_add3_u32 ... clamp: llvm-mc-22 refuses the text on gfx1100, gfx1201 and gfx942, so the
    # assembler does; the RDNA4 manual lists V_ADD3 among the instructions that ignore CLAMP)
    ("v_add_co_u32 v2, s10, v0, v1 clamp", lambda a, b: a + b, 32, False),
    ("v_sub_co_u32 v2, s10, v0, v1 clamp", lambda a, b: a - b, 32, False),
    ("v_subrev_co_u32 v2, s10, v0, v1 clamp", lambda a, b: b - a, 32, False),
    ("v_add_co_ci_u32_e64 v2, s10, v0, v1, s12 clamp", lambda a, b: a + b + 1, 32, False),
    ("v_sub_co_ci_u32_e64 v2, s10, v0, v1, s12 clamp", lambda a, b: a - b - 1, 32, False),
    ("v_subrev_co_ci_u32_e64 v2, s10, v0, v1, s12 clamp", lambda a, b: b - a - 1, 32, False),
])
def test_integer_clamp_saturates_to_the_result_type(body, fn, bits, signed):
    """CLMP on an integer result: "Signed integer arithmetic: clamp result to [min_int, +max_int];
    Unsigned: [0, +max_uint]" (manual, VOP3P CLMP field and 7.2.3.1), for the size of the
    integer. Reference: Python integers. s12 = all lanes' carry-in (1) of the _CI forms."""
    rng = np.random.default_rng(hash(body) % 2**32)
    edge = [0, 1, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << bits) - 16]
    pairs = [(a, b) for a in edge for b in edge] + [tuple(int(v) for v in rng.integers(0, 1 << bits, 2))
                                                    for _ in range(20)]
    a = np.array([p[0] for p in pairs], np.uint32)
    b = np.array([p[1] for p in pairs], np.uint32)
    src = loads("a", "b", "out") + """
        v_lshlrev_b32 v3, 2, v0
        global_load_b32 v4, v3, s[4:5]
        global_load_b32 v5, v3, s[6:7]
        s_mov_b32 s12, -1
        s_waitcnt vmcnt(0)
        v_mov_b32 v0, v4
        v_mov_b32 v1, v5
        """ + body + """
        global_store_b32 v3, v2, s[8:9]
        s_endpgm"""
    got, _ = launch(src, {"a": a, "b": b, "out": np.zeros(len(pairs), np.uint32)}, block=(len(pairs), 1, 1))
    lo, hi = {(32, False): U32, (32, True): I32, (16, False): U16, (16, True): I16}[bits, signed]
    for (x, y), g in zip(pairs, got["out"].tolist()):
        exact = fn(_as(x, bits, signed), _as(y, bits, signed))
        want = min(max(exact, lo), hi) & ((1 << bits) - 1)
        assert g & ((1 << bits) - 1) == want, (body, hex(x), hex(y), hex(g), hex(want))


def test_subrev_co_ci_clamp_zero_minus_one_is_zero():
    """Issue 13: v_subrev_co_ci_u32_e64 ... clamp with 0 - 1 must give 0 (it wrapped to 0xffffffff)."""
    assert run_one("s_mov_b32 s12, 0\nv_subrev_co_ci_u32_e64 v2, s10, v1, v0, s12 clamp", {0: 0, 1: 1}, ["v2"])[0] == 0


@pytest.mark.parametrize("body, lanes, expect", [
    ("v_pk_add_u16 v2, v0, v1 clamp", ([0xFFF0, 0x10], [0x20, 0x20]), [0xFFFF, 0x30]),
    ("v_pk_sub_i16 v2, v0, v1 clamp", ([0x8010, 0x7FF0], [0x20, 0xFFF0]), [0x8000, 0x7FFF]),
    ("v_pk_sub_u16 v2, v0, v1 clamp", ([0x10, 0x30], [0x20, 0x20]), [0, 0x10]),
])
def test_packed_integer_clamp_saturates_each_half(body, lanes, expect):
    pack = lambda lo_hi: lo_hi[0] | lo_hi[1] << 16
    got = run_one(body, {0: pack([lanes[0][0], lanes[0][1]]), 1: pack([lanes[1][0], lanes[1][1]])}, ["v2"])[0]
    assert [got & 0xFFFF, got >> 16] == expect


def test_clamp_of_a_64bit_integer_result_is_refused():
    with pytest.raises(UnsupportedInstruction, match="64-bit integer result"):
        run_one("v_mad_u64_u32 v[4:5], s10, v0, v1, v[6:7] clamp", {}, ["v4"])


# ---------------------------------------------------------------- defect 10: output modifier

def test_output_modifier_is_ignored_in_ieee_mode():
    """Measured on RDNA3 with IEEE mode on, as clang's descriptors set it (tinygrad's RDNA3
    hardware tests, issue 13): v_add_f32_e64 v1, 3.0, 1.0 mul:2 gives 4.0. The manual agrees
    (7.2.3.1): "Output modifiers are ignored if the IEEE mode bit is set to 1" and "if output
    denormals are enabled, then output modifiers are ignored"."""
    assert run_one("v_add_f32_e64 v1, 3.0, 1.0 mul:2", {}, ["v1"], mode=MODE_CLANG, dtype=np.float32)[0] == 4.0
    # IEEE off but f32 output denormals on (MODE[5]): still ignored
    assert run_one("v_add_f32_e64 v1, 3.0, 1.0 mul:2", {}, ["v1"], mode=0x030, dtype=np.float32)[0] == 4.0


@pytest.mark.parametrize("omod, factor", [("mul:2", 2.0), ("mul:4", 4.0), ("div:2", 0.5)])
def test_output_modifier_scales_with_ieee_off_and_denormals_flushed(omod, factor):
    got = run_one(f"v_add_f32_e64 v1, v0, 1.0 {omod}\nv_add_f64 v[2:3], v[4:5], 1.0 {omod}",
                  {0: int(np.float32(3.0).view(np.uint32)), 4: 0, 5: 0x40080000}, ["v1", "v[2:3]"],
                  mode=MODE_NO_IEEE)
    assert got[:1].view(np.float32)[0] == 4.0 * factor
    assert got[1:].view(np.float64)[0] == 4.0 * factor
    # the scaled result flushes denormals and -0 to +0 (7.2.3.1: "-0 is flushed to +0")
    got = run_one(f"v_mul_f32_e64 v1, v0, -1.0 {omod}", {0: 0}, ["v1"], mode=MODE_NO_IEEE)
    assert got[0] == 0


def _signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) else v


@COMBINE
@GROUPING
@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("name, op", [
    ("min_i", lambda m, d, bits: min(_signed(m, bits), _signed(d, bits)) % (1 << bits)),
    ("max_i", lambda m, d, bits: max(_signed(m, bits), _signed(d, bits)) % (1 << bits)),
    ("min_u", lambda m, d, bits: min(m, d)),
    ("max_u", lambda m, d, bits: max(m, d)),
    ("and_b", lambda m, d, bits: m & d),
    ("or_b", lambda m, d, bits: m | d),
    ("xor_b", lambda m, d, bits: m ^ d),
])
def test_global_atomic_reductions_on_shared_addresses(width, name, op, combine, grouping, monkeypatch):
    """Many waves and lanes on a few 32/64-bit words with integer min/max (signed and
    unsigned, full-range data) and and/or/xor: the words and every lane's returned value as
    applying the lanes one after another in lane order (wave-major) gives, with the lanes of
    an address combined in one pass (COMBINE_ATOMIC_REDUCTIONS) and in rounds."""
    monkeypatch.setattr("emu.table.COMBINE_ATOMIC_REDUCTIONS", combine)
    monkeypatch.setenv("WAVESMITH_EMU_OFF", grouping)
    rng = np.random.default_rng(31 + width)
    n, words = 256, 3
    dt = np.uint32 if width == 32 else np.uint64
    slot = rng.integers(0, words, n).astype(np.uint32)
    data = rng.integers(0, 2**width, n, dtype=np.uint64).astype(dt)
    init = rng.integers(0, 2**width, words, dtype=np.uint64).astype(dt)
    shift, pair = (2, "v4") if width == 32 else (3, "v[4:5]")
    ret = pair.replace("4", "6").replace("5", "7")
    src = loads("slot", "data", "mem", "ret") + global_id(128) + f"""
        global_load_b32 v3, v2, s[4:5]
        v_lshlrev_b32 v8, {shift}, v1
        global_load_b{width} {pair}, v8, s[6:7]
        s_waitcnt vmcnt(0)
        v_lshlrev_b32 v3, {shift}, v3
        global_atomic_{name}{width} {ret}, v3, {pair}, s[8:9] glc
        s_waitcnt vmcnt(0)
        global_store_b{width} v8, {ret}, s[10:11]
        s_endpgm"""
    got, _ = launch(src, {"slot": slot, "data": data, "mem": init.copy(), "ret": np.zeros(n, dt)},
                    grid=(n // 128, 1, 1), block=(128, 1, 1))
    words_, want = [int(v) for v in init], []
    for s_, d in zip(slot.tolist(), data.tolist()):
        want.append(words_[s_])
        words_[s_] = op(words_[s_], d, width)
    assert got["mem"].tolist() == words_
    assert got["ret"].tolist() == want

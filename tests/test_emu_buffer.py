"""MUBUF/MTBUF on the emulator against numpy references written from the RDNA3 manual's
chapter 9 (addressing p. 89-90, range checks Table 46 p. 89, V# Table 47 p. 92, formats
Table 52 p. 105): raw and structured buffers, swizzling with add_tid, per-component and
all-or-nothing range checks, atomics, format conversion, unbound resources, faults and
refused inputs. Encodings of the kernels' buffer instructions are checked against llvm-mc-22."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu.launch import Dispatch
from emu.machine import EmuError, EmuFault, Machine, UnsupportedInstruction
from emu.memory import DeviceMemory

from .llvm_tools import run as run_tool, tool

FMT = {"8_8_8_8_UNORM": 42, "16_16_SNORM": 24, "32_FLOAT": 22, "16_16_16_16_FLOAT": 57, "8_SINT": 6,
       "10_11_11_FLOAT": 30, "INVALID": 0}


def vsharp(base, *, stride=0, num_records=0, fmt=22, swizzle=0, index_stride=0, add_tid=0, oob=3,
           dst_sel=(4, 5, 6, 7), kind=0) -> list[int]:
    """The four dwords of a buffer resource, field by field from Table 47 (p. 92)."""
    sel = sum(s << (3 * i) for i, s in enumerate(dst_sel))
    return [base & 0xFFFFFFFF, (base >> 32) & 0xFFFF | stride << 16 | swizzle << 30, num_records,
            sel | fmt << 12 | index_stride << 21 | add_tid << 23 | oob << 28 | kind << 30]


def run(body: str, data: np.ndarray, *, rsrc: dict, soffset=0, wave=32, lanes=64, out_words=64 * 4, lds=0,
        arch="gfx1100"):
    """Run `body` with s[8:11] = the V# (over buffer 'data' unless rsrc['base'] is given),
    s12 = soffset, s[2:3] = an output buffer, v0 = lane / work-item id. Returns (data, out)."""
    mem = DeviceMemory()
    buf = mem.alloc(data.nbytes, "data")
    mem.write(buf, data)
    out = mem.alloc(4 * out_words, "out")
    rsrc = dict(rsrc)
    base = rsrc.pop("base", buf)
    args = mem.alloc(32, "kernarg")
    mem.write(args, np.array(vsharp(base, **rsrc) + [soffset, out & 0xFFFFFFFF, out >> 32, 0], np.uint32))
    code = dsl.assemble("""
        s_load_b128 s[8:11], s[0:1], 0x0
        s_load_b32 s12, s[0:1], 0x10
        s_load_b64 s[2:3], s[0:1], 0x14
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v20, 2, v0
    """ + body + "\ns_endpgm", arch, wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    Machine(arch, mem).run(Dispatch("buffer_kernel", at, grid=(1, 1, 1), block=(lanes, 1, 1), wave_size=wave,
                                         vgprs=32, user_sgprs=[args & 0xFFFFFFFF, args >> 32], lds_size=lds))
    return (np.frombuffer(mem.read(buf, data.nbytes), data.dtype),
            np.frombuffer(mem.read(out, 4 * out_words), np.uint32))


def store_out(reg: str, dwords: int = 1, stride: int = 4) -> str:
    """global_store of v[reg..] at out + lane * stride."""
    v = f"v{reg}" if dwords == 1 else f"v[{reg}:{reg + dwords - 1}]"
    return f"v_mul_u32_u24 v21, {stride}, v0\nglobal_store_b{32 * dwords} v21, {v}, s[2:3]\n"


def gather(data: np.ndarray, byte_offsets: np.ndarray, in_range: np.ndarray) -> np.ndarray:
    """Reference load: the dword at each byte offset of `data`, 0 where out of range."""
    raw = data.view(np.uint8)
    safe = np.where(in_range, byte_offsets, 0)
    words = np.stack([raw[safe + i] for i in range(4)], -1).copy().view(np.uint32)[..., 0]
    return np.where(in_range, words, 0)


# ------------------------------------------------------------------ addressing and range checks
@pytest.mark.parametrize("wave,arch", [(32, "gfx1100"), (64, "gfx1100"), (32, "gfx1151")])
def test_raw_buffer_offsets_and_range(wave, arch):
    """Raw buffer (OOB_SELECT 3, stride 0): address = base + soffset + inst_offset + voffset;
    out of range when soffset + offset + 4 > num_records (num_records reduced by soffset)."""
    data = np.arange(1000, 1256, dtype=np.uint32)
    body = "v_mul_u32_u24 v1, 3, v20\n" \
           "buffer_load_b32 v2, v1, s[8:11], s12 offen offset:8\ns_waitcnt vmcnt(0)\n" + store_out(2)
    _, out = run(body, data, rsrc=dict(num_records=600), soffset=16, wave=wave, arch=arch)
    offset = 16 + 8 + 12 * np.arange(64)                 # soffset + inst offset + voffset
    ref = gather(data, offset, offset + 4 <= 600)
    assert (out[:64] == ref).all()
    assert (out[:64] == 0).sum() == (offset + 4 > 600).sum() > 0


def test_raw_buffer_unaligned_and_partially_out_of_range_b128():
    """B128 is range-checked per dword (p. 88): a lane straddling num_records keeps its
    in-range dwords. Offsets are unaligned (DeviceMemory accepts any alignment)."""
    data = np.arange(256, dtype=np.uint32) * 7
    body = "v_mul_u32_u24 v1, 13, v0\nbuffer_load_b128 v[4:7], v1, s[8:11], 0 offen\ns_waitcnt vmcnt(0)\n" \
           + store_out(4, 4, 16)
    _, out = run(body, data, rsrc=dict(num_records=400))
    out = out.reshape(64, 4)
    for k in range(4):
        offset = 13 * np.arange(64) + 4 * k
        assert (out[:, k] == gather(data, offset, offset + 4 <= 400)).all()
    assert ((out != 0).sum(1) % 4 != 0).any()             # some lane was cut part-way


@pytest.mark.parametrize("oob", [0, 3])
def test_structured_buffer_index_and_offset(oob):
    """Structured buffer, stride 12 bytes, IDXEN+OFFEN (index in v1, offset in v2): address
    = base + soffset + inst_offset + stride * index + voffset; out of range when index >=
    num_records (in strides) or offset + 4 > stride (OOB_SELECT 0). With OOB_SELECT 3 and no
    swizzle the check is the raw one: the byte offset against num_records in bytes."""
    data = np.arange(512, dtype=np.uint32) + 100
    body = """
        v_lshrrev_b32 v1, 2, v0
        v_and_b32 v2, 3, v0
        v_lshlrev_b32 v2, 2, v2
        buffer_load_b32 v3, v[1:2], s[8:11], s12 idxen offen offset:4
        s_waitcnt vmcnt(0)
    """ + store_out(3)
    lane = np.arange(64)
    index, voffset = lane // 4, 4 * (lane % 4)
    num_records = 10 if oob == 0 else 150
    _, out = run(body, data, rsrc=dict(stride=12, num_records=num_records, oob=oob), soffset=8)
    offset = voffset + 4
    address = 8 + 12 * index + offset
    ok = (index < num_records) & (offset + 4 <= 12) if oob == 0 else address + 4 <= num_records
    assert (out[:64] == gather(data, address, ok)).all()
    assert ok.any() and not ok.all()


@pytest.mark.parametrize("oob,expect", [(1, "index"), (2, "all")])
def test_oob_select_1_and_2(oob, expect):
    data = np.arange(512, dtype=np.uint32)
    body = "v_mul_u32_u24 v1, 8, v0\nbuffer_load_b32 v3, v[0:1], s[8:11], 0 idxen offen\ns_waitcnt vmcnt(0)\n" \
        + store_out(3)
    _, out = run(body, data, rsrc=dict(stride=4, num_records=20, oob=oob))
    lane = np.arange(64)
    address = 4 * lane + 8 * lane
    ok = lane < 20 if expect == "index" else np.ones(64, bool)
    ok &= address + 4 <= data.nbytes
    assert (out[:64] == gather(data, address, ok)).all()


@pytest.mark.parametrize("wave", [32, 64])
def test_swizzled_store_with_add_tid(wave):
    """Swizzle with element 4 bytes, index_stride 16, add_tid: every lane stores its id at
    offset 4 of its record (stride 8); the buffer layout follows p. 90's formula."""
    data = np.zeros(256, np.uint32)
    body = "buffer_store_b32 v0, off, s[8:11], 0 offset:4\n"
    stored, _ = run(body, data, rsrc=dict(stride=8, num_records=64, swizzle=1, index_stride=1, add_tid=1),
                    wave=wave, lanes=wave)
    index, offset, element, istride = np.arange(wave), 4, 4, 16
    address = ((index // istride) * 8 + (offset // element) * element) * istride \
        + (index % istride) * element + offset % element
    ref = np.zeros(256, np.uint32)
    ref[address // 4] = index
    assert (stored == ref).all()


def test_store_out_of_range_is_dropped_and_in_range_lands():
    data = np.full(128, 0xAAAAAAAA, np.uint32)
    body = "buffer_store_b32 v0, v20, s[8:11], 0 offen offset:64\n"
    stored, _ = run(body, data, rsrc=dict(num_records=200))
    ref = data.copy()
    lane = np.arange(64)
    ok = 64 + 4 * lane + 4 <= 200
    ref[(64 + 4 * lane[ok]) // 4] = lane[ok]
    assert (stored == ref).all()


def test_unbound_resource_reads_zero_and_ignores_stores():
    """A V# whose data format is INVALID (and add_tid off) is unbound (p. 92)."""
    data = np.arange(128, dtype=np.uint32) + 1
    body = "buffer_load_b32 v3, v20, s[8:11], 0 offen\nbuffer_store_b32 v0, v20, s[8:11], 0 offen offset:256\n" \
           "s_waitcnt vmcnt(0)\n" + store_out(3)
    stored, out = run(body, data, rsrc=dict(num_records=512, fmt=0))
    assert (out[:64] == 0).all() and (stored == data).all()


# ------------------------------------------------------------------ atomics
def test_atomics_serialise_return_and_drop_out_of_range():
    """buffer_atomic_add_u32 glc from 64 lanes onto 4 counters (lane % 4), counters 2 and 3
    beyond num_records: in-range lanes return the running sum in lane order, others 0."""
    data = np.array([10, 20, 30, 40], np.uint32)
    body = "v_and_b32 v1, 3, v0\nv_lshlrev_b32 v1, 2, v1\nv_add_nc_u32 v2, 1, v0\n" \
           "buffer_atomic_add_u32 v2, v1, s[8:11], 0 offen glc\ns_waitcnt vmcnt(0)\n" + store_out(2)
    stored, out = run(body, data, rsrc=dict(num_records=8))
    lane = np.arange(64)
    counter, add = lane % 4, lane + 1
    before = np.array([data[c] + add[(counter == c) & (lane < i)].sum() for i, c in zip(lane, counter)])
    ok = counter < 2
    assert (out[:64] == np.where(ok, before, 0)).all()
    assert (stored == [10 + add[counter == 0].sum(), 20 + add[counter == 1].sum(), 30, 40]).all()


def test_atomic_cmpswap_without_glc_keeps_the_data_register():
    data = np.array([5, 6, 7, 8], np.uint32)
    body = """
        v_and_b32 v1, 3, v0
        v_lshlrev_b32 v1, 2, v1
        v_mov_b32 v2, 99
        v_add_nc_u32 v3, 5, v0
        buffer_atomic_cmpswap_b32 v[2:3], v1, s[8:11], 0 offen
        s_waitcnt vmcnt(0)
    """ + store_out(2)
    stored, out = run(body, data, rsrc=dict(num_records=16))
    assert (stored == [99, 99, 99, 99]).all()       # lanes 0..3 compare 5..8 against 5..8
    assert (out[:64] == 99).all()                   # no GLC: v2 unchanged


# ------------------------------------------------------------------ format conversion
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_load_format_xyzw_8_8_8_8_unorm_with_dst_sel(arch):
    """8_8_8_8_UNORM: each byte b -> b / 255 as f32 (p. 84: normalized data returned as
    floats); DST_SEL (B, 1, R, 0) reorders; out-of-range lanes read 0 except the SEL_1
    component, which reads 1.0 (Table 46 note 1)."""
    raw = np.arange(256, dtype=np.uint8)[::-1].copy()
    body = "buffer_load_format_xyzw v[4:7], v20, s[8:11], 0 offen\ns_waitcnt vmcnt(0)\n" + store_out(4, 4, 16)
    _, out = run(body, raw.view(np.uint32), rsrc=dict(num_records=160, fmt=FMT["8_8_8_8_UNORM"], dst_sel=(6, 1, 4, 0)),
                 arch=arch)
    got = out.reshape(64, 4).view(np.float32)
    texel = raw.reshape(64, 4).astype(np.float32) / np.float32(255)
    ok = (4 * np.arange(64) + 4 <= 160)[:, None]
    ref = np.stack([texel[:, 2], np.ones(64, np.float32), texel[:, 0], np.zeros(64, np.float32)], 1)
    ref = np.where(ok, ref, np.array([0, 1, 0, 0], np.float32))
    assert (got == ref).all()


def test_tbuffer_load_16_16_snorm_and_d16_float():
    """MTBUF takes the format from the instruction: 16_16_SNORM -> max(v / 32767, -1);
    a D16 load of 16_16_16_16_FLOAT packs the halves unchanged, X/Y in v6, Z/W in v7."""
    vals = np.array([0, 1, -1, 32767, -32767, -32768, 1000, -12345] * 16, np.int16)
    body = """
        tbuffer_load_format_xy v[4:5], v20, s[8:11], 0 format:[BUF_FMT_16_16_SNORM] offen
        v_lshlrev_b32 v1, 3, v0
        tbuffer_load_d16_format_xyzw v[6:7], v1, s[8:11], 0 format:[BUF_FMT_16_16_16_16_FLOAT] offen
        s_waitcnt vmcnt(0)
    """ + store_out(4, 2, 8) + "v_add_nc_u32 v21, 0x200, v21\nglobal_store_b64 v21, v[6:7], s[2:3]\n"
    halves = np.random.default_rng(1).standard_normal(256).astype(np.float16)
    data = np.concatenate([vals.view(np.uint32), halves.view(np.uint32)[64:]])
    _, out = run(body, data, rsrc=dict(num_records=data.nbytes, fmt=FMT["32_FLOAT"]))
    pairs = out[:128].reshape(64, 2).view(np.float32)
    ref = np.maximum(vals.reshape(64, 2).astype(np.float32) / np.float32(32767), np.float32(-1))
    assert (pairs == ref).all()
    d16 = out[128:256].reshape(64, 2)
    assert (d16.reshape(-1) == data.view(np.uint32)[:128]).all()


def test_store_format_rounds_and_saturates():
    """buffer_store_format_xy to 8_8_8_8_UNORM: f32 -> round(clamp(x, 0, 1) * 255), NaN -> 0;
    Z and W, which the instruction does not supply, are written as 0."""
    x = np.array([0.0, 1.0, 0.5, 0.25, -3.0, 7.0, np.nan, 0.1] * 8, np.float32)
    y = np.linspace(-0.5, 1.5, 64).astype(np.float32)
    data = np.zeros(256, np.uint32)
    data[128:].view(np.float32)[:] = np.stack([x, y], 1).reshape(-1)
    body = """
        v_lshlrev_b32 v1, 3, v0
        buffer_load_b64 v[4:5], v1, s[8:11], 0 offen offset:512
        s_waitcnt vmcnt(0)
        buffer_store_format_xy v[4:5], v20, s[8:11], 0 offen
    """
    stored, _ = run(body, data, rsrc=dict(num_records=1024, fmt=FMT["8_8_8_8_UNORM"]))
    stored = stored[:64]
    def unorm8(v):
        v = v.astype(np.float64)
        return np.where(np.isnan(v), 0, np.rint(np.clip(v, 0, 1) * 255)).astype(np.uint32)
    assert (stored == unorm8(x) | unorm8(y) << 8).all()


def test_format_load_is_all_or_nothing():
    """32_32_32_32 read as XYZW: a lane whose 16 bytes straddle num_records reads zeros in
    all four components (p. 89 note 3), unlike buffer_load_b128."""
    data = np.arange(1, 257, dtype=np.uint32)
    body = "v_lshlrev_b32 v1, 4, v0\nbuffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen offset:8\n" \
           "s_waitcnt vmcnt(0)\n" + store_out(4, 4, 16)
    _, out = run(body, data, rsrc=dict(num_records=16 * 10, fmt=61))            # 32_32_32_32_UINT
    out = out.reshape(64, 4)
    offset = 16 * np.arange(64) + 8
    ok = offset + 16 <= 160
    ref = np.stack([gather(data, offset + 4 * k, ok) for k in range(4)], 1)
    assert (out == ref).all() and ok.sum() == 9


# ------------------------------------------------------------------ faults and refused input
def test_in_range_access_outside_memory_faults_with_the_report():
    data = np.zeros(16, np.uint32)
    body = "buffer_load_b32 v3, v20, s[8:11], 0 offen\n"
    with pytest.raises(EmuFault, match=r"buffer_kernel: memory fault at PC 0x[0-9a-f]+ `buffer_load_b32.*lane 16 .*"
                                       r"'data'"):
        run(body, data, rsrc=dict(num_records=1 << 20))


def test_unmodelled_format_and_reserved_swizzle_and_tfe_are_refused():
    data = np.zeros(64, np.uint32)
    with pytest.raises(EmuError, match=r"buffer_load_format_x.*data format 30 \(10_11_11_FLOAT\) is not modelled"):
        run("buffer_load_format_x v3, v20, s[8:11], 0 offen\n", data, rsrc=dict(num_records=64, fmt=30))
    with pytest.raises(EmuError, match=r"tbuffer_load_format_x.*data format is 0 \(INVALID\)"):
        run("tbuffer_load_format_x v3, v20, s[8:11], 0 format:0 offen\n", data, rsrc=dict(num_records=64))
    with pytest.raises(EmuError, match=r"PC 0x.*swizzle_enable is 2"):
        run("buffer_load_b32 v3, v20, s[8:11], 0 offen\n", data, rsrc=dict(num_records=64, swizzle=2))
    with pytest.raises(EmuError, match=r"type field .* is 2"):
        run("buffer_load_b32 v3, v20, s[8:11], 0 offen\n", data, rsrc=dict(num_records=64, kind=2))
    # TFE (the status dword) is not modelled: refused naming the PC, never run as a plain load
    with pytest.raises(UnsupportedInstruction, match=r"PC 0x[0-9a-f]+: `buffer_load_b32 v\[3:4\].* tfe`.*TFE"):
        run("buffer_load_b32 v[3:4], v20, s[8:11], 0 offen tfe\n", data, rsrc=dict(num_records=64))
    with pytest.raises(UnsupportedInstruction, match=r"PC 0x[0-9a-f]+: `buffer_load_b32 v\[3:4\].* tfe` \(VBUFFER\).*TFE"):
        run("buffer_load_b32 v[3:4], v20, s[8:11], null offen tfe\n", data, rsrc=dict(num_records=64), arch="gfx1201")


def test_buffer_encodings_agree_with_llvm_mc():
    lines = ["buffer_load_b32 v1, v[0:1], s[8:11], s12 idxen offen offset:4",
             "buffer_atomic_add_u32 v2, v1, s[8:11], 0 offen glc",
             "buffer_store_format_xy v[4:5], v20, s[8:11], 0 offen",
             "tbuffer_load_format_xy v[4:5], v20, s[8:11], 0 format:[BUF_FMT_16_16_SNORM] offen",
             "buffer_store_b32 v0, off, s[8:11], 0 offset:4"]
    out = run_tool(tool("llvm-mc"), "-triple=amdgcn", "-mcpu=gfx1100", "-show-encoding",
                   stdin="\n".join(lines).encode())
    import re
    want = [bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", m))
            for m in re.findall(r"encoding: \[(.*?)\]", out)]
    assert want == [dsl.assemble(line, "gfx1100") for line in lines]


def test_device_emu_runs_the_buffer_bounds_example():
    """examples/buffer_bounds.s on Device("emu"): 3 work-groups of 64 for n = 150; the range
    check drops the stores of work-items >= n (c has exactly n elements, so a store that got
    through would fault) and they load 0."""
    from pathlib import Path

    from runtime.asm_module import assemble_module
    from runtime.device import Device
    src = Path(__file__).resolve().parent.parent / "examples" / "buffer_bounds.s"
    dev = Device("emu", "gfx1100")
    prog = dev.load(assemble_module(src.read_text()))
    n = 150
    a = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    a_buf, c_buf = dev.alloc(a.nbytes, "a").copyin(a), dev.alloc(a.nbytes, "c")
    prog.launch("buffer_bounds", grid=(3, 1, 1), block=(64, 1, 1), args=[a_buf, c_buf, np.uint32(n)])
    assert (c_buf.copyout(np.float32) == a * 2).all()


# Table 39 (p. 83-84): dst (memory) and src (data) per lane, the new memory value; 64-bit
# variants read and write register pairs
_ATOMICS = {
    "sub_u32": lambda m, d: m - d,
    "min_i32": lambda m, d: np.minimum(m.view(np.int32), d.view(np.int32)).view(np.uint32),
    "max_u32": np.maximum,
    "xor_b32": np.bitwise_xor,
    "inc_u32": lambda m, d: np.where(m >= d, 0, m + 1).astype(np.uint32),
    "dec_u32": lambda m, d: np.where((m == 0) | (m > d), d, m - 1).astype(np.uint32),
    "csub_u32": lambda m, d: np.where(d > m, 0, m - d).astype(np.uint32),
    "swap_b32": lambda m, d: d,
    "add_f32": lambda m, d: (m.view(np.float32) + d.view(np.float32)).view(np.uint32),
    "min_f32": lambda m, d: np.minimum(m.view(np.float32), d.view(np.float32)).view(np.uint32),
    "add_u64": lambda m, d: m + d,
    "min_i64": lambda m, d: np.minimum(m.view(np.int64), d.view(np.int64)).view(np.uint64),
    "max_u64": np.maximum,
}


@pytest.mark.parametrize("op", sorted(_ATOMICS))
def test_buffer_atomics_per_lane(op):
    """Each lane updates its own element (no conflicts) with GLC: memory ends as the
    manual's expression and the lane gets the value from before."""
    wide = op.endswith("64")
    dtype, rng = (np.uint64 if wide else np.uint32), np.random.default_rng(hash(op) % 2**32)
    if op.endswith("f32"):
        mem0 = rng.standard_normal(64).astype(np.float32).view(np.uint32)
        data = rng.standard_normal(64).astype(np.float32).view(np.uint32)
    else:
        mem0 = rng.integers(0, 2**63 if wide else 2**32, 64, dtype=np.uint64).astype(dtype)
        data = rng.integers(0, 2**63 if wide else 2**32, 64, dtype=np.uint64).astype(dtype)
        mem0[:8], data[:8] = mem0[:8] % 5, data[:8] % 5          # small values: the inc/dec/csub edges
    n = 8 if wide else 4
    buf = np.concatenate([mem0.view(np.uint32), data.view(np.uint32)])
    v = "v[2:3]" if wide else "v2"
    body = f"""
        v_mul_u32_u24 v1, {n}, v0
        v_add_nc_u32 v5, {64 * n}, v1
        buffer_load_b{8 * n} {v}, v5, s[8:11], 0 offen
        s_waitcnt vmcnt(0)
        buffer_atomic_{op} {v}, v1, s[8:11], 0 offen glc
        s_waitcnt vmcnt(0)
    """ + store_out(2, 2 if wide else 1, n)
    stored, out = run(body, buf, rsrc=dict(num_records=buf.nbytes))
    ret = out[:64 * n // 4].view(dtype)
    assert (ret == mem0).all()
    assert (stored[:64 * n // 4].view(dtype) == _ATOMICS[op](mem0, data).astype(dtype)).all()


def test_float_atomics_keep_float_bits_in_global_and_lds():
    """The same f32 atomics outside buffers (the translation fix they share): global_atomic
    add_f32 (memory = m + d) and ds_max_rtn_f32 (memory = max, the lane gets the old value)."""
    rng = np.random.default_rng(7)
    m, d = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    buf = np.concatenate([m.view(np.uint32), d.view(np.uint32)])
    body = """
        v_add_nc_u32 v5, 0x100, v20
        global_load_b32 v2, v5, s[8:9]
        global_load_b32 v3, v20, s[8:9]
        s_waitcnt vmcnt(0)
        global_atomic_add_f32 v20, v2, s[8:9]
        ds_store_b32 v20, v3
        ds_max_rtn_f32 v4, v20, v2
        ds_load_b32 v6, v20
        s_waitcnt vmcnt(0) lgkmcnt(0)
        global_store_b32 v20, v4, s[2:3]
        global_store_b32 v20, v6, s[2:3] offset:256
    """
    stored, out = run(body, buf, rsrc=dict(num_records=buf.nbytes), lds=256)
    assert (stored[:64].view(np.float32) == m + d).all()
    assert (out[:64].view(np.float32) == m).all() and (out[64:128].view(np.float32) == np.maximum(m, d)).all()


@pytest.mark.parametrize("stride,num_records", [(0, 40), (12, 3)])
def test_s_buffer_load_range_check_per_dword(stride, num_records):
    """s_buffer_load_b256 at soffset 8 + offset 8: dword k at byte offset 16 + 4k is zero when
    16 + 4k >= (stride or 1) * num_records (p. 79), the others load (here 40 and 36 bytes)."""
    data = np.arange(100, 164, dtype=np.uint32)
    body = """
        s_buffer_load_b256 s[20:27], s[8:11], s12 offset:0x8
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v1, 0
    """ + "".join(f"v_mov_b32 v{2 + k}, s{20 + k}\n" for k in range(8)) + \
        "global_store_b128 v1, v[2:5], s[2:3]\nglobal_store_b128 v1, v[6:9], s[2:3] offset:16\n"
    _, out = run(body, data, rsrc=dict(stride=stride, num_records=num_records), soffset=8, lanes=32)
    offset = 16 + 4 * np.arange(8)
    size = (stride or 1) * num_records
    assert (out[:8] == np.where(offset < size, data[offset // 4], 0)).all()
    assert 0 < (offset < size).sum() < 8

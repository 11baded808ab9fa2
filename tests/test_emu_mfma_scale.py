"""CDNA4 block-scaled MFMA on the machine (manual 7.2.1): a V_MFMA_SCALE_* is four dwords, a
load-scale VOP3P (SRC0 / SRC1: A's and B's scales, {OP_SEL_HI[i], OP_SEL[i]} picks the byte)
and the F8F6F4 MFMA after it; the machine runs the pair as one instruction. Checked against
numpy with the manual's rule (one E8M0 scale, bias 127, per block of 32 K values: A row i,
block kb and B column j, block kb take the byte of lane i + 16 * kb / j + 16 * kb, the lane
holding those values) on clang-22's code for the builtin and on text our assembler encodes
to llvm-mc-22's bytes."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import dsl
from emu.machine import UnsupportedInstruction
from tests.test_emu_cdna import run as run_body
from tests.test_emu_mfma import as_dwords, dense_case, unplace

NAME = "V_MFMA_F32_16X16X128_F8F6F4"
rng = np.random.default_rng(20)


def scaled_case(a_sel: int, b_sel: int, name: str = NAME):
    """fp8 A, B, C of one `name` (M = N = 16, K = 128 or M = N = 32, K = 64) and per-lane
    scale dwords whose selected bytes are exponents 120..133 (factors 2^-7..2^6) and whose
    other bytes are noise."""
    m, k_size = (16, 128) if "16X16" in name else (32, 64)
    inputs, A, B, C, place, out = dense_case("gfx950", name, waves=1, a_kind="fp8", b_kind="fp8")
    ea, eb = rng.integers(120, 134, 64), rng.integers(120, 134, 64)
    noise_a, noise_b = rng.integers(0, 2 ** 32, 64, dtype=np.uint64), rng.integers(0, 2 ** 32, 64, dtype=np.uint64)

    def place_byte(noise, e, sel):
        keep = ~np.uint64(0xFF << (8 * sel)) & np.uint64(0xFFFFFFFF)
        return ((noise & keep) | (e.astype(np.uint64) << np.uint64(8 * sel))).astype(np.uint32)
    sa, sb = place_byte(noise_a, ea, a_sel), place_byte(noise_b, eb, b_sel)
    k = np.arange(k_size)
    A2 = A[0, 0] * 2.0 ** (ea[np.arange(m)[:, None] + m * (k // 32)[None]] - 127)
    B2 = B[0, 0] * 2.0 ** (eb[np.arange(m)[None] + m * (k // 32)[:, None]] - 127)
    want = (A2 @ B2 + C[0, 0]).astype(np.float32)
    return inputs, sa, sb, place, out, want


_CL = r"""
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef int v8i __attribute__((ext_vector_type(8)));
__kernel void scale_16x16x128(__global const v8i *A, __global const v8i *B, __global float *C,
                              __global const int *SA, __global const int *SB) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v4f c; for (int e = 0; e < 4; ++e) c[e] = C[l * 4 + e];
  c = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(A[l], B[l], c, 0, 0, 2, SA[l], 1, SB[l]);
  for (int e = 0; e < 4; ++e) C[l * 4 + e] = c[e];
}
__kernel void scale_32x32x64(__global const v8i *A, __global const v8i *B, __global float *C,
                             __global const int *SA, __global const int *SB) {
  uint l = __builtin_amdgcn_workitem_id_x();
  v16f c; for (int e = 0; e < 16; ++e) c[e] = C[l * 16 + e];
  c = __builtin_amdgcn_mfma_scale_f32_32x32x64_f8f6f4(A[l], B[l], c, 0, 0, 3, SA[l], 0, SB[l]);
  for (int e = 0; e < 16; ++e) C[l * 16 + e] = c[e];
}
"""
# kernel -> (instruction, A's and B's scale byte as the builtin's op_sel arguments)
CLANG_CASES = {"scale_16x16x128": (NAME, 2, 1), "scale_32x32x64": ("V_MFMA_F32_32X32X64_F8F6F4", 3, 0)}


@pytest.fixture(scope="module")
def clang_object(tmp_path_factory):
    from tests.llvm_tools import tool
    tmp_path = tmp_path_factory.mktemp("mfma_scale")
    (tmp_path / "k.cl").write_text(_CL)
    for argv in ([tool("clang"), "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950",
                  "-nogpulib", "-O2", "-c", str(tmp_path / "k.cl"), "-o", str(tmp_path / "k.o")],
                 [tool("ld.lld"), "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.hsaco")]):
        subprocess.run(argv, check=True, capture_output=True)
    return (tmp_path / "k.hsaco").read_bytes()


@pytest.mark.parametrize("kernel", list(CLANG_CASES))
def test_clang_scaled_builtin_on_the_emulator(clang_object, kernel):
    """clang-22's v_mfma_scale_f32_16x16x128_f8f6f4 / _32x32x64_f8f6f4 with constant scale
    byte selects on Device("emu"): D against numpy."""
    from runtime import Device
    name, a_sel, b_sel = CLANG_CASES[kernel]
    inputs, sa, sb, place, out, want = scaled_case(a_sel, b_sel, name)
    m = want.shape[0]
    dev = Device("emu", arch="gfx950")
    prg = dev.load(clang_object)
    arrays = [np.ascontiguousarray(as_dwords(inputs[k])[0]) for k in ("S0", "S1", "S2")] + [sa, sb]
    bufs = [dev.alloc(x.nbytes).copyin(x) for x in arrays]
    prg.launch(kernel, grid=(1, 1, 1), block=(64, 1, 1), args=bufs)
    d = bufs[2].copyout(np.uint32).reshape(1, 64, -1)
    np.testing.assert_array_equal(unplace(d, place, out, (1, m, m))[0, 0], want)


PAIR = ("v_mfma_ld_scale_b32 v24, v25 op_sel:[{a_lo},{b_lo},0] op_sel_hi:[{a_hi},{b_hi},0]\n"
        "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23] abid:1")


@pytest.mark.parametrize("a_sel,b_sel", [(0, 3), (1, 2), (3, 0)])
def test_assembled_pair_matches_llvm_and_runs(a_sel, b_sel):
    """The two-instruction text encodes to llvm-mc-22's bytes for the one-instruction
    v_mfma_scale_f32_16x16x128_f8f6f4 but for OPSEL_HI[2] of the prefix (a bit of a third source
    v_mfma_ld_scale_b32 does not have: LLVM's fused form clears it, its prefix written alone keeps
    the default 1, as ours does), which llvm-mc-22 disassembles back to the same fused instruction;
    and it runs with the selected scale bytes."""
    from tests.llvm_tools import run as run_tool, tool

    def encoded(listing):
        return b"".join(bytes(int(x, 16) for x in part.split("]")[0].split(","))
                        for part in listing.split("encoding: [")[1:])
    ops = dict(a_lo=a_sel & 1, a_hi=a_sel >> 1, b_lo=b_sel & 1, b_hi=b_sel >> 1)
    text = PAIR.format(**ops)
    llvm = (f"v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 "
            f"op_sel:[{ops['a_lo']},{ops['b_lo']},0] op_sel_hi:[{ops['a_hi']},{ops['b_hi']},0]")
    mc = ("-triple=amdgcn", "-mcpu=gfx950")
    fused = encoded(run_tool(tool("llvm-mc"), *mc, "-show-encoding", stdin=(llvm + "\n").encode()))
    prefix = encoded(run_tool(tool("llvm-mc"), *mc, "-show-encoding", stdin=(text.splitlines()[0] + "\n").encode()))
    got = dsl.assemble(text, "gfx950", 64)
    assert got[:8] == prefix
    opsel_hi2 = 1 << 14
    assert int.from_bytes(fused[:4], "little") & opsel_hi2 == 0 and int.from_bytes(got[:4], "little") & opsel_hi2
    assert (int.from_bytes(got[:4], "little") & ~opsel_hi2).to_bytes(4, "little") + got[4:] == fused
    assert llvm in run_tool(tool("llvm-mc"), *mc, "--disassemble", stdin=",".join(f"0x{b:02x}" for b in got).encode())

    inputs, sa, sb, place, out, want = scaled_case(a_sel, b_sel)
    a, b, c = (as_dwords(inputs[k])[0] for k in ("S0", "S1", "S2"))      # (64, 8), (64, 8), (64, 4)
    data = np.concatenate([a, b, c, sa[:, None], sb[:, None]], axis=1).astype(np.uint32)   # (64, 22)
    loads = "\n".join(f"global_load_dword v{4 + r}, v30, s[8:9] offset:{4 * r}" for r in range(22))
    got = run_body(f"""
    s_load_dwordx2 s[8:9], s[0:1], 0x8
    v_mul_u32_u24 v30, 88, v0
    v_lshlrev_b32 v31, 4, v0
    s_waitcnt lgkmcnt(0)
    {loads}
    s_waitcnt vmcnt(0)
    {text}
    s_nop 15
    global_store_dwordx4 v31, v[0:3], s[4:5]
    """, 4, "gfx950", inputs=data.reshape(-1), vgprs=32)
    np.testing.assert_array_equal(unplace(got[None], place, out, (1, 16, 16))[0, 0], want)


def test_scale_prefix_before_another_instruction_is_refused():
    """The load-scale prefix only precedes the F8F6F4 MFMAs: anything else is named."""
    body = """
    v_mfma_ld_scale_b32 v2, v3
    v_mfma_f32_16x16x32_f16 v[4:7], v[8:11], v[12:15], v[4:7]
    """
    with pytest.raises(UnsupportedInstruction, match="v_mfma_ld_scale_b32 must be followed by .*"
                                                     "not v_mfma_f32_16x16x32_f16"):
        run_body(body, 1, "gfx950")

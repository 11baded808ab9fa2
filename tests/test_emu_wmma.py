"""WMMA through the machine (assembled text and clang-compiled OpenCL), checked against a
numpy matmul with the register layouts of the manual's WMMA section (7.9): A/B lane m (of
each 16) holds row m of A / column m of B, 16 k values packed from the low bits up; C/D:
VGPR v of lane l holds element (L/16 * v + l/16, l % 16), 16-bit C/D in the half OPSEL[2]
names (the other half kept). Inline constants may only be C: 'For F16 and BF16, the inline
value is replicated into both low and high halves of the DWORD' (7.9); BF16 takes the high
16 bits of the F32 constant (7.5.1).

Values are small integers, so every product and sum is exact in every type and the
reference does not depend on the order of the accumulation."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tests.llvm_tools import tool
from tests.test_emu_machine import launch, loads

rng = np.random.default_rng(1313)
# name -> (A/B element bits, C/D kind, A/B dwords per lane)
VARIANTS = {
    "v_wmma_f32_16x16x16_f16": ("f16", "f32"),
    "v_wmma_f32_16x16x16_bf16": ("bf16", "f32"),
    "v_wmma_f16_16x16x16_f16": ("f16", "f16"),
    "v_wmma_bf16_16x16x16_bf16": ("bf16", "bf16"),
    "v_wmma_i32_16x16x16_iu8": ("iu8", "i32"),
    "v_wmma_i32_16x16x16_iu4": ("iu4", "i32"),
}
BITS = {"f16": 16, "bf16": 16, "iu8": 8, "iu4": 4}


def element_bits(x: np.ndarray, kind: str) -> np.ndarray:
    """Exact small values -> raw element bits (uint32)."""
    if kind == "f16":
        return x.astype(np.float16).view(np.uint16).astype(np.uint32)
    if kind == "bf16":          # bf16 = high half of the f32 (exact for small integers)
        return x.astype(np.float32).view(np.uint32) >> np.uint32(16)
    if kind in ("f32", "i32"):
        return x.astype(np.float32).view(np.uint32) if kind == "f32" else x.astype(np.int64).astype(np.uint32)
    return (x.astype(np.int64) & ((1 << BITS[kind]) - 1)).astype(np.uint32)


def value_of(bits: np.ndarray, kind: str) -> np.ndarray:
    if kind == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if kind == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if kind == "f32":
        return bits.view(np.float32).astype(np.float64)
    return bits.view(np.int32).astype(np.float64)


def pack(elements: np.ndarray, bits: int) -> np.ndarray:
    """(16, 16) elements of bits each -> (16, 16 * bits / 32) dwords, element 0 lowest."""
    per = 32 // bits
    e = elements.astype(np.uint64).reshape(16, -1, per)
    return (e << (np.arange(per, dtype=np.uint64) * np.uint64(bits))).sum(-1).astype(np.uint32)


def cd_layout(lanes: int):
    v = np.arange(256 // lanes)[None, :]
    lane = np.arange(lanes)[:, None]
    return (lanes // 16) * v + lane // 16, np.broadcast_to(lane % 16, (lanes, 256 // lanes))


def run_wmma(name: str, lanes: int, a, b, c_regs: np.ndarray | None, c_text: str = "", opsel: str = ""):
    """Registers: A from v[0:], B from v[8:], C/D v[16:] (lane-major dwords in memory)."""
    ab, cd = VARIANTS[name]
    ab_dwords = 16 * BITS[ab] // 32
    a_regs = np.tile(pack(element_bits(a, ab), BITS[ab]), (lanes // 16, 1))       # replicated per 16 lanes
    b_regs = np.tile(pack(element_bits(b.T, ab), BITS[ab]), (lanes // 16, 1))
    n = 256 // lanes
    d_init = np.zeros((lanes, n), np.uint32) if c_regs is None else c_regs
    rng_regs = lambda base, k: f"v[{base}:{base + k - 1}]"
    lines = [loads("a", "b", "d"), "v_mov_b32 v42, v0"]          # v0 is loaded over
    for base, count, buf in ((0, ab_dwords, 4), (8, ab_dwords, 6), (16, n, 8)):
        for k in range(count):      # lane-major: dword k of lane l at (l * count + k) * 4
            lines.append(f"v_mul_u32_u24 v41, v42, {count * 4}\nv_add_nc_u32 v41, {k * 4}, v41\n"
                         f"global_load_b32 v{base + k}, v41, s[{buf}:{buf + 1}]")
    lines.append("s_waitcnt vmcnt(0)")
    c_operand = c_text or rng_regs(16, n)
    lines.append(f"{name} {rng_regs(16, n)}, {rng_regs(0, ab_dwords)}, {rng_regs(8, ab_dwords)}, {c_operand} {opsel}")
    for k in range(n):
        lines.append(f"v_mul_u32_u24 v41, v42, {n * 4}\nv_add_nc_u32 v41, {k * 4}, v41\n"
                     f"global_store_b32 v41, v{16 + k}, s[8:9]")
    lines.append("s_endpgm")
    out, _ = launch("\n".join(lines), {"a": a_regs.reshape(-1), "b": b_regs.reshape(-1), "d": d_init.reshape(-1).copy()},
                    block=(lanes, 1, 1), wave=lanes, vgprs=48)
    return out["d"].reshape(lanes, n)


def small(shape, kind, lo=-3, hi=4):
    if kind == "iu4":
        lo, hi = -8, 8
    return rng.integers(lo, hi, shape)


@pytest.mark.parametrize("lanes", [32, 64])
@pytest.mark.parametrize("name", list(VARIANTS))
def test_wmma_matches_numpy_matmul(name, lanes):
    ab, cd = VARIANTS[name]
    a, b = small((16, 16), ab), small((16, 16), ab)
    if ab.startswith("iu"):         # NEG bits 0/1 mean signed; without them the bits read unsigned
        a, b = a & ((1 << BITS[ab]) - 1), b & ((1 << BITS[ab]) - 1)
    c = small((16, 16), cd, -50, 50)
    rows, cols = cd_layout(lanes)
    c_bits = element_bits(c[rows, cols], cd)
    halves = (0, 1) if cd in ("f16", "bf16") else (0,)
    for hi in halves:
        other = np.uint32(0xABCD)
        c_regs = c_bits if not halves[1:] else (c_bits << np.uint32(16 * hi)) | (other << np.uint32(16 * (1 - hi)))
        got = run_wmma(name, lanes, a, b, c_regs, opsel="op_sel:[0,0,1]" if hi else "")
        want = (a.astype(np.float64) @ b.astype(np.float64) + c)[rows, cols]
        result = (got >> np.uint32(16 * hi)) & np.uint32(0xFFFF) if halves[1:] else got
        assert (value_of(result, cd) == want).all(), (name, lanes, hi)
        if halves[1:]:
            assert ((got >> np.uint32(16 * (1 - hi))) & np.uint32(0xFFFF) == other).all(), "the other half is kept"


@pytest.mark.parametrize("lanes", [32, 64])
@pytest.mark.parametrize("name", ["v_wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu4"])
@pytest.mark.parametrize("neg", [(1, 0), (0, 1), (1, 1)])
def test_wmma_iu_neg_bits_say_signed(name, neg, lanes):
    """NEG[0]/NEG[1] say A/B are signed ("IU8/IU4 NEG[0] indicates if the A-matrix is signed,
    NEG[1] ... the B-matrix", RDNA4 ISA 7.12 p. 99; RDNA3 7.9): the same bits read as signed
    elements where the bit is set, unsigned where not (numpy on the two readings)."""
    ab, _ = VARIANTS[name]
    width = BITS[ab]
    a, b = small((16, 16), ab), small((16, 16), ab)
    a[0, 0], b[0, 0] = -1, -(1 << (width - 1))     # negative values in both: each bit matters
    unsigned = lambda x: x & ((1 << width) - 1)    # noqa: E731
    want_a = a if neg[0] else unsigned(a)
    want_b = b if neg[1] else unsigned(b)
    c = small((16, 16), "i32", -50, 50)
    rows, cols = cd_layout(lanes)
    got = run_wmma(name, lanes, a, b, element_bits(c[rows, cols], "i32"),
                   opsel=f"neg_lo:[{neg[0]},{neg[1]},0]")
    want = (want_a.astype(np.int64) @ want_b.astype(np.int64) + c)[rows, cols]
    assert (value_of(got, "i32") == want).all(), (name, neg, lanes)


@pytest.mark.parametrize("lanes", [32, 64])
@pytest.mark.parametrize("name, constant, value", [
    ("v_wmma_f32_16x16x16_f16", "1.0", 1.0), ("v_wmma_f16_16x16x16_f16", "-2.0", -2.0),
    ("v_wmma_bf16_16x16x16_bf16", "0.5", 0.5), ("v_wmma_i32_16x16x16_iu8", "-7", -7)])
def test_wmma_c_from_an_inline_constant(name, constant, value, lanes):
    ab, cd = VARIANTS[name]
    a, b = small((16, 16), ab), small((16, 16), ab)
    if ab.startswith("iu"):
        a, b = a & 0xFF, b & 0xFF
    rows, cols = cd_layout(lanes)
    got = run_wmma(name, lanes, a, b, None, c_text=constant)
    want = (a.astype(np.float64) @ b.astype(np.float64) + value)[rows, cols]
    if cd in ("f16", "bf16"):
        assert (value_of(got & np.uint32(0xFFFF), cd) == want).all()
    else:
        assert (value_of(got, cd) == want).all()


_CLANG_KERNEL = r"""
typedef half v16h __attribute__((ext_vector_type(16)));
typedef half v8h __attribute__((ext_vector_type(8)));
__kernel void wmma_f16(__global const half *A, __global const half *B, __global half *C) {
  uint lane = __builtin_amdgcn_workitem_id_x();
  uint r = lane % 16, h = lane / 16;
  v16h a, b;
  for (uint k = 0; k < 16; ++k) { a[k] = A[r * 16 + k]; b[k] = B[k * 16 + r]; }
#if WAVE == 64
  v8h c;
  for (uint e = 0; e < 4; ++e) c[2 * e + HI] = C[(4 * e + h) * 16 + r];
  c = __builtin_amdgcn_wmma_f16_16x16x16_f16_w64(a, b, c, HI);
  for (uint e = 0; e < 4; ++e) C[(4 * e + h) * 16 + r] = c[2 * e + HI];
#else
  v16h c;
  for (uint e = 0; e < 8; ++e) c[2 * e + HI] = C[(2 * e + h) * 16 + r];
  c = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(a, b, c, HI);
  for (uint e = 0; e < 8; ++e) C[(2 * e + h) * 16 + r] = c[2 * e + HI];
#endif
}
"""


@pytest.mark.parametrize("wave, hi", [(32, 0), (32, 1), (64, 0), (64, 1)])
def test_clang_wmma_f16_accumulator(tmp_path, wave, hi):
    """clang-22's own code for the f16-accumulator builtin (the half chosen by its op_sel
    argument) on Device("emu") against numpy."""
    clang, lld = tool("clang"), tool("ld.lld")
    src = tmp_path / "k.cl"
    src.write_text("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + _CLANG_KERNEL)
    obj, co = tmp_path / "k.o", tmp_path / "k.hsaco"
    flags = ["-mwavefrontsize64"] if wave == 64 else []
    for argv in ([clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1100", *flags,
                  "-nogpulib", "-O2", f"-DWAVE={wave}", f"-DHI={hi}", "-c", str(src), "-o", str(obj)],
                 [lld, "-shared", str(obj), "-o", str(co)]):
        subprocess.run(argv, check=True, capture_output=True)
    from runtime import Device
    dev = Device("emu", arch="gfx1100")
    prg = dev.load(co.read_bytes())
    a, b, c = (small((16, 16), "f16").astype(np.float16) for _ in range(3))
    bufs = [dev.alloc(x.nbytes).copyin(x) for x in (a, b, c)]
    prg.launch("wmma_f16", grid=(1, 1, 1), block=(wave, 1, 1), args=bufs)
    got = bufs[2].copyout(np.float16).reshape(16, 16)
    assert (got.astype(np.float64) == a.astype(np.float64) @ b.astype(np.float64) + c).all()


# RDNA4's striped layout implements the 16-bit A/B forms only (emu/handwritten/wmma_rdna4.py)
RDNA4_VARIANTS = {n: t for n, t in VARIANTS.items() if t[0] in ("f16", "bf16")}


@pytest.mark.parametrize("arch, table", [("gfx1100", VARIANTS), ("gfx1151", VARIANTS), ("gfx1201", RDNA4_VARIANTS)])
def test_wmma_types_are_read_from_the_code(arch, table):
    """The WMMA semantics keep no table of their own: each computes in the element types of the
    definition's code (isa.effects' shapes, `S0.iu8(16x16)`). The instructions given a hand-written
    WMMA semantic, and the (A/B, C/D) types it computes in, are the ones this file's table says
    (the manual's instruction list, 7.9 / 7.12); RDNA4's other forms (8/4-bit, FP8/BF8, 16x16x32,
    SWMMAC) get none."""
    import isa
    from dsl.syntax import WMMA_REPLICATED
    from emu import handwritten
    from emu.handwritten import wmma, wmma_rdna4
    from isa.effects import effects
    spec = isa.load(arch)
    layout = wmma if spec.traits.family in WMMA_REPLICATED else wmma_rdna4
    got, matrices = {}, set()
    for d in spec.instructions:
        if not effects(d.pcode).matrix:
            continue
        matrices.add(d.name)
        s = handwritten.semantic(d.name, False, spec, d)
        if s is not None:
            got[d.name.lower()] = layout.variant(effects(d.pcode).shapes)
            assert s.reads["S2"].type == got[d.name.lower()][1], d.name
    assert got == table
    assert len(matrices) > len(got) if arch == "gfx1201" else len(matrices) == len(got)

"""The DSL for CDNA3 (gfx942) and CDNA4 (gfx950): dsl.cdna3 / dsl.cdna4 functions write LLVM's gfx9
text and encode it to LLVM 22's bytes; virtual AGPRs are placed by the allocator in CDNA's
unified VGPR/AGPR file; an MFMA GEMM tile written with virtual registers assembles (llvm-mc-22)
to the bytes the DSL gives, its code object's descriptor reads back in llvm-objdump-22 with the
register counts its disassembly shows, and it runs on Device("emu") against numpy (also with
VGPRs spilled to AGPRs)."""
from __future__ import annotations

import collections
import re

import numpy as np
import pytest

import dsl.cdna3 as c3
import dsl.cdna4 as c4
from dsl.operands import OperandError
from .dsl_from_text import as_call
from .llvm_tools import mc_encodings, objdump_symbols, readelf_metadata, run, tool
from .test_dsl_llvm_corpus import corpus

NAMESPACES = {"gfx942": vars(c3), "gfx950": vars(c4)}


def dsl_agreement(target: str):
    """Every row of LLVM 22's corpus that LLVM's assembler re-encodes, written as a DSL call
    (tests/dsl_from_text.py): the instruction's bytes against LLVM's, printed per family."""
    ns = NAMESPACES[target]
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    with_text = 0
    for fam, _hx, text, reenc in corpus(target):
        if reenc == "-":
            continue
        total[fam] += 1
        try:
            fn, ops, mods, texts = as_call(ns, text)
            with_text += bool(texts)
            out = fn(*ops, **mods).data.hex()
        except (OperandError, KeyError) as e:
            out = f"{type(e).__name__}: {e}"
        if out == reenc:
            ok[fam] += 1
        else:
            bad[fam].append(f"{text!r}: want {reenc} got {out}")
    n_ok, n = sum(ok.values()), sum(total.values())
    print(f"\nDSL {target}: {n_ok}/{n} = {100 * n_ok / n:.3f}% of the rows LLVM re-encodes give LLVM's bytes "
          f"({with_text} rows pass some operand as text: hwreg(...), sext(...), swizzle(...), ...)")
    for f in sorted(total):
        print(f"  {f:12s} {ok[f]:5d}/{total[f]:5d}")
    for f, rows in sorted(bad.items()):
        for row in rows[:3]:
            print(f"  mismatch {f}: {row}")
    return n_ok, n, bad


def test_gfx942_dsl_bytes_match_llvm_corpus():
    n_ok, n, bad = dsl_agreement("gfx942")
    assert n > 30000 and n_ok == n


def test_gfx950_dsl_bytes_match_llvm_corpus():
    n_ok, n, bad = dsl_agreement("gfx950")
    # the one row left: an odd-aligned 3-dword tuple LLVM 22 accepts for ds_read_b96_tr_b6 (gfx950's
    # transposing loads), which the gfx9 assembler refuses as it refuses other odd vector tuples
    assert n > 24000 and n_ok >= n - 1
    assert all("ds_read_b96_tr_b6" in row for rows in bad.values() for row in rows)


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_operand_names_follow_llvm_text(target):
    """The allocator's roles come from operands_gfx9.operand_names by text position: it names as many
    operands as LLVM's text of each corpus row lists (a SOPP's optional immediate aside)."""
    import isa
    from dsl.decode import decode_one
    from dsl.operands_gfx9 import operand_names
    spec, ns = isa.load(target), NAMESPACES[target]
    bad = []
    for fam, _hx, text, reenc in corpus(target):
        if reenc == "-" or fam == "SOPP":
            continue
        _fn, ops, _mods, _texts = as_call(ns, text)
        names = operand_names(spec, decode_one(spec, bytes.fromhex(reenc)))
        if len(names) != len(ops):
            bad.append((text, names))
    assert bad == []


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_dsl_written_instructions_match_llvm_mc(target):
    """Instructions written in the DSL (MFMA modifiers, AGPR operands, SDWA, DPP, GFX9 VOP3
    modifiers, memory with sc0/sc1/nt) give llvm-mc-22's bytes for the line they print as."""
    ns = NAMESPACES[target]
    g = type("NS", (), ns)
    v, s, a = g.v, g.s, g.a
    insts = [
        g.v_mfma_f32_32x32x8_f16(a[0:15], v[0:1], v[2:3], a[0:15], cbsz=1, abid=1, blgp=2),
        g.v_mfma_f32_16x16x16_f16(v[4:7], a[0:1], a[2:3], 0),
        g.v_mfma_f32_4x4x1_16b_f32(a[0:3], v[1], v[2], a[0:3], blgp=7),
        g.v_mfma_f64_16x16x4_f64(a[0:7], v[0:1], v[2:3], a[0:7], neg=[1, 0, 1]),
        g.v_mfma_i32_16x16x32_i8(a[16:19], v[0:1], v[2:3], a[16:19], cbsz=2, abid=3),
        g.v_accvgpr_write_b32(a[7], v[3]),
        g.v_accvgpr_write_b32(a[8], 5),
        g.v_accvgpr_read_b32(v[9], a[250]),
        g.v_accvgpr_mov_b32(a[1], a[2]),
        g.global_load_dwordx4(a[4:7], v[0:1], g.off, offset=-16, sc0=True, nt=True),
        g.global_store_dword(v[2], a[3], s[4:5], offset=64, sc1=True),
        g.buffer_load_dword(a[1], v[2], s[8:11], 0, offen=True, offset=12),
        g.ds_read_b64(a[2:3], v[1], offset=8),
        g.flat_atomic_add(v[1], v[2:3], v[4], sc0=True),
        g.v_add_f32_sdwa(v[1], -v[2], abs(v[3]), dst_sel="BYTE_1", dst_unused="UNUSED_PRESERVE", src0_sel="WORD_1"),
        g.v_mov_b32_dpp(v[5], v[6], quad_perm=[1, 0, 3, 2], row_mask=0xa, bound_ctrl=True),
        g.v_add_u32_dpp(v[1], v[2], v[3], row_shr=3),
        g.v_fma_f32(v[1], -v[2], abs(v[3]), s[4], clamp=True, mul=2),
        g.v_add_co_u32(v[1], s[2:3], v[4], v[5]),
        g.v_cndmask_b32(v[1], 0, v[2], g.vcc),
        g.v_pk_fma_f16(v[1], v[2], v[3], v[4], op_sel=[1, 0, 1], op_sel_hi=[0, 1, 1]),
        g.v_lshl_add_u32(v[0], v[1], 2, v[0]),
        g.s_load_dwordx4(s[4:7], s[0:1], 0x10),
        g.s_waitcnt(vmcnt=3, lgkmcnt=0),
        g.s_waitcnt(vmcnt=40),
        g.s_getreg_b32(s[3], "hwreg(HW_REG_MODE, 0, 4)"),
        g.s_nop(7),
    ]
    lines = [str(i) for i in insts]
    want = mc_encodings(lines, target)
    got = [i.data for i in insts]
    assert [(ln, w and w.hex()) for ln, w in zip(lines, want)] == [(ln, x.hex()) for ln, x in zip(lines, got)]


def test_dsl_refuses_what_gfx9_lacks():
    with pytest.raises(OperandError, match="16-bit register halves"):
        c3.v_add_f16(c3.v[1].l, c3.v[2], c3.v[3])
    with pytest.raises(OperandError, match=r"v_mfma_f32_32x32x8_f16: .*64-bit aligned"):
        c3.v_mfma_f32_32x32x8_f16(c3.a[1:16], c3.v[0:1], c3.v[2:3], c3.a[1:16])
    with pytest.raises(OperandError, match=r"v_add_f32_e32: .*AGPR"):
        c3.v_add_f32_e32(c3.v[1], c3.a[2], c3.v[3])
    from dsl.rdna3 import Kernel
    with pytest.raises(OperandError, match="rdna3 has no AGPRs"):
        Kernel("gfx1100").areg(4)
    k = c3.Kernel("gfx942")
    x, y = k.sreg(name="x"), k.sreg(name="y")
    c3.v_add_f32_e64(c3.v[1], x, x)                  # one scalar value twice: one constant bus read
    with pytest.raises(OperandError, match="v_add_f32_e64: .*constant bus"):
        c3.v_add_f32_e64(c3.v[1], x, y)


# ---------------------------------------------------------------- allocation: AGPRs and the unified file

def gemm_tile(K: int = 32, arch: str = "gfx942"):
    """C (32x32 f32, row-major) = A (32xK f16, row-major) @ B, with B given as its transpose Bt
    (32xK f16, row-major): K/8 steps of v_mfma_f32_32x32x8_f16 into a virtual AGPR accumulator.
    Lane l holds A[l % 32][4 * (l // 32) + 0..3] and Bt[l % 32][same] per step, and
    D[8 * (r // 4) + 4 * (l // 32) + r % 4][l % 32] in accumulator register r (CDNA3 ISA 7.1 layouts)."""
    g = type("NS", (), NAMESPACES[arch])
    v, s = g.v, g.s
    k = g.Kernel(arch, name="mfma_gemm")
    pab, pc = k.sreg(4, name="pab"), k.sreg(2, name="pc")
    row, half, t, off = k.vreg(name="row"), k.vreg(name="half"), k.vreg(name="t"), k.vreg(name="off")
    xa, xb, acc, n = k.vreg(2, name="xa"), k.vreg(2, name="xb"), k.areg(16, name="acc"), k.sreg(name="n")
    k += g.s_load_dwordx4(pab, s[0:1], 0)
    k += g.s_load_dwordx2(pc, s[0:1], 16)
    k += g.v_and_b32(row, 31, v[0])
    k += g.v_lshrrev_b32(half, 5, v[0])
    k += g.v_lshlrev_b32(t, 3, half)
    k += g.v_mad_u32_u24(off, row, 2 * K, t)          # byte offset of this lane's 4 halves of step 0
    for r in range(16):
        k += g.v_accvgpr_write_b32(acc[r], 0)
    k += g.s_mov_b32(n, K // 8)
    k += g.s_waitcnt(lgkmcnt=0)
    k.label("loop")
    k += g.global_load_dwordx2(xa, off, pab[0:1])
    k += g.global_load_dwordx2(xb, off, pab[2:3])
    k += g.s_waitcnt(vmcnt=0)
    k += g.v_mfma_f32_32x32x8_f16(acc, xa, xb, acc)
    k += g.s_add_u32(pab[0], pab[0], 16)              # both pointers 8 halves on
    k += g.s_addc_u32(pab[1], pab[1], 0)
    k += g.s_add_u32(pab[2], pab[2], 16)
    k += g.s_addc_u32(pab[3], pab[3], 0)
    k += g.s_sub_u32(n, n, 1)
    k += g.s_cmp_lg_u32(n, 0)
    k += g.s_cbranch_scc1("loop")
    for _ in range(3):                                # the MFMA's result before v_accvgpr_read reads it
        k += g.s_nop(7)
    k += g.v_lshlrev_b32(t, 9, half)                  # row 4 * (l // 32): 512 bytes per 4 rows
    k += g.v_lshl_add_u32(off, row, 2, t)
    val = k.vreg(name="val")
    for r in range(16):
        k += g.v_accvgpr_read_b32(val, acc[r])
        k += g.global_store_dword(off, val, pc, offset=(8 * (r // 4) + r % 4) * 128)
    k += g.s_endpgm()
    return k


def _top(text: str, cls: str) -> int:
    top = 0
    for one, lo, hi in re.findall(rf"\b{cls}(?:(\d+)\b|\[(\d+):(\d+)\])", text):
        top = max(top, int(one or hi) + 1)
    return top


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_mfma_kernel_with_virtual_agprs_assembles_like_llvm_mc(arch, tmp_path):
    """The allocated GEMM tile prints as text llvm-mc-22 assembles to the DSL's bytes; the AGPR
    accumulator is placed in AGPRs, its tuple even-aligned, and the register figures match the
    physical text."""
    k = gemm_tile(arch=arch)
    text = str(k.physical())
    assert re.search(r"v_mfma_f32_32x32x8_f16 a\[(\d+):\d+\], v\[\d+:\d+\], v\[\d+:\d+\], a\[\1:\d+\]", text)
    src = tmp_path / "k.s"
    src.write_text(text + "\n")
    run(tool("llvm-mc"), "-triple=amdgcn-amd-amdhsa", f"-mcpu={arch}", "-filetype=obj", "-o", str(tmp_path / "k.o"),
        str(src))
    run(tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(tmp_path / "k.o"), str(tmp_path / "k.bin"))
    assert k.assemble() == (tmp_path / "k.bin").read_bytes()
    st = k.stats()
    assert (st["vgprs"], st["agprs"], st["sgprs"]) == (_top(text, "v"), _top(text, "a"), _top(text, "s"))
    assert st["agprs"] == 16 and st["peak_agprs"] == 16
    # CDNA3 ISA 3.6.4: AGPRs follow the VGPRs (accum_offset, a multiple of 4); 512 registers per SIMD
    # lane, allocated in groups of 8; at most 8 waves per SIMD on gfx90a and later
    assert st["accum_offset"] == max(4, -(-st["vgprs"] // 4) * 4)
    assert st["unified_vgprs"] == st["accum_offset"] + 16
    assert st["waves_per_simd"] == min(8, 512 // (-(-st["unified_vgprs"] // 8) * 8))


def test_cdna_register_limits():
    import regalloc
    lim = regalloc.limits("gfx942")
    assert (lim.vgprs, lim.agprs, lim.vgpr_file, lim.vgpr_granule, lim.max_waves_per_simd) == (256, 256, 512, 8, 8)
    assert lim.alignment("v", 2) == lim.alignment("a", 4) == 2 and lim.alignment("a", 1) == 1
    # unified file: 10 VGPRs -> AGPRs from 12; 12 + 116 = 128 -> 4 waves; 256 + 256 -> 1 wave
    assert lim.accum_offset(10) == 12 and lim.unified_vgprs(10, 116) == 128 and lim.waves_per_simd(10, 116) == 4
    assert lim.waves_per_simd(256, 256) == 1 and lim.waves_per_simd(8) == 8 and lim.accum_offset(0) == 4
    assert regalloc.limits("gfx1100").agprs == 0 and regalloc.limits("gfx1100").alignment("v", 4) == 1


def test_agpr_values_share_registers_by_liveness():
    """AGPR values take the same registers when their lives do not meet; an MFMA's D is its C
    or does not overlap it (LLVM refuses a partial overlap)."""
    g = type("NS", (), NAMESPACES["gfx942"])
    v = g.v
    k = g.Kernel("gfx942")
    x, y, z = k.areg(4, name="x"), k.areg(4, name="y"), k.areg(4, name="z")
    out = k.vreg(name="out")
    k += g.v_mfma_f32_4x4x1_16b_f32(x, v[1], v[2], 0)
    k += g.v_mfma_f32_4x4x1_16b_f32(y, v[1], v[2], x)       # x dies here, but y must not overlap it
    k += g.v_mfma_f32_4x4x1_16b_f32(z, v[1], v[2], 0)       # x is dead: z may take its registers
    k += g.v_mfma_f32_4x4x1_16b_f32(z, v[1], v[2], z)       # C = D: the same registers
    k += g.v_accvgpr_read_b32(out, y[3])
    k += g.v_accvgpr_read_b32(v[3], z[0])
    k += g.v_add_f32(v[3], out, v[3])
    k += g.s_endpgm()
    p = str(k.physical())
    regs = [int(r) for r in re.findall(r"v_mfma_f32_4x4x1_16b_f32 a\[(\d+):\d+\]", p)]
    assert abs(regs[1] - regs[0]) >= 4 and regs[2] == regs[3] == regs[0] and k.agprs == 8, p
    assert k.stats()["peak_agprs"] == 8


def test_code_object_descriptor_counts_agprs(tmp_path):
    """from_dsl_kernel on gfx942: llvm-objdump-22 decodes the descriptor's accum_offset and VGPR count
    as the unified file the code's disassembly needs; llvm-readelf-22's metadata agrees."""
    from runtime import KernelArg
    from runtime.writer import from_dsl_kernel
    k = gemm_tile()
    args = [KernelArg(0, 8, "global_buffer", "a", "global"), KernelArg(8, 8, "global_buffer", "bt", "global"),
            KernelArg(16, 8, "global_buffer", "c", "global")]
    path = tmp_path / "k.hsaco"
    path.write_bytes(from_dsl_kernel(k, "mfma_gemm", args, user_sgpr_kernarg_segment_ptr=1))
    syms = objdump_symbols(path, ["mfma_gemm", "mfma_gemm.kd"])
    code = "\n".join(syms["mfma_gemm"]["text"])
    vgprs, agprs = _top(code, "v"), _top(code, "a")
    accum = -(-vgprs // 4) * 4
    d = syms["mfma_gemm.kd"]["directives"]
    assert d[".amdhsa_accum_offset"] == accum
    # the descriptor holds the count in granules of 8 registers: objdump prints the granule's top
    assert d[".amdhsa_next_free_vgpr"] == -(-(accum + agprs) // 8) * 8
    meta = readelf_metadata(path)["amdhsa.kernels"][0]
    assert (meta[".vgpr_count"], meta[".agpr_count"]) == (accum, agprs)


def test_vgprs_spill_to_agprs_and_assemble_like_llvm_mc(tmp_path):
    """With 4 VGPRs allowed, the GEMM tile keeps some VGPR values in AGPRs (v_accvgpr_write after a
    write, v_accvgpr_read before a read), no scratch; the text assembles with llvm-mc-22 to the
    DSL's bytes."""
    k = gemm_tile()
    k.max_vgprs = 4
    text = str(k.physical())
    st = k.stats()
    assert st["vgprs"] <= 4 and st["spilled_to_agprs"] > 0 and st["scratch_bytes"] == 0
    assert st["agprs"] == _top(text, "a") == 16 + st["spilled_to_agprs"] and _top(text, "v") <= 4
    assert "scratch_" not in text and "v_accvgpr_write_b32" in text
    src = tmp_path / "k.s"
    src.write_text(text + "\n")
    run(tool("llvm-mc"), "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", "-o", str(tmp_path / "k.o"),
        str(src))
    run(tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(tmp_path / "k.o"), str(tmp_path / "k.bin"))
    assert k.assemble() == (tmp_path / "k.bin").read_bytes()


@pytest.mark.parametrize("arch, max_vgprs", [("gfx942", None), ("gfx950", None), ("gfx942", 4)])
def test_mfma_gemm_tile_runs_on_emulator(arch, max_vgprs):
    """The allocated GEMM tile (K = 32: four MFMA steps around a loop) on Device("emu") against
    numpy's product of the same f16 inputs; also with VGPRs spilled to AGPRs (max_vgprs=4)."""
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel
    dev = Device("emu", arch=arch)
    K = 32
    k = gemm_tile(K, arch)
    k.max_vgprs = max_vgprs
    args = [KernelArg(0, 8, "global_buffer", "a", "global"), KernelArg(8, 8, "global_buffer", "bt", "global"),
            KernelArg(16, 8, "global_buffer", "c", "global")]
    hsaco = from_dsl_kernel(k, "mfma_gemm", args, user_sgpr_kernarg_segment_ptr=1)
    rng = np.random.default_rng(20)
    A = rng.uniform(-2, 2, (32, K)).astype(np.float16)
    B = rng.uniform(-2, 2, (K, 32)).astype(np.float16)
    ba = dev.alloc(A.nbytes, "a").copyin(A)
    bb = dev.alloc(B.nbytes, "bt").copyin(np.ascontiguousarray(B.T))
    bc = dev.alloc(32 * 32 * 4, "c").copyin(np.zeros(32 * 32, np.float32))
    dev.load(hsaco).launch("mfma_gemm", grid=(1, 1, 1), block=(64, 1, 1), args=[ba, bb, bc])
    want = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(bc.copyout(np.float32).reshape(32, 32), want, rtol=1e-5, atol=1e-4)


def test_gfx9_vmcnt_counts_both_fields():
    """gfx9's vmcnt is split over SIMM16[3:0] and [15:14] (CDNA3 ISA, S_WAITCNT): vmcnt(20) with
    five loads issued after a load does not guarantee it (20 > 5), so that load's registers stay
    taken; vmcnt(5) does."""
    g = type("NS", (), NAMESPACES["gfx942"])
    v, s = g.v, g.s

    def kernel(count):
        k = g.Kernel("gfx942")
        x = k.vreg(name="x")
        later = [k.vreg(name=f"l{i}") for i in range(5)]
        k += g.global_load_dword(x, v[0], s[0:1])                 # never read: only its arrival matters
        for t in later:
            k += g.global_load_dword(t, v[0], s[0:1])
        k += g.s_waitcnt(vmcnt=count)
        y = k.vreg(name="y")
        k += g.v_mov_b32(y, 1.0)
        k += g.s_waitcnt(vmcnt=0)
        for t in later:
            k += g.v_add_f32(y, y, t)
        k += g.global_store_dword(v[0], y, s[0:1])
        k += g.s_endpgm()
        p = str(k.physical()).splitlines()
        return p[0].split()[1].rstrip(","), p[7].split()[1].rstrip(",")   # x's and y's registers

    x_reg, y_reg = kernel(20)
    assert x_reg != y_reg
    x_reg, y_reg = kernel(5)
    assert x_reg == y_reg


PK_MOV = ["v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]", "v_pk_mov_b32 v[0:1], s[6:7], s[6:7] op_sel:[0,1]",
          "v_pk_mov_b32 v[0:1], 1.0, v[4:5]", "v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]",
          "v_pk_mov_b32 v0, v2, v4 op_sel:[0,1]", "v_pk_mov_b32 v[0:1], v2, v4", "v_pk_mov_b32 v[1:2], v[2:3], v[4:5]",
          "v_pk_mov_b32 a[0:1], v[2:3], v[4:5]"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_pk_mov_b32_moves_a_64_bit_pair(arch):
    """V_PK_MOV_B32 (the manual: "the source operands are treated as 64 bit"; its code writes
    D0.u32[31 : 0] and D0.u32[63 : 32]): every operand a 64-bit pair, as LLVM 22 takes it (its
    manual's own example `v_pk_mov_b32 v0, v2, v4 op_sel:[0,1]` is refused); the destination is
    written whole, not read (isa.effects: the two dword ranges cover it), so the allocator gives it
    a fresh pair and the old value of D0 changes nothing on the emulator."""
    import dsl
    from tests.test_emu_cdna import run
    want = mc_encodings(PK_MOV, arch)
    assert [w is None for w in want] == [False] * 4 + [True] * 4
    got = []
    for line in PK_MOV:
        try:
            got.append(dsl.assemble(line, arch))
        except dsl.AsmError:
            got.append(None)
    assert got == want
    ns = NAMESPACES[arch]
    fx = ns["v_pk_mov_b32"](ns["v"][0:1], ns["v"][2:3], ns["v"][4:5]).instr.effects
    assert fx.full == {"D0"} and fx.reads == {"S0", "S1"}
    lanes = np.arange(64, dtype=np.uint32)
    for old in (0, 0xDEADBEEF):
        out = run(f"""
        v_add_u32 v2, 100, v0
        v_add_u32 v3, 200, v0
        v_add_u32 v4, 300, v0
        v_add_u32 v5, 400, v0
        v_mov_b32 v6, {old:#x}
        v_mov_b32 v7, {old:#x}
        v_pk_mov_b32 v[6:7], v[2:3], v[4:5] op_sel:[1,0]
        v_lshlrev_b32 v1, 3, v0
        global_store_dwordx2 v1, v[6:7], s[4:5]
        """, 2, arch=arch)
        assert (out[:, 0] == lanes + 200).all() and (out[:, 1] == lanes + 300).all()     # S0's high, S1's low dword


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_cmpx_e64_takes_its_sdst_as_llvm(arch):
    """CDNA's V_CMPX writes EXEC and D0 (the manual's code: EXEC.u64[laneId] = D0.u64[laneId] = ...;
    "D0 = VCC in VOPC encoding"), so its VOP3A form names the SDST it writes: every v_cmpx of the
    target, written `_e64 s[10:11], v1, v2` (and with vcc, exec), assembles to LLVM 22's bytes from
    text and from the DSL, and the model says both EXEC and D0 are written whole."""
    import isa
    import dsl
    ns = NAMESPACES[arch]
    v, s = ns["v"], ns["s"]
    spec = isa.load(arch)
    from dsl.signature import valu_signature
    defs = sorted((d for d in spec.instructions if d.name.startswith("V_CMPX_") and d.format == "VOPC"),
                  key=lambda d: d.name)
    names = [d.name.lower() for d in defs]
    # each source as wide as the signature says (v_cmpx_class_f64: a pair and a 32-bit mask)
    regs = {n: [(f"v[{2 + 2 * i}:{3 + 2 * i}]", v[2 + 2 * i:3 + 2 * i]) if o.dwords == 2 else (f"v{1 + i}", v[1 + i])
                for i, o in enumerate(valu_signature(d).srcs)] for n, d in zip(names, defs)}
    lines = []
    for n in names:
        a, b = (t for t, _ in regs[n])
        lines += [f"{n}_e64 s[10:11], {a}, {b}", f"{n}_e64 vcc, {a}, {b}"]
    lines.append(f"{names[0]}_e64 exec, v1, v2")
    want = mc_encodings(lines, arch)
    assert len(names) > 80 and all(w is not None for w in want), [x for x, w in zip(lines, want) if w is None]
    assert [dsl.assemble(x, arch) for x in lines] == want
    for n, w in zip(names, want[0::2]):
        inst = ns[f"{n}_e64"](s[10:11], *(r for _, r in regs[n]))
        assert bytes(inst) == w, n
        fx = inst.instr.effects
        assert {"D0", "EXEC"} <= fx.full, (n, fx.full)

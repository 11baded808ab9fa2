"""Register allocation through the DSL: every allocated kernel is checked by the
independent checker in regalloc_check.py (physical-register dataflow), and its register
count compared with an independently computed max-live lower bound."""
from __future__ import annotations

import shutil
import subprocess

import pytest

import regalloc
from dsl.operands import OperandError
from dsl.rdna3 import *  # noqa: F403
from tests.regalloc_check import lower_bound, verify


def checked(k: Kernel) -> regalloc.Allocation:
    prog = k.program()
    alloc = k.allocate()
    verify(prog, alloc)
    k.assemble()                       # the rewritten instructions encode
    return alloc


def test_straight_line_uses_max_live():
    k = Kernel("gfx1100")
    vals = [k.vreg() for _ in range(8)]
    for i, x in enumerate(vals):
        k += v_mov_b32(x, float(i + 1) if i < 4 else i + 70)
    acc = k.vreg(name="acc")
    k += v_add_f32(acc, vals[0], vals[1])
    for x in vals[2:]:
        k += v_add_f32(acc, acc, x)    # each value dies here, freeing its register
    k += global_store_b32(v[0], acc, s[0:1])
    k += s_endpgm()
    a = checked(k)
    assert a.vgprs == lower_bound(k.program(), "v") == 9      # v0 (work-item id) + 8 values
    assert k.peak_vgprs == 9 and k.waves_per_simd == 16


def test_mixed_physical_and_virtual_keeps_abi_registers():
    k = Kernel("gfx1100")
    t = k.vreg(name="t")
    k += v_mov_b32(t, 1.0)
    k += v_add_f32(t, t, v[0])          # v0 (work-item id) read after t exists: t must avoid v0
    p = k.sreg(2, name="p")
    k += s_load_b64(p, s[0:1], 16)      # s[0:1] dies here; p may reuse it
    k += s_waitcnt(0)
    k += global_store_b32(v[1], t, p)   # v1 physical too
    k += s_endpgm()
    a = checked(k)
    assert a.base[t.vid] not in (0, 1)
    assert a.base[p.vid] % 2 == 0


def test_nested_loops_keep_accumulators_across_iterations():
    k = Kernel("gfx1100")
    acc, inner_acc, i, j = k.vreg(name="acc"), k.vreg(name="iacc"), k.sreg(name="i"), k.sreg(name="j")
    k += v_mov_b32(acc, 0)
    k += s_mov_b32(i, 4)
    k.label("outer")
    k += v_mov_b32(inner_acc, 0)
    k += s_mov_b32(j, 3)
    k.label("inner")
    tmp = k.vreg(name="tmp")
    k += v_cvt_f32_u32(tmp, j)
    k += v_add_f32(inner_acc, inner_acc, tmp)
    k += s_sub_u32(j, j, 1)
    k += s_cmp_lg_u32(j, 0)
    k += s_cbranch_scc1("inner")
    k += v_add_f32(acc, acc, inner_acc)
    k += s_sub_u32(i, i, 1)
    k += s_cmp_lg_u32(i, 0)
    k += s_cbranch_scc1("outer")
    k += global_store_b32(v[0], acc, s[0:1])
    k += s_endpgm()
    a = checked(k)
    # acc is live around both loops, so nothing defined inside may share its register
    assert a.base[acc.vid] not in (a.base[tmp.vid], a.base[inner_acc.vid])
    assert a.vgprs == lower_bound(k.program(), "v")


def test_diamond_merges_one_value_from_both_sides():
    k = Kernel("gfx1100")
    r, left, right = k.vreg(name="r"), k.vreg(name="l"), k.vreg(name="rt")
    k += s_cmp_eq_u32(s[2], 0)
    k += s_cbranch_scc1("else")
    k += v_mov_b32(left, 2.0)
    k += v_mul_f32(r, left, v[0])
    k += s_branch("join")
    k.label("else")
    k += v_mov_b32(right, 4.0)
    k += v_add_f32(r, right, v[0])
    k.label("join")
    k += global_store_b32(v[0], r, s[0:1])
    k += s_endpgm()
    a = checked(k)
    assert a.base[left.vid] == a.base[right.vid] or a.vgprs == lower_bound(k.program(), "v")


def test_tuples_partial_writes_and_sgpr_alignment():
    k = Kernel("gfx1100")
    q = k.vreg(4, name="q")
    for lane in range(4):
        k += v_mov_b32(q[lane], float(lane))    # filled one dword at a time: the rest stays live
    d = k.sreg(4, name="desc")
    k += s_load_b128(d, s[0:1], 0)
    k += s_waitcnt(0)
    pair = k.sreg(2, name="pair")
    k += s_mov_b64(pair, d[2:3])
    x = k.vreg(2, name="x")
    k += v_lshlrev_b64(x, 1, q[1:2])            # a 2-dword slice of the 4-dword tuple
    k += global_store_b128(v[0], q, pair)
    k += global_store_b64(v[0], x, pair)
    k += s_endpgm()
    a = checked(k)
    assert a.base[d.vid] % 4 == 0 and a.base[pair.vid] % 2 == 0
    # q[1:2] as x's source: every dword of q must be distinct registers from x while q lives
    assert not set(range(a.base[x.vid], a.base[x.vid] + 2)) & set(range(a.base[q.vid], a.base[q.vid] + 4))


def test_pair_at_odd_offset_is_even_aligned():
    k = Kernel("gfx1100")
    t = k.sreg(3, name="t")
    k += s_mov_b32(t[0], 1)
    k += s_mov_b64(t[1:2], 0)                   # a 64-bit pair starting at dword 1
    k += s_add_u32(s[4], t[0], t[1])
    k += s_endpgm()
    a = checked(k)
    assert a.register(t.vid, 1) % 2 == 0        # ISA 3.3.1.3: 64-bit SGPR operands start even
    assert a.register(t.vid, 2) == a.register(t.vid, 1) + 1


def test_copies_coalesce():
    k = Kernel("gfx1100")
    x, y = k.vreg(name="x"), k.vreg(name="y")
    k += v_mov_b32(x, 3.0)
    k += v_mov_b32(y, x)                        # x dies here: y can take its register
    k += v_add_f32(y, y, 1.0)
    k += global_store_b32(v[0], y, s[0:1])
    k += s_endpgm()
    a = checked(k)
    assert a.identity_copies == [1] and k.stats()["copies_removed"] == 1
    assert len(k.physical().items) == len(k.items) - 1


def test_pressure_at_the_limit():
    def build(n):
        k = Kernel("gfx1100")
        vals = [k.vreg() for _ in range(n)]
        for i, x in enumerate(vals):
            k += v_cvt_f32_u32(x, i)
        for x in vals:
            k += global_store_b32(vals[0], x, s[0:1])
        k += s_endpgm()
        return k
    k = build(256)
    a = checked(k)
    assert a.vgprs == 256 and k.waves_per_simd == 5      # 256 -> 11 blocks of 24 = 264; 1536 // 264
    over = build(257)
    with pytest.raises(regalloc.RegisterPressureError) as e:       # regalloc alone does not spill
        regalloc.allocate(over.program(), regalloc.limits("gfx1100"))
    msg = str(e.value)
    assert "257 VGPRs are live" in msg and "instruction 256" in msg and "%v0" in msg and "%v256" in msg
    assert over.vgprs <= 256 and over.spills.vgprs                   # the kernel spills instead


def test_occupancy_table():
    big, small = regalloc.limits("gfx1100"), regalloc.limits("gfx1102")
    assert [big.waves_per_simd(n) for n in (1, 24, 96, 97, 256)] == [16, 16, 16, 12, 5]
    assert [small.waves_per_simd(n) for n in (64, 65, 128, 256)] == [16, 12, 8, 4]
    w64 = regalloc.limits("gfx1100", 64)
    assert (w64.vgpr_file, w64.vgpr_granule, w64.waves_per_simd(96)) == (768, 12, 8)
    assert regalloc.limits("gfx1151").vgpr_file == 1536 and regalloc.limits("gfx1150").vgpr_file == 1024


def test_vopd_banks_agree_with_llvm():
    k = Kernel("gfx1100")
    a0, a1, b0, b1, dx, dy = (k.vreg(name=n) for n in ("a0", "a1", "b0", "b1", "dx", "dy"))
    for i, x in enumerate((a0, a1, b0, b1)):
        k += v_cvt_f32_u32(x, i)
    k += vopd(v_dual_add_f32(dx, a0, a1), v_dual_mul_f32(dy, b0, b1))
    k += global_store_b32(v[0], dx, s[0:1])
    k += global_store_b32(v[0], dy, s[0:1])
    k += s_endpgm()
    a = checked(k)
    assert (a.base[a0.vid] - a.base[b0.vid]) % 4 and (a.base[a1.vid] - a.base[b1.vid]) % 4
    assert (a.base[dx.vid] - a.base[dy.vid]) % 2
    tool = shutil.which("llvm-mc-22")
    if tool:
        text = str(k.physical()).replace("\n  ", "\n")
        out = subprocess.run([tool, "-arch=amdgcn", "-mcpu=gfx1100", "-filetype=obj", "-o", "/dev/null"],
                             input=text, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr


def test_same_value_in_both_vopd_src0_is_an_error():
    k = Kernel("gfx1100")
    a, b, c, d = (k.vreg() for _ in range(4))
    k += v_mov_b32(a, 1.0)
    k += v_mov_b32(b, 1.0)
    k += vopd(v_dual_add_f32(c, a, b), v_dual_mul_f32(d, a, b))
    k += s_endpgm()
    with pytest.raises(regalloc.AllocationError, match="VOPD"):
        k.allocate()


def test_virtual_register_errors():
    k, other = Kernel("gfx1100"), Kernel("gfx1100")
    with pytest.raises(OperandError, match="1 to 16"):
        k.vreg(17)
    x = other.vreg()
    with pytest.raises(OperandError, match="another Kernel"):
        k += v_mov_b32(x, 0)
    y = k.vreg(2)
    with pytest.raises(OperandError, match="outside"):
        y[2]
    with pytest.raises(OperandError, match="1 register|needs 2"):
        v_lshlrev_b64(y[0], 1, y)               # the encoder's own width check sees virtual widths


def test_allocated_code_matches_llvm_encoding():
    """The physical text of an allocated kernel, assembled by LLVM, gives our bytes."""
    tool = shutil.which("llvm-mc-22")
    if not tool:
        pytest.skip("llvm-mc-22 not installed")
    k = Kernel("gfx1100")
    acc, t, c = k.vreg(name="acc"), k.vreg(4, name="t"), k.sreg(name="c")
    k += v_mov_b32(acc, 0)
    k += s_mov_b32(c, 8)
    k.label("loop")
    k += global_load_b128(t, v[0], s[0:1])
    k += s_waitcnt(0)
    k += v_fmac_f32(acc, t[0], t[1])
    k += v_add_f32(acc, acc, t[3])
    k += s_sub_u32(c, c, 1)
    k += s_cmp_lg_u32(c, 0)
    k += s_cbranch_scc1("loop")
    k += global_store_b32(v[0], acc, s[0:1])
    k += s_endpgm()
    checked(k)
    text = str(k.physical()).replace("\n  ", "\n").lstrip()
    out = subprocess.run([tool, "-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"], input=text,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import re
    # label fixups print as A: compare every other byte
    llvm = [None if b == "A" else int(b, 16) for enc in re.findall(r"encoding: \[([^\]]*)\]", out.stdout)
            for b in enc.split(",")]
    ours = k.assemble()
    assert len(llvm) == len(ours)
    assert all(x is None or x == y for x, y in zip(llvm, ours))


def test_load_results_stay_reserved_until_waitcnt():
    k = Kernel("gfx1100")
    dead, x = k.vreg(4, name="dead"), k.vreg(name="x")
    k += global_load_b128(dead, v[0], s[0:1])   # result never read: still in flight
    k += v_mov_b32(x, 1.0)                      # must not take dead's registers
    k += global_store_b32(v[0], x, s[0:1])
    k += s_waitcnt(0)
    k += s_endpgm()
    a = checked(k)
    assert not a.base[dead.vid] <= a.base[x.vid] < a.base[dead.vid] + 4


def test_code_object_descriptor_agrees_with_kernel_stats():
    """The runtime's writer counts registers off the disassembled code; its descriptor and
    metadata must agree with what the allocator reports."""
    from runtime import read_code_object
    from runtime.writer import from_dsl_kernel
    k = Kernel("gfx1100", name="stats_check")
    vals = [k.vreg(2) for _ in range(5)]
    for i, x in enumerate(vals):
        k += v_lshlrev_b64(x, i, v[0:1])
    for x in vals:
        k += global_store_b64(v[0], x, s[0:1])
    k += s_endpgm()
    info = read_code_object(from_dsl_kernel(k, user_sgpr_kernarg_segment_ptr=1)).kernels["stats_check"]
    assert info.vgpr_count == k.vgprs >= k.peak_vgprs == 11     # v0, v1 (v1 dies at the last shift) + 5 pairs
    assert info.descriptor.granulated_workitem_vgpr_count == -(-k.vgprs // 8) - 1   # wave32 blocks of 8


def test_operand_roles_follow_the_pseudocode():
    """Reads/writes of result operands: accumulate (v_fmac), compare-only (s_cmpk), conditional
    (s_cmov), 16-bit half and D16 loads keep the rest of the register (read + write)."""
    k = Kernel("gfx1100")
    a, b, c, h = k.vreg(name="a"), k.vreg(name="b"), k.sreg(name="c"), k.vreg(name="h")
    cases = [v_fmac_f32(a, b, b), s_cmpk_eq_u32(c, 5), s_cmov_b32(c, 1), v_add_f16(h.h, h.l, h.l),
             global_load_d16_hi_b16(h, v[0], s[0:1]), v_add_f32(a, b, b), s_movk_i32(c, 3)]
    expect = [(True, True), (True, False), (True, True), (True, True), (True, True), (False, True), (False, True)]
    for inst in cases:
        k += inst
    prog = k.program()
    for inst, ins, (reads, writes) in zip(cases, prog.instrs, expect):
        dst = inst.record.noted[0].reg
        assert any(r.virtual and r.reg == dst.vid for r in ins.uses) == reads, str(inst)
        assert any(r.virtual and r.reg == dst.vid for r in ins.defs) == writes, str(inst)

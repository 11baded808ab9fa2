"""frontend/loops.py (unrolling, hoisting, simplification) and the immediate-offset folding of
`x + c` indices in isel: results on Device("emu") against numpy, and the code's shape
(branches, multiplies in loops, offsets) read from the disassembly."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.compile import compile_program, run
from frontend.ir import parse
from frontend.loops import optimize_loops

rng = np.random.default_rng(7)

ROW_SUM = """
kernel rowsum
buffer out f32[{rows}]
buffer x f32[{total}]
reg acc f32[1]
%0 = i32 {id} 0 {rows}
%1 = i32 const 0
%2 = i32 const {cols}
%3 = f32 const 0.0
store acc[%1] %3
%5 = i32 range %2
%6 = i32 mulacc %0 %2 %5
%7 = f32 load x[%6]
%8 = f32 load acc[%1]
%9 = f32 add %8 %7
store acc[%1] %9
end %5
%12 = f32 load acc[%1]
store out[%0] %12
"""


def _row_sum(rows, cols, id="local_id"):
    """Row r of x summed by work-item r (local_id: per-lane addresses) or work-group r
    (group_id: every lane of a wave reads the same address)."""
    return parse(ROW_SUM.format(rows=rows, cols=cols, total=rows * cols, id=id))


def _launch(c, arrays, rows, by_group=False):
    from runtime import Device
    dev = Device("emu", arch="gfx1100")
    dev.machine.count_mnemonics = True
    bufs = {n: dev.alloc(a.nbytes, n).copyin(a) for n, a in arrays.items()}
    shape = dict(grid=(rows, 1, 1), block=(1, 1, 1)) if by_group else dict(grid=(1, 1, 1), block=(rows, 1, 1))
    stats = dev.load(c.hsaco).launch(c.name, args=[bufs["out"], bufs["x"]], **shape)
    return bufs["out"].copyout(np.float32)[:rows], stats


@pytest.mark.parametrize("unroll", [True, False])
def test_row_sum_unrolled_or_not_matches_numpy(unroll):
    rows, cols = 5, 12
    x = rng.standard_normal(rows * cols).astype(np.float32)
    c = compile_program(_row_sum(rows, cols), unroll=unroll, combine=False)
    got, stats = _launch(c, {"out": np.zeros(rows, np.float32), "x": x}, rows)
    want = np.zeros(rows, np.float32)
    for j in range(cols):                      # the kernel's order of f32 additions
        want = want + x.reshape(rows, cols)[:, j]
    np.testing.assert_array_equal(got, want)
    text = c.disassemble()
    branches = [ln for ln in text.splitlines() if "s_cbranch" in ln]
    if unroll:
        # no loop left; every load takes its column from the immediate offset of one address
        assert not branches
        offsets = sorted(int(ln.split("offset:")[1]) if "offset:" in ln else 0
                         for ln in text.splitlines() if "global_load_b32" in ln)
        assert offsets == [4 * j for j in range(cols)]
        # the accumulator is updated in place: its zeroing is the only move
        assert sum("v_mov_b32" in ln for ln in text.splitlines()) == 1
        assert sum(stats.by_mnemonic.values()) == stats.instructions
    else:
        assert len(branches) == 1
        # the row's base (group id * cols) is a product computed once, before the loop
        lines = text.splitlines()
        loop_start = next(i for i, ln in enumerate(lines) if "global_load_b32" in ln)
        assert not any("s_mul_i32" in ln for ln in lines[loop_start:])


@pytest.mark.parametrize("cols", [12, 7])
def test_unrolled_loads_combine_into_vector_loads(cols):
    rows = 3
    x = rng.standard_normal(rows * cols).astype(np.float32)
    c = compile_program(_row_sum(rows, cols))
    got, _ = _launch(c, {"out": np.zeros(rows, np.float32), "x": x}, rows)
    want = np.zeros(rows, np.float32)
    for j in range(cols):
        want = want + x.reshape(rows, cols)[:, j]
    np.testing.assert_array_equal(got, want)
    loads = [ln.split()[0] for ln in c.disassemble().splitlines() if ln.startswith("global_load")]
    # 12 columns: three b128; 7: b128 + b96
    assert loads == {12: ["global_load_b128"] * 3, 7: ["global_load_b128", "global_load_b96"]}[cols]


def test_loads_do_not_combine_across_a_store_to_their_buffer():
    prog = parse("""
kernel k
buffer x f32[64]
%0 = i32 local_id 0 16
%1 = i32 const 4
%2 = i32 mul %0 %1
%3 = f32 load x[%2]
%4 = i32 const 1
%5 = i32 add %2 %4
store x[%5] %3
%7 = f32 load x[%5]
%8 = f32 add %3 %7
store x[%2] %8
""")
    x = rng.standard_normal(64).astype(np.float32)
    out = run(prog, {"x": x.copy()}, block=(16, 1, 1))["x"].reshape(16, 4)
    v = x.reshape(16, 4)
    # element 1 was overwritten with element 0 before it was read back
    np.testing.assert_array_equal(out[:, 0], v[:, 0] + v[:, 0])
    np.testing.assert_array_equal(out[:, 1], v[:, 0])
    assert "global_load_b64" not in compile_program(prog).disassemble()


def test_unrolling_saves_instructions():
    rows, cols = 3, 16
    x = rng.standard_normal(rows * cols).astype(np.float32)
    arrays = {"out": np.zeros(rows, np.float32), "x": x}
    _, rolled = _launch(compile_program(_row_sum(rows, cols), unroll=False, combine=False), arrays, rows)
    _, unrolled = _launch(compile_program(_row_sum(rows, cols), combine=False), arrays, rows)
    # one wave; per iteration the loop pays increment, compare, branch and the index's add
    assert unrolled.instructions <= rolled.instructions - 4 * cols


def test_long_loop_stays_a_loop():
    rows, cols = 2, 199                       # 199 trips (prime): over UNROLL_MAX_TRIPS, no factor
    x = rng.standard_normal(rows * cols).astype(np.float32)
    c = compile_program(_row_sum(rows, cols))
    got, _ = _launch(c, {"out": np.zeros(rows, np.float32), "x": x}, rows)
    want = np.zeros(rows, np.float32)
    for j in range(cols):
        want = want + x.reshape(rows, cols)[:, j]
    np.testing.assert_array_equal(got, want)
    assert sum("s_cbranch" in ln for ln in c.disassemble().splitlines()) == 1


def _ops(prog):
    return [ins.text(i) for i, ins in enumerate(prog.instrs)]


def test_constants_fold_with_32_bit_wrap():
    p = optimize_loops(parse("""
kernel k
buffer out i32[4]
%0 = i32 const 2147483647
%1 = i32 const 1
%2 = i32 add %0 %1
%3 = i32 const 3
%4 = i32 mul %2 %3
%5 = i32 const 0
store out[%5] %4
"""))
    want = int(((np.array([2**31 - 1], np.int32) + 1) * 3)[0])    # numpy int32 arrays wrap like the hardware
    consts = [ins.arg for ins in p.instrs if ins.op == "const"]
    assert want in consts and not any(ins.op in ("add", "mul") for ins in p.instrs)
    out = run(p, {"out": np.zeros(4, np.int32)}, grid=(1, 1, 1), block=(1, 1, 1))["out"]
    assert out[0] == want


def test_nested_constant_adds_combine():
    p = optimize_loops(parse("""
kernel k
buffer out f32[64]
buffer x f32[64]
%0 = i32 local_id 0 32
%1 = i32 const 3
%2 = i32 add %0 %1
%3 = i32 const 4
%4 = i32 add %2 %3
%5 = f32 load x[%4]
store out[%0] %5
"""))
    adds = [ins for ins in p.instrs if ins.op == "add"]
    assert any(p.instrs[s].op == "const" and p.instrs[s].arg == 7 for a in adds for s in a.srcs)
    x = rng.standard_normal(64).astype(np.float32)
    out = run(p, {"out": np.zeros(64, np.float32), "x": x}, block=(32, 1, 1))["out"]
    np.testing.assert_array_equal(out[:32], x[7:39])


def test_common_value_inside_a_skipped_if_is_not_reused_after_it():
    # the same product appears inside an IF no lane enters and after it: the second must be
    # computed again (the first never ran)
    prog = parse("""
kernel k
buffer out i32[32]
buffer x i32[32]
%0 = i32 local_id 0 32
%1 = i32 load x[%0]
%2 = i32 const 1000
%3 = bool cmplt %2 %1
if %3
%5 = i32 mul %1 %1
store out[%0] %5
endif %4
%8 = i32 mul %1 %1
%9 = i32 const 1
%10 = i32 add %8 %9
store out[%0] %10
""")
    x = rng.integers(-50, 50, 32).astype(np.int32)
    out = run(prog, {"out": np.zeros(32, np.int32), "x": x}, block=(32, 1, 1))["out"]
    np.testing.assert_array_equal(out, x * x + 1)


def test_zero_trip_loop_runs_nothing():
    prog = parse("""
kernel k
buffer out i32[4]
reg acc i32[1]
%0 = i32 const 0
%1 = i32 const 5
store acc[%0] %1
%3 = i32 range %0
%4 = i32 load acc[%0]
%5 = i32 add %4 %3
store acc[%0] %5
end %3
%8 = i32 load acc[%0]
store out[%0] %8
""")
    assert run(prog, {"out": np.zeros(4, np.int32)})["out"][0] == 5


def test_index_add_with_other_uses_or_big_offset_is_computed():
    # %3 (x + 2000 floats = 8000 bytes) does not fit the 13-bit offset; %6 is also stored as a value
    prog = parse("""
kernel k
buffer out i32[4096]
buffer x i32[4096]
%0 = i32 local_id 0 32
%1 = i32 const 2000
%2 = i32 const 1
%3 = i32 add %0 %1
%4 = i32 load x[%3]
%5 = i32 const 64
%6 = i32 add %0 %5
%7 = i32 add %4 %6
store out[%6] %7
""")
    x = rng.integers(-1000, 1000, 4096).astype(np.int32)
    out = run(prog, {"out": np.zeros(4096, np.int32), "x": x}, block=(32, 1, 1))["out"]
    lanes = np.arange(32)
    np.testing.assert_array_equal(out[lanes + 64], x[lanes + 2000] + lanes + 64)


def test_uniform_loads_from_a_read_only_buffer_are_scalar_loads():
    rows, cols = 4, 10
    x = rng.standard_normal(rows * cols).astype(np.float32)
    c = compile_program(_row_sum(rows, cols, id="group_id"))
    got, _ = _launch(c, {"out": np.zeros(rows, np.float32), "x": x}, rows, by_group=True)
    want = np.zeros(rows, np.float32)
    for j in range(cols):
        want = want + x.reshape(rows, cols)[:, j]
    np.testing.assert_array_equal(got, want)
    text = c.disassemble()
    # columns 0-3, 4-7 as b128 at offsets 0 and 16, 8-9 as b64 at 32 (after the argument loads)
    loads = [ln for ln in text.splitlines() if ln.startswith("s_load")][2:]
    assert [ln.split()[0] for ln in loads] == ["s_load_b128", "s_load_b128", "s_load_b64"]
    assert "offset:0x10" in loads[1] and "offset:0x20" in loads[2]
    assert "global_load" not in text


SCALAR_CASES = """
kernel k
buffer out f32[8]
buffer x f32[4096]
%0 = i32 group_id 0 2
%1 = i32 const 1000
%2 = i32 mul %0 %1
%3 = i32 const -3
%4 = i32 add %2 %3
%5 = i32 const 5
%6 = i32 add %2 %5
%7 = i32 const 3000
%8 = f32 load x[%7]
%9 = f32 load x[%6]
%10 = i32 const 1
%11 = i32 max %4 %10
%12 = f32 load x[%11]
%13 = f32 add %8 %9
%14 = f32 add %13 %12
store out[%0] %14
"""


def test_scalar_load_offsets_constant_folded_and_computed():
    x = rng.standard_normal(4096).astype(np.float32)
    c = compile_program(parse(SCALAR_CASES))
    got, _ = _launch_2(c, x)
    g = np.arange(2)
    want = (x[3000] + x[g * 1000 + 5]) + x[np.maximum(g * 1000 - 3, 1)]
    np.testing.assert_array_equal(got[:2], want.astype(np.float32))
    assert "global_load" not in c.disassemble()


def test_uniform_load_from_a_buffer_the_kernel_stores_to_stays_a_vector_load():
    prog = parse(SCALAR_CASES.replace("store out[%0] %14", "%15 = i32 const 4000\n%16 = i32 add %0 %15\n"
                                                           "store x[%16] %14"))
    x = rng.standard_normal(4096).astype(np.float32)
    c = compile_program(prog)
    assert "s_load_b32" not in "\n".join(c.disassemble().splitlines()[2:])
    from runtime import Device
    dev = Device("emu", arch="gfx1100")
    o, xb = dev.alloc(32, "out"), dev.alloc(x.nbytes, "x").copyin(x)
    dev.load(c.hsaco).launch(c.name, grid=(2, 1, 1), block=(32, 1, 1), args=[o, xb])
    g = np.arange(2)
    want = (x[3000] + x[g * 1000 + 5]) + x[np.maximum(g * 1000 - 3, 1)]
    np.testing.assert_array_equal(xb.copyout(np.float32)[4000:4002], want.astype(np.float32))


def _launch_2(c, x):
    from runtime import Device
    dev = Device("emu", arch="gfx1100")
    o, xb = dev.alloc(32, "out"), dev.alloc(x.nbytes, "x").copyin(x)
    stats = dev.load(c.hsaco).launch(c.name, grid=(2, 1, 1), block=(32, 1, 1), args=[o, xb])
    return o.copyout(np.float32), stats


def test_mnemonic_counts_off_by_default():
    prog = _row_sum(2, 4)
    c = compile_program(prog)
    from runtime import Device
    dev = Device("emu", arch="gfx1100")
    o, x = dev.alloc(8, "out"), dev.alloc(32, "x").copyin(np.ones(8, np.float32))
    stats = dev.load(c.hsaco).launch(c.name, grid=(2, 1, 1), block=(1, 1, 1), args=[o, x])
    assert stats.by_mnemonic is None and stats.instructions > 0


LDS_SUM = """
kernel k
buffer out f32[64]
buffer x f32[64]
lds t f32[{n}]
reg acc f32[1]
%0 = i32 local_id 0 {n}
%1 = f32 load x[%0]
store t[%0] %1
barrier
%4 = i32 const 0
%5 = f32 const 0.0
store acc[%4] %5
%7 = i32 const {n}
%8 = i32 range %7
%9 = f32 load t[%8]
%10 = f32 load acc[%4]
%11 = f32 add %10 %9
store acc[%4] %11
end %8
%14 = f32 load acc[%4]
store out[%0] %14
"""


@pytest.mark.parametrize("n", [16, 7])
def test_lds_reads_at_constant_indices_pair_up(n):
    x = rng.standard_normal(64).astype(np.float32)
    c = compile_program(parse(LDS_SUM.format(n=n)))
    out = run(c, {"out": np.zeros(64, np.float32), "x": x}, block=(n, 1, 1))["out"]
    want = np.float32(0)
    for j in range(n):
        want = np.float32(want + x[j])
    np.testing.assert_array_equal(out[:n], np.full(n, want))
    text = c.disassemble()
    pairs = [ln for ln in text.splitlines() if ln.startswith("ds_load_2addr_b32")]
    singles = [ln for ln in text.splitlines() if ln.startswith("ds_load_b32")]
    assert len(pairs) == n // 2 and len(singles) == n % 2
    assert "offset0:2 offset1:3" in pairs[1]


def test_products_with_constant_addends_split_and_fold():
    # (g * 64 + (l * 4 + 1)) -> ((g * 64 + l * 4) + 1): one shared sum, 1 for the immediate;
    # shifts of constants fold
    p = optimize_loops(parse("""
kernel k
buffer out f32[512]
buffer x f32[256]
%0 = i32 group_id 0 4
%1 = i32 local_id 0 16
%2 = i32 const 4
%3 = i32 const 64
%4 = i32 const 1
%5 = i32 mulacc %1 %2 %4
%6 = i32 mulacc %0 %3 %5
%7 = f32 load x[%6]
%8 = i32 const 3
%9 = i32 shl %4 %8
%10 = i32 add %6 %9
store out[%10] %7
"""))
    assert not any(ins.op == "mulacc" or ins.op == "shl" for ins in p.instrs)
    load = next(ins for ins in p.instrs if ins.op == "load")
    index = p.instrs[load.srcs[0]]
    assert index.op == "add" and [p.instrs[s].arg for s in index.srcs if p.instrs[s].op == "const"] == [1]
    x = rng.standard_normal(256).astype(np.float32)
    out = run(p, {"out": np.zeros(512, np.float32), "x": x}, grid=(4, 1, 1), block=(16, 1, 1))["out"]
    g, l = np.meshgrid(np.arange(4), np.arange(16), indexing="ij")
    i = (g * 64 + l * 4 + 1).ravel()
    np.testing.assert_array_equal(out[i + 8], x[i])


def test_partially_unrolled_loop_matches_numpy():
    rows, cols = 3, 200                        # 200 trips: 25 iterations of 8 copies
    x = rng.standard_normal(rows * cols).astype(np.float32)
    c = compile_program(_row_sum(rows, cols))
    got, stats = _launch(c, {"out": np.zeros(rows, np.float32), "x": x}, rows)
    want = np.zeros(rows, np.float32)
    for j in range(cols):
        want = want + x.reshape(rows, cols)[:, j]
    np.testing.assert_array_equal(got, want)
    assert stats.by_mnemonic["s_cbranch_scc1"] == 25
    assert stats.by_mnemonic["global_load_b128"] == 50


def test_select_between_two_uniform_loads_keeps_its_mask_in_sgprs():
    # both sources come from scalar loads (SGPRs) and the selector is a lane mask: only two
    # of the three may use the constant bus, so a source moves to a VGPR, never the mask
    prog = parse("""
kernel k
buffer out f32[32]
buffer c f32[32]
buffer a f32[1]
buffer b f32[1]
%0 = i32 local_id 0 32
%1 = f32 load c[%0]
%2 = f32 const 0.0
%3 = bool cmplt %2 %1
%4 = i32 const 0
%5 = f32 load a[%4]
%6 = f32 load b[%4]
%7 = f32 where %3 %5 %6
store out[%0] %7
""")
    cv = rng.standard_normal(32).astype(np.float32)
    a, b = np.array([1.5], np.float32), np.array([-2.5], np.float32)
    c = compile_program(prog)
    assert "s_load_b32" in c.disassemble()
    out = run(c, {"out": np.zeros(32, np.float32), "c": cv, "a": a, "b": b}, block=(32, 1, 1))["out"]
    np.testing.assert_array_equal(out, np.where(cv > 0, a[0], b[0]))


def test_repeated_division_of_an_updated_accumulator_is_recomputed():
    # acc = acc / 3 three times (unrolled): each division reads the element's register in
    # place; the register holds a new value each time, so no quotient may be reused
    prog = parse("""
kernel k
buffer out i32[32]
buffer x i32[32]
reg acc i32[1]
%0 = i32 local_id 0 32
%1 = i32 load x[%0]
%2 = i32 const 0
store acc[%2] %1
%4 = i32 const 3
%5 = i32 range %4
%6 = i32 load acc[%2]
%7 = i32 idiv %6 %4
%8 = i32 mod %6 %4
%9 = i32 add %7 %8
store acc[%2] %9
end %5
%12 = i32 load acc[%2]
store out[%0] %12
""")
    x = rng.integers(-10**6, 10**6, 32).astype(np.int32)
    out = run(prog, {"out": np.zeros(32, np.int32), "x": x}, block=(32, 1, 1))["out"]
    want = x.astype(np.int64)
    for _ in range(3):
        q = np.trunc(want / 3).astype(np.int64)
        want = q + (want - q * 3)
    np.testing.assert_array_equal(out, want)


def test_far_constant_offsets_share_one_add_per_window():
    """x + c with 4c past the 13-bit immediate: one add of a 4096-byte window's start serves
    every access inside that window (an unrolled loop's loads), gated loads and stores too."""
    ks = [0, 1, 900, 1030, 1100, 2047, 2050, 3000, 5000, 5001]
    lines = ["kernel k", "buffer out i32[8192]", "buffer x i32[8192]", "var n i32 0..64",
             "%0 = i32 local_id 0 64", "%1 = i32 param n", "%2 = bool cmplt %0 %1", "%3 = i32 const 7"]
    acc = 3
    for k in ks:
        n = len(lines) - 4
        lines += [f"%{n} = i32 const {k}", f"%{n + 1} = i32 add %0 %{n}",
                  f"%{n + 2} = i32 load x[%{n + 1}] if %2 else %3", f"%{n + 3} = i32 add %{acc} %{n + 2}"]
        acc = n + 3
    n = len(lines) - 4
    lines += [f"%{n} = i32 const 6000", f"%{n + 1} = i32 add %0 %{n}", f"store out[%{n + 1}] %{acc} if %2",
              f"store out[%0] %{acc}"]
    c = compile_program(parse("\n".join(lines) + "\n"))
    text = c.disassemble().splitlines()
    windows = {4 * k // 4096 for k in ks + [6000]} - {0}
    adds = [t for t in text if t.startswith("v_add_nc_u32")]
    assert len(adds) <= len(ks) + len(windows), text          # the sums, and one add per window
    assert sum(t.startswith("v_lshlrev_b32") for t in text) == 1, text
    x = rng.integers(-1000, 1000, 8192).astype(np.int32)
    nv = 45
    out = run(c, {"out": np.zeros(8192, np.int32), "x": x}, block=(64, 1, 1), vars={"n": nv})["out"]
    lanes = np.arange(64)
    want = 7 + sum(np.where(lanes < nv, x[(lanes + k) % 8192], 7) for k in ks)
    np.testing.assert_array_equal(out[lanes], want)
    np.testing.assert_array_equal(out[6000 + lanes[:nv]], want[:nv])
    assert (out[6000 + nv:6064] == 0).all()

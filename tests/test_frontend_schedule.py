"""frontend/schedule.py: loads issued early in straight-line code, so that unrolled reductions
keep several loads in flight instead of waiting for each in turn. The property is read from
the machine code (the s_waitcnt counts and how many load dwords are outstanding at once,
replayed with the in-order VM counter of the RDNA3 ISA's "Data dependency resolution"), the
results on Device("emu") against numpy summing in the kernel's order, and `schedule=False`
(the off switch) against the default bit for bit."""
from __future__ import annotations

import re

import numpy as np
import pytest

from frontend.compile import compile_program, run
from frontend.ir import parse
from frontend.schedule import WINDOW, schedule_loads

rng = np.random.default_rng(11)

COLUMN_SUM = """
kernel colsum
buffer out f32[{cols}]
buffer x f32[{total}]
reg acc f32[1]
%0 = i32 local_id 0 {cols}
%1 = i32 const 0
%2 = i32 const {rows}
%3 = i32 const {cols}
%4 = f32 const 0.0
store acc[%1] %4
%6 = i32 range %2
%7 = i32 mulacc %6 %3 %0
%8 = f32 load x[%7]
%9 = f32 load acc[%1]
%10 = f32 add %9 %8
store acc[%1] %10
end %6
%13 = f32 load acc[%1]
store out[%0] %13
"""

# tinygrad's sum of 4096 floats (bench_llvm's sum_all): 16 work-items each add 256 strided
# runs of the input, then one adds the 16 partial sums through LDS
SUM_ALL = """
kernel r_16_256
buffer p0 f32[1]
buffer p1 f32[4096]
reg r0 f32[1]
reg r1 f32[1]
lds l2 f32[16]
%0 = i32 const 16
%1 = i32 local_id 0 16
%2 = i32 const 0
%3 = i32 const 256
%4 = f32 const 0.0
store r0[%2] %4
%6 = i32 range %3
%7 = i32 mulacc %1 %3 %6
%8 = f32 load p1[%7]
%9 = f32 load r0[%2]
%10 = f32 add %9 %8
store r0[%2] %10
end %6
%13 = f32 load r0[%2]
store l2[%1] %13
barrier
store r1[%2] %4
%17 = i32 range %0
%18 = f32 load l2[%17]
%19 = f32 load r1[%2]
%20 = f32 add %19 %18
store r1[%2] %20
end %17
%23 = f32 load r1[%2]
%24 = bool cmpeq %1 %2
if %24
store p0[%2] %23
endif %25
"""

_DWORDS = re.compile(r"_b(32|64|96|128)\b")


def _dwords(line: str) -> int:
    m = _DWORDS.search(line.split()[0])
    return int(m.group(1)) // 32 if m else 1


def _vm_in_flight(lines) -> list[int]:
    """Dwords of vector loads outstanding after each line: loads return in order, so
    `s_waitcnt vmcnt(n)` leaves the n youngest."""
    queue, out = [], []
    for line in lines:
        op = line.split()[0] if line.split() else ""
        if op.startswith(("global_load", "buffer_load", "flat_load", "scratch_load")):
            queue.append(_dwords(line))
        elif op == "s_waitcnt" and "vmcnt(" in line:
            n = int(re.search(r"vmcnt\((\d+)\)", line).group(1))
            queue = queue[len(queue) - n:] if n else []
        out.append(sum(queue))
    return out


def _lines(c) -> list[str]:
    return [t.strip() for t in c.disassemble().splitlines() if t.strip()]


def _sequential_sum(parts) -> np.float32:
    acc = np.float32(0)
    for v in parts:
        acc = np.float32(acc + v)
    return acc


def test_strided_column_sum_keeps_loads_in_flight():
    """37 loads 180 bytes apart, one per row (tinygrad's sum over axis 0, fully unrolled):
    waited one by one without the pass, a window of them in flight with it."""
    rows, cols = 37, 45
    p = parse(COLUMN_SUM.format(rows=rows, cols=cols, total=rows * cols))
    x = rng.standard_normal(rows * cols).astype(np.float32)
    outs, code = {}, {}
    for schedule in (True, False):
        c = compile_program(p, schedule=schedule)
        code[schedule] = _lines(c)
        outs[schedule] = run(c, {"out": np.zeros(cols, np.float32), "x": x}, block=(cols, 1, 1))["out"]
    want = np.array([_sequential_sum(x.reshape(rows, cols)[:, j]) for j in range(cols)], np.float32)
    np.testing.assert_array_equal(outs[True], want)
    assert outs[True].tobytes() == outs[False].tobytes()
    zero_waits = {s: sum(t == "s_waitcnt vmcnt(0)" for t in code[s]) for s in code}
    assert zero_waits[False] == rows                  # each load waited for before its add
    assert zero_waits[True] == 1                      # only the last one
    flight = {s: max(_vm_in_flight(code[s])) for s in code}
    assert flight[False] == 1
    assert WINDOW // 2 < flight[True] <= WINDOW       # the window, never more


def test_fewer_emulated_cycles_with_loads_in_flight():
    """The same kernel timed by the emulator's timing model: the loads' latencies overlap."""
    from runtime import Device
    rows, cols = 37, 45
    p = parse(COLUMN_SUM.format(rows=rows, cols=cols, total=rows * cols))
    x = rng.standard_normal(rows * cols).astype(np.float32)
    cycles = {}
    for schedule in (True, False):
        c = compile_program(p, schedule=schedule)
        dev = Device("emu", arch="gfx1100")
        out, xb = dev.alloc(cols * 4, "out"), dev.alloc(x.nbytes, "x").copyin(x)
        stats = dev.load(c.hsaco).launch(c.name, grid=(1, 1, 1), block=(cols, 1, 1), args=[out, xb], timing=True)
        cycles[schedule] = stats.timing.cycles
    assert cycles[True] * 3 < cycles[False], cycles


def _loop_body(lines) -> list[str]:
    """The lines of the first loop that ends in s_cbranch_scc1, from its first load."""
    end = next(j for j, t in enumerate(lines) if t.startswith("s_cbranch_scc1"))
    start = next(j for j, t in enumerate(lines) if t.startswith("global_load"))
    return lines[start:end]


def test_unrolled_reduction_issues_its_loads_before_the_first_wait():
    """sum_all: 256 trips in 16 copies per iteration, combined into four global_load_b128;
    all four go out before the first wait, which then counts down vmcnt(3) .. vmcnt(0). The
    LDS loop after the barrier (8 ds_load_2addr_b32) likewise waits once per window."""
    p = parse(SUM_ALL)
    x = rng.standard_normal(4096).astype(np.float32)
    c = compile_program(p)
    lines = _lines(c)
    body = _loop_body(lines)
    first_wait = next(j for j, t in enumerate(body) if t.startswith("s_waitcnt"))
    assert [t.split()[0] for t in body[:first_wait]].count("global_load_b128") == 4
    vm_waits = [t for t in body if t.startswith("s_waitcnt") and "vmcnt" in t]
    assert vm_waits == [f"s_waitcnt vmcnt({n})" for n in (3, 2, 1, 0)]
    after = lines[lines.index("s_barrier"):]
    ds_first_wait = next(j for j, t in enumerate(after) if t.startswith("s_waitcnt"))
    assert [t.split()[0] for t in after[:ds_first_wait]].count("ds_load_2addr_b32") == 8
    got = run(c, {"p0": np.zeros(1, np.float32), "p1": x}, block=(16, 1, 1))["p0"]
    partial = [_sequential_sum(x[i * 256:(i + 1) * 256]) for i in range(16)]
    assert got[0] == _sequential_sum(partial)
    off = run(compile_program(p, schedule=False), {"p0": np.zeros(1, np.float32), "p1": x}, block=(16, 1, 1))["p0"]
    assert got.tobytes() == off.tobytes()


def test_uniform_row_loads_go_out_as_one_smem_batch():
    """A row per work-group (uniform addresses: SMEM, which returns in any order, so every
    wait is lgkmcnt(0)): 45 floats in s_load_b128s, a window of them per wait."""
    rows, cols = 3, 45
    p = parse(COLUMN_SUM.replace("%0 = i32 local_id 0 {cols}", "%0 = i32 group_id 0 {rows}")
              .replace("%7 = i32 mulacc %6 %3 %0", "%7 = i32 mulacc %0 %2 %6")
              .format(rows=cols, cols=rows, total=rows * cols))
    x = rng.standard_normal(rows * cols).astype(np.float32)
    waits, got = {}, {}
    for schedule in (True, False):
        c = compile_program(p, schedule=schedule)
        lines = _lines(c)
        assert sum(t.startswith("s_load_b128") for t in lines) == 11
        waits[schedule] = sum(t == "s_waitcnt lgkmcnt(0)" for t in lines)
        got[schedule] = run(c, {"out": np.zeros(rows, np.float32), "x": x}, grid=(rows, 1, 1))["out"]
    assert waits[False] >= 12 and waits[True] <= 3        # the arguments' wait + 2 batches
    want = np.array([_sequential_sum(x.reshape(rows, cols)[r]) for r in range(rows)], np.float32)
    np.testing.assert_array_equal(got[True], want)
    assert got[True].tobytes() == got[False].tobytes()


STORE_THEN_LOAD = """
kernel st
buffer y f32[64]
buffer x f32[64]
lds t f32[64]
%0 = i32 local_id 0 64
%1 = f32 load x[%0]
%2 = f32 const 2.0
%3 = f32 mul %1 %2
store y[%0] %3
%5 = f32 load y[%0]
%6 = f32 load x[%0]
store t[%0] %6
%8 = f32 load t[%0]
%9 = f32 add %5 %8
%10 = f32 add %9 %1
store y[%0] %10
"""


def test_loads_never_pass_a_store_to_memory_of_their_kind():
    """y's load reads what the store before it wrote; x's second load stays after that store
    too (global buffers are not assumed distinct), and the LDS load after the LDS store."""
    p = parse(STORE_THEN_LOAD)
    q = schedule_loads(p)
    def pos(prog, op, arg, nth=0):
        return [i for i, ins in enumerate(prog.instrs) if ins.op == op and ins.arg == arg][nth]
    assert pos(q, "store", "y") < pos(q, "load", "y") and pos(q, "store", "y") < pos(q, "load", "x", 1)
    assert pos(q, "store", "t") < pos(q, "load", "t")
    x = rng.standard_normal(64).astype(np.float32)
    got = run(compile_program(p), {"y": np.zeros(64, np.float32), "x": x}, block=(64, 1, 1))["y"]
    np.testing.assert_array_equal(got, (x * np.float32(2) + x) + x)


def test_only_load_positions_change():
    """The pass permutes instructions; every non-load keeps its order relative to the others."""
    rows, cols = 37, 45
    for p in (parse(SUM_ALL), parse(COLUMN_SUM.format(rows=rows, cols=cols, total=rows * cols)),
              parse(STORE_THEN_LOAD)):
        from frontend.combine import combine_loads, drop_unused
        from frontend.loops import optimize_loops
        ir = drop_unused(combine_loads(optimize_loops(p)))
        q = schedule_loads(ir)
        assert len(q.instrs) == len(ir.instrs)
        def shape(prog):
            return [(ins.op, str(ins.dtype), ins.arg) for ins in prog.instrs if ins.op not in ("load", "const", "add", "mul", "mulacc", "gep")]
        assert shape(q) == shape(ir)
        assert sorted((ins.op, str(ins.dtype), str(ins.arg)) for ins in q.instrs) == \
            sorted((ins.op, str(ins.dtype), str(ins.arg)) for ins in ir.instrs)


@pytest.mark.parametrize("window", [1, 4, 8])
def test_window_bounds_the_dwords_in_flight(window):
    """A smaller window keeps fewer loads outstanding (never more dwords than it allows)."""
    rows, cols = 37, 45
    p = parse(COLUMN_SUM.format(rows=rows, cols=cols, total=rows * cols))
    c = compile_program(p, schedule=window)
    assert max(_vm_in_flight(_lines(c))) == window
    x = rng.standard_normal(rows * cols).astype(np.float32)
    got = run(c, {"out": np.zeros(cols, np.float32), "x": x}, block=(cols, 1, 1))["out"]
    want = np.array([_sequential_sum(x.reshape(rows, cols)[:, j]) for j in range(cols)], np.float32)
    np.testing.assert_array_equal(got, want)

"""Kernels that hold more uniform values than the SGPR file (106 on RDNA3) must still compile
and compute the right thing: scalar loads in flight are bounded (frontend/waitcnt.py) and the
allocator spills SGPRs into VGPR lanes. Run on Device("emu") against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.compile import compile_program, run
from frontend.ir import parse

rng = np.random.default_rng(16)


def _uniform_table_kernel(quads: int, reverse: bool) -> str:
    """Every work-item folds `4 * quads` uniform words of `u` (read-only: scalar loads) into a
    per-lane accumulator; all the loads come first, so all the words are live at once.
    `reverse` folds them in the opposite order (the last loaded dies first)."""
    lines = ["kernel wide", "buffer out i32[128]", f"buffer u i32[{4 * quads}]", "buffer x i32[128]",
             "%0 = i32 local_id 0 64", "%1 = i32 group_id 0 2", "%2 = i32 const 64",
             "%3 = i32 mulacc %1 %2 %0", "%4 = i32 load x[%3]", "%5 = i32 const 3"]
    n = len(lines) - 4
    loads = []
    for q in range(quads):
        lines.append(f"%{n} = i32 const {4 * q}")
        lines.append(f"%{n + 1} = i32x4 load u[%{n}]")
        loads.append(n + 1)
        n += 2
    words = [(load, j) for load in loads for j in range(4)]
    acc = 4
    for load, j in (reversed(words) if reverse else words):
        lines.append(f"%{n} = i32 gep %{load} {j}")
        lines.append(f"%{n + 1} = i32 mulacc %{acc} %5 %{n}")     # acc * 3 + word (wrapping)
        acc = n + 1
        n += 2
    lines.append(f"store out[%3] %{acc}")
    return "\n".join(lines) + "\n"


def _reference(x: np.ndarray, u: np.ndarray, reverse: bool) -> np.ndarray:
    acc = x.astype(np.uint32)
    for w in (u[::-1] if reverse else u).astype(np.uint32):
        acc = acc * np.uint32(3) + w
    return acc.view(np.int32)


@pytest.mark.parametrize("wave_size", [32, 64])
@pytest.mark.parametrize("reverse", [False, True])
def test_more_uniform_values_than_sgprs(reverse, wave_size):
    quads = 40                                  # 160 uniform words, all live after the loads
    prog = parse(_uniform_table_kernel(quads, reverse))
    c = compile_program(prog, "gfx1100", wave_size)
    assert c.stats["spilled_sgprs"] > 0, c.stats            # the case this test is about
    assert c.stats["sgprs"] <= 106
    text = [line.split()[0] for line in c.disassemble().splitlines()]
    # a spilled value is reloaded for the instructions that name it, not for a wait's in-flight bookkeeping
    assert not any(a == "v_readlane_b32" and b == "s_waitcnt" for a, b in zip(text, text[1:]))
    u = rng.integers(-2**31, 2**31, 4 * quads, dtype=np.int64).astype(np.int32)
    x = rng.integers(-2**31, 2**31, 128, dtype=np.int64).astype(np.int32)
    out = run(c, {"out": np.zeros(128, np.int32), "u": u, "x": x}, grid=(2, 1, 1), block=(64, 1, 1))
    np.testing.assert_array_equal(out["out"], _reference(x, u, reverse))


def test_scalar_loads_in_flight_are_bounded():
    """Without the bound, one wait would guarantee all 160 words at once; the registers of
    loads in flight cannot be spilled, so the kernel would not allocate."""
    from frontend.waitcnt import SMEM_IN_FLIGHT
    c = compile_program(parse(_uniform_table_kernel(40, False)), "gfx1100")
    dwords = {"s_load_b32": 1, "s_load_b64": 2, "s_load_b128": 4, "s_load_b256": 8, "s_load_b512": 16}
    in_flight = peak = 0
    for line in c.disassemble().splitlines():
        mnemonic = line.split()[0]
        if mnemonic == "s_waitcnt" and "lgkmcnt(0)" in line:
            in_flight = 0
        in_flight += dwords.get(mnemonic, 0)
        peak = max(peak, in_flight)
    assert 16 <= peak <= SMEM_IN_FLIGHT


def _per_lane_table_kernel(quads: int) -> str:
    """Every work-item loads `4 * quads` words of its own row of `u` (vector loads into VGPRs),
    all before the first use, and folds them in reverse order: more than 256 VGPRs live."""
    lines = ["kernel rows", "buffer out i32[64]", f"buffer u i32[{4 * quads * 64}]",
             "%0 = i32 local_id 0 64", f"%1 = i32 const {4 * quads}", "%2 = i32 mul %0 %1", "%3 = i32 const 3"]
    n = len(lines) - 3
    loads = []
    for q in range(quads):
        lines += [f"%{n} = i32 const {4 * q}", f"%{n + 1} = i32 add %2 %{n}", f"%{n + 2} = i32x4 load u[%{n + 1}]"]
        loads.append(n + 2)
        n += 3
    acc = 3
    for load in reversed(loads):
        for j in range(4):
            lines += [f"%{n} = i32 gep %{load} {j}", f"%{n + 1} = i32 mulacc %{acc} %3 %{n}"]
            acc = n + 1
            n += 2
    lines.append(f"store out[%0] %{acc}")
    return "\n".join(lines) + "\n"


def test_more_per_lane_values_than_vgprs():
    """72 b128 loads in a row: without a bound on vector loads in flight, 288 VGPRs would be
    reserved at once and nothing could be spilled; with it, values go to scratch."""
    from frontend.waitcnt import VMEM_IN_FLIGHT
    quads = 72
    c = compile_program(parse(_per_lane_table_kernel(quads)), "gfx1100")
    assert c.stats["spilled_vgprs"] > 0 and c.stats["vgprs"] <= 256, c.stats
    loads = 0
    for line in c.disassemble().splitlines():       # vmcnt(k): at most k loads stay outstanding
        if line.startswith("global_load_b128"):
            loads += 1
            assert 4 * loads <= VMEM_IN_FLIGHT, line
        elif line.startswith("s_waitcnt") and "vmcnt(" in line:
            loads = min(loads, int(line.split("vmcnt(")[1].split(")")[0]))
    u = rng.integers(-2**31, 2**31, 4 * quads * 64, dtype=np.int64).astype(np.int32)
    out = run(c, {"out": np.zeros(64, np.int32), "u": u}, block=(64, 1, 1))
    acc = np.full(64, 3, np.uint32)
    rows = u.reshape(64, 4 * quads).astype(np.uint32)
    for q in range(quads - 1, -1, -1):
        for j in range(4):
            acc = acc * np.uint32(3) + rows[:, 4 * q + j]
    np.testing.assert_array_equal(out["out"], acc.view(np.int32))

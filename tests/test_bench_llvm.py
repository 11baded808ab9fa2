"""bench/bench_llvm.py's harness on three tinygrad kernels: tinygrad's LLVM IR for gfx1100
through opt/llc/ld.lld 22 and our frontend's code both run on Device("emu") with the same
buffers and agree; counts, emulated cycles and register figures come out of the emulator
(its timing model for cycles) and the code objects. Skips without tinygrad or the LLVM 22 tools."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tinygrad")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_llvm  # noqa: E402

if bench_llvm.llvm_missing():
    pytest.skip(f"{', '.join(bench_llvm.llvm_missing())} not installed", allow_module_level=True)


def test_harness_runs_both_and_they_agree(tmp_path, capsys):
    rows = bench_llvm.run_suite(["add", "sum_axis1", "idiv_const"], keep=str(tmp_path), quiet=True)
    assert len(rows) == 3
    for r in rows:
        assert r.error is None and r.mismatch is None, (r.op, r.error, r.mismatch)
        for side in (r.ours, r.llvm):
            assert side.instructions > 0 and side.vgprs > 0 and side.sgprs > 0
            assert sum(side.by_mnemonic.values()) == side.instructions
            # a wave issues at most one instruction a cycle and the launch waits for its longest wave,
            # so the launch takes at least the average wave's instruction count in cycles
            per_wave = side.instructions / side.by_mnemonic["s_endpgm"]   # each wave ends with one
            assert side.cycles >= per_wave > 0
        # LLVM's code object really came from llc: its kernel symbol is tinygrad's name
        assert (tmp_path / f"{r.kernel}.hsaco").exists()
    add = rows[0]
    summary = bench_llvm.report(rows)
    out = capsys.readouterr().out
    assert summary["kernels"] == 3 and summary["mismatches"] == 0
    assert "median instructions ours/LLVM" in out and add.kernel in out
    assert "median emulated cycles ours/LLVM" in out
    assert summary["median_cycle_ratio"] == sorted(r.ours.cycles / r.llvm.cycles for r in rows)[1]


def test_mismatch_is_reported():
    a = np.array([1.0, 2.0, np.nan], np.float32)
    assert bench_llvm.agree(a, a.copy()) is None
    assert "1 of 3" in bench_llvm.agree(a, np.array([1.0, 2.5, np.nan], np.float32))
    assert bench_llvm.agree(np.array([3], np.int32), np.array([4], np.int32)) is not None


def test_llvm_module_moves_allocas_to_private_space():
    ir = "  %reg_0 = alloca [4 x float]\n  %v1 = getelementptr inbounds float, float* %reg_0, i32 0\n"
    out = bench_llvm.llvm_module(ir)
    assert "%reg_0.private = alloca [4 x float], addrspace(5)" in out
    assert "%reg_0 = addrspacecast ptr addrspace(5) %reg_0.private to ptr" in out

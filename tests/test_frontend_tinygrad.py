"""The tinygrad device WAVESMITH (frontend/tinygrad/): registration without touching
tinygrad's files, the UOp importer, end-to-end results against numpy, and tinygrad's own
test_ops.py (../shared/peer/tinygrad, the peer suite) against torch, in parallel."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests import peer_suite

tinygrad = pytest.importorskip("tinygrad")     # the `tinygrad` extra (installed by the `test` extra)
ROOT = pathlib.Path(__file__).resolve().parent.parent
PEER = peer_suite.PEER

# The peer suite runs whole except these, each with its reason (figures: frontend/README.md).
# Too slow on the emulator: reductions over all 13125 elements of a (15, 25, 35) tensor (and a
# softmax's over a 45x65 one) that tinygrad leaves serial (no axis splits into 16 groups), so one
# wave issues ~100k instructions one at a time; each passes, in 6-10 minutes of a 2-core run.
PEER_EXCLUDED = peer_suite.EXCLUDED
# Known failures, each a clear compile error (never a wrong answer); the run fails if any other
# test fails or one of these fails differently. None at present.
PEER_KNOWN_FAILURES: dict[str, str] = {}
PEER_MIN_PASSED = 356            # tinygrad 0.14.0 + torch 2.13.0 with the exclusions above (66 skipped)
PEER_WORKERS = int(os.environ.get("WAVESMITH_PEER_WORKERS", "0")) or min(os.cpu_count() or 1, 4)
PEER_TIMEOUT_SECONDS = 2400      # the run's hard limit (about 13 minutes on 2 idle cores)


def test_device_registered_without_touching_tinygrad():
    import frontend.tinygrad
    from frontend.tinygrad import device
    from tinygrad import Device
    assert Device.get_class("WAVESMITH") is device.WavesmithDevice
    runtime_dir = pathlib.Path(tinygrad.__file__).parent / "runtime"
    assert not (runtime_dir / "ops_wavesmith.py").exists()
    assert sys.modules[frontend.tinygrad.MODULE] is device


def _t(x):
    import frontend.tinygrad  # noqa: F401
    from tinygrad import Tensor
    return Tensor(x, device="WAVESMITH")


def test_elementwise_reduce_matmul_match_numpy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((17, 33)).astype(np.float32)
    b = rng.standard_normal((33, 9)).astype(np.float32)
    ta, tb = _t(a), _t(b)
    np.testing.assert_allclose((ta.exp2() * 2 + 1).numpy(), np.exp2(a.astype(np.float64)) * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(ta.sum(axis=1).numpy(), a.astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ta.max(axis=0).numpy(), a.max(0))
    np.testing.assert_allclose((ta @ tb).numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ta.softmax(axis=1).numpy(), np.exp(a) / np.exp(a).sum(1, keepdims=True), rtol=1e-5,
                               atol=1e-6)


def test_integer_ops_match_numpy():
    x = np.array([-7, 8, 100, -3, 2**31 - 1, -2**31 + 1, 0, 13], np.int32)
    y = np.array([2, 3, -7, 2, 10, 9, 5, -4], np.int32)
    tx, ty = _t(x), _t(y)
    np.testing.assert_array_equal((tx // ty).numpy(), x // y)            # floor division
    np.testing.assert_array_equal((tx % ty).numpy(), x % y)
    np.testing.assert_array_equal((tx // 7).numpy(), x // 7)
    np.testing.assert_array_equal((tx < ty).numpy(), x < y)
    np.testing.assert_array_equal((tx ^ ty).numpy(), x ^ y)


def test_unsupported_kernel_is_a_clear_error_naming_the_uop():
    from frontend.isel import CompileError
    from frontend.tinygrad.importer import to_ir
    from tinygrad.dtype import dtypes
    from tinygrad.uop.ops import Ops, UOp
    bad = UOp(Ops.THREEFRY, dtypes.uint64, (UOp.const(1, dtypes.uint64), UOp.const(2, dtypes.uint64)))
    with pytest.raises(CompileError, match="THREEFRY"):
        to_ir([bad])


def test_kernel_the_frontend_cannot_select_names_the_uop_and_ir_instruction():
    # the device's compiler on a kernel isel refuses (ALU on a vector): the error must name
    # the IR instruction and the tinygrad UOp noted on it, not compute anything
    from tinygrad.device import CompileError
    from frontend.tinygrad.device import WavesmithCompiler
    src = """kernel E_2
buffer out f32x2[2]
buffer a f32x2[2]
%0 = i32 local_id 0 2
%1 = f32x2 load a[%0]
%2 = f32x2 add %1 %1  # ADD (dtypes.float.vec(2))
store out[%0] %2
"""
    with pytest.raises(CompileError) as e:
        WavesmithCompiler("gfx1100").compile(src)
    msg = str(e.value)
    assert re.search(r"%2 \(%2 = f32x2 add %1 %1\)", msg), msg
    assert "[ADD (dtypes.float.vec(2))]" in msg, msg


def test_float64_arithmetic_through_tinygrad():
    from tinygrad.dtype import dtypes
    a = np.array([1.0, 2.0, 3.0, -0.5], np.float32)
    got = ((_t(a).cast(dtypes.float64) * 3.1 + 0.7) / 1.3).numpy()
    assert got.dtype == np.float64
    # tinygrad fuses the multiply-add and divides by multiplying with 1/1.3: a few ulps from
    # numpy's order of rounding, far below float32's (the bit-exact per-op tests: test_frontend_f64.py)
    np.testing.assert_allclose(got, (a.astype(np.float64) * 3.1 + 0.7) / 1.3, rtol=1e-15, atol=0)
    # exp2/log2/sin on f64: tinygrad's own f64 decompositions (sin's Payne-Hanek reduction
    # divides 64-bit integers); a few ulps from numpy's
    x = np.array([0.5, -3.25, 10.0, 1e-3, 700.0, 123.456, -0.1, 2.0, 100.0], np.float32).astype(np.float64)
    t = _t(x).cast(dtypes.float64)
    np.testing.assert_allclose(t.exp2().numpy(), np.exp2(x), rtol=1e-15, atol=0)
    np.testing.assert_allclose(t.abs().log2().numpy(), np.log2(np.abs(x)), rtol=1e-15, atol=0)
    np.testing.assert_allclose(t.sin().numpy(), np.sin(x), rtol=1e-14, atol=1e-16)


def test_ir_text_carries_the_uop_of_each_instruction():
    from frontend.ir import parse
    from frontend.tinygrad.device import WavesmithRenderer
    captured = []
    real = WavesmithRenderer.render

    def spy(self, uops):
        captured.append((list(uops), real(self, uops)))
        return captured[-1][1]
    WavesmithRenderer.render = spy
    try:
        (_t(np.arange(6, dtype=np.float32)) + 1).exp2().numpy()
    finally:
        WavesmithRenderer.render = real
    uops, src = captured[-1]
    notes = []
    prog = parse(src, notes)
    assert len(notes) == len(prog.instrs)
    ops = {u.op.name for u in uops}
    for ins, note in zip(prog.instrs, notes):
        m = re.fullmatch(r"from UOp (\w+) \(.*\)", note)
        assert m and m.group(1) in ops, (ins, note)
    assert any(ins.op == "exp2" and "UOp EXP2" in n for ins, n in zip(prog.instrs, notes))


def test_peer_suite(tmp_path):
    """tinygrad's own test_ops.py on DEV='WAVESMITH;CPU:X86' against torch: every test it runs
    passes or is skipped by tinygrad itself; PEER_EXCLUDED is the only thing left out."""
    pytest.importorskip("torch")
    if shutil.which("clang-22") is None and shutil.which("clang") is None:
        pytest.fail("tinygrad's CPU:X86 host device needs clang (.ci/run installs clang-22)")
    if not (PEER / "test" / "backend" / "test_ops.py").exists():
        pytest.fail(f"peer suite not found at {PEER}")
    report = tmp_path / "peer.xml"
    extra = [f"--junitxml={report}", "--durations=10"]
    if PEER_WORKERS > 1:
        extra += ["-n", str(PEER_WORKERS), "--dist", "worksteal"]
    r, wall, cpu = peer_suite.run("WAVESMITH", *extra, timeout=PEER_TIMEOUT_SECONDS)
    tail = r.stdout[-4000:] + r.stderr[-2000:]
    assert report.exists(), tail
    counts = _junit_counts(report)
    print(f"peer suite: {counts}, {len(PEER_EXCLUDED)} excluded, {PEER_WORKERS} workers: {wall:.0f} s wall, "
          f"{cpu:.0f} s CPU\n{tail}")
    unexpected = {n: m for n, m in counts["failures"].items()
                  if n not in PEER_KNOWN_FAILURES or "CompileError" not in m}
    assert not unexpected and counts["errors"] == 0, (unexpected, tail)
    assert counts["passed"] >= PEER_MIN_PASSED, (counts, tail)


def _junit_counts(path) -> dict:
    import xml.etree.ElementTree as ET
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "failures": {}}
    for case in ET.parse(path).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        if "failure" in kinds:
            counts["failed"] += 1
            failure = case.find("failure")
            counts["failures"][case.get("name")] = (failure.get("message") or "") + (failure.text or "")
        elif "error" in kinds:
            counts["errors"] += 1
        elif "skipped" in kinds:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts


def test_module_runner_registers_the_device(tmp_path):
    script = tmp_path / "model.py"
    script.write_text("from tinygrad import Tensor\nprint((Tensor([1.0, 2.0, 3.0]).exp2() + 1).numpy().tolist())\n")
    env = dict(os.environ, DEV="WAVESMITH", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "frontend.tinygrad", str(script)], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[3.0, 5.0, 9.0]"

"""How tinygrad's own test_ops.py (../shared/peer/tinygrad, the peer suite) is started, shared by
tests/test_frontend_tinygrad.py (pass/fail on our device) and bench/bench_tinygrad_ops.py (wall and
CPU time on our device and on tinygrad's PYTHON device)."""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEER = pathlib.Path(os.environ.get("WAVESMITH_SHARED", ROOT.parent / "shared")) / "peer" / "tinygrad"
TEST_OPS = "test/backend/test_ops.py"
# Left out of every run, each with its reason
EXCLUDED = {
    "test_masked_select": "tinygrad skips it on its PYTHON device; minutes of emulated serial loops here",
    "test_std_keepdim": "serial 13125-element reductions (forward and backward)",
    "test_var_keepdim": "serial 13125-element reductions (forward and backward)",
    "test_softmax_argmax": "serial 45x65-element reductions",
}


def environment(device: str) -> dict:
    """DEV='<device>;CPU:X86' (tinygrad's CPU:X86 helper device compiles with a clang binary:
    CC=clang-22 when only that exists). PARALLEL=0: tinygrad would otherwise compile in a pool of
    freshly spawned processes, each importing tinygrad and wavesmith again, on cores already busy.
    WAVESMITH_LAUNCH_SECONDS: a launch's time budget, generous for a loaded machine."""
    env = dict(os.environ, DEV=f"{device};CPU:X86", SKIP_SLOW_TEST="1", PARALLEL="0", WAVESMITH_LAUNCH_SECONDS="300",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.setdefault("CC", "clang-22" if shutil.which("clang-22") else "clang")
    return env


def command(device: str, *extra: str) -> list[str]:
    """pytest on test_ops.py with the peer plugin (and our tinygrad device for WAVESMITH), the
    exclusions and `extra` arguments."""
    argv = [sys.executable, "-m", "pytest", "-p", "tests.peer_plugin", "-q", "-p", "no:cacheprovider", TEST_OPS]
    if device == "WAVESMITH":
        argv[3:3] = ["-p", "frontend.tinygrad"]
    for name in EXCLUDED:
        argv += ["--peer-exclude", name]
    return argv + list(extra)


def run(device: str, *extra: str, timeout: float) -> tuple[subprocess.CompletedProcess, float, float]:
    """One pytest process in the peer suite's folder: (its result, wall seconds, CPU seconds of the
    child: user + system from its own rusage, the steadier figure on a shared machine). Safe to
    call from several threads at once: each child's CPU time is its own (wait4), not the sum of
    every child this process has reaped. Raises subprocess.TimeoutExpired after `timeout` s."""
    argv = command(device, *extra)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, cwd=PEER, env=environment(device), stdout=out, stderr=err, text=True)
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if wall >= timeout and child.returncode < 0:
        raise subprocess.TimeoutExpired(argv, timeout, stdout, stderr)
    return subprocess.CompletedProcess(argv, child.returncode, stdout, stderr), wall, usage.ru_utime + usage.ru_stime

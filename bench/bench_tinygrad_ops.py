#!/usr/bin/env python3
"""tinygrad's own test_ops.py (../shared/peer/tinygrad, the peer suite) on our device and on
tinygrad's PYTHON device (its pure-Python emulator of a GPU), the same tests in one run of
this script: wall and CPU time of each pytest run and the ratio. Issue 18's goal: our device
no slower than PYTHON on this workload.

Each run is one pytest process, one worker (`PARALLEL=0`, no xdist: the two runs compete for
the same cores otherwise), `DEV='<device>;CPU:X86'`, `SKIP_SLOW_TEST=1`, started from the peer
suite's folder as tests/test_frontend_tinygrad.py starts it. CPU time is the child's (its
rusage: user + system), the steadier figure on a shared machine. The time includes tinygrad's
own work (scheduling, its compile of each kernel, the torch reference on the CPU), which both
devices pay; pytest's --durations lines of each run show the slowest tests.

    python bench/bench_tinygrad_ops.py                  # a subset (-k SUBSET below)
    python bench/bench_tinygrad_ops.py -k 'test_conv2d'
    python bench/bench_tinygrad_ops.py --all            # the whole suite (PYTHON: 5-11 min)

Needs tinygrad 0.14.0, torch and pytest; tinygrad's CPU:X86 helper device compiles with a
`clang` binary (CC=clang-22 is set when only that exists).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests import peer_suite  # noqa: E402  (the repository's tests/, on the path just above)

PEER = peer_suite.PEER
# elementwise, broadcasting, reductions, matmul, convolution, pooling, softmax and indexing:
# each kind of kernel the suite makes, a few of each (tests whose names start with these)
SUBSET = ("test_add or test_mul or test_sub or test_div or test_exp or test_log or test_sqrt or test_relu "
          "or test_sigmoid or test_where or test_sum or test_max or test_mean or test_matmul or test_gemm "
          "or test_conv2d or test_max_pool2d or test_avg_pool2d or test_softmax or test_cumsum or test_gather")
EXCLUDED = peer_suite.EXCLUDED       # left out of every run, each with its reason
DEVICES = (("WAVESMITH", "wavesmith (emulated gfx1100)"), ("PYTHON", "tinygrad PYTHON"))


def run(device: str, select: str | None, timeout: float) -> dict:
    r, wall, cpu = peer_suite.run(device, "--durations=5", *(["-k", select] if select else []), timeout=timeout)
    summary = next((line for line in reversed(r.stdout.splitlines()) if re.search(r"\b(passed|failed|error)", line)),
                   "(no pytest summary)")
    slowest = [line for line in r.stdout.splitlines() if re.match(r"\s*\d+\.\d+s (call|setup|teardown)", line)]
    return {"wall": wall, "cpu": cpu, "summary": summary.strip("= "), "slowest": slowest, "code": r.returncode,
            "tail": (r.stdout[-3000:] + r.stderr[-2000:]) if r.returncode not in (0, 5) else ""}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="select", default=SUBSET, help="pytest -k expression choosing the tests (default: a subset)")
    ap.add_argument("--all", action="store_true", help="the whole suite (but the exclusions above)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    args = ap.parse_args()
    select = None if args.all else args.select
    missing = [m for m in ("tinygrad", "torch") if __import__("importlib").util.find_spec(m) is None]
    if missing or not (PEER / "test" / "backend" / "test_ops.py").exists():
        print(f"nothing to measure: {'missing ' + ', '.join(missing) if missing else f'no peer suite at {PEER}'}")
        return 0
    print(f"tinygrad test_ops.py: {'every test' if select is None else f'-k {select!r}'}, "
          f"without {', '.join(EXCLUDED)}; one pytest process per device, one worker")
    results = {}
    for device, label in DEVICES:
        res = results[device] = run(device, select, args.timeout)
        print(f"  {label:28s} {res['wall']:7.1f} s wall {res['cpu']:7.1f} s CPU   {res['summary']}")
        for line in res["slowest"]:
            print(f"      {line.strip()}")
        if res["tail"]:
            print(f"    pytest exited with {res['code']}:\n{res['tail']}")
    ours, theirs = results["WAVESMITH"], results["PYTHON"]
    if ours["cpu"] and theirs["cpu"]:
        ratio = ours["cpu"] / theirs["cpu"]
        print(f"wavesmith / PYTHON: {ours['wall'] / theirs['wall']:.2f}x wall, {ratio:.2f}x CPU "
              f"(goal <= 1x: {'met' if ratio <= 1 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

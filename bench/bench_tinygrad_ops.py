#!/usr/bin/env python3
"""tinygrad's own test_ops.py (../shared/peer/tinygrad, the peer suite) on our device and on
tinygrad's PYTHON device (its pure-Python emulator of a GPU), the same tests in one run of
this script: wall and CPU time of each pytest run and the ratio, where each device's time
goes, and the tests where ours loses most. Issue 18's goal: our device no slower than PYTHON
on this workload.

Each run is one pytest process, one worker (`PARALLEL=0`, no xdist), `DEV='<device>;CPU:X86'`,
`SKIP_SLOW_TEST=1`, started from the peer suite's folder as tests/test_frontend_tinygrad.py
starts it. CPU time is the child's (its rusage: user + system), the steadier figure on a
shared machine. The time includes tinygrad's own work (scheduling, rewriting, the torch
reference on the CPU), which both devices pay. The peer plug-in's `--peer-times` gives each
test's CPU time and the device's phases: render (UOps -> source), compile (source -> binary:
ours is isel, waitcnt, register allocation, encoding and the code object; PYTHON's is a
base64 decode), load (binary -> program), run (launches), gc (Python's cyclic collector,
wherever it ran); "tinygrad" is the rest of a test.

    python bench/bench_tinygrad_ops.py                  # a subset (-k SUBSET below)
    python bench/bench_tinygrad_ops.py -k 'test_conv2d'
    python bench/bench_tinygrad_ops.py --all            # the whole suite
    python bench/bench_tinygrad_ops.py --all --together # both devices at once (half the wall time)

Needs tinygrad 0.14.0, torch and pytest; tinygrad's CPU:X86 helper device compiles with a
`clang` binary (CC=clang-22 is set when only that exists).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import threading
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
PHASES = ("render", "compile", "load", "run", "gc")


def run(device: str, select: str | None, timeout: float, times: Path) -> dict:
    r, wall, cpu = peer_suite.run(device, "--peer-times", str(times), *(["-k", select] if select else []),
                                  timeout=timeout)
    summary = next((line for line in reversed(r.stdout.splitlines()) if re.search(r"\b(passed|failed|error)", line)),
                   "(no pytest summary)")
    tests = {}
    if times.exists():
        for line in times.read_text().splitlines():
            t = json.loads(line)
            tests[t["test"]] = t
    return {"wall": wall, "cpu": cpu, "summary": summary.strip("= "), "tests": tests, "code": r.returncode,
            "tail": (r.stdout[-3000:] + r.stderr[-2000:]) if r.returncode not in (0, 5) else ""}


def phase_line(res: dict) -> str:
    """Where the child's CPU time went: the device's phases, tinygrad's share of the tests, and
    outside any test (imports, collection)."""
    tests = res["tests"].values()
    spent = {p: sum(t[p] for t in tests) for p in PHASES}
    in_tests = sum(t["cpu"] for t in tests)
    spent["tinygrad"] = in_tests - sum(spent.values())
    spent["outside tests"] = res["cpu"] - in_tests
    return ", ".join(f"{name} {sec:.1f} s" for name, sec in spent.items())


def worst(ours: dict, theirs: dict, count: int) -> list[str]:
    """The tests where our CPU time exceeds PYTHON's most (seconds lost), with our phases."""
    both = [(t, theirs[name]) for name, t in ours.items() if name in theirs and t["outcome"] == "passed"
            and theirs[name]["outcome"] == "passed"]
    slower = sorted(both, key=lambda p: p[1]["cpu"] - p[0]["cpu"])
    lines = [f"    {'test':44s} {'ours s':>7s} {'PYTHON s':>8s} {'ratio':>6s}   ours: "
             + " ".join(f"{p:>7s}" for p in PHASES) + f" {'tinygrad':>8s}"]
    for o, p in slower[:count]:
        if o["cpu"] <= p["cpu"]:
            break
        rest = o["cpu"] - sum(o[ph] for ph in PHASES)
        lines.append(f"    {o['test'].split('::')[-1][:44]:44s} {o['cpu']:7.2f} {p['cpu']:8.2f} "
                     f"{o['cpu'] / max(p['cpu'], 1e-3):6.2f}         " + " ".join(f"{o[ph]:7.2f}" for ph in PHASES)
                     + f" {rest:8.2f}")
    lost = sum(o["cpu"] - p["cpu"] for o, p in both if o["cpu"] > p["cpu"])
    won = sum(p["cpu"] - o["cpu"] for o, p in both if o["cpu"] <= p["cpu"])
    n_slower = sum(o["cpu"] > p["cpu"] for o, p in both)
    lines.insert(0, f"  tests passed on both: {len(both)}; ours slower on {n_slower} (losing {lost:.1f} s CPU), "
                    f"faster on {len(both) - n_slower} (gaining {won:.1f} s); the worst {count}:")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="select", default=SUBSET, help="pytest -k expression choosing the tests (default: a subset)")
    ap.add_argument("--all", action="store_true", help="the whole suite (but the exclusions above)")
    ap.add_argument("--together", action="store_true", help="run both devices at the same time (CPU times stay "
                                                            "comparable; wall times are each slowed by the other)")
    ap.add_argument("--worst", type=int, default=15, help="how many of the worst tests to list")
    ap.add_argument("--keep", type=Path, help="keep each device's per-test times in DIR/<device>.jsonl")
    ap.add_argument("--timeout", type=float, default=7200, help="seconds per run")
    args = ap.parse_args()
    select = None if args.all else args.select
    missing = [m for m in ("tinygrad", "torch") if __import__("importlib").util.find_spec(m) is None]
    if missing or not (PEER / "test" / "backend" / "test_ops.py").exists():
        print(f"nothing to measure: {'missing ' + ', '.join(missing) if missing else f'no peer suite at {PEER}'}")
        return 0
    print(f"tinygrad test_ops.py: {'every test' if select is None else f'-k {select!r}'}, "
          f"without {', '.join(EXCLUDED)}; one pytest process per device, one worker"
          + (", both devices at once" if args.together else ""))
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench_tinygrad_ops_"))
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {}

    def measure(device):
        results[device] = run(device, select, args.timeout, folder / f"{device}.jsonl")
    if args.together:
        threads = [threading.Thread(target=measure, args=(device,)) for device, _ in DEVICES]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for device, _ in DEVICES:
            measure(device)
    for device, label in DEVICES:
        res = results[device]
        print(f"  {label:28s} {res['wall']:7.1f} s wall {res['cpu']:7.1f} s CPU   {res['summary']}")
        print(f"      CPU: {phase_line(res)}")
        if res["tail"]:
            print(f"    pytest exited with {res['code']}:\n{res['tail']}")
    ours, theirs = results["WAVESMITH"], results["PYTHON"]
    print("\n".join(worst(ours["tests"], theirs["tests"], args.worst)))
    if ours["cpu"] and theirs["cpu"]:
        ratio = ours["cpu"] / theirs["cpu"]
        print(f"wavesmith / PYTHON: {ours['wall'] / theirs['wall']:.2f}x wall, {ratio:.2f}x CPU "
              f"(goal <= 1x: {'met' if ratio <= 1 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

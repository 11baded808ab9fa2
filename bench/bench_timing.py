#!/usr/bin/env python3
"""Cost of the timing model: the same launch with `timing=True` against the functional run
alone, measured in the same process (goal: at most 3x).

  saxpy:  the DSL kernel of `wavesmith demo` (y = a * x + y with bounds check) over --n
          elements, 256-item work-groups: a uniform kernel, one distinct CU to simulate
  conv1d: the corpus's clang-built 1D convolution (../shared/kernels/conv1d), N = 5000,
          40 work-groups of 128: a loop whose trip count differs at the edges
  sgemm:  the corpus's clang-built sgemm_tiled_lds, 128 x 128 x 128 (LDS tiles, barriers)

Each launch runs once to warm up (decoding, semantics, classification), then the best of
--repeat runs of each mode is kept; CPU time of this process is shown beside wall time (the
steadier figure on a shared machine).

    python bench/bench_timing.py [--n 1048576] [--repeat 5]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))


def best(fn, repeat: int) -> tuple[float, float, object]:
    wall = cpu = float("inf")
    out = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = min(wall, time.perf_counter() - w0), min(cpu, time.process_time() - c0)
    return wall, cpu, out


def saxpy(n: int):
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.demo import build_saxpy
    from runtime.writer import from_dsl_kernel
    hsaco = from_dsl_kernel(build_saxpy("gfx1100"), "saxpy",
                            [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
                             KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")],
                            user_sgpr_kernarg_segment_ptr=1)
    dev = Device("emu")
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    xb, yb = dev.alloc(x.nbytes).copyin(x), dev.alloc(x.nbytes).copyin(x)
    prg = dev.load(hsaco)
    grid = (-(-n // 256), 1, 1)
    return lambda timing: prg.launch("saxpy", grid, (256, 1, 1), [xb, yb, np.float32(2.5), np.uint32(n)], timing=timing)


def corpus(name: str):
    sys.path.insert(0, str(REPO))
    from runtime import Device
    from tests.kernel_corpus import make_inputs
    folder = SHARED / "kernels" / name
    m = json.loads((folder / "manifest.json").read_text())
    dev = Device("emu")
    prg = dev.load((folder / m["code_objects"]["gfx1100"]).read_bytes())
    inputs = make_inputs(m)
    args = [inputs[a["name"]] if a["kind"] == "scalar" else dev.alloc(inputs[a["name"]].nbytes).copyin(inputs[a["name"]])
            for a in m["args"]]
    return lambda timing: prg.launch(m["kernel"], m["launch"]["grid"], m["launch"]["block"], args, timing=timing)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    cases = [(f"saxpy n={a.n}", saxpy(a.n))]
    for name in ("conv1d", "sgemm_tiled_lds"):
        if (SHARED / "kernels" / name / "manifest.json").exists():
            cases.append((name, corpus(name)))
        else:
            print(f"{name}: skipped ({SHARED / 'kernels'} not found)")
    print(f"{'launch':<22}{'functional ms':>15}{'timed ms':>12}{'ratio':>8}{'cpu ratio':>11}  timed result")
    for label, launch in cases:
        launch(False)
        launch(True)
        fw, fc, _ = best(lambda: launch(False), a.repeat)
        tw, tc, stats = best(lambda: launch(True), a.repeat)
        rep = stats.timing
        print(f"{label:<22}{fw * 1e3:>15.1f}{tw * 1e3:>12.1f}{tw / fw:>8.2f}{tc / fc:>11.2f}  "
              f"{rep.cycles:,} cycles, {len(rep.waves)} waves{' (' + rep.note + ')' if rep.note else ''}")
    print("goal: timed / functional <= 3")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

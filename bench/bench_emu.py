#!/usr/bin/env python3
"""Emulator speed: lane-operations per second and the ratio to numpy computing the same
result in the same run.

  elementwise: y = a * x + b over N (default 1M) f32 elements, a kernel assembled with dsl
               (bounds check, global loads, v_fma_f32, global store), 256-item work-groups;
               run three times: with the MODE clang's kernels start with (their descriptors
               keep f32 denormals) and with Dispatch's default MODE=0 (f32 denormals flushed),
               both for a = 1.5, b = -0.25, and once more with a and b of full 24-bit
               significands: short constants let the fma prove every float64 sum exact and
               skip its double-rounding test (rtlib._sums_exact), full ones take the general
               path, so both are shown
  sgemm:       C = A @ B, 128 x 128 x 128 f32, the corpus's clang-built sgemm_tiled_lds
               (16x16 tiles staged in LDS, two barriers per K step) through Device("emu")

Each is run once to warm up (decoding, semantics compilation) and then timed with the best of
--repeat runs; numpy is timed the same way. Goal: elementwise within 30x of numpy. Wall time
and the process's CPU time are both shown: on a machine shared with other work the CPU
time (and its ratio) is the steadier figure.

    python bench/bench_emu.py [--n 1048576] [--arch gfx1100] [--repeat 9] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))

import dsl  # noqa: E402
from emu.launch import Dispatch  # noqa: E402
from emu.machine import Machine  # noqa: E402
from emu.memory import DeviceMemory  # noqa: E402

ELEMENTWISE = """
    s_load_b128 s[4:7], s[0:1], 0x0          // x, y
    s_load_b64 s[8:9], s[0:1], 0x10          // a, b (f32 bits)
    s_load_b32 s10, s[0:1], 0x18             // n
    s_lshl_b32 s11, s2, 8
    s_waitcnt lgkmcnt(0)
    v_add_nc_u32 v1, s11, v0
    v_cmpx_gt_u32 s10, v1
    s_cbranch_execz done
    v_lshlrev_b32 v1, 2, v1
    global_load_b32 v2, v1, s[4:5]
    s_waitcnt vmcnt(0)
    v_fma_f32 v2, s8, v2, s9
    global_store_b32 v1, v2, s[6:7]
done:
    s_endpgm
"""


def best(fn, repeat: int):
    """(best wall seconds, best CPU seconds, last result) over `repeat` calls."""
    wall, cpu, result = [], [], None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - t)
    return min(wall), min(cpu), result


def report(name: str, stats, emu: tuple, numpy: tuple, ok: bool, goal: float | None = None) -> None:
    (emu_s, emu_cpu), (numpy_s, numpy_cpu) = emu, numpy

    def ratio(e: float, n: float) -> str:
        r = e / max(n, 1e-9)
        return f"ratio {r:7.1f}x" + (f"  (goal <= {goal:g}x: {'met' if r <= goal else 'NOT met'})" if goal else "")
    print(f"{name}:\n    {stats.lane_ops / emu_s / 1e6:8.1f} M lane-ops/s  ({stats.lane_ops} lane-ops, "
          f"{stats.instructions} wave-instructions in {stats.batches} batches, {stats.waves} waves)")
    print(f"    wall time: emulator {emu_s * 1e3:9.1f} ms   numpy {numpy_s * 1e3:8.3f} ms   {ratio(emu_s, numpy_s)}"
          f"   result {'matches numpy' if ok else 'DIFFERS from numpy'}")
    print(f"    CPU time:  emulator {emu_cpu * 1e3:9.1f} ms   numpy {numpy_cpu * 1e3:8.3f} ms   {ratio(emu_cpu, numpy_cpu)}")


def clang_mode(arch: str) -> tuple[int, str]:
    """(MODE, where it came from) as the corpus's clang-built kernels start: their descriptors
    say `.amdhsa_float_denorm_mode_32 3` (f32 denormals kept), unlike Dispatch's default 0."""
    from runtime.codeobj import read_code_object
    from runtime.descriptor import KernelDescriptor
    from runtime.device import initial_mode
    machine_spec = Machine(arch, DeviceMemory()).spec
    folder = SHARED / "kernels" / "ew_f32_fma_minmax"
    if folder.exists():
        manifest = json.loads((folder / "manifest.json").read_text())
        co = read_code_object((folder / manifest["code_objects"][arch]).read_bytes())
        return initial_mode(machine_spec, co.kernels[manifest["kernel"]].descriptor), f"{folder.name}'s descriptor"
    # the corpus is absent: the descriptor fields clang emits for gfx11 kernels
    desc = KernelDescriptor(float_denorm_mode_32=3, float_denorm_mode_16_64=3, enable_dx10_clamp=1,
                            enable_ieee_mode=1)
    return initial_mode(machine_spec, desc), "clang's gfx11 descriptor defaults"


SHORT, FULL = (1.5, -0.25), (1.1, -0.3)        # (a, b): short significands / full 24-bit ones


def elementwise(arch: str, n: int, repeat: int, mode: int = 0, label: str = "MODE=0", ab=SHORT) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    a, b = np.float32(ab[0]), np.float32(ab[1])
    mem = DeviceMemory()
    xa, ya = mem.alloc(x.nbytes, "x"), mem.alloc(x.nbytes, "y")
    mem.write(xa, x)
    kernarg = mem.alloc(64, "kernarg")
    mem.write(kernarg, np.array([xa, ya], np.uint64).tobytes() + np.array([a, b], np.float32).tobytes()
              + np.uint32(n).tobytes())
    code = dsl.assemble(ELEMENTWISE, arch)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    machine = Machine(arch, mem)
    d = Dispatch("elementwise", at, grid=(-(-n // 256), 1, 1), block=(256, 1, 1), vgprs=8,
                 user_sgprs=[kernarg & 0xFFFFFFFF, kernarg >> 32], mode=mode)
    machine.run(d)                                      # warm-up: decode, compile semantics
    *emu, stats = best(lambda: machine.run(d), repeat)
    *np_t, want = best(lambda: a * x + b, repeat)
    got = np.frombuffer(mem.read(ya, x.nbytes), np.float32)
    report(f"elementwise {n} ({arch}), a={a:g} b={b:g}, {label}", stats, emu, np_t, bool(np.allclose(got, want, rtol=1e-6, atol=1e-6)), 30)


def sgemm(arch: str, size: int, repeat: int) -> None:
    from runtime import Device
    folder = SHARED / "kernels" / "sgemm_tiled_lds"
    if not folder.exists():
        print(f"sgemm: {folder} not found (set WAVESMITH_SHARED); skipped")
        return
    manifest = json.loads((folder / "manifest.json").read_text())
    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    B = rng.uniform(-1, 1, (size, size)).astype(np.float32)
    dev = Device("emu", arch=arch)
    prg = dev.load((folder / manifest["code_objects"][arch]).read_bytes())
    bufs = [dev.alloc(A.nbytes, "A").copyin(A), dev.alloc(B.nbytes, "B").copyin(B), dev.alloc(A.nbytes, "C")]
    dims = [np.uint32(size)] * 3
    tiles = size // 16

    def launch():
        return prg.launch(manifest["kernel"], grid=(tiles, tiles, 1), block=(16, 16, 1), args=bufs + dims)
    launch()
    *emu, stats = best(launch, repeat)
    *np_t, want = best(lambda: A @ B, repeat)
    got = bufs[2].copyout(np.float32).reshape(size, size)
    report(f"sgemm {size}x{size}x{size} tiled ({arch})", stats, emu, np_t,
           bool(np.allclose(got, want, rtol=1e-4, atol=1e-4)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="elements of the elementwise kernel")
    ap.add_argument("--size", type=int, default=128, help="M = N = K of the SGEMM (a multiple of 16)")
    ap.add_argument("--arch", default="gfx1100")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--profile", action="store_true", help="cProfile one elementwise run (top 20 by own time)")
    ap.add_argument("--mode", type=lambda v: int(v, 0), default=0, help="MODE of the profiled run")
    args = ap.parse_args()
    mode, source = clang_mode(args.arch)
    clang = f"MODE {mode:#x} as clang's kernels set it (f32 denormals kept; from {source})"
    elementwise(args.arch, args.n, args.repeat, mode, clang)
    elementwise(args.arch, args.n, args.repeat, mode, clang + "; full-significand a and b", FULL)
    elementwise(args.arch, args.n, args.repeat, 0, "MODE=0 (f32 denormals flushed)")
    sgemm(args.arch, args.size, args.repeat)
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(elementwise, args.arch, args.n, 1, args.mode, f"MODE={args.mode:#x}")
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    sys.exit(main())

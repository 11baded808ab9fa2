"""`wavesmith demo`: the main job on a small model — a two-layer MLP with a softmax, written
with tinygrad, compiled by the frontend (no LLVM) on the WAVESMITH device, run on
Device("emu"), checked against numpy; then every kernel it ran, with its statistics and its
machine code in LLVM syntax."""
from __future__ import annotations

import os
import sys
import time

import numpy as np

BATCH, FEATURES, HIDDEN, CLASSES = 8, 64, 32, 10


def weights(seed: int = 0):
    """Input and weights of the demo model (float32, fixed seed)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    w1 = (rng.standard_normal((FEATURES, HIDDEN)) / np.sqrt(FEATURES)).astype(np.float32)
    b1 = (rng.standard_normal(HIDDEN) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, CLASSES)) / np.sqrt(HIDDEN)).astype(np.float32)
    b2 = (rng.standard_normal(CLASSES) * 0.1).astype(np.float32)
    return x, w1, b1, w2, b2


def reference(x, w1, b1, w2, b2) -> np.ndarray:
    """softmax(relu(x @ w1 + b1) @ w2 + b2) in float64 with numpy."""
    h = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def select_arch(arch: str) -> None:
    """Point tinygrad's WAVESMITH device at `arch` (through DEV, read when tinygrad is imported);
    ValueError if that is no longer possible in this process or `arch` has no DSL."""
    from runtime.demo import dsl_family
    dsl_family(arch)
    if "tinygrad" not in sys.modules:
        os.environ["DEV"] = f"WAVESMITH::{arch}"
        return
    from tinygrad.helpers import DEV
    current = DEV.target("WAVESMITH").arch or "gfx1100"
    if current != arch:
        raise ValueError(f"tinygrad is already set up for {current} in this process; run the demo in a new "
                         f"process (or with DEV=WAVESMITH::{arch})")


def run_model(arch: str = "gfx1100"):
    """Run the model on WAVESMITH. Returns (probabilities, reference, kernels), kernels being
    per compiled kernel in order: (frontend.compile.Compiled, [launch records])."""
    select_arch(arch)
    import frontend.tinygrad  # noqa: F401  (registers the device)
    from tinygrad import Context, Device, Tensor

    dev = Device["WAVESMITH"]
    first_launch = len(dev.launches)
    x, w1, b1, w2, b2 = weights()
    t = {name: Tensor(a, device="WAVESMITH") for name, a in zip(("x", "w1", "b1", "w2", "b2"), (x, w1, b1, w2, b2))}
    # PARALLEL=0: compile in this process (so the sources are at hand), not in a pool of fresh
    # processes that each import tinygrad and wavesmith again
    with Context(PARALLEL=0):
        probs = ((t["x"] @ t["w1"] + t["b1"]).relu() @ t["w2"] + t["b2"]).softmax(axis=1).numpy()

    from frontend.compile import compile_program
    from frontend.ir import parse
    source_of = {lib: src for src, lib in dev.renderer.compiler.cache.items()}
    kernels: dict[bytes, tuple] = {}         # code object -> (Compiled, launches), in order of first launch
    for rec in list(dev.launches)[first_launch:]:
        if rec.lib not in kernels:
            if rec.lib not in source_of:
                raise RuntimeError(f"{rec.name}: compiled in another process (tinygrad's worker pool); run the "
                                   f"demo in a new process")
            c = compile_program(parse(source_of[rec.lib]), dev.renderer.compiler.arch)  # kept whole this time
            if c.hsaco != rec.lib:
                raise RuntimeError(f"{c.name}: compiling twice gave different code objects")
            kernels[rec.lib] = (c, [])
        kernels[rec.lib][1].append(rec)
    kernels = list(kernels.values())
    return probs, reference(x, w1, b1, w2, b2), kernels


def demo(arch: str = "gfx1100", disassembly: bool = True) -> int:
    print(f"wavesmith demo — a small model through tinygrad on WAVESMITH ({arch}): UOps -> wavesmith's "
          f"frontend (no LLVM) -> code objects -> Device('emu') -> numpy check\n")
    print(f"   model: probs = softmax(relu(x @ w1 + b1) @ w2 + b2),  x {BATCH}x{FEATURES}, w1 {FEATURES}x{HIDDEN}, "
          f"w2 {HIDDEN}x{CLASSES}  (float32)\n")
    start = time.perf_counter()
    probs, want, kernels = run_model(arch)
    wall = time.perf_counter() - start
    err = float(np.abs(probs - want).max())
    ok = probs.shape == want.shape and err <= 1e-5
    print(f"1. result vs numpy (float64): max |difference| {err:.2e} over {probs.size} probabilities "
          f"-> {'MATCH' if ok else 'DIFFERENT'} (tolerance 1e-5); rows sum to "
          f"{np.array2string(probs.sum(axis=1)[:3], precision=6)}...; argmax {probs.argmax(axis=1).tolist()}")
    print(f"   {len(kernels)} kernels compiled and run in {wall:.1f} s (tinygrad's scheduling, our compile and "
          f"the emulator)\n")
    print("2. the kernels (statistics from the compiler; time and wave-instructions from the emulated launch):\n")
    print(f"   {'kernel':<22} {'instrs':>6} {'VGPRs':>5} {'SGPRs':>5} {'waits':>5} {'grid':>11} {'block':>11} "
          f"{'launch':>8} {'wave-instrs':>11}")
    for c, recs in kernels:
        s = c.stats
        for rec in recs or [None]:
            grid = "x".join(map(str, rec.grid)) if rec else "-"
            block = "x".join(map(str, rec.block)) if rec else "-"
            ms = f"{rec.seconds * 1e3:.0f} ms" if rec else "-"
            waves = str(rec.stats.instructions) if rec else "-"
            print(f"   {c.name:<22} {s['instructions']:>6} {s['vgprs']:>5} {s['sgprs']:>5} {s['waitcnts']:>5} "
                  f"{grid:>11} {block:>11} {ms:>8} {waves:>11}")
    if disassembly:
        print("\n3. their machine code (LLVM syntax):")
        for c, _ in kernels:
            print(f"\n   {c.name}: {c.stats['instructions']} instructions, {c.stats['vgprs']} VGPRs, "
                  f"{c.stats['sgprs']} SGPRs, {len(c.hsaco)}-byte code object")
            print("     " + c.disassemble().strip().replace("\n", "\n     "))
    print("\n   (`wavesmith demo --dsl`: a kernel written with the Python DSL; `--isa`: the generated ISA tables)")
    return 0 if ok else 1

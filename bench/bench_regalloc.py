"""Register allocation: speed on a large kernel and register quality on random programs.

    python bench/bench_regalloc.py [--instructions 20000] [--live 150] [--seed 1] [--profile]
                                   [--programs 200] [--check 0]

Speed (goal: a 20k-instruction kernel with ~150 values live allocates in < 1 s): builds a
kernel of unrolled tiles inside loops and if/else diamonds -- `--live` accumulators live
from start to end, 4-dword loads, f32 FMA chains on 8 more accumulators live across each
loop, 64-bit pointer arithmetic in SGPR pairs, stores -- all in virtual registers, then
times the dsl -> regalloc program (operand roles, control flow), the allocation itself
(liveness + assignment) and rewriting + encoding the physical kernel.

Quality: `--programs N` random programs of tests/regalloc_fuzz.py (divergent loops and
ifs, VOPD, tuples, 64-bit values): the distribution of allocated VGPRs minus max-live and
the share within max-live + 1. `--check N` also runs the first N of them on Device("emu")
against the interpreter (the end-to-end test, longer than CI's)."""
from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import regalloc  # noqa: E402
from dsl.rdna3 import *  # noqa: E402,F403


def build(n_instructions: int, seed: int, live: int = 150) -> Kernel:
    rng = random.Random(seed)
    k = Kernel("gfx1100")
    ptr = k.sreg(2, "ptr")
    k += s_load_b64(ptr, s[0:1], 0)
    k += s_waitcnt(0)
    outer = [k.vreg(name=f"g{i}") for i in range(max(live - 14, 0))]    # live from start to end
    for i, g in enumerate(outer):
        k += v_cvt_f32_u32(g, i)
    block = 0
    while len(k.items) < n_instructions:
        block += 1
        accs = [k.vreg(name=f"acc{block}_{i}") for i in range(8)]
        for a in accs:
            k += v_mov_b32(a, 0)
        counter = k.sreg(name=f"n{block}")
        k += s_mov_b32(counter, 16)
        k.label(f"loop{block}")
        for tile in range(rng.randint(4, 12)):
            data = k.vreg(4)
            k += global_load_b128(data, v[0], ptr, offset=16 * tile)
            k += s_waitcnt(0)
            scale = k.vreg()
            k += v_mul_f32(scale, data[0], 0.5)
            for a in accs:
                k += v_fmac_f32(a, data[rng.randrange(4)], scale)
            if outer:
                g = outer[rng.randrange(len(outer))]
                k += v_add_f32(g, g, scale)
            if rng.random() < 0.3:
                k += s_cmp_eq_u32(counter, 3)
                k += s_cbranch_scc1(f"skip{block}_{tile}")
                extra = k.vreg(2)
                k += v_mov_b32(extra[0], data[1])
                k += v_mov_b32(extra[1], data[2])
                k += global_store_b64(v[0], extra, ptr)
                k.label(f"skip{block}_{tile}")
        k += s_add_u32(ptr[0], ptr[0], 64)
        k += s_addc_u32(ptr[1], ptr[1], 0)
        k += s_sub_u32(counter, counter, 1)
        k += s_cmp_lg_u32(counter, 0)
        k += s_cbranch_scc1(f"loop{block}")
        for a in accs:
            k += global_store_b32(v[0], a, ptr)
    for g in outer:
        k += global_store_b32(v[0], g, ptr)
    k += s_endpgm()
    return k


def quality(programs: int, check: int):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from collections import Counter

    from tests.regalloc_fuzz import Generator
    from tests.regalloc_fuzz import check as run_check
    excess, times, sizes = Counter(), [], []
    for seed in range(programs):
        k, _, _ = Generator(seed).build()
        prog = k.program()
        t = time.process_time()
        a = regalloc.allocate(prog, regalloc.limits(k.arch, k.wave_size))
        times.append(time.process_time() - t)
        excess[a.vgprs - a.peak["v"]] += 1
        sizes.append(len(prog.instrs))
    within = (excess[0] + excess[1]) / max(programs, 1)
    print(f"random programs: {programs} ({min(sizes)}-{max(sizes)} instructions), allocated VGPRs - max-live: "
          + ", ".join(f"+{d}: {n}" for d, n in sorted(excess.items())))
    print(f"within max-live + 1: {100 * within:.1f}%   allocation {1000 * sum(times) / programs:.1f} ms CPU/program")
    bad = 0
    t = time.perf_counter()
    for seed in range(check):
        r = run_check(seed)
        if r.mismatches:
            bad += 1
            print(f"  seed {seed}: MISMATCH {r.mismatches[:3]}")
    if check:
        print(f"end-to-end on the emulator: {check - bad}/{check} programs match the interpreter "
              f"({time.perf_counter() - t:.0f} s)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instructions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--live", type=int, default=150, help="values live throughout (default 150)")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--programs", type=int, default=200, help="random programs for the quality figure")
    ap.add_argument("--check", type=int, default=0, help="of those, run this many on the emulator")
    args = ap.parse_args(argv)

    if args.programs:
        quality(args.programs, args.check)
    t0 = time.perf_counter()
    k = build(args.instructions, args.seed, args.live)
    t1 = time.perf_counter()
    prog = k.program()
    t2 = time.perf_counter()
    prof = cProfile.Profile() if args.profile else None
    if prof:
        prof.enable()
    c2 = time.process_time()
    alloc = regalloc.allocate(prog, regalloc.limits(k.arch, k.wave_size))
    c3 = time.process_time()
    if prof:
        prof.disable()
    t3 = time.perf_counter()
    code = k.assemble()
    t4 = time.perf_counter()
    print(f"kernel: {len(k.items)} instructions, {len(k.virtuals)} virtual registers, {len(code)} bytes")
    print(f"build with the DSL (encodes each instruction): {t1 - t0:.2f} s")
    print(f"kernel -> regalloc program:                    {t2 - t1:.2f} s")
    print(f"allocate (liveness + assignment):              {t3 - t2:.2f} s, {c3 - c2:.2f} s CPU   (goal < 1 s)")
    print(f"rewrite + encode the physical kernel:          {t4 - t3:.2f} s")
    print(f"program + allocate:                            {t3 - t1:.2f} s")
    print(f"VGPRs {alloc.vgprs} (max live {alloc.peak['v']}), SGPRs {alloc.sgprs} (max live {alloc.peak['s']}), "
          f"waves/SIMD {alloc.waves_per_simd}, moves made no-ops {len(alloc.identity_copies)}")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()

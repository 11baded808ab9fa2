"""Register allocation speed on a large kernel (goal: a 20k-instruction kernel in < 2 s).

    python bench/bench_regalloc.py [--instructions 20000] [--seed 1] [--profile]

Builds a kernel of unrolled tiles inside loops and if/else diamonds — 4-dword loads,
f32 FMA chains on 8 accumulators live across each loop, 64-bit pointer arithmetic in
SGPR pairs, stores — all in virtual registers, then times: the dsl -> regalloc program
(operand roles, control flow), the allocation itself (liveness + assignment), and
rewriting + encoding the physical kernel. Prints the register use it reached."""
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


def build(n_instructions: int, seed: int) -> Kernel:
    rng = random.Random(seed)
    k = Kernel("gfx1100")
    ptr = k.sreg(2, "ptr")
    k += s_load_b64(ptr, s[0:1], 0)
    k += s_waitcnt(0)
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
    k += s_endpgm()
    return k


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instructions", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    k = build(args.instructions, args.seed)
    t1 = time.perf_counter()
    prog = k.program()
    t2 = time.perf_counter()
    prof = cProfile.Profile() if args.profile else None
    if prof:
        prof.enable()
    alloc = regalloc.allocate(prog, regalloc.limits(k.arch, k.wave_size))
    if prof:
        prof.disable()
    t3 = time.perf_counter()
    k._allocation, k._allocated_for = alloc, (len(k.items), len(k.labels), len(k.virtuals))
    code = k.assemble()
    t4 = time.perf_counter()
    print(f"kernel: {len(k.items)} instructions, {len(k.virtuals)} virtual registers, {len(code)} bytes")
    print(f"build with the DSL (encodes each instruction): {t1 - t0:.2f} s")
    print(f"kernel -> regalloc program:                    {t2 - t1:.2f} s")
    print(f"allocate (liveness + assignment):              {t3 - t2:.2f} s   (goal < 2 s)")
    print(f"rewrite + encode the physical kernel:          {t4 - t3:.2f} s")
    print(f"program + allocate:                            {t3 - t1:.2f} s")
    print(f"VGPRs {alloc.vgprs} (max live {alloc.peak['v']}), SGPRs {alloc.sgprs} (max live {alloc.peak['s']}), "
          f"waves/SIMD {alloc.waves_per_simd}, moves made no-ops {len(alloc.identity_copies)}")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()

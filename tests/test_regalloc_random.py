"""Randomised programs (nested loops, if/else diamonds, 1/2/4-dword tuples built whole or
part by part, accumulators updated inside loops and branches): every allocation passes the
independent checker, and the VGPRs used stay within max-live + 1 on at least 95% of them."""
from __future__ import annotations

import random
from collections import Counter

from dsl.rdna3 import *  # noqa: F403
from tests.regalloc_check import lower_bound, verify


class Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.k = Kernel("gfx1100")
        self.labels = 0

    def label(self) -> str:
        self.labels += 1
        return f"L{self.labels}"

    def new_value(self, visible: list, out: list):
        rng, k = self.rng, self.k
        width = rng.choice([1, 1, 1, 1, 2, 2, 4])
        x = k.vreg(width)
        singles = [v for v in visible if v.count == 1]
        if width == 1:
            if singles and rng.random() < 0.7:
                k += v_add_f32(x, rng.choice(singles), rng.choice(singles))
            else:
                k += v_cvt_f32_u32(x, rng.randrange(64))
        elif width == 2 and rng.random() < 0.5 and any(v.count == 2 for v in visible):
            pairs = [v for v in visible if v.count == 2]
            k += v_add_f64(x, rng.choice(pairs), rng.choice(pairs))
        elif width == 4 and rng.random() < 0.5:
            k += global_load_b128(x, v[0], s[0:1])
            k += s_waitcnt(0)
        else:
            for part in range(width):           # built one dword at a time
                src = rng.choice(singles) if singles and rng.random() < 0.5 else float(part)
                k += v_mov_b32(x[part], src)
        out.append(x)

    def fold(self, value, accumulators: list):
        """Last use of `value`: add its dwords into an accumulator that outlives it."""
        acc = self.rng.choice(accumulators)
        for part in range(value.count):
            self.k += v_add_f32(acc, acc, value[part] if value.count > 1 else value)

    def region(self, depth: int, visible: list, accumulators: list):
        rng = self.rng
        local: list = []
        for _ in range(rng.randint(2, 6)):
            if len(self.k.items) > 200:       # keep the checker's brute-force passes quick
                break
            r = rng.random()
            if r < 0.45:
                self.new_value(visible + local, local)
            elif r < 0.6 and local:
                self.fold(local.pop(rng.randrange(len(local))), accumulators)
            elif r < 0.8 and depth < 3:
                self.loop(depth + 1, visible + local, accumulators)
            elif depth < 3:
                self.diamond(depth + 1, visible + local, accumulators)
        for value in local:
            self.fold(value, accumulators)

    def loop(self, depth, visible, accumulators):
        k = self.k
        counter, top = k.sreg(), self.label()
        k += s_mov_b32(counter, self.rng.randint(1, 3))
        k.label(top)
        acc = k.vreg()
        k += v_mov_b32(acc, 0)
        self.region(depth, visible, accumulators + [acc])
        self.fold(acc, accumulators)                 # accumulators of the enclosing scope live around the loop
        k += s_sub_u32(counter, counter, 1)
        k += s_cmp_lg_u32(counter, 0)
        k += s_cbranch_scc1(top)

    def diamond(self, depth, visible, accumulators):
        k = self.k
        other, join = self.label(), self.label()
        k += s_cmp_eq_u32(s[2], 0)
        k += s_cbranch_scc1(other)
        self.region(depth, visible, accumulators)
        k += s_branch(join)
        k.label(other)
        self.region(depth, visible, accumulators)
        k.label(join)

    def build(self) -> Kernel:
        k = self.k
        accs = [k.vreg() for _ in range(2)]
        for a in accs:
            k += v_mov_b32(a, 0)
        self.region(0, list(accs), accs)
        for a in accs:
            k += global_store_b32(v[0], a, s[0:1])
        k += s_endpgm()
        return k


def test_random_programs_near_max_live():
    excess = Counter()
    sizes = []
    for seed in range(150):
        k = Generator(seed).build()
        prog = k.program()
        alloc = k.allocate()
        verify(prog, alloc)
        bound = lower_bound(prog, "v")
        assert alloc.vgprs >= bound
        excess[alloc.vgprs - bound] += 1
        sizes.append(len(prog.instrs))
    total = sum(excess.values())
    print(f"\nrandom programs: {total}, {min(sizes)}-{max(sizes)} instructions; "
          f"allocated VGPRs - max-live lower bound: " +
          ", ".join(f"+{d}: {n}" for d, n in sorted(excess.items())))
    assert (excess[0] + excess[1]) / total >= 0.95

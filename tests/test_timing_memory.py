"""emu/timing/memory.py: a WGP's vector memory line pipe shares its line throughput equally
among the outstanding instructions (processor sharing). The expected finish times are worked
out by hand from that rule (rate r lines per cycle, k jobs each served r/k)."""
from __future__ import annotations

import pytest

from emu.timing.memory import LinePipe


def test_a_lone_instruction_takes_its_lines_at_the_full_rate():
    pipe = LinePipe(0.5)
    job = pipe.add(100, 16)
    assert job.finish == pytest.approx(100 + 16 / 0.5)


def test_instructions_arriving_together_finish_together():
    pipe = LinePipe(1.0)
    jobs = [pipe.add(0, 16) for _ in range(4)]
    assert [j.finish for j in jobs] == pytest.approx([64.0] * 4)


def test_a_later_arrival_slows_the_earlier_one_and_a_short_one_leaves_first():
    pipe = LinePipe(1.0)
    long = pipe.add(0, 32)
    assert long.finish == pytest.approx(32.0)
    short = pipe.add(10, 4)     # at 10: 22 lines left of the long one; both served 1/2 a cycle
    # the short one is done after 8 cycles (4 lines at 1/2), at 18; the long one then has
    # 22 - 4 = 18 left at the full rate: 36
    assert short.finish == pytest.approx(18.0)
    assert long.finish == pytest.approx(36.0)


def test_finished_instructions_leave_the_pipe():
    pipe = LinePipe(1.0)
    first = pipe.add(0, 8)
    second = pipe.add(100, 8)       # the first was done at 8: the second runs alone
    assert first.finish == pytest.approx(8.0)
    assert second.finish == pytest.approx(108.0)


def test_an_instruction_touches_at_least_one_line():
    assert LinePipe(1.0).add(5, 0).finish == pytest.approx(6.0)


def test_loads_touching_many_lines_wait_longer_when_the_wgp_is_busy():
    """Four waves on the four SIMDs of one WGP load in the same cycle: with 16 lines each
    every wait ends 4 x 16 lines / 1 line per cycle after the unloaded latency, with 1 line
    each 4 after."""
    import dsl
    import isa
    from dsl.decode import decode_one
    from emu.table import load_semantics
    from emu.timing import Engine, WaveSpec, timing_for
    from emu.timing.classify import Classifier, Kind
    code = dsl.assemble("global_load_b32 v1, v0, s[0:1]\ns_waitcnt vmcnt(0)\ns_endpgm", "gfx1100")
    spec = isa.load("gfx1100")
    classifier = Classifier(spec, load_semantics("gfx1100"))
    p = timing_for("gfx1100")

    def waits(lines: int) -> list[int]:
        ops, pc = {}, 0
        while pc < len(code):
            inst = decode_one(spec, code, pc)
            ops[pc] = classifier.classify(inst, pc)
            pc += inst.size
        load = next(op for op in ops.values() if op.kind == Kind.VMEM_LOAD)
        load.lines = lines
        out = Engine(ops, p).run([WaveSpec(sorted(ops), 0, (0, 0, k % 4), None, f"w{k}") for k in range(4)])
        return [w.issue[1] - w.issue[0] - p.vmem_load_latency - p.waitcnt_resume for w in out]
    many, one = waits(16), waits(1)
    assert many == [64] * 4 and one == [4] * 4

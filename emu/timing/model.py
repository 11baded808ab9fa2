"""Timing of a launch the functional machine ran with a Recorder: lay the waves out on the
GPU (work-group g on CU g mod CUs, its waves over the CU's SIMDs, as many resident per SIMD
as the VGPR file, LDS and the wave slots allow, the rest queued behind them), classify each
executed PC once and run the engine.

A launch whose waves do not interact across CUs in this model (no shared bandwidth yet) is
timed exactly by its busiest CU: with more than `FULL_LIMIT` wave-instructions only CU 0's
work-groups (which has the most: g mod CUs == 0) are simulated, and the report says so."""
from __future__ import annotations

from .arch import ArchTiming, timing_for
from .classify import Classifier
from .engine import Engine, WaveSpec
from .report import TimingReport, build_report

FULL_LIMIT = 300_000             # wave-instructions simulated in full before sampling one CU
VGPRS_PER_SIMD_LANE = 1536       # RDNA3 wave32 VGPR file per SIMD lane (gfx1100: 192 KiB per SIMD)
LDS_PER_CU = 65536
LAUNCH_STAGGER = 24              # cycles between wave launches on one SIMD (gemm trace: 9-29)


def resident_per_simd(params: ArchTiming, vgprs: int, lds_size: int, waves_per_group: int) -> int:
    by_vgprs = VGPRS_PER_SIMD_LANE // max(vgprs, 1)
    by_lds = (LDS_PER_CU // lds_size) * max(1, waves_per_group // params.simds_per_cu) if lds_size else params.waves_per_simd
    return max(1, min(params.waves_per_simd, by_vgprs, by_lds))


def time_launch(machine, dispatch, recorder, params: ArchTiming | None = None) -> TimingReport:
    p = params or timing_for(machine.arch)
    d = dispatch
    wpg = d.waves_per_group
    total = d.groups * wpg
    streams = recorder.streams(total)
    classifier = Classifier(machine.spec, machine.semantics, wave64=d.wave_size == 64)
    ops = {}
    for s in streams:
        for pc in set(s.tolist()) - ops.keys():
            ops[pc] = classifier.classify(machine.decode(pc), pc)
    work = sum(len(s) for s in streams)
    groups = range(d.groups)
    note = ""
    if work > FULL_LIMIT and d.groups > p.cus:
        groups = range(0, d.groups, p.cus)
        note = (f"estimated: {work:,} wave-instructions; timed CU 0's {len(groups)} of {d.groups} work-groups "
                f"(work-group g runs on CU g mod {p.cus}; CUs do not interact in this model)")
    cap = resident_per_simd(p, d.vgprs, d.lds_size, wpg)
    per_simd: dict[tuple, int] = {}
    specs, index = [], []
    for g in groups:
        cu = g % p.cus
        for k in range(wpg):
            simd = (cu, k % p.simds_per_cu)
            n = per_simd.get(simd, 0)
            per_simd[simd] = n + 1
            start = n * LAUNCH_STAGGER if n < cap else None
            wave = g * wpg + k
            specs.append(WaveSpec(streams[wave].tolist(), start, simd, g if wpg > 1 else None, f"wave {wave}"))
            index.append(wave)
    timings = Engine(ops, p).run(specs)

    def text(pc):
        return machine.text(machine.decode(pc))
    report = build_report(d.kernel, machine.arch, p.clock_ghz, timings, ops, text)
    report.note = note
    report.wave_ids = index
    return report

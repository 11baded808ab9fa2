"""Timing of a launch the functional machine ran with a Recorder: lay the waves out on the
GPU (work-group g on CU g mod CUs, its waves over the CU's SIMDs, as many resident per SIMD
as the VGPR file, LDS and the wave slots allow, the rest queued behind them), classify each
executed PC once and run the engine.

CUs do not interact in this model (no shared bandwidth yet), so a CU whose waves run the
same instruction streams in the same order as one already simulated gets its timings (a
uniform kernel is one or two CU simulations however large the grid). If the distinct CUs
hold more than `FULL_LIMIT` wave-instructions, only the configuration most CUs share is
timed and the report's note says so."""
from __future__ import annotations

from .arch import ArchTiming, timing_for
from .classify import Classifier
import numpy as np

from .engine import Engine, WaveSpec, WaveTiming
from .report import TimingReport, build_report

FULL_LIMIT = 300_000             # wave-instructions of distinct CUs simulated before sampling
VGPRS_PER_SIMD_LANE = 1536       # RDNA3 wave32 VGPR file per SIMD lane (gfx1100: 192 KiB per SIMD)
LDS_PER_CU = 65536
SAMPLE_ROUNDS = 3                # rounds of resident work-groups timed per CU before the rest is repeated
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
    for pc in np.unique(np.concatenate(streams)) if streams else ():
        pc = int(pc)
        ops[pc] = classifier.classify(machine.decode(pc), pc)
    # streams by identity: CUs whose waves run the same streams in the same order behave
    # identically (CUs do not interact in this model), so each distinct CU is simulated once
    ids: dict[bytes, int] = {}
    stream_id = [ids.setdefault(s.tobytes(), len(ids)) for s in streams]
    cap = resident_per_simd(p, d.vgprs, d.lds_size, wpg)
    cus: dict[int, list[int]] = {}
    for g in range(d.groups):
        cus.setdefault(g % p.cus, []).extend(range(g * wpg, (g + 1) * wpg))
    configs: dict[tuple, list[int]] = {}
    for cu, waves in cus.items():
        configs.setdefault(tuple(stream_id[w] for w in waves), []).append(cu)
    work = sum(len(streams[cus[members[0]][0]]) * len(key) for key, members in configs.items())
    note = ""
    if work > FULL_LIMIT and len(configs) > 1:
        busiest = max(configs, key=len)
        configs = {busiest: configs[busiest]}
        note = (f"estimated: the {len(cus)} CUs run {len(set(stream_id))} distinct wave streams; timed the busiest "
                f"CU configuration ({len(busiest)} waves) only and left out the rest")
    timings: dict[int, WaveTiming] = {}
    engine = Engine(ops, p)
    resident_groups = max(1, cap * p.simds_per_cu // wpg)
    for key, members in configs.items():
        cu0 = members[0]
        specs = []
        per_simd: dict[int, int] = {}
        waves_here = cus[cu0]
        groups_here = len(waves_here) // wpg
        sampled = SAMPLE_ROUNDS * resident_groups
        if groups_here > sampled + resident_groups:
            # a long queue of work-groups on this CU: time the first rounds and repeat the last
            # round's timings, one round period later each (steady state)
            waves_here = waves_here[:sampled * wpg]
            note = note or (f"estimated: {groups_here} work-groups per CU in rounds of {resident_groups}; the first "
                            f"{SAMPLE_ROUNDS} rounds timed, the later ones repeat the last round's timings")
        for k, wave in enumerate(waves_here):
            g, in_group = divmod(wave, wpg)
            simd = in_group % p.simds_per_cu
            n = per_simd.get(simd, 0)
            per_simd[simd] = n + 1
            specs.append(WaveSpec(streams[wave].tolist(), n * LAUNCH_STAGGER if n < cap else None, (cu0, simd),
                                  g if wpg > 1 else None, f"wave {wave}"))
        result = engine.run(specs)
        if len(waves_here) < len(cus[cu0]):
            starts = [min(r.start for r in result[g * wpg:(g + 1) * wpg]) for g in range(sampled)]
            last = sum(starts[-resident_groups:]) / resident_groups
            before = sum(starts[-2 * resident_groups:-resident_groups]) / resident_groups
            period = max(1, round(last - before))
            for k in range(sampled, groups_here):
                r_ahead = (k - sampled) // resident_groups + 1
                src = k - r_ahead * resident_groups
                result.extend(x.moved(x.name, x.simd, r_ahead * period) for x in result[src * wpg:(src + 1) * wpg])
        for cu in members:
            for wave, r in zip(cus[cu], result):
                timings[wave] = r if cu == cu0 else r.moved(f"wave {wave}", (cu, r.simd[1]))
    waves = [timings[w] for w in sorted(timings)]

    def text(pc):
        return machine.text(machine.decode(pc))
    report = build_report(d.kernel, machine.arch, p.clock_ghz, waves, ops, text)
    report.note = note
    report.wave_ids = sorted(timings)
    return report

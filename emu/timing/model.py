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
from .report import TimingReport, WaveSet, build_report

FULL_LIMIT = 300_000             # wave-instructions of distinct CUs simulated before sampling
LDS_PER_CU = 65536
SAMPLE_ROUNDS = 3                # rounds of resident work-groups timed per CU before the rest is repeated
LAUNCH_STAGGER = 24              # cycles between wave launches on one SIMD (gemm trace: 9-29)


def resident_per_simd(params: ArchTiming, vgprs: int, lds_size: int, waves_per_group: int, vgpr_file: int) -> int:
    """Waves one SIMD holds at once; `vgpr_file`: the device's VGPRs per SIMD lane in units
    of the launch's wave size (isa traits: 1536 wave32 / 768 wave64 on gfx1100/1101/1151,
    1024 / 512 on the other RDNA3 devices), `vgprs` per wave in the same units."""
    by_vgprs = vgpr_file // max(vgprs, 1)
    by_lds = (LDS_PER_CU // lds_size) * max(1, waves_per_group // params.simds_per_cu) if lds_size else params.waves_per_simd
    return max(1, min(params.waves_per_simd, by_vgprs, by_lds))


def time_launch(machine, dispatch, recorder, params: ArchTiming | None = None) -> TimingReport:
    p = params or timing_for(machine.arch)
    d = dispatch
    wpg = d.waves_per_group
    total = d.groups * wpg
    # streams by identity: CUs whose waves run the same streams in the same order behave
    # identically (CUs do not interact in this model), so each distinct CU is simulated once
    stream_id, streams = recorder.stream_table(total)
    classifier = Classifier(machine.spec, machine.semantics, wave64=d.wave_size == 64)
    ops = {}
    lines = recorder.lines_per_wave()
    conflicts = recorder.lds_extra_passes() if hasattr(recorder, "lds_extra_passes") else {}
    for pc in recorder.executed_pcs():
        pc = int(pc)
        ops[pc] = classifier.classify(machine.decode(pc), pc)
        if pc in lines:
            ops[pc].lines = lines[pc]
        if pc in conflicts:
            ops[pc].lds_extra = conflicts[pc]
    cap = resident_per_simd(p, d.vgprs, d.lds_size, wpg, machine.spec.traits.vgpr_file(machine.arch, d.wave_size))
    wave_cu = (np.arange(total) // wpg) % p.cus
    order = np.argsort(wave_cu, kind="stable")
    bounds = np.searchsorted(wave_cu[order], np.arange(p.cus + 1))
    cus = {cu: order[bounds[cu]:bounds[cu + 1]] for cu in range(p.cus) if bounds[cu + 1] > bounds[cu]}
    configs: dict[bytes, list[int]] = {}
    for cu, waves in cus.items():
        configs.setdefault(stream_id[waves].tobytes(), []).append(cu)
    work = sum(len(streams[stream_id[cus[members[0]][0]]]) * len(cus[members[0]]) for members in configs.values())
    note = ""
    if work > FULL_LIMIT and len(configs) > 1:
        busiest = max(configs, key=lambda k: len(configs[k]))
        configs = {busiest: configs[busiest]}
        note = (f"estimated: the {len(cus)} CUs run {len(streams)} distinct wave streams; timed the busiest "
                f"CU configuration ({len(cus[configs[busiest][0]])} waves) only and left out the rest")
    engine = Engine(ops, p, line_share=1 / p.cus_per_wgp)     # the CU's partner in its WGP runs the same work
    resident_groups = max(1, cap * p.simds_per_cu // wpg)
    sims: list[WaveTiming] = []
    simulated: dict[bytes, tuple[int, list]] = {}     # simulated waves' streams -> (first in sims, group starts)
    src_parts, shift_parts, cu_parts, id_parts = [], [], [], []
    for members in configs.values():
        cu0 = members[0]
        waves_here = cus[cu0]
        groups_here = len(waves_here) // wpg
        sampled = SAMPLE_ROUNDS * resident_groups
        if groups_here > sampled + resident_groups:
            # a long queue of work-groups on this CU: time the first rounds and repeat the last
            # round's timings, one round period later each (steady state)
            waves_here = waves_here[:sampled * wpg]
            note = note or (f"estimated: {groups_here} work-groups per CU in rounds of {resident_groups}; the first "
                            f"{SAMPLE_ROUNDS} rounds timed, the later ones repeat the last round's timings")
        key = stream_id[waves_here].tobytes()
        if key not in simulated:        # CUs that differ only in how many rounds follow share the sampled ones
            specs = []
            per_simd: dict[int, int] = {}
            for wave in waves_here.tolist():
                g, in_group = divmod(wave, wpg)
                simd = in_group % p.simds_per_cu
                n = per_simd.get(simd, 0)
                per_simd[simd] = n + 1
                specs.append(WaveSpec(streams[stream_id[wave]].tolist(), n * LAUNCH_STAGGER if n < cap else None,
                                      (cu0, simd), g if wpg > 1 else None, f"wave {wave}"))
            result = engine.run(specs)
            starts = [min(r.start for r in result[k * wpg:(k + 1) * wpg]) for k in range(len(result) // wpg)]
            simulated[key] = (len(sims), starts)
            sims.extend(result)
        first, starts = simulated[key]
        src = first + np.arange(len(waves_here))
        shift = np.zeros(len(waves_here), np.int64)
        if len(waves_here) < len(cus[cu0]):
            last = sum(starts[-resident_groups:]) / resident_groups
            before = sum(starts[-2 * resident_groups:-resident_groups]) / resident_groups
            period = max(1, round(last - before))
            k = np.arange(sampled, groups_here)
            ahead = (k - sampled) // resident_groups + 1
            src_group = k - ahead * resident_groups
            src = np.concatenate([src, (first + src_group[:, None] * wpg + np.arange(wpg)).reshape(-1)])
            shift = np.concatenate([shift, np.repeat(ahead * period, wpg)])
        for cu in members:
            src_parts.append(src)
            shift_parts.append(shift)
            cu_parts.append(np.full(len(src), cu, np.int64))
            id_parts.append(cus[cu])
    ids = np.concatenate(id_parts) if id_parts else np.zeros(0, np.int64)
    order = np.argsort(ids, kind="stable")
    waves = WaveSet(sims, np.concatenate(src_parts)[order] if src_parts else ids,
                    np.concatenate(shift_parts)[order] if shift_parts else ids,
                    np.concatenate(cu_parts)[order] if cu_parts else ids, ids[order])

    def text(pc):
        return machine.text(machine.decode(pc))
    report = build_report(d.kernel, machine.arch, p.clock_ghz, waves, ops, text)
    report.note = note
    report.wave_ids = waves.ids          # global wave index of each entry of report.waves
    return report

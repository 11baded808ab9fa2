"""The timing model (emu/timing) against real RDNA3 thread traces (../shared/timing/gfx1100,
7900 XTX, README there): the model predicts *issue* timestamps, as the traces hold.

Prints the figures issue 19 asks for; the asserted floors are what the model reaches now
(minus a little), so a regression fails:
- pipeline: every traced instruction that is not a memory instruction, an s_waitcnt, the
  wave's end or the first from a new 128-byte code line (fetch): predicted issue gap == measured / within 1
  (the traced waves replayed from their measured first issue, each s_waitcnt released when
  the trace issues it: memory return times are not in the traces; the memory latencies are
  scored on whole waves below), and the same with every mechanism fitted on a kernel turned
  off while scoring that kernel (held out); the misses by instruction class;
- stall causes: every measured gap > 4 cycles, cycle-weighted agreement of the model's cause
  with the cause the trace and code imply (emu/timing/score.py implied_cause);
- whole waves: lifetimes with the memory/launch latencies measured on run 0 of each capture
  (score.calibrate: the median of the traced stretches that show each alone) and scored on
  the other runs and leave-one-kernel-out, beside the measured run-to-run noise."""
from __future__ import annotations

import os
import statistics
from pathlib import Path

import pytest

TRACES = Path(os.environ.get("WAVESMITH_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "timing" / "gfx1100"
pytestmark = pytest.mark.skipif(not (TRACES / "kernels.json").exists(), reason="../shared/timing traces absent")


@pytest.fixture(scope="module")
def captures():
    from emu.timing.traces import load_captures
    return load_captures(TRACES / "kernels.json") + load_captures(TRACES / "discover_ops.json")


def test_pipeline_gaps_and_stall_causes(captures):
    from emu.timing import timing_for
    from emu.timing.score import evaluate, evaluate_held_out
    p = timing_for("gfx1100")
    r = evaluate(captures, p)
    print(f"\npipeline: {r['gaps']} non-memory non-fetch instructions: predicted issue gap == measured "
          f"{r['exact']:.1%} (goal 90%), within 1 cycle {r['within1']:.1%} (goal 97%)")
    print(f"stall attribution: {r['cause_cycles']} cycles in gaps > 4, cause agrees for {r['cause_agree']:.1%} "
          f"of them (goal 90%)")
    h = evaluate_held_out(captures, p)
    print(f"held out (each kernel scored with the mechanisms fitted on it off, score.FITTED_ON): "
          f"exact {h['exact']:.1%}, within 1 cycle {h['within1']:.1%}")
    print("misses by (previous -> instruction) class:")
    for key, (n, miss, far) in sorted(r["by_class"].items(), key=lambda x: -x[1][1])[:8]:
        print(f"  {key:32s} {n:5d} gaps, {miss:4d} missed, {far:4d} by more than 1 cycle")
    assert r["gaps"] > 3000
    assert r["exact"] >= 0.91
    assert r["within1"] >= 0.985
    assert r["cause_agree"] >= 0.95
    assert h["exact"] >= 0.84 and h["within1"] >= 0.92


def test_wave_lifetimes_calibrated_on_run0(captures):
    from emu.timing import timing_for
    from emu.timing.score import calibrate, first_issue_errors, lifetime_errors, run_noise
    runs0 = [c for c in captures if c.source.endswith("run_0.pkl")]
    rest = [c for c in captures if not c.source.endswith("run_0.pkl")]
    params = calibrate(runs0, timing_for("gfx1100"))
    errs = lifetime_errors(rest, params)
    a = [abs(e) for _, e in errs]
    noise = run_noise(captures)
    print(f"\nlifetimes (measured on run 0: smem {params.smem_latency}, vmem load {params.vmem_load_latency}, "
          f"store {params.vmem_store_latency}, launch {params.launch_latency} cycles), scored on {len(a)} waves "
          f"of the other runs: median error {statistics.median(a):.1%}, max {max(a):.1%}, "
          f"within 10%: {sum(x <= 0.10 for x in a) / len(a):.1%}; run-to-run noise (median per kernel) "
          + ", ".join(f"{k} {v:.1%}" for k, v in noise.items()))
    for kernel in sorted({k for k, _ in errs}):
        e = [x for k, x in errs if k == kernel]
        print(f"  {kernel}: {len(e)} waves, median {statistics.median(e):+.1%}, range {min(e):+.1%} .. {max(e):+.1%}")
    after_launch = first_issue_errors(rest, params)
    print("  traced waves from their first issue to their end (the launch left out): "
          + ", ".join(f"{k} {min(x for j, x in after_launch if j == k):+.1%} .. {max(x for j, x in after_launch if j == k):+.1%}"
                      for k in sorted({k for k, _ in after_launch})))
    assert statistics.median(a) <= 0.05
    assert sum(x <= 0.10 for x in a) / len(a) >= 0.99


def test_wave_lifetimes_leave_one_kernel_out(captures):
    """Latencies measured on run 0 of the other kernels, scored on every run of the kernel left
    out. The matmul's cold global loads take ~1500 cycles with 21 waves per WGP loading 33
    lines each at once, the only other global loads (E_3, one wave, a line each) ~750: the
    WGP's line pipe (emu/timing/memory.py, one 128-byte line per cycle, not fitted) accounts
    for the difference, so the matmul is predicted from E_3's latency.

    The worst wave left is E_3's, and all of its miss is before its first instruction: that
    issues 1172-1263 cycles after its start where every other kernel's first wave issues
    490-594 after its start (printed below, measured), while from its first issue to its end
    E_3 is predicted within 5% (asserted). What the traces hold does not tell the two apart
    (emu/timing/README.md: same entry offset and block alignment as E and E_32_4, same SIMD
    slot as E and discover_ops, its memory latencies like the others'), so no mechanism
    predicts it and the 10% goal is not met for E_3."""
    from emu.timing import timing_for
    from emu.timing.score import calibrate, first_issue_errors, launch_delays, lifetime_errors, run_noise
    kernels = sorted({c.kernel for c in captures})
    medians, worst, after_launch = {}, {}, {}
    for k in kernels:
        train = [c for c in captures if c.kernel != k and c.source.endswith("run_0.pkl")]
        params = calibrate(train, timing_for("gfx1100"))
        left_out = [c for c in captures if c.kernel == k]
        e = [abs(x) for _, x in lifetime_errors(left_out, params)]
        medians[k], worst[k] = statistics.median(e), max(e)
        f = [abs(x) for _, x in first_issue_errors(left_out, params)]
        if f:
            after_launch[k] = max(f)
    noise = run_noise(captures)
    print("\nleave-one-kernel-out lifetimes, |error| per kernel left out (median / worst wave; run-to-run noise): "
          + ", ".join(f"{k} {medians[k]:.1%} / {worst[k]:.1%} ({noise.get(k, 0):.1%})" for k in kernels)
          + f"; worst wave {max(worst.values()):.1%} (goal 10%)")
    print("  traced waves from their first issue to their end, worst |error|: "
          + ", ".join(f"{k} {v:.1%}" for k, v in after_launch.items()))
    print("  measured start -> first issue of each traced SIMD's first wave: "
          + ", ".join(f"{k} {sorted(v)}" for k, v in sorted(launch_delays(captures).items())))
    assert statistics.median(medians.values()) <= 0.06
    assert worst["r_32_32_16_2"] <= 0.05 and medians["r_32_32_16_2"] <= 0.02
    assert max(v for k, v in worst.items() if k != "E_3") <= 0.10
    assert worst["discover_ops"] <= 0.05          # its fetch stalls at 128-byte lines (emu/timing/arch.py fetch_window)
    assert worst["E_3"] <= 0.22
    assert after_launch["E_3"] <= 0.05


def test_matmul_lines_as_its_addresses_touch(captures):
    """The traced matmul's code run on the functional emulator (its launch: 32x32 work-groups
    of 16 lanes, out = A @ B of 32x32 floats, checked against numpy): the distinct 128-byte
    lines the recorder counts per wave for each vector memory instruction are the ones the
    trace replay uses (traces.LINES)."""
    import json

    import numpy as np

    import emu.timing.model as model
    from emu.timing.traces import LINES
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.writer import KernelSpec, write_code_object
    entry = next(e for e in json.loads((TRACES / "kernels.json").read_text()) if e["kernel"] == "r_32_32_16_2")
    args = [KernelArg(8 * k, 8, "global_buffer", name, "global") for k, name in enumerate(("out", "a", "b"))]
    # the code reads its kernel arguments through s[0:1] and its work-group ids from s14, s15
    hsaco = write_code_object("gfx1100", [KernelSpec("mm", bytes.fromhex(entry["code_hex"]), args, {
        "user_sgpr_kernarg_segment_ptr": 1, "user_sgpr_count": 14, "system_sgpr_workgroup_id_y": 1,
        "group_segment_fixed_size": 64})])
    dev = Device("emu")
    rng = np.random.default_rng(19)
    a, b = rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 32)).astype(np.float32)
    out, ab, bb = dev.alloc(32 * 32 * 4), dev.alloc(a.nbytes).copyin(a), dev.alloc(b.nbytes).copyin(b)
    seen, conflicts = {}, {}
    timed = model.time_launch

    def keep_lines(machine, dispatch, recorder, params=None):
        seen.update(recorder.lines_per_wave())
        conflicts.update(recorder.lds_extra_passes())
        return timed(machine, dispatch, recorder, params)
    model.time_launch = keep_lines
    try:
        prg = dev.load(hsaco)
        prg.launch("mm", (32, 32, 1), (16, 1, 1), [out, ab, bb], timing=True)
        entry_pc = prg.base + prg.code_object.kernels["mm"].entry
    finally:
        model.time_launch = timed
    np.testing.assert_allclose(out.copyout(np.float32).reshape(32, 32), a @ b, rtol=1e-5, atol=1e-5)
    assert {pc - entry_pc: n for pc, n in seen.items()} == LINES["r_32_32_16_2"]
    # its LDS is 64 bytes: 16 dwords, each in its own bank of the 64 (RDNA3 manual 12.1), so
    # none of its DS instructions can conflict and the replay's LDS timing needs no table
    ds = sorted(pc - entry_pc for pc in conflicts)
    print(f"\nmatmul DS instructions at {', '.join(hex(o) for o in ds)}: extra LDS passes "
          f"{[conflicts[entry_pc + o] for o in ds]}")
    cap = next(c for c in captures if c.kernel == "r_32_32_16_2")
    base = min(cap.ops)
    assert ds == sorted(pc - base for pc, op in cap.ops.items() if op.kind == "lds")     # every DS instruction seen
    assert not any(conflicts.values())


def test_functional_results_identical_with_timing():
    """timing=True changes nothing the kernel computes, and reports a cycle count."""
    import numpy as np

    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.demo import build_saxpy
    from runtime.writer import from_dsl_kernel
    n, block = 3000, 256
    hsaco = from_dsl_kernel(build_saxpy("gfx1100"), "saxpy",
                            [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
                             KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")],
                            user_sgpr_kernarg_segment_ptr=1)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = {}
    for timing in (False, True):
        dev = Device("emu")
        xb, yb = dev.alloc(x.nbytes).copyin(x), dev.alloc(y.nbytes).copyin(y)
        stats = dev.load(hsaco).launch("saxpy", (-(-n // block), 1, 1), (block, 1, 1),
                                       [xb, yb, np.float32(2.5), np.uint32(n)], timing=timing)
        out[timing] = (yb.copyout(np.float32), stats)
    assert np.array_equal(out[False][0], out[True][0])
    assert out[False][1].timing is None
    rep = out[True][1].timing
    assert len(rep.waves) == out[True][1].waves
    # every wave issues its s_endpgm after a cold global load and store: more than the measured
    # cold load latency (720 cycles) from its launch
    assert all(w.lifetime > 720 for w in rep.waves)
    assert rep.cycles > 0 and rep.seconds == rep.cycles / 2.5e9
    hits = sum(s.hits for s in rep.per_pc.values())
    assert hits == out[True][1].instructions


def test_sampled_estimate_matches_full_simulation(monkeypatch):
    """A CU with a long queue of work-groups is estimated from its first rounds (and says
    so); the estimate agrees with timing every round."""
    import numpy as np

    import emu.timing.model as model
    from runtime import Device
    from runtime.codeobj import KernelArg
    from runtime.demo import build_saxpy
    from runtime.writer import from_dsl_kernel
    n, block = 256 * 96 * 20, 256          # 20 work-groups of 8 waves per CU, 4 resident at a time
    hsaco = from_dsl_kernel(build_saxpy("gfx1100"), "saxpy",
                            [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
                             KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")],
                            user_sgpr_kernarg_segment_ptr=1)
    dev = Device("emu")
    x = np.ones(n, np.float32)
    xb, yb = dev.alloc(x.nbytes).copyin(x), dev.alloc(x.nbytes).copyin(x)
    prg = dev.load(hsaco)

    def launch():
        return prg.launch("saxpy", (n // block, 1, 1), (block, 1, 1), [xb, yb, np.float32(2.5), np.uint32(n)],
                          timing=True).timing
    sampled = launch()
    monkeypatch.setattr(model, "SAMPLE_ROUNDS", 1000)
    full = launch()
    print(f"\nsampled estimate {sampled.cycles} cycles, every round timed {full.cycles} cycles")
    assert "estimated" in sampled.note and not full.note
    assert len(sampled.waves) == len(full.waves) == n // 32
    assert abs(sampled.cycles - full.cycles) <= 0.02 * full.cycles


def test_depctr_does_not_wait_for_memory():
    """s_waitcnt_depctr waits on VALU/SALU dependency counters, not on memory: it issues long
    before an outstanding cold load returns, while s_waitcnt vmcnt(0) waits for it."""
    import dsl
    import isa
    from dsl.decode import decode_one
    from emu.table import load_semantics
    from emu.timing import Engine, WaveSpec, timing_for
    from emu.timing.classify import Classifier
    code = dsl.assemble("global_load_b32 v1, v0, s[0:1]\ns_waitcnt_depctr 0xfffe\nv_add_f32 v2, v3, v4\n"
                        "s_waitcnt vmcnt(0)\ns_endpgm", "gfx1100")
    spec = isa.load("gfx1100")
    c = Classifier(spec, load_semantics("gfx1100"))
    ops, pc = {}, 0
    while pc < len(code):
        inst = decode_one(spec, code, pc)
        ops[pc] = c.classify(inst, pc)
        pc += inst.size
    p = timing_for("gfx1100")
    (w,) = Engine(ops, p).run([WaveSpec(sorted(ops), 0)])
    load, depctr, valu, wait, end = w.issue
    assert depctr - load < 20 and valu - load < 20
    assert wait - load >= p.vmem_load_latency


def test_fp64_occupancy_by_opcode(captures):
    """discover_ops: the gap after each traced FP64 op (to the next instruction, a VALU op)
    as replayed against the measured one: 36 after another FP64 op, the opcode's figure
    (arch.fp64_first_occupancy) for the first of a run; with 36 throughout (the figures off)
    the first ops of runs miss."""
    from emu.timing import timing_for
    from emu.timing.traces import replay_traced
    p = timing_for("gfx1100")
    for params, floor in ((p, 1.0), (p.with_(fp64_first_occupancy={}), None)):
        hit = total = 0
        for cap in (c for c in captures if c.kernel == "discover_ops"):
            for w, pred in replay_traced(cap, params):
                t = [i["t"] for i in w["insts"]]
                for k in range(len(t) - 1):
                    op, nxt = cap.ops.get(w["insts"][k]["pc"]), cap.ops.get(w["insts"][k + 1]["pc"])
                    if op is not None and op.valu == "fp64" and nxt is not None and nxt.kind == "valu":
                        total += 1
                        hit += pred.issue[k + 1] - pred.issue[k] == t[k + 1] - t[k]
        print(f"\nFP64 op -> next VALU op gaps {'per opcode' if floor else 'at 36'}: {hit} of {total} exact")
        assert total >= 100
        if floor:
            assert hit / total >= floor
        else:
            assert hit / total < 0.7

"""Scores of the model against measured traces: issue gaps, stall causes, wave lifetimes.

`pipeline_gaps` compares, for every traced instruction that is neither a memory instruction,
an s_waitcnt nor the first issue from a new code block (fetch), the predicted issue gap to the
wave's previous instruction with the measured one. `implied_cause` names the cause a
measured gap shows from the trace and the code alone (not from the model): the wait counter
an s_waitcnt names, a new code block (fetch), the previous instruction's pipe (FP64,
transcendental, 64-bit), a register the instruction reads that a recent instruction wrote
(dependency), ... `python -m emu.timing.score` prints every figure."""
from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from .classify import VGPR, Kind
from .traces import Capture, load_captures, replay_lifetimes, replay_traced

_MEMORY = (Kind.SMEM, Kind.VMEM_LOAD, Kind.VMEM_STORE, Kind.LDS)
_PIPE_CLASSES = ("trans", "fp64", "int64", "wide_mul", "wmma")


def _new_block(cap: Capture, insts: list, k: int, block: int = 128) -> bool:
    """Instruction k is the first the wave issues from some 128-byte code line (its bytes
    reach into a line no earlier instruction touched), or follows a jump: its gap may be a
    fetch stall (discover_ops stalls 82-108 cycles at 128-byte lines inside 256-byte
    blocks as well as at block starts)."""
    pc = insts[k]["pc"]
    op = cap.ops.get(pc)
    size = op.size if op else 4
    seen = set()
    for i in insts[:k]:
        o = cap.ops.get(i["pc"])
        seen.update(range(i["pc"] // block, (i["pc"] + (o.size if o else 4) - 1) // block + 1))
    touched = set(range(pc // block, (pc + size - 1) // block + 1))
    prev = insts[k - 1]
    prev_op = cap.ops.get(prev["pc"])
    jumped = prev_op is not None and prev["pc"] + prev_op.size != pc or (prev_op is not None and prev_op.kind == Kind.BRANCH
                                                                        and not prev_op.conditional)
    return bool(touched - seen) or jumped


def scored(cap: Capture, insts: list, k: int) -> bool:
    """Pipeline-scored: not a memory instruction, s_waitcnt or wave end, and no fetch."""
    op = cap.ops.get(insts[k]["pc"])
    if op is None or k == 0:
        return False
    if op.kind in _MEMORY or op.kind in (Kind.WAIT, Kind.END):
        return False
    return not _new_block(cap, insts, k)


def implied_cause(cap: Capture, insts: list, k: int) -> str:
    """The stall cause a measured gap shows, from the trace and the code alone."""
    op = cap.ops.get(insts[k]["pc"])
    if op is None:
        return "issue"
    if op.kind == Kind.WAIT:
        waits = op.waits or {}
        # the counter with an outstanding instruction of its kind since the last wait
        pending = set()
        for i in insts[:k]:
            o = cap.ops.get(i["pc"])
            if o is None:
                continue
            if o.counter:
                pending.add(o.counter)
        for c in ("vm", "lgkm", "vs", "exp"):
            if c in waits and c in pending:
                return c
        return next(iter(waits), "vm")
    if _new_block(cap, insts, k):
        return "fetch"
    if op.kind == Kind.END:
        return "vs" if any(cap.ops.get(i["pc"]) and cap.ops[i["pc"]].counter == "vs" for i in insts[:k]) else "issue"
    prev = cap.ops.get(insts[k - 1]["pc"])
    # a register this instruction uses that one of the last few instructions wrote
    for j in range(k - 1, max(-1, k - 6), -1):
        o = cap.ops.get(insts[j]["pc"])
        if o is not None and o.kind in (Kind.VALU, Kind.SALU) and (o.writes & (op.reads | (op.writes if op.kind != Kind.VALU else frozenset()))):
            if o.kind == Kind.VALU and op.kind == Kind.VALU and insts[k]["t"] - insts[j]["t"] > 12 \
                    and prev is not None and prev.kind == Kind.VALU and prev.valu in _PIPE_CLASSES:
                break       # the producer's result was long ready: the pipe held it
            return "dependency"
    if op.kind == Kind.VALU and prev is not None and prev.kind == Kind.VALU and prev.valu in _PIPE_CLASSES:
        return "pipe"
    if prev is not None and prev.kind == Kind.BRANCH:
        return "branch"
    return "arbitration" if op.kind != Kind.VALU else "pipe"


def _op_class(op) -> str:
    return f"{op.kind}/{op.valu}" if op is not None and op.valu else (op.kind if op is not None else "?")


def evaluate(captures: list[Capture], params, verbose: bool = False) -> dict:
    """Pipeline and stall-cause scores. `out["by_class"]` counts, per (previous instruction's
    class -> instruction's class), the scored gaps, the misses and the misses by more than 1."""
    gaps = exact = near = 0
    cause_total = cause_agree = 0
    misses = Counter()
    cause_miss = Counter()
    by_class: dict[str, list] = {}
    for cap in captures:
        if not cap.waves:
            continue
        for measured, pred in replay_traced(cap, params):
            insts = measured["insts"]
            ptimes = [t for t in pred.issue if t >= 0]
            pcause = [c for t, c in zip(pred.issue, pred.cause) if t >= 0]
            if len(ptimes) != len(insts):
                raise AssertionError(f"{cap.kernel}: replay issued {len(ptimes)} of {len(insts)} instructions")
            for k in range(1, len(insts)):
                mg = insts[k]["t"] - insts[k - 1]["t"]
                pg = ptimes[k] - ptimes[k - 1]
                if scored(cap, insts, k):
                    gaps += 1
                    exact += mg == pg
                    near += abs(mg - pg) <= 1
                    row = by_class.setdefault(f"{_op_class(cap.ops.get(insts[k - 1]['pc']))} -> "
                                              f"{_op_class(cap.ops.get(insts[k]['pc']))}", [0, 0, 0])
                    row[0] += 1
                    row[1] += mg != pg
                    row[2] += abs(mg - pg) > 1
                    if mg != pg:
                        misses[(cap.text.get(insts[k - 1]["pc"], "?").split()[0], cap.text.get(insts[k]["pc"], "?").split()[0], mg, pg)] += 1
                if mg > 4:
                    ic = implied_cause(cap, insts, k)
                    cause_total += mg
                    if ic == pcause[k]:
                        cause_agree += mg
                    else:
                        cause_miss[(cap.text.get(insts[k]["pc"], "?").split()[0], ic, pcause[k])] += mg
    out = {"gaps": gaps, "exact": exact / max(gaps, 1), "within1": near / max(gaps, 1),
           "cause_cycles": cause_total, "cause_agree": cause_agree / max(cause_total, 1), "by_class": by_class,
           "counts": (gaps, exact, near)}
    if verbose:
        out["misses"] = misses
        out["cause_misses"] = cause_miss
    return out


# Pipeline parameters fitted on one kernel's traces, and the values that leave each mechanism
# out: `evaluate_held_out` scores every kernel with the mechanisms fitted on it turned off.
FITTED_ON = {
    "r_32_32_16_2": {"lds_to_valu": 0, "vmem_to_scalar": 0, "salu_to_smem": 0},
    "discover_ops": {"valu_sgpr_inflight": 1 << 30, "fp64_first_occupancy": {}},
}


def evaluate_held_out(captures: list[Capture], params) -> dict:
    """`evaluate` with each kernel scored under the parameters not fitted on it (FITTED_ON):
    what the mechanisms learnt from one kernel are worth on the others."""
    gaps = exact = near = 0
    for kernel in sorted({c.kernel for c in captures}):
        r = evaluate([c for c in captures if c.kernel == kernel], params.with_(**FITTED_ON.get(kernel, {})))
        gaps, exact, near = gaps + r["counts"][0], exact + r["counts"][1], near + r["counts"][2]
    return {"gaps": gaps, "exact": exact / max(gaps, 1), "within1": near / max(gaps, 1)}


def lifetime_errors(captures: list[Capture], params) -> list[tuple[str, float]]:
    """(kernel, relative error) of every wave's lifetime (end - start)."""
    out = []
    for cap in captures:
        for lt, pred in replay_lifetimes(cap, params):
            measured = lt["end"] - lt["start"]
            out.append((cap.kernel, (pred.lifetime - measured) / measured))
    return out


def first_issue_errors(captures: list[Capture], params) -> list[tuple[str, float]]:
    """(kernel, relative error) of every traced wave's time from its first issue to its end:
    the lifetime without the launch, which only the traced waves show. Set beside
    `lifetime_errors`, it tells whether a miss is before the first instruction or after."""
    out = []
    for cap in captures:
        traced = {(w["se"], w["cu"], w["simd"], w["wave"]): w for w in cap.waves}
        for lt, pred in replay_lifetimes(cap, params):
            w = traced.get((lt["se"], lt["cu"], lt["simd"], lt["wave"]))
            measured = lt["end"] - w["insts"][0]["t"] if w else 0
            if measured > 0:
                out.append((cap.kernel, (pred.end - pred.first_issue - measured) / measured))
    return out


def launch_delays(captures: list[Capture]) -> dict[str, list[int]]:
    """Per kernel, measured: start of the first wave of each traced SIMD -> its first issue."""
    out: dict[str, list[int]] = {}
    for cap in captures:
        out.setdefault(cap.kernel, []).extend(latency_segments(cap).get("launch_latency", []))
    return out


def run_noise(captures: list[Capture]) -> dict:
    """Measured run-to-run noise per kernel: median relative difference of the lifetimes of
    the same wave slot (se, cu, simd, wave) between runs, else of the median lifetime."""
    by_kernel: dict[str, list] = {}
    for c in captures:
        by_kernel.setdefault(c.kernel, []).append({(x["se"], x["cu"], x["simd"], x["wave"]): x["end"] - x["start"]
                                                    for x in c.lifetimes})
    out = {}
    for k, runs in by_kernel.items():
        diffs = []
        for a, b in zip(runs, runs[1:]):
            common = a.keys() & b.keys()
            if len(common) >= max(1, min(len(a), len(b)) // 2):
                diffs += [abs(b[x] - a[x]) / a[x] for x in common]
            else:
                ma, mb = statistics.median(a.values()), statistics.median(b.values())
                diffs.append(abs(mb - ma) / ma)
        if diffs:
            out[k] = statistics.median(diffs)
    return out


CALIBRATED = ("launch_latency", "smem_latency", "vmem_load_latency", "vmem_store_latency")
_LATENCY_OF = {Kind.SMEM: "smem_latency", Kind.VMEM_LOAD: "vmem_load_latency", Kind.VMEM_STORE: "vmem_store_latency"}


def latency_segments(cap: Capture, resume: int = 1, modelled: dict | None = None) -> dict[str, list[int]]:
    """The stretches of the traced waves that show one latency each, as the engine uses it:
    `launch_latency` from the start of the first wave of a SIMD to its first issue; a load's
    latency from its issue to the issue of the s_waitcnt that waited for it (the one its
    counter's threshold names: returns are in order) minus `resume`; a store's from its
    issue to the wave's end right after it. Only gaps that stalled (> 4 cycles) count: a
    wait that found its data back says nothing about the latency. `modelled`: per traced
    wave (se, cu, simd, wave) its replayed WaveTiming; a vector memory stretch then loses
    the time the model spends passing the lines through the CU's line pipe (the wait for
    other waves' lines), leaving the unloaded latency the engine adds after it."""
    out: dict[str, list[int]] = {}
    first = {}
    for lt in cap.lifetimes:
        simd = (lt["se"], lt["cu"], lt["simd"])
        if simd not in first or lt["start"] < first[simd]["start"]:
            first[simd] = lt
    for w in cap.waves:
        insts = w["insts"]
        f = first.get((w["se"], w["cu"], w["simd"]))
        if f is not None and f["wave"] == w["wave"]:
            out.setdefault("launch_latency", []).append(insts[0]["t"] - f["start"])
        pred = (modelled or {}).get((w["se"], w["cu"], w["simd"], w["wave"]))

        def piped(k: int, since: list) -> float:
            """Cycles the model's line pipe held instruction k of the wave, counted from its
            issue until it and the earlier ones of its counter (`since`) went through."""
            if pred is None or pred.pipe is None or k not in pred.pipe:
                return 0.0
            return max(pred.pipe.get(j, 0.0) for j in since + [k]) - pred.issue[k]
        outstanding: dict[str, list] = {}
        for k, inst in enumerate(insts):
            op = cap.ops.get(inst["pc"])
            if op is None:
                continue
            stalled = k > 0 and inst["t"] - insts[k - 1]["t"] > 4
            if op.kind == Kind.WAIT:
                for counter, limit in (op.waits or {}).items():
                    q = outstanding.get(counter, [])
                    if len(q) > limit:
                        j, mem = q[len(q) - 1 - limit]
                        if stalled and mem.kind in _LATENCY_OF:
                            held = piped(j, [i for i, _ in q[:len(q) - 1 - limit]])
                            out.setdefault(_LATENCY_OF[mem.kind], []).append(
                                int(round(inst["t"] - resume - insts[j]["t"] - held)))
                        outstanding[counter] = q[len(q) - limit:] if limit else []
            elif op.kind == Kind.END:
                prev = cap.ops.get(insts[k - 1]["pc"]) if k else None
                if stalled and prev is not None and prev.kind == Kind.VMEM_STORE:
                    out.setdefault("vmem_store_latency", []).append(
                        int(round(inst["t"] - insts[k - 1]["t"] - piped(k - 1, []))))
            elif op.counter:
                outstanding.setdefault(op.counter, []).append((k, op))
    return out


def calibrate(captures: list[Capture], params):
    """The launch and cold-memory latencies measured on `captures`: each the median of every
    traced stretch that shows it alone (`latency_segments`), pooled over the captures; a
    latency no capture shows keeps its value. Measured where it shows rather than fitted to
    whole lifetimes: a fit lets one kernel's unexplained delay (E_3 waits ~1200 cycles for
    its first instruction, the other kernels 500-600) leak into latencies every kernel uses.
    The vector memory latencies are what is left after the line pipe: the captures are
    replayed with the launch and scalar latencies measured first, and each stretch loses the
    time the model's CU line pipe held it (its arch parameter is not fitted here)."""
    def pooled_median(modelled_of) -> dict:
        pooled: dict[str, list[int]] = {}
        for c in captures:
            for name, values in latency_segments(c, params.waitcnt_resume, modelled_of(c)).items():
                pooled.setdefault(name, []).extend(values)
        return {name: int(round(statistics.median(v))) for name, v in pooled.items() if v}
    first = params.with_(**pooled_median(lambda c: None))

    def modelled(c: Capture) -> dict:
        traced = {(w["se"], w["cu"], w["simd"], w["wave"]) for w in c.waves}
        if not traced:
            return {}
        return {(lt["se"], lt["cu"], lt["simd"], lt["wave"]): pred for lt, pred in replay_lifetimes(c, first)
                if (lt["se"], lt["cu"], lt["simd"], lt["wave"]) in traced}
    return params.with_(**pooled_median(modelled))


def main() -> int:
    import os
    shared = Path(os.environ.get("WAVESMITH_SHARED", Path(__file__).resolve().parents[3] / "shared")) / "timing" / "gfx1100"
    from .arch import timing_for
    p = timing_for("gfx1100")
    caps = load_captures(shared / "kernels.json") + load_captures(shared / "discover_ops.json")
    r = evaluate(caps, p, verbose=True)
    print(f"pipeline gaps: {r['gaps']}  exact {r['exact']:.1%}  within 1 {r['within1']:.1%}")
    print(f"stall causes (gaps > 4): {r['cause_cycles']} cycles, agreement {r['cause_agree']:.1%}")
    h = evaluate_held_out(caps, p)
    print(f"held out (mechanisms fitted on a kernel off when scoring it): exact {h['exact']:.1%}  "
          f"within 1 {h['within1']:.1%}")
    for key, (n, miss, far) in sorted(r["by_class"].items(), key=lambda x: -x[1][1])[:12]:
        print(f"  {key:32s} {n:5d} gaps, {miss:4d} missed, {far:4d} by more than 1")
    for k, v in r["misses"].most_common(40):
        print("  miss", v, k)
    for k, v in r["cause_misses"].most_common(20):
        print("  cause", v, k)
    cal = calibrate([c for c in caps if c.source.endswith("run_0.pkl")], p)
    errs = lifetime_errors([c for c in caps if not c.source.endswith("run_0.pkl")], cal)
    a = [abs(e) for _, e in errs]
    print(f"lifetimes (latencies measured on run 0, scored on the other runs): {len(a)} waves, "
          f"median |err| {statistics.median(a):.1%}, max {max(a):.1%}")
    for kern in sorted({k for k, _ in errs}):
        e = [x for k, x in errs if k == kern]
        print(f"  {kern}: n={len(e)} median {statistics.median(e):+.1%} min {min(e):+.1%} max {max(e):+.1%}")
    f = first_issue_errors([c for c in caps if not c.source.endswith("run_0.pkl")], cal)
    print("  from first issue to end (traced waves): " + ", ".join(f"{k} {x:+.1%}" for k, x in f))
    print("  start -> first issue, measured: " + ", ".join(f"{k} {sorted(v)}" for k, v in sorted(launch_delays(caps).items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Our code against LLVM's on the same tinygrad kernels, both run on the emulator.

    python bench/bench_llvm.py [--ops add,softmax,...] [--list] [--keep DIR] [--no-losses]

For every kernel of a representative op suite (elementwise, transcendental, integer, casts,
reductions, softmax/layernorm, matmul, conv, pooling, indexing, movement), tinygrad 0.14.0
schedules the op on `WAVESMITH` and lowers each kernel AST twice with the same optimisations
(the `applied_opts` our renderer got are forced on the other with `opts_to_apply`):

- **ours**: `WavesmithRenderer` -> IR text -> `frontend.compile_program` -> code object;
- **LLVM**: tinygrad's `AMDLLVMRenderer` for gfx1100 (its LLVM IR; no GPU and no LLVM library
  call: the renderer's compiler is replaced by one that returns the text) -> `opt-22` with
  tinygrad's pipeline (`default<O2>`, `+cumode`) -> `llc-22 -O2` -> `ld.lld-22 -shared`.
  tinygrad hands its module to LLVM without a target triple, so the verifier never sees its
  register-array `alloca`s in address space 0; with the triple set they must be in
  addrspace(5), so each is rewritten to an addrspace(5) alloca plus an `addrspacecast`.

Both code objects run on `Device("emu")` with identical buffers (seeded random contents,
every buffer of the kernel); the outputs must agree (integers exactly, floats as `agree()`
says, NaN where NaN). Per kernel it prints dynamic wave-instructions (emu `Stats`), the
ratio ours/LLVM, emulated cycles (both launches timed by the emulator's timing model,
`launch(..., timing=True)`, same grid, same buffers) and their ratio, static VGPRs and SGPRs
(code-object metadata) and compile times (ours: this process's CPU time for IR -> code
object; LLVM: the three tools' CPU time), then the medians against the goal (<= 1.1x LLVM's
instructions, no more VGPRs), the median cycle ratio, and the kernels where we lose (more
instructions, VGPRs or cycles), each with the instruction categories that make up the
difference."""
from __future__ import annotations

import argparse
import copy
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ARCH = "gfx1100"
TOOLS = ("opt-22", "llc-22", "ld.lld-22")
LLVM_FLAGS = ("-mtriple=amdgcn-amd-amdhsa", f"-mcpu={ARCH}", "-mattr=+cumode")
GOAL_INSTRUCTIONS = 1.1


def llvm_missing() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


# ----------------------------------------------------------------------------- the op suite

def _suite():
    """name -> (inputs as (shape, numpy dtype), function of the input Tensors)."""
    f, i, h, u8 = np.float32, np.int32, np.float16, np.uint8
    v, m = ((1000,), f), ((37, 45), f)
    return {
        "add": ([v, v], lambda a, b: a + b),
        "mul_const": ([v], lambda a: a * 3.5 + 1),
        "relu": ([v], lambda a: a.relu()),
        "exp": ([v], lambda a: a.exp()),
        "log": ([v], lambda a: a.abs().log()),
        "sin": ([v], lambda a: a.sin()),
        "sqrt": ([v], lambda a: a.abs().sqrt()),
        "div": ([v, v], lambda a, b: a / b),
        "sigmoid": ([v], lambda a: a.sigmoid()),
        "gelu": ([v], lambda a: a.gelu()),
        "tanh": ([v], lambda a: a.tanh()),
        "where": ([v, v], lambda a, b: (a < b).where(a, b * 2)),
        "maximum": ([v, v], lambda a, b: a.maximum(b)),
        "add_int": ([((1000,), i), ((1000,), i)], lambda a, b: a + b * 3),
        "idiv_const": ([((1000,), i)], lambda a: a // 7 + a % 5),
        "idiv_var": ([((1000,), i), ((1000,), i)], lambda a, b: a // b),
        "cast_f2i": ([v], lambda a: (a * 10).cast("int32")),
        "cast_i2f": ([((1000,), i)], lambda a: a.cast("float32") * 0.5),
        "add_half": ([((1000,), h), ((1000,), h)], lambda a, b: a * b + a),
        "add_u8": ([((1000,), u8), ((1000,), u8)], lambda a, b: a + b),
        "sum_all": ([((4096,), f)], lambda a: a.sum()),
        "sum_axis0": ([m], lambda a: a.sum(axis=0)),
        "sum_axis1": ([m], lambda a: a.sum(axis=1)),
        "max_axis1": ([m], lambda a: a.max(axis=1)),
        "mean": ([m], lambda a: a.mean(axis=1)),
        "argmax": ([m], lambda a: a.argmax(axis=1)),
        "cumsum": ([((64,), f)], lambda a: a.cumsum()),
        "softmax": ([m], lambda a: a.softmax(axis=1)),
        "log_softmax": ([m], lambda a: a.log_softmax(axis=1)),
        "layernorm": ([((16, 64), f)], lambda a: a.layernorm()),
        "matmul": ([((64, 64), f), ((64, 64), f)], lambda a, b: a @ b),
        "matmul_odd": ([((33, 17), f), ((17, 29), f)], lambda a, b: a @ b),
        "gemv": ([((128,), f), ((128, 96), f)], lambda a, b: a @ b),
        "conv2d": ([((1, 4, 12, 12), f), ((8, 4, 3, 3), f)], lambda a, w: a.conv2d(w)),
        "max_pool2d": ([((1, 4, 16, 16), f)], lambda a: a.max_pool2d()),
        "avg_pool2d": ([((1, 4, 16, 16), f)], lambda a: a.avg_pool2d()),
        "gather": ([((40, 16), f), ((24,), i)], lambda a, idx: a[idx.abs() % 40]),
        "transpose": ([m], lambda a: a.T.contiguous()),
        "pad": ([m], lambda a: a.pad(((1, 2), (3, 0))) * 2),
        "cat": ([m, m], lambda a, b: a.cat(b, dim=1) + 1),
        "flip": ([m], lambda a: a.flip(1).contiguous()),
    }


SUITE = _suite()


def random_array(rng, shape, dtype) -> np.ndarray:
    """Buffer contents both sides get: floats around +-2, ints without zero (divisors)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 2).astype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(dt)
    lo, hi = (1, 100) if dt.kind == "u" else (-100, 100)
    x = rng.integers(lo, hi, shape)
    return np.where(x == 0, 1, x).astype(dt)


def suite_kernels(names, seed: int = 0):
    """[(op name, kernel AST)] for the ops `names`, each kernel once."""
    import frontend.tinygrad  # noqa: F401  (registers WAVESMITH)
    from tinygrad import Tensor
    from tinygrad.uop.ops import Ops
    rng = np.random.default_rng(seed)
    seen, out = set(), []
    for name in names:
        specs, fn = SUITE[name]
        inputs = [Tensor(random_array(rng, s, d), device="WAVESMITH").realize() for s, d in specs]
        result = fn(*inputs)
        linear, _ = result.linear_with_vars()
        for call in linear.src:
            ast = call.src[0]
            if call.op is Ops.CALL and ast.op is Ops.SINK and ast.key not in seen:
                seen.add(ast.key)
                out.append((name, ast))
    return out


# ----------------------------------------------------------------------------- lowering


class _SourceOnly:
    """A tinygrad Compiler stand-in: the 'binary' is the rendered source (nothing compiled)."""

    cachekey = None

    def compile_cached(self, src: str) -> bytes:
        return src.encode()

    def compile(self, src: str) -> bytes:
        return src.encode()


_RENDERERS: dict = {}


def renderers():
    """(ours, tinygrad's LLVM renderer for gfx1100), both rendering source only."""
    if not _RENDERERS:
        import frontend.tinygrad  # noqa: F401
        from tinygrad import Device
        from tinygrad.renderer import Target
        from tinygrad.renderer.llvmir import AMDLLVMRenderer
        ours = copy.copy(Device["WAVESMITH"].renderer)
        llvm = AMDLLVMRenderer(Target(device="AMD", arch=ARCH))
        ours.compiler = llvm.compiler = _SourceOnly()
        _RENDERERS.update(ours=ours, llvm=llvm)
    return _RENDERERS["ours"], _RENDERERS["llvm"]


@dataclass
class Lowered:
    ours_ir: str
    llvm_ir: str
    info: object            # tinygrad ProgramInfo (launch sizes, globals, outs, vars)
    params: list            # [(slot, numpy dtype, element count)] of the global buffers, by slot
    opts: tuple


def lower(ast) -> Lowered:
    from tinygrad.codegen import to_program
    from tinygrad.uop.ops import AddrSpace, Ops
    ours, llvm = renderers()
    p = to_program(ast, ours)
    opts = p.src[0].arg.applied_opts
    q = to_program(ast.replace(arg=replace(ast.arg, opts_to_apply=opts)), llvm)
    if (p.arg.global_size, p.arg.local_size) != (q.arg.global_size, q.arg.local_size):
        raise RuntimeError(f"launch sizes differ: ours {p.arg.global_size}x{p.arg.local_size}, "
                           f"LLVM {q.arg.global_size}x{q.arg.local_size}")
    params = sorted((u.arg.slot, _numpy_dtype(getattr(u.dtype, "base", u.dtype)), u.max_numel()) for u in ast.backward_slice
                    if u.op is Ops.PARAM and u.addrspace != AddrSpace.ALU)
    return Lowered(p.src[2].arg, q.src[2].arg, p.arg, params, opts)


def _numpy_dtype(dt):
    from tinygrad.dtype import dtypes
    if dt == dtypes.bfloat16:
        return np.dtype(np.uint16)          # bits; numpy has no bfloat16
    return np.dtype(dt.fmt if dt.fmt else np.uint8)


_ALLOCA = re.compile(r"^(\s*)(%[\w.]+) = alloca (\[[^\]]*\])(.*)$", re.M)


def llvm_module(ir: str) -> str:
    """tinygrad's IR with its register-array allocas moved to the private address space."""
    return _ALLOCA.sub(r"\1\2.private = alloca \3, addrspace(5)\4\n"
                       r"\1\2 = addrspacecast ptr addrspace(5) \2.private to ptr", ir)


def compile_llvm(ir: str, workdir: Path, stem: str) -> tuple[bytes, float]:
    """LLVM IR -> linked code object, and the CPU seconds opt + llc + lld took."""
    ll, opt_ll, obj, co = (workdir / f"{stem}{ext}" for ext in (".ll", ".opt.ll", ".o", ".hsaco"))
    ll.write_text(llvm_module(ir))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for argv in (["opt-22", *LLVM_FLAGS, "-passes=default<O2>", "-S", str(ll), "-o", str(opt_ll)],
                 ["llc-22", "-O2", *LLVM_FLAGS, "-filetype=obj", str(opt_ll), "-o", str(obj)],
                 ["ld.lld-22", "-shared", str(obj), "-o", str(co)]):
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr.strip()[:500]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return co.read_bytes(), (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def compile_ours(ir: str) -> tuple[bytes, float]:
    from frontend.compile import compile_program
    from frontend.ir import parse
    t0 = time.process_time()
    hsaco = compile_program(parse(ir), ARCH).hsaco
    return hsaco, time.process_time() - t0


# ----------------------------------------------------------------------------- running


@dataclass
class Side:
    instructions: int = 0
    cycles: int = 0             # emulated cycles of the launch (emu timing model)
    vgprs: int = 0
    sgprs: int = 0
    compile_s: float = 0.0
    by_mnemonic: dict = field(default_factory=dict)
    stalls: dict = field(default_factory=dict)       # cause -> stall cycles summed over waves
    timing_note: str = ""                             # how the timing model estimated, if it did
    outputs: dict = field(default_factory=dict)


def launch(dev, hsaco: bytes, arg_prefix: str, low: Lowered, buffers: dict, vars_: dict) -> Side:
    """Run one code object on `dev` with copies of `buffers` ({slot: array}); its arguments are
    named `<arg_prefix><slot>` for buffers (ours p0.., LLVM data0..) and vars in slot order."""
    from runtime import read_code_object
    co = read_code_object(hsaco)
    name, k = next(iter(co.kernels.items()))
    by_name = {f"{arg_prefix}{slot}": arr for slot, arr in buffers.items()}
    var_values = iter(vars_.values())
    dbufs, args = {}, []
    for a in (a for a in k.args if not a.hidden):
        if a.value_kind == "global_buffer":
            arr = by_name[a.name]
            dbufs[a.name] = dev.alloc(max(arr.nbytes, 4), a.name).copyin(arr)
            args.append(dbufs[a.name])
        else:
            args.append(np.int32(next(var_values)))
    grid, block = low.info.launch_dims(vars_)
    dev.machine.count_mnemonics = True
    stats = dev.load(hsaco).launch(name, grid=tuple(grid), block=tuple(block or (1, 1, 1)), args=args,
                                   timing=True)
    outs = {}
    for slot, arr in buffers.items():
        b = dbufs.get(f"{arg_prefix}{slot}")
        if b is not None:
            outs[slot] = b.copyout(arr.dtype)[:arr.size].copy()
            b.free()
    rep = stats.timing
    return Side(instructions=stats.instructions, cycles=rep.cycles, vgprs=k.vgpr_count, sgprs=k.sgpr_count,
                by_mnemonic=dict(stats.by_mnemonic or {}), outputs=outs, stalls=rep.stall_totals(),
                timing_note=rep.note)


def agree(a: np.ndarray, b: np.ndarray) -> str | None:
    """None when ours (a) and LLVM's (b) agree, else what differs. Floats: within a relative
    1e-5 (2e-3 for 16-bit) of the larger of the value and the output's largest magnitude
    (sums in another order, native sin against tinygrad's polynomial); NaN where NaN."""
    if a.dtype.kind == "f":
        rtol = 2e-3 if a.dtype.itemsize == 2 else 1e-5
        finite = np.abs(b[np.isfinite(b)].astype(np.float64))
        scale = max(float(finite.max()) if finite.size else 1.0, 1.0)
        ok = np.isclose(a, b, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        ok = a == b
    if ok.all():
        return None
    bad = np.flatnonzero(~ok)
    j = bad[0]
    return f"{len(bad)} of {a.size} elements differ (first at {j}: ours {a[j]!r}, LLVM {b[j]!r})"


CATEGORIES = (("wait", ("s_waitcnt",)), ("hint", ("s_delay_alu", "s_clause", "s_nop", "s_sendmsg")),
              ("smem", ("s_load", "s_buffer_load")), ("vmem", ("global_", "buffer_", "flat_", "scratch_")),
              ("lds", ("ds_",)), ("branch", ("s_cbranch", "s_branch")), ("salu", ("s_",)), ("valu", ("v_",)))


def category(mnemonic: str) -> str:
    for cat, prefixes in CATEGORIES:
        if mnemonic.startswith(prefixes):
            return cat
    return "other"


def by_category(counts: dict) -> dict:
    out: dict = {}
    for m, n in counts.items():
        out[category(m)] = out.get(category(m), 0) + n
    return out


@dataclass
class Row:
    op: str
    kernel: str
    ours: Side | None = None
    llvm: Side | None = None
    error: str | None = None     # a compile or run failure on either side
    mismatch: str | None = None  # outputs that differ

    @property
    def ratio(self) -> float:
        return self.ours.instructions / max(self.llvm.instructions, 1)

    @property
    def cycle_ratio(self) -> float:
        return self.ours.cycles / max(self.llvm.cycles, 1)

    def loses(self) -> bool:
        return (self.ratio > GOAL_INSTRUCTIONS or self.ours.vgprs > self.llvm.vgprs
                or self.ours.cycles > self.llvm.cycles)

    def why(self) -> str:
        """The instruction categories (and registers) where ours exceeds LLVM's."""
        o, l = by_category(self.ours.by_mnemonic), by_category(self.llvm.by_mnemonic)
        extra = sorted(((o.get(c, 0) - l.get(c, 0), c) for c in set(o) | set(l)), reverse=True)
        parts = [f"{c} +{d}" for d, c in extra if d > 0][:3]
        if self.ours.vgprs > self.llvm.vgprs:
            parts.append(f"VGPRs {self.ours.vgprs} vs {self.llvm.vgprs}")
        if self.ours.cycles > self.llvm.cycles:
            so, sl = self.ours.stalls, self.llvm.stalls
            more = sorted(((so.get(c, 0) - sl.get(c, 0), c) for c in set(so) | set(sl)), reverse=True)
            stalled = [f"{c} +{d}" for d, c in more if d > 0][:2]
            if stalled:
                parts.append("wave stall cycles " + ", ".join(stalled))
        return ", ".join(parts)


def compare(op: str, ast, workdir: Path, seed: int = 1) -> Row:
    """Lower, compile and run one kernel both ways."""
    from runtime import Device
    row = Row(op, ast.arg.function_name)
    try:
        low = lower(ast)
        row.kernel = low.info.function_name
        ours_co, ours_s = compile_ours(low.ours_ir)
        llvm_co, llvm_s = compile_llvm(low.llvm_ir, workdir, row.kernel)
    except Exception as e:          # reported per kernel, the suite goes on
        row.error = f"compile: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
        return row
    rng = np.random.default_rng(seed)
    buffers = {slot: random_array(rng, (n,), dt) for slot, dt, n in low.params}
    vars_ = {v.expr: (int(v.vmin) + int(v.vmax)) // 2 for v in low.info.vars}
    try:
        row.ours = launch(Device("emu", arch=ARCH), ours_co, "p", low, buffers, vars_)
        row.llvm = launch(Device("emu", arch=ARCH), llvm_co, "data", low, buffers, vars_)
    except Exception as e:
        row.error = f"run: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
        return row
    row.ours.compile_s, row.llvm.compile_s = ours_s, llvm_s
    for slot in low.info.outs:
        diff = agree(row.ours.outputs[slot], row.llvm.outputs[slot])
        if diff:
            row.mismatch = f"buffer {slot}: {diff}"
            break
    return row


# ----------------------------------------------------------------------------- report


def report(rows: list[Row], losses: bool = True) -> dict:
    print(f"{'op':<12} {'kernel':<28} {'ours':>8} {'LLVM':>8} {'ratio':>6} {'cyc ours':>9} {'cyc LLVM':>9} "
          f"{'c.ratio':>7} {'VGPR':>7} {'SGPR':>7} {'compile ms':>13}  result")
    good = [r for r in rows if r.ours and r.llvm]
    for r in rows:
        if not (r.ours and r.llvm):
            print(f"{r.op:<12} {r.kernel[:28]:<28} {'':>8} {'':>8} {'':>6} {'':>9} {'':>9} {'':>7} {'':>7} {'':>7} "
                  f"{'':>13}  {r.error}")
            continue
        o, l = r.ours, r.llvm
        print(f"{r.op:<12} {r.kernel[:28]:<28} {o.instructions:>8} {l.instructions:>8} {r.ratio:>6.2f} "
              f"{o.cycles:>9} {l.cycles:>9} {r.cycle_ratio:>7.2f} {o.vgprs:>3}/{l.vgprs:<3} {o.sgprs:>3}/{l.sgprs:<3} {o.compile_s * 1e3:>6.0f}/{l.compile_s * 1e3:<6.0f}"
              f"  {'MISMATCH ' + r.mismatch if r.mismatch else 'same'}")
    summary = {}
    if good:
        summary = {
            "kernels": len(good), "failed": len(rows) - len(good), "mismatches": sum(bool(r.mismatch) for r in good),
            "median_ratio": statistics.median(r.ratio for r in good),
            "median_vgprs": (statistics.median(r.ours.vgprs for r in good), statistics.median(r.llvm.vgprs for r in good)),
            "median_vgpr_diff": statistics.median(r.ours.vgprs - r.llvm.vgprs for r in good),
            "median_compile_ms": (statistics.median(r.ours.compile_s for r in good) * 1e3,
                                  statistics.median(r.llvm.compile_s for r in good) * 1e3),
"median_cycle_ratio": statistics.median(r.cycle_ratio for r in good),
            "total_ratio": sum(r.ours.instructions for r in good) / max(sum(r.llvm.instructions for r in good), 1),
        }
        s = summary
        print(f"\n{s['kernels']} kernels run ({s['failed']} failed, {s['mismatches']} with different answers)")
        print(f"median instructions ours/LLVM: {s['median_ratio']:.3f} (goal <= {GOAL_INSTRUCTIONS}: "
              f"{'met' if s['median_ratio'] <= GOAL_INSTRUCTIONS else 'not met'}); all kernels summed: "
              f"{s['total_ratio']:.3f}")
        print(f"median emulated cycles ours/LLVM: {s['median_cycle_ratio']:.3f} (timing model, same launch); "
              f"slower in cycles: {sum(r.ours.cycles > r.llvm.cycles for r in good)}")
        for r in good:
            for who, side in (("ours", r.ours), ("LLVM", r.llvm)):
                if side.timing_note:
                    print(f"  cycles of {r.op} {r.kernel} ({who}) estimated: {side.timing_note}")
        print(f"median VGPRs ours {s['median_vgprs'][0]:g}, LLVM {s['median_vgprs'][1]:g}; median difference "
              f"{s['median_vgpr_diff']:+g} (goal <= 0: {'met' if s['median_vgpr_diff'] <= 0 else 'not met'})")
        print(f"median compile time: ours {s['median_compile_ms'][0]:.0f} ms, LLVM (opt+llc+lld CPU) "
              f"{s['median_compile_ms'][1]:.0f} ms")
    if losses:
        lost = sorted((r for r in good if r.loses()), key=lambda r: -max(r.ratio, r.cycle_ratio))
        print(f"\nkernels where we lose ({len(lost)}): ratio > {GOAL_INSTRUCTIONS}, more VGPRs or more cycles; "
              f"instruction and cycle ratios, extra wave-instructions by category")
        for r in lost:
            print(f"  {r.op:<12} {r.kernel[:28]:<28} {r.ratio:5.2f}x  cycles {r.cycle_ratio:5.2f}x  {r.why()}")
        totals: dict = {}
        for r in lost:
            o, l = by_category(r.ours.by_mnemonic), by_category(r.llvm.by_mnemonic)
            for c in set(o) | set(l):
                totals[c] = totals.get(c, 0) + o.get(c, 0) - l.get(c, 0)
        print("  summed over them: " + ", ".join(f"{c} {d:+d}" for c, d in
                                                 sorted(totals.items(), key=lambda x: -x[1])))
    return summary


def run_suite(names, keep: str | None = None, quiet: bool = False) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="wavesmith-bench-llvm-") as tmp:
        workdir = Path(keep or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        kernels = suite_kernels(names)
        for n, (op, ast) in enumerate(kernels):
            if not quiet:
                print(f"\r[{n + 1}/{len(kernels)}] {op} ...", end="", file=sys.stderr, flush=True)
            rows.append(compare(op, ast, workdir))
        if not quiet:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", help="comma-separated op names (default: the whole suite)")
    ap.add_argument("--list", action="store_true", help="list the op names")
    ap.add_argument("--keep", metavar="DIR", help="keep LLVM's .ll/.o/.hsaco files in DIR")
    ap.add_argument("--no-losses", action="store_true", help="skip the list of kernels where we lose")
    args = ap.parse_args(argv)
    if args.list:
        print(" ".join(SUITE))
        return 0
    names = args.ops.split(",") if args.ops else list(SUITE)
    unknown = [n for n in names if n not in SUITE]
    if unknown:
        ap.error(f"unknown op(s) {', '.join(unknown)}; --list shows them")
    missing = llvm_missing()
    if missing:
        print(f"LLVM side skipped: {', '.join(missing)} not on PATH (apt-get install llvm-22 lld-22)")
        return 0
    os.environ.setdefault("WAVESMITH_LAUNCH_SECONDS", "600")
    report(run_suite(names, args.keep), losses=not args.no_losses)
    return 0


if __name__ == "__main__":
    sys.exit(main())

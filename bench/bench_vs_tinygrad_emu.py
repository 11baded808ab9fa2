#!/usr/bin/env python3
"""Our emulator against tinygrad's RDNA3 emulator on the same clang-compiled gfx1100 kernels of the
shared corpus, both in this process, each output checked against the kernel's numpy reference.

tinygrad's emulator (test/mockgpu/amd/emu.py and pcode.py in tinygrad's repository: every
instruction compiled once into a C kernel over one wave's registers, waves run one after another)
is not part of any tinygrad wheel. Point --tinygrad-emu (or $WAVESMITH_TINYGRAD_EMU) at a folder
holding that source and the tinygrad it runs on:

    FOLDER/test/mockgpu/amd/{emu,pcode}.py   tinygrad's source, unmodified (with empty __init__.py files
                                             in test/, test/mockgpu/, test/mockgpu/amd/)
    FOLDER/tinygrad/                         a tinygrad whose renderer/amd and runtime/autogen/amd it imports
                                             (the 0.13.0 wheel unpacked; its missing get_runner is supplied here)

FOLDER goes first on sys.path, so its tinygrad is the one imported (ours imports no tinygrad to run
machine code). Without it the script says so and exits 0.

Per kernel it prints the best wall time of --repeat launches after one warm-up (the warm-up
compiles tinygrad's per-instruction kernels and our semantics, so neither pays it again) and the
ratio tinygrad / ours; CPU time of this process too (the steadier figure on a loaded machine), and
the warm-up's own wall time. Each output is checked against numpy (the manifest's tolerance) and
the two emulators' outputs against each other bit for bit (how many elements differ, by how many
ULPs). A kernel tinygrad's emulator cannot run is reported with its error. Kernels (manifest grids): sgemm_naive,
ew_f32_fma_minmax, reduce_sum_lds, softmax_row (narrow launches, goal >= 5x) and
histogram_global_atomic (conflicting global atomics, goal >= 3x), the last also with our
combine_atomic_sums off (the scan of emu/atomic_scan.py: one pass per conflict depth) and with
scan_atomics off too (every conflicting lane in its own round).

    python bench/bench_vs_tinygrad_emu.py --tinygrad-emu /tmp/tinygrad-emu [--repeat 5] [--kernels a,b]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import struct
import tempfile
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))
NARROW = ("sgemm_naive", "ew_f32_fma_minmax", "reduce_sum_lds", "softmax_row")
ATOMIC = "histogram_global_atomic"
GOALS = {**{k: 5.0 for k in NARROW}, ATOMIC: 3.0}
FIRST: dict = {}        # launch -> wall seconds of its first (warm-up) call
ARCH = "gfx1100"


def tinygrad_emu(folder: str | None):
    """Import tinygrad's emulator from `folder`, or explain why not (returns (module, None) or (None, why))."""
    if not folder:
        return None, "no --tinygrad-emu / $WAVESMITH_TINYGRAD_EMU given"
    root = Path(folder)
    if not (root / "test" / "mockgpu" / "amd" / "emu.py").is_file():
        return None, f"{root}/test/mockgpu/amd/emu.py not found"
    if "tinygrad" in sys.modules and not str(Path(sys.modules["tinygrad"].__file__)).startswith(str(root)):
        return None, "another tinygrad was imported before this script could put FOLDER first"
    sys.path.insert(0, str(root))
    if shutil.which("clang") is None and shutil.which("clang-22"):   # its CPU kernels are built by `clang`
        bindir = Path(tempfile.mkdtemp(prefix="tgemu-clang-"))
        (bindir / "clang").symlink_to(shutil.which("clang-22"))
        os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        import tinygrad.engine.realize as realize
        if not hasattr(realize, "get_runner"):
            realize.get_runner = _get_runner_0_13
        from test.mockgpu.amd import emu
    except Exception as e:  # a source that does not fit the tinygrad beside it: say what failed
        return None, f"importing {root}/test/mockgpu/amd/emu.py failed: {type(e).__name__}: {e}"
    return emu, None


def _get_runner_0_13(device: str, sink):
    """engine.realize.get_runner as emu.py calls it, for tinygrad 0.13.0 (which dropped it): the
    instruction's sink lowered to a CPU program, returned with the two attributes run_asm reads
    (`_prg.fxn`, `p.globals`). 0.13.0 spells a gated access INDEX(buf, gate.where(idx, Invalid))
    where emu.py builds INDEX(buf, idx, gate), and its tensor-level spec check refuses emu.py's
    raw INDEX stores (SPEC=0)."""
    from types import SimpleNamespace
    from tinygrad.codegen import to_program
    from tinygrad.device import Device
    from tinygrad.dtype import dtypes
    from tinygrad.engine.realize import get_runtime
    from tinygrad.helpers import Context
    from tinygrad.uop.ops import Ops, PatternMatcher, UPat, graph_rewrite
    gated = PatternMatcher([(UPat(Ops.INDEX, src=(UPat.var("buf"), UPat.var("idx"), UPat.var("gate", dtype=dtypes.bool)), name="x"),
                             lambda x, buf, idx, gate: x.replace(src=(buf, idx.valid(gate))))])
    sink = graph_rewrite(sink, gated, name="gated index")
    with Context(SPEC=0):
        prg = to_program(sink, Device[device].renderer)
    return SimpleNamespace(_prg=get_runtime(device, prg), p=SimpleNamespace(globals=list(prg.arg.globals)))


class TinygradLaunch:
    """One corpus kernel ready to run on tinygrad's emulator: the code object's image at a host
    address (the emulator reads instructions and memory by host address), the inputs as numpy
    arrays, the kernarg segment and the AQL packet the dispatch pointer names."""

    def __init__(self, emu, name: str):
        from runtime import read_code_object
        from runtime.device import HIDDEN, aql_packet
        from tests.kernel_corpus import make_inputs
        self.emu, self.name = emu, name
        folder = SHARED / "kernels" / name
        self.manifest = json.loads((folder / "manifest.json").read_text())
        co = read_code_object((folder / self.manifest["code_objects"][ARCH]).read_bytes())
        k = co.kernels[self.manifest["kernel"]]
        size = max(vaddr + memsz for vaddr, memsz, _ in co.segments())
        self.image = (ctypes.c_uint8 * (size + 4096))()
        base = ctypes.addressof(self.image)
        image = co.load_image(base=base)
        ctypes.memmove(base, bytes(image), len(image))
        self.entry, self.code_size = base + k.entry, len(k.code)
        self.rsrc2 = struct.unpack_from("<I", k.descriptor_bytes, 52)[0]
        self.scratch = k.descriptor.private_segment_fixed_size
        self.grid, self.block = self.manifest["launch"]["grid"], self.manifest["launch"]["block"]
        self.inputs = make_inputs(self.manifest)
        self.arrays = {}
        explicit = []
        for arg in self.manifest["args"]:
            value = self.inputs[arg["name"]]
            if arg["kind"] == "buffer":
                self.arrays[arg["name"]] = value.copy()
                explicit.append(self.arrays[arg["name"]].ctypes.data)
            else:
                explicit.append(value)
        kernarg = bytearray(max(k.kernarg_size, max(a.offset + a.size for a in k.args)))
        values = iter(explicit)
        for a in k.args:
            if a.hidden:
                fill = HIDDEN.get(a.value_kind)
                v = int(fill(self.grid, self.block, 0) if fill else 0)
                raw = (v & ((1 << 8 * a.size) - 1)).to_bytes(a.size, "little")
            else:
                v = next(values)
                raw = int(v).to_bytes(a.size, "little") if isinstance(v, int) else np.asarray(v).tobytes()
            kernarg[a.offset:a.offset + a.size] = raw
        self.kernarg = np.frombuffer(bytes(kernarg), np.uint8).copy()
        self.packet = np.frombuffer(aql_packet(self.grid, self.block, self.scratch, k.descriptor.group_segment_fixed_size,
                                               base + k.descriptor_address, self.kernarg.ctypes.data), np.uint8).copy()
        d = k.descriptor
        pointers = {"enable_sgpr_dispatch_ptr": self.packet.ctypes.data, "enable_sgpr_kernarg_segment_ptr": self.kernarg.ctypes.data}
        self.user = []
        for enable in ("enable_sgpr_private_segment_buffer", "enable_sgpr_dispatch_ptr", "enable_sgpr_queue_ptr",
                       "enable_sgpr_kernarg_segment_ptr", "enable_sgpr_dispatch_id", "enable_sgpr_flat_scratch_init"):
            if getattr(d, enable):
                if enable not in pointers:
                    raise RuntimeError(f"{name}: {enable} is set; this bench does not provide it to tinygrad's emulator")
                self.user += [pointers[enable] & 0xFFFFFFFF, pointers[enable] >> 32]

    def __call__(self):
        for arg in self.manifest["args"]:        # inout buffers start from their inputs again
            if arg["kind"] == "buffer" and arg["role"] == "inout":
                self.arrays[arg["name"]][...] = self.inputs[arg["name"]]
        return self.emu.run_asm(self.entry, self.code_size, *self.grid, *self.block, self.kernarg.ctypes.data,
                                rsrc2=self.rsrc2, scratch_size=self.scratch, arch="rdna3", user_data=self.user)

    def check(self) -> str:
        from tests.kernel_corpus import Case, compare
        case = Case(self.name, SHARED / "kernels" / self.name, self.manifest)
        params = dict(self.manifest["params"], wave_size=32, target=ARCH)
        want = case.reference({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self.inputs.items()}, params)
        bad = []
        for arg in self.manifest["args"]:
            if arg["kind"] == "buffer" and arg["role"] in ("out", "inout"):
                why = compare(self.arrays[arg["name"]], want[arg["name"]], arg.get("tolerance", self.manifest["tolerance"]))
                if why:
                    bad.append(f"{arg['name']}: {why}")
        return "matches numpy" if not bad else "DIFFERS from numpy: " + "; ".join(bad)


def same_bits(ours, theirs: TinygradLaunch) -> str:
    """The two emulators' output buffers compared bit for bit (numpy's tolerance can hide a
    difference in rounding): 'same bits', or per buffer how many elements differ, the largest
    difference and, for floats, the most units in the last place between them."""
    bad = []
    for arg in theirs.manifest["args"]:
        if arg["kind"] != "buffer" or arg["role"] not in ("out", "inout"):
            continue
        dtype = np.dtype(arg["dtype"])
        mine, other = ours.buffers[arg["name"]].copyout(dtype), theirs.arrays[arg["name"]]
        bits = np.dtype(f"u{dtype.itemsize}")
        differ = np.flatnonzero(mine.view(bits) != other.view(bits))
        if differ.size:
            a, b = mine[differ], other[differ]
            note = f"max |diff| {np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))):.3g}"
            if dtype.kind == "f":                # ULPs apart: the ordered integers of the two floats
                signed = np.dtype(f"i{dtype.itemsize}")
                order = [np.where(x.view(signed) < 0, np.iinfo(signed).min - x.view(signed), x.view(signed)).astype(np.int64)
                         for x in (a, b)]
                note += f", max {np.max(np.abs(order[0] - order[1]))} ulp"
            bad.append(f"{arg['name']}: {differ.size} of {mine.size} elements differ (first at {differ[0]}: ours "
                       f"{mine[differ[0]].item()!r}, tinygrad {other[differ[0]].item()!r}; {note})")
    return "same bits" if not bad else "DIFFER: " + "; ".join(bad)


def best(fn, repeat: int):
    """(best wall seconds, best CPU seconds) of `repeat` calls after one warm-up."""
    t = time.perf_counter()
    fn()
    FIRST[fn] = time.perf_counter() - t
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tinygrad-emu", default=os.environ.get("WAVESMITH_TINYGRAD_EMU"),
                    help="folder with tinygrad's emulator source and its tinygrad ($WAVESMITH_TINYGRAD_EMU)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kernels", default=",".join((*NARROW, ATOMIC)))
    args = ap.parse_args()
    emu, why = tinygrad_emu(args.tinygrad_emu)
    if emu is None:
        print(f"skipped: tinygrad's emulator is not available ({why}). It is not in any tinygrad wheel; see this "
              f"script's docstring for the folder it needs.")
        return 0
    sys.path.insert(0, str(REPO / "bench"))
    from bench_emu_narrow import Launch
    from emu.options import options_from
    print(f"ours vs tinygrad's emulator ({args.tinygrad_emu}), {ARCH}, best of {args.repeat} after a warm-up; "
          f"ratio = tinygrad / ours (wall; CPU in brackets)")
    met, uncompared = True, []
    for name in args.kernels.split(","):
        ours, theirs = Launch(name, ARCH), TinygradLaunch(emu, name)
        o_wall, o_cpu = best(ours, args.repeat)
        stats = ours()
        try:
            t_wall, t_cpu = best(theirs, max(1, min(args.repeat, 3)))
        except Exception as e:         # its decoder or compiler refuses an instruction of this kernel
            uncompared.append(name)
            print(f"  {name:24s} {stats.waves:4d} waves {stats.batches:5d} steps  ours {o_wall * 1e3:8.1f} ms "
                  f"({o_cpu * 1e3:7.1f} CPU), {ours.check()}; tinygrad's emulator cannot run it: "
                  f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
            continue
        ratio, goal = t_wall / o_wall, GOALS.get(name)
        ok = goal is None or ratio >= goal
        met &= ok
        print(f"  {name:24s} {stats.waves:4d} waves {stats.batches:5d} steps  ours {o_wall * 1e3:8.1f} ms "
              f"({o_cpu * 1e3:7.1f} CPU)  tinygrad {t_wall * 1e3:9.1f} ms ({t_cpu * 1e3:8.1f} CPU)  "
              f"{ratio:6.2f}x ({t_cpu / o_cpu:5.2f}x)  goal >= {goal}x: {'met' if ok else 'NOT met'}")
        print(f"  {'':24s} ours: {ours.check()}; tinygrad: {theirs.check()}; ours vs tinygrad: {same_bits(ours, theirs)}")
        print(f"  {'':24s} first launch in this process "
              f"(compiling what earlier kernels did not): ours {FIRST[ours] * 1e3:.0f} ms, tinygrad {FIRST[theirs] * 1e3:.0f} ms")
        if name == ATOMIC:
            for off, how in ((["combine_atomic_sums"], "conflicting lanes scanned per conflict depth"),
                             (["combine_atomic_sums", "scan_atomics"], "conflicting lanes in rounds")):
                other = Launch(name, ARCH, options=options_from(off=off))
                r_wall, r_cpu = best(other, max(1, args.repeat // 2))
                print(f"  {'':24s} ours with {','.join(off)} off ({how}): {r_wall * 1e3:.1f} ms ({r_cpu * 1e3:.1f} CPU), "
                      f"tinygrad / that {t_wall / r_wall:.2f}x ({t_cpu / r_cpu:.2f}x); {other.check()}")
    print(("all goals met" if met else "some goals NOT met") + (" where tinygrad's emulator runs the kernel; no ratio "
          f"for {', '.join(uncompared)}" if uncompared else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`wavesmith emu --time` / `--timeline OUT.html`: run a kernel on the emulator with the
timing model and print its cycles, per-wave and per-instruction stall tables, or write the
HTML timeline. The kernel is a code object given on the command line with its launch and
arguments, or (without one) the built-in DSL saxpy kernel of `wavesmith demo`.

Arguments, in the kernel's argument order (`--arg` repeated):
  TYPE:COUNT[:INIT]   a buffer of COUNT elements of numpy dtype TYPE (float32, int32, uint8,
                      ...), filled with INIT: zeros (default), ones, arange, uniform(LO,HI),
                      randint(LO,HI), normal (seed --seed)
  TYPE=VALUE          a scalar: uint32=5000, float32=2.5
"""
from __future__ import annotations

import re
import sys

import numpy as np

_BUFFER = re.compile(r"^(?P<type>\w+):(?P<count>\d+)(?::(?P<init>.+))?$")
_SCALAR = re.compile(r"^(?P<type>\w+)=(?P<value>.+)$")


def add_launch_arguments(g) -> None:
    """The kernel and its launch: shared by `wavesmith emu --time` and `wavesmith debug`."""
    g.add_argument("code", nargs="?", help="code object (.hsaco) to run; default: the built-in DSL saxpy kernel")
    g.add_argument("--kernel", help="kernel name in the code object (default: its only kernel)")
    g.add_argument("--grid", default=None, help="work-groups per dimension: X or X,Y,Z (default for the demo: 8)")
    g.add_argument("--block", default=None, help="work-items per work-group: X or X,Y,Z (default for the demo: 256)")
    g.add_argument("--arg", action="append", default=[], metavar="SPEC",
                   help="a kernel argument, in order: TYPE:COUNT[:INIT] for a buffer (INIT: zeros, ones, arange, "
                        "uniform(LO,HI), randint(LO,HI), normal), TYPE=VALUE for a scalar")
    g.add_argument("--seed", type=int, default=0, help="seed of the random buffer contents (default 0)")
    if not any(a.dest == "arch" for a in getattr(g, "_actions", [])):
        g.add_argument("--arch", default="gfx1100", help="target of the built-in kernel (default: gfx1100)")


def add_arguments(ap) -> None:
    g = ap.add_argument_group("timing model (cycle-approximate; see emu/timing/README.md)")
    add_launch_arguments(g)
    g.add_argument("--time", action="store_true", help="run the kernel with the timing model and print cycles, "
                   "stall cycles by cause and the per-instruction stall table")
    g.add_argument("--timeline", metavar="OUT.html", help="also write a self-contained HTML timeline (waves x cycles)")
    g.add_argument("--waves", action="store_true", help="also print every wave's SIMD, start, first issue and end")
    g.add_argument("--top", type=int, default=None, metavar="N",
                   help="print only the N instructions with the most stall cycles (default: all); "
                   "with --timeline, also prints that table")


LAUNCH_DESTS = frozenset({"code", "kernel", "grid", "block", "arg", "seed"})


def ignored_launch_options(args, given: set):
    """Launch options the built-in kernel would ignore: (dests, why) or None."""
    if "kernel" in given and not args.code:
        return {"kernel"}, "without a code object (the built-in kernel is the DSL saxpy)"
    return None


def wants_timing(args) -> bool:
    return bool(args.time or args.timeline or args.code)


def _dims(text: str | None, default: tuple, what: str) -> tuple:
    if text is None:
        return default
    try:
        parts = [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--{what} {text!r}: give X or X,Y,Z (integers)") from None
    if not 1 <= len(parts) <= 3 or any(p < 1 for p in parts):
        raise ValueError(f"--{what} {text!r}: give one to three positive integers")
    return tuple(parts + [1] * (3 - len(parts)))


def _dtype(name: str, spec: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        raise ValueError(f"--arg {spec!r}: {name!r} is not a numpy type (float32, int32, uint8, ...)") from None


def parse_arg(spec: str, rng):
    """('buffer', array) or ('scalar', numpy scalar) for one --arg."""
    m = _SCALAR.match(spec)
    if m:
        dt = _dtype(m["type"], spec)
        try:
            value = float(m["value"]) if dt.kind == "f" else int(m["value"], 0)
            return "scalar", dt.type(value)
        except (ValueError, OverflowError):
            raise ValueError(f"--arg {spec!r}: {m['value']!r} is not a {dt.name} value") from None
    m = _BUFFER.match(spec)
    if not m:
        raise ValueError(f"--arg {spec!r}: give TYPE:COUNT[:INIT] for a buffer or TYPE=VALUE for a scalar")
    dt, n, init = _dtype(m["type"], spec), int(m["count"]), (m["init"] or "zeros").replace(" ", "")
    if n < 1 or n > 1 << 28:
        raise ValueError(f"--arg {spec!r}: COUNT must be 1 .. 2**28")
    pair = re.match(r"^(uniform|randint)\(([-+.\deE]+),([-+.\deE]+)\)$", init)
    if init in ("zeros", "ones"):
        return "buffer", (np.zeros(n) if init == "zeros" else np.ones(n)).astype(dt)
    if init == "arange":
        return "buffer", np.arange(n).astype(dt)
    if init == "normal":
        return "buffer", rng.standard_normal(n).astype(dt)
    if pair and pair[1] == "uniform":
        return "buffer", rng.uniform(float(pair[2]), float(pair[3]), n).astype(dt)
    if pair and pair[1] == "randint":
        lo, hi = int(float(pair[2])), int(float(pair[3]))
        if lo >= hi:
            raise ValueError(f"--arg {spec!r}: randint needs LO < HI")
        return "buffer", rng.integers(lo, hi, n, dtype=np.int64).astype(dt)
    raise ValueError(f"--arg {spec!r}: unknown INIT {init!r} (zeros, ones, arange, uniform(LO,HI), randint(LO,HI), normal)")


def _demo(arch: str):
    from runtime.codeobj import KernelArg
    from runtime.demo import build_saxpy
    from runtime.writer import from_dsl_kernel
    args = [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
            KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")]
    return from_dsl_kernel(build_saxpy(arch), "saxpy", args, user_sgpr_kernarg_segment_ptr=1)


def prepare_launch(args):
    """(program, kernel name, grid, block, launch arguments) from the command line."""
    from dsl.cli import read_input
    from runtime import Device
    from runtime.codeobj import read_code_object
    rng = np.random.default_rng(args.seed)
    if args.code:
        code = read_input(args.code)
        co = read_code_object(code)
        arch = co.target.split(":")[0] if isinstance(co.target, str) else args.arch
        names = list(co.kernels)
        name = args.kernel or (names[0] if len(names) == 1 else None)
        if name is None:
            raise ValueError(f"{args.code}: {len(names)} kernels ({', '.join(names)}): pick one with --kernel")
        if args.grid is None or args.block is None:
            raise ValueError("give the launch with --grid and --block (work-groups and work-items per group)")
        grid, block = _dims(args.grid, (1, 1, 1), "grid"), _dims(args.block, (1, 1, 1), "block")
        specs = args.arg
    else:
        arch, name = args.arch, "saxpy"
        code = _demo(arch)
        grid, block = _dims(args.grid, (8, 1, 1), "grid"), _dims(args.block, (256, 1, 1), "block")
        n = grid[0] * block[0]
        specs = args.arg or [f"float32:{n}:uniform(-1,1)", f"float32:{n}:uniform(-1,1)", "float32=2.5", f"uint32={n}"]
    values = [parse_arg(s, rng) for s in specs]
    dev = Device("emu", arch=arch)
    prg = dev.load(code)
    launch_args = [dev.alloc(v.nbytes).copyin(v) if kind == "buffer" else v for kind, v in values]
    return prg, name, grid, block, launch_args


def run(args) -> int:
    from dsl.cli import write_output
    prg, name, grid, block, launch_args = prepare_launch(args)
    stats = prg.launch(name, grid, block, launch_args, timing=True)
    rep = stats.timing
    print(rep.summary())
    if args.time or not args.timeline or args.top is not None:      # --top asks for the table
        print()
        print(rep.table(args.top))
    if args.waves:
        print()
        print(rep.wave_table())
    if args.timeline:
        from .html import timeline_html
        write_output(args.timeline, timeline_html(rep).encode())
        print(f"timeline: {args.timeline}", file=sys.stderr)
    return 0

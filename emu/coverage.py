"""`wavesmith emu --coverage`: per format, how many instructions have generated,
hand-written or no semantics; the total counts compute instructions only (graphics-only
formats MIMG, EXP, VINTERP and LDSDIR are listed but left out of the percentage)."""
from __future__ import annotations

import sys
from collections import Counter

from .table import load_semantics

STATUSES = ("generated", "hand-written", "unsupported")


def coverage(arch: str) -> tuple[dict[str, Counter], list[tuple[str, str, str]]]:
    """({format: Counter(status)}, [(format, name, reason) of unsupported instructions])."""
    per_format: dict[str, Counter] = {}
    missing = []
    for d, e in load_semantics(arch).entries():
        per_format.setdefault(d.format, Counter())[e.status] += 1
        if e.status == "unsupported":
            missing.append((d.format, d.name, e.reason))
    return per_format, missing


def report(arch: str, verbose: bool = False) -> str:
    per_format, missing = coverage(arch)
    graphics = load_semantics(arch).spec.traits.roles.graphics
    lines = [f"{'format':<10}{'generated':>11}{'hand-written':>14}{'unsupported':>13}"]
    total = Counter()
    for fmt in sorted(per_format):
        c = per_format[fmt]
        note = "  (graphics)" if fmt in graphics else ""
        lines.append(f"{fmt:<10}{c['generated']:>11}{c['hand-written']:>14}{c['unsupported']:>13}{note}")
        if fmt not in graphics:
            total.update(c)
    n = sum(total.values())
    done = total["generated"] + total["hand-written"]
    lines.append(f"{'compute':<10}{total['generated']:>11}{total['hand-written']:>14}{total['unsupported']:>13}")
    lines.append(f"{load_semantics(arch).arch}: {done}/{n} compute instructions have semantics "
                 f"({100.0 * done / max(n, 1):.1f}%)")
    if verbose:
        lines += [f"  {fmt:<8} {name:<32} {reason}" for fmt, name, reason in missing]
    return "\n".join(lines)


def add_arguments(ap):
    ap.add_argument("--coverage", action="store_true", help="print the semantics coverage table")
    ap.add_argument("--arch", default="gfx1100", help="target or family (default: gfx1100)")
    ap.add_argument("-v", "--verbose", action="store_true", help="also list every unsupported instruction and why")
    from .timing.cli import add_arguments as add_timing
    add_timing(ap)


def ignored(args, given: set):
    """Options `wavesmith emu` would ignore in the mode chosen: (dests, why) or None."""
    from .timing.cli import LAUNCH_DESTS, ignored_launch_options
    if args.coverage:
        extra = given & (LAUNCH_DESTS | {"time", "timeline", "waves", "top"})
        return (extra, "with --coverage (it prints the semantics table of --arch and runs no kernel; "
                       "drop --coverage to run the kernel)") if extra else None
    if "verbose" in given:
        return {"verbose"}, "without --coverage (it lists the instructions --coverage finds unsupported)"
    return ignored_launch_options(args, given)


def run(args) -> int:
    from .timing.cli import run as run_timing, wants_timing
    if not args.coverage and wants_timing(args):
        return run_timing(args)
    if not args.coverage:
        print("wavesmith emu: nothing to do (try --coverage, --time or --timeline OUT.html)", file=sys.stderr)
        return 2
    print(report(args.arch, args.verbose))
    return 0

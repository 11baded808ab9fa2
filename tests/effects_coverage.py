"""Which instructions the empirical checks of the operand-effects model cover, per target and
format: every instruction the emulator runs (one it has a semantic for: `wavesmith emu
--coverage`'s generated and hand-written ones; of the image formats, image_load/_mip,
image_store/_mip and the image atomics: emu/image.py) is
either selected by one of the checks (`checkers`: the value check, control flow, the VALU forms, the MODE
writers, memory) or left out with a reason (`reason`). tests/test_isa_effects_coverage.py prints the
table and fails on an instruction that is neither, so a new one cannot slip through.

    python -m tests.effects_coverage [-v]        # the table per target; -v lists the rest with reasons
"""
from __future__ import annotations

import sys
from collections import Counter, defaultdict
from functools import lru_cache

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942-w64", "gfx950-w64")


@lru_cache(maxsize=None)
def emulator_supports(arch: str) -> frozenset:
    """{(name, format)} of the instructions of `arch` the emulator runs: it has a semantic for
    them (the image ones without a sampler included: the machine runs them through a T#,
    emu/image.py; tests/test_isa_effects_coverage.py runs each from LLVM's corpus)."""
    from emu.table import load_semantics
    table = load_semantics(arch)
    return frozenset((d.name, d.format) for d, e in table.entries() if e.status != "unsupported")


def _selected(cls):
    return lambda target: {(d.name, d.format) for d in cls(target).instructions}


def checkers() -> list:
    """(label, target -> {(name, format)} the check runs) of every empirical check of the model."""
    from tests.effects_check import Checker
    from tests.effects_check_mode import ModeChecker
    from tests.effects_control import ControlChecker
    from tests.effects_forms import FormsChecker
    return [("values", _selected(Checker)), ("control", _selected(ControlChecker)),
            ("forms", _selected(FormsChecker)),
            ("mode", lambda target: {(d.name, d.format) for d, *_ in ModeChecker(target).writer_cases()}),
            ("memory", _memory)]


def _memory(target: str) -> set:
    from tests.effects_check_memory import TARGETS as MEMORY_TARGETS, MemoryChecker
    return _selected(MemoryChecker)(target) if target in MEMORY_TARGETS else set()


def reason(d, spec, target: str) -> str | None:
    """Why no check runs `d` (an instruction the emulator runs on `target`), or None: not known."""
    from isa.effects import effects
    from tests.effects_control import NOT_CHECKED
    from tests.emu_fuzz import EXCLUDED
    roles = spec.traits.roles
    if d.name in EXCLUDED:
        return EXCLUDED[d.name]
    if d.name in NOT_CHECKED:
        return NOT_CHECKED[d.name]
    if d.format in roles.smem | roles.lds | roles.flat | roles.buffer | roles.image:
        from tests.effects_check_memory import TARGETS as MEMORY_TARGETS
        if target not in MEMORY_TARGETS:
            return f"memory: tests/effects_check_memory.py runs on {', '.join(MEMORY_TARGETS)}, not this target yet"
        return "memory, left out by the memory check: GDS only, or no memory space it models"
    if d.format in roles.lds_param:
        return "graphics memory (LDS parameter loads): no memory check yet"
    if effects(d.pcode).hwreg:
        return "reads or writes a hardware register by its id (s_getreg/s_setreg): STATUS, ids and clocks " \
               "beside MODE, which the register-state experiment does not hold"
    if not d.pcode and d.format in roles.valu_e32 | roles.valu_e64 | roles.interp:
        return "no pseudocode in the manual, so the model has no effects to check (the emulator's semantic is " \
               "hand-written: AGPR moves, matrix instructions, RDNA3's v_interp_*_rtz_*; an encoding with no " \
               "spelling of its own)"
    return None


def coverage(target: str) -> dict:
    """{format: {"supported": n, "checked": {label: n}, "listed": [(name, reason)], "unlisted": [name]}}."""
    import isa
    arch = target.split("-")[0]
    spec, supported = isa.load(arch), emulator_supports(arch)
    by_check = {label: covered(target) for label, covered in checkers()}
    out: dict = defaultdict(lambda: {"supported": 0, "checked": Counter(), "listed": [], "unlisted": []})
    seen = set()
    for d in spec.instructions:
        key = (d.name, d.format)
        if key not in supported or key in seen:
            continue
        seen.add(key)
        row = out[d.format]
        row["supported"] += 1
        labels = [label for label, keys in by_check.items() if key in keys]
        if labels:
            row["checked"][labels[0]] += 1
        elif (why := reason(d, spec, target)) is not None:
            row["listed"].append((d.name, why))
        else:
            row["unlisted"].append(d.name)
    return dict(out)


def table(rows: dict) -> str:
    labels = [label for label, _ in checkers()]
    cols = ["supported", *labels, "listed", "unlisted"]
    lines = [f"{'format':<10}" + "".join(f"{c:>11}" for c in cols)]
    total = Counter()
    for fmt in sorted(rows):
        r = rows[fmt]
        vals = {"supported": r["supported"], **{k: r["checked"][k] for k in labels},
                "listed": len(r["listed"]), "unlisted": len(r["unlisted"])}
        total.update(vals)
        lines.append(f"{fmt:<10}" + "".join(f"{vals[c]:>11}" for c in cols))
    lines.append(f"{'all':<10}" + "".join(f"{total[c]:>11}" for c in cols))
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="append")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    bad = 0
    for target in args.target or TARGETS:
        rows = coverage(target)
        print(f"\n{target}:\n{table(rows)}")
        for fmt in sorted(rows):
            for name in rows[fmt]["unlisted"]:
                bad += 1
                print(f"  UNLISTED {fmt} {name}")
            if args.verbose:
                for name, why in rows[fmt]["listed"]:
                    print(f"  {fmt:<8} {name:<32} {why}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Empirical check of the MODE effects (isa.effects.wave_state) against the emulator.

Readers: for each VALU instruction the emulator runs (tests/effects_check.py's Checker builds
and runs it), the float sources get values for which MODE matters -- denormals of the operand's
width, tiny normals whose products and quotients are denormal, inexact values (random mantissas)
-- and one launch runs it in one wave per MODE: wave 0 the usual MODE (0x3F0: round to nearest
even, denormals kept, IEEE and DX10_CLAMP set), each other wave with one field changed:
FP_DENORM's single or double/half half cleared (flush), IEEE or DX10_CLAMP cleared where the
family's MODE table has them. FP_ROUND's halves (set to toward zero) run in launches of their
own, as the emulator refuses a directed rounding it does not model (emu/rounding.py: sqrt,
transcendentals, ...; a refusal counts as the field read). Then per field:
- `undeclared` (hard): outputs changed (or the emulator refused) though the model does not say
  the instruction reads the field;
- `confirmed`: declared, and the outputs changed or the emulator refused;
- `no_effect` (soft): declared, but these inputs changed nothing (reported, not a failure).
A VALU instruction that changes MODE is a hard `mode_written`.

Writers: s_round_mode, s_denorm_mode and s_setreg(_imm32) of MODE's low bits must change MODE
(`wave_state` declares MODE.FP_ROUND / MODE.FP_DENORM / HW_REGISTERS written), and every other
SALU instruction the Checker runs must leave it alone.

    python -m tests.effects_check_mode                  # every VALU instruction, all six targets
    python -m tests.effects_check_mode --target gfx1151 --per-target 100
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from emu.machine import EmuError
from isa.effects import mode_bits, wave_state
from isa.mnemonics import text_mnemonic
from tests.effects_check import TARGETS, Case, Checker

# the operand check's targets: RDNA3, RDNA3.5, RDNA4 and CDNA3, CDNA4 (whose MODE table, the
# manuals' own, has the same FP_ROUND, FP_DENORM, DX10_CLAMP and IEEE bits)
MODE_TARGETS = TARGETS
NO_SEMANTICS = "the emulator has no semantics"

BASE_MODE = 0x3F0
HARD = ("undeclared", "mode_written")
SOFT = ("no_effect",)
FLUSHES = ("MODE.FP_DENORM.F32", "MODE.FP_DENORM.F16_F64")
ROUNDS = ("MODE.FP_ROUND.F32", "MODE.FP_ROUND.F16_F64")
FLAGS = ("MODE.IEEE", "MODE.DX10_CLAMP")


@dataclass
class ModeResult:
    name: str
    fmt: str
    text: str = ""
    confirmed: set = field(default_factory=set)
    findings: dict = field(default_factory=lambda: defaultdict(set))
    skipped: str | None = None

    @property
    def hard(self) -> bool:
        return any(self.findings.get(k) for k in HARD)


# ---------------------------------------------------------------- inputs for which MODE matters

def _f32_values(rng, n: int) -> np.ndarray:
    kind = rng.integers(0, 4, n)
    sign = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(31)
    mant = rng.integers(1, 1 << 23, n).astype(np.uint64)
    exp = np.select([kind == 0, kind == 1, kind == 2],
                    [np.zeros(n, np.uint64), rng.integers(1, 12, n).astype(np.uint64),      # denormal, tiny
                     rng.integers(120, 135, n).astype(np.uint64)],                           # near 1: inexact
                    rng.integers(1, 255, n).astype(np.uint64))
    return (sign | exp << np.uint64(23) | mant).astype(np.uint32)


def _f16_values(rng, n: int) -> np.ndarray:
    kind = rng.integers(0, 4, n)
    sign = rng.integers(0, 2, n) << 15
    mant = rng.integers(1, 1 << 10, n)
    exp = np.select([kind == 0, kind == 1, kind == 2],
                    [np.zeros(n, np.int64), rng.integers(1, 4, n), rng.integers(12, 18, n)], rng.integers(1, 31, n))
    return (sign | exp << 10 | mant).astype(np.uint32)


def _f64_values(rng, n: int) -> tuple[np.ndarray, np.ndarray]:
    kind = rng.integers(0, 4, n)
    sign = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(31)
    mant_hi = rng.integers(1, 1 << 20, n).astype(np.uint64)
    exp = np.select([kind == 0, kind == 1, kind == 2],
                    [np.zeros(n, np.uint64), rng.integers(1, 40, n).astype(np.uint64),
                     rng.integers(1015, 1032, n).astype(np.uint64)], rng.integers(1, 2047, n).astype(np.uint64))
    hi = (sign | exp << np.uint64(20) | mant_hi).astype(np.uint32)
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), hi


def _with_zeros(rng, words: np.ndarray, sign_bit: int) -> np.ndarray:
    """A fifth of `words` replaced by +-0 (a compare or min/max against a flushed denormal)."""
    zero = rng.random(len(words)) < 0.2
    return np.where(zero, words & np.uint32(1 << sign_bit), words).astype(np.uint32)


def float_fill(d, case: Case, rng, lanes: int):
    """fill(vg, sg) for Checker.execute: each float source of `d` (its operand types) holds values
    of its width for which rounding and denormals matter (a scalar source one value)."""
    types = d.operand_types or {}

    def fill(vg, sg):
        for name, regs in case.names.items():
            kind = types.get(name)
            if not name.startswith("S") or kind not in ("f16", "f32", "f64") or not regs:
                continue
            regs = sorted(regs)
            scalar = regs[0][0] == "s"
            n = 1 if scalar else lanes
            if kind == "f64":
                lo, hi = _f64_values(rng, n)
                zero = rng.random(n) < 0.2
                words = (np.where(zero, 0, lo).astype(np.uint32),
                         np.where(zero, hi & np.uint32(1 << 31), hi).astype(np.uint32))
            elif kind == "f32":
                words = (_with_zeros(rng, _f32_values(rng, n), 31),)
            else:
                half = _with_zeros(rng, _f16_values(rng, n), 15)
                words = (half | _f16_values(rng, n) << np.uint32(16),)
            for (file, reg), word in zip(regs, words):
                if file == "v":
                    vg[reg] = word.reshape(1, -1)
                else:
                    sg[reg] = word[0]
    return fill


# ---------------------------------------------------------------- readers

class ModeChecker(Checker):
    def __init__(self, target: str):
        super().__init__(target)
        roles = self.traits.roles
        self.valu = [d for d in self.instructions if d.format in roles.valu_e32 | roles.valu_e64]
        names = {f for f, *_ in self.spec.tables.get("mode", ())}
        self.flags = tuple(f for f in FLAGS if f.removeprefix("MODE.") in names)

    def _mode_with(self, name: str, value: int) -> int:
        hi, lo = mode_bits(self.spec, name)
        mask = ((1 << (hi - lo + 1)) - 1) << lo
        return (BASE_MODE & ~mask) | (value << lo & mask)

    def _outputs_differ(self, after, w: int) -> bool:
        vg, sg, scc = after
        return not (np.array_equal(vg[:, w], vg[:, 0]) and np.array_equal(sg[:, w], sg[:, 0]) and scc[w] == scc[0])

    def run_reader(self, d, rng) -> ModeResult:
        r = ModeResult(d.name, d.format)
        if self.machine.semantics.get(d) is None:      # nothing to run (CDNA4's unscaled fp8 conversions)
            r.skipped = f"{NO_SEMANTICS}: {self.machine.semantics.entry(d).reason}"
            return r
        try:
            case = self.valu_case(d, rng)
        except Exception as e:     # noqa: BLE001 - not encodable with plain registers
            r.skipped = f"not encodable with plain registers: {e}"
            return r
        r.text = case.text
        declared = wave_state(d).reads
        seed = int(rng.integers(0, 2**31))
        fill = float_fill(d, case, np.random.default_rng(seed), self.wave)
        # flushes and flags: one launch, a wave per changed field
        fields = FLUSHES + self.flags
        modes = [BASE_MODE] + [self._mode_with(f, 0) for f in fields]
        seen: dict[str, str] = {}
        try:
            _, after = self.execute(case, len(modes), [None] * len(modes), np.random.default_rng(seed), modes, fill)
        except Exception as ex:     # noqa: BLE001 - the emulator refused: nothing to compare
            r.skipped = f"the emulator failed: {type(ex).__name__}: {str(ex).splitlines()[0][:120]}"
            return r
        if not np.array_equal(self.mode_after, np.array(modes, np.uint32)):
            r.findings["mode_written"].add("MODE")
        for w, f in enumerate(fields, start=1):
            seen[f] = "changed" if self._outputs_differ(after, w) else "same"
        # round modes: a launch each (a refusal stops the launch)
        for f in ROUNDS:
            modes = [BASE_MODE, self._mode_with(f, 3)]
            try:
                _, after = self.execute(case, 2, [None, None], np.random.default_rng(seed), modes, fill)
                seen[f] = "changed" if self._outputs_differ(after, 1) else "same"
            except EmuError as ex:          # the emulator's refusal of a directed rounding it does not model
                seen[f] = "refused" if "MODE.FP_ROUND asks" in str(ex) else "failed"
        for f, outcome in seen.items():
            if outcome == "failed":
                r.skipped = f"the emulator failed under {f}"
            elif f in declared:
                if outcome == "same":
                    r.findings["no_effect"].add(f)
                else:
                    r.confirmed.add(f)
            elif outcome != "same":
                r.findings["undeclared"].add(f"{f} ({outcome})")
        return r

    # ---------------------------------------------------------------- writers
    def writer_cases(self) -> list[tuple[object, Case, object, int]]:
        """(InstrDef, case, fill, the MODE bits it must set) of the MODE writers: s_round_mode
        and s_denorm_mode with an immediate, s_setreg_imm32_b32 / s_setreg_b32 of MODE[3:0]."""
        hwreg_mode = next(i for i, name, _ in self.spec.tables["hwreg"] if name == "MODE")
        simm16 = hwreg_mode | 0 << 6 | (4 - 1) << 11           # ID, OFFSET 0, SIZE 4: MODE[3:0]
        out = []
        for d in self.spec.instructions:
            writes = wave_state(d).writes
            mn = text_mnemonic(d.name)
            if "MODE.FP_ROUND" in writes:        # round mode 0 -> 0xF: MODE[3:0]
                out.append((d, Case(bytes(self.ns[mn](0xF)), f"{mn} 0xf", {}, True), None, BASE_MODE | 0xF))
            elif "MODE.FP_DENORM" in writes:     # denormal mode 0xF -> 0x3: MODE[7:4]
                out.append((d, Case(bytes(self.ns[mn](0x3)), f"{mn} 3", {}, True), None, 0x3F0 & ~0xC0))
            elif "HW_REGISTERS" in writes and d.format == "SOPK" and "SIMM32" in (d.pcode or ""):
                out.append((d, Case(bytes(self.ns[mn](simm16, 0x5)), f"{mn} {simm16:#x}, 5", {}, True),
                            None, BASE_MODE | 0x5))
            elif "HW_REGISTERS" in writes and d.format == "SOPK":
                from dsl.operands import s
                def fill(vg, sg):
                    sg[8] = 0x6
                out.append((d, Case(bytes(self.ns[mn](simm16, s[8])), f"{mn} {simm16:#x}, s8", {}, True), fill,
                            BASE_MODE | 0x6))
        return out

    def run_writer(self, d, case: Case, fill, want: int) -> ModeResult:
        r = ModeResult(d.name, d.format, case.text)
        try:
            self.execute(case, 1, [None], np.random.default_rng(0), [BASE_MODE], fill)
        except Exception as ex:     # noqa: BLE001
            r.skipped = f"the emulator failed: {type(ex).__name__}: {str(ex).splitlines()[0][:120]}"
            return r
        got = int(self.mode_after[0])
        if got == want:
            r.confirmed.add("MODE written")
        else:
            r.findings["mode_written"].add(f"MODE {BASE_MODE:#x} -> {got:#x}, the manual's {want:#x}")
        return r

    def run_scalar(self, d, rng) -> ModeResult:
        """A SALU instruction the model does not say writes MODE: MODE must stay as it was."""
        r = ModeResult(d.name, d.format)
        try:
            case = self.salu_case(d, rng)
            r.text = case.text
            self.execute(case, 1, [None], rng, [BASE_MODE])
        except Exception as ex:     # noqa: BLE001
            r.skipped = f"{type(ex).__name__}: {str(ex).splitlines()[0][:120]}"
            return r
        if int(self.mode_after[0]) != BASE_MODE:
            r.findings["mode_written"].add(f"MODE {BASE_MODE:#x} -> {int(self.mode_after[0]):#x}")
        return r


def check(targets=MODE_TARGETS, per_target: int | None = None, seed: int = 0) -> dict:
    """{target: [ModeResult]}: `per_target` VALU instructions drawn with `seed` (None: all), every
    MODE writer, and the SALU instructions that do not write MODE."""
    out = {}
    for ti, target in enumerate(targets):
        c = ModeChecker(target)
        rng = np.random.default_rng([seed, ti])
        valu = c.valu
        if per_target is not None and per_target < len(valu):
            valu = [valu[i] for i in sorted(rng.choice(len(valu), per_target, replace=False))]
        results = [c.run_reader(d, np.random.default_rng([seed, ti, k])) for k, d in enumerate(valu)]
        writers = c.writer_cases()
        results += [c.run_writer(*w) for w in writers]
        writing = {id(w[0]) for w in writers}
        results += [c.run_scalar(d, np.random.default_rng([seed, ti, k])) for k, d in enumerate(c.instructions)
                    if d.format in c.traits.roles.salu and id(d) not in writing and not wave_state(d).writes]
        out[target] = results
    return out


def table(results: list) -> str:
    """Counts per format: checked, skipped, instructions with a field confirmed, hard and soft findings."""
    per: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        c = per[r.fmt]
        if r.skipped:
            c["skipped"] += 1
            continue
        c["checked"] += 1
        c["agree"] += not r.hard
        c["confirmed"] += bool(r.confirmed)
        for k in HARD + SOFT:
            c[k] += bool(r.findings.get(k))
    cols = ("checked", "agree", "confirmed", "skipped") + HARD + SOFT
    lines = [f"{'format':<8}" + "".join(f"{k:>13}" for k in cols)]
    total = Counter()
    for fmt in sorted(per):
        total.update(per[fmt])
        lines.append(f"{fmt:<8}" + "".join(f"{per[fmt][k]:>13}" for k in cols))
    lines.append(f"{'all':<8}" + "".join(f"{total[k]:>13}" for k in cols))
    return "\n".join(lines)


def field_counts(results: list) -> Counter:
    """How many instructions each MODE field was confirmed read (or written) by."""
    return Counter(f for r in results if not r.skipped for f in r.confirmed)


def disagreements(results: list) -> list[str]:
    return [f"{r.name} ({r.text}): " + "; ".join(f"{k}: {', '.join(sorted(r.findings[k]))}" for k in HARD
                                                  if r.findings.get(k))
            for r in results if r.hard]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", action="append", help=f"target(s) (default: {', '.join(MODE_TARGETS)})")
    ap.add_argument("--per-target", type=int, default=None, help="VALU instructions per target (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verbose", action="store_true", help="list soft findings and skips too")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    results = check(tuple(args.target or MODE_TARGETS), args.per_target, args.seed)
    bad = 0
    for target, rs in results.items():
        print(f"\n{target}:\n{table(rs)}\n  fields confirmed: {dict(sorted(field_counts(rs).items()))}")
        for line in disagreements(rs):
            bad += 1
            print("  DISAGREES", line)
        if args.verbose:
            for r in rs:
                if r.skipped or r.findings.get("no_effect"):
                    print(f"  {r.name}: {r.skipped or ', '.join(sorted(r.findings['no_effect']))}")
    print(f"\n{time.perf_counter() - t0:.1f} s; {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

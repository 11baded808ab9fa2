"""Empirical check of the operand-effects model for control flow: the branches, jumps and calls
(every instruction whose code assigns PC, `Effects.pc_write`) the emulator runs, with the next
PC as one more output (tests/effects_check.py says how the check works).

The next PC is recorded right after the instruction, as its distance from the fall-through
address (0: not taken), and every wave is then sent to the program's s_endpgm, so a jump
anywhere (s_setpc to a random S0) runs nothing there. The model's PC write is
`Effects.pc_write`; what the next PC may depend on is the declared reads (SCC, the S0 pair of
s_setpc / s_swappc) and `Effects.status_reads` (VCCZ reads VCC, EXECZ reads EXEC). Changing
any other register must change neither the next PC nor any register. So that EXECZ and VCCZ
can flip, the random state holds VCC and EXEC as 0 and a change of one of their registers
makes it a random non-zero value.

    python -m tests.effects_control --target gfx942-w64
"""
from __future__ import annotations

import sys

import numpy as np

from isa.effects import effects
from dsl.operands import OperandError, null
from isa.mnemonics import text_mnemonic
from isa.control import control
from tests.effects_check import Case, Checker
from tests.emu_fuzz import EXCLUDED
from tests.effects_coverage import emulator_supports

PC = ("pc", 0)
TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942-w64", "gfx950-w64")

# Instructions assigning PC that this check does not run, each with its reason.
NOT_CHECKED = {
    "S_CODE_END": "an illegal-instruction interrupt (the manual) marking the end of a code buffer: the emulator "
                  "ends the wave, which isa.control does not say; no next instruction to compare",
    "S_TRAP": "enters the trap handler, which the emulator does not model: the launch stops with an error "
              "naming the trap",
}


class _Redirect:
    """The tracer the check's launch installs, wrapped: right after the instruction under test
    (the one after the program's first, s_nop) it records every wave's next PC and sends the
    waves to the s_endpgm after the instruction; `overrides` [(wave selector, SGPR, value)] are
    written over the loaded state first."""

    def __init__(self, machine, size: int, overrides: list):
        self.machine, self.size, self.overrides = machine, size, overrides
        self.start = self.next_pc = None

    def wrap(self, tracer):
        def traced(p, st, sel):
            if self.start is None:
                self.start = p.pc
            tracer(p, st, sel)
            if p.pc == self.start:
                for waves, row, value in self.overrides:
                    st.sgpr[row, waves] = value
            elif p.pc == self.start + 4:
                self.next_pc = st.pc.astype(np.int64) - (self.start + 4 + self.size)
                st.pc[sel] = self.start + 4 + self.size
        return traced


class _Machine:
    """The checker's machine, seen through `_Redirect`: a tracer set on it is wrapped."""

    def __init__(self, machine):
        object.__setattr__(self, "_m", machine)
        object.__setattr__(self, "redirect", None)

    def __getattr__(self, name):
        return getattr(self._m, name)

    def __setattr__(self, name, value):
        if name == "redirect":
            object.__setattr__(self, name, value)
            return
        if name == "tracer" and value is not None and self.redirect is not None:
            value = self.redirect.wrap(value)
        setattr(self._m, name, value)


class ControlChecker(Checker):
    """Scalar-format instructions the value check (Checker) leaves out: branches, jumps and
    calls, and the ones that act on the wave's flow alone (waits, hints, s_nop, priorities,
    barriers of a one-wave work-group, messages, ends), which must change no register and,
    but for the branches, leave the next PC at the fall-through address. Registers written
    whole (a call's return address) are changed too: their old value must not show."""
    overwritten = True

    def __init__(self, target: str):
        super().__init__(target)
        self.machine = _Machine(self.machine)
        checked = {(d.name, d.format) for d in self.instructions}
        supported = emulator_supports(self.arch)
        self.instructions = [d for d in self.spec.instructions if d.format in self.traits.roles.salu
                             and (d.name, d.format) in supported and (d.name, d.format) not in checked
                             and d.name not in NOT_CHECKED and d.name not in EXCLUDED
                             and not effects(d.pcode).hwreg]       # (hardware registers: the MODE check's)

    def salu_case(self, d, rng):
        make = self.ns[text_mnemonic(d.name)]
        flow = control(d, self.spec.tables)
        vcc = {"VCC_IN": set(self.vcc), "VCC_OUT": set(self.vcc)}
        if d.format == "SOPP":          # a branch's offset: any (the waves are sent to the end)
            arg = int(rng.integers(1, 64)) if effects(d.pcode).pc_write else -1 if flow.barrier_in_simm16 else 0
            try:
                inst = make(arg)
            except (OperandError, TypeError):
                inst = make()
            case = Case(bytes(inst), str(inst), vcc, scalar=True)
        else:
            try:
                case = super().salu_case(d, rng)
            except OperandError:
                if flow.count_sgpr:     # s_waitcnt_*cnt: SGPR S0 (null only) plus SIMM16
                    inst, names = make(null, 0), {}
                else:                   # RDNA4's s_barrier_signal: the work-group barrier, -1
                    inst, names = make(-1), {}
                case = Case(bytes(inst), str(inst), {**vcc, **names}, scalar=True)
        case.ends_wave = flow.ends_wave
        return case

    def declared(self, e, case):
        reads, full, writes = super().declared(e, case)
        for name in e.status_reads:
            reads = reads | {"VCC": self.vcc, "EXEC": self.exec}[name]
        if e.pc_write:
            writes = writes | {PC}
        return reads, full, writes

    def all_registers(self) -> list:
        return super().all_registers() + [PC]

    @staticmethod
    def value(state, w: int, x):
        if x == PC:
            return state[3][w]
        return Checker.value(state[:3], w, x)

    def execute(self, case, waves: int, perturbed: list, rng):
        """The check's launch (Checker.execute) with the next PC recorded: states as there, plus
        each wave's next PC relative to the fall-through address."""
        masks = sorted(self.vcc | self.exec)
        changed = {x: w for w, x in enumerate(perturbed) if x in masks}
        overrides = [([w for w in range(waves) if changed.get(x) != w], x[1], 0) for x in masks]
        overrides += [([w], x[1], int(rng.integers(1, 1 << 32))) for x, w in changed.items()]
        self.machine.redirect = redirect = _Redirect(self.machine._m, len(case.code), overrides)
        try:        # (the PC is an output only: its wave runs unchanged)
            before, after = super().execute(case, waves, [None if x == PC else x for x in perturbed], rng)
        finally:
            self.machine.redirect = None
        if redirect.next_pc is None:
            raise RuntimeError("the instruction did not run")
        sg = before[1]
        for sel, row, value in overrides:
            sg[row, sel] = value
        next_pc = np.zeros(waves, np.int64) if case.ends_wave else redirect.next_pc    # (no next instruction)
        return (*before, np.zeros(waves, np.int64)), (*after, next_pc)


def check(targets=TARGETS, sample: int | None = 12, seed: int = 0) -> dict:
    """{target: [Result]} for every control-flow instruction the emulator runs; `sample`
    undeclared registers per instruction (None: all)."""
    out = {}
    for ti, target in enumerate(targets):
        c = ControlChecker(target)
        out[target] = [c.run(d, np.random.default_rng([seed, ti, k]), sample) for k, d in enumerate(c.instructions)]
    return out


def main(argv=None) -> int:
    import argparse
    from tests.effects_check import report
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="append")
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    return 1 if report(check(tuple(args.target or TARGETS), args.sample, args.seed), {}) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Empirical check of the operand-effects model for the VALU forms the value check
(tests/effects_check.py, which says how the check works) leaves out:
- VOPD: each dual-issue instruction in its slot (X or Y) beside a partner in the other slot
  (v_dual_mov_b32, or v_dual_add_f32 where the partner would be the same instruction);
  the declared reads and writes are both halves' effects together, each half's operand
  names mapped to its own registers;
- VALU instructions without pseudocode that the emulator runs (v_nop, v_pipeflush,
  v_clrexcp): the model says they read and write nothing, so no register may change.

    python -m tests.effects_forms --target gfx1151
"""
from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from dsl.operand_records import vopd_base
from dsl.operands import OperandError, lit, v
from dsl.signature import valu_signature
from isa.effects import effects
from isa.mnemonics import text_mnemonic
from tests.effects_check import Case, Checker
from tests.effects_coverage import emulator_supports
from tests.emu_fuzz import EXCLUDED, special_dwords

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942-w64", "gfx950-w64")
# each half's registers: (vdst, src0, vsrc1); X and Y apart in bank (register mod 4) and
# parity of the destination, as dual issue requires
VOPD_REGS = {"X": (40, 8, 16), "Y": (41, 9, 17)}
PARTNERS = ("V_DUAL_MOV_B32", "V_DUAL_ADD_F32")

# Disagreements understood, each with its reason: {instruction: reason}
KNOWN: dict[str, str] = {}


class FormsChecker(Checker):
    def __init__(self, target: str):
        super().__init__(target)
        checked = {(d.name, d.format) for d in self.instructions}
        supported = emulator_supports(self.arch)
        roles = self.traits.roles
        valu = roles.valu_e32 | roles.valu_e64
        self.instructions = [d for d in self.spec.instructions if (d.name, d.format) in supported
                             and (d.name, d.format) not in checked and d.name not in EXCLUDED
                             and (d.format in roles.vopd or (d.format in valu and not d.pcode
                                                             and self._operandless(d)))]
        # VOPD definitions by (name, slot): the one to check and its partner
        self.halves = {(d.name, d.slot): d for d in self.spec.instructions if d.format in roles.vopd}
        self._seen_vopd: set = set()

    def _operandless(self, d) -> bool:
        """No operands, and this encoding has a spelling of its own (gfx9 writes v_nop's VOP3A
        form as the VOP1 one's)."""
        sig = valu_signature(d)
        if sig.dsts or sig.srcs:
            return False
        try:
            self.valu_case(d, np.random.default_rng(0))
        except (OperandError, KeyError):
            return False
        return True

    def half_effects(self, d):
        return effects(d.pcode or vopd_base(self.spec, d).pcode)

    def valu_case(self, d, rng) -> Case:
        if d.format not in self.traits.roles.vopd:
            return super().valu_case(d, rng)
        other = "Y" if d.slot == "X" else "X"
        partner = next(self.halves[p, other] for p in PARTNERS if (p, other) in self.halves and p != d.name)
        k = lit(int(special_dwords(rng, 1)[0]))
        halves = {d.slot: d, other: partner}
        parts, names = {}, {}
        for slot, h in halves.items():
            parts[slot], names[slot] = self._half(h, slot, k)
        inst = self.ns["vopd"](parts["X"], parts["Y"])
        case = Case(bytes(inst), str(inst), {}, scalar=False)
        case.halves = [(self.half_effects(h), names[slot]) for slot, h in halves.items()]
        return case

    def _half(self, d, slot: str, k):
        sig = valu_signature(vopd_base(self.spec, d))
        vdst, src0, vsrc1 = VOPD_REGS[slot]
        names: dict[str, set] = defaultdict(set)
        names["D0"] = {("v", vdst)}
        ops = [v[vdst]]
        for i, src in enumerate(sig.srcs[:2]):
            if src.is_mask:
                continue
            reg = (src0, vsrc1)[i]
            ops.append(v[reg])
            names[f"S{i}"] = {("v", reg)}
        if sig.k_pos is not None:
            ops.insert(1 + sig.k_pos, k)
        names["VCC_IN"] = names["VCC_OUT"] = set(self.vcc)
        return self.ns[text_mnemonic(d.name)](*ops), names

    def declared(self, e, case: Case):
        halves = getattr(case, "halves", None)
        if halves is None:
            return super().declared(e, case)
        reads, full, writes = set(), set(), set()
        for he, names in halves:
            case.names = names
            r, f, w = super().declared(he, case)
            reads, full, writes = reads | r, full | f, writes | w
        return reads, full, writes


def check(targets=TARGETS, sample: int | None = 12, seed: int = 0) -> dict:
    """{target: [Result]} for every VALU form this module checks; `sample` undeclared
    registers per instruction (None: all)."""
    out = {}
    for ti, target in enumerate(targets):
        c = FormsChecker(target)
        out[target] = [c.run(d, np.random.default_rng([seed, ti, k]), sample) for k, d in enumerate(c.instructions)]
    return out


def main(argv=None) -> int:
    import argparse
    from tests.effects_check import SOFT, disagreements, table
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="append")
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    bad = 0
    for target, rs in check(tuple(args.target or TARGETS), args.sample, args.seed).items():
        print(f"\n{target}:\n{table(rs)}")
        for line in disagreements(rs, KNOWN):
            bad += 1
            print("  DISAGREES", line)
        for r in rs:
            soft = "; ".join(f"{k}: {', '.join(sorted(r.findings[k]))}" for k in SOFT if r.findings.get(k))
            if soft or r.skipped:
                print(f"  {r.name}: {r.skipped or soft}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

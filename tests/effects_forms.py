"""Empirical check of the operand-effects model for the VALU forms the value check
(tests/effects_check.py, which says how the check works) leaves out:
- VOPD: each dual-issue instruction in its slot (X or Y) beside a partner in the other slot
  (v_dual_mov_b32, or v_dual_add_f32 where the partner would be the same instruction);
  the declared reads and writes are both halves' effects together, each half's operand
  names mapped to its own registers;
- VINTERP (RDNA): D0 and three VGPR sources, S0 and S2 read in other lanes of the quad;
- VALU instructions without pseudocode that the emulator runs (v_nop, v_pipeflush,
  v_clrexcp): the model says they read and write nothing, so no register may change;
- DPP16 and DPP8 (RDNA): the value check's VALU instructions that have a DPP form (isa.facts.no_dpp)
  in one, one of DPP_CONTROLS each (DppChecker): src0 is read from other lanes but stays the
  same register, so the registers read and written are the plain form's, except that a lane
  the control leaves without a source (row_shr:1's first lane of each row, no bound_ctrl)
  keeps D0's old value: D0 is then read. `dpp_lanes` checks the lanes read: one lane of src0
  changed per wave, the lanes of D0 that change must be those the control reads it in, by the
  DPP syntax's definitions (`dpp_source_lanes`, written from them, not from the emulator).
As in the value check, registers written whole are changed too (Checker.overwritten), and a
16-bit result that keeps the other half of its VGPR (VINTERP's, RDNA's DPP forms) is a partial
write by the instruction's effects (isa.effects.instruction_effects).

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
from tests.effects_check import V_DST, V_SRC, Case, Checker
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
                             and (d.format in roles.vopd or (d.format in roles.interp and d.pcode)
                                  or (d.format in valu and not d.pcode
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
        if d.format in self.traits.roles.interp:
            return self.interp_case(d)
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

    def interp_case(self, d) -> Case:
        """VINTERP: D0 and three VGPR sources (S0 and S2 read in other lanes of the quad)."""
        names = {"D0": {("v", V_DST)}, **{f"S{i}": {("v", r)} for i, r in enumerate(V_SRC)}}
        inst = self.ns[text_mnemonic(d.name)](v[V_DST], *(v[r] for r in V_SRC))
        return Case(bytes(inst), str(inst), names, scalar=False)

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


class _WithDpp:
    """The DSL namespace as the value check's case builder sees it: each VALU mnemonic is its
    DPP form with `modifiers` (v_add_f32_e32 -> v_add_f32_dpp, v_add_f32_e64 -> _e64_dpp)."""

    def __init__(self, ns, modifiers: dict):
        self.ns, self.modifiers = ns, modifiers

    def __getitem__(self, mnemonic: str):
        if not mnemonic.startswith("v_"):           # (the program's s_nop and s_endpgm)
            return self.ns[mnemonic]
        base = mnemonic[:-4] if mnemonic.endswith(("_e32", "_e64")) else mnemonic
        fn = self.ns[base + ("_e64_dpp" if mnemonic.endswith("_e64") else "_dpp")]
        return lambda *ops: fn(*ops, **self.modifiers)


# DPP controls, each (form, DSL modifiers, whether a lane may be left unwritten): dpp8 and a
# quad permutation read a lane for every lane; row_shr:1 has none for each row's lane 0, which
# without bound_ctrl keeps its old value (D0 is then written in part, so read)
DPP_CONTROLS = (("DPP8", {"dpp8": [7, 0, 5, 2, 3, 6, 1, 4]}, False),
                ("DPP16", {"quad_perm": [1, 0, 3, 2]}, False),
                ("DPP16", {"row_shr": 1}, True))


class DppChecker(Checker):
    """The value check's VALU instructions in their DPP forms (DPP16 and DPP8 on RDNA, one
    control each: DPP_CONTROLS in turn): the registers read and written are the plain form's,
    except that a lane DPP leaves unwritten keeps D0's old value. Result.fmt is the form,
    `VOP2+DPP16`."""

    def __init__(self, target: str):
        super().__init__(target)
        if self.traits.dialect != "gfx11":      # (gfx9's DPP and SDWA: not here yet)
            self.instructions = []
        self.instructions = [d for d in self.instructions if (d.format in self.traits.roles.valu_e32
                             or d.format in self.traits.roles.valu_e64 and d.promoted_from)
                             and self._dpp_operands(d)]

    @staticmethod
    def _dpp_operands(d) -> bool:
        """A DPP form exists (isa.facts.no_dpp: the manual's table of instructions without one)
        and the check's operands fit it: no literal constant K (v_fmaak), no scalar result
        (v_readfirstlane)."""
        from isa.facts import no_dpp
        sig = valu_signature(d)
        return no_dpp(d) is None and sig.k_pos is None and not any(op.sgpr for op in sig.dsts)

    def run(self, d, rng, sample):
        form, modifiers, keeps = DPP_CONTROLS[int(rng.integers(len(DPP_CONTROLS)))]
        plain, self.ns = self.ns, _WithDpp(self.ns, modifiers)
        self._keeps = keeps
        try:
            r = super().run(d, rng, sample)
        finally:
            self.ns = plain
        r.fmt = f"{d.format}+{form}"
        return r

    def declared(self, e, case):
        reads, full, writes = super().declared(e, case)
        if self._keeps:
            kept = case.names.get("D0", set()) & full
            reads, full = reads | kept, full - kept
        return reads, full, writes


def check(targets=TARGETS, sample: int | None = 12, seed: int = 0, dpp: int | None = 24) -> dict:
    """{target: [Result]} for every VOPD and operandless instruction and `dpp` DPP forms drawn
    with `seed` (None: all); `sample` undeclared registers per instruction (None: all)."""
    out = {}
    for ti, target in enumerate(targets):
        c, dc = FormsChecker(target), DppChecker(target)
        out[target] = [c.run(d, np.random.default_rng([seed, ti, k]), sample) for k, d in enumerate(c.instructions)]
        insts, rng = dc.instructions, np.random.default_rng([seed, ti])
        if dpp is not None and dpp < len(insts):
            insts = [insts[i] for i in sorted(rng.choice(len(insts), dpp, replace=False))]
        out[target] += [dc.run(d, np.random.default_rng([seed, ti, k, 1]), sample) for k, d in enumerate(insts)]
    return out


def main(argv=None) -> int:
    import argparse
    from tests.effects_check import report
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", action="append")
    ap.add_argument("--sample", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dpp", type=int, default=None, help="DPP forms per target (default: all)")
    args = ap.parse_args(argv)
    return 1 if report(check(tuple(args.target or TARGETS), args.sample, args.seed, args.dpp), KNOWN) else 0


if __name__ == "__main__":
    sys.exit(main())


# ---------------------------------------------------------------- DPP: the lanes read
def dpp_source_lanes(modifiers: dict, lanes: int) -> np.ndarray:
    """The lane each lane's src0 comes from under a DPP control, -1 for none, as LLVM's DPP
    syntax defines it (dpp8:[s0..s7] lane 8k+i reads 8k+s_i; quad_perm:[p0..p3] lane 4k+i reads
    4k+p_i; row_shr:n lane i of a row of 16 reads lane i-n of the row, none below its start;
    row_ror:n lane i reads (i-n) mod 16 of its row; row_mirror lane i reads 15-i of its row)."""
    lane = np.arange(lanes)
    row, i = lane & ~15, lane & 15
    if "dpp8" in modifiers:
        return (lane & ~7) + np.array(modifiers["dpp8"])[lane & 7]
    if "quad_perm" in modifiers:
        return (lane & ~3) + np.array(modifiers["quad_perm"])[lane & 3]
    if "row_shr" in modifiers:
        return np.where(i >= modifiers["row_shr"], lane - modifiers["row_shr"], -1)
    if "row_ror" in modifiers:
        return row + (i - modifiers["row_ror"]) % 16
    if modifiers.get("row_mirror"):
        return row + 15 - i
    raise ValueError(f"no lane rule for {modifiers}")


class _LaneChanges:
    """Wave w's lane w-1 of VGPR `row` changed (after the check's launch loaded the state)."""

    def __init__(self, row: int):
        self.row, self.start = row, None

    def wrap(self, tracer):
        def traced(p, st, sel):
            if self.start is None:
                self.start = p.pc
            tracer(p, st, sel)
            if p.pc == self.start:
                w = np.arange(1, st.vgpr.shape[1])
                st.vgpr[self.row, w, w - 1] ^= np.uint32(0x01010101)
        return traced


def dpp_lanes(target: str, name: str, modifiers: dict) -> list[str]:
    """Run `name` (a VOP1/VOP2 integer instruction: v_mov_b32, v_add_nc_u32) in its DPP form with
    `modifiers`, changing one lane of src0 per wave: the lanes of D0 that change must be the
    lanes whose source is that lane (dpp_source_lanes). Returns the mismatches."""
    from tests.effects_control import _Machine
    c = DppChecker(target)
    d = next(x for x in c.spec.lookup(name) if x.format in c.traits.roles.valu_e32)
    plain, c.ns = c.ns, _WithDpp(c.ns, modifiers)
    try:
        case = c.valu_case(d, np.random.default_rng(0))
    finally:
        c.ns = plain
    (src,), (dst,) = case.names["S0"], case.names["D0"]
    c.machine = _Machine(c.machine)
    c.machine.redirect = _LaneChanges(src[1])
    L = c.wave
    _, after = c.execute(case, L + 1, [None] * (L + 1), np.random.default_rng(1))
    source = dpp_source_lanes(modifiers, L)
    out = []
    for w in range(1, L + 1):
        changed = set(np.flatnonzero(c.value(after, w, dst) != c.value(after, 0, dst)).tolist())
        want = set(np.flatnonzero(source == w - 1).tolist())
        if changed != want:
            out.append(f"{case.text}: lane {w - 1} of src0 changed D0 lanes {sorted(changed)}, "
                       f"the control reads it in lanes {sorted(want)}")
    return out

"""The operand-effects model against the emulator for control flow (tests/effects_control.py
says how): every branch, jump and call the emulator runs, with the next PC as an output.
Changing a register the model does not read changes neither the next PC nor any register;
changing a declared input (SCC, the S0 pair of s_setpc, VCC and EXEC through VCCZ/EXECZ)
changes only declared writes (the PC, a call's return address)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.effects_check import disagreements, table
from tests.effects_control import TARGETS, ControlChecker, check


@pytest.mark.parametrize("target", TARGETS)
def test_control_flow_effects_agree_with_the_emulator(target):
    results = check((target,), sample=12)[target]
    print(f"\n{target}:\n{table(results)}")
    assert not [r for r in results if r.skipped], [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    names = {r.name for r in results}
    assert {"S_BRANCH", "S_CBRANCH_SCC0", "S_CBRANCH_VCCZ", "S_CBRANCH_EXECNZ", "S_SETPC_B64",
            "S_SWAPPC_B64", "S_CALL_B64"} <= names
    bad = disagreements(results, {})
    assert not bad, "the model and the emulator disagree:\n" + "\n".join(bad)


def _checker_with(monkeypatch, change):
    import tests.effects_check as base
    import tests.effects_control as ctl
    real = ctl.effects

    def wrong(pcode):
        return change(real(pcode), pcode)
    monkeypatch.setattr(base, "effects", wrong)
    return ControlChecker("gfx1100")


def _run(c, name):
    d = next(x for x in c.instructions if x.name == name)
    return c.run(d, np.random.default_rng(0), sample=None)


def test_the_check_finds_a_missing_status_read(monkeypatch):
    """A model that forgets s_cbranch_vccz reads VCC: changing VCC changes the next PC."""
    from dataclasses import replace
    c = _checker_with(monkeypatch, lambda e, p: replace(e, status_reads=frozenset()) if "VCCZ" in p else e)
    r = _run(c, "S_CBRANCH_VCCZ")
    assert any(f.startswith("s106->pc0") for f in r.findings["undeclared_input"]), dict(r.findings)


def test_the_check_finds_a_missing_pc_write(monkeypatch):
    """A model that says s_cbranch_scc1 does not assign PC: flipping SCC changes it anyway."""
    from dataclasses import replace
    c = _checker_with(monkeypatch, lambda e, p: replace(e, pc_write=False) if "SCC == 1'1U" in p else e)
    r = _run(c, "S_CBRANCH_SCC1")
    assert any(f.startswith("scc->pc0") for f in r.findings["leak"]) or "pc0" in r.findings["undeclared_write"], \
        dict(r.findings)

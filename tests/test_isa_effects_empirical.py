"""The operand-effects model (isa/effects.py) against the emulator, instruction by
instruction (tests/effects_check.py says how): changing a register the model does not read
changes no output, changing one it reads changes only registers it writes, and a run
changes only registers it writes. CI checks a seeded sample of the VALU and SALU
instructions of each target against a sample of the other registers;
WAVESMITH_EFFECTS_FULL=1 checks every instruction against every register (minutes per
target), WAVESMITH_EFFECTS_SEED picks another sample."""
from __future__ import annotations

import os

import pytest

from tests.effects_check import KNOWN, TARGETS, check, disagreements, table

FULL = bool(os.environ.get("WAVESMITH_EFFECTS_FULL"))
SEED = int(os.environ.get("WAVESMITH_EFFECTS_SEED", "0"))


@pytest.mark.parametrize("target", TARGETS)
def test_effects_model_agrees_with_the_emulator(target):
    results = check((target,), sample=None if FULL else 10, per_target=None if FULL else 70, seed=SEED)[target]
    print(f"\n{target} (seed {SEED}{', full' if FULL else ''}):\n{table(results)}")
    checked = [r for r in results if not r.skipped]
    assert len(checked) >= 0.9 * len(results), [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    bad = disagreements(results)
    assert not bad, "the model and the emulator disagree:\n" + "\n".join(bad)
    if FULL:     # every listed disagreement still happens (none is stale)
        names = {r.name for r in results if r.hard}
        assert not set(KNOWN) - names, f"KNOWN entries that agree now: {sorted(set(KNOWN) - names)}"


def test_the_check_finds_a_wrong_model(monkeypatch):
    """With a model that forgets v_add_f32 reads its second source, the check reports it."""
    import isa
    import tests.effects_check as ec
    from isa.effects import Effects
    real = ec.effects

    def wrong(pcode):
        e = real(pcode)
        if pcode == isa.load("gfx1100").lookup("V_ADD_F32")[0].pcode:
            return Effects(e.reads - {"S1"}, e.full, e.partial, e.cross_lane, e.indexed)
        return e
    monkeypatch.setattr(ec, "effects", wrong)
    c = ec.Checker("gfx1100")
    d = next(x for x in c.instructions if x.name == "V_ADD_F32" and x.format == "VOP2")
    import numpy as np
    r = c.run(d, np.random.default_rng(0), sample=None)
    assert any(f.startswith("v16->v40") for f in r.findings["undeclared_input"]), dict(r.findings)

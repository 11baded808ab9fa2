"""The operand-effects model against the emulator for the VALU forms the value check leaves
out (tests/effects_forms.py says how): VOPD pairs, both halves' effects together, and the
VALU instructions without operands."""
from __future__ import annotations

import numpy as np
import pytest

from tests.effects_check import disagreements, table
from tests.effects_forms import KNOWN, TARGETS, FormsChecker, check


@pytest.mark.parametrize("target", TARGETS)
def test_valu_forms_effects_agree_with_the_emulator(target):
    results = check((target,), sample=10)[target]
    print(f"\n{target}:\n{table(results)}")
    assert not [r for r in results if r.skipped], [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    assert {"V_NOP"} <= {r.name for r in results}
    if not target.startswith("gfx9"):
        assert sum(r.fmt == "VOPD" for r in results) == 31       # every X and every Y instruction
    bad = disagreements(results, KNOWN)
    assert not bad, "the model and the emulator disagree:\n" + "\n".join(bad)


def test_the_check_finds_a_wrong_vopd_half(monkeypatch):
    """A model that forgets v_dual_mul_f32 reads its second source (as the Y half)."""
    from dataclasses import replace
    c = FormsChecker("gfx1100")
    real = c.half_effects

    def wrong(d):
        e = real(d)
        return replace(e, reads=e.reads - {"S1"}) if d.name == "V_DUAL_MUL_F32" else e
    monkeypatch.setattr(c, "half_effects", wrong)
    d = next(x for x in c.instructions if x.name == "V_DUAL_MUL_F32" and x.slot == "Y")
    r = c.run(d, np.random.default_rng(0), sample=None)
    assert any(f.startswith("v17->v41") for f in r.findings["undeclared_input"]), dict(r.findings)

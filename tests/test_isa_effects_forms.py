"""The operand-effects model against the emulator for the VALU forms the value check leaves
out (tests/effects_forms.py says how): VOPD pairs, both halves' effects together, the VALU
instructions without operands, and a seeded sample of DPP16/DPP8 forms (24 per RDNA target;
`python -m tests.effects_forms` checks all of them)."""
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
        forms = {r.fmt.partition("+")[2] for r in results}
        assert {"DPP16", "DPP8"} <= forms and sum("+DPP" in r.fmt for r in results) == 24
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


def test_the_check_finds_a_dpp_lane_kept(monkeypatch):
    """Without the rule that a lane row_shr:1 leaves without a source keeps D0 (bound_ctrl off),
    changing D0 shows in D0: the check reports D0 as an undeclared input."""
    import tests.effects_forms as forms
    monkeypatch.setattr(forms, "DPP_CONTROLS", (("DPP16", {"row_shr": 1}, False),))
    c = forms.DppChecker("gfx1100")
    d = next(x for x in c.instructions if x.name == "V_ADD_F32" and x.format == "VOP2")
    r = c.run(d, np.random.default_rng(0), sample=None)
    assert "row_shr:1" in r.text and any(f.startswith("v40->v40") for f in r.findings["undeclared_input"]), \
        (r.text, dict(r.findings))


DPP_LANE_CONTROLS = ({"dpp8": [7, 0, 5, 2, 3, 6, 1, 4]}, {"quad_perm": [2, 0, 3, 1]}, {"row_shr": 3},
                     {"row_ror": 5}, {"row_mirror": True})


@pytest.mark.parametrize("target", ("gfx1100", "gfx1100-w64", "gfx1201"))
def test_dpp_reads_the_lanes_its_control_names(target):
    """One lane of src0 changed per wave: the lanes of D0 that change are those whose source
    lane, by the DPP syntax's definition (tests/effects_forms.py dpp_source_lanes), is that lane;
    a lane without one (row_shr) keeps D0."""
    from tests.effects_forms import dpp_lanes
    bad = [line for mods in DPP_LANE_CONTROLS for line in dpp_lanes(target, "V_ADD_NC_U32", mods)]
    assert not bad, "\n".join(bad[:10])


def test_the_lane_check_finds_a_wrong_lane_rule(monkeypatch):
    import tests.effects_forms as forms
    monkeypatch.setattr(forms, "dpp_source_lanes", lambda modifiers, lanes: np.arange(lanes))
    bad = forms.dpp_lanes("gfx1100", "V_MOV_B32", {"quad_perm": [1, 0, 3, 2]})
    assert len(bad) == 32 and "lane 0 of src0 changed D0 lanes [1]" in bad[0], bad[:2]

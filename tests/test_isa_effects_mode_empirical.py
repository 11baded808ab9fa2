"""The MODE effects (isa.effects.wave_state) against the emulator (tests/effects_check_mode.py
says how): with inputs for which rounding and denormals matter, changing a MODE field the model
does not say an instruction reads changes none of its outputs, the MODE writers change MODE as
the manual says and no other SALU instruction does, on the six targets (RDNA3, RDNA3.5, RDNA4;
CDNA3 and CDNA4 with their own manuals' MODE table). CI checks a seeded sample of the VALU
instructions of each target; WAVESMITH_EFFECTS_FULL=1 checks all of them (about 30 s a target)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import isa
from tests.effects_check_mode import MODE_TARGETS, NO_SEMANTICS, check, disagreements, field_counts, table

FULL = bool(os.environ.get("WAVESMITH_EFFECTS_FULL"))
SEED = int(os.environ.get("WAVESMITH_EFFECTS_SEED", "0"))


@pytest.mark.parametrize("target", MODE_TARGETS)
def test_mode_effects_agree_with_the_emulator(target):
    results = check((target,), per_target=None if FULL else 150, seed=SEED)[target]
    fields = field_counts(results)
    print(f"\n{target} (seed {SEED}{', full' if FULL else ''}):\n{table(results)}\n  confirmed: {dict(fields)}")
    # what the emulator runs (an instruction it has no semantics for, CDNA4's unscaled fp8
    # conversions among them, is listed, not checked) is checked, 95% of it at least
    runnable = [r for r in results if not (r.skipped or "").startswith(NO_SEMANTICS)]
    checked = [r for r in runnable if not r.skipped]
    assert len(runnable) >= 0.8 * len(results) and len(checked) >= 0.95 * len(runnable), \
        [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    bad = disagreements(results)
    assert not bad, "the MODE model and the emulator disagree:\n" + "\n".join(bad)
    # the inputs make MODE matter: each float field is seen to change some instruction's outputs,
    # and every MODE writer wrote it (s_round_mode, s_denorm_mode, s_setreg_b32, s_setreg_imm32_b32;
    # CDNA has the two s_setreg only)
    assert all(fields[f] for f in ("MODE.FP_DENORM.F32", "MODE.FP_DENORM.F16_F64", "MODE.FP_ROUND.F32",
                                   "MODE.FP_ROUND.F16_F64")), fields
    assert fields["MODE written"] == (2 if isa.traits(target.split("-")[0]).dialect == "gfx9" else 4), fields


def test_the_check_finds_a_wrong_model(monkeypatch):
    """A model that forgets v_add_f32 flushes f32 denormals and rounds its result is reported."""
    import tests.effects_check_mode as ecm
    from isa.fact_types import WaveState
    real = ecm.wave_state

    def wrong(d):
        got = real(d)
        return WaveState(frozenset(), got.writes) if d.name == "V_ADD_F32" else got
    monkeypatch.setattr(ecm, "wave_state", wrong)
    c = ecm.ModeChecker("gfx1100")
    d = next(x for x in c.valu if x.name == "V_ADD_F32" and x.format == "VOP2")
    r = c.run_reader(d, np.random.default_rng(0))
    assert "MODE.FP_DENORM.F32 (changed)" in r.findings["undeclared"], dict(r.findings)
    assert "MODE.FP_ROUND.F32 (changed)" in r.findings["undeclared"], dict(r.findings)   # rounded toward zero


@pytest.mark.parametrize("target", ("gfx942-w64", "gfx950-w64", "gfx1201"))
def test_setreg_writes_mode_where_the_hwreg_table_says_it_is_writable(target):
    """CDNA's hwreg table says MODE is "R/W.", RDNA4's "Writable? Yes": s_setreg(_imm32)_b32 of
    MODE[3:0] sets those bits (and s_round_mode / s_denorm_mode theirs on RDNA4)."""
    from tests.effects_check_mode import ModeChecker
    c = ModeChecker(target)
    results = [c.run_writer(*w) for w in c.writer_cases()]
    assert len(results) == (2 if target.startswith("gfx9") else 4), [r.name for r in results]
    assert all(r.confirmed == {"MODE written"} and not r.skipped for r in results), \
        [(r.name, r.skipped, dict(r.findings)) for r in results]

"""Every instruction the emulator runs is covered by an empirical check of the operand-effects
model or left out with a reason (tests/effects_coverage.py): the table per target and format
is printed; an instruction that is neither fails, so a new one cannot slip through."""
from __future__ import annotations

import pytest

from tests.effects_coverage import TARGETS, coverage, emulator_supports, table


@pytest.mark.parametrize("target", TARGETS)
def test_every_emulated_instruction_is_checked_or_listed(target):
    rows = coverage(target)
    print(f"\n{target}:\n{table(rows)}")
    unlisted = [f"{fmt} {name}" for fmt, r in rows.items() for name in r["unlisted"]]
    assert not unlisted, "emulated instructions no effects check covers and no reason lists:\n" + "\n".join(unlisted)
    assert all(why for r in rows.values() for _, why in r["listed"])
    # the table counts each emulated instruction (name, format) once
    assert sum(r["supported"] for r in rows.values()) == len(emulator_supports(target.split("-")[0]))


def test_an_unchecked_instruction_without_a_reason_fails(monkeypatch):
    """With the control check gone, the branches show up as unlisted."""
    import tests.effects_coverage as cov
    real = cov.checkers
    monkeypatch.setattr(cov, "checkers", lambda: [c for c in real() if c[0] != "control"])
    rows = coverage("gfx1100")
    assert "S_CBRANCH_SCC0" in rows["SOPP"]["unlisted"] and "S_SETPC_B64" in rows["SOP1"]["unlisted"]

"""Random DSL programs in virtual registers (tests/regalloc_fuzz.py): allocated, run on
Device("emu") and compared, every stored dword in every lane where it is defined, with an
independent numpy interpreter of the virtual program that models EXEC per lane. A bounded
number here; `python bench/bench_regalloc.py --programs N` runs more."""
from __future__ import annotations

import os

import pytest

from tests.regalloc_fuzz import check

PROGRAMS = int(os.environ.get("WAVESMITH_REGALLOC_FUZZ", "32"))


@pytest.mark.parametrize("chunk", range(4))
def test_random_programs_match_the_interpreter(chunk):
    failures = []
    for seed in range(chunk, PROGRAMS, 4):
        r = check(seed)
        if r.mismatches:
            failures.append(f"seed {seed} ({r.instructions} instructions): " +
                            "; ".join(f"slot {s} %{name}[{j}] lanes {lanes}" for s, name, j, lanes in r.mismatches[:4]))
    assert not failures, "\n".join(failures)

"""emu/facts.py keeps facts per instruction text, which two families may share (RDNA3's and
RDNA3.5's s_barrier are the same entry). A fact that depends on the family must not be served
from another family's answer: isa.errata.BEHAVIOUR_UNKNOWN lists families, so an entry naming
rdna3 only flags RDNA3's s_barrier and not RDNA3.5's identical one -- whichever is asked first,
in one process and through a cache folder another process wrote."""
from __future__ import annotations

import pytest

import isa
from emu import facts
from isa import errata

EXPECTED = {"rdna3": True, "rdna3.5": False}     # the test entry below lists rdna3 only


def s_barrier(family):
    (d,) = [d for d in isa.load(family).lookup("S_BARRIER") if d.format == "SOPP"]
    return d


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    monkeypatch.setattr(errata, "BEHAVIOUR_UNKNOWN", {"S_BARRIER": ({"rdna3": 0}, "a test entry")})
    facts.fact_cache.cache_clear()
    yield tmp_path
    facts.fact_cache.cache_clear()      # later tests get the real folder again


@pytest.mark.parametrize("order", [("rdna3", "rdna3.5"), ("rdna3.5", "rdna3")])
def test_identical_entries_of_two_families_get_their_own_family_s_answer(fresh_cache, order):
    defs = {family: s_barrier(family) for family in order}
    # the premise: one text, so one file of the fact cache
    assert defs["rdna3"] is not defs["rdna3.5"]
    assert facts._instruction_key(defs["rdna3"]) == facts._instruction_key(defs["rdna3.5"])
    for family in order:
        facts.data_dwords(defs[family])     # a fact of the text, so each entry's file is written
        assert facts.behaviour_unknown(defs[family]) is EXPECTED[family], family
    assert list(fresh_cache.rglob("*.pickle"))
    # a new process: the cache folder this one wrote, read in the other order
    facts.fact_cache.cache_clear()
    for family in reversed(order):
        assert facts.behaviour_unknown(defs[family]) is EXPECTED[family], family
        assert facts.behaviour_unknown(defs[family]) is EXPECTED[family], family


def outcome(compute, d):
    try:
        return compute(d)
    except Exception as e:      # a fact that does not apply to d: the same refusal in each family
        return type(e).__name__


def test_no_fact_kept_by_text_depends_on_the_family(fresh_cache):
    """Each fact the cache keeps by text is the same for every family holding that text when its
    module computes it for each family's definition afresh (with the test entry flagging RDNA3's
    s_barrier only: a family-aware fact kept by text would differ there)."""
    by_text: dict[str, list] = {}
    for family in ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"):
        for d in isa.load(family).instructions:
            by_text.setdefault(facts._instruction_key(d), []).append((family, d))
    shared = [defs for defs in by_text.values() if len({family for family, _ in defs}) > 1]
    assert len(shared) > 1000       # RDNA3/RDNA3.5 and CDNA3/CDNA4 share most entries
    for defs in shared:
        (_, first), *others = defs
        for name, compute in facts.FACTS.items():
            expected = outcome(compute, first)
            for family, d in others:
                assert outcome(compute, d) == expected, (name, family, d.name, d.format)

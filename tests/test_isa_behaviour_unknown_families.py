"""isa.errata.BEHAVIOUR_UNKNOWN is keyed by instruction name and family (name -> ({family: page},
evidence), as the other run-time errata tables): facts.behaviour_unknown flags an instruction
in the families its entry lists and in no other, the family coming from the Spec that holds the
InstrDef (isa.spec.family_of); each listed family is a generated one whose opcode table has the
instruction on the page given."""
from __future__ import annotations

import dataclasses

import pytest

import isa
from isa import errata, facts
from isa.gen import GENERATED_ARCHS
from isa.spec import family_of

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")


def test_family_keys_are_generated_families_and_pages_are_the_opcode_rows():
    for name, (pages, evidence) in errata.BEHAVIOUR_UNKNOWN.items():
        assert evidence
        for family, page in pages.items():
            assert family in GENERATED_ARCHS, (name, family)
            defs = isa.load(family).lookup(name)
            # (the first encoding's table: CDNA's V_EXP_LEGACY_F32 has a VOP1 row and a VOP3A one)
            assert defs and page == min(d.page for d in defs), (name, family, [d.page for d in defs], page)


@pytest.mark.parametrize("table", ["UNDESCRIBED_SMEM", "UNDESCRIBED_LDS", "NULL_ONLY_SDST", "GDS_ONLY"])
def test_the_other_name_keyed_tables_name_generated_families(table):
    for name, entry in getattr(errata, table).items():
        pages = next(v for v in entry if isinstance(v, dict))
        assert set(pages) <= set(GENERATED_ARCHS), (table, name)
        for family in pages:
            assert isa.load(family).lookup(name), (table, name, family)


def test_family_of_each_instruction():
    for family in FAMILIES:
        spec = isa.load(family)
        assert {family_of(d) for d in spec.instructions} == {family}
    assert family_of(dataclasses.replace(isa.load("rdna3").instructions[0])) is None


def test_flagged_in_the_listed_family_only(monkeypatch):
    """S_BARRIER is in every family, with the same name and format in RDNA3 and RDNA3.5; an entry
    listing rdna3 flags RDNA3's only."""
    monkeypatch.setattr(errata, "BEHAVIOUR_UNKNOWN", {"S_BARRIER": ({"rdna3": 0}, "a test entry")})
    flagged = {(family, d.format) for family in FAMILIES for d in isa.load(family).instructions
               if facts.behaviour_unknown(d)}
    assert flagged == {("rdna3", "SOPP")}


def test_a_copy_no_spec_holds_is_flagged_by_name():
    d = next(d for d in isa.load("rdna4").lookup("s_barrier_init"))
    assert facts.behaviour_unknown(d)
    assert facts.behaviour_unknown(dataclasses.replace(d))
    assert not facts.behaviour_unknown(dataclasses.replace(isa.load("rdna4").lookup("s_barrier_signal")[0]))

"""isa.control.control() remembers each definition's reading: the remembered facts are the ones
a fresh reading of the manual's text gives, for every instruction of every family, with and
without the spec's tables (the s_waitcnt layout changes what a table wait reads)."""
from __future__ import annotations

import isa
from isa.gen.control import read_control
from isa.control import control

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")


def test_remembered_facts_match_a_fresh_reading():
    rows = waits = 0
    for family in FAMILIES:
        spec = isa.load(family)
        for d in spec.instructions:
            for tables in (spec.tables, None):
                first = control(d, tables)
                assert control(d, tables) is first                       # remembered
                assert first == read_control(d, tables), (family, d.name)
            rows += 1
            waits += bool(control(d, spec.tables).waits)
    assert rows > 5000 and waits > 10


def test_other_tables_give_their_own_reading():
    spec = isa.load("rdna3")
    d = next(d for d in spec.instructions if d.name == "S_WAITCNT")
    assert control(d, spec.tables).waits == tuple(spec.tables["waitcnt"])
    assert control(d, {"waitcnt": [("VM", 1, 0)]}).waits == (("VM", 1, 0),)
    assert control(d, None).waits == ()

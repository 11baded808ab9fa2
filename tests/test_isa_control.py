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


def test_code_facts_from_the_tree_are_the_manuals_text():
    """The two facts read from pseudocode (SOPK wait fields, s_nop's count bits) come from the
    syntax tree; the manual's text, read as written, says the same, and nothing else matches."""
    import re
    from isa.gen.control import nop_bits, sopk_waits
    sopk = re.compile(r"^([a-z]+)cnt <= S0\.\w+\[(\d+):(\d+)\] \+ S1\.", re.M)
    nop = re.compile(r"^for i in 0U : SIMM16\.u16\[(\d+) : (\d+)\]\.u(?:32)? do\n\s+nop\(\)\nendfor$")
    found = {}
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            text = d.pcode or ""
            assert sopk_waits(text) == tuple((c.upper(), int(h), int(l)) for c, h, l in sopk.findall(text)), d.name
            m = nop.match(text)
            assert nop_bits(text) == ((int(m.group(1)), int(m.group(2))) if m else None), (family, d.name)
            if sopk_waits(text) or nop_bits(text):
                found.setdefault(family, set()).add(d.name)
    assert found["rdna3"] == {"S_NOP", "S_WAITCNT_VSCNT", "S_WAITCNT_VMCNT", "S_WAITCNT_EXPCNT", "S_WAITCNT_LGKMCNT"}
    assert all(found[f] == {"S_NOP"} for f in ("rdna4", "cdna3", "cdna4"))
    # only the whole code being that loop counts; a comparison without S1 is not a SOPK wait
    assert nop_bits("if WAVE64 then\n  nop()\nendif") is None
    assert nop_bits("for i in 0U : SIMM16.u16[3 : 0].u32 do\n  nop();\n  D0.u32 = 1\nendfor") is None
    assert sopk_waits("expcnt <= WaitEXPCNT") == () and sopk_waits("vmcnt <= S0.u[5:0]") == ()

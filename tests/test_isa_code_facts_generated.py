"""isa.code_facts' facts of the code alone are generated (isa/generated/<arch>/code_facts.py) and
read from there: the committed tables are what the generator works out from the committed
instructions (what `wavesmith gen --check` checks with the manuals at hand), and every answer
read from them equals parsing the code afresh."""
from __future__ import annotations

import importlib

import pytest

import isa
from isa import code_facts
from isa.gen.build import _code_facts

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")


@pytest.mark.parametrize("family", FAMILIES)
def test_committed_tables_are_what_the_generator_writes(family):
    module = importlib.import_module(f"isa.generated.{family.replace('.', '_')}")
    committed = importlib.import_module(f"isa.generated.{family.replace('.', '_')}.code_facts").CODE_FACTS
    assert committed == _code_facts(module.INSTRUCTIONS)


@pytest.mark.parametrize("family", FAMILIES)
def test_answers_from_the_tables_equal_parsing_the_code(family):
    spec = isa.load(family)
    for d in spec.instructions:
        for name in code_facts.GENERATED_FACTS:
            got, parsed = getattr(code_facts, name)(d.pcode), code_facts.compute(name, d.pcode)
            assert got == parsed and type(got) is type(parsed), (family, d.format, d.name, name)


def test_some_facts_by_hand():
    """A few values as the manual's code reads (independent of the generator's tables)."""
    rdna3, cdna3 = isa.load("rdna3"), isa.load("cdna3")
    add = next(d for d in rdna3.lookup("ds_add_rtn_u32"))
    assert code_facts.atomic_update(add.pcode) == code_facts.AtomicUpdate("add", "u", True, ())  # MEM[ADDR].u += DATA.u
    assert code_facts.offset_pattern(rdna3.lookup("ds_swizzle_b32")[0].pcode) is True     # offset = offset1:offset0
    assert code_facts.offset_pattern(add.pcode) is False
    assert code_facts.first_nan_test(cdna3.lookup("v_min_f32")[0].pcode) == "S0"
    assert code_facts.first_nan_test(rdna3.lookup("v_min_f32")[0].pcode) == "S1"
    assert code_facts.register_files(rdna3.lookup("v_readlane_b32")[0].pcode) == frozenset({"VGPR"})


def test_code_no_family_has_is_parsed():
    code = "SDATA[31 : 0] = MEM[ADDR + 0U].b;\nSDATA[63 : 32] = MEM[ADDR + 4U].b"
    assert code_facts.field_loads(code) == ("SDATA", 2)

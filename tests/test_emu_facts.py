"""emu/facts.py: the instruction facts read back from the on-disk cache equal the ones the
owning modules (dsl.signature, isa.control, isa.memory_access, isa.effects, isa.float_modes)
compute, on every instruction of every family; a damaged entry is computed again."""
from __future__ import annotations

import pytest

import isa
from dsl.signature import vopd_base
from emu import facts
from emu.facts import FACTS, FactCache

FAMILIES = ("rdna3", "rdna3_5", "rdna4", "cdna3", "cdna4")


def computed(d) -> dict:
    """Each fact of d its module gives (a fact that does not apply to d raises: left out)."""
    out = {}
    for name, compute in FACTS.items():
        try:
            out[name] = compute(d)
        except Exception:
            pass
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_cached_facts_equal_the_computed_ones(family, tmp_path):
    spec = isa.load(family)
    defs = list(spec.instructions)
    defs += [vopd_base(spec, d) for d in defs if d.format == "VOPD"]      # the signatures VOPD halves read
    expected = [computed(d) for d in defs]
    assert sum(len(e) for e in expected) > 5 * len(defs)
    writer = FactCache(str(tmp_path))
    for d, facts_of_d in zip(defs, expected):
        for name in facts_of_d:
            writer.fact(name, d, FACTS[name])
    reader = FactCache(str(tmp_path))        # a later process: every fact from the files

    def refuse(d):
        raise AssertionError(f"{d.name} ({d.format}): a fact was not read back from the cache")
    for d, facts_of_d in zip(defs, expected):
        for name, value in facts_of_d.items():
            got = reader.fact(name, d, refuse)
            assert got == value, f"{d.name} ({d.format}) {name}: cached {got!r}, computed {value!r}"


@pytest.mark.parametrize("damage", [b"", b"not a pickle", b"\x80\x05K\x01."])     # empty, garbage, an int
def test_a_damaged_entry_is_computed_again(tmp_path, damage):
    spec = isa.load("rdna3")
    d = next(x for x in spec.lookup("V_ADD_F32") if x.format == "VOP2")
    FactCache(str(tmp_path)).fact("float_rules", d, FACTS["float_rules"])
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(damage)
    calls = []

    def compute(x):
        calls.append(x)
        return FACTS["float_rules"](x)
    assert FactCache(str(tmp_path)).fact("float_rules", d, compute) == FACTS["float_rules"](d)
    assert calls == [d]


def test_the_cache_can_be_switched_off(tmp_path, monkeypatch):
    """EmuOptions.fact_cache off: nothing is read from or written to disk."""
    from emu.options import REFERENCE, activate, deactivate
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    d = next(x for x in isa.load("rdna3").lookup("V_ADD_F32") if x.format == "VOP2")
    token = activate(REFERENCE)
    try:
        assert facts.float_rules(d) == FACTS["float_rules"](d)
    finally:
        deactivate(token)
    assert not list(tmp_path.rglob("*.pickle"))


@pytest.mark.parametrize("family", FAMILIES)
def test_the_decoders_constant_check_agrees_with_the_signatures(family):
    """dsl.decode._always_literal asks for VOP2/VOPD signatures only where the pseudocode names
    SIMM16/SIMM32: the same answer as asking every one whether it has a K constant."""
    from dsl.decode import _always_literal
    from dsl.signature import valu_signature
    spec = isa.load(family)
    by_opcode: dict = {}
    for d in spec.instructions:
        by_opcode.setdefault((d.format, d.slot, d.opcode), []).append(d)
    checked = with_k = 0
    for (fmt, _, _), defs in by_opcode.items():
        if fmt not in ("VOP2", "VOPD"):
            continue
        full = any(valu_signature(vopd_base(spec, x)).k_pos is not None for x in defs)
        assert _always_literal(spec, fmt, tuple(defs)) == full, [d.name for d in defs]
        checked += 1
        with_k += full
    assert checked > 20 and with_k >= 2


def test_a_regenerated_table_names_a_new_cache_folder(tmp_path, monkeypatch):
    """The folder's digest covers the generated tables the facts are read from, not only the
    code that reads them: a regeneration that changes a fact and no entry's text (an erratum, a
    reader fixed in the generator) must not find the old answers on disk."""
    import shutil
    from emu.options import REFERENCE, activate, deactivate
    for name in facts._SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(facts._ROOT + "/" + name, tmp_path / name)
    shutil.copytree(facts._ROOT + "/isa/generated", tmp_path / "isa/generated")
    monkeypatch.setattr(facts, "_ROOT", str(tmp_path))
    token = activate(REFERENCE)          # source_stamps off: every digest reads the files
    try:
        before = facts._digest()
        table = tmp_path / "isa/generated/rdna3/effects.py"
        table.write_text(table.read_text() + "\n# regenerated\n")
        assert facts._digest() != before
    finally:
        deactivate(token)

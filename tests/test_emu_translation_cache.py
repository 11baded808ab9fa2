"""The on-disk cache of translated pseudocode (emu/table.py): processes sharing it keep each
other's entries, and a damaged file or entry only costs a translation, never a wrong or
missing semantic."""
from __future__ import annotations

import json

import numpy as np
import pytest

from emu import table
from emu.semantics import Ctx
from emu.table import SemanticTable, _SourceCache


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    monkeypatch.setattr(table, "_shared_cache", lambda: _SourceCache())     # a fresh cache per table
    return tmp_path / "emu"


def add(a: int, b: int, arch="gfx1100") -> int:
    sem = SemanticTable(arch).lookup("v_add_nc_u32")
    out = sem.execute(Ctx(lanes=1, exec_mask=np.array([[1]], np.uint64),
                          inputs={"S0": np.array([[a]], np.uint32), "S1": np.array([[b]], np.uint32)}))
    return int(np.asarray(out["D0"]).reshape(-1)[0])


def test_two_processes_saving_keep_each_others_entries(cache_home):
    first, second = _SourceCache(), _SourceCache()        # both start before either saved
    first.put("k1", {"error": "one"})
    first.save()
    second.put("k2", {"error": "two"})
    second.save()
    fresh = _SourceCache()
    assert fresh.get("k1") == {"error": "one"} and fresh.get("k2") == {"error": "two"}
    assert not list(fresh.folder.glob("*.tmp"))              # written under a temporary name, renamed


def test_a_process_reads_only_the_entries_it_asks_for(cache_home):
    assert add(1, 2) == 3                                   # fills the cache
    cache = _SourceCache()
    assert cache.entries == {}                              # nothing read up front
    sem_entries = list(cache.folder.glob("*.json"))
    assert sem_entries and cache.get(sem_entries[0].stem) is not None
    assert set(cache.entries) == {sem_entries[0].stem}


@pytest.mark.parametrize("damage", ["not json {", "[1, 2]", "", '{"source": "def semantic(ctx', "entry"])
def test_a_damaged_cache_only_costs_a_translation(cache_home, damage, capsys):
    assert add(0xFFFFFFFF, 2) == 1                          # fills the cache
    files = list(_SourceCache().folder.glob("*.json"))
    assert files
    for path in files:
        if damage == "entry":                               # well-formed JSON missing fields
            path.write_text(json.dumps({"reads": {}}))
        else:                                               # not JSON, another shape, empty, cut short
            path.write_text(damage)
    assert add(7, 5) == 12 and add(0xFFFFFFFF, 0xFFFFFFFF) == 0xFFFFFFFE
    assert capsys.readouterr().err == ""                    # no traceback, no warning
    fresh = _SourceCache()
    assert all(fresh.get(p.stem) is not None for p in files)     # translated again and rewritten


def test_an_old_single_file_cache_is_ignored(cache_home):
    """The former format (one JSON object of every entry, pcode-DIGEST.json beside the folder)
    is neither read nor in the way."""
    cache = _SourceCache()
    cache.folder.parent.mkdir(parents=True, exist_ok=True)
    cache.folder.with_suffix(".json").write_text(json.dumps({"k": {"error": "stale"}}))
    assert add(3, 4) == 7 and _SourceCache().get("k") is None

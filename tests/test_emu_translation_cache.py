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
    first, second = _SourceCache(), _SourceCache()        # both read the (empty) file first
    first.entries["k1"] = {"error": "one"}
    first.dirty = True
    first.save()
    second.entries["k2"] = {"error": "two"}
    second.dirty = True
    second.save()
    assert {"k1", "k2"} <= set(json.loads(second.path.read_text()))


@pytest.mark.parametrize("damage", ["not json {", "[1, 2]", "entry"])
def test_a_damaged_cache_only_costs_a_translation(cache_home, damage):
    assert add(0xFFFFFFFF, 2) == 1                          # fills the cache
    path = _SourceCache().path
    if damage == "entry":                                   # every entry loses its source
        entries = json.loads(path.read_text())
        path.write_text(json.dumps({k: {"reads": {}} for k in entries}))
    else:
        path.write_text(damage)
    assert add(7, 5) == 12
    assert all(table._well_formed(v) for v in json.loads(path.read_text()).values())     # translated again

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
    stored = list(cache.folder.glob("*.bin"))
    assert stored and cache.get(stored[0].stem) is not None
    assert set(cache.entries) == {stored[0].stem}


def branch_target(pc: int, simm16: int) -> int:
    """s_branch's target computed by hand: PC + 4 + 4 * signext(SIMM16) (RDNA3 manual, SOPP)."""
    return pc + 4 + 4 * (simm16 - 0x10000 if simm16 & 0x8000 else simm16)


def branch(pc: int, simm16: int) -> int:
    from emu.options import activate, deactivate, options_from
    sem = SemanticTable("gfx1100").lookup("s_branch")
    token = activate(options_from(off=["branch_shortcuts"]))     # the generated code, its offset folded
    try:
        out = sem.execute(Ctx(lanes=1, exec_mask=np.array([[1]], np.uint64),
                              inputs={"PC": np.array([[pc]], np.uint64), "SIMM16": simm16}))
    finally:
        deactivate(token)
    return int(np.asarray(out["PC"]).reshape(-1)[0])


def damaged(data: bytes, damage: str) -> bytes:
    import marshal
    from importlib.util import MAGIC_NUMBER
    if damage == "missing field":                           # well-formed, without its source
        return MAGIC_NUMBER + marshal.dumps({"reads": {}})
    if damage == "not code":                                # a translation whose code is not a code object
        return MAGIC_NUMBER + marshal.dumps(dict(marshal.loads(data[len(MAGIC_NUMBER):]), code="x = 1"))
    return {"empty": b"", "not marshal": MAGIC_NUMBER + b"not marshal {", "another python": b"\0\0\r\n" + data[4:],
            "cut short": data[:len(data) // 2], "json": b'{"source": "def semantic(ctx): ..."}'}[damage]


@pytest.mark.parametrize("damage", ["empty", "not marshal", "another python", "cut short", "json", "missing field",
                                    "not code"])
def test_a_damaged_cache_only_costs_a_translation(cache_home, damage, capsys):
    """Every stored entry damaged (or written by another Python, or in the former JSON
    format): the semantics are translated and compiled again, give the same results (against
    arithmetic done here), print nothing, and the files are rewritten whole."""
    assert add(0xFFFFFFFF, 2) == 1 and branch(0x1000, 0xFFFE) == branch_target(0x1000, 0xFFFE)  # fills the cache
    files = list(_SourceCache().folder.glob("*.bin"))
    assert files
    for path in files:
        path.write_bytes(damaged(path.read_bytes(), damage))
    assert add(7, 5) == 12 and add(0xFFFFFFFF, 0xFFFFFFFF) == 0xFFFFFFFE
    assert branch(0x2000, 5) == branch_target(0x2000, 5) and branch(0x40000, 0x8000) == branch_target(0x40000, 0x8000)
    assert capsys.readouterr().err == ""                    # no traceback, no warning
    fresh = _SourceCache()
    assert all(fresh.get(p.stem) is not None for p in files)     # translated again and rewritten
    assert any("code" in fresh.get(p.stem) for p in files)       # ... with their compiled code


def test_an_old_single_file_cache_is_ignored(cache_home):
    """The former format (one JSON object of every entry, pcode-DIGEST.json) is neither read
    nor in the way."""
    cache_home.mkdir(parents=True, exist_ok=True)
    (cache_home / f"pcode-{table._translator_digest()}.json").write_text(json.dumps({"k": {"error": "stale"}}))
    assert add(3, 4) == 7 and _SourceCache().get("k") is None

"""isa/records.py: classes made by its `dataclass` (method bytecode kept on disk) against the
standard library's `dataclasses.dataclass` making the same class from the same source, in
fresh processes with a cache folder of their own: compiled text, first from an empty table,
then read back from the file, then from damaged files and with the cache turned off."""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# each class made twice in the child, by isa.records.dataclass and by dataclasses.dataclass;
# the child compares every generated method's code and the instances' behaviour
CHILD = r'''
import dataclasses, json, sys
from dataclasses import InitVar, field
from isa import records

SOURCE = """
class Point:
    x: int
    y: float = 1.5
    tags: list = field(default_factory=list)
    note: str = field(default="n", compare=False, repr=False)

class Frozen:
    a: int
    b: tuple = ()

class Ordered:
    k: int
    v: str = "v"

class Slotted:
    p: int
    q: int = 2

class Post:
    total: int = 0
    scale: InitVar[int] = 1
    def __post_init__(self, scale):
        self.total *= scale

class KwOnly:
    a: int
    b: int = field(default=3, kw_only=True)
"""
OPTIONS = {"Point": {}, "Frozen": {"frozen": True}, "Ordered": {"order": True, "unsafe_hash": True},
           "Slotted": {"slots": True, "frozen": True}, "Post": {}, "KwOnly": {}}
ARGS = {"Point": ((1,), {"tags": [2]}), "Frozen": ((1, (2,)), {}), "Ordered": ((3,), {"v": "w"}),
        "Slotted": ((1,), {}), "Post": ((2,), {"scale": 5}), "KwOnly": ((1,), {"b": 4})}

# string annotations (as in the product modules): dataclasses reads ClassVar, InitVar and KW_ONLY
# from the text by a pattern, which records matches once per text
STRING_SOURCE = """
from __future__ import annotations
class Texts:
    a: int
    shared: ClassVar[int] = 7
    alias: CV[int] = 8
    later: InitVar[int] = 2
    b: str = "b"
    _: KW_ONLY
    c: int = 3
    def __post_init__(self, later):
        self.b = self.b * later

class MoreTexts:
    x: dataclasses.InitVar[int]
    y: typing.ClassVar[str] = "y"
    z: int = 1
    def __post_init__(self, x):
        object.__setattr__(self, "z", self.z + x)
"""
OPTIONS.update({"Texts": {}, "MoreTexts": {"frozen": True}})
ARGS.update({"Texts": ((1,), {"later": 3, "c": 5}), "MoreTexts": ((4,), {"z": 2})})

def make(decorator):
    import typing
    ns = {"field": field, "InitVar": InitVar, "__name__": "records_test_classes"}
    exec(SOURCE, ns)
    module = type(sys)("records_test_classes_texts")
    module.__dict__.update(ClassVar=typing.ClassVar, CV=typing.ClassVar, InitVar=InitVar,
                           KW_ONLY=dataclasses.KW_ONLY, dataclasses=dataclasses, typing=typing)
    sys.modules[module.__name__] = module
    exec(STRING_SOURCE, module.__dict__)
    ns.update((name, module.__dict__[name]) for name in ("Texts", "MoreTexts"))
    made = {name: decorator(ns[name], **OPTIONS[name]) for name in OPTIONS}
    for name in ("Texts", "MoreTexts"):     # both fields' sets: the ClassVars and the InitVar left out
        assert [f.name for f in dataclasses.fields(made[name])] == {"Texts": ["a", "b", "c"], "MoreTexts": ["z"]}[name]
    return made

def behaviour(cls, name):
    args, kw = ARGS[name]
    a, b = cls(*args, **kw), cls(*args, **kw)
    out = {"repr": repr(a).split(".")[-1], "eq": a == b, "fields": [f.name for f in dataclasses.fields(a)],
           "hash": hash(a) == hash(b) if cls.__hash__ is not None else None, "doc": cls.__doc__}
    try:
        a.__setattr__(out["fields"][0], 9)
        out["frozen"] = False
    except dataclasses.FrozenInstanceError:
        out["frozen"] = True
    if OPTIONS[name].get("order"):
        out["lt"] = cls(1) < cls(2)
    return out

ours, reference = make(records.dataclass), make(dataclasses.dataclass)
SPEC = [("a", int), ("b", int, field(default=2)), ("c", tuple, field(default=()))]
ours["Made"] = records.make_dataclass("Made", SPEC, module="records_test_classes", frozen=True)
reference["Made"] = dataclasses.make_dataclass("Made", SPEC, frozen=True)
OPTIONS["Made"], ARGS["Made"] = {"frozen": True}, ((1,), {"c": (3,)})
report = {"same_code": {}, "behaviour": {}}
for name in OPTIONS:
    methods = [m for m in ("__init__", "__repr__", "__eq__", "__hash__", "__lt__", "__setattr__", "__delattr__")
               if callable(getattr(reference[name], m, None)) and hasattr(getattr(reference[name], m), "__code__")
               and getattr(reference[name], m).__code__.co_filename == "<string>"]
    report["same_code"][name] = {m: getattr(ours[name], m).__code__ == getattr(reference[name], m).__code__ for m in methods}
    report["behaviour"][name] = behaviour(ours[name], name) == behaviour(reference[name], name)
table = records.tables.get("records_test_classes")
report["table_new"] = table.new if table is not None else None
report["table_size"] = len(table.codes) if table is not None else 0
print(json.dumps(report))
'''


def _child(cache: Path, **env) -> dict:
    run_env = {k: v for k, v in os.environ.items() if k != "WAVESMITH_CLASS_CACHE"}
    run_env.update(PYTHONPATH=str(ROOT), WAVESMITH_CACHE=str(cache), **env)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=run_env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _table_file(cache: Path) -> Path:
    return cache / "dataclasses" / sys.implementation.cache_tag / "records_test_classes.marshal"


def _check_same(report: dict) -> None:
    for name, methods in report["same_code"].items():
        assert methods and all(methods.values()), (name, methods)
    assert all(report["behaviour"].values()), report["behaviour"]


def test_compiled_then_read_back(tmp_path):
    first = _child(tmp_path)
    _check_same(first)
    assert first["table_new"] is True                 # an empty folder: every text compiled here
    table = _read(_table_file(tmp_path))
    assert isinstance(table, dict) and len(table) == first["table_size"] > 10
    second = _child(tmp_path)
    _check_same(second)                               # the classes from the file's bytecode
    assert second["table_new"] is False               # nothing compiled again, nothing written


def _read(path: Path):
    data = path.read_bytes()
    assert data.startswith(MAGIC_NUMBER)
    return marshal.loads(data[len(MAGIC_NUMBER):])


def _other_python(path: Path) -> bytes:
    """The table as it is, under another bytecode magic number."""
    data = path.read_bytes()
    return bytes([data[0] ^ 0xFF]) + data[1:]


@pytest.mark.parametrize("content", [b"", b"garbage\x00\xff", None, MAGIC_NUMBER + marshal.dumps(["not", "a", "dict"]),
                                     MAGIC_NUMBER + marshal.dumps({"def f(): pass": "not code", 3: b"x"}), "other"])
def test_damaged_table_is_compiled_again_and_rewritten(tmp_path, content):
    _child(tmp_path)
    path = _table_file(tmp_path)
    good = path.read_bytes()
    path.write_bytes(good[:len(good) // 2] if content is None else _other_python(path) if content == "other"
                     else content)     # None: cut short
    report = _child(tmp_path)
    _check_same(report)
    assert report["table_new"] is True
    table = _read(path)
    assert len(table) >= report["table_size"] and all(type(v).__name__ == "code" for v in table.values())


def test_off_switch_reads_and_writes_nothing(tmp_path):
    report = _child(tmp_path, WAVESMITH_CLASS_CACHE="0")
    _check_same(report)
    assert report["table_new"] is None and not _table_file(tmp_path).exists()


# one class whose field names a child picks: each name is another version of the module's class
VERSION_CHILD = r'''
import json, sys
from isa import records
ns = {"__name__": "records_test_versions"}
exec(f"class Versioned:\n    {sys.argv[1]}: int = 0\n", ns)
cls = records.dataclass(ns["Versioned"], frozen=True)
table = records.tables["records_test_versions"]
print(json.dumps({"new": table.new, "fields": list(cls.__dataclass_fields__), "init": cls(**{sys.argv[1]: 4}).__repr__()}))
'''


def _version_child(cache: Path, field: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "WAVESMITH_CLASS_CACHE"}
    env.update(PYTHONPATH=str(ROOT), WAVESMITH_CACHE=str(cache))
    out = subprocess.run([sys.executable, "-c", VERSION_CHILD, field], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _texts_naming(table: dict, field: str) -> int:
    return sum(f"{field}=" in text or f"{field}:" in text or f"'{field}'" in text for text in table)


def test_table_keeps_the_writers_texts_and_as_many_newest_others(tmp_path):
    """Three versions of a class run in turn: the table keeps the last two versions' texts (the
    writer's and as many others, the newest), not the first's; the last two then compile nothing."""
    path = tmp_path / "dataclasses" / sys.implementation.cache_tag / "records_test_versions.marshal"
    for field in ("alpha", "beta", "gamma"):
        report = _version_child(tmp_path, field)
        assert report["new"] is True and report["fields"] == [field] and report["init"] == f"Versioned({field}=4)"
    table = _read(path)
    assert _texts_naming(table, "alpha") == 0
    assert _texts_naming(table, "beta") > 0 and _texts_naming(table, "gamma") > 0
    for field in ("beta", "gamma"):           # both kept versions read back whole: nothing compiled
        assert _version_child(tmp_path, field)["new"] is False


def test_reader_of_a_table_of_old_versions_prunes_it(tmp_path):
    """A table holding three versions' texts (as the earlier rule kept up to 1024) is rewritten
    by a process that compiles nothing: the texts it used and as many of the newest others."""
    tables = {}
    for field in ("alpha", "beta", "gamma"):
        _version_child(tmp_path / field, field)
        tables.update(_read(tmp_path / field / "dataclasses" / sys.implementation.cache_tag / "records_test_versions.marshal"))
    path = tmp_path / "all" / "dataclasses" / sys.implementation.cache_tag / "records_test_versions.marshal"
    path.parent.mkdir(parents=True)
    path.write_bytes(MAGIC_NUMBER + marshal.dumps(tables))
    assert _texts_naming(tables, "alpha") > 0
    assert _version_child(tmp_path / "all", "gamma")["new"] is False       # every text read, none compiled
    table = _read(path)
    assert _texts_naming(table, "alpha") == 0 and _texts_naming(table, "beta") > 0 and _texts_naming(table, "gamma") > 0
    assert _version_child(tmp_path / "all", "beta")["new"] is False

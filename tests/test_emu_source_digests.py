"""emu/cache_folder.sources_digest: the digests of the sources that name the emulator's cache
folders, taken from a memo while every source stats the same. The reference is hashlib over the
files' bytes; a changed source must never be given its old digest (a stale cache folder), even
when its size and modification time are put back."""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER

import pytest

import isa
from emu import cache_folder, facts, program_cache, table
from emu.options import REFERENCE, FAST


def sha(paths) -> str:
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


@pytest.fixture
def sources(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache_folder, "_memos", {})
    monkeypatch.setattr(cache_folder, "_SETTLED_SECONDS", -1.0)    # the files below were just written
    paths = []
    for i, text in enumerate((b"first source\n", b"second source\n")):
        p = tmp_path / f"s{i}.py"
        p.write_bytes(text)
        paths.append(str(p))
    return paths


def digest_of(paths, memo=True, calls=None):
    def digest():
        if calls is not None:
            calls.append(1)
        return sha(paths)
    return cache_folder.sources_digest("test", paths, digest, memo)


def memo_file() -> str:
    return os.path.join(str(cache_folder.cache_dir()), f"source-digests-{sys.implementation.cache_tag}.marshal")


def test_a_second_process_takes_the_digest_from_the_memo(sources, monkeypatch):
    calls = []
    assert digest_of(sources, calls=calls) == sha(sources)
    assert os.path.exists(memo_file())
    monkeypatch.setattr(cache_folder, "_memos", {})         # a new process
    assert digest_of(sources, calls=calls) == sha(sources)
    assert len(calls) == 1


def test_a_changed_source_is_hashed_again_though_its_size_and_time_are_put_back(sources, monkeypatch):
    assert digest_of(sources) == sha(sources)
    before = os.stat(sources[1])
    with open(sources[1], "wb") as f:
        f.write(b"SECOND source\n")                         # same size
    os.utime(sources[1], ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(sources[1]).st_size == before.st_size
    for fresh in (False, True):                             # this process, then a new one
        if fresh:
            monkeypatch.setattr(cache_folder, "_memos", {})
        got = digest_of(sources)
        assert got == sha(sources) and got != "", fresh
    assert sha(sources) != hashlib.sha256(b"first source\nsecond source\n").hexdigest()[:16]


def test_a_replaced_source_is_hashed_again(sources, monkeypatch):
    old = digest_of(sources)
    tmp = sources[0] + ".new"
    with open(tmp, "wb") as f:
        f.write(b"first SOURCE\n")
    os.replace(tmp, sources[0])
    monkeypatch.setattr(cache_folder, "_memos", {})
    assert digest_of(sources) == sha(sources) != old


def test_recently_written_sources_are_not_memoised(sources, monkeypatch):
    monkeypatch.setattr(cache_folder, "_SETTLED_SECONDS", 3600.0)
    calls = []
    assert digest_of(sources, calls=calls) == sha(sources)
    monkeypatch.setattr(cache_folder, "_memos", {})
    assert digest_of(sources, calls=calls) == sha(sources)
    assert len(calls) == 2 and not os.path.exists(memo_file())


@pytest.mark.parametrize("damage", [b"", b"garbage", MAGIC_NUMBER + b"\x00\x01", MAGIC_NUMBER + marshal.dumps([1, 2])])
def test_a_damaged_memo_is_ignored_and_rewritten(sources, monkeypatch, damage):
    os.makedirs(os.path.dirname(memo_file()), exist_ok=True)
    with open(memo_file(), "wb") as f:
        f.write(damage)
    assert digest_of(sources) == sha(sources)
    with open(memo_file(), "rb") as f:
        data = f.read()
    assert data.startswith(MAGIC_NUMBER) and list(marshal.loads(data[len(MAGIC_NUMBER):]).values()) == [sha(sources)]


def test_the_switch_off_neither_reads_nor_writes_the_memo(sources, monkeypatch):
    # a forged memo entry for these very stats shows whether the memo is read
    key = ("test", tuple(cache_folder._stat(p) for p in sources))
    os.makedirs(os.path.dirname(memo_file()), exist_ok=True)
    with open(memo_file(), "wb") as f:
        f.write(MAGIC_NUMBER + marshal.dumps({key: "forged"}))
    assert digest_of(sources, memo=False) == sha(sources)
    assert digest_of(sources, memo=True) == "forged"
    os.remove(memo_file())
    monkeypatch.setattr(cache_folder, "_memos", {})
    digest_of(sources, memo=False)
    assert not os.path.exists(memo_file())


def test_the_cache_folders_digests_are_their_sources_hashes(tmp_path, monkeypatch):
    """The facts', translations' and program records' folders are named by their sources' hashes,
    memo or not (REFERENCE: the switch off)."""
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    monkeypatch.setattr(cache_folder, "_memos", {})
    from emu import options
    for opts in (FAST, REFERENCE, FAST):
        token = options.activate(opts)
        try:
            generated = os.path.join(facts._ROOT, "isa", "generated")     # and every family's generated tables
            tables = [os.path.join(generated, family, n) for family in sorted(os.listdir(generated))
                      if os.path.isfile(os.path.join(generated, family, "__init__.py"))
                      for n in ("effects.py", "memory_access.py", "control.py", "facts.py", "tables.py")]
            assert len(tables) == 25
            assert facts._digest() == sha([os.path.join(facts._ROOT, n) for n in facts._SOURCES] + tables)
            here = os.path.dirname(table.__file__)
            pcode = os.path.join(here, "pcode")
            grammar = os.path.join(os.path.dirname(os.path.abspath(isa.__file__)), "pcode")   # the one grammar and its parser
            translator = sorted(os.path.join(pcode, n) for n in os.listdir(pcode) if n.endswith(".py"))
            assert table._translator_digest.__wrapped__() == sha(
                translator + [os.path.join(grammar, "pcode.lark"), os.path.join(grammar, "grammar.py"),
                              os.path.join(here, "fold.py")])
            h = hashlib.sha256(f"{program_cache._VERSION} f t".encode())
            for n in program_cache._SOURCES:
                with open(os.path.join(program_cache._ROOT, n), "rb") as f:
                    h.update(f.read())
            assert os.path.basename(program_cache._folder.__wrapped__("/x/f", "/y/t")).startswith(
                f"programs-{h.hexdigest()[:16]}-")
        finally:
            options.deactivate(token)

"""Bytecode kept on disk by its text (emu/cache_folder.compiled; the straight-line runs of
emu/machine_runs.py use it, switch run_code_cache): a file gives only its own text's code, and
a missing, damaged or foreign file is compiled again and rewritten, never a wrong function. The
runs read back from the cache must give what reference mode gives, bit for bit."""
from __future__ import annotations

import builtins
import marshal
from importlib.util import MAGIC_NUMBER

import numpy as np
import pytest

from emu import cache_folder
from emu.options import FAST, REFERENCE, options_from

TEXT = "def f(x):\n    return 3 * x + 1\n"
OTHER = "def f(x):\n    return 5 * x - 2\n"


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("WAVESMITH_CACHE", str(tmp_path))
    return tmp_path / "emu"


@pytest.fixture
def compiles(monkeypatch):
    """Counts compile() calls made by emu/cache_folder.py (a list of one int)."""
    count = [0]

    def counting(*args, **kwargs):
        count[0] += 1
        return builtins.compile(*args, **kwargs)
    monkeypatch.setattr(cache_folder, "compile", counting, raising=False)
    return count


def call(code, x: int) -> int:
    namespace = {}
    exec(code, namespace)
    return namespace["f"](x)


def stored_files(home):
    return sorted(home.glob("test-*/*"))


def test_compiled_once_then_read_back(cache_home, compiles):
    code = cache_folder.compiled(TEXT, "test", "<test>")
    assert call(code, 4) == 13 and compiles[0] == 1 and code.co_filename == "<test>"
    files = stored_files(cache_home)
    assert [f.suffix for f in files] == [".bin"]            # no temporary file left behind
    again = cache_folder.compiled(TEXT, "test", "<test>")
    assert compiles[0] == 1 and again == code and call(again, 4) == 13
    other = cache_folder.compiled(OTHER, "test", "<test>")
    assert compiles[0] == 2 and call(other, 4) == 18 and len(stored_files(cache_home)) == 2


def _other_python(data: bytes) -> bytes:
    return bytes([data[0] ^ 0xFF]) + data[1:]


@pytest.mark.parametrize("damage", ["empty", "garbage", "cut", "other python", "not a tuple", "other text",
                                    "not code"])
def test_damaged_or_foreign_file_is_compiled_again_and_rewritten(cache_home, compiles, damage):
    cache_folder.compiled(TEXT, "test", "<test>")
    (path,) = stored_files(cache_home)
    good = path.read_bytes()
    other_code = compile(OTHER, "<test>", "exec")
    path.write_bytes({"empty": b"", "garbage": b"garbage\x00\xff", "cut": good[:len(good) // 2],
                      "other python": _other_python(good),
                      "not a tuple": MAGIC_NUMBER + marshal.dumps([TEXT, other_code]),
                      "other text": MAGIC_NUMBER + marshal.dumps((OTHER, other_code)),     # a file under a wrong name
                      "not code": MAGIC_NUMBER + marshal.dumps((TEXT, b"x"))}[damage])
    code = cache_folder.compiled(TEXT, "test", "<test>")
    assert call(code, 4) == 13 and compiles[0] == 2           # compiled again, not the file's code
    assert marshal.loads(path.read_bytes()[len(MAGIC_NUMBER):])[0] == TEXT
    cache_folder.compiled(TEXT, "test", "<test>")
    assert compiles[0] == 2                                   # rewritten: read back now


def test_read_only_folder_only_costs_compiling(cache_home, compiles):
    cache_home.parent.mkdir(parents=True, exist_ok=True)
    cache_home.write_text("a file where the folder would be")
    assert call(cache_folder.compiled(TEXT, "test", "<test>"), 2) == 7
    assert call(cache_folder.compiled(TEXT, "test", "<test>"), 2) == 7 and compiles[0] == 2


@pytest.mark.parametrize("wave", [32, 64])
def test_runs_from_the_cache_agree_with_reference(cache_home, compiles, wave):
    """The straight-line program of tests/test_emu_runs.py run with its runs compiled, then read
    back from the cache, then with the cache off, against reference mode; the cache's files are
    the runs' (and nothing is written with the switch off)."""
    from dsl.operands import exec_lo, lit, s, v, vcc, vcc_lo
    from tests.test_emu_fuzz import _run
    from tests.test_emu_runs import _straight_line

    def build(ns):
        return _straight_line(ns, v, s, vcc_lo if wave == 32 else vcc, exec_lo, lit)
    off = options_from(off=["run_code_cache"])
    without = _run("gfx1100", wave, build, off)
    assert not list(cache_home.glob("*runs-*"))
    assert compiles[0] == 0
    first = _run("gfx1100", wave, build, FAST)
    files = sorted(cache_home.glob("*runs-*/*.bin"))         # plain runs, and fused ones (emu/machine_fuse.py)
    assert files and compiles[0] == len(files)
    texts = [marshal.loads(f.read_bytes()[len(MAGIC_NUMBER):])[0] for f in files]
    assert all(t.startswith("def run(chunk, sel, idx") for t in texts)
    for f in files:                 # a damaged file: compiled again, the same results
        f.write_bytes(f.read_bytes()[:20])
    damaged = _run("gfx1100", wave, build, FAST)
    assert compiles[0] == 2 * len(files)
    second = _run("gfx1100", wave, build, FAST)
    assert compiles[0] == 2 * len(files)      # read back
    reference = _run("gfx1100", wave, build, REFERENCE)
    for got in (first, damaged, second, without):
        np.testing.assert_array_equal(got, reference)

"""The emulator's cache folder, `$WAVESMITH_CACHE/emu` or `~/.cache/wavesmith/emu`: translated
semantics (emu/table.py), instruction facts (emu/facts.py), the bytecode of generated
straight-line runs (emu/machine_runs.py, through `compiled`), the digests of the sources that
name those caches' folders (`sources_digest`). Delete it freely."""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType


def cache_dir() -> Path:
    return Path(os.environ.get("WAVESMITH_CACHE") or Path.home() / ".cache" / "wavesmith") / "emu"


def compiled(text: str, kind: str, filename: str) -> CodeType:
    """compile(text, filename, "exec"), the code kept in the cache folder between processes: one
    marshal file per text (`<kind>-<python>/<sha256 of the text>.bin`) holding the text and its
    code, the text compared on reading, so a file gives only its own text's code. A missing,
    damaged or foreign file (another Python's bytecode, another text) is compiled again and
    rewritten whole (under a temporary name, then renamed); a read-only folder only costs the
    compiling."""
    path = os.path.join(str(cache_dir()), f"{kind}-{sys.implementation.cache_tag}",
                        hashlib.sha256(text.encode()).hexdigest() + ".bin")
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(MAGIC_NUMBER):
            stored = marshal.loads(data[len(MAGIC_NUMBER):])
            if type(stored) is tuple and len(stored) == 2 and stored[0] == text and type(stored[1]) is CodeType:
                return stored[1]
    except (OSError, ValueError, EOFError, TypeError):     # absent, unreadable, cut short, not marshal data
        pass
    code = compile(text, filename, "exec", dont_inherit=True)
    try:
        write_atomically(path, MAGIC_NUMBER + marshal.dumps((text, code)))
    except ValueError:      # a value marshal refuses: only the cache is missed
        pass
    return code


# a source modified this recently is hashed again even when its stat matches: a file written twice
# within the file system's timestamp granularity could keep its times (git's "racily clean" files)
_SETTLED_SECONDS = 2.0


_memos: dict[str, dict] = {}       # memo file -> its table, read once per process


def _stat(path: str) -> tuple:
    st = os.stat(path)
    return path, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def sources_digest(label: str, paths, digest, memo: bool = True) -> str:
    """digest() (the digest of the source files `paths` that names a cache folder; `label`: what
    else it depends on, a version, other folders' names), kept in one
    memo file (`source-digests-<python>.marshal`) under the file's stat (path, size, modification
    and change times in ns, inode, device) of every source: a later process whose sources all
    stat the same takes the digest without reading and hashing them (~1 ms of a first launch). A
    write changes a file's change time, which no program can set back, and a replaced file has
    another inode; a source changed within _SETTLED_SECONDS of being hashed is not memoised. The
    memo is a dict {(label, stats of the sources): digest}, damaged or foreign files ignored and rewritten
    whole (under a temporary name, then renamed). memo=False (EmuOptions.source_stamps off):
    digest() every time, the memo neither read nor written."""
    if not memo:
        return digest()
    try:
        stats = tuple(_stat(p) for p in paths)
    except OSError:         # a source cannot be stat'ed: let digest() say why
        return digest()
    path = os.path.join(str(cache_dir()), f"source-digests-{sys.implementation.cache_tag}.marshal")
    table = _memos.get(path)
    if table is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
            if data.startswith(MAGIC_NUMBER):
                table = marshal.loads(data[len(MAGIC_NUMBER):])
        except (OSError, ValueError, EOFError, TypeError):     # absent, unreadable, cut short, not marshal data
            pass
        if type(table) is not dict:
            table = {}
        _memos[path] = table
    key = (label, stats)
    known = table.get(key)
    if type(known) is str:
        return known
    value = digest()
    settled = time.time_ns() - int(_SETTLED_SECONDS * 1e9)
    if all(mtime < settled and ctime < settled for _, _, mtime, ctime, _, _ in stats):
        # the same sources' older stats (an earlier checkout's) are dropped
        table = {k: v for k, v in table.items() if not (type(k) is tuple and len(k) == 2 and k[0] == label
                                                         and [s[0] for s in k[1]] == [s[0] for s in stats])}
        table[key] = value
        _memos[path] = table
        try:
            write_atomically(path, MAGIC_NUMBER + marshal.dumps(table))
        except ValueError:
            pass
    return value


def write_atomically(path: str, data: bytes) -> bool:
    """Write `data` to `path` whole or not at all (a temporary name, then a rename), making its
    folder. False when that cannot be done (a read-only home): a cache is only missed."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return False


def files_digest(paths) -> str:
    """The digest of the bytes of the files `paths`, in order (what names a cache's folder)."""
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]

"""The emulator's cache folder, `$WAVESMITH_CACHE/emu` or `~/.cache/wavesmith/emu`: translated
semantics (emu/table.py), instruction facts (emu/facts.py), the bytecode of generated
straight-line runs (emu/machine_runs.py, through `compiled`). Delete it freely."""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
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
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(MAGIC_NUMBER + marshal.dumps((text, code)))
        os.replace(tmp, path)
    except (OSError, ValueError):
        try:
            os.remove(tmp)
        except OSError:
            pass
    return code

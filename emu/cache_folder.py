"""The emulator's cache folder, `$WAVESMITH_CACHE/emu` or `~/.cache/wavesmith/emu`: translated
semantics (emu/table.py), instruction facts (emu/facts.py). Delete it freely."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("WAVESMITH_CACHE") or Path.home() / ".cache" / "wavesmith") / "emu"

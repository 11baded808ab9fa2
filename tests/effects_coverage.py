"""Which instructions the emulator runs (the ones it does not refuse: `emu --coverage`'s
generated and hand-written semantics), per target and format."""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=None)
def emulator_supports(arch: str) -> frozenset:
    """{(name, format)} of the instructions of `arch` the emulator has a semantic for."""
    from emu.table import load_semantics
    return frozenset((d.name, d.format) for d, e in load_semantics(arch).entries() if e.status != "unsupported")

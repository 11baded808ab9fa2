"""Reading the facts the generator works out once per instruction (isa/generated/<family>/
effects.py, memory_access.py, control.py): where an InstrDef sits in its family's tables, and
each family's table module, imported on the first question about one of its instructions."""
from __future__ import annotations

import importlib

from .spec import ISALoadError, loaded_specs

_positions: dict = {}          # InstrDef (hashed by identity) -> (family, position in INSTRUCTIONS)
_indexed: set[str] = set()     # families whose instructions are in _positions
_modules: dict[tuple[str, str], object] = {}


def position(d) -> tuple[str, int] | None:
    """(family, position in its Spec's instructions) of an InstrDef a loaded Spec holds, else None."""
    got = _positions.get(d)
    if got is None:
        specs = loaded_specs()
        if len(_indexed) != len(specs):
            for family, spec in list(specs.items()):
                if family not in _indexed:
                    _indexed.add(family)
                    for i, x in enumerate(spec.instructions):
                        _positions[x] = (family, i)
            got = _positions.get(d)
    return got


def table(family: str, name: str):
    """The generated module `name` of `family` (isa.generated.<family>.<name>)."""
    module = _modules.get((family, name))
    if module is None:
        path = f"isa.generated.{family.replace('.', '_')}.{name}"
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as e:
            if e.name != path:
                raise
            raise ISALoadError(f"{family}: {path} is missing (generated before it existed): run "
                               f"`wavesmith gen --arch {family}`") from None
        _modules[(family, name)] = module
    return module


def sorted_values(value) -> tuple:
    """A set as the tables write it: a tuple in a fixed order (the sets hold strings and tuples
    with None in them, so ordered by their text)."""
    return tuple(sorted(value, key=repr))

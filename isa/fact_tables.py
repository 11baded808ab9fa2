"""Reading the facts the generator works out once per instruction (isa/generated/<family>/
effects.py, memory_access.py, control.py, facts.py): where an InstrDef sits in its family's
tables, and each family's table module, imported on the first question about one of its
instructions.

One rule for every reader (isa.effects, isa.memory_access, isa.control, isa.facts): an InstrDef a
loaded Spec holds is answered from its family's tables, and so is a copy of one (an InstrDef whose
fields the reader's facts are read from equal a loaded instruction's: code and description for
isa.facts and isa.control, name and format too for isa.memory_access, the code alone for
isa.effects, which is asked by code); an entry without code that no family holds (the decoder's
filler for an all-zero dword) has every fact's default; anything else -- code no loaded family's
manual has -- is refused with FactsError naming it. Code is never parsed at run time:
the tables are the one answer a process reads (a parse on the spot would be a second path, taken
only by unusual inputs, importing the generator into a process that assembles, disassembles or
emulates and hiding a table that is missing the instruction); a test that wants a reading of
code of its own asks the generator's readers (isa/gen/effects.py, memory_access.py, control.py,
isa/code_facts.py) directly."""
from __future__ import annotations

import importlib

from .spec import ISALoadError, loaded_specs



class FactsError(Exception):
    """Code or an instruction with code that no loaded family's generated tables hold."""


_positions: dict = {}          # InstrDef (hashed by identity) -> (family, position in INSTRUCTIONS)
_indexed: set[str] = set()     # families whose instructions are in _positions
_copies: dict = {}             # fields read -> {their values: (family, position)}: the first family's
_copied: dict = {}             # fields read -> families whose instructions are in _copies[fields]
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


def locate(d, read: tuple = ("pcode", "description")) -> tuple[str, int] | None:
    """(family, position) of InstrDef `d` in the generated tables: d's own if a loaded Spec holds
    it, else that of a loaded instruction whose fields `read` (those the facts are read from) are
    d's; None for an entry without code that none holds (every fact its default). FactsError for
    code no loaded family has (see the module docstring)."""
    got = position(d)
    if got is not None:
        return got
    specs = loaded_specs()
    copies, copied = _copies.setdefault(read, {}), _copied.setdefault(read, set())
    if len(copied) != len(specs):
        for family, spec in list(specs.items()):
            if family not in copied:
                copied.add(family)
                for i, x in enumerate(spec.instructions):
                    copies.setdefault(tuple(getattr(x, f) for f in read), (family, i))
    got = copies.get(tuple(getattr(d, f) for f in read))
    if got is not None or not d.pcode:
        return got
    raise FactsError(f"{d.name} ({d.format}): no generated facts for its code: it is no instruction of a loaded "
                     f"family's manual (loaded: {', '.join(sorted(specs)) or 'none'}); the generator's readers "
                     f"(isa/gen) read code of one's own")


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

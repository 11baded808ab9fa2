"""Which operands an instruction's pseudocode reads and writes: the generator reads each
instruction's code once (isa/gen/effects.py, over the syntax tree of the one grammar,
isa/pcode/pcode.lark: statements, if/elsif/else, loops, expressions) and
writes the answers to isa/generated/<family>/effects.py; `effects` answers from there.

    from isa.effects import effects
    e = effects(spec.lookup("v_mad_u64_u32")[0].pcode)   # { D1.u1, D0.u64 } = 65'B(...)
    e.full      # frozenset({'D0', 'D1'}): written whole on every path
    e.reads     # frozenset({'S0', 'S1', 'S2'})

Names are the pseudocode's operands: D0 D1 S0 S1 S2 VCC SCC EXEC M0 (VDST counts as D0,
SRC0..2 as S0..2, EXEC_LO / VCC_LO as EXEC / VCC; `S[i]`, the sources as an array (v_fma_mix*),
reads S0, S1 and S2). A write is *full* when every path
assigns the whole operand: `D0.u = ...`, a concatenation `{ D1.u1, D0.u64 } = ...`, or an
if/else whose every branch assigns it. A lane-bit write `D0.u64[laneId] = ...` (VOPC, carry
outs, v_cmpx's EXEC) is full: the hardware writes the whole mask, 0 for inactive lanes.
Any other write -- a bit range, an index, inside a loop, in only some branches, to
`VGPR[lane][VDST]` -- is *partial*: the old value survives in part, so it is read as well.
A read of an operand after a full write of it on every path is not a read of the input.
Anything the parser does not understand counts as reading every operand it names, and
writing (partially) every operand it assigns: never less than the truth. WMMA's
`eval "D0.f32(16x16) = ..."` is read as the statement it quotes (a matrix of 16-bit elements
fills half of each register: a partial write). The other fields are described in the class.

Code no loaded family has (a test's own text) is parsed by the generator's reader. The one split
of the code into statements (`statements`, `assignment`: isa/pcode_statements.py) is reached from
here too, for the modules that still read it (isa.code_facts)."""
from __future__ import annotations

from functools import lru_cache

from .fact_tables import table
from .fact_types import Effects
from .spec import loaded_specs



_FIELDS = tuple(Effects.__dataclass_fields__)
_SETS = frozenset(name for name, f in Effects.__dataclass_fields__.items()
                  if f.type == "frozenset")            # written as sorted tuples
_NO_CODE = Effects(frozenset(), frozenset(), frozenset(), False)


def stored(e: Effects) -> dict:
    """`e` as the generated table holds it: its fields other than the defaults, sets as tuples."""
    from .fact_tables import sorted_values
    out = {}
    for name in _FIELDS:
        value = getattr(e, name)
        if name in ("reads", "full", "partial", "cross_lane") or value != getattr(_NO_CODE, name):
            out[name] = sorted_values(value) if name in _SETS else value
    return out


def restored(fields: dict) -> Effects:
    return Effects(**{name: frozenset(v) if name in _SETS else v for name, v in fields.items()})


_by_code: dict[str, tuple[str, int]] = {}     # pcode -> (family, record in its EFFECTS)
_families_read: set[str] = set()
_made: dict[tuple[str, int], Effects] = {}   # each record made once (many codes share one)


def _record(pcode: str) -> tuple[str, int] | None:
    specs = loaded_specs()
    if len(_families_read) != len(specs):
        for family, spec in list(specs.items()):
            if family not in _families_read:
                _families_read.add(family)
                by_instruction = table(family, "effects").BY_INSTRUCTION
                for d, record in zip(spec.instructions, by_instruction):
                    if record is not None:
                        _by_code.setdefault(d.pcode, (family, record))
    return _by_code.get(pcode)


@lru_cache(maxsize=None)
def effects(pcode: str | None) -> Effects:
    """Operands read and written by `pcode` (see the module docstring): the generated table's
    answer for the code of an instruction of a loaded family."""
    if not pcode:
        return _NO_CODE
    known = _record(pcode)
    if known is None:
        from .gen.effects import effects as parse
        return parse(pcode)
    made = _made.get(known)
    if made is None:
        family, record = known
        made = _made[known] = restored(table(family, "effects").EFFECTS[record])
    return made


def __getattr__(name: str):
    # the one parse's statements, for isa.code_facts (the generator's reader, imported on first use)
    if name in ("statements", "assignment"):
        from . import pcode_statements
        return getattr(pcode_statements, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

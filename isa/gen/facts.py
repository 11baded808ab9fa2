"""The facts about each instruction that isa.facts serves (isa/generated/<family>/facts.py),
worked out here once per instruction of a manual: from its pseudocode (isa/code_facts.py,
isa/float_modes.py) and from its description's wording (isa/gen/descriptions.py)."""
from __future__ import annotations

from .. import code_facts, float_modes
from ..facts import DEFAULTS
from . import descriptions, modifiers

# facts of the code alone: each a function of the pseudocode, which an instruction without code
# has none of (the defaults)
_OF_CODE = ("atomic_update", "address_adds_offset", "offset_pattern", "field_loads", "dword_loads",
            "dword_stores", "first_nan_test", "call_chain", "lane_modulus", "register_files",
            "unfilled_arrays", "instruction_calls", "register_number_sources", "reads_other_lanes",
            "lane_select_sources", "byte_select", "pc_relative_immediate", "lane_value_result")
# facts of the code and the description: each a function of both
_OF_ENTRY = {"accumulates": code_facts.accumulates, "float_modes": float_modes.float_modes,
             **{name: getattr(descriptions, name) for name in ("scalar_result", "opsel_flags", "cache_control",
                                                               "result_without_code", "loads_to_lds",
                                                               "source_is_immediate", "lookup_table", "sets_mode")}}
# facts of the whole manual entry: code, description, notes and operand types
_OF_ROW = {"modifier_use": modifiers.modifier_use}
assert set(_OF_CODE) | set(_OF_ENTRY) | set(_OF_ROW) == set(DEFAULTS), "isa.facts.DEFAULTS and the generator's facts differ"


def _stored(value):
    """A fact's value as the table holds it: plain tuples (frozensets sorted, records as fields)."""
    if isinstance(value, frozenset):
        return tuple(sorted(value))
    if hasattr(value, "__dataclass_fields__"):
        return tuple(getattr(value, f) for f in value.__dataclass_fields__)
    return value


def compute(name: str, pcode: str | None, description: str | None, notes: str | None = None,
            operand_types: dict | None = None):
    """Fact `name` of an instruction with this code, description, notes and operand types, as
    the table stores it."""
    if name in _OF_ROW:
        return _OF_ROW[name](pcode, description, notes, operand_types)
    if name in _OF_ENTRY:
        return _stored(_OF_ENTRY[name](pcode, description))
    return _stored(getattr(code_facts, name)(pcode)) if pcode else DEFAULTS[name]


def build(instructions: list[dict]) -> dict[str, dict[int, object]]:
    """{fact: {position in INSTRUCTIONS: value}} for every fact of isa.facts.DEFAULTS, where the
    value is not the default."""
    out: dict[str, dict[int, object]] = {name: {} for name in DEFAULTS}
    for i, d in enumerate(instructions):
        for name in DEFAULTS:
            value = compute(name, d["pcode"], d["description"], d.get("notes"), d.get("operand_types"))
            if value != DEFAULTS[name]:
                out[name][i] = value
    return out

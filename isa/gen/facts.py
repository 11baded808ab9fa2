"""The facts about each instruction that isa.facts serves (isa/generated/<family>/facts.py),
worked out here once per instruction of a manual: from its pseudocode (isa/code_facts.py,
isa/float_modes.py) and from its description's wording (isa/gen/descriptions.py)."""
from __future__ import annotations

from .. import code_facts, errata as errata_mod, float_modes
from ..traits import entry as traits_entry
from ..facts import DEFAULTS
from .parse import SpecParseError
from . import descriptions, modifiers
from .source_limits import source_limits

# facts of the code alone: each a function of the pseudocode, which an instruction without code
# has none of (the defaults)
_OF_CODE = ("atomic_update", "address_adds_offset", "offset_pattern", "field_loads", "dword_loads",
            "dword_stores", "first_nan_test", "call_chain", "lane_modulus", "register_files",
            "unfilled_arrays", "instruction_calls", "register_number_sources", "reads_other_lanes",
            "lane_select_sources", "byte_select", "pc_relative_immediate", "lane_value_result", "sdwa_selects")
# facts of the code and the description: each a function of both
_OF_ENTRY = {"accumulates": code_facts.accumulates, "float_modes": float_modes.float_modes,
             "source_limits": source_limits,
             **{name: getattr(descriptions, name) for name in ("scalar_result", "opsel_flags", "cache_control",
                                                               "result_without_code", "loads_to_lds",
                                                               "source_is_immediate", "lookup_table", "sets_mode",
                                                               "agpr_operands", "loads_scales")}}
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


def _short(value, default):
    """A record's tuple without the empty fields past its default's length (FloatModes'
    bit_results, ModifierUse's signed_by_neg: () for all but a few instructions): the table keeps
    the default's form."""
    if isinstance(value, tuple) and isinstance(default, tuple):
        while len(value) > len(default) and value[-1] == ():
            value = value[:-1]
    return value


def compute(name: str, pcode: str | None, description: str | None, notes: str | None = None,
            operand_types: dict | None = None):
    """Fact `name` of an instruction with this code, description, notes and operand types, as
    the table stores it."""
    if name in _OF_ROW:
        return _short(_OF_ROW[name](pcode, description, notes, operand_types), DEFAULTS[name])
    if name in _OF_ENTRY:
        return _short(_stored(_OF_ENTRY[name](pcode, description)), DEFAULTS[name])
    return _stored(getattr(code_facts, name)(pcode)) if pcode else DEFAULTS[name]


def build(instructions: list[dict], arch: str | None = None) -> tuple[dict[str, dict[int, object]], list[dict]]:
    """({fact: {position in INSTRUCTIONS: value}} for every fact of isa.facts.DEFAULTS, where the
    value is not the default; the modifier_use and opsel_flags errata of `arch` applied)."""
    out: dict[str, dict[int, object]] = {name: {} for name in DEFAULTS}
    for i, d in enumerate(instructions):
        for name in DEFAULTS:
            value = compute(name, d["pcode"], d["description"], d.get("notes"), d.get("operand_types"))
            if value != DEFAULTS[name]:
                out[name][i] = value
    if not arch:
        return out, []
    return out, _apply_modifier_errata(arch, instructions, out["modifier_use"]) + \
        _apply_opsel_flag_errata(arch, instructions, out["opsel_flags"]) + \
        _apply_source_limit_errata(arch, instructions, out["source_limits"])


_MODIFIER_FIELDS = ("clamp", "omod", "neg_abs", "opsel", "signed_by_neg")     # isa.facts.ModifierUse's, in order


def _erratum_hits(e, arch: str, instructions: list[dict]) -> list[int]:
    """Positions of every encoding of the erratum's instruction, checked against its page."""
    name = e.target[0]
    hits = [i for i, d in enumerate(instructions) if d["name"] == name]
    if not hits:
        raise SpecParseError(f"erratum {e.id}: no {name} in the {arch} manual")
    pages = sorted({instructions[i]["pcode_page"] or instructions[i]["page"] for i in hits})
    if e.page[arch] not in pages:   # (an entry of each encoding: the VOP3 chapter's is the one cited)
        raise SpecParseError(f"erratum {e.id}: {name}'s entries are on pages {pages} of the {arch} manual, "
                             f"the errata table says {e.page[arch]}")
    return hits


def _apply_opsel_flag_errata(arch: str, instructions: list[dict], table: dict[int, int]) -> list[dict]:
    """opsel_flags errata: the OPSEL bits LLVM's syntax writes as flags, for every encoding of an
    instruction whose description does not redefine them (still the erratum's `pdf`)."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "opsel_flags":
            continue
        hits = _erratum_hits(e, arch, instructions)
        if any(table.get(i, DEFAULTS["opsel_flags"]) != e.pdf for i in hits):
            raise SpecParseError(f"erratum {e.id} is stale: {e.target[0]}'s description in the {arch} manual now "
                                 f"redefines {sorted({table.get(i, 0) for i in hits})} OPSEL bits, not {e.pdf!r}")
        for i in hits:
            table[i] = e.fix
        applied.append({"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _apply_source_limit_errata(arch: str, instructions: list[dict], table: dict[int, tuple]) -> list[dict]:
    """source_limits errata: LLVM's limits on an instruction's sources (every encoding), where the
    code's are still the erratum's `pdf`."""
    applied = []
    for e in errata_mod.for_arch(arch):
        if e.kind != "source_limits":
            continue
        hits = _erratum_hits(e, arch, instructions)
        if any(table.get(i, DEFAULTS["source_limits"]) != e.pdf for i in hits):
            raise SpecParseError(f"erratum {e.id} is stale: {e.target[0]}'s code in the {arch} manual now gives "
                                 f"{sorted({table.get(i, ()) for i in hits})}, not {e.pdf!r}")
        for i in hits:
            table[i] = e.fix
        applied.append({"id": e.id, "page": e.page[arch], "target": ".".join(e.target), "evidence": e.evidence})
    return applied


def _apply_modifier_errata(arch: str, instructions: list[dict], table: dict[int, tuple]) -> list[dict]:
    """modifier_use errata: one field of every encoding of an instruction set to what LLVM's syntax
    takes, where the entry's value is still the erratum's `pdf` and the entry on its page; an
    erratum scoped 'e64' sets the 64-bit encodings' alone (the 32-bit encoding's fact is its SDWA
    form's, which LLVM reads otherwise: v_cvt_i32_f32_e64 takes mul:2, v_cvt_i32_f32_sdwa not)."""
    applied = []
    e32 = traits_entry(arch).roles.valu_e32
    for e in errata_mod.for_arch(arch):
        if e.kind != "modifier_use":
            continue
        name, field, *scope = e.target
        k = _MODIFIER_FIELDS.index(field)
        hits = _erratum_hits(e, arch, instructions)
        page = e.page[arch]
        values = {i: list(table.get(i, DEFAULTS["modifier_use"])) for i in hits
                  if not scope or instructions[i]["format"] not in e32}
        # (an encoding whose entry already gives the fix keeps it: RDNA4's VOP2 v_sub_co_ci_u32
        # "Supports saturation", its VOP3SD entry does not say so)
        if any(v[k] not in (e.pdf, e.fix) for v in values.values()) or all(v[k] == e.fix for v in values.values()):
            raise SpecParseError(f"erratum {e.id} is stale: {name}'s {field} from the {arch} manual is now "
                                 f"{sorted({repr(v[k]) for v in values.values()})}, not {e.pdf!r}")
        for i, value in values.items():
            value[k] = e.fix
            value = tuple(value)
            if value == DEFAULTS["modifier_use"]:
                table.pop(i, None)
            else:
                table[i] = value
        applied.append({"id": e.id, "page": page, "target": ".".join(e.target), "evidence": e.evidence})
    return applied

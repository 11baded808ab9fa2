"""The facts the generator works out once from each instruction's manual entry and writes next to
its tables, so that no other process parses pseudocode or descriptions for them:
isa/generated/<family>/effects.py (isa.effects: operands read and written), memory_access.py
(isa.memory_access: what a memory instruction does with memory and its registers) and control.py
(isa.control: the wave's flow). Each is indexed by the instruction's position in INSTRUCTIONS and
holds only what differs from the fact's default."""
from __future__ import annotations

import re

from .parse import SpecParseError


def _defs(instructions):
    from ..spec import InstrDef
    return [InstrDef(**row) for row in instructions]


def operand_effects(instructions) -> tuple[list, list]:
    """(records, by_instruction): each distinct isa.effects.Effects once (isa.effects.stored), and
    per instruction the record of its code (None without code)."""
    from ..effects import stored
    from .effects import effects
    records, numbers, by_instruction = [], {}, []
    for row in instructions:
        if not row["pcode"]:
            by_instruction.append(None)
            continue
        record = stored(effects(row["pcode"]))
        key = repr(record)
        if key not in numbers:
            numbers[key] = len(records)
            records.append(record)
        by_instruction.append(numbers[key])
    return records, by_instruction


def half_results(family: str, instructions, roles) -> dict[int, str]:
    """{position: 'kept' | 'zeroed'} of the VALU instructions whose code writes D0 whole as a 16-bit
    value (isa.effects' half_writes) into a VGPR (not a scalar result: RDNA4's v_s_*_f16): what
    becomes of the other half of the register, by the family's rule (isa/errata.py HALF_RESULTS:
    'kept' everywhere, or 'opsel': kept where the instruction has a VOP3 form only, zeroed where
    it has a VOP1/VOP2 form, in either encoding)."""
    from ..errata import HALF_RESULTS
    from .descriptions import scalar_result
    from .effects import effects
    rule = HALF_RESULTS[family][0]
    out = {}
    for i, row in enumerate(instructions):
        e = effects(row["pcode"])
        if row["pcode"]:
            written = "D0" in e.half_writes
        else:                   # no code (RDNA3's v_interp_p2_rtz_f16_f32): D0's type in the manual's tables
            written = _HALF_TYPE.fullmatch((row.get("operand_types") or {}).get("D0") or "") is not None
        if row["format"] not in roles.valu or not written or scalar_result(row["pcode"], row["description"]):
            continue
        vop3_only = row["format"] in roles.valu_e64 and not row["promoted_from"]
        in_part = bool(row["pcode"]) and "D0" not in e.full       # `D0.u[15 : 0] = ...`: the code keeps the rest
        out[i] = "kept" if rule == "kept" or vop3_only or in_part else "zeroed"
    return out


_HALF_TYPE = re.compile(r"(f|b|i|u|bf)16")


def memory_facts(instructions, tables: dict, image_formats) -> dict[str, dict[int, object]]:
    """{fact: {position: value}} of isa.memory_access's facts, where not the default: the facts of
    reader.IMAGE_ONLY, image_address and takes_d16 for instructions of `image_formats` (the family's
    traits.roles.image) alone, image_address by the family's image address tables and suffix key
    (`tables`["image_addresses"], ["sample_suffixes"]: gen/image_opcodes.py; none on CDNA), takes_d16
    by the image chapter's D16 field (gen/image_d16.py; its errata are applied after)."""
    from .. import memory_access as table
    from . import image_d16, image_opcodes
    from . import memory_access as reader
    groups = image_opcodes.groups(tables.get("image_addresses", ()))
    key = tuple(tables.get("sample_suffixes", ()))
    out: dict[str, dict[int, object]] = {name: {} for name in (*reader.FACTS, "image_address")}
    out["takes_d16"] = image_d16.facts(instructions, tables, image_formats)
    for i, d in enumerate(_defs(instructions)):
        values = {name: reader.compute(name, d) for name in reader.FACTS
                  if name not in reader.IMAGE_ONLY or d.format in image_formats}
        if d.format in image_formats:    # other names hold the key's letters too (V_CMP_O_F32)
            values["image_address"] = image_opcodes.image_address(d, groups, key, values["ray_query"])
            _cross_check(d, values["image_address"], values["takes_sampler"], values["gathers_four"], reader)
        for name, value in values.items():
            value = table.stored(name, value)
            if value != table.stored(name, table.DEFAULTS[name]):
                out[name][i] = value
    return out


def _cross_check(d, a, sampler: bool, four: bool, reader) -> None:
    """The address tables' group against the descriptions' wording, two readings of the manual that
    must agree: the mipid groups are the "user-specified miplevel" / "for a given mip level"
    opcodes, GET_RESINFO's the "resource info" one, Gather's the sampling ones returning four
    texels of one channel, MSAA_LOAD's (MSAA types alone) the sampler-less ones."""
    if not a.group:                     # a ray query: no group
        return
    said = (reader.mip_level(d), reader.resource_info(d), sampler and four, four and not sampler)
    table = (a.mip_level, a.resource_info, a.gather, a.msaa == "only")
    if said != table:
        raise SpecParseError(f"{d.name}: its description says (mip level, resource info, gather, MSAA load) "
                             f"{said}, its image address table group {a.group} (page {a.page}) {table}")


def control_facts(instructions) -> dict[int, tuple]:
    """{position: isa.control.stored(...)} of the instructions with flow facts."""
    from .. import control as table
    from .control import read_control, waits_from_table
    out = {}
    for i, d in enumerate(_defs(instructions)):
        row = table.stored(read_control(d, None), waits_from_table(d))
        if row is not None:
            out[i] = row
    return out


def build(family: str, instructions, tables: dict, roles) -> dict:
    """The facts of `instructions` of `family`; `tables`: the family's other tables (the image
    address tables and the sample suffix key), `roles`: its traits.roles."""
    records, by_instruction = operand_effects(instructions)
    image_formats = roles.image
    return {"effects": records, "effects_by_instruction": by_instruction,
            "half_results": half_results(family, instructions, roles),
            "memory_access": memory_facts(instructions, tables, image_formats), "control": control_facts(instructions)}


def _by_position(values: dict) -> str:
    return "".join(f"        {i!r}: {v!r},\n" for i, v in values.items())


def render(spec: dict, header) -> dict[str, str]:
    """{file name: text} of the three tables; `header(what)`: the generated files' heading."""
    by = spec["effects_by_instruction"]
    effects = (header("Operands each instruction's code reads and writes (isa/effects.py), worked out once.") +
               "\n# EFFECTS: each distinct Effects once, its fields other than the defaults (sets as tuples);\n"
               "# BY_INSTRUCTION: per position in INSTRUCTIONS, its code's record (None: no code)\n"
               "EFFECTS = (\n" + "".join(f"    {r!r},\n" for r in spec["effects"]) + ")\n\n"
               "BY_INSTRUCTION = (\n" + "".join(f"    {', '.join(map(repr, by[k:k + 20]))},\n"
                                                  for k in range(0, len(by), 20)) + ")\n\n"
               "# HALF_RESULTS: {position in INSTRUCTIONS: what a 16-bit VGPR result does to the other half,\n"
               "# 'kept' or 'zeroed'} (isa/errata.py HALF_RESULTS: the family's rule, its pages and evidence)\n"
               "HALF_RESULTS = {\n" + _by_position(spec["half_results"]).replace("        ", "    ") + "}\n")
    memory = (header("What each memory instruction does with memory and its registers (isa/memory_access.py).") +
              "\n# {fact: {position in INSTRUCTIONS: value}}, where not the fact's default (records as tuples)\n"
              "MEMORY_ACCESS = {\n" + "".join(f"    {name!r}: {{\n" + _by_position(values) + "    },\n"
                                              for name, values in spec["memory_access"].items()) + "}\n")
    control = (header("What each instruction does to the wave's flow (isa/control.py).") +
               "\n# {position in INSTRUCTIONS: (Control's fields..., waits from the s_waitcnt table)}\n"
               "CONTROL = {\n" + _by_position(spec["control"]).replace("        ", "    ") + "}\n")
    return {"effects.py": effects, "memory_access.py": memory, "control.py": control}

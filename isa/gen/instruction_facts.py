"""The facts the generator works out once from each instruction's manual entry and writes next to
its tables, so that no other process parses pseudocode or descriptions for them:
isa/generated/<family>/effects.py (isa.effects: operands read and written), memory_access.py
(isa.memory_access: what a memory instruction does with memory and its registers) and control.py
(isa.control: the wave's flow). Each is indexed by the instruction's position in INSTRUCTIONS and
holds only what differs from the fact's default."""
from __future__ import annotations


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


def memory_facts(instructions) -> dict[str, dict[int, object]]:
    """{fact: {position: value}} of isa.memory_access's facts, where not the default."""
    from .. import memory_access as table
    from . import memory_access as reader
    out: dict[str, dict[int, object]] = {name: {} for name in reader.FACTS}
    for i, d in enumerate(_defs(instructions)):
        for name in reader.FACTS:
            value = table.stored(name, reader.compute(name, d))
            if value != table.stored(name, table.DEFAULTS[name]):
                out[name][i] = value
    return out


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


def build(instructions) -> dict:
    records, by_instruction = operand_effects(instructions)
    return {"effects": records, "effects_by_instruction": by_instruction,
            "memory_access": memory_facts(instructions), "control": control_facts(instructions)}


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
                                                  for k in range(0, len(by), 20)) + ")\n")
    memory = (header("What each memory instruction does with memory and its registers (isa/memory_access.py).") +
              "\n# {fact: {position in INSTRUCTIONS: value}}, where not the fact's default (records as tuples)\n"
              "MEMORY_ACCESS = {\n" + "".join(f"    {name!r}: {{\n" + _by_position(values) + "    },\n"
                                              for name, values in spec["memory_access"].items()) + "}\n")
    control = (header("What each instruction does to the wave's flow (isa/control.py).") +
               "\n# {position in INSTRUCTIONS: (Control's fields..., waits from the s_waitcnt table)}\n"
               "CONTROL = {\n" + _by_position(spec["control"]).replace("        ", "    ") + "}\n")
    return {"effects.py": effects, "memory_access.py": memory, "control.py": control}

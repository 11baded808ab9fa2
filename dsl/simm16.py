"""The 16-bit immediates of SOPP and SOPK instructions written as numbers or as LLVM's symbolic
forms: sendmsg(...), hwreg(...), s_waitcnt's counters, s_waitcnt_depctr's fields and
s_delay_alu's. One rule per field (its width, which names and numbers it takes), shared by the
RDNA encoder (encode.py) and the gfx9 one (asm_gfx9.py). A refusal is an OperandError naming
the instruction and carrying the operand refused (the text assembler reports its column)."""
from __future__ import annotations

from .operands import Lit, OperandError
from .statement import Attr, BitOr, Call


def number16(v, mn: str, unsigned: bool = False, what: str = "simm16") -> int:
    """A 16-bit immediate written as a number: 0..65535 where it is read unsigned, else also
    -32768..-1 (its 16-bit pattern); the field's bits."""
    given = v.value if isinstance(v, Lit) else v
    low = 0 if unsigned else -0x8000
    if type(given) is not int or not low <= given <= 0xffff:
        legal = "0..65535 (read as unsigned)" if unsigned else "-32768..65535"
        raise OperandError(f"{mn}: {what}: expected a 16-bit immediate {legal}, got {given}", v)
    return given & 0xffff


def _field(value, bits: int, mn: str, what: str, operand, low: int = 0) -> int:
    if type(value) is not int or not low <= value < 1 << bits:
        raise OperandError(f"{mn}: {what} {value} is out of range {low}..{(1 << bits) - 1}", operand)
    return value


def hwreg(v, mn: str, names: dict[str, int]) -> int:
    """hwreg(id or name[, offset, size]) -> SIMM16 (id 6 bits, offset 5, size - 1 5); a number
    is the field itself (0..65535); lit(...) is refused (SIMM16 is no source with a literal slot)."""
    if isinstance(v, Lit):
        raise OperandError(f"{mn}: expected hwreg(register[, offset, size]) or a 16-bit number, not lit(...)", v)
    if type(v) is int:
        return number16(v, mn, True, "hwreg")
    if not isinstance(v, Call) or v.name != "hwreg" or len(v.args) not in (1, 3):
        raise OperandError(f"{mn}: expected hwreg(register[, offset, size]) (offset and size together), got "
                           f"{_text(v)}", v)
    reg, *rest = v.args
    offset, size = rest or (0, 32)
    if isinstance(reg, Attr):
        if reg.name not in names:
            raise OperandError(f"{mn}: unknown hardware register {reg.name}; known: {', '.join(names)}", v)
        reg = names[reg.name]
    _field(reg, 6, mn, "hardware register id", v)
    _field(offset, 5, mn, "hwreg bit offset", v)
    _field(size, 6, mn, "hwreg bit size", v, low=1)
    if size > 32:
        raise OperandError(f"{mn}: hwreg bit size {size} is out of range 1..32", v)
    return reg | offset << 6 | (size - 1) << 11


def message(v, mn: str, names: dict[str, int], id_bits: int, operations: dict[int, dict[str, int]] = {},
            streams: frozenset = frozenset(), field_bits: int = 16) -> int:
    """sendmsg(message[, operation[, stream]]) or its number (0..65535) -> SIMM16 (of which the
    field keeps `field_bits`): message | operation << 4 | stream << 8. A message given by name
    takes an operation if and only if it has some (`operations`: message -> {name: value},
    GS_OP_NOP not among GS's), and a stream only if it is in `streams` and its operation is not
    0 (GS_OP_NOP); a numbered one any 3-bit operation and 2-bit stream."""
    if type(v) is int or isinstance(v, Lit):
        return number16(v, mn, True, "message") & ((1 << field_bits) - 1)
    if not isinstance(v, Call) or v.name != "sendmsg" or not 1 <= len(v.args) <= 3:
        raise OperandError(f"{mn}: expected sendmsg(message[, operation[, stream]]), got {_text(v)}", v)
    msg, op, stream = (list(v.args) + [None, None])[:3]
    symbolic = isinstance(msg, Attr)
    if symbolic:
        if msg.name not in names:
            raise OperandError(f"{mn}: unknown message {msg.name}; known: {', '.join(names)}", v)
        msg = names[msg.name]
    _field(msg, id_bits, mn, "message id", v)
    ops = operations.get(msg, {}) if symbolic else {n: k for table in operations.values() for n, k in table.items()}
    if isinstance(op, Attr):
        if op.name not in ops:
            raise OperandError(f"{mn}: operation {op.name} is not one of {', '.join(ops) or 'none'}", v)
        op = ops[op.name]
    if symbolic and (op is None) != (not ops):
        raise OperandError(f"{mn}: message {v.args[0].name} " + ("does not support operations" if op is not None
                                                                 else "needs an operation"), v)
    if symbolic and op is not None and op not in ops.values():
        raise OperandError(f"{mn}: operation {op} is not one of {', '.join(map(str, ops.values()))}", v)
    if symbolic and stream is not None and (msg not in streams or not op):
        raise OperandError(f"{mn}: message {v.args[0].name} takes no stream with this operation", v)
    op = _field(op or 0, 3, mn, "message operation", v)
    stream = _field(0 if stream is None else stream, 2, mn, "message stream", v)
    return (msg | op << 4 | stream << 8) & ((1 << field_bits) - 1)


def counters(calls: list, mn: str, limits: dict[str, int]) -> dict[str, int]:
    """s_waitcnt's name(N) counters -> {name: N}; name_sat(N) saturates N at the field's
    largest value; N beyond the field is refused."""
    counts = {}
    for c in calls:
        name = c.name[:-4] if isinstance(c, Call) and c.name.endswith("_sat") else getattr(c, "name", None)
        if not isinstance(c, Call) or name not in limits or len(c.args) != 1 or type(c.args[0]) is not int:
            raise OperandError(f"{mn}: expected {', '.join(f'{n}(N)' for n in limits)} (or name_sat(N)), got "
                               f"{_text(c)}", c)
        n = c.args[0]
        if c.name.endswith("_sat"):
            n = min(max(n, 0), limits[name])
        elif not 0 <= n <= limits[name]:
            raise OperandError(f"{mn}: {name}({n}) is out of range 0..{limits[name]}", c)
        counts[name] = n
    return counts


def depctr(calls: list, mn: str, fields: list[tuple[str, int, int]]) -> int:
    """s_waitcnt_depctr / s_wait_alu: name(N) fields, each at most once; unnamed ones wait for
    nothing (all ones); N must fit the field."""
    layout = {name: (lo, width) for name, lo, width in fields}
    value = sum(((1 << width) - 1) << lo for lo, width in layout.values())
    seen = set()
    for c in calls:
        if not isinstance(c, Call) or c.name not in layout or len(c.args) != 1:
            raise OperandError(f"{mn}: expected {', '.join(layout)} (N), got {_text(c)}", c)
        if c.name in seen:
            raise OperandError(f"{mn}: {c.name} given twice", c)
        seen.add(c.name)
        lo, width = layout[c.name]
        n = _field(c.args[0], width, mn, c.name, c)
        value = value & ~(((1 << width) - 1) << lo) | n << lo
    return value


def delay_alu(v, mn: str, instids: list[str], skips: list[str]) -> int:
    """s_delay_alu's instid0(..) | instskip(..) | instid1(..) (joined by bars, each at most once)
    or its number."""
    if type(v) is int or isinstance(v, Lit):
        return number16(v, mn)
    parts = v.parts if isinstance(v, BitOr) else (v,)
    shifts = {"instid0": (0, instids), "instskip": (4, skips), "instid1": (7, instids)}
    value, seen = 0, set()
    for c in parts:
        if not isinstance(c, Call) or c.name not in shifts or len(c.args) != 1:
            raise OperandError(f"{mn}: expected instid0(...) | instskip(...) | instid1(...), got {_text(c)}", v)
        shift, table = shifts[c.name]
        arg = getattr(c.args[0], "name", c.args[0])
        if arg not in table:
            raise OperandError(f"{mn}: {c.name}({arg}) is not one of {', '.join(table)}", v)
        if c.name in seen:
            raise OperandError(f"{mn}: {c.name} given twice", v)
        seen.add(c.name)
        value |= table.index(arg) << shift
    return value


def _text(v) -> str:
    if isinstance(v, Call):
        return f"{v.name}({', '.join(_text(a) for a in v.args)})"
    if isinstance(v, BitOr):
        return " | ".join(_text(p) for p in v.parts)
    return getattr(v, "name", str(v))

"""Operand values from field values, shared by the modules that build a decoded instruction's
`Instr` from its fields (instr_fields.py, instr_fields_memory.py, instr_fields_graphics.py): the
value the text parser reads for each operand the printer spells (registers, specials, inline
constants and literals by operand code, buffer operands), and the Instr itself as the parser
reads the line (`instr_value`)."""
from __future__ import annotations

from functools import lru_cache

from isa import InstrDef, Spec

from . import syntax
from .asm_parse import name_value
from .instr import NO_MODIFIERS, Instr, Modifiers
from .operands import Lit, LiteralInt, Reg
from .printer_rdna4 import cache_policy
from .printer_operands import buffer_data_dwords, code_table, float_text, literal_text
from .statement import Attr, Call

# a register is an immutable value: each one decoded bytes name is made (and range-checked) once and
# shared, so a disassembly builds no register twice and spells each once (Reg.text)
cached_reg = lru_cache(maxsize=None)(Reg)


def aligned_reg(cls: str, idx: int, n: int) -> Reg:
    """A register tuple of n, scalar tuples aligned (pairs even, wider ones to 4) as LLVM reads them."""
    if n > 1 and cls in ("s", "ttmp"):     # scalar tuples are aligned, as the printer reads them
        idx &= ~1 if n == 2 else ~3
    return cached_reg(cls, idx, n)


def number_value(text: str):
    """The value the parser reads for a number the printer spells (0x.., lit(0x..), a float)."""
    if text.startswith("lit("):
        return Lit(int(text[4:-1], 0))
    if text.startswith(("0x", "-0x")) or text.lstrip("-").isdigit():
        return int(text, 0)
    return float(text)


@lru_cache(maxsize=1 << 14)    # (a pure function of its arguments, whose values are immutable)
def scalar_source(spec: Spec, code: int, n: int, literal: int | None, table: tuple[str, str],
                  bits: int, is_float: bool, packed: str = "", f16_inline: bool = True, wide_float: bool = False):
    """The operand value of a source code spanning n registers (printer_operands' src_text
    for a non-VGPR code, as a value; `wide_float`: inline floats as a 64-bit operand's); None
    where the code has no plain value."""
    entry = code_table(spec, *table).get(code)
    reserved = syntax.RESERVED_SRC_NAMES.get(code)
    if entry is None or entry[0] == "special" and entry[1] == "RESERVED":
        return None if reserved is None else name_value(reserved)
    kind, base, off = entry
    if kind == "sgpr":
        return aligned_reg("s", base + off, n)
    if kind == "ttmp":
        return aligned_reg("ttmp", base + off, n)
    if kind == "int":
        return base + off if base >= 0 else base - off
    if kind == "float":
        if bits == 16 and not is_float and f16_inline:
            return spec.traits.inline_float_bits[16][code]
        return float(float_text(base, 64 if n == 2 or wide_float else bits))
    if kind == "literal":
        text = literal_text(literal or 0, bits, is_float, spec.traits, packed)
        value = number_value(text)
        if type(value) is int and text.startswith("0x") and spec.traits.inline_int(value) is not None:
            return LiteralInt(value)     # spelled in hex as a literal, an inline integer's number: 0x4
        return value
    if kind == "special":
        t = syntax.SPECIAL_TEXT.get(base, base.lower())
        return name_value(syntax.PAIR_TEXT.get(t, t) if n >= 2 else t)
    return None if reserved is None else name_value(reserved)


def instr_value(d: InstrDef, mnemonic: str, ops, mods: dict | None = None) -> Instr:
    """The Instr of decoded instruction `d` as the parser reads its line: the parser takes the
    first term after the mnemonic for an operand, so an instruction without operands has its
    first flag or call there (`ds_gws_sema_p gds`, `s_waitcnt vmcnt(0) lgkmcnt(0)`)."""
    if mods and not ops:
        key, value = next(iter(mods.items()))
        if value is True or type(value) is Call:
            ops = (name_value(key) if value is True else value,)
            mods = {k: v for k, v in mods.items() if k != key}
    return Instr(mnemonic, tuple(ops), Modifiers(mods) if mods else NO_MODIFIERS, defn=d, encoding=d.format)


def flags(f: dict, names: tuple[str, ...]) -> dict:
    """{name: True} of the one-bit fields set, in the order given (glc, slc, dlc ...)."""
    return {n.lower(): True for n in names if f.get(n)}


def flat_offset(f: dict, fmt: str) -> dict:
    """The offset modifier of a FLAT-family instruction: 13 bits, signed for GLOBAL and
    SCRATCH, unsigned for FLAT; none when zero."""
    off = f["OFFSET"]
    if fmt != "FLAT" and off & (1 << 12):
        off -= 1 << 13
    return {"offset": off} if off else {}


def sgprs(spec: Spec, code: int, n: int):
    """The scalar operand (SGPRs, TTMPs, specials) of a scalar register code spanning n registers."""
    return scalar_source(spec, code, n, None, ("SOP2", "SSRC0"), 32, True)


def buffer_vdata(d: InstrDef, f: dict) -> Reg:
    """A buffer access's data VGPRs (printer_operands.buffer_data_dwords)."""
    return cached_reg("v", f["VDATA"], buffer_data_dwords(d, f))


def buffer_vaddr(f: dict):
    """The index and/or offset VGPRs of a buffer access, or off without either."""
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    return cached_reg("v", f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else name_value("off")


def buffer_modifiers(spec: Spec, f: dict, typed: bool, offset: int) -> dict:
    """The modifiers after a buffer instruction's operands (printer_operands.buffer_modifiers_text):
    a typed access's data format unless it is the default (1), as [BUF_FMT_name] where the
    manual's table names it; idxen, offen; a nonzero offset."""
    mods = {}
    fmtv = f.get("FORMAT", 1)
    if typed and fmtv != 1:
        names = dict(spec.tables.get("data_formats", []))
        named = fmtv in names and fmtv < syntax.BUFFER_FORMAT_LIMIT
        mods["format"] = [Attr(f"BUF_FMT_{names[fmtv]}")] if named else fmtv
    mods.update(flags(f, ("IDXEN", "OFFEN")))
    if offset:
        mods["offset"] = offset
    return mods


def t16_reg(code8: int) -> Reg:
    """A 16-bit VGPR in a 7+1-bit field (bit 7 selects the high half), as printer_operands.t16_vgpr."""
    return cached_reg("v", code8 & 0x7f, 1, "h" if code8 & 0x80 else "l")


def bit_list(value: int, n: int) -> list[int]:
    """The low n bits of value, lowest first (op_sel:[..] and the like)."""
    return [(value >> i) & 1 for i in range(n)]


def cache_policy_values(d: InstrDef, f: dict) -> dict:
    """th:/scope: of RDNA4's cache policy fields where not the default (printer_rdna4.cache_policy's
    names; a TH code without a name is its number)."""
    return {key: int(name, 16) if name.startswith("0x") else Attr(name) for key, name in cache_policy(d, f).items()}

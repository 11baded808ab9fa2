"""Operand values from field values, shared by the modules that build a decoded instruction's
`Instr` from its fields (instr_fields.py, instr_fields_memory.py, instr_fields_graphics.py): the
value the text parser reads from LLVM's text for each operand (registers, specials, inline
constants and literals by operand code, buffer operands, cache policy), and the Instr itself as
the parser reads the line (`instr_value`)."""
from __future__ import annotations

import math
from functools import lru_cache

from isa import InstrDef, Spec
from isa.memory_access import memory_access

from . import syntax
from .asm_parse import name_value
from .instr import NO_MODIFIERS, Instr, Modifiers
from .operands import Lit, LiteralInt, Reg
from .signature import buffer_data_dwords
from .statement import Attr, Call

_INV_2PI = 1 / (2 * math.pi)

# a register is an immutable value: each one decoded bytes name is made (and range-checked) once and
# shared, so a disassembly builds no register twice and spells each once (Reg.text)
cached_reg = lru_cache(maxsize=None)(Reg)


@lru_cache(maxsize=None)
def code_table(spec: Spec, fmt: str, field: str) -> dict[int, tuple]:
    """{operand code: (kind, base, offset from the range's first code)} of a format's source
    field, from the isa operand table (kind: sgpr, ttmp, int, float, literal, special ...)."""
    out = {}
    for lo, hi, kind, base, _text in spec.operands.get(fmt, {}).get(field, []):
        for c in range(lo, hi + 1):
            out[c] = (kind, base, c - lo)
    return out


def aligned_reg(cls: str, idx: int, n: int) -> Reg:
    """A register tuple of n, scalar tuples aligned (pairs even, wider ones to 4) as LLVM reads them
    (the low bits of an odd field read as clear)."""
    if n > 1 and cls in ("s", "ttmp"):
        idx &= ~1 if n == 2 else ~3
    return cached_reg(cls, idx, n)


def inline_float(x: float, bits: int) -> float:
    """An inline float constant as the parser reads LLVM's spelling of it on an operand of `bits`:
    1/(2*pi) rounded to the digits syntax.INV_2PI_TEXT gives it, any other constant itself."""
    return float(syntax.INV_2PI_TEXT[bits]) if x == _INV_2PI else x


@lru_cache(maxsize=None)
def _inline_floats(traits, bits: int) -> dict[int, float]:
    """{bit pattern: value} of the family's inline floats at `bits` (isa traits)."""
    return {pattern: traits.inline_floats[code] for code, pattern in traits.inline_float_bits[bits].items()}


def literal_value(value: int, bits: int, is_float: bool, traits, packed: str = ""):
    """The operand value of a 32-bit literal dword on an operand of `bits`, as LLVM writes it:
    Lit(dword) where the number alone would read back as an inline constant, else the number.
    16-bit operands hold the low half, but the whole dword in lit(...) when the low half is an
    inline value (f16) or the dword is a 32-bit inline value (integers). 64-bit operands: a float
    literal is the high half of a double (the constant itself when that double is an inline
    constant, never lit), an integer one is zero-extended. `packed` ('f16', 'bf16', 'int'): which
    inline constants a pair of 16-bit halves reads. A number spelled in hex that is an inline
    integer's (a 16-bit integer operand's 0x10004 is 0x4) is a LiteralInt."""
    inline32 = _inline_int(value, traits) or value in _inline_floats(traits, 32)
    number = value
    if bits == 16:
        low = value & 0xffff
        if is_float:
            signed = low - 0x10000 if low & 0x8000 else low
            inline = traits.inline_int(signed) is not None or low in _inline_floats(traits, 16)
        else:
            inline = inline32
        number = low
    elif bits == 64:
        if is_float:
            if value == 0:
                return 0
            f64 = _inline_floats(traits, 64)
            double = value << 32
            return inline_float(f64[double], 64) if double in f64 else _number(value, traits)
        inline = value <= 64
    elif packed and packed != "int":   # f16 halves: integer and f16 inline values; bf16: integer ones only
        inline = _inline_int(value, traits) or packed == "f16" and value in _inline_floats(traits, 16)
    else:   # 32-bit operands, and two integer halves: the 32-bit inline values
        inline = inline32
    return Lit(value) if inline else _number(number, traits)


def _inline_int(value: int, traits) -> bool:
    """Whether a 32-bit value is one of the family's inline integers (-16..64)."""
    return traits.inline_int(value - (1 << 32) if value & 0x80000000 else value) is not None


def _number(value: int, traits):
    """A literal number as the parser reads its hex spelling: a LiteralInt where it is an inline integer's."""
    return LiteralInt(value) if traits.inline_int(value) is not None else value


@lru_cache(maxsize=1 << 14)    # (a pure function of its arguments, whose values are immutable)
def scalar_source(spec: Spec, code: int, n: int, literal: int | None, table: tuple[str, str],
                  bits: int, is_float: bool, packed: str = "", f16_inline: bool = True, wide_float: bool = False):
    """The operand value of a non-VGPR source code spanning n registers: a scalar register tuple,
    an inline constant (`bits`: the operand's value width, 16 for true16 operands; a 16-bit
    integer reads an inline float's f16 bits; `wide_float`: inline floats as a 64-bit
    operand's), a literal (literal_value) or a special; None where the code has no value."""
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
        return inline_float(base, 64 if n == 2 or wide_float else bits)
    if kind == "literal":
        return literal_value(literal or 0, bits, is_float, spec.traits, packed)
    if kind == "special":
        t = syntax.SPECIAL_TEXT.get(base, base.lower())
        return name_value(syntax.PAIR_TEXT.get(t, t) if n >= 2 else t)
    return None if reserved is None else name_value(reserved)


def instr_value(d: InstrDef, mnemonic: str, ops, mods: dict | None = None) -> Instr:
    """The Instr of decoded instruction `d` as the parser reads its line: the parser takes the
    first term after the mnemonic for an operand, so an instruction without operands has its
    first flag or call there (`ds_gws_sema_p gds`, `s_waitcnt vmcnt(0) lgkmcnt(0)`)."""
    if not mods:
        return Instr(mnemonic, tuple(ops), NO_MODIFIERS, d, d.format)
    if not ops:
        key, value = next(iter(mods.items()))
        if value is True or type(value) is Call:
            ops = (name_value(key) if value is True else value,)
            mods = {k: v for k, v in mods.items() if k != key}
    return Instr(mnemonic, tuple(ops), Modifiers(mods) if mods else NO_MODIFIERS, d, d.format)


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
    """A buffer access's data VGPRs (signature.buffer_data_dwords)."""
    return cached_reg("v", f["VDATA"], buffer_data_dwords(d, f))


def buffer_vaddr(f: dict):
    """The index and/or offset VGPRs of a buffer access, or off without either."""
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    return cached_reg("v", f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else name_value("off")


@lru_cache(maxsize=None)
def buffer_format_names(spec: Spec) -> dict[int, str]:
    """MTBUF / typed VBUFFER format code -> BUF_FMT_name: the manual's table's names of the codes
    LLVM names (the others are written as numbers, format:64)."""
    return {v: f"BUF_FMT_{n}" for v, n, *_ in spec.tables.get("data_formats", []) if v < syntax.BUFFER_FORMAT_LIMIT}


@lru_cache(maxsize=None)
def buffer_format_codes(spec: Spec) -> dict[str, int]:
    """BUF_FMT_name -> its format code: what the assemblers read (buffer_format_names reversed)."""
    return {name: code for code, name in buffer_format_names(spec).items()}


def buffer_modifiers(spec: Spec, f: dict, typed: bool, offset: int) -> dict:
    """The modifiers after a buffer instruction's operands: a typed access's data format unless it is the default (1), as [BUF_FMT_name] where the
    manual's table names it; idxen, offen; a nonzero offset."""
    mods = {}
    fmtv = f.get("FORMAT", 1)
    if typed and fmtv != 1:
        names = buffer_format_names(spec)
        mods["format"] = [Attr(names[fmtv])] if fmtv in names else fmtv
    mods.update(flags(f, ("IDXEN", "OFFEN")))
    if offset:
        mods["offset"] = offset
    return mods


def t16_reg(code8: int) -> Reg:
    """A 16-bit VGPR in a 7+1-bit field (VOP1/2/C/DPP: bit 7 selects the high half)."""
    return cached_reg("v", code8 & 0x7f, 1, "h" if code8 & 0x80 else "l")


def bit_list(value: int, n: int) -> list[int]:
    """The low n bits of value, lowest first (op_sel:[..] and the like)."""
    return [(value >> i) & 1 for i in range(n)]


def cache_policy_values(d: InstrDef, f: dict) -> dict:
    """{'th': value, 'scope': value} of RDNA4's cache policy fields that are not the default (0):
    atomics, stores and loads (isa.memory_access's direction) name the TH codes apart; a load's or
    store's code without a name is its number, an atomic's is named TH_ATOMIC_0x.."""
    th, scope = f.get("TH", 0), f.get("SCOPE", 0)
    out = {}
    if th:
        direction = memory_access(d).direction
        if direction == "atomic":
            if th & 4:
                name = f"TH_ATOMIC_CASCADE_{'NT' if th & 2 else 'RT'}" if scope >= 2 else f"TH_ATOMIC_0x{th:x}"
            elif th & 2:
                name = "TH_ATOMIC_NT" + ("_RETURN" if th & 1 else "")
            else:
                name = "TH_ATOMIC_RETURN"
        else:
            name = (syntax.TH_STORE_NAMES if direction == "store" else syntax.TH_LOAD_NAMES)[th]
            if name and th == 3 and scope == 3:
                name = name.rsplit("_", 1)[0] + "_BYPASS"
        out["th"] = Attr(name) if name else th
    if scope:
        out["scope"] = Attr(syntax.SCOPE_NAMES[scope])
    return out

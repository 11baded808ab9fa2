"""Operand text in LLVM's AMDGPU syntax: registers, special registers, inline constants and
literals by operand code, the flag modifiers. Shared by printer.py and printer_graphics.py."""
from __future__ import annotations

import math
from functools import lru_cache

from isa import Spec

from . import syntax
from .signature import data_registers


@lru_cache(maxsize=None)
def code_table(spec: Spec, fmt: str, field: str) -> dict[int, tuple]:
    """{operand code: (kind, base, offset from the range's first code)} of a format's source
    field, from the isa operand table (kind: sgpr, ttmp, int, float, literal, special ...)."""
    out = {}
    for lo, hi, kind, base, _text in spec.operands.get(fmt, {}).get(field, []):
        for c in range(lo, hi + 1):
            out[c] = (kind, base, c - lo)
    return out


def reg_text(cls: str, idx: int, n: int) -> str:
    if n > 1 and cls in ("s", "ttmp"):   # scalar tuples are aligned (pairs even, wider ones to 4):
        idx &= ~1 if n == 2 else ~3      # LLVM reads the low bits of an odd field as clear
    return f"{cls}{idx}" if n == 1 else f"{cls}[{idx}:{idx + n - 1}]"


def float_text(x: float, bits: int = 32) -> str:
    if x == 1 / (2 * math.pi):
        return "0.15915494309189532" if bits == 64 else "0.15915494"
    return repr(float(x))


def src_text(spec: Spec, code: int, n: int, *, t16_hi: bool | None = None, literal: int | None = None,
             table=None, bits: int = 32, is_float: bool = True, wide_float: bool = False,
             packed: str = "", f16_inline: bool = True) -> str:
    """Text of a 9-bit (or 8-bit scalar) source code spanning n registers. `bits` is the
    operand's value width (16 for true16 operands); `wide_float` spells inline floats as a
    64-bit operand's (WMMA accumulators)."""
    if code >= spec.traits.vgpr_base:
        idx = code - spec.traits.vgpr_base
        if t16_hi is not None:
            return f"v{idx}.{'h' if t16_hi else 'l'}"
        return reg_text("v", idx, n)
    entry = code_table(spec, *(table or (spec.traits.source_format, "SRC0"))).get(code)
    if entry is None:
        if code in syntax.RESERVED_SRC_NAMES:
            return syntax.RESERVED_SRC_NAMES[code]
        return f"<reserved {code}>"
    kind, base, off = entry
    if kind == "special" and base == "RESERVED" and code in syntax.RESERVED_SRC_NAMES:   # a table row for a reserved code
        return syntax.RESERVED_SRC_NAMES[code]
    if kind == "sgpr":
        return reg_text("s", base + off, n)
    if kind == "ttmp":
        return reg_text("ttmp", base + off, n)
    if kind == "int":
        return str(base + off if base >= 0 else base - off)
    if kind == "float":
        if bits == 16 and not is_float and f16_inline:   # a 16-bit integer reads its f16 bits
            return f"0x{spec.traits.inline_float_bits[16][code]:x}"
        return float_text(base, 64 if n == 2 or wide_float else bits)
    if kind == "literal":
        return literal_text(literal or 0, bits, is_float, spec.traits, packed)
    if kind == "special":
        t = syntax.SPECIAL_TEXT.get(base, base.lower())
        return syntax.PAIR_TEXT.get(t, t) if n >= 2 else t
    if code in syntax.RESERVED_SRC_NAMES:   # RDNA4's 64-bit literal code (254): LLVM 22 names it
        return syntax.RESERVED_SRC_NAMES[code]
    return f"<{kind} {code}>"


def sreg_text(spec: Spec, code: int, n: int) -> str:
    return src_text(spec, code, n, table=("SOP2", "SSRC0"))


def vreg(idx: int, n: int = 1) -> str:
    return reg_text("v", idx, n)


def t16_vgpr(code8: int) -> str:
    """A 16-bit VGPR in a 7+1-bit field (VOP1/2/C/DPP: bit 7 selects the high half)."""
    return f"v{code8 & 0x7f}.{'h' if code8 & 0x80 else 'l'}"


@lru_cache(maxsize=None)
def _inline_floats(traits, fmt) -> dict[int, float]:
    """{bit pattern: value} of the family's inline floats in format `fmt` (isa traits)."""
    return {bits: traits.inline_floats[code] for code, bits in traits.inline_float_bits[fmt].items()}


def literal_text(value: int, bits: int, is_float: bool, traits, packed: str = "") -> str:
    """A 32-bit literal dword as LLVM prints it for an operand of `bits`; lit(...) where the
    text would otherwise read back as an inline constant.
    16-bit operands print the low half, but the whole dword in lit(...) when the low half is
    an inline value (f16) or the dword is a 32-bit inline value (integers). 64-bit operands:
    a float literal is the high half of a double (printed as the number when that double is
    an inline constant, never lit), an integer one is zero-extended. `packed` ('f16', 'bf16',
    'int'): which inline constants a pair of 16-bit halves reads; `traits`: the family's isa
    Traits (its inline constants)."""
    inline32 = inline_int(value, traits) is not None or value in _inline_floats(traits, 32)
    if bits == 16:
        low = value & 0xffff
        if is_float:
            signed = low - 0x10000 if low & 0x8000 else low
            inline = traits.inline_int(signed) is not None or low in _inline_floats(traits, 16)
        else:
            inline = inline32
        return f"lit(0x{value:x})" if inline else f"0x{low:x}"
    if bits == 64:
        if is_float:
            if value == 0:
                return "0"
            double = value << 32
            f64 = _inline_floats(traits, 64)
            return float_text(f64[double], 64) if double in f64 else f"0x{value:x}"
        return f"lit(0x{value:x})" if value <= 64 else f"0x{value:x}"
    if packed == "int":   # two integer halves: the 32-bit inline values
        inline = inline32
    elif packed:   # f16 halves: integer and f16 inline values; bf16: integer ones only
        inline = inline_int(value, traits) is not None or packed == "f16" and value in _inline_floats(traits, 16)
    else:
        inline = inline32
    return f"lit(0x{value:x})" if inline else f"0x{value:x}"


def inline_int(value: int | None, traits) -> int | None:
    """The inline-constant integer a 32-bit value equals (the family's: -16..64), else None."""
    if value is None:
        return None
    signed = value - (1 << 32) if value & 0x80000000 else value
    return signed if traits.inline_int(signed) is not None else None


def flags_text(f: dict, names: tuple[str, ...]) -> str:
    return "".join(" " + n.lower() for n in names if f.get(n))



def buffer_data_dwords(d, fields: dict) -> int:
    """Dwords of a MUBUF/MTBUF/VBUFFER instruction's VDATA: its data registers (signature.
    data_registers: a compare-and-swap's compare value beside the data), one more with TFE
    (status dword)."""
    n = data_registers(d)
    return n + 1 if fields.get("TFE") else n


def buffer_modifiers_text(spec: Spec, fields: dict, typed: bool, offset: int) -> str:
    """The modifiers after a buffer instruction's operands: a typed buffer's data format unless it
    is the default (1), named where the manual's table names it; idxen, offen; a nonzero offset."""
    text = ""
    fmtv = fields.get("FORMAT", 1)
    if typed and fmtv != 1:
        names = dict(spec.tables.get("data_formats", []))
        named = fmtv in names and fmtv < syntax.BUFFER_FORMAT_LIMIT
        text += f" format:[BUF_FMT_{names[fmtv]}]" if named else f" format:{fmtv}"
    if fields.get("IDXEN", 0):
        text += " idxen"
    if fields.get("OFFEN", 0):
        text += " offen"
    return text + (f" offset:{offset}" if offset else "")

"""LLVM-syntax text of an `Instr` (instr.py), the value the text parser, the DSL and
`disasm.decode_instr` build: `instr_text(parse(line)[0], spec) == line` for LLVM's own text,
and `instr_text(decode_instr(bytes)[0])` is the disassembly of those bytes.

An Instr already holds each operand as a value (registers, specials, numbers, `Mod`, `Lit`)
and its modifiers in order, so printing is spelling: a register is `v1`, `s[0:1]`, `v1.h`; a
modifier `key`, `key:value` or `key:[a,b]`. What the value alone does not say is how LLVM
spells a number, which depends on where it stands; it is read from the instruction:
  - a source value: decimal when it is an inline integer of the family, else hex (a literal);
  - the constant K of an fmamk/fmaak (the pseudocode's SIMM32, `isa.effects.constant_at`): hex;
  - a SOPP/SOPK immediate: its style in `syntax.SOPP_STYLE` / `syntax.SOPK_STYLE`;
  - the formats and modifiers `syntax.HEX_FORMATS` / `syntax.HEX_MODIFIERS` name: hex.
The instruction is `instr.defn` where an encoder or the decoder chose it, else the first of
`spec.lookup(mnemonic)` (a parsed line). Plain data in, text out: imports no printer."""
from __future__ import annotations

import math
from functools import lru_cache

from isa import InstrDef, Spec
from isa.effects import effects

from . import syntax
from .operands import Lit, Mod, Reg, Special
from .signature import vopd_base
from .statement import Attr

_INV_2PI = 1 / (2 * math.pi)
# the inline integers every family has (isa traits `inline_ints`); used only without a Spec
_INLINE_INTS = range(-16, 65)


def instr_text(instr, spec: Spec | None = None) -> str:
    """The instruction (and a VOPD pair's Y half after ` :: `) as LLVM writes it. `spec`
    names the family: its inline integers and, for an Instr without `defn`, the instruction
    its mnemonic names."""
    d = instr.defn
    plans = _PLANS.get(spec)
    plan = plans.get(d) if plans is not None and d is not None else None
    if plan is None:
        plan = _plan(d if d is not None else _lookup(spec, instr.mnemonic), spec)
        if d is not None:
            _PLANS.setdefault(spec, {})[d] = plan
    styles, hex_mods, inline = plan
    out = instr.mnemonic
    ops = instr.operands
    if ops:
        if styles:
            n = len(styles)
            parts = [_operand(o, styles[i] if i < n else "src", inline) for i, o in enumerate(ops)]
        else:   # (the usual case: every operand a source or register, a register spelled once)
            parts = [o.text if type(o) is Reg else _operand(o, "src", inline) for o in ops]
        out += " " + ", ".join(parts)
    mods = instr.modifiers
    if mods:
        out += "".join([_modifier(k, v, k in hex_mods) for k, v in mods.items()])
    dual = instr.dual
    return out if dual is None else out + " :: " + instr_text(dual, spec)


_PLANS: dict = {}     # spec -> {InstrDef: its plan}: an InstrDef hashes by identity


def _inline_ints(spec: Spec | None):
    if spec is None:
        return _INLINE_INTS
    return frozenset(v for first, last, v0, step in spec.traits.inline_ints
                     for v in range(v0, v0 + (last - first + 1) * step, step))


def _lookup(spec: Spec | None, mnemonic: str) -> InstrDef | None:
    if spec is None:
        return None
    defs = spec.lookup(mnemonic)
    return defs[0] if defs else None


@lru_cache(maxsize=None)
def _plan(d: InstrDef | None, spec: Spec | None) -> tuple[tuple[str, ...], frozenset, object]:
    """(how each operand position spells a number, the modifiers whose numbers are hex, the
    family's inline integers) of an instruction; positions past the tuple are sources ("src").
    A VOPD half has no pseudocode of its own: its constant is where the VOP1/VOP2 instruction
    it performs reads it (with a Spec)."""
    hex_mods, inline = syntax.HEX_MODIFIERS, _inline_ints(spec)
    if d is None:
        return (), hex_mods, inline
    fmt, name = d.format, d.name.lower()
    if fmt in syntax.HEX_FORMATS:    # the first operand is data (an immediate where it is a number)
        return ("imm",) + ("hex",) * 3, hex_mods | {"offset"}, inline
    if fmt == "SOPP":
        return (syntax.SOPP_STYLE.get(name, "hex"),), hex_mods, inline
    if fmt == "SOPK":
        names, style = syntax.SOPK_STYLE.get(name, syntax.SOPK_DEFAULT)
        return tuple(style if o == "imm" else "hex" if o == "lit" else "src" for o in names), hex_mods, inline
    if fmt == "VOPD" and spec is not None:
        d = vopd_base(spec, d)
    k = effects(d.pcode).constant_at if d.pcode else None
    if k is None:
        return (), hex_mods, inline
    # the constant K: operand 1 + its place among the sources (after the one destination)
    return ("src",) * (1 + k) + ("hex",), hex_mods, inline


def _hex(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


def _number(v, style: str, inline) -> str:
    if type(v) is float:
        return "0.15915494" if v == _INV_2PI else repr(v)
    if style == "src":
        return str(v) if v in inline else _hex(v)
    if style == "hex":
        return _hex(v)
    if style == "imm":
        return str(v) if v <= 64 else _hex(v)
    return str(v)        # dec, opt, branch


def _operand(o, style: str, inline) -> str:
    t = type(o)
    if t is Reg:
        return o.text
    if t is Special:
        return o.name
    if t is int and style == "src":
        return str(o) if o in inline else _hex(o)
    if t is int or t is float:
        return _number(o, style, inline)
    if t is Mod:
        v = o.value
        text = _operand(v, style, inline)
        if o.abs:
            text = f"|{text}|"
        if o.neg:   # a constant's NEG bit is neg(...): -1.0 would be another constant
            text = f"neg({text})" if type(v) in (int, float, Lit) and not o.abs else "-" + text
        return text
    if t is Lit:
        v = o.value
        return f"lit({_hex(v) if type(v) is int else repr(v)})"
    if t is Attr:       # a bare word the parser read as an operand (ds_gws_sema_p gds)
        return o.name
    if t is list or t is tuple:    # an image address
        return "[" + ", ".join(_operand(v, style, inline) for v in o) + "]"
    return str(o)


def _modifier(key: str, value, hex_number: bool) -> str:
    if value is True:
        return " " + key
    if value is False:
        return ""
    t = type(value)
    if t is int:
        return f" {key}:{_hex(value) if hex_number else value}"
    if t is list or t is tuple:
        return f" {key}:[{','.join(str(v) for v in value)}]"
    return f" {key}:{value}"

"""LLVM-syntax text of an `Instr` (instr.py), the value the text parser, the DSL and
`disasm.decode_instr` build: `instr_text(parse(line)[0], spec) == line` for LLVM's own text,
and `instr_text(decode_instr(bytes)[0])` is the disassembly of those bytes.

An Instr already holds each operand as a value (registers, specials, numbers, `Mod`, `Lit`)
and its modifiers in order, so printing is spelling: a register is `v1`, `s[0:1]`, `v1.h`; a
modifier `key`, `key:value` or `key:[a,b]`. What the value alone does not say is how LLVM
spells a number, which depends on where it stands; it is read from the instruction:
  - a source value: decimal when it is an inline integer of the family, else hex (a literal);
  - the constant K of an fmamk/fmaak (the pseudocode's SIMM32, `isa.effects.constant_at`): hex;
  - a SOPP/SOPK immediate: its style by `syntax.sopp_style` / `syntax.SOPK_STYLE`;
  - the formats and modifiers `syntax.HEX_FORMATS` / `syntax.HEX_MODIFIERS` name: hex.
The instruction is `instr.defn` where an encoder or the decoder chose it, else the first of
`spec.lookup(mnemonic)` (a parsed line). Plain data in, text out: imports no printer."""
from __future__ import annotations

import math
from functools import lru_cache

import isa
from isa import InstrDef, Spec
from isa.effects import effects
from isa.memory_access import prefetch

from . import syntax, syntax_gfx9
from .operands import LiteralInt, Lit, Mod, Reg, Special
from .signature import vopd_base
from .statement import Attr, BitOr, Call

_INV_2PI = 1 / (2 * math.pi)


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
    styles, hex_mods, inline, target_first = plan
    out = instr.mnemonic
    ops = instr.operands
    if ops:
        if styles:
            n = len(styles)
            parts = [_operand(o, styles[i] if i < n else "src", inline) for i, o in enumerate(ops)]
        else:   # (the usual case: every operand a source or register, a register spelled once)
            parts = [o.text if type(o) is Reg else _operand(o, "src", inline) for o in ops]
        if target_first and len(parts) > 1:
            parts[:2] = [parts[0] + " " + parts[1]]
        out += " " + ", ".join(parts)
    mods = instr.modifiers
    if mods:    # (flags and decimal numbers, the usual modifiers, without a call)
        out += "".join([" " + k if v is True else f" {k}:{v}" if type(v) is int and k not in hex_mods
                        else _modifier(k, v, hex_mods.get(k)) for k, v in mods.items()])
    dual = instr.dual
    return out if dual is None else out + " :: " + instr_text(dual, spec)


_PLANS: dict = {}     # spec -> {InstrDef: its plan}: an InstrDef hashes by identity


@lru_cache(maxsize=None)
def _inline_ints(spec: Spec | None) -> frozenset:
    """The family's inline integers (isa traits `inline_ints`); without a Spec, those of every family."""
    if spec is None:
        return frozenset.intersection(*(_traits_ints(isa.traits(f)) for f in isa.FAMILY_TARGETS))
    return _traits_ints(spec.traits)


def _traits_ints(traits) -> frozenset:
    return frozenset(v for first, last, v0, step in traits.inline_ints
                     for v in range(v0, v0 + (last - first + 1) * step, step))


def _lookup(spec: Spec | None, mnemonic: str) -> InstrDef | None:
    if spec is None:
        return None
    defs = spec.lookup(mnemonic)
    return defs[0] if defs else None


@lru_cache(maxsize=None)
def _plan(d: InstrDef | None, spec: Spec | None) -> tuple[tuple[str, ...], dict, object, bool]:
    """(how each operand position spells a number, the modifiers whose numbers are not plain
    decimal with their style, the family's inline integers, whether the first operand is an
    export target) of an instruction; positions past the tuple are sources ("src"). A VOPD half
    has no pseudocode of its own: its constant is where the VOP1/VOP2 instruction it performs
    reads it (with a Spec). The gfx9 dialect's spellings (syntax_gfx9.py) go before gfx11's."""
    gfx9 = spec is not None and spec.traits.dialect == "gfx9"
    hex_mods = _GFX9_MODIFIER_STYLES if gfx9 else _MODIFIER_STYLES
    inline = _inline_ints(spec)
    if d is None:
        return (), hex_mods, inline, False
    fmt, name = d.format, d.name.lower()
    if gfx9 and name in syntax_gfx9.OPERAND_STYLES:
        return syntax_gfx9.OPERAND_STYLES[name], hex_mods, inline, False
    if fmt in syntax.HEX_FORMATS:
        # the first operand is data (an immediate where it is a number); a prefetch's last
        # operand is its length in bytes, decimal (the PC-relative forms have no base before it)
        styles = ("imm",) + ("hex",) * 3
        kind = prefetch(d)
        if kind:
            styles = ("hex", "hex", "dec") if kind == "pc" else ("hex",) * 3 + ("dec",)
        return styles, {**hex_mods, "offset": "hex"}, inline, False
    if fmt == "SOPP":
        style = syntax.sopp_style(d, gfx9) or "hex"
        return (style,), hex_mods, inline, False
    if fmt == "SOPK":
        names, style = ((gfx9 and syntax_gfx9.SOPK_STYLE.get(name))
                        or syntax.SOPK_STYLE.get(name, syntax.SOPK_DEFAULT))
        return (tuple(style if o == "imm" else "hex" if o == "lit" else "src" for o in names), hex_mods, inline,
                False)
    if fmt == "VOPD" and spec is not None:
        d = vopd_base(spec, d)
    k = effects(d.pcode).constant_at if d.pcode else None
    if k is None:
        return (), hex_mods, inline, fmt in syntax.TARGET_FIRST_FORMATS
    # the constant K: operand 1 + its place among the sources (after the one destination)
    return ("src",) * (1 + k) + ("hex",), hex_mods, inline, False


# modifier -> how its number is spelled (a style of _number), for the modifiers not plain decimal
_MODIFIER_STYLES = {k: "hex" for k in syntax.HEX_MODIFIERS}
_GFX9_MODIFIER_STYLES = {**_MODIFIER_STYLES, **syntax_gfx9.MODIFIER_STYLES}


# SOPP immediate styles LLVM writes as an expression (s_wait_alu va_vdst(0), instid0(..)): a
# number there is one the expression cannot spell, printed in hex
_EXPRESSION_STYLES = frozenset({"depctr", "delay_alu"})


def _hex(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


def _number(v, style: str, inline) -> str:
    if type(v) is float:
        return syntax.INV_2PI_TEXT[32] if v == _INV_2PI else repr(v)
    if style == "src":
        return str(v) if v in inline else _hex(v)
    if style == "hex":
        return _hex(v)
    if style == "imm":
        return str(v) if v <= 64 else _hex(v)
    if style == "small" or style == "gpr_idx":      # decimal from 0 to 9, else hex
        return str(v) if 0 <= v <= 9 else _hex(v)
    if style == "version":      # a version number is decimal, one with other bits set hex
        return str(v) if 0 <= v <= 0xff else _hex(v)
    if style in _EXPRESSION_STYLES:
        return _hex(v) if v else "0"
    return str(v)        # dec, opt, branch, sendmsg


def _operand(o, style: str, inline) -> str:
    t = type(o)
    if t is Reg:
        return o.text
    if t is Special:
        return o.name
    if t is int and style == "src":
        return str(o) if o in inline else _hex(o)
    if t is int and style == "dec":
        return str(o)
    if t is LiteralInt:     # a literal whose number is an inline integer's: LLVM prints the literal
        return _hex(o)
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
    if t is Attr:       # a bare word the parser read as an operand (ds_gws_sema_p gds), a name
        return o.name
    if t is Call:       # hwreg(HW_REG_MODE, 8, 2), sendmsg(...), vmcnt(0), swizzle(BROADCAST,8,0)
        sep = "," if o.name in syntax.TIGHT_CALLS else ", "
        return f"{o.name}({sep.join(_operand(a, 'dec', inline) for a in o.args)})"
    if t is BitOr:      # instid0(..) | instid1(..); (2|UC_VERSION_W64_BIT)|UC_VERSION_W32_BIT
        texts = [_operand(p, "dec", inline) for p in o.parts]
        if all(type(p) is Call for p in o.parts):
            return " | ".join(texts)
        text = texts[0]
        for p in texts[1:]:     # left to right, what is already joined in parentheses
            text = f"({text})|{p}" if "|" in text else f"{text}|{p}"
        return text
    if t is str:        # a quoted argument (swizzle's BITMASK_PERM mask)
        return f'"{o}"'
    if t is list or t is tuple:    # an image address
        return "[" + ", ".join(_operand(v, style, inline) for v in o) + "]"
    return str(o)


def _modifier(key: str, value, style: str | None) -> str:
    if value is True:
        return " " + key
    if value is False:
        return ""
    t = type(value)
    if t is int:
        return f" {key}:{_number(value, style, ()) if style else value}"
    if t is list or t is tuple:     # op_sel:[0,1], quad_perm:[..], format:[BUF_FMT_..]
        return f" {key}:[{','.join([str(v) if type(v) is int else _operand(v, 'dec', ()) for v in value])}]"
    if t is Call and value.name == key:     # a further counter of s_waitcnt: vmcnt(0) lgkmcnt(0)
        return " " + _operand(value, "dec", ())
    return f" {key}:{_operand(value, 'dec', ())}"

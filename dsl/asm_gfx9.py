"""Instr -> bytes in LLVM's gfx9 syntax generation (CDNA3: gfx940-942, CDNA4: gfx950), the
inverse of instr_fields_gfx9.py: each operand of the instruction value (instr.Instr: registers,
numbers, specials, Mod, calls such as hwreg(...), as the shared parser and the gfx9 DSL build
them) is placed in the fields the printer reads it from, with the same instruction plans
(signature, register counts, AGPR and SDWA rules).

`assemble_gfx9` reads a text with the shared parser (asm_parse.parse: one instruction per line,
optionally after a `label:`, comments); branches take labels or dword offsets; directives need a
code object (runtime.assemble_module, which encodes through Gfx9Encoder). Errors name
line:column and the operand."""
from __future__ import annotations

import math
import re
import struct
from dataclasses import replace
from functools import lru_cache

import isa
from isa import Spec
from isa.spec import family_of
from isa.mnemonics import amd_name, refused_spelling, text_mnemonic
from isa.effects import effects
from isa.facts import no_dpp, no_sdwa, opsel_flags, sdwa_selects, source_limits
from isa.memory_access import gds_only, reads_counter, scalar_base_registers, scalar_data

from . import literals, simm16, syntax, syntax_gfx9 as g9
from .instr import Instr
from .memflags_gfx9 import memory_flags
from .operands import Agpr, Lit, Mod, OperandError, Reg, Special, list_entry
from .source_modifiers import folded_modifiers
from .signature import Operand, loads_scales, neg_list_error, raw_source_field
from .packed_negation import packed_negation
from .special_registers import saddr_error, smem_data_error, special_widths, width_error
from .valu_plan import gfx9_no_dpp_form, gfx9_valu_plan
from .statement import Attr, BitOr, Call, LiteralRef, SymExpr


class Gfx9AsmError(ValueError):
    """An operand or modifier that does not fit (the caller adds line:column). `operand` is the
    operand value refused, `modifier` the name of the modifier refused (or (name, entry index):
    operands.list_entry), when one is, for the caller to find its column."""

    def __init__(self, message: str, operand=None, modifier: str | None = None, unknown: bool = False,
                 at_mnemonic: bool = False, index: int | None = None):
        super().__init__(message)
        self.operand = operand
        self.index = index          # which of the operands `operand` is, where one text is written twice
        self.modifier = modifier
        self.unknown = unknown      # as OperandError.unknown
        self.at_mnemonic = at_mnemonic      # as OperandError.at_mnemonic


# ---------------------------------------------------------------- operands

class Src:
    """An operand as the encoder places it: kind 'v' / 'a' (register index), 's' (a scalar or
    constant code), 'lit' (a 32-bit literal); neg/abs/sext modifiers; n registers; `value` the
    operand as given (for messages and error columns)."""
    __slots__ = ("kind", "val", "n", "neg", "abs", "sext", "value", "number", "read_as_literal", "forced", "index")

    def __init__(self, kind, val, n=1, value=None):
        self.kind, self.val, self.n, self.value = kind, val, n, value
        self.neg = self.abs = self.sext = 0
        self.forced = False     # lit(x): the number goes in the literal dword even where it is inline
        self.index = None       # its place among the instruction's operands, where the encoder knows it
        self.number = None      # the int or float written, when the operand is a number
        self.read_as_literal = False    # a number read as a literal, encoded inline (literals.read_as_literal)

    @property
    def text(self) -> str:
        return _text(self.value)


def _text(value) -> str:
    """LLVM's spelling of an operand value, for messages."""
    if isinstance(value, Attr):
        return value.name
    if isinstance(value, SymExpr):
        return value.text
    if isinstance(value, Call):
        return f"{value.name}({', '.join(_text(a) for a in value.args)})"
    if isinstance(value, list):
        return f"[{','.join(_text(a) for a in value)}]"
    return str(value)


@lru_cache(maxsize=None)
def _names(spec: Spec) -> dict[str, int]:
    """Special operand spellings -> code (the printer's spellings)."""
    t = spec.traits
    out = {syntax.SPECIAL_TEXT.get(n, n.lower()): c for n, c in t.codes.items() if n != "LITERAL"}
    out.update({pair: out[lo] for lo, pair in syntax.PAIR_TEXT.items() if lo in out})
    out.update({alias: out[name] for alias, name in syntax.SPECIAL_ALIASES.items() if name in out})
    out.update({name: code for code, name in syntax.RESERVED_SRC_NAMES.items() if name not in out})
    return out


@lru_cache(maxsize=None)
def _inline_floats(spec: Spec) -> dict[bytes, int]:
    """The exact bits of each float the parser reads where an inline float constant is written
    (its value, and for 1/(2*pi) LLVM's spellings of it, syntax.INV_2PI_TEXT) -> the constant's
    code; -0.0 is no inline constant."""
    out = {}
    for code, value in spec.traits.inline_floats.items():
        out.setdefault(struct.pack("<d", value), code)
        if value == 1 / (2 * math.pi):
            for text in syntax.INV_2PI_TEXT.values():
                out.setdefault(struct.pack("<d", float(text)), code)
    return out


def src(spec: Spec, value) -> Src:
    """The Src of one operand value: -x, |x|, neg(x) and sext(x) set its modifier bits."""
    neg = abs_ = sext = 0
    inner = value
    if isinstance(inner, Mod):
        neg, abs_, inner = int(inner.neg), int(inner.abs), inner.value
    elif isinstance(inner, Call) and inner.name == "sext" and len(inner.args) == 1:
        sext, inner = 1, inner.args[0]
    forced = isinstance(inner, Lit) and type(inner.value) in (int, float)
    if forced:
        inner = inner.value
    try:
        out = _operand(spec, inner, value)
    except Gfx9AsmError as e:   # a register refused inside -x, |x|, sext(x): LLVM points at the register
        if e.operand is value and isinstance(value, (Mod, Call)):
            e.operand = inner
        raise
    out.neg, out.abs, out.sext = neg, abs_, sext
    if forced:          # typed by _typed_constant, which every source with a literal slot calls
        out.forced, out.kind, out.val = True, "lit", None
    if type(inner) in (int, float):
        out.number = inner
    return out


def unmodified(s: Src, what: str = "this operand") -> Src:
    """`s`, refused when written with -x, |x|, neg(), abs() or sext(): a destination, a scalar
    instruction's or a memory instruction's operand takes none."""
    if s.neg or s.abs or s.sext:
        raise Gfx9AsmError(f"{s.text}: {what} takes no modifiers", s.value)
    return s


def plain(spec: Spec, value) -> Src:
    """The Src of an operand that takes no modifiers (scalar and memory instructions)."""
    return unmodified(src(spec, value))


def _operand(spec: Spec, v, given) -> Src:
    t = spec.traits
    if isinstance(v, (Reg, Agpr)):
        if v.half:
            raise Gfx9AsmError(f"{_text(given)}: gfx9 has no 16-bit register halves", given)
        idx, n, cls = v.idx, v.count, v.cls
        if cls in ("v", "a"):
            if idx + n > t.vgprs:
                raise Gfx9AsmError(f"register {_text(given)!r} is out of range", given)
            if n > 1 and idx % 2 and not any(given is x for x in _validated):   # gfx90a and later: vector
                # register tuples start at an even register (refused here, as LLVM's operand match does,
                # or once encoded where LLVM checks it then: _validated_tuples)
                raise Gfx9AsmError(f"{_text(given)}: vector register tuples must be 64-bit aligned (even first "
                                   f"register)", given)
            return Src(cls, idx, n, given)
        if n > 1 and idx % (2 if n == 2 else 4):    # scalar tuples: pairs even, wider ones 4-aligned
            raise Gfx9AsmError(f"{_text(given)}: a {n}-register scalar tuple starts at a multiple of "
                               f"{2 if n == 2 else 4}", given)
        if cls == "s":
            if idx + n > t.sgprs:
                raise Gfx9AsmError(f"register {_text(given)!r} is out of range (s0..s{t.sgprs - 1})", given)
            return Src("s", idx, n, given)
        if idx + n > t.ttmps:
            raise Gfx9AsmError(f"register {_text(given)!r} is out of range", given)
        return Src("s", t.ttmp_base + idx, n, given)
    if isinstance(v, (Special, Attr)):
        names = _names(spec)
        if v.name in names:
            if v.name in g9.NOT_ASSEMBLED:
                raise Gfx9AsmError(f"{v.name} is not available on this target", given)
            return Src("s", names[v.name], 1, given)
        raise Gfx9AsmError(f"cannot read operand {_text(given)!r}", given)
    if isinstance(v, float):
        code = _inline_floats(spec).get(struct.pack("<d", v))
        if code is not None:
            return Src("s", code, 1, given)
        try:
            return Src("lit", struct.unpack("<I", struct.pack("<f", v))[0], 1, given)
        except OverflowError:
            raise Gfx9AsmError(f"{_text(given)}: does not fit a 32-bit float", given) from None
    if isinstance(v, int) and not isinstance(v, bool):
        code = t.inline_int(v)
        if code is not None:
            return Src("s", code, 1, given)
        # wider: a 64-bit operand's constant (0x3ff0000000000000 is 1.0) once typed, else refused (_src9)
        return Src("lit", v & 0xffffffff if -(1 << 31) <= v < (1 << 32) else None, 1, given)
    raise Gfx9AsmError(f"cannot read operand {_text(given)!r}", given)


# a scalar source of n registers as constants are typed (32 or 64 bits, integer or float alike)
_SCALAR_OPERANDS = {n: Operand("ssrc", n, False, "b", True, 32 * n) for n in (1, 2)}


def _typed_constant(spec: Spec, s: Src, op, encoding: str) -> None:
    """A number on a source, taken by the rules of the operand's kind (literals.py, shared with
    the RDNA encoder: `op` is the Operand a constant is typed as, `encoding` literals.literal_kind's
    encoding): an inline constant's code or the literal dword, or a refusal naming the value."""
    if s.number is None:
        return
    kind = literals.literal_kind(op, encoding)
    try:
        code, word = literals.constant(s.number, kind, s.forced, s.text, spec.traits)
    except OperandError as e:
        raise Gfx9AsmError(str(e), s.value) from None
    s.read_as_literal = word is None and literals.read_as_literal(s.number, kind, spec.traits)
    s.kind, s.val = ("lit", word) if word is not None else ("s", code)


def _folded(spec: Spec, d, op, s: Src) -> Src:
    """A number with neg/abs as the 32-bit encoding's src0, which has no modifier bits: a copy of
    `s` with the modifiers folded into the number, by the rule the RDNA encoder uses
    (source_modifiers.folded_modifiers), or its refusal."""
    has_vop3 = d.name not in g9.NO_VOP3_FORM and any(
        e.name == d.name and e.format in spec.traits.roles.valu_e64 for e in spec.lookup(d.name))
    try:
        x = folded_modifiers(d, op, Mod(Lit(s.number) if s.forced else s.number, bool(s.neg), bool(s.abs)),
                             "src0", has_vop3)
    except OperandError as e:
        raise Gfx9AsmError(str(e), s.value) from None
    out = Src(s.kind, s.val, s.n, s.value)
    out.number, out.forced, out.index, out.sext = x, s.forced, s.index, s.sext
    return out


def _off(value) -> bool:
    return isinstance(value, Special) and value.name == "off"


# ---------------------------------------------------------------- modifier values


def _mod_int(mods: dict, key: str, default: int | None = None) -> int:
    """An integer modifier value (offset:16, row_mask:0xf)."""
    value = mods.get(key, default)
    if type(value) is not int:
        raise Gfx9AsmError(f"{key}:{_text(value)}: expected an integer")
    return value


def _mod_bits(mods: dict, key: str) -> list[int]:
    """A list of 0/1 values (op_sel:[0,1], neg_lo:[1,0,0])."""
    value = mods[key]
    if not isinstance(value, list) or not all(type(x) is int and x in (0, 1) for x in value):
        raise Gfx9AsmError(f"{key}:{_text(value)}: expected a list of 0s and 1s",
                           modifier=list_entry(value, key, lambda x: type(x) is int and x in (0, 1)))
    return value


def _mod_name(mods: dict, key: str, default: str, names) -> int:
    """The index in `names` of a name-valued modifier (dst_sel:BYTE_0)."""
    value = mods.get(key)
    name = default if value is None else value.name if isinstance(value, Attr) else None
    if name not in names:
        raise Gfx9AsmError(f"{key}:{_text(value)}: expected one of {', '.join(dict.fromkeys(names))}")
    return names.index(name)


_DPP_KEYS = {"quad_perm", "row_shl", "row_shr", "row_ror", "row_newbcast", "wave_shl", "wave_rol", "wave_shr",
             "wave_ror", "row_mirror", "row_half_mirror", "row_bcast", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"}
_SDWA_KEYS = {"clamp", "mul", "div", "dst_sel", "dst_unused", "src0_sel", "src1_sel"}
_SDWAB_KEYS = {"src0_sel", "src1_sel"}          # a compare's SDWA word: no result select, clamp or OMOD
_VOP3_KEYS = {"clamp", "mul", "div", "op_sel"}
_VOP3P_KEYS = {"clamp", "op_sel", "op_sel_hi", "neg_lo", "neg_hi"}
_SCALE_KEYS = {"op_sel", "op_sel_hi"}                # v_mfma_ld_scale_b32
_TRUTH_TABLE_KEYS = {"op_sel", "bitop3"}     # OMOD, ABS and NEG hold the truth table; no clamp either
_MFMA_KEYS = {"cbsz", "abid", "blgp", "neg"}
_MEMORY_KEYS = {"SMEM": {"offset", "glc"},   # no nv: LLVM 22 refuses it on gfx942/gfx950
                "DS": {"offset", "offset0", "offset1", "gds"},
                "FLAT": {"offset", "sc0", "sc1", "nt"}, "GLOBAL": {"offset", "sc0", "sc1", "nt"},
                "SCRATCH": {"offset", "sc0", "sc1", "nt"},
                "MUBUF": {"idxen", "offen", "offset", "sc0", "sc1", "nt", "lds"},
                "MTBUF": {"idxen", "offen", "offset", "sc0", "sc1", "nt", "format"}}


def _sdwa_keys(d, plan, kind: str) -> set:
    """The modifiers an SDWA (or a compare's SDWAB) word takes: a select per source the instruction
    has, and (SDWA) the destination's select, unused-bits rule, clamp and output modifier only with
    a destination (LLVM 22: v_nop_sdwa takes none of them, v_mov_b32_sdwa no src1_sel), no
    destination select where isa.facts.sdwa_selects says so (the fp8/bf8 conversions to f32)."""
    keys = (_SDWAB_KEYS if kind == "SDWAB" else _SDWA_KEYS) - {f"src{i}_sel" for i in range(len(plan.srcs), 2)}
    if kind == "SDWAB":
        return keys
    if not plan.sig.dsts:
        return keys - {"clamp", "mul", "div", "dst_sel", "dst_unused"}
    return keys - ({"dst_sel", "dst_unused"} if sdwa_selects(d) else set())


def _allow(mods: dict, keys: set, what: str) -> None:
    extra = [k for k in mods if k not in keys]
    if extra:
        raise Gfx9AsmError(f"{extra[0]!r} is not a modifier of {what}"
                           + (f" (takes {', '.join(sorted(keys))})" if keys else " (takes none)"),
                           modifier=extra[0], unknown=True)


def _int_in(mods: dict, key: str, lo: int, hi: int, default: int = 0) -> int:
    value = _mod_int(mods, key, default)
    if not lo <= value <= hi:
        raise Gfx9AsmError(f"{key}:{value}: out of range ({lo} to {hi})")
    return value


def _bits_of(values: list[int]) -> int:
    return sum(b << i for i, b in enumerate(values))


# ---------------------------------------------------------------- packing


def _pack(fmt, fields: dict) -> int:
    value = fmt.encoding[0]
    for name, hi, lo in fmt.fields:
        if name == "ENCODING" or name not in fields:
            continue
        v = fields[name]
        width = hi - lo + 1
        if not 0 <= v < (1 << width):
            raise Gfx9AsmError(f"{name.lower()} value {v} does not fit {width} bits")
        value |= v << lo
    return value


def _word2(spec: Spec, kind: str, fields: dict) -> int:
    value = 0
    for name, hi, lo in spec.formats[kind].fields:
        v = fields.get(name, 0)
        if not 0 <= v < (1 << (hi - lo + 1)):
            raise Gfx9AsmError(f"{name.lower()} value {v} does not fit")
        value |= v << (lo - 32)
    return value


class _Enc:
    """The encoding of one instruction being built: fields, literal, second dword."""

    def __init__(self):
        self.literal: int | None = None

    def lit(self, value: int):
        if self.literal is not None and self.literal != value:
            raise Gfx9AsmError("only one literal constant per instruction")
        self.literal = value


def _src9(spec: Spec, s: Src, enc: _Enc, n: int | None = None, agpr_ok: bool = False) -> int:
    """A 9-bit source field's code (VGPRs at 256 + index; an AGPR where the instruction reads one)."""
    if s.kind == "v" or (s.kind == "a" and agpr_ok):
        return 256 + s.val
    if s.kind == "a":
        raise Gfx9AsmError(f"{s.text}: an AGPR is not allowed here", s.value)
    if s.kind == "lit":
        if s.val is None:
            raise Gfx9AsmError(f"constant {s.text!r} does not fit 32 bits", s.value)
        enc.lit(s.val)
        return spec.traits.literal
    return s.val


def _matched(s: Src) -> Src:
    """`s`, refused when an odd-based vector tuple: a VALU operand LLVM 22's operand match holds
    to an aligned register class (a destination, a VGPR-only source, a matrix input A/B, a source
    wider than any constant), refused there, at the tuple; the sources taking constants it
    checks with the whole instruction (_validated_tuples)."""
    if s.kind in ("v", "a") and s.n > 1 and s.val % 2:
        raise Gfx9AsmError(f"{s.text}: vector register tuples must be 64-bit aligned (even first register)", s.value)
    return s


def _vgpr(s: Src, agpr: bool | None = None) -> tuple[int, bool]:
    """An 8-bit VGPR field: (index, is an AGPR)."""
    if s.kind not in ("v", "a"):
        raise Gfx9AsmError(f"{s.text}: expected a vector register", s.value)
    if agpr is not None and (s.kind == "a") != agpr:
        raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if agpr else 'a VGPR'}", s.value)
    return s.val, s.kind == "a"


def _sreg(spec: Spec, s: Src) -> int:
    """A scalar register field (a result, a base, a lane mask): constants are refused."""
    if s.kind != "s" or spec.traits.is_constant(s.val):
        raise Gfx9AsmError(f"{s.text}: expected a scalar register", s.value)
    return unmodified(s).val


def _smem_data(spec: Spec, s: Src, mn: str) -> int:
    """A scalar memory instruction's SDATA register: not M0 or EXEC (the manuals')."""
    code = _sreg(spec, s)
    wrong = isinstance(s.value, (Special, Attr)) and smem_data_error(spec.traits, s.value.name, code)
    if wrong:
        raise Gfx9AsmError(f"{mn}: sdata: {wrong}", s.value)
    return code


@lru_cache(maxsize=None)
def _buffer_format_codes(spec: Spec) -> tuple[dict[str, int], dict[str, int]]:
    """MTBUF's format names as LLVM spells them -> code: BUF_DATA_FORMAT_* (DFMT), BUF_NUM_FORMAT_* (NFMT)."""
    return ({g9.BUF_DATA_FORMAT + n: c for c, n in g9.buffer_format_names(spec.tables["data_formats"]).items()},
            {g9.BUF_NUM_FORMAT + n: c for c, n in g9.buffer_format_names(spec.tables["number_formats"]).items()})


_OMOD = {("mul", 2): 1, ("mul", 4): 2, ("div", 2): 3}


def _wide_operand(d, sig) -> bool:
    """A source or result of a 64-bit type (f64, i64, b64; not a compare's lane mask, not two
    packed f32): an operand SDWA cannot select parts of."""
    return any(t.endswith("64") and not t.startswith("pk") and not (k == "D0" and sig.is_cmp)
               for k, t in d.operand_types.items() if re.fullmatch(r"S\d|D0", k))


def _omod(mods: dict, takes: bool = True) -> int:
    """The output-modifier code of mul:2, mul:4 or div:2 (mul:1 and div:1 are no modifier),
    refused where the form takes none (`takes`: an SDWA form's plan.sdwa_omod, the 32-bit
    encoding's isa.facts.modifier_use omod; the VOP3 form's keys are checked by the plan's omod)."""
    given = [k for k in ("mul", "div") if k in mods]
    if given and not takes:
        raise Gfx9AsmError(f"{given[0]}:{_text(mods[given[0]])}: output modifiers apply to floating-point "
                           f"results", modifier=given[0])
    if len(given) > 1:
        raise Gfx9AsmError("mul and div are one output modifier: give one of them", modifier=given[1])
    for k in given:
        v = mods[k]
        if type(v) is not int or v != 1 and (k, v) not in _OMOD:
            raise Gfx9AsmError(f"{k}:{_text(v)}: expected {'mul:2 or mul:4' if k == 'mul' else 'div:2'}",
                               modifier=k)
        return _OMOD.get((k, v), 0)
    return 0


_DPP_NAMED = {"row_mirror": 0x140, "row_half_mirror": 0x141, "wave_shl": 0x130, "wave_rol": 0x134,
              "wave_shr": 0x138, "wave_ror": 0x13c}
_DPP_ROWS = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120, "row_newbcast": 0x150}


def _dpp_ctrl(mods: dict) -> int:
    if "quad_perm" in mods:
        q = mods["quad_perm"]
        if not isinstance(q, list) or len(q) != 4 or not all(type(x) is int and 0 <= x <= 3 for x in q):
            raise Gfx9AsmError(f"quad_perm:{_text(q)}: expected four lanes 0-3",
                               modifier=list_entry(q, "quad_perm", lambda x: type(x) is int and 0 <= x <= 3))
        return q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6
    for k, base in _DPP_ROWS.items():
        if k in mods:
            return base + _mod_int(mods, k)
    for k, code in _DPP_NAMED.items():
        if k in mods:
            return code
    if "row_bcast" in mods:
        code = {15: 0x142, 31: 0x143}.get(mods["row_bcast"])
        if code is None:
            raise Gfx9AsmError(f"row_bcast:{_text(mods['row_bcast'])}: expected 15 or 31")
        return code
    if "dpp_ctrl" in mods:
        return _mod_int(mods, "dpp_ctrl")
    return 0xe4   # identity quad_perm


_DPP_CONTROLS = _DPP_KEYS - {"row_mask", "bank_mask", "bound_ctrl"}
_DPP_ORDER = ("row_mask", "bank_mask", "bound_ctrl")      # after the one control, as LLVM reads them


# the order LLVM's gfx9 syntax reads a VALU instruction's modifiers in (its matcher takes no other):
# rank of each; DPP's own order is _dpp_order's
_VALU_ORDER = {"op_sel": 0, "op_sel_hi": 1, "neg_lo": 2, "neg_hi": 3, "clamp": 4, "mul": 5, "div": 5,
               "dst_sel": 6, "dst_unused": 7, "src0_sel": 8, "src1_sel": 9}


def _valu_order(mods: dict) -> None:
    last = None
    for key in mods:
        rank = _VALU_ORDER.get(key)
        if rank is None:
            continue
        if last is not None and rank < _VALU_ORDER[last]:
            raise Gfx9AsmError(f"{key}: comes before {last} in LLVM's syntax", modifier=key)
        last = key


def _dpp_order(mods: dict) -> None:
    """A DPP instruction's modifiers: one control first, then row_mask, bank_mask, bound_ctrl."""
    rank = [0 if k in _DPP_CONTROLS else 1 + _DPP_ORDER.index(k) for k in mods if k in _DPP_KEYS]
    keys = [k for k in mods if k in _DPP_KEYS]
    if rank.count(0) > 1:
        key = [k for k in keys if k in _DPP_CONTROLS][1]
        raise Gfx9AsmError(f"{key}: DPP takes one control", modifier=key)
    late = next((k for k, r, before in zip(keys[1:], rank[1:], rank) if r < before), None)
    if late is not None:
        raise Gfx9AsmError(f"{late}: DPP modifiers come in the order control, {', '.join(_DPP_ORDER)}",
                           modifier=late)
_SDWA_SELECTS = {"dst_sel", "dst_unused", "src0_sel", "src1_sel"}


def _valu_defs(spec: Spec, mn: str, mods=()):
    """(InstrDef, encoding kind) candidates for a VALU mnemonic, in the order to try; without a
    suffix, a DPP control or an SDWA select among the modifiers adds that form after the others
    (`v_max_f32 v0, v1, v2 row_shl:1` is the DPP form)."""
    m = re.match(r"^(.*?)(_e32|_e64|_sdwa|_dpp)?$", mn)
    base, suffix = m.group(1), m.group(2)
    defs = spec.lookup(amd_name(base, spec.arch))
    roles = spec.traits.roles
    e32 = [d for d in defs if d.format in roles.valu_e32]
    e64 = [d for d in defs if d.format in roles.valu_e64 and d.name not in g9.NO_VOP3_FORM]
    if suffix == "_e32":
        return [(d, None) for d in e32]
    if suffix == "_e64":
        return [(d, None) for d in e64]
    if suffix == "_sdwa":
        return [(d, "SDWAB" if d.format == "VOPC" else "SDWA") for d in e32]
    if suffix == "_dpp":
        return [(d, "DPP") for d in e32]
    extra = [(d, "DPP") for d in e32] if _DPP_CONTROLS.intersection(mods) else \
        [(d, "SDWAB" if d.format == "VOPC" else "SDWA") for d in e32] if _SDWA_SELECTS.intersection(mods) else []
    return [(d, None) for d in e32 + e64] + extra


def _opsel_keys(plan) -> set:
    return {"op_sel"} if plan.opsel else set()


def encode_valu(spec: Spec, d, kind: str | None, ops: list[Src], mods: dict) -> bytes:
    fmt = spec.formats[d.format]
    plan = gfx9_valu_plan(d, spec, d.format, kind)
    if d.name in {r[0] for r in spec.tables.get("mfma", ())}:
        return _encode_mfma(spec, d, ops, mods)
    sig, e32 = plan.sig, plan.e32
    if kind == "DPP" and d.format not in g9.DPP_FORMATS:
        raise Gfx9AsmError(f"{plan.mn}: the gfx9 syntax has no DPP form of a {d.format} instruction", unknown=True)
    if kind == "DPP" and gfx9_no_dpp_form(d, plan):
        raise Gfx9AsmError(f"{plan.mn}: has no DPP form ({gfx9_no_dpp_form(d, plan)})", unknown=True)
    if sig.k_pos is not None and e32 and kind:  # before any operand, as LLVM: "dpp/sdwa variant ... not supported"
        raise Gfx9AsmError(f"{d.name.lower()} has no {kind[:4]} form (its constant K is a literal, which "
                           f"{kind[:4]} excludes)", unknown=True)
    accumulates = sig.reads_dst and not (sig.dsts and sig.dsts[0].packed)
    if kind in ("SDWA", "SDWAB") and (accumulates or _wide_operand(d, sig)):
        # SDWA selects parts of 32-bit operands; an instruction reading its one 32-bit destination
        # (mac, fmac, the dot*c products, swap: the manual's SDWA limitations; not v_pk_fmac_f16's
        # two halves) cannot use it
        raise Gfx9AsmError(f"{plan.mn}: has no SDWA form ("
                           f"{'it reads its destination' if accumulates else 'a 64-bit operand'})")
    # the manual's Instruction Limitations (CDNA3 12.16: v_clrexcp, the 64-bit compares, ...; LLVM 22:
    # "dpp/sdwa variant of this instruction is not supported")
    rule = no_dpp(d) if kind == "DPP" else no_sdwa(d) if kind in ("SDWA", "SDWAB") else None
    if rule is not None:
        raise Gfx9AsmError(f"{plan.mn}: has no {'DPP' if kind == 'DPP' else 'SDWA'} form (the manual's rule: "
                           f"{rule[0]}, page {rule[1]})")
    if kind == "DPP":
        _dpp_order(mods)
    if kind == "DPP":        # a modifier the DPP form lacks (dpp8) first, at its key, as LLVM's parser
        _allow(mods, _DPP_KEYS, plan.mn)
    if kind == "DPP" and not _DPP_CONTROLS.intersection(mods):
        raise Gfx9AsmError(f"{plan.mn}: a DPP instruction needs a DPP control (quad_perm:[..], row_shl:n, row_shr:n, "
                           f"row_ror:n, row_newbcast:n, row_mirror, row_half_mirror, row_bcast:n or wave_*)")
    if kind == "DPP" and plan.dp_alu and _dpp_ctrl(mods) not in g9.DP_ALU_DPP_CONTROLS:
        key = next(k for k in mods if k in _DPP_CONTROLS)
        raise Gfx9AsmError(f"{key}: a 64-bit operand makes this a DP ALU operation, whose DPP takes only "
                           f"row_newbcast:n", modifier=key)
    _allow(mods, _DPP_KEYS if kind == "DPP" else _sdwa_keys(d, plan, kind) if kind else
           set() if e32 else
           _SCALE_KEYS if loads_scales(d) else {n for n, _ in g9.OPSEL_FLAG_KEYS}
           if opsel_flags(d) else _VOP3P_KEYS if plan.is_p else
           _TRUTH_TABLE_KEYS - ({"op_sel"} - _opsel_keys(plan)) if plan.truth_table else
           _VOP3_KEYS - ({"op_sel"} - _opsel_keys(plan)) - ({"mul", "div"} if not plan.omod else set())
           - ({"clamp"} if not plan.clamp else set()), plan.mn)
    _valu_order(mods)
    enc = _Enc()
    f: dict[str, int] = {}
    w2: dict[str, int] = {}
    ops = list(ops)
    need = (1 if sig.is_cmp else 0) + sum(o.name != "sdst" for o in sig.dsts) + len(plan.srcs) + \
        (sig.vcc_out or ("SDST" in {n for n, _, _ in fmt.fields} and not e32)) + \
        (sig.k_pos is not None and e32) + (sig.vcc_in and (e32 or len(plan.srcs) < 3))
    srcs_e32 = min(len(plan.srcs), 2) if e32 else len(plan.srcs)
    if e32:
        need -= len(plan.srcs) - srcs_e32
    if len(ops) == need - 1 and e32 and not kind and sig.is_cmp + bool(sig.vcc_out) + bool(sig.vcc_in) == 1:
        # the 32-bit encoding's one implicit vcc (a compare's result, a carry-out, v_cndmask's
        # mask) may go unwritten in the gfx9 syntax; with both a carry-in and a carry-out, not.
        # Where the operands do not fit even so, the operand missing is the complaint
        at = 0 if sig.is_cmp else sum(o.name != "sdst" for o in sig.dsts) if sig.vcc_out else len(ops)
        try:
            return encode_valu(spec, d, kind, ops[:at] + [src(spec, Special("vcc"))] + ops[at:], mods)
        except Gfx9AsmError:
            raise Gfx9AsmError(f"{d.name.lower()} takes {need} operands, got {len(ops)}") from None
    if len(ops) != need:
        raise Gfx9AsmError(f"{d.name.lower()} takes {need} operands, got {len(ops)}",
                           ops[need].value if len(ops) > need else None)   # the first one too many
    it = iter(ops)
    if sig.is_cmp:
        m = unmodified(next(it), "a destination")
        if kind == "SDWAB":
            if m.text != "vcc":
                w2["SD"], w2["SDST"] = 1, _sreg(spec, m)
        elif e32:
            if m.text != "vcc":
                raise Gfx9AsmError(f"{m.text}: the 32-bit encoding writes vcc", m.value)
        else:
            f["VDST"] = _sreg(spec, m)
    for op in sig.dsts:
        if op.name == "sdst":
            continue
        s = unmodified(next(it), "a destination")
        if op.sgpr:
            f["VDST"] = _sreg(spec, s)
        else:
            f["VDST"], _ = _vgpr(_matched(s), "vdst" in plan.acc)
    if sig.vcc_out:
        s = next(it)
        if e32 or "SDST" not in {n for n, _, _ in fmt.fields}:
            if s.text != "vcc":
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding writes vcc", s.value)
        else:
            f["SDST"] = _sreg(spec, s)
    elif "SDST" in {n for n, _, _ in fmt.fields} and not e32:
        m = next(it)
        f["SDST"] = _sreg(spec, m)
    srcs = [next(it) for _ in range(srcs_e32 + (1 if sig.k_pos is not None and e32 else 0))]
    if sig.k_pos is not None and e32:
        k = srcs.pop(sig.k_pos)
        if k.number is None:
            raise Gfx9AsmError(f"{k.text}: expected a constant", k.value)
        try:
            enc.literal = literals.k_constant(k.number, literals.literal_kind(plan.constants[0], "e32"), k.text,
                                              spec.traits)
        except OperandError as e:
            raise Gfx9AsmError(str(e), k.value) from None
    neg = abs_ = 0
    for i, ((op, n, bits, is_float, packed), s) in enumerate(zip(plan.srcs, srcs)):
        # SDWA reads each source as its own type: v_ldexp_f16's exponent an i16 (0x3c00 refused),
        # a packed source a 32-bit one (0x3f800000 is 1.0), as LLVM's SDWA operand check does
        sdwa_op = plan.constants[i] if i in syntax.T16_SOURCES.get(d.name, ()) else op    # (a class mask: 32-bit)
        if e32 and not kind and i == 0 and (s.neg or s.abs) and s.number is not None and f"S{i}" in plan.neg_abs:
            s = srcs[i] = _folded(spec, d, op, s)     # the 32-bit src0 has no modifier bits: folded (LLVM 22)
        _typed_constant(spec, s, replace(sdwa_op, packed=False) if kind in ("SDWA", "SDWAB") else plan.constants[i],
                        plan.constant_encoding)
        acc = f"src{i}" in plan.acc
        if i in plan.uniform and s.kind in ("v", "a"):     # v_readlane's lane select, v_writelane's sources
            raise Gfx9AsmError(f"{s.text}: src{i} must be an SGPR or constant (a value "
                               f"uniform across the wave), not a vector register", s.value)
        if (s.neg or s.abs) and not plan.is_p and f"S{i}" not in plan.neg_abs:
            # (VOP3P: packed_negation decides below) the sources typed as floats, and LLVM's by
            # the modifier_use errata: not v_cmp_class_f16's u32 mask, not an fp8 byte
            raise Gfx9AsmError(f"{s.text}: neg/abs modifiers apply to floating-point operands only", s.value)
        if s.abs and not e32 and not plan.is_p and "ABS" not in {n for n, _, _ in fmt.fields}:
            raise Gfx9AsmError(f"{s.text}: the {d.format} encoding has no ABS field (|x|)", s.value)
        if e32:
            if kind in ("SDWA", "SDWAB"):
                if sdwa_selects(d) and (s.sext or s.neg or s.abs):    # (its code picks the bytes)
                    raise Gfx9AsmError(f"{s.text}: the SDWA form of {d.name.lower()} takes no source modifiers", s.value)
                if s.sext and f"S{i}" in plan.neg_abs and not packed:   # (LLVM: sext() on integer operands only)
                    raise Gfx9AsmError(f"{s.text}: sext() applies to integer operands only; src{i} is a float "
                                       f"(neg/abs apply)", s.value)
                if s.kind in ("v",):
                    code8, scalar = _matched(s).val, 0
                else:
                    code = _src9(spec, s, enc)
                    if enc.literal is not None or s.read_as_literal:
                        raise Gfx9AsmError(f"{s.text}: SDWA takes no literal", s.value)
                    code8, scalar = code, 1
                if i == 0:
                    w2["SRC0"], w2["S0"] = code8, scalar
                    f["SRC0"] = spec.traits.codes["SDWA"]
                else:
                    f["VSRC1"], w2["S1"] = code8, scalar
                w2[f"SRC{i}_NEG"], w2[f"SRC{i}_ABS"], w2[f"SRC{i}_SEXT"] = s.neg, s.abs, s.sext
                continue
            if i == 0:
                if kind == "DPP":
                    w2["SRC0"], _ = _vgpr(s, acc)
                    f["SRC0"] = spec.traits.codes["DPP"]
                else:
                    if acc and s.kind != "a" or op.registers_only and s.kind not in ("v", "a"):
                        raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if acc else 'a vector register'}", s.value)
                    f["SRC0"] = _src9(spec, s, enc, agpr_ok=acc)
            else:
                f["VSRC1"], _ = _vgpr(s if kind == "DPP" else _matched(s), acc)
            if kind == "DPP":
                w2[f"SRC{i}_NEG"], w2[f"SRC{i}_ABS"] = s.neg, s.abs
            elif s.neg or s.abs:
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding takes no modifiers", s.value)
            continue
        if acc and s.kind != "a" or op.registers_only and s.kind not in ("v", "a"):
            raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if acc else 'a vector register'}", s.value)
        f[f"SRC{i}"] = _src9(spec, s if s.n <= 2 else _matched(s), enc, agpr_ok=acc)   # (no wider constant)
        neg |= s.neg << i
        abs_ |= s.abs << i
    if e32 and not plan.srcs and kind in ("DPP", "SDWA", "SDWAB"):
        # an instruction without sources (v_nop) still marks its DPP or SDWA word in SRC0
        f["SRC0"] = spec.traits.codes["DPP" if kind == "DPP" else "SDWA"]
    if sig.vcc_in and (e32 or len(plan.srcs) < 3):
        s = next(it)
        if e32:
            if s.text != "vcc":
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding reads vcc", s.value)
        else:
            f["SRC2"] = _sreg(spec, s)
    _constant_bus(spec, srcs, enc, sig.vcc_in and (e32 or len(plan.srcs) == 3),
                  ops if not e32 and sig.vcc_in and len(plan.srcs) < 3 else ())
    if not e32:
        if enc.literal is not None:
            raise Gfx9AsmError("the 64-bit encoding takes no literal constant",
                               next((s.value for s in ops if s.kind == "lit"), None))
        if plan.is_p:
            if (neg | abs_) and not plan.is_mix:    # NEG/NEG_HI only as neg_lo/neg_hi lists (packed_negation)
                i = ((neg | abs_) & -(neg | abs_)).bit_length() - 1
                raise Gfx9AsmError(f"{d.name.lower()}: {packed_negation(d).sign_error(i, len(plan.srcs))}",
                                   srcs[i].value)
            if loads_scales(d) and (neg or abs_):
                raise Gfx9AsmError(f"{d.name.lower()} takes no source modifiers")
            packed = effects(d.pcode).result_ranges >= 2    # elements side by side: v_pk_*
            # a result that is not packed: op_sel only as all zeros, and only over 16-bit halves (v_dot2_*)
            if not plan.is_mix and not packed and sig.dsts and (
                    "op_sel" in mods and (any(_mod_bits(mods, "op_sel")) or not any(o.packed for o in sig.srcs))
                    or "op_sel_hi" in mods):
                key = "op_sel" if "op_sel" in mods else "op_sel_hi"
                # LLVM: no such operand (at its key) without packed sources, else "invalid op_sel
                # operand": at op_sel's key, at the mnemonic for op_sel_hi)
                unknown = not any(o.packed for o in sig.srcs)
                raise Gfx9AsmError(f"{d.name.lower()} takes no op_sel / op_sel_hi (its result is not packed)",
                                   modifier=key if unknown or key == "op_sel" else None, unknown=unknown)
            nsrc = len(plan.srcs)
            for key in ("neg_lo", "neg_hi"):    # an entry per source; later ones are ignored (LLVM)
                why = neg_list_error(d, key, _mod_bits(mods, key), nsrc) if key in mods else None
                if why:         # refused with no entry set: a list LLVM's syntax lacks
                    raise Gfx9AsmError(f"{d.name.lower()}: {why}", modifier=key,
                                       unknown=neg_list_error(d, key, [], nsrc) is not None)
            f["NEG"] = neg | _bits_of(_mod_bits(mods, "neg_lo")[:nsrc]) if "neg_lo" in mods else neg
            f["NEG_HI"] = abs_ | (_bits_of(_mod_bits(mods, "neg_hi")[:nsrc]) if "neg_hi" in mods else 0)
            if "op_sel" in mods:    # an entry per source; later ones (a destination's) are ignored
                f["OPSEL"] = _bits_of(_mod_bits(mods, "op_sel")[:nsrc])
            # op_sel_hi: an entry per source (0 where the list is short, as LLVM); the bits of sources
            # the instruction does not have stay at the default (1; v_*_mix*: 0)
            default = 0 if plan.is_mix else 1
            given = _mod_bits(mods, "op_sel_hi")[:nsrc] if "op_sel_hi" in mods else [default] * nsrc
            hi = _bits_of(given + [0] * (nsrc - len(given)) + [default] * (3 - nsrc))
            f["OPSEL_HI"], f["OPSEL_HI2"] = hi & 3, hi >> 2 & 1
        else:
            f["NEG"], f["ABS"] = neg, abs_
            if plan.truth_table:    # TTBL = { OMOD[1:0], ABS[2:0], NEG[2:0] }
                if neg or abs_:
                    raise Gfx9AsmError(f"{d.name.lower()} takes no source modifiers (its NEG and ABS bits "
                                       f"hold the bitop3 truth table)")
                table = _int_in(mods, "bitop3", 0, 255)
                f["NEG"], f["ABS"], f["OMOD"] = table & 7, table >> 3 & 7, table >> 6
            if opsel_flags(d):    # (isa.facts.opsel_flags) bound_ctrl:0 sets its bit too, as in DPP
                order = [n for n, _ in g9.OPSEL_FLAG_KEYS if n in mods]
                if order != [n for n in mods if n in order]:
                    raise Gfx9AsmError(f"{d.name.lower()}: write {' before '.join(order)}")
                f["OPSEL"] = sum(1 << bit for n, bit in g9.OPSEL_FLAG_KEYS
                                 if n in mods and (n == "bound_ctrl" or _mod_int(mods, n)))
            if "op_sel" in mods:
                sel = _mod_bits(mods, "op_sel")
                # LLVM's order: an entry per source, then the destination's; later entries are ignored
                n = len(plan.srcs)
                f["OPSEL"] = 0 if plan.opsel_ignored else \
                    _bits_of(sel) if plan.opsel_byte else _bits_of(sel[:n]) | (8 if sel[n:n + 1] == [1] else 0)
            if not plan.truth_table:
                f["OMOD"] = _omod(mods)
        if "clamp" in mods and not plan.clamp:     # (VOP3P: the VOP3 keys were checked above)
            raise Gfx9AsmError(f"{d.name.lower()} takes no clamp (an integer result that does not saturate, or "
                               f"one the manual says ignores it)", modifier="clamp")
        f["CLMP"] = 1 if "clamp" in mods else 0
    elif kind in ("SDWA", "SDWAB"):
        if kind == "SDWA":
            w2["CLMP"] = 1 if "clamp" in mods else 0
            w2["OMOD"] = _omod(mods, plan.sdwa_omod)
            if sig.dsts:        # (no destination, v_nop: nothing to select, the fields stay 0)
                w2["DST_SEL"] = _mod_name(mods, "dst_sel", "DWORD", g9.SDWA_SEL)
                w2["DST_U"] = _mod_name(mods, "dst_unused", "UNUSED_PAD" if sdwa_selects(d)
                                        else "UNUSED_PRESERVE", g9.SDWA_UNUSED)
        for i in range(min(2, len(plan.srcs))):
            w2[f"SRC{i}_SEL"] = _mod_name(mods, f"src{i}_sel", "DWORD", g9.SDWA_SEL)
    elif kind == "DPP":
        w2["DPP_CTRL"] = _dpp_ctrl(mods)
        w2["ROW_MASK"] = _mod_int(mods, "row_mask", 0xf)
        w2["BANK_MASK"] = _mod_int(mods, "bank_mask", 0xf)
        w2["BC"] = 1 if "bound_ctrl" in mods else 0
    f["OP"] = d.opcode
    value = _pack(fmt, f)
    out = value.to_bytes(fmt.width // 8, "little")
    if kind:
        out += _word2(spec, kind, w2).to_bytes(4, "little")
    elif enc.literal is not None:
        out += enc.literal.to_bytes(4, "little")
    return out


def _constant_bus(spec: Spec, srcs: list, enc: _Enc, reads_vcc: bool, mask_ops) -> None:
    """A VALU instruction reads at most one scalar value (an SGPR or special register, the same
    one any number of times, or the literal); the implicit VCC of the 32-bit carry and select
    forms counts too (gfx9's constant bus; inline constants are free)."""
    t = spec.traits
    used = {("lit",)} if enc.literal is not None else set()
    for s in list(srcs) + ([mask_ops[-1]] if mask_ops else []):
        if s.kind == "s" and not t.is_constant(s.val):
            used.add((s.val, s.n))
    if reads_vcc:
        used.add((t.vcc_lo, 2))
    if len(used) > 1:   # named at the first scalar source the bus has no room for (VCC read first,
        # and v_fmaak/v_fmamk's K, a literal outside the sources, as LLVM counts them)
        seen, last = {(t.vcc_lo, 2)} if reads_vcc else set(), None
        if enc.literal is not None and not any(s.kind == "lit" for s in srcs):
            seen.add(("lit",))
        for s in list(srcs) + ([mask_ops[-1]] if mask_ops else []):
            key = ("lit",) if s.kind == "lit" else (s.val, s.n) if s.kind == "s" and not t.is_constant(s.val) else None
            if key is not None and key not in seen:
                seen.add(key)
                if len(seen) > 1:
                    last = s
                    break
        named = last.value if last is not None else None
        raise Gfx9AsmError("reads more than one scalar value (the constant bus takes one)",
                           _inside(named), index=last.index if last is not None else None)   # (inside -x, sext(x))


# a matrix accumulator C as a constant on it is typed: each element a 32-bit value (f32, i32),
# or an f64 (v_mfma_f64_*); an inline constant stands for every element
_MFMA_ACCUMULATOR = {False: Operand("src2", 1, False, "b", False, 32), True: Operand("src2", 2, False, "f", False, 64)}


def _encode_mfma(spec: Spec, d, ops: list[Src], mods: dict) -> bytes:
    if len(ops) != 4:
        raise Gfx9AsmError(f"{d.name.lower()} takes 4 operands, got {len(ops)}")
    _, m, n_, k, blocks, sparse, out_t, _, _ = next(r for r in spec.tables["mfma"] if r[0] == d.name)
    _allow(mods, _MFMA_KEYS, d.name.lower())
    if "neg" in mods and out_t != "f64":   # LLVM 22: "invalid modifier: neg is not supported"
        raise Gfx9AsmError("invalid modifier: neg is not supported here; neg:[..] is only on the f64 matrix "
                           "instructions (v_mfma_f64_*; elsewhere the field is BLGP)", modifier="neg")
    signed = next((i for i, s in enumerate(ops[1:]) if s.neg or s.abs), None)
    if signed is not None:      # LLVM 22: "not a valid operand" (v_mfma_f64_*: NEG is the neg:[..] list)
        raise Gfx9AsmError(f"{d.name.lower()}: src{signed} takes no -x/|x| on a matrix instruction"
                           + (f"; write neg:[{','.join('1' if j == signed else '0' for j in range(3))}]"
                              if out_t == "f64" else ""), ops[1 + signed].value)
    enc = _Enc()
    f = {"OP": d.opcode}
    f["VDST"], acc_cd = _vgpr(_matched(ops[0]))
    f["ACC_CD"] = int(acc_cd)
    acc = 0
    for i in range(2):
        s = ops[i + 1]
        if s.kind not in ("v", "a"):
            raise Gfx9AsmError(f"{s.text}: the matrix inputs A and B are vector registers", s.value)
        acc |= (s.kind == "a") << i
        f[f"SRC{i}"] = _src9(spec, _matched(s), enc, agpr_ok=True)
    c, dst = ops[3], ops[0]
    if not sparse and dst.n > 4 and c.kind == dst.kind and c.val != dst.val and \
            c.val < dst.val + dst.n and dst.val < c.val + c.n:   # checked for results wider than 128 bits
        raise Gfx9AsmError(f"{c.text}: the accumulator input must be the destination or not overlap it", c.value)
    if sparse and c.kind not in ("v", "a"):
        raise Gfx9AsmError(f"{c.text}: the sparse index (C) is a vector register", c.value)
    _typed_constant(spec, c, _MFMA_ACCUMULATOR[out_t == "f64"], "vop3p")
    f["SRC2"] = _src9(spec, c, enc, agpr_ok=True)
    if enc.literal is not None:
        raise Gfx9AsmError("matrix instructions take no literal constant", c.value)
    f["ACC"] = acc
    f["CBSZ"] = _mod_int(mods, "cbsz", 0)
    f["ABID"] = _mod_int(mods, "abid", 0)
    f["BLGP"] = _bits_of(_mod_bits(mods, "neg")) if "neg" in mods else _mod_int(mods, "blgp", 0)
    fmt = spec.formats["VOP3P-MAI"]
    value = _pack(fmt, f) | spec.formats[d.format].encoding[0]
    return value.to_bytes(8, "little")


# ---------------------------------------------------------------- scalar


def _hwreg(spec: Spec, value, mn: str) -> int:
    """hwreg(name or id[, offset, size]) -> SIMM16."""
    ids = {g9.hwreg_text_name(n): code for code, n, _ in spec.tables["hwreg"] if n != "reserved"}
    ids.update({"HW_REG_" + n: c for c, n in g9.HWREG_EXTRA.items()})
    return simm16.hwreg(value, mn, ids)


def _imm16(value, unsigned: bool = False) -> int:
    """A 16-bit immediate: -32768..65535, or 0..65535 where the pseudocode reads it unsigned
    (lit(n) is n: SOPK has no literal slot for it to force)."""
    if isinstance(value, Lit):
        value = value.value
    if type(value) is not int:
        raise Gfx9AsmError(f"{_text(value)}: expected a 16-bit number", value)
    if not (0 if unsigned else -0x8000) <= value <= 0xffff:
        legal = "0..65535 (read as unsigned)" if unsigned else "-32768..65535"
        raise Gfx9AsmError(f"{_text(value)}: expected a 16-bit immediate {legal}", value)
    return value & 0xffff


def _waitcnt(spec: Spec, values: list, mn: str) -> int:
    """s_waitcnt's SIMM16 from a number or counters (vmcnt(0) lgkmcnt(0)); unnamed ones wait for
    nothing. vmcnt is 6 bits, split: its low 4 at VM, its high 2 at VM_HI."""
    if len(values) == 1 and type(values[0]) is int:
        return simm16.number16(values[0], mn)
    fields = {name: (hi, lo) for name, hi, lo in spec.tables["waitcnt"]}
    width = {name: hi - lo + 1 for name, (hi, lo) in fields.items()}
    limits = {"vmcnt": (1 << width["VM"] + width["VM_HI"]) - 1, "expcnt": (1 << width["EXP"]) - 1,
              "lgkmcnt": (1 << width["LGKM"]) - 1}
    counts = {**limits, **simm16.counters(values, mn, limits)}
    vm = counts["vmcnt"]
    return ((vm & (1 << width["VM"]) - 1) << fields["VM"][1] | (vm >> width["VM"]) << fields["VM_HI"][1]
            | counts["expcnt"] << fields["EXP"][1] | counts["lgkmcnt"] << fields["LGKM"][1])


def _name_or_number(value, names: dict, what: str) -> int:
    if isinstance(value, Attr) and value.name in names:
        return names[value.name]
    if type(value) is int:
        return value
    raise Gfx9AsmError(f"{_text(value)}: expected {what}", value)


def _sendmsg(value, mn: str) -> int:
    """gfx9's messages are 4 bits; GS and GS_DONE take a GS_OP_* (GS not GS_OP_NOP) and a stream,
    SYSMSG a SYSMSG_OP_* (simm16.message)."""
    ids = {v: k for k, v in g9.SENDMSG_NAMES.items()}
    return simm16.message(value, mn, ids, 4, g9.message_operations(), frozenset(g9.STREAM_MESSAGES))


def _gpr_idx(value) -> int:
    if not isinstance(value, Call) or value.name != "gpr_idx":
        if type(value) is not int or not 0 <= value <= 15:
            raise Gfx9AsmError(f"{_text(value)}: the GPR index mode is 4 bits (gpr_idx(SRC0,SRC1,SRC2,DST))", value)
        return value
    bits = 0
    for a in value.args:
        if not isinstance(a, Attr) or a.name not in g9.GPR_IDX_MODES:
            raise Gfx9AsmError(f"{_text(value)}: expected gpr_idx() of {', '.join(g9.GPR_IDX_MODES)}", value)
        if bits & 1 << g9.GPR_IDX_MODES.index(a.name):
            raise Gfx9AsmError(f"{_text(value)}: {a.name} given twice", value)
        bits |= 1 << g9.GPR_IDX_MODES.index(a.name)
    return bits


def encode_scalar(spec: Spec, d, ops: tuple, mods: dict) -> bytes:
    from .signature import scalar_layout, sopk_immediate_unsigned
    fmt = spec.formats[d.format]
    mn = d.name.lower()
    f = {"OP": d.opcode}
    enc = _Enc()
    if d.format == "SOPP":
        style = syntax.sopp_style(d, True) or "hex"
        if style == "waitcnt":     # vmcnt(0) lgkmcnt(0): the counts after the first are read as modifiers
            f["SIMM16"] = _waitcnt(spec, list(ops) + [v for v in mods.values() if isinstance(v, Call)], mn)
            mods = {k: v for k, v in mods.items() if not isinstance(v, Call)}
        if mods:
            raise Gfx9AsmError(f"unexpected {' '.join(mods)!r}")
        if style == "waitcnt":
            pass
        elif style == "none" or style == "opt" and not ops:
            if ops:
                raise Gfx9AsmError(f"{mn} takes no operand", ops[0])
            f["SIMM16"] = 0
        elif not ops:
            raise Gfx9AsmError(f"{mn} takes one operand (its 16-bit immediate), got none")
        elif len(ops) > 1:
            raise Gfx9AsmError(f"{mn} takes one operand, got {len(ops)}", ops[1])
        elif style == "sendmsg":
            f["SIMM16"] = _sendmsg(ops[0], mn)
        elif style == "gpr_idx":
            f["SIMM16"] = _gpr_idx(ops[0])
        else:
            f["SIMM16"] = simm16.number16(ops[0], mn, style in syntax.UNSIGNED_SOPP_STYLES)
        return _pack(fmt, f).to_bytes(4, "little")
    if mods:
        raise Gfx9AsmError(f"unexpected {' '.join(mods)!r}")
    if d.format == "SOPK":
        operands, style = g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        if len(ops) != len(operands):
            raise Gfx9AsmError(f"{mn} takes {len(operands)} operands, got {len(ops)}")
        for o, value in zip(operands, ops):
            if o in ("sdst", "sdst64"):
                f["SDST"] = _sreg(spec, plain(spec, value))
            elif o == "imm":
                f["SIMM16"] = _imm16(value, sopk_immediate_unsigned(d))
            elif o == "hwreg":      # hwreg(...) or its 16-bit number
                f["SIMM16"] = _hwreg(spec, value, mn)
            elif o == "lit":
                if type(value) is not int:
                    raise Gfx9AsmError(f"{_text(value)}: expected a 32-bit number", value)
                enc.lit(value & 0xffffffff)
        out = _pack(fmt, f).to_bytes(4, "little")
        return out + (enc.literal.to_bytes(4, "little") if enc.literal is not None else b"")
    if raw_source_field(d, spec.traits.roles):        # s_set_gpr_idx_on: SSRC1 is the mode bits, gpr_idx(...)
        layout = [("ssrc0", "SSRC0", 1)]
        if len(ops) != 2:
            raise Gfx9AsmError(f"{mn} takes 2 operands")
        f["SSRC1"] = _gpr_idx(ops[1])
        ops = ops[:1]
    else:
        layout = list(scalar_layout(d))
    if len(ops) != len(layout):
        raise Gfx9AsmError(f"{mn} takes {len(layout)} operands, got {len(ops)}")
    for (name, field, n), value in zip(layout, ops):
        s = plain(spec, value)
        if name == "sdst":
            f["SDST"] = _sreg(spec, s)
            continue
        # isa.facts.source_limits: a register (the code reads its number or jumps to it; LLVM's
        # s_cbranch_join), or no literal (LLVM's s_cbranch_g_fork)
        limit = dict(source_limits(d)).get("S0" if field == "SSRC0" else "S1")
        if limit == "register" and n == 2 and (s.kind != "s" or s.val >= spec.traits.ttmp_base + spec.traits.ttmps
                                               and s.val not in (spec.traits.exec_lo, spec.traits.vcc_lo)):
            raise Gfx9AsmError(f"{s.text}: {mn} takes a scalar register pair here", value)
        if s.number is not None and limit == "register":
            raise Gfx9AsmError(f"{s.text}: {mn} takes a scalar register here (its source is a register number, "
                               f"an address to jump to or a saved state), not a constant", value)
        if limit == "inline" and s.kind == "lit":
            raise Gfx9AsmError(f"{s.text}: {mn} takes no literal constant", value)
        _typed_constant(spec, s, _SCALAR_OPERANDS[n], "salu")
        f[field] = _src9(spec, s, enc)
        if f[field] in spec.traits.aperture_codes and limit == "register":
            raise Gfx9AsmError(f"{s.text}: {mn} takes a scalar register here; a memory aperture "
                               f"({s.text}) is no register", value)
    out = _pack(fmt, f).to_bytes(4, "little")
    return out + (enc.literal.to_bytes(4, "little") if enc.literal is not None else b"")


# ---------------------------------------------------------------- memory


def _cache(f: dict, mods: dict):
    for n in ("SC0", "NT", "SC1"):
        f[n] = 1 if n.lower() in mods else 0


def encode_smem(spec: Spec, d, ops: tuple, mods: dict) -> bytes:
    fmt = spec.formats["SMEM"]
    mn = d.name.lower()
    f = {"OP": d.opcode, "GLC": 1 if "glc" in mods else 0, "NV": 1 if "nv" in mods else 0}
    srcs = [plain(spec, o) for o in ops]
    it = iter(srcs)
    from .signature import cache_control
    if cache_control(d):                 # s_dcache_wb: no operands
        if ops:
            raise Gfx9AsmError(f"{mn} takes no operands", ops[0])
    elif reads_counter(d):               # s_memtime: the clock's SGPRs, no address
        data = next(it, None)
        if data is None:
            raise Gfx9AsmError(f"{mn} takes 1 operand (sdst), got none")
        f["SDATA"] = _smem_data(spec, data, mn)
    elif not ops:
        raise Gfx9AsmError(f"{mn}: too few operands")
    else:
        role = scalar_data(d)
        if role == "immediate":          # s_atc_probe's mode
            f["SDATA"] = _imm16(ops[0])
            next(it)
        elif role == "register":         # (s_dcache_discard has none)
            data = next(it)
            f["SDATA"] = _smem_data(spec, data, mn)
        base = next(it, None)
        if base is None:
            raise Gfx9AsmError(f"{mn}: too few operands (no sbase)")
        f["SBASE"] = _sreg(spec, base) // 2
        off = next(it, None)
        if off is None:              # an offset not written is the immediate 0, as LLVM reads it
            off = plain(spec, 0)
        lo = 0 if scalar_base_registers(d) == 4 else -(1 << 20)   # buffer offsets are unsigned
        if off.kind == "s" and isinstance(off.value, (Reg, Special, Attr)):     # an SGPR or special register
            if "offset" in mods:
                value = _mod_int(mods, "offset")
                if not lo <= value < 1 << 20:
                    raise Gfx9AsmError(f"offset:{value}: out of range")
                f["SOE"], f["IMM"], f["SOFFSET"] = 1, 1, off.val
                f["OFFSET"] = value & 0x1fffff
            else:
                f["OFFSET"] = off.val
        else:
            value = off.value
            if "offset" in mods:        # (was dropped): offset:N goes with an SGPR offset only
                raise Gfx9AsmError(f"offset:{_text(mods['offset'])}: {mn} has its immediate offset {off.text} "
                                   f"already; offset:N goes with an SGPR offset", value)
            if type(value) is not int or not lo <= value < 1 << 20:
                raise Gfx9AsmError(f"{off.text}: expected a {'20-bit unsigned' if lo == 0 else '21-bit signed'} offset",
                                   value)
            f["IMM"] = 1
            f["OFFSET"] = value & 0x1fffff
    extra = next(it, None)
    if extra is not None:
        raise Gfx9AsmError(f"{mn}: {extra.text}: an operand too many", extra.value)
    return _pack(fmt, f).to_bytes(8, "little")


def encode_ds(spec: Spec, d, ops: tuple, mods: dict) -> bytes:
    from isa.memory_access import memory_access
    from .signature import ds_layout
    fmt = spec.formats["DS"]
    name = d.name
    two = memory_access(d).two_addresses
    _allow(mods, {"offset0", "offset1", "gds"} if two else {"offset", "gds"}, name.lower())
    if gds_only(d) and "gds" not in mods:
        raise Gfx9AsmError(f"{name.lower()} works on the global wave sync only: write gds")
    f = {"OP": d.opcode, "GDS": 1 if "gds" in mods else 0}
    srcs = [plain(spec, o) for o in ops]
    it = iter(srcs)
    acc = None

    def data(field):
        nonlocal acc
        s = next(it)
        idx, a = _vgpr(s)
        if acc is not None and a != acc:
            raise Gfx9AsmError("data and result must all be VGPRs or all AGPRs")
        acc = a
        f[field] = idx
        return s
    try:
        for operand, field, _ in ds_layout(d):
            if operand == "addr":   # the address is always a VGPR
                s = next(it)
                f["ADDR"], _ = _vgpr(s, False)
                continue
            s = data(field)
            if field == "ADDR" and f["ADDR"] % 2:   # GWS: gfx90a and later read the value from an even register
                raise Gfx9AsmError(f"{name.lower()}: {s.text}: the GWS value register must be even", s.value)
    except StopIteration:
        raise Gfx9AsmError(f"{name.lower()}: too few operands") from None
    if next(it, None) is not None:
        raise Gfx9AsmError(f"{name.lower()}: too many operands")
    f["ACC"] = int(bool(acc))
    if two:
        f["OFFSET0"], f["OFFSET1"] = _mod_int(mods, "offset0", 0), _mod_int(mods, "offset1", 0)
    else:
        off = mods.get("offset", 0)
        off = _swizzle(off, d) if isinstance(off, Call) else _mod_int(mods, "offset", 0)
        f["OFFSET0"], f["OFFSET1"] = off & 0xff, off >> 8 & 0xff
    return _pack(fmt, f).to_bytes(8, "little")


def _swizzle(value: Call, d) -> int:
    """offset:swizzle(MODE, ...): the gfx11 encoder's table of LLVM's swizzle macros."""
    from .encode import _swizzle_value
    try:
        return _swizzle_value(value, d)
    except OperandError as e:
        raise Gfx9AsmError(str(e)) from None


def encode_flat(spec: Spec, d, ops: tuple, mods: dict) -> bytes:
    fmt = spec.formats[d.format]
    name = d.name
    f = {"OP": d.opcode}
    _cache(f, mods)
    srcs = [None if _off(o) else plain(spec, o) for o in ops]
    it = iter(srcs)
    acc = None
    from .signature import flat_layout
    layout = {operand: n for operand, _, n in flat_layout(d, bool(f["SC0"]))}

    def data(field):
        nonlocal acc
        s = next(it)
        if s is None:
            raise Gfx9AsmError("expected a register")
        idx, a = _vgpr(s)
        if acc is not None and a != acc:
            raise Gfx9AsmError("data and result must all be VGPRs or all AGPRs")
        acc = a
        f[field] = idx
        return s
    try:
        if "vdst" in layout:
            data("VDST")
        addr = next(it)
        if d.format == "SCRATCH" and addr is None:
            f["LDS"] = 0
        elif addr is None:
            raise Gfx9AsmError("expected a VGPR address")
        else:
            # a global address without an SGPR base (saddr off) is a 64-bit VGPR pair
            f["ADDR"], _ = _vgpr(addr, False)
            if d.format == "SCRATCH":
                f["LDS"] = 1
        if "vdata" in layout:
            data("DATA")
        if d.format in ("GLOBAL", "SCRATCH"):
            s = next(it)
            f["SADDR"] = spec.traits.saddr_off[0] if s is None else _sreg(spec, s)     # `off`: the manual's disable code
            wrong = s is not None and isinstance(s.value, (Special, Attr)) and \
                saddr_error(spec.traits, s.value.name, f["SADDR"], 2 if d.format == "GLOBAL" else 1, addr is not None)
            if wrong:
                raise Gfx9AsmError(f"{name.lower()}: saddr: {wrong}", s.value)
    except StopIteration:
        raise Gfx9AsmError(f"{name.lower()}: too few operands") from None
    if next(it, None) is not None:
        raise Gfx9AsmError(f"{name.lower()}: too many operands")
    f["ACC"] = int(bool(acc))
    off = _mod_int(mods, "offset", 0)
    lo, hi = (0, 4095) if d.format == "FLAT" else (-4096, 4095)
    if not lo <= off <= hi:
        raise Gfx9AsmError(f"offset:{off}: expected a {'12-bit unsigned' if lo == 0 else '13-bit signed'} offset")
    f["OFFSET"] = off & 0x1fff
    f["SEG"] = {"FLAT": 0, "SCRATCH": 1, "GLOBAL": 2}[d.format]
    return _pack(fmt, f).to_bytes(8, "little")


def encode_buffer(spec: Spec, d, ops: tuple, mods: dict) -> bytes:
    fmt = spec.formats[d.format]
    f = {"OP": d.opcode, "IDXEN": 1 if "idxen" in mods else 0, "OFFEN": 1 if "offen" in mods else 0,
         "LDS": 1 if "lds" in mods else 0}
    _cache(f, mods)
    if d.format == "MUBUF":
        pass
    else:
        f.pop("LDS")
    from .signature import cache_control
    if cache_control(d):
        return _pack(fmt, f).to_bytes(8, "little")
    srcs = [None if _off(o) else plain(spec, o) for o in ops]
    if not f.get("LDS"):
        if not srcs or srcs[0] is None:
            raise Gfx9AsmError("expected the data register")
        f["VDATA"], a = _vgpr(srcs.pop(0))
        f["ACC"] = int(a)
    if len(srcs) != 3:
        raise Gfx9AsmError(f"{d.name.lower()}: expected vaddr, srsrc, soffset")
    vaddr, srsrc, soff = srcs
    if srsrc is None or soff is None:
        what = "srsrc: expected SGPRs (the buffer resource)" if srsrc is None else "soffset: expected an SGPR or a constant"
        raise Gfx9AsmError(f"{d.name.lower()}: {what}, got off")
    if vaddr is None and (f["IDXEN"] or f["OFFEN"]):     # idxen/offen read the address VGPRs, which off has not
        raise Gfx9AsmError(f"{d.name.lower()}: vaddr: idxen and offen read an address VGPR; off gives none")
    if vaddr is not None and not (f["IDXEN"] or f["OFFEN"]):
        raise Gfx9AsmError(f"{d.name.lower()}: vaddr: {vaddr.text} is read only with idxen or offen; without them "
                           f"write off", vaddr.value)
    if vaddr is not None:
        f["VADDR"], _ = _vgpr(vaddr, False)
    f["SRSRC"] = _sreg(spec, srsrc) // 4
    enc = _Enc()
    _typed_constant(spec, soff, _SCALAR_OPERANDS[1], "salu")   # a 32-bit value: 0x3f800000 is the inline 1.0
    f["SOFFSET"] = _src9(spec, soff, enc)
    if enc.literal is not None:
        raise Gfx9AsmError(f"{soff.text}: soffset takes no literal")
    f["OFFSET"] = _mod_int(mods, "offset", 0)
    if d.format == "MTBUF":
        f["DFMT"], f["NFMT"] = 1, 0
        if "format" in mods:
            value = mods["format"]
            dfmts, nfmts = _buffer_format_codes(spec)
            for item in value if isinstance(value, list) else [value]:
                name = item.name if isinstance(item, Attr) else ""
                if name in dfmts:
                    f["DFMT"] = dfmts[name]
                elif name in nfmts:
                    f["NFMT"] = nfmts[name]
                elif type(item) is int:
                    f["DFMT"] = item
                else:
                    raise Gfx9AsmError(f"format:{_text(value)}: expected BUF_DATA_FORMAT_* and BUF_NUM_FORMAT_* "
                                       f"names or a number")
    return _pack(fmt, f).to_bytes(8, "little")


# ---------------------------------------------------------------- lines


_MEMORY = {"SMEM": encode_smem, "DS": encode_ds, "FLAT": encode_flat, "GLOBAL": encode_flat,
           "SCRATCH": encode_flat, "MUBUF": encode_buffer, "MTBUF": encode_buffer}


_FLAGS = {"gds", "clamp", "idxen", "offen", "glc", "nv", "sc0", "sc1", "nt", "lds"}


def lookup(spec: Spec, mnemonic: str) -> tuple[str, list]:
    """(mnemonic, InstrDefs) of a gfx9 mnemonic; CDNA2's MFMA spellings without the type's
    underscore (v_mfma_f32_32x32x8f16) are read as CDNA3's."""
    mn = mnemonic.lower()
    base = isa.llvm_base_mnemonic(mn)
    llvm = refused_spelling(base, spec.arch)
    if llvm is not None:
        raise Gfx9AsmError(f"{base}: instruction not supported on {spec.arch} (LLVM spells it {llvm} there)")
    defs = spec.lookup(amd_name(base, spec.arch))
    if not defs:
        modern = _cdna2_mfma_spellings(spec).get(base)
        if modern is not None:
            return modern + mn[len(base):], spec.lookup(amd_name(modern, spec.arch))
    return mn, defs


@lru_cache(maxsize=None)
def _cdna2_mfma_spellings(spec: Spec) -> dict[str, str]:
    """CDNA2's spelling of each of the target's matrix instructions (tables["mfma"]), which LLVM
    still reads: no underscore between the shape and the type (v_mfma_f32_32x32x8f16 for
    v_mfma_f32_32x32x8_f16) -> the target's mnemonic."""
    out = {}
    for row in spec.tables.get("mfma", ()):
        modern = text_mnemonic(row[0], spec.arch)
        old = re.sub(r"(\d+x\d+x\d+)_(?=[a-z])", r"\1", modern, count=1)
        if old != modern:
            out[old] = modern
    return out


def encode(spec: Spec, instr: Instr) -> tuple[bytes, object]:
    """(bytes, InstrDef chosen) of an instruction value whose operands are all known (labels and
    symbols: Gfx9Encoder.encode); each register operand must be as wide as the instruction's
    operand is (_check_register_widths)."""
    global _validated
    outer, validated = _validated, _validated_tuples(spec, instr)
    _validated = validated
    try:
        data, d = _encode(spec, instr)
        _check_register_widths(spec, instr, data)
    finally:
        _validated = outer
    for v in validated:     # (odd-based: an even one is none of them)
        raise Gfx9AsmError(f"{instr.mnemonic}: {_text(v)}: vector register tuples must be 64-bit aligned "
                           f"(even first register)", at_mnemonic=True)
    return data, d


_validated: tuple = ()      # the odd-based tuples of the instruction being encoded refused once it is encoded


def _validated_tuples(spec: Spec, instr: Instr) -> tuple:
    """The odd-based vector tuples that LLVM 22's operand match takes and its later check of the
    whole instruction refuses (at the mnemonic, after the offset's range, the constant bus and a
    register the target lacks): a memory instruction's in its AGPR forms of instructions writing
    two or more AGPR operands (a returning atomic's result and data, DS's two data) and
    tbuffer_*'s 64-bit address; a VALU instruction's where encode_valu does not refuse them first
    (_matched: the sources taking constants, a DPP source, the matrix accumulator C). Elsewhere
    its operand match refuses them, at the tuple (tests/test_dsl_error_column_classes.py holds
    both against LLVM 22; of 8,000 odd-based gfx942/gfx950 corpus variants 5 differ,
    v_mov_b64_dpp's source)."""
    operands = instr.operands
    if not operands or not any(isinstance(u, (Reg, Agpr)) and u.count > 1 and u.idx % 2 and u.cls in ("v", "a")
                               for u in map(_unwrapped, operands)):
        return ()
    _, defs = lookup(spec, instr.mnemonic)
    fmt = defs[0].format if defs else None
    if fmt in spec.traits.roles.salu or fmt is None:
        return ()
    if fmt not in _MEMORY:      # VALU: where encode_valu does not refuse it (_matched), once encoded
        return tuple(o for o in operands if isinstance(_unwrapped(o), (Reg, Agpr)) and _unwrapped(o).cls in ("v", "a")
                     and _unwrapped(o).count > 1 and _unwrapped(o).idx % 2)
    agprs = [o for o in operands if isinstance(o, (Reg, Agpr)) and o.cls == "a"]
    out = [o for o in agprs if o.count > 1 and o.idx % 2] if len(agprs) > 1 else []
    if fmt == "MTBUF" and len(operands) > 1 and isinstance(operands[1], Reg) and operands[1].cls == "v" \
            and operands[1].count == 2 and operands[1].idx % 2:
        out.append(operands[1])
    return tuple(out)


def _inside(value):
    """The operand inside one -x, |x| or sext(x), else `value`."""
    if isinstance(value, Mod):
        return value.value
    return value.args[0] if isinstance(value, Call) and value.name == "sext" and len(value.args) == 1 else value


def _unwrapped(value):
    """The operand inside -x, |x| and sext(x)."""
    while isinstance(value, Mod) or isinstance(value, Call) and value.name == "sext" and len(value.args) == 1:
        value = value.value if isinstance(value, Mod) else value.args[0]
    return value


def _width(value, widths: dict) -> tuple[str, int] | None:
    """(register file, registers) of a register operand (through -x, |x|, sext(x)), else None;
    a special register's are the family's (`widths`: special_registers.special_widths)."""
    value = _unwrapped(value)
    if isinstance(value, (Reg, Agpr)):
        return value.cls, value.count
    if isinstance(value, (Special, Attr)) and value.name in widths:
        return "special", widths[value.name]
    return None


def _check_register_widths(spec: Spec, instr: Instr, data: bytes) -> None:
    """Every register operand written as wide as the instruction reads or writes it there: the
    widths are those the decoder's builder (instr_fields_gfx9, from the same signatures and
    plans as the RDNA assembler's checks) gives the encoded bytes, compared operand by operand;
    the encoder places a register by its first index only, so s2 where s[2:3] is read would
    otherwise pass."""
    # the widths depend on the instruction, its encoding and its flags, never on register
    # numbers: a shape checked once (mnemonic, each operand's width or kind, modifier names)
    # is not decoded again
    widths = special_widths(spec.traits)
    shape = (spec.arch, instr.mnemonic, tuple(_width(o, widths) or _kind(o) for o in instr.operands),
             tuple(instr.modifiers))
    if shape in _widths_checked:
        return
    from .decode import decode_one
    from .instr_fields_gfx9 import gfx9_instr
    from .operands_gfx9 import operand_names
    inst = decode_one(spec, data, 0)
    decoded = gfx9_instr(spec, inst)
    if decoded is None:
        return
    written = [o for o in instr.operands if not (isinstance(o, Attr) and o.name.lower() in _FLAGS)]
    roles = spec.traits.roles
    implied = len(written) == len(decoded.operands) - 1 and Special("vcc") in decoded.operands and \
        inst.defs[0].format in roles.valu_e32 | roles.valu_e64     # (an SMEM offset left out is the last operand)
    if implied:     # the 32-bit encoding's implicit vcc left unwritten (encode_valu): the decoder's
        # first vcc (a 32-bit source reads as vcc_lo)
        written.insert(decoded.operands.index(Special("vcc")), Special("vcc"))
    names = None
    for i, (given, want) in enumerate(zip(written, decoded.operands)):
        g, w = _width(given, widths), _width(want, widths)
        if g is None or w is None or g[1] == w[1]:
            continue
        if implied:     # read with vcc implied the operands do not fit: one is missing
            raise Gfx9AsmError(f"{instr.mnemonic}: takes {len(decoded.operands)} operands, got {len(written) - 1}")
        names = names or operand_names(spec, inst)
        what = names[i] if i < len(names) else f"operand {i + 1}"
        inner = _unwrapped(given)
        wrong = g[0] == "special" and width_error(spec.traits, inner.name, w[1])
        if wrong:
            raise Gfx9AsmError(f"{instr.mnemonic}: {what}: {wrong}", given)
        raise Gfx9AsmError(f"{instr.mnemonic}: {what}: {_text(given)} is {_registers_text(g[1])} ({32 * g[1]} "
                           f"bits), this operand needs {w[1]} ({_text(want)})", given)
    _check_special_widths(spec, instr, written, decoded.operands, lambda: operand_names(spec, inst))
    _widths_checked.add(shape)


def _check_special_widths(spec: Spec, instr: Instr, written: list, decoded: list, operand_names) -> None:
    """A special register (m0, exec_hi, vcc, ...; not an aperture or a condition, which any width
    reads) written where the operand is wider: the decoder names the code by the special's name
    whatever the width, so the operand's width is found by writing s0 in its place (once per
    instruction shape) and the special's is the family's (special_registers.width_error, the
    RDNA encoder's check too)."""
    names, widths = _names(spec), special_widths(spec.traits)
    for i, given in enumerate(written):
        inner = given.value if isinstance(given, Mod) else given
        if not isinstance(inner, (Special, Attr)) or inner.name not in names \
                or names[inner.name] not in spec.traits.scalar_codes or i >= len(decoded):
            continue
        probe = replace(instr, operands=tuple(Reg("s", 0, 1) if o is given else o for o in instr.operands))
        try:
            data, _ = _encode(spec, probe)
        except (Gfx9AsmError, OperandError):
            continue
        from .decode import decode_one
        from .instr_fields_gfx9 import gfx9_instr
        redecoded = gfx9_instr(spec, decode_one(spec, data, 0))
        want = _width(redecoded.operands[i], widths) if redecoded is not None and i < len(redecoded.operands) else None
        wrong = want is not None and want[1] > widths.get(inner.name, want[1]) and \
            width_error(spec.traits, inner.name, want[1])
        if wrong:
            what = operand_names()
            what = what[i] if i < len(what) else f"operand {i + 1}"
            raise Gfx9AsmError(f"{instr.mnemonic}: {what}: {wrong}", given)


_widths_checked: set = set()


def _registers_text(n: int) -> str:
    return f"{n} register{'s' if n != 1 else ''}"


def _kind(value) -> str:
    """What stands in a shape for an operand that is no register: its type (an Attr or a special
    register, its name: _check_special_widths tells m0 from src_execz)."""
    while isinstance(value, Mod):
        value = value.value
    return value.name if isinstance(value, (Attr, Special)) else type(value).__name__


def _encode(spec: Spec, instr: Instr) -> tuple[bytes, object]:
    mn, defs = lookup(spec, instr.mnemonic)
    if not defs:
        raise Gfx9AsmError(f"unknown instruction {mn!r}", unknown=True)
    ops, mods = instr.operands, dict(instr.modifiers)
    while ops and isinstance(ops[-1], Attr) and ops[-1].name.lower() in _FLAGS:
        mods[ops[-1].name.lower()] = True          # a flag written where an operand could start (ds_gws_sema_p gds)
        ops = ops[:-1]
    roles = spec.traits.roles
    chosen = instr.defn          # chosen where the Instr was built (the decoder, a DSL call): kept
    if chosen is not None and chosen not in defs:
        raise Gfx9AsmError(f"the Instr's definition {chosen.name} ({chosen.format}) is not an instruction "
                           f"{mn!r} names on {spec.arch}")
    d = chosen or defs[0]
    mn = _suffix_checked(spec, mn, defs)
    if d.format in roles.salu:
        return encode_scalar(spec, d, ops, mods), d
    if d.format in _MEMORY:
        mods = memory_flags(d, family_of(d), mods, Gfx9AsmError)
        _allow(mods, _MEMORY_KEYS[d.format], mn)
        return _MEMORY[d.format](spec, d, ops, mods), d
    srcs = [src(spec, o) for o in ops]
    for i, s in enumerate(srcs):
        s.index = i
    candidates = _valu_defs(spec, mn, mods)
    if chosen is not None:
        candidates = [(d, kind) for d, kind in candidates if d is chosen]
        if not candidates:
            raise Gfx9AsmError(f"the Instr's definition {chosen.name} ({chosen.format}) is not an encoding {mn!r} "
                               f"names (its suffix says {', '.join(sorted({d.format for d, _ in _valu_defs(spec, mn)}))})")
    errors = []
    for d, kind in candidates:
        try:
            return encode_valu(spec, d, kind, srcs, mods), d
        except Gfx9AsmError as e:
            errors.append(e)
    if not errors:
        raise Gfx9AsmError(f"unknown instruction {mn!r}", unknown=True)
    raise most_specific(errors, ops, mods)


def _suffix_checked(spec: Spec, mn: str, defs: list) -> str:
    """The mnemonic to encode after its encoding suffix is checked as LLVM's gfx9 syntax reads it:
    an instruction with one encoding (scalar, memory) takes `_e32` as its name for that encoding
    and refuses `_e64`, `_dpp`, `_sdwa`; a move between one lane and a scalar (v_readlane,
    v_readfirstlane, v_writelane: no DPP or SDWA form, the manual's instruction limitations)
    likewise takes `_e32` for the encoding its bare mnemonic names and no other suffix."""
    key = (spec.arch, mn)
    hit = _suffix_answers.get(key)
    if hit is None:
        hit = _suffix_answers[key] = _suffix_answer(spec, mn, defs)
    if hit[1]:
        raise Gfx9AsmError(hit[1], unknown=True)
    return hit[0]


_suffix_answers: dict = {}


def _suffix_answer(spec: Spec, mn: str, defs: list) -> tuple[str, str | None]:
    """(mnemonic to encode, refusal or None): _suffix_checked's answer, once per mnemonic."""
    from .encode import moves_a_lane_value, split_mnemonic
    base, suffix = split_mnemonic(mn)
    if not suffix:
        return mn, None
    roles = spec.traits.roles
    valu = [d for d in defs if d.format in roles.valu_e32 | roles.valu_e64]
    if not valu or any(moves_a_lane_value(d) for d in valu):
        if suffix != "e32":
            what = "a move between one lane and a scalar" if valu else \
                f"{base} (its one encoding: {', '.join(sorted({d.format for d in defs}))})"
            return mn, (f"{mn}: no encoding matches the suffix {suffix!r}: {what} is written without an "
                        f"encoding suffix or with _e32")
        return base, None
    if suffix == "e64" and any(d.name in g9.NO_VOP3_FORM for d in valu):
        return mn, (f"{mn}: e64 variant of {base} is not supported: the syntax writes {base} in its 32-bit "
                    f"encoding only (isa.syntax_conventions.NO_VOP3_FORM), without an encoding suffix or with _e32")
    return mn, None


def most_specific(errors: list[Gfx9AsmError], ops, mods: dict) -> Gfx9AsmError:
    """The refusal to report when every encoding refused: the one whose encoding read furthest
    along the line before refusing (the operand it names latest; a modifier after every operand;
    an operand count or a refusal naming nothing before the first operand). Ties go to the later
    encoding, the more general one (VOP3 after VOP2), whose complaint is the real one."""
    def position(e: Gfx9AsmError) -> int:
        if e.modifier is not None:
            return len(ops)
        if e.operand is None:
            return -1
        if e.index is not None:
            return e.index
        at = next((i for i, o in enumerate(ops) if o is e.operand), None)
        if at is not None:
            return at
        return len(ops) if any(v is e.operand for v in mods.values()) else -1
    return max(reversed(errors), key=position)   # max keeps the first of equals: the latest encoding


def assemble_gfx9(text: str, arch: str) -> bytes:
    """Machine code of `text`; Gfx9AsmError whose message starts with line:column (dsl.assemble
    raises it as an AsmError). Labels, comments and instructions are the assembler's parser's
    (asm_parse.parse); each instruction value is encoded by Gfx9Encoder."""
    from .branches import resolve_branches
    from .asm_parse import inner_offset, parse, term_columns
    from .families import load_for_disassembly
    from .statement import Directive, Label
    AsmError = Gfx9AsmError
    spec = load_for_disassembly(arch)
    enc = Gfx9Encoder(spec)
    out = bytearray()
    labels: dict[str, int] = {}
    branches = []
    lines = text.split("\n")
    for it in parse(text):
        no, col = it.line, it.column
        if type(it) is Label:
            if it.name in labels:
                raise AsmError(f"{no}:{col}: label {it.name!r} defined twice")
            labels[it.name] = len(out)
            continue
        code = re.split(r"//|;", lines[no - 1][col - 1:], maxsplit=1)[0]
        if type(it) is Directive:
            raise AsmError(f"{no}:{col}: directives need a code object (runtime.assemble_module or "
                           f"`wavesmith asm FILE -o FILE.hsaco`): {code.strip()!r}")
        try:
            data, fix = enc.encode(it)
        except (Gfx9AsmError, ValueError, KeyError, IndexError, StopIteration) as e:
            msg = str(e) if isinstance(e, (Gfx9AsmError, OperandError)) else f"cannot encode ({type(e).__name__}: {e})"
            mn = code.split()[0]
            msg = msg[len(mn) + 2:] if msg.startswith(mn + ": ") else msg
            operand = getattr(e, "operand", None)
            modifier = getattr(e, "modifier", None)
            if operand is None and modifier is None and not getattr(e, "at_mnemonic", False):    # a message
                # quoting a modifier (offset:6400: ...)
                modifier = next((k for k in it.modifiers if f"{k}:" in msg), None)
            index = getattr(e, "index", None)
            at = next((c + (inner_offset(lines[no - 1][c - 1:]) if it.operands[i] is not operand else 0)
                       if type(i) is int else c                    # an operand (the value inside -x, |x|),
                       for i, c in term_columns(lines[no - 1], col).items()     # or a count written after
                       if type(i) is int and i < len(it.operands) and (index is None or i == index) and (
                           it.operands[i] is operand or _inside(it.operands[i]) is operand)
                       or type(i) is str and it.modifiers.get(i) is operand), col) \
                if operand is not None else term_columns(lines[no - 1], col).get(modifier, col) \
                if modifier is not None else col                                  # the first (lgkmcnt(0))
            err = AsmError(f"{no}:{at}: {mn}: {msg}")
            err.unknown_modifier = getattr(e, "unknown", False)
            raise err from None
        if isinstance(fix, str):
            branches.append((len(out), fix, it))
        elif fix is not None:
            raise AsmError(f"{no}:{col}: {fix.text!r} names a symbol; symbolic operands need a code object")
        out += data
    resolve_branches(out, branches, labels, lines)
    return bytes(out)


# ---------------------------------------------------------------- instructions of a larger program


class Gfx9Encoder:
    """What dsl.asm.encode_at and the gfx9 DSL ask of an encoder: `encode(instr)` -> (bytes, fix).
    A branch to a label returns the label for resolve_branches; an operand naming symbols
    (sym@rel32@lo+4, .Lend-.Lstart) becomes a zero literal dword and a LiteralRef for the
    code-object path. `last` is the InstrDef of the last instruction encoded."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.wave = 64
        self.last = None

    def select(self, instr: Instr) -> tuple[Instr, bytes, object]:
        """(the Instr with its definition and encoding chosen, bytes, fix-up): an Instr that names its
        mnemonic only gets the first of its encodings that takes its operands (VOP2 before VOP3,
        as LLVM chooses); one whose `defn` is chosen keeps it."""
        data, fix = self.encode(instr)
        d = self.last
        return (instr if instr.defn is not None else replace(instr, defn=d, encoding=d.format)), data, fix

    def encode(self, instr: Instr) -> tuple[bytes, object]:
        ops = instr.operands
        _, defs = lookup(self.spec, instr.mnemonic)
        if defs and defs[0].format in ("SOPP", "SOPK") and _branch(defs[0]) and ops and isinstance(ops[-1], Attr):
            code, self.last = encode(self.spec, replace(instr, operands=ops[:-1] + (0,)))
            return code, ops[-1].name
        symbolic = [i for i, o in enumerate(ops) if isinstance(o, SymExpr)
                    or isinstance(o, Attr) and o.name not in _names(self.spec) and o.name.lower() not in _FLAGS]
        if len(symbolic) == 1:
            i = symbolic[0]
            # a placeholder the literal dword takes, found below
            code, self.last = encode(self.spec, replace(instr, operands=ops[:i] + (0x12345678,) + ops[i + 1:]))
            at = code.find((0x12345678).to_bytes(4, "little"), 4)
            if at < 4:
                raise Gfx9AsmError(f"{_text(ops[i])}: a symbolic operand must be a 32-bit literal", ops[i])
            code = code[:at] + bytes(4) + code[at + 4:]
            return code, LiteralRef(_text(ops[i]), at)
        code, self.last = encode(self.spec, instr)
        return code, None


def _branch(d) -> bool:
    mn = d.name.lower()
    style = syntax.sopp_style(d, True) if d.format == "SOPP" else \
        (g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, ((), "")))[1]
    return style == "branch"

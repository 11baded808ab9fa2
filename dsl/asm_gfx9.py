"""Text -> bytes in LLVM's gfx9 syntax generation (CDNA3: gfx940-942), the inverse of
printer_gfx9.py: each operand is read back into the fields the printer reads it from, with the
same instruction plans (signature, register counts, AGPR and SDWA rules).

One instruction per line, optionally after a `label:`; branches take labels or dword offsets;
`//` and `;` start comments; directives need a code object (runtime.assemble_module, which
encodes through Gfx9Encoder). Errors name line:column and the operand."""
from __future__ import annotations

import re
import struct
from functools import lru_cache

import isa
from isa import Spec
from isa.mnemonics import amd_name

from . import syntax, syntax_gfx9 as g9
from .asm_lexer import BLANKS, tokens
from .printer_gfx9 import _TYPE_BYTES, _plan


class Gfx9AsmError(ValueError):
    """An operand or modifier that does not fit (the caller adds line:column)."""


# ---------------------------------------------------------------- operands

_REG_RE = re.compile(r"^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")


class Src:
    """A parsed operand: kind 'v' / 'a' (register index), 's' (a scalar or constant code),
    'lit' (a 32-bit literal); neg/abs/sext modifiers; n registers."""
    __slots__ = ("kind", "val", "n", "neg", "abs", "sext", "text")

    def __init__(self, kind, val, n=1, text=""):
        self.kind, self.val, self.n, self.text = kind, val, n, text
        self.neg = self.abs = self.sext = 0


@lru_cache(maxsize=None)
def _names(spec: Spec) -> dict[str, int]:
    """Special operand spellings -> code (the printer's spellings)."""
    t = spec.traits
    out = {syntax.SPECIAL_TEXT.get(n, n.lower()): c for n, c in t.codes.items() if n != "LITERAL"}
    out.update({pair: out[lo] for lo, pair in syntax.PAIR_TEXT.items() if lo in out})
    out.update({alias: out[name] for alias, name in syntax.SPECIAL_ALIASES.items() if name in out})
    out.update({name: code for code, name in syntax.RESERVED_SRC_NAMES.items() if name not in out})
    for code, value in t.inline_floats.items():
        for bits in (16, 32, 64):
            out.setdefault(_float_spelling(value, bits), code)
    return out


def _float_spelling(x: float, bits: int) -> str:
    from .printer_operands import float_text
    return float_text(x, bits)


def parse_operand(spec: Spec, text: str) -> Src:
    t = spec.traits
    raw = text
    neg = abs_ = sext = 0
    text = text.strip()
    if text.startswith("-|") and text.endswith("|"):
        neg, abs_, text = 1, 1, text[2:-1]
    elif text.startswith("|") and text.endswith("|"):
        abs_, text = 1, text[1:-1]
    elif text.startswith("neg(") and text.endswith(")"):
        neg, text = 1, text[4:-1]
    elif text.startswith("sext(") and text.endswith(")"):
        sext, text = 1, text[5:-1]
    elif text.startswith("-") and not re.match(r"^-(\d|0x|\.)", text):
        neg, text = 1, text[1:]
    if text.startswith("|") and text.endswith("|"):   # neg(|x|) / -|x| inside
        abs_, text = 1, text[1:-1]
    src = _operand(spec, text, raw)
    src.neg, src.abs, src.sext = neg, abs_, sext
    return src


def _operand(spec: Spec, text: str, raw: str) -> Src:
    t = spec.traits
    m = _REG_RE.match(text)
    if m:
        cls, one, lo, hi = m.groups()
        idx = int(one) if one is not None else int(lo)
        n = 1 if one is not None else int(hi) - int(lo) + 1
        if n < 1:
            raise Gfx9AsmError(f"bad register range {raw!r}")
        if cls in ("v", "a"):
            if idx + n > t.vgprs:
                raise Gfx9AsmError(f"register {raw!r} is out of range")
            if n > 1 and idx % 2:   # gfx90a and later: vector register tuples start at an even register
                raise Gfx9AsmError(f"{raw}: vector register tuples must be 64-bit aligned (even first register)")
            return Src(cls, idx, n, raw)
        if cls == "s":
            if idx + n > t.sgprs:
                raise Gfx9AsmError(f"register {raw!r} is out of range (s0..s{t.sgprs - 1})")
            return Src("s", idx, n, raw)
        if idx + n > t.ttmps:
            raise Gfx9AsmError(f"register {raw!r} is out of range")
        return Src("s", t.ttmp_base + idx, n, raw)
    names = _names(spec)
    if text in names:
        if text in g9.NOT_ASSEMBLED:
            raise Gfx9AsmError(f"{text} is not available on this target")
        return Src("s", names[text], 1, raw)
    try:
        value = int(text, 0)
    except ValueError:
        try:
            f = float(text)
        except ValueError:
            raise Gfx9AsmError(f"cannot read operand {raw!r}") from None
        return Src("lit", struct.unpack("<I", struct.pack("<f", f))[0], 1, raw)
    code = t.inline_int(value)
    if code is not None:
        return Src("s", code, 1, raw)
    if not -(1 << 31) <= value < (1 << 32):
        raise Gfx9AsmError(f"constant {raw!r} does not fit 32 bits")
    return Src("lit", value & 0xffffffff, 1, raw)


def split_operands(rest: str) -> tuple[list[str], list[str]]:
    """'v1, v2, -|v3| clamp dst_sel:BYTE_0' -> operands, modifiers, as the assembler's lexer
    (asm_lexer.tokens) cuts the text: commas outside brackets and parentheses separate the
    operands, blanks outside them the last operand and the modifiers after it."""
    parts, words, depth = [[]], None, 0
    for tok in tokens(rest):
        text = tok.lstrip(BLANKS)
        if depth == 0 and text == ",":
            parts.append([])
            continue
        if depth == 0 and text != tok:           # a blank: the next word of the last part
            parts[-1].append(None)
        parts[-1].append(text if depth == 0 else tok)     # blanks inside brackets are kept
        depth += (text in "([") - (text in ")]") if len(text) == 1 else 0
    pieces = [_words(p) for p in parts]
    ops = ["".join(w) for p in pieces[:-1] for w in (p or [[]])]
    last = ["".join(w) for w in pieces[-1]]
    if len(parts) == 1 and last and (re.match(r"^[a-z_0-9]+:", last[0]) or last[0] in _FLAGS):
        return [], last   # modifiers only
    ops += last[:1]
    return [o for o in ops if o], last[1:]


def _words(part: list) -> list[list[str]]:
    """A part's token texts, cut where a blank (None) stood."""
    out = [[]]
    for text in part:
        if text is None:
            if out[-1]:
                out.append([])
        else:
            out[-1].append(text)
    return [w for w in out if w]


_FLAGS = {"gds", "clamp", "idxen", "offen", "glc", "nv", "sc0", "sc1", "nt", "lds"}


def _modifiers(mods: list[str]) -> dict[str, str]:
    out = {}
    for m in mods:
        k, _, v = m.partition(":")
        out[k] = v if _ else "1"
    return out


_DPP_KEYS = {"quad_perm", "row_shl", "row_shr", "row_ror", "row_newbcast", "wave_shl", "wave_rol", "wave_shr",
             "wave_ror", "row_mirror", "row_half_mirror", "row_bcast", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"}
_SDWA_KEYS = {"clamp", "mul", "div", "dst_sel", "dst_unused", "src0_sel", "src1_sel"}
_VOP3_KEYS = {"clamp", "mul", "div", "op_sel"}
_VOP3P_KEYS = {"clamp", "op_sel", "op_sel_hi", "neg_lo", "neg_hi"}
_SCALE_KEYS = {"op_sel", "op_sel_hi"}                # v_mfma_ld_scale_b32
_TRUTH_TABLE_KEYS = {"op_sel", "bitop3"}     # OMOD, ABS and NEG hold the truth table; no clamp either
_MFMA_KEYS = {"cbsz", "abid", "blgp", "neg"}
_MEMORY_KEYS = {"SMEM": {"offset", "glc", "nv"}, "DS": {"offset", "offset0", "offset1", "gds"},
                "FLAT": {"offset", "sc0", "sc1", "nt"}, "GLOBAL": {"offset", "sc0", "sc1", "nt"},
                "SCRATCH": {"offset", "sc0", "sc1", "nt"},
                "MUBUF": {"idxen", "offen", "offset", "sc0", "sc1", "nt", "lds"},
                "MTBUF": {"idxen", "offen", "offset", "sc0", "sc1", "nt", "format"}}


def _allow(mods: dict, keys: set, what: str) -> None:
    extra = [k for k in mods if k not in keys]
    if extra:
        raise Gfx9AsmError(f"{extra[0]!r} is not a modifier of {what}"
                           + (f" (takes {', '.join(sorted(keys))})" if keys else " (takes none)"))


def _int_in(text: str, lo: int, hi: int, what: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise Gfx9AsmError(f"{what}:{text}: expected an integer") from None
    if not lo <= value <= hi:
        raise Gfx9AsmError(f"{what}:{text}: out of range ({lo} to {hi})")
    return value


def _list(v: str) -> list[int]:
    return [int(x) for x in v.strip("[]").split(",")]


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
        raise Gfx9AsmError(f"{s.text}: an AGPR is not allowed here")
    if s.kind == "lit":
        enc.lit(s.val)
        return spec.traits.literal
    return s.val


def _vgpr(s: Src, agpr: bool | None = None) -> tuple[int, bool]:
    """An 8-bit VGPR field: (index, is an AGPR)."""
    if s.kind not in ("v", "a"):
        raise Gfx9AsmError(f"{s.text}: expected a vector register")
    if agpr is not None and (s.kind == "a") != agpr:
        raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if agpr else 'a VGPR'}")
    return s.val, s.kind == "a"


def _sreg(s: Src) -> int:
    if s.kind != "s":
        raise Gfx9AsmError(f"{s.text}: expected a scalar register")
    return s.val


_OMOD = {"mul:2": 1, "mul:4": 2, "div:2": 3}


def _omod(mods: dict) -> int:
    for k, v in (("mul", "2"), ("mul", "4"), ("div", "2")):
        if mods.get(k) == v:
            return _OMOD[f"{k}:{v}"]
    return 0


_DPP_NAMED = {"row_mirror": 0x140, "row_half_mirror": 0x141, "wave_shl": 0x130, "wave_rol": 0x134,
              "wave_shr": 0x138, "wave_ror": 0x13c}
_DPP_ROWS = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120, "row_newbcast": 0x150}


def _dpp_ctrl(mods: dict) -> int:
    if "quad_perm" in mods:
        q = _list(mods["quad_perm"])
        return q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6
    for k, base in _DPP_ROWS.items():
        if k in mods:
            return base + int(mods[k])
    for k, code in _DPP_NAMED.items():
        if k in mods:
            return code
    if "row_bcast" in mods:
        return {"15": 0x142, "31": 0x143}[mods["row_bcast"]]
    if "dpp_ctrl" in mods:
        return int(mods["dpp_ctrl"], 0)
    return 0xe4   # identity quad_perm


def _valu_defs(spec: Spec, mn: str):
    """(InstrDef, encoding kind) candidates for a VALU mnemonic, in the order to try."""
    m = re.match(r"^(.*?)(_e32|_e64|_sdwa|_dpp)?$", mn)
    base, suffix = m.group(1), m.group(2)
    defs = spec.lookup(amd_name(base, spec.arch))
    roles = spec.traits.roles
    e32 = [d for d in defs if d.format in roles.valu_e32]
    e64 = [d for d in defs if d.format in roles.valu_e64]
    if suffix == "_e32":
        return [(d, None) for d in e32]
    if suffix == "_e64":
        return [(d, None) for d in e64]
    if suffix == "_sdwa":
        return [(d, "SDWAB" if d.format == "VOPC" else "SDWA") for d in e32]
    if suffix == "_dpp":
        return [(d, "DPP") for d in e32]
    return [(d, None) for d in e32 + e64]


def encode_valu(spec: Spec, d, kind: str | None, ops: list[Src], mods: dict) -> bytes:
    fmt = spec.formats[d.format]
    plan = _plan(d, spec, d.format, kind)
    if d.name in {r[0] for r in spec.tables.get("mfma", ())}:
        return _encode_mfma(spec, d, ops, mods)
    sig, e32 = plan.sig, plan.e32
    _allow(mods, _DPP_KEYS if kind == "DPP" else _SDWA_KEYS if kind else set() if e32 else
           _SCALE_KEYS if d.name in g9.NO_PCODE_SOURCES else {n for n, _ in g9.OPSEL_FLAGS[d.name]}
           if d.name in g9.OPSEL_FLAGS else _VOP3P_KEYS if plan.is_p else
           _TRUTH_TABLE_KEYS if plan.truth_table else _VOP3_KEYS, plan.mn)
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
    if len(ops) != need:
        raise Gfx9AsmError(f"{d.name.lower()} takes {need} operands, got {len(ops)}")
    it = iter(ops)
    if sig.is_cmp:
        m = next(it)
        if kind == "SDWAB":
            if m.text != "vcc":
                w2["SD"], w2["SDST"] = 1, _sreg(m)
        elif e32:
            if m.text != "vcc":
                raise Gfx9AsmError(f"{m.text}: the 32-bit encoding writes vcc")
        else:
            f["VDST"] = _sreg(m)
    for op in sig.dsts:
        if op.name == "sdst":
            continue
        s = next(it)
        if op.sgpr:
            f["VDST"] = _sreg(s)
        else:
            f["VDST"], _ = _vgpr(s, "vdst" in plan.acc)
    if sig.vcc_out:
        s = next(it)
        if e32 or "SDST" not in {n for n, _, _ in fmt.fields}:
            if s.text != "vcc":
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding writes vcc")
        else:
            f["SDST"] = _sreg(s)
    elif "SDST" in {n for n, _, _ in fmt.fields} and not e32:
        f["SDST"] = _sreg(next(it))
    srcs = [next(it) for _ in range(srcs_e32 + (1 if sig.k_pos is not None and e32 else 0))]
    if sig.k_pos is not None and e32:
        k = srcs.pop(sig.k_pos)
        if k.kind not in ("lit", "s") or k.kind == "s" and k.val < 128:
            raise Gfx9AsmError(f"{k.text}: expected a constant")
        enc.literal = k.val if k.kind == "lit" else _inline_value(spec, k)
        if plan.srcs[0][0].t16 and enc.literal > 0xffff:
            raise Gfx9AsmError(f"{k.text}: the constant of a 16-bit operation must fit 16 bits")
    neg = abs_ = 0
    for i, ((op, n, _bits, _f, _p), s) in enumerate(zip(plan.srcs, srcs)):
        acc = f"src{i}" in plan.acc
        if e32:
            if kind in ("SDWA", "SDWAB"):
                if d.name in g9.SDWA_NO_DST_SEL and (s.sext or s.neg or s.abs):
                    raise Gfx9AsmError(f"{s.text}: the SDWA form of {d.name.lower()} takes no source modifiers")
                if s.kind in ("v",):
                    code8, scalar = s.val, 0
                else:
                    code = _src9(spec, s, enc)
                    if enc.literal is not None:
                        raise Gfx9AsmError(f"{s.text}: SDWA takes no literal")
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
                        raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if acc else 'a vector register'}")
                    f["SRC0"] = _src9(spec, s, enc, agpr_ok=acc)
            else:
                f["VSRC1"], _ = _vgpr(s, acc)
            if kind == "DPP":
                w2[f"SRC{i}_NEG"], w2[f"SRC{i}_ABS"] = s.neg, s.abs
            elif s.neg or s.abs:
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding takes no modifiers")
            continue
        if acc and s.kind != "a" or op.registers_only and s.kind not in ("v", "a"):
            raise Gfx9AsmError(f"{s.text}: expected {'an AGPR' if acc else 'a vector register'}")
        f[f"SRC{i}"] = _src9(spec, s, enc, agpr_ok=acc)
        neg |= s.neg << i
        abs_ |= s.abs << i
    if e32 and not plan.srcs and kind in ("DPP", "SDWA", "SDWAB"):
        # an instruction without sources (v_nop) still marks its DPP or SDWA word in SRC0
        f["SRC0"] = spec.traits.codes["DPP" if kind == "DPP" else "SDWA"]
    if sig.vcc_in and (e32 or len(plan.srcs) < 3):
        s = next(it)
        if e32:
            if s.text != "vcc":
                raise Gfx9AsmError(f"{s.text}: the 32-bit encoding reads vcc")
        else:
            f["SRC2"] = _sreg(s)
    _constant_bus(spec, srcs, enc, sig.vcc_in and (e32 or len(plan.srcs) == 3),
                  ops if not e32 and sig.vcc_in and len(plan.srcs) < 3 else ())
    if not e32:
        if enc.literal is not None:
            raise Gfx9AsmError("the 64-bit encoding takes no literal constant")
        if plan.is_p:
            if d.name in g9.NO_PCODE_SOURCES and (neg or abs_):
                raise Gfx9AsmError(f"{d.name.lower()} takes no source modifiers")
            if not plan.is_mix and "_PK_" not in d.name and sig.dsts and ("op_sel" in mods or "op_sel_hi" in mods):
                raise Gfx9AsmError(f"{d.name.lower()} takes no op_sel / op_sel_hi (its result is not packed)")
            f["NEG"] = neg | _bits_of(_list(mods["neg_lo"])) if "neg_lo" in mods else neg
            f["NEG_HI"] = abs_ | (_bits_of(_list(mods["neg_hi"])) if "neg_hi" in mods else 0)
            nsrc = len(plan.srcs)
            if "op_sel" in mods:
                f["OPSEL"] = _bits_of(_list(mods["op_sel"]))
            given = _list(mods["op_sel_hi"]) if "op_sel_hi" in mods else []
            default = 0 if plan.is_mix else 1   # bits of sources not written (or not taken) stay at it
            hi = _bits_of(given + [default] * (3 - len(given)))
            f["OPSEL_HI"], f["OPSEL_HI2"] = hi & 3, hi >> 2 & 1
        else:
            f["NEG"], f["ABS"] = neg, abs_
            if plan.truth_table:    # TTBL = { OMOD[1:0], ABS[2:0], NEG[2:0] }
                if neg or abs_:
                    raise Gfx9AsmError(f"{d.name.lower()} takes no source modifiers (its NEG and ABS bits "
                                       f"hold the bitop3 truth table)")
                table = _int_in(mods.get("bitop3", "0"), 0, 255, "bitop3")
                f["NEG"], f["ABS"], f["OMOD"] = table & 7, table >> 3 & 7, table >> 6
            if d.name in g9.OPSEL_FLAGS:    # bound_ctrl:0 sets its bit too, as in DPP
                order = [n for n, _ in g9.OPSEL_FLAGS[d.name] if n in mods]
                if order != [n for n in mods if n in order]:
                    raise Gfx9AsmError(f"{d.name.lower()}: write {' before '.join(order)}")
                f["OPSEL"] = sum(1 << bit for n, bit in g9.OPSEL_FLAGS[d.name]
                                 if n in mods and (n == "bound_ctrl" or int(mods[n], 0)))
            if "op_sel" in mods:
                sel = _list(mods["op_sel"])
                f["OPSEL"] = _bits_of(sel) if plan.opsel_byte else _bits_of(sel[:-1]) | sel[-1] << 3
            if not plan.truth_table:
                f["OMOD"] = _omod(mods)
        f["CLMP"] = 1 if "clamp" in mods else 0
    elif kind in ("SDWA", "SDWAB"):
        sels = {n: i for i, n in enumerate(g9.SDWA_SEL)}
        if kind == "SDWA":
            w2["CLMP"] = 1 if "clamp" in mods else 0
            w2["OMOD"] = _omod(mods)
            w2["DST_SEL"] = sels[mods.get("dst_sel", "DWORD")]
            w2["DST_U"] = g9.SDWA_UNUSED.index(mods.get("dst_unused", "UNUSED_PAD" if d.name in g9.SDWA_NO_DST_SEL
                                                        else "UNUSED_PRESERVE"))
        for i in range(min(2, len(plan.srcs))):
            w2[f"SRC{i}_SEL"] = sels[mods.get(f"src{i}_sel", "DWORD")]
    elif kind == "DPP":
        w2["DPP_CTRL"] = _dpp_ctrl(mods)
        w2["ROW_MASK"] = int(mods.get("row_mask", "0xf"), 0)
        w2["BANK_MASK"] = int(mods.get("bank_mask", "0xf"), 0)
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
    if len(used) > 1:
        raise Gfx9AsmError("reads more than one scalar value (the constant bus takes one)")


def _inline_value(spec: Spec, s: Src) -> int:
    """The 32-bit value of an inline constant written where a literal K is expected."""
    t = spec.traits
    for first, last, v0, step in t.inline_ints:
        if first <= s.val <= last:
            return (v0 + (s.val - first) * step) & 0xffffffff
    return struct.unpack("<I", struct.pack("<f", t.inline_floats[s.val]))[0]


def _encode_mfma(spec: Spec, d, ops: list[Src], mods: dict) -> bytes:
    if len(ops) != 4:
        raise Gfx9AsmError(f"{d.name.lower()} takes 4 operands, got {len(ops)}")
    _, m, n_, k, blocks, sparse, out_t, in_t, _ = next(r for r in spec.tables["mfma"] if r[0] == d.name)
    _allow(mods, _MFMA_KEYS, d.name.lower())
    enc = _Enc()
    f = {"OP": d.opcode}
    f["VDST"], acc_cd = _vgpr(ops[0])
    f["ACC_CD"] = int(acc_cd)
    acc = 0
    for i in range(2):
        s = ops[i + 1]
        if s.kind not in ("v", "a"):
            raise Gfx9AsmError(f"{s.text}: the matrix inputs A and B are vector registers")
        acc |= (s.kind == "a") << i
        f[f"SRC{i}"] = _src9(spec, s, enc, agpr_ok=True)
    c, dst = ops[3], ops[0]
    if not sparse and dst.n > 4 and c.kind == dst.kind and c.val != dst.val and \
            c.val < dst.val + dst.n and dst.val < c.val + c.n:   # checked for results wider than 128 bits
        raise Gfx9AsmError(f"{c.text}: the accumulator input must be the destination or not overlap it")
    f["SRC2"] = _src9(spec, ops[3], enc, agpr_ok=True)
    if enc.literal is not None:
        raise Gfx9AsmError("matrix instructions take no literal constant")
    f["ACC"] = acc
    f["CBSZ"] = int(mods.get("cbsz", 0))
    f["ABID"] = int(mods.get("abid", 0))
    f["BLGP"] = _bits_of(_list(mods["neg"])) if "neg" in mods else int(mods.get("blgp", 0))
    fmt = spec.formats["VOP3P-MAI"]
    value = _pack(fmt, f) | spec.formats[d.format].encoding[0]
    return value.to_bytes(8, "little")


# ---------------------------------------------------------------- scalar


def _hwreg(spec: Spec, text: str) -> int:
    m = re.match(r"^hwreg\((\w+)(?:,\s*(\d+),\s*(\d+))?\)$", text)
    if not m:
        raise Gfx9AsmError(f"{text}: expected hwreg(name[, offset, size])")
    name, off, size = m.group(1), int(m.group(2) or 0), int(m.group(3) or 32)
    ids = {}
    for code, n, _ in spec.tables["hwreg"]:
        if n != "reserved":
            prefix = next((p for k, p in g9.HWREG_PREFIXES.items() if n.startswith(k)), "HW_REG_")
            ids[prefix + n] = code
    ids.update({"HW_REG_" + n: c for c, n in g9.HWREG_EXTRA.items()})
    rid = ids.get(name)
    if rid is None:
        try:
            rid = int(name, 0)
        except ValueError:
            raise Gfx9AsmError(f"unknown hardware register {name!r}") from None
    if not (0 <= rid < 64 and 0 <= off < 32 and 1 <= size <= 32):
        raise Gfx9AsmError(f"{text}: id, offset or size out of range")
    return rid | off << 6 | (size - 1) << 11


def _imm16(text: str) -> int:
    try:
        v = int(text, 0)
    except ValueError:
        raise Gfx9AsmError(f"{text}: expected a 16-bit number") from None
    if not -0x8000 <= v <= 0xffff:
        raise Gfx9AsmError(f"{text}: does not fit 16 bits")
    return v & 0xffff


def _waitcnt(spec: Spec, text: str) -> int:
    counts = {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 15}
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", text.strip()):
        return _imm16(text.strip())
    for name, val in re.findall(r"(\w+)\((\d+)\)", text):
        if name not in counts:
            raise Gfx9AsmError(f"unknown counter {name!r}")
        counts[name] = int(val)
    vm = counts["vmcnt"]
    fields = {name: lo for name, _, lo in spec.tables["waitcnt"]}
    return (vm & 0xf) | (vm >> 4 & 3) << fields["VM_HI"] | counts["expcnt"] << 4 | counts["lgkmcnt"] << 8


def _sendmsg(text: str) -> int:
    m = re.match(r"^sendmsg\(([^)]*)\)$", text)
    if not m:
        return _imm16(text)
    parts = [p.strip() for p in m.group(1).split(",")]
    ids = {v: k for k, v in g9.SENDMSG_NAMES.items()}
    ops = {v: k for table in (g9.GS_OPS, g9.SYSMSG_OPS) for k, v in table.items()}
    msg = ids.get(parts[0], None)
    msg = int(parts[0], 0) if msg is None else msg
    op = (ops.get(parts[1]) if parts[1] in ops else int(parts[1], 0)) if len(parts) > 1 else 0
    stream = int(parts[2], 0) if len(parts) > 2 else 0
    return msg | op << 4 | stream << 8


def _gpr_idx(text: str) -> int:
    m = re.match(r"^gpr_idx\(([^)]*)\)$", text)
    if not m:
        value = int(text, 0)
        if not 0 <= value <= 15:
            raise Gfx9AsmError(f"{text}: the GPR index mode is 4 bits (gpr_idx(SRC0,SRC1,SRC2,DST))")
        return value
    names = [p.strip() for p in m.group(1).split(",") if p.strip()]
    return sum(1 << g9.GPR_IDX_MODES.index(n) for n in names)


def encode_scalar(spec: Spec, d, rest: str) -> bytes:
    from .signature import scalar_layout
    fmt = spec.formats[d.format]
    mn = d.name.lower()
    f = {"OP": d.opcode}
    enc = _Enc()
    if d.format == "SOPP":
        style = g9.SOPP_STYLE.get(mn) or syntax.SOPP_STYLE.get(mn, "hex")
        text = rest.strip()
        if style == "none" or not text:
            if text:
                raise Gfx9AsmError(f"{mn} takes no operand")
            f["SIMM16"] = 0
        elif style == "waitcnt":
            f["SIMM16"] = _waitcnt(spec, text)
        elif style == "sendmsg":
            f["SIMM16"] = _sendmsg(text)
        elif style == "gpr_idx":
            f["SIMM16"] = _gpr_idx(text)
        else:
            f["SIMM16"] = _imm16(text)
        return _pack(fmt, f).to_bytes(4, "little")
    ops, mods = split_operands(rest)
    if mods:
        raise Gfx9AsmError(f"unexpected {' '.join(mods)!r}")
    if d.format == "SOPK":
        operands, style = g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        if len(ops) != len(operands):
            raise Gfx9AsmError(f"{mn} takes {len(operands)} operands, got {len(ops)}")
        for o, text in zip(operands, ops):
            if o in ("sdst", "sdst64"):
                f["SDST"] = _sreg(parse_operand(spec, text))
            elif o == "imm":
                f["SIMM16"] = _imm16(text)
            elif o == "hwreg":
                f["SIMM16"] = _hwreg(spec, text)
            elif o == "lit":
                enc.lit(int(text, 0) & 0xffffffff)
        out = _pack(fmt, f).to_bytes(4, "little")
        return out + (enc.literal.to_bytes(4, "little") if enc.literal is not None else b"")
    if mn == "s_set_gpr_idx_on":
        layout = [("ssrc0", "SSRC0", 1)]
        if len(ops) != 2:
            raise Gfx9AsmError(f"{mn} takes 2 operands")
        f["SSRC1"] = _gpr_idx(ops[1])
        ops = ops[:1]
    else:
        layout = list(g9.SCALAR_LAYOUT.get(d.name) or scalar_layout(d))
    if len(ops) != len(layout):
        raise Gfx9AsmError(f"{mn} takes {len(layout)} operands, got {len(ops)}")
    for (name, field, n), text in zip(layout, ops):
        s = parse_operand(spec, text)
        if name == "sdst":
            f["SDST"] = _sreg(s)
            continue
        if d.name in g9.SCALAR_REGISTERS_ONLY and (s.kind != "s" or s.val >= spec.traits.ttmp_base + spec.traits.ttmps
                                                  and s.val not in (spec.traits.exec_lo, spec.traits.vcc_lo)):
            raise Gfx9AsmError(f"{s.text}: {mn} takes a scalar register pair here")
        if d.name in g9.SCALAR_NO_LITERAL and s.kind == "lit":
            raise Gfx9AsmError(f"{s.text}: {mn} takes no literal constant")
        f[field] = _src9(spec, s, enc)
    out = _pack(fmt, f).to_bytes(4, "little")
    return out + (enc.literal.to_bytes(4, "little") if enc.literal is not None else b"")


# ---------------------------------------------------------------- memory


def _cache(f: dict, mods: dict):
    for n in ("SC0", "NT", "SC1"):
        f[n] = 1 if n.lower() in mods else 0


def encode_smem(spec: Spec, d, ops: list[str], mods: dict) -> bytes:
    fmt = spec.formats["SMEM"]
    mn = d.name.lower()
    f = {"OP": d.opcode, "GLC": 1 if "glc" in mods else 0, "NV": 1 if "nv" in mods else 0}
    srcs = [parse_operand(spec, o) for o in ops]
    it = iter(srcs)
    if mn in ("s_memtime", "s_memrealtime"):
        f["SDATA"] = _sreg(next(it))
    elif not ops:
        pass
    else:
        if mn.startswith("s_atc_probe"):
            f["SDATA"] = next(it).val if False else int(ops[0], 0)
            next(it)
        elif not mn.startswith("s_dcache_discard"):
            f["SDATA"] = _sreg(next(it))
        base = next(it)
        f["SBASE"] = _sreg(base) // 2
        off = next(it, None)
        if off is None:
            raise Gfx9AsmError(f"{mn}: missing offset")
        if off.kind == "s" and off.val < 128 and (off.text[0] in "stvfxe" or off.text in _names(spec)) \
                and not re.match(r"^-?\d", off.text):
            if "offset" in mods:
                value = int(mods["offset"], 0)
                lo = 0 if "buffer" in mn else -(1 << 20)   # buffer offsets are unsigned
                if not lo <= value < 1 << 20:
                    raise Gfx9AsmError(f"offset:{mods['offset']}: out of range")
                f["SOE"], f["IMM"], f["SOFFSET"] = 1, 1, off.val
                f["OFFSET"] = value & 0x1fffff
            else:
                f["OFFSET"] = off.val
        else:
            value = int(off.text, 0)
            lo = 0 if "buffer" in mn else -(1 << 20)   # buffer offsets are unsigned
            if not lo <= value < 1 << 20:
                raise Gfx9AsmError(f"{off.text}: expected a {'20-bit unsigned' if lo == 0 else '21-bit signed'} offset")
            f["IMM"] = 1
            f["OFFSET"] = value & 0x1fffff
    return _pack(fmt, f).to_bytes(8, "little")


def encode_ds(spec: Spec, d, ops: list[str], mods: dict) -> bytes:
    from .printer_gfx9 import _DS_NO_ADDR, _DS_NO_DATA, _DS_RTN
    fmt = spec.formats["DS"]
    name = d.name
    two = any(t in name for t in ("READ2", "WRITE2", "WRXCHG2"))
    f = {"OP": d.opcode, "GDS": 1 if "gds" in mods else 0}
    srcs = [parse_operand(spec, o) for o in ops]
    it = iter(srcs)
    acc = None

    def data(field):
        nonlocal acc
        idx, a = _vgpr(next(it))
        if acc is not None and a != acc:
            raise Gfx9AsmError("data and result must all be VGPRs or all AGPRs")
        acc = a
        f[field] = idx
    try:
        if "_RTN" in name or name.startswith(_DS_RTN):
            data("VDST")
        if name in ("DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER"):
            data("ADDR")
            if f["ADDR"] % 2:   # gfx90a and later read the GWS value from an even register
                raise Gfx9AsmError(f"{name.lower()}: the GWS value register must be even")
        if not name.startswith(_DS_NO_ADDR) and "ADDTID" not in name:
            f["ADDR"], _ = _vgpr(next(it), False)
        if name == "DS_WRITE_ADDTID_B32" or not name.startswith(_DS_NO_DATA) and "ADDTID" not in name:
            data("DATA0")
            if any(t in name for t in ("MSKOR", "CMPST", "WRAP")) or two:
                data("DATA1")
    except StopIteration:
        raise Gfx9AsmError(f"{name.lower()}: too few operands") from None
    if next(it, None) is not None:
        raise Gfx9AsmError(f"{name.lower()}: too many operands")
    f["ACC"] = int(bool(acc))
    if two:
        f["OFFSET0"], f["OFFSET1"] = int(mods.get("offset0", "0"), 0), int(mods.get("offset1", "0"), 0)
    else:
        off = mods.get("offset", "0")
        off = _swizzle(off, d) if off.startswith("swizzle") else int(off, 0)
        f["OFFSET0"], f["OFFSET1"] = off & 0xff, off >> 8 & 0xff
    return _pack(fmt, f).to_bytes(8, "little")


def _swizzle(text: str, d) -> int:
    """offset:swizzle(MODE, ...): the gfx11 encoder's table of LLVM's swizzle macros."""
    from .encode import _SWIZZLE_MODES
    m = re.match(r'^swizzle\((\w+)((?:,\s*(?:"[^"]*"|-?\w+))*)\)$', text)
    if not m or m.group(1) not in _SWIZZLE_MODES:
        raise Gfx9AsmError(f"{text}: expected swizzle(MODE, ...) with MODE one of {', '.join(_SWIZZLE_MODES)}")
    args = [a.strip() for a in m.group(2).split(",")[1:]]
    args = [a[1:-1] if a.startswith('"') else int(a, 0) for a in args]
    params, value = _SWIZZLE_MODES[m.group(1)]
    if len(args) != len(params):
        raise Gfx9AsmError(f"{text}: swizzle({m.group(1)}, ...) takes {len(params)} argument(s)")
    return value(d, *args)


def encode_flat(spec: Spec, d, ops: list[str], mods: dict) -> bytes:
    fmt = spec.formats[d.format]
    name = d.name
    f = {"OP": d.opcode}
    _cache(f, mods)
    srcs = [parse_operand(spec, o) if o != "off" else None for o in ops]
    it = iter(srcs)
    acc = None
    lds = "_LOAD_LDS_" in name

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
    try:
        if ("_LOAD" in name and not lds) or ("_ATOMIC" in name and f["SC0"]):
            data("VDST")
        addr = next(it)
        if d.format == "SCRATCH" and addr is None:
            f["LDS"] = 0
        elif addr is None:
            raise Gfx9AsmError("expected a VGPR address")
        else:
            f["ADDR"], _ = _vgpr(addr, False)
            if d.format == "SCRATCH":
                f["LDS"] = 1
        if "_STORE" in name or "_ATOMIC" in name:
            data("DATA")
        if d.format in ("GLOBAL", "SCRATCH"):
            s = next(it)
            f["SADDR"] = spec.traits.saddr_off[0] if s is None else _sreg(s)     # `off`: the manual's disable code
    except StopIteration:
        raise Gfx9AsmError(f"{name.lower()}: too few operands") from None
    if next(it, None) is not None:
        raise Gfx9AsmError(f"{name.lower()}: too many operands")
    f["ACC"] = int(bool(acc))
    off = int(mods.get("offset", "0"), 0)
    lo, hi = (0, 4095) if d.format == "FLAT" else (-4096, 4095)
    if not lo <= off <= hi:
        raise Gfx9AsmError(f"offset:{off}: expected a {'12-bit unsigned' if lo == 0 else '13-bit signed'} offset")
    f["OFFSET"] = off & 0x1fff
    f["SEG"] = {"FLAT": 0, "SCRATCH": 1, "GLOBAL": 2}[d.format]
    return _pack(fmt, f).to_bytes(8, "little")


def encode_buffer(spec: Spec, d, ops: list[str], mods: dict) -> bytes:
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
    srcs = [parse_operand(spec, o) if o != "off" else None for o in ops]
    if not f.get("LDS"):
        if not srcs or srcs[0] is None:
            raise Gfx9AsmError("expected the data register")
        f["VDATA"], a = _vgpr(srcs.pop(0))
        f["ACC"] = int(a)
    if len(srcs) != 3:
        raise Gfx9AsmError(f"{d.name.lower()}: expected vaddr, srsrc, soffset")
    vaddr, srsrc, soff = srcs
    if vaddr is not None:
        f["VADDR"], _ = _vgpr(vaddr, False)
    f["SRSRC"] = _sreg(srsrc) // 4
    enc = _Enc()
    f["SOFFSET"] = _src9(spec, soff, enc)
    if enc.literal is not None:
        raise Gfx9AsmError(f"{soff.text}: soffset takes no literal")
    f["OFFSET"] = int(mods.get("offset", "0"), 0)
    if d.format == "MTBUF":
        f["DFMT"], f["NFMT"] = 1, 0
        if "format" in mods:
            for item in mods["format"].strip("[]").split(","):
                if item.startswith("BUF_DATA_FORMAT_"):
                    f["DFMT"] = g9.BUF_DATA_FORMATS.index(item[16:])
                elif item.startswith("BUF_NUM_FORMAT_"):
                    f["NFMT"] = g9.BUF_NUM_FORMATS.index(item[15:])
                else:
                    f["DFMT"] = int(item, 0)
    return _pack(fmt, f).to_bytes(8, "little")


# ---------------------------------------------------------------- lines


_MEMORY = {"SMEM": encode_smem, "DS": encode_ds, "FLAT": encode_flat, "GLOBAL": encode_flat,
           "SCRATCH": encode_flat, "MUBUF": encode_buffer, "MTBUF": encode_buffer}


def encode_line(spec: Spec, line: str) -> bytes:
    mn, _, rest = line.strip().partition(" ")
    mn = mn.lower()
    base = isa.llvm_base_mnemonic(mn)
    defs = spec.lookup(amd_name(base, spec.arch))
    if not defs and mn.startswith("v_mfma_"):   # CDNA2's spelling without the type's underscore
        legacy = mn                              # (v_mfma_f32_32x32x8f16) is still accepted
        mn = re.sub(r"(\d+x\d+x\d+)(?=[a-z])", r"\1_", mn, count=1)
        base = isa.llvm_base_mnemonic(mn)
        defs = spec.lookup(amd_name(base, spec.arch))
        if not defs:
            mn = legacy
    if not defs:
        raise Gfx9AsmError(f"unknown instruction {mn!r}")
    roles = spec.traits.roles
    if defs[0].format in roles.salu:
        return encode_scalar(spec, defs[0], rest)
    if defs[0].format in _MEMORY:
        ops, mods = split_operands(rest)
        mods_d = _modifiers(mods)
        _allow(mods_d, _MEMORY_KEYS[defs[0].format], mn)
        return _MEMORY[defs[0].format](spec, defs[0], ops, mods_d)
    ops, mods = split_operands(rest)
    srcs = [parse_operand(spec, o) for o in ops]
    mods_d = _modifiers(mods)
    error = None
    for d, kind in _valu_defs(spec, mn):
        try:
            return encode_valu(spec, d, kind, srcs, mods_d)
        except Gfx9AsmError as e:
            error = error or e
    raise error or Gfx9AsmError(f"unknown instruction {mn!r}")


def assemble_gfx9(text: str, arch: str) -> bytes:
    """Machine code of `text`; Gfx9AsmError whose message starts with line:column (dsl.assemble
    raises it as an AsmError). Labels, comments and statements are the assembler's parser's
    (asm_parse.parse); each instruction is encoded from its source text."""
    from .asm_parse import parse
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
            data, fix = enc.encode_source(code, it.mnemonic)
        except (Gfx9AsmError, ValueError, KeyError, IndexError, StopIteration) as e:
            msg = str(e) if isinstance(e, Gfx9AsmError) else f"cannot encode ({type(e).__name__}: {e})"
            mn_end = len(code.split()[0])
            operand = re.match(r"^(\S+?): ", msg)   # messages about an operand start with its text
            at = code.find(operand.group(1), mn_end) if operand else -1
            raise AsmError(f"{no}:{col + max(at, 0)}: {code.split()[0]}: {msg}") from None
        if isinstance(fix, str):
            branches.append((len(out), fix, no, col))
        elif fix is not None:
            raise AsmError(f"{no}:{col}: {fix.text!r} names a symbol; symbolic operands need a code object")
        out += data
    for at, label, no, col in branches:
        if label not in labels:
            raise AsmError(f"{no}:{col}: undefined label {label!r}")
        delta = (labels[label] - (at + 4)) // 4
        if not -0x8000 <= delta <= 0x7fff:
            raise AsmError(f"{no}:{col}: label {label!r} is {delta} dwords away; a branch reaches -32768..32767")
        out[at:at + 2] = (delta & 0xffff).to_bytes(2, "little")
    return bytes(out)


# ---------------------------------------------------------------- statements of a larger program


class Gfx9Encoder:
    """What dsl.asm.encode_at asks of an encoder, for the gfx9 syntax: each parsed statement is
    encoded again from its source text (`encode_source`). A branch to a label returns the label
    for resolve_branches; an operand naming symbols (sym@rel32@lo+4, .Lend-.Lstart) becomes a
    zero literal dword and a LiteralRef for the code-object path."""
    from_source = True

    def __init__(self, spec: Spec):
        self.spec = spec
        self.wave = 64

    def encode_source(self, line: str, mnemonic: str):
        from .statement import LiteralRef
        toks = tokens(line)                  # the mnemonic, the rest, no comment (the parser's cut)
        if toks and toks[-1].lstrip(BLANKS).startswith(("//", ";", "#")):
            toks.pop()
        mn, rest = (toks[0].strip(), "".join(toks[1:]).strip()) if toks else ("", "")
        text = f"{mn} {rest}".strip()
        defs = self.spec.lookup(amd_name(isa.llvm_base_mnemonic(mn.lower()), self.spec.arch))
        if defs and defs[0].format in ("SOPP", "SOPK") and _branch(defs[0]):
            ops = split_operands(rest)[0]
            if ops and _is_symbol(ops[-1]):
                label = ops[-1]
                code = encode_line(self.spec, " ".join([mn, ", ".join(ops[:-1] + ["0"])]))
                return code, label
        ops, mods = split_operands(rest)
        symbolic = [i for i, o in enumerate(ops) if _is_symbol(o.lstrip("-")) and not self._known(o)]
        if len(symbolic) == 1:
            i = symbolic[0]
            expr = ops[i]
            ops[i] = "0x12345678"   # a placeholder the literal dword takes, found below
            code = encode_line(self.spec, f"{mn} {', '.join(ops)}" + (" " + " ".join(mods) if mods else ""))
            at = code.find((0x12345678).to_bytes(4, "little"), 4)
            if at < 4:
                raise Gfx9AsmError(f"{expr}: a symbolic operand must be a 32-bit literal")
            code = code[:at] + bytes(4) + code[at + 4:]
            return code, LiteralRef(expr, at)
        return encode_line(self.spec, text), None

    def _known(self, text: str) -> bool:
        if text == "off" or re.match(r"^(hwreg|sendmsg|gpr_idx|sext|neg|abs)\(", text):
            return True
        try:
            parse_operand(self.spec, text)
            return True
        except Gfx9AsmError:
            return False


def _branch(d) -> bool:
    mn = d.name.lower()
    style = g9.SOPP_STYLE.get(mn) or syntax.SOPP_STYLE.get(mn) if d.format == "SOPP" else \
        (g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, ((), "")))[1]
    return style == "branch"


def _is_symbol(text: str) -> bool:
    return bool(re.match(r"^[A-Za-z_.$][\w.$@]*([-+][\w.$@]+)*$", text)) and not _REG_RE.match(text)

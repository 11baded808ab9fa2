"""An `Instr` straight from a decoded Instruction's raw fields, without printing it: the
operand values the text parser would read from the printer's text, built from the same
layouts (signature.py), VALU plan and operand-code tables the printer reads. Covers RDNA's
scalar ALU formats (SOP1, SOP2, SOPC, SOPK, SOPP: `scalar_instr`); DS/VDS and RDNA3's SMEM,
FLAT/GLOBAL/SCRATCH and MUBUF (`memory_instr`); VOP1/VOP2/VOPC, VOP3/VOP3SD and VOP3P without
DPP (`vop_e32_instr`, `vop3_instr`, `vop3p_instr`); VOPD (`vopd_instr`). Not covered: WMMA,
v_fma_mix, DPP, MTBUF, images, exports, RDNA4's own memory formats and all of CDNA. Each
answers None for what it does not cover (and for what the printer spells as expressions:
waitcnt, hwreg, sendmsg, delay_alu, depctr, version, ds_swizzle_b32's offset), which
disasm.decode_instr then reads from the printed text."""
from __future__ import annotations

from functools import lru_cache

from isa import InstrDef, Spec
from isa.memory_access import memory_access, scalar_data

from . import syntax
from .asm_parse import name_value
from .decode import Instruction
from .instr import Instr, Modifiers
from .operands import Lit, Mod, Reg
from .printer import _PRINTERS_BY_FAMILY, _valu_plan
from .printer_operands import _code_table, buffer_data_dwords, float_text, literal_text
from .signature import (cache_control, data_dwords, ds_layout, flat_layout, scalar_bits, scalar_layout,
                        valu_signature, vopd_base)

SCALAR_FORMATS = frozenset({"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"})
_PLAIN_SOPP = {"imm", "hex", "dec", "opt", "branch", "none"}    # SOPP styles printed as a number


def _reg(cls: str, idx: int, n: int) -> Reg:
    if n > 1 and cls in ("s", "ttmp"):     # scalar tuples are aligned, as the printer reads them
        idx &= ~1 if n == 2 else ~3
    return Reg(cls, idx, n)


def _number(text: str):
    """The value the parser reads for a number the printer spells (0x.., lit(0x..), a float)."""
    if text.startswith("lit("):
        return Lit(int(text[4:-1], 0))
    if text.startswith(("0x", "-0x")) or text.lstrip("-").isdigit():
        return int(text, 0)
    return float(text)


def scalar_source(spec: Spec, code: int, n: int, literal: int | None, table: tuple[str, str],
                  bits: int, is_float: bool, packed: str = "", f16_inline: bool = True):
    """The operand value of a source code spanning n registers (printer_operands' src_text
    for a non-VGPR code, as a value); None where the code has no plain value."""
    entry = _code_table(spec, *table).get(code)
    reserved = syntax.RESERVED_SRC_NAMES.get(code)
    if entry is None or entry[0] == "special" and entry[1] == "RESERVED":
        return None if reserved is None else name_value(reserved)
    kind, base, off = entry
    if kind == "sgpr":
        return _reg("s", base + off, n)
    if kind == "ttmp":
        return _reg("ttmp", base + off, n)
    if kind == "int":
        return base + off if base >= 0 else base - off
    if kind == "float":
        if bits == 16 and not is_float and f16_inline:
            return spec.traits.inline_float_bits[16][code]
        return float(float_text(base, 64 if n == 2 else bits))
    if kind == "literal":
        return _number(literal_text(literal or 0, bits, is_float, spec.traits, packed))
    if kind == "special":
        t = syntax.SPECIAL_TEXT.get(base, base.lower())
        return name_value(syntax.PAIR_TEXT.get(t, t) if n >= 2 else t)
    return None if reserved is None else name_value(reserved)


@lru_cache(maxsize=None)
def _sop_plan(d: InstrDef) -> tuple[tuple[str, str, int, int, bool], ...]:
    """(name, field, registers, value bits, float?) of each SOP1/SOP2/SOPC operand, as the
    printer reads them (signature.scalar_layout, scalar_bits), worked out once per instruction."""
    out = []
    for name, fld, n in scalar_layout(d):
        bits = scalar_bits(d, "S0" if fld == "SSRC0" else "S1") if name == "ssrc0" or name == "ssrc1" else 32
        rule = syntax.SALU_LITERAL16.get(d.format) if bits == 16 else None
        out.append((name, fld, n, 16 if rule else 64 if n == 2 else 32, rule == "float"))
    return tuple(out)


def scalar_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr (mnemonic and operands, scalar ALU instructions have no modifiers; `defn` and
    `encoding` the decoded instruction's) of a decoded SOP1/SOP2/SOPC/SOPK/SOPP instruction,
    or None if it is not one this covers."""
    fmt = inst.fmt.name
    if fmt not in SCALAR_FORMATS or spec.traits.dialect == "gfx9":
        return None
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    ops = []
    if fmt == "SOPP":
        style = syntax.SOPP_STYLE.get(mn, "hex")
        if style not in _PLAIN_SOPP:
            return None
        imm = f["SIMM16"]
        if style != "none" and not (style == "opt" and imm == 0):
            ops.append(imm)
    elif fmt == "SOPK":
        names, style = syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        if style not in _PLAIN_SOPP:
            return None
        for o in names:
            if o == "sdst":
                v = scalar_source(spec, f["SDST"], 2 if scalar_bits(d, "D0") == 64 else 1, None, ("SOP2", "SSRC0"), 32, True)
            else:
                v = f["SIMM16"]
            if v is None:
                return None
            ops.append(v)
    else:
        for name, fld, n, bits, is_float in _sop_plan(d):
            if name == "msg":
                return None
            if name == "k":
                v = inst.literal or 0
            elif name == "sdst":
                v = scalar_source(spec, f[fld], n, None, ("SOP2", "SSRC0"), 32, True)
            else:
                v = scalar_source(spec, f[fld], n, inst.literal, (fmt, fld), bits, is_float)
            if v is None:
                return None
            ops.append(v)
    return Instr(mn, tuple(ops), defn=d, encoding=d.format)


def _flags(f: dict, names: tuple[str, ...]) -> dict:
    return {n.lower(): True for n in names if f.get(n)}


def _smem(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return Instr(mn, (), defn=d, encoding=d.format)
    sbase_n = 4 if "buffer" in mn else 2
    first = f["SDATA"] if scalar_data(d) == "immediate" else \
        scalar_source(spec, f["SDATA"], data_dwords(d.name), None, ("SOP2", "SSRC0"), 32, True)
    base = f["SBASE"] * 2
    base = _reg("s", base, sbase_n) if base < spec.traits.sgprs else \
        scalar_source(spec, base, sbase_n, None, ("SOP2", "SSRC0"), 32, True)
    ops, mods = [first, base], {}
    off = f["OFFSET"]
    if off & (1 << 20):
        off -= 1 << 21
    soff = f["SOFFSET"]
    if soff != spec.traits.null:
        ops.append(scalar_source(spec, soff, 1, None, ("SOP2", "SSRC0"), 32, True))
        if off:
            mods["offset"] = off
    else:   # no SGPR offset: the immediate, or null when that is 0 too
        ops.append(off if off else name_value("null"))
    if any(v is None for v in ops):
        return None
    mods.update(_flags(f, ("GLC", "DLC")))
    return Instr(mn, tuple(ops), Modifiers(mods) if mods else Modifiers(), defn=d, encoding=d.format)


_ds_layout = lru_cache(maxsize=None)(ds_layout)     # worked out once per instruction


def _ds(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if mn == "ds_swizzle_b32":
        return None
    ops = tuple(Reg("v", f[field], n) for _, field, n in _ds_layout(d))
    mods = {}
    if memory_access(d).two_addresses:
        mods.update((k.lower(), f[k]) for k in ("OFFSET0", "OFFSET1") if f[k])
    else:
        off = f["OFFSET0"] | f["OFFSET1"] << 8
        if off:
            mods["offset"] = off
    mods.update(_flags(f, ("GDS",)))
    return Instr(mn, ops, Modifiers(mods) if mods else Modifiers(), defn=d, encoding=d.format)


_flat_layout = lru_cache(maxsize=None)(flat_layout)


def _sgprs(spec: Spec, code: int, n: int):
    return scalar_source(spec, code, n, None, ("SOP2", "SSRC0"), 32, True)


def _flat(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    fmt, t = inst.fmt.name, spec.traits
    ops = []
    for name, field, n in _flat_layout(d, bool(f.get("GLC"))):
        if name == "saddr":   # null turns the scalar base off (GLOBAL also names m0's code off)
            off_codes = (t.null, t.m0) if fmt == "GLOBAL" else (t.null,)
            ops.append(name_value("off") if f[field] in off_codes else _sgprs(spec, f[field], n))
        elif name == "vaddr" and fmt == "SCRATCH":
            ops.append(Reg("v", f[field]) if f.get("SVE") else name_value("off"))
        elif name == "vaddr" and fmt == "GLOBAL":   # no scalar base: a 64-bit VGPR address
            ops.append(Reg("v", f[field], 2 if f["SADDR"] in (t.null, t.m0) else 1))
        else:
            ops.append(Reg("v", f[field], n))
    if any(v is None for v in ops):
        return None
    off = f["OFFSET"]
    if fmt != "FLAT" and off & (1 << 12):
        off -= 1 << 13
    mods = {"offset": off} if off else {}
    mods.update(_flags(f, ("GLC", "SLC", "DLC")))
    return Instr(d.name.lower(), tuple(ops), Modifiers(mods) if mods else Modifiers(), defn=d, encoding=d.format)


def _buffer(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return Instr(mn, (), defn=d, encoding=d.format)
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    ops = (Reg("v", f["VDATA"], buffer_data_dwords(d, f)),
           Reg("v", f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else name_value("off"),
           _sgprs(spec, f["SRSRC"] * 4, 4),
           scalar_source(spec, f["SOFFSET"], 1, inst.literal, ("SOP2", "SSRC0"), 32, True))
    if any(v is None for v in ops):
        return None
    mods = _flags(f, ("IDXEN", "OFFEN"))
    if f["OFFSET"]:
        mods["offset"] = f["OFFSET"]
    mods.update(_flags(f, ("GLC", "SLC", "DLC", "TFE")))
    return Instr(mn, ops, Modifiers(mods) if mods else Modifiers(), defn=d, encoding=d.format)


_MEMORY = {"SMEM": _smem, "DS": _ds, "VDS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat,
           "MUBUF": _buffer}
MEMORY_FORMATS = frozenset(_MEMORY)


def memory_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr of a decoded DS/VDS instruction or RDNA3 SMEM, FLAT/GLOBAL/SCRATCH or MUBUF
    instruction from its fields, or None if it is not one this covers."""
    fmt = inst.fmt.name
    build = _MEMORY.get(fmt)
    if build is None or spec.traits.dialect == "gfx9" or fmt in _PRINTERS_BY_FAMILY.get(spec.arch, {}):
        return None
    return build(spec, inst)


def _t16(code8: int) -> Reg:
    """A 16-bit VGPR in a 7+1-bit field (bit 7 selects the high half), as printer_operands.t16_vgpr."""
    return Reg("v", code8 & 0x7f, 1, "h" if code8 & 0x80 else "l")


def vop_e32_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP1/VOP2/VOPC instruction without DPP or SDWA (no modifiers in
    the 32-bit encoding) from its fields, by the printer's per-instruction plan (signature's
    valu_signature); None for anything else."""
    fmt = inst.fmt.name
    if (fmt not in ("VOP1", "VOP2", "VOPC") or inst.dpp is not None or spec.traits.dialect == "gfx9"
            or inst.defs[0].name == "V_ILLEGAL"):     # v_illegal: the text route's bare Instr
        return None
    d, f = inst.defs[0], inst.fields
    plan = _valu_plan(d, spec, fmt, False, wave)
    sig, vgpr0 = plan.sig, spec.traits.vgpr_base
    ops = []
    for op in sig.dsts:
        if op.name == "sdst":
            ops.append(name_value(plan.vcc))
        elif op.sgpr:
            ops.append(_sgprs(spec, f["VDST"], 1))
        elif op.t16 and plan.t16_regs:
            ops.append(_t16(f["VDST"]))
        else:
            ops.append(Reg("v", f["VDST"], op.dwords))
    if sig.vcc_out:
        ops.append(name_value(plan.vcc))
    srcs = []
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs[:2]):
        code = f["SRC0"] if i == 0 else vgpr0 + f["VSRC1"]
        if code >= vgpr0:
            srcs.append(_t16(code - vgpr0) if op.t16 and plan.t16_regs else Reg("v", code - vgpr0, n))
        else:
            srcs.append(scalar_source(spec, code, n, inst.literal, (spec.traits.source_format, "SRC0"),
                                      bits, is_float, packed, f16_inline))
    if sig.k_pos is not None:
        srcs.insert(sig.k_pos, inst.literal or 0)
    ops += srcs
    if sig.vcc_in:
        ops.append(name_value(plan.vcc))
    if any(v is None for v in ops):
        return None
    return Instr(plan.mn, tuple(ops), defn=d, encoding=d.format)


_OMOD = {1: ("mul", 2), 2: ("mul", 4), 3: ("div", 2)}


def _bits(value: int, n: int) -> list[int]:
    return [(value >> i) & 1 for i in range(n)]


def vop3_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP3/VOP3SD instruction without DPP from its fields (source
    modifiers as Mod, op_sel/byte_sel, clamp, omod), by the printer's VALU plan; None for
    anything else (VOP3P, WMMA, DPP)."""
    fmt = inst.fmt.name
    if fmt not in ("VOP3", "VOP3SD") or inst.dpp is not None or spec.traits.dialect == "gfx9" \
            or inst.defs[0].name == "V_ILLEGAL":
        return None
    d, f = inst.defs[0], inst.fields
    plan = _valu_plan(d, spec, fmt, False, wave)
    if plan.is_wmma or plan.is_mix or plan.is_p:
        return None
    sig, vgpr0 = plan.sig, spec.traits.vgpr_base
    opsel, neg, abs_ = f.get("OPSEL", 0), f.get("NEG", 0), f.get("ABS", 0)
    ops = []
    for op in sig.dsts:
        if op.name == "sdst":
            ops.append(_sgprs(spec, f["VDST"], op.regs(wave)))
        elif op.sgpr:
            ops.append(_sgprs(spec, f["VDST"], 1))
        elif op.t16 and plan.t16_regs:
            ops.append(Reg("v", f["VDST"], 1, "h" if opsel >> 3 & 1 else "l"))
        else:
            ops.append(Reg("v", f["VDST"], op.dwords))
    if fmt == "VOP3SD":
        ops.append(_sgprs(spec, f["SDST"], wave // 32))
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs):
        code = f[f"SRC{i}"]
        if code >= vgpr0:
            v = Reg("v", code - vgpr0, 1, "h" if opsel >> i & 1 else "l") if op.t16 and plan.t16_regs \
                else Reg("v", code - vgpr0, n)
        else:
            v = scalar_source(spec, code, n, inst.literal, (spec.traits.source_format, "SRC0"),
                              bits, is_float, packed, f16_inline)
        if op.is_float and (neg | abs_) >> i & 1:
            v = Mod(v, bool(neg >> i & 1), bool(abs_ >> i & 1))
        ops.append(v)
    if any(v is None for v in ops):
        return None
    mods = {}
    nsrc = len(sig.srcs)
    if d.name in syntax.BYTE_SEL:
        hi_bit, lo_bit = syntax.BYTE_SEL[d.name]
        if opsel:
            mods["byte_sel"] = (opsel >> hi_bit & 1) << 1 | opsel >> lo_bit & 1
    elif plan.opsel_shown:
        if sig.opsel_flags:   # OPSEL bits the instruction redefines (v_permlane16: fi, bound_ctrl)
            if opsel & ((1 << sig.opsel_flags) - 1):
                mods["op_sel"] = _bits(opsel, sig.opsel_flags)
        elif opsel and sig.is_cmpx:   # no destination half to select
            mods["op_sel"] = _bits(opsel, nsrc)
        elif opsel:
            mods["op_sel"] = _bits(opsel, 3 if sig.reads_dst else nsrc) + [opsel >> 3 & 1]
    return _valu_instr(plan.mn, ops, mods, f, d)


def vop3p_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP3P instruction without DPP (packed math, dot products) from its
    fields: whole-register operands, op_sel / op_sel_hi / neg_lo / neg_hi lists where not the
    default, clamp; None for anything else (WMMA/SWMMAC, v_fma_mix*, DPP)."""
    if inst.fmt.name != "VOP3P" or inst.dpp is not None or spec.traits.dialect == "gfx9":
        return None
    d, f = inst.defs[0], inst.fields
    plan = _valu_plan(d, spec, "VOP3P", False, wave)
    if plan.is_wmma or plan.is_mix:
        return None
    sig, vgpr0 = plan.sig, spec.traits.vgpr_base
    ops = [_sgprs(spec, f["VDST"], op.regs(wave)) if op.name == "sdst" else _sgprs(spec, f["VDST"], 1)
           if op.sgpr else Reg("v", f["VDST"], op.dwords) for op in sig.dsts]
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs):
        code = f[f"SRC{i}"]
        ops.append(Reg("v", code - vgpr0, n) if code >= vgpr0 else
                   scalar_source(spec, code, n, inst.literal, (spec.traits.source_format, "SRC0"),
                                 bits, is_float, packed, f16_inline))
    if any(v is None for v in ops):
        return None
    nsrc = len(sig.srcs)
    mask = (1 << nsrc) - 1
    opsel, neg = f.get("OPSEL", 0), f.get("NEG", 0)
    hi_bits = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
    neg_hi = f.get("NEG_HI", 0)
    mods = {}
    if opsel & mask:
        mods["op_sel"] = _bits(opsel, nsrc)
    if hi_bits & mask != mask:
        mods["op_sel_hi"] = _bits(hi_bits, nsrc)
    if neg & mask:
        mods["neg_lo"] = _bits(neg, nsrc)
    if neg_hi & mask:
        mods["neg_hi"] = _bits(neg_hi, nsrc)
    return _valu_instr(plan.mn, ops, mods, f, d)


@lru_cache(maxsize=None)
def _vopd_signature(spec: Spec, d: InstrDef):
    return valu_signature(vopd_base(spec, d))


def vopd_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr of a decoded VOPD instruction from its fields: the X half, with the Y half as
    its `dual` (each with its own `defn`), operands by the VOP1/VOP2 instruction each half
    performs (signature.vopd_base)."""
    if inst.fmt.name != "VOPD" or spec.traits.dialect == "gfx9":
        return None
    f, vgpr0 = inst.fields, spec.traits.vgpr_base
    halves = []
    for slot, d in zip("XY", inst.defs):
        sig = _vopd_signature(spec, d)
        vdst = f["VDSTX"] if slot == "X" else (f["VDSTY"] << 1) | ((f["VDSTX"] & 1) ^ 1)
        src0 = f[f"SRC{slot}0"]
        srcs = [Reg("v", src0 - vgpr0) if src0 >= vgpr0 else
                scalar_source(spec, src0, 1, inst.literal, (spec.traits.source_format, "SRC0"), 32, True)]
        if len(sig.srcs) > 1:
            srcs.append(Reg("v", f[f"VSRC{slot}1"]))
        if sig.k_pos is not None:
            srcs.insert(sig.k_pos, inst.literal or 0)
        if srcs[0] is None:
            return None
        halves.append((d, (Reg("v", vdst),) + tuple(srcs)))
    (dx, opsx), (dy, opsy) = halves
    dual = Instr(dy.name.lower(), opsy, defn=dy, encoding=dy.format)
    return Instr(dx.name.lower(), opsx, defn=dx, encoding=dx.format, dual=dual)


def direct_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded instruction built from its fields where this module covers its
    format (scalar_instr, memory_instr, vop_e32_instr, vop3_instr, vop3p_instr, vopd_instr),
    else None."""
    return (scalar_instr(spec, inst) or memory_instr(spec, inst) or vop_e32_instr(spec, inst, wave)
            or vop3_instr(spec, inst, wave) or vop3p_instr(spec, inst, wave) or vopd_instr(spec, inst))


def _valu_instr(mnemonic: str, ops: list, mods: dict, f: dict, d) -> Instr:
    """The Instr of a VOP3/VOP3P instruction once its operands and operand modifiers are read:
    clamp and omod come from the same fields in both encodings."""
    if f.get("CLMP"):
        mods["clamp"] = True
    if f.get("OMOD", 0):
        key, value = _OMOD[f["OMOD"]]
        mods[key] = value
    return Instr(mnemonic, tuple(ops), Modifiers(mods) if mods else Modifiers(), defn=d, encoding=d.format)

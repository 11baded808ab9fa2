"""An `Instr` straight from a decoded Instruction's raw fields, without printing it: the
operand values the text parser would read from the printer's text, built from the same
layouts (signature.py), VALU plan (valu_plan.py) and operand-code tables the printer reads.
Covers RDNA's scalar ALU formats (SOP1, SOP2, SOPC, SOPK, SOPP: `scalar_instr`, immediates LLVM
writes as expressions from immediate_values.py); VOP1/VOP2/VOPC, VOP3/VOP3SD and VOP3P
(WMMA/SWMMAC and v_fma_mix included) with or without DPP16/DPP8 (`vop_e32_instr`,
`vop3_instr`, `vop3p_instr`); VOPD (`vopd_instr`); the memory, interpolation and LDS-direct
formats (instr_fields_memory.memory_instr); exports and images
(instr_fields_graphics.graphics_instr). Each answers None for what it does not cover and where
an operand code has no value in the syntax (disasm.decode_instr then refuses the bytes);
`direct_instr` tries them all. The gfx9 dialect (CDNA) has its own: instr_fields_gfx9.py."""
from __future__ import annotations

from functools import lru_cache

from isa import InstrDef, Spec
from isa.facts import byte_select, modifier_use

from . import immediate_values, syntax
from .asm_parse import name_value
from .decode import DecodeError, Instruction
from .field_values import bit_list, instr_value, scalar_source, sgprs, t16_reg
from .instr import Instr
from .instr_fields_graphics import IMAGE_FORMATS, graphics_instr
from .instr_fields_memory import MEMORY_FORMATS, memory_instr
from .operands import Mod
from .field_values import cached_reg as Reg     # (Reg values, each made once)
from .signature import index_keys, neg_bits_error, scalar_bits, scalar_layout, takes_opsel, valu_signature, vopd_base
from .valu_plan import rdna_opsel, valu_plan

SCALAR_FORMATS = frozenset({"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"})
_PLAIN_SOPP = {"imm", "hex", "dec", "opt", "branch", "none"}    # SOPP styles printed as a number


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
    """The Instr (mnemonic and operands; `defn` and `encoding` the decoded instruction's) of a
    decoded SOP1/SOP2/SOPC/SOPK/SOPP instruction, immediates LLVM writes as expressions
    (waitcnt, delay_alu, depctr, sendmsg, hwreg, version) as the parser reads them
    (immediate_values.py), or None if it is not one this covers."""
    fmt = inst.fmt.name
    if fmt not in SCALAR_FORMATS or spec.traits.dialect == "gfx9":
        return None
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    ops, mods = [], {}
    if fmt == "SOPP":
        style = syntax.sopp_style(d) or "hex"
        imm = f["SIMM16"]
        if style in _PLAIN_SOPP:
            if style != "none" and not (style == "opt" and imm == 0):
                ops.append(imm)
        elif style == "sendmsg":
            ops.append(immediate_values.sendmsg(imm, spec.arch))
        elif style == "delay_alu":
            ops.append(immediate_values.delay_alu(imm))
        else:   # counters: the parser reads the first as an operand, the others as modifiers
            counters = immediate_values.waitcnt(spec, imm) if style == "waitcnt" else immediate_values.depctr(imm)
            if type(counters) is int:
                ops.append(counters)
            else:
                mods = {c.name: c for c in counters}
    elif fmt == "SOPK":
        names, style = syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        for o in names:
            if o == "sdst":
                v = scalar_source(spec, f["SDST"], 2 if scalar_bits(d, "D0") == 64 else 1, None, ("SOP2", "SSRC0"), 32, True)
            elif o == "hwreg":
                v = immediate_values.hwreg(f["SIMM16"], spec.arch)
            elif o == "lit":
                v = inst.literal or 0
            else:
                v = immediate_values.version(f["SIMM16"]) if style == "version" else f["SIMM16"]
            if v is None:
                return None
            ops.append(v)
    else:
        ops = sop_operands(spec, inst)
        if ops is None:
            return None
    return instr_value(d, mn, tuple(ops), mods)


def sop_operands(spec: Spec, inst: Instruction) -> list | None:
    """The operands of a decoded SOP1/SOP2/SOPC instruction (both dialects), None where a code
    has no plain value."""
    f, fmt, ops = inst.fields, inst.fmt.name, []
    for name, fld, n, bits, is_float in _sop_plan(inst.defs[0]):
        if name == "msg":
            v = immediate_values.sendmsg(f[fld], spec.arch)
        elif name == "k":
            v = inst.literal or 0
        elif name == "sdst":
            v = scalar_source(spec, f[fld], n, None, ("SOP2", "SSRC0"), 32, True)
        else:
            v = scalar_source(spec, f[fld], n, inst.literal, (fmt, fld), bits, is_float)
        if v is None:
            return None
        ops.append(v)
    return ops


def vop_e32_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP1/VOP2/VOPC instruction (the 32-bit encoding has no modifiers;
    DPP16/DPP8 add their controls and DPP16 its source modifiers) from its fields, by the
    printer's per-instruction plan (valu_plan.py); None for anything else."""
    fmt = inst.fmt.name
    if fmt not in ("VOP1", "VOP2", "VOPC") or spec.traits.dialect == "gfx9":
        return None
    d, f, dpp = inst.defs[0], inst.fields, inst.dpp
    if d.name == "V_ILLEGAL":   # the decoder's all-zero filler: no operands
        return Instr("v_illegal", defn=d, encoding=d.format)
    plan = valu_plan(d, spec, fmt, dpp is not None, wave)
    sig, vgpr0 = plan.sig, spec.traits.vgpr_base
    halves = plan.t16_regs or fmt == "VOPC" and dpp is None and spec.arch in syntax.E32_COMPARE_HALVES \
        and _high_half_named(plan, f, vgpr0)
    ops = []
    for op in sig.dsts:
        if op.name == "sdst":
            ops.append(name_value(plan.vcc))
        elif op.sgpr:
            v = sgprs(spec, f["VDST"], 1)
            if v is None:
                return None
            ops.append(v)
        elif op.t16 and halves:
            ops.append(t16_reg(f["VDST"]))
        else:
            ops.append(Reg("v", f["VDST"], op.dwords))
    if sig.vcc_out:
        ops.append(name_value(plan.vcc))
    srcs = []
    dpp16 = inst.dpp_kind == "DPP16"
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs[:2]):
        code = (f["SRC0"] if dpp is None else vgpr0 + dpp["SRC0"]) if i == 0 else vgpr0 + f["VSRC1"]
        if code >= vgpr0:
            v = t16_reg(code - vgpr0) if op.t16 and halves else Reg("v", code - vgpr0, n)
        else:
            v = scalar_source(spec, code, n, inst.literal, plan.source_table, bits, is_float, packed, f16_inline)
            if v is None:
                return None
        if dpp16 and (dpp[_NEG[i]] or dpp[_ABS[i]]) and (op.ftype == "f" or plan.force_mods):
            v = Mod(v, bool(dpp[_NEG[i]]), bool(dpp[_ABS[i]]))    # DPP16 carries e32's only modifiers
        srcs.append(v)
    if sig.k_pos is not None:
        srcs.insert(sig.k_pos, inst.literal or 0)
    ops += srcs
    if sig.vcc_in:
        ops.append(name_value(plan.vcc))
    mods = dpp_modifiers(spec, inst) if dpp is not None else None
    return instr_value(d, plan.mn, tuple(ops), mods)


def _high_half_named(plan, f, vgpr0: int) -> bool:
    """A 16-bit compare's 32-bit encoding on a family of syntax.E32_COMPARE_HALVES: whether a
    16-bit VGPR source's field has bit 7 set, the high half (LLVM 22 then writes the sources as
    halves, its default syntax's whole VGPRs v128..v255 being no register that field holds)."""
    (op0, *_), (op1, *_) = plan.srcs[:2]
    return op0.t16 and f["SRC0"] >= vgpr0 and (f["SRC0"] - vgpr0) >> 7 == 1 or op1.t16 and f["VSRC1"] >> 7 == 1


_OMOD = {1: ("mul", 2), 2: ("mul", 4), 3: ("div", 2)}
_SRC = ("SRC0", "SRC1", "SRC2", "SRC3")
_NEG, _ABS = ("SRC0_NEG", "SRC1_NEG"), ("SRC0_ABS", "SRC1_ABS")


def vop3_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP3/VOP3SD instruction without DPP from its fields (source
    modifiers as Mod, op_sel/byte_sel, clamp, omod), by the printer's VALU plan, OPSEL by
    valu_plan.rdna_opsel (a DecodeError for bits no text says); None for anything else (VOP3P, WMMA)."""
    fmt = inst.fmt.name
    if fmt not in ("VOP3", "VOP3SD") or spec.traits.dialect == "gfx9" or inst.defs[0].name == "V_ILLEGAL":
        return None
    d, f, dpp = inst.defs[0], inst.fields, inst.dpp
    plan = valu_plan(d, spec, fmt, dpp is not None, wave)
    if plan.is_wmma or plan.is_mix or plan.is_p:
        return None
    sig, vgpr0, t16_regs = plan.sig, spec.traits.vgpr_base, plan.t16_regs
    opsel, neg, abs_ = f.get("OPSEL", 0), f.get("NEG", 0), f.get("ABS", 0)
    rule = rdna_opsel(d, spec.arch)
    takes = rule.takes
    if opsel & rule.absent and t16_regs and any(o.t16 for o in sig.srcs + sig.dsts):
        t16_regs, takes = False, rule.whole_takes     # LLVM 22 reads the whole-VGPR (fake16) form
    if opsel & (rule.reserved if dpp is None else rule.dpp_reserved) or takes and opsel & rule.absent:
        raise DecodeError(f"{d.name.lower()}: OPSEL {opsel:04b}: no text says these bits (" +
                          ("reserved" if opsel & rule.reserved else "bits of operands it does not have") + ")")
    opsel &= ~(rule.ignored | rule.reserved)
    ops = []
    for op in sig.dsts:
        if op.name == "sdst" or op.sgpr:
            v = sgprs(spec, f["VDST"], op.regs(wave) if op.name == "sdst" else 1)
            if v is None:
                return None
            ops.append(v)
        elif op.t16 and t16_regs:
            ops.append(Reg("v", f["VDST"], 1, "h" if opsel >> 3 & 1 else "l"))
        else:
            ops.append(Reg("v", f["VDST"], op.dwords))
    if fmt == "VOP3SD":
        v = sgprs(spec, f["SDST"], wave // 32)
        if v is None:
            return None
        ops.append(v)
    modified = neg | abs_
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs):
        code = f[_SRC[i]] if i or dpp is None else vgpr0 + dpp["SRC0"]
        if code >= vgpr0:
            v = Reg("v", code - vgpr0, 1, "h" if opsel >> i & 1 else "l") if t16_regs and op.t16 \
                else Reg("v", code - vgpr0, n)
        else:
            v = scalar_source(spec, code, n, inst.literal, plan.source_table, bits, is_float, packed, f16_inline)
            if v is None:
                return None
        if modified >> i & 1 and op.ftype == "f":
            v = Mod(v, bool(neg >> i & 1), bool(abs_ >> i & 1))
        ops.append(v)
    mods = {}
    nsrc = len(sig.srcs)
    byte_bits = byte_select(d)    # RDNA4's fp8/bf8 conversions: OPSEL bits that pick a byte
    if byte_bits:
        hi_bit, lo_bit = byte_bits
        if opsel:
            mods["byte_sel"] = (opsel >> hi_bit & 1) << 1 | opsel >> lo_bit & 1
    elif takes:
        if sig.opsel_flags:   # OPSEL bits the instruction redefines (v_permlane16: fi, bound_ctrl)
            if opsel & ((1 << sig.opsel_flags) - 1):
                mods["op_sel"] = bit_list(opsel, sig.opsel_flags)
        elif opsel and (dpp is not None and sig.is_cmp or sig.is_cmpx):   # no destination half to select
            mods["op_sel"] = bit_list(opsel, nsrc)
        elif opsel:
            mods["op_sel"] = bit_list(opsel, 3 if sig.reads_dst else nsrc) + [opsel >> 3 & 1]
    return _valu_instr(spec, inst, plan.mn, ops, mods)


def vop3p_instr(spec: Spec, inst: Instruction, wave: int) -> Instr | None:
    """The Instr of a decoded VOP3P instruction (packed math, dot products, WMMA/SWMMAC,
    v_fma_mix*, with or without DPP) from its fields: whole-register operands (WMMA's matrices
    their register counts; v_fma_mix's sources f16 or f32 as OPSEL_HI says, with NEG as the sign
    and NEG_HI as the absolute value), op_sel / op_sel_hi / neg_lo / neg_hi lists where not the
    default (SWMMAC: index_key), clamp."""
    if inst.fmt.name != "VOP3P" or spec.traits.dialect == "gfx9":
        return None
    d, f, dpp = inst.defs[0], inst.fields, inst.dpp
    plan = valu_plan(d, spec, "VOP3P", dpp is not None, wave)
    sig, vgpr0 = plan.sig, spec.traits.vgpr_base
    opsel, neg = f.get("OPSEL", 0), f.get("NEG", 0)
    hi_bits = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
    neg_hi = f.get("NEG_HI", 0)
    ops = [sgprs(spec, f["VDST"], op.regs(wave)) if op.name == "sdst" else sgprs(spec, f["VDST"], 1)
           if op.sgpr else Reg("v", f["VDST"], plan.cd_regs if plan.is_wmma else op.dwords) for op in sig.dsts]
    if any(v is None for v in ops):     # (an SGPR destination code without a value)
        return None
    table = plan.source_table
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs):
        code = f[_SRC[i]] if i or dpp is None else vgpr0 + dpp["SRC0"]
        if code >= vgpr0:
            v = Reg("v", code - vgpr0, n)
        elif plan.is_wmma and plan.matrix[i]:   # RDNA3 wave32: the accumulator's constants as a 64-bit operand's
            v = scalar_source(spec, code, n, inst.literal, table, 32, True, wide_float=plan.wide_constants)
        elif plan.is_mix:
            v = scalar_source(spec, code, n, inst.literal, table, 16 if hi_bits >> i & 1 else 32, True)
        else:
            v = scalar_source(spec, code, n, inst.literal, table, bits, is_float, packed, f16_inline)
        if v is None:
            return None
        if plan.is_mix and op.ftype == "f" and (neg | neg_hi) >> i & 1:
            v = Mod(v, bool(neg >> i & 1), bool(neg_hi >> i & 1))
        ops.append(v)
    nsrc = len(sig.srcs)
    mask = (1 << nsrc) - 1
    mods = {}
    if plan.is_wmma and len(plan.matrix) > 2 and not plan.matrix[2]:   # SWMMAC: OPSEL picks the index
        if opsel >= index_keys(d, wave):     # (LLVM 22: "invalid instruction encoding")
            raise DecodeError(f"{d.name.lower()}: OPSEL {opsel}: its index VGPR holds {index_keys(d, wave)} "
                              f"sparsity indices")
        if opsel:
            mods["index_key"] = opsel
    elif opsel & (rdna_opsel(d, spec.arch).reserved | rdna_opsel(d, spec.arch).absent):   # (valu_plan.rdna_opsel)
        raise DecodeError(f"{d.name.lower()}: OPSEL {opsel:03b}: no text says these bits (it takes no op_sel, "
                          f"or they are of sources it does not have)")
    elif opsel & mask:
        mods["op_sel"] = bit_list(opsel, nsrc)
    if hi_bits & mask != (0 if plan.is_mix else mask):
        if takes_opsel(d, sig, spec.arch):
            mods["op_sel_hi"] = bit_list(hi_bits, nsrc)
        elif spec.arch not in syntax.WMMA_REPLICATED and (plan.is_wmma or modifier_use(d).neg_abs):
            # RDNA4's matrix instructions and float dot4 (fp8/bf8): LLVM 22 "invalid instruction encoding"
            raise DecodeError(f"{d.name.lower()}: OPSEL_HI {hi_bits:03b}: no text says these bits (the instruction "
                              f"takes no op_sel_hi)")
        # else no text says them and LLVM 22 prints none (v_dot4_i32_iu8, RDNA3's v_wmma_f32_*)
    if not plan.is_mix:
        why = neg_bits_error(d, neg, neg_hi, nsrc)
        if why:     # (LLVM 22: "invalid instruction encoding")
            raise DecodeError(f"{d.name.lower()}: {why}: no text says these NEG/NEG_HI bits")
        if neg & mask:
            mods["neg_lo"] = bit_list(neg, nsrc)
        if neg_hi & mask:
            mods["neg_hi"] = bit_list(neg_hi, nsrc)
    return _valu_instr(spec, inst, plan.mn, ops, mods)


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
    """The Instr of a decoded RDNA instruction built from its fields by the builder of its format
    (scalar_instr, memory_instr, graphics_instr, vop_e32_instr, vop3_instr, vop3p_instr,
    vopd_instr), else None."""
    build = _BUILDERS.get(inst.fmt.name)
    if build is None:
        return graphics_instr(spec, inst) if inst.fmt.name in spec.traits.roles.export else None
    return build(spec, inst, wave)


_BUILDERS = {
    **dict.fromkeys(SCALAR_FORMATS, lambda spec, inst, wave: scalar_instr(spec, inst)),
    **dict.fromkeys(MEMORY_FORMATS, lambda spec, inst, wave: memory_instr(spec, inst)),
    **dict.fromkeys(IMAGE_FORMATS, lambda spec, inst, wave: graphics_instr(spec, inst)),
    **dict.fromkeys(("VOP1", "VOP2", "VOPC"), vop_e32_instr), "VOP3": vop3_instr, "VOP3SD": vop3_instr,
    "VOP3P": vop3p_instr, "VOPD": lambda spec, inst, wave: vopd_instr(spec, inst),
}


def _valu_instr(spec: Spec, inst: Instruction, mnemonic: str, ops: list, mods: dict) -> Instr:
    """The Instr of a VOP3/VOP3P instruction once its operands and operand modifiers are read:
    clamp and omod come from the same fields in both encodings, the DPP controls last."""
    d, f = inst.defs[0], inst.fields
    if f.get("CLMP"):
        mods["clamp"] = True
    if f.get("OMOD", 0):
        key, value = _OMOD[f["OMOD"]]
        mods[key] = value
    if inst.dpp is not None:
        mods.update(dpp_modifiers(spec, inst))
    return instr_value(d, mnemonic, tuple(ops), mods)


def dpp_modifiers(spec: Spec, inst: Instruction) -> dict:
    """The DPP16 or DPP8 modifiers of a decoded instruction's DPP word, as the parser reads them:
    the control (quad_perm, a row control, dpp_ctrl for codes without a name), row_mask,
    bank_mask, bound_ctrl and fi where set; dpp8's lane selects and fi (DPP8FI's source code)."""
    d = inst.dpp
    if inst.dpp_kind == "DPP8":
        mods = {"dpp8": [d[f"LANE_SEL{i}"] for i in range(8)]}
        if inst.fields.get("SRC0") == spec.traits.codes["DPP8FI"]:
            mods["fi"] = 1
        return mods
    ctrl = d["DPP_CTRL"]
    if ctrl <= 0xff:
        mods = {"quad_perm": [ctrl & 3, ctrl >> 2 & 3, ctrl >> 4 & 3, ctrl >> 6 & 3]}
    elif ctrl in syntax.DPP_FIXED_CONTROLS:
        mods = {syntax.DPP_FIXED_CONTROLS[ctrl]: True}
    elif ctrl & ~0xf in syntax.DPP_ROW_CONTROLS:
        mods = {syntax.DPP_ROW_CONTROLS[ctrl & ~0xf]: ctrl & 0xf}
    else:
        mods = {"dpp_ctrl": ctrl}
    mods["row_mask"], mods["bank_mask"] = d["ROW_MASK"], d["BANK_MASK"]
    if d["BC"]:
        mods["bound_ctrl"] = 1
    if d["FI"]:
        mods["fi"] = 1
    return mods

"""Instruction -> text in LLVM's AMDGPU assembly syntax."""
from __future__ import annotations

from isa import Spec
from isa.memory_access import memory_access, scalar_base_registers, scalar_data

from . import immediate_values, syntax
from .decode import Instruction
# the encoder's memoised forms
from .encode import data_dwords, ds_layout, flat_layout, scalar_bits, scalar_layout, valu_signature
from . import printer_rdna4
from .printer_graphics import print_graphics
from .printer_operands import buffer_data_dwords, buffer_modifiers_text, flags_text, reg_text, sreg_text, src_text, t16_vgpr, vreg
from .signature import Operand, cache_control, vopd_base
from .valu_plan import valu_plan


# ---------------------------------------------------------------- VALU


def _mods(text: str, op: Operand, neg: bool, abs_: bool, is_const: bool, force: bool = False) -> str:
    if not op.is_float and not force:
        return text
    if abs_:
        text = f"|{text}|"
    if neg:
        text = f"neg({text})" if is_const and not abs_ else f"-{text}"
    return text


def _bits(value: int, n: int) -> list[int]:
    return [(value >> i) & 1 for i in range(n)]


def _dpp_text(spec: Spec, inst: Instruction) -> str:
    d = inst.dpp
    if inst.dpp_kind == "DPP8":
        sels = ",".join(str(d[f"LANE_SEL{i}"]) for i in range(8))
        return f"dpp8:[{sels}]" + (" fi:1" if inst.fields.get("SRC0") == spec.traits.codes["DPP8FI"] else "")
    ctrl = d["DPP_CTRL"]
    if ctrl <= 0xff:
        c = f"quad_perm:[{ctrl & 3},{ctrl >> 2 & 3},{ctrl >> 4 & 3},{ctrl >> 6 & 3}]"
    elif ctrl in syntax.DPP_FIXED_CONTROLS:
        c = syntax.DPP_FIXED_CONTROLS[ctrl]
    elif ctrl & ~0xf in syntax.DPP_ROW_CONTROLS:
        c = f"{syntax.DPP_ROW_CONTROLS[ctrl & ~0xf]}:{ctrl & 0xf}"
    else:
        c = f"dpp_ctrl:0x{ctrl:x}"
    out = f"{c} row_mask:0x{d['ROW_MASK']:x} bank_mask:0x{d['BANK_MASK']:x}"
    if d["BC"]:
        out += " bound_ctrl:1"
    if d["FI"]:
        out += " fi:1"
    return out


def print_valu(spec: Spec, inst: Instruction, wave: int) -> str:
    d = inst.defs[0]
    f = inst.fields
    dpp = inst.dpp
    plan = valu_plan(d, spec, inst.fmt.name, dpp is not None, wave)
    vgpr0 = spec.traits.vgpr_base              # a source field's code of v0
    sig, e32, is_p, is_wmma, is_mix = plan.sig, plan.e32, plan.is_p, plan.is_wmma, plan.is_mix
    opsel = f.get("OPSEL", 0)
    neg, abs_ = f.get("NEG", 0), f.get("ABS", 0)
    literal = inst.literal
    parts: list[str] = []
    # destinations
    for op in sig.dsts:
        if op.name == "sdst":
            parts.append(plan.vcc if e32 else sreg_text(spec, f["VDST"], op.regs(wave)))
        elif op.sgpr:
            parts.append(sreg_text(spec, f["VDST"], 1))
        elif is_wmma:
            parts.append(vreg(f["VDST"], plan.cd_regs))
        elif op.t16 and not is_p and plan.t16_regs:
            parts.append(t16_vgpr(f["VDST"]) if e32 else f"v{f['VDST']}.{'h' if opsel >> 3 & 1 else 'l'}")
        else:
            parts.append(vreg(f["VDST"], op.dwords))
    if sig.vcc_out and e32:
        parts.append(plan.vcc)
    if inst.fmt.name == "VOP3SD":
        parts.append(sreg_text(spec, f["SDST"], wave // 32))
    # sources
    srcs = []
    for i, (op, n, bits, is_float, packed, f16_inline) in enumerate(plan.srcs):
        if e32:
            if i == 0:
                code = f["SRC0"] if not dpp else vgpr0 + dpp["SRC0"]
            elif i == 1:
                code = vgpr0 + f["VSRC1"]
            else:
                break
            if code >= vgpr0:   # (src_text's VGPR case, without its call)
                text = (t16_vgpr(code - vgpr0) if op.t16 and plan.t16_regs else f"v{code - vgpr0}" if n == 1
                        else reg_text("v", code - vgpr0, n))
            else:
                text = src_text(spec, code, n, literal=literal, bits=bits, is_float=is_float, packed=packed,
                                f16_inline=f16_inline)
            if dpp and inst.dpp_kind == "DPP16" and i < 2:   # DPP16 carries e32's only modifiers
                text = _mods(text, op, dpp[f"SRC{i}_NEG"], dpp[f"SRC{i}_ABS"], False, force=plan.force_mods)
            srcs.append(text)
            continue
        code = f[f"SRC{i}"]
        if i == 0 and dpp:
            code = vgpr0 + dpp["SRC0"]
        if is_wmma and plan.matrix[i]:   # RDNA3: the accumulator's constants as a 64-bit operand's
            text = src_text(spec, code, n, literal=literal, wide_float=plan.wide_constants)
        elif is_mix:   # each source is f16 or f32 as its OPSEL_HI bit says
            half = (f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2) >> i & 1
            text = src_text(spec, code, n, literal=literal, bits=16 if half else 32)
        elif code >= vgpr0 and not (op.t16 and not is_p and plan.t16_regs):   # a whole VGPR (src_text's case)
            text = f"v{code - vgpr0}" if n == 1 else reg_text("v", code - vgpr0, n)
        else:
            hi = bool(opsel >> i & 1) if op.t16 and code >= vgpr0 and not is_p and plan.t16_regs else None
            text = src_text(spec, code, n, t16_hi=hi, literal=literal, bits=bits, is_float=is_float,
                            packed=packed, f16_inline=f16_inline)
        if not is_p:
            if (neg | abs_) >> i & 1:   # (_mods leaves the text alone without either)
                text = _mods(text, op, neg >> i & 1, abs_ >> i & 1, spec.traits.is_constant(code))
        elif is_mix:   # v_fma_mix*: NEG is the sign, NEG_HI the absolute value of each source
            text = _mods(text, op, neg >> i & 1, f.get("NEG_HI", 0) >> i & 1, spec.traits.is_constant(code))
        srcs.append(text)
    if sig.k_pos is not None and e32:
        srcs.insert(sig.k_pos, f"0x{literal or 0:x}")
    parts += srcs
    if sig.vcc_in and e32:
        parts.append(plan.vcc)
    text = plan.mn + (" " + ", ".join(parts) if parts else "")
    if e32 and not dpp:   # no modifiers in the 32-bit encoding
        return text
    # modifiers
    tail = []
    nsrc = len(sig.srcs)
    if is_p:
        hi_bits = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
        neg_hi = f.get("NEG_HI", 0)
        if is_wmma and len(plan.matrix) > 2 and not plan.matrix[2]:   # SWMMAC: OPSEL picks the index
            if opsel:
                tail.append(f"index_key:{opsel}")
        elif opsel & ((1 << nsrc) - 1):
            tail.append(f"op_sel:[{','.join(map(str, _bits(opsel, nsrc)))}]")
        default_hi = 0 if is_mix else (1 << nsrc) - 1
        if hi_bits & ((1 << nsrc) - 1) != default_hi:
            tail.append(f"op_sel_hi:[{','.join(map(str, _bits(hi_bits, nsrc)))}]")
        if is_mix:
            pass
        elif neg & ((1 << nsrc) - 1):
            tail.append(f"neg_lo:[{','.join(map(str, _bits(neg, nsrc)))}]")
        if neg_hi & ((1 << nsrc) - 1) and not is_mix:
            tail.append(f"neg_hi:[{','.join(map(str, _bits(neg_hi, nsrc)))}]")
    elif not e32 and d.name in syntax.BYTE_SEL:
        hi_bit, lo_bit = syntax.BYTE_SEL[d.name]
        if opsel:
            tail.append(f"byte_sel:{(opsel >> hi_bit & 1) << 1 | opsel >> lo_bit & 1}")
    elif not e32 and plan.opsel_shown:
        if sig.opsel_flags:   # OPSEL bits the instruction redefines (v_permlane16: fi, bound_ctrl)
            if opsel & ((1 << sig.opsel_flags) - 1):
                tail.append(f"op_sel:[{','.join(map(str, _bits(opsel, sig.opsel_flags)))}]")
        elif opsel and (dpp and sig.is_cmp or sig.is_cmpx):   # no destination half to select
            tail.append(f"op_sel:[{','.join(map(str, _bits(opsel, nsrc)))}]")
        elif opsel:
            sel = _bits(opsel, 3 if sig.reads_dst else nsrc) + [opsel >> 3 & 1]
            tail.append(f"op_sel:[{','.join(map(str, sel))}]")
    if not e32 and f.get("CLMP"):
        tail.append("clamp")
    omod = f.get("OMOD", 0)
    if omod and not e32:
        tail.append({1: "mul:2", 2: "mul:4", 3: "div:2"}[omod])
    if dpp:
        tail.append(_dpp_text(spec, inst))
    return text + (" " + " ".join(tail) if tail else "")


# ---------------------------------------------------------------- scalar


def _waitcnt_text(spec: Spec, imm: int) -> str:
    """Counters not at their maximum (no wait); all three when none is waited on."""
    return " ".join(f"{c.name}({c.args[0]})" for c in immediate_values.waitcnt(spec, imm))


def _delay_text(imm: int) -> str:
    id0, skip, id1 = imm & 0xf, imm >> 4 & 7, imm >> 7 & 0xf
    if id0 >= len(syntax.DELAY_INSTID) or id1 >= len(syntax.DELAY_INSTID) or skip >= len(syntax.DELAY_SKIP):
        return f"0x{imm:x}"
    out = [f"instid0({syntax.DELAY_INSTID[id0]})"] if id0 else []
    if skip:
        out.append(f"instskip({syntax.DELAY_SKIP[skip]})")
    if id1:
        out.append(f"instid1({syntax.DELAY_INSTID[id1]})")
    return " | ".join(out) if out else "0"


def _depctr_text(imm: int) -> str:
    known = 0
    out = []
    for name, lo, width in syntax.DEPCTR_FIELDS:   # fields at their maximum (no wait) are omitted
        known |= ((1 << width) - 1) << lo
        val = imm >> lo & ((1 << width) - 1)
        if val != (1 << width) - 1:
            out.append(f"{name}({val})")
    if imm & ~known & 0xffff:
        return f"0x{imm:x}"
    return " ".join(out)


def hwreg_text(imm: int, family: str | None = None) -> str:
    rid, offset, size = imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1
    name = syntax.hwreg_names(family).get(rid, str(rid))
    return f"hwreg({name})" if (offset, size) == (0, 32) else f"hwreg({name}, {offset}, {size})"


def _sendmsg_text(imm: int, family: str | None = None) -> str:
    """gfx11 messages are the low byte: a named message ignores the other bits, an unnamed
    one prints as sendmsg(id, 0, 0) when they are clear and as a plain number otherwise."""
    msg = imm & 0xff
    names, rtn_names = syntax.sendmsg_names(family)
    name = names.get(msg) or rtn_names.get(msg)
    if name:
        return f"sendmsg({name})"
    return f"sendmsg({msg}, 0, 0)" if imm == msg else str(imm)


def _simm_text(style: str, imm: int) -> str:
    if style == "hex":
        return f"0x{imm:x}"
    if style == "imm":
        return str(imm) if imm <= 64 else f"0x{imm:x}"
    if style == "version":
        if imm & ~0xe0ff:
            return f"0x{imm:x}"
        expr = syntax.UC_VERSION_NAMES.get(imm & 0xff, str(imm & 0xff))
        for bit, flag in ((13, "UC_VERSION_W64_BIT"), (14, "UC_VERSION_W32_BIT"), (15, "UC_VERSION_MDP_BIT")):
            if imm >> bit & 1:
                expr = f"({expr})|{flag}" if "|" in expr else f"{expr}|{flag}"
        return expr
    if style in ("dec", "opt"):
        return str(imm)
    if style == "branch":
        return str(imm)
    return str(imm)


def print_scalar(spec: Spec, inst: Instruction) -> str:
    d = inst.defs[0]
    f = inst.fields
    mn = d.name.lower()
    fmt = inst.fmt.name

    if fmt in ("SOP2", "SOP1", "SOPC"):
        parts = []
        for name, fld, n in scalar_layout(d):
            if name == "sdst":
                parts.append(sreg_text(spec, f[fld], n))
            elif name == "msg":
                parts.append(_sendmsg_text(f[fld], spec.arch))
            elif name == "k":
                parts.append(f"0x{inst.literal or 0:x}")
            else:
                bits = scalar_bits(d, "S0" if fld == "SSRC0" else "S1")
                rule = syntax.SALU_LITERAL16.get(fmt) if bits == 16 else None
                parts.append(src_text(spec, f[fld], n, literal=inst.literal, table=(fmt, fld),
                                      bits=16 if rule else 64 if n == 2 else 32, is_float=rule == "float"))
        return mn + (" " + ", ".join(parts) if parts else "")
    if fmt == "SOPP":
        style = syntax.SOPP_STYLE.get(mn, "hex")
        imm = f["SIMM16"]
        if style == "none" or (style == "opt" and imm == 0):
            return mn
        if style == "waitcnt":
            return f"{mn} {_waitcnt_text(spec, imm)}"
        if style == "delay_alu":
            return f"{mn} {_delay_text(imm)}"
        if style == "depctr":
            return f"{mn} {_depctr_text(imm)}"
        if style == "sendmsg":
            return f"{mn} {_sendmsg_text(imm, spec.arch)}"
        return f"{mn} {_simm_text(style, imm)}"
    if fmt == "SOPK":
        operands, style = syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        imm = f["SIMM16"]
        parts = []
        for o in operands:
            if o == "sdst":
                parts.append(sreg_text(spec, f["SDST"], 2 if scalar_bits(d, "D0") == 64 else 1))
            elif o == "imm":
                parts.append(_simm_text(style, imm))
            elif o == "hwreg":
                parts.append(hwreg_text(imm, spec.arch))
            elif o == "lit":
                parts.append(f"0x{inst.literal or 0:x}")
        return mn + " " + ", ".join(parts)
    raise AssertionError(fmt)


# ---------------------------------------------------------------- memory


def _smem(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return mn
    sbase_n = scalar_base_registers(d)
    if scalar_data(d) == "immediate":     # s_atc_probe's mode
        first = _simm_text("imm", f["SDATA"])
    else:
        first = sreg_text(spec, f["SDATA"], data_dwords(d.name))
    parts = [first, reg_text("s", f["SBASE"] * 2, sbase_n) if f["SBASE"] * 2 < spec.traits.sgprs
             else sreg_text(spec, f["SBASE"] * 2, sbase_n)]
    off = f["OFFSET"]
    if off & (1 << 20):
        off -= 1 << 21
    soff = f["SOFFSET"]
    if soff != spec.traits.null:
        parts.append(sreg_text(spec, soff, 1))
        text = f"{mn} {', '.join(parts)}"
        if off:
            text += f" offset:{'-' if off < 0 else ''}0x{abs(off):x}"
    else:   # no SGPR offset: the immediate, or null when that is 0 too
        parts.append(f"{'-' if off < 0 else ''}0x{abs(off):x}" if off else "null")
        text = f"{mn} {', '.join(parts)}"
    return text + flags_text(f, ("GLC", "DLC"))


def _ds(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    parts = [vreg(f[field], n) for _, field, n in ds_layout(d)]
    text = mn + (" " + ", ".join(parts) if parts else "")
    if memory_access(d).two_addresses:
        text += "".join(f" {k.lower()}:{f[k]}" for k in ("OFFSET0", "OFFSET1") if f[k])
    else:
        off = f["OFFSET0"] | f["OFFSET1"] << 8
        if off:
            text += f" offset:{_swizzle_text(off) if mn == 'ds_swizzle_b32' else off}"
    return text + flags_text(f, ("GDS",))


def _swizzle_text(off: int) -> str:
    """ds_swizzle_b32's offset in LLVM's swizzle(...) macros (the manual's DS_SWIZZLE_B32
    modes: offset[15] = 0 bit-mask mode, 0x80xx quad permute, 0xc000 rotate, 0xe000 FFT);
    other values print as a number."""
    if off & 0xff00 == 0x8000:
        return f"swizzle(QUAD_PERM,{off & 3},{off >> 2 & 3},{off >> 4 & 3},{off >> 6 & 3})"
    if off & 0xe000 == 0xe000:
        return f"swizzle(FFT,{off & 0x1f})"
    if off & 0xe000 == 0xc000:
        return f"swizzle(ROTATE,{off >> 10 & 1},{off >> 5 & 0x1f})"
    if off & 0x8000:
        return str(off)
    and_mask, or_mask, xor_mask = off & 0x1f, off >> 5 & 0x1f, off >> 10 & 0x1f
    if and_mask == 0x1f and or_mask == 0 and xor_mask and xor_mask & (xor_mask - 1) == 0:
        return f"swizzle(SWAP,{xor_mask})"
    if and_mask == 0x1f and or_mask == 0 and xor_mask and (xor_mask + 1) & xor_mask == 0:
        return f"swizzle(REVERSE,{xor_mask + 1})"
    group = 0x20 - and_mask
    if 1 < group and group & (group - 1) == 0 and or_mask < group and xor_mask == 0:
        return f"swizzle(BROADCAST,{group},{or_mask})"
    # per lane-id bit: what it becomes for an id bit of 0 and of 1 -> 0, 1, p(reserve), i(nvert)
    bits = ""
    for i in range(4, -1, -1):
        lo = (or_mask ^ xor_mask) >> i & 1
        hi = ((and_mask | or_mask) ^ xor_mask) >> i & 1
        bits += str(lo) if lo == hi else "p" if lo == 0 else "i"
    return f'swizzle(BITMASK_PERM,"{bits}")'


def _flat(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    fmt = inst.fmt.name
    parts = []
    t = spec.traits
    for name, field, n in flat_layout(d, bool(f.get("GLC"))):
        if name == "saddr":   # null turns the scalar base off (GLOBAL also names m0's code off)
            off_codes = (t.null, t.m0) if fmt == "GLOBAL" else (t.null,)
            parts.append("off" if f[field] in off_codes else sreg_text(spec, f[field], n))
        elif name == "vaddr" and fmt == "SCRATCH":
            parts.append(vreg(f[field]) if f.get("SVE") else "off")
        elif name == "vaddr" and fmt == "GLOBAL":   # no scalar base: a 64-bit VGPR address
            parts.append(vreg(f[field], 2 if f["SADDR"] in (t.null, t.m0) else 1))
        else:
            parts.append(vreg(f[field], n))
    text = f"{d.name.lower()} {', '.join(parts)}"
    off = f["OFFSET"]
    if fmt != "FLAT" and off & (1 << 12):
        off -= 1 << 13
    if off:
        text += f" offset:{off}"
    return text + flags_text(f, ("GLC", "SLC", "DLC"))


def _buffer(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return mn
    n = buffer_data_dwords(d, f)
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    parts = [vreg(f["VDATA"], n)]
    parts.append(vreg(f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else "off")
    parts.append(sreg_text(spec, f["SRSRC"] * 4, 4))
    parts.append(src_text(spec, f["SOFFSET"], 1, literal=inst.literal, table=("SOP2", "SSRC0")))
    text = f"{mn} {', '.join(parts)}"
    text += buffer_modifiers_text(spec, f, inst.fmt.name == "MTBUF", f["OFFSET"])
    return text + flags_text(f, ("GLC", "SLC", "DLC", "TFE"))


def _vinterp(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    sig = valu_signature(d)
    opsel, neg = f.get("OPSEL", 0), f.get("NEG", 0)
    dst = sig.dsts[0]
    t16_regs = spec.arch in syntax.TRUE16_FAMILIES
    parts = [f"v{f['VDST']}.{'h' if opsel >> 3 & 1 else 'l'}" if dst.t16 and t16_regs else vreg(f["VDST"])]
    # 16-bit inputs: f16 in RDNA3.5's pseudocode, one half of a packed operand in RDNA3's
    halves = [op.t16 or d.operand_types.get(f"S{i}") == "pk_f16" for i, op in enumerate(sig.srcs[:3])]
    for i, op in enumerate(sig.srcs[:3]):
        code = f[f"SRC{i}"]
        hi = bool(opsel >> i & 1) if halves[i] and code >= spec.traits.vgpr_base and t16_regs else None
        text = src_text(spec, code, 1, t16_hi=hi)
        if neg >> i & 1:
            text = "-" + text
        parts.append(text)
    text = d.name.lower() + " " + ", ".join(parts)
    if f.get("CLMP"):
        text += " clamp"
    if opsel and (dst.t16 or any(halves)):   # all-f32 forms have no op_sel operand
        text += f" op_sel:[{','.join(map(str, _bits(opsel, 3) + [opsel >> 3 & 1]))}]"
    return text + f" wait_exp:{f.get('WAITEXP', 0)}"


def _ldsdir(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if mn == "lds_param_load":
        text = f"{mn} {vreg(f['VDST'])}, attr{f['ATTR']}.{'xyzw'[f['ATTR_CHAN']]}"
    else:
        text = f"{mn} {vreg(f['VDST'])}"
    return text + f" wait_vdst:{f['WAIT_VA']}"


def _vopd(spec: Spec, inst: Instruction) -> str:
    f = inst.fields
    halves = []
    for slot, d in zip("XY", inst.defs):
        sig = valu_signature(vopd_base(spec, d))
        vdst = f["VDSTX"] if slot == "X" else (f["VDSTY"] << 1) | ((f["VDSTX"] & 1) ^ 1)
        src0 = f[f"SRC{slot}0"]
        vsrc1 = f[f"VSRC{slot}1"]
        parts = [vreg(vdst)]
        srcs = [src_text(spec, src0, 1, literal=inst.literal)]
        if len(sig.srcs) > 1:
            srcs.append(vreg(vsrc1))
        if sig.k_pos is not None:
            srcs.insert(sig.k_pos, f"0x{inst.literal or 0:x}")
        parts += srcs
        halves.append(d.name.lower() + " " + ", ".join(parts))
    return " :: ".join(halves)


def _graphics(spec: Spec, inst: Instruction) -> str:
    return print_graphics(spec, inst)


# the other formats' printers, each (spec, inst) -> text (RDNA4's formats: printer_rdna4)
_PRINTERS = {"SMEM": _smem, "DS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat, "MUBUF": _buffer,
             "MTBUF": _buffer, "VINTERP": _vinterp, "LDSDIR": _ldsdir, "VOPD": _vopd, "EXP": _graphics,
             "MIMG": _graphics, "VDS": _ds, "VEXPORT": _graphics, "VDSDIR": printer_rdna4.vdsdir,
             "VFLAT": printer_rdna4.flat, "VGLOBAL": printer_rdna4.flat, "VSCRATCH": printer_rdna4.flat,
             "VBUFFER": printer_rdna4.buffer, "VIMAGE": printer_rdna4.image, "VSAMPLE": printer_rdna4.image}
_PRINTERS_BY_FAMILY = {"rdna4": {"SMEM": printer_rdna4.smem}}


def print_instruction(spec: Spec, inst: Instruction, wave: int = 32) -> str:
    fmt = inst.fmt.name
    roles = spec.traits.roles
    if fmt in roles.salu:
        return print_scalar(spec, inst)
    if inst.defs[0].name == "V_ILLEGAL":
        return "v_illegal"
    if fmt in roles.valu_e32 or fmt in roles.valu_e64:
        return print_valu(spec, inst, wave)
    printer = _PRINTERS_BY_FAMILY.get(spec.arch, {}).get(fmt) or _PRINTERS.get(fmt)
    if printer is None:
        return f"{inst.name.lower()} <{fmt} operands not printed>"
    return printer(spec, inst)

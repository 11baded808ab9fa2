"""Instruction -> text in LLVM's gfx9 syntax generation (CDNA3: gfx940-942), for families whose
traits say `dialect == "gfx9"`: wave64 only, no true16 halves, AGPRs (a0..a255) selected by ACC
bits, SDWA and GFX9 DPP second dwords, VOP3A/VOP3B, MFMA in the VOP3P-MAI layout, DWORD-style
memory names and the sc0/nt/sc1 cache bits. Shares operand text with the gfx11 printer
(printer_operands.py); what LLVM spells differently is in syntax_gfx9.py."""
from __future__ import annotations

from dataclasses import replace

from isa import Spec
from isa.memory_access import memory_access, scalar_base_registers, scalar_data
from isa.mnemonics import text_mnemonic

from . import syntax, syntax_gfx9 as g9
from .decode import Instruction
from .printer import _bits, _mods, _simm_text, print_scalar
from .valu_plan import gfx9_valu_plan, mai_fields, mfma_shape
from .printer_operands import hex_or_dec, reg_text, sreg_text, src_text
from .signature import (Operand, cache_control, data_registers, ds_layout, flat_layout, scalar_bits,
                        type_info)


def _acc(idx: int, n: int, agpr: bool) -> str:
    return reg_text("a" if agpr else "v", idx, n)


# ---------------------------------------------------------------- VALU


def _dpp_ctrl(ctrl: int) -> str:
    if ctrl <= 0xff:
        return f"quad_perm:[{ctrl & 3},{ctrl >> 2 & 3},{ctrl >> 4 & 3},{ctrl >> 6 & 3}]"
    if ctrl in g9.DPP_FIXED_CONTROLS:
        key, value = g9.DPP_FIXED_CONTROLS[ctrl]
        return key if value is True else f"{key}:{value}"
    rows = g9.DPP_ROW_CONTROLS
    if ctrl & ~0xf in rows and (ctrl & 0xf or ctrl & ~0xf == 0x150):
        return f"{rows[ctrl & ~0xf]}:{ctrl & 0xf}"
    return f"dpp_ctrl:0x{ctrl:x}"


def _sdwa_src(spec: Spec, code8: int, scalar: int, op: Operand, n: int, sext: int, neg: int, abs_: int,
              fp_mods: bool) -> str:
    code = code8 if scalar else 256 + code8
    text = src_text(spec, code, n, bits=16 if op.t16 else 32, is_float=op.is_float)
    if op.packed:   # packed halves take neither
        return text
    if op.is_float or fp_mods:
        return _mods(text, op, neg, abs_, spec.traits.is_constant(code), force=True)
    return f"sext({text})" if sext else text


def print_valu(spec: Spec, inst: Instruction, wave: int) -> str:
    d = inst.defs[0]
    f = inst.fields
    kind = inst.dpp_kind
    plan = gfx9_valu_plan(d, spec, inst.fmt.name, kind)
    if d.name in {row[0] for row in spec.tables.get("mfma", ())}:
        return _mfma(spec, inst)
    sig, e32 = plan.sig, plan.e32
    dpp = inst.dpp
    literal = inst.literal
    parts: list[str] = []
    # destinations
    mask = None
    if sig.is_cmp:   # gfx9 v_cmpx writes EXEC and the compare mask too
        mask = sreg_text(spec, dpp["SDST"], 2) if kind == "SDWAB" and dpp["SD"] else \
            "vcc" if e32 else sreg_text(spec, f["VDST"], 2)
        parts.append(mask)
    for op in sig.dsts:
        if op.name == "sdst":
            continue
        elif op.sgpr:
            parts.append(sreg_text(spec, f["VDST"], 1))
        else:
            parts.append(_acc(f["VDST"], op.dwords, "vdst" in plan.acc))
    if sig.vcc_out:
        parts.append("vcc" if e32 else sreg_text(spec, f["SDST"], 2) if "SDST" in f else "vcc")
    elif "SDST" in f and not e32:
        parts.append(sreg_text(spec, f["SDST"], 2))
    # sources
    srcs = []
    for i, (op, n, bits, is_float, packed) in enumerate(plan.srcs):
        acc = f"src{i}" in plan.acc
        if e32:
            if i > 1:
                break
            if kind in ("SDWA", "SDWAB"):
                code8, scalar = (dpp["SRC0"], dpp["S0"]) if i == 0 else (f["VSRC1"], dpp["S1"])
                typed = d.operand_types.get(f"S{i}")   # the pseudocode's type (v_cmp_class's mask is u32)
                if d.name in g9.SDWA_NO_DST_SEL or typed and type_info(typed)[1] != "f":
                    op = replace(op, ftype="u")
                srcs.append(_sdwa_src(spec, code8, scalar, op, n, dpp[f"SRC{i}_SEXT"], dpp[f"SRC{i}_NEG"],
                                      dpp[f"SRC{i}_ABS"], plan.fp_mods))
                continue
            code = (256 + dpp["SRC0"] if kind == "DPP" else f["SRC0"]) if i == 0 else 256 + f["VSRC1"]
            if code >= 256:
                text = _acc(code - 256, n, acc)
            else:
                text = src_text(spec, code, n, literal=literal, bits=bits, is_float=is_float, packed=packed,
                                f16_inline=False)   # gfx9 prints a 16-bit integer's inline float as the value
            if kind == "DPP":
                text = _mods(text, op, dpp[f"SRC{i}_NEG"], dpp[f"SRC{i}_ABS"], False, force=plan.fp_mods)
            srcs.append(text)
            continue
        code = f[f"SRC{i}"]
        if plan.is_mix:
            half = (f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2) >> i & 1
            text = src_text(spec, code, n, literal=literal, bits=16 if half else 32)
        elif code >= 256:
            text = _acc(code - 256, n, acc)
        else:
            text = src_text(spec, code, n, literal=literal, bits=bits, is_float=is_float, packed=packed,
                            f16_inline=False)
        neg, abs_ = f.get("NEG", 0) >> i & 1, (f.get("ABS", 0) if not plan.is_p else f.get("NEG_HI", 0)) >> i & 1
        if (not plan.is_p or plan.is_mix) and not plan.truth_table:
            text = _mods(text, op, neg, abs_, spec.traits.is_constant(code))
        srcs.append(text)
    if sig.k_pos is not None and e32:
        srcs.insert(sig.k_pos, f"0x{literal or 0:x}")
    parts += srcs
    if sig.vcc_in and (e32 or len(plan.srcs) < 3):   # e64 reads the mask as SRC2 (v_div_fmas reads VCC itself)
        parts.append("vcc" if e32 else sreg_text(spec, f["SRC2"], 2))
    text = plan.mn + (" " + ", ".join(parts) if parts else "")
    tail = []
    if kind in ("SDWA", "SDWAB"):
        if dpp.get("CLMP"):
            tail.append("clamp")
        if dpp.get("OMOD"):
            tail.append({1: "mul:2", 2: "mul:4", 3: "div:2"}[dpp["OMOD"]])
        if kind == "SDWA" and d.name not in g9.SDWA_NO_DST_SEL:
            tail.append(f"dst_sel:{g9.SDWA_SEL[dpp['DST_SEL']] if dpp['DST_SEL'] < 7 else dpp['DST_SEL']}")
            tail.append(f"dst_unused:{g9.SDWA_UNUSED[dpp['DST_U']] if dpp['DST_U'] < 4 else dpp['DST_U']}")
        for i in range(min(2, len(plan.srcs))):
            sel = dpp[f"SRC{i}_SEL"]
            tail.append(f"src{i}_sel:{g9.SDWA_SEL[sel] if sel < 7 else sel}")
        return text + " " + " ".join(tail)
    if kind == "DPP":
        tail.append(_dpp_ctrl(dpp["DPP_CTRL"]))
        tail.append(f"row_mask:0x{dpp['ROW_MASK']:x} bank_mask:0x{dpp['BANK_MASK']:x}")
        if dpp["BC"]:
            tail.append("bound_ctrl:1")
        return text + " " + " ".join(tail)
    if e32:
        return text
    nsrc = len(plan.srcs)
    opsel = f.get("OPSEL", 0)
    if plan.truth_table:      # TTBL = { OMOD[1:0], ABS[2:0], NEG[2:0] }
        table = f.get("OMOD", 0) << 6 | f.get("ABS", 0) << 3 | f.get("NEG", 0)
        if table:
            tail.append(f"bitop3:{table if table < 10 else hex(table)}")
    if plan.is_p:
        hi_bits = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
        if opsel & ((1 << nsrc) - 1):
            tail.append(f"op_sel:[{','.join(map(str, _bits(opsel, nsrc)))}]")
        default_hi = 0 if plan.is_mix else (1 << nsrc) - 1
        if hi_bits & ((1 << nsrc) - 1) != default_hi:
            tail.append(f"op_sel_hi:[{','.join(map(str, _bits(hi_bits, nsrc)))}]")
        if not plan.is_mix and d.name not in g9.NO_PCODE_SOURCES:   # (LLVM ignores its NEG bits)
            if f.get("NEG", 0) & ((1 << nsrc) - 1):
                tail.append(f"neg_lo:[{','.join(map(str, _bits(f['NEG'], nsrc)))}]")
            if f.get("NEG_HI", 0) & ((1 << nsrc) - 1):
                tail.append(f"neg_hi:[{','.join(map(str, _bits(f['NEG_HI'], nsrc)))}]")
    elif d.name in g9.OPSEL_FLAGS:
        tail += [f"{name}:1" for name, bit in g9.OPSEL_FLAGS[d.name] if opsel >> bit & 1]
    elif opsel:
        bits = _bits(opsel, 4) if plan.opsel_byte else _bits(opsel, nsrc) + [opsel >> 3 & 1]
        tail.append(f"op_sel:[{','.join(map(str, bits))}]")
    if f.get("CLMP"):
        tail.append("clamp")
    if f.get("OMOD") and not plan.truth_table:
        tail.append({1: "mul:2", 2: "mul:4", 3: "div:2"}[f["OMOD"]])
    return text + (" " + " ".join(tail) if tail else "")


def _mfma(spec: Spec, inst: Instruction) -> str:
    """Matrix instructions: the VOP3P-MAI layout of the same bits (CBSZ, ABID, ACC_CD, ACC, BLGP),
    register counts from the shape table (valu_plan.mfma_shape)."""
    d = inst.defs[0]
    f = mai_fields(spec, inst)
    regs_d, regs_a, regs_b, sparse, out_t = mfma_shape(spec, d)
    out_b = 8 if out_t == "f64" else 4
    acc_cd, acc = f["ACC_CD"], f["ACC"]
    parts = [_acc(f["VDST"], regs_d, acc_cd)]
    for i, n in enumerate((regs_a, regs_b)):
        code = f[f"SRC{i}"]
        parts.append(_acc(code - 256, n, acc >> i & 1) if code >= 256 else src_text(spec, code, n))
    code = f["SRC2"]
    if sparse:
        parts.append(_acc(code - 256, 1, False) if code >= 256 else src_text(spec, code, 1))
    else:
        parts.append(_acc(code - 256, regs_d, acc_cd) if code >= 256 else
                     src_text(spec, code, regs_d, bits=64 if out_b == 8 else 32))
    text = f"{text_mnemonic(d.name, spec.arch)} {', '.join(parts)}"
    for name in ("CBSZ", "ABID", "BLGP"):
        if not f[name]:
            continue
        if name == "BLGP" and out_t in g9.MFMA_NEG_TYPES:
            text += f" neg:[{','.join(map(str, _bits(f[name], 3)))}]"
        else:
            text += f" {name.lower()}:{f[name]}"
    return text


# ---------------------------------------------------------------- scalar


def _sendmsg(imm: int) -> str:
    msg, op, stream = imm & 0xf, imm >> 4 & 7, imm >> 8 & 3
    name = g9.SENDMSG_NAMES.get(msg)
    if name in ("MSG_GS", "MSG_GS_DONE"):
        ok = op in g9.GS_OPS and (op != 0 or name == "MSG_GS_DONE") and (op != 0 or stream == 0)
        if ok:
            return f"sendmsg({name}, {g9.GS_OPS[op]}" + (f", {stream})" if op else ")")
    elif name == "MSG_SYSMSG":
        if op in g9.SYSMSG_OPS and stream == 0:
            return f"sendmsg({name}, {g9.SYSMSG_OPS[op]})"
    elif name and op == 0 and stream == 0:
        return f"sendmsg({name})"
    return f"sendmsg({msg}, {op}, {stream})" if imm == msg | op << 4 | stream << 8 else str(imm)


def _gpr_idx(imm: int) -> str:
    if imm > 15:
        return hex_or_dec(imm) if imm > 9 else str(imm)
    return "gpr_idx(" + ",".join(n for i, n in enumerate(g9.GPR_IDX_MODES) if imm >> i & 1) + ")"


def _waitcnt(spec: Spec, imm: int) -> str:
    fields = {name: (hi, lo) for name, hi, lo in spec.tables["waitcnt"]}
    vm = imm & 0xf | (imm >> fields["VM_HI"][1] & 3) << 4
    counts = [("vmcnt", vm, 63), ("expcnt", imm >> 4 & 7, 7), ("lgkmcnt", imm >> 8 & 0xf, 15)]
    waited = [f"{n}({v})" for n, v, top in counts if v != top]
    return " ".join(waited or [f"{n}({v})" for n, v, _ in counts])


def hwreg_text(spec: Spec, imm: int) -> str:
    rid, offset, size = imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1
    names = {code: name for code, name, _ in spec.tables["hwreg"] if name != "reserved"}
    name = g9.HWREG_EXTRA.get(rid) or names.get(rid)
    if name:
        name = g9.hwreg_text_name(name)
    else:
        name = str(rid)
    return f"hwreg({name})" if (offset, size) == (0, 32) else f"hwreg({name}, {offset}, {size})"


def print_gfx9_scalar(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    fmt = inst.fmt.name
    if d.name in g9.SCALAR_LAYOUT:
        return mn + " " + ", ".join(src_text(spec, f[fld], n, literal=inst.literal, table=(fmt, fld),
                                             bits=64 if n == 2 else 32) for _, fld, n in g9.SCALAR_LAYOUT[d.name])
    if mn == "s_set_gpr_idx_on":
        return f"{mn} {src_text(spec, f['SSRC0'], 1, literal=inst.literal, table=(fmt, 'SSRC0'))}, " \
               f"{_gpr_idx(f['SSRC1'])}"
    if fmt == "SOPP":
        style = g9.SOPP_STYLE.get(mn) or syntax.SOPP_STYLE.get(mn, "hex")
        imm = f["SIMM16"]
        if style == "none" or (style == "opt" and imm == 0):
            return mn
        if style == "waitcnt":
            return f"{mn} {_waitcnt(spec, imm)}"
        if style == "sendmsg":
            return f"{mn} {_sendmsg(imm)}"
        if style == "gpr_idx":
            return f"{mn} {_gpr_idx(imm)}"
        return f"{mn} {_simm_text(style, imm)}"
    if fmt == "SOPK":
        operands, style = g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        imm = f["SIMM16"]
        parts = []
        for o in operands:
            if o in ("sdst", "sdst64"):
                parts.append(sreg_text(spec, f["SDST"], 2 if o == "sdst64" or scalar_bits(d, "D0") == 64 else 1))
            elif o == "imm":
                parts.append(_simm_text(style, imm))
            elif o == "hwreg":
                parts.append(hwreg_text(spec, imm))
            elif o == "lit":
                parts.append(f"0x{inst.literal or 0:x}")
        return mn + " " + ", ".join(parts)
    return print_scalar(spec, inst)


# ---------------------------------------------------------------- memory


def _cache_bits(f: dict) -> str:
    return "".join(f" {n.lower()}" for n in ("SC0", "NT", "SC1") if f.get(n))


def _smem(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return mn
    n = data_registers(d)
    parts = []
    if mn in ("s_memtime", "s_memrealtime"):
        return f"{mn} {sreg_text(spec, f['SDATA'], 2)}"
    role = scalar_data(d)
    if role == "immediate":              # s_atc_probe's mode
        parts.append(_simm_text("imm", f["SDATA"]))
    elif role == "register":             # (s_dcache_discard has none)
        parts.append(sreg_text(spec, f["SDATA"], n))
    parts.append(sreg_text(spec, f["SBASE"] * 2, scalar_base_registers(d)))
    off = f["OFFSET"]
    if off & (1 << 20):
        off -= 1 << 21
    imm_text = f"{'-' if off < 0 else ''}0x{abs(off):x}"
    if f["SOE"]:
        parts.append(sreg_text(spec, f["SOFFSET"], 1))
        text = f"{mn} {', '.join(parts)}"
        if f["IMM"]:   # both offsets: the immediate is printed even when 0
            text += f" offset:{imm_text}"
    elif f["IMM"]:
        text = f"{mn} {', '.join(parts + [imm_text])}"
    else:
        text = f"{mn} {', '.join(parts + [sreg_text(spec, f['OFFSET'] & 0x7f, 1)])}"
    return text + (" glc" if f["GLC"] else "") + (" nv" if f["NV"] else "")


def _ds(spec: Spec, inst: Instruction) -> str:
    from .printer import _swizzle_text
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    two = memory_access(d).two_addresses
    acc = bool(f.get("ACC"))
    # the address is always a VGPR; data and result are VGPRs or AGPRs (ACC)
    parts = [_acc(f[field], width, acc and name != "addr") for name, field, width in ds_layout(d)]
    text = mn + (" " + ", ".join(parts) if parts else "")
    if two:
        text += "".join(f" {k.lower()}:{f[k]}" for k in ("OFFSET0", "OFFSET1") if f[k])
    else:
        off = f["OFFSET0"] | f["OFFSET1"] << 8
        if off:
            text += f" offset:{_swizzle_text(off) if mn == 'ds_swizzle_b32' else off}"
    return text + (" gds" if f.get("GDS") else "")


def _flat(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    fmt = inst.fmt.name
    layout = {name: width for name, _, width in flat_layout(d, bool(f.get("SC0")))}
    acc = bool(f.get("ACC"))
    off_saddr = f["SADDR"] == 0x7f
    parts = []
    if "vdst" in layout:
        parts.append(_acc(f["VDST"], layout["vdst"], acc))
    if fmt == "FLAT":
        parts.append(reg_text("v", f["ADDR"], 2))
    elif fmt == "SCRATCH":   # the LDS bit enables the VGPR address on scratch (LLVM's sve)
        parts.append(reg_text("v", f["ADDR"], 1) if f.get("LDS") else "off")
    else:
        parts.append(reg_text("v", f["ADDR"], 2 if off_saddr else 1))
    if "vdata" in layout:
        parts.append(_acc(f["DATA"], layout["vdata"], acc))
    if fmt == "GLOBAL":
        parts.append("off" if off_saddr else sreg_text(spec, f["SADDR"], 2))
    elif fmt == "SCRATCH":
        parts.append("off" if off_saddr else sreg_text(spec, f["SADDR"], 1))
    text = f"{d.name.lower()} {', '.join(parts)}"
    off = f["OFFSET"]
    if fmt != "FLAT" and off & (1 << 12):
        off -= 1 << 13
    if off:
        text += f" offset:{off}"
    return text + _cache_bits(f)


def _buffer(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):   # buffer_wbl2 / buffer_inv: which caches is the sc0/sc1 bits
        return mn + _cache_bits(f)
    n = data_registers(d)
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    parts = [] if f.get("LDS") else [_acc(f["VDATA"], n, bool(f.get("ACC")))]   # LDS: data goes to LDS
    parts.append(reg_text("v", f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else "off")
    parts.append(sreg_text(spec, f["SRSRC"] * 4, 4))
    parts.append(src_text(spec, f["SOFFSET"], 1, literal=inst.literal, table=("SOP2", "SSRC0")))
    text = f"{mn} {', '.join(parts)}"
    if inst.fmt.name == "MTBUF":
        dfmt, nfmt = f["DFMT"], f["NFMT"]
        if (dfmt, nfmt) != (1, 0):
            names = [f"BUF_DATA_FORMAT_{g9.BUF_DATA_FORMATS[dfmt]}"] if dfmt != 1 else []
            if nfmt:
                names.append(f"BUF_NUM_FORMAT_{g9.BUF_NUM_FORMATS[nfmt]}")
            text += f" format:[{','.join(names)}]"
    if idxen:
        text += " idxen"
    if offen:
        text += " offen"
    if f["OFFSET"]:
        text += f" offset:{f['OFFSET']}"
    return text + _cache_bits(f) + (" lds" if f.get("LDS") else "")


_PRINTERS = {"SMEM": _smem, "DS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat, "MUBUF": _buffer,
             "MTBUF": _buffer}


def print_instruction(spec: Spec, inst: Instruction, wave: int = 64) -> str:
    fmt = inst.fmt.name
    roles = spec.traits.roles
    if fmt in roles.salu:
        return print_gfx9_scalar(spec, inst)
    if inst.defs[0].name == "V_ILLEGAL":
        return "v_illegal"
    if fmt in roles.valu_e32 or fmt in roles.valu_e64:
        return print_valu(spec, inst, wave)
    printer = _PRINTERS.get(fmt)
    if printer is None:
        return f"{inst.name.lower()} <{fmt} operands not printed>"
    return printer(spec, inst)

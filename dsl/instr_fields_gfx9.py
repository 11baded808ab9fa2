"""The `Instr` of a decoded instruction of the gfx9 syntax generation (CDNA3, CDNA4: traits
`dialect == "gfx9"`) from its fields, as the parser reads LLVM's text (instr_text.py prints it back): AGPRs by the
ACC bits, SDWA and GFX9 DPP, VOP3A/VOP3B, MFMA in the VOP3P-MAI layout, the scalar
immediates (gfx9's waitcnt, sendmsg, hwreg, gpr_idx), DWORD-style memory with sc0/nt/sc1. The
plans and tables are the encoder's (valu_plan.gfx9_valu_plan, mfma_shape, syntax_gfx9)."""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from isa import Spec
from isa.memory_access import reads_counter, scalar_base_registers, scalar_data, value_dwords
from isa.facts import opsel_flags, sdwa_selects
from isa.mnemonics import text_mnemonic

from . import immediate_values, syntax, syntax_gfx9 as g9
from .asm_parse import name_value
from .decode import DecodeError, Instruction
from .field_values import bit_list, buffer_vaddr, flags, flat_offset, instr_value, scalar_source, sgprs
from .instr import Instr
from .instr_fields import sop_operands
from .instr_fields_memory import ds_modifiers
from .operands import Agpr, Mod, Reg
from .encode import ds_layout, flat_layout     # the encoder's memoised forms
from .signature import (cache_control, loads_scales, data_registers, neg_bits_error, raw_source_field, scalar_bits,
                        type_info)
from .statement import Attr, Call
from .valu_plan import gfx9_no_dpp_form, gfx9_valu_plan, mai_fields, mfma_shape

_OMOD = {1: ("mul", 2), 2: ("mul", 4), 3: ("div", 2)}
# worked out once per instruction (or spec)
_data_registers = cache(data_registers)


@cache
def _buffer_formats(spec: Spec) -> tuple[dict[int, str], dict[int, str]]:
    """LLVM's names of MTBUF's DFMT and NFMT codes (without the BUF_*_FORMAT_ prefixes)."""
    return g9.buffer_format_names(spec.tables["data_formats"]), g9.buffer_format_names(spec.tables["number_formats"])


@cache
def _mfma_names(spec: Spec) -> frozenset[str]:
    return frozenset(row[0] for row in spec.tables.get("mfma", ()))
_VCC = name_value("vcc")


def _acc(idx: int, n: int, agpr) -> Reg | Agpr:
    return Agpr(idx, n) if agpr else Reg("v", idx, n)


def _mod(v, takes: bool, neg, abs_):
    """A source with its -x/|x| modifiers where it `takes` them: outside VOP3P the plan's neg_abs
    (isa.facts.modifier_use, the rule the assembler refuses by), a v_*_mix* source always. NEG or
    ABS on a source that takes neither prints as nothing, as LLVM 22 prints v_ldexp_f32's exponent
    (others, v_add_u32_e64's, it calls an invalid encoding; no fact tells the two apart)."""
    if not takes or not (neg or abs_):
        return v
    return Mod(v, bool(neg), bool(abs_))


def _source(spec: Spec, code: int, n: int, literal, bits: int = 32, is_float: bool = True, packed: str = "",
            f16_inline: bool = True):
    return scalar_source(spec, code, n, literal, (spec.traits.source_format, "SRC0"), bits, is_float, packed,
                         f16_inline)


def _sel(value: int, names: tuple):
    return Attr(names[value]) if value < len(names) and value < 7 else value


def _dpp_modifiers(dpp: dict) -> dict:
    ctrl = dpp["DPP_CTRL"]
    if ctrl <= 0xff:
        mods = {"quad_perm": [ctrl & 3, ctrl >> 2 & 3, ctrl >> 4 & 3, ctrl >> 6 & 3]}
    elif ctrl in g9.DPP_FIXED_CONTROLS:
        key, value = g9.DPP_FIXED_CONTROLS[ctrl]
        mods = {key: value}
    elif ctrl & ~0xf in g9.DPP_ROW_CONTROLS and (ctrl & 0xf or ctrl & ~0xf == 0x150):
        mods = {g9.DPP_ROW_CONTROLS[ctrl & ~0xf]: ctrl & 0xf}
    else:
        mods = {"dpp_ctrl": ctrl}
    mods["row_mask"], mods["bank_mask"] = dpp["ROW_MASK"], dpp["BANK_MASK"]
    if dpp["BC"]:
        mods["bound_ctrl"] = 1
    return mods


def _valu(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    if d.name in _mfma_names(spec):
        return _mfma(spec, inst)
    kind, dpp, literal = inst.dpp_kind, inst.dpp, inst.literal
    plan = gfx9_valu_plan(d, spec, inst.fmt.name, kind)
    sig, e32 = plan.sig, plan.e32
    if kind == "DPP":   # the assembler's refusals have no text (LLVM 22: invalid, or a comment)
        if d.format not in g9.DPP_FORMATS or gfx9_no_dpp_form(d, plan):
            raise DecodeError(f"{d.name.lower()}: no DPP form of the {d.format} encoding "
                              f"({gfx9_no_dpp_form(d, plan) or 'LLVM has none'})")
        if plan.dp_alu and dpp["DPP_CTRL"] not in g9.DP_ALU_DPP_CONTROLS:
            raise DecodeError(f"{d.name.lower()}: DPP_CTRL 0x{dpp['DPP_CTRL']:x}: a 64-bit operand makes this a "
                              f"DP ALU operation, whose DPP takes only row_newbcast")
    ops = []
    if sig.is_cmp:   # gfx9 v_cmpx writes EXEC and the compare mask too
        ops.append(sgprs(spec, dpp["SDST"], 2) if kind == "SDWAB" and dpp["SD"] else
                   _VCC if e32 else sgprs(spec, f["VDST"], 2))
    for op in sig.dsts:
        if op.name == "sdst":
            continue
        ops.append(sgprs(spec, f["VDST"], 1) if op.sgpr else _acc(f["VDST"], op.dwords, "vdst" in plan.acc))
    if sig.vcc_out:
        ops.append(_VCC if e32 else sgprs(spec, f["SDST"], 2) if "SDST" in f else _VCC)
    elif "SDST" in f and not e32:
        ops.append(sgprs(spec, f["SDST"], 2))
    srcs = []
    for i, (op, n, bits, is_float, packed) in enumerate(plan.srcs):
        acc = f"src{i}" in plan.acc
        if e32:
            if i > 1:
                break
            if kind in ("SDWA", "SDWAB"):
                code8, scalar = (dpp["SRC0"], dpp["S0"]) if i == 0 else (f["VSRC1"], dpp["S1"])
                typed = d.operand_types.get(f"S{i}")   # the pseudocode's type (v_cmp_class's mask is u32)
                if sdwa_selects(d) or typed and type_info(typed)[1] != "f":
                    op = replace(op, ftype="u")
                code = code8 if scalar else 256 + code8
                v = Reg("v", code - 256, n) if code >= 256 else \
                    _source(spec, code, n, None, 16 if op.t16 else 32, op.is_float)
                if op.packed:   # (LLVM encodes -x/|x| on v_pk_fmac_f16_sdwa's halves and prints them as nothing)
                    pass
                elif f"S{i}" in plan.neg_abs:
                    v = _mod(v, True, dpp[f"SRC{i}_NEG"], dpp[f"SRC{i}_ABS"])
                elif dpp[f"SRC{i}_SEXT"]:
                    v = Call("sext", (v,))
                srcs.append(v)
                continue
            code = (256 + dpp["SRC0"] if kind == "DPP" else f["SRC0"]) if i == 0 else 256 + f["VSRC1"]
            v = _acc(code - 256, n, acc) if code >= 256 else \
                _source(spec, code, n, literal, bits, is_float, packed, False)   # (16-bit integers: the value)
            if kind == "DPP":
                v = _mod(v, f"S{i}" in plan.neg_abs, dpp[f"SRC{i}_NEG"], dpp[f"SRC{i}_ABS"])
            srcs.append(v)
            continue
        code = f[f"SRC{i}"]
        if plan.is_mix:
            half = (f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2) >> i & 1
            v = Reg("v", code - 256, n) if code >= 256 else _source(spec, code, n, literal, 16 if half else 32)
        elif code >= 256:
            v = _acc(code - 256, n, acc)
        else:
            v = _source(spec, code, n, literal, bits, is_float, packed, False)
        neg, abs_ = f.get("NEG", 0) >> i & 1, (f.get("ABS", 0) if not plan.is_p else f.get("NEG_HI", 0)) >> i & 1
        if (not plan.is_p or plan.is_mix) and not plan.truth_table:
            v = _mod(v, plan.is_mix or f"S{i}" in plan.neg_abs, neg, abs_)
        srcs.append(v)
    if sig.k_pos is not None and e32:
        srcs.insert(sig.k_pos, literal or 0)
    ops += srcs
    if sig.vcc_in and (e32 or len(plan.srcs) < 3):   # e64 reads the mask as SRC2 (v_div_fmas reads VCC itself)
        ops.append(_VCC if e32 else Reg("v", f["SRC2"] - 256, 2) if f["SRC2"] >= 256 else sgprs(spec, f["SRC2"], 2))
    if any(v is None for v in ops):
        return None
    return instr_value(d, plan.mn, ops, _valu_modifiers(inst, plan))


def _valu_modifiers(inst: Instruction, plan) -> dict:
    d, f, kind, dpp = inst.defs[0], inst.fields, inst.dpp_kind, inst.dpp
    mods = {}
    if kind == "SDWA" and not plan.sig.dsts:     # v_nop: no result, no source: LLVM prints none of the word
        return {f"src{i}_sel": _sel(dpp[f"SRC{i}_SEL"], g9.SDWA_SEL) for i in range(min(2, len(plan.srcs)))}
    if kind in ("SDWA", "SDWAB"):
        if dpp.get("CLMP"):
            mods["clamp"] = True
        if dpp.get("OMOD"):
            key, value = _OMOD[dpp["OMOD"]]
            mods[key] = value
        if kind == "SDWA" and not sdwa_selects(d):      # (isa.facts.sdwa_selects: no dst_sel)
            mods["dst_sel"] = _sel(dpp["DST_SEL"], g9.SDWA_SEL)
            mods["dst_unused"] = Attr(g9.SDWA_UNUSED[dpp["DST_U"]]) if dpp["DST_U"] < 4 else dpp["DST_U"]
        for i in range(min(2, len(plan.srcs))):
            mods[f"src{i}_sel"] = _sel(dpp[f"SRC{i}_SEL"], g9.SDWA_SEL)
        return mods
    if kind == "DPP":
        return _dpp_modifiers(dpp)
    if plan.e32:
        return mods
    nsrc = len(plan.srcs)
    opsel = f.get("OPSEL", 0)
    for bits, why in plan.opsel_reserved:     # (LLVM 22: "invalid instruction encoding")
        if opsel & bits:
            raise DecodeError(f"{d.name.lower()}: OPSEL 0x{opsel:x}: bit {(opsel & bits).bit_length() - 1} selects "
                              f"nothing ({why}): no text says it")
    if plan.truth_table:      # TTBL = { OMOD[1:0], ABS[2:0], NEG[2:0] }
        table = f.get("OMOD", 0) << 6 | f.get("ABS", 0) << 3 | f.get("NEG", 0)
        if table:
            mods["bitop3"] = table
    if plan.is_p:
        hi_bits = f.get("OPSEL_HI", 0) | f.get("OPSEL_HI2", 0) << 2
        mask = (1 << nsrc) - 1
        if opsel & mask:
            mods["op_sel"] = bit_list(opsel, nsrc)
        if plan.halves and hi_bits & mask != (0 if plan.is_mix else mask):   # (none where nothing has halves)
            mods["op_sel_hi"] = bit_list(hi_bits, nsrc)
        why = not plan.is_mix and not loads_scales(d) and neg_bits_error(d, f.get("NEG", 0), f.get("NEG_HI", 0), nsrc)
        if why:     # (LLVM 22: "invalid instruction encoding")
            raise DecodeError(f"{d.name.lower()}: {why}: no text says these NEG/NEG_HI bits")
        if not plan.is_mix and not loads_scales(d):   # (LLVM ignores the load-scale's NEG bits)
            if f.get("NEG", 0) & mask:
                mods["neg_lo"] = bit_list(f["NEG"], nsrc)
            if f.get("NEG_HI", 0) & mask:
                mods["neg_hi"] = bit_list(f["NEG_HI"], nsrc)
    elif opsel_flags(d):      # (isa.facts.opsel_flags: FI, BOUND_CTRL)
        mods.update((name, 1) for name, bit in g9.OPSEL_FLAG_KEYS if opsel >> bit & 1)
    elif opsel and plan.opsel and not plan.opsel_ignored:
        # only where the assembler takes op_sel (valu_plan.gfx9_takes_opsel); LLVM prints none of
        # the bits of an instruction that takes none, nor of one that encodes none
        mods["op_sel"] = bit_list(opsel, 4) if plan.opsel_byte else bit_list(opsel, nsrc) + [opsel >> 3 & 1]
    if f.get("CLMP"):
        mods["clamp"] = True
    if f.get("OMOD") and not plan.truth_table:
        key, value = _OMOD[f["OMOD"]]
        mods[key] = value
    return mods


def _mfma(spec: Spec, inst: Instruction) -> Instr | None:
    d = inst.defs[0]
    f = mai_fields(spec, inst)
    regs_d, regs_a, regs_b, sparse, out_t = mfma_shape(spec, d)
    acc_cd, acc = f["ACC_CD"], f["ACC"]
    ops = [_acc(f["VDST"], regs_d, acc_cd)]
    for i, n in enumerate((regs_a, regs_b)):
        code = f[f"SRC{i}"]
        ops.append(_acc(code - 256, n, acc >> i & 1) if code >= 256 else _source(spec, code, n, None))
    code = f["SRC2"]
    if sparse:   # C is the sparsity index VGPR
        ops.append(Reg("v", code - 256) if code >= 256 else _source(spec, code, 1, None))
    else:
        ops.append(_acc(code - 256, regs_d, acc_cd) if code >= 256 else
                   _source(spec, code, regs_d, None, 64 if out_t == "f64" else 32))
    if any(v is None for v in ops):
        return None
    mods = {}
    for name in ("CBSZ", "ABID", "BLGP"):
        if f[name]:
            if name == "BLGP" and out_t in g9.MFMA_NEG_TYPES:
                mods["neg"] = bit_list(f[name], 3)
            else:
                mods[name.lower()] = f[name]
    return instr_value(d, text_mnemonic(d.name, spec.arch), ops, mods)


# ---------------------------------------------------------------- scalar


def _scalar(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn, fmt = d.name.lower(), inst.fmt.name
    ops, mods = [], {}
    if raw_source_field(d, spec.traits.roles):      # s_set_gpr_idx_on: SSRC1 is the mode bits
        ops = [scalar_source(spec, f["SSRC0"], 1, inst.literal, (fmt, "SSRC0"), 32, True),
               immediate_values.gpr_idx(f["SSRC1"])]
    elif fmt == "SOPP":
        style = syntax.sopp_style(d, True) or "hex"
        imm = f["SIMM16"]
        if style == "none" or (style == "opt" and imm == 0):
            pass
        elif style == "waitcnt":   # the parser reads the first counter as an operand, the others as modifiers
            mods = {c.name: c for c in immediate_values.waitcnt_gfx9(spec, imm)}
        elif style == "sendmsg":
            ops = [immediate_values.sendmsg_gfx9(imm)]
        elif style == "gpr_idx":
            ops = [immediate_values.gpr_idx(imm)]
        elif style == "version":
            ops = [immediate_values.version(imm)]
        else:
            ops = [imm]
    elif fmt == "SOPK":
        names, style = g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        imm = f["SIMM16"]
        for o in names:
            if o in ("sdst", "sdst64"):
                ops.append(sgprs(spec, f["SDST"], 2 if o == "sdst64" or scalar_bits(d, "D0") == 64 else 1))
            elif o == "imm":
                ops.append(immediate_values.version(imm) if style == "version" else imm)
            elif o == "hwreg":
                ops.append(immediate_values.hwreg_gfx9(spec, imm))
            elif o == "lit":
                ops.append(inst.literal or 0)
    else:
        ops = sop_operands(spec, inst)
        if ops is None:
            return None
    if any(v is None for v in ops):
        return None
    return instr_value(d, mn, ops, mods)


# ---------------------------------------------------------------- memory


def _cache_bits(f: dict) -> dict:
    return flags(f, ("SC0", "NT", "SC1"))


def _smem(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return instr_value(d, mn, ())
    if reads_counter(d):        # s_memtime: a clock into SDATA, no address
        return instr_value(d, mn, [sgprs(spec, f["SDATA"], value_dwords(d))])
    ops, mods = [], {}
    role = scalar_data(d)
    if role == "immediate":              # s_atc_probe's mode
        ops.append(f["SDATA"])
    elif role == "register":             # (s_dcache_discard has none)
        ops.append(sgprs(spec, f["SDATA"], _data_registers(d)))
    ops.append(sgprs(spec, f["SBASE"] * 2, scalar_base_registers(d)))
    off = f["OFFSET"]
    if off & (1 << 20):
        off -= 1 << 21
    if f["SOE"]:
        ops.append(sgprs(spec, f["SOFFSET"], 1))
        if f["IMM"]:   # both offsets: the immediate is printed even when 0
            mods["offset"] = off
    elif f["IMM"]:
        ops.append(off)
    else:
        ops.append(sgprs(spec, f["OFFSET"] & 0x7f, 1))
    if any(v is None for v in ops):
        return None
    mods.update(flags(f, ("GLC",)))    # NV: LLVM 22 prints no nv on gfx942/gfx950 (nor takes it)
    return instr_value(d, mn, ops, mods)


def _ds(spec: Spec, inst: Instruction) -> Instr:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    acc = bool(f.get("ACC"))
    # the address is always a VGPR; data and result are VGPRs or AGPRs (ACC)
    ops = [_acc(f[field], width, acc and name != "addr") for name, field, width in ds_layout(d)]
    return instr_value(d, mn, ops, ds_modifiers(d, f))


def _flat(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    fmt = inst.fmt.name
    layout = {name: width for name, _, width in flat_layout(d, bool(f.get("SC0")))}
    acc = bool(f.get("ACC"))
    off_saddr = f["SADDR"] == 0x7f
    ops = []
    if "vdst" in layout:
        ops.append(_acc(f["VDST"], layout["vdst"], acc))
    if fmt == "FLAT":
        ops.append(Reg("v", f["ADDR"], 2))
    elif fmt == "SCRATCH":   # the LDS bit enables the VGPR address on scratch (LLVM's sve)
        ops.append(Reg("v", f["ADDR"]) if f.get("LDS") else name_value("off"))
    else:
        ops.append(Reg("v", f["ADDR"], 2 if off_saddr else 1))
    if "vdata" in layout:
        ops.append(_acc(f["DATA"], layout["vdata"], acc))
    if fmt == "GLOBAL":
        ops.append(name_value("off") if off_saddr else sgprs(spec, f["SADDR"], 2))
    elif fmt == "SCRATCH":
        ops.append(name_value("off") if off_saddr else sgprs(spec, f["SADDR"], 1))
    if any(v is None for v in ops):
        return None
    mods = flat_offset(f, fmt)
    mods.update(_cache_bits(f))
    return instr_value(d, d.name.lower(), ops, mods)


def _buffer(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):   # buffer_wbl2 / buffer_inv: which caches is the sc0/sc1 bits
        return instr_value(d, mn, (), _cache_bits(f))
    ops = [] if f.get("LDS") else [_acc(f["VDATA"], _data_registers(d), bool(f.get("ACC")))]   # LDS: data to LDS
    ops += [buffer_vaddr(f), sgprs(spec, f["SRSRC"] * 4, 4),
            scalar_source(spec, f["SOFFSET"], 1, inst.literal, ("SOP2", "SSRC0"), 32, True)]
    if any(v is None for v in ops):
        return None
    mods = {}
    if inst.fmt.name == "MTBUF":
        dfmt, nfmt = f["DFMT"], f["NFMT"]
        if (dfmt, nfmt) != (1, 0):
            dfmts, nfmts = _buffer_formats(spec)
            names = [Attr(g9.BUF_DATA_FORMAT + dfmts[dfmt])] if dfmt != 1 else []
            if nfmt:
                names.append(Attr(g9.BUF_NUM_FORMAT + nfmts[nfmt]))
            mods["format"] = names
    mods.update(flags(f, ("IDXEN", "OFFEN")))
    if f["OFFSET"]:
        mods["offset"] = f["OFFSET"]
    mods.update(_cache_bits(f))
    mods.update(flags(f, ("LDS",)))
    return instr_value(d, mn, ops, mods)


_MEMORY = {"SMEM": _smem, "DS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat, "MUBUF": _buffer,
           "MTBUF": _buffer}


def gfx9_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr of a decoded gfx9-dialect instruction from its fields, or None where an operand
    code has no plain value (or for another dialect)."""
    if spec.traits.dialect != "gfx9":
        return None
    fmt, roles = inst.fmt.name, spec.traits.roles
    if fmt in roles.salu:
        return _scalar(spec, inst)
    d = inst.defs[0]
    if d.name == "V_ILLEGAL":
        return Instr("v_illegal", defn=d, encoding=d.format)
    if fmt in roles.valu_e32 or fmt in roles.valu_e64:
        return _valu(spec, inst)
    build = _MEMORY.get(fmt)
    return None if build is None else build(spec, inst)

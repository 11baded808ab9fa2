"""The `Instr` of a decoded memory, interpolation or LDS-direct instruction from its fields
(see instr_fields.py): DS/VDS, RDNA3's SMEM, FLAT/GLOBAL/SCRATCH, MUBUF and MTBUF, VINTERP,
LDSDIR and RDNA4's VDSDIR, by the layouts the printer reads (signature.py)."""
from __future__ import annotations

from functools import lru_cache

from isa import Spec
from isa.facts import offset_pattern
from isa.memory_access import (attribute_load, memory_access, prefetch, scalar_base_registers, scalar_data, typed_buffer,
                               value_dwords)

from . import immediate_values, syntax
from .asm_parse import name_value
from .decode import Instruction
from .field_values import (aligned_reg, bit_list, buffer_modifiers, buffer_vaddr, buffer_vdata, cache_policy_values, flat_offset,
                           flags, instr_value, scalar_source, sgprs)
from .instr import Instr
from .operands import Mod
from .field_values import cached_reg as Reg     # (Reg values, each made once)
from .signature import cache_control, ds_layout, flat_layout, valu_signature
from .statement import Attr


def _smem(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return instr_value(d, mn, ())
    sbase_n = scalar_base_registers(d)
    first = f["SDATA"] if scalar_data(d) == "immediate" else \
        scalar_source(spec, f["SDATA"], value_dwords(d), None, ("SOP2", "SSRC0"), 32, True)
    base = f["SBASE"] * 2
    base = aligned_reg("s", base, sbase_n) if base < spec.traits.sgprs else \
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
    mods.update(flags(f, ("GLC", "DLC")))
    return instr_value(d, mn, tuple(ops), mods)


_ds_layout = lru_cache(maxsize=None)(ds_layout)     # worked out once per instruction
_memory_access = lru_cache(maxsize=None)(memory_access)


def _ds(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    ops = tuple(Reg("v", f[field], n) for _, field, n in _ds_layout(d))
    return instr_value(d, mn, ops, ds_modifiers(d, f))


def ds_modifiers(d, f: dict) -> dict:
    """A DS instruction's offset(s) and gds flag, as the parser reads them (both dialects)."""
    mods = {}
    if _memory_access(d).two_addresses:
        mods.update((k.lower(), f[k]) for k in ("OFFSET0", "OFFSET1") if f[k])
    else:
        off = f["OFFSET0"] | f["OFFSET1"] << 8
        if off:
            mods["offset"] = immediate_values.swizzle(off) if offset_pattern(d) else off
    mods.update(flags(f, ("GDS",)))
    return mods


_flat_layout = lru_cache(maxsize=None)(flat_layout)
_valu_signature = lru_cache(maxsize=None)(valu_signature)


def _flat(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    fmt, t = inst.fmt.name, spec.traits
    ops = []
    for name, field, n in _flat_layout(d, bool(f.get("GLC"))):
        if name == "saddr":   # null turns the scalar base off (GLOBAL also names m0's code off)
            off_codes = (t.null, t.m0) if fmt == "GLOBAL" else (t.null,)
            ops.append(name_value("off") if f[field] in off_codes else sgprs(spec, f[field], n))
        elif name == "vaddr" and fmt == "SCRATCH":
            ops.append(Reg("v", f[field]) if f.get("SVE") else name_value("off"))
        elif name == "vaddr" and fmt == "GLOBAL":   # no scalar base: a 64-bit VGPR address
            ops.append(Reg("v", f[field], 2 if f["SADDR"] in (t.null, t.m0) else 1))
        else:
            ops.append(Reg("v", f[field], n))
    if any(v is None for v in ops):
        return None
    mods = flat_offset(f, fmt)
    mods.update(flags(f, ("GLC", "SLC", "DLC")))
    return instr_value(d, d.name.lower(), tuple(ops), mods)


def _buffer(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return instr_value(d, mn, ())
    ops = (buffer_vdata(d, f), buffer_vaddr(f), sgprs(spec, f["SRSRC"] * 4, 4),
           scalar_source(spec, f["SOFFSET"], 1, inst.literal, ("SOP2", "SSRC0"), 32, True))
    if any(v is None for v in ops):
        return None
    mods = buffer_modifiers(spec, f, inst.fmt.name == "MTBUF", f["OFFSET"])
    mods.update(flags(f, ("GLC", "SLC", "DLC", "TFE")))
    return instr_value(d, mn, ops, mods)


def _vinterp(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    sig = _valu_signature(d)
    opsel, neg = f.get("OPSEL", 0), f.get("NEG", 0)
    dst = sig.dsts[0]
    t16_regs = spec.arch in syntax.TRUE16_FAMILIES
    ops = [Reg("v", f["VDST"], 1, "h" if opsel >> 3 & 1 else "l") if dst.t16 and t16_regs else Reg("v", f["VDST"])]
    # 16-bit inputs: f16 in RDNA3.5's pseudocode, one half of a packed operand in RDNA3's
    halves = [op.t16 or d.operand_types.get(f"S{i}") == "pk_f16" for i, op in enumerate(sig.srcs[:3])]
    vgpr0 = spec.traits.vgpr_base
    for i in range(min(3, len(sig.srcs))):
        code = f[f"SRC{i}"]
        if code >= vgpr0:
            v = Reg("v", code - vgpr0, 1, ("h" if opsel >> i & 1 else "l") if halves[i] and t16_regs else None)
        else:
            v = scalar_source(spec, code, 1, inst.literal, (spec.traits.source_format, "SRC0"), 32, True)
        if neg >> i & 1:
            v = -v if type(v) is int or type(v) is float else Mod(v, True, False)
        ops.append(v)
    if any(v is None for v in ops):
        return None
    mods = {"clamp": True} if f.get("CLMP") else {}
    if opsel and (dst.t16 or any(halves)):   # all-f32 forms have no op_sel operand
        mods["op_sel"] = bit_list(opsel, 3) + [opsel >> 3 & 1]
    mods["wait_exp"] = f.get("WAITEXP", 0)
    return instr_value(d, d.name.lower(), ops, mods)


def _ldsdir(spec: Spec, inst: Instruction) -> Instr:
    """LDSDIR and RDNA4's VDSDIR: the destination, the attribute channel of a parameter load,
    the wait counts."""
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    ops = [Reg("v", f["VDST"])]
    if attribute_load(d):     # lds_param_load / ds_param_load
        ops.append(Attr(f"attr{f['ATTR']}.{'xyzw'[f['ATTR_CHAN']]}"))
    if inst.fmt.name == "VDSDIR":
        mods = {"wait_va_vdst": f["WAIT_VA"], "wait_vm_vsrc": f["WAIT_VMVSRC"]}
    else:
        mods = {"wait_vdst": f["WAIT_VA"]}
    return instr_value(d, mn, ops, mods)


# ---------------------------------------------------------------- RDNA4's layouts


def _signed_field(inst: Instruction, name: str) -> int:
    bits = next(hi - lo + 1 for n, hi, lo in inst.fmt.fields if n == name)
    value = inst.fields[name]
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _policy(d, f: dict) -> dict:
    """scale_offset, th, scope and nv, in LLVM's order after the offset (field_values.cache_policy_values)."""
    mods = flags(f, ("SCALE_OFFSET",))
    mods.update(cache_policy_values(d, f))
    mods.update(flags(f, ("NV",)))
    return mods


def _smem_rdna4(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return instr_value(d, mn, ())
    off = _signed_field(inst, "IOFFSET")
    soff = sgprs(spec, f["SOFFSET"], 1)
    sbase_n = scalar_base_registers(d)
    base = f["SBASE"] * 2
    sbase = aligned_reg("s", base, sbase_n) if base < spec.traits.sgprs else sgprs(spec, base, sbase_n)
    fetch = prefetch(d)
    if fetch:   # base (none for the PC-relative forms), offset, SGPR offset, length
        ops = ([] if fetch == "pc" else [sbase]) + [off, soff, f["SDATA"]]
        return None if soff is None or sbase is None else instr_value(d, mn, ops)
    first = f["SDATA"] if scalar_data(d) == "immediate" else sgprs(spec, f["SDATA"], value_dwords(d))
    if f["SOFFSET"] != spec.traits.null:
        ops, mods = [first, sbase, soff], {"offset": off}    # printed even when 0
    else:   # no SGPR offset: the immediate, 0 included
        ops, mods = [first, sbase, off], {}
    if any(v is None for v in ops):
        return None
    mods.update(_policy(d, f))
    return instr_value(d, mn, ops, mods)


_FLAT_FIELDS = {"ADDR": "VADDR", "DATA": "VSRC"}


def _flat_rdna4(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    if cache_control(d):   # global_inv, global_wb, global_wbinv: only the scope they act on
        return instr_value(d, d.name.lower(), (), _policy(d, f))
    t = spec.traits
    returns = _memory_access(d).direction != "atomic" or bool(f.get("TH", 0) & 1)
    ops = []
    for name, field, n in _flat_layout(d, returns):
        value = f[_FLAT_FIELDS.get(field, field)]
        if name == "saddr":
            ops.append(name_value("off") if value == t.null else sgprs(spec, value, n))
        elif name == "vaddr" and d.format == "VSCRATCH":
            ops.append(Reg("v", value) if f.get("SVE") else name_value("off"))
        elif name == "vaddr" and d.format == "VGLOBAL":   # no scalar base: a 64-bit address
            ops.append(Reg("v", value, 2 if f["SADDR"] == t.null else 1))
        else:
            ops.append(Reg("v", value, n))
    if any(v is None for v in ops):
        return None
    off = _signed_field(inst, "IOFFSET")
    mods = {"offset": off} if off else {}
    mods.update(_policy(d, f))
    return instr_value(d, d.name.lower(), ops, mods)


def _buffer_rdna4(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return instr_value(d, mn, ())
    ops = (buffer_vdata(d, f), buffer_vaddr(f), sgprs(spec, f["RSRC"], 4),
           scalar_source(spec, f["SOFFSET"], 1, inst.literal, ("SOP2", "SSRC0"), 32, True))
    if any(v is None for v in ops):
        return None
    mods = buffer_modifiers(spec, f, typed_buffer(d), f["IOFFSET"])
    mods.update(_policy(d, f))
    mods.update(flags(f, ("TFE",)))
    return instr_value(d, mn, ops, mods)


_MEMORY = {"SMEM": _smem, "DS": _ds, "VDS": _ds, "FLAT": _flat, "GLOBAL": _flat, "SCRATCH": _flat,
           "MUBUF": _buffer, "MTBUF": _buffer, "VINTERP": _vinterp, "LDSDIR": _ldsdir, "VDSDIR": _ldsdir,
           "VFLAT": _flat_rdna4, "VGLOBAL": _flat_rdna4, "VSCRATCH": _flat_rdna4, "VBUFFER": _buffer_rdna4}
MEMORY_FORMATS = frozenset(_MEMORY)


def memory_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr of a decoded SMEM, DS/VDS, FLAT/GLOBAL/SCRATCH (RDNA4: VFLAT/VGLOBAL/VSCRATCH),
    MUBUF/MTBUF (RDNA4: VBUFFER), VINTERP, LDSDIR or VDSDIR instruction from its fields, or None
    if it is not one this covers."""
    fmt = inst.fmt.name
    build = _MEMORY.get(fmt)
    if build is None or spec.traits.dialect == "gfx9":
        return None
    if build is _smem and "IOFFSET" in inst.fields:   # RDNA4's layout (a 24-bit IOFFSET, TH, SCOPE)
        build = _smem_rdna4
    return build(spec, inst)

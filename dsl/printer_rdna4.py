"""RDNA4's (gfx12) memory formats -> LLVM text: SMEM, VBUFFER, VFLAT/VGLOBAL/VSCRATCH with
their cache policy (TH, SCOPE) and 24-bit offsets, VDSDIR. printer.py dispatches here by
format; the operand layouts are the ones the RDNA3 printers use (signature.py)."""
from __future__ import annotations

from isa import Spec
from isa.memory_access import memory_access, scalar_base_registers, scalar_data, typed_buffer

from . import syntax
from .decode import Instruction
from .encode import data_dwords, flat_layout
from .printer_operands import buffer_data_dwords, buffer_modifiers_text, flags_text, reg_text, sreg_text, src_text, vreg
from .signature import cache_control


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def _field_bits(inst: Instruction, name: str) -> int:
    return next(hi - lo + 1 for n, hi, lo in inst.fmt.fields if n == name)


def _hex(value: int) -> str:
    return f"{'-' if value < 0 else ''}0x{abs(value):x}"


def cache_policy(d, f: dict) -> dict[str, str]:
    """{'th': name, 'scope': name} of an instruction's cache policy fields that are not the
    default (0); atomics, stores and loads (isa.memory_access's direction) name the TH codes
    apart, a code without a name is spelled 0x.. (inside the name for atomics)."""
    th, scope = f.get("TH", 0), f.get("SCOPE", 0)
    out = {}
    if th:
        direction = memory_access(d).direction
        if direction == "atomic":
            if th & 4:
                text = (f"TH_ATOMIC_CASCADE_{'NT' if th & 2 else 'RT'}" if scope >= 2
                        else f"TH_ATOMIC_0x{th:x}")
            elif th & 2:
                text = "TH_ATOMIC_NT" + ("_RETURN" if th & 1 else "")
            else:
                text = "TH_ATOMIC_RETURN"
        else:
            names = syntax.TH_STORE_NAMES if direction == "store" else syntax.TH_LOAD_NAMES
            text = names[th] or f"0x{th:x}"
            if th == 3 and scope == 3:
                text = text.rsplit("_", 1)[0] + "_BYPASS"
        out["th"] = text
    if scope:
        out["scope"] = syntax.SCOPE_NAMES[scope]
    return out


def cache_policy_text(d, f: dict) -> str:
    """' th:... scope:...' of an instruction (nothing for the defaults)."""
    return "".join(f" {key}:{name}" for key, name in cache_policy(d, f).items())


def _tail(d, f: dict) -> str:
    """The flags after the offset, in LLVM's order."""
    return (flags_text(f, ("SCALE_OFFSET",)) + cache_policy_text(d, f) + flags_text(f, ("NV",)))


def smem(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return mn
    off = _signed(f["IOFFSET"], _field_bits(inst, "IOFFSET"))
    soff = f["SOFFSET"]
    soff_text = sreg_text(spec, soff, 1)
    sbase_n = scalar_base_registers(d)
    sbase = reg_text("s", f["SBASE"] * 2, sbase_n) if f["SBASE"] * 2 < spec.traits.sgprs \
        else sreg_text(spec, f["SBASE"] * 2, sbase_n)
    if "prefetch" in mn:   # base (none for the PC-relative forms), offset, SGPR offset, length
        parts = ([] if mn.endswith("_pc_rel") else [sbase]) + [_hex(off), soff_text, str(f["SDATA"])]
        return f"{mn} {', '.join(parts)}"
    first = str(f["SDATA"]) if scalar_data(d) == "immediate" else sreg_text(spec, f["SDATA"], data_dwords(d.name))
    parts = [first, sbase]
    if soff != spec.traits.null:
        parts.append(soff_text)
        text = f"{mn} {', '.join(parts)} offset:{_hex(off)}"   # printed even when 0
    else:   # no SGPR offset: the immediate, 0x0 included (gfx11 prints null for that)
        parts.append(_hex(off))
        text = f"{mn} {', '.join(parts)}"
    return text + _tail(d, f)


_FLAT_FIELDS = {"ADDR": "VADDR", "DATA": "VSRC"}


def flat(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    if cache_control(d):   # global_inv, global_wb, global_wbinv: only the scope they act on
        return d.name.lower() + _tail(d, f)
    t = spec.traits
    parts = []
    returns = memory_access(d).direction != "atomic" or bool(f.get("TH", 0) & 1)
    for name, field, n in flat_layout(d, returns):
        value = f[_FLAT_FIELDS.get(field, field)]
        if name == "saddr":
            parts.append("off" if value == t.null else sreg_text(spec, value, n))
        elif name == "vaddr" and d.format == "VSCRATCH":
            parts.append(vreg(value) if f.get("SVE") else "off")
        elif name == "vaddr" and d.format == "VGLOBAL":   # no scalar base: a 64-bit address
            parts.append(vreg(value, 2 if f["SADDR"] == t.null else 1))
        else:
            parts.append(vreg(value, n))
    text = f"{d.name.lower()} {', '.join(parts)}"
    off = _signed(f["IOFFSET"], _field_bits(inst, "IOFFSET"))
    if off:
        text += f" offset:{off}"
    return text + _tail(d, f)


def buffer(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if cache_control(d):
        return mn
    n = buffer_data_dwords(d, f)
    idxen, offen = f.get("IDXEN", 0), f.get("OFFEN", 0)
    parts = [vreg(f["VDATA"], n),
             vreg(f["VADDR"], 2 if idxen and offen else 1) if idxen or offen else "off",
             sreg_text(spec, f["RSRC"], 4),
             src_text(spec, f["SOFFSET"], 1, table=("SOP2", "SSRC0"))]
    text = f"{mn} {', '.join(parts)}"
    text += buffer_modifiers_text(spec, f, typed_buffer(d), f["IOFFSET"])
    return text + _tail(d, f) + flags_text(f, ("TFE",))


def vdsdir(spec: Spec, inst: Instruction) -> str:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    text = f"{mn} {vreg(f['VDST'])}"
    if mn == "ds_param_load":
        text += f", attr{f['ATTR']}.{'xyzw'[f['ATTR_CHAN']]}"
    return text + f" wait_va_vdst:{f['WAIT_VA']} wait_vm_vsrc:{f['WAIT_VMVSRC']}"


def image(spec: Spec, inst: Instruction) -> str:
    """VIMAGE / VSAMPLE: vdata, the address VGPRs (one field each, the last one a range if need
    be; a single one without brackets), the resource (and sampler) SGPRs, then dmask, dim and the
    flags in LLVM's order."""
    from .printer_graphics import image_widths
    d, f = inst.defs[0], inst.fields
    sampler = d.name.startswith(("IMAGE_SAMPLE", "IMAGE_GATHER", "IMAGE_GET_LOD"))   # (not image_msaa_load)
    regs = [f[k] for k in ("VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4") if k in f]
    data, words, singles = image_widths(d, f, sampler, regs[-1], len(regs))
    n = min(words, len(regs))
    tail = 1 if singles else words - n + 1
    addrs = [vreg(r) for r in regs[:n - 1]] + [vreg(regs[n - 1], tail)]
    parts = [vreg(f["VDATA"], data), addrs[0] if len(addrs) == 1 else "[" + ", ".join(addrs) + "]",
             sreg_text(spec, f["RSRC"], 8)]
    if sampler:
        parts.append(sreg_text(spec, f["SAMP"], 4))
    text = f"{d.name.lower()} {', '.join(parts)}"
    if f["DMASK"]:
        text += f" dmask:0x{f['DMASK']:x}"
    text += f" dim:SQ_RSRC_IMG_{syntax.MIMG_DIMS[f['DIM']][0]}"
    if f.get("UNRM"):
        text += " unorm"
    return text + cache_policy_text(d, f) + flags_text(f, ("NV", "R128", "A16", "TFE", "LWE", "D16"))

"""What each operand of a gfx9-syntax instruction line is (CDNA3, CDNA4): its name, in text
order, for the register allocator's roles (allocation.role: results `vdst`/`sdst`/`sdata`,
buffer `vdata`, everything else read). The order is the one asm_gfx9.py reads the operands in
and instr_fields_gfx9.py builds them in, worked out from the same instruction plan (signature,
e32 or not, implicit VCC) and the decoded fields (a DS or FLAT atomic returns data only with
its return form / sc0)."""
from __future__ import annotations

from isa import Spec
from isa.memory_access import memory_access, reads_counter, scalar_data

from . import syntax, syntax_gfx9 as g9
from .decode import Instruction
from .valu_plan import gfx9_valu_plan
from .signature import ds_layout, flat_layout, raw_source_field

MFMA_NAMES = ("mdst", "src0", "src1", "msrc2")     # D written whole, C kept apart from it (allocation.role)


def is_mfma(spec: Spec, d) -> bool:
    return d.name in {row[0] for row in spec.tables.get("mfma", ())}


def operand_names(spec: Spec, inst: Instruction) -> list[str]:
    """The name of each operand of `inst` as its LLVM text lists them (modifiers excluded)."""
    d = inst.defs[0]
    roles = spec.traits.roles
    if is_mfma(spec, d):
        return list(MFMA_NAMES)
    if d.format in roles.valu_e32 | roles.valu_e64:
        return _valu_names(spec, inst)
    if d.format in roles.salu:
        return _scalar_names(d, roles)
    if d.format in roles.smem:
        return _smem_names(d)
    if d.format in roles.lds:
        return _ds_names(d)
    if d.format in roles.flat:
        return _flat_names(d, inst.fields)
    if d.format in roles.buffer:
        from .signature import cache_control
        if cache_control(d):
            return []
        return (["vdata"] if not inst.fields.get("LDS") else []) + ["vaddr", "srsrc", "soffset"]
    return []


def _valu_names(spec: Spec, inst: Instruction) -> list[str]:
    d = inst.defs[0]
    plan = gfx9_valu_plan(d, spec, inst.fmt.name, inst.dpp_kind)
    sig, e32 = plan.sig, plan.e32
    has_sdst = "SDST" in {n for n, _, _ in spec.formats[d.format].fields}
    out = ["sdst"] if sig.is_cmp else []
    out += ["sdst" if op.sgpr else "vdst" for op in sig.dsts if op.name != "sdst"]
    if sig.vcc_out or (has_sdst and not e32):
        out.append("sdst")
    srcs = min(len(plan.srcs), 2) if e32 else len(plan.srcs)
    names = [f"src{i}" for i in range(srcs)]
    if sig.k_pos is not None and e32:
        names.insert(sig.k_pos, "k")
    out += names
    if sig.vcc_in and (e32 or len(plan.srcs) < 3):
        out.append("src2")
    return out


def _scalar_names(d, roles) -> list[str]:
    from .signature import scalar_layout
    mn = d.name.lower()
    if d.format == "SOPP":        # one immediate at most (s_endpgm, s_barrier: none), never a register
        return ["simm16"]
    if d.format == "SOPK":
        operands, _ = g9.SOPK_STYLE.get(mn) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        return ["sdst" if o.startswith("sdst") else o for o in operands]
    if raw_source_field(d, roles):       # s_set_gpr_idx_on: SSRC1 is the mode bits
        return ["ssrc0", "mode"]
    return [name for name, _, _ in scalar_layout(d)]


def _smem_names(d) -> list[str]:
    from .signature import cache_control
    if cache_control(d):      # s_dcache_inv, s_dcache_wb: no operands
        return []
    if reads_counter(d):      # s_memtime: a clock into SDATA, no address
        return ["sdata"]
    if memory_access(d).direction == "load":
        return ["sdata", "sbase", "soffset"]
    if scalar_data(d) == "none":         # s_dcache_discard: an address, no data
        return ["sbase", "soffset"]
    # stores and atomics read their data; an atomic with glc also returns the old value there
    return ["data", "sbase", "soffset"]


def _ds_names(d) -> list[str]:
    return [name for name, _, _ in ds_layout(d)]


# the shared layout's names for the FLAT operands, as this module names them
_FLAT_NAMES = {"vaddr": "addr", "vdata": "data"}


def _flat_names(d, fields: dict) -> list[str]:
    """The shared FLAT layout (an atomic returns data only with SC0, GFX9's glc); GFX9 always
    has an address operand (`off` on scratch without a VGPR address)."""
    names = [_FLAT_NAMES.get(name, name) for name, _, _ in flat_layout(d, bool(fields.get("SC0")))]
    return names

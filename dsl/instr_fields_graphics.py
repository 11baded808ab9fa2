"""The `Instr` of a decoded graphics instruction from its fields (see instr_fields.py): exports
(EXP, RDNA4's VEXPORT) and images (MIMG with its NSA address dword, ray intersection; RDNA4's
VIMAGE and VSAMPLE), with the register widths and target names LLVM writes
(signature.image_widths, signature.export_targets). D16 set on an instruction that takes none
(isa.memory_access.takes_d16: atomics, get_resinfo, get_lod, *_pck*, ray queries) is no
instruction, as LLVM 22's disassembler says ("invalid instruction encoding")."""
from __future__ import annotations

from isa import Spec
from isa.memory_access import image_address, memory_effects, ray_query, takes_d16, takes_sampler
from isa.mnemonics import text_mnemonic

from . import syntax
from .asm_parse import name_value
from .decode import DecodeError, Instruction
from .field_values import cache_policy_values, flags, instr_value, sgprs
from .instr import Instr
from .field_values import cached_reg as Reg     # (Reg values, each made once)
from .signature import export_targets, image_widths, ray_address_groups
from .statement import Attr


def _export(spec: Spec, inst: Instruction) -> Instr:
    f = inst.fields
    target = Attr(export_targets(spec).get(f["TARGET"], f"invalid_target_{f['TARGET']}"))
    srcs = [Reg("v", f[f"VSRC{i}"]) if f["EN"] >> i & 1 else name_value("off") for i in range(4)]
    mods = flags(f, ("DONE",))
    if f.get("ROW"):
        mods["row_en"] = True
    return instr_value(inst.defs[0], text_mnemonic(inst.name, spec.arch), [target] + srcs, mods)


def _addresses(regs: list[int], words: int, singles: bool):
    """NSA addresses: one VGPR per field, the last one taking what remains (a plain register
    for a single field)."""
    n = min(words, len(regs))
    tail = 1 if singles else words - n + 1
    addrs = [Reg("v", r) for r in regs[:n - 1]] + [Reg("v", regs[n - 1], tail)]
    return addrs


def _image_tail(f: dict) -> dict:
    """dmask (where not 0), dim, unorm."""
    mods = {"dmask": f["DMASK"]} if f["DMASK"] else {}
    mods["dim"] = Attr(f"SQ_RSRC_IMG_{syntax.MIMG_DIM_NAMES[f['DIM']]}")
    if f.get("UNRM"):
        mods["unorm"] = True
    return mods


# a ray query's fields its encoding fixes, by the manual's restrictions ("DMASK must be set to
# 0xf", "D16 must be set to 0", "R128 must be set to 1", "UNRM must be set to 1", "DIM must be set
# to 0", "LWE must be set to 0", "TFE must be set to 0"; where the format has the field); LLVM 22's
# disassembler takes no cache policy on them either (GLC, SLC, DLC; RDNA4's TH, SCOPE), nor does
# its assembler: other values are no instruction (tests/test_dsl_asm_image_ray.py)
_RAY_FIXED = {"DMASK": 0xf, "D16": 0, "R128": 1, "UNRM": 1, "DIM": 0, "LWE": 0, "TFE": 0,
              "GLC": 0, "SLC": 0, "DLC": 0, "TH": 0, "SCOPE": 0}


def _ray_fields_fixed(f: dict) -> bool:
    return all(f.get(k, v) == v for k, v in _RAY_FIXED.items())


def _mimg(spec: Spec, inst: Instruction) -> Instr | None:
    d, f = inst.defs[0], inst.fields
    mn = d.name.lower()
    if f.get("D16") and not takes_d16(d):
        return None
    if ray_query(d):   # four results, the ray's address operands, a 128-bit resource
        if not _ray_fields_fixed(f):
            return None
        groups = ray_address_groups(d, bool(f.get("A16")))
        if inst.extra:
            fields = [f["VADDR"]] + [inst.extra[k] for k in ("ADDR1", "ADDR2", "ADDR3", "ADDR4")]
            vaddr = [Reg("v", r, n) for r, n in zip(fields, groups)]
        else:
            vaddr = Reg("v", f["VADDR"], sum(groups))
        ops = [Reg("v", f["VDATA"], 4), vaddr, sgprs(spec, f["SRSRC"] * 4, 4)]
        return None if ops[-1] is None else instr_value(d, mn, ops, flags(f, ("A16",)))
    sampler = takes_sampler(d)
    nsa_regs = [f["VADDR"]] + [inst.extra[k] for k in ("ADDR1", "ADDR2", "ADDR3", "ADDR4")] if inst.extra else []
    data, words, singles = image_widths(d, f, nsa_regs[-1] if nsa_regs else None)
    vaddr = _addresses(nsa_regs, words, singles) if nsa_regs else \
        Reg("v", f["VADDR"], words if words <= 12 else 16)   # VGPR tuples: 1-12, then 16
    ops = [Reg("v", f["VDATA"], data), vaddr, sgprs(spec, f["SRSRC"] * 4, 8)]
    if sampler:
        ops.append(sgprs(spec, f["SSAMP"] * 4, 4))
    if any(v is None for v in ops):
        return None
    mods = _image_tail(f)
    mods.update(flags(f, ("GLC", "SLC", "DLC", "R128", "A16", "TFE", "LWE", "D16")))
    return instr_value(d, mn, ops, mods)


def _vimage(spec: Spec, inst: Instruction) -> Instr | None:
    """VIMAGE / VSAMPLE: one address field per VGPR, [...] when more than one."""
    d, f = inst.defs[0], inst.fields
    if f.get("D16") and not takes_d16(d):
        return None
    sampler = takes_sampler(d)   # (not image_msaa_load)
    regs = [f[k] for k in ("VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4") if k in f]
    if ray_query(d):   # its results (4; dual and BVH8: 10), the ray's address operands, a 128-bit resource
        if f.get("A16") and len(image_address(d).ray) < 2:
            raise DecodeError(f"{d.name.lower()}: A16 = 1: its entry gives no 16-bit address layout (\"A16 is not "
                              f"supported\"; LLVM: invalid instruction encoding)")
        groups = ray_address_groups(d, bool(f.get("A16")))
        if not _ray_fields_fixed(f) or any(regs[len(groups):]):
            return None     # (A16's unused VADDR4 is 0 in LLVM 22's encoding, and its disassembler's)
        results = dict((field, n) for field, n, _ in memory_effects(d).writes)["VDATA"]
        ops = [Reg("v", f["VDATA"], results), [Reg("v", r, n) for r, n in zip(regs, groups)], sgprs(spec, f["RSRC"], 4)]
        return None if ops[-1] is None else instr_value(d, d.name.lower(), ops, flags(f, ("A16",)))
    data, words, singles = image_widths(d, f, regs[-1], len(regs))
    addrs = _addresses(regs, words, singles)
    ops = [Reg("v", f["VDATA"], data), addrs[0] if len(addrs) == 1 else addrs, sgprs(spec, f["RSRC"], 8)]
    if sampler:
        ops.append(sgprs(spec, f["SAMP"], 4))
    if any(v is None for v in ops):
        return None
    mods = _image_tail(f)
    mods.update(cache_policy_values(d, f))
    mods.update(flags(f, ("NV", "R128", "A16", "TFE", "LWE", "D16")))
    return instr_value(d, d.name.lower(), ops, mods)


_GRAPHICS = {"MIMG": _mimg, "VIMAGE": _vimage, "VSAMPLE": _vimage}
IMAGE_FORMATS = frozenset(_GRAPHICS)     # (the exports' formats: traits.roles.export)


def graphics_instr(spec: Spec, inst: Instruction) -> Instr | None:
    """The Instr of a decoded export or image instruction from its fields, or None if it is not one."""
    if spec.traits.dialect == "gfx9":
        return None
    if inst.fmt.name in spec.traits.roles.export:
        return _export(spec, inst)
    build = _GRAPHICS.get(inst.fmt.name)
    return None if build is None else build(spec, inst)

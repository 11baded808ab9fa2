"""Write HSA code objects (v5 by default): kernels' code, their descriptors built from
`.amdhsa_*` settings, and the NT_AMDGPU_METADATA note. The same descriptor builder serves
the text assembler's `.amdhsa_kernel` blocks (asm_module.py) and Python callers."""
from __future__ import annotations

import re
import warnings
from dataclasses import field

from isa.records import dataclass

from . import elf
from .codeobj import KernelArg
from .descriptor import (FIELDS, KernelDescriptor, default_user_sgpr_count, encode_descriptor, extra_sgprs,
                         fields_for, granulated_sgprs, granulated_vgprs)
from .link import R_AMDGPU_REL64, Fixup, OutputSection, SymbolDef, link
from .target import Target, parse_target

METADATA_VERSION = {4: [1, 1], 5: [1, 2], 6: [1, 2]}
KERNEL_ALIGN = 256          # kernel entry points are 256-byte aligned (AMDGPUUsage)
# Directives that feed the register granules rather than a bit field of their own.
REGISTER_DIRECTIVES = {".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr", ".amdhsa_reserve_vcc",
                       ".amdhsa_reserve_flat_scratch", ".amdhsa_reserve_xnack_mask", ".amdhsa_accum_offset"}


@dataclass
class KernelSpec:
    """One kernel to write. `directives` are `.amdhsa_*` settings (the prefix may be left
    out: {"user_sgpr_dispatch_ptr": 1}); registers default to those the code uses,
    kernarg size to the end of the last argument."""
    name: str
    code: bytes
    args: list[KernelArg] = field(default_factory=list)
    directives: dict[str, int] = field(default_factory=dict)
    wave_size: int | None = None
    metadata: dict = field(default_factory=dict)     # extra keys for this kernel's metadata map


def directive_name(name: str) -> str:
    return name if name.startswith(".amdhsa_") else ".amdhsa_" + name


_REG = re.compile(r"\b([sva])(?:(\d+)(?:\.[lh])?\b|\[(\d+):(\d+)\])")


def registers_used(code: bytes, target: Target, wave_size: int) -> tuple[int, int, bool, int]:
    """(next free VGPR, next free SGPR, VCC used, next free AGPR) of machine code, read off its
    disassembly."""
    from dsl import disassemble
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = disassemble(code, target.name, wave_size=wave_size)
    top = {"v": 0, "s": 0, "a": 0}
    for cls, one, lo, hi in _REG.findall(text):
        top[cls] = max(top[cls], int(one or hi) + 1)
    return top["v"], top["s"], bool(re.search(r"\bvcc", text)), top["a"]


def build_descriptor(target: Target, directives: dict[str, int], wave_size: int, *, where: str = "") \
        -> tuple[KernelDescriptor, dict[str, int]]:
    """A descriptor from `.amdhsa_*` directives and their documented defaults; also returns
    the register figures (next_free_vgpr/sgpr, sgpr_count with reserved extras) for the metadata."""
    settable = {f.directive: f for f in fields_for(target) if f.directive}
    values = {f.name: (1 if wave_size == 32 else 0) if f.default == "wave32" else f.default
              for f in fields_for(target) if f.directive and f.default != "user_sgprs"}
    given = {directive_name(k): v for k, v in directives.items()}
    for name, value in given.items():
        if name in REGISTER_DIRECTIVES:
            continue
        if name not in settable:
            known = any(f.directive == name for f in FIELDS)
            raise ValueError(f"{where}{name} " + (f"does not exist on {target.name}" if known else
                                                  "is not a kernel descriptor directive"))
        values[settable[name].name] = value
    if target.major >= 10 and values.get("enable_wavefront_size32", 0) != (wave_size == 32):
        raise ValueError(f"{where}.amdhsa_wavefront_size32 {values['enable_wavefront_size32']} contradicts "
                         f"the wave{wave_size} the code was assembled for (wave64: --wave64 / wave_size=64)")
    desc = KernelDescriptor(**values)
    if ".amdhsa_user_sgpr_count" not in given:
        desc.user_sgpr_count = default_user_sgpr_count(desc)
    elif desc.user_sgpr_count < default_user_sgpr_count(desc):
        raise ValueError(f"{where}.amdhsa_user_sgpr_count {desc.user_sgpr_count} is less than the "
                         f"{default_user_sgpr_count(desc)} user SGPRs enabled")
    for required in (".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr") + \
            ((".amdhsa_accum_offset",) if target.gfx90a_plus else ()):
        if required not in given:
            raise ValueError(f"{where}{required} is required")
    vgprs, sgprs = given[".amdhsa_next_free_vgpr"], given[".amdhsa_next_free_sgpr"]
    sgpr_count = sgprs + extra_sgprs(target, bool(given.get(".amdhsa_reserve_vcc", 1)),
                                     bool(given.get(".amdhsa_reserve_flat_scratch", target.major < 10
                                                    and not target.gfx90a_plus)),
                                     bool(given.get(".amdhsa_reserve_xnack_mask", target.xnack in ("on", "any")
                                                    and target.major == 9)))
    desc.granulated_workitem_vgpr_count = granulated_vgprs(vgprs, target, wave_size)
    desc.granulated_wavefront_sgpr_count = granulated_sgprs(sgpr_count, target)
    if target.gfx90a_plus:
        accum = given[".amdhsa_accum_offset"]
        if not (4 <= accum <= 256 and accum % 4 == 0 and accum <= -(-max(vgprs, 1) // 4) * 4):
            raise ValueError(f"{where}.amdhsa_accum_offset {accum} must be a multiple of 4 in 4..256 "
                             f"and at most .amdhsa_next_free_vgpr rounded up to a multiple of 4")
        desc.accum_offset = accum // 4 - 1
    encode_descriptor(desc, target)          # range-check every field now, with the kernel named
    return desc, {"next_free_vgpr": vgprs, "next_free_sgpr": sgprs, "sgpr_count": sgpr_count}


def kernel_metadata(name: str, desc: KernelDescriptor, regs: dict, args: list[KernelArg], wave_size: int,
                    target: Target, extra: dict) -> dict:
    meta = {
        ".name": name, ".symbol": name + ".kd",
        ".args": [{k: v for k, v in ((".name", a.name), (".offset", a.offset), (".size", a.size),
                                     (".value_kind", a.value_kind), (".address_space", a.address_space),
                                     (".type_name", a.type_name)) if v is not None} for a in args],
        ".kernarg_segment_size": desc.kernarg_size, ".kernarg_segment_align": 8,
        ".group_segment_fixed_size": desc.group_segment_fixed_size,
        ".private_segment_fixed_size": desc.private_segment_fixed_size,
        ".sgpr_count": regs["sgpr_count"], ".vgpr_count": regs["next_free_vgpr"],
        ".sgpr_spill_count": 0, ".vgpr_spill_count": 0,
        ".wavefront_size": wave_size, ".max_flat_workgroup_size": 1024,
        ".uses_dynamic_stack": bool(desc.uses_dynamic_stack),
    }
    if target.gfx90a_plus:
        meta[".agpr_count"] = max(0, regs["next_free_vgpr"] - (desc.accum_offset + 1) * 4)
        meta[".vgpr_count"] = (desc.accum_offset + 1) * 4
    meta.update(extra)
    return meta


def write_code_object(target: str | Target, kernels: list[KernelSpec], *, version: int = 5) -> bytes:
    """A loadable HSA code object holding `kernels` (code at 256-byte aligned entries in
    .text, `<name>.kd` descriptors in .rodata, symbols, metadata note)."""
    tgt = parse_target(target) if isinstance(target, str) else target
    if version not in METADATA_VERSION:
        raise ValueError(f"code object v{version}: v4, v5 and v6 can be written")
    text, rodata = bytearray(), bytearray()
    symbols, fixups, metas = [], [], []
    for k in kernels:
        wave = k.wave_size or tgt.default_wave_size
        directives = {directive_name(n): v for n, v in k.directives.items()}
        if ".amdhsa_next_free_vgpr" not in directives or ".amdhsa_next_free_sgpr" not in directives:
            vgprs, sgprs, vcc, agprs = registers_used(k.code, tgt, wave)
            if agprs:      # CDNA's unified file: the AGPRs follow the VGPRs from accum_offset
                directives.setdefault(".amdhsa_accum_offset", max(4, -(-vgprs // 4) * 4))
                vgprs = directives[".amdhsa_accum_offset"] + agprs
            directives.setdefault(".amdhsa_next_free_vgpr", vgprs)
            directives.setdefault(".amdhsa_next_free_sgpr", sgprs)
            directives.setdefault(".amdhsa_reserve_vcc", int(vcc))
        if tgt.gfx90a_plus:
            directives.setdefault(".amdhsa_accum_offset", max(4, (directives[".amdhsa_next_free_vgpr"] + 3) // 4 * 4))
        if tgt.major >= 10:
            directives.setdefault(".amdhsa_wavefront_size32", int(wave == 32))
        directives.setdefault(".amdhsa_kernarg_size", max((a.offset + a.size for a in k.args), default=0))
        desc, regs = build_descriptor(tgt, directives, wave, where=f"kernel {k.name!r}: ")
        text += bytes(-len(text) % KERNEL_ALIGN)
        rodata += bytes(-len(rodata) % 64)
        symbols += [SymbolDef(k.name, ".text", len(text), len(k.code), elf.STT_FUNC),
                    SymbolDef(k.name + ".kd", ".rodata", len(rodata), 64, elf.STT_OBJECT)]
        fixups.append(Fixup(".rodata", len(rodata) + 16, R_AMDGPU_REL64, k.name, 16))
        text += k.code
        rodata += encode_descriptor(desc, tgt)
        metas.append(kernel_metadata(k.name, desc, regs, k.args, wave, tgt, k.metadata))
    metadata = {"amdhsa.version": METADATA_VERSION[version], "amdhsa.target": tgt.target_id,
                "amdhsa.kernels": metas}
    sections = [OutputSection(".rodata", bytes(rodata), elf.SHF_ALLOC, 64),
                OutputSection(".text", bytes(text), elf.SHF_ALLOC | elf.SHF_EXECINSTR, KERNEL_ALIGN)]
    return link(tgt, sections, symbols, fixups, metadata, elf.ABI_VERSION[version])


def from_dsl_kernel(kernel, name: str | None = None, args: list[KernelArg] | None = None, *,
                    version: int = 5, **directives) -> bytes:
    """A code object from a dsl.Kernel: its arch and wave size, its assembled code, the
    given arguments (metadata and kernarg size) and `.amdhsa_*` settings as keywords
    (user_sgpr_kernarg_segment_ptr=1, system_vgpr_workitem_id=2, group_segment_fixed_size=...).
    A kernel whose allocation spilled VGPRs gets its scratch (private_segment_fixed_size,
    enable_private_segment) unless the settings say otherwise."""
    code = kernel.assemble()
    scratch = kernel.scratch_bytes if kernel.virtuals else 0
    if scratch:                      # the allocator spilled VGPRs to scratch: the kernel needs its private segment
        directives.setdefault("private_segment_fixed_size", scratch)
        directives.setdefault("enable_private_segment", 1)
    spec = KernelSpec(name or kernel.name, code, list(args or []), directives, kernel.wave_size)
    return write_code_object(kernel.arch, [spec], version=version)

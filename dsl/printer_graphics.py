"""EXP and MIMG instructions -> LLVM text (the graphics formats; printer.py does the rest)."""
from __future__ import annotations

import re
from functools import lru_cache

from isa import Spec
from isa.mnemonics import text_mnemonic

from . import syntax
from .decode import Instruction
from .printer_operands import flags_text, sreg_text, vreg
from .signature import image_address_words, image_data_dwords, ray_address_groups


def print_graphics(spec: Spec, inst: Instruction) -> str:
    if inst.fmt.name in spec.traits.roles.export:
        return _export(spec, inst)
    return _ray(spec, inst) if "BVH" in inst.name else _image(spec, inst)


@lru_cache(maxsize=None)
def export_targets(spec: Spec) -> dict[int, str]:
    """EXP TARGET codes -> LLVM names, from the manual's TARGET list ('0..7 MRT 0..7', '8 Z',
    '12-16 Position 0-4', ...) and syntax.EXPORT_TARGETS."""
    out = {}
    name = next(iter(spec.traits.roles.export))
    fmt = spec.formats[name]
    m = re.search(r"(\d+)\.\.(\d+) MRT", fmt.field_text.get("TARGET", ""))
    if m:
        out.update({c: f"mrt{c - int(m.group(1))}" for c in range(int(m.group(1)), int(m.group(2)) + 1)})
    rows = [(lo, hi, base) for lo, hi, _kind, base, _text in spec.operands.get(name, {}).get("TARGET", [])]
    if not rows:   # RDNA4's conversion keeps the list in the field text: '... 12-16 Position 0-4 20 Primitive data'
        for label in syntax.EXPORT_TARGETS:
            m = re.search(rf"\b(\d+)(?:-(\d+))? {label}\b", fmt.field_text.get("TARGET", ""))
            if m:
                rows.append((int(m.group(1)), int(m.group(2) or m.group(1)), label))
    for lo, hi, base in rows:
        target = syntax.EXPORT_TARGETS.get(re.sub(r"\s*\d+-\d+$", "", base))
        if target:
            out.update({c: target if lo == hi else f"{target}{c - lo}" for c in range(lo, hi + 1)})
    return out


def _export(spec: Spec, inst: Instruction) -> str:
    f = inst.fields
    target = export_targets(spec).get(f["TARGET"], f"invalid_target_{f['TARGET']}")
    srcs = [vreg(f[f"VSRC{i}"]) if f["EN"] >> i & 1 else "off" for i in range(4)]
    return f"{text_mnemonic(inst.name, spec.arch)} {target} {', '.join(srcs)}" + (" done" if f.get("DONE") else "") + \
        (" row_en" if f.get("ROW") else "")


def image_widths(d, f: dict, sampler: bool, nsa_last: int | None, nsa_fields: int = 5) -> tuple[int, int, bool]:
    """(data VGPRs, address VGPRs, whether the addresses print as single registers) as LLVM
    prints them. Where its disassembler has no instruction form for the widths an encoding
    asks for, LLVM prints those of the first form in its tables: one data VGPR (two for
    gathers and cmpswap) and the shortest address, or with NSA the longest one (the cases
    below are those seen in LLVM 22's corpora)."""
    _, coords, gradients = syntax.MIMG_DIMS[f["DIM"]]
    data = image_data_dwords(d, f["DMASK"], bool(f.get("D16")), f.get("TFE", 0))
    words = image_address_words(d, coords, gradients, bool(f.get("A16")))
    dims, forms = _image_address_forms(d, sampler)
    natural = 2 if "CMPSWAP" in d.name else 1   # an atomic's data: 32-bit, or 64-bit plus TFE
    nsa = nsa_last is not None
    if nsa:   # NSA forms hold two to five address fields, the last one a range if need be
        no_address_form = words <= (2 if nsa_fields == 5 and "VADDR0" not in f else 0) or words > max(dims)
        past_v255 = nsa_last + words - (nsa_fields - 1) > 256
    else:
        no_address_form = words not in forms
        past_v255 = f["VADDR"] + words > 256
    no_data_form = ("GATHER4" in d.name and f.get("D16") and f.get("TFE")
                    or "ATOMIC" in d.name and not natural <= data <= 2 * natural + 1)
    if no_address_form or no_data_form or past_v255 or f["VDATA"] + data > 256:
        return (2 if "GATHER4" in d.name else natural), (min(max(dims), nsa_fields) if nsa else min(forms)), True
    return data, words, False


@lru_cache(maxsize=None)
def _image_address_forms(d, sampler: bool) -> tuple[frozenset[int], frozenset[int]]:
    """Address widths of the dims an opcode takes (sampling: no MSAA), with and without A16;
    and those LLVM has a sequential-address form for: these plus the largest rounded up to a
    power of two (its register class)."""
    no_msaa = sampler or "MIP" in d.name.split("_")   # sampling and mip levels have no MSAA forms
    dims = frozenset(image_address_words(d, c, g, a16) for name, c, g in syntax.MIMG_DIMS
                     if not (no_msaa and "MSAA" in name) for a16 in (False, True))
    return dims, dims | {1 << (max(dims) - 1).bit_length()}


def _ray(spec: Spec, inst: Instruction) -> str:
    """IMAGE_BVH*_INTERSECT_RAY: four result VGPRs, the ray's address operands (NSA: one field
    per operand), a 128-bit resource; only A16 among the flags."""
    d, f = inst.defs[0], inst.fields
    groups = ray_address_groups(d, bool(f.get("A16")))
    if inst.extra:
        fields = [f["VADDR"]] + [inst.extra[k] for k in ("ADDR1", "ADDR2", "ADDR3", "ADDR4")]
        vaddr = "[" + ", ".join(vreg(r, n) for r, n in zip(fields, groups)) + "]"
    else:
        vaddr = vreg(f["VADDR"], sum(groups))
    text = f"{d.name.lower()} {vreg(f['VDATA'], 4)}, {vaddr}, {sreg_text(spec, f['SRSRC'] * 4, 4)}"
    return text + flags_text(f, ("A16",))


def _image(spec: Spec, inst: Instruction) -> str:
    """MIMG: vdata, vaddr (or NSA's [addresses]), the resource (and sampler) SGPRs, then
    dmask, dim and the flags in LLVM's order."""
    d, f = inst.defs[0], inst.fields
    sampler = d.name.startswith(("IMAGE_SAMPLE", "IMAGE_GATHER", "IMAGE_GET_LOD"))
    nsa_regs = [f["VADDR"]] + [inst.extra[k] for k in ("ADDR1", "ADDR2", "ADDR3", "ADDR4")] if inst.extra else []
    data, words, singles = image_widths(d, f, sampler, nsa_regs[-1] if nsa_regs else None)
    if nsa_regs:   # one VGPR per address field; the last one takes what remains
        n = min(words, len(nsa_regs))
        tail = 1 if singles else words - n + 1
        vaddr = "[" + ", ".join([vreg(r) for r in nsa_regs[:n - 1]] + [vreg(nsa_regs[n - 1], tail)]) + "]"
    else:
        vaddr = vreg(f["VADDR"], words if words <= 12 else 16)   # VGPR tuples: 1-12, then 16
    parts = [vreg(f["VDATA"], data), vaddr, sreg_text(spec, f["SRSRC"] * 4, 8)]
    if sampler:
        parts.append(sreg_text(spec, f["SSAMP"] * 4, 4))
    text = f"{d.name.lower()} {', '.join(parts)}"
    if f["DMASK"]:
        text += f" dmask:0x{f['DMASK']:x}"
    text += f" dim:SQ_RSRC_IMG_{syntax.MIMG_DIMS[f['DIM']][0]}"
    if f.get("UNRM"):
        text += " unorm"
    return text + flags_text(f, ("GLC", "SLC", "DLC", "R128", "A16", "TFE", "LWE", "D16"))

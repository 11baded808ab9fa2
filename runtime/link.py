"""Lay out sections into a loadable AMDGPU HSA shared object, the way a linker would with
one input: read-only data, code and writable data in three PT_LOAD segments, dynamic
symbols with a hash table, the metadata note, and PC-relative references resolved."""
from __future__ import annotations

import struct

import msgpack

from isa.records import dataclass

from . import elf
from .codeobj import METADATA_NOTE_NAME, NT_AMDGPU_METADATA
from .target import Target

PAGE = 0x1000
R_AMDGPU_ABS64, R_AMDGPU_REL32, R_AMDGPU_REL64, R_AMDGPU_REL32_LO, R_AMDGPU_REL32_HI, R_AMDGPU_RELATIVE64 = \
    3, 4, 5, 10, 11, 13
R_AMDGPU_ABS32_LO, R_AMDGPU_ABS32_HI, R_AMDGPU_ABS32, R_AMDGPU_GOTPCREL32_LO, R_AMDGPU_GOTPCREL32_HI = 1, 2, 6, 8, 9
# An instruction's symbolic literal: its relocation specifier -> relocation type (LLVM's AMDGPUUsage table).
LITERAL_RELOCATIONS = {None: R_AMDGPU_ABS32, "abs32@lo": R_AMDGPU_ABS32_LO, "abs32@hi": R_AMDGPU_ABS32_HI,
                       "rel32@lo": R_AMDGPU_REL32_LO, "rel32@hi": R_AMDGPU_REL32_HI,
                       "gotpcrel32@lo": R_AMDGPU_GOTPCREL32_LO, "gotpcrel32@hi": R_AMDGPU_GOTPCREL32_HI}
RELOCATION_NAMES = {R_AMDGPU_ABS64: "R_AMDGPU_ABS64", R_AMDGPU_REL32: "R_AMDGPU_REL32", R_AMDGPU_REL64: "R_AMDGPU_REL64",
                    R_AMDGPU_RELATIVE64: "R_AMDGPU_RELATIVE64",
                    **{t: "R_AMDGPU_" + (s or "abs32").replace("@", "_").upper()
                       for s, t in LITERAL_RELOCATIONS.items()}}
# PC-relative references resolve at link time: (width, value from S + A - P).
PC_RELATIVE = {R_AMDGPU_REL32: (4, lambda v: v), R_AMDGPU_REL64: (8, lambda v: v),
               R_AMDGPU_REL32_LO: (4, lambda v: v & 0xFFFFFFFF), R_AMDGPU_REL32_HI: (4, lambda v: v >> 32)}


@dataclass
class OutputSection:
    name: str
    data: bytes
    flags: int = elf.SHF_ALLOC
    align: int = 1
    type: int = elf.SHT_PROGBITS
    size: int | None = None        # SHT_NOBITS (.bss): its size; otherwise len(data)


@dataclass
class SymbolDef:
    name: str
    section: str | None            # None: an absolute value (.set symbols)
    value: int                     # offset within the section, or the absolute value
    size: int = 0
    type: int = elf.STT_NOTYPE
    bind: int = elf.STB_GLOBAL
    visibility: int = elf.STV_PROTECTED


@dataclass
class Fixup:
    """A reference to `symbol` + addend at `offset` of `section`, of an R_AMDGPU_* type."""
    section: str
    offset: int
    type: int
    symbol: str
    addend: int = 0
    where: str = ""                # source position for error messages


class LinkError(ValueError):
    pass


def _segment_of(s: OutputSection) -> int:
    return 1 if s.flags & elf.SHF_EXECINSTR else 2 if s.flags & elf.SHF_WRITE else 0


def link(target: Target, sections: list[OutputSection], symbols: list[SymbolDef], fixups: list[Fixup],
         metadata: dict | None, abi_version: int) -> bytes:
    names = {s.name for s in sections}
    for sym in symbols:
        if sym.section is not None and sym.section not in names:
            raise LinkError(f"symbol {sym.name!r} is in section {sym.section!r}, which has no contents")
    globals_ = [s for s in symbols if s.bind != elf.STB_LOCAL]
    dynstr = elf.StringTable()
    for s in globals_:
        dynstr.add(s.name)
    absolute = [f for f in fixups if f.type == R_AMDGPU_ABS64]
    note = elf.note_bytes(METADATA_NOTE_NAME, NT_AMDGPU_METADATA, msgpack.packb(metadata, use_bin_type=True)) \
        if metadata is not None else b""
    n_dyn = len(globals_) + 1
    fixed = [OutputSection(".note", note, elf.SHF_ALLOC, 4, elf.SHT_NOTE)] if note else []
    fixed += [OutputSection(".dynsym", bytes(elf.SYM.size * n_dyn), elf.SHF_ALLOC, 8, elf.SHT_DYNSYM),
              OutputSection(".hash", bytes(8 + 8 * n_dyn), elf.SHF_ALLOC, 4, elf.SHT_HASH),
              OutputSection(".dynstr", bytes(dynstr.data), elf.SHF_ALLOC, 1, elf.SHT_STRTAB)]
    if absolute:
        fixed.append(OutputSection(".rela.dyn", bytes(elf.RELA.size * len(absolute)), elf.SHF_ALLOC, 8,
                                   elf.SHT_RELA))
    n_dynamic = 6 + (3 if absolute else 0)
    dynamic = OutputSection(".dynamic", bytes(16 * n_dynamic), elf.SHF_ALLOC | elf.SHF_WRITE, 8, elf.SHT_DYNAMIC)
    alloc = fixed + sorted((s for s in sections if s.flags & elf.SHF_ALLOC), key=_segment_of)
    alloc.insert(next((i for i, s in enumerate(alloc) if _segment_of(s) == 2), len(alloc)), dynamic)
    other = [s for s in sections if not s.flags & elf.SHF_ALLOC]

    # ---- layout: file offsets, and addresses congruent to them modulo the page size ----
    has_code = any(_segment_of(s) == 1 for s in alloc)
    n_phdr = 1 + (3 if has_code else 2) + 1 + (1 if note else 0)     # PHDR, LOADs, DYNAMIC, NOTE
    offset = elf.EHDR.size + elf.PHDR.size * n_phdr
    addr_delta, seg_of_prev = 0, 0
    placed: dict[str, elf.Section] = {}
    loads: list[list[elf.Section]] = [[], [], []]
    for s in alloc:
        seg = _segment_of(s)
        align = max(1, s.align)
        offset += -offset % align
        if seg != seg_of_prev and loads[seg_of_prev]:
            prev_end = max(x.addr + x.size for x in loads[seg_of_prev])
            # next page after the previous segment, same offset within the page as in the file
            addr_delta = (prev_end + PAGE - 1) // PAGE * PAGE + offset % PAGE - offset
            addr_delta = max(addr_delta, 0)
        seg_of_prev = seg
        size = s.size if s.type == elf.SHT_NOBITS else len(s.data)
        out = elf.Section(s.name, s.type, s.flags, offset + addr_delta, offset, size, align=align, data=s.data)
        placed[s.name] = out
        loads[seg].append(out)
        if s.type != elf.SHT_NOBITS:
            offset += size

    address = {}
    for sym in symbols:
        address[sym.name] = sym.value if sym.section is None else placed[sym.section].addr + sym.value
    for name, s in placed.items():          # a section's name stands for its start (LLVM's section symbols)
        address.setdefault(name, s.addr)
    images = {name: bytearray(s.data) for name, s in placed.items() if s.type != elf.SHT_NOBITS}
    relative = []
    for f in fixups:
        if f.symbol not in address:
            raise LinkError(f"{f.where}undefined symbol {f.symbol!r}")
        P = placed[f.section].addr + f.offset
        value = address[f.symbol] + f.addend
        if f.type == R_AMDGPU_ABS64:
            relative.append((P, value))     # the loader adds the load address
            continue
        if f.type not in PC_RELATIVE:
            raise LinkError(f"{f.where}{RELOCATION_NAMES.get(f.type, f'relocation type {f.type}')} against "
                            f"{f.symbol!r} is not supported in a linked code object yet (it needs a fixed load "
                            f"address or a global offset table); use @rel32@lo/@rel32@hi")
        width, part = PC_RELATIVE[f.type]
        v = part(value - P)
        images[f.section][f.offset:f.offset + width] = (v & ((1 << 8 * width) - 1)).to_bytes(width, "little")
    for name, data in images.items():
        placed[name].data = bytes(data)

    # ---- dynamic symbols, hash, relocations, .dynamic ----
    final_order = ["", *placed, *(s.name for s in other), ".symtab", ".shstrtab", ".strtab"]
    shndx = {name: i for i, name in enumerate(final_order)}

    def elf_symbol(sym: SymbolDef) -> elf.Symbol:
        return elf.Symbol(sym.name, address[sym.name], sym.size, sym.type, sym.bind, sym.visibility,
                          elf.SHN_ABS if sym.section is None else shndx[sym.section])

    null = elf.Symbol("", 0, 0, 0, 0, 0, 0)
    dyn_syms = [null] + [elf_symbol(s) for s in globals_]
    placed[".dynsym"].data = bytes(elf.SYM.size) + elf.symbol_bytes(dyn_syms[1:], dynstr)
    placed[".dynsym"].link, placed[".dynsym"].info, placed[".dynsym"].entsize = shndx[".dynstr"], 1, elf.SYM.size
    placed[".hash"].data = elf.hash_section(dyn_syms)
    placed[".hash"].link, placed[".hash"].entsize = shndx[".dynsym"], 4
    entries = [(elf.DT_HASH, placed[".hash"].addr), (elf.DT_SYMTAB, placed[".dynsym"].addr),
               (elf.DT_STRTAB, placed[".dynstr"].addr), (elf.DT_STRSZ, len(dynstr.data)),
               (elf.DT_SYMENT, elf.SYM.size)]
    if absolute:
        rela = placed[".rela.dyn"]
        rela.data = b"".join(elf.RELA.pack(P, R_AMDGPU_RELATIVE64, value) for P, value in relative)
        rela.link, rela.entsize = shndx[".dynsym"], elf.RELA.size
        entries += [(7, rela.addr), (8, len(rela.data)), (9, elf.RELA.size)]     # DT_RELA, DT_RELASZ, DT_RELAENT
    placed[".dynamic"].data = b"".join(struct.pack("<qQ", t, v) for t, v in entries + [(elf.DT_NULL, 0)])
    placed[".dynamic"].link, placed[".dynamic"].entsize = shndx[".dynstr"], 16

    # ---- non-loaded sections: symbol table, names ----
    strtab = elf.StringTable()
    locals_ = [s for s in symbols if s.bind == elf.STB_LOCAL]
    symtab_data = bytes(elf.SYM.size) + elf.symbol_bytes([elf_symbol(s) for s in locals_ + globals_], strtab)
    shstrtab = elf.StringTable()
    for name in final_order:
        shstrtab.add(name)
    tail = [elf.Section(s.name, s.type, s.flags, 0, 0, len(s.data), align=max(1, s.align), data=s.data)
            for s in other]
    tail += [elf.Section(".symtab", elf.SHT_SYMTAB, 0, 0, 0, len(symtab_data), shndx[".strtab"], len(locals_) + 1,
                         8, elf.SYM.size, symtab_data),
             elf.Section(".shstrtab", elf.SHT_STRTAB, 0, 0, 0, len(shstrtab.data), align=1, data=bytes(shstrtab.data)),
             elf.Section(".strtab", elf.SHT_STRTAB, 0, 0, 0, len(strtab.data), align=1, data=bytes(strtab.data))]
    for s in tail:
        offset += -offset % s.align
        s.offset = offset
        offset += len(s.data)
    all_sections = [elf.Section("", elf.SHT_NULL, align=0)] + list(placed.values()) + tail

    # ---- program headers ----
    phdr_size = elf.PHDR.size * n_phdr
    segments = [elf.Segment(elf.PT_PHDR, elf.PF_R, elf.EHDR.size, elf.EHDR.size, phdr_size, phdr_size, 8)]
    flags = (elf.PF_R, elf.PF_R | elf.PF_X, elf.PF_R | elf.PF_W)
    for seg, members in enumerate(loads):
        if seg == 0:
            start_off = start_addr = 0          # the first segment maps the headers too
        elif members:
            start_off, start_addr = members[0].offset, members[0].addr
        else:
            continue
        filesz = max(m.offset + (0 if m.type == elf.SHT_NOBITS else m.size) for m in members) - start_off
        memsz = max(m.addr + m.size for m in members) - start_addr
        segments.append(elf.Segment(elf.PT_LOAD, flags[seg], start_off, start_addr, filesz, memsz, PAGE))
    d = placed[".dynamic"]
    segments.append(elf.Segment(elf.PT_DYNAMIC, elf.PF_R | elf.PF_W, d.offset, d.addr, d.size, d.size, 8))
    if note:
        n = placed[".note"]
        segments.append(elf.Segment(elf.PT_NOTE, elf.PF_R, n.offset, n.addr, n.size, n.size, 4))
    assert len(segments) == n_phdr
    for s in placed.values():
        s.size = s.size if s.type == elf.SHT_NOBITS else len(s.data)
    return elf.write_elf(osabi=elf.ELFOSABI_AMDGPU_HSA, abi_version=abi_version, etype=elf.ET_DYN,
                         flags=target.e_flags, sections=all_sections, segments=segments,
                         shstrndx=final_order.index(".shstrtab"))

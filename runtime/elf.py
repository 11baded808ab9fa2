"""ELF64 little-endian as AMDGPU code objects use it: parse headers, sections, segments,
symbols, notes and relocations with every offset bounds-checked (CodeObjectError names
what is wrong and where), and build a file back from sections."""
from __future__ import annotations

import struct
from dataclasses import field

from isa.records import dataclass

ELF_MAGIC = b"\x7fELF"
ELFCLASS64, ELFDATA2LSB, EV_CURRENT = 2, 1, 1
ELFOSABI_AMDGPU_HSA = 64
EM_AMDGPU = 224
ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
# EI_ABIVERSION of AMDHSA code objects by code object version.
ABI_VERSION = {2: 0, 3: 1, 4: 2, 5: 3, 6: 4}
CODE_OBJECT_VERSION = {v: k for k, v in ABI_VERSION.items()}

SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_HASH, SHT_DYNAMIC, SHT_NOTE, SHT_NOBITS, \
    SHT_REL, SHT_DYNSYM = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR = 1, 2, 4, 6
PF_X, PF_W, PF_R = 1, 2, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_SECTION = 0, 1, 2, 3
STV_DEFAULT, STV_HIDDEN, STV_PROTECTED = 0, 2, 3
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
DT_NULL, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT = 0, 4, 5, 6, 10, 11

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")


class CodeObjectError(ValueError):
    """A code object that cannot be read: the message names the part and the file offset."""


@dataclass
class Section:
    """An ELF section header and its bytes."""
    name: str
    type: int
    flags: int = 0
    addr: int = 0
    offset: int = 0
    size: int = 0
    link: int = 0
    info: int = 0
    align: int = 1
    entsize: int = 0
    data: bytes = b""
    index: int = 0


@dataclass
class Segment:
    """An ELF program header (a loadable segment)."""
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    align: int


@dataclass
class Symbol:
    """An ELF symbol table entry."""
    name: str
    value: int
    size: int
    type: int
    bind: int
    visibility: int
    shndx: int


@dataclass
class Relocation:
    """An ELF relocation entry (RELA), its symbol resolved."""
    offset: int        # address (linked objects) or offset within the target section (relocatable)
    type: int
    symbol: Symbol | None
    addend: int
    section: int       # index of the section the relocation patches (relocatable objects)


@dataclass
class ElfFile:
    """An ELF file: header fields, sections, segments, symbols, notes and relocations."""
    osabi: int
    abi_version: int
    type: int
    machine: int
    flags: int
    sections: list[Section] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    dynamic_symbols: list[Symbol] = field(default_factory=list)
    notes: list[tuple[str, int, bytes]] = field(default_factory=list)
    relocations: list[Relocation] = field(default_factory=list)

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)


def _unpack(st: struct.Struct, data: bytes, offset: int, what: str) -> tuple:
    if offset < 0 or offset + st.size > len(data):
        raise CodeObjectError(f"{what} at offset 0x{offset:x} needs {st.size} bytes but the file "
                              f"has {len(data)} (truncated or corrupt)")
    return st.unpack_from(data, offset)


def _slice(data: bytes, offset: int, size: int, what: str) -> bytes:
    if offset < 0 or size < 0 or offset + size > len(data):
        raise CodeObjectError(f"{what}: bytes 0x{offset:x}..0x{offset + size:x} lie outside the "
                              f"{len(data)}-byte file (truncated or corrupt)")
    return data[offset:offset + size]


def _string(table: bytes, offset: int, what: str) -> str:
    if not 0 <= offset < max(len(table), 1) or (offset and offset >= len(table)):
        raise CodeObjectError(f"{what}: name offset {offset} is outside its string table ({len(table)} bytes)")
    end = table.find(b"\0", offset)
    if end < 0:
        raise CodeObjectError(f"{what}: name at string-table offset {offset} is not NUL-terminated")
    return table[offset:end].decode("utf-8", errors="replace")


def parse_elf(data: bytes) -> ElfFile:
    data = bytes(data)
    if data[:4] != ELF_MAGIC:
        raise CodeObjectError("not an ELF file (no \\x7fELF magic)")
    ident, etype, machine, version, entry, phoff, shoff, flags, ehsize, phentsize, phnum, shentsize, shnum, \
        shstrndx = _unpack(EHDR, data, 0, "ELF header")
    if ident[4] != ELFCLASS64 or ident[5] != ELFDATA2LSB:
        raise CodeObjectError(f"ELF class {ident[4]} / data {ident[5]}: AMDGPU code objects are ELF64 little-endian")
    if machine != EM_AMDGPU:
        raise CodeObjectError(f"e_machine {machine} is not EM_AMDGPU ({EM_AMDGPU})")
    elf = ElfFile(ident[7], ident[8], etype, machine, flags)
    if phnum and phentsize != PHDR.size or shnum and shentsize != SHDR.size:
        raise CodeObjectError(f"program/section header entry sizes {phentsize}/{shentsize}, expected "
                              f"{PHDR.size}/{SHDR.size}")
    for i in range(phnum):
        t, fl, off, vaddr, _paddr, filesz, memsz, align = _unpack(PHDR, data, phoff + i * PHDR.size,
                                                                   f"program header {i}")
        elf.segments.append(Segment(t, fl, off, vaddr, filesz, memsz, align))
    raw = [_unpack(SHDR, data, shoff + i * SHDR.size, f"section header {i}") for i in range(shnum)]
    if raw and not 0 <= shstrndx < len(raw):
        raise CodeObjectError(f"section name table index {shstrndx} out of range (0..{len(raw) - 1})")
    names = b""
    if raw:
        s = raw[shstrndx]
        names = _slice(data, s[4], s[5], "section name table")
    for i, (name, t, fl, addr, off, size, link, info, align, entsize) in enumerate(raw):
        sname = _string(names, name, f"section {i}")
        body = b"" if t in (SHT_NOBITS, SHT_NULL) else _slice(data, off, size, f"section {i} {sname!r}")
        elf.sections.append(Section(sname, t, fl, addr, off, size, link, info, align, entsize, body, i))
    for s in elf.sections:
        if s.type in (SHT_SYMTAB, SHT_DYNSYM):
            syms = _symbols(elf, s)
            (elf.symbols if s.type == SHT_SYMTAB else elf.dynamic_symbols).extend(syms)
        elif s.type == SHT_NOTE:
            elf.notes.extend(_notes(s))
    for s in elf.sections:
        if s.type == SHT_RELA:
            elf.relocations.extend(_relocations(elf, s))
        elif s.type == SHT_REL:
            raise CodeObjectError(f"section {s.name!r}: SHT_REL relocations are not used by AMDGPU (RELA only)")
    return elf


def _linked(elf: ElfFile, s: Section) -> Section:
    if not 0 <= s.link < len(elf.sections):
        raise CodeObjectError(f"section {s.name!r} links to section {s.link}, which does not exist")
    return elf.sections[s.link]


def _symbols(elf: ElfFile, s: Section) -> list[Symbol]:
    strtab = _linked(elf, s).data
    if s.size % SYM.size:
        raise CodeObjectError(f"section {s.name!r}: size {s.size} is not a multiple of {SYM.size}")
    out = []
    for i in range(s.size // SYM.size):
        name, info, other, shndx, value, size = SYM.unpack_from(s.data, i * SYM.size)
        out.append(Symbol(_string(strtab, name, f"{s.name} symbol {i}"), value, size, info & 0xF, info >> 4,
                          other & 3, shndx))
    return out


def _notes(s: Section) -> list[tuple[str, int, bytes]]:
    out, pos, body = [], 0, s.data
    while pos + 12 <= len(body):
        namesz, descsz, ntype = struct.unpack_from("<III", body, pos)
        name_at = pos + 12
        desc_at = name_at + (namesz + 3 & ~3)
        end = desc_at + (descsz + 3 & ~3)
        if desc_at + descsz > len(body):
            raise CodeObjectError(f"section {s.name!r}: note at offset 0x{s.offset + pos:x} claims "
                                  f"{namesz}+{descsz} bytes beyond the section's end")
        out.append((body[name_at:name_at + namesz].rstrip(b"\0").decode("utf-8", errors="replace"), ntype,
                    body[desc_at:desc_at + descsz]))
        pos = end
    return out


def _relocations(elf: ElfFile, s: Section) -> list[Relocation]:
    symtab = _linked(elf, s) if s.link else None
    syms = _symbols(elf, symtab) if symtab is not None and symtab.type in (SHT_SYMTAB, SHT_DYNSYM) else []
    if s.size % RELA.size:
        raise CodeObjectError(f"section {s.name!r}: size {s.size} is not a multiple of {RELA.size}")
    out = []
    for i in range(s.size // RELA.size):
        offset, info, addend = RELA.unpack_from(s.data, i * RELA.size)
        sym_index = info >> 32
        if sym_index >= max(len(syms), 1) or (sym_index and not syms):
            raise CodeObjectError(f"section {s.name!r}: relocation {i} names symbol {sym_index} of {len(syms)}")
        out.append(Relocation(offset, info & 0xFFFFFFFF, syms[sym_index] if sym_index else None, addend, s.info))
    return out


# ---- writing ----

def note_bytes(name: str, ntype: int, desc: bytes) -> bytes:
    raw_name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(raw_name), len(desc), ntype) + pad(raw_name) + pad(desc)


class StringTable:
    """An ELF string table being built: offset of each name added once."""

    def __init__(self):
        self.data = bytearray(b"\0")
        self._at: dict[str, int] = {"": 0}

    def add(self, name: str) -> int:
        if name not in self._at:
            self._at[name] = len(self.data)
            self.data += name.encode() + b"\0"
        return self._at[name]


def sysv_hash(name: str) -> int:
    h = 0
    for c in name.encode():
        h = (h << 4) + c
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def symbol_bytes(symbols: list[Symbol], strtab: StringTable) -> bytes:
    return b"".join(SYM.pack(strtab.add(s.name), s.bind << 4 | s.type, s.visibility, s.shndx, s.value, s.size)
                    for s in symbols)


def hash_section(symbols: list[Symbol]) -> bytes:
    """SHT_HASH for a dynamic symbol table (one bucket per symbol keeps chains short)."""
    nbucket = max(1, len(symbols))
    buckets, chains = [0] * nbucket, [0] * len(symbols)
    for i, s in enumerate(symbols):
        if i == 0:
            continue
        b = sysv_hash(s.name) % nbucket
        chains[i], buckets[b] = buckets[b], i
    return struct.pack(f"<II{nbucket}I{len(symbols)}I", nbucket, len(symbols), *buckets, *chains)


def write_elf(*, osabi: int, abi_version: int, etype: int, flags: int, sections: list[Section],
              segments: list[Segment], shstrndx: int) -> bytes:
    """An ELF file from laid-out sections (offset/addr set, section 0 the NULL section,
    names present in sections[shstrndx]) and program headers (placed right after the
    ELF header); the section header table goes at the end."""
    phoff = EHDR.size
    end = max([s.offset + len(s.data) for s in sections if s.type != SHT_NOBITS] +
              [phoff + PHDR.size * len(segments)])
    shoff = end + (-end % 8)
    out = bytearray(shoff + SHDR.size * len(sections))
    ident = ELF_MAGIC + bytes([ELFCLASS64, ELFDATA2LSB, EV_CURRENT, osabi, abi_version]) + bytes(7)
    EHDR.pack_into(out, 0, ident, etype, EM_AMDGPU, EV_CURRENT, 0, phoff if segments else 0, shoff, flags,
                   EHDR.size, PHDR.size if segments else 0, len(segments), SHDR.size, len(sections), shstrndx)
    for i, p in enumerate(segments):
        PHDR.pack_into(out, phoff + i * PHDR.size, p.type, p.flags, p.offset, p.vaddr, p.vaddr, p.filesz,
                       p.memsz, p.align)
    names = sections[shstrndx].data
    for i, s in enumerate(sections):
        if s.type != SHT_NOBITS and s.data:
            out[s.offset:s.offset + len(s.data)] = s.data
        name = names.find(s.name.encode() + b"\0") if s.name else 0
        SHDR.pack_into(out, shoff + i * SHDR.size, name, s.type, s.flags, s.addr, s.offset, s.size,
                       s.link, s.info, s.align, s.entsize)
    return bytes(out)

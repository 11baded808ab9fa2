"""HSA code objects (v4, v5, v6): read what LLVM or wavesmith produced — kernels, their
descriptors, metadata, code and a loadable image — and write our own (see writer.py)."""
from __future__ import annotations

from dataclasses import field

import msgpack

from isa.records import dataclass

from . import elf
from .descriptor import DESCRIPTOR_SIZE, KernelDescriptor, decode_descriptor, vgprs_from_granule
from .elf import CodeObjectError
from .target import Target, target_from_e_flags

NT_AMDGPU_METADATA = 32
MAX_IMAGE = 256 << 20      # a corrupt address must not make us allocate gigabytes
METADATA_NOTE_NAME = "AMDGPU"
# Relocation types (AMDGPUUsage "Relocation Records") -> (width in bytes, value from S, A, P, B).
RELOCATIONS = {
    1: (4, lambda S, A, P, B: (S + A) & 0xFFFFFFFF),          # R_AMDGPU_ABS32_LO
    2: (4, lambda S, A, P, B: (S + A) >> 32),                 # R_AMDGPU_ABS32_HI
    3: (8, lambda S, A, P, B: S + A),                         # R_AMDGPU_ABS64
    4: (4, lambda S, A, P, B: S + A - P),                     # R_AMDGPU_REL32
    5: (8, lambda S, A, P, B: S + A - P),                     # R_AMDGPU_REL64
    6: (4, lambda S, A, P, B: S + A),                         # R_AMDGPU_ABS32
    10: (4, lambda S, A, P, B: (S + A - P) & 0xFFFFFFFF),     # R_AMDGPU_REL32_LO
    11: (4, lambda S, A, P, B: (S + A - P) >> 32),            # R_AMDGPU_REL32_HI
    13: (8, lambda S, A, P, B: B + A),                        # R_AMDGPU_RELATIVE64
}


@dataclass
class KernelArg:
    """One kernel argument from the metadata's .args (hidden_* kinds are runtime-filled)."""
    offset: int
    size: int
    value_kind: str
    name: str | None = None
    address_space: str | None = None
    type_name: str | None = None

    @property
    def hidden(self) -> bool:
        return self.value_kind.startswith("hidden_")


@dataclass
class KernelInfo:
    """One kernel of a code object: its descriptor, entry, code and metadata."""
    name: str
    descriptor: KernelDescriptor
    descriptor_bytes: bytes
    descriptor_address: int        # vaddr of <name>.kd
    entry: int                     # vaddr of the first instruction
    code: bytes                    # the kernel's machine code (relocations applied at base 0)
    metadata: dict                 # this kernel's map from the metadata note ({} if none)
    wave_size: int
    sgpr_count: int
    vgpr_count: int

    @property
    def args(self) -> list[KernelArg]:
        return [KernelArg(a[".offset"], a[".size"], a[".value_kind"], a.get(".name"), a.get(".address_space"),
                          a.get(".type_name")) for a in self.metadata.get(".args", [])]

    @property
    def kernarg_size(self) -> int:
        return self.descriptor.kernarg_size

    @property
    def kernarg_align(self) -> int:
        return self.metadata.get(".kernarg_segment_align", 8)


@dataclass
class CodeObject:
    """A loaded code object: target, kernels, metadata, functions and the ELF it came from."""
    target_info: Target
    version: int                   # code object version (4, 5, 6)
    e_flags: int
    kernels: dict[str, KernelInfo]
    metadata: dict                 # the whole metadata note
    functions: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> (vaddr, size), kernels too
    elf: elf.ElfFile | None = None
    _placement: dict[int, int] = field(default_factory=dict, repr=False)

    @property
    def target(self) -> str:
        return self.target_info.name

    def segments(self) -> list[tuple[int, int, int]]:
        """(vaddr, memsz, flags) of each loadable piece (PT_LOAD segments, or the placed
        allocatable sections of a relocatable object)."""
        if self.elf.segments:
            return [(p.vaddr, p.memsz, p.flags) for p in self.elf.segments if p.type == elf.PT_LOAD]
        return [(self._placement[s.index], s.size, _segment_flags(s.flags)) for s in self.elf.sections
                if s.flags & elf.SHF_ALLOC]

    @property
    def image_size(self) -> int:
        ends = [v + m for v, m, _ in self.segments()]
        ends += [self._placement[s.index] + s.size for s in self.elf.sections if s.index in self._placement]
        size = max(ends, default=0)
        if size > MAX_IMAGE:
            raise CodeObjectError(f"loadable image would be {size:#x} bytes (addresses up to {size:#x}); "
                                  f"more than the {MAX_IMAGE >> 20} MiB a code object may map")
        return size

    def load_image(self, base: int = 0) -> bytearray:
        """The memory image to copy to device address `base`: every allocatable section at
        its address (zero-filled gaps and .bss), relocations resolved for that base."""
        image = bytearray(self.image_size)
        for s in self.elf.sections:
            if s.flags & elf.SHF_ALLOC and s.type != elf.SHT_NOBITS:
                at = self._placement[s.index]
                image[at:at + len(s.data)] = s.data
        for r in self.elf.relocations:
            _apply(image, r, self, base)
        return image

    @property
    def image(self) -> bytearray:
        return self.load_image(0)


def _segment_flags(sh_flags: int) -> int:
    return elf.PF_R | (elf.PF_W if sh_flags & elf.SHF_WRITE else 0) | (elf.PF_X if sh_flags & elf.SHF_EXECINSTR else 0)


def _symbol_address(co: CodeObject, sym: elf.Symbol, base: int) -> int:
    if sym.shndx == elf.SHN_ABS:
        return sym.value
    if sym.shndx == elf.SHN_UNDEF:
        raise CodeObjectError(f"relocation against undefined symbol {sym.name!r}: nothing provides it")
    if co.elf.type == elf.ET_REL:
        if sym.shndx not in co._placement:
            raise CodeObjectError(f"symbol {sym.name!r} is in section {sym.shndx}, which is not loaded")
        return base + co._placement[sym.shndx] + sym.value
    return base + sym.value


def _apply(image: bytearray, r: elf.Relocation, co: CodeObject, base: int) -> None:
    if r.type == 0:
        return
    if r.type not in RELOCATIONS:
        raise CodeObjectError(f"relocation type {r.type} at 0x{r.offset:x} is not supported "
                              f"(known: {sorted(RELOCATIONS)})")
    width, value = RELOCATIONS[r.type]
    where = r.offset + (co._placement.get(r.section, 0) if co.elf.type == elf.ET_REL else 0)
    if where + width > len(image):
        raise CodeObjectError(f"relocation at 0x{where:x} patches {width} bytes outside the {len(image)}-byte image")
    S = _symbol_address(co, r.symbol, base) if r.symbol else 0
    v = value(S, r.addend, base + where, base)
    image[where:where + width] = (v & ((1 << 8 * width) - 1)).to_bytes(width, "little")


def _place_sections(e: elf.ElfFile) -> dict[int, int]:
    """Section index -> address: as linked, or for a relocatable object laid out one after
    another at their alignments (what a linker would do with one input)."""
    alloc = [s for s in e.sections if s.flags & elf.SHF_ALLOC]
    if e.type != elf.ET_REL:
        return {s.index: s.addr for s in alloc}
    placement, at = {}, 0
    for s in alloc:
        align = max(1, s.align)
        at += -at % align
        placement[s.index] = at
        at += s.size
    return placement


def read_metadata(e: elf.ElfFile) -> dict:
    for name, ntype, desc in e.notes:
        if name == METADATA_NOTE_NAME and ntype == NT_AMDGPU_METADATA:
            try:
                meta = msgpack.unpackb(desc, raw=False, strict_map_key=False)
            except Exception as ex:          # msgpack raises several unrelated types for bad input
                raise CodeObjectError(f"NT_AMDGPU_METADATA note is not valid msgpack: {ex}") from None
            if not isinstance(meta, dict):
                raise CodeObjectError(f"NT_AMDGPU_METADATA note holds a {type(meta).__name__}, not a map")
            return meta
    return {}


# The metadata fields wavesmith reads (AMDGPUUsage's code object metadata), with their types: a
# field of another type is refused here, where the note is read, not where a launch reads it.
_KERNEL_FIELDS = {".name": str, ".symbol": str, ".kernarg_segment_size": int, ".kernarg_segment_align": int,
                  ".group_segment_fixed_size": int, ".private_segment_fixed_size": int, ".wavefront_size": int,
                  ".sgpr_count": int, ".vgpr_count": int, ".agpr_count": int, ".max_flat_workgroup_size": int,
                  ".args": list}
_ARG_FIELDS = {".offset": int, ".size": int, ".value_kind": str, ".name": str,
               ".address_space": (str, int),      # (an address space number too, as some producers write it)
               ".type_name": str}
_TYPE_NAMES = {int: "an integer", str: "a string", list: "a list", (str, int): "a string or an integer"}


def _field_error(fields: dict, entry: dict, required: tuple) -> str | None:
    """What is wrong with one metadata map: a required field missing or a field of another type."""
    for key in required:
        if key not in entry:
            return f"has no {key}"
    for key, want in fields.items():
        if key not in entry:
            continue
        value = entry[key]
        if isinstance(value, bool) or not isinstance(value, want):
            return f"{key} is {value!r}, not {_TYPE_NAMES[want]}"
    return None


def _check_kernel_metadata(meta: dict) -> dict[str, dict]:
    kernels = meta.get("amdhsa.kernels", [])
    if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels):
        raise CodeObjectError("metadata amdhsa.kernels is not a list of maps")
    out = {}
    for i, k in enumerate(kernels):
        name = k.get(".name")
        where = f"metadata kernel {name!r}" if isinstance(name, str) else f"metadata kernel entry {i}"
        wrong = _field_error(_KERNEL_FIELDS, k, (".name",))
        if wrong:
            raise CodeObjectError(f"{where}: {wrong}")
        for j, a in enumerate(k.get(".args", [])):
            wrong = "is not a map" if not isinstance(a, dict) else \
                _field_error(_ARG_FIELDS, a, (".offset", ".size", ".value_kind"))
            if wrong:
                raise CodeObjectError(f"{where}: argument {j} {wrong}")
        out[name] = k
    return out


def read_code_object(data: bytes) -> CodeObject:
    """Parse an AMDGPU HSA code object (v4-v6, linked or relocatable). CodeObjectError
    names what is wrong for malformed or truncated input."""
    e = elf.parse_elf(data)
    if e.osabi != elf.ELFOSABI_AMDGPU_HSA:
        raise CodeObjectError(f"EI_OSABI {e.osabi} is not ELFOSABI_AMDGPU_HSA ({elf.ELFOSABI_AMDGPU_HSA})")
    version = elf.CODE_OBJECT_VERSION.get(e.abi_version)
    if version not in (4, 5, 6):
        raise CodeObjectError(f"EI_ABIVERSION {e.abi_version} is code object v{version or '?'}; "
                              f"v4, v5 and v6 are supported")
    try:
        target = target_from_e_flags(e.flags)
    except ValueError as ex:
        raise CodeObjectError(str(ex)) from None
    meta = read_metadata(e)
    kernel_meta = _check_kernel_metadata(meta)
    co = CodeObject(target, version, e.flags, {}, meta, elf=e, _placement=_place_sections(e))
    image = co.load_image(0)
    symbols = e.symbols or e.dynamic_symbols
    address = {s.name: _symbol_address(co, s, 0) for s in symbols if s.shndx not in (elf.SHN_UNDEF, elf.SHN_ABS)
               and (e.type != elf.ET_REL or s.shndx in co._placement)}
    sized = {s.name: s for s in symbols if s.type == elf.STT_FUNC and s.name in address}
    co.functions = {n: (address[n], s.size) for n, s in sized.items()}
    for s in symbols:
        if not s.name.endswith(".kd") or s.name not in address:
            continue
        name = s.name[:-3]
        kd_at = address[s.name]
        if kd_at + DESCRIPTOR_SIZE > len(image):
            raise CodeObjectError(f"kernel {name!r}: descriptor at 0x{kd_at:x} runs past the loaded image "
                                  f"({len(image)} bytes)")
        kd_bytes = bytes(image[kd_at:kd_at + DESCRIPTOR_SIZE])
        desc = decode_descriptor(kd_bytes, target)
        entry = kd_at + desc.kernel_code_entry_byte_offset
        if not 0 <= entry < len(image):
            raise CodeObjectError(f"kernel {name!r}: code entry 0x{entry:x} (descriptor at 0x{kd_at:x} + "
                                  f"{desc.kernel_code_entry_byte_offset}) is outside the image")
        km = kernel_meta.get(name, {})
        wave = 32 if desc.enable_wavefront_size32 and target.major >= 10 else 64
        if km and km.get(".wavefront_size", wave) != wave:
            raise CodeObjectError(f"kernel {name!r}: metadata says wave{km['.wavefront_size']}, "
                                  f"descriptor says wave{wave}")
        co.kernels[name] = KernelInfo(
            name, desc, kd_bytes, kd_at, entry, bytes(image[entry:entry + _code_size(co, name, entry, image)]),
            km, wave, km.get(".sgpr_count", (desc.granulated_wavefront_sgpr_count + 1) * 8),
            km.get(".vgpr_count", vgprs_from_granule(desc, target, wave)))
    missing = set(kernel_meta) - set(co.kernels)
    if missing:
        raise CodeObjectError(f"metadata lists kernel(s) {sorted(missing)} with no <name>.kd descriptor symbol")
    return co


def _code_size(co: CodeObject, name: str, entry: int, image: bytearray) -> int:
    """The kernel symbol's size; without one, up to the next function or the end of its section."""
    if name in co.functions and co.functions[name][0] == entry and co.functions[name][1]:
        return co.functions[name][1]
    ends = [a for a, _ in co.functions.values() if a > entry]
    for s in co.elf.sections:
        at = co._placement.get(s.index)
        if at is not None and at <= entry < at + s.size:
            ends.append(at + s.size)
    return min(ends, default=len(image)) - entry

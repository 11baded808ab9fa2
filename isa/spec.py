"""The ISA model other packages use: formats, instructions, operand codes.

Objects here are thin, immutable views over the generated data in
isa/generated/<arch>/; nothing in this module states an ISA fact of its own."""
from __future__ import annotations

import importlib
import re
from dataclasses import field
from functools import cached_property

from .records import dataclass
from .targets import resolve_arch
from .traits import Traits, build_traits, entry


class ISALoadError(Exception):
    """The requested architecture has no generated definitions (or is unknown)."""


@dataclass(frozen=True)
class Format:
    """A microcode format: its fields (name, high bit, low bit), width and fixed encoding bits."""
    name: str
    width: int                       # bits, without literal / DPP words
    widths: tuple[int, ...]          # every width the format can take (MIMG: 64 or 96)
    fields: list[tuple[str, int, int]]
    encoding: tuple[int, int] | None  # (value, mask) of the fixed bits, or None
    description: str = ""
    page: int = 0
    field_text: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    stated_ranges: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)

    def field(self, name: str) -> tuple[int, int]:
        """(hi, lo) of a field, KeyError naming the format's fields if absent."""
        for n, hi, lo in self.fields:
            if n == name:
                return hi, lo
        raise KeyError(f"format {self.name} has no field {name!r} (fields: {', '.join(f[0] for f in self.fields)})")

    def stated_range(self, name: str) -> tuple[int, int] | None:
        """(low, high) of the values the manual's text of a field states ("Attribute number:
        0 - 32." in LDSDIR's ATTR), read by the generator (isa/gen/build.py `ranges`); None
        where its text states no range."""
        return self.stated_ranges.get(name)

    def get(self, word: int, name: str) -> int:
        hi, lo = self.field(name)
        return (word >> lo) & ((1 << (hi - lo + 1)) - 1)

    def matches(self, word: int) -> bool:
        return self.encoding is not None and (word & self.encoding[1]) == self.encoding[0]


@dataclass(frozen=True, eq=False)
class InstrDef:
    """One instruction of one architecture's manual in one encoding. Compared and hashed by
    identity: a Spec holds one InstrDef per (format, slot, opcode), so identity is the
    instruction, and a dictionary lookup keyed by one costs no hashing of its pseudocode."""
    name: str                       # AMD's name, upper case: 'V_ADD_F32'
    format: str                     # 'VOP2', 'VOP3', 'VOPD', ...
    opcode: int                     # in that format's OP field (VOPD: OPX or OPY)
    pcode: str | None
    description: str | None
    slot: str | None = None         # VOPD only: 'X' or 'Y'
    promoted_from: str | None = None  # VOP3/VOP3SD copy of a VOP1/VOP2/VOPC instruction
    notes: str | None = None
    operand_types: dict[str, str] = field(default_factory=dict, compare=False)
    page: int = 0                   # page of the opcode table row
    pcode_page: int | None = None   # page of the instruction's entry in the Instructions chapter


_INSTR_FIELDS = frozenset(InstrDef.__dataclass_fields__)


def _instr_defs(rows: list[dict], arch: str) -> list[InstrDef]:
    """An InstrDef per generated row, each row's values copied straight into the new object's
    __dict__: the same object `InstrDef(**row)` makes (the class has no __post_init__ and no
    field the row lacks), at a third of the cost of calling its __init__ 1,500 times (~2 ms of
    a first launch). A row whose keys are not exactly the fields is refused."""
    new = object.__new__
    out = []
    for row in rows:
        if row.keys() != _INSTR_FIELDS:
            raise ISALoadError(f"{arch}: generated instruction {row.get('name')!r} has fields "
                               f"{sorted(row)}, InstrDef has {sorted(_INSTR_FIELDS)}: regenerate isa/generated")
        d = new(InstrDef)
        d.__dict__.update(row)
        out.append(d)
    return out


# (RDNA's 64-bit VALU formats are VOP3/VOP3SD, CDNA's VOP3A/VOP3B)
_LLVM_SUFFIXES = {"_e32": ("VOP1", "VOP2", "VOPC"), "_e64": ("VOP3", "VOP3SD", "VOP3A", "VOP3B", "VOP3P"),
                  "_dpp": ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P"),
                  "_e64_dpp": ("VOP3", "VOP3SD", "VOP3P"), "_sdwa": ("VOP1", "VOP2", "VOPC")}


class Spec:
    """One architecture's ISA, loaded from isa/generated/<arch>/."""

    def __init__(self, arch: str, module):
        self.arch = arch
        self.source: dict = module.SOURCE
        self.errata: list[dict] = module.ERRATA_APPLIED
        self.report: dict = module.REPORT
        self.tables: dict[str, list] = module.TABLES
        self.operands: dict[str, dict[str, list[tuple]]] = module.OPERANDS
        self.formats: dict[str, Format] = {
            name: Format(name, f["width"], tuple(f["widths"]), [(n, hi, lo) for n, hi, lo, _ in f["fields"]],
                         tuple(f["encoding"]) if f["encoding"] else None, f["description"], f["page"],
                         {n: text for n, _, _, text in f["fields"]},
                         {n: tuple(r) for n, r in f.get("ranges", {}).items()})
            for name, f in module.FORMATS.items()}
        self.instructions: list[InstrDef] = _instr_defs(module.INSTRUCTIONS, arch)

    @cached_property
    def traits(self) -> Traits:
        """This family's Traits (isa/traits.py): special operand codes, register files, format roles."""
        return build_traits(self.arch, self.operands, self.tables)

    def __repr__(self) -> str:
        return f"<Spec {self.arch}: {len(self.formats)} formats, {len(self.instructions)} instructions>"

    @cached_property
    def _by_name(self) -> dict[str, list[InstrDef]]:
        out: dict[str, list[InstrDef]] = {}
        for d in self.instructions:
            out.setdefault(d.name, []).append(d)
        return out

    @cached_property
    def _by_opcode(self) -> dict[tuple, InstrDef]:
        return {(d.format, d.slot, d.opcode): d for d in self.instructions}

    def lookup(self, mnemonic: str) -> list[InstrDef]:
        """Instructions named `mnemonic` (any case; LLVM's _e32/_e64/_dpp/_sdwa suffixes
        narrow the result to the encodings they denote). Empty list if unknown."""
        from .mnemonics import amd_name
        name = amd_name(mnemonic.strip(), self.arch)
        if name in self._by_name:
            return list(self._by_name[name])
        for suffix in sorted(_LLVM_SUFFIXES, key=len, reverse=True):
            if name.endswith(suffix.upper()):
                base = amd_name(name[: -len(suffix)], self.arch)
                return [d for d in self._by_name.get(base, []) if d.format in _LLVM_SUFFIXES[suffix]]
        return []

    def by_opcode(self, format: str, opcode: int, slot: str | None = None) -> InstrDef | None:
        return self._by_opcode.get((format, slot, opcode))

    @cached_property
    def _decode_order(self) -> list[Format]:
        # most specific fixed bits first, so SOP1 (9 bits) wins over SOP2 (2 bits)
        fmts = [f for f in self.formats.values() if f.encoding]
        return sorted(fmts, key=lambda f: bin(f.encoding[1]).count("1"), reverse=True)

    @property
    def decode_order(self) -> list[Format]:
        """The formats with fixed encoding bits, most specific first: the order identify() tries."""
        return self._decode_order

    def identify(self, data: bytes) -> tuple[Format, list[InstrDef]]:
        """The format of the instruction starting at data[0:4] and the instruction(s)
        its opcode fields select (two for VOPD: X then Y; empty if the opcode is unused).
        Raises ValueError if the first dword matches no format."""
        if len(data) < 4:
            raise ValueError(f"need at least 4 bytes to identify an instruction, got {len(data)}")
        word = int.from_bytes(data[:4], "little")
        for fmt in self._decode_order:
            if not fmt.matches(word):
                continue
            if fmt.width > 32 and len(data) < fmt.width // 8:
                raise ValueError(f"{fmt.name} instruction needs {fmt.width // 8} bytes, got {len(data)}")
            if fmt.name == "VOPD":
                x, y = self.by_opcode("VOPD", fmt.get(word, "OPX"), "X"), self.by_opcode("VOPD", fmt.get(word, "OPY"), "Y")
                return fmt, [x, y] if x and y else []       # (a pair with an unused half is no instruction)
            opcode = fmt.get(word, "OP") if any(n == "OP" for n, _, _ in fmt.fields) else 0
            d = self.by_opcode(fmt.name, opcode)
            if d is None:
                # formats sharing fixed bits (VOP3 / VOP3SD) are told apart by their opcode tables
                for other in self._decode_order:
                    if other is not fmt and other.encoding == fmt.encoding:
                        alt = self.by_opcode(other.name, other.get(word, "OP"))
                        if alt:
                            return other, [alt]
            return fmt, [d] if d else []
        raise ValueError(f"0x{word:08x} matches no {self.arch} instruction format")


_cache: dict[str, Spec] = {}


def load(target: str) -> Spec:
    """The Spec of an architecture ('rdna3', 'rdna3.5') or LLVM target ('gfx1100', 'gfx1151')."""
    arch = resolve_arch(target)
    if arch not in _cache:
        pkg = arch.replace(".", "_")
        try:
            module = importlib.import_module(f"isa.generated.{pkg}")
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("isa.generated"):
                raise ISALoadError(
                    f"no generated ISA definitions for {arch!r} (target {target!r}): isa/generated/{pkg}/ "
                    f"does not exist. Generate it with `wavesmith gen --arch {arch}` once its PDF is in "
                    f"spec_pdfs/manifest.json with a sha256.") from None
            raise
        _cache[arch] = Spec(arch, module)
    return _cache[arch]


def loaded_specs() -> dict[str, Spec]:
    """The Specs loaded so far, by family."""
    return _cache


def family_of(d: InstrDef) -> str | None:
    """The family whose loaded Spec holds `d` (each InstrDef is one encoding of one family's
    instruction, compared by identity), or None for an InstrDef no loaded Spec holds."""
    for family, spec in _cache.items():
        if spec.by_opcode(d.format, d.opcode, d.slot) is d:
            return family
    return None


def traits(target: str) -> Traits:
    """The Traits of a target ('gfx1151') or family ('rdna3.5'); TraitsError for a family
    without a traits entry."""
    family = resolve_arch(target)
    entry(family)                       # (before looking for its generated tables)
    return load(family).traits


def load_supported(target: str, families: tuple[str, ...], component: str) -> Spec:
    """load(target) for a component that implements only `families`: ISALoadError naming the
    families it does implement otherwise, so generated ISA data of a newer family is never
    read with another family's rules."""
    arch = resolve_arch(target)
    if arch not in families:
        raise ISALoadError(f"{component} does not support {arch} (target {target!r}) yet; it supports "
                           f"{', '.join(families)}")
    return load(target)


def llvm_base_mnemonic(mnemonic: str) -> str:
    """LLVM mnemonic without its encoding suffix: 'v_add_f32_e64_dpp' -> 'v_add_f32'."""
    return re.sub(r"(_e32|_e64|_dpp|_sdwa|_e64_dpp)+$", "", mnemonic.strip().lower())

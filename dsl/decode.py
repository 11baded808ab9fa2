"""Bytes -> Instruction: split an instruction into its format's fields.

An Instruction is the decoder's view of machine code: the definitions, the format and the raw
field values, which instr_fields*.py turn into instruction values (printed by instr_text.py) and the
emulator executes. The instruction value with operands (instr.Instr) is what the parser and the
DSL build and the encoders take; disasm.decode_instr gives a decoded instruction as one.

Decoding looks each opcode up once: the format (from the fixed encoding bits) and the
opcode select a cached DecodePlan holding everything that does not depend on operand
values (the instruction definitions, which fields to extract, which ones may call for a
literal dword), so a long stream costs a few dictionary look-ups per instruction."""
from __future__ import annotations

from dataclasses import field
from functools import lru_cache

from isa import Format, InstrDef, Spec
from isa.facts import no_dpp, no_sdwa
from isa.records import dataclass

from .operand_records import raw_source_field, source_is_immediate



# Fields one family's manual names differently from another's, by the name dsl/ reads them
# under (RDNA4 calls the clamp bit CM where RDNA3 writes CLMP)
FIELD_NAMES = {"CM": "CLMP"}

ILLEGAL = InstrDef("V_ILLEGAL", "VOP2", 0, None, "LLVM's trap-on-execute filler (all-zero dword)")


class DecodeError(ValueError):
    """Bytes that are not an instruction of this architecture (the message names the offset)."""


@dataclass
class Instruction:
    """A decoded instruction: its definition(s), format, field values and extra dwords."""
    defs: tuple[InstrDef, ...]          # one instruction, or VOPD's X and Y
    fmt: Format
    fields: dict[str, int]
    literal: int | None = None          # the 32-bit literal dword, if any
    dpp: dict[str, int] | None = None   # fields of the DPP16 / DPP8 dword
    dpp_kind: str | None = None         # 'DPP16' or 'DPP8' (RDNA), 'DPP', 'SDWA' or 'SDWAB' (CDNA)
    extra: dict[str, int] = field(default_factory=dict)  # MIMG NSA address dword
    size: int = 4

    @property
    def name(self) -> str:
        return self.defs[0].name


def literal_fields(inst_fmt: str) -> tuple[str, ...]:
    """The 9-bit source fields that can select the literal constant (code 255)."""
    return {"SOP2": ("SSRC0", "SSRC1"), "SOPC": ("SSRC0", "SSRC1"), "SOP1": ("SSRC0",),
            "VOP1": ("SRC0",), "VOP2": ("SRC0",), "VOPC": ("SRC0",), "VOP3": ("SRC0", "SRC1", "SRC2"),
            "VOP3SD": ("SRC0", "SRC1", "SRC2"), "VOP3P": ("SRC0", "SRC1", "SRC2"),
            "VOPD": ("SRCX0", "SRCY0"), "MUBUF": ("SOFFSET",), "MTBUF": ("SOFFSET",)}.get(inst_fmt, ())


@lru_cache(maxsize=None)
def _literal_dwords(spec: Spec) -> frozenset[tuple[str, str]]:
    return frozenset(spec.tables.get("literal_dword", ()))


def _always_literal(spec: Spec, fmt: str, defs: tuple[InstrDef, ...]) -> bool:
    """A literal dword follows whatever the operands are: s_fmaak-style SIMM32, s_setreg_imm32,
    the VOP2/VOPD K constant (v_fmaak_f32). The generator records these instructions from their
    code (tables["literal_dword"]: isa.effects' literal and constant_at), so decoding machine
    code reads no pseudocode."""
    literal = _literal_dwords(spec)
    return any((fmt, d.name) in literal for d in defs)


def _raw_field(d: InstrDef, field: str, roles) -> bool:
    """The pseudocode reads the field's raw bits (SRC1.u32 for s_set_gpr_idx_on's mode), not
    the operand it encodes: no literal dword."""
    return field == "SSRC1" and raw_source_field(d, roles)


@dataclass(frozen=True)
class DecodePlan:
    """What decoding one (format, opcode) needs, computed once per opcode."""
    fmt: Format
    defs: tuple[InstrDef, ...]
    width: int                                   # bits of the base instruction
    fields: tuple[tuple[str, int, int], ...]     # (name, lo, mask) within the base width
    literal_fields: tuple[str, ...]              # fields whose code 255 adds a literal dword
    always_literal: bool
    dpp_codes: dict[int, str]                    # VALU: SRC0 codes selecting a DPP16/DPP8 dword -> its kind
    literal_code: int                            # the source code of the literal dword
    nsa_capable: bool                            # MIMG: its NSA bit adds an address dword
    no_dpp: tuple | None = None                  # VALU: the manual's rule giving it no DPP form (isa.facts)
    no_sdwa: tuple | None = None                 # VALU: ... no SDWA form (CDNA's Instruction Limitations)

    def fields_of(self, value: int) -> dict[str, int]:
        return {n: (value >> lo) & mask for n, lo, mask in self.fields}


class _DecodeTable:
    """Format by the fixed encoding bits, then plan by opcode, both memoised."""

    def __init__(self, spec: Spec):
        self.spec = spec
        self.order = spec.decode_order
        self.fixed_mask = 0
        for f in self.order:
            self.fixed_mask |= f.encoding[1]
        self.by_fixed: dict[int, Format | None] = {}
        self.op_mask: dict[str, int] = {}
        for f in self.order:   # formats sharing fixed bits (VOP3/VOP3SD) must key on all their OP bits
            mask = 0
            for g in self.order:
                if g.encoding == f.encoding:
                    mask |= sum(((1 << (hi - lo + 1)) - 1) << lo for n, hi, lo in g.fields
                                if n in ("OP", "OPX", "OPY") and hi < 32)
            self.op_mask[f.name] = mask
        self.plans: dict[int, DecodePlan | None] = {}
        self.has_illegal = bool(spec.lookup("V_ILLEGAL"))
        t = spec.traits
        # SRC0 codes that announce a second dword (the operand table's DPP16/DPP8/DPP8FI on
        # RDNA, SDWA/DPP on CDNA): the special name is the format of that dword
        self.dpp_codes = {code: "DPP8" if name == "DPP8FI" else name for name, code in t.codes.items()
                          if name in t.roles.dpp or name == "DPP8FI"}
        self.valu_dpp = t.roles.valu_e32 | t.roles.valu_e64

    def format_of(self, word: int) -> Format | None:
        key = word & self.fixed_mask
        try:
            return self.by_fixed[key]
        except KeyError:
            fmt = next((f for f in self.order if f.matches(key)), None)
            self.by_fixed[key] = fmt
            return fmt

    def plan(self, fmt: Format, word: int) -> DecodePlan | None:
        key = word & (self.fixed_mask | self.op_mask[fmt.name])
        try:
            return self.plans[key]
        except KeyError:
            pass
        from .syntax import LLVM_ONLY_BITS    # (decoding: not when the emulator's program record holds the decodes)
        probe = key.to_bytes(4, "little") + bytes(12)   # identify() reads only these bits
        real_fmt, defs = self.spec.identify(probe)
        plan = None
        if defs:
            width = 64 if real_fmt.name == "MIMG" else real_fmt.width
            plan = DecodePlan(
                real_fmt, tuple(defs), width,
                tuple((FIELD_NAMES.get(n, n), lo, (1 << (hi - lo + 1)) - 1) for n, hi, lo in real_fmt.fields
                      if n != "ENCODING" and hi < width) +
                tuple((flag.upper(), bit, 1) for bit, flag in
                      LLVM_ONLY_BITS.get(self.spec.arch, {}).get(real_fmt.name, ()) if bit < width),
                () if source_is_immediate(defs[0]) else
                tuple(n for n in literal_fields(real_fmt.name) if not _raw_field(defs[0], n, self.spec.traits.roles)),
                _always_literal(self.spec, real_fmt.name, tuple(defs)),
                self.dpp_codes if real_fmt.name in self.valu_dpp else {}, self.spec.traits.literal,
                real_fmt.name == "MIMG", no_dpp(defs[0]) if real_fmt.name in self.valu_dpp else None,
                no_sdwa(defs[0]) if real_fmt.name in self.valu_dpp else None)
        self.plans[key] = plan
        return plan


@lru_cache(maxsize=None)
def _table(spec: Spec) -> _DecodeTable:
    return _DecodeTable(spec)


def decode_one(spec: Spec, data: bytes, offset: int = 0) -> Instruction:
    """Decode the instruction at data[offset:]. DecodeError if it is not one."""
    size = len(data) - offset
    if size < 4:
        raise DecodeError(f"offset 0x{offset:x}: need at least 4 bytes to identify an instruction, got {size}")
    word = int.from_bytes(data[offset:offset + 4], "little")
    table = _table(spec)
    fmt = table.format_of(word)
    if fmt is None:
        raise DecodeError(f"offset 0x{offset:x}: 0x{word:08x} matches no {spec.arch} instruction format")
    if fmt.width > 32 and size < fmt.width // 8:
        raise DecodeError(f"offset 0x{offset:x}: {fmt.name} instruction needs {fmt.width // 8} bytes, got {size}")
    plan = table.plan(fmt, word)
    if plan is None:
        if word == 0 and not table.has_illegal:
            # LLVM's v_illegal (isa.mnemonics.LLVM_PSEUDO): the all-zero dword
            return Instruction((ILLEGAL,), fmt, {}, size=4)
        raise DecodeError(f"offset 0x{offset:x}: 0x{word:08x} is a {fmt.name} encoding with an opcode "
                          f"{spec.arch} does not define")
    fmt, nbytes = plan.fmt, plan.width // 8
    value = word if nbytes == 4 else int.from_bytes(data[offset:offset + nbytes], "little")
    inst = Instruction(plan.defs, fmt, plan.fields_of(value), size=nbytes)
    f = inst.fields
    if plan.nsa_capable and f.get("NSA"):
        if size < 12:
            raise DecodeError(f"offset 0x{offset:x}: MIMG NSA instruction needs 12 bytes")
        nsa = int.from_bytes(data[offset + 8:offset + 12], "little")
        inst.extra = {n: (nsa >> (lo - 64)) & 0xff for n, hi, lo in fmt.fields if lo >= 64}
        inst.size = 12
    end = offset + inst.size
    kind = plan.dpp_codes.get(f.get("SRC0")) if plan.dpp_codes else None
    if kind is not None:
        if plan.always_literal:     # its constant K is a literal dword, which DPP/SDWA's word displaces
            raise DecodeError(f"offset 0x{offset:x}: {plan.defs[0].name.lower()} has no {kind} form (its "
                              f"constant K is a literal): SRC0 = 0x{f['SRC0']:x} is not an operand of it")
        rule = plan.no_sdwa if kind == "SDWA" else plan.no_dpp     # (CDNA's SDWA; DPP, RDNA's DPP16/DPP8)
        if rule is not None:
            raise DecodeError(f"offset 0x{offset:x}: {plan.defs[0].name.lower()} has no {kind} form in the "
                              f"{fmt.name} encoding (the manual's {'SDWA' if kind == 'SDWA' else 'DPP'} rule: "
                              f"{rule[0]}, page {rule[1]}): SRC0 = 0x{f['SRC0']:x} is not an operand of it")
        if size < inst.size + 4:
            raise DecodeError(f"offset 0x{offset:x}: {fmt.name} DPP instruction is truncated")
        word2 = int.from_bytes(data[end:end + 4], "little")
        if fmt.name == "VOPC" and kind + "B" in spec.formats:   # CDNA's SDWAB: SDWA with an SDST
            kind += "B"
        inst.dpp = {n: (word2 >> (lo - 32)) & ((1 << (hi - lo + 1)) - 1) for n, hi, lo in spec.formats[kind].fields}
        inst.dpp_kind = kind
        inst.size += 4
        return inst
    if not plan.always_literal:
        for n in plan.literal_fields:
            if f.get(n) == plan.literal_code:
                break
        else:
            return inst
    if size < inst.size + 4:
        raise DecodeError(f"offset 0x{offset:x}: {plan.defs[0].name.lower()} needs a 32-bit literal, "
                          f"the data ends")
    inst.literal = int.from_bytes(data[end:end + 4], "little")
    inst.size += 4
    return inst

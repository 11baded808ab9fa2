"""Bytes -> Instruction: split an instruction into its format's fields.

An Instruction is the common currency of dsl/: the decoder produces it, the
encoder (encode.py) packs it, the printer (printer.py) turns it into LLVM text."""
from __future__ import annotations

from dataclasses import dataclass, field

from isa import Format, InstrDef, Spec

from .signature import valu_signature, vopd_base

LITERAL, DPP16, DPP8, DPP8FI = 255, 250, 233, 234
VALU_E32 = ("VOP1", "VOP2", "VOPC")
VALU_E64 = ("VOP3", "VOP3SD", "VOP3P")


ILLEGAL = InstrDef("V_ILLEGAL", "VOP2", 0, None, "LLVM's trap-on-execute filler (all-zero dword)")


class DecodeError(ValueError):
    """Bytes that are not an instruction of this architecture (the message names the offset)."""


@dataclass
class Instruction:
    defs: tuple[InstrDef, ...]          # one instruction, or VOPD's X and Y
    fmt: Format
    fields: dict[str, int]
    literal: int | None = None          # the 32-bit literal dword, if any
    dpp: dict[str, int] | None = None   # fields of the DPP16 / DPP8 dword
    dpp_kind: str | None = None         # 'DPP16' or 'DPP8'
    extra: dict[str, int] = field(default_factory=dict)  # MIMG NSA address dword
    size: int = 4

    @property
    def name(self) -> str:
        return self.defs[0].name


def _fields(fmt: Format, value: int, width: int) -> dict[str, int]:
    return {n: (value >> lo) & ((1 << (hi - lo + 1)) - 1) for n, hi, lo in fmt.fields
            if n != "ENCODING" and hi < width}


def literal_fields(inst_fmt: str, d: InstrDef | None) -> tuple[str, ...]:
    """The 9-bit source fields that can select the literal constant (code 255)."""
    return {"SOP2": ("SSRC0", "SSRC1"), "SOPC": ("SSRC0", "SSRC1"), "SOP1": ("SSRC0",),
            "VOP1": ("SRC0",), "VOP2": ("SRC0",), "VOPC": ("SRC0",), "VOP3": ("SRC0", "SRC1", "SRC2"),
            "VOP3SD": ("SRC0", "SRC1", "SRC2"), "VOP3P": ("SRC0", "SRC1", "SRC2"),
            "VOPD": ("SRCX0", "SRCY0"), "MUBUF": ("SOFFSET",), "MTBUF": ("SOFFSET",)}.get(inst_fmt, ())


def needs_literal(inst: Instruction, spec: Spec) -> bool:
    f = inst.fmt.name
    if any(inst.fields.get(n) == LITERAL for n in literal_fields(f, None)) and \
            not inst.name.startswith("S_SENDMSG_RTN"):   # its SSRC0 is a message number
        return True
    if f == "SOP2" and "SIMM32" in (inst.defs[0].pcode or ""):
        return True
    if f == "SOPK" and inst.name == "S_SETREG_IMM32_B32":
        return True
    return any(valu_signature(vopd_base(spec, d)).k_pos is not None for d in inst.defs
               if d.format in ("VOP2", "VOPD"))


def decode_one(spec: Spec, data: bytes, offset: int = 0) -> Instruction:
    """Decode the instruction at data[offset:]. DecodeError if it is not one."""
    view = data[offset:]
    try:
        fmt, defs = spec.identify(view)
    except ValueError as e:
        raise DecodeError(f"offset 0x{offset:x}: {e}") from None
    if not defs and view[:4] == b"\0\0\0\0" and "V_ILLEGAL" not in {d.name for d in spec.instructions}:
        # LLVM's v_illegal (isa.mnemonics.LLVM_PSEUDO): the all-zero dword
        inst = Instruction((ILLEGAL,), fmt, {}, size=4)
        return inst
    if not defs:
        word = int.from_bytes(view[:4], "little")
        raise DecodeError(f"offset 0x{offset:x}: 0x{word:08x} is a {fmt.name} encoding with an opcode "
                          f"{spec.arch} does not define")
    width = fmt.width
    if fmt.name == "MIMG":
        width = 64
    value = int.from_bytes(view[: width // 8], "little")
    inst = Instruction(tuple(defs), fmt, _fields(fmt, value, width), size=width // 8)
    f = fmt.name
    if f == "MIMG" and inst.fields.get("NSA"):
        if len(view) < 12:
            raise DecodeError(f"offset 0x{offset:x}: MIMG NSA instruction needs 12 bytes")
        nsa = int.from_bytes(view[8:12], "little")
        inst.extra = {n: (nsa >> (lo - 64)) & 0xff for n, hi, lo in fmt.fields if lo >= 64}
        inst.size = 12
    src0 = inst.fields.get("SRC0")
    if (f in VALU_E32 or f in VALU_E64) and src0 in (DPP16, DPP8, DPP8FI):
        if len(view) < inst.size + 4:
            raise DecodeError(f"offset 0x{offset:x}: {f} DPP instruction is truncated")
        kind = "DPP16" if src0 == DPP16 else "DPP8"
        word = int.from_bytes(view[inst.size: inst.size + 4], "little")
        dfmt = spec.formats[kind]
        inst.dpp = {n: (word >> (lo - 32)) & ((1 << (hi - lo + 1)) - 1) for n, hi, lo in dfmt.fields}
        inst.dpp_kind = kind
        inst.size += 4
    elif needs_literal(inst, spec):
        if len(view) < inst.size + 4:
            raise DecodeError(f"offset 0x{offset:x}: {defs[0].name.lower()} needs a 32-bit literal, "
                              f"the data ends")
        inst.literal = int.from_bytes(view[inst.size: inst.size + 4], "little")
        inst.size += 4
    return inst

"""Bytes -> LLVM-syntax text, one instruction per line."""
from __future__ import annotations

import warnings

import isa

from . import families, syntax
from .asm_parse import collector_paused
from .decode import DecodeError, Instruction, decode_one
from .field_values import code_table
from .instr import Instr
from .instr_fields import direct_instr
from .instr_fields_gfx9 import gfx9_instr
from .instr_text import instr_text
from .syntax_gfx9 import NO_VOP3_FORM


class DisassemblyWarning(UserWarning):
    """Bytes that do not decode; they are printed as .long and decoding continues."""


def disassemble(data: bytes, arch: str, wave_size: int | None = None, *, offsets: bool = False) -> str:
    """LLVM-syntax text of `data` for `arch` (e.g. 'gfx1100'); `wave_size` defaults to the
    arch's (32 on RDNA) and decides how VCC operands print, as LLVM's +wavefrontsize64 does.
    Undecodable dwords become `.long 0x...` with a DisassemblyWarning."""
    lines = disassemble_lines(data, arch, wave_size, keep=False)
    if offsets:
        return "\n".join(f"{text:<60s} // {pos:06X}" for pos, _, text, _ in lines)
    return "\n".join(text for _, _, text, _ in lines)


def disassemble_lines(data: bytes, arch: str, wave_size: int | None = None, *, keep: bool = True) -> list[tuple]:
    """(offset, size, text, Instruction or None) of each instruction of `data`, as
    `disassemble` prints them (None for undecodable bytes, and for every line without `keep`)."""
    spec = families.load_for_disassembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    if wave not in spec.traits.wave_sizes:
        raise ValueError(f"wave_size must be one of {', '.join(map(str, spec.traits.wave_sizes))} for {arch}, "
                         f"got {wave}")
    data = bytes(data)
    out = []
    with collector_paused():    # (an Instr per instruction, no reference cycles)
        _disassemble_into(out, spec, data, wave, keep)
    return out


def instruction_text(spec: isa.Spec, inst: Instruction, wave: int, offset: int = 0) -> str:
    """LLVM's text of a decoded Instruction: its Instr's (decode_instr's value) printed by
    instr_text.py, in every dialect. DecodeError for operand codes the assembly syntax has no
    value for."""
    return instr_text(instr_of(spec, inst, wave, offset), spec)


def _disassemble_into(out: list, spec: isa.Spec, data: bytes, wave: int, keep: bool) -> None:
    # (without `keep` each decoded instruction is freed as soon as it is printed: kept, the
    # collector, paused meanwhile, would walk them all once it runs again)
    pos, end = 0, len(data)
    while pos < end:
        if end - pos < 4:
            tail = data[pos:]
            warnings.warn(f"offset 0x{pos:x}: {len(tail)} trailing byte(s) are not an instruction",
                          DisassemblyWarning, stacklevel=4)
            out.append((pos, len(tail), ".byte " + ", ".join(f"0x{b:02x}" for b in tail), None))
            break
        try:
            inst = decode_one(spec, data, pos)
            text = instr_text(instr_of(spec, inst, wave, pos), spec)
            out.append((pos, inst.size, text, inst if keep else None))
            pos += inst.size
        except DecodeError as e:
            warnings.warn(str(e), DisassemblyWarning, stacklevel=4)
            out.append((pos, 4, f".long 0x{int.from_bytes(data[pos:pos + 4], 'little'):08x}", None))
            pos += 4


def decode_instr(data: bytes, arch: str, wave_size: int | None = None, offset: int = 0) -> tuple[Instr, int]:
    """(Instr, size in bytes) of the instruction at data[offset:]: the same value the text
    parser gives for its printed text (operands and modifiers in text order), with `defn` and
    `encoding` filled in as an encoder fills them, so that decoding bytes and parsing their
    disassembly compare equal and the Instr encodes back to the bytes. Built straight from the
    decoded fields (instr_fields.py; instr_fields_gfx9.py for the gfx9 dialect, CDNA3/CDNA4).
    DecodeError if the bytes are not an instruction, or name an operand code the assembly
    syntax has no value for (a reserved register code)."""
    spec = families.load_for_disassembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    inst = decode_one(spec, bytes(data), offset)
    return instr_of(spec, inst, wave, offset), inst.size


def instr_of(spec: isa.Spec, inst: Instruction, wave: int, offset: int = 0) -> Instr:
    """The Instr of a decoded Instruction (see decode_instr)."""
    if spec.traits.dialect == "gfx9" and inst.name in NO_VOP3_FORM and inst.fmt.name in spec.traits.roles.valu_e64:
        raise DecodeError(f"offset 0x{offset:x}: {inst.name.lower()} in {inst.fmt.name}: the assembly syntax has "
                          f"no VOP3 form of it (isa.syntax_conventions.NO_VOP3_FORM; LLVM: invalid encoding)")
    try:
        x = gfx9_instr(spec, inst) if spec.traits.dialect == "gfx9" else direct_instr(spec, inst, wave)
    except DecodeError as e:     # fields no text can say (a builder's refusal): where they are
        raise DecodeError(f"offset 0x{offset:x}: {e}") from None
    if x is None:
        field = _field_without_value(spec, inst)
        where = f" ({field} = {inst.fields[field]})" if field else ""
        raise DecodeError(f"offset 0x{offset:x}: {inst.name.lower()}: an operand code{where} has no value in "
                          f"the assembly syntax (a reserved register code)")
    return x


def _field_without_value(spec: isa.Spec, inst: Instruction) -> str | None:
    """The source field of `inst` whose code the format's operand table leaves without a value
    (a reserved code), for the error; None if the culprit is elsewhere."""
    fmt = inst.fmt.name
    for field in spec.operands.get(fmt, {}):
        code = inst.fields.get(field)
        if code is None or code >= spec.traits.vgpr_base and field.startswith("SRC"):
            continue
        entry = code_table(spec, fmt, field).get(code)
        if (entry is None or entry[:2] == ("special", "RESERVED")) and code not in syntax.RESERVED_SRC_NAMES:
            return field
    return None

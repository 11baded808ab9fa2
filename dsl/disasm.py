"""Bytes -> LLVM-syntax text, one instruction per line."""
from __future__ import annotations

import warnings
from dataclasses import replace

import isa

from . import families
from .asm_parse import collector_paused, parse
from .decode import DecodeError, Instruction, decode_one
from .instr import Instr
from .instr_fields import direct_instr
from .instr_text import instr_text
from .printer import print_instruction
from .printer_gfx9 import print_instruction as print_gfx9


class DisassemblyWarning(UserWarning):
    """Bytes that do not decode; they are printed as .long and decoding continues."""


def disassemble(data: bytes, arch: str, wave_size: int | None = None, *, offsets: bool = False) -> str:
    """LLVM-syntax text of `data` for `arch` (e.g. 'gfx1100'); `wave_size` defaults to the
    arch's (32 on RDNA) and decides how VCC operands print, as LLVM's +wavefrontsize64 does.
    Undecodable dwords become `.long 0x...` with a DisassemblyWarning."""
    lines = disassemble_lines(data, arch, wave_size)
    if offsets:
        return "\n".join(f"{text:<60s} // {pos:06X}" for pos, _, text, _ in lines)
    return "\n".join(text for _, _, text, _ in lines)


def disassemble_lines(data: bytes, arch: str, wave_size: int | None = None) -> list[tuple]:
    """(offset, size, text, Instruction or None) of each instruction of `data`, as
    `disassemble` prints them (None for undecodable bytes)."""
    spec = families.load_for_disassembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    if wave not in spec.traits.wave_sizes:
        raise ValueError(f"wave_size must be one of {', '.join(map(str, spec.traits.wave_sizes))} for {arch}, "
                         f"got {wave}")
    data = bytes(data)
    out = []
    with collector_paused():    # (an Instr per instruction, no reference cycles)
        _disassemble_into(out, spec, data, wave)
    return out


def instruction_text(spec: isa.Spec, inst: Instruction, wave: int) -> str:
    """LLVM's text of a decoded Instruction: its Instr's (instr_text.py) where decode_instr builds
    that from the fields, else the raw-field printer's (the formats still read back from text)."""
    direct = direct_instr(spec, inst, wave)
    if direct is not None:
        return instr_text(direct, spec)
    return (print_gfx9 if spec.traits.dialect == "gfx9" else print_instruction)(spec, inst, wave)


def _disassemble_into(out: list, spec: isa.Spec, data: bytes, wave: int) -> None:
    printer = print_gfx9 if spec.traits.dialect == "gfx9" else print_instruction
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
            direct = direct_instr(spec, inst, wave)
            text = printer(spec, inst, wave) if direct is None else instr_text(direct, spec)
            out.append((pos, inst.size, text, inst))
            pos += inst.size
        except DecodeError as e:
            warnings.warn(str(e), DisassemblyWarning, stacklevel=4)
            out.append((pos, 4, f".long 0x{int.from_bytes(data[pos:pos + 4], 'little'):08x}", None))
            pos += 4


def decode_instr(data: bytes, arch: str, wave_size: int | None = None, offset: int = 0) -> tuple[Instr, int]:
    """(Instr, size in bytes) of the instruction at data[offset:]: the same value the text
    parser gives for its printed text (operands and modifiers in text order), with `defn` and
    `encoding` filled in as an encoder fills them, so that decoding bytes and parsing their
    disassembly compare equal and the Instr encodes back to the bytes. DecodeError if the bytes
    are not an instruction. RDNA's scalar ALU formats (SOP1, SOP2, SOPC, SOPK, SOPP, bar the
    immediates printed as expressions), VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P without DPP (bar WMMA
    and v_fma_mix), VOPD, RDNA's DS/VDS (bar ds_swizzle_b32) and RDNA3's SMEM, FLAT/GLOBAL/SCRATCH
    and MUBUF are built straight from the decoded fields (instr_fields.py); every other format
    (WMMA, v_fma_mix, DPP, MTBUF, MIMG, VINTERP, LDSDIR, EXP, RDNA4's SMEM and
    VBUFFER/VFLAT/VGLOBAL/VSCRATCH/VIMAGE, all of CDNA) is still read back from its printed
    text."""
    spec = families.load_for_disassembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    inst = decode_one(spec, bytes(data), offset)
    return instr_of(spec, inst, wave), inst.size


def instr_of(spec: isa.Spec, inst: Instruction, wave: int) -> Instr:
    """The Instr of a decoded Instruction (see decode_instr): from its fields where
    instr_fields covers the format, else from its text."""
    direct = direct_instr(spec, inst, wave)
    if direct is not None:
        return direct
    return instr_of_text(spec, inst, wave)


def instr_of_text(spec: isa.Spec, inst: Instruction, wave: int) -> Instr:
    """The Instr of a decoded Instruction read back from its printed text (any format)."""
    printer = print_gfx9 if spec.traits.dialect == "gfx9" else print_instruction
    text = printer(spec, inst, wave)
    items = parse(text)
    if len(items) != 1 or type(items[0]) is not Instr:
        raise DecodeError(f"{inst.name.lower()}: its text {text!r} does not read back as one instruction")
    x = items[0]
    if x.mnemonic == "v_illegal":
        return x
    defs = inst.defs
    dual = x.dual
    if dual is not None and len(defs) > 1:
        dual = replace(dual, defn=defs[1], encoding=defs[1].format)
    return replace(x, defn=defs[0], encoding=defs[0].format, dual=dual, line=0, column=0)

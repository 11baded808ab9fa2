"""GFX9 SDWA (CDNA3 manual 13.3.7 SDWA, 13.3.8 SDWAB): the second dword of a VOP1/VOP2/VOPC
instruction whose SRC0 code is SDWA selects a byte, word or the dword of each source (zero-
or sign-extended) and where the result goes in the destination VGPR.

Select codes: 4 = data[15:0], 5 = data[31:16], 6 = data[31:0] (the field table); 0-3 are the
bytes BYTE0..BYTE3 the instructions' pseudocode names (V_CVT_F32_UBYTE1: SDWA_SRC0_SEL ==
BYTE1), as LLVM encodes BYTE_0..BYTE_3. DST_U: 0 pads the unselected bits with zeros, 1 sign
extends above the field (zeros below), 2 preserves them.
"""
from __future__ import annotations

import numpy as np

from .machine_operands import OperandError

# select code -> (shift, width)
SELECTS = {0: (0, 8), 1: (8, 8), 2: (16, 8), 3: (24, 8), 4: (0, 16), 5: (16, 16), 6: (0, 32)}
PAD, SEXT, PRESERVE = 0, 1, 2


class SdwaError(OperandError):
    """An operand selection the machine cannot make (an OperandError: preparing names the instruction)."""


def _select(sel: int) -> tuple[int, int]:
    if sel not in SELECTS:
        raise SdwaError(f"SDWA select {sel} is reserved")
    return SELECTS[sel]


def source_code(word: dict, i: int, vsrc: int, vgpr_base: int) -> int:
    """The 9-bit operand code of source i: the SDWA dword's SRC0 (i = 0) or the VOP2/VOPC VSRC1
    field, a VGPR unless S0/S1 says SGPR (then the 8-bit value is the scalar operand code)."""
    reg = word["SRC0"] if i == 0 else vsrc
    return reg if word[f"S{i}"] else vgpr_base + reg


def select_source(fetch, word: dict, i: int):
    """A reader of source i's selected field, zero- or sign-extended (SRCn_SEXT) to 32 bits."""
    shift, width = _select(word[f"SRC{i}_SEL"])
    if width == 32:
        return fetch
    sext = bool(word[f"SRC{i}_SEXT"])
    mask, top = np.uint32((1 << width) - 1), np.uint32(1 << (width - 1))

    def read(st, sel):
        v = (np.asarray(fetch(st, sel)).astype(np.uint32) >> np.uint32(shift)) & mask
        return (v ^ top) - top if sext else v          # two's complement sign extension in uint32
    return read


def place_result(word: dict, bits: int):
    """post(value, old) -> the destination dword: the result's low bits in the DST_SEL field,
    the other bits padded, sign-extended or preserved (DST_U)."""
    shift, width = _select(word["DST_SEL"])
    unused = word["DST_U"]
    if unused not in (PAD, SEXT, PRESERVE):
        raise SdwaError(f"SDWA DST_U {unused} is reserved")
    if width == 32 and bits >= 32:
        return None
    field = np.uint32(((1 << width) - 1) << shift)
    top = np.uint32(1 << (shift + width - 1))

    def post(value, old):
        v = (np.asarray(value).astype(np.uint32) << np.uint32(shift)) & field
        if unused == PRESERVE:
            return (np.asarray(old) & ~field) | v
        if unused == SEXT and shift + width < 32:
            above = np.uint32(0xFFFFFFFF) & ~np.uint32((1 << (shift + width)) - 1)
            return np.where(v & top, v | above, v)
        return v
    return post

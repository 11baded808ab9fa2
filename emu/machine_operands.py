"""Operand codes -> values: how one source field of a decoded instruction is read.

A source is prepared once per instruction (per PC) into a `Fetch`: a small callable
`fetch(state, sel) -> array` that reads the registers of a batch of waves. Constants
(inline constants, literals, apertures) become numpy scalars shaped (1, 1) that
broadcast over the batch. All rules come from the ISA's operand-code tables
(`spec.operands[fmt][field]`): the kind of each code range (sgpr, special, int, float,
literal, vgpr) and its value.
"""
from __future__ import annotations

import numpy as np

from .memory import APERTURE_SIZE, PRIVATE_APERTURE, SHARED_APERTURE
from .options import current
from .wave import CODES, SCALAR_CODES, SCC_CODE, VGPR_BASE

SIGN = {16: 0x8000, 32: 0x8000_0000, 64: 0x8000_0000_0000_0000}
APERTURES = {"SHARED_BASE": SHARED_APERTURE, "SHARED_LIMIT": SHARED_APERTURE + APERTURE_SIZE - 1,
             "PRIVATE_BASE": PRIVATE_APERTURE, "PRIVATE_LIMIT": PRIVATE_APERTURE + APERTURE_SIZE - 1}


class OperandError(Exception):
    """An operand code the machine cannot read (reserved code, register out of range)."""


def constant(value: int, bits: int) -> np.ndarray:
    """A per-batch constant: shape (1, 1), uint32 or uint64."""
    return np.full((1, 1), value & ((1 << bits) - 1) if bits <= 64 else value,
                   np.uint64 if bits == 64 else np.uint32)


class SourceCodes:
    """The 9-bit source-operand code table of one architecture (the VOP3 SRC0 field's, whose
    codes are a superset of the scalar ones), resolved to readers."""

    def __init__(self, spec):
        self.rows = spec.operands[spec.traits.source_format]["SRC0"]
        self.null = spec.traits.null
        self.floats = spec.traits.inline_float_bits     # {format: {code: bits}}

    def row(self, code: int):
        for row in self.rows:
            if row[0] <= code <= row[1]:
                return row
        raise OperandError(f"operand code {code} is reserved")

    def fetch(self, code: int, bits: int, ftype: str, literal: int | None, *, signed: bool = False,
              half: int = 0, vgprs: int = CODES.vgprs, per_lane: bool = False, packed: bool = False,
              bf16: bool = False, replicate: bool = False):
        """A reader for source `code` holding a `bits`-wide value of type `ftype` ('f', 'i', 'u',
        'b'). half=1 reads bits 31:16 of a 32-bit register (16-bit operands). packed: two 16-bit
        elements in a dword, bf16: the elements are bf16 (see `inline_16`). per_lane: the
        instruction computes per lane, so a scalar register that holds the same value in
        every wave of the batch is read as one (1, 1) value, like a constant (numpy combines
        a (W, 1) array with a (W, L) one 3-4 times slower than a (1, 1) one)."""
        lo, hi, kind, base, _ = self.row(code)
        dwords = 2 if bits == 64 else 1
        if kind == "vgpr":
            reg = code - VGPR_BASE
            if reg + dwords > vgprs:
                raise OperandError(f"v{reg} is beyond the {vgprs} VGPRs the kernel allocates")
            if bits == 16:
                shift = np.uint32(16 * half)
                return lambda st, sel: (st.vgpr[reg, sel] >> shift) & np.uint32(0xFFFF)
            if dwords == 1:         # WaveState.read_vgprs of one register, without the call
                return lambda st, sel: st.vgpr[reg, sel] if type(sel) is slice else st.vgpr[reg].take(sel, 0)
            return lambda st, sel: st.read_vgprs(sel, reg, dwords)
        if kind in ("sgpr", "ttmp") or (kind == "special" and code < SCALAR_CODES):
            # special registers with a scalar code (VCC, M0, EXEC, FLAT_SCRATCH, XNACK_MASK) are rows of the SGPR file
            if code == self.null:
                return _const(0, bits)
            if bits == 16:
                shift = np.uint32(16 * half)
                read = lambda st, sel: (st.sreg(sel, code) >> shift) & np.uint32(0xFFFF)
            elif per_lane and dwords <= 2:       # one (1, 1) value when every wave of the batch holds it
                return lambda st, sel: st.read_sgprs(sel, code, dwords, uniform=True)
            else:
                read = lambda st, sel: st.read_sgprs(sel, code, dwords)
            return (lambda st, sel: uniform(read(st, sel))) if per_lane else read
        if code == SCC_CODE:
            return lambda st, sel: st.scc[sel].astype(np.uint64 if bits == 64 else np.uint32)
        if kind in ("int", "float") and (packed or bits == 16):
            return _const(inline_16(kind, base, code - lo, bf16, replicate, self.floats, code), 32)
        if kind == "int":
            value = base + (code - lo) if base >= 0 else base - (code - lo)
            return _const(value, bits)
        if kind == "float":
            return _const(self.floats[bits if bits in (16, 32, 64) else 32][code], bits)
        if kind == "literal":
            if literal is None:
                raise OperandError("literal operand without a literal dword")
            if bits == 64:
                value = literal << 32 if ftype == "f" else \
                    literal - (1 << 32) if (signed and literal & 0x8000_0000) else literal
            else:
                value = literal
            return _const(value, bits)
        if kind == "special" and base in APERTURES:
            value = APERTURES[base]
            return _const(value if bits == 64 else value >> 32, bits)
        raise OperandError(f"operand code {code} ({base}) cannot be read as a source")


def inline_16(kind: str, base, step: int, bf16: bool, replicate: bool, floats: dict, code: int) -> int:
    """An inline constant read by a 16-bit or packed 16-bit operand (RDNA3 manual 7.5.1,
    "Inline Constants with Packed Math", p. 67): the value sits in bits 15:0 with zeros above;
    an integer keeps its low 16 bits, a float is its f16 value, for bf16 the upper half of the
    f32 value. `replicate`: also in bits 31:16 (DOT2_F16_F16 / DOT2_BF16_BF16 sources 0 and 1,
    manual 7.2.1). `floats`: the inline floats' bits per format (isa Traits.inline_float_bits),
    `code` the float's operand code."""
    if kind == "int":
        value = (base + step if base >= 0 else base - step) & 0xFFFF
    else:
        value = floats["bf16" if bf16 else 16][code]
    return value | value << 16 if replicate else value


def uniform(value: np.ndarray) -> np.ndarray:
    """A per-wave (W, 1) value as (1, 1) when every wave holds the same value (one pass
    over W elements, not W * L)."""
    if value.ndim == 2 and value.shape[0] > 1 and value.shape[1] == 1 and current().uniform_sgprs \
            and (value == value[0, 0]).all():
        return value[:1]
    return value


def _const(value: int, bits: int):
    c = constant(value, 64 if bits == 64 else 32)
    if bits == 16:
        c = c & np.uint32(0xFFFF)
    return lambda st, sel: c


def modifiers(value: np.ndarray, bits: int, neg: bool, abs_: bool) -> np.ndarray:
    """Float input modifiers on raw bits: |x| clears, -x flips the sign bit."""
    if not (neg or abs_):
        return value
    sign = value.dtype.type(SIGN[bits])
    if abs_:
        value = value & ~sign
    if neg:
        value = value ^ sign
    return value


def sign_extend(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


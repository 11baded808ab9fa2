"""The per-instruction plan of a decoded VALU instruction, shared by the printer (printer.py,
printer_gfx9.py) and instr_fields.py (the Instr from the fields), worked out once per
(instruction, encoding, DPP or not, wave size): LLVM's mnemonic, the operand signature, and for
each source its register count and the rules a literal or inline constant is read with."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from isa import Spec
from isa.effects import effects

from . import syntax
from .encode import valu_signature      # the encoder's memoised form
from .signature import Operand, ValuSig, matrix_regs


def packed_kind(d, op: Operand) -> str:
    """'' or which 16-bit halves a packed operand holds, for its literal rules."""
    if not op.packed:
        return ""
    if op.bf16 or d.name in syntax.NO_F16_INLINE:
        return "bf16"
    return "f16" if op.is_float else "int"


def float_value(op: Operand) -> bool:
    """Whether literals follow the float rules (not for integers with float modifiers, bf16)."""
    return op.is_float and not op.int_value and not op.bf16


def value_bits(op: Operand) -> int:
    """16, 32 or 64: the width a literal is read at."""
    return 16 if op.t16 else 64 if op.dwords == 2 else 32


@cache
def mnemonic_of(d, spec: Spec, enc: str, dpp: bool) -> str:
    """LLVM's mnemonic: the encoding suffix only where the instruction has both e32 and e64 forms."""
    base = d.name.lower()
    if d.name in syntax.NO_ENC_SUFFIX:
        return base
    forms = {x.format for x in spec.lookup(d.name)}
    has_e32 = bool(forms & spec.traits.roles.valu_e32)
    has_e64 = bool(forms & {"VOP3", "VOP3SD"})
    if enc == "e32":
        if dpp:
            return base if d.format == "VOPC" else base + "_dpp"
        return base + "_e32" if has_e64 else base
    if dpp:
        return base + "_e64_dpp"
    return base + "_e64" if has_e32 else base


@dataclass(frozen=True)
class ValuPlan:
    """What printing a VALU instruction needs besides its field values, worked out once per
    (instruction, encoding, DPP or not, wave size): the mnemonic, the signature, and for each
    source its register count and the literal rules src_text reads it with."""
    mn: str
    sig: ValuSig
    e32: bool
    is_p: bool
    is_wmma: bool
    is_mix: bool
    cd_regs: int
    vcc: str                                  # the implicit wave mask's spelling
    srcs: tuple[tuple[Operand, int, int, bool, str, bool], ...]   # (op, regs, bits, is_float, packed, f16_inline)
    opsel_shown: bool                         # not in syntax.NO_OPSEL
    force_mods: bool                          # syntax.FP_MODS: integer operands that take float modifiers
    t16_regs: bool                            # 16-bit operands print as VGPR halves (syntax.TRUE16_FAMILIES)
    matrix: tuple[bool, ...] = ()             # per source: a matrix operand (WMMA A, B, C)
    wide_constants: bool = False              # RDNA3 WMMA: C's inline floats spelled as a 64-bit operand's


@cache
def valu_plan(d, spec: Spec, fmt: str, dpp: bool, wave: int) -> ValuPlan:
    """The plan of instruction `d` in format `fmt` (with a DPP word or not) at wave size `wave`."""
    sig = valu_signature(d)
    e32 = fmt in spec.traits.roles.valu_e32
    is_wmma = effects(d.pcode).matrix     # (MxN) operands: WMMA / SWMMAC
    regs = matrix_regs(d, wave, spec.arch) if is_wmma else {}
    srcs, matrix = [], []
    for i, op in enumerate(sig.srcs):
        n = op.dwords if e32 else regs.get(f"S{i}", 1) if is_wmma else op.regs(wave)
        matrix.append(f"S{i}" in regs)
        srcs.append((op, n, value_bits(op), float_value(op), packed_kind(d, op), not op.bf16))
    return ValuPlan(mnemonic_of(d, spec, "e32" if e32 else "e64", dpp), sig, e32, fmt == "VOP3P", is_wmma,
                     d.name.startswith("V_FMA_MIX"), regs.get("D0", 0), "vcc" if wave == 64 else "vcc_lo",
                     tuple(srcs), d.name not in syntax.NO_OPSEL, d.name in syntax.FP_MODS,
                     spec.arch in syntax.TRUE16_FAMILIES, tuple(matrix),
                     is_wmma and spec.arch in syntax.WMMA_REPLICATED)

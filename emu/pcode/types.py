"""Static types of the pseudocode translator and the tree shapes its parts recognise.

Every expression is translated to (python source, static type). Types are Ty(kind, bits):
kind 'u' (unsigned/bit), 'i' (signed), 'f' (float), 'bool', 'lit' (a weakly typed Python
constant that takes the type of the other operand), 'wide' (> 64 bits, object ints) or
'dw' (an operand wider than 64 bits held as uint32 dwords).
"""
from __future__ import annotations

import re

from lark import Tree

from isa.records import dataclass

from ..semantics import SemanticsError

# operands the machine supplies (emu/README.md, "Semantics contract")
OPERANDS = {"S0", "S1", "S2", "D0", "D1", "SCC", "VCC", "EXEC", "M0", "PC", "ADDR", "ADDR_BASE", "DATA", "DATA2",
            "VDATA", "SDATA", "RETURN_DATA", "SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1", "SRC0", "SRC1", "VDST",
            "DST", "DATA0", "DATA1", "OPSEL", "OPSEL_HI", "NEG", "NEG_HI", "SDWA_SRC0_SEL"}
# instruction-word fields, passed as Python ints (OPSEL..NEG_HI: the raw VOP3P modifier bits,
# for the instructions whose pseudocode interprets them itself: v_fma_mix*, v_dot*_iu*)
INT_FIELDS = {"SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1", "SRC0", "SRC1", "VDST", "DST", "DATA0", "DATA1",
              "OPSEL", "OPSEL_HI", "NEG", "NEG_HI", "SDWA_SRC0_SEL"}
# GFX9 SDWA's select codes (CDNA3 13.3.7's SRC0_SEL field, emu/machine_sdwa.py), which CDNA's
# fp8/bf8 -> f32 conversions compare SDWA_SRC0_SEL with (the machine supplies DWORD outside SDWA)
SDWA_SELECTS = {"BYTE0": 0, "BYTE1": 1, "BYTE2": 2, "BYTE3": 3, "WORD0": 4, "WORD1": 5, "DWORD": 6}
# DS's data fields, which the code uses two ways: as register numbers where it indexes the
# VGPRs by them (ds_bpermute_b32: VGPR[src_lane][DATA0]), else as the registers' values
# (ds_store_addtid_b32: MEM[...] = DATA0.u), which the machine supplies as it does DATA / DATA2
DATA_FIELDS = {"DATA0", "DATA1"}
# `declare S : 32'B[n]` names the instruction's sources: S[i] is Si (v_fma_mix*)
SOURCE_ARRAY = "S"
LANE_MASKS = {"VCC", "EXEC", "D0", "D1"}
# The manual's address calculations (CDNA3: `addr = CalcGlobalAddr(ADDR.b32, SADDR.b32,
# OFFSET.b32)`): the machine computes memory addresses (contract: ADDR is the final byte
# address), so such a call reads ADDR and leaves its arguments (instruction fields) unread.
# CalcDsAddr(ADDR, OFFSET0, OFFSET1) adds the offsets it is given to the address VGPR: the
# machine passes a DS ADDR without the instruction offset to pseudocode that calls it.
# RDNA4 spells the same calls with its field names (`addr = CalcGlobalAddr(v_addr.b64,
# s_saddr.b64)`, CalcGlobalAddr(sgpr_base.b64, offset.b64) for SMEM, CalcBufferAddr for
# VBUFFER and S_BUFFER_LOAD): ADDR likewise, its IOFFSET included. Its two-argument
# CalcDsAddr(vgpr_a, offset | 0x0) is ADDR or ADDR_BASE (Expressions.ds_address_operand).
# Its image atomics' `addr = CalcImageAddr(v_addr.b128)` is the texel's address, ADDR
# (emu/image.py computes it from the T# and the address VGPRs, as for RDNA3's MEM[ADDR]).
ADDRESS_FUNCTIONS = {"CalcGlobalAddr", "CalcFlatAddr", "CalcScratchAddr", "CalcBufferAddr",
                     "CalcScalarGlobalAddr", "CalcScalarBufferAddr", "CalcImageAddr"}
DS_ADDRESS_FUNCTION = "CalcDsAddr"
# `INST.<FIELD>`: a field of the instruction word (Ctx input "INST.<FIELD>", an int)
INSTRUCTION_WORD = "INST"
LANE_ID_NAMES = {"laneId", "laneID"}
TYPE_RE = re.compile(r"^(u|i|f|b|bf)(\d+)?$")
DEFAULT_BITS = 32


class Unsupported(SemanticsError):
    """The pseudocode uses a construct the translator does not model."""


@dataclass(frozen=True)
class Ty:
    kind: str
    bits: int = 64

    def __str__(self):
        return f"{self.kind}{self.bits}"


LIT = Ty("lit", 64)
BOOL = Ty("bool", 1)


def type_of_field(name: str) -> Ty | None:
    if name in ("fp8", "bf8"):          # the family's 8-bit floats: read as their f32 value (F8.fp8_to_f32)
        return Ty(name, 8)
    if name in ("fp6", "bf6", "fp4"):   # CDNA4's 6- and 4-bit floats: their raw codes, which the
        return Ty("u", int(name[2]))    # scaled conversions take and give (rtlib.f32_to_fp6_scale ...)
    m = TYPE_RE.match(name)
    if not m:
        return None
    kind, bits = m.group(1), int(m.group(2) or 32)
    if kind == "bf":
        return Ty("bf", 16)
    return Ty("u" if kind == "b" else kind, bits)


_DECLARED_KINDS = {"U": "u", "B": "u", "I": "i", "F": "f"}


def type_of_decl(text: str) -> Ty:
    bits, k = text.split("'")
    if k not in _DECLARED_KINDS:          # 16'BF(...): a bfloat16 cast (CDNA4's v_cvt_sr_bf16_f32)
        raise Unsupported(f"cast to {text}")
    return Ty(_DECLARED_KINDS[k], int(bits))


@dataclass
class Var:
    ty: Ty
    array: int = 0          # declared `name : T[n]`: a Python list of n values


def is_name(node, names) -> bool:
    return isinstance(node, Tree) and node.data == "name" and str(node.children[0]) in names


def register_numbers(tree: Tree) -> set[str]:
    """Names the code indexes the register files by: in VGPR[lane][...] and SGPR[...]."""
    out = set()
    for node in tree.iter_subtrees():
        if node.data != "index" or not isinstance(node.children[1], Tree):
            continue
        base = node.children[0]
        if is_name(base, {"SGPR"}) or (isinstance(base, Tree) and base.data == "index"
                                       and is_name(base.children[0], {"VGPR"})):
            out |= {str(n.children[0]) for n in node.children[1].iter_subtrees() if n.data == "name"}
    return out


def is_operand(node) -> bool:
    return is_name(node, OPERANDS)


def is_pow2(node) -> bool:
    """`2.0 ** n` / `2.0F ** n`."""
    return (isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "**"
            and isinstance(node.children[0], Tree) and node.children[0].data == "number"
            and str(node.children[0].children[0]).rstrip("F") == "2.0")


def is_const(node) -> bool:
    return isinstance(node, Tree) and node.data == "number"


def is_denorm(node) -> bool:
    return isinstance(node, Tree) and node.data == "field" and is_name(node.children[0], {"DENORM"})

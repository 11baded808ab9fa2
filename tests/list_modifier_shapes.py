"""Lines with list modifiers of the wrong shape, for comparing error columns with llvm-mc-22:
every VOP3/VOP3P base line (tests/test_dsl_vop3_modifier_sweep.py) with op_sel, op_sel_hi,
neg_lo and neg_hi lists too short, too long, empty, unclosed, unbracketed or with an entry not
0/1; every DPP line (tests/test_dsl_dpp_availability_sweep.py's forms on RDNA, `_dpp` with
masks on CDNA) with dpp8 and quad_perm lists of such shapes; byte_sel out of range (gfx1201)."""
from __future__ import annotations

import re

import isa

from .test_dsl_dpp_availability_sweep import base_lines as valu_lines
from .test_dsl_vop3_modifier_sweep import _MODIFIERS, base_lines

BIT_SHAPES = ("[]", "[1]", "[0,1]", "[0,0,1]", "[0,0,0,1]", "[0,0,0,0,1]", "[0,0,0,0,0,1]",
              "[2]", "[0,2]", "[0,0,2]", "[0,0,0,2]", "[0,-1]", "[0,1", "1", "[0,,1]", "[0 1]")
BIT_KEYS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi")
DPP_SHAPES = {"dpp8": ("[0,1,2,3,4,5,6]", "[0,1,2,3,4,5,6,7,0]", "[0,1,2,3,4,5,6,8]", "[0,1,2,3,4,5,6,-1]",
                       "[]", "[0,1,2,3,4,5,6,7", "7"),
              "quad_perm": ("[0,1,2]", "[0,1,2,3,0]", "[0,1,2,4]", "[0,1,-1,3]", "[]", "[0,1,2,3", "3")}
BYTE_SEL = ("byte_sel:4", "byte_sel:-1", "byte_sel:[0,1]", "byte_sel:")
_CDNA_MASKS = " row_mask:0xf bank_mask:0xf"


def vop3_lines(arch: str, every: int = 1) -> list[str]:
    out = []
    for line in [b for b in base_lines(arch) if "/*" not in b][::every]:    # LLVM's note: an operand it refuses
        out += [f"{line} {key}:{shape}" for key in BIT_KEYS for shape in BIT_SHAPES]
        if arch == "gfx1201":
            out += [f"{line} {b}" for b in BYTE_SEL]
    return out


def dpp_lines(arch: str, every: int = 1) -> list[str]:
    cdna = arch.startswith("gfx9")
    e32 = isa.load(arch).traits.roles.valu_e32
    out = []
    for fmt, line in [(f, b) for f, b in valu_lines(arch) if "/*" not in b][::every]:
        mn, _, ops = _MODIFIERS.sub("", line).partition(" ")
        base = re.sub(r"_e(32|64)$", "", mn)
        for key, shapes in DPP_SHAPES.items():
            for shape in shapes:
                if cdna:
                    out.append(f"{base}_dpp {ops} {key}:{shape}{_CDNA_MASKS}")
                else:
                    suffix = "_dpp" if fmt in e32 else "_e64_dpp"
                    out.append(f"{base}{suffix} {ops} {key}:{shape}")
    return list(dict.fromkeys(out))


def shape_lines(arch: str, every: int = 1) -> list[str]:
    return vop3_lines(arch, every) + dpp_lines(arch, every)

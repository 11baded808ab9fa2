"""Exports (RDNA3/3.5's EXP, RDNA4's VEXPORT): LLVM text -> fields, the inverse of
instr_fields_graphics._export. Both formats have the same fields (the manuals' EN, TARGET, DONE,
ROW, VSRC0..VSRC3), so one handler serves every format in `traits.roles.export`; `pack` places
the fields by the generated layout. CDNA has no export format (LLVM 22 (gfx942) refuses
`exp`: instruction not supported on this GPU)."""
from __future__ import annotations

from isa.mnemonics import text_mnemonic

from .operands import OperandError, Special
from .signature import export_targets
from .statement import Attr


def export(enc, d, F, ops, mods):
    """`exp TARGET, vsrc0, vsrc1, vsrc2, vsrc3 [done] [row_en]`: a target the manual names
    (signature.export_targets: mrt0..mrt7, mrtz, pos0..pos4, prim, dual_src_blend0/1), four VGPRs
    or `off` (EN has a bit per VGPR given), then the DONE and ROW flags."""
    mn = text_mnemonic(d.name, enc.spec.arch)
    if len(ops) != 5:
        raise OperandError(f"{mn} takes 5 operands (target, vsrc0, vsrc1, vsrc2, vsrc3), got {len(ops)}",
                           ops[5] if len(ops) > 5 else None)      # LLVM's column: the first extra operand
    codes = {name: code for code, name in export_targets(enc.spec).items()}
    target = ops[0]
    if not isinstance(target, Attr) or target.name not in codes:
        raise OperandError(f"{mn}: target: expected one of {', '.join(codes)}, got {getattr(target, 'name', target)}", target)
    F["TARGET"] = codes[target.name]
    enable = 0
    for i, v in enumerate(ops[1:]):
        if isinstance(v, Special) and v.name == "off":
            continue
        F[f"VSRC{i}"] = enc.vgpr(v, F, f"vsrc{i}")
        enable |= 1 << i
    F["EN"] = enable
    F["DONE"], F["ROW"] = int(bool(mods.pop("done", False))), int(bool(mods.pop("row_en", False)))

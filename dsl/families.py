"""The ISA families the assembler, disassembler and DSL implement.

A family isa/ generates is refused here, with an error naming the supported ones, until its
encodings and LLVM syntax are implemented, so new ISA data is never printed or encoded with
another family's rules. FAMILIES are implemented by every component; the other lists say which
further families each component takes."""
from __future__ import annotations

import isa

FAMILIES = ("rdna3", "rdna3.5")
# families the text assembler encodes: RDNA4's instruction lines go through the same encoder (its
# memory formats through their own handlers)
ASSEMBLER_FAMILIES = FAMILIES + ("rdna4",)
# families the disassembler reads (its printer follows the family's traits dialect: CDNA3 and
# CDNA4 print through the gfx9 printer, whose inverse asm_gfx9.py assembles them)
DISASSEMBLER_FAMILIES = ASSEMBLER_FAMILIES + ("cdna3", "cdna4")
# families the DSL (Kernel, dsl.<family>) writes: RDNA4 through the same encoder as the text
# assembler, the gfx9 syntax generation through kernel_gfx9.py
DSL_FAMILIES = FAMILIES + ("rdna4", "cdna3", "cdna4")


def load(arch: str) -> isa.Spec:
    return isa.load_supported(arch, FAMILIES, "wavesmith's assembler and DSL")


def load_for_dsl(arch: str) -> isa.Spec:
    return isa.load_supported(arch, DSL_FAMILIES, "wavesmith's DSL")


def load_for_assembly(arch: str) -> isa.Spec:
    return isa.load_supported(arch, ASSEMBLER_FAMILIES, "wavesmith's assembler")


def load_for_disassembly(arch: str) -> isa.Spec:
    return isa.load_supported(arch, DISASSEMBLER_FAMILIES, "wavesmith's disassembler")


def gfx9_syntax(arch: str) -> bool:
    """A target whose text is LLVM's gfx9 syntax generation (CDNA3, CDNA4): assembled and printed by
    asm_gfx9.py / instr_fields_gfx9.py, not by the gfx11 assembler and DSL."""
    try:
        family = isa.resolve_arch(arch)
    except ValueError:
        return False
    return family in DISASSEMBLER_FAMILIES and family not in FAMILIES and isa.traits(family).dialect == "gfx9"

"""The ISA families the assembler, disassembler and DSL implement.

A family isa/ generates is refused here, with an error naming the supported ones, until its
encodings and LLVM syntax are implemented (CDNA's SDWA, GFX9 DPP, AGPRs and MFMA modifiers are
not yet), so new ISA data is never printed or encoded with another family's rules."""
from __future__ import annotations

import isa

FAMILIES = ("rdna3", "rdna3.5")
# RDNA4 is disassembled (dsl.disassemble) but not yet assembled: the encoder has no forms for
# its memory formats and cache-policy operands
DISASSEMBLER_FAMILIES = FAMILIES + ("rdna4",)


def load(arch: str) -> isa.Spec:
    return isa.load_supported(arch, FAMILIES, "wavesmith's assembler/disassembler")


def load_for_disassembly(arch: str) -> isa.Spec:
    return isa.load_supported(arch, DISASSEMBLER_FAMILIES, "wavesmith's disassembler")

"""The ISA families the emulator implements (see dsl/families.py for the same rule)."""
from __future__ import annotations

import isa

FAMILIES = ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4")


def load(arch: str) -> isa.Spec:
    return isa.load_supported(arch, FAMILIES, "the emulator")

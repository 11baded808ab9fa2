"""Negated flag modifiers (`noglc`, `notfe`, ...) on memory instructions, as LLVM's assembler takes
them: a cache-policy flag or named bit spelled with `no` is the flag absent. Which ones it takes
depends on the family and format (measured against LLVM 22 by tests/test_dsl_asm_memflags.py):
the cache flags and named bits each format has, and a few whose positive form the target refuses
(gfx11 SMEM's `noslc`, gfx12's `nonv`, gfx12 DS's `nogds`, CDNA SMEM's `noslc`/`noscc`, CDNA DS's
`nogds`, dsl/memflags_gfx9.py). Not `notfe` on buffer
instructions: LLVM 22 takes it only on a load's TFE form and encodes it as `tfe` (TFE=1), against
its spelling, so it is refused here."""
from __future__ import annotations

from .operands import OperandError

_GFX11 = {
    **dict.fromkeys(("FLAT", "GLOBAL", "SCRATCH", "SMEM", "MUBUF", "MTBUF"), ("glc", "slc", "dlc")),
    "DS": ("gds",),
    "MIMG": ("unorm", "glc", "slc", "dlc", "r128", "a16", "tfe", "lwe", "d16"),
}
_GFX12 = {
    **dict.fromkeys(("VFLAT", "VGLOBAL", "VSCRATCH", "SMEM"), ("nv",)),
    "VBUFFER": ("nv",),
    "VDS": ("gds",),
    "VIMAGE": ("nv", "r128", "a16", "tfe", "d16"),
    "VSAMPLE": ("unorm", "nv", "r128", "a16", "tfe", "lwe", "d16"),
}
_GFX9 = {     # CDNA3/CDNA4 (gfx942, gfx950): SMEM's noslc and noscc, DS's nogds where the positive is refused
    **dict.fromkeys(("FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"), ("sc0", "sc1", "nt")),
    "DS": ("gds",),
    "SMEM": ("glc", "slc", "scc"),
}
NEGATABLE = {"rdna3": _GFX11, "rdna3.5": _GFX11, "rdna4": _GFX12, "cdna3": _GFX9, "cdna4": _GFX9}
_ANY = {f for table in NEGATABLE.values() for flags in table.values() for f in flags}


def negatable(family: str, fmt: str) -> tuple[str, ...]:
    """The flags LLVM takes spelled `no<flag>` on this family's `fmt` instructions."""
    return NEGATABLE.get(family, {}).get(fmt, ())


def positive(key: str, family: str, fmt: str) -> str | None:
    """The flag a negated modifier names (`noglc` -> 'glc'), None where `key` is no such modifier."""
    if key.startswith("no") and key[2:] in negatable(family, fmt):
        return key[2:]
    return None


def take_negated(name: str, family: str, fmt: str, mods: dict) -> dict:
    """`mods` without its negated flags (written as flags, no value); a flag given both ways
    (`glc noglc`) is refused, as LLVM refuses it."""
    out = {}
    for key, val in mods.items():
        flag = positive(key, family, fmt)
        if flag is None:
            if key.startswith("no") and key[2:] in _ANY | {"tfe"}:
                why = ("LLVM 22 reads it on a buffer load as tfe (TFE=1), against its spelling: omit the flag"
                       if key == "notfe" and fmt in ("MUBUF", "MTBUF", "VBUFFER") and not family.startswith("cdna") else
                       f"its {fmt} encoding takes " + (", ".join("no" + f for f in negatable(family, fmt)) or "no negated flags")
                       + " (as LLVM's assembler)")
                raise OperandError(f"{name}: {key}: {why}", modifier=key)
            out[key] = val
            continue
        if val is not True:
            raise OperandError(f"{name}: {key}: a flag takes no value, got {key}:{val}", modifier=key)
        if flag in mods:
            raise OperandError(f"{name}: {key}: {flag} is given too (a flag is written once, "
                               f"{flag} or {key})", modifier=key)
    return out

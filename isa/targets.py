"""LLVM processor names and the ISA families (manuals) they belong to."""
from __future__ import annotations

FAMILY_TARGETS: dict[str, tuple[str, ...]] = {
    "rdna3": ("gfx1100", "gfx1101", "gfx1102", "gfx1103"),
    "rdna3.5": ("gfx1150", "gfx1151", "gfx1152"),
    "rdna4": ("gfx1200", "gfx1201"),
    "cdna3": ("gfx940", "gfx941", "gfx942"),
    "cdna4": ("gfx950",),
}
TARGET_FAMILY: dict[str, str] = {t: fam for fam, ts in FAMILY_TARGETS.items() for t in ts}
FAMILY_ALIASES = {"rdna3_5": "rdna3.5", "gfx11": "rdna3", "gfx115": "rdna3.5", "gfx12": "rdna4"}
WAVE_SIZE = {"rdna3": 32, "rdna3.5": 32, "rdna4": 32, "cdna3": 64, "cdna4": 64}


_RESOLVED: dict[str, str] = {}          # target -> family, for the names seen (asked per instruction)


def resolve_arch(target: str) -> str:
    """'gfx1151' -> 'rdna3.5'; 'rdna3' -> 'rdna3'. ValueError listing what is known."""
    family = _RESOLVED.get(target) if isinstance(target, str) else None
    if family is None:
        family = _RESOLVED[target] = _resolve(target)
    return family


def _resolve(target: str) -> str:
    t = target.strip().lower()
    t = t.split(":")[0].split("-")[0] if t.startswith("gfx") else t  # gfx1100:xnack-, gfx1100-w64
    t = FAMILY_ALIASES.get(t, t)
    if t in FAMILY_TARGETS:
        return t
    if t in TARGET_FAMILY:
        return TARGET_FAMILY[t]
    raise ValueError(f"unknown target {target!r}; known families: {', '.join(FAMILY_TARGETS)}; "
                     f"targets: {', '.join(TARGET_FAMILY)}")

"""Targets as code objects name them: ELF e_flags machine numbers, target-id strings, and
the descriptor generation a target belongs to. ABI facts from LLVM's AMDGPUUsage
("ELF Header", "AMDGPU Target Features"), not ISA facts, so they live here and not in isa/."""
from __future__ import annotations

import re

from isa.records import dataclass

# EF_AMDGPU_MACH values (e_flags bits 0-7) of the targets wavesmith knows.
MACH = {
    "gfx90a": 0x03F, "gfx940": 0x040, "gfx941": 0x04B, "gfx942": 0x04C, "gfx950": 0x04F,
    "gfx1100": 0x041, "gfx1101": 0x046, "gfx1102": 0x047, "gfx1103": 0x044,
    "gfx1150": 0x043, "gfx1151": 0x04A, "gfx1152": 0x055, "gfx1153": 0x058,
    "gfx1200": 0x048, "gfx1201": 0x04E,
}
MACH_NAME = {v: k for k, v in MACH.items()}
EF_MACH_MASK = 0x0FF
EF_XNACK_MASK, EF_XNACK_SHIFT = 0x300, 8       # code object v4+: unsupported/any/off/on
EF_SRAMECC_MASK, EF_SRAMECC_SHIFT = 0xC00, 10
EF_GENERIC_VERSION_SHIFT = 24                  # v6: generic targets carry a version here
FEATURE_STATES = ("unsupported", "any", "off", "on")
# Targets whose e_flags carry xnack / sramecc settings (the others leave them 'unsupported').
XNACK_TARGETS = {"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"}
SRAMECC_TARGETS = {"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950"}


@dataclass(frozen=True)
class Target:
    """One processor with its feature settings, e.g. gfx942:sramecc+:xnack-."""
    name: str                      # 'gfx1100'
    xnack: str = "any"             # 'any' | 'on' | 'off' | 'unsupported'
    sramecc: str = "any"

    @property
    def major(self) -> int:
        """The GFX generation: gfx942 -> 9, gfx1100 -> 11, gfx1201 -> 12."""
        digits = self.name[3:]
        return int(digits[:-2], 10) if len(digits) == 4 else int(digits[0])

    @property
    def gfx90a_plus(self) -> bool:
        """CDNA2+ (gfx90a, gfx94x, gfx950): unified VGPR/AGPR file, accum_offset, tg_split."""
        return self.major == 9 and self.name >= "gfx90a"

    @property
    def architected_flat_scratch(self) -> bool:
        """gfx94x, gfx950 and GFX11+: the hardware sets FLAT_SCRATCH itself, so the descriptor's
        private segment buffer and flat scratch init user SGPRs are not supported (AMDGPUUsage,
        kernel descriptor: "must be 0" for targets with the Architected flat scratch property)."""
        return self.major >= 11 or (self.major == 9 and self.name >= "gfx940")

    @property
    def default_wave_size(self) -> int:
        return 32 if self.major >= 10 else 64

    @property
    def e_flags(self) -> int:
        flags = MACH[self.name]
        if self.name in XNACK_TARGETS:
            flags |= FEATURE_STATES.index(self.xnack) << EF_XNACK_SHIFT
        if self.name in SRAMECC_TARGETS:
            flags |= FEATURE_STATES.index(self.sramecc) << EF_SRAMECC_SHIFT
        return flags

    @property
    def target_id(self) -> str:
        """The metadata / .amdgcn_target spelling: amdgcn-amd-amdhsa--gfx942:sramecc+."""
        feats = "".join(f":{name}{'+' if state == 'on' else '-'}"
                        for name, state in (("sramecc", self.sramecc), ("xnack", self.xnack))
                        if state in ("on", "off") and self.name in XNACK_TARGETS | SRAMECC_TARGETS)
        return f"amdgcn-amd-amdhsa--{self.name}{feats}"


def target_from_e_flags(e_flags: int) -> Target:
    mach = e_flags & EF_MACH_MASK
    if mach not in MACH_NAME:
        raise ValueError(f"e_flags 0x{e_flags:x}: unknown AMDGPU machine 0x{mach:03x}; known: "
                         + ", ".join(f"{n} (0x{m:03x})" for n, m in MACH.items()))
    xnack = FEATURE_STATES[(e_flags & EF_XNACK_MASK) >> EF_XNACK_SHIFT]
    sramecc = FEATURE_STATES[(e_flags & EF_SRAMECC_MASK) >> EF_SRAMECC_SHIFT]
    return Target(MACH_NAME[mach], xnack, sramecc)


_TARGET_ID = re.compile(r"(?:amdgcn-amd-amdhsa-[a-z0-9]*-)?(gfx[0-9a-f]+)((?::[a-z]+[+-])*)$")


def parse_target(text: str) -> Target:
    """'gfx1100', 'gfx942:xnack-' or 'amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-'."""
    m = _TARGET_ID.match(text.strip().strip('"'))
    if not m or m.group(1) not in MACH:
        raise ValueError(f"unknown target {text!r}; known: {', '.join(MACH)}")
    name = m.group(1)
    states = {"xnack": "any", "sramecc": "any"}
    for feat in filter(None, m.group(2).split(":")):
        key, sign = feat[:-1], feat[-1]
        if key not in states:
            raise ValueError(f"target {text!r}: unknown feature {key!r} (xnack, sramecc)")
        states[key] = "on" if sign == "+" else "off"
    if name not in XNACK_TARGETS:
        states["xnack"] = "unsupported"
    if name not in SRAMECC_TARGETS:
        states["sramecc"] = "unsupported"
    return Target(name, states["xnack"], states["sramecc"])

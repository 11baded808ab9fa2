"""Register-file facts per target: what the allocator may use and how VGPR use turns into
occupancy (waves per SIMD). One table, each number with its source.

Sources:
  [ISA-3.3.1]  AMD "RDNA3" / "RDNA3.5" ISA reference, 3.3.1 SGPRs (p. 15-16 of either manual):
               106 SGPRs s0-s105 per wave (VCC is s106-s107, outside them); 64-bit SGPR data
               even-aligned; more than 64 bits (and SMEM data of more than 2 dwords) quad-aligned.
  [ISA-3.3.2]  same manuals, 3.3.2.1 VGPR Allocation and Alignment (p. 17): up to 256 VGPRs per
               wave, allocated in blocks of 16 (wave32) / 8 (wave64), or 24 / 12 on devices with
               1536 VGPRs per SIMD. RDNA3 VGPR tuples have no alignment rule.
  [LLVM-FULL]  the VGPR file per SIMD of each device: isa/traits.py (from LLVM's
               FeatureGFX11FullVGPRs: 1536 wave32 VGPRs on gfx1100, gfx1101, gfx1151, else 1024).
  [LLVM-WAVES] LLVM AMDGPUBaseInfo getMaxWavesPerEU: 16 waves per SIMD from gfx10.3 on; 8 on
               the targets with the unified VGPR/AGPR file (gfx90a and later CDNA: gfx940-942, gfx950).
  [CDNA-3.6.4] AMD "CDNA3" ISA reference 3.6.4 VGPR Allocation and Alignment (CDNA4's manual says
               the same in 3.3.2): VGPRs are allocated in groups of eight dwords, from two pools,
               VGPRs and accumulation VGPRs (AGPRs): up to 512 in total per wave, 256 of each;
               64-bit data in even-aligned VGPRs (LLVM requires every vector tuple even-aligned).
  [LLVM-ACCUM] LLVM AMDGPUUsage, kernel descriptor for GFX90A/GFX942: the AGPRs follow the VGPRs in
               the unified file at ACCUM_OFFSET, a multiple of 4 (descriptor field accum_offset/4 - 1),
               and the granulated VGPR count covers both: round_up(vgprs, 4) + agprs.
Occupancy is LLVM's getNumWavesPerEUWithNumVGPRs: min(max waves, file // round_up(vgprs, granule)),
with vgprs the unified count on CDNA.
"""
from __future__ import annotations

import isa

from isa.records import dataclass


@dataclass(frozen=True)
class RegisterLimits:
    target: str
    wave_size: int
    vgprs: int               # addressable VGPRs per wave  [ISA-3.3.2]
    sgprs: int               # addressable SGPRs per wave  [ISA-3.3.1]
    vgpr_file: int           # VGPRs per SIMD for this wave size  [ISA-3.3.2], [LLVM-FULL]
    vgpr_granule: int        # VGPRs are allocated to a wave in blocks of this many  [ISA-3.3.2]
    max_waves_per_simd: int  # [LLVM-WAVES]
    agprs: int = 0           # addressable AGPRs per wave (CDNA: 256)  [CDNA-3.6.4]
    vector_alignment: int = 1   # first register of a multi-register VGPR/AGPR operand  [CDNA-3.6.4]

    @property
    def files(self) -> tuple[str, ...]:
        """The register files the allocator assigns: 'v', 's' and, with AGPRs, 'a'."""
        return ("v", "s", "a") if self.agprs else ("v", "s")

    def alignment(self, file: str, count: int) -> int:
        """Alignment of the first register of a `count`-register operand in `file`."""
        if file == "s" and count > 1:
            return 2 if count == 2 else 4          # [ISA-3.3.1]
        if count > 1:
            return self.vector_alignment            # RDNA3 VGPR tuples: any start [ISA-3.3.2]; CDNA even
        return 1

    def limit(self, file: str) -> int:
        return {"v": self.vgprs, "s": self.sgprs, "a": self.agprs}[file]

    def accum_offset(self, vgprs_used: int) -> int:
        """Where the AGPRs start in the unified file: the VGPRs rounded up to 4, at least 4
        (the descriptor's smallest accum_offset)  [LLVM-ACCUM]."""
        return max(4, -(-vgprs_used // 4) * 4)

    def unified_vgprs(self, vgprs_used: int, agprs_used: int = 0) -> int:
        """Registers of the unified file a wave takes: VGPRs, then the AGPRs from accum_offset
        [LLVM-ACCUM]; the VGPRs alone without AGPRs."""
        return self.accum_offset(vgprs_used) + agprs_used if agprs_used else vgprs_used

    def waves_per_simd(self, vgprs_used: int, agprs_used: int = 0) -> int:
        """Waves of this kernel one SIMD can hold, as limited by VGPRs (and AGPRs, which share
        the VGPR file on CDNA); SGPRs do not limit occupancy on RDNA: every wave gets its 106."""
        used = self.unified_vgprs(vgprs_used, agprs_used)
        blocks = -(-max(used, 1) // self.vgpr_granule)
        return max(1, min(self.max_waves_per_simd, self.vgpr_file // (blocks * self.vgpr_granule)))


def limits(target: str, wave_size: int | None = None) -> RegisterLimits:
    """RegisterLimits of a target ('gfx1100', 'gfx1151', 'rdna3', ...) and wave size; a family
    name means its traits' `family_device` (the larger file)."""
    family = isa.resolve_arch(target)
    try:
        t = isa.traits(family)
        device = t.device(target)
        file = t.vgpr_file(device, wave_size)
    except isa.TraitsError as e:
        raise ValueError(f"register limits for {target!r} ({family}) are not known yet: {e}") from None
    wave = wave_size or t.wave_size
    if wave not in t.wave_sizes:
        raise ValueError(f"wave size must be one of {', '.join(map(str, t.wave_sizes))}, got {wave}")
    if t.agprs:     # CDNA: the unified VGPR/AGPR file, wave64 only
        return RegisterLimits(device, wave, t.vgprs, t.sgprs, file, 8, 8, t.agprs, 2)   # [CDNA-3.6.4] [LLVM-WAVES]
    granule32 = 24 if t.vgpr_file(device, 32) == 1536 else 16      # [ISA-3.3.2]
    return RegisterLimits(device, wave, t.vgprs, t.sgprs, file, granule32 * 32 // wave, 16)

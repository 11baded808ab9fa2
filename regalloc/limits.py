"""Register-file facts per target: what the allocator may use and how VGPR use turns into
occupancy (waves per SIMD). One table, each number with its source.

Sources:
  [ISA-3.3.1]  AMD "RDNA3" / "RDNA3.5" ISA reference, 3.3.1 SGPRs (p. 15-16 of either manual):
               106 SGPRs s0-s105 per wave (VCC is s106-s107, outside them); 64-bit SGPR data
               even-aligned; more than 64 bits (and SMEM data of more than 2 dwords) quad-aligned.
  [ISA-3.3.2]  same manuals, 3.3.2.1 VGPR Allocation and Alignment (p. 17): up to 256 VGPRs per
               wave, allocated in blocks of 16 (wave32) / 8 (wave64), or 24 / 12 on devices with
               1536 VGPRs per SIMD. RDNA3 VGPR tuples have no alignment rule.
  [LLVM-FULL]  LLVM AMDGPU target (AMDGPU.td, FeatureGFX11FullVGPRs): the devices with 1536 wave32
               VGPRs (768 wave64) per SIMD are gfx1100, gfx1101 and gfx1151; the other gfx11
               devices have 1024 (512).
  [LLVM-WAVES] LLVM AMDGPUBaseInfo getMaxWavesPerEU: 16 waves per SIMD from gfx10.3 on.
Occupancy is LLVM's getNumWavesPerEUWithNumVGPRs: min(max waves, file // round_up(vgprs, granule)).
"""
from __future__ import annotations

from dataclasses import dataclass

import isa


@dataclass(frozen=True)
class RegisterLimits:
    target: str
    wave_size: int
    vgprs: int               # addressable VGPRs per wave  [ISA-3.3.2]
    sgprs: int               # addressable SGPRs per wave  [ISA-3.3.1]
    vgpr_file: int           # VGPRs per SIMD for this wave size  [ISA-3.3.2], [LLVM-FULL]
    vgpr_granule: int        # VGPRs are allocated to a wave in blocks of this many  [ISA-3.3.2]
    max_waves_per_simd: int  # [LLVM-WAVES]

    def alignment(self, file: str, count: int) -> int:
        """Alignment of the first register of a `count`-register operand in `file`."""
        if file == "s" and count > 1:
            return 2 if count == 2 else 4          # [ISA-3.3.1]
        return 1                                    # RDNA3 VGPR tuples: any start [ISA-3.3.2]

    def limit(self, file: str) -> int:
        return self.vgprs if file == "v" else self.sgprs

    def waves_per_simd(self, vgprs_used: int) -> int:
        """Waves of this kernel one SIMD can hold, as limited by VGPRs (SGPRs do not limit
        occupancy on RDNA: every wave gets its 106)."""
        blocks = -(-max(vgprs_used, 1) // self.vgpr_granule)
        return max(1, min(self.max_waves_per_simd, self.vgpr_file // (blocks * self.vgpr_granule)))


# target -> VGPRs per SIMD in wave32 (wave64 has half as many 64-lane registers)  [LLVM-FULL]
_VGPR_FILE_WAVE32 = {"gfx1100": 1536, "gfx1101": 1536, "gfx1102": 1024, "gfx1103": 1024,
                     "gfx1150": 1024, "gfx1151": 1536, "gfx1152": 1024}
# family defaults when a family name rather than a device is given: the larger file
_FAMILY_DEVICE = {"rdna3": "gfx1100", "rdna3.5": "gfx1151"}


def limits(target: str, wave_size: int | None = None) -> RegisterLimits:
    """RegisterLimits of a target ('gfx1100', 'gfx1151', 'rdna3', ...) and wave size."""
    family = isa.resolve_arch(target)
    device = target.strip().lower().split(":")[0].split("-")[0]
    device = device if device in _VGPR_FILE_WAVE32 else _FAMILY_DEVICE.get(family)
    if device is None:
        raise ValueError(f"register limits for {target!r} ({family}) are not known yet; known: "
                         f"{', '.join(_VGPR_FILE_WAVE32)}")
    wave = wave_size or isa.WAVE_SIZE[family]
    if wave not in (32, 64):
        raise ValueError(f"wave size must be 32 or 64, got {wave}")
    file32 = _VGPR_FILE_WAVE32[device]
    granule32 = 24 if file32 == 1536 else 16
    scale = wave // 32
    return RegisterLimits(device, wave, 256, 106, file32 // scale, granule32 // scale, 16)

"""The 64-byte AMDHSA kernel descriptor: one declarative table of its fields (LLVM's
AMDGPUUsage "Kernel Descriptor" and the COMPUTE_PGM_RSRC1/2/3 tables) drives decoding,
encoding and the `.amdhsa_*` assembler directives alike."""
from __future__ import annotations

import dataclasses

from isa.records import dataclass, make_dataclass

from .target import Target

DESCRIPTOR_SIZE = 64
# Byte offset of each little-endian word of the descriptor, and its width in bits.
WORDS = {
    "group_segment_fixed_size": (0, 32), "private_segment_fixed_size": (4, 32), "kernarg_size": (8, 32),
    "kernel_code_entry_byte_offset": (16, 64), "compute_pgm_rsrc3": (44, 32), "compute_pgm_rsrc1": (48, 32),
    "compute_pgm_rsrc2": (52, 32), "kernel_code_properties": (56, 16), "kernarg_preload": (58, 16),
}
# Generations a field exists on; a Target belongs to the ones _generations() gives it.
ALL, GFX9_11, GFX10P, GFX11, GFX11P, GFX12, GFX90AP, GFX10_11 = (
    None, {9, 10, 11}, {10, 11, 12}, {11}, {11, 12}, {12}, {"90a"}, {10, 11})


@dataclass(frozen=True)
class Field:
    """A bit field of the kernel descriptor and the directive that sets it."""
    name: str            # lower-case LLVM name of the bit field
    word: str            # key of WORDS
    lo: int
    width: int
    directive: str | None = None   # the .amdhsa_* directive that sets it, if any
    default: int | str = 0          # the directive's default ('wave32': from the wave size)
    gens: set | None = ALL


def F(name, word, lo, width, directive=None, default=0, gens=ALL):
    return Field(name, word, lo, width, directive and ".amdhsa_" + directive, default, gens)


R1, R2, R3, KP = "compute_pgm_rsrc1", "compute_pgm_rsrc2", "compute_pgm_rsrc3", "kernel_code_properties"
FIELDS: tuple[Field, ...] = (
    F("group_segment_fixed_size", "group_segment_fixed_size", 0, 32, "group_segment_fixed_size"),
    F("private_segment_fixed_size", "private_segment_fixed_size", 0, 32, "private_segment_fixed_size"),
    F("kernarg_size", "kernarg_size", 0, 32, "kernarg_size"),
    F("kernel_code_entry_byte_offset", "kernel_code_entry_byte_offset", 0, 64),
    # COMPUTE_PGM_RSRC1; the two register granules come from .amdhsa_next_free_vgpr/sgpr
    F("granulated_workitem_vgpr_count", R1, 0, 6),
    F("granulated_wavefront_sgpr_count", R1, 6, 4),
    F("priority", R1, 10, 2),
    F("float_round_mode_32", R1, 12, 2, "float_round_mode_32"),
    F("float_round_mode_16_64", R1, 14, 2, "float_round_mode_16_64"),
    F("float_denorm_mode_32", R1, 16, 2, "float_denorm_mode_32"),
    F("float_denorm_mode_16_64", R1, 18, 2, "float_denorm_mode_16_64", 3),
    F("priv", R1, 20, 1),
    F("enable_dx10_clamp", R1, 21, 1, "dx10_clamp", 1, GFX9_11),
    F("enable_wg_rr_en", R1, 21, 1, "round_robin_scheduling", 0, GFX12),
    F("debug_mode", R1, 22, 1),
    F("enable_ieee_mode", R1, 23, 1, "ieee_mode", 1, GFX9_11),
    F("disable_perf", R1, 23, 1, None, 0, GFX12),
    F("bulky", R1, 24, 1),
    F("cdbg_user", R1, 25, 1),
    F("fp16_ovfl", R1, 26, 1, "fp16_overflow"),
    F("wgp_mode", R1, 29, 1, "workgroup_processor_mode", 1, GFX10P),
    F("mem_ordered", R1, 30, 1, "memory_ordered", 1, GFX10P),
    F("fwd_progress", R1, 31, 1, "forward_progress", 1, GFX10P),
    # COMPUTE_PGM_RSRC2
    F("enable_private_segment", R2, 0, 1, "enable_private_segment"),
    F("user_sgpr_count", R2, 1, 5, "user_sgpr_count", "user_sgprs"),
    F("enable_trap_handler", R2, 6, 1, None, 0, GFX9_11),
    F("enable_dynamic_vgpr", R2, 6, 1, None, 0, GFX12),
    F("enable_sgpr_workgroup_id_x", R2, 7, 1, "system_sgpr_workgroup_id_x", 1),
    F("enable_sgpr_workgroup_id_y", R2, 8, 1, "system_sgpr_workgroup_id_y"),
    F("enable_sgpr_workgroup_id_z", R2, 9, 1, "system_sgpr_workgroup_id_z"),
    F("enable_sgpr_workgroup_info", R2, 10, 1, "system_sgpr_workgroup_info"),
    F("enable_vgpr_workitem_id", R2, 11, 2, "system_vgpr_workitem_id"),
    F("enable_exception_address_watch", R2, 13, 1),
    F("enable_exception_memory", R2, 14, 1),
    F("granulated_lds_size", R2, 15, 9),
    F("enable_exception_ieee_754_fp_invalid_operation", R2, 24, 1, "exception_fp_ieee_invalid_op"),
    F("enable_exception_fp_denormal_source", R2, 25, 1, "exception_fp_denorm_src"),
    F("enable_exception_ieee_754_fp_division_by_zero", R2, 26, 1, "exception_fp_ieee_div_zero"),
    F("enable_exception_ieee_754_fp_overflow", R2, 27, 1, "exception_fp_ieee_overflow"),
    F("enable_exception_ieee_754_fp_underflow", R2, 28, 1, "exception_fp_ieee_underflow"),
    F("enable_exception_ieee_754_fp_inexact", R2, 29, 1, "exception_fp_ieee_inexact"),
    F("enable_exception_int_divide_by_zero", R2, 30, 1, "exception_int_div_zero"),
    F("wgp_takeover", R2, 31, 1, None, 0, GFX12),
    # COMPUTE_PGM_RSRC3: one layout on CDNA2+, another on RDNA
    F("accum_offset", R3, 0, 6, None, 0, GFX90AP),       # .amdhsa_accum_offset = (field + 1) * 4
    F("tg_split", R3, 16, 1, "tg_split", 0, GFX90AP),
    F("shared_vgpr_count", R3, 0, 4, "shared_vgpr_count", 0, GFX10_11),
    F("inst_pref_size", R3, 4, 6, "inst_pref_size", 0, GFX11),
    F("trap_on_start", R3, 10, 1, None, 0, GFX11),
    F("trap_on_end", R3, 11, 1, None, 0, GFX11),
    F("inst_pref_size", R3, 4, 8, "inst_pref_size", 0, GFX12),
    F("glg_en", R3, 13, 1, None, 0, GFX12),
    F("image_op", R3, 31, 1, None, 0, GFX11P),
    # kernel_code_properties: which user SGPRs the dispatch fills, the wave size
    F("enable_sgpr_private_segment_buffer", KP, 0, 1, "user_sgpr_private_segment_buffer"),
    F("enable_sgpr_dispatch_ptr", KP, 1, 1, "user_sgpr_dispatch_ptr"),
    F("enable_sgpr_queue_ptr", KP, 2, 1, "user_sgpr_queue_ptr"),
    F("enable_sgpr_kernarg_segment_ptr", KP, 3, 1, "user_sgpr_kernarg_segment_ptr"),
    F("enable_sgpr_dispatch_id", KP, 4, 1, "user_sgpr_dispatch_id"),
    F("enable_sgpr_flat_scratch_init", KP, 5, 1, "user_sgpr_flat_scratch_init"),
    F("enable_sgpr_private_segment_size", KP, 6, 1, "user_sgpr_private_segment_size"),
    F("enable_wavefront_size32", KP, 10, 1, "wavefront_size32", "wave32", GFX10P),
    F("uses_dynamic_stack", KP, 11, 1, "uses_dynamic_stack"),
    F("kernarg_preload_spec_length", "kernarg_preload", 0, 7, "user_sgpr_kernarg_preload_length"),
    F("kernarg_preload_spec_offset", "kernarg_preload", 7, 9, "user_sgpr_kernarg_preload_offset"),
)
# User SGPRs each enable bit requests (AMDGPUUsage "Initial Kernel Execution State").
USER_SGPRS = {"enable_sgpr_private_segment_buffer": 4, "enable_sgpr_dispatch_ptr": 2, "enable_sgpr_queue_ptr": 2,
              "enable_sgpr_kernarg_segment_ptr": 2, "enable_sgpr_dispatch_id": 2,
              "enable_sgpr_flat_scratch_init": 2, "enable_sgpr_private_segment_size": 1}
SIGNED = {"kernel_code_entry_byte_offset"}


def _generations(target: Target) -> set:
    gens = {target.major}
    if target.gfx90a_plus:
        gens.add("90a")
    return gens


def fields_for(target: Target) -> list[Field]:
    """The fields that exist on `target` (a bit has one meaning per generation)."""
    gens = _generations(target)
    return [f for f in FIELDS if f.gens is None or f.gens & gens]


# Every field name once, in table order; where a name exists twice (inst_pref_size) it is one attribute.
KernelDescriptor = make_dataclass(
    "KernelDescriptor", [(name, int, dataclasses.field(default=0)) for name in dict.fromkeys(f.name for f in FIELDS)],
    module=__name__,
    namespace={"__doc__": "Every field of a kernel descriptor, decoded (fields absent on the target stay 0). "
                          "Names are LLVM's lower-cased (AMDGPUUsage)."})


def decode_descriptor(data: bytes, target: Target) -> KernelDescriptor:
    if len(data) != DESCRIPTOR_SIZE:
        raise ValueError(f"a kernel descriptor is {DESCRIPTOR_SIZE} bytes, got {len(data)}")
    values = {}
    for f in fields_for(target):
        pos, bits = WORDS[f.word]
        word = int.from_bytes(data[pos:pos + bits // 8], "little", signed=f.word in SIGNED)
        values[f.name] = word if f.width == bits else (word >> f.lo) & ((1 << f.width) - 1)
    return KernelDescriptor(**values)


def encode_descriptor(desc: KernelDescriptor, target: Target) -> bytes:
    out = bytearray(DESCRIPTOR_SIZE)
    words = dict.fromkeys(WORDS, 0)
    for f in fields_for(target):
        value = getattr(desc, f.name)
        pos, bits = WORDS[f.word]
        limit = (1 << (f.width - 1)) if f.word in SIGNED else (1 << f.width)
        if not (-limit if f.word in SIGNED else 0) <= value < limit:
            raise ValueError(f"kernel descriptor field {f.name} = {value} does not fit in {f.width} bits")
        words[f.word] |= (value & ((1 << f.width) - 1)) << f.lo
    for word, value in words.items():
        pos, bits = WORDS[word]
        out[pos:pos + bits // 8] = value.to_bytes(bits // 8, "little")
    return bytes(out)


# ---- register granules (AMDGPUUsage: GRANULATED_WORKITEM_VGPR_COUNT / _WAVEFRONT_SGPR_COUNT) ----

def vgpr_encoding_granule(target: Target, wave_size: int) -> int:
    return 8 if target.gfx90a_plus or wave_size == 32 else 4


def extra_sgprs(target: Target, reserve_vcc: bool, reserve_flat_scratch: bool, reserve_xnack: bool) -> int:
    """SGPRs counted beyond the kernel's own: VCC, and on GFX9 FLAT_SCRATCH and XNACK_MASK,
    which sit at the top of the SGPR file there."""
    extra = 2 if reserve_vcc else 0
    if target.major >= 10:
        return extra
    if reserve_xnack:
        extra = 4
    if reserve_flat_scratch or target.gfx90a_plus and target.name != "gfx90a":   # architected flat scratch
        extra = 6
    return extra


def granulated_vgprs(next_free_vgpr: int, target: Target, wave_size: int) -> int:
    g = vgpr_encoding_granule(target, wave_size)
    return (max(1, next_free_vgpr) + g - 1) // g - 1


def granulated_sgprs(sgpr_count: int, target: Target) -> int:
    """sgpr_count includes extra_sgprs(); GFX10+ leaves the field 0 (SGPRs are not granted per wave)."""
    if target.major >= 10:
        return 0
    return (max(1, sgpr_count) + 7) // 8 - 1


def vgprs_from_granule(desc: KernelDescriptor, target: Target, wave_size: int) -> int:
    return (desc.granulated_workitem_vgpr_count + 1) * vgpr_encoding_granule(target, wave_size)


def default_user_sgpr_count(desc: KernelDescriptor) -> int:
    return sum(n for name, n in USER_SGPRS.items() if getattr(desc, name)) + desc.kernarg_preload_spec_length


def directive_values(desc: KernelDescriptor, target: Target) -> dict[str, int]:
    """The `.amdhsa_*` directive spelling of a descriptor: what a disassembler prints and
    the assembler reads back. Register counts come back granule-rounded."""
    wave = 32 if desc.enable_wavefront_size32 else 64
    out = {f.directive: getattr(desc, f.name) for f in fields_for(target) if f.directive}
    out[".amdhsa_next_free_vgpr"] = vgprs_from_granule(desc, target, wave)
    out[".amdhsa_next_free_sgpr"] = (desc.granulated_wavefront_sgpr_count + 1) * 8
    if target.gfx90a_plus:
        out[".amdhsa_accum_offset"] = (desc.accum_offset + 1) * 4
    return out

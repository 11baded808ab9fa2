"""Where the text syntax's (LLVM AMDGPU) mnemonics differ from AMD's instruction names.

wavesmith's text syntax is LLVM's, its ISA data is AMD's. This table maps the few
LLVM spellings that are not simply AMD's name in lower case (plus an encoding suffix
such as _e32/_e64/_dpp, which isa.llvm_base_mnemonic strips). Each entry says why.
"""
from __future__ import annotations

# llvm mnemonic -> (AMD name, reason)
LLVM_TO_AMD: dict[str, tuple[str, str]] = {
    "exp": ("EXPORT", "LLVM spells the single EXP-format opcode 'exp' (exp mrt0 v0, v1, v2, v3)."),
}
AMD_TO_LLVM: dict[str, str] = {amd: llvm for llvm, (amd, _) in LLVM_TO_AMD.items()}

# Spellings that hold for one family only (keyed by isa.targets family name).
_CDNA3_FMA_MIX = ("LLVM names the gfx940+ mixed-precision opcodes 32-34 v_fma_mix* (a fused multiply-add; "
                  "gfx900's v_mad_mix* used the same opcodes); the CDNA3 and CDNA4 manuals keep the MAD names.")
LLVM_TO_AMD_BY_FAMILY: dict[str, dict[str, tuple[str, str]]] = {
    "cdna3": {
        "v_fma_mix_f32": ("V_MAD_MIX_F32", _CDNA3_FMA_MIX),
        "v_fma_mixlo_f16": ("V_MAD_MIXLO_F16", _CDNA3_FMA_MIX),
        "v_fma_mixhi_f16": ("V_MAD_MIXHI_F16", _CDNA3_FMA_MIX),
        "v_accvgpr_read_b32": ("V_ACCVGPR_READ", "LLVM spells the AGPR-to-VGPR move with its data size."),
        "v_accvgpr_write_b32": ("V_ACCVGPR_WRITE", "LLVM spells the VGPR-to-AGPR move with its data size."),
    },
    "cdna4": {      # gfx950 keeps gfx942's spellings
        "v_fma_mix_f32": ("V_MAD_MIX_F32", _CDNA3_FMA_MIX),
        "v_fma_mixlo_f16": ("V_MAD_MIXLO_F16", _CDNA3_FMA_MIX),
        "v_fma_mixhi_f16": ("V_MAD_MIXHI_F16", _CDNA3_FMA_MIX),
        "v_accvgpr_read_b32": ("V_ACCVGPR_READ", "LLVM spells the AGPR-to-VGPR move with its data size."),
        "v_accvgpr_write_b32": ("V_ACCVGPR_WRITE", "LLVM spells the VGPR-to-AGPR move with its data size."),
    },
    "rdna4": {"export": ("EXPORT", "LLVM spells gfx12's export instruction as the manual names it "
                                   "(gfx11's is 'exp').")},
}

# LLVM mnemonics for encodings that are not instructions of the manual at all.
LLVM_PSEUDO: dict[str, str] = {
    "v_illegal": "LLVM prints the all-zero dword (VOP2 opcode 0, which the manual does not define) "
                 "as v_illegal; it is LLVM's trap-on-execute filler, not an ISA instruction.",
}


def amd_name(llvm_mnemonic: str, family: str | None = None) -> str:
    """AMD's instruction name for an LLVM mnemonic without encoding suffix (`family`:
    'rdna3', 'cdna3', ... for the spellings only that family's manual uses)."""
    m = llvm_mnemonic.lower()
    table = {**LLVM_TO_AMD, **LLVM_TO_AMD_BY_FAMILY.get(family, {})}
    return table[m][0] if m in table else m.upper()


def text_mnemonic(amd: str, family: str | None = None) -> str:
    for llvm, (name, _) in LLVM_TO_AMD_BY_FAMILY.get(family, {}).items():
        if name == amd:
            return llvm
    return AMD_TO_LLVM.get(amd, amd.lower())

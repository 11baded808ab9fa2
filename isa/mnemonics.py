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
                                   "(gfx11's is 'exp', which it still takes there: LLVM 22 (gfx1201) "
                                   "encodes 'exp mrt0 v0, v1, v2, v3' to export's bytes and prints 'export'; "
                                   "-mcpu=gfx1100 refuses 'export': instruction not supported on this GPU).")},
}

# AMD spellings LLVM also takes where it spells the instruction otherwise (evidence: LLVM 22
# -mcpu=gfx942 and gfx950 encode v_accvgpr_read/v_accvgpr_write as v_accvgpr_read_b32/_write_b32,
# and refuse v_mad_mix_f32/v_mad_mixlo_f16/v_mad_mixhi_f16 with "instruction not supported on this GPU";
# tests/test_asm_refusal_classes.py runs it). Every other AMD name a family's table renames is refused.
LLVM_ALSO_TAKES_BY_FAMILY: dict[str, frozenset[str]] = {
    "cdna3": frozenset({"v_accvgpr_read", "v_accvgpr_write"}),
    "cdna4": frozenset({"v_accvgpr_read", "v_accvgpr_write"}),
}

# LLVM's pre-gfx11 spellings of the LDS instructions the RDNA manuals renamed (DS_READ_* ->
# DS_LOAD_*, DS_WRITE_* -> DS_STORE_*, the two-address forms' READ2/WRITE2/ST64 -> _2ADDR/_STRIDE64,
# WRXCHG -> STOREXCHG), which LLVM's assembler still takes for gfx11 and gfx12 and encodes as the
# new instruction. The manuals name only the new instructions. Evidence: LLVM 22's assembler encodes each
# old spelling for gfx1100, gfx1151 and gfx1201 to the bytes of its new name
# (tests/test_isa_facts_replace_suffix_rules.py runs it). old spelling -> LLVM mnemonic.
LDS_ALIASES: dict[str, str] = {
    "ds_read_b32": "ds_load_b32", "ds_read_b64": "ds_load_b64", "ds_read_b96": "ds_load_b96",
    "ds_read_b128": "ds_load_b128", "ds_read_i8": "ds_load_i8", "ds_read_u8": "ds_load_u8",
    "ds_read_i16": "ds_load_i16", "ds_read_u16": "ds_load_u16", "ds_read_i8_d16": "ds_load_i8_d16",
    "ds_read_i8_d16_hi": "ds_load_i8_d16_hi", "ds_read_u8_d16": "ds_load_u8_d16",
    "ds_read_u8_d16_hi": "ds_load_u8_d16_hi", "ds_read_u16_d16": "ds_load_u16_d16",
    "ds_read_u16_d16_hi": "ds_load_u16_d16_hi", "ds_read_addtid_b32": "ds_load_addtid_b32",
    "ds_read2_b32": "ds_load_2addr_b32", "ds_read2_b64": "ds_load_2addr_b64",
    "ds_read2st64_b32": "ds_load_2addr_stride64_b32", "ds_read2st64_b64": "ds_load_2addr_stride64_b64",
    "ds_write_b8": "ds_store_b8", "ds_write_b16": "ds_store_b16", "ds_write_b32": "ds_store_b32",
    "ds_write_b64": "ds_store_b64", "ds_write_b96": "ds_store_b96", "ds_write_b128": "ds_store_b128",
    "ds_write_b8_d16_hi": "ds_store_b8_d16_hi", "ds_write_b16_d16_hi": "ds_store_b16_d16_hi",
    "ds_write_addtid_b32": "ds_store_addtid_b32",
    "ds_write2_b32": "ds_store_2addr_b32", "ds_write2_b64": "ds_store_2addr_b64",
    "ds_write2st64_b32": "ds_store_2addr_stride64_b32", "ds_write2st64_b64": "ds_store_2addr_stride64_b64",
    "ds_wrxchg_rtn_b32": "ds_storexchg_rtn_b32", "ds_wrxchg_rtn_b64": "ds_storexchg_rtn_b64",
    "ds_wrxchg2_rtn_b32": "ds_storexchg_2addr_rtn_b32", "ds_wrxchg2_rtn_b64": "ds_storexchg_2addr_rtn_b64",
    "ds_wrxchg2st64_rtn_b32": "ds_storexchg_2addr_stride64_rtn_b32",
    "ds_wrxchg2st64_rtn_b64": "ds_storexchg_2addr_stride64_rtn_b64",
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


def refused_spelling(mnemonic: str, family: str | None = None) -> str | None:
    """LLVM's spelling of the instruction when `mnemonic` (no encoding suffix) is AMD's name of one
    that LLVM spells otherwise on `family` and does not take as an alias there, else None."""
    m = mnemonic.lower()
    table = {**LLVM_TO_AMD, **LLVM_TO_AMD_BY_FAMILY.get(family, {})}
    if m in table or m in LLVM_ALSO_TAKES_BY_FAMILY.get(family, ()):
        return None
    return next((llvm for llvm, (name, _) in table.items() if name.lower() == m), None)


def text_mnemonic(amd: str, family: str | None = None) -> str:
    for llvm, (name, _) in LLVM_TO_AMD_BY_FAMILY.get(family, {}).items():
        if name == amd:
            return llvm
    return AMD_TO_LLVM.get(amd, amd.lower())

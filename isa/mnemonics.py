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

# LLVM mnemonics for encodings that are not instructions of the manual at all.
LLVM_PSEUDO: dict[str, str] = {
    "v_illegal": "LLVM prints the all-zero dword (VOP2 opcode 0, which the manual does not define) "
                 "as v_illegal; it is LLVM's trap-on-execute filler, not an ISA instruction.",
}


def amd_name(llvm_mnemonic: str) -> str:
    """AMD's instruction name for an LLVM mnemonic without encoding suffix."""
    m = llvm_mnemonic.lower()
    return LLVM_TO_AMD[m][0] if m in LLVM_TO_AMD else m.upper()


def text_mnemonic(amd: str) -> str:
    return AMD_TO_LLVM.get(amd, amd.lower())

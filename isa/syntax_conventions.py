"""The VALU and SALU spellings of the reference text syntax that no manual states: per
instruction, what the assembler takes or the printer writes beyond what the pseudocode and the
operand tables say. Each entry names the instruction(s) and the evidence (what the reference
assembler of LLVM 22 accepts, refuses or prints, on which targets); `tests/test_isa_syntax_conventions.py`
checks each one. Keyed by text-syntax dialect ("gfx11": RDNA3/3.5/4; "gfx9": CDNA) where the
dialects differ. Facts the manuals do state are derived elsewhere in isa/ (code_facts: byte_select,
pc_relative_immediate, lane_value_result, the source kinds), not listed here; nor is where LLVM's
op_sel departs from the manual's 16-bit operands (modifier_use errata, isa/errata_modifiers.py).

dsl/syntax.py and dsl/syntax_gfx9.py read these tables under their old names."""
from __future__ import annotations

# No operands at all: the manuals give neither code nor operand table, and the assembler takes the
# bare mnemonic and refuses an operand ("v_nop v1", "v_clrexcp v1": invalid operand)
NO_OPERANDS = frozenset({"V_NOP", "V_PIPEFLUSH", "V_CLREXCP"})
# VOP1/VOP3 instructions with a result and no source in the code that still take none (empty:
# v_movrels-style code reads SRC0 as a register number, an operand)
NO_SOURCES: frozenset = frozenset()

# Sources the true16 syntax (RDNA3, RDNA3.5) spells as 16-bit VGPR halves although the code reads
# them as 32-bit (only their low bits matter: a class mask, a shift amount): the assembler
# refuses "v_cmp_class_f16_e64 s1, v2.l, v3" and prints v_alignbit_b32's src2 as v4.l
T16_SOURCES = {"V_CMP_CLASS_F16": (1,), "V_CMPX_CLASS_F16": (1,), "V_ALIGNBIT_B32": (2,),
               "V_ALIGNBYTE_B32": (2,)}

# VALU instructions printed without an encoding suffix although they have 32- and 64-bit forms
# (v_nop_e64's bytes print as "v_nop"; v_readfirstlane_b32's e32 bytes print without _e32), by
# dialect: gfx9 adds v_swap_b32 and v_clrexcp
NO_ENC_SUFFIX = {"gfx11": frozenset({"V_NOP", "V_READFIRSTLANE_B32", "V_PIPEFLUSH"}),
                 "gfx9": frozenset({"V_SWAP_B32", "V_CLREXCP"})}

# Instructions whose VOP3 opcode the manual lists but the text syntax has only in their 32-bit
# encoding, by dialect: the CDNA3 and CDNA4 VOP3A opcode tables (CDNA3 manual pp. 539-540, CDNA4
# pp. 585-586) give V_SWAP_B32 465 and V_ACCVGPR_MOV_B32 466 (the VOP1 opcodes 81 and 82 + 0x140),
# while LLVM 22 (gfx942, gfx950) refuses "v_swap_b32_e64 v1, v2" and "v_accvgpr_mov_b32_e64 a1, a2"
# ("e64 variant of this instruction is not supported") and decodes neither VOP3 form
# (e9 00 91 d1 00 01 00 00, 01 00 92 d1 02 01 00 00: "invalid instruction encoding"); every other
# VOP1/VOP2/VOPC mnemonic of both corpora takes _e64 (tests/test_asm_refusal_classes.py)
NO_VOP3_FORM = {"gfx9": frozenset({"V_SWAP_B32", "V_ACCVGPR_MOV_B32"})}

# Packed f16 sources with no f16 inline constants: v_pk_fmac_f16 (VOP2) assembles -4.0 as the
# literal 0xc400 and prints it so (v_pk_add_f16 takes -4.0 inline)
NO_F16_INLINE = frozenset({"V_PK_FMAC_F16"})

# Integer sources whose constants are read as f16 ones: v_ldexp_f16's exponent 1.0 is the inline
# constant 1.0 (0xf2), -17 the zero-extended literal 0xffef
F16_CONSTANTS = {"V_LDEXP_F16": (1,)}

# Encodings the text syntax gives a DPP form, by dialect: the gfx9 dialect writes DPP for VOP1 and
# VOP2 only ("v_cmp_eq_f32_dpp vcc, v1, v2 quad_perm:[0,1,2,3]" is refused on gfx942 and gfx950:
# "dpp variant of this instruction is not supported"), although the CDNA3 manual's DPP limitations
# exclude only the 64-bit compares
DPP_FORMATS = {"gfx9": frozenset({"VOP1", "VOP2"})}

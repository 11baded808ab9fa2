"""The VALU and SALU spellings of the reference text syntax that no manual states: per
instruction, what the assembler takes or the printer writes beyond what the pseudocode and the
operand tables say. Each entry names the instruction(s) and the evidence (what the reference
assembler of LLVM 22 accepts, refuses or prints, on which targets); `tests/test_isa_syntax_conventions.py`
checks each one. Keyed by text-syntax dialect ("gfx11": RDNA3/3.5/4; "gfx9": CDNA) where the
dialects differ. Facts the manuals do state are derived elsewhere in isa/ (code_facts: byte_select,
pc_relative_immediate, lane_value_result, the source kinds), not listed here.

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

# SALU sources the code reads as a register number (SRC0) that the assembler still takes as any
# 32-bit source, constants and literals too: "s_movrelsd_2_b32 s1, 0x1234" is accepted (it
# refuses "s_movrels_b32 s1, 0x1234")
SALU_VALUE_SOURCES = frozenset({"S_MOVRELSD_2_B32"})

# VOP3 16-bit instructions with no op_sel operand: halves only by .l/.h (the assembler refuses
# "v_cndmask_b16 ... op_sel:[...]" on gfx1100, gfx1151 and gfx1201); CDNA's *_LEGACY_F16/U16/I16,
# whose code writes the half OPSEL[3] names, still take none ("v_mad_legacy_f16 v8, v2, v4, v6
# op_sel:[0,0,0,0]" is refused on gfx942 and gfx950, "v_mad_f16 ..." accepted), and so does
# CDNA's v_sad_u16 ("v_sad_u16 v8, v2, v4, v6 op_sel:[1,0,0]" refused on gfx942 and gfx950)
NO_OPSEL = frozenset({"V_CNDMASK_B16", "V_MAD_LEGACY_F16", "V_MAD_LEGACY_U16", "V_MAD_LEGACY_I16",
                      "V_FMA_LEGACY_F16", "V_DIV_FIXUP_LEGACY_F16", "V_SAD_U16"})

# The gfx9 dialect (CDNA) takes op_sel on the VOP3 instructions that are VOP3 only (not promoted
# from VOP1/VOP2/VOPC) and read or write a 16-bit operand or read OPSEL in their code (the
# manual's facts; "v_add_f16_e64 ... op_sel:[1,0,0]" and "v_dot2c_f32_f16_e64 ..." are refused on
# gfx942 and gfx950, "v_add_i16 ... op_sel:[1,0,0]" accepted). These write a 16-bit result into a 32-bit
# operand's low half and take it too: "v_ashr_pk_i8_i32 v8, v2, v4, v6 op_sel:[0,0,0,1]" is
# accepted on gfx950 (encoding OPSEL[3])
OPSEL_ON_32BIT_OPERANDS = frozenset({"V_ASHR_PK_I8_I32", "V_ASHR_PK_U8_I32"})

# RDNA4's syntax spells 16-bit VALU operands as whole VGPRs; op_sel then selects their halves only
# on these VOP3 instructions (the ones the reference disassembler prints op_sel for on gfx1201):
# "v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]" and "v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,0]" are
# accepted on gfx1201, "v_mul_lo_u16 ... op_sel:[1,0,0]", "v_xor_b16 ..." and the 64-bit forms of
# VOP1/VOP2/VOPC 16-bit instructions ("v_add_f16_e64 v1, v2, v3 op_sel:[1,0,0]") are refused.
# (Instructions whose op_sel is a byte select, lane flags or packed halves take it by those facts.)
OPSEL_WHOLE_VGPRS = frozenset({
    "V_ADD_NC_I16", "V_ADD_NC_U16", "V_SUB_NC_I16", "V_SUB_NC_U16", "V_ALIGNBIT_B32", "V_ALIGNBYTE_B32",
    "V_CVT_PK_NORM_I16_F16", "V_CVT_PK_NORM_U16_F16", "V_DIV_FIXUP_F16", "V_DOT2_BF16_BF16", "V_DOT2_F16_F16",
    "V_FMA_F16", "V_MAD_I16", "V_MAD_I32_I16", "V_MAD_U16", "V_MAD_U32_U16", "V_MAX3_I16", "V_MAX3_NUM_F16",
    "V_MAX3_U16", "V_MAXIMUM3_F16", "V_MAXIMUM_F16", "V_MAXIMUMMINIMUM_F16", "V_MAXMIN_NUM_F16", "V_MED3_I16",
    "V_MED3_NUM_F16", "V_MED3_U16", "V_MIN3_I16", "V_MIN3_NUM_F16", "V_MIN3_U16", "V_MINIMUM3_F16",
    "V_MINIMUM_F16", "V_MINIMUMMAXIMUM_F16", "V_MINMAX_NUM_F16", "V_PACK_B32_F16",
    # RDNA3's names of the same (gfx1100 takes "v_min3_f16 v8, v2, v4, v6 op_sel:[1,0,0]" and
    # "v_add_nc_u16 v8, v2, v4 op_sel:[1,0]" as it takes .h; "v_trunc_f16_e64 v8, v2 op_sel:[0,0]" is refused)
    "V_MIN3_F16", "V_MAX3_F16", "V_MED3_F16", "V_MAXMIN_F16", "V_MINMAX_F16"})

# VALU instructions printed without an encoding suffix although they have 32- and 64-bit forms
# (v_nop_e64's bytes print as "v_nop"; v_readfirstlane_b32's e32 bytes print without _e32), by
# dialect: gfx9 adds v_swap_b32 and v_clrexcp
NO_ENC_SUFFIX = {"gfx11": frozenset({"V_NOP", "V_READFIRSTLANE_B32", "V_PIPEFLUSH"}),
                 "gfx9": frozenset({"V_SWAP_B32", "V_CLREXCP"})}

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

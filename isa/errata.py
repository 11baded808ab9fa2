"""The one place where wavesmith disagrees with AMD's PDFs.

Each entry names the manual, the page, what the PDF says, what is right and the
evidence. The generator applies an entry only if the PDF still says what the entry
claims (`pdf`); if a newer PDF fixes the mistake, generation stops and asks for the
entry to be removed, so corrections never outlive the error they correct.

Kinds:
  field_bits  — a format field's bit range:        target (FORMAT, FIELD), pdf/fix (hi, lo)
  code_text   — an operand code's meaning:         target (FORMAT, FIELD, code), pdf/fix text
  add_field   — a field the PDF's table omits:     target (FORMAT, FIELD), fix (hi, lo, text)
  add_opcode  — an opcode the PDF's table omits or calls Reserved:
                                                   target (FORMAT, NAME), fix opcode
  opcode_enum — an OP field's inline enumeration contradicts the Instructions chapter
                (which wavesmith follows):        target (FORMAT, "OP"), pdf {NAME: opcode}
  promoted_offset — a VOP3 opcode table lists one native format's promoted opcodes at another
                offset than the text states:      target (FORMAT, NATIVE), pdf/fix offset
  dpp_ctrl_range — a DPP_CTRL row's code range the document leaves open: target ("DPP_CTRL", NAME),
                pdf first code, fix (lo, hi)
  add_pcode   — pseudocode the document lost (target (FORMAT, NAME), pdf None, fix the text)
  add_description — the description of an instruction the document does not describe (one an
                add_opcode entry adds): target (FORMAT, NAME), pdf None, fix the text; page is
                the opcode table's
  pcode_text  — wrong text in an instruction's pseudocode (page = its Instructions-chapter entry):
                                                   target (FORMAT, NAME), pdf/fix text
  dpp_table_name — an opcode the "Which instructions support DPP" table misspells or names too
                narrowly: target (ENCODING, name as printed), pdf that name, fix the name to read
  no_dpp      — an instruction that table allows DPP on which has no DPP form: target (ENCODING,
                NAME), pdf "Allow DPP", fix the reason (isa/gen/dpp.py applies both)
  dpp_limitation — an instruction CDNA's "Instruction Limitations" list (12.16.1) says cannot use DPP
                which the reference assembler takes DPP on: target ("DPP", NAME), pdf "cannot use DPP",
                fix what it takes (isa/gen/dpp.py leaves it out of tables["no_dpp"])
  image_opcodes — the opcode label of a group of rows of an image address table ("Image Opcodes with
                No Sampler" / "with a Sampler") the document lost: target (section title, the
                group's first row's components), pdf () (no label), fix the opcodes (isa/gen/image_addresses.py)
  image_d16   — an image instruction LLVM's syntax takes d16 on though the image chapter's D16 field
                ("Allowed only with these opcodes: ...") does not list it: target (FORMAT, NAME), pdf False,
                fix True (page = the D16 field's; isa/gen/image_d16.py applies it)
  modifier_use — a VALU modifier LLVM's syntax takes or refuses against what the entry gives
                isa.facts.modifier_use: target (NAME, FIELD: 'clamp', 'omod', 'neg_abs' or 'opsel'[, 'e64']),
                pdf the field's value from the entry, fix LLVM's (page = the Instructions-chapter entry; rows
                in isa/errata_modifiers.py; isa/gen/facts.py applies them to every encoding of NAME, with
                'e64' to its 64-bit encodings alone: the 32-bit one, whose SDWA form LLVM reads otherwise,
                keeps the entry's value)
  opsel_flags — OPSEL bits LLVM's syntax writes as flags (op_sel:[FI,BOUND_CTRL]) where the entry's
                description does not redefine them (isa.facts.opsel_flags): target (NAME, 'opsel_flags'),
                pdf the description's count, fix LLVM's (rows OPSEL_FLAG_ROWS in isa/errata_modifiers.py;
                isa/gen/facts.py applies them to every encoding of NAME)
  source_limits — sources LLVM's syntax limits otherwise than the code (isa.facts.source_limits,
                isa/gen/source_limits.py): target (NAME,), pdf the code's limits, fix LLVM's
                ((source, 'register' | 'inline'), ...) (isa/gen/facts.py applies them to every encoding of NAME)
"""
from __future__ import annotations

from .errata_fract import FRACT_ROWS
from .errata_modifiers import MODIFIER_ROWS, OPSEL_FLAG_ROWS
from .records import dataclass


@dataclass(frozen=True)
class Erratum:
    id: str
    archs: tuple[str, ...]
    page: dict            # arch -> physical PDF page of the wrong text
    kind: str
    target: tuple
    pdf: object           # what the PDF says (checked before applying)
    fix: object           # what wavesmith uses instead
    evidence: str


ERRATA: tuple[Erratum, ...] = (
    Erratum(
        "cdna3-v-max3-f32-pcode", ("cdna3",), {"cdna3": 343},
        "add_pcode", ("VOP3A", "V_MAX3_F32"), None,
        "D0.f32 = v_max_f32(v_max_f32(S0.f32, S1.f32), S2.f32)",
        "The conversion's V_MAX3_F32 entry ('Select the maximum of three single-precision float inputs') "
        "has no code block; V_MIN3_F32 has D0.f32 = v_min_f32(v_min_f32(S0.f32, S1.f32), S2.f32). "
        "LLVM 22 (gfx942) decodes 9286d3d1 64e3fd90 as v_max3_f32 v146, v100, |-0.5|, -|s63| clamp mul:4.",
    ),
    Erratum(
        "cdna-buffer-store-short-pcode", ("cdna3", "cdna4"), {"cdna3": 465, "cdna4": 510},
        "add_pcode", ("MUBUF", "BUFFER_STORE_SHORT"), None,
        "addr = CalcBufferAddr(VADDR.b32, SRSRC.b32, SOFFSET.b32, OFFSET.b32);\nMEM[addr].b16 = VDATA[15 : 0]",
        "Both conversions' BUFFER_STORE_SHORT entry ('Store 16 bits of data from a vector register into "
        "a buffer surface') has no code block; BUFFER_STORE_SHORT_D16_HI right after it stores "
        "MEM[addr].b16 = VDATA[31 : 16] and GLOBAL_STORE_SHORT stores MEM[addr].b16 = VDATA[15 : 0]. "
        "LLVM 22 (gfx942) decodes 0ed668e0 55050cfb as buffer_store_short v5, v85, s[48:51], src_vccz "
        "offen offset:1550 sc0 sc1 (gfx950: 006c68e0 4011092c -> buffer_store_short v17, v64, s[36:39], "
        "s44 idxen offset:3072 sc0).",
    ),
    Erratum(
        "cdna3-v-mul-hi-u32-pcode", ("cdna3",), {"cdna3": 366},
        "add_pcode", ("VOP3A", "V_MUL_HI_U32"), None,
        "D0.u32 = 32'U((64'U(S0.u32) * 64'U(S1.u32)) >> 32U)",
        "The conversion's V_MUL_HI_U32 entry keeps its description ('store the high 32 bits of the "
        "result') but no code block; V_MUL_HI_I32 right after it has D0.i32 = 32'I((64'I(S0.i32) * "
        "64'I(S1.i32)) >> 32U), the unsigned form is the same with U. LLVM 22 (gfx942) decodes "
        "4a0086d2 10100100 as v_mul_hi_u32 v74, s16, 8 (two 32-bit sources).",
    ),
    Erratum(
        "cdna3-v-madmk-f16-pcode", ("cdna3",), {"cdna3": 179},
        "add_pcode", ("VOP2", "V_MADMK_F16"), None,
        "tmp = S0.f16 * SIMM16.f16 + S1.f16;\nD0 = { 16'0, tmp.f16 }",
        "The conversion's V_MADMK_F16 entry ('Multiply a floating point input with a literal constant "
        "and add a second floating point input') has no code block; V_MADAK_F16 beside it has "
        "tmp = S0.f16 * S1.f16 + SIMM16.f16; D0 = { 16'0, tmp.f16 }. LLVM 22 (gfx942) decodes "
        "6f446148 cb7cd531 as v_madmk_f16 v48, ttmp3, 0x31d57ccb, v162: the constant multiplies.",
    ),
    Erratum(
        "cdna3-s-lshr-b64-pcode", ("cdna3", "cdna4"), {"cdna3": 104, "cdna4": 116},
        "add_pcode", ("SOP2", "S_LSHR_B64"), None,
        "D0.u64 = (S0.u64 >> S1[5 : 0].u32);\nSCC = D0.u64 != 0ULL",
        "The conversion's S_LSHR_B64 entry has its description but no code block (S_LSHL_B64 and "
        "S_LSHR_B32 beside it have theirs). The code is S_LSHL_B64's with the shift reversed, as the "
        "RDNA3 manual gives S_LSHR_B64 (D0.u64 = (S0.u64 >> S1.u[5 : 0].u)); LLVM 22 (gfx942) reads its "
        "shift amount as 32 bits (c616e28f -> s_lshr_b64 s[98:99], -6, s22).",
    ),
    Erratum(
        "cdna3-s-mul-i32-pcode", ("cdna3", "cdna4"), {"cdna3": 105, "cdna4": 117},
        "add_pcode", ("SOP2", "S_MUL_I32"), None,
        "D0.i32 = S0.i32 * S1.i32",
        "The conversion's S_MUL_I32 entry ('Multiply two signed 32-bit integer inputs and store the "
        "result into a scalar register'; the summary table: 'D = S0 * S1. Low 32 bits of result.') has "
        "no code block; the RDNA3 manual gives S_MUL_I32 as D0.i = S0.i * S1.i. LLVM 22 (gfx942) decodes "
        "04010492 as s_mul_i32 s4, s4, s1 (the shared kernels' code multiplies work-group ids by sizes with it).",
    ),
    Erratum(
        "cdna3-s-xor-b64-pcode", ("cdna3", "cdna4"), {"cdna3": 101, "cdna4": 113},
        "add_pcode", ("SOP2", "S_XOR_B64"), None,
        "D0.u64 = (S0.u64 ^ S1.u64);\nSCC = D0.u64 != 0ULL",
        "The conversion's S_XOR_B64 entry ('Calculate bitwise XOR on two scalar inputs ... set SCC iff "
        "the result is nonzero') has no code block; S_XOR_B32 beside it has D0.u32 = (S0.u32 ^ S1.u32); "
        "SCC = D0.u32 != 0U and S_OR_B64 the same at 64 bits. LLVM 22 (gfx942) decodes 6a008088 as "
        "s_xor_b64 s[0:1], vcc, s[0:1].",
    ),
    Erratum(
        "cdna3-s-cmp-gt-u32-pcode", ("cdna3", "cdna4"), {"cdna3": 135, "cdna4": 147},
        "add_pcode", ("SOPC", "S_CMP_GT_U32"), None,
        "SCC = S0.u32 > S1.u32",
        "The conversion's S_CMP_GT_U32 entry ('Set SCC to 1 iff the first scalar input is greater than "
        "the second scalar input') has no code block; S_CMP_GE_U32 after it has SCC = S0.u32 >= S1.u32 "
        "and S_CMP_GT_I32 SCC = S0.i32 > S1.i32. LLVM 22 (gfx942) decodes 0a8008bf as s_cmp_gt_u32 s10, 0.",
    ),
    Erratum(
        "cdna3-dpp-row-newbcast-range", ("cdna3",), {"cdna3": 552},
        "dpp_ctrl_range", ("DPP_CTRL", "DPP_ROW"), 0x150, (0x150, 0x15F),
        "The row 'DPP_ROW* 150 - ... Broadcast thread 0-15 within a row to the whole row' gives no end "
        "of its range (one code per source thread 0-15). LLVM 22 (gfx942) decodes DPP_CTRL 0x15f "
        "(fa1eba7f 1e5f21f2) as v_cvt_f32_f64_dpp ... row_newbcast:15 and 0x150 as row_newbcast:0.",
    ),
    Erratum(
        "rdna4-image-mip-opcodes", ("rdna4",), {"rdna4": 130},
        "image_opcodes", ("Image Opcodes with No Sampler", ("s", "mipid")), (),
        ("LOAD_MIP", "LOAD_MIP_PCK", "LOAD_MIP_PCK_SGN", "STORE_MIP", "STORE_MIP_PCK"),
        "The conversion's second no-sampler table stacks the rows after ATOMIC's into cells and keeps no "
        "opcode for the rows that end in mipid (a16 0: 1D s mipid ... 2D Array s t slice mipid); RDNA3 "
        "(page 108) and RDNA3.5 (page 110) label the same rows LOAD_MIP, LOAD_MIP_PCK, LOAD_MIP_PCK_SGN, "
        "STORE_MIP, STORE_MIP_PCK, and the page's own list names image_load_mip among the loads. LLVM 22 "
        "(gfx1201) assembles image_load_mip v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D (two "
        "address VGPRs: s, mipid) and image_store_mip_pck v[0:3], [v4, v5, v6], s[0:7] dmask:0xf "
        "dim:SQ_RSRC_IMG_2D (s, t, mipid).",
    ),
    Erratum(
        "rdna4-image-sample-opcodes", ("rdna4",), {"rdna4": 131},
        "image_opcodes", ("Image Opcodes with a Sampler", ("s",)), (), ("Sample", "GetLod"),
        "The conversion's sampler table starts '| 0 0 | 1D | s |': the first group's opcode cell is "
        "lost (the later groups keep theirs: Sample \"_L\", Sample \"_CL\", Gather); RDNA3 (page 109) "
        "and RDNA3.5 (page 111) label the same rows Sample and GetLod. LLVM 22 (gfx1201) assembles "
        "image_sample v[0:3], [v4, v5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D (s, t) and "
        "image_get_lod v[0:1], [v4, v5, v6], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_CUBE (s, t, face), "
        "and refuses image_sample with three address VGPRs for 2D ('image address size does not match dim "
        "and a16').",
    ),
    Erratum(
        "rdna3-image-gather4h-d16", ("rdna3", "rdna3.5"), {"rdna3": 105, "rdna3.5": 107},
        "image_d16", ("MIMG", "IMAGE_GATHER4H"), False, True,
        "The image chapter's D16 field ('VGPR-Data-16bit. On loads, convert data in memory to 16-bit format "
        "... Allowed only with these opcodes: IMAGE_SAMPLE* IMAGE_GATHER4 ...') does not list IMAGE_GATHER4H, "
        "whose description ('Fetch 1 component per texel from 4x1 texels') makes it a gather of texels as "
        "IMAGE_GATHER4 is (4 VGPRs when D16=0, 2 when D16=1, the DMASK field says of IMAGE_GATHER4*). LLVM 22 "
        "(gfx1100 and gfx1151) assembles image_gather4h v[0:1], v[4:5], s[0:7], s[8:11] dmask:0x1 "
        "dim:SQ_RSRC_IMG_2D d16 to 04 01 42 f2 04 00 00 08 (D16 set; without d16 the data is v[0:3]).",
    ),
    Erratum(
        "rdna4-image-gather4h-d16", ("rdna4",), {"rdna4": 128},
        "image_d16", ("VSAMPLE", "IMAGE_GATHER4H"), False, True,
        "The conversion's image Instruction Fields table gives D16 'Allowed only with these opcodes: "
        "IMAGE_SAMPLE* IMAGE_GATHER4 IMAGE_MSAA_LOAD IMAGE_LOAD IMAGE_LOAD_MIP IMAGE_STORE IMAGE_STORE_MIP', "
        "without IMAGE_GATHER4H ('Gather 4 single-component texels from a 4x1 row vector'). LLVM 22 (gfx1201) "
        "assembles image_gather4h v[0:1], [v4, v5], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D d16 to "
        "21 00 64 e4 00 00 00 04 04 05 00 00 (D16, bit 5, set).",
    ),
    Erratum(
        "rdna3-image-msaa-load-d16", ("rdna3",), {"rdna3": 105},
        "image_d16", ("MIMG", "IMAGE_MSAA_LOAD"), False, True,
        "The RDNA3 D16 field's list ('Allowed only with these opcodes: IMAGE_SAMPLE* IMAGE_GATHER4 IMAGE_LOAD "
        "IMAGE_LOAD_MIP IMAGE_STORE IMAGE_STORE_MIP') leaves out IMAGE_MSAA_LOAD, which the RDNA3.5 manual's "
        "same field lists (page 107) and RDNA4's too. LLVM 22 (gfx1100) assembles image_msaa_load v[0:1], "
        "v[4:6], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA d16 to 18 01 62 f0 04 00 00 00 (D16, bit 17, set; "
        "without d16 the data is v[0:3]).",
    ),
    Erratum(
        "cdna3-vop3a-vop1-offset", ("cdna3", "cdna4"), {"cdna3": 540, "cdna4": 586},
        "promoted_offset", ("VOP3A", "VOP1"), 0x180, 0x140,
        "The VOP3A opcode table lists the VOP1 instructions at VOP1 opcode + 0x180 (V_MOV_B32 = 385), "
        "where 'VOP1 using VOP3 encoding' states + 0x140; at + 0x180 nine rows collide with VOP3A's own "
        "opcodes (450 = V_FREXP_MANT_F16 and V_MAD_I32_I24). LLVM 22 (gfx942) decodes 000041d1 0b000000 "
        "(OP = 0x141) as v_mov_b32_e64 v0, s11 and encodes it back the same way.",
    ),
    Erratum(
        "cdna3-vop3p-encoding-width", ("cdna3", "cdna4"), {"cdna3": 547, "cdna4": 594},
        "field_bits", ("VOP3P", "ENCODING"), (31, 24), (31, 23),
        "The table gives ENCODING [31:24] = 110100111, a 9-bit value in an 8-bit field, and OP "
        "[22:16], leaving bit 23 unassigned. LLVM 22 (gfx942) decodes 0452a3d3... (dword 0xd3a35204, "
        "bits [31:23] = 0b110100111, OP = 35) as v_dot2_f32_f16 and encodes it back the same way.",
    ),
    Erratum(
        "cdna3-vop3p-mai-encoding-width", ("cdna3", "cdna4"), {"cdna3": 548, "cdna4": 596},
        "field_bits", ("VOP3P-MAI", "ENCODING"), (31, 24), (31, 23),
        "As cdna3-vop3p-encoding-width: LLVM 22 (gfx942) decodes 0000e1d3... (dword 0xd3e10000, "
        "bits [31:23] = 0b110100111, OP = 97) as v_mfma_f32_16x16x16_bf16.",
    ),
    Erratum(
        "rdna3-v-dual-dot2acc-f32-bf16-pcode", ("rdna3", "rdna3.5"), {"rdna3": 370, "rdna3.5": 394},
        "add_pcode", ("VOPD", "V_DUAL_DOT2ACC_F32_BF16"), None,
        "tmp = D0.f32;\ntmp += bf16_to_f32(S0[15 : 0].bf16) * bf16_to_f32(S1[15 : 0].bf16);\n"
        "tmp += bf16_to_f32(S0[31 : 16].bf16) * bf16_to_f32(S1[31 : 16].bf16);\nD0.f32 = tmp",
        "Both manuals' VOPD entry reads only 'Dot product of packed brain-float values, accumulate with "
        "destination. The initial value in D is used as S2.' with no code block and no VOP2 "
        "V_DOT2ACC_F32_BF16 to perform (the f16 one performs VOP2 V_DOT2ACC_F32_F16: packed sources). "
        "The code is the RDNA4 manual's for the same VOPD opcode 13 (page 421) and, with D0 as S2, the "
        "RDNA3.5 manual's VOP3P V_DOT2_F32_BF16 (page 388; S0/S1 pk_bf16). LLVM 22 (gfx1100 and gfx1151) "
        "reads src0 as a packed pair: v_dual_dot2acc_f32_bf16 v0, 0x3f803f80, v2 :: v_dual_mov_b32 v3, v4 "
        "is 0xff,0x04,0x50,0xcb,0x04,0x01,0x02,0x00 + literal 0x80,0x3f,0x80,0x3f; -17 is the literal "
        "0xffffffef (0xef,0xff,0xff,0xff), 0x3f800000 a literal, 1.0 the inline code 0xf2.",
    ),
    Erratum(
        "vop3p-encoding-width", ("rdna3", "rdna3.5"), {"rdna3": 176, "rdna3.5": 178},
        "field_bits", ("VOP3P", "ENCODING"), (31, 26), (31, 24),
        "The table gives ENCODING [31:26] = 'b11001100, an 8-bit value in a 6-bit field. "
        "LLVM encodes v_pk_add_f16 v0, v1, v2 as 0xcc0f4000 ...: bits [31:24] = 0xcc. "
        "A 6-bit field would also make VOP3P collide with VOPD ('b110010) and VINTERP.",
    ),
    Erratum(
        "vinterp-encoding-width", ("rdna3", "rdna3.5", "rdna4"), {"rdna3": 181, "rdna3.5": 183, "rdna4": 202},
        "field_bits", ("VINTERP", "ENCODING"), (31, 26), (31, 24),
        "The table gives ENCODING [31:26] = 'b11001101, an 8-bit value in a 6-bit field. "
        "LLVM encodes v_interp_p10_f32 as 0xcd00.... (bits [31:24] = 0xcd), as the LDSDIR "
        "table does for its own 'b11001110 in [31:24].",
    ),
    Erratum(
        "sopk-sdst-m0", ("rdna3", "rdna3.5"), {"rdna3": 155, "rdna3.5": 157},
        "code_text", ("SOPK", "SDST", 124), "M0. Memory register 0.", "NULL",
        "The SOPK SDST list swaps M0 and NULL. Every other operand table of the same manual "
        "gives 124 = NULL, 125 = M0, and LLVM encodes s_movk_i32 m0, 0 with sdst = 125.",
    ),
    Erratum(
        "sopk-sdst-null", ("rdna3", "rdna3.5"), {"rdna3": 155, "rdna3.5": 157},
        "code_text", ("SOPK", "SDST", 125), "NULL", "M0. Misc register 0.",
        "See sopk-sdst-m0: LLVM encodes s_movk_i32 null, 0 with sdst = 124.",
    ),
    Erratum(
        "smem-dlc-bit", ("rdna3", "rdna3.5"), {"rdna3": 160, "rdna3.5": 162},
        "field_bits", ("SMEM", "DLC"), (14, 14), (13, 13),
        "The SMEM table puts DLC at bit 14 and GLC at bit 16 (bit 16 is inside OP's neighbourhood "
        "and bit 13 is left unassigned). LLVM 22 decodes f4282400... (bit 13 set) as "
        "s_buffer_load_b128 ... dlc and f4284000... (bit 14 set) as ... glc, and encodes them back "
        "the same way.",
    ),
    Erratum(
        "smem-glc-bit", ("rdna3", "rdna3.5"), {"rdna3": 160, "rdna3.5": 162},
        "field_bits", ("SMEM", "GLC"), (16, 16), (14, 14),
        "See smem-dlc-bit: LLVM 22 decodes bit 14 as glc (f4284000... -> s_buffer_load_b128 "
        "s[0:3], s[0:3], s0 offset:0x80002 glc).",
    ),
    Erratum(
        "rdna4-flat-op-bits", ("rdna4",), {"rdna4": 213},
        "field_bits", ("VFLAT", "OP"), (20, 13), (21, 14),
        "The FLAT, GLOBAL and SCRATCH field table (one table for the three formats) gives OP [20:13]. "
        "LLVM 22's assembler (gfx1201) encodes global_load_b32 v1, v2, s[0:1] offset:4 as 0xee050000 ...: "
        "GLOBAL_LOAD_B32 is opcode 20 in the manual's VGLOBAL table, which is bits [21:14] of that "
        "dword ([20:13] would read 40); every FLAT/GLOBAL/SCRATCH row of LLVM 22's gfx1201 corpus "
        "decodes to the manual's name at [21:14].",
    ),
    Erratum(
        "rdna4-flat-ioffset", ("rdna4",), {"rdna4": 213},
        "add_field", ("VFLAT", "IOFFSET"), None, (95, 72, "Address offset, signed byte."),
        "The FLAT, GLOBAL and SCRATCH field table ends at VADDR [71:64] although the formats are 96 "
        "bits wide and the instructions take an offset. LLVM 22's assembler (gfx1201) encodes "
        "flat_load_b32 v1, v[2:3] offset:-1 with 0xffffff in bits [95:72] and scratch_load_b32 v1, "
        "off, s2 offset:8 with 0x000008 there (a 24-bit signed offset, as VBUFFER's IOFFSET [95:72]).",
    ),
    Erratum(
        "rdna4-vimage-vaddr4-bits", ("rdna4",), {"rdna4": 209},
        "field_bits", ("VIMAGE", "VADDR4"), (56, 63), (63, 56),
        "The VIMAGE field table gives VADDR4 as [56:63], high and low bit swapped. LLVM 22's assembler "
        "(gfx1201) encodes image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11], v[12:14]], "
        "s[0:3] with 0x0c (v12) in bits [63:56].",
    ),
    Erratum(
        "rdna4-v-lshl-or-b32-pcode", ("rdna4",), {"rdna4": 494},
        "add_pcode", ("VOP3", "V_LSHL_OR_B32"), None, "D0.u32 = ((S0.u32 << S1[4 : 0].u32) | S2.u32)",
        "The conversion's V_LSHL_OR_B32 entry (opcode 598: 'Given a shift count in the second input, "
        "calculate the logical shift left of the first input, then calculate the bitwise OR of the "
        "intermediate result and the third input') has no code block; V_AND_OR_B32 after it has "
        "D0.u32 = ((S0.u32 & S1.u32) | S2.u32), and the RDNA3 manual gives V_LSHL_OR_B32 as "
        "D0.u = ((S0.u << S1.u[4 : 0].u) | S2.u). LLVM 22 (gfx1201) decodes 020056d6 e9691506 as "
        "v_lshl_or_b32 v2, v233, 52, v133 (three 32-bit sources).",
    ),
    Erratum(
        "rdna4-v-maximumminimum-f16-pcode", ("rdna4",), {"rdna4": 502},
        "add_pcode", ("VOP3", "V_MAXIMUMMINIMUM_F16"), None,
        "D0.f16 = v_minimum_f16(v_maximum_f16(S0.f16, S1.f16), S2.f16)",
        "The conversion's V_MAXIMUMMINIMUM_F16 entry ('Select the IEEE maximum() of the first two "
        "half-precision float inputs and then select the IEEE minimum() of that result and third "
        "half-precision float input') has no code block; V_MINIMUMMAXIMUM_F16 has "
        "D0.f16 = v_maximum_f16(v_minimum_f16(S0.f16, S1.f16), S2.f16), V_MAXIMUMMINIMUM_F32 the f32 "
        "form of the fix. LLVM 22 (gfx1201) decodes 04806fd6 443bca04 as v_maximumminimum_f16 v4, v68, "
        "v29, v50 clamp.",
    ),
    Erratum(
        "rdna4-v-s-rsq-f32-pcode", ("rdna4",), {"rdna4": 505},
        "add_pcode", ("VOP3", "V_S_RSQ_F32"), None, "D0.f32 = 1.0F / sqrt(S0.f32)",
        "The conversion's V_S_RSQ_F32 entry ('Calculate the reciprocal of the square root of the "
        "single-precision float input using IEEE rules and store the result into a scalar register') "
        "has no code block before its functional examples, which are V_RSQ_F32's; V_RSQ_F32 has "
        "D0.f32 = 1.0F / sqrt(S0.f32). LLVM 22 (gfx1201) decodes V_S_RSQ_F32 (VOP3 opcode 646) with "
        "an SGPR destination and one f32 source.",
    ),
    Erratum(
        "rdna4-s-bfm-b64-pcode", ("rdna4",), {"rdna4": 227},
        "add_pcode", ("SOP2", "S_BFM_B64"), None,
        "D0.u64 = (((1ULL << S0[5 : 0].u32) - 1ULL) << S1[5 : 0].u32)",
        "The conversion's S_BFM_B64 entry ('Calculate a bitfield mask given a field offset and size') "
        "has no code block; S_BFM_B32 before it has D0.u32 = (((1U << S0[4 : 0].u32) - 1U) << "
        "S1[4 : 0].u32), and the RDNA3 manual gives S_BFM_B64 as D0.u64 = (((1ULL << S0.u[5 : 0].u) - "
        "1ULL) << S1.u[5 : 0].u): 32-bit sources, a 64-bit mask. LLVM 22 (gfx1201) decodes 04c89e95 as "
        "s_bfm_b64 s[30:31], s4, -8 (32-bit sources).",
    ),
    Erratum(
        "rdna4-v-interp-p2-f32-pcode", ("rdna4",), {"rdna4": 581},
        "add_pcode", ("VINTERP", "V_INTERP_P2_F32"), None,
        "D0.f32 = fma(VGPR[(laneId.u32 & 0xfffffffcU) + 2U][SRC0.u32].f32, S1.f32, S2.f32)",
        "The conversion's V_INTERP_P2_F32 entry describes the operation ('performs a V_FMA_F32 "
        "operation using fixed DPP8 settings. S0 refers to a VGPR that contains packed interpolation "
        "data. S1 is the J coordinate. S2 is the result of a previous V_INTERP_P10_F32 instruction', "
        "lane select {2,2,2,2,6,6,6,6}) but has no code block; the RDNA3.5 manual gives the same "
        "entry this code. LLVM 22 (gfx1201) decodes 000001cd 20056204 as v_interp_p2_f32 v0, v32, "
        "v2, v24 wait_exp:0 (three f32 sources).",
    ),
    Erratum(
        "mimg-nsa-addr3", ("rdna3", "rdna3.5"), {"rdna3": 190, "rdna3.5": 192},
        "add_field", ("MIMG", "ADDR3"), None, (87, 80, "Fourth address register. Present only when NSA=1."),
        "The NSA dword holds 'up to 4 unique VGPR addresses' (NSA field text) but the table "
        "lists only ADDR1 and ADDR2; LLVM's gfx11 MIMG NSA encoding places vaddr3 in [87:80].",
    ),
    Erratum(
        "mimg-nsa-addr4", ("rdna3", "rdna3.5"), {"rdna3": 190, "rdna3.5": 192},
        "add_field", ("MIMG", "ADDR4"), None, (95, 88, "Fifth address register. Present only when NSA=1."),
        "As mimg-nsa-addr3; LLVM places vaddr4 in [95:88] of the 96-bit NSA form.",
    ),
)

# Instructions LLVM 22 decodes and emits that the RDNA3/RDNA3.5 opcode tables omit. The
# evidence column quotes LLVM's disassembly of the encoding (../shared/conformance/llvm).
_MISSING = (
    ("SMEM", "S_ATC_PROBE", 34, {"rdna3": 160, "rdna3.5": 162}, "f4880103 ... -> s_atc_probe 4, s[6:7], s90"),
    ("SMEM", "S_ATC_PROBE_BUFFER", 35, {"rdna3": 160, "rdna3.5": 162}, "f48c0000 ... -> s_atc_probe_buffer 0, s[0:3], s0"),
    ("SOPK", "S_SUBVECTOR_LOOP_BEGIN", 22, {"rdna3": 155, "rdna3.5": 157}, "bb001104 -> s_subvector_loop_begin s0, 4356"),
    ("SOPK", "S_SUBVECTOR_LOOP_END", 23, {"rdna3": 155, "rdna3.5": 157}, "bbc33d01 -> s_subvector_loop_end s67, 15617"),
    ("SOPP", "S_WAITCNT_DEPCTR", 8, {"rdna3": 159, "rdna3.5": 161},
     "bf885400 -> s_waitcnt_depctr ...; the table lists opcode 8 as Reserved, section 5.2 names S_WAIT_DEPCTR"),
    ("SOPP", "S_TTRACEDATA", 58, {"rdna3": 159, "rdna3.5": 161}, "bfba0000 -> s_ttracedata"),
    ("SOPP", "S_TTRACEDATA_IMM", 59, {"rdna3": 159, "rdna3.5": 161}, "bfbb0001 -> s_ttracedata_imm 0x1"),
)

# Instructions LLVM 22 decodes and emits for gfx942 and gfx950 that the CDNA3 and CDNA4 opcode
# tables omit (the VOP3A rows are the VOP3 forms of the VOP1 rows, at the stated + 0x140), with the
# page of the table in each manual. The evidence quotes the gfx942 corpus; gfx950's has the same
# mnemonics at the same opcodes (../shared/conformance/llvm/gfx950.tsv.gz).
_MISSING_CDNA = (
    ("SOP2", "S_RFE_RESTORE_B64", 43, {"cdna3": 522, "cdna4": 568}, "40ff8095 3b9b6bdd -> s_rfe_restore_b64 s[64:65], 0xdd6b9b3b"),
    ("SOPP", "S_ENDPGM_ORDERED_PS_DONE", 30, {"cdna3": 528, "cdna4": 574}, "00009ebf -> s_endpgm_ordered_ps_done"),
    ("SMEM", "S_ATC_PROBE", 38, {"cdna3": 529, "cdna4": 575}, "0e589ac0 9bc71efe -> s_atc_probe 0x60, s[28:29], exec_hi offset:-0x13865"),
    ("SMEM", "S_ATC_PROBE_BUFFER", 39, {"cdna3": 529, "cdna4": 575}, "00009ec0 20900000 -> s_atc_probe_buffer 0, s[0:3], 0x9020"),
    ("VOP1", "V_SCREEN_PARTITION_4SE_B32", 55, {"cdna3": 533, "cdna4": 579}, "186f2c7f -> v_screen_partition_4se_b32_e32 v150, v24"),
    ("VOP1", "V_EXP_LEGACY_F32", 75, {"cdna3": 533, "cdna4": 579}, "02966e7f -> v_exp_legacy_f32_e32 v183, s2"),
    ("VOP1", "V_LOG_LEGACY_F32", 76, {"cdna3": 533, "cdna4": 579}, "1698e47f -> v_log_legacy_f32_e32 v242, s22"),
    ("VOP3A", "V_SCREEN_PARTITION_4SE_B32", 375, {"cdna3": 540, "cdna4": 586}, "000077d1 15000000 -> v_screen_partition_4se_b32_e64 v0, s21"),
    ("VOP3A", "V_EXP_LEGACY_F32", 395, {"cdna3": 540, "cdna4": 586}, "00808bd1 6a000000 -> v_exp_legacy_f32_e64 v0, vcc_lo clamp"),
    ("VOP3A", "V_LOG_LEGACY_F32", 396, {"cdna3": 540, "cdna4": 586}, "00808cd1 45000000 -> v_log_legacy_f32_e64 v0, s69 clamp"),
)

ERRATA += tuple(
    Erratum(f"missing-cdna-{fmt.lower()}-{name.lower().replace('_', '-')}", tuple(pages), pages,
            "add_opcode", (fmt, name), None, opcode,
            f"The {fmt} opcode table does not list opcode {opcode}. LLVM 22 (gfx942) decodes {evidence} "
            f"(../shared/conformance/llvm/gfx942.tsv.gz) and assembles it back to the same bytes"
            + (", as it does for gfx950." if "cdna4" in pages else "."))
    for fmt, name, opcode, pages, evidence in _MISSING_CDNA
)

# S_ENDPGM_ORDERED_PS_DONE, which the CDNA manuals omit (the add_opcode entry above), is described
# by the RDNA3 manual (page 253), for the same opcode name and operands; isa/control.py reads from
# the description that it ends the wave.
_ENDPGM_ORDERED_PS_DONE = (
    "End of program; signal that a wave has exited its POPS critical section and terminate wavefront. "
    "The hardware implicitly executes S_WAITCNT 0 before executing this instruction. This instruction is an "
    "optimization that combines S_SENDMSG(MSG_ORDERED_PS_DONE) and S_ENDPGM; there may be cases where the "
    "message needs to be sent separately, in which case the shader can be terminated with a normal S_ENDPGM "
    "instruction. See S_ENDPGM for additional variants.")
ERRATA += (
    Erratum("cdna-s-endpgm-ordered-ps-done-description", ("cdna3", "cdna4"), {"cdna3": 528, "cdna4": 574},
            "add_description", ("SOPP", "S_ENDPGM_ORDERED_PS_DONE"), None, _ENDPGM_ORDERED_PS_DONE,
            "The CDNA3 and CDNA4 manuals neither list nor describe SOPP opcode 30 (see "
            "missing-cdna-sopp-s-endpgm-ordered-ps-done). The description is the RDNA3 manual's (page 253) "
            "with its S_WAITCNT_VSCNT, a counter CDNA has no instruction for, left out. LLVM 22 decodes "
            "00009ebf as s_endpgm_ordered_ps_done on gfx942 and gfx950."),
)

# The VOP1 instructions above that neither manual describes (add_opcode entries): their code states
# only the operands LLVM 22 reads and writes -- one source, one VGPR result, each typed as LLVM's
# syntax treats it -- through a function no manual defines (`undescribed`), and BEHAVIOUR_UNKNOWN
# below keeps the emulator from running that. Floats: LLVM takes neg/abs on the source and clamp
# and mul:/div: on the result of v_exp/log_legacy_f32_e64 (their names' F32); bits: it refuses
# neg/abs on v_screen_partition_4se_b32's source. (target VOP1: the VOP3A forms take it too)
_UNDESCRIBED_VOP1 = (
    ("V_SCREEN_PARTITION_4SE_B32", 55, "b32", "b32",
     "v_screen_partition_4se_b32_e64 v0, s21 -> 000077d1 15000000; v_screen_partition_4se_b32_e64 v0, -v1 -> "
     "error: not a valid operand; v_screen_partition_4se_b32_e64 v0, v1 clamp -> error: invalid operand for "
     "instruction"),
    ("V_EXP_LEGACY_F32", 75, "f32", "f32",
     "v_exp_legacy_f32_e64 v0, -|v1| clamp mul:2 -> 00818bd1 01010028, v_exp_legacy_f32_e32 v183, s2 -> 02966e7f"),
    ("V_LOG_LEGACY_F32", 76, "f32", "f32",
     "v_log_legacy_f32_e64 v0, -|v1| clamp mul:2 -> 00818cd1 01010028, v_log_legacy_f32_e32 v242, s22 -> 1698e47f"),
)
ERRATA += tuple(
    Erratum(f"{arch}-{name.lower().replace('_', '-')}-operands", (arch,), {arch: page}, "add_pcode", ("VOP1", name),
            None,
            f"// The manual does not describe this instruction (VOP1 opcode {op}); only its operands are known:\n"
            f"// one {src} source and a {dst} result.\n"
            f"D0.{dst} = undescribed(S0.{src})",
            f"The CDNA manuals omit {name} (see missing-cdna-vop1-{name.lower().replace('_', '-')}). LLVM 22 "
            f"(gfx942, gfx950) takes one source and a VGPR result: {evidence}.")
    for name, op, src, dst, evidence in _UNDESCRIBED_VOP1 for arch, page in (("cdna3", 533), ("cdna4", 579))
)

# CDNA4's V_MFMA_LD_SCALE_B32 (VOP3P 44, added by missing-cdna4-vop3p-v-mfma-ld-scale-b32): the opcode
# table omits it; section 7.2 "Block Scaled Matrices" (page 62) describes it as the first two dwords of
# a 4-dword V_MFMA_SCALE_* ("Operands of Load-Scale"): SRC0 Matrix A's scale, SRC1 Matrix B's, no
# destination. Its description (isa.facts.loads_scales reads it) is that section's, its code the two reads.
_LD_SCALE_DESCRIPTION = (
    "Load-Scale factors for the V_MFMA_SCALE_F32_16X16X128_F8F6F4 or V_MFMA_SCALE_F32_32X32X64_F8F6F4 "
    "instruction that follows (the first two DWORDs of a 4-DWORD \"SCALE\" op). SRC0: Matrix A scale, SRC1: "
    "Matrix B scale; {OP_SEL_HI[i], OP_SEL[i]} defines which byte of each is used. Scale values can be VGPRs "
    "or inline constants. The scale value is used just for one instruction.")
ERRATA += (
    Erratum("cdna4-v-mfma-ld-scale-b32-description", ("cdna4",), {"cdna4": 596}, "add_description",
            ("VOP3P", "V_MFMA_LD_SCALE_B32"), None, _LD_SCALE_DESCRIPTION,
            "The CDNA4 opcode table omits VOP3P 44 (see missing-cdna4-vop3p-v-mfma-ld-scale-b32); section 7.2 "
            "(page 62) describes the load-scale half of V_MFMA_SCALE_*: 'Scale values are set for MFMA with "
            "4-dword instructions that combine a \"Load-Scale factors\" and MFMA functions into one instruction', "
            "its operands table SRC0 'Matrix A scale', SRC1 'Matrix B scale'. LLVM 22 (gfx950) prints "
            "v_mfma_ld_scale_b32 before those MFMAs."),
    Erratum("cdna4-v-mfma-ld-scale-b32-operands", ("cdna4",), {"cdna4": 596}, "add_pcode",
            ("VOP3P", "V_MFMA_LD_SCALE_B32"), None,
            "// Section 7.2 (page 62): the scales of the MFMA that follows; no destination.\n"
            "scaleA = S0.b32;\nscaleB = S1.b32",
            "Section 7.2 (page 62), 'Operands of Load-Scale': SRC0 Matrix A scale, SRC1 Matrix B scale, no "
            "result. LLVM 22 (gfx950) takes two 32-bit sources and no destination: v_mfma_ld_scale_b32 v1, v2 -> "
            "0040acd3 01050218, v_mfma_ld_scale_b32 s1, 1.0 -> 0040acd3 01e40118; v_mfma_ld_scale_b32 v[0:1], v2 "
            "and v_mfma_ld_scale_b32 v1, v2, v3 are refused ('invalid operand for instruction')."),
)

# Instructions LLVM 22 decodes for gfx950 and assembles back to the same bytes that only the CDNA4
# opcode tables omit (the CDNA3 manual lists the DS_GWS_* opcodes at the same numbers).
_MISSING_CDNA4 = (
    ("DS", "DS_GWS_INIT", 153, 600, "000033d9 14000000 -> ds_gws_init v20 gds (the CDNA3 manual's DS table: 153 DS_GWS_INIT)"),
    ("DS", "DS_GWS_SEMA_BR", 155, 600, "0e1037d9 24000000 -> ds_gws_sema_br v36 offset:4110 gds (the CDNA3 manual's DS table: 155 DS_GWS_SEMA_BR)"),
    ("DS", "DS_GWS_BARRIER", 157, 600, "800a3bd9 28000000 -> ds_gws_barrier v40 offset:2688 gds (the CDNA3 manual's DS table: "
     "157 DS_GWS_BARRIER)"),
    ("VOP3P", "V_MFMA_LD_SCALE_B32", 44, 596,
     "0040acd3 1db10008 -> v_mfma_ld_scale_b32 v29, s88 op_sel_hi:[1,0]; it loads the scale operands of the "
     "V_MFMA_SCALE_F32_16X16X128_F8F6F4 / _32X32X64_F8F6F4 the manual's MFMA table lists, and LLVM prints it "
     "before them (the table has no opcode 44)"),
)

ERRATA += tuple(
    Erratum(f"missing-cdna4-{fmt.lower()}-{name.lower().replace('_', '-')}", ("cdna4",), {"cdna4": page},
            "add_opcode", (fmt, name), None, opcode,
            f"The {fmt} opcode table does not list opcode {opcode}. LLVM 22 (gfx950) decodes {evidence} "
            f"and assembles it back to the same bytes.")
    for fmt, name, opcode, page, evidence in _MISSING_CDNA4
)

# CDNA4 entries whose code block the Markdown conversion lost (the entry keeps its description),
# with the CDNA3 manual's code for the same entry; the evidence is what LLVM 22 prints for gfx950
# (../shared/conformance/llvm/gfx950.tsv.gz), the operand count and types the code implies.
_LOST_PCODE_CDNA4 = (
    ("VOP3A", "V_MAD_U32_U24", "D0.u32 = 32'U(S0.u24) * 32'U(S1.u24) + S2.u32", 364,
     "LLVM 22 decodes 0280c3d1 89840802 as v_mad_u32_u24 v2, 9, s66, 2 clamp"),
    ("VOP3A", "V_FMA_F64", "D0.f64 = fma(S0.f64, S1.f64, S2.f64)", 367,
     "LLVM 22 decodes 1400ccd1 1e010030 as v_fma_f64 v[20:21], -v[30:31], s[0:1], s[0:1] mul:4"),
    ("VOP3A", "V_MAX3_U32", "D0.u32 = v_max_u32(v_max_u32(S0.u32, S1.u32), S2.u32)", 369,
     "LLVM 22 decodes 0600d5d1 a6300207 as v_max3_u32 v6, 38, v24, v192"),
    ("VOP3A", "V_MIN3_F16", "D0.f16 = v_min_f16(v_min_f16(S0.f16, S1.f16), S2.f16)", 384,
     "LLVM 22 decodes 0aa7f4d1 a16740ea as v_min3_f16 v10, -|v161|, -|s51|, -|16| op_sel:[0,0,1,0] clamp mul:2"),
    ("VOP3A", "V_OR3_B32", "D0.u32 = (S0.u32 | S1.u32 | S2.u32)", 387,
     "LLVM 22 decodes 000002d2 940c8200 as v_or3_b32 v0, 20, v6, s32"),
)

ERRATA += tuple(
    Erratum(f"cdna4-{name.lower().replace('_', '-')}-pcode", ("cdna4",), {"cdna4": page}, "add_pcode",
            (fmt, name), None, code,
            f"The conversion's {name} entry has its description but no code block; the CDNA3 manual gives the "
            f"same entry this code. {evidence}.")
    for fmt, name, code, page, evidence in _LOST_PCODE_CDNA4)

ERRATA += tuple(
    Erratum(
        f"cdna4-v-bitop3-b{bits}-result", ("cdna4",), {"cdna4": {16: 390, 32: 391}[bits]},
        "pcode_text", ("VOP3A", f"V_BITOP3_B{bits}"), f"D.b{bits} = tmp.b{bits}", f"D0.b{bits} = tmp.b{bits}",
        f"V_BITOP3_B{bits}'s code assigns its result to D, where every other entry of the manual writes D0 "
        f"(the destination VGPR); LLVM 22 (gfx950) decodes {evidence}, a VGPR destination first.")
    for bits, evidence in ((16, "0b6433d2 00020880 as v_bitop3_b16 v11, s0, s1, s2 bitop3:0x24 op_sel:[0,0,1,1]"),
                           (32, "220134d2 167f5984 as v_bitop3_b32 v34, v22, 63, v22 bitop3:0xc")))

ERRATA += tuple(
    Erratum(
        f"cdna4-v-cvt-scalef32-f16-{src}-half", ("cdna4",), {"cdna4": page},
        "pcode_text", ("VOP3A", f"V_CVT_SCALEF32_F16_{src.upper()}"), "D0 = tmp.b32", "D0.f16 = tmp",
        f"The code writes its f16 result as 32 bits (`D0 = tmp.b32`) after the line `// OPSEL[3] controls "
        f"destination hi/lo`: one half written, the other kept, as the manual's other VOP3-only 16-bit results "
        f"(isa.errata.HALF_RESULTS' cdna4 rule, which the fix's D0.f16 takes). LLVM 22 agrees: its OpenCL front end's code for "
        f"__builtin_amdgcn_cvt_scalef32_f16_{src}(old, src, scale, sel, hi) (gfx950) loads `old` into the "
        f"destination VGPR first, and hi = true sets op_sel's destination bit (v_cvt_scalef32_f16_{src} v1, v2, v3 "
        f"op_sel:[0,1,1] -> OPSEL[3], byte 1 0x50).")
    for src, page in (("fp8", 398), ("bf8", 398)))

# CDNA3/CDNA4/RDNA4's V_CVT_SR_FP8_F32 / V_CVT_SR_BF8_F32: the code adds the random bits below the
# kept mantissa bits and then converts under ROUND_MODE = ROUND_NEAREST_EVEN; the manuals' text says
# those conversions truncate. (family, format, {name: physical page}, where the text says it)
_SR_TRUNCATE = (
    ("cdna3", "VOP3A", {"FP8": 375, "BF8": 375},
     "CDNA3 manual 7.2 'BF8 and FP8 Formats and Conversions' (page 50): 'These ops add a random value "
     "from the specified VGPR and then truncate to the smaller result data type'; table 31 lists the "
     "rounding of CVT_SR_*8_F32 as 'Stochastic Rounding' where CVT_PK_*8_F32's is 'RNE'"),
    ("cdna4", "VOP3A", {"FP8": 420, "BF8": 421},
     "CDNA4 manual 7.3 'BF8 / FP8 and Smaller Formats and Conversions' (page 57): 'These ops add a "
     "random value from the specified VGPR and then truncate to the smaller result data type'; table 31 "
     "lists the rounding of CVT_SR_*8_F32 as 'Stochastic Rounding' where CVT_PK_*8_F32's is 'RNE'"),
    ("rdna4", "VOP3", {"FP8": 529, "BF8": 529},
     "RDNA4 manual 7.6 'Data Conversion Operations' (page 78): 'Rounding is RNE (except for \"SR\" ops, "
     "which truncate)', and 7.6.2 (page 79): 'CVT_PK_*_F32 uses round-to-nearest-even; ... (except CVT_SR "
     "opcodes: uses truncate)'"),
)

ERRATA += tuple(
    Erratum(
        f"{family}-v-cvt-sr-{fmt.lower()}-f32-truncates", (family,), {family: pages[fmt]},
        "pcode_text", (enc, f"V_CVT_SR_{fmt}_F32"), "ROUND_MODE = ROUND_NEAREST_EVEN;",
        "ROUND_MODE = ROUND_TOWARD_ZERO;",
        f"The code adds the random value's bits below the {fmt} result's mantissa bits and then converts "
        f"under ROUND_MODE = ROUND_NEAREST_EVEN, which would round up on average by half a unit of the last "
        f"place (not stochastic rounding: x + r, r uniform in [0, 1) ulp, rounded to nearest); {text}. "
        f"Truncation of x + r rounds up with probability equal to x's distance from the value below. "
        f"(LLVM 22 gives no value: it neither folds __builtin_amdgcn_cvt_sr_{fmt.lower()}_f32 nor "
        f"executes it.)")
    for family, enc, pages, text in _SR_TRUNCATE for fmt in ("FP8", "BF8"))

ERRATA += (
    Erratum(
        "cdna4-ds-gds", ("cdna4",), {"cdna4": 600},
        "add_field", ("DS", "GDS"), None, (16, 16, "1 = GDS, 0 = LDS."),
        "The CDNA4 DS field table leaves bit 16 unassigned (the CDNA3 manual's table has GDS [16]), yet "
        "the CDNA4 manual names DS_GWS_* and LLVM 22 (gfx950) decodes 000033d9 14000000 (bit 16 set) as "
        "ds_gws_init v20 gds and assembles that text back to the same bytes.",
    ),
)


# Instructions LLVM 22 decodes for gfx1201 and assembles back to the same bytes that the RDNA4
# opcode tables omit or call Reserved (../shared/conformance/llvm/gfx1201.tsv.gz).
_MISSING_RDNA4 = (
    ("SMEM", "S_ATC_PROBE", 34, 182, "004004f4 16a02628 -> s_atc_probe 0, s[0:1], s20 offset:0x26a016"),
    ("SMEM", "S_ATC_PROBE_BUFFER", 35, 182, "026504f4 70402200 -> s_atc_probe_buffer 20, s[4:7], s0 offset:0x224070"),
    ("SOPP", "S_BARRIER_LEAVE", 21, 180, "000095bf -> s_barrier_leave (the table shows opcode 21 as Reserved)"),
    ("SOPP", "S_TTRACEDATA_IMM", 59, 180, "082cbbbf -> s_ttracedata_imm 0x2c08 (the table shows opcode 59 as Reserved)"),
    ("SOP1", "S_BARRIER_INIT", 81, 177, "c15180be -> s_barrier_init -1, 7d5180be -> s_barrier_init m0 (the table "
     "shows opcode 81 as Reserved)"),
    ("SOP1", "S_BARRIER_JOIN", 82, 177, "c15280be -> s_barrier_join -1, 7d5280be -> s_barrier_join m0 (the table "
     "shows opcode 82 as Reserved)"),
)

# S_BARRIER_INIT / S_BARRIER_JOIN (added above): the manual neither lists nor describes them. Their
# one operand is a barrier number, M0 or an inline constant, as S_BARRIER_SIGNAL's (RDNA4 section
# 5.6.2, page 59: "Barrier instructions can use M0 or an inline constant to refer to the barrier
# number"); LLVM 22 (gfx1201) assembles `s_barrier_init -1` and `s_barrier_init m0` and refuses
# `s_barrier_init s1` and `s_barrier_join 0x12345` ("invalid operand for instruction"). What they do
# to the barrier state is not described, so the code reads the operand and does nothing else, and
# BEHAVIOUR_UNKNOWN below keeps the emulator from running that as a no-op.
_BARRIER_OPERAND = ("// The manual does not describe this instruction (SOP1 opcode {op} is Reserved there); only its\n"
                    "// operand is known: a barrier number, M0 or an inline constant, read as S_BARRIER_SIGNAL's.\n"
                    "barrierNumber = IsM0(SRC0.u32) ? 32'I(M0[4 : 0].u32) : SRC0.i32")
ERRATA += tuple(
    Erratum(f"rdna4-{name.lower().replace('_', '-')}-{kind.split('_')[1]}", ("rdna4",), {"rdna4": 177}, kind,
            ("SOP1", name), None, fix,
            f"The RDNA4 manual does not describe {name} (SOP1 opcode {op}; see missing-rdna4-sop1-"
            f"{name.lower().replace('_', '-')}). LLVM 22 (gfx1201) takes one operand, M0 or an inline constant "
            f"(s_barrier_init -1 -> c15180be, s_barrier_init m0 -> 7d5180be; s_barrier_init s1 and "
            f"s_barrier_join 0x12345 are refused), as S_BARRIER_SIGNAL's; the code states only that read.")
    for name, op in (("S_BARRIER_INIT", 81), ("S_BARRIER_JOIN", 82))
    for kind, fix in (("add_description", f"{name.replace('S_BARRIER_', '').title()} a barrier (named by M0 or an "
                                          f"inline constant); not described by the RDNA4 manual."),
                      ("add_pcode", _BARRIER_OPERAND.format(op=op)))
)

# Instructions whose behaviour no manual describes and whose effect falls on state the emulator
# models, so running them in any way (a no-op included) would be a guess: the emulator refuses them
# (isa.facts.behaviour_unknown), while the assembler, disassembler and allocator use their
# operands as usual. RDNA4's S_BARRIER_INIT / S_BARRIER_JOIN (SOP1 81/82, Reserved in the table; the
# code above states only their operand read) and S_BARRIER_LEAVE (SOPP 21, Reserved; no code, no
# description) change a barrier's state or which waves take part in it, on which the work-group
# barrier (S_BARRIER_SIGNAL / S_BARRIER_WAIT, which the emulator models) depends. Not listed, though
# no manual describes them either: S_TTRACEDATA_IMM and S_ATC_PROBE* have no destination operand
# (LLVM 22 prints none) and act only on the thread trace and the address translation cache, which
# an emulator without either leaves unchanged. Keyed as UNDESCRIBED_SMEM / UNDESCRIBED_LDS: name ->
# ({family: page of its opcode table row}, evidence); an instruction is flagged in the families listed
# only (isa.facts.behaviour_unknown asks isa.spec.family_of), so another family's instruction of the
# same name is not, and a new family's entries are its key in these dicts.
_BARRIER_STATE = ("RDNA4's opcode table calls it Reserved and the manual has no entry for it; LLVM 22 "
                  "(gfx1201) assembles and decodes it ({bytes}). It changes a barrier's state or which waves "
                  "take part in it, on which the modelled work-group barrier depends.")
BEHAVIOUR_UNKNOWN = {
    "S_BARRIER_INIT": ({"rdna4": 177}, _BARRIER_STATE.format(bytes="s_barrier_init -1 <-> c15180be")),
    "S_BARRIER_JOIN": ({"rdna4": 177}, _BARRIER_STATE.format(bytes="s_barrier_join m0 <-> 7d5280be")),
    "S_BARRIER_LEAVE": ({"rdna4": 180}, _BARRIER_STATE.format(bytes="s_barrier_leave <-> 000095bf")),
    # CDNA's S_RFE_RESTORE_B64 (below): a return from the trap handler that restores state no
    # manual names
    "S_RFE_RESTORE_B64": ({"cdna3": 522, "cdna4": 568},
                          "The CDNA manuals omit it (see missing-cdna-sop2-s-rfe-restore-b64); LLVM 22 (gfx942) "
                          "assembles s_rfe_restore_b64 s[0:1], s2 -> 00028095. A return from the trap handler "
                          "restoring state no manual names."),
    # CDNA's undescribed VOP1 instructions (_UNDESCRIBED_VOP1 above): a result of unknown value
    **{name: ({"cdna3": 533, "cdna4": 579},
              f"The CDNA manuals omit it (see missing-cdna-vop1-{name.lower().replace('_', '-')}); LLVM 22 (gfx942) "
              f"decodes and assembles it ({evidence.split(';')[0].split(', v_')[0]}). What value it writes no manual says.")
       for name, _, _, _, evidence in _UNDESCRIBED_VOP1},
}

# CDNA's S_RFE_RESTORE_B64 (SOP2 43, added by missing-cdna-sop2-s-rfe-restore-b64): the manuals do not describe it,
# so its code states only the operands LLVM 22 reads, as the barriers' above do.
ERRATA += tuple(
    Erratum(f"{arch}-s-rfe-restore-b64-operands", (arch,), {arch: page}, "add_pcode", ("SOP2", "S_RFE_RESTORE_B64"),
            None,
            "// The manual does not describe this instruction (SOP2 opcode 43); only its operands are known:\n"
            "// a 64-bit first source and a 32-bit second one.\n"
            "restoreFrom = S0.b64;\nrestoreWith = S1.b32",
            "The CDNA manuals omit S_RFE_RESTORE_B64 (see missing-cdna-sop2-s-rfe-restore-b64). LLVM 22 "
            "(gfx942) takes a 64-bit first source and a 32-bit second one: s_rfe_restore_b64 s[0:1], s2 -> "
            "00028095, s[0:1], -1 -> 00c18095, s[0:1], 0x12345 -> 00ff8095 45230100; s_rfe_restore_b64 "
            "s[0:1], s[2:3] and s_rfe_restore_b64 s0, s2 are refused ('invalid operand for instruction').")
    for arch, page in (("cdna3", 522), ("cdna4", 568))
)

ERRATA += tuple(
    Erratum(f"missing-rdna4-{fmt.lower()}-{name.lower().replace('_', '-')}", ("rdna4",), {"rdna4": page},
            "add_opcode", (fmt, name), None, opcode,
            f"The {fmt} opcode table does not list opcode {opcode}. LLVM 22 (gfx1201) decodes {evidence} "
            f"and assembles it back to the same bytes.")
    for fmt, name, opcode, page, evidence in _MISSING_RDNA4
)

ERRATA += tuple(
    Erratum(f"missing-{name.lower().replace('_', '-')}", ("rdna3", "rdna3.5"), pages, "add_opcode",
            (fmt, name), None, opcode,
            f"The {fmt} opcode table does not list opcode {opcode}. LLVM 22 (gfx1100, gfx1151) decodes "
            f"{evidence}; LLVM also assembles it back to the same bytes.")
    for fmt, name, opcode, pages, evidence in _MISSING
) + (
    Erratum(
        "ldsdir-op-enumeration", ("rdna3",), {"rdna3": 183},
        "opcode_enum", ("LDSDIR", "OP"), {"LDS_DIRECT_LOAD": 0, "LDS_PARAM_LOAD": 1}, None,
        "The LDSDIR OP field text (and the LDS chapter's field table) says 0 = LDS_DIRECT_LOAD, "
        "1 = LDS_PARAM_LOAD; the Instructions chapter gives LDS_PARAM_LOAD 0, LDS_DIRECT_LOAD 1. "
        "LLVM 22 agrees with the Instructions chapter: ce000000 -> lds_param_load, ce100000 -> "
        "lds_direct_load. wavesmith follows the Instructions chapter. (RDNA3.5 fixed the field text.)",
    ),
)


# Pseudocode the RDNA4 conversion lost (the entry keeps its description, the code block is gone),
# each from its sibling entry in the same manual and, where it has the instruction, the RDNA3.5
# manual's entry: (format, name, code, page, sibling)
_LOST_PCODE_RDNA4 = (
    ("SOP2", "S_OR_B32", "D0.u32 = (S0.u32 | S1.u32);\nSCC = D0.u32 != 0U", 223,
     "S_OR_B64: D0.u64 = (S0.u64 | S1.u64); SCC = D0.u64 != 0ULL"),
    ("SOP2", "S_CSELECT_B64", "D0.u64 = SCC ? S0.u64 : S1.u64", 228, "S_CSELECT_B32: D0.u32 = SCC ? S0.u32 : S1.u32"),
    ("SOP2", "S_BFE_U32", "D0.u32 = ((S0.u32 >> S1[4 : 0].u32) & ((1U << S1[22 : 16].u32) - 1U));\n"
     "SCC = D0.u32 != 0U", 226, "S_BFE_I32: tmp.i32 = ((S0.i32 >> S1[4 : 0].u32) & ((1 << S1[22 : 16].u32) - 1)); ..."),
    ("SOP2", "S_ADD_NC_U64", "D0.u64 = S0.u64 + S1.u64", 235, "S_SUB_NC_U64: D0.u64 = S0.u64 - S1.u64 (new in RDNA4)"),
    ("SOPC", "S_CMP_GE_I32", "SCC = S0.i32 >= S1.i32", 268, "S_CMP_LT_I32: SCC = S0.i32 < S1.i32"),
    ("SOPC", "S_CMP_GT_U32", "SCC = S0.u32 > S1.u32", 269, "S_CMP_GE_U32: SCC = S0.u32 >= S1.u32"),
    ("SOP1", "S_CVT_U32_F32", "D0.u32 = f32_to_u32(S0.f32)", 265, "S_CVT_I32_F32: D0.i32 = f32_to_i32(S0.f32)"),
    ("SOP1", "S_AND_NOT0_WREXEC_B64", "EXEC.u64 = (~S0.u64 & EXEC.u64);\nD0.u64 = EXEC.u64;\nSCC = EXEC.u64 != 0ULL", 256,
     "S_AND_NOT1_WREXEC_B64: EXEC.u64 = (S0.u64 & ~EXEC.u64); D0.u64 = EXEC.u64; SCC = EXEC.u64 != 0ULL"),
    ("VBUFFER", "BUFFER_STORE_D16_HI_B8", "addr = CalcBufferAddr(vgpr_a.b64, sgpr_o.b64);\nMEM[addr].b8 = VDATA[23 : 16]",
     635, "BUFFER_STORE_D16_HI_B16: ... MEM[addr].b16 = VDATA[31 : 16]"),
    ("VDS", "DS_LOAD_U16_D16_HI", "RETURN_DATA[31 : 16].u16 = MEM[ADDR].u16;\n// RETURN_DATA[15:0] is preserved.", 616,
     "DS_LOAD_U8_D16_HI: RETURN_DATA[31 : 16].u16 = 16'U({ 8'0U, MEM[ADDR].u8 })"),
    ("VGLOBAL", "GLOBAL_LOAD_D16_I8", "addr = CalcGlobalAddr(v_addr.b64, s_saddr.b64);\n"
     "VDATA[15 : 0].i16 = 16'I(signext(MEM[addr].i8));\n// VDATA[31:16] is preserved.", 694,
     "GLOBAL_LOAD_D16_U8: ... VDATA[15 : 0].u16 = 16'U({ 8'0U, MEM[addr].u8 })"),
    ("VSCRATCH", "SCRATCH_STORE_B8", "addr = CalcScratchAddr(v_addr_off.b64, s_saddr_off.b64);\n"
     "MEM[addr].b8 = VDATA[7 : 0]", 688, "SCRATCH_STORE_B16: ... MEM[addr].b16 = VDATA[15 : 0]"),
    ("VFLAT", "FLAT_STORE_D16_HI_B8", "addr = CalcFlatAddr(v_addr.b64, flat_scratch.b64);\n"
     "MEM[addr].b8 = VDATA[23 : 16]", 675, "FLAT_STORE_D16_HI_B16: ... MEM[addr].b16 = VDATA[31 : 16]"),
)
ERRATA += tuple(
    Erratum(f"rdna4-{name.lower().replace('_', '-')}-pcode", ("rdna4",), {"rdna4": page}, "add_pcode",
            (fmt, name), None, code,
            f"The conversion's {name} entry has its description but no code block. Its sibling entry has "
            f"{sibling}; the fix is the same code for this entry's operation"
            + (", as the RDNA3.5 manual gives it." if not name.startswith("S_ADD_NC") else "."))
    for fmt, name, code, page, sibling in _LOST_PCODE_RDNA4)


# Both manuals name the six GWS instructions (DS_GWS_INIT ... DS_GWS_BARRIER: RDNA3 page 546 and
# its GWS section, pages 143-147; RDNA3.5 page 581 and pages 145-149) but their DS opcode tables
# show opcodes 24-29 as Reserved (RDNA3: opcode 24 on page 184, 25-29 on page 185; RDNA3.5 from
# page 186). The evidence is LLVM 22's disassembly; it assembles the same text back to these bytes.
_GWS = (("DS_GWS_SEMA_RELEASE_ALL", 24, "d8620000 ... -> ds_gws_sema_release_all offset:4352 gds"),
        ("DS_GWS_INIT", 25, "d8660100 ... -> ds_gws_init v66 offset:256 gds"),
        ("DS_GWS_SEMA_V", 26, "d86a2500 ... -> ds_gws_sema_v offset:9472 gds"),
        ("DS_GWS_SEMA_BR", 27, "d86e0900 ... -> ds_gws_sema_br v10 offset:2304 gds"),
        ("DS_GWS_SEMA_P", 28, "d8720000 ... -> ds_gws_sema_p gds"),
        ("DS_GWS_BARRIER", 29, "d8760300 ... -> ds_gws_barrier v160 offset:768 gds"))
_GWS_MANUALS = (("rdna3", "RDNA3", 184, 546, "gfx1100"), ("rdna3.5", "RDNA3.5", 186, 581, "gfx1151"))
ERRATA += tuple(
    Erratum(f"{arch.replace('.', '')}-{name.lower().replace('_', '-')}", (arch,), {arch: table_page},
            "add_opcode", ("DS", name), None, opcode,
            f"The {title} DS opcode table shows opcode {opcode} as Reserved, yet page {list_page} lists "
            f"{name} among the DS instructions. LLVM 22 ({target}) decodes {evidence}.")
    for arch, title, table_page, list_page, target in _GWS_MANUALS
    for name, opcode, evidence in _GWS)


ERRATA += (
    Erratum(
        "cdna3-v-div-fmas-f64-pcode", ("cdna3",), {"cdna3": 351},
        "pcode_text", ("VOP3A", "V_DIV_FMAS_F64"),
        "D0.f64 = fma(S0.f64, S1.f64, S2.f64)",
        "if VCC.u64[laneId] then\n  D0.f64 = 2.0 ** 64 * fma(S0.f64, S1.f64, S2.f64)\nelse\n"
        "  D0.f64 = fma(S0.f64, S1.f64, S2.f64)\nendif",
        "The conversion turned the entry's code block into a prose line ('if VCC.u64[laneId] then "
        "D0.f64 = 2.0 ** 64 * fma(S0.f64, S1.f64, S2.f64) else') and a code span holding only the else "
        "branch, so the generated pseudocode lost the VCC-selected scaling that the description states "
        "('scale the exponent of the result by a fixed factor if the vector condition code is set') and "
        "V_DIV_FMAS_F32 beside it has (2.0F ** 32). LLVM 22's assembler (gfx942) refuses "
        "v_div_fmas_f64 v[92:93], -v[230:231], s[0:1], s[0:1] for the constant bus, as it does "
        "v_div_fmas_f32 with an SGPR source: the instruction reads VCC.",
    ),
)


ERRATA += (
    Erratum(
        "rdna35-interp-p2-rtz-result", ("rdna3.5",), {"rdna3.5": 541},
        "pcode_text", ("VINTERP", "V_INTERP_P2_RTZ_F16_F32"),
        "D0.f32 = fma(32'F(VGPR[(laneId.u32 & 0xfffffffcU) + 2U][SRC0.u32].f16), S1.f32, S2.f32)",
        "D0.f16 = 16'F(fma(32'F(VGPR[(laneId.u32 & 0xfffffffcU) + 2U][SRC0.u32].f16), S1.f32, S2.f32))",
        "The entry writes a 32-bit result, unlike its own name (result type F16 first, the manual's "
        "suffix convention), V_INTERP_P2_F16_F32 on page 540 (D0.f16 = 16'F(fma(...))) which it "
        "differs from only in rounding, and RDNA3's 'Same as V_INTERP_P2_F16_F32 except rounding "
        "mode'. LLVM 22 (gfx1151) decodes 003305cd5a41b267 as v_interp_p2_rtz_f16_f32 v0.l, ...: "
        "a 16-bit destination half.",
    ),
)


# V_DIV_SCALE_*: the pseudocode assigns D0 only on the branches that scale, so for ordinary
# operands (the common case) it leaves the result undefined. The entry's own description says the
# instruction stores the first input, "scaled ... if required"; the division macro depends on it.
_DIV_SCALE_EVIDENCE = (
    "The pseudocode assigns D0 only where it scales, yet the description says the instruction "
    "'scale[s] the first input for division if required' and '[s]tore[s] the scaled result into a vector "
    "register' (RDNA3.5; RDNA3: 'S0 = Input to scale'): when no scaling is required the result is "
    "the first input unchanged. LLVM's AMDGPU division lowering (the LLVM 22 compiled kernels in "
    "../shared/kernels, ew_f64_fma_sqrt_div) feeds the result of v_div_scale straight into v_rcp and "
    "v_div_fmas for every denominator, which only gives a quotient when the unscaled case returns S0. "
    "The fix assigns D0 = S0 first so that every branch which does not scale keeps it.")
ERRATA += tuple(
    Erratum(f"div-scale-{ty}-unscaled-result", ("rdna3", "rdna3.5", "rdna4"), pages, "pcode_text",
            ("VOP3SD", f"V_DIV_SCALE_{ty.upper()}"), "VCC = 0x0LL;\n",
            f"VCC = 0x0LL;\nD0.{ty} = S0.{ty};\n", _DIV_SCALE_EVIDENCE)
    for ty, pages in (("f32", {"rdna3": 437, "rdna3.5": 463, "rdna4": 507}),
                      ("f64", {"rdna3": 438, "rdna3.5": 464, "rdna4": 508})))
ERRATA += tuple(
    Erratum(f"cdna3-div-scale-{ty}-unscaled-result", ("cdna3", "cdna4"), pages,
            "pcode_text", ("VOP3B", f"V_DIV_SCALE_{ty.upper()}"), "VCC = 0x0LL;\n",
            f"VCC = 0x0LL;\nD0.{ty} = S0.{ty};\n",
            _DIV_SCALE_EVIDENCE.replace("(RDNA3.5; RDNA3: 'S0 = Input to scale')", "(CDNA3, CDNA4: as RDNA3.5)")
            .replace("ew_f64_fma_sqrt_div)", "ew_f64_fma_sqrt_div, also for gfx942 and gfx950)"))
    for ty, pages in (("f32", {"cdna3": 348, "cdna4": 373}), ("f64", {"cdna3": 349, "cdna4": 374})))

ERRATA += (
    Erratum(
        "cdna4-cvt-f32-bf16-input-type", ("cdna4",), {"cdna4": 228},
        "pcode_text", ("VOP1", "V_CVT_F32_BF16"), "32'F({ S0.b16, 16'0U })", "bf16_to_f32(S0.bf16)",
        "The code reads the input as raw bits (S0.b16) and casts the 32-bit pattern { S0, 16'0 } with "
        "32'F(), which elsewhere converts a value, where the description says 'Convert from a BF16 float "
        "input to a single-precision float value'; the same manual writes that conversion "
        "bf16_to_f32(S0[15 : 0].bf16) (V_DOT2C_F32_BF16, page 181). LLVM 22 (gfx950) takes the source as "
        "a BF16 float operand: it accepts and prints input modifiers "
        "(v_cvt_f32_bf16_e64 v1, -|v2| -> 01019bd1 02010020), takes 0x3f00 (0.5 in BF16) as the inline "
        "constant 0.5 (v_cvt_f32_bf16_e32 v1, 0x3f00 -> f0b6027e) and 1.5 as the BF16 literal 0x3fc0.",
    ),
)

ERRATA += (
    Erratum(
        "rdna3-cvt-pk-rtz-round-mode", ("rdna3",), {"rdna3": 269},
        "pcode_text", ("VOP2", "V_CVT_PK_RTZ_F16_F32"),
        "D0[15 : 0].f16 = f32_to_f16(S0.f);\nD0[31 : 16].f16 = f32_to_f16(S1.f);",
        "prev_mode = ROUND_MODE;\nROUND_MODE = ROUND_TOWARD_ZERO;\n"
        "D0[15 : 0].f16 = f32_to_f16(S0.f);\nD0[31 : 16].f16 = f32_to_f16(S1.f);\n"
        "ROUND_MODE = prev_mode;",
        "The RDNA3 pseudocode converts with the current rounding and states the instruction's point, "
        "'Round-toward-zero regardless of current round mode setting in hardware', only in a trailing "
        "comment (and in its name, RTZ). The RDNA3.5 manual (page 286) gives the same instruction the "
        "same comment and sets it in code: prev_mode = ROUND_MODE; ROUND_MODE = ROUND_TOWARD_ZERO; ... "
        "ROUND_MODE = prev_mode. The fix is RDNA3.5's wording.",
    ),
)


# RDNA3's f64 class tests call the biased exponent of 1.0 (1023) infinite: 1.5 would be +INF.
_CLASS_F64_EVIDENCE = (
    "exponent() is the biased exponent; an f64 is infinite (or NaN, tested first) when its 11-bit "
    "exponent is all ones, 2047, not 1023 (the exponent of 1.0, so every value in [1, 2) would be "
    "classed +-INF). The same manual's f32/f16 siblings test 255/31 (all ones) and V_DIV_FIXUP_F64 "
    "tests exponent(S1.f64) == 2047; the RDNA3.5 manual gives this entry as exponent(S0.f64) == 2047. "
    "LLVM's f64 sqrt lowering (the LLVM 22 compiled kernel ew_f64_fma_sqrt_div) passes the input through when "
    "v_cmp_class_f64 mask 0x260 (+-0, +INF) holds, so with 1023 sqrt(x) = x for x in [1, 2).")
ERRATA += tuple(
    Erratum(f"rdna3-{name.lower().replace('_', '-')}-inf-exponent", ("rdna3",), {"rdna3": page},
            "pcode_text", ("VOPC", name), "elsif exponent(S0.f64) == 1023 then",
            "elsif exponent(S0.f64) == 2047 then", _CLASS_F64_EVIDENCE)
    for name, page in (("V_CMP_CLASS_F64", 332), ("V_CMPX_CLASS_F64", 358)))


_TRIG_PREOP_EVIDENCE = (
    "Taken as written, (1201-bit 2/pi << shift) & (2**53 - 1) keeps the table's lowest 53 bits, "
    "bits far below the segment the comments describe ('Left shift operation indicates which bits "
    "are brought into the whole part of the number') and the description asks for ('returns an "
    "aligned, double precision segment of 2/PI'; the result is scaled by 2**(-53 - shift)). The "
    "whole part of the shifted fraction 0.{b_1200 ... b_0} at 53 bits is bits [1200:1148] after "
    "the shift. Measured on RDNA3 hardware (tinygrad's RDNA3 hardware tests, as quoted in "
    "wavesmith issue 13): S0 = 1.0, segment 0 equals 2/pi (0.6366197723675814) to 10 places, segment 1 "
    "lies in (0, 1e-15) and segments 0-2 sum to 2/pi to 14 places; the lowest 53 bits would give "
    "neither. The fix shifts the 53-bit window down to the whole part.")
ERRATA += tuple(
    Erratum(f"trig-preop-segment-window-{arch}", (arch,), {arch: page}, "pcode_text",
            ("VOP3", "V_TRIG_PREOP_F64"),
            f"result = 64'F((1201'B(2.0 / PI)[1200 : 0] << shift.{u}) & 1201'0x1fffffffffffff);",
            f"result = 64'F(((1201'B(2.0 / PI)[1200 : 0] << shift.{u}) >> 1148U) & 1201'0x1fffffffffffff);",
            _TRIG_PREOP_EVIDENCE)
    for arch, page, u in (("rdna3", 449, "u"), ("rdna3.5", 477, "u32")))


# VOPC entries whose code block the CDNA4 conversion lost (each keeps its description, "Set the
# per-lane condition code to 1 iff ..."); the CDNA3 manual gives the same opcode this code, and
# the CDNA4 entries beside them (V_CMP_EQ_I32 after V_CMP_LT_I32, ...) follow the same pattern:
# (name, opcode, page of the entry, code).
_CDNA4_LOST_COMPARES = (
    ("V_CMP_LT_I32", 193, 263, "D0.u64[laneId] = S0.i32 < S1.i32"),
    ("V_CMP_GT_U64", 236, 272, "D0.u64[laneId] = S0.u64 > S1.u64"),
    ("V_CMP_LT_U16", 169, 258, "D0.u64[laneId] = S0.u16 < S1.u16"),
    ("V_CMPX_EQ_F32", 82, 247, "EXEC.u64[laneId] = D0.u64[laneId] = S0.f32 == S1.f32"),
    ("V_CMPX_EQ_F64", 114, 254, "EXEC.u64[laneId] = D0.u64[laneId] = S0.f64 == S1.f64"),
    ("V_CMPX_GT_I32", 212, 267, "EXEC.u64[laneId] = D0.u64[laneId] = S0.i32 > S1.i32"),
    ("V_CMPX_GT_U16", 188, 262, "EXEC.u64[laneId] = D0.u64[laneId] = S0.u16 > S1.u16"),
    ("V_CMPX_LT_I64", 241, 273, "EXEC.u64[laneId] = D0.u64[laneId] = S0.i64 < S1.i64"),
    ("V_CMPX_LT_U32", 217, 268, "EXEC.u64[laneId] = D0.u64[laneId] = S0.u32 < S1.u32"),
    ("V_CMPX_NGT_F16", 59, 242, "EXEC.u64[laneId] = D0.u64[laneId] = !(S0.f16 > S1.f16)"),
    ("V_CMPX_NGT_F32", 91, 249, "EXEC.u64[laneId] = D0.u64[laneId] = !(S0.f32 > S1.f32)"),
    ("V_CMPX_NGT_F64", 123, 256, "EXEC.u64[laneId] = D0.u64[laneId] = !(S0.f64 > S1.f64)"),
)
# The "Which instructions support DPP" table (RDNA3 Table 30 page 79, RDNA3.5 page 81, RDNA4
# Table 38 page 94): names that match no instruction as printed, and instructions it allows DPP
# on that the reference assembler gives no DPP form.
_DPP_TABLE_PAGES = {"rdna3": 79, "rdna3.5": 81, "rdna4": 94}
_RDNA3S = ("rdna3", "rdna3.5")
ERRATA += (
    Erratum(
        "rdna3-dpp-table-permute64", _RDNA3S, {a: _DPP_TABLE_PAGES[a] for a in _RDNA3S},
        "dpp_table_name", ("VOP1", "PERMUTE64"), "PERMUTE64", "PERMLANE64_B32",
        "The VOP1 rows name PERMUTE64, which no opcode table has; the one VOP1 permute across 64 lanes is "
        "V_PERMLANE64_B32, which the RDNA4 table names PERMLANE under VOP1. LLVM 22 refuses "
        "v_permlane64_b32_dpp v8, v2 quad_perm:[1,0,3,2] for gfx1100 and gfx1151 ('dpp variant of this "
        "instruction is not supported').",
    ),
    Erratum(
        "rdna3-dpp-table-fmaak", _RDNA3S, {a: _DPP_TABLE_PAGES[a] for a in _RDNA3S},
        "dpp_table_name", ("VOP2", "FMAMK/AD_F32/16"), "FMAMK/AD_F32/16", "FMAMK/AK_F32/F16",
        "The VOP2 row reads FMAMK/AD_F32/16: there is no V_FMAAD; the instructions with a constant K are "
        "V_FMAMK_F32/F16 and V_FMAAK_F32/F16, as the RDNA4 table writes it (FMAMK/AK_F32/F16). LLVM 22 "
        "refuses v_fmaak_f32_dpp for gfx1100 and gfx1151.",
    ),
    Erratum(
        "rdna3-dpp-table-swap", _RDNA3S, {a: _DPP_TABLE_PAGES[a] for a in _RDNA3S},
        "dpp_table_name", ("VOP1", "SWAP_B32"), "SWAP_B32", "SWAP*",
        "The VOP1 rows name SWAP_B32 only, while V_SWAP_B16 and V_SWAPREL_B32 swap VGPRs the same way; the "
        "RDNA4 table names SWAP under VOP1 (and SWAP* under VOP3). LLVM 22 refuses v_swap_b16_dpp and "
        "v_swaprel_b32_dpp with quad_perm or dpp8 for gfx1100 and gfx1151 ('dpp variant of this instruction "
        "is not supported').",
    ),
) + tuple(
    Erratum(
        f"rdna-no-dpp-{name.lower().replace('_', '-')}", archs, {a: _DPP_TABLE_PAGES[a] for a in archs},
        "no_dpp", (fmt, name), "Allow DPP", "no DPP form in the reference assembler",
        f"The table allows DPP on {name} ({fmt}: 'All Others' / 'Others'). LLVM 22 gives it no DPP form: "
        f"{llvm} with quad_perm or dpp8 is refused for {targets} ('{'e64_' if fmt == 'VOP3' else ''}dpp "
        f"variant of this instruction is not supported'), while it takes {alike}. No hardware measurement "
        f"says otherwise; refusing cannot make code the hardware reads differently.")
    for fmt, name, llvm, alike, archs, targets in (
        ("VOP3", "V_DIV_FIXUP_F32", "v_div_fixup_f32_e64_dpp", "v_div_fixup_f16_e64_dpp", ("rdna3", "rdna3.5", "rdna4"),
         "gfx1100, gfx1151 and gfx1201"),
        ("VOP3", "V_DIV_FMAS_F32", "v_div_fmas_f32_e64_dpp", "v_fma_f32_e64_dpp", ("rdna3", "rdna3.5", "rdna4"),
         "gfx1100, gfx1151 and gfx1201"),
        ("VOP3", "V_DIV_SCALE_F32", "v_div_scale_f32_e64_dpp", "v_add_co_u32_e64_dpp (VOP3SD too)",
         ("rdna3", "rdna3.5", "rdna4"), "gfx1100, gfx1151 and gfx1201"),
        ("VOP3", "V_FMA_DX9_ZERO_F32", "v_fma_dx9_zero_f32_e64_dpp", "v_mul_dx9_zero_f32_e64_dpp",
         ("rdna3", "rdna3.5", "rdna4"), "gfx1100, gfx1151 and gfx1201"),
        ("VOP2", "V_FMAC_DX9_ZERO_F32", "v_fmac_dx9_zero_f32_dpp (and _e64_dpp)", "v_mul_dx9_zero_f32_dpp and "
         "v_fmac_f32_dpp", _RDNA3S, "gfx1100 and gfx1151"),
        ("VOP1", "V_NOP", "v_nop_dpp", "v_mov_b32_dpp; it decodes V_NOP's DPP16 bytes as an invalid encoding, "
         "and the RDNA4 table names V_NOP under VOP1 NO DPP", _RDNA3S, "gfx1100 and gfx1151"),
        ("VOP1", "V_PIPEFLUSH", "v_pipeflush_dpp", "v_mov_b32_dpp; it decodes V_PIPEFLUSH's DPP16 bytes as an invalid "
         "encoding, and the RDNA3/RDNA3.5 tables name PIPEFLUSH under VOP1 NO DPP", ("rdna4",), "gfx1201"),
    )
)
ERRATA += tuple(
    Erratum(f"cdna4-{name.lower().replace('_', '-')}-pcode", ("cdna4",), {"cdna4": page}, "add_pcode",
            ("VOPC", name), None, f"{code};\n// D0 = VCC in VOPC encoding.",
            f"The conversion's {name} entry (opcode {op}) has its description but no code block. The CDNA3 "
            f"manual gives the same opcode '{code}; // D0 = VCC in VOPC encoding.', and the CDNA4 compares "
            f"beside it keep theirs in that form. The compiled gfx950 kernels in ../shared/kernels (conv1d: "
            f"v_cmp_lt_i32, ew_i64_arith: v_cmp_gt_u64) use them as the CDNA3 code reads.")
    for name, op, page, code in _CDNA4_LOST_COMPARES)

ERRATA += tuple(
    Erratum(f"llvm-{field.replace('_', '-')}-{name.lower().replace('_', '-')}", tuple(pages), pages, "modifier_use",
            (name, field, *scope), pdf, fix, evidence)
    for name, field, pdf, fix, pages, evidence, *scope in MODIFIER_ROWS)
# CDNA's fork/join pair: the code reads S0 as a value (`saved_csp = S0.u32`; `mask_pass = (S0.u64 &
# EXEC.u64)`, `PC = 64'I(S1.u64)` on a condition), LLVM 22's syntax limits them: s_cbranch_join's
# source is a register (src_scc too: a 32-bit source code that is no constant), s_cbranch_g_fork's
# two take registers and inline constants but no literal
ERRATA += (
    Erratum("llvm-source-limits-s-cbranch-join", ("cdna3", "cdna4"), {"cdna3": 129, "cdna4": 142}, "source_limits",
            ("S_CBRANCH_JOIN",), (), (("S0", "register"),),
            "LLVM 22 refuses constants: 's_cbranch_join 1' -> error: invalid operand for instruction; "
            "'s_cbranch_join 0x12345' -> error: invalid operand for instruction; 's_cbranch_join s4' -> [042e80be]; "
            "'s_cbranch_join src_scc' -> [fd2e80be]; 's_cbranch_join m0' -> [7c2e80be] (gfx942, gfx950)"),
    Erratum("llvm-source-limits-s-cbranch-g-fork", ("cdna3", "cdna4"), {"cdna3": 106, "cdna4": 118}, "source_limits",
            ("S_CBRANCH_G_FORK",), (), (("S0", "inline"), ("S1", "inline")),
            "LLVM 22 takes inline constants and refuses literals in both sources: 's_cbranch_g_fork 1, s[6:7]' -> "
            "[81068094]; 's_cbranch_g_fork s[4:5], 1' -> [04818094]; 's_cbranch_g_fork 0x12345, s[6:7]' -> error: "
            "invalid operand for instruction; 's_cbranch_g_fork s[4:5], 0x12345' -> error: invalid operand for "
            "instruction (gfx942, gfx950)"),
    # RDNA's s_movrelsd_2_b32 reads its source's register number (`addrs = SRC0.u32; // Raw value
    # from instruction`), as s_movrels_b32 does, but LLVM 22's syntax takes it as any 32-bit source
    Erratum("llvm-source-limits-s-movrelsd-2-b32", ("rdna3", "rdna3.5", "rdna4"),
            {"rdna3": 235, "rdna3.5": 242, "rdna4": 259}, "source_limits",
            ("S_MOVRELSD_2_B32",), (("S0", "register"),), (),
            "LLVM 22 takes constants and literals: 's_movrelsd_2_b32 s1, 5' -> [854481be]; "
            "'s_movrelsd_2_b32 s1, 0x1234' -> [ff4481be 34120000]; 's_movrelsd_2_b32 s1, s2' -> [024481be] "
            "(gfx1100, gfx1151, gfx1201), while 's_movrels_b32 s1, 5' -> error: invalid operand for instruction"),
)
ERRATA += tuple(
    Erratum(f"llvm-opsel-flags-{name.lower().replace('_', '-')}", tuple(pages), pages, "opsel_flags", (name, field),
            pdf, fix, evidence)
    for name, field, pdf, fix, pages, evidence in OPSEL_FLAG_ROWS)

# DS_APPEND / DS_CONSUME on LDS: which bits of M0 give the counter's address. The manuals disagree
# with themselves: RDNA3's code "addr = M0.base + offset; // offset by LDS HWBASE, limit to M.size"
# (RDNA3.5 the same), its description "In the LDS this address is an offset to HWBASE and clamped by
# M0.size", its DS chapter (12.5, p. 135 / RDNA3.5 p. 137) "The M0 register is not used for most
# LDS-indexed operations: only the "ADDTID" instructions read M0", M0 there a 16-bit "Unsigned byte
# Offset[15:0] ... and for GDS-base/size", while its GDS table (p. 144 / RDNA3.5 p. 146) puts
# gds_base in M0[31:16] and gds_size in M0[15:0]; RDNA4's code has "addr = offset" (no M0 at all),
# CDNA3's and CDNA4's description "(M0.base + instr_offset) if GDS, or at instr_offset if LDS".
_APPEND_PDF = {"rdna3": ("addr = M0.base + offset; // offset by LDS HWBASE, limit to M.size", {"DS_APPEND": 526,
                                                                                              "DS_CONSUME": 525}),
               "rdna3.5": ("addr = M0.base + offset; // offset by LDS HWBASE, limit to M.size", {"DS_APPEND": 560,
                                                                                                "DS_CONSUME": 559}),
               "rdna4": ("addr = offset; // offset by LDS HWBASE", {"DS_APPEND": 601, "DS_CONSUME": 601})}
_APPEND_EVIDENCE = (
    "LLVM 22 compiles llvm.amdgcn.ds.append/consume on an LDS pointer p + 16 to 's_mov_b32 m0, <p>' and "
    "'ds_append v0 offset:16' for gfx1100, gfx1201 and gfx942 (and on SI, which cannot fold the offset, "
    "to s_add_i32 <p>, 16 then m0 = <p>): the counter is at M0 + {OFFSET1, OFFSET0}, the base in M0's low "
    "half, which is how the DS field table (RDNA3 p. 135, RDNA4 p. 160) types M0: 16 bits, 'Unsigned byte "
    "Offset[15:0]'. The high half (the GDS table's gds_base, this code's 'M0.base') is not part of an LDS "
    "address: LLVM's LDS pointers leave it zero, so nothing measured contradicts ignoring it; an LDS "
    "counter address is M0[15:0] + offset, as the ADDTID instructions' code reads M0[15:0] (and not the "
    "whole M0 of the ADDTID formula 'LDS_Addr = LDS_BASE + {InstOffset1, InstOffset0} + TID(0..63)*4 + M0', "
    "RDNA3 p. 136, RDNA3.5 p. 138, RDNA4 p. 160). GDS is refused, not run.")
ERRATA += tuple(
    Erratum(f"{arch.replace('.', '')}-{name.lower().replace('_', '-')}-m0-address", (arch,), {arch: pages[name]},
            "pcode_text", ("VDS" if arch == "rdna4" else "DS", name), pdf, "addr = M0[15 : 0] + offset; // offset by LDS HWBASE",
            _APPEND_EVIDENCE)
    for arch, (pdf, pages) in _APPEND_PDF.items() for name in ("DS_APPEND", "DS_CONSUME"))


# CDNA's "Instruction Limitations" (CDNA3 12.16.1 DPP, page 518; CDNA4 page 564): "The following
# instructions cannot use DPP" lists, besides the instructions LLVM 22 gives no DPP form, sixteen VOP1
# instructions with a 64-bit source or result that it does take DPP on -- as a DP ALU operation with
# row_newbcast, which the DPP_CTRL table's note allows ("for 64-bit input data the only legal DPP type is
# DPP_ROW*", CDNA3 page 553, CDNA4 page 600). isa/gen/dpp.py leaves them out of tables["no_dpp"].
# (name, LLVM 22's bytes for gfx942 and gfx950 alike)
_DP_ALU_DPP = (
    ("V_CVT_I32_F64", "v_cvt_i32_f64_dpp v1, v[2:3] row_newbcast:1 -> fa06027e025101ff"),
    ("V_CVT_F64_I32", "v_cvt_f64_i32_dpp v[0:1], v2 row_newbcast:1 -> fa08007e025101ff"),
    ("V_CVT_F32_F64", "v_cvt_f32_f64_dpp v1, v[2:3] row_newbcast:1 -> fa1e027e025101ff"),
    ("V_CVT_F64_F32", "v_cvt_f64_f32_dpp v[0:1], v2 row_newbcast:1 -> fa20007e025101ff"),
    ("V_CVT_U32_F64", "v_cvt_u32_f64_dpp v1, v[2:3] row_newbcast:1 -> fa2a027e025101ff"),
    ("V_CVT_F64_U32", "v_cvt_f64_u32_dpp v[0:1], v2 row_newbcast:1 -> fa2c007e025101ff"),
    ("V_TRUNC_F64", "v_trunc_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa2e007e025101ff"),
    ("V_CEIL_F64", "v_ceil_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa30007e025101ff"),
    ("V_RNDNE_F64", "v_rndne_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa32007e025101ff"),
    ("V_FLOOR_F64", "v_floor_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa34007e025101ff"),
    ("V_RCP_F64", "v_rcp_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa4a007e025101ff"),
    ("V_RSQ_F64", "v_rsq_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa4c007e025101ff"),
    ("V_SQRT_F64", "v_sqrt_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa50007e025101ff"),
    ("V_FREXP_EXP_I32_F64", "v_frexp_exp_i32_f64_dpp v1, v[2:3] row_newbcast:1 -> fa60027e025101ff"),
    ("V_FREXP_MANT_F64", "v_frexp_mant_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa62007e025101ff"),
    ("V_FRACT_F64", "v_fract_f64_dpp v[0:1], v[2:3] row_newbcast:1 -> fa64007e025101ff"),
)
_LIMITATION_PAGES = {"cdna3": 518, "cdna4": 564}
ERRATA += tuple(
    Erratum(
        f"cdna-dpp-limitation-{name.lower().replace('_', '-')}", ("cdna3", "cdna4"), _LIMITATION_PAGES,
        "dpp_limitation", ("DPP", name), "cannot use DPP", "a DP ALU operation: DPP with row_newbcast",
        f"12.16.1 lists {name} among the instructions that cannot use DPP; LLVM 22 (gfx942, gfx950) assembles "
        f"{evidence} and decodes those bytes back to that text, and refuses other controls ('DP ALU dpp only "
        f"supports row_newbcast'), as the DPP_CTRL table's note on 64-bit input data says (CDNA3 page 553).")
    for name, evidence in _DP_ALU_DPP)


def for_arch(arch: str) -> list[Erratum]:
    return [e for e in ERRATA if arch in e.archs]


# Measured on RDNA3 hardware: the tinygrad project's RDNA3 hardware tests
# (tinygrad/tinygrad extra/assembly/amd/test/hw/test_div.py and test_vop2.py, run on RDNA3 GPUs
# with the kernel descriptor's default MODE: f32 denormals flushed) give these values where the
# RDNA3 and RDNA3.5 pseudocode says otherwise.
_TINYGRAD_HW = ("the tinygrad project's RDNA3 hardware tests (tinygrad/tinygrad, "
                "extra/assembly/amd/test/hw/, values measured on RDNA3 GPUs)")
_DIV_SCALE_PAGES = {"f32": {"rdna3": 437, "rdna3.5": 463}, "f64": {"rdna3": 438, "rdna3.5": 464}}
_DIV_FMAS_PAGES = {"rdna3": 424, "rdna3.5": 449}
_DIV_FIXUP_PAGES = {"f32": {"rdna3": 422, "rdna3.5": 447}, "f64": {"rdna3": 423, "rdna3.5": 448}}


def _t(arch: str, ty: str) -> str:
    """How the manual spells a float type's accessor: RDNA3 writes f32 as .f, RDNA3.5 as .f32."""
    return "f" if arch == "rdna3" and ty == "f32" else ty


def _div_scale_errata(arch: str, ty: str):
    t, scale = _t(arch, ty), 64 if ty == "f32" else 128
    yield ("zero-sets-vcc", f"then\n    D0.{t} = NAN.{t}\n", f"then\n    VCC = 0x1LL;\n    D0.{t} = NAN.{t}\n",
           f"The branch for a zero numerator or denominator returns NaN without setting VCC. Measured by "
           f"{_TINYGRAD_HW}: v_div_scale_f32 with S1 = 0.0 (denominator; S0 = S2 = 1.0) and with S0 = S2 = 0.0 "
           f"(numerator; S1 = 1.0) returns NaN and sets VCC = 1; so does a denormal denominator (0x00000001) "
           f"under the flushing MODE the test kernels run with, where it is zero. The f64 form gets the same "
           f"branch (same structure, no separate measurement).")
    if ty == "f64":
        both = (f"elsif ((1.0 / S1.{t} == DENORM.{t}) && (S2.{t} / S1.{t} == DENORM.{t})) then\n    VCC = 0x1LL;\n"
                f"    if S0.{t} == S1.{t} then\n        // Only scale the denominator\n        D0.{t} = ldexp(S0.{t}, ")
        yield ("huge-denominator-scales-down", both + "128)", both + "-128)",
               "When 1/S1 and S2/S1 are both denormal (a denominator above 2**1022) the pseudocode scales the "
               "denominator up by 2**128, which overflows to infinity, so the standard division sequence "
               "(v_div_scale, v_rcp, Newton steps, v_div_fmas, v_div_fixup: LLVM 22's f64 division lowering, "
               "and the tensor compiler's) returns +inf for 1/1.7e308 instead of 5.88e-309. The branch for a "
               "denormal 1/S1 alone scales by 2**-128, as the instruction's purpose ('scales inputs for division "
               "to avoid subnormal terms') requires; scaling the denominator down here, with VCC set, makes "
               "v_div_fmas (whose post-scale is 2**-128 for a quotient below 1.0) return the correctly rounded "
               "quotient. Evidence: the f64 division sequence LLVM 22 emits for x / y, replayed in "
               "tests/test_emu_semantics_division.py, gives numpy's quotients for denominators up to "
               "1.797e308 with this rule and +inf without it. Not measured on hardware.")
    if ty == "f32":
        yield ("smallest-normal-quotient", f"elsif S2.{t} / S1.{t} == DENORM.{t} then\n    VCC = 0x1LL;\n"
               f"    if S0.{t} == S2.{t} then\n        // Only scale the numerator",
               f"elsif exponent(S2.{t}) - exponent(S1.{t}) <= -126 then\n    VCC = 0x1LL;\n"
               f"    if S0.{t} == S2.{t} then\n        // Only scale the numerator",
               f"The numerator alone is scaled (and VCC set) when S2 / S1 is denormal. Measured by {_TINYGRAD_HW}: "
               f"v_div_scale_f32 with S0 = S2 = 0x00800000 (the smallest normal) and S1 = 1.0 returns S0 * 2**64 "
               f"and sets VCC = 1, though the quotient 2**-126 is normal and the numerator-is-tiny branch "
               f"(reached otherwise) sets no VCC. The hardware tests exponents: wavesmith takes the quotient as "
               f"possibly denormal when the biased exponents differ by -126 or less (quotients below 2**-125), "
               f"which gives the measured value and keeps LLVM 22's f32 division macro correctly rounded "
               f"(the scaled quotient stays below 2.0, so v_div_fmas scales it back by 2**-64; "
               f"tests/test_emu_semantics_division.py against numpy).")


ERRATA += tuple(
    Erratum(f"{arch.replace('.', '')}-div-scale-{ty}-{what}", (arch,), {arch: _DIV_SCALE_PAGES[ty][arch]},
            "pcode_text", ("VOP3SD", f"V_DIV_SCALE_{ty.upper()}"), pdf, fix, evidence)
    for ty in ("f32", "f64")
    for arch in ("rdna3", "rdna3.5")
    for what, pdf, fix, evidence in _div_scale_errata(arch, ty))

ERRATA += tuple(
    Erratum(f"{arch.replace('.', '')}-div-fmas-{ty}-post-scale", (arch,), {arch: _DIV_FMAS_PAGES[arch]},
            "pcode_text", ("VOP3", f"V_DIV_FMAS_{ty.upper()}"),
            f"    D0.{t} = {'2.0F ** 32' if ty == 'f32' else '2.0 ** 64'} * fma(S0.{t}, S1.{t}, S2.{t})\n",
            f"    if exponent(S2.{t}) > {127 if ty == 'f32' else 1023} then\n"
            f"        D0.{t} = {'2.0F' if ty == 'f32' else '2.0'} ** {64 if ty == 'f32' else 128} * "
            f"fma(S0.{t}, S1.{t}, S2.{t})\n"
            f"    else\n"
            f"        D0.{t} = {'2.0F' if ty == 'f32' else '2.0'} ** -{64 if ty == 'f32' else 128} * "
            f"fma(S0.{t}, S1.{t}, S2.{t})\n"
            f"    endif\n",
            (f"With VCC set the pseudocode multiplies by 2**32 (f32), the wrong power and always upward. "
             f"Measured by {_TINYGRAD_HW}: v_div_fmas_f32 with VCC = 1 gives 1*1 + 2 = 3 * 2**64 "
             f"(5.534e19) for S2 = 2.0 and (2*3 + 1) * 2**-64 for S2 = 1.0: the scale is 2**+64 when S2's "
             f"exponent is above that of 1.0 and 2**-64 otherwise, undoing v_div_scale's 2**64 (which "
             f"scaled the denominator up when the quotient is huge, the numerator up when it is tiny)."
             if ty == "f32" else
             f"With VCC set the pseudocode always multiplies by 2**64 while v_div_scale_f64 scales by 2**128 "
             f"(either operand, either direction). The f32 form's measured rule ({_TINYGRAD_HW}: 2**+64 "
             f"when S2's exponent is above that of 1.0, else 2**-64, for v_div_scale_f32's 2**64) carried "
             f"to f64 with its 2**128; with it LLVM 22's f64 division macro (the compiled kernel "
             f"ew_f64_fma_sqrt_div) rounds quotients near the range limits correctly "
             f"(tests/test_emu_semantics_division.py, against numpy)."))
    for arch in ("rdna3", "rdna3.5")
    for ty in ("f32", "f64")
    for t in [_t(arch, ty)])

def _div_fixup_nan_estimate(arch: str, ty: str) -> Erratum:
    t = _t(arch, ty)
    # the manuals' own spellings: f32 entries test 64'F(S0.f) and write INF.f, f64 entries S0.f64 and INF
    nan_test, inf = (f"isNAN(64'F(S0.{t}))", f"INF.{t}") if ty == "f32" else ("isNAN(S0.f64)", "INF")
    keep = f"else\n    D0.{t} = sign_out ? -abs(S0.{t}) : abs(S0.{t})\nendif"
    if ty == "f32":
        evidence = (f"For an ordinary numerator and denominator the pseudocode returns |S0| with the quotient's "
                    f"sign, so a NaN quotient estimate stays NaN. Measured by {_TINYGRAD_HW}: v_div_fixup_f32 "
                    f"with S0 = 0x7fc00000 (NaN) and S1 = S2 = 1.0 returns 0x7f800000 (+inf): a NaN estimate is "
                    f"an overflow, infinite with the quotient's sign.")
    else:
        evidence = (f"As for f32 (measured by {_TINYGRAD_HW}: a NaN quotient estimate with ordinary operands "
                    f"gives an infinity with the quotient's sign). In LLVM 22's f64 division macro an "
                    f"overflowing quotient reaches v_div_fixup_f64 as a NaN estimate (v_div_fmas adds the "
                    f"infinite estimate and the opposite infinite remainder term); with this rule the macro "
                    f"returns the infinity numpy gives (tests/test_emu_semantics_division.py), without it NaN.")
    return Erratum(f"{arch.replace('.', '')}-div-fixup-{ty}-nan-estimate", (arch,), {arch: _DIV_FIXUP_PAGES[ty][arch]},
                   "pcode_text", ("VOP3", f"V_DIV_FIXUP_{ty.upper()}"), keep,
                   f"elsif {nan_test} then\n    D0.{t} = sign_out ? -{inf} : +{inf}\n" + keep, evidence)


ERRATA += tuple(_div_fixup_nan_estimate(arch, ty) for arch in ("rdna3", "rdna3.5") for ty in ("f32", "f64"))

ERRATA += (
    Erratum(
        "rdna3-subrev-co-ci-u32-borrow", ("rdna3",), {"rdna3": 267},
        "pcode_text", ("VOP2", "V_SUBREV_CO_CI_U32"),
        "VCC.u64[laneId] = 64'U(S1.u) + VCC.u64[laneId].u64 > 64'U(S0.u) ? 1'1U : 1'0U;",
        "VCC.u64[laneId] = 64'U(S0.u) + VCC.u64[laneId].u64 > 64'U(S1.u) ? 1'1U : 1'0U;",
        "The borrow-out is V_SUB_CO_CI_U32's (S1 + VCC > S0) although the result is S1 - S0 - VCC. "
        f"Measured by {_TINYGRAD_HW}: v_subrev_co_ci_u32 with v0 = 10 (S0), v1 = 5 (S1), VCC = 0 computes "
        "5 - 10 and sets VCC = 1. The RDNA3.5 manual (page 284, and 434 for VOP3SD) gives "
        "64'U(S0.u32) + VCC.u64[laneId].u64 > 64'U(S1.u32).",
    ),
)

# CDNA3/CDNA4 V_MIN/V_MAX_F16/F32/F64: the signed-zero branches compare with `== +0.0` and
# `== -0.0`, which (as every other comparison in the pseudocode) ignore the sign of zero; read so,
# the first branch takes both (+0, -0) and (-0, +0) and the second can never run, and max(-0, +0)
# gives -0, min(-0, +0) gives +0. The branches exist to order -0 below +0.
_SIGNED_ZERO_EVIDENCE = (
    "The V_MIN/V_MAX entries give separate branches for the operand pairs (+0.0, -0.0) and "
    "(-0.0, +0.0) with opposite results, which is only meaningful if the comparisons test the sign: "
    "with sign-blind `==` the second branch is unreachable. The RDNA3 manual gives the same "
    "instructions a comparison 'where +0.0 > -0.0' (GT_NEG_ZERO, p. 263: 'NOTE: +0>-0 is TRUE in "
    "this comparison'). The fix adds the sign tests the branches imply; not measured on CDNA hardware "
    "(found by the random-program fuzzer: the raw-bits min/max path and the literal pseudocode disagreed).")


# the pages of the entries (V_MIN_F16 ... V_MAX_F64)
_SIGNED_ZERO_PAGES = {
    "cdna3": {"V_MIN_F16": 182, "V_MAX_F16": 181, "V_MIN_F32": 172, "V_MAX_F32": 172, "V_MIN_F64": 364, "V_MAX_F64": 365},
    "cdna4": {"V_MIN_F16": 195, "V_MAX_F16": 194, "V_MIN_F32": 184, "V_MAX_F32": 185, "V_MIN_F64": 410, "V_MAX_F64": 410},
}


def _signed_zero_errata():
    out = []
    for arch in ("cdna3", "cdna4"):
        for fmt in ("VOP2", "VOP3A"):
            for ty in ("f16", "f32", "f64"):
                if (fmt == "VOP2") == (ty == "f64"):     # VOP3A's f16/f32 forms are VOP2's, promoted
                    continue
                s0, s1 = (f"64'F(S0.{ty})", f"64'F(S1.{ty})") if ty != "f64" else ("S0.f64", "S1.f64")
                for op in ("MIN", "MAX"):
                    pdf = f"elsif (({s0} == +0.0) && ({s1} == -0.0)) then"
                    fix = f"elsif (({s0} == +0.0) && ({s1} == -0.0) && !sign(S0.{ty}) && sign(S1.{ty})) then"
                    page = _SIGNED_ZERO_PAGES[arch][f"V_{op}_{ty.upper()}"]
                    out.append(Erratum(f"{arch}-{fmt.lower()}-{op.lower()}-{ty}-signed-zero", (arch,), {arch: page},
                                       "pcode_text", (fmt, f"V_{op}_{ty.upper()}"), pdf, fix, _SIGNED_ZERO_EVIDENCE))
    return tuple(out)


ERRATA += _signed_zero_errata()

# CDNA3/CDNA4 V_MAD_MIX_F32 / V_MAD_MIXLO_F16 / V_MAD_MIXHI_F16 (VOP3P opcodes 32-34) are fused.
_MIX_FUSED_EVIDENCE = (
    "The pseudocode multiplies and adds (`in[0] * in[1] + in[2]`: two roundings), but LLVM 22 names "
    "these opcodes v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 on gfx942 and gfx950 and selects "
    "v_fma_mix_f32 for llvm.fma.f32 of f16-extended operands there (a fused multiply-add, one rounding), "
    "while for gfx900, whose v_mad_mix is unfused, it converts and uses v_fma_f32 instead. RDNA3's "
    "V_FMA_MIX_F32 pseudocode (same operand selection) is fma(in[0], in[1], in[2]).")
ERRATA += tuple(
    Erratum(f"{arch}-mad-mix-{part}-fused", (arch,), {arch: pages[arch]}, "pcode_text", ("VOP3P", name),
            f"{dst} = {pre}in[0] * in[1] + in[2]{post}", f"{dst} = {pre}fma(in[0], in[1], in[2]){post}",
            _MIX_FUSED_EVIDENCE)
    for arch in ("cdna3", "cdna4")
    for part, name, dst, pre, post, pages in (
        ("f32", "V_MAD_MIX_F32", "D0[31 : 0].f32", "", "", {"cdna3": 266, "cdna4": 281}),
        ("lo", "V_MAD_MIXLO_F16", "D0[15 : 0].f16", "f32_to_f16(", ")", {"cdna3": 267, "cdna4": 282}),
        ("hi", "V_MAD_MIXHI_F16", "D0[31 : 16].f16", "f32_to_f16(", ")", {"cdna3": 267, "cdna4": 282})))


# V_LDEXP_F16 narrows 2**n to f16 before multiplying: read literally, 16'F(2.0F ** n) is +inf for
# n > 15 and 0 for n < -24, so 2**-24 * 2**20 gives +inf and 65504 * 2**-30 gives 0.
ERRATA += (
    Erratum(
        "ldexp-f16-power-in-f16", ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"),
        {"rdna3": 272, "rdna3.5": 290, "rdna4": 313, "cdna3": 183, "cdna4": 196},
        "pcode_text", ("VOP2", "V_LDEXP_F16"),
        "D0.f16 = S0.f16 * 16'F(2.0F ** 32'I(S1.i16))", "D0.f16 = S0.f16 * 2.0F ** 32'I(S1.i16)",
        "The description says the instruction multiplies 'by an integral power of 2 specified in the second "
        "input' and to 'Compare with the ldexp() function in C' (one rounding of x * 2**n), and V_LDEXP_F32's "
        "pseudocode is S0.f * 2.0F ** S1.i with no narrowing; narrowed to f16, 2**n leaves f16's range "
        "for most of the i16 exponents. LLVM 22 (llc, gfx1100, gfx1201, gfx942) selects v_ldexp_f16 for "
        "llvm.ldexp.f16 (x * 2**n, rounded once) clamping the i32 exponent only to the i16 range "
        "(v_med3_i32 with 0x8000 and 0x7fff), and folds llvm.ldexp.f16(0xH0001, 20) to 0xH2C00 (2**-4) "
        "and llvm.ldexp.f16(0xH7BFF, -30) to 0xH0400, where the literal pseudocode gives +inf and 0. "
        "The fix multiplies by 2**n unnarrowed (an exact scaling, one rounding to f16). Not measured on "
        "hardware."),
)

# V_FRACT_*: the result clamped below 1.0, as the F32/F64 entries' notes say (isa/errata_fract.py)
ERRATA += tuple(
    Erratum(f"{arch.replace('.', '')}-fract-{ty}-clamp", (arch,), {arch: page}, "pcode_text",
            ("VOP1", f"V_FRACT_{ty.upper()}"), pdf, fix, evidence)
    for arch, ty, page, pdf, fix, evidence in FRACT_ROWS)

# Scalar memory instructions the manuals do not describe: RDNA3, RDNA3.5, CDNA3 and CDNA4 omit
# them from their SMEM opcode tables (add_opcode above) and RDNA4 lists them without a description
# or pseudocode, so their operands' roles come from here: name -> (what SDATA holds, what SBASE
# holds, pages of the SMEM opcode table, evidence). Both probes take a number in SDATA (the probe's
# mode), not data SGPRs; the _BUFFER form's base is a buffer resource (4 SGPRs), the other's an
# address (2). The evidence is LLVM 22's disassembly (../shared/conformance/llvm), which prints
# SDATA as a number where other SMEM rows print SGPRs.
UNDESCRIBED_SMEM = {
    "S_ATC_PROBE": ("immediate", "address", {"rdna3": 160, "rdna3.5": 162, "rdna4": 182, "cdna3": 529, "cdna4": 575},
                    "f4880103 ... -> s_atc_probe 4, s[6:7], s90 (gfx1100); 004004f4 16a02628 -> s_atc_probe 0, "
                    "s[0:1], s20 offset:0x26a016 (gfx1201); 0e589ac0 9bc71efe -> s_atc_probe 0x60, s[28:29], "
                    "exec_hi offset:-0x13865 (gfx942)"),
    "S_ATC_PROBE_BUFFER": ("immediate", "resource", {"rdna3": 160, "rdna3.5": 162, "rdna4": 182, "cdna3": 529,
                                                     "cdna4": 575},
                           "f48c0000 ... -> s_atc_probe_buffer 0, s[0:3], s0 (gfx1100); 026504f4 70402200 -> "
                           "s_atc_probe_buffer 20, s[4:7], s0 offset:0x224070 (gfx1201); 00009ec0 20900000 -> "
                           "s_atc_probe_buffer 0, s[0:3], 0x9020 (gfx942)"),
}


# RDNA4's untyped formatted buffer stores (VBUFFER, which typed and untyped buffer instructions
# share) whose description says "The instruction specifies the data format of the surface,
# overriding the resource descriptor", copied from TBUFFER_STORE_FORMAT_*: they take the format from
# the resource descriptor, as the manual says of the matching loads ("The resource descriptor
# specifies the data format of the surface"). {name: page of its entry in the VBUFFER section}.
# Evidence: LLVM 22 (gfx1201) prints none of them with format: and re-encodes FORMAT as 1
# (000001c4 00c80040 3a7aff5b -> buffer_store_format_x v0, v58, s[100:103], s0 offen offset:6029178,
# re-encoded 000001c4 00c88040 3a7aff5b), while tbuffer_store_format_x keeps it (format:69).
FORMAT_FROM_DESCRIPTOR = {
    "rdna4": {
        "BUFFER_STORE_FORMAT_X": 627, "BUFFER_STORE_FORMAT_XY": 627, "BUFFER_STORE_FORMAT_XYZ": 628,
        "BUFFER_STORE_FORMAT_XYZW": 628, "BUFFER_STORE_D16_FORMAT_X": 630, "BUFFER_STORE_D16_FORMAT_XY": 630,
        "BUFFER_STORE_D16_FORMAT_XYZ": 630, "BUFFER_STORE_D16_FORMAT_XYZW": 630,
        "BUFFER_STORE_D16_HI_FORMAT_X": 635,
    },
}


# DS instructions whose operands the manuals' code does not name in the pseudocode language: no code
# (the GWS instructions on RDNA3/3.5 and CDNA4, DS_ORDERED_COUNT), code written as C (DS_SWIZZLE_B32:
# `thread_out[i] = thread_in[j]`, with no operand fields) or registers indexed untyped (the GS_REG
# atomics: `VDST[1] = GS_REGS(addr + 1)`). name -> ((VDST registers or 0, an ADDR VGPR, data operands
# as (field, registers) ...), pages by family, LLVM 22's encodings as evidence; read by
# isa.memory_access.lds_operands.
UNDESCRIBED_LDS = {
    "DS_SWIZZLE_B32": ((1, True, ()), {"rdna3": 185, "rdna3.5": 187, "rdna4": 205, "cdna3": 555, "cdna4": 602},
                       "0092d4d801000020 -> ds_swizzle_b32 v32, v1 offset:37376 (gfx1100: the swizzled source "
                       "is the ADDR byte, the result VDST); 00d57ad800000032 -> ds_swizzle_b32 v50, v0 "
                       "offset:swizzle(ROTATE,1,8) (gfx942)"),
    "DS_ORDERED_COUNT": ((1, True, ()), {"rdna3": 185, "rdna3.5": 187},
                         "0002fed832000084 -> ds_ordered_count v132, v50 offset:512 gds (gfx1100)"),
    "DS_ADD_GS_REG_RTN": ((2, False, (("DATA0", 1),)), {"rdna3": 185, "rdna3.5": 187},
                          "0008ead900080034 -> ds_add_gs_reg_rtn v[52:53], v8 offset:2048 gds (gfx1100)"),
    "DS_SUB_GS_REG_RTN": ((2, False, (("DATA0", 1),)), {"rdna3": 185, "rdna3.5": 187},
                          "0800eed900010002 -> ds_sub_gs_reg_rtn v[2:3], v1 offset:8 gds (gfx1100)"),
    # code in another language (`for i = 0..2 do`, DATA1[i]: four pushed node pointers, DATA1[3])
    "DS_BVH_STACK_RTN_B32": ((1, True, (("DATA0", 1), ("DATA1", 4))), {"rdna3": 185, "rdna3.5": 187},
                             "0020b4da84003388 -> ds_bvh_stack_rtn_b32 v136, v132, v0, v[51:54] offset:8192 "
                             "(gfx1100); 0009b4da80000000 -> ds_bvh_stack_rtn_b32 v0, v128, v0, v[0:3] "
                             "offset:2304 (gfx1151)"),
    # the GWS value VGPR sits in the ADDR byte; the manuals' GWS sections do not place it
    "DS_GWS_INIT": ((0, False, (("ADDR", 1),)), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555, "cdna4": 600},
                    "001866d809000000 -> ds_gws_init v9 offset:6144 gds (gfx1100); 000433d968000000 -> "
                    "ds_gws_init v104 offset:1024 gds (gfx942)"),
    "DS_GWS_SEMA_BR": ((0, False, (("ADDR", 1),)), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555, "cdna4": 600},
                       "00006ed801000000 -> ds_gws_sema_br v1 gds (gfx1100)"),
    "DS_GWS_BARRIER": ((0, False, (("ADDR", 1),)), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555, "cdna4": 600},
                       "000076d801000000 -> ds_gws_barrier v1 gds (gfx1100)"),
    "DS_GWS_SEMA_V": ((0, False, ()), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555},
                      "00326ad800000000 -> ds_gws_sema_v offset:12800 gds (gfx1100); 004835d900000000 -> "
                      "ds_gws_sema_v offset:18432 gds (gfx942)"),
    "DS_GWS_SEMA_P": ((0, False, ()), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555}, "as DS_GWS_SEMA_V"),
    "DS_GWS_SEMA_RELEASE_ALL": ((0, False, ()), {"rdna3": 184, "rdna3.5": 186, "cdna3": 555}, "as DS_GWS_SEMA_V"),
}


# DS instructions that address the global data share or the global wave sync only (the GDS bit set;
# LLVM's text writes `gds` and refuses the line without it). Where the manual says so ("GDS Only:" in
# CDNA3's GWS entries, "GDS-only" in RDNA3's ds_ordered_count, registers "embedded in GDS" for its
# GS_REG atomics) isa.memory_access.gds_only reads its words; these are the GWS instructions whose
# entries are empty in RDNA3/3.5 and CDNA4. name -> (pages of their opcode-table rows, evidence).
_GDS_EVIDENCE = ("LLVM 22: 'ds_gws_init v2' -> error: too few operands for instruction (gfx1100, gfx942, gfx950); "
                 "'ds_gws_init v2 gds' -> 000066d802000000 (gfx1100), 000033d902000000 (gfx942)")
GDS_ONLY = {name: ({f: p for f, p in UNDESCRIBED_LDS[name][1].items() if f != "cdna3"}, _GDS_EVIDENCE)
            for name in ("DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER", "DS_GWS_SEMA_V", "DS_GWS_SEMA_P",
                         "DS_GWS_SEMA_RELEASE_ALL")}

# SOPK count waits whose SDST LLVM's assembler syntax fixes to null. The RDNA3/3.5 manuals' code
# adds an SGPR to the count (`vmcnt <= S0.u[5:0] + S1.u[5:0]`, S0 the SDST SGPR), but LLVM 22's
# assembler refuses any register but null here ("src0 must be null"), while its disassembler
# prints one (00 00 01 bc -> s_waitcnt_vscnt s1, 0x0). Text and DSL code refuse the SGPR as that
# assembler does; decoding and emulation keep the manual's reading. name -> (pages of the
# Instructions-chapter entries by family, evidence).
_NULL_SDST_EVIDENCE = ("LLVM 22's assembler (gfx1100, gfx1151): 's_waitcnt_vscnt s1, 0' -> error: src0 must be null "
                       "(also m0, vcc_lo, exec_lo); 's_waitcnt_vscnt null, 0' -> 00 00 7c bc")
NULL_ONLY_SDST = {
    "S_WAITCNT_VSCNT": ({"rdna3": 214, "rdna3.5": 221}, _NULL_SDST_EVIDENCE),
    "S_WAITCNT_VMCNT": ({"rdna3": 215, "rdna3.5": 222}, _NULL_SDST_EVIDENCE),
    "S_WAITCNT_EXPCNT": ({"rdna3": 215, "rdna3.5": 222}, _NULL_SDST_EVIDENCE),
    "S_WAITCNT_LGKMCNT": ({"rdna3": 215, "rdna3.5": 222}, _NULL_SDST_EVIDENCE),
}

# OPSEL bits LLVM 22's disassembler refuses ("invalid instruction encoding") on CDNA4 instructions
# whose syntax takes no op_sel and whose entries give OPSEL no use, where it ignores the same bits
# of their siblings (v_bitop3_b16 takes op_sel; v_cvt_pk_f16_f32 takes none and ignores every OPSEL
# bit). The manual's code reads no OPSEL bit of either, so nothing in it reserves them; wavesmith
# refuses the bytes as LLVM does (dsl/valu_plan.py). On RDNA3/3.5 an OPSEL bit of a source a 16-bit
# instruction does not have makes LLVM read the whole-VGPR form (valu_plan.rdna_opsel); v_mov_b16_e64
# has none in LLVM's syntax, so those bits are refused there. name -> ({family: page of the
# Instructions-chapter entry}, the OPSEL bits (bit 0 = OPSEL[0]), evidence).
RESERVED_OPSEL = {
    "V_BITOP3_B32": ({"cdna4": 391}, 0b1111,
                     "LLVM 22 (gfx950): 'v_bitop3_b32 v8, v2, v4, v6 bitop3:0x4e' -> [080134d202091acc]; "
                     "--disassemble of 080834d202091a0c, 081034d202091a0c, 082034d202091a0c and 084034d202091a0c "
                     "(OPSEL[0], [1], [2], [3] set) -> warning: invalid instruction encoding, while "
                     "'v_bitop3_b16 v8, v2, v4, v6 bitop3:0x4e op_sel:[1,0,0,0]' -> [080933d202091acc]; "
                     "'v_bitop3_b32 ... op_sel:[1,0,0,0]' -> error: not a valid operand"),
    "V_CVT_PK_BF16_F32": ({"cdna4": 408}, 0b0100,
                          "LLVM 22 (gfx950): 'v_cvt_pk_bf16_f32 v8, v2, v4' -> [080068d202090200]; --disassemble "
                          "of 082068d202090200 (OPSEL[2] set) -> warning: invalid instruction encoding; of "
                          "080868d202090200 (OPSEL[0]) -> v_cvt_pk_bf16_f32 v8, v2, v4; of 082067d202090200 "
                          "(v_cvt_pk_f16_f32 with OPSEL[2]) -> v_cvt_pk_f16_f32 v8, v2, v4"),
    "V_MOV_B16": ({"rdna3": 382, "rdna3.5": 406}, 0b0110,
                  "LLVM 22 (gfx1100, gfx1151): --disassemble of 08109cd502010000 and 08209cd502010000 "
                  "(v_mov_b16_e64 with OPSEL[1], OPSEL[2]: sources it does not have) -> warning: invalid "
                  "instruction encoding, while 0810e9d502010000 (v_not_b16_e64, OPSEL[1]) -> v_not_b16_e64 v8, v2 "
                  "and 08489cd502010000 -> v_mov_b16_e64 v8.h, v2.h op_sel:[1,1]; 'v_mov_b16_e64 v8, v2' -> "
                  "error: invalid operand for instruction (gfx1100: no whole-VGPR form)"),
}

# SWMMAC index sets LLVM 22 allows fewer of than the manual: "The VGPR holding the indices can hold 2
# sets of indices in wave32 that are selected using OPSEL[0] of the WMMA instruction, and 4 sets for
# wave64 selected by OPSEL[1:0]. Matrices with larger K values operate similarly." (RDNA4 7.12.3
# Structured Sparse Matrices, page 105; dsl.signature.index_keys: 2*wave/K). name -> ({family: page of
# the entry}, {wave: index sets}, evidence). The assembler and the decoder follow LLVM.
SWMMAC_INDEX_SETS = {
    "V_SWMMAC_I32_16X16X32_IU4": ({"rdna4": 418}, {64: 2},
                                  "LLVM 22 (gfx1201, +wavefrontsize64): 'v_swmmac_i32_16x16x32_iu4 v[8:11], v2, "
                                  "v4, v6 index_key:1' -> [0848 55cc 02091a1c]; index_key:2 -> error: out of range "
                                  "index_key; --disassemble of 085055cc02091a1c -> warning: invalid instruction "
                                  "encoding (v_swmmac_f32_16x16x32_f16 takes index_key:3 in wave64)"),
}

# CDNA entries with a description and no code (the conversions of both manuals): the moves between
# the VGPR and AGPR files, and matrix instructions whose `D = A (MxK) * B (KxN) + C (MxN)` line
# (isa/gen/effects.py reads it for the operand effects) the siblings of the same table have.
_AGPR_MOVES = (
    ("VOP3P", "V_ACCVGPR_READ", {"cdna3": 278, "cdna4": 303},
     "'Move 32 bits of data from an accumulator vector register into an architectural vector register'",
     "0140d8d3 02010018 as v_accvgpr_read_b32 v1, a2"),
    ("VOP3P", "V_ACCVGPR_WRITE", {"cdna3": 279, "cdna4": 303},
     "'Move 32 bits of data from an architectural vector register into an accumulator vector register'",
     "0140d9d3 02010018 as v_accvgpr_write_b32 a1, v2"),
    ("VOP1", "V_ACCVGPR_MOV_B32", {"cdna3": 212, "cdna4": 225},
     "'Move data from one accumulator register to another accumulator register' (VOP1 82, VOP3A 466)",
     "02a5027e as v_accvgpr_mov_b32 a1, a2"),
)

ERRATA += tuple(
    Erratum(f"cdna-{name.lower().replace('_', '-')}-pcode", ("cdna3", "cdna4"), pages, "add_pcode",
            (fmt, name), None, "D0.b32 = S0.b32",
            f"{name}'s entry is a description only, {description}: a 32-bit copy of its one source into its "
            f"destination, whichever file each is in (the AGPR operands are the syntax's, a0..a255). LLVM 22 "
            f"(gfx942 and gfx950) decodes {evidence}: one destination, one source.")
    for fmt, name, pages, description, evidence in _AGPR_MOVES)

_LOST_MATRIX_FORMULA = (
    ("cdna3", "V_MFMA_F32_4X4X1_16B_F32", "D = A (4x1) * B (1x4) + C (4x4)", 273,
     "the CDNA4 manual's entry has this line; LLVM 22 (gfx942) decodes 0080c2d3 01051204 as "
     "v_mfma_f32_4x4x1_16b_f32 a[0:3], v1, v2, a[4:7]"),
    ("cdna4", "V_SMFMAC_F32_16X16X64_FP8_FP8", "D = A (sparse 16x64) * B (64x16) + D (16x16)", 316,
     "V_SMFMAC_F32_16X16X64_FP8_BF8 beside it has this line with the same shape; LLVM 22 (gfx950) decodes "
     "0000fbd3 04113204 as v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[8:11], v12"),
    ("cdna4", "V_SMFMAC_F32_32X32X32_BF8_FP8", "D = A (sparse 32x32) * B (32x32) + D (32x32)", 317,
     "V_SMFMAC_F32_32X32X32_FP8_BF8 beside it has this line with the same shape; LLVM 22 (gfx950) decodes "
     "0000fdd3 10296204 as v_smfmac_f32_32x32x32_bf8_fp8 v[0:15], v[16:17], v[20:23], v24"),
    ("cdna4", "V_SMFMAC_F32_32X32X32_FP8_FP8", "D = A (sparse 32x32) * B (32x32) + D (32x32)", 318,
     "V_SMFMAC_F32_32X32X32_FP8_BF8 beside it has this line with the same shape; LLVM 22 (gfx950) decodes "
     "0000ffd3 10296204 as v_smfmac_f32_32x32x32_fp8_fp8 v[0:15], v[16:17], v[20:23], v24"),
)

ERRATA += tuple(
    Erratum(f"{arch}-{name.lower().replace('_', '-')}-formula", (arch,), {arch: page}, "add_pcode",
            ("VOP3P", name), None, formula,
            f"The conversion's {name} entry describes the product in words but has no formula line; "
            f"its name gives the shape by the manual's naming rule (V_MFMA_[out]_[M]X[N]X[K]_[B]B_[in]); {evidence}.")
    for arch, name, formula, page, evidence in _LOST_MATRIX_FORMULA)


# Manual entries whose pseudocode block is not code in the pseudocode language (isa/pcode/pcode.lark):
# name -> ({family: page of its Instructions-chapter entry}, what the block is, the line the code
# starts at or None). What each is: "prose" (sentences or a field layout set as code), "example"
# (an assembly listing), "table" (a register layout), "informal" (code in words the language has no
# rule for: `countbits(valid mask)`, `Increment stack_index`, `find first valid (vector mask)`,
# `for i = 0..2 do`, a tuple target, `if` without `then`), "prose before code" (a table of patterns,
# then code from the line given). The generator (isa/gen/build.py) stops when a block outside this
# table does not parse, when a listed block parses (or, prose before code, its code does not), or
# when its page differs; gen/effects.code_text reads a "prose before code" block from its code's
# first line, and reads every other listed block conservatively (gen/effects.py: every operand named
# is read, every register it could assign written in part). The emulator runs these instructions by
# hand-written semantics (emu/handwritten/).
NOT_CODE = {
    "S_SLEEP": ({"rdna4": 277}, "prose", None),           # "Determines the sleep duration. ..."
    "S_CLAUSE": ({"rdna4": 278}, "prose", None),          # "This field is set to the number of instructions ..."
    "S_WAIT_EVENT": ({"rdna4": 283}, "prose", None),      # "If this value is ONE then sleep until ..."
    "S_WAIT_LOADCNT_DSCNT": ({"rdna4": 288}, "prose", None),     # "Wait for DSCNT <= N. ..."
    "S_WAIT_STORECNT_DSCNT": ({"rdna4": 289}, "prose", None),
    # RDNA4: the INSTID/INSTSKIP field values in words, then an assembly example; RDNA3/3.5: the example
    "S_DELAY_ALU": ({"rdna3": 245, "rdna3.5": 261, "rdna4": 280}, "prose", None),
    "S_WAITCNT": ({"cdna3": 142, "cdna4": 154}, "prose", None),  # "SIMM16[3:0] = vmcount (vector memory operations) ..."
    "S_CODE_END": ({"rdna3": 248, "rdna3.5": 264, "rdna4": 284}, "example", None),   # "s_endpgm // last real ..."
    "IMAGE_BVH64_INTERSECT_RAY": ({"rdna4": 657}, "table", None),     # "0 VADDR0[0] = node_pointer[31:0] (uint32)"
    "IMAGE_BVH_DUAL_INTERSECT_RAY": ({"rdna4": 658}, "table", None),
    "DS_APPEND": ({"rdna3": 526, "rdna3.5": 560, "rdna4": 601}, "informal", None),   # countbits(valid mask)
    "DS_CONSUME": ({"rdna3": 525, "rdna3.5": 559, "rdna4": 601}, "informal", None),
    "DS_ADD_GS_REG_RTN": ({"rdna3": 537, "rdna3.5": 572}, "informal", None),   # `if OFFSET0[5:2] > 7` without then
    "DS_SUB_GS_REG_RTN": ({"rdna3": 538, "rdna3.5": 573}, "informal", None),
    "DS_BVH_STACK_RTN_B32": ({"rdna3": 541, "rdna3.5": 576}, "informal", None),   # for i = 0..2 do
    "DS_GWS_INIT": ({"cdna3": 454}, "informal", None),     # find_first_valid(vector mask), DATA[thread: index]
    "DS_GWS_BARRIER": ({"cdna3": 455}, "informal", None),
    # CDNA's entry lists swizzle patterns ("Offset[4:0]: Swizzle", "SWAPX16 : xor_mask = 0x10, ...")
    # before the C-like code RDNA's entries give alone
    "DS_SWIZZLE_B32": ({"cdna3": 434, "cdna4": 481}, "prose before code", "offset = offset1:offset0;"),
}
# what a NOT_CODE block says about memory in its own words: DS_BVH_STACK_RTN_B32 pushes
# (`MEM[stack_base + stack_index] = DATA1[i]`) and pops (`VGPR_RTN = MEM[stack_base + stack_index]`)
# LDS (RDNA3 page 541, RDNA3.5 page 576): it reads and writes memory, an atomic's direction
NOT_CODE_MEMORY = {"DS_BVH_STACK_RTN_B32": "atomic"}

# What a 16-bit VALU result does to the other half of its 32-bit VGPR. The code says only that a
# 16-bit value is written (`D0.f16 = ...`, .b16 .i16 .u16 .bf16: isa.effects' half_writes); the
# generator gives every such instruction of a family (VGPR results only: not RDNA4's v_s_*_f16,
# whose SGPR gets zeros above, RDNA4 7.10, nor the scalar F16 instructions, which "set the high part
# (bit[31:16]) of its SGPR destination to 0", RDNA3.5 and RDNA4 6.8 'SALU Floating Point': the code's
# whole write of D0, tests/test_emu_salu_f16_halves.py) the family's rule here, and writes the answer per
# instruction to generated/<family>/effects.py (HALF_RESULTS; isa.effects.half_result):
#   "kept"  -- every encoding writes one half and keeps the other;
#   "opsel" -- an instruction with a VOP3 form only (its OPSEL[3] picks the half) keeps the other
#              half; one with a VOP1/VOP2 form writes zeros to bits 31:16 in either encoding.
# family -> (rule, {family: physical PDF page of the text}, evidence)
# Not in the table: CDNA's V_MAC_F16, V_MADAK_F16, V_MADMK_F16, whose code writes the whole D0 itself
# (D0 = { 16'0, tmp.f16 }: zeros above; CDNA3 page 169, CDNA4 page 181; V_MAC_F16's VOP3 form with
# OPSEL[3] = 1 writes { tmp.f16, D0[15 : 0] }). LLVM's GCNSubtarget::zeroesHigh16BitsOfDest names these
# three (with the FMA*_F16 ones) apart: zeroing on VOLCANIC_ISLANDS only, its comment "In gfx9, ...
# Some instructions changed to preserving the high bits". That answer is a compiler's safe default
# (false only keeps a v_and_b32 0xffff), given without a chip or a measured value, and it steers
# code generation only (SIFoldOperands), nothing LLVM 22 encodes or prints: it cannot be settled
# without hardware, so no erratum: the emulator keeps the manual's zeros (tests/test_emu_mac_f16.py).
_RDNA_HALVES = ("RDNA{v} 7.4 '16-bit Math and VGPRs' (page {p74}): 'VALU instructions that operate on "
                "16-bit data (non-packed) can separately address the two halves of a 32-bit VGPR', VOP1/2/C "
                "DST[7] = 1 hi, 0 lo half; the VOP3 field table (page {p65}) and the VINTERP one (page {p132}): "
                "'For dest=0, dest_vgpr[31:0] = {{prev_dst_vgpr[31:16], result[15:0] }}'. The fake16 forms "
                "(LLVM's v_add_f16 v1, v2, v3 without .l/.h) are the same encodings with bit 7 clear.")
_CDNA_HALVES = ("The manual's code writes D0.f16 and the text of section 6.2.2 'Instruction Outputs' (page {out}) "
                "does not say what becomes of bits 31:16; the instructions whose VOP3A form takes OPSEL (no "
                "VOP1/VOP2 form) say it in their notes: V_MAD_F16, V_MAD_U16, V_MAD_I16, V_FMA_F16, "
                "V_DIV_FIXUP_F16 (section 12.11, page {vop3}): 'If OPSEL[3] is 0 Result is written to 16 LSBs of "
                "destination VGPR and hi 16 bits are preserved', and their legacy twins' code writes the zeros "
                "(V_MAD_LEGACY_F16: D0 = {{ 16'0, tmp.f16 }}). LLVM 22 takes op_sel on the VOP3-only ones "
                "(v_max3_f16 v1, v2, v3, v4 op_sel:[0,0,0,1] -> 0140f7d1 02071204, v_add_i16 v1, v2, v3 op_sel:[0,0,1]) and "
                "refuses it on a VOP1/VOP2 instruction's e64 form (v_add_f16_e64 v1, v2, v3 op_sel:[0,0,1]: "
                "'not a valid operand', gfx942 and gfx950); its GCNSubtarget::zeroesHigh16BitsOfDest ('derived "
                "from experimentation', used by SIFoldOperands to drop a v_and_b32 0xffff after them) says the "
                "GFX9 generation's VOP1/VOP2 16-bit instructions, e32 and e64 (v_add_f16, v_mul_lo_u16, "
                "v_cvt_f16_f32, v_rcp_f16, ...), zero the high 16 bits, and the op_sel ones do not.")
HALF_RESULTS = {
    "rdna3": ("kept", {"rdna3": 74}, _RDNA_HALVES.format(v="3", p74=74, p65=65, p132=132)),
    "rdna3.5": ("kept", {"rdna3.5": 76}, _RDNA_HALVES.format(v="3.5", p74=76, p65=67, p132=134)),
    "rdna4": ("kept", {"rdna4": 86}, _RDNA_HALVES.format(v="4", p74=86, p65="75 on, 7.1", p132="157 on, 12.3")),
    "cdna3": ("opsel", {"cdna3": 40}, _CDNA_HALVES.format(out=40, vop3="292 on")),
    "cdna4": ("opsel", {"cdna4": 40}, _CDNA_HALVES.format(out=40, vop3="317 on")),
}

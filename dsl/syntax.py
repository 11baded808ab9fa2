"""LLVM AMDGPU text-syntax conventions that are not ISA facts.

The ISA data (isa/) says what bits mean; this module says how LLVM spells them:
operand styles of the scalar control instructions, symbolic names LLVM uses for
hardware registers and s_delay_alu fields, and its names for operand codes the
manual reserves. Kept in one place so the printer and the parser agree."""
from __future__ import annotations

from isa.syntax_conventions import (F16_CONSTANTS, NO_F16_INLINE, NO_OPERANDS,  # noqa: F401
                                    NO_SOURCES, T16_SOURCES)
from isa.syntax_conventions import NO_ENC_SUFFIX as _NO_ENC_SUFFIX

# ---------------------------------------------------------------- operand codes

# Codes the RDNA3 operand tables call Reserved but LLVM's disassembler names (its
# assembler rejects them for gfx11). Printing only.
RESERVED_SRC_NAMES = {125: "null", 230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi",
                      239: "src_pops_exiting_wave_id", 251: "src_vccz", 252: "src_execz",
                      254: "src_lds_direct"}

# LLVM's spelling of the manual's special operand names
SPECIAL_TEXT = {"VCC_LO": "vcc_lo", "VCC_HI": "vcc_hi", "NULL": "null", "M0": "m0", "EXEC_LO": "exec_lo",
                "EXEC_HI": "exec_hi", "SCC": "src_scc", "SHARED_BASE": "src_shared_base",
                "SHARED_LIMIT": "src_shared_limit", "PRIVATE_BASE": "src_private_base",
                "PRIVATE_LIMIT": "src_private_limit", "VCCZ": "src_vccz", "EXECZ": "src_execz"}
# names accepted on input as well (LLVM's aliases)
SPECIAL_ALIASES = {"scc": "src_scc", "shared_base": "src_shared_base", "shared_limit": "src_shared_limit",
                   "private_base": "src_private_base", "private_limit": "src_private_limit"}
# 64-bit operands name the register pair by its low half's code
PAIR_TEXT = {"vcc_lo": "vcc", "exec_lo": "exec", "flat_scratch_lo": "flat_scratch", "xnack_mask_lo": "xnack_mask"}

# ---------------------------------------------------------------- VALU particulars

# Families whose 16-bit VALU operands LLVM 22 prints in true16 syntax (v1.l, v1.h; the 32-bit
# encodings' 7+1-bit VGPR fields); on the others (gfx12) it prints whole VGPRs v0-v255 and
# selects halves with op_sel only
TRUE16_FAMILIES = {"rdna3", "rdna3.5"}
# Families outside TRUE16_FAMILIES whose 16-bit compares in the 32-bit encoding (VOPC, no DPP)
# LLVM 22 also reads with halves: its gfx12 v_cmp/v_cmpx_*_16 e32 operands are the true16 Lo128
# class in the default syntax too, so `v_cmp_eq_f16 vcc_lo, v1.l, v2.h` is taken (all 16-bit VGPR
# operands halves, or all whole VGPRs) and the VOP3/DPP forms refuse halves. The manual names the
# halves in exactly these fields (RDNA4 ISA 7.4 "16-bit Math and VGPRs", page 86: "VOP1, VOP2,
# VOPC Encoding of 16-bit VGPRs: SRC/DST[6:0] = 32-bit VGPR address; SRC/DST[7] = (1=hi, 0=lo
# half)"); the printer writes halves there when a field's bit 7 selects a high half (LLVM's
# default syntax prints such a field as v128..v255, "Invalid register", which no line assembles to)
E32_COMPARE_HALVES = {"rdna4"}

# Per-instruction spellings no manual states (no operands, true16 sources, op_sel, encoding
# suffixes, f16 constants, float modifiers on integer operands) are isa/syntax_conventions.py's,
# each with its evidence (imported above under these names)
NO_ENC_SUFFIX = _NO_ENC_SUFFIX["gfx11"]

# Families whose matrix instructions (WMMA) hold 16 A and B elements in every lane, the halves of
# the wave holding the same ones (RDNA3, RDNA3.5): LLVM spells A and B as 16 * element bits / 32
# VGPRs and C/D as 256 / wave size. Elsewhere (gfx12) the operands are spread over the wave: an
# operand of R x C elements of b bits spans R * C * b / (32 * wave size) VGPRs, read off the
# shapes in the pseudocode ('D0.f32(16x16) = S0.f16(16x16) * S1.f16(32x16, index set from S2)')
WMMA_REPLICATED = {"rdna3", "rdna3.5"}
# LLVM declares the accumulator C of these families' matrix instructions a 64-bit float operand
# in wave32 and a 32-bit float one in wave64, whatever the element type: an inline constant there
# is read and spelled at that width (1/(2*pi) is 0.15915494309189532 in wave32 and 0.15915494 in
# wave64; the integer 0x3f800000 is the constant 1.0 in wave64 only). Elsewhere C reads constants
# as its elements.
WMMA_ACCUMULATOR_BITS = {32: 64, 64: 32}
# Families whose VOPD pair v_dual_mov_b32 :: v_dual_mov_b32 reads the Y source through the SRC2
# port, so the two src0 need not be in different VGPR banks (RDNA4 manual, VOPD restrictions:
# "V_MOV_B32 when in OPY uses SRC2 (not SRC0) if OPX is also a V_MOV_B32"; LLVM 22 accepts
# the pair with one bank on gfx1201 and refuses it on gfx1100)
VOPD_MOV_PAIR_USES_SRC2 = {"rdna4"}
# (which OPSEL bits select a byte, LLVM's byte_sel:N on RDNA4's fp8/bf8 conversions, is the code's
# if/elsif chain on OPSEL: isa.facts.byte_select)
# How LLVM prints a literal for a 16-bit SALU operand (RDNA3.5), by format: SOP2 (s_add_f16) as
# an f16 VALU operand, SOPC (s_cmp_*_f16) as a 16-bit integer one; SOP1 (s_ceil_f16,
# s_sext_i32_i16) prints the whole dword as for a 32-bit operand. See field_values.literal_value.
SALU_LITERAL16 = {"SOP2": "float", "SOPC": "int"}
# How LLVM spells the inline constant 1/(2*pi) on an operand of 16, 32 and 64 bits (the parser
# reads these digits as the constant)
INV_2PI_TEXT = {16: "0.15915494", 32: "0.15915494", 64: "0.15915494309189532"}
# LLVM's names of the DPP16 row controls (DPP_CTRL values: a name with a 4-bit argument at a
# multiple of 16, or a fixed code); quad_perm:[..] is 0..0xff, anything else prints as dpp_ctrl:0x..
DPP_ROW_CONTROLS = {0x100: "row_shl", 0x110: "row_shr", 0x120: "row_ror", 0x150: "row_share", 0x160: "row_xmask"}
DPP_FIXED_CONTROLS = {0x140: "row_mirror", 0x141: "row_half_mirror"}
# LLVM's names for the manual's export targets (EXP TARGET field, isa's tables["export_targets"];
# a range's codes get their index in it: mrt0..mrt7, pos0..pos4)
EXPORT_TARGETS = {"MRT": "mrt", "Z": "mrtz", "Position": "pos", "Primitive data": "prim", "Dual Source Blend Left": "dual_src_blend0",
                  "Dual Source Blend Right": "dual_src_blend1"}
# MIMG DIM field values: LLVM's names (SQ_RSRC_IMG_<name>), the manual's DIM names ("0: 1D ...
# 7: 2d msaa array", isa tables["image_dims"]) in capitals with underscores; their address
# coordinates and derivative components: isa.memory_registers.image_dims(d)
MIMG_DIM_NAMES = ("1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA", "2D_MSAA_ARRAY")
# MTBUF FORMAT values LLVM names (the buffer formats); larger values print as numbers
BUFFER_FORMAT_LIMIT = 64

# ---------------------------------------------------------------- gfx12 (RDNA4) memory operands
# The TH (temporal hint) and SCOPE fields of SMEM and the vector memory formats as LLVM 22 prints
# them (read off its gfx1201 disassembly). A load's or store's TH 3 is BYPASS at system scope;
# an atomic's TH is bit 0 return, bit 1 non-temporal, bit 2 cascade (named only at device or
# system scope, else printed as a number); unnamed values print as numbers.
SCOPE_NAMES = (None, "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")
TH_LOAD_NAMES = (None, "TH_LOAD_NT", "TH_LOAD_HT", "TH_LOAD_LU", "TH_LOAD_NT_RT", "TH_LOAD_RT_NT",
                 "TH_LOAD_NT_HT", None)
TH_STORE_NAMES = (None, "TH_STORE_NT", "TH_STORE_HT", "TH_STORE_WB", "TH_STORE_NT_RT", "TH_STORE_RT_NT",
                  "TH_STORE_NT_HT", "TH_STORE_NT_WB")
# Names LLVM 22's assembler also takes for the default (0), never printed: TH_DEFAULT and each kind's
# *_RT (of any kind on any instruction: a TH of 0 has no kind to check), SCOPE_CU; and
# TH_ATOMIC_RT_RETURN for an atomic's TH_ATOMIC_RETURN (1)
TH_DEFAULT_NAMES = ("TH_DEFAULT", "TH_LOAD_RT", "TH_STORE_RT", "TH_ATOMIC_RT")
SCOPE_DEFAULT_NAME = "SCOPE_CU"
# Bits the RDNA4 manual leaves unassigned that LLVM 22's disassembler prints as later gfx12
# parts' flags (its assembler refuses them for gfx1201: every such corpus row has reenc '-').
# Printing only: format -> ((bit, flag), ...)
LLVM_ONLY_BITS = {"rdna4": {
    "SMEM": ((56, "scale_offset"), (20, "nv")),
    "VFLAT": ((48, "scale_offset"), (7, "nv")), "VGLOBAL": ((48, "scale_offset"), (7, "nv")),
    "VSCRATCH": ((48, "scale_offset"), (7, "nv")),
    "VBUFFER": ((7, "nv"),), "VIMAGE": ((7, "nv"),), "VSAMPLE": ((7, "nv"),)}}

# numbers LLVM prints in hex wherever they stand (instr_text.py): every number operand and
# offset of the scalar memory format, and these modifiers (DPP's masks, an image's dmask); a
# source value is hex only as a literal, other modifiers are decimal
HEX_FORMATS = frozenset({"SMEM"})
HEX_MODIFIERS = frozenset({"row_mask", "bank_mask", "dmask", "dpp_ctrl", "th"})
# formats whose first operand (an export target) is followed by a blank, not a comma
TARGET_FIRST_FORMATS = frozenset({"EXP", "VEXPORT"})
# calls whose arguments LLVM joins without blanks (swizzle(BROADCAST,8,0), gfx9's
# gpr_idx(SRC0,DST); but hwreg(HW_REG_MODE, 8, 2))
TIGHT_CALLS = frozenset({"swizzle", "gpr_idx"})

# ---------------------------------------------------------------- SOPP / SOPK immediates
# style of the 16-bit immediate: none (not printed), opt (printed in decimal only if non-zero),
# dec, hex, imm (decimal from 0 to 64, else hex), branch (label or
# signed offset), waitcnt, delay_alu, depctr, sendmsg, hwreg. A branch is the code's fact
# (isa.facts.pc_relative_immediate: the code computes PC + signext(SIMM16 ...)): sopp_style.

SOPP_STYLE = {
    "s_nop": "imm", "s_endpgm": "opt", "s_wakeup": "none", "s_barrier": "none", "s_setkill": "imm",
    "s_waitcnt": "waitcnt", "s_sethalt": "imm", "s_sleep": "imm", "s_setprio": "imm", "s_sendmsg": "sendmsg",
    "s_sendmsghalt": "sendmsg", "s_trap": "imm", "s_icache_inv": "none", "s_incperflevel": "imm",
    "s_decperflevel": "imm", "s_ttracedata": "none", "s_endpgm_saved": "none", "s_endpgm_ordered_ps_done": "none",
    "s_code_end": "none", "s_clause": "hex", "s_delay_alu": "delay_alu", "s_waitcnt_depctr": "depctr",
    "s_wait_idle": "none", "s_round_mode": "hex", "s_denorm_mode": "imm",
    "s_wait_event": "hex", "s_set_inst_prefetch_distance": "hex", "s_ttracedata_imm": "hex",
    "s_wait_alu": "depctr", "s_barrier_leave": "none", "s_barrier_wait": "imm",
}


def sopp_style(d, gfx9: bool = False) -> str | None:
    """The style of SOPP instruction `d`'s immediate: the gfx9 dialect's table (with `gfx9`), then
    gfx11's, then "branch" where the code computes PC + signext(SIMM16 ...); None when neither
    says (each caller has its default). (isa.facts.pc_relative_immediate, a generated table read on
    the first question: imported here, as the decoder reads these tables on the emulator's path.)"""
    from isa.facts import pc_relative_immediate

    from . import syntax_gfx9
    mn = d.name.lower()
    style = (gfx9 and syntax_gfx9.SOPP_STYLE.get(mn)) or SOPP_STYLE.get(mn)
    if style is None and pc_relative_immediate(d):
        return "branch"
    return style


# SOPK: (operands in order, immediate style). 'sdst' is the SDST field, 'imm' SIMM16,
# 'hwreg' SIMM16 as hwreg(id, offset, size), 'lit' the trailing 32-bit literal.
SOPK_STYLE = {
    "s_version": (("imm",), "version"), "s_call_b64": (("sdst", "imm"), "branch"),
    "s_getreg_b32": (("sdst", "hwreg"), "hwreg"), "s_setreg_b32": (("hwreg", "sdst"), "hwreg"),
    "s_setreg_imm32_b32": (("hwreg", "lit"), "hwreg"),
    "s_subvector_loop_begin": (("sdst", "imm"), "branch"), "s_subvector_loop_end": (("sdst", "imm"), "branch"),
}
SOPK_DEFAULT = (("sdst", "imm"), "hex")
# SOPP styles whose number LLVM reads as unsigned (0..65535: s_endpgm -1 is refused, "expected a
# 16-bit value"); the manual's types do not say it (s_nop reads SIMM16.u16, yet -1 is taken as its
# 16 bits), so the others take -32768..65535
UNSIGNED_SOPP_STYLES = frozenset({"opt", "sendmsg"})

# LLVM's names for hardware registers in hwreg(...) (gfx11)
HWREG_NAMES = {1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 5: "HW_REG_GPR_ALLOC",
               6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 15: "HW_REG_SH_MEM_BASES",
               18: "HW_REG_PERF_SNAPSHOT_PC_LO", 19: "HW_REG_PERF_SNAPSHOT_PC_HI", 20: "HW_REG_FLAT_SCR_LO",
               21: "HW_REG_FLAT_SCR_HI", 23: "HW_REG_HW_ID1", 24: "HW_REG_HW_ID2",
               27: "HW_REG_PERF_SNAPSHOT_DATA", 29: "HW_REG_SHADER_CYCLES"}

# gfx12 (RDNA4): LLVM 22's hwreg names (read off its disassembly of every id in the gfx1201
# corpus); the wave-state registers carry a WAVE_ prefix, ids it does not name print as numbers
HWREG_NAMES_BY_FAMILY = {"rdna4": {
    1: "HW_REG_WAVE_MODE", 2: "HW_REG_WAVE_STATUS", 4: "HW_REG_WAVE_STATE_PRIV", 5: "HW_REG_WAVE_GPR_ALLOC",
    6: "HW_REG_WAVE_LDS_ALLOC", 7: "HW_REG_IB_STS", 10: "HW_REG_PERF_SNAPSHOT_DATA",
    11: "HW_REG_PERF_SNAPSHOT_PC_LO", 12: "HW_REG_PERF_SNAPSHOT_PC_HI", 15: "HW_REG_PERF_SNAPSHOT_DATA1",
    16: "HW_REG_PERF_SNAPSHOT_DATA2", 17: "HW_REG_WAVE_EXCP_FLAG_PRIV", 18: "HW_REG_WAVE_EXCP_FLAG_USER",
    19: "HW_REG_WAVE_TRAP_CTRL", 20: "HW_REG_WAVE_SCRATCH_BASE_LO", 21: "HW_REG_WAVE_SCRATCH_BASE_HI",
    23: "HW_REG_WAVE_HW_ID1", 24: "HW_REG_WAVE_HW_ID2", 26: "HW_REG_WAVE_SCHED_MODE",
    29: "HW_REG_SHADER_CYCLES_LO", 30: "HW_REG_SHADER_CYCLES_HI", 31: "HW_REG_WAVE_DVGPR_ALLOC_LO",
    32: "HW_REG_WAVE_DVGPR_ALLOC_HI"}}


def hwreg_names(family: str | None) -> dict[int, str]:
    return HWREG_NAMES_BY_FAMILY.get(family, HWREG_NAMES)


def hwreg_input_names(family: str | None) -> dict[str, int]:
    """hwreg(...) names the assembler reads -> id: the family's, and gfx11's names of the
    registers a later family renamed HW_REG_WAVE_* at the same id (LLVM reads HW_REG_MODE as
    gfx12's HW_REG_WAVE_MODE, not HW_REG_TRAPSTS, whose id 3 is HW_REG_WAVE_STATE_PRIV there)."""
    names = hwreg_names(family)
    old = {n: i for i, n in HWREG_NAMES.items() if names.get(i) == n.replace("HW_REG_", "HW_REG_WAVE_", 1)}
    return {**old, **{n: i for i, n in names.items()}}


# s_delay_alu field values (the manual's S_DELAY_ALU description)
DELAY_INSTID = ["NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4", "TRANS32_DEP_1",
                "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1", "SALU_CYCLE_1", "SALU_CYCLE_2",
                "SALU_CYCLE_3"]
DELAY_SKIP = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"]

# s_waitcnt_depctr fields: (name, lo bit, width)
DEPCTR_FIELDS = [("depctr_hold_cnt", 7, 1), ("depctr_sa_sdst", 0, 1), ("depctr_va_vdst", 12, 4),
                 ("depctr_va_sdst", 9, 3), ("depctr_va_ssrc", 8, 1), ("depctr_va_vcc", 1, 1),
                 ("depctr_vm_vsrc", 2, 3)]

SENDMSG_RTN_NAMES = {128: "MSG_RTN_GET_DOORBELL", 129: "MSG_RTN_GET_DDID", 130: "MSG_RTN_GET_TMA",
                     131: "MSG_RTN_GET_REALTIME", 132: "MSG_RTN_SAVE_WAVE", 133: "MSG_RTN_GET_TBA",
                     134: "MSG_RTN_GET_TBA_TO_PC"}
# gfx11 message names (LLVM rejects the older MSG_GS, MSG_SYSMSG for gfx11 and prints 15 as a number)
SENDMSG_NAMES = {1: "MSG_INTERRUPT", 2: "MSG_HS_TESSFACTOR", 3: "MSG_DEALLOC_VGPRS", 5: "MSG_STALL_WAVE_GEN",
                 6: "MSG_HALT_WAVES", 9: "MSG_GS_ALLOC_REQ"}
# gfx12: LLVM 22's assembler refuses MSG_STALL_WAVE_GEN and MSG_HALT_WAVES for gfx1201 ("not
# supported on this GPU") and its disassembler names message 135 MSG_RTN_GET_SE_AID_ID
SENDMSG_NAMES_BY_FAMILY = {"rdna4": {k: v for k, v in SENDMSG_NAMES.items() if k not in (5, 6)}}
SENDMSG_RTN_NAMES_BY_FAMILY = {"rdna4": {**SENDMSG_RTN_NAMES, 135: "MSG_RTN_GET_SE_AID_ID"}}


def sendmsg_names(family: str | None) -> tuple[dict[int, str], dict[int, str]]:
    """(message names, returning-message names) LLVM uses on the family."""
    return (SENDMSG_NAMES_BY_FAMILY.get(family, SENDMSG_NAMES),
            SENDMSG_RTN_NAMES_BY_FAMILY.get(family, SENDMSG_RTN_NAMES))


# s_waitcnt on a family whose manual gives its operand no layout (RDNA4: "the operand is ignored
# for compatibility"): LLVM 22 still prints it with gfx11's counters (0x0604 -> vmcnt(1) expcnt(4)
# lgkmcnt(32) on gfx1201)
WAITCNT_LAYOUT_GFX11 = [("EXP", 2, 0), ("LGKM", 9, 4), ("VM", 15, 10)]

# s_version's low byte: LLVM's names for microcode versions
UC_VERSION_NAMES = {0: "UC_VERSION_GFX7", 4: "UC_VERSION_GFX10", 6: "UC_VERSION_GFX11", 9: "UC_VERSION_GFX12"}
# s_version's flag bits and LLVM's names for them; text joins them to the version with '|'
UC_VERSION_FLAGS = {13: "UC_VERSION_W64_BIT", 14: "UC_VERSION_W32_BIT", 15: "UC_VERSION_MDP_BIT"}
# input: every UC_VERSION_* name -> its value
VERSION_NAMES = {**{name: v for v, name in UC_VERSION_NAMES.items()},
                 **{name: 1 << bit for bit, name in UC_VERSION_FLAGS.items()}}

# ---------------------------------------------------------------- accepted old spellings
# Pre-gfx11 mnemonics LLVM still accepts for gfx11 (input only; output uses the new names).
OLD_NAMES = {
    "s_andn2_b32": "s_and_not1_b32", "s_andn2_b64": "s_and_not1_b64", "s_orn2_b32": "s_or_not1_b32",
    "s_orn2_b64": "s_or_not1_b64", "s_ff1_i32_b32": "s_ctz_i32_b32", "s_ff1_i32_b64": "s_ctz_i32_b64",
    "s_flbit_i32_b32": "s_clz_i32_u32", "s_flbit_i32_b64": "s_clz_i32_u64", "s_flbit_i32": "s_cls_i32",
    "s_flbit_i32_i64": "s_cls_i32_i64", "s_inst_prefetch": "s_set_inst_prefetch_distance",
    "v_ffbh_u32": "v_clz_i32_u32", "v_ffbh_i32": "v_cls_i32", "v_ffbl_b32": "v_ctz_i32_b32",
    "v_cvt_flr_i32_f32": "v_cvt_floor_i32_f32", "v_cvt_rpi_i32_f32": "v_cvt_nearest_i32_f32",
    "v_cvt_pkrtz_f16_f32": "v_cvt_pk_rtz_f16_f32", "v_dot2c_f32_f16": "v_dot2acc_f32_f16",
    "v_mul_legacy_f32": "v_mul_dx9_zero_f32", "v_fma_legacy_f32": "v_fma_dx9_zero_f32",
    "v_fmac_legacy_f32": "v_fmac_dx9_zero_f32", "global_atomic_csub": "global_atomic_csub_u32",
}
for _pre in ("andn1", "orn1", "andn2", "orn2"):
    for _kind in ("saveexec", "wrexec"):
        for _w in ("b32", "b64"):
            _new = {"andn1": "and_not0", "orn1": "or_not0", "andn2": "and_not1", "orn2": "or_not1"}[_pre]
            OLD_NAMES[f"s_{_pre}_{_kind}_{_w}"] = f"s_{_new}_{_kind}_{_w}"

# Memory instructions: the operation part after the unit prefix (flat_, global_, scratch_,
# buffer_), pre-gfx11 spelling -> gfx11 spelling.
OLD_MEMORY_OPS = {
    "load_dword": "load_b32", "load_dwordx2": "load_b64", "load_dwordx3": "load_b96",
    "load_dwordx4": "load_b128", "store_dword": "store_b32", "store_dwordx2": "store_b64",
    "store_dwordx3": "store_b96", "store_dwordx4": "store_b128", "load_sbyte": "load_i8",
    "load_ubyte": "load_u8", "load_sshort": "load_i16", "load_ushort": "load_u16", "store_byte": "store_b8",
    "store_short": "store_b16", "load_ubyte_d16": "load_d16_u8", "load_ubyte_d16_hi": "load_d16_hi_u8",
    "load_sbyte_d16": "load_d16_i8", "load_sbyte_d16_hi": "load_d16_hi_i8", "load_short_d16": "load_d16_b16",
    "load_short_d16_hi": "load_d16_hi_b16", "store_byte_d16_hi": "store_d16_hi_b8",
    "store_short_d16_hi": "store_d16_hi_b16", "load_dword_addtid": "load_addtid_b32",
    "store_dword_addtid": "store_addtid_b32", "load_format_d16_hi_x": "load_d16_hi_format_x",
    "store_format_d16_hi_x": "store_d16_hi_format_x",
}
for _xyzw in ("x", "xy", "xyz", "xyzw"):
    for _dir in ("load", "store"):
        OLD_MEMORY_OPS[f"{_dir}_format_d16_{_xyzw}"] = f"{_dir}_d16_format_{_xyzw}"
# atomics: old operation -> gfx11 operation and type letter; a bare name is 32-bit, _x2 64-bit
OLD_ATOMICS = {"add": "add_u", "sub": "sub_u", "inc": "inc_u", "dec": "dec_u", "and": "and_b", "or": "or_b",
               "xor": "xor_b", "swap": "swap_b", "cmpswap": "cmpswap_b", "smax": "max_i", "smin": "min_i",
               "umax": "max_u", "umin": "min_u", "fcmpswap": "cmpswap_f", "fmin": "min_f", "fmax": "max_f",
               "csub": "csub_u"}
for _op, _new in OLD_ATOMICS.items():
    OLD_MEMORY_OPS[f"atomic_{_op}"] = f"atomic_{_new}32"
    OLD_MEMORY_OPS[f"atomic_{_op}_x2"] = f"atomic_{_new}64"
for _unit in ("flat", "global", "scratch", "buffer"):
    OLD_NAMES.update({f"{_unit}_{old}": f"{_unit}_{new}" for old, new in OLD_MEMORY_OPS.items()})
# scalar memory: s_load_dwordxN / s_buffer_load_dwordxN
for _unit in ("s", "s_buffer"):
    for _old, _bits in (("", 32), ("x2", 64), ("x4", 128), ("x8", 256), ("x16", 512)):
        OLD_NAMES[f"{_unit}_load_dword{_old}"] = f"{_unit}_load_b{_bits}"
# (the LDS renames, ds_read_b32 -> ds_load_b32, are isa.mnemonics.LDS_ALIASES)
OLD_NAMES.update({"v_add_u32": "v_add_nc_u32", "v_sub_u32": "v_sub_nc_u32", "v_subrev_u32": "v_subrev_nc_u32"})


# ---------------------------------------------------------------- SMEM

# An SMEM instruction's immediate offset may be left out: LLVM reads it as 0 (`s_load_b32 s1, s[2:3]`
# is `s_load_b32 s1, s[2:3], 0x0`; `s_prefetch_data_pc_rel s0, 0` is `s_prefetch_data_pc_rel 0x0, s0, 0`).
SMEM_OPTIONAL_OPERAND = ("offset", 0)


def smem_offset_default(ops, names: list[str]) -> list:
    """`ops`, the operands written for an SMEM instruction whose operands are `names`, with the
    optional one (SMEM_OPTIONAL_OPERAND) filled in where exactly it is missing."""
    name, default = SMEM_OPTIONAL_OPERAND
    ops = list(ops)
    if len(ops) == len(names) - 1 and name in names:
        ops.insert(names.index(name), default)
    return ops

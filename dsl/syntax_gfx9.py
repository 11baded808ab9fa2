"""LLVM AMDGPU text conventions of the gfx9 syntax generation (CDNA3 = gfx940-942), where they
differ from gfx11's (syntax.py). Like syntax.py: how LLVM spells things, not ISA facts."""
from __future__ import annotations

from isa.syntax_conventions import DPP_FORMATS as _DPP_FORMATS, NO_ENC_SUFFIX as _NO_ENC_SUFFIX, \
    NO_VOP3_FORM as _NO_VOP3_FORM

# SOPP immediates (styles as syntax.SOPP_STYLE); the rest print as syntax.SOPP_STYLE says
SOPP_STYLE = {"s_set_gpr_idx_off": "none", "s_set_gpr_idx_mode": "gpr_idx", "s_endpgm": "opt",
              "s_sendmsghalt": "sendmsg"}

# SOPK: (operands, immediate style) where gfx9 differs from syntax.SOPK_STYLE
SOPK_STYLE = {"s_cbranch_i_fork": (("sdst64", "imm"), "branch"), "s_call_b64": (("sdst64", "imm"), "branch")}

# operand number styles (as syntax.SOPP_STYLE's; instr_text.py) of instructions whose format does
# not say them: s_set_gpr_idx_on's mode is gpr_idx(...) or, above 15, a number in hex
OPERAND_STYLES = {"s_set_gpr_idx_on": ("src", "gpr_idx")}
# modifiers whose numbers are not plain decimal: small (decimal from 0 to 9, else hex)
MODIFIER_STYLES = {"bitop3": "small"}

# s_set_gpr_idx_on / _mode: the 4 mode bits by name (LLVM's gpr_idx(...) operand)
GPR_IDX_MODES = ("SRC0", "SRC1", "SRC2", "DST")

# gfx9 messages (s_sendmsg SIMM16[3:0]); operations by message; streams apply to GS operations
SENDMSG_NAMES = {1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE", 5: "MSG_STALL_WAVE_GEN",
                 6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE", 8: "MSG_EARLY_PRIM_DEALLOC",
                 9: "MSG_GS_ALLOC_REQ", 10: "MSG_GET_DOORBELL", 15: "MSG_SYSMSG"}
GS_OPS = {0: "GS_OP_NOP", 1: "GS_OP_CUT", 2: "GS_OP_EMIT", 3: "GS_OP_EMIT_CUT"}
SYSMSG_OPS = {1: "SYSMSG_OP_ECC_ERR_INTERRUPT", 2: "SYSMSG_OP_REG_RD", 4: "SYSMSG_OP_TTRACE_PC"}
# the messages (by id) whose operations take a stream (GS_OP_NOP excepted)
STREAM_MESSAGES = (2, 3)


def message_operations() -> dict[int, dict[str, int]]:
    """message id -> {operation name: value} of the messages that take one: GS (not GS_OP_NOP:
    LLVM "invalid operation id"), GS_DONE and SYSMSG."""
    gs = {n: k for k, n in GS_OPS.items()}
    return {2: {n: k for n, k in gs.items() if k}, 3: gs,
            15: {n: k for k, n in SYSMSG_OPS.items()}}

# hwreg(...) names: the manual's table (isa tables['hwreg']) with LLVM's prefix HW_REG_; LLVM spells
# the performance-snapshot registers with SQ_ and names id 15, which the CDNA3 table reserves
HWREG_LLVM_NAMES = {n: "SQ_" + n for n in ("PERF_SNAPSHOT_DATA", "PERF_SNAPSHOT_DATA1", "PERF_SNAPSHOT_PC_LO",
                                           "PERF_SNAPSHOT_PC_HI")}
HWREG_EXTRA = {15: "SH_MEM_BASES"}


def hwreg_text_name(name: str) -> str:
    """LLVM's hwreg(...) name of the manual's hardware register `name`."""
    return "HW_REG_" + HWREG_LLVM_NAMES.get(name, name)

# how the gfx9 syntax spells the flags an instruction's OPSEL bits are (isa.facts.opsel_flags: OPSEL[0]
# DPP's FI, OPSEL[1] its BOUND_CTRL; CDNA4's permlane swaps): DPP-style keys, in its text order,
# (key, OPSEL bit); gfx11's syntax writes op_sel:[FI,BOUND_CTRL] instead
OPSEL_FLAG_KEYS = (("bound_ctrl", 1), ("fi", 0))
# VALU instructions printed without an encoding suffix although the manual gives a VOP3 form
NO_ENC_SUFFIX = _NO_ENC_SUFFIX["gfx9"]
DPP_FORMATS = _DPP_FORMATS["gfx9"]
# instructions the syntax writes in their 32-bit encoding only, though the manual lists a VOP3 opcode
NO_VOP3_FORM = _NO_VOP3_FORM["gfx9"]
# MFMA with f64 results: LLVM prints the BLGP bits as neg:[a,b,c] (negate A, B, C)
MFMA_NEG_TYPES = {"f64"}

# SDWA selects (SRC*_SEL / DST_SEL) and DST_UNUSED as LLVM names them
SDWA_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
SDWA_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD")   # 3 reads as PAD

# MTBUF DFMT / NFMT names: the manual's (isa tables 'data_formats' / 'number_formats') with LLVM's
# prefixes; LLVM spells a code the manual calls reserved RESERVED_<code>
BUF_DATA_FORMAT, BUF_NUM_FORMAT = "BUF_DATA_FORMAT_", "BUF_NUM_FORMAT_"


def buffer_format_names(rows) -> dict[int, str]:
    """code -> LLVM's name of each row (code, NAME, ...) of a DFMT or NFMT table, without prefix."""
    return {code: f"RESERVED_{code}" if name == "RESERVED" else name for code, name, *_ in rows}

# operand names the disassembler prints for codes this target's assembler refuses
NOT_ASSEMBLED = {"null", "src_lds_direct", "src_flat_scratch_base_lo", "src_flat_scratch_base_hi"}

# GFX9 DPP controls (DPP_CTRL): the fixed codes as (LLVM's key, its value; True for a bare
# word), the row controls with a 4-bit argument (row_newbcast also takes 0; the others print a
# zero argument as dpp_ctrl:0x..)
DPP_FIXED_CONTROLS = {0x130: ("wave_shl", 1), 0x134: ("wave_rol", 1), 0x138: ("wave_shr", 1), 0x13c: ("wave_ror", 1),
                      0x140: ("row_mirror", True), 0x141: ("row_half_mirror", True), 0x142: ("row_bcast", 15),
                      0x143: ("row_bcast", 31)}
DPP_ROW_CONTROLS = {0x100: "row_shl", 0x110: "row_shr", 0x120: "row_ror", 0x150: "row_newbcast"}
# the DPP controls of a DP ALU operation (valu_plan.gfx9_dp_alu): DPP_ROW* 0x150-0x15f, row_newbcast:0-15
DP_ALU_DPP_CONTROLS = range(0x150, 0x160)

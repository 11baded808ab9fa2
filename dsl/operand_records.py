"""The records dsl.signature gives (Operand, ValuSig) and the signature helpers that read no
pseudocode (type_info, scalar_bits, vopd_base): small and free of the pseudocode
readers, so that the emulator can read cached signatures (emu/facts.py) without loading them.
dsl.signature re-exports every name here."""
from __future__ import annotations

import re

from isa import InstrDef
# the scalar source field holds a value itself, not an operand code ("the message type encoded in
# the instruction directly": s_sendmsg_rtn_b32/b64), its code 255 no literal: a generated fact
from isa.facts import source_is_immediate  # noqa: F401 (re-exported)
from isa.records import dataclass


@dataclass(frozen=True)
class Operand:
    """One operand of a VALU instruction's signature: its field, registers, type and width."""
    name: str           # 'vdst', 'sdst', 'src0', 'src1', 'src2', 'vcc' (implicit), 'k' (VOP2 literal)
    dwords: int = 1     # registers it spans (a wave mask spans wave_size // 32: dwords=0 means "mask")
    t16: bool = False   # a 16-bit value: VGPR halves v1.l / v1.h, f16 literal rules
    ftype: str = "b"    # 'f' float, 'i' signed, 'u' unsigned, 'b' bits (decides modifiers and literals)
    sgpr: bool = False  # a destination that is an SGPR although the field is a VDST
    bits: int = 32      # width of the value (16, 32, 64)
    packed: bool = False  # two 16-bit halves (pk_f16): f16 inline constants also read as the value
    int_value: bool = False  # an integer value that takes float modifiers (signature.integer_sources_take_fp_mods)
    bf16: bool = False       # bf16 has no inline constants of its own: literals follow integer rules
    registers_only: bool = False  # a register number, a written source or a lane mask: no constants
    no_literal: bool = False      # inline constants only (a lane select: LLVM's SCSrc operands)
    m0_only: bool = False         # the one register it takes is M0 (with no_literal: M0 or an inline constant)

    @property
    def is_mask(self) -> bool:
        return self.dwords == 0

    def regs(self, wave: int) -> int:
        return wave // 32 if self.dwords == 0 else self.dwords

    @property
    def is_float(self) -> bool:
        return self.ftype == "f"


@dataclass(frozen=True)
class ValuSig:
    """A VALU instruction's operands (destinations, sources) and its VCC, constant and compare traits."""
    dsts: tuple[Operand, ...]
    srcs: tuple[Operand, ...]
    vcc_out: bool         # writes VCC (carry out): e32 prints vcc after vdst, VOP3SD has SDST
    vcc_in: bool          # reads VCC (carry in / select): e32 prints vcc last, e64 takes it as src2
    k_pos: int | None     # VOP2 FMAMK/FMAAK: where the 32-bit constant K sits among the sources
    is_cmp: bool
    is_cmpx: bool
    reads_dst: bool = False  # computes with D0's incoming value (v_fmac_*, v_dot2c, v_swap; isa.effects
    #                          value_reads): VOP3 op_sel keeps a slot for it
    opsel_flags: int = 0     # OPSEL bits the description redefines as flags (v_permlane16: FI, BOUND_CTRL)


_TYPE_RE = re.compile(r"^(pk_)?([fiub]|bf)(\d+)$")


def type_info(t: str | None) -> tuple[int, str, bool]:
    """(bits, kind, packed) of a pseudocode type such as 'f16', 'pk_f16', 'u64', 'bf16'."""
    if not t:
        return 32, "b", False
    m = _TYPE_RE.match(t)
    if not m:
        return 32, "b", False
    packed, kind, bits = bool(m.group(1)), m.group(2), int(m.group(3))
    kind = "f" if kind in ("f", "bf") else kind
    if packed:
        return 32, kind, True
    return bits, kind, False


def vopd_base(spec, d: InstrDef) -> InstrDef:
    """The instruction a VOPD half performs: its VOP1/VOP2 twin (V_DUAL_MUL_F32 -> V_MUL_F32, the
    generated tables["vopd_twins"]), or the half itself where it has none (v_dual_dot2acc_*: its
    own code and operand types, two sources and D0, as a VOP2's). Never a definition made up here:
    every component then keys its facts and semantics on a definition of the spec."""
    if d.format != "VOPD":
        return d
    twin = next(((name, fmt) for dual, name, fmt in spec.tables.get("vopd_twins", ()) if dual == d.name), None)
    if twin is None:
        return d
    return next((x for x in spec.lookup(twin[0]) if x.format == twin[1]), d)


def scalar_bits(d: InstrDef, key: str) -> int:
    """Value width of a scalar operand (16 for RDNA3.5's f16 SALU, else 32/64)."""
    t = d.operand_types.get(key)
    bits, _, packed = type_info(t)
    return 16 if bits == 16 and not packed else 64 if bits == 64 else 32


def raw_source_field(d: InstrDef, roles) -> bool:
    """A scalar instruction whose pseudocode reads its SRC1 field's raw bits (`SRC1.u32[3 : 0]`,
    "the direct content of raw S1 field"), not the operand the field encodes: s_set_gpr_idx_on's
    four mode bits. Its field is a number (gpr_idx(...) in text), never a register or literal.
    `roles`: the family's format roles (isa.traits), whose salu formats are the scalar ones."""
    return d.format in roles.salu and "SRC1" in d.operand_types and "S1" not in d.operand_types

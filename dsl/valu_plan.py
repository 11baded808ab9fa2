"""The per-instruction plan of a decoded VALU instruction, read by instr_fields.py /
instr_fields_gfx9.py (the Instr from the fields) and the gfx9 assembler, worked out once per
(instruction, encoding, DPP or not, wave size): LLVM's mnemonic, the operand signature, and for
each source its register count and the rules a literal or inline constant is read with."""
from __future__ import annotations

from dataclasses import replace
from functools import cache

from isa import Spec
from isa.effects import effects
from isa.mnemonics import text_mnemonic
from isa.facts import OPSEL_IGNORED, byte_select, modifier_use, opsel_flags, register_number_sources, reserved_opsel
from isa.records import dataclass

from . import syntax, syntax_gfx9 as g9
from .encode import uniform_sources, valu_signature      # the encoder's memoised form
from .signature import (Operand, ValuSig, agpr_fields, constant_operand, integer_sources_take_fp_mods, matrix_regs,
                        opsel_on_whole_vgprs, takes_opsel)


def packed_kind(d, op: Operand) -> str:
    """'' or which 16-bit halves a packed operand holds, for its literal rules."""
    if not op.packed:
        return ""
    if op.bf16 or d.name in syntax.NO_F16_INLINE:
        return "bf16"
    return "f16" if op.is_float else "int"


def float_value(op: Operand) -> bool:
    """Whether literals follow the float rules (not for integers with float modifiers, bf16)."""
    return op.is_float and not op.int_value and not op.bf16


def value_bits(op: Operand) -> int:
    """16, 32 or 64: the width a literal is read at."""
    return 16 if op.t16 else 64 if op.dwords == 2 else 32


@cache
def mnemonic_of(d, spec: Spec, enc: str, dpp: bool) -> str:
    """LLVM's mnemonic: the encoding suffix only where the instruction has both e32 and e64 forms."""
    base = d.name.lower()
    if d.name in syntax.NO_ENC_SUFFIX:
        return base
    forms = {x.format for x in spec.lookup(d.name)}
    has_e32 = bool(forms & spec.traits.roles.valu_e32)
    has_e64 = bool(forms & {"VOP3", "VOP3SD"})
    if enc == "e32":
        if dpp:
            return base if d.format == "VOPC" else base + "_dpp"
        return base + "_e32" if has_e64 else base
    if dpp:
        return base + "_e64_dpp"
    return base + "_e64" if has_e32 else base


@dataclass(frozen=True)
class ValuPlan:
    """What building a decoded VALU instruction's Instr needs besides its field values, worked out
    once per (instruction, encoding, DPP or not, wave size): the mnemonic, the signature, and for
    each source its register count and the rules field_values.scalar_source reads it with."""
    mn: str
    sig: ValuSig
    e32: bool
    is_p: bool
    is_wmma: bool
    is_mix: bool
    cd_regs: int
    vcc: str                                  # the implicit wave mask's spelling
    srcs: tuple[tuple[Operand, int, int, bool, str, bool], ...]   # (op, regs, bits, is_float, packed, f16_inline)
    force_mods: bool                          # integer operands that take float modifiers (signature.integer_sources_take_fp_mods)
    t16_regs: bool                            # 16-bit operands print as VGPR halves (syntax.TRUE16_FAMILIES)
    matrix: tuple[bool, ...] = ()             # per source: a matrix operand (WMMA A, B, C)
    wide_constants: bool = False              # RDNA3 wave32 WMMA: C's inline floats spelled as a 64-bit operand's
    source_table: tuple[str, str] = ("VOP3", "SRC0")    # the operand-code table sources are read with


@cache
def valu_plan(d, spec: Spec, fmt: str, dpp: bool, wave: int) -> ValuPlan:
    """The plan of instruction `d` in format `fmt` (with a DPP word or not) at wave size `wave`."""
    sig = valu_signature(d)
    e32 = fmt in spec.traits.roles.valu_e32
    is_wmma = effects(d.pcode).matrix     # (MxN) operands: WMMA / SWMMAC
    regs = matrix_regs(d, wave, spec.arch) if is_wmma else {}
    srcs, matrix = [], []
    for i, op in enumerate(sig.srcs):
        n = op.dwords if e32 else regs.get(f"S{i}", 1) if is_wmma else op.regs(wave)
        matrix.append(f"S{i}" in regs)
        f16_constants = i in syntax.F16_CONSTANTS.get(d.name, ())     # (its constants are f16's, as the encoder reads them)
        srcs.append((op, n, value_bits(op), float_value(op) or f16_constants, packed_kind(d, op), not op.bf16))
    return ValuPlan(mnemonic_of(d, spec, "e32" if e32 else "e64", dpp), sig, e32, fmt == "VOP3P", is_wmma,
                     effects(d.pcode).mixed_sources, regs.get("D0", 0), "vcc" if wave == 64 else "vcc_lo",
                     tuple(srcs), integer_sources_take_fp_mods(d),
                     spec.arch in syntax.TRUE16_FAMILIES, tuple(matrix),
                     is_wmma and spec.arch in syntax.WMMA_REPLICATED and syntax.WMMA_ACCUMULATOR_BITS[wave] == 64,
                     (spec.traits.source_format, "SRC0"))


@dataclass(frozen=True)
class RdnaOpsel:
    """How RDNA's decoder reads the OPSEL field of a VOP3/VOP3SD/VOP3P instruction (rdna_opsel)."""
    takes: bool             # the text says op_sel (signature.takes_opsel: what the assembler encodes)
    absent: int             # OPSEL bits of operands the instruction does not have
    ignored: int            # bits of operands whose halves OPSEL picks none of: printed as nothing
    reserved: int           # bits no text says of operands it has (byte_sel's others; VOP3P without op_sel;
                            # isa.errata.RESERVED_OPSEL)
    whole_takes: bool       # true16 families: the whole-VGPR (fake16) syntax takes op_sel (opsel_on_whole_vgprs)
    dpp_reserved: int       # `reserved` in the VOP3 DPP form: byte_sel's other bits are ignored there (LLVM 22)


@cache
def rdna_opsel(d, family: str) -> RdnaOpsel:
    """The OPSEL rule of RDNA VOP3/VOP3P instruction `d`, one for printing and refusing, from the
    facts the assembler reads: op_sel is printed where the assembler takes it
    (signature.takes_opsel), over the bits it encodes (an entry per source, then the destination's;
    a VOP3 instruction's packed source takes none: v_dot2_f16_f16's S0/S1); the bits of sources
    (and of a destination) it does not have are refused where op_sel is taken (v_add_nc_u16's
    OPSEL[2]), ignored where not (v_mov_b32_e64: LLVM 22 prints no op_sel); byte_sel's
    instructions (isa.facts.byte_select) and a VOP3P instruction that takes no op_sel (the integer
    and fp8 dots, WMMA with a 32-bit result) refuse every other bit (byte_sel's DPP forms ignore
    them: LLVM 22 prints v_cvt_f32_fp8_e64_dpp with OPSEL[2] set as without). LLVM 22
    --disassemble calls each refused encoding invalid. On the true16 families a bit of an operand
    the instruction does not have (a source past its last, an SGPR mask source, a compare's
    destination) makes LLVM decode its whole-VGPR (fake16) form: halves as whole VGPRs, op_sel
    where that syntax takes it (opsel_on_whole_vgprs), the rest printed as nothing;
    isa.errata.RESERVED_OPSEL where LLVM has no such form (RDNA3's v_mov_b16_e64).
    tests/test_dsl_rdna_opsel_print.py flips every bit against LLVM 22."""
    sig, p = valu_signature(d), d.format == "VOP3P"
    vdst = any(not o.sgpr and o.name != "sdst" for o in sig.dsts) and not sig.is_cmp
    absent = sum(1 << i for i in range(3) if i >= len(sig.srcs) or sig.srcs[i].sgpr) | (0 if vdst or p else 8)
    takes, bytes_, ignored, reserved = takes_opsel(d, sig, family), byte_select(d), 0, 0
    if not p:
        ignored = sum(1 << i for i, o in enumerate(sig.srcs) if o.packed and d.promoted_from is None)
    if bytes_:
        absent, reserved = 0, 0xf & ~(1 << bytes_[0] | 1 << bytes_[1])
    elif p and not takes:
        reserved = 0b111 & ~absent
    if reserved_opsel(d):
        reserved |= reserved_opsel(d)[0]
    return RdnaOpsel(takes, absent, ignored, reserved, opsel_on_whole_vgprs(d), 0 if bytes_ else reserved)


# ---------------------------------------------------------------- the gfx9 dialect (CDNA)


@dataclass(frozen=True)
class Gfx9Plan:
    """What printing a gfx9-dialect (CDNA) VALU instruction needs besides its fields."""
    mn: str                   # mnemonic without the _dpp/_sdwa suffix rule applied
    sig: ValuSig
    e32: bool
    srcs: tuple               # (Operand, registers, literal bits, is_float, packed kind)
    acc: tuple                # operand names that are AGPRs (v_accvgpr_*)
    is_p: bool
    is_mix: bool
    opsel_byte: bool          # OPSEL[3:2] selects a byte of the destination: op_sel prints all four bits
    truth_table: bool = False  # the pseudocode reads OMOD, ABS and NEG as an 8-bit truth table (bitop3)
    constants: tuple = ()     # per source, the Operand a number written on it is typed as (signature.constant_operand)
    constant_encoding: str = "vop3"     # literals.literal_kind's encoding of the sources
    opsel: bool = False       # the VOP3 form takes op_sel (gfx9_takes_opsel)
    omod: bool = False        # the VOP3 form takes mul:/div: (isa.facts.modifier_use's omod)
    clamp: bool = False       # the VOP3/VOP3P form takes clamp (isa.facts.modifier_use's clamp: not None)
    neg_abs: tuple = ()       # sources taking -x/|x| outside VOP3P: isa.facts.modifier_use's neg_abs ('S0'..)
    sdwa_omod: bool = False   # the SDWA form takes mul:/div: (modifier_use's omod of the 32-bit encoding)
    opsel_ignored: bool = False     # op_sel is taken and encodes nothing (isa.facts.OPSEL_IGNORED: v_pk_fmac_f16_e64)
    dp_alu: bool = False      # a VGPR operand is a register pair: a DP ALU operation (gfx9_dp_alu)
    uniform: frozenset = frozenset()    # sources that must be an SGPR or constant (encode.uniform_sources)
    halves: bool = True       # VOP3P: some operand has halves OPSEL/OPSEL_HI pick (gfx9_selects_halves)
    opsel_reserved: tuple = ()  # (OPSEL bits, why) no text says: the decoder refuses them (gfx9_reserved_opsel)


def gfx9_mnemonic(spec: Spec, d, e32: bool, kind: str | None) -> str:
    """LLVM's gfx9 mnemonic: _dpp/_sdwa for those forms, _e32/_e64 where both encodings exist."""
    base = text_mnemonic(d.name, spec.arch)
    if d.name in syntax.NO_ENC_SUFFIX or d.name in g9.NO_ENC_SUFFIX or d.name in g9.NO_VOP3_FORM:
        return base
    if kind in ("DPP", "SDWA", "SDWAB"):
        return base + ("_dpp" if kind == "DPP" else "_sdwa")
    forms = {x.format for x in spec.lookup(d.name)}
    if e32:
        return base + "_e32" if forms & {"VOP3A", "VOP3B"} else base
    return base + "_e64" if forms & spec.traits.roles.valu_e32 else base


@cache
def gfx9_valu_plan(d, spec: Spec, fmt: str, kind: str | None) -> Gfx9Plan:
    """The gfx9 dialect's plan of instruction `d` in format `fmt` (kind: None, 'DPP', 'SDWA', 'SDWAB')."""
    sig = valu_signature(d)
    constants = tuple(_gfx9_constant_operand(d, i, op) for i, op in enumerate(sig.srcs))
    sig = _reached(d, sig)
    e32 = fmt in spec.traits.roles.valu_e32
    srcs = []
    for op in sig.srcs:
        bits = 16 if op.t16 else 64 if op.dwords == 2 else 32
        # gfx9 prints a bf16 source's inline constants as their values (v_cvt_f32_bf16 v1, 1.0)
        srcs.append((op, op.dwords if op.dwords else 2, bits, float_value(op) or op.bf16 and not op.packed,
                     packed_kind(d, op)))
    plan = Gfx9Plan(gfx9_mnemonic(spec, d, e32, kind), sig, e32, tuple(srcs), agpr_fields(d),
                    fmt == "VOP3P", effects(d.pcode).mixed_sources,
                    (3, 2) in effects(d.pcode).opsel_ranges, "ABS" in effects(d.pcode).inst_modifiers,
                    constants, "e32" if e32 else "vop3p" if fmt == "VOP3P" else "vop3",
                    not e32 and fmt != "VOP3P" and gfx9_takes_opsel(d),
                    not e32 and not sig.is_cmp and modifier_use(d).omod, not e32 and modifier_use(d).clamp is not None,
                    modifier_use(d).neg_abs, e32 and not sig.is_cmp and modifier_use(d).omod,
                    not e32 and modifier_use(d).opsel == OPSEL_IGNORED, gfx9_dp_alu(sig), uniform_sources(d),
                    fmt != "VOP3P" or gfx9_selects_halves(d, sig))
    return plan if e32 else replace(plan, opsel_reserved=gfx9_reserved_opsel(d, plan))


def gfx9_selects_halves(d, sig: ValuSig) -> bool:
    """Whether OPSEL/OPSEL_HI of VOP3P instruction `d` pick halves of anything: not where its result
    is not packed (isa.effects' result_ranges) and no source is packed either (the integer dots'
    32-bit sources of 8 or 4 lanes, v_accvgpr_read/write's raw bits); the v_*_mix* read OPSEL
    themselves; an instruction without a destination (v_mfma_ld_scale_b32) is not judged. The
    gfx9 assembler takes no op_sel / op_sel_hi on it (asm_gfx9.py); LLVM 22's disassembler calls
    an OPSEL bit of one an invalid encoding and prints none of OPSEL_HI."""
    if effects(d.pcode or "").mixed_sources or not sig.dsts or effects(d.pcode or "").result_ranges >= 2:
        return True
    return any(o.packed for o in sig.srcs)


def gfx9_reserved_opsel(d, plan: Gfx9Plan) -> tuple:
    """The OPSEL bits of a 64-bit gfx9 VALU encoding no text says, as (bits, why) pairs: the
    bits of sources `d` does not have where it takes op_sel (VOP3P; a VOP3 form that takes it,
    gfx9_takes_opsel, unless OPSEL[3:2] select a result byte or the form ignores op_sel: the manual's
    OPSEL "[0] = src0, [1] = src1, [2] = src2" selects a half of no operand there, and op_sel lists
    an entry per source), every bit where no operand has halves (gfx9_selects_halves), and the
    bits LLVM reserves where the manual gives OPSEL no use (isa.facts.reserved_opsel). LLVM 22
    --disassemble calls each such encoding invalid; a VOP3 form that takes no op_sel ignores the
    bits (v_lshrrev_b32_e64), as does LLVM."""
    out, nsrc = [], len(plan.srcs)
    absent = sum(1 << i for i in range(nsrc, 3))
    if plan.is_p and not plan.halves:
        out.append((0b111, "no operand of it has halves to select"))
    elif absent and (plan.is_p or plan.opsel and not plan.opsel_byte and not plan.opsel_ignored
                     and not opsel_flags(d)):
        out.append((absent, f"it has {nsrc} source{'s' if nsrc != 1 else ''}"))
    llvm = reserved_opsel(d)
    if llvm:
        out.append((llvm[0], "LLVM 22 reserves them (isa.errata.RESERVED_OPSEL)"))
    return tuple(out)


def gfx9_dp_alu(sig: ValuSig) -> bool:
    """A DP ALU operation: a VGPR destination or source two registers wide (the signature's
    widths, the code's bit ranges included: v_cvt_pk_f32_fp8's D0[63 : 32]). Its DPP form takes
    row_newbcast alone: "for 64-bit input data the only legal DPP type is DPP_ROW*" (CDNA3 13.3.9
    DPP, below Table 93, page 551; CDNA4 the same sentence); LLVM 22 counts a 64-bit result too
    (v_cvt_f64_f32_dpp with quad_perm: "DP ALU dpp only supports row_newbcast")."""
    return any(o.dwords == 2 and not o.sgpr for o in sig.dsts + sig.srcs)


def gfx9_no_dpp_form(d, plan: Gfx9Plan) -> str | None:
    """Why instruction `d` has no gfx9 DPP form, else None. The DPP word's SRC0 is a VGPR ("Real
    SRC0 operand (VGPR)", CDNA3 13.3.9 Table 92, page 551) whose value DPP brings from another
    lane: an AGPR source (v_accvgpr_mov_b32) is none, and an instruction whose code writes its
    source (v_swap_b32, which 12.16.1 'The following instructions cannot use DPP', page 517, lists)
    or indexes the register SRC0 names (CDNA4's v_permlane16/32_swap_b32: VGPR[lane][SRC0]) reads
    no such value. (LLVM 22: "dpp variant of this instruction is not supported".)"""
    if "src0" in plan.acc:
        return "its source is an AGPR, the DPP word's SRC0 a VGPR"
    if "S0" in effects(d.pcode or "").writes or 0 in register_number_sources(d):
        return "its code writes or indexes the register its source names, where DPP supplies a value"
    return None


def _reached(d, sig: ValuSig) -> ValuSig:
    """`sig` with each operand as many registers as the code's bit ranges of it reach (isa.effects'
    uses), where that is more than its type says: v_pk_mov_b32's u32 operands, D0.u32[63 : 32] and
    S0.u32[OPSEL[0].i32 * 32 + 31 : ...], are register pairs."""
    reach: dict[str, int] = {}
    for key, _, hi, _ in effects(d.pcode).uses:
        if hi is not None:
            reach[key] = max(reach.get(key, 0), hi // 32 + 1)

    def wide(o: Operand, key: str) -> Operand:
        return replace(o, dwords=reach[key]) if o.dwords and reach.get(key, 0) > o.dwords else o
    dsts = tuple(wide(o, "D0") if o.name == "vdst" else o for o in sig.dsts)
    srcs = tuple(wide(o, f"S{i}") for i, o in enumerate(sig.srcs))
    if (dsts, srcs) == (sig.dsts, sig.srcs):
        return sig
    return ValuSig(dsts, srcs, sig.vcc_out, sig.vcc_in, sig.k_pos, sig.is_cmp, sig.is_cmpx, sig.reads_dst,
                   sig.opsel_flags)


def gfx9_takes_opsel(d) -> bool:
    """Whether the gfx9 dialect takes op_sel on VOP3 instruction `d`: an instruction of the VOP3
    encoding alone (not a promoted VOP1/VOP2/VOPC one) some of whose operands OPSEL picks a half of
    (signature.opsel_on_whole_vgprs: isa.facts.modifier_use's opsel, with LLVM's errata) or whose code
    reads OPSEL itself (isa.effects' opsel_ranges); none where modifier_use's opsel is None (LLVM's
    syntax has no op_sel for it: v_mad_legacy_f16, whose code writes the half OPSEL[3] names); taken
    where it is OPSEL_IGNORED (v_pk_fmac_f16_e64: the assembler encodes none of it, the decoder
    prints none of the bits)."""
    opsel = modifier_use(d).opsel
    if opsel is None:
        return False
    if opsel == OPSEL_IGNORED:
        return True
    return opsel_on_whole_vgprs(d) or d.promoted_from is None and bool(effects(d.pcode).opsel_ranges)


def _gfx9_constant_operand(d, i: int, op: Operand) -> Operand:
    """Source i as a number on it is typed in the gfx9 dialect: signature.constant_operand, except
    that syntax.T16_SOURCES (a class mask, a shift amount: 16-bit in LLVM's true16 syntax only)
    are the 32-bit integers the pseudocode reads. (The dialect's e32 encoding reads a packed
    constant as VOP3P does, its low half inline: v_pk_fmac_f16_e32's 1.0 is inline, no splat.)"""
    if i in syntax.T16_SOURCES.get(d.name, ()):
        return Operand(op.name, 1, False, "u", False, 32)
    return constant_operand(d, i, op)


_TYPE_BYTES = {"f64": 8, "f32": 4, "xf32": 4, "i32": 4, "f16": 2, "bf16": 2, "i8": 1}


def mfma_shape(spec: Spec, d) -> tuple[int, int, int, bool, str]:
    """(D/C registers, A registers, B registers, sparse, result type) of a matrix instruction,
    from the shape table (tables['mfma']): D and C hold M*N*blocks results over the wave's 64
    lanes, A M*K*blocks inputs (half for the 2:4-sparse SMFMAC, whose C is the index VGPR),
    B N*K*blocks."""
    _, m, n, k, blocks, sparse, out_t, in_t, _ = next(r for r in spec.tables["mfma"] if r[0] == d.name)
    out_b, in_b = _TYPE_BYTES.get(out_t, 4), _TYPE_BYTES.get(in_t, 1)
    return (m * n * blocks * out_b // 256, m * k * blocks * in_b // 256 // (2 if sparse else 1),
            n * k * blocks * in_b // 256, bool(sparse), out_t)


def mai_fields(spec: Spec, inst) -> dict[str, int]:
    """A decoded VOP3P instruction's bits read in the VOP3P-MAI layout (CBSZ, ABID, ACC_CD, ACC, BLGP)."""
    raw = sum(v << lo for (n, hi, lo), v in ((fl, inst.fields.get(fl[0], 0)) for fl in inst.fmt.fields)
              if n != "ENCODING") | inst.fmt.encoding[0]
    return {n: (raw >> lo) & ((1 << (hi - lo + 1)) - 1) for n, hi, lo in spec.formats["VOP3P-MAI"].fields}

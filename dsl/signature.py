"""Which operands an instruction takes, in LLVM's text order, and what each holds.

Derived from the ISA data: the format's fields, the pseudocode's typed accessors
(S0.f16, D0.u64, VCC.u64[laneId] = ...), where the code types none the generator's facts
(isa/generated operand_types: a compare's family, a VOPD half's twin) and isa.effects
(mixed sources, pieces, slices), and for memory instructions isa.memory_access. Nothing
here lists an instruction individually except syntax.py's few LLVM spellings."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from isa import InstrDef
from isa.facts import (agpr_operands, cache_control, lane_value_result, loads_scales,  # noqa: F401 (re-exported:
                       loads_to_lds, modifier_use, opsel_flags, result_without_code,  # cache_control, loads_scales)
                       scalar_result)
from isa.control import control
from isa.effects import effects
from isa.errata import SWMMAC_INDEX_SETS
from isa.spec import family_of
from isa.memory_registers import image_address_words, image_data_dwords, image_dims, ray_address_groups  # noqa: F401 (re-exported)
from isa.memory_access import image_address, lane_address, lds_operands, memory_access, typed_buffer, value_dwords
from isa.records import dataclass

from . import syntax
from .operand_records import (Operand, ValuSig, raw_source_field, scalar_bits, source_is_immediate,  # noqa: F401 (re-exported)
                              type_info, vopd_base)
from .operands import OperandError
from .packed_negation import packed_negation


def _operand(name: str, t: str | None, *, sgpr=False, mask=False) -> Operand:
    bits, kind, packed = type_info(t)
    if mask:
        return Operand(name, 0, False, "b", True, 64)
    bits = max(bits, 16) if bits < 32 else bits
    dwords = max(1, bits // 32)
    return Operand(name, dwords, bits == 16 and not packed, kind, sgpr, bits if bits >= 16 else 32,
                   packed and t is not None and t.endswith("16"), bf16=t is not None and t.endswith("bf16"))


# a bit range of the result assigned: D0[31 : 16] = ..., tmp[15 : 0].f16 = ... (then D0 = tmp),
# VGPR[laneId][VDST.u32][15 : 0].b16 = ... (the rest preserved)


def _low_half_only(pcode: str, key: str, result_bits: int) -> bool:
    """The pseudocode touches only bits [15:0] of an operand (or, with a 16-bit result, a 4-bit
    shift amount): a 16-bit operand stored in a 32-bit accessor, e.g. D0.i[15 : 0] = ..."""
    uses = [u for u in effects(pcode).uses if u[0] == key]
    if not uses:
        return False
    short = {15, 3} if result_bits == 16 else {15}
    return all(hi in short and lo == 0 for _, _, hi, lo in uses)


def _packed_result(pcode: str) -> bool:
    """The result holds several values side by side (v_cvt_pk_*, v_pk_*): assembled from two or
    more bit ranges one after the other (not alternatives of an if), or one range filled with a
    concatenation { hi, lo }. One value written to a byte or half that OPSEL chooses
    (v_cvt_sr_fp8_f32) is a partial write, not a packed result."""
    fx = effects(pcode)
    return fx.result_pieces >= 2 or fx.result_concat


def _sliced_bits(pcode: str, key: str) -> int:
    """Bits an operand spans when the pseudocode only slices it (v_mqsad_u32_u8:
    D0[127 : 96] = ..., S0[55 : 24]): one past the highest bit touched, else 0."""
    uses = [u for u in effects(pcode).uses if u[0] == key]
    if any(typed for _, typed, _, _ in uses):
        return 0
    his = [hi for _, _, hi, _ in uses if hi is not None]
    return max(his) + 1 if his else 0


@lru_cache(maxsize=None)
def valu_signature(d: InstrDef) -> ValuSig:
    """Operands of a VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P/VINTERP/VOPD instruction."""
    types = dict(d.operand_types)
    pcode = d.pcode or ""
    origin = d.promoted_from or d.format
    is_cmp = origin == "VOPC"
    is_cmpx = is_cmp and "EXEC" in effects(pcode).writes      # v_cmpx: EXEC.u64[laneId] = ...
    types.setdefault("S0", types.get("SRC0"))
    fx = effects(pcode)
    for i in (1, 2):        # a VGPR the pseudocode indexes by number (VGPR[lane][SRC1.u32]: v_permlane16_var)
        if f"SRC{i}" in fx.vgpr_fields:
            types.setdefault(f"S{i}", types.get(f"SRC{i}"))
    writes_d = "D0" in fx.names or "D0" in types
    dsts: list[Operand] = []
    if is_cmp:
        if not is_cmpx:
            dsts.append(_operand("sdst", None, mask=True))
    elif writes_d or not pcode and d.name not in syntax.NO_OPERANDS:
        # an SGPR result: D0 written whole from another lane's VGPR (v_readlane), or the description
        # stores the result into a scalar register (RDNA4's v_s_exp_f32)
        sgpr = lane_value_result(d) or scalar_result(d)
        dsts.append(_operand("vdst", types.get("D0"), sgpr=sgpr))
    vcc_out = "VCC" in fx.writes and not is_cmp          # a carry out: VCC.u64[laneId] = ...
    vcc_in = "VCC" in fx.reads and not is_cmp            # a carry in or a select mask
    n_src = 0
    for i in range(3):
        if f"S{i}" in types and types[f"S{i}"] is not None or f"S{i}" in fx.names | fx.reads:
            n_src = i + 1           # (v_fma_mix*'s S[i], the sources as an array, reads S0, S1 and S2)
    if origin == "VOPC":
        n_src = max(n_src, 2)
    if origin == "VOP2":
        n_src = min(n_src, 2)   # VOP2 has two source fields (a third input is D0 or VCC)
    if d.name in syntax.NO_OPERANDS:
        dsts, n_src = [], 0
    elif n_src == 0 and writes_d and d.format in ("VOP1", "VOP3") and d.name not in syntax.NO_SOURCES:
        n_src = 1   # v_movrels / v_swaprel style: SRC0 is a register number, still an operand
    if fx.mixed_sources:        # in[i] = S[i].f, or an f16 half of it as OPSEL_HI says: float sources
        for i in range(n_src):
            types[f"S{i}"] = types.get(f"S{i}") or "f32"
    d0_in_pieces = _packed_result(pcode)
    for key in ["D0"] + [f"S{i}" for i in range(n_src)]:
        packed_result = key == "D0" and d0_in_pieces
        wide = _sliced_bits(pcode, key)
        if wide > 32 or wide and types.get(key) is None:   # read/written in pieces only
            pieces = {t for name, _, _, t in fx.pieces if name == key}
            float_pieces = key != "D0" and d.format != "VOP3P" and pieces and pieces <= {"f16", "f32", "f64"}
            # sources read as float pieces only (S0[31 : 0].f32, S0[63 : 32].f32) take float modifiers
            types[key] = f"{'f' if float_pieces else 'b'}{-(-wide // 32) * 32}"
        elif types.get(key) and _low_half_only(pcode, key, type_info(types.get("D0"))[0]) and d.format != "VOP3P" and not packed_result:
            types[key] = types[key].replace("pk_", "")[:-2] + "16" if types[key][-2:] == "32" else \
                types[key].replace("pk_", "")
    if dsts and dsts[0].name == "vdst":
        dsts[0] = _operand("vdst", types.get("D0"), sgpr=dsts[0].sgpr)
    srcs = [_operand(f"src{i}", types.get(f"S{i}")) for i in range(n_src)]
    for i, o in enumerate(srcs):
        if _register_source(d, i, pcode, types) or o.bits > 64:
            srcs[i] = replace(o, registers_only=True)
        elif f"S{i}" in fx.lane_choosers:      # v_readlane's lane select: lane = S1.u32[4 : 0]
            srcs[i] = replace(o, no_literal=True)
    for i in syntax.T16_SOURCES.get(d.name, ()):
        if i < len(srcs):   # typed as the instruction's data, its first source: V_CMP_CLASS_F16's mask is f16 (S0.f16)
            srcs[i] = Operand(srcs[i].name, 1, True, srcs[0].ftype, False, 16)
    if d.format not in ("VOPC", "VOP1", "VOP2") and integer_sources_take_fp_mods(d):
        srcs = [Operand(s.name, s.dwords, s.t16, "f", s.sgpr, s.bits, s.packed, s.ftype != "f") for s in srcs]
    k_pos = fx.constant_at      # fma(S0, SIMM32, S1): v_fmamk; tmp = S0 * SIMM16 + S1 (CDNA's madmk)
    if vcc_in and d.format in ("VOP3", "VOP3SD", "VINTERP") and not any(s.name == "src2" for s in srcs):
        srcs.append(replace(_operand("src2", None, mask=True), registers_only=True))
    reads_dst = "D0" in fx.value_reads     # computes with D0's old value (isa.effects): v_fmac, v_dot2c, v_swap
    return ValuSig(tuple(dsts), tuple(srcs), vcc_out, vcc_in, k_pos, is_cmp, is_cmpx, reads_dst, opsel_flags(d))


def constant_operand(d: InstrDef, i: int, op: Operand) -> Operand:
    """Source i of `d` (Operand `op`) as a number written on it is typed (literals.literal_kind),
    where that differs from the value the pseudocode reads:
    - v_fma_mix* / v_mad_mix* (isa effects' mixed_sources): each source is an f32 or an f16 half
      as OPSEL_HI says, yet a constant is always an f16 (0x3c00 is 1.0, 1.5 the literal 0x3e00);
    - a source read only as 16-bit halves of its register (`VGPR[laneId][SRC0.u32][31 : 16]`,
      isa effects' own_slices: v_cvt_pk_f32_fp8 reads the half OPSEL picks, two 8-bit floats)
      is a 16-bit float operand: 0x3c00 is 1.0, -17 the zero-extended literal 0xffef, a wider
      integer is refused;
    - a 64-bit source read as two f32 halves (`S0[63 : 32].f32`, v_pk_add_f32) takes a 32-bit
      constant, as a 32-bit float source does (0x3f800000 is 1.0), for both halves;
    - syntax.F16_CONSTANTS: integer sources that take constants as f16 ones."""
    fx = effects(d.pcode)
    if fx.mixed_sources:
        return replace(op, t16=True, bits=16)
    pieces = {(hi - lo + 1, t) for name, hi, lo, t in fx.pieces if name == f"S{i}"}
    if op.dwords == 2 and pieces == {(32, "f32")}:
        return replace(op, dwords=1, bits=32, ftype="f")
    slices = {hi - lo + 1 for name, hi, lo in fx.own_slices if name == f"S{i}"}
    if slices == {16}:
        return replace(op, dwords=1, t16=True, bits=16, ftype="f", packed=False, int_value=False)
    if i in syntax.F16_CONSTANTS.get(d.name, ()):
        return replace(op, ftype="f")
    return op


def _register_source(d: InstrDef, i: int, pcode: str, types: dict) -> bool:
    """Source i names a register rather than a value: the pseudocode reads the raw field
    (SRC0: v_movrels, v_readlane's VGPR[lane][SRC0.u], v_permlane64) or writes the source
    (v_swap_b32: S0.b = tmp). LLVM takes no constant there."""
    original = dict(d.operand_types)
    fx = effects(pcode)
    if i == 0 and "SRC0" in original and "S0" not in original and "S0" not in {u[0] for u in fx.uses}:
        # a byte of this lane's source (VGPR[laneId][SRC0.u32][hi : lo], CDNA4's scaled conversions)
        # is a value like S0; a register number, another lane's register or an index is not
        return "SRC0" in fx.field_numbers
    if i and f"S{i}" not in original and f"SRC{i}" in fx.vgpr_fields:
        return True             # another lane's register by number (v_permlane16_var's SRC1)
    return f"S{i}" in fx.writes


# ---------------------------------------------------------------- memory instructions without operands

# cache_control (imported above): a memory-format instruction that only invalidates or writes back
# a cache (s_dcache_inv, buffer_gl0_inv, RDNA4's global_inv / global_wb): no operands. The manual
# gives these no pseudocode and describes them so (isa.facts.cache_control).


# ---------------------------------------------------------------- operand layouts (text order)
# Each entry: (operand name, field, registers). Shared by the printer and the encoder.

def sopk_immediate_unsigned(d: InstrDef) -> bool:
    """Whether a SOPK instruction's pseudocode reads its 16-bit immediate as unsigned: the RDNA
    manuals call it SIMM16 (s_cmpk_eq_u32: 32'U(SIMM16.u16)), the CDNA ones a 16-bit source
    (32'U(S1.u16); S0/S1 of 32 bits is SDST). Such an immediate is 0..65535, a signed one
    -32768..65535. The hwreg of s_getreg/s_setreg is SIMM16.u16 in both."""
    if d.format != "SOPK":
        return False
    types = dict(effects(d.pcode or "").field_types)
    sixteen = [t for k, t in d.operand_types.items() if k in ("S0", "S1") and t[1:] == "16"]
    return (types.get("SIMM16") or (sixteen[0] if sixteen else "")).startswith("u")


def agpr_fields(d: InstrDef) -> tuple[str, ...]:
    """The VALU operands ('vdst', 'src0') in the AGPR file, a0..a255 in the syntax: those the
    description places in the accumulator registers (isa.facts.agpr_operands: v_accvgpr_*)."""
    return tuple({"D0": "vdst", "S0": "src0"}[k] for k in agpr_operands(d))


def scalar_layout(d: InstrDef) -> list[tuple[str, str, int]]:
    """SOP1 / SOP2 / SOPC operands: which of SDST, SSRC0, SSRC1 appear and their widths."""
    types, pcode, fmt = d.operand_types, d.pcode or "", d.format

    def width(key: str) -> int:
        t = types.get(key)
        if t is None or key == "SRC0":
            # DST / SRC0 accessors hold a register number (s_movreld, s_movrels): the width is the
            # moved register's, SGPR[addr].b64
            moved = effects(pcode).sgpr_types
            t = moved[0] if moved else ""
        return 2 if t.endswith("64") else 1

    out = []
    reply = control(d)
    if reply.message_reply:    # SSRC0 holds the message type itself, the reply lands in SDST
        return [("sdst", "SDST", reply.reply_dwords), ("msg", "SSRC0", 1)]
    # without pseudocode a result exists if the description stores one (RDNA4's S_SLEEP_VAR only
    # reads its input: 'S0[6:0] determines the sleep duration')
    stores = result_without_code(d)
    named = effects(pcode).names
    if fmt != "SOPC" and ("D0" in named or "D0" in types or stores):
        out.append(("sdst", "SDST", width("D0")))
    if fmt == "SOP1":
        if "S0" in named or not pcode:
            out.append(("ssrc0", "SSRC0", width("S0") if "S0" in types else width("SRC0")))
    else:
        out += [("ssrc0", "SSRC0", width("S0")), ("ssrc1", "SSRC1", width("S1"))]
    k_pos = effects(pcode).constant_at
    if k_pos is not None and fmt in ("SOP1", "SOP2", "SOPC"):
        # s_fmaak / s_fmamk: the constant K sits where the pseudocode reads SIMM32 (SOPK's SIMM16
        # is the format's own field, not a K operand)
        out.insert(1 + k_pos, ("k", "", 1))
    return out


def ds_layout(d: InstrDef) -> list[tuple[str, str, int]]:
    """DS operands (isa.memory_access.lds_operands: a VDST, an ADDR, DATA0 / DATA1 from the names
    the code uses, the manual's RTN rule for atomics, isa.errata.UNDESCRIBED_LDS where the code
    cannot say), each as many registers as the code gives (a bit range: DATA1[255 : 224] is 8,
    ds_condxchg32's DATA[63 : 32] 2) or else one data value's (isa.memory_access.value_dwords),
    the two-address forms' result twice that."""
    n = value_dwords(d)
    ops = lds_operands(d)
    out = []
    if ops.result != 0:
        out.append(("vdst", "VDST", ops.result or (n * 2 if memory_access(d).two_addresses else n)))
    out += [("data0", "ADDR", regs) for field, regs in ops.data if field == "ADDR"]
    if ops.address:
        out.append(("addr", "ADDR", 1))
    out += [(field.lower(), field, regs or n) for field, regs in ops.data if field != "ADDR"]
    return out


def flat_layout(d: InstrDef, glc: bool) -> list[tuple[str, str, int]]:
    """FLAT / GLOBAL / SCRATCH operands (the segment is the encoding: flat_segment); atomics return data only with glc (RDNA4: TH's return bit).
    CDNA's LDS-direct loads (the manual: "store the result into a data share") write no VGPR."""
    n = value_dwords(d)
    access = memory_access(d)
    direction = access.direction
    out = []
    to_lds = loads_to_lds(d)
    if (direction == "load" and not to_lds) or (direction == "atomic" and glc):
        out.append(("vdst", "VDST", access.result_dwords or n))
    segment = flat_segment(d)
    if segment == "FLAT":
        out.append(("vaddr", "ADDR", 2))
    elif not lane_address(d):               # (the ADDTID forms address by lane ID, no VGPR)
        out.append(("vaddr", "ADDR", 1))
    if direction in ("store", "atomic"):     # cmpswap sends value and compare: DATA[63 : 32]
        out.append(("vdata", "DATA", access.data_dwords or n))
    if segment == "GLOBAL":
        out.append(("saddr", "SADDR", 2))
    elif segment == "SCRATCH":
        out.append(("saddr", "SADDR", 1))
    return out


def flat_segment(d: InstrDef) -> str | None:
    """FLAT, GLOBAL or SCRATCH: the address space of a FLAT-family instruction, which is its encoding
    (the manuals' formats FLAT/GLOBAL/SCRATCH; RDNA4 names them VFLAT, VGLOBAL, VSCRATCH); None for
    any other instruction."""
    segment = d.format[1:] if d.format in ("VFLAT", "VGLOBAL", "VSCRATCH") else d.format
    return segment if segment in ("FLAT", "GLOBAL", "SCRATCH") else None


@lru_cache(maxsize=None)
def data_registers(d: InstrDef) -> int:
    """Registers of a scalar or buffer memory instruction's data operand: what a store or atomic
    sends (cmpswap: value and compare) or what a load returns, from isa.memory_access's parse of
    the code; one data value's registers (isa.memory_access.value_dwords) where it does not say."""
    access = memory_access(d)
    sizes = access.data_dwords if access.direction in ("store", "atomic") else access.result_dwords
    return sizes or value_dwords(d)


def buffer_tfe(d: InstrDef, mods: dict, data=None) -> bool:
    """Whether a MUBUF/MTBUF/VBUFFER instruction's text asks for TFE (popping `tfe` from `mods`).
    LLVM 22 takes it only where the instruction returns loaded data through an untyped format (a
    load that is no tbuffer_*): it refuses it on a store ("TFE modifier has no meaning for store
    instructions"), an atomic and a typed access. Decided from the generated memory facts
    (isa.memory_access: the direction, typed_buffer). Where LLVM refuses it, as it does: at the
    flag when the data (`data`, its operand) are as wide as without it; a store's data written
    with the status dword match LLVM's form, so True and the handler refuses the flag once the
    operands are checked (store_tfe_refusal); other widths are refused at the data."""
    if not mods.pop("tfe", False):
        return False
    direction = memory_access(d).direction
    typed = typed_buffer(d)     # LLVM's tbuffer_* have no TFE operand at all: "invalid operand"
    plain = getattr(data, "cls", None) == "v" and getattr(data, "count", None) == data_registers(d)   # VGPRs
    # as many as without the status dword
    if direction == "load" and not typed:
        if plain:
            raise OperandError(f"{d.name.lower()}: tfe: {data} holds the data alone; with tfe the status dword "
                               f"follows them ({data_registers(d) + 1} VGPRs)", modifier="tfe")
        return True
    if not plain and direction == "store" and not typed:
        return True
    what = ("a typed (tbuffer) access" if typed else "an atomic" if direction == "atomic"
            else "an instruction that loads no data")
    if not plain:       # no form holds these data: at them (LLVM's operand match)
        raise OperandError(f"{d.name.lower()}: vdata: {data}: tfe is taken by untyped buffer loads only, not by "
                           f"{what}; without it the data are {data_registers(d)} VGPR(s)", data)
    raise store_tfe_refusal(d) if direction == "store" and not typed else OperandError(
        f"{d.name.lower()}: tfe: invalid operand for instruction: tfe is taken by untyped buffer loads only, not by "
        f"{what}", modifier="tfe")


def store_tfe_refusal(d: InstrDef) -> OperandError | None:
    """The refusal of tfe on an untyped buffer store (LLVM 22 checks it after everything else)."""
    if memory_access(d).direction != "store" or typed_buffer(d):
        return None
    return OperandError(f"{d.name.lower()}: tfe: TFE modifier has no meaning for store instructions", modifier="tfe")


def buffer_data_dwords(d: InstrDef, fields: dict) -> int:
    """Dwords of a MUBUF/MTBUF/VBUFFER instruction's VDATA: its data registers (a compare-and-swap's
    compare value beside the data), one more with TFE (status dword)."""
    n = data_registers(d)
    return n + 1 if fields.get("TFE") else n


def image_widths(d: InstrDef, f: dict, nsa_last: int | None,
                 nsa_fields: int = 5) -> tuple[int, int, bool]:
    """(data VGPRs, address VGPRs, whether the addresses are written as single registers) of an
    image instruction's fields, as LLVM writes them. Where its disassembler has no instruction
    form for the widths an encoding asks for, LLVM gives those of the first form in its tables:
    one data VGPR (two for gathers and cmpswap) and the shortest address, or with NSA the longest
    one (the cases below are those seen in LLVM 22's corpora). A gather is an opcode of the manual's
    Gather address group (isa.memory_access.image_address(d).gather; not image_msaa_load), an
    atomic reads and writes memory (memory_access's direction) and sends the data dwords its
    pseudocode names (cmpswap: DATA[63 : 32], two)."""
    coords, gradients = image_dims(d)[f["DIM"]]
    data = image_data_dwords(d, f["DMASK"], bool(f.get("D16")), f.get("TFE", 0))
    words = image_address_words(d, coords, gradients, bool(f.get("A16")))
    dims, forms = _image_address_forms(d)
    gather = image_address(d).gather
    access = memory_access(d, True)
    atomic = access.direction == "atomic"
    natural = (access.data_dwords or 1) if atomic else 1   # an atomic's data: 32-bit, or 64-bit plus TFE
    nsa = nsa_last is not None
    if nsa:   # NSA forms hold two to five address fields, the last one a range if need be
        no_address_form = words <= (2 if nsa_fields == 5 and "VADDR0" not in f else 0) or words > max(dims)
        past_v255 = nsa_last + words - (nsa_fields - 1) > 256
    else:
        no_address_form = words not in forms
        past_v255 = f["VADDR"] + words > 256
    no_data_form = (gather and f.get("D16") and f.get("TFE")
                    or atomic and not natural <= data <= 2 * natural + 1)
    if no_address_form or no_data_form or past_v255 or f["VDATA"] + data > 256:
        return (2 if gather else natural), (min(max(dims), nsa_fields) if nsa else min(forms)), True
    return data, words, False


@lru_cache(maxsize=None)
def _image_address_forms(d: InstrDef) -> tuple[frozenset[int], frozenset[int]]:
    """Address widths of the dims an opcode takes, with and without A16: no MSAA dim where the
    rows of its address table group list no MSAA surface type (sample, gather, get_lod and the
    mip forms: isa.memory_access.image_address(d).msaa); and those LLVM has a sequential-address
    form for: these plus the largest rounded up to a power of two (its register class)."""
    no_msaa = image_address(d).msaa == "none"
    dims = frozenset(image_address_words(d, c, g, a16) for name, (c, g) in zip(syntax.MIMG_DIM_NAMES, image_dims(d))
                     if not (no_msaa and "MSAA" in name) for a16 in (False, True))
    return dims, dims | {1 << (max(dims) - 1).bit_length()}


image_address_forms = _image_address_forms     # (the assembler's name for it: dsl/encode_image.py)


@lru_cache(maxsize=None)
def export_targets(spec) -> dict[int, str]:
    """An export's TARGET codes -> LLVM's names: the manual's destinations (generated:
    spec.tables["export_targets"], '0..7 MRT', '8 Z', '12-16 Position', ...) by syntax.EXPORT_TARGETS,
    numbered within a range (mrt0..mrt7, pos0..pos4)."""
    out = {}
    for lo, hi, name in spec.tables.get("export_targets", ()):
        target = syntax.EXPORT_TARGETS.get(name)
        if target:
            out.update({c: target if lo == hi else f"{target}{c - lo}" for c in range(lo, hi + 1)})
    return out


def matrix_regs(d: InstrDef, wave: int, family: str) -> dict[str, int]:
    """VGPRs of each shaped operand of a matrix instruction (D0, S0, S1, S2; SWMMAC's S2 is its
    index, an ordinary source), syntax.WMMA_REPLICATED says how they are laid out; the element
    width of A and B is the pseudocode's (S0.iu4(16x16)). Empty for an instruction whose
    pseudocode has no (MxN) operands. Shared by the decoder's builders and the encoder."""
    shapes = effects(d.pcode).shapes
    if not shapes:      # not a matrix instruction: no (MxN) operands
        return {}
    if family in syntax.WMMA_REPLICATED:   # each lane holds 16 A (and B) elements
        in_bits = next((bits for key, _, bits, _, _ in shapes if key == "S0"), 16)   # S0.iu4(16x16)
        return {"S0": 16 * in_bits // 32, "S1": 16 * in_bits // 32, "S2": 256 // wave, "D0": 256 // wave}
    return {key: max(1, rows * cols * bits // (32 * wave)) for key, _, bits, rows, cols in shapes}


def index_keys(d: InstrDef, wave: int) -> int:
    """How many sparsity indices of SWMMAC instruction `d` its index VGPR holds, index_key:0.. one
    fewer: a row of the sparse A keeps half of its K elements (B is Kx16, the pseudocode's shape),
    each with a 2-bit index, K bits per row; its 16 rows spread over the wave's lanes, 16*K/wave
    bits a lane, so a 32-bit VGPR holds 2*wave/K (LLVM 22's assembler, gfx1201: v_swmmac_f32_16x16x32_f16
    index_key:1 the last in wave32, :3 in wave64; v_swmmac_i32_16x16x64_iu4 none in wave32), as the
    manual's 7.12.3 says, but where isa.errata.SWMMAC_INDEX_SETS says LLVM 22 allows fewer."""
    k = next((rows for key, _, _, rows, _ in effects(d.pcode).shapes if key == "S1"), 0)
    sets = max(1, 2 * wave // k) if k else 1
    entry = SWMMAC_INDEX_SETS.get(d.name)
    return entry[1].get(wave, sets) if entry and family_of(d) in entry[0] else sets


def integer_sources_take_fp_mods(d: InstrDef) -> bool:
    """Sources the manual types as integers take the float modifiers neg/abs: one of
    isa.facts.modifier_use's neg_abs (sources typed as floats, and LLVM's additions by the
    modifier_use errata: v_cndmask_b32's values, RDNA's f16 class mask) is not typed as a float."""
    return any(type_info(d.operand_types.get(key))[1] != "f" for key in modifier_use(d).neg_abs)


def opsel_on_whole_vgprs(d: InstrDef) -> bool:
    """LLVM's syntax takes op_sel on `d`'s 16-bit operands written as whole VGPRs (gfx1201 always,
    gfx1100 `v_add_nc_u16 v1, v2, v3 op_sel:[1,0,0]`, the gfx9 dialect): an instruction of the VOP3
    encoding alone (not one promoted from VOP1/VOP2/VOPC: `v_add_f16_e64 ... op_sel` is refused)
    some of whose operands OPSEL picks a half of, isa.facts.modifier_use's opsel (the manual's
    16-bit operands, with the modifier_use errata where LLVM 22 takes or refuses it otherwise)."""
    opsel = modifier_use(d).opsel
    return d.format in _VOP3 and d.promoted_from is None and isinstance(opsel, tuple) and bool(opsel)


_VOP3 = frozenset({"VOP3", "VOP3SD", "VOP3A", "VOP3B"})    # roles.valu_e64 but VOP3P (both dialects)


def takes_opsel(d: InstrDef, sig: ValuSig, family: str) -> bool:
    """Whether the 64-bit (VOP3/VOP3P) text of `d` in `family` takes op_sel (VOP3P: op_sel_hi too),
    read by the encoder and by the VOP3P decoder: over 16-bit halves (packed or mixed sources:
    v_pk_*, v_dot2_*, v_fma_mix*), flags OPSEL is redefined as (v_permlane16), 16-bit operands
    (whole VGPRs: opsel_on_whole_vgprs; the true16 syntax's .l/.h halves, syntax.TRUE16_FAMILIES,
    restated) or selected ranges; none where isa.facts.modifier_use's opsel is None (LLVM's syntax
    has no op_sel for it: v_cndmask_b16); a matrix instruction only with a 16-bit result where each
    lane holds whole rows (RDNA3's replicated layout: OPSEL picks its half). LLVM 22 takes neither on
    the rest (the integer dot4/dot8, a 32-bit WMMA result) and prints no op_sel_hi for their OPSEL_HI bits."""
    fx = effects(d.pcode)
    if modifier_use(d).opsel is None:
        return False
    halves = opsel_on_whole_vgprs(d) or family in syntax.TRUE16_FAMILIES
    opsel = (d.format == "VOP3P" and (fx.matrix or fx.mixed_sources or any(o.packed for o in sig.srcs))
             or sig.opsel_flags > 0 or halves and any(o.t16 for o in sig.srcs + sig.dsts) or bool(fx.opsel_ranges))
    if fx.matrix:
        return opsel and bool(sig.dsts) and sig.dsts[0].bits == 16 and family in syntax.WMMA_REPLICATED
    return opsel


def neg_list_error(d: InstrDef, key: str, bits: list, nsrc: int) -> str | None:
    """Why `key` (neg_lo or neg_hi) as `bits` cannot be written on VOP3P instruction `d` with
    `nsrc` sources (dsl.packed_negation), or None. Entries past the sources are
    ignored (LLVM); an instruction no source of which takes it takes no list at all."""
    return packed_negation(d).list_error(key, sum(1 << i for i, b in enumerate(bits[:nsrc]) if b))


def neg_bits_error(d: InstrDef, neg: int, neg_hi: int, nsrc: int) -> str | None:
    """Why decoded NEG / NEG_HI fields cannot be written in LLVM's syntax for VOP3P instruction
    `d` (neg_list_error of their bits), or None. LLVM 22's disassembler calls such bytes an
    invalid instruction encoding (v_dot4_f32_fp8_bf8 with NEG[0], v_accvgpr_read_b32 with any)."""
    mask = (1 << nsrc) - 1
    for key, bits in (("neg_lo", neg & mask), ("neg_hi", neg_hi & mask)):
        why = neg_list_error(d, key, [bits >> i & 1 for i in range(nsrc)], nsrc) if bits else None
        if why:
            return why
    return None

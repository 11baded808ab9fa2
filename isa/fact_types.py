"""The records of the facts the generator works out per instruction (isa/gen/instruction_facts.py)
and isa.effects, isa.memory_access and isa.control hand out: what they mean is told there."""
from __future__ import annotations

from .records import dataclass


@dataclass(frozen=True)
class Effects:
    reads: frozenset       # operands whose incoming value is read
    full: frozenset        # written whole on every path
    partial: frozenset     # written on some path or in part (their old value is read too)
    cross_lane: bool       # reads a VGPR in lanes chosen by the code (VGPR[lane][...])
    indexed: bool = False  # reads or writes a register chosen by a value (VGPR[..][addr], SGPR[addr]):
    #                        registers of that file other than the named operands (s_movreld, v_movrels)
    copy: bool = False     # the whole pseudocode is `D0.T = S0.T` (one type): a register copy
    jump: bool = False     # control never reaches the next instruction: PC is assigned by a statement
    #                        outside any if/loop, nothing is conditional, and no return address (D0)
    #                        is written (s_branch, s_setpc; not s_cbranch_*, s_swappc, s_call)
    matrix: bool = False   # its operands are whole matrices spread over the wave's lanes (the (MxN)
    #                        shapes of WMMA's quoted statement): the matrix core's work
    names: frozenset = frozenset()  # every operand the pseudocode names, as a value or as a register
    #                        number (`addr = DST.u`: v_movreld's destination field is D0 here)
    uses: frozenset = frozenset()   # each mention of an operand as written (D0, VDST, SRC0 apart):
    #                        (name, typed, hi, lo): `S0.u32[15 : 0]` is ('S0', True, 15, 0), `D0[127 : 96]`
    #                        ('D0', False, 127, 96), a mention with no bit range has hi = lo = None; a range
    #                        chosen by bits of a field its widest: `S0.u32[OPSEL[0].i32 * 32 + 31 : OPSEL[0].i32
    #                        * 32]` ('S0', True, 63, 0) (v_pk_mov_b32 reads a register pair)
    lane_bits: frozenset = frozenset()  # operands assigned one lane's bit of a mask (`D0.u64[laneId] = ...`)
    status_reads: frozenset = frozenset()  # registers read through a status bit derived from them:
    #                        EXECZ (EXEC is zero) reads EXEC, VCCZ reads VCC (s_cbranch_execz, _vccz)
    conditional: bool = False  # some statement runs only if a condition holds (an `if` in the code)
    hwreg: bool = False    # reads or writes a hardware register by its id (hwRegId: s_getreg, s_setreg)
    pieces: frozenset = frozenset()  # typed bit ranges of an operand, as written: `S0[63 : 32].f32` is
    #                        ('S0', 63, 32, 'f32') (a wide source read as float halves: v_pk_fma_f32)
    lane_choosers: frozenset = frozenset()  # operands that pick the lane read (`lane = S1.u32[4 : 0]`:
    #                        v_readlane's lane select)
    result_pieces: int = 0  # statements outside any if/loop that write a bit range of the result
    #                        (D0, tmp or VGPR[..][VDST]) untyped or as an 8/16-bit value: a packed result
    #                        (v_pk_add_f16, v_cvt_pk_*); one byte chosen by an if (v_cvt_sr_fp8) is not
    result_concat: bool = False  # a bit range of the result is assigned a concatenation { hi, lo }
    result_ranges: int = 0  # statements outside any if/loop that write a constant bit range of the
    #                        result (D0 or tmp) of any type, `tmp[63 : 32].f32 = ...`, `D0.u32[63 :
    #                        32] = tmp1.u32`: two or more is a result made of elements side by side
    #                        (v_pk_*: v_pk_fma_f32, v_pk_mov_b32, v_pk_add_f16)
    vgpr_fields: frozenset = frozenset()  # operand fields used as a VGPR number: `VGPR[lane][SRC1.u32]`
    #                        (v_permlane16_var's SRC1, v_readlane's SRC0), names as written
    field_numbers: frozenset = frozenset()  # operand fields (SRC0..2, VDST) named as register numbers: every
    #                        mention except `VGPR[laneId][SRC0.u32][hi : lo]`, a bit range of this lane's
    #                        own source, which is a value like S0 (CDNA4's scaled conversions)
    own_slices: frozenset = frozenset()  # bit ranges of this lane's own source register read by number,
    #                        (S name, hi, lo): `VGPR[laneId][SRC0.u32][31 : 16]` ('S0', 31, 16) (v_cvt_pk_f32_fp8
    #                        reads the half OPSEL picks; CDNA4's scaled conversions a byte)
    sgpr_types: tuple = ()  # types of `SGPR[addr].T` accesses in order (s_movrels_b64: ('b64', ...)):
    #                        the width of the register an SGPR number field moves
    shapes: tuple = ()     # each (MxN) operand in order: (name, element type, element bits, M, N);
    #                        `S0.iu4(16x16)` is ('S0', 'iu4', 4, 16, 16) (WMMA's quoted statement: matrix-core
    #                        register counts, the element types a WMMA semantic computes in)
    full_product: bool = False  # multiplies S0 by S1, both read as whole 32-bit integers (`S0.u32 *
    #                        S1.u32`, `64'U(S0.u) * 64'U(S1.u)`): v_mul_lo/hi_u32, v_mad_u64_u32
    transcendental: bool = False  # calls a function of the transcendental unit: pow(2.0, x), log2, sqrt,
    #                        sin, cos, or divides the constant 1.0 (rcp, rsq)
    constant_at: int | None = None  # where the instruction's inline constant (SIMM16/SIMM32: K of the
    #                        fmaak/madmk kind) sits among the values its statement reads, sources
    #                        and constant in order: `fma(S0.f, SIMM32.f, S1.f)` 1, `S0 * S1 + SIMM32` 2
    value_reads: frozenset = frozenset()  # operands whose incoming value the code computes with: named
    #                        in an expression, a condition or an index, or updated (`D0 += ...`) before
    #                        a full write; unlike `reads`, not the bits a partial write leaves alone.
    #                        D0 here is accumulation into the destination (v_fmac_f32, v_dot2c, v_mac)
    mixed_sources: bool = False  # reads its sources as an array (`S[i]`) whose width OPSEL_HI picks per
    #                        source, an f32 or an f16 half (v_fma_mix*, CDNA's v_mad_mix*)
    products: int = 0      # statements that assign (= or +=) a product to the result or to `tmp`
    #                        (dot products write one per element pair: v_dot8 eight, v_dot4 four)
    literal: bool = False  # reads SIMM32, the 32-bit literal dword that follows the instruction
    #                        (s_setreg_imm32_b32, the K of s_fmaak/v_fmamk): one is always encoded
    opsel_ranges: frozenset = frozenset()  # bit ranges of OPSEL the code reads, (hi, lo): `OPSEL[3 : 2]`
    #                        (3, 2), `OPSEL[0]` (0, 0), `OPSEL.u3` (2, 0); empty: OPSEL is not read
    inst_modifiers: frozenset = frozenset()  # the instruction's own modifier fields the code applies
    #                        as `INST.ABS`, `INST.NEG`, `INST.OMOD` (CDNA4's v_cvt_scalef32_*)
    field_types: frozenset = frozenset()  # raw operand fields read with a type, (field, type):
    #                        `SRC0.i32` ('SRC0', 'i32'): a field used as a number, not the operand it encodes
    pc_sources: frozenset = frozenset()  # operands PC is assigned from (`PC = S0.i64`: s_setpc, s_rfe)
    pc_write: bool = False  # some statement assigns PC (`PC = ...`, `PC += ...`, `{ PC, EXEC } = ...`):
    #                        control may go elsewhere than the next instruction (branches, jumps, calls)
    shift: bool = False    # the code is one statement assigning D0 a shift, its value one source (or
    #                        a mask made from one: v_bfm) shifted by another: `D0.u64 = (S1.u64 <<
    #                        S0[5 : 0].u32)` (v_lshlrev_b64; not CDNA's v_lshl_add_u64, which adds
    #                        to the shifted value)
    state_reads: frozenset = frozenset()  # fields of the wave's MODE and STATUS registers the code reads
    #                        by name, `WAVE_MODE.IEEE` 'MODE.IEEE', `WAVE_STATUS.PRIV` 'STATUS.PRIV' (v_max_f32,
    #                        s_setreg's writeable mask), and 'HW_REGISTERS': a hardware register an ID chooses
    #                        (s_getreg). MODE's float fields an arithmetic instruction applies are not named in
    #                        its code: isa.effects.wave_state adds them from the float_modes fact
    state_writes: frozenset = frozenset()  # likewise assigned: `WAVE_STATUS.PRIV = 1'0U` (s_rfe, s_trap),
    #                        `HW_REGISTERS[hwRegId] = value` (s_setreg: MODE, STATUS or another register)
    half_writes: frozenset = frozenset()  # operands every write of which is a 16-bit value into bits 15:0:
    #                        whole as .f16 .b16 .i16 .u16 .bf16 (`D0.f16 = ...`; in a 32-bit register the code does
    #                        not say what becomes of the other half, the family and encoding do:
    #                        isa.effects.half_result) or the range [15 : 0] (`D0.u[15 : 0] = ...`: the rest kept)

    @property
    def writes(self) -> frozenset:
        return self.full | self.partial


@dataclass(frozen=True)
class WaveState:
    """The fields of the wave's MODE and STATUS registers an instruction reads and writes
    (isa.effects.wave_state): 'MODE.FP_ROUND.F32' (MODE.FP_ROUND[1:0], single precision),
    'MODE.FP_ROUND.F16_F64' ([3:2], double and half precision), 'MODE.FP_DENORM.F32' and
    'MODE.FP_DENORM.F16_F64' likewise, 'MODE.FP_ROUND' / 'MODE.FP_DENORM' (the whole field),
    other fields as the code names them ('MODE.IEEE', 'STATUS.PRIV') and 'HW_REGISTERS' (a
    hardware register an ID in the instruction chooses: s_getreg, s_setreg)."""
    reads: frozenset = frozenset()
    writes: frozenset = frozenset()


@dataclass(frozen=True)
class MemoryAccess:
    direction: str | None    # 'load', 'store', 'atomic' or None (no memory data moved)
    d16: bool                # the result is written in 16-bit halves; the rest keeps its value
    two_addresses: bool = False   # ADDR + OFFSET0 * size and ADDR + OFFSET1 * size (LDS 2addr forms)
    data_dwords: int | None = None    # VGPRs of the data a store or atomic sends (cmpswap: value and
    #                                   compare), from the pseudocode; None where it does not say
    result_dwords: int | None = None  # VGPRs a load or a returning atomic writes, likewise
    element_bits: int | None = None   # bits of the memory values the code accesses where every typed
    #                                   MEM[...].T agrees (RDNA3's short .b / .u: 32), else None


@dataclass(frozen=True)
class MemoryEffects:
    """What a memory instruction reads and writes (isa.memory_access.memory_effects): the memory
    and the registers its encoding names. Each register operand is (field, registers, when): the
    field as the family's format names it, how many consecutive registers, and the encoding's
    condition for it (None: always; 'saddr' / 'no saddr': SADDR names SGPRs / one of the codes
    that disable it; 'sve': scratch's VGPR address is enabled; 'idxen', 'offen': a buffer's index
    / offset VGPR; 'returns': an atomic that returns the old value (GLC; CDNA's SC0; RDNA4's TH
    return bit); 'register': SOFFSET names a register, not NULL or a constant; 'nsa': MIMG's
    NSA dword is there; 'r128' / 'no r128': a 128-bit / 256-bit image resource). A field named by
    several entries whose conditions hold reads the sum of their registers (a buffer's
    VADDR: the index, then the offset). An image instruction's counts depend on more fields:
    'address' (its address VGPRs, by DIM and A16, spread over the address fields present),
    'data' (by DMASK, D16 and TFE), 'returned' (what an atomic returns), which
    isa.memory_registers.memory_registers works out for one encoding."""
    space: str | None = None   # 'lds', 'flat', 'global', 'scratch', 'buffer', 'scalar' (constant
    #                            / scalar data cache), 'image'; None: not a memory instruction
    memory: str | None = None  # 'read', 'write', 'read-modify-write' (an atomic); None: no memory
    #                            data moves (ds_swizzle, ds_bpermute, cache control, s_memtime)
    reads: tuple = ()          # register operands read: address, data, SADDR / SBASE / SRSRC, SOFFSET
    writes: tuple = ()         # register operands written: the loaded or returned data
    partial: tuple = ()        # fields of `writes` written in part: D16 loads' 16-bit halves
    implicit: tuple = ()       # registers read that no field names: EXEC (the lanes of a vector
    #                            memory instruction), M0 (named by its code or description: LDS
    #                            thread-ID forms, ds_append, parameter and direct LDS loads; the
    #                            LDS address of a load into LDS)
    writes_lds: bool = False   # the loaded data goes to LDS, not to registers (CDNA's *_LOAD_LDS_*:
    #                            "store the result into a data share")


@dataclass(frozen=True)
class FormatConversion:
    """The data a format-converting buffer instruction moves (format_conversion)."""
    components: int     # 1 to 4: X, XY, XYZ, XYZW
    d16: bool           # each component is a 16-bit half of a data register, packed
    high: bool          # the one component sits in the high half of its register (D16_HI)


@dataclass(frozen=True)
class LdsOperands:
    """A DS instruction's operands (lds_operands)."""
    result: int | None       # VDST registers: 0 (none), None (the data type's), or a count
    address: bool            # an ADDR VGPR
    data: tuple = ()         # each data operand: (field, registers or None for the data type's)


# The names a DS instruction's code gives each data field: most code reads DATA / DATA2, a few
# (ds_store_addtid_b32, ds_permute_b32, the BVH stack) DATA0 / DATA1. Read by the generator
# (lds_operands) and by whatever supplies the fields' registers to the code (the emulator).
LDS_DATA_NAMES = {"DATA0": ("DATA", "DATA0"), "DATA1": ("DATA2", "DATA1")}


@dataclass(frozen=True)
class ImageAddress:
    """An image opcode's address components by the image chapter's tables (isa.memory_access.image_address):
    the row group of "Image Opcodes with No Sampler" / "with a Sampler" it belongs to and what the
    "Sample Instruction Suffix Key" adds before the body; a ray query has no group but its layout."""
    group: tuple = ()         # the group's opcode labels: ('LOAD_MIP', ...), ('Sample', '_L'), ('ATOMIC',)
    extra: tuple = ()         # components before the body, one VGPR each: 'lod bias' (_B), 'z-comp' (_C), 'offsets' (_O)
    derivatives: int = 0      # slopes before the body: 0 none, else per VGPR (_D: 1; with _G16: "packed 2 gradients per VGPR")
    coordinates: bool = True  # the body holds the DIM's coordinates (not GET_RESINFO's "Any" row: its mip level only)
    adds: tuple = ()          # body components past the coordinates: ('mipid',), ('lod',), ('clamp',)
    types: tuple = ()         # the surface types the group's rows list ('1D', '2D', ..., 'Any')
    page: int = 0             # the page of the group's first row
    ray: tuple = ()           # a ray query's address operands' VGPRs as its entry lays them out, a tuple per
    #                           layout: A16 0, then A16 1 where it has one ((1, 1, 3, 3, 3), (1, 1, 3, 3))

    # what the group itself says (consumers read these, not the descriptions' wording)
    @property
    def mip_level(self) -> bool:
        """Its body takes a mip level: the group's rows add mipid (LOAD_MIP*, STORE_MIP*, GET_RESINFO)."""
        return "mipid" in self.adds

    @property
    def resource_info(self) -> bool:
        """It returns the resource's description: a group whose body holds no coordinates (GET_RESINFO's "Any" row)."""
        return bool(self.group) and not self.coordinates

    @property
    def gather(self) -> bool:
        """A gather: the Gather group or one of its suffix rows (Gather "_L", "_CL")."""
        return "Gather" in self.group

    @property
    def msaa(self) -> str:
        """The MSAA surface types among the group's rows: 'none' (sample, gather, the mip forms),
        'only' (MSAA_LOAD: "2D MSAA", "2D Array MSAA") or 'also' (LOAD, STORE, ATOMIC; GET_RESINFO's "Any")."""
        kinds = [t == "Any" or "MSAA" in t for t in self.types]
        return "only" if kinds and all(kinds) and "Any" not in self.types else "also" if any(kinds) else "none"


@dataclass(frozen=True)
class Control:
    ends_wave: bool = False
    waits: tuple = ()                   # ((counter, hi, lo), ...): SIMM16[hi:lo] is that counter's count
    wait_all: bool = False              # waits until every counter is zero
    count_sgpr: bool = False            # the count is SIMM16 plus an SGPR (SOPK: S0 + S1)
    all_ones_skips: bool = False        # a field of all ones does not wait (the s_waitcnt table's
    #                                     instruction: "0x3f means do not wait on LGKMCNT")
    nop_bits: tuple | None = None       # (hi, lo): SIMM16 bits counting idle states
    delay: bool = False
    clause: bool = False
    barrier: bool = False
    barrier_in_simm16: bool = False     # SIMM16 names the barrier waited on
    message_reply: bool = False         # s_sendmsg_rtn: the message type is the SSRC0 field's code itself
    #                                     and the reply arrives in SDST (counted like scalar memory)
    reply_dwords: int = 0               # SGPRs of that reply

    @property
    def is_wait(self) -> bool:
        return bool(self.waits) or self.wait_all

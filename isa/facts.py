"""Facts about each instruction that the generator works out once from the manual's pseudocode
and descriptions (isa/gen/facts.py) and commits (isa/generated/<family>/facts.py); every other
package reads them here, by InstrDef, and nothing here parses code or prose.

    import isa
    from isa.facts import byte_select, float_modes
    d = isa.load("rdna4").lookup("v_cvt_f32_fp8")[0]
    byte_select(d)          # (0, 1): OPSEL bit 0 is the high bit of the byte it converts
    float_modes(d)          # FloatModes(flushes=..., rounds=..., why=...)

Which fact says what, and from which words of the manual, is documented where it is worked out:
isa/code_facts.py (shapes of the code), isa/float_modes.py (MODE's float rules) and
isa/gen/descriptions.py (the descriptions' wording). A table holds a fact's value only where it
is not the fact's default (DEFAULTS), by the instruction's position in INSTRUCTIONS; a family's
table is read on the first question about one of its instructions. A copy of an InstrDef (the
same code and description) is answered as the instruction it copies; one without code that no family has gets the defaults (the
decoder's V_ILLEGAL filler); one with code no family has is refused (FactsError): there is nothing
to read its facts from (the rule for every generated fact: isa/fact_tables.py)."""
from __future__ import annotations

from functools import lru_cache

from .fact_tables import FactsError, locate, table  # noqa: F401  (FactsError: what the readers raise)
from .records import dataclass
from .spec import family_of, loaded_specs


@dataclass(frozen=True)
class AtomicUpdate:
    kind: str           # 'add' 'sub' 'min' 'max' 'and' 'or' 'xor' 'swap' 'cmpswap' or 'other'
    type: str           # the memory word's type as the update writes it: 'u', 'u32', 'i64', 'b', 'f32'
    returns_old: bool   # tmp = MEM[A].T before the update, RETURN_DATA = tmp after it
    operands: tuple = ()  # cmpswap: ((src register, its low bit), (cmp register, its low bit)):
    #                       `src = DATA[63 : 0].b64; cmp = DATA[127 : 64].b64` (('DATA', 0), ('DATA', 64))


@dataclass(frozen=True)
class FloatModes:
    flushes: bool      # MODE.FP_DENORM flushes its operands typed as floats of their own width
    rounds: bool       # MODE.FP_ROUND applies to its float results
    why: str           # the pseudocode fact that decided: 'packed', 'matrix', 'classifies',
    #                    'own rounding', 'exact', 'no float result' or 'arithmetic'
    bit_results: tuple = ()  # float types of results the code writes as bits of a wider register,
    #                          `D0 = { 16'0, tmp.f16 }`: ('f16',) (CDNA's legacy f16 forms)
    round_types: tuple = ()  # packed code: the float types of the values its arithmetic rounds (an add,
    #                          sub, mul, fma or narrowing conversion; each rounds by MODE.FP_ROUND's half
    #                          for its type): v_pk_add_f16 ('f16',), v_fma_mixlo_f16 ('f16', 'f32')


@dataclass(frozen=True)
class ModifierUse:
    clamp: str | None   # what CLMP does: 'float' (a float result clamped), 'saturate' (the manual's "Supports
    #                     saturation (... integer domain)": an integer result saturates), 'signals' (a float
    #                     compare: a quiet NaN signals 'invalid' too), 'accepted' (LLVM's syntax takes the bit where
    #                     the manual gives it no effect: a modifier_use erratum), None (nothing; no clamp in the syntax)
    omod: bool          # OMOD scales the result (typed f16, f32 or f64; the syntax takes mul:/div:, by the errata)
    neg_abs: tuple = ()  # sources NEG/ABS apply to: those typed as floats ('S0', 'S1', 'S2')
    opsel: tuple | str | None = ()   # operands OPSEL picks a 16-bit half of: those with 16-bit values ('S0'.., 'D0');
    #                     by the errata, LLVM's: () where its syntax takes no op_sel on whole VGPRs (only
    #                     restating true16 .l/.h), None where it takes none at all (v_cndmask_b16),
    #                     OPSEL_IGNORED where it takes op_sel and encodes none of it (CDNA's v_pk_fmac_f16_e64)
    signed_by_neg: tuple = ()  # matrix inputs NEG says the sign of, not negates: those typed iu8/iu4 ('S0', 'S1':
    #                     `S0.iu8(16x16)`, "IU8/IU4 NEG[0] indicates if the A-matrix is signed", RDNA4 ISA 7.12)


# modifier_use(d).opsel of an instruction whose text takes op_sel that the encoding drops (an erratum)
OPSEL_IGNORED = "ignored"


# every generated fact and its default, as the tables hold values (plain tuples)
DEFAULTS = {
    # shapes of the code alone (isa/code_facts.py)
    "atomic_update": None, "address_adds_offset": False, "offset_pattern": False, "field_loads": None,
    "dword_loads": None, "dword_stores": None, "first_nan_test": None, "call_chain": None,
    "lane_modulus": None, "register_files": (), "unfilled_arrays": (), "instruction_calls": (),
    "register_number_sources": (), "reads_other_lanes": False, "lane_select_sources": (),
    "byte_select": None, "pc_relative_immediate": False, "lane_value_result": False, "sdwa_selects": False,
    # sources the code reads as registers, and LLVM's limits by the source_limits errata (isa/gen/source_limits.py)
    "source_limits": (),
    # the code, or the description where the code does not say (isa/code_facts.py, isa/float_modes.py)
    "accumulates": False, "float_modes": (True, False, "no float result"),
    # the description's wording (isa/gen/descriptions.py)
    "scalar_result": False, "opsel_flags": 0, "cache_control": False, "result_without_code": False,
    "loads_to_lds": False, "source_is_immediate": False, "lookup_table": None, "sets_mode": (),
    "agpr_operands": (), "loads_scales": False,
    # the operand types and the words of the whole entry (isa/gen/modifiers.py)
    "modifier_use": (None, False, (), ()),
}
_RESTORE = {"atomic_update": lambda v: None if v is None else AtomicUpdate(*v), "register_files": frozenset,
            "register_number_sources": frozenset, "lane_select_sources": frozenset,
            "float_modes": lambda v: FloatModes(*v), "modifier_use": lambda v: ModifierUse(*v)}
_DEFAULT_VALUES = {name: _RESTORE.get(name, lambda v: v)(v) for name, v in DEFAULTS.items()}

_values: dict[str, dict] = {}        # family -> {fact: {position: value as returned}}


def _family_values(family: str) -> dict:
    """The family's table, read on the first question about one of its instructions."""
    got = _values.get(family)
    if got is None:
        facts = table(family, "facts").FACTS
        got = _values[family] = {
            name: {i: _RESTORE[name](v) for i, v in facts.get(name, {}).items()} if name in _RESTORE
            else facts.get(name, {}) for name in DEFAULTS}
    return got


def fact(name: str, d):
    """Fact `name` (a key of DEFAULTS) of InstrDef `d`, from its family's generated table."""
    at = locate(d)
    if at is None:
        return _DEFAULT_VALUES[name]
    family, i = at
    return _family_values(family)[name].get(i, _DEFAULT_VALUES[name])


# each named fact is kept per InstrDef once asked (an InstrDef hashes by identity): the decoder and
# the encoder ask some of them for every instruction
_memo = lru_cache(maxsize=None)


# ---------------------------------------------------------------- the facts by name (isa/code_facts.py says how each is read)
@_memo
def atomic_update(d) -> AtomicUpdate | None:
    """An atomic's one memory update: kind, the word's type, whether the old word is returned."""
    return fact("atomic_update", d)


@_memo
def address_adds_offset(d) -> bool:
    """The code adds OFFSET to ADDR itself (RDNA3.5's and CDNA's LDS code)."""
    return fact("address_adds_offset", d)


@_memo
def offset_pattern(d) -> bool:
    """The code joins offset1:offset0 and takes bit ranges of it (ds_swizzle_b32's lane pattern)."""
    return fact("offset_pattern", d)


@_memo
def field_loads(d) -> tuple[str, int] | None:
    """(register, n >= 2): the code loads dword k of one register from ADDR + 4k."""
    return fact("field_loads", d)


@_memo
def dword_loads(d) -> tuple[str, int] | None:
    """field_loads' (register, n) with n >= 1."""
    return fact("dword_loads", d)


@_memo
def dword_stores(d) -> tuple[str, int] | None:
    """(register, n): the code stores dword k of one register to ADDR + 4k."""
    return fact("dword_stores", d)


@_memo
def first_nan_test(d) -> str | None:
    """The source ('S0', 'S1') the code's first NaN test names (v_min/max_f32's order)."""
    return fact("first_nan_test", d)


@_memo
def call_chain(d) -> tuple[str, str, str] | None:
    """(outer, inner, type) of `D0.T = outer(inner(S0.T, S1.T), S2.T)` (v_min3, v_minmax)."""
    return fact("call_chain", d)


@_memo
def lane_modulus(d) -> tuple[int, int] | None:
    """(wave32, wave64) N of a permute's `/ 4 % N`."""
    return fact("lane_modulus", d)


@_memo
def register_files(d) -> frozenset:
    """The register files the code indexes by a value (SGPR, VGPR, HW_REGISTERS)."""
    return fact("register_files", d)


@_memo
def unfilled_arrays(d) -> tuple:
    """Arrays the code declares and never assigns (v_cvt_off_f32_i4's table)."""
    return fact("unfilled_arrays", d)


@_memo
def instruction_calls(d) -> tuple:
    """Other instructions the code calls as functions, as written, sorted."""
    return fact("instruction_calls", d)


@_memo
def register_number_sources(d) -> frozenset:
    """Sources n whose register number the code reads (`SRCn`, not this lane's VGPR[laneId][SRCn])."""
    return fact("register_number_sources", d)


@_memo
def reads_other_lanes(d) -> bool:
    """The code addresses another lane's VGPR, `VGPR[lane][...]` (readlane, permlane, the permutes)."""
    return fact("reads_other_lanes", d)


@_memo
def lane_select_sources(d) -> frozenset:
    """Sources n the code takes a lane number from, `lane = Sn...` (v_readlane's S1)."""
    return fact("lane_select_sources", d)


@_memo
def byte_select(d) -> tuple[int, int] | None:
    """(hi, lo): the OPSEL bits that are the high and low bit of the byte the code picks (RDNA4's fp8/bf8)."""
    return fact("byte_select", d)


@_memo
def pc_relative_immediate(d) -> bool:
    """The code computes `PC + signext(SIMM16 ...)`: the immediate is a branch offset."""
    return fact("pc_relative_immediate", d)


@_memo
def lane_value_result(d) -> bool:
    """The code writes D0 whole from another lane's VGPR: an SGPR result (v_readlane_b32)."""
    return fact("lane_value_result", d)


@_memo
def sdwa_selects(d) -> bool:
    """The code reads SDWA_SRC0_SEL itself (CDNA's fp8/bf8 -> f32): its SDWA form takes no dst_sel,
    dst_unused or source modifiers, and the selected field is bytes the code converts."""
    return fact("sdwa_selects", d)


@_memo
def source_limits(d) -> tuple[tuple[str, str], ...]:
    """(('S0', 'register'), ...): the sources that must be a register ('register': no constant,
    literal or memory aperture; the code reads its number or jumps to it) or a register or an
    inline constant ('inline': no literal), by the code and the source_limits errata (LLVM's)."""
    return fact("source_limits", d)


@_memo
def accumulates(d) -> bool:
    """D0's incoming value is an input: the code computes with it (v_fmac), or without code the
    description says "The initial value in D is used as S2" (RDNA3's v_dual_dot2acc)."""
    return fact("accumulates", d)


@_memo
def float_modes(d) -> FloatModes:
    """Whether MODE.FP_DENORM flushes d's float operands and MODE.FP_ROUND rounds its results."""
    return fact("float_modes", d)


# ---------------------------------------------------------------- from the descriptions (isa/gen/descriptions.py)
@_memo
def scalar_result(d) -> bool:
    """A VALU instruction whose description stores its result into a scalar register (RDNA4's v_s_exp_f32)."""
    return fact("scalar_result", d)


@_memo
def opsel_flags(d) -> int:
    """OPSEL bits the description redefines as flags ("OPSEL[0] is overloaded ...": v_permlane16's FI, BOUND_CTRL)."""
    return fact("opsel_flags", d)


@_memo
def cache_control(d) -> bool:
    """A memory instruction without code that only writes back or invalidates a cache (no operands)."""
    return fact("cache_control", d)


@_memo
def result_without_code(d) -> bool:
    """An instruction without code whose description stores, writes or returns a result."""
    return fact("result_without_code", d)


@_memo
def loads_to_lds(d) -> bool:
    """A memory load whose description stores the result into a data share (CDNA's *_LOAD_LDS_*): no VGPR written."""
    return fact("loads_to_lds", d)


@_memo
def source_is_immediate(d) -> bool:
    """The scalar source field holds a value itself ("encoded in the instruction directly": s_sendmsg_rtn)."""
    return fact("source_is_immediate", d)


@_memo
def lookup_table(d) -> tuple[float, ...] | None:
    """The entries of the lookup table the description lists where the code only declares the
    array (v_cvt_off_f32_i4's CVT_OFF_TABLE: "Lookup table on S0[3:0]: ... 1000 -0.5000f ...")."""
    return fact("lookup_table", d)


@_memo
def sets_mode(d) -> tuple[str, ...]:
    """MODE fields the description says an instruction without code sets from its immediate:
    ('MODE.FP_ROUND',) for s_round_mode ("Set floating point round mode using an immediate
    constant"), ('MODE.FP_DENORM',) for s_denorm_mode (isa.effects.wave_state)."""
    return fact("sets_mode", d)


@_memo
def agpr_operands(d) -> tuple[str, ...]:
    """The operands ('D0', 'S0') the description places in the accumulator register file, AGPRs
    a0..a255 in the syntax: CDNA's v_accvgpr_read (S0), v_accvgpr_write (D0), v_accvgpr_mov_b32 (both)."""
    return fact("agpr_operands", d)


@_memo
def loads_scales(d) -> bool:
    """The load-scale half of CDNA4's V_MFMA_SCALE_* (v_mfma_ld_scale_b32): its description
    (section 7.2's, an erratum) loads the scale factors of the MFMA instruction that follows."""
    return fact("loads_scales", d)


@_memo
def modifier_use(d) -> ModifierUse:
    """What d's CLMP, OMOD, NEG/ABS and OPSEL fields apply to (isa/gen/modifiers.py): from the
    manual's operand types, and its "Supports saturation (... integer domain)" for integer clamp."""
    return fact("modifier_use", d)


def behaviour_unknown(d) -> bool:
    """No manual describes what `d` does, and what it could change is state an emulator models:
    isa.errata.BEHAVIOUR_UNKNOWN (RDNA4's s_barrier_init/join/leave, CDNA's s_rfe_restore_b64).
    Their operands are known (the assembler, disassembler and allocator use them); their effect is
    not, so nothing may run them. By name in d's family (isa.spec.family_of); an InstrDef no loaded
    Spec holds (a copy) by name in any family listed, so that no copy runs a guess."""
    from .errata import BEHAVIOUR_UNKNOWN
    entry = BEHAVIOUR_UNKNOWN.get(d.name)
    if entry is None:
        return False
    family = family_of(d)
    return family is None or family in entry[0]


def reserved_opsel(d) -> tuple[int, str] | None:
    """(the OPSEL bits, evidence) LLVM 22's disassembler refuses on `d` though its entry gives OPSEL
    no use (isa.errata.RESERVED_OPSEL: CDNA4's v_bitop3_b32 every bit, v_cvt_pk_bf16_f32 OPSEL[2]),
    else None. By name in d's family (isa.spec.family_of), as behaviour_unknown."""
    from .errata import RESERVED_OPSEL
    entry = RESERVED_OPSEL.get(d.name)
    if entry is None or family_of(d) not in entry[0]:
        return None
    return entry[1], entry[2]


_rows: dict[tuple[str, str], dict[tuple[str, str], tuple[str, int]]] = {}   # (table, family) -> (format, name) -> (rule, page)


def _second_dword_rule(table: str, d) -> tuple[str, int] | None:
    """(rule, page) of (d.format, d.name) in the family's generated tables[table]; an InstrDef no
    loaded Spec holds (a copy) by its format and name in any loaded family listing it."""
    family = family_of(d)
    for f in [family] if family else list(loaded_specs()):
        rows = _rows.get((table, f))
        if rows is None:
            rows = _rows[(table, f)] = {(fmt, name): (rule, page)
                                        for fmt, name, rule, page in loaded_specs()[f].tables.get(table, ())}
        if (d.format, d.name) in rows:
            return rows[(d.format, d.name)]
    return None


@_memo
def no_dpp(d) -> tuple[str, int] | None:
    """(the rule as the manual writes it, its page) when `d`, an instruction in one encoding, may
    not take a DPP word, else None: the family's generated tables["no_dpp"], which the generator
    reads from the manual's "Which instructions support DPP" table, the "packed math" exclusion
    beside it and RDNA4's pseudo-scalar ops, and from CDNA's "Instruction Limitations" list
    (12.16.1: "The following instructions cannot use DPP", V_CLREXCP ...), with errata (isa/gen/dpp.py)."""
    return _second_dword_rule("no_dpp", d)


@_memo
def no_sdwa(d) -> tuple[str, int] | None:
    """(rule, page) when `d` may not take an SDWA word (CDNA's 12.16.2 "The following instructions
    cannot use SDWA": v_mac_f32, v_fmac_f32, v_clrexcp, ...), from the family's tables["no_sdwa"]."""
    return _second_dword_rule("no_sdwa", d)

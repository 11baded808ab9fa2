"""Which operands an instruction's pseudocode reads and writes: the generator reads each
instruction's code once (isa/gen/effects.py, over the syntax tree of the one grammar,
isa/pcode/pcode.lark: statements, if/elsif/else, loops, expressions) and
writes the answers to isa/generated/<family>/effects.py; `effects` answers from there.

    from isa.effects import effects
    e = effects(spec.lookup("v_mad_u64_u32")[0].pcode)   # { D1.u1, D0.u64 } = 65'B(...)
    e.full      # frozenset({'D0', 'D1'}): written whole on every path
    e.reads     # frozenset({'S0', 'S1', 'S2'})

Names are the pseudocode's operands: D0 D1 S0 S1 S2 VCC SCC EXEC M0 (VDST counts as D0,
SRC0..2 as S0..2, EXEC_LO / VCC_LO as EXEC / VCC; `S[i]`, the sources as an array (v_fma_mix*),
reads S0, S1 and S2). A write is *full* when every path
assigns the whole operand: `D0.u = ...`, a concatenation `{ D1.u1, D0.u64 } = ...`, or an
if/else whose every branch assigns it. A lane-bit write `D0.u64[laneId] = ...` (VOPC, carry
outs, v_cmpx's EXEC) is full: the hardware writes the whole mask, 0 for inactive lanes.
Any other write -- a bit range, an index, inside a loop, in only some branches, to
`VGPR[lane][VDST]` -- is *partial*: the old value survives in part, so it is read as well.
A read of an operand after a full write of it on every path is not a read of the input.
A 16-bit write `D0.f16 = ...` is full as far as the code goes (`half_writes` names it); what
becomes of the other half of a 32-bit VGPR is the family's and the encoding's: `half_result(d)`
('kept' on RDNA, 'zeroed' on CDNA's VOP1/VOP2 forms), and `instruction_effects(d)` is the
effects with a 'kept' result as a partial write of D0 -- what liveness and the effects check read.
Anything the parser does not understand counts as reading every operand it names, and
writing (partially) every operand it assigns: never less than the truth. WMMA's
`eval "D0.f32(16x16) = ..."` is read as the statement it quotes (a matrix of 16-bit elements
fills half of each register: a partial write). The other fields are described in the class.

A memory instruction's code names its operands ADDR, DATA, VDATA, RETURN_DATA and MEM, which
this record does not model: what it reads and writes -- the memory space (LDS, FLAT, GLOBAL,
SCRATCH, buffer, scalar), read / write / read-modify-write, its register fields with counts and
the encoding's conditions, EXEC and M0 -- is the generated record
isa.memory_access.memory_effects(d) (isa.memory_registers.memory_registers(d, fields, traits)
for one encoding).

Code no loaded family has (a test's own text) is refused (FactsError, the rule for every generated
fact: isa/fact_tables.py); the generator's reader, isa.gen.effects.effects, reads it."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from .fact_tables import FactsError, table
from .fact_types import Effects, WaveState
from .spec import loaded_specs



_FIELDS = tuple(Effects.__dataclass_fields__)
_SETS = frozenset(name for name, f in Effects.__dataclass_fields__.items()
                  if f.type == "frozenset")            # written as sorted tuples
_NO_CODE = Effects(frozenset(), frozenset(), frozenset(), False)


def stored(e: Effects) -> dict:
    """`e` as the generated table holds it: its fields other than the defaults, sets as tuples."""
    from .fact_tables import sorted_values
    out = {}
    for name in _FIELDS:
        value = getattr(e, name)
        if name in ("reads", "full", "partial", "cross_lane") or value != getattr(_NO_CODE, name):
            out[name] = sorted_values(value) if name in _SETS else value
    return out


def restored(fields: dict) -> Effects:
    return Effects(**{name: frozenset(v) if name in _SETS else v for name, v in fields.items()})


_by_code: dict[str, tuple[str, int]] = {}     # pcode -> (family, record in its EFFECTS)
_families_read: set[str] = set()
_made: dict[tuple[str, int], Effects] = {}   # each record made once (many codes share one)


def _record(pcode: str) -> tuple[str, int] | None:
    specs = loaded_specs()
    if len(_families_read) != len(specs):
        for family, spec in list(specs.items()):
            if family not in _families_read:
                _families_read.add(family)
                by_instruction = table(family, "effects").BY_INSTRUCTION
                for d, record in zip(spec.instructions, by_instruction):
                    if record is not None:
                        _by_code.setdefault(d.pcode, (family, record))
    return _by_code.get(pcode)


@lru_cache(maxsize=None)
def effects(pcode: str | None) -> Effects:
    """Operands read and written by `pcode` (see the module docstring): the generated table's
    answer for the code of an instruction of a loaded family; FactsError for other code."""
    if not pcode:
        return _NO_CODE
    known = _record(pcode)
    if known is None:
        lines = pcode.strip().splitlines()
        shown = repr(lines[0]) + (" ..." if len(lines) > 1 else "")
        raise FactsError(f"no generated effects for code {shown}: "
                         f"no instruction of a loaded family's manual has it (loaded: "
                         f"{', '.join(sorted(loaded_specs())) or 'none'}); isa.gen.effects.effects reads code of one's own")
    made = _made.get(known)
    if made is None:
        family, record = known
        made = _made[known] = restored(table(family, "effects").EFFECTS[record])
    return made


@lru_cache(maxsize=None)
def half_result(d) -> str | None:
    """What InstrDef `d`'s 16-bit VGPR result does to the other half of its register: 'kept' (a
    16-bit half is written, the other keeps its value: RDNA's every encoding -- true16 .l/.h, VOP3
    op_sel[3], fake16 --, CDNA's VOP3-only instructions), 'zeroed' (bits 31:16 get zeros: CDNA's
    VOP1/VOP2 16-bit instructions in either encoding), None where the code writes D0 otherwise than
    whole as a 16-bit value into a VGPR. From the generated table (HALF_RESULTS: the code's
    half_writes and the family's rule, isa/errata.py HALF_RESULTS, with its pages and evidence);
    an SDWA word's DST_SEL / DST_UNUSED, which place a result themselves, are the encoding's."""
    from .fact_tables import locate
    got = locate(d, _HALF_FIELDS)
    return None if got is None else table(got[0], "effects").HALF_RESULTS.get(got[1])


_HALF_FIELDS = ("format", "promoted_from", "pcode", "description")


@lru_cache(maxsize=None)
def instruction_effects(d, e: Effects | None = None) -> Effects:
    """`effects(d.pcode)` (or the effects `e` given for d's code) with what the code leaves to the
    family and encoding: a 16-bit result that keeps the other half of its VGPR (half_result
    'kept') is a partial write of D0, so D0 is read as well; 'zeroed' and every other result as
    the code says."""
    e = effects(d.pcode) if e is None else e
    if "D0" not in e.half_writes or half_result(d) != "kept":
        return e
    return replace(e, reads=e.reads | {"D0"}, full=e.full - {"D0"}, partial=e.partial | {"D0"})


# MODE.FP_ROUND and MODE.FP_DENORM are two 2-bit halves each (every manual's MODE table: [1:0]
# single precision, [3:2] double and half precision): the half an operand's float type selects
_MODE_HALF = {"f32": "F32", "f16": "F16_F64", "f64": "F16_F64"}
# float types no manual gives a MODE.FP_ROUND half (bf16): code rounding one reads both halves, the
# 16-bit half for the bf16 value (as AMD's rocJITsu emulator rounds gfx1250's bf16 results: ROCm
# rocm-systems pull 10913) and the F32 half for the f32 steps the code computes it in (emu/rounding.py)
ROUND_BOTH_HALVES = ("bf16",)
# MODE field names of wave_state -> (MODE table field, bit offsets within it)
MODE_FIELDS = {"MODE.FP_ROUND.F32": ("FP_ROUND", 1, 0), "MODE.FP_ROUND.F16_F64": ("FP_ROUND", 3, 2),
               "MODE.FP_DENORM.F32": ("FP_DENORM", 1, 0), "MODE.FP_DENORM.F16_F64": ("FP_DENORM", 3, 2)}


def mode_bits(spec, name: str) -> tuple[int, int]:
    """(hi, lo) in MODE of a field wave_state names: 'MODE.FP_DENORM.F32' is MODE[5:4] (spec's
    MODE table: FP_DENORM 7:4, its single-precision half [1:0]), 'MODE.IEEE' MODE[9:9]."""
    field, hi, lo = MODE_FIELDS.get(name, (name.removeprefix("MODE."), None, None))
    for table_field, table_hi, table_lo, _ in spec.tables.get("mode", ()):
        if table_field == field:
            return (table_hi, table_lo) if hi is None else (table_lo + hi, table_lo + lo)
    raise KeyError(f"{name}: no such field in the MODE register table of {spec.arch}")


@lru_cache(maxsize=None)
def wave_state(d) -> WaveState:
    """The MODE and STATUS fields InstrDef `d` reads and writes (isa.fact_types.WaveState): those
    its code names (effects' state_reads, state_writes), and those the code of the instructions it
    calls reads (isa.facts.instruction_calls: v_pk_max_f16's v_max_f16); the halves of MODE.FP_DENORM its float
    operands and of MODE.FP_ROUND its float results (typed Dn, or the float_modes fact's bit_results:
    `D0 = { 16'0, tmp.f16 }`, or for packed code its round_types; both halves for a bf16 one: its
    value by the 16-bit half, the f32 steps of its code by the F32 half) follow, where the float_modes fact says MODE
    applies (isa.facts.float_modes: not packed, matrix, exact or self-rounded results), for VALU,
    SALU and LDS instructions (the manuals' MODE table: other memory instructions and atomics
    ignore it); and the fields its description says it sets (isa.facts.sets_mode: s_round_mode)."""
    from .facts import float_modes, instruction_calls, sets_mode
    from .spec import family_of, load, traits
    e = effects(d.pcode)
    reads = set(e.state_reads)
    family = family_of(d)
    for name in instruction_calls(d) if family else ():     # v_pk_max_f16 calls v_max_f16 (MODE.IEEE)
        called = [x for x in load(family).lookup(name) if x.pcode]
        reads |= set(effects(called[0].pcode).state_reads) if called else set()
    roles = traits(family).roles if family else None
    if roles is None or d.format not in roles.memory - roles.lds:
        modes, types = float_modes(d), d.operand_types or {}
        if modes.why == "scaled conversion":        # the conversion flushes its f32 source itself
            reads.add("MODE.FP_DENORM.F32")
        if modes.flushes:
            reads |= {f"MODE.FP_DENORM.{_MODE_HALF[t]}" for t in types.values() if t in _MODE_HALF}
        if modes.rounds:
            reads |= {f"MODE.FP_ROUND.{_MODE_HALF[t]}" for name, t in types.items()
                      if name.startswith("D") and t in _MODE_HALF}
        # packed code: the halves of the types its arithmetic rounds (v_pk_add_f16: F16_F64)
        reads |= {f"MODE.FP_ROUND.{_MODE_HALF[t]}" for t in modes.round_types if t in _MODE_HALF}
        if set(modes.round_types + modes.bit_results) & set(ROUND_BOTH_HALVES):    # v_dot2_bf16_bf16
            reads |= {"MODE.FP_ROUND.F32", "MODE.FP_ROUND.F16_F64"}
        # a float result held as bits of a wider register (`D0 = { 16'0, tmp.f16 }`)
        reads |= {f"MODE.FP_{field}.{_MODE_HALF[t]}" for t in modes.bit_results if t in _MODE_HALF
                  for field, on in (("DENORM", modes.flushes), ("ROUND", modes.rounds)) if on}
    return WaveState(frozenset(reads), frozenset(e.state_writes | set(sets_mode(d))))

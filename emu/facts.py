"""The facts about an instruction that preparing it reads, kept on disk per instruction.

Preparing an instruction reads facts that isa/ and dsl/ work out from its manual entry: its
VALU, scalar or LDS operands (dsl.signature), whether SIMM16 names a barrier (isa.control), its
memory facts (isa.memory_access: data dwords, a buffer resource, a lane address, a format
conversion), whether its pseudocode reads D0 (isa.effects) and the MODE rules it follows
(isa.facts.float_modes); building its semantic reads the shapes of its code the fast paths key on
(isa.facts, generated from the code: an atomic's memory update, a dword-run load, a DS offset added in the code,
v_min/max_f32's NaN order, f32 call chains, a permute's lane modulus, the register files indexed,
a table only declared, the instructions called; isa.memory_access.format_conversion; isa.effects'
whole matrices). They are pure functions of the entry's text, generated once (isa's tables) or
computed from those (dsl.signature): importing those modules and their families' tables and
computing the facts still costs a first launch ~5-10 ms (emu/README.md: bench_emu_narrow's first
launch with and without this cache). Here each fact is computed once per instruction and kept in a small pickle file per
instruction under the emulator's cache folder (`facts-<digest>-<python>`, the digest of the
sources that compute them, so a change to any of them starts a new folder): a later process
reads only the facts of the instructions it runs, and loads none of those modules when it has
seen them all before. A missing, unreadable or damaged file is computed again; with
`EmuOptions.fact_cache` off nothing is read from or written to disk (the facts are then kept
for the process only). tests/test_emu_facts.py checks the facts read back equal the computed
ones on every instruction of every family.

Only facts of the entry's text belong here: two families may hold identical entries (RDNA3's and
RDNA3.5's s_barrier), which share one file. A fact that also depends on the family or target
(behaviour_unknown: isa.errata.BEHAVIOUR_UNKNOWN lists families) is asked of its module each time
instead (tests/test_emu_facts_family.py), once the text's own fact (`behaviour_unknown_named`: the
table names the instruction in some family) says there is something to ask.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache

from . import program_cache
from .cache_folder import cache_dir, files_digest, sources_digest, write_atomically
from .options import current

# the modules whose code decides the facts (this one: which facts; the tables they read; the generator's
# readers that wrote isa/generated/<family>/effects.py, memory_access.py, control.py, facts.py: isa.facts
# reads tables isa/gen/facts.py works out with isa/code_facts.py, isa/float_modes.py and
# isa/gen/descriptions.py, which `wavesmith gen --check` keeps equal)
_SOURCES = ("emu/facts.py", "isa/effects.py", "isa/code_facts.py", "isa/control.py", "isa/memory_access.py", "isa/errata.py", "isa/float_modes.py",
            "isa/spec.py", "isa/fact_types.py", "isa/gen/effects.py", "isa/pcode/pcode.lark", "isa/pcode/grammar.py", "isa/gen/memory_access.py", "isa/gen/control.py",
            "isa/facts.py", "isa/gen/facts.py", "isa/gen/descriptions.py",
            "dsl/signature.py", "dsl/operand_records.py", "dsl/syntax.py", "dsl/syntax_gfx9.py")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the generated tables themselves: a regeneration that changes a fact but no entry's text (an erratum,
# a table the generator now reads differently) must not leave the old answer in the cache
_GENERATED = ("effects.py", "memory_access.py", "control.py", "facts.py", "tables.py")


def _digest() -> str:
    generated = os.path.join(_ROOT, "isa", "generated")
    paths = [os.path.join(_ROOT, name) for name in _SOURCES] + [
        os.path.join(generated, family, name) for family in sorted(os.listdir(generated))
        if os.path.isfile(os.path.join(generated, family, "__init__.py")) for name in _GENERATED]

    return sources_digest("facts", paths, lambda: files_digest(paths), current().source_stamps)


def _instruction_key(d) -> str:
    """The entry's text: everything of an InstrDef the facts may read."""
    text = repr((d.name, d.format, d.opcode, d.slot, d.promoted_from, d.pcode, d.description, d.notes,
                 sorted(d.operand_types.items())))
    return hashlib.sha256(text.encode()).hexdigest()


class FactCache:
    """{instruction: {fact: value}}, one pickle file per instruction in `folder`."""

    def __init__(self, folder: str | None):
        self.folder = folder
        self._entries: dict[int, tuple[str, dict]] = {}       # id(InstrDef) -> (file, facts)
        self._defs: list = []           # the InstrDefs keyed by id, kept alive
        self._prefilled: set[int] = set()   # id() of entries a program record gave, their files not read

    def _entry(self, d) -> tuple[str, dict]:
        got = self._entries.get(id(d))
        if got is None:
            path = os.path.join(self.folder, _instruction_key(d) + ".pickle") if self.folder else None
            got = self._entries[id(d)] = (path, self._read(path))
            self._defs.append(d)
        program_cache.touch(d)
        return got

    @staticmethod
    def _read(path: str | None) -> dict:
        if path is not None:
            try:
                with open(path, "rb") as f:
                    loaded = pickle.load(f)
                if isinstance(loaded, dict):
                    return loaded
            except Exception:       # absent, unreadable, damaged or from an older layout
                pass
        return {}

    def prefill(self, d, key: str, facts: dict) -> None:
        """The facts of d stored under `key` (_instruction_key), as a program record holds them
        (emu/program_cache.py): taken instead of reading the file, unless d's entry is known."""
        if self.folder and id(d) not in self._entries and isinstance(facts, dict):
            self._entries[id(d)] = (os.path.join(self.folder, key + ".pickle"), facts)
            self._defs.append(d)
            self._prefilled.add(id(d))

    def stored(self, d) -> tuple[str, dict] | None:
        """(key, facts) of d's entry when it is kept on disk, for a program record."""
        got = self._entries.get(id(d))
        if got is None or got[0] is None:
            return None
        return os.path.basename(got[0])[:-len(".pickle")], got[1]

    def fact(self, name: str, d, compute):
        path, facts = self._entry(d)
        if name in facts:
            return facts[name]
        if id(d) in self._prefilled:    # a record's facts may be fewer than the file's: merged first
            self._prefilled.discard(id(d))
            for k, v in self._read(path).items():
                facts.setdefault(k, v)
            if name in facts:
                return facts[name]
        value = facts[name] = compute(d)
        if path is not None:
            try:        # a read-only home only costs computing the facts again
                write_atomically(path, pickle.dumps(facts, protocol=pickle.HIGHEST_PROTOCOL))
            except pickle.PicklingError:
                pass
        return value


@lru_cache(maxsize=None)
def fact_cache(on_disk: bool = True) -> FactCache:
    """The process's cache (on disk under the emulator's cache folder, or in memory only)."""
    if not on_disk:
        return FactCache(None)
    return FactCache(os.path.join(str(cache_dir()), f"facts-{_digest()}-{sys.implementation.cache_tag}"))


def _on_disk() -> bool:
    return current().fact_cache


# the facts, each a function of one InstrDef computed by the module that owns it (imported only
# when a fact is not yet known); all but the signature are plain values, so reading them back
# imports nothing

def _valu_signature(d):
    from dsl.signature import valu_signature
    return valu_signature(d)


def _scalar_layout(d):
    from dsl.signature import scalar_layout
    return scalar_layout(d)


def _barrier_in_simm16(d):
    from isa.control import control
    return control(d).barrier_in_simm16


def _data_dwords(d):
    from isa.memory_access import memory_access
    return memory_access(d).data_dwords


def _value_dwords(d):
    from isa.memory_access import value_dwords
    return value_dwords(d)


def _reads_d0(d):
    from isa.effects import effects
    return "D0" in effects(d.pcode).reads


def _reads_literal(d):
    from isa.effects import effects
    return effects(d.pcode).literal


def _float_rules(d):
    from isa.facts import float_modes
    modes = float_modes(d)
    return modes.flushes, modes.rounds, tuple(int(t[1:]) for t in modes.bit_results if t in ("f16", "f32", "f64"))


def _rounds_packed(d):
    from isa.effects import ROUND_BOTH_HALVES
    from isa.facts import float_modes
    modes = float_modes(d)
    widths = {{"f16": 16, "f32": 32, "f64": 64}[t] for t in modes.round_types if t in ("f16", "f32", "f64")}
    if set(modes.round_types + modes.bit_results) & set(ROUND_BOTH_HALVES):     # bf16: both fields
        widths |= {16, 32}
    if modes.rounds:        # results typed fN in a wider register (v_s_sqrt_f16: D0[31 : 16] = 16'0x0)
        widths |= {int(t[1:]) for name, t in (d.operand_types or {}).items()
                   if name.startswith("D") and t in ("f16", "f32", "f64")}
    return tuple(sorted(widths))


def _ds_layout(d):
    from dsl.signature import ds_layout
    return ds_layout(d)


def _buffer_resource(d):
    from isa.memory_access import buffer_resource
    return buffer_resource(d)


def _lane_address(d):
    from isa.memory_access import lane_address
    return lane_address(d)


def _converts_format(d):
    from isa.memory_access import converts_format
    return converts_format(d)


def _typed_buffer(d):
    from isa.memory_access import typed_buffer
    return typed_buffer(d)


def _atomic_update(d):
    from isa.facts import atomic_update
    update = atomic_update(d)
    return None if update is None else (update.kind, update.type, update.returns_old, update.operands)


def _format_conversion(d):
    from isa.memory_access import format_conversion, memory_access
    shape = format_conversion(d)
    return None if shape is None else (memory_access(d).direction, shape.components, shape.d16, shape.high)


def _matrix(d):
    from isa.effects import effects
    return effects(d.pcode).matrix


def _matrix_shapes(d):
    """isa.effects' shapes: each (MxN) operand of a matrix instruction's code, (name, element type,
    bits, M, N): ('S0', 'iu4', 4, 16, 16), which the WMMA semantics compute in."""
    from isa.effects import effects
    return effects(d.pcode).shapes


def _packed_negation(d):
    """(sources NEG / NEG_HI negate, sources NEG_HI takes the magnitude of) of a VOP3P instruction,
    as indices: the sources isa.facts.modifier_use says NEG applies to; where that is one 32-bit
    source alone (RDNA4's v_dot4_f32_{fp8,bf8}_*: "Only SRC2 can apply NEG/NEG_HI (NEG_HI acts as
    the ABS modifier for these ops)", RDNA4 ISA p. 90), NEG_HI is its |x|. (LLVM 22 compiles
    fabs(c) of llvm.amdgcn.dot4.f32.fp8.bf8 to neg_hi:[0,0,1]; of llvm.amdgcn.fdot2's c, whose
    sources all take NEG, to a v_and_b32: there NEG_HI of the 32-bit src2 is left alone.)"""
    from dsl.signature import valu_signature
    from isa.facts import modifier_use
    negated = tuple(int(s[1]) for s in modifier_use(d).neg_abs)
    srcs = valu_signature(d).srcs
    magnitude = tuple(i for i in negated if len(negated) == 1 and i < len(srcs) and not srcs[i].packed
                      and srcs[i].bits == 32)
    return negated, magnitude


def _signed_by_neg(d):
    """The sources (indices) whose NEG bit says signed, not negates: isa.facts.modifier_use's
    signed_by_neg, the iu8/iu4 inputs of an integer WMMA."""
    from isa.facts import modifier_use
    return tuple(int(s[1]) for s in modifier_use(d).signed_by_neg)


def _half_write(d):
    """Whether d's code writes D0 only as a 16-bit value into bits 15:0, or d has no code
    (isa.effects' half_writes; half_result then asks the family what becomes of the other half)."""
    from isa.effects import effects
    return not d.pcode or "D0" in effects(d.pcode).half_writes


def _behaviour_unknown_named(d):
    """Whether isa.errata.BEHAVIOUR_UNKNOWN names d, in any family (behaviour_unknown then asks
    the family)."""
    from isa.errata import BEHAVIOUR_UNKNOWN
    return d.name in BEHAVIOUR_UNKNOWN


def _code_fact(name):
    """isa.facts.<name>(d)."""
    def compute(d):
        from isa import facts
        return getattr(facts, name)(d)
    compute.__name__ = f"_{name}"
    return compute


_CODE_FACTS = ("address_adds_offset", "field_loads", "dword_loads", "dword_stores", "first_nan_test", "call_chain", "lane_modulus", "register_files",
               "unfilled_arrays", "instruction_calls", "agpr_operands", "loads_scales")

FACTS = {"valu_signature": _valu_signature, "scalar_layout": _scalar_layout, "ds_layout": _ds_layout,
         "barrier_in_simm16": _barrier_in_simm16, "data_dwords": _data_dwords,
         "value_dwords": _value_dwords, "reads_d0": _reads_d0,
         "reads_literal": _reads_literal,
         "float_rules": _float_rules, "rounds_packed": _rounds_packed,
         "buffer_resource": _buffer_resource, "lane_address": _lane_address,
         "converts_format": _converts_format, "typed_buffer": _typed_buffer, "atomic_update": _atomic_update,
         "format_conversion": _format_conversion, "matrix": _matrix, "matrix_shapes": _matrix_shapes,
         "behaviour_unknown_named": _behaviour_unknown_named, "packed_negation": _packed_negation,
         "signed_by_neg": _signed_by_neg,
         "half_write": _half_write,
         **{name: _code_fact(name) for name in _CODE_FACTS}}


def fact(name: str, d):
    """FACTS[name](d), from the cache when known."""
    return fact_cache(_on_disk()).fact(name, d, FACTS[name])


def valu_signature(d):
    """dsl.signature.valu_signature(d)."""
    return fact("valu_signature", d)


def agpr_operands(d) -> tuple:
    """isa.facts.agpr_operands(d): the operands ('D0', 'S0') in the AGPR file (v_accvgpr_*)."""
    return fact("agpr_operands", d)


def loads_scales(d) -> bool:
    """isa.facts.loads_scales(d): the load-scale half of a V_MFMA_SCALE_* (v_mfma_ld_scale_b32)."""
    return fact("loads_scales", d)


def signed_by_neg(d) -> tuple:
    """isa.facts.modifier_use(d).signed_by_neg as source indices: (0, 1) for an IU8/IU4 WMMA."""
    return fact("signed_by_neg", d)


def matrix_shapes(d) -> tuple:
    """isa.effects' shapes of d's code: ('S0', 'f16', 16, 16, 16), ... for a WMMA, () for most."""
    return fact("matrix_shapes", d)


def typed_buffer(d) -> bool:
    """isa.memory_access.typed_buffer(d)."""
    return fact("typed_buffer", d)


def scalar_layout(d) -> list:
    """dsl.signature.scalar_layout(d)."""
    return fact("scalar_layout", d)


def barrier_in_simm16(d) -> bool:
    """isa.control.control(d).barrier_in_simm16."""
    return fact("barrier_in_simm16", d)


def data_dwords(d) -> int | None:
    """isa.memory_access.memory_access(d).data_dwords."""
    return fact("data_dwords", d)


def behaviour_unknown(d) -> bool:
    """isa.facts.behaviour_unknown(d): no manual describes what d does (s_barrier_init).
    Not kept with the facts above: it depends on d's family, not only its text. Whether the
    errata table names d at all (in any family) is a fact of its text, kept as the others are,
    so an instruction it does not list loads nothing more, not even the errata table (~1 ms)."""
    if not fact("behaviour_unknown_named", d):
        return False
    from isa.facts import behaviour_unknown as family_aware
    return family_aware(d)


def half_result(d) -> str | None:
    """isa.effects.half_result(d): what d's 16-bit VGPR result does to the other half ('kept',
    'zeroed', None). Asked of the family each time, as behaviour_unknown is (the rule is the
    family's); whether d's code writes a 16-bit D0 at all is a fact of its text, kept here."""
    if not fact("half_write", d):
        return None
    from isa.effects import half_result as family_aware
    return family_aware(d)


def value_dwords(d) -> int:
    """isa.memory_access.value_dwords(d): registers of one data value."""
    return fact("value_dwords", d)


def reads_d0(d) -> bool:
    """Whether d's pseudocode reads D0 (isa.effects)."""
    return fact("reads_d0", d)


def reads_literal(d) -> bool:
    """Whether d's pseudocode reads SIMM32, the literal dword (isa.effects' literal)."""
    return fact("reads_literal", d)


def float_rules(d) -> tuple:
    """(flushes, rounds, widths of the bit_results) of isa.facts.float_modes(d)."""
    return fact("float_rules", d)


def rounds_packed(d) -> tuple:
    """Widths of isa.facts.float_modes(d).round_types: the floats packed code (v_pk_*, v_dot*,
    v_fma_mix*: register halves or an array of sources) rounds in its arithmetic, each by
    MODE.FP_ROUND's field of its width; a bf16 one gives 16 and 32 (its value rounds by the 16-bit
    field, the code's f32 steps by the f32 field: isa.effects.ROUND_BOTH_HALVES); and, where MODE
    rounds d's results, the widths its D operands' types name (RDNA4's v_s_sqrt_f16 types D0 f16
    and writes 32 bits), as isa.effects.wave_state declares their FP_ROUND halves read."""
    return fact("rounds_packed", d)


def ds_layout(d) -> list:
    """dsl.signature.ds_layout(d)."""
    return fact("ds_layout", d)


def buffer_resource(d) -> bool:
    """isa.memory_access.buffer_resource(d)."""
    return fact("buffer_resource", d)


def lane_address(d) -> bool:
    """isa.memory_access.lane_address(d)."""
    return fact("lane_address", d)


def converts_format(d) -> bool:
    """isa.memory_access.converts_format(d)."""
    return fact("converts_format", d)


def atomic_update(d) -> tuple | None:
    """(kind, type, returns_old, operands) of isa.facts.atomic_update(d), or None."""
    return fact("atomic_update", d)


def address_adds_offset(d) -> bool:
    """isa.facts.address_adds_offset(d): the code adds the offset to ADDR itself."""
    return fact("address_adds_offset", d)


def field_loads(d) -> tuple | None:
    """isa.facts.field_loads(d): (register, n) of a load of n dwords from ADDR + 4k."""
    return fact("field_loads", d)


def dword_loads(d) -> tuple | None:
    """isa.facts.dword_loads(d): field_loads' (register, n) with n >= 1."""
    return fact("dword_loads", d)


def dword_stores(d) -> tuple | None:
    """isa.facts.dword_stores(d): (register, n) of a store of n dwords to ADDR + 4k."""
    return fact("dword_stores", d)


def first_nan_test(d) -> str | None:
    """isa.facts.first_nan_test(d): the source the first NaN test names."""
    return fact("first_nan_test", d)


def call_chain(d) -> tuple | None:
    """isa.facts.call_chain(d): (outer, inner, type) of D0 = outer(inner(S0, S1), S2)."""
    return fact("call_chain", d)


def lane_modulus(d) -> tuple[int, int] | None:
    """isa.facts.lane_modulus(d): (wave32, wave64) N of a permute's `/ 4 % N`."""
    return fact("lane_modulus", d)


def register_files(d) -> frozenset:
    """isa.facts.register_files(d): the register files the code indexes by a value."""
    return fact("register_files", d)


def format_conversion(d) -> tuple | None:
    """(direction, components, d16, high) of a buffer instruction converting through a data format
    (isa.memory_access.format_conversion, its memory_access direction), else None."""
    return fact("format_conversion", d)


def unfilled_arrays(d) -> tuple:
    """isa.facts.unfilled_arrays(d): arrays the code declares and never assigns."""
    return fact("unfilled_arrays", d)


def instruction_calls(d) -> tuple:
    """isa.facts.instruction_calls(d): the instructions the code calls, as written."""
    return fact("instruction_calls", d)


def matrix(d) -> bool:
    """isa.effects' matrix: d's operands are whole matrices across the wave (WMMA)."""
    return fact("matrix", d)

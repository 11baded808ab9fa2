"""The semantics of every instruction of an architecture: generated from the pseudocode,
hand-written where the manual has none (emu/handwritten.py), VOPD halves by their VOP2 twin's
(v_dual_dot2acc_*, which have none, by their own code), the FLAT-family instructions addressed
by lane ID (GLOBAL_*_ADDTID_B32) by the dword load/store of their format they share their data
semantics with.

Generated Python source is cached on disk keyed by the pseudocode text, the instruction's
operand types and the translator's own source, so the first load translates (a few
seconds) and later loads only compile. Cache directory: $WAVESMITH_CACHE or
~/.cache/wavesmith; delete it freely.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import os
import sys
import types
import dataclasses
from importlib.util import MAGIC_NUMBER
from functools import lru_cache
from pathlib import Path

import numpy as np

import isa

from dsl.operand_records import vopd_base
from isa.records import dataclass

from . import families, handwritten, program_cache, rtlib
from .cache_folder import cache_dir, files_digest, sources_digest
from .facts import (atomic_update, behaviour_unknown, loads_scales, field_loads, float_rules, instruction_calls, register_files,
                    rounds_packed, unfilled_arrays)
from .dword_loads import load_dword_runs
from .fold import Folded, fold
from .memory import DeviceMemory, FlatMemory, MemoryFault, RegionMemory
from .options import current
from .rounding import directed_code
from .shortcuts import with_shortcut
from .semantics import Ctx, Operand, RefusedBeforeAccess, Semantic, SemanticsError

_UNKNOWN = object()


def dword_form(spec: isa.Spec, d: isa.InstrDef) -> isa.InstrDef | None:
    """For a FLAT-family instruction addressed by lane ID (isa.memory_access.lane_address: no
    VGPR address, base + offset + lane ID * 4), the instruction of its format whose data movement
    it shares: the same direction, one dword of data, a 32-bit memory value, addressed by register
    (GLOBAL_LOAD_ADDTID_B32 -> GLOBAL_LOAD_B32); None for any other instruction."""
    from .facts import lane_address      # (kept on disk: running from the caches reads no pseudocode)
    if d.format not in spec.traits.roles.flat or not lane_address(d):
        return None
    from isa.memory_access import memory_access
    direction = memory_access(d).direction
    forms = []
    for other in spec.instructions:
        if other.format != d.format or not other.pcode or lane_address(other):   # (the rare path)
            continue
        a = memory_access(other)
        dwords = a.result_dwords if direction == "load" else a.data_dwords
        if a.direction == direction and not a.d16 and not a.two_addresses and a.element_bits == 32 and dwords == 1:
            forms.append(other)
    if len(forms) != 1:
        raise SemanticsError(f"{d.name}: {len(forms)} dword {direction} instructions of {d.format} to take data semantics from")
    return forms[0]


@lru_cache(maxsize=1)
def _translator_digest() -> str:
    """The translator's, the grammar's (isa/pcode/: pcode.lark and its parser) and the folding's
    source (emu/fold.py): a change of any makes every cached translation again."""
    here = os.path.dirname(os.path.abspath(__file__))
    pcode = os.path.join(here, "pcode")
    grammar = os.path.join(os.path.dirname(os.path.abspath(isa.__file__)), "pcode")
    paths = [os.path.join(pcode, name) for name in sorted(os.listdir(pcode)) if name.endswith(".py")] \
        + [os.path.join(grammar, "pcode.lark"), os.path.join(grammar, "grammar.py"), os.path.join(here, "fold.py")]

    return sources_digest("translator", paths, lambda: files_digest(paths), current().source_stamps)


class _SourceCache:
    """{key: translation}, one small marshal file per entry in a folder per translator version
    and Python (`pcode-<digest>-<tag>`), so that a process reads only the translations of the
    instructions it runs (a first launch of a kernel reads a few dozen files, not every
    translation an architecture has). An entry holds the translation and, once compiled, its
    code object with its expressions of instruction-word fields folded (`code`, `folded`:
    emu/fold.py), so a later process neither folds nor compiles it. Entries are written whole
    under a temporary name and renamed, so processes sharing the folder never see a partial
    file and keep each other's entries; a file that is unreadable, of another Python, not
    marshal data or missing a field is translated again and rewritten."""

    def __init__(self):
        self.folder = cache_dir() / f"pcode-{_translator_digest()}-{sys.implementation.cache_tag}"
        self._prefix = str(self.folder) + os.sep        # file names by string joins: pathlib costs a first launch ms
        self.entries: dict[str, dict] = {}      # read or made by this process
        self._unsaved: dict[str, dict] = {}
        # {id(d): {(scalar, saturate, narrow): key}} of the keys worked out or given by a program
        # record (emu/program_cache.py), and the definitions kept alive so that ids stay theirs
        self._keys: dict[int, dict[tuple, str]] = {}
        self._defs: list = []

    def key(self, d: isa.InstrDef, scalar: bool, saturate: bool = False, narrow: bool = True,
            spec: isa.Spec | None = None) -> str:
        program_cache.touch(d)
        known = self._keys.get(id(d)) if spec is not None else None
        if known is not None and (scalar, saturate, narrow) in known:
            return known[scalar, saturate, narrow]
        # (the operand widths the generated effects give are part of the translation's input)
        text = json.dumps([d.name, d.pcode, sorted(d.operand_types.items()), scalar, _tables(d),
                           sorted(_range_widths(d).items())] + (["saturate"] if saturate else [])
                          + ([] if narrow else ["wide"]) + _callee_types(d, spec))
        key = hashlib.sha256(text.encode()).hexdigest()
        if spec is not None:        # (the key of a spec's own definition, which outlives the process's tables)
            self._remember(d, (scalar, saturate, narrow), key)
        return key

    def _remember(self, d, variant: tuple, key: str) -> None:
        known = self._keys.get(id(d))
        if known is None:
            known = self._keys[id(d)] = {}
            self._defs.append(d)
        known[variant] = key

    def prefill(self, d, scalar: bool, saturate: bool, narrow: bool, key: str, t) -> None:
        """d's translation stored under `key`, as a program record holds it (emu/program_cache.py):
        taken instead of working out the key and reading the file, unless either is known."""
        known = self._keys.get(id(d))
        if (known is None or (scalar, saturate, narrow) not in known) and _well_formed(t):
            self._remember(d, (scalar, saturate, narrow), key)
            self.entries.setdefault(key, t)

    def stored(self, d) -> list:
        """[(scalar, saturate, narrow, key, translation)] of d's translations this process holds
        whole (compiled, or the translator's refusal), for a program record."""
        out = []
        for (scalar, saturate, narrow), key in self._keys.get(id(d), {}).items():
            t = self.entries.get(key)
            if t is not None and ("code" in t or "error" in t):
                out.append((scalar, saturate, narrow, key, t))
        return out

    def path(self, key: str) -> str:
        return f"{self._prefix}{key}.bin"

    def get(self, key: str) -> dict | None:
        """The well-formed translation stored under key, or None."""
        t = self.entries.get(key)
        if t is None:
            try:
                with open(self.path(key), "rb") as f:
                    data = f.read()
                if not data.startswith(MAGIC_NUMBER):       # another Python's bytecode, or damaged
                    return None
                t = marshal.loads(data[len(MAGIC_NUMBER):])
            except (OSError, ValueError, EOFError, TypeError):      # absent, unreadable or damaged
                return None
            if not _well_formed(t):
                return None
            self.entries[key] = t
        return t

    def put(self, key: str, translation: dict) -> None:
        self.entries[key] = self._unsaved[key] = translation

    def save(self):
        if not self._unsaved:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for key, t in self._unsaved.items():
                tmp = f"{self._prefix}{key}.{os.getpid()}.tmp"
                with open(tmp, "wb") as f:
                    f.write(MAGIC_NUMBER + marshal.dumps(t))
                os.replace(tmp, self.path(key))
        except (OSError, ValueError):
            pass        # a read-only home only costs re-translation
        self._unsaved = {}


@lru_cache(maxsize=1)
def _shared_cache() -> _SourceCache:
    """One cache per process for every table (fast and reference ones write the same file)."""
    return _SourceCache()


def _well_formed(t) -> bool:
    """Whether a cached translation has the fields `_generated` reads."""
    if not isinstance(t, dict):
        return False
    if "error" in t:
        return isinstance(t["error"], str)
    return (isinstance(t.get("source"), str) and isinstance(t.get("reads"), dict) and isinstance(t.get("writes"), dict)
            and {"branch", "memory", "cross_lane"} <= t.keys()
            and ("code" not in t or isinstance(t["code"], types.CodeType) and isinstance(t.get("folded"), dict)))


def _operands(d: dict) -> dict[str, Operand]:
    return {k: Operand(*v) for k, v in d.items()}


def _tables(d: isa.InstrDef) -> dict[str, list[float]]:
    """The array the pseudocode only declares (the unfilled_arrays fact), filled from the
    description's lookup table (v_cvt_off_f32_i4's CVT_OFF_TABLE: isa.facts.lookup_table, generated)."""
    from isa.facts import lookup_table     # (a key worked out: not when a program record holds it)
    entries = lookup_table(d)
    if entries is None:
        return {}
    names = unfilled_arrays(d)
    return {names[0]: entries} if len(names) == 1 else {}


def _callee_types(d: isa.InstrDef, spec: isa.Spec | None) -> list:
    """The result types of the instructions d's pseudocode calls (v_max3_f32 calls v_max_f32; the
    instruction_calls fact): the translation depends on them, so the cache key does."""
    if spec is None or not d.pcode:
        return []
    from .pcode.lookup import callee_result_type
    return [[n.upper(), callee_result_type(spec, n.upper())] for n in instruction_calls(d)]


def _range_widths(d: isa.InstrDef) -> dict[str, int]:
    """Operand widths the generated effects read from bit ranges the translator's own pre-pass
    cannot bound: a loop's `S0[sOffset + 31 : sOffset]` (sOffset = pass * 32, pass in 0 : 31:
    1024 bits; isa.effects' `uses`)."""
    from isa.effects import effects
    out: dict[str, int] = {}
    for name, _, hi, lo in effects(d.pcode).uses:
        if hi is not None:
            out[name] = max(out.get(name, 0), max(hi, lo) + 1)
    return out


def translate(d: isa.InstrDef, scalar: bool, saturate: bool = False, narrow: bool = True,
              spec: isa.Spec | None = None) -> dict:
    """Translate one instruction's pseudocode: {'source', 'reads', 'writes', ...} or {'error'}.
    saturate: the integer-clamp variant (Translator.saturate); narrow=False: without the
    uint32 statements (EmuOptions.narrow_uint32 off); spec: the architecture, for pseudocode that
    calls another instruction."""
    # the grammar and translator load only when something is not in the cache
    from .pcode.grammar import parse
    from .pcode.translate import Translator
    from .pcode.types import Unsupported
    try:
        tree = parse(d.pcode, d.name)
        r = Translator(d.name, d.operand_types, scalar, saturate, narrow, _tables(d), spec).translate(
            tree, _range_widths(d))
    except (Unsupported, SemanticsError) as e:
        return {"error": str(e)}
    except Exception as e:   # a translator bug must not hide the other instructions
        if os.environ.get("WAVESMITH_EMU_DEBUG"):
            raise
        return {"error": f"{d.name}: translator error {type(e).__name__}: {e}"}
    return {"source": r.source, "reads": {k: list(v.__dict__.values()) for k, v in r.reads.items()},
            "writes": {k: list(v.__dict__.values()) for k, v in r.writes.items()},
            "branch": r.branch, "memory": r.memory, "cross_lane": r.cross_lane}


def compile_source(source: str, name: str, arch: str, compiled: tuple | None = None):
    """The semantic function of translated `source`; INSTRUCTIONS gives the semantics of the
    instructions of `arch` the source may call (rtlib.call_instruction), from the table of
    the mode running (EmuOptions.narrow_uint32). compiled: what _compiled(source, name) gives,
    when kept from before."""
    def instructions(mnemonic: str):
        return load_semantics(arch, narrow=current().narrow_uint32).lookup(mnemonic)
    # F8: the family's FP8/BF8 formats (rtlib.eight_bit_floats; `arch` is the family here)
    namespace = {"R": rtlib, "np": np, "F8": rtlib.eight_bit_floats(arch), "INSTRUCTIONS": instructions}
    code, folded = compiled or _compiled(source, name)
    for name_, (text, fields) in folded.items():
        f = Folded(text, fields)
        f.bind(namespace)
        namespace[name_] = f
    exec(code, namespace)           # our own translator's output
    return namespace["semantic"]


def _compiled(source: str, name: str) -> tuple:
    """(code object of `source` with its expressions of instruction-word fields folded
    (emu/fold.py), {name: (expression, [fields])} of the folded ones)."""
    folded_source, made = fold(source)
    return compile(folded_source, f"<pseudocode {name}>", "exec"), {k: (f.text, f.fields) for k, f in made.items()}


# Fast path (off switch): atomics whose update is an integer MEM[ADDR] += DATA or -= DATA
# combine the lanes sharing an address into one access with the sum of their data, and give
# each lane the old value plus the sum of the lanes before it (what the rounds below give, in
# one semantic call instead of one per lane on the busiest address: a histogram or a counter
# every lane bumps). False: every atomic runs in rounds.
COMBINE_ATOMIC_SUMS = True      # see also EmuOptions.combine_atomic_sums (emu/options.py)
# (which update an atomic makes is a fact of the manual's code: isa.facts.atomic_update)

# Fast path (off switch): atomics whose update is an integer min / max (u, i, 32/64-bit) or a
# bitwise and / or / xor: associative and commutative, so the lanes sharing an address combine
# too: the first lane applies the reduction of its address's data, and each lane returns the
# old value reduced with the data of the lanes before it (a segmented scan in log2(lanes)
# passes). Float min/max are not combined (a NaN makes the order matter).
COMBINE_ATOMIC_REDUCTIONS = True      # see also EmuOptions.combine_atomic_reductions
_REDUCTIONS = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
               "xor": np.bitwise_xor}


def _integer_kind(type_: str) -> str | None:
    """'b', 'u' or 'i' for a memory word's integer type as written (b, u32, i64), else None (f32, bf16)."""
    base = type_.rstrip("0123456789")
    return base if base in ("b", "u", "i") else None


def reduction_of(update: tuple | None):
    """(numpy ufunc, signed) when an atomic's memory update (emu.facts.atomic_update: kind, type,
    ...) is an integer min/max or a bitwise and/or/xor of DATA, else None."""
    if update is None or update[0] not in _REDUCTIONS:
        return None
    integer = _integer_kind(update[1])
    if integer is None or (update[0] in ("min", "max")) != (integer in ("u", "i")):
        return None
    return _REDUCTIONS[update[0]], integer == "i"


def summing_sign(update: tuple | None) -> int:
    """+1 / -1 when an atomic's memory update (emu.facts.atomic_update) is an integer += / -= of
    DATA, else 0."""
    if update is None or update[0] not in ("add", "sub") or _integer_kind(update[1]) is None:
        return 0
    return 1 if update[0] == "add" else -1


def serialise_atomics(fn, sign: int = 0, nbytes: int = 4, reduction=None, aligned: str = "ADDR", reads=(),
                      swap: bool = False, exchange=None):
    """Run an atomic read-modify-write in rounds so that lanes sharing an address apply
    one after another in lane order (wave-major), as the memory system serialises them.
    sign: +1 / -1 for MEM += / -= DATA, which may combine lanes (COMBINE_ATOMIC_SUMS, and
    EmuOptions.combine_atomic_sums); reduction: (ufunc, signed) of reduction_of. An atomic of
    `nbytes` at an address that is not a multiple of nbytes is refused: lanes whose accesses
    overlap without sharing an address would not be serialised. `aligned` names the address
    operand checked: ADDR_BASE for the *_2ADDR forms, whose accesses lie at ADDR_BASE plus
    multiples of nbytes, and whose lanes are put in rounds by every word they touch (found where
    the pseudocode accesses memory: emu/atomic_words.py; exchanges whose lanes share both
    elements or none in one pass, EmuOptions.one_pass_exchanges), not by ADDR. reads: the inputs the
    semantic reads (an atomic of one address per
    lane that neither combines runs as emu/atomic_scan.py's scan, switch
    EmuOptions.scan_atomics); swap: its pseudocode is a swap (atomic_scan.swap_of), which the
    scan does in one pass; exchange: an integer compare-and-swap's operands
    (atomic_scan.cmpswap_of), which it does per success. A buffer atomic's lanes outside the
    buffer's range (which read 0 and write nothing) run apart, the others as atomics on global
    memory (EmuOptions.buffer_atomics_in_range)."""
    # with the first atomic: a launch without one loads none of these
    from . import atomic_observed, atomic_scan, atomic_words
    # the scan finds each word where round 0's pseudocode accesses it: one address per lane
    # (not the *_2ADDR forms)
    from .buffer import BufferMemory    # (with the first atomic's semantic: most kernels have none)
    scannable = nbytes in (4, 8) and aligned == "ADDR" and "ADDR_BASE" not in reads
    # the *_2ADDR forms: lanes conflict wherever any of their words meet, not only at one ADDR
    several_addresses = aligned != "ADDR"
    def run(ctx: Ctx):
        addr = np.broadcast_to(np.asarray(ctx.get("ADDR")), ctx.shape).astype(np.uint64)
        if nbytes > 1:
            _refuse_misaligned(ctx, nbytes, addr if aligned == "ADDR" else
                               np.broadcast_to(np.asarray(ctx.get(aligned)), ctx.shape).astype(np.uint64))
        with atomic_observed.observed_once(fn, ctx):        # timing: every active lane's addresses, once
            if isinstance(ctx.mem, BufferMemory) and current().buffer_atomics_in_range:
                return _in_range_apart(fn, grouped, rounds, ctx, addr, nbytes)
            return grouped(ctx, addr)

    def grouped(ctx: Ctx, addr: np.ndarray):
        if several_addresses:
            if current().one_pass_exchanges:
                out = atomic_words.one_pass_exchange(fn, ctx)
                if out is not None:
                    return out
            return rounds(ctx)
        if _in_apertures(ctx.mem, addr) and not current().flat_aperture_atomics:
            return rounds(ctx)          # by flat address: lanes of two regions never share a round's word
        words, pos, first = _grouping(ctx, addr, by_word=True)
        if words is None:               # a lane in the aperture of a segment the kernel lacks: rounds fault
            return rounds(ctx)
        flat_addr = words.reshape(-1)
        if first.all():
            return fn(ctx)
        if sign and COMBINE_ATOMIC_SUMS and current().combine_atomic_sums and not isinstance(ctx.mem, BufferMemory):
            # (a buffer's range check is per lane: lanes out of range return 0 and add nothing;
            # _in_range_apart takes them out first)
            out = _combined_sum(fn, ctx, pos, flat_addr, sign)
            if out is not None:
                return out
        if reduction is not None and COMBINE_ATOMIC_REDUCTIONS and current().combine_atomic_reductions \
                and not isinstance(ctx.mem, BufferMemory):
            out = _combined_reduction(fn, ctx, pos, flat_addr, *reduction)
            if out is not None:
                return out
        if scannable and current().scan_atomics and _scans(ctx.mem, addr):     # (addr: the lanes' own)
            # waves differing in MODE or STATUS: each depth's pass split by them (scan_mixed_modes)
            if current().scan_mixed_modes or (_uniform(ctx.mode) is not None and _uniform(ctx.status) is not None):
                out = atomic_scan.scan(fn, ctx, pos, first, nbytes, reads, swap, exchange)
                if out is not None:
                    return out
        return rounds(ctx, pos, first)

    def rounds(ctx: Ctx, pos=None, first=None):
        if several_addresses:       # each lane after every earlier lane sharing a word with it
            rank = atomic_words.lane_order_rounds(ctx, *atomic_words.touched_words(fn, ctx))
            if rank.max() <= 0:     # no word shared: one call
                return fn(ctx)
        else:
            if pos is None:
                _, pos, first = _grouping(ctx, np.broadcast_to(np.asarray(ctx.get("ADDR")), ctx.shape).astype(np.uint64))
            # rank of each active lane among the active lanes with its address; -1 inactive
            flat_size = ctx.shape[0] * ctx.shape[1]
            index = np.arange(pos.size)
            flat_rank = np.full(flat_size, -1, np.int64)
            flat_rank[pos] = index - np.maximum.accumulate(np.where(first, index, 0))
            rank = flat_rank.reshape(ctx.shape)
            if rank.max() <= 0:     # no two active lanes share a word (or no lane is active): one call
                return fn(ctx)
        merged = None
        lanes = np.arange(ctx.shape[1], dtype=np.uint64)
        for r in range(int(rank.max()) + 1):
            sel = rank == r
            exec_r = np.bitwise_or.reduce(np.where(sel, np.uint64(1) << lanes, np.uint64(0)), axis=1, keepdims=True)
            sub = ctx.derive(exec_mask=exec_r)     # not the parent's cached ctx.active
            out = fn(sub)
            if merged is None:
                merged = {k: np.array(np.broadcast_to(v, ctx.shape + np.shape(v)[2:])) for k, v in out.items()}
            else:
                for k, v in out.items():
                    m = sel.reshape(sel.shape + (1,) * (np.ndim(v) - 2))
                    merged[k] = np.where(m, v, merged[k])
        return merged
    return run


def _refuse_misaligned(ctx: Ctx, nbytes: int, checked: np.ndarray) -> None:
    """RefusedBeforeAccess when an active lane's address in `checked` ((W, L) uint64) is not a
    multiple of nbytes."""
    misaligned = checked & np.uint64(nbytes - 1) if nbytes & (nbytes - 1) == 0 else checked % np.uint64(nbytes)
    odd = ctx.active & (misaligned != 0)
    if odd.any():
        w, lane = (int(i) for i in np.argwhere(odd)[0])
        raise RefusedBeforeAccess(f"a {nbytes}-byte atomic at address 0x{int(checked[w, lane]):x} (lane {lane}), "
                                  f"not a multiple of {nbytes}: misaligned atomics are not modelled")


def _grouping(ctx: Ctx, addr: np.ndarray, by_word: bool = False):
    """(each lane's word as uint64 (W, L): its ADDR `addr`, plus its work-group's region base in
    the LDS, where the same offset in two work-groups is two words; the active lanes' flat
    indices grouped by word, in lane order (wave-major) within a word; where each word's lanes
    start). A FLAT access's flat address is its word in global memory; in the LDS and scratch
    apertures (by_word, switch EmuOptions.flat_aperture_atomics) its word is FlatMemory.word_keys',
    a key per (space, region, address), and (None, None, None) when a lane lies in the aperture
    of a segment the kernel lacks. Without by_word a flat address is one word whatever its
    region: lanes of two work-groups (or two lanes' scratch) at one flat address go to separate
    rounds, which is sound, only slower."""
    if isinstance(ctx.mem, RegionMemory):
        addr = addr + np.broadcast_to(ctx.mem.base, ctx.shape).astype(np.uint64)
    elif by_word and _in_apertures(ctx.mem, addr):
        addr = ctx.mem.word_keys(addr, ctx.active)
        if addr is None:
            return None, None, None
    flat_addr = addr.reshape(-1)
    pos = np.flatnonzero(ctx.active.reshape(-1))
    pos = pos[_group_order(flat_addr[pos])]
    sorted_addr = flat_addr[pos]
    return addr, pos, np.r_[True, sorted_addr[1:] != sorted_addr[:-1]]


def _in_range_apart(fn, grouped, rounds, ctx: Ctx, addr: np.ndarray, nbytes: int):
    """A buffer atomic (EmuOptions.buffer_atomics_in_range): its lanes outside the buffer's
    range read 0 and write nothing, so they run on their own, in one call (the buffer drops
    their accesses); the rest, in range, are atomics on global memory (`grouped`: combined or
    scanned). A memory fault of those reruns the whole batch in `rounds`, which name the lane
    the reference names (nothing was written: each word is read before any is written)."""
    if _grouping(ctx, addr)[2].all():           # no two lanes share an address: one call
        return fn(ctx)
    mem = ctx.mem
    inside = ctx.active & mem.in_range(addr, nbytes)
    outside = ctx.active & ~inside
    parts = []
    if outside.any():
        parts.append((outside, fn(ctx.derive(exec_mask=_exec_of(outside)))))
    if inside.any():
        try:
            parts.append((inside, grouped(ctx.derive(exec_mask=_exec_of(inside), mem=mem.device), addr)))
        except MemoryFault:
            return rounds(ctx)
    if len(parts) == 1:
        return parts[0][1]
    (here, out), (_, other) = parts
    merged = dict(other)
    for k, v in out.items():
        if k in other:
            v, w = np.asarray(v), np.asarray(other[k])
            trail = max(v.ndim, w.ndim) - 2
            merged[k] = np.where(here.reshape(here.shape + (1,) * trail), v, w)
        else:
            merged[k] = v
    return merged


def _exec_of(lanes: np.ndarray) -> np.ndarray:
    """The EXEC mask ((W, 1) uint64) of a (W, L) bool array of lanes."""
    bits = np.uint64(1) << np.arange(lanes.shape[1], dtype=np.uint64)
    return np.bitwise_or.reduce(np.where(lanes, bits, np.uint64(0)), axis=1, keepdims=True)


def _in_apertures(mem, addr: np.ndarray) -> bool:
    """Whether `mem` is FLAT's and some lane's address may lie in the LDS or scratch aperture
    (not every address below both: FlatMemory.global_only)."""
    return type(mem) is FlatMemory and not mem.global_only(addr)


def _scans(mem, addr: np.ndarray) -> bool:
    """Whether the scan may group lanes by word and reach each word with one access: global
    memory, the LDS, and FLAT (below the apertures, or in them grouped by word_keys: switch
    EmuOptions.flat_aperture_atomics); not through a buffer's range check, which drops lanes
    one by one (_in_range_apart gives the scan the lanes in range, on global memory)."""
    if type(mem) is FlatMemory:
        return mem.global_only(addr) or current().flat_aperture_atomics
    return type(mem) is DeviceMemory or type(mem) is RegionMemory


def _group_order(addr: np.ndarray) -> np.ndarray:
    """The stable order of addr by value (lanes of one address keep their order). Addresses
    within 64 KiB of the lowest (a histogram's bins, an LDS array) sort by their 16-bit offset,
    which numpy sorts by radix in one pass; switch: EmuOptions.atomic_radix_grouping."""
    if addr.size > 1 and current().atomic_radix_grouping:
        offset = addr - addr.min()
        if offset.max() < 1 << 16:
            return np.argsort(offset.astype(np.uint16), kind="stable")
    return np.argsort(addr, kind="stable")


def _combined_sum(fn, ctx: Ctx, pos: np.ndarray, flat_addr: np.ndarray, sign: int):
    """MEM[a] +=/-= DATA for every active lane at once: one lane per address (the first in
    lane order) applies the sum of its address's data; lane k of an address returns the old
    value +/- the data of the lanes before it. pos: the active lanes' flat indices sorted by
    address, then lane. None when the semantic writes more than RETURN_DATA (use rounds)."""
    addr = flat_addr[pos]
    first = np.r_[True, addr[1:] != addr[:-1]]
    starts = np.flatnonzero(first)
    segment = np.cumsum(first) - 1
    data = np.broadcast_to(np.asarray(ctx.get("DATA")), ctx.shape).reshape(-1)
    d = data[pos].astype(np.uint64)                 # modular sums: uint64 wraps like u32/u64 adds
    with np.errstate(over="ignore"):
        before = np.cumsum(d) - d                   # the data of every earlier lane in this order
        before = before - before[starts][segment]   # ... of this address only
        total = np.add.reduceat(d, starts)
    old = _apply_leaders(fn, ctx, pos[starts], flat_addr, total.astype(data.dtype, copy=False))
    if old is None:
        return None
    ret, dtype = old
    with np.errstate(over="ignore"):
        step = before if sign > 0 else np.uint64(0) - before
        ret[pos] = (ret[pos[starts]][segment].astype(np.uint64) + step).astype(dtype)
    return {"RETURN_DATA": ret.reshape(ctx.shape)}


def _combined_reduction(fn, ctx: Ctx, pos: np.ndarray, flat_addr: np.ndarray, op, signed: bool):
    """MEM[a] = op(MEM[a], DATA) for every active lane at once (op associative and
    commutative): the first lane of each address (in lane order) applies op over its
    address's data; lane k returns op(old, data of the lanes before it). pos: the active
    lanes' flat indices sorted by address, then lane. None when the semantic writes more than
    RETURN_DATA (use rounds)."""
    addr = flat_addr[pos]
    first = np.r_[True, addr[1:] != addr[:-1]]
    starts = np.flatnonzero(first)
    start_of = starts[np.cumsum(first) - 1]         # each element's segment start
    data = np.broadcast_to(np.asarray(ctx.get("DATA")), ctx.shape).reshape(-1)
    view = {4: np.int32, 8: np.int64}[data.dtype.itemsize] if signed else data.dtype
    d = data[pos].view(view)
    total = op.reduceat(d, starts)
    # inclusive scan within each segment by doubling (Hillis-Steele): log2(longest) passes
    scan, n, k = d.copy(), len(d), 1
    index = np.arange(n)
    longest = int(np.diff(np.r_[starts, n]).max())
    while k < longest:
        reach = index[k:][index[k:] - k >= start_of[k:]]
        step = scan.copy()
        step[reach] = op(scan[reach], scan[reach - k])
        scan, k = step, k * 2
    old = _apply_leaders(fn, ctx, pos[starts], flat_addr, total.view(data.dtype))
    if old is None:
        return None
    ret, _ = old
    # the value before the address's first lane, at the data's width (and sign)
    mine = ret[pos[starts]].astype(data.dtype)[np.cumsum(first) - 1].view(view)
    before = np.r_[scan[:1], scan[:-1]]             # the scan up to the lane before (unused at starts)
    ret[pos] = np.where(first, mine, op(mine, before)).view(data.dtype)
    return {"RETURN_DATA": ret.reshape(ctx.shape)}


# Fast path (off switch): the one access per address of a combined atomic runs on a batch of
# its own holding only those lanes (a few waves), instead of on the whole batch (thousands of
# lanes) with every other lane masked off. Global memory only: LDS regions, FLAT apertures and
# buffer range checks are per wave or lane of the original batch.
COMPACT_ATOMIC_LEADERS = True      # see also EmuOptions.compact_atomic_leaders


def _apply_leaders(fn, ctx: Ctx, leaders: np.ndarray, flat_addr: np.ndarray, values: np.ndarray):
    """The atomic applied once by each lane of `leaders` (flat indices into the batch, one lane
    per address) with DATA = `values` (in that order). Returns (RETURN_DATA flattened to the
    batch, whose leader lanes hold the old values; its dtype), or None when the semantic writes
    more than RETURN_DATA."""
    if COMPACT_ATOMIC_LEADERS and current().compact_atomic_leaders and type(ctx.mem) is DeviceMemory:
        old = _apply_leaders_packed(fn, ctx, flat_addr[leaders], values)
        if old is not None:
            if old is _WRITES_MORE:
                return None
            ret = np.zeros(flat_addr.size, old.dtype)
            ret[leaders] = old
            return ret, old.dtype
    combined = np.zeros(flat_addr.size, values.dtype)
    combined[leaders] = values
    lanes = np.arange(ctx.shape[1], dtype=np.uint64)
    lead = np.zeros(flat_addr.size, bool)
    lead[leaders] = True
    lead = lead.reshape(ctx.shape)
    exec_lead = np.bitwise_or.reduce(np.where(lead, np.uint64(1) << lanes, np.uint64(0)), axis=1, keepdims=True)
    sub = ctx.derive(exec_mask=exec_lead)          # not the parent's cached ctx.active
    out = fn(sub.with_inputs({"DATA": combined.reshape(ctx.shape)}))
    if set(out) != {"RETURN_DATA"}:
        return None
    old = np.broadcast_to(np.asarray(out["RETURN_DATA"]), ctx.shape).reshape(-1)
    return np.array(old), old.dtype


_WRITES_MORE = object()


def _apply_leaders_packed(fn, ctx: Ctx, addr: np.ndarray, values: np.ndarray):
    """The leaders' accesses as a batch of their own: lane i of the packed batch is leader i
    (ADDR and DATA only; an atomic sum or reduction reads nothing else). The old values, in
    leader order; _WRITES_MORE; or None to run on the whole batch instead: MODE/STATUS differing
    between waves, another input asked for, or a memory fault (whose report must name the
    fault's wave and lane in the launch, which the whole batch does)."""
    n, lanes = addr.size, ctx.lanes
    mode, status = _uniform(ctx.mode), _uniform(ctx.status)
    if mode is None or status is None:
        return None
    waves = -(-n // lanes)
    packed_addr = np.zeros(waves * lanes, np.uint64)
    packed_addr[:n] = addr
    packed_data = np.zeros(waves * lanes, values.dtype)
    packed_data[:n] = values
    exec_mask = np.full((waves, 1), (1 << lanes) - 1, np.uint64)
    if n % lanes:
        exec_mask[-1, 0] = (1 << (n % lanes)) - 1
    sub = Ctx(lanes=lanes, exec_mask=exec_mask, mode=mode, status=status, mem=ctx.mem,
              inputs={"ADDR": packed_addr.reshape(waves, lanes), "DATA": packed_data.reshape(waves, lanes)})
    try:
        out = fn(sub)
    except (MemoryFault, SemanticsError):
        return None                                 # nothing was stored: loads come first
    if set(out) != {"RETURN_DATA"}:
        return _WRITES_MORE
    return np.broadcast_to(np.asarray(out["RETURN_DATA"]), (waves, lanes)).reshape(-1)[:n]


def _uniform(x):
    """x as one int when every wave holds the same value, else None."""
    if np.ndim(x) == 0:
        return x
    flat = np.asarray(x).reshape(-1)
    return int(flat[0]) if (flat == flat[0]).all() else None


def mix_source_modifiers(fn):
    """V_FMA_MIX*: NEG negates and NEG_HI takes the absolute value of each source after
    {OPSEL_HI[i], OPSEL[i]} picked it as f32 / low f16 / high f16 (manual 7.5, "VOP3P
    Instruction Fields"; the pseudocode leaves modifiers to that description). Applied to
    the raw source bits: the picked value's sign is bit 15 for a low f16, else bit 31."""
    def run(ctx: Ctx):
        opsel, opsel_hi, neg, abs_ = (int(ctx.get(k)) for k in ("OPSEL", "OPSEL_HI", "NEG", "NEG_HI"))
        inputs = {}
        for i in range(3):
            if not ((neg | abs_) >> i) & 1:
                continue
            low_f16 = (opsel_hi >> i) & 1 and not (opsel >> i) & 1
            sign = np.uint32(1 << (15 if low_f16 else 31))
            v = np.asarray(ctx.get(f"S{i}")).astype(np.uint32)
            if (abs_ >> i) & 1:
                v = v & ~sign
            if (neg >> i) & 1:
                v = v ^ sign
            inputs[f"S{i}"] = v
        return fn(ctx.with_inputs(inputs))
    return run


@dataclass
class Entry:
    semantic: Semantic | None
    status: str           # 'generated' | 'hand-written' | 'unsupported'
    reason: str = ""


class SemanticTable:
    """Semantics of one architecture. `get(instr_def)` -> Semantic or None. narrow=False
    translates without the uint32 statements (reference mode, emu/options.py)."""

    def __init__(self, arch: str, narrow: bool = True):
        self.narrow = narrow
        self.spec = families.load(arch)
        self.arch = self.spec.arch
        # keyed by the definition itself (InstrDef hashes by identity, and a key keeps its object
        # alive): a key made of some of its fields, such as (format, slot, opcode), would give two
        # definitions that agree on those fields one semantic (a VOPD half's code and the VOP2
        # instruction with its opcode); the integer-clamp variants apart
        self._entries: dict[isa.InstrDef, Entry] = {}
        self._saturating: dict[isa.InstrDef, Entry] = {}
        self._by_name: dict[str, Semantic | None] = {}      # lookup(mnemonic)
        self._cache = _shared_cache()

    def get(self, d: isa.InstrDef) -> Semantic | None:
        return self.entry(d).semantic

    def lookup(self, mnemonic: str) -> Semantic | None:
        """The semantic of an instruction by name (first encoding that has one). Kept per name:
        generated code calls other instructions by name on every step (v_max3_f32 ->
        V_MAX_F32), and the name's decoding costs more than the call."""
        known = self._by_name.get(mnemonic, _UNKNOWN)
        if known is _UNKNOWN:
            known = next((s for s in map(self.get, self.spec.lookup(mnemonic)) if s is not None), None)
            self._by_name[mnemonic] = known
        return known

    def entry(self, d: isa.InstrDef) -> Entry:
        got = self._entries.get(d)
        if got is None:
            got = self._entries[d] = self._build(d)
            self._cache.save()
        return got

    def entries(self):
        out = [(d, self.entry(d)) for d in self.spec.instructions]
        self._cache.save()
        return out

    def saturating(self, d: isa.InstrDef) -> Semantic | None:
        """The instruction with integer clamp (CLMP): the same pseudocode with every typed
        integer result of under 64 bits saturated to its type's range instead of wrapped
        (RDNA3 manual 7.2.3.1 and the VOP3P CLMP field: signed [min_int, max_int], unsigned
        [0, max_uint]); None when there is no generated semantic to derive it from."""
        got = self._saturating.get(d)
        if got is None:
            if self.entry(d).status != "generated" or not d.pcode:
                got = Entry(None, "unsupported", f"{d.name}: no generated semantic to saturate")
            else:
                got = self._generated(d, d.format in self.spec.traits.roles.scalar, saturate=True)
                self._cache.save()
            self._saturating[d] = got
        return got.semantic

    def _build(self, d: isa.InstrDef) -> Entry:
        if behaviour_unknown(d):        # operands known, effect not: no semantic may guess it
            return Entry(None, "unsupported", f"{d.name}: the manual does not describe what it does "
                                              f"(isa.errata.BEHAVIOUR_UNKNOWN)")
        if loads_scales(d):             # v_mfma_ld_scale_b32: no effect of its own (CDNA4 7.2)
            return Entry(None, "unsupported", f"{d.name}: the scales of the MFMA after it, which the machine "
                                              f"runs as one instruction with it (emu/dialect.py scaled_mfma)")
        scalar = d.format in self.spec.traits.roles.scalar
        hand = handwritten.semantic(d.name, scalar, self.spec, d)
        if hand is not None:
            return Entry(_with_float_modes(hand, d), "hand-written")
        plain = dword_form(self.spec, d)
        if plain is not None:
            # the manual describes only the address (saddr + offset + laneId * 4, computed by the
            # machine); the data movement is the plain dword load / store's
            e = self.entry(plain)
            if e.semantic is None:
                return Entry(None, "unsupported", f"{d.name}: {e.reason}")
            return Entry(dataclasses.replace(e.semantic, name=d.name, origin="hand-written",
                                             source=f"{plain.name} at ADDR = saddr + offset + laneId * 4"),
                         "hand-written")
        if d.format == "VOPD":      # a half performs its VOP1/VOP2 twin, or its own code where it has none
            base = vopd_base(self.spec, d)
            if base is not d:
                e = self.entry(base)
                return Entry(e.semantic, e.status, e.reason)
        if not d.pcode:
            return Entry(None, "unsupported", f"{d.name}: the manual gives no pseudocode")
        return self._generated(d, scalar)

    def _generated(self, d: isa.InstrDef, scalar: bool, saturate: bool = False) -> Entry:
        k = self._cache.key(d, scalar, saturate, self.narrow, self.spec)
        t = self._cache.get(k)
        if t is None:                       # absent, or a damaged cache file
            t = translate(d, scalar, saturate, self.narrow, self.spec)
            self._cache.put(k, t)
        if "error" in t:
            return Entry(None, "unsupported", t["error"])
        if "code" not in t:         # compiled once, kept with the translation
            code, folded = _compiled(t["source"], d.name)
            t = dict(t, code=code, folded=folded)
            self._cache.put(k, t)
        fn = compile_source(t["source"], d.name, self.arch, (t["code"], t["folded"]))
        if not saturate:        # the shortcuts compute the wrapping results only
            # the chains' callees found as the generated code finds them (INSTRUCTIONS below)
            fn = with_shortcut(d.name, fn, d, lambda name, arch=self.arch:
                               load_semantics(arch, narrow=current().narrow_uint32).lookup(name))
        if t["memory"] == "atomic" and not scalar:
            from .atomic_scan import cmpswap_of, swap_of
            update = atomic_update(d)
            two_addresses = "ADDR_BASE" in t["reads"]
            # *_2ADDR forms access ADDR_BASE + OFFSETn * size, each of DATA's size
            size = (t["reads"].get("DATA") if two_addresses else None) or t["writes"].get("RETURN_DATA") \
                or t["reads"].get("DATA") or [None, 32]
            fn = serialise_atomics(fn, summing_sign(update), max(1, min(size[1], 64) // 8),
                                   reduction_of(update), "ADDR_BASE" if two_addresses else "ADDR",
                                   tuple(t["reads"]), swap_of(update), cmpswap_of(update))
        if "OPSEL_HI" in t["reads"]:
            fn = mix_source_modifiers(fn)
        run = field_loads(d) if t["memory"] == "load" else None
        if run is not None:         # dword k from ADDR + 4k: one access (emu/dword_loads.py)
            fn = load_dword_runs(fn, d.name, *run)
        flushes, rounds, bit_results = float_rules(d)   # made with its MODE float rules (isa/float_modes.py)
        sem = Semantic(d.name, fn, "generated", _operands(t["reads"]), _operands(t["writes"]), scalar,
                       t["cross_lane"], t["branch"], t["memory"], None, d.pcode,
                       register_files=bool(register_files(d) & {"SGPR", "HW_REGISTERS"}),
                       flushes_denorms=flushes, rounds=rounds, bit_results=bit_results,
                       rounds_packed=rounds_packed(d),
                       directed=directed_code(t["source"]))
        return Entry(sem, "generated")


def _with_float_modes(sem: Semantic, d: isa.InstrDef) -> Semantic:
    """`sem` with the MODE float rules its pseudocode implies (isa/float_modes.py)."""
    flushes, rounds, bit_results = float_rules(d)
    if (flushes, rounds, bit_results) == (sem.flushes_denorms, sem.rounds, sem.bit_results):
        return sem
    return dataclasses.replace(sem, flushes_denorms=flushes, rounds=rounds, bit_results=bit_results)


@lru_cache(maxsize=None)
def load_semantics(arch: str, narrow: bool = True) -> SemanticTable:
    """The semantic table of a target or family ('gfx1100', 'rdna3', 'gfx1151', ...);
    narrow=False: generated without the uint32 statements (EmuOptions.narrow_uint32)."""
    return SemanticTable(arch, narrow)

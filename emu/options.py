"""The emulator's speed tricks, each with its off switch, in one place.

Every fast path in emu/ that computes something a plainer way could compute too is named
here by one bool; `REFERENCE` turns them all off, and the plain semantics must then give bit
for bit what the fast paths give (tests/test_emu_reference.py on the kernel corpus,
tests/test_emu_fuzz.py on random programs). A new fast path comes with its field here, in the
same commit, and the code takes the plain way when the field is False.

    Device("emu", reference=True)                       # every fast path off
    Device("emu", options=EmuOptions(narrow_uint32=False))
    WAVESMITH_EMU_REFERENCE=1                           # the default for Machines built without options
    WAVESMITH_EMU_OFF=split_addresses,fma_shortcuts     # ... or some switches off

The machine (emu/machine.py) holds its options and makes them `current()` while it runs, so
that code below it (memory, rtlib, the register file) asks `current()` rather than being
handed them through every call. Semantics called outside a machine run with `FAST`.
"""
from __future__ import annotations

import contextvars
import os
from dataclasses import fields, replace

from isa.records import dataclass


class OptionsError(ValueError):
    """An unknown switch name (WAVESMITH_EMU_OFF or options_from)."""


@dataclass(frozen=True)
class EmuOptions:
    """The emulator's switches: every speed trick (True: on) and the checks; REFERENCE turns every trick off."""
    # ---- machine: scheduling and register state
    batch_waves: bool = True          # every wave at a PC runs in one semantic call (off: one call per wave, in wave order)
    together: bool = True             # no PC search while every running wave sits at one PC; their issue count as one int
    reuse_state: bool = True          # a chunk reuses the last chunk's register files (Machine.spare_state)
    mapped_registers: bool = True     # a large register file is a mapping of its own: pages zeroed on a register's first write, the SGPR file in small pages (wave.register_file)
    write_marks: bool = True          # a reused state re-zeroes only registers marked written (off: every register)
    lazy_zeroing: bool = True         # stale VGPRs of a reused state zeroed before a read, skipped when overwritten whole
    keep_workitem_ids: bool = True    # v0's work-item ids kept by a reused state of the same launch shape
    uniform_sgprs: bool = True        # SGPRs every wave of a batch holds alike read as one (1, 1) value; the memo of such rows
    uniform_mode: bool = True         # MODE shared by every wave held as one int (rounding/flush decisions cached)
    direct_writes: bool = True        # whole 32-bit results computed straight into the destination register (Ctx.dest)
    pause_gc: bool = True             # Python's cyclic garbage collector paused while a launch runs
    age_prepared: bool = True         # ... and a launch that prepared instructions hands the objects it made to the collector's oldest generation (no young-generation pass over its preparations)
    quiet_imports: bool = True        # the collector's young-generation threshold raised while runtime imports its modules and the emulator's, restored after (read from the environment by runtime/__init__.py)
    exec_memo: bool = True            # a batch's EXEC, lane count and active lanes kept until EXEC is written
    compiled_steps: bool = True       # a plain instruction's step is one closure built on its first step (Chunk.compile_step)
    compiled_runs: bool = True        # consecutive plain steps up to a branch or event run by one generated call (emu/machine_runs.py)
    fused_runs: bool = True           # a run's integer moves/adds/carries/64-bit shifts and scalar adds/compares inline on locals, registers stored once (emu/machine_fuse.py)
    fused_memory: bool = True         # ... and a run's GLOBAL dword loads/stores through a VGPR pair on those locals, no store of the registers before them (emu/machine_fuse.py)
    run_code_cache: bool = True       # a run's generated function (plain or fused) compiled once: bytecode kept on disk by its text (emu/cache_folder.compiled)
    lean_semantics: bool = True       # a compiled step calls its semantic's function itself: shortcut chosen once, no MODE tests the batch's one MODE does not need
    compiled_pairs: bool = True       # a VOPD pair of plain halves is a compiled step too (both halves computed, then written)
    shared_active_lanes: bool = True  # a semantic's ctx.active is the machine's unpacked EXEC of the step (off: Ctx unpacks it again)
    wide_plain_steps: bool = True     # a together group wider than a plain step's one call runs it slice by slice in the run loop's fast path (no PC search, PC writes or per-step tests)
    uniform_branches: bool = True     # a branch every wave of a group takes alike (SCC, VCC, EXEC counted) moves the group's PC alone: no semantic, no PC write
    compact_waves: bool = True        # a looping batch of waves that are not contiguous is moved to the front of the state (its registers then views, not gathers)
    # ---- memory
    split_addresses: bool = True      # GLOBAL (SGPR base) and DS addresses kept as one base plus 32-bit offsets
    unit_stride_runs: bool = True     # a unit-stride access as a slice (loads: a lent read-only window of memory)
    stride_memo: bool = True          # the unit-stride verdict on an address register kept until it is written
    one_address_loads: bool = True    # a load of one address for the whole batch read once, with Python-int bounds
    bounds_by_extremes: bool = True   # bounds checked by min/max of the addresses (off: every lane looked up)
    masked_regions: bool = True       # LDS/scratch accesses of some lanes indexed like all-lane ones (bounds of the active lanes)
    all_lane_bounds: bool = True      # ... bounded by every lane's (kept) bounds and alignment when all pass, not the active lanes' again
    ds_address_memo: bool = True      # a DS address VGPR's bounds, alignment and LDS element indices kept until the VGPR is written
    plain_address_extremes: bool = True   # 64-bit address arrays in one allocation: min/max bounds, one gather/scatter (off: per-lane _check)
    flat_below_apertures: bool = True # a FLAT access whose every address lies below the LDS and scratch apertures goes straight to global memory
    scalar_load_steps: bool = True    # an SMEM dword-run load of one address for the batch read once with Python-int bounds, straight to its SGPR writer (emu/scalar_loads.py)
    dword_run_loads: bool = True      # a load of n dwords at ADDR + 4k from global memory as one access (emu/dword_loads.py)
    aligned_gathers: bool = True      # aligned accesses as one gather in the access's dtype (off: byte by byte)
    # ---- semantics (emu/rtlib.py, emu/semantics.py, emu/pcode/)
    narrow_uint32: bool = True        # the translator's uint32 statements (emu/pcode/narrow.py); other generated code
    fold_constants: bool = True       # expressions of instruction-word fields in generated code kept per field value (emu/fold.py)
    fma_shortcuts: bool = True        # f16/f32 fma: the exactness proof, midpoint-only repair, blocks (off: round to odd everywhere)
    fma64_transforms: bool = True     # f64 fma under a directed MODE.FP_ROUND: the exact error's sign by Dekker's product and TwoSum passes (off: exact rationals per lane; emu/rounding.py)
    dword_views: bool = True          # 64-bit joins/splits and dword fields through uint32/uint64 views (off: shifts and masks)
    shift_range_shortcuts: bool = True    # shifts and fields whose counts are in range skip the range guards
    denorm_checks: bool = True        # the denormal flush first asks whether any lane is zero or denormal
    blend_selects: bool = True        # a per-lane choice between two arrays of one dtype as branch-free bit blends, not numpy's where (rtlib.select)
    nan_by_dot: bool = True           # "any NaN?" of f32/f64 arrays as one dot product (the sum of squares is NaN only then; rtlib.any_nan)
    combine_atomic_sums: bool = True  # atomic += / -= of lanes sharing an address combined into one sum (emu/table.py)
    combine_atomic_reductions: bool = True    # atomic integer min/max, and/or/xor of lanes sharing an address combined (emu/table.py)
    atomic_radix_grouping: bool = True    # an atomic's lanes grouped by address with a 16-bit radix sort when they span < 64 KiB (emu/table.py)
    compact_atomic_leaders: bool = True   # a combined atomic's one access per address on a batch of just those lanes (emu/table.py)
    scan_atomics: bool = True         # other atomics (swap, cmpswap, inc/dec, float min/max/add, ...) of lanes sharing an address: one read and one write per address, the pseudocode per conflict depth on those words (emu/atomic_scan.py)
    one_pass_swaps: bool = True       # a scanned swap in one pass: each lane returns the data of the lane before it at its address, the last lane's data stays (emu/atomic_scan.py)
    one_pass_exchanges: bool = True   # a two-address exchange whose lanes share both elements or none: each lane returns what the lane before it stored, the last lane's data stays (emu/atomic_words.py)
    flat_aperture_atomics: bool = True    # a FLAT atomic with lanes in the LDS or scratch apertures grouped by the word each reaches (its work-group's LDS, its lane's scratch) and combined or scanned like global ones (off: rounds by flat address) (emu/table.py)
    buffer_atomics_in_range: bool = True  # a buffer atomic's out-of-range lanes (read 0, write nothing) run apart, its in-range ones combine or scan as atomics on global memory (emu/table.py)
    scan_mixed_modes: bool = True     # a scanned atomic whose batch's waves differ in MODE or STATUS: each conflict depth's pass split by the waves' (MODE, STATUS) (off: rounds) (emu/atomic_scan.py)
    cmpswap_successes: bool = True    # a scanned integer cmpswap in passes over its successful exchanges per address, not its conflict depth (emu/atomic_scan.py)
    minmax_shortcuts: bool = True     # v_min/max_f32 decided on the raw bits in a few passes (emu/shortcuts.py)
    minmax_ufuncs: bool = True        # ... NaN-free batches of them as numpy's minimum/maximum and a sign fix of zeros, one NaN test of the result (emu/shortcuts.py)
    minmax_same_operand: bool = True  # ... and of one register against itself (v_max_f32 v1, v0, v0), NaN-free: a copy of it (emu/shortcuts.py)
    mad64_shortcuts: bool = True      # v_mad_u64_u32 in uint64 with its carry, not 65-bit Python ints (emu/shortcuts.py)
    carry_shortcuts: bool = True      # v_add_co(_ci)_u32, s_add/sub(c/b)_u32/i32 as wrapping sums and compares (emu/shortcuts.py)
    shift64_shortcuts: bool = True    # v_lshlrev/lshrrev_b64, v_ashrrev_i64 as one uint64/int64 shift (emu/shortcuts.py)
    branch_shortcuts: bool = True     # s_branch, s_cbranch_scc0/1, vccz/nz, execz/nz: one compare and choice (emu/shortcuts.py)
    fact_cache: bool = True           # an instruction's signature, control, memory and effect facts kept on disk per instruction (emu/facts.py)
    program_cache: bool = True        # a code image's decoded instructions, their facts and translations read from one file per image (emu/program_cache.py)
    source_stamps: bool = True        # the digests of the sources naming the cache folders taken from a memo while every source stats the same (emu/cache_folder.py)

    def off(self) -> tuple[str, ...]:
        """Names of the switches that are off."""
        return tuple(f.name for f in fields(self) if not getattr(self, f.name))

    @property
    def reference(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))

    def __str__(self) -> str:
        off = self.off()
        return "reference (every fast path off)" if self.reference else \
            "fast" if not off else "fast without " + ", ".join(off)


FAST = EmuOptions()
REFERENCE = EmuOptions(**{f.name: False for f in fields(EmuOptions)})
SWITCHES = tuple(f.name for f in fields(EmuOptions))


def options_from(reference: bool = False, off=()) -> EmuOptions:
    """FAST or REFERENCE with the switches named in `off` turned off."""
    unknown = [name for name in off if name not in SWITCHES]
    if unknown:
        raise OptionsError(f"unknown emulator switch(es) {', '.join(unknown)}; the switches are: "
                           f"{', '.join(SWITCHES)}")
    return replace(REFERENCE if reference else FAST, **{name: False for name in off})


def from_environment() -> EmuOptions:
    """WAVESMITH_EMU_REFERENCE=1 (every fast path off) and WAVESMITH_EMU_OFF=name,name."""
    reference = os.environ.get("WAVESMITH_EMU_REFERENCE", "").strip() not in ("", "0")
    off = [name.strip() for name in os.environ.get("WAVESMITH_EMU_OFF", "").split(",") if name.strip()]
    return options_from(reference, off)


_CURRENT = contextvars.ContextVar("emu_options", default=FAST)


# current() -> EmuOptions: the options of the machine running now (FAST outside a machine run).
# The context variable's own get, not a function around it: it is asked on most steps.
current = _CURRENT.get


def activate(options: EmuOptions):
    """Make `options` current; returns the token for `deactivate`."""
    return _CURRENT.set(options)


def deactivate(token) -> None:
    _CURRENT.reset(token)

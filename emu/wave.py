"""Architectural state of every wave of a dispatch chunk, as numpy arrays indexed by wave.

Scalar registers are kept in one (128, waves) uint32 array indexed by the *operand code*
(RDNA3: 0-105 SGPRs, 106/107 VCC, 108-123 TTMP, 124 NULL, 125 M0, 126/127 EXEC; CDNA3:
0-101 SGPRs, 102/103 FLAT_SCRATCH, 104/105 XNACK_MASK, 124 M0, no NULL), so one
code-to-register rule serves every instruction. VGPRs are (vgprs, waves, lanes) so that
one register of a batch of waves is a (W, L) slab, contiguous when the batch is. A batch is selected by `sel`: a slice
when the waves are contiguous (views, no copies), else an index array.
"""
from __future__ import annotations

import mmap
import sys

import numpy as np

from isa import traits

from .families import FAMILIES
from .options import current

# The scalar operand codes every family the emulator runs agrees on (isa/traits.py), read
# from the first family's traits; Machine refuses a family whose codes differ (shares_codes:
# checked when its Spec is loaded, not here, where loading every family's tables would cost
# each process ~1 s). M0 and NULL differ between families (RDNA3 125/124, CDNA3 124/none):
# they are the family's traits' (WaveState.m0/null).
CODES = traits(FAMILIES[0])
VCC_LO, EXEC_LO, SCC_CODE = CODES.vcc_lo, CODES.exec_lo, CODES.scc
SCALAR_CODES = len(CODES.scalar_codes)      # rows of WaveState.sgpr
VGPR_BASE = CODES.vgpr_base                 # a source field's code of v0


def shares_codes(t) -> bool:
    """Does family traits `t` agree with the codes above (the rows every family has)?"""
    return (t.vcc_lo, t.exec_lo, t.scc, t.vgpr_base, len(t.scalar_codes)) == \
        (VCC_LO, EXEC_LO, SCC_CODE, VGPR_BASE, SCALAR_CODES)
RUNNING, AT_BARRIER, ENDED = 0, 1, 2
_LITTLE = sys.byteorder == "little"      # a uint64 in memory is its lo dword then its hi dword


def unpack_mask(mask: np.ndarray, lanes: int) -> np.ndarray:
    """uint64 (W, 1) lane masks -> bool (W, L), bit i = lane i."""
    w = np.ascontiguousarray(np.asarray(mask, np.uint64).reshape(-1, 1))
    if lanes % 8 == 0:      # the lanes' bytes only, the 0/1 bytes unpacked read as bools (no copy)
        return np.unpackbits(w.view(np.uint8).reshape(-1, 8)[:, :lanes >> 3], axis=1, bitorder="little").view(bool)
    bits = np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    return bits[:, :lanes].astype(bool)


def pack_mask(bits: np.ndarray) -> np.ndarray:
    """bool (W, L) -> uint64 (W, 1)."""
    bits = np.asarray(bits, bool)
    if bits.ndim == 2 and bits.shape[1] in (32, 64):   # whole bytes per wave: pack the flat array (8x faster than by rows)
        packed = np.packbits(np.ascontiguousarray(bits).reshape(-1), bitorder="little").reshape(len(bits), -1)
        return packed.view(np.uint64) if bits.shape[1] == 64 else packed.view(np.uint32).astype(np.uint64)
    packed = np.packbits(bits, axis=1, bitorder="little")          # (W, L/8)
    full = np.zeros((bits.shape[0], 8), np.uint8)
    full[:, :packed.shape[1]] = packed
    return full.view(np.uint64)


# the smallest register file held in a mapping of its own (register_file); a smaller one is an
# ordinary array (a mapping is whole pages, and a small file's pages are few)
MAPPED_BYTES = 1 << 20
_MAPS = hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MAP_ANONYMOUS") and hasattr(mmap.mmap, "madvise")


def register_file(shape: tuple, huge: bool) -> np.ndarray:
    """A zeroed uint32 register file. With EmuOptions.mapped_registers and at least
    MAPPED_BYTES: a private anonymous mapping of its own, whose pages the kernel supplies zeroed
    at a register's first write. numpy's zeros under the C allocator's mapping threshold (which
    grows to the largest block freed, up to 32 MiB) come from its heap instead: zeroed whole at
    once, every register the descriptor allocates, and taking the free heap that the launch's
    temporaries would reuse (a first launch then grows the heap for them). huge: advised into
    huge pages, as numpy advises its own arrays of 4 MiB and more (the VGPR file, whole
    registers read and written in long runs: on 4 KiB pages a warm launch is ~9% slower);
    else small pages (the SGPR file: 4 bytes per wave and row, ~20 of its 128 rows written,
    where a huge page would zero 2 MiB around each row written)."""
    nbytes = 4 * int(np.prod(shape))
    if not (_MAPS and current().mapped_registers and nbytes >= MAPPED_BYTES):
        return np.zeros(shape, np.uint32)
    try:
        region = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except OSError:         # no mapping to be had (address space, a limit): numpy's, or its MemoryError
        return np.zeros(shape, np.uint32)
    advice = getattr(mmap, "MADV_HUGEPAGE" if huge else "MADV_NOHUGEPAGE", None)
    if advice is not None:
        region.madvise(advice)
    return np.frombuffer(region, np.uint32).reshape(shape)      # the array keeps the mapping alive


class WaveState:
    def __init__(self, waves: int, lanes: int, vgprs: int, codes=CODES):
        """codes: the family's traits (M0 and NULL's operand codes)."""
        self.waves, self.lanes, self.vgprs = waves, lanes, vgprs
        self.m0, self.null = codes.m0, codes.null      # null: None where the family has no NULL
        self.sgpr = register_file((SCALAR_CODES, waves), huge=False)        # register-major, like the VGPRs
        # register-major: one register of all waves is contiguous
        self.vgpr = register_file((max(vgprs, 1), waves, lanes), huge=True)
        # registers written since they were last all zero, so that reset() re-zeroes only
        # those: code that writes self.sgpr / self.vgpr directly must mark them here too
        self.sgpr_written = WriteMarks.zeros(SCALAR_CODES)
        self.vgpr_written = WriteMarks.zeros(len(self.vgpr))
        # {SGPR row: (write count, value)}: rows known to hold one value in every wave (the
        # dispatcher's user SGPRs, rows read_sgprs found uniform), valid until written again
        self.uniform_sgprs: dict[int, tuple[int, int]] = {}
        # {(first row, dwords): (the rows' write counts, the read-only (1, 1) value read_sgprs
        # made of them)}: a loop's uniform operand is one look-up, not a new array per step
        self.uniform_values: dict = {}
        # (a batch's `sel`, {(first row, dwords): (the rows' write counts, the read-only (1, 1)
        # value)}): rows found uniform over the waves of the last batch that is not every wave
        # (a loop's waves once some have ended), kept while that batch runs
        self.batch_uniform: tuple = (None, {})
        # facts about VGPR contents, valid while the register's write count is unchanged:
        # {(register, first wave, end wave, write count, nbytes): unit-stride?} of the memory
        # (memory.SplitAddresses.memo): a load and a store through one address register
        # test it once
        self.stride_memo: dict = {}
        self.wave_ids = np.arange(waves)                  # 0 .. waves-1, for batches of every wave
        self.wave_group: tuple[int, np.ndarray] | None = None   # (waves per group, group of each wave)
        # the exception: launch.initial_state leaves v0's mark clear after writing the
        # work-item ids, and says here which launch shape they are for (None: v0 is zero
        # unless marked), so that a launch of that shape reusing this state keeps them
        self.v0_ids = None
        # VGPRs whose contents are left from the last launch (not zero, not marked written):
        # see reset(defer=True); code that reads st.vgpr directly outside the machine's steps
        # must zero them first (settle_vgprs)
        self.stale_vgprs: set[int] = set()
        self._reset_small()

    def reset(self, rewritten_vgprs: int = 0, rewritten_sgprs=(), defer: bool = False,
              everything: bool = False) -> "WaveState":
        """This state as a fresh one of the same shape: every register zero again, without
        new allocations (tens of MiB of register files for a large grid cost page faults
        when first written and again when freed). Only registers written since the last
        reset are cleared, except VGPRs below `rewritten_vgprs` and the SGPR codes in
        `rewritten_sgprs`, which the caller is about to overwrite in every wave and lane.
        defer: VGPRs to clear are left in `stale_vgprs` instead, for the machine to zero
        before an instruction reads them (or to skip when one overwrites them whole).
        everything: zero every register now, marked or not (EmuOptions.write_marks off)."""
        if everything:
            self.sgpr_written[:] = True
            self.vgpr_written[:] = True
            rewritten_vgprs, rewritten_sgprs, defer = 0, (), False
        if rewritten_vgprs == 0 and self.v0_ids is not None and not self.vgpr_written[0]:
            self.vgpr[0] = 0                # work-item ids left by a launch
        self.v0_ids = None
        self.stride_memo.clear()
        self.uniform_sgprs.clear()
        self.uniform_values.clear()
        self.batch_uniform = (None, {})
        for reg in np.flatnonzero(self.sgpr_written):
            if reg not in rewritten_sgprs:
                self.sgpr[reg] = 0
        self.sgpr_written[:] = False
        clear = self.stale_vgprs.union(np.flatnonzero(self.vgpr_written[rewritten_vgprs:]) + rewritten_vgprs)
        self.stale_vgprs = set()
        if defer:
            self.stale_vgprs = {int(reg) for reg in clear if reg >= rewritten_vgprs}
        else:
            for reg in clear:
                self.vgpr[reg] = 0
        self.vgpr_written[rewritten_vgprs:] = False
        for per_wave in (self.scc, self.pc, self.mode, self.status, self.issued):
            per_wave.fill(0)            # refilled in place: fresh arrays cost page faults
        self.run.fill(RUNNING)
        self.mode_uniform, self._hwreg = (0 if current().uniform_mode else None), None
        return self

    def _reset_small(self) -> None:
        """The per-wave state other than register files (a few bytes per wave); reset()
        refills the same arrays."""
        waves = self.waves
        self.scc = np.zeros((waves, 1), np.uint32)
        self.pc = np.zeros(waves, np.int64)
        self.mode = np.zeros((waves, 1), np.uint32)
        # MODE of every wave as one int while all hold the same (the dispatcher's value until a
        # wave writes MODE), else None: semantics then decide rounding and flushing once, not
        # per wave. Code that writes self.mode must call mode_changed().
        self.mode_uniform: int | None = 0
        self.status = np.zeros((waves, 1), np.uint32)
        self._hwreg: np.ndarray | None = None
        self.run = np.full(waves, RUNNING, np.int8)
        self.issued = np.zeros(waves, np.int64)          # instructions issued per wave (the budget)
        self.mask_dwords = self.lanes // 32

    def permute(self, order: np.ndarray) -> None:
        """Move the waves: position i takes what position order[i] held, in every register
        file and per-wave array (in place: the arrays stay the same objects). Facts kept per
        batch of waves (stride_memo, batch_uniform) are dropped; facts about every wave
        (uniform_sgprs, uniform_values, mode_uniform) hold still, as do the write marks: a
        register's contents move, none is written."""
        self.sgpr[:] = self.sgpr.take(order, 1)
        self.vgpr[:] = self.vgpr.take(order, 1)
        for per_wave in (self.scc, self.pc, self.mode, self.status, self.run, self.issued):
            per_wave[:] = per_wave.take(order, 0)
        if self._hwreg is not None:
            self._hwreg[:] = self._hwreg.take(order, 0)
        self.stride_memo.clear()
        self.batch_uniform = (None, {})

    def settle_vgprs(self, regs) -> None:
        """Zero the stale VGPRs among regs (all stale ones: regs=None)."""
        for reg in list(self.stale_vgprs) if regs is None else self.stale_vgprs.intersection(regs):
            self.vgpr[reg] = 0
            self.vgpr_written[reg] = False       # zero again (and counted as a write)
            self.stale_vgprs.discard(reg)

    def mode_changed(self) -> None:
        """Recompute mode_uniform after a write to self.mode (rare: s_setreg, s_round_mode, ...)."""
        first = self.mode[0, 0] if self.waves else 0
        self.mode_uniform = int(first) if (self.mode == first).all() and current().uniform_mode else None

    @property
    def hwreg(self) -> np.ndarray:
        """HW_REGISTERS other than MODE/STATUS (s_setreg/s_getreg): (waves, 64) uint32, made
        on first use (most kernels never touch them; zeroing 256 bytes per wave is not free)."""
        if self._hwreg is None:
            self._hwreg = np.zeros((self.waves, 64), np.uint32)
        return self._hwreg

    # ---------------------------------------------------------------- scalar registers
    def sreg(self, sel, code: int) -> np.ndarray:
        """One SGPR (by operand code) of every wave of the batch: uint32 (W, 1)."""
        row = self.sgpr[code]
        return (row[sel] if type(sel) is slice else row.take(sel))[:, None]

    def set_sreg(self, sel, code: int, value) -> None:
        self.sgpr[code, sel] = np.asarray(value).reshape(-1).astype(np.uint32)
        self.sgpr_written.mark(code)

    # ---------------------------------------------------------------- EXEC / VCC as wave masks
    def read_mask(self, sel, code: int) -> np.ndarray:
        """The lane mask in SGPR(s) starting at `code` (VCC, EXEC, an SGPR pair): uint64 (W, 1);
        one dword in wave32."""
        lo = self.sreg(sel, code).astype(np.uint64)
        if self.mask_dwords == 2:
            lo |= self.sreg(sel, code + 1).astype(np.uint64) << np.uint64(32)
        return lo

    def write_mask(self, sel, code: int, value: np.ndarray) -> None:
        if code == self.null:
            return
        value = np.asarray(value, np.uint64).reshape(-1, 1)
        self.set_sreg(sel, code, value & np.uint64(0xFFFFFFFF))
        if self.mask_dwords == 2:
            self.set_sreg(sel, code + 1, value >> np.uint64(32))

    def exec_mask(self, sel) -> np.ndarray:
        return self.read_mask(sel, EXEC_LO)

    # ---------------------------------------------------------------- register slabs
    def read_sgprs(self, sel, code: int, dwords: int, uniform: bool = False) -> np.ndarray:
        """dwords consecutive SGPRs as one value per wave: (W, 1) uint32 / uint64, or (W, 1, n).
        uniform: one value, (1, 1) or (1, 1, n), when every wave holds the same (one compare
        over the register-major rows instead of joining dwords for every wave)."""
        uniform = uniform and current().uniform_sgprs
        if code == self.null:
            shape = (1 if uniform else self._count(sel), 1) + ((dwords,) if dwords > 2 else ())
            return np.zeros(shape, np.uint64 if dwords == 2 else np.uint32)
        if dwords == 1 and not uniform:         # one row: a view (waves by slice) or a take, as a column
            row = self.sgpr[code]
            return (row[sel] if type(sel) is slice else row.take(sel))[:, None]
        if uniform:
            counts = self.sgpr_written.counts[code:code + dwords]
            kept = self.uniform_values.get((code, dwords))
            if kept is not None and kept[0] == counts:
                return kept[1]
            batch = self.batch_uniform
            if batch[0] is not sel:         # another batch: its own memo (the batch object is kept alive in it)
                batch = self.batch_uniform = (sel, {})
            kept = batch[1].get((code, dwords))
            if kept is not None and kept[0] == counts:
                return kept[1]
            known = self._uniform_values(code, dwords)
            if known is not None:
                value = join_dwords(np.array(known, np.uint32).reshape(1, 1, dwords), dwords)
                value.flags.writeable = False           # shared by the steps that read it
                self.uniform_values[(code, dwords)] = (counts, value)
                return value
        regs = self.sgpr[code:code + dwords, sel]              # (n, W)
        if uniform and regs.shape[1] > 1 and (regs == regs[:, :1]).all():
            regs = regs[:, :1]
            self.note_uniform(sel, code, regs[:, 0])
            value = join_dwords(regs.T[:, None, :], dwords)
            value.flags.writeable = False           # shared by this batch's steps that read the rows
            batch[1][(code, dwords)] = (counts, value)
            return value
        return join_dwords(regs.T[:, None, :], dwords)

    def note_uniform(self, sel, code: int, values) -> None:
        """Remember that SGPR rows code.. hold `values` (one per row) in every wave, if `sel`
        is every wave: until a row is written again (its write count changes)."""
        if isinstance(sel, slice) and sel == slice(0, self.waves) and current().uniform_sgprs:
            counts = self.sgpr_written.counts
            self.uniform_sgprs.update((code + i, (int(counts[code + i]), int(v))) for i, v in enumerate(values))

    def _uniform_values(self, code: int, dwords: int) -> list[int] | None:
        """The values of SGPR rows code.. if each is known to be uniform (uniform_sgprs)."""
        known, counts, values = self.uniform_sgprs, self.sgpr_written.counts, []
        for row in range(code, code + dwords):
            entry = known.get(row)
            if entry is None or entry[0] != counts[row]:
                return None
            values.append(entry[1])
        return values

    def write_sgprs(self, sel, code: int, dwords: int, value: np.ndarray) -> None:
        if code == self.null:
            return
        value = np.asarray(value)
        if dwords == 1 and value.ndim == 2 and value.dtype == np.uint32:     # one dword per wave: one assignment
            self.sgpr[code][sel] = value[:, 0]         # the row, then its waves: one scatter
            self.sgpr_written.mark(code)
            return
        self.sgpr[code:code + dwords, sel] = split_dwords(value, dwords)[:, 0, :].T
        self.sgpr_written.mark(code, dwords)

    def read_vgprs(self, sel, reg: int, dwords: int) -> np.ndarray:
        if type(sel) is not slice:      # waves by index: a gather (take: a quicker loop than [reg, sel])
            regs = self.vgpr[reg].take(sel, 0) if dwords == 1 else self.vgpr[reg:reg + dwords].take(sel, 1)
        else:
            regs = self.vgpr[reg, sel] if dwords == 1 else self.vgpr[reg:reg + dwords, sel]
        if dwords == 1:
            return regs
        return join_dwords(regs.transpose(1, 2, 0), dwords)    # (W, L, n)

    def write_vgprs(self, sel, reg: int, dwords: int, value: np.ndarray, active: np.ndarray | None) -> None:
        """Write (W, L) values (or (W, L, n)) to VGPRs reg.., only in `active` lanes (None: all)."""
        if dwords == 1 and active is None:      # the common case: one assignment (it casts as astype does)
            marks = self.vgpr_written           # WriteMarks.mark(reg), without the call
            marks.plain[reg] = True
            marks.counts[reg] += 1
            if type(sel) is slice:
                self.vgpr[reg, sel] = value
            else:                               # waves by index: a scatter into the register's (waves, lanes) rows
                self.vgpr[reg][sel] = value
            return
        if dwords == 1 and isinstance(sel, slice) and np.ndim(value) <= 2:
            # one register, some lanes off: a masked copy into the batch's view, cast as astype does
            self.vgpr_written.mark(reg)
            np.copyto(self.vgpr[reg, sel], value, casting="unsafe", where=active)
            return
        parts = split_dwords(value, dwords, self.lanes)                    # (W, L, n)
        self.vgpr_written.mark(reg, dwords)
        if active is None and parts.ndim == 3 and parts.shape[2] >= dwords:
            # every dword in one assignment (n, W, L); a wider result (WMMA's in wave64) keeps its first n
            self.vgpr[reg:reg + dwords, sel] = parts[..., :dwords].transpose(2, 0, 1)
            return
        for i in range(dwords):
            if active is None:
                self.vgpr[reg + i][sel] = parts[..., i]
            elif isinstance(sel, slice):        # a view: masked copy in place
                np.copyto(self.vgpr[reg + i, sel], parts[..., i], where=active)
            else:
                rows = self.vgpr[reg + i]
                rows[sel] = np.where(active, parts[..., i], rows.take(sel, 0))

    def _count(self, sel) -> int:
        return len(range(self.waves)[sel]) if isinstance(sel, slice) else len(sel)


class WriteMarks(np.ndarray):
    """bool per register: written since it was last all zero (what reset() clears). Every
    assignment also counts as a write of the registers it names (`counts`, a list of Python
    ints: one register's count moves in a list item, not a numpy one, on every write), so
    that a fact derived from a register's contents can be kept until the register is written
    again; code that writes registers directly sets the marks anyway (see WaveState)."""

    counts: list
    plain: np.ndarray       # the marks as a plain array: assigned through without this class's view machinery

    @classmethod
    def zeros(cls, n: int) -> "WriteMarks":
        marks = np.zeros(n, bool).view(cls)
        marks.counts = [0] * n
        marks.plain = marks.view(np.ndarray)
        return marks

    def mark(self, first: int, n: int = 1) -> None:
        """marks[first:first + n] = True, without __setitem__'s tests (the machine's writes)."""
        counts = self.counts
        if n == 1:
            self.plain[first] = True
            counts[first] += 1
            return
        self.plain[first:first + n] = True
        for i in range(first, first + n):
            counts[i] += 1

    def __setitem__(self, key, value):
        self.plain[key] = value
        counts = self.counts
        if type(key) is int:
            counts[key] += 1
            return
        for i in range(len(counts))[key] if type(key) is slice else set(np.arange(len(counts))[key].reshape(-1).tolist()):
            counts[i] += 1


def join_dwords(regs: np.ndarray, dwords: int) -> np.ndarray:
    """(..., n) uint32 -> uint32 (n=1), uint64 (n=2) or the (..., n) array itself (wider)."""
    if dwords == 1:
        return regs[..., 0]
    if dwords == 2:
        if _LITTLE and current().dword_views:     # the two dwords interleaved into one buffer read as uint64: two copies, no shifts
            pair = np.empty(regs.shape, np.uint32)
            pair[..., 0], pair[..., 1] = regs[..., 0], regs[..., 1]
            return pair.view(np.uint64)[..., 0]
        return regs[..., 0].astype(np.uint64) | (regs[..., 1].astype(np.uint64) << np.uint64(32))
    return regs


def split_dwords(value: np.ndarray, dwords: int, lanes: int | None = None) -> np.ndarray:
    """A value as (..., n) uint32 dwords: uint64 splits into lo/hi, (.., n) arrays pass through."""
    value = np.asarray(value)
    if dwords > 2 or (value.ndim == 3 and dwords > 1):
        return value.astype(np.uint32, copy=False)
    if dwords == 2:
        v = value.astype(np.uint64, copy=False)
        if _LITTLE and v.flags.c_contiguous and current().dword_views:    # a uint64's dwords are its own bytes: a view, no copy
            return v.view(np.uint32).reshape(v.shape + (2,))
        return np.stack([(v & np.uint64(0xFFFFFFFF)).astype(np.uint32), (v >> np.uint64(32)).astype(np.uint32)], -1)
    return value.astype(np.uint32, copy=False)[..., None]

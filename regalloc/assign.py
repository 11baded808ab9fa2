"""Virtual -> physical registers: VGPRs and SGPRs are separate files, each assigned by
walking the virtual registers in order of their first live point and giving each the lowest
register run where all of its dwords are free for their whole live ranges (on interval
graphs this order uses no more registers than the most values ever live at once; when
tuples or ranges with holes make it overshoot, other orders and small evictions are tried).
A register run must respect the operands' alignment, VOPD bank and parity pairings and
registers the program names itself; a plain move's destination first tries its source's
register, so the move becomes a no-op (coalescing)."""
from __future__ import annotations

import random

import numpy as np
from dataclasses import field

from isa.records import dataclass

from .groups import split_groups, split_webs
from .limits import RegisterLimits
from .liveness import Liveness, analyze
from .program import Program, Ref, blocks

FILE_NAMES = {"v": "VGPR", "s": "SGPR", "a": "AGPR"}


class RegisterPressureError(ValueError):
    """The program needs more registers than the file has: names the program point and the
    values live there; `.file` is 'v', 's' or 'a'."""
    file = "v"


class AllocationError(ValueError):
    """The program's register rules cannot be met (e.g. contradictory alignments)."""


@dataclass
class Allocation:
    limits: RegisterLimits
    base: dict[int, int]                       # virtual id -> the physical register of its dword 0
    used: dict[str, int]                       # 'v' / 's' -> registers used (highest + 1)
    peak: dict[str, int]                       # 'v' / 's' -> most registers live at one point
    peak_at: dict[str, int]                    # 'v' / 's' -> instruction index of that point
    identity_copies: list[int] = field(default_factory=list)   # moves whose source and destination coincide
    # (virtual id, dword) -> physical register, for dwords not at base + dword: dwords that
    # no operand names together need not be adjacent (groups.py)
    # where that differs from base + dword: (virtual id, dword) -> register at the dword's
    # first reference, and (instruction, virtual id, dword) -> register at that instruction
    # (a value's separate live ranges may sit in different registers)
    moved: dict[tuple[int, int], int] = field(default_factory=dict)
    at: dict[tuple[int, int, int], int] = field(default_factory=dict)

    def register(self, vid: int, dword: int = 0, instr: int | None = None) -> int:
        """The physical register of dword `dword` of virtual `vid` at instruction `instr`
        (default: at the dword's first reference); the dwords an operand names together are
        always consecutive."""
        if instr is not None:
            r = self.at.get((instr, vid, dword))
            if r is not None:
                return r
        r = self.moved.get((vid, dword))
        return self.base[vid] + dword if r is None else r

    def physical(self, ref: Ref, instr: int | None = None) -> int:
        """The first physical register of `ref` as instruction `instr` names it."""
        return self.register(ref.reg, ref.offset, instr) if ref.virtual else ref.reg

    @property
    def vgprs(self) -> int:
        return self.used["v"]

    @property
    def sgprs(self) -> int:
        return self.used["s"]

    @property
    def agprs(self) -> int:
        """AGPRs used (highest + 1; 0 on targets without them)."""
        return self.used.get("a", 0)

    @property
    def accum_offset(self) -> int:
        """Where the AGPRs start in CDNA's unified VGPR/AGPR file (the descriptor's accum_offset)."""
        return self.limits.accum_offset(self.vgprs)

    @property
    def unified_vgprs(self) -> int:
        """Registers of the VGPR file a wave takes: VGPRs, then AGPRs from accum_offset."""
        return self.limits.unified_vgprs(self.vgprs, self.agprs)

    @property
    def waves_per_simd(self) -> int:
        return self.limits.waves_per_simd(self.vgprs, self.agprs)


class _Occupancy:
    """Which registers are taken at which program points: one bit per register in a row
    per point (numpy uint64 words), so the registers free over a value's whole live range
    come from one OR over its rows. Owners per register are kept for eviction."""

    CHUNK = 64       # points per row of the summary: long ranges OR summary rows, not points

    def __init__(self, registers: int, points: int):
        self.words = max(1, -(-registers // 64))
        self.bits = np.zeros((points + 1, self.words), np.uint64)
        self.summary = np.zeros((points // self.CHUNK + 2, self.words), np.uint64)
        self.owners: list[list] = [[] for _ in range(registers)]    # (owner, ranges) per register

    def blocked(self, ivs: list[tuple[int, int]]) -> int:
        """Registers taken somewhere in `ivs`, as a Python int bit mask."""
        acc = np.zeros(self.words, np.uint64)
        C = self.CHUNK
        for s, e in ivs:
            if e - s <= 2 * C:
                acc |= np.bitwise_or.reduce(self.bits[s:e], axis=0)
            else:
                c0, c1 = -(-s // C), e // C
                acc |= np.bitwise_or.reduce(self.bits[s:c0 * C], axis=0)
                acc |= np.bitwise_or.reduce(self.summary[c0:c1], axis=0)
                acc |= np.bitwise_or.reduce(self.bits[c1 * C:e], axis=0)
        return int.from_bytes(acc.tobytes(), "little")

    def blocked_runs(self, unit_ivs: list) -> int:
        """Bases b (bit b) where some dword o of a run cannot take register b + o."""
        out = 0
        for o, u in enumerate(unit_ivs):
            if u:
                out |= self.blocked(u) >> o
        return out

    def free(self, reg: int, ivs: list[tuple[int, int]]) -> bool:
        return not self.blocked(ivs) >> reg & 1

    def next_start(self, reg: int, point: int) -> int:
        """The first point from `point` on where the register is taken (a large number if none)."""
        col = (self.bits[point:, reg // 64] >> np.uint64(reg % 64)) & np.uint64(1)
        hit = np.flatnonzero(col)
        return point + int(hit[0]) if len(hit) else 1 << 40

    def _mark(self, reg: int, ivs, on: bool):
        bit = np.uint64(1 << (reg % 64))
        w, C = reg // 64, self.CHUNK
        for s, e in ivs:
            if on:
                self.bits[s:e, w] |= bit
                self.summary[s // C:(e - 1) // C + 1, w] |= bit
            else:
                self.bits[s:e, w] &= ~bit
                c0, c1 = s // C, (e - 1) // C + 1          # the summary rows [c0, c1) recomputed
                column = self.bits[c0 * C:c1 * C, w]
                self.summary[c0:c1, w] = np.bitwise_or.reduceat(column, np.arange(0, len(column), C))

    def take(self, reg: int, ivs: list[tuple[int, int]], owner: int | None = None):
        self._mark(reg, ivs, True)
        self.owners[reg].append((owner, ivs))

    def overlapping(self, reg: int, ivs: list[tuple[int, int]]) -> set:
        """Owners of the ranges on `reg` that overlap `ivs`."""
        out = set()
        for owner, theirs in self.owners[reg]:
            if any(a < e and s < b for a, b in theirs for s, e in ivs):
                out.add(owner)
        return out

    def release(self, reg: int, owner: int):
        keep = []
        for o, ivs in self.owners[reg]:
            if o == owner:
                self._mark(reg, ivs, False)
            else:
                keep.append((o, ivs))
        self.owners[reg] = keep


def _describe_live(prog: Program, lv: Liveness, point: int) -> str:
    units = set(lv.live_at(point))
    names = []
    for vid, first in lv.unit_of.items():
        vr = prog.virtuals[vid]
        n = sum(1 for o in range(vr.width) if first + o in units)
        if n:
            names.append(f"%{vr.name}" + (f" ({n} of {vr.width} dwords)" if vr.width > 1 else ""))
    phys = sorted(u - lv.phys_base for u in units if u >= lv.phys_base)
    names += [f"{lv.file}{r} (named by the program)" for r in phys]
    return ", ".join(names)


def _pressure_error(prog: Program, lv: Liveness, limit: int, what: str) -> RegisterPressureError:
    point = lv.peak_point
    err = RegisterPressureError(
        f"{what}: {lv.peak} {FILE_NAMES[lv.file]}s are live at {prog.where(point // 2)} "
        f"({'before it' if point % 2 == 0 else 'after it'}); the file has {limit}. "
        f"Live there: {_describe_live(prog, lv, point)}")
    err.file = lv.file          # 'v' or 's': which file ran out (the spiller's cue)
    return err


def _alignment(prog: Program, limits: RegisterLimits, file: str) -> dict[int, tuple[int, int]]:
    """virtual id -> (modulus, residue) its first register must satisfy."""
    need: dict[int, tuple[int, int]] = {}
    for i, ins in enumerate(prog.instrs):
        for r in ins.uses + ins.defs:
            if r.file != file or not r.virtual:
                continue
            a = limits.alignment(file, r.count)
            if a == 1:
                continue
            res = -r.offset % a
            m0, r0 = need.get(r.reg, (1, 0))
            big, small = ((a, res), (m0, r0)) if a >= m0 else ((m0, r0), (a, res))
            if big[1] % small[0] != small[1]:
                vr = prog.virtuals[r.reg]
                raise AllocationError(f"%{vr.name}: {prog.where(i)} needs dword {r.offset} of it {a}-aligned, "
                                      f"which contradicts another operand's alignment of it")
            need[r.reg] = big
    return need


class _Parity:
    """Union-find over virtual registers with the parity relation the VOPD destination and
    SRC2 rules (differ modulo 2) impose: once one member of a component has a register,
    every other member's parity follows. Choosing each member's register greedily without
    this can leave a value whose two partners have opposite parities (no register fits)."""

    def __init__(self):
        self.up: dict[int, int] = {}
        self.rel: dict[int, int] = {}        # parity of base(v) xor parity of base(up[v])

    def find(self, v: int) -> tuple[int, int]:
        rel = 0
        path = []
        while self.up.get(v, v) != v:
            path.append(v)
            rel ^= self.rel[v]
            v = self.up[v]
        root, acc = v, rel
        for x in path:               # compress
            r = self.rel[x]
            self.up[x], self.rel[x] = root, acc
            acc ^= r
        return root, rel

    def differ(self, a: int, b: int, flip: int) -> bool:
        """base(a) + base(b) + flip must be odd; False if that contradicts earlier rules."""
        (ra, pa), (rb, pb) = self.find(a), self.find(b)
        want = 1 ^ flip
        if ra == rb:
            return (pa ^ pb) == want
        self.up[ra], self.rel[ra] = rb, pa ^ pb ^ want
        return True


def _rules(prog: Program, file: str):
    """Per virtual: pairing rules as (my offset, other ref, modulus), move partners as
    (my offset, other ref), and the parity components of the modulo-2 rules."""
    rules: dict[int, list[tuple[int, Ref, int]]] = {}
    hints: dict[int, list[tuple[int, Ref]]] = {}
    parity = _Parity()
    for i, ins in enumerate(prog.instrs):
        for a, b, m in ins.distinct_mod:
            if a.file != file:
                continue
            if a.virtual and b.virtual and a.reg == b.reg and (a.offset - b.offset) % m == 0:
                raise AllocationError(f"{prog.where(i)}: the same register is used where the rule needs two "
                                      f"registers that differ modulo {m} (VOPD banks)")
            for x, y in ((a, b), (b, a)):
                if x.virtual:
                    rules.setdefault(x.reg, []).append((x.offset, y, m))
            if m == 2 and a.virtual and b.virtual and not parity.differ(a.reg, b.reg, (a.offset + b.offset) & 1):
                raise AllocationError(f"{prog.where(i)}: the VOPD rules need registers of opposite parity "
                                      f"around an odd cycle of instructions; no assignment satisfies them")
        if ins.copy and ins.copy[0].file == file:
            d, s = ins.copy
            for x, y in ((d, s), (s, d)):
                if x.virtual:
                    hints.setdefault(x.reg, []).append((x.offset, y))
    return rules, hints, parity


def _residues(prog: Program, file: str, rules, parity: _Parity, align) -> dict[int, int] | None:
    """A residue modulo 4 for every virtual with pairing rules such that all rules hold
    (backtracking, most constrained first); None if there is none."""
    vids = sorted(rules, key=lambda v: -len(rules[v]))
    out: dict[int, int] = {}

    def fits(v: int, r: int) -> bool:
        mod, res = align.get(v, (1, 0))
        if mod > 1 and r % min(mod, 4) != res % min(mod, 4):
            return False
        for off, other, m in rules[v]:
            if not other.virtual:
                if (r + off - other.reg) % m == 0:
                    return False
            elif other.reg in out and (r + off - out[other.reg] - other.offset) % m == 0:
                return False
        return True

    def search(k: int) -> bool:
        if k == len(vids):
            return True
        v = vids[k]
        for r in range(4):
            if fits(v, r):
                out[v] = r
                if search(k + 1):
                    return True
                del out[v]
        return False

    return out if search(0) else None


def _assign_file(prog: Program, limits: RegisterLimits, file: str, base: dict[int, int],
                 lv: Liveness | None = None) -> Liveness:
    limit = limits.limit(file)
    lv = lv or analyze(prog, file, limit)
    if lv.peak > limit:
        raise _pressure_error(prog, lv, limit, f"the program needs more {FILE_NAMES[file]}s than there are")
    align = _alignment(prog, limits, file)
    rules, hints, parity = _rules(prog, file)
    # First fit in order of first live point is optimal for single registers with interval
    # live ranges; tuples (which need adjacent free registers) and ranges with holes can
    # leave it above the most values live at once. Other orders then often do better (all of
    # them on kernels up to a few thousand instructions, the first few on bigger ones: the
    # choice depends on the program only, so the result is reproducible).
    tries = STRATEGIES if len(prog.instrs) <= 4000 else STRATEGIES[:4]
    best, failure = None, None
    for forced in (None, "residues"):
        if forced == "residues":
            if best is not None or not rules:
                break
            # Greedy choices left a value with no register meeting its VOPD rules in every
            # order: fix every ruled value's register modulo 4 first, then place again.
            forced = _residues(prog, file, rules, parity, align)
            if forced is None:
                raise AllocationError("the VOPD register rules (banks and parities) of this program cannot all "
                                      "be met by any assignment") from None
        for strategy in tries:
            if best is not None and _top(best, prog, lv) <= lv.peak + 1:
                break
            try:
                other = _place(prog, lv, limit, file, dict(base), align, rules, hints, parity, forced, strategy)
            except RegisterPressureError as e:
                failure = failure or e
                continue
            if best is None or _top(other, prog, lv) < _top(best, prog, lv):
                best = other
    if best is None:
        raise failure
    base.update(best)
    return lv


JITTER = 64
SHUFFLES = 8
STRATEGIES = ("first_start", "best_fit", "aligned_tuples", "wide_first", "longest_first", "wide_longest_first") + \
    tuple(f"shuffle{i}" for i in range(SHUFFLES))


def _top(base: dict[int, int], prog: Program, lv: Liveness) -> int:
    """Registers used: highest virtual or live physical register + 1."""
    top = max((base[v] + prog.virtuals[v].width for v in lv.unit_of), default=0)
    phys = [r for r in range(len(lv.intervals) - lv.phys_base) if lv.intervals[lv.phys_base + r]]
    return max([top] + [r + 1 for r in phys])


def _place(prog, lv, limit, file, base, align, rules, hints, parity: _Parity, forced: dict[int, int] | None,
           strategy: str) -> dict[int, int]:
    """First-fit placement of every virtual of `lv`'s file in an order set by `strategy`;
    returns `base` with them added."""
    ivs = lv.intervals
    occ = _Occupancy(len(ivs) - lv.phys_base, 2 * len(prog.instrs) + 2)
    for r in range(len(ivs) - lv.phys_base):
        if ivs[lv.phys_base + r]:
            occ.take(r, ivs[lv.phys_base + r])
    comp_parity: dict[int, int] = {}          # parity component root -> parity of the root's base
    used_top = max((r + 1 for r in range(len(ivs) - lv.phys_base) if ivs[lv.phys_base + r]), default=0)
    target = min(lv.peak + 1, limit)          # registers first fit should stay within
    info: dict[int, tuple] = {}               # placed virtual -> (width, unit ranges, modulus, residue)

    def first_reg(ref: Ref) -> int | None:
        if not ref.virtual:
            return ref.reg
        b = base.get(ref.reg)
        return None if b is None else b + ref.offset

    order = []
    for vid, first in lv.unit_of.items():
        width = prog.virtuals[vid].width
        unit_ivs = [ivs[first + o] for o in range(width)]
        start = min((x[0][0] for x in unit_ivs if x), default=None)
        order.append((start if start is not None else -1, -width, vid, unit_ivs))
    if strategy == "longest_first":
        span = {vid: sum(e - s for x in u for s, e in x) for _, _, vid, u in order}
        order.sort(key=lambda t: (-span[t[2]], t[0], t[2]))
    elif strategy == "wide_longest_first":
        span = {vid: sum(e - s for x in u for s, e in x) / len(u) for _, _, vid, u in order}
        order.sort(key=lambda t: (t[1], -span[t[2]], t[0], t[2]))
    elif strategy.startswith("shuffle"):
        rng = random.Random(strategy)
        jitter = {vid: rng.random() for _, _, vid, _ in order}
        order.sort(key=lambda t: (t[0] + JITTER * jitter[t[2]], t[2]))
    elif strategy == "wide_first":
        order.sort(key=lambda t: (t[1] == -1, t[0], t[1], t[2]))
    else:
        order.sort(key=lambda t: (t[0], t[1], t[2]))

    for start, neg_width, vid, unit_ivs in order:
        width = -neg_width
        mod, res = align.get(vid, (1, 0))
        if strategy == "aligned_tuples" and width > 1 and mod == 1 and vid not in rules:
            mod = 2 if width == 2 else 4
        if forced is not None and vid in forced:
            step = max(mod, 4)
            res = next(r for r in range(step) if r % 4 == forced[vid] and r % mod == res)
            mod = step
        candidates = []
        for off, other in hints.get(vid, ()):
            r = first_reg(other)
            if r is not None and r - off >= 0 and (r - off) % mod == res:
                candidates.append(r - off)
        my_rules = rules.get(vid, ())
        root, rel = parity.find(vid) if my_rules else (None, 0)
        want_parity = comp_parity[root] ^ rel if root in comp_parity else None

        blocked = occ.blocked_runs(unit_ivs)

        def ok(b: int) -> bool:
            if b + width > limit or blocked >> b & 1:
                return False
            if want_parity is not None and b & 1 != want_parity:
                return False
            for off, other, m in my_rules:
                r = None if other.virtual and other.reg == vid else first_reg(other)   # same: checked above
                if r is not None and (b + off - r) % m == 0:
                    return False
            return True

        chosen = next((b for b in candidates if ok(b)), None)
        if chosen is None and strategy == "best_fit":
            # among registers already in use, the one free for the shortest time after this
            # value ends: long free stretches stay whole for values still to come
            end = max(x[-1][1] for x in unit_ivs if x) if start >= 0 else 0
            fits = [b for b in range(res, min(used_top, limit - width + 1), mod) if ok(b)]
            if fits:
                chosen = min(fits, key=lambda b: (occ.next_start(b, end), b))
        if chosen is None:
            chosen = next((b for b in _clear_bits(blocked, res, mod, limit - width + 1) if ok(b)), None)
        if (chosen is None or chosen + width > target) and not my_rules and start >= 0:
            moved = _evict_into(occ, base, info, vid, width, unit_ivs, mod, res, target, rules)
            if moved is not None:
                chosen = moved
        if chosen is None:
            point = start if start >= 0 else 0
            lv_at = Liveness(file, lv.unit_of, lv.phys_base, ivs, lv.peak, point)
            vr = prog.virtuals[vid]
            raise _pressure_error(prog, lv_at, limit,
                                  f"no free run of {width} {FILE_NAMES[file]}s"
                                  f"{f' aligned to {mod}' if mod > 1 else ''} for %{vr.name} from "
                                  f"{prog.where(point // 2)} on (most ever live: {lv.peak})")
        base[vid] = chosen
        info[vid] = (width, unit_ivs, mod, res)
        used_top = max(used_top, chosen + width)
        if root is not None and root not in comp_parity:
            comp_parity[root] = (chosen & 1) ^ rel
        for o, u in enumerate(unit_ivs):
            if u:
                occ.take(chosen + o, u, vid)
    return base


def _clear_bits(mask: int, res: int, mod: int, stop: int):
    """b = res, res + mod, ... below stop whose bit in `mask` is clear, lowest first."""
    free = ~mask & ((1 << stop) - 1)
    if mod > 1:
        pattern = 0
        for b in range(res, stop, mod):
            pattern |= 1 << b
        free &= pattern
    while free:
        low = free & -free
        yield low.bit_length() - 1
        free ^= low


def _evict_into(occ: _Occupancy, base, info, vid, width, unit_ivs, mod, res, target, rules) -> int | None:
    """Make room for `vid` below `target` (the most values live at once, + 1) by moving at
    most two already placed values without pairing rules to other free registers below
    `target`. The register run where that works, or None (nothing changed)."""
    for b in range(res, target - width + 1, mod):
        victims = set()
        for o, u in enumerate(unit_ivs):
            if u:
                victims |= occ.overlapping(b + o, u)
                if None in victims or len(victims) > 2 or victims & rules.keys():
                    break
        else:
            if not victims:
                return b
            for y in victims:
                wy, ivy, _, _ = info[y]
                for o in range(wy):
                    if ivy[o]:
                        occ.release(base[y] + o, y)
            for o, u in enumerate(unit_ivs):
                if u:
                    occ.take(b + o, u, vid)
            placed = {}
            for y in victims:
                wy, ivy, my, ry = info[y]
                # the lowest run whose every dword is free over y's ranges (one OR per dword)
                r = next(_clear_bits(occ.blocked_runs(ivy), ry, my, target - wy + 1), None)
                if r is None:
                    break
                placed[y] = r
                for o in range(wy):
                    if ivy[o]:
                        occ.take(r + o, ivy[o], y)
            if len(placed) == len(victims):
                for o, u in enumerate(unit_ivs):       # the caller takes vid's ranges again
                    if u:
                        occ.release(b + o, vid)
                base.update(placed)
                return b
            for y, r in placed.items():                # undo
                wy, ivy, _, _ = info[y]
                for o in range(wy):
                    if ivy[o]:
                        occ.release(r + o, y)
            for o, u in enumerate(unit_ivs):
                if u:
                    occ.release(b + o, vid)
            for y in victims:
                wy, ivy, _, _ = info[y]
                for o in range(wy):
                    if ivy[o]:
                        occ.take(base[y] + o, ivy[o], y)
    return None


def allocate(prog: Program, limits: RegisterLimits) -> Allocation:
    """Assign every virtual register of `prog` a physical register run: each group of
    dwords that operands name together, and each separate live range of a one-dword value,
    on its own (groups.py)."""
    grouped, where = split_groups(prog)
    spans, succs = blocks(grouped)
    web_of: dict[tuple[int, int], int] = {}
    liveness = {}
    for file in limits.files:
        grouped, liveness[file], webs = split_webs(grouped, analyze(grouped, file, limits.limit(file)), spans, succs)
        web_of.update(webs)
    final: dict[int, int] = {}
    used, peak, peak_at = {}, {}, {}
    for file in limits.files:
        lv = _assign_file(grouped, limits, file, final, liveness[file])
        peak[file] = lv.peak
        peak_at[file] = max(lv.peak_point, 0) // 2
    for file in limits.files:
        top = 0
        for ins in grouped.instrs:
            for r in ins.uses + ins.defs:
                if r.file == file:
                    top = max(top, (final[r.reg] + r.offset if r.virtual else r.reg) + r.count)
        used[file] = top
    # where each original dword went: base + dword unless its group or live range moved it;
    # those at their first reference (moved) and at every instruction where that differs (at)
    base = {vid: final[where[(vid, 0)][0]] - where[(vid, 0)][1] for vid in range(len(prog.virtuals))}
    webbed = {gid for _, gid in web_of}
    affected = {vid for (vid, o), (gid, go) in where.items() if gid in webbed or gid != vid or go != o}
    moved: dict[tuple[int, int], int] = {}
    at: dict[tuple[int, int, int], int] = {}
    first: dict[tuple[int, int], int] = {}
    if affected:
        for i, ins in enumerate(prog.instrs):
            for r in ins.uses + ins.defs:
                if not r.virtual or r.reg not in affected:
                    continue
                for o in range(r.offset, r.offset + r.count):
                    gid, go = where[(r.reg, o)]
                    reg = final[web_of.get((i, gid), gid)] + go
                    if (r.reg, o) not in first:
                        first[(r.reg, o)] = reg
                    elif first[(r.reg, o)] != reg:
                        at[(i, r.reg, o)] = reg
        for vid in affected:
            if (vid, 0) in first:
                base[vid] = first[(vid, 0)]
        for (vid, o), reg in first.items():
            if base[vid] + o != reg:
                moved[(vid, o)] = reg
    alloc = Allocation(limits, base, used, peak, peak_at, moved=moved, at=at)
    alloc.identity_copies = [i for i, ins in enumerate(prog.instrs)
                             if ins.copy and alloc.physical(ins.copy[0], i) == alloc.physical(ins.copy[1], i)]
    return alloc

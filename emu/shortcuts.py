"""Shorter equivalents of a few generated semantics whose pseudocode costs many numpy passes
or Python-int arithmetic (off switches: EmuOptions.minmax_shortcuts, mad64_shortcuts,
carry_shortcuts, shift64_shortcuts, branch_shortcuts; off, the generated code runs).

V_MAD_U64_U32 (compiled kernels' address arithmetic): the pseudocode's 65-bit sum runs on Python ints
(object arrays); in uint64 the product of two 32-bit values is exact, the sum wraps and its
carry-out (D1) is `sum < S2`. V_ADD_CO_U32 / V_ADD_CO_CI_U32 (64-bit address additions, switch
carry_shortcuts): the pseudocode widens to 64 bits and compares with 2^32; in uint32 a sum
wraps exactly when it comes out below what was added to it. The scalar adds and subtracts
(S_ADD/SUB_I32, S_ADD/SUB_U32, S_ADDC/SUBB_U32: loop counters and 64-bit pointer arithmetic,
same switch) widen to 64 bits the same way: one uint32 or uint64 pass each, signed overflow
from the sign bits. V_LSHLREV/LSHRREV_B64, V_ASHRREV_I64 (address scaling; switch
shift64_shortcuts): one uint64 / int64 shift by S0[5:0], not the general shift's range guards.

S_BRANCH and S_CBRANCH_SCC0/SCC1/VCCZ/VCCNZ/EXECZ/EXECNZ (every loop's back edge; switch
branch_shortcuts): "if <condition> then PC = PC + signext(SIMM16.i16 * 16'4) + 4LL else
PC = PC + 4LL" (the same words in every family's manual) is one compare and one choice
between two uint64 sums, where the generated code predicates both assignments over a dozen
passes; SCC is 0 or 1, VCCZ / EXECZ are VCC == 0 / EXEC == 0 (the wave's mask, 32 bits in
wave32).

V_MIN_F32 / V_MAX_F32 (RDNA3 manual, VOP2 opcodes 15/16): the pseudocode classifies each
operand through 64'F widenings (signalling, quiet NaN), then compares with -0 < +0, in about
fifty small array operations. The same decisions on the raw uint32 bits take a handful: the
compare as float32 (denormals compare by value, as the f64 widening does), the NaN classes
from the bits (exponent all ones, mantissa non-zero; quiet = mantissa bit 22), and a
signalling NaN made quiet by setting bit 22 (what 32'F(cvtToQuietNAN(64'F(x))) gives: the
payload's top 22 bits and the sign are kept). The choices apply in the pseudocode's priority, which differs between families: RDNA3's
(IEEE mode: sNaN S0, sNaN S1, qNaN S1, qNaN S0, compare; otherwise NaN S1, NaN S0, compare: two
NaNs give S0) and CDNA's (IEEE mode: sNaN S0, sNaN S1; then NaN S0, NaN S1, compare: two NaNs
give S1). Which one an instruction follows is read from its pseudocode: the source its first NaN
test names (the first_nan_test fact, isa/code_facts.py).
An instruction whose whole pseudocode is `D0.f = v_X_f32(v_Y_f32(S0.f, S1.f), S2.f)`
(v_min3/max3/minmax/maxmin_f32: the call_chain fact) composes its callees' shortcuts on the raw bits (_chain) when
both callees take one, instead of two rtlib.call_instruction calls with their contexts and
widenings, each operand tested for NaNs once (the inner pick's answer tells the outer one whether
its first operand may be a NaN). Denormal flushing stays Semantic.execute's job (before and after the call) in both ways.
With EmuOptions.minmax_ufuncs a pick first takes numpy's minimum / maximum of the float32 values
(NaN wherever an operand is NaN, so one NaN test of the result serves both operands); a NaN-free
batch then needs only the sign fix of zeros (-0 < +0: _signed_zero_fix), one with a NaN takes the
compare-and-select above. A chain's picks each test their own result. With
EmuOptions.minmax_same_operand a pick of one register against itself (the same memory read
twice) is a copy of it when it holds no NaN.
tests/test_emu_shortcuts.py compares every pair of a set of special values with the generated
semantic in both IEEE modes; the fuzzer and the corpus compare with reference mode.
"""
from __future__ import annotations

import numpy as np

from .options import current
from .rtlib import any_nan, mode_field, take_dest

_ABS = np.uint32(0x7FFF_FFFF)
_INF = np.uint32(0x7F80_0000)
_QUIET = np.uint32(0x0040_0000)
_NEG_ZERO = np.uint32(0x8000_0000)
_ZERO = np.uint32(0)


def _choose_f32(ctx, x: np.ndarray, y: np.ndarray, smaller: bool, s0_nan_first: bool, nan: bool | None = None) -> np.ndarray:
    """v_min_f32 (smaller) or v_max_f32 of the raw uint32 bits x, y (the pseudocode's rules).
    nan: whether x or y holds a NaN, when the caller knows (_chain); None: tested here."""
    fx, fy = x.view(np.float32), y.view(np.float32)
    if current().minmax_same_operand and _same_bits(x, y):
        # v_max_f32 v1, v0, v0 (a compiler's canonicalisation): the compare leaves every NaN-free
        # lane equal, and x | x = x & x = x, so the pick is x itself
        if not (any_nan(fx) if nan is None else nan):
            return x.copy()
        nan = True
    if current().minmax_ufuncs:
        # numpy's minimum / maximum: NaN where either operand is one (so one NaN test of the
        # result answers for both), else the smaller / larger value; only among zeros of both
        # signs may its bits be the wrong zero, and the sign fix below is right in every lane
        picked = np.asarray((np.minimum if smaller else np.maximum)(fx, fy))
        if not (any_nan(picked) if nan is None else nan):
            return _signed_zero_fix(picked.view(np.uint32), x, y, smaller)
        nan = True
    # LT_NEG_ZERO / GT_NEG_ZERO: the compare, and among equal values (the same bits, or zeros
    # of both signs) the bits or-ed (-0 wins the min) or and-ed (+0 wins the max)
    if smaller:
        out = np.where(fx < fy, x, np.where(fx == fy, x | y, y))
    else:
        out = np.where(fx > fy, x, np.where(fx == fy, x & y, y))
    if not (_has_nan(fx, fy) if nan is None else nan):      # no NaN operand
        return out
    nan_x, nan_y = (x & _ABS) > _INF, (y & _ABS) > _INF
    ieee = mode_field(ctx, "IEEE")
    if s0_nan_first:    # the test applied last wins: S0's NaN (giving S1) is tested first
        plain = np.where(nan_x, y, np.where(nan_y, x, out))
    else:
        plain = np.where(nan_y, x, np.where(nan_x, y, out))
    if not np.any(ieee):
        return plain
    quiet_x, quiet_y = nan_x & ((x & _QUIET) != 0), nan_y & ((y & _QUIET) != 0)
    if s0_nan_first:
        strict = np.where(quiet_x, y, np.where(quiet_y, x, out))
    else:
        strict = np.where(quiet_y, x, np.where(quiet_x, y, out))
    strict = np.where(nan_y & ~quiet_y, y | _QUIET, strict)
    strict = np.where(nan_x & ~quiet_x, x | _QUIET, strict)
    return np.where(ieee != 0, strict, plain)


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether x and y are the same memory seen the same way (one register read twice)."""
    return x is y or (x.ndim == y.ndim and x.shape == y.shape and x.strides == y.strides and x.size > 0
                      and x.__array_interface__["data"][0] == y.__array_interface__["data"][0])


def _signed_zero_fix(picked: np.ndarray, x: np.ndarray, y: np.ndarray, smaller: bool) -> np.ndarray:
    """The pick of NaN-free x, y with -0 < +0 (LT_NEG_ZERO / GT_NEG_ZERO), from `picked`, the
    smaller (larger) value's bits by an IEEE compare (either zero where both are zeros), in place.
    min: the sign bit or-ed with both operands'. A negative minimum has it set already; a
    positive one has two positive operands (sign clear); a zero minimum has operands >= 0, of
    which only a -0 has its sign set, and -0 wins. max: the sign bit and-ed with both
    operands' (every other bit kept): a positive maximum's is clear already, a negative one has
    two negative operands, and a zero maximum of operands <= 0 is -0 only when both are."""
    if smaller:
        return np.bitwise_or(picked, (x | y) & _NEG_ZERO, out=picked)
    return np.bitwise_and(picked, (x & y) | _ABS, out=picked)


def _has_nan(*floats: np.ndarray) -> bool:
    return any(any_nan(f) for f in floats)


def _u32(ctx, name: str) -> np.ndarray:
    return np.asarray(ctx.get(name), np.uint32)


def _minmax_f32(smaller: bool, s0_nan_first: bool):
    def choose(ctx):
        return {"D0": _choose_f32(ctx, _u32(ctx, "S0"), _u32(ctx, "S1"), smaller, s0_nan_first)}
    choose.pick = lambda ctx, x, y, nan=None: _choose_f32(ctx, x, y, smaller, s0_nan_first, nan)     # for _chain
    return choose


def _minmax_f32_for(smaller: bool):
    """The shortcut for the NaN order the instruction's pseudocode gives (s0_nan_first: its first
    NaN test names S0, the first_nan_test fact)."""
    variants = {order: _minmax_f32(smaller, order) for order in (False, True)}
    return lambda s0_nan_first: variants[s0_nan_first]


# the call chains composed: "D0.f = v_max_f32(v_min_f32(S0.f, S1.f), S2.f)" (v_min3/max3/minmax/
# maxmin_f32; the call_chain fact), of f32 values
_CHAIN_TYPES = ("f", "f32")


def _chain(generated, semantic_of, outer: str, inner: str):
    """outer(inner(S0, S1), S2) on the raw bits when both callees take a shortcut with a
    `pick` (their own pseudocode's, see with_shortcut), else the generated function. The
    generated code calls the callees' functions as they are (no denormal flush between), so
    composing their picks gives the same bits, without two calls' contexts and widenings."""
    def run(ctx):           # the callees looked up on every call, as the generated code does
        pick_outer, pick_inner = (getattr(getattr(semantic_of(n), "fn", None), "pick", None) for n in (outer, inner))
        if pick_outer is None or pick_inner is None:
            return generated(ctx)
        s0, s1, s2 = _u32(ctx, "S0"), _u32(ctx, "S1"), _u32(ctx, "S2")
        if current().minmax_ufuncs:     # each pick tests its own result for NaNs (see _choose_f32)
            return {"D0": pick_outer(ctx, pick_inner(ctx, s0, s1), s2)}
        # one NaN test per operand: the inner pick of NaN-free operands is one of them (or two
        # equal zeros' bits and-ed / or-ed), so the outer one only needs S2's
        nan01 = _has_nan(s0.view(np.float32), s1.view(np.float32))
        first = pick_inner(ctx, s0, s1, nan01)
        return {"D0": pick_outer(ctx, first, s2, None if nan01 else _has_nan(s2.view(np.float32)))}
    return run


def _mad_u64_u32(ctx):
    """{ D1.u1, D0.u64 } = 65'B(65'U(S0.u) * 65'U(S1.u) + 65'U(S2.u64)): the 32 x 32-bit
    product is exact in uint64, the addition wraps modulo 2^64 and its carry is bit 64."""
    product = np.asarray(ctx.inputs["S0"], np.uint32).astype(np.uint64) * \
        np.asarray(ctx.inputs["S1"], np.uint32).astype(np.uint64)
    s2 = np.asarray(ctx.inputs["S2"], np.uint64)
    total = product + s2
    if "D1" in ctx.unused:          # a carry-out to NULL (the machine discards it)
        return {"D0": total}
    return {"D1": total < s2, "D0": total}


def _add_co_u32(ctx):
    """tmp = 64'U(S0.u) + 64'U(S1.u); VCC lane = tmp >= 2^32; D0 = tmp.u: the uint32 sum wraps
    exactly when it comes out below an addend."""
    s0 = np.asarray(ctx.inputs["S0"], np.uint32)
    if "VCC" in ctx.unused:         # a carry-out to NULL (the machine discards it): D0 alone, into its register
        # when the machine offers it (one elementwise pass: a source that is that register is read as it goes)
        return {"D0": np.add(s0, np.asarray(ctx.inputs["S1"], np.uint32), out=take_dest(ctx, "D0"), dtype=np.uint32)}
    dest = take_dest(ctx, "D0")
    if dest is not None and np.may_share_memory(dest, s0):
        dest = None         # the carry is read against S0 after the sum: S0 must not be overwritten
    total = np.add(s0, np.asarray(ctx.inputs["S1"], np.uint32), out=dest, dtype=np.uint32)
    return {"VCC": total < s0, "D0": total}


def _add_co_ci_u32(ctx):
    """tmp = 64'U(S0.u) + 64'U(S1.u) + VCC.u64[laneId]: two wrapping uint32 additions, each
    carrying out where its sum comes out below what it added to."""
    s0 = np.asarray(ctx.inputs["S0"], np.uint32)
    vcc = np.asarray(ctx.inputs["VCC"], np.uint64)
    if vcc.ndim == 2 and vcc.shape[1] == 1:     # one mask per wave: its bytes unpacked, bit i = lane i (0/1 uint8)
        carry_in = np.unpackbits(np.ascontiguousarray(vcc).view(np.uint8), axis=1, bitorder="little")[:, :ctx.lanes]
    else:
        carry_in = ((vcc >> ctx.lane_id.astype(np.uint64)) & np.uint64(1)).astype(np.uint32)
    partial = np.add(s0, np.asarray(ctx.inputs["S1"], np.uint32), dtype=np.uint32)
    if "VCC" in ctx.unused:         # a carry-out to NULL (the machine discards it): D0 alone, into its
        # register when the machine offers it (the sources were read into `partial` first)
        return {"D0": np.add(partial, carry_in, out=take_dest(ctx, "D0"), dtype=np.uint32)}
    total = partial + carry_in
    return {"VCC": (partial < s0) | (total < carry_in), "D0": total}


def _s_add_i32(ctx):
    """tmp = S0.i + S1.i; SCC = S0.u[31] == S1.u[31] && S0.u[31] != tmp.u[31] (signed overflow):
    the sum wraps in uint32, and overflow is both operands' sign bits differing from the sum's."""
    s0, s1 = _u32(ctx, "S0"), _u32(ctx, "S1")
    total = np.add(s0, s1, dtype=np.uint32)
    return {"SCC": ((s0 ^ total) & (s1 ^ total)) >> np.uint32(31), "D0": total}


def _s_sub_i32(ctx):
    """tmp = S0.i - S1.i; SCC = S0.u[31] != S1.u[31] && S0.u[31] != tmp.u[31]."""
    s0, s1 = _u32(ctx, "S0"), _u32(ctx, "S1")
    diff = np.subtract(s0, s1, dtype=np.uint32)
    return {"SCC": ((s0 ^ s1) & (s0 ^ diff)) >> np.uint32(31), "D0": diff}


def _s_add_u32(carry_in: bool):
    """tmp = 64'U(S0.u) + 64'U(S1.u) (+ SCC.u64); SCC = tmp >= 2^32; D0 = tmp.u: one uint64 sum."""
    def run(ctx):
        total = _u32(ctx, "S0").astype(np.uint64) + _u32(ctx, "S1")
        if carry_in:
            total = total + (_u32(ctx, "SCC") & np.uint32(1))      # SCC may be per wave where S0, S1 are constants
        return {"SCC": (total >> np.uint64(32)).astype(np.uint32), "D0": total.astype(np.uint32)}
    return run


def _s_sub_u32(borrow_in: bool):
    """tmp = S0.u - S1.u (- SCC.u); SCC = S1.u (+ SCC) > S0.u (borrow out); D0 = tmp.u."""
    def run(ctx):
        s0, s1 = _u32(ctx, "S0"), _u32(ctx, "S1")
        taken = s1.astype(np.uint64)
        if borrow_in:
            taken = taken + (_u32(ctx, "SCC") & np.uint32(1))
        return {"SCC": (taken > s0).astype(np.uint32), "D0": (s0.astype(np.uint64) - taken).astype(np.uint32)}
    return run


def _shift64(arithmetic: bool, left: bool):
    """D0.u64 = S1.u64 << S0[5:0] (or >>, arithmetic on S1.i64): one uint64 / int64 shift."""
    def run(ctx):
        count = np.asarray(ctx.get("S0")).astype(np.uint64) & np.uint64(63)
        value = np.asarray(ctx.get("S1"), np.uint64)
        if left:
            return {"D0": value << count}
        if arithmetic:
            return {"D0": (value.view(np.int64) >> count.astype(np.int64)).view(np.uint64)}
        return {"D0": value >> count}
    return run


def _branch(condition: str | None, taken_when_zero: bool = False):
    """PC = PC + signext(SIMM16.i16 * 4) + 4 where the condition holds, else PC + 4 (uint64,
    wrapping as the pseudocode's 64-bit sum does). condition: None (always), "SCC", "VCC" or
    "EXEC"; taken_when_zero: the branch is taken where that value is 0 (SCC0, VCCZ, EXECZ)."""
    def run(ctx):
        pc = np.asarray(ctx.get("PC"), np.uint64)
        simm16 = int(ctx.get("SIMM16")) & 0xFFFF
        jump = np.uint64((4 + 4 * (simm16 - ((simm16 & 0x8000) << 1))) & 0xFFFF_FFFF_FFFF_FFFF)
        if condition is None:
            return {"PC": pc + jump}
        value = ctx.exec_mask if condition == "EXEC" else ctx.get(condition)
        zero = np.asarray(value) == 0
        return {"PC": np.where(zero if taken_when_zero else ~zero, pc + jump, pc + np.uint64(4))}
    run.condition = (condition, taken_when_zero)
    return run


def branch_condition(name: str) -> tuple[str | None, bool] | None:
    """(what the branch tests: None (always taken), "SCC", "VCC" or "EXEC"; whether it is taken
    where that is 0) of a branch with a shortcut here, else None: the machine decides a batch
    whose waves all go one way without the semantic (EmuOptions.uniform_branches)."""
    entry = SHORTCUTS.get(name)
    return getattr(entry[1], "condition", None) if entry is not None else None


# name -> (the EmuOptions switch, the shorter way); _PER_PCODE ones are built from the pseudocode
SHORTCUTS = {"V_MIN_F32": ("minmax_shortcuts", _minmax_f32_for(True)),
             "V_MAX_F32": ("minmax_shortcuts", _minmax_f32_for(False)),
             "V_MAD_U64_U32": ("mad64_shortcuts", _mad_u64_u32),
             "V_ADD_CO_U32": ("carry_shortcuts", _add_co_u32),
             "V_ADD_CO_CI_U32": ("carry_shortcuts", _add_co_ci_u32),
             "S_ADD_I32": ("carry_shortcuts", _s_add_i32),
             "S_SUB_I32": ("carry_shortcuts", _s_sub_i32),
             "S_ADD_U32": ("carry_shortcuts", _s_add_u32(False)),
             "S_ADDC_U32": ("carry_shortcuts", _s_add_u32(True)),
             "S_SUB_U32": ("carry_shortcuts", _s_sub_u32(False)),
             "S_SUBB_U32": ("carry_shortcuts", _s_sub_u32(True)),
             "V_LSHLREV_B64": ("shift64_shortcuts", _shift64(False, True)),
             "V_LSHRREV_B64": ("shift64_shortcuts", _shift64(False, False)),
             "V_ASHRREV_I64": ("shift64_shortcuts", _shift64(True, False)),
             "S_BRANCH": ("branch_shortcuts", _branch(None)),
             "S_CBRANCH_SCC0": ("branch_shortcuts", _branch("SCC", True)),
             "S_CBRANCH_SCC1": ("branch_shortcuts", _branch("SCC")),
             "S_CBRANCH_VCCZ": ("branch_shortcuts", _branch("VCC", True)),
             "S_CBRANCH_VCCNZ": ("branch_shortcuts", _branch("VCC")),
             "S_CBRANCH_EXECZ": ("branch_shortcuts", _branch("EXEC", True)),
             "S_CBRANCH_EXECNZ": ("branch_shortcuts", _branch("EXEC"))}

_PER_PCODE = ("V_MIN_F32", "V_MAX_F32")


def with_shortcut(name: str, fn, d=None, semantic_of=None):
    """fn, or a function taking SHORTCUTS[name]'s way while its EmuOptions switch is on. The
    instruction's facts (d: its isa InstrDef, emu/facts.py) choose the variant: v_min/max_f32's
    NaN order (first_nan_test); an instruction whose pseudocode chains two f32 calls (call_chain:
    (outer, inner, type)) composes the callees' shortcuts, looked up by `semantic_of(name)`
    (switch minmax_shortcuts)."""
    from .facts import call_chain, first_nan_test
    if name in SHORTCUTS:
        switch, short = SHORTCUTS[name]
        if name in _PER_PCODE:
            short = short(d is not None and first_nan_test(d) == "S0")
    elif semantic_of is not None and d is not None and (chain := call_chain(d)) is not None \
            and chain[2] in _CHAIN_TYPES:
        switch, short = "minmax_shortcuts", _chain(fn, semantic_of, chain[0], chain[1])
    else:
        return fn

    def run(ctx):
        return short(ctx) if getattr(current(), switch) else fn(ctx)
    run.generated = fn
    # the function run calls under `options`: chosen once by a caller whose options are fixed
    # (the machine's compiled steps, EmuOptions.lean_semantics)
    run.chosen = lambda options: short if getattr(options, switch) else fn
    if hasattr(short, "pick"):      # a chain calls it only while its own switch (the same) is on
        run.pick = short.pick
    return run

"""Shapes of an instruction's code that say what it computes as a whole, read from the statements
of the one pseudocode parse (isa.pcode_statements.statements: tokens, comments dropped), not from its text.

    from isa.code_facts import atomic_update
    atomic_update(d.pcode)      # AtomicUpdate('add', 'u32', True, ()) for ds_add_rtn_u32

atomic_update: the one statement of an atomic that writes memory, `MEM[A].T op= DATA.T` or
`MEM[A].T = value`, named by what it does to the word: add / sub (`+= DATA`, `-= DATA`), min /
max (`src < tmp ? src : tmp`, `src > tmp ? ...`), and / or / xor (`(tmp & DATA)`), swap (`=
DATA`), cmpswap (`tmp == cmp ? src : tmp`, with where src and cmp come from), else other; T is
the memory word's type as written (u, u32, i64, b, f32: signedness and float-ness are the
type's), and returns_old says the code loads the word into tmp first and returns tmp
(`tmp = MEM[A].T; ...; RETURN_DATA = tmp`).

These functions parse; the generator calls them once per instruction of the manuals
(isa/gen/facts.py) and commits the answers (isa/generated/<family>/facts.py), which every other
package reads through isa.facts, by instruction. A process that assembles, disassembles or
emulates does not import this module (tests/test_isa_facts_generated.py)."""
from __future__ import annotations

from .gen.effects import effects
from .pcode_statements import assignment, statements
from .facts import AtomicUpdate


_BITWISE = {"&": "and", "|": "or", "^": "xor"}
_EXTREMES = {"<": "min", "<=": "min", ">": "max", ">=": "max"}


def _memory_word(target: tuple) -> tuple[str, str] | None:
    """(address name, type) of a target `MEM [ A ] . T`, A one name (ADDR, or the code's addr)."""
    if len(target) == 6 and target[:2] == ("MEM", "[") and target[3:5] == ("]", ".") and target[2].isidentifier():
        return target[2], target[5]
    return None


def _register(value: tuple) -> tuple[str, int] | None:
    """(register, low bit) of `R.T` or `R[hi : lo].T`."""
    if len(value) == 3 and value[1] == ".":
        return value[0], 0
    if len(value) == 8 and value[1] == "[" and value[3] == ":" and value[5:7] == ("]", ".") and value[4].isdigit():
        return value[0], int(value[4])
    return None


def _kind(op: str, value: tuple, locals_: dict) -> str:
    if value[:2] == ("DATA", ".") and len(value) == 3:
        return {"+=": "add", "-=": "sub", "=": "swap"}.get(op, "other")
    if op != "=":
        return "other"
    if len(value) == 7 and value[0] == "(" and value[1] == "tmp" and value[2] in _BITWISE \
            and value[3:5] == ("DATA", ".") and value[6] == ")":
        return _BITWISE[value[2]]
    if len(value) == 7 and value[3:] == ("?", "src", ":", "tmp"):
        if value[:3] in (("src", "<", "tmp"), ("src", "<=", "tmp"), ("src", ">", "tmp"), ("src", ">=", "tmp")):
            return _EXTREMES[value[1]]
        if value[:3] == ("tmp", "==", "cmp") and "src" in locals_ and "cmp" in locals_:
            return "cmpswap"
    return "other"


def atomic_update(pcode: str | None) -> AtomicUpdate | None:
    """The memory update of an atomic's code (see the module docstring); None when the code writes
    no memory word, or more than one statement does (the two-address forms)."""
    stmts = [(s, assignment(s)) for s in statements(pcode)]
    updates = [i for i, (_, a) in enumerate(stmts) if a is not None and a[0][:1] == ("MEM",)]
    if len(updates) != 1:
        return None
    at = updates[0]
    target, op, value = stmts[at][1]
    word = _memory_word(target)
    if word is None:
        return AtomicUpdate("other", "", False)
    address, type_ = word
    locals_ = {a[0][0]: a[2] for _, a in stmts[:at] if a is not None and len(a[0]) == 1 and a[1] == "="}
    loaded = any(a is not None and a[0] == ("tmp",) and a[1] == "=" and _memory_word(a[2]) is not None
                 and _memory_word(a[2])[0] == address for _, a in stmts[:at])
    returned = any(a is not None and a[0][:1] == ("RETURN_DATA",) and a[1] == "=" and a[2] == ("tmp",)
                   and (len(a[0]) == 1 or len(a[0]) == 3 and a[0][1] == ".") for _, a in stmts[at + 1:])
    kind = _kind(op, value, locals_)
    operands = ()
    if kind == "cmpswap":
        src, cmp = _register(locals_["src"]), _register(locals_["cmp"])
        if src is None or cmp is None:
            kind = "other"
        else:
            operands = (src, cmp)
    return AtomicUpdate(kind, type_, loaded and returned, operands)


def _is_offset(token: str) -> bool:
    return token.startswith("OFFSET") and token[6:] in ("", "0", "1")


def address_adds_offset(pcode: str | None) -> bool:
    """The code adds the instruction's offset to the ADDR register itself: `MEM[ADDR + OFFSET.u32]`,
    `MEM[ADDR + OFFSET0.u32 * 4U]` (RDNA3.5's LDS code), `CalcDsAddr(ADDR.b32, OFFSET0.b32, ...)`
    (CDNA's): its ADDR is the address VGPR alone, not the address of the access."""
    for s in statements(pcode):
        for i, t in enumerate(s):
            if t != "ADDR":
                continue
            if s[i - 2:i] == ("CalcDsAddr", "(") and i >= 2:
                return True
            after = s[i + 3:] if s[i + 1:i + 2] == (".",) else s[i + 1:]
            if after[:1] == ("+",) and len(after) > 1 and _is_offset(after[1]):
                return True
    return False


def offset_pattern(pcode: str | None) -> bool:
    """The code joins the instruction's offset fields into one value (`offset = offset1:offset0`)
    and takes bit ranges of it (`mask = offset[4:0]`, `thread_in[i + offset[1:0]]`): the offset is
    a bit pattern the code interprets (ds_swizzle_b32's lane pattern), not a byte count added to
    an address."""
    joined = None
    for s in statements(pcode):
        if joined is None:
            if len(s) == 5 and s[1:] == ("=", "offset1", ":", "offset0") and s[0].isidentifier():
                joined = s[0]
            continue
        if any(t == joined and s[i + 1:i + 2] == ("[",) for i, t in enumerate(s)):
            return True
    return False


def _dword_offset(index: tuple) -> int | None:
    """Bytes past ADDR of an address `ADDR` or `ADDR + nU`, else None."""
    if index == ("ADDR",):
        return 0
    if len(index) == 3 and index[:2] == ("ADDR", "+") and index[2].rstrip("U").isdigit():
        return int(index[2].rstrip("U"))
    return None


def field_loads(pcode: str | None) -> tuple[str, int] | None:
    """(register, n) when the whole code is n >= 2 statements loading dword k of one register from
    ADDR + 4k, in order: `SDATA[31 : 0] = MEM[ADDR + 0U].b; SDATA[63 : 32] = MEM[ADDR + 4U].b`
    (RDNA3's `.b`, RDNA3.5's `MEM[ADDR].b32`); else None (the CDNA and RDNA4 code, which first
    computes `addr = Calc...Addr(...)`, too)."""
    run = dword_loads(pcode)
    return run if run is not None and run[1] >= 2 else None


def _dword_target(target: tuple, k: int, alone: bool) -> str | None:
    """The register of `R[32k+31 : 32k]`, or with `alone` (the code's only statement) of a whole
    dword `R.b` / `R.b32`; else None."""
    if len(target) == 6 and target[1] == "[" and target[3] == ":" and target[5] == "]" \
            and (target[2], target[4]) == (str(32 * k + 31), str(32 * k)):
        return target[0]
    if alone and len(target) == 3 and target[1] == "." and target[2] in ("b", "b32"):
        return target[0]
    return None


def _memory_dword(value: tuple) -> int | None:
    """Bytes past ADDR of a dword read `MEM[ADDR + nU].b` / `.b32`, else None."""
    if len(value) < 6 or value[:2] != ("MEM", "[") or value[-3:-1] != ("]", ".") or value[-1] not in ("b", "b32"):
        return None
    return _dword_offset(value[2:-3])


def dword_loads(pcode: str | None) -> tuple[str, int] | None:
    """field_loads' (register, n) with n >= 1: also one statement loading bits 31:0 of a register,
    or the whole dword, from ADDR (`SDATA[31 : 0] = MEM[ADDR + 0U].b`, RDNA3's S_LOAD_B32;
    `VDATA.b = MEM[ADDR].b`, RDNA3's GLOBAL_LOAD_B32)."""
    stmts = statements(pcode)
    register = None
    for k, s in enumerate(stmts):
        a = assignment(s)
        if a is None or a[1] != "=":
            return None
        target, _, value = a
        name = _dword_target(target, k, len(stmts) == 1)
        if name is None or (register is not None and name != register) or _memory_dword(value) != 4 * k:
            return None
        register = name
    return (register, len(stmts)) if register is not None else None


def dword_stores(pcode: str | None) -> tuple[str, int] | None:
    """(register, n) when the whole code is n >= 1 statements storing dword k of one register to
    ADDR + 4k, in order: `MEM[ADDR + 0U].b = VDATA[31 : 0]; MEM[ADDR + 4U].b = VDATA[63 : 32]`
    (RDNA3; RDNA3.5's `MEM[ADDR].b32`); else None."""
    stmts = statements(pcode)
    register = None
    for k, s in enumerate(stmts):
        a = assignment(s)
        if a is None or a[1] != "=":
            return None
        target, _, value = a
        name = _dword_target(value, k, False)
        if name is None or (register is not None and name != register) or _memory_dword(target) != 4 * k:
            return None
        register = name
    return (register, len(stmts)) if register is not None else None


_NAN_TESTS = ("isNAN", "isQuietNAN")


def first_nan_test(pcode: str | None) -> str | None:
    """The source (S0, S1) the code's first NaN or quiet-NaN test names, in the order the code is
    written: CDNA's v_min/max_f32 test S0 first ("elsif isNAN(64'F(S0.f32)) then D0.f32 = S1.f32"),
    RDNA3's S1 ("elsif isQuietNAN(64'F(S1.f)) then D0.f = S0.f"); None without such a test."""
    for s in statements(pcode):
        for i, t in enumerate(s):
            if t in _NAN_TESTS and s[i + 1:i + 2] == ("(",):
                depth = 0
                for u in s[i + 1:]:
                    depth += (u == "(") - (u == ")")
                    if u in ("S0", "S1"):
                        return u
                    if depth == 0:
                        break
    return None


def call_chain(pcode: str | None) -> tuple[str, str, str] | None:
    """(outer, inner, type) when the whole code is `D0.T = outer(inner(S0.T, S1.T), S2.T)`, both
    calls other instructions' functions (v_min3/max3/minmax/maxmin_f32: `D0.f = v_max_f32(v_min_f32(S0.f,
    S1.f), S2.f)`), their names as instruction names (V_MAX_F32); else None."""
    stmts = statements(pcode)
    if len(stmts) != 1:
        return None
    s = stmts[0]
    if len(s) != 21 or s[:2] != ("D0", "."):
        return None
    t = s[2]
    if s != ("D0", ".", t, "=", s[4], "(", s[6], "(", "S0", ".", t, ",", "S1", ".", t, ")", ",", "S2", ".", t, ")"):
        return None
    outer, inner = s[4], s[6]
    if not (outer.startswith("v_") and inner.startswith("v_")):
        return None
    return outer.upper(), inner.upper(), t


def lane_modulus(pcode: str | None) -> tuple[int, int] | None:
    """(wave32, wave64) N of a permute's lane from a byte address, `... / 4U % N`, else None.
    N is a number (ds_bpermute: RDNA3's "destination lane is MOD 32 regardless of wave size",
    `/ 4 % 32`: (32, 32); CDNA's `/ 4U % 64U`: (64, 64)) or a name the code sets from the wave
    size (RDNA4's `num_lanes = WAVE64 ? 64 : 32; ... / 4 % num_lanes`: (32, 64))."""
    by_wave = {}
    for s in statements(pcode):
        if len(s) == 7 and s[1:4] == ("=", "WAVE64", "?") and s[5] == ":" and s[4].isdigit() and s[6].isdigit():
            by_wave[s[0]] = (int(s[6]), int(s[4]))
        for i in range(len(s) - 3):
            if s[i] == "/" and s[i + 1] in ("4", "4U") and s[i + 2] == "%":
                n = s[i + 3]
                if n.rstrip("U").isdigit():
                    return int(n.rstrip("U")), int(n.rstrip("U"))
                if n in by_wave:
                    return by_wave[n]
    return None


_FILES = ("SGPR", "VGPR", "HW_REGISTERS")


def register_files(pcode: str | None) -> frozenset:
    """The register files the code indexes by a value, `SGPR[addr]`, `VGPR[lane][...]`,
    `HW_REGISTERS[hwRegId]` (s_movrel*, readlane and permlane, s_getreg/s_setreg)."""
    return frozenset(t for s in statements(pcode) for i, t in enumerate(s) if t in _FILES and s[i + 1:i + 2] == ("[",))


def unfilled_arrays(pcode: str | None) -> tuple:
    """Arrays the code declares (`declare NAME : T[n]`) and never assigns, in order: their values
    come from elsewhere, v_cvt_off_f32_i4's CVT_OFF_TABLE from the table in its description
    (not `S`, the sources S0..S2 as an array: v_fma_mix*'s `declare S : 32'B[3]`)."""
    stmts = statements(pcode)
    declared = [s[1] for s in stmts if len(s) >= 4 and s[0] == "declare" and s[2] == ":" and s[-1] == "]"
                and s[1] != "S"]
    assigned = {a[0][0] for s in stmts if (a := assignment(s)) is not None}
    return tuple(n for n in declared if n not in assigned)


def instruction_calls(pcode: str | None) -> tuple:
    """The other instructions the code calls as functions (`v_max_f32(...)`, `v_min_f32(...)`),
    as written, sorted, once each."""
    return tuple(sorted({t for s in statements(pcode) for i, t in enumerate(s)
                         if t[:2] in ("v_", "s_", "V_", "S_") and s[i + 1:i + 2] == ("(",)}))


_ACCUMULATION_SAID = "The initial value in D is used as S2"


def accumulates(pcode: str | None, description: str | None) -> bool:
    """D0's incoming value is an input of the instruction: its code computes with it (isa.effects'
    value_reads: v_fmac, v_dot2acc), or, for an entry without code, its description says so: "The
    initial value in D is used as S2" (RDNA3's v_dual_dot2acc_*)."""
    if pcode:
        return "D0" in effects(pcode).value_reads
    return _ACCUMULATION_SAID in (description or "")


def _register_number(token: str) -> int | None:
    """n of `SRCn`, the name of a source's register number (its field), not its value (`Sn`)."""
    return int(token[3:]) if token[:3] == "SRC" and token[3:].isdigit() else None


def register_number_sources(pcode: str | None) -> frozenset:
    """The sources n whose register number the code reads, `SRCn` rather than the value `Sn`
    (v_movrels's `addr = SRC0.u`, v_readlane's `VGPR[lane][SRC0.u]`): such a source names a VGPR.
    Not this lane's own `VGPR[laneId][SRCn]`, which is how RDNA4's manual reads the fp8/bf8
    conversions' source bytes: that is the source's value, any operand may give it."""
    found = set()
    for s in statements(pcode):
        for i, t in enumerate(s):
            n = _register_number(t)
            if n is not None and not (s[max(i - 5, 0):i] == ("VGPR", "[", "laneId", "]", "[") and i >= 5):
                found.add(n)
    return frozenset(found)


def reads_other_lanes(pcode: str | None) -> bool:
    """The code addresses a lane's VGPR by a lane number other than its own, `VGPR[lane][...]`,
    `VGPR[i][...]` (readlane, writelane, permlane, the LDS permutes): it works on the wave, not per
    lane (`VGPR[laneId][...]`, v_movrels, is this lane's)."""
    return any(t == "VGPR" and s[i + 1:i + 2] == ("[",) and s[i + 2:i + 4] != ("laneId", "]")
               for s in statements(pcode) for i, t in enumerate(s))


def lane_select_sources(pcode: str | None) -> frozenset:
    """The sources n the code takes a lane number from, `lane = Sn...` (v_readlane/v_writelane's
    `lane = S1.u[4 : 0].u`)."""
    return frozenset(n for s in statements(pcode) if len(s) >= 3 and s[:2] == ("lane", "=")
                     and s[2][:1] == "S" and s[2][1:].isdigit() for n in (int(s[2][1:]),))


def _opsel_test(s: tuple) -> tuple[int, int, int] | None:
    """(hi, lo, v) of `if OPSEL[hi : lo].u2 == 2'vU then` (or elsif)."""
    if len(s) == 12 and s[0] in ("if", "elsif") and s[1:3] == ("OPSEL", "[") and s[4] == ":" \
            and s[6:10] == ("]", ".", "u2", "==") and s[11] == "then" and s[3].isdigit() and s[5].isdigit():
        v = s[10]
        if v[:2] == "2'" and v[2:].rstrip("U").isdigit():
            return int(s[3]), int(s[5]), int(v[2:].rstrip("U"))
    return None


def _byte_of(s: tuple) -> int | None:
    """k of the one byte range `[8k+7 : 8k]` a statement names, else None."""
    found = {int(s[i + 3]) // 8 for i in range(len(s) - 4)
             if s[i] == "[" and s[i + 2] == ":" and s[i + 4] == "]" and s[i + 1].isdigit() and s[i + 3].isdigit()
             and int(s[i + 1]) - int(s[i + 3]) == 7 and int(s[i + 3]) % 8 == 0}
    return found.pop() if len(found) == 1 else None


def byte_select(pcode: str | None) -> tuple[int, int] | None:
    """(hi, lo): the OPSEL bits that are the high and the low bit of the byte number k the code
    selects, when it picks byte k of a source or the destination by a two-bit OPSEL range, `if
    OPSEL[1 : 0].u2 == 2'2U then D0.f32 = fp8_to_f32(VGPR[laneId][SRC0.u32][15 : 8].fp8)`
    (RDNA4's fp8/bf8 conversions: v_cvt_f32_fp8 names byte 1 by OPSEL[1:0] = 2, "Byte select bits
    are reversed", so k's high bit is OPSEL bit 0: (0, 1); v_cvt_sr_fp8_f32's OPSEL[3:2] is k:
    (3, 2)); None otherwise."""
    stmts = statements(pcode)
    chosen, field = {}, None
    for s, body in zip(stmts, stmts[1:]):
        test = _opsel_test(s)
        if test is None:
            continue
        hi, lo, v = test
        if hi != lo + 1 or field not in (None, (hi, lo)):
            return None
        field = (hi, lo)
        k = _byte_of(body)
        if k is not None:
            chosen[k] = v
    if field is None or chosen.get(1) is None or chosen.get(2) is None:
        return None
    hi, lo = field
    if (chosen[1], chosen[2]) == (1, 2):
        return hi, lo
    if (chosen[1], chosen[2]) == (2, 1):
        return lo, hi
    return None


def pc_relative_immediate(pcode: str | None) -> bool:
    """The code computes an address `PC + signext(SIMM16 ...)`: the immediate is a signed dword
    offset from the PC, a branch target (s_branch and s_cbranch_*: `PC = PC + signext(SIMM16.i16 *
    16'4) + 4LL`; CDNA's s_cbranch_i_fork: `target_addr = PC + signext(SIMM16.i32 * 4) + 4LL`)."""
    return any(s[i:i + 5] == ("PC", "+", "signext", "(", "SIMM16") for s in statements(pcode) for i in range(len(s)))


def lane_value_result(pcode: str | None) -> bool:
    """The code writes D0 whole (not `D0.u64[laneId]`) with a value read from another lane's VGPR,
    `D0.b32 = VGPR[lane][SRC0.u32]`: one value for the wave, which its destination holds in an
    SGPR (v_readlane_b32, v_readfirstlane_b32)."""
    for s in statements(pcode):
        a = assignment(s)
        if a is None or a[0][:1] != ("D0",) or "laneId" in a[0]:
            continue
        v = a[2]
        if any(t == "VGPR" and v[i + 1:i + 2] == ("[",) and v[i + 2:i + 4] != ("laneId", "]") for i, t in enumerate(v)):
            return True
    return False

"""Shapes of an instruction's code that say what it computes as a whole, read from the syntax tree
of the one pseudocode grammar (isa/gen/effects.tree: isa/pcode/pcode.lark), not from its text.

    from isa.code_facts import atomic_update
    atomic_update(d.pcode)      # AtomicUpdate('add', 'u32', True, ()) for ds_add_rtn_u32

atomic_update: the one statement of an atomic that writes memory, `MEM[A].T op= DATA.T` or
`MEM[A].T = value`, named by what it does to the word: add / sub (`+= DATA`, `-= DATA`), min /
max (`src < tmp ? src : tmp`, `src > tmp ? ...`), and / or / xor (`(tmp & DATA)`), swap (`=
DATA`), cmpswap (`tmp == cmp ? src : tmp`, with where src and cmp come from), else other; T is
the memory word's type as written (u, u32, i64, b, f32: signedness and float-ness are the
type's), and returns_old says the code loads the word into tmp first and returns tmp
(`tmp = MEM[A].T; ...; RETURN_DATA = tmp`).

Code the grammar does not parse (isa.errata.NOT_CODE: prose, examples, informal notation) has none
of these shapes.

These functions parse; the generator calls them once per instruction of the manuals
(isa/gen/facts.py) and commits the answers (isa/generated/<family>/facts.py), which every other
package reads through isa.facts, by instruction. A process that assembles, disassembles or
emulates does not import this module (tests/test_isa_facts_generated.py)."""
from __future__ import annotations

import re

from lark import Tree

from .facts import AtomicUpdate
from .gen.effects import access, assignment, effects, flat_statements, leaves, name_of, number, parents, tree, walk


def _statements(pcode) -> list:
    """Every statement (and if/elsif/for header) of the code in source order, [] for code the
    grammar does not parse."""
    root = tree(pcode) if pcode else None
    return flat_statements(root) if root is not None else []


def _assignments(pcode) -> list:
    """(statement, (target, operator, value) or None) of each statement."""
    return [(s, assignment(s) if kind == "statement" else None) for kind, s in _statements(pcode)]


def _field(node, name=None) -> str | None:
    """T of `X.T` (X a name, `name` if given), else None."""
    if isinstance(node, Tree) and node.data == "field" and name_of(node.children[0]) is not None \
            and name in (None, name_of(node.children[0])):
        return str(node.children[1])
    return None


def _leftmost(node):
    """The operand an expression starts with: `a` of `a + b * c`, `S1` of `S1.u[4 : 0]`."""
    while isinstance(node, Tree) and node.data in ("binop", "ternary", "field", "index", "slice", "slice_up"):
        node = node.children[0]
    return node


def _rightmost(node):
    """The operand a sum ends with before its last operator: `ADDR` of `x + ADDR`."""
    while isinstance(node, Tree) and node.data == "binop":
        node = node.children[2]
    return node


_BITWISE = {"&": "and", "|": "or", "^": "xor"}
_EXTREMES = {"<": "min", "<=": "min", ">": "max", ">=": "max"}


def _memory_word(target) -> tuple[str, str] | None:
    """(address name, type) of `MEM[A].T`, A one name (ADDR, or the code's addr)."""
    if isinstance(target, Tree) and target.data == "field" and isinstance(target.children[0], Tree) \
            and target.children[0].data == "mem" and name_of(target.children[0].children[0]) is not None:
        return name_of(target.children[0].children[0]), str(target.children[1])
    return None


def _register(value) -> tuple[str, int] | None:
    """(register, low bit) of `R.T` or `R[hi : lo].T`."""
    if _field(value) is not None:
        return name_of(value.children[0]), 0
    if isinstance(value, Tree) and value.data == "field" and isinstance(value.children[0], Tree) \
            and value.children[0].data == "slice" and name_of(value.children[0].children[0]) is not None \
            and number(value.children[0].children[2]) is not None:
        return name_of(value.children[0].children[0]), number(value.children[0].children[2])
    return None


def _kind(op: str, value, locals_: dict) -> str:
    if _field(value, "DATA") is not None:
        return {"+=": "add", "-=": "sub", "=": "swap"}.get(op, "other")
    if op != "=" or not isinstance(value, Tree):
        return "other"
    if value.data == "binop" and name_of(value.children[0]) == "tmp" and value.children[1] in _BITWISE \
            and _field(value.children[2], "DATA") is not None:
        return _BITWISE[value.children[1]]
    if value.data == "ternary" and name_of(value.children[1]) == "src" and name_of(value.children[2]) == "tmp":
        test = value.children[0]
        if isinstance(test, Tree) and test.data == "binop":
            pair, op_ = (name_of(test.children[0]), name_of(test.children[2])), str(test.children[1])
            if pair == ("src", "tmp") and op_ in _EXTREMES:
                return _EXTREMES[op_]
            if pair == ("tmp", "cmp") and op_ == "==" and "src" in locals_ and "cmp" in locals_:
                return "cmpswap"
    return "other"


def atomic_update(pcode: str | None) -> AtomicUpdate | None:
    """The memory update of an atomic's code (see the module docstring); None when the code writes
    no memory word, or more than one statement does (the two-address forms)."""
    stmts = _assignments(pcode)
    updates = [i for i, (_, a) in enumerate(stmts) if a is not None and _is_memory(access(a[0])[0])]
    if len(updates) != 1:
        return None
    at = updates[0]
    target, op, value = stmts[at][1]
    word = _memory_word(target)
    if word is None:
        return AtomicUpdate("other", "", False)
    address, type_ = word
    locals_ = {name_of(a[0]): a[2] for _, a in stmts[:at] if a is not None and name_of(a[0]) and a[1] == "="}
    loaded = any(a is not None and name_of(a[0]) == "tmp" and a[1] == "=" and _memory_word(a[2]) is not None
                 and _memory_word(a[2])[0] == address for _, a in stmts[:at])
    returned = any(a is not None and a[1] == "=" and name_of(a[2]) == "tmp"
                   and (name_of(a[0]) == "RETURN_DATA" or _field(a[0], "RETURN_DATA") is not None)
                   for _, a in stmts[at + 1:])
    kind = _kind(op, value, locals_)
    operands = ()
    if kind == "cmpswap":
        src, cmp = _register(locals_["src"]), _register(locals_["cmp"])
        if src is None or cmp is None:
            kind = "other"
        else:
            operands = (src, cmp)
    return AtomicUpdate(kind, type_, loaded and returned, operands)


def _is_memory(node) -> bool:
    return isinstance(node, Tree) and node.data == "mem"


def _is_offset(node) -> bool:
    root = access(node)[0]
    n = name_of(root) or ""
    return n.startswith("OFFSET") and n[6:] in ("", "0", "1")


def address_adds_offset(pcode: str | None) -> bool:
    """The code adds the instruction's offset to the ADDR register itself: `MEM[ADDR + OFFSET.u32]`,
    `MEM[ADDR + OFFSET0.u32 * 4U]` (RDNA3.5's LDS code), `CalcDsAddr(ADDR.b32, OFFSET0.b32, ...)`
    (CDNA's): its ADDR is the address VGPR alone, not the address of the access."""
    for _, s in _statements(pcode):
        for n in walk(s):
            if n.data == "call" and str(n.children[0]) == "CalcDsAddr" and len(n.children) > 1 \
                    and name_of(_leftmost(n.children[1])) == "ADDR":
                return True
            if n.data == "binop" and n.children[1] == "+" and _is_address(_rightmost(n.children[0])) \
                    and _is_offset(_leftmost(n.children[2])):
                return True
    return False


def _is_address(node) -> bool:
    """`ADDR` or `ADDR.T`."""
    return name_of(node) == "ADDR" or _field(node, "ADDR") is not None


def offset_pattern(pcode: str | None) -> bool:
    """The code joins the instruction's offset fields into one value (`offset = offset1:offset0`,
    the C-like notation's `{ offset1, offset0 }`) and takes bit ranges of it (`mask = offset[4:0]`,
    `thread_in[i + offset[1:0]]`): the offset is a bit pattern the code interprets (ds_swizzle_b32's
    lane pattern), not a byte count added to an address."""
    joined = None
    for kind, s in _statements(pcode):
        a = assignment(s) if kind == "statement" else None
        if joined is None and a is not None and a[1] == "=" and name_of(a[0]) is not None \
                and isinstance(a[2], Tree) and a[2].data == "concat" \
                and [name_of(c) for c in a[2].children] == ["offset1", "offset0"]:
            joined = name_of(a[0])
            continue
        if joined is not None and any(n.data in ("slice", "index") and name_of(n.children[0]) == joined
                                      for n in walk(s)):
            return True
    return False


def _dword_offset(index) -> int | None:
    """Bytes past ADDR of an address `ADDR` or `ADDR + nU`, else None."""
    if name_of(index) == "ADDR":
        return 0
    if isinstance(index, Tree) and index.data == "binop" and name_of(index.children[0]) == "ADDR" \
            and index.children[1] == "+" and isinstance(index.children[2], Tree) and index.children[2].data == "number" \
            and str(index.children[2].children[0]).rstrip("U").isdigit():
        return int(str(index.children[2].children[0]).rstrip("U"))
    return None


def field_loads(pcode: str | None) -> tuple[str, int] | None:
    """(register, n) when the whole code is n >= 2 statements loading dword k of one register from
    ADDR + 4k, in order: `SDATA[31 : 0] = MEM[ADDR + 0U].b; SDATA[63 : 32] = MEM[ADDR + 4U].b`
    (RDNA3's `.b`, RDNA3.5's `MEM[ADDR].b32`); else None (the CDNA and RDNA4 code, which first
    computes `addr = Calc...Addr(...)`, too)."""
    run = dword_loads(pcode)
    return run if run is not None and run[1] >= 2 else None


def _dword_target(target, k: int, alone: bool) -> str | None:
    """The register of `R[32k+31 : 32k]`, or with `alone` (the code's only statement) of a whole
    dword `R.b` / `R.b32`; else None."""
    if isinstance(target, Tree) and target.data == "slice" and name_of(target.children[0]) is not None \
            and (number(target.children[1]), number(target.children[2])) == (32 * k + 31, 32 * k):
        return name_of(target.children[0])
    if alone and _field(target) in ("b", "b32"):
        return name_of(target.children[0])
    return None


def _memory_dword(value) -> int | None:
    """Bytes past ADDR of a dword read `MEM[ADDR + nU].b` / `.b32`, else None."""
    if not (isinstance(value, Tree) and value.data == "field" and _is_memory(value.children[0])
            and str(value.children[1]) in ("b", "b32")):
        return None
    return _dword_offset(value.children[0].children[0])


def _dword_moves(pcode, loads: bool) -> tuple[str, int] | None:
    stmts = _assignments(pcode)
    register = None
    for k, (_, a) in enumerate(stmts):
        if a is None or a[1] != "=":
            return None
        target, _, value = a
        name = _dword_target(target, k, len(stmts) == 1) if loads else _dword_target(value, k, False)
        if name is None or (register is not None and name != register) \
                or _memory_dword(value if loads else target) != 4 * k:
            return None
        register = name
    return (register, len(stmts)) if register is not None else None


def dword_loads(pcode: str | None) -> tuple[str, int] | None:
    """field_loads' (register, n) with n >= 1: also one statement loading bits 31:0 of a register,
    or the whole dword, from ADDR (`SDATA[31 : 0] = MEM[ADDR + 0U].b`, RDNA3's S_LOAD_B32;
    `VDATA.b = MEM[ADDR].b`, RDNA3's GLOBAL_LOAD_B32)."""
    return _dword_moves(pcode, True)


def dword_stores(pcode: str | None) -> tuple[str, int] | None:
    """(register, n) when the whole code is n >= 1 statements storing dword k of one register to
    ADDR + 4k, in order: `MEM[ADDR + 0U].b = VDATA[31 : 0]; MEM[ADDR + 4U].b = VDATA[63 : 32]`
    (RDNA3; RDNA3.5's `MEM[ADDR].b32`); else None."""
    return _dword_moves(pcode, False)


_NAN_TESTS = ("isNAN", "isQuietNAN")


def first_nan_test(pcode: str | None) -> str | None:
    """The source (S0, S1) the code's first NaN or quiet-NaN test names, in the order the code is
    written: CDNA's v_min/max_f32 test S0 first ("elsif isNAN(64'F(S0.f32)) then D0.f32 = S1.f32"),
    RDNA3's S1 ("elsif isQuietNAN(64'F(S1.f)) then D0.f = S0.f"); None without such a test."""
    for _, s in _statements(pcode):
        for n in walk(s):
            if n.data == "call" and str(n.children[0]) in _NAN_TESTS:
                for x in walk(Tree("args", n.children[1:])):
                    if name_of(x) in ("S0", "S1"):
                        return name_of(x)
    return None


def call_chain(pcode: str | None) -> tuple[str, str, str] | None:
    """(outer, inner, type) when the whole code is `D0.T = outer(inner(S0.T, S1.T), S2.T)`, both
    calls other instructions' functions (v_min3/max3/minmax/maxmin_f32: `D0.f = v_max_f32(v_min_f32(S0.f,
    S1.f), S2.f)`), their names as instruction names (V_MAX_F32); else None."""
    stmts = _assignments(pcode)
    if len(stmts) != 1 or stmts[0][1] is None or stmts[0][0].data != "assign":
        return None
    target, op, value = stmts[0][1]
    t = _field(target, "D0")
    if t is None or op != "=" or not (isinstance(value, Tree) and value.data == "call" and len(value.children) == 3):
        return None
    inner = value.children[1]
    if not (isinstance(inner, Tree) and inner.data == "call" and len(inner.children) == 3):
        return None
    if (_field(inner.children[1], "S0"), _field(inner.children[2], "S1"), _field(value.children[2], "S2")) != (t, t, t):
        return None
    outer, inner = str(value.children[0]), str(inner.children[0])
    if not (outer.startswith("v_") and inner.startswith("v_")):
        return None
    return outer.upper(), inner.upper(), t


def _count(node) -> int | None:
    """A number written in digits with an optional U: 64, 64U."""
    if isinstance(node, Tree) and node.data == "number" and str(node.children[0]).rstrip("U").isdigit():
        return int(str(node.children[0]).rstrip("U"))
    return None


def lane_modulus(pcode: str | None) -> tuple[int, int] | None:
    """(wave32, wave64) N of a permute's lane from a byte address, `... / 4U % N`, else None.
    N is a number (ds_bpermute: RDNA3's "destination lane is MOD 32 regardless of wave size",
    `/ 4 % 32`: (32, 32); CDNA's `/ 4U % 64U`: (64, 64)) or a name the code sets from the wave
    size (RDNA4's `num_lanes = WAVE64 ? 64 : 32; ... / 4 % num_lanes`: (32, 64))."""
    by_wave = {}
    for kind, s in _statements(pcode):
        a = assignment(s) if kind == "statement" else None
        if a is not None and name_of(a[0]) and a[1] == "=" and isinstance(a[2], Tree) and a[2].data == "ternary" \
                and name_of(a[2].children[0]) == "WAVE64" and number(a[2].children[1]) is not None \
                and number(a[2].children[2]) is not None:
            by_wave[name_of(a[0])] = (number(a[2].children[2]), number(a[2].children[1]))
        for n in walk(s):
            if n.data == "binop" and n.children[1] == "%" and isinstance(n.children[0], Tree) \
                    and n.children[0].data == "binop" and n.children[0].children[1] == "/" \
                    and _count(n.children[0].children[2]) == 4 and str(n.children[0].children[2].children[0]) in ("4", "4U"):
                if _count(n.children[2]) is not None:
                    return _count(n.children[2]), _count(n.children[2])
                if name_of(n.children[2]) in by_wave:
                    return by_wave[name_of(n.children[2])]
    return None


_FILES = ("SGPR", "VGPR", "HW_REGISTERS")


def register_files(pcode: str | None) -> frozenset:
    """The register files the code indexes by a value, `SGPR[addr]`, `VGPR[lane][...]`,
    `HW_REGISTERS[hwRegId]` (s_movrel*, readlane and permlane, s_getreg/s_setreg)."""
    return frozenset(f for _, s in _statements(pcode) for n in walk(s)
                     if n.data in ("index", "slice", "slice_up") and (f := name_of(n.children[0])) in _FILES)


def unfilled_arrays(pcode: str | None) -> tuple:
    """Arrays the code declares (`declare NAME : T[n]`) and never assigns, in order: their values
    come from elsewhere, v_cvt_off_f32_i4's CVT_OFF_TABLE from the table in its description
    (not `S`, the sources S0..S2 as an array: v_fma_mix*'s `declare S : 32'B[3]`)."""
    stmts = _assignments(pcode)
    declared = [str(s.children[0]) for s, _ in stmts if s.data == "declare" and len(s.children) == 3
                and str(s.children[0]) != "S"]
    assigned = {name_of(access(a[0])[0]) for _, a in stmts if a is not None}
    return tuple(n for n in declared if n not in assigned)


_CALL = re.compile(r"\b([vsVS]_\w+)\s*\(")


def instruction_calls(pcode: str | None) -> tuple:
    """The other instructions the code calls as functions (`v_max_f32(...)`, `v_min_f32(...)`),
    as written, sorted, once each (RDNA4's s_barrier_wait calls s_nop); in a block that is not code
    (isa.errata.NOT_CODE), every such call its text names."""
    if pcode and tree(pcode) is None:
        return tuple(sorted(set(_CALL.findall(re.sub(r"//[^\n]*", "", pcode)))))
    return tuple(sorted({str(n.children[0]) for _, s in _statements(pcode) for n in walk(s)
                         if n.data == "call" and str(n.children[0])[:2] in ("v_", "s_", "V_", "S_")}))


_ACCUMULATION_SAID = "The initial value in D is used as S2"


def accumulates(pcode: str | None, description: str | None) -> bool:
    """D0's incoming value is an input of the instruction: its code computes with it (isa.effects'
    value_reads: v_fmac, v_dot2acc), or, for an entry without code, its description says so: "The
    initial value in D is used as S2" (RDNA3's v_dual_dot2acc_*)."""
    if pcode:
        return "D0" in effects(pcode).value_reads
    return _ACCUMULATION_SAID in (description or "")


def _register_number(name: str | None) -> int | None:
    """n of `SRCn`, the name of a source's register number (its field), not its value (`Sn`)."""
    return int(name[3:]) if name and name[:3] == "SRC" and name[3:].isdigit() else None


def _vgpr_index(node, up: dict):
    """The `VGPR[lane]` a mention indexes when it starts the register number, `VGPR[lane][SRC0.u32]`, else None."""
    p = up.get(id(node))
    while p is not None:
        if p.data == "index" and p.children[1] is node:
            base = p.children[0]
            return base if isinstance(base, Tree) and base.data == "index" and name_of(base.children[0]) == "VGPR" else None
        if p.children[0] is not node:
            return None
        node, p = p, up.get(id(p))
    return None


def register_number_sources(pcode: str | None) -> frozenset:
    """The sources n whose register number the code reads, `SRCn` rather than the value `Sn`
    (v_movrels's `addr = SRC0.u`, v_readlane's `VGPR[lane][SRC0.u]`): such a source names a VGPR.
    Not this lane's own `VGPR[laneId][SRCn]`, which is how RDNA4's manual reads the fp8/bf8
    conversions' source bytes: that is the source's value, any operand may give it."""
    root = tree(pcode) if pcode else None
    if root is None:
        return frozenset()
    up = parents(root)
    found = set()
    for n in walk(root):
        k = _register_number(name_of(n))
        if k is not None:
            base = _vgpr_index(n, up)
            if base is None or name_of(base.children[1]) != "laneId":
                found.add(k)
    return frozenset(found)


def _other_lane(node) -> bool:
    """`VGPR[lane]` with a lane other than this one's (laneId)."""
    return node.data == "index" and name_of(node.children[0]) == "VGPR" and name_of(node.children[1]) != "laneId"


def reads_other_lanes(pcode: str | None) -> bool:
    """The code addresses a lane's VGPR by a lane number other than its own, `VGPR[lane][...]`,
    `VGPR[i][...]` (readlane, writelane, permlane, the LDS permutes): it works on the wave, not per
    lane (`VGPR[laneId][...]`, v_movrels, is this lane's)."""
    return any(_other_lane(n) for _, s in _statements(pcode) for n in walk(s))


def lane_select_sources(pcode: str | None) -> frozenset:
    """The sources n the code takes a lane number from, `lane = Sn...` (v_readlane/v_writelane's
    `lane = S1.u[4 : 0].u`)."""
    out = set()
    for _, a in _assignments(pcode):
        if a is not None and name_of(a[0]) == "lane" and a[1] == "=":
            first = name_of(_leftmost(a[2])) or ""
            if first[:1] == "S" and first[1:].isdigit():
                out.add(int(first[1:]))
    return frozenset(out)


def _opsel_test(node) -> tuple[int, int, int] | None:
    """(hi, lo, v) of the condition `OPSEL[hi : lo].u2 == 2'vU`."""
    if isinstance(node, Tree) and node.data == "binop" and node.children[1] == "==" and _field(node.children[0]) is None:
        left, right = node.children[0], node.children[2]
        if isinstance(left, Tree) and left.data == "field" and str(left.children[1]) == "u2" \
                and isinstance(left.children[0], Tree) and left.children[0].data == "slice" \
                and name_of(left.children[0].children[0]) == "OPSEL" and isinstance(right, Tree) and right.data == "sized_lit":
            hi, lo = number(left.children[0].children[1]), number(left.children[0].children[2])
            v = str(right.children[0])
            if hi is not None and lo is not None and v[:2] == "2'" and v[2:].rstrip("U").isdigit():
                return hi, lo, int(v[2:].rstrip("U"))
    return None


def _byte_of(s) -> int | None:
    """k of the one byte range `[8k+7 : 8k]` a statement names, else None."""
    found = {number(n.children[2]) // 8 for n in walk(s)
             if n.data == "slice" and number(n.children[1]) is not None and number(n.children[2]) is not None
             and number(n.children[1]) - number(n.children[2]) == 7 and number(n.children[2]) % 8 == 0}
    return found.pop() if len(found) == 1 else None


def byte_select(pcode: str | None) -> tuple[int, int] | None:
    """(hi, lo): the OPSEL bits that are the high and the low bit of the byte number k the code
    selects, when it picks byte k of a source or the destination by a two-bit OPSEL range, `if
    OPSEL[1 : 0].u2 == 2'2U then D0.f32 = fp8_to_f32(VGPR[laneId][SRC0.u32][15 : 8].fp8)`
    (RDNA4's fp8/bf8 conversions: v_cvt_f32_fp8 names byte 1 by OPSEL[1:0] = 2, "Byte select bits
    are reversed", so k's high bit is OPSEL bit 0: (0, 1); v_cvt_sr_fp8_f32's OPSEL[3:2] is k:
    (3, 2)); None otherwise."""
    stmts = _statements(pcode)
    chosen, field = {}, None
    for (kind, s), (_, body) in zip(stmts, stmts[1:]):
        test = _opsel_test(s) if kind == "header" else None
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
    for _, s in _statements(pcode):
        for n in walk(s):
            if n.data == "binop" and n.children[1] == "+" and name_of(_rightmost(n.children[0])) == "PC":
                call = _leftmost(n.children[2])
                if isinstance(call, Tree) and call.data == "call" and str(call.children[0]) == "signext" \
                        and len(call.children) > 1 and name_of(_leftmost(call.children[1])) == "SIMM16":
                    return True
    return False


def sdwa_selects(pcode: str | None) -> bool:
    """The code reads the SDWA source select itself, `if SDWA_SRC0_SEL == BYTE1.b3 then D0.f32 =
    fp8_to_f32(S0[15 : 8].fp8)` (CDNA's fp8/bf8 conversions to f32): SRC0_SEL picks the bytes the
    code converts, not a field the SDWA word extends (no sext, neg or abs), and the result is the
    whole dword (no DST_SEL / DST_UNUSED: LLVM's SDWA form has neither)."""
    root = tree(pcode) if pcode else None
    return root is not None and any(name_of(n) == "SDWA_SRC0_SEL" for n in walk(root))


def lane_value_result(pcode: str | None) -> bool:
    """The code writes D0 whole (not `D0.u64[laneId]`) with a value read from another lane's VGPR,
    `D0.b32 = VGPR[lane][SRC0.u32]`: one value for the wave, which its destination holds in an
    SGPR (v_readlane_b32, v_readfirstlane_b32)."""
    for _, a in _assignments(pcode):
        if a is None or name_of(access(a[0])[0]) != "D0" or any(name_of(n) == "laneId" for n in walk(a[0])):
            continue
        if any(_other_lane(n) for n in walk(a[2])):
            return True
    return False

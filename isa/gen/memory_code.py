"""What a memory instruction's pseudocode says about memory and its data registers, read from the
syntax tree of the one grammar (isa/pcode/pcode.lark, as gen/effects.tree reads it): the readers
gen/memory_access.py builds its facts on.

    from isa.gen.memory_code import memory_use
    memory_use("tmp = MEM[ADDR].u32; MEM[ADDR].u32 += DATA.u32")   # ('atomic', False)

A block isa.errata.NOT_CODE lists (prose, informal notation) has no tree: it uses no memory here
(the table states the direction of one that does), names the words of its text (gen/effects.words)
and gives no register widths."""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Tree

from .effects import access, assignment, flat_statements, name_of, number, tree, walk

_COMPOUND = {"+=", "-=", "|=", "&=", "^=", "*="}
_RESULTS = ("VDATA", "RETURN_DATA", "VDST", "D0")
_SHORT_TYPE = re.compile(r"[a-z]+")          # RDNA3's .u .b .f: 32 bits
_TYPE_BITS = re.compile(r"[a-z]+(\d*)")      # u32, b, f16, i8


def _is(node, kind: str) -> bool:
    return isinstance(node, Tree) and node.data == kind


def _root(pcode):
    return tree(pcode) if pcode else None


def _targets(target) -> list:
    return list(target.children) if _is(target, "concat_target") else [target]


def _assignments(root) -> list:
    """(target, operator, value) of every assignment, one per target of `{ a, b } = v`; `a = b = v`
    assigns v to b as well."""
    out = []
    for kind, s in flat_statements(root) if root is not None else ():
        a = assignment(s) if kind == "statement" else None
        if a is None:
            continue
        for t in _targets(a[0]):
            out.append((t, a[1], a[2]))
        inner = s.children[2] if s.data == "chain_assign" else None
        while _is(inner, "chain"):
            out += [(t, "=", a[2]) for t in _targets(inner.children[0])]
            inner = inner.children[1]
    return out


@lru_cache(maxsize=None)
def uses_memory(pcode: str | None) -> bool:
    """The code names MEM[...]."""
    root = _root(pcode)
    return root is not None and any(n.data == "mem" for n in walk(root))


@lru_cache(maxsize=None)
def memory_use(pcode: str) -> tuple[str | None, bool]:
    """(direction, d16): 'load' where the code reads MEM[...], 'store' where it assigns it,
    'atomic' both (or a compound assignment, `MEM[A] += DATA`); d16 where the result (VDATA,
    RETURN_DATA, VDST, D0) is assigned only as 16-bit bit ranges (`VDATA[31 : 16].b16 = ...`)."""
    root = _root(pcode)
    if root is None:
        return None, False
    assignments = _assignments(root)
    writes = [op for t, op, _ in assignments if _is(access(t)[0], "mem")]
    uses = sum(n.data == "mem" for n in walk(root))
    reads = uses > len(writes) or any(op in _COMPOUND for op in writes)
    direction = "atomic" if reads and writes else "load" if reads else "store" if writes else None
    halves, results = [], 0
    for t, op, _ in assignments:
        base, ops = access(t)
        if op != "=" or name_of(base) not in _RESULTS or not _one_range_then_type(ops):
            continue
        results += 1
        if ops and _constant_range(ops[0]) and len(ops) == 2:
            halves.append(number(ops[0].children[1]) - number(ops[0].children[2]) + 1)
    return direction, bool(halves) and all(w == 16 for w in halves) and len(halves) == results


def _one_range_then_type(ops: list) -> bool:
    """`X`, `X[...]`, `X.T`, `X[...].T`."""
    kinds = [o.data for o in ops]
    return kinds in ([], ["field"]) or len(kinds) in (1, 2) and kinds[0] in ("index", "slice", "slice_up") \
        and kinds[1:] in ([], ["field"])


def _constant_range(node) -> bool:
    return _is(node, "slice") and number(node.children[1]) is not None and number(node.children[2]) is not None


@lru_cache(maxsize=None)
def memory_bits(pcode: str) -> frozenset:
    """The widths of the memory values the code types (`MEM[ADDR].b64`: 64; `.u`, `.b`: 32; a bit
    range of one, `MEM[ADDR][7 : 0].u8`: 8); not the types inside the address (`MEM[SGPR_ADDR[63 : 0]
    + INST_OFFSET[11 : 0].b64 ...].u32` is 32) nor of a value stored (`MEM[addr + ChannelOffsetX()] =
    ConvertToFormat(VDATA[31 : 0].b32)` types no memory value)."""
    root = _root(pcode)
    out = set()
    for n in walk(root) if root is not None else ():
        if n.data == "field" and _is(access(n.children[0])[0], "mem"):    # MEM[A].T, MEM[A][7 : 0].u8
            m = _TYPE_BITS.fullmatch(str(n.children[1]))
            if m:
                out.add(int(m.group(1)) if m.group(1) else 32)
    return frozenset(out)


def _leftmost_binop(node):
    """(the innermost binop an expression starts with, its left operand), or (None, node)."""
    op = None
    while _is(node, "binop"):
        op, node = node, node.children[0]
    return op, node


def _named(node, name: str) -> bool:
    """`name` or `name.T`."""
    return name_of(node) == name or _is(node, "field") and name_of(node.children[0]) == name


@lru_cache(maxsize=None)
def scales_offset1(pcode: str) -> bool:
    """The code multiplies OFFSET1 on its own (`OFFSET1.u32 * 4U`): an element index, not the
    high byte of one 16-bit offset (`{ OFFSET1, OFFSET0 }`)."""
    root = _root(pcode)
    return root is not None and any(n.data == "binop" and str(n.children[1]) == "*" and _named(n.children[0], "OFFSET1")
                                    for n in walk(root))


def register_bits(pcode: str, names: tuple, types: dict) -> int:
    """Bits of the registers named `names` the code touches: the highest bit of a range
    (VDATA[95 : 64]), a typed whole value (DATA.b64, or its operand type for RDNA3's short
    .u), or one register per step of a loop that indexes them (VGPR[laneId][VDATA.u32 + i.u32]
    in `for i in 0 : 31`); a register number plus a step (`[VDATA.u32 + i.u32]`) is no value."""
    root = _root(pcode)
    if root is None:
        return 0
    bits = 0
    stepped = set()         # (name, T) of `[name.T + ...]`: a register number
    for n in walk(root):
        if n.data == "index":
            op, left = _leftmost_binop(n.children[1])
            if op is not None and str(op.children[1]) == "+" and _is(left, "field") and name_of(left.children[0]):
                stepped.add((name_of(left.children[0]), str(left.children[1])))
    for n in walk(root):
        for k, c in enumerate(n.children):
            name = name_of(c)
            if name not in names or k != 0 or n.data not in ("slice", "field"):
                continue
            if _constant_range(n):
                bits = max(bits, number(n.children[1]) + 1)
            elif n.data == "field" and (name, str(n.children[1])) not in stepped:
                typ = str(n.children[1])
                t = types.get(name, "") if _SHORT_TYPE.fullmatch(typ) else typ
                width = re.search(r"(\d+)$", t.replace("pk_", "") or "b32")
                bits = max(bits, int(width.group(1)) if width else 32)
    for n in walk(root):
        if n.data == "for_" and str(n.children[0]) == "i" and number(n.children[1]) == 0 and number(n.children[2]) is not None \
                and any(x.data == "index" and _steps_by_i(x.children[1], names) for x in walk(n.children[3])):
            bits = max(bits, 32 * (number(n.children[2]) + 1))
    return bits


def _steps_by_i(index, names: tuple) -> bool:
    """`name + i...` or `name.T + i.T...` (name one of names)."""
    op, left = _leftmost_binop(index)
    if op is None or str(op.children[1]) != "+" or not any(_named(left, x) for x in names):
        return False
    return _named(_leftmost_binop(op.children[2])[1], "i")


_DECLARED = ("RETURN_DATA", "VDST", "VDATA", "SDATA", "DATA", "DATA0")


def declared_bits(pcode: str) -> list[int]:
    """Bits of each data register the code declares: `declare RETURN_DATA : 32'U[2]` is 64."""
    root = _root(pcode)
    return [int(str(n.children[1]).split("'")[0]) * (int(n.children[2]) if len(n.children) > 2 else 1)
            for n in walk(root) if n.data == "declare" and str(n.children[0]) in _DECLARED] if root is not None else []


def calls(pcode: str | None) -> frozenset:
    """The functions the code calls (ConvertFromFormat, PrefetchScalarData, CalcBufferAddr ...)."""
    root = _root(pcode)
    return frozenset(str(n.children[0]) for n in walk(root) if n.data == "call") if root is not None else frozenset()


def indexes(pcode: str | None, name: str) -> bool:
    """The code indexes or slices `name` (`PC[63 : 0]`)."""
    root = _root(pcode)
    return root is not None and any(n.data in ("index", "slice", "slice_up") and name_of(n.children[0]) == name
                                    for n in walk(root))

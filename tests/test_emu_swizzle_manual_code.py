"""ds_swizzle_b32's hand-written semantic (emu/handwritten/lanes.swizzle_sources) against the
manual's own code: the C-like block the grammar parses (isa/pcode/pcode.lark: `if (c) { }`,
`for (i = 0; i < 64; i++) { }`, `offset1:offset0`), run here by a small evaluator of its syntax
tree, lane by lane. Two readings the code leaves implicit: reverse_bits reverses the five lane bits
it is given (`reverse_bits(i & 0x1f)`), and a lane index stays in its 32-lane half (`(i + rotate) &
~mask` wraps: lane 0 rotated by -1 reads lane 31, not lane -1)."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import isa
from emu.handwritten.lanes import swizzle_sources
from isa.gen.effects import tree

_BINOPS = {"+": operator.add, "-": operator.sub, "&": operator.and_, "|": operator.or_, "^": operator.xor,
           ">>": operator.rshift, "<<": operator.lshift, ">=": operator.ge, "<": operator.lt, "==": operator.eq}


def _run(root, offset: int) -> np.ndarray:
    """The lane each of 64 lanes reads (thread_out[i] = thread_in[j]: j), every lane valid."""
    env = {"offset1": offset >> 8, "offset0": offset & 0xFF}
    out = {}

    def value(n):
        k = n.data
        if k == "number":
            return int(str(n.children[0]), 0)
        if k == "name":
            return env[str(n.children[0])]
        if k == "concat":                               # offset1:offset0
            return (value(n.children[0]) << 8) | value(n.children[1])
        if k == "binop":
            return _BINOPS[str(n.children[1])](value(n.children[0]), value(n.children[2]))
        if k == "unary":
            a = value(n.children[1])
            return {"-": -a, "~": ~a, "!": not a}[str(n.children[0])]
        if k == "ternary":
            return value(n.children[1]) if value(n.children[0]) else value(n.children[2])
        if k == "slice":
            v, hi, lo = value(n.children[0]), value(n.children[1]), value(n.children[2])
            return (v >> lo) & ((1 << (hi - lo + 1)) - 1)
        if k == "index":
            base, i = str(n.children[0].children[0]), value(n.children[1])
            return True if base == "thread_valid" else i if base == "thread_in" else (env[base] >> i) & 1
        if k == "call" and str(n.children[0]) == "count_ones":
            return bin(value(n.children[1])).count("1")
        if k == "call" and str(n.children[0]) == "reverse_bits":
            return int(f"{value(n.children[1]):05b}"[::-1], 2)
        raise AssertionError(f"the evaluator does not know {k}")

    def assign(s):
        if len(s.children) == 2:                        # i++
            env[str(s.children[0].children[0])] += 1
            return
        target, op, v = s.children[0], str(s.children[1]), value(s.children[2])
        if target.data == "index":                      # thread_out[i] = ...
            i = value(target.children[1])
            out[i] = (i & 32) | (v & 31)
            return
        name = str(target.children[0])
        env[name] = v if op == "=" else _BINOPS[op[0]](env[name], v)

    def block(b):
        for s in b.children:
            if s.data == "assign":
                assign(s)
            elif s.data == "if_":
                conditions = [s.children[0], *s.children[2].children[0::2]]
                bodies = [s.children[1], *s.children[2].children[1::2]]
                taken = next((body for c, body in zip(conditions, bodies) if value(c)), None)
                if taken is not None or len(s.children) > 3:
                    block(taken if taken is not None else s.children[3])
            elif s.data == "c_for":
                assign(s.children[0])
                while value(s.children[1]):
                    block(s.children[3])
                    assign(s.children[2])
            else:
                raise AssertionError(f"the evaluator does not know {s.data}")

    block(root.children[0])
    return np.array([out[i] for i in range(64)])


_OFFSETS = (list(range(0, 0x8000, 127)) + list(range(0x8000, 0x8100))          # bitmask, quad permute
            + list(range(0xC000, 0xC800, 3)) + list(range(0xE000, 0xE020)) + [0xFFFF])  # rotate (both ways), FFT


@pytest.mark.parametrize("family", ["rdna3", "rdna4", "cdna3"])
def test_swizzle_sources_follow_the_manuals_code(family):
    root = tree(isa.load(family).lookup("ds_swizzle_b32")[0].pcode)
    for offset in _OFFSETS:
        expected = _run(root, offset)
        assert (swizzle_sources(offset, 64) == expected).all(), hex(offset)
        assert (swizzle_sources(offset, 32) == expected[:32]).all(), hex(offset)

"""A list modifier with a bad entry (op_sel:[2,0], neg_hi:[0,2], quad_perm:[0,4,0,0]) is refused
at that entry's column, as llvm-mc-22 reports it (skipped without it), on the gfx9 (CDNA) and the
RDNA assembler alike; the parser keeps each entry's column (asm_parse.term_columns' (key, index)).

Lists of the wrong shape (tests/list_modifier_shapes.py: too short, too long, empty, unclosed,
unbracketed, an entry out of range, on every VOP3/VOP3P and DPP instruction) are refused where
llvm-mc-22 refuses them, by dsl.list_reader's one rule: where LLVM's list reader stops, unless
the instruction lacks the modifier (at its key) or the mnemonic's form (at the mnemonic)."""
from __future__ import annotations

import re

import pytest

from dsl import assemble

from .list_modifier_shapes import shape_lines
from .llvm_tools import mc_errors, mc_items

LINES = {
    "gfx942": ["v_pk_add_f16 v1, v2, v3 op_sel:[2,0]", "v_pk_add_f16 v1, v2, v3 op_sel:[0,2]",
               "v_pk_add_f16 v1, v2, v3 op_sel_hi:[0,3]", "v_pk_add_f16 v1, v2, v3 neg_lo:[0,3]",
               "v_pk_add_f16 v1, v2, v3 neg_hi:[1,2]", "v_pk_fma_f16 v1, v2, v3, v4 op_sel:[0,0,5]",
               "v_mov_b32_dpp v0, v1 quad_perm:[0,4,0,0] row_mask:0xf bank_mask:0xf",
               "v_add_i16 v1, v2, v3 op_sel:[0,2,0]", "v_mad_u16 v1, v2, v3, v4 op_sel:[0,0,0,2]"],
    "gfx1100": ["v_add_f16_e64 v1, v2, v3 op_sel:[2,0]", "v_add_f16_e64 v1, v2, v3 op_sel:[0,0,2]",
                "v_pk_add_f16 v1, v2, v3 op_sel:[0,1,1,2]", "v_pk_add_f16 v1, v2, v3 neg_hi:[0,2]",
                "v_mov_b32_dpp v0, v1 quad_perm:[0,4,0,0] row_mask:0xf bank_mask:0xf",
                "v_mov_b32_dpp v0, v1 dpp8:[0,1,2,3,4,5,6,9]"],
    "gfx1201": ["v_pk_add_f16 v1, v2, v3 neg_hi:[0,2]", "v_fma_f16 v1, v2, v3, v4 op_sel:[0,3,0,0]"],
}


def _our_column(line: str, target: str) -> int | None:
    try:
        assemble(line, target)
    except ValueError as e:
        return int(re.match(r"\d+:(\d+):", str(e)).group(1))
    return None


@pytest.mark.parametrize("target", sorted(LINES))
def test_list_entry_columns_match_llvm(target):
    lines = LINES[target]
    llvm = mc_errors(lines, target)
    assert len(llvm) == len(lines), f"llvm-mc accepts {[l for i, l in enumerate(lines) if i not in llvm]}"
    for i, line in enumerate(lines):
        want = llvm[i][0]
        assert line[want - 1] in "0123456789", f"{line!r}: llvm's column {want} is not at a list entry"
        assert _our_column(line, target) == want, f"{line!r}: llvm column {want}, ours {_our_column(line, target)}"


# (target prefix, pattern of a line whose column differs from llvm-mc-22's, why)
KNOWN = [("gfx1201", r" byte_sel:\[0,1\]$",
          "byte_sel takes a number; LLVM reads [0,1] as a bracketed expression and stops at its comma "
          "(\"expected ']' in brackets expression\"), we refuse the list at byte_sel's key")]

# one base line in EVERY (of ~500 VOP3/VOP3P and ~1000 VALU lines a target), each in every shape
EVERY = 9


@pytest.mark.parametrize("target", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_wrong_list_shapes_are_refused_at_llvms_column(target, capsys):
    lines = shape_lines(target, EVERY)
    known = [(re.compile(pattern), why) for prefix, pattern, why in KNOWN if target.startswith(prefix)]
    same, accepted, differ, listed = 0, [], [], set()
    for line, (_, errors) in zip(lines, mc_items(lines, target)):
        if not errors:
            continue
        ours = _our_column(line, target)
        if ours is None:
            accepted.append(line)
        elif ours == errors[0][0]:
            same += 1
        elif any(p.search(line) for p, _ in known):
            listed.update(why for p, why in known if p.search(line))
        else:
            differ.append(f"{line!r}: llvm-mc {errors[0][0]} ({errors[0][1]}), ours {ours}")
    with capsys.disabled():
        print(f"\n{target}: {len(lines)} lines, {same} refusals at llvm-mc-22's column, {len(differ)} elsewhere, "
              f"{len(accepted)} accepted")
    assert same > 3000
    assert not accepted, f"llvm-mc refuses, we accept: {accepted[:20]}"
    assert not differ, "\n".join(differ[:30])
    assert listed == {why for _, why in known}, "a KNOWN entry no line needs"

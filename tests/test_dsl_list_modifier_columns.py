"""A list modifier with a bad entry (op_sel:[2,0], neg_hi:[0,2], quad_perm:[0,4,0,0]) is refused
at that entry's column, as llvm-mc-22 reports it (skipped without it), on the gfx9 (CDNA) and the
RDNA assembler alike; the parser keeps each entry's column (asm_parse.term_columns' (key, index))."""
from __future__ import annotations

import re

import pytest

from dsl import assemble

from .llvm_tools import mc_errors

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

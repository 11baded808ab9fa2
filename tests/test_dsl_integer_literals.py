"""Integer literals read as LLVM's MC lexer reads them: a leading 0 makes an integer octal
(017 is 15, 08 is refused), 0X/0B prefixes in capitals, in operands and inside list modifiers
(op_sel:[01,..], quad_perm:[03,..]) -- bytes and refusal columns against llvm-mc-22."""
import pytest

import dsl
from dsl.asm_parse import AsmError
from tests.llvm_tools import mc_encodings, mc_errors, tool

LINES = ["s_mov_b32 s0, 010", "s_mov_b32 s0, 017", "s_mov_b32 s0, 00", "s_mov_b32 s0, 0777",
         "s_mov_b32 s0, 08", "s_mov_b32 s0, 019", "s_mov_b32 s0, 0X1F", "s_mov_b32 s0, 0B101",
         "v_add_nc_u32 v1, 010, v2", "s_add_u32 s0, s1, 0100", "s_waitcnt_vscnt null, 010",
         "v_fma_f16 v1, v2, v3, v4 op_sel:[01,0,0,0]", "v_fma_f16 v1, v2, v3, v4 op_sel:[010,0,0,0]",
         "v_fma_f16 v1, v2, v3, v4 op_sel:[08,0,0,0]", "v_fma_f16 v1, v2, v3, v4 op_sel:[0X1,0B1,0,0]",
         "v_mov_b32_dpp v1, v2 quad_perm:[03,02,01,00]", "v_mov_b32_dpp v1, v2 quad_perm:[04,0,0,0]",
         "v_mov_b32_dpp v1, v2 dpp8:[07,06,05,04,03,02,01,00]"]


def _ours(line: str):
    try:
        return dsl.assemble(line, arch="gfx1100")
    except AsmError as e:
        line_col = str(e).split(":", 2)
        return int(line_col[1])


def test_integer_literals_are_llvms():
    tool("llvm-mc")
    want, errors = mc_encodings(LINES, "gfx1100"), mc_errors(LINES, "gfx1100")
    for i, line in enumerate(LINES):
        got = _ours(line)
        if want[i] is None:
            assert got == errors[i][0], (line, got, errors[i])
        else:
            assert got == want[i], (line, got, want[i])


@pytest.mark.parametrize("text,value", [("017", 15), ("0", 0), ("00", 0), ("0x1F", 31), ("0B11", 3), ("19", 19)])
def test_number_reads_octal(text, value):
    from dsl.asm_lexer import number
    assert number(text) == value

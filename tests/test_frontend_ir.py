"""The frontend IR: text form round trip, validation errors that name the instruction or
line, and the compile errors for what the frontend does not select (naming the op)."""
from __future__ import annotations

import pytest

from frontend.compile import compile_program
from frontend.ir import Buffer, DType, Instr, IRError, Program, parse
from frontend.isel import CompileError

TEXT = """kernel k
buffer out f32[64]
buffer x f16[64]
var n i32 1..64
lds t f32[256]
reg acc f32[4]
%0 = i32 local_id 0 64
%1 = i32 group_id 1 8
%2 = f16x4 load x[%0]
%3 = f16 gep %2 3
%4 = f32 cast %3
%5 = i32 param n
%6 = bool cmplt %0 %5
%7 = f32 const -0.5
%8 = f32 load t[%0] if %6 else %7
%9 = f32 range %5
end %9
if %6
store out[%0] %8 if %6
endif %11
barrier
%15 = f32x2 vec %4 %8
"""


def test_text_round_trip():
    p = parse(TEXT)
    assert parse(p.text()) == p
    assert p.instrs[8] == Instr("load", DType("f32"), (0, 6, 7), "t")
    assert p.instrs[2].dtype == DType("f16", 4) and str(p.instrs[2].dtype) == "f16x4"
    assert p.buffers[1] == Buffer("x", DType("f16"), 64)


@pytest.mark.parametrize("line,msg", [
    ("%1 = f32 frob %0", "unknown op 'frob'"),
    ("%1 = f32 add %0 %7", "source %7 is not an earlier instruction"),
    ("%1 = f32 load nowhere[%0]", "no buffer or array named 'nowhere'"),
    ("%1 = q9 const 1", "unknown dtype 'q9'"),
    ("%1 = u8 const 300", "300 does not fit u8"),
    ("%2 = i32 const 1", "value %2 is instruction 1"),
    ("end %0", "does not close the innermost open range"),
    ("%1 = i32 add %0", "add takes 2 sources, got 1"),
])
def test_bad_ir_names_the_line(line, msg):
    text = "kernel k\nbuffer out f32[64]\n%0 = i32 local_id 0 64\n" + line + "\n"
    with pytest.raises(IRError) as e:
        parse(text)
    assert msg in str(e.value)
    assert "line 4" in str(e.value) or "%1" in str(e.value) or "%2" in str(e.value)


def test_unclosed_range_is_an_error():
    with pytest.raises(IRError, match="never closed"):
        parse("kernel k\n%0 = i32 const 4\n%1 = i32 range %0\n")


def test_program_is_immutable():
    p = parse(TEXT)
    with pytest.raises(Exception):
        p.name = "other"


def test_unsupported_op_names_the_instruction():
    p = parse("kernel k\nbuffer out f32x2[4]\nbuffer a f32x2[4]\n%0 = i32 local_id 0 4\n%1 = f32x2 load a[%0]\n"
              "%2 = f32x2 add %1 %1\nstore out[%0] %2\n")
    with pytest.raises(CompileError) as e:
        compile_program(p)
    assert "%2 (%2 = f32x2 add %1 %1)" in str(e.value) and "vector" in str(e.value)


def test_instruction_notes_round_trip_as_comments_and_locate_compile_errors():
    p = parse(TEXT)
    notes = [f"note {i}" if i % 3 else "" for i in range(len(p.instrs))]
    text = p.text(notes)
    assert "%4 = f32 cast %3  # note 4" in text and "%0 = i32 local_id 0 64\n" in text
    got: list = []
    assert parse(text, got) == p and got == notes
    bad = parse("kernel k\nbuffer out f32x2[4]\nbuffer a f32x2[4]\n%0 = i32 local_id 0 4  # id\n"
                "%1 = f32x2 load a[%0]  # the load\n%2 = f32x2 add %1 %1  # the vector add\nstore out[%0] %2\n", got := [])
    with pytest.raises(CompileError) as e:
        compile_program(bad)
    assert e.value.index == 2 and got[e.value.index] == "the vector add"


def test_divergent_loop_bound_is_refused_with_the_instruction():
    p = parse("kernel k\nbuffer out i32[4]\n%0 = i32 local_id 0 4\n%1 = i32 range %0\nend %1\n")
    with pytest.raises(CompileError, match=r"%1 \(%1 = i32 range %0\).*differs per lane"):
        compile_program(p)


def test_computed_register_index_is_refused():
    p = parse("kernel k\nbuffer out f32[4]\nreg r f32[4]\n%0 = i32 local_id 0 4\n%1 = f32 load r[%0]\n"
              "store out[%0] %1\n")
    with pytest.raises(CompileError, match="indexed by a computed value"):
        compile_program(p)


def test_programs_built_in_python_validate():
    with pytest.raises(IRError, match="produces no value"):
        Program("k", instrs=(Instr("store", DType("f32"), (), "x"),))


def test_readme_example_runs():
    import pathlib
    import re
    text = (pathlib.Path(__file__).parent.parent / "frontend" / "README.md").read_text()
    exec(re.search(r"```python\n(.*?)```", text, re.S).group(1), {})

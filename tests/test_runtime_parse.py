"""dsl.asm.parse: the statement stream the code-object assembler (runtime/) builds on."""
import pytest

import dsl
from dsl.asm import AsmError, Directive, Instr, Label, parse

SOURCE = """\
\t.text
\t.globl k ; a comment
k:  .p2align 8 // another
\tv_add_f32 v1, v2, v3
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .name: k
\t.end_amdgpu_metadata
.Lend: s_endpgm
"""


def test_parse_keeps_source_order_with_positions():
    items = parse(SOURCE)
    kinds = [type(it).__name__ for it in items]
    assert kinds == ["Directive", "Directive", "Label", "Directive", "Instr", "Directive", "Label", "Instr"]
    globl = items[1]
    assert (globl.name, globl.args, globl.line, globl.column) == (".globl", "k", 2, 2)
    align = items[3]
    assert (align.name, align.args, align.line, align.column) == (".p2align", "8", 3, 5)
    meta = items[5]
    assert meta.name == ".amdgpu_metadata" and meta.line == 5
    assert meta.body == "---\namdhsa.kernels:\n  - .name: k\n"
    assert isinstance(items[6], Label) and items[6].name == ".Lend"


def test_unterminated_raw_block_names_its_line():
    with pytest.raises(AsmError, match=r"^2:1: .amdgpu_metadata has no .end_amdgpu_metadata"):
        parse("s_endpgm\n.amdgpu_metadata\nfoo: 1\n")


def test_instruction_assembler_refuses_code_object_directives():
    assert dsl.assemble(".text\ns_endpgm", "gfx1100") == dsl.assemble("s_endpgm", "gfx1100")
    with pytest.raises(AsmError, match=r"^2:2: directive .amdhsa_kernel needs a code object"):
        dsl.assemble("s_endpgm\n .amdhsa_kernel k\n", "gfx1100")

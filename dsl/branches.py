"""Branch offsets to labels: once every label's offset is known, each branch's 16-bit signed
dword offset is patched in, or the branch refused at its label operand's line:column (shared by
the RDNA and gfx9 assemblers and the code-object writer)."""
from __future__ import annotations

from .asm_parse import AsmError, term_columns
from .instr import Instr


def resolve_branches(code: bytearray, fixups: list, labels: dict[str, int], lines: list[str] | None = None) -> None:
    """Patch each branch's 16-bit dword offset to its label (offsets within `code`); an
    undefined label or one beyond the 16-bit signed offset is an error at the label operand's
    line:column (given the source `lines`, else at the mnemonic's)."""
    for pos, name, st in fixups:
        if type(name) is not str:
            continue                     # a symbolic literal: resolve_literals
        where = f"{st.line}:{_label_column(st, lines)}: {st.mnemonic}"
        if name not in labels:
            raise AsmError(f"{where}: undefined label {name!r}")
        delta = (labels[name] - (pos + 4)) // 4
        if not -0x8000 <= delta <= 0x7fff:
            raise AsmError(f"{where}: label {name!r} is {delta} dwords away; a branch's offset is a signed "
                           f"16-bit number of dwords (-32768..32767)")
        code[pos:pos + 2] = (delta & 0xffff).to_bytes(2, "little")


def _label_column(st: Instr, lines: list[str] | None) -> int:
    """Column of a branch's label (its last operand) on its line, else of its mnemonic."""
    if lines is None or not 0 < st.line <= len(lines) or not st.operands:
        return st.column
    return term_columns(lines[st.line - 1], st.column).get(len(st.operands) - 1) or st.column

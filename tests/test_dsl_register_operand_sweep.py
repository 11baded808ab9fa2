"""Register widths and alignments in every operand of every instruction (all families) against
llvm-mc-22 (gfx942, gfx950, gfx1100, gfx1151, gfx1201).

For each mnemonic of LLVM 22's corpus that LLVM re-encodes (one row per mnemonic, as the
constant sweep picks it, all families), each register operand in turn is written one register
narrower and one wider than the row has it (s[2:3] -> s2 and s[2:4]; v1 -> v[1:2]; likewise
AGPRs and TTMPs), as an aligned tuple of twice and half its size (v1 -> v[4:5]; v[0:3] ->
v[16:23], v[16:17]), its tuple started at an odd register (s[3:4], v[3:4]: LLVM wants 64-bit
aligned tuples on gfx90a and later, even scalar pairs everywhere), and a 64-bit special register
swapped with its 32-bit half (vcc <-> vcc_lo, exec <-> exec_lo). One llvm-mc run per target;
every line must be accepted alike with the same bytes or refused by both, except the differences
listed in KNOWN, each with its reason (an entry no line needs any more fails the test)."""
from __future__ import annotations

import re
import pytest

import dsl

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import _operand_spans, _rows, ours

ARCHS = ["gfx942", "gfx950", "gfx1100", "gfx1151", "gfx1201"]
ALL_FAMILIES = re.compile(r"")
_REGISTER = re.compile(r"(?<![\w.])(s|v|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])(?![\w\[])")
_HALVES = {"vcc": "vcc_lo", "vcc_lo": "vcc", "exec": "exec_lo", "exec_lo": "exec",
           "vcc_hi": "vcc", "exec_hi": "exec"}
_SPECIAL = re.compile(r"(?<![\w.])(vcc_lo|vcc_hi|vcc|exec_lo|exec_hi|exec)(?![\w\[])")


def _spell(cls: str, first: int, n: int) -> str:
    return f"{cls}{first}" if n == 1 else f"{cls}[{first}:{first + n - 1}]"


def _variants(operand: str) -> list[str]:
    """The operand's text with its register width off by one each way, its tuple misaligned,
    or its special register's other width."""
    m = _REGISTER.search(operand)
    out = []
    if m:
        cls = m.group(1)
        first = int(m.group(2) if m.group(2) is not None else m.group(3))
        n = 1 if m.group(2) is not None else int(m.group(4)) - first + 1
        spellings = [_spell(cls, first, n + 1)] + ([_spell(cls, first, n - 1)] if n > 1 else [])
        # a tuple of twice or half the size, aligned (v1 -> v[4:5], v[0:3] -> v[16:23] and v[16:17])
        spellings += [_spell(cls, 4 * n, w) for w in (2 * n if n < 8 else 0, n // 2) if w]
        if n > 1:           # odd first register; a wider tuple's also 2-aligned only
            spellings += [_spell(cls, first + 1, n)] + ([_spell(cls, first + 2, n)] if n > 2 else [])
        out = [operand[:m.start()] + s + operand[m.end():] for s in spellings]
    m = _SPECIAL.search(operand)
    if m:
        out.append(operand[:m.start()] + _HALVES[m.group(1)] + operand[m.end():])
    return out


def width_lines(arch: str) -> list[str]:
    lines = []
    for text in _rows(arch, ALL_FAMILIES).values():
        for a, b in _operand_spans(text):
            lines += [text[:a] + v + text[b:] for v in _variants(text[a:b])]
    return lines


def _dpp(line: str) -> bool:
    return line.split(" ")[0].endswith("_dpp") or bool(re.search(r"quad_perm:|row_\w+|wave_\w+|dpp8:", line))


# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
KNOWN = [
    ("gfx9", lambda line, llvm, err: _dpp(line) and llvm is not None and "this operand needs" in err,
     "LLVM 22 takes a VGPR tuple of any width as a gfx9 DPP source (v_add_f32_dpp v1, v[2:3], v4; "
     "v_ceil_f64_dpp v[0:1], v2) and encodes its first register; we refuse the width as on every "
     "other encoding and as LLVM does in VOP1/VOP2/VOP3"),
    ("gfx950", lambda line, llvm, err: line.startswith("ds_read_b96_tr_b6 ") and llvm is not None and
     "64-bit aligned" in err,
     "LLVM 22 takes an odd-aligned 96-bit result for ds_read_b96_tr_b6 only (ds_read_b96, "
     "ds_read_b64_tr_b*, global_load_dwordx3 refuse v[1:3]); we keep gfx90a's even alignment rule "
     "(the one row of LLVM's gfx950 corpus we refuse is this case)"),
]


@pytest.mark.parametrize("arch", ARCHS)
def test_register_widths_in_every_operand_match_llvm(arch):
    lines = width_lines(arch)
    assert len(lines) > 1000
    agree, known, bad = compare_with_mc(arch, lines, mc_encodings(lines, arch), ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    unused = {why for prefix, _, why in KNOWN if arch.startswith(prefix)} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_wrong_widths_name_line_column_instruction_and_operand(arch):
    """The lines of the defect report: llvm-mc-22 refuses each; our error names line:column (the
    refused operand's), the instruction, the operand and what was written."""
    cases = [("s_mov_b64 s[0:1], s2", "2:19: s_mov_b64: ", "ssrc0", "s2"),
             ("s_mov_b64 s0, s[2:3]", "2:11: s_mov_b64: ", "sdst", "s0"),
             ("s_rfe_restore_b64 s[0:1], s[2:3]", "2:27: s_rfe_restore_b64: ", "ssrc1", "s[2:3]"),
             ("v_add_f64 v[0:1], v[2:3], v4", "2:27: v_add_f64: ", "src1", "v4"),
             ("global_load_dwordx2 v[0:2], v[2:3], off", "2:21: global_load_dwordx2: ", "vdst", "v[0:2]"),
             ("s_and_b64 vcc_lo, s[0:1], s[2:3]", "2:11: s_and_b64: ", "sdst", "vcc_lo")]
    assert mc_encodings([line for line, *_ in cases], arch) == [None] * len(cases)
    for line, where, operand, text in cases:
        with pytest.raises(dsl.AsmError) as e:
            dsl.assemble("s_nop 0\n" + line, arch)
        message = str(e.value).splitlines()[0]
        assert message.startswith(where) and operand in message and text in message, message

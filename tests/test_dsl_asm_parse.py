"""dsl.asm.parse: the lexer (dsl/asm_lexer.py) and the recursive-descent parser (dsl/asm_parse.py).

The reference for what a line means is llvm-mc-22: lines where blanks, signs, bars, key:value
spacing and symbol expressions could be read more than one way are assembled by both, and
must be accepted or refused alike with the same bytes (the differences that remain are listed
with their reason). Blanks, comments, block comments, CRLF line ends and the mnemonic's case
must change nothing in what LLVM's corpus and MC lines parse to, and syntax errors name
line:column, the token and the instruction."""
from __future__ import annotations

import gzip
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
import dsl.asm as asm
from .conftest import shared_path
from .llvm_tools import tool

REPO = Path(__file__).resolve().parent.parent


# where a line could be read more than one way
TRICKY = ["s_mov_b32 s0, v1[2]", "v_mov_b32 v1, 1.5e3", "v_mov_b32 v1, 0x1e5", "s_mov_b32 s0, foo-bar(",
          "s_waitcnt vmcnt (0) lgkmcnt(0)", "s_waitcnt vmcnt(0) & lgkmcnt(0)", "s_waitcnt vmcnt(0) | lgkmcnt(0)",
          "v_add_f32 v1, v2 , v3", "ds_add_u32 v1, v2 offset : 8 gds", "v_mov_b32 v1, v2 quad_perm : [0,1,2,3]",
          "s_nop 0b12", "v_add_f32 v1, v2, v3 clamp::v_dual_mul_f32 v1, v2, v3", "s_mov_b32 s0, s1 & s2",
          "s_load_b32 s0, s[0:1], 0x0 glc dlc\n", "x: v_nop\n.text\n\tv_nop ; c\n/* b */ v_nop",
          "s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(VALU_DEP_2)",
          "s_delay_alu instid0(VALU_DEP_1)|instskip(NEXT)", "s_delay_alu instid0(VALU_DEP_1) instskip(NEXT)",
          "s_version 2|UC_VERSION_W32_BIT", "s_version UC_VERSION_W64_BIT|UC_VERSION_MDP_BIT",
          # signs and bars: LLVM reads `v2-v3` and `v2 -v3` as two operands, `v2 +v3` as neither
          "v_add_f32 v1, v2-v3", "v_add_f32 v1, v2 -v3 clamp", "v_add_f32 v1, v2 +v3", "v_add_f32 v1, v2 |v3|",
          "v_add_f32 v1, v2.l-v3", "v_add_f32 v1, v2 - 4, v3", "v_add_f32 v1, 4 -v2", "v_add_f32 v1, 4 +v2", "v_add_f32 v1, v2 -4",
          "v_add_f32 v1, 1.5 -v2", "v_add_f32 v1, vcc_lo -v3", "v_add_f32 v1, v2 -|v3|", "v_add_f32 v1,-v2.l -v3",
          "v_add_f32 v1, -v2|v3", "v_add_f32 v1, |-1|, -|-v[2:3]|", "v_add_f32 v1, -0x10, |1.5e3|, -1e",
          "v_add_f32 v1, - v2, | v3 |", "v_add_f32 v1, -|v2|(", "v_add_f32 v1, -v2:1", "v_add_f32 v1, --v2, -|v3|", "v_add_f32 v1, --1, v2", "v_add_f32 v1, -(-1), v2",
          "v_add_f32 v1, -|-1|, v3",
          "v_nop-1", "v_add_f32 v1, -vcc, |exec_lo|, -4.0", "v_add_f32 v1, -v2[1], -s[2:3]x, -|v1|:: v_nop",
          "v_add_f32 v1, neg(v2), abs(-v3)", "v_add_f32 v1, -abs(v2), v3", "v_add_f32 v1, |-v2|, v3",
          "v_add_f32 v1, neg(abs(v2)), v3", "v_add_f32 v1, neg(v2), v3", "s_mov_b32 s0, -(1)",
          "v_add_f32 v1 ,v2, v3", "v_add_f32 v1, v2 // v3 clamp", "v_add_f32\tv1,\tv2 ;x v4", "v_nop.l v1",
          "v_pk_add_f16 v1, v2, v3 op_sel:[0, 1]", "s_mov_b32 s0, v1 +4", "v_nop v1 :5", "v_mov_b32 v1, lit(1.0)",
          "v_add_f32 v1, v2, v3 clamp -v4", "v_add_f32 v1, v2,, v3", "v_add_f32 v1, v2, v3,", "v_add_f32 , v1, v2",
          "v_nop\tv1  \t\r\n", "V_MOV_B32 v1, 0X10", "v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5",
          "v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5 :: v_nop", "v_mov_b32 v1, v2 row_shl:1 bound_ctrl:0",
          "v_mov_b32 v1, v2 dpp8:[7,6,5,4,3,2,1,0]", "global_load_b32 v1, v[2:3], off offset:-16", "s_nop 0 x:"]

# LLVM and dsl.assemble differ on these lines, each for a reason that is not the parser's reading
KNOWN = {
    "s_version 2 | UC_VERSION_W32_BIT": "an or-bar with blanks around it after a number is read as |abs| bars",
    "s_mov_b32 s0, foo - 4": "a symbol's value needs a code object: dsl.assemble refuses, runtime.asm_module relocates",
}


def _llvm(text: str) -> str | None:
    """LLVM's encoding of `text` for gfx1100 (hex), or None when it refuses it."""
    done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", "-mcpu=gfx1100", "-show-encoding"],
                          input=text if text.endswith("\n") else text + "\n", capture_output=True, text=True)
    if "error:" in done.stderr or done.returncode:
        return None
    found = re.findall(r"encoding: \[([^\]]*)\]", done.stdout)
    return bytes(int(x, 16) for enc in found for x in enc.split(",")).hex()


def _ours(text: str) -> str | None:
    try:
        return dsl.assemble(text, "gfx1100").hex()
    except dsl.AsmError:
        return None


def test_lines_read_as_llvm_reads_them():
    differ = []
    for text in TRICKY + list(KNOWN):
        want, got = _llvm(text), _ours(text)
        if (want != got) != (text in KNOWN):
            differ.append(f"{text!r}: LLVM {want}, dsl {got}")
    assert not differ, "\n".join(differ)


def _shape(items) -> list:
    """What a parse says, without where it was said (respacing moves columns)."""
    def one(it):
        if isinstance(it, asm.Instr):
            return (it.mnemonic, repr(it.operands), repr(it.modifiers), it.line, one(it.dual) if it.dual else None)
        return (type(it).__name__, getattr(it, "name", None), getattr(it, "args", None), it.line)
    return [one(it) for it in items]


def _outcome(text: str):
    try:
        return _shape(asm.parse(text))
    except asm.AsmError as e:
        return f"refused at line {str(e).split(':')[0]}"


def _variants(line: str) -> list[str]:
    word, _, rest = line.partition(" ")
    return [line.replace(", ", ","), line.replace(" ", "  "), line.replace(", ", " , "), "\t" + line,
            line + " // comment", line + ";c", line + " # c", line + "\r", f"{word} /* a\tb */ {rest}",
            f"{word.upper()} {rest}", re.sub(r"\b([a-z_][a-z0-9_]*):(?=[\w\[-])", r"\1 : ", line, count=1)]


def test_blanks_comments_and_case_change_nothing():
    lines = []
    with gzip.open(shared_path("conformance", "llvm", "gfx1100.tsv.gz"), "rt") as f:
        col = next(f).rstrip("\n").split("\t").index("text")
        lines += [row.rstrip("\n").split("\t")[col] for row in f]
    for path in sorted(shared_path("conformance", "llvm-mc").glob("*.s")):
        lines += [x for x in path.read_text().splitlines() if x.strip() and not x.lstrip().startswith(("//", ";", "#"))]
    differ = []
    for line in random.Random(1).sample(lines, 4000):
        want = _outcome(line)
        for variant in _variants(line):
            got = _outcome(variant)
            if got != want:
                differ.append(f"{line!r} -> {variant!r}\n  {str(want)[:200]}\n  {str(got)[:200]}")
    assert not differ, f"{len(differ)} variants differ:\n" + "\n".join(differ[:5])
    assert _outcome("\n".join(lines[:300])) == _outcome("\r\n".join(lines[:300]))


def test_syntax_errors_name_line_column_token_and_instruction():
    cases = [("s_nop 0\nv_add_f32 v1,, v2", r"^2:14: unexpected ',' in v_add_f32; expected an operand\n"),
             ("v_add_f32 v1, (v2", r"^1:18: unexpected end of line in v_add_f32; expected '\)'"),
             ("v_add_f32 v1, -|v2, v3", r"^1:19: unexpected ',' in v_add_f32; expected '\|' closing"),
             ("x: 1abc", r"^1:4: unexpected '1'; expected a label, an instruction or a directive"),
             ("v_add_f32 v1, v2, v3 :: ", r"^1:24: unexpected end of line in v_add_f32; expected an instruction"),
             ("  v_add_f32 v1, v999, v2", r"^1:17: v_add_f32: register v999 is out of range"),
             ("v_add_f32 v1, 4 -v2", r"^1:17: unexpected '-' in v_add_f32"),
             ("v_mov_b32 v1, v2 row_mask:0xf row_mask:0xe", r"^1:31: v_mov_b32: modifier row_mask is given twice"),
             ("v_add_f32 v1, v2, s[0:1]", r"^1:19: v_add_f32: src1: "),
             ("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, s[0:1]", r"^1:53: v_dual_mul_f32: vsrc1: "),
             ("global_load_b32 v1, v[2:3], off offset:16000000 glc", r"^1:33: global_load_b32: offset:16000000")]
    for text, pattern in cases:
        with pytest.raises(dsl.AsmError, match=pattern):
            dsl.assemble(text, "gfx1100")


def test_directives_keep_their_text_and_labels_their_place():
    items = asm.parse("k:\n  .globl k ; why\n.Lx: s_nop 0\n .long v999, \"a;b\n.byte 1 # 2 // c")
    assert [type(it).__name__ for it in items] == ["Label", "Directive", "Label", "Instr", "Directive", "Directive"]
    assert (items[1].name, items[1].args, items[1].line, items[1].column) == (".globl", "k", 2, 3)
    assert (items[2].name, items[3].column) == (".Lx", 6)
    assert items[4].args == "v999, \"a"        # up to the comment, as the code-object assembler reads it
    assert items[5].args == "1 # 2"


def test_the_assembler_parses_without_lark():
    code = "import sys, dsl; dsl.assemble('v_add_f32 v1, v2, v3', 'gfx1100'); assert 'lark' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)

"""dsl.asm.parse's speed-ups change nothing it returns.

parse() runs asm.lark with two shortcuts: its own contextual lexer (dsl/asm_lexer.py) and
the TERMS terminals, a run of plain terms lexed as one token (with its line's mnemonic in
INSTR_NL) and split again in asm.py. The reference here is the same grammar with TERMS,
TERMS_NL and INSTR_NL never matching, on lark's own contextual lexer: both must
give the same labels, statements and directives (or the same error) for LLVM's corpus and MC
test lines, for respaced and commented variants of them, and for the examples' files."""
from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from lark import Lark

import dsl.asm as asm
from .conftest import shared_path

REPO = Path(__file__).resolve().parent.parent


# where a run of terms could end differently from token-by-token lexing
TRICKY = ["s_mov_b32 s0, v1[2]", "v_mov_b32 v1, 1.5e3", "v_mov_b32 v1, 0x1e5", "s_mov_b32 s0, foo - 4",
          "s_mov_b32 s0, foo-bar(", "s_waitcnt vmcnt (0) lgkmcnt(0)", "v_add_f32 v1, inf, v2",
          "v_add_f32 v1, info, v2", "s_mov_b32 s0, 2|UC_VERSION_W32_BIT", "v_add_f32 v1, v2 , v3",
          "ds_add_u32 v1, v2 offset : 8 gds", "v_mov_b32 v1, v2 quad_perm : [0,1,2,3]", "s_nop 0b12",
          "v_add_f32 v1, v2, v3 clamp::v_dual_mul_f32 v1, v2, v3", "s_mov_b32 s0, s1 & s2", "v_mov_b32 v1, 1e",
          "s_load_b32 s0, s[0:1], 0x0 glc dlc\n", "x: v_nop\n.text\n\tv_nop ; c\n/* b */ v_nop",
          # signed terms in a run (-v1, |s2|, -|v[0:1]|, |-1|) and what must stay out of them
          "v_add_f32 v1, v2-v3", "v_add_f32 v1, v2 -v3 clamp", "v_add_f32 v1, v2.l-v3", "v_add_f32 v1, v2 - 4, v3",
          "v_add_f32 v1, v2 -|v3|", "v_add_f32 v1,-v2.l -v3", "v_add_f32 v1, -v2|v3", "v_add_f32 v1, |v2|v3",
          "v_add_f32 v1, |-1|, -|-v[2:3]|", "v_add_f32 v1, -0x10, |1.5e3|, -1e", "v_add_f32 v1, - v2, | v3 |",
          "v_add_f32 v1, -|v2|(", "v_add_f32 v1, -v2:1", "v_add_f32 v1, --v2, -|v3|, |v4||v5|", "v_nop-1",
          "v_add_f32 v1, -vcc, |exec_lo|, -inf", "v_add_f32 v1, -v2[1], -s[2:3]x, -|v1|:: v_nop",
          # lines split at blanks (a word per term) and what must not be
          "v_add_f32 v1 ,v2, v3", "v_add_f32 v1, v2 // v3 clamp", "v_add_f32\tv1,\tv2 ;x v4", "v_nop.l v1",
          "v_pk_add_f16 v1, v2, v3 op_sel:[0, 1]", "s_mov_b32 s0, foo -4", "s_mov_b32 s0, v1 +4", "v_nop v1 :5",
          "v_add_f32 v1, 4 -v2", "v_add_f32 v1, v2, v3 clamp -v4", "v_add_f32 v1, v2,, v3", "v_nop\tv1  \t\r\n"]


def _reference_parser() -> Lark:
    grammar = (Path(asm.__file__).parent / "asm.lark").read_text()
    runs = [line for line in grammar.split("\n") if line.startswith(("TERMS.", "TERMS_NL.", "INSTR_NL."))]
    assert len(runs) == 3
    for line in runs:       # runs of terms never match: every term is lexed on its own
        grammar = grammar.replace(line, line.split(":")[0] + ": /(?!)x/")
    return Lark(grammar, parser="lalr", lexer="contextual", transformer=asm._ToStatements(),
                maybe_placeholders=False)


def _outcome(parse, text: str) -> str:
    try:
        return repr(parse(text))
    except Exception as e:     # the same kind of error at the same place (the token named may differ)
        return f"{type(e).__name__}: {str(e).split()[0]}"


def _variants(line: str) -> list[str]:
    return [line, line.replace(", ", ","), line.replace(" ", "  "), line.replace(",", " ,"),
            line + " // comment", line + ";c", line.replace(":", " : ", 1), line.upper()]


def test_parse_matches_the_grammar_without_shortcuts(monkeypatch):
    lines = []
    with gzip.open(shared_path("conformance", "llvm", "gfx1100.tsv.gz"), "rt") as f:
        col = next(f).rstrip("\n").split("\t").index("text")
        lines += [row.rstrip("\n").split("\t")[col] for row in f]
    for path in sorted(shared_path("conformance", "llvm-mc").glob("*.s")):
        lines += path.read_text().splitlines()
    sample = random.Random(1).sample(lines, 4000)
    texts = [v for line in sample for v in _variants(line)]
    texts += [p.read_text() for p in sorted((REPO / "examples").glob("*.s"))]
    texts += TRICKY
    texts.append("\n".join(sample[:500]))

    fast = [_outcome(asm.parse, t) for t in texts]
    reference = _reference_parser()
    monkeypatch.setattr(asm, "parser", lambda: reference)
    differ = [(t, a, b) for t, a in zip(texts, fast) if a != (b := _outcome(asm.parse, t))]
    assert not differ, "\n".join(f"{t!r}\n  fast: {a[:200]}\n  reference: {b[:200]}" for t, a, b in differ[:5])

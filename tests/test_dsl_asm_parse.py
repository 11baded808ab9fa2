"""dsl.asm.parse's speed-ups change nothing it returns.

parse() runs asm.lark with two shortcuts: its own contextual lexer (dsl/asm_lexer.py) and
the TERMS terminal, a run of plain terms lexed as one token and split again in asm.py. The
reference here is the same grammar without TERMS, on lark's own contextual lexer: both must
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


def _reference_parser() -> Lark:
    grammar = (Path(asm.__file__).parent / "asm.lark").read_text()
    without = grammar.replace("items: items? (TERMS | ", "items: items? (")
    without = "\n".join(line for line in without.split("\n") if not line.startswith("TERMS"))
    assert without.count("TERMS") == 0 and without != grammar
    return Lark(without, parser="lalr", lexer="contextual", transformer=asm._ToStatements(),
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
    texts.append("\n".join(sample[:500]))

    fast = [_outcome(asm.parse, t) for t in texts]
    reference = _reference_parser()
    monkeypatch.setattr(asm, "parser", lambda: reference)
    differ = [(t, a, b) for t, a in zip(texts, fast) if a != (b := _outcome(asm.parse, t))]
    assert not differ, "\n".join(f"{t!r}\n  fast: {a[:200]}\n  reference: {b[:200]}" for t, a, b in differ[:5])

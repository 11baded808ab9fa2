"""gfx950 (CDNA4) disassembly against LLVM 22's differential corpus
(../shared/conformance/llvm/gfx950.tsv.gz, random encodings balanced by encoding family), through
the gfx9 printer that CDNA3 uses: disassemble(bytes) must print LLVM's text. Agreement is printed
per family; the floor is the level reached, so that any regression fails."""
from __future__ import annotations

import collections
import warnings

from dsl import disassemble
from .test_dsl_llvm_corpus import _report, corpus

FLOOR = 0.998   # 28754/28800 rows agree (99.84%)


def test_gfx950_disassembly_matches_llvm():
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fam, hx, text, _ in corpus("gfx950"):
            total[fam] += 1
            out = disassemble(bytes.fromhex(hx), "gfx950")
            if out == text:
                ok[fam] += 1
            else:
                bad[fam].append(f"{hx}: want {text!r} got {out!r}")
    assert sum(total.values()) == 28800
    assert _report("disassemble", "gfx950", ok, total, bad) >= FLOOR

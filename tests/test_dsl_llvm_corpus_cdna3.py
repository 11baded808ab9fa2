"""gfx942 (CDNA3) disassembly against LLVM 22's differential corpus
(../shared/conformance/llvm/gfx942.tsv.gz, random encodings balanced by encoding family):
disassemble(bytes) must print LLVM's text. Agreement is printed per family; the floor is the
level reached, so that any regression fails."""
from __future__ import annotations

import collections
import warnings

from dsl import disassemble
from .test_dsl_llvm_corpus import _report, corpus

FLOOR = 0.9999   # 36000/36000 rows agree; room for 3


def test_gfx942_disassembly_matches_llvm():
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fam, hx, text, _ in corpus("gfx942"):
            total[fam] += 1
            out = disassemble(bytes.fromhex(hx), "gfx942")
            if out == text:
                ok[fam] += 1
            else:
                bad[fam].append(f"{hx}: want {text!r} got {out!r}")
    assert sum(total.values()) == 36000
    assert _report("disassemble", "gfx942", ok, total, bad) >= FLOOR


def test_gfx942_assembly_matches_llvm():
    """assemble(LLVM's text) == LLVM's re-encoding, on every row LLVM's assembler accepts; the rows
    it refuses (its disassembler prints some encodings its assembler rejects) are counted apart."""
    from dsl import assemble
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    refused_by_llvm = accepted = 0
    for fam, _hx, text, reenc in corpus("gfx942"):
        if reenc == "-":
            refused_by_llvm += 1
            try:
                assemble(text, "gfx942")
                accepted += 1
            except ValueError:
                pass
            continue
        total[fam] += 1
        try:
            out = assemble(text, "gfx942").hex()
        except ValueError as e:
            out = f"error: {e}"
        if out == reenc:
            ok[fam] += 1
        else:
            bad[fam].append(f"{text!r}: want {reenc} got {out}")
    rate = _report("assemble", "gfx942", ok, total, bad)
    print(f"  rows LLVM's assembler refuses: {refused_by_llvm}, of which we accept {accepted}")
    assert sum(total.values()) > 30000
    assert rate >= FLOOR

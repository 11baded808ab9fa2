"""SMEM instructions with and without their immediate offset against llvm-mc-22 (skipped without
it): LLVM reads an offset not written as 0 (`s_load_b32 s1, s[2:3]` is `s_load_b32 s1, s[2:3], 0x0`;
`s_prefetch_data_pc_rel s0, 0` is `s_prefetch_data_pc_rel 0x0, s0, 0`: its offset leads). Every SMEM
mnemonic of a target's corpus (../shared/conformance/llvm/<target>.tsv.gz, LLVM-accepted rows), in
each offset shape (an immediate, an SGPR, an SGPR with offset:N) and with each operand left out in
turn, must be accepted or refused as llvm-mc-22 does, with its bytes; the bytes LLVM makes must
disassemble to llvm-mc-22 --disassemble's text."""
from __future__ import annotations

import collections
import warnings

import pytest

from dsl import assemble

from .llvm_tools import mc_disassembly_each, mc_encodings, ours_disassembly
from .test_dsl_llvm_corpus import corpus

TARGETS = ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"]


def _split(text: str) -> tuple[str, list[str], str]:
    mn, _, rest = text.partition(" ")
    ops = rest.split(", ") if rest else []
    mods = ""
    if ops:
        ops[-1], _, mods = ops[-1].partition(" ")
    return mn, ops, mods


def _join(mn: str, ops: list[str], mods: str) -> str:
    return " ".join(x for x in (mn, ", ".join(ops), mods) if x)


def _lines(target: str) -> list[str]:
    """Per mnemonic: a row of each offset shape, then the row with each operand left out."""
    shapes: dict[str, dict[str, str]] = collections.defaultdict(dict)
    for fam, _hx, text, reenc in corpus(target):
        if fam == "SMEM" and reenc != "-":
            mn, ops, mods = _split(text)
            last = ops[-1] if ops else ""
            shape = ("n" if last.lstrip("-").startswith("0x") or last.isdigit() else "s") + ("o" if "offset:" in mods else "")
            shapes[mn].setdefault(shape, text)
    lines = []
    for mn in sorted(shapes):
        for text in shapes[mn].values():
            _, ops, mods = _split(text)
            plain = " ".join(m for m in mods.split() if not m.startswith("offset:"))
            forms = [text] + [_join(mn, ops[:-1] + [last], plain) for last in ("0x10", "s4")] if ops else [text]
            for form in forms:
                _, fops, fmods = _split(form)
                lines.append(form)
                lines += [_join(mn, fops[:i] + fops[i + 1:], fmods) for i in range(len(fops))]
    return list(dict.fromkeys(lines))


def _ours(line: str, target: str) -> bytes | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return assemble(line, target)
        except ValueError:
            return None


@pytest.mark.parametrize("target", TARGETS)
def test_smem_with_and_without_offset_as_llvm(target):
    lines = _lines(target)
    want = mc_encodings(lines, target)
    counts, bad = collections.Counter(), []
    for line, w in zip(lines, want):
        got = _ours(line, target)
        counts["accepted by llvm" if w is not None else "refused by llvm"] += 1
        if got != w:
            bad.append(f"{line!r}: llvm {w.hex() if w else 'refuses'}, ours {got.hex() if got else 'refuses'}")
    made = [w for w in want if w is not None]
    texts = mc_disassembly_each(made, target)
    for b, t in zip(made, texts):
        if t is not None and ours_disassembly(b, target) != t:
            bad.append(f"{b.hex()}: llvm prints {t!r}, ours {ours_disassembly(b, target)!r}")
    print(f"\n{target}: {len(lines)} lines {dict(counts)}, {len(bad)} differ")
    assert counts["accepted by llvm"] > 10 and counts["refused by llvm"] > 10
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("target, line", [("gfx1100", "s_load_b32 s1, s[2:3]"), ("gfx1151", "s_load_b32 s1, s[2:3]"),
                                          ("gfx1201", "s_load_b32 s1, s[2:3]"), ("gfx942", "s_load_dword s1, s[2:3]"),
                                          ("gfx950", "s_load_dword s1, s[2:3]"),
                                          ("gfx1201", "s_prefetch_data_pc_rel s0, 0"),
                                          ("gfx1201", "s_prefetch_data s[0:1], s100, 0")])
def test_brief_lines(target, line):
    want = mc_encodings([line], target)[0]
    assert want is not None and _ours(line, target) == want

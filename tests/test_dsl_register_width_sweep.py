"""Register tuples of the wrong width in every operand of every ALU instruction, against
llvm-mc-22 (gfx1100, gfx1201, gfx942, gfx950): each register operand of the corpus rows
test_dsl_constant_sweep.py picks (one per mnemonic) is replaced by a tuple one size up and one
size down (v1 -> v[4:5], s[2:3] -> s4, v[0:3] -> v[4:5], likewise for AGPRs); LLVM refuses
almost all of them ("invalid operand for instruction"), and every line must be refused by both
or accepted alike with the same bytes, except the differences in KNOWN (counted and printed; an
entry no line needs fails the test). One llvm-mc run per target."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from .llvm_tools import mc_encodings
from .test_dsl_constant_sweep import _dpp, _operand_spans, _rows, ours

ARCHS = ["gfx1100", "gfx1201", "gfx942", "gfx950"]
_REG = re.compile(r"^([vsa])(?:(\d+)|\[(\d+):(\d+)\])$")


def _other_widths(text: str) -> list[str]:
    m = _REG.match(text)
    if not m:
        return []
    kind = m.group(1)
    n = 1 if m.group(2) else int(m.group(4)) - int(m.group(3)) + 1
    wider, narrower = 2 * n if n < 8 else None, n // 2 if n > 1 else None
    out = [f"{kind}[{4 * n}:{4 * n + w - 1}]" if w > 1 else f"{kind}{4 * n}" for w in (wider, narrower) if w]
    return out


# (arch prefix, test(line, llvm bytes, our error), reason)
KNOWN = [
    ("gfx9", lambda line, llvm, err: _dpp(line) and llvm is not None and "this operand needs" in err,
     "gfx9 DPP: LLVM 22 takes a register tuple of any width as a DPP source (v_add_f32_dpp v1, v[4:5], v2) and "
     "encodes its first register; we refuse it as in every other encoding"),
]


def width_lines(arch: str) -> list[str]:
    lines = []
    for text in _rows(arch).values():
        for a, b in _operand_spans(text):
            lines += [text[:a] + other + text[b:] for other in _other_widths(text[a:b])]
    return lines


@pytest.mark.parametrize("arch", ARCHS)
def test_register_tuples_of_the_wrong_width_are_refused_as_llvm_refuses_them(arch):
    lines = width_lines(arch)
    assert len(lines) > 1000
    want = mc_encodings(lines, arch)
    got = ours(lines, arch)
    known, bad = Counter(), []
    known_here = [(test, why) for prefix, test, why in KNOWN if arch.startswith(prefix)]
    for line, w, (g, err) in zip(lines, want, got):
        if w == g:
            continue
        why = next((why for test, why in known_here if test(line, w, err)), None)
        if why:
            known[why[:50]] += 1
        else:
            bad.append(f"{line}: llvm {w.hex() if w else 'refused'}, ours {g.hex() if g else err.splitlines()[0]}")
    agree = sum(w == g for w, (g, _) in zip(want, got))
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22 ({sum(w is None for w in want)} refused by "
          f"LLVM); known differences: {dict(known)}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    unused = {why[:50] for _, why in known_here} - set(known)
    assert not unused, f"KNOWN entries no line needs: {unused}"

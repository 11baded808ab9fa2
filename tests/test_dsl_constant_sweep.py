"""Constants in every operand of every ALU instruction against llvm-mc-22 (gfx1100, gfx1151, gfx1201,
gfx942, gfx950).

For each mnemonic of LLVM 22's corpus that LLVM re-encodes (one row per mnemonic, the one with
the fewest modifiers and scalar operands), in the scalar and vector ALU families (SOP1/SOP2/SOPC,
VOP1/VOP2/VOPC/VOP3/VOP3P and their DPP, SDWA, VOPD, WMMA and MFMA forms) and the scalar and
buffer memory ones whose offsets and soffsets take numbers (SMEM, MUBUF, MTBUF), each operand in turn
is replaced by a number: inline integers and their edges (0, 1, -1, -16, -17, 64, 65), inline
floats (0.5, 1.0, -4.0, 1/(2*pi)), f16 and f32 bit patterns (0x3c00, 0x3118, 0x3f800000) and
literals (0x12345, 1e10). Destinations are replaced too: both must refuse them. A few values per
operand (rotating over the list, every value on every operand with WAVESMITH_CONSTANT_SWEEP=full),
one llvm-mc run per target. Every line must be accepted alike with the same bytes or refused by
both, except the differences listed in KNOWN, each with its reason (counted and printed; an
entry that no line needs any more fails the test, so the list stays true)."""
from __future__ import annotations

import gzip
import os
import re

import pytest

import dsl

from .conftest import shared_path
from .llvm_tools import compare_with_mc, mc_encodings

VALUES = ["0", "1", "-1", "-16", "-17", "64", "65", "0.5", "1.0", "-4.0", "0.15915494", "0x3c00", "0x3118",
          "0x3f800000", "0x12345", "1e10"]
PER_OPERAND = 3
ALU_FAMILIES = re.compile(r"^(SOP1|SOP2|SOPC|VOP|DPP|SDWA|MFMA|WMMA|SMEM|MUBUF|MTBUF)")
ARCHS = ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"]


def _dpp(line: str) -> bool:
    return bool(re.search(r"_dpp |dpp8:|quad_perm:|row_\w+:", line))


_NUMBER = re.compile(r"-?(0x[0-9a-f]+|[0-9.]+(e-?[0-9]+)?)$")


def _immediate_field(line: str) -> bool:
    """The number is s_atc_probe*'s mode (its first operand) or a prefetch's length (its last)."""
    mn, _, rest = line.partition(" ")
    ops = [o.strip().split(" ")[0] for o in rest.split(",")]
    if mn.startswith("s_atc_probe"):
        return bool(_NUMBER.match(ops[0]))
    return "prefetch" in mn and bool(_NUMBER.match(ops[-1]))


def _dropped_literal(llvm: bytes | None) -> bool:
    """LLVM's bytes of a VOP3/VOP3P DPP instruction (8 bytes + the DPP word) with the literal code
    255 in src1 or src2 and no literal dword."""
    if llvm is None or len(llvm) != 12:
        return False
    word = int.from_bytes(llvm[4:8], "little")
    return 255 in (word >> 9 & 0x1ff, word >> 18 & 0x1ff)


# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
KNOWN = [
    ("gfx11", lambda line, llvm, err: _dpp(line) and _dropped_literal(llvm) and "no literal" in err,
     "LLVM writes the literal code 255 in a DPP instruction and drops the literal dword (the value is lost); "
     "we refuse the literal"),
    ("gfx12", lambda line, llvm, err: _dpp(line) and _dropped_literal(llvm) and "no literal" in err,
     "LLVM writes the literal code 255 in a DPP instruction and drops the literal dword (the value is lost); "
     "we refuse the literal"),
    (("gfx1151", "gfx1201"), lambda line, llvm, err: _dpp(line) and llvm is None and err == "" and
     line.startswith(("v_dot4_f32_fp8", "v_dot4_f32_bf8", "v_fma_mix")),
     "LLVM 22 refuses some inline constants and SGPRs in the VOP3P DPP of gfx1151 and gfx1201 "
     "(v_fma_mix*'s src1; gfx1201's v_dot4_f32_fp8/bf8's sources) that it takes in other VOP3 and VOP3P DPP "
     "sources there (v_fma_mix*'s src2, v_dot2_f32_f16's src1, v_fma_f32's src1); the RDNA3.5 and RDNA4 "
     "manuals' DPP sections limit only src0 (gfx1100 takes no scalar src1 in any VOP3 DPP, LLVM and we alike); "
     "we take them"),
    ("gfx1201", lambda line, llvm, err: line.startswith("s_get_barrier_state ") and llvm is not None and
     "sdst" in err,
     "LLVM 22 takes a constant as s_get_barrier_state's destination (SDST code 0xc1 for -1); we refuse it"),
    ("gfx1", lambda line, llvm, err: _dpp(line) and "0.15915494" in line and llvm is not None and
     not _dropped_literal(llvm) and "no literal" in err and line.startswith(("v_cndmask_b16", "v_dot2_bf16_bf16")),
     "1/(2*pi) written as a float in DPP: LLVM 22 refuses it on 16-bit integer sources (v_or_b16, "
     "v_cmp_*_i16: its parser reads a literal there, which the encoder makes inline elsewhere) and on "
     "packed bf16 ones, yet encodes it inline on v_cndmask_b16's and v_dot2_bf16_bf16's; we refuse all "
     "of them (literals.read_as_literal)"),
    ("gfx", lambda line, llvm, err: llvm is not None and _immediate_field(line),
     "s_atc_probe's mode and the prefetches' length are immediate fields: LLVM 22 keeps the low bits of "
     "any integer (0x12345 is 0x45; gfx1201's 64 is 0), reads a float as its f64 bits (1.0 is 0); we refuse "
     "what does not fit the field (0..127)"),
    ("gfx942", lambda line, llvm, err: "_class_f16_sdwa" in line and "0x3f800000" in line and llvm is not None
     and err == "",
     "v_cmp(x)_class_f16_sdwa's class mask 0x3f800000: LLVM encodes the register s0 (code 0, S1 set) "
     "instead of the inline 1.0 it accepted (gfx950 too; its corpus has no such row); we write 1.0"),
    ("gfx1201", lambda line, llvm, err: line.startswith("v_ldexp_f16_e64") and (
        llvm is not None and "v_ldexp_f16: src1" in err or llvm is None and _dpp(line) and err == ""),
     "v_ldexp_f16's exponent on gfx1201: LLVM 22 takes any 32-bit value in VOP3 and keeps its low half "
     "(0x12345 is the literal 0x2345, 0x3f800000 the inline 0, 1e10 the f16 infinity 0x7c00), and in DPP "
     "reads it as an i16 (0x3c00 refused); elsewhere, and on gfx1100 and CDNA, it is an f16 operand for "
     "constants (syntax.F16_CONSTANTS: 0x3c00 is 1.0, 0x12345 refused), as we take it everywhere"),
    ("gfx950", lambda line, llvm, err: line.startswith("v_cvt_scalef32_sr_pk_fp4_f32 ") and
     re.match(r"v_cvt_scalef32_sr_pk_fp4_f32 v\d+, [^v]", line) is not None,
     "v_cvt_scalef32_sr_pk_fp4_f32's 64-bit src0: LLVM encodes a number as the VGPR of that number "
     "(-1 is v255, 0.5 is v0: the value is lost)"),
    ("gfx950", lambda line, llvm, err: line.startswith("v_cvt_scalef32_sr_") and ", 0x3f800000, " in line,
     "v_cvt_scalef32_sr_*_f16/bf16's 16-bit src0: LLVM takes 0x3f800000 and encodes the inline 0 (its "
     "low half); we refuse a constant wider than 16 bits"),
]


def _rows(arch: str, families: re.Pattern = ALU_FAMILIES) -> dict[str, str]:
    """mnemonic -> the corpus row LLVM re-encodes with the fewest modifiers and scalar operands."""
    best: dict[str, tuple[int, str]] = {}
    with gzip.open(shared_path("conformance", "llvm", f"{arch}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            family, _, text, reenc = line.rstrip("\n").split("\t")
            if reenc == "-" or not families.match(family):
                continue
            mn = text.split(" ")[0]
            score = 10 * len(re.findall(r"dpp|quad_perm|row_|op_sel|clamp|mul:|div:|neg_|\||lit\(|-|sel:", text)) \
                + len(re.findall(r"(?<![\w\[])(s\d|s\[|ttmp|vcc|exec|m0|null|src_|\d)", text[len(mn):]))
            if mn not in best or score < best[mn][0]:
                best[mn] = (score, text)
    return {mn: text for mn, (_, text) in sorted(best.items())}


def _operand_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each operand of a line: split at top-level commas and at ' :: ' (a VOPD
    pair's second half, its mnemonic skipped); an operand ends at the first top-level blank
    (modifiers follow); key:value words are not operands."""
    pieces, depth, start = [], 0, len(text.split(" ")[0])
    i = start
    while i < len(text):
        c = text[i]
        depth += (c in "([") - (c in ")]")
        if depth == 0 and (c == "," or text.startswith("::", i)):
            pieces.append((start, i))
            start = i + (1 if c == "," else 2)
            if c == ":":
                start += re.match(r"\s*\S+", text[start:]).end()
                i = start
                continue
        i += 1
    pieces.append((start, len(text)))
    spans = []
    for a, b in pieces:
        s = a + len(text[a:b]) - len(text[a:b].lstrip())
        k, depth = s, 0
        while k < b and not (text[k] == " " and depth == 0):
            depth += (text[k] in "([") - (text[k] in ")]")
            k += 1
        if k > s and ":" not in text[s:k].split("[")[0]:
            spans.append((s, k))
    return spans


def sweep_lines(arch: str, per_operand: int | None = PER_OPERAND) -> list[str]:
    lines = []
    for n, text in enumerate(_rows(arch).values()):
        for slot, (a, b) in enumerate(_operand_spans(text)):
            if per_operand is None:
                values = VALUES
            else:       # rotate, so each value meets every kind of operand across the instructions
                values = [VALUES[(n * per_operand + slot * 5 + j) % len(VALUES)] for j in range(per_operand)]
            lines += [text[:a] + v + text[b:] for v in values]
    return lines


def ours(lines: list[str], arch: str) -> list[tuple[bytes | None, str]]:
    """(bytes or None, the error text) per line; anything but bytes or an AsmError fails."""
    out = []
    for line in lines:
        try:
            out.append((dsl.assemble(line, arch), ""))
        except dsl.AsmError as e:
            out.append((None, str(e)))
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_constants_in_every_operand_match_llvm(arch):
    full = os.environ.get("WAVESMITH_CONSTANT_SWEEP") == "full"
    lines = sweep_lines(arch, None if full else PER_OPERAND)
    assert len(lines) > 3000
    agree, known, bad = compare_with_mc(arch, lines, mc_encodings(lines, arch), ours(lines, arch), KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lines agree with llvm-mc-22 ({100 * agree / len(lines):.2f}%); "
          f"known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])
    if full:
        unused = {why for prefix, _, why in KNOWN if arch.startswith(prefix)} - set(known)
        assert not unused, f"KNOWN entries no line needs: {unused}"


F64_C_VALUES = ["1.0", "0.5", "-1.0", "2.0", "-4.0", "0.15915494", "1", "-16", "0x3ff0000000000000",
                "0x3fe0000000000000", "0x3f800000", "0x12345", "1e10"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_f64_mfma_accumulator_constants_match_llvm(arch):
    """C of every f64 MFMA (its 64-bit inline floats, written as floats or as their f64 bits, and
    what is no inline constant) with each register file of D, against llvm-mc-22's bytes: LLVM 22
    encodes 1.0 and 0x3ff0000000000000 as the inline code 242 there (and 0.5 as 240), refuses
    0x3f800000, 1/(2*pi) written as a float and literals; we must do the same."""
    lines = []
    for mn, row in _rows(arch).items():
        if not mn.startswith("v_mfma_f64"):
            continue
        start, end = _operand_spans(row)[-1]
        for dst in ("v", "a"):
            base = row if dst == "v" else row.replace(" v[", " a[", 1)
            lines += [base[:start].rstrip() + " " + value + base[end:] for value in F64_C_VALUES]
    assert len(lines) >= 4 * len(F64_C_VALUES)
    want = mc_encodings(lines, arch)
    assert sum(w is not None for w in want) >= 4 * 9      # LLVM takes every inline float and integer here
    bad = [f"{line}: llvm {w.hex() if w else 'refused'}, ours {g.hex() if g else err.splitlines()[0]}"
           for line, w, (g, err) in zip(lines, want, ours(lines, arch)) if w != g]
    assert not bad, "\n".join(bad)


_FIRST_NUMBER = re.compile(r"(?<=[ ,])(-?(?:0x[0-9a-f]+|\d+\.\d+|\d+e\d+|\d+))(?=,|$| )")

# (arch prefix, test(line, llvm bytes, our error text), reason); a test sees only lines that differ
LIT_KNOWN = [
    ("gfx9", lambda line, llvm, err: llvm is not None and "64-bit encoding takes no literal" in err and len(llvm) == 8,
     "lit(x) on a gfx9 VOP3/VOP3P source: LLVM 22 writes the literal code 255 and no literal dword (the 64-bit "
     "encoding has none: the value is lost); we refuse it"),
    ("gfx9", lambda line, llvm, err: llvm is not None and "only one literal constant" in err,
     "lit(x) and a second, different literal on a SALU instruction: LLVM 22 encodes one literal dword for both "
     "(the second value is lost); we refuse it"),
    ("gfx9", lambda line, llvm, err: llvm is not None and (re.search(r"expected a (16|20|21)-bit", err) is not None
                                                           or line.startswith("s_atc_probe") and "does not fit" in err),
     "lit(x) on an immediate field (an SMEM offset, s_atc_probe's mode): LLVM 22 takes it as the number; we "
     "take lit() only on sources, where it means the literal dword"),
]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_forced_literals_match_llvm(arch):
    """lit(x) (the literal dword even for an inline constant) on the first number of each sweep
    line of the gfx9 dialect, against llvm-mc-22's bytes."""
    lines = []
    for line in sweep_lines(arch, 2):
        m = _FIRST_NUMBER.search(line)
        if m:
            lines.append(line[:m.start()] + f"lit({m.group(1)})" + line[m.end():])
    assert len(lines) > 3000
    want = mc_encodings(lines, arch)
    assert sum(w is not None for w in want) > 1000       # (LLVM takes most of them)
    agree, known, bad = compare_with_mc(arch, lines, want, ours(lines, arch), LIT_KNOWN)
    print(f"\n{arch}: {agree}/{len(lines)} lit() lines agree with llvm-mc-22; known differences: {known}")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:25])

"""Encoding agreement with LLVM's own gfx11 MC assembler tests (../shared/conformance/llvm-mc).

Each gfx11_asm_*.s file holds instruction lines, each followed by FileCheck lines such as
`// GFX11: v_add_f32_e32 v1, v2, v3 ; encoding: [0x02,0x07,0x02,0x06]`. The file's RUN lines
say which check prefixes belong to which llvm-mc run and so to which wave size: a prefix
checked by a wave32 run (no +wavefrontsize64) is assembled as wave32, one checked only by
+wavefrontsize64 runs as wave64. Prefixes of error runs (`-filetype=null`, `2>&1`, e.g.
GFX11-ERR / W32-ERR) carry no encodings and are not used.

Every (instruction, expected bytes) pair is assembled on its own with dsl.assemble and
compared. Run `pytest -s tests/test_dsl_llvm_mc.py` to see the per-file report."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import dsl

from .conftest import shared_path

ARCH = "gfx1100"
BAR = 0.98            # the agreement bar
FLOOR = 1.0           # reached: every check agrees; any regression fails
MIN_CASES = 10_000    # the 17 stored files hold 12353 encoding checks
SAMPLE = 40           # mismatches listed in the report
PER_CATEGORY = 8      # ... at most this many per failure category

# Expectations in the stored test files that LLVM 22 (our reference, as for the
# conformance/llvm corpora) encodes differently: packed 16-bit integer ops take 0.5 as an
# inline constant and v_pk_fmac_f16 takes it as a literal. Either encoding is accepted.
# Values are `llvm-mc-22 -mcpu=gfx1100 -mattr=+real-true16 -show-encoding` output.
LLVM22 = {
    ("gfx11_asm_vop2.s", "v_pk_fmac_f16 v5, 0.5, v2"): "ff040a7800380000",
    ("gfx11_asm_vop3p.s", "v_pk_add_i16 v5, m0, 0.5"): "054002cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_add_i16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054002ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_add_u16 v5, m0, 0.5"): "05400acc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_add_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "05400accf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_ashrrev_i16 v5, m0, 0.5"): "054006cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_ashrrev_i16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054006ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_lshlrev_b16 v5, m0, 0.5"): "054004cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_lshlrev_b16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054004ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_lshrrev_b16 v5, m0, 0.5"): "054005cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_lshrrev_b16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054005ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_mad_i16 v5, m0, 0.5, m0 op_sel_hi:[0,0,0]"): "050000cc7de0f501",
    ("gfx11_asm_vop3p.s", "v_pk_mad_i16 v5, 0.5, m0, 0.5 op_sel:[1,0,0] op_sel_hi:[0,1,1]"): "054800ccf0fac013",
    ("gfx11_asm_vop3p.s", "v_pk_mad_u16 v5, m0, 0.5, m0 op_sel_hi:[0,0,0]"): "050009cc7de0f501",
    ("gfx11_asm_vop3p.s", "v_pk_mad_u16 v5, 0.5, m0, 0.5 op_sel:[1,0,0] op_sel_hi:[0,1,1]"): "054809ccf0fac013",
    ("gfx11_asm_vop3p.s", "v_pk_max_i16 v5, m0, 0.5"): "054007cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_max_i16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054007ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_max_u16 v5, m0, 0.5"): "05400ccc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_max_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "05400cccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_min_i16 v5, m0, 0.5"): "054008cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_min_i16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054008ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_min_u16 v5, m0, 0.5"): "05400dcc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_min_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "05400dccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_mul_lo_u16 v5, m0, 0.5"): "054001cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_mul_lo_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054001ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_sub_i16 v5, m0, 0.5"): "054003cc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_sub_i16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "054003ccf0fa0018",
    ("gfx11_asm_vop3p.s", "v_pk_sub_u16 v5, m0, 0.5"): "05400bcc7de00118",
    ("gfx11_asm_vop3p.s", "v_pk_sub_u16 v5, 0.5, m0 op_sel:[0,0] op_sel_hi:[1,1]"): "05400bccf0fa0018",
}

_RUN = re.compile(r"^//\s*RUN:(.*)$")
_PREFIXES = re.compile(r"--?check-prefix(?:es)?[= ]([\w,-]+)")
_CHECK = re.compile(r"^//\s*([A-Za-z0-9_-]+):\s*(.*)$")
_BYTES = re.compile(r"\[(0x[0-9a-fA-F]{2}(?:\s*,\s*0x[0-9a-fA-F]{2})*)\]")


@dataclass(frozen=True)
class Case:
    file: str
    line: int          # line number of the instruction in the .s file
    source: str
    wave: int
    want: bytes


def prefix_waves(text: str) -> dict[str, set[int]]:
    """check prefix -> wave sizes of the llvm-mc -show-encoding runs that check it."""
    waves: dict[str, set[int]] = defaultdict(set)
    for line in text.splitlines():
        m = _RUN.match(line.strip())
        if not m or "-show-encoding" not in m.group(1):
            continue      # error-only runs (-filetype=null ... 2>&1) check no encodings
        cmd = m.group(1)
        pm = _PREFIXES.search(cmd)
        wave = 64 if "+wavefrontsize64" in cmd else 32
        for p in (pm.group(1).split(",") if pm else ["CHECK"]):
            waves[p].add(wave)
    return dict(waves)


def parse_cases(path: Path) -> list[Case]:
    """(instruction, wave, expected bytes) for every encoding check line of one file.
    A check belongs to the closest instruction line above it."""
    text = path.read_text()
    waves = prefix_waves(text)
    cases, seen, src = [], set(), None
    for no, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s:
            continue
        if not s.startswith("//"):
            src = (no, s)
            continue
        m = _CHECK.match(s)
        if src is None or not m or m.group(1) not in waves:
            continue
        found = _BYTES.findall(m.group(2))
        if not found:
            continue
        want = bytes(int(x, 16) for x in found[-1].split(","))
        wave = 32 if 32 in waves[m.group(1)] else 64
        key = (src[1], wave, want)
        if key not in seen:
            seen.add(key)
            cases.append(Case(path.name, src[0], src[1], wave, want))
    return cases


def run_case(case: Case) -> tuple[bool, str, bytes | None]:
    """(agrees, reason, got)."""
    try:
        got = dsl.assemble(case.source, ARCH, wave_size=case.wave)
    except dsl.AsmError as e:
        return False, str(e).splitlines()[0], None
    except Exception as e:  # a crash is a bug of its own; keep going and report it
        return False, f"CRASH {type(e).__name__}: {e}".splitlines()[0], None
    if got == case.want or got.hex() == LLVM22.get((case.file, case.source)):
        return True, "", got
    if len(got) != len(case.want):
        return False, f"wrong size: {len(got)} bytes, want {len(case.want)}", got
    return False, f"wrong bits in dword(s) {_dwords_differing(got, case.want)}", got


def _dwords_differing(a: bytes, b: bytes) -> str:
    return ",".join(str(i // 4) for i in range(0, len(a), 4) if a[i:i + 4] != b[i:i + 4])


def category(case: Case, reason: str) -> str:
    """A reason with the specifics (position, mnemonic, numbers, registers) taken out."""
    r = re.sub(r"^\d+:\d+:\s*", "", reason)
    mnemonic = case.source.split()[0].lower()
    r = r.replace(mnemonic, "<mn>")
    r = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", r)
    r = re.sub(r"\b(?:v|s|ttmp|a)(?:\[\d+(?::\d+)?\]|\d+)(?:\.[lh])?\b", "<reg>", r)
    r = re.sub(r"\b0x[0-9a-fA-F]+\b|\b\d+\b", "N", r)
    return r


def family(source: str) -> str:
    """Mnemonic prefix for grouping: the first one or two '_' parts (v_pk_, s_cbranch_, ...)."""
    mn = source.split()[0].lower()
    parts = mn.split("_")
    if parts[0] in ("v", "s") and len(parts) > 2:
        return "_".join(parts[:2]) + "_"
    return parts[0] + "_"


def corpus_files() -> list[Path]:
    files = sorted(shared_path("conformance", "llvm-mc").glob("gfx11_asm_*.s"))
    assert files, "no gfx11_asm_*.s files in conformance/llvm-mc"
    return files


def test_llvm_mc_gfx11_encodings():
    per_file: dict[str, list[int]] = {}
    failures: list[tuple[Case, str, bytes | None]] = []
    total = agreed = 0
    for path in corpus_files():
        cases = parse_cases(path)
        assert cases, f"{path.name}: no encoding checks parsed"
        ok = 0
        for case in cases:
            good, reason, got = run_case(case)
            if good:
                ok += 1
            else:
                failures.append((case, reason, got))
        per_file[path.name] = [ok, len(cases)]
        total += len(cases)
        agreed += ok

    print(f"\nLLVM MC gfx11 encoding checks, assembled for {ARCH}:")
    for name, (ok, n) in per_file.items():
        print(f"  {name:<26s} {ok:6d}/{n:<6d} {100 * ok / n:6.2f}%")
    rate = agreed / total if total else 0.0
    print(f"  {'overall':<26s} {agreed:6d}/{total:<6d} {100 * rate:6.2f}%  (bar {100 * BAR:.0f}%)")

    if failures:
        by_reason = Counter(category(c, r) for c, r, _ in failures)
        by_family = Counter(family(c.source) for c, _, _ in failures)
        print("\nfailure categories (reason):")
        for reason, n in by_reason.most_common(25):
            print(f"  {n:5d}  {reason}")
        print("failure categories (mnemonic prefix):")
        for fam, n in by_family.most_common(25):
            print(f"  {n:5d}  {fam}")
        unknown = Counter(m.group(1) for _, r, _ in failures
                          if (m := re.search(r"unknown instruction '([^']*)'", r)))
        if unknown:
            print(f"unknown mnemonics ({len(unknown)} distinct):")
            print("  " + ", ".join(f"{mn} ({n})" for mn, n in unknown.most_common(60)))
        # a few examples of each category, most common first, from different mnemonic prefixes
        by_cat: dict[str, list] = defaultdict(list)
        for f in failures:
            by_cat[category(f[0], f[1])].append(f)
        sample, rest = [], []
        for cat, _ in by_reason.most_common():
            fams: set[str] = set()
            for f in by_cat[cat]:
                fam = family(f[0].source)
                (rest if fam in fams or len(fams) >= PER_CATEGORY else sample).append(f)
                fams.add(fam)
        sample = (sample + rest)[:SAMPLE]
        print(f"\nsample of mismatches ({len(sample)} of {len(failures)}):")
        for case, reason, got in sample:
            print(f"  {case.file}:{case.line} (w{case.wave}) {case.source}")
            print(f"      want {case.want.hex()}")
            print(f"      got  {got.hex() if got is not None else '-'}  {reason}")

    assert total > MIN_CASES, f"only {total} encoding checks parsed; the parser lost lines"
    assert len(per_file) >= 17, f"only {len(per_file)} test files found"
    assert rate >= FLOOR, f"agreement {100 * rate:.2f}% < {100 * FLOOR:.0f}% ({len(failures)} mismatches)"

"""gfx942 (CDNA3) disassembly against LLVM 22's differential corpus
(../shared/conformance/llvm/gfx942.tsv.gz, random encodings balanced by encoding family):
disassemble(bytes) must print LLVM's text. Agreement is printed per family; the floor is the
level reached, so that any regression fails."""
from __future__ import annotations

import collections
import warnings

from dsl import assemble, disassemble
from .test_dsl_llvm_corpus import _report, corpus

FLOOR = 0.9999   # 36000/36000 rows agree; room for 3


def disassembly_agreement(target: str) -> tuple[float, int]:
    """disassemble(bytes) == LLVM's text over the target's corpus: (rate, rows), printed per family."""
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fam, hx, text, _ in corpus(target):
            total[fam] += 1
            out = disassemble(bytes.fromhex(hx), target)
            if out == text:
                ok[fam] += 1
            else:
                bad[fam].append(f"{hx}: want {text!r} got {out!r}")
    return _report("disassemble", target, ok, total, bad), sum(total.values())


def assembly_agreement(target: str) -> tuple[float, int, int]:
    """assemble(LLVM's text) == LLVM's re-encoding on every row LLVM's assembler accepts; the rows
    it refuses (its disassembler prints some encodings its assembler rejects) are counted apart.
    Returns (rate, rows LLVM accepts, rows LLVM refuses that we accept), printed per family."""
    ok, total, bad = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    refused_by_llvm = accepted = 0
    for fam, _hx, text, reenc in corpus(target):
        if reenc == "-":
            refused_by_llvm += 1
            try:
                assemble(text, target)
                accepted += 1
            except ValueError:
                pass
            continue
        total[fam] += 1
        try:
            out = assemble(text, target).hex()
        except ValueError as e:
            out = f"error: {e}"
        if out == reenc:
            ok[fam] += 1
        else:
            bad[fam].append(f"{text!r}: want {reenc} got {out}")
    rate = _report("assemble", target, ok, total, bad)
    print(f"  rows LLVM's assembler refuses: {refused_by_llvm}, of which we accept {accepted}")
    return rate, sum(total.values()), accepted


def test_gfx942_disassembly_matches_llvm():
    rate, rows = disassembly_agreement("gfx942")
    assert rows == 36000
    assert rate >= FLOOR


def test_gfx942_assembly_matches_llvm():
    rate, rows, accepted = assembly_agreement("gfx942")
    assert rows > 30000
    assert rate >= FLOOR
    # the rest: one sparse MFMA with a scalar index register
    assert accepted <= 2


def test_gfx942_code_objects_reassemble_from_llvm_objdump_text():
    """Every instruction llvm-objdump-22 -d prints for the shared clang-compiled gfx942 code
    objects assembles back to the dwords it prints beside it (branch targets are numbers)."""
    import re
    from .conftest import SHARED
    from .llvm_tools import run, tool
    objdump = tool("llvm-objdump")
    n = 0
    bad = []
    for path in sorted((SHARED / "kernels").glob("*/gfx942.hsaco")):
        for line in run(objdump, "-d", str(path)).splitlines():
            m = re.match(r"^\t(\S.*?)\s*// [0-9A-F]{12}: ((?:[0-9A-F]{8} ?)+)", line)
            if not m:
                continue
            text, words = m.group(1), m.group(2).split()
            text = re.sub(r" <[^>]*>$", "", text)
            want = b"".join(int(w, 16).to_bytes(4, "little") for w in words)
            n += 1
            try:
                got = assemble(text, "gfx942")
            except ValueError as e:
                got = str(e).encode()
            if got != want:
                bad.append((path.parent.name, text, want.hex(), got))
    print(f"\n{n} instructions of {len(list((SHARED / 'kernels').glob('*/gfx942.hsaco')))} gfx942 code objects "
          f"reassembled, {len(bad)} differ")
    assert n > 5000 and bad[:10] == []


def test_gfx942_labels_and_branches_match_llvm_mc(tmp_path):
    """A program with labels (backward and forward branches, a label on an instruction's line)
    assembles to the .text llvm-mc-22 makes of it."""
    from .llvm_tools import run, tool
    src = """loop:
  s_sub_u32 s0, s0, 1   // count down
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 loop
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  s_cbranch_execz done
  global_load_dword v1, v[2:3], off sc0 sc1
  s_waitcnt vmcnt(0)
done: s_endpgm
"""
    (tmp_path / "p.s").write_text(src)
    run(tool("llvm-mc"), "-arch=amdgcn", "-mcpu=gfx942", "-filetype=obj", "-o", str(tmp_path / "p.o"), str(tmp_path / "p.s"))
    run(tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(tmp_path / "p.o"), str(tmp_path / "p.bin"))
    assert assemble(src, "gfx942") == (tmp_path / "p.bin").read_bytes()

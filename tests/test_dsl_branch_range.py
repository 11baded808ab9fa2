"""Branches to labels at the edges of the 16-bit signed dword offset, against llvm-mc-22: a
label 32767 dwords ahead or 32768 behind assembles (the object's .text bytes must be LLVM's),
one dword further is refused by both, at the same line:column (the label operand) with the
instruction named; an undefined label likewise."""
from __future__ import annotations

import re
import subprocess

import pytest

import dsl

from .llvm_tools import tool

FILLER = "s_mov_b32 s0, 0x12345678"      # two dwords (a literal) on every target


def program(branch: str, dwords: int, forward: bool) -> str:
    """`branch L` `dwords` dwords before L (forward) or after `L:` and that many dwords (back)."""
    body = [FILLER] * (dwords // 2) + ["s_nop 0"] * (dwords % 2)
    lines = [branch] + body + ["L:", "s_endpgm"] if forward else ["L:"] + body + [branch, "s_endpgm"]
    return "\n".join(lines) + "\n"


def llvm(text: str, arch: str, tmp_path) -> tuple[bytes | None, str]:
    src, obj, raw = tmp_path / "b.s", tmp_path / "b.o", tmp_path / "b.bin"
    src.write_text(text)
    done = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "-filetype=obj", str(src), "-o", str(obj)],
                          capture_output=True, text=True)
    if done.returncode:
        m = re.search(r":(\d+):(\d+): error: (.*)", done.stderr)
        return None, f"{m.group(1)}:{m.group(2)}"
    subprocess.run([tool("llvm-objcopy"), "-O", "binary", "--only-section=.text", str(obj), str(raw)], check=True)
    return raw.read_bytes(), ""


CASES = [(arch, "s_branch L", dwords, forward) for arch in ("gfx1100", "gfx1201", "gfx942")
         for dwords, forward in ((32767, True), (32768, True), (32767, False), (32768, False))] + \
        [("gfx1100", "s_cbranch_scc1 L", 32768, True), ("gfx1100", "s_call_b64 s[0:1], L", 32768, True),
         ("gfx942", "s_call_b64 s[0:1], L", 32768, False), ("gfx1201", "s_branch M", 1, True)]


@pytest.mark.parametrize("arch,branch,dwords,forward", CASES)
def test_branch_offsets_at_the_16_bit_edges_match_llvm(arch, branch, dwords, forward, tmp_path):
    text = program(branch, dwords, forward)
    want, where = llvm(text, arch, tmp_path)
    try:
        got, err = dsl.assemble(text, arch), ""
    except dsl.AsmError as e:
        got, err = None, str(e).splitlines()[0]
    if want is not None:
        assert got == want
        return
    assert got is None, f"LLVM refuses {branch} {dwords} dwords {'ahead' if forward else 'back'}; we take it"
    assert err.startswith(where + ":"), (err, where)            # the label operand's line:column
    assert branch.split()[0] in err and ("dwords away" in err or "undefined label" in err), err

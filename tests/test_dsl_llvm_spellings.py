"""LLVM spellings the assembler accepts besides the gfx11 mnemonics, checked against
llvm-mc-22 (skipped when it is not installed): pre-gfx11 mnemonics, ds_swizzle_b32's
swizzle(...) macros, s_version's UC_VERSION_* names and s_sendmsg message names.

Each text is given to llvm-mc and to dsl.assemble. Where LLVM encodes it, dsl must produce
the same bytes; where LLVM rejects it, dsl must raise AsmError."""
from __future__ import annotations

import gzip
import re
import shutil
import subprocess

import pytest

import dsl
import isa
from dsl.encode import old_spellings

from .conftest import shared_path

LLVM_MC = "llvm-mc-22"
ARCH = "gfx1100"


def llvm_encodings(lines: list[str]) -> list[bytes | None]:
    """LLVM's bytes for each line, None where it reports an error on that line."""
    mc = shutil.which(LLVM_MC)
    if mc is None:
        pytest.skip(f"{LLVM_MC} not installed")
    p = subprocess.run([mc, "-arch=amdgcn", f"-mcpu={ARCH}", "-show-encoding"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True)
    failed = {int(n) for n in re.findall(r"^<stdin>:(\d+):\d+: error", p.stderr, re.M)}
    encodings = iter(re.findall(r"encoding: \[([^\]]*)\]", p.stdout))
    out = []
    for no in range(1, len(lines) + 1):
        out.append(None if no in failed else bytes(int(x, 16) for x in next(encodings).split(",")))
    return out


def disagreements(lines: list[str]) -> list[str]:
    out = []
    for text, want in zip(lines, llvm_encodings(lines)):
        try:
            got = dsl.assemble(text, ARCH)
        except dsl.AsmError as e:
            got = e
        if want is None and not isinstance(got, dsl.AsmError):
            out.append(f"{text}: LLVM rejects it, dsl encodes {got.hex()}")
        elif want is not None and got != want:
            out.append(f"{text}: LLVM {want.hex()}, dsl {got.hex() if isinstance(got, bytes) else got}")
    return out


def corpus_operands() -> dict[str, str]:
    """mnemonic -> the operand text of one LLVM corpus row that LLVM re-assembles."""
    ops: dict[str, str] = {}
    with gzip.open(shared_path("conformance", "llvm", f"{ARCH}.tsv.gz"), "rt") as f:
        next(f)
        for line in f:
            _, _, text, reenc = line.rstrip("\n").split("\t")
            mn, _, rest = text.partition(" ")
            if reenc != "-":
                ops.setdefault(mn, rest)
    return ops


# LDS: old verb -> gfx11 verb after ds_ (the near misses below put each old verb before every
# new instruction's rest: ds_read_2addr_b32, which LLVM refuses)
OLD_DS_VERBS = {"read": "load", "write": "store", "read2": "load_2addr", "write2": "store_2addr",
                "read2st64": "load_2addr_stride64", "write2st64": "store_2addr_stride64",
                "wrxchg": "storexchg", "wrxchg2": "storexchg_2addr", "wrxchg2st64": "storexchg_2addr_stride64"}


def test_old_mnemonics_encode_as_llvm_does():
    """Every old spelling, with the operands of a corpus row of its gfx11 instruction; plus
    the near-miss spellings of LDS verbs (ds_read_2addr_b32) that LLVM does not take."""
    spec = isa.load(ARCH)
    ops = corpus_operands()
    table = old_spellings(spec)
    lines = [f"{old} {ops[new]}" for old, new in sorted(table.items()) if new in ops]
    assert len(lines) > 200, f"only {len(lines)} old spellings have a corpus row"
    ds_names = sorted(n for n in ops if n.startswith("ds_"))
    near = {f"ds_{old}_{n[len(new) + 4:]}" for n in ds_names for old, new in OLD_DS_VERBS.items()
            if n.startswith(f"ds_{new}_")} - set(table)
    lines += [f"{mn} {ops[table.get(mn, mn)] if mn in table else 'v1, v2'}" for mn in sorted(near)]
    bad = disagreements(lines)
    assert not bad, f"{len(bad)} of {len(lines)} disagree:\n" + "\n".join(bad[:20])


SWIZZLES = [f"ds_swizzle_b32 v8, v2 offset:swizzle({m})" for m in (
    "QUAD_PERM,0,1,2,3", "QUAD_PERM,3,2,1,0", "QUAD_PERM,0,1,2,4", "QUAD_PERM,0,1,2",
    'BITMASK_PERM,"01pip"', 'BITMASK_PERM,"ppppp"', 'BITMASK_PERM,"0000"', 'BITMASK_PERM,"0x01p"',
    "BROADCAST,2,0", "BROADCAST,4,1", "BROADCAST,8,7", "BROADCAST,32,31", "BROADCAST,3,0", "BROADCAST,4,4",
    "BROADCAST,64,0", "SWAP,1", "SWAP,16", "SWAP,32", "SWAP,3", "REVERSE,2", "REVERSE,8", "REVERSE,32",
    "REVERSE,1", "FFT,0", "FFT,31", "FFT,32", "ROTATE,0,3", "ROTATE,1,31", "ROTATE,2,0", "ROTATE,0,32",
    "NOSUCH,1", "BROADCAST,4")] + ["ds_swizzle_b32 v8, v2 offset:0xffff", "ds_swizzle_b32 v8, v2 offset:65536"]

VERSIONS = [f"s_version {x}" for x in (
    "UC_VERSION_GFX7", "UC_VERSION_GFX10", "UC_VERSION_GFX11", "UC_VERSION_GFX12", "UC_VERSION_W64_BIT",
    "UC_VERSION_GFX11|UC_VERSION_W64_BIT", "2|UC_VERSION_W32_BIT", "(142|UC_VERSION_W64_BIT)|UC_VERSION_W32_BIT",
    "UC_VERSION_GFX10|UC_VERSION_W32_BIT|UC_VERSION_MDP_BIT", "1|2", "UC_VERSION_GFX8", "0x1234")]

MESSAGES = [f"s_sendmsg sendmsg({m})" for m in (
    "MSG_INTERRUPT", "MSG_HS_TESSFACTOR", "MSG_DEALLOC_VGPRS", "MSG_STALL_WAVE_GEN", "MSG_HALT_WAVES",
    "MSG_GS_ALLOC_REQ", "MSG_SYSMSG", "MSG_GS", "MSG_SAVEWAVE", "3")]

OPERAND_LISTS = ["ds_gws_init v1 gds", "ds_gws_barrier v3 offset:12 gds", "ds_gws_sema_p gds",
                 "ds_gws_sema_v offset:8 gds", "ds_gws_sema_br v2 gds", "ds_gws_sema_release_all gds",
                 "ds_ordered_count v5, v1 offset:4 gds", "s_dcache_inv", "s_gl1_inv",
                 "ds_append v1 gds", "ds_nop", "ds_swizzle_b32 v8, v2"]


@pytest.mark.parametrize("lines", [SWIZZLES, VERSIONS, MESSAGES, OPERAND_LISTS],
                         ids=["swizzle", "version", "sendmsg", "operand-lists"])
def test_macros_and_names_encode_as_llvm_does(lines):
    bad = disagreements(lines)
    assert not bad, "\n".join(bad)


def test_gfx12_message_names_are_what_llvm_encodes():
    """syntax.sendmsg_names('rdna4'): every name the printer uses for gfx1201 encodes to its id
    with LLVM 22's assembler, and the gfx11 names it leaves out are refused for gfx1201."""
    from dsl import syntax
    from tests.llvm_tools import mc_encodings
    names, rtn_names = syntax.sendmsg_names("rdna4")
    lines = [f"s_sendmsg sendmsg({n})" for n in names.values()] + \
            [f"s_sendmsg_rtn_b32 s0, sendmsg({n})" for n in rtn_names.values()]
    got = mc_encodings(lines, "gfx1201")
    assert [b[0] if b else None for b in got] == list(names) + list(rtn_names)
    dropped = [n for k, n in syntax.SENDMSG_NAMES.items() if k not in names]
    assert dropped and mc_encodings([f"s_sendmsg sendmsg({n})" for n in dropped], "gfx1201") == [None] * len(dropped)

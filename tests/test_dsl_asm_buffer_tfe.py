"""`tfe` on buffer instructions as LLVM 22's assembler takes it, on gfx1100, gfx1151 and gfx1201:
every MUBUF/MTBUF/VBUFFER instruction with and without `tfe` (its data one VGPR wider with it),
swept against llvm-mc-22 (skipped when absent). LLVM takes TFE on untyped buffer loads only; it
refuses it on stores ("TFE modifier has no meaning for store instructions"), atomics and typed
(tbuffer_*) accesses. The assembler decides from the generated memory facts
(dsl.signature.buffer_tfe) and refuses at llvm-mc-22's column: the flag where the data are as wide
as without it, the data where they are wider (no form of an atomic or a tbuffer_* holds them);
a store's flag once its operands match, after a wrong resource, soffset or register."""
from __future__ import annotations

import re

import pytest

import dsl
import isa
from isa.facts import cache_control
from tests.llvm_tools import mc_encodings, mc_errors
from tests.test_dsl_llvm_corpus import corpus

ARCHS = ["gfx1100", "gfx1151", "gfx1201"]
BUFFER = ("MUBUF", "MTBUF", "VBUFFER")


def _wider(vdata: str, by: int) -> str:
    m = re.fullmatch(r"v(\d+)|v\[(\d+):(\d+)\]", vdata)
    lo = int(m.group(1) or m.group(2))
    hi = int(m.group(3) or lo) + by
    return f"v{lo}" if hi == lo else f"v[{lo}:{hi}]"


def _lines(arch: str) -> list[str]:
    """One line per buffer mnemonic from LLVM's corpus (LLVM assembles it; no lds form), without
    tfe, then the same line with tfe and one more data VGPR."""
    base = {}
    for fam, _, text, reenc in corpus(arch):
        mn = text.split()[0]
        if fam not in ("MUBUF", "MTBUF") or reenc == "-" or mn in base or " lds" in text:
            continue
        vdata, rest = text[len(mn):].strip().split(",", 1)
        if text.endswith(" tfe"):
            vdata, rest = _wider(vdata, -1), rest[:-len(" tfe")]
        base[mn] = (mn, vdata, rest)
    return [ln for mn, vdata, rest in base.values()
            for ln in (f"{mn} {vdata},{rest}", f"{mn} {_wider(vdata, 1)},{rest} tfe")]


def _ours(line: str, arch: str):
    try:
        return dsl.assemble(line, arch), None
    except dsl.AsmError as e:
        return None, str(e).splitlines()[0]


@pytest.mark.parametrize("arch", ARCHS)
def test_every_buffer_instruction_with_and_without_tfe_as_llvm(arch):
    lines = _lines(arch)
    spec = isa.load(arch)
    swept = {spec.lookup(ln.split()[0])[0].name for ln in lines}
    every = {d.name for d in spec.instructions if d.format in BUFFER and not cache_control(d)}
    assert swept == every, sorted(every - swept)
    want, errors = mc_encodings(lines, arch), mc_errors(lines, arch)
    bad = []
    for i, (line, w) in enumerate(zip(lines, want)):
        got, err = _ours(line, arch)
        if got != w:
            bad.append(f"{line}: llvm {w.hex() if w else errors[i]}, ours {got.hex() if got else err}")
        elif got is None and line.endswith(" tfe"):     # refused where LLVM refuses it, naming tfe or
            assert err.startswith(f"1:{errors[i][0]}: ") and ("tfe" in err or "vdata" in err), (line, err, errors[i])
    assert not bad, "\n".join(bad[:20])
    # the sweep holds both sides: loads LLVM takes with tfe, and stores, atomics, tbuffers it refuses
    taken = [ln for ln, w in zip(lines, want) if ln.endswith(" tfe") and w is not None]
    assert taken and all(ln.startswith("buffer_load") for ln in taken)
    assert any(ln.startswith("tbuffer_load") and w is None for ln, w in zip(lines, want))


@pytest.mark.parametrize("arch,line,says", [
    ("gfx1100", "buffer_store_b32 v[1:2], off, s[4:7], s0 tfe", "TFE modifier has no meaning for store instructions"),
    ("gfx1201", "buffer_store_b32 v1, off, s[4:7], s0 tfe", "TFE modifier has no meaning for store instructions"),
    ("gfx1151", "tbuffer_load_format_x v1, off, s[4:7], s0 format:[BUF_FMT_32_FLOAT] tfe", "typed"),
    ("gfx1201", "tbuffer_store_format_x v1, off, s[4:7], s0 format:[BUF_FMT_32_FLOAT] tfe", "typed"),
    ("gfx1100", "buffer_atomic_add_u32 v1, off, s[4:7], s0 glc tfe", "atomic"),
    ("gfx1100", "buffer_load_b32 v1, off, s[4:7], s0 tfe", "status dword"),
    ("gfx1201", "buffer_load_b32 v1, off, s[4:7], s0 nv tfe", "status dword"),
    # wider data than any form without the flag holds: refused at the data, as LLVM does
    ("gfx1100", "buffer_atomic_add_u32 v[1:2], off, s[4:7], s0 glc tfe", "v[1:2]"),
    ("gfx1151", "tbuffer_load_format_x v[1:2], off, s[4:7], s0 format:[BUF_FMT_32_FLOAT] tfe", "v[1:2]"),
    ("gfx1100", "buffer_store_b32 v[1:3], off, s[4:7], s0 tfe", "v[1:3]"),
    # a store's data with the status dword match LLVM's form: what else is wrong comes first
    ("gfx1100", "buffer_store_b32 v[1:2], v2, null, s4 offen tfe", "null"),
    ("gfx1100", "buffer_store_b32 v[1:2], v2, s[0:3], 0x1234 offen tfe", "soffset"),
    ("gfx1100", "buffer_store_b64 v[254:256], v2, s[0:3], s4 offen tfe", "v[254:256]"),
    ("gfx1100", "buffer_store_b32 v[1:2], v2, s[0:3], s4 offen offset:5000 tfe", "store"),
    ("gfx1201", "buffer_store_b32 v[1:2], v2, s[0:3], s4 offen nv tfe", "nv"),
])
def test_refusals_at_llvms_column(arch, line, says):
    (column, message), = mc_errors([line], arch).values()
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble(line, arch)
    first = str(e.value).splitlines()[0]
    assert first.startswith(f"1:{column}: ") and says in first, (first, message)

"""The gfx9 dialect's (CDNA: gfx942, gfx950) DPP controls against llvm-mc-22, on every VALU
instruction: each line of tests/test_dsl_dpp_availability_sweep.py's base (LLVM's text of each
VOP1/VOP2/VOPC/VOP3/VOP3P definition, v8 <- v2, v4, v6; pairs where LLVM reads them so) written
as `<name>_dpp` with each of quad_perm, row_shl:1, row_newbcast:1 and row_share:1 (a GFX10+
control neither target has).

An instruction with a 64-bit VGPR operand (isa.facts.dp_alu_dpp: a DP ALU operation) takes
row_newbcast alone (LLVM: "DP ALU dpp only supports row_newbcast"); 32-bit ones take every gfx9
control; VOP3-only instructions and compares have no DPP form at all. Every line must be accepted
alike with the same bytes or refused by both."""
from __future__ import annotations

import re

import pytest

import dsl
import isa

from .llvm_tools import compare_with_mc, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_dpp_availability_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]
CONTROLS = ("quad_perm:[1,0,3,2]", "row_shl:1", "row_newbcast:1", "row_share:1")
_MASKS = " row_mask:0xf bank_mask:0xf"


def dpp_lines(arch: str) -> list[str]:
    """Every base line as its `_dpp` form with each control (an instruction's 32- and 64-bit
    encodings give one line)."""
    out = []
    for _, line in base_lines(arch):
        mn, _, ops = line.partition(" ")
        out += [f"{re.sub(r'_e(32|64)$', '', mn)}_dpp {ops} {c}{_MASKS}" for c in CONTROLS]
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("arch", ARCHS)
def test_dpp_controls_match_llvm(arch):
    lines = dpp_lines(arch)
    assert len(lines) > 1500
    want = mc_encodings(lines, arch)
    agree, known, bad = compare_with_mc(arch, lines, want, ours(lines, arch), [])
    print(f"\n{arch}: {agree}/{len(lines)} DPP lines agree with llvm-mc-22 (llvm accepts "
          f"{sum(w is not None for w in want)})")
    assert not bad, f"{len(bad)} of {len(lines)} lines differ:\n" + "\n".join(bad[:40])
    # the DP ALU class is among the lines LLVM refuses for its control, and it is there
    dp = "v_ceil_f64_dpp v[8:9], v[2:3] quad_perm:[1,0,3,2]" + _MASKS
    assert dp in lines and want[lines.index(dp)] is None
    assert want[lines.index(dp.replace("quad_perm:[1,0,3,2]", "row_newbcast:1"))] is not None



def test_dp_alu_dpp_refusal_names_the_control():
    """The refusal says why, at the control (its column is checked against llvm-mc-22's in
    tests/test_dsl_gfx9_error_columns.py)."""
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble("v_ceil_f64_dpp v[0:1], v[2:3] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf", "gfx942")
    assert str(e.value).startswith("1:31: v_ceil_f64_dpp: quad_perm: a 64-bit operand makes this a DP ALU "
                                   "operation, whose DPP takes only row_newbcast:n"), str(e.value)


def dpp_encodings(arch: str) -> list[bytes]:
    """LLVM's encoding of each 32-bit base line (VOP1/VOP2/VOPC) with its VGPR SRC0 moved into a
    DPP word, with each of quad_perm:[1,0,3,2], row_shl:1 and row_newbcast:1."""
    e32 = isa.load(arch).traits.roles.valu_e32
    lines = [line for fmt, line in base_lines(arch) if fmt in e32]
    out = []
    for data in mc_encodings(lines, arch):
        if data is None or len(data) != 4 or not 256 <= int.from_bytes(data, "little") & 0x1ff:
            continue        # (a literal K, a scalar SRC0: no DPP word to move it to)
        word = int.from_bytes(data, "little")
        first = (word & ~0x1ff | 0xfa).to_bytes(4, "little")
        out += [first + bytes([(word & 0x1ff) - 256, ctrl & 0xff, ctrl >> 8, 0xff]) for ctrl in (0xb1, 0x101, 0x151)]
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_dpp_bytes_print_as_llvm_prints_them(arch):
    """The decoder reads the same rules: bytes LLVM calls invalid (no DPP form) or prints with
    its "DP ALU dpp only supports row_newbcast" comment (a control the assembler refuses) are no
    instruction (.long); all others print LLVM's text."""
    import warnings

    from dsl import disassemble

    from .test_dsl_gfx9_neg_abs_decode_sweep import llvm_texts
    encodings = dpp_encodings(arch)
    assert len(encodings) > 500
    bad, printed = [], 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data, want in zip(encodings, llvm_texts(arch, encodings)):
            got = disassemble(data, arch)
            if want is None or "/*" in want:
                ok = got.startswith(".long")
            else:
                printed += 1
                ok = " ".join(got.split()) == " ".join(want.split())
            if not ok:
                bad.append(f"{data.hex()}: llvm {want!r}, ours {got!r}")
    print(f"\n{arch}: {len(encodings)} DPP encodings, llvm prints {printed} as an instruction; {len(bad)} differ")
    assert not bad, "\n".join(bad[:40])

"""What the VOP3 modifier fields apply to (isa.facts.modifier_use), against the manuals' operand
types and words, and the assembler's clamp decision that reads it against llvm-mc-22 (skipped
without it): an integer instruction takes clamp where the manual says "Supports saturation
(... integer domain)" and not where it says nothing (v_max_i32, integer compares)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

import dsl
import isa
from isa.facts import ModifierUse, modifier_use

from .conftest import shared_path


def _use(family: str, name: str, fmt: str | None = None) -> ModifierUse:
    d = next(x for x in isa.load(family).instructions if x.name == name and (fmt is None or x.format == fmt))
    return modifier_use(d)


@pytest.mark.parametrize("family", ("rdna3", "rdna3.5", "rdna4"))
def test_modifier_use_as_the_manual_types_and_words_say(family):
    # "Supports saturation (unsigned 32-bit integer domain)"
    assert _use(family, "V_ADD_NC_U32") == ModifierUse("saturate", False, (), ())
    assert _use(family, "V_SUB_NC_I16").clamp == "saturate"
    assert _use(family, "V_MAX_I32") == ModifierUse(None, False, (), ())                 # nothing said
    assert _use(family, "V_ADD_F16") == ModifierUse("float", True, ("S0", "S1"), ("S0", "S1", "D0"))
    assert _use(family, "V_FMA_F64") == ModifierUse("float", True, ("S0", "S1", "S2"), ())
    assert _use(family, "V_CVT_F32_F16") == ModifierUse("float", True, ("S0",), ("S0",))   # f16 in, f32 out
    assert _use(family, "V_PK_ADD_F16") == ModifierUse("float", False, ("S0", "S1"), ("S0", "S1", "D0"))
    # "Signal 'invalid' on sNAN's, and also on qNAN's if clamp is set": floats only
    assert _use(family, "V_CMP_LT_F32").clamp == "signals"
    assert _use(family, "V_CMP_LT_I32").clamp is None


@pytest.mark.parametrize("family", ("cdna3", "cdna4"))
def test_modifier_use_on_cdna(family):
    assert _use(family, "V_ADD_U32").clamp == "saturate"
    assert _use(family, "V_ADD_F32").omod and _use(family, "V_ADD_F32").neg_abs == ("S0", "S1")
    assert _use(family, "V_AND_B32").clamp is None


_TABLE_ROW = re.compile(r"^\|\s*(V_(?:WMMA|SWMMAC)_\w+)\s*\|\s*\d+x\d+ (\w+)[^|]*\|\s*\d+x\d+ (\w+)\s*\|", re.M)


def test_signed_by_neg_is_the_wmma_tables_iu_inputs():
    """signed_by_neg against RDNA4's Table 41 "WMMA Instructions" (section 7.12, its Markdown
    conversion, not the pseudocode the fact is read from): the matrices A (S0) and B (S1) typed
    IU8/IU4 there ("IU4" and "IU8" mean that the operand is either signed or unsigned ... as
    indicated by the NEG bits"); RDNA3's and RDNA3.5's integer WMMA (v_wmma_i32_16x16x16_iu8/iu4)
    likewise; no other instruction of any family has one."""
    table = {m.group(1): (m.group(2), m.group(3))
             for m in _TABLE_ROW.finditer(shared_path("spec_text", "rdna4_isa.md").read_text(encoding="utf-8"))}
    assert len(table) == 22 and table["V_SWMMAC_I32_16X16X64_IU4"] == ("IU4", "IU4")
    rdna4 = {d.name: modifier_use(d).signed_by_neg for d in isa.load("rdna4").instructions if d.name in table}
    assert set(rdna4) == set(table)
    for name, (a, b) in table.items():
        want = tuple(s for s, t in (("S0", a), ("S1", b)) if t.startswith("IU"))
        assert rdna4[name] == want, name
    for family in ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"):
        having = {d.name for d in isa.load(family).instructions if modifier_use(d).signed_by_neg}
        want = {n for n, (a, _) in table.items() if a.startswith("IU")} if family == "rdna4" else \
            {"V_WMMA_I32_16X16X16_IU8", "V_WMMA_I32_16X16X16_IU4"} if family.startswith("rdna3") else set()
        assert having == want, family


LINES = {   # line -> whether it takes clamp, by the manual's words (and LLVM 22 agrees)
    "v_add_nc_u32_e64 v1, v2, v3 clamp": True,       # Supports saturation
    "v_sub_nc_i16 v1, v2, v3 clamp": True,
    "v_mad_u16 v1, v2, v3, v4 clamp": True,
    "v_max_i32_e64 v1, v2, v3 clamp": False,         # the manual says nothing of saturation
    "v_maxmin_i32 v1, v2, v3, v4 clamp": False,
    "v_cmpx_eq_i32_e64 v2, v3 clamp": False,
    "v_cmp_lt_f32_e64 s2, v2, v3 clamp": True,       # signals on quiet NaNs
}


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1201"))
@pytest.mark.parametrize("line, takes", LINES.items())
def test_clamp_on_integers_follows_the_manual(arch, line, takes):
    try:
        got = dsl.assemble(line, arch)
    except dsl.AsmError as e:
        got = None
        assert "clamp" in str(e), str(e)
    assert (got is not None) == takes, line
    if got is not None:
        assert got[1] & 0x80, "CLMP (bit 15 of the VOP3 word) set"
    mc = shutil.which("llvm-mc-22")
    if mc is None:
        pytest.skip("llvm-mc-22 not installed")
    r = subprocess.run([mc, "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"], input=line, capture_output=True,
                       text=True)
    assert ("error" not in r.stderr) == takes, r.stderr


@pytest.mark.parametrize("arch", ("gfx1100", "gfx1201", "gfx942"))
def test_mul_lo_u16_takes_no_clamp_as_llvm_says(arch):
    """The manuals say v_mul_lo_u16 "Supports saturation (unsigned 16-bit integer domain)";
    LLVM 22 takes no clamp on it (a modifier_use erratum, isa/errata_modifiers.py), and neither do we."""
    line = "v_mul_lo_u16" + ("_e64" if arch == "gfx942" else "") + " v1, v2, v3 clamp"
    with pytest.raises(dsl.AsmError, match="clamp"):
        dsl.assemble(line, arch)
    mc = shutil.which("llvm-mc-22")
    if mc is None:
        pytest.skip("llvm-mc-22 not installed")
    r = subprocess.run([mc, "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"], input=line, capture_output=True,
                       text=True)
    assert "error" in r.stderr

"""The gfx9 dialect's (CDNA: gfx942, gfx950) DPP and SDWA availability from the manual's
"Instruction Limitations" (CDNA3 12.16.1 DPP / 12.16.2 SDWA, page 518; CDNA4 page 564: "The
following instructions cannot use DPP: ... V_CLREXCP ..."), which the generator reads into
tables["no_dpp"] / tables["no_sdwa"] (isa.facts.no_dpp / no_sdwa), against llvm-mc-22:

  * every VOP1 instruction without operands (v_nop, v_clrexcp) in every form LLVM's syntax has a
    suffix for (bare, _e32, _e64, _dpp with and without a control, _sdwa): the same bytes, or
    refused by both -- v_nop takes DPP and SDWA, v_clrexcp neither, so "no operands" is not the rule;
  * every instruction the lists name, in the form they deny it, refused by both; the sixteen 64-bit
    VOP1 instructions the DPP list also names (errata dpp_limitation: a DP ALU operation) take
    DPP with row_newbcast in both."""
from __future__ import annotations

import re

import pytest

import dsl
import isa
from dsl.decode import DecodeError, decode_one
from dsl.disasm import disassemble
from dsl.signature import valu_signature
from isa import errata
from isa.facts import no_dpp, no_sdwa

from .llvm_tools import compare_with_mc, mc_disassembly_each, mc_encodings
from .test_dsl_constant_sweep import ours
from .test_dsl_dpp_availability_sweep import base_lines

ARCHS = ["gfx942", "gfx950"]
_MASKS = " row_mask:0xf bank_mask:0xf"


def _no_operand_vop1(spec) -> list[str]:
    return sorted(d.name.lower() for d in spec.instructions
                  if d.format == "VOP1" and not valu_signature(d).dsts and not valu_signature(d).srcs)


def no_operand_lines(arch: str) -> list[str]:
    out = []
    for mn in _no_operand_vop1(isa.load(arch)):
        out += [mn, f"{mn}_e32", f"{mn}_e64", f"{mn}_dpp", f"{mn}_dpp quad_perm:[0,1,2,3]{_MASKS}",
                f"{mn}_dpp row_shl:1", f"{mn}_dpp row_newbcast:1", f"{mn} quad_perm:[1,0,3,2]", f"{mn}_sdwa",
                f"{mn}_sdwa dst_sel:DWORD", f"{mn} dst_sel:DWORD"]
    return out


@pytest.mark.parametrize("arch", ARCHS)
def test_no_operand_vop1_forms_match_llvm(arch):
    spec = isa.load(arch)
    assert _no_operand_vop1(spec) == ["v_clrexcp", "v_nop"]
    lines = no_operand_lines(arch)
    want = mc_encodings(lines, arch)
    agree, _, bad = compare_with_mc(arch, lines, want, ours(lines, arch), [])
    assert not bad, "\n".join(bad)
    assert agree == len(lines)
    accepted = {line for line, w in zip(lines, want) if w is not None}
    # LLVM takes v_nop's DPP and SDWA forms and none of v_clrexcp's: the rule is the manual's list
    assert f"v_nop_dpp quad_perm:[0,1,2,3]{_MASKS}" in accepted and "v_nop_sdwa" in accepted
    assert not any(line.startswith("v_clrexcp") and ("dpp" in line or "sdwa" in line or "sel" in line
                                                     or "quad" in line) for line in accepted)
    assert {"v_clrexcp", "v_clrexcp_e64"} <= accepted
    # and the bytes LLVM writes print as it prints them
    encodings = [w for w in want if w is not None]
    for data, text in zip(encodings, mc_disassembly_each(encodings, arch)):
        assert disassemble(data, arch).split(";")[0].strip() == text, (arch, data.hex())


def _listed(arch: str) -> dict[str, set[str]]:
    spec = isa.load(arch)
    return {kind: {name for _, name, _, _ in spec.tables.get(table, ())}
            for kind, table in (("DPP", "no_dpp"), ("SDWA", "no_sdwa"))}


def limitation_lines(arch: str) -> tuple[list[str], list[str]]:
    """(every listed instruction's LLVM text as `_dpp` with quad_perm and row_newbcast and as
    `_sdwa`, as its list denies it; the 64-bit VOP1 instructions the DPP list names that LLVM
    takes DPP on, as `_dpp` with row_newbcast)."""
    listed = _listed(arch)
    dp_alu = {name for name, _ in errata._DP_ALU_DPP}
    denied, allowed = [], []
    for fmt, line in base_lines(arch):
        if fmt not in ("VOP1", "VOP2", "VOPC"):
            continue
        mn, _, ops = line.partition(" ")
        base = re.sub(r"_e32$", "", mn)
        name = base.upper()
        if name in listed["DPP"]:
            denied += [f"{base}_dpp {ops} quad_perm:[1,0,3,2]{_MASKS}", f"{base}_dpp {ops} row_newbcast:1{_MASKS}"]
        if name in listed["SDWA"]:
            denied.append(f"{base}_sdwa {ops}")
        if name in dp_alu:
            allowed.append(f"{base}_dpp {ops} row_newbcast:1{_MASKS}")
    return denied, allowed


@pytest.mark.parametrize("arch", ARCHS)
def test_listed_instructions_have_no_such_form_in_llvm_either(arch):
    denied, allowed = limitation_lines(arch)
    assert len(denied) > 80 and len(allowed) == 16
    want = mc_encodings(denied + allowed, arch)
    assert all(w is None for w in want[:len(denied)]), [l for l, w in zip(denied, want) if w is not None]
    assert all(w is not None for w in want[len(denied):])
    agree, _, bad = compare_with_mc(arch, denied + allowed, want, ours(denied + allowed, arch), [])
    assert not bad, "\n".join(bad[:40])


def test_the_lists_are_read_from_the_manual():
    """The names each list gives (the manual's section, page), and what the errata leave out."""
    for arch, page, sdwa_page in (("gfx942", 518, 520), ("gfx950", 564, 566)):   # (the list item's page)
        spec = isa.load(arch)
        d = next(d for d in spec.lookup("v_clrexcp") if d.format == "VOP1")
        assert no_dpp(d) == ("12.16.1 DPP: the following instructions cannot use DPP", page)
        assert no_sdwa(d) == ("12.16.2 SDWA: the following instructions cannot use SDWA", sdwa_page)
        assert no_dpp(next(d for d in spec.lookup("v_nop") if d.format == "VOP1")) is None
        for name in ("v_cvt_i32_f64", "v_fract_f64"):     # dpp_limitation errata: DP ALU DPP
            assert no_dpp(next(d for d in spec.lookup(name) if d.format == "VOP1")) is None
        listed = _listed(arch)
        assert {"V_CLREXCP", "V_SWAP_B32", "V_READFIRSTLANE_B32", "V_CMP_EQ_F64", "V_CMPX_CLASS_F64",
                "V_CMP_LT_U64"} <= listed["DPP"]
        assert {"V_CLREXCP", "V_SWAP_B32", "V_READFIRSTLANE_B32", "V_FMAC_F32", "V_MAC_F16"} <= listed["SDWA"]
        # the VOP3 forms are not the lists' (the second dword follows VOP1, VOP2 or VOPC only)
        assert all(fmt in ("VOP1", "VOP2", "VOPC") for t in ("no_dpp", "no_sdwa")
                   for fmt, *_ in spec.tables[t])


def test_refusal_names_the_manuals_rule():
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble(f"v_clrexcp_dpp quad_perm:[0,1,2,3]{_MASKS}", "gfx942")
    assert "has no DPP form (the manual's rule: 12.16.1 DPP: the following instructions cannot use DPP, " \
           "page 518)" in str(e.value)
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble("v_clrexcp_sdwa", "gfx950")
    assert "has no SDWA form (the manual's rule: 12.16.2 SDWA" in str(e.value) and "page 566" in str(e.value)


@pytest.mark.parametrize("arch", ARCHS)
def test_decoder_gives_v_clrexcp_no_dpp_or_sdwa_form(arch):
    """A DPP or SDWA word after v_clrexcp is no operand of it: LLVM 22 prints no such form (it reads
    the first dword alone as v_clrexcp and calls the second an invalid encoding), our decoder
    refuses the pair naming the rule; v_nop's are read as LLVM reads them."""
    spec = isa.load(arch)
    for data in (bytes.fromhex("fa6a007e00e400ff"), bytes.fromhex("f96a007e00060606")):
        with pytest.raises(DecodeError, match="v_clrexcp has no (DPP|SDWA) form .*the manual's"):
            decode_one(spec, data)
        texts = [t for t in mc_disassembly_each([data], arch) if t]
        assert not any("quad_perm" in t or "_sel" in t for t in texts)
    assert decode_one(spec, bytes.fromhex("fa00007e00e400ff")).dpp_kind == "DPP"

"""Facts the encoder and the operand records found with regular expressions over pseudocode and
descriptions, now read once in isa/: which VALU sources the code reads as a register number
(`SRCn`), whether it addresses other lanes' VGPRs (`VGPR[lane][...]`) and which source selects the
lane (isa.facts, generated from the code), and which scalar source field holds a message type itself
(isa.control.message_reply).

Each test keeps the old rule as it was and compares it with the new fact over every instruction
of RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4 (no differences); the behaviour they decide (which
sources take an SGPR, a constant or a literal) is checked against llvm-mc-22."""
import re

import pytest

import isa
from isa.facts import lane_select_sources, reads_other_lanes, register_number_sources
from isa.gen.control import message_reply

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]

# dsl/encode.py's source kinds and dsl/operand_records.py's immediate source, as they were
_OLD_LANE_SELECT = re.compile(r"\blane = S(\d)\b")
_OLD_REGISTER_NUMBER = re.compile(r"\bSRC(\d)\b")
_OLD_OWN_LANE_READ = re.compile(r"VGPR\[laneId\]\[SRC\d(\.u32)?\]")
_OLD_WAVE_LEVEL = re.compile(r"VGPR\[(?!laneId\])")
_OLD_SOURCE_IS_IMMEDIATE = re.compile(r"\bencoded in the instruction directly\b")


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


def test_source_kinds_from_the_parse_agree_with_the_old_regexes():
    seen = {"register number": set(), "other lanes": set(), "lane select": set()}
    for family, d in _instructions():
        pcode = d.pcode or ""
        old_numbers = {int(n) for n in _OLD_REGISTER_NUMBER.findall(_OLD_OWN_LANE_READ.sub("", pcode))}
        assert register_number_sources(d) == old_numbers, (family, d.format, d.name)
        assert reads_other_lanes(d) == bool(_OLD_WAVE_LEVEL.search(pcode)), (family, d.format, d.name)
        old_lanes = {int(n) for n in _OLD_LANE_SELECT.findall(pcode)}
        assert lane_select_sources(d) == old_lanes, (family, d.format, d.name)
        for key, fact in (("register number", old_numbers), ("other lanes", _OLD_WAVE_LEVEL.search(pcode)),
                          ("lane select", old_lanes)):
            if fact:
                seen[key].add(d.name)
    # the comparison covers the instructions it is about
    assert {"V_MOVRELS_B32", "V_READLANE_B32", "V_PERMLANE16_B32"} <= seen["register number"]
    assert {"V_READLANE_B32", "V_WRITELANE_B32", "DS_BPERMUTE_B32"} <= seen["other lanes"]
    assert {"V_READLANE_B32", "V_WRITELANE_B32"} <= seen["lane select"]
    assert "V_MOVRELS_B32" not in seen["other lanes"]


def test_own_lane_register_number_is_a_value():
    """RDNA4's fp8 conversions read `VGPR[laneId][SRC0.u32]`: this lane's source, not a number."""
    rdna4 = {d.name: d for d in isa.load("rdna4").instructions}
    d = rdna4["V_CVT_F32_FP8"]
    assert "VGPR[laneId][SRC0" in d.pcode
    assert register_number_sources(d) == frozenset()
    assert not reads_other_lanes(d)


def test_message_reply_agrees_with_the_old_regex():
    for family, d in _instructions():
        old = bool(_OLD_SOURCE_IS_IMMEDIATE.search(d.description or ""))
        assert message_reply(d.description) == old, (family, d.name)


# (line, arch): what the source kinds decide, each accepted or refused as llvm-mc-22 does
_CASES = [
    ("v_readlane_b32 s1, v2, s3", "gfx1100"),          # src0 a register number: a VGPR
    ("v_readlane_b32 s1, s2, s3", "gfx1100"),
    ("v_readlane_b32 s1, v2, 5", "gfx1100"),           # the lane: an SGPR or inline constant
    ("v_readlane_b32 s1, v2, 0x1234", "gfx1100"),      # ... no literal
    ("v_writelane_b32 v1, s2, s3", "gfx1151"),         # other sources of a wave-level op: uniform
    ("v_writelane_b32 v1, v2, s3", "gfx1151"),
    ("v_permlane16_b32 v1, v2, s3, s4", "gfx1201"),
    ("v_permlane16_b32 v1, v2, v3, s4", "gfx1201"),
    ("v_permlane16_b32 v1, v2, 0x1234, s4", "gfx1201"),
    ("v_movrels_b32 v1, v2", "gfx1100"),
    ("v_movrels_b32 v1, s2", "gfx1100"),
    ("v_cvt_f32_fp8_e32 v1, s12", "gfx1201"),          # own lane's VGPR[laneId][SRC0]: any source
    ("v_readlane_b32 s1, v2, s3", "gfx942"),
    ("v_readlane_b32 s1, s2, s3", "gfx942"),
]



def _assembles_as_llvm(line: str, arch: str, want: bytes | None) -> None:
    """Our assembler gives llvm-mc's bytes, or refuses with a clear error where it refuses."""
    from dsl.asm import assemble
    if want is None:
        with pytest.raises(Exception) as err:
            assemble(line, arch)
        assert not isinstance(err.value, (IndexError, KeyError)), line
    else:
        assert assemble(line, arch) == want, line

@pytest.mark.parametrize("line,arch", _CASES)
def test_source_kinds_accept_and_refuse_as_llvm_does(line, arch):
    from tests.llvm_tools import mc_encodings
    _assembles_as_llvm(line, arch, mc_encodings([line], arch)[0])


# ---------------------------------------------------------------- byte_sel: the code's OPSEL chain

# dsl/syntax.BYTE_SEL as it was: the OPSEL bits that are byte_sel's high and low bit
_OLD_BYTE_SEL = {"V_CVT_F32_FP8": (0, 1), "V_CVT_F32_BF8": (0, 1), "V_CVT_SR_FP8_F32": (3, 2),
                 "V_CVT_SR_BF8_F32": (3, 2)}


def test_byte_select_from_the_code_is_the_old_table():
    """On the families of the gfx11 text syntax (the only ones whose printer and encoder read it)
    the fact is the old table exactly. CDNA3/4's code for v_cvt_f32_fp8 has no OPSEL chain (their
    text spells op_sel, never byte_sel: checked below), so the old table's CDNA rows were never read;
    their v_cvt_sr_fp8_f32 has RDNA4's chain."""
    for family, d in _instructions():
        from isa.facts import byte_select
        got = byte_select(d)
        if isa.traits(family).dialect != "gfx9":
            assert got == _OLD_BYTE_SEL.get(d.name), (family, d.name)
        elif got is not None:
            assert got == _OLD_BYTE_SEL[d.name] and d.name.startswith("V_CVT_SR_"), (family, d.name)


_BYTE_SEL_LINES = [f"{mn} byte_sel:{k}" for k in range(4) for mn in
                   ("v_cvt_f32_fp8_e64 v1, v2", "v_cvt_f32_bf8_e64 v1, v2", "v_cvt_sr_fp8_f32 v1, v2, v3",
                    "v_cvt_sr_bf8_f32 v1, v2, v3")]


def test_byte_sel_bytes_and_text_are_llvms():
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_encodings, run, tool
    wants = mc_encodings(_BYTE_SEL_LINES, "gfx1201")
    for line, want in zip(_BYTE_SEL_LINES, wants):
        assert want is not None, line
        assert assemble(line, "gfx1201") == want, line
        ours = disassemble(want, "gfx1201").strip()
        llvm = run(tool("llvm-mc"), "-triple=amdgcn", "-mcpu=gfx1201", "-disassemble",
                   stdin=" ".join(f"0x{b:02x}" for b in want).encode())
        assert " ".join(ours.split()) == " ".join(llvm.strip().split("\n")[-1].split()), (line, ours, llvm)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942", "gfx950"])
def test_byte_sel_refused_where_llvm_refuses_it(arch):
    from dsl.asm import assemble
    from tests.llvm_tools import mc_encodings
    lines = ["v_cvt_sr_fp8_f32 v1, v2, v3 byte_sel:2", "v_add_f32_e64 v1, v2, v3 byte_sel:1"]
    for line, want in zip(lines, mc_encodings(lines, arch)):
        assert want is None, line
        with pytest.raises(Exception) as err:
            assemble(line, arch)
        assert not isinstance(err.value, (IndexError, KeyError)), line


# ---------------------------------------------------------------- SOPP branches: the code's PC + SIMM16

# dsl/syntax.SOPP_STYLE's "branch" rows as they were
_OLD_SOPP_BRANCHES = {"s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
                      "s_cbranch_execz", "s_cbranch_execnz", "s_cbranch_cdbgsys", "s_cbranch_cdbguser",
                      "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user"}


def test_sopp_branches_are_the_code_computing_pc_plus_simm16():
    from dsl import syntax
    from isa.facts import pc_relative_immediate
    seen = set()
    for family, d in _instructions():
        if d.format != "SOPP":
            continue
        gfx9 = isa.traits(family).dialect == "gfx9"
        mn = d.name.lower()
        assert pc_relative_immediate(d) == (mn in _OLD_SOPP_BRANCHES), (family, d.name)
        assert (syntax.sopp_style(d, gfx9) == "branch") == (mn in _OLD_SOPP_BRANCHES), (family, d.name)
        seen.add(mn)
    assert _OLD_SOPP_BRANCHES <= seen
    # CDNA's s_cbranch_i_fork (SOPK) computes its target the same way
    fork = isa.load("cdna3").lookup("s_cbranch_i_fork")[0]
    assert pc_relative_immediate(fork)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_sopp_branches_assemble_and_print_as_llvm(arch):
    """Every SOPP branch of the family with a forward and a backward offset: our bytes are
    llvm-mc-22's, and our text of them is its disassembly."""
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_encodings, run, tool
    names = sorted(d.name.lower() for d in isa.load(arch).instructions
                   if d.format == "SOPP" and d.name.lower() in _OLD_SOPP_BRANCHES)
    assert names
    lines = [f"{mn} {off}" for mn in names for off in (12, -3)]
    for line, want in zip(lines, mc_encodings(lines, arch)):
        assert want is not None, line
        assert assemble(line, arch) == want, line
        llvm = run(tool("llvm-mc"), "-triple=amdgcn", f"-mcpu={arch}", "-disassemble",
                   stdin=" ".join(f"0x{b:02x}" for b in want).encode())
        ours = disassemble(want, arch).strip()
        assert " ".join(ours.split()) == " ".join(llvm.strip().split("\n")[-1].split()), (line, ours, llvm)


# ---------------------------------------------------------------- op_sel where LLVM's syntax has none

_NO_OP_SEL = [("gfx1100", "v_cndmask_b16 v1.l, v2.h, v3.l, s4 op_sel:[1,0,0,0]"),
              ("gfx1151", "v_cndmask_b16 v1.l, v2.l, v3.l, s4 op_sel:[0,0,0,0]"),
              ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4 op_sel:[1,0,0]"),
              ("gfx1201", "v_cndmask_b16 v1, v2, v3, s4 op_sel:[0,0,0,0]"),
              ("gfx1201", "v_cvt_sr_fp8_f32 v1, v2, v3 op_sel:[0,0,1,0]"),
              ("gfx1201", "v_cvt_sr_bf8_f32 v1, v2, v3 op_sel:[0,0,0,0]"),
              ("gfx1201", "v_cvt_f32_fp8_e64 v1, v2 op_sel:[1,0]"),
              ("gfx1201", "v_cvt_f32_bf8_e64 v1, v2 op_sel:[0,0]")]


@pytest.mark.parametrize("arch,line", _NO_OP_SEL)
def test_op_sel_refused_where_llvm_has_none(arch, line):
    """isa.facts.modifier_use's opsel None (v_cndmask_b16: halves by .l/.h only) and the byte_sel instructions
    (isa.facts.byte_select) take no op_sel, as llvm-mc-22 refuses it; the error says why."""
    from dsl.asm import assemble
    from dsl.asm_parse import AsmError
    from tests.llvm_tools import mc_encodings
    assert mc_encodings([line], arch)[0] is None, line
    with pytest.raises(AsmError, match="op_sel: the instruction takes no op_sel"):
        assemble(line, arch)


def test_op_sel_kept_where_llvm_takes_it():
    """v_cvt_pk_f32_fp8's OPSEL picks a word, which LLVM spells op_sel: still taken."""
    from dsl.asm import assemble
    from tests.llvm_tools import mc_encodings
    line = "v_cvt_pk_f32_fp8_e64 v[2:3], v2 op_sel:[1,0]"
    want = mc_encodings([line], "gfx1201")[0]
    assert want is not None and assemble(line, "gfx1201") == want


# the VALU instructions whose destination LLVM's syntax spells as an SGPR (v_readlane_b32 s1, v2, s3;
# the next test assembles them against llvm-mc-22)
SGPR_DEST_VALU = {"V_READFIRSTLANE_B32", "V_READLANE_B32"}


def test_lane_value_result_is_the_old_sgpr_destination_table():
    """isa.facts.lane_value_result (D0 written whole from another lane's VGPR), which
    dsl/signature.py reads for an SGPR destination, names exactly the VALU instructions LLVM
    gives an SGPR destination, on every family."""
    from isa.facts import lane_value_result
    found = set()
    for family, d in _instructions():
        if d.format.startswith("VOP"):
            assert lane_value_result(d) == (d.name in SGPR_DEST_VALU), (family, d.format, d.name)
            if lane_value_result(d):
                found.add(d.name)
    assert found == SGPR_DEST_VALU


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201", "gfx942"])
def test_lane_value_results_take_an_sgpr_as_llvm_does(arch):
    from tests.llvm_tools import mc_encodings
    lines = ["v_readfirstlane_b32 s1, v2", "v_readlane_b32 s1, v2, s3", "v_readfirstlane_b32 v1, v2",
             "v_readlane_b32 v1, v2, s3"]
    for line, want in zip(lines, mc_encodings(lines, arch)):
        assert (want is None) == (" v1," in line), line
        _assembles_as_llvm(line, arch, want)

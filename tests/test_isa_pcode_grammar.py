"""The one grammar of the pseudocode (isa/pcode/pcode.lark): the generator's reading of each
instruction's code (isa/gen/effects.py) and the emulator's translator (emu/pcode/) parse with
the same file and parser; what the grammar does not parse, per family, and how that code is
read (conservatively). Expected facts are the manuals' code read by hand."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import isa
from isa.gen.effects import OPERANDS, ALIASES, effects, tree
from isa.pcode.grammar import PcodeSyntaxError, parse

ROOT = Path(__file__).resolve().parent.parent

# the instructions whose code (as the generator reads it: code_text) the grammar does not parse,
# by family, and why: prose set as code, notation the language has no rule for (read by hand in
# the manuals; isa.errata.NOT_CODE says the same with pages, and the generator stops on any other)
UNPARSED = {
    "rdna3": {"DS_ADD_GS_REG_RTN", "DS_SUB_GS_REG_RTN",   # `if OFFSET0[5:2] > 7` without `then`
              "DS_APPEND", "DS_CONSUME",                  # `countbits(valid mask)`: two words as one argument
              "DS_BVH_STACK_RTN_B32",                     # `(stack_base, stack_index) = ...`: a tuple target
              "S_CODE_END", "S_DELAY_ALU"},               # `..`, an assembly example
    "rdna4": {"DS_APPEND", "DS_CONSUME", "S_CODE_END", "S_DELAY_ALU",
              "IMAGE_BVH64_INTERSECT_RAY", "IMAGE_BVH_DUAL_INTERSECT_RAY",   # register layout tables
              "S_CLAUSE", "S_SLEEP", "S_WAIT_EVENT", "S_WAIT_LOADCNT_DSCNT", "S_WAIT_STORECNT_DSCNT"},  # prose
    "cdna3": {"DS_GWS_BARRIER", "DS_GWS_INIT",           # `find first valid (vector mask)`
              "S_WAITCNT"},                              # prose
    "cdna4": {"S_WAITCNT"},
}
UNPARSED["rdna3.5"] = UNPARSED["rdna3"]


@pytest.mark.parametrize("family", sorted(UNPARSED))
def test_the_code_the_grammar_does_not_parse_per_family(family):
    spec = isa.load(family)
    unparsed = {d.name for d in spec.instructions if d.pcode and tree(d.pcode) is None}
    assert unparsed == UNPARSED[family]
    codes = {d.pcode for d in spec.instructions if d.pcode}
    assert len(codes) > 700 and len({d.pcode for d in spec.instructions if d.name in unparsed}) <= 14
    from isa.errata import NOT_CODE
    listed = {name for name, (pages, kind, _) in NOT_CODE.items() if family in pages and kind != "prose before code"}
    assert listed == UNPARSED[family]
    for d in spec.instructions:         # each listed block's page is its entry's (the generator checks it too)
        if d.name in NOT_CODE and family in NOT_CODE[d.name][0] and d.pcode:
            assert NOT_CODE[d.name][0][family] == d.pcode_page, d.name


def test_the_generator_stops_on_code_it_does_not_parse_unless_the_errata_say_what_it_is():
    """A pseudocode block outside the grammar is either listed in isa.errata.NOT_CODE (with its
    page) or generation stops naming it; a listed block that parses, or a wrong page, stops it too."""
    from isa.gen.build import _check_code
    from isa.gen.parse import SpecParseError
    row = {"name": "V_NEW_OP", "pcode": "D0.u32 = S0.u32 +* S1.u32", "pcode_page": 12, "page": 3}
    with pytest.raises(SpecParseError, match=r"V_NEW_OP: pseudocode line 1 .*page 12 of the rdna3 manual.*NOT_CODE"):
        _check_code("rdna3", [row])
    _check_code("rdna3", [dict(row, pcode="D0.u32 = S0.u32 + S1.u32")])
    prose = isa.load("rdna4").lookup("s_sleep")[0]
    page = prose.pcode_page
    _check_code("rdna4", [{"name": "S_SLEEP", "pcode": prose.pcode, "pcode_page": page, "page": 1}])
    with pytest.raises(SpecParseError, match=f"page {page - 1} of the rdna4 manual, the table says {page}"):
        _check_code("rdna4", [{"name": "S_SLEEP", "pcode": prose.pcode, "pcode_page": page - 1, "page": 1}])
    with pytest.raises(SpecParseError, match="NOT_CODE is stale: S_SLEEP.*now parses"):
        _check_code("rdna4", [{"name": "S_SLEEP", "pcode": "D0.u32 = 1", "pcode_page": page, "page": 1}])


def test_ds_swizzle_c_like_code_parses_as_the_same_statements():
    """DS_SWIZZLE_B32's C-like code (`if (c) { } elsif (c) { } else { }`, `for (i = 0; i < 64;
    i++) { }`, `offset = offset1:offset0`): one if_ with the manual's four modes (FFT, rotate,
    quad permute, bitmask), each a c_for over the 64 lanes (the quad mode steps by 4), and the
    offset the concatenation { offset1, offset0 }. CDNA's entry lists swizzle patterns before the
    same code (isa.errata.NOT_CODE: prose before code), which the generator reads from its first line."""
    for family in ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"):
        d = isa.load(family).lookup("ds_swizzle_b32")[0]
        root = tree(d.pcode)
        first, modes = root.children[0].children[:2]
        assert first.data == "assign" and first.children[2].data == "concat"
        assert [str(n.children[0]) for n in first.children[2].children] == ["offset1", "offset0"]
        assert modes.data == "if_" and len(modes.children[2].children) == 4 and len(modes.children) == 4
        bodies = [modes.children[1], *modes.children[2].children[1::2], modes.children[3]]
        loops = [s for b in bodies for s in b.children if s.data == "c_for"]
        assert len(loops) == 4 and [str(loop.children[2].children[1]) for loop in loops] == ["++", "++", "+=", "++"]
        e = effects(d.pcode)
        assert e.cross_lane and e.conditional and not e.full
    t = parse("while !DONE[k] do\n  s_nop(16'0U)\nendwhile;\nDONE[k] = 1'0U")
    assert [s.data for s in t.children[0].children] == ["while_", "assign"]


def test_the_translator_leaves_whole_wave_loops_to_hand_written_semantics():
    """The translator refuses a C-like lane loop or a while loop, naming it; the emulator runs
    DS_SWIZZLE_B32 and S_BARRIER_WAIT by their hand-written semantics."""
    from emu.table import translate
    d = isa.load("gfx1201").lookup("s_barrier_wait")[0]
    assert "while loop needs a hand-written semantic" in translate(d, False)["error"]
    d = isa.load("gfx1100").lookup("ds_swizzle_b32")[0]
    assert "DS_SWIZZLE_B32" in translate(d, False)["error"]
    from emu.pcode.grammar import parse as emu_parse
    from emu.pcode.translate import Translator
    from emu.pcode.types import Unsupported
    with pytest.raises(Unsupported, match="V_LANES: a C-like for loop over the lanes needs a hand-written semantic"):
        Translator("V_LANES", {}, False, False, True, {}, None).translate(
            emu_parse("for (i = 0; i < 4; i++) {\n  D0.u32 = S0.u32;\n}"))
    from emu.handwritten import semantic
    spec = isa.load("gfx1100")
    assert semantic("DS_SWIZZLE_B32", False, spec, spec.lookup("ds_swizzle_b32")[0]) is not None


@pytest.mark.parametrize("family", sorted(UNPARSED))
def test_unparsed_code_reads_every_operand_it_names_and_writes_in_part(family):
    """Never less than the truth: every operand the text names is read, every register it could
    assign is written in part (DS_APPEND's `GPR[VDST] = rtnval` writes VDST), none in full."""
    for d in isa.load(family).instructions:
        if d.name not in UNPARSED[family] or not d.pcode:
            continue
        words = re.findall(r"[A-Za-z_]\w*", re.sub(r"//[^\n]*", "", d.pcode))
        named = {ALIASES.get(w, w) for w in words if w in OPERANDS}
        e = effects(d.pcode)
        assert named <= e.reads and named & {"D0", "D1", "VCC", "SCC", "EXEC"} <= e.partial and not e.full, d.name
    if family in ("rdna3", "rdna4"):
        e = effects(isa.load(family).lookup("ds_append")[0].pcode)
        assert "D0" in e.partial


def test_one_grammar_file_read_by_the_emulator_too():
    """No second grammar: the emulator's parse is isa's (same tree), its syntax errors are the
    emulator's SemanticsError naming the instruction, line and column."""
    from emu.pcode.grammar import PcodeSyntaxError as EmuSyntaxError
    from emu.pcode.grammar import parse as emu_parse
    from emu.semantics import SemanticsError
    assert sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("*/**/*.lark")
                  if "pcode" in p.parts) == ["isa/pcode/pcode.lark"]
    code = isa.load("gfx1100").lookup("v_mad_u64_u32")[0].pcode
    assert emu_parse(code) == parse(code)
    with pytest.raises(EmuSyntaxError, match=r"V_BAD: pseudocode line 2 column \d+") as e:
        emu_parse("D0.u = S0.u;\nD0.u = = 1", "V_BAD")
    assert isinstance(e.value, SemanticsError)
    with pytest.raises(PcodeSyntaxError, match="V_BAD"):
        parse("D0.u = = 1", "V_BAD")


def test_in_is_a_name_except_in_a_for_header():
    """CDNA4's v_prng_b32 assigns a local `in`; `for i in 0 : 3 do` keeps the keyword."""
    t = parse("in = S0.u32;\nfor i in 0 : 3 do\n  in[i] = in << 1U\nendfor;\nD0.u32 = in")
    assert [s.data for s in t.children[0].children] == ["assign", "for_", "assign"]
    e = effects(isa.load("gfx950").lookup("v_prng_b32")[0].pcode)
    assert (set(e.reads), set(e.full), set(e.partial)) == ({"S0"}, {"D0"}, set())


def test_a_quoted_remark_and_a_bfloat16_cast_parse():
    """S_TRAP's `"Wait for all instructions to complete";` is a remark; CDNA4's
    v_cvt_sr_bf16_f32 casts with 16'BF( and writes the half of VDST that OPSEL[3] picks."""
    for arch in ("gfx1100", "gfx942"):
        d = isa.load(arch).lookup("s_trap")[0]
        assert tree(d.pcode) is not None
        assert effects(d.pcode).jump
    d = isa.load("gfx950").lookup("v_cvt_sr_bf16_f32")[0]
    e = effects(d.pcode)
    assert (set(e.reads), set(e.full), set(e.partial)) == ({"S0", "S1", "D0"}, set(), {"D0"})
    assert e.opsel_ranges == {(3, 3)}


def test_sparse_matrices_read_their_index_source():
    """RDNA4's V_SWMMAC_*: `S1.f16(32x16, index set from S2)`: S2 picks S1's elements (read), the
    accumulator D is read and, for 32-bit results, written whole; the one entry whose statement
    is not quoted (BF8_BF8) reads the same."""
    spec = isa.load("gfx1201")
    swmmac = [d for d in spec.instructions if d.name.startswith("V_SWMMAC_")]
    assert len(swmmac) >= 10
    for d in swmmac:
        e = effects(d.pcode)
        assert {"S0", "S1", "S2", "D0", "EXEC"} <= e.reads and e.matrix, d.name
        assert ("D0" in e.full) == ("_F32_" in d.name or "_I32_" in d.name), d.name


def test_the_generator_parses_each_code_once(monkeypatch):
    """The operand effects and the code facts read one tree per code (isa/gen/effects.tree)."""
    import isa.code_facts as code_facts
    from isa.gen import effects as reader
    calls = []

    def counting(text, name="?"):
        calls.append(text)
        return parse(text, name)
    monkeypatch.setattr(reader, "parse", counting)
    code = "D0.u32 = v_max_u32(v_min_u32(S0.u32, S1.u32), S2.u32) // test_the_generator_parses_each_code_once"
    assert reader.effects(code).reads == {"S0", "S1", "S2"}
    assert code_facts.call_chain(code) == ("V_MAX_U32", "V_MIN_U32", "u32")
    assert code_facts.instruction_calls(code) == ("v_max_u32", "v_min_u32")
    assert not code_facts.reads_other_lanes(code) and len(calls) == 1

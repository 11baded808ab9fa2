"""Facts dsl/signature.py and emu/timing/classify.py used to find with regular expressions over
pseudocode, now read from the one pseudocode parse (isa.effects: `uses`, each operand mention
with its type and constant bit range; `lane_bits`, operands assigned one lane's bit of a mask).

Each test keeps the old rule as it was and compares it with the parse's answer over every
instruction with pseudocode in the five families. The manuals' pseudocode is the reference; the
parse reads its tokens (comments dropped), the regexes read the raw text."""
import re

import isa
from isa.effects import effects
from isa.gen.effects import effects as read_code     # code of the test's own: the generator's reader

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]
KEYS = ("D0", "S0", "S1", "S2")


def _pcodes():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            if d.pcode:
                yield family, d


def _uses(pcode, key):
    return [u for u in effects(pcode).uses if u[0] == key]


# -------------------------------------------------------- old rules, copied as they were

def _old_lane_mask(pcode):          # emu/timing/classify.valu_class
    return bool(re.search(r"\b(D0|EXEC|VCC)\.u64\[laneId\]\s*=(?!=)", pcode))


def _old_sliced_result(pcode):      # emu/timing/classify.valu_class
    return sorted({int(x) for x in re.findall(r"\bD0\[(\d+) : \d+\]", pcode)})


def _old_sliced_bits(pcode, key):   # dsl/signature._sliced_bits
    if re.search(rf"\b{key}\.\w+", pcode):
        return 0
    his = re.findall(rf"\b{key}\[(\d+) : \d+\]", pcode)
    return max(int(h) for h in his) + 1 if his else 0


def _old_low_half_only(pcode, key, name):   # dsl/signature._low_half_only
    uses = re.findall(rf"\b{key}(\.\w+)?(\[(\d+) : (\d+)\])?", pcode)
    if not uses:
        return False
    short = {15, 3} if re.search(r"_[BIUF]16(_|$)", name) else {15}
    return all(sl and int(hi) in short and lo == "0" for _, sl, hi, lo in uses)


# -------------------------------------------------------- the comparisons

def test_lane_mask_writes_from_the_parse_agree_with_the_old_regex():
    rows, differ = 0, []
    for family, d in _pcodes():
        rows += 1
        new = bool(effects(d.pcode).lane_bits & {"D0", "EXEC", "VCC"})
        if new != _old_lane_mask(d.pcode):
            differ.append((family, d.name, d.format))
    assert rows > 7000
    assert differ == []


def test_sliced_results_from_the_parse_agree_with_the_old_regex():
    differ = []
    for family, d in _pcodes():
        new = sorted({hi for n, typed, hi, _ in _uses(d.pcode, "D0") if not typed and hi is not None})
        if new != _old_sliced_result(d.pcode):
            differ.append((family, d.name, d.format))
    assert differ == []


def test_sliced_operand_widths_from_the_parse_agree_with_the_old_regex():
    from dsl.signature import _sliced_bits
    differ, wide = [], 0
    looped = set()
    for family, d in _pcodes():
        for key in KEYS:
            new = _sliced_bits(d.pcode, key)
            wide += new > 32
            old = _old_sliced_bits(d.pcode, key)
            if new == old:
                continue
            # the parse also bounds a slice whose bounds are a loop variable (`for pass in 0 : 31 do
            # ... S0[sOffset + 15 : sOffset]`), where the regex saw none: gfx950's 32-element fp6/bf6
            # conversions (their LLVM widths: tests/test_dsl_vop3_width_sweep.py) and the iu8/iu4 dots
            if old == 0 and re.search(r"\bfor\b", d.pcode):
                looped.add((family, d.name))
            else:
                differ.append((family, d.name, key, old, new))
    assert wide > 0         # v_mqsad_u32_u8 and kin: the rule is exercised
    assert differ == []
    assert {n for _, n in looped} >= {"V_CVT_SCALEF32_PK32_F16_FP6", "V_CVT_SCALEF32_SR_PK32_FP6_F32", "V_DOT4_I32_IU8"}


def test_half_width_operands_from_the_parse_agree_with_the_old_regex():
    from dsl.signature import _low_half_only, type_info
    differ, half = [], 0
    for family, d in _pcodes():
        # the old rule read a 16-bit name suffix, the new one the result's width, which is 16 bits
        # where the code writes D0's low half only (D0.u[15 : 0] = ..., as dsl.signature reads D0 first)
        d0_bits = type_info(d.operand_types.get("D0"))[0]
        d0_bits = 16 if _low_half_only(d.pcode, "D0", d0_bits) else d0_bits
        for key in KEYS:
            new = _low_half_only(d.pcode, key, d0_bits)
            half += new
            if new != _old_low_half_only(d.pcode, key, d.name):
                differ.append((family, d.name, key))
    assert half > 0
    assert differ == []


def test_the_parse_reads_bit_ranges_and_lane_bits_as_the_manual_writes_them():
    """Hand-written pseudocode in the manual's notation, checked against the reading of it."""
    e = read_code("D0.u64[laneId] = S0.u32[15 : 0] > S1.u32;\nVCC.u64[laneId] = 1'1U")
    assert e.lane_bits == {"D0", "VCC"}
    assert ("S0", True, 15, 0) in e.uses and ("S1", True, None, None) in e.uses
    e = read_code("D0[127 : 96] = S0[55 : 24] // comment S2[7 : 0]")
    assert e.uses == {("D0", False, 127, 96), ("S0", False, 55, 24)}
    # a range chosen by a bit of a field, its widest (v_pk_mov_b32: OPSEL[0] picks bits 31:0 or 63:32)
    e = read_code("tmp0.u32 = S0.u32[OPSEL[0].i32 * 32 + 31 : OPSEL[0].i32 * 32];\nD0.u32 = tmp0.u32")
    assert ("S0", True, 63, 0) in e.uses
    assert ("S1", True, None, None) in read_code("D0.u32 = S1.u32[i * 8 + 7 : i * 8]").uses    # a variable's
    assert read_code("D0[15 : 0] = S0.u16").lane_bits == frozenset()


def test_branch_status_conditional_and_hwreg_facts_agree_with_the_old_substring_checks():
    """emu/timing/classify's SALU rules were substring checks on the raw pseudocode. EXECZ, VCCZ
    and hwRegId agree everywhere. `"if " in pcode` differs only where the text is not code: the
    words "... may trigger here if certain bits ..." in a comment of s_setreg (no condition: the
    parse, which drops comments, says so), and DS_GWS_BARRIER's `if(` with no space (a condition
    the substring missed). Neither is a branch, the only kind the timing model asks."""
    differ = {}
    for family, d in _pcodes():
        e = effects(d.pcode)
        for rule, old, new in (("EXECZ", "EXECZ" in d.pcode, "EXEC" in e.status_reads),
                               ("VCCZ", "VCCZ" in d.pcode, "VCC" in e.status_reads),
                               ("hwRegId", "hwRegId" in d.pcode, e.hwreg),
                               ("if", "if " in d.pcode, e.conditional)):
            if old != new:
                differ.setdefault(rule, []).append((family, d))
    assert set(differ) == {"if"}
    for family, d in differ["if"]:
        code = re.sub(r"//[^\n]*", "", d.pcode)
        if effects(d.pcode).conditional:
            assert "if " not in d.pcode and re.search(r"\bif\(", code), (family, d.name)
        else:
            assert "if " not in code and re.search(r"//[^\n]*\bif ", d.pcode), (family, d.name)
        assert not d.format.startswith("SOPP"), (family, d.name)
    assert sum(effects(d.pcode).status_reads == {"EXEC"} for _, d in _pcodes()) >= 10   # s_cbranch_execz/nz


def test_status_and_conditional_facts_on_the_manuals_branches():
    e = read_code("if EXECZ.u1 == 1'1U then\n  PC = PC + signext(SIMM16.i16 * 16'4) + 4LL\nelse\n  PC = PC + 4LL\nendif")
    assert e.status_reads == {"EXEC"} and e.conditional and not e.hwreg
    assert read_code("PC = PC + signext(SIMM16.i16 * 16'4) + 4LL").conditional is False


def _old_products(pcode):           # emu/timing/classify.valu_class
    return len(re.findall(r"^\s*(?:D0|tmp)\S*\s*\+?=[^\n]*\*", pcode, re.M))


def test_product_counts_from_the_parse_agree_with_the_old_regex_where_the_class_depends_on_them():
    """The timing class reads the count in three bands: 8 or more (4-bit dot products), 4 to 7
    (byte dot products), fewer. The parse counts statements, not lines; it differs from the old
    line regex only below 4, where the class is the same: packed halves written as
    `D0[31 : 16].i16 = S0[31 : 16].i16 * ...` (the regex's `\\S*` stopped at the space in the
    bit range: v_pk_mul_*, v_pk_mad_*), WMMA's quoted statement (the regex did not read inside
    the quotes), and CDNA's v_pk_mov_b32, whose `*` is index arithmetic assigned to tmp0, not a
    product (the regex took tmp0 for tmp)."""
    bands = lambda n: (n >= 8, 4 <= n < 8)
    differ, dots = [], 0
    for family, d in _pcodes():
        old, new = _old_products(d.pcode), effects(d.pcode).products
        dots += new >= 4
        if old != new:
            differ.append((family, d.name))
            assert bands(old) == bands(new) == (False, False), (family, d.name, old, new)
            packed = d.name.startswith("V_PK_") and re.search(r"\b(tmp|D0)\[\d+ : \d+\]", d.pcode)
            assert packed or effects(d.pcode).matrix or d.name == "V_PK_MOV_B32", (family, d.name)
    assert dots >= 10 and len(differ) == 58


def _old_k_position(d):             # dsl/signature.valu_signature and scalar_layout
    pcode = d.pcode
    m = re.search(r"fma\(([^)]*)\)", pcode) if "SIMM32" in pcode else None
    if m:
        args = [a.strip().split(".")[0] for a in m.group(1).split(",")]
        return args.index("SIMM32")
    if d.format == "VOP2" and re.search(r"\bSIMM(16|32)\b", pcode):
        args = re.findall(r"\b(S0|S1|SIMM16|SIMM32)\b", pcode.split("\n")[0])
        return next(i for i, a in enumerate(args) if a.startswith("SIMM"))
    return None


def test_k_position_from_the_parse_agrees_with_the_old_regex():
    """Where the constant K sits among the values read (v_fmamk_f32: fma(S0, SIMM32, S1), 1;
    v_fmaak_f32: fma(S0, S1, SIMM32), 2; CDNA's v_madmk: tmp = S0 * SIMM16 + S1, 1). The parse
    gives every instruction reading SIMM16/SIMM32 a position; the old rule only looked inside
    fma( ) or in VOP2. They differ only on SOPK and SOPP, where SIMM16 is the format's own
    immediate field (s_cmpk_*, s_branch; s_setreg_imm32_b32's SIMM32 its value), not a K operand; scalar_layout takes K only in
    SOP1/SOP2/SOPC, valu_signature only sees vector formats."""
    from dsl.signature import scalar_layout, valu_signature
    agree, differ = 0, []
    for family, d in _pcodes():
        old, new = _old_k_position(d), effects(d.pcode).constant_at
        if old is not None:
            agree += old == new
        if old != new:
            differ.append((family, d.name))
            assert old is None and d.format in ("SOPK", "SOPP"), (family, d.name, old, new)
            assert re.search(r"\bSIMM(16|32)\b", d.pcode) and "fma(" not in d.pcode, (family, d.name)
    # (RDNA4's S_SLEEP: SOPP prose, isa.errata.NOT_CODE, whose reading names no constant position;
    # its S_BARRIER_WAIT, `while ... endwhile` in the grammar, reads SIMM16 first: 118 with it)
    assert agree >= 28 and len(differ) == 118 and ("rdna4", "S_BARRIER_WAIT") in differ
    by = {(d.name, d.format): d for d in isa.load("rdna3").instructions}
    assert valu_signature(by["V_FMAMK_F32", "VOP2"]).k_pos == 1
    assert valu_signature(by["V_FMAAK_F32", "VOP2"]).k_pos == 2
    assert valu_signature(by["V_ADD_F32", "VOP2"]).k_pos is None
    r4 = {(d.name, d.format): d for d in isa.load("rdna4").instructions}
    assert [o for o, _, _ in scalar_layout(r4["S_FMAMK_F32", "SOP2"])] == ["sdst", "ssrc0", "k", "ssrc1"]
    assert [o for o, _, _ in scalar_layout(r4["S_FMAAK_F32", "SOP2"])] == ["sdst", "ssrc0", "ssrc1", "k"]


def test_typed_pieces_and_lane_selects_from_the_parse_agree_with_the_old_regexes():
    """dsl/signature: the types a wide operand's bit ranges are read as (`S0[63 : 32].f32`: float
    halves take float modifiers) and the source that picks a lane (`lane = S1.u32[4 : 0]`:
    v_readlane's, which takes no literal). Same answer for every operand of every instruction."""
    differ, pieces, selects = [], 0, 0
    for family, d in _pcodes():
        e = effects(d.pcode)
        for key in KEYS:
            old = set(re.findall(rf"\b{key}\[\d+ : \d+\]\.(\w+)", d.pcode))
            new = {t for name, _, _, t in e.pieces if name == key}
            pieces += bool(new)
            if old != new:
                differ.append((family, d.name, key, "pieces"))
            old, new = bool(re.search(rf"\blane = {key}\b", d.pcode)), key in e.lane_choosers
            selects += new
            if key != "D0" and old != new:
                differ.append((family, d.name, key, "lane"))
    assert pieces > 50 and selects >= 5
    assert differ == []


_OLD_RESULT_PIECE = re.compile(r"(?:\bD0|\btmp|\[VDST(?:\.\w+)?\])\s*\[[^\]:]*:[^\]]*\]\s*(?:\.\s*(?:[a-z]+(?:8|16)))?\s*=(?!=)\s*(\{?)")


def _old_packed_result(pcode):      # dsl/signature._packed_result
    whole_lines = [line for line in pcode.split("\n") if line[:1] not in (" ", "\t")]
    return len(_OLD_RESULT_PIECE.findall("\n".join(whole_lines))) >= 2 or "{" in _OLD_RESULT_PIECE.findall(pcode)


def test_packed_results_from_the_parse_agree_with_the_old_regex():
    """A packed result: two or more 8/16-bit (or untyped) bit ranges of D0/tmp/VGPR[..][VDST]
    written outside any if (the old rule: on unindented lines), or a range assigned { hi, lo }.
    Same answer for every instruction."""
    from dsl.signature import _packed_result
    differ, packed = [], 0
    for family, d in _pcodes():
        new = _packed_result(d.pcode)
        packed += new
        if new != _old_packed_result(d.pcode):
            differ.append((family, d.name))
    assert packed > 150 and differ == []
    # one byte chosen by OPSEL (v_cvt_sr_fp8_f32) is a partial write; both halves, a packed result
    assert not read_code("if OPSEL[3 : 2].u2 == 2'0U then\n  VGPR[laneId][VDST.u32][7 : 0].fp8 = x\n"
                       "else\n  VGPR[laneId][VDST.u32][15 : 8].fp8 = y\nendif").result_pieces
    assert read_code("D0[31 : 16].f16 = S0[31 : 16].f16 + S1[31 : 16].f16;\nD0[15 : 0].f16 = x").result_pieces == 2


def test_register_source_facts_from_the_parse_agree_with_the_old_regexes():
    """dsl/signature._register_source and valu_signature's VGPR-numbered sources: a field used as
    a VGPR number (`VGPR[lane][SRC1.u32]`), a field named other than as this lane's sliced source
    (`VGPR[laneId][SRC0.u32][7 : 0]` is a value), S0 named at all, a source written (v_swap's
    `S0.b = tmp`). They agree everywhere except the raw field count on CDNA's v_cvt_*_fp8/bf8,
    where the old substring count found SRC0 inside the name SDWA_SRC0_SEL (an SDWA selector,
    no operand). There S0 is named, so the rule that reads the count is never reached."""
    differ = []
    for family, d in _pcodes():
        e, code = effects(d.pcode), re.sub(r"//.*", "", d.pcode)
        s0_named = bool(re.search(r"\bS0\b", code))
        assert s0_named == ("S0" in {u[0] for u in e.uses}), (family, d.name)
        for i in range(3):
            assert bool(re.search(rf"VGPR\[[^\]]*\]\[SRC{i}\b", d.pcode)) == (f"SRC{i}" in e.vgpr_fields), (family, d.name)
            assert bool(re.search(rf"^\s*S{i}(\.\w+)?\s*=[^=]", d.pcode, re.M)) == (f"S{i}" in e.writes), (family, d.name)
        old = bool(re.sub(r"VGPR\[laneId\]\[SRC0\.u32\]\[", "", code).count("SRC0"))
        if old != ("SRC0" in e.field_numbers):
            differ.append((family, d.name))
            assert "SDWA_SRC0_SEL" in code and not re.search(r"\bSRC0\b", code) and s0_named, (family, d.name)
    assert len(differ) == 16
    from dsl.signature import valu_signature
    r4 = {(d.name, d.format): d for d in isa.load("rdna4").instructions}
    assert valu_signature(r4["V_READLANE_B32", "VOP3"]).srcs[0].registers_only
    assert valu_signature(r4["V_PERMLANE16_VAR_B32", "VOP3"]).srcs[1].registers_only
    assert valu_signature(r4["V_SWAP_B32", "VOP1"]).srcs[0].registers_only
    assert not valu_signature(r4["V_ADD_F32", "VOP2"]).srcs[0].registers_only


def test_moved_sgpr_widths_from_the_parse_agree_with_the_old_regex():
    """dsl/signature.scalar_layout: the width of the register s_movrels/s_movreld move, from the
    first `SGPR[addr].T` access. Same type for every instruction."""
    found = 0
    for family, d in _pcodes():
        m = re.search(r"\bSGPR\[\w+\]\.(\w+)", d.pcode)
        types = effects(d.pcode).sgpr_types
        assert (m.group(1) if m else None) == (types[0] if types else None), (family, d.name)
        found += bool(m)
    assert found >= 20


def test_matrix_shapes_from_the_parse_agree_with_the_old_regex():
    """dsl/signature.matrix_regs: each (MxN) operand of WMMA's quoted statement, now one of the
    parse's facts. The same shapes, in the same order, for every instruction."""
    old_re = re.compile(r"\b(D0|S0|S1|S2)\.([a-z]+)(\d+)\((\d+)x(\d+)")
    found = 0
    for family, d in _pcodes():
        old = [(k, t + b, int(b), int(r), int(c)) for k, t, b, r, c in old_re.findall(d.pcode)]
        assert list(effects(d.pcode).shapes) == old, (family, d.name)
        found += bool(old)
    assert found >= 20
    assert read_code('eval "D0.f32(16x16) = S0.fp8(16x16) * S1.bf8(16x16) + S2.f32(16x16)"').shapes == (
        ("D0", "f32", 32, 16, 16), ("S0", "fp8", 8, 16, 16), ("S1", "bf8", 8, 16, 16), ("S2", "f32", 32, 16, 16))
    assert ("S0", "iu4", 4, 16, 16) in read_code('eval "D0.i32(16x16) = S0.iu4(16x16) * S1.iu4(16x16) + S2.i32(16x16)"').shapes


_OLD_FULL_MUL = re.compile(r"\bS0\.[ui]\s*\*\s*S1\.[ui]\b|64'[UI]\(S0\.[ui](32)?\) \* 64'[UI]\(S1\.[ui](32)?\)|"
                           r"65'[UI]\(S0\.[ui]\) \* 65'[UI]\(S1\.[ui]\)")


def test_full_32_bit_products_from_the_parse_and_the_old_regex():
    """emu/timing/classify's wide multiply: S0 times S1 as whole 32-bit integers. The old regex
    knew RDNA3's spelling (`S0.u * S1.u`, `65'U(S0.u)`); the parse takes any 32-bit integer type
    (`.u32`, `.i32`) and any cast. Every difference is an instruction the old rule found on
    RDNA3 under the same name (RDNA4's v_mad_co_* is RDNA3's v_mad_*) and missed elsewhere only
    because the manual spells the type .u32: v_mul_lo_u32, v_mad_u64_u32, v_mad_i64_i32,
    s_mul_i32. Their timing class now matches RDNA3's for the same instruction."""
    from emu.timing.classify import valu_class
    rdna3 = {d.name: d for d in isa.load("rdna3").instructions if d.pcode}
    differ = []
    for family, d in _pcodes():
        old, new = bool(_OLD_FULL_MUL.search(d.pcode)), effects(d.pcode).full_product
        if old != new:
            differ.append((family, d.name))
            twin = rdna3[d.name.replace("_CO_", "_")]
            assert new and _OLD_FULL_MUL.search(twin.pcode), (family, d.name)
            assert re.search(r"S0\.[ui]32", d.pcode), (family, d.name)
            if d.name.startswith("V_"):
                assert valu_class(d) == valu_class(twin) == "wide_mul", (family, d.name)
    assert len(differ) == 16


def test_transcendental_calls_from_the_parse_agree_with_the_old_regex():
    """emu/timing/classify: the transcendental unit's functions (RDNA3 manual: exp, log, rcp, rsq,
    sqrt, sin, cos): pow(2.0, x), log2, sqrt, sin, cos, or 1.0 divided. Same answer for every
    instruction."""
    old_re = re.compile(r"\b(pow\((16')?2\.0|log2\(|sqrt\(|sin\(|cos\()|1\.0F? / |16'1\.0 / ")
    found = 0
    for family, d in _pcodes():
        new = effects(d.pcode).transcendental
        assert new == bool(old_re.search(d.pcode)), (family, d.name)
        found += new
    assert found >= 150
    assert read_code("D0.f = pow(2.0F, S0.f)").transcendental and read_code("D0.f16 = 16'1.0 / S0.f16").transcendental
    assert not read_code("D0.f = S0.f * 2.0F").transcendental

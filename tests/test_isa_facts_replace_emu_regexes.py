"""Facts the emulator used to find with regular expressions over pseudocode or instruction names,
now read once from the syntax tree of the one pseudocode grammar (isa/pcode/pcode.lark) by isa/code_facts.py and
isa/memory_access.py, cached per instruction by emu/facts.py.

Each test keeps the old rule as it was and compares what the emulator decides from the new fact
with it over every instruction of RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4, asserting every
difference with its reason. The manuals' code is the reference: the reasons are checked in the
text itself."""
import re

import isa
from emu import facts
from isa.facts import atomic_update

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _pcodes():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            if d.pcode:
                yield family, d


# ---------------------------------------------------------------- atomics' memory update

# emu/table.py and emu/atomic_scan.py, as they were
_OLD_SUMMING = r"\bMEM\[(?:ADDR|addr)\]\.([bui](?:32|64)?) ([+-])= DATA\.([bui](?:32|64)?);"
_OLD_EXTREME = r"\bMEM\[(?:ADDR|addr)\]\.([ui](?:32|64)?) = src ([<>])=? tmp \? src : tmp;"
_OLD_BITWISE = r"\bMEM\[(?:ADDR|addr)\]\.b(?:32|64)? = \(tmp ([&|^]) DATA\.b(?:32|64)?\);"
_OLD_SWAP = (r"\btmp = MEM\[(?:ADDR|addr)\]\.b(32|64|);\s*MEM\[(?:ADDR|addr)\]\.b\1 = DATA\.b\1;\s*"
             r"RETURN_DATA(?:\.b\1)? = tmp;?\s*$")
_OLD_OPERAND = r"(DATA2?)(?:\[\d+ : (\d+)\])?\.[bu]\d*"
_OLD_EXCHANGE = (r"\bsrc = " + _OLD_OPERAND + r";\s*cmp = " + _OLD_OPERAND + r";\s*"
                 r"MEM\[(?:ADDR|addr)\]\.[bu]\d* = tmp == cmp \? src : tmp;\s*RETURN_DATA(?:\.[bu]\d*)? = tmp;?\s*$")
_OLD_NAMES = {"<": "min", ">": "max", "&": "and", "|": "or", "^": "xor"}


def _old_atomic(pcode):
    """(sum sign, (reduction, signed), swap, exchange operands) by the old regexes."""
    m = re.search(_OLD_SUMMING, pcode)
    sign = 0 if m is None else 1 if m.group(2) == "+" else -1
    m = re.search(_OLD_EXTREME, pcode)
    if m is not None:
        reduction = (_OLD_NAMES[m.group(2)], m.group(1).startswith("i"))
    else:
        m = re.search(_OLD_BITWISE, pcode)
        reduction = (_OLD_NAMES[m.group(1)], False) if m is not None else None
    swap = re.search(_OLD_SWAP, pcode) is not None
    m = re.search(_OLD_EXCHANGE, pcode)
    exchange = None
    if m is not None and re.search(r"\btmp = MEM\[(?:ADDR|addr)\]\.[bu]\d*;", pcode):
        exchange = (m.group(1), int(m.group(2) or 0)), (m.group(3), int(m.group(4) or 0))
    return sign, reduction, swap, exchange


def _new_atomic(d):
    from emu.atomic_scan import cmpswap_of, swap_of
    from emu.table import reduction_of, summing_sign
    update = facts.FACTS["atomic_update"](d)
    reduction = reduction_of(update)
    if reduction is not None:
        reduction = ({"minimum": "min", "maximum": "max", "bitwise_and": "and", "bitwise_or": "or",
                      "bitwise_xor": "xor"}[reduction[0].__name__], reduction[1])
    return summing_sign(update), reduction, swap_of(update), cmpswap_of(update)


def test_atomic_updates_from_the_parse_agree_with_the_old_regexes():
    """The atomics the emulator combines (integer += / -=, integer min/max, and/or/xor), scans in
    one pass (swap) or per success (integer compare-and-swap) are the same instructions, with the
    same signs, reductions, signedness and operands, in every family."""
    rows, kinds = 0, {}
    for family, d in _pcodes():
        if "MEM" not in d.pcode:
            continue
        rows += 1
        old, new = _old_atomic(d.pcode), _new_atomic(d)
        assert new == old, (family, d.name, old, new)
        update = atomic_update(d)
        if update is not None:
            kinds[update.kind] = kinds.get(update.kind, 0) + 1
    assert rows > 1800
    # every kind is found, on many instructions (DS, buffer, FLAT/GLOBAL, SMEM atomics of five families)
    assert all(kinds.get(k, 0) >= 20 for k in ("add", "sub", "min", "max", "and", "or", "xor", "swap", "cmpswap"))


def test_atomic_update_kinds_on_the_manuals_code():
    """The fact on instructions whose code says it plainly, and those it must not combine."""
    spec = isa.load("rdna3")
    def kind(name):
        d = next(x for x in spec.lookup(name) if x.pcode)
        u = atomic_update(d)
        return u and (u.kind, u.type, u.returns_old, u.operands)
    assert kind("DS_ADD_RTN_U32") == ("add", "u", True, ())
    assert kind("GLOBAL_ATOMIC_CMPSWAP_B64") == ("cmpswap", "b64", True, (("DATA", 0), ("DATA", 64)))
    assert kind("DS_CMPSTORE_RTN_B32") == ("cmpswap", "b", True, (("DATA", 0), ("DATA2", 0)))
    assert kind("DS_MIN_RTN_F32")[:2] == ("min", "f")       # a float min: not combined (NaN order)
    assert kind("DS_RSUB_RTN_U32")[0] == "other"            # MEM[ADDR] = DATA.b - MEM[ADDR].b
    assert kind("DS_INC_RTN_U32")[0] == "other"
    assert kind("DS_STOREXCHG_2ADDR_RTN_B32") is None       # two memory words written
    assert kind("GLOBAL_LOAD_B32") is None
    cdna = next(x for x in isa.load("cdna3").lookup("GLOBAL_ATOMIC_SMAX") if x.pcode)
    assert "addr = CalcGlobalAddr" in cdna.pcode and atomic_update(cdna).kind == "max"


# ---------------------------------------------------------------- dword runs (emu/dword_loads.py)

_OLD_FIELD_LOAD = re.compile(r"(\w+)\[(\d+) : (\d+)\] = MEM\[ADDR \+ (\d+)U\]\.b")


def _old_dword_run(pcode):
    statements = [s.strip() for s in (pcode or "").strip().rstrip(";").split(";")]
    if len(statements) < 2:
        return None
    dest = None
    for k, statement in enumerate(statements):
        m = _OLD_FIELD_LOAD.fullmatch(statement)
        if m is None or (dest is not None and m.group(1) != dest) or \
                (int(m.group(2)), int(m.group(3)), int(m.group(4))) != (32 * k + 31, 32 * k, 4 * k):
            return None
        dest = m.group(1)
    return dest, len(statements)


def test_dword_runs_from_the_parse_agree_with_the_old_regex():
    """The loads the emulator makes as one access: the same on RDNA3; the parse also reads
    RDNA3.5's spelling of the same run (`MEM[ADDR].b32` for the first dword, `.b32` for each),
    which the regex's `+ 0U` and `.b` missed, so RDNA3.5 takes the fast path too (the same values
    and faults: tests/test_emu_dword_loads.py runs on gfx1151). CDNA and RDNA4 compute the
    address first (`addr = CalcGlobalAddr(...)`): neither finds a run there."""
    rows, found = 0, {}
    for family, d in _pcodes():
        rows += 1
        old, new = _old_dword_run(d.pcode), facts.FACTS["field_loads"](d)
        if family == "rdna3.5" and new is not None and old is None:
            assert re.search(r"= MEM\[ADDR\]\.b32;", d.pcode) and ".b32" in d.pcode
        else:
            assert new == old, (family, d.name, old, new)
        if new:
            found[family] = found.get(family, 0) + 1
    assert rows > 4000
    # RDNA3.5's ds_load_b96/b128 add the offset in the code (`MEM[ADDR + OFFSET.u32 + 4U]`): no run
    # (LDS loads never take the one access anyway)
    assert found["rdna3"] == 22 and found["rdna3.5"] == 20 and "rdna4" not in found and "cdna3" not in found
    assert "addr = CalcGlobalAddr" in isa.load("cdna3").lookup("GLOBAL_LOAD_DWORDX4")[0].pcode


# ---------------------------------------------------------------- DS offsets (emu/dialect.py)

_OLD_ADDS_OFFSET = re.compile(r"\bADDR\s*\+\s*OFFSET\d?\b|\bCalcDsAddr\(ADDR\b")


def test_ds_address_offsets_from_the_parse_agree_with_the_old_regex():
    """Which DS instructions' code adds the instruction offset to ADDR itself (RDNA3.5's
    `MEM[ADDR + OFFSET.u32]`, CDNA's `CalcDsAddr(ADDR.b32, OFFSET0.b32, OFFSET1.b32)`): the same
    on every instruction. The old rule read the semantic's source: a hand-written semantic's
    one-line description, which names no such sum, and the manual's code of those instructions
    adds none either."""
    from emu import handwritten
    rows, adds = 0, {}
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.lds:
            continue
        rows += 1
        new = facts.FACTS["address_adds_offset"](d)
        assert new == bool(_OLD_ADDS_OFFSET.search(d.pcode or "")), (family, d.name)
        adds[family] = adds.get(family, 0) + new
        sem = handwritten.semantic(d.name, False, isa.load(family))
        if sem is not None:         # hand-written: neither its source nor its manual code adds one
            assert not _OLD_ADDS_OFFSET.search(sem.source) and not new, (family, d.name)
    assert rows > 600
    assert adds == {"rdna3": 0, "rdna3.5": 16, "rdna4": 0, "cdna3": 88, "cdna4": 88}


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


# ---------------------------------------------------------------- shortcuts (emu/shortcuts.py)

_OLD_CHAIN = re.compile(r"\s*D0\.f(?:32)? = (v_\w+)\((v_\w+)\(S0\.f(?:32)?, S1\.f(?:32)?\), S2\.f(?:32)?\)\s*;?\s*")


def _old_s0_nan_first(pcode):
    first = re.search(r"is(?:Quiet)?NAN\(64'F\(S([01])", pcode or "")
    return first is not None and first.group(1) == "0"


def test_nan_order_and_call_chains_from_the_parse_agree_with_the_old_regexes():
    """v_min/max_f32's NaN order (the source the first isNAN / isQuietNAN names) and the f32
    call chains composed from their callees' shortcuts: the same on every instruction."""
    rows, chains, s0_first = 0, set(), set()
    for family, d in _pcodes():
        rows += 1
        new = facts.FACTS["first_nan_test"](d) == "S0"
        if new != _old_s0_nan_first(d.pcode):
            # the regex saw only tests of a 64'F cast: isNAN(S0.f64) (v_frexp_*_f64) is a test too
            assert d.name not in ("V_MIN_F32", "V_MAX_F32") and re.search(r"is(?:Quiet)?NAN\(S0\.", d.pcode), \
                (family, d.name)
        chain = facts.FACTS["call_chain"](d)
        m = _OLD_CHAIN.fullmatch(d.pcode)
        old = (m[1].upper(), m[2].upper()) if m else None
        assert (chain[:2] if chain and chain[2] in ("f", "f32") else None) == old, (family, d.name)
        if old:
            chains.add(d.name)
        if _old_s0_nan_first(d.pcode):
            s0_first.add((family, d.name))
    assert rows > 4000
    assert {"V_MIN3_F32", "V_MAX3_F32", "V_MINMAX_F32", "V_MAXMIN_F32"} <= chains
    assert ("cdna3", "V_MAX_F32") in s0_first and ("rdna3", "V_MAX_F32") not in s0_first
    # the chains of other types are facts too, which the f32 shortcuts leave alone
    assert facts.FACTS["call_chain"](isa.load("rdna3").lookup("V_MIN3_I32")[0]) == ("V_MIN_I32", "V_MIN_I32", "i")


# ---------------------------------------------------------------- permutes (emu/handwritten/lanes.py)

def test_permute_lane_modulus_from_the_parse_agrees_with_the_manuals_text():
    """ds_bpermute/ds_permute's lane modulus (wave32, wave64): 32 on RDNA3/3.5 (`/ 4 % 32`), 64 on
    CDNA (`/ 4U % 64U`), both read by a regular expression over the code here; RDNA4's code takes
    `% num_lanes` after `num_lanes = WAVE64 ? 64 : 32`: the wave size, (32, 64)."""
    seen = {}
    for family, d in _instructions():
        if d.name not in ("DS_BPERMUTE_B32", "DS_PERMUTE_B32"):
            continue
        m = re.search(r"/\s*4U?\s*%\s*(\d+)U?", d.pcode or "")
        wave = re.search(r"num_lanes\s*=\s*WAVE64\s*\?\s*(\d+)\s*:\s*(\d+)", d.pcode or "")
        want = (int(m.group(1)),) * 2 if m else (int(wave.group(2)), int(wave.group(1)))
        assert facts.FACTS["lane_modulus"](d) == want, (family, d.name)
        seen[family] = want
    assert seen == {"rdna3": (32, 32), "rdna3.5": (32, 32), "rdna4": (32, 64), "cdna3": (64, 64), "cdna4": (64, 64)}
    assert "% num_lanes" in isa.load("rdna4").lookup("DS_BPERMUTE_B32")[0].pcode


# ---------------------------------------------------------------- register files (emu/machine.py)

def test_indexed_register_files_from_the_parse_agree_with_the_old_substrings():
    """Which generated semantics get the SGPR / hardware-register files (s_movrel*, s_getreg,
    s_setreg): `SGPR[` or `HW_REGISTERS` in the text, now the files the code indexes. Where they
    differ the text names them only in a comment."""
    rows, files = 0, 0
    for family, d in _pcodes():
        rows += 1
        new = bool(facts.FACTS["register_files"](d) & {"SGPR", "HW_REGISTERS"})
        old = "SGPR[" in d.pcode or "HW_REGISTERS" in d.pcode
        if new != old:
            code = re.sub(r"//[^\n]*", "", d.pcode)
            assert old and "SGPR[" not in code and "HW_REGISTERS" not in code, (family, d.name)
        files += new
    assert rows > 4000 and files > 30


# ---------------------------------------------------------------- format conversions (emu/handwritten)

_OLD_BUFFER_FORMAT = (r"^T?BUFFER_(LOAD|STORE)_(?:(?P<d16>D16_(?P<hi>HI_)?)FORMAT_|FORMAT_(?P<d16_gfx9>D16_"
                      r"(?P<hi_gfx9>HI_)?)|FORMAT_)(X|XY|XYZ|XYZW)$")


def test_format_conversions_from_the_manual_agree_with_the_old_name_rule():
    """The buffer instructions the emulator runs as hand-written format conversions, and their
    direction, components, D16 halves and high half: from the code's conversions and the data
    register's bit ranges (or, where there is no code, CDNA's buffer_store_format_d16_hi_x, the
    description), the same as the names' RDNA (BUFFER_LOAD_D16_HI_FORMAT_X) and GFX9
    (BUFFER_LOAD_FORMAT_D16_HI_X) spellings said, on every instruction of every family."""
    from emu import handwritten
    rows, converting = 0, 0
    for family, d in _instructions():
        spec = isa.load(family)
        if d.format not in spec.traits.roles.buffer:
            continue
        rows += 1
        m = re.match(_OLD_BUFFER_FORMAT, d.name)
        old = m and (m.group(1).lower(), len(m.group(m.lastindex)), bool(m.group("d16") or m.group("d16_gfx9")),
                     bool(m.group("hi") or m.group("hi_gfx9")))
        assert facts.FACTS["format_conversion"](d) == (old or None), (family, d.name)
        sem = handwritten.semantic(d.name, False, spec)
        assert (sem is not None and sem.source.startswith("format conversion")) == bool(m), (family, d.name)
        converting += bool(m)
    assert rows > 400 and converting == 170
    no_code = [d for d in isa.load("cdna3").lookup("BUFFER_STORE_FORMAT_D16_HI_X")]
    assert no_code and not no_code[0].pcode and facts.FACTS["format_conversion"](no_code[0]) == ("store", 1, True, True)


# ---------------------------------------------------------------- translation inputs (emu/table.py)

def test_lookup_tables_and_called_instructions_from_the_parse_agree_with_the_old_regexes():
    """The translation's inputs besides the code: the array the code only declares, filled from
    the description's table (`declare (\\w+_TABLE) :` before), and the instructions it calls,
    whose result types key the translation cache (`\\b([vsVS]_\\w+)\\s*\\(` before, in the same
    order, so the cache keys stay the same)."""
    rows, tables, callers = 0, set(), 0
    for family, d in _pcodes():
        rows += 1
        old_tables = tuple(re.findall(r"declare (\w+_TABLE) :", d.pcode))
        assert facts.FACTS["unfilled_arrays"](d) == old_tables, (family, d.name)
        tables.update(old_tables)
        old_calls = tuple(sorted(set(re.findall(r"\b([vsVS]_[A-Za-z0-9_]+)\s*\(", d.pcode))))
        assert facts.FACTS["instruction_calls"](d) == old_calls, (family, d.name)
        callers += bool(old_calls)
    assert rows > 4000 and tables == {"CVT_OFF_TABLE"} and callers > 50


# ---------------------------------------------------------------- hand-written families (emu/handwritten)

def test_wmma_and_vinterp_from_the_manual_agree_with_the_old_name_prefixes():
    """The hand-written semantics looked for WMMA and VINTERP instructions by the V_WMMA_ and
    V_INTERP_ prefixes; now by the parse's whole-matrix operands (isa.effects' matrix: WMMA's
    quoted (MxN) statement) and the VINTERP format (traits.roles.interp). The same instructions,
    but RDNA4's sparse V_SWMMAC_* (matrices too, with no hand-written semantic: still none)."""
    from emu import handwritten
    for family, d in _instructions():
        spec = isa.load(family)
        is_matrix = facts.FACTS["matrix"](d)
        if is_matrix != d.name.startswith("V_WMMA_"):
            assert family == "rdna4" and d.name.startswith("V_SWMMAC_"), (family, d.name)
            assert handwritten.semantic(d.name, False, spec) is None
        assert (d.format in spec.traits.roles.interp) == d.name.startswith("V_INTERP_"), (family, d.name)


# ---------------------------------------------------------------- VOPD accumulation (emu/timing/classify.py)

def test_vopd_accumulation_from_the_fact_agrees_with_the_old_description_regex():
    """The timing model's VOPD halves that read their destination: the base instruction's code
    reads D0, or the half accumulates (isa.facts.accumulates: its own code's value_reads, or
    without code the description, "The initial value in D is used as S2"); before, that
    description by a regex whatever the code. The same halves on RDNA3, RDNA3.5 and RDNA4."""
    from dsl.signature import vopd_base
    from emu.timing.classify import _pseudo_names
    from isa.facts import accumulates
    rows, reading = 0, set()
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.vopd:
            continue
        rows += 1
        r, _ = _pseudo_names(vopd_base(isa.load(family), d).pcode)
        old = "D0" in r or bool(re.search(r"\bThe initial value in D is used as S2\b", d.description or ""))
        assert ("D0" in r or accumulates(d)) == old, (family, d.name)
        if old:
            reading.add(d.name)
    assert rows > 90 and {"V_DUAL_DOT2ACC_F32_F16", "V_DUAL_DOT2ACC_F32_BF16", "V_DUAL_FMAC_F32"} <= reading
    rdna3 = {d.name: d for d in isa.load("rdna3").instructions if d.format == "VOPD"}
    assert not rdna3["V_DUAL_DOT2ACC_F32_F16"].pcode and accumulates(rdna3["V_DUAL_DOT2ACC_F32_F16"])

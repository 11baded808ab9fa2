"""Facts that consumers used to find with regular expressions over pseudocode or substrings of
instruction names, now read from the one pseudocode parse (isa.effects) or the manual's data.

Each test runs the old rule (copied here as it was) and the new fact over every instruction of
the five families and lists every instruction where they differ, with the reason the new
answer is right. The manuals are the reference: the new facts read what they state."""
import re

import pytest

import isa
from isa.effects import effects

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


# ---------------------------------------------------------------- dsl/signature: operands named

_OLD_WRITES_VCC = re.compile(r"\bVCC(\.u64)?\[laneId\]\s*=|\bVCC\s*=")
_OLD_READS_VCC = re.compile(r"\bVCC\.u64\[laneId\](?!\s*=[^=])")


def _old_operand_rules(pcode: str) -> dict:
    return {
        "vcc_out": bool(_OLD_WRITES_VCC.search(pcode)),
        "vcc_in": bool(_OLD_READS_VCC.search(re.sub(r"VCC(\.u64)?\[laneId\]\s*=[^=]", "", pcode))),
        "vector result": bool(re.search(r"\b(D0|DST|VDST)\b", pcode)),
        "scalar result": bool(re.search(r"\b(D0|DST|SDST)\b", pcode)),
        "scalar source": bool(re.search(r"\b(S0|SRC0)\b", pcode)),
        **{f"source {i}": bool(re.search(rf"\bS{i}\b", pcode)) or bool(re.search(r"\bS\[i\]", pcode))
           for i in range(3)},
    }


def _new_operand_facts(pcode: str) -> dict:
    e = effects(pcode)
    return {
        "vcc_out": "VCC" in e.writes,
        "vcc_in": "VCC" in e.reads,
        "vector result": "D0" in e.names,
        "scalar result": "D0" in e.names,
        "scalar source": "S0" in e.names,
        **{f"source {i}": f"S{i}" in e.names | e.reads for i in range(3)},
    }


_SCALAR_RULES = ("scalar result", "scalar source")


_MATRIX_FORMULA = re.compile(r"^D = A \((?:sparse )?\d+x\d+\) \* B \(\d+x\d+\) \+ [CD] \(\d+x\d+\)$")


def test_operand_facts_from_the_parse_agree_with_the_old_regular_expressions():
    """Each rule compared over the formats it is applied to (the scalar ones over SALU, the
    others over VALU). They differ only where the pseudocode names an operand through its
    field (SRC0 in VGPR[lane][SRC0.u32], v_readlane; SRC2 in RDNA3.5's interpolation): the parse
    reads that as the operand (S0, S2), the old regex did not and reached the same operand list
    through the field's type in operand_types (valu_signature's setdefault of SRCi)."""
    rows, differ = 0, {}
    for family, d in _instructions():
        roles = isa.traits(family).roles
        valu = d.format in roles.valu | roles.interp | roles.vopd or d.format.startswith("VOP3P")
        if not d.pcode or not (valu or d.format in roles.salu):
            continue
        old, new = _old_operand_rules(d.pcode), _new_operand_facts(d.pcode)
        rows += 1
        for rule in old:
            if (rule in _SCALAR_RULES) == (d.format in roles.salu) and old[rule] != new[rule]:
                differ.setdefault(rule, set()).add((family, d.name))
    assert rows > 5000
    print("rows:", rows, "differences per rule:", {rule: len(v) for rule, v in differ.items()})
    assert set(differ) <= {"source 0", "source 1", "source 2", "vector result"}, sorted(differ)
    for rule, pairs in differ.items():
        i = rule[-1]
        for family, name in pairs:
            d = next(x for x in isa.load(family).instructions if x.name == name and x.pcode)
            code = re.sub(r"//[^\n]*", "", d.pcode)
            if _MATRIX_FORMULA.match(code.strip()):
                # CDNA's matrix formula names A, B, C and D, no S0..S2 or D0: the parse reads them as
                # sources 0-2 and the vector result, the old regexes found no operand
                continue
            assert rule != "vector result", (family, name)
            assert re.search(rf"\bSRC{i}\b", code) and not re.search(rf"\bS{i}\b", code), (rule, family, name)
            assert f"SRC{i}" in d.operand_types, (rule, family, name)


def test_valu_and_scalar_operands_follow_the_parse():
    """The signatures built on these facts: for each differing rule above, the operands of the
    instruction's format still come out as LLVM prints them (the corpus tests check the text);
    here, the instructions the parse handles specially keep their operands."""
    from dsl.signature import scalar_layout, valu_signature
    spec = isa.load("rdna3")
    by = {(d.name, d.format): d for d in spec.instructions}
    # v_movreld writes the VGPR its DST field numbers: it has a vdst though D0 is never a value
    assert [o.name for o in valu_signature(by["V_MOVRELD_B32", "VOP1"]).dsts] == ["vdst"]
    assert not valu_signature(by["V_MOVRELD_B32", "VOP1"]).vcc_in
    # v_addc_co_u32 reads VCC (carry in) and writes it (carry out), v_cndmask_b32 only reads it
    assert (valu_signature(by["V_ADD_CO_CI_U32", "VOP2"]).vcc_in, valu_signature(by["V_ADD_CO_CI_U32", "VOP2"]).vcc_out) == (True, True)
    assert (valu_signature(by["V_CNDMASK_B32", "VOP2"]).vcc_in, valu_signature(by["V_CNDMASK_B32", "VOP2"]).vcc_out) == (True, False)
    # v_fma_mix_f32 reads its sources as the array S[i]: three sources
    assert len(valu_signature(by["V_FMA_MIX_F32", "VOP3P"]).srcs) == 3
    # s_movrels_b64: SDST and SSRC0 of the moved register's width (SGPR[addr].b64)
    assert scalar_layout(by["S_MOVRELS_B64", "SOP1"]) == [("sdst", "SDST", 2), ("ssrc0", "SSRC0", 2)]


# ---------------------------------------------------------------- dsl/signature.matrix_regs

_OLD_WMMA_INPUT_BITS = {"F16": 16, "BF16": 16, "IU8": 8, "IU4": 4}   # by the name's last part


@pytest.mark.parametrize("wave", [32, 64])
def test_matrix_widths_from_the_pseudocode_agree_with_the_old_name_table(wave):
    """RDNA3/3.5's WMMA A and B registers: the element width was read from the name's suffix
    (_IU4 -> 4 bits); now from the pseudocode's typed shape (S0.iu4(16x16)). Same answer for
    every WMMA; an instruction without (MxN) operands now gets no matrix widths (the old rule
    gave every RDNA3 instruction WMMA widths, which no caller read)."""
    from dsl.signature import matrix_regs
    from dsl.syntax import WMMA_REPLICATED
    checked = 0
    for family, d in _instructions():
        new = matrix_regs(d, wave, family)
        if not effects(d.pcode).matrix:
            assert new == {}, (family, d.name)
            continue
        checked += 1
        if family in WMMA_REPLICATED:
            bits = _OLD_WMMA_INPUT_BITS.get(d.name.split("_")[-1], 16)
            old = {"S0": 16 * bits // 32, "S1": 16 * bits // 32, "S2": 256 // wave, "D0": 256 // wave}
            assert new == old, (family, d.name, old, new)
        assert set(new) >= {"D0", "S0", "S1"}, (family, d.name)
    assert checked == 6 + 6 + 22     # RDNA3, RDNA3.5: 6 WMMA each; RDNA4: 22 WMMA and SWMMAC


def test_matrix_instructions_from_the_pseudocode_are_the_ones_the_names_said():
    """The printer and encoder took an instruction's operands as matrices when its name began
    V_WMMA / V_SWMMAC; now when its code has (MxN) operands (isa.effects' matrix). The same 34
    instructions of the five families (CDNA's MFMA go through tables["mfma"] instead)."""
    old = {(f, d.name) for f, d in _instructions() if d.name.startswith(("V_WMMA", "V_SWMMAC"))}
    new = {(f, d.name) for f, d in _instructions() if effects(d.pcode).matrix}
    assert old == new and len(old) == 34


def test_two_results_from_the_parse_agree_with_the_old_regular_expression():
    """The timing model's v_swap class (the source is written too): old, a line starting
    `S0.T =`; new, S0 among isa.effects' writes. Same for every VALU instruction."""
    from emu.timing.classify import _pseudo_names
    rows = 0
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.valu or not d.pcode:
            continue
        rows += 1
        old = bool(re.search(r"^\s*S0\.\w+\s*=", d.pcode, re.M))
        assert old == ("S0" in _pseudo_names(d.pcode)[1]), (family, d.name)
    assert rows > 3000


# ---------------------------------------------------------------- isa.control: waits, ends, hints

def _simm16_values():
    import random
    rng = random.Random(17)
    return sorted({0, 1, 2, 7, 0x3F, 0x40, 0x7F, 0xFF, 0x3F3F, 0x3F00, 0x003F, 0xFFFF, 0xC000, 0xCF7F}
                  | {rng.randrange(0x10000) for _ in range(200)})


def _old_split_wait_counts(d, simm16):
    if d.name in ("S_WAITCNT", "S_WAIT_IDLE"):
        return {c: 0 for c in ("LOAD", "SAMPLE", "BVH", "DS", "KM", "EXP", "STORE")}
    fields = re.findall(r"\b([A-Z]+)CNT is less than or equal to SIMM16\[(\d+):(\d+)\]", d.description or "")
    if not d.name.startswith("S_WAIT_") or not fields:
        return None
    return {c: (simm16 >> int(lo)) & ((1 << (int(hi) - int(lo) + 1)) - 1) for c, hi, lo in fields}


def _old_wait_counts(d, word, spec):
    """dsl/inflight.wait_counts as it was: by instruction name."""
    from dsl.inflight import split_counters
    if not d.name.startswith("S_WAIT"):
        return None
    simm16 = word & 0xFFFF
    if split_counters(spec):
        return _old_split_wait_counts(d, simm16) if d.format == "SOPP" else None
    if d.name == "S_WAITCNT":
        value, width = {}, {}
        for field, hi, lo in spec.tables["waitcnt"]:
            name, bits = field.removesuffix("_HI"), hi - lo + 1
            value[name] = value.get(name, 0) | ((simm16 >> lo) & ((1 << bits) - 1)) << width.get(name, 0)
            width[name] = width.get(name, 0) + bits
        return {name: n for name, n in value.items() if n < (1 << width[name]) - 1}
    if not d.name.startswith("S_WAITCNT") or d.name in ("S_WAITCNT_VSCNT", "S_WAITCNT_DEPCTR"):
        return None
    if spec.formats[d.format].get(word, "SDST") != spec.traits.null:
        return {}
    return {{"S_WAITCNT_VMCNT": "VM", "S_WAITCNT_LGKMCNT": "LGKM", "S_WAITCNT_EXPCNT": "EXP"}[d.name]: simm16}


def _word(spec, d, simm16, sdst):
    word = simm16
    if d.format == "SOPK":
        _, hi, lo = next(f for f in spec.formats["SOPK"].fields if f[0] == "SDST")
        word |= sdst << lo
    return word


def test_allocator_wait_counts_from_the_manual_agree_with_the_old_name_rules():
    """dsl/inflight.wait_counts: counters and counts an instruction waits for, old (names) vs new
    (isa.control), for every instruction of the five families (the waits over 214 SIMM16 values; SOPK waits
    with SDST null and with an SGPR). They differ only where the manual says more than the names:
    - RDNA3/RDNA3.5 S_WAIT_IDLE ("Wait for all activity ... all dependency and memory counters at
      zero") waits for every counter; the names knew it only on RDNA4 (before: not a wait);
    - RDNA3/RDNA3.5 SOPK waits compare SIMM16[5:0] (S_WAITCNT_EXPCNT: [2:0]), as their code says
      (`vmcnt <= S0.u[5:0] + S1.u[5:0]`); the old rule took all 16 bits as the count."""
    from types import SimpleNamespace
    from dsl.inflight import wait_counts
    rows, differ = 0, {}
    from isa.control import control
    for family, d in _instructions():
        spec = isa.load(family)
        # every instruction once; those either rule calls a wait over all the SIMM16 values
        sweep = d.name.startswith("S_WAIT") or control(d, spec.tables).is_wait
        for simm16 in _simm16_values() if sweep else (0,):
            for sdst in (tuple(c for c in (spec.traits.null, 5) if c is not None) if d.format == "SOPK" else (0,)):
                word = _word(spec, d, simm16, sdst)
                inst = SimpleNamespace(record=SimpleNamespace(definition=d), data=word.to_bytes(4, "little"))
                old, new = _old_wait_counts(d, word, spec), wait_counts(inst, spec)
                rows += 1
                if old != new:
                    differ.setdefault((family, d.name), []).append((simm16, sdst, old, new))
    assert rows > 15000
    for (family, name), cases in differ.items():
        if name == "S_WAIT_IDLE":
            assert family in ("rdna3", "rdna3.5") and all(o is None and n == {"VM": 0, "LGKM": 0, "EXP": 0}
                                                          for _, _, o, n in cases)
            continue
        assert name in ("S_WAITCNT_VMCNT", "S_WAITCNT_LGKMCNT", "S_WAITCNT_EXPCNT"), (family, name, cases[:3])
        bits = 3 if name == "S_WAITCNT_EXPCNT" else 6
        for simm16, sdst, old, new in cases:
            assert simm16 >= 1 << bits and old == {k: simm16 for k in new} \
                and new == {k: simm16 & ((1 << bits) - 1) for k in new}, (family, name, simm16)
    assert {n for _, n in differ} == {"S_WAIT_IDLE", "S_WAITCNT_VMCNT", "S_WAITCNT_LGKMCNT", "S_WAITCNT_EXPCNT"}


def _old_timing_waits(d, simm, spec):
    """emu/timing/classify.Classifier._waits as it was: by instruction name."""
    rdna4 = {"S_WAIT_LOADCNT": "vm", "S_WAIT_STORECNT": "vs", "S_WAIT_DSCNT": "lgkm", "S_WAIT_KMCNT": "lgkm",
             "S_WAIT_EXPCNT": "exp"}
    paired = {"S_WAIT_LOADCNT_DSCNT": "vm", "S_WAIT_STORECNT_DSCNT": "vs"}
    if d.name == "S_WAITCNT":
        waitcnt = {name: (hi, lo) for name, hi, lo in spec.tables["waitcnt"]}
        out = {}
        for field, key in (("VM", "vm"), ("LGKM", "lgkm"), ("EXP", "exp")):
            hi, lo = waitcnt[field]
            value, top = (simm >> lo) & ((1 << (hi - lo + 1)) - 1), (1 << (hi - lo + 1)) - 1
            if value != top:
                out[key] = value
        return out
    if d.name in paired:
        return {paired[d.name]: (simm >> 8) & 0x3F, "lgkm": simm & 0x3F}
    key = {"S_WAITCNT_VSCNT": "vs", "S_WAITCNT_VMCNT": "vm", "S_WAITCNT_LGKMCNT": "lgkm",
           "S_WAITCNT_EXPCNT": "exp", **rdna4}.get(d.name)
    if key is None:
        return {"vm": 0, "lgkm": 0, "vs": 0} if d.name == "S_WAIT_IDLE" else {}
    return {key: simm & 0x3F}


def test_timing_wait_thresholds_from_the_manual_agree_with_the_old_name_rules():
    """The timing model's wait thresholds, for every instruction the emulator calls a wait
    (its control table), old (names) vs new (isa.control), over 214 SIMM16 values. Differences:
    - RDNA4's S_WAITCNT is "Equivalent to S_WAIT_IDLE" (manual): it waits for everything; the old
      rule read RDNA3's s_waitcnt table there, which RDNA4 does not have (a KeyError);
    - CDNA's S_WAITCNT: VM is SIMM16[3:0] with VM_HI [15:14] above it (the table's split field);
      the old rule read VM's low four bits only;
    - the counts narrower than six bits are compared as wide as the manual says, not as [5:0]:
      RDNA3's S_WAITCNT_EXPCNT (its code: `expcnt <= S0.u[2:0] + S1.u[2:0]`), RDNA4's
      S_WAIT_EXPCNT ("EXPCNT is less than or equal to SIMM16[2:0]") and S_WAIT_KMCNT (SIMM16[4:0])."""
    from emu.table import load_semantics
    from emu.timing.classify import Classifier
    rows, differ = 0, {}
    for family in FAMILIES:
        spec, table = isa.load(family), load_semantics(family)
        classifier = Classifier.__new__(Classifier)
        classifier.spec = spec
        for d in spec.instructions:
            sem = table.get(d)
            if getattr(sem, "control", None) != "wait":
                continue
            flow = __import__("isa.control", fromlist=["control"]).control(d, spec.tables)
            for simm in _simm16_values():
                rows += 1
                try:
                    old = _old_timing_waits(d, simm, spec)
                except KeyError:
                    old = "KeyError"
                new = classifier._waits(flow, {"SIMM16": simm})
                if old != new:
                    differ.setdefault((family, d.name), []).append((simm, old, new))
    assert rows > 5000
    for (family, name), cases in differ.items():
        if (family, name) == ("rdna4", "S_WAITCNT"):
            assert all(o == "KeyError" and n == {"vm": 0, "lgkm": 0, "vs": 0} for _, o, n in cases)
        elif name == "S_WAITCNT":
            assert family in ("cdna3", "cdna4")
            for simm, old, new in cases:     # only vm differs: VM_HI's bits above VM's four
                vm = (simm & 0xF) | ((simm >> 14) & 3) << 4
                assert {k: v for k, v in old.items() if k != "vm"} == {k: v for k, v in new.items() if k != "vm"}
                assert new.get("vm") == (vm if vm != 0x3F else None) or ("vm" not in new and vm == 0x3F)
        else:       # one counter whose field is narrower than six bits
            d = next(x for x in isa.load(family).instructions if x.name == name)
            (counter, hi, lo), = __import__("isa.control", fromlist=["control"]).control(d).waits
            assert hi - lo + 1 < 6 and lo == 0, (family, name)
            assert all(o == {k: simm & 0x3F for k in n} and n == {k: simm & ((1 << (hi + 1)) - 1) for k in n}
                       for simm, o, n in cases), (family, name)
    print("timing wait rows:", rows, "differing instructions:", sorted(differ))


def test_flow_facts_agree_with_the_old_names():
    """ends_wave (old: the name starts with S_ENDPGM), message_reply (old: S_SENDMSG_RTN), the
    timing model's s_nop / s_delay_alu /
    s_clause, the barrier the frontend flushes stores before, and the waits that clear the
    frontend's pending loads (old: the name starts with S_WAITCNT), over every instruction.
    Differences: the waits the frontend now also counts (S_WAIT_IDLE: all counters; RDNA4's
    S_WAIT_* and S_WAITCNT) and the one it no longer counts (S_WAITCNT_DEPCTR, which waits on
    the ALU dependency counters, not on memory: its manual entry is empty on RDNA3/3.5 and LLVM
    encodes its fields, not a memory count); RDNA4's S_BARRIER_WAIT ("Wait for a barrier to
    complete"), the second half of its split barrier."""
    from isa.control import control
    rows = 0
    for family, d in _instructions():
        c = control(d, isa.load(family).tables)
        rows += 1
        assert c.ends_wave == d.name.startswith("S_ENDPGM"), (family, d.name)
        assert (c.nop_bits is not None, c.delay, c.clause) == \
            (d.name == "S_NOP", d.name == "S_DELAY_ALU", d.name == "S_CLAUSE"), (family, d.name)
        assert c.barrier == (d.name == "S_BARRIER" or (family, d.name) == ("rdna4", "S_BARRIER_WAIT")), (family, d.name)
        assert c.message_reply == d.name.startswith("S_SENDMSG_RTN"), (family, d.name)
        old_wait = d.name.startswith("S_WAITCNT")
        if c.is_wait != old_wait:
            assert d.name == "S_WAIT_IDLE" or d.name == "S_WAITCNT_DEPCTR" or \
                family == "rdna4" and d.name.startswith("S_WAIT_"), (family, d.name)
    assert rows > 5000


def test_vopd_accumulating_halves_from_the_manual_agree_with_the_old_names():
    """The timing model's VOPD halves that read their destination: old "FMAC" / "DOT2ACC" in the
    name; new: the base instruction's code reads D0 (isa.effects) or the half accumulates
    (isa.facts.accumulates: v_dual_dot2acc_f32_bf16 has no VOP2 base on RDNA3/3.5, and its VOPD
    entry says "The initial value in D is used as S2")."""
    from dsl.signature import vopd_base
    from emu.timing.classify import _pseudo_names
    from isa.facts import accumulates
    rows = 0
    for family in ("rdna3", "rdna3.5", "rdna4"):
        spec = isa.load(family)
        for d in spec.instructions:
            if d.format != "VOPD":
                continue
            rows += 1
            reads, _ = _pseudo_names(vopd_base(spec, d).pcode)
            old = "D0" in reads or "FMAC" in d.name or "DOT2ACC" in d.name
            assert old == ("D0" in reads or accumulates(d)), (family, d.name)
    assert rows > 60


def test_sopk_result_width_from_the_operand_type_agrees_with_the_old_name_suffix():
    """The timing model's SOPK destination (s_movk_i32 ... s_call_b64): its width was the name's
    _B64/_I64 suffix, now the pseudocode's D0 type (D0.i64). Same for every SOPK instruction that
    reads or writes D0 on the five families."""
    rows = 0
    for family, d in _instructions():
        e = effects(d.pcode)
        if d.format != "SOPK" or "D0" not in e.reads | e.writes:
            continue
        rows += 1
        assert (2 if d.name.endswith("64") else 1) == (2 if (d.operand_types.get("D0") or "").endswith("64") else 1)
    assert rows == 30


# ---------------------------------------------------------------- isa.memory_access: data widths

_OLD_SIZE = re.compile(r"_(?:B|U|I|F)(8|16|32|64|96|128|256|512)(?:_|$)")


def test_memory_data_widths_from_the_pseudocode_agree_with_the_old_name_rules():
    """FLAT/GLOBAL/SCRATCH/buffer data and result registers: old, the name's data type
    (dsl.signature.data_dwords: _B96, DWORDX3, _X2, FORMAT_XYZ, _LOAD_BLOCK) doubled for
    "CMPSWAP"; new, isa.memory_access from the code (DATA[63 : 32] of a 32-bit cmpswap: 2;
    VDATA[95 : 64]: 3; RDNA4's *_BLOCK loop over VDATA + i: 32). Every instruction whose code
    names the register agrees; the rest (no code, or CDNA's PK_ADD atomics, whose code reads
    DATA only through a conversion) keep the name rule."""
    from isa.memory_access import memory_access
    from tests.old_name_rules import data_dwords
    agree = {"data": 0, "result": 0}
    unsaid = {"data": 0, "result": 0}
    for family, d in _instructions():
        roles = isa.traits(family).roles
        if d.format not in roles.flat | roles.buffer:
            continue
        a, n = memory_access(d), data_dwords(d.name)
        pairs = []
        if a.direction in ("store", "atomic"):
            pairs.append(("data", n * (2 if "CMPSWAP" in d.name else 1), a.data_dwords))
        if a.direction in ("load", "atomic"):
            pairs.append(("result", n, a.result_dwords))
        for what, old, new in pairs:
            if new is None:
                unsaid[what] += 1
                assert "CMPSWAP" not in d.name, (family, d.name)     # the name rule's doubling is no longer needed
                continue
            assert old == new, (family, d.name, what, old, new)
            agree[what] += 1
    print("agree:", agree, "left to the name:", unsaid)
    assert agree["data"] >= 700 and agree["result"] >= 800
    assert unsaid["data"] <= 14 and unsaid["result"] <= 54


def test_rdna4_cache_policy_classes_from_the_direction_agree_with_the_old_names():
    """RDNA4's TH codes are named apart for atomics, stores and loads (TH_ATOMIC_RETURN,
    TH_STORE_NT, TH_LOAD_NT...), and an atomic returns data only with TH's return bit. Old: "_ATOMIC"
    / "_STORE" in the name; new: isa.memory_access's direction (from the code; the manual's
    naming convention only where an image entry has none). Same class for every instruction of a
    format with a TH field (352: SMEM, VBUFFER, VFLAT, VGLOBAL, VSCRATCH, VIMAGE, VSAMPLE)."""
    from isa.memory_access import memory_access
    spec = isa.load("rdna4")
    rows = 0
    for d in spec.instructions:
        if "TH" not in {f[0] for f in spec.formats[d.format].fields}:
            continue
        rows += 1
        old = "atomic" if "_ATOMIC" in d.name else "store" if "_STORE" in d.name else "load"
        direction = memory_access(d).direction
        assert old == (direction if direction in ("atomic", "store") else "load"), d.name
    assert rows == 352


# ---------------------------------------------------------------- dsl/*_gfx9: DS / FLAT operands

_OLD_GFX9_DS_RTN = ("DS_READ", "DS_SWIZZLE", "DS_PERMUTE", "DS_BPERMUTE", "DS_APPEND", "DS_CONSUME",
                    "DS_ORDERED_COUNT")
_OLD_GFX9_DS_NO_DATA = ("DS_READ", "DS_SWIZZLE", "DS_APPEND", "DS_CONSUME", "DS_NOP", "DS_GWS", "DS_ORDERED")
_OLD_GFX9_DS_NO_ADDR = ("DS_APPEND", "DS_CONSUME", "DS_NOP", "DS_GWS_SEMA", "DS_GWS_INIT", "DS_GWS_BARRIER")


def _old_gfx9_ds(name: str, n: int) -> list[tuple[str, int]]:
    """The GFX9 printer's, assembler's and operand namer's own copy of the DS rule, as it was."""
    two = any(t in name for t in ("READ2", "WRITE2", "WRXCHG2"))
    out = []
    if "_RTN" in name or name.startswith(_OLD_GFX9_DS_RTN):
        out.append(("vdst", n * 2 if two else n))
    if name in ("DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER"):
        out.append(("data0", 1))
    if not name.startswith(_OLD_GFX9_DS_NO_ADDR) and "ADDTID" not in name:
        out.append(("addr", 1))
    if name == "DS_WRITE_ADDTID_B32" or not name.startswith(_OLD_GFX9_DS_NO_DATA) and "ADDTID" not in name:
        out.append(("data0", n))
        if any(t in name for t in ("MSKOR", "CMPST", "WRAP")) or two:
            out.append(("data1", n))
    return out


def _old_gfx9_flat(name: str, fmt: str, n: int, sc0: bool) -> list[tuple[str, int]]:
    out = []
    if ("_LOAD" in name and "_LOAD_LDS_" not in name) or ("_ATOMIC" in name and sc0):
        out.append(("vdst", n))
    out.append(("vaddr", 0))
    if "_STORE" in name or "_ATOMIC" in name:
        out.append(("vdata", n * 2 if "CMPSWAP" in name else n))
    if fmt in ("GLOBAL", "SCRATCH"):
        out.append(("saddr", 0))
    return out


def test_gfx9_ds_and_flat_operands_from_the_shared_layouts_agree_with_the_old_name_rules():
    """The GFX9 (CDNA3/4) printer, assembler and operand namer kept their own name rules for DS
    and FLAT operands; they now read dsl.signature's ds_layout / flat_layout (the two-address
    forms and data widths from isa.memory_access's parse). Same operands, in the same order and
    with the same widths, for every DS, FLAT, GLOBAL and SCRATCH instruction of both families
    (the address widths of FLAT depend on the encoding, not the layout, and are not compared)."""
    from dsl.signature import ds_layout, flat_layout
    from isa.memory_access import memory_access
    from tests.old_name_rules import data_dwords
    rows = {"DS": 0, "FLAT": 0}
    for family in ("cdna3", "cdna4"):
        for d in isa.load(family).instructions:
            n = data_dwords(d.name)
            if d.format == "DS":
                rows["DS"] += 1
                assert [(o, w) for o, _, w in ds_layout(d)] == _old_gfx9_ds(d.name, n), (family, d.name)
                assert memory_access(d).two_addresses == any(t in d.name for t in ("READ2", "WRITE2", "WRXCHG2"))
            elif d.format in ("FLAT", "GLOBAL", "SCRATCH"):
                rows["FLAT"] += 1
                for sc0 in (False, True):
                    new = [(o, w if o in ("vdst", "vdata") else 0) for o, _, w in flat_layout(d, sc0)]
                    assert new == _old_gfx9_flat(d.name, d.format, n, sc0), (family, d.name, sc0)
    print("instructions agreeing:", rows)
    assert rows["DS"] >= 250 and rows["FLAT"] >= 200


# ---------------------------------------------------------------- emu/machine_prepare: memory and barrier facts

def test_machine_prepare_memory_facts_from_the_manual_agree_with_the_old_names():
    """emu/machine_prepare chose by name: S_BUFFER_ (SBASE is a buffer resource), _ADDTID_B32 (no
    VGPR address: scalar base + lane ID * 4), TBUFFER_ / _FORMAT_ (a format conversion) and
    S_BARRIER_WAIT (SIMM16 names the barrier). Now isa.memory_access and isa.control read the
    manual's code and descriptions. Same answer over every instruction of the five families (RDNA4's
    S_BUFFER_PREFETCH_DATA names no buffer, but "a base address provided in a resource descriptor")."""
    from isa.control import control
    from isa.memory_access import buffer_resource, converts_format, lane_address
    counts = {"smem": 0, "buffer": 0, "flat": 0, "barrier": 0}
    for family, d in _instructions():
        roles = isa.traits(family).roles
        if d.format == "SMEM":
            counts["smem"] += 1
            assert buffer_resource(d) == d.name.startswith("S_BUFFER_"), (family, d.name)
        if d.format in roles.buffer:
            counts["buffer"] += 1
            old = d.name.startswith("TBUFFER_") or "_FORMAT_" in d.name
            assert converts_format(d) == old, (family, d.name)
        if d.format in roles.flat:
            counts["flat"] += 1
            assert lane_address(d) == d.name.endswith("_ADDTID_B32"), (family, d.name)
        if d.format in ("SOPP", "SOP1"):
            counts["barrier"] += 1
            assert control(d).barrier_in_simm16 == (d.name == "S_BARRIER_WAIT"), (family, d.name)
    print("instructions agreeing:", counts)
    assert counts["smem"] >= 200 and counts["buffer"] >= 400 and counts["flat"] >= 650


def test_bvh_counter_from_the_description_agrees_with_the_old_name():
    """dsl/inflight put memory instructions with "BVH" in the name on RDNA4's BVHcnt; now
    isa.memory_access.ray_query reads the manual's description ("intersection of rays",
    "results of intersection testing"). Same set over every memory instruction of the five
    families: the ray queries of RDNA3/3.5 (2 each) and RDNA4 (4)."""
    from isa.memory_access import ray_query
    found = {}
    for family, d in _instructions():
        roles = isa.traits(family).roles
        if d.format in roles.flat | roles.buffer | roles.image:
            assert ray_query(d) == ("BVH" in d.name), (family, d.name)
            found[family] = found.get(family, 0) + ray_query(d)
    assert found == {"rdna3": 2, "rdna3.5": 2, "rdna4": 4, "cdna3": 0, "cdna4": 0}


def test_gfx9_buffer_and_scalardata_registers_from_the_parse_agree_with_the_old_cmpswap_rule():
    """The GFX9 printer doubled the name's data type for CMPSWAP on MUBUF/MTBUF and SMEM; it now
    reads isa.memory_access (data a store / atomic sends, result a load returns; one data value's
    width, value_dwords, where the code does not say). Same count for every such CDNA3/4
    instruction, bar the two without code or suffix: s_memtime / s_memrealtime return a "64-bit
    timestamp" (RTC), 2 SGPRs as LLVM writes them (s_memtime s[0:1]), where the name rule said 1;
    and s_dcache_discard_x2, which moves no data (scalar_data 'none'; _X2 counts cache lines)."""
    from dsl.signature import data_registers
    from tests.old_name_rules import data_dwords
    rows, differ = 0, set()
    for family in ("cdna3", "cdna4"):
        roles = isa.traits(family).roles
        for d in isa.load(family).instructions:
            if d.format in roles.buffer | roles.smem:
                rows += 1
                old = data_dwords(d.name) * (2 if "CMPSWAP" in d.name else 1)
                if data_registers(d) != old:
                    differ.add((family, d.name, old, data_registers(d)))
    assert rows >= 300, rows
    assert differ == {(f, n, 1, 2) for f in ("cdna3", "cdna4") for n in ("S_MEMTIME", "S_MEMREALTIME")} | \
        {(f, "S_DCACHE_DISCARD_X2", 2, 1) for f in ("cdna3", "cdna4")}


def test_gfx9_scalar_loads_from_the_parse_agree_with_the_old_load_names():
    """dsl/operands_gfx9 named an SMEM instruction's SDATA a result when "_LOAD" was in the name;
    now isa.memory_access's direction (the code reads MEM). Same answer for every CDNA3/4 SMEM
    and buffer instruction."""
    from isa.memory_access import memory_access
    rows = 0
    for family in ("cdna3", "cdna4"):
        roles = isa.traits(family).roles
        for d in isa.load(family).instructions:
            if d.format in roles.buffer | roles.smem:
                rows += 1
                assert (memory_access(d).direction == "load") == ("_LOAD" in d.name), (family, d.name)
    assert rows >= 300, rows

"""Facts the encoders, printers, decoder and emulator used to find from substrings of instruction
names or a regular expression over pseudocode, now read from the manual's data: the encoding
(format), the description, the one pseudocode parse (isa.effects), the target's MFMA table, or an
erratum with page and evidence where the manual cannot say it (isa.errata).

Each test keeps the old rule as it was and compares it with the new fact over every instruction of
RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4, asserting every difference with its reason."""
import re

import isa
from isa.effects import effects
from isa.memory_access import lane_address, scalar_data, typed_buffer

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


# ---------------------------------------------------------------- accumulation into the destination

def _old_reads_dst(pcode: str) -> bool:        # dsl/signature.valu_signature, as it was
    return bool(re.search(r"[=(,+*]\s*[^=]*\bD0\b", pcode.split("\n")[-1])) or "D0.f +=" in pcode


# Where the parse and the old regex (which read the last line only) differ, by reason.
_PARSE_SEES_A_READ = {
    # D0's old value read on a line before the last: `tmp = D0.f32` ... `D0.f32 = tmp`
    "the accumulator is copied to tmp first (v_dot2c, v_dot2acc)": {
        "V_DOT2ACC_F32_F16", "V_DOT2C_F32_BF16", "V_DOT2C_F32_F16", "V_DOT2C_I32_I16", "V_DOT4C_I32_I8",
        "V_DOT8C_I32_I4", "V_DUAL_DOT2ACC_F32_BF16", "V_DUAL_DOT2ACC_F32_F16"},
    "fma(S0, S1, D0) in one branch of an if (v_fmac_dx9_zero: the last line is endif)": {"V_FMAC_DX9_ZERO_F32"},
    "the swap saves the destination first (tmp = D0.b32; v_swap, VDST's lanes in v_permlane*_swap)": {
        "V_SWAP_B16", "V_SWAP_B32", "V_PERMLANE16_SWAP_B32", "V_PERMLANE32_SWAP_B32"},
    "D0 = { tmp.f16, D0[15 : 0] }: the low half kept when OPSEL[3] writes the high one (CDNA's legacy f16)": {
        "V_DIV_FIXUP_LEGACY_F16", "V_FMA_LEGACY_F16", "V_MAC_F16", "V_MAD_LEGACY_F16", "V_MAD_LEGACY_I16",
        "V_MAD_LEGACY_U16"},
    "the quoted statement accumulates (eval \"D0 = S0 * S1 + D0\"; the last line restores EXEC)": {
        "V_SWMMAC_BF16_16X16X32_BF16", "V_SWMMAC_F16_16X16X32_F16", "V_SWMMAC_F32_16X16X32_BF16",
        "V_SWMMAC_F32_16X16X32_BF8_BF8", "V_SWMMAC_F32_16X16X32_BF8_FP8", "V_SWMMAC_F32_16X16X32_F16",
        "V_SWMMAC_F32_16X16X32_FP8_BF8", "V_SWMMAC_F32_16X16X32_FP8_FP8", "V_SWMMAC_I32_16X16X32_IU4",
        "V_SWMMAC_I32_16X16X32_IU8", "V_SWMMAC_I32_16X16X64_IU4"},
}
_SPARSE_FORMULA = re.compile(r"^D = A \(sparse \d+x\d+\) \* B \(\d+x\d+\) \+ D \(\d+x\d+\)$")
_PARSE_SEES_A_READ["CDNA's sparse matrix formula adds D itself (D = A (sparse MxK) * B (KxN) + D (MxN): "
                   "V_SMFMAC), which the old regex, looking for D0, did not see"] = {
    d.name for family, d in _instructions() if d.pcode and _SPARSE_FORMULA.match(d.pcode.strip())}
_PARSE_SEES_NO_READ = {
    "D0 is read only after a full write of it (D0.f = trunc(S0.f); if ... D0.f += 1.0)": {
        "V_CEIL_F32", "V_FLOOR_F32", "V_CVT_PK_U8_F32"},
    "D0 is a target of a concatenation ({ D1.u1, D0.u64 } = ...), not a value": {
        "V_MAD_U64_U32", "V_MAD_I64_I32", "V_MAD_CO_U64_U32", "V_MAD_CO_I64_I32"},
    "EXEC.u64[laneId] = D0.u64[laneId] = result assigns both (CDNA's v_cmpx_class)": {
        "V_CMPX_CLASS_F16", "V_CMPX_CLASS_F32", "V_CMPX_CLASS_F64"},
}


def test_accumulation_into_the_destination_from_the_parse_agrees_with_the_old_regex():
    """ValuSig.reads_dst (printer/decoder: VOP3 op_sel keeps a slot for D0; the allocator: the
    destination is read; VOPD: it reads through the SRC2 port) was a regex over the last line of
    the pseudocode; now "D0" in isa.effects' value_reads (D0's incoming value computed with)."""
    rows, differ = 0, {}
    for family, d in _instructions():
        roles = isa.traits(family).roles
        valu = d.format in roles.valu | roles.interp | roles.vopd or d.format.startswith("VOP3P")
        if not d.pcode or not valu:
            continue
        rows += 1
        old, new = _old_reads_dst(d.pcode), "D0" in effects(d.pcode).value_reads
        if old != new:
            differ.setdefault(new, set()).add(d.name)
    print("rows:", rows, "now read:", len(differ.get(True, ())), "now not read:", len(differ.get(False, ())))
    assert rows > 4000
    assert differ.get(True, set()) == set().union(*_PARSE_SEES_A_READ.values())
    assert differ.get(False, set()) == set().union(*_PARSE_SEES_NO_READ.values())
    # the reasons hold in the text itself
    for family, d in _instructions():
        if family.startswith("cdna") and d.name.startswith("V_CMPX_CLASS") and d.pcode:
            assert "= D0.u64[laneId] =" in d.pcode
        if d.name in {"V_DOT2C_F32_F16", "V_SWAP_B32"} and d.pcode:
            assert re.search(r"^tmp = D0\.", d.pcode, re.M)


def test_accumulators_keep_their_destination_read():
    """The instructions LLVM writes with a tied destination (v_fmac_*, v_fmac_f16, v_pk_fmac_f16,
    v_dot2c/v_dot2acc) read D0 by the parse, in every family that has them."""
    seen = set()
    for family, d in _instructions():
        if d.name.startswith(("V_FMAC_", "V_PK_FMAC_", "V_DOT2C_", "V_DOT2ACC_", "V_MAC_")) and d.pcode:
            assert "D0" in effects(d.pcode).value_reads, (family, d.name)
            seen.add(d.name)
    assert {"V_FMAC_F32", "V_FMAC_F16", "V_PK_FMAC_F16", "V_FMAC_F64", "V_DOT2C_F32_F16"} <= seen


# ---------------------------------------------------------------- names replaced by facts

def test_flat_segment_is_the_encoding():
    """flat_layout's segment (FLAT: 64-bit VGPR address; GLOBAL: 64-bit SGPR base; SCRATCH: one)
    came from the name's prefix; now from the format (RDNA4: VFLAT, VGLOBAL, VSCRATCH). Same answer
    for every instruction; the ADDTID forms (no VGPR address) are the ones the manual says address
    by lane ID (isa.memory_access.lane_address)."""
    from dsl.signature import flat_segment
    checked = 0
    for family, d in _instructions():
        old = next((p[:-1] for p in ("FLAT_", "GLOBAL_", "SCRATCH_") if d.name.startswith(p)), None)
        assert flat_segment(d) == old, (family, d.name, d.format)
        if old:
            checked += 1
            assert lane_address(d) == ("ADDTID" in d.name), (family, d.name)
    assert checked > 600


def test_scalar_data_roles_are_facts():
    """SMEM SDATA: s_atc_probe* take a number (an erratum: the manuals do not describe them), the
    CDNA s_dcache_discard* no data (their description: "Discard ... cache line"); every other
    SMEM instruction SGPRs. The same instructions the name rules picked."""
    roles = {}
    for family, d in _instructions():
        if d.format != "SMEM":
            continue
        old = "immediate" if d.name.startswith("S_ATC_PROBE") else \
            "none" if d.name.startswith("S_DCACHE_DISCARD") else "register"
        assert scalar_data(d) == old, (family, d.name)
        roles[old] = roles.get(old, 0) + 1
    assert roles["immediate"] == 10 and roles["none"] == 4


def test_typed_buffer_instructions_are_facts():
    """Buffer instructions that carry their own data format (format:): MTBUF, and RDNA4's
    VBUFFER forms whose description says the instruction specifies the format, bar the untyped
    stores whose description copies the typed ones' (isa.errata.FORMAT_FROM_DESCRIPTOR). The
    same instructions as the TBUFFER_ prefix."""
    from isa.errata import FORMAT_FROM_DESCRIPTOR
    typed = 0
    for family, d in _instructions():
        if d.format in ("MUBUF", "MTBUF", "VBUFFER"):
            assert typed_buffer(d) == d.name.startswith("TBUFFER_"), (family, d.name)
            typed += typed_buffer(d)
    assert typed == 5 * 16
    # the erratum's instructions do say what it claims, and only in RDNA4's VBUFFER
    rdna4 = {d.name: d for d in isa.load("rdna4").instructions if d.format == "VBUFFER"}
    for name, page in FORMAT_FROM_DESCRIPTOR["rdna4"].items():
        assert "The instruction specifies the data format" in rdna4[name].description
        assert rdna4[name].pcode_page == page
        load = rdna4[name.replace("STORE", "LOAD")]
        assert "The resource descriptor specifies the data format" in load.description


def test_message_in_the_source_field_is_the_manuals_word():
    """decode's literal rule: s_sendmsg_rtn's SSRC0 is the message, not an operand code (no
    literal dword), picked by name; now by the manual's description ("encoded in the instruction
    directly"). The same instructions."""
    from dsl.operand_records import source_is_immediate
    for family, d in _instructions():
        if d.format == "SOP1":
            assert source_is_immediate(d) == d.name.startswith("S_SENDMSG_RTN"), (family, d.name)


def test_mixed_precision_sources_come_from_the_parse():
    """v_fma_mix* / CDNA's v_mad_mix* (each source f32 or an f16 half, chosen by OPSEL_HI; NEG_HI
    is abs) were found by name in the encoder and both printers; now by the parse (sources read as
    the array S[i] under OPSEL_HI). The same 15 instructions."""
    old = {(f, d.name) for f, d in _instructions() if d.name.startswith(("V_FMA_MIX", "V_MAD_MIX"))}
    new = {(f, d.name) for f, d in _instructions() if effects(d.pcode).mixed_sources}
    assert old == new and len(old) == 15


def test_cdna2_mfma_spellings_come_from_the_mfma_table():
    """The gfx9 assembler read CDNA2's MFMA spellings (v_mfma_f32_32x32x8f16) by inserting an
    underscore into any unknown v_mfma_ mnemonic; now from a table of the target's MFMA
    instructions (tables["mfma"]). For every MFMA instruction's CDNA2 spelling both give the same
    instruction, and the old rule found nothing the table lacks among the gfx942/gfx950 corpora's
    mnemonics."""
    from dsl.asm_gfx9 import _cdna2_mfma_spellings, lookup
    from dsl.families import load_for_disassembly
    from isa.mnemonics import amd_name
    for arch in ("gfx942", "gfx950"):
        spec = load_for_disassembly(arch)
        table = _cdna2_mfma_spellings(spec)
        assert len(table) > 20
        for old_spelling, modern in table.items():
            old_rule = re.sub(r"(\d+x\d+x\d+)(?=[a-z])", r"\1_", old_spelling, count=1)
            assert old_rule == modern
            mn, defs = lookup(spec, old_spelling)
            assert mn == modern and defs == spec.lookup(amd_name(modern, spec.arch))
        # an unknown name stays unknown, as before
        assert lookup(spec, "v_mfma_f32_99x99x9f16")[1] == []


def test_hwreg_spellings_are_a_table_of_names():
    """LLVM's gfx9 hwreg names: the manual's name with HW_REG_, SQ_ added to the performance
    snapshot registers; formerly by a name-prefix rule, now by a table of the names LLVM spells
    otherwise. The same text for every register of CDNA3 and CDNA4."""
    from dsl import syntax_gfx9 as g9
    for family in ("cdna3", "cdna4"):
        for code, name, *_ in isa.load(family).tables["hwreg"]:
            old = ("HW_REG_SQ_" if name.startswith("PERF_SNAPSHOT") else "HW_REG_") + name
            assert g9.hwreg_text_name(name) == old, (family, name)


def test_two_address_lds_forms_are_the_parse_of_their_offsets():
    """The RDNA encoder, printer and decoder took OFFSET0/OFFSET1 (offset0:, offset1:) for names
    with 2ADDR; now for the instructions whose code addresses ADDR + OFFSET1 * size
    (isa.memory_access's two_addresses). The same instructions on RDNA3, RDNA3.5 and RDNA4; on
    CDNA (whose DS names have no 2ADDR and whose gfx9 encoder reads offset0/offset1 by its own
    layout) the parse also finds the read2/write2/wrxchg2 forms."""
    from isa.memory_access import memory_access
    checked = 0
    for family, d in _instructions():
        if d.format not in ("DS", "VDS"):
            continue
        new = memory_access(d).two_addresses
        if family.startswith("rdna"):
            assert new == ("2ADDR" in d.name), (family, d.name)
            checked += new
        else:
            assert new == bool(re.search(r"(READ|WRITE|WRXCHG)2", d.name)), (family, d.name)
    assert checked == 36      # 12 per RDNA family


def test_sopk_destination_width_is_its_operand_type():
    """SOPK's SDST width (s_call_b64's return address) came from the name's _B64; now from D0's
    type in the manual's operand types. The same for every SOPK instruction."""
    from dsl.signature import scalar_bits
    wide = 0
    for family, d in _instructions():
        if d.format == "SOPK":
            assert (scalar_bits(d, "D0") == 64) == d.name.endswith("_B64"), (family, d.name)
            wide += d.name.endswith("_B64")
    assert wide >= 5


def test_scalar_base_is_a_resource_by_the_manuals_word():
    """SMEM's SBASE (4 SGPRs of a buffer resource, else a 64-bit address; gfx9's unsigned buffer
    offsets) was chosen by "buffer" in the name; now by the manual's code and descriptions
    (isa.memory_access.buffer_resource) and, for the undescribed s_atc_probe_buffer, the erratum
    table UNDESCRIBED_SMEM. The same for every SMEM instruction."""
    from isa.errata import UNDESCRIBED_SMEM
    from isa.memory_access import buffer_resource, scalar_base_registers
    resources = 0
    for family, d in _instructions():
        if d.format == "SMEM":
            assert scalar_base_registers(d) == (4 if "BUFFER" in d.name else 2), (family, d.name)
            resources += scalar_base_registers(d) == 4
            if d.name not in UNDESCRIBED_SMEM:
                assert buffer_resource(d) == (scalar_base_registers(d) == 4)
    assert resources > 25


def test_buffer_data_registers_come_from_the_parse():
    """A buffer instruction's VDATA registers were the name's data size, doubled for "cmpswap";
    now what isa.memory_access reads from the code (a compare-and-swap sends value and compare),
    the name's data size only where the code does not say. The same count for every
    MUBUF/MTBUF/VBUFFER instruction."""
    from dsl.signature import data_registers
    from tests.old_name_rules import data_dwords
    checked = 0
    for family, d in _instructions():
        if d.format in ("MUBUF", "MTBUF", "VBUFFER"):
            assert data_registers(d) == data_dwords(d.name) * (2 if "CMPSWAP" in d.name else 1), (family, d.name)
            checked += "CMPSWAP" in d.name
    assert checked >= 10


def test_dsl_vopd_halves_are_the_vopd_instructions():
    """The DSL's functions that return a dual-issue half for vopd() were found by the prefix
    v_dual_; now they are the VOPD instructions' mnemonics. The same names on every RDNA family."""
    from dsl.kernel import VopdHalf, build_namespace
    from dsl.operands import Reg
    for arch in ("gfx1100", "gfx1151", "gfx1201"):
        ns = build_namespace(arch)
        halves = {n for n, f in ns.items() if n.startswith("v_dual_")}
        assert len(halves) >= 17
        for name in sorted(halves):
            fn = ns[name]
            assert isinstance(fn(Reg("v", 0), Reg("v", 1), Reg("v", 2)), VopdHalf), name
        assert not isinstance(ns["v_add_f32"](Reg("v", 0), Reg("v", 1), Reg("v", 2)), VopdHalf)


def test_literal_dword_is_the_pseudocodes_simm32():
    """The decoder's always-a-literal rule (SOP2: "SIMM32" as a substring of the pseudocode; SOPK:
    the name S_SETREG_IMM32_B32) and the emulator's s_setreg source ("IMM32" in the name) now
    read isa.effects' literal (the parse reads SIMM32). The same instructions in every family."""
    from dsl.decode import _always_literal
    from emu.handwritten.hwreg import source
    seen = 0
    for family, d in _instructions():
        spec = isa.load(family)
        if d.format in ("SOP2", "SOPK"):
            old = "SIMM32" in (d.pcode or "") if d.format == "SOP2" else d.name == "S_SETREG_IMM32_B32"
            assert _always_literal(spec, d.format, (d,)) == old == effects(d.pcode).literal, (family, d.name)
            seen += old
        if d.name.startswith("S_SETREG"):
            assert source(d.name, spec) == ("SIMM32" if "IMM32" in d.name else "S0"), (family, d.name)
    assert seen == 5 + 4          # s_setreg_imm32_b32 in five families, s_fmaak/s_fmamk in two


def test_64bit_shift_is_the_parse():
    """RDNA's encoder allows one scalar value to the 64-bit shifts (the manual's "64-bit shift
    instructions can use only one scalar value input"), found by LSHL/LSHR/ASHR in the name of an
    instruction with a 64-bit result and a << or >> in its code; now a 64-bit result whose code is
    a shift of a source (isa.effects' shift). The same instructions, bar CDNA's V_LSHL_ADD_U64,
    which adds to the shifted value (and is encoded by the gfx9 assembler, where every VALU
    instruction takes one scalar value)."""
    from dsl.signature import valu_signature
    differ, same = set(), 0
    for family, d in _instructions():
        roles = isa.traits(family).roles
        if not d.pcode or d.format not in roles.valu:
            continue
        sig = valu_signature(d)
        wide = bool(sig.dsts) and sig.dsts[0].bits == 64
        old = wide and ("<<" in d.pcode or ">>" in d.pcode) and any(w in d.name for w in ("LSHL", "LSHR", "ASHR"))
        new = wide and effects(d.pcode).shift
        if old != new:
            differ.add((family, d.name, new))
        same += old and new
    assert differ == {("cdna3", "V_LSHL_ADD_U64", False), ("cdna4", "V_LSHL_ADD_U64", False)}
    assert same == 3 + 3 + 4 + 3 + 3     # v_lshlrev/v_lshrrev/v_ashrrev_b64; RDNA4 also VOP2 v_lshlrev_b64
    assert "+ S2.u64" in isa.load("cdna3").lookup("V_LSHL_ADD_U64")[0].pcode


def test_packed_results_are_the_parse():
    """The gfx9 assembler refuses op_sel / op_sel_hi on a VOP3P instruction whose result is not
    packed (v_dot2_f32_f16), found by "_PK_" in the name; now by isa.effects' result_ranges (two
    or more constant bit ranges of the result written side by side: v_pk_fma_f32's tmp[63 : 32],
    v_pk_mov_b32's D0.u32[63 : 32]). The same answer for every VOP3P instruction with a result
    (bar the mixed-precision ones, which take op_sel either way) in all five families."""
    checked = packed = 0
    for family, d in _instructions():
        if not d.format.startswith("VOP3P") or not d.pcode:
            continue
        fx = effects(d.pcode)
        if fx.mixed_sources or not fx.writes & {"D0"}:
            continue
        assert (fx.result_ranges >= 2) == ("_PK_" in d.name), (family, d.name)
        checked += 1
        packed += "_PK_" in d.name
    assert checked > 150 and packed > 80


def test_lane_addressed_loads_take_the_dword_forms_semantics():
    """The emulator took GLOBAL_LOAD/STORE_ADDTID_B32's data semantics from a table naming
    GLOBAL_LOAD_B32 / GLOBAL_STORE_B32; now emu.table.dword_form finds, for a FLAT-family
    instruction the manual addresses by lane ID (isa.memory_access.lane_address), the one
    instruction of its format with the same direction, one dword of data and a 32-bit memory
    value (isa.memory_access's element_bits). The same pairs in every family (CDNA has none)."""
    from emu.table import dword_form
    old_table = {"GLOBAL_LOAD_ADDTID_B32": "GLOBAL_LOAD_B32", "GLOBAL_STORE_ADDTID_B32": "GLOBAL_STORE_B32"}
    pairs = 0
    for family, d in _instructions():
        spec = isa.load(family)
        plain = dword_form(spec, d)
        expected = old_table.get(d.name) if family.startswith("rdna") else None
        assert (plain.name if plain else None) == expected, (family, d.name)
        pairs += plain is not None
    assert pairs == 6


def test_scalar_prefetches_are_their_code():
    """RDNA4's SMEM prefetches (operands [sbase,] offset, soffset, length) were found by "prefetch"
    in the mnemonic and the PC-relative ones (no sbase) by its _pc_rel suffix, in the encoder,
    the decoder's Instr builder and the text's number styles (dsl.instr_text: the length in
    decimal); now isa.memory_access.prefetch: the code calls Prefetch*(addr,
    length), its address relative to PC or to SBASE. The same instructions in every family (only
    RDNA4 has them; s_set_inst_prefetch_distance is a SOPP mode change, not an SMEM prefetch)."""
    from isa.memory_access import prefetch
    seen = {}
    for family, d in _instructions():
        mn = d.name.lower()
        old = None if d.format != "SMEM" or "prefetch" not in mn else "pc" if mn.endswith("_pc_rel") else "base"
        assert prefetch(d) == old, (family, d.name)
        if old:
            seen[old] = seen.get(old, 0) + 1
    assert seen == {"base": 3, "pc": 2}


def test_scalar_prefetches_encode_as_llvm_does():
    """The switched encoder and decoder against llvm-mc-22's bytes for each prefetch form (with and
    without sbase), and our text of those bytes assembles back to them."""
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_encodings
    lines = ["s_prefetch_data s[2:3], 0x100, s5, 7", "s_prefetch_inst_pc_rel 0x40, s4, 3",
             "s_buffer_prefetch_data s[4:7], 0x80, null, 31", "s_prefetch_data_pc_rel 0x0, m0, 0",
             "s_prefetch_inst s[6:7], -0x20, null, 1"]
    for line, want in zip(lines, mc_encodings(lines, "gfx1201")):
        assert want is not None, line
        assert assemble(line, "gfx1201") == want, line
        text = disassemble(want, "gfx1201").strip()
        assert assemble(text, "gfx1201") == want, (line, text)


def _old_direction_by_name(name: str, image: bool) -> str | None:    # isa.memory_access, as it was
    if "_ATOMIC" in name:
        return "atomic"
    if "_STORE" in name:
        return "store"
    if "_LOAD" in name or image:
        return "load"
    return None


def test_memory_direction_without_code_is_the_descriptions_verb():
    """Where the manual gives a memory instruction no code touching MEM (images, RDNA3's
    GLOBAL_*_ADDTID_B32, CDNA's LDS-direct loads and BUFFER_STORE_FORMAT_D16_HI_X), isa.memory_access
    took the direction from _ATOMIC/_STORE/_LOAD in the name and D16 from _D16; now from the
    description's leading verb (images that neither load nor store return data) and "high/low 16
    bits of" a register. Over every such instruction of the five families the same, bar CDNA4's
    DS_READ_U8 (the CDNA4 conversion lost its code; CDNA names loads READ, which the name rule missed:
    now a load, as its description "Load 8 bits of unsigned data from a data share" says) and CDNA4's
    transposing DS_READ_B64/B96_TR_* (no code; "Read 64 bits of data per lane from data share")."""
    from isa.errata import NOT_CODE_MEMORY
    from isa.gen.memory_code import uses_memory
    from isa.memory_access import memory_access
    differ, checked = set(), 0
    for family, d in _instructions():
        roles = isa.traits(family).roles
        if d.format not in roles.image | roles.flat | roles.buffer | roles.lds | roles.smem:
            continue
        if d.pcode and (uses_memory(d.pcode) or d.name in NOT_CODE_MEMORY):    # code (or its words) touching MEM
            continue
        image = d.format in roles.image
        new = memory_access(d, image)
        checked += 1
        if (new.direction, new.d16) != (_old_direction_by_name(d.name, image), "_D16" in d.name):
            differ.add((family, d.name, new.direction))
    read_tr = {("cdna4", f"DS_READ_{w}_TR_{e}", "load") for w, e in (("B64", "B4"), ("B64", "B8"), ("B64", "B16"),
                                                                       ("B96", "B6"))}
    assert differ == {("cdna4", "DS_READ_U8", "load")} | read_tr
    assert checked > 300
    assert isa.load("cdna4").lookup("DS_READ_U8")[0].description.startswith("Load 8 bits")
    for _, name, _ in read_tr:       # "Read 64 bits of data per lane from data share. ... transpose"
        assert isa.load("cdna4").lookup(name)[0].description.startswith("Read ")


def test_image_facts_are_the_manuals_descriptions():
    """Image rules the decoder's Instr builder, the RDNA4 encoder and dsl.signature kept by name,
    now read from the descriptions (isa.memory_access): a sampler operand (names starting
    IMAGE_SAMPLE / IMAGE_GATHER / IMAGE_GET_LOD; now takes_sampler: returns data without loading,
    "No sampler", resource information or a ray test), four texels of one channel (GATHER4 in the
    name or IMAGE_MSAA_LOAD; now gathers_four), a ray query (BVH in the name; now ray_query) and its
    64-bit node pointer (BVH64; now the first address group of the layout its entry gives,
    image_address(d).ray: RDNA4's dual and BVH8 queries take a 64-bit BVH base there too). The same
    instructions in every family."""
    from isa.memory_access import gathers_four, image_address, ray_query, takes_sampler
    counts = {"sampler": 0, "four": 0, "ray": 0, "wide": 0}
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.image:
            continue
        sampler = d.name.startswith(("IMAGE_SAMPLE", "IMAGE_GATHER", "IMAGE_GET_LOD"))
        four = "GATHER4" in d.name or d.name == "IMAGE_MSAA_LOAD"
        assert (takes_sampler(d), gathers_four(d), ray_query(d)) == (sampler, four, "BVH" in d.name), (family, d.name)
        if ray_query(d):
            assert image_address(d).ray[0][0] == (1 if d.name == "IMAGE_BVH_INTERSECT_RAY" else 2), (family, d.name)
        counts["sampler"] += sampler
        counts["four"] += four
        counts["ray"] += "BVH" in d.name
        counts["wide"] += "BVH64" in d.name
    assert counts["sampler"] > 150 and counts["four"] > 40 and counts["ray"] == 8 and counts["wide"] == 3


# dsl.signature.ds_layout as it was: operands by name
_OLD_DS_NO_ADDR = {"DS_APPEND", "DS_CONSUME", "DS_LOAD_ADDTID_B32", "DS_STORE_ADDTID_B32", "DS_NOP",
                   "DS_GWS_SEMA_RELEASE_ALL", "DS_GWS_SEMA_V", "DS_GWS_SEMA_P", "DS_GWS_INIT", "DS_GWS_SEMA_BR",
                   "DS_GWS_BARRIER", "DS_READ_ADDTID_B32", "DS_WRITE_ADDTID_B32"}
_OLD_DS_LOADS = ("DS_LOAD", "DS_READ")


def _old_ds_layout(d):
    from tests.old_name_rules import data_dwords
    from isa.memory_access import memory_access
    name = d.name
    n = data_dwords(name)
    two = memory_access(d).two_addresses
    out = []
    if name in ("DS_ADD_GS_REG_RTN", "DS_SUB_GS_REG_RTN"):
        return [("vdst", "VDST", 2), ("data0", "DATA0", 1)]
    if name.startswith("DS_BVH_STACK"):
        pushed = re.search(r"_PUSH(\d+)_", name)
        return [("vdst", "VDST", n), ("addr", "ADDR", 1), ("data0", "DATA0", 1),
                ("data1", "DATA1", int(pushed.group(1)) if pushed else 4)]
    rtn = "_RTN" in name or name.startswith(_OLD_DS_LOADS + ("DS_PERMUTE", "DS_BPERMUTE")) or name in (
        "DS_SWIZZLE_B32", "DS_APPEND", "DS_CONSUME") or \
        "VGPR_DST is the VGPR the result is written to" in (d.description or "")
    if "CONDXCHG32" in name:
        n = 2
    if rtn:
        out.append(("vdst", "VDST", n * 2 if two else n))
    if name in ("DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER"):
        out.append(("data0", "ADDR", 1))
    if name not in _OLD_DS_NO_ADDR:
        out.append(("addr", "ADDR", 1))
    data = 0
    if not name.startswith(_OLD_DS_LOADS + ("DS_SWIZZLE", "DS_APPEND", "DS_CONSUME", "DS_NOP", "DS_GWS",
                                            "DS_ORDERED")):
        data = 2 if ("MSKOR" in name or "CMPST" in name or "WRAP" in name or two) else 1
    if name in ("DS_STORE_ADDTID_B32", "DS_WRITE_ADDTID_B32"):
        data = 1
    if data >= 1:
        out.append(("data0", "DATA0", n))
    if data == 2:
        out.append(("data1", "DATA1", n))
    return out


def test_lds_operands_are_the_names_their_code_uses():
    """dsl.signature.ds_layout chose a DS instruction's VDST, ADDR and DATA0/DATA1 by name (_RTN,
    loads, permute/swizzle/append; a table of instructions without an address; MSKOR, CMPST, WRAP
    for a second data operand; CONDXCHG32 and BVH_STACK's PUSHn for widths); now
    isa.memory_access.lds_operands: the names the code uses (RETURN_DATA/VDST, ADDR, DATA/DATA2 and
    their bit ranges), the manual's own RTN rule for atomics (their code is the same with and
    without return), the description where there is no code, and isa.errata.UNDESCRIBED_LDS where
    the code cannot say. The same layout for every DS instruction of the five families."""
    from dsl.signature import ds_layout
    checked = 0
    for family, d in _instructions():
        if d.format in ("DS", "VDS"):
            assert ds_layout(d) == _old_ds_layout(d), (family, d.name)
            checked += 1
    assert checked > 600


def test_undescribed_lds_entries_hold_their_pages_and_llvms_bytes():
    """Each UNDESCRIBED_LDS entry names instructions the manuals have, on the pages given, and its
    RDNA evidence is what llvm-mc-22 encodes for the quoted text; our assembler gives those bytes."""
    from dsl.asm import assemble
    from isa.errata import UNDESCRIBED_LDS
    from tests.llvm_tools import mc_encodings
    for name, (_, pages, evidence) in UNDESCRIBED_LDS.items():
        for family, page in pages.items():
            assert [d.page for d in isa.load(family).lookup(name)][:1] == [page], (name, family)
        for hexbytes, text, arch in re.findall(r"([0-9a-f]{16}) -> ([^(]+?) \((gfx1100|gfx1151)\)", evidence):
            want = bytes.fromhex(hexbytes)
            assert mc_encodings([text], arch) == [want], (name, text)
            assert assemble(text, arch) == want, (name, text)


def _old_image_address_words(d, coords: int, gradients: int, a16: bool) -> int:    # dsl.signature, as it was
    parts = d.name.split("_")[1:]
    extra = sum(p in ("C", "B", "O") for p in parts)
    comps = 0 if d.name == "IMAGE_GET_RESINFO" else coords
    comps += any(p in ("L", "CL", "MIP", "RESINFO") for p in parts)
    words = extra + (-(-comps // 2) if a16 else comps)
    if "D" in parts:
        words += -(-(gradients // 2) // 2) * 2 if "G16" in parts else gradients
    return words


def test_image_mip_level_is_the_description():
    """dsl.signature.image_address_words added a mip-level component for MIP or RESINFO in the name
    and took image_get_resinfo by name; now the address table group's (isa.memory_access.image_address:
    .mip_level, the group's rows add mipid; .resource_info, GET_RESINFO's "Any" row). The same address
    count for every image instruction, dim and A16 of RDNA3, RDNA3.5 and RDNA4 (CDNA has no image
    formats)."""
    from dsl.signature import image_address_words, image_dims
    from isa.memory_access import image_address
    mips = 0
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.image:
            continue
        mips += image_address(d).mip_level
        for coords, gradients in image_dims(d):
            for a16 in (False, True):
                assert image_address_words(d, coords, gradients, a16) == \
                    _old_image_address_words(d, coords, gradients, a16), (family, d.name)
    assert mips == 3 * 6        # load_mip(_pck(_sgn)), store_mip(_pck), get_resinfo in each RDNA family


def test_pseudocode_substrings_are_the_parse():
    """Substring tests over the pseudocode outside isa/ (dsl.encode's op_sel for "OPSEL" in the code,
    a register-number SSRC0 unless "SRC0.i32", s_setpc's register-only source for "PC = S0";
    dsl.valu_plan's byte select "OPSEL[3 : 2]" and "INST.ABS"; the decoder's "SIMM" prefilter) now
    read isa.effects (opsel_ranges, field_types, pc_sources, inst_modifiers, constant_at), which
    drops comments and reads tokens. The same answer for every instruction of the five families."""
    counts = dict.fromkeys(("opsel", "byte_sel", "abs", "pc", "signed_src0", "k"), 0)
    for family, d in _instructions():
        p, fx = d.pcode or "", effects(d.pcode)
        pairs = {"opsel": ("OPSEL" in p, bool(fx.opsel_ranges)),
                 "byte_sel": ("OPSEL[3 : 2]" in p, (3, 2) in fx.opsel_ranges),
                 "abs": ("INST.ABS" in p, "ABS" in fx.inst_modifiers),
                 "pc": ("PC = S0" in p, "S0" in fx.pc_sources),
                 "signed_src0": ("SRC0.i32" in p, ("SRC0", "i32") in fx.field_types)}
        if d.format in ("VOP2", "VOPD"):
            pairs["k"] = ("SIMM" in p, fx.constant_at is not None)
        for key, (old, new) in pairs.items():
            assert old == new, (key, family, d.name)
            counts[key] += old
    # signed_src0: RDNA4's barrier numbers (s_barrier_signal{,_isfirst}, s_get_barrier_state and the
    # errata's s_barrier_init/join)
    assert counts["pc"] == 10 and counts["signed_src0"] == 5 and counts["abs"] == 2 and counts["k"] > 20
    assert counts["opsel"] > 80 and counts["byte_sel"] == 18


def test_scalar_source_kind_is_its_operand_type():
    """dsl.encode took a SALU source as a float (float literals read as f32 bits) when the name's last
    part held an F (S_ADD_F32); now when the manual's operand type of S0/S1 is a float. The same for
    every SOP1/SOP2/SOPC source of the five families, bar names whose last part has an F that is no
    float type: RDNA4's S_BARRIER_SIGNAL_ISFIRST (its source a barrier id) and CDNA's
    S_CBRANCH_G_FORK (u64 masks)."""
    from dsl.operand_records import type_info
    from dsl.signature import scalar_layout
    differ, floats = set(), 0
    for family, d in _instructions():
        if d.format not in ("SOP1", "SOP2", "SOPC"):
            continue
        for name, field, _ in scalar_layout(d):
            if name in ("sdst", "msg", "k"):
                continue
            typed = d.operand_types.get("S0" if field == "SSRC0" else "S1")
            new = bool(typed) and type_info(typed)[1] == "f"
            if new != ("F" in d.name.split("_")[-1]):
                differ.add((family, d.name))
            floats += new
    assert differ == {("rdna4", "S_BARRIER_SIGNAL_ISFIRST"), ("cdna3", "S_CBRANCH_G_FORK"),
                      ("cdna4", "S_CBRANCH_G_FORK")}
    assert floats > 40


def test_attribute_loads_are_the_manuals_word():
    """The RDNA encoder and the decoder's Instr builder gave lds_param_load / ds_param_load their
    attrN.c operand by mnemonic; now isa.memory_access.attribute_load ("Transfer parameter data from
    LDS to VGPRs"). The same instructions in every family (CDNA has no LDS-direct format)."""
    from isa.memory_access import attribute_load
    seen = 0
    for family, d in _instructions():
        if d.format in ("LDSDIR", "VDSDIR"):
            assert attribute_load(d) == d.name.lower().endswith("_param_load"), (family, d.name)
            seen += attribute_load(d)
    assert seen == 3


def test_image_width_rules_are_facts():
    """dsl.signature.image_widths picked gathers ("GATHER4" in the name), atomics ("ATOMIC"), their
    data (two dwords for "CMPSWAP", else one) and the opcodes with no MSAA dims ("MIP" a part of the
    name) by name; now a sampling instruction that returns four texels (takes_sampler and
    gathers_four: image_msaa_load also returns four but takes no sampler; now the Gather address
    table group, image_address(d).gather), memory_access's atomic direction and the data dwords
    its pseudocode names (cmpswap's DATA[63 : 32]), and the group's mipid (image_address(d).mip_level).
    The same answer for every image instruction of the five families, but one: image_get_resinfo
    has a mip level with no MIP in its name, and its one address (the mip level) is the same for
    every dim, so its address forms are the same with or without the MSAA dims."""
    from dsl.signature import _image_address_forms, image_address_words, image_dims
    from isa.memory_access import gathers_four, image_address, memory_access, takes_sampler
    counts = {"gather": 0, "atomic": 0, "cmpswap": 0, "mip": 0}
    for family, d in _instructions():
        if d.format not in isa.traits(family).roles.image:
            continue
        access = memory_access(d, True)
        sampler = takes_sampler(d)
        assert (sampler and gathers_four(d)) == image_address(d).gather == ("GATHER4" in d.name), (family, d.name)
        assert (access.direction == "atomic") == ("ATOMIC" in d.name), (family, d.name)
        if access.direction == "atomic":
            assert access.data_dwords == (2 if "CMPSWAP" in d.name else 1), (family, d.name)
        old_mip = "MIP" in d.name.split("_")
        if image_address(d).mip_level != old_mip:
            assert d.name == "IMAGE_GET_RESINFO" and image_address(d).resource_info and not sampler, (family, d.name)
            words = {image_address_words(d, c, g, a16) for c, g in image_dims(d) for a16 in (False, True)}
            assert words == {1}
            assert _image_address_forms(d)[0] == {1}
        counts["gather"] += "GATHER4" in d.name
        counts["atomic"] += "ATOMIC" in d.name
        counts["cmpswap"] += "CMPSWAP" in d.name
        counts["mip"] += old_mip
    assert counts["gather"] > 40 and counts["atomic"] > 40 and counts["cmpswap"] == 3 and counts["mip"] == 15

"""The public isa API: loading, targets, formats, lookup and identification."""
import pytest

import isa
from isa import errata

ARCHS = ["rdna3", "rdna3.5"]
ALL_ARCHS = ARCHS + ["cdna3", "rdna4"]   # cdna3 and rdna4 from the manuals' Markdown conversions


@pytest.mark.parametrize("target,arch", [("rdna3", "rdna3"), ("gfx1100", "rdna3"), ("gfx1103", "rdna3"),
                                         ("GFX1151", "rdna3.5"), ("gfx1150", "rdna3.5"), ("rdna3.5", "rdna3.5"),
                                         ("gfx1100-w64", "rdna3"), ("gfx942", "cdna3"), ("cdna3", "cdna3"),
                                         ("gfx1201", "rdna4"), ("gfx1200", "rdna4"), ("rdna4", "rdna4"),
                                         ("gfx950", "cdna4"), ("cdna4", "cdna4")])
def test_load_by_family_or_target(target, arch):
    assert isa.load(target).arch == arch


@pytest.mark.parametrize("target", ["gfx9000", "cdna9"])
def test_known_but_not_generated_arch_has_clear_error(monkeypatch, target):
    """Every family named in isa/targets.py is generated now: a family named there without
    generated data (as a new one is before its manual is added) is an ISALoadError naming it."""
    import isa.targets as targets
    monkeypatch.setitem(targets.FAMILY_TARGETS, "cdna9", ("gfx9000",))
    monkeypatch.setitem(targets.TARGET_FAMILY, "gfx9000", "cdna9")
    with pytest.raises(isa.ISALoadError, match="no generated ISA definitions for 'cdna9'"):
        isa.load(target)


def test_a_component_refuses_a_family_it_does_not_implement(monkeypatch):
    """CDNA3 is generated; the DSL does not implement it, the emulator does, and refuses any
    family its FAMILIES leaves out."""
    from dsl import families as dsl_families
    from emu import families as emu_families
    assert isa.load("gfx942").arch == "cdna3"
    with pytest.raises(isa.ISALoadError, match="does not support cdna3 .*it supports rdna3, rdna3.5"):
        dsl_families.load("gfx942")
    assert dsl_families.load("gfx1151").arch == "rdna3.5"
    assert emu_families.load("gfx942").arch == "cdna3"
    monkeypatch.setattr(emu_families, "FAMILIES", ("rdna3", "rdna3.5"))
    with pytest.raises(isa.ISALoadError, match="emulator does not support cdna3 .*it supports rdna3, rdna3.5"):
        emu_families.load("gfx942")


def test_rdna4_is_disassembled_assembled_and_in_the_dsl_but_not_in_every_component():
    from dsl import assemble, disassemble, families as dsl_families
    assert dsl_families.load_for_disassembly("gfx1201").arch == "rdna4"
    assert dsl_families.load_for_dsl("gfx1201").arch == "rdna4"
    assert dsl_families.load_for_dsl("gfx942").arch == "cdna3"
    assert disassemble(bytes.fromhex("0bb9967e"), "gfx1201") == "v_ceil_f16_e32 v75, v11"   # LLVM 22's text
    assert assemble("v_ceil_f16_e32 v75, v11", "gfx1201") == bytes.fromhex("0bb9967e")    # LLVM 22's bytes
    with pytest.raises(isa.ISALoadError, match="assembler and DSL does not support rdna4 .*it supports rdna3, rdna3.5"):
        dsl_families.load("gfx1201")


def test_unknown_target_lists_known_ones():
    with pytest.raises(ValueError, match="unknown target 'gfx9999'.*rdna3"):
        isa.load("gfx9999")


@pytest.mark.parametrize("arch", ARCHS)
def test_every_format_required_by_the_issue_exists(arch):
    spec = isa.load(arch)
    required = ("SOP1 SOP2 SOPK SOPC SOPP SMEM VOP1 VOP2 VOPC VOP3 VOP3SD VOP3P VOPD DPP16 DPP8 VINTERP "
                "LDSDIR DS MUBUF MTBUF MIMG FLAT GLOBAL SCRATCH EXP").split()
    assert set(required) <= set(spec.formats)


def test_every_cdna3_format_exists():
    required = ("SOP1 SOP2 SOPK SOPC SOPP SMEM VOP1 VOP2 VOPC VOP3A VOP3B VOP3P VOP3P-MAI DPP SDWA SDWAB "
                "DS MUBUF MTBUF FLAT GLOBAL SCRATCH").split()
    assert set(required) <= set(isa.load("cdna3").formats)


def test_every_rdna4_format_exists():
    """RDNA4's manual renames the memory formats (VBUFFER for MUBUF/MTBUF, VIMAGE/VSAMPLE for MIMG)."""
    required = ("SOP1 SOP2 SOPK SOPC SOPP SMEM VOP1 VOP2 VOPC VOP3 VOP3SD VOP3P VOPD DPP16 DPP8 VINTERP "
                "VDSDIR VDS VBUFFER VIMAGE VSAMPLE VFLAT VGLOBAL VSCRATCH VEXPORT").split()
    assert set(required) <= set(isa.load("gfx1201").formats)


@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_fields_are_disjoint_and_inside_the_format(arch):
    for fmt in isa.load(arch).formats.values():
        used = 0
        for name, hi, lo in fmt.fields:
            assert hi >= lo, (fmt.name, name)
            mask = ((1 << (hi - lo + 1)) - 1) << lo
            assert used & mask == 0, f"{fmt.name}.{name} overlaps another field"
            used |= mask
            # the DPP and SDWA second dwords are numbered as bits 32-63 of the instruction
            assert hi < max(fmt.widths) or fmt.name in ("DPP16", "DPP8", "DPP", "SDWA", "SDWAB"), (fmt.name, name, hi)
        if fmt.encoding:
            value, mask = fmt.encoding
            assert value & ~mask == 0


@pytest.mark.parametrize("arch", ARCHS)
def test_fixed_encodings_identify_one_format(arch):
    """No two formats share fixed bits except VOP3/VOP3SD, which split the opcode space."""
    spec = isa.load(arch)
    seen = {}
    for fmt in spec.formats.values():
        if fmt.encoding:
            seen.setdefault(fmt.encoding, []).append(fmt.name)
    shared = [names for names in seen.values() if len(names) > 1]
    assert shared == [["VOP3", "VOP3SD"]]
    vop3 = {d.opcode for d in spec.instructions if d.format == "VOP3"}
    vop3sd = {d.opcode for d in spec.instructions if d.format == "VOP3SD"}
    assert vop3sd and not (vop3 & vop3sd)


def test_cdna3_formats_sharing_fixed_bits_split_the_opcodes():
    """VOP3A/VOP3B split the 64-bit VALU opcodes; VOP3P-MAI is the layout of the VOP3P table's
    matrix opcodes (tables['mfma']), not an opcode space of its own."""
    spec = isa.load("cdna3")
    seen = {}
    for fmt in spec.formats.values():
        if fmt.encoding:
            seen.setdefault(fmt.encoding, []).append(fmt.name)
    assert sorted(names for names in seen.values() if len(names) > 1) == [["VOP3A", "VOP3B"], ["VOP3P", "VOP3P-MAI"]]
    vop3a = {d.opcode for d in spec.instructions if d.format == "VOP3A"}
    vop3b = {d.opcode for d in spec.instructions if d.format == "VOP3B"}
    assert vop3b and not (vop3a & vop3b)
    vop3p = {d.name for d in spec.instructions if d.format == "VOP3P"}
    assert {row[0] for row in spec.tables["mfma"]} <= vop3p


@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_opcodes_unique_per_format(arch):
    keys = [(d.format, d.slot, d.opcode) for d in isa.load(arch).instructions]
    assert len(keys) == len(set(keys))


def test_lookup_accepts_llvm_suffixes_and_case():
    spec = isa.load("rdna3")
    both = spec.lookup("v_add_f32")
    assert {(d.format, d.opcode) for d in both} == {("VOP2", 3), ("VOP3", 259)}
    assert [(d.format, d.opcode) for d in spec.lookup("V_ADD_F32_e64")] == [("VOP3", 259)]
    assert [(d.format, d.opcode) for d in spec.lookup("v_add_f32_e32")] == [("VOP2", 3)]
    assert {d.slot for d in spec.lookup("v_dual_mov_b32")} == {"X", "Y"}
    assert [d.name for d in spec.lookup("exp")] == ["EXPORT"]
    assert spec.lookup("v_no_such_thing") == []


@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_promoted_vop3_opcodes_follow_the_stated_offsets(arch):
    """VOP3 copies of VOP1/VOP2/VOPC instructions sit at native opcode + the offset the
    Instructions chapter states (16.x.1 'VOPn using VOP3 encoding')."""
    spec = isa.load(arch)
    offsets = spec.report["promotion_offsets"]
    assert set(offsets) == {"VOP1", "VOP2", "VOPC"}
    promoted = [d for d in spec.instructions if d.promoted_from]
    assert len(promoted) > 250
    for d in promoted:
        native = [n for n in spec.lookup(d.name) if n.format == d.promoted_from]
        assert native and d.opcode == native[0].opcode + offsets[d.promoted_from], d


@pytest.mark.parametrize("arch", ALL_ARCHS)
def test_every_erratum_for_the_arch_was_applied(arch):
    spec = isa.load(arch)
    assert {e["id"] for e in spec.errata} == {e.id for e in errata.for_arch(arch)}
    for e in spec.errata:
        assert e["page"] > 0 and e["evidence"]


def test_identify_reports_short_and_unknown_input():
    spec = isa.load("rdna3")
    with pytest.raises(ValueError, match="at least 4 bytes"):
        spec.identify(b"\x00")
    with pytest.raises(ValueError, match="needs 8 bytes"):
        spec.identify(bytes.fromhex("000404f4"))        # SMEM is 64-bit


def test_operand_codes_are_classified():
    spec = isa.load("rdna3")
    codes = {c[0]: c for c in spec.operands["VOP3"]["SRC0"]}
    assert codes[0][2:4] == ("sgpr", 0)
    assert codes[106][2:4] == ("special", "VCC_LO")
    assert codes[124][2:4] == ("special", "NULL") and codes[125][2:4] == ("special", "M0")
    assert codes[129][2:4] == ("int", 1) and codes[129][1] == 192
    assert codes[193][2:4] == ("int", -1) and codes[193][1] == 208
    assert codes[240][2:4] == ("float", 0.5)
    assert codes[255][2] == "literal"
    assert codes[256][2:4] == ("vgpr", 0) and codes[256][1] == 511
    sopk = {c[0]: c for c in spec.operands["SOPK"]["SDST"]}
    assert sopk[124][3] == "NULL" and sopk[125][3] == "M0"     # erratum sopk-sdst-m0


def test_operand_types_come_from_the_pseudocode():
    spec = isa.load("rdna3")
    fma = spec.lookup("v_fma_f16")[0]
    assert fma.operand_types == {"D0": "f16", "S0": "f16", "S1": "f16", "S2": "f16"}
    assert spec.lookup("v_fma_f64")[0].operand_types["S0"] == "f64"
    assert spec.lookup("s_add_u32")[0].operand_types["S0"] == "u32"


def test_auxiliary_tables():
    t = isa.load("rdna3").tables
    assert (1, "MODE") in [(i, n) for i, n, _ in t["hwreg"]]
    assert ("FP_ROUND", 3, 0) in [r[:3] for r in t["mode"]]
    assert ("SCC", 0, 0) in [r[:3] for r in t["status"]]
    assert {name for name, _, _ in t["waitcnt"]} == {"EXP", "LGKM", "VM"}
    assert ("DPP_ROW_SHARE", 0x150, 0x15F) in [r[:3] for r in t["dpp_ctrl"]]
    assert (22, "32_FLOAT", (32,), "FLOAT", 115) in t["data_formats"]


def test_destination_restrictions_and_shared_code_tables():
    ops = isa.load("rdna3").operands
    assert max(c[1] for c in ops["SOP2"]["SDST"]) == 127          # "only codes 0-127 are valid"
    assert ops["SOP2"]["SSRC1"] == ops["SOP2"]["SSRC0"]           # "Same codes as SSRC0"
    assert ops["VOP3"]["SRC2"] == ops["VOP3"]["SRC0"]             # "Same options as SRC0"
    assert ops["VOPD"]["SRCY0"] == ops["VOPD"]["SRCX0"]           # "See SRCX0 for enumerations"


@pytest.mark.parametrize("arch", ALL_ARCHS + ["cdna4"])
def test_instr_defs_are_the_objects_the_constructor_makes(arch):
    """Spec builds each InstrDef straight into its __dict__ (spec._instr_defs): every one must
    be what the dataclass's own constructor makes from the generated row, field for field, and
    behave as a frozen InstrDef."""
    import dataclasses
    import importlib
    from isa.spec import InstrDef
    spec = isa.load(arch)
    rows = importlib.import_module(f"isa.generated.{arch.replace('.', '_')}").INSTRUCTIONS
    assert len(spec.instructions) == len(rows)
    for d, row in zip(spec.instructions, rows):
        made = InstrDef(**row)
        assert type(d) is InstrDef and dataclasses.astuple(d) == dataclasses.astuple(made) and repr(d) == repr(made)
    d = spec.instructions[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.name = "X"
    assert d == d and d != dataclasses.replace(d) and hash(d) == object.__hash__(d)     # compared by identity


def test_generated_row_with_other_fields_is_refused():
    from isa.spec import _instr_defs
    import importlib
    row = dict(importlib.import_module("isa.generated.rdna3").INSTRUCTIONS[0])
    row["extra"] = 1
    with pytest.raises(isa.ISALoadError, match=r"rdna3: generated instruction '\w+' has fields .*extra.*regenerate"):
        _instr_defs([row], "rdna3")
    del row["extra"], row["page"]
    with pytest.raises(isa.ISALoadError, match="InstrDef has .*'page'"):
        _instr_defs([row], "rdna3")

"""isa.traits: each family's operand codes, register counts and inline constants, checked
against LLVM 22's assembler (the code it encodes for each name) and the manual's stated sizes."""
from __future__ import annotations

import pytest

import isa
from tests.llvm_tools import mc_encodings

FAMILIES = [("rdna3", "gfx1100"), ("rdna3.5", "gfx1151"), ("rdna4", "gfx1201")]


@pytest.mark.parametrize("family, target", FAMILIES)
def test_special_codes_are_what_llvm_encodes(family, target):
    """s_mov_b32 s0, <name>: SOP1's SSRC0 is bits 7:0 of the first dword."""
    t = isa.traits(family)
    names = {"null": t.null, "m0": t.m0, "vcc_lo": t.vcc_lo, "vcc_hi": t.vcc_hi, "exec_lo": t.exec_lo,
             "exec_hi": t.exec_hi, "src_scc": t.scc, "src_shared_base": t.codes["SHARED_BASE"],
             "src_private_limit": t.codes["PRIVATE_LIMIT"], "ttmp0": t.ttmp_base, "ttmp15": t.ttmp_base + t.ttmps - 1,
             f"s{t.sgprs - 1}": t.sgprs - 1, "0x12345": t.literal}
    got = mc_encodings([f"s_mov_b32 s0, {n}" for n in names], target)
    assert {n: b[0] for n, b in zip(names, got)} == names
    # one SGPR past the file is refused
    assert mc_encodings([f"s_mov_b32 s0, s{t.sgprs}"], target) == [None]


@pytest.mark.parametrize("family, target", FAMILIES)
def test_inline_constants_are_what_llvm_encodes(family, target):
    t = isa.traits(family)
    values = list(range(-17, 66))
    got = mc_encodings([f"s_mov_b32 s0, {v}" for v in values], target)
    for v, b in zip(values, got):
        code = b[0]
        assert t.inline_int(v) == (code if code != t.literal else None), v
        assert t.is_inline(code) == (code != t.literal)
    floats = {0.5: 240, -0.5: 241, 1.0: 242, -1.0: 243, 2.0: 244, -2.0: 245, 4.0: 246, -4.0: 247}
    got = mc_encodings([f"v_mov_b32 v0, {f}" for f in floats] + ["v_mov_b32 v0, 0x3e22f983"], target)
    assert [b[0] for b in got] == [c for c in floats.values()] + [248]
    assert all(t.inline_floats[b[0]] == f for f, b in zip(floats, got))


@pytest.mark.parametrize("family, target", FAMILIES)
def test_register_files_and_roles(family, target):
    t = isa.traits(target)
    assert t is isa.traits(family) is isa.load(target).traits
    # the manuals, 3.3.1 / 3.3.2: 106 SGPRs, 256 VGPRs, 16 TTMPs per wave; wave32 and wave64
    assert (t.sgprs, t.vgprs, t.ttmps, t.wave_sizes) == (106, 256, 16, (32, 64))
    assert t.wave_size == isa.WAVE_SIZE[family]
    spec = isa.load(family)
    roles = t.roles
    named = (roles.valu | roles.scalar | roles.lds | roles.vmem | roles.export | roles.lds_param | roles.dpp)
    assert named == set(spec.formats), "every format has exactly one role"
    assert all(d.format in roles.valu for d in spec.instructions if d.name.startswith("V_"))


def test_unknown_family_is_a_clear_error():
    from isa.traits import entry
    with pytest.raises(isa.TraitsError, match="no traits entry for 'gfx9'.*families with traits: rdna3"):
        entry("gfx9")


@pytest.mark.parametrize("target, family", [("gfx1100", "rdna3"), ("gfx1151", "rdna3.5")])
def test_an_instruction_called_by_pseudocode_comes_from_the_callers_arch(monkeypatch, target, family):
    """v_max3_f32's pseudocode calls v_max_f32: the called semantic is the kernel's family's
    (gfx1151 code once ran rdna3's), and the result is the largest input."""
    import numpy as np
    import emu.table as table
    from emu.semantics import Ctx
    real = table.load_semantics
    seen = []

    def spy(arch, narrow=True):
        seen.append(isa.resolve_arch(arch))
        return real(arch, narrow)
    sem = real(target).lookup("V_MAX3_F32")
    monkeypatch.setattr(table, "load_semantics", spy)
    a, b, c = (np.array([[1.5, -2.0, 7.0, 0.25]], np.float32) * k for k in (1, -3, 0.5))
    out = sem.execute(Ctx(lanes=4, exec_mask=np.full((1, 1), 0xf, np.uint64),
                          inputs={"S0": a.view(np.uint32), "S1": b.view(np.uint32), "S2": c.view(np.uint32)}))
    got = np.asarray(out["D0"]).astype(np.uint32).view(np.float32)
    assert (got == np.maximum(np.maximum(a, b), c)).all()
    assert seen and set(seen) == {family}


@pytest.mark.parametrize("family, target", [("cdna3", "gfx942"), ("cdna4", "gfx950")])
def test_cdna_special_codes_and_files_are_what_llvm_encodes(family, target):
    """gfx942 and gfx950: the CDNA3/CDNA4 manuals' codes (no NULL register; FLAT_SCRATCH and
    XNACK_MASK pairs below VCC; 102 SGPRs), wave64 only, 256 AGPRs beside the 256 VGPRs, and the gfx9
    syntax dialect."""
    t = isa.traits(target)
    assert t is isa.traits(family) is isa.load(target).traits
    assert t.null is None and (t.sgprs, t.vgprs, t.agprs, t.ttmps, t.wave_sizes) == (102, 256, 256, 16, (64,))
    assert t.dialect == "gfx9" and t.source_format == "VOP3A"
    names = {"m0": t.m0, "vcc_lo": t.vcc_lo, "vcc_hi": t.vcc_hi, "exec_lo": t.exec_lo, "exec_hi": t.exec_hi,
             "src_scc": t.scc, "flat_scratch_lo": t.codes["FLAT_SCRATCH_LO"], "xnack_mask_hi": t.codes["XNACK_MASK_HI"],
             "src_shared_base": t.codes["SHARED_BASE"], "src_private_limit": t.codes["PRIVATE_LIMIT"],
             "src_vccz": t.codes["VCCZ"], "src_execz": t.codes["EXECZ"], "ttmp0": t.ttmp_base,
             "ttmp15": t.ttmp_base + t.ttmps - 1, f"s{t.sgprs - 1}": t.sgprs - 1, "0x12345": t.literal}
    got = mc_encodings([f"s_mov_b32 s0, {n}" for n in names], target)
    assert {n: b[0] for n, b in zip(names, got)} == names
    assert mc_encodings([f"s_mov_b32 s0, s{t.sgprs}"], target) == [None]
    values = list(range(-17, 66))
    got = mc_encodings([f"s_mov_b32 s0, {v}" for v in values], target)
    for v, b in zip(values, got):
        assert t.inline_int(v) == (b[0] if b[0] != t.literal else None), v
    floats = {0.5: 240, -0.5: 241, 1.0: 242, -1.0: 243, 2.0: 244, -2.0: 245, 4.0: 246, -4.0: 247}
    got = mc_encodings([f"v_mov_b32 v0, {f}" for f in floats] + ["v_mov_b32 v0, 0x3e22f983"], target)
    assert [b[0] for b in got] == list(floats.values()) + [248]
    assert all(t.inline_floats[b[0]] == f for f, b in zip(floats, got))
    spec = isa.load(target)
    roles = t.roles
    named = (roles.valu | roles.scalar | roles.lds | roles.vmem | roles.export | roles.lds_param | roles.dpp)
    assert named == set(spec.formats), "every format has exactly one role"
    assert all(d.format in roles.valu for d in spec.instructions if d.name.startswith("V_"))


# an instruction with a source of each format and the byte holding that source's code
_FLOAT_OPERANDS = {16: ("v_add_f16 v0, {}, v1", 0), 32: ("v_add_f32 v0, {}, v1", 0),
                   64: ("v_add_f64_e64 v[0:1], {}, v[2:3]", 4), "bf16": ("v_dot2_bf16_bf16 v0, {}, v1, v2", 4)}


@pytest.mark.parametrize("family, target", FAMILIES)
@pytest.mark.parametrize("fmt", [16, 32, 64, "bf16"])
def test_inline_float_bit_patterns_are_what_llvm_encodes(family, target, fmt):
    """Each inline float's bits in the operand's format assemble to its inline code: for
    1/(2*pi) as f64 that is 0x3fc45f306dc9c882 (the nearest double, ...883, is refused)."""
    t = isa.traits(family)
    line, at = _FLOAT_OPERANDS[fmt]
    patterns = t.inline_float_bits[fmt]
    assert set(patterns) == set(t.inline_floats)
    got = mc_encodings([line.format(hex(bits)) for bits in patterns.values()], target)
    assert [b[at] for b in got] == list(patterns)
    if fmt == 64:
        assert mc_encodings([line.format("0x3fc45f306dc9c883")], target) == [None]


@pytest.mark.parametrize("family, target", FAMILIES)
def test_saddr_off_codes(family, target):
    """The GLOBAL SADDR codes the manual says disable the SGPR address ("Set this field to NULL
    or 0x7f to disable use" in RDNA3/3.5, "... to NULL ..." in RDNA4); the first is what
    llvm-mc-22 (and our assembler, where it supports the family) writes for `off`."""
    import dsl
    t = isa.traits(family)
    assert t.saddr_off == ((t.null,) if family == "rdna4" else (t.null, 0x7F))
    line = "global_load_b32 v1, v[2:3], off"
    want = mc_encodings([line], target)[0]
    spec = isa.load(family)
    fmt = next(f for f in ("GLOBAL", "VGLOBAL") if f in spec.formats)
    assert spec.formats[fmt].get(int.from_bytes(want, "little"), "SADDR") == t.saddr_off[0]
    if family != "rdna4":
        assert dsl.assemble(line, target) == want


def test_cdna3_saddr_off_is_0x7f():
    """CDNA3's manual: "Set this field to 0x7f to disable use" (no NULL register); llvm-mc-22
    writes 0x7f for gfx942's `off`."""
    t = isa.traits("gfx942")
    assert t.saddr_off == (0x7F,)
    assert mc_encodings(["global_load_dword v1, v[2:3], off"], "gfx942")[0][6] == t.saddr_off[0]


@pytest.mark.parametrize("family, target", FAMILIES + [("cdna3", "gfx942"), ("cdna4", "gfx950")])
def test_aperture_codes_are_what_llvm_encodes(family, target):
    """The generated tables["aperture_codes"] (the operand rows "SHARED_BASE (Memory Aperture
    definition)." ... "PRIVATE_LIMIT ...") are the codes llvm-mc-22 encodes for src_shared_base ..
    src_private_limit (SOP1's SSRC0, bits 7:0), under the same names, and traits.aperture_codes
    holds exactly them."""
    t, spec = isa.traits(family), isa.load(family)
    named = dict(spec.tables["aperture_codes"])
    names = [f"src_{name.lower()}" for name in named.values()]
    assert sorted(names) == ["src_private_base", "src_private_limit", "src_shared_base", "src_shared_limit"]
    got = mc_encodings([f"s_mov_b64 s[0:1], {n}" for n in names], target)
    assert {n: b[0] for n, b in zip(names, got)} == {f"src_{name.lower()}": code for code, name in named.items()}
    assert t.aperture_codes == frozenset(named)


def test_aperture_codes_read_from_operand_rows():
    """The generator's reading: rows whose text says "(Memory Aperture definition)", from any
    format's code tables, once each; a code two tables name differently is refused."""
    from isa.gen.descriptions import aperture_codes
    row = (235, 235, "special", "SHARED_BASE", "SHARED_BASE (Memory Aperture definition).")
    other = (240, 240, "float", 0.5, "0.5")
    operands = {"SOP1": {"SSRC0": [row, other]}, "VOP3": {"SRC0": [row], "SRC1": [other]}}
    assert aperture_codes(operands) == [(235, "SHARED_BASE")]
    clash = (235, 235, "special", "PRIVATE_BASE", "PRIVATE_BASE (Memory Aperture definition).")
    with pytest.raises(ValueError, match="aperture code 235"):
        aperture_codes({**operands, "VOP1": {"SRC0": [clash]}})


@pytest.mark.parametrize("family, target", FAMILIES + [("cdna3", "gfx942"), ("cdna4", "gfx950")])
def test_special_register_widths_are_what_llvm_takes(family, target):
    """Traits.special_registers: each named scalar register is 1 register (m0, vcc_lo, exec_hi,
    flat_scratch_lo) or a 2-register pair (vcc, exec, flat_scratch, xnack_mask); llvm-mc-22 takes
    it as s_mov_b32's source exactly where it is 1 and as s_mov_b64's where it is 2, and null at
    either width. The same widths refuse it in both of our encoders."""
    import dsl
    from dsl.special_registers import special_widths
    widths = special_widths(isa.traits(family))
    assert {"vcc", "exec", "vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0"} <= set(widths) and "null" not in widths
    names = list(widths) + (["null"] if isa.traits(family).null is not None else [])
    lines = [f"s_mov_b32 s0, {n}" for n in names] + [f"s_mov_b64 s[0:1], {n}" for n in names]
    want = mc_encodings(lines, target)
    for line, name, llvm in zip(lines, names + names, want):
        width = 2 if line.startswith("s_mov_b64") else 1
        assert (llvm is not None) == (widths.get(name, width) == width), line
        if llvm is None:
            with pytest.raises(dsl.AsmError, match=rf"{name} is {32 * widths[name]} bits wide"):
                dsl.assemble(line, target)
        else:
            assert dsl.assemble(line, target) == llvm, line

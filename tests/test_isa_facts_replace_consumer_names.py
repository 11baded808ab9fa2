"""Rules dsl/, emu/ and frontend/ kept on instruction names or on a regular expression over the
pseudocode's call names, now read from generated facts: the image-format semantic by the format
role, rematerialised constants by the copy fact, the frontend's lane-mask sources by the VALU
signature and its retargeting by the VALU role and the EXEC write, the translator's calls of other
instructions by the instruction_calls fact, RDNA4's split wait counters by the control facts.

Each test keeps the old rule as it was and compares the new answer with it over every
instruction of RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4, asserting every difference with its reason;
where the new fact says more than the old name did, LLVM 22 is the reference."""
import re

import pytest

import isa
from isa.effects import effects

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]
RDNA = {"rdna3": "gfx1100", "rdna3.5": "gfx1151", "rdna4": "gfx1201"}


def _instructions():
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            yield family, d


# ---------------------------------------------------------------- emu/handwritten: image formats

def test_image_format_semantics_by_format_role_agree_with_the_old_name_prefix():
    """emu.handwritten.semantic asked for the format-converting image load/store only of names
    starting IMAGE_; now of every name, the definitions' format role (traits.roles.image) deciding.
    The same instructions: every one it gives is an IMAGE_ name."""
    from emu.handwritten import _image_format
    found = 0
    for family in FAMILIES:
        spec = isa.load(family)
        for name in sorted({d.name for d in spec.instructions}):
            new = _image_format(name, spec) is not None
            assert not new or name.startswith("IMAGE_"), (family, name)
            found += new
    assert found >= 3 * 4      # IMAGE_LOAD, _LOAD_MIP, _STORE, _STORE_MIP on each RDNA family


# ---------------------------------------------------------------- dsl/spill: rematerialised moves

def test_rematerialised_moves_by_the_copy_fact_agree_with_the_old_mnemonics():
    """dsl.spill.constants recomputed values moved by the mnemonics v_mov_b32 / s_mov_b32; now by
    one_dword_copy: the code is one whole copy `D0.b32 = S0.b32` (isa.effects' copy) into a VGPR or
    SGPR (no AGPR operand). The same definitions but RDNA4's VOPD half V_DUAL_MOV_B32, which
    constants() refuses as a dual statement."""
    from dsl.spill import one_dword_copy
    old_names = {"v_mov_b32", "s_mov_b32"}
    for family, d in _instructions():
        if one_dword_copy(d) != (d.name.lower() in old_names):
            assert (family, d.name, d.format) == ("rdna4", "V_DUAL_MOV_B32", "VOPD")


def test_an_explicit_encoding_of_a_constant_move_is_rematerialised_too():
    """By the definition, not the spelling: v_mov_b32_e64 x, 5 (the VOP3 form of the same copy) is
    a constant as v_mov_b32 x, 5 is; v_mov_b16 (16 bits) and a move with a register source are not."""
    import dsl.rdna3 as r
    from dsl.operands import s, v
    from dsl.spill import constants
    k = r.Kernel("gfx1100")
    a, b, c = k.vreg(name="a"), k.vreg(name="b"), k.vreg(name="c")
    k += r.v_mov_b32_e64(a, 5)
    k += r.v_mov_b32(b, 7)
    k += r.v_mov_b32(c, b)
    for x in (a, b, c):
        k += r.global_store_b32(v[0], x, s[0:1])
    k += r.s_endpgm()
    assert set(constants(k)) == {a.vid, b.vid}


# ---------------------------------------------------------------- frontend/isel: lane-mask sources

_OLD_MASK_LAST_SOURCE = {"v_cndmask_b32", "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32"}


@pytest.mark.parametrize("family", sorted(RDNA))
def test_mask_last_sources_by_the_signature_agree_with_the_old_names(family):
    """The frontend's VALU instructions whose last source is a lane mask kept in an SGPR (a select,
    a carry in), named before; now the VOP3 form's signature (its code reads VCC, the src2 mask).
    The old names and V_CNDMASK_B16, which the frontend does not emit (a select all the same);
    not v_div_fmas, which reads VCC with no mask operand."""
    from dsl.signature import valu_signature  # noqa: F401 (the rule's source)
    from frontend.isel import mask_last_source
    spec = isa.load(family)
    names = {d.name.lower() for d in spec.instructions if d.format in spec.traits.roles.valu}
    new = {n for n in names if mask_last_source(RDNA[family], n)}
    assert new == _OLD_MASK_LAST_SOURCE | {"v_cndmask_b16"}
    assert "v_div_fmas_f32" in names and not mask_last_source(RDNA[family], "v_div_fmas_f32")


@pytest.mark.parametrize("arch", sorted(RDNA.values()))
def test_mask_last_sources_are_those_llvm_takes_only_from_sgprs(arch):
    """LLVM 22: the last source of each mask_last_source instruction is a lane mask (an SGPR, a
    VGPR refused); v_div_fmas_f32's third source is data (either)."""
    from tests.llvm_tools import mc_encodings, tool
    tool("llvm-mc")
    from frontend.isel import mask_last_source
    lines = {"v_cndmask_b32": "v_cndmask_b32_e64 v0, v1, v2, {}",
             "v_add_co_ci_u32": "v_add_co_ci_u32_e64 v0, s6, v1, v2, {}",
             "v_sub_co_ci_u32": "v_sub_co_ci_u32_e64 v0, s6, v1, v2, {}",
             "v_subrev_co_ci_u32": "v_subrev_co_ci_u32_e64 v0, s6, v1, v2, {}",
             "v_div_fmas_f32": "v_div_fmas_f32 v0, v1, v2, {}"}
    text = [t.format(last) for t in lines.values() for last in ("s4", "v4")]
    got = mc_encodings(text, arch)
    for i, name in enumerate(lines):
        sgpr, vgpr = got[2 * i], got[2 * i + 1]
        assert sgpr is not None, text[2 * i]
        assert (vgpr is None) == mask_last_source(arch, name), text[2 * i + 1]


# ---------------------------------------------------------------- frontend/isel: retargeting

def test_retargetable_instructions_by_role_and_cmpx_agree_with_the_old_prefixes():
    """retarget_last took instructions whose mnemonic starts v_ but not v_cmpx; now a VALU format
    role (traits.roles.valu) but a compare that writes EXEC (dsl.signature's is_cmpx: the code
    assigns EXEC's lane bits). The same definitions (WMMA, which sets EXEC to all lanes while it
    runs and restores it, stays in as before)."""
    from dsl.signature import valu_signature
    for family, d in _instructions():
        roles = isa.load(family).traits.roles
        new = d.format in roles.valu and not valu_signature(d).is_cmpx
        old = d.name.startswith("V_") and not d.name.startswith("V_CMPX")
        assert new == old, (family, d.name, d.format)


# ---------------------------------------------------------------- emu/pcode: calls of instructions

def test_instruction_calls_by_the_fact_agree_with_the_old_call_name_regex():
    """The translator took a call `f(...)` for another instruction when f matched `[vs]_[a-z0-9_]+`
    and the runtime library has no f; now when f is one of the instruction_calls fact (and the
    library has no f). The same calls in every instruction's code."""
    from isa.facts import instruction_calls
    from isa.pcode.grammar import parse
    from emu import rtlib
    callers = 0
    for family, d in _instructions():
        if not d.pcode:
            continue
        try:
            tree = parse(d.pcode, d.name)
        except Exception:
            continue           # not code (isa.errata.NOT_CODE): never translated
        names = {str(n.children[0]) for n in tree.iter_subtrees() if n.data == "call"}
        old = {f for f in names if re.fullmatch(r"[vs]_[a-z0-9_]+", f) and not hasattr(rtlib, f)}
        new = {f for f in names if f in set(instruction_calls(d)) and not hasattr(rtlib, f)}
        assert new == old, (family, d.name)
        callers += bool(new)
    assert callers > 50


# ---------------------------------------------------------------- dsl/inflight: split counters

def test_split_counters_by_the_control_facts_agree_with_the_old_instruction_lookup():
    """RDNA4's separate counters were known by the presence of S_WAIT_LOADCNT; now by a wait of the
    family's scalar control naming LOADcnt (isa.control). The same families: RDNA4 only."""
    from dsl.inflight import split_counters
    for family in FAMILIES:
        spec = isa.load(family)
        assert split_counters(spec) == bool(spec.lookup("S_WAIT_LOADCNT")) == (family == "rdna4"), family


# ---------------------------------------------------------------- dsl: VOPD halves

def _old_vopd_base(spec, d):
    """dsl.operand_records.vopd_base as it was: the name with V_DUAL_ replaced by V_."""
    if d.format != "VOPD":
        return d
    name = d.name.replace("V_DUAL_", "V_", 1)
    return next((x for x in spec.lookup(name) if x.format in ("VOP2", "VOP1", "VOP3")), d)


def test_vopd_twins_from_the_generated_table_agree_with_the_old_name_rule():
    """Each VOPD half's VOP1/VOP2 twin comes from the generator (tables["vopd_twins"], the
    manual's V_DUAL_<X> naming read once); before, each consumer replaced the name's prefix. The
    same definition for every half of RDNA3, RDNA3.5 and RDNA4 (the dot2acc halves without a twin
    their own)."""
    from dsl.signature import vopd_base
    halves = own = 0
    for family, d in _instructions():
        if d.format != "VOPD":
            continue
        spec = isa.load(family)
        new, old = vopd_base(spec, d), _old_vopd_base(spec, d)
        assert (new.name, new.format, new.opcode) == (old.name, old.format, old.opcode), (family, d.name)
        halves += 1
        own += new is d
    assert halves > 90 and 0 < own < 10


def test_vopd_move_pairs_by_the_copy_fact_agree_with_the_old_names():
    """The encoder lets a VOPD pair of two moves read src0 from one bank where the family's OPY
    move uses SRC2 (the manual's "V_MOV_B32 when in OPY uses SRC2 (not SRC0) if OPX is also a
    V_MOV_B32"); the moves were V_DUAL_MOV_B32 by name, now halves whose instruction is a copy
    (isa.effects). The same pairs: both halves V_DUAL_MOV_B32."""
    from dsl.signature import vopd_base
    for family in RDNA:
        spec = isa.load(family)
        xs = [d for d in spec.instructions if d.format == "VOPD" and d.slot == "X"]
        ys = [d for d in spec.instructions if d.format == "VOPD" and d.slot == "Y"]
        assert xs and ys
        for dx in xs:
            for dy in ys:
                new = all(effects(vopd_base(spec, h).pcode or "").copy for h in (dx, dy))
                assert new == (dx.name == dy.name == "V_DUAL_MOV_B32"), (family, dx.name, dy.name)


@pytest.mark.parametrize("arch", sorted(RDNA.values()))
def test_vopd_src0_banks_are_refused_where_llvm_refuses_them(arch):
    """LLVM 22: two src0 VGPRs in one bank are refused but for a pair of moves on RDNA4 (the OPY
    move reads through SRC2); ours the same."""
    import dsl
    from tests.llvm_tools import mc_encodings, tool
    tool("llvm-mc")
    lines = ["v_dual_mov_b32 v0, v4 :: v_dual_mov_b32 v1, v8",
             "v_dual_mov_b32 v0, v4 :: v_dual_add_f32 v1, v8, v2",
             "v_dual_add_f32 v0, v4, v3 :: v_dual_mov_b32 v1, v8",
             "v_dual_mul_f32 v0, v4, v3 :: v_dual_add_f32 v1, v8, v2",
             "v_dual_mov_b32 v0, v4 :: v_dual_mov_b32 v1, v9"]
    want = mc_encodings(lines, arch)

    def ours(line):
        try:
            return dsl.assemble(line, arch)
        except dsl.AsmError:
            return None
    assert [ours(x) for x in lines] == want
    assert (want[0] is not None) == (arch == "gfx1201") and want[4] is not None and want[1] is None


# ---------------------------------------------------------------- frontend/waitcnt: counted formats

_OLD_VMEM = {"GLOBAL", "FLAT", "MUBUF", "MTBUF", "SCRATCH"}


def _old_counted(fmt):
    return "vm" if fmt in _OLD_VMEM else "smem" if fmt == "SMEM" else "lds" if fmt == "DS" else None


def test_waitcnt_counters_by_format_role_agree_with_the_old_format_names():
    """frontend.waitcnt counted VM_CNT for the format names GLOBAL/FLAT/MUBUF/MTBUF/SCRATCH and
    LGKM_CNT for SMEM and DS; now by the family's roles (flat, buffer, smem, lds). The same answer
    for every definition of RDNA3, RDNA3.5, CDNA3 and CDNA4; on RDNA4, whose manual names these
    formats with a V prefix (none of the old names is one of its formats), the old names counted
    nothing but SMEM, the roles count the V-prefixed formats as their RDNA3 namesakes."""
    from frontend.waitcnt import counted
    renamed = {"VFLAT": "vm", "VGLOBAL": "vm", "VSCRATCH": "vm", "VBUFFER": "vm", "VDS": "lds"}
    rdna4_formats = {d.format for d in isa.load("rdna4").instructions}
    assert not (_OLD_VMEM | {"DS"}) & rdna4_formats and set(renamed) <= rdna4_formats
    seen = set()
    for family, d in _instructions():
        new, old = counted(d.format, isa.load(family).traits.roles), _old_counted(d.format)
        if family == "rdna4" and d.format in renamed:
            assert (old, new) == (None, renamed[d.format]), (family, d.name, d.format)
        else:
            assert new == old, (family, d.name, d.format)
        seen.add((family, new))
    assert {(f, k) for f in FAMILIES for k in ("vm", "smem", "lds", None)} == seen


# ---------------------------------------------------------------- dsl/operand_records: scalar formats

def test_raw_source_field_by_the_salu_role_agrees_with_the_old_sop_prefix():
    """dsl.operand_records.raw_source_field took a scalar instruction to be one whose format name
    starts SOP; now one whose format has the family's salu role. The same formats for every
    definition of every family (SOP1, SOP2, SOPC, SOPK, SOPP in each), so the same answer;
    s_set_gpr_idx_on of CDNA3 and CDNA4 is the one it gives."""
    from dsl.operand_records import raw_source_field
    given = set()
    for family, d in _instructions():
        roles = isa.load(family).traits.roles
        assert (d.format in roles.salu) == d.format.startswith("SOP"), (family, d.name, d.format)
        old = d.format.startswith("SOP") and "SRC1" in d.operand_types and "S1" not in d.operand_types
        assert raw_source_field(d, roles) == old, (family, d.name)
        if old:
            given.add((family, d.name))
    assert given == {("cdna3", "S_SET_GPR_IDX_ON"), ("cdna4", "S_SET_GPR_IDX_ON")}

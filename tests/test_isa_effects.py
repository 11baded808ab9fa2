"""isa.effects: operands read / written by the pseudocode, on the instructions whose
meaning the allocator depends on (facts read off the ISA manual's pseudocode by hand)."""
from __future__ import annotations

import pytest

import isa
from isa.effects import effects
from isa.gen.effects import effects as read_code     # code of the test's own: the generator's reader

# (instruction, reads, full writes, partial writes, cross-lane)
CASES = [
    ("v_mad_u64_u32", {"S0", "S1", "S2"}, {"D0", "D1"}, set(), False),        # { D1.u1, D0.u64 } = ...
    ("v_add_co_ci_u32", {"S0", "S1", "VCC"}, {"D0", "VCC"}, set(), False),  # carry in and out
    ("v_fmac_f32", {"S0", "S1", "D0"}, {"D0"}, set(), False),                 # accumulator read back
    ("v_readlane_b32", {"S0", "S1"}, {"D0"}, set(), True),                    # D0 = VGPR[lane][SRC0]
    ("v_readfirstlane_b32", {"S0", "EXEC"}, {"D0"}, set(), True),             # assigned after the if/else choosing the lane
    ("v_writelane_b32", {"S0", "S1", "D0"}, set(), {"D0"}, False),            # one lane of VDST
    ("v_cmp_gt_u32", {"S0", "S1"}, {"D0"}, set(), False),                     # D0.u64[laneId]: the whole mask
    ("v_cmpx_ne_u32", {"S0", "S1"}, {"EXEC"}, set(), False),
    ("s_and_saveexec_b32", {"S0", "EXEC"}, {"D0", "EXEC", "SCC"}, set(), False),
    ("s_cselect_b32", {"S0", "S1", "SCC"}, {"D0"}, set(), False),             # if/else both assign D0
    ("s_cmov_b32", {"S0", "SCC", "D0"}, set(), {"D0"}, False),                # only if SCC
    ("s_bitset1_b32", {"S0", "D0"}, set(), {"D0"}, False),                    # one bit
    ("s_cmpk_eq_u32", {"S0"}, {"SCC"}, set(), False),
    ("s_getpc_b64", set(), {"D0"}, set(), False),
    # v_fma_mix*: `declare S : 32'B[3]` and `in[i] = S[i].f`: the sources as an array, all read;
    # D0[15 : 0] written, the high half kept
    ("v_fma_mixlo_f16", {"S0", "S1", "S2", "D0"}, set(), {"D0"}, False),
    # WMMA: `eval "D0.f32(16x16) = S0.f16(16x16) * S1.f16(16x16) + S2.f32(16x16)"` between saving
    # and restoring EXEC: D written whole; an f16 D fills the half OPSEL names (manual 7.9), the
    # other half kept
    ("v_wmma_f32_16x16x16_f16", {"S0", "S1", "S2", "EXEC"}, {"D0", "EXEC"}, set(), False),
    ("v_wmma_f16_16x16x16_f16", {"S0", "S1", "S2", "EXEC", "D0"}, {"EXEC"}, {"D0"}, False),
]


@pytest.mark.parametrize("name, reads, full, partial, cross", CASES, ids=[c[0] for c in CASES])
def test_effects_of_instructions_the_allocator_relies_on(name, reads, full, partial, cross):
    e = effects(isa.load("gfx1100").lookup(name)[0].pcode)
    assert (set(e.reads), set(e.full), set(e.partial), e.cross_lane) == (reads, full, partial, cross)


def test_branches_loops_and_unknown_text():
    e = read_code("if S0.u > 0 then\n  D0.u = 1\nelsif S1.u > 0 then\n  D0.u = 2\nendif")
    assert "D0" in e.partial and "D0" in e.reads          # no else: the old value may survive
    e = read_code("for i in 0 : 3 do\n  D0.u[i] = S0.u[i]\nendfor")
    assert "D0" in e.partial and "D0" not in e.full
    e = read_code("D0.u = 5;\nD0.u = D0.u + S0.u")
    assert e.full == {"D0"} and e.reads == {"S0"}         # read after its own full write
    e = read_code("if S0.u > 0 then\n D0.u = 1")            # no endif: not understood -> conservative
    assert "D0" in e.reads and "D0" in e.partial


def test_every_pseudocode_parses_without_raising():
    for arch in ("gfx1100", "gfx1151"):
        for d in isa.load(arch).instructions:
            e = effects(d.pcode)
            assert e.full.isdisjoint(e.partial)


def test_indexed_register_access():
    """s_movreld_b32: `SGPR[addr].b = S0.b` with addr = DST + M0; v_movrels_b32 reads
    VGPR[laneId][addr]: registers other than the named operands, which `indexed` says."""
    spec = isa.load("gfx1100")
    for name in ("s_movreld_b32", "s_movrels_b32", "v_movrels_b32", "v_movreld_b32", "v_readlane_b32"):
        assert effects(spec.lookup(name)[0].pcode).indexed, name
    assert not effects(spec.lookup("v_add_f32")[0].pcode).indexed


@pytest.mark.parametrize("name, copy, jump", [
    ("v_mov_b32", True, False), ("s_mov_b64", True, False),     # D0.b32 = S0.b32 / D0.b64 = S0.b64
    ("v_cvt_f32_i32", False, False),                            # D0.f32 = i32_to_f32(S0.i32): not a copy
    ("s_not_b32", False, False),
    ("s_branch", False, True), ("s_setpc_b64", False, True),    # PC assigned, nothing conditional
    ("s_cbranch_scc0", False, False),                           # if SCC ... else PC = PC + 4: falls through
    ("s_swappc_b64", False, False), ("s_call_b64", False, False),   # calls write the return address (D0)
    ("s_getpc_b64", False, False),
])
def test_copies_and_jumps(name, copy, jump):
    """The allocator's register copies (coalescing) and block ends (no fall-through), as the
    manual's pseudocode states them."""
    e = effects(isa.load("gfx1100").lookup(name)[0].pcode)
    assert (e.copy, e.jump) == (copy, jump)


def test_lane_permutes_read_other_lanes():
    """ds_swizzle_b32's pseudocode gives each lane thread_in[j], ds_(b)permute_b32 and
    v_permlane16_b32 read VGPR[lane][..]: all read other lanes."""
    spec = isa.load("gfx1100")
    for name in ("ds_swizzle_b32", "ds_permute_b32", "ds_bpermute_b32", "v_permlane16_b32"):
        assert effects(spec.lookup(name)[0].pcode).cross_lane, name
    assert not effects(spec.lookup("ds_load_b32")[0].pcode).cross_lane


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201"])
def test_matrix_effect_marks_exactly_the_matrix_core_instructions(arch):
    """`matrix` (whole-matrix operands in the quoted statement) holds for the manual's WMMA /
    SWMMAC instructions and nothing else (the timing model's matrix-core class reads it)."""
    import isa
    from isa.effects import effects
    spec = isa.load(arch)
    defs = spec.instructions.values() if isinstance(spec.instructions, dict) else spec.instructions
    marked = {d.name for d in defs if effects(d.pcode).matrix}
    named = {d.name for d in defs if d.name.startswith(("V_WMMA_", "V_SWMMAC_"))}
    assert marked == named and len(named) >= 6


# CDNA (gfx942 / gfx950): the matrix formula of the manual's MFMA entries ("D = A (MxK) * B (KxN) +
# C (MxN)": A, B and C are the sources, D is written whole; SMFMAC "+ D": D accumulates and S2
# is the sparse index), and the AGPR moves (a 32-bit copy, isa/errata.py)
CDNA_CASES = [
    ("gfx942", "v_mfma_f32_32x32x8_f16", {"S0", "S1", "S2"}, {"D0"}),
    ("gfx942", "v_mfma_f32_4x4x1_16b_f32", {"S0", "S1", "S2"}, {"D0"}),           # (formula from errata)
    ("gfx942", "v_smfmac_f32_16x16x32_f16", {"S0", "S1", "S2", "D0"}, {"D0"}),
    ("gfx950", "v_smfmac_f32_32x32x32_fp8_fp8", {"S0", "S1", "S2", "D0"}, {"D0"}),  # (formula from errata)
    ("gfx950", "v_mfma_f64_16x16x4_f64", {"S0", "S1", "S2"}, {"D0"}),
    ("gfx942", "v_accvgpr_read_b32", {"S0"}, {"D0"}),
    ("gfx950", "v_accvgpr_write_b32", {"S0"}, {"D0"}),
    ("gfx942", "v_accvgpr_mov_b32", {"S0"}, {"D0"}),
]


@pytest.mark.parametrize("arch, name, reads, full", CDNA_CASES, ids=[f"{c[0]}-{c[1]}" for c in CDNA_CASES])
def test_cdna_matrix_formulas_and_agpr_moves(arch, name, reads, full):
    for d in isa.load(arch).lookup(name):
        e = effects(d.pcode)
        assert (set(e.reads), set(e.full), set(e.partial)) == (reads, full, set()), d.format

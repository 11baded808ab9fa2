"""Memory instructions' flag modifiers as LLVM's assembler takes them, on gfx1100, gfx1151,
gfx1201, gfx942 and gfx950: the orders it takes (cache-policy flags in any order among themselves,
the rest in its printed order; dsl.encode._MODIFIER_ORDER, CDNA's dsl/memflags_gfx9.py) and the
negated flags (`noglc`, `nounorm`, `nosc0`, ...: the flag absent; dsl/negated_flags.py), swept over
every memory format with llvm-mc-22 (skipped when absent): each line is refused where LLVM refuses
it and otherwise gives LLVM's bytes."""
from __future__ import annotations

import pytest

import dsl
from tests.llvm_tools import mc_encodings
from tests.memflag_cases import negated_lines, order_lines

ARCHS = ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"]


def _ours(line: str, arch: str) -> tuple[bytes | None, str]:
    try:
        return dsl.assemble(line, arch), ""
    except dsl.AsmError as e:
        return None, str(e).splitlines()[0]


def _disagreements(lines: list[str], arch: str) -> tuple[list[str], list[str]]:
    """(lines where we differ from llvm-mc, LLVM's `notfe` buffer lines: ours refused, kept apart)."""
    want = mc_encodings(lines, arch)
    bad, notfe = [], []
    for line, w in zip(lines, want):
        g, err = _ours(line, arch)
        if g == w:
            continue
        if g is None and "notfe: LLVM 22 reads it on a buffer load as tfe" in err:
            notfe.append(line)
            continue
        bad.append(f"{line}: llvm {w.hex() if w else 'refused'}, ours {g.hex() if g else err}")
    return bad, notfe


@pytest.mark.parametrize("arch", ARCHS)
def test_modifier_orders_are_those_llvm_takes(arch):
    lines = order_lines(arch)
    bad, notfe = _disagreements(lines, arch)
    assert not bad and not notfe, "\n".join(bad[:20])
    # the sweep holds orders LLVM takes besides its printed one (th:/scope:, glc/slc/dlc swapped)
    taken = [w is not None for w in mc_encodings(lines, arch)]
    assert sum(taken) >= 17 and not all(taken)


@pytest.mark.parametrize("arch", ARCHS)
def test_negated_flags_are_those_llvm_takes(arch):
    lines = negated_lines(arch)
    bad, notfe = _disagreements(lines, arch)
    assert not bad, "\n".join(bad[:20])
    # the one kept difference: LLVM 22 takes `notfe` on a buffer load only in its TFE form and
    # encodes it as `tfe`; refused here (the flag written means the opposite of the bytes)
    assert all(ln.startswith("buffer_load") for ln in notfe), notfe
    assert mc_encodings(notfe, arch) == mc_encodings([ln.replace("notfe", "tfe") for ln in notfe], arch)


@pytest.mark.parametrize("arch,line", [
    ("gfx1201", "global_load_b32 v1, v2, s[0:1] scope:SCOPE_SYS th:TH_LOAD_NT"),
    ("gfx1201", "buffer_load_b32 v1, off, s[4:7], s0 offset:8 scope:SCOPE_SE th:TH_LOAD_HT nonv"),
    ("gfx1201", "s_load_b32 s1, s[2:3], 0x10 scope:SCOPE_SYS th:TH_LOAD_NT"),
    ("gfx1201", "ds_add_u32 v1, v2 offset:4 nogds"),
    ("gfx1201", "image_sample v[1:4], v2, s[4:11], s[12:15] dmask:0xf dim:SQ_RSRC_IMG_1D nounorm nolwe"),
    ("gfx1100", "global_load_b32 v1, v2, s[0:1] offset:16 dlc noslc glc"),
    ("gfx1151", "s_load_b32 s1, s[2:3], 0x10 noslc dlc"),
    ("gfx1100", "image_load v[1:4], v[2:3], s[4:11] dmask:0xf dim:SQ_RSRC_IMG_2D nounorm nor128 noa16 notfe nolwe"),
    ("gfx942", "global_load_dword v1, v[2:3], off offset:16 nt nosc1 sc0"),
    ("gfx950", "buffer_load_dword v2, s[4:7], s0 offen offset:16 sc1 nosc0 lds"),
    ("gfx942", "ds_add_u32 v1, v2 offset:16 nogds"),
    ("gfx950", "s_load_dword s1, s[2:3], 0x10 noslc glc noscc"),
    ("gfx942", "ds_gws_barrier v20 offset:16 gds"),
])
def test_examples_give_llvms_bytes(arch, line):
    want = mc_encodings([line], arch)[0]
    assert want is not None and dsl.assemble(line, arch) == want


@pytest.mark.parametrize("arch,line,col,says", [
    ("gfx1201", "global_load_b32 v1, v2, s[0:1] noglc", 32, "noglc: its VGLOBAL encoding takes nonv"),
    ("gfx1100", "global_load_b32 v1, v2, s[0:1] glc noglc", 36, "glc is given too"),
    ("gfx1100", "global_load_b32 v1, v2, s[0:1] noglc offset:16", 38, "offset: comes before noglc"),
    ("gfx1100", "buffer_store_b32 v1, off, s[4:7], s0 notfe", 38, "notfe"),
    ("gfx942", "flat_load_dword v1, v[2:3] sc0 offset:16", 32, "offset: comes before sc0"),
    ("gfx950", "buffer_load_dword v2, s[4:7], s0 offen lds sc0", 44, "sc0: comes before lds"),
    ("gfx942", "ds_add_u32 v1, v2 offset:16 gds", 29, "gds modifier is not supported on this GPU"),
    ("gfx950", "ds_gws_barrier v20 offset:16 nogds", 30, "nogds is not allowed"),
    ("gfx942", "s_load_dword s1, s[2:3], 0x10 nv", 31, "'nv' is not a modifier"),
    ("gfx942", "global_load_dword v1, v[2:3], off noglc", 35, "noglc"),
    ("gfx950", "buffer_load_dword v[1:2], v2, s[4:7], s0 offen tfe", 48, "'tfe' is not a modifier"),
])
def test_refusals_name_the_flag_where_llvm_refuses(arch, line, col, says):
    assert mc_encodings([line], arch)[0] is None
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble(line, arch)
    first = str(e.value).splitlines()[0]
    assert first.startswith(f"1:{col}: ") and says in first, first



@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_cdna_smem_nv_bit_prints_as_llvm(arch):
    """SMEM's NV bit (manual field NV, bit 15): LLVM 22 prints no nv for it on CDNA."""
    from tests.llvm_tools import mc_disassembly
    word = bytes.fromhex("418002c010000000")     # s_load_dword s1, s[2:3], 0x10 with NV set
    assert dsl.disassemble(word, arch).strip() == mc_disassembly([word], arch)[0]

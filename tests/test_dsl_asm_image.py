"""The image encoder (dsl/encode_image.py: MIMG on gfx1100/gfx1151, VIMAGE/VSAMPLE on gfx1201)
against LLVM 22: every image row of the shared corpora (gfx1100, wave64 too, gfx1151, gfx1201)
that LLVM's assembler re-encodes must assemble to its bytes, and every row it refuses must be
refused here (the corpora are LLVM 22's disassembly of random bytes, ../shared/conformance/llvm);
mutated corpus lines, and lines written for this test (NSA lists, the short dims, ray queries,
each flag), against llvm-mc-22's bytes; wrong widths, bad dims and dmasks against its refusals,
with our error at the line:column llvm-mc-22 reports (the operand no form takes; the mnemonic for
its checks of the whole instruction, a data or address size) and naming the operand at fault
(skipped without llvm-mc-22)."""
from __future__ import annotations

import re

import pytest

from dsl import assemble
from dsl.asm_parse import AsmError

from .llvm_tools import mc_encodings, mc_errors
from .test_dsl_llvm_corpus import corpus

def _image_rows(name: str):
    return [(hx, text, reenc) for fam, hx, text, reenc in corpus(name) if text.startswith("image_")]


@pytest.mark.parametrize("name", ["gfx1100", "gfx1100-w64", "gfx1151", "gfx1201"])
def test_every_image_row_assembles_to_llvm_bytes_or_is_refused_as_by_llvm(name):
    arch, wave = name.split("-")[0], 64 if name.endswith("-w64") else 32
    ok = total = refused = refused_too = 0
    wrong, accepted = [], []
    for hx, text, reenc in _image_rows(name):
        try:
            out = assemble(text, arch, wave_size=wave).hex()
        except AsmError as e:
            out = f"error: {str(e).splitlines()[0]}"
        if reenc == "-":                 # LLVM's assembler refuses its own disassembly
            refused += 1
            if out.startswith("error: "):
                refused_too += 1
            else:
                accepted.append(f"{text!r} -> {out}")
            continue
        total += 1
        if out == reenc:
            ok += 1
        else:
            wrong.append(f"{text!r}: want {reenc} got {out}")
    print(f"\n{name}: image rows assembled to LLVM's bytes {ok}/{total}; rows LLVM refuses refused here "
          f"{refused_too}/{refused}")
    assert total > 800 and refused > 500
    assert not wrong, "\n".join(wrong[:20])
    assert not accepted, "accepted what LLVM 22 refuses:\n" + "\n".join(accepted[:20])


GFX11_LINES = [
    "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:2D",
    "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:1D_ARRAY",
    "image_load v[0:3], v[4:6], s[0:7] dmask:0xf dim:CUBE",
    "image_load v[0:3], v[4:7], s[0:7] dmask:0xf dim:2D_MSAA_ARRAY",
    "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm glc slc dlc",
    "image_load v0, v4, ttmp[4:11] dmask:0x1 dim:SQ_RSRC_IMG_2D r128 a16",
    "image_load v[0:1], v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D tfe lwe d16",
    "image_load v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D lwe",
    "image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D",
    "image_load v[0:3], [v4], s[0:7] dmask:0xf dim:1D",
    "image_load v[0:3], [v4, v9, v7], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_3D",
    "image_sample v[0:3], [v4, v5, v6], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
    "image_sample_d v[0:3], [v4, v5, v6, v7, v[8:9]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_sample_d v[0:3], v[4:11], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_sample_d v[0:3], v[4:9], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_sample_c_d_cl_o v[0:3], v[4:15], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
    "image_store v[0:1], v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D tfe",
    "image_sample v[0:1], v[1:4], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY",
    "image_sample_c_lz_o v[0:1], v[1:8], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY",
    "image_sample_c_d_cl_o v[0:1], [v1, v2, v3, v4, v[5:11]], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY",
    "image_sample_c_d_cl_o v[0:1], v[1:11], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY",
    "image_load_mip v[0:1], v[4:7], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA",
    "image_sample off, [v4, v5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D d16",
    "image_sample off, v[4:5], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D",
    "image_sample_c_lz_o off, [v4, v5, v6], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_1D tfe lwe",
    "image_atomic_cmpswap v[0:2], v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D glc tfe",
    "image_atomic_add v[0:1], v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D glc",
    "image_atomic_add v[0:2], v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D tfe",
    "image_atomic_cmpswap v[0:4], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D tfe",
    "image_msaa_load v[0:4], v[4:7], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY tfe",
    "image_gather4 v[0:1], v[4:5], ttmp[0:7], s[8:11] dmask:0x2 dim:SQ_RSRC_IMG_2D d16",
    "image_get_resinfo v[0:3], v4, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D_MSAA",
    "image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]",
    "image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16]], s[4:7] a16",
    "image_bvh64_intersect_ray v[4:7], [v[9:10], v11, v[12:14], v[15:17], v[18:20]], s[4:7]",
]

GFX12_LINES = [
    "image_sample off, [v4, v5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_sample_c_d off, [v4, v5, v6, v7], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_1D",
    "image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D th:TH_LOAD_NT scope:SCOPE_SE",
    "image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D scope:SCOPE_SE th:TH_LOAD_NT",
    "image_load v[0:1], v4, s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_1D r128 a16 tfe d16",
    "image_store v[0:3], [v4, v5, v6], s[0:7] dmask:0xf dim:3D th:TH_STORE_NT",
    "image_atomic_add_uint v1, [v4, v5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN",
    "image_sample v[0:3], [v4, v5, v6], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D unorm lwe",
    "image_sample_d v[0:3], [v4, v5, v6, v[7:9]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
    "image_bvh_intersect_ray v[4:7], [v9, v10, v[11:13], v[14:16], v[17:19]], s[4:7]",
]


@pytest.mark.parametrize("arch,lines", [("gfx1100", GFX11_LINES), ("gfx1151", GFX11_LINES), ("gfx1201", GFX12_LINES)])
def test_written_image_lines_assemble_to_llvm_mc_bytes(arch, lines):
    want = mc_encodings(lines, arch)
    for line, w in zip(lines, want):
        assert w is not None, f"llvm-mc-22 refuses {line!r} (the list must hold lines it takes)"
        assert assemble(line, arch) == w, line


# (line, the operand or modifier our error points at, a word of our message); llvm-mc-22 must refuse each
GFX11_REFUSED = [
    ("image_load v[0:4], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D", "v[0:4]", "vdata"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D tfe", "v0", "vdata"),
    ("image_store v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D tfe", "v0", "vdata"),
    ("image_atomic_cmpswap v[0:1], v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D glc", "v[0:1]", "vdata"),
    ("image_atomic_or v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D", "v[0:3]", "atomic sends"),
    ("image_load v[0:3], v[4:6], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D", "v[4:6]", "vaddr"),
    ("image_load v[0:3], v[4:7], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[4:7]", "vaddr"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D a16", "v[4:5]", "vaddr"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x1 dim:CUBE", "v[4:5]", "vaddr"),
    ("image_sample_c_d_o v[0:3], v[4:15], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[4:15]", "vaddr"),
    ("image_sample_d v[0:3], [v4, v5, v6, v7, v[8:9]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[8:9]", "vaddr"),
    ("image_sample v[0:3], [v4, v[5:6]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[5:6]", "vaddr"),
    ("image_sample v[0:3], [v4, v5], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D a16", "[v", "vaddr"),
    ("image_sample_c v[0:1], v[1:5], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "v[1:5]", "no form"),
    ("image_sample_c v[0:1], v[1:4], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "v[1:4]", "vaddr"),
    ("image_sample v[0:1], [v1, v2, v3, v4], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "dim", "no form"),
    ("image_load_mip v[0:1], v[4:8], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "v[4:8]", "no form"),
    ("image_sample_c_lz_o v[0:1], v[1:6], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY", "v[1:6]", "asks for 8"),
    ("image_atomic_add v0, v[4:5], s[0:7] dmask:0x2 dim:SQ_RSRC_IMG_2D glc", "dmask", "atomic"),
    ("image_atomic_add v0, v[4:5], s[0:7] dim:SQ_RSRC_IMG_2D", "image_atomic_add", "atomic"),
    ("image_gather4 v[0:3], v[4:5], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D", "dmask", "one bit"),
    ("image_msaa_load v[0:3], v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D", "dim", "MSAA"),
    ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_4D", "dim", "dim"),
    ("image_load v[0:3], v4, s[0:7] dmask:0xf", "image_load", "missing dim"),
    ("image_load v[0:3], v[4:5], s[0:3] dmask:0xf dim:SQ_RSRC_IMG_2D r128", "s[0:3]", "rsrc"),
    ("image_load v[0:3], v[4:5], null dmask:0xf dim:SQ_RSRC_IMG_2D", "null", "rsrc"),
    ("image_sample v[0:3], v[4:5], s[0:7], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D", "s[8:15]", "samp"),
    ("image_load v[0:3], v[4:5], s[1:8] dmask:0xf dim:SQ_RSRC_IMG_2D", "s[1:8]", "rsrc"),
    ("image_load v0, v[254:256], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_3D", "v[254:256]", "vaddr"),
    ("image_atomic_add v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D d16", "d16", "d16"),
    ("image_get_lod v0, v[4:5], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D d16", "d16", "d16"),
    ("image_load_pck v0, v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D d16", "d16", "d16"),
    ("image_sample off, [v4, v5], s[0:7], s[8:11] dmask:0x2 dim:SQ_RSRC_IMG_2D", "dmask", "without a result"),
    ("image_load off, v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D", "off", "off"),
    ("image_gather4 off, [v4, v5], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D", "off", "off"),
    ("image_store_mip_pck v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D d16", "d16", "d16"),
    ("image_gather4 v[0:2], v[4:5], s[0:7], s[8:11] dmask:0x2 dim:SQ_RSRC_IMG_2D tfe d16", "v[0:2]", "d16 tfe"),
    ("image_gather4 v[0:3], v[4:5], s[0:7], s[8:11] dmask:0x2 dim:SQ_RSRC_IMG_2D tfe d16", "v[0:3]", "d16 tfe"),
    ("image_gather4 v[0:4], v[4:5], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D", "v[0:4]", "vdata"),
    ("image_gather4 v[0:3], v[4:6], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D", "v[4:6]", "vaddr"),
    ("image_atomic_add v[0:1], v[4:6], s[0:7] dmask:0x2 dim:SQ_RSRC_IMG_2D", "v[0:1]", "vdata"),
    ("image_atomic_add v0, v[4:6], s[0:7] dmask:0x2 dim:SQ_RSRC_IMG_2D", "v[4:6]", "vaddr"),
    ("image_msaa_load v[0:4], v[4:5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA tfe", "v[4:5]", "vaddr"),
    ("image_msaa_load v[0:4], v[4:6], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D", "dim", "MSAA"),
    ("image_load v[0:5], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D tfe", "v[0:5]", "vdata"),
    ("image_sample v[0:3], [v4, v5, v[6:7]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[6:7]", "vaddr"),
    ("image_sample_d v[0:3], [v4, v5, v6, v7, v8], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "[v4", "vaddr"),
    ("image_sample_d v[0:3], [v4, v5, v6, v7, v[8:13]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D", "v[8:13]",
     "vaddr"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D a16 r128", "r128", "r128"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D nv", "nv", "nv"),
    ("image_load v0, v[4:5], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_LOAD_NT", "th", "th"),
    ("image_bvh_intersect_ray v[4:7], v[9:19], s[4:11]", "s[4:11]", "rsrc"),
    ("image_bvh_intersect_ray v[4:7], v[9:19], s[4:7] tfe", "tfe", "tfe"),
]

GFX12_REFUSED = [
    ("image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D", "v[4:5]", "vaddr"),
    ("image_load v[0:1], v4, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D", "v[0:1]", "vdata"),
    ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:2D_ARRAY", "[v", "vaddr"),
    ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D glc", "glc", "glc"),
    ("image_atomic_add_uint v1, [v4, v5], s[0:7] dmask:0x4 dim:SQ_RSRC_IMG_2D", "dmask", "atomic"),
    ("image_msaa_load v[0:3], [v4, v5, v6], s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_3D", "dim", "MSAA"),
    ("image_load v[0:3], [v4, v5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D nv", "nv", "nv"),
    ("image_bvh_intersect_ray v[4:7], v[9:19], s[4:7]", "v[9:19]", "vaddr"),
    ("image_gather4 v[0:4], [v4, v5], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D", "v[0:4]", "vdata"),
    ("image_msaa_load v[0:4], [v4, v5], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA tfe", "[v4, v5]", "vaddr"),
    ("image_atomic_add_uint v[0:1], [v4, v5], s[0:7] dmask:0x2 dim:SQ_RSRC_IMG_2D", "v[0:1]", "vdata"),
]

# line: (our column, why LLVM 22's differs)
COLUMN_DIFFERS = {
    "image_sample v[0:1], [v1, v2, v3, v4], s[0:7], s[8:11] dmask:0x3 dim:SQ_RSRC_IMG_2D_MSAA_ARRAY":
        (66, "a list longer than any form of the instruction: LLVM says 'not a valid operand.' at the first "
             "modifier; ours names the dim that asks for it"),
    "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_4D": (45, "LLVM points past `dim:` at the value"),
}


@pytest.mark.parametrize("arch,cases", [("gfx1100", GFX11_REFUSED), ("gfx1151", GFX11_REFUSED), ("gfx1201", GFX12_REFUSED)])
def test_wrong_widths_dims_and_dmasks_are_refused_as_by_llvm_mc(arch, cases):
    lines = [line for line, _, _ in cases]
    llvm = mc_errors(lines, arch)
    for i, (line, at, word) in enumerate(cases):
        assert i in llvm, f"llvm-mc-22 takes {line!r} (the list must hold lines it refuses)"
        with pytest.raises(AsmError) as e:
            assemble(line, arch)
        message = str(e.value).splitlines()[0]
        column = COLUMN_DIFFERS[line][0] if line in COLUMN_DIFFERS else llvm[i][0]
        assert message.startswith(f"1:{column}: "), (line, message, llvm[i])
        assert at in message.split(": ", 1)[1] and word in message, (line, message)     # the operand at fault


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_cdna_has_no_image_instructions_as_in_llvm(arch):
    """CDNA3/CDNA4 have no image instructions: llvm-mc-22 says "instruction not supported on this
    GPU"; our gfx9 assembler refuses the mnemonic."""
    line = "image_load v[0:3], v[4:5], s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D"
    assert "not supported" in mc_errors([line], arch)[0][1]
    with pytest.raises(AsmError, match=r"^1:1: .*image_load"):
        assemble(line, arch)


# LLVM 22 takes an NSA list whose last address is wider than the address asks for when the list
# holds as many addresses as the address has words (image_sample_c_b_cl ... [v1, v2, v3, v4,
# v[5:6]] dim:SQ_RSRC_IMG_1D_ARRAY: five words, six VGPRs written) and encodes the range's first
# register: it counts the list's entries, not their widths, where the words fit the NSA fields.
# We hold every address VGPR to the width the instruction reads and refuse it.
_WIDER_LAST = re.compile(r"vaddr: .*?\[((?:1, )*)(\d+)\] address VGPRs where .* asks for \[((?:1, )*)1\]")


def _wider_last_nsa_address(message: str) -> bool:
    m = _WIDER_LAST.search(message)
    return bool(m) and m.group(1) == m.group(3) and int(m.group(2)) > 1


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201"])
def test_mutated_image_lines_are_answered_as_by_llvm_mc(arch):
    """Image rows LLVM re-encodes, mutated as tests/asm_mutations.py mutates lines (operands
    dropped, added, swapped, other mnemonics, modifiers dropped): each is encoded to llvm-mc-22's
    bytes or refused where it refuses, but for the one class above."""
    import collections
    import random

    from . import asm_mutations as M
    from .llvm_tools import tool
    tool("llvm-mc")
    lines = [text for _, text, reenc in _image_rows(arch) if reenc != "-"]
    mnemonics = sorted({M.split_line(x)[0] for x in lines})
    rng, pairs, seen = random.Random(2026), [], set()
    while len(pairs) < 1500:
        text, kind = M.mutate(rng.choice(lines), rng, mnemonics)
        if text not in seen:
            seen.add(text)
            pairs.append((text, kind))
    want = mc_encodings([text for text, _ in pairs], arch)
    counts, bad = collections.Counter(), []
    for (text, kind), llvm in zip(pairs, want):
        try:
            got, message = assemble(text, arch), ""
        except AsmError as e:
            got, message = None, str(e).splitlines()[0]
        if got == llvm:
            counts["agree"] += 1
        elif got is None and llvm is not None and _wider_last_nsa_address(message):
            counts["wider last NSA address refused"] += 1
        else:
            bad.append(f"{text!r} [{kind}]: llvm {llvm.hex() if llvm else 'refuses'}, ours {got.hex() if got else message}")
    print(f"\n{arch}: {dict(counts)} of {len(pairs)} mutated image lines")
    assert not bad, "\n".join(bad[:20])

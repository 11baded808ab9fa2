"""gfx950 (CDNA4) disassembly against LLVM 22's differential corpus
(../shared/conformance/llvm/gfx950.tsv.gz, random encodings balanced by encoding family), through
the gfx9 printer that CDNA3 uses: disassemble(bytes) must print LLVM's text. Agreement is printed
per family; the floor is the level reached, so that any regression fails. The same for assembly
(assemble(text) == LLVM's re-encoding)."""
from __future__ import annotations

from dsl import disassemble
from .test_dsl_llvm_corpus_cdna3 import assembly_agreement, disassembly_agreement

FLOOR = 1.0     # 28800/28800 rows agree


def test_gfx950_disassembly_matches_llvm():
    rate, rows = disassembly_agreement("gfx950")
    assert rows == 28800
    assert rate >= FLOOR


ASM_FLOOR = 0.9999  # 24873/24874 of the rows LLVM's assembler accepts (99.996%)


def test_gfx950_assembly_matches_llvm():
    """Through the gfx9 assembler CDNA3 uses; the rows LLVM's assembler refuses are counted apart."""
    rate, rows, accepted = assembly_agreement("gfx950")
    assert rows == 24874
    assert rate >= ASM_FLOOR
    assert accepted == 0        # every row LLVM's assembler refuses is refused


def test_gfx950_bitop3_is_what_llvm_mc_encodes():
    """v_bitop3's truth table lives in OMOD, ABS and NEG, so it takes no source or output
    modifiers, nor clamp: encodings and refusals as llvm-mc-22 gives them for gfx950 (LLVM truncates an
    out-of-range bitop3 to 8 bits; we refuse it)."""
    import pytest
    from dsl import assemble
    from .llvm_tools import mc_encodings
    good = ["v_bitop3_b32 v1, v2, v3, v4 bitop3:0xff", "v_bitop3_b32 v1, s2, 5, v4 bitop3:7",
            "v_bitop3_b16 v1, v2, v3, v4 bitop3:0x41 op_sel:[1,0,1,1]", "v_bitop3_b32 v1, v2, v3, v4"]
    bad = ["v_bitop3_b32 v1, -v2, v3, v4", "v_bitop3_b32 v1, |v2|, v3, v4", "v_bitop3_b32 v1, v2, v3, v4 mul:2",
           "v_bitop3_b32 v1, v2, v3, v4 clamp"]
    theirs = mc_encodings(good + bad, "gfx950")
    assert [assemble(t, "gfx950") for t in good] == theirs[:len(good)]
    assert theirs[len(good):] == [None] * len(bad)
    for t in bad + ["v_bitop3_b32 v1, v2, v3, v4 bitop3:256"]:
        with pytest.raises(ValueError):
            assemble(t, "gfx950")


def test_gfx950_mfma_ld_scale_is_what_llvm_mc_encodes():
    """v_mfma_ld_scale_b32 (no destination, two 32-bit sources, op_sel / op_sel_hi only): encodings
    and refusals as llvm-mc-22 gives them for gfx950, and the disassembly of its bytes."""
    import pytest
    from dsl import assemble
    from .llvm_tools import mc_encodings
    good = ["v_mfma_ld_scale_b32 v1, v2", "v_mfma_ld_scale_b32 s1, 64 op_sel:[1,0]",
            "v_mfma_ld_scale_b32 v1, v2 op_sel:[1,1] op_sel_hi:[0,0]"]
    bad = ["v_mfma_ld_scale_b32 -v1, v2", "v_mfma_ld_scale_b32 v1, |v2|", "v_mfma_ld_scale_b32 v1, v2 neg_lo:[1,0]",
           "v_mfma_ld_scale_b32 v1, v2 clamp", "v_mfma_ld_scale_b32 v1, 0x1234"]
    theirs = mc_encodings(good + bad, "gfx950")
    ours = [assemble(t, "gfx950") for t in good]
    assert ours == theirs[:len(good)]
    assert [disassemble(b, "gfx950") for b in ours] == good
    assert theirs[len(good):] == [None] * len(bad)
    for t in bad:
        with pytest.raises(ValueError):
            assemble(t, "gfx950")


def test_gfx950_permlane_swap_flags_are_what_llvm_mc_encodes():
    """v_permlane16/32_swap_b32_e64 spell OPSEL[1:0] as bound_ctrl / fi (bound_ctrl:0 sets its bit
    too); op_sel, clamp and the flags in the other order are refused, as llvm-mc-22 does for gfx950."""
    import pytest
    from dsl import assemble
    from .llvm_tools import mc_encodings
    good = ["v_permlane32_swap_b32_e64 v0, v37 bound_ctrl:1 fi:1", "v_permlane16_swap_b32_e64 v0, v37 fi:1",
            "v_permlane32_swap_b32_e64 v0, v37 fi:0", "v_permlane32_swap_b32_e64 v0, v37 bound_ctrl:0"]
    bad = ["v_permlane32_swap_b32_e64 v0, v37 fi:1 bound_ctrl:1", "v_permlane32_swap_b32_e64 v0, v37 op_sel:[1,0]",
           "v_permlane32_swap_b32_e64 v0, v37 clamp"]
    theirs = mc_encodings(good + bad, "gfx950")
    ours = [assemble(t, "gfx950") for t in good]
    assert ours == theirs[:len(good)]
    assert [disassemble(b, "gfx950") for b in ours] == [good[0], good[1], "v_permlane32_swap_b32_e64 v0, v37",
                                                        "v_permlane32_swap_b32_e64 v0, v37 bound_ctrl:1"]
    assert theirs[len(good):] == [None] * len(bad)
    for t in bad:
        with pytest.raises(ValueError):
            assemble(t, "gfx950")


def test_gfx9_inline_floats_of_16_bit_integer_sources_print_as_values():
    """LLVM 22 prints an inline float constant in a 16-bit integer source (v_ldexp_f16's exponent,
    v_add_u16) as its value on gfx942 and gfx950; these encodings are llvm-mc-22's for that text."""
    from .llvm_tools import mc_encodings
    lines = ["v_ldexp_f16_e64 v1, v2, 0.5", "v_add_u16_e32 v1, 0.5, v2", "v_add_u16_e64 v1, -2.0, v2"]
    for target in ("gfx942", "gfx950"):
        assert [disassemble(b, target) for b in mc_encodings(lines, target)] == lines


def test_gfx950_code_objects_reassemble_from_llvm_objdump_text():
    """Every instruction llvm-objdump-22 -d prints for the shared clang-compiled gfx950 code
    objects assembles back to the dwords it prints beside it (branch targets are numbers)."""
    import re
    from dsl import assemble
    from .conftest import SHARED
    from .llvm_tools import run, tool
    objdump = tool("llvm-objdump")
    paths = sorted((SHARED / "kernels").glob("*/gfx950.hsaco"))
    n, bad = 0, []
    for path in paths:
        for line in run(objdump, "-d", str(path)).splitlines():
            m = re.match(r"^\t(\S.*?)\s*// [0-9A-F]{12}: ((?:[0-9A-F]{8} ?)+)", line)
            if not m:
                continue
            text = re.sub(r" <[^>]*>$", "", m.group(1))
            want = b"".join(int(w, 16).to_bytes(4, "little") for w in m.group(2).split())
            n += 1
            try:
                got = assemble(text, "gfx950")
            except ValueError as e:
                got = str(e).encode()
            if got != want:
                bad.append((path.parent.name, text, want.hex(), got))
    print(f"\n{n} instructions of {len(paths)} gfx950 code objects reassembled, {len(bad)} differ")
    assert len(paths) == 22 and n > 5000 and bad[:10] == []

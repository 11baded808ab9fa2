"""CDNA (gfx942, gfx950) refusals point at the operand at fault: when every encoding of a VALU
mnemonic refuses a line, the error reported is the one whose encoding read furthest along the
line (a wrong carry-in, a misaligned pair, an operand too many), not the first encoding's
complaint. Checked against the line:column llvm-mc-22 prints for the same malformed lines
(skipped without it); where the columns differ the line is listed with the reason."""
from __future__ import annotations

import re
import subprocess

import pytest

import dsl

from . import asm_mutations as M

# malformed lines both assemblers refuse
LINES = [
    "v_addc_co_u32 v0, s[0:1], v1, v2, s2",
    "v_addc_co_u32 v0, s[0:1], v1, v2",
    "v_add_co_u32 v0, s0, v1, v2",
    "v_add_co_u32 v0, s[0:1], v1",
    "v_add_f32 v0, v1, 1.5",
    "v_add_f32 v0, v1, v2 omod:3",
    "v_add_f32 v0, v1, s[0:1]",
    "v_add_f32 v0, v1",
    "v_add_f32 v0, v1, v2, v3",
    "v_subb_co_u32 v0, s[0:1], v1, v2, s[1:2]",
    "v_cndmask_b32 v0, v1, v2, s0",
    "v_cmp_eq_f32 s0, v1, v2",
    "v_cmp_eq_f32 s[0:1], v1",
    "v_mac_f32 v0, v1, v2, v3",
    "v_add_u32 v0, vcc, v1, v2",
    "v_add_f32 v0, s1, s2 clamp dpp",
    "v_div_scale_f32 v0, s0, v1, v2, v3",
    "v_mad_u64_u32 v[0:1], s0, v1, v2, v[2:3]",
    "v_addc_co_u32 v0, s[0:1], v1, s2, s[4:5] mul:2",
    "v_addc_co_u32 v0, s[0:1], 1.5, v2, s[4:5]",
    "v_fma_f32 v0, v1, v2",
    "v_lshlrev_b32 v0, v1, v2, v3",
    "v_addc_co_u32 v0, s[0:1], v1, v2, s[4:5], s6",
    "v_sub_co_u32 v0, s[0:1], v1",
    "v_subrev_co_u32 v0, s1, v1, v2",
    "v_cndmask_b32 v0, v1, v2, s[1:2]",
    "v_cmp_lt_i32 s[0:1], v1, v2, v3",
    "v_mul_f32 v0, v1, v2 mul:3",
    "v_mul_f32 v0, v1, v2 div:4",
    "v_mul_f32 v0, v1, v2 mul:2 div:2",
    # DP ALU (a 64-bit operand): DPP takes row_newbcast alone; LLVM names the control
    "v_ceil_f64_dpp v[0:1], v[2:3] quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
    "v_cvt_f64_f32_dpp v[0:1], v2 row_shl:1 bound_ctrl:0",
    "v_fmac_f64_dpp v[0:1], v[2:3], v[4:5] row_mirror row_mask:0x3",
]

# line: (our column, why it differs from llvm-mc-22's). LLVM tries its encoding variants in turn
# and keeps the last variant's complaint (often the SDWA/DPP form's, which wants vcc), so its
# column can sit on an operand that is fine in the 64-bit form.
DIFFERENT = {
    "v_addc_co_u32 v0, s[0:1], v1, v2, s2":
        (35, "s2: the 64-bit carry-in is a register pair; LLVM names s[0:1], fine in the 64-bit form"),
    "v_addc_co_u32 v0, s[0:1], v1, v2":
        (1, "an operand missing (the carry-in): LLVM names s[0:1], its SDWA form's vcc slot"),
    "v_add_u32 v0, vcc, v1, v2":
        (24, "v_add_u32 has no carry-out on gfx9: the operand too many; LLVM says 'not valid for this "
             "GPU' at the mnemonic"),
    "v_add_f32 v0, s1, s2 clamp dpp":
        (28, "`dpp` is a modifier of no form without the _dpp suffix; LLVM names s1, its DPP form's "
             "VGPR slot"),
    "v_addc_co_u32 v0, s[0:1], 1.5, v2, s[4:5]":
        (36, "two scalar reads (the literal and s[4:5]) on a one-value constant bus, named at the last; "
             "LLVM names the literal first"),
    "v_addc_co_u32 v0, s[0:1], v1, v2, s[4:5], s6":
        (43, "s6 is the operand too many; LLVM names s[0:1], its SDWA form's vcc slot"),
}


def llvm_columns(lines: list[str], arch: str) -> dict[int, int]:
    """{line number: column} of llvm-mc's first error on each line."""
    p = subprocess.run([M.llvm_mc(), "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"],
                       input="\n".join(lines) + "\n", capture_output=True, text=True)
    out: dict[int, int] = {}
    for no, col in re.findall(r"^<stdin>:(\d+):(\d+): error", p.stderr, re.M):
        out.setdefault(int(no), int(col))
    return out


def our_column(line: str, arch: str) -> int:
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble(line, arch)
    message = str(e.value)
    m = re.match(r"^1:(\d+): ", message)
    assert m, message
    return int(m.group(1))


@pytest.mark.skipif(M.llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_refusals_name_the_operand_llvm_mc_names(arch, capsys):
    theirs = llvm_columns(LINES, arch)
    assert sorted(theirs) == list(range(1, len(LINES) + 1)), "every line must be one llvm-mc refuses"
    same, listed, wrong = 0, 0, []
    for no, line in enumerate(LINES, 1):
        ours = our_column(line, arch)
        if line in DIFFERENT:
            column, why = DIFFERENT[line]
            if ours == column and theirs[no] != column:
                listed += 1
                continue
            wrong.append(f"{line!r}: ours {ours}, llvm-mc {theirs[no]}, listed {column} ({why})")
        elif ours == theirs[no]:
            same += 1
        else:
            wrong.append(f"{line!r}: ours {ours}, llvm-mc {theirs[no]}")
    with capsys.disabled():
        print(f"\n{arch}: {same} of {len(LINES)} refusals at llvm-mc-22's column, {listed} listed as different")
    assert not wrong, "\n".join(wrong)
    assert same >= 2 * len(LINES) // 3


def test_a_wrong_carry_in_is_named_not_the_32_bit_forms_vcc():
    """The 64-bit form takes the carry-out pair; the carry-in s2 is what is wrong (a register
    pair is needed), not the 32-bit form's wish for vcc."""
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble("v_addc_co_u32 v0, s[0:1], v1, v2, s2", "gfx942")
    message = str(e.value)
    assert message.startswith("1:35: v_addc_co_u32: src2: s2 is 1 register (32 bits), this operand needs 2"), message
    assert "vcc" not in message.splitlines()[0], message


@pytest.mark.skipif(M.llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_output_modifiers_are_taken_as_llvm_mc_takes_them(arch):
    """mul:1, mul:2, mul:4, div:1, div:2 are the output modifiers (the ones are no modifier, in
    the 64-bit form); any other value, or mul and div together, is refused as LLVM refuses it."""
    lines = [f"v_mul_f32 v0, v1, v2 {m}" for m in
             ("mul:1", "mul:2", "mul:4", "div:1", "div:2", "mul:3", "mul:8", "div:4", "div:0", "mul:2 div:2")]
    for line, expected in zip(lines, M.llvm_encodings(lines, arch)):
        if expected is None:
            our_column(line, arch)
        else:
            assert dsl.assemble(line, arch) == expected, line


@pytest.mark.skipif(M.llvm_mc() is None, reason="llvm-mc-22 not installed")
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_dpp_and_sdwa_modifiers_without_a_suffix_pick_that_form_as_llvm_mc_does(arch):
    """Without _dpp/_sdwa, a DPP control (row_shl:1, quad_perm) or an SDWA select (dst_sel,
    src0_sel) asks for that form: the same bytes as llvm-mc-22, and its refusals refused."""
    lines = ["v_max_f32 v0, v1, v2 row_shl:1", "v_add_f32 v0, v1, v2 quad_perm:[1,0,3,2]",
             "v_add_f32 v0, v1, v2 dst_sel:WORD_1", "v_add_f32 v0, v1, v2 src0_sel:BYTE_1",
             "v_cmp_eq_f32 vcc, v1, v2 src0_sel:WORD_1", "v_cmp_eq_f32 s[0:1], v1, v2 src0_sel:WORD_1",
             "v_add_f32 v0, v1, v2 row_mask:0x1", "v_add_f32 v0, v1, v2 clamp row_shl:1",
             "v_add_f32 v0, s1, v2 row_shl:1"]
    expected = M.llvm_encodings(lines, arch)
    assert expected.count(None) == 3
    for line, want in zip(lines, expected):
        if want is None:
            our_column(line, arch)
        else:
            assert dsl.assemble(line, arch) == want, line

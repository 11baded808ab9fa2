"""Operand types where an instruction's pseudocode names none, from facts of the manual (not from
the instruction's name), checked two ways:

- against the manual's naming convention (RDNA4 manual, Table 3, page 13: "If an instruction has
  two suffixes (for example, _I32_F32), the first suffix indicates the destination type, the
  second the source type"; one suffix types every operand): for every VALU instruction of every
  family, each operand the pseudocode does not type takes the width and float-or-integer kind its
  name's suffix says, or the difference is listed in DIFFERENCES with its reason;
- against llvm-mc-22: constants whose encoding depends on the operand's type (an f16 bit pattern
  is an inline constant only on a 16-bit float operand, 1.0 is one register or a pair, a 64-bit
  float takes a literal as its high dword) on the instructions concerned, our bytes against its.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import dsl
import isa
from dsl.signature import valu_signature
from isa.effects import effects
from isa.gen.parse import operand_types as accessor_types

from .llvm_tools import mc_encodings

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]

# the manual's data-type suffixes (Table 3: B bits, F float, I signed, U unsigned, BF bfloat; the
# 8-, 6- and 4-bit formats and IU, signed or unsigned as NEG says, name values narrower than a
# register and are not compared)
_SUFFIX = re.compile(r"_((?:[FIUB]|BF|FP|IU)(?:4|6|8|16|32|64))(?=_|$)")
_REGISTER_TYPE = re.compile(r"^(?:[fiub]|bf)(?:16|32|64)$")

# (name, operand): why the type differs from the name's suffix. Each is checked against LLVM 22
# where LLVM can tell: the conformance corpora (tests/test_dsl_llvm_corpus*.py: gfx942/gfx950/gfx1201
# rows of these instructions print and encode as LLVM's), test_dsl_mix_constants.py for the mixes.
_CONCAT = ("the code writes the whole register, { tmp.f16, D0[15 : 0] } or { 16'0, tmp.f16 }: a "
           "32-bit result")
_MIX = ("the code reads each source as S[i].f, a 32-bit float, or one f16 half of it as OPSEL_HI "
        "says: a float register operand; a constant on it is an f16 (signature.constant_operand), "
        "as llvm-mc-22 encodes it (test_dsl_mix_constants.py)")
_INDEX = ("S2 is the sparse index ('index set from S2'), not a matrix of the name's type: a VGPR of "
          "index bits (llvm-mc-22 refuses constants and SGPRs there, as we do)")
_PIECE = ("the code writes one half or byte of the register (VGPR[laneId][VDST.u32][15 : 0].f16 or "
          "[31 : 16] as OPSEL says, the rest preserved): the operand is the 32-bit register")
_WHOLE = ("the code writes D0 = tmp.b32, the whole register (32 bits; a destination's float kind "
          "changes nothing LLVM or the emulator reads)")
DIFFERENCES: dict[tuple[str, str], str] = {
    **{(name, "vdst"): _CONCAT for name in ("V_MAD_LEGACY_F16", "V_MAD_LEGACY_U16", "V_MAD_LEGACY_I16",
                                            "V_FMA_LEGACY_F16", "V_DIV_FIXUP_LEGACY_F16", "V_MADMK_F16",
                                            "V_MADAK_F16")},
    **{(name, f"src{i}"): _MIX for name in ("V_FMA_MIXLO_F16", "V_FMA_MIXHI_F16", "V_MAD_MIXLO_F16",
                                            "V_MAD_MIXHI_F16") for i in range(3)},
    **{(name, "src2"): _INDEX for name in ("V_SWMMAC_F32_16X16X32_F16", "V_SWMMAC_F32_16X16X32_BF16",
                                           "V_SWMMAC_F16_16X16X32_F16", "V_SWMMAC_BF16_16X16X32_BF16")},
    **{(name, "vdst"): _PIECE for name in ("V_CVT_SR_F16_F32", "V_CVT_SR_BF16_F32")},
    **{(name, "vdst"): _WHOLE for name in ("V_CVT_SCALEF32_F16_FP8", "V_CVT_SCALEF32_F16_BF8",
                                           "V_CVT_SCALEF32_F32_FP8", "V_CVT_SCALEF32_F32_BF8")},
}


def _suffix_types(name: str) -> list[str]:
    return [t.lower() for t in _SUFFIX.findall(name)]


def _valu(spec):
    return [d for d in spec.instructions if d.format.startswith("VOP") and d.format != "VOPD" or d.format == "VINTERP"]


def _untyped_operands(d) -> list[str]:
    """The signature's operands whose value the pseudocode's accessors (S0.f16, D0.u64) do not
    type and that it does not read or write in pieces (a packed result, bit ranges of a source:
    those have the pieces' types)."""
    typed = accessor_types(d.pcode)
    fx = effects(d.pcode)
    out = []
    if "D0" not in typed and not (fx.result_pieces >= 2 or fx.result_concat):
        out.append("vdst")
    for i in range(3):
        sliced = any(key == f"S{i}" and hi is not None for key, _, hi, _ in fx.uses)
        if f"S{i}" not in typed and not sliced:
            out.append(f"src{i}")
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_untyped_operands_follow_the_naming_convention(family):
    """Every operand the pseudocode leaves untyped has the width and kind (float or integer) the
    name's suffix gives it: the result the first suffix, a source the last."""
    spec = isa.load(family)
    checked, wrong = 0, []
    # CDNA's MFMA / SMFMAC: operands are blocks of matrix elements the name types (D = A x B + C), not values
    matrices = {row[0] for row in spec.tables.get("mfma") or ()}
    for d in _valu(spec):
        suffixes = _suffix_types(d.name)
        if not suffixes or not d.pcode or d.name in matrices:
            continue
        sig = valu_signature(d)
        ops = {o.name: o for o in sig.dsts + sig.srcs}
        for name in _untyped_operands(d):
            op = ops.get(name)
            if op is None or op.is_mask or op.registers_only:
                continue
            want = suffixes[0] if name == "vdst" else suffixes[-1]
            if not _REGISTER_TYPE.match(want) or op.bits > 64:
                continue
            bits = int(re.sub(r"\D", "", want))
            got = (op.bits, op.is_float)
            expected = (bits, want.startswith(("f", "bf")))
            checked += 1
            if got != expected and (d.name, name) not in DIFFERENCES:
                wrong.append(f"{d.name} ({d.format}) {name}: {got} where the name says {want}")
    print(f"{family}: {checked} untyped operands checked against the names' suffixes")
    assert checked > 20
    assert not wrong, "\n".join(wrong)


def _compare_lines(family: str, gfx9: bool) -> list[str]:
    """A VOPC line per constant compare (V_CMP_F_*, V_CMP_T(RU)_*: no source in their code) with a
    constant whose encoding depends on the source type, in src0, and a register of the type's
    width in src1."""
    spec = isa.load(family)
    consts = {"f16": "0x3c00", "f32": "0x3f800000", "f64": "0x3ff00000", "i16": "-17", "u16": "0x3c00",
              "i32": "0x3c00", "u32": "-17", "i64": "-17", "u64": "0x3f800000"}
    lines = []
    for name in spec.report["operand_types_from_compare_family"]:
        t = _suffix_types(name)[-1]
        reg = "v[2:3]" if t.endswith("64") else "v2.l" if t.endswith("16") and not gfx9 and family != "rdna4" else "v2"
        dst = "" if name.startswith("V_CMPX") and not gfx9 else "vcc, "
        lines.append(f"{name.lower()}_e32 {dst}{consts[t]}, {reg}")
        lines.append(f"{name.lower()}_e64 {dst.replace('vcc', 's[4:5]')}{consts[t]}, {reg}")
    return lines


@pytest.mark.parametrize("arch,family", [("gfx1100", "rdna3"), ("gfx1151", "rdna3.5"), ("gfx942", "cdna3"),
                                         ("gfx950", "cdna4")])
def test_constant_compares_take_their_family_types(arch, family):
    """V_CMP_F_F64 reads a register pair, V_CMP_T_F16 takes 0x3c00 as the inline constant 1.0:
    the types of their compare family (the opcode next to them), as llvm-mc-22 encodes them."""
    gfx9 = family.startswith("cdna")
    lines = _compare_lines(family, gfx9)
    assert len(lines) >= 50
    mattr = None if gfx9 else "+wavefrontsize64"
    want = mc_encodings(lines, arch, mattr)
    wrong = []
    for line, llvm in zip(lines, want):
        got = _ours(line, arch, gfx9)
        if got != llvm:
            wrong.append(f"{line}: {got and got.hex()} where llvm-mc-22 gives {llvm and llvm.hex()}")
    assert sum(x is not None for x in want) >= 40
    assert not wrong, "\n".join(wrong[:20])


def _ours(line: str, arch: str, gfx9: bool) -> bytes | None:
    """Our bytes of a line, None where we refuse it (as llvm-mc-22's None)."""
    try:
        return dsl.assemble(line, arch, None if gfx9 else 64)
    except dsl.AsmError:
        return None


@pytest.mark.parametrize("arch,reg", [("gfx1100", "v1.l"), ("gfx1201", "v1"), ("gfx942", "v1")])
def test_class_mask_is_typed_as_the_tested_value(arch, reg):
    """V_CMP_CLASS_F16's mask (S1.u[0..9] in the code) takes constants as its S0 is typed, f16:
    0x3c00 is the inline constant 1.0 and 0.5 encodes as 240 (llvm-mc-22; gfx942's VOP3 refuses
    the literal an integer mask would need, and so do we)."""
    gfx9 = arch.startswith("gfx9")
    lines = [f"v_cmp_class_f16_e64 s[4:5], {reg}, 0x3c00", f"v_cmp_class_f16_e64 s[4:5], {reg}, 0.5",
             f"v_cmpx_class_f16_e64 {'s[4:5], ' if gfx9 else ''}{reg}, 0x3c00"]
    mattr = None if gfx9 else "+wavefrontsize64"
    want = mc_encodings(lines, arch, mattr)
    assert want[1] is not None
    for line, llvm in zip(lines, want):
        assert _ours(line, arch, gfx9) == llvm, line


def test_cvt_f32_bf16_converts_the_bf16_value():
    """CDNA4's V_CVT_F32_BF16 (erratum cdna4-cvt-f32-bf16-input-type: bf16_to_f32(S0.bf16)) widens
    the BF16 in the low half of its source to the f32 with those 16 bits on top, and takes float
    input modifiers and constants as a BF16 operand (numpy: bits << 16)."""
    from tests.test_emu_cdna import LANES, run
    x = (LANES * np.uint32(0x3c01a753) + np.uint32(0x3f8035aa)).astype(np.uint32)
    body = """
    s_mov_b32 s20, 0x3c01a753
    v_mul_lo_u32 v2, v0, s20
    v_add_u32 v2, 0x3f8035aa, v2
    v_cvt_f32_bf16 v6, v2
    v_cvt_f32_bf16_e64 v7, -|v2|
    v_cvt_f32_bf16 v8, 0.5
    v_lshlrev_b32 v1, 4, v0
    global_store_dwordx3 v1, v[6:8], s[4:5]
    """
    got = run(body, 4, "gfx950")
    want = (x & np.uint32(0xFFFF)) << np.uint32(16)
    assert (got[:, 0] == want).all()
    assert (got[:, 1] == (want | np.uint32(0x8000_0000))).all()
    assert (got[:, 2] == np.uint32(0x3F00_0000)).all()


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5"])
def test_vopd_halves_take_their_twins_types(family):
    """A VOPD half (no code of its own) has the operand types of the VOP1/VOP2 instruction it
    performs (the generator's operand_types_from_vopd_twin), whose signature the encoder and
    emulator use: the half's own signature agrees with it operand by operand. (RDNA4's manual
    gives the halves code of their own.)"""
    spec = isa.load(family)
    twins = spec.report["operand_types_from_vopd_twin"]
    assert len(twins) >= 15
    for d in spec.instructions:
        if d.format != "VOPD" or d.name not in twins:
            continue
        twin = next(x for x in spec.lookup(twins[d.name]) if x.format in ("VOP1", "VOP2", "VOP3"))
        own, theirs = valu_signature(d), valu_signature(twin)
        ops = own.dsts + own.srcs
        assert ops and [(o.bits, o.ftype, o.t16) for o in ops] == \
            [(o.bits, o.ftype, o.t16) for o in (theirs.dsts + theirs.srcs)[:len(ops)]], d.name


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_undescribed_rfe_restore_takes_llvms_operands(arch):
    """S_RFE_RESTORE_B64, which the CDNA manuals omit, reads a 64-bit and a 32-bit source (the
    errata's code states only those reads): encodings and text as llvm-mc-22's."""
    lines = ["s_rfe_restore_b64 s[0:1], s2", "s_rfe_restore_b64 s[4:5], -1", "s_rfe_restore_b64 s[0:1], 0x12345"]
    for line, llvm in zip(lines, mc_encodings(lines, arch)):
        assert llvm is not None and _ours(line, arch, True) == llvm, line
        assert dsl.disassemble(llvm, arch) == line
    from isa.facts import behaviour_unknown
    assert behaviour_unknown(isa.load(arch).lookup("s_rfe_restore_b64")[0])


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5", "rdna4"])
def test_message_replies_take_the_width_their_description_gives(family):
    """s_sendmsg_rtn_b64's reply fills two SGPRs ('fills the upper bits of SDST with zero' for a
    32-bit reply), _b32's one: the scalar layout, against the names' suffix convention."""
    from isa.control import control
    from dsl.signature import scalar_layout
    replies = [d for d in isa.load(family).instructions if control(d).message_reply]
    assert len(replies) == 2
    for d in replies:
        assert scalar_layout(d)[0] == ("sdst", "SDST", int(_suffix_types(d.name)[-1][1:]) // 32), d.name

"""dsl.instr.Instr, the instruction value: the parser and the DSL build equal values for the same
instruction, it is immutable and hashes by value (not by where it was written), and once
encoded its definition and encoding are the format LLVM 22's corpus lists for the same line."""
from __future__ import annotations

import dataclasses
import gzip
import os
import random
from pathlib import Path

import pytest

from dsl.asm import encoder, parse
from dsl.instr import Instr, Modifiers
from dsl.operands import Reg, Special
from dsl.rdna3 import Kernel, s, v, v_add_f32, v_cndmask_b32, s_load_b64

SHARED = Path(os.environ.get("WAVESMITH_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def test_the_parser_and_a_constructed_value_agree():
    parsed = parse("  v_add_f32 v1, v2, 1.0 clamp  // comment")[0]
    built = Instr("v_add_f32", (Reg("v", 1), Reg("v", 2), 1.0), Modifiers(clamp=True))
    assert parsed == built and hash(parsed) == hash(built)
    assert (parsed.line, parsed.column) == (1, 3) and (built.line, built.column) == (0, 0)
    # the same instruction written elsewhere is the same value; another operand is not
    elsewhere = parse("\n\nv_add_f32 v1, v2, 1.0 clamp")[0]
    assert elsewhere == parsed and len({parsed, elsewhere, built}) == 1
    assert parse("v_add_f32 v1, v2, 2.0 clamp")[0] != parsed


def test_lists_in_operands_and_modifiers_hash():
    i = parse("v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]")[0]
    assert i.modifiers["op_sel"] == [1, 0]
    assert hash(i) == hash(parse("v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]")[0])


def test_an_instr_cannot_be_changed_in_place():
    i = parse("s_load_b64 s[2:3], s[0:1], 0x10 glc")[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        i.mnemonic = "s_load_b32"
    with pytest.raises(TypeError, match="read-only"):
        i.modifiers["glc"] = False
    with pytest.raises(TypeError, match="read-only"):
        i.modifiers.pop("glc")
    changed = dataclasses.replace(i, operands=(Reg("s", 4, 2),) + i.operands[1:])
    assert changed != i and i.operands[0] == Reg("s", 2, 2)


def test_a_dsl_call_builds_the_value_the_parser_reads():
    k = Kernel("gfx1100")
    k += v_cndmask_b32(v[1], v[2], v[3], Special("vcc_lo"))
    k += s_load_b64(s[2:3], s[0:1], 16)
    for item, line in zip(k.items, ["v_cndmask_b32 v1, v2, v3, vcc_lo", "s_load_b64 s[2:3], s[0:1], 16"]):
        parsed = parse(line)[0]
        assert dataclasses.replace(item.instr, defn=None, encoding=None) == parsed
        assert encoder("gfx1100").encode(parsed)[0] == item.data


def test_effects_need_a_chosen_instruction():
    with pytest.raises(ValueError, match="v_add_f32: no instruction chosen"):
        parse("v_add_f32 v1, v2, v3")[0].effects
    k = Kernel("gfx1100")
    k += v_add_f32(v[1], v[2], v[3])
    e = k.items[0].instr.effects
    assert e.reads == {"S0", "S1"} and e.full == {"D0"}


@pytest.mark.skipif(not (SHARED / "conformance/llvm/gfx1100.tsv.gz").exists(), reason="shared corpus absent")
def test_the_chosen_encoding_is_the_format_llvm_lists():
    """A Kernel item's Instr names the format LLVM 22's corpus gives the same line (its first
    column), for a sample of the scalar and vector rows LLVM re-encodes."""
    from dsl.kernel import build_namespace
    ns = build_namespace("gfx1100")
    rows = []
    with gzip.open(SHARED / "conformance/llvm/gfx1100.tsv.gz", "rt") as f:
        next(f)
        for line in f:
            family, _, text, reenc = line.rstrip("\n").split("\t")
            if reenc != "-" and family in ("SOP1", "SOP2", "SOPC", "VOP1", "VOP2", "VOP3", "VOPC", "SMEM", "DS"):
                rows.append((family, text))
    checked = 0
    for family, text in random.Random(7).sample(rows, 400):
        st = parse(text)[0]
        fn = ns.get(st.mnemonic)
        if fn is None or st.dual is not None:
            continue
        try:
            inst = fn(*st.operands, **st.modifiers)
        except (ValueError, TypeError):
            continue              # spellings the DSL writes differently (keywords, symbols)
        assert inst.instr.encoding == family, text
        assert inst.instr.defn.format == family
        checked += 1
    assert checked > 300


# ---------------------------------------------------------------- the gfx9 encoder takes the value

GFX9_LINES = [
    "v_add_f32_e64 v1, -|v2|, 0.5 clamp mul:2",
    "v_mov_b32_sdwa v1, sext(v2) dst_sel:BYTE_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1",
    "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xa bank_mask:0x5 bound_ctrl:0",
    "v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,1] op_sel_hi:[0,1,0] neg_lo:[1,0,0]",
    "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3",
    "s_waitcnt vmcnt(3) lgkmcnt(1)",
    "s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s3",
    "s_sendmsg sendmsg(MSG_GS, GS_OP_EMIT, 1)",
    "s_set_gpr_idx_on s4, gpr_idx(SRC0,DST)",
    "s_load_dwordx2 s[2:3], s[4:5], s6 offset:0x10 glc",
    "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,1,0,3,2)",
    "global_load_dword v1, v[2:3], off offset:-16 sc0 nt",
    "tbuffer_load_format_x v1, off, s[4:7], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offset:4",
]


def test_the_gfx9_encoder_takes_the_parsed_value_and_gives_llvms_bytes():
    from tests.llvm_tools import mc_encodings
    from dsl.asm_gfx9 import Gfx9Encoder
    from dsl.families import load_for_disassembly
    enc = Gfx9Encoder(load_for_disassembly("gfx942"))
    want = mc_encodings(GFX9_LINES, "gfx942")
    for line, expected in zip(GFX9_LINES, want):
        assert expected is not None, line
        assert enc.encode(parse(line)[0]) == (expected, None), line


def test_a_gfx9_error_is_placed_at_the_refused_operand():
    import dsl
    from dsl.asm import AsmError
    for line, column in (("v_add_f32 v1, v2, v[3:4]", 19), ("s_getreg_b32 s1, hwreg(HW_REG_FOO)", 18),
                         ("v_add_f32 v1, 1e40, v2", 15)):
        with pytest.raises(AsmError, match=rf"^1:{column}: "):
            dsl.assemble(line, "gfx942")


def test_gfx9_scalar_tuples_are_aligned_as_llvm_requires():
    """Scalar register pairs start even and wider tuples on a multiple of 4; llvm-mc-22 refuses the
    others ("invalid register alignment"), and so do we (the encoder used to drop the low bit)."""
    import dsl
    from dsl.asm import AsmError
    from tests.llvm_tools import mc_encodings
    lines = ["s_load_dwordx4 s[2:5], s[4:5], 0", "s_mov_b64 s[1:2], s[4:5]", "buffer_load_dword v1, off, s[2:5], 0",
             "v_add_f64 v[2:3], s[1:2], v[2:3]", "s_mov_b64 ttmp[1:2], s[4:5]", "s_load_dwordx4 s[4:7], s[4:5], 0"]
    for line, theirs in zip(lines, mc_encodings(lines, "gfx942")):
        if theirs is None:
            with pytest.raises(AsmError, match="scalar tuple starts at a multiple"):
                dsl.assemble(line, "gfx942")
        else:
            assert dsl.assemble(line, "gfx942") == theirs


SIZED_CONSTANTS = ["v_add_f32 v1, 0x3f800000, v2", "s_mov_b32 s0, 0x3f800000", "v_add_u32 v1, 0x3f800000, v2",
                   "v_add_f16 v1, 0x3c00, v2", "v_add_f16 v1, 0x3f800000, v2", "v_add_f32_e64 v1, 0x3f800000, v2",
                   "v_add_u16 v1, 0x12345, v2", "v_add_u16 v1, 0xffff, v2", "v_add_u16 v1, 0x3c00, v2",
                   "v_cvt_f32_f16 v1, 0x3c00", "v_cvt_f16_f32 v1, 0x3f800000", "v_mul_lo_u16 v1, -2, v2",
                   "v_add_u16 v1, -32768, v2", "v_mov_b32 v1, 0x3e22f983", "v_and_b32 v1, 0xbf800000, v2",
                   "v_add_f16_sdwa v1, 0x3c00, v2 dst_sel:WORD_1", "v_cndmask_b32 v1, 0x3f800000, v2, vcc",
                   "s_add_u32 s0, 0x40800000, s1", "v_fma_f16 v1, 0x3c00, v2, v3", "v_mad_u16 v1, 0x10000, v2, v3",
                   "v_add_f64 v[0:1], v[2:3], 0x3ff00000", "v_add_f64 v[0:1], v[2:3], 0x3ff0000000000000",
                   "s_mov_b64 s[0:1], 0x3ff0000000000000", "v_add_f16 v1, -17, v2", "v_add_f16 v1, 1e10, v2"]


def test_gfx9_integer_constants_are_read_at_the_operands_width_as_llvm_does():
    """An integer whose bits are an inline float's at the operand's width is that inline constant
    (32-bit operands of any type, 16-bit float ones), a 16-bit operand refuses a wider integer
    and a float outside f16's range, a 64-bit float operand reads an integer as its high dword
    (0x3ff00000 is 1.0): bytes or refusal as llvm-mc-22 on gfx942 (literals.py, as on RDNA)."""
    import dsl
    from dsl.asm import AsmError
    from tests.llvm_tools import mc_encodings
    for line, theirs in zip(SIZED_CONSTANTS, mc_encodings(SIZED_CONSTANTS, "gfx942")):
        if theirs is None:
            with pytest.raises(AsmError, match="does not fit in 16 bits|out of range for the operand's f16"):
                dsl.assemble(line, "gfx942")
        else:
            assert dsl.assemble(line, "gfx942") == theirs, line


# ---------------------------------------------------------------- the encoding is chosen once

@pytest.mark.parametrize("arch", ["gfx1100", "gfx942"])
def test_an_instr_with_a_chosen_definition_keeps_it(arch):
    """Where the Instr is built the encoding is chosen (the decoder from the bytes, the DSL and
    `select` by LLVM's rule: VOP2 before its VOP3 promotion); an encoder then encodes that
    definition and never chooses again. LLVM 22's bytes for the _e32 and _e64 spellings are the
    reference for both choices."""
    from tests.llvm_tools import mc_encodings
    enc = encoder(arch)
    plain = parse("v_add_f32 v1, v2, v3")[0]
    e32, e64 = mc_encodings(["v_add_f32_e32 v1, v2, v3", "v_add_f32_e64 v1, v2, v3"], arch)
    chosen, data, fix = enc.select(plain)
    assert (data, fix) == (e32, None) and chosen.defn.format == chosen.encoding == "VOP2"
    assert enc.encode(chosen) == (e32, None)
    vop3 = next(d for d in enc.spec.lookup("V_ADD_F32") if d.format in ("VOP3", "VOP3A"))
    assert enc.encode(dataclasses.replace(plain, defn=vop3, encoding=vop3.format)) == (e64, None)
    # a definition the mnemonic does not name is refused, not encoded
    sub = next(d for d in enc.spec.lookup("V_SUB_F32") if d.format == "VOP2")
    with pytest.raises(ValueError, match="V_SUB_F32 \\(VOP2\\) is not"):
        enc.encode(dataclasses.replace(plain, defn=sub))
    with pytest.raises(ValueError, match="is not"):
        enc.encode(dataclasses.replace(parse("v_add_f32_e32 v1, v2, v3")[0], defn=vop3))


def test_a_definition_of_another_target_or_a_contradicting_encoding_is_refused():
    from dsl.operands import OperandError
    d = encoder("gfx1100").select(parse("v_add_f32 v1, v2, v3")[0])[0]
    with pytest.raises(OperandError, match="not an encoding 'v_add_f32' names on rdna4"):
        encoder("gfx1201").encode(d)
    with pytest.raises(OperandError, match="encoding VOP3 is not its definition's format VOP2"):
        encoder("gfx1100").encode(dataclasses.replace(d, encoding="VOP3"))


def test_the_dsl_keeps_its_choice_through_register_allocation():
    """A Kernel item's Instr is chosen once, with virtual registers; the allocated kernel encodes
    that definition (here VOP3, which an SGPR source forces) with the physical registers."""
    k = Kernel("gfx1100")
    a, b = k.vreg(), k.sreg()
    k += v_add_f32(a, v[0], b)
    k += v_add_f32(v[1], a, v[2])
    chosen = [item.instr.defn for item in k.items]
    assert [d.format for d in chosen] == ["VOP3", "VOP2"]
    assert [item.instr.defn for item in k.physical().items] == chosen

"""Decoding bytes that are not (whole) instructions: a DecodeError naming the offset, and in
disassemble() a `.long` line with a DisassemblyWarning, after which decoding goes on."""
from __future__ import annotations

import warnings

import pytest

import dsl
import isa
from dsl.decode import DecodeError, decode_one

SPEC = isa.load("gfx1100")
S_ENDPGM = bytes.fromhex("0000b0bf")


@pytest.mark.parametrize("hex_bytes, message", [
    ("0000b0", "need at least 4 bytes"),
    ("0000ffd6", "VOP3 instruction needs 8 bytes, got 4"),             # v_mad_i64_i32, first dword only
    ("ff0080be", "s_mov_b32 needs a 32-bit literal, the data ends"),    # SSRC0 = 255, no literal
    ("fa080903", "VOP2 DPP instruction is truncated"),                  # SRC0 = DPP16, no DPP dword
    ("000000f0", "MIMG instruction needs 8 bytes, got 4"),
    ("ffffffff", "matches no rdna3 instruction format"),
])
def test_truncated_or_unknown_bytes_name_the_offset(hex_bytes, message):
    data = S_ENDPGM + bytes.fromhex(hex_bytes)
    with pytest.raises(DecodeError, match=f"^offset 0x4: .*{message}"):
        decode_one(SPEC, data, 4)


def test_disassembly_goes_on_after_undecodable_dwords():
    data = bytes.fromhex("ffffffff") + S_ENDPGM + bytes.fromhex("ff0080be")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = dsl.disassemble(data, "gfx1100")
    assert text.splitlines() == [".long 0xffffffff", "s_endpgm", ".long 0xbe8000ff"]
    assert [str(w.message).split(":")[0] for w in caught] == ["offset 0x0", "offset 0x8"]


def test_each_opcode_is_planned_once():
    """The decode plan cache keys on the format and opcode bits only: two encodings of one
    opcode with different operands share a plan, so decoding does no per-instruction lookups."""
    from dsl.decode import _table
    table = _table(SPEC)
    a = decode_one(SPEC, bytes.fromhex("01050206"))   # v_add_f32_e32 v1, v1, v2 style VOP2 words
    n = len(table.plans)
    b = decode_one(SPEC, bytes.fromhex("ff070e06"))
    assert a.name == b.name and len(table.plans) == n


@pytest.mark.parametrize("arch, hex_bytes, text", [
    # found by the gfx950 fuzzer (seed 102): v_fmamk_f32 with SRC0 = DPP; the emulator then failed
    # differently fast and in reference mode. LLVM 22 (llvm-mc --disassemble) calls all three
    # "invalid instruction encoding", and refuses the text ("dpp/sdwa variant of this
    # instruction is not supported")
    ("gfx950", "fa18162e1e1e01f4", "v_fmamk_f32_dpp v11, v30, 0x0, v12 row_shr:14 row_mask:0xf bank_mask:0x4"),
    ("gfx1100", "fa06025802e400ff", "v_fmamk_f32 v1, v2, 0x0, v3 quad_perm:[0,1,2,3]"),
    ("gfx1100", "e906025802888888", "v_fmamk_f32 v1, v2, 0x0, v3 dpp8:[0,1,2,3,4,5,6,7]"),
])
def test_fmamk_has_no_dpp_form(arch, hex_bytes, text):
    with pytest.raises(DecodeError, match="^offset 0x4: v_fmamk_f32 has no DPP(8|16)? form"):
        decode_one(isa.load(arch), S_ENDPGM + bytes.fromhex(hex_bytes), 4)
    with pytest.raises(dsl.AsmError, match="no DPP form"):
        dsl.assemble(text, arch)

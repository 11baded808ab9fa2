"""gfx942/gfx950 disassembly of VOP3/VOP3P OPSEL (and OPSEL_HI) bits against llvm-mc-22
--disassemble (skipped without it). Two sets of encodings, each bit flipped in turn (word 0 bits
11..14; on VOP3P also OPSEL_HI, bits 59 and 60): one LLVM-made encoding of every VOP3-family
mnemonic in the target's corpus (../shared/conformance/llvm/<target>.tsv.gz, the `reenc` column:
LLVM's assembler's bytes, its operands and modifiers as random as the corpus's), and every
VOP3/VOP3P definition of the ISA data written with VGPR operands (test_dsl_vop3_modifier_sweep's
packing; those LLVM refuses, or prints with an invalid-register comment, left out). Where LLVM
prints one instruction we must print its text: op_sel only on instructions the gfx9 assembler
takes it on (valu_plan.gfx9_takes_opsel), none of the bits of one that takes none
(v_lshrrev_b32_e64), no op_sel_hi where nothing has halves (v_dot4_i32_i8). Where LLVM refuses
the bytes ("invalid instruction encoding") we must refuse them (a DecodeError: a `.long` line):
an OPSEL bit of a source the instruction does not have where it takes op_sel, any OPSEL bit where
no operand has halves (valu_plan.gfx9_reserved_opsel), and isa.errata.RESERVED_OPSEL's bits."""
from __future__ import annotations

import warnings

import pytest

import isa
from dsl import disassemble
from dsl.signature import valu_signature

from .llvm_tools import mc_disassembly_each
from .test_dsl_llvm_corpus import corpus
from .test_dsl_vop3_modifier_sweep import _pack

TARGETS = ["gfx942", "gfx950"]


def _flips(b: bytes, packed: bool) -> list[tuple[bytes, int]]:
    q = int.from_bytes(b[:8], "little")
    return [((q ^ 1 << bit).to_bytes(8, "little") + b[8:], bit) for bit in (11, 12, 13, 14) + ((59, 60) if packed else ())]


def _is_vop3p(spec, b: bytes) -> bool:
    return int.from_bytes(b[:4], "little") >> 23 == spec.formats["VOP3P"].encoding[0] >> 23


def _corpus_cases(target: str) -> list[tuple[bytes, str, int]]:
    spec, first = isa.load(target), {}
    for fam, _hx, text, reenc in corpus(target):
        if fam.startswith("VOP3") and reenc != "-" and len(reenc) >= 16:
            first.setdefault(text.split()[0], bytes.fromhex(reenc))
    return [(c, mn, bit) for mn, b in sorted(first.items()) for c, bit in _flips(b, _is_vop3p(spec, b))]


def _data_cases(target: str) -> list[tuple[bytes, str, int]]:
    spec, bases = isa.load(target), []
    for d in spec.instructions:
        if d.format not in spec.traits.roles.valu_e64 or d.format == "VOP3P-MAI":
            continue
        sig = valu_signature(d)
        values = dict(OP=d.opcode, VDST=8, SDST=10, **{f"SRC{i}": 258 + 2 * i if o.dwords else 12
                                                       for i, o in enumerate(sig.srcs)})
        if d.format == "VOP3P":
            values.update(OPSEL_HI=3, OPSEL_HI2=1)
        bases.append((d.name.lower(), d.format == "VOP3P", _pack(spec.formats[d.format], values)))
    texts = mc_disassembly_each([b for _, _, b in bases], target)
    return [(c, name, bit) for (name, packed, b), w in zip(bases, texts) if w is not None and "/*" not in w
            for c, bit in _flips(b, packed)]


def _ours(b: bytes, target: str) -> str | None:
    """Our text, None where we refuse the bytes (a DecodeError: disassemble's `.long` line)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = disassemble(b, target)
    return None if text.startswith(".long") else text


def _compare(cases, target: str):
    want = mc_disassembly_each([b for b, _, _ in cases], target)
    agree, refused, bad = 0, 0, []
    for (b, mn, bit), w in zip(cases, want):
        got = _ours(b, target)
        if got == w:
            agree += w is not None
            refused += w is None
        else:
            bad.append(f"{b.hex()} ({mn}, bit {bit}): llvm {w!r}, ours {got!r}")
    return agree, refused, bad


@pytest.mark.parametrize("target", TARGETS)
def test_corpus_opsel_bits_as_llvm(target):
    cases = _corpus_cases(target)
    agree, refused, bad = _compare(cases, target)
    print(f"\n{target}: {len(cases)} corpus cases, {agree} printed as LLVM, {refused} refused as LLVM, {len(bad)} differ")
    assert len(cases) > 1500 and refused > 30
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("target", TARGETS)
def test_every_vop3_definition_opsel_bits_as_llvm(target):
    cases = _data_cases(target)
    agree, refused, bad = _compare(cases, target)
    print(f"\n{target}: {len(cases)} ISA-data cases, {agree} printed as LLVM, {refused} refused as LLVM, {len(bad)} differ")
    assert len(cases) > 2000 and refused > 40
    assert not bad, "\n".join(bad[:30])


# bytes, target, LLVM's text or None (it refuses them): the classes' witnesses
WITNESSES = [
    ("0820a3d200a00240", "gfx942", None),   # v_cvt_pk_bf8_f32 (two sources, takes op_sel): OPSEL[2]
    ("0860a8d302091a1c", "gfx950", None),   # v_dot4_i32_i8: no operand has halves, OPSEL[2]
    ("0800a8d302091a0c", "gfx950", "v_dot4_i32_i8 v8, v2, v4, v6"),   # its OPSEL_HI: printed as nothing
    ("0060acd302090218", "gfx950", None),   # v_mfma_ld_scale_b32 (two sources, takes op_sel): OPSEL[2]
    ("0050acd302090218", "gfx950", "v_mfma_ld_scale_b32 v2, v4 op_sel:[0,1]"),
    ("082034d202091a0c", "gfx950", None),   # v_bitop3_b32: isa.errata.RESERVED_OPSEL
    ("082068d202090200", "gfx950", None),   # v_cvt_pk_bf16_f32: isa.errata.RESERVED_OPSEL, OPSEL[2]
    ("080868d202090200", "gfx950", "v_cvt_pk_bf16_f32 v8, v2, v4"),   # OPSEL[0]: printed as nothing
    ("082067d202090200", "gfx950", "v_cvt_pk_f16_f32 v8, v2, v4"),    # its sibling ignores OPSEL[2]
    ("082010d102090200", "gfx942", "v_lshrrev_b32_e64 v8, v2, v4"),   # takes no op_sel: ignored
]


@pytest.mark.parametrize("hx,target,text", WITNESSES)
def test_witnesses(hx, target, text):
    """LLVM still answers as the rules say (the errata's evidence included), and so do we."""
    b = bytes.fromhex(hx)
    assert mc_disassembly_each([b], target) == [text]
    assert _ours(b, target) == text


def test_lshrrev_e64_prints_no_opsel():
    """The brief's example: LLVM prints `v_lshrrev_b32_e64 v8, v2, v4` for these bytes."""
    want = mc_disassembly_each([bytes.fromhex("080810d102090200")], "gfx942")[0]
    assert want is not None and "op_sel" not in want
    assert _ours(bytes.fromhex("080810d102090200"), "gfx942") == want


def test_refused_item_cannot_shift_its_neighbour():
    """mc_disassembly_each: LLVM refuses the first word of v_pk_sub_i16 with OPSEL[2] and reads the
    second as v_madmk_f16, whose literal is the next word: the markers keep the next item's answer."""
    refused, after = bytes.fromhex("006083d340010148"), bytes.fromhex("00488bd300210030")
    alone = mc_disassembly_each([after], "gfx942")
    assert alone[0] is not None
    assert mc_disassembly_each([refused, after], "gfx942") == [None, alone[0]]

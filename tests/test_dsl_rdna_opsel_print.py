"""RDNA (gfx1100, gfx1151, gfx1201; wave32 and wave64) disassembly of VOP3/VOP3SD/VOP3P OPSEL (and
OPSEL_HI) bits against llvm-mc-22 --disassemble (skipped without it): test_dsl_gfx9_opsel_print's
sweep on RDNA. Two sets of encodings, each bit flipped in turn (word 0 bits 11..14; on VOP3P also
OPSEL_HI, bits 59 and 60): one LLVM-made encoding of every VOP3-family mnemonic in the target's
corpus (the `reenc` column), and every VOP3/VOP3SD/VOP3P definition of the ISA data written with
VGPR operands (those LLVM refuses, or prints with an invalid-register comment, left out). Where
LLVM prints one instruction we must print its text; where it refuses the bytes we must refuse them
(a DecodeError: a `.long` line). One rule (dsl.valu_plan.rdna_opsel, from the facts the assembler
reads: signature.takes_opsel, isa.facts.modifier_use/byte_select, isa.errata.RESERVED_OPSEL):
op_sel printed only where the assembler takes it (no `v_mov_b32_e64 v8, v2 op_sel:[1,0]`); bits
of absent operands refused where it is taken, ignored where not; on RDNA3/3.5 such a bit reads the
whole-VGPR (fake16) form; SWMMAC's index_key within signature.index_keys."""
from __future__ import annotations

import re

import pytest

import isa
from dsl import assemble
from dsl.signature import valu_signature

from .llvm_tools import mc_disassembly_each
from .test_dsl_gfx9_opsel_print import _flips, _is_vop3p
from .test_dsl_llvm_corpus import corpus
from .test_dsl_vop3_modifier_sweep import _pack

# corpus name -> (target, wave)
TARGETS = {"gfx1100": ("gfx1100", 32), "gfx1100-w64": ("gfx1100", 64), "gfx1151": ("gfx1151", 32),
           "gfx1201": ("gfx1201", 32)}
DATA_TARGETS = [("gfx1100", 32), ("gfx1100", 64), ("gfx1151", 32), ("gfx1201", 32), ("gfx1201", 64)]


def _mattr(wave: int) -> str | None:
    return "+wavefrontsize64" if wave == 64 else None


def _ours(b: bytes, target: str, wave: int) -> str | None:
    """Our text, None where we refuse the bytes (disassemble's `.long` line)."""
    import warnings
    from dsl import disassemble
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = disassemble(b, target, wave_size=wave)
    return None if text.startswith(".long") else text


def _corpus_cases(name: str) -> list[tuple[bytes, str, int]]:
    spec, first = isa.load(TARGETS[name][0]), {}
    for fam, _hx, text, reenc in corpus(name):
        if fam.startswith("VOP3") and reenc != "-" and len(reenc) >= 16:
            first.setdefault(text.split()[0], bytes.fromhex(reenc))
    return [(c, mn, bit) for mn, b in sorted(first.items()) for c, bit in _flips(b, _is_vop3p(spec, b))]


def _data_cases(target: str, wave: int) -> list[tuple[bytes, str, int]]:
    spec, bases = isa.load(target), []
    for d in spec.instructions:
        if d.format not in spec.traits.roles.valu_e64:
            continue
        sig = valu_signature(d)
        # gfx11's v_cmpx_*_e64 writes EXEC: its VDST field holds exec_lo's code
        values = dict(OP=d.opcode, VDST=spec.traits.exec_lo if sig.is_cmpx and spec.traits.dialect == "gfx11" else 8,
                      SDST=10, **{f"SRC{i}": 258 + 2 * i if o.dwords else 12 for i, o in enumerate(sig.srcs)})
        if d.format == "VOP3P":
            values.update(OPSEL_HI=3, OPSEL_HI2=1)
        bases.append((d.name.lower(), d.format == "VOP3P", _pack(spec.formats[d.format], values)))
    texts = mc_disassembly_each([b for _, _, b in bases], target, _mattr(wave))
    return [(c, name, bit) for (name, packed, b), w in zip(bases, texts) if w is not None and "/*" not in w
            for c, bit in _flips(b, packed)]


def _compare(cases, target: str, wave: int):
    want = mc_disassembly_each([b for b, _, _ in cases], target, _mattr(wave))
    agree, refused, bad = 0, 0, {"printed, LLVM refuses": [], "refused, LLVM prints": [], "text differs": []}
    for (b, mn, bit), w in zip(cases, want):
        got = _ours(b, target, wave)
        if got == w:
            agree += w is not None
            refused += w is None
        else:
            kind = "printed, LLVM refuses" if w is None else "refused, LLVM prints" if got is None else "text differs"
            bad[kind].append(f"{b.hex()} ({mn}, bit {bit}): llvm {w!r}, ours {got!r}")
    return agree, refused, bad


def _report(what, cases, agree, refused, bad):
    print(f"\n{what}: {len(cases)} cases, {agree} printed as LLVM, {refused} refused as LLVM, "
          + ", ".join(f"{len(v)} {k}" for k, v in bad.items()))
    return "\n".join(line for v in bad.values() for line in v[:15])


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_corpus_opsel_bits_as_llvm(name):
    target, wave = TARGETS[name]
    cases = _corpus_cases(name)
    agree, refused, bad = _compare(cases, target, wave)
    msg = _report(name, cases, agree, refused, bad)
    assert len(cases) > 2000 and refused > 30
    assert not any(bad.values()), msg


@pytest.mark.parametrize("target,wave", DATA_TARGETS)
def test_every_vop3_definition_opsel_bits_as_llvm(target, wave):
    cases = _data_cases(target, wave)
    agree, refused, bad = _compare(cases, target, wave)
    msg = _report(f"{target} wave{wave}", cases, agree, refused, bad)
    assert len(cases) > 1800 and refused > 20
    assert not any(bad.values()), msg


# bytes, target, wave, LLVM's text or None (it refuses them): the classes' witnesses
WITNESSES = [
    ("080881d502010000", "gfx1100", 32, "v_mov_b32_e64 v8, v2"),     # takes no op_sel: bits ignored
    ("084081d502010000", "gfx1201", 32, "v_mov_b32_e64 v8, v2"),
    ("082003d702090200", "gfx1201", 32, None),    # v_add_nc_u16 takes op_sel: OPSEL[2], a source it lacks
    ("084003d702090200", "gfx1201", 32, "v_add_nc_u16 v8, v2, v4 op_sel:[0,0,1]"),
    ("08108bd502010000", "gfx1100", 32, "v_cvt_f32_f16_e64 v8, v2"),    # absent source: the fake16 form
    ("08408bd502010000", "gfx1100", 32, "v_cvt_f32_f16_e64 v8, v2.l op_sel:[0,1]"),
    ("08109cd502010000", "gfx1100", 32, None),    # v_mov_b16_e64: isa.errata.RESERVED_OPSEL (no fake16 form)
    ("080866d602091a04", "gfx1201", 32, "v_dot2_f16_f16 v8, v2, v4, v6"),   # a packed VOP3 source's bit: ignored
    ("084816cc02091a1c", "gfx1100", 32, None),    # v_dot4_i32_iu8: no op_sel, every OPSEL bit refused
    ("086011cc02090218", "gfx1100", 32, None),    # v_pk_min_f16: OPSEL[2], a source it lacks
    ("0820ecd502010000", "gfx1201", 32, None),    # v_cvt_f32_fp8_e64: not a byte_sel bit
    ("0810ecd502010000", "gfx1201", 32, "v_cvt_f32_fp8_e64 v8, v2 byte_sel:1"),
    ("085050cc02091a1c", "gfx1201", 32, None),    # v_swmmac_f32_16x16x32_f16 index_key:2 (wave32: 0..1)
    ("085050cc02091a1c", "gfx1201", 64, "v_swmmac_f32_16x16x32_f16 v[8:11], v[2:3], v[4:7], v6 index_key:2"),
    ("084856cc02091a1c", "gfx1201", 32, None),    # v_swmmac_i32_16x16x64_iu4: one index (wave32)
]


@pytest.mark.parametrize("hx,target,wave,text", WITNESSES)
def test_witnesses(hx, target, wave, text):
    """LLVM still answers as the rule says (the erratum's evidence included), and so do we; what we
    print assembles back to the same bytes where no bit is ignored."""
    b = bytes.fromhex(hx)
    assert mc_disassembly_each([b], target, _mattr(wave)) == [text]
    assert _ours(b, target, wave) == text


@pytest.mark.parametrize("line,target,wave,ok", [
    ("v_swmmac_f32_16x16x32_f16 v[8:15], v[2:5], v[4:11], v6 index_key:1", "gfx1201", 32, True),
    ("v_swmmac_f32_16x16x32_f16 v[8:15], v[2:5], v[4:11], v6 index_key:2", "gfx1201", 32, False),
    ("v_swmmac_f32_16x16x32_f16 v[8:11], v[2:3], v[4:7], v6 index_key:3", "gfx1201", 64, True),
    ("v_swmmac_i32_16x16x32_iu8 v[8:15], v[2:3], v[4:7], v6 index_key:3", "gfx1201", 32, False),
    ("v_swmmac_i32_16x16x32_iu8 v[8:11], v2, v[4:5], v6 index_key:3", "gfx1201", 64, True),
    ("v_swmmac_i32_16x16x32_iu4 v[8:11], v2, v4, v6 index_key:2", "gfx1201", 64, False),   # the erratum
    ("v_swmmac_i32_16x16x64_iu4 v[8:15], v[2:3], v[4:7], v6 index_key:0", "gfx1201", 32, False),
    ("v_swmmac_i32_16x16x64_iu4 v[8:11], v2, v[4:5], v6 index_key:1", "gfx1201", 64, True),
])
def test_index_key_range_as_llvm(line, target, wave, ok):
    """The assembler's index_key range (signature.index_keys) is llvm-mc-22's."""
    from .llvm_tools import mc_items
    words, errors = mc_items([line], target, _mattr(wave))[0]
    assert bool(words) and not errors if ok else bool(errors)
    if ok:
        assert assemble(line, target, wave_size=wave)
    else:
        with pytest.raises(Exception, match="index_key"):
            assemble(line, target, wave_size=wave)


# LLVM 22's one misprint here, which we print as it does (the corpora hold it: their reenc column says
# llvm-mc refuses its own text): RDNA3's v_fmac_f16_e64 with OPSEL[3] alone prints `v8.h, ... op_sel:[0,0,0,1]`,
# the tied accumulator's entry 0 against the destination's .h ("op_sel operand conflicts with 16-bit
# operand suffix"); `op_sel:[0,0,1,1]` is the text both assemblers encode to those bytes.
_LLVM_MISPRINT = re.compile(r"v_fmac_f16_e64 v\d+\.h, .* op_sel:\[\d,\d,0,1\]")


@pytest.mark.parametrize("target,wave", DATA_TARGETS)
def test_printed_text_assembles_as_llvm(target, wave):
    """Every text we print in the ISA-data sweep is one our assembler takes and encodes to llvm-mc-22's
    bytes for it; those bytes are the decoded ones but for OPSEL/OPSEL_HI bits the rule ignores (of
    an operand op_sel does not reach: written back as the default, VOP3P's OPSEL_HI of an absent
    source set as LLVM sets it)."""
    from .llvm_tools import mc_encodings
    cases = _data_cases(target, wave)
    printed = {}
    for b, _, _ in cases:
        text = _ours(b, target, wave)
        if text is not None:
            printed.setdefault(text, b)
    texts = sorted(printed)
    want = mc_encodings(texts, target, _mattr(wave))
    bad, same, misprints = [], 0, 0
    for text, w in zip(texts, want):
        if _LLVM_MISPRINT.match(text):      # LLVM's text, which it and we refuse to assemble
            with pytest.raises(Exception, match="op_sel"):
                assemble(text, target, wave_size=wave)
            misprints += 1
            if w is not None:
                bad.append(f"{text}: llvm-mc-22 now assembles it ({w.hex()})")
            continue
        got = assemble(text, target, wave_size=wave)
        orig = printed[text]
        dropped = int.from_bytes(orig[:8], "little") ^ int.from_bytes(got[:8], "little")
        if w != got or orig[8:] != got[8:] or dropped & ~(0xf << 11 | 3 << 59):
            bad.append(f"{text}: decoded {orig.hex()}, llvm {w.hex() if w else None}, ours {got.hex()}")
        same += got == orig
    print(f"\n{target} wave{wave}: {len(texts)} printed texts, {same} assemble back to the same bytes, "
          f"{len(texts) - same - len(bad) - misprints} with ignored OPSEL bits cleared, {misprints} LLVM misprints")
    assert misprints <= 1
    assert not bad, "\n".join(bad[:20])

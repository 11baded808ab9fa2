"""Decoding to the instruction value: `disasm.decode_instr(bytes)` must give the same `Instr`
the text parser gives for LLVM 22's disassembly of those bytes (../shared/conformance/llvm),
name the instruction the encoder chooses for LLVM's text, and encode back to LLVM's own
re-encoding of that text (RDNA3, RDNA3.5, RDNA4, CDNA3, CDNA4). Rows our disassembler prints differently from LLVM (held to their
figure by test_dsl_llvm_corpus.py) are listed, not failed."""
from __future__ import annotations

import collections
import warnings
from dataclasses import replace

import pytest

import isa
from dsl.allocation import RecordingEncoder
from dsl.asm import encoder, parse
from dsl.decode import DecodeError
from dsl import families
from dsl.decode import decode_one
from dsl.disasm import DisassemblyWarning, decode_instr, disassemble, instr_of_text
from dsl.instr_fields import direct_instr
from .test_dsl_llvm_corpus import corpus

STEP = 7          # every 7th row of each corpus (gfx1100: 7072 rows across all families)
# the disassembler's figures against the whole corpora (test_dsl_llvm_corpus*.py): rows it prints
# differently, or cannot decode (gfx1201), cannot give LLVM's Instr either


def _sample(name: str) -> list[list[str]]:
    return corpus(name)[::STEP]


@pytest.mark.parametrize("target", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_decoded_instr_equals_parsed_llvm_text_and_reencodes(target):
    rows = _sample(target)
    rdna3 = target in ("gfx1100", "gfx1151")
    # the RDNA3 encoder notes the instruction it chose, which the decoded defn must be
    enc = RecordingEncoder(isa.load(target), 32) if rdna3 else encoder(target)
    total, bad = collections.Counter(), collections.defaultdict(list)
    assembler_gaps, printer_gaps, kept_encoding = 0, [], 0
    for family, hex_bytes, text, reenc in rows:
        total[family] += 1
        data = bytes.fromhex(hex_bytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisassemblyWarning)     # gfx1201 rows it cannot decode
            printed = disassemble(data, target)
        if printed != text:
            printer_gaps.append((family, hex_bytes, text))
            continue
        decoded, size = decode_instr(data, target)
        assert size == len(data), (family, hex_bytes, text)
        parsed = parse(text)[0]
        problems = []
        bare = replace(decoded, defn=None, encoding=None,
                       dual=None if decoded.dual is None else replace(decoded.dual, defn=None, encoding=None))
        if bare != parsed:
            problems.append(f"decoded {bare!r} != parsed {parsed!r}")
        if reenc != "-":
            try:
                out, _ = enc.encode(parsed)
            except ValueError:      # OperandError too: a row the text assembler refuses
                out = None
            if out != bytes.fromhex(reenc):
                assembler_gaps += 1     # test_dsl_llvm_corpus holds the assembler to its figure
                continue
            chosen = enc.record.definition if rdna3 else None
            # (where LLVM's text re-encodes to other bytes, e.g. v_nop from VOP3 bytes, the text
            # no longer says which encoding the bytes had: the defn is then the bytes')
            canonical = reenc == hex_bytes
            if canonical and decoded.mnemonic != "v_illegal" and chosen is not None and decoded.defn != chosen:
                problems.append(f"defn {decoded.defn.name}/{decoded.defn.format} != encoder's "
                                f"{chosen.name}/{chosen.format}")
            # the decoded Instr carries its definition, which the encoder takes as chosen: it
            # encodes to LLVM's bytes where those are the bytes decoded, and elsewhere (v_nop from
            # VOP3 bytes is VOP1 as text; bits LLVM ignores) to bytes of the same definition
            again, _ = enc.encode(decoded)
            if canonical and again != data:
                problems.append(f"re-encoded {again.hex()} != LLVM's {reenc}")
            elif not canonical:
                redecoded = decode_one(enc.spec, again, 0).defs[0] if again[:4] != bytes(4) else None
                if redecoded is not decoded.defn:
                    problems.append(f"re-encoded {again.hex()}: {redecoded and redecoded.name}/"
                                    f"{redecoded and redecoded.format} is not the definition decoded, "
                                    f"{decoded.defn.name}/{decoded.defn.format}")
                kept_encoding += bytes.fromhex(reenc)[:8] != again[:8] and decode_one(
                    enc.spec, bytes.fromhex(reenc), 0).defs[0] is not redecoded
        if problems:
            bad[family].append((hex_bytes, text, problems))
    n_bad = sum(len(v) for v in bad.values())
    n = sum(total.values())
    print(f"\n{target}: decode_instr agrees on {n - n_bad - len(printer_gaps)}/{n - len(printer_gaps)} of {n} "
          f"sampled rows (those our disassembler prints as LLVM does)")
    print(f"  {kept_encoding} rows whose LLVM text re-encodes to another definition re-encode to their own from "
          f"the Instr")
    print(f"  re-encoding not checked on {assembler_gaps} rows our assembler refuses or encodes otherwise "
          f"(mostly MIMG, which it does not assemble)")
    for family, items in sorted(bad.items()):
        print(f"  {family}: {len(items)}/{total[family]}", items[:2])
    print(f"  rows our disassembler prints differently from LLVM (not compared): {len(printer_gaps)}",
          printer_gaps[:3])
    assert not bad, dict(bad)
    assert target != "gfx1151" or not printer_gaps


def test_decode_instr_of_bad_bytes_names_the_offset():
    with pytest.raises(DecodeError, match="^offset 0x4: "):
        decode_instr(bytes.fromhex("0000b0bf" "ffffffff"), "gfx1100", offset=4)


@pytest.mark.parametrize("target", ["gfx1100", "gfx1151", "gfx1201"])
def test_direct_route_agrees_with_the_text_route(target):
    """decode_instr builds scalar ALU, VALU (VOP1/VOP2/VOPC/VOP3/VOP3SD/VOP3P/VOPD), LDS and RDNA3's SMEM,
    FLAT/GLOBAL/SCRATCH and MUBUF instructions from the decoded fields (instr_fields.py): on every sampled row that decodes,
    that Instr must equal the one read back from the printed text (itself held to LLVM's text
    above), and the direct route must be the one taken for every SOP2/SOPC row, every VOP1/
    VOP2/VOPC/VOP3/VOP3SD row without DPP, every VOPD row, every RDNA3
    SMEM/FLAT/GLOBAL/SCRATCH/MUBUF row, every DS row bar ds_swizzle_b32, every SOP1 row bar
    s_sendmsg_rtn's message operand and every VOP3P row without DPP bar WMMA and v_fma_mix."""
    spec = families.load_for_disassembly(target)
    taken, total, disagree, text_route_names = collections.Counter(), collections.Counter(), [], set()
    for family, hex_bytes, text, _ in _sample(target):
        try:
            inst = decode_one(spec, bytes.fromhex(hex_bytes), 0)
        except DecodeError:
            continue
        fmt = inst.fmt.name
        if fmt in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P") and inst.dpp is not None:
            fmt += "_DPP"       # not covered: DPP16/DPP8 modifiers
        total[fmt] += 1
        direct = direct_instr(spec, inst, 32)
        if direct is not None:
            assert direct.defn is inst.defs[0] and direct.encoding == inst.defs[0].format
            direct = replace(direct, defn=None, encoding=None)
        if direct is None:
            if fmt in ("SOP1", "DS", "VDS", "VOP3P"):
                text_route_names.add(inst.name)
            continue
        taken[fmt] += 1
        via_text = replace(instr_of_text(spec, inst, 32), defn=None, encoding=None)
        if direct != via_text:
            disagree.append((hex_bytes, text, direct, via_text))
    print(f"\n{target}: direct route taken on", {f: f"{taken[f]}/{total[f]}" for f in sorted(taken)})
    assert not disagree, disagree[:5]
    assert {"SOP1", "SOP2", "SOPC", "SOPK", "SOPP"} <= set(taken)
    full = ("SOP2", "SOPC", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOPD")
    if target != "gfx1201":
        full += ("SMEM", "FLAT", "GLOBAL", "SCRATCH", "MUBUF")
    for fmt in full:
        assert total[fmt] and taken[fmt] == total[fmt], (fmt, taken[fmt], total[fmt])
    lds = "VDS" if target == "gfx1201" else "DS"
    assert taken[lds] > 0.9 * total[lds], (lds, taken[lds], total[lds])
    assert {n for n in text_route_names if not n.startswith(("V_WMMA", "V_SWMMAC", "V_FMA_MIX"))} <= \
        {"S_SENDMSG_RTN_B32", "S_SENDMSG_RTN_B64", "DS_SWIZZLE_B32"}, text_route_names
    assert taken["VOP3P"] > 150, (taken["VOP3P"], total["VOP3P"])     # the rest: WMMA and v_fma_mix
    assert not {f for f in taken if not f.startswith("SOP") and f not in full + (lds, "VOP3P")}

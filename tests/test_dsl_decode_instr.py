"""Decoding to the instruction value: `disasm.decode_instr(bytes)` must give the same `Instr`
the text parser gives for LLVM 22's disassembly of those bytes (../shared/conformance/llvm),
name the instruction the encoder chooses for LLVM's text, and encode back to LLVM's own
re-encoding of that text (RDNA3, RDNA3.5, RDNA4, CDNA3, CDNA4). Rows our disassembler prints differently from LLVM (held to their
figure by test_dsl_llvm_corpus.py) are listed, not failed; what the decoded Instr prints is compared
with LLVM's text on every corpus row, those rows included, by test_dsl_instr_text.py."""
from __future__ import annotations

import collections
import warnings
from dataclasses import replace

import pytest

import isa
from dsl.allocation import RecordingEncoder
from dsl.asm import encoder, parse
from dsl.decode import DecodeError
from dsl.decode import decode_one
from dsl.disasm import DisassemblyWarning, decode_instr, disassemble
from .test_dsl_llvm_corpus import corpus

STEP = 7          # every 7th row of each corpus (gfx1100: 7072 rows across all families)
# the disassembler's figures against the whole corpora (test_dsl_llvm_corpus*.py): rows it prints
# differently, or cannot decode (gfx1201), cannot give LLVM's Instr either


def _sample(name: str) -> list[list[str]]:
    return corpus(name)[::STEP]


def _arch_wave(target: str) -> tuple[str, int]:
    """The arch and wave size of a corpus name (gfx1100-w64: gfx1100 in wave64)."""
    if target.endswith("-w64"):
        return target[:-4], 64
    return target, isa.WAVE_SIZE[isa.resolve_arch(target)]


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_decoded_instr_equals_parsed_llvm_text_and_reencodes(target):
    rows = _sample(target)
    arch, wave = _arch_wave(target)
    rdna3 = arch in ("gfx1100", "gfx1151")
    # the RDNA3 encoder notes the instruction it chose, which the decoded defn must be
    enc = RecordingEncoder(isa.load(arch), wave) if rdna3 else encoder(arch, wave)
    total, bad = collections.Counter(), collections.defaultdict(list)
    assembler_gaps, printer_gaps, kept_encoding = 0, [], 0
    for family, hex_bytes, text, reenc in rows:
        total[family] += 1
        data = bytes.fromhex(hex_bytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisassemblyWarning)     # gfx1201 rows it cannot decode
            printed = disassemble(data, arch, wave)
        if printed != text:
            printer_gaps.append((family, hex_bytes, text))
            continue
        decoded, size = decode_instr(data, arch, wave)
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
          f"(EXP, which it does not assemble yet)")
    for family, items in sorted(bad.items()):
        print(f"  {family}: {len(items)}/{total[family]}", items[:2])
    print(f"  rows our disassembler prints differently from LLVM (not compared): {len(printer_gaps)}",
          printer_gaps[:3])
    assert not bad, dict(bad)
    assert arch != "gfx1151" or not printer_gaps


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942"])
def test_decode_instr_of_a_reserved_operand_code_names_offset_and_instruction(arch):
    """v_mov_b32 reading source code 209, which the manuals' operand tables leave reserved: the
    disassembler prints it as <reserved 209>, decode_instr has no operand value for it."""
    word = (0x7E000000 | 1 << 9 | 209).to_bytes(4, "little")
    with pytest.raises(DecodeError, match=r"^offset 0x4: v_mov_b32: an operand code \(SRC0 = 209\) has no value"):
        decode_instr(bytes(4) + word, arch, offset=4)


def test_decode_instr_of_bad_bytes_names_the_offset():
    with pytest.raises(DecodeError, match="^offset 0x4: "):
        decode_instr(bytes.fromhex("0000b0bf" "ffffffff"), "gfx1100", offset=4)

"""The printer of the instruction value (dsl/instr_text.py) against LLVM 22: on every row of the
LLVM 22 RDNA corpora (../shared/conformance/llvm) printing the decoded `Instr` (what the
disassembler prints) gives LLVM's text, and so does printing the `Instr` the parser reads from
LLVM's text (`instr_text(parse(text))`); DSL instructions print as text that llvm-mc-22
assembles to the DSL's bytes."""
from __future__ import annotations

import collections
import importlib
import gzip
import re
import subprocess

import pytest

import isa
from dsl import families
from dsl.asm import parse
from dsl.decode import DecodeError, decode_one
from dsl.instr_fields import direct_instr
from dsl.instr_text import instr_text
from .conftest import shared_path
from .llvm_tools import tool

TARGETS = {"gfx1100": ("gfx1100", 32), "gfx1100-w64": ("gfx1100", 64), "gfx1151": ("gfx1151", 32),
           "gfx1201": ("gfx1201", 32)}
# rows the disassembler's figures (test_dsl_llvm_corpus.py) count as misprinted, which is this
# printer's text of the decoded Instr: image register widths where LLVM has no instruction form
# (graphics, held to their own floor there), and LLVM's own misprint `|v146, vcc_lo|` of three
# gfx1201 v_cndmask_b32_dpp rows (which the parser refuses)
MISPRINTED_FAMILIES = {"MIMG"}
_LLVM_MISPRINT = re.compile(r"\|v\d+, vcc_lo\|")
_NUMBER = re.compile(r"-?(?:0x[0-9a-f]+|\d+)\b")


def _rows(name: str) -> list[list[str]]:
    with gzip.open(shared_path("conformance", "llvm", f"{name}.tsv.gz"), "rt") as f:
        return [line.rstrip("\n").split("\t") for line in f][1:]


def _same_number_spelled_in_hex(want: str, got: str) -> bool:
    """LLVM prints a 16-bit integer operand's literal as its low half in hex; when that half is
    an inline integer (v_cvt_u32_u16_e64 v136, 0x4: non-canonical bytes) the parser reads the
    text as the inline constant, so the parsed Instr holds 4 and its text is the constant's, `4`
    (the decoded one holds an operands.LiteralInt and prints 0x4). True when the texts differ
    only in such numbers, in hex in LLVM's and in decimal in ours."""
    if _NUMBER.split(want) != _NUMBER.split(got):
        return False
    pairs = [(x, y) for x, y in zip(_NUMBER.findall(want), _NUMBER.findall(got)) if x != y]
    return bool(pairs) and all(x.startswith("0x") and int(x, 16) == int(y) <= 64 for x, y in pairs)


@pytest.mark.parametrize("name", TARGETS)
def test_decoded_and_parsed_instr_print_as_llvm(name):
    """On every corpus row: the decoded Instr (instr_fields.direct_instr, what the disassembler
    prints) and the Instr the parser reads from LLVM's text both print as LLVM's text, but for
    the rows listed above and the 16-bit integer literals the parsed Instr cannot tell."""
    arch, wave = TARGETS[name]
    spec = families.load_for_disassembly(arch)
    total, agree, listed, hex_16bit, unparsed, undecodable, bad = (collections.Counter(), collections.Counter(),
                                                                   0, 0, 0, 0, [])
    for family, hx, text, _ in _rows(name):
        total[family] += 1
        try:
            decoded = direct_instr(spec, decode_one(spec, bytes.fromhex(hx), 0), wave)
        except DecodeError:     # gfx1201: GFX9/10's v_fma_mix encoding
            undecodable += 1
            continue
        try:
            parsed = instr_text(parse(text)[0], spec)
        except ValueError:      # AsmError: LLVM's misprints
            parsed = None
            unparsed += 1
        printed = instr_text(decoded, spec)
        if printed == text and parsed == text:
            agree[family] += 1
        elif family in MISPRINTED_FAMILIES or _LLVM_MISPRINT.search(text):
            listed += 1
        elif printed == text and parsed is not None and _same_number_spelled_in_hex(text, parsed):
            hex_16bit += 1
        else:
            bad.append((family, hx, text, printed, parsed))
    n, ok = sum(total.values()), sum(agree.values())
    print(f"\n{name}: decoded and parsed Instr print as LLVM's text on {ok}/{n} rows ({listed} listed as "
          f"misprinted, {hex_16bit} 16-bit integer literals, {undecodable} undecodable, {unparsed} unparsed)")
    for family in sorted(total):
        print(f"  {family:12s} {agree[family]:5d}/{total[family]:5d}")
    assert not bad, bad[:5]
    assert n > 45000 and hex_16bit <= 2 and unparsed <= 3 and listed < 0.2 * total["MIMG"] + 4


def _llvm_mc_bytes(text: str, arch: str) -> bytes:
    out = subprocess.run([tool("llvm-mc"), "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"],
                         input=text, capture_output=True, text=True, check=True).stdout
    data = bytearray()
    for enc in re.findall(r"encoding: \[([^\]]*)\]", out):
        data += bytes(int(b, 16) for b in enc.split(","))
    return bytes(data)


@pytest.mark.parametrize("arch, module", [("gfx1151", "dsl.rdna3_5"), ("gfx1201", "dsl.rdna4")])
def test_dsl_instr_text_assembles_to_its_bytes(arch, module):
    m = importlib.import_module(module)
    s, v, k = m.s, m.v, m.Kernel(arch)
    k += m.v_add_f32(v[1], -v[2], 1.0, clamp=True, mul=2)
    k += m.v_fmaak_f32(v[1], v[2], v[3], 5)
    k += m.s_fmamk_f32(s[1], s[2], 7, s[3])
    k += m.v_pk_fma_f16(v[1], v[2], v[3], v[4], op_sel=[1, 0, 0], neg_hi=[0, 1, 0])
    k += m.v_add_co_ci_u32(v[1], m.vcc_lo, 100, v[2], m.vcc_lo)
    k += m.vopd(m.v_dual_add_f32(v[0], v[1], v[2]), m.v_dual_fmamk_f32(v[3], v[4], 9, v[5]))
    if arch == "gfx1151":
        k += m.s_load_b64(s[4:5], s[0:1], 16)
    k += m.s_mov_b32(s[5], 0x12345)
    k += m.s_nop(3)
    spec = isa.load(arch)
    texts = [item.instr.text(spec) for item in k.items]
    assert _llvm_mc_bytes("\n".join(texts), arch) == b"".join(bytes(item) for item in k.items), texts

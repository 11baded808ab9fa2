"""The text assembler on bad input: it refuses what llvm-mc-22 refuses, never drops a modifier or
changes an operand, and every refusal is an AsmError naming line:column, the instruction and
what is wrong (never a raw IndexError/KeyError/... from inside).

Three layers: one regression case per class of issue 15 (items 2, 3, 7, 8); a bounded fuzz of
mutated and random lines where the only allowed outcomes are bytes or a located AsmError; and
a differential check against llvm-mc-22 (skipped without it) on mutated lines of LLVM's own
corpora, where both must accept the same lines and give the same bytes. Run with -s to see the
agreement report."""
from __future__ import annotations

import collections
import random
import re
import time

import pytest

import dsl

from . import asm_mutations as M
from .conftest import SHARED, shared_path

ARCH = "gfx1100"
LOCATED = re.compile(r"^\d+:\d+: ")


def refusal(text: str, arch: str = ARCH, wave: int | None = None) -> str:
    with pytest.raises(dsl.AsmError) as e:
        dsl.assemble(text, arch, wave)
    message = str(e.value)
    assert LOCATED.match(message), message
    return message


# ---------------------------------------------------------------- issue 15 item 2: VOPD modifiers

@pytest.mark.parametrize("line, column", [
    ("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v5, v6 clamp", 56),
    ("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v5, v6 row_share:1", 56),
    ("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v5, v6 dpp8:[0,1,2,3,4,5,6,7]", 56),
    ("v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v5, v6 offset:4 glc", 56),
    ("v_dual_mul_f32 v0, v1, v2 clamp :: v_dual_add_f32 v3, v5, v6", 27),
    ("v_dual_mul_f32 v0, -v1, v2 :: v_dual_add_f32 v3, v5, v6", 20),
])
def test_vopd_modifiers_are_refused_at_their_column(line, column):
    message = refusal(line)
    assert message.startswith(f"1:{column}: v_dual_"), message


def test_vopd_sources_in_one_bank_are_refused():
    assert "same VGPR bank" in refusal("v_dual_add_f32 v0, v1, v2 :: v_dual_add_f32 v3, v5, v6")
    assert "same VGPR bank" in refusal("v_dual_add_f32 v0, v1, v4 :: v_dual_add_f32 v3, v6, v8")
    dsl.assemble("v_dual_add_f32 v0, v1, v2 :: v_dual_add_f32 v3, v6, v7", ARCH)


# ---------------------------------------------------------------- item 3: operands and forced encodings

@pytest.mark.parametrize("line, message", [
    ("global_load_b32 v1, v2, m0", r"^1:25: global_load_b32: saddr: m0 is 32 bits wide"),
    ("v_add_f32_dpp v1, v2, v3", r"^1:1: v_add_f32_dpp: a DPP instruction needs a DPP control"),
    ("v_add_f32_e64_dpp v1, v2, v3", r"needs a DPP control"),
    ("v_add_f32_e32 v1, v2, v3 quad_perm:[0,1,2,3]", r"^1:26: .*DPP controls need the _dpp"),
    ("v_add_f32_sdwa v1, v2, v3", r"^1:1: v_add_f32_sdwa: rdna3 has no SDWA encoding"),
    ("s_mov_b32_sdwa s0, s1", r"no SDWA encoding"),
    ("s_mov_b32_e64 s0, s1", r"no encoding matches the suffix 'e64'"),
    ("v_readlane_b32 s1, v2, v3", r"^1:24: v_readlane_b32: src1: must be an SGPR or constant"),
    ("v_readlane_b32 s1, s2, s3", r"^1:20: v_readlane_b32: src0: must be a VGPR"),
    ("v_writelane_b32 v1, v2, s3", r"^1:21: v_writelane_b32: src0: must be an SGPR or constant"),
    ("v_add_co_ci_u32_e64 v1, s1, v2, v3, v4", r"^1:37: v_add_co_ci_u32: src2: expected an SGPR"),
    ("v_add_co_ci_u32_e64 v1, s1, v2, v3, 0", r"^1:37: .*src2"),
    ("v_cndmask_b32_e64 v1, v2, v3, 1", r"^1:31: "),
    ("v_add_f32 v1, v2, v3 op_sel:[0,0,0,0,0,0,0]", r"^1:22: v_add_f32: op_sel: this instruction has no 16-bit"),
    ("v_add_f16_e64 v1.l, v2.l, v3.l op_sel:[0,0,0,0,0,0,0]", r"^1:47: .*op_sel takes at most 4 entries"),   # llvm-mc-22: 1:47
    ("v_add_co_ci_u32 v5, vcc, v1, v2, vcc", r"^1:21: v_add_co_ci_u32: sdst: vcc is 64 bits wide"),
    ("v_add_co_ci_u32_e32 v5, vcc, v1, v2, vcc", r"carry/condition operand is vcc_lo"),
    ("v_add3_u32 v1, s1, s2, s3", r"at most 2 may be read by one instruction \(the constant bus\)"),
    ("v_mov_b32 v1, src_execz", r"src_execz .* is not a source of rdna3's"),
    ("flat_load_u8 v200.h, v[1:2]", r"names a 16-bit half; this operand is a whole VGPR"),
    ("v_add_f16 v1.l, v2, v3", r"^1:\d+: v_add_f16: v2: write the 16-bit operands all with halves"),
    ("buffer_load_b32 v1, v2, s[0:3], s4 offset:4", r"without idxen or offen .* write off"),
    ("global_load_b32 v1, v[2:3], off glc offset:4", r"^1:\d+: global_load_b32: offset: comes before glc"),
    ("v_add_f32_e64 v1, v2, v3 mul:2 clamp", r"clamp: comes before mul"),
    ("v_lshlrev_b32_e64 v28, -9, s36 div:2", r"output modifiers apply to floating-point"),
    ("v_pk_add_f16 v1, v2, v3 mul:2", r"mul:2"),
    ("global_load_b32 v1, v[2:3], off offset:4 offset:8", r"^1:\d+: global_load_b32: modifier offset is given twice"),
    ("v_add_f32_dpp v1, v2, v3 quad_perm:[0,1,2,3] row_shl:1", r"DPP takes one control"),
    ("v_add_f32_e64_dpp v1, v2, 0x12345 quad_perm:[0,1,2,3]", r"first two sources of a DPP instruction are VGPRs"),
    ("v_illegal v1", r"v_illegal takes no operands"),
    ("v_wmma_f32_16x16x16_f16 v[16:23], v[0:7], v[8:15], v[16:23] op_sel:[0,0,1]", r"op_sel: this instruction has no"),
    ("v_wmma_f32_16x16x16_f16 v[16:23], v[0:7], v[8:15], v[16:23] row_mirror", r"has no DPP form"),
    # a _dpp/_e64_dpp suffix of an encoding without DPP: at the mnemonic, as llvm-mc-22 ("dpp variant
    # of this instruction is not supported", column 1)
    ("v_mul_lo_u32_e64_dpp v1, v2, v3 quad_perm:[1,0,3,2]",
     r"^1:1: v_mul_lo_u32_e64_dpp: has no DPP form in the VOP3 encoding \(the manual's DPP rule: VOP3 MUL_LO_U32: NO DPP "
     r"\(Table 30\), page 79\)"),
    ("v_swap_b16_dpp v1.l, v2.l dpp8:[1,0,3,2,5,4,7,6]", r"^1:1: v_swap_b16_dpp: has no DPP form .*SWAP\*: NO DPP"),
    ("v_pk_fmac_f16_dpp v1, v2, v3 quad_perm:[1,0,3,2]", r'^1:1: v_pk_fmac_f16_dpp: has no DPP form .*"packed math"'),
    ("v_cvt_f64_f32_dpp v[2:3], v1 row_shl:1", r"^1:1: v_cvt_f64_f32_dpp: has no DPP form .*All 64-bit opcodes: NO DPP"),
    ("v_fma_mixhi_f16 v56, v155, v8, v1.l", r"selects halves with op_sel/op_sel_hi"),
    ("s_movrels_b32 s0, 1.0", r"^1:19: s_movrels_b32: ssrc0: takes a register"),
    ("v_movrels_b32 v1, s2", r"^1:19: v_movrels_b32: src0: must be a VGPR"),
    ("buffer_load_b32 v1, v2, null, s4 offen", r"srsrc: expected SGPRs"),
    ("buffer_load_b32 v1, v2, s[0:3], -s4 offen", r"soffset: takes no modifiers"),
    ("v_add_f16_e64 v1, v2, v3 op_sel:[1,0,0]", r"written as whole VGPRs it takes no op_sel; select halves with \.l/\.h"),
    ("v_interp_p10_f16_f32 v73.h, v99, v31, v190", r"v73.h names a 16-bit half"),
])
def test_operands_llvm_refuses_are_refused(line, message):
    assert re.search(message, refusal(line)), refusal(line)


def test_forced_encodings_are_honoured():
    """_e32 on an instruction without a 64-bit VALU form keeps its one encoding (LLVM does);
    a plain v_cmp with two sources is the e32 form with vcc implied."""
    assert dsl.assemble("s_mov_b32_e32 s0, s1", ARCH) == dsl.assemble("s_mov_b32 s0, s1", ARCH)
    assert dsl.assemble("v_cmp_eq_f32_e32 v1, v2", ARCH) == dsl.assemble("v_cmp_eq_f32_e32 vcc_lo, v1, v2", ARCH)
    assert len(dsl.assemble("v_add_f32_e64 v1, v2, v3", ARCH)) == 8
    assert len(dsl.assemble("v_add_f32_dpp v1, v2, v3 quad_perm:[0,1,2,3]", ARCH)) == 8


def test_scalar_lane_selects_and_masks_take_what_llvm_takes():
    dsl.assemble("v_readlane_b32 s1, v2, 5\nv_readlane_b32 s1, v2, m0\nv_add_co_ci_u32_e64 v1, s1, v2, v3, s4", ARCH)
    dsl.assemble("v_cmp_lt_u32_e64_dpp s8, v0, s34 quad_perm:[2,1,0,0]", "gfx1151")   # RDNA3.5 only
    refusal("v_cmp_lt_u32_e64_dpp s8, v0, s34 quad_perm:[2,1,0,0]")


# ---------------------------------------------------------------- item 7: every error has its place

def test_an_operand_error_on_the_last_of_many_lines_names_its_line_and_column():
    text = "s_nop 0\n" * 100_000 + "v_mov_b32 v1, v999\n"
    message = refusal(text)
    assert message.startswith("100001:15: v_mov_b32: register v999 is out of range"), message


@pytest.mark.parametrize("line, start", [
    ("v_mov_b32 v1, v[2:1]", "1:15: v_mov_b32: register range v[2:1] is empty"),
    ("v_mov_b32 v1, a0", "1:15: v_mov_b32: a0: accumulation registers"),
    ("v_add_f32 v1, v2, -v[2:1]", "1:20: "),
    ("  v_add_f32 v1, |v999|, v2", "1:18: "),
    ("s_load_b32 s1, s[2:3], 0x4 offset:8", "1:28: s_load_b32: give the offset once"),
    ("global_load_b32 v1, v2, off", "1:21: global_load_b32: vaddr: v2 is 1 register(s), this operand needs 2"),
    ("ds_load_b32 v1, v2 offset:70000", "1:20: ds_load_b32: offset:70000 is out of range"),
])
def test_errors_name_line_column_and_instruction(line, start):
    message = refusal(line)
    assert message.startswith(start), message
    assert "^" in message.splitlines()[-1]          # a caret under the column


# ---------------------------------------------------------------- item 8: no raw exceptions

@pytest.mark.parametrize("line, message", [
    ("v_add_f16 v1, v2, 65520.0", r"^1:19: v_add_f16: src1: 65520.0 is out of range"),
    ("v_add_co_u32 v1, s1, v2, v3 op_sel:[1,1,1,1]", r"^1:29: v_add_co_u32: op_sel: its VOP3SD encoding has no OPSEL"),
    ("v_pk_max_i16 v36, v130, -4 mul:2", r"mul:2"),
    ("v_add_f16 -v1.h, v2.l, v3.l", r"^1:11: v_add_f16: vdst: a destination takes no modifiers"),
    ("lds_direct_load v1wait_vdst:0", r"^1:1: lds_direct_load takes 1 operand"),
    ("lds_direct_load wait_vdst:0", r"takes 1 operand"),
    ("global_load_b32 v1, v[2:3], off offset:foo", r"^1:40: global_load_b32: offset: expected a number"),  # (LLVM: 1:40)
    ("v_dual_fmaak_f32 v0, v1, v2, 1.5e300 :: v_dual_mov_b32 v3, v4", r"^1:30: v_dual_fmaak_f32: K: 1.5e\+300 is out of range"),
    ("v_mov_b32 v1, " + "1" * 5000, r"^1:15: v_mov_b32: 1+\.\.\.: a number of 5000 digits is too long"),
    ("v_add_f16_e64 v1.l, v2.l, v3.l op_sel:[" + "1" * 5000 + "]", r"5000 digits is too long"),
])
def test_encoder_failures_are_asm_errors(line, message):
    assert re.search(message, refusal(line)), refusal(line)


def test_a_symbol_in_a_vopd_fmaak_is_a_literal_to_fill_in():
    message = refusal("v_dual_fmaak_f32 v0, v1, v2, foo :: v_dual_mov_b32 v3, v4")
    assert "undefined symbol 'foo'" in message
    text = "v_dual_fmaak_f32 v0, v1, v2, end-start :: v_dual_mov_b32 v3, v4\nstart:\ns_nop 0\nend:\n"
    assert dsl.assemble(text, ARCH)[8:12] == (4).to_bytes(4, "little")


def test_an_error_on_a_huge_line_quotes_only_a_piece_of_it():
    for text in ("v_mov_b32 v1, v2 " + "x" * 8_000_000, "v_mov_b32 v1, v2, " + "x" * 8_000_000 + " )",
                 "v_mov_b32 v1, " + "v1 " * 2_000_000):
        message = refusal(text)
        assert len(message) < 1000, len(message)


# ---------------------------------------------------------------- bounded fuzz

def _random_line(rng: random.Random, mnemonics: list[str]) -> str:
    """Token soup: mnemonics, operands, modifiers, punctuation and stray characters."""
    pieces = [rng.choice(mnemonics)]
    for _ in range(rng.randrange(8)):
        pieces.append(rng.choice((rng.choice(M.OPERANDS), rng.choice(M.MODIFIERS), ",", " ", "::", "[", "]", "(",
                                  ")", "|", "-", ":", "@", "0x", "1e99", "inf", "nan", "9" * rng.randrange(1, 60),
                                  chr(rng.randrange(32, 127)), "lit(", "abs(", "neg(", "s[", "v[", "\t")))
    return " ".join(pieces) if rng.random() < 0.5 else "".join(pieces)


def test_fuzz_every_input_assembles_or_is_a_located_asm_error():
    """Mutated corpus lines and token soup, alone and as multi-line texts: bytes or an AsmError
    whose message starts with line:column; any other exception fails the test."""
    rng = random.Random(15)
    shared = SHARED if (SHARED / "conformance" / "llvm" / f"{ARCH}.tsv.gz").exists() else None
    lines = [text for text, _ in M.mutated_lines(shared, ARCH, 2500, seed=7)] if shared else []
    mnemonics = sorted({M.split_line(x)[0] for x in lines}) or ["v_add_f32", "s_mov_b32", "global_load_b32"]
    lines += [_random_line(rng, mnemonics) for _ in range(2500)]
    texts = lines + ["\n".join(rng.sample(lines, 5)) for _ in range(200)]
    outcomes = collections.Counter()
    start = time.perf_counter()
    for text in texts:
        try:
            dsl.assemble(text, ARCH)
            outcomes["assembled"] += 1
        except dsl.AsmError as e:
            assert LOCATED.match(str(e)), f"{text!r}: {e}"
            outcomes["refused"] += 1
        except Exception as e:      # noqa: BLE001 - the point of the test
            pytest.fail(f"{text!r}: raw {type(e).__name__}: {e}")
    print(f"\nfuzz: {len(texts)} inputs, {outcomes['assembled']} assembled, {outcomes['refused']} refused "
          f"with a location, no other outcome ({time.perf_counter() - start:.1f} s)")


# ---------------------------------------------------------------- differential against llvm-mc-22

TARGETS = {"gfx1100": ("gfx1100", 32, ""), "gfx1100-w64": ("gfx1100", 64, "+wavefrontsize64"),
           "gfx1151": ("gfx1151", 32, ""), "gfx1201": ("gfx1201", 32, ""), "gfx942": ("gfx942", 64, ""),
           "gfx950": ("gfx950", 64, "")}
LINES = 3000          # mutated lines per target: about 1-2 s of dsl and 1 s of llvm-mc each

_SPECIALS = r"(src_\w+|exec_hi|exec_lo|vcc_hi|m0|null|scc)"


def _has(pattern: str):
    return lambda line: re.search(pattern, line) is not None


# Differences we keep, each a class: (corpora prefix, what LLVM says, what we say, test(line), reason).
# "accepts"/"refuses"/"bytes": LLVM accepts and we refuse, LLVM refuses and we accept, both accept with
# other bytes. A differing line no entry explains fails the test.
KNOWN = [
    ("gfx", "accepts", _has(r"^s_nop|^s_set(halt|prio)|^s_sleep|^s_trap|^s_(inc|dec)perflevel|^s_setkill"),
     "an immediate of these SOPP instructions beyond 16 bits or lit(...): LLVM 22 keeps its low 16 bits (0x10000 is 0, "
     "lit(1.0) is 0), losing the value; we refuse what does not fit 16 bits (test_dsl_simm16_sweep.py)"),
    ("gfx", "accepts", _has(r"^\S+ " + _SPECIALS + r"\b|^s_atc_probe -|^s_prefetch_data_pc_rel \d+, s\d+, 0x"),
     "a constant or a special register where LLVM 22 encodes only the field's low bits (src_scc, src_execz as a "
     "7-bit SDST or an SDWA sdst: 253 -> 0x7d; s_atc_probe -17; s_prefetch_data_pc_rel's length 0x2000) or writes "
     "a condition code as a result (v_readfirstlane_b32 src_scc, ...): we refuse a destination that is no register "
     "and a value its field cannot hold"),
    ("gfx9", "accepts", _has(r"^v_\w+_e64 .*lit\(|^v_(pk_\w+|cvt_pk_f16_f32|min3_f32|fma_mix\w*) .*lit\("),
     "lit(...) in gfx9's 64-bit VALU encoding, which has no literal: LLVM 22 writes the literal code (0xff) in the "
     "source field and no literal dword (8 bytes that do not read back); we refuse the literal"),
    ("gfx9", "refuses", _has(r"op_sel:"),
     "op_sel on gfx9 VOP3 instructions without 16-bit operands or with op_sel bits LLVM 22 refuses (another "
     "helper, opselfacts, works on gfx9 op_sel acceptance); in the same lines clamp written before op_sel"),
    ("gfx9", "accepts", _has(r"_dpp .*v\[\d+:\d+\]"),
     "a 64-bit register range as a 32-bit DPP source (v_add_f32_dpp v1, v2, v[4:5]): LLVM 22 prints it back "
     "as '/*Invalid register, operand has VGPR_32 register class*/' and encodes the first register; we refuse "
     "the width"),
    ("gfx9", "refuses", _has(r"^v_pk_\w+ v\d+, -?\d+, .*neg_lo:\[1,"),
     "neg_lo on an integer packed instruction's inline constant (v_pk_min_i16 v0, 16, 0 neg_lo:[1,0]): LLVM 22 "
     "refuses it where the source is a constant and takes it on a VGPR; we take both"),
    ("gfx950", "refuses", _has(r"^v_cvt_(sr_bf16_f32|scalef32_\w+) .*(mul|div):"),
     "output modifiers on CDNA4's new conversions to bf16/fp4/fp8: LLVM 22 gives them no OMOD operand; the "
     "manual types their results as floats, which take it"),
    ("gfx1", "accepts", _has(r"src_shared_base"),
     "LLVM 22 takes an aperture (src_shared_base) as a WMMA accumulator; we refuse it (an aperture is no "
     "inline constant)"),
    ("gfx1", "refuses", _has(r"_e64_dpp .*(, s\d+|, -\|s\d+\||, exec_hi|, 0\.5|, 0xffffffff|, -v\d+, v\d+ neg)"),
     "VOP3P DPP sources LLVM 22 refuses (a scalar, a constant or a negated source in a DPP v_fma_mix/v_dot "
     "source; 0xffffffff where it takes -1); our RDNA encoder takes them: the manuals' DPP sections limit only "
     "src0 (the DPP word's SRC0 is a VGPR) (tests/test_dsl_dpp_availability_sweep.py lists them by instruction)"),
    ("gfx1201", "accepts", _has(r"^flat_atomic_\w+ v\[\d+:\d+\], v\d+ offset:\d+ th:TH_ATOMIC_RETURN$"),
     "an RDNA4 flat atomic with TH_ATOMIC_RETURN and two operands: LLVM 22 reads the address pair as the "
     "result too; we require the result, address and data operands"),
    ("gfx1201", "refuses", _has(r"^image_\w+ .* lwe$"),
     "lwe on an RDNA4 image sample: LLVM 22 refuses it; we encode it"),
]


def _explained(corpus: str, verdict: str, line: str) -> str | None:
    return next((why for prefix, v, test, why in KNOWN if corpus.startswith(prefix) and v == verdict and test(line)),
                None)


@pytest.mark.parametrize("corpus", TARGETS)
def test_mutated_lines_are_accepted_exactly_as_llvm_mc_accepts_them(corpus):
    """Every mutated line is answered as llvm-mc-22 answers it (bytes, or a refusal), or its
    difference is a class KNOWN lists with the reason."""
    if M.llvm_mc() is None:
        pytest.skip(f"{M.LLVM_MC} not installed")
    shared_path("conformance", "llvm", f"{corpus}.tsv.gz")
    arch, wave, mattr = TARGETS[corpus]
    pairs = M.mutated_lines(SHARED, corpus, LINES, seed=2026)
    want = M.llvm_encodings([text for text, _ in pairs], arch, mattr)
    counts, listed, bad = collections.Counter(), collections.Counter(), []
    for (text, kind), llvm in zip(pairs, want):
        if llvm == "fixup":          # a symbol left to the linker: a code object's business
            continue
        try:
            got = dsl.assemble(text, arch, wave)
        except dsl.AsmError as e:
            assert LOCATED.match(str(e)), f"{text!r}: {e}"
            got = e
        verdict = "accepts" if llvm is not None and not isinstance(got, bytes) else \
            "refuses" if llvm is None and isinstance(got, bytes) else \
            "bytes" if llvm is not None and got != llvm else "agree"
        counts[verdict] += 1
        if verdict == "agree":
            continue
        why = _explained(corpus, verdict, text)
        if why:
            listed[why] += 1
        else:
            bad.append(f"{text}  [{kind}; llvm {llvm.hex() if llvm else 'refuses'}; dsl "
                       f"{got.hex() if isinstance(got, bytes) else str(got).splitlines()[0][:100]}]")
    total = sum(counts.values())
    print(f"\n{corpus}: {counts['agree']}/{total} mutated lines agree with llvm-mc "
          f"({', '.join(f'llvm {k}: {v}' for k, v in sorted(counts.items()) if k != 'agree')}); "
          f"{sum(listed.values())} listed, {len(bad)} not")
    for why, n in listed.most_common():
        print(f"  {n} x {why[:110]}")
    assert bad == [], "\n".join(bad)
    assert counts["agree"] >= 0.99 * total


# ---------------------------------------------------------------- SOPK immediates against llvm-mc-22

SOPK_VALUES = ("0", "-1", "-32768", "-32769", "32767", "32768", "65535", "65536", "0xffff", "0x10000",
               "0x8000", "-0x8000")


def _sopk_lines(arch: str) -> list[str]:
    """Every SOPK instruction of the target with each immediate above, in its operand order; a
    32-bit SDST is null on RDNA (the s_waitcnt_*cnt forms take no SGPR in LLVM's gfx11 syntax),
    s1 on CDNA (gfx9 has no null register)."""
    import isa
    from isa.mnemonics import text_mnemonic
    from dsl import syntax, syntax_gfx9
    from isa.targets import resolve_arch
    from dsl.encode import scalar_bits
    cdna = resolve_arch(arch).startswith("cdna")
    lines = []
    for d in isa.load(arch).instructions:
        if d.format != "SOPK":
            continue
        mn = text_mnemonic(d.name, arch)
        names, _ = (cdna and syntax_gfx9.SOPK_STYLE.get(mn)) or syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        sdst = "s[0:1]" if scalar_bits(d, "D0") == 64 else "s1" if cdna else "null"
        for v in SOPK_VALUES:
            ops = {"sdst": sdst, "sdst64": "s[0:1]", "imm": v, "hwreg": v, "lit": "0"}
            lines.append(f"{mn} " + ", ".join(ops[n] for n in names))
    return lines


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201", "gfx942", "gfx950"])
def test_sopk_immediates_are_taken_exactly_as_llvm_mc_takes_them(arch):
    """A 16-bit immediate the pseudocode reads unsigned (SIMM16.u16 on RDNA, S1.u16 on CDNA:
    s_cmpk_*_u32; a numeric hwreg) takes 0..65535 and refuses negatives; a signed one takes -32768..65535. Where
    llvm-mc-22 accepts a line the bytes are equal; where it refuses, ours is a located error."""
    if M.llvm_mc() is None:
        pytest.skip(f"{M.LLVM_MC} not installed")
    lines = _sopk_lines(arch)
    assert len(lines) >= 9 * len(SOPK_VALUES)
    want = M.llvm_encodings(lines, arch)
    assert sum(w is None for w in want) >= 30 and sum(isinstance(w, bytes) for w in want) >= 60
    bad = []
    for text, llvm in zip(lines, want):
        try:
            got = dsl.assemble(text, arch)
        except dsl.AsmError as e:
            assert LOCATED.match(str(e)), str(e)
            got = None
        if got != llvm:
            bad.append((text, llvm and llvm.hex(), got and got.hex()))
    assert bad == []


@pytest.mark.parametrize("arch", [ARCH, "gfx942"])
@pytest.mark.parametrize("line, column", [("s_cmpk_eq_u32 s1, -1", 19), ("s_cmpk_ge_u32 s1, 65536", 19),
                                          ("s_getreg_b32 s1, -1", 18), ("s_setreg_b32 -32768, s1", 14)])
def test_an_unsigned_sopk_immediate_out_of_range_names_its_operand(line, column, arch):
    message = refusal(line, arch)
    assert message.startswith(f"1:{column}: {line.split()[0]}: "), message
    assert "0..65535" in message, message


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_split_wait_counts_take_only_null_as_llvm_mc_does(arch):
    """RDNA3's s_waitcnt_{vs,vm,exp,lgkm}cnt: the manual's code adds the SDST SGPR to the count,
    llvm-mc-22 refuses any register but null there (isa.errata.NULL_ONLY_SDST). Bytes equal
    where it accepts; a located error at the register where it refuses."""
    if M.llvm_mc() is None:
        pytest.skip(f"{M.LLVM_MC} not installed")
    lines = [f"s_waitcnt_{c}cnt {r}, {n}" for c in ("vs", "vm", "exp", "lgkm")
             for r in ("null", "s1", "s105", "m0", "vcc_lo", "exec_lo", "ttmp0") for n in (0, 3)]
    want = M.llvm_encodings(lines, arch)
    assert sum(w is None for w in want) == 48 and sum(isinstance(w, bytes) for w in want) == 8
    for text, llvm in zip(lines, want):
        if llvm is not None:
            assert dsl.assemble(text, arch) == llvm, text
        else:
            message = refusal(text, arch)
            assert message.startswith(f"1:{text.index(' ') + 2}: {text.split()[0]}: sdst: must be null"), message


# special registers as scalar memory data, bases and offsets and as GLOBAL/SCRATCH addresses
_RDNA_MEMORY_SPECIALS = (
    [f"s_load_b32 {r}, s[0:1], 0" for r in ("m0", "exec_lo", "exec_hi", "vcc_lo", "vcc_hi", "vcc", "null", "ttmp0")]
    + [f"s_load_b64 {r}, s[0:1], 0" for r in ("exec", "vcc", "m0", "exec_lo", "vcc_lo", "null", "ttmp[0:1]")]
    + [f"s_load_b256 {r}, s[0:1], 0" for r in ("exec_hi", "vcc", "exec", "null", "s[0:7]")]
    + [f"s_buffer_load_b32 {r}, s[0:3], 0" for r in ("m0", "exec_lo", "vcc_hi", "null")]
    + [f"s_buffer_load_b128 {r}, s[0:3], 0" for r in ("vcc", "exec", "null")]
    + [f"s_load_b32 s1, {r}, 0" for r in ("vcc", "exec", "m0", "null", "exec_lo")]
    + [f"s_buffer_load_b32 s1, {r}, 0" for r in ("exec", "vcc", "s[4:7]")]
    + [f"s_load_b32 s1, s[0:1], {r}" for r in ("m0", "exec_lo", "exec_hi", "null", "vcc_lo", "exec")]
    + [f"global_load_b32 v1, v2, {r}" for r in ("null", "s[0:1]", "vcc", "exec", "exec_lo", "m0", "ttmp[0:1]")]
    + [f"global_load_b32 v1, v[2:3], {r}" for r in ("null", "off", "vcc")]
    + ["global_store_b32 v2, v1, null", "global_atomic_add_u32 v2, v1, null", "global_atomic_add_u32 v2, v1, s[2:3]"]
    + [f"global_load_addtid_b32 v5, {r}" for r in ("null", "off", "exec_hi", "s[2:3]")]    # no VADDR: null is off
    + ["global_store_addtid_b32 v1, null"]
    + [f"scratch_load_b32 v1, off, {r}" for r in ("null", "off", "m0", "exec_lo", "exec_hi", "vcc_hi", "s0", "vcc")]
    + [f"scratch_load_b32 v1, v2, {r}" for r in ("null", "off", "exec_hi", "m0")]
    + ["scratch_store_b32 off, v1, null", "scratch_store_b32 off, v1, exec_hi"])
_GFX9_MEMORY_SPECIALS = (
    [f"s_load_dword {r}, s[0:1], 0" for r in ("m0", "exec_lo", "exec_hi", "vcc_lo", "vcc", "flat_scratch_lo", "ttmp0")]
    + [f"s_load_dwordx2 {r}, s[0:1], 0" for r in ("exec", "vcc", "flat_scratch", "m0", "vcc_lo", "s[2:3]")]
    + [f"s_load_dwordx8 {r}, s[0:1], 0" for r in ("exec_hi", "vcc", "exec", "s[0:7]")]
    + [f"s_store_dword {r}, s[0:1], 0" for r in ("m0", "exec_lo", "vcc_hi")]
    + [f"s_atomic_add {r}, s[0:1], 0" for r in ("exec_lo", "s2")]
    + [f"s_memtime {r}" for r in ("exec", "vcc", "m0", "s[2:3]")]
    + [f"s_buffer_load_dword {r}, s[0:3], 0" for r in ("m0", "exec_hi", "vcc_lo")]
    + [f"s_load_dword s1, {r}, 0" for r in ("vcc", "exec", "m0", "flat_scratch")]
    + [f"s_buffer_load_dword s1, {r}, 0" for r in ("exec", "vcc", "s[4:7]")]
    + [f"scratch_load_dword v1, off, {r}" for r in ("exec_hi", "vcc_hi", "m0", "exec_lo", "s5")]
    + ["scratch_load_dword v1, v2, exec_hi", "scratch_store_dword off, v1, exec_hi"]
    + [f"global_load_dword v1, v2, {r}" for r in ("exec", "vcc", "exec_hi", "m0", "flat_scratch", "s[2:3]")])
# (arch prefix, line): differences left, each with its reason; any other differing line fails
_MEMORY_SPECIALS_LEFT = {
    ("gfx1", "global_load_b32 v1, v2, exec"): "exec as a GLOBAL base: LLVM 22's register class for it leaves EXEC "
    "out (its FLATInstructions.td asks 'TODO: Is exec allowed for saddr?'); no manual text forbids it; we take it",
    ("gfx9", "global_load_dword v1, v2, exec"): "as on RDNA",
    ("gfx120", "scratch_load_b32 v1, off, exec_hi"): "exec_hi as an RDNA4 SCRATCH offset: LLVM 22's class for it "
    "(SReg_32_XEXEC_HI) leaves exec_hi out because 0x7f, exec_hi's code, disables SADDR before gfx12 (as RDNA3's "
    "manual says, and we refuse it there); RDNA4's manual disables SADDR with NULL only; we take it",
    ("gfx120", "scratch_load_b32 v1, v2, exec_hi"): "as above",
    ("gfx120", "scratch_store_b32 off, v1, exec_hi"): "as above",
}


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_special_registers_in_memory_operands_are_taken_as_llvm_mc_takes_them(arch):
    """M0 and EXEC are no scalar memory data (the manuals' SDATA rule), a special register is as
    wide as its operand (s_load_b256 exec_hi; traits.special_registers, one check for both
    encoders), null is no GLOBAL base beside a VADDR (`off` is; it is SCRATCH's and
    global_load_addtid's), 0x7f (exec_hi, on RDNA3 and CDNA) no
    SCRATCH offset (the manual: it disables SADDR). Bytes equal where llvm-mc-22 accepts a line; a
    refusal at llvm-mc's column naming the instruction and the operand where it refuses."""
    if M.llvm_mc() is None:
        pytest.skip(f"{M.LLVM_MC} not installed")
    from .llvm_tools import mc_items
    lines = _GFX9_MEMORY_SPECIALS if arch.startswith("gfx9") else _RDNA_MEMORY_SPECIALS
    answers = mc_items(lines, arch)
    bad, left, refused = [], [], 0
    for text, (words, errors) in zip(lines, answers):
        llvm = None if errors else bytes(int(b, 16) for w in words for b in w.split(","))
        try:
            got = dsl.assemble(text, arch)
        except dsl.AsmError as e:
            got = str(e)
        if llvm is None and isinstance(got, str):
            refused += 1
            mnemonic = text.split()[0]
            if not re.match(rf"1:{errors[0][0]}: {mnemonic}: (sdata|sbase|soffset|saddr|sdst): ", got):
                bad.append(f"{text}: refused elsewhere than llvm-mc's column {errors[0][0]}: {got.splitlines()[0]}")
        elif got != llvm:
            why = next((w for (prefix, line), w in _MEMORY_SPECIALS_LEFT.items()
                        if arch.startswith(prefix) and line == text), None)
            (left if why else bad).append(f"{text}: llvm {llvm.hex() if llvm else 'refuses'}, ours "
                                          f"{got.hex() if isinstance(got, bytes) else got.splitlines()[0]}")
    print(f"\n{arch}: {len(lines) - len(bad) - len(left)}/{len(lines)} memory-operand lines as llvm-mc "
          f"({refused} refused by both); {len(left)} listed differences: {left}")
    assert bad == [], "\n".join(bad)
    assert refused >= 10


@pytest.mark.skipif(M.llvm_mc() is None, reason="llvm-mc-22 not installed")
def test_version_names_joined_by_spaced_bars_read_as_llvm_mc_reads_them():
    """`UC_VERSION_W64_BIT | UC_VERSION_W32_BIT` with blanks around the bar is one or-ed value as
    llvm-mc-22 reads it (same bytes); an unknown name is refused at its own column."""
    good = ["s_version UC_VERSION_W64_BIT | UC_VERSION_W32_BIT", "s_version UC_VERSION_GFX11 | UC_VERSION_W32_BIT",
            "s_version UC_VERSION_W64_BIT |UC_VERSION_W32_BIT", "s_version UC_VERSION_W64_BIT| UC_VERSION_W32_BIT"]
    for line, expected in zip(good, M.llvm_encodings(good, ARCH)):
        assert expected is not None and dsl.assemble(line, ARCH) == expected, line
    bad = ["s_version UC_VERSION_W64_BIT | UC_VERSION_BOGUS", "s_version UC_VERSION_BOGUS | UC_VERSION_W32_BIT"]
    assert M.llvm_encodings(bad, ARCH) == [None, None]
    for line in bad:
        column = line.index("UC_VERSION_BOGUS") + 1
        assert refusal(line).startswith(f"1:{column}: s_version: unknown version name UC_VERSION_BOGUS"), line

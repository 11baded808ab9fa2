"""Bad input to the text assembler and the disassembler, fuzzed (seeded, bounded: a few seconds
each). Lines LLVM 22 wrote (the conformance corpora of the six targets) are damaged the way
text goes wrong: tokens deleted, doubled, swapped or replaced, lines cut short, odd characters,
huge numbers, unicode, empty and nested lists, modifier values of another kind, several lines
with labels and directives. dsl.assemble must answer with bytes or a dsl.AsmError starting
with line:column, and `wavesmith asm` with exit status 1 and `file:line:column:`, never a raw
exception or a traceback. disassemble must print every byte string (undecodable words as
.long with a DisassemblyWarning), never raise.

What the fuzzing found is pinned below by class (each case: LLVM 22 refuses it too, where the
tool is installed). WAVESMITH_FUZZ_SCALE (default 1) multiplies the number of inputs."""
from __future__ import annotations

import gzip
import os
import random
import re
import traceback
import warnings

import pytest

import dsl
from dsl.disasm import DisassemblyWarning
from tests.conftest import shared_path

SCALE = float(os.environ.get("WAVESMITH_FUZZ_SCALE", "1"))
# corpus -> (arch, wave size)
TARGETS = {"gfx1100": ("gfx1100", None), "gfx1100-w64": ("gfx1100", 64), "gfx1151": ("gfx1151", None),
           "gfx1201": ("gfx1201", None), "gfx942": ("gfx942", None), "gfx950": ("gfx950", None)}
LOCATED = re.compile(r"\d+:\d+: \S")

# what a damaged line may gain
ODD = ["", ",", ",,", "[", "]", "[]", "[[1]]", "[1,[0]]", ":", "::", "(", ")", "()", "|", "||", "-", "--", "~", "!",
       "99999999999999999999999999", "0x" + "f" * 40, "-0x8000000000000000", "0x1ffffffffffffffff", "1e999", "nan",
       "inf", "0b", "0x", "08", "é", "∞", "\u200b", "\x00", "\t", "\\", "\"", "'", "@", "#", ";", "//", "/*", "$", "%",
       "&", "*", "v", "s", "v[", "v[1:", "v[1:0]", "v[99999999999]", "s[0:99999999999999]", "a999",
       "s9999999999999999999", "lit(", "lit()", "abs(", "neg(", "sext(", "offset:", "offset:[]", "op_sel:[]",
       "op_sel:[[0]]", "op_sel:[0,1", "dpp8:[]", "quad_perm:[]", "row_mask:", "v1.x", "v1.", ".l", "vcc_", "ttmp[",
       "a[0:1]", "s-1", "v-1", "1:", "1:2", ":1", "0:0:0", "(" * 400 + "1" + ")" * 400, "|" * 400 + "v1"]
BIG = ["99999999999999999999", "4294967296", "-1", "0x100000000", "256", "1024", "65536", "0x1ffffffffffffffff"]
# modifier values of every kind, for modifiers that take another
VALUES = ["lit()", "lit(1)", "foo", "[1]", "[]", "[[1]]", "1.5", "-1", "swizzle()", "swizzle(QUAD_PERM)",
          "99999999999999999999", "\"s\"", "v1", "s[0:1]", "0x1ffffffffffffffff", "abs(1)", "neg(1)", "-foo", "foo+1",
          "[1,2,3,4,5,6,7,8,9]", "[v1]", "[1.5]", "[-1]", "[foo]", "[lit(1)]", "2D", "0b11", "sext(1)", "1|2", "inf",
          "x(y(z))"]
MODIFIERS = ["offset", "offset0", "offset1", "op_sel", "op_sel_hi", "neg_lo", "neg_hi", "row_mask", "bank_mask",
             "bound_ctrl", "fi", "dpp8", "quad_perm", "row_shl", "row_share", "format", "dmask", "dim", "mul", "div",
             "wait_exp", "wait_vdst", "byte_sel", "index_key", "cbsz", "abid", "blgp", "dst_sel", "src0_sel", "th",
             "scope", "swizzle"]
# lines that join a corpus line into a text of several
LINES = ["L:", "L: s_nop 0", "s_branch L", "s_cbranch_scc0 L", "s_branch L+4", "s_branch 99999999", ".text", ".data",
         ".byte 1", ".long L", "L::", ":", "1:", "L: L:", "s_mov_b32 s0, L", "v_mov_b32 v0, L+4", "/* x", "*/",
         "/* a */ s_nop 0", "::", "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v2, v3", "v_dual_mov_b32 v0, v1 ::",
         "\\", "\r", "s_nop 0 ; s_nop 1", "é:", "s_waitcnt vmcnt(0) & lgkmcnt(0)", "s_waitcnt vmcnt(99)",
         "s_sendmsg sendmsg(MSG_X)", "s_getreg_b32 s0, hwreg(HW_REG_X, 99, 99)"]


def _corpus(name: str, column: int) -> list[str]:
    rows = gzip.open(shared_path("conformance", "llvm", f"{name}.tsv.gz"), "rt").read().splitlines()[1:]
    return [r.split("\t")[column] for r in rows]


def _damaged(rng: random.Random, line: str) -> str:
    toks = line.split(" ")
    k = rng.randrange(9)
    if k == 0 and len(toks) > 1:
        del toks[rng.randrange(len(toks))]
    elif k == 1:
        i = rng.randrange(len(toks))
        toks.insert(i, toks[i])
    elif k == 2 and len(toks) > 1:
        i, j = rng.randrange(len(toks)), rng.randrange(len(toks))
        toks[i], toks[j] = toks[j], toks[i]
    elif k == 3:
        return line[:rng.randrange(len(line) + 1)]
    elif k == 4:
        at = rng.randrange(len(line) + 1)
        return line[:at] + "".join(rng.choice(ODD) for _ in range(rng.randint(1, 3))) + line[at:]
    elif k == 5:
        toks[rng.randrange(len(toks))] = rng.choice(ODD)
    elif k == 6:
        return re.sub(r"\d+", lambda m: rng.choice(BIG), line, count=rng.randint(1, 3))
    elif k == 7:
        return re.sub(r"(\w):(\[[^\]]*\]|[^\s,]+)", lambda m: f"{m.group(1)}:{rng.choice(VALUES)}", line)
    else:
        return f"{line} {rng.choice(MODIFIERS)}:{rng.choice(VALUES)}"
    return " ".join(toks)


def _text(rng: random.Random, rows: list[str]) -> str:
    if rng.random() < 0.8:
        line = rng.choice(rows)
        for _ in range(rng.randint(1, 3)):
            line = _damaged(rng, line)
        return line
    lines = [_damaged(rng, rng.choice(rows)) if rng.random() < 0.5 else rng.choice(LINES)
             for _ in range(rng.randint(2, 5))]
    return rng.choice(["\n", "\r\n", "\n\n"]).join(lines)


def _where(e: BaseException) -> str:
    frame = traceback.extract_tb(e.__traceback__)[-1]
    return f"{type(e).__name__} at {os.path.relpath(frame.filename)}:{frame.lineno}: {str(e)[:160]}"


@pytest.mark.parametrize("name", list(TARGETS))
def test_damaged_lines_assemble_or_get_an_asm_error_with_line_and_column(name):
    arch, wave = TARGETS[name]
    rows = _corpus(name, 2)
    rng = random.Random(f"bad-input {name}")
    counts, raw = {"assembled": 0, "refused": 0}, []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(int(1500 * SCALE)):
            text = _text(rng, rows)
            try:
                dsl.assemble(text, arch, wave_size=wave)
                counts["assembled"] += 1
            except dsl.AsmError as e:
                if not LOCATED.match(str(e)):
                    raw.append((text, f"AsmError without line:column: {str(e)[:160]}"))
                counts["refused"] += 1
            except Exception as e:          # noqa: BLE001 - the property under test
                raw.append((text, _where(e)))
    print(f"\n{name}: {counts['assembled']} assembled, {counts['refused']} refused at line:column, {len(raw)} raw")
    assert not raw, "\n".join(f"{t!r}: {w}" for t, w in raw[:10])
    assert counts["assembled"] > 20 and counts["refused"] > 1000


def test_the_asm_command_names_file_line_and_column(tmp_path, capsys):
    import wavesmith
    rows = _corpus("gfx1100", 2)
    rng = random.Random("bad-input asm command")
    source = tmp_path / "k.s"
    bad = []
    for _ in range(int(60 * SCALE)):
        source.write_text("\n".join(_damaged(rng, rng.choice(rows)) for _ in range(rng.randint(1, 3))) + "\n",
                          encoding="utf-8", errors="surrogateescape")
        rc = wavesmith.main(["asm", str(source), "--arch", "gfx1100"])
        err = capsys.readouterr().err
        if rc == 0:
            continue
        first = err.split("\n")[0]
        if rc != 1 or not first.startswith(f"{source}:") or not LOCATED.match(first[len(str(source)) + 1:]) \
                or "Traceback" in err:
            bad.append((source.read_text(errors="replace"), rc, err[-300:]))
    assert not bad, bad[:5]


@pytest.mark.parametrize("name", list(TARGETS))
def test_random_and_cut_bytes_disassemble_without_raising(name):
    arch, wave = TARGETS[name]
    rows = [bytes.fromhex(b) for b in _corpus(name, 1)]
    rng = random.Random(f"bad-input bytes {name}")
    raw, undecodable = [], 0
    for _ in range(int(1000 * SCALE)):
        k = rng.randrange(4)
        if k == 0:                          # random bytes
            data = rng.randbytes(rng.randrange(0, 40))
        elif k == 1:                        # an instruction cut short
            b = rng.choice(rows)
            data = b[:rng.randrange(len(b) + 1)]
        elif k == 2:                        # instructions with bytes overwritten, cut anywhere
            data = bytearray(b"".join(rng.choice(rows) for _ in range(rng.randint(1, 4))))
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            data = bytes(data[:rng.randrange(len(data) + 1)])
        else:                               # a bit flipped, and some bytes after
            data = bytearray(rng.choice(rows))
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            data = bytes(data) + rng.randbytes(rng.choice([0, 1, 2, 3, 4, 8]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                text = dsl.disassemble(data, arch, wave_size=wave)
                assert isinstance(text, str)
            except Exception as e:          # noqa: BLE001 - the property under test
                raw.append((data.hex(), _where(e)))
        others = [w for w in caught if not issubclass(w.category, DisassemblyWarning)]
        if others:
            raw.append((data.hex(), f"{others[0].category.__name__}: {others[0].message}"))
        undecodable += bool(caught)
    print(f"\n{name}: {undecodable} byte strings with undecodable words, {len(raw)} raw")
    assert not raw, "\n".join(f"{d}: {w}" for d, w in raw[:10])
    assert undecodable > 100


# ------------------------------------------------------------------ the classes found, pinned

# (target, line, column LLVM and we report) by class; LLVM 22 refuses every one
FOUND = [
    # a term the lexer cannot convert as a line's first token: raw OperandError without line:column
    ("gfx1100", "v[99999999999]", 1), ("gfx1100", "v[1:0]", 1), ("gfx1100", "a999", 1),
    ("gfx942", "s9999999999999999999", 1),
    # a modifier value of another kind (a call where an integer is wanted): TypeError in the encoder
    ("gfx1100", "ds_or_b64 v142, v[64:65] offset:lit()", 33),
    ("gfx1100", "scratch_load_d16_hi_u8 v128, off, s2 offset:lit(1)", 45),
    ("gfx1100", "s_load_b512 s[0:15], s[2:3], s84 offset:sext(1) dlc", 41),
    ("gfx1100", "tbuffer_store_format_xy v[44:45], v201, s[80:83], s95 format:sext(1) offen offset:1643 glc", 62),
    ("gfx1100", "buffer_store_d16_format_xyz v[187:188], v208, s[20:23], s5 idxen offset:swizzle(QUAD_PERM,0,1,2,3)",
     73),
    # an integer of more than 64 bits: LLVM's "literal value out of range"; we truncated it (gfx942's
    # ds offset), or printed it into a message Python refuses to format (5000 hex digits)
    ("gfx942", "ds_read_b32 v0, v1 offset:0x1ffffffffffffffff", 27), ("gfx1100", "s_nop 0x1ffffffffffffffff", 7),
    ("gfx1100", "s_nop 0x" + "f" * 5000, 7), ("gfx942", "s_nop 0x" + "f" * 5000, 7),
    ("gfx1100", "v_mov_b32 v0, 18446744073709551616", 15),
]


@pytest.mark.parametrize("arch, line, column", FOUND, ids=[f"{a}-{x[:40]}" for a, x, _ in FOUND])
def test_found_inputs_are_refused_at_their_column(arch, line, column):
    with pytest.raises(dsl.AsmError, match=rf"^1:{column}: "):
        dsl.assemble(line, arch)


def test_llvm_refuses_the_found_inputs_too_at_the_same_column():
    from tests.llvm_tools import mc_errors
    for arch in sorted({a for a, _, _ in FOUND}):
        cases = [(x, c) for a, x, c in FOUND if a == arch]
        errors = mc_errors([x for x, _ in cases], arch)
        assert {i: errors.get(i, (None,))[0] for i in range(len(cases))} == {i: c for i, (_, c) in enumerate(cases)}


def test_64_bit_integers_still_assemble_as_llvm_reads_them():
    # 0xffffffffffffffff and 18446744073709551615 are -1 to LLVM (an inline constant)
    assert dsl.assemble("s_mov_b32 s0, 0xffffffffffffffff", "gfx1100") == bytes.fromhex("c10080be")
    assert dsl.assemble("s_mov_b32 s0, 18446744073709551615", "gfx942") == bytes.fromhex("c10080be")


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942"])
def test_deeply_nested_operands_get_an_asm_error_not_a_recursion_error(arch):
    for line in ["s_mov_b32 s0, " + "(" * 5000 + "1" + ")" * 5000, "s_mov_b32 s0, " + "|" * 4000 + "v1",
                 "s_mov_b32 s0, " + "neg(" * 3000 + "1" + ")" * 3000]:
        with pytest.raises(dsl.AsmError, match=r"^1:\d+: "):    # (how deep Python reads depends on its stack)
            dsl.assemble(line, arch)
    with pytest.raises(dsl.AsmError, match=r"^1:15: an operand nested too deeply to read"):
        dsl.assemble("s_mov_b32 s0, " + "(" * 50000 + "1" + ")" * 50000, arch)


@pytest.mark.parametrize("arch", ["gfx1100", "gfx942"])
def test_an_operand_count_error_on_a_very_long_line_takes_linear_time(arch):
    import time
    dsl.assemble("v_add_f32 v0, v1, v2", arch)
    start = time.perf_counter()
    with pytest.raises(dsl.AsmError, match="got 50003"):
        dsl.assemble("v_add_f32 v0, v1, " + "v2, " * 50000 + "v3", arch)
    assert time.perf_counter() - start < 10      # (the column of each term was a sum over all before it: 260 s)


def test_a_vopd_word_with_an_unused_half_opcode_is_undecodable():
    # OPX = V_DUAL_LSHLREV_B32, OPY = 0x1e (no VOPD opcode): decoded with one half, then a raw
    # ValueError; now .long, as LLVM ("invalid instruction encoding")
    data = bytes.fromhex("9c00e3cbd07d789b")
    with pytest.warns(DisassemblyWarning):
        assert dsl.disassemble(data, "gfx1100").startswith(".long 0xcbe3009c")
    from tests.llvm_tools import mc_disassembly_each
    assert mc_disassembly_each([data], "gfx1100") == [None]

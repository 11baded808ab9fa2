"""Mutated assembly lines for the assembler's strictness tests (test_dsl_asm_strict.py).

Lines LLVM 22 accepts (the conformance corpora and LLVM's gfx11 MC tests) are changed the way
a user's text goes wrong: an operand of another kind or width, an operand too many or too
few, a modifier the instruction has not, a modifier value out of range, another encoding
suffix, another mnemonic with the same operands. llvm-mc-22 says which of them are
instructions (and their bytes); dsl.assemble must agree. A mutation is drawn from a seeded
random generator, so a run is reproducible from its seed."""
from __future__ import annotations

import gzip
import random
import re
import shutil
from pathlib import Path

LLVM_MC = "llvm-mc-22"

# operands as a user might write them, of every kind (no symbols: llvm-mc turns those into
# fixups, which only a code object resolves)
OPERANDS = (
    "v0", "v1", "v7", "v255", "v[2:3]", "v[4:7]", "v[8:15]", "v[254:255]", "v1.l", "v1.h", "v200.h",
    "s0", "s5", "s105", "s[2:3]", "s[4:7]", "s[3:4]", "s[8:15]", "ttmp3", "ttmp[4:5]",
    "vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "null", "scc", "off",
    "src_scc", "src_shared_base", "src_lds_direct", "src_execz", "src_vccz",
    "0", "1", "-1", "-16", "-17", "64", "65", "0x41", "0xffff", "0x12345678", "0xffffffff", "0x1ffffffff",
    "0.5", "-4.0", "1.0", "3.7", "0.15915494", "65520.0", "1e6",
    "-v2", "|v2|", "-|v2|", "abs(v2)", "neg(v2)", "-s3", "|s3|", "-v[2:3]", "lit(1)", "lit(1.0)",
    "a0", "v[2:1]", "v256",
)

# modifiers, of every family of instruction
MODIFIERS = (
    "clamp", "mul:2", "mul:4", "div:2", "mul:3",
    "op_sel:[1,0]", "op_sel:[0,1,0]", "op_sel:[1,1,1,1]", "op_sel:[0,0,0,0,0,0,0]", "op_sel:[2,0,0,0]",
    "op_sel_hi:[1,1]", "op_sel_hi:[0,0,0]", "neg_lo:[1,0]", "neg_hi:[0,1,0]", "neg_lo:[1,1,1,1]",
    "offset:0", "offset:4", "offset:-4", "offset:4095", "offset:4096", "offset:-4097", "offset:65536",
    "offset0:4", "offset1:255", "offset1:256",
    "glc", "slc", "dlc", "gds", "idxen", "offen", "tfe", "lds", "format:[BUF_FMT_32_FLOAT]", "format:22",
    "row_share:3", "row_share:16", "row_shl:1", "row_shl:0", "row_xmask:15", "row_mirror", "row_half_mirror",
    "quad_perm:[0,1,2,3]", "quad_perm:[4,1,2,3]", "row_mask:0x3", "bank_mask:0x1", "bound_ctrl:1", "bound_ctrl:0",
    "fi:1", "dpp8:[7,6,5,4,3,2,1,0]", "dpp8:[0,1,2,3,4,5,6]",
    "wait_vdst:1", "wait_vdst:16", "wait_exp:2", "wait_exp:8",
    "vmcnt(0)", "lgkmcnt(0)", "expcnt(1)", "nv", "unorm", "d16",
)

SUFFIXES = ("", "_e32", "_e64", "_dpp", "_e64_dpp", "_sdwa")
TYPE_SWAPS = (("_f32", "_f16"), ("_f16", "_f32"), ("_f32", "_f64"), ("_f64", "_f32"), ("_b32", "_b64"),
              ("_b64", "_b32"), ("_u32", "_u16"), ("_i32", "_i16"), ("_u16", "_u32"), ("_b32", "_b128"))

KINDS = ("operand", "add_modifier", "drop_modifier", "drop_operand", "extra_operand", "suffix",
         "mnemonic", "type", "swap_operands")


def split_top(text: str, sep: str) -> list[str]:
    """`text` split at `sep` characters outside brackets and parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch in sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


def split_line(line: str) -> tuple[str, list[str], list[str]]:
    """(mnemonic, operands, modifiers) of one instruction: modifiers follow the last operand
    after blanks."""
    mnemonic, _, rest = line.strip().partition(" ")
    chunks = [c.strip() for c in split_top(rest, ",")] if rest.strip() else []
    modifiers: list[str] = []
    if chunks:
        words = [w for w in split_top(chunks[-1], " \t") if w]
        chunks[-1:] = words[:1]
        modifiers = words[1:]
    return mnemonic, [c for c in chunks if c], modifiers


def join_line(mnemonic: str, operands: list[str], modifiers: list[str]) -> str:
    text = mnemonic + (" " + ", ".join(operands) if operands else "")
    return text + ("".join(" " + m for m in modifiers))


def base_lines(shared: Path, corpus: str) -> list[str]:
    """Instruction lines LLVM 22 accepts: the corpus rows it re-encodes (no MIMG or EXP,
    checked in tests/test_dsl_asm_image.py and tests/test_dsl_export.py: adding their rows would draw
    another sample of mutated lines) and, for gfx1100, the instruction lines of LLVM's gfx11 MC tests."""
    lines = []
    with gzip.open(shared / "conformance" / "llvm" / f"{corpus}.tsv.gz", "rt") as f:
        next(f)
        for row in f:
            family, _, text, reenc = row.rstrip("\n").split("\t")
            if reenc != "-" and family not in ("MIMG", "EXP"):
                lines.append(text)
    if corpus == "gfx1100":
        for path in sorted((shared / "conformance" / "llvm-mc").glob("gfx11_asm_*.s")):
            for line in path.read_text().splitlines():
                line = line.split("//")[0].strip()
                if line and not line.startswith((".", "image_", "exp ")):
                    lines.append(line)
    return lines


def mutate(line: str, rng: random.Random, mnemonics: list[str]) -> tuple[str, str]:
    """(a mutation of `line`, its kind)."""
    kind = rng.choice(KINDS)
    halves = line.split("::")
    which = rng.randrange(len(halves))
    mnemonic, operands, modifiers = split_line(halves[which])
    if kind == "operand" and operands:
        operands[rng.randrange(len(operands))] = rng.choice(OPERANDS)
    elif kind == "add_modifier":
        modifiers.insert(rng.randrange(len(modifiers) + 1), rng.choice(MODIFIERS))
    elif kind == "drop_modifier" and modifiers:
        modifiers.pop(rng.randrange(len(modifiers)))
    elif kind == "drop_operand" and operands:
        operands.pop(rng.randrange(len(operands)))
    elif kind == "extra_operand":
        operands.insert(rng.randrange(len(operands) + 1), rng.choice(OPERANDS))
    elif kind == "suffix":
        base = re.sub(r"(_e64_dpp|_e32|_e64|_dpp|_sdwa)$", "", mnemonic)
        mnemonic = base + rng.choice(SUFFIXES)
    elif kind == "mnemonic":
        mnemonic = rng.choice(mnemonics)
    elif kind == "type":
        swaps = [(a, b) for a, b in TYPE_SWAPS if a in mnemonic]
        if swaps:
            a, b = rng.choice(swaps)
            mnemonic = mnemonic.replace(a, b, 1)
    elif kind == "swap_operands" and len(operands) > 1:
        i, j = rng.sample(range(len(operands)), 2)
        operands[i], operands[j] = operands[j], operands[i]
    else:
        kind = "unchanged"
    halves[which] = join_line(mnemonic, operands, modifiers)
    return " :: ".join(h.strip() for h in halves), kind


def mutated_lines(shared: Path, corpus: str, count: int, seed: int) -> list[tuple[str, str]]:
    """`count` (line, mutation kind) pairs drawn from the corpus with `seed`, each distinct."""
    rng = random.Random(seed)
    lines = base_lines(shared, corpus)
    mnemonics = sorted({split_line(x.split("::")[0])[0] for x in lines})
    out, seen = [], set()
    while len(out) < count:
        text, kind = mutate(rng.choice(lines), rng, mnemonics)
        if text not in seen:
            seen.add(text)
            out.append((text, kind))
    return out


def llvm_mc() -> str | None:
    return shutil.which(LLVM_MC)


def llvm_encodings(lines: list[str], mcpu: str, mattr: str = "") -> list:
    """LLVM's answer for each line, in one llvm-mc run: its bytes (every statement's encoding, in
    order), None where it reports an error on that line, or "fixup" where it leaves a symbol for
    the linker. Lines and answers are matched by labels between the lines (tests.llvm_tools.mc_items),
    never by counting encodings."""
    from .llvm_tools import mc_items
    out = []
    for words, errors in mc_items(lines, mcpu, mattr or None, mc=llvm_mc()):
        bytes_ = [w for enc in words for w in enc.split(",")]
        out.append(None if errors else "fixup" if any(not w.startswith("0x") for w in bytes_)
                   else bytes(int(w, 16) for w in bytes_))
    return out

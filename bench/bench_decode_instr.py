"""The disassembler's route, bytes -> `Instr` -> text, on each LLVM 22 corpus: per format and arch
how many rows print as LLVM's text, and the CPU time per instruction of each step, measured in the
same run.

    python bench/bench_decode_instr.py [--arch gfx1100 ...] [--repeat 3]

For each arch: rows that decode, then per format (DPP/SDWA forms of VALU formats as their own
rows, e.g. VOP1_DPP16) the rows whose decoded Instr (`disasm.instr_of`: instr_fields.direct_instr,
instr_fields_gfx9.gfx9_instr) prints (`instr_text`) as LLVM's text / all rows of that format; then
the CPU time per instruction of decoding the fields (`decode_one`), building the Instr from them
and printing it, and, for scale, of parsing LLVM's text of the same rows into an Instr (the rows
whose text it reads). The best of --repeat runs is kept."""
from __future__ import annotations

import argparse
import collections
import gzip
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import isa  # noqa: E402
from dsl import families  # noqa: E402
from dsl.asm_parse import parse  # noqa: E402
from dsl.decode import DecodeError, decode_one  # noqa: E402
from dsl.disasm import instr_of  # noqa: E402
from dsl.instr_text import instr_text  # noqa: E402

ARCHS = ["gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942", "gfx950"]


def _shared() -> str:
    return os.environ.get("WAVESMITH_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "shared")


def _rows(name: str) -> list[tuple[bytes, str]]:
    """(bytes, LLVM's text) of each corpus row."""
    with gzip.open(os.path.join(_shared(), "conformance", "llvm", f"{name}.tsv.gz"), "rt") as f:
        return [(bytes.fromhex(cols[1]), cols[2]) for cols in (line.rstrip("\n").split("\t") for line in list(f)[1:])]


def _parses(text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _kind(inst) -> str:
    fmt = inst.fmt.name
    return f"{fmt}_{inst.dpp_kind}" if inst.dpp_kind else fmt


def _best(fn, items, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for x in items:
            fn(x)
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", action="append")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    grand_ok = grand_total = 0
    for name in args.arch or ARCHS:
        arch, wave = (name[:-4], 64) if name.endswith("-w64") else (name, isa.WAVE_SIZE[isa.resolve_arch(name)])
        spec = families.load_for_disassembly(arch)
        decoded = []      # (bytes, LLVM's text, Instruction, Instr)
        for data, text in _rows(name):
            try:
                inst = decode_one(spec, data, 0)
                decoded.append((data, text, inst, instr_of(spec, inst, wave)))
            except DecodeError:
                pass
        total, ok = collections.Counter(), collections.Counter()
        for _, text, inst, instr in decoded:
            k = _kind(inst)
            total[k] += 1
            ok[k] += instr_text(instr, spec) == text
        n, n_ok = sum(total.values()), sum(ok.values())
        grand_total += n
        grand_ok += n_ok
        print(f"\n{name}: {n_ok}/{n} decoded rows print as LLVM's text ({100 * n_ok / n:.2f}%)")
        for k in sorted(total, key=lambda k: (-total[k], k)):
            print(f"  {k:14s} {ok[k]:5d}/{total[k]:5d}")
        t_decode = _best(lambda row: decode_one(spec, row[0], 0), decoded, args.repeat)
        t_build = _best(lambda row: instr_of(spec, row[2], wave), decoded, args.repeat)
        t_print = _best(lambda row: instr_text(row[3], spec), decoded, args.repeat)
        texts = [text for _, text, _, _ in decoded if _parses(text)]    # (not LLVM's few misprints)
        t_parse = _best(parse, texts, args.repeat) * n / len(texts)
        us = 1e6 / n
        print(f"  time per instruction: decode {us * t_decode:.1f} us, build the Instr {us * t_build:.1f} us, "
              f"print it {us * t_print:.1f} us (bytes to text {us * (t_decode + t_build + t_print):.1f} us); "
              f"parsing LLVM's text into an Instr {us * t_parse:.1f} us")
    print(f"\nall: {grand_ok}/{grand_total} decoded rows print as LLVM's text ({100 * grand_ok / grand_total:.2f}%)")


if __name__ == "__main__":
    main()

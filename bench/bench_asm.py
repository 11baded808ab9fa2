#!/usr/bin/env python3
"""Assembler and disassembler speed of dsl against LLVM 22's llvm-mc, measured in the same run.

Builds an N-line assembly file by cycling, in a fixed shuffled order, through the LLVM
corpus rows of ../shared/conformance/llvm/<arch>.tsv.gz (rows LLVM re-assembles,
reenc != '-', every format; rows dsl.assemble rejects are left out so the file
assembles as a whole), then times

  encode: dsl.assemble(file text) vs `llvm-mc-22 -arch=amdgcn -mcpu=<arch> -filetype=obj`
  decode: dsl.disassemble(bytes)  vs `llvm-mc-22 --disassemble -arch=amdgcn -mcpu=<arch>`

The decode input is LLVM's encoding (reenc) of the same N lines, given to llvm-mc as
hex-byte text, one instruction per line. llvm-mc times include its process start-up, which
is printed separately. Each row shows wall-clock and CPU seconds (user + system, of this
process or of the llvm-mc child): on a shared machine the CPU ratio is the steadier one.
The assembler's row is split into its parse and the encoding. Goal: dsl.assemble
within 3x of llvm-mc.

`--breakdown` splits the parse further: the lexer alone (each line's tokens, classified) and
the parser that builds statements from them.

    python bench/bench_asm.py [--lines 100000] [--arch gfx1100] [--repeat 1] [--profile] [--breakdown]
"""
from __future__ import annotations

import argparse
import cProfile
import gzip
import io
import os
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import dsl  # noqa: E402
import dsl.asm  # noqa: E402

SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))
LLVM_MC = "llvm-mc-22"
GOAL = 3.0


def load_rows(arch: str) -> list[tuple[str, str]]:
    """(text, reenc hex) of the corpus rows LLVM's assembler accepts."""
    path = SHARED / "conformance" / "llvm" / f"{arch}.tsv.gz"
    if not path.exists():
        sys.exit(f"{path} not found (set WAVESMITH_SHARED to the shared resources folder)")
    rows = []
    with gzip.open(path, "rt") as f:
        header = next(f).rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if cells[col["reenc"]] == "-":
                continue
            rows.append((cells[col["text"]], cells[col["reenc"]]))
    return rows


def dsl_accepted(rows, arch: str):
    """Rows dsl.assemble accepts on their own, and how many it rejects / encodes differently."""
    kept, rejected, differ = [], 0, 0
    for text, reenc in rows:
        try:
            got = dsl.assemble(text, arch)
        except Exception:
            rejected += 1
            continue
        differ += got.hex() != reenc
        kept.append((text, reenc))
    return kept, rejected, differ


def lexer_alone(text: str):
    """The tokens of every line of `text`, as the parser reads them (asm_lexer.tokens and the
    classification of each token text), building no statements."""
    from dsl.asm_lexer import tokens
    from dsl.asm_parse import _ENTRIES
    get = _ENTRIES.__getitem__
    with dsl.asm.collector_paused():
        return [list(map(get, tokens(line))) for line in text.split("\n")]


def cycle(rows, n: int):
    """n lines cycling through the rows in a fixed shuffled order (families mixed at any n)."""
    order = list(rows)
    random.Random(0).shuffle(order)
    return [order[i % len(order)] for i in range(n)]


@dataclass
class Timing:
    wall: float             # seconds on the clock
    cpu: float              # seconds of CPU (user + system) the work used: steadier on a busy machine
    result: object = None


def best_of(repeat: int, fn) -> Timing:
    """Best wall and best CPU time of `repeat` runs of fn() in this process."""
    best = Timing(float("inf"), float("inf"))
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        best = Timing(min(best.wall, time.perf_counter() - w), min(best.cpu, time.process_time() - c), result)
    return best


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_llvm(repeat: int, args: list[str], stdin_path: str | None = None) -> Timing:
    """Best wall and CPU time of `repeat` runs of an LLVM tool (CPU from the child's rusage)."""
    best = Timing(float("inf"), float("inf"))
    for _ in range(repeat):
        w, c = time.perf_counter(), _children_cpu()
        if stdin_path is None:
            p = subprocess.run(args, capture_output=True, text=True)
        else:
            with open(stdin_path) as f:
                p = subprocess.run(args, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        best = Timing(min(best.wall, time.perf_counter() - w), min(best.cpu, _children_cpu() - c), p)
    return best


def table(title: str, n: int, rows: list[tuple[str, Timing | None, str]], ratio_of: tuple[str, str] | None,
          goal: float | None = None) -> None:
    """Print one timing table: wall s, CPU s, lines/s (CPU) per row, then the ratio of two rows."""
    print(f"{title} ({n:,} lines)")
    print(f"  {'':<34s}{'wall s':>9s}{'CPU s':>9s}{'lines/s (CPU)':>15s}")
    by_name = {}
    for name, t, note in rows:
        if t is None:
            print(f"  {name:<34s}{'-':>9s}{'-':>9s}{'-':>15s}  {note}")
            continue
        by_name[name] = t
        lps = f"{n / t.cpu:,.0f}" if t.cpu > 0 else "inf"
        print(f"  {name:<34s}{t.wall:9.3f}{t.cpu:9.3f}{lps:>15s}  {note}")
    if ratio_of and all(k in by_name for k in ratio_of):
        a, b = by_name[ratio_of[0]], by_name[ratio_of[1]]
        verdict = ""
        if goal is not None:
            verdict = f"  goal <= {goal:.0f}x: {'met' if a.cpu / b.cpu <= goal else 'NOT met'}"
        print(f"  {'ratio ' + ratio_of[0].split()[0] + ' / ' + ratio_of[1].split()[0]:<34s}"
              f"{a.wall / b.wall:8.1f}x{a.cpu / b.cpu:8.1f}x{'':15s}{verdict}")
    print()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints the encode and decode times of dsl and llvm-mc-22 and their "
                                        "ratios; llvm-mc is skipped with a message when it is not on PATH.")
    ap.add_argument("--lines", type=int, default=100_000, help="instructions in the generated file (default 100000)")
    ap.add_argument("--arch", default="gfx1100", help="target; reads conformance/llvm/<arch>.tsv.gz (default gfx1100)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement, best is kept (default 1)")
    ap.add_argument("--profile", action="store_true", help="also cProfile dsl.assemble and print the top 15 cumulative")
    ap.add_argument("--breakdown", action="store_true",
                    help="split the parse into the lexer and the parser")
    ap.add_argument("--keep", metavar="DIR", help="write the generated .s / hex files here instead of a temp dir")
    args = ap.parse_args(argv)

    rows = load_rows(args.arch)
    t = time.perf_counter()
    dsl.assemble("s_nop 0", args.arch)          # one-time setup: ISA tables
    setup = time.perf_counter() - t
    kept, rejected, differ = dsl_accepted(rows, args.arch)
    if not kept:
        sys.exit("dsl.assemble accepts none of the corpus rows")
    lines = cycle(kept, args.lines)
    text = "\n".join(t for t, _ in lines) + "\n"
    hex_text = "\n".join(",".join(f"0x{r[i:i + 2]}" for i in range(0, len(r), 2)) for _, r in lines) + "\n"
    blob = b"".join(bytes.fromhex(r) for _, r in lines)

    print(f"corpus {args.arch}: {len(rows)} rows (reenc != '-'); dsl rejects {rejected}, "
          f"encodes {differ} differently from LLVM; {len(kept)} rows cycled to {len(lines)} lines "
          f"({len(text) / 1e6:.1f} MB text, {len(blob) / 1e6:.2f} MB code)")
    print(f"dsl one-time setup (ISA tables): {setup:.3f} s\n")

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="wavesmith-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    asm_path, hex_path, empty_path = tmp / "bench.s", tmp / "bench.hex", tmp / "empty.s"
    asm_path.write_text(text)
    hex_path.write_text(hex_text)
    empty_path.write_text("")

    try:
        llvm = shutil.which(LLVM_MC)
        if llvm is None:
            print(f"{LLVM_MC} not on PATH: the LLVM rows are skipped\n")
        base = [llvm, "-arch=amdgcn", f"-mcpu={args.arch}"]

        # ---- encode: the whole assembler, and its parse on its own (where the time goes)
        t_asm = best_of(args.repeat, lambda: dsl.assemble(text, args.arch))
        t_parse = best_of(args.repeat, lambda: dsl.asm.parse(text))
        rows = [("dsl.assemble", t_asm, f"{len(t_asm.result)} bytes"),
                ("  of which: parse", t_parse, f"{100 * t_parse.cpu / t_asm.cpu:.0f}% of the CPU time")]
        if args.breakdown:
            t_lex = best_of(args.repeat, lambda: lexer_alone(text))
            rows += [("    lexer", t_lex, "tokens of each line, classified"),
                     ("    parser", Timing(t_parse.wall - t_lex.wall, t_parse.cpu - t_lex.cpu), "statements from the tokens")]
        rows.append(("  of which: encode", Timing(t_asm.wall - t_parse.wall, t_asm.cpu - t_parse.cpu), ""))
        if llvm is not None:
            start = run_llvm(args.repeat, base + ["-filetype=obj", "-o", os.devnull, str(empty_path)])
            t_mc = run_llvm(args.repeat, base + ["-filetype=obj", "-o", os.devnull, str(asm_path)])
            if t_mc.result.returncode != 0:
                print(f"  {LLVM_MC} failed ({t_mc.result.returncode}): {t_mc.result.stderr.strip()[:400]}")
            rows.append((f"{LLVM_MC} -filetype=obj", t_mc, f"start-up {start.wall:.3f} s wall"))
        table("encode (assemble)", len(lines), rows, ("dsl.assemble", f"{LLVM_MC} -filetype=obj"), GOAL)

        # ---- decode
        def disasm():
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out = dsl.disassemble(blob, args.arch)
            return out, len(w)
        t_dis = best_of(args.repeat, disasm)
        dis_text, undecoded = t_dis.result
        rows = [("dsl.disassemble", t_dis, f"{dis_text.count(chr(10)) + 1} lines, {undecoded} undecodable dwords")]
        if llvm is not None:
            t_mcd = run_llvm(args.repeat, base[:1] + ["--disassemble"] + base[1:], str(hex_path))
            bad = t_mcd.result.stderr.count("invalid instruction encoding")
            rows.append((f"{LLVM_MC} --disassemble", t_mcd, f"{bad} invalid encodings; it also parses the hex text"))
        table("decode (disassemble)", len(lines), rows, ("dsl.disassemble", f"{LLVM_MC} --disassemble"))

        if args.profile:
            print("cProfile of dsl.assemble, top 15 by cumulative time")
            prof = cProfile.Profile()
            prof.runcall(dsl.assemble, text, args.arch)
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(15)
            print(buf.getvalue())
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

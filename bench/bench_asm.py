#!/usr/bin/env python3
"""Assembler and disassembler speed of dsl against LLVM 22's llvm-mc, measured in the same run.

Builds an N-line assembly file by cycling, in a fixed shuffled order, through the LLVM
corpus rows of ../shared/conformance/llvm/<arch>.tsv.gz (rows LLVM re-assembles,
reenc != '-', outside MIMG/EXP; rows dsl.assemble rejects are left out so the file
assembles as a whole), then times

  encode: dsl.assemble(file text) vs `llvm-mc-22 -arch=amdgcn -mcpu=<arch> -filetype=obj`
  decode: dsl.disassemble(bytes)  vs `llvm-mc-22 --disassemble -arch=amdgcn -mcpu=<arch>`

The decode input is LLVM's encoding (reenc) of the same N lines, given to llvm-mc as
hex-byte text, one instruction per line. llvm-mc times include its process start-up, which
is printed separately. Goal: dsl.assemble within 3x of llvm-mc.

    python bench/bench_asm.py [--lines 100000] [--arch gfx1100] [--repeat 1] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import gzip
import io
import os
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import dsl  # noqa: E402

SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))
LLVM_MC = "llvm-mc-22"
SKIP_FAMILIES = {"MIMG", "EXP"}
GOAL = 3.0


def load_rows(arch: str) -> list[tuple[str, str]]:
    """(text, reenc hex) of the corpus rows LLVM's assembler accepts, outside MIMG/EXP."""
    path = SHARED / "conformance" / "llvm" / f"{arch}.tsv.gz"
    if not path.exists():
        sys.exit(f"{path} not found (set WAVESMITH_SHARED to the shared resources folder)")
    rows = []
    with gzip.open(path, "rt") as f:
        header = next(f).rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if cells[col["reenc"]] == "-" or cells[col["family"]] in SKIP_FAMILIES:
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


def cycle(rows, n: int):
    """n lines cycling through the rows in a fixed shuffled order (families mixed at any n)."""
    order = list(rows)
    random.Random(0).shuffle(order)
    return [order[i % len(order)] for i in range(n)]


def best_of(repeat: int, fn):
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def run_llvm(args: list[str], stdin_path: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    if stdin_path is None:
        p = subprocess.run(args, capture_output=True, text=True)
    else:
        with open(stdin_path) as f:
            p = subprocess.run(args, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.perf_counter() - t, p


def rate(n: int, seconds: float) -> str:
    return f"{n / seconds:>12,.0f} instr/s" if seconds > 0 else "       inf instr/s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Prints the encode and decode times of dsl and llvm-mc-22 and their "
                                        "ratios; llvm-mc is skipped with a message when it is not on PATH.")
    ap.add_argument("--lines", type=int, default=100_000, help="instructions in the generated file (default 100000)")
    ap.add_argument("--arch", default="gfx1100", help="target; reads conformance/llvm/<arch>.tsv.gz (default gfx1100)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per measurement, best is kept (default 1)")
    ap.add_argument("--profile", action="store_true", help="also cProfile dsl.assemble and print the top 15 cumulative")
    ap.add_argument("--keep", metavar="DIR", help="write the generated .s / hex files here instead of a temp dir")
    args = ap.parse_args(argv)

    rows = load_rows(args.arch)
    t = time.perf_counter()
    dsl.assemble("s_nop 0", args.arch)          # one-time setup: ISA tables, grammar
    setup = time.perf_counter() - t
    kept, rejected, differ = dsl_accepted(rows, args.arch)
    if not kept:
        sys.exit("dsl.assemble accepts none of the corpus rows")
    lines = cycle(kept, args.lines)
    text = "\n".join(t for t, _ in lines) + "\n"
    hex_text = "\n".join(",".join(f"0x{r[i:i + 2]}" for i in range(0, len(r), 2)) for _, r in lines) + "\n"
    blob = b"".join(bytes.fromhex(r) for _, r in lines)

    print(f"corpus {args.arch}: {len(rows)} rows (reenc != '-', not MIMG/EXP); dsl rejects {rejected}, "
          f"encodes {differ} differently from LLVM; {len(kept)} rows cycled to {len(lines)} lines "
          f"({len(text) / 1e6:.1f} MB text, {len(blob) / 1e6:.2f} MB code)")
    print(f"dsl one-time setup (ISA tables, grammar): {setup:.3f} s\n")

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="wavesmith-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    asm_path, hex_path, empty_path = tmp / "bench.s", tmp / "bench.hex", tmp / "empty.s"
    asm_path.write_text(text)
    hex_path.write_text(hex_text)
    empty_path.write_text("")

    try:
        # ---- encode
        t_asm, out = best_of(args.repeat, lambda: dsl.assemble(text, args.arch))
        print("encode (assemble)")
        print(f"  {'dsl.assemble':<30s}{t_asm:8.3f} s  {rate(len(lines), t_asm)}  ({len(out)} bytes)")
        llvm = shutil.which(LLVM_MC)
        t_mc = None
        if llvm is None:
            print(f"  {LLVM_MC} not on PATH: LLVM comparison skipped")
        else:
            base = [llvm, "-arch=amdgcn", f"-mcpu={args.arch}"]
            start, _ = best_of(args.repeat, lambda: run_llvm(base + ["-filetype=obj", "-o", os.devnull, str(empty_path)]))
            t_mc, p = best_of(args.repeat, lambda: run_llvm(base + ["-filetype=obj", "-o", os.devnull, str(asm_path)])[1])
            if p.returncode != 0:
                print(f"  {LLVM_MC} failed ({p.returncode}): {p.stderr.strip()[:400]}")
            print(f"  {LLVM_MC + ' -filetype=obj':<30s}{t_mc:8.3f} s  {rate(len(lines), t_mc)}  (start-up {start:.3f} s)")
            print(f"  {'ratio dsl / llvm-mc':<30s}{t_asm / t_mc:7.1f}x   (goal <= {GOAL:.0f}x: "
                  f"{'met' if t_asm / t_mc <= GOAL else 'NOT met'})")

        # ---- decode
        def disasm():
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                out = dsl.disassemble(blob, args.arch)
            return out, len(w)
        t_dis, (dis_text, undecoded) = best_of(args.repeat, disasm)
        n_dis = dis_text.count("\n") + 1
        print("decode (disassemble)")
        print(f"  {'dsl.disassemble':<30s}{t_dis:8.3f} s  {rate(n_dis, t_dis)}  ({n_dis} lines, {undecoded} undecodable dwords)")
        if llvm is not None:
            cmd = [llvm, "--disassemble", "-arch=amdgcn", f"-mcpu={args.arch}"]
            t_mcd, p = best_of(args.repeat, lambda: run_llvm(cmd, str(hex_path)))
            bad = p[1].stderr.count("invalid instruction encoding")
            print(f"  {LLVM_MC + ' --disassemble':<30s}{t_mcd:8.3f} s  {rate(len(lines), t_mcd)}  ({bad} invalid encodings)")
            print(f"  {'ratio dsl / llvm-mc':<30s}{t_dis / t_mcd:7.1f}x   (llvm-mc also parses the hex text)")

        if args.profile:
            print("\ncProfile of dsl.assemble, top 15 by cumulative time")
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

"""How much of each LLVM 22 corpus `dsl.disasm.decode_instr` builds straight from the decoded
fields (instr_fields.direct_instr, instr_fields_gfx9.gfx9_instr) rather than by printing and re-parsing, per format and arch,
and the time per instruction of the two routes, measured in the same run.

    python bench/bench_decode_instr.py [--arch gfx1100 ...] [--repeat 3]

For each arch: rows that decode, then per format (DPP/SDWA forms of VALU formats as their own
rows, e.g. VOP1_DPP16) the rows the direct route takes / all rows of that format; then the CPU
time per instruction of `direct_instr` on the rows it takes, and of the text route
(print, then parse) on the same rows and on all rows. The best of --repeat
runs is kept."""
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
from dsl.decode import DecodeError, decode_one  # noqa: E402
from dsl.asm_parse import parse  # noqa: E402
from dsl.printer import print_instruction  # noqa: E402
from dsl.disasm import instruction_text  # noqa: E402
from dsl.instr_fields import direct_instr as rdna_instr  # noqa: E402
from dsl.instr_fields_gfx9 import gfx9_instr  # noqa: E402

ARCHS = ["gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942", "gfx950"]


def _shared() -> str:
    return os.environ.get("WAVESMITH_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "shared")


def _rows(name: str) -> list[bytes]:
    with gzip.open(os.path.join(_shared(), "conformance", "llvm", f"{name}.tsv.gz"), "rt") as f:
        return [bytes.fromhex(line.split("\t")[1]) for line in list(f)[1:]]


def instr_of_text(spec, inst, wave: int):
    """The former route for every format: print the instruction, parse the text (what
    decode_instr did before the direct route). The gfx9 dialect has no raw-field printer left:
    its text is the disassembler's (the Instr printed), so there the route costs both."""
    if spec.traits.dialect == "gfx9":
        return parse(instruction_text(spec, inst, wave))[0]
    return parse(print_instruction(spec, inst, wave))[0]


def direct_instr(spec, inst, wave: int):
    """The route decode_instr takes: the Instr built from the fields (None where it cannot)."""
    return gfx9_instr(spec, inst) if spec.traits.dialect == "gfx9" else rdna_instr(spec, inst, wave)


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
    grand_direct = grand_total = 0
    for name in args.arch or ARCHS:
        arch, wave = (name[:-4], 64) if name.endswith("-w64") else (name, isa.WAVE_SIZE[isa.resolve_arch(name)])
        spec = families.load_for_disassembly(arch)
        insts = []
        for data in _rows(name):
            try:
                insts.append(decode_one(spec, data, 0))
            except DecodeError:
                pass
        total, direct = collections.Counter(), collections.Counter()
        taken = []
        for inst in insts:
            k = _kind(inst)
            total[k] += 1
            if direct_instr(spec, inst, wave) is not None:
                direct[k] += 1
                taken.append(inst)
        n, nd = sum(total.values()), sum(direct.values())
        grand_total += n
        grand_direct += nd
        print(f"\n{name}: {nd}/{n} decoded rows direct ({100 * nd / n:.1f}%)")
        for k in sorted(total, key=lambda k: (-total[k], k)):
            print(f"  {k:14s} {direct[k]:5d}/{total[k]:5d}")
        t_direct = _best(lambda i: direct_instr(spec, i, wave), taken, args.repeat)
        t_text_same = _best(lambda i: instr_of_text(spec, i, wave), taken, args.repeat)
        left = [i for i in insts if direct_instr(spec, i, wave) is None]
        t_text_left = _best(lambda i: instr_of_text(spec, i, wave), left, args.repeat) if left else 0.0
        us = 1e6
        if taken:
            print(f"  time per instruction: direct {us * t_direct / len(taken):.1f} us, text route on the "
                  f"same rows {us * t_text_same / len(taken):.1f} us ({t_text_same / max(t_direct, 1e-9):.1f}x)")
        if left:
            print(f"  text route on the {len(left)} rows left: {us * t_text_left / len(left):.1f} us")
    print(f"\nall: {grand_direct}/{grand_total} direct ({100 * grand_direct / grand_total:.1f}%)")


if __name__ == "__main__":
    main()

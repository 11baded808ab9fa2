"""The `wavesmith` command: one entry point for every component's tools."""
from __future__ import annotations

import argparse
import sys


def _cmd_gen(args) -> int:
    from isa.gen import run
    return run(args)


def _cmd_demo(args) -> int:
    if args.isa:
        from isa.demo import demo as isa_tour
        return isa_tour(args.arch)
    from runtime.demo import demo
    return demo(args.arch)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="wavesmith",
        description="wavesmith — an assembly-first AMD GPU toolkit without LLVM. "
                    "Run `wavesmith demo` for a tour, `wavesmith COMMAND --help` for details.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="show what wavesmith can do (default job)",
                          description="Build a kernel with the DSL, write it as a code object, run it on "
                                      "Device('emu'), check it against numpy and print its disassembly and "
                                      "launch statistics. --isa shows the generated ISA's statistics instead.")
    demo.add_argument("--arch", default="gfx1100", help="target (default: gfx1100)")
    demo.add_argument("--isa", action="store_true", help="tour of the generated ISA tables instead")
    demo.set_defaults(func=_cmd_demo)
    gen = sub.add_parser("gen", help="generate ISA definitions from AMD's PDFs",
                         description="Generate isa/generated/<arch>/ from AMD's ISA reference PDF. PDFs are "
                                     "looked up in --pdf-dir, $WAVESMITH_SPEC_DIR, spec_pdfs/, ../shared/spec_pdfs "
                                     "and must match spec_pdfs/manifest.json's sha256.")
    from isa.gen import add_arguments
    add_arguments(gen)
    gen.set_defaults(func=_cmd_gen)
    asm = sub.add_parser("asm", help="assemble LLVM-syntax AMDGPU assembly (to a code object with -o x.hsaco)",
                         description="Assemble a file of LLVM AMDGPU assembly (labels, comments, every "
                                     "instruction format except MIMG/EXP). A source with .amdhsa_kernel blocks, "
                                     "sections or symbols becomes an HSA code object (-o FILE.hsaco); plain "
                                     "instructions become raw machine code.")
    from dsl.cli import add_asm_arguments, add_disasm_arguments
    add_asm_arguments(asm)
    dis = sub.add_parser("disasm", help="disassemble machine code or a code object to LLVM syntax",
                         description="Disassemble raw machine code, hex text, or each kernel of a code object "
                                     "(.hsaco; its target and wave size come from the object) into LLVM AMDGPU "
                                     "syntax. Undecodable dwords print as .long with a warning.")
    add_disasm_arguments(dis)
    from runtime.cli import add_readobj_arguments, run_asm, run_disasm, run_readobj
    asm.set_defaults(func=run_asm)
    dis.set_defaults(func=run_disasm)
    emu = sub.add_parser("emu", help="emulator tools (semantics coverage)",
                         description="Emulator tools. --coverage prints, per instruction format, how many "
                                     "instructions have semantics generated from the PDF pseudocode, hand-written, "
                                     "or none.")
    from emu.coverage import add_arguments as add_emu_arguments, run as run_emu
    add_emu_arguments(emu)
    emu.set_defaults(func=run_emu)
    readobj = sub.add_parser("readobj", help="list a code object's kernels, descriptors and arguments",
                             description="Print a code object's target, loadable segments and, per kernel, "
                                         "entry, register counts, segment sizes, arguments and descriptor "
                                         "(as .amdhsa_* directives).")
    add_readobj_arguments(readobj)
    readobj.set_defaults(func=run_readobj)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help()
        return 0
    from isa import ISALoadError
    try:
        return args.func(args)
    except (ISALoadError, ValueError) as e:   # bad target, arch not generated, bad input
        print(f"wavesmith {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:                    # `wavesmith demo | head`: reader went away
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())

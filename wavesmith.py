"""The `wavesmith` command: one entry point for every component's tools."""
from __future__ import annotations

import argparse
import sys
import warnings


def _cmd_gen(args) -> int:
    from isa.gen import run
    return run(args)


def _cmd_demo(args) -> int:
    if args.isa:
        from isa.demo import demo as isa_tour
        return isa_tour(args.arch)
    if args.seconds is not None:
        if not args.seconds > 0:
            raise ValueError(f"--seconds {args.seconds}: give a positive number")
        import os
        os.environ["WAVESMITH_LAUNCH_SECONDS"] = repr(args.seconds)
    if args.dsl:
        from runtime.demo import demo
        return demo(args.arch)
    from frontend.tinygrad.demo import demo as model_demo
    return model_demo(args.arch, disassembly=not args.no_disasm)


def _demo_ignored(args, given: set):
    """Options `wavesmith demo` would ignore in the mode chosen: (dests, why) or None."""
    if args.isa and given & {"dsl", "no_disasm", "seconds"}:
        return given & {"dsl", "no_disasm", "seconds"}, "with --isa (the ISA tour runs no kernel)"
    if args.dsl and "no_disasm" in given:
        return {"no_disasm"}, "with --dsl (the DSL demo always prints its kernel's disassembly)"
    return None


def _gen_ignored(args, given: set):
    """`wavesmith gen --stats` alone reads the committed tables: no PDF, no progress bar."""
    if args.stats and not args.check and given & {"pdf_dir", "quiet"}:
        return given & {"pdf_dir", "quiet"}, "with --stats alone (it counts the committed tables and reads no manual)"
    return None


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="wavesmith",
        description="wavesmith — an assembly-first AMD GPU toolkit without LLVM. "
                    "Run `wavesmith demo` for a tour, `wavesmith COMMAND --help` for details.",
        epilog="Errors print one line (exit status 1 for bad input to the assembler, 2 otherwise); "
               "--debug (anywhere on the line) prints the Python traceback instead.")
    ap.add_argument("--debug", action="store_true", help="on an error, show the Python traceback")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="show what wavesmith can do (default job)",
                          description="Compile a small model (MLP + softmax, written with tinygrad) through "
                                      "wavesmith's tensor compiler on tinygrad's WAVESMITH device, run its kernels "
                                      "on Device('emu'), check the result against numpy and print each kernel's "
                                      "statistics and disassembly. --dsl does the same for a kernel written with "
                                      "the Python DSL; --isa shows the generated ISA's statistics instead.")
    demo.add_argument("--arch", default="gfx1100", help="target (default: gfx1100)")
    demo.add_argument("--dsl", action="store_true", help="a kernel written with the DSL instead of a model")
    demo.add_argument("--no-disasm", action="store_true", help="statistics only, without the disassembly")
    demo.add_argument("--isa", action="store_true", help="tour of the generated ISA tables instead")
    demo.add_argument("--seconds", type=float, default=None,
                      help="time budget of each kernel launch (default: $WAVESMITH_LAUNCH_SECONDS, else 30)")
    demo.set_defaults(func=_cmd_demo, ignored=_demo_ignored)
    gen = sub.add_parser("gen", help="generate ISA definitions from AMD's PDFs",
                         description="Generate isa/generated/<arch>/ from AMD's ISA reference PDF. PDFs are "
                                     "looked up in --pdf-dir, $WAVESMITH_SPEC_DIR, spec_pdfs/, ../shared/spec_pdfs "
                                     "and must match spec_pdfs/manifest.json's sha256.")
    from isa.gen import add_arguments
    add_arguments(gen)
    gen.set_defaults(func=_cmd_gen, ignored=_gen_ignored)
    asm = sub.add_parser("asm", help="assemble LLVM-syntax AMDGPU assembly (to a code object with -o x.hsaco)",
                         description="Assemble a file of LLVM AMDGPU assembly (labels, comments, every "
                                     "instruction format). A source with .amdhsa_kernel blocks, "
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
    emu = sub.add_parser("emu", help="emulator tools (semantics coverage, timing model, timeline)",
                         description="Emulator tools. --coverage prints, per instruction format, how many "
                                     "instructions have semantics generated from the PDF pseudocode, hand-written, "
                                     "or none; it runs no kernel, so a code object, launch or timing options "
                                     "with it are a usage error. --time runs a kernel (a code object, or the built-in DSL saxpy) "
                                     "with the cycle-approximate timing model and prints cycles and stall tables; "
                                     "--timeline OUT.html writes a self-contained HTML timeline of its waves.",
                         epilog="Example: wavesmith emu --time k.hsaco --grid 40 --block 128 --arg "
                                "'float32:5000:uniform(-1,1)' --arg float32:5000 --arg uint32=5000 --timeline t.html",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    from emu.coverage import add_arguments as add_emu_arguments, ignored as emu_ignored, run as run_emu
    add_emu_arguments(emu)
    emu.set_defaults(func=run_emu, ignored=emu_ignored)
    debug = sub.add_parser("debug", help="step through a kernel on the emulator (registers, memory, breakpoints)",
                           description="Run a kernel on the emulator one wave in focus, stopping after each of its "
                                       "instructions as asked; commands come from the terminal or a pipe ('help' "
                                       "lists them: step, continue, breakpoints at a PC or an offset from the entry, "
                                       "VGPR tables lanes x registers in hex/f32/i32/u32/f16 with changed values "
                                       "marked, SGPRs with EXEC/VCC/SCC/M0, memory, per-PC hit counts). The "
                                       "kernel is given as for `wavesmith emu --time`.",
                           epilog="Example: printf 's 5\\nv 0-3 f32\\nc\\n' | wavesmith debug k.hsaco --grid 4 "
                                  "--block 64 --arg float32:256:arange --arg uint32=256",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    from emu.debug_cli import add_arguments as add_debug_arguments, ignored as debug_ignored, run as run_debug
    add_debug_arguments(debug)
    debug.set_defaults(func=run_debug, ignored=debug_ignored)
    readobj = sub.add_parser("readobj", help="list a code object's kernels, descriptors and arguments",
                             description="Print a code object's target, loadable segments and, per kernel, "
                                         "entry, register counts, segment sizes, arguments and descriptor "
                                         "(as .amdhsa_* directives).")
    add_readobj_arguments(readobj)
    readobj.set_defaults(func=run_readobj)
    return ap


PACKAGES = {"isa", "dsl", "emu", "runtime", "regalloc", "frontend"}


def _one_line(e: BaseException) -> str:
    """An error as the CLI prints it: its message, each line shortened to a readable length."""
    if isinstance(e, OSError) and e.strerror:
        text = f"{e.filename + ': ' if e.filename else ''}{e.strerror}"
    else:
        text = str(e) or type(e).__name__
    return "\n".join(line if len(line) <= 300 else line[:240] + f" ... ({len(line)} characters)"
                     for line in text.split("\n"))


def _given(ap: argparse.ArgumentParser, command: argparse.ArgumentParser, argv: list) -> set:
    """The dests the command line gave explicitly (abbreviations included, defaults not)."""
    saved = [(a, a.default) for a in command._actions]
    for a, _ in saved:
        a.default = argparse.SUPPRESS
    try:
        given, _ = ap.parse_known_args(argv)
    finally:
        for a, default in saved:
            a.default = default
    return set(vars(given)) - {"command", "debug"}


def _refuse_ignored(ap: argparse.ArgumentParser, argv: list, args) -> None:
    """A usage error (exit status 2) naming the arguments the chosen mode would silently ignore."""
    check = getattr(args, "ignored", None)
    if check is None:
        return
    command = ap._subparsers._group_actions[0].choices[args.command]
    found = check(args, _given(ap, command, argv))
    if not found:
        return
    dests, why = found
    names = []
    for a in command._actions:
        if a.dest in dests:
            names.append("/".join(a.option_strings) if a.option_strings
                         else f"the {a.dest} argument {getattr(args, a.dest)!r}")
    command.error(f"{', '.join(names)} {'would be' if len(names) == 1 else 'would all be'} ignored {why}")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    ap = build_parser()
    args = ap.parse_args(argv)
    if not getattr(args, "func", None):
        ap.print_help()
        return 0
    _refuse_ignored(ap, argv, args)
    from isa import ISALoadError
    try:
        with warnings.catch_warnings():
            if not debug:       # a warning is one line about the input, not a line of our source
                warnings.showwarning = lambda message, category, *rest, **kw: print(
                    f"wavesmith {args.command}: warning: {_one_line(message)}", file=sys.stderr)
            return args.func(args)
    except BrokenPipeError:                    # `wavesmith demo | head`: reader went away
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        if debug:
            raise
        print(f"wavesmith {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ISALoadError, ValueError, OSError) as e:   # bad target, arch not generated, bad input
        if debug:
            raise
        print(f"wavesmith {args.command}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except Exception as e:                     # noqa: BLE001 - a bug: one line, the traceback on --debug
        if debug:
            raise
        if type(e).__module__.split(".")[0] in PACKAGES:    # the project's own error (a missing PDF, a fault)
            print(f"wavesmith {args.command}: error: {_one_line(e)}", file=sys.stderr)
            return 2
        print(f"wavesmith {args.command}: internal error: {type(e).__name__}: {_one_line(e)} "
              f"(run again with --debug for the traceback, and please report it)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""`wavesmith debug`: step through a kernel on the emulator, one wave in focus, reading
commands from the terminal (or a pipe). The kernel and its arguments are given as for
`wavesmith emu --time` (a code object with --grid/--block/--arg, or the built-in saxpy)."""
from __future__ import annotations

import sys

HELP = """commands:
  s [N]            step: run until the focused wave executed N more instructions (default 1)
  c                continue to the next breakpoint or the end
  b PC | +OFF      break when the focused wave is about to execute PC (absolute, or an offset
                   from the kernel's entry); 'b' alone lists breakpoints
  v [A-B] [VIEW]   VGPRs vA..vB of the focused wave, lanes x registers (VIEW: hex f32 i32 u32 f16);
                   '*' marks values changed since the previous stop
  sg [A-B] [VIEW]  SGPRs sA..sB with EXEC, VCC, SCC, M0
  m ADDR [BYTES]   global memory at ADDR (dwords, hex)
  w                where: the last executed and the next instruction
  hits             how many times the focused wave executed each PC
  q                quit (the kernel runs to its end)"""


def add_arguments(ap) -> None:
    from .timing.cli import add_launch_arguments
    add_launch_arguments(ap)
    ap.add_argument("--wave", type=int, default=0, help="the wave to follow (global index, default 0)")
    ap.add_argument("--break", dest="breaks", action="append", default=[], metavar="PC",
                    help="a breakpoint before starting (absolute PC or +OFFSET from the entry; repeatable)")


def ignored(args, given: set):
    """Launch options `wavesmith debug` would ignore: (dests, why) or None."""
    from .timing.cli import ignored_launch_options
    return ignored_launch_options(args, given)


def _range(text: str | None, default: range) -> range:
    if not text:
        return default
    a, _, b = text.lstrip("vs").partition("-")
    try:
        lo = int(a)
        hi = int(b.lstrip("vs")) if b else lo
    except ValueError:
        raise ValueError(f"{text!r}: give a register range such as 0-7") from None
    if hi < lo or hi - lo > 255:
        raise ValueError(f"{text!r}: give A-B with A <= B (at most 256 registers)")
    return range(lo, hi + 1)


def run(args) -> int:
    from .debug import Debugger, DebugError, VIEWS
    from .timing.cli import prepare_launch
    prg, name, grid, block, launch_args = prepare_launch(args)
    entry = prg.base + prg.code_object.kernels[name].entry
    dbg = Debugger(prg, name, grid, block, launch_args, wave=args.wave)

    def pc_of(text: str) -> int:
        try:
            return entry + int(text[1:], 0) if text.startswith("+") else int(text, 0)
        except ValueError:
            raise ValueError(f"{text!r}: give a PC (0x...) or +OFFSET from the entry") from None
    for b in args.breaks:
        dbg.breakpoint(pc_of(b))
    print(f"{name}: entry 0x{entry:x}; following wave {args.wave}. 'help' lists the commands.")
    print(dbg.where())
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            sys.stdout.write("(debug) ")
            sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            break
        words = line.split()
        if not words:
            continue
        cmd, rest = words[0], words[1:]
        try:
            if cmd in ("q", "quit"):
                break
            elif cmd in ("h", "help"):
                print(HELP)
            elif cmd in ("s", "step"):
                dbg.step(int(rest[0]) if rest else 1)
                print(dbg.where())
            elif cmd in ("c", "continue"):
                dbg.cont()
                print(dbg.where())
            elif cmd in ("b", "break"):
                if rest:
                    dbg.breakpoint(pc_of(rest[0]))
                print("breakpoints: " + (", ".join(f"0x{b:x} (+0x{b - entry:x})" for b in sorted(dbg.breakpoints))
                                         or "none"))
            elif cmd == "v":
                view = next((r for r in rest if r in VIEWS), "hex")
                regs = _range(next((r for r in rest if r not in VIEWS), None), range(8))
                print(dbg.vgprs(regs, view))
            elif cmd == "sg":
                view = next((r for r in rest if r in VIEWS), "hex")
                regs = _range(next((r for r in rest if r not in VIEWS), None), range(16))
                print(dbg.sgprs(regs, view))
            elif cmd == "m":
                if not rest:
                    raise ValueError("m ADDR [BYTES]")
                print(dbg.memory(int(rest[0], 0), int(rest[1], 0) if len(rest) > 1 else 64))
            elif cmd == "w":
                print(dbg.where())
            elif cmd == "hits":
                print(dbg.hit_table())
            else:
                print(f"unknown command {cmd!r}; 'help' lists the commands")
        except (DebugError, ValueError) as e:
            print(f"error: {e}")
    dbg.close()
    if dbg.stats is not None:
        print(dbg.stats)
    return 0

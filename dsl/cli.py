"""`wavesmith asm` and `wavesmith disasm`."""
from __future__ import annotations

import re
import sys
from pathlib import Path


def add_asm_arguments(p) -> None:
    p.add_argument("file", help="assembly source (LLVM AMDGPU syntax); '-' reads stdin")
    p.add_argument("--arch", default=None, help="target, e.g. gfx1100, gfx1151 (default: the source's "
                                                "`.amdgcn_target`, else gfx1100)")
    p.add_argument("--wave64", action="store_true", help="assemble for wave64 (VCC is 64-bit)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--hex", action="store_true", help="print the machine code as hex, one instruction per line")
    out.add_argument("-o", "--output", help="write a code object (when the source has kernels or sections, or "
                                            "the name ends in .hsaco/.co), else raw machine code "
                                            "(default: hex to stdout)")


def add_disasm_arguments(p) -> None:
    p.add_argument("file", help="raw machine code, or a text file of hex bytes/dwords; '-' reads stdin")
    p.add_argument("--arch", default="gfx1100", help="target, e.g. gfx1100, gfx1151 (default: gfx1100)")
    p.add_argument("--wave64", action="store_true", help="print VCC operands as wave64 (like +wavefrontsize64)")
    p.add_argument("--offsets", action="store_true", help="append each instruction's byte offset")


def _read(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such file")
    return p.read_bytes()


_HEX_TEXT = re.compile(rb"^[\s0-9a-fA-Fx,\[\]]*$")


def _as_code(raw: bytes) -> bytes:
    """Raw bytes, or hex text: '0x02 0x07 ...', '[0x02,0x07]', 'de ad be ef', '06020702'."""
    if raw and _HEX_TEXT.match(raw):
        text = raw.decode()
        tokens = re.findall(r"(?:0x)?[0-9a-fA-F]+", text)
        if tokens and all(len(t.replace("0x", "")) <= 2 for t in tokens) and "0x" in text:
            return bytes(int(t, 16) for t in tokens)
        digits = "".join(t.replace("0x", "") for t in tokens)
        if len(digits) % 2:
            raise ValueError("hex input has an odd number of digits")
        return bytes.fromhex(digits)
    return raw


def read_source(path: str) -> str:
    return _read(path).decode("utf-8", errors="replace")


def run_asm(args, text: str | None = None) -> int:
    from . import assemble
    text = read_source(args.file) if text is None else text
    args.arch = args.arch or "gfx1100"
    try:
        code = assemble(text, args.arch, wave_size=64 if args.wave64 else None)
    except ValueError as e:
        print(f"{args.file}:{e}", file=sys.stderr)
        return 1
    if args.output:
        Path(args.output).write_bytes(code)
        print(f"wrote {len(code)} bytes to {args.output}", file=sys.stderr)
    elif args.hex:
        from .decode import decode_one
        import isa
        spec = isa.load(args.arch)
        pos = 0
        while pos < len(code):
            size = decode_one(spec, code, pos).size
            print(code[pos:pos + size].hex())
            pos += size
    else:
        print(code.hex())
    return 0


def run_disasm(args) -> int:
    from . import disassemble
    raw = _read(args.file)
    if raw[:4] == b"\x7fELF":
        raise ValueError(f"{args.file} is an ELF code object: `wavesmith disasm` (runtime.cli) reads those; "
                         f"this raw-code path takes machine code or hex text")
    print(disassemble(_as_code(raw), args.arch, wave_size=64 if args.wave64 else None, offsets=args.offsets))
    return 0

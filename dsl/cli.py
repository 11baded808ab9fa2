"""`wavesmith asm` and `wavesmith disasm`."""
from __future__ import annotations

import os
import re
import sys
import tempfile
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


def read_input(path: str) -> bytes:
    """The bytes of an input file ('-': stdin); ValueError saying why it cannot be read."""
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{path}: is a directory, not a file")
    if not p.exists():
        raise ValueError(f"{path}: no such file")
    try:
        return p.read_bytes()
    except OSError as e:
        raise ValueError(f"{path}: cannot read: {e.strerror or e}") from None


_read = read_input


def write_output(path: str, data: bytes) -> None:
    """Write a whole output file or nothing: the bytes go to a temporary file in the same
    directory, which replaces `path` only once completely written (a full disk or an
    interrupt never leaves a partial file). ValueError saying why it cannot be written."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise ValueError(f"{path}: is a directory; name the output file")
    if not folder.is_dir():
        raise ValueError(f"{path}: cannot write: directory {str(folder)!r} does not exist")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise ValueError(f"{path}: cannot write: {e.strerror or e}") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def located(filename: str, error: Exception) -> str:
    """An assembler error as `file:line:col: message` (once, even when the message names the
    file already), every line of it shortened to a readable length."""
    text = str(error)
    if not text.startswith(f"{filename}:"):
        text = f"{filename}:{text}"
    return "\n".join(line if len(line) <= 300 else line[:240] + f" ... ({len(line)} characters)"
                     for line in text.split("\n"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
        print(located(args.file, e), file=sys.stderr)
        return 1
    if args.output:
        write_output(args.output, code)
        print(f"wrote {len(code)} bytes to {args.output}", file=sys.stderr)
    elif args.hex:
        from .decode import decode_one
        import isa
        from .families import load_for_disassembly
        spec = load_for_disassembly(args.arch)
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

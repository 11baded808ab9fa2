"""`wavesmith disasm FILE.hsaco` and `wavesmith readobj FILE`: code objects on the command
line. Raw machine code still goes to dsl.cli; this module adds the ELF cases."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

from .codeobj import CodeObject, read_code_object
from .descriptor import directive_values
from .elf import ELF_MAGIC


def _load(path: str) -> CodeObject:
    from dsl.cli import read_input
    data = read_input(path)
    try:
        return read_code_object(data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def is_code_object(path: str) -> bool:
    p = Path(path)
    if path == "-" or not p.is_file():
        return False
    try:
        with p.open("rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False            # the reader says why it cannot be read


def disassemble_code_object(co: CodeObject, offsets: bool = False) -> str:
    """Each kernel's code as LLVM text under its name as a label; a clear note instead of
    code for targets whose ISA is not generated yet."""
    import isa
    from dsl import disassemble
    lines = [f"; {co.target_info.target_id}, code object v{co.version}"]
    others = sorted(set(co.functions) - set(co.kernels))
    if others:
        lines.append(f"; functions that are not kernels: {', '.join(others)}")
    for k in co.kernels.values():
        lines += ["", f"{k.name}:  ; entry 0x{k.entry:x}, {len(k.code)} bytes, wave{k.wave_size}"]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("default")
                text = disassemble(k.code, co.target, wave_size=k.wave_size, offsets=offsets)
        except isa.ISALoadError as e:
            lines.append(f"; cannot disassemble {co.target} code: {e}")
            continue
        lines += ["  " + line for line in text.splitlines()]
    return "\n".join(lines)


def describe_code_object(co: CodeObject) -> str:
    """Kernels with their descriptors (as .amdhsa_* directives) and argument layouts."""
    lines = [f"target   {co.target_info.target_id} (e_flags 0x{co.e_flags:x}), code object v{co.version}",
             f"image    {co.image_size} bytes: " + ", ".join(
                 f"0x{v:x}+0x{m:x} {'R' if f & 4 else ''}{'W' if f & 2 else ''}{'X' if f & 1 else ''}"
                 for v, m, f in co.segments())]
    for k in co.kernels.values():
        lines += ["", f"kernel {k.name}: entry 0x{k.entry:x} ({len(k.code)} bytes), descriptor 0x{k.descriptor_address:x}",
                  f"  wave{k.wave_size}, {k.sgpr_count} SGPRs, {k.vgpr_count} VGPRs, "
                  f"LDS {k.descriptor.group_segment_fixed_size} B, scratch {k.descriptor.private_segment_fixed_size} B, "
                  f"kernarg {k.kernarg_size} B"]
        for a in k.args:
            lines.append(f"  arg {a.offset:4d} +{a.size:<3d} {a.value_kind:24s} {_text(a.address_space):8s} "
                         f"{_text(a.name)} {_text(a.type_name)}".rstrip())
        lines += [f"  {d} {v}" for d, v in directive_values(k.descriptor, co.target_info).items()]
    return "\n".join(lines)


def _text(value) -> str:
    """A metadata field as text (None as nothing; a number where a string belongs as the number)."""
    return "" if value is None else str(value)


def add_readobj_arguments(p) -> None:
    p.add_argument("file", help="an AMDGPU code object (.hsaco, .co, .o)")


def run_readobj(args) -> int:
    print(describe_code_object(_load(args.file)))
    return 0


def run_asm(args) -> int:
    """Sources with kernels or sections (or an output named .hsaco/.co) become code objects;
    instruction-only text stays raw machine code (dsl.cli)."""
    from dsl.asm import AsmError
    from dsl.cli import located, read_source, run_asm as run_raw_asm, write_output
    from .asm_module import assemble_module, needs_code_object
    text = read_source(args.file)
    wants_object = args.output is not None and args.output.endswith((".hsaco", ".co"))
    if not (needs_code_object(text) or wants_object):
        return run_raw_asm(args, text)
    if not args.output:
        raise ValueError(f"{args.file}: a code object is binary; name the output with -o FILE.hsaco")
    try:
        data = assemble_module(text, args.arch, wave_size=64 if args.wave64 else None, filename=args.file)
    except AsmError as e:
        print(located(args.file, e), file=sys.stderr)
        return 1
    write_output(args.output, data)
    co = read_code_object(data)
    print(f"wrote {len(data)} bytes to {args.output}: {co.target_info.target_id}, kernels "
          f"{', '.join(co.kernels) or '(none)'}", file=sys.stderr)
    return 0


def run_disasm(args) -> int:
    from dsl.cli import run_disasm as run_raw_disasm
    if not is_code_object(args.file):
        return run_raw_disasm(args)
    print(disassemble_code_object(_load(args.file), offsets=args.offsets))
    return 0

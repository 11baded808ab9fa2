"""`wavesmith disasm FILE.hsaco` and `wavesmith readobj FILE`: code objects on the command
line. Raw machine code still goes to dsl.cli; this module adds the ELF cases."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

from .codeobj import CodeObject, read_code_object
from .descriptor import directive_values
from . import elf
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
    """Every executable section, every symbol in it, as LLVM's objdump -d prints them: the
    kernels and the functions beside them (the OpenCL compiler's kernel-implementation functions), each from its
    symbol to the next one or the section's end (padding included), an instruction per line
    with its address, its dwords and, for branches, the target as <symbol+offset>. The wave
    size is the kernels' (LLVM's objdump needs --mattr=+wavefrontsize64 for wave64 objects).
    `offsets` is accepted for the raw-code path's sake: addresses are always printed."""
    import isa
    from dsl import families as dsl_families
    from dsl.disasm import disassemble_lines
    waves = sorted({k.wave_size for k in co.kernels.values()})
    try:
        dsl_families.load_for_disassembly(co.target)
    except isa.ISALoadError as e:
        raise ValueError(f"cannot disassemble {co.target} code ({co.target_info.target_id}): {e}") from None
    lines = [f"; {co.target_info.target_id}, code object v{co.version}, "
             f"wave{'/'.join(map(str, waves)) if waves else ' ' + str(isa.WAVE_SIZE[isa.resolve_arch(co.target)])}"]
    for k in co.kernels.values():
        lines.append(f"; kernel {k.name}: entry 0x{k.entry:x}, {len(k.code)} bytes, wave{k.wave_size}")
    wave = waves[0] if len(waves) == 1 else None
    for sec in co.elf.sections:
        if not sec.flags & elf.SHF_EXECINSTR or not sec.size:
            continue
        base = sec.addr     # LLVM objdump's addresses: a relocatable object's sections start at 0
        labels = _section_labels(co, sec, base)
        lines += ["", f"Disassembly of section {sec.name}:"]
        starts = sorted(labels)
        for i, at in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else base + sec.size
            lines += ["", f"{at:016x} <{labels[at]}>:"]
            with warnings.catch_warnings():
                warnings.simplefilter("default")
                body = disassemble_lines(sec.data[at - base:end - base], co.target, wave)
            for pos, size, text, inst in body:
                addr = at + pos
                words = sec.data[addr - base:addr - base + size]
                hexwords = " ".join(f"{int.from_bytes(words[j:j + 4], 'little'):08X}" for j in range(0, size, 4))
                line = f"\t{text:<59}// {addr:012X}: {hexwords}"
                target = _branch_target(inst, addr)
                if target is not None:
                    line += " " + _symbolize(target, starts, labels)
                lines.append(line)
    return "\n".join(lines)


def _section_labels(co: CodeObject, sec, base: int) -> dict[int, str]:
    """address -> name of the symbols in an executable section (LLVM objdump's labels)."""
    labels: dict[int, str] = {}
    for s in co.elf.symbols or co.elf.dynamic_symbols:
        if s.shndx == sec.index and s.name and s.type not in (elf.STT_SECTION, _STT_FILE):
            labels.setdefault(s.value if co.elf.type != elf.ET_REL else base + s.value, s.name)
    if base not in labels:
        labels[base] = sec.name
    return labels


_STT_FILE = 4


def _branch_target(inst, addr: int) -> int | None:
    """The address a SOPP/SOPK branch jumps to (PC of the next instruction + 4 * simm16)."""
    from dsl import syntax
    if inst is None or inst.fmt.name not in ("SOPP", "SOPK"):
        return None
    name = inst.defs[0].name.lower()
    style = syntax.sopp_style(inst.defs[0]) if inst.fmt.name == "SOPP" else syntax.SOPK_STYLE.get(name, ((), ""))[1]
    if style != "branch":
        return None
    simm = inst.fields["SIMM16"]
    return addr + 4 + 4 * (simm - 0x10000 if simm & 0x8000 else simm)


def _symbolize(target: int, starts: list[int], labels: dict[int, str]) -> str:
    before = [a for a in starts if a <= target]
    if not before:
        return f"<0x{target:x}>"
    at = before[-1]
    return f"<{labels[at]}>" if at == target else f"<{labels[at]}+0x{target - at:x}>"


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
    co = _load(args.file)
    try:
        text = disassemble_code_object(co, offsets=args.offsets)
    except ValueError as e:
        raise ValueError(f"{args.file}: {e}") from None
    print(text)
    return 0

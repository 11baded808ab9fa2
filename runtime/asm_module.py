"""Assemble a whole kernel source file — sections, symbols, data, `.set` expressions,
`.amdhsa_kernel` blocks and `.amdgpu_metadata` — into a code object. dsl.asm parses the
text and encodes instructions; this module gives the directives their meaning."""
from __future__ import annotations

import re
from dataclasses import field

import yaml

from dsl.asm import (AsmError, Directive, Label, LiteralRef, collector_paused, define_label, encode_at, encoder,
                     parse, resolve_branches, split_specifier)
from isa.records import dataclass

from . import asm_control as control
from . import elf
from .descriptor import DESCRIPTOR_SIZE, encode_descriptor
from .expr import Address, ExprError, UndefinedSymbol, amdgpu_functions, evaluate, split_args
from .link import LITERAL_RELOCATIONS, R_AMDGPU_ABS64, R_AMDGPU_REL64, Fixup, LinkError, OutputSection, SymbolDef, link
from .target import Target, parse_target
from .codeobj import read_code_object
from .descriptor import FIELDS, fields_for
from .elf import CodeObjectError
from .writer import METADATA_VERSION, REGISTER_DIRECTIVES, build_descriptor, kernel_metadata

# Section switches and the flags of well-known sections.
KNOWN_SECTIONS = {".text": elf.SHF_ALLOC | elf.SHF_EXECINSTR, ".rodata": elf.SHF_ALLOC,
                  ".data": elf.SHF_ALLOC | elf.SHF_WRITE, ".bss": elf.SHF_ALLOC | elf.SHF_WRITE}
DATA_SIZES = {".byte": 1, ".short": 2, ".2byte": 2, ".hword": 2, ".value": 2, ".long": 4, ".4byte": 4,
              ".int": 4, ".word": 4, ".quad": 8, ".8byte": 8}
# Directives with no effect on the object we write (debug info, toolchain bookkeeping).
IGNORED = {".ident", ".file", ".loc", ".addrsig", ".addrsig_sym", ".amdgpu_hsa_kernel", ".cfi_startproc",
           ".cfi_endproc", ".cfi_sections", ".end_amdgpu_metadata"}
# Symbol attribute directives: the table each one writes (binding or visibility) and the value.
SYMBOL_ATTRIBUTES = {".globl": ("bind", elf.STB_GLOBAL), ".global": ("bind", elf.STB_GLOBAL),
                     ".weak": ("bind", elf.STB_WEAK), ".local": ("bind", elf.STB_LOCAL),
                     ".protected": ("visibility", elf.STV_PROTECTED), ".hidden": ("visibility", elf.STV_HIDDEN)}
FLAG_LETTERS = {"a": elf.SHF_ALLOC, "w": elf.SHF_WRITE, "x": elf.SHF_EXECINSTR}
# Limits that turn runaway input into a clear error instead of exhausting memory or time.
MAX_OBJECT_BYTES = 1 << 28          # section bytes of one object (256 MiB)
MAX_STATEMENTS = 2_000_000          # statements run, counting each .rept repetition and macro expansion
MAX_EXPANSION_CHARS = 1 << 20       # text of one macro expansion (1 MiB)
MAX_METADATA_NODES = 200_000        # values in .amdgpu_metadata, counting each use of a YAML alias
# String escapes LLVM reads in .ascii/.asciz/.string (besides \x hex and \ooo octal).
STRING_ESCAPES = {"b": 8, "f": 12, "n": 10, "r": 13, "t": 9, '"': 34, "\\": 92}


@dataclass
class _Section:
    name: str
    flags: int
    type: int = elf.SHT_PROGBITS
    data: bytearray = field(default_factory=bytearray)
    align: int = 1
    labels: dict = field(default_factory=dict)
    branches: list = field(default_factory=list)


@dataclass
class _Deferred:
    """A `.set` whose expression names symbols defined further down (LLVM's compiler output
    sets `kernel.num_vgpr` after the kernel that uses it): evaluated when first needed."""
    text: str
    directive: Directive
    here: Address


@dataclass
class _Kernel:
    name: str
    directives: dict
    section: str
    offset: int
    where: str
    descriptor: object = None      # set by build_kernel, after the whole file is read
    end: Directive | None = None
    regs: dict = field(default_factory=dict)
    wave: int = 0


class _Module:
    def __init__(self, text: str, target: Target | None, wave_size: int | None, filename: str):
        self.lines = text.splitlines()
        self.filename = filename
        self.target, self.wave_size = target, wave_size
        self.version = 5
        self.sections: dict[str, _Section] = {}
        self.current = self._section(".text")
        self.absolute: dict[str, int | _Deferred] = {}   # .set / .equ
        self.bind: dict[str, int] = {}
        self.types: dict[str, int] = {}
        self.visibility: dict[str, int] = {}
        self.sizes: dict[str, tuple[str, Directive]] = {}
        self.kernels: list[_Kernel] = []
        self.open_kernel: _Kernel | None = None
        self.metadata: dict | None = None
        self.metadata_directive: Directive | None = None
        self.data_fixups: list[Fixup] = []
        self.late_data: list = []                   # data whose value needs labels defined later
        self._encoder = None
        self.macros: dict[str, control.Macro] = {}
        self.expansions = 0                          # macro expansions so far: what `\@` counts
        self.expanded: list[tuple[int, list[str]]] = []   # (first line, text) of the expansions running
        self.depth = 0                               # blocks (conditional arms, .rept bodies, macros) running
        self.statements = 0                          # statements run so far (MAX_STATEMENTS)

    # ---- helpers ----
    def where(self, d) -> str:
        return f"{self.filename}:{d.line}:{d.column}: "

    def fail(self, d, message: str):
        raise AsmError(f"{d.line}:{d.column}: {message}\n    {_excerpt(self.source_line(d.line).strip())}")

    def source_line(self, line: int) -> str:
        """Source text of a line; inside a running macro expansion, the expanded text."""
        for first, text in reversed(self.expanded):
            if first <= line < first + len(text):
                return text[line - first]
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def defined(self, name: str) -> bool:
        return name in self.absolute or any(name in s.labels for s in self.sections.values())

    def _section(self, name: str, flags: int | None = None, stype: int = elf.SHT_PROGBITS) -> _Section:
        if name not in self.sections:
            default = KNOWN_SECTIONS.get(name, elf.SHF_ALLOC if name.startswith(".rodata") else 0)
            self.sections[name] = _Section(name, default if flags is None else flags,
                                           elf.SHT_NOBITS if name == ".bss" else stype)
        return self.sections[name]

    def lookup(self, name: str, here: Address | None = None):
        if name == ".":
            return here or Address(self.current.name, len(self.current.data))
        if name in self.absolute:
            v = self.absolute[name]
            return self.resolve(name) if isinstance(v, _Deferred) else v
        for s in self.sections.values():
            if name in s.labels:
                return Address(s.name, s.labels[name], name)
        raise KeyError(name)

    def resolve(self, name: str):
        """The value of a deferred `.set`, the deferred ones it names resolved first with an
        explicit stack (a chain of 600 `.set`s costs no recursion). An undefined name
        propagates: the caller may itself be deferred."""
        stack, pending = [name], {name}
        while stack:
            top = stack[-1]
            v = self.absolute[top]

            def look(n, v=v):
                if isinstance(self.absolute.get(n), _Deferred):
                    raise _Pending(n)
                return self.lookup(n, v.here)
            try:
                value = evaluate(v.text, look, self.functions())
            except _Pending as p:
                if p.name in pending:
                    d = self.absolute[p.name].directive
                    self.fail(d, f"{p.name} is defined in terms of itself")
                stack.append(p.name)
                pending.add(p.name)
                continue
            except UndefinedSymbol:
                raise
            except ExprError as e:
                self.fail(v.directive, f"{v.directive.name}: {e}")
            self.absolute[top] = value
            pending.discard(stack.pop())
        return self.absolute[name]

    def room(self, d, nbytes: int) -> None:
        """Refuse output that would pass MAX_OBJECT_BYTES (before any memory is taken)."""
        used = sum(len(s.data) for s in self.sections.values())
        if nbytes > MAX_OBJECT_BYTES - used:
            self.fail(d, f"{d.name if isinstance(d, Directive) else d.mnemonic}: {nbytes} more bytes would make the "
                         f"object larger than {MAX_OBJECT_BYTES >> 20} MiB")

    def value(self, d, text: str, *, integer=True, here: Address | None = None):
        """`text` evaluated; `here` is what `.` means (default: the current location)."""
        try:
            v = evaluate(text, lambda name: self.lookup(name, here), self.functions())
        except ExprError as e:
            self.fail(d, f"{d.name}: {e}")
        if integer and isinstance(v, Address):
            self.fail(d, f"{d.name}: {text.strip()!r} is an address; a number is needed here")
        return v

    def functions(self) -> dict | None:
        """max/min, plus LLVM's AMDGPU expression functions once the target is known."""
        return amdgpu_functions(self.target) if self.target else None

    def encoder(self, d):
        if self._encoder is None:
            if self.target is None:
                self.fail(d, "no target: give .amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\" or --arch")
            self._encoder = encoder(self.target.name, self.wave_size)
        return self._encoder

    # ---- statements ----
    def run(self, items) -> None:
        self.run_block(items, control.block_structure(self, items))
        if self.open_kernel:
            raise AsmError(f"{self.open_kernel.where}.amdhsa_kernel {self.open_kernel.name} has no "
                           f".end_amdhsa_kernel")

    def run_block(self, items, blocks, start: int = 0, end: int | None = None) -> None:
        """Statements items[start:end] in order; a `.rept N` … `.endr` body runs N times, a
        conditional runs its first arm whose condition holds. `blocks` is the items'
        block_structure."""
        end = len(items) if end is None else end
        i = start
        self.depth += 1
        try:
            while i < end:
                it = items[i]
                self.statements += 1
                if self.statements > MAX_STATEMENTS:
                    self.fail(it, f"more than {MAX_STATEMENTS} statements run (counting .rept repetitions and "
                                  f"macro expansions): an expansion without end?")
                if isinstance(it, Directive) and (it.name in control.OPENERS or it.name == ".rept"):
                    if self.depth > control.MAX_NESTING:
                        self.fail(it, f"{it.name}: conditionals, .rept blocks and macros nested more than "
                                      f"{control.MAX_NESTING} deep")
                    block = blocks.get(i)
                    if block is None or block.end >= end:
                        self.fail(it, ".rept has no .endr" if it.name == ".rept" else f"{it.name} has no .endif")
                    if it.name == ".rept":
                        self.repeat(it, items, blocks, i + 1, block.end)
                    else:
                        arm = next((a for a in block.arms if control.holds(self, a.condition)), None)
                        if arm is not None:
                            self.run_block(items, blocks, arm.start, arm.end)
                    i = block.end + 1
                    continue
                self.statement(it)
                i += 1
        finally:
            self.depth -= 1

    def repeat(self, d, items, blocks, start: int, end: int) -> None:
        count = self.value(d, d.args)
        if count < 0:
            self.fail(d, f".rept count {count} is negative")
        if count * max(1, end - start) > MAX_STATEMENTS - self.statements:
            self.fail(d, f".rept {count} of {end - start} statement(s) would run more than {MAX_STATEMENTS} "
                         f"statements")
        for _ in range(count):
            self.run_block(items, blocks, start, end)

    def statement(self, it) -> None:
        if isinstance(it, Label):
            if self.open_kernel:
                self.fail(it, f"label {it.name!r} inside .amdhsa_kernel {self.open_kernel.name}")
            if it.name in self.absolute or any(it.name in s.labels for s in self.sections.values()):
                self.fail(it, f"symbol {it.name!r} defined twice")
            define_label(self.current.labels, it, len(self.current.data))
        elif isinstance(it, Directive):
            self.directive(it)
        elif it.mnemonic in self.macros:
            self.invoke(self.macros[it.mnemonic], it)
        else:
            if self.open_kernel:
                self.fail(it, f"instruction inside .amdhsa_kernel {self.open_kernel.name}")
            sec = self.current
            lines = self.lines if not self.expanded else _SourceView(self)
            if len(sec.data) > MAX_OBJECT_BYTES:
                self.room(it, 16)
            sec.data += encode_at(self.encoder(it), it, lines, len(sec.data), sec.branches)

    def directive(self, d: Directive) -> None:
        name, args = d.name, d.args
        if self.open_kernel and name.startswith(".amdhsa_") and name != ".amdhsa_kernel":
            if name in self.open_kernel.directives:
                self.fail(d, f".amdhsa_ directives cannot be repeated ({name} is given at line "
                             f"{self.open_kernel.directives[name][1].line})")
            self.open_kernel.directives[name] = (args, d)    # evaluated at the end: may name later .sets
            return
        if name == ".end_amdhsa_kernel":
            return self.end_kernel(d)
        if name == ".endr":
            self.fail(d, ".endr without .rept")
        if name in control.ARM_DIRECTIVES:
            self.fail(d, f"{name} without .if")
        if name == ".exitm":
            if not self.expanded:
                self.fail(d, ".exitm outside a macro")
            raise _ExitMacro
        if self.open_kernel:
            self.fail(d, f"{name} inside .amdhsa_kernel {self.open_kernel.name}")
        handler = getattr(self, "d_" + name[1:], None)
        if handler:
            return handler(d, args)
        if name in DATA_SIZES:
            return self.data(d, DATA_SIZES[name], args)
        if name in SYMBOL_ATTRIBUTES:
            return self.symbol_attribute(d, args)
        if name in KNOWN_SECTIONS:
            self.current = self._section(name)
            return
        if name in IGNORED:
            return
        self.fail(d, f"unknown directive {name}")

    def d_amdgcn_target(self, d, args):
        try:
            t = parse_target(args.strip().strip('"'))
        except ValueError as e:
            self.fail(d, str(e))
        if self.target is not None and t.name != self.target.name:
            self.fail(d, f".amdgcn_target {t.name} but assembling for {self.target.name}")
        self.target = t

    def d_amdhsa_code_object_version(self, d, args):
        self.version = self.value(d, args)
        if self.version not in METADATA_VERSION:
            self.fail(d, f"code object version {self.version}: 4, 5 and 6 are supported")

    def d_section(self, d, args):
        parts = split_args(args)
        if not parts or not parts[0]:
            self.fail(d, ".section needs a name")
        if parts[0].count('"') % 2 or parts[-1].count('"') % 2:
            self.fail(d, f".section {args.strip()}: unterminated string constant")
        flags = None
        if len(parts) > 1:
            letters = parts[1].strip('"')
            flags = 0
            for ch in letters:
                if ch not in FLAG_LETTERS and ch not in "MSGTRoe":
                    self.fail(d, f"section flag {ch!r} is not one of a, w, x")
                flags |= FLAG_LETTERS.get(ch, 0)
        stype = elf.SHT_NOBITS if len(parts) > 2 and parts[2] == "@nobits" else elf.SHT_PROGBITS
        self.current = self._section(parts[0].strip('"'), flags, stype)

    def _symbols(self, d, args) -> list[str]:
        names = [n.strip() for n in split_args(args) if n.strip()]
        if not names or not all(re.fullmatch(r"[A-Za-z_.$][\w.$]*", n) for n in names):
            self.fail(d, f"{d.name} needs symbol names, got {args!r}")
        return names

    def symbol_attribute(self, d, args):
        table, value = SYMBOL_ATTRIBUTES[d.name]
        for n in self._symbols(d, args):
            getattr(self, table)[n] = value

    def d_type(self, d, args):
        parts = split_args(args)
        kinds = {"@function": elf.STT_FUNC, "@object": elf.STT_OBJECT, "@notype": elf.STT_NOTYPE,
                 "%function": elf.STT_FUNC, "%object": elf.STT_OBJECT}
        if len(parts) != 2 or parts[1] not in kinds:
            self.fail(d, f".type takes NAME, @function|@object; got {args!r}")
        self.types[parts[0]] = kinds[parts[1]]

    def d_size(self, d, args):
        parts = split_args(args)
        if len(parts) != 2:
            self.fail(d, f".size takes NAME, EXPRESSION; got {args!r}")
        self.sizes[parts[0]] = (parts[1], d, Address(self.current.name, len(self.current.data)))

    # ---- macros ----
    def d_macro(self, d, args):
        macro = control.define_macro(self, d)
        if macro.name in self.macros:
            self.fail(d, f"macro {macro.name} is already defined (at line {self.macros[macro.name].line})")
        self.macros[macro.name] = macro

    def d_purgem(self, d, args):
        if self.macros.pop(args.strip().lower(), None) is None:
            self.fail(d, f".purgem: no macro named {args.strip()!r}")

    def invoke(self, macro: control.Macro, st) -> None:
        """Run one expansion of `macro` for the invocation `st`."""
        if len(self.expanded) >= control.MAX_MACRO_DEPTH or self.depth >= control.MAX_NESTING:
            self.fail(st, f"macro {macro.name}: expansions nested {control.MAX_MACRO_DEPTH} deep (a macro that "
                          f"invokes itself without end?)")
        source = self.source_line(st.line)
        raw = re.split(r"//|;|#", source[st.column - 1:], maxsplit=1)[0]
        raw = raw.strip()[len(macro.name):]
        text = control.expand(self, macro, st, control.macro_arguments(self, macro, st, raw), self.expansions)
        self.expansions += 1
        if len(text) > MAX_EXPANSION_CHARS:
            self.fail(st, f"macro {macro.name}: expansion of {len(text)} characters (at most {MAX_EXPANSION_CHARS})")
        items = control.parse_expansion(text, macro, st)
        self.expanded.append((macro.line + 1, text.split("\n")))
        try:
            self.run_block(items, control.block_structure(self, items))
        except _ExitMacro:
            pass
        except AsmError as e:
            context = f"\n  in expansion of macro {macro.name} at line {st.line}"
            if str(e).count("\n  in expansion") < 8:      # a runaway recursion names only its first levels
                raise AsmError(f"{e}{context}") from None
            raise
        finally:
            self.expanded.pop()

    def d_set(self, d, args):
        parts = split_args(args)
        if len(parts) != 2:
            self.fail(d, f"{d.name} takes NAME, EXPRESSION; got {args!r}")
        here = Address(self.current.name, len(self.current.data))
        try:
            value = evaluate(parts[1], lambda name: self.lookup(name, here), self.functions())
        except UndefinedSymbol:
            value = _Deferred(parts[1], d, here)
        except ExprError as e:
            self.fail(d, f"{d.name}: {e}")
        self.absolute[parts[0]] = value
    d_equ = d_set

    def _align(self, d, boundary: int, fill: int | None, limit: int | None, fill_size: int = 1):
        if boundary <= 0 or boundary & (boundary - 1):
            self.fail(d, f"{d.name}: alignment {boundary} is not a power of two")
        if boundary > 1 << 31:
            self.fail(d, f"{d.name}: alignment {boundary} is larger than 2**31")
        sec = self.current
        sec.align = max(sec.align, boundary)
        pad = -len(sec.data) % boundary
        if limit is not None and pad > limit:
            return
        self.room(d, pad)
        if pad and fill is None and sec.flags & elf.SHF_EXECINSTR and pad % 4 == 0:
            nop = encode_at(self.encoder(d), parse("s_nop 0")[0], [], 0, [])
            sec.data += nop * (pad // 4)          # code is padded with s_nop 0, as LLVM does
        else:
            if pad % fill_size:
                self.fail(d, f"{d.name}: {pad} bytes of padding is not a whole number of {fill_size}-byte fills")
            word = ((fill or 0) & ((1 << 8 * fill_size) - 1)).to_bytes(fill_size, "little")
            sec.data += word * (pad // fill_size)

    def _align_args(self, d, args, power: bool, fill_size: int = 1):
        parts = [self.value(d, p) if p else None for p in split_args(args)] + [None, None]
        if parts[0] is None:
            self.fail(d, f"{d.name} needs an alignment")
        if power and not 0 <= parts[0] <= 31:
            self.fail(d, f"{d.name}: invalid alignment value {parts[0]} (0..31)")
        self._align(d, 1 << parts[0] if power else parts[0], parts[1], parts[2], fill_size)

    def d_p2align(self, d, args):
        self._align_args(d, args, True)

    def d_p2alignw(self, d, args):
        self._align_args(d, args, True, 2)

    def d_p2alignl(self, d, args):
        self._align_args(d, args, True, 4)

    def d_balign(self, d, args):
        self._align_args(d, args, False)
    d_align = d_balign

    def data(self, d, size: int, args: str):
        """Room for each value now; the value is taken now (so `.set` counters in a `.rept`
        count), or at the end when it names a label further down."""
        for part in split_args(args):
            at = len(self.current.data)
            here = Address(self.current.name, at)
            try:
                value = evaluate(part, lambda name: self.lookup(name, here), self.functions())
            except UndefinedSymbol:
                value = None
            except ExprError as e:
                self.fail(d, f"{d.name}: {e}")
            self.room(d, size)
            self.current.data += bytes(size)
            self.late_data.append((self.current, at, size, part, d, value))

    def d_zero(self, d, args):
        parts = split_args(args)
        count = self.value(d, parts[0])
        fill = self.value(d, parts[1]) if len(parts) > 1 else 0
        if count < 0:
            self.fail(d, f"{d.name}: negative size {count}")
        self.room(d, count)
        self.current.data += bytes([fill & 0xFF]) * count
    d_space = d_skip = d_zero

    def d_fill(self, d, args):
        """.fill REPEAT[, SIZE[, VALUE]]: REPEAT copies of VALUE's low SIZE (at most 8) bytes."""
        given = [self.value(d, p) for p in split_args(args)]
        count, size, value = given + [1, 0][len(given) - 1:] if 1 <= len(given) <= 3 else (-1, 0, 0)
        if count < 0 or not 0 <= size <= 8:
            self.fail(d, f".fill {count}, {size}: repeat must be >= 0 and size 0..8")
        self.room(d, count * size)
        self.current.data += (value & ((1 << 8 * size) - 1)).to_bytes(size, "little") * count

    def d_ascii(self, d, args, terminator=b""):
        for part in split_args(args):
            if not (len(part) >= 2 and part[0] == part[-1] == '"'):
                self.fail(d, f"{d.name} takes quoted strings, got {part!r}")
            raw = self.string_bytes(d, part[1:-1]) + terminator
            self.room(d, len(raw))
            self.current.data += raw

    def string_bytes(self, d, body: str) -> bytes:
        """A quoted string's bytes with LLVM's escapes: b f n r t " and backslash after a
        backslash, x and any number of hex digits (the low byte kept), or up to three octal
        digits (at most 255); any other escape is refused, as LLVM's assembler does."""
        out, i = bytearray(), 0
        while i < len(body):
            j = body.find("\\", i)
            if j < 0:
                out += body[i:].encode()
                break
            out += body[i:j].encode()
            esc = body[j + 1:j + 2]
            if esc in STRING_ESCAPES:
                out.append(STRING_ESCAPES[esc])
                i = j + 2
            elif esc in ("x", "X"):
                digits = re.match(r"[0-9a-fA-F]*", body[j + 2:]).group(0)
                if not digits:
                    self.fail(d, f"{d.name}: invalid hexadecimal escape sequence")
                out.append(int(digits[-2:], 16))
                i = j + 2 + len(digits)
            elif esc and esc in "01234567":
                digits = re.match(r"[0-7]{1,3}", body[j + 1:]).group(0)
                if int(digits, 8) > 255:
                    self.fail(d, f"{d.name}: invalid octal escape sequence \\{digits} (out of range)")
                out.append(int(digits, 8))
                i = j + 1 + len(digits)
            else:
                self.fail(d, f"{d.name}: invalid escape sequence \\{esc} (unrecognized character)")
        return bytes(out)

    def d_asciz(self, d, args):
        self.d_ascii(d, args, b"\0")
    d_string = d_asciz

    def d_amdhsa_kernel(self, d, args):
        name = args.strip()
        if not re.fullmatch(r"[A-Za-z_.$][\w.$]*", name):
            self.fail(d, f".amdhsa_kernel needs a kernel name, got {args!r}")
        self.open_kernel = _Kernel(name, {}, self.current.name, len(self.current.data), self.where(d))

    def end_kernel(self, d):
        k = self.open_kernel
        if k is None:
            self.fail(d, ".end_amdhsa_kernel without .amdhsa_kernel")
        self.open_kernel = None
        if self.current.flags & elf.SHF_EXECINSTR:
            self.fail(d, f"kernel descriptor {k.name}.kd would go into code section {self.current.name}; "
                         f"switch to .rodata first")
        if self.target is None:
            self.fail(d, "no target: give .amdgcn_target before .amdhsa_kernel")
        k.offset = len(self.current.data)
        k.section = self.current.name
        k.end = d
        self.current.data += bytes(DESCRIPTOR_SIZE)          # filled in by build_kernel at the end
        define_label(self.current.labels, Label(k.name + ".kd", d.line, d.column), k.offset)
        self.kernels.append(k)
        self.bind.setdefault(k.name + ".kd", elf.STB_GLOBAL)
        self.types.setdefault(k.name + ".kd", elf.STT_OBJECT)
        self.sizes.setdefault(k.name + ".kd", (str(DESCRIPTOR_SIZE), d, None))
        self.visibility.setdefault(k.name, elf.STV_PROTECTED)
        self.types.setdefault(k.name, elf.STT_FUNC)
        self.bind.setdefault(k.name, elf.STB_GLOBAL)

    def build_kernel(self, k: _Kernel) -> None:
        """The descriptor's bytes, once every symbol its `.amdhsa_*` values name is known."""
        wave = self.wave_size or self.target.default_wave_size
        directives = {n: self.descriptor_value(n, dd, text) for n, (text, dd) in k.directives.items()}
        if self.target.major >= 10:
            directives.setdefault(".amdhsa_wavefront_size32", int(wave == 32))
        try:
            desc, regs = build_descriptor(self.target, directives, wave)
        except ValueError as e:
            self.fail(k.end, f".amdhsa_kernel {k.name}: {e}")
        self.sections[k.section].data[k.offset:k.offset + DESCRIPTOR_SIZE] = encode_descriptor(desc, self.target)
        k.descriptor, k.regs, k.wave = desc, regs, wave

    def descriptor_value(self, name: str, d, text: str) -> int:
        """A `.amdhsa_*` value checked as LLVM's assembler checks it: a known directive of this target,
        in the range of its descriptor field (0/1 for the .amdhsa_reserve_* flags)."""
        value = self.value(d, text)
        fields = {f.directive: f for f in fields_for(self.target) if f.directive}
        if name == ".amdhsa_accum_offset" and not self.target.gfx90a_plus:
            self.fail(d, f"{name}: directive requires gfx90a+ (not {self.target.name})")
        if name in fields:
            top = (1 << fields[name].width) - 1
        elif name.startswith(".amdhsa_reserve_"):
            top = 1 if name in REGISTER_DIRECTIVES else None
        elif name in REGISTER_DIRECTIVES:
            top = (1 << 32) - 1
        else:
            top = None
        if top is None:
            known = any(f.directive == name for f in FIELDS)
            self.fail(d, f"{name} " + (f"does not exist on {self.target.name}" if known
                                       else "is not a kernel descriptor directive"))
        if not 0 <= value <= top:
            self.fail(d, f"{name} {value}: value out of range (0..{top})")
        return value

    def d_amdgpu_metadata(self, d, args):
        try:
            meta = yaml.safe_load(d.body or "")
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            line = d.line + 1 + (mark.line if mark else 0)
            raise AsmError(f"{line}:{(mark.column + 1) if mark else 1}: .amdgpu_metadata is not valid YAML: "
                           f"{getattr(e, 'problem', e)}") from None
        if not isinstance(meta, dict) or "amdhsa.kernels" not in meta:
            self.fail(d, ".amdgpu_metadata must be a YAML map with amdhsa.kernels")
        problem = _metadata_problem(meta)
        if problem:
            self.fail(d, f".amdgpu_metadata: {problem}")
        self.metadata = meta
        self.metadata_directive = d

    # ---- output ----
    def finish(self) -> bytes:
        for sec in self.sections.values():
            resolve_branches(sec.data, sec.branches, sec.labels, self.lines)
            self.resolve_literals(sec)
        for k in self.kernels:
            self.build_kernel(k)
        for sec, at, size, text, d, v in self.late_data:
            if v is None:
                v = self.value(d, text, integer=False, here=Address(sec.name, at))
            if isinstance(v, Address):
                if size != 8 or v.symbol is None:
                    self.fail(d, f"{d.name}: {text.strip()!r} is an address; only .quad SYMBOL[+N] can hold one")
                self.data_fixups.append(Fixup(sec.name, at, R_AMDGPU_ABS64, *self.relocation_target(v),
                                              self.where(d)))
                continue
            if not -(1 << (8 * size - 1)) <= v < (1 << 8 * size):
                self.fail(d, f"{d.name}: value {v} does not fit in {size} bytes")
            sec.data[at:at + size] = (v & ((1 << 8 * size) - 1)).to_bytes(size, "little")
        symbols, fixups = self.symbols(), list(self.data_fixups)
        for k in self.kernels:
            if not any(s.name == k.name and s.section for s in symbols):
                raise AsmError(f"{k.where}.amdhsa_kernel {k.name}: no label {k.name!r} marks its code")
            fixups.append(Fixup(k.section, k.offset + 16, R_AMDGPU_REL64, k.name, 16, k.where))
        metadata = self.metadata
        if metadata is None and self.kernels:
            metadata = {"amdhsa.version": METADATA_VERSION[self.version], "amdhsa.target": self.target.target_id,
                        "amdhsa.kernels": [kernel_metadata(k.name, k.descriptor, k.regs, [], k.wave, self.target, {})
                                           for k in self.kernels]}
        sections = [OutputSection(s.name, bytes(s.data) if s.type != elf.SHT_NOBITS else b"", s.flags, s.align,
                                  s.type, len(s.data) if s.type == elf.SHT_NOBITS else None)
                    for s in self.sections.values() if s.data or s.labels]
        try:
            data = link(self.target, sections, symbols, fixups, metadata, elf.ABI_VERSION[self.version])
        except LinkError as e:
            raise AsmError(str(e)) from None
        if metadata is not None:
            # the metadata is written as given: an object a loader would refuse (a kernel the
            # metadata lists without its descriptor, a wave size the descriptor contradicts)
            # is refused here instead of written
            try:
                read_code_object(data)
            except CodeObjectError as e:
                where = self.metadata_directive or Directive(".amdgpu_metadata", "", 1, 1)
                self.fail(where, f".amdgpu_metadata: the object would not load: {e}")
        return data

    def resolve_literals(self, sec: _Section) -> None:
        """Instruction literals naming symbols: a number (label difference, .set value) is
        written in place; an address becomes a relocation for the linker, of the type its
        specifier names (sym@rel32@lo -> R_AMDGPU_REL32_LO, S + A - P)."""
        for pos, ref, st in sec.branches:
            if type(ref) is not LiteralRef:
                continue
            expr, spec = split_specifier(ref.text)
            here = Address(sec.name, pos)
            try:
                v = evaluate(expr, lambda name: self.lookup(name, here), self.functions())
            except ExprError as e:
                self.fail(st, f"{st.mnemonic}: literal {ref.text!r}: {e}")
            if isinstance(v, Address):
                if v.symbol is None:
                    self.fail(st, f"{st.mnemonic}: literal {ref.text!r} names no symbol to relocate against")
                self.data_fixups.append(Fixup(sec.name, pos, LITERAL_RELOCATIONS[spec], *self.relocation_target(v),
                                              self.where(st)))
                continue
            if spec:
                self.fail(st, f"{st.mnemonic}: @{spec} needs an address, but {expr!r} is the number {v}")
            if not -(1 << 31) <= v < (1 << 32):
                self.fail(st, f"{st.mnemonic}: literal {ref.text!r} = {v} does not fit in 32 bits")
            sec.data[pos:pos + 4] = (v & 0xffffffff).to_bytes(4, "little")

    def relocation_target(self, v: Address) -> tuple[str, int]:
        """(symbol, addend) a relocation to address `v` names. A `.L` label never reaches
        the symbol table, so, as LLVM does, the reference is to its section (the section's
        name stands for its start) plus the label's offset."""
        if v.symbol.startswith(".L"):
            return v.section, v.offset
        return v.symbol, v.offset - self.lookup(v.symbol).offset

    def symbols(self) -> list[SymbolDef]:
        out = []
        for sec in self.sections.values():
            for name, offset in sec.labels.items():
                if name.startswith(".L"):
                    continue                       # assembler-local labels stay out of the object
                size = 0
                if name in self.sizes:
                    text, d, here = self.sizes[name]
                    size = self.value(d, text, here=here)
                    if size < 0:
                        self.fail(d, f".size of {name} is {size}; a size is >= 0")
                out.append(SymbolDef(name, sec.name, offset, size, self.types.get(name, elf.STT_NOTYPE),
                                     self.bind.get(name, elf.STB_LOCAL),
                                     self.visibility.get(name, elf.STV_PROTECTED
                                                         if self.bind.get(name) == elf.STB_GLOBAL else 0)))
        for name, defined in list(self.absolute.items()):
            try:
                value = self.lookup(name)
            except UndefinedSymbol as e:
                self.fail(defined.directive, f"{defined.directive.name}: {e}")
            if isinstance(value, Address):
                continue                           # an alias of a label: the label is the symbol
            if not name.startswith(".L"):
                out.append(SymbolDef(name, None, value & (1 << 64) - 1, 0, elf.STT_NOTYPE,
                                     self.bind.get(name, elf.STB_LOCAL), 0))
        return out


class _SourceView:
    """The source lines as an error message quotes them: a running macro expansion's lines
    read as expanded text (a macro body lies within the file, so the length is the file's)."""
    def __init__(self, module: _Module):
        self.module = module

    def __len__(self) -> int:
        return len(self.module.lines)

    def __getitem__(self, index: int) -> str:
        return self.module.source_line(index + 1)


def _excerpt(line: str, limit: int = 160) -> str:
    """A source line as an error quotes it: a very long one (a generated 8 MB line) shortened."""
    return line if len(line) <= limit else f"{line[:limit - 40]} ... {line[-30:]} ({len(line)} characters)"


class _Pending(Exception):
    """A deferred `.set` names another deferred one: resolve that first."""

    def __init__(self, name: str):
        self.name = name


class _ExitMacro(Exception):
    """`.exitm`: the rest of the running expansion is skipped."""


def _metadata_problem(meta) -> str | None:
    """Why the metadata cannot be written as the msgpack note, or None: a value it cannot
    hold (an integer outside 64 bits, a date, a set), or more than MAX_METADATA_NODES values
    counting every use of a YAML alias (nested anchors grow exponentially when written)."""
    stack, seen = [(meta, "")], 0
    while stack:
        value, path = stack.pop()
        seen += 1
        if seen > MAX_METADATA_NODES:
            return f"more than {MAX_METADATA_NODES} values (nested YAML aliases?)"
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, (str, int)):
                    return f"{path or 'top level'}: key {key!r} is not a string"
                stack.append((item, f"{path}.{key}" if path else str(key)))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, bool) or value is None or isinstance(value, (str, float)):
            continue
        elif isinstance(value, int):
            if not -(1 << 63) <= value < 1 << 64:
                return f"{path}: {value} does not fit in 64 bits"
        else:
            return f"{path}: a {type(value).__name__} value cannot be written"
    return None


def assemble_module(text: str, target: str | None = None, *, wave_size: int | None = None,
                    filename: str = "<source>") -> bytes:
    """A code object from an assembly source with sections, symbols and `.amdhsa_kernel`
    blocks. The target comes from `.amdgcn_target` or `target`; AsmError names line:column."""
    with collector_paused():        # a whole file's statements, encodings and symbols: no cycles
        m = _Module(text, parse_target(target) if target else None, wave_size, filename)
        m.run(parse(text))
        if m.target is None:
            raise AsmError("1:1: no target: give .amdgcn_target \"amdgcn-amd-amdhsa--gfx1100\" or a target argument")
        return m.finish()


def needs_code_object(text: str) -> bool:
    """Whether a source has kernels or sections (and so assembles to a code object)."""
    return bool(re.search(r"^\s*\.(amdhsa_kernel|amdgcn_target|section|rodata|data|globl)\b", text, re.M))

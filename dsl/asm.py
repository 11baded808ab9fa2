"""Text assembler: LLVM AMDGPU syntax -> bytes. The text is parsed by asm_parse.py (over the
lexer of asm_lexer.py); here statements are encoded, labels and branches resolved, and the
encoder's refusals turned into errors at the line:column of the operand refused."""
from __future__ import annotations

import re

import isa

from . import families, list_reader, syntax
from .asm_lexer import number
from .asm_parse import AsmError, collector_paused, inner_offset, located_error, parse, quote, term_columns
from .branches import resolve_branches
from .operands import Mod, OperandError
from .instr import Instr, Modifiers
from .statement import Attr, BitOr, Call, Directive, Label, LiteralRef, SymExpr

__all__ = ["AsmError", "Attr", "BitOr", "Call", "Directive", "Instr", "Label", "LiteralRef", "Modifiers", "SymExpr",
           "assemble", "collector_paused", "define_label", "encode_at", "encode_error", "encoder",
           "encode_with_halves", "located_error", "parse", "resolve_branches", "resolve_literals", "split_specifier",
           "vgpr_half"]


# Directives an instruction-only text may carry without changing its bytes.
_HARMLESS_DIRECTIVES = {".text"}


def assemble(text: str, arch: str, wave_size: int | None = None) -> bytes:
    """Assemble LLVM-syntax text for `arch` (e.g. 'gfx1100'). Labels resolve to branch
    offsets. Raises AsmError naming line:column and what is wrong. Sections, data and
    kernel directives need a code object: runtime.asm_module / `wavesmith asm -o x.hsaco`."""
    try:
        return _assemble_text(text, arch, wave_size)
    except AsmError as e:
        raise _list_error(e, text, arch, wave_size) from None


def _assemble_text(text: str, arch: str, wave_size: int | None) -> bytes:
    """assemble() without list_reader's relocation of its error (which probes with it)."""
    if families.gfx9_syntax(arch):   # CDNA3: instruction lines only (asm_gfx9.py)
        from .asm_gfx9 import Gfx9AsmError, assemble_gfx9
        if wave_size not in (None, 64):
            raise AsmError(f"{arch} runs wave64 only, got wave_size={wave_size}")
        try:
            return assemble_gfx9(text, arch)
        except Gfx9AsmError as e:
            err = AsmError(str(e))
            err.unknown_modifier = getattr(e, "unknown_modifier", False)
            raise err from None
    with collector_paused():
        return _assemble(text, encoder(arch, wave_size))


def _list_error(e: AsmError, text: str, arch: str, wave_size: int | None) -> AsmError:
    """`e`, or where LLVM reports it when its line has a list modifier LLVM's reader stops in
    (list_reader.relocated: at the mnemonic or the modifier's key when the instruction refuses
    the modifier or its form, else where the reader stops)."""
    first, _, rest = str(e).partition("\n")
    m = re.match(r"(\d+):(\d+): (.*)", first)
    lines = text.split("\n")
    if m is None or not 0 < int(m.group(1)) <= len(lines):
        return e
    no, line = int(m.group(1)), lines[int(m.group(1)) - 1]

    def probe(one: str):
        try:
            _assemble_text(one, arch, wave_size)
        except AsmError as err:
            at = re.match(r"\d+:(\d+): (.*)", str(err).partition("\n")[0])
            return (int(at.group(1)) if at else 1, at.group(2) if at else str(err),
                    getattr(err, "unknown_modifier", False))
        return None

    column, message = list_reader.relocated(line, int(m.group(2)), m.group(3), probe)
    if (column, message) == (int(m.group(2)), m.group(3)):
        return e
    err = AsmError(f"{no}:{column}: {message}" + (f"\n{quote(line, column)}" if rest else ""))
    err.line, err.column = no, column
    return err


def _assemble(text: str, enc) -> bytes:
    out = bytearray()
    labels: dict[str, int] = {}
    fixups = []
    encode = enc.encode
    halves = enc.spec.arch in syntax.TRUE16_FAMILIES
    for it in parse(text):
        if type(it) is Instr:           # encode_at, inline for the usual item
            try:
                half = None if halves else vgpr_half(it)
                data, fix = encode(it) if half is None else encode_with_halves(enc, it, half)
            except (OperandError, ValueError) as e:
                raise encode_error(e, it, text.splitlines()) from None
            if fix is not None:
                add_fixup(fixups, len(out), fix, it)
            out += data
        elif isinstance(it, Label):
            define_label(labels, it, len(out))
        elif isinstance(it, Directive):
            if it.name not in _HARMLESS_DIRECTIVES:
                raise AsmError(f"{it.line}:{it.column}: directive {it.name} needs a code object; "
                               f"assemble with runtime.asm_module.assemble_module() or "
                               f"`wavesmith asm FILE -o FILE.hsaco`")
        else:
            out += encode_at(enc, it, text.splitlines(), len(out), fixups)
    resolve_branches(out, fixups, labels, text.splitlines())
    resolve_literals(out, fixups, labels)
    return bytes(out)


def encoder(arch: str, wave_size: int | None = None):
    """The instruction encoder for `arch` and wave size (the arch's own by default), one per
    pair: an Encoder's caches only grow with what it has encoded, and building one (its
    format layouts) cost more than assembling a short text."""
    from .encode import Encoder
    if families.gfx9_syntax(arch):   # CDNA3, CDNA4: the gfx9 syntax generation's encoder
        from .asm_gfx9 import Gfx9Encoder
        spec = families.load_for_disassembly(arch)
        hit = _ENCODERS.get((id(spec), 64))
        if hit is None or hit.spec is not spec:
            hit = _ENCODERS[id(spec), 64] = Gfx9Encoder(spec)
        return hit
    spec = families.load_for_assembly(arch)
    wave = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
    hit = _ENCODERS.get((id(spec), wave))
    if hit is None or hit.spec is not spec:
        hit = _ENCODERS[id(spec), wave] = Encoder(spec, wave)
    return hit


_ENCODERS: dict = {}


def define_label(labels: dict, label: Label, offset: int) -> None:
    if label.name in labels:
        raise AsmError(f"{label.line}:{label.column}: label {label.name!r} defined twice")
    labels[label.name] = offset


def vgpr_half(st: Instr):
    """The first operand naming a 16-bit VGPR half (v1.l / v1.h) of a statement, or None."""
    for st_half in (st, st.dual) if st.dual is not None else (st,):
        for op in st_half.operands:
            reg = op.value if isinstance(op, Mod) else op
            if getattr(reg, "half", None):
                return op
    return None


def encode_with_halves(enc, st: Instr, half) -> tuple:
    """(bytes, fix-up) of a statement naming VGPR halves (`half`, the first) for a family whose
    syntax has none (outside syntax.TRUE16_FAMILIES: a 16-bit operand is the whole VGPR, its high
    half selected by op_sel), but in a 16-bit compare's 32-bit encoding (syntax.E32_COMPARE_HALVES:
    VOPC without DPP, where bit 7 of the VGPR field is the half): the encoding the operands choose
    must be that one, else the halves are refused."""
    from .encode import _DPP16_MODIFIERS      # what makes a statement DPP (its DPP16 controls, dpp8)
    arch = enc.spec.arch
    if arch in syntax.E32_COMPARE_HALVES and st.dual is None and "dpp8" not in st.modifiers \
            and _DPP16_MODIFIERS.isdisjoint(st.modifiers):
        chosen, data, fix = enc.select(st)
        if chosen.defn.format == "VOPC":
            return data, fix
    where = " outside a 16-bit compare's 32-bit encoding" if arch in syntax.E32_COMPARE_HALVES else ""
    raise OperandError(f"{st.mnemonic}: {half.value if isinstance(half, Mod) else half}: {arch} names no 16-bit VGPR "
                       f"halves (.l/.h){where}; write the whole VGPR (op_sel selects a high half where the "
                       f"instruction has it)", half)


def encode_at(enc, st: Instr, lines: list[str], offset: int, fixups: list) -> bytes:
    """Bytes of one instruction placed at `offset`; a branch to a label appends
    (offset, label, statement) to `fixups` for resolve_branches (branches are always
    4 bytes, so label addresses are known after one pass), a symbolic literal appends
    (offset of its dword, LiteralRef, statement) for resolve_literals or the code-object path."""
    try:
        half = None if enc.spec.arch in syntax.TRUE16_FAMILIES else vgpr_half(st)
        data, fix = enc.encode(st) if half is None else encode_with_halves(enc, st, half)
    except (OperandError, ValueError) as e:
        raise encode_error(e, st, lines) from None
    if fix is not None:
        add_fixup(fixups, offset, fix, st)
    return data


def encode_error(e: Exception, st: Instr, lines: list[str]) -> AsmError:
    """The AsmError of an instruction the encoder rejects: line:column of the operand or
    modifier it refuses (else of the mnemonic), the reason, the line."""
    src = lines[st.line - 1] if 0 < st.line <= len(lines) else ""
    column = _error_column(e, st, src)
    message = str(e)
    if "_".join(st.mnemonic.split("_")[:2]) not in message[:120]:    # name the instruction (v_add, s_load:
        message = f"{st.mnemonic}: {message}"                           # most of the encoder's messages do)
    err = AsmError(f"{st.line}:{column}: {message}\n{quote(src, column)}")
    err.unknown_modifier = getattr(e, "unknown", False)     # OperandError.unknown, for list_reader
    return err


def _error_column(e: Exception, st: Instr, src: str) -> int:
    """Column of what the encoder refused: OperandError.operand (found among the operands by
    identity, then by value) or .modifier, where the parser read it on the line; else the
    mnemonic's column."""
    operand, modifier = getattr(e, "operand", None), getattr(e, "modifier", None)
    if getattr(e, "at_mnemonic", False):
        return st.column
    parts = (st, st.dual) if st.dual is not None else (st,)
    part, index = getattr(e, "part", None), getattr(e, "index", None)
    if part is not None and part < len(parts):
        parts = (parts[part],)
    if operand is None and modifier is None:      # a message quoting a modifier (offset:70000 ...)
        message = str(e)
        modifier = next((key for part in parts for key in part.modifiers if f"{key}:" in message), None)
    if operand is not None:
        for same in (lambda o: o is operand, lambda o: type(o) is type(operand) and o == operand):
            for part in parts:
                for i, o in enumerate(part.operands):
                    if index is not None and i != index:
                        continue
                    if same(o) or isinstance(o, Mod) and same(o.value) or type(o) is list and any(map(same, o)):
                        column = term_columns(src, part.column).get(i)
                        if column and type(o) is list and not same(o):      # an entry of a [..] list: where
                            column = _entry_column(src, column, next(j for j, x in enumerate(o) if same(x)))
                        elif column and not same(o) and isinstance(o, Mod):  # the value inside -x, |x|,
                            column += inner_offset(src[column - 1:])         # neg(x): where x is written
                        if column:
                            return column
                for key, value in part.modifiers.items():     # vmcnt(0) lgkmcnt(99): a count after the first
                    if same(value):
                        modifier = modifier or key
    if modifier:        # a key, or (key, entry index) for an entry of its list (op_sel:[0,2])
        for key in (modifier, modifier[0]) if type(modifier) is tuple else (modifier,):
            for part in reversed(parts):
                column = term_columns(src, part.column).get(key)
                if column:
                    return column
    if isinstance(operand, Attr):       # a name inside an operand (A | B): where the name is written
        found = re.compile(rf"(?<![\w.$]){re.escape(operand.name)}(?![\w.$@])").search(src, st.column)
        if found:
            return found.start() + 1
    return st.column


def _entry_column(src: str, column: int, index: int) -> int:
    """Column of entry `index` of the `[a, b, ..]` list written at `column` (its `[`; as LLVM
    points at a wrong-width address group of an NSA list), else `column`."""
    at = column - 1
    if src[at:at + 1] != "[":
        return column
    depth, entry, start = 0, 0, at + 1
    for k in range(at, len(src)):
        c = src[k]
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            entry, start = entry + 1, k + 1
        if entry == index and k + 1 == start:       # the entry begins: past its spaces
            while start < len(src) and src[start] == " ":
                start += 1
            return start + 1
    return column


def add_fixup(fixups: list, offset: int, fix, st: Instr) -> None:
    """Note what of the instruction at `offset` is filled in later: a branch label or a LiteralRef."""
    if isinstance(fix, LiteralRef):
        fixups.append((offset + fix.at, fix, st))
    else:
        fixups.append((offset, fix, st))


# name@rel32@lo, name@gotpcrel32@hi, name@abs32@lo ...: which half of which relocated value
_SPECIFIER = re.compile(r"@(rel32|gotpcrel32|abs32)@(lo|hi)\b", re.I)
_TERM = re.compile(r"([-+]?)([A-Za-z_.$][\w.$@]*|0x[0-9a-fA-F]+|\d+)")


def split_specifier(text: str) -> tuple[str, str | None]:
    """(the expression without its relocation specifier, 'rel32@lo'-style specifier or None)."""
    found = _SPECIFIER.findall(text)
    if len(found) > 1:
        raise AsmError(f"{text}: more than one relocation specifier")
    return _SPECIFIER.sub("", text), "@".join(found[0]).lower() if found else None


def resolve_literals(code: bytearray, fixups: list, labels: dict[str, int]) -> None:
    """Fill symbolic literals that are label differences within `code` (.Lend-.Lstart+4);
    anything naming an address (a lone symbol, @rel32/@abs32/@gotpcrel32) needs a code object."""
    for pos, ref, st in fixups:
        if type(ref) is not LiteralRef:
            continue
        where = f"{st.line}:{st.column}: {st.mnemonic}: literal {ref.text!r}"
        expr, spec = split_specifier(ref.text)
        code_object = ("known only when the code is placed; assemble it into a code object with "
                       "runtime.asm_module.assemble_module() or `wavesmith asm FILE -o FILE.hsaco`")
        if spec:
            raise AsmError(f"{where}: @{spec} is a relocation, {code_object}")
        value = net_labels = 0
        for sign, term in _TERM.findall(expr):
            k = -1 if sign == "-" else 1
            if term[0].isdigit():
                value += k * number(term)
                continue
            if term not in labels:
                raise AsmError(f"{where}: undefined symbol {term!r}")
            value += k * labels[term]
            net_labels += k
        if net_labels:
            raise AsmError(f"{where} is an address, {code_object}")
        code[pos:pos + 4] = (value & 0xffffffff).to_bytes(4, "little")

"""What the text parser produces besides instructions (instr.Instr): the operand values that
are not registers or numbers (symbols, calls such as hwreg(...), symbol expressions), labels
and directives, and `LiteralRef`, a literal the linker fills in. Plain data: this module
imports nothing else of dsl/, so the parser (asm.py), the encoder (encode.py) and the DSL
(kernel.py) all share it without an import cycle."""
from __future__ import annotations

from isa.records import dataclass


@dataclass(frozen=True)
class Call:
    """name(args...) in an operand position: hwreg(...), sendmsg(...), vmcnt(0), swizzle(...)."""
    name: str
    args: tuple

    def __str__(self) -> str:       # as written, for messages
        return f"{self.name}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Attr:
    """attr0.w (lds_param_load) or a symbol name such as a branch label."""
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Label:
    """`name:` at the start of a line."""
    name: str
    line: int
    column: int


@dataclass(frozen=True)
class Directive:
    """`.name args` with its arguments as raw text (trailing comment removed). A block
    directive whose body is not assembly (`.amdgpu_metadata` YAML) carries that body's
    raw lines in `body`; its end directive is consumed with it."""
    name: str
    args: str
    line: int
    column: int
    body: str | None = None


@dataclass(frozen=True)
class SymExpr:
    """An operand that adds or subtracts symbols and numbers (table@rel32@lo+4, .Lend-.Lstart):
    encoded as a 32-bit literal whose value is filled in once the symbols are placed."""
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class BitOr:
    """a|b|... with a symbolic part (UC_VERSION_W64_BIT); numbers alone are folded by the parser."""
    parts: tuple

    def __str__(self) -> str:
        return "|".join(map(str, self.parts))


@dataclass(frozen=True)
class LiteralRef:
    """A symbolic 32-bit literal of an encoded instruction: its expression text and the byte
    offset of its literal dword within the instruction (the dword holds 0 until resolved)."""
    text: str
    at: int

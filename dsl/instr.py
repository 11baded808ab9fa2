"""The instruction value of dsl/: one instruction as the text parser reads it, a DSL call
builds it and the encoders (RDNA's encode.py, CDNA's asm_gfx9.py) take it. An `Instr` is
immutable and compares and hashes by value (its mnemonic, operands, modifiers, definition
and encoding), never by where it was written, so it can key a dictionary or a set.

    Instr("v_add_f32", (Reg("v", 1), Reg("v", 2), 1.0), Modifiers(clamp=True))

The parser and the DSL know the mnemonic only; once an encoder has chosen the encoding,
`defn` (the isa InstrDef) and `encoding` (its format name) say which instruction it is, and
`effects` reads that definition's generated operand effects (isa.effects: what it reads
and writes), `text()` / `str()` its LLVM text (instr_text.py, which needs none of dsl/'s
encoders, parser or printers)."""
from __future__ import annotations

from dataclasses import field

import isa
from isa import InstrDef, Spec
from isa.effects import Effects, effects
from isa.records import dataclass

from .instr_text import instr_text


class Modifiers(dict):
    """An instruction's modifiers, keyword -> value (True for a flag, a number, a name, a
    list, a call such as vmcnt(0)), in the order written. Read-only: a changed instruction
    is a new Instr (dataclasses.replace)."""
    __slots__ = ()

    def _read_only(self, *args, **kwargs):
        raise TypeError("an Instr's modifiers are read-only; build a new Instr with dataclasses.replace")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _read_only

    def __hash__(self) -> int:
        return hash(tuple((k, frozen(v)) for k, v in self.items()))

    def __reduce__(self):
        return Modifiers, (dict(self),)

    def __repr__(self) -> str:
        return f"Modifiers({dict.__repr__(self)})"


NO_MODIFIERS = Modifiers()


def frozen(value):
    """`value` with its lists as tuples (operands and modifier values may be lists: an image
    address [v1, v2], op_sel:[0,1]), for hashing."""
    if type(value) is list or type(value) is tuple:
        return tuple(frozen(v) for v in value)
    return value


@dataclass(frozen=True, slots=True, init=False)
class Instr:
    mnemonic: str                        # as written, lower case: v_add_f32, v_add_f32_e64, s_endpgm
    operands: tuple = ()                 # registers, numbers, specials, Mod, Lit, Call, Attr, SymExpr ...
    modifiers: Modifiers = NO_MODIFIERS
    defn: InstrDef | None = None         # the instruction, once an encoding is chosen
    encoding: str | None = None          # its format name (VOP2, VOP3, SMEM ...), once chosen
    dual: Instr | None = None            # VOPD: the Y half (this Instr is the X half)
    line: int = field(default=0, compare=False)      # where it was written (0: a DSL call)
    column: int = field(default=0, compare=False)

    def __init__(self, mnemonic: str, operands: tuple = (), modifiers: Modifiers = NO_MODIFIERS,
                 defn: InstrDef | None = None, encoding: str | None = None, dual: Instr | None = None,
                 line: int = 0, column: int = 0):
        # each field is set once, here, through its slot: the parser builds one Instr per line, and
        # the frozen dataclass's own __init__ (object.__setattr__ per field) cost twice as much
        _set_mnemonic(self, mnemonic)
        _set_operands(self, operands)
        _set_modifiers(self, modifiers)
        _set_defn(self, defn)
        _set_encoding(self, encoding)
        _set_dual(self, dual)
        _set_line(self, line)
        _set_column(self, column)

    def __hash__(self) -> int:
        return hash((self.mnemonic, frozen(self.operands), self.modifiers, self.defn, self.encoding, self.dual))

    @property
    def effects(self) -> Effects:
        """What the chosen instruction's pseudocode reads and writes (isa.effects); needs `defn`."""
        if self.defn is None:
            raise ValueError(f"{self.mnemonic}: no instruction chosen yet (encode it first), so no effects")
        return effects(self.defn.pcode)

    def text(self, spec: Spec | str | None = None) -> str:
        """The instruction in LLVM's syntax (instr_text.py; virtual registers by name): `spec`,
        an isa Spec or an arch name, gives the family's spellings and, without `defn`, the
        instruction the mnemonic names (its constant K, immediate styles)."""
        return instr_text(self, isa.load(spec) if type(spec) is str else spec)

    def __str__(self) -> str:
        return instr_text(self)


(_set_mnemonic, _set_operands, _set_modifiers, _set_defn, _set_encoding, _set_dual, _set_line,
 _set_column) = (getattr(Instr, name).__set__ for name in
                 ("mnemonic", "operands", "modifiers", "defn", "encoding", "dual", "line", "column"))

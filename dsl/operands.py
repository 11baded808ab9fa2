"""Operand values: what a DSL call or an assembly line passes to an instruction.

    s[5], s[0:1], v[3], v[0:3], ttmp[2], v[1].h        registers (ranges inclusive, like LLVM)
    vcc, vcc_lo, exec, m0, null, scc                    special registers
    -v[1], abs(v[2]), neg(3)                            source modifiers
    lit(1.0)                                            force a 32-bit literal
Plain Python ints and floats are immediates; the instruction's operand type decides
whether they become inline constants or a literal and how floats are converted."""
from __future__ import annotations

from dataclasses import replace
from functools import cached_property

from isa.records import dataclass

# LLVM's names for the register classes and how many registers each file has
REG_CLASSES = {"s": 106, "v": 256, "ttmp": 16, "a": 256}    # "a": virtual AGPRs (Kernel.areg)


class OperandError(ValueError):
    """An operand that cannot be used where it was given. The message names the
    instruction, the operand, what was given and what is legal. `operand` is the value
    refused (or None), `modifier` the modifier's name (or (name, entry index) for an entry of
    its list: list_entry), `text` the source text refused: the text assembler turns them into
    the column it reports. `unknown`: the syntax has no such modifier for the instruction, or no
    such form (a `_dpp` suffix): LLVM refuses it before reading a modifier's value (list_reader)."""

    def __init__(self, message: str, operand=None, modifier: str | None = None, text: str | None = None,
                 unknown: bool = False, at_mnemonic: bool = False, part: int | None = None,
                 index: int | None = None):
        super().__init__(message)
        self.operand, self.modifier, self.text, self.unknown = operand, modifier, text, unknown
        self.part, self.index = part, index     # which half of a VOPD pair (1: the second) and which of
        # its operands `operand` is, where one text is written twice (the parser shares its value)
        self.at_mnemonic = at_mnemonic      # reported at the mnemonic, as LLVM reports a check of the whole
        # instruction (an image's data or address size), though the message names the operand at fault


def list_entry(value, key: str, good) -> str | tuple:
    """Where an error about list modifier `key` points (OperandError.modifier): (key, index of
    its first entry not `good`), as LLVM does (op_sel:[0,2] at the 2); the key where the value
    is no list or no entry is bad."""
    if not isinstance(value, list):
        return key
    return next(((key, j) for j, x in enumerate(value) if not good(x)), key)


@dataclass(frozen=True)
class Reg:
    cls: str                 # 's', 'v' or 'ttmp'
    idx: int
    count: int = 1
    half: str | None = None  # 'l' / 'h': a 16-bit half of a VGPR (LLVM's true16 v1.l / v1.h)

    def __post_init__(self):
        limit = REG_CLASSES.get(self.cls)
        if limit is None:
            raise OperandError(f"unknown register class {self.cls!r}")
        # Only the first register is checked: decoded machine code may name a tuple that runs
        # past the end of the file (v[255:256]); the encoders refuse one.
        if self.count < 1 or not 0 <= self.idx < limit:
            raise OperandError(f"register {self} is out of range: {self.cls} registers are "
                               f"{self.cls}0..{self.cls}{limit - 1}")

    @property
    def l(self) -> "Reg":  # noqa: E743 (LLVM's spelling)
        return self._half("l")

    @property
    def h(self) -> "Reg":
        return self._half("h")

    def _half(self, which: str) -> "Reg":
        if self.cls != "v" or self.count != 1:
            raise OperandError(f"only a single VGPR has 16-bit halves, not {self}")
        return replace(self, half=which)

    def __neg__(self):
        return Mod(self, neg=True)

    def __abs__(self):
        return Mod(self, abs=True)

    @cached_property
    def text(self) -> str:
        """str(self), worked out once per register (the printer reads it per operand)."""
        return str(self)

    def __str__(self) -> str:
        prefix = self.cls
        if self.count == 1:
            return f"{prefix}{self.idx}" + (f".{self.half}" if self.half else "")
        return f"{prefix}[{self.idx}:{self.idx + self.count - 1}]"


@dataclass(frozen=True)
class VReg(Reg):
    """A virtual register (Kernel.vreg / Kernel.sreg): dwords offset..offset+count-1 of the
    `width`-dword virtual number `vid`. `idx` stays 0, so the encoder checks the operand's
    class, width and modifiers exactly as for a physical register; the allocator picks
    the real registers when the kernel is assembled."""
    vid: int = -1
    width: int = 1
    offset: int = 0
    name: str = ""
    owner: int = 0       # id() of the Kernel that made it: a virtual register belongs to one kernel

    def __getitem__(self, key) -> "VReg":
        """x[1] is its second dword, x[0:1] its first two (inclusive, like s[0:1])."""
        if isinstance(key, slice):
            if key.step is not None or key.start is None or key.stop is None or key.stop < key.start:
                raise OperandError(f"{self}[a:b] needs bounds a <= b and no step, got [{key.start}:{key.stop}]")
            lo, n = key.start, key.stop - key.start + 1
        elif isinstance(key, int):
            lo, n = key, 1
        else:
            raise OperandError(f"{self}[...] takes an int or a range, got {key!r}")
        if self.half or not 0 <= lo or lo + n > self.count:
            raise OperandError(f"{self}[{key.start}:{key.stop}] is outside its {self.count} dword(s)"
                               if isinstance(key, slice) else f"{self}[{key}] is outside its {self.count} dword(s)")
        return replace(self, count=n, offset=self.offset + lo)

    def __str__(self) -> str:
        text = f"%{self.name}"
        if self.count != self.width:
            last = self.offset + self.count - 1
            text += f"[{self.offset}]" if self.count == 1 else f"[{self.offset}:{last}]"
        return text + (f".{self.half}" if self.half else "")


class RegFile:
    """`s[5]` -> one register, `s[0:1]` -> the inclusive range s0..s1 (like LLVM's s[0:1])."""

    def __init__(self, cls: str):
        self.cls = cls

    def __getitem__(self, key) -> Reg:
        if isinstance(key, slice):
            if key.step is not None or key.start is None or key.stop is None:
                raise OperandError(f"{self.cls}[a:b] needs both bounds and no step, got {self.cls}[{key}]")
            if key.stop < key.start:
                raise OperandError(f"{self.cls}[{key.start}:{key.stop}]: the range is inclusive and must not be empty")
            return Reg(self.cls, key.start, key.stop - key.start + 1)
        if not isinstance(key, int):
            raise OperandError(f"{self.cls}[...] takes an int or a range, got {key!r}")
        return Reg(self.cls, key)

    def __repr__(self) -> str:
        return f"<register file {self.cls}>"


s, v, ttmp = RegFile("s"), RegFile("v"), RegFile("ttmp")


@dataclass(frozen=True)
class Agpr:
    """An accumulation register (range) as an assembly line names it: a0, a[0:15]. Only targets
    whose traits have AGPRs (CDNA) encode it; their encoder reads AGPRs from the source text, and
    the other targets' encoder refuses it (so it is not a Reg, which every target encodes)."""
    idx: int
    count: int = 1
    cls = "a"
    half = None

    def __post_init__(self):
        if self.count < 1 or not 0 <= self.idx < 256:
            raise OperandError(f"register {self} is out of range: a registers are a0..a255")

    def __str__(self) -> str:
        return f"a{self.idx}" if self.count == 1 else f"a[{self.idx}:{self.idx + self.count - 1}]"


@dataclass(frozen=True)
class Special:
    """A named register or constant source: vcc, exec_lo, m0, null, scc, src_shared_base, ..."""
    name: str

    def __neg__(self):
        return Mod(self, neg=True)

    def __abs__(self):
        return Mod(self, abs=True)

    def __str__(self) -> str:
        return self.name


class LiteralInt(int):
    """An integer the bytes carry as a literal dword although its text reads back as the inline
    constant of that number (a 16-bit integer operand's literal 0x10004 prints as its low half,
    `0x4`). It equals and hashes as the int, so the decoded Instr still equals the parsed one and
    encoders read the number; only the printer spells it as the literal it was, in hex."""
    __slots__ = ()


@dataclass(frozen=True)
class Lit:
    """A value forced into the 32-bit literal slot, as LLVM's lit(...)."""
    value: int | float

    def __str__(self) -> str:
        return f"lit({self.value})"


@dataclass(frozen=True)
class Mod:
    """A source with modifiers. `neg` is the VOP3 NEG bit (or VOP3P NEG_LO), `abs` the ABS bit."""
    value: object
    neg: bool = False
    abs: bool = False

    def __neg__(self):
        return replace(self, neg=not self.neg)

    def __abs__(self):
        return replace(self, abs=True)

    def __str__(self) -> str:
        return f"{'-' if self.neg else ''}{'|' if self.abs else ''}{self.value}{'|' if self.abs else ''}"


def neg(x) -> Mod:
    """The NEG source modifier (LLVM's neg(...) on constants, -x on registers)."""
    return Mod(x.value, not x.neg, x.abs) if isinstance(x, Mod) else Mod(x, neg=True)


def lit(x) -> Lit:
    return Lit(x)


SPECIAL_NAMES = ("vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "null", "scc")
vcc, vcc_lo, vcc_hi, exec, exec_lo, exec_hi, m0, null, scc = (Special(n) for n in SPECIAL_NAMES)
off = Special("off")

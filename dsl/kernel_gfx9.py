"""The DSL for the gfx9 syntax generation (CDNA3 gfx940-942, CDNA4 gfx950): one function per
instruction, building the instruction value (instr.Instr) the assembler's parser reads from
LLVM's text for it and encoding it with the gfx9 encoder (asm_gfx9.py), so the DSL and
`dsl.assemble` cannot disagree.

    from dsl.cdna3 import *
    k = Kernel("gfx942")
    acc = k.areg(16)                           # a virtual AGPR tuple
    k += v_mfma_f32_32x32x8_f16(acc, v[0:1], v[2:3], acc, cbsz=0, abid=0, blgp=0)
    k += v_accvgpr_read_b32(v[4], a[3])
    k += global_store_dword(v[0:1], v[4], off, sc0=True)
    k += s_waitcnt(vmcnt=0)

Operands are registers (`v[1]`, `s[0:1]`, `a[0:15]`, virtual ones), specials (`vcc`, `exec`,
`m0`, `off`), numbers, `-x` / `abs(x)` / `neg(x)` source modifiers, and strings (a branch
label, or operand text the assembler reads as written: `"hwreg(HW_REG_MODE)"`). Modifiers are
keywords: `True` writes the flag (`sc0`, `clamp`), a number or name `key:value` (`offset=16`,
`dst_sel="BYTE_0"`), a list `key:[...]` (`op_sel=[0,1]`, `quad_perm=[1,0,3,2]`); s_waitcnt also
takes `vmcnt=`, `expcnt=`, `lgkmcnt=`.

Virtual registers are placeholder registers while the instruction is checked (vector ones
as register 0, scalar ones 4-aligned and distinct per value: every tuple starts aligned); which operand is read or written comes from operands_gfx9.py's
names of the decoded instruction's operands, in the order the text lists them."""
from __future__ import annotations

from dataclasses import field, replace

from isa.records import dataclass

from .allocation import Noted, Record
from .asm_gfx9 import Gfx9AsmError, Gfx9Encoder
from .asm_parse import AsmError, parse
from .decode import decode_one
from .instr import NO_MODIFIERS, Instr, Modifiers
from .operands import Agpr, Lit, Mod, OperandError, Reg, Special, VReg
from .operands_gfx9 import operand_names
from .statement import Attr, Call, SymExpr
from .syntax_gfx9 import SDWA_SEL, SDWA_UNUSED

WAIT_COUNTERS = ("vmcnt", "expcnt", "lgkmcnt")


class AgprFile:
    """`a[5]` -> one AGPR, `a[0:15]` -> the inclusive range a0..a15 (like LLVM's a[0:15])."""

    def __getitem__(self, key) -> Agpr:
        if isinstance(key, slice):
            if key.step is not None or key.start is None or key.stop is None or key.stop < key.start:
                raise OperandError(f"a[a:b] needs bounds a <= b and no step, got a[{key.start}:{key.stop}]")
            return Agpr(key.start, key.stop - key.start + 1)
        if not isinstance(key, int):
            raise OperandError(f"a[...] takes an int or a range, got {key!r}")
        return Agpr(key)

    def __repr__(self) -> str:
        return "<register file a>"


a = AgprFile()


def _placeholder(x, mnemonic: str):
    """The operand value the encoder checks for one DSL operand: virtual registers as placeholder
    registers; the others as they are."""
    if isinstance(x, Mod):
        return replace(x, value=_placeholder(x.value, mnemonic))
    if isinstance(x, (Reg, Agpr)) and x.half:
        raise OperandError(f"{mnemonic}: {x}: gfx9 has no 16-bit register halves")
    if isinstance(x, VReg):
        # distinct virtual SGPRs get distinct (4-aligned) placeholders, so a VALU instruction reading
        # two of them is refused here as the constant bus refuses it; vector ones stay at 0 (MFMA's
        # C and D must be the same registers or apart, which the allocator ensures)
        if x.cls == "a":
            return Agpr(0, x.count)
        return Reg(x.cls, 4 * (x.vid % 20) if x.cls == "s" else 0, x.count)
    if isinstance(x, (Reg, Agpr, Special, Attr, Call, SymExpr)):     # the last three: read from text
        return x
    if isinstance(x, Lit):
        raise OperandError(f"{mnemonic}: lit(...) is not written in the gfx9 syntax; give the number")
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return x
    raise OperandError(f"{mnemonic}: cannot use {x!r} as an operand (give a number, a register or a label)")


def _written(text: str, mnemonic: str) -> Instr:
    """What the assembler's parser reads in operand text written as a string: a label,
    "hwreg(HW_REG_MODE)", "vmcnt(0) lgkmcnt(0)" (operands, and modifiers after a blank)."""
    try:
        items = parse(f"{mnemonic} {text}")
    except AsmError as e:
        raise OperandError(f"{mnemonic}: cannot read {text!r}: {str(e).splitlines()[0]}") from None
    if len(items) != 1 or not isinstance(items[0], Instr) or items[0].dual is not None:
        raise OperandError(f"{mnemonic}: cannot read {text!r} as operands")
    return items[0]


def _modifier(key: str, value, mnemonic: str):
    """A DSL keyword's modifier value: True for a flag, a number, a name, a list of them; other
    text as the assembler's parser reads `key:text` (swizzle(...), [BUF_DATA_FORMAT_32, ...])."""
    if value is True or isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value.isidentifier():
            return Attr(value)
        found = _written(f"0 {key}:{value}", mnemonic).modifiers
        if list(found) != [key]:
            raise OperandError(f"{mnemonic}: cannot read {key}={value!r} as one modifier")
        return found[key]
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, float, str)) and not isinstance(v, bool)
                                                for v in value):
        return [Attr(v) if isinstance(v, str) else v for v in value]
    raise OperandError(f"modifier {key}={value!r}: give True, a number, a name or a list")


def _register(x):
    x = x.value if isinstance(x, Mod) else x
    return x if isinstance(x, (Reg, Agpr)) else None


@dataclass
class Gfx9Inst:
    """One instruction built by a gfx9 DSL function, encoded (and so checked) when created, virtual
    registers as placeholders. The same interface as kernel.Inst (instr, encoder, data, label,
    record); `instr` is the Instr written, its definition and encoding filled in by the encoder."""
    instr: Instr
    encoder: Gfx9Encoder = field(repr=False)
    data: bytes = b""
    label: str | None = None
    record: Record | None = field(default=None, repr=False)

    def __post_init__(self):
        st = self.instr
        placed = replace(st, operands=tuple(_placeholder(o, st.mnemonic) for o in st.operands))
        try:
            self.data, fix = self.encoder.encode(placed)
        except (Gfx9AsmError, ValueError, KeyError, IndexError, StopIteration) as e:
            msg = str(e) if isinstance(e, Gfx9AsmError) else f"cannot encode ({type(e).__name__}: {e})"
            raise OperandError(f"{st.mnemonic}: {msg} (in {str(placed)!r})") from None
        if fix is not None and not isinstance(fix, str):
            raise OperandError(f"{st.mnemonic}: {fix.text!r} names a symbol; symbolic operands need a code object")
        self.label = fix
        spec = self.encoder.spec
        inst = decode_one(spec, self.data)
        d = inst.defs[0]
        names = operand_names(spec, inst)
        noted = []
        for i, o in enumerate(st.operands):
            reg = _register(o)
            if reg is None:
                continue
            if i >= len(names):
                raise OperandError(f"{st.mnemonic}: operand {i + 1} ({reg}) is not one the instruction names")
            noted.append(Noted(names[i], reg, d))
        word = inst.dpp if inst.dpp_kind == "SDWA" else {}
        keeps = "DST_SEL" in word and word["DST_SEL"] != SDWA_SEL.index("DWORD") \
            and SDWA_UNUSED[word["DST_U"] & 3] == "UNUSED_PRESERVE"
        self.record = Record(d, noted, keeps_result=keeps)
        self.instr = replace(st, defn=d, encoding=d.format)
        self.glc = bool(inst.fields.get("SC0") or inst.fields.get("GLC"))   # an atomic returning data

    @property
    def has_virtual(self) -> bool:
        return any(isinstance(_register(o), VReg) for o in self.instr.operands)

    def __bytes__(self) -> bytes:
        return self.data

    def __str__(self) -> str:
        if self.has_virtual:
            return str(self.instr)
        from .disasm import instruction_text
        text = instruction_text(self.encoder.spec, decode_one(self.encoder.spec, self.data), 64)
        if self.label is not None:
            text = text.rsplit(" ", 1)[0] + " " + self.label
        return text


def make_function(encoder: Gfx9Encoder, mnemonic: str, doc: str, waitcnt: bool):
    def instruction(*operands, **modifiers):
        mods = {k: v for k, v in modifiers.items() if v is not False and v is not None}
        ops = list(operands)
        if waitcnt and any(k in WAIT_COUNTERS for k in mods):
            if ops:
                raise OperandError(f"{mnemonic}: give the counts either as one operand or as vmcnt=/expcnt=/lgkmcnt=")
            ops = [Call(k, (mods.pop(k),)) for k in WAIT_COUNTERS if k in mods]
        mods = {k: _modifier(k, v, mnemonic) for k, v in mods.items()}
        written = []
        for o in ops:          # operand text written as a string: what the parser reads in it
            if isinstance(o, str):
                found = _written(o, mnemonic)
                written += found.operands
                for k, v in found.modifiers.items():
                    if k in mods:
                        raise OperandError(f"{mnemonic}: modifier {k} is given twice")
                    mods[k] = v
            else:
                written.append(o)
        return Gfx9Inst(Instr(mnemonic, tuple(written), Modifiers(mods) if mods else NO_MODIFIERS), encoder)
    instruction.__name__ = instruction.__qualname__ = mnemonic
    instruction.__doc__ = doc
    return instruction


def build_namespace(arch: str) -> dict:
    """{llvm mnemonic: function} for every instruction of `arch`, with _e32/_e64/_sdwa/_dpp
    variants where an instruction has a 32-bit encoding."""
    from isa.mnemonics import text_mnemonic

    from . import families
    from .syntax import SOPP_STYLE
    from .syntax_gfx9 import SOPP_STYLE as G9_SOPP_STYLE
    spec = families.load_for_dsl(arch)
    enc = Gfx9Encoder(spec)
    names: dict[str, str] = {}
    e32 = spec.traits.roles.valu_e32
    for d in spec.instructions:
        base = text_mnemonic(d.name, spec.arch)
        doc = f"{d.name} ({d.format}, opcode {d.opcode}): {d.description or ''}"
        names.setdefault(base, doc)
        if d.format in e32:
            for suffix in ("_e32", "_e64", "_sdwa", "_dpp"):
                names.setdefault(base + suffix, doc)
    waits = {n for n in names if (G9_SOPP_STYLE.get(n) or SOPP_STYLE.get(n)) == "waitcnt"}
    return {n: make_function(enc, n, doc, n in waits) for n, doc in names.items() if n.isidentifier()}

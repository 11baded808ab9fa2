"""The Python DSL: one function per instruction, generated from the ISA data, and a
Kernel builder with labels.

    from dsl.rdna3 import *
    k = Kernel("gfx1100")
    k += s_load_b64(s[2:3], s[0:1], 0)
    k.label("loop")
    k += v_add_f32(v[1], 1.0, v[1])
    k += s_sub_u32(s[4], s[4], 1)
    k += s_cbranch_scc1("loop")
    k += s_endpgm()
    code = k.assemble(); print(k)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import isa

from .asm import Attr, Call, Statement
from .decode import decode_one
from .encode import Encoder, split_mnemonic
from .operands import OperandError
from .printer import print_instruction


@dataclass
class Inst:
    """One instruction built by a DSL function; encoded (and so checked) when created."""
    statement: Statement
    encoder: Encoder = field(repr=False)
    data: bytes = b""
    label: str | None = None     # branch target, resolved by Kernel.assemble()

    def __post_init__(self):
        self.data, self.label = self.encoder.encode_statement(self.statement)

    def __bytes__(self) -> bytes:
        return self.data

    def __str__(self) -> str:
        spec = self.encoder.spec
        text = print_instruction(spec, decode_one(spec, self.data), self.encoder.wave)
        if self.label is not None:
            text = text.rsplit(" ", 1)[0] + " " + self.label
        return text


@dataclass
class VopdHalf:
    statement: Statement


def _convert(v):
    """DSL spellings -> assembler values: a str operand is a label or a symbolic name."""
    if isinstance(v, str):
        return Attr(v)
    if isinstance(v, (list, tuple)):
        return [_convert(x) for x in v]
    return v


def make_function(encoder: Encoder, mnemonic: str, doc: str):
    def instruction(*operands, **modifiers):
        mods = {}
        for key, val in modifiers.items():
            if val is False or val is None:
                continue
            mods[key] = _convert(val)
        st = Statement(mnemonic, [_convert(o) for o in operands], mods, 0, 0)
        if mnemonic.startswith("v_dual_"):
            return VopdHalf(st)
        try:
            return Inst(st, encoder)
        except OperandError:
            raise
        except ValueError as e:
            raise OperandError(str(e)) from None
    instruction.__name__ = instruction.__qualname__ = mnemonic
    instruction.__doc__ = doc
    return instruction


def build_namespace(arch: str, wave_size: int | None = None) -> dict:
    """{llvm mnemonic: function} for every instruction of `arch`, with explicit
    _e32/_e64/_dpp/_e64_dpp variants where an instruction has several encodings."""
    spec = isa.load(arch)
    enc = Encoder(spec, wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)])
    from isa.mnemonics import text_mnemonic
    names: dict[str, str] = {}
    for d in spec.instructions:
        base = text_mnemonic(d.name)
        doc = f"{d.name} ({d.format}, opcode {d.opcode}): {d.description or ''}"
        names.setdefault(base, doc)
        if d.format in ("VOP1", "VOP2", "VOPC"):
            names.setdefault(base + "_e32", doc)
            names.setdefault(base + "_dpp", doc)
        elif d.format in ("VOP3", "VOP3SD", "VOP3P") and d.promoted_from:
            names.setdefault(base + "_e64", doc)
            names.setdefault(base + "_e64_dpp", doc)
    ns = {name: make_function(enc, name, doc) for name, doc in names.items()}

    def vopd(x: VopdHalf, y: VopdHalf) -> Inst:
        """A dual-issue pair: vopd(v_dual_add_f32(v[0], v[1], v[2]), v_dual_mul_f32(v[3], v[4], v[5]))."""
        st = x.statement
        st.dual = y.statement
        return Inst(st, enc)
    ns["vopd"] = vopd
    return ns


class Kernel:
    """A program under construction: append instructions, place labels, assemble."""

    def __init__(self, arch: str = "gfx1100", wave_size: int | None = None, name: str = "kernel"):
        self.arch = arch
        self.name = name
        self.wave_size = wave_size or isa.WAVE_SIZE[isa.resolve_arch(arch)]
        self.items: list = []
        self.labels: dict[str, int] = {}

    def append(self, inst: Inst) -> "Kernel":
        if not isinstance(inst, Inst):
            raise OperandError(f"Kernel.append takes an instruction built by a DSL function, got {inst!r}")
        self.items.append(inst)
        return self

    def __iadd__(self, inst):
        for i in inst if isinstance(inst, (list, tuple)) else [inst]:
            self.append(i)
        return self

    def label(self, name: str) -> None:
        if name in self.labels:
            raise OperandError(f"label {name!r} is already defined")
        self.labels[name] = len(self.items)

    def assemble(self) -> bytes:
        out = bytearray()
        addr = {}
        pos = []
        for i, inst in enumerate(self.items):
            pos.append(len(out))
            out += inst.data
        for name, idx in self.labels.items():
            addr[name] = pos[idx] if idx < len(pos) else len(out)
        for inst, p in zip(self.items, pos):
            if inst.label is None:
                continue
            if inst.label not in addr:
                raise OperandError(f"{inst.statement.mnemonic}: undefined label {inst.label!r}")
            delta = (addr[inst.label] - (p + 4)) // 4
            if not -0x8000 <= delta <= 0x7fff:
                raise OperandError(f"{inst.statement.mnemonic}: label {inst.label!r} is {delta} dwords away; "
                                   f"a branch reaches -32768..32767")
            out[p:p + 2] = (delta & 0xffff).to_bytes(2, "little")
        return bytes(out)

    def __str__(self) -> str:
        lines = []
        at = {}
        for name, idx in self.labels.items():
            at.setdefault(idx, []).append(name)
        for i, inst in enumerate(self.items):
            lines += [f"{n}:" for n in at.get(i, [])]
            lines.append("  " + str(inst))
        lines += [f"{n}:" for n in at.get(len(self.items), [])]
        return "\n".join(lines)

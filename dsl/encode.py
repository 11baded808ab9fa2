"""Operands -> fields -> bytes. The inverse of the decoder (decode.py, instr_fields*.py), shared by the text assembler
and the Python DSL. Errors (OperandError) name the instruction, the operand, what was
given and what is legal."""
from __future__ import annotations

import re
from dataclasses import replace
from functools import cache, lru_cache

from isa import InstrDef, Spec
from isa.facts import (byte_select, lane_select_sources, lane_value_result, no_dpp, offset_pattern,
                       reads_other_lanes, register_number_sources, source_limits)
from isa.effects import effects
from isa.errata import NULL_ONLY_SDST
from isa.memory_access import attribute_load, gds_only, memory_access, scalar_base_registers, scalar_data, value_dwords
from isa.mnemonics import LDS_ALIASES, refused_spelling
from isa.records import dataclass

from . import syntax
from .syntax import smem_offset_default
from .decode import FIELD_NAMES
from .field_values import buffer_format_codes
from .instr import Instr
from .literals import constant, k_constant, literal_kind, read_as_literal
from .operands import Agpr, Lit, Mod, OperandError, Reg, Special, list_entry
from .special_registers import saddr_error, smem_data_error, width_error
from .statement import Attr, BitOr, Call, LiteralRef, SymExpr
from . import encode_export, encode_image, encode_rdna4, negated_flags, signature, simm16
from .signature import (Operand, ValuSig, integer_sources_take_fp_mods, modifier_use, type_info, valu_signature,
                        vopd_base)
from .packed_negation import packed_negation
from .source_modifiers import folded_modifiers, refuse_f64_literal_modifiers



# operand layouts are pure functions of the instruction: computed once per instruction (an
# InstrDef hashes by identity, so a lookup is cheap)
scalar_layout = cache(signature.scalar_layout)
scalar_bits = cache(signature.scalar_bits)
ds_layout = cache(signature.ds_layout)
flat_layout = cache(signature.flat_layout)
valu_signature = cache(valu_signature)


@lru_cache(maxsize=None)
def special_codes(traits) -> dict[str, int]:
    """LLVM's names of the special operands -> their codes in `traits`' family (the manual's
    names spelled as syntax.py says, LLVM's aliases, pairs by their low half)."""
    codes = {syntax.SPECIAL_TEXT[name]: code for name, code in traits.codes.items() if name in syntax.SPECIAL_TEXT}
    codes.update({alias: codes[name] for alias, name in syntax.SPECIAL_ALIASES.items() if name in codes})
    codes.update({pair: codes[lo] for lo, pair in syntax.PAIR_TEXT.items() if lo in codes})
    codes.update({name: code for code, name in syntax.RESERVED_SRC_NAMES.items() if name not in codes})
    return codes


def _scalar_source_codes(traits) -> frozenset:
    """Source codes that read the constant bus: scalar registers but NULL, the apertures, SCC,
    the literal."""
    apertures = {traits.codes[n] for n in ("SHARED_BASE", "SHARED_LIMIT", "PRIVATE_BASE", "PRIVATE_LIMIT")}
    return frozenset(set(traits.scalar_codes) - {traits.null} | apertures | {traits.scc, traits.literal})


def _name(d: InstrDef) -> str:
    return d.name.lower()


class Fields(dict):
    """Field values of one instruction being built, plus its literal and DPP word (class
    attributes until set: one Fields is built per instruction encoded)."""
    literal: int | None = None
    literal_ref: str | None = None      # the literal is this symbol expression, filled in later
    dpp: dict | None = None
    dpp_kind: str | None = None
    literal_read: str | None = None     # a source LLVM reads as a literal, encoded inline (literals.read_as_literal)
    th_scope_error: Exception | None = None     # RDNA4's th:/scope: pair refused, raised once the rest is encoded

    def __init__(self, d: InstrDef):
        self.d = d

    def set_literal(self, value: int, what: str):
        value &= 0xffffffff
        if self.literal_ref is not None or self.literal is not None and self.literal != value:
            raise OperandError(f"{_name(self.d)}: {what}: an instruction has one 32-bit literal; it already "
                               f"uses {self.literal_ref or hex(self.literal)}, so 0x{value:x} cannot be added")
        self.literal = value

    def set_literal_ref(self, text: str, what: str):
        """The literal is a symbol expression: a zero dword now, its value patched in by the
        assembler (label differences) or the code-object linker (addresses)."""
        if self.literal is not None:
            raise OperandError(f"{_name(self.d)}: {what}: an instruction has one 32-bit literal; it already "
                               f"uses {self.literal_ref or hex(self.literal)}, so {text} cannot be added")
        self.literal, self.literal_ref = 0, text


class Encoder:
    def __init__(self, spec: Spec, wave: int = 32):
        self.spec = spec
        self.wave = wave
        t = self.traits = spec.traits
        self.special = special_codes(t)
        self.scalar_sources = _scalar_source_codes(t)
        self.vgpr_base, self.literal_code = t.vgpr_base, t.literal
        self._candidates: dict[str, tuple[list[InstrDef], str]] = {}
        self._plans: dict[tuple[InstrDef, bool], ValuPlan] = {}                # (d, e32) -> plan
        self._vopd_halves: dict[tuple[str, str], tuple] = {}                    # (mnemonic, slot) -> _vopd_half
        self._codes: dict[str, frozenset] = {}                                  # format -> _source_codes
        # format -> ({field: (lo bit, width)}, the fixed encoding bits, has an OP field, bytes)
        self._layout = {name: ({FIELD_NAMES.get(n, n): (lo, hi - lo + 1) for n, hi, lo in f.fields},
                               f.encoding[0] if f.encoding else 0, "OP" in {n for n, _, _ in f.fields},
                               (64 if name == "MIMG" else f.width) // 8)
                        for name, f in spec.formats.items()}
        # DPP word fields: (shift within the word, mask) by DPP kind
        self._dpp_layout = {kind: {n: (lo - 32, (1 << bits) - 1) for n, (lo, bits) in self._layout[kind][0].items()}
                            for kind in ("DPP8", "DPP16") if kind in self._layout}

    # ------------------------------------------------------------ operand codes

    def src_code(self, v, op: Operand, F: Fields, what: str, *, allow_literal: bool = True,
                 allow_vgpr: bool = True, encoding: str = "vop3") -> tuple[int, bool, bool, bool]:
        """(9-bit code, neg, abs, high half) of a source operand; `encoding` ('salu', 'e32',
        'vop3', 'vop3p') with the operand's type decides how a number is taken (literals.py)."""
        if type(v) is Reg and v.cls == "v" and not v.half and allow_vgpr and v.count == (op.dwords or self.wave >> 5) \
                and v.idx + v.count <= self.traits.vgprs:
            return self.vgpr_base + v.idx, False, False, False      # the usual source: a whole VGPR (tuple)
        neg = ab = False
        if isinstance(v, Mod):
            refuse_f64_literal_modifiers(F.d, op, v, what)
            neg, ab, v = v.neg, v.abs, v.value
        n = op.dwords or self.wave >> 5       # op.regs(wave), without its call
        hi = False
        if isinstance(v, Reg):
            if v.count != n and not (v.count == 1 and n == 0):
                raise OperandError(f"{_name(F.d)}: {what}: {v} is {v.count} register(s), this operand needs {n}", v)
            if v.cls == "v":
                self.vgpr_in_range(v, F, what)
                if not allow_vgpr:
                    raise OperandError(f"{_name(F.d)}: {what}: a VGPR ({v}) is not allowed here; use an SGPR, "
                                       f"constant or literal", v)
                if v.half and not op.t16:
                    raise OperandError(f"{_name(F.d)}: {what}: {v} names a 16-bit half but the operand is "
                                       f"{op.bits}-bit", v)
                return self.vgpr_base + v.idx, neg, ab, v.half == "h"
            if v.half:
                raise OperandError(f"{_name(F.d)}: {what}: only VGPRs have .l/.h halves, got {v}", v)
            if op.m0_only:
                raise OperandError(f"{_name(F.d)}: {what}: takes M0 or an inline constant, not {v}", v)
            return self.sreg_code(v, F, what, n), neg, ab, hi
        if isinstance(v, Special):
            if op.m0_only and v.name != "m0":
                raise OperandError(f"{_name(F.d)}: {what}: takes M0 or an inline constant, not {v.name}", v)
            code = self.special.get(v.name)
            if code is None:
                raise OperandError(f"{_name(F.d)}: {what}: {v.name} cannot be a source operand", v)
            meaning = self._renamed().get(v.name)
            if meaning and F.d.format != "VOPD":    # (LLVM takes src_lds_direct in a VOPD half)
                raise OperandError(f"{_name(F.d)}: {what}: {v.name} is not available on {self.spec.arch}: its "
                                   f"code {code} is the manual's {meaning}", v)
            if op.registers_only and code in self.traits.aperture_codes:
                raise OperandError(f"{_name(F.d)}: {what}: takes a register (it is read as a register number), "
                                   f"not the memory aperture {v.name}", v)
            if code not in self._source_codes(F.d.format) and not (F.d.format == "VOPD" and
                                                                   v.name in ("src_lds_direct", "lds_direct")):
                # (LLVM takes src_lds_direct in a VOPD half, which the VOPD operand table does not list)
                raise OperandError(f"{_name(F.d)}: {what}: {v.name} (operand code {code}) is not a source of "
                                   f"{self.spec.arch}'s {F.d.format} encoding", v)
            wrong = width_error(self.traits, v.name, max(n, 1))
            if wrong:
                raise OperandError(f"{_name(F.d)}: {what}: {wrong}", v)
            return code, neg, ab, hi
        if op.registers_only:
            raise OperandError(f"{_name(F.d)}: {what}: takes a register, not {v}", v)
        if isinstance(v, (Attr, SymExpr)):
            if not allow_literal:
                raise OperandError(f"{_name(F.d)}: {what}: symbol operand {v} needs a literal, which this "
                                   f"encoding has not", v)
            F.set_literal_ref(v.name if isinstance(v, Attr) else v.text, what)
            return self.literal_code, neg, ab, hi
        forced = isinstance(v, Lit)
        if forced:
            v = v.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise OperandError(f"{_name(F.d)}: {what}: expected a register, constant or literal, got {v!r}", v)
        kind = literal_kind(op, encoding)
        try:
            code, literal = constant(v, kind, forced, f"{_name(F.d)}: {what}", self.traits)
        except OperandError as e:        # the number refused: its column
            if e.operand is None:
                e.operand = v
            raise
        spelled_literal = literal is None and read_as_literal(v, kind, self.traits)
        if spelled_literal:
            F.literal_read = repr(v)
        if literal is not None or spelled_literal:
            if not allow_literal or op.no_literal:
                raise OperandError(f"{_name(F.d)}: {what}: {v} is not an inline constant (-16..64, ±0.5, ±1, "
                                   f"±2, ±4, 1/(2π)) and this {'operand' if op.no_literal else 'encoding'} "
                                   f"takes no literal", v)
            if literal is not None:
                F.set_literal(literal, what)
        return code, neg, ab, hi

    def k_literal(self, k, op: Operand, encoding: str, F: Fields) -> None:
        """The constant K of v_fmaak/v_fmamk-style instructions: always the literal, taken as
        lit(K) on an operand of the instruction's data type."""
        k = k.value if isinstance(k, Lit) else k
        if isinstance(k, (Attr, SymExpr)):          # a symbol: filled in once placed (LLVM takes it)
            F.set_literal_ref(k.name if isinstance(k, Attr) else k.text, "K")
            return
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise OperandError(f"{_name(F.d)}: the constant K must be a number, got {k}", k)
        try:
            F.set_literal(k_constant(k, literal_kind(op, encoding), f"{_name(F.d)}: K", self.traits), "K")
        except OperandError as e:
            e.operand = k if e.operand is None else e.operand
            raise

    def _source_codes(self, fmt: str) -> frozenset:
        """Operand codes the source fields of `fmt` take, from the ISA's operand tables (the
        union of all formats' for a format the tables do not list, such as MUBUF's SOFFSET)."""
        codes = self._codes.get(fmt)
        if codes is None:
            codes = self._codes[fmt] = source_codes(self.spec, fmt)
        return codes

    def sreg_code(self, v, F: Fields, what: str, n: int = 1) -> int:
        """7/8-bit scalar register code (SGPR, TTMP or a special register)."""
        if isinstance(v, Special):
            code = self.special.get(v.name)
            if code is None or code not in self.traits.scalar_codes:
                raise OperandError(f"{_name(F.d)}: {what}: {v.name} is not a scalar register", v)
            wrong = width_error(self.traits, v.name, n)
            if wrong:
                raise OperandError(f"{_name(F.d)}: {what}: {wrong}", v)
            return code
        if not isinstance(v, Reg) or v.cls not in ("s", "ttmp"):
            raise OperandError(f"{_name(F.d)}: {what}: expected an SGPR{' range' if n > 1 else ''} "
                               f"(s[..]), got {v}", v)
        if v.count != n:
            raise OperandError(f"{_name(F.d)}: {what}: {v} is {v.count} register(s), this operand needs {n} "
                               f"(e.g. {v.cls}[{v.idx}:{v.idx + n - 1}])" if n > 1 else
                               f"{_name(F.d)}: {what}: {v} is {v.count} registers, this operand is one register", v)
        if n > 1 and v.idx % (2 if n == 2 else 4):
            raise OperandError(f"{_name(F.d)}: {what}: {v} is misaligned: a scalar pair starts at an even "
                               f"register, a wider scalar tuple at a multiple of 4", v)
        if v.cls == "s":
            if v.idx + v.count > self.traits.sgprs:
                raise OperandError(f"{_name(F.d)}: {what}: {v} is out of range (s0..s{self.traits.sgprs - 1})", v)
            return v.idx
        return self.traits.ttmp_base + v.idx

    def smem_data(self, v, F: Fields, n: int) -> int:
        """A scalar memory instruction's SDATA: `n` scalar registers, not M0 or EXEC (the manuals')."""
        code = self.sreg_code(v, F, "sdata", n)
        wrong = isinstance(v, Special) and smem_data_error(self.traits, v.name, code)
        if wrong:
            raise OperandError(f"{_name(F.d)}: sdata: {wrong}", v)
        return code

    def flat_saddr(self, v, F: Fields, n: int, vaddr: bool) -> int:
        """A GLOBAL/SCRATCH SADDR of `n` registers beside a VADDR operand or not (`vaddr`): `off`
        is the first code the manual says disables it (traits.saddr_off); a register whose code
        disables it is refused where the line would not mean what it says (saddr_error)."""
        if isinstance(v, Special) and v.name == "off":
            return self.traits.saddr_off[0]
        code = self.sreg_code(v, F, "saddr", n)
        wrong = isinstance(v, Special) and saddr_error(self.traits, v.name, code, n, vaddr)
        if wrong:
            raise OperandError(f"{_name(F.d)}: saddr: {wrong}", v)
        return code

    def global_vaddr(self, v, saddr, F: Fields) -> int:
        """GLOBAL's VADDR: a 64-bit address where SADDR is `off`, else a 32-bit offset from the
        scalar base. A 64-bit address beside a named base is the base's error (it must be off)."""
        off = isinstance(saddr, Special) and saddr.name == "off"
        if not off and isinstance(v, Reg) and v.cls == "v" and v.count == 2:
            raise OperandError(f"{_name(F.d)}: saddr: {saddr} beside a 64-bit address ({v}): the scalar base "
                               f"must be off", saddr)
        return self.vgpr(v, F, "vaddr", 2 if off else 1)

    def vgpr(self, v, F: Fields, what: str, n: int = 1, half: bool = False) -> int:
        """A VGPR (range) operand's first register; `half`: the operand is 16-bit and may name
        a half (v1.l / v1.h), which the caller encodes."""
        if isinstance(v, Mod) or not isinstance(v, Reg) or v.cls != "v":
            raise OperandError(f"{_name(F.d)}: {what}: expected a VGPR{' range v[..]' if n > 1 else ''}, got {v}", v)
        if v.count != n:
            raise OperandError(f"{_name(F.d)}: {what}: {v} is {v.count} register(s), this operand needs {n}", v)
        if v.half and not half:
            raise OperandError(f"{_name(F.d)}: {what}: {v} names a 16-bit half; this operand is a whole VGPR", v)
        self.vgpr_in_range(v, F, what)
        return v.idx

    def vgpr_in_range(self, v, F: Fields, what: str) -> None:
        """A VGPR tuple may not run past the register file's end (v[255:256]), which decoded
        machine code can name but an assembly line may not."""
        if v.idx + v.count > self.traits.vgprs:
            raise OperandError(f"{_name(F.d)}: {what}: {v} is out of range (v0..v{self.traits.vgprs - 1})", v)

    # ------------------------------------------------------------ statements

    def candidates(self, mn: str) -> tuple[list[InstrDef], str]:
        """(encodings to try in order, suffix) for a mnemonic; cached per mnemonic."""
        hit = self._candidates.get(mn)
        if hit is None:
            base, enc = split_mnemonic(mn)
            llvm = refused_spelling(base, self.spec.arch)    # a name LLVM spells otherwise here (export on gfx11)
            if llvm is not None:
                raise OperandError(f"{base}: instruction not supported on {self.spec.arch} (LLVM spells it {llvm} "
                                   f"there)", unknown=True)
            defs = self.spec.lookup(base) or self.spec.lookup(old_spellings(self.spec).get(base, base))
            if not defs:
                raise OperandError(f"unknown instruction {mn!r} for {self.spec.arch}", unknown=True)
            if enc == "sdwa":
                raise OperandError(f"{mn}: {self.spec.arch} has no SDWA encoding (GCN/CDNA only); use op_sel or "
                                   f"the 16-bit .l/.h halves", unknown=True)
            cands = order_candidates(defs, enc, self.traits.roles)
            valu = self.traits.roles.valu_e32 | self.traits.roles.valu_e64      # (not VINTERP: a quad's lanes)
            if enc in ("e64", "e64_dpp") and any(d.format in valu and moves_a_lane_value(d) for d in defs):
                raise OperandError(f"{mn}: a move between one lane and a scalar is written without an "
                                   f"encoding suffix ({base}); it takes no _{enc}", unknown=True)
            if not cands:
                raise OperandError(f"{mn}: no encoding matches the suffix {enc!r} "
                                   f"(it has: {', '.join(sorted({d.format for d in defs}))})", unknown=True)
            hit = self._candidates[mn] = (cands, enc)
        return hit

    def encode(self, st) -> tuple[bytes, str | None]:
        """(bytes, branch label or LiteralRef or None) of an Instr (instr.py)."""
        try:
            return self._encode(st)
        except OperandError as e:
            raise self._refusal(st, e) from None

    def _refusal(self, st, e: OperandError) -> OperandError:
        """The error to raise for `e`: an AGPR on a target without them says so; a special register
        no operand table of the target lists (src_execz on gfx11) or a VGPR tuple past the last
        VGPR is refused first, the first written, as LLVM's parser refuses it before matching
        ("register not available on this GPU", "register index is out of range")."""
        if isinstance(e.operand, Agpr) and not self.traits.agprs:
            return OperandError(f"{st.mnemonic}: {e.operand}: accumulation registers (a0..a255) exist only "
                                f"on targets with AGPRs (CDNA), not {self.spec.arch}", e.operand)
        for part, p in enumerate((st, st.dual) if st.dual is not None else (st,)):
            for i, v in enumerate(p.operands):
                inner = v.value if isinstance(v, Mod) else v
                if isinstance(inner, Special) and inner.name in self._unlisted() and not (
                        st.dual is not None and inner.name == "src_lds_direct"):   # (LLVM takes it in VOPD)
                    why = (f"{inner.name} is not available on {self.spec.arch}: no operand table of its manual "
                           f"lists its code")
                elif type(inner) is Reg and inner.cls == "v" and inner.idx + inner.count > self.traits.vgprs:
                    why = f"{inner} is out of range (v0..v{self.traits.vgprs - 1})"
                else:
                    continue
                # the first such operand written: LLVM's parser stops there
                return e if inner is e.operand else OperandError(f"{p.mnemonic}: {why}", inner, part=part, index=i)
        return e

    def _unlisted(self) -> frozenset:
        """Special register names whose code no operand field of the target's tables lists."""
        if self._unlisted_names is None:
            listed = frozenset(c for t in self.spec.operands.values() for rows in t.values()
                               for lo, hi, *_ in rows for c in range(lo, hi + 1))
            self._unlisted_names = frozenset(n for n, c in self.special.items() if c not in listed)
        return self._unlisted_names

    _unlisted_names: frozenset | None = None

    def _renamed(self) -> dict[str, str]:
        """Names LLVM gives codes the RDNA3 tables call Reserved (syntax.RESERVED_SRC_NAMES:
        src_lds_direct 254) -> the literal the target's tables make of that code instead (RDNA4's
        254: "64-bit Literal constant."): no such register there."""
        if self._renamed_names is None:
            self._renamed_names = {
                name: text.rstrip(".") for code, name in syntax.RESERVED_SRC_NAMES.items() if self.special.get(name) == code
                for t in self.spec.operands.values() for rows in t.values()
                for lo, hi, kind, _, text in rows if lo <= code <= hi and kind.startswith("literal")}
        return self._renamed_names

    _renamed_names: dict | None = None

    def _encode(self, st) -> tuple[bytes, str | None]:
        if st.dual is not None:
            return self.encode_vopd(st)
        if st.defn is not None:             # chosen where the Instr was built (decoder, DSL, select)
            return self.encode_one(st.defn, st, self.chosen_suffix(st))
        return self._choose(st)

    def chosen_suffix(self, st) -> str:
        """The encoding suffix of an Instr whose definition is chosen (its `defn`), after checking
        that the definition is one its mnemonic names on this target (a definition of another
        target, instruction or encoding than the mnemonic says is refused, never encoded)."""
        cands, enc = self._candidates.get(st.mnemonic) or self.candidates(st.mnemonic)
        d = st.defn
        if d not in cands:
            raise OperandError(f"{st.mnemonic}: the Instr's definition {d.name} ({d.format}) is not an encoding "
                               f"{st.mnemonic!r} names on {self.spec.arch} (it names "
                               f"{', '.join(f'{c.name} ({c.format})' for c in cands)})")
        if st.encoding is not None and st.encoding != d.format:
            raise OperandError(f"{st.mnemonic}: the Instr's encoding {st.encoding} is not its definition's "
                               f"format {d.format}")
        return enc

    def select(self, st) -> tuple[Instr, bytes, str | None]:
        """The one place an encoding is chosen, for an Instr that names its mnemonic only (the
        text parser's, a DSL call's): the first of the mnemonic's encodings, shortest first,
        that takes the operands and modifiers (LLVM's choice: VOP2 before its VOP3 promotion;
        `_e32`, `_e64`, `_dpp` narrow the list). Returns the Instr with `defn` and `encoding`
        filled in, with its bytes and fix-up (trying an encoding is encoding it). An Instr whose
        definition is already chosen comes back with its bytes as it is."""
        if st.defn is not None:
            return (st, *self.encode(st))
        if st.dual is not None:
            data, fix = self.encode(st)
            dx, dy = self._vopd_half(st.mnemonic, "X")[0], self._vopd_half(st.dual.mnemonic, "Y")[0]
            return replace(st, defn=dx, encoding=dx.format, dual=replace(st.dual, defn=dy, encoding=dy.format)), \
                data, fix
        try:
            data, fix = self._choose(st)
        except OperandError as e:
            raise self._refusal(st, e) from None
        d = self._chosen
        return (st if d is None else replace(st, defn=d, encoding=d.format)), data, fix

    _chosen: InstrDef | None = None     # the definition _choose settled on last

    def _choose(self, st) -> tuple[bytes, str | None]:
        """(bytes, fix-up) of a mnemonic-only Instr, the definition chosen left in `_chosen`
        (see select; a tuple per instruction cost the assembler's hot path)."""
        mn = st.mnemonic
        hit = self._candidates.get(mn)
        if hit is None:
            if mn == "v_illegal":
                if st.operands or st.modifiers:
                    raise OperandError("v_illegal takes no operands or modifiers",
                                       st.operands[0] if st.operands else None)
                self._chosen = None
                return b"\0\0\0\0", None
            hit = self.candidates(mn)
        cands, enc = hit
        if len(cands) > 1:
            for d in cands[:-1]:
                try:
                    out = self.encode_one(d, st, enc)
                except OperandError:
                    continue
                self._chosen = d
                return out
        # the last candidate is the most general encoding (VOP3): its complaint is the real one
        d = cands[-1]
        out = self.encode_one(d, st, enc)
        self._chosen = d
        return out

    def encode_one(self, d: InstrDef, st, enc: str) -> tuple[bytes, str | None]:
        F = Fields(d)
        fmt = d.format
        fix = None
        mods = dict(st.modifiers)
        operands = st.operands
        roles = self.traits.roles
        if fmt in roles.memory:
            # memory operands are registers (or off): a bare word is a flag modifier written where an
            # operand could start, as in `ds_gws_sema_p gds`
            while operands and isinstance(operands[-1], Attr):
                mods[operands[-1].name.lower()] = True
                operands = operands[:-1]
        if mods:
            _check_modifier_values(d, mods)
            if st.line and len(mods) > 1:       # written in text (a DSL call has keywords, in any order)
                _check_modifier_order(d, mods, self.traits.family)
            mods = negated_flags.take_negated(_name(d), self.traits.family, fmt, mods)
            if st.line and type(mods.get("th")) is int and "TH" in self._layout[fmt][0]:
                raise OperandError(f"{_name(d)}: th:{mods['th']}: text names the cache policy (th:TH_LOAD_NT, "
                                   f"th:TH_ATOMIC_RETURN, ...) as LLVM's assembler requires; a number is "
                                   f"what its disassembler prints where no name applies", modifier=("th", "value"))
        if fmt in roles.valu_e32 or fmt in roles.valu_e64:
            if enc:
                _check_forced_dpp(d, mods, enc)
            try:
                self.valu(d, F, operands, mods, fmt in roles.valu_e32)
            except OperandError as e:
                if getattr(e, "src0", None) and not enc and \
                        not any(c.format == "VOPC" for c in self.candidates(st.mnemonic)[0]):
                    # LLVM 22 points at src0 (the value inside its modifiers) for a later source's
                    # f64 literal when no suffix narrows the encodings, a compare aside
                    e.operand, e.index = e.src0
                raise
        else:
            handler = _HANDLERS_BY_FAMILY.get(self.spec.arch, {}).get(fmt) or _HANDLERS.get(fmt)
            if handler is None:
                raise OperandError(f"{_name(d)}: assembling {fmt} instructions is not supported yet")
            fix = handler(self, d, F, operands, mods)
        if mods:
            names = ", ".join(mods)
            raise OperandError(f"{_name(d)}: unexpected modifier(s) {names if len(names) < 80 else names[:80] + '...'} "
                               f"for its {fmt} encoding", modifier=next(iter(mods)), unknown=True)
        if F.th_scope_error is not None:
            raise F.th_scope_error
        data = self.pack(d, F)
        if F.literal_ref is not None:
            fix = LiteralRef(F.literal_ref, len(data) - 4)     # the literal is the last dword
        return data, fix

    def pack(self, d: InstrDef, F: Fields, fmt_name: str | None = None) -> bytes:
        fmt_name = fmt_name or d.format
        fields, value, has_op, size = self._layout[fmt_name]
        if has_op and "OP" not in F:
            F["OP"] = d.opcode
        for name, val in F.items():
            try:
                lo, bits = fields[name]
                if val >> bits:         # also nonzero for a negative value
                    raise OperandError(f"{_name(d)}: {name.lower()} = {val} does not fit in {bits} bits")
                value |= val << lo
            except KeyError:
                raise OperandError(f"{_name(d)}: its {fmt_name} encoding has no {name} field") from None
            except TypeError:           # a value of another kind that the format's checks let through
                raise OperandError(f"{_name(d)}: {name.lower()}: expected a number, got {val}") from None
        if any(fields[name][0] >= size * 8 for name in F):      # MIMG's NSA dword (ADDR1..ADDR4)
            size = (max(lo + bits for lo, bits in fields.values()) + 31) // 32 * 4
        out = value.to_bytes(size, "little")
        if F.dpp is not None:
            dpp_fields = self._dpp_layout[F.dpp_kind]
            word = 0
            for name, val in F.dpp.items():
                shift, mask = dpp_fields[name]
                word |= (val & mask) << shift
            out += word.to_bytes(4, "little")
        elif F.literal is not None:
            out += F.literal.to_bytes(4, "little")
        return out

    # ------------------------------------------------------------ VALU

    def _arity(self, d, ops, expected: list[str]):
        if len(ops) != len(expected):
            raise OperandError(f"{_name(d)} takes {len(expected)} operand(s) ({', '.join(expected)}), "
                               f"got {len(ops)}")

    def valu(self, d: InstrDef, F: Fields, ops: list, mods: dict, e32: bool):
        plan = self._plans.get((d, e32)) or self._plan(d, e32)      # _valu_plan's memo, without its call
        sig, is_p, is_mix = plan.sig, plan.is_p, plan.is_mix
        names, n_srcs = plan.names, plan.n_srcs
        implied = 0
        if len(ops) != len(names):
            if e32 and plan.sig.is_cmp and not plan.sig.is_cmpx and len(ops) == len(names) - 1:
                ops = [_VCC[self.wave]] + list(ops)   # LLVM's v_cmp_*_e32 src0, src1: the vcc is implied
                implied = 1
            else:
                self._arity(d, ops, names)
        if plan.t16_vgprs:
            _check_true16(d, plan, ops, self.spec.arch in syntax.TRUE16_FAMILIES)
        elif is_p:
            for v in ops:
                if isinstance(v, Mod):
                    v = v.value
                if type(v) is Reg and v.half:
                    raise OperandError(f"{_name(d)}: {v}: a packed (VOP3P) instruction selects halves with "
                                       f"op_sel/op_sel_hi, not .l/.h", v)
        dpp_kind = None
        if mods:
            if not _DPP16_MODIFIERS.isdisjoint(mods):
                dpp_kind = "DPP16"
            if "dpp8" in mods:
                dpp_kind = "DPP8"
            if dpp_kind:
                _check_dpp_allowed(d, mods)
        opsel = negb = absb = 0
        pos = 0
        if plan.cmpx_e64:
            F["VDST"] = self.traits.exec_lo   # v_cmpx writes EXEC: LLVM fills VDST with exec_lo's code
        for o, n in plan.dsts:
            v = ops[pos]; pos += 1
            if o.name == "sdst":
                if e32:
                    self._implicit_vcc(d, v)
                elif isinstance(v, Special) and self.special.get(v.name, 0) not in self.traits.scalar_codes and \
                        self.special[v.name] in self._source_codes(d.format):   # the 8-bit VDST field takes
                    F["VDST"] = self.special[v.name]                             # any scalar source code
                else:
                    F["VDST"] = self.sreg_code(v, F, "sdst", n)
                continue
            if o.sgpr:
                F["VDST"] = self.sreg_code(v, F, "vdst")
                continue
            if type(v) is Reg and v.cls == "v" and v.count == n and not v.half and v.idx + n <= self.traits.vgprs:
                # the usual destination
                idx = v.idx
            else:
                if isinstance(v, Mod):
                    raise OperandError(f"{_name(d)}: vdst: a destination takes no modifiers, got {v}", v)
                idx = self.vgpr(v, F, "vdst", n, half=o.t16 and not is_p)
            if o.t16 and not is_p:
                if isinstance(v, Reg) and not v.half:
                    v = Reg(v.cls, v.idx, 1, "l")   # LLVM's true16 syntax reads a plain vN as vN.l
                if e32:
                    if idx > 127:
                        raise OperandError(f"{_name(d)}: vdst {v}: the 32-bit encoding reaches v0..v127 halves")
                    idx |= 0x80 if v.half == "h" else 0
                elif v.half == "h":
                    opsel |= 8
            F["VDST"] = idx
        if plan.sdst_after:
            v = ops[pos]; pos += 1
            if e32:
                self._implicit_vcc(d, v)
            else:
                F["SDST"] = self.sreg_code(v, F, "sdst", self.wave // 32)
        src_vals = ops[pos:pos + n_srcs]
        src_at = list(range(pos - implied, pos - implied + n_srcs))    # each source's place among the operands
        pos += n_srcs
        if plan.k_e32:
            src_vals = list(src_vals)
            src_at.pop(sig.k_pos)
            self.k_literal(src_vals.pop(sig.k_pos), sig.srcs[0], "e32", F)
        if plan.vcc_in_e32:
            self._implicit_vcc(d, ops[pos]); pos += 1
        try:
            for (i, o, op, what, field, kind), v in zip(plan.srcs, src_vals):
                if e32:
                    if dpp_kind and i == 0:
                        vv = v.value if isinstance(v, Mod) else v
                        idx = self.vgpr(vv, F, what, o.dwords, half=o.t16)
                        if o.t16:
                            if idx > 127:       # the DPP word's 8-bit field: bit 7 picks the half
                                raise OperandError(f"{_name(d)}: {what} {vv}: the 32-bit encoding reaches v0..v127 "
                                                   f"halves", v)
                            idx |= 0x80 if vv.half == "h" else 0
                        F.setdefault("_dpp_src0", idx)
                        if isinstance(v, Mod):
                            if dpp_kind != "DPP16" or not (o.is_float or integer_sources_take_fp_mods(d)):
                                raise OperandError(f"{_name(d)}: {what}: modifiers need the VOP3 (_e64) encoding", v)
                            F["_neg0"], F["_abs0"] = v.neg, v.abs
                        continue
                    if i == 1:
                        vv = v.value if isinstance(v, Mod) else v
                        if isinstance(v, Mod):
                            if dpp_kind != "DPP16" or not (o.is_float or integer_sources_take_fp_mods(d)):
                                raise OperandError(f"{_name(d)}: {what}: modifiers need the VOP3 (_e64) encoding", v)
                            F["_neg1"], F["_abs1"] = v.neg, v.abs
                        if not (isinstance(vv, Reg) and vv.cls == "v"):
                            raise OperandError(f"{_name(d)}: {what} must be a VGPR in the 32-bit encoding, got {vv}", v)
                        idx = self.vgpr(vv, F, what, o.dwords, half=o.t16)
                        if o.t16:
                            if idx > 127:
                                raise OperandError(f"{_name(d)}: {what} {vv}: the 32-bit encoding reaches v0..v127 "
                                                   f"halves", v)
                            idx |= 0x80 if vv.half == "h" else 0
                        F["VSRC1"] = idx
                        continue
                    if isinstance(v, Mod):
                        v = folded_modifiers(d, o, v, what, self._has_vop3(d))
                    if kind:
                        self._source_kind(d, v, kind, what)
                        code, _, _, hi = self.src_code(v, op, F, what, allow_literal=kind != _LANE,
                                                       allow_vgpr=kind != _SCALAR and kind != _LANE,
                                                       encoding=plan.constants)
                    else:
                        code, _, _, hi = self.src_code(v, op, F, what, encoding=plan.constants)
                    if o.t16 and code >= self.vgpr_base:
                        if code - self.vgpr_base > 127:
                            raise OperandError(f"{_name(d)}: {what}: the 32-bit encoding reaches v0..v127 halves", v)
                        code |= 0x80 if hi else 0
                    F["SRC0"] = code
                    continue
                if kind:
                    if kind == _MASK:
                        if isinstance(v, Mod):
                            raise OperandError(f"{_name(d)}: {what}: a lane mask takes no modifiers, got {v}", v)
                        # src_scc: the 9-bit source field takes SCC's code as the mask (LLVM 22 takes it)
                        F[field] = (self.special["src_scc"] if isinstance(v, Special) and v.name == "src_scc" else
                                    self.sreg_code(v, F, what, self.wave >> 5))
                        continue
                    self._source_kind(d, v, kind, what)
                    code, ng, ab, hi = self.src_code(v, op, F, what, allow_literal=kind in _TAKES_LITERAL,
                                                     allow_vgpr=kind != _SCALAR and kind != _LANE,
                                                     encoding=plan.constants)
                else:
                    code, ng, ab, hi = self.src_code(v, op, F, what, encoding=plan.constants)
                if (ng or ab) and not (o.is_float or is_p):
                    raise OperandError(f"{_name(d)}: {what}: neg/abs modifiers apply to floating-point operands only", v)
                if dpp_kind and i < 2:
                    if code < self.vgpr_base and (i == 0 or e32 or self.spec.arch not in _DPP_SCALAR_SRC1):
                        # at the register (inside -x, |x|), a constant at the mnemonic: LLVM 22's places
                        inner = v.value if isinstance(v, Mod) else v
                        raise OperandError(f"{_name(d)}: {what}: the first two sources of a DPP instruction are VGPRs, "
                                           f"got {v}", inner if isinstance(inner, (Reg, Special, Agpr)) else None)
                    if i == 0:
                        F["_dpp_src0"] = code - self.vgpr_base
                        code = 0
                if ng or ab:
                    if is_p and not is_mix:     # NEG/NEG_HI only as neg_lo/neg_hi lists (packed_negation)
                        raise OperandError(f"{_name(d)}: {plan.negation.sign_error(i, len(plan.srcs))}", v)
                    elif is_mix:
                        negb |= ng << i
                        F["NEG_HI"] = F.get("NEG_HI", 0) | ab << i
                    else:
                        negb |= ng << i
                        absb |= ab << i
                if hi:
                    opsel |= 1 << i
                F[field] = code
        except OperandError as e:   # the source's place: one text written twice is one value (the parser's)
            _place(e, src_vals, src_at)
            if getattr(e, "f64_literal", False) and src_at and e.index != src_at[0]:
                e.src0 = (src_vals[0].value if isinstance(src_vals[0], Mod) else src_vals[0], src_at[0])
            raise
        if not e32:
            try:
                self._constant_bus(d, F, plan, src_vals)
            except OperandError as e:
                _place(e, src_vals, src_at)
                raise
            if mods and "op_sel" in mods:
                if modifier_use(d).opsel is None or byte_select(d):
                    halves = self.spec.arch in syntax.TRUE16_FAMILIES and any(o.t16 for o in sig.srcs + sig.dsts)
                    raise OperandError(f"{_name(d)}: op_sel: the instruction takes no op_sel in LLVM's syntax"
                                       + (" (it selects a byte with byte_sel:N)" if byte_select(d) else
                                          " (it selects halves with .l/.h)" if halves else ""), modifier="op_sel",
                                       unknown=True)
                if not plan.opsel:
                    raise OperandError(f"{_name(d)}: op_sel: this instruction has no 16-bit operands to select "
                                       f"halves of" if "OPSEL" in self._layout[d.format][0] else
                                       f"{_name(d)}: op_sel: its {d.format} encoding has no OPSEL field",
                                       modifier="op_sel", unknown=True)
                bits = _bit_list(mods.pop("op_sel"), "op_sel", d)
                nsrc = len(sig.srcs)
                if len(bits) > 4:
                    raise OperandError(f"{_name(d)}: op_sel:{bits}: {len(bits)} entries; at most 4 (one per source, "
                                       f"then the destination's)", modifier="op_sel")
                if sig.opsel_flags and any(bits[sig.opsel_flags:]):   # (v_permlane16: op_sel:[FI,BOUND_CTRL])
                    raise OperandError(f"{_name(d)}: op_sel:{bits}: only its first {sig.opsel_flags} entries may be "
                                       f"set (the flags the manual redefines OPSEL[0..{sig.opsel_flags - 1}] as; "
                                       f"the remaining OPSEL bits are reserved)", modifier="op_sel")
                # LLVM's order: an entry per source (v_fmac's accumulator, D0's incoming value, among them),
                # then the destination's (a VGPR result's only); later entries are ignored
                tied = not is_p and sig.reads_dst
                dst_at = nsrc + tied
                dst_bit = bits[dst_at] if len(bits) > dst_at and sig.dsts and not sig.is_cmp and not is_p else 0
                entries = {i: b for i, b in enumerate(bits[:nsrc])}
                given = self._halves_given(plan, ops, src_vals) if not is_p else {}
                if plan.t16_vgprs and not given and self.spec.arch in syntax.TRUE16_FAMILIES \
                        and not signature.opsel_on_whole_vgprs(d) and _whole_t16_vgpr(sig, ops, src_vals):
                    raise OperandError(f"{_name(d)}: op_sel: with its 16-bit operands written as whole VGPRs it takes "
                                       f"no op_sel; select halves with .l/.h (LLVM's true16 syntax)", modifier="op_sel")
                for i, b in entries.items():     # (a promoted VOP1's packed source, v_sat_pk_u8_i16's, takes it)
                    if b and not is_p and sig.srcs[i].packed and d.promoted_from is None:
                        raise OperandError(f"{_name(d)}: op_sel: src{i} is a packed operand (both halves are read)",
                                           modifier="op_sel")
                if any(bits[:dst_at + 1]):      # a non-zero op_sel says every half written with .l/.h (LLVM)
                    if tied and "dst" in given:
                        given[nsrc] = given["dst"]
                        entries[nsrc] = bits[nsrc] if len(bits) > nsrc else 0
                    for i, half in given.items():
                        b = dst_bit if i == "dst" else entries.get(i, 0)
                        if b != half:
                            what = "the destination" if i == "dst" else f"src{i}"
                            raise OperandError(f"{_name(d)}: op_sel: {what}'s entry ({b}) contradicts its "
                                               f".{'h' if half else 'l'}", modifier="op_sel")
                for i, b in entries.items():
                    if i < nsrc:
                        opsel |= b << i
                opsel |= dst_bit << 3
            if mods and "byte_sel" in mods:     # gfx12 fp8/bf8 conversions: OPSEL bits that pick a byte
                byte_bits = byte_select(d)
                if not byte_bits:
                    raise OperandError(f"{_name(d)}: byte_sel: the instruction selects no byte", modifier="byte_sel",
                                       unknown=True)
                sel = mods.pop("byte_sel")
                if not 0 <= sel <= 3:
                    raise OperandError(f"{_name(d)}: byte_sel:{sel} is out of range 0..3", modifier="byte_sel")
                hi_bit, lo_bit = byte_bits
                opsel |= (sel >> 1) << hi_bit | (sel & 1) << lo_bit
            if mods and "index_key" in mods:    # SWMMAC: which part of the index VGPR its OPSEL selects
                key = mods.pop("index_key")
                if not plan.index_key:
                    raise OperandError(f"{_name(d)}: index_key: the instruction reads no sparsity index",
                                       modifier="index_key")
                if key < 0:
                    raise OperandError(f"{_name(d)}: index_key:{key} is negative", modifier="index_key")
                sets = signature.index_keys(d, self.wave)
                if sets == 1:       # (LLVM 22: "not a valid operand", index_key:0 too)
                    raise OperandError(f"{_name(d)}: index_key: its index VGPR holds one set of sparsity indices "
                                       f"in wave{self.wave}; write none", modifier="index_key")
                if key >= sets:
                    raise OperandError(f"{_name(d)}: index_key:{key}: its index VGPR holds {sets} sets of "
                                       f"sparsity indices in wave{self.wave} (index_key:0..{sets - 1})",
                                       modifier="index_key")
                opsel = key
            if is_p:
                if "op_sel_hi" in mods and not plan.opsel and effects(d.pcode).matrix:
                    raise OperandError(f"{_name(d)}: op_sel_hi: a matrix instruction selects halves only of a "
                                       f"16-bit result (RDNA3 WMMA f16/bf16), as op_sel", modifier="op_sel_hi",
                                       unknown=True)
                if "op_sel_hi" in mods and not plan.opsel and not is_mix:
                    raise OperandError(f"{_name(d)}: op_sel_hi: this instruction has no 16-bit operands to select "
                                       f"halves of", modifier="op_sel_hi", unknown=True)
                nsrc = len(sig.srcs)
                if "op_sel_hi" in mods:     # an entry per source (missing ones 0); later ones are ignored
                    hv = _bits_value(_bit_list(mods.pop("op_sel_hi"), "op_sel_hi", d)[:nsrc])
                else:
                    hv = 0 if is_mix else (1 << nsrc) - 1
                if not is_mix:          # bits of sources the instruction does not have read as set
                    hv |= (7 >> nsrc) << nsrc   # (LLVM's default)
                F["OPSEL_HI"] = hv & 3
                F["OPSEL_HI2"] = hv >> 2 & 1
                nsrc = len(sig.srcs)
                for key in ("neg_lo", "neg_hi"):     # an entry per source; later ones are ignored (LLVM)
                    if key in mods:
                        bits = _bit_list(mods.pop(key), key, d)
                        why = signature.neg_list_error(d, key, bits, nsrc)
                        if why:         # refused with no entry set: a list LLVM's syntax lacks
                            raise OperandError(f"{_name(d)}: {why}", modifier=key,
                                               unknown=signature.neg_list_error(d, key, [], nsrc) is not None)
                        if key == "neg_lo":
                            negb |= _bits_value(bits[:nsrc])
                        else:
                            F["NEG_HI"] = F.get("NEG_HI", 0) | _bits_value(bits[:nsrc])
                F.setdefault("NEG_HI", 0)
            if opsel:
                F["OPSEL"] = opsel
            if negb:
                F["NEG"] = negb
            if absb:
                if "ABS" not in self._layout[d.format][0]:     # VOP3SD (v_div_scale, v_mad_u64_u32)
                    raise OperandError(f"{_name(d)}: |x| (abs) cannot be encoded in {d.format}, which has no "
                                       f"ABS field")
                F["ABS"] = absb
            if mods:
                if mods.pop("clamp", False):
                    if not plan.clamp:
                        raise OperandError(f"{_name(d)}: clamp: the instruction takes no clamp in LLVM's syntax "
                                           f"(an integer result that does not saturate, or one the manual says "
                                           f"ignores it)", modifier="clamp")
                    F["CLMP"] = 1
                if "mul" in mods and "div" in mods:
                    raise OperandError(f"{_name(d)}: div: one output modifier (mul:2, mul:4 or div:2)", modifier="div")
                for key, val in _OUTPUT_MODIFIERS:
                    if key in mods:
                        m = mods.pop(key)
                        if not plan.omod:
                            raise OperandError(f"{_name(d)}: {key}:{m}: output modifiers apply to floating-point "
                                               f"results of the VOP3 encoding", modifier=key)
                        if m not in val:
                            raise OperandError(f"{_name(d)}: {key}:{m} is not an output modifier (mul:2, mul:4, "
                                               f"div:2)", modifier=key)
                        F["OMOD"] = val[m]
        if dpp_kind:
            if not plan.dpp:
                raise OperandError(f"{_name(d)}: has no DPP form", modifier=next(iter(mods), None))
            self._dpp(d, F, mods, dpp_kind, e32)

    def _has_vop3(self, d: InstrDef) -> bool:
        """Whether `d`'s instruction has a 64-bit VALU (VOP3) encoding too, the one with modifier bits."""
        return any(x.format in self.traits.roles.valu_e64 for x in self.spec.lookup(d.name))

    def _source_kind(self, d: InstrDef, v, kind: int, what: str) -> None:
        """Refuse what a _SCALAR / _VGPR / _VGPR_OR_INLINE source cannot be (src_code checks the rest)."""
        inner = v.value if isinstance(v, Mod) else v
        is_vgpr = isinstance(inner, Reg) and inner.cls == "v"
        if (kind == _SCALAR or kind == _LANE) and is_vgpr:
            raise OperandError(f"{_name(d)}: {what}: must be an SGPR or constant (a value uniform across the "
                               f"wave), got the VGPR {inner}", v)
        if kind == _VGPR and not is_vgpr:
            raise OperandError(f"{_name(d)}: {what}: must be a VGPR, got {inner}", v)
        if kind == _VGPR_OR_INLINE and not is_vgpr and not isinstance(inner, (int, float)) and inner != _NULL:
            raise OperandError(f"{_name(d)}: {what}: must be a VGPR or inline constant, got {inner}", v)

    def _constant_bus(self, d: InstrDef, F: Fields, plan: "ValuPlan", src_vals=()) -> None:
        """At most two scalar values (one for 64-bit shifts) per VOP3/VOP3P instruction; the
        same SGPR or literal twice counts once (RDNA3 ISA, "Instruction restrictions"). Refused at
        the first source the bus has no room for (an implicit VCC read first), as LLVM 22
        places it."""
        scalars = {F.get(field) for _, _, _, _, field, _ in plan.srcs} & self.scalar_sources
        if "_dpp_src0" in F:
            scalars.discard(F.get("SRC0"))
        if plan.implicit_vcc:
            scalars.add(self.traits.vcc_lo)
        if len(scalars) > plan.bus_limit:
            raise OperandError(f"{_name(d)}: reads {len(scalars)} scalar values (SGPRs, VCC, M0, EXEC, SCC, "
                               f"the literal{', VCC implicitly' if plan.implicit_vcc else ''}); at most "
                               f"{plan.bus_limit} may be read by one instruction (the constant bus)",
                               self._bus_operand(F, plan, src_vals))

    def _bus_operand(self, F: Fields, plan: "ValuPlan", src_vals):
        """The source value a constant-bus refusal names (see _constant_bus), or None."""
        seen = {self.traits.vcc_lo} if plan.implicit_vcc else set()
        for (_, _, _, _, field, _), v in zip(plan.srcs, src_vals):
            code = F.get(field)
            if code in self.scalar_sources and not (field == "SRC0" and "_dpp_src0" in F) and code not in seen:
                seen.add(code)
                if len(seen) > plan.bus_limit:
                    return v.value if isinstance(v, Mod) else v
        return None

    @staticmethod
    def _halves_given(plan: "ValuPlan", ops: list, src_vals) -> dict:
        """{source index or "dst": 1 for .h, 0 for .l} of the operands written with a half."""
        given = {}
        for i, v in enumerate(src_vals):
            v = v.value if isinstance(v, Mod) else v
            if isinstance(v, Reg) and v.half:
                given[i] = int(v.half == "h")
        if plan.dsts and isinstance(ops[0], Reg) and ops[0].half:
            given["dst"] = int(ops[0].half == "h")
        return given

    def _plan(self, d: InstrDef, e32: bool) -> "ValuPlan":
        plan = _valu_plan(d, e32, self.wave, frozenset(self._layout[d.format][0]), self.spec.arch)
        self._plans[d, e32] = plan
        return plan

    def _implicit_vcc(self, d, v):
        want = "vcc" if self.wave == 64 else "vcc_lo"
        if not (isinstance(v, Special) and v.name == want):
            raise OperandError(f"{_name(d)}: the 32-bit encoding's carry/condition operand is {want}, got {v}", v)

    def _dpp(self, d, F: Fields, mods: dict, kind: str, e32: bool):
        src0 = F.pop("_dpp_src0", None)
        if src0 is None:
            raise OperandError(f"{_name(d)}: DPP needs a VGPR src0")
        if F.literal is not None or F.literal_read:       # the DPP word takes the literal's place
            raise OperandError(f"{_name(d)}: a DPP instruction has no literal; "
                               f"{F.literal_ref or F.literal_read or hex(F.literal)} must be an inline constant "
                               f"or a register")
        dpp = {"SRC0": src0}
        if len(_DPP_CONTROLS.intersection(mods)) > 1:
            raise OperandError(f"{_name(d)}: {' and '.join(k for k in mods if k in _DPP_CONTROLS)}: DPP takes one "
                               f"control", modifier=[k for k in mods if k in _DPP_CONTROLS][1])
        if kind == "DPP8":
            sels = _bit_list(mods.pop("dpp8"), "dpp8", d, limit=7)
            if len(sels) != 8:
                raise OperandError(f"{_name(d)}: dpp8 needs 8 lane selects, got {len(sels)}")
            dpp.update(zip(_LANE_SELS, sels))
            fi = mods.pop("fi", 0)
            F["SRC0"] = self.traits.codes["DPP8FI" if fi else "DPP8"]
        else:
            ctrl = None
            if "quad_perm" in mods:
                q = _bit_list(mods.pop("quad_perm"), "quad_perm", d, limit=3)
                if len(q) != 4:
                    raise OperandError(f"{_name(d)}: quad_perm needs 4 lane selects")
                ctrl = q[0] | q[1] << 2 | q[2] << 4 | q[3] << 6
            for key, base in (("row_shl", 0x100), ("row_shr", 0x110), ("row_ror", 0x120), ("row_share", 0x150),
                              ("row_xmask", 0x160)):
                if key in mods:
                    n = mods.pop(key)
                    lo = 0 if key in ("row_share", "row_xmask") else 1
                    if not isinstance(n, int) or not lo <= n <= 15:
                        raise OperandError(f"{_name(d)}: {key}:{n} is out of range ({lo}..15)")
                    ctrl = base + n
            for key, val in (("row_mirror", 0x140), ("row_half_mirror", 0x141)):
                if mods.pop(key, False):
                    ctrl = val
            if ctrl is None:
                raise OperandError(f"{_name(d)}: DPP needs a control: quad_perm:[..], row_shl:n, row_shr:n, "
                                   f"row_ror:n, row_mirror, row_half_mirror, row_share:n or row_xmask:n")
            dpp.update(DPP_CTRL=ctrl, ROW_MASK=mods.pop("row_mask", 0xf), BANK_MASK=mods.pop("bank_mask", 0xf),
                       BC=1 if mods.pop("bound_ctrl", 0) else 0, FI=1 if mods.pop("fi", 0) else 0)
            if "_neg0" in F or "_neg1" in F:         # DPP16 source modifiers, set by valu
                for neg, ab, name_neg, name_abs in _DPP16_SOURCE_MODIFIERS:
                    dpp[name_neg] = int(bool(F.pop(neg, 0)))
                    dpp[name_abs] = int(bool(F.pop(ab, 0)))
            else:
                dpp.update(_DPP16_NO_SOURCE_MODIFIERS)
            F["SRC0"] = self.traits.codes["DPP16"]
        F.dpp, F.dpp_kind = dpp, kind

    # ------------------------------------------------------------ VOPD

    def _vopd_half(self, mnemonic: str, slot: str) -> tuple[InstrDef, ValuSig, list[str]]:
        """(InstrDef, signature of the VOP1/VOP2 it performs, operand names) of one VOPD half."""
        hit = self._vopd_halves.get((mnemonic, slot))
        if hit is None:
            # LLVM takes an _e32 suffix on the first half (the name of a 32-bit VOP2), not on the second
            base = mnemonic[:-4] if slot == "X" and mnemonic.endswith("_e32") else mnemonic
            d = next((x for x in self.spec.lookup(base) if x.format == "VOPD" and x.slot == slot), None)
            if d is None:
                raise OperandError(f"{mnemonic} is not a VOPD {'first' if slot == 'X' else 'second'} "
                                   f"(OPX/OPY) instruction")
            sig = valu_signature(vopd_base(self.spec, d))
            names = ["vdst"] + [o.name for o in sig.srcs[:2]]
            if sig.k_pos is not None:
                names.insert(1 + sig.k_pos, "k")
            hit = self._vopd_halves[mnemonic, slot] = (d, sig, names)
        return hit

    def encode_vopd(self, st) -> tuple[bytes, "LiteralRef | None"]:
        dx, sig_x, names_x = self._vopd_half(st.mnemonic, "X")
        dy, sig_y, names_y = self._vopd_half(st.dual.mnemonic, "Y")
        for p, d in ((st, dx), (st.dual, dy)):      # a chosen definition must be the half's mnemonic's
            if p.defn is not None and p.defn is not d:
                raise OperandError(f"{p.mnemonic}: the Instr's definition {p.defn.name} ({p.defn.format}) is not "
                                   f"the VOPD {d.slot} instruction {p.mnemonic!r} names")
        F = Fields(dx)
        F["OPX"], F["OPY"] = dx.opcode, dy.opcode
        vdst, src0, vsrc1 = {}, {}, {}
        for part, (slot, d, p, sig, names) in enumerate((("X", dx, st, sig_x, names_x), ("Y", dy, st.dual, sig_y, names_y))):
            try:
                self._vopd_operands(F, slot, d, p, sig, names, vdst, src0, vsrc1)
            except OperandError as e:       # in this half (its operands may be the other's objects too)
                e.part = part if e.part is None else e.part
                raise
        where = f"{_name(dx)} :: {_name(dy)}"
        y_srcs = [i for i, n in enumerate(names_y) if n not in ("vdst", "k")]
        if (vdst["X"] & 1) == (vdst["Y"] & 1):
            raise OperandError(f"{where}: the two destinations must be one even and one odd "
                               f"VGPR (got v{vdst['X']} and v{vdst['Y']})", st.dual.operands[0], part=1, index=0)
        # LLVM 22 checks the constant bus before the banks
        self._vopd_constant_bus(F, where, (st, sig_x, names_x), (st.dual, sig_y, names_y))
        # each half reads its VGPR sources through its own bank (register number mod 4); refused at
        # the second half's operand, as LLVM 22 reports it (the manual's "V_MOV_B32 when in OPY uses
        # SRC2 ... if OPX is also a V_MOV_B32": both halves copies, isa.effects' copy of the
        # instruction each performs)
        mov_pair = self.traits.family in syntax.VOPD_MOV_PAIR_USES_SRC2 and \
            all(effects(vopd_base(self.spec, x).pcode or "").copy for x in (dx, dy))
        if len(src0) == 2 and src0["X"] % 4 == src0["Y"] % 4 and not mov_pair:
            raise OperandError(f"{where}: the src0 operands v{src0['X'] - self.vgpr_base} and v{src0['Y'] - self.vgpr_base} are in the same "
                               f"VGPR bank (register number mod 4); VOPD reads them in one cycle",
                               st.dual.operands[y_srcs[0]], part=1, index=y_srcs[0])
        # (v_dual_fmamk's VSRC1 is its addend, which LLVM does not compare with the other vsrc1)
        if len(vsrc1) == 2 and vsrc1["X"] % 4 == vsrc1["Y"] % 4 and sig_x.k_pos != 1 and sig_y.k_pos != 1:
            raise OperandError(f"{where}: the vsrc1 operands v{vsrc1['X']} and v{vsrc1['Y']} are in the same VGPR bank "
                               f"(register number mod 4); VOPD reads them in one cycle",
                               st.dual.operands[y_srcs[1]], part=1, index=y_srcs[1])
        # src2: an accumulator's is its destination (reads_dst: v_dual_fmac_f32, v_dual_dot2acc_*), a
        # K-form's with K in the middle its last source (v_dual_fmamk_f32); two banks (the register's
        # parity), compared when both halves have one, as LLVM 22 does; refused at the src2 written
        # (the second half's first)
        src2, written = {}, []
        for part, (slot, p, sig) in enumerate((("X", st, sig_x), ("Y", st.dual, sig_y))):
            if sig.reads_dst and type(p.operands[0]) is Reg:
                src2[slot] = vdst[slot]
            elif sig.k_pos == 1 and slot in vsrc1:
                src2[slot] = vsrc1[slot]
                written.append((part, len(p.operands) - 1))
        if len(src2) == 2 and src2["X"] % 2 == src2["Y"] % 2:
            part, index = written[-1]
            raise OperandError(f"{where}: the src2 operands v{src2['X']} and v{src2['Y']} are in the same VGPR bank "
                               f"(register number mod 2; an accumulator's src2 is its destination, "
                               f"v_dual_fmamk_f32's its last source); VOPD reads them in one cycle",
                               (st, st.dual)[part].operands[index], part=part, index=index)
        F["VDSTX"] = vdst["X"]
        F["VDSTY"] = vdst["Y"] >> 1
        data = self.pack(dx, F, "VOPD")
        return data, LiteralRef(F.literal_ref, len(data) - 4) if F.literal_ref is not None else None

    def _vopd_operands(self, F: Fields, slot: str, d, p, sig, names, vdst: dict, src0: dict, vsrc1: dict) -> None:
        """One VOPD half's operands into F (its destination, src0 and vsrc1 codes into the dicts)."""
        if p.modifiers:
            key = next(iter(p.modifiers))
            raise OperandError(f"{_name(d)}: {key}: a VOPD half takes no modifiers (no clamp, output "
                               f"modifier, DPP, op_sel or memory flags); write it as a VOP1/VOP2/VOP3 "
                               f"instruction", modifier=key)
        if len(p.operands) != len(names):
            self._arity(d, p.operands, names)
        vals = list(p.operands)
        vdst[slot] = self.vgpr(vals.pop(0), F, "vdst")
        if sig.k_pos is not None:
            self.k_literal(vals.pop(sig.k_pos), sig.srcs[0], "e32", F)
        if isinstance(vals[0], Mod):
            raise OperandError(f"{_name(d)}: src0: a VOPD half takes no neg/abs modifiers, got {vals[0]}",
                               vals[0])
        code, *_ = self.src_code(vals[0], sig.srcs[0], F, "src0", encoding="e32")
        F[f"SRC{slot}0"] = code
        if code >= self.vgpr_base and type(vals[0]) is Reg:     # not a virtual register (VReg): placed later
            src0[slot] = code
        if len(vals) > 1:
            F[f"VSRC{slot}1"] = self.vgpr(vals[1], F, "vsrc1")
            if type(vals[1]) is Reg:
                vsrc1[slot] = F[f"VSRC{slot}1"]
        else:
            F[f"VSRC{slot}1"] = 0

    def _vopd_constant_bus(self, F: Fields, where: str, *halves) -> None:
        """The pair reads at most two scalar values: "at most 2 SGPRs, or 1 SGPR + 1 literal, or
        share a literal ... SCC and EXEC as data count as one SGPR", and the select of
        v_dual_cndmask_b32 (a half that reads VCC implicitly, its signature's vcc_in) "VCC counts
        as one SGPR read" (RDNA3/RDNA3.5/RDNA4 manuals, "Dual Issue VALU (VOPD)" restrictions;
        RDNA4 7.8 page 91). The same SGPR or literal twice counts once; the implicit select is a
        read of its own, apart from a vcc_lo source (LLVM 22 refuses v_dual_cndmask_b32 v1,
        vcc_hi, v3 :: v_dual_mov_b32 v4, vcc_lo). Refused at the first src0 the bus has no room
        for, the select VCC and a K counted first, as LLVM 22 places it."""
        scalars = {F["SRCX0"], F["SRCY0"]} & self.scalar_sources
        if F.literal is not None or F.literal_ref is not None:      # a K of fmaak/fmamk
            scalars.add(self.traits.literal)
        if any(sig.vcc_in for _, sig, _ in halves):
            scalars.add("vcc")
        if len(scalars) > 2:
            seen = ({"vcc"} & scalars) | ({self.traits.literal} & scalars if any(
                sig.k_pos is not None for _, sig, _ in halves) else set())
            blame = (1, halves[1][0], 1)
            for part, ((p, sig, names), slot) in enumerate(zip(halves, "XY")):
                code = F[f"SRC{slot}0"]
                if code in self.scalar_sources and code not in seen:
                    seen.add(code)
                    if len(seen) > 2:
                        blame = (part, p, names.index("vdst") + 1)
                        break
            part, p, i = blame
            raise OperandError(f"{where}: reads {len(scalars)} scalar values (SGPRs, VCC, M0, EXEC, SCC, the "
                               f"literal{', the select VCC' if 'vcc' in scalars else ''}); a VOPD pair may read "
                               f"at most 2 (the constant bus)", p.operands[i] if p.operands[i:] else p.operands[0],
                               part=part, index=i if p.operands[i:] else 0)

    # ------------------------------------------------------------ scalar

    def salu(self, d: InstrDef, F: Fields, ops: list, mods: dict = None):
        layout, names = _scalar_operands(d)
        if len(ops) != len(names):
            self._arity(d, ops, names)
        for (name, field, n, op), v in zip(layout, ops):
            if name == "sdst":
                F[field] = self.sreg_code(v, F, name, n)
            elif name == "msg":
                F[field] = _sendmsg_value(v, d, self.spec.arch, 8)
            elif name == "k":
                self.k_literal(v, _SALU_K, "salu", F)
            else:
                code, ng, ab, _ = self.src_code(v, op, F, name, allow_vgpr=False,
                                                encoding="vop3" if op.t16 else "salu")
                if ng or ab:
                    raise OperandError(f"{_name(d)}: {name}: scalar instructions have no neg/abs modifiers", v)
                F[field] = code

    def sopp_sopk(self, d: InstrDef, F: Fields, ops: list, mods: dict) -> str | None:
        mn = _name(d)
        fix = None
        if d.format == "SOPP":
            style = syntax.sopp_style(d) or "imm"
            if style == "none" or (style == "opt" and not ops):
                if ops:
                    raise OperandError(f"{mn} takes no operands", ops[0])
                F["SIMM16"] = 0
                return None
            if style == "waitcnt":
                F["SIMM16"] = self._waitcnt(d, ops, mods)
                return None
            if style == "delay_alu":
                F["SIMM16"] = _delay_value(d, ops, mods)
                return None
            if style == "depctr":
                if not ops:
                    raise OperandError(f"{mn} takes its fields (depctr_*(n)) or a 16-bit number, got none")
                F["SIMM16"] = _depctr_value(d, ops, mods)
                return None
            self._arity(d, ops, ["simm16"])
            v = ops[0]
            if style == "sendmsg":
                F["SIMM16"] = _sendmsg_value(v, d, self.spec.arch)
                return None
            if style == "branch" and isinstance(v, Attr):
                F["SIMM16"] = 0
                return v.name
            if style == "branch":
                _no_literal_offset(v, d)
            F["SIMM16"] = _imm16(v, d, unsigned=style in syntax.UNSIGNED_SOPP_STYLES)
            return None
        operands, style = syntax.SOPK_STYLE.get(mn, syntax.SOPK_DEFAULT)
        if len(ops) != len(operands):
            self._arity(d, ops, list(operands))
        F.setdefault("SDST", 0)
        for name, v in zip(operands, ops):
            if name == "sdst":
                F["SDST"] = self.sreg_code(v, F, "sdst", 2 if scalar_bits(d, "D0") == 64 else 1)
                if F["SDST"] != self.traits.null and self.spec.arch in NULL_ONLY_SDST.get(d.name, ({},))[0]:
                    raise OperandError(f"{mn}: sdst: must be null (the count is the immediate; "
                                       f"isa.errata.NULL_ONLY_SDST)", v)
            elif name == "imm":
                if style == "branch" and isinstance(v, Attr):
                    F["SIMM16"] = 0
                    fix = v.name
                elif style == "branch":
                    F["SIMM16"] = _imm16(_no_literal_offset(v, d), d)
                elif style == "version":
                    F["SIMM16"] = _imm16(_version_value(v, d), d)
                else:
                    F["SIMM16"] = _imm16(v, d)
            elif name == "hwreg":
                F["SIMM16"] = _hwreg_value(v, d, self.spec.arch)
            elif name == "lit":
                val = v.value if isinstance(v, Lit) else v
                if not isinstance(val, int):
                    raise OperandError(f"{mn}: expected a 32-bit value, got {v}")
                F.set_literal(val, "simm32")
        return fix

    def _waitcnt(self, d, ops, mods) -> int:
        fields = {name: (hi, lo) for name, hi, lo in self.spec.tables.get("waitcnt") or syntax.WAITCNT_LAYOUT_GFX11}
        value = 0
        for key in fields.values():
            value |= ((1 << (key[0] - key[1] + 1)) - 1) << key[1]
        calls = [o for o in ops] + [v for v in mods.values()]
        mods.clear()
        if len(calls) == 1 and (type(calls[0]) is int or isinstance(calls[0], Lit)):
            return simm16.number16(calls[0], _name(d))
        names = {"vmcnt": "VM", "expcnt": "EXP", "lgkmcnt": "LGKM"}
        limits = {name: (1 << (fields[f][0] - fields[f][1] + 1)) - 1 for name, f in names.items()}
        for name, n in simm16.counters(calls, _name(d), limits).items():
            hi, lo = fields[names[name]]
            value = value & ~(((1 << (hi - lo + 1)) - 1) << lo) | n << lo
        return value

    # ------------------------------------------------------------ memory

    def smem(self, d, F, ops, mods):
        mn = _name(d)
        if signature.cache_control(d):      # s_dcache_inv, s_gl1_inv, s_icache_inv: no operands
            self._arity(d, ops, [])
            F.update(SBASE=0, SDATA=0, OFFSET=0, SOFFSET=0)
            return
        sbase_n = scalar_base_registers(d)
        names = ["sdata", "sbase", "offset"]
        ops = smem_offset_default(ops, names)
        if len(ops) != 3:
            self._arity(d, ops, names)
        if scalar_data(d) == "immediate":     # s_atc_probe's mode
            F["SDATA"] = _imm16(ops[0], d)
        else:
            F["SDATA"] = self.smem_data(ops[0], F, value_dwords(d))
        # a buffer's resource (4 SGPRs) is no special register: LLVM 22 refuses null there, not as an address
        F["SBASE"] = self.sreg_code(_base_sgprs(ops[1], d, "sbase") if sbase_n == 4 else ops[1], F, "sbase",
                                    sbase_n) >> 1
        third = ops[2]
        off = mods.pop("offset", None)
        if isinstance(third, int):
            if off is not None:
                raise OperandError(f"{mn}: give the offset once (third operand or offset:)")
            off, soff = third, self.traits.null
        else:
            soff = self.sreg_code(third, F, "soffset")
        off = off or 0
        if sbase_n == 4 and not 0 <= off < (1 << 20):     # a buffer's offset is unsigned
            raise OperandError(f"{mn}: offset {off} is out of range (a buffer's is 20-bit unsigned)", off)
        if not -(1 << 20) <= off < (1 << 20):
            raise OperandError(f"{mn}: offset {off} is out of range (21-bit signed)")
        F["OFFSET"] = off & ((1 << 21) - 1)
        F["SOFFSET"] = soff
        for flag in ("glc", "dlc"):
            if mods.pop(flag, False):
                F[flag.upper()] = 1

    def ds(self, d, F, ops, mods):
        layout = ds_layout(d)
        if len(ops) != len(layout):
            self._arity(d, ops, [n for n, _, _ in layout])
        F.update(ADDR=0, DATA0=0, DATA1=0, VDST=0)
        for (name, field, n), v in zip(layout, ops):
            F[field] = self.vgpr(v, F, name, n)
        if memory_access(d).two_addresses:     # ADDR + OFFSET0 * size, ADDR + OFFSET1 * size
            for k in ("offset0", "offset1"):
                val = mods.pop(k, 0)
                if not 0 <= val <= 255:
                    raise OperandError(f"{_name(d)}: {k}:{val} is out of range 0..255")
                F[k.upper()] = val
        else:
            off = mods.pop("offset", 0)
            if offset_pattern(d) and not isinstance(off, int):     # swizzle(MODE, ...)
                off = _swizzle_value(off, d)
            if not 0 <= off <= 0xffff:
                raise OperandError(f"{_name(d)}: offset:{off} is out of range 0..65535")
            F["OFFSET0"], F["OFFSET1"] = off & 0xff, off >> 8
        if mods.pop("gds", False):      # (RDNA4's VDS has no GDS bit: refused there by pack)
            F["GDS"] = 1
        elif gds_only(d):
            raise OperandError(f"{_name(d)} works on the global data share only: write gds")

    def flat(self, d, F, ops, mods):
        glc = bool(mods.pop("glc", False))
        layout = flat_layout(d, glc)
        wrong_glc = None
        if len(ops) == len(flat_layout(d, not glc)) != len(layout):
            # an atomic written with its result (vdst) and no glc, or without it and with glc: LLVM
            # reads the form the operands write and refuses glc once the rest is checked
            layout = flat_layout(d, not glc)
            wrong_glc = OperandError(f"{_name(d)}: an atomic written with its result (vdst {ops[0]}) must use glc"
                                     if not glc else f"{_name(d)}: glc: an atomic written without its result (no "
                                     f"vdst) must not use glc, which returns the pre-op value",
                                     modifier="glc" if glc else None, at_mnemonic=not glc)
        if len(ops) != len(layout):
            self._arity(d, ops, [n for n, _, _ in layout])
        fmt = d.format
        no_saddr = self.traits.saddr_off[0]    # the code an assembler writes for `off`
        F.update(ADDR=0, DATA=0, VDST=0, SADDR=no_saddr, SVE=0)
        for (name, field, n), v in zip(layout, ops):
            if name == "saddr":
                F["SADDR"] = self.flat_saddr(v, F, n, any(o == "vaddr" for o, _, _ in layout))
            elif name == "vaddr" and fmt == "SCRATCH":
                if isinstance(v, Special) and v.name == "off":
                    F["SVE"] = 0
                else:
                    F["ADDR"], F["SVE"] = self.vgpr(v, F, name), 1
            elif name == "vaddr" and fmt == "GLOBAL":
                F["ADDR"] = self.global_vaddr(v, ops[-1], F)
            else:
                F[field] = self.vgpr(v, F, name, n)
        off = mods.pop("offset", 0)
        lo, hi = (0, 4095) if fmt == "FLAT" else (-4096, 4095)
        if not lo <= off <= hi:
            raise OperandError(f"{_name(d)}: offset:{off} is out of range {lo}..{hi}")
        F["OFFSET"] = off & 0x1fff
        F["GLC"] = int(glc)
        for flag in ("slc", "dlc"):
            if mods.pop(flag, False):
                F[flag.upper()] = 1
        if wrong_glc is not None and not mods:      # (a modifier left over is refused first)
            raise wrong_glc

    def buffer(self, d, F, ops, mods):
        mn = _name(d)
        if signature.cache_control(d):      # buffer_gl0_inv, buffer_gl1_inv: no operands
            self._arity(d, ops, [])
            F.update(VDATA=0, VADDR=0, SRSRC=0, SOFFSET=0, OFFSET=0)
            return
        tfe = signature.buffer_tfe(d, mods, ops[0] if ops else None)
        idxen, offen = bool(mods.pop("idxen", False)), bool(mods.pop("offen", False))
        if len(ops) != 4:
            self._arity(d, ops, ["vdata", "vaddr", "srsrc", "soffset"])
        n = signature.data_registers(d) + tfe     # (cmpswap: value and compare)
        F["VDATA"] = self.vgpr(ops[0], F, "vdata", n)
        if isinstance(ops[1], Special) and ops[1].name == "off":
            if idxen or offen:
                raise OperandError(f"{mn}: vaddr is off but idxen/offen asks for an address VGPR", ops[1])
            F["VADDR"] = 0
        elif not (idxen or offen):
            raise OperandError(f"{mn}: vaddr: without idxen or offen the address VGPR is unused; write off", ops[1])
        else:
            F["VADDR"] = self.vgpr(ops[1], F, "vaddr", 2 if idxen and offen else 1)
        F["SRSRC"] = self.sreg_code(_base_sgprs(ops[2], d, "srsrc"), F, "srsrc", 4) >> 2
        if isinstance(ops[3], Mod):
            raise OperandError(f"{mn}: soffset: takes no modifiers, got {ops[3]}", ops[3])
        code, *_ = self.src_code(ops[3], _SOFFSET, F, "soffset", allow_vgpr=False, allow_literal=False,
                                 encoding="salu")
        F["SOFFSET"] = code
        wrong = tfe and signature.store_tfe_refusal(d)
        if wrong:       # LLVM 22 refuses a store's tfe once its operands match, before its offset
            raise wrong
        off = mods.pop("offset", 0)
        if not 0 <= off <= 4095:
            raise OperandError(f"{mn}: offset:{off} is out of range 0..4095")
        F["OFFSET"] = off
        F.update(IDXEN=int(idxen), OFFEN=int(offen), TFE=int(tfe))
        for flag in ("glc", "slc", "dlc"):
            if mods.pop(flag, False):
                F[flag.upper()] = 1
        if d.format == "MTBUF":
            fmtv = mods.pop("format", 1)
            if isinstance(fmtv, list):
                names = buffer_format_codes(self.spec)
                if len(fmtv) != 1 or not hasattr(fmtv[0], "name") or fmtv[0].name not in names:
                    raise OperandError(f"{mn}: unknown format {fmtv}")
                fmtv = names[fmtv[0].name]
            F["FORMAT"] = fmtv

    def vinterp(self, d, F, ops, mods):
        if len(ops) != 4:
            self._arity(d, ops, ["vdst", "src0", "src1", "src2"])
        opsel = negb = 0
        v = ops[0]
        types = d.operand_types
        F["VDST"] = self.vgpr(v, F, "vdst", half=(types.get("D0") or "").endswith("16"))
        if isinstance(v, Reg) and v.half == "h":
            opsel |= 8
        for i, v in enumerate(ops[1:]):
            neg = False
            if isinstance(v, Mod):
                neg, v = v.neg, v.value
            if not (isinstance(v, Reg) and v.cls == "v"):
                raise OperandError(f"{_name(d)}: src{i} must be a VGPR, got {v}", v)
            self.vgpr(v, F, f"src{i}", half=(types.get(f"S{i}") or "").endswith("16"))
            F[_SRC_FIELDS[i]] = self.vgpr_base + v.idx
            opsel |= (v.half == "h") << i
            negb |= neg << i
        if "op_sel" in mods:
            bits = _bit_list(mods.pop("op_sel"), "op_sel", d)
            if len(bits) > 4:
                raise OperandError(f"{_name(d)}: op_sel:{bits}: at most 4 entries", modifier="op_sel")
            for i, (b, v) in enumerate(zip(bits, ops[1:] + ops[:1])):     # src0, src1, src2, vdst
                v = v.value if isinstance(v, Mod) else v
                if isinstance(v, Reg) and v.half and b != (v.half == "h"):
                    raise OperandError(f"{_name(d)}: op_sel: entry {i} ({b}) contradicts the .l/.h of {v}",
                                       modifier="op_sel")
            opsel |= _bits_value(bits)
        F.update(OPSEL=opsel, NEG=negb, CLMP=int(bool(mods.pop("clamp", False))), WAITEXP=mods.pop("wait_exp", 0))

    def ldsdir(self, d, F, ops, mods):
        """LDSDIR (RDNA3) and VDSDIR (RDNA4: ds_*_load, with a second wait field, WAIT_VMVSRC)."""
        mn = _name(d)
        param = attribute_load(d)       # lds_param_load: attrN.c
        if not ops:
            self._arity(d, ops, ["vdst", "attr"] if param else ["vdst"])
        F["VDST"] = self.vgpr(ops[0], F, "vdst")
        F.update(ATTR=0, ATTR_CHAN=0)
        if param:
            self._arity(d, ops, ["vdst", "attr"])
            a = ops[1]
            m = re.fullmatch(r"attr(\d+)\.([xyzw])", getattr(a, "name", ""))
            if not m:
                raise OperandError(f"{mn}: expected attrN.[xyzw], got {a}")
            F["ATTR"], F["ATTR_CHAN"] = int(m.group(1)), "xyzw".index(m.group(2))
            low, high = self.spec.formats[d.format].stated_range("ATTR") or (0, (1 << self._layout[d.format][0]["ATTR"][1]) - 1)
            if not low <= F["ATTR"] <= high:     # the manual's ATTR field: "Attribute number: 0 - 32."
                raise OperandError(f"{mn}: attr: {a.name}: attribute number {F['ATTR']} out of range "
                                   f"({low} to {high})", a)
        else:
            self._arity(d, ops, ["vdst"])
        if "WAIT_VMVSRC" in self._layout[d.format][0]:
            F["WAIT_VA"], F["WAIT_VMVSRC"] = mods.pop("wait_va_vdst", 0), mods.pop("wait_vm_vsrc", 0)
        else:
            F["WAIT_VA"] = mods.pop("wait_vdst", 0)


_VALU_FORMATS = frozenset(("VOP1", "VOP2", "VOPC", "VOP3", "VOP3SD", "VOP3P"))
# the other formats' operand handlers: (encoder, d, fields, operands, modifiers) -> a branch label or None
_HANDLERS = {"SOP1": Encoder.salu, "SOP2": Encoder.salu, "SOPC": Encoder.salu,
             "SOPP": Encoder.sopp_sopk, "SOPK": Encoder.sopp_sopk, "SMEM": Encoder.smem, "DS": Encoder.ds,
             "FLAT": Encoder.flat, "GLOBAL": Encoder.flat, "SCRATCH": Encoder.flat,
             "MUBUF": Encoder.buffer, "MTBUF": Encoder.buffer, "VINTERP": Encoder.vinterp,
             "LDSDIR": Encoder.ldsdir,
             "VDS": Encoder.ds, "VDSDIR": Encoder.ldsdir, "EXP": encode_export.export,
             "VEXPORT": encode_export.export, **encode_rdna4.HANDLERS, **encode_image.HANDLERS}
# a format whose name two families share but whose layout differs (RDNA4's SMEM)
_HANDLERS_BY_FAMILY = encode_rdna4.HANDLERS_BY_FAMILY


# ---------------------------------------------------------------- helpers

_SRC_FIELDS = ("SRC0", "SRC1", "SRC2")
_SOFFSET = Operand("soffset")     # MUBUF/MTBUF's soffset: an SGPR, constant or literal
_SALU_K = Operand("k")            # s_fmaak_f32's K: 32 bits
_OUTPUT_MODIFIERS = (("mul", {2: 1, 4: 2}), ("div", {2: 3}))      # key -> {value: OMOD}
_LANE_SELS = tuple(f"LANE_SEL{i}" for i in range(8))     # DPP8's lane select fields
# (Fields key valu sets, Fields key, DPP16 field, DPP16 field) of each source's neg/abs
_DPP16_SOURCE_MODIFIERS = tuple((f"_neg{i}", f"_abs{i}", f"SRC{i}_NEG", f"SRC{i}_ABS") for i in range(2))
_DPP16_NO_SOURCE_MODIFIERS = {name: 0 for *_, neg, ab in _DPP16_SOURCE_MODIFIERS for name in (neg, ab)}
_DPP16_MODIFIERS = frozenset(("quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror",
                              "row_share", "row_xmask", "row_mask", "bank_mask", "bound_ctrl"))


@cache
def _code_as_number(d: InstrDef) -> bool:
    """A SALU source whose operand code the pseudocode reads as a signed number, or M0 where it
    names M0 (RDNA4's barrier numbers: `IsM0(SRC0.u32) ? M0[4 : 0] : SRC0.i32`): the value is
    the inline constant the code stands for (no literal: isa.facts.source_limits 'inline'), and
    the one register it takes is M0 (the manual, RDNA4 section 5.6.2, page 58: "Barrier
    instructions can use M0 or an inline constant to refer to the barrier number")."""
    return "SRC0" in d.operand_types and "S0" not in d.operand_types and \
        ("SRC0", "i32") in effects(d.pcode or "").field_types


def _scalar_operands(d: InstrDef) -> tuple[list[tuple[str, str, int, Operand | None]], list[str]]:
    """([(name, field, registers, source Operand or None)], names) of a SOP1/SOP2/SOPC instruction."""
    layout = []
    for name, field, n in scalar_layout(d):
        op = None
        if name not in ("sdst", "msg", "k"):
            bits = scalar_bits(d, "S0" if field == "SSRC0" else "S1")
            original = dict(d.operand_types)
            half = syntax.SALU_LITERAL16.get(d.format) if bits == 16 else None    # see literals.py
            typed = d.operand_types.get("S0" if field == "SSRC0" else "S1")    # the source's type: f32, u64...
            # isa.facts.source_limits: a register (the code reads its number or jumps to it), or no
            # literal (RDNA4's barrier ids: M0 or an inline constant); LLVM's exceptions by the
            # source_limits errata (s_movrelsd_2_b32 takes constants)
            limit = dict(source_limits(d)).get("S0" if field == "SSRC0" else "S1")
            op = Operand(name, n, half is not None, "i" if half == "int" else "f" if typed and type_info(typed)[1] == "f"
                         else "b", False, 64 if n == 2 else bits if half else 32,
                         registers_only=limit == "register", no_literal=limit == "inline",
                         m0_only=field == "SSRC0" and _code_as_number(d) and "M0" in effects(d.pcode).names)
        layout.append((name, field, n, op))
    return layout, [name for name, _, _, _ in layout]


@cache
def _valu_operand_names(d: InstrDef, e32: bool) -> tuple[list[str], list[str]]:
    """(all operand names in text order, source names) of a VALU encoding."""
    sig = valu_signature(d)
    names: list[str] = [o.name for o in sig.dsts]
    if sig.vcc_out and (e32 or d.format == "VOP3SD"):
        names.append("sdst" if not e32 else "vcc")
    elif d.format == "VOP3SD":
        names.append("sdst")
    src_names = [o.name for o in sig.srcs]
    if sig.k_pos is not None and e32:
        src_names.insert(sig.k_pos, "k")
    names += src_names
    if sig.vcc_in and e32:
        names.append("vcc")
    return names, src_names


def _whole_t16_vgpr(sig: ValuSig, ops: list, src_vals) -> bool:
    """Whether a 16-bit operand is written as a whole VGPR (v2, not v2.l or v2.h)."""
    def whole(v) -> bool:
        v = v.value if isinstance(v, Mod) else v
        return type(v) is Reg and v.cls == "v" and not v.half
    return any(o.t16 and whole(v) for o, v in zip(sig.srcs, src_vals)) or \
        bool(sig.dsts) and sig.dsts[0].t16 and bool(ops) and whole(ops[0])


@dataclass(frozen=True, slots=True)
class ValuPlan:
    """What encoding one VALU instruction in one encoding (e32 or not) needs that does not
    depend on its operands, worked out once: the per-line work is operand conversion."""
    sig: ValuSig
    is_p: bool                  # VOP3P: packed, neg_lo/neg_hi, op_sel_hi
    is_mix: bool                # v_fma_mix*: abs bits go to NEG_HI, op_sel_hi defaults to 0
    names: list[str]            # all operand names in text order
    n_srcs: int                 # source operands in the text (K included)
    dsts: tuple                 # (Operand, registers it spans)
    cmpx_e64: bool              # VDST is exec_lo's code
    sdst_after: bool            # a vcc / sdst operand follows the destinations
    k_e32: bool                 # the VOP2 constant K is among the sources
    vcc_in_e32: bool            # an implicit vcc follows the sources
    srcs: tuple                 # (index, Operand, Operand src_code checks, "srcI", "SRCI" field, _ANY.. kind)
    constants: str              # how its sources take numbers: literals.literal_kind's encoding
    bus_limit: int              # scalar values (SGPRs, VCC, M0, EXEC, SCC, the literal) it may read
    implicit_vcc: bool          # reads VCC without naming it (v_div_fmas in VOP3): one of them
    opsel: bool                 # takes op_sel: 16-bit operands (true16 halves), VOP3P, OPSEL flags
    omod: bool                  # takes mul:/div: (a VOP3 encoding with OMOD; isa.facts.modifier_use's omod)
    t16_vgprs: tuple            # positions among the operands of the 16-bit ones (true16 .l/.h or none)
    dpp: bool                   # has a DPP form: not WMMA (its sources span several VGPRs)
    index_key: bool = False     # takes index_key:N (SWMMAC: its third source is an index, not a matrix)
    clamp: bool = True          # takes clamp (isa.facts.modifier_use's clamp: not None)
    halves_only: bool = False   # its VGPR operands are all 16 raw bits (a half moved untouched)
    negation: object = None     # VOP3P: the sources NEG/NEG_HI apply to (packed_negation.PackedNegation)


@cache
def _valu_plan(d: InstrDef, e32: bool, wave: int, fields: frozenset = frozenset(("OPSEL", "OMOD")),
               family: str = "rdna3") -> ValuPlan:
    """The plan of `d` in one encoding; `fields`: the field names of its format (which of OPSEL
    and OMOD it has); `family`: how its matrix operands are laid out (signature.matrix_regs)."""
    sig = valu_signature(d)
    is_wmma = effects(d.pcode).matrix     # (MxN) operands: WMMA / SWMMAC
    regs = signature.matrix_regs(d, wave, family) if is_wmma else {}
    names, src_names = _valu_operand_names(d, e32)
    dsts = tuple((o, o.regs(wave) if o.name == "sdst" else regs["D0"] if is_wmma else o.dwords)
                 for o in sig.dsts)
    srcs = []
    kinds = _source_kinds(d, sig, is_wmma)
    if is_wmma and len(kinds) > 2 and "S2" not in regs:     # SWMMAC's index: one VGPR
        kinds[2] = _VGPR
    replicated = family in syntax.WMMA_REPLICATED
    for i, o in enumerate(sig.srcs):
        op = o
        if is_wmma and not e32 and f"S{i}" in regs:
            # A, B: VGPRs only; C: inline constants too (RDNA3: read at syntax.WMMA_ACCUMULATOR_BITS)
            op = Operand(o.name, regs[f"S{i}"], not replicated and o.bits == 16, "b" if replicated else o.ftype,
                         False, syntax.WMMA_ACCUMULATOR_BITS[wave] if replicated else o.bits, registers_only=i < 2,
                         no_literal=True, bf16=o.bf16 and not replicated)     # (RDNA4: C's f16 elements: 0x3c00 is 1.0)
        else:
            op = signature.constant_operand(d, i, o)    # a number on it as LLVM types it
        srcs.append((i, o, op, f"src{i}", f"SRC{i}", kinds[i]))
    n_dsts = len(sig.dsts)
    if e32:
        constants = "e32_packed" if sig.dsts and sig.dsts[0].packed else "e32"
    else:
        constants = "vop3p" if d.format == "VOP3P" else "vop3"
    is_p = d.format == "VOP3P"
    opsel = not e32 and "OPSEL" in fields and signature.takes_opsel(d, sig, family)
    use = modifier_use(d)       # what OMOD and CLMP apply to: the generated fact (LLVM's, by its errata)
    omod = not e32 and "OMOD" in fields and not sig.is_cmp and use.omod
    return ValuPlan(sig, is_p, effects(d.pcode).mixed_sources, names, len(src_names), dsts,
                    sig.is_cmpx and not e32,
                    names[n_dsts:n_dsts + 1] in (["vcc"], ["sdst"]) and sig.vcc_out or d.format == "VOP3SD",
                    sig.k_pos is not None and e32, sig.vcc_in and e32, tuple(srcs), constants,
                    1 if _is_64bit_shift(d, sig) else 2,
                    sig.vcc_in and not e32 and not any(o.is_mask for o in sig.srcs), opsel, omod,
                    _t16_positions(sig, names, is_p), not is_wmma,
                    is_wmma and len(sig.srcs) > 2 and "S2" not in regs,
                    e32 or "CLMP" not in fields or use.clamp is not None, _moves_halves(sig, is_p),
                    packed_negation(d) if is_p else None)


def _moves_halves(sig: ValuSig, is_p: bool) -> bool:
    """Every VGPR operand is 16 raw bits (D0.b16 = S0.b16: v_mov_b16, v_swap_b16): the
    instruction moves one half untouched. Unlike a 16-bit operation with a whole-register form
    (v_add_f16 v1, v2, v3 reads and writes the low halves), the true16 syntax defines such a move
    only with halves: v1.l or v1.h, never a plain v1."""
    vgprs = [o for o in sig.dsts + sig.srcs if not o.sgpr and o.dwords]
    return not is_p and bool(vgprs) and all(o.t16 and o.ftype == "b" for o in vgprs)

def _is_64bit_shift(d: InstrDef, sig: ValuSig) -> bool:
    """RDNA3 ISA, "Instruction restrictions" (section 7.x, page 68 of the RDNA3 manual): "64-bit
    shift instructions can use only one scalar value input" (v_lshlrev_b64, v_lshrrev_b64,
    v_ashrrev_i64: a 64-bit result that is a shift of a source, isa.effects' shift)."""
    return bool(sig.dsts) and sig.dsts[0].bits == 64 and effects(d.pcode).shift


# source codes that are scalar values (RDNA3 ISA, "Instruction restrictions": SGPR, VCC, M0,
# EXEC, SCC or the literal; inline constants and null are free)


def _t16_positions(sig: ValuSig, names: list[str], is_p: bool) -> tuple:
    """Positions among the text operands of the 16-bit ones, destination and sources."""
    if is_p:
        return ()
    t16 = {o.name for o in sig.dsts + sig.srcs if o.t16}
    return tuple(i for i, name in enumerate(names) if name in t16)


def _check_true16(d: InstrDef, plan: "ValuPlan", ops: list, true16: bool) -> None:
    """LLVM reads an instruction's 16-bit VGPR operands either all as halves (true16: v1.l,
    v2.h) or all as whole registers (v1, the low half): a mix is no instruction it has. In the
    true16 syntax (`true16`) a move of 16 raw bits names its halves (ValuPlan.halves_only)."""
    halves = plain = None
    for i in plan.t16_vgprs:
        v = ops[i]
        v = v.value if isinstance(v, Mod) else v
        if isinstance(v, Reg) and v.cls == "v":
            if v.half:
                halves = halves or v
            else:
                if true16 and plan.halves_only:
                    raise OperandError(f"{_name(d)}: {plan.names[i]} {v}: a move of 16 bits names the half it "
                                       f"moves: write {v}.l or {v}.h", v)
                plain = plain or v
    if halves is not None and plain is not None:
        raise OperandError(f"{_name(d)}: {plain}: write the 16-bit operands all with halves ({halves} and "
                           f"{plain}.l) or all without", plain)


_VCC = {32: Special("vcc_lo"), 64: Special("vcc")}
_NULL = Special("null")


# What a VALU source may be, beyond its width: _ANY register, constant or literal; _SCALAR an SGPR,
# constant or literal (a value uniform across the wave: written to one lane, permlane's selects);
# _LANE an SGPR or inline constant (v_readlane/v_writelane's lane number: LLVM takes no literal);
# _MASK a lane mask in SGPRs (carry-in, v_cndmask's select); _VGPR a VGPR only (a register
# number the instruction indexes, VGPR[lane][SRC0]; a source the instruction writes, v_swap's
# S0.b32 = tmp; WMMA's A and B matrices); _VGPR_OR_INLINE
# WMMA's C matrix.
_ANY, _SCALAR, _MASK, _VGPR, _VGPR_OR_INLINE, _LANE = range(6)
_TAKES_LITERAL = frozenset((_ANY, _SCALAR, _VGPR))


@lru_cache(maxsize=None)
def uniform_sources(d: InstrDef) -> frozenset:
    """Indices of the sources that must be an SGPR or constant, never a VGPR (_SCALAR, _LANE of
    _source_kinds: v_readlane's lane select, v_writelane's value and lane select), for the
    gfx9 dialect's assembler, which shares the class with this one."""
    kinds = _source_kinds(d, valu_signature(d), False)
    return frozenset(i for i, k in enumerate(kinds) if k in (_SCALAR, _LANE))


def _source_kinds(d: InstrDef, sig: ValuSig, is_wmma: bool) -> list[int]:
    """Each source's kind, from the pseudocode: a source it reads as a register number (SRCn,
    not Sn: v_movrels, v_readlane's VGPR[lane][SRC0]) or writes (isa.effects: v_swap_b32's
    S0.b32 = tmp, the register swapped per lane) is a VGPR; an instruction that addresses
    VGPR[lane][...] of other lanes than its own works on the wave, not per lane, and its other
    sources are uniform values (SGPRs or constants). (isa.facts: generated from the code;
    this lane's own VGPR[laneId][SRCn], RDNA4's fp8/bf8 conversions' source bytes, is a value,
    and LLVM 22 takes any source there: v_cvt_f32_fp8_e32 v1, s12.)"""
    if is_wmma:
        return [_VGPR, _VGPR, _VGPR_OR_INLINE][:len(sig.srcs)]
    kinds = [_MASK if o.is_mask else _ANY for o in sig.srcs]
    written = effects(d.pcode or "").writes
    indexed = register_number_sources(d) | {i for i in range(len(kinds)) if f"S{i}" in written}
    kinds = [_VGPR if i in indexed else k for i, k in enumerate(kinds)]
    if reads_other_lanes(d):
        lanes = lane_select_sources(d)
        kinds = [_VGPR if i in indexed else _LANE if i in lanes else _SCALAR if k == _ANY else k
                 for i, k in enumerate(kinds)]
    return kinds


@lru_cache(maxsize=None)
def source_codes(spec: Spec, fmt: str) -> frozenset:
    """Operand codes the source fields of `fmt` take in the ISA's operand tables."""
    tables = spec.operands
    fields = [rows for name, rows in tables.get(fmt, {}).items() if "SRC" in name] or \
             [rows for t in tables.values() for name, rows in t.items() if "SRC" in name]
    return frozenset(c for rows in fields for lo, hi, *_ in rows for c in range(lo, hi + 1))


_INTEGER_TYPES = frozenset((int, bool))
_BIT_VALUES = {limit: frozenset(range(limit + 1)) for limit in (1, 3, 7)}


def _bit_list(v, what, d, limit=1) -> list[int]:
    if (not isinstance(v, list) or not _INTEGER_TYPES.issuperset(map(type, v))
            or not _BIT_VALUES[limit].issuperset(v)):
        raise OperandError(f"{_name(d)}: {what} expects [a,b,...] with entries 0..{limit}, got {v}",
                           modifier=list_entry(v, what, lambda x: type(x) in _INTEGER_TYPES and x in _BIT_VALUES[limit]))
    return v


def _bits_value(bits: list[int]) -> int:
    """[b0, b1, ...] (checked by _bit_list) as an integer with entry i at bit i."""
    value = 0
    for i, b in enumerate(bits):
        value |= b << i
    return value


def _imm16(v, d, operand: str = "simm16", unsigned: bool = False) -> int:
    """SOPK's immediate is unsigned where its pseudocode reads it so (signature.sopk_immediate_unsigned);
    SOPP's where its style says (syntax.UNSIGNED_SOPP_STYLES); else a signed value or its 16 bits."""
    return simm16.number16(v, _name(d), unsigned or signature.sopk_immediate_unsigned(d), operand)


def _no_literal_offset(v, d):
    """`v`, a branch's offset: a label or a number, never lit(...) - the offset is SIMM16 itself,
    which is no source operand with a literal slot."""
    if isinstance(v, Lit):
        raise OperandError(f"{_name(d)}: a branch offset is a label or a 16-bit number, not lit(...)", v)
    return v


def _hwreg_value(v, d, family: str) -> int:
    return simm16.hwreg(v, _name(d), syntax.hwreg_input_names(family))


def _version_value(v, d) -> int:
    """s_version's operand: a number, a UC_VERSION_* name or an a|b|... of them."""
    if isinstance(v, BitOr):
        value = 0
        for part in v.parts:
            value |= _version_value(part, d)
        return value
    if isinstance(v, Attr):
        if v.name.upper() not in syntax.VERSION_NAMES:
            raise OperandError(f"{_name(d)}: unknown version name {v.name}; known: {', '.join(syntax.VERSION_NAMES)}",
                               v)
        return syntax.VERSION_NAMES[v.name.upper()]
    return v


def _sendmsg_value(v, d, family: str, bits: int = 16) -> int:
    """A message operand: sendmsg(...) or a number 0..0xffff (LLVM: "only 16-bit values are
    legal"), of which the field keeps its `bits` low bits (s_sendmsg_rtn's 8-bit SSRC0 takes
    0x3c00 as message 0, as LLVM encodes it). RDNA's messages are 8 bits and take no operation
    by name (simm16.message)."""
    plain, returning = syntax.sendmsg_names(family)
    names = {n: i for i, n in {**plain, **returning}.items()}
    return simm16.message(v, _name(d), names, 8, field_bits=bits)


def _delay_value(d, ops, mods) -> int:
    """s_delay_alu's fields, given as instid0(..) | instskip(..) | instid1(..) (bars between)."""
    if mods or len(ops) != 1:
        extra = next(iter(mods.values()), ops[-1] if ops else None)
        raise OperandError(f"s_delay_alu: expected instid0(...) | instskip(...) | instid1(...) joined by '|', "
                           f"got {len(ops) + len(mods)} operands", extra)
    return simm16.delay_alu(ops[0], "s_delay_alu", syntax.DELAY_INSTID, syntax.DELAY_SKIP)


def _depctr_value(d, ops, mods) -> int:
    calls = list(ops) + list(mods.values())
    mods.clear()
    if len(calls) == 1 and (type(calls[0]) is int or isinstance(calls[0], Lit)):
        return simm16.number16(calls[0], _name(d))
    return simm16.depctr(calls, _name(d), syntax.DEPCTR_FIELDS)


def _bitmask_swizzle(and_mask: int, or_mask: int = 0, xor_mask: int = 0) -> int:
    """Bit-mask mode (offset[15] = 0): lane' = ((lane & and) | or) ^ xor within groups of 32."""
    return and_mask | or_mask << 5 | xor_mask << 10


def _group_size(n, d, lo: int, hi: int) -> int:
    if not isinstance(n, int) or n & (n - 1) or not lo <= n <= hi:
        raise OperandError(f"{_name(d)}: swizzle group size {n} must be a power of two in {lo}..{hi}")
    return n


def _swizzle_bits(mask, d) -> int:
    if not isinstance(mask, str) or len(mask) != 5 or set(mask) - set("01pi"):
        raise OperandError(f"{_name(d)}: BITMASK_PERM takes a 5-character mask of 0, 1, p (preserve) and "
                           f"i (invert), most significant lane bit first; got {mask!r}")
    bit = {c: sum(1 << i for i, ch in enumerate(reversed(mask)) if ch == c) for c in "01pi"}
    return _bitmask_swizzle(bit["p"] | bit["i"], bit["1"], bit["i"])


def _in_range(x, lo: int, hi: int, what: str, d) -> int:
    if not isinstance(x, int) or not lo <= x <= hi:
        raise OperandError(f"{_name(d)}: swizzle {what} {x} is out of range {lo}..{hi}")
    return x


# LLVM's swizzle(MODE, ...) macros: mode -> (argument names, offset from the arguments)
_SWIZZLE_MODES = {
    "QUAD_PERM": (("lane0", "lane1", "lane2", "lane3"),
                  lambda d, *a: 0x8000 | sum(_in_range(x, 0, 3, "lane", d) << 2 * i for i, x in enumerate(a))),
    "BITMASK_PERM": (("mask",), lambda d, m: _swizzle_bits(m, d)),
    "BROADCAST": (("group_size", "lane"), lambda d, g, lane: _bitmask_swizzle(
        0x20 - _group_size(g, d, 2, 32), _in_range(lane, 0, g - 1, "lane", d))),
    "SWAP": (("group_size",), lambda d, g: _bitmask_swizzle(0x1f, 0, _group_size(g, d, 1, 16))),
    "REVERSE": (("group_size",), lambda d, g: _bitmask_swizzle(0x1f, 0, _group_size(g, d, 2, 32) - 1)),
    "FFT": (("mode",), lambda d, n: 0xe000 | _in_range(n, 0, 31, "FFT mode", d)),
    "ROTATE": (("direction", "count"), lambda d, r, n: 0xc000 | _in_range(r, 0, 1, "direction", d) << 10
               | _in_range(n, 0, 31, "rotate count", d) << 5),
}


def _swizzle_value(v, d) -> int:
    if not isinstance(v, Call) or v.name != "swizzle" or not v.args:
        raise OperandError(f"{_name(d)}: expected offset:swizzle(MODE, ...) or a number, got {v}")
    mode = getattr(v.args[0], "name", v.args[0])
    if mode not in _SWIZZLE_MODES:
        raise OperandError(f"{_name(d)}: unknown swizzle mode {mode}; known: {', '.join(_SWIZZLE_MODES)}")
    params, value = _SWIZZLE_MODES[mode]
    if len(v.args) - 1 != len(params):
        raise OperandError(f"{_name(d)}: swizzle({mode}, {', '.join(params)}) takes {len(params)} argument(s), "
                           f"got {len(v.args) - 1}")
    return value(d, *v.args[1:])


_OLD_SPELLINGS: dict[str, dict[str, str]] = {}


def old_spellings(spec: Spec) -> dict[str, str]:
    """Pre-gfx11 mnemonic -> gfx11 mnemonic for every old spelling LLVM still accepts on this
    target whose new instruction the target has: syntax.OLD_NAMES and the LDS renames
    (isa.mnemonics.LDS_ALIASES: ds_read2_b32 -> ds_load_2addr_b32)."""
    table = _OLD_SPELLINGS.get(spec.arch)
    if table is None:
        table = {old: new for old, new in {**syntax.OLD_NAMES, **LDS_ALIASES}.items() if spec.lookup(new)}
        _OLD_SPELLINGS[spec.arch] = table
    return table


def moves_a_lane_value(d: InstrDef) -> bool:
    """The code moves one lane's VGPR value to or from the scalar side (v_readlane/v_readfirstlane:
    D0 written whole from another lane's VGPR; v_writelane: a lane number taken from a source).
    The text syntax names such an instruction by its bare mnemonic in every encoding: a forced
    64-bit encoding suffix is refused, as the reference assembler does."""
    return lane_value_result(d) or bool(lane_select_sources(d))


def split_mnemonic(mn: str) -> tuple[str, str]:
    for suf in ("_e64_dpp", "_e32", "_e64", "_dpp", "_sdwa"):
        if mn.endswith(suf):
            return mn[: -len(suf)], suf[1:]
    return mn, ""


def order_candidates(defs: list[InstrDef], enc: str, roles) -> list[InstrDef]:
    """Encodings to try, shortest first (as LLVM picks for a plain mnemonic). A forced encoding
    narrows them as LLVM does: `_e32` excludes the 64-bit VALU encodings (any other instruction
    keeps its one encoding), `_e64` takes only those, `_dpp` the DPP form of the 32-bit one,
    `_e64_dpp` a DPP form of the 64-bit one. LLVM counts VINTERP among the 64-bit encodings."""
    e32 = [d for d in defs if d.format in roles.valu_e32]
    e64 = [d for d in defs if d.format in roles.valu_e64 or d.format == "VINTERP"]
    other = [d for d in defs if d not in e32 and d not in e64 and d.format != "VOPD"]
    if enc == "e32":
        return e32 + other
    if enc == "e64_dpp":        # (VINTERP has no DPP form: it reads other lanes of its quad already)
        return [d for d in e64 if d.format != "VINTERP"]
    if enc == "e64":
        return e64
    if enc == "dpp":
        return e32
    return e32 + e64 + other


# Families whose VOP3 DPP takes an SGPR or inline constant as src1 (LLVM 22 encodes them for
# gfx1150/gfx1151 and gfx1201, e.g. `v_cmp_lt_u32_e64_dpp s8, v0, s34 quad_perm:[2,1,0,0]`, and
# refuses them for gfx1100 with "invalid operand for instruction").
_DPP_SCALAR_SRC1 = frozenset(("rdna3.5", "rdna4"))

_DPP_CONTROLS = frozenset(("dpp8", "quad_perm", "row_shl", "row_shr", "row_ror", "row_mirror", "row_half_mirror",
                           "row_share", "row_xmask"))


def _check_dpp_allowed(d: InstrDef, mods: dict) -> None:
    """The manual's rule (isa.facts.no_dpp) when `d` in its encoding may not take a DPP word."""
    rule = no_dpp(d)
    if rule is not None:
        key = next((k for k in mods if k in _DPP_CONTROLS or k in _DPP16_MODIFIERS), None)
        raise OperandError(f"{_name(d)}: has no DPP form in the {d.format} encoding (the manual's DPP rule: "
                           f"{rule[0]}, page {rule[1]})", modifier=key)


def _check_forced_dpp(d: InstrDef, mods: dict, enc: str) -> None:
    """A `_dpp` / `_e64_dpp` mnemonic needs a DPP control and an encoding with a DPP form (else
    it is refused at the mnemonic, as LLVM's "dpp variant ... not supported"); `_e32` / `_e64`
    take none."""
    if enc in ("dpp", "e64_dpp") and no_dpp(d) is not None:
        rule = no_dpp(d)
        raise OperandError(f"{_name(d)}_{enc}: has no DPP form in the {d.format} encoding (the manual's DPP rule: "
                           f"{rule[0]}, page {rule[1]})", unknown=True)
    dpp = not _DPP_CONTROLS.isdisjoint(mods)
    if enc in ("dpp", "e64_dpp") and not dpp:
        raise OperandError(f"{_name(d)}_{enc}: a DPP instruction needs a DPP control (quad_perm:[..], row_shl:n, "
                           f"row_shr:n, row_ror:n, row_mirror, row_half_mirror, row_share:n, row_xmask:n or dpp8:[..])")
    if enc in ("e32", "e64") and dpp:
        key = next(k for k in mods if k in _DPP_CONTROLS)
        raise OperandError(f"{_name(d)}_{enc}: {key}: DPP controls need the _dpp or _e64_dpp encoding, not _{enc}",
                           modifier=key)


# What each modifier's value is: a number (offset:16), a list of numbers (op_sel:[0,1]) or a flag
# (glc); a wrong kind (offset:sym, glc:1) is refused before any encoder reads it.
_NUMBER, _LIST, _FLAG = "a number", "a list [a,b,...]", "a flag (no value)"
_FORMAT = "a number or [BUF_FMT_...]"
_MODIFIER_VALUES = {
    "format": _FORMAT,
    **dict.fromkeys(("offset", "offset0", "offset1", "row_shl", "row_shr", "row_ror", "row_share", "row_xmask",
                     "row_mask", "bank_mask", "bound_ctrl", "fi", "wait_vdst", "wait_exp", "wait_va_vdst", "wait_vm_vsrc", "index_key", "byte_sel",
                     "mul", "div"), _NUMBER),
    **dict.fromkeys(("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "quad_perm", "dpp8"), _LIST),
    **dict.fromkeys(("clamp", "glc", "slc", "dlc", "gds", "idxen", "offen", "tfe", "lds", "row_mirror",
                     "row_half_mirror", "nv", "unorm", "d16", "a16", "r128", "lwe", "done", "row_en"), _FLAG),
}


# The order LLVM's syntax gives the modifiers of each format (its matcher takes them in that
# order only): rank of each modifier; the cache-policy flags (glc slc dlc, th: scope: nv, and
# their negations noglc ...) are one operand LLVM reads in any order, so they share a rank
# (tests/test_dsl_asm_memflags.py sweeps the orders against LLVM 22).
_CPOL = ("glc", "slc", "dlc", "th", "scope", "nv")


def _ranks(*groups) -> dict:
    """{modifier: rank} from the groups in LLVM's order; "cpol" stands for the cache-policy flags."""
    return {m: i for i, g in enumerate(groups) for m in (_CPOL if g == "cpol" else g.split())}


_VALU_ORDER = {"op_sel": 0, "index_key": 0, "byte_sel": 0, "op_sel_hi": 1, "neg_lo": 2, "neg_hi": 3, "clamp": 4, "mul": 5, "div": 5,
               **dict.fromkeys(_DPP_CONTROLS, 6), "row_mask": 7, "bank_mask": 8, "bound_ctrl": 9, "fi": 10}
_FLAT_ORDER = _ranks("offset", "cpol")
_BUFFER_ORDER = _ranks("format", "idxen", "offen", "offset", "cpol", "tfe")
_IMAGE_ORDER = _ranks("dmask", "dim", "unorm", "cpol", "r128", "a16", "tfe", "lwe", "d16")
_DS_ORDER = _ranks("offset offset0", "offset1", "gds")
_MODIFIER_ORDER = {**dict.fromkeys(_VALU_FORMATS, _VALU_ORDER),
                   **dict.fromkeys(("FLAT", "GLOBAL", "SCRATCH", "VFLAT", "VGLOBAL", "VSCRATCH"), _FLAT_ORDER),
                   "SMEM": _ranks("offset", "cpol"), "DS": _DS_ORDER, "VDS": _DS_ORDER,
                   **dict.fromkeys(("MUBUF", "MTBUF", "VBUFFER"), _BUFFER_ORDER),
                   "VINTERP": {"clamp": 0, "op_sel": 1, "wait_exp": 2},
                   **dict.fromkeys(("EXP", "VEXPORT"), {"done": 0, "row_en": 1}),
                   **dict.fromkeys(("MIMG", "VIMAGE", "VSAMPLE"), _IMAGE_ORDER)}


def _check_modifier_order(d: InstrDef, mods: dict, family: str = "") -> None:
    order = _MODIFIER_ORDER.get(d.format)
    if order is None:
        return
    last = last_key = None
    for key in mods:
        rank = order.get(negated_flags.positive(key, family, d.format) or key)
        if rank is None:
            continue
        if last is not None and rank < last:
            ranked = [k for k in mods if (negated_flags.positive(k, family, d.format) or k) in order]
            raise OperandError(f"{_name(d)}: {key}: comes before {last_key} in LLVM's syntax "
                               f"({' '.join(sorted(ranked, key=lambda k: order[negated_flags.positive(k, family, d.format) or k]))})",
                               modifier=key)
        last, last_key = rank, key


def _place(e: OperandError, values, places) -> None:
    """Set e.index to the place among the operands of the source value it names (values[j] at
    places[j]; the value inside -x, |x|, neg(x) too), where it names one and none is set."""
    if e.index is None and e.operand is not None:
        e.index = next((at for v, at in zip(values, places)
                        if v is e.operand or isinstance(v, Mod) and v.value is e.operand), None)


def _base_sgprs(v, d: InstrDef, what: str):
    """A memory instruction's base address or resource: SGPRs (or TTMPs), not vcc/exec/null."""
    if isinstance(v, Special):
        raise OperandError(f"{_name(d)}: {what}: expected SGPRs (s[..]) holding an address or resource, "
                           f"got {v}", v)
    return v


def _spelled(val) -> str:
    """A modifier's value as written: [0,1], swizzle(QUAD_PERM), a name."""
    return f"[{','.join(map(_spelled, val))}]" if type(val) is list else "no value" if val is True else str(val)


def _check_modifier_values(d: InstrDef, mods: dict) -> None:
    for key, val in mods.items():
        want = _MODIFIER_VALUES.get(key)
        if want is None:
            continue
        if want is _NUMBER:
            ok = type(val) is int or key == "offset" and isinstance(val, Call) and offset_pattern(d)   # swizzle(...)
        elif want is _LIST:
            ok = type(val) is list
        elif want is _FORMAT:
            ok = type(val) is int or type(val) is list
        else:
            ok = val is True
        if not ok:
            # (LLVM: a name or call where a number goes is refused where the value is written)
            at = (key, "value") if want in (_NUMBER, _FORMAT) and type(val) is not list else key
            raise OperandError(f"{_name(d)}: {key}: expected {want}, got {_spelled(val)}", modifier=at)

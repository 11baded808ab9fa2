"""RDNA4's (gfx12) memory and graphics formats: LLVM text -> fields. The inverse of the decoder's
builders (instr_fields_memory.py, instr_fields_graphics.py): SMEM, VBUFFER, VFLAT/VGLOBAL/VSCRATCH with their cache policy (th:,
scope:) and 24-bit offsets (VIMAGE/VSAMPLE: encode_image.py, with MIMG; VEXPORT: encode_export.py, with EXP). The
operand layouts are the RDNA3 ones (signature.py); encode.py dispatches here by format (SMEM by
family, its name being RDNA3's too). Each handler is (encoder, d, fields, operands, modifiers)."""
from __future__ import annotations

from isa.memory_access import (memory_access, prefetch, scalar_base_registers, scalar_data, takes_sampler, typed_buffer,
                               value_dwords)

from . import syntax
from .syntax import smem_offset_default
from .field_values import buffer_format_codes
from .operands import Mod, OperandError, Special
from .signature import buffer_data_dwords, buffer_tfe, cache_control, flat_layout, image_widths, store_tfe_refusal
from .statement import Attr


def _name(d) -> str:
    return d.name.lower()


def _th_codes(d) -> dict[str, int]:
    """TH_* name -> TH field value for an instruction (atomics, stores and loads name it apart:
    isa.memory_access's direction)."""
    direction = memory_access(d).direction
    codes = dict.fromkeys(syntax.TH_DEFAULT_NAMES, 0)
    if direction == "atomic":
        return codes | {"TH_ATOMIC_RETURN": 1, "TH_ATOMIC_RT_RETURN": 1, "TH_ATOMIC_NT": 2, "TH_ATOMIC_NT_RETURN": 3,
                        "TH_ATOMIC_CASCADE_RT": 4, "TH_ATOMIC_CASCADE_NT": 6}
    names = syntax.TH_STORE_NAMES if direction == "store" else syntax.TH_LOAD_NAMES
    codes |= {n: i for i, n in enumerate(names) if n}
    codes[names[3].rsplit("_", 1)[0] + "_BYPASS"] = 3     # TH_*_BYPASS: code 3 (printed with SCOPE_SYS)
    return codes


def cache_policy(d, F, mods) -> None:
    """th:NAME|n and scope:NAME|n -> the TH and SCOPE fields (both 0 when not written)."""
    written = [key for key in mods if key in ("th", "scope")]
    th, scope = mods.pop("th", 0), mods.pop("scope", 0)
    bypass = isinstance(th, Attr) and th.name.endswith("_BYPASS")
    th_text = th.name if isinstance(th, Attr) else th
    if isinstance(th, Attr):
        codes = _th_codes(d)
        if th.name not in codes:
            raise OperandError(f"{_name(d)}: th:{th.name} is not a cache policy of this instruction; "
                               f"known: {', '.join(codes)}", modifier=("th", "value"))     # at the name, as LLVM
        th = codes[th.name]
    if isinstance(scope, Attr):
        names = (syntax.SCOPE_DEFAULT_NAME,) + syntax.SCOPE_NAMES[1:]
        if scope.name not in names:
            raise OperandError(f"{_name(d)}: scope:{scope.name}; known: {', '.join(names)}",
                               modifier=("scope", "value"))
        scope = names.index(scope.name)
    for key, value, limit in (("th", th, 7), ("scope", scope, 3)):
        if type(value) is not int or not 0 <= value <= limit:
            raise OperandError(f"{_name(d)}: {key}:{value} is out of range 0..{limit}", modifier=key)
    if bypass != (th == 3 and scope == 3) and isinstance(th_text, str):     # (a number: the DSL's own value)
        # TH 3 at SCOPE_SYS is what the names *_BYPASS stand for (syntax.py): the other names of
        # TH 3 (LU, WB, NT_RETURN) refused there, BYPASS refused elsewhere (LLVM 22: "scope and th
        # combination is not valid", at the first of the two written), once the rest is encoded
        # (Encoder.encode_one raises it: LLVM checks the pair after the operands and flags)
        F.th_scope_error = OperandError(f"{_name(d)}: th:{th_text} with scope:{scope}: " + (
            "a BYPASS policy is TH 3 at system scope (scope:SCOPE_SYS)" if bypass else
            f"TH {th} at system scope is written th:TH_*_BYPASS"), modifier=written[0])
    F["TH"], F["SCOPE"] = th, scope


def _ioffset(enc, d, off, signed: bool, unsigned_bits: int | None = None) -> int:
    """An immediate offset in IOFFSET: signed, or unsigned of `unsigned_bits` (default: the field's)."""
    bits = enc._layout[d.format][0]["IOFFSET"][1]
    lo, hi = (-(1 << bits - 1), (1 << bits - 1) - 1) if signed else (0, (1 << (unsigned_bits or bits)) - 1)
    if type(off) is not int or not lo <= off <= hi:
        raise OperandError(f"{_name(d)}: offset:{off} is out of range {lo}..{hi}", modifier="offset")
    return off & ((1 << bits) - 1)


def _smem_offset(enc, d, off) -> int:
    """SMEM's immediate offset: signed, but a buffer's (a 4-register resource base) unsigned and one
    bit narrower than the field (LLVM 22: "expected a 23-bit unsigned offset for buffer ops")."""
    buffer = scalar_base_registers(d) == 4
    bits = enc._layout[d.format][0]["IOFFSET"][1]
    return _ioffset(enc, d, off, not buffer, bits - 1)


def smem(enc, d, F, ops, mods):
    mn = _name(d)
    if cache_control(d):      # s_dcache_inv: no operands
        enc._arity(d, ops, [])
        return
    null = enc.traits.null
    sbase_n = scalar_base_registers(d)
    fetch = prefetch(d)
    if fetch:      # [sbase,] offset, soffset, length (no sbase relative to the PC)
        names = ([] if fetch == "pc" else ["sbase"]) + ["offset", "soffset", "length"]
        ops = smem_offset_default(ops, names)
        if len(ops) != len(names):
            enc._arity(d, ops, names)
        if len(names) == 4:
            F["SBASE"] = enc.sreg_code(_sbase(ops[0], d, sbase_n), F, "sbase", sbase_n) >> 1
        off, soff, length = ops[-3:]
        F["IOFFSET"] = _smem_offset(enc, d, off)
        F["SOFFSET"] = enc.sreg_code(soff, F, "soffset")
        if type(length) is not int or not 0 <= length < 1 << enc._layout[d.format][0]["SDATA"][1]:
            raise OperandError(f"{mn}: length: expected a number 0..127, got {length}", length)
        F["SDATA"] = length
        cache_policy(d, F, mods)
        return
    ops = smem_offset_default(ops, ["sdata", "sbase", "offset"])
    if len(ops) != 3:
        enc._arity(d, ops, ["sdata", "sbase", "offset"])
    if scalar_data(d) == "immediate":     # s_atc_probe's mode
        if type(ops[0]) is not int or not 0 <= ops[0] <= 127:
            raise OperandError(f"{mn}: expected a number 0..127, got {ops[0]}", ops[0])
        F["SDATA"] = ops[0]
    else:
        F["SDATA"] = enc.smem_data(ops[0], F, value_dwords(d))
    F["SBASE"] = enc.sreg_code(_sbase(ops[1], d, sbase_n), F, "sbase", sbase_n) >> 1
    third = ops[2]
    off = mods.pop("offset", None)
    if isinstance(third, int):
        if off is not None:
            raise OperandError(f"{mn}: give the offset once (third operand or offset:)")
        off, soff = third, null
    else:
        soff = enc.sreg_code(third, F, "soffset")
    F["IOFFSET"] = _smem_offset(enc, d, off or 0)
    F["SOFFSET"] = soff
    cache_policy(d, F, mods)


def _sbase(v, d, n: int):
    """SMEM's base: a buffer's resource (4 SGPRs) is no special register (LLVM 22 refuses null
    there, as it does not as an address)."""
    if n == 4 and isinstance(v, Special):
        raise OperandError(f"{_name(d)}: sbase: expected SGPRs (s[..]) holding a buffer resource, got {v}", v)
    return v


_FLAT_FIELDS = {"ADDR": "VADDR", "DATA": "VSRC"}


def flat(enc, d, F, ops, mods):
    """VFLAT / VGLOBAL / VSCRATCH: the segment is the encoding; an atomic returns data when
    its TH has the return bit, so the cache policy is read first."""
    if cache_control(d):      # global_inv, global_wb, global_wbinv: only the scope they act on
        enc._arity(d, ops, [])
        cache_policy(d, F, mods)
        F["SADDR"] = enc.traits.null        # no address: SADDR off, as LLVM encodes it
        return
    th_written = "th" in mods
    cache_policy(d, F, mods)
    returns = memory_access(d).direction != "atomic" or bool(F["TH"] & 1)
    layout = flat_layout(d, returns)
    no_return = None
    if not returns and len(ops) == len(flat_layout(d, True)) != len(layout):
        # an atomic written with its result (vdst) but a policy that returns none: LLVM reads the
        # returning form and refuses the policy once the rest is checked (at th:, else the mnemonic)
        layout = flat_layout(d, True)
        no_return = OperandError(f"{_name(d)}: vdst {ops[0]}: an atomic written with its result must use "
                                 f"th:TH_ATOMIC_RETURN or th:TH_ATOMIC_NT_RETURN (the TH bit that returns the "
                                 f"value)", modifier="th" if th_written else None, at_mnemonic=not th_written)
    if len(ops) != len(layout):
        enc._arity(d, ops, [n for n, _, _ in layout])
    null = enc.traits.null
    F["SADDR"] = null
    for (name, field, n), v in zip(layout, ops):
        field = _FLAT_FIELDS.get(field, field)
        if name == "saddr":
            F["SADDR"] = enc.flat_saddr(v, F, n, any(o == "vaddr" for o, _, _ in layout))
        elif name == "vaddr" and d.format == "VSCRATCH":
            if not (isinstance(v, Special) and v.name == "off"):
                F["VADDR"], F["SVE"] = enc.vgpr(v, F, name), 1
        elif name == "vaddr" and d.format == "VGLOBAL":
            F["VADDR"] = enc.global_vaddr(v, ops[-1], F)
        else:
            F[field] = enc.vgpr(v, F, name, n)
    F["IOFFSET"] = _ioffset(enc, d, mods.pop("offset", 0), True)
    if no_return is not None and not mods:      # (a modifier left, scale_offset or nv, is refused first)
        raise no_return


def buffer(enc, d, F, ops, mods):
    mn = _name(d)
    if cache_control(d):
        enc._arity(d, ops, [])
        return
    tfe = buffer_tfe(d, mods, ops[0] if ops else None)
    idxen, offen = bool(mods.pop("idxen", False)), bool(mods.pop("offen", False))
    if len(ops) != 4:
        enc._arity(d, ops, ["vdata", "vaddr", "rsrc", "soffset"])
    F["VDATA"] = enc.vgpr(ops[0], F, "vdata", buffer_data_dwords(d, {"TFE": tfe}))
    if isinstance(ops[1], Special) and ops[1].name == "off":
        if idxen or offen:
            raise OperandError(f"{mn}: vaddr is off but idxen/offen asks for an address VGPR", ops[1])
    elif not (idxen or offen):
        raise OperandError(f"{mn}: vaddr: without idxen or offen the address VGPR is unused; write off", ops[1])
    else:
        F["VADDR"] = enc.vgpr(ops[1], F, "vaddr", 2 if idxen and offen else 1)
    if isinstance(ops[2], Special):
        raise OperandError(f"{mn}: rsrc: expected SGPRs (s[..]) holding a resource, got {ops[2]}", ops[2])
    F["RSRC"] = enc.sreg_code(ops[2], F, "rsrc", 4)
    if isinstance(ops[3], Mod):
        raise OperandError(f"{mn}: soffset: takes no modifiers, got {ops[3]}", ops[3])
    F["SOFFSET"] = enc.sreg_code(ops[3], F, "soffset")
    fmtv = mods.pop("format", 1) if typed_buffer(d) else 1    # buffer_*: the manual's default
    if isinstance(fmtv, list):
        names = buffer_format_codes(enc.spec)
        if len(fmtv) != 1 or getattr(fmtv[0], "name", None) not in names:
            raise OperandError(f"{mn}: unknown format {fmtv}", modifier="format")
        fmtv = names[fmtv[0].name]
    F["FORMAT"] = fmtv
    F.update(IDXEN=int(idxen), OFFEN=int(offen), TFE=int(tfe))
    wrong = tfe and store_tfe_refusal(d)
    if wrong and not set(mods) - {"offset", "th", "scope"}:     # LLVM 22 refuses a store's tfe once its
        raise wrong                         # operands match, after a modifier it does not take (nv)
    F["IOFFSET"] = _ioffset(enc, d, mods.pop("offset", 0), False)
    cache_policy(d, F, mods)


HANDLERS = {"VFLAT": flat, "VGLOBAL": flat, "VSCRATCH": flat, "VBUFFER": buffer}
HANDLERS_BY_FAMILY = {"rdna4": {"SMEM": smem}}

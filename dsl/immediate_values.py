"""The operand values of immediates LLVM writes as expressions, from their bits: s_waitcnt's
counters, s_delay_alu's fields, s_waitcnt_depctr's counters, hwreg(...), sendmsg(...),
s_version's UC_VERSION names and ds_swizzle_b32's swizzle(...) modes, as the text parser reads
them (Call, Attr, BitOr, or a plain number where LLVM prints one). instr_fields.py builds the
Instr of a decoded instruction from these; the names and layouts are syntax.py's (LLVM's
spellings) and the isa tables' (the waitcnt layout)."""
from __future__ import annotations

from functools import lru_cache

from isa import Spec

from . import syntax, syntax_gfx9 as g9
from .statement import Attr, BitOr, Call


def waitcnt(spec: Spec, imm: int) -> list[Call]:
    """vmcnt/expcnt/lgkmcnt(N) of the counters not at their maximum (no wait); all three when
    none is waited on."""
    counts = [(name, imm >> lo & top, top) for name, lo, top in _waitcnt_layout(spec)]
    waited = [Call(name, (val,)) for name, val, top in counts if val != top]
    return waited or [Call(name, (val,)) for name, val, _ in counts]


@lru_cache(maxsize=None)
def _waitcnt_layout(spec: Spec) -> tuple[tuple[str, int, int], ...]:
    """(counter, low bit, maximum) of s_waitcnt's vmcnt, expcnt and lgkmcnt (the isa waitcnt table)."""
    fields = {name: (hi, lo) for name, hi, lo in spec.tables.get("waitcnt") or syntax.WAITCNT_LAYOUT_GFX11}
    return tuple((name, fields[key][1], (1 << (fields[key][0] - fields[key][1] + 1)) - 1)
                 for name, key in (("vmcnt", "VM"), ("expcnt", "EXP"), ("lgkmcnt", "LGKM")))


def delay_alu(imm: int):
    """instid0(..) | instskip(..) | instid1(..) of the fields that are set (0 for none); the
    number where a field has no name."""
    id0, skip, id1 = imm & 0xf, imm >> 4 & 7, imm >> 7 & 0xf
    if id0 >= len(syntax.DELAY_INSTID) or id1 >= len(syntax.DELAY_INSTID) or skip >= len(syntax.DELAY_SKIP):
        return imm
    parts = [Call("instid0", (Attr(syntax.DELAY_INSTID[id0]),))] if id0 else []
    if skip:
        parts.append(Call("instskip", (Attr(syntax.DELAY_SKIP[skip]),)))
    if id1:
        parts.append(Call("instid1", (Attr(syntax.DELAY_INSTID[id1]),)))
    return 0 if not parts else parts[0] if len(parts) == 1 else BitOr(tuple(parts))


def depctr(imm: int):
    """The depctr_*(N) counters not at their maximum, or all of them when every one is (LLVM
    writes the value out in full rather than leave the operand empty); the number when bits
    outside the known fields are set."""
    known, out, every = 0, [], []
    for name, lo, width in syntax.DEPCTR_FIELDS:
        known |= ((1 << width) - 1) << lo
        val = imm >> lo & ((1 << width) - 1)
        every.append(Call(name, (val,)))
        if val != (1 << width) - 1:
            out.append(every[-1])
    return imm if imm & ~known & 0xffff else out or every


def hwreg(imm: int, family: str | None) -> Call:
    """hwreg(name) for the whole register, hwreg(name, offset, size) for a bit range (the id
    as a number where LLVM has no name for it)."""
    rid, offset, size = imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1
    name = syntax.hwreg_names(family).get(rid)
    reg = Attr(name) if name else rid
    return Call("hwreg", (reg,) if (offset, size) == (0, 32) else (reg, offset, size))


def sendmsg(imm: int, family: str | None):
    """sendmsg(name) for a named message (the low byte; other bits ignored), sendmsg(id, 0, 0)
    for an unnamed one with the other bits clear, else the number."""
    msg = imm & 0xff
    names, rtn_names = syntax.sendmsg_names(family)
    name = names.get(msg) or rtn_names.get(msg)
    if name:
        return Call("sendmsg", (Attr(name),))
    return Call("sendmsg", (msg, 0, 0)) if imm == msg else imm


def version(imm: int):
    """s_version's UC_VERSION_* name (or number) or-ed with its flag bits, or the number when
    other bits are set."""
    if imm & ~0xe0ff:
        return imm
    name = syntax.UC_VERSION_NAMES.get(imm & 0xff)
    expr = Attr(name) if name else imm & 0xff
    for bit, flag in sorted(syntax.UC_VERSION_FLAGS.items()):
        if imm >> bit & 1:
            expr = BitOr((expr, Attr(flag)))
    return expr


def swizzle(off: int):
    """ds_swizzle_b32's offset as swizzle(MODE, ...) (the manual's modes: offset[15] = 0 bit
    masks, 0x80xx quad permute, 0xc000 rotate, 0xe000 FFT), or the number."""
    if off & 0xff00 == 0x8000:
        return Call("swizzle", (Attr("QUAD_PERM"), off & 3, off >> 2 & 3, off >> 4 & 3, off >> 6 & 3))
    if off & 0xe000 == 0xe000:
        return Call("swizzle", (Attr("FFT"), off & 0x1f))
    if off & 0xe000 == 0xc000:
        return Call("swizzle", (Attr("ROTATE"), off >> 10 & 1, off >> 5 & 0x1f))
    if off & 0x8000:
        return off
    and_mask, or_mask, xor_mask = off & 0x1f, off >> 5 & 0x1f, off >> 10 & 0x1f
    if and_mask == 0x1f and or_mask == 0 and xor_mask and xor_mask & (xor_mask - 1) == 0:
        return Call("swizzle", (Attr("SWAP"), xor_mask))
    if and_mask == 0x1f and or_mask == 0 and xor_mask and (xor_mask + 1) & xor_mask == 0:
        return Call("swizzle", (Attr("REVERSE"), xor_mask + 1))
    group = 0x20 - and_mask
    if 1 < group and group & (group - 1) == 0 and or_mask < group and xor_mask == 0:
        return Call("swizzle", (Attr("BROADCAST"), group, or_mask))
    # per lane-id bit: what it becomes for an id bit of 0 and of 1 -> 0, 1, p(reserve), i(nvert)
    bits = ""
    for i in range(4, -1, -1):
        lo = (or_mask ^ xor_mask) >> i & 1
        hi = ((and_mask | or_mask) ^ xor_mask) >> i & 1
        bits += str(lo) if lo == hi else "p" if lo == 0 else "i"
    return Call("swizzle", (Attr("BITMASK_PERM"), bits))


# ---------------------------------------------------------------- the gfx9 dialect (CDNA)


def waitcnt_gfx9(spec: Spec, imm: int) -> list[Call]:
    """gfx9's s_waitcnt counters: vmcnt's six bits split in two fields (the isa waitcnt table)."""
    fields = {name: (hi, lo) for name, hi, lo in spec.tables["waitcnt"]}
    vm = imm & 0xf | (imm >> fields["VM_HI"][1] & 3) << 4
    counts = [("vmcnt", vm, 63), ("expcnt", imm >> 4 & 7, 7), ("lgkmcnt", imm >> 8 & 0xf, 15)]
    waited = [Call(n, (v,)) for n, v, top in counts if v != top]
    return waited or [Call(n, (v,)) for n, v, _ in counts]


def sendmsg_gfx9(imm: int):
    """gfx9's sendmsg(message[, operation[, stream]]): the GS messages with their operation and
    stream, MSG_SYSMSG with its operation, the others bare; numbers where LLVM has no name."""
    msg, op, stream = imm & 0xf, imm >> 4 & 7, imm >> 8 & 3
    name = g9.SENDMSG_NAMES.get(msg)
    if name in ("MSG_GS", "MSG_GS_DONE"):
        if op in g9.GS_OPS and (op != 0 or name == "MSG_GS_DONE") and (op != 0 or stream == 0):
            return Call("sendmsg", (Attr(name), Attr(g9.GS_OPS[op])) + ((stream,) if op else ()))
    elif name == "MSG_SYSMSG":
        if op in g9.SYSMSG_OPS and stream == 0:
            return Call("sendmsg", (Attr(name), Attr(g9.SYSMSG_OPS[op])))
    elif name and op == 0 and stream == 0:
        return Call("sendmsg", (Attr(name),))
    return Call("sendmsg", (msg, op, stream)) if imm == msg | op << 4 | stream << 8 else imm


def gpr_idx(imm: int):
    """gpr_idx(SRC0,...,DST) of the index modes set, or the number above 15."""
    if imm > 15:
        return imm
    return Call("gpr_idx", tuple(Attr(n) for i, n in enumerate(g9.GPR_IDX_MODES) if imm >> i & 1))


def hwreg_gfx9(spec: Spec, imm: int) -> Call:
    """hwreg(...) with gfx9's register names (the manual's table, LLVM's prefixes)."""
    rid, offset, size = imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1
    names = {code: name for code, name, _ in spec.tables["hwreg"] if name != "reserved"}
    name = g9.HWREG_EXTRA.get(rid) or names.get(rid)
    if name:
        name = g9.hwreg_text_name(name)
    reg = Attr(name) if name else rid
    return Call("hwreg", (reg,) if (offset, size) == (0, 32) else (reg, offset, size))

"""Instruction-word fields under the names the machine reads.

RDNA4's manual encodes the machine RDNA3 has with other field names and widths: VFLAT /
VGLOBAL / VSCRATCH name the address VGPR VADDR (RDNA3: ADDR) and the data VGPR VSRC (DATA);
every memory format has a 24-bit IOFFSET (RDNA3: OFFSET of 13, 21 or 12 bits); VBUFFER's
RSRC is the SGPR number of the V# (RDNA3's SRSRC counts groups of four); an atomic returns
its pre-op value when TH bit 0 is set (TH_ATOMIC_RETURN; RDNA3: GLC); VOP3's clamp bit is
CM (CLMP). GFX9 (CDNA3 manual 9.1.10: "For atomics, SC0 indicates whether or not to return
the pre-op memory value") names RDNA3's GLC bit SC0. `machine_fields` adds the machine's names beside the encoding's own (which stay,
so disassembly text is unchanged), and `immediate_offset` reads the instruction offset of a
memory format with its sign.
"""
from __future__ import annotations

from dataclasses import replace

from .machine_operands import sign_extend

# format -> {machine's name: encoding's field} (plain renames)
_RENAMES = {
    "VFLAT": {"ADDR": "VADDR", "DATA": "VSRC"},
    "VGLOBAL": {"ADDR": "VADDR", "DATA": "VSRC"},
    "VSCRATCH": {"ADDR": "VADDR", "DATA": "VSRC"},
    "VOP3": {"CLMP": "CM"}, "VOP3SD": {"CLMP": "CM"}, "VOP3P": {"CLMP": "CM"},
}
# formats whose TH field's bit 0 asks an atomic for its pre-op value (the manual's
# TH_ATOMIC_RETURN), as RDNA3's GLC bit does
_TH_RETURNS = frozenset({"VFLAT", "VGLOBAL", "VSCRATCH", "VBUFFER"})

# the FLAT segment a flat-role format addresses (RDNA3 and RDNA4 format names)
SEGMENTS = {"FLAT": "flat", "GLOBAL": "global", "SCRATCH": "scratch",
            "VFLAT": "flat", "VGLOBAL": "global", "VSCRATCH": "scratch"}


class FieldError(ValueError):
    """An instruction word the machine cannot read (names the field and its value)."""


def scaled_mfma(prefix, mfma, scaled_names):
    """One instruction from a load-scale prefix and the MFMA after it (CDNA4 7.2): the MFMA
    with the pair's size and, in `extra`, the prefix's scale sources SCALE_SRC0 (A) and
    SCALE_SRC1 (B) and each one's byte select {OP_SEL_HI[i], OP_SEL[i]} (SCALE_A_SEL,
    SCALE_B_SEL). `scaled_names`: the MFMAs that take scales (the F8F6F4 forms)."""
    if mfma.name not in scaled_names:
        raise FieldError(f"{prefix.name.lower()} must be followed by one of "
                         f"{', '.join(sorted(n.lower() for n in scaled_names))}, not {mfma.name.lower()}")
    f = prefix.fields
    sel = [((f["OPSEL_HI"] >> i) & 1) << 1 | ((f["OPSEL"] >> i) & 1) for i in (0, 1)]
    extra = {**mfma.extra, "SCALE_SRC0": f["SRC0"], "SCALE_SRC1": f["SRC1"],
             "SCALE_A_SEL": sel[0], "SCALE_B_SEL": sel[1]}
    return replace(mfma, size=prefix.size + mfma.size, extra=extra)


def machine_fields(inst):
    """`inst` (dsl.decode.Instruction) with the machine's field names added, or itself when its
    format needs none."""
    fmt = inst.fmt.name
    renames = _RENAMES.get(fmt)
    extra = {}
    if renames:
        extra.update({name: inst.fields[field] for name, field in renames.items() if field in inst.fields})
    if fmt in _TH_RETURNS and "TH" in inst.fields:
        extra["GLC"] = inst.fields["TH"] & 1
    if "SC0" in inst.fields and "GLC" not in inst.fields:      # GFX9 vector memory formats
        extra["GLC"] = inst.fields["SC0"]
    if fmt == "VBUFFER" and "RSRC" in inst.fields:
        rsrc = inst.fields["RSRC"]
        if rsrc % 4:
            raise FieldError(f"RSRC s{rsrc}: a buffer resource starts at an SGPR that is a multiple of 4")
        extra["SRSRC"] = rsrc // 4
    if not extra:
        return inst
    return replace(inst, fields={**inst.fields, **extra})


def immediate_offset(fmt: str, fields: dict) -> int:
    """The instruction offset of a memory instruction in bytes: RDNA4's 24-bit IOFFSET (signed
    but for VBUFFER, whose offset is unsigned), RDNA3's OFFSET (FLAT: 12 bits, GLOBAL and
    SCRATCH 13 bits signed, SMEM 21 bits signed, MUBUF/MTBUF 12 bits)."""
    if "IOFFSET" in fields:
        value = fields["IOFFSET"]
        return value & 0xFFFFFF if fmt == "VBUFFER" else sign_extend(value, 24)
    value = fields["OFFSET"]
    if fmt == "FLAT":
        return value & 0xFFF        # 12-bit unsigned: the field's MSB (bit 12) is ignored
    if fmt in ("GLOBAL", "SCRATCH"):
        return sign_extend(value, 13)
    if fmt == "SMEM":
        return sign_extend(value, 21)
    return value

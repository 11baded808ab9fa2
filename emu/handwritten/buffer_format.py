"""BUFFER_*_FORMAT_* and TBUFFER_*_FORMAT_*: loads and stores with data-format conversion.
The manual gives these no usable pseudocode (`VDATA.x = MEM[..].X` with an undefined
ConvertToFormat), so they follow its prose (RDNA3 manual, printed pages):

- data formats: Table 52 "Buffer and Image Data Formats" (p. 105), `isa` table `data_formats`;
  the format comes from the instruction for MTBUF and from V#[113:108] otherwise (Table 42, p. 86)
- VGPR layout: Table 41 (p. 84-85): one dword per component, or with D16 two 16-bit
  components per dword (D16_HI: the high half only); "float or normalized data is returned
  as floats; integer formats are returned as integers" (p. 84)
- D16: "conversion of float32 to float16 uses truncation; other formats round to nearest
  even" (9.3.1, p. 87)
- component count mismatches: load X of a 4-channel format reads all and returns X; a
  1-channel format read as XYZW returns the others per DST_SEL (9.3.2, p. 87)
- DST_SEL (V#[107:96], Table 47, p. 92: 0 = 0, 1 = 1, 4..7 = R, G, B, A) picks each loaded
  component for MUBUF; MTBUF uses identity (X000 .. XYZW, Table 42)
- range check all or nothing per lane; out-of-range loads return 0 except DST_SEL = 1
  components, which return 1 (p. 89, Table 46 notes)

Modelled: the formats whose channels (the generated table's channel widths) are equal 8, 16 or
32 bits (ids 1-29, 42-63: UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT). Conversions the manual names but does not define are
the usual ones: UNORM n bits <-> [0, 1] as v / (2^n - 1), SNORM <-> [-1, 1] as
max(v / (2^(n-1) - 1), -1), SCALED as the integer's value; stores round to nearest even and
saturate (NaN -> 0), integer stores keep the low bits. Packed formats (10_11_11, 2_10_10_10,
5_6_5, ...), sRGB and block formats raise an error naming the format.
"""
from __future__ import annotations

import numpy as np

from ..semantics import SemanticsError

# the number formats whose conversions are modelled, and the channel widths
NUMBER_FORMATS = ("UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "FLOAT")
_CHANNEL_BITS = (8, 16, 32)
_FLOAT_KINDS = ("UNORM", "SNORM", "USCALED", "SSCALED", "FLOAT")


def layout(fmt: int, formats: dict) -> tuple[int, int, str]:
    """(channels, bits per channel, number format) of data format `fmt`, from its generated
    (name, channel bits, number format) entry, or an error naming it."""
    name, bits, kind = formats.get(fmt, ("not in the manual's table", (), None))
    if name == "INVALID":
        raise SemanticsError("the instruction's data format is 0 (INVALID)")
    if kind not in NUMBER_FORMATS or len(set(bits)) != 1 or bits[0] not in _CHANNEL_BITS or \
            (kind == "FLOAT" and bits[0] == 8):
        raise SemanticsError(f"buffer data format {fmt} ({name}) is not modelled "
                             f"(only equal 8/16/32-bit channels: UNORM SNORM USCALED SSCALED UINT SINT FLOAT)")
    return len(bits), bits[0], kind


# ------------------------------------------------------------------ memory -> register
def _decode(raw: np.ndarray, bits: int, kind: str) -> np.ndarray:
    """Channel bits -> float64 (float kinds) or int64 (integer kinds) value."""
    raw = raw.astype(np.int64)
    signed = raw - np.where(raw >> (bits - 1) & 1, 1 << bits, 0)
    if kind == "UNORM":
        return raw / float((1 << bits) - 1)
    if kind == "SNORM":
        return np.maximum(signed / float((1 << (bits - 1)) - 1), -1.0)
    if kind == "USCALED":
        return raw.astype(np.float64)
    if kind == "SSCALED":
        return signed.astype(np.float64)
    if kind == "FLOAT":
        return (raw.astype(np.uint16).view(np.float16) if bits == 16 else raw.astype(np.uint32).view(np.float32)) \
            .astype(np.float64)
    return signed if kind == "SINT" else raw


def _to_register(value: np.ndarray, kind: str, bits: int, d16: bool) -> np.ndarray:
    """A decoded channel as the bits a VGPR (or with D16 a 16-bit half) receives."""
    if kind not in _FLOAT_KINDS:
        return (value & (0xFFFF if d16 else 0xFFFFFFFF)).astype(np.uint32)
    if not d16:
        return value.astype(np.float32).view(np.uint32)
    if kind == "FLOAT" and bits == 32:        # f32 -> f16 truncates (p. 87)
        from ..rtlib import f32_to_f16_rtz
        return f32_to_f16_rtz(value.astype(np.float32)).view(np.uint16).astype(np.uint32)
    return value.astype(np.float16).view(np.uint16).astype(np.uint32)     # round to nearest even


def _one(kind: str, d16: bool) -> int:
    """The constant DST_SEL = 1 gives: 1.0 in the register's float type, or integer 1."""
    if kind not in _FLOAT_KINDS:
        return 1
    return 0x3C00 if d16 else 0x3F800000


# ------------------------------------------------------------------ register -> memory
def _from_register(reg: np.ndarray, kind: str, bits: int, d16: bool) -> np.ndarray:
    """A component's register bits -> the channel's bits in memory (uint64)."""
    reg = reg.astype(np.uint64)
    if kind not in _FLOAT_KINDS or (kind == "FLOAT" and bits == (16 if d16 else 32)):   # same width: bits as they are
        return reg & np.uint64((1 << bits) - 1)
    f = (reg.astype(np.uint16).view(np.float16) if d16 else reg.astype(np.uint32).view(np.float32)).astype(np.float64)
    if kind == "FLOAT":
        out = f.astype(np.float16).view(np.uint16) if bits == 16 else f.astype(np.float32).view(np.uint32)
        return out.astype(np.uint64)
    top = (1 << (bits - 1)) - 1                 # largest signed value
    lo, hi, scale = {"UNORM": (0, (1 << bits) - 1, (1 << bits) - 1), "SNORM": (-top, top, top),
                     "USCALED": (0, (1 << bits) - 1, 1), "SSCALED": (-top - 1, top, 1)}[kind]
    with np.errstate(invalid="ignore"):
        f = np.clip(f, -1.0, 1.0) * scale if kind == "SNORM" else f * scale
    n = np.where(np.isnan(f), 0, np.clip(np.rint(f), lo, hi)).astype(np.int64)
    return (n & ((1 << bits) - 1)).astype(np.uint64)


# ------------------------------------------------------------------ the semantics
def _per_format(ctx, fn):
    """Run fn(waves, channels, bits, kind) per distinct data format in the batch (per wave:
    MUBUF's format comes from each wave's V#)."""
    formats = np.asarray(ctx.get("FORMAT")).reshape(-1)
    names = ctx.get("FORMATS")
    for fmt in np.unique(formats):
        fn(formats == fmt, *layout(int(fmt), names))


def load(name: str, count: int, d16: bool, hi: bool):
    """The semantic of a format-converting load of `count` components (16-bit halves where d16,
    the one component in the high half where hi: the format_conversion fact)."""
    def run(ctx):
        addr, sel_all = ctx.get("ADDR", name), np.asarray(ctx.get("DST_SEL", name))
        comps = np.zeros(ctx.shape + (count,), np.uint32)

        def per_format(waves, channels, bits, kind):
            step, active = bits // 8, ctx.active & waves[:, None]
            ok = active & ctx.mem.in_range(addr, channels * step)    # all or nothing: the channels
            raws = [ctx.mem.device.load(addr + np.uint64(c * step), step, ok) for c in range(channels)]
            # 32-bit data is not converted unless D16 asks for 16 bits (p. 84), f16 into a D16 half neither
            unconverted = (bits == 32 and not d16 and kind in ("FLOAT", "UINT", "SINT")) or \
                (bits == 16 and d16 and kind == "FLOAT")
            values = raws if unconverted else [_to_register(_decode(r, bits, kind), kind, bits, d16) for r in raws]
            sel = np.broadcast_to(sel_all, (ctx.waves, 4))
            for k in range(count):
                s = sel[:, k:k + 1]
                out = np.where(s == 1, np.uint32(_one(kind, d16)), np.uint32(0))
                for c, v in enumerate(values):
                    out = np.where(ok & (s == 4 + c), v, out)
                comps[..., k] = np.where(waves[:, None], out, comps[..., k])
        _per_format(ctx, per_format)
        if not d16:
            return {"VDATA": _vdata(comps)}
        if hi:
            old = np.asarray(ctx.get("VDATA", name)).astype(np.uint32)
            return {"VDATA": (old & np.uint32(0xFFFF)) | (comps[..., 0] << np.uint32(16))}
        dwords = (count + 1) // 2
        packed = np.zeros(ctx.shape + (dwords,), np.uint32)
        for k in range(count):
            packed[..., k // 2] |= comps[..., k] << np.uint32(16 * (k % 2))
        if count % 2:                   # an odd last component leaves its dword's high half as it was
            packed[..., -1] |= _dwords(ctx.get("VDATA", name))[..., -1] & np.uint32(0xFFFF0000)
        return {"VDATA": _vdata(packed)}
    return run


def _vdata(dwords: np.ndarray):
    """(W, L, n) dwords in the contract's form: uint32 (W, L) for one, uint64 for two."""
    n = dwords.shape[-1]
    if n == 1:
        return dwords[..., 0]
    if n == 2:
        return dwords[..., 0].astype(np.uint64) | dwords[..., 1].astype(np.uint64) << np.uint64(32)
    return dwords


def _dwords(value) -> np.ndarray:
    """The inverse of _vdata: (W, L, n) uint32."""
    value = np.asarray(value)
    if value.dtype == np.uint64:
        return np.stack([value & np.uint64(0xFFFFFFFF), value >> np.uint64(32)], -1).astype(np.uint32)
    return value.astype(np.uint32).reshape(value.shape[:2] + (-1,))


def store(name: str, count: int, d16: bool, hi: bool):
    """The semantic of a format-converting store (see load)."""
    def run(ctx):
        addr, data = ctx.get("ADDR", name), _dwords(ctx.get("VDATA", name))
        if d16:
            comps = [(data[..., k // 2] >> np.uint32(16 * (k % 2 or hi))) & np.uint32(0xFFFF) for k in range(count)]
        else:
            comps = [data[..., k] for k in range(count)]

        def per_format(waves, channels, bits, kind):
            step, active = bits // 8, ctx.active & waves[:, None]
            ok = active & ctx.mem.in_range(addr, channels * step)
            for c in range(channels):      # channels the instruction does not supply are written as 0
                value = _from_register(comps[c], kind, bits, d16) if c < count else np.uint64(0)
                ctx.mem.device.store(addr + np.uint64(c * step), step, value, ok)   # `ok` decided all
        _per_format(ctx, per_format)
        return {}
    return run

"""IMAGE_LOAD, IMAGE_LOAD_MIP, IMAGE_STORE, IMAGE_STORE_MIP: image loads and stores with
data-format conversion. The manual gives them no pseudocode; they follow its prose (RDNA3
manual, printed pages; RDNA4 10.4 says the same):

- the texel each lane reads or writes and its range check: emu/image.py (ADDR, and the
  memory's per-lane limit: out of range, the whole texel reads 0 / is not written);
- data formats: Table 52 "Buffer and Image Data Formats" (p. 106), converted as the buffer
  format instructions convert them (emu/handwritten/buffer_format.py: the equal 8/16/32-bit
  channel formats; anything else raises an error naming the format); "Loads: ... expands it
  to a canonical RGBA form, filling in values for missing components based on T#.dst_sel. Then
  DMASK is applied and only those components selected are returned to the shader" (10.4,
  p. 102): VGPR k holds the k-th component whose DMASK bit is set;
- "If DMASK==0, the TA overrides DMASK=1 and puts zeros in VGPR" (Table 48, p. 96);
- stores: "it is only possible to write an entire element (all components) ... the texture
  system fill in the value zero for any missing components of the image's data format, and
  ignore any values that are not part of the stored data format" (p. 102), the enabled
  components from consecutive VGPRs ("DMASK=1001 : Red is in VGPRn and alpha in VGPRn+1", p. 96).
  RDNA4 fills them otherwise: "the missing components are filled in by replicating the first
  VGPR into the missing components ... DMASK=1001 ... RGB, the texel is overwritten with Red
  from the VGPR_N, Green and Blue set to Red value" (10.4.2, p. 124-125; input FILL "first",
  else "zero"), and its DMASK field "missing components get the value of the X component"
  (p. 116-118): the two agree when DMASK supplies X (bit 0) without D16, the only case
  modelled; otherwise (X missing, or a D16 VGPR's two halves) a store leaving a channel
  missing is refused;
- D16: two 16-bit components a VGPR, low half first (10.1.2, p. 97), converted as the buffers'
  D16 (9.3.1, p. 87: f32 -> f16 truncates, other formats round to nearest even; the image chapter
  names no rounding). For D16 stores the manual
  contradicts itself on where DMASK's bits put the components ("The position of the DMASK bits
  controls which components are written", p. 96; "The position of the bits in DMASK is
  irrelevant, only the number of bits set to 1", p. 102): only DMASKs 0x1, 0x3, 0x7, 0xF, on which
  both readings agree, are modelled; a D16 store with DMASK 0 neither.
"""
from __future__ import annotations

import numpy as np

from ..semantics import SemanticsError
from .buffer_format import _decode, _dwords, _from_register, _one, _to_register, layout


def _slots(dmask: int) -> list[int]:
    return [k for k in range(4) if dmask >> k & 1]


def _per_format(ctx, fn):
    """fn(waves, channels, bits, kind) per distinct data format of the batch's T#s (an unbound
    T#, format 0, reads zeros and writes nothing: no format to convert)."""
    formats = np.asarray(ctx.get("FORMAT")).reshape(-1)
    names = ctx.get("FORMATS")
    for fmt in np.unique(formats):
        waves = formats == fmt
        if fmt == 0 and np.asarray(ctx.get("UNBOUND")).reshape(-1)[waves].all():
            continue
        fn(waves, *layout(int(fmt), names))


def load(name: str):
    def run(ctx):
        addr, dmask, d16 = ctx.get("ADDR", name), int(ctx.get("DMASK")), bool(ctx.get("D16"))
        slots = _slots(dmask)
        sel_all = np.asarray(ctx.get("DST_SEL", name))
        comps = np.zeros(ctx.shape + (max(1, len(slots)),), np.uint32)

        def per_format(waves, channels, bits, kind):
            step, active = bits // 8, ctx.active & waves[:, None]
            ok = active & ctx.mem.in_range(addr, channels * step)
            raws = [ctx.mem.device.load(addr + np.uint64(c * step), step, ok) for c in range(channels)]
            unconverted = (bits == 32 and not d16 and kind in ("FLOAT", "UINT", "SINT")) or \
                (bits == 16 and d16 and kind == "FLOAT")
            values = raws if unconverted else [_to_register(_decode(r, bits, kind), kind, bits, d16) for r in raws]
            sel = np.broadcast_to(sel_all, (ctx.waves, 4))
            for k, slot in enumerate(slots):
                s = sel[:, slot:slot + 1]
                out = np.where(s == 1, np.uint32(_one(kind, d16)), np.uint32(0))
                for c, v in enumerate(values):
                    out = np.where(ok & (s == 4 + c), v, out)
                comps[..., k] = np.where(waves[:, None], out, comps[..., k])
        if slots:
            _per_format(ctx, per_format)
        if not d16:
            return {"VDATA": _four(comps)}
        n = comps.shape[-1]
        packed = np.zeros(ctx.shape + ((n + 1) // 2,), np.uint32)
        for k in range(n):
            packed[..., k // 2] |= comps[..., k] << np.uint32(16 * (k % 2))
        if n % 2:                   # an odd last component leaves its dword's high half as it was
            packed[..., -1] |= _dwords(ctx.get("VDATA", name))[..., -1] & np.uint32(0xFFFF0000)
        return {"VDATA": _four(packed)}
    return run


def _four(dwords: np.ndarray) -> np.ndarray:
    """(W, L, n) dwords as the semantic's VDATA, four dwords wide (the machine writes the n the
    encoding's DMASK and D16 give)."""
    out = np.zeros(dwords.shape[:2] + (4,), np.uint32)
    out[..., :dwords.shape[-1]] = dwords
    return out


def store(name: str):
    def run(ctx):
        addr, dmask, d16 = ctx.get("ADDR", name), int(ctx.get("DMASK")), bool(ctx.get("D16"))
        slots = _slots(dmask)
        if not slots:
            raise SemanticsError(f"{name.lower()} with DMASK 0 is not modelled (the manual says what DMASK 0 "
                                 f"does for loads only: RDNA3 Table 48, p. 96)")
        if d16 and dmask not in (0x1, 0x3, 0x7, 0xF):
            raise SemanticsError(f"{name.lower()} with DMASK 0x{dmask:x} and D16 is not modelled (the manual puts "
                                 f"D16 components two ways: RDNA3 p. 96 and p. 102)")
        data = _dwords(ctx.get("VDATA", name))
        if d16:
            given = [(data[..., k // 2] >> np.uint32(16 * (k % 2))) & np.uint32(0xFFFF) for k in range(len(slots))]
        else:
            given = [data[..., k] for k in range(len(slots))]
        comps = dict(zip(slots, given))
        first = ctx.get("FILL") == "first"

        def missing(channels):
            if first and (d16 or not dmask & 1) and any(c not in comps for c in range(channels)):
                raise SemanticsError(f"{name.lower()} with{' D16 and' if d16 else ''} DMASK 0x{dmask:x} on a "
                                     f"{channels}-channel format: what RDNA4 writes into the missing components is "
                                     f"not modelled (\"replicating the first VGPR\", 10.4.2 p. 124-125, and \"the "
                                     f"value of the X component\", the DMASK field p. 116-118, agree only when DMASK "
                                     f"supplies X in a whole VGPR)")

        def per_format(waves, channels, bits, kind):
            step, active = bits // 8, ctx.active & waves[:, None]
            ok = active & ctx.mem.in_range(addr, channels * step)
            missing(channels)
            for c in range(channels):      # channels the instruction does not supply: 0, or the first VGPR's
                if c in comps or first:
                    value = _from_register(comps.get(c, given[0]), kind, bits, d16)
                else:
                    value = np.uint64(0)
                ctx.mem.device.store(addr + np.uint64(c * step), step, value, ok)
        _per_format(ctx, per_format)
        return {}
    return run

"""Image resources (T#) and the texel each lane of an image instruction addresses (the image
counterpart of emu/buffer.py), for the image instructions without a sampler: image_load,
image_load_mip, image_store, image_store_mip and the image atomics.

The T# fields are the manuals' "Image Resource Definition": RDNA3 Table 50 (printed pages
103-104), RDNA3.5 Table 50 (pages 105-106), RDNA4 Table 60 (page 126). Both families say "All
undefined or reserved bit must be set to zero unless otherwise specified"; the layout modelled
is the one those zeros give. What is modelled:

- the linear layout: texel (s, t) of mip 0 at base + (t * pitch + s) * bytes per texel, pitch
  the width unless a 256-bit T# of a 1D / 2D resource holds (pitch - 1) in its depth field
  ("(pitch-1) of mip0 ... if pitch > width"); 1D and 2D resources (T# type 8 / 9) addressed
  with the matching DIM (0 / 1); mip level 0 with base_level 0;
- the address components as uint ("For image opcodes with no sampler, all VGPR address values
  are taken as uint", 10.2), A16 packing two 16-bit components a VGPR, low half first (10.1.3);
- out of range (s >= width, or t >= height for 2D): the image chapter gives no rule for the
  instructions without a sampler ("Image ops do not generate MemViol - instead they apply clamp
  modes", 10, p. 94: clamp modes are the sampler's), so the buffers' rule is modelled (RDNA3
  p. 89, Table 46 notes): loads read zero (a dst_sel 1 component: 1), stores and atomics write
  nothing (the per-lane range limit of emu/buffer.BufferMemory: 0, else no bound);
- an all-zero T# is unbound: "it returns all zeros and not generate a memory transaction".

Everything else raises SemanticsError naming the field: a nonzero bit the manual leaves
undefined (where drivers keep a tiled swizzle mode: only linear images are modelled), a T# type
other than 1D / 2D (its slices' layout is not in the manual) or not the instruction's DIM,
base_level or a lane's mip level other than 0 (the manual gives no mip chain layout), RDNA3's
delta color compression bit, a buffer (type 0) or reserved type.
"""
from __future__ import annotations

import numpy as np

from isa.records import dataclass

from .buffer import EVERYTHING
from .semantics import SemanticsError

# {image format: (manual table, {field: (hi, lo)})}: the fields the machine reads or refuses,
# and every bit range the table defines (the rest must be zero)
_RDNA3 = ("Table 50 (RDNA3 p. 103-104, RDNA3.5 p. 105-106)", {
    "base": (39, 0), "big_page": (47, 47), "max_mip": (51, 48), "format": (59, 52), "width": (75, 62),
    "height": (91, 78), "dst_sel": (107, 96), "base_level": (111, 108), "last_level": (115, 112),
    "bc_swizzle": (123, 121), "type": (127, 124),
    "depth": (140, 128), "pitch_msb": (141, 141), "base_array": (156, 144), "array_pitch": (163, 160),
    "min_lod_warn": (179, 168), "corner_samples": (183, 183), "min_lod": (198, 187), "iterate_256": (202, 202),
    "meta_pipe_aligned": (211, 211), "compression": (213, 213), "alpha_on_msb": (214, 214),
    "color_transform": (215, 215), "meta_address": (255, 216)})
_RDNA4 = ("Table 60 (RDNA4 p. 126)", {
    "base": (39, 0), "max_mip": (48, 44), "format": (56, 49), "base_level": (61, 57), "width": (77, 62),
    "height": (93, 78), "dst_sel": (107, 96), "last_level": (115, 111), "bc_swizzle": (123, 121),
    "type": (127, 124),
    "depth": (141, 128), "pitch_msb": (143, 142), "base_array": (156, 144), "uav3d": (164, 164),
    "min_lod_warn": (177, 165), "corner_samples": (183, 183), "min_lod": (198, 186)})
LAYOUTS = {"MIMG": _RDNA3, "VIMAGE": _RDNA4}
TYPES = {8: "1d", 9: "2d", 10: "3d", 11: "cube", 12: "1d-array", 13: "2d-array", 14: "2d-msaa", 15: "2d-msaa-array"}
DIMS = {0: 8, 1: 9}         # DIM code -> the T# type it addresses (modelled: 1D, 2D)


def _field(words: np.ndarray, hi: int, lo: int) -> np.ndarray:
    """Bits hi:lo of each wave's T# ((W, n) uint32 dwords) as (W, 1) int64 (a field of up to 40
    bits: within two dwords)."""
    w = lo // 32
    pair = words[:, w:w + 1].astype(np.uint64)
    if w + 1 < words.shape[1]:
        pair |= words[:, w + 1:w + 2].astype(np.uint64) << np.uint64(32)
    return ((pair >> np.uint64(lo % 32)) & np.uint64((1 << (hi - lo + 1)) - 1)).astype(np.int64)


def _undefined_ranges(fields: dict, nbits: int) -> list[tuple[int, int]]:
    """(hi, lo) of each run of bits below nbits that no field covers, split at dword boundaries."""
    covered = np.zeros(nbits, bool)
    for hi, lo in fields.values():
        covered[lo:min(hi, nbits - 1) + 1] = True
    runs = []
    for w in range(nbits // 32):
        lo = None
        for bit in range(32 * w, 32 * w + 33):
            free = bit < 32 * w + 32 and not covered[bit]
            if free and lo is None:
                lo = bit
            elif not free and lo is not None:
                runs.append((bit - 1, lo))
                lo = None
    return runs


@dataclass
class Image:
    """The modelled part of each wave's T# ((W, 1) int64 fields)."""
    base: np.ndarray            # byte address (the field holds bits 47:8)
    format: np.ndarray
    width: np.ndarray           # texels
    height: np.ndarray
    pitch: np.ndarray           # texels a row
    dst_sel: np.ndarray         # (W, 4): 0 = 0, 1 = 1, 4..7 = R, G, B, A
    unbound: np.ndarray         # (W, 1) bool: the T# is all zeros

    @classmethod
    def of(cls, words: np.ndarray, fmt: str, dim: int) -> "Image":
        """Decode (W, 4 or 8) dwords of the image format `fmt` ('MIMG' or 'VIMAGE') for DIM `dim`,
        refusing what is not modelled (SemanticsError naming the field and the manual's table)."""
        words = np.asarray(words, np.uint32)
        table, fields = LAYOUTS[fmt]
        nbits = 32 * words.shape[1]
        unbound = ~words.any(axis=1, keepdims=True)
        bound = ~unbound[:, 0]
        if not bound.any():
            z = np.zeros((len(words), 1), np.int64)
            return cls(z, z, z, z, z, np.zeros((len(words), 4), np.int64), unbound)

        def get(name):
            return _field(words, *fields[name])
        for hi, lo in _undefined_ranges(fields, nbits):
            value = _field(words, hi, lo)[bound]
            if value.any():
                raise SemanticsError(
                    f"T# bits {hi}:{lo} are 0x{int(value[value != 0][0]):x}, which the manual's {table} leaves "
                    f"undefined (must be zero): only the linear layout is modelled, not a tiled swizzle mode")
        kind = get("type")[bound]
        want = DIMS.get(dim)
        if want is None:
            raise SemanticsError(f"DIM {dim} ({TYPES.get(dim + 8, '?')}): only 1D and 2D images are modelled "
                                 f"(the manual gives no linear layout of slices, faces or samples)")
        if (kind != want).any():
            bad = int(kind[kind != want][0])
            raise SemanticsError(f"T# type {bad} ({TYPES.get(bad, 'a buffer' if bad == 0 else 'reserved')}) does "
                                 f"not match DIM {dim} ({TYPES[want]}): only matching 1D / 2D images are modelled")
        for name, why in (("base_level", "the manual gives no mip chain layout"),
                          ("compression", "delta color compression is not modelled")):
            if name in fields and get(name)[bound].any():
                raise SemanticsError(f"T# {name} is {int(get(name)[bound].max())}, not 0: {why}")
        width, height = get("width") + 1, get("height") + 1
        pitch = width
        if nbits == 256:        # 1D / 2D: (pitch - 1) in the depth field and its MSBs, if pitch > width
            lo_bits = fields["depth"][0] - fields["depth"][1] + 1
            stored = (get("depth") & ((1 << lo_bits) - 1)) | get("pitch_msb") << lo_bits
            pitch = np.maximum(width, stored + 1)
        dst_sel = np.concatenate([_field(words, 98 + 3 * i, 96 + 3 * i) for i in range(4)], axis=1)
        z = np.where(unbound, 0, 1)
        return cls(get("base") << 8, get("format") * z, width * z, height * z, pitch * z, dst_sel * z, unbound)


def coordinates(words: np.ndarray, count: int, a16: bool) -> list[np.ndarray]:
    """The first `count` address components (uint, int64 (W, L)) from the address VGPRs'
    values ((n, W, L) uint32, in order): one a VGPR, or with A16 two, low half first."""
    if not a16:
        return [words[i].astype(np.int64) for i in range(count)]
    return [((words[i // 2] >> np.uint32(16 * (i % 2))) & np.uint32(0xFFFF)).astype(np.int64) for i in range(count)]


def lane_texels(img: Image, coords: list, dim: int, mip, bytes_per_texel, active) -> tuple[np.ndarray, np.ndarray]:
    """(byte address of each lane's texel (W, L) uint64, range limit (W, L) int64: 0 out of range
    or unbound, else no bound). `coords`: s (and t for 2D); `mip`: each lane's mip level or None;
    bytes_per_texel: (W, 1). A lane of `active` asking for a mip level other than 0 is refused."""
    s = coords[0]
    t = coords[1] if dim == 1 else np.zeros_like(s)
    if mip is not None and (np.asarray(mip)[active] != 0).any():
        where = np.argwhere(active & (np.asarray(mip) != 0))[0]
        raise SemanticsError(f"lane {where[1]} (wave {where[0]} of the batch) asks for mip level "
                             f"{int(np.asarray(mip)[tuple(where)])}: only mip level 0 is modelled "
                             f"(the manual gives no mip chain layout)")
    inside = (s < img.width) & (t < img.height) & ~img.unbound
    offset = np.where(inside, t * img.pitch + s, 0) * bytes_per_texel
    address = (img.base + offset).astype(np.uint64)
    return address, np.where(inside, EVERYTHING, 0)

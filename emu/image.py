"""Image resources (T#) and the texel each lane of an image instruction addresses (the image
counterpart of emu/buffer.py), for the image instructions without a sampler: image_load,
image_load_mip, image_store, image_store_mip and the image atomics.

The T# fields are the manuals' "Image Resource Definition": RDNA3 Table 50 (printed pages
103-104), RDNA3.5 Table 50 (pages 105-106), RDNA4 Table 60 (page 126). Both families say "All
undefined or reserved bit must be set to zero unless otherwise specified"; the layout modelled
is the one those zeros give. What is modelled:

- the linear layout: texel (s, t) of slice k of mip 0 at
  base + ((k * height + t) * pitch + s) * bytes per texel -- rows `pitch` texels apart, slices
  pitch * height texels apart (the manual states neither; this is the linear layout the T#'s
  fields describe, a 1D array's height 1) -- pitch the width unless a 256-bit T# of a 1D / 2D
  resource holds (pitch - 1) in its depth field ("(pitch-1) of mip0 ... if pitch > width");
  1D, 2D, 3D, 1D-array and 2D-array resources (T# type 8, 9, 10, 12, 13) addressed with the
  matching DIM (0, 1, 2, 4, 5), the coordinates named by the DIM's generated image_dims row
  (s, t, r for 3D, slice for arrays); mip level 0 with base_level 0;
- the slices: a 3D or array resource is a 256-bit one ("256-bit Resource: 1d-array, 2d-array,
  3d, cubemap, MSAA"). Arrays: "base array: First slice in array of the resource view", depth:
  "last array slice": slice coordinate k addresses slice base_array + k, in range while
  base_array + k <= last. 3D: depth is "(depth-1) of mip 0" and bit 0 of RDNA3's array pitch
  field / RDNA4's UAV3D says "0: SRV (base_array ignored, depth w.r.t. base map) 1: UAV
  (base_array and depth are first and last layer in view ...)": r addresses slice r (SRV) or
  base_array + r (UAV), in range while that slice <= depth;
- the address components as uint ("For image opcodes with no sampler, all VGPR address values
  are taken as uint", 10.2), A16 packing two 16-bit components a VGPR, low half first (10.1.3);
- out of range (s >= width, t >= height for 2D / 3D / 2D arrays, or the slice past the last
  one): the image chapter gives no rule for the instructions without a sampler ("Image ops do
  not generate MemViol - instead they apply clamp modes", 10, p. 94: clamp modes are the
  sampler's), so the buffers' rule is modelled for every coordinate alike (RDNA3 p. 89, Table
  46 notes): loads read zero (a dst_sel 1 component: 1), stores and atomics write nothing (the
  per-lane range limit of emu/buffer.BufferMemory: 0, else no bound);
- an all-zero T# is unbound: "it returns all zeros and not generate a memory transaction".

- cube images (T# type 11, DIM 3): "For image opcodes with no sampler ... For cubemaps, face_id
  = slice * 6 + face" (10.2: RDNA3 p. 98, RDNA3.5 p. 100, RDNA4 p. 120; the sampler's is
  slice * 8 + face, 10.3): the address component `face` is face_id, which addresses slice
  face_id of the faces as an array's slices (the same linear layout). The T#'s depth is the
  "last array slice for ... cube-map" and base array the "First slice in array of the resource
  view", which the manual leaves either in faces or in cubes (10.2's "slice" is a cube): what
  both readings agree on is modelled -- base_array 0, face_id <= depth in range (both), face_id
  >= 6 * (depth + 1) out of range (both); a lane between them is refused;

Everything else raises SemanticsError naming the field: a nonzero bit the manual leaves
undefined (where drivers keep a tiled swizzle mode: only linear images are modelled), an MSAA
DIM or type (no page gives where a sample lies: the pages in MIP_PAGES), a buffer (type 0) or reserved type,
a type not the instruction's DIM, a 3D / array / cube image with a 128-bit T#, pitch bits in a
3D / array / cube T#, RDNA3 array pitch bits 3:1 of a 3D T# (or any of an array's or cube's),
a cube's base_array other than 0 or a lane's face_id the two readings above disagree on, a 1D
array whose height is not 1, base_level or a lane's mip level other than 0 (no page gives where
mip level N lies: MIP_PAGES), RDNA3's delta color compression bit.
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
# the pages a mip chain or an MSAA image's samples would need and that give neither: the T#'s
# mip and sample fields, and 10.2's address components (mipid, fragid)
MIP_PAGES = {"MIMG": "RDNA3 Table 50 p. 103-104 and 10.2 p. 98-99 (RDNA3.5 p. 105-106, p. 100-101)",
             "VIMAGE": "RDNA4 Table 60 p. 126 and 10.2 p. 120"}
TYPES = {8: "1d", 9: "2d", 10: "3d", 11: "cube", 12: "1d-array", 13: "2d-array", 14: "2d-msaa", 15: "2d-msaa-array"}
DIMS = {0: 8, 1: 9, 2: 10, 3: 11, 4: 12, 5: 13}    # DIM code -> the T# type it addresses (the modelled ones)
SLICED = (10, 11, 12, 13)                    # 3D, cube, 1D array, 2D array: slices by the 256-bit T#
CUBE = 11


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
    first: np.ndarray           # the slice coordinate 0 addresses (0 for 1D / 2D)
    slices: np.ndarray          # slices in range from `first` (last - first + 1; 1 for 1D / 2D)
    known: np.ndarray           # slice coordinates below it are in range or surely not (a cube's
                                # 6 * (depth + 1): module docstring; `slices` for the others)

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
            return cls(z, z, z, z, z, np.zeros((len(words), 4), np.int64), unbound, z, z, z)

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
            raise SemanticsError(f"DIM {dim} ({TYPES.get(dim + 8, '?')}): an MSAA image is not modelled: no page "
                                 f"gives where its samples (the fragid address component) lie in memory "
                                 f"({MIP_PAGES[fmt]} name fragid and the sample count only)")
        if (kind != want).any():
            bad = int(kind[kind != want][0])
            raise SemanticsError(f"T# type {bad} ({TYPES.get(bad, 'a buffer' if bad == 0 else 'reserved')}) does "
                                 f"not match DIM {dim} ({TYPES[want]}): only an image of DIM's type is modelled")
        for name, why in (("base_level", f"no page gives where a mip level other than 0 lies ({MIP_PAGES[fmt]} "
                                         f"give mip 0's size and the view's levels only)"),
                          ("compression", "delta color compression is not modelled")):
            if name in fields and get(name)[bound].any():
                raise SemanticsError(f"T# {name} is {int(get(name)[bound].max())}, not 0: {why}")
        width, height = get("width") + 1, get("height") + 1
        pitch = width
        first, slices = np.zeros_like(width), np.ones_like(width)
        known = slices
        if want in SLICED:
            first, slices = _slices(get, fields, table, nbits, want, bound, height)
            known = 6 * slices if want == CUBE else slices
        elif nbits == 256:      # 1D / 2D: (pitch - 1) in the depth field and its MSBs, if pitch > width
            lo_bits = fields["depth"][0] - fields["depth"][1] + 1
            stored = (get("depth") & ((1 << lo_bits) - 1)) | get("pitch_msb") << lo_bits
            pitch = np.maximum(width, stored + 1)
        dst_sel = np.concatenate([_field(words, 98 + 3 * i, 96 + 3 * i) for i in range(4)], axis=1)
        z = np.where(unbound, 0, 1)
        return cls(get("base") << 8, get("format") * z, width * z, height * z, pitch * z, dst_sel * z, unbound,
                   first * z, slices * z, known * z)


def _slices(get, fields, table, nbits, kind, bound, height):
    """(first slice, slices in range) of a 3D / array T# (the module's docstring), refusing what
    the manual's table does not define for it."""
    name = TYPES[kind]
    if nbits != 256:
        raise SemanticsError(f"a {name} image with a 128-bit T# (R128): the manual's {table} keeps its depth "
                             f"and base_array in a 256-bit resource")
    if get("pitch_msb")[bound].any():
        raise SemanticsError(f"T# pitch_msb is {int(get('pitch_msb')[bound].max())}, not 0: a pitch is defined for "
                             f"1D / 2D / MSAA resources only ({table})")
    uav = np.zeros_like(height, bool)
    if "array_pitch" in fields:         # RDNA3: bit 0 is 3D's SRV / UAV, nothing else is defined
        ap = get("array_pitch")
        defined = 1 if kind == 10 else 0        # (a cube's: none)
        if (ap[bound] & ~defined).any():
            raise SemanticsError(f"T# array_pitch is {int(ap[bound].max())}: the manual's {table} defines only its "
                                 f"bit 0, for 3D resources")
        uav = (ap & 1).astype(bool)
    elif kind == 10:                    # RDNA4: UAV3D
        uav = get("uav3d").astype(bool)
    if kind == 12 and (height[bound] != 1).any():
        raise SemanticsError(f"T# height is {int(height[bound].max())} for a 1d-array image: a 1D array is one "
                             f"row a slice (height 1)")
    if kind == CUBE and get("base_array")[bound].any():
        raise SemanticsError(f"T# base_array is {int(get('base_array')[bound].max())} for a cube image, not 0: the "
                             f"manual ({table}: \"First slice in array\"; 10.2: face_id = slice * 6 + face) leaves "
                             f"open whether it counts faces or cubes")
    last = get("depth")
    first = get("base_array") if kind != 10 else np.where(uav, get("base_array"), 0)
    return first, last - first + 1


def coordinates(words: np.ndarray, count: int, a16: bool) -> list[np.ndarray]:
    """The first `count` address components (uint, int64 (W, L)) from the address VGPRs'
    values ((n, W, L) uint32, in order): one a VGPR, or with A16 two, low half first."""
    if not a16:
        return [words[i].astype(np.int64) for i in range(count)]
    return [((words[i // 2] >> np.uint32(16 * (i % 2))) & np.uint32(0xFFFF)).astype(np.int64) for i in range(count)]


def lane_texels(img: Image, coords: dict, mip, bytes_per_texel, active,
                pages: str = MIP_PAGES["MIMG"]) -> tuple[np.ndarray, np.ndarray]:
    """(byte address of each lane's texel (W, L) uint64, range limit (W, L) int64: 0 out of range
    or unbound, else no bound). `coords`: {name: (W, L) int64} by the DIM's image_dims names (s,
    t, r for 3D, slice for arrays, face for cubes); `mip`: each lane's mip level or None;
    bytes_per_texel: (W, 1). A lane of `active` asking for a mip level other than 0 (`pages`: the
    manual's pages that give none) or a cube face_id the manual leaves open is refused."""
    s = coords["s"]
    t = coords.get("t", np.zeros_like(s))
    k = coords.get("r", coords.get("slice", coords.get("face", np.zeros_like(s))))
    if mip is not None and (np.asarray(mip)[active] != 0).any():
        where = np.argwhere(active & (np.asarray(mip) != 0))[0]
        raise SemanticsError(f"lane {where[1]} (wave {where[0]} of the batch) asks for mip level "
                             f"{int(np.asarray(mip)[tuple(where)])}: only mip level 0 is modelled "
                             f"(no page gives where mip level N lies: {pages})")
    inside = (s < img.width) & (t < img.height) & (k < img.slices) & ~img.unbound
    open_ = active & (s < img.width) & (t < img.height) & (k >= img.slices) & (k < img.known) & ~img.unbound
    if open_.any():
        where = tuple(np.argwhere(open_)[0])
        raise SemanticsError(f"lane {where[1]} (wave {where[0]} of the batch) addresses cube face_id "
                             f"{int(k[where])} past the T#'s depth {int(img.slices[where[0], 0]) - 1}: in range if "
                             f"depth counts cubes, out of range if it counts faces, which the manual leaves open "
                             f"(\"last array slice for ... cube-map\"; 10.2: face_id = slice * 6 + face)")
    s, t, k = (np.where(inside, c, 0) for c in (s, t, k))
    offset = (((img.first + k) * img.height + t) * img.pitch + s) * bytes_per_texel
    address = (img.base + np.where(inside, offset, 0)).astype(np.uint64)
    return address, np.where(inside, EVERYTHING, 0)


def tfe_status(img: Image, limit: np.ndarray, active: np.ndarray) -> None:
    """Refuse a TFE load whose active lane's texel is out of range: its status (TEXEL_FAIL: "1 or
    more texels for this pixel produced a NACK. 'failure' means accessing an unmapped page",
    10.1.1) is not defined for a texel outside the resource. In range, or unbound (no memory
    transaction), no NACK: the status is zero (the machine writes it)."""
    out = active & (limit == 0) & ~img.unbound
    if out.any():
        where = np.argwhere(out)[0]
        raise SemanticsError(f"TFE: lane {where[1]} (wave {where[0]} of the batch) addresses a texel out of range, "
                             f"whose status the manual does not give (10.1.1 defines TEXEL_FAIL by a NACK, an "
                             f"unmapped page, not by the resource's range)")

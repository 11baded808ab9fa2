"""Buffer addressing for GFX9 (CDNA3 gfx940-942, CDNA4 gfx950): the GFX9 layout of the V# and
the CDNA range check. Page-free references are to the CDNA3 ISA manual, section 9.1 ("Vector
Memory Buffer Instructions"); CDNA4 describes the same layout.

What differs from RDNA3 (emu/buffer.py):
- the V# (Table 47, 9.1.8): bit 62 is a cache hint, bit 63 swizzle enable, num/data format at
  110:108 / 114:111, no OOB_SELECT; with add_tid and a non-format MUBUF the data format field
  holds stride bits 17:14 (Table 44); a V# whose data format is INVALID (0) is the unbound
  resource (9.1.4: "that format has specific meaning (unbound resource)"; Table 47: "A
  resource set to all zeros acts as an unbound texture or buffer"): loads read 0, stores and
  atomics are dropped — except where DFMT holds stride bits (add_tid, non-format MUBUF).
- the range check (9.1.5.1) tests where an access *starts*, not where it ends, and ignores the
  SGPR offset: a raw buffer (add_tid 0, swizzle 0, idxen 0) is out of range when
  inst_offset + vgpr_offset >= num_records; a structured buffer (add_tid 0, stride != 0,
  idxen 1) when index >= num_records; a private buffer (add_tid 1, idxen 0) is not checked.
  Dword-by-dword accesses get the per-component check of notes 3-4 for free.
  The limit returned is therefore on an access's first byte (`BufferMemory(first_byte=True)`).

Format conversion reuses emu/handwritten/buffer_format.py: GFX9 splits the format into a data
format (DFMT: V# 114:111 or MTBUF's field) and a number format (NFMT: V# 110:108 or MTBUF's
field); `data_formats` names each pair as RDNA3's table names the combined formats
("8_8_8_8_UNORM") and gives its channels, from the generated DFMT / NFMT tables.

Not modelled (refused with the reason): swizzled addressing (the GFX9 V# has no element size
field), combinations the manual gives no range rule for (idxen with stride 0, idxen with
add_tid).
"""
from __future__ import annotations

import numpy as np

from .buffer import EVERYTHING, _bits
from .semantics import SemanticsError


def format_id(dfmt, nfmt):
    """The key `data_formats` files a (data format, number format) pair under."""
    return np.asarray(dfmt, np.int64) | (np.asarray(nfmt, np.int64) << 4)


def data_formats(tables) -> dict[int, tuple[str, tuple[int, ...], str | None]]:
    """format_id -> (name, channel bits, number format) of every DFMT / NFMT pair, from the
    manual's code lists the generator reads (isa tables `data_formats`: DFMT 10 is '8_8_8_8',
    channels (8, 8, 8, 8); `number_formats`: NFMT 0 is 'UNORM'), named as the pair
    ('8_8_8_8_UNORM'); DFMT 0 is INVALID whatever the NFMT. A RESERVED code is refused by the
    format semantics, naming it."""
    out = {}
    for dfmt, dname, bits, _, _ in tables["data_formats"]:
        for nfmt, nname, _ in tables["number_formats"]:
            out[int(format_id(dfmt, nfmt))] = ("INVALID", (), None) if dfmt == 0 else (f"{dname}_{nname}", bits, nname)
    return out


def resource_format(words) -> tuple[np.ndarray, np.ndarray]:
    """(format_id (W, 1), dst_sel (W, 4)) of the V# words: NFMT 110:108, DFMT 114:111, DST_SEL_X..W
    107:96 (Table 47)."""
    words = np.asarray(words, np.uint32).reshape(-1, 4)
    dst_sel = np.concatenate([_bits(words, 98 + 3 * i, 96 + 3 * i) for i in range(4)], axis=1)
    return format_id(_bits(words, 114, 111), _bits(words, 110, 108)), dst_sel


def gfx9_lane_addresses(words, idxen: bool, index, offset, soffset, lane_id,
                        formatted: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Byte address ((W, L) uint64) and first-byte limit ((W, L) int64: an access starting at a
    is in range when a < limit) of every lane, from the V# words ((W, 4) uint32).

    index   = (idxen ? VGPR index : 0) + (add_tid ? thread id : 0)          (9.1.5.2)
    offset  = (offen ? VGPR offset : 0) + instruction offset
    address = base + sgpr_offset + stride * index + offset                  (9.1.5, linear)
    `formatted`: a format instruction (MTBUF, BUFFER_*_FORMAT_*), whose stride stays 14 bits."""
    words = np.asarray(words, np.uint32).reshape(-1, 4)
    base = words[:, 0:1].astype(np.int64) | (_bits(words, 47, 32) << 32)
    stride, swizzle = _bits(words, 61, 48), _bits(words, 63, 63)
    num_records, data_format = _bits(words, 95, 64), _bits(words, 114, 111)
    add_tid, rtype = _bits(words, 119, 119), _bits(words, 127, 126)
    long_stride = (add_tid != 0) & (not formatted)     # DFMT holds stride 17:14 (Table 44)
    unbound = (data_format == 0) & ~long_stride
    bound = ~unbound
    if (rtype[bound] != 0).any():
        raise SemanticsError(f"the buffer resource's type field (V# bits 127:126) is "
                             f"{int(rtype[bound & (rtype != 0)][0])}, not 0 (a buffer): an image descriptor?")
    if (swizzle[bound] != 0).any():
        raise SemanticsError("swizzled buffer addressing (V# bit 63) is not modelled: the GFX9 V# "
                             "has no element size field (9.1.5.2)")
    tid = bound & (add_tid != 0)
    if idxen and tid.any():
        raise SemanticsError("a V# with add_tid_enable used with idxen: the manual gives no range "
                             "check for it (9.1.5.1)")
    if idxen and (bound & (stride == 0)).any():
        raise SemanticsError("a V# with stride 0 used with idxen: the manual gives no range check "
                             "for it (9.1.5.1)")
    stride = np.where(long_stride, stride | (data_format << 14), stride)
    index = np.asarray(index, np.int64) + np.where(tid, np.asarray(lane_id, np.int64), 0)
    offset = np.asarray(offset, np.int64)
    start = base + np.asarray(soffset, np.int64)
    address = start + stride * index + offset
    if idxen:                       # structured: the whole record is in or out by its index
        limit = np.where(index < num_records, EVERYTHING, 0)
    else:                           # raw (offset < num_records) or private (unchecked)
        limit = np.where(tid, EVERYTHING, start + num_records)
    limit = np.where(unbound, 0, limit)
    return address.astype(np.uint64), np.broadcast_to(limit, address.shape)

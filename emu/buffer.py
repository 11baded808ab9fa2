"""Buffer addressing for MUBUF/MTBUF: the 128-bit buffer resource (V#), each lane's byte
address and the range check, as the RDNA3 manual's chapter 9 describes them (page numbers
are the PDF's printed pages of "RDNA3" Instruction Set Architecture; RDNA3.5 is the same).

The range check becomes one number per lane, `limit`: an access of n bytes at address a is
in range when a + n <= limit. Every out-of-bounds rule of Table 46 (p. 89) has that form —
"offset + payload > stride" is a bound relative to the start of the lane's record, the raw
check "offset + payload > num_records - sgpr_offset" one relative to the buffer base — so
the semantics' own dword-by-dword accesses get the manual's per-component check for
B64/B96/B128 for free, and `BufferMemory.in_range` gives the all-or-nothing check of the
format instructions (p. 89, notes 3-4).
"""
from __future__ import annotations

import numpy as np

from isa.records import dataclass

from .semantics import SemanticsError

EVERYTHING = np.iinfo(np.int64).max      # limit of a lane no bound applies to
IDENTITY_DST_SEL = np.array([[4, 5, 6, 7]], np.int64)    # X, Y, Z, W <- R, G, B, A (Table 42, p. 86)


def _bits(words: np.ndarray, hi: int, lo: int) -> np.ndarray:
    """Field [hi:lo] of the 128-bit V# held as (W, 4) dwords; never crosses a dword here
    except the 48-bit base, which `Resource.of` assembles itself."""
    word, shift = divmod(lo, 32)
    assert hi // 32 == word, "field crosses a dword"
    return ((words[:, word:word + 1] >> np.uint32(shift)) & np.uint32((1 << (hi - lo + 1)) - 1)).astype(np.int64)


@dataclass
class Resource:
    """The buffer resource descriptor (Table 47, p. 92), one value per wave ((W, 1) int64)."""
    base: np.ndarray            # 47:0 byte address
    stride: np.ndarray          # 61:48
    swizzle: np.ndarray         # 63:62: 0 linear, 1 / 3 swizzled with 4- / 16-byte elements, 2 reserved
    num_records: np.ndarray     # 95:64
    dst_sel: np.ndarray         # 107:96 as (W, 4): 0 = 0, 1 = 1, 4..7 = channel R, G, B, A
    format: np.ndarray          # 113:108 data format (Table 52, p. 105)
    index_stride: np.ndarray    # 118:117 as 8, 16, 32 or 64
    add_tid: np.ndarray         # 119
    oob_select: np.ndarray      # 125:124 (Table 46, p. 89)
    type: np.ndarray            # 127:126, 0 for a buffer

    @classmethod
    def of(cls, words: np.ndarray) -> "Resource":
        words = np.asarray(words, np.uint32).reshape(-1, 4)
        base = words[:, 0:1].astype(np.int64) | (_bits(words, 47, 32) << 32)
        dst_sel = np.concatenate([_bits(words, 98 + 3 * i, 96 + 3 * i) for i in range(4)], axis=1)
        return cls(base=base, stride=_bits(words, 61, 48), swizzle=_bits(words, 63, 62),
                   num_records=_bits(words, 95, 64), dst_sel=dst_sel, format=_bits(words, 113, 108),
                   index_stride=8 << _bits(words, 118, 117), add_tid=_bits(words, 119, 119),
                   oob_select=_bits(words, 125, 124), type=_bits(words, 127, 126))


def lane_addresses(res: Resource, index, offset, soffset, lane_id, typed: bool) -> tuple[np.ndarray, np.ndarray]:
    """Byte address and range limit of every lane ((W, L) uint64 and int64).

    index  = (IDXEN ? VGPR index : 0) + (V#.add_tid ? thread id : 0)       (p. 90)
    offset = (OFFEN ? VGPR offset : 0) + instruction offset                (p. 90)
    linear:   address = base + sgpr_offset + offset + stride * index        (p. 89, 9.4.1.1-2)
    swizzled: address = base + sgpr_offset + (index / index_stride * stride
              + offset / element * element) * index_stride + index % index_stride * element
              + offset % element                                            (p. 90, 9.4.2)
    `typed`: MTBUF, whose unbound-resource rule ignores add_tid (p. 92)."""
    if (res.type != 0).any():
        raise SemanticsError(f"the buffer resource's type field (V# bits 127:126) is "
                             f"{int(res.type[res.type != 0][0])}, not 0 (a buffer): an image or sampler descriptor?")
    if (res.swizzle == 2).any():
        raise SemanticsError("the buffer resource's swizzle_enable is 2, which the manual reserves (Table 47)")
    index = np.asarray(index, np.int64) + np.where(res.add_tid != 0, np.asarray(lane_id, np.int64), 0)
    offset = np.asarray(offset, np.int64)
    record = res.stride * index + offset
    swizzled = res.swizzle != 0
    if swizzled.any():
        element = np.where(res.swizzle == 3, 16, 4)
        istride = res.index_stride
        moved = ((index // istride) * res.stride + (offset // element) * element) * istride \
            + (index % istride) * element + offset % element
        record = np.where(swizzled, moved, record)
    start = res.base + np.asarray(soffset, np.int64)
    address = start + record
    # Table 46 (p. 89): which bound applies; "payload" is the access's own size, added by the check
    by_index = index < res.num_records
    in_record = np.where(by_index, address - offset + res.stride, 0)        # offset + payload <= stride
    raw = res.base + res.num_records                  # offset + payload <= num_records - sgpr_offset
    structured3 = swizzled & (res.stride != 0)
    limit = np.select(
        [res.oob_select == 0, res.oob_select == 1, res.oob_select == 2, structured3],
        [in_record, np.where(by_index, EVERYTHING, 0), np.where(res.num_records == 0, 0, EVERYTHING), in_record],
        raw)
    # an unbound resource (all zeros, or any whose data format is INVALID and, for MUBUF,
    # add_tid is off) reads zeros and ignores stores (p. 92)
    unbound = (res.format == 0) & ((res.add_tid == 0) | typed)
    limit = np.where(unbound, 0, limit)
    return address.astype(np.uint64), np.broadcast_to(limit, address.shape)


def scalar_limit(res: Resource) -> np.ndarray:
    """S_BUFFER_LOAD's range (8.1.2 and 8.4.1, p. 77-79): the dword at byte offset o from the
    dword-aligned base is out of range when o >= (stride == 0 ? 1 : stride) * num_records
    (no swizzle, no OOB_SELECT); as a limit on 4-byte accesses, base + size + 3."""
    size = np.where(res.stride == 0, 1, res.stride) * res.num_records
    return (res.base & ~3) + size + 3


class BufferMemory:
    """Global memory seen through a buffer resource: accesses of out-of-range lanes read 0
    and are not written (p. 88, 9.4.1); in-range accesses go to the device memory, which
    still faults (naming lane, address and nearest buffer) outside every allocation."""

    def __init__(self, device, limit: np.ndarray, first_byte: bool = False):
        self.device, self.limit, self.first_byte = device, limit, first_byte

    def in_range(self, addr: np.ndarray, nbytes: int) -> np.ndarray:
        """bool per lane: an access of nbytes at addr lies inside the lane's range (with
        `first_byte`, GFX9's rule: the access starts inside it, emu/buffer_gfx9.py)."""
        return np.asarray(addr).astype(np.int64) <= self.limit - (1 if self.first_byte else nbytes)

    def load(self, addr, nbytes, mask):
        return self.device.load(addr, nbytes, np.asarray(mask) & self.in_range(addr, nbytes))

    def store(self, addr, nbytes, value, mask):
        self.device.store(addr, nbytes, value, np.asarray(mask) & self.in_range(addr, nbytes))

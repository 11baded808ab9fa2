"""How IR values live in registers during instruction selection.

Every scalar of at most 32 bits is held in one dword: integers sign- or zero-extended from
their width, f16 and bf16 widened to f32 (exactly; each operation rounds its result back to
the narrow type), bool as 0/1 when it is uniform and as a lane mask when it differs per lane.
64-bit scalars take two dwords (low dword first).

Kinds: 'c' a constant (no register: an inline constant or literal where it is used),
's' uniform (SGPRs, same in every lane), 'v' divergent (VGPRs), 'm' a divergent bool as a
lane mask (SGPRs: one dword in wave32, two in wave64), 'vec' a vector (its `parts`)."""
from __future__ import annotations

from isa.records import dataclass

from .ir import DType


@dataclass(frozen=True)
class Val:
    kind: str
    dtype: DType
    reg: object = None          # dsl register (VReg or physical Reg) for 's' 'v' 'm'
    value: object = None        # Python value for 'c'
    parts: tuple = ()           # element Vals for 'vec'
    bits: object = None         # f16 rounded by an op: a VGPR whose low half holds its bits
                                # (a store takes them; the widened `reg` may then go unread)
    half: object = None         # f16 loaded from memory: the VGPR half (.l/.h) holding its bits,
                                # which an op on f16 bits reads in place of rounding `reg` again

    @property
    def uniform(self) -> bool:
        return self.kind in ("c", "s") or (self.kind == "vec" and all(p.uniform for p in self.parts))

    @property
    def dwords(self) -> int:
        return 2 if self.dtype.itemsize == 8 else 1


def const(value, dtype: DType) -> Val:
    return Val("c", dtype, value=value)


def is_const(v: Val, value=None) -> bool:
    return v.kind == "c" and (value is None or v.value == value)

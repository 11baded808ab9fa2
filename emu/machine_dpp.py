"""DPP16 (and GFX9's DPP, CDNA) and DPP8: which lane each lane's src0 comes from, and which
lanes may write.

The DPP_CTRL code ranges come from the ISA table (`spec.tables["dpp_ctrl"]`); this module
only says what each named range does to a lane index inside its row of 16, or (GFX9's wave
shifts and row broadcasts) to a lane index of the wave.
"""
from __future__ import annotations

import numpy as np

from .machine_operands import OperandError

# name -> (row lane i (0..15), the code's operand n) -> source row lane, or -1 when out of range
_ROW_RULES = {
    "DPP_QUAD_PERM": lambda i, n: (i & ~3) | ((n >> (2 * (i & 3))) & 3),
    "DPP_ROW_SL": lambda i, n: np.where(i + n < 16, i + n, -1),       # row_shl:n reads lane i+n
    "DPP_ROW_SR": lambda i, n: np.where(i - n >= 0, i - n, -1),       # row_shr:n reads lane i-n
    "DPP_ROW_RR": lambda i, n: (i - n) & 15,
    "DPP_ROW_MIRROR": lambda i, n: 15 - i,
    "DPP_ROW_HALF_MIRROR": lambda i, n: (i & 8) | (7 - (i & 7)),
    "DPP_ROW_SHARE": lambda i, n: np.full_like(i, n),
    "DPP_ROW_XMASK": lambda i, n: i ^ n,
    "DPP_ROW": lambda i, n: np.full_like(i, n),       # CDNA3 row_newbcast:n, "broadcast thread n within a row"
}
# name -> (lane, the code's operand n, wave size) -> source lane of the wave, or -1
_WAVE_RULES = {
    "DPP_WF_SL1": lambda i, n, size: np.where(i + 1 < size, i + 1, -1),     # wave_shl:1
    "DPP_WF_RL1": lambda i, n, size: (i + 1) % size,                        # wave_rol:1
    "DPP_WF_SR1": lambda i, n, size: i - 1,                                 # wave_shr:1 (lane 0: none)
    "DPP_WF_RR1": lambda i, n, size: (i - 1) % size,                        # wave_ror:1
    # "broadcast 15th thread of each row to next row", "thread 31 to rows 2 and 3"
    "DPP_ROW_BCAST15": lambda i, n, size: np.where(i >= 16, (i & ~15) - 1, -1),
    "DPP_ROW_BCAST31": lambda i, n, size: np.where(i >= 32, 31, -1),
}


class DppError(OperandError):
    """An operand selection the machine cannot make (an OperandError: preparing names the instruction)."""


def dpp16_sources(spec, ctrl: int, lanes: int) -> np.ndarray:
    """Source lane of every lane for a DPP16 control code: int array (L,), -1 = out of range."""
    for name, lo, hi, _ in spec.tables["dpp_ctrl"]:
        if lo <= ctrl <= hi and name in _WAVE_RULES:
            return _WAVE_RULES[name](np.arange(lanes), ctrl & 0xF, lanes)
        if lo <= ctrl <= hi and name in _ROW_RULES:
            lane = np.arange(lanes)
            # the operand n is the code's low 4 bits (row_shl:1 is 0x101) or the quad_perm selects
            row_lane = _ROW_RULES[name](lane & 15, ctrl & 0xF if name != "DPP_QUAD_PERM" else ctrl)
            return np.where(row_lane >= 0, (lane & ~15) + row_lane, -1)
    raise DppError(f"DPP_CTRL 0x{ctrl:x} is reserved")


def dpp8_sources(selects: list[int], lanes: int) -> np.ndarray:
    lane = np.arange(lanes)
    return (lane & ~7) + np.array(selects)[lane & 7]


class Dpp:
    """Prepared DPP of one instruction: permute(src0 (W, L), active (W, L)) -> (values, lanes that write)."""

    def __init__(self, spec, inst, lanes: int):
        word = inst.dpp
        if inst.dpp_kind == "DPP8":
            self.src = dpp8_sources([word[f"LANE_SEL{i}"] for i in range(8)], lanes)
            self.fetch_inactive = inst.fields.get("SRC0") == spec.traits.codes["DPP8FI"]
            self.bound_zero, self.write_lanes = True, None        # every DPP8 source is in range
        else:
            self.src = dpp16_sources(spec, word["DPP_CTRL"], lanes)
            self.fetch_inactive = bool(word.get("FI", 0))     # GFX9's DPP has no FI
            self.bound_zero = bool(word["BC"])
            lane = np.arange(lanes)
            row_ok = (word["ROW_MASK"] >> (lane >> 4)) & 1
            bank_ok = (word["BANK_MASK"] >> ((lane >> 2) & 3)) & 1
            self.write_lanes = (row_ok & bank_ok).astype(bool)[None, :]
        self.valid = self.src >= 0
        self.gather = np.where(self.valid, self.src, 0)

    def permute(self, value: np.ndarray, active: np.ndarray):
        """Lane-permuted src0 and the lanes allowed to write (the manual's BC/FI table): a
        source lane out of its row or inactive is 'invalid'; with FI set an inactive source
        is read anyway. An invalid source disables the write when BOUND_CTRL is clear
        (DPP16 without FI), otherwise it reads 0."""
        value = np.broadcast_to(value, active.shape)
        valid = np.broadcast_to(self.valid[None, :], active.shape)
        if not self.fetch_inactive:
            valid = valid & active[:, self.gather]
        out = np.where(valid, value[:, self.gather], value.dtype.type(0))
        writes = active if (self.bound_zero or self.fetch_inactive) else active & valid
        if self.write_lanes is not None:
            writes = writes & self.write_lanes
        return out, writes

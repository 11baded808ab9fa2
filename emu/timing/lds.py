"""LDS bank conflicts: how many passes the LDS needs for one DS instruction of a wave, from
the addresses its lanes accessed.

The RDNA3 manual (section 1.2.2.1 "Local Data Share" and 12.1 "Overview"; 12.5 "Data Share
Indexed and Atomic Access"): the LDS of a WGP is 64 banks of dword-wide RAMs, dwords placed
in the banks serially (dword address mod 64 is the bank); accesses to different banks go
at once, accesses to one bank are turned into serial accesses, and an access completes in
as little as one cycle for wave32 (two for wave64: its halves of 32 lanes go one after the
other) or up to 64 cycles with conflicts. So a half-wave's access takes as many passes as
the largest number of *distinct* dwords any one bank holds among the dwords its active
lanes touch (lanes reading the same dword share it: a broadcast is free). A conflict-free
access of a wide instruction (b96/b128: 96/128 dwords per half-wave) still needs more than
one pass; those passes are in the measured LDS latency, so only the passes beyond the
conflict-free count (`nominal_passes`) are charged as extra."""
from __future__ import annotations

import numpy as np

BANKS = 64              # dword-wide banks per WGP (manual 1.2.2.1, 12.1)
HALF = 32               # lanes served together (12.5: one cycle for wave32, two for wave64)


def nominal_passes(dwords_per_lane: int, banks: int = BANKS, lanes: int = HALF) -> int:
    """Passes a half-wave access of `dwords_per_lane` dwords per lane needs without conflicts."""
    return max(1, -(-lanes * dwords_per_lane // banks))


def half_passes(dwords: np.ndarray, active: np.ndarray, banks: int = BANKS) -> np.ndarray:
    """dwords: (R, N) dword addresses one half-wave's access touched per row (wave); active:
    (R, N) which of them count. Returns (R,): the largest number of distinct dwords one bank
    holds (0 for a row with nothing active). Vectorised over rows: each row sorted, a dword
    counted where it differs from its sorted predecessor, counts per (row, bank) by bincount."""
    rows, n = dwords.shape
    if not rows or not n:
        return np.zeros(rows, np.int64)
    d = np.where(active, dwords.astype(np.int64, copy=False), -1)
    d.sort(axis=1)
    first = np.ones((rows, n), bool)
    first[:, 1:] = d[:, 1:] != d[:, :-1]
    first &= d >= 0
    key = (np.arange(rows)[:, None] * banks + d % banks)[first]
    return np.bincount(key, minlength=rows * banks).reshape(rows, banks).max(axis=1)


def extra_passes(dwords: np.ndarray, active: np.ndarray, banks: int = BANKS, lanes: int = HALF) -> np.ndarray:
    """dwords: (R, L, K) the K dwords each of a wave's L lanes accessed (one DS instruction,
    all its accesses), active: (R, L). Returns (R,): passes beyond the conflict-free count,
    summed over the wave's half-waves of `lanes` lanes."""
    rows, width, k = dwords.shape
    halves = max(1, -(-width // lanes))
    nominal = nominal_passes(k, banks, lanes)
    total = np.zeros(rows, np.int64)
    for h in range(halves):          # wave32: one half; wave64: two (not a loop over lanes)
        part = slice(h * lanes, (h + 1) * lanes)
        d = dwords[:, part].reshape(rows, -1)
        a = np.repeat(active[:, part], k, axis=1)
        passes = half_passes(d, a, banks)
        total += np.maximum(passes - nominal, 0)
    return total

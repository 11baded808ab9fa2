"""DS_APPEND / DS_CONSUME: a per-wave counter in LDS at M0.base + offset.

The manual (DS chapter): "Inside DS, do one atomic add for first valid lane and broadcast
result to all valid lanes": the counter changes by countbits(EXEC) once per wave and every
active lane receives the value from before. The counter is at M0[15:0] + {OFFSET1, OFFSET0}:
the manuals disagree on M0's part (RDNA3's "M0.base", its GDS table's M0[31:16], RDNA4's code
without M0); isa.errata's *-ds-append-m0-address entries settle it with LLVM's code generation,
which puts the LDS pointer in M0 and the constant in the offset, and the DS fields table's
16-bit "M0 ... Unsigned byte Offset[15:0]": M0's high half is not part of the address. Waves of a batch that name the same address apply
their updates one after another in wave order (different work-groups' LDS are distinct;
treating equal addresses as shared only costs an extra round).
"""
from __future__ import annotations

import numpy as np


def counter(name: str, sign: int):
    def run(ctx):
        m0 = np.asarray(ctx.get("M0", name), np.uint64).reshape(-1, 1)
        addr = (m0 & np.uint64(0xFFFF)) + np.uint64(int(ctx.get("OFFSET", name)))
        count = np.bitwise_count(np.asarray(ctx.exec_mask, np.uint64)).reshape(-1, 1).astype(np.uint32)
        live = count > 0
        # rank of each live wave among the live waves with its address: the update rounds
        flat = np.where(live, addr, np.uint64(2**64 - 1)).reshape(-1)
        order = np.argsort(flat, kind="stable")
        first = np.r_[True, flat[order][1:] != flat[order][:-1]]
        pos = np.arange(flat.size)
        rank = np.empty_like(pos)
        rank[order] = pos - np.maximum.accumulate(np.where(first, pos, 0))
        rank = rank.reshape(-1, 1)
        before = np.zeros(count.shape, np.uint32)
        for r in range(int(rank.max(initial=0)) + 1):
            turn = live & (rank == r)
            old = ctx.mem.load(addr, 4, turn)
            new = old + count if sign > 0 else old - count            # modulo 2**32
            ctx.mem.store(addr, 4, new.astype(np.uint32), turn)
            before = np.where(turn, old, before)
        return {"RETURN_DATA": np.broadcast_to(before, ctx.shape)}
    return run

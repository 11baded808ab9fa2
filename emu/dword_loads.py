"""Multi-dword loads as one access (EmuOptions.dword_run_loads).

The manuals describe SMEM, GLOBAL, FLAT and buffer loads of 64 to 512 bits as one dword load
per field (`SDATA[63 : 32] = MEM[ADDR + 4U].b`), and the translated semantic makes one memory
access per dword: its bounds check, gather and field insert, n times. When the pseudocode is
exactly such a run (dword k of one destination from ADDR + 4k, k = 0 .. n-1: the instruction's
`field_loads` fact, isa/code_facts.py, read through emu/facts.py) and the access
goes to the device's global memory, `load_dword_runs` loads the run as one access: one bounds
check of [lowest address, highest address + 4n) against one allocation, one gather of n dwords
per lane. Anything else (an address outside one allocation or unaligned, a timing observer,
FLAT apertures, buffer range checks, LDS, scratch) runs the per-dword semantic, which also
names a faulting lane and address exactly as before.
"""
from __future__ import annotations

import numpy as np

from . import rtlib
from .memory import DeviceMemory, FlatMemory, SplitAddresses
from .options import current


def load_dword_runs(fn, name: str, dest: str, n: int):
    """The semantic fn of a dword-run load (dest and n: the field_loads fact), loading its run as one access
    when it can and running fn otherwise."""
    def run(ctx):
        if current().dword_run_loads:
            mem = ctx.mem
            if type(mem) is FlatMemory and mem.global_only(ctx.get("ADDR", name)):
                mem = mem.device        # (what FlatMemory.load does with such addresses)
            if type(mem) is DeviceMemory:
                value = _load_run(ctx, mem, name, dest, n)
                if value is not None:
                    return {dest: value}
        return fn(ctx)
    return run


def _load_run(ctx, mem: DeviceMemory, name: str, dest: str, n: int):
    """The destination's value as fn would build it: uint64 for two dwords (the old value's
    shape and the addresses' broadcast), else uint32 (..., n) dwords (dw_zeros' shape and
    the addresses' broadcast); None when the one access cannot be made."""
    if mem.observer is not None:
        return None
    addr = ctx.get("ADDR", name)
    addr = np.asarray(addr) if type(addr) is SplitAddresses else addr
    if type(addr) is not np.ndarray or addr.dtype != np.uint64:
        return None
    if addr.size == 1 and rtlib._all_active(ctx):
        raw = mem.load_bytes(int(addr.reshape(-1)[0]), 4 * n)
        if raw is None:
            return None
        words = np.frombuffer(raw, np.uint32).reshape(addr.shape + (n,))
    else:
        words = mem.load_dwords(rtlib._batch(addr, ctx), n, rtlib._mem_mask(ctx, None))
        if words is None:
            return None
    if n == 2:
        shape = np.broadcast_shapes(np.shape(ctx.get(dest, name)), words.shape[:-1])
        joined = words[..., 1].astype(np.uint64)
        joined <<= np.uint64(32)
        joined |= words[..., 0]
        return np.array(np.broadcast_to(joined, shape))
    zeros = rtlib.dw_zeros(ctx, n)
    return np.array(np.broadcast_to(words, np.broadcast_shapes(zeros.shape, words.shape)))

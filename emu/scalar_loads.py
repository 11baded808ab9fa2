"""Scalar loads of one address as one read (EmuOptions.scalar_load_steps).

An SMEM load whose pseudocode is a run of dwords (dword k of SDATA from ADDR + 4k, k = 0 .. n-1:
the instruction's `dword_loads` fact, isa/code_facts.py, read through emu/facts.py) reads one
address per wave, and a kernel's loads of its arguments read the same address in every wave
(the kernarg pointer). Its compiled step through the semantic builds a Ctx, runs the generated
code, fits and broadcasts the result (~40-70 us a load). This step computes the address as the
prepared ADDR input does, and when it is one value for the batch and its 4n bytes lie in one
allocation it reads them with Python-int bounds and hands the dwords to the prepared SDATA
writer, which stores them in every wave of the batch (and notes them uniform) as the
semantic's result would be. Anything else (addresses that differ between waves, an address out
of bounds, a timing observer on memory) runs the instruction's own compiled step, which names a
fault exactly as before.
"""
from __future__ import annotations

import numpy as np

from .facts import dword_loads


def scalar_load_step(p, memory, plain):
    """The step of p, an SMEM dword-run load from global `memory`, falling back to `plain`
    (its compiled step); None when p is not such a load."""
    if not p.scalar or p.sem.memory != "load" or p.buffer is not None or p.second is not None \
            or len(p.inst.defs) != 1 or set(p.sem.writes) != {"SDATA"} or "SDATA" not in p.writers:
        return None
    run = dword_loads(p.inst.defs[0])
    address, writer, out = p.inputs.get("ADDR"), p.writers["SDATA"], p.sem.writes.get("SDATA")
    if run is None or run[0] != "SDATA" or not callable(address) or out is None or out.bits != 32 * run[1]:
        return None
    n = run[1]
    nbytes = 4 * n

    def step(chunk, sel, idx, state=None, status=None):
        if memory.observer is None:
            st = chunk.st
            addr = address(st, sel)
            if addr.size == 1:
                raw = memory.load_bytes(int(addr.reshape(-1)[0]), nbytes)
                if raw is not None:
                    writer(st, sel, _value(raw, n), None)
                    return
        plain(chunk, sel, idx, state, status)
    return step


def _value(raw: bytes, n: int) -> np.ndarray:
    """The loaded dwords as the semantic returns SDATA for one wave: uint32 (1, 1) for one,
    uint64 (1, 1) for two (dword 0 in bits 31:0), uint32 (1, 1, n) for more."""
    if n == 1:
        return np.array([[int.from_bytes(raw, "little")]], np.uint32)
    if n == 2:
        return np.array([[int.from_bytes(raw, "little")]], np.uint64)
    return np.frombuffer(raw, "<u4").astype(np.uint32).reshape(1, 1, n)

"""What a timed launch's memory observer (the Memory protocol's `observer` hook: the timing
model's LDS bank conflicts and cache lines) sees of an atomic: every active lane's accesses, once
per instruction, whatever way the functional path applies the lanes.

Lanes of an atomic that share an address apply one after another. Reference mode runs them in
rounds (each round a load and a store of some lanes), the fast paths once per address (the
first lane's load, the last lane's store: emu/atomic_scan.py, emu/atomic_words.py's one pass,
combined sums). Neither is the instruction's access: the LDS serves every active lane's address
of a DS atomic in one access (RDNA3 manual 12.5, "Data Share Indexed and Atomic Access"), and
the bank conflict rule counts the distinct dwords those addresses hold per bank. So the
addresses come from one place: the pseudocode run once on the whole batch against a recorder
(atomic_words.Recorder: nothing touched; an atomic's addresses do not depend on what it
loads); each distinct access (a read-modify-write reads and writes the same words: one access)
is shown to the observers, and the functional path then runs with them muted."""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .atomic_words import Recorder
from .semantics import Ctx


def _observed(mem) -> list:
    """The memories at or under `mem` (a flat or buffer view's device, LDS, scratch) with an
    observer set."""
    found = []
    for m in (mem, getattr(mem, "device", None), getattr(mem, "lds", None), getattr(mem, "scratch", None)):
        if m is not None and getattr(m, "observer", None) is not None and all(m is not f for f in found):
            found.append(m)
    return found


def _accesses(fn, ctx: Ctx) -> list | None:
    """The distinct (addresses (W, L) uint64, bytes, mask (W, L)) the semantic accesses on
    ctx's active lanes, in pseudocode order; None when it does not run against a recorder (the
    functional path reports why, observed as it goes)."""
    recorder = Recorder(ctx.shape)
    try:
        fn(ctx.derive(mem=recorder))
    except Exception:           # noqa: BLE001 - the functional run below raises it with its context
        return None
    distinct: list = []
    for addr, nbytes, mask in recorder.accesses:
        if not any(n == nbytes and np.array_equal(a, addr) and np.array_equal(m, mask) for a, n, m in distinct):
            distinct.append((addr, nbytes, mask))
    return distinct


@contextmanager
def observed_once(fn, ctx: Ctx):
    """Around an atomic's functional run: with no observer set, nothing; else the instruction's
    accesses shown to the observers once (as loads through ctx.mem, which route a flat address
    to its memory and keep a buffer's out-of-range lanes out), then the observers muted while
    the functional path runs."""
    held = _observed(ctx.mem)
    accesses = _accesses(fn, ctx) if held else None
    if accesses is None:
        yield
        return
    for addr, nbytes, mask in accesses:
        try:
            ctx.mem.load(addr, nbytes, mask)
        except Exception:       # noqa: BLE001 - a fault is the functional run's to report
            break
    saved = [(m, m.observer) for m in held]
    for m in held:
        m.observer = None
    try:
        yield
    finally:
        for m, observer in saved:
            m.observer = observer

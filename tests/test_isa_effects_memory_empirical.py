"""The memory effects model (isa.memory_access.memory_effects) against the emulator, memory
instruction by memory instruction (tests/effects_check_memory.py says how): changing a register
or memory the model does not read changes no output, changing one it reads changes only
registers and memory it writes, and a run changes only what it writes. CI checks a seeded sample
of the DS, FLAT/GLOBAL/SCRATCH, buffer and SMEM instructions of each target (gfx1100, its wave64,
gfx1151, gfx1201, gfx942, gfx950) against a sample of the other registers; WAVESMITH_EFFECTS_FULL=1 checks every one of them, WAVESMITH_EFFECTS_SEED
picks another sample."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tests.effects_check import disagreements, table
from tests.effects_check_memory import KNOWN, TARGETS, MemoryChecker, check

FULL = bool(os.environ.get("WAVESMITH_EFFECTS_FULL"))
SEED = int(os.environ.get("WAVESMITH_EFFECTS_SEED", "0"))


@pytest.mark.parametrize("target", TARGETS)
def test_memory_effects_agree_with_the_emulator(target):
    results = check((target,), sample=24 if FULL else 6, per_target=None if FULL else 16, seed=SEED)[target]
    print(f"\n{target} (seed {SEED}{', full' if FULL else ''}):\n{table(results)}")
    checked = [r for r in results if not r.skipped]
    # (CDNA: the emulator runs none of SMEM's atomics, scratch loads and stores, s_memtime: 10-20%)
    assert len(checked) >= 0.7 * len(results), [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    bad = disagreements(results, KNOWN)
    assert not bad, "the model and the emulator disagree:\n" + "\n".join(bad)
    if FULL:     # every listed disagreement still happens (none is stale)
        names = {r.name for r in results if r.hard}
        assert not set(KNOWN) - names, f"KNOWN entries that agree now: {sorted(set(KNOWN) - names)}"


def _wrong(monkeypatch, name: str, change):
    """The checker with the model of `name` changed by `change(MemoryEffects) -> MemoryEffects`."""
    import isa.memory_access as ma
    import isa.memory_registers as mr
    import tests.effects_check_memory as ecm
    real = ma.memory_effects

    def wrong(d):
        e = real(d)
        return change(e) if d.name == name else e
    monkeypatch.setattr(ecm, "memory_effects", wrong)
    monkeypatch.setattr(ma, "memory_effects", wrong)
    monkeypatch.setattr(mr, "memory_effects", wrong)     # (memory_registers reads it too)
    return MemoryChecker("gfx1100")


def test_the_check_finds_a_forgotten_data_register(monkeypatch):
    """A model of ds_store_b32 whose encoding reads no data register: changing DATA0 changes LDS."""
    import tests.effects_check_memory as ecm
    real = ecm.memory_registers

    def wrong(d, fields, traits):
        reads, writes = real(d, fields, traits)
        return ({k: n for k, n in reads.items() if k != "DATA0"} if d.name == "DS_STORE_B32" else reads), writes
    monkeypatch.setattr(ecm, "memory_registers", wrong)
    c = MemoryChecker("gfx1100")
    d = c.spec.lookup("ds_store_b32")[0]
    r = c.run(d, np.random.default_rng(0), sample=4)
    assert not r.skipped, r.skipped
    assert any(f.startswith("v16->mem:lds") for f in r.findings["undeclared_input"]), dict(r.findings)


def test_the_check_finds_a_load_that_writes_memory(monkeypatch):
    """A model of global_load_b32 as reading no memory and writing memory instead."""
    from isa.fact_types import MemoryEffects
    c = _wrong(monkeypatch, "GLOBAL_LOAD_B32", lambda e: MemoryEffects(e.space, "write", e.reads, e.writes,
                                                                       e.partial, e.implicit))
    d = c.spec.lookup("global_load_b32")[0]
    r = c.run(d, np.random.default_rng(0), sample=4)
    assert not r.skipped, r.skipped
    assert "within:global->v40" in r.findings["undeclared_input"] or \
        any(f.startswith("within:global->") for f in r.findings["undeclared_input"]), dict(r.findings)
    assert "mem:global" in r.findings["unseen_write"], dict(r.findings)


@pytest.mark.parametrize("target", TARGETS)
def test_lds_by_lane_id_checked(target):
    """The DS instructions that address LDS by lane ID alone (no ADDR VGPR: ds_store_addtid_b32,
    ds_load_addtid_b32; CDNA's ds_write/read_addtid_b32) run and agree with the model on every
    target, every other register perturbed; the emulator once refused the store ("DATA0 not
    supplied"), which left them out of the check as skipped."""
    from isa.memory_access import lds_operands, memory_effects
    c = MemoryChecker(target)
    insts = [d for d in c.instructions if memory_effects(d).space == "lds" and memory_effects(d).memory in ("read", "write")
             and d.format not in ("LDSDIR", "VDSDIR") and not lds_operands(d).address]
    assert len(insts) == 2, [d.name for d in insts]
    results = [c.run(d, np.random.default_rng([k, 5]), None) for k, d in enumerate(insts)]
    assert not [r for r in results if r.skipped], [f"{r.name}: {r.skipped}" for r in results if r.skipped]
    bad = disagreements(results, KNOWN)
    assert not bad, "the model and the emulator disagree:\n" + "\n".join(bad)

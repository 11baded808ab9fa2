"""emu/fold.py: expressions of instruction-word fields in generated semantics computed once
per field value. Branch targets against the manual's rule computed here in Python ints
(PC + 4 + sign-extended SIMM16 * 4 when taken, PC + 4 when not), with folding on and off,
for many SIMM16 values through the same semantic (a kept value is never another field
value's), and a folded expression whose value is an array is never kept (the caller may
write into it)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from emu import Ctx, load_semantics
from emu.fold import fold
from emu.options import FAST, activate, deactivate

RNG = np.random.default_rng(5)
WAVES = 7
# (branch, the input it tests, taken when that input is ...)
BRANCHES = [("s_branch", None, None), ("s_cbranch_scc0", "SCC", 0), ("s_cbranch_scc1", "SCC", 1),
            ("s_cbranch_execz", "EXEC", 0), ("s_cbranch_execnz", "EXEC", 1)]


def _target(pc: int, simm16: int, taken: bool) -> int:
    offset = simm16 - (1 << 16) if simm16 & 0x8000 else simm16
    return (pc + 4 + (offset * 4 if taken else 0)) & (2**64 - 1)


@pytest.mark.parametrize("fold_on", [True, False])
@pytest.mark.parametrize("name, what, when", BRANCHES)
def test_branch_targets_follow_simm16_with_folding_on_and_off(name, what, when, fold_on):
    sem = load_semantics("gfx1100").lookup(name)
    # the generated (folded) branch semantics, not emu/shortcuts.py's
    token = activate(replace(FAST, fold_constants=fold_on, branch_shortcuts=False))
    try:
        for simm16 in [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0xFFFE] + list(RNG.integers(0, 1 << 16, 20)):
            simm16 = int(simm16)
            pc = int(RNG.integers(0x1000_0000, 0x2000_0000)) & ~3
            scc = RNG.integers(0, 2, (WAVES, 1)).astype(np.uint32)
            exec_mask = np.where(RNG.random((WAVES, 1)) < 0.5, 0, RNG.integers(1, 2**32, (WAVES, 1))).astype(np.uint64)
            ctx = Ctx(lanes=32, exec_mask=exec_mask, scalar=True,
                      inputs={"PC": np.full((1, 1), pc, np.uint64), "SIMM16": simm16, "SCC": scc})
            got = np.broadcast_to(sem.execute(ctx)["PC"], (WAVES, 1)).reshape(-1)
            for w in range(WAVES):
                if what is None:
                    taken = True
                elif what == "SCC":
                    taken = int(scc[w, 0]) == when
                else:
                    taken = (int(exec_mask[w, 0]) != 0) == bool(when)
                assert int(got[w]) == _target(pc, simm16, taken), (name, hex(simm16), w)
    finally:
        deactivate(token)


def test_branch_offset_is_folded():
    sem = load_semantics("gfx1100").lookup("s_cbranch_scc0")
    table = load_semantics("gfx1100")
    d = next(d for d in table.spec.lookup("S_CBRANCH_SCC0"))
    source = table._cache.entries[table._cache.key(d, True, False, True, table.spec)]["source"]
    folded, made = fold(source)
    assert len(made) >= 1 and any(f.fields == ["SIMM16"] for f in made.values())
    assert "R.signext" not in folded and sem is not None


def test_an_array_value_is_computed_every_time():
    source = ("def semantic(ctx):\n    SIMM16 = R.U64(ctx.get('SIMM16', 'X'))\n"
              "    A = np.full((1, 1), R.access(SIMM16, 'u', 16))\n    B = R.U64(2) * SIMM16\n"
              "    return {'A': A, 'B': B}\n")
    folded, made = fold(source)
    assert len(made) == 2
    from emu import rtlib
    namespace = {"R": rtlib, "np": np}
    for name, f in made.items():
        f.bind(namespace)
        namespace[name] = f
    exec(folded, namespace)
    ctx = Ctx(lanes=32, exec_mask=np.ones((1, 1), np.uint64), scalar=True, inputs={"SIMM16": 7})
    first, second = namespace["semantic"](ctx), namespace["semantic"](ctx)
    assert first["A"] is not second["A"] and int(first["A"][0, 0]) == 7
    first["A"][0, 0] = 99           # a caller writing into the array it got changes no later result
    assert int(namespace["semantic"](ctx)["A"][0, 0]) == 7
    assert int(namespace["semantic"](Ctx(lanes=32, exec_mask=np.ones((1, 1), np.uint64), scalar=True,
                                         inputs={"SIMM16": 9}))["B"]) == 18


def _sext16(v: int) -> int:
    return v - (1 << 16) if v & 0x8000 else v


def _s32(v: int) -> int:
    return v - (1 << 32) if v >> 31 else v


# SOPK results from Python integers: (D0 or None, SCC or None) of S0 / D0 / SCC and SIMM16
_SOPK = {
    "s_movk_i32": lambda s0, d0, scc, k: (_sext16(k) & 0xFFFF_FFFF, None),
    "s_addk_i32": lambda s0, d0, scc, k: ((d0 + _sext16(k)) & 0xFFFF_FFFF,
                                          int(not -2**31 <= _s32(d0) + _sext16(k) < 2**31)),
    "s_mulk_i32": lambda s0, d0, scc, k: ((_s32(d0) * _sext16(k)) & 0xFFFF_FFFF, None),
    "s_cmovk_i32": lambda s0, d0, scc, k: (_sext16(k) & 0xFFFF_FFFF if scc else d0, None),
    "s_cmpk_lt_i32": lambda s0, d0, scc, k: (None, int(_s32(s0) < _sext16(k))),
    "s_cmpk_ge_i32": lambda s0, d0, scc, k: (None, int(_s32(s0) >= _sext16(k))),
    "s_cmpk_eq_u32": lambda s0, d0, scc, k: (None, int(s0 == k)),
    "s_cmpk_gt_u32": lambda s0, d0, scc, k: (None, int(s0 > k)),
}


@pytest.mark.parametrize("name", sorted(_SOPK))
def test_sopk_results_with_folded_simm16(name):
    """SOPK instructions compute with SIMM16 (sign- or zero-extended): every result against
    Python integers, with folding on and off, over edge and random SIMM16 values, each
    through the same semantic in turn."""
    sem = load_semantics("gfx1100").lookup(name)
    edges = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x8001]
    s0 = np.array([0, 1, 0x7FFF, 0x8000, 0xFFFF_8000, 0xFFFF_FFFF, 0x7FFF_FFFF, 0x8000_0000], np.uint32)
    d0 = np.roll(s0, 3)
    scc = (np.arange(len(s0)) % 2).astype(np.uint32)
    for fold_on in (True, False):
        token = activate(replace(FAST, fold_constants=fold_on))
        try:
            for k in edges + [int(v) for v in RNG.integers(0, 1 << 16, 12)]:
                out = sem.execute(Ctx(lanes=32, exec_mask=np.full((len(s0), 1), 0xFFFF_FFFF, np.uint64), scalar=True,
                                      inputs={"S0": s0[:, None], "D0": d0[:, None], "SCC": scc[:, None], "SIMM16": k}))
                for w in range(len(s0)):
                    want_d0, want_scc = _SOPK[name](int(s0[w]), int(d0[w]), int(scc[w]), k)
                    if want_d0 is not None:
                        assert int(np.broadcast_to(out["D0"], (len(s0), 1))[w, 0]) == want_d0, (name, hex(k), w, fold_on)
                    if want_scc is not None:
                        assert int(np.broadcast_to(out["SCC"], (len(s0), 1))[w, 0]) == want_scc, (name, hex(k), w, fold_on)
        finally:
            deactivate(token)


def test_every_folded_source_compiles():
    """Each generated gfx1100 semantic whose source reads an instruction-word field, folded:
    valid Python whose folded expressions bind in the generated code's namespace."""
    from emu import rtlib
    table = load_semantics("gfx1100")
    folded = 0
    for d in table.spec.instructions:
        sem = table.get(d)
        if sem is None or sem.origin != "generated":
            continue
        entry = table._cache.entries.get(table._cache.key(d, d.format in table.spec.traits.roles.scalar, False, True,
                                                          table.spec))
        if not entry or "source" not in entry:
            continue
        source, made = fold(entry["source"])
        namespace = {"R": rtlib, "np": np, "INSTRUCTIONS": lambda m: None}
        for name, f in made.items():
            f.bind(namespace)
            namespace[name] = f
        exec(compile(source, d.name, "exec"), namespace)
        assert callable(namespace["semantic"])
        folded += bool(made)
    assert folded >= 60        # branches, SOPK, DS offsets, register numbers (72 on gfx1100)

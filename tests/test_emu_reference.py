"""Reference mode (emu/options.py): every fast path off, one semantic call per wave.

Every kernel of ../shared/kernels runs in full reference mode and in fast mode and must
leave the same bytes in memory, the same final registers and the same fault. One wave per
call costs ~0.2 ms a wave-instruction, so here each kernel runs one work-group of its
manifest's launch on one of the targets (taken in turn) and on gfx1201 (EVERY_KERNEL), with an instruction
budget of about WAVE_INSTRUCTIONS for the group (a kernel that needs more stops with the
same BudgetExceeded fault in both modes, memory compared up to there);
test_emu_kernels.py runs every launch whole on all three targets with every fast path off
but wave batching, and `python -m tests.emu_fuzz --corpus` runs the whole corpus in full
reference mode offline. Each switch alone is checked on kernels that exercise it."""
from __future__ import annotations

import numpy as np
import pytest

from emu.options import FAST, REFERENCE, SWITCHES, OptionsError, from_environment, options_from
from tests.conftest import SHARED
from tests.emu_differential import differences, run_outcome
from tests.kernel_corpus import NOT_YET, TARGETS, cases, make_inputs, wave_size

WAVE_INSTRUCTIONS = 4000
ROOT = SHARED / "kernels"
CASES = [c for c in cases(ROOT) if any(t in c.manifest["code_objects"] for t in TARGETS)] if ROOT.exists() else []


def launches(dev, case, target: str, grid, repeat: int = 1):
    """Outcomes of `repeat` launches of a corpus kernel on `dev` (one work-group's worth of
    instructions at most: WAVE_INSTRUCTIONS over its waves)."""
    m = case.manifest
    inputs = make_inputs(m)
    prg = dev.load((case.folder / m["code_objects"][target]).read_bytes())
    args = [inputs[a["name"]] if a["kind"] == "scalar" else
            dev.alloc(inputs[a["name"]].nbytes, a["name"]).copyin(inputs[a["name"]]) for a in m["args"]]
    waves = -(-int(np.prod(m["launch"]["block"])) // wave_size(target))
    budget = max(200, WAVE_INSTRUCTIONS // waves)
    return [run_outcome(dev.machine, lambda: prg.launch(m["kernel"], grid=grid, block=m["launch"]["block"],
                                                        args=args, budget=budget)) for _ in range(repeat)]


def launch(case, target: str, options, grid):
    from runtime import Device
    return launches(Device("emu", arch=target.split("-")[0], options=options), case, target, grid)[0]


# targets every kernel runs on here, besides one of the others in turn (RDNA4's encodings and
# memory pseudocode reach the fast paths differently from RDNA3's)
EVERY_KERNEL = ("gfx1201",)


def _one_target_each():
    """Each kernel on one of the targets in turn, and on every target of EVERY_KERNEL."""
    for i, case in enumerate(CASES):
        ok = [t for t in TARGETS if t in case.manifest["code_objects"] and (case.name, t) not in NOT_YET]
        turn = [t for t in ok if t not in EVERY_KERNEL]
        targets = ([turn[i % len(turn)]] if turn else []) + [t for t in ok if t in EVERY_KERNEL]
        for target in targets:
            yield pytest.param(case, target, id=f"{case.name}-{target}")


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("case, target", list(_one_target_each()))
def test_reference_mode_agrees_on_the_corpus(case, target):
    fast, ref = launch(case, target, FAST, (1, 1, 1)), launch(case, target, REFERENCE, (1, 1, 1))
    assert fast.fault is None and fast.instructions > 0 or "BudgetExceeded" in fast.fault, fast.fault
    diff = differences(fast, ref)
    assert not diff, f"{case.name} on {target}, one work-group: {diff}"


# kernels that reach each switch's fast path (a second launch on the same device for the
# register-reuse switches: the corpus test in test_emu_kernels.py covers that across kernels)
_KERNELS = ("sgemm_tiled_lds", "private_array_scratch")


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("switch", SWITCHES)
def test_each_switch_alone_agrees(switch):
    """One switch off, the rest on: the same results as fast mode, twice on one device (the
    second launch reuses the first one's registers)."""
    from runtime import Device
    by_name = {c.name: c for c in CASES}
    outcomes = []
    for options in (FAST, options_from(off=[switch])):
        dev = Device("emu", arch="gfx1100", options=options)
        for name in _KERNELS:
            outcomes += launches(dev, by_name[name], "gfx1100", (1, 1, 1), repeat=2)
    half = len(outcomes) // 2
    for i, (fast, off) in enumerate(zip(outcomes[:half], outcomes[half:])):
        assert fast.fault is None, fast.fault
        diff = differences(fast, off, names=("fast", f"without {switch}"))
        assert not diff, f"{_KERNELS[i // 2]} launch {i % 2 + 1}: {diff}"


def test_options_from_names_and_environment(monkeypatch):
    assert REFERENCE.reference and not FAST.reference and FAST.off() == ()
    assert set(REFERENCE.off()) == set(SWITCHES)
    assert options_from(off=["narrow_uint32"]).off() == ("narrow_uint32",)
    with pytest.raises(OptionsError, match="unknown emulator switch.*nope.*batch_waves"):
        options_from(off=["nope"])
    monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    assert from_environment() == REFERENCE
    monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "0")
    monkeypatch.setenv("WAVESMITH_EMU_OFF", "split_addresses, fma_shortcuts")
    assert set(from_environment().off()) == {"split_addresses", "fma_shortcuts"}


def test_device_takes_reference_and_options(monkeypatch):
    from runtime import Device, DeviceError
    monkeypatch.delenv("WAVESMITH_EMU_REFERENCE", raising=False)
    monkeypatch.delenv("WAVESMITH_EMU_OFF", raising=False)
    assert Device("emu").machine.options == FAST
    assert Device("emu", reference=True).machine.options == REFERENCE
    # the reference device's semantics are translated without the uint32 statements
    assert not Device("emu", reference=True).machine.semantics.narrow
    monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    assert Device("emu").machine.options == REFERENCE
    with pytest.raises(DeviceError, match="contradict"):
        Device("emu", reference=True, options=FAST)


def test_reference_translation_has_no_uint32_statements():
    """narrow_uint32 off changes the generated code (a different cache key: both kinds of
    table coexist), and the plain code computes the same bits."""
    import isa
    from emu import Ctx, load_semantics
    from emu.table import translate
    d = next(d for d in isa.load("gfx1100").lookup("v_add_nc_u32") if d.format == "VOP2")
    assert "R.into(" in translate(d, False)["source"]
    assert "R.into(" not in translate(d, False, narrow=False)["source"]
    a = np.array([[0xFFFFFFFF, 7]], np.uint32)
    b = np.array([[1, 0x80000000]], np.uint32)
    outs = [table.get(d).execute(Ctx(lanes=2, exec_mask=np.array([[3]], np.uint64), inputs={"S0": a, "S1": b}))["D0"]
            for table in (load_semantics("gfx1100"), load_semantics("gfx1100", narrow=False))]
    assert outs[0].tolist() == outs[1].tolist() == [[0, 0x80000007]]

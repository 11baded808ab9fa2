"""A group of waves at one PC wider than one semantic call takes (emu/machine.py SLICE_LANES)
runs its plain steps slice by slice in the run loop's together path (switch wide_plain_steps):
the same calls in the same wave order as the general path's slices, so the registers, and a
refused batch's error, must be what reference mode (one call per wave) and the switch off give.
SLICE_LANES is made small here so that a few waves make a wide group; each test checks that the
sliced path was taken."""
from __future__ import annotations

import numpy as np
import pytest

from emu import machine as machine_module
from emu.options import FAST, REFERENCE, options_from
from tests.test_emu_fuzz import _run_groups


@pytest.fixture
def sliced(monkeypatch):
    """Two waves of 32 lanes per semantic call; counts the calls of _Chunk.slices."""
    monkeypatch.setattr(machine_module, "SLICE_LANES", 64)
    calls = [0]
    slices = machine_module._Chunk.slices

    def counting(self, *args):
        calls[0] += 1
        return slices(self, *args)
    monkeypatch.setattr(machine_module._Chunk, "slices", counting)
    return calls


def _program(ns):
    from dsl.operands import lit, s, v, vcc_lo
    return [ns["v_cvt_f32_u32"](v[1], v[0]),                         # lane as f32
            ns["v_cvt_f32_u32"](v[2], s[0]),                         # work-group as f32
            ns["v_fma_f32"](v[3], v[1], lit(0x3FC00000), v[2]),      # lane * 1.5 + group
            ns["v_cmp_gt_f32"](vcc_lo, v[3], lit(0x41A00000)),       # > 20.0
            ns["v_cndmask_b32"](v[4], v[1], v[3], vcc_lo),
            ns["v_max_f32"](v[5], v[3], v[2]),
            ns["v_cmpx_gt_u32"](lit(24), v[0]),                        # lanes 24..31 off
            ns["v_add_nc_u32"](v[6], v[0], 100),
            ns["v_sqrt_f32"](v[7], v[3])]


def test_wide_group_in_slices_agrees_with_reference(sliced):
    groups = 7          # one wave each: a group of 7 waves, slices of 2, 2, 2, 1
    fast = _run_groups("gfx1100", 32, _program, FAST, groups)
    assert sliced[0] > 0
    reference = _run_groups("gfx1100", 32, _program, REFERENCE, groups)
    without = _run_groups("gfx1100", 32, _program, options_from(off=["wide_plain_steps"]), groups)
    np.testing.assert_array_equal(fast, reference)
    np.testing.assert_array_equal(fast, without)
    lane = np.arange(32, dtype=np.float32)[None, :]
    group = np.arange(groups, dtype=np.float32)[:, None]
    x = lane * np.float32(1.5) + group            # exact in f32: the fma's single rounding is no rounding
    np.testing.assert_array_equal(fast[3].view(np.float32), x)
    np.testing.assert_array_equal(fast[4].view(np.float32), np.where(x > 20, x, np.broadcast_to(lane, x.shape)))
    np.testing.assert_array_equal(fast[5].view(np.float32), np.maximum(x, group))
    on = np.arange(32) < 24
    np.testing.assert_array_equal(fast[6][:, on], np.broadcast_to(np.arange(24, dtype=np.uint32) + 100, (groups, 24)))
    np.testing.assert_array_equal(fast[6][:, ~on], 0)
    np.testing.assert_array_equal(fast[7][:, on].view(np.float32), np.sqrt(x[:, on]))


def test_refused_slice_reports_the_first_failing_wave(sliced):
    """MODE asks f32 results rounded toward +infinity, which the emulator models for the fma but
    refuses for v_sqrt_f32: the slice's
    batch is retried wave by wave, and the error names the same instruction and PC in every mode."""
    from emu.machine import EmuError
    messages = []
    for options in (FAST, REFERENCE, options_from(off=["wide_plain_steps"])):
        with pytest.raises(EmuError) as error:
            _run_groups("gfx1100", 32, _program, options, 5, mode=0x3F1)
        messages.append(str(error.value))
    assert sliced[0] > 0
    assert messages[0] == messages[1] == messages[2], messages
    assert "PC 0x" in messages[0] and "FP_ROUND" in messages[0], messages[0]

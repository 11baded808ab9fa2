"""Cross-lane instructions through the machine against numpy lane arithmetic: v_permlane64
(manual: wave64 swaps the halves, lane i <- lane i ^ 32, writing active lanes; a wave32 does
nothing) and the DPP16 controls (manual 'DPP16' table: row_share, row_xmask, wave-wide
shifts, row broadcasts) for wave32 and wave64."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dsl
from emu.launch import Dispatch
from emu.machine import EmuError, Machine, UnsupportedInstruction
from emu.memory import DeviceMemory
from emu.table import load_semantics
from tests.test_emu_machine import launch, loads


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("same_register", [False, True])
def test_permlane64_swaps_halves_in_wave64_and_does_nothing_in_wave32(wave, same_register):
    dst = "v2" if same_register else "v1"
    src = loads("o") + f"""
        v_lshlrev_b32 v30, 2, v0
        v_add_nc_u32 v2, 100, v0            // source: 100 + lane
        v_mov_b32 v1, 0x1234                // destination's old value
        v_and_b32 v3, 1, v0
        v_cmpx_eq_u32 1, v3                 // odd lanes only
        v_permlane64_b32 {dst}, v2
        s_mov_b64 exec, -1
        global_store_b32 v30, {dst}, s[4:5]
        s_endpgm"""
    out, _ = launch(src, {"o": np.zeros(wave, np.uint32)}, block=(wave, 1, 1), wave=wave)
    lane = np.arange(wave)
    old = 100 + lane if same_register else np.full(wave, 0x1234)
    if wave == 32:
        want = old                                          # "Supported in wave64 ONLY": no effect
    else:
        want = np.where(lane % 2 == 1, 100 + (lane ^ 32), old)   # inactive source lanes are read too
    assert (out["o"] == want).all()


def _run_code(code: bytes, lanes: int = 32, semantics=None):
    mem = DeviceMemory()
    at = mem.alloc(len(code), "code")
    mem.write(at, bytes(code))
    d = Dispatch("lanes_kernel", at, grid=(1, 1, 1), block=(lanes, 1, 1), wave_size=lanes, vgprs=8)
    return Machine("gfx1100", mem, semantics).run(d), at


@pytest.mark.parametrize("ctrl", [0x100, 0x110, 0x120, 0x130, 0x142, 0x170, 0x1FF])
def test_reserved_dpp_control_is_an_emu_error_naming_kernel_pc_and_instruction(ctrl):
    """The manual's DPP_CTRL table leaves these codes reserved (every defined control is
    modelled, test_emu_machine.test_dpp_lane_selection); running one is refused as an
    EmuError, not a raw exception of the DPP module."""
    code = bytearray(dsl.assemble("v_mov_b32_dpp v1, v0 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
                                  "gfx1100", 32))
    word = int.from_bytes(code[4:8], "little")
    code[4:8] = ((word & ~(0x1FF << 8)) | (ctrl << 8)).to_bytes(4, "little")
    code += bytes(dsl.assemble("s_endpgm", "gfx1100", 32))
    with pytest.raises(EmuError) as e:
        _run_code(bytes(code))
    assert isinstance(e.value, UnsupportedInstruction)
    text = str(e.value)
    assert "lanes_kernel" in text and "PC 0x" in text and "v_mov_b32" in text and f"0x{ctrl:x}" in text


class _BrokenMov:
    """The real semantics, except v_mov_b32 returns a value no 32-bit register holds (its writeback fails)."""

    def __init__(self):
        self.table = load_semantics("gfx1100")

    def get(self, d):
        sem = self.table.get(d)
        if d.name == "V_MOV_B32":
            return dataclasses.replace(sem, fn=lambda ctx: {"D0": np.full(ctx.shape, 2 ** 70, object)})
        return sem


def test_any_exception_out_of_an_instruction_is_an_emu_error_naming_kernel_pc_and_instruction():
    code = dsl.assemble("v_mov_b32 v1, v0\ns_endpgm", "gfx1100", 32)
    with pytest.raises(EmuError) as e:
        _run_code(code, semantics=_BrokenMov())
    text = str(e.value)
    assert "lanes_kernel" in text and "PC 0x" in text and "`v_mov_b32_e32 v1, v0`" in text and "OverflowError" in text
    assert e.value.__cause__ is not None            # the defect's own exception stays chained

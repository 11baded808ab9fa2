"""FI and BOUND_CTRL of the permlane16 family on the emulator (emu/machine_permlane.py) against the
manual's rule, computed here with numpy: OPSEL[0] is DPP's FI and OPSEL[1] its BOUND_CTRL (the
V_PERMLANE16_B32 entry; RDNA4 7.9 Table 39 "BC and FI Behavior"): a lane whose source lane is
disabled reads it only with FI; without FI it is not written (BOUND_CTRL 0) or reads 0 (1). Lane
selects stay in a row of 16 (v_permlane16: the lane's nibble of {S2, S1}; *_var: the low 4 bits of
its SRC1 VGPR; x16: from the other row of the pair). Inactive lanes keep their value."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch

EXECS = {32: [0x7FFF7FFF, 0x80008000, 0xFFFFFFFF, 0x12345679], 64: [0x7FFF7FFF7FFF7FFF, 0xF0F0F0F00FFF8001]}
S1, S2 = 0x87654321, 0x0FEDCBA9


def _expected(lanes: int, exec_: int, cross: bool, var: bool, fi: int, bc: int) -> np.ndarray:
    lane = np.arange(lanes)
    data = (100 + 7 * lane).astype(np.uint32)
    old = (0xDEAD0000 | lane).astype(np.uint32)
    sel = (5 * lane + 3) & 15 if var else np.array([(S2 << 32 | S1) >> (4 * (i % 16)) & 15 for i in range(lanes)])
    row = lane // 16
    src = ((row ^ 1) if cross else row) * 16 + sel
    on = np.array([exec_ >> i & 1 for i in range(lanes)])
    value = np.where(on[src] | fi, data[src], 0 if bc else old)
    return np.where(on == 1, value, old).astype(np.uint32)


def _run(arch: str, lanes: int, exec_: int, mnemonic: str, op_sel: str) -> np.ndarray:
    var = mnemonic.endswith("_var_b32")
    wait = "s_wait_kmcnt 0" if arch == "gfx1201" else "s_waitcnt lgkmcnt(0)"
    src = f"""
        s_load_b64 s[4:5], s[0:1], 0x0
        {wait}
        v_mul_u32_u24 v2, 7, v0
        v_add_nc_u32 v2, 100, v2
        v_or_b32 v1, 0xdead0000, v0
        v_mul_u32_u24 v3, 5, v0
        v_add_nc_u32 v3, 3, v3
        s_mov_b32 s8, {S1:#x}
        s_mov_b32 s9, {S2:#x}
        s_mov_b32 exec_lo, {exec_ & 0xFFFFFFFF:#x}
        {f"s_mov_b32 exec_hi, {exec_ >> 32:#x}" if lanes == 64 else ""}
        {mnemonic} v1, v2, {"v3" if var else "s8, s9"} {op_sel}
        s_mov_b32 exec_lo, -1
        {"s_mov_b32 exec_hi, -1" if lanes == 64 else ""}
        v_lshlrev_b32 v4, 2, v0
        global_store_b32 v4, v1, s[4:5]
        s_endpgm"""
    kw = {"workgroup_id_ttmps": True} if arch == "gfx1201" else {}
    got, _ = launch(src, {"out": np.zeros(lanes, np.uint32)}, block=(lanes, 1, 1), wave=lanes, arch=arch, **kw)
    return got["out"]


CASES = [(arch, mn) for arch in ("gfx1100", "gfx1201") for mn in ("v_permlane16_b32", "v_permlanex16_b32")] + \
        [("gfx1201", "v_permlane16_var_b32"), ("gfx1201", "v_permlanex16_var_b32")]


@pytest.mark.parametrize("arch,mnemonic", CASES)
@pytest.mark.parametrize("lanes", [32, 64])
def test_fetch_inactive_and_bound_ctrl_as_the_manual_says(arch, mnemonic, lanes):
    for exec_ in EXECS[lanes]:
        for fi, bc in ((0, 0), (1, 0), (0, 1), (1, 1)):
            op_sel = f"op_sel:[{fi},{bc}]" if fi or bc else ""
            got = _run(arch, lanes, exec_, mnemonic, op_sel)
            want = _expected(lanes, exec_, "x16" in mnemonic, mnemonic.endswith("_var_b32"), fi, bc)
            assert (got == want).all(), (f"{arch} {mnemonic} wave{lanes} exec={exec_:#x} {op_sel}: lanes "
                                         f"{np.nonzero(got != want)[0].tolist()} got {got[got != want][:4]} "
                                         f"want {want[got != want][:4]}")


def test_the_manual_example_needs_fi():
    """The V_PERMLANEX16_B32 entry's rotation: lanes 14 and 30 read lanes 15 and 31, which are off,
    so without FI they keep their value and with it they read them."""
    without = _run("gfx1100", 32, 0x7FFF7FFF, "v_permlane16_b32", "")
    with_fi = _run("gfx1100", 32, 0x7FFF7FFF, "v_permlane16_b32", "op_sel:[1,0]")
    assert [int(without[i]) for i in (14, 30)] == [0xDEAD000E, 0xDEAD001E]
    assert [int(with_fi[i]) for i in (14, 30)] == [100 + 7 * 15, 100 + 7 * 31]

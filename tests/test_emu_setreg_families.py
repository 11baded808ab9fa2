"""s_setreg in every family: who may write each hardware register is what the manual's register
table says (the generated tables["hwreg_writable"]: RDNA3 "read / write" / "Only writable when
priv=1", RDNA4's Writable? column "Yes" / "PRIV" / "No", CDNA3 "R/W." / "Read only."), so a
write of MODE takes effect on RDNA4 and CDNA3 as on RDNA3 (FP_DENORM[5:4] = 0 flushes an f32
denormal sum to zero: 1e-39 + 1e-39 = 2e-39 is a denormal, numpy's float32 keeps it), and a write
of STATUS outside the trap handler changes nothing."""
from __future__ import annotations

import numpy as np
import pytest

import isa
from isa.gen.descriptions import hwreg_writable
from tests.test_emu_machine import launch

TINY = int(np.float32(1e-39).view(np.uint32))
SUM = np.float32(1e-39) + np.float32(1e-39)

# (target, wave, the kernarg load and its wait, a store of v[2:5] to the buffer, MODE's / STATUS's hwreg names)
TARGETS = {
    "gfx1100": (32, "s_load_b64 s[2:3], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)", "global_store_b128 v1, v[2:5], s[2:3]",
                "HW_REG_MODE", "HW_REG_STATUS"),
    "gfx1201": (32, "s_load_b64 s[2:3], s[0:1], 0x0\ns_wait_kmcnt 0", "global_store_b128 v1, v[2:5], s[2:3]",
                "HW_REG_WAVE_MODE", "HW_REG_WAVE_STATUS"),
    "gfx942": (64, "s_load_dwordx2 s[2:3], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)", "global_store_dwordx4 v1, v[2:5], s[2:3]",
               "HW_REG_MODE", "HW_REG_STATUS"),
}


@pytest.mark.parametrize("target", TARGETS)
def test_mode_writes_take_effect_and_status_is_not_written(target):
    wave, prologue, store, mode, status = TARGETS[target]
    body = f"""{prologue}
        v_mov_b32 v6, {TINY:#x}
        s_setreg_imm32_b32 hwreg({mode}, 4, 2), 0
        v_add_f32 v2, v6, v6
        s_getreg_b32 s5, hwreg({mode}, 4, 2)
        s_setreg_imm32_b32 hwreg({mode}, 4, 2), 3
        v_add_f32 v3, v6, v6
        s_getreg_b32 s6, hwreg({status})
        s_setreg_imm32_b32 hwreg({status}, 0, 32), 0xffffffff
        s_getreg_b32 s7, hwreg({status})
        s_xor_b32 s8, s7, s6
        v_mov_b32 v4, s5
        v_mov_b32 v5, s8
        v_mov_b32 v1, 0
        {store}
        s_endpgm"""
    got, _ = launch(body, {"out": np.zeros(4, np.uint32)}, block=(wave, 1, 1), wave=wave, arch=target)
    flushed, kept, denorm_field, status_change = got["out"]
    assert flushed == 0 and kept == SUM.view(np.uint32), target
    assert denorm_field == 0 and status_change == 0, target


def test_who_may_write_each_register_is_the_manuals_table():
    """Values read off the manuals' register tables by hand (RDNA3 "Hardware Register Values",
    RDNA4 3.4 "Wave State Registers" Index | Writable? | Register, CDNA3 "Hardware Register Values")."""
    want = {
        "rdna3": {"MODE": "yes", "STATUS": "priv", "TRAPSTS": "yes", "FLUSH_IB": "yes", "SH_MEM_BASES": "no",
                  "FLAT_SCRATCH_LO": "priv", "HW_ID1": "no", "SHADER_CYCLES": "no"},
        "rdna4": {"MODE": "yes", "STATUS": "no", "STATE_PRIV": "priv", "EXCP_FLAG_PRIV": "priv",
                  "EXCP_FLAG_USER": "yes", "TRAP_CTRL": "priv", "SCRATCH_BASE_LO": "priv", "HW_ID1": "no"},
        "cdna3": {"MODE": "yes", "STATUS": "no", "TRAPSTS": "yes", "HW_ID": "no", "GPR_ALLOC": "no", "TBA_LO": "no"},
    }
    for family, expected in want.items():
        tables = isa.load(family).tables
        names = {reg: name for reg, name, _ in tables["hwreg"]}
        who = {names[reg]: w for reg, w in tables["hwreg_writable"]}
        assert set(who) == set(names.values()), family
        assert {name: who[name] for name in expected} == expected, family


def test_reading_the_words_and_the_column():
    rows = [(1, "MODE", "read / write", None), (2, "STATUS", "read / write. Only writable when priv=1", None),
            (20, "FLAT_SCRATCH_LO", "read only (writable only while in trap handler)", None),
            (3, "TRAPSTS", "R/W.", None), (4, "HW_ID", "Read only. Debug only.", None),
            (18, "EXCP_FLAG_USER", "Exception flags writable by user", "Yes"),
            (19, "TRAP_CTRL", "Trap exception enables; writable only by trap handler", "PRIV"),
            (2, "STATUS", "Wave status bits", "No")]
    assert hwreg_writable(rows) == [(1, "yes"), (2, "priv"), (20, "priv"), (3, "yes"), (4, "no"), (18, "yes"),
                                    (19, "priv"), (2, "no")]
    with pytest.raises(ValueError, match="MODE.*'Maybe'"):
        hwreg_writable([(1, "MODE", "", "Maybe")])

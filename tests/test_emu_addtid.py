"""GLOBAL_LOAD/STORE_ADDTID_B32 (manual: memory_Addr = sgpr_addr(64) + inst_offset + tid * 4, no
VGPR address) and the no-operation instructions DS_NOP ("Do nothing") and S_ATC_PROBE*, through
the machine against numpy indexing."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_emu_machine import launch, loads


@pytest.mark.parametrize("wave", [32, 64])
def test_addtid_load_and_store_address_by_lane(wave):
    x = np.arange(1000, 1000 + wave + 8, dtype=np.uint32)
    y = np.full(wave + 4, 7, np.uint32)
    src = loads("x", "y") + """
        v_mov_b32 v1, 0x1234
        v_and_b32 v2, 3, v0
        v_cmpx_ne_u32 0, v2                         // lanes with lane % 4 == 0 stay off
        global_load_addtid_b32 v1, s[4:5] offset:16
        s_waitcnt vmcnt(0)
        global_store_addtid_b32 v1, s[6:7] offset:8
        ds_nop
        s_atc_probe 4, s[4:5], 0
        s_endpgm"""
    out, _ = launch(src, {"x": x, "y": y}, block=(wave, 1, 1), wave=wave)
    lane = np.arange(wave)
    want = y.copy()
    on = lane % 4 != 0
    want[2 + lane[on]] = x[4 + lane[on]]           # byte offsets 16 and 8: dwords 4 and 2
    assert (out["y"] == want).all()


@pytest.mark.parametrize("arch,word", [("gfx1100", "000052dc02007e01"), ("gfx1201", "7e0005ee0100000002000000"),
                                       ("gfx942", "008050dc02007e01")])
def test_exec_as_a_global_base_is_refused_naming_saddr(arch, word, monkeypatch):
    """llvm-mc-22's bytes of `global_load_b32 v1, v2, exec` (gfx942: global_load_dword), which its
    disassembler marks "Invalid register, operand has 'SReg_64_XEXEC_XNULL' register class" and its
    assembler refuses, as ours does (tests/test_asm_refusal_classes.py): the emulator refuses them
    too, naming the PC, the instruction and saddr, rather than reading EXEC as an address."""
    import dsl
    import tests.test_emu_machine as machine
    from emu.machine import UnsupportedInstruction
    real = dsl.assemble
    wait = "s_wait_kmcnt 0" if arch == "gfx1201" else "s_waitcnt lgkmcnt(0)"
    sload = "s_load_dwordx2" if arch == "gfx942" else "s_load_b64"
    pre = f"{sload} s[4:5], s[0:1], 0x0\n{wait}\nv_mov_b32 v2, 0\n"
    monkeypatch.setattr(machine.dsl, "assemble", lambda src, a, wave=None:
                        real(pre, a, wave) + bytes.fromhex(word) + real("s_endpgm", a, wave))
    with pytest.raises(UnsupportedInstruction, match=r"PC 0x[0-9a-f]+: `global_load_\w+ v1, v2, exec`.*saddr: exec "
                                                     r"cannot be the 64-bit base of a GLOBAL address"):
        launch("", {"x": np.zeros(4, np.uint32)}, block=(64, 1, 1), wave=64, arch=arch,
               **({"workgroup_id_ttmps": True} if arch == "gfx1201" else {}))

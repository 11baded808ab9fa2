"""ds_append / ds_consume (an LDS counter at M0[15:0] + offset, changed once per wave by
countbits(EXEC)) and s_setreg / s_getreg (hwreg(id, offset, size) bit fields; MODE changes
take effect), on Device-level kernels checked against hand-computed numpy references."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu.launch import Dispatch
from emu.machine import EmuError, Machine, UnsupportedInstruction
from emu.memory import DeviceMemory


def run(body: str, *, lanes=64, wave=32, groups=1, lds=64, mode=0x3F0, words=256):
    """s[2:3] = an output buffer of `words` dwords; v0 = work-item id, s16 = work-group id."""
    mem = DeviceMemory()
    out = mem.alloc(4 * words, "out")
    args = mem.alloc(8, "kernarg")
    mem.write(args, np.uint64(out).tobytes())
    code = dsl.assemble("s_load_b64 s[2:3], s[0:1], 0x0\ns_waitcnt lgkmcnt(0)\n" + body + "\ns_endpgm", "gfx1100", wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    Machine("gfx1100", mem).run(Dispatch("state_kernel", at, grid=(groups, 1, 1), block=(lanes, 1, 1), wave_size=wave,
                                         vgprs=16, user_sgprs=[args & 0xFFFFFFFF, args >> 32], user_sgpr_count=16,
                                         workgroup_id=(True, False, False), lds_size=lds, mode=mode))
    return np.frombuffer(mem.read(out, 4 * words), np.uint32)


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("op,sign", [("ds_append", 1), ("ds_consume", -1)])
def test_append_consume_once_per_wave(wave, op, sign):
    """Two work-groups of 128 work-items; lanes with id % 3 != 0 take part. Each wave adds
    (or subtracts) its active-lane count once, in wave order, to the counter at 8 + 12 = 20,
    and all its active lanes receive the value from before; inactive lanes keep v3 = 7."""
    body = append_body(op, wave)
    out = run(body, lanes=128, wave=wave, groups=2, words=512)
    item = np.arange(128)
    active = item % 3 != 0
    ref_ret, ref_final = [], []
    for _ in range(2):
        counter, ret = 1000, np.full(128, 7)
        for w in range(128 // wave):
            lanes = slice(w * wave, (w + 1) * wave)
            ret[lanes] = np.where(active[lanes], counter, 7)
            counter = (counter + sign * int(active[lanes].sum())) % 2**32
        ref_ret.append(ret)
        ref_final.append(np.full(128, counter))
    assert (out[:256] == np.concatenate(ref_ret)).all()
    assert (out[256:512] == np.concatenate(ref_final)).all()


def append_body(op: str, wave: int) -> str:
    vcc, saveexec, restore = ("vcc_lo", "s_and_saveexec_b32 s4, vcc_lo", "s_or_b32 exec_lo, exec_lo, s4") \
        if wave == 32 else ("vcc", "s_and_saveexec_b64 s[4:5], vcc", "s_or_b64 exec, exec, s[4:5]")
    return f"""
        v_mov_b32 v1, 0
        v_mov_b32 v2, 1000
        ds_store_b32 v1, v2 offset:20
        s_barrier
        v_mov_b32 v3, 7
        s_mov_b32 m0, 0x30008                 // M0[15:0] = 8; the high half is not part of the address
        v_mul_hi_u32 v4, v0, 0xAAAAAAAB       // v4 = v0 / 3 (v0 < 2^16)
        v_lshrrev_b32 v4, 1, v4
        v_mul_u32_u24 v4, 3, v4
        v_cmp_ne_u32 {vcc}, v4, v0
        {saveexec}
        {op} v3 offset:12
        {restore}
        s_barrier
        ds_load_b32 v5, v1 offset:20
        s_lshl_b32 s20, s16, 7
        v_add_nc_u32 v6, s20, v0
        v_lshlrev_b32 v6, 2, v6
        s_waitcnt lgkmcnt(0)
        global_store_b32 v6, v3, s[2:3]
        v_add_nc_u32 v6, 0x400, v6
        global_store_b32 v6, v5, s[2:3]
    """


def test_setreg_writes_only_the_field_and_getreg_reads_fields():
    """From MODE = 0x3F0: setreg(MODE, 4, 4) <- 0xA gives 0x3A0 (bits 7:4 only, the source's
    high bits ignored); setreg(MODE, 8, 2) <- s (0b01) clears IEEE and keeps DX10_CLAMP;
    bits outside MODE's defined fields (28..31) are not writable; getreg reads fields back;
    STATUS is not writable outside the trap handler; TRAPSTS keeps what is written."""
    body = """
        s_getreg_b32 s5, hwreg(HW_REG_MODE)
        s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xFFFFFFFA
        s_getreg_b32 s6, hwreg(HW_REG_MODE)
        s_mov_b32 s9, 1
        s_setreg_b32 hwreg(HW_REG_MODE, 8, 2), s9
        s_getreg_b32 s7, hwreg(HW_REG_MODE)
        s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 4), 0xF
        s_getreg_b32 s8, hwreg(HW_REG_MODE, 4, 2)
        s_getreg_b32 s10, hwreg(HW_REG_STATUS)
        s_setreg_imm32_b32 hwreg(HW_REG_STATUS, 0, 32), 0xFFFFFFFF
        s_getreg_b32 s11, hwreg(HW_REG_STATUS)
        s_setreg_imm32_b32 hwreg(HW_REG_TRAPSTS, 3, 5), 0x15
        s_getreg_b32 s12, hwreg(HW_REG_TRAPSTS)
        s_getreg_b32 s13, hwreg(HW_REG_MODE)
        v_mov_b32 v1, 0
        v_mov_b32 v2, s5
        v_mov_b32 v3, s6
        v_mov_b32 v4, s7
        v_mov_b32 v5, s8
        global_store_b128 v1, v[2:5], s[2:3]
        v_mov_b32 v2, s10
        v_mov_b32 v3, s11
        v_mov_b32 v4, s12
        v_mov_b32 v5, s13
        global_store_b128 v1, v[2:5], s[2:3] offset:16
    """
    out = run(body, lanes=32)
    mode, status_before, status_after, trapsts = list(out[:4]) + [out[7]], out[4], out[5], out[6]
    assert [hex(x) for x in mode] == [hex(x) for x in [0x3F0, 0x3A0, 0x1A0, 0b10, 0x1A0]]
    assert status_after == status_before and trapsts == 0x15 << 3


def test_setreg_mode_change_takes_effect():
    """FP_DENORM f32 (MODE[5:4]) set to 0 by s_setreg flushes a denormal sum to zero; set back
    to 3 the next add keeps it (1e-39 + 1e-39 = 2e-39 is an f32 denormal)."""
    tiny = int(np.float32(1e-39).view(np.uint32))
    body = f"""
        v_mov_b32 v1, {tiny:#x}
        s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
        v_add_f32 v2, v1, v1
        s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3
        v_add_f32 v3, v1, v1
        v_mov_b32 v4, 0
        global_store_b64 v4, v[2:3], s[2:3]
    """
    out = run(body, lanes=32)
    assert out[0] == 0 and out[1].view(np.float32) == np.float32(1e-39) + np.float32(1e-39)


def test_setreg_unknown_register_is_refused():
    with pytest.raises(EmuError, match=r"state_kernel: PC 0x.*s_setreg_imm32_b32.*hwreg id 40 is not a hardware register"):
        run("s_setreg_imm32_b32 hwreg(40, 0, 8), 1", lanes=32)


def test_gds_is_refused_not_run_on_lds():
    with pytest.raises(UnsupportedInstruction, match=r"ds_append v3 gds.*GDS .*not modelled"):
        run("s_mov_b32 m0, 0\nds_append v3 gds", lanes=32)

"""Scalar loads of one address read once (emu/scalar_loads.py, switch scalar_load_steps) against
the bytes numpy reads from the same buffer, and against the switch off and reference mode (every
fast path off): the same SGPRs and VGPRs bit for bit, for uniform addresses (the kernarg-pointer
case the fast step takes), addresses that differ per wave (it falls back), loads whose
destination a later load of the same run reads as its address, and the same fault (PC,
instruction, address) for a load that leaves its buffer."""
from __future__ import annotations

import numpy as np
import pytest

import dsl
from emu import scalar_loads
from emu.launch import Dispatch
from emu.machine import EmuFault, Machine
from emu.memory import DeviceMemory
from emu.options import FAST, REFERENCE, options_from

MODES = {"fast": FAST, "switch off": options_from(off=["scalar_load_steps"]), "reference": REFERENCE}
SIZE = 512


@pytest.fixture
def fast_reads(monkeypatch):
    """[loads the fast step answered itself]."""
    calls = [0]
    value = scalar_loads._value

    def counted(raw, n):
        calls[0] += 1
        return value(raw, n)
    monkeypatch.setattr(scalar_loads, "_value", counted)
    return calls


def _launch(arch: str, wave: int, text: str, options, groups: int = 3, size: int = SIZE, placed=None):
    """Run `text` (ending in s_endpgm) on `groups` one-wave work-groups with s[0:1] = a buffer
    of random bytes and s2 = the work-group; returns (SGPRs (128, waves), VGPRs (16, waves,
    lanes), the buffer's bytes). placed: a list to which the code's address is appended."""
    mem = DeviceMemory()
    host = np.random.default_rng(7).integers(0, 256, size, dtype=np.uint8)
    buf = mem.alloc(size, "buf")
    mem.write(buf, host)
    code = dsl.assemble(text, arch)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    if placed is not None:
        placed.append(at)
    machine = Machine(arch, mem, options=options)
    machine.run(Dispatch("loads", at, grid=(groups, 1, 1), block=(wave, 1, 1), wave_size=wave, vgprs=16,
                         user_sgprs=[buf & 0xFFFFFFFF, buf >> 32]))
    st = machine.spare_state
    st.settle_vgprs(None)
    return st.sgpr[:, :groups].copy(), st.vgpr[:, :groups, :].copy(), host


def _dwords(host, offset: int, n: int) -> np.ndarray:
    return np.frombuffer(host[offset:offset + 4 * n].tobytes(), "<u4")


def _agree(arch, wave, text, groups=3):
    results = {mode: _launch(arch, wave, text, options, groups) for mode, options in MODES.items()}
    sgprs, vgprs, host = results["fast"]
    for mode, (s, v, _) in results.items():
        np.testing.assert_array_equal(s, sgprs, err_msg=mode)
        np.testing.assert_array_equal(v, vgprs, err_msg=mode)
    return sgprs, vgprs, host


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
@pytest.mark.parametrize("wave", [32, 64])
def test_uniform_loads_read_the_buffer(arch, wave, fast_reads):
    """Loads of 1 to 16 dwords from the pointer every wave holds, one of them unaligned (SMEM
    drops the address's low two bits), and a load into the registers of its own address."""
    text = """
        s_load_b32 s10, s[0:1], 0x4
        s_load_b64 s[12:13], s[0:1], 0x8
        s_load_b128 s[16:19], s[0:1], 0x10
        s_load_b256 s[20:27], s[0:1], 0x20
        s_load_b512 s[32:47], s[0:1], 0x40
        s_load_b32 s11, s[0:1], 0x83
        s_mov_b64 s[4:5], s[0:1]
        s_load_b64 s[4:5], s[4:5], 0x100
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v1, s10
        v_mov_b32 v2, s47
        s_endpgm"""
    sgprs, vgprs, host = _agree(arch, wave, text)
    assert fast_reads[0] == 7           # the fast mode's loads (the other modes read through the semantic)
    for code, offset, n in ((10, 4, 1), (12, 8, 2), (16, 16, 4), (20, 32, 8), (32, 64, 16), (11, 0x80, 1),
                            (4, 0x100, 2)):
        want = _dwords(host, offset, n)
        np.testing.assert_array_equal(sgprs[code:code + n], np.repeat(want[:, None], sgprs.shape[1], 1))
    assert (vgprs[1] == _dwords(host, 4, 1)[0]).all() and (vgprs[2] == _dwords(host, 124, 1)[0]).all()


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_addresses_that_differ_per_wave_take_the_plain_step(arch, fast_reads):
    """s[4:5] = the buffer + 64 * work-group: one address per wave, not one for the batch."""
    text = """
        s_lshl_b32 s3, s2, 6
        s_add_u32 s4, s0, s3
        s_addc_u32 s5, s1, 0
        s_load_b64 s[6:7], s[4:5], 0x8
        s_load_b32 s8, s[4:5], 0x0
        s_waitcnt lgkmcnt(0)
        s_endpgm"""
    sgprs, _, host = _agree(arch, 32, text, groups=4)
    assert fast_reads[0] == 0
    for wave in range(4):
        np.testing.assert_array_equal(sgprs[6:8, wave], _dwords(host, 64 * wave + 8, 2))
        assert sgprs[8, wave] == _dwords(host, 64 * wave, 1)[0]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
@pytest.mark.parametrize("load, offset", [("s_load_b128 s[8:11]", SIZE - 8), ("s_load_b32 s8", SIZE),
                                          ("s_load_b512 s[16:31]", SIZE - 60)])
def test_a_load_leaving_its_buffer_faults_alike(arch, load, offset, fast_reads):
    """The fast step leaves an access it cannot bound to the plain step, which names the fault:
    the same message (PC, instruction, address) in every mode."""
    text = f"""
        s_load_b64 s[4:5], s[0:1], 0x0
        {load}, s[0:1], {offset:#x}
        s_waitcnt lgkmcnt(0)
        s_endpgm"""
    messages, placed = set(), []
    for mode, options in MODES.items():
        with pytest.raises(EmuFault) as caught:
            _launch(arch, 32, text, options, placed=placed)
        messages.add(str(caught.value))
    assert len(messages) == 1 and len(set(placed)) == 1, (messages, placed)
    message = messages.pop()
    assert f"PC 0x{placed[0] + 8:x} `{load.split()[0]}" in message and "past the end of 'buf'" in message
    assert fast_reads[0] == 1           # the first load, in the fast mode

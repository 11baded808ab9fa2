"""Register files as mappings of their own (EmuOptions.mapped_registers, emu/wave.register_file):
zero, writable, and a first write costs the pages of the rows written, not the whole file."""
import os
import sys

import numpy as np
import pytest

from emu.options import activate, deactivate, options_from
from emu.wave import MAPPED_BYTES, SCALAR_CODES, WaveState


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize("mapped", [True, False])
def test_files_start_zero_and_take_writes(mapped):
    token = activate(options_from(off=[] if mapped else ["mapped_registers"]))
    try:
        st = WaveState(8192, 32, 16)
    finally:
        deactivate(token)
    assert st.vgpr.nbytes >= MAPPED_BYTES and st.sgpr.nbytes >= MAPPED_BYTES
    assert st.vgpr.shape == (16, 8192, 32) and st.sgpr.shape == (SCALAR_CODES, 8192)
    assert st.vgpr.dtype == np.uint32 and st.sgpr.dtype == np.uint32
    assert not st.vgpr.any() and not st.sgpr.any()
    st.vgpr[3, 100:200] = 7
    st.sgpr[106, :5] = 9
    assert int(st.vgpr.sum()) == 7 * 100 * 32 and int(st.sgpr.sum()) == 45
    st.permute(np.arange(8192)[::-1])       # in place, as a launch compacting waves does
    assert int(st.vgpr[3, 8191 - 199:8192 - 100].min()) == 7 and int(st.sgpr[106, -5:].sum()) == 45


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="resident memory read from /proc")
def test_an_sgpr_row_written_costs_its_own_pages():
    waves = 1 << 16                     # an SGPR row of 256 KiB in a 32 MiB file
    st = WaveState(waves, 32, 1)
    before = _resident_bytes()
    st.sgpr[106] = 1                    # VCC of every wave
    grown = _resident_bytes() - before
    # the row's 256 KiB, not a huge page around it (2 MiB) nor the file zeroed whole (32 MiB)
    assert 4 * waves <= grown < 1 << 20, grown

"""Robustness of the machine on LLVM's own instruction corpus: every sampled ALU row of
../shared/conformance/llvm/<target>.tsv.gz (random encodings LLVM 22 decodes) runs as a
one-instruction kernel on random register contents. Whatever the outcome, it must be a
result or an EmuError naming the instruction, never a Python error from inside the machine.
Values are not checked here (the semantics tests and the kernel corpus do that)."""
from __future__ import annotations

import gzip

import numpy as np
import pytest

import emu.launch
import emu.machine
from emu.launch import Dispatch
from emu.machine import EmuError, Machine
from emu.memory import DeviceMemory
from tests.conftest import shared_path

ALU = {"SOP1", "SOP2", "SOPK", "SOPC", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3_VOP1", "VOP3_VOP2", "VOP3_VOPC",
       "VOP3SD", "VOP3P", "VOPD", "DPP16", "DPP8", "VOP3_DPP16", "VOP3_DPP8", "VOP3P_DPP8"}
SAMPLE = 40          # every 40th ALU row: about 470 instructions per target
END = bytes.fromhex("0000b0bf")   # s_endpgm


@pytest.mark.parametrize("target", ["gfx1100", "gfx1100-w64", "gfx1151"])
def test_corpus_instructions_run_or_fail_clearly(target, monkeypatch):
    path = shared_path("conformance", "llvm", f"{target}.tsv.gz")
    with gzip.open(path, "rt") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    rows = [r for r in rows if r[0] in ALU][::SAMPLE]
    rng = np.random.default_rng(0)
    initial = emu.launch.initial_state

    def random_registers(d, first, groups, *rest):
        st, wave_group = initial(d, first, groups, *rest)
        st.sgpr[:106] = rng.integers(0, 2**32, (106, st.waves), dtype=np.uint64).astype(np.uint32)
        st.vgpr[:] = rng.integers(0, 2**32, st.vgpr.shape, dtype=np.uint64).astype(np.uint32)
        st.sgpr_written[:106] = st.vgpr_written[:] = True
        return st, wave_group
    monkeypatch.setattr(emu.machine, "initial_state", random_registers)
    arch, wave = target.split("-")[0], 64 if target.endswith("w64") else 32
    mem = DeviceMemory()
    machine = Machine(arch, mem)
    outcomes = {"ran": 0, "refused": 0}
    for family, hexbytes, text, _ in rows:
        code = bytes.fromhex(hexbytes) + END
        at = mem.alloc(len(code), "code")
        mem.write(at, code)
        d = Dispatch("sweep", at, grid=(1, 1, 1), block=(wave, 1, 1), wave_size=wave, vgprs=256, budget=4)
        try:
            machine.run(d)
            outcomes["ran"] += 1
        except EmuError as e:
            assert "sweep" in str(e) and "PC 0x" in str(e) or "fault" in str(e), f"{text}: {e}"
            outcomes["refused"] += 1
        except Exception as e:   # noqa: BLE001 - exactly what this test is about
            pytest.fail(f"{family} `{text}` ({hexbytes}) raised {type(e).__name__}: {e}")
    print(f"{target}: {outcomes}")
    assert outcomes["ran"] > 0.8 * len(rows)

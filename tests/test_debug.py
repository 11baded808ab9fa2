"""The step-through debugger (emu/debug.py, `wavesmith debug`): its register tables are the
emulator's state at every step — checked against a reference-mode run (every fast path
off) snapshotting the same wave through the machine's tracer — and the values it shows after
the kernel's fma are numpy's a * x + y."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from runtime import Device
from runtime.codeobj import KernelArg
from runtime.demo import build_saxpy
from runtime.writer import from_dsl_kernel

REPO = Path(__file__).resolve().parents[1]
N, BLOCK, WAVE = 512, 256, 9          # wave 9: work-group 1, lanes of elements 288..319


def saxpy():
    return from_dsl_kernel(build_saxpy("gfx1100"), "saxpy",
                           [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
                            KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")],
                           user_sgpr_kernarg_segment_ptr=1)


def setup(reference=False):
    dev = Device("emu", reference=reference)
    x = np.linspace(-3, 3, N).astype(np.float32)
    y = np.cos(np.arange(N)).astype(np.float32)
    xb, yb = dev.alloc(x.nbytes).copyin(x), dev.alloc(y.nbytes).copyin(y)
    return dev, dev.load(saxpy()), [xb, yb, np.float32(2.5), np.uint32(N)], x, y


def test_registers_match_reference_run_at_every_step():
    from emu.debug import Debugger
    # reference: every fast path off, the focused wave's registers after each of its instructions
    dev, prg, args, x, y = setup(reference=True)
    snaps = []

    def tracer(p, st, sel):
        local = WAVE - dev.machine.trace_chunk.first * dev.machine.trace_chunk.per_group
        if local in np.arange(st.waves)[sel]:
            snaps.append((p.pc, st.vgpr[:8, local, :].copy(), st.sgpr[:16, local].copy()))
    dev.machine.tracer = tracer
    prg.launch("saxpy", (N // BLOCK, 1, 1), (BLOCK, 1, 1), args)
    dev.machine.tracer = None

    dev, prg, args, x, y = setup()
    dbg = Debugger(prg, "saxpy", (N // BLOCK, 1, 1), (BLOCK, 1, 1), args, wave=WAVE)
    seen = 0
    for k, (pc, vg, sg) in enumerate(snaps):
        if k:
            dbg.step()
        assert dbg.where().split("last ")[1].startswith(f"0x{pc:x}")
        assert np.array_equal(dbg.vgpr_values(range(8)), vg.T)
        assert np.array_equal(dbg.sgpr_values(range(16)), sg)
        seen += 1
        if "v_fmac_f32" in dbg.where().split("\n")[0]:
            lanes = slice(WAVE % 8 * 32, WAVE % 8 * 32 + 32)
            want = (np.float64(2.5) * x[256:][lanes] + y[256:][lanes]).astype(np.float32)
            assert np.array_equal(dbg.vgpr_values([3])[:, 0].view(np.float32), want)
            assert "*" in dbg.vgprs([3], "f32")          # v3 changed at this step
    assert seen == len(snaps) == 14
    dbg.cont()
    assert dbg.finished and dbg.stats is not None
    assert sum(dbg.hits.values()) == 14


def test_cli_steps_breaks_and_tables():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    script = "s 3\nb +0x3c\nc\nv 2-3 f32\nsg 8-9\nhits\nbogus\nq\n"
    r = subprocess.run([sys.executable, str(REPO / "wavesmith.py"), "debug", "--grid", "2", "--block", "256",
                        "--wave", "1"], input=script, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "executed 4 instructions" in out                 # 1 at the start + 3 steps
    assert "next 0x" in out and "v_fmac_f32_e32 v3, s8, v2" in out
    assert "lane" in out and "v2" in out and "s8=40200000" in out      # 2.5 = 0x40200000
    assert "unknown command 'bogus'" in out
    assert "Traceback" not in r.stderr

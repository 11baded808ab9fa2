"""Importing runtime (and, through runtime.Device, the emulator) raises the collector's
young-generation threshold only while it imports: the thresholds a process set before are
the ones it has after, also when an import fails, and a freeze the process made stays."""
import gc
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = """
import gc, json
gc.set_threshold(555, 7, 9)
gc.freeze() if FREEZE else None
frozen = gc.get_freeze_count()
import runtime
runtime.Device
print(json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count() == frozen > 0 if FREEZE else gc.get_freeze_count() == 0}))
"""


@pytest.mark.parametrize("freeze", [False, True])
@pytest.mark.parametrize("off", ["", "quiet_imports"])
def test_import_leaves_gc_thresholds_and_freeze(freeze, off):
    env = dict(os.environ, PYTHONPATH=ROOT, WAVESMITH_EMU_OFF=off)
    env.pop("WAVESMITH_EMU_REFERENCE", None)
    out = subprocess.run([sys.executable, "-c", f"FREEZE = {freeze}\n" + CHILD], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"threshold": [555, 7, 9], "frozen": True}


def test_thresholds_restored_when_an_import_fails():
    import runtime
    before = gc.get_threshold()
    with pytest.raises(ImportError):
        with runtime._FewerCollectorPasses():
            assert gc.get_threshold()[0] >= 100_000 or os.environ.get("WAVESMITH_EMU_REFERENCE")
            import runtime.no_such_module  # noqa: F401
    assert gc.get_threshold() == before

"""`python -m frontend.tinygrad SCRIPT [ARGS]`: run a tinygrad script with the WAVESMITH
device registered (set DEV=WAVESMITH to make it the default device)."""
from __future__ import annotations

import runpy
import sys

from . import register

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: python -m frontend.tinygrad SCRIPT [ARGS...]   (DEV=WAVESMITH to use the device)")
        sys.exit(0 if len(sys.argv) >= 2 else 2)
    register()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")

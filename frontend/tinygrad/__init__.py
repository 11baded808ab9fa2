"""tinygrad device WAVESMITH: tinygrad 0.14.0's UOps compiled by frontend/ (no LLVM) and run
on wavesmith's Device("emu").

tinygrad finds a device NAME by importing `tinygrad.runtime.ops_<name>`. Importing this
package registers that module name (`tinygrad.runtime.ops_wavesmith`) in `sys.modules`,
pointing at `frontend.tinygrad.device`; nothing in tinygrad's files changes. So:

    import frontend.tinygrad                 # registers the device
    from tinygrad import Tensor
    Tensor([1., 2.], device="WAVESMITH").exp2().numpy()

or, for a script that does not import us: `python -m frontend.tinygrad model.py [args]`
(with DEV=WAVESMITH), and for pytest: `python -m pytest -p frontend.tinygrad ...`."""
from __future__ import annotations

import sys

MODULE = "tinygrad.runtime.ops_wavesmith"


def register() -> None:
    """Make `tinygrad.runtime.ops_wavesmith` importable (idempotent)."""
    if MODULE not in sys.modules:
        import tinygrad.runtime

        from . import device
        sys.modules[MODULE] = device
        setattr(tinygrad.runtime, "ops_wavesmith", device)


register()

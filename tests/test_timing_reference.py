"""The timing model agrees in fast and reference mode on the kernel corpus (issue 18, "right
before fast"). The model's inputs are the instruction streams and the addresses of memory
accesses, recorded while the functional emulator runs; reference mode runs one semantic call
per wave and atomics in rounds of lanes, fast mode whole batches and one pass per address.
The recorder must see the same accesses either way (emu/atomic_observed.py; each wave's call
its own batch): 10 of these 44 cases disagreed before (the LDS extra passes of plain
ds_load/ds_store in work-groups of several waves: reduce_sum_lds, scan_inclusive_lds,
sgemm_tiled_lds, softmax_row, transpose_lds; histogram_global_atomic's cache lines). One
work-group of each kernel's launch, on the RDNA3 targets the model times."""
from __future__ import annotations

import pytest

from emu.options import FAST, REFERENCE
from tests.conftest import SHARED
from tests.kernel_corpus import NOT_YET, cases, make_inputs
from tests.test_timing_atomic_addresses import _timing

ROOT = SHARED / "kernels"
TARGETS = ("gfx1100", "gfx1100-w64")
CASES = [pytest.param(c, t, id=f"{c.name}-{t}") for c in (cases(ROOT) if ROOT.exists() else [])
         for t in TARGETS if t in c.manifest["code_objects"] and (c.name, t) not in NOT_YET]


def _timed(case, target: str, options):
    from runtime import Device
    m = case.manifest
    dev = Device("emu", arch=target.split("-")[0], options=options)
    inputs = make_inputs(m)
    prg = dev.load((case.folder / m["code_objects"][target]).read_bytes())
    args = [inputs[a["name"]] if a["kind"] == "scalar" else
            dev.alloc(inputs[a["name"]].nbytes, a["name"]).copyin(inputs[a["name"]]) for a in m["args"]]
    return prg.launch(m["kernel"], grid=(1, 1, 1), block=m["launch"]["block"], args=args, timing=True).timing


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("case, target", CASES)
def test_reference_mode_times_the_corpus_alike(case, target):
    fast, ref = _timed(case, target, FAST), _timed(case, target, REFERENCE)
    a, b = _timing(fast), _timing(ref)
    if a[2] != b[2]:
        differing = {fast.per_pc[pc].text: (a[2][pc], b[2].get(pc)) for pc in a[2] if a[2][pc] != b[2].get(pc)}
        pytest.fail(f"{case.name} on {target}: (LDS extra passes, lines) fast vs reference: {differing}")
    assert a == b, f"{case.name} on {target}: issue cycles or stalls differ"

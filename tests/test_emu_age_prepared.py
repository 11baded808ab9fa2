"""EmuOptions.age_prepared: a launch that prepared instructions hands the objects it made to the
cyclic collector's oldest generation (gc.freeze, gc.unfreeze) when it ends, so no young-generation
pass walks its preparations; with the switch off they stay young. A process that froze objects
itself keeps its freeze."""
from __future__ import annotations

import gc

import pytest

from emu.machine_prepare import Prepared
from emu.options import FAST, options_from
from tests.test_emu_program_cache import FOLDER, run

pytestmark = pytest.mark.skipif(not FOLDER.exists(), reason="kernel corpus not found")


def _young_prepared() -> int:
    return sum(isinstance(o, Prepared) for g in (0, 1) for o in gc.get_objects(generation=g))


@pytest.mark.parametrize("on", [True, False])
def test_a_launch_that_prepared_leaves_its_preparations_old(on):
    if not gc.isenabled() or gc.get_freeze_count():
        pytest.skip("the collector is off or the process froze objects")
    gc.collect()
    _, machine = run(FOLDER, FAST if on else options_from(off=["age_prepared"]))
    prepared = [p for shape in machine._prepared.values() for p in shape[1].values()]
    assert prepared
    assert (_young_prepared() == 0) == on
    assert gc.get_freeze_count() == 0


def test_a_frozen_process_keeps_its_freeze():
    if not gc.isenabled():
        pytest.skip("the collector is off")
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        run(FOLDER)
        # nothing of the launch joined the frozen objects (some of those may have been freed),
        # nor were they thawed; its preparations stay young
        assert 0 < gc.get_freeze_count() <= frozen and _young_prepared() > 0
    finally:
        gc.unfreeze()

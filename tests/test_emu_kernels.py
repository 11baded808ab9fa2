"""Every clang-built kernel of ../shared/kernels through Device("emu") for gfx1100,
gfx1100-w64 and gfx1151, compared with its numpy reference within the manifest's
tolerance (inputs generated as the corpus README prescribes; tests/kernel_corpus.py).

KNOWN_GAPS lists the kernels that do not pass yet, each with the reason; they are strict
xfails, so a kernel that starts passing fails here until it is taken off the list."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SHARED
from tests.kernel_corpus import TARGETS, cases, run

ROOT = SHARED / "kernels"
CASES = cases(ROOT) if ROOT.exists() else []
# kernel -> why it fails (the instruction the semantics library cannot run yet)
KNOWN_GAPS: dict[str, str] = {}
KNOWN_TARGET_GAPS: dict[tuple[str, str], str] = {}
_devices: dict = {}


def _params():
    for case in CASES:
        for target in TARGETS:
            if target not in case.manifest["code_objects"]:
                continue
            reason = KNOWN_GAPS.get(case.name) or KNOWN_TARGET_GAPS.get((case.name, target))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(case, target, id=f"{case.name}-{target}", marks=marks)


@pytest.mark.skipif(not CASES, reason=f"kernel corpus not found at {ROOT} (set WAVESMITH_SHARED)")
@pytest.mark.parametrize("case, target", list(_params()))
def test_kernel_matches_reference(case, target):
    results, stats = run(case, target, _devices)
    bad = {name: why for name, why in results.items() if why}
    assert results and not bad, f"{case.name} on {target}: {bad}"
    assert stats.instructions > 0


def test_corpus_covers_the_three_targets():
    if not CASES:
        pytest.skip(f"kernel corpus not found at {ROOT}")
    assert len(CASES) >= 20
    for target in TARGETS:
        assert sum(target in c.manifest["code_objects"] for c in CASES) >= 20


def _device_and_kernel():
    if not CASES:
        pytest.skip(f"kernel corpus not found at {ROOT}")
    from runtime import Device
    case = next(c for c in CASES if c.name == "sgemm_naive")
    dev = Device("emu", arch="gfx1100")
    return dev, dev.load((case.folder / "gfx1100.hsaco").read_bytes()), case


def test_device_rejects_bad_launches():
    from runtime import Device, DeviceError
    dev, prg, case = _device_and_kernel()
    assert prg.kernels == ["sgemm_naive"]
    with pytest.raises(DeviceError, match="no kernel 'nope'.*sgemm_naive"):
        prg.launch("nope", grid=(1, 1, 1), block=(16, 16, 1))
    with pytest.raises(DeviceError, match="takes 8 arguments"):
        prg.launch("sgemm_naive", grid=(1, 1, 1), block=(16, 16, 1), args=[])
    buf = dev.alloc(64)
    args = [buf, buf, buf, 1, 1, 1, np.float32(1), np.float32(0)]
    with pytest.raises(DeviceError, match="numpy scalar"):
        prg.launch("sgemm_naive", grid=(1, 1, 1), block=(16, 16, 1), args=args)
    with pytest.raises(DeviceError, match="cannot run on a gfx1151"):
        Device("emu", arch="gfx1151").load((case.folder / "gfx1100.hsaco").read_bytes())


def test_device_fault_names_the_kernel_and_the_nearest_buffer():
    from emu.machine import EmuFault
    dev, prg, case = _device_and_kernel()
    small = dev.alloc(16, "tiny_A")
    big = dev.alloc(40 * 48 * 4, "C")
    args = [small, small, big, np.uint32(40), np.uint32(48), np.uint32(36), np.float32(1), np.float32(0)]
    with pytest.raises(EmuFault, match=r"sgemm_naive: memory fault at PC 0x[0-9a-f]+ .*lane \d+.*'tiny_A'"):
        prg.launch("sgemm_naive", grid=(3, 3, 1), block=(16, 16, 1), args=args)


def test_buffers_copy_in_and_out():
    from runtime import Device, DeviceError
    dev = Device("emu", arch="gfx1100")
    data = np.arange(10, dtype=np.float32)
    buf = dev.alloc(data.nbytes).copyin(data)
    assert (buf.copyout(np.float32) == data).all() and buf.copyout() == data.tobytes()
    with pytest.raises(DeviceError, match="copyin of 44 bytes"):
        buf.copyin(np.zeros(11, np.float32))


@pytest.mark.parametrize("field, value, message", [
    ("enable_vgpr_workitem_id", 3, "enable_vgpr_workitem_id is 3"),
    ("user_sgpr_count", 1, "user_sgpr_count 1 is less than"),
    ("group_segment_fixed_size", 1 << 17, "131072 bytes of LDS"),
])
def test_invalid_descriptor_fields_are_refused(field, value, message):
    from runtime import DeviceError
    dev, prg, case = _device_and_kernel()
    setattr(prg.code_object.kernels["sgemm_naive"].descriptor, field, value)
    buf = dev.alloc(64)
    args = [buf, buf, buf, np.uint32(1), np.uint32(1), np.uint32(1), np.float32(1), np.float32(0)]
    with pytest.raises(DeviceError, match=message):
        prg.launch("sgemm_naive", grid=(1, 1, 1), block=(16, 16, 1), args=args)

"""Every clang-built kernel of ../shared/kernels through Device("emu") for gfx1100,
gfx1100-w64, gfx1151, gfx1201, gfx942 and gfx950, compared with its numpy reference within the manifest's
tolerance (inputs generated as the corpus README prescribes; tests/kernel_corpus.py).

Each launch runs again on a device with every fast path off but wave batching
(emu/options.py: REFERENCE with batch_waves on; tests/test_emu_reference.py runs every kernel
with batching off too), and both must leave the same bytes in every buffer, the same final
registers and the same fault: the launches of a target share one device per mode, in corpus
order, so the fast device reuses register state from launch to launch as in real use.

KNOWN_GAPS lists the kernels that do not pass yet, each with the reason; they are strict
xfails, so a kernel that starts passing fails here until it is taken off the list."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from emu.options import FAST, REFERENCE
from tests.conftest import SHARED
from tests.emu_differential import differences, run_outcome
from tests.kernel_corpus import NOT_YET, TARGETS, cases, run

ROOT = SHARED / "kernels"
CASES = cases(ROOT) if ROOT.exists() else []
# kernel -> why it fails (the instruction the semantics library cannot run yet)
KNOWN_GAPS: dict[str, str] = {}
KNOWN_TARGET_GAPS: dict[tuple[str, str], str] = dict(NOT_YET)
_devices: dict = {}
_reference_devices: dict = {}
BATCHED_REFERENCE = replace(REFERENCE, batch_waves=True)


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
    from runtime import Device
    arch = target.split("-")[0]
    fast = _devices.setdefault(arch, Device("emu", arch=arch, options=FAST))
    plain = _reference_devices.setdefault(arch, Device("emu", arch=arch, options=BATCHED_REFERENCE))
    got = {}

    def launch(devices, key):
        got[key], stats = run(case, target, devices)
        return stats
    outcomes = [run_outcome(dev.machine, lambda d=devices, k=key: launch(d, k))
                for dev, devices, key in ((fast, _devices, "fast"), (plain, _reference_devices, "plain"))]
    assert outcomes[0].fault is None, outcomes[0].fault
    results = got["fast"]
    bad = {name: why for name, why in results.items() if why}
    assert results and not bad, f"{case.name} on {target}: {bad}"
    assert outcomes[0].instructions > 0
    diff = differences(*outcomes, names=("fast", "reference (waves batched)"))
    assert not diff, f"{case.name} on {target}: fast and reference modes differ: {diff}"


def test_corpus_covers_every_target():
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
    # gfx11 has architected flat scratch: AMDGPUUsage says these enables must be 0 there
    ("enable_sgpr_private_segment_buffer", 1, "enable_sgpr_private_segment_buffer is set, which gfx1100 does not"),
    ("enable_sgpr_flat_scratch_init", 1, "enable_sgpr_flat_scratch_init is set, which gfx1100 does not"),
])
def test_invalid_descriptor_fields_are_refused(field, value, message):
    from runtime import DeviceError
    dev, prg, case = _device_and_kernel()
    setattr(prg.code_object.kernels["sgemm_naive"].descriptor, field, value)
    buf = dev.alloc(64)
    args = [buf, buf, buf, np.uint32(1), np.uint32(1), np.uint32(1), np.float32(1), np.float32(0)]
    with pytest.raises(DeviceError, match=message):
        prg.launch("sgemm_naive", grid=(1, 1, 1), block=(16, 16, 1), args=args)


def test_hidden_arguments_are_filled_from_the_launch():
    """A DSL kernel whose metadata lists hidden arguments after its one buffer: it copies
    the kernarg words that hold them into the buffer."""
    import dsl.rdna3 as r
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel
    s, v = r.s, r.v
    k = r.Kernel("gfx1100", name="hidden")
    k += r.s_load_b64(s[2:3], s[0:1], 0)
    k += r.s_load_b128(s[4:7], s[0:1], 8)          # block counts x, y, z and group sizes x, y
    k += r.s_waitcnt(0)
    for i in range(4):
        k += r.v_mov_b32(v[1], s[4 + i])
        k += r.v_mov_b32(v[2], 4 * i)
        k += r.global_store_b32(v[2], v[1], s[2:3])
    k += r.s_endpgm()
    args = [KernelArg(0, 8, "global_buffer", "out"), KernelArg(8, 4, "hidden_block_count_x"),
            KernelArg(12, 4, "hidden_block_count_y"), KernelArg(16, 4, "hidden_block_count_z"),
            KernelArg(20, 2, "hidden_group_size_x"), KernelArg(22, 2, "hidden_group_size_y")]
    dev = Device("emu", arch="gfx1100")
    prg = dev.load(from_dsl_kernel(k, "hidden", args, user_sgpr_kernarg_segment_ptr=1))
    out = dev.alloc(16, "out")
    prg.launch("hidden", grid=(3, 2, 1), block=(8, 4, 1), args=[out])
    assert out.copyout(np.uint32).tolist() == [3, 2, 1, 8 | 4 << 16]

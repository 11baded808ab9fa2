"""emu.memory.DeviceMemory against numpy byte arithmetic: masked lanes never fault or read,
the first active out-of-bounds lane is the one named, unaligned accesses assemble bytes."""
import numpy as np
import pytest

from emu.memory import DeviceMemory, MemoryFault


def _buffer(n=64):
    mem = DeviceMemory()
    host = np.random.default_rng(7).integers(0, 256, n, dtype=np.uint8)
    at = mem.alloc(n, "buf")
    mem.write(at, host)
    return mem, at, host


def test_inactive_lanes_with_wild_addresses_neither_fault_nor_read():
    mem, at, host = _buffer()
    addr = np.array([[at, 0, at + 4, 2**63 - 8]], np.uint64)
    mask = np.array([[True, False, True, False]])
    got = mem.load(addr, 4, mask)
    want = [host[0:4].view(np.uint32)[0], 0, host[4:8].view(np.uint32)[0], 0]
    np.testing.assert_array_equal(got, np.array([want], np.uint32))
    mem.store(addr, 4, np.array([[1, 2, 3, 4]], np.uint64), mask)
    stored = np.frombuffer(mem.read(at, 8), np.uint32)
    np.testing.assert_array_equal(stored, [1, 3])


def test_first_active_out_of_bounds_lane_is_named():
    mem, at, _ = _buffer()
    addr = np.array([[at, at + 62, at + 200, at + 61]], np.uint64)    # lane 1: 2 bytes past the end
    mask = np.array([[True, True, True, False]])
    with pytest.raises(MemoryFault) as fault:
        mem.load(addr, 4, mask)
    assert fault.value.position == (0, 1) and fault.value.address == at + 62
    assert "62 bytes into 'buf' [0x" in str(fault.value)     # a 4-byte access of a 64-byte buffer
    assert mem.load(addr, 4, np.zeros((1, 4), bool)).tolist() == [[0, 0, 0, 0]]   # nothing active: no fault


def test_unaligned_and_empty_accesses():
    mem, at, host = _buffer()
    addr = np.uint64(at) + np.array([[1, 6, 33]], np.uint64)
    got = mem.load(addr, 8, np.ones((1, 3), bool))
    want = [host[o:o + 8].view(np.uint64)[0] for o in (1, 6, 33)]
    np.testing.assert_array_equal(got, np.array([want], np.uint64))
    assert mem.load(np.zeros((0, 32), np.uint64), 4, np.ones((0, 32), bool)).shape == (0, 32)


@pytest.mark.parametrize("case", ["aligned", "masked", "unaligned", "past the end", "per-wave bases", "unit stride",
                                  "unit stride past the end", "unaligned unit stride", "unit stride masked"])
def test_split_addresses_behave_as_their_sums(case):
    """SplitAddresses (per-wave base + per-lane 32-bit offset) load, store and fault exactly
    like the uint64 sums they stand for, whichever path the memory takes."""
    from emu.memory import SplitAddresses
    mem, at, host = _buffer(256)
    rng = np.random.default_rng(5)
    base = np.full((1, 1), at, np.uint64) if case != "per-wave bases" else \
        np.array([[at], [at + 64]], np.uint64)
    offset = (rng.permutation(16)[:8] * 4).astype(np.uint32).reshape(2, 4)
    if case.startswith("unit stride"):      # lane i of the batch at 4 * i: loaded and stored as one slice
        offset = (np.arange(8, dtype=np.uint32) * 4 + (228 if case.endswith("past the end") else 12)).reshape(2, 4)
    if case == "unaligned unit stride":
        offset = (np.arange(8, dtype=np.uint32) * 4 + 13).reshape(2, 4)
    offset[1] = offset[1] if case != "unaligned" else offset[1] + 1
    if case == "past the end":
        offset[1, 2] = 254
    mask = np.ones((2, 4), bool) if not case.endswith("masked") else rng.random((2, 4)) < 0.5
    split = SplitAddresses(base, offset)
    plain = offset.astype(np.uint64) + base
    np.testing.assert_array_equal(np.asarray(split), plain)
    np.testing.assert_array_equal(split + np.uint64(4), plain + np.uint64(4))     # arithmetic: the sums
    np.testing.assert_array_equal(split & np.uint64(0xFF), plain & np.uint64(0xFF))
    assert isinstance(np.uint64(4) + split, SplitAddresses)          # the next dword: still split
    if case.endswith("past the end"):   # the first lane whose 4 bytes leave the buffer is named
        lane, address = ((1, 2), at + 254) if case == "past the end" else ((1, 3), at + 256)
        for access in (lambda: mem.load(split, 4, mask), lambda: mem.store(split, 4, offset, mask)):
            with pytest.raises(MemoryFault) as fault:
                access()
            assert fault.value.position == lane and fault.value.address == address
        return
    # the slice path serves exactly the all-active aligned unit-stride run
    assert isinstance(mem._split_indices(split, 4, mask), slice) == (case == "unit stride")
    np.testing.assert_array_equal(mem.load(split, 4, mask), mem.load(plain, 4, mask))
    value = rng.integers(0, 2**32, (2, 4), dtype=np.uint64).astype(np.uint32)
    mem.store(split, 4, value, mask)
    twin, twin_at, _ = _buffer(256)
    twin.store(plain - np.uint64(at) + np.uint64(twin_at), 4, value, mask)
    assert mem.read(at, 256) == twin.read(twin_at, 256)


def test_loads_lend_read_only_windows_only_when_asked():
    """A unit-stride load of an instruction that only loads may return a read-only window of
    memory (rtlib.owned keeps it: no register aliases it); otherwise a copy, and register
    views are still copied by owned."""
    from emu.memory import SplitAddresses
    from emu.rtlib import owned
    mem, at, host = _buffer(256)
    offset = (np.arange(8, dtype=np.uint32) * 4).reshape(2, 4)
    base = np.full((1, 1), at, np.uint64)
    lent = mem.load(SplitAddresses(base, offset, lend=True), 4, np.ones((1, 1), bool))
    copy = mem.load(SplitAddresses(base, offset), 4, np.ones((1, 1), bool))
    np.testing.assert_array_equal(lent, host[:32].view(np.uint32).reshape(2, 4))
    np.testing.assert_array_equal(copy, lent)
    assert not lent.flags.writeable and owned(lent) is lent
    assert copy.flags.writeable and owned(copy) is copy
    mem.write(at, np.zeros(32, np.uint8))
    assert not lent.any() and copy.any()         # the window is memory; the copy is not
    registers = np.zeros((4, 2, 4), np.uint32)
    assert owned(registers[1]) is not registers[1] and owned(registers[1]).base is None


def test_unit_stride_test_in_blocks(monkeypatch):
    """The unit-stride test runs in blocks of offsets: a break inside any block, or at a
    block's edge (first and last lane in place, so the span test passes), sends the access
    down the general path, with the same result."""
    import emu.memory
    from emu.memory import SplitAddresses
    monkeypatch.setattr(emu.memory, "_RUN_BLOCK", 3)         # the 7 steps of 8 lanes: blocks 0-2, 3-5, 6
    mem, at, host = _buffer(256)
    base = np.full((1, 1), at, np.uint64)
    for broken in (None, 1, 3, 4, 6):
        offset = np.arange(8, dtype=np.uint32) * 4
        if broken is not None:
            offset[broken] += 4
        split, mask = SplitAddresses(base, offset.reshape(2, 4)), np.ones((1, 1), bool)
        assert isinstance(mem._split_indices(split, 4, mask), slice) == (broken is None)
        np.testing.assert_array_equal(mem.load(split, 4, mask), mem.load(np.asarray(split), 4, mask))

"""DeviceMemory's fast path for arrays of 64-bit addresses (EmuOptions.plain_address_extremes:
min/max bounds against one allocation, one gather/scatter) against a byte-by-byte numpy model
of the same buffers, and against the per-lane path (the switch off) and reference mode (every
switch off): values, stores (the highest lane wins a shared address), inactive lanes with
wild addresses, and faults naming the same lane, address and buffer."""
import numpy as np
import pytest

from emu.memory import DeviceMemory, MemoryFault
from emu.options import FAST, REFERENCE, activate, deactivate, options_from

MODES = {"fast": FAST, "switch off": options_from(off=["plain_address_extremes"]), "reference": REFERENCE}
SIZES = (256, 4096, 100)           # three buffers side by side


def _memory():
    mem, host, starts = DeviceMemory(), {}, []
    rng = np.random.default_rng(11)
    for i, size in enumerate(SIZES):
        at = mem.alloc(size, f"buf{i}")
        host[at] = rng.integers(0, 256, size, dtype=np.uint8)
        mem.write(at, host[at])
        starts.append(at)
    return mem, host, starts


def _model_load(host, addr, nbytes, mask):
    """Little-endian values assembled from the host bytes, lane by lane (0 where inactive)."""
    out = np.zeros(addr.shape, np.uint64)
    for pos in np.ndindex(addr.shape):
        if mask[pos]:
            a = int(addr[pos])
            at = max(s for s in host if s <= a)
            out[pos] = int.from_bytes(host[at][a - at:a - at + nbytes].tobytes(), "little")
    return out


def _model_store(host, addr, nbytes, value, mask):
    for pos in np.ndindex(addr.shape):          # lane order: the last lane to a byte wins
        if mask[pos]:
            a = int(addr[pos])
            at = max(s for s in host if s <= a)
            host[at][a - at:a - at + nbytes] = np.frombuffer(int(value[pos]).to_bytes(8, "little")[:nbytes], np.uint8)


def _run(options, fn):
    token = activate(options)
    try:
        return fn()
    finally:
        deactivate(token)


def _case(name, starts, rng, nbytes):
    shape = (3, 8)
    a, b = starts[0], starts[1]
    addr = np.uint64(b) + (rng.integers(0, 4096 // nbytes, shape) * nbytes).astype(np.uint64)
    mask = np.ones(shape, bool)
    fast = True
    if name == "masked, wild inactive lanes":
        mask = rng.random(shape) < 0.6
        addr[~mask] = rng.integers(0, 2**64, (~mask).sum(), dtype=np.uint64)
    elif name == "shared addresses":
        addr[:, 4:] = addr[:, :4]
        addr[2] = addr[0]
    elif name == "all lanes in one broadcast mask":
        mask = np.ones((1, 1), bool)
    elif name == "unaligned":
        addr[1, 3] += np.uint64(1)
        fast = nbytes == 1
    elif name == "two buffers":
        addr[0, :2] = np.uint64(a) + np.uint64(nbytes)
        fast = False
    return addr, mask, fast


FAULTS = {
    "past the end": lambda s, n: (s[1] + 4096 - n + 1, None),
    "aligned, right after the end": lambda s, n: (s[1] + 4096, None),
    "aligned, across the end of buf2 (100 bytes)": lambda s, n: (s[2] + (96 if n == 8 else 100), None),
    "in the guard between buffers": lambda s, n: (s[0] + 256, None),
    "before every buffer": lambda s, n: (s[0] - 512, None),
    "wrapped below zero": lambda s, n: (2**64 - 16, None),
    "lane past the end while a wilder one is inactive": lambda s, n: (s[2] + 104, 2**63 + 8),
}


@pytest.mark.parametrize("nbytes", [1, 2, 4, 8])
@pytest.mark.parametrize("case", ["in one buffer", "masked, wild inactive lanes", "shared addresses",
                                  "all lanes in one broadcast mask", "unaligned", "two buffers"])
def test_plain_addresses_load_and_store_as_the_byte_model(case, nbytes):
    rng = np.random.default_rng(len(case) * 10 + nbytes)
    _, host0, starts0 = _memory()
    addr, mask, fast = _case(case, starts0, rng, nbytes)
    full = np.broadcast_to(mask, addr.shape)
    value = rng.integers(0, 2**64, addr.shape, dtype=np.uint64)
    want_load = _model_load(host0, addr, nbytes, full)
    _model_store(host0, addr, nbytes, value, full)
    for mode, options in MODES.items():
        mem, _, starts = _memory()
        assert starts == starts0          # the same layout: the same addresses are valid
        taken = _run(options, lambda: mem._plain_indices(addr, nbytes, mask)) is not None
        assert taken == (fast and mode == "fast"), mode
        got = _run(options, lambda: mem.load(addr, nbytes, mask))
        np.testing.assert_array_equal(got.astype(np.uint64), want_load, err_msg=mode)
        _run(options, lambda: mem.store(addr, nbytes, value, mask))
        for at, size in zip(starts, SIZES):
            np.testing.assert_array_equal(np.frombuffer(mem.read(at, size), np.uint8), host0[at], err_msg=mode)


@pytest.mark.parametrize("nbytes", [4, 8])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_plain_address_faults_name_the_same_lane_in_every_mode(fault, nbytes):
    """The fast check fails over to the per-lane path, which names the first active faulting
    lane: every mode reports the same lane, address and buffer, for loads and stores."""
    seen = set()
    for mode, options in MODES.items():
        mem, _, starts = _memory()
        bad, wild = FAULTS[fault](starts, nbytes)
        addr = np.uint64(starts[1]) + (np.arange(16, dtype=np.uint64) * np.uint64(nbytes)).reshape(2, 8)
        mask = np.ones((2, 8), bool)
        addr[1, 5] = np.uint64(bad)
        addr[1, 6] = np.uint64(bad)                 # a later lane faulting too is not the one named
        if wild is not None:
            addr[0, 2], mask[0, 2] = np.uint64(wild), False
        for access in (lambda: mem.load(addr, nbytes, mask), lambda: mem.store(addr, nbytes, addr, mask)):
            with pytest.raises(MemoryFault) as caught:
                _run(options, access)
            f = caught.value
            assert f.position == (1, 5) and f.address == bad and f.nbytes == nbytes, mode
            seen.add(str(f))
        # nothing was written by the faulting store
        assert mem.read(starts[1], 64) == bytes(_memory()[1][starts[1]][:64]), mode
    assert len(seen) == 1, seen      # one message in every mode


def test_freed_buffer_faults_in_every_mode():
    for mode, options in MODES.items():
        mem, _, starts = _memory()
        mem.free(starts[2])
        addr = np.full((1, 4), starts[2] + 8, np.uint64)      # aligned, inside the freed range
        with pytest.raises(MemoryFault) as caught:
            _run(options, lambda: mem.load(addr, 4, np.ones((1, 1), bool)))
        assert caught.value.position == (0, 0) and "'buf2' (freed)" in str(caught.value), mode


def test_no_active_lane_reads_zeros_and_writes_nothing():
    for mode, options in MODES.items():
        mem, host, starts = _memory()
        addr = np.full((2, 4), 2**63 + 5, np.uint64)
        for mask in (np.zeros((2, 4), bool), np.zeros((1, 1), bool)):
            assert not _run(options, lambda: mem.load(addr, 4, mask)).any(), mode
            _run(options, lambda: mem.store(addr, 4, addr, mask))
        assert all(mem.read(at, len(host[at])) == host[at].tobytes() for at in starts), mode


@pytest.mark.parametrize("case", ["global only", "one lane in the LDS aperture", "an inactive lane in the aperture",
                                  "one lane in the scratch aperture"])
def test_flat_accesses_below_the_apertures_are_global_ones(case):
    """FLAT: every address below the apertures goes to global memory as it is (one maximum,
    EmuOptions.flat_below_apertures); any lane at or above them takes the per-lane split. The
    LDS and scratch bytes are numpy arrays read back, the global ones the byte model's."""
    from emu.memory import PRIVATE_APERTURE, SHARED_APERTURE, FlatMemory, RegionMemory
    rng = np.random.default_rng(len(case))
    _, host0, starts0 = _memory()
    addr = np.uint64(starts0[1]) + (rng.permutation(64)[:16] * 4).astype(np.uint64).reshape(2, 8)
    mask = np.ones((2, 8), bool)
    if case == "one lane in the LDS aperture":
        addr[1, 1] = np.uint64(SHARED_APERTURE + 12)
    elif case == "one lane in the scratch aperture":
        addr[0, 7] = np.uint64(PRIVATE_APERTURE + 4)
    elif case == "an inactive lane in the aperture":
        addr[0, 3], mask[0, 3] = np.uint64(SHARED_APERTURE + 8), False
    value = rng.integers(0, 2**32, (2, 8), dtype=np.uint64).astype(np.uint32)
    outcomes = []
    for mode, options in {**MODES, "flat switch off": options_from(off=["flat_below_apertures"])}.items():
        mem, _, _ = _memory()
        lds = RegionMemory("LDS", np.arange(64, dtype=np.uint8), 64, np.zeros((2, 1), np.int64))
        scratch = RegionMemory("scratch", np.arange(16 * 16, dtype=np.uint8), 16, np.arange(16).reshape(2, 8) * 16)
        flat = FlatMemory(mem, lds, scratch)
        assert _run(options, lambda: flat.global_only(addr)) == (case == "global only" and mode in ("fast", "switch off")), mode
        got = _run(options, lambda: flat.load(addr, 4, mask))
        _run(options, lambda: flat.store(addr, 4, value, mask))
        outcomes.append((got.tolist(), [mem.read(at, size) for at, size in zip(starts0, SIZES)],
                         lds.data.tobytes(), scratch.data.tobytes()))
    global_lanes = mask & (addr < np.uint64(SHARED_APERTURE))
    np.testing.assert_array_equal(np.where(global_lanes, outcomes[0][0], 0),
                                  _model_load(host0, addr, 4, global_lanes))
    assert all(o == outcomes[0] for o in outcomes), case

"""Multi-dword loads as one access (emu/dword_loads.py, EmuOptions.dword_run_loads) against
the bytes numpy reads from the same buffer, and against the per-dword semantic (the switch
off, and reference mode): the same register values, and the same fault (lane, address) when
a run leaves its buffer."""
import numpy as np
import pytest

from isa.code_facts import dword_loads, dword_stores, field_loads
from emu.memory import DeviceMemory, MemoryFault
from emu.options import FAST, REFERENCE, activate, deactivate, options_from
from emu.semantics import Ctx
from emu.table import SemanticTable

MODES = {"fast": FAST, "switch off": options_from(off=["dword_run_loads"]), "reference": REFERENCE}
SIZE = 1024


def _memory():
    mem = DeviceMemory()
    host = np.random.default_rng(3).integers(0, 256, SIZE, dtype=np.uint8)
    at = mem.alloc(SIZE, "buf")
    mem.write(at, host)
    return mem, at, host


def _expected(host, offsets, n):
    """uint32 (..., n): the dwords little-endian from host bytes at each offset."""
    out = np.zeros(offsets.shape + (n,), np.uint32)
    for pos in np.ndindex(offsets.shape):
        o = int(offsets[pos])
        out[pos] = np.frombuffer(host[o:o + 4 * n].tobytes(), "<u4")
    return out


def _run(options, mnemonic, ctx_of, arch="gfx1100"):
    token = activate(options)
    try:
        table = SemanticTable(arch, narrow=options.narrow_uint32)
        return table.lookup(mnemonic).execute(ctx_of())
    finally:
        deactivate(token)


def _as_dwords(value, n):
    v = np.asarray(value)
    if n == 2 and v.dtype == np.uint64:          # a 64-bit register value: its two dwords
        return np.stack([(v & np.uint64(0xFFFFFFFF)).astype(np.uint32), (v >> np.uint64(32)).astype(np.uint32)], -1)
    return v


def test_the_run_pattern_is_read_from_the_pseudocode():
    assert field_loads("SDATA[31 : 0] = MEM[ADDR + 0U].b;\nSDATA[63 : 32] = MEM[ADDR + 4U].b") == ("SDATA", 2)
    assert field_loads("SDATA[31 : 0] = MEM[ADDR].b32;\nSDATA[63 : 32] = MEM[ADDR + 4U].b32") == ("SDATA", 2)  # RDNA3.5
    assert field_loads("VDATA.b = MEM[ADDR].b") is None                       # one dword: nothing to fuse
    assert field_loads("SDATA[31 : 0] = MEM[ADDR + 0U].b;\nSDATA[63 : 32] = MEM[ADDR + 8U].b") is None   # a gap
    assert field_loads("SDATA[31 : 0] = MEM[ADDR + 0U].b;\nVDATA[63 : 32] = MEM[ADDR + 4U].b") is None   # two registers
    assert field_loads("SDATA[31 : 0] = MEM[ADDR + 0U].u8;\nSDATA[63 : 32] = MEM[ADDR + 4U].u8") is None  # not dwords


def test_one_dword_loads_and_dword_stores_are_read_from_the_pseudocode():
    """dword_loads (field_loads with one dword too: scalar_loads.py, machine_fuse.py) and
    dword_stores, on the manuals' code of RDNA3 and RDNA3.5 and near misses."""
    assert dword_loads("SDATA[31 : 0] = MEM[ADDR + 0U].b") == ("SDATA", 1)                 # RDNA3 S_LOAD_B32
    assert dword_loads("VDATA.b = MEM[ADDR].b") == ("VDATA", 1)                             # RDNA3 GLOBAL_LOAD_B32
    assert dword_loads("VDATA[31 : 0] = MEM[ADDR].b32") == ("VDATA", 1)                     # RDNA3.5
    assert dword_loads("SDATA[31 : 0] = MEM[ADDR].b32;\nSDATA[63 : 32] = MEM[ADDR + 4U].b32") == ("SDATA", 2)
    assert dword_loads("VDATA.u = 32'U({ 24'0, MEM[ADDR].u8 })") is None                   # a byte, widened
    assert dword_loads("VDATA[15 : 0] = MEM[ADDR].b16") is None                             # D16: half a register
    assert dword_loads("VDATA.b = MEM[ADDR + 4U].b") is None                                # not from ADDR
    assert dword_loads("addr = CalcGlobalAddr(v_addr.b64, s_saddr.b64);\nVDATA[31 : 0] = MEM[addr].b32") is None
    assert dword_loads("VDATA.b = MEM[ADDR].b;\nX.b = MEM[ADDR + 4U].b") is None           # whole dwords: one alone
    assert dword_stores("MEM[ADDR].b = VDATA[31 : 0]") == ("VDATA", 1)                     # RDNA3 GLOBAL_STORE_B32
    assert dword_stores("MEM[ADDR].b32 = VDATA[31 : 0]") == ("VDATA", 1)                   # RDNA3.5
    assert dword_stores("MEM[ADDR + 0U].b = VDATA[31 : 0];\nMEM[ADDR + 4U].b = VDATA[63 : 32]") == ("VDATA", 2)
    assert dword_stores("MEM[ADDR].b16 = VDATA[15 : 0]") is None                            # 16 bits
    assert dword_stores("MEM[ADDR].b = VDATA[63 : 32]") is None                             # the wrong dword
    assert dword_stores("MEM[ADDR + 0U].b = VDATA[31 : 0];\nMEM[ADDR + 8U].b = VDATA[63 : 32]") is None   # a gap
    assert dword_stores("MEM[ADDR].b = DATA[31 : 0];\nMEM[ADDR + 4U].b = VDATA[63 : 32]") is None          # two registers


@pytest.mark.parametrize("mnemonic, n", [("S_LOAD_B64", 2), ("S_LOAD_B128", 4), ("S_LOAD_B256", 8),
                                         ("S_LOAD_B512", 16)])
@pytest.mark.parametrize("where", ["uniform", "per wave", "unaligned", "last bytes of the buffer"])
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_smem_runs_read_the_buffer_bytes(mnemonic, n, where, arch):
    mem, at, host = _memory()
    offsets = {"uniform": np.array([[64]]), "per wave": np.array([[0], [128], [4 * 7]]),
               "unaligned": np.array([[2], [61]]), "last bytes of the buffer": np.array([[SIZE - 4 * n]])}[where]
    addr = offsets.astype(np.uint64) + np.uint64(at)
    waves = 3 if len(offsets) == 1 else len(offsets)
    def ctx():
        return Ctx(32, np.full((waves, 1), 2**32 - 1, np.uint64),
                   {"ADDR": addr, "SDATA": np.zeros((waves, 1) if n == 2 else (1, 1, n),
                                                    np.uint64 if n == 2 else np.uint32)}, True, mem=mem)
    want = np.broadcast_to(_expected(host, offsets, n), (waves, 1, n))
    for mode, options in MODES.items():
        got = _as_dwords(_run(options, mnemonic, ctx, arch)["SDATA"], n)
        np.testing.assert_array_equal(np.broadcast_to(got, want.shape), want, err_msg=mode)


@pytest.mark.parametrize("mnemonic, n", [("GLOBAL_LOAD_B64", 2), ("GLOBAL_LOAD_B96", 3), ("GLOBAL_LOAD_B128", 4),
                                         ("FLAT_LOAD_B64", 2), ("FLAT_LOAD_B128", 4)])
@pytest.mark.parametrize("exec_bits", [2**32 - 1, 0x0F0F_00FF])
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_global_runs_read_the_buffer_bytes(mnemonic, n, exec_bits, arch):
    from emu.memory import FlatMemory
    device, at, host = _memory()
    mem = FlatMemory(device, None, None) if mnemonic.startswith("FLAT") else device
    rng = np.random.default_rng(n)
    offsets = (rng.integers(0, (SIZE - 4 * n) // 4, (2, 32)) * 4).astype(np.uint64)
    active = ((np.uint64(exec_bits) >> np.arange(32, dtype=np.uint64)) & np.uint64(1)).astype(bool)[None, :]
    addr = offsets + np.uint64(at)
    wild = 2**63 + 12 if mem is device else 2**40 + 12     # (FLAT: below the apertures)
    addr[~np.broadcast_to(active, addr.shape)] = np.uint64(wild)      # inactive lanes: wild addresses
    def ctx():
        return Ctx(32, np.full((2, 1), exec_bits, np.uint64),
                   {"ADDR": addr, "VDATA": np.zeros((2, 32), np.uint64 if n == 2 else np.uint32)}, False, mem=mem)
    want = _expected(host, np.where(active, offsets, 0), n)
    results = []
    for mode, options in MODES.items():
        got = np.broadcast_to(_as_dwords(_run(options, mnemonic, ctx, arch)["VDATA"], n), want.shape)
        np.testing.assert_array_equal(got[np.broadcast_to(active, (2, 32))],
                                      want[np.broadcast_to(active, (2, 32))], err_msg=mode)
        results.append(got)
    np.testing.assert_array_equal(results[0], results[1])       # inactive lanes alike too


@pytest.mark.parametrize("mnemonic, n, scalar", [("S_LOAD_B128", 4, True), ("GLOBAL_LOAD_B128", 4, False),
                                                 ("S_LOAD_B64", 2, True)])
@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])
def test_a_run_leaving_its_buffer_faults_at_the_same_dword(mnemonic, n, scalar, arch):
    """The run's last dwords past the end: the per-dword semantic runs and names the first
    dword outside the buffer, in every mode."""
    faults = set()
    for mode, options in MODES.items():
        mem, at, host = _memory()
        offsets = np.array([[SIZE - 4 * n + 4]], np.uint64) if scalar else \
            np.tile(np.arange(32, dtype=np.uint64) * np.uint64(4), (1, 1))
        if not scalar:
            offsets[0, 9] = SIZE - 4 * n + 4
        addr = offsets + np.uint64(at)
        shape = (1, 1) if scalar else (1, 32)
        def ctx():
            return Ctx(32, np.full((1, 1), 2**32 - 1, np.uint64),
                       {"ADDR": addr, "SDATA": np.zeros(shape, np.uint64),
                        "VDATA": np.zeros(shape + (n,), np.uint32)}, scalar, mem=mem)
        with pytest.raises(MemoryFault) as caught:
            _run(options, mnemonic, ctx, arch)
        f = caught.value
        assert f.address == at + SIZE and (scalar or f.position == (0, 9)), mode
        faults.add((f.address, f.position, str(f)))
    assert len(faults) == 1, faults

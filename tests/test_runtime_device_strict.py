"""The device API on bad input (issue 15, classes 5, 11, 12, 13): arguments checked against
the kernel's metadata (kinds, numpy dtypes, sizes, which Device owns a buffer), launch
shapes checked before anything runs, DeviceError instead of struct.error/OverflowError/
MemoryError/TypeError, freed memory reused, and a runaway kernel stopped by a time budget
naming kernel, PC and wave."""
from __future__ import annotations

import time

import numpy as np
import pytest

from emu.machine import BudgetExceeded
from emu.memory import DeviceMemory, MemoryFault, OutOfDeviceMemory
from runtime import Device, DeviceError
from runtime.asm_module import assemble_module

HEAD = '.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n'
# out[i] = x for the 32 lanes of one wave; x is a uint by value
STORE = HEAD + """.text
k:
 s_load_b64 s[2:3], s[0:1], 0
 s_load_b32 s4, s[0:1], 8
 s_waitcnt 0
 v_mov_b32 v1, s4
 v_lshlrev_b32 v0, 2, v0
 global_store_b32 v0, v1, s[2:3]
 s_endpgm
.rodata
.amdhsa_kernel k
 .amdhsa_next_free_vgpr 2
 .amdhsa_next_free_sgpr 5
 .amdhsa_user_sgpr_kernarg_segment_ptr 1
 .amdhsa_kernarg_size 12
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: {kernarg}
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: {scratch}
    .wavefront_size: 32
    .sgpr_count: 5
    .vgpr_count: 2
    .max_flat_workgroup_size: {flat}
    .args:
      - {{.name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: {space}}}
      - {{.name: x, .offset: 8, .size: 4, .value_kind: by_value, .type_name: uint}}
...
.end_amdgpu_metadata
"""


def store_kernel(kernarg=12, scratch=0, flat=256, space="global", device=None):
    dev = device or Device()
    return dev, dev.load(assemble_module(STORE.format(kernarg=kernarg, scratch=scratch, flat=flat, space=space)))


def test_a_correct_launch_runs():
    dev, prg = store_kernel()
    out = dev.alloc(128)
    prg.launch("k", 1, 32, [out, np.uint32(7)])
    assert out.copyout(np.uint32).tolist() == [7] * 32


BAD_LAUNCHES = [
    ("block_string", dict(grid=1, block="256"), r"block='256': give an integer"),
    ("grid_float", dict(grid=1.7, block=32), r"grid=1\.7: give an integer"),
    ("grid_bool", dict(grid=True, block=32), r"grid=True"),
    ("grid_zero", dict(grid=(0, 1), block=32), r"every size must be >= 1"),
    ("grid_four", dict(grid=(1, 1, 1, 1), block=32), r"one to three integers"),
    ("grid_1e9_items", dict(grid=(10 ** 9, 1, 1), block=32), r"32000000000 work-items in dimension x"),
    ("grid_2_32", dict(grid=2 ** 32, block=1), r"at most 2\*\*32-1 work-groups"),
    ("block_100000", dict(grid=1, block=(1, 1, 100000)), r"100000 work-items \(at most 1024\)"),
    ("float_for_uint", dict(args="float"), r"argument x .*got float32.*give np\.uint32"),
    ("pointer_minus_1", dict(args="ptr-1"), r"address -1 does not fit"),
    ("pointer_2_70", dict(args="ptr2**70"), r"does not fit in 8 unsigned bytes"),
    ("python_float", dict(args="pyfloat"), r"give a numpy scalar"),
    ("other_device", dict(args="other"), r"belongs to another Device"),
    ("freed_buffer", dict(args="freed"), r"was freed"),
    ("args_string", dict(args="string"), r"args must be a list"),
    ("budget_zero", dict(budget=0), r"budget=0: give a positive integer"),
    ("seconds_negative", dict(seconds=-1), r"seconds=-1: give a positive number"),
]


@pytest.mark.parametrize("name, how, message", BAD_LAUNCHES, ids=[c[0] for c in BAD_LAUNCHES])
def test_bad_launches_are_refused_before_running(name, how, message):
    dev, prg = store_kernel()
    out = dev.alloc(128)
    args = {"float": [out, np.float32(5)], "ptr-1": [-1, np.uint32(5)], "ptr2**70": [2 ** 70, np.uint32(5)],
            "pyfloat": [out, 5.0], "other": [Device().alloc(128), np.uint32(1)], "string": "ab"}
    if how.get("args") == "freed":
        gone = dev.alloc(128)
        gone.free()
        args["freed"] = [gone, np.uint32(1)]
    launch = dict(grid=1, block=32, args=[out, np.uint32(1)])
    launch.update({k: (args[v] if k == "args" else v) for k, v in how.items()})
    with pytest.raises(DeviceError, match=message):
        prg.launch("k", **launch)
    assert out.copyout(np.uint32).tolist() == [0] * 32         # nothing ran


@pytest.mark.parametrize("what, call, message", [
    ("copyin_int", lambda b: b.copyin(5), r"takes a numpy array or bytes, got int"),
    ("copyin_objects", lambda b: b.copyin(np.array([object()])), r"dtype object has no device bytes"),
    ("copyin_list", lambda b: b.copyin([1, 2, 300]), r"got list"),
    ("copyin_str", lambda b: b.copyin("abc"), r"got str"),
    ("copyin_too_big", lambda b: b.copyin(np.zeros(100, np.float32)), r"400 bytes into .* of 128 bytes"),
    ("copyout_bad_dtype", lambda b: b.copyout("not a dtype"), r"not a numpy dtype"),
    ("copyout_ragged", lambda b: b.copyout("V3"),
     r"not a whole number of 3-byte elements"),
])
def test_buffer_copies_check_their_data(what, call, message):
    dev = Device()
    buf = dev.alloc(128)
    with pytest.raises(DeviceError, match=message):
        call(buf)
    assert buf.copyout() == bytes(128)


@pytest.mark.parametrize("call, message", [
    (lambda d: d.load(None), r"load takes the code object's bytes, got NoneType"),
    (lambda d: d.load("path"), r"got str \(a path\?"),
    (lambda d: d.load(b"\x7fELF" + bytes(10)), r"."),
    (lambda d: d.alloc(10 ** 13), r"larger than the device's 4 GiB"),
    (lambda d: d.alloc(2.5), r"the size must be an integer"),
    (lambda d: d.alloc(-1), r"size must be >= 0"),
    (lambda d: Device(arch="gfx9999"), r"unknown target 'gfx9999'"),
    (lambda d: Device(arch=None), r"give a target name"),
])
def test_device_calls_check_their_arguments(call, message):
    with pytest.raises(ValueError, match=message) as e:
        call(Device())
    assert isinstance(e.value, ValueError)        # DeviceError or the reader's CodeObjectError


@pytest.mark.parametrize("meta, message", [
    (dict(kernarg=4 << 30), r"kernarg segment of 4294967296 bytes"),
    (dict(flat=4096), r"max_flat_workgroup_size 4096 is not an integer in 1\.\.1024"),
])
def test_metadata_the_dispatcher_cannot_honour_is_refused(meta, message):
    dev, prg = store_kernel(**meta)
    with pytest.raises(DeviceError, match=message):
        prg.launch("k", 1, 32, [dev.alloc(128), np.uint32(1)])


@pytest.mark.parametrize("meta, message", [
    (dict(flat="'big'"), r"\.max_flat_workgroup_size is 'big', not an integer"),
    (dict(flat=2.5), r"\.max_flat_workgroup_size is 2\.5, not an integer"),
])
def test_metadata_of_another_type_is_refused_where_it_is_read(meta, message):
    # (LLVM 22's assembler calls such metadata "invalid HSA metadata"; the reader refuses it, so
    # the assembler, which loads what it writes, does too)
    with pytest.raises(ValueError, match=message):
        store_kernel(**meta)


def test_huge_scratch_is_refused():
    src = HEAD + (".text\nk:\n s_endpgm\n.rodata\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 1\n"
                  " .amdhsa_next_free_sgpr 1\n .amdhsa_private_segment_fixed_size 0xffffffff\n"
                  " .amdhsa_enable_private_segment 1\n.end_amdhsa_kernel\n")
    prg = Device().load(assemble_module(src))
    with pytest.raises(DeviceError, match=r"scratch per work-item .* GiB per work-group"):
        prg.launch("k", 1, 256, [])


def test_integer_address_space_in_metadata_still_launches():
    dev, prg = store_kernel(space=1)
    out = dev.alloc(128)
    prg.launch("k", 1, 32, [out, np.uint32(3)])
    assert out.copyout(np.uint32)[0] == 3


def test_freed_memory_is_reused_and_the_arena_stays_small():
    """3000 one-MiB allocations with frees in between (the issue's reproducer died at 4 GiB)."""
    dev = Device()
    keep = []
    for i in range(3000):
        b = dev.alloc(1 << 20)
        if i % 2:
            keep.append(b)
        else:
            b.free()
        if len(keep) > 4:
            keep.pop(0).free()
    assert dev.memory.arena_bytes <= 16 << 20


def test_allocator_best_fit_coalescing_and_zeroing():
    mem = DeviceMemory(capacity=64 << 20)
    a, b, c = (mem.alloc(1000, n) for n in "abc")
    assert a < b < c
    mem.write(b, bytes([7]) * 1000)
    mem.free(a)
    mem.free(b)                                   # a and b merge into one free range
    big = mem.alloc(1800, "big")                  # fits only in the merged range
    assert big == a and mem.read(big, 1800) == bytes(1800)     # reused memory reads as zeros
    small = mem.alloc(10, "small")
    assert small > c                              # no hole left below c: the top of the arena
    mem.free(small)
    mem.free(c)
    mem.free(big)
    assert not mem.holes and mem._end == 0        # everything free: the arena is empty again
    with pytest.raises(OutOfDeviceMemory, match="not the start of a live allocation"):
        mem.free(a)
    with pytest.raises(OutOfDeviceMemory, match="used up"):
        [mem.alloc(16 << 20) for _ in range(5)]


def test_a_stale_pointer_into_freed_memory_faults_naming_it():
    mem = DeviceMemory()
    a = mem.alloc(256, "old")
    mem.alloc(256, "neighbour")
    mem.free(a)
    with pytest.raises(MemoryFault, match="'old' \\(freed\\)"):
        mem.read(a + 8, 4)


def test_code_in_reused_memory_is_decoded_again():
    """Code written into a buffer, run, freed; new code in the reused range runs as itself."""
    from dsl import assemble
    from emu.launch import Dispatch
    dev = Device()
    out = dev.alloc(256, "out")
    results = []
    for value in (11, 22):
        code = dev.alloc(256, "code")
        code.copyin(assemble(f"v_mov_b32 v1, {value}\nv_lshlrev_b32 v0, 2, v0\n"
                             f"global_store_b32 v0, v1, s[0:1]\ns_endpgm", "gfx1100"))
        dev.machine.run(Dispatch("raw", code.address, (1, 1, 1), (32, 1, 1), user_sgprs=[out.address, 0]))
        results.append(int(out.copyout(np.uint32)[0]))
        code.free()
    assert results == [11, 22]


def test_decode_caches_stay_bounded_across_many_loaded_kernels(monkeypatch):
    """Kernels that stay loaded (as tinygrad keeps every kernel it compiled) do not keep
    their decoded instructions forever: past DECODED_LIMIT a launch starts with empty caches,
    and every kernel, old or new, still stores its own value."""
    import emu.machine
    monkeypatch.setattr(emu.machine, "DECODED_LIMIT", 8)
    dev = Device()
    programs = [(v, dev.load(assemble_module(STORE.format(kernarg=12, scratch=0, flat=256, space="global"))))
                for v in (5, 6, 7, 8)]
    out = dev.alloc(128, "out")
    for value, prg in programs + programs[::-1]:       # each kernel is 7 instructions
        prg.launch("k", 1, 32, [out, np.uint32(value)])
        assert (out.copyout(np.uint32) == value).all()
        assert len(dev.machine._decoded) <= 8 + 7


LOOP = HEAD + (".text\nk:\nL:\n s_branch L\n.rodata\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 1\n"
               " .amdhsa_next_free_sgpr 1\n.end_amdhsa_kernel\n")


def test_a_runaway_kernel_stops_at_its_time_budget_naming_kernel_pc_and_wave(capsys):
    prg = Device().load(assemble_module(LOOP))
    t = time.perf_counter()
    with pytest.raises(BudgetExceeded, match=r"^k: time budget of 0\.5 s exhausted at PC 0x[0-9a-f]+ \(s_branch\) "
                                             r"in wave 0 \(wave 0 of work-group \(0, 0, 0\)\)"):
        prg.launch("k", 1, 32, [], seconds=0.5)
    assert time.perf_counter() - t < 5


def test_the_default_time_budget_is_seconds_and_settable_by_environment(monkeypatch):
    from emu.launch import DEFAULT_SECONDS, default_seconds
    assert DEFAULT_SECONDS <= 60
    monkeypatch.setenv("WAVESMITH_LAUNCH_SECONDS", "0.3")
    assert default_seconds() == 0.3
    prg = Device().load(assemble_module(LOOP))
    with pytest.raises(BudgetExceeded, match=r"time budget of 0\.3 s"):
        prg.launch("k", 1, 32, [])
    monkeypatch.setenv("WAVESMITH_LAUNCH_SECONDS", "soon")
    with pytest.raises(ValueError, match="WAVESMITH_LAUNCH_SECONDS='soon'"):
        prg.launch("k", 1, 32, [])


def test_instruction_budget_names_the_wave():
    prg = Device().load(assemble_module(LOOP))
    with pytest.raises(BudgetExceeded, match=r"instruction budget of 300 per wave exhausted .* in wave 0 "):
        prg.launch("k", 1, 32, [], budget=300)


def test_progress_is_shown_on_a_long_launch_when_asked(monkeypatch, capsys):
    from emu import machine
    monkeypatch.setattr(machine._Clock, "PROGRESS_AFTER", 0.05)
    monkeypatch.setattr(machine._Clock, "PROGRESS_EVERY", 0.05)
    prg = Device().load(assemble_module(LOOP))
    with pytest.raises(BudgetExceeded):
        prg.launch("k", 1, 32, [], seconds=0.6, progress=True)
    err = capsys.readouterr().err
    assert "\rk: " in err and "wave-instructions" in err and err.endswith("\n")
    with pytest.raises(BudgetExceeded):
        prg.launch("k", 1, 32, [], seconds=0.3)        # stderr is not a terminal here: quiet
    assert capsys.readouterr().err == ""


QUEUE = HEAD + """.text
k:
 s_load_b64 s[2:3], s[0:1], 0
 s_load_b64 s[4:5], s[0:1], 16
 s_load_b32 s6, s[0:1], 24
 s_waitcnt 0
 v_mov_b32 v0, 0
 v_mov_b32 v1, s4
 global_store_b32 v0, v1, s[2:3]
 v_mov_b32 v1, s5
 global_store_b32 v0, v1, s[2:3] offset:4
 v_mov_b32 v1, s6
 global_store_b32 v0, v1, s[2:3] offset:8
 s_endpgm
.rodata
.amdhsa_kernel k
 .amdhsa_next_free_vgpr 2
 .amdhsa_next_free_sgpr 7
 .amdhsa_user_sgpr_kernarg_segment_ptr 1
 .amdhsa_kernarg_size 32
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 32
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 7
    .vgpr_count: 2
    .max_flat_workgroup_size: 256
    .args:
      - {.name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global}
      - {.name: x, .offset: 8, .size: 4, .value_kind: by_value, .type_name: uint}
      - {.offset: 16, .size: 8, .value_kind: hidden_queue_ptr}
      - {.offset: 24, .size: 4, .value_kind: hidden_block_count_x}
...
.end_amdgpu_metadata
"""


def test_hidden_queue_pointer_names_the_launch_queue():
    """The kernarg segment is built once with the queue unknown (arguments checked before
    anything is allocated) and its hidden_queue_ptr set once the queue is: the kernel reads the
    address of the launch's queue allocation (freed after the launch; the memory keeps its name)
    and the grid's block count beside it."""
    dev = Device()
    prg = dev.load(assemble_module(QUEUE))
    out = dev.alloc(16)
    for grid in (3, 5):
        prg.launch("k", grid, 32, [out, np.uint32(1)])
        queues = [a for a in dev.memory.freed if a.name == "queue"]
        assert len(queues) == 1
        words = out.copyout(np.uint32).tolist()
        assert words[0] | words[1] << 32 == queues[0].address and words[2] == grid

"""Devices: `Device("emu", arch=...)` runs code objects on the emulator (emu/).

This is the driver model: buffers in the device's flat memory, code objects loaded into
it, kernel arguments laid out from the code object's metadata, a real AQL kernel dispatch
packet in device memory, and the kernel descriptor translated into the hardware launch
(emu.launch.Dispatch: which user/system SGPRs and VGPRs the dispatcher initialises,
MODE, LDS and scratch sizes). The hardware model itself is emu/.

    dev = Device("emu", arch="gfx1100")
    buf = dev.alloc(4096); buf.copyin(np.arange(1024, dtype=np.float32))
    prg = dev.load(open("k.hsaco", "rb").read())
    stats = prg.launch("k", grid=(4, 1, 1), block=(256, 1, 1), args=[buf, np.float32(2.0)])
    buf.copyout(np.float32)
"""
from __future__ import annotations

import struct

import numpy as np

import isa
from emu.launch import Dispatch, LaunchError
from emu.machine import Machine
from emu.memory import PRIVATE_APERTURE, SHARED_APERTURE, DeviceMemory, MemoryFault, OutOfDeviceMemory
from emu.options import EmuOptions, REFERENCE, from_environment

from .codeobj import CodeObject, read_code_object
from .descriptor import USER_SGPRS, vgprs_from_granule

AQL_PACKET_SIZE = 64
QUEUE_SIZE = 128
MAX_KERNARG = 1 << 16          # bytes of kernel arguments a launch may have
MAX_BLOCK = 1024               # work-items per work-group (AQL holds 16 bits per dimension)
# numpy kinds an argument of an OpenCL scalar type takes (metadata .type_name)
TYPE_KINDS = {**{t: "f" for t in ("half", "float", "double")},
              **{t: "i" for t in ("char", "short", "int", "long")},
              **{t: "u" for t in ("uchar", "ushort", "uint", "ulong", "bool", "size_t")}}
# hidden kernel arguments the dispatch fills (AMDGPUUsage "Code Object V5 Metadata"): kind -> value
# from (grid in work-groups, block, queue address); kinds not listed are zero (null pointers,
# unused slots: remainders and global offsets are 0 since every work-group is full).
HIDDEN = {
    "hidden_block_count_x": lambda g, b, q: g[0], "hidden_block_count_y": lambda g, b, q: g[1],
    "hidden_block_count_z": lambda g, b, q: g[2],
    "hidden_group_size_x": lambda g, b, q: b[0], "hidden_group_size_y": lambda g, b, q: b[1],
    "hidden_group_size_z": lambda g, b, q: b[2],
    "hidden_grid_dims": lambda g, b, q: 1 + (g[1] * b[1] > 1 or g[2] * b[2] > 1) + (g[2] * b[2] > 1),
    "hidden_queue_ptr": lambda g, b, q: q,
    "hidden_private_base": lambda g, b, q: PRIVATE_APERTURE >> 32,     # aperture high dwords
    "hidden_shared_base": lambda g, b, q: SHARED_APERTURE >> 32,
}


class DeviceError(ValueError):
    """Bad use of the device API: unknown kernel, wrong arguments, a descriptor the
    dispatcher cannot honour."""


class Buffer:
    """A device allocation. copyin/copyout move bytes between host and device."""

    def __init__(self, device: "Device", address: int, nbytes: int, name: str):
        self.device, self.address, self.nbytes, self.name = device, address, nbytes, name
        self.freed = False

    def _live(self, what: str) -> None:
        if self.freed:
            raise DeviceError(f"{what} of buffer '{self.name}', which was freed")

    def copyin(self, data) -> "Buffer":
        """Copy a numpy array (numbers or bools; its bytes as laid out in C order) or a
        bytes-like object to the start of the buffer."""
        self._live("copyin")
        if isinstance(data, np.ndarray):
            if data.dtype.kind not in "biufcV" or data.dtype.hasobject:
                raise DeviceError(f"copyin into '{self.name}': an array of dtype {data.dtype} has no device bytes; "
                                  f"give numbers (e.g. dtype=np.float32)")
            raw = np.ascontiguousarray(data).tobytes()
        elif isinstance(data, (bytes, bytearray, memoryview)):
            raw = bytes(data)
        else:
            raise DeviceError(f"copyin into '{self.name}' takes a numpy array or bytes, got {type(data).__name__}; "
                              f"write np.array(values, dtype=...) so the element type is explicit")
        if len(raw) > self.nbytes:
            raise DeviceError(f"copyin of {len(raw)} bytes into '{self.name}' of {self.nbytes} bytes")
        self.device.memory.write(self.address, raw)
        return self

    def copyout(self, dtype=None):
        """The buffer's bytes, or a numpy array of `dtype`."""
        self._live("copyout")
        raw = self.device.memory.read(self.address, self.nbytes)
        if dtype is None:
            return raw
        try:
            dt = np.dtype(dtype)
        except TypeError as e:
            raise DeviceError(f"copyout of '{self.name}': {dtype!r} is not a numpy dtype ({e})") from None
        if dt.hasobject or not dt.itemsize or self.nbytes % dt.itemsize:
            raise DeviceError(f"copyout of '{self.name}' ({self.nbytes} bytes) as {dt}: not a whole number of "
                              f"{dt.itemsize}-byte elements" if dt.itemsize and not dt.hasobject
                              else f"copyout of '{self.name}' as {dt}: not a numeric dtype")
        return np.frombuffer(raw, dt).copy()

    def free(self) -> None:
        self._live("free")
        self.device.memory.free(self.address)
        self.freed = True

    def __repr__(self) -> str:
        return f"Buffer('{self.name}', 0x{self.address:x}, {self.nbytes} bytes)"


class Device:
    """reference=True runs the emulator with every fast path off (emu/options.py); `options`
    picks switches one by one; neither given: the environment's (WAVESMITH_EMU_REFERENCE=1,
    WAVESMITH_EMU_OFF=...), else every fast path on."""

    def __init__(self, kind: str = "emu", arch: str = "gfx1100", memory_bytes: int = 4 << 30,
                 reference: bool = False, options: EmuOptions | None = None):
        if kind != "emu":
            raise DeviceError(f"device kind {kind!r}: only 'emu' exists")
        if not isinstance(arch, str):
            raise DeviceError(f"arch {arch!r}: give a target name such as 'gfx1100'")
        if not _is_int(memory_bytes) or memory_bytes < 1 << 20:
            raise DeviceError(f"Device(memory_bytes={memory_bytes!r}): give an integer of at least 1 MiB")
        if options is not None and not isinstance(options, EmuOptions):
            raise DeviceError(f"Device(options={options!r}): give an emu.options.EmuOptions")
        if reference and options is not None and not options.reference:
            raise DeviceError("Device: reference=True and options with fast paths on contradict each other")
        self.kind, self.arch = kind, arch
        self.memory = DeviceMemory(capacity=int(memory_bytes))
        self.options = REFERENCE if reference else options if options is not None else from_environment()
        try:
            self.family = isa.resolve_arch(arch)
            self.machine = Machine(arch, self.memory, options=self.options)
        except (ValueError, isa.ISALoadError) as e:
            raise DeviceError(f"Device(arch={arch!r}): {e}") from None
        self._count = 0
        self.dispatches = 0         # dispatch id of the next launch (the dispatch_id user SGPRs)

    def alloc(self, nbytes: int, name: str | None = None) -> Buffer:
        """A buffer of nbytes (freed memory is reused; the device holds `memory_bytes`)."""
        if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)):
            raise DeviceError(f"alloc({nbytes!r}): the size must be an integer number of bytes")
        self._count += 1
        name = name or f"buffer{self._count}"
        try:
            address = self.memory.alloc(int(nbytes), str(name))
        except OutOfDeviceMemory as e:
            raise DeviceError(str(e)) from None
        return Buffer(self, address, int(nbytes), str(name))

    def load(self, code_object: bytes) -> "Program":
        """Load a code object (its bytes, e.g. Path("k.hsaco").read_bytes())."""
        if not isinstance(code_object, (bytes, bytearray, memoryview)):
            hint = " (a path? give Path(p).read_bytes())" if isinstance(code_object, str) else ""
            raise DeviceError(f"load takes the code object's bytes, got {type(code_object).__name__}{hint}")
        co = read_code_object(bytes(code_object))
        if isa.resolve_arch(co.target) != self.family:
            raise DeviceError(f"code object for {co.target} cannot run on a {self.arch} device")
        size = co.image_size
        try:
            base = self.memory.alloc(size, f"code object ({', '.join(co.kernels) or 'no kernels'})")
        except OutOfDeviceMemory as e:
            raise DeviceError(str(e)) from None
        self.memory.write(base, bytes(co.load_image(base)))
        return Program(self, co, base)


class Program:
    """A code object loaded into device memory."""

    def __init__(self, device: Device, co: CodeObject, base: int):
        self.device, self.code_object, self.base = device, co, base

    @property
    def kernels(self) -> list[str]:
        return list(self.code_object.kernels)

    def launch(self, name: str, grid, block, args=(), budget: int | None = None, seconds: float | None = None,
               progress: bool | None = None, timing: bool = False):
        """Run kernel `name` on grid x block (grid counts work-groups); returns emu Stats.
        `budget` (instructions any wave may issue) and `seconds` (wall time of the launch)
        stop a runaway kernel with emu.BudgetExceeded naming the kernel, PC and wave;
        `progress` prints a progress line to stderr (default: when the launch takes more
        than a couple of seconds and stderr is a terminal). `timing=True` also runs the
        cycle-approximate timing model (emu/timing): `stats.timing` is its TimingReport
        (cycles, time at the stated clock, per-wave start/end, per-PC stalls by cause);
        the functional results are the same either way."""
        co = self.code_object
        if not isinstance(name, str) or name not in co.kernels:
            raise DeviceError(f"no kernel {name!r} in the code object (kernels: {', '.join(co.kernels) or 'none'})")
        k = co.kernels[name]
        grid, block = _dims(grid, "grid", name), _dims(block, "block", name)
        for axis, (g, b) in enumerate(zip(grid, block)):
            if g * b >= 1 << 32:
                raise DeviceError(f"{name}: grid {grid} x block {block} is {g * b} work-items in dimension "
                                  f"{'xyz'[axis]} (the dispatch packet holds at most 2**32-1)")
        if isinstance(args, (str, bytes, dict)) or not hasattr(args, "__iter__"):
            raise DeviceError(f"{name}: args must be a list of the kernel's arguments, got {type(args).__name__}")
        args = list(args)
        d_budget = _limit(budget, "budget", name, int)
        d_seconds = _limit(seconds, "seconds", name, float)
        mem = self.device.memory
        kernarg = self._kernarg(k, grid, block, args, 0)        # arguments checked before anything is allocated
        allocated = []
        try:
            queue = mem.alloc(QUEUE_SIZE, "queue")
            allocated.append(queue)
            kernarg = _with_queue(k, kernarg, queue)
            # SMEM loads may read a whole b512 past the last argument, as on hardware where the
            # kernarg segment sits in a larger mapped pool: pad with 64 zero bytes
            ka = mem.alloc(-(-len(kernarg) // 64) * 64 + 64, f"kernarg segment of {name}")
            allocated.append(ka)
            mem.write(ka, kernarg)
            desc = k.descriptor
            packet = mem.alloc(AQL_PACKET_SIZE, f"dispatch packet of {name}")
            allocated.append(packet)
            mem.write(packet, aql_packet(grid, block, desc.private_segment_fixed_size,
                                         desc.group_segment_fixed_size, self.base + k.descriptor_address, ka))
            d = self.dispatch(k, grid, block, {"dispatch_ptr": packet, "queue_ptr": queue,
                                               "kernarg_segment_ptr": ka, "dispatch_id": self.device.dispatches})
            self.device.dispatches += 1
            if d_budget is not None:
                d.budget = d_budget
            if d_seconds is not None:
                d.seconds = d_seconds
            d.progress = progress
            if not isinstance(timing, bool):
                raise DeviceError(f"{name}: timing={timing!r}: give True or False")
            try:
                if timing:
                    from emu.timing import run_timed
                    return run_timed(self.device.machine, d)
                return self.device.machine.run(d)
            except LaunchError as e:
                raise DeviceError(str(e)) from None
        except OutOfDeviceMemory as e:
            raise DeviceError(f"{name}: {e}") from None
        finally:
            for address in allocated:      # the launch's queue, kernarg segment and packet
                mem.free(address)

    def _kernarg(self, k, grid, block, args, queue: int) -> bytes:
        kernel_args = k.args            # built from the metadata on each access: once here
        explicit = [a for a in kernel_args if not a.hidden]
        if len(args) != len(explicit):
            names = ", ".join(f"{a.name or '?'}:{a.value_kind}" for a in explicit)
            raise DeviceError(f"{k.name} takes {len(explicit)} arguments ({names}), got {len(args)}")
        declared = k.metadata.get(".kernarg_segment_size", 0)
        if isinstance(declared, bool) or not isinstance(declared, int):
            raise DeviceError(f"{k.name}: metadata .kernarg_segment_size {declared!r} is not an integer")
        for a in kernel_args:
            if not (0 <= a.offset <= MAX_KERNARG and 0 <= a.size <= MAX_KERNARG):
                raise DeviceError(f"{k.name}: argument {a.name or a.offset} has offset {a.offset} and size {a.size} "
                                  f"(a kernarg segment holds at most {MAX_KERNARG} bytes)")
        size = max(k.kernarg_size, declared, max((a.offset + a.size for a in kernel_args), default=0))
        if size > MAX_KERNARG:
            raise DeviceError(f"{k.name}: kernarg segment of {size} bytes (at most {MAX_KERNARG})")
        out = bytearray(size)
        values = iter(args)
        for a in kernel_args:
            if a.hidden:
                fill = HIDDEN.get(a.value_kind)
                value = int(fill(grid, block, queue) if fill else 0)
                raw = (value & ((1 << 8 * a.size) - 1)).to_bytes(a.size, "little")
            else:
                raw = _arg_bytes(k.name, a, next(values), self.device)
            out[a.offset:a.offset + a.size] = raw
        return bytes(out)

    def dispatch(self, k, grid, block, pointers: dict[str, int]) -> Dispatch:
        """Translate the kernel descriptor into the hardware launch (user SGPRs in the
        order the enables list them, system SGPRs, work-item id VGPRs, MODE)."""
        desc, target = k.descriptor, self.code_object.target_info
        traits = self.device.machine.spec.traits
        user: list[int] = []
        for enable, dwords in USER_SGPRS.items():
            if getattr(desc, enable):
                what = enable.removeprefix("enable_sgpr_")
                if what in ("private_segment_buffer", "flat_scratch_init") and target.architected_flat_scratch:
                    raise DeviceError(f"{k.name}: descriptor's {enable} is set, which {target.name} does not "
                                      f"support (architected flat scratch: the field must be 0)")
                if what == "private_segment_size":
                    value = desc.private_segment_fixed_size
                elif what in pointers:
                    value = pointers[what]
                else:
                    raise DeviceError(f"{k.name}: descriptor's {enable} is set; the emulator does not "
                                      f"provide it on {target.name}")
                user += [(value >> (32 * i)) & 0xFFFFFFFF for i in range(dwords)]
        if desc.user_sgpr_count < len(user):
            raise DeviceError(f"{k.name}: descriptor's user_sgpr_count {desc.user_sgpr_count} is less than the "
                              f"{len(user)} user SGPRs its enable bits request")
        if desc.enable_vgpr_workitem_id > 2:
            raise DeviceError(f"{k.name}: descriptor's enable_vgpr_workitem_id is {desc.enable_vgpr_workitem_id} "
                              f"(0..2)")
        if desc.group_segment_fixed_size > 65536:
            raise DeviceError(f"{k.name}: descriptor asks for {desc.group_segment_fixed_size} bytes of LDS "
                              f"(at most 65536)")
        most = k.metadata.get(".max_flat_workgroup_size", 1024)
        if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= 1024:
            raise DeviceError(f"{k.name}: metadata .max_flat_workgroup_size {most!r} is not an integer in 1..1024")
        if np.prod(block) > most:
            raise DeviceError(f"{k.name}: block {block} exceeds the kernel's max_flat_workgroup_size {most}")
        return Dispatch(
            kernel=k.name, entry=self.base + k.entry, grid=grid, block=block, wave_size=k.wave_size,
            vgprs=min(traits.vgprs + traits.agprs, vgprs_from_granule(desc, target, k.wave_size)),
            # CDNA2+: one file of VGPRs then AGPRs, the AGPRs from accum_offset on
            accum_offset=(desc.accum_offset + 1) * 4 if target.gfx90a_plus else None, user_sgprs=user,
            user_sgpr_count=desc.user_sgpr_count,
            workgroup_id=(bool(desc.enable_sgpr_workgroup_id_x), bool(desc.enable_sgpr_workgroup_id_y),
                          bool(desc.enable_sgpr_workgroup_id_z)),
            workgroup_id_ttmps=self.device.machine.spec.traits.workgroup_id_ttmps,
            workgroup_info=bool(desc.enable_sgpr_workgroup_info),
            private_segment_wave_offset=bool(desc.enable_private_segment),
            workitem_id_dims=desc.enable_vgpr_workitem_id, lds_size=desc.group_segment_fixed_size,
            scratch_size=desc.private_segment_fixed_size, mode=initial_mode(self.device.machine.spec, desc))


def initial_mode(spec, desc) -> int:
    """MODE as the dispatcher sets it from COMPUTE_PGM_RSRC1; bit positions from the ISA's
    MODE table."""
    fields = {name: lo for name, hi, lo, _ in spec.tables["mode"]}
    value = (desc.float_round_mode_32 | desc.float_round_mode_16_64 << 2) << fields["FP_ROUND"]
    value |= (desc.float_denorm_mode_32 | desc.float_denorm_mode_16_64 << 2) << fields["FP_DENORM"]
    for name, on in (("DX10_CLAMP", desc.enable_dx10_clamp), ("IEEE", desc.enable_ieee_mode)):
        if name in fields:
            value |= on << fields[name]
    return value


def aql_packet(grid, block, private_size: int, group_size: int, kernel_object: int, kernarg: int) -> bytes:
    """hsa_kernel_dispatch_packet_t: header, setup (dimensions), work-group size, grid size in
    work-items, segment sizes, kernel object (the descriptor), kernarg address, no signal."""
    dims = 3 if grid[2] * block[2] > 1 else 2 if grid[1] * block[1] > 1 else 1
    header = 2 | (1 << 8)       # HSA_PACKET_TYPE_KERNEL_DISPATCH, barrier bit
    return struct.pack("<HHHHHHIIIIIQQQQ", header, dims, *block, 0, *(g * b for g, b in zip(grid, block)),
                       private_size, group_size, kernel_object, kernarg, 0, 0)


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _dims(v, what: str, kernel: str = "") -> tuple[int, int, int]:
    """(x, y, z) from an integer or one to three integers, each >= 1; a work-group has at most
    1024 work-items, a grid at most 2**32-1 work-groups per dimension."""
    items = tuple(v) if isinstance(v, (tuple, list)) else (v,) if _is_int(v) else None
    if items is None or not 1 <= len(items) <= 3 or not all(_is_int(x) for x in items):
        raise DeviceError(f"{kernel}: {what}={v!r}: give an integer or one to three integers (e.g. (64, 1, 1))")
    t = tuple(int(x) for x in items) + (1,) * (3 - len(items))
    if any(x < 1 for x in t):
        raise DeviceError(f"{kernel}: {what} {t}: every size must be >= 1")
    if what == "block" and int(np.prod(t)) > MAX_BLOCK:
        raise DeviceError(f"{kernel}: block {t} has {int(np.prod(t))} work-items (at most {MAX_BLOCK})")
    if what == "grid" and max(t) >= 1 << 32:
        raise DeviceError(f"{kernel}: grid {t}: at most 2**32-1 work-groups per dimension")
    return t


def _limit(value, what: str, kernel: str, kind):
    if value is None:
        return None
    ok = _is_int(value) if kind is int else isinstance(value, (int, float, np.integer, np.floating)) \
        and not isinstance(value, bool)
    if not ok or not value > 0:
        raise DeviceError(f"{kernel}: {what}={value!r}: give a positive {'integer' if kind is int else 'number'}")
    return kind(value)


def _with_queue(k, kernarg: bytes, queue: int) -> bytes:
    """The kernarg segment built with queue 0 (Program._kernarg), its hidden_queue_ptr arguments
    set to `queue` (the only hidden value that depends on it)."""
    queue_args = [a for a in k.args if a.value_kind == "hidden_queue_ptr"]
    if not queue_args:
        return kernarg
    out = bytearray(kernarg)
    for a in queue_args:
        out[a.offset:a.offset + a.size] = (queue & ((1 << 8 * a.size) - 1)).to_bytes(a.size, "little")
    return bytes(out)


def _arg_bytes(kernel: str, a, value, device: "Device") -> bytes:
    where = f"{kernel} argument {a.name or a.offset} ({a.value_kind}, {a.type_name or '?'}, {a.size} bytes)"
    if a.value_kind in ("global_buffer", "dynamic_shared_pointer"):
        if isinstance(value, Buffer):
            if value.device is not device:
                raise DeviceError(f"{where}: buffer '{value.name}' belongs to another Device")
            if value.freed:
                raise DeviceError(f"{where}: buffer '{value.name}' was freed")
            value = value.address
        if not _is_int(value):
            raise DeviceError(f"{where}: expected a Buffer or an address, got {type(value).__name__}")
        if not 0 <= int(value) < 1 << 8 * a.size:
            raise DeviceError(f"{where}: address {int(value)} does not fit in {a.size} unsigned bytes")
        return int(value).to_bytes(a.size, "little")
    if a.value_kind == "by_value":
        if isinstance(value, Buffer):
            raise DeviceError(f"{where}: passed a Buffer to a by-value argument")
        kind = TYPE_KINDS.get((a.type_name or "").strip())
        if isinstance(value, np.ndarray) and value.dtype.kind in "biufcV" and not value.dtype.hasobject:
            raw = np.ascontiguousarray(value).tobytes()
        elif isinstance(value, np.generic) and value.dtype.kind in "biufcV":
            if kind is not None and value.dtype.kind != kind:
                raise DeviceError(f"{where}: got {value.dtype} ({value!r}); the kernel takes a {a.type_name}, "
                                  f"give np.{_dtype_for(kind, a.size)}(...)")
            raw = value.tobytes()
        elif isinstance(value, (bytes, bytearray)):
            raw = bytes(value)
        else:
            raise DeviceError(f"{where}: got {type(value).__name__}; give a numpy scalar (np.float32(2.0), "
                              f"np.int32(7)) so the bytes are exact")
        if len(raw) != a.size:
            raise DeviceError(f"{where}: value has {len(raw)} bytes")
        return raw
    raise DeviceError(f"{where}: argument kind {a.value_kind!r} is not supported")


def _dtype_for(kind: str, size: int) -> str:
    return {"f": {2: "float16", 4: "float32", 8: "float64"}, "i": {1: "int8", 2: "int16", 4: "int32", 8: "int64"},
            "u": {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}}[kind].get(size, "?")

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
from emu.launch import Dispatch
from emu.machine import Machine
from emu.memory import PRIVATE_APERTURE, SHARED_APERTURE, DeviceMemory
from emu.options import EmuOptions, REFERENCE, from_environment

from .codeobj import CodeObject, read_code_object
from .descriptor import USER_SGPRS, vgprs_from_granule

AQL_PACKET_SIZE = 64
QUEUE_SIZE = 128
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

    def copyin(self, data) -> "Buffer":
        raw = np.ascontiguousarray(data).tobytes() if isinstance(data, np.ndarray) else bytes(data)
        if len(raw) > self.nbytes:
            raise DeviceError(f"copyin of {len(raw)} bytes into '{self.name}' of {self.nbytes} bytes")
        self.device.memory.write(self.address, raw)
        return self

    def copyout(self, dtype=None):
        """The buffer's bytes, or a numpy array of `dtype`."""
        raw = self.device.memory.read(self.address, self.nbytes)
        return raw if dtype is None else np.frombuffer(raw, dtype).copy()

    def free(self) -> None:
        self.device.memory.free(self.address)

    def __repr__(self) -> str:
        return f"Buffer('{self.name}', 0x{self.address:x}, {self.nbytes} bytes)"


class Device:
    """reference=True runs the emulator with every fast path off (emu/options.py); `options`
    picks switches one by one; neither given: the environment's (WAVESMITH_EMU_REFERENCE=1,
    WAVESMITH_EMU_OFF=...), else every fast path on."""

    def __init__(self, kind: str = "emu", arch: str = "gfx1100", reference: bool = False,
                 options: EmuOptions | None = None):
        if kind != "emu":
            raise DeviceError(f"device kind {kind!r}: only 'emu' exists")
        if reference and options is not None and not options.reference:
            raise DeviceError("Device: reference=True and options with fast paths on contradict each other")
        self.kind, self.arch = kind, arch
        self.family = isa.resolve_arch(arch)
        self.memory = DeviceMemory()
        self.options = REFERENCE if reference else options if options is not None else from_environment()
        self.machine = Machine(arch, self.memory, options=self.options)
        self._count = 0
        self.dispatches = 0         # dispatch id of the next launch (the dispatch_id user SGPRs)

    def alloc(self, nbytes: int, name: str | None = None) -> Buffer:
        self._count += 1
        name = name or f"buffer{self._count}"
        return Buffer(self, self.memory.alloc(int(nbytes), name), int(nbytes), name)

    def load(self, code_object: bytes) -> "Program":
        co = read_code_object(bytes(code_object))
        if isa.resolve_arch(co.target) != self.family:
            raise DeviceError(f"code object for {co.target} cannot run on a {self.arch} device")
        size = co.image_size
        base = self.memory.alloc(size, f"code object ({', '.join(co.kernels) or 'no kernels'})")
        self.memory.write(base, bytes(co.load_image(base)))
        return Program(self, co, base)


class Program:
    """A code object loaded into device memory."""

    def __init__(self, device: Device, co: CodeObject, base: int):
        self.device, self.code_object, self.base = device, co, base

    @property
    def kernels(self) -> list[str]:
        return list(self.code_object.kernels)

    def launch(self, name: str, grid, block, args=(), budget: int | None = None):
        """Run kernel `name` on grid x block (grid counts work-groups); returns emu Stats."""
        co = self.code_object
        if name not in co.kernels:
            raise DeviceError(f"no kernel {name!r} in the code object (kernels: {', '.join(co.kernels) or 'none'})")
        k = co.kernels[name]
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        mem = self.device.memory
        queue = mem.alloc(QUEUE_SIZE, "queue")
        kernarg = self._kernarg(k, grid, block, list(args), queue)
        # SMEM loads may read a whole b512 past the last argument, as on hardware where the
        # kernarg segment sits in a larger mapped pool: pad with 64 zero bytes
        ka = mem.alloc(-(-len(kernarg) // 64) * 64 + 64, f"kernarg segment of {name}")
        mem.write(ka, kernarg)
        desc = k.descriptor
        packet = mem.alloc(AQL_PACKET_SIZE, f"dispatch packet of {name}")
        mem.write(packet, aql_packet(grid, block, desc.private_segment_fixed_size,
                                     desc.group_segment_fixed_size, self.base + k.descriptor_address, ka))
        d = self.dispatch(k, grid, block, {"dispatch_ptr": packet, "queue_ptr": queue, "kernarg_segment_ptr": ka,
                                           "dispatch_id": self.device.dispatches})
        self.device.dispatches += 1
        if budget is not None:
            d.budget = budget
        return self.device.machine.run(d)

    def _kernarg(self, k, grid, block, args, queue: int) -> bytes:
        explicit = [a for a in k.args if not a.hidden]
        if len(args) != len(explicit):
            names = ", ".join(f"{a.name or '?'}:{a.value_kind}" for a in explicit)
            raise DeviceError(f"{k.name} takes {len(explicit)} arguments ({names}), got {len(args)}")
        size = max(k.kernarg_size, k.metadata.get(".kernarg_segment_size", 0),
                   max((a.offset + a.size for a in k.args), default=0))
        out = bytearray(size)
        values = iter(args)
        for a in k.args:
            if a.hidden:
                fill = HIDDEN.get(a.value_kind)
                raw = int(fill(grid, block, queue) if fill else 0).to_bytes(a.size, "little")
            else:
                raw = _arg_bytes(k.name, a, next(values))
            out[a.offset:a.offset + a.size] = raw
        return bytes(out)

    def dispatch(self, k, grid, block, pointers: dict[str, int]) -> Dispatch:
        """Translate the kernel descriptor into the hardware launch (user SGPRs in the
        order the enables list them, system SGPRs, work-item id VGPRs, MODE)."""
        desc, target = k.descriptor, self.code_object.target_info
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
        if np.prod(block) > k.metadata.get(".max_flat_workgroup_size", 1024):
            raise DeviceError(f"{k.name}: block {block} exceeds the kernel's max_flat_workgroup_size "
                              f"{k.metadata['.max_flat_workgroup_size']}")
        return Dispatch(
            kernel=k.name, entry=self.base + k.entry, grid=grid, block=block, wave_size=k.wave_size,
            vgprs=min(256, vgprs_from_granule(desc, target, k.wave_size)), user_sgprs=user,
            user_sgpr_count=desc.user_sgpr_count,
            workgroup_id=(bool(desc.enable_sgpr_workgroup_id_x), bool(desc.enable_sgpr_workgroup_id_y),
                          bool(desc.enable_sgpr_workgroup_id_z)),
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


def _dims(v, what: str) -> tuple[int, int, int]:
    t = tuple(int(x) for x in (v if hasattr(v, "__len__") else (v,)))
    t = t + (1,) * (3 - len(t))
    if len(t) != 3 or any(x < 1 for x in t):
        raise DeviceError(f"{what} {v!r}: give one to three sizes >= 1")
    return t


def _arg_bytes(kernel: str, a, value) -> bytes:
    where = f"{kernel} argument {a.name or a.offset} ({a.value_kind}, {a.size} bytes)"
    if a.value_kind in ("global_buffer", "dynamic_shared_pointer"):
        if isinstance(value, Buffer):
            value = value.address
        if not isinstance(value, (int, np.integer)):
            raise DeviceError(f"{where}: expected a Buffer or an address, got {type(value).__name__}")
        return int(value).to_bytes(8, "little")
    if a.value_kind == "by_value":
        if isinstance(value, Buffer):
            raise DeviceError(f"{where}: passed a Buffer to a by-value argument")
        raw = value.tobytes() if isinstance(value, (np.generic, np.ndarray)) else bytes(value) \
            if isinstance(value, (bytes, bytearray)) else None
        if raw is None:
            raise DeviceError(f"{where}: give a numpy scalar (np.float32(2.0), np.int32(7)) so the bytes are exact")
        if len(raw) != a.size:
            raise DeviceError(f"{where}: value has {len(raw)} bytes")
        return raw
    raise DeviceError(f"{where}: argument kind {a.value_kind!r} is not supported")

"""HSA code objects: read (runtime.codeobj), write (runtime.writer), assemble from text
with .amdhsa directives (runtime.asm_module); devices: `Device("emu", arch=...)`
(runtime.device). See runtime/README.md."""
from .codeobj import CodeObject, KernelArg, KernelInfo, read_code_object
from .descriptor import KernelDescriptor
from .elf import CodeObjectError

__all__ = ["read_code_object", "CodeObject", "KernelInfo", "KernelArg", "KernelDescriptor", "CodeObjectError",
           "Device", "Buffer", "Program", "DeviceError"]


def __getattr__(name):
    # Device pulls in the emulator; it is loaded only when asked for
    if name in ("Device", "Buffer", "Program", "DeviceError"):
        from . import device
        return getattr(device, name)
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")

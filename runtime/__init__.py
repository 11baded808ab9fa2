"""See runtime/README.md. Devices: `from runtime import Device` (Device("emu", arch=...))."""


def __getattr__(name):
    # Device pulls in the emulator; load it only when asked for
    if name in ("Device", "Buffer", "Program", "DeviceError"):
        from . import device
        return getattr(device, name)
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")

"""HSA code objects: read (runtime.codeobj), write (runtime.writer), assemble from text
with .amdhsa directives (runtime.asm_module); devices: `Device("emu", arch=...)`
(runtime.device). See runtime/README.md."""
import gc as _gc
import os as _os


class _FewerCollectorPasses:
    """Python's cyclic collector's young-generation threshold raised while our modules import,
    the previous thresholds restored after (even on an exception): importing creates tens of
    thousands of long-lived objects (functions, classes, tables) that the default thresholds
    scan again and again for cycles that are not there. On leaving, every object the collector
    tracks (mostly what the imports made) is handed to the oldest generation, where long-lived
    objects end up anyway, without a collection pass over them (gc.freeze then gc.unfreeze;
    skipped when the process froze objects itself, whose freeze this must not undo); cyclic
    garbage among them waits for the next full collection. Off (the collector left alone):
    WAVESMITH_EMU_OFF=quiet_imports or WAVESMITH_EMU_REFERENCE=1 (emu/options.py)."""

    def __enter__(self):
        self.saved = _gc.get_threshold()
        off = [n.strip() for n in _os.environ.get("WAVESMITH_EMU_OFF", "").split(",")]
        self.on = "quiet_imports" not in off and \
            _os.environ.get("WAVESMITH_EMU_REFERENCE", "").strip() in ("", "0") and _gc.get_freeze_count() == 0
        if self.on:
            _gc.set_threshold(max(self.saved[0], 100_000), *self.saved[1:])
        return self

    def __exit__(self, *exc):
        try:
            if self.on and _gc.get_freeze_count() == 0:
                _gc.freeze()
                _gc.unfreeze()
        finally:
            _gc.set_threshold(*self.saved)
        return False


with _FewerCollectorPasses():
    from .codeobj import CodeObject, KernelArg, KernelInfo, read_code_object
    from .descriptor import KernelDescriptor
    from .elf import CodeObjectError

__all__ = ["read_code_object", "CodeObject", "KernelInfo", "KernelArg", "KernelDescriptor", "CodeObjectError",
           "Device", "Buffer", "Program", "DeviceError"]


def __getattr__(name):
    # Device pulls in the emulator; it is loaded only when asked for
    if name in ("Device", "Buffer", "Program", "DeviceError"):
        with _FewerCollectorPasses():
            from . import device
        return getattr(device, name)
    raise AttributeError(f"module 'runtime' has no attribute {name!r}")

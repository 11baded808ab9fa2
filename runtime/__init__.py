"""HSA code objects: read (runtime.codeobj), write (runtime.writer), assemble from text
with .amdhsa directives (runtime.asm_module). See runtime/README.md."""
from .codeobj import CodeObject, KernelArg, KernelInfo, read_code_object
from .descriptor import KernelDescriptor
from .elf import CodeObjectError

__all__ = ["read_code_object", "CodeObject", "KernelInfo", "KernelArg", "KernelDescriptor", "CodeObjectError"]

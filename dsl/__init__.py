"""wavesmith's assembly layer: LLVM-syntax text assembler and disassembler, and the
Python DSL (dsl.rdna3, dsl.rdna3_5, dsl.rdna4, dsl.cdna3, dsl.cdna4, dsl.Kernel). See dsl/README.md.

The assembler and disassembler load on first use: a program that only decodes machine code
(the emulator) imports `dsl.decode` without them."""
from importlib import import_module

__all__ = ["assemble", "disassemble", "AsmError", "OperandError", "DisassemblyWarning"]
_HOME = {"assemble": "asm", "AsmError": "asm", "disassemble": "disasm", "DisassemblyWarning": "disasm",
         "OperandError": "operands"}


def __getattr__(name):
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

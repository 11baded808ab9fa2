"""wavesmith's assembly layer: LLVM-syntax text assembler and disassembler, and the
Python DSL (dsl.rdna3, dsl.rdna3_5, dsl.Kernel). See dsl/README.md."""
from .asm import AsmError, assemble
from .disasm import DisassemblyWarning, disassemble
from .operands import OperandError

__all__ = ["assemble", "disassemble", "AsmError", "OperandError", "DisassemblyWarning"]

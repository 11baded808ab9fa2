"""`from dsl.cdna3 import *`: one function per cdna3 instruction (LLVM mnemonics in the gfx9
syntax, generated from isa/generated/cdna3 at import), registers s/v/a/ttmp, specials and Kernel."""
from ._namespace_module import namespace_gfx9 as _namespace

Kernel = None  # replaced below; listed for readers and linters
globals().update(_namespace("cdna3"))
__all__ = [n for n in globals() if not n.startswith("_")]

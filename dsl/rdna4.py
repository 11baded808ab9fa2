"""`from dsl.rdna4 import *`: one function per rdna4 instruction (LLVM mnemonics, generated
from isa/generated/rdna4 at import), registers s/v/ttmp, specials and Kernel."""
from ._namespace_module import namespace as _namespace

Kernel = None  # replaced below; listed for readers and linters
globals().update(_namespace("rdna4"))
__all__ = [n for n in globals() if not n.startswith("_")]

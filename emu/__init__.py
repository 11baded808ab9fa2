"""Emulator: instruction semantics generated from the PDF pseudocode (see README.md).

`SemanticTable` and `load_semantics` load on first use (emu/table.py), so a module of the
machine importing `emu.semantics` does not load the semantics library with it."""
from .semantics import Ctx, Memory, Operand, RegFile, Semantic, SemanticsError

__all__ = ["Ctx", "Memory", "Operand", "RegFile", "Semantic", "SemanticsError", "SemanticTable", "load_semantics"]


def __getattr__(name):
    if name in ("SemanticTable", "load_semantics"):
        from . import table
        return getattr(table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

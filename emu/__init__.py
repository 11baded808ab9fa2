"""Emulator: instruction semantics generated from the PDF pseudocode (see README.md)."""
from .semantics import Ctx, Memory, Operand, RegFile, Semantic, SemanticsError
from .table import SemanticTable, load_semantics

__all__ = ["Ctx", "Memory", "Operand", "RegFile", "Semantic", "SemanticsError", "SemanticTable", "load_semantics"]

"""Constant parts of a generated semantic computed once (EmuOptions.fold_constants).

The translator's source computes some values from literals and instruction-word fields
alone: a branch's `PC + R.U(R.signext(R.U(R.access(SIMM16, 'i', 16)) * R.U64(4))) +
R.U(np.int64(4))` spends most of its numpy calls on the offset, which is the same on every
step of that instruction. `fold(source)` rewrites the source so that each largest such
expression becomes a call of a small function that computes it on first use for those field
values and hands the value back afterwards. Only immutable values are kept (numpy scalars,
Python numbers; a 0-d array as the numpy scalar of its dtype and value, which computes
alike); anything else is computed every time. The expressions are calls into rtlib
and numpy on constants, which depend on nothing else (the emulator's fast paths give the
values the plain ways give, which is what reference mode checks); with the switch off, every
call computes its expression again.
"""
from __future__ import annotations

import ast

import numpy as np

from .options import current

FIELDS = frozenset({"SIMM16", "SIMM32", "OFFSET", "OFFSET0", "OFFSET1", "SRC0", "VDST", "DST", "DATA0", "DATA1",
                    "OPSEL", "OPSEL_HI", "NEG", "NEG_HI", "SDWA_SRC0_SEL"})
MODULES = ("R", "np", "F8")     # names of the namespace compile_source gives: rtlib, numpy, 8-bit floats
LIMIT = 4096                    # field values kept per expression


def fold(source: str) -> tuple[str, dict]:
    """(source with its constant expressions folded, the names it needs in its namespace).
    Only sources that read an instruction-word field are rewritten (branches, DS offsets,
    register numbers): elsewhere the constants are literals whose call or two costs little
    more than the look-up, and parsing every source would slow a first launch."""
    if "= R.U64(ctx.get(" not in source:
        return source, {}
    tree = ast.parse(source)
    fn = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if fn is None:
        return source, {}
    assigned: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned[node.id] = assigned.get(node.id, 0) + 1
    fields = {s.targets[0].id for s in fn.body if _reads_field(s) and assigned.get(s.targets[0].id) == 1}
    folder = _Folder(fields)
    fn.body = [folder.visit(s) for s in fn.body]
    if not folder.made:
        return source, {}
    return ast.unparse(ast.fix_missing_locations(tree)), dict(folder.made)


def _reads_field(stmt) -> bool:
    """`NAME = R.U64(ctx.get('NAME', ...))` with NAME an instruction-word field."""
    return (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in FIELDS and ast.unparse(stmt.value).startswith(f"R.U64(ctx.get({stmt.targets[0].id!r}"))


_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare)


def _operations(node) -> int:
    """Calls and operators in an expression: one or two on literals cost less than a look-up."""
    return sum(isinstance(n, _OPERATIONS) for n in ast.walk(node))


class _Folder(ast.NodeTransformer):
    def __init__(self, fields: set[str]):
        self.fields, self.made = fields, {}

    def constant(self, node) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.fields
        if isinstance(node, ast.Attribute):
            return isinstance(node.value, ast.Name) and node.value.id in MODULES
        if isinstance(node, ast.Subscript):
            return self.constant(node.value) and self.constant(node.slice)
        if isinstance(node, ast.Call):
            return self.constant(node.func) and all(self.constant(a) for a in node.args) \
                and all(self.constant(k.value) for k in node.keywords)
        if isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Tuple)):
            return all(self.constant(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
        return False

    def generic_visit(self, node):
        if isinstance(node, _OPERATIONS) and self.constant(node) and (self.uses_field(node) or _operations(node) >= 3):
            return self.replace(node)
        return super().generic_visit(node)

    def uses_field(self, node) -> bool:
        return any(isinstance(n, ast.Name) and n.id in self.fields for n in ast.walk(node))

    def replace(self, node):
        used = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in self.fields})
        name = f"_folded{len(self.made)}"
        self.made[name] = Folded(ast.unparse(node), used)
        return ast.Call(ast.Name(name, ast.Load()), [ast.Name(u, ast.Load()) for u in used], [])


class Folded:
    """One folded expression: called with its fields' values, computes it (in the generated
    code's namespace, bound by `bind`) or returns the value it gave before."""

    def __init__(self, text: str, fields: list[str]):
        self.text, self.fields, self.known = text, fields, {}
        self.compute = None

    def bind(self, namespace: dict) -> None:
        self.compute = eval(f"lambda {', '.join(self.fields)}: {self.text}", namespace)   # our own translator's output

    def __call__(self, *values):
        if not current().fold_constants:
            return self.compute(*values)
        value = self.known.get(values)       # field values are numpy integers: hashed and compared by value
        key = values
        if value is None:
            value = self.compute(*values)
            if type(value) is np.ndarray and value.ndim == 0:
                value = value[()]       # a 0-d result as the numpy scalar of the same dtype and value
            if isinstance(value, (np.generic, int, float, bool)) and len(self.known) < LIMIT:
                self.known[key] = value
        return value

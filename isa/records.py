"""`dataclass` and `make_dataclass`: the standard library's, the bytecode of the methods they
generate kept on disk between processes.

Python 3.11's dataclasses write each method a class gets (`__init__`, `__repr__`, `__eq__`,
a frozen class's `__setattr__` and `__delattr__`, `__hash__`) as source text and compile it
apart: ~0.1 ms a method in a fresh process, ~15 ms over the ~130 methods of the classes that
importing runtime and the emulator creates, a tenth of a first launch. Here the decorator is
`dataclasses.dataclass` itself, run with its `exec` looking the compiled text up in a table
keyed by the exact text (compiled as `exec` compiles it on a miss), so the class is the one
the standard library makes. The table is one marshal file per module and
Python (`$WAVESMITH_CACHE/dataclasses/<cache tag>/<module>.marshal`, default
`~/.cache/wavesmith`: a process reads the tables of the modules it imports only), read at the
module's first class and written whole (under a temporary name, then renamed) at the exit of a
process that compiled new text or read texts it would not keep (below); a missing, unreadable, damaged or foreign file is ignored and
rewritten (a file starts with the interpreter's bytecode magic number, as a .pyc does). A
process writing the table keeps the texts it used and at most as many others, the most recently
written (another checkout's or version's classes, run in turn with this one): the texts of every
version a module's classes ever had would make each process read them (the emulator's options
class, ~60 fields: ~6 KB a text, ~90 texts cost an import ~7 ms).
`WAVESMITH_CLASS_CACHE=0` turns it off: every class then compiles its methods as
`dataclasses.dataclass` does (tests/test_isa_records.py compares both). Delete the folder
freely. While it makes a class, dataclasses' pattern of string annotations matches each text
once (`_Matches`; the same match object for the same text).
"""
from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import dataclass_transform

def _folder() -> str:
    root = os.environ.get("WAVESMITH_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "wavesmith")
    return os.path.join(root, "dataclasses", sys.implementation.cache_tag)


def enabled() -> bool:
    return os.environ.get("WAVESMITH_CLASS_CACHE", "").strip() != "0"


class _Table:
    """{method source text: its compiled code} of one module's classes, loaded at the module's
    first class, written at exit if it grew or holds texts write() drops."""

    def __init__(self, module: str):
        self.path = os.path.join(_folder(), f"{module}.marshal")
        self.codes: dict[str, CodeType] = {}
        self.used: set[str] = set()
        self.new = False
        try:
            with open(self.path, "rb") as f:
                data = f.read()
            # bytecode of this interpreter's format only (as the table's folder names the Python)
            loaded = marshal.loads(data[len(MAGIC_NUMBER):]) if data.startswith(MAGIC_NUMBER) else None
            if isinstance(loaded, dict):
                self.codes = {k: v for k, v in loaded.items() if type(k) is str and type(v) is CodeType}
        except Exception:       # absent, unreadable, cut short, not marshal data, another Python's
            pass
        atexit.register(self.finish)

    def finish(self) -> None:
        """At exit: write the table if this process compiled new text, or if it holds more
        texts than write() keeps (older versions' texts, dropped)."""
        if self.used and (self.new or len(self.codes) > len(self.kept())):
            self.write()

    def kept(self) -> dict[str, CodeType]:
        """What write() stores: the texts this process did not use, the last in the table's order
        (the newest: a write puts the ones it used last) and no more of them than it used, then
        the texts it used."""
        others = [k for k in self.codes if k not in self.used]
        keep = {k: self.codes[k] for k in others[len(others) - len(self.used):]} if self.used else {}
        keep.update((k, v) for k, v in self.codes.items() if k in self.used)
        return keep

    def code(self, text: str) -> CodeType:
        code = self.codes.get(text)
        if code is None:
            # as exec compiles the text dataclasses hands it: no __future__ flags of the caller
            code = self.codes[text] = compile(text, "<string>", "exec", dont_inherit=True)
            self.new = True
        self.used.add(text)
        return code

    def write(self) -> None:
        keep = self.kept()
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(MAGIC_NUMBER + marshal.dumps(keep))
            os.replace(tmp, self.path)
        except OSError:         # a read-only or full disk: the next process compiles again
            try:
                os.remove(tmp)
            except OSError:
                pass


tables: dict[str, _Table] = {}      # module -> its table, once one of its classes was made
_making: list[_Table] = []          # the table of the class being made


class _Matches:
    """dataclasses' pattern of a string annotation's leading `module.name` (its test of each
    field for ClassVar, InitVar and KW_ONLY), each text matched once: the same text gives the
    same (immutable) match object, ~3 matches a field made ~1,200 of them over a launch's imports."""

    def __init__(self, pattern):
        self.pattern, self.found = pattern, {}

    def match(self, text):
        found = self.found.get(text, self)
        if found is self:
            found = self.found[text] = self.pattern.match(text)
        return found


_PATTERN = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
_MATCHES = _Matches(_PATTERN) if _PATTERN is not None and type(_PATTERN) is not _Matches else None


def _exec(source, globals=None, locals=None, /):
    """dataclasses' `exec` while a class is made: its method text compiled once per table."""
    if type(source) is not str or not _making:
        return builtins.exec(source, globals, locals)
    return builtins.exec(_making[-1].code(source), globals, locals)


def _made(module: str, make):
    """make() (the standard library making a dataclass) with its method texts from `module`'s table."""
    table = tables.get(module)
    if table is None:
        table = tables[module] = _Table(module)
    # dataclasses finds `exec` among its module's globals before the builtins
    _making.append(table)
    dataclasses.exec = _exec
    if _MATCHES is not None:
        dataclasses._MODULE_IDENTIFIER_RE = _MATCHES
    try:
        return make()
    finally:
        _making.pop()
        if not _making:
            dataclasses.__dict__.pop("exec", None)
            if _MATCHES is not None:
                dataclasses._MODULE_IDENTIFIER_RE = _PATTERN


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(cls=None, /, **options):
    """`dataclasses.dataclass(cls, **options)`, its generated methods' bytecode from the table."""
    if cls is None:
        return lambda c: dataclass(c, **options)
    if not enabled():
        return dataclasses.dataclass(cls, **options)
    return _made(cls.__module__, lambda: dataclasses.dataclass(cls, **options))


def make_dataclass(cls_name: str, fields, *, module: str, **options):
    """`dataclasses.make_dataclass(cls_name, fields, **options)`, its methods' bytecode from the
    table of `module` (the caller's `__name__`, which becomes the class's `__module__`)."""
    def make():
        cls = dataclasses.make_dataclass(cls_name, fields, **options)
        cls.__module__ = module
        return cls
    return make() if not enabled() else _made(module, make)

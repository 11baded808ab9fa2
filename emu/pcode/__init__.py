"""AMD pseudocode -> numpy: the parse by isa's grammar (isa/pcode/pcode.lark), translator and cache.

The parser and translator load on first use: running cached translations (emu/table.py) needs
neither the grammar nor lark, so importing this package for `lookup` costs nothing more."""
from importlib import import_module

__all__ = ["parse", "PcodeSyntaxError", "Translator", "Unsupported", "TRANSLATOR_VERSION"]
_HOME = {"parse": "grammar", "PcodeSyntaxError": "grammar", "Translator": "translate",
         "TRANSLATOR_VERSION": "translate", "Unsupported": "types"}


def __getattr__(name):
    if name in _HOME:
        return getattr(import_module(f".{_HOME[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

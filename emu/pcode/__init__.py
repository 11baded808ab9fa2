"""AMD pseudocode -> numpy: the lark grammar (pcode.lark), parser, translator and cache."""
from .parse import parse, PcodeSyntaxError
from .translate import TRANSLATOR_VERSION, Translator
from .types import Unsupported

__all__ = ["parse", "PcodeSyntaxError", "Translator", "Unsupported", "TRANSLATOR_VERSION"]

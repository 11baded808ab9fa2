"""The pseudocode language of AMD's manuals: its one grammar (`pcode.lark`, LALR) and parser
(`grammar.parse`), read by the generator (isa/gen/effects.py) and the emulator's translator
(emu/pcode/). Importing this package loads nothing; `isa.pcode.grammar` imports lark."""

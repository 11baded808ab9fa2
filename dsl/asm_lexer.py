"""The lexer lark's LALR parser runs asm.lark with: lark's contextual lexing (each parser
state matches only the terminals it can accept, which is how MNEMONIC and IDENT, or a
directive's REST, share their text), in one loop of our own.

Why not lark's own ContextualLexer: per token it goes through five Python calls (the state
lookup, the scanner, its match, Token.__new__, the line counter) and the assembler's parse
is mostly per-token cost. Here each parser state gets one compiled alternation of its
terminals, built on first use from the grammar's terminal definitions exactly as lark
orders them (priority, then longest pattern), and a token is one regex match and one
Token. Positions (line, column, end) are lark's; an unknown character raises lark's
UnexpectedCharacters, or UnexpectedToken when another state would have accepted it."""
from __future__ import annotations

from copy import copy

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import BasicLexer, Lexer


class ContextualScanLexer(Lexer):
    __future_interface__ = 2        # lark passes (lexer_state, parser_state) to lex()

    def __init__(self, conf):
        self.conf = conf
        self.ignore = frozenset(conf.ignore)
        self.by_accepts: dict[frozenset, tuple] = {}
        self.by_state: dict = {}
        self.root = self._scanner(frozenset(t.name for t in conf.terminals))

    def _scanner(self, names: frozenset) -> tuple:
        """(match, {terminal: (has newlines, ignored, callback)} for the terminals needing more
        than a plain Token) for a set of acceptable terminals; lark's BasicLexer builds the
        regex, so order and keyword handling (its callbacks) are lark's."""
        if names not in self.by_accepts:
            conf = copy(self.conf)
            conf.terminals = [t for t in self.conf.terminals if t.name in names or t.name in self.ignore]
            conf.skip_validation = True
            basic = BasicLexer(conf)
            scanner = basic.scanner
            if len(scanner._mres) != 1:
                raise AssertionError("a parser state's terminals need more than one regex")
            special = {t.name: (t.name in basic.newline_types, t.name in self.ignore, basic.callback.get(t.name))
                       for t in conf.terminals
                       if t.name in basic.newline_types or t.name in self.ignore or t.name in basic.callback}
            self.by_accepts[names] = (scanner._mres[0].match, special)
        return self.by_accepts[names]

    def _state_scanner(self, parser_state, state) -> tuple:
        names = frozenset(k for k in parser_state.parse_conf.states[state] if k in self.conf.terminals_by_name)
        self.by_state[state] = found = self._scanner(names)
        return found

    def lex(self, lexer_state, parser_state):
        text_slice = lexer_state.text
        text, end = text_slice.text, text_slice.end
        counter = lexer_state.line_ctr
        pos, line, line_start = counter.char_pos, counter.line, counter.line_start_pos
        stack = parser_state.state_stack
        by_state, new = self.by_state, str.__new__
        token = None
        try:
            while pos < end:
                state = stack[-1]
                match, special = by_state.get(state) or self._state_scanner(parser_state, state)
                m = match(text, pos, end)
                if m is None:
                    self._unexpected(text, pos, line, pos - line_start + 1, token, parser_state, state)
                kind = m.lastgroup
                value = m.group()
                stop = m.end()
                column = pos - line_start + 1
                how = special.get(kind)
                if how is None:                      # the usual token: one line, kept, no callback
                    token = new(Token, value)
                    token.type, token.value, token.start_pos = kind, value, pos
                    token.line, token.column = line, column
                    token.end_line, token.end_column, token.end_pos = line, column + stop - pos, stop
                    pos = stop
                    yield token
                    continue
                has_newlines, ignored, callback = how
                first_line = line
                if has_newlines:
                    newlines = value.count("\n")
                    if newlines:
                        line += newlines
                        line_start = pos + value.rindex("\n") + 1
                if not ignored:
                    token = new(Token, value)
                    token.type, token.value, token.start_pos = kind, value, pos
                    token.line, token.column = first_line, column
                    token.end_line, token.end_column, token.end_pos = line, stop - line_start + 1, stop
                    if callback is not None:
                        token = callback(token)
                    pos = stop
                    yield token
                pos = stop
        finally:
            counter.char_pos, counter.line, counter.line_start_pos = pos, line, line_start
            counter.column = pos - line_start + 1
            lexer_state.last_token = token

    def _unexpected(self, text, pos, line, column, last, parser_state, state):
        """lark's contextual-lexer errors: a token of the wrong kind here, or no token at all."""
        allowed = {k for k in parser_state.parse_conf.states[state] if k in self.conf.terminals_by_name}
        m = self.root[0](text, pos)
        if m is not None and m.lastgroup not in self.ignore:
            token = Token(m.lastgroup, m.group(), pos, line, column)
            raise UnexpectedToken(token, allowed, state=parser_state, token_history=[last],
                                  terminals_by_name=self.conf.terminals_by_name)
        raise UnexpectedCharacters(text, pos, line, column, allowed=allowed, state=parser_state,
                                   token_history=last and [last], terminals_by_name=self.conf.terminals_by_name)

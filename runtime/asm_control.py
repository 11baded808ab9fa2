"""Assembly-time control of a source file, as GNU as and LLVM's assembler give it:
conditional blocks (`.if` and its family, `.elseif`, `.else`, `.endif`) and macros
(`.macro NAME params` … `.endm`, invoked like an instruction, `\\param`, `\\@`, `\\()`,
`.exitm`, `.purgem`). runtime/asm_module.py runs the statements; this module finds the
arms of a conditional, decides which one holds, and writes out macro expansions as text
for the parser."""
from __future__ import annotations

import re
from dataclasses import replace

from dsl.asm import AsmError, Directive, Label, parse
from isa.records import dataclass

from .expr import split_args

# `.ifXX expr` compares the value with zero; `.if`/`.elseif` hold for a non-zero value.
VALUE_TESTS = {".if": lambda v: v != 0, ".elseif": lambda v: v != 0, ".ifne": lambda v: v != 0,
               ".ifeq": lambda v: v == 0, ".ifgt": lambda v: v > 0, ".ifge": lambda v: v >= 0,
               ".iflt": lambda v: v < 0, ".ifle": lambda v: v <= 0}
SYMBOL_TESTS = {".ifdef": True, ".ifndef": False, ".ifnotdef": False}      # holds when defined == value
BLANK_TESTS = {".ifb": True, ".ifnb": False}                               # holds when blank == value
STRING_TESTS = {".ifc": True, ".ifnc": False, ".ifeqs": True, ".ifnes": False}   # holds when equal == value
OPENERS = frozenset(VALUE_TESTS.keys() - {".elseif"} | SYMBOL_TESTS.keys() | BLANK_TESTS.keys()
                    | STRING_TESTS.keys())
ARM_DIRECTIVES = frozenset({".elseif", ".else", ".endif"})
MAX_MACRO_DEPTH = 20           # expansions inside expansions: LLVM's limit (-asm-macro-max-nesting-depth)
MAX_NESTING = 200              # conditionals, .rept blocks and macro expansions inside each other


@dataclass
class Arm:
    """One arm of a conditional: its condition directive (`.else` for the last) and the
    items [start, end) it guards."""
    condition: Directive
    start: int
    end: int


@dataclass
class Block:
    """A conditional (its arms) or a `.rept` (no arms) and the index of its `.endif`/`.endr`."""
    arms: list[Arm]
    end: int


def block_structure(module, items: list) -> dict[int, Block]:
    """Every closed conditional and `.rept` of `items` by the index of its opener, found in
    one pass with an explicit stack (no recursion, no rescans: a file of 20,000 nested
    `.if`s costs one pass, then a clear error at the level past MAX_NESTING). An opener
    without its closer has no entry; running it reports that."""
    blocks, stack = {}, []       # stack entries: [opener index, arms so far, arm head, arm start]
    for j, it in enumerate(items):
        if not isinstance(it, Directive):
            continue
        name = it.name
        if name in OPENERS or name == ".rept":
            if len(stack) >= MAX_NESTING:
                module.fail(it, f"{name}: conditionals and .rept blocks nested more than {MAX_NESTING} deep")
            stack.append([j, [], it, j + 1])
        elif name in ARM_DIRECTIVES and stack and items[stack[-1][0]].name != ".rept":
            top = stack[-1]
            if top[2].name == ".else" and name != ".endif":
                module.fail(it, f"{name} after .else (the conditional opens at line {items[top[0]].line})")
            top[1].append(Arm(top[2], top[3], j))
            if name == ".endif":
                stack.pop()
                blocks[top[0]] = Block(top[1], j)
            else:
                top[2], top[3] = it, j + 1
        elif name == ".endr" and stack and items[stack[-1][0]].name == ".rept":
            blocks[stack.pop()[0]] = Block([], j)
    return blocks


def holds(module, d: Directive) -> bool:
    """Whether the condition of `.else`/`.elseif`/`.ifXX` holds; `module` evaluates expressions
    and knows which symbols are defined."""
    name, args = d.name, d.args.strip()
    if name == ".else":
        if args:
            module.fail(d, f".else takes no arguments; got {args!r}")
        return True
    if name in SYMBOL_TESTS:
        if not re.fullmatch(r"[A-Za-z_.$][\w.$]*", args):
            module.fail(d, f"{name} takes one symbol name; got {args!r}")
        return module.defined(args) == SYMBOL_TESTS[name]
    if name in BLANK_TESTS:
        return (args == "") == BLANK_TESTS[name]
    if name in STRING_TESTS:
        parts = split_args(args)
        if len(parts) != 2:
            module.fail(d, f"{name} compares two strings separated by a comma; got {args!r}")
        if name in (".ifeqs", ".ifnes") and not all(re.fullmatch(r'"[^"]*"', p) for p in parts):
            module.fail(d, f"{name} compares two quoted strings; got {args!r}")
        a, b = (p[1:-1] if re.fullmatch(r'"[^"]*"', p) else p for p in parts)
        return (a == b) == STRING_TESTS[name]
    if not args:
        module.fail(d, f"{name} needs an expression")
    return VALUE_TESTS[name](module.value(d, args))


@dataclass
class Parameter:
    name: str
    default: str = ""
    required: bool = False
    vararg: bool = False


@dataclass
class Macro:
    name: str
    parameters: list[Parameter]
    body: str
    line: int                  # the `.macro` line: body line k is source line line + k


_MACRO_HEAD = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*,?\s*")
_PARAMETER = re.compile(r"([A-Za-z_$][\w$]*)\s*(?::\s*(req|vararg)\b)?\s*(?:=\s*(\"[^\"]*\"|[^,\s]+))?\s*,?\s*")


def define_macro(module, d: Directive) -> Macro:
    """The macro a `.macro NAME [param[:req|:vararg][=default], ...]` block defines."""
    head = _MACRO_HEAD.match(d.args)
    if not head:
        module.fail(d, f".macro needs a name; got {d.args!r}")
    params, at, rest = [], head.end(), d.args
    while at < len(rest):
        m = _PARAMETER.match(rest, at)
        if not m or m.end() == at:
            module.fail(d, f".macro {head.group(1)}: cannot read a parameter at {rest[at:]!r}")
        name, qualifier, default = m.groups()
        if any(p.name == name for p in params):
            module.fail(d, f".macro {head.group(1)}: parameter {name!r} given twice")
        params.append(Parameter(name, (default or "").strip('"'), qualifier == "req", qualifier == "vararg"))
        at = m.end()
    if any(p.vararg for p in params[:-1]):
        module.fail(d, f".macro {head.group(1)}: only the last parameter may be :vararg")
    return Macro(head.group(1).lower(), params, d.body or "", d.line)


def macro_arguments(module, macro: Macro, st, raw: str) -> dict[str, str]:
    """Parameter values of one invocation: positional, comma-separated, defaults for the
    missing ones; a :vararg parameter takes the rest."""
    given = split_args(raw) if raw.strip() else []
    params = macro.parameters
    if params and params[-1].vararg and len(given) >= len(params):
        given = given[:len(params) - 1] + [", ".join(given[len(params) - 1:])]
    if len(given) > len(params):
        module.fail(st, f"macro {macro.name} takes {len(params)} argument(s); got {len(given)}: {raw.strip()!r}")
    values = {}
    for i, p in enumerate(params):
        value = given[i] if i < len(given) and given[i] != "" else p.default
        if p.required and value == "":
            module.fail(st, f"macro {macro.name}: missing value for required parameter {p.name!r}")
        values[p.name] = value
    return values


_SUBSTITUTION = re.compile(r"\\(\(\)|@|[A-Za-z_$][\w$]*)")


def expand(module, macro: Macro, st, values: dict[str, str], serial: int) -> str:
    """The macro body with `\\param` replaced by its value, `\\@` by the expansion's serial
    number and `\\()` (a separator: `\\reg\\()_lo`) by nothing."""
    def substitute(m: re.Match) -> str:
        key = m.group(1)
        if key == "()":
            return ""
        if key == "@":
            return str(serial)
        if key not in values:
            module.fail(st, f"macro {macro.name}: its body names \\{key}, which is not one of its parameters "
                            f"({', '.join(values) or 'none'})")
        return values[key]
    return _SUBSTITUTION.sub(substitute, macro.body)


def parse_expansion(text: str, macro: Macro, st) -> list:
    """The statements of an expansion, their lines moved to the macro body's lines in the source
    (so later errors point at the body); a syntax error also names the invocation."""
    try:
        items = parse(text)
    except AsmError as e:
        raise AsmError(_shift(str(e), macro.line) + f"\n  in expansion of macro {macro.name} at line {st.line}") from None
    return [_moved(it, macro.line) for it in items]


def _moved(it, lines: int):
    if isinstance(it, (Label, Directive)):
        return replace(it, line=it.line + lines)
    dual = replace(it.dual, line=it.dual.line + lines) if it.dual is not None else None
    return replace(it, line=it.line + lines, dual=dual)


def _shift(message: str, lines: int) -> str:
    return re.sub(r"^(\d+):", lambda m: f"{int(m.group(1)) + lines}:", message, count=1)

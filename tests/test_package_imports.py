"""The product packages' import structure: each package imports only what its README's
"**May import:**" sentence names, no module imports itself through others (no import cycle
inside or between packages: function-level imports count too), and nothing in them imports
or runs LLVM's tools, a compiler or another process. Read from the source with `ast`, so a
lazy import inside a function is seen as well as a top-level one."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("isa", "dsl", "emu", "regalloc", "runtime", "frontend")
# modules that start or load native code: none of them belongs in a product package
FORBIDDEN_MODULES = {"subprocess", "ctypes", "cffi", "tests", "bench", "llvmlite"}
# Imports that break the rules today, each with its reason; the test fails when one is gone
# (so the entry goes too) as well as when a new one appears.
EXCEPTIONS = {
    ("emu.timing.cli", "runtime"): "the timing CLI builds and runs code objects on Device('emu') "
                                   "(runtime); as a command it belongs beside runtime's CLI",
}
LLVM_TOOLS = re.compile(r"\b(llvm-mc|llvm-objdump|llvm-readelf|ld\.lld|clang)(-\d+)?\b")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    if "generated" in path.parts:      # data modules (megabytes of tables): their import lines only
        return ast.parse("\n".join(line for line in path.read_text().splitlines()
                                   if line.startswith(("import ", "from "))))
    return ast.parse(path.read_text(), str(path))


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """(imported module, line) of every import in the file, relative ones resolved; `from
    package import module` names the module."""
    out = []
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                pkg = pkg[:len(pkg) - node.level + 1]
                base = ".".join(pkg + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.append((sub if sub in MODULES else base, node.lineno))
    return out


@lru_cache(maxsize=None)
def _full_graph() -> dict[str, set[str]]:
    """module -> the product modules it imports (a name resolves to its longest known prefix)."""
    graph = {}
    for name, path in MODULES.items():
        deps = set()
        for target, _ in _imports(name, path):
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                deps.add(target)
        graph[name] = deps
    return graph


def _excepted(name: str, dep: str) -> bool:
    return (name, dep.split(".")[0]) in EXCEPTIONS


def _graph() -> dict[str, set[str]]:
    """The import graph without the EXCEPTIONS."""
    return {name: {d for d in deps if not _excepted(name, d)} for name, deps in _full_graph().items()}


def test_every_exception_is_still_needed():
    used = {(name, d.split(".")[0]) for name, deps in _full_graph().items() for d in deps}
    assert not set(EXCEPTIONS) - used, f"exceptions no longer needed: {sorted(set(EXCEPTIONS) - used)}"


def _allowed(pkg: str) -> set[str]:
    """The packages the README's "**May import:**" sentence names (in backticks)."""
    text = (ROOT / pkg / "README.md").read_text()
    m = re.search(r"\*\*May import:\*\*(.*?)\.(\s|$)", text, re.S)
    assert m, f"{pkg}/README.md has no '**May import:**' sentence"
    return {n.strip("/") for n in re.findall(r"`([^`]+)`", m.group(1))} & set(PACKAGES)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]; counter[0] += 1
                    stack.append(nxt); on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    x = stack.pop(); on.discard(x); comp.append(x)
                    if x == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("pkg", PACKAGES)
def test_packages_import_only_what_their_readme_allows(pkg):
    allowed = _allowed(pkg) | {pkg}
    bad = []
    for name, deps in _graph().items():
        if name.split(".")[0] != pkg:
            continue
        for dep in sorted(deps):
            if dep.split(".")[0] not in allowed:
                bad.append(f"{name} imports {dep}")
    assert not bad, f"{pkg}/README.md allows {sorted(allowed - {pkg}) or 'no other package'}:\n" + "\n".join(bad)


def test_no_import_cycles_inside_or_between_packages():
    graph = _graph()
    cycles = _cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)
    packages = {p: set() for p in PACKAGES}
    for name, deps in graph.items():
        packages[name.split(".")[0]] |= {d.split(".")[0] for d in deps} - {name.split(".")[0]}
    assert not _cycles(packages), f"packages import each other: {packages}"


def test_product_code_never_runs_llvm_or_another_process():
    bad = []
    for name, path in MODULES.items():
        for target, line in _imports(name, path):
            if target.split(".")[0] in FORBIDDEN_MODULES:
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {target}")
            if target.split(".")[0] == "tinygrad" and not name.startswith("frontend.tinygrad"):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports tinygrad outside frontend/tinygrad/")
        tree = _tree(path)
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                      and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                    and re.match(r"(system|popen|exec|spawn|posix_spawn|fork)", node.attr):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: os.{node.attr} starts a process")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                m = LLVM_TOOLS.search(node.value)
                if m and ("/" in node.value or node.value.strip() == m.group(0)):   # a command, not prose
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: names the tool {m.group(0)!r}")
    assert not bad, "\n".join(bad)


RUN_FROM_MACHINE_CODE = """
import sys
import numpy as np
from emu.launch import Dispatch
from emu.machine import Machine
from emu.memory import DeviceMemory
code = bytes.fromhex(sys.argv[1])
mem = DeviceMemory()
out = mem.alloc(64 * 4, "out")
args = mem.alloc(8, "kernarg"); mem.write(args, np.uint64(out).tobytes())
at = mem.alloc(len(code), "code"); mem.write(at, code)
Machine("gfx1100", mem).run(Dispatch("squares", at, grid=(1, 1, 1), block=(64, 1, 1), vgprs=8,
                                     user_sgprs=[args & 0xFFFFFFFF, args >> 32]))
assert (np.frombuffer(mem.read(out, 256), np.uint32) == np.arange(64) ** 2).all()
print(" ".join(sorted(m for m in sys.modules if m in ("lark", "dsl.syntax", "isa.errata", "emu.pcode.lookup")
      or m.startswith(("lark.", "emu.pcode.grammar", "isa.pcode.grammar",
      "emu.pcode.translate", "dsl.asm", "dsl.disasm", "dsl.instr_text", "dsl.instr_fields", "dsl.encode",
      "dsl.signature", "isa.effects", "isa.control", "isa.memory_access", "isa.float_modes", "isa.code_facts",
      "emu.handwritten.",
      "emu.atomic_scan", "emu.atomic_words", "emu.atomic_observed", "emu.machine_dpp", "emu.machine_sdwa",
      "emu.buffer")))))
"""


def test_running_machine_code_loads_neither_the_grammar_nor_the_text_assembler(tmp_path):
    """The emulator runs a code object with cached semantics and instruction facts without
    importing lark, the pseudocode translator, the text assembler/disassembler or the modules
    that read facts from the pseudocode (dsl.signature, isa.effects/control/memory_access/
    float_modes/code_facts: emu/facts.py) (they are a first launch's largest imports), nor the errata
    table, the translator's description tables (emu/pcode/lookup.py) or the decoder's syntax tables
    (dsl/syntax.py: the program record holds the decodes), nor the hand-written
    semantics' modules or the atomics' (emu/atomic_scan.py, atomic_words.py, atomic_observed.py), DPP's,
    GFX9's SDWA or GFX9's buffer resources (emu/machine_dpp.py, machine_sdwa.py, buffer_gfx9.py) when it
    runs none of their instructions (buffer resources: emu/buffer.py too). The first process
    translates and works the facts out (and may load them); the second reads the caches."""
    import os
    import subprocess
    import sys
    import dsl
    code = dsl.assemble("""
        s_load_b64 s[2:3], s[0:1], 0x0
        v_lshlrev_b32 v1, 2, v0
        v_mul_u32_u24 v2, v0, v0
        s_waitcnt lgkmcnt(0)
        global_store_b32 v1, v2, s[2:3]
        s_endpgm""", "gfx1100")
    env = dict(os.environ, WAVESMITH_CACHE=str(tmp_path), PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-c", RUN_FROM_MACHINE_CODE, code.hex()], capture_output=True,
                           text=True, env=env, cwd=ROOT) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert "lark" in runs[0].stdout.split()         # the translation happened in the first process
    assert "dsl.signature" in runs[0].stdout.split()    # and the facts were worked out there
    assert runs[1].stdout.strip() == "", f"loaded to run from the cache: {runs[1].stdout}"

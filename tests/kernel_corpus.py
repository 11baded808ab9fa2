"""The clang-built kernel corpus (../shared/kernels, README inside): inputs generated bit for
bit as the README prescribes, a launch through Device("emu"), and the comparison of every
output buffer with the kernel's numpy reference within the manifest's tolerance."""
from __future__ import annotations

import ast
import importlib.util
import json
import operator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TARGETS = ("gfx1100", "gfx1100-w64", "gfx1151", "gfx1201", "gfx942", "gfx950")
# (kernel, target) -> why the emulator cannot run it yet: strict xfails in the corpus tests, so
# a kernel that starts passing fails there until it is taken off this list
NOT_YET: dict[tuple[str, str], str] = {}
_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def evaluate(expr, params: dict) -> int:
    """A manifest size: a number or an expression over params with + - * // % ()."""
    if isinstance(expr, (int, float)):
        return expr

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in params:
            return params[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(f"manifest expression {expr!r}: unsupported element {ast.dump(node)}")
    return ev(ast.parse(str(expr), mode="eval"))


def make_inputs(manifest: dict) -> dict[str, object]:
    """Initial contents of every buffer and the scalars, in argument order from one rng."""
    rng = np.random.default_rng(manifest["seed"])
    params = manifest["params"]
    out = {}
    for arg in manifest["args"]:
        dtype = np.dtype(arg["dtype"])
        if arg["kind"] == "scalar":
            out[arg["name"]] = dtype.type(evaluate(arg["value"], params))
            continue
        n = evaluate(arg["count"], params)
        init = arg["init"].replace(" ", "")
        if init.startswith("uniform("):
            lo, hi = (float(x) for x in init[8:-1].split(","))
            out[arg["name"]] = rng.uniform(lo, hi, n).astype(dtype)
        elif init.startswith("randint("):
            lo, hi = (int(x) for x in init[8:-1].split(","))
            out[arg["name"]] = rng.integers(lo, hi, n, dtype=np.int64).astype(dtype)
        elif init == "normal":
            out[arg["name"]] = rng.standard_normal(n).astype(dtype)
        elif init == "arange":
            out[arg["name"]] = np.arange(n).astype(dtype)
        elif init in ("zeros", "ones"):
            out[arg["name"]] = (np.zeros(n) if init == "zeros" else np.ones(n)).astype(dtype)
        else:
            raise ValueError(f"{manifest['name']}: unknown init {arg['init']!r}")
    return out


def compare(got: np.ndarray, want: np.ndarray, tolerance) -> str | None:
    """None when equal within tolerance, else a description of the worst element."""
    want = np.asarray(want).reshape(-1)
    got = np.asarray(got).reshape(-1)
    if got.shape != want.shape:
        return f"{got.size} elements, reference has {want.size}"
    if tolerance == "exact":
        same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want
        bad = np.flatnonzero(~same)
        return None if bad.size == 0 else f"{bad.size} elements differ, first [{bad[0]}]: {got[bad[0]]} != {want[bad[0]]}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (np.abs(g - w) <= tolerance["atol"] + tolerance["rtol"] * np.abs(w)) | (np.isnan(g) & np.isnan(w))
    bad = np.flatnonzero(~ok)
    return None if bad.size == 0 else (f"{bad.size} elements outside tolerance, first [{bad[0]}]: "
                                       f"{got[bad[0]]} vs {want[bad[0]]}")


@dataclass
class Case:
    name: str
    folder: Path
    manifest: dict

    def reference(self, inputs, params):
        spec = importlib.util.spec_from_file_location(f"kernel_ref_{self.name}", self.folder / "reference.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.reference(inputs, params)


def cases(root: Path) -> list[Case]:
    return [Case(p.parent.name, p.parent, json.loads(p.read_text())) for p in sorted(root.glob("*/manifest.json"))]


def wave_size(target: str) -> int:
    """The code object's wave size: -w64 targets and wave64-only families (CDNA) run wave64."""
    from isa import traits
    return 64 if target.endswith("-w64") else traits(target.split("-")[0]).wave_sizes[0]


def run(case: Case, target: str, devices: dict, code_object: bytes | None = None) -> tuple[dict[str, str | None], object]:
    """Launch `case` for `target` on Device("emu") (its code object from the corpus, or the
    one given); {output: None or mismatch}, Stats."""
    from runtime import Device
    m = case.manifest
    arch = target.split("-")[0]
    dev = devices.get(arch) or devices.setdefault(arch, Device("emu", arch=arch))
    inputs = make_inputs(m)
    prg = dev.load(code_object if code_object is not None else (case.folder / m["code_objects"][target]).read_bytes())
    args, buffers = [], {}
    # freed even when the launch fails (a time budget, a fault): the devices are shared by
    # the tests after this one, whose buffer addresses must not depend on an earlier failure
    try:
        for arg in m["args"]:
            value = inputs[arg["name"]]
            if arg["kind"] == "scalar":
                args.append(value)
            else:
                buf = dev.alloc(value.nbytes, arg["name"]).copyin(value)
                buffers[arg["name"]] = buf
                args.append(buf)
        stats = prg.launch(m["kernel"], grid=m["launch"]["grid"], block=m["launch"]["block"], args=args)
        params = dict(m["params"], wave_size=wave_size(target), target=target)
        want = case.reference({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}, params)
        results = {}
        for arg in m["args"]:
            if arg["kind"] == "buffer" and arg["role"] in ("out", "inout"):
                got = buffers[arg["name"]].copyout(np.dtype(arg["dtype"]))
                results[arg["name"]] = compare(got, want[arg["name"]], arg.get("tolerance", m["tolerance"]))
        return results, stats
    finally:
        for buf in buffers.values():
            buf.free()

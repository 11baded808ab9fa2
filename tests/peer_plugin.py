"""pytest plug-in for running tinygrad's test_ops.py (the peer suite) from tests/: deselects
tests by exact name (`--peer-exclude NAME`, repeatable), where pytest's own --deselect
matches node ids by prefix (excluding test_masked_select would also drop
test_masked_select_size). Loaded with `-p tests.peer_plugin`.

`--peer-times FILE` writes one JSON line per test: its CPU and wall seconds (setup, call and
teardown) and the CPU seconds spent in each phase of the default device's kernels, timed
around the device's own classes, so it works the same for any tinygrad device:
`render` (UOps -> source), `compile` (source -> binary), `load` (binary -> program object)
and `run` (launches), and `gc`: Python's cyclic collector, wherever it ran (taken out of the
phase it interrupted); the rest of a test is tinygrad's scheduling and rewriting, torch and
pytest. One process (no xdist). bench/bench_tinygrad_ops.py reads it."""
from __future__ import annotations

import gc
import json
import time

PHASES = ("render", "compile", "load", "run", "gc")
_spent = dict.fromkeys(PHASES, 0.0)
_patched: set = set()
_gc_start = [0.0]


def _gc_timer(phase: str, info: dict):
    if phase == "start":
        _gc_start[0] = time.process_time()
    else:
        _spent["gc"] += time.process_time() - _gc_start[0]


def pytest_addoption(parser):
    parser.addoption("--peer-exclude", action="append", default=[], metavar="NAME",
                     help="deselect the test function NAME (exact name, any class)")
    parser.addoption("--peer-times", default=None, metavar="FILE",
                     help="write each test's CPU/wall seconds and device phase times as JSON lines")


def pytest_collection_modifyitems(config, items):
    names = set(config.getoption("peer_exclude"))
    if not names:
        return
    keep, drop = [], []
    for item in items:
        (drop if item.name.split("[", 1)[0] in names else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _timed(cls, attr: str, phase: str):
    """Wrap cls.attr so its CPU time adds to _spent[phase] (outermost call only)."""
    if (cls, attr) in _patched or not hasattr(cls, attr):
        return
    inner = getattr(cls, attr)
    depth = [0]

    def wrapper(*args, **kwargs):
        if depth[0]:
            return inner(*args, **kwargs)
        depth[0] += 1
        start, collected = time.process_time(), _spent["gc"]
        try:
            return inner(*args, **kwargs)
        finally:
            depth[0] -= 1
            _spent[phase] += time.process_time() - start - (_spent["gc"] - collected)
    wrapper.__wrapped__ = inner
    setattr(cls, attr, wrapper)
    _patched.add((cls, attr))


def _instrument():
    """Time the default device's renderer, compiler and program classes (once)."""
    from tinygrad import Device
    dev = Device[Device.DEFAULT]
    renderer = dev.renderer
    _timed(type(renderer), "render", "render")
    if renderer.compiler is not None:
        _timed(type(renderer.compiler), "compile", "compile")
    if dev.runtime_t is not None:
        _timed(dev.runtime_t, "__init__", "load")
        _timed(dev.runtime_t, "__call__", "run")


def pytest_configure(config):
    if path := config.getoption("peer_times"):
        config._peer_times = open(path, "w")
        gc.callbacks.append(_gc_timer)


def pytest_unconfigure(config):
    if out := getattr(config, "_peer_times", None):
        out.close()


def pytest_runtest_protocol(item, nextitem):
    out = getattr(item.config, "_peer_times", None)
    if out is None:
        return None
    return _measure(item, nextitem, out)


def _measure(item, nextitem, out):
    """Run the test the ordinary way, then write its line."""
    from _pytest.runner import runtestprotocol
    if not _patched:
        try:
            _instrument()
        except Exception as e:          # no device: totals only
            print(f"peer_plugin: device phases not timed ({type(e).__name__}: {e})")
            _patched.add(None)
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    before = dict(_spent)
    cpu, wall = time.process_time(), time.perf_counter()
    reports = runtestprotocol(item, nextitem=nextitem, log=True)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    outcome = next((r.outcome for r in reports if r.when == "call"), None) or \
        next((r.outcome for r in reports if r.outcome != "passed"), "passed")
    out.write(json.dumps({"test": item.nodeid, "outcome": outcome, "cpu": round(cpu, 4), "wall": round(wall, 4),
                          **{p: round(_spent[p] - before[p], 4) for p in PHASES}}) + "\n")
    out.flush()
    return True

"""pytest plug-in for running tinygrad's test_ops.py (the peer suite) from tests/: deselects
tests by exact name (`--peer-exclude NAME`, repeatable), where pytest's own --deselect
matches node ids by prefix (excluding test_masked_select would also drop
test_masked_select_size). Loaded with `-p tests.peer_plugin`."""
from __future__ import annotations


def pytest_addoption(parser):
    parser.addoption("--peer-exclude", action="append", default=[], metavar="NAME",
                     help="deselect the test function NAME (exact name, any class)")


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

"""Shared fixtures: where ../shared is, and each PDF read once per test session."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("WAVESMITH_SHARED", REPO.parent / "shared"))

# tinygrad's CPU device, the reference side of the frontend and peer tests, compiles with $CC
# ('clang' when unset); Debian's clang-22 package, which .ci/run installs, has no plain `clang`.
# Set for the whole session, before any test makes tinygrad pick its devices.
if not os.environ.get("CC") and shutil.which("clang") is None and shutil.which("clang-22"):
    os.environ["CC"] = "clang-22"


def shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present (set WAVESMITH_SHARED to the shared resources folder)")
    return path


_lines_cache: dict = {}


@pytest.fixture(scope="session")
def pdf_lines():
    """pdf_lines(arch) -> typed lines of that arch's manual, its PDF or its Markdown conversion
    (skips when the manual is absent)."""
    from isa import sources

    def get(arch: str):
        if arch not in _lines_cache:
            try:
                sources.locate(arch)
            except sources.SpecSourceError as e:
                pytest.skip(str(e))
            _lines_cache[arch] = sources.read_lines(arch, progress=False)
        return _lines_cache[arch]
    return get

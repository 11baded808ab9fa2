"""Bounded fuzzing of the code-object reader: truncated, bit-flipped, byte-overwritten and
random inputs either read or raise CodeObjectError — never anything from deep inside."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from runtime.codeobj import read_code_object
from runtime.elf import CodeObjectError
from .conftest import SHARED

SAMPLES = sorted((SHARED / "kernels").glob("*/gfx11*.hsaco"))[:6] + sorted((SHARED / "kernels").glob("*/gfx94*.hsaco"))[:2]
SEEDS = [p.read_bytes() for p in SAMPLES]


def _reads_or_fails_clearly(data: bytes) -> None:
    try:
        co = read_code_object(data)
        for k in co.kernels.values():
            k.args
    except CodeObjectError as e:
        assert str(e)


def _seed(draw_index: int) -> bytes:
    if SEEDS:
        return SEEDS[draw_index % len(SEEDS)]
    from runtime.writer import KernelSpec, write_code_object     # without ../shared: our own output
    return write_code_object("gfx1100", [KernelSpec("k", b"\x00\x00\xb0\xbf")])


fuzz = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fuzz
@given(st.integers(0, 1 << 16),
       st.lists(st.tuples(st.booleans(), st.integers(0, 0x7ff), st.integers(0, 255)), min_size=1, max_size=8))
def test_overwritten_bytes(which, edits):
    """Bytes changed where the structure lives: the first 2 KiB (ELF and program headers,
    metadata note, dynamic symbols, descriptors) and the last 2 KiB (section headers,
    symbol and string tables)."""
    data = bytearray(_seed(which))
    for from_end, pos, value in edits:
        data[(len(data) - 1 - pos if from_end else pos) % len(data)] = value
    _reads_or_fails_clearly(bytes(data))


@fuzz
@given(st.integers(0, 1 << 16), st.integers(0, 1 << 20))
def test_truncated(which, cut):
    data = _seed(which)
    _reads_or_fails_clearly(data[:cut % len(data)])


@fuzz
@given(st.integers(0, 1 << 16), st.lists(st.integers(0, 1 << 24), min_size=1, max_size=4))
def test_header_fields_overwritten_with_large_values(which, values):
    """Offsets, counts and sizes in the ELF/section/program headers set to large values."""
    data = bytearray(_seed(which))
    for v in values:
        pos = (v * 8) % 0x400 & ~7
        data[pos:pos + 8] = (v << 20).to_bytes(8, "little")
    _reads_or_fails_clearly(bytes(data[:len(_seed(which))]))


@fuzz
@given(st.binary(max_size=512))
def test_random_bytes_after_a_valid_elf_header(tail):
    _reads_or_fails_clearly(_seed(0)[:64] + tail)

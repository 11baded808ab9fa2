"""64-bit integer division and modulo (truncating, remainder with the dividend's sign) on
Device("emu"), against Python's exact integers: divisors over the whole range (large ones,
where doubling the remainder passes 2^64, small ones, 1, -1, the extremes)."""
from __future__ import annotations

import numpy as np
import pytest

from frontend.compile import run
from frontend.ir import parse

N = 64


def operands(npt, seed):
    rng = np.random.default_rng(seed)
    info = np.iinfo(npt)
    a = rng.integers(info.min, info.max, N, dtype=npt, endpoint=True)
    b = rng.integers(info.min, info.max, N, dtype=npt, endpoint=True)
    b[:8] >>= np.array([60, 40, 33, 32, 31, 20, 5, 1], dtype=npt)
    b[8:12] = [1, 2, 3, 7]
    a[12], a[13], a[14] = info.max, info.min, 0
    b[12], b[13] = info.max, (1 if info.min == 0 else -1)
    b[b == 0] = 5
    return a, b


def exact(op, x: int, y: int) -> int:
    q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
    return (q if op == "idiv" else x - q * y) & 0xFFFFFFFFFFFFFFFF


@pytest.mark.parametrize("t,npt", [("u64", np.uint64), ("i64", np.int64)])
@pytest.mark.parametrize("op", ["idiv", "mod"])
def test_div64_matches_exact_integers(t, npt, op):
    a, b = operands(npt, 7)
    prog = parse(f"kernel k\nbuffer out {t}[{N}]\nbuffer a {t}[{N}]\nbuffer b {t}[{N}]\n"
                 f"%0 = i32 local_id 0 {N}\n%1 = {t} load a[%0]\n%2 = {t} load b[%0]\n"
                 f"%3 = {t} {op} %1 %2\nstore out[%0] %3\n")
    got = run(prog, {"out": np.zeros(N, npt), "a": a, "b": b}, block=(N, 1, 1))["out"]
    want = np.array([exact(op, x, y) for x, y in zip(a.tolist(), b.tolist())], dtype=np.uint64).view(npt)
    np.testing.assert_array_equal(got, want)


def test_div64_by_a_constant():
    a, _ = operands(np.int64, 8)
    prog = parse(f"kernel k\nbuffer out i64[{N}]\nbuffer a i64[{N}]\n%0 = i32 local_id 0 {N}\n"
                 f"%1 = i64 load a[%0]\n%2 = i64 const -1000000007\n%3 = i64 mod %1 %2\nstore out[%0] %3\n")
    got = run(prog, {"out": np.zeros(N, np.int64), "a": a}, block=(N, 1, 1))["out"]
    want = np.array([exact("mod", x, -1000000007) for x in a.tolist()], dtype=np.uint64).view(np.int64)
    np.testing.assert_array_equal(got, want)

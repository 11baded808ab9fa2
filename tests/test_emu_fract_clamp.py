"""v_fract_f16/f32/f64 clamp their result below 1.0 (isa/errata_fract.py): the manuals' code
`D0 = S0 + -floor(S0)` rounds to 1.0 for a small negative S0, the F32/F64 entries' notes say
"result clamped to 0x3f7fffff" / "0x3fefffffffffffff", and LLVM 22 folds llvm.amdgcn.fract as
minimum(x - floor(x), the largest value below 1.0) for f16, f32 and f64.

References: the manuals' own words (the generated notes), exact rationals (the sum rounded by
each MODE.FP_ROUND, then 1.0 replaced by the largest value below it), and clang-22's constant
folding of __builtin_amdgcn_fract*, run against the emulator's v_fract on the same inputs."""
from __future__ import annotations

import math
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from tests.test_emu_directed_rounding import BASE_MODE, FORMATS, add, exact, machine_run, negative, place, rounded

BELOW_ONE = {16: 0x3BFF, 32: 0x3F7FFFFF, 64: 0x3FEFFFFFFFFFFFFF}
ONE = {16: 0x3C00, 32: 0x3F800000, 64: 0x3FF0000000000000}
TARGETS = ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"]
FAMILY = {"gfx1100": "rdna3", "gfx1151": "rdna3.5", "gfx1201": "rdna4", "gfx942": "cdna3", "gfx950": "cdna4"}


def want_fract(bits: int, width: int, mode: int) -> int | None:
    """The clamped fract of float bits in `mode` (None: any NaN)."""
    q = exact(bits, width)
    if isinstance(q, float):
        return None                              # NaN in; inf + -inf: NaN
    r = rounded(*add(q, -Fraction(math.floor(q)), negative(bits, width), not negative(bits, width), mode), width, mode)
    return BELOW_ONE[width] if r == ONE[width] else r


def small_negatives(width: int) -> list[int]:
    """Bits of -x for x = the smallest denormal, the largest denormal, the smallest normal and powers
    of two from 2**-(m+1) (half an ulp below 1.0) down past where 1 - x rounds to 1.0 in every mode,
    -1e-10 in the format, and a few ordinary values around them."""
    m, e = FORMATS[width]
    bias = (1 << (e - 1)) - 1
    sign = 1 << (width - 1)
    out = [sign | 1, sign | ((1 << m) - 1), sign | 1 << m]
    out += [sign | (bias - k) << m for k in range(m - 2, min(m + 20, bias))]
    tiny = {16: np.float16(-1e-7), 32: np.float32(-1e-10), 64: np.float64(-1e-20)}[width]
    out.append(int(tiny.view({16: np.uint16, 32: np.uint32, 64: np.uint64}[width])))
    out += [sign | (bias - 1) << m | 1, (bias - 1) << m | ((1 << m) - 1), sign | (bias + 1) << m, 0, sign]
    return out


def test_generated_code_clamps_as_the_notes_say():
    """Every family's V_FRACT_* (VOP1 and its VOP3 form) reads the corrected code; the F32 and
    F64 entries' notes, read from the manuals by the generator, still say the clamp's value."""
    from isa.spec import load
    for target, family in FAMILY.items():
        found = 0
        for d in load(target).instructions:
            if d.name not in ("V_FRACT_F16", "V_FRACT_F32", "V_FRACT_F64"):
                continue
            width = int(d.name[-2:])
            found += 1
            below = {16: "16'F(0x3bff)", 32: "32'F(0x3f7fffff)", 64: "64'F(0x3fefffffffffffff)"}[width]
            assert below in d.pcode and "floor(" in d.pcode, (target, d.name, d.format, d.pcode)
            if width != 16:
                assert f"result clamped to 0x{BELOW_ONE[width]:x}." in d.notes, (target, d.name, d.notes)
        assert found == 6, (target, found)


CASES = [(t, w) for t in TARGETS for w in (16, 32, 64)]


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("target,width", CASES, ids=[f"{t}-f{w}" for t, w in CASES])
def test_small_negative_inputs_give_the_largest_value_below_one(target, width, reference):
    """-denormals, -2**-25, -1e-10 ...: 0x3f7fffff (f32), 0x3bff (f16), 0x3fefffffffffffff (f64)
    in each rounding mode (the sum rounds by the mode, then the clamp; toward -inf and zero the
    sum is already below 1.0), through the VOP1 and the VOP3 encoding."""
    lanes = 64 if target.startswith("gfx9") else 32
    xs = small_negatives(width)
    assert len(xs) <= lanes
    x = np.array(xs + [0] * (lanes - len(xs)), np.uint64)
    regs: dict = {}
    place(regs, 8 if width == 64 else 1, x, width)
    field = 0 if width == 32 else 2
    modes = [BASE_MODE | k << field for k in range(4)]
    dst = 6 if width == 64 else 3
    src = "v[8:9]" if width == 64 else "v1"
    dtext = "v[6:7]" if width == 64 else "v3"
    for suffix in ("_e32", "_e64"):
        after, _ = machine_run(target, f"v_fract_f{width}{suffix} {dtext}, {src}", regs, modes, reference)
        for k in range(4):
            if width == 64:
                got = [int(a) | int(b) << 32 for a, b in zip(after[dst, k], after[dst + 1, k])]
            else:
                got = [int(v) & ((1 << width) - 1) for v in after[dst, k]]
            want = [want_fract(int(b), width, k) for b in x]
            bad = [(hex(int(b)), hex(g), hex(w)) for b, g, w in zip(x, got, want) if w is not None and g != w]
            assert not bad, (suffix, k, bad[:4])
            clamped = sum(g == BELOW_ONE[width] for g in got[:len(xs)])
            assert clamped >= len(xs) // 2, (suffix, k, clamped)       # most inputs hit the clamp
    # the unclamped code would give 1.0 for these under nearest even: the test can fail
    assert sum(rounded(*add(exact(b, width), Fraction(1), True, False, 0), width, 0) == ONE[width]
               for b in xs if negative(b, width) and exact(b, width) > -Fraction(1, 2 ** (FORMATS[width][0] + 1))) >= 5


# ---- clang-22's constant folding against the emulator ----------------------------------------

_TYPES = {16: ("half", "ushort", "__builtin_amdgcn_fracth"), 32: ("float", "uint", "__builtin_amdgcn_fractf"),
          64: ("double", "ulong", "__builtin_amdgcn_fract")}
_INPUTS = {w: small_negatives(w) + [ONE[w] | 1 << (w - 1), 0x7C00 if w == 16 else 0x7F800000 if w == 32 else
                                     0x7FF0000000000000] for w in (16, 32, 64)}


def _source() -> str:
    out = ["#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"]
    for w, (t, u, builtin) in _TYPES.items():
        out.append(f"__kernel void run{w}(__global {u} *O, __global const {u} *X) {{\n"
                   f"  uint l = __builtin_amdgcn_workitem_id_x();\n"
                   f"  O[l] = __builtin_bit_cast({u}, {builtin}(__builtin_bit_cast({t}, X[l]))); }}\n")
        body = "".join(f"  O[{i}] = __builtin_bit_cast({u}, {builtin}(__builtin_bit_cast({t}, ({u}){b:#x})));\n"
                       for i, b in enumerate(_INPUTS[w]))
        out.append(f"__kernel void folded{w}(__global {u} *O) {{\n{body}}}\n")
    return "".join(out)


@pytest.fixture(scope="module")
def clang_object(tmp_path_factory):
    from tests.llvm_tools import tool
    tmp = tmp_path_factory.mktemp("fract")
    (tmp / "k.cl").write_text(_source())
    for argv in ([tool("clang"), "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx1100",
                  "-nogpulib", "-O2", "-c", str(tmp / "k.cl"), "-o", str(tmp / "k.o")],
                 [tool("ld.lld"), "-shared", str(tmp / "k.o"), "-o", str(tmp / "k.hsaco")]):
        subprocess.run(argv, check=True, capture_output=True)
    return (tmp / "k.hsaco").read_bytes(), subprocess.run(
        [tool("llvm-objdump"), "-d", str(tmp / "k.hsaco")], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("width", [16, 32, 64])
def test_clang_builtin_on_the_emulator_matches_llvms_fold(clang_object, width):
    """The kernel clang-22 makes of __builtin_amdgcn_fract* on loaded values (a v_fract), run on
    Device("emu"), gives the constants clang-22 folds the same calls on literal inputs to (the
    folded kernel stores them; run on the emulator too). NaN results compare as NaN."""
    from runtime import Device
    hsaco, disasm = clang_object
    assert f"v_fract_f{width}" in disasm
    u = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    xs = np.array(_INPUTS[width], u)
    dev = Device("emu", arch="gfx1100")
    prg = dev.load(hsaco)
    out, x = dev.alloc(xs.nbytes).copyin(np.zeros_like(xs)), dev.alloc(xs.nbytes).copyin(xs)
    prg.launch(f"run{width}", grid=(1, 1, 1), block=(len(xs), 1, 1), args=[out, x])
    got = out.copyout(u)
    folded = dev.alloc(xs.nbytes).copyin(np.zeros_like(xs))
    prg.launch(f"folded{width}", grid=(1, 1, 1), block=(1, 1, 1), args=[folded])
    want = folded.copyout(u)
    fl = {16: np.float16, 32: np.float32, 64: np.float64}[width]
    nan_g, nan_w = np.isnan(got.view(fl)), np.isnan(want.view(fl))
    assert np.array_equal(nan_g, nan_w), (xs[nan_g != nan_w], got[nan_g != nan_w], want[nan_g != nan_w])
    bad = [(hex(int(a)), hex(int(g)), hex(int(w))) for a, g, w, n in zip(xs, got, want, nan_w) if not n and g != w]
    assert not bad, bad[:5]
    assert sum(int(w) == BELOW_ONE[width] for w in want) >= len(xs) // 2     # LLVM's fold clamps them

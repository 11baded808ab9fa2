"""MODE.FP_DENORM in the emulator: denormal float inputs and results are flushed to signed
zero per the mode's 2-bit field (bit 0 allows input denormals, bit 1 output denormals; f32 in
MODE[5:4], f64/f16 in MODE[7:6]), checked against numpy arithmetic on explicitly flushed
values. Bit moves keep denormals whatever the mode; a kernel switches with s_denorm_mode."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from emu.semantics import Ctx
from emu.table import load_semantics

FLOATS = {16: (np.float16, np.uint16), 32: (np.float32, np.uint32), 64: (np.float64, np.uint64)}
FIELD_LO = {16: 6, 32: 4, 64: 6}


@pytest.fixture(scope="module")
def table():
    return load_semantics("gfx1100")


def ftz(x: np.ndarray) -> np.ndarray:
    """numpy reference flush: magnitudes below the smallest normal become zero of x's sign."""
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros_like(x), x), x)


def operands(bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lanes mixing denormal, normal, zero, inf and nan values; products and sums of the
    pairs include denormal results (tiny * 0.5, tiny - tiny * 1.5, ...)."""
    ft = FLOATS[bits][0]
    tiny, sub = np.finfo(ft).tiny, np.finfo(ft).smallest_subnormal
    a = np.array([sub * 3, -sub * 5, tiny, -tiny, tiny * 4, 1.5, 0.0, np.inf, np.nan, tiny / 2,
                  -tiny / 4, sub], ft)
    b = np.array([1.0, 2.0, 0.5, -0.25, -3.5 * tiny, sub * 7, -sub, 2.0, 1.0, -tiny / 2,
                  tiny / 8, -sub], ft)
    c = np.array([0.0, sub, -tiny, tiny / 4, tiny * 3, -0.0, sub * 2, 1.0, 0.0, tiny, -sub * 9, 0.0], ft)
    return a, b, c


def run(sem, bits: int, mode: int, *srcs: np.ndarray) -> np.ndarray:
    ut = FLOATS[bits][1]
    lanes = srcs[0].size
    raw = [s.view(ut).astype(np.uint64 if bits == 64 else np.uint32)[None, :] for s in srcs]
    ctx = Ctx(lanes=lanes, exec_mask=np.array([[(1 << lanes) - 1]], np.uint64),
              inputs={f"S{i}": r for i, r in enumerate(raw)}, mode=np.array([[mode]], np.uint32))
    return sem.execute(ctx)


def mode_with(bits: int, field: int) -> int:
    """MODE with `field` in the width's FP_DENORM field, the other field keeping denormals."""
    other = 32 if bits != 32 else 64
    return 0x300 | field << FIELD_LO[bits] | 3 << FIELD_LO[other]


def bits_equal(got: np.ndarray, want: np.ndarray) -> bool:
    """Same values, signed zeros included (NaNs compare as NaN)."""
    return bool(np.all((got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want))))


ARITH = {"ADD": (2, np.add), "MUL": (2, np.multiply)}


def fused(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c rounded once: exact rationals for finite lanes (float() of a Fraction rounds
    correctly; these operands' exact results fit f64, so narrowing rounds once too)."""
    want = a * b + c
    for i in np.flatnonzero(np.isfinite(a) & np.isfinite(b) & np.isfinite(c)):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        r = a.dtype.type(float(exact))
        want[i] = -a.dtype.type(0) if exact == 0 and np.signbit(a[i] * b[i]) and np.signbit(c[i]) else r
    return want


@pytest.mark.parametrize("bits", [16, 32, 64])
@pytest.mark.parametrize("field", [0, 1, 2, 3])
@pytest.mark.parametrize("op", ["ADD", "MUL", "FMA"])
def test_arithmetic_flushes_per_mode(table, bits, field, op):
    ft, ut = FLOATS[bits]
    a, b, c = operands(bits)
    flush_in, flush_out = not field & 1, not field & 2
    x, y, z = (ftz(v) if flush_in else v for v in (a, b, c))
    if op == "FMA":
        name, srcs, want = f"V_FMA_F{bits}", (a, b, c), fused(x, y, z)
    else:
        name, srcs, want = f"V_{op}_F{bits}", (a, b), ARITH[op][1](x, y)
    got = run(table.lookup(name), bits, mode_with(bits, field), *srcs)["D0"][0].astype(ut).view(ft)
    if flush_out:
        want = ftz(want)
    if not flush_out:           # the lanes really exercise denormal results
        assert np.any((np.abs(want) < np.finfo(ft).tiny) & (want != 0))
    assert bits_equal(got, want), f"{name} mode field {field}: got {got}, want {want}"


@pytest.mark.parametrize("bits", [16, 32, 64])
@pytest.mark.parametrize("kind", ["denormal", "zero", "normal"])
@pytest.mark.parametrize("lanes", ["zeros", "normals", "negative denormal"])
def test_one_value_operand_and_lanes_without_denormals(table, bits, kind, lanes):
    """A uniform (1, 1) operand is checked as one value; lanes with no zero or denormal
    (smallest magnitude from an unsigned and a signed minimum), lanes holding zeros but no
    denormal keep their bits; a denormal one-value operand or a negative denormal lane among
    positive normals is still flushed."""
    ft, ut = FLOATS[bits]
    sub = np.finfo(ft).smallest_subnormal
    one = np.array({"denormal": -sub * 3, "zero": -0.0, "normal": 1.5}[kind], ft)
    lanes = np.array({"zeros": [0.0, 1.0, -0.0, 2.0, np.inf, np.nan, -3.25, 0.0],
                      "normals": [1.0, -2.0, 3.5, -np.inf, np.nan, 0.5, -0.75, 6.0],
                      "negative denormal": [1.0, 2.0, -sub * 2, 0.25, 3.0, 1.5, 7.0, np.inf]}[lanes], ft)
    ctx = Ctx(lanes=8, exec_mask=np.array([[0xFF]], np.uint64), mode=np.array([[mode_with(bits, 0)]], np.uint32),
              inputs={"S0": one.view(ut).astype(np.uint64 if bits == 64 else np.uint32).reshape(1, 1),
                      "S1": lanes.view(ut).astype(np.uint64 if bits == 64 else np.uint32)[None, :]})
    got = table.lookup(f"V_MUL_F{bits}").execute(ctx)["D0"][0].astype(ut).view(ft)
    assert bits_equal(got, ftz(ftz(one) * lanes)), f"got {got}"


@pytest.mark.parametrize("bits", [16, 32, 64])
@pytest.mark.parametrize("field", [0, 3])
def test_compare_sees_flushed_inputs(table, bits, field):
    a, b, _ = operands(bits)
    sub = np.finfo(FLOATS[bits][0]).smallest_subnormal
    a, b = np.append(a, sub), np.append(b, -sub)       # +denorm vs -denorm: equal (both ±0) when flushed
    x, y = (ftz(a), ftz(b)) if field == 0 else (a, b)
    for cmp, fn in (("LT", np.less), ("EQ", np.equal), ("GT", np.greater)):
        got = run(table.lookup(f"V_CMP_{cmp}_F{bits}"), bits, mode_with(bits, field), a, b)["D0"][0]
        assert (got == fn(x, y)).all(), f"V_CMP_{cmp}_F{bits} mode field {field}"


def test_bit_moves_keep_denormals_and_fields_are_independent(table):
    sub = np.array([np.finfo(np.float32).smallest_subnormal] * 4, np.float32)
    moved = run(table.lookup("V_MOV_B32"), 32, 0x300, sub)["D0"][0]
    assert (moved == sub.view(np.uint32)).all()                      # mov is not arithmetic
    # f32 flushing, f16/f64 kept: an f16 add still produces its denormal
    h = np.array([np.finfo(np.float16).smallest_subnormal] * 4, np.float16)
    got = run(table.lookup("V_ADD_F16"), 16, 0x3C0, h, h)["D0"][0].astype(np.uint16).view(np.float16)
    assert (got == h + h).all() and (got != 0).all()
    # f16 -> f32 conversion: input flushed by the f16 field, result by the f32 field
    cvt = table.lookup("V_CVT_F32_F16")
    assert (run(cvt, 16, 0x330, h)["D0"][0] == 0).all()                # f16 inputs flushed
    assert (run(cvt, 16, 0x3C0, h)["D0"][0].astype(np.uint32).view(np.float32) == h.astype(np.float32)).all()


def test_waves_of_one_batch_follow_their_own_mode(table):
    sub = np.finfo(np.float32).smallest_subnormal
    raw = np.full((2, 4), np.float32(sub * 3).view(np.uint32), np.uint32)
    ctx = Ctx(lanes=4, exec_mask=np.array([[15], [15]], np.uint64), inputs={"S0": raw, "S1": raw},
              mode=np.array([[0x3F0], [0x300]], np.uint32))
    got = table.lookup("V_ADD_F32").execute(ctx)["D0"].astype(np.uint32).view(np.float32)
    assert (got[0] == np.float32(sub * 6)).all() and (got[1] == 0).all()


def test_dsl_kernel_switches_with_s_denorm_mode():
    """The descriptor's default f32 mode flushes (LLVM's default too); after s_denorm_mode 0xF
    the same multiply keeps its denormal result."""
    import dsl.rdna3 as r
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel

    s, v = r.s, r.v
    k = r.Kernel("gfx1100", name="denorm")
    k += r.s_load_b64(s[4:5], s[0:1], 0)
    k += r.s_waitcnt(0)
    k += r.v_lshlrev_b32(v[1], 3, v[0])                   # 8 bytes per work-item: in, then out pair
    k += r.global_load_b32(v[2], v[1], s[4:5])
    k += r.s_waitcnt(0)
    k += r.v_mul_f32(v[3], 0.5, v[2])                     # flushed: descriptor mode
    k += r.s_denorm_mode(0xF)
    k += r.v_mul_f32(v[4], 0.5, v[2])                     # kept: both fields allow denormals
    k += r.global_store_b32(v[1], v[3], s[4:5])
    k += r.global_store_b32(v[1], v[4], s[4:5], offset=4)
    k += r.s_endpgm()
    hsaco = from_dsl_kernel(k, "denorm", [KernelArg(0, 8, "global_buffer", "io")], user_sgpr_kernarg_segment_ptr=1)

    tiny = np.finfo(np.float32).tiny
    x = np.array([tiny, -tiny * 1.5, 1.0, tiny * 2.5] * 8, np.float32)    # inputs normal, halves partly denormal
    io = np.zeros((32, 2), np.float32)
    io[:, 0] = x
    dev = Device("emu", arch="gfx1100")
    buf = dev.alloc(io.nbytes, "io").copyin(io)
    dev.load(hsaco).launch("denorm", grid=(1, 1, 1), block=(32, 1, 1), args=[buf])
    out = buf.copyout(np.float32).reshape(32, 2)
    assert bits_equal(out[:, 0], ftz(x * np.float32(0.5)))
    assert bits_equal(out[:, 1], x * np.float32(0.5)) and (np.abs(out[:, 1]) < tiny).any()


def test_round_modes_round_or_are_refused_never_ignored():
    """After s_round_mode asks f32 results to round toward zero, an f32 add rounds toward zero
    (the exact sum, float64 here, truncated to f32), exact operations (max) and the untouched
    f16/f64 field leave results as they were, and an instruction whose rounding the emulator
    does not model (v_sqrt_f32) stops the kernel with an error naming PC, instruction and mode;
    the same kernel without the mode change matches numpy."""
    import dsl.rdna3 as r
    from emu.machine import EmuError
    from runtime import Device, KernelArg
    from runtime.writer import from_dsl_kernel

    s, v = r.s, r.v

    def kernel(round_mode: int | None, op):
        k = r.Kernel("gfx1100", name="rounding")
        k += r.s_load_b64(s[4:5], s[0:1], 0)
        k += r.s_waitcnt(0)
        k += r.v_lshlrev_b32(v[1], 2, v[0])
        k += r.global_load_b32(v[2], v[1], s[4:5])
        k += r.s_waitcnt(0)
        if round_mode is not None:
            k += r.s_round_mode(round_mode)
        k += op(v[3], v[2])
        k += r.global_store_b32(v[1], v[3], s[4:5])
        k += r.s_endpgm()
        return from_dsl_kernel(k, "rounding", [KernelArg(0, 8, "global_buffer", "io")], user_sgpr_kernarg_segment_ptr=1)

    x = np.linspace(1, 2, 32, dtype=np.float32)
    dev = Device("emu", arch="gfx1100")

    def launch(hsaco):
        buf = dev.alloc(x.nbytes, "io").copyin(x)
        dev.load(hsaco).launch("rounding", grid=(1, 1, 1), block=(32, 1, 1), args=[buf])
        return buf.copyout(np.float32)

    add = lambda d, a: r.v_add_f32(d, 0.1, a)       # noqa: E731
    top = lambda d, a: r.v_max_f32(d, 0.1, a)       # noqa: E731
    exact = x.astype(np.float64) + np.float64(np.float32(0.1))     # exact: 24-bit operands, one binade apart
    nearest = exact.astype(np.float32)
    truncated = np.where(np.abs(nearest.astype(np.float64)) > np.abs(exact), np.nextafter(nearest, np.float32(0)), nearest)
    assert (truncated != nearest).sum() >= 8
    assert (launch(kernel(None, add)) == nearest).all()
    assert (launch(kernel(0xC, add)) == nearest).all()      # only f16/f64 toward zero
    assert (launch(kernel(0x3, add)) == truncated).all()
    assert (launch(kernel(0x3, top)) == np.maximum(x, np.float32(0.1))).all()
    with pytest.raises(EmuError, match=r"PC 0x[0-9a-f]+: v_sqrt_f32.*32-bit results toward zero; the emulator "
                                       r"models directed rounding only in add, sub, mul, fma"):
        launch(kernel(0x3, r.v_sqrt_f32))

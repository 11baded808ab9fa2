"""Property tests: instructions built with the DSL survive encode -> decode -> print ->
assemble, and the DSL rejects bad operands with messages that name what is wrong."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dsl
from dsl.operands import OperandError
from dsl import rdna3 as R

VGPR = st.integers(0, 255).map(lambda i: R.v[i])
VGPR_PAIR = st.integers(0, 127).map(lambda i: R.v[2 * i:2 * i + 1])
SGPR = st.integers(0, 105).map(lambda i: R.s[i])
SGPR_PAIR = st.integers(0, 52).map(lambda i: R.s[2 * i:2 * i + 1])
INLINE_INT = st.integers(-16, 64)
LITERAL_INT = st.integers(65, 0xffffffff)
F32 = st.floats(-1e6, 1e6, width=32, allow_nan=False)
SRC32 = st.one_of(VGPR, SGPR, INLINE_INT, LITERAL_INT, F32, st.sampled_from([R.vcc_lo, R.exec_lo, R.m0, R.null]))
MOD_SRC = st.one_of(VGPR, SGPR, F32).flatmap(
    lambda x: st.sampled_from([x, -x, abs(x), -abs(x)]) if not isinstance(x, float) else st.just(x))


def roundtrip(inst, arch="gfx1100"):
    data = bytes(inst)
    text = dsl.disassemble(data, arch)
    assert "\n" not in text, text
    again = dsl.assemble(text, arch)
    assert again == data, f"{text}: {data.hex()} -> {again.hex()}"
    return text


COMMON = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@COMMON
@given(VGPR, SRC32, VGPR)
def test_vop2_roundtrip(d, a, b):
    roundtrip(R.v_add_f32(d, a, b))
    roundtrip(R.v_mul_u32_u24(d, a, b))


@COMMON
@given(VGPR, MOD_SRC, MOD_SRC, MOD_SRC, st.booleans(), st.sampled_from([None, 2, 4]))
def test_vop3_modifiers_roundtrip(d, a, b, c, clamp, mul):
    try:
        inst = R.v_fma_f32(d, a, b, c, clamp=clamp, mul=mul)
    except OperandError as e:
        assert "literal" in str(e)   # two different literals: legitimately refused
        return
    roundtrip(inst)


@COMMON
@given(VGPR_PAIR, VGPR_PAIR, st.one_of(VGPR_PAIR, SGPR_PAIR, INLINE_INT, st.sampled_from([0.5, -4.0, 2.0])))
def test_f64_roundtrip(d, a, b):
    roundtrip(R.v_add_f64(d, a, b))


@COMMON
@given(st.integers(0, 127), st.integers(0, 127), st.sampled_from("lh"), st.sampled_from("lh"),
       st.floats(-100, 100, width=16, allow_nan=False))
def test_true16_roundtrip(d, a, hd, ha, k):
    dst = R.v[d].h if hd == "h" else R.v[d].l
    src = R.v[a].h if ha == "h" else R.v[a].l
    roundtrip(R.v_add_f16(dst, k, src))
    roundtrip(R.v_mul_f16_e64(dst, src, src))


@COMMON
@given(SGPR, st.one_of(SGPR, INLINE_INT, LITERAL_INT), st.one_of(SGPR, INLINE_INT))
def test_salu_roundtrip(d, a, b):
    roundtrip(R.s_add_u32(d, a, b))
    roundtrip(R.s_and_b32(d, a, b))


@COMMON
@given(VGPR, VGPR, SGPR_PAIR, st.integers(-4096, 4095), st.booleans(), st.booleans())
def test_global_roundtrip(d, addr, base, offset, glc, slc):
    roundtrip(R.global_load_b32(d, addr, base, offset=offset, glc=glc, slc=slc))
    roundtrip(R.global_store_b32(addr, d, base, offset=offset))


@COMMON
@given(st.integers(0, 63), st.integers(0, 63), st.integers(0, 0xffff))
def test_ds_and_smem_roundtrip(a, b, off):
    roundtrip(R.ds_add_rtn_u32(R.v[a], R.v[b], R.v[a + 1], offset=off))
    roundtrip(R.s_load_b128(R.s[4 * (a % 25):4 * (a % 25) + 3], R.s[2 * (b % 50):2 * (b % 50) + 1], off))


@COMMON
@given(st.integers(0, 127), st.integers(0, 127), st.integers(0, 255), st.integers(0, 255))
def test_vopd_roundtrip(x, y, a, b):
    if a % 4 == b % 4:      # the halves' sources must sit in different VGPR banks (LLVM refuses the pair)
        b = (b & ~3) | (a + 1) % 4
    inst = R.vopd(R.v_dual_add_f32(R.v[2 * x], R.v[a], R.v[b]), R.v_dual_mul_f32(R.v[2 * y + 1], R.v[b], R.v[a]))
    roundtrip(inst)


@pytest.mark.parametrize("build, message", [
    (lambda: R.v_add_f32(R.s[1], R.v[1], R.v[2]), "vdst: expected a VGPR, got s1"),
    (lambda: R.s_load_b64(R.s[1:2], R.s[0:1], 0), "misaligned"),
    (lambda: R.global_load_b128(R.v[0:1], R.v[2], R.s[0:1]), "v[0:1] is 2 register(s), this operand needs 4"),
    (lambda: R.s_add_u32(R.s[0], R.v[1], 1), "VGPR (v1) is not allowed"),
    (lambda: R.v_add_f32(R.v[0], 1.5, 2.5), "one 32-bit literal"),
    (lambda: R.ds_load_b32(R.v[0], R.v[1], offset=70000), "offset:70000 is out of range"),
    (lambda: R.vopd(R.v_dual_add_f32(R.v[0], R.v[1], R.v[2]), R.v_dual_mul_f32(R.v[2], R.v[3], R.v[4])),
     "one even and one odd"),
    (lambda: R.vopd(R.v_dual_add_f32(R.v[0], R.v[1], R.v[2]), R.v_dual_mul_f32(R.v[3], R.v[5], R.v[4])),
     "same VGPR bank"),
    (lambda: R.v_add_f32(R.v[0], R.v[1]), "takes 3 operand(s)"),
])
def test_dsl_errors_name_the_problem(build, message):
    with pytest.raises(OperandError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        build()


def test_f16_literal_uses_f16_bits_and_f64_uses_high_dword():
    assert bytes(R.v_add_f16(R.v[1].l, 0.3, R.v[2].l))[4:6] == bytes.fromhex("cd34")   # f16(0.3) = 0x34cd
    assert bytes(R.v_fma_f64(R.v[0:1], R.v[2:3], 2.5, R.v[4:5]))[8:12] == (0x40040000).to_bytes(4, "little")
    assert len(bytes(R.v_add_f16(R.v[1].l, 0.5, R.v[2].l))) == 4   # inline constant, no literal


def test_kernel_labels_and_text():
    k = R.Kernel("gfx1100")
    k.label("top")
    k += R.s_sub_u32(R.s[0], R.s[0], 1)
    k += R.s_cbranch_scc1("top")
    k += R.s_branch("end")
    k += R.s_nop(0)
    k.label("end")
    k += R.s_endpgm()
    code = k.assemble()
    assert code[4:6] == (-2 & 0xffff).to_bytes(2, "little")     # back to top
    assert code[8:10] == (1).to_bytes(2, "little")              # over the s_nop
    assert "s_cbranch_scc1 top" in str(k) and "end:" in str(k)
    assert dsl.assemble(str(k), "gfx1100") == code
    bad = R.Kernel("gfx1100")
    bad += R.s_branch("nowhere")
    with pytest.raises(OperandError, match="undefined label 'nowhere'"):
        bad.assemble()


def test_assembler_errors_report_line_and_column():
    with pytest.raises(dsl.AsmError, match=r"^2:1: v_add_f32 takes 3 operand"):
        dsl.assemble("s_nop 0\nv_add_f32 v1, v2\n", "gfx1100")
    with pytest.raises(dsl.AsmError, match=r"^1:\d+: unexpected"):
        dsl.assemble("v_add_f32 v1, , v2 )", "gfx1100")
    with pytest.raises(dsl.AsmError, match="unknown instruction 'v_frobnicate'"):
        dsl.assemble("v_frobnicate v1", "gfx1100")


def test_undecodable_bytes_become_long_with_warning():
    with pytest.warns(dsl.DisassemblyWarning):
        text = dsl.disassemble(bytes.fromhex("ffffffff") + bytes(R.s_endpgm()), "gfx1100")
    assert text.splitlines()[-1] == "s_endpgm"
    assert text.splitlines()[0].startswith(".long 0x")

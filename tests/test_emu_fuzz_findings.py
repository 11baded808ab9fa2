"""Instructions the random-program fuzzer (tests/emu_fuzz.py) crashed on, run through the DSL's
text assembler and the machine against independent references: v_cvt_off_f32_i4 (the manual's
lookup table: the signed 4-bit value / 16), v_perm_b32 with SGPR sources (byte selection by
the manual's selector definition, in Python ints), ds_swizzle_b32 (its data is the ADDR
field's VGPR; lane partners by LLVM's documented swizzle macros) and v_permlane64_b32 in wave64."""
from __future__ import annotations

import isa
import numpy as np
import pytest

from emu.pcode import Translator, Unsupported, parse
from isa.facts import lookup_table
from isa.gen.descriptions import lookup_table as parse_lookup_table
from tests.test_emu_machine import launch, loads

ARCHS = ["gfx1100", "gfx1151"]


def _run(arch, wave, body, inputs=None):
    """v0 = lane; inputs[k] loaded per lane into v(10+k); the body's v1 stored to `o`."""
    names = list(inputs or {})
    src = loads("o", *names) + "v_lshlrev_b32 v30, 2, v0\n" + "".join(
        f"global_load_b32 v{10 + k}, v30, s[{6 + 2 * k}:{7 + 2 * k}]\n" for k in range(len(names))) + \
        "s_waitcnt vmcnt(0)\n" + body + "\nglobal_store_b32 v30, v1, s[4:5]\ns_endpgm"
    out, _ = launch(src, {"o": np.zeros(wave, np.uint32), **(inputs or {})}, block=(wave, 1, 1), wave=wave, arch=arch)
    return out["o"]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("form", ["v_cvt_off_f32_i4", "v_cvt_off_f32_i4_e64"])
def test_cvt_off_f32_i4_is_the_signed_nibble_over_16(arch, wave, form):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 2 ** 32, wave, dtype=np.uint64).astype(np.uint32)
    x[:16] = (x[:16] & np.uint32(0xFFFFFFF0)) | np.arange(16, dtype=np.uint32)    # every nibble, high bits set
    got = _run(arch, wave, f"{form} v1, v10", {"x": x})
    nibble = (x & 15).astype(np.int64)
    want = (((nibble ^ 8) - 8) / 16).astype(np.float32)      # manual: 1000 -> -0.5, 0111 -> +0.4375
    assert (got.view(np.float32) == want).all()
    assert (got[8] == np.float32(-0.5).view(np.uint32)) and got[0] == 0


def test_cvt_off_table_is_parsed_from_the_description_and_a_missing_table_is_refused():
    d = next(x for x in isa.load("gfx1100").lookup("V_CVT_OFF_F32_I4") if x.format == "VOP1")
    assert lookup_table(d) == tuple(((i ^ 8) - 8) / 16 for i in range(16))       # read from the generated facts
    assert parse_lookup_table(d.pcode, d.description.replace("0111 +0.4375f", "")) is None     # incomplete: no table
    with pytest.raises(Unsupported, match="CVT_OFF_TABLE"):
        Translator(d.name, d.operand_types, False).translate(parse(d.pcode, d.name))


def _perm(s0: int, s1: int, sel: int) -> int:
    """Manual, V_PERM_B32: byte k of D from selector byte k over the bytes {S0, S1} (S1 low):
    0-7 a byte, 8-11 the sign of byte 1, 3, 5, 7 replicated, 12 zero, 13+ 0xFF."""
    pool = s0 << 32 | s1
    out = 0
    for k in range(4):
        s = sel >> 8 * k & 0xFF
        if s < 8:
            b = pool >> 8 * s & 0xFF
        elif s < 12:
            b = 0xFF if pool >> 8 * (2 * (s - 8) + 1) + 7 & 1 else 0
        else:
            b = 0 if s == 12 else 0xFF
        out |= b << 8 * k
    return out


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("sources", ["s20, s21, v10", "s20, v11, v10", "v11, s21, v10", "s22, v11, s22"])
def test_perm_b32_with_sgpr_sources(arch, wave, sources):
    rng = np.random.default_rng(3)
    sel = rng.integers(0, 16, (wave, 4), dtype=np.uint32)
    sel = (sel[:, 0] | sel[:, 1] << 8 | sel[:, 2] << 16 | sel[:, 3] << 24).astype(np.uint32)
    other = rng.integers(0, 2 ** 32, wave, dtype=np.uint64).astype(np.uint32)
    s20, s21, s22 = 0x80F17F02, 0x04A3_05C6, 0x0C0B_0908
    got = _run(arch, wave, f"s_mov_b32 s20, {s20:#x}\ns_mov_b32 s21, {s21:#x}\ns_mov_b32 s22, {s22:#x}\n"
               f"v_perm_b32 v1, {sources}", {"sel": sel, "other": other})
    regs = lambda i: {"s20": s20, "s21": s21, "s22": s22}.get(sources.split(", ")[i])
    want = [_perm(regs(0) if regs(0) is not None else int(other[i]),
                  regs(1) if regs(1) is not None else int(other[i]),
                  regs(2) if regs(2) is not None else int(sel[i])) for i in range(wave)]
    assert got.tolist() == want


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("macro, partner", [
    ("SWAP,16", lambda i: i ^ 16),
    ("QUAD_PERM,3,2,1,0", lambda i: (i & ~3) | (3 - (i & 3))),
    ("BROADCAST,8,5", lambda i: (i & ~7) | 5),
])
@pytest.mark.parametrize("dst", ["v1", "v2"])
def test_ds_swizzle_reads_the_addr_vgpr_as_data(arch, wave, macro, partner, dst):
    """LLVM's AMDGPUModifierSyntax: SWAP,n swaps groups of n lanes, QUAD_PERM permutes each
    quad, BROADCAST,size,lane gives each group its lane `lane`; the partner stays in the lane's
    32-lane half. Odd lanes only: an inactive partner reads 0, an inactive lane keeps v1."""
    got = _run(arch, wave, f"""
        v_add_nc_u32 v2, 100, v0
        v_mov_b32 v1, 0x1234
        v_and_b32 v3, 1, v0
        v_cmpx_eq_u32 1, v3
        ds_swizzle_b32 {dst}, v2 offset:swizzle({macro})
        s_waitcnt lgkmcnt(0)
        s_mov_b64 exec, -1
        v_mov_b32 v1, {dst}""")
    lane = np.arange(wave)
    src = np.array([partner(i) for i in lane])
    old = 0x1234 if dst == "v1" else 100 + lane
    want = np.where(lane % 2 == 1, np.where(src % 2 == 1, 100 + src, 0), old)
    assert (got == want).all()


def test_permlane64_in_wave64_on_gfx1151():
    got = _run("gfx1151", 64, "v_add_nc_u32 v2, 100, v0\nv_permlane64_b32 v1, v2")
    assert (got == 100 + (np.arange(64) ^ 32)).all()

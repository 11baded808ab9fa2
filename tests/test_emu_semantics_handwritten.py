"""Hand-written semantics (emu/handwritten/) vs independent numpy references: cross-lane DS
ops (bpermute/permute/swizzle, swizzle patterns encoded by llvm-mc from LLVM's documented
macros) and WMMA (matrices laid into registers as the manual's section 7.9 describes,
multiplied by numpy)."""
import re

import numpy as np
import pytest

from emu.semantics import Ctx
from emu.table import load_semantics
from tests.llvm_tools import run as run_tool, tool

rng = np.random.default_rng(77)
TABLE = load_semantics("gfx1100")


def execute(name, lanes, exec_mask=None, waves=2, **inputs):
    sem = TABLE.lookup(name)
    assert sem is not None and sem.origin == "hand-written", name
    if exec_mask is None:
        exec_mask = np.full((waves, 1), (1 << lanes) - 1, np.uint64)
    return sem.execute(Ctx(lanes=lanes, exec_mask=np.asarray(exec_mask, np.uint64).reshape(-1, 1), inputs=inputs))


def lane_bits(mask, lanes):
    return ((np.asarray(mask, np.uint64).reshape(-1, 1) >> np.arange(lanes, dtype=np.uint64)) & np.uint64(1)).astype(bool)


# ---------------- ds_bpermute / ds_permute ----------------
@pytest.mark.parametrize("lanes", [32, 64])
def test_bpermute_reads_within_the_half_and_zero_from_inactive_lanes(lanes):
    data = rng.integers(0, 2 ** 32, (2, lanes), dtype=np.uint64).astype(np.uint32)
    src = rng.integers(0, 64, (2, lanes))               # any lane index; the high bit must not cross halves
    exec_mask = rng.integers(0, 2 ** 63, 2, dtype=np.uint64) & np.uint64((1 << lanes) - 1)
    out = execute("ds_bpermute_b32", lanes, exec_mask, ADDR=(src * 4 + 2).astype(np.uint64), DATA=data)["RETURN_DATA"]
    active = lane_bits(exec_mask, lanes)
    for w in range(2):
        for i in range(lanes):
            j = (i // 32) * 32 + src[w, i] % 32
            assert out[w, i] == (data[w, j] if active[w, j] else 0), (lanes, w, i, j)


@pytest.mark.parametrize("lanes", [32, 64])
def test_permute_highest_sender_wins_and_unsent_lanes_get_zero(lanes):
    data = np.arange(2 * lanes, dtype=np.uint32).reshape(2, lanes) + 1000
    dst = rng.integers(0, 8, (2, lanes))                # many collisions
    exec_mask = np.array([(1 << lanes) - 1, 0x5555_5555_5555_5555 & ((1 << lanes) - 1)], np.uint64)
    out = execute("ds_permute_b32", lanes, exec_mask, ADDR=(dst * 4).astype(np.uint64), DATA=data)["RETURN_DATA"]
    active = lane_bits(exec_mask, lanes)
    for w in range(2):
        want = np.zeros(lanes, np.uint32)
        for i in range(lanes):                          # in lane order: later senders overwrite
            if active[w, i]:
                want[(i // 32) * 32 + dst[w, i] % 32] = data[w, i]
        assert (out[w] == want).all(), (lanes, w)


# ---------------- ds_swizzle ----------------
def _reference_lane(macro, i):
    """Source lane of lane i for LLVM's documented swizzle macros (AMDGPUModifierSyntax)."""
    kind, *args = macro
    g = i & ~31
    i = i & 31
    if kind == "QUAD_PERM":
        return g | (i & ~3) | args[i & 3]
    if kind == "SWAP":                 # swap groups of n lanes with their neighbours
        return g | (i ^ args[0])
    if kind == "REVERSE":              # reverse lanes within groups of n
        return g | (i ^ (args[0] - 1))
    if kind == "BROADCAST":            # lane k of each group of n
        return g | (i & ~(args[0] - 1)) | args[1]
    if kind == "BITMASK_PERM":         # per bit (msb first): 0 clear, 1 set, p keep, i invert
        j = 0
        for b, c in enumerate(reversed(args[0])):
            bit = (i >> b) & 1
            j |= {"0": 0, "1": 1, "p": bit, "i": bit ^ 1}[c] << b
        return g | j
    raise AssertionError(kind)


MACROS = [("QUAD_PERM", 1, 0, 3, 2), ("QUAD_PERM", 3, 3, 0, 1), ("SWAP", 1), ("SWAP", 16), ("REVERSE", 8),
          ("REVERSE", 32), ("BROADCAST", 4, 1), ("BROADCAST", 32, 7), ("BITMASK_PERM", "01pi0"),
          ("BITMASK_PERM", "ppipp")]


def _encoded_offsets(macros) -> list[int]:
    """The offset field llvm-mc encodes for each swizzle(...) macro."""
    text = "".join("ds_swizzle_b32 v8, v2 offset:swizzle(" + m[0] + "".join(
        f',"{a}"' if isinstance(a, str) else f",{a}" for a in m[1:]) + ")\n" for m in macros)
    out = run_tool(tool("llvm-mc"), "-triple=amdgcn", "-mcpu=gfx1100", "-show-encoding", stdin=text.encode())
    encodings = [e.split(",") for e in re.findall(r"encoding: \[(.*?)\]", out)]
    assert len(encodings) == len(macros), out
    return [int(e[0], 16) | int(e[1], 16) << 8 for e in encodings]


@pytest.mark.parametrize("lanes", [32, 64])
def test_swizzle_patterns_match_llvm_macro_meanings(lanes):
    data = rng.integers(0, 2 ** 32, (1, lanes), dtype=np.uint64).astype(np.uint32)
    exec_mask = np.uint64(0xFFFF_FFEF_FFFF_7FFF & ((1 << lanes) - 1))
    active = lane_bits(exec_mask, lanes)[0]
    for macro, offset in zip(MACROS, _encoded_offsets(MACROS)):
        got = execute("ds_swizzle_b32", lanes, [exec_mask], waves=1, OFFSET=offset, DATA=data)["RETURN_DATA"][0]
        src = [_reference_lane(macro, i) for i in range(lanes)]
        want = [data[0, j] if active[j] else 0 for j in src]
        assert got.tolist() == want, macro


def test_swizzle_rotate_mode_rotates_within_32_lanes():
    data = np.arange(64, dtype=np.uint32)[None] + 100
    for rotate, left in ((1, False), (5, True), (31, False)):
        offset = 0xC000 | (1 << 10 if left else 0) | rotate << 5
        got = execute("ds_swizzle_b32", 64, [2 ** 64 - 1], waves=1, OFFSET=offset, DATA=data)["RETURN_DATA"][0]
        step = -rotate if left else rotate
        want = [100 + (i & 32) + ((i + step) % 32) for i in range(64)]
        assert got.tolist() == want


# ---------------- WMMA ----------------
def _pack(elements, bits):
    """(..., n) unsigned elements -> (..., n * bits / 32) dwords, element 0 in the low bits."""
    per = 32 // bits
    e = elements.astype(np.uint64).reshape(elements.shape[:-1] + (-1, per))
    return (e << (np.arange(per, dtype=np.uint64) * bits)).sum(-1).astype(np.uint32)


def _ab_registers(m, bits, lanes, waves):
    """A (rows) or B^T (columns) into lanes 0-15, replicated to every group of 16 lanes."""
    regs = _pack(m, bits)                                   # (W, 16, dwords)
    return np.tile(regs, (1, lanes // 16, 1)).reshape(waves, lanes, -1)


def _cd_registers(m32, lanes):
    """(W, 16, 16) uint32 -> (W, L, 256/L): VGPR v of lane l holds row (L/16)v + l/16, col l%16."""
    v = np.arange(256 // lanes)[None, :]
    lane = np.arange(lanes)[:, None]
    return m32[:, (lanes // 16) * v + lane // 16, lane % 16]


def _pad8(block):
    return np.concatenate([block, np.zeros(block.shape[:-1] + (8 - block.shape[-1],), np.uint32)], -1)


@pytest.mark.parametrize("lanes", [32, 64])
@pytest.mark.parametrize("kind", ["f16", "bf16"])
def test_wmma_f32_from_16bit_floats_with_neg_modifiers(lanes, kind):
    W = 2
    a = rng.standard_normal((W, 16, 16)).astype(np.float32)
    b = rng.standard_normal((W, 16, 16)).astype(np.float32)
    c = rng.standard_normal((W, 16, 16)).astype(np.float32)
    if kind == "f16":
        a, b = a.astype(np.float16), b.astype(np.float16)
        abits, bbits = a.view(np.uint16), b.view(np.uint16)
    else:                                                   # truncate to bf16 (exactly representable)
        abits, bbits = (a.view(np.uint32) >> 16).astype(np.uint16), (b.view(np.uint32) >> 16).astype(np.uint16)
        a = (abits.astype(np.uint32) << 16).view(np.float32)
        b = (bbits.astype(np.uint32) << 16).view(np.float32)
    for neg, neg_hi in ((0, 0), (0b001, 0b010), (0b110, 0b100)):
        A, B, C = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
        k_odd = np.arange(16) % 2 == 1                       # high half of each dword
        A = np.where(k_odd, -A if neg_hi & 1 else A, -A if neg & 1 else A)
        B = np.where(k_odd[:, None], -B if neg_hi & 2 else B, -B if neg & 2 else B)
        C = np.abs(C) if neg_hi & 4 else C
        C = -C if neg & 4 else C
        want = (A @ B + C).astype(np.float32)
        out = execute(f"v_wmma_f32_16x16x16_{kind}", lanes, waves=W, OPSEL=0, NEG=neg, NEG_HI=neg_hi,
                      S0=_ab_registers(abits, 16, lanes, W),
                      S1=_ab_registers(np.swapaxes(bbits, 1, 2), 16, lanes, W),
                      S2=_pad8(_cd_registers(c.view(np.uint32), lanes)))["D0"]
        got = out[..., : 256 // lanes]
        assert (got == _cd_registers(want.view(np.uint32), lanes)).all(), (kind, neg, neg_hi)


@pytest.mark.parametrize("opsel_c", [0, 1])
def test_wmma_f16_result_goes_to_the_opsel_half_and_keeps_the_other(opsel_c):
    lanes, W = 32, 1
    a = rng.standard_normal((W, 16, 16)).astype(np.float16)
    b = rng.standard_normal((W, 16, 16)).astype(np.float16)
    c = rng.standard_normal((W, 16, 16)).astype(np.float16)
    want = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float16)
    shift = 16 * opsel_c
    other = np.uint32(0xABCD) << np.uint32(16 - shift)
    c_regs = (_cd_registers(c.view(np.uint16).astype(np.uint32), lanes) << np.uint32(shift)) | other
    out = execute("v_wmma_f16_16x16x16_f16", lanes, waves=W, OPSEL=opsel_c << 2, NEG=0, NEG_HI=0,
                  S0=_ab_registers(a.view(np.uint16), 16, lanes, W),
                  S1=_ab_registers(np.swapaxes(b.view(np.uint16), 1, 2), 16, lanes, W), S2=c_regs, D0=c_regs)["D0"]
    assert ((out >> np.uint32(shift)) & np.uint32(0xFFFF) ==
            _cd_registers(want.view(np.uint16).astype(np.uint32), lanes)).all()
    assert ((out >> np.uint32(16 - shift)) & np.uint32(0xFFFF) == 0xABCD).all()


@pytest.mark.parametrize("bits", [8, 4])
@pytest.mark.parametrize("signs", [0, 1, 2, 3])
def test_wmma_integer_signedness_from_neg_bits(bits, signs):
    lanes, W = 32, 2
    ua = rng.integers(0, 1 << bits, (W, 16, 16))
    ub = rng.integers(0, 1 << bits, (W, 16, 16))
    c = rng.integers(-2 ** 31, 2 ** 31, (W, 16, 16))
    sa = np.where(ua >= 1 << (bits - 1), ua - (1 << bits), ua) if signs & 1 else ua
    sb = np.where(ub >= 1 << (bits - 1), ub - (1 << bits), ub) if signs & 2 else ub
    want = ((sa @ sb + c) & 0xFFFFFFFF).astype(np.uint32)
    sa_regs = _ab_registers(ua, bits, lanes, W)
    sb_regs = _ab_registers(np.swapaxes(ub, 1, 2), bits, lanes, W)
    if bits == 4:                                           # a 64-bit block may come as one uint64
        sa_regs = sa_regs[..., 0].astype(np.uint64) | sa_regs[..., 1].astype(np.uint64) << np.uint64(32)
    out = execute(f"v_wmma_i32_16x16x16_iu{bits}", lanes, waves=W, OPSEL=0, NEG=signs, NEG_HI=0,
                  S0=sa_regs, S1=sb_regs, S2=_cd_registers(c.astype(np.int64).astype(np.uint32), lanes))["D0"]
    assert (out == _cd_registers(want, lanes)).all()


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151", "gfx1201", "gfx942", "gfx950"])
def test_every_handwritten_module_is_found_though_imported_only_when_asked(arch):
    """emu/handwritten imports its modules when an instruction of theirs is first asked for,
    chosen by name prefix (WMMA, VINTERP) or the family's mfma table: every instruction a
    module implements that the family's manual lists must still get its hand-written semantic."""
    import isa
    from emu import handwritten
    from emu.handwritten import interp, lanes, mfma, wmma, wmma_rdna4
    spec = isa.load(arch)
    names = {d.name for d in spec.instructions}
    from dsl.syntax import WMMA_REPLICATED      # RDNA3's layout; RDNA4 stripes (and has no integer WMMA here)
    from isa.effects import effects
    layout = wmma if spec.traits.family in WMMA_REPLICATED else wmma_rdna4
    matrices = {d.name for d in spec.instructions if layout.variant(effects(d.pcode).shapes)}
    expected = (matrices | set(interp.VARIANTS) | set(mfma.shapes(spec))
                | set(handwritten.DATA_PARALLEL) | {"DS_APPEND", "DS_CONSUME"}) & names
    assert all(n.startswith("V_WMMA_") for n in matrices)
    assert all(n.startswith("V_INTERP_") for n in interp.VARIANTS)
    assert all(callable(getattr(lanes, fn)) for fn, *_ in handwritten.DATA_PARALLEL.values())
    missing = sorted(n for n in expected if handwritten.semantic(n, False, spec) is None)
    assert expected and not missing, missing
    if spec.tables.get("mfma"):
        assert any(n in names for n in mfma.shapes(spec))

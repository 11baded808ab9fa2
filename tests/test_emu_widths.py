"""Widths: every instruction whose result is wider than 32 bits writes every dword of it with
the right data (issue 13: ds_load_b64 once returned only its low dword). The instructions come
from the ISA data (each semantic's written operands wider than 32 bits); each runs through the
machine on random data and every result dword is compared with numpy / Python integers.
`test_every_wide_result_is_checked` fails for a wide instruction that is neither checked here
nor listed in ELSEWHERE / NOT_CHECKED with a reason."""
from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from dsl.signature import valu_signature
from emu import load_semantics
from .test_emu_buffer import run as run_buffer
from .test_emu_machine import launch, loads

ARCH = "gfx1100"
LANES = 32
RNG = np.random.default_rng(1313)


def wide_results(arch=ARCH) -> dict[str, int]:
    """{mnemonic: bits} of every instruction with a semantic that writes a result wider than 32
    bits (not lane masks, EXEC, VCC or PC)."""
    out = {}
    for d, e in load_semantics(arch).entries():
        s = e.semantic
        if s is None:
            continue
        bits = [op.bits for k, op in s.writes.items() if op.bits > 32 and not op.lane_bit
                and k not in ("EXEC", "VCC", "PC")]
        if bits and d.format != "VOPD":
            out[d.name.lower()] = max(bits)
    return out


WIDE = wide_results()

# checked by other tests against their own references
ELSEWHERE = {
    "v_trig_preop_f64": "tests/test_emu_hardware_facts.py (exact 2/pi segments)",
    **{n: "tests/test_emu_semantics_division.py / issue 13 item 11 (the division errata)"
       for n in ("v_div_scale_f64", "v_div_fmas_f64", "v_div_fixup_f64")},
    **{n: "tests/test_emu_semantics_handwritten.py (WMMA against numpy matmul)" for n in WIDE if n.startswith("v_wmma")},
    **{n: "tests/test_emu_buffer.py (format loads against numpy, per data format)"
       for n in WIDE if re.match(r"t?buffer_load_(d16_)?format", n)},
    **{n: "tests/test_emu_image.py (every DMASK width and D16 against numpy images)"
       for n in ("image_load", "image_load_mip")},
}
# no independent reference here yet (listed, so a new wide instruction cannot slip through)
NOT_CHECKED: dict[str, str] = {}      # none left: a new wide instruction gets a check or a reason here


def dword_pairs(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint32)


# ---------------------------------------------------------------- VALU
def _f64(n):
    mag = RNG.uniform(-30, 30, n)
    return (RNG.choice([-1.0, 1.0], n) * 2.0 ** mag * RNG.uniform(1, 2, n)).astype(np.float64)


def _fma(a, b, c):
    return np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])


def _frac(x):
    return x - np.floor(x)


VALU_REFS = {      # mnemonic: (source kinds, reference on numpy arrays)
    "v_add_f64": ("fff", lambda a, b: a + b), "v_mul_f64": ("fff", lambda a, b: a * b),
    "v_min_f64": ("ff", np.minimum), "v_max_f64": ("ff", np.maximum),
    "v_fma_f64": ("fff", _fma), "v_ldexp_f64": ("fe", lambda a, e: np.ldexp(a, e.view(np.int32))),
    "v_cvt_f64_i32": ("i", lambda a: a.view(np.int32).astype(np.float64)),
    "v_cvt_f64_u32": ("i", lambda a: a.astype(np.float64)),
    "v_cvt_f64_f32": ("s", lambda a: a.view(np.float32).astype(np.float64)),
    "v_trunc_f64": ("f", np.trunc), "v_ceil_f64": ("f", np.ceil), "v_floor_f64": ("f", np.floor),
    "v_rndne_f64": ("r", np.rint), "v_fract_f64": ("f", _frac),
    "v_frexp_mant_f64": ("f", lambda a: np.frexp(a)[0]),
    "v_sqrt_f64": ("p", np.sqrt), "v_rcp_f64": ("f", lambda a: 1.0 / a), "v_rsq_f64": ("p", lambda a: 1.0 / np.sqrt(a)),
    "v_lshlrev_b64": ("cu", lambda c, x: x << (c & np.uint32(63)).astype(np.uint64)),
    "v_lshrrev_b64": ("cu", lambda c, x: x >> (c & np.uint32(63)).astype(np.uint64)),
    "v_ashrrev_i64": ("cu", lambda c, x: (x.view(np.int64) >> (c & np.uint32(63)).astype(np.int64)).view(np.uint64)),
    "v_mad_u64_u32": ("iiu", lambda a, b, c: np.array([(int(x) * int(y) + int(z)) % 2**64 for x, y, z in zip(a, b, c)],
                                                      np.uint64)),
    "v_mad_i64_i32": ("iiu", lambda a, b, c: np.array([(int(x) * int(y) + int(z)) % 2**64 for x, y, z in
                                                       zip(a.view(np.int32), b.view(np.int32), c.view(np.int64))],
                                                      np.uint64)),
}
APPROX = {"v_sqrt_f64", "v_rcp_f64", "v_rsq_f64"}        # the manual's accuracy, not correctly rounded


def _inputs(kinds: str):
    n, out = LANES, []
    for k in kinds:
        if k == "f":
            out.append(_f64(n))
        elif k == "p":
            out.append(np.abs(_f64(n)))
        elif k == "s":
            out.append(_f64(n).astype(np.float32).view(np.uint32))
        elif k == "r":      # not in (-0.5, 0): the manual's floor(x + 0.5) gives +0 there, IEEE -0
            x = _f64(n)
            out.append(np.where((x > -0.5) & (x < 0), -x, x))
        elif k == "e":
            out.append(RNG.integers(-40, 40, n).astype(np.int32).view(np.uint32))
        elif k in "ic":
            out.append(RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32))
        else:
            out.append(RNG.integers(0, 2**64, n, dtype=np.uint64))
    return out


@pytest.mark.parametrize("mnemonic", sorted(VALU_REFS))
def test_valu_64bit_results(mnemonic):
    kinds, ref = VALU_REFS[mnemonic]
    kinds = kinds[:len(valu_signature(load_semantics(ARCH).spec.lookup(mnemonic)[-1]).srcs)]
    xs = _inputs(kinds)
    names = [f"s{i}" for i in range(len(xs))]
    regs = [f"v[{10 + 2 * i}:{11 + 2 * i}]" if x.dtype.itemsize == 8 else f"v{10 + 2 * i}" for i, x in enumerate(xs)]
    dst = "v[2:3], s20" if mnemonic.startswith("v_mad_") else "v[2:3]"
    out = f"s[{4 + 2 * len(xs)}:{5 + 2 * len(xs)}]"
    src = loads(*names, "out") + "v_lshlrev_b32 v5, 3, v0\nv_lshlrev_b32 v6, 2, v0\n"
    for i, x in enumerate(xs):
        lo = 10 + 2 * i
        if x.dtype.itemsize == 8:
            src += f"global_load_b64 v[{lo}:{lo + 1}], v5, s[{4 + 2 * i}:{5 + 2 * i}]\n"
        else:
            src += f"global_load_b32 v{lo}, v6, s[{4 + 2 * i}:{5 + 2 * i}]\n"
    src += "s_waitcnt vmcnt(0)\n"
    src += f"{mnemonic} {dst}, {', '.join(regs)}\n"
    # each dword stored by itself, so the check does not lean on a 64-bit store
    src += f"global_store_b32 v5, v2, {out}\nglobal_store_b32 v5, v3, {out} offset:4\ns_endpgm"
    bufs = {n: x for n, x in zip(names, xs)}
    bufs["out"] = np.full(LANES, 0xDEADBEEF_DEADBEEF, np.uint64)
    got, _ = launch(src, bufs, block=(LANES, 1, 1), vgprs=24, mode=0x3F0)
    with np.errstate(all="ignore"):
        want = ref(*xs)
    want = np.asarray(want)
    if want.dtype.kind == "f":
        g = got["out"].view(np.float64)
        if mnemonic in APPROX:
            assert np.allclose(g, want, rtol=2.0 ** -50, atol=0), mnemonic
        else:
            assert (g.view(np.uint64) == want.astype(np.float64).view(np.uint64)).all(), mnemonic
    else:
        assert (got["out"] == want.astype(np.uint64)).all(), mnemonic


# ---------------------------------------------------------------- memory loads
SENTINEL, LANES_ON = 0x5A5A5A5A, 0x5555AAAA
PARTIAL = pytest.mark.parametrize("partial", [False, True], ids=["all-lanes", "partial-exec"])


def _exec_around(instruction: str, n: int, partial: bool) -> str:
    """The instruction with its result registers v[10:9+n] preset to SENTINEL; with `partial`
    only the LANES_ON lanes run it (the per-lane paths), the others must keep the sentinel."""
    preset = "".join(f"v_mov_b32 v{10 + k}, {SENTINEL:#x}\n" for k in range(n))
    if not partial:
        return preset + instruction
    return preset + f"s_mov_b32 exec_lo, {LANES_ON:#x}\n{instruction}\ns_mov_b32 exec_lo, -1"


def _expect(want: np.ndarray, partial: bool) -> np.ndarray:
    on = (LANES_ON >> np.arange(LANES)) & 1 == 1
    return np.where(on[:, None] | (not partial), want, np.uint32(SENTINEL))


def _vector_loads(prefix: str):
    return sorted(n for n in WIDE if re.fullmatch(rf"{prefix}_load_b(64|96|128)", n))


@PARTIAL
@pytest.mark.parametrize("mnemonic", _vector_loads("global") + _vector_loads("flat") + _vector_loads("scratch"))
def test_global_flat_scratch_loads_every_dword(mnemonic, partial):
    n = WIDE[mnemonic] // 32
    data = RNG.integers(0, 2**32, LANES * 4 + 8, dtype=np.uint64).astype(np.uint32)
    perm = RNG.permutation(LANES).astype(np.uint32)             # lane i reads record perm[i]
    dst = f"v[10:{9 + n}]"
    stores = "".join(f"global_store_b32 v7, v{10 + k}, s[8:9] offset:{4 * k}\n" for k in range(n))
    head = loads("data", "perm", "out") + "v_lshlrev_b32 v6, 2, v0\nglobal_load_b32 v2, v6, s[6:7]\n" \
        "s_waitcnt vmcnt(0)\nv_lshlrev_b32 v3, 4, v2\nv_lshlrev_b32 v7, 4, v0\n"
    if mnemonic.startswith("global"):
        body = _exec_around(f"{mnemonic} {dst}, v3, s[4:5]", n, partial) + "\n"
    elif mnemonic.startswith("flat"):
        body = "v_add_co_u32 v4, vcc_lo, s4, v3\nv_add_co_ci_u32 v5, vcc_lo, s5, 0, vcc_lo\n" + \
            _exec_around(f"{mnemonic} {dst}, v[4:5]", n, partial) + "\n"
    else:   # copy the lane's own record into its scratch first, dword by dword
        body = "".join(f"global_load_b32 v{20 + k}, v3, s[4:5] offset:{4 * k}\n" for k in range(n)) + \
            "s_waitcnt vmcnt(0)\nv_mov_b32 v8, 0\n" + \
            "".join(f"scratch_store_b32 v8, v{20 + k}, off offset:{4 * k}\n" for k in range(n)) + \
            _exec_around(f"{mnemonic} {dst}, v8, off", n, partial) + "\n"
    src = head + body + "s_waitcnt vmcnt(0)\n" + stores + "s_endpgm"
    got, _ = launch(src, {"data": data, "perm": perm, "out": np.zeros(LANES * 4, np.uint32)}, block=(LANES, 1, 1),
                    scratch=64, vgprs=32)
    want = data[:LANES * 4].reshape(LANES, 4)[perm, :n]
    assert (got["out"].reshape(LANES, 4)[:, :n] == _expect(want, partial)).all()


DS_LOADS = sorted(n for n in WIDE if n.startswith("ds_load"))


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1151"])       # RDNA3.5's DS pseudocode adds the offsets itself
@PARTIAL
@pytest.mark.parametrize("mnemonic", DS_LOADS)
def test_ds_loads_every_dword(mnemonic, partial, arch):
    n = WIDE[mnemonic] // 32
    words = 512
    data = RNG.integers(0, 2**32, words, dtype=np.uint64).astype(np.uint32)
    two = "2addr" in mnemonic
    elem = 8 if mnemonic.endswith("b64") else 4                 # the 2ADDR forms' element size
    stride = elem * (64 if "stride64" in mnemonic else 1)
    off0, off1 = (1, 3) if two else (None, None)
    # the address of lane i: a record chosen by perm, aligned to the access
    perm = RNG.permutation(LANES).astype(np.uint32)
    rec = 16 if not two else elem
    fill = "".join(f"global_load_b32 v20, v21, s[4:5] offset:{4 * k}\ns_waitcnt vmcnt(0)\n"
                   f"ds_store_b32 v22, v20 offset:{4 * k}\n" for k in range(words // LANES))
    src = loads("data", "perm", "out") + f"""
        v_lshlrev_b32 v21, {2 + (words // LANES).bit_length() - 1}, v0
        v_mov_b32 v22, v21
        {fill}
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v6, 2, v0
        global_load_b32 v2, v6, s[6:7]
        s_waitcnt vmcnt(0)
        v_mul_u32_u24 v3, {rec}, v2
        """ + _exec_around(f"{mnemonic} v[10:{9 + n}], v3" + (f" offset0:{off0} offset1:{off1}" if two else ""),
                           n, partial) + """
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v7, 4, v0
        """ + "".join(f"global_store_b32 v7, v{10 + k}, s[8:9] offset:{4 * k}\n" for k in range(n)) + "s_endpgm"
    got, _ = launch(src, {"data": data, "perm": perm, "out": np.zeros(LANES * 4, np.uint32)}, block=(LANES, 1, 1),
                    lds=words * 4, vgprs=32, arch=arch)
    lds = data           # lane i copied words [16 i, 16 i + 16) of data to the same LDS words
    base = perm.astype(np.int64) * rec
    if two:
        per = elem // 4
        parts = [lds[(base + off * stride) // 4 + k] for off in (off0, off1) for k in range(per)]
        want = np.stack(parts, 1)
    else:
        want = np.stack([lds[base // 4 + k] for k in range(n)], 1)
    assert (got["out"].reshape(LANES, 4)[:, :n] == _expect(want, partial)).all()


SMEM_LOADS = sorted(n for n in WIDE if re.fullmatch(r"s_(buffer_)?load_b\d+", n))


@pytest.mark.parametrize("mnemonic", SMEM_LOADS)
def test_scalar_loads_every_dword(mnemonic):
    n = WIDE[mnemonic] // 32
    data = RNG.integers(0, 2**32, 32, dtype=np.uint64).astype(np.uint32)
    if "buffer" in mnemonic:     # s[12:15] = a raw V# over `data` (base, num_records)
        head = loads("data", "out") + "s_mov_b32 s12, s4\ns_and_b32 s13, s5, 0xffff\ns_mov_b32 s14, 0x80\n" \
            "s_mov_b32 s15, 0x31016fac\n"
        load = f"{mnemonic} s[16:{15 + n}], s[12:15], 0x20"
    else:
        head = loads("data", "out")
        load = f"{mnemonic} s[16:{15 + n}], s[4:5], 0x20"
    src = head + load + "\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v1, 0\n" + \
        "".join(f"v_mov_b32 v2, s{16 + k}\nglobal_store_b32 v1, v2, s[6:7] offset:{4 * k}\n" for k in range(n)) + \
        "s_endpgm"
    got, _ = launch(src, {"data": data, "out": np.zeros(16, np.uint32)}, block=(1, 1, 1))
    assert (got["out"][:n] == data[8:8 + n]).all()


BUFFER_LOADS = sorted(n for n in WIDE if re.fullmatch(r"buffer_load_b(64|96|128)", n))


@pytest.mark.parametrize("mnemonic", BUFFER_LOADS)
def test_buffer_loads_every_dword(mnemonic):
    n = WIDE[mnemonic] // 32
    data = RNG.integers(0, 2**32, 64 * 4, dtype=np.uint64).astype(np.uint32)
    body = f"v_lshlrev_b32 v1, 4, v0\n{mnemonic} v[4:{3 + n}], v1, s[8:11], 0 offen\ns_waitcnt vmcnt(0)\n" + \
        "v_lshlrev_b32 v21, 4, v0\n" + \
        "".join(f"global_store_b32 v21, v{4 + k}, s[2:3] offset:{4 * k}\n" for k in range(n))
    _, out = run_buffer(body, data, rsrc={"num_records": data.nbytes})
    assert (out.reshape(64, 4)[:, :n] == data.reshape(64, 4)[:, :n]).all()


# ---------------------------------------------------------------- 64-bit atomics
def _atomic_op(name: str):
    """(key, (u64 old, u64 data, u64 compare) -> new memory value) from the operation in the
    name (ds_max_rtn_i64 -> 'max_i'), or (None, None)."""
    m = 2**64
    s64 = lambda v: v - m if v >= 2**63 else v
    f64 = lambda v: np.uint64(v).view(np.float64)
    ops = {"add": lambda o, d, c: (o + d) % m, "sub": lambda o, d, c: (o - d) % m, "rsub": lambda o, d, c: (d - o) % m,
           "inc": lambda o, d, c: 0 if o >= d else o + 1, "dec": lambda o, d, c: d if o == 0 or o > d else o - 1,
           "min_i": lambda o, d, c: o if s64(o) < s64(d) else d, "max_i": lambda o, d, c: o if s64(o) > s64(d) else d,
           "min_u": lambda o, d, c: min(o, d), "max_u": lambda o, d, c: max(o, d),
           "min_f": lambda o, d, c: o if f64(o) < f64(d) else d, "max_f": lambda o, d, c: o if f64(o) > f64(d) else d,
           "and": lambda o, d, c: o & d, "or": lambda o, d, c: o | d, "xor": lambda o, d, c: o ^ d,
           "swap": lambda o, d, c: d, "storexchg": lambda o, d, c: d,
           "mskor": lambda o, d, c: (o & ~d % m) | c, "cmpswap": lambda o, d, c: d if o == c else o,
           "cmpstore": lambda o, d, c: d if o == c else o}
    found = re.search(r"_([a-z]+)_(?:rtn_)?([bfiu])64$", name)
    if not found:
        return None, None
    key = found.group(1) + ("_" + found.group(2) if found.group(1) in ("min", "max") else "")
    return (key, ops[key]) if key in ops else (None, None)


ATOMICS = sorted(n for n in WIDE if re.match(r"(ds|global|flat|buffer)_(atomic_)?\w+_[bfiu]64$", n)
                 and "load" not in n and "2addr" not in n and _atomic_op(n)[0] is not None)


@pytest.mark.parametrize("mnemonic", ATOMICS)
def test_64bit_atomics_return_and_store_both_dwords(mnemonic):
    key, op = _atomic_op(mnemonic)
    n = LANES
    old = RNG.integers(0, 2**64, n, dtype=np.uint64)
    data = RNG.integers(0, 2**64, n, dtype=np.uint64)
    cmp_ = np.where(RNG.random(n) < 0.5, old, RNG.integers(0, 2**64, n, dtype=np.uint64))
    if key in ("min_f", "max_f"):
        old, data = _f64(n).view(np.uint64), _f64(n).view(np.uint64)
    if key == "inc":
        data = np.where(RNG.random(n) < 0.5, old, old + np.uint64(5))
    if key == "dec":
        old = np.where(RNG.random(n) < 0.3, np.uint64(0), old)
    two = key in ("cmpswap", "cmpstore", "mskor")
    ds = mnemonic.startswith("ds_")
    returns = "_rtn" in mnemonic or not ds
    # operand order: DS cmpstore(data0 = DATA, data1 = compare), DS mskor(data0 = mask, data1 = or);
    # global/flat/buffer cmpswap take {data, compare} in one register pair
    src = loads("mem", "data", "cmp", "ret") + """
        v_lshlrev_b32 v1, 3, v0
        global_load_b64 v[2:3], v1, s[6:7]
        global_load_b64 v[4:5], v1, s[8:9]
        global_load_b64 v[12:13], v1, s[4:5]
        s_waitcnt vmcnt(0)
        v_mov_b32 v6, -1
        v_mov_b32 v7, -1
    """
    if ds:
        src += "ds_store_b64 v1, v[12:13]\ns_waitcnt lgkmcnt(0)\n"
        dst = "v[6:7], " if returns else ""
        datas = "v[2:3], v[4:5]" if two else "v[2:3]"
        src += f"{mnemonic} {dst}v1, {datas}\ns_waitcnt lgkmcnt(0)\nds_load_b64 v[12:13], v1\ns_waitcnt lgkmcnt(0)\n" \
               "global_store_b32 v1, v12, s[4:5]\nglobal_store_b32 v1, v13, s[4:5] offset:4\n"
    else:
        datas = "v[2:5]" if two else "v[2:3]"
        if mnemonic.startswith("global"):
            src += f"{mnemonic} v[6:7], v1, {datas}, s[4:5] glc\n"
        elif mnemonic.startswith("flat"):
            src += "v_add_co_u32 v8, vcc_lo, s4, v1\nv_add_co_ci_u32 v9, vcc_lo, s5, 0, vcc_lo\n" \
                   f"{mnemonic} v[6:7], v[8:9], {datas} glc\n"
        else:     # the returned value comes back in the data registers
            src += "s_mov_b32 s12, s4\ns_and_b32 s13, s5, 0xffff\ns_mov_b32 s14, 0x100\ns_mov_b32 s15, 0x31016fac\n" \
                   "v_mov_b32 v6, v2\nv_mov_b32 v7, v3\n" + ("v_mov_b32 v8, v4\nv_mov_b32 v9, v5\n" if two else "") + \
                   f"{mnemonic} v[6:{9 if two else 7}], v1, s[12:15], 0 offen glc\n"
        src += "s_waitcnt vmcnt(0)\n"
    src += "global_store_b32 v1, v6, s[10:11]\nglobal_store_b32 v1, v7, s[10:11] offset:4\ns_endpgm"
    got, _ = launch(src, {"mem": old, "data": data, "cmp": cmp_, "ret": np.zeros(n, np.uint64)},
                    block=(n, 1, 1), lds=8 * n, vgprs=24)
    o, d, c = (x.astype(object) for x in (old, data, cmp_))
    if key == "mskor":
        want = [(int(a) & ~int(m) % 2**64) | int(b) for a, m, b in zip(o, d, c)]
    elif key == "cmpstore":      # DS: data0 = the new value, data1 = the compare value
        want = [int(b) if int(a) == int(x) else int(a) for a, b, x in zip(o, d, c)]
    elif key == "cmpswap":       # VMEM: the low pair is the new value, the high pair the compare value
        want = [int(b) if int(a) == int(x) else int(a) for a, b, x in zip(o, d, c)]
    else:
        want = [op(int(a), int(b), int(x)) for a, b, x in zip(o, d, c)]
    assert got["mem"].tolist() == [int(w) % 2**64 for w in want], mnemonic
    if returns:
        assert (got["ret"] == old).all(), mnemonic


# ---------------------------------------------------------------- SALU
M64 = 2**64 - 1
SALU_REFS = {
    "s_mov_b64": lambda a, b: a, "s_cmov_b64": lambda a, b: a, "s_not_b64": lambda a, b: ~a & M64,
    "s_brev_b64": lambda a, b: int(f"{a:064b}"[::-1], 2),
    "s_and_b64": lambda a, b: a & b, "s_or_b64": lambda a, b: a | b, "s_xor_b64": lambda a, b: a ^ b,
    "s_nand_b64": lambda a, b: ~(a & b) & M64, "s_nor_b64": lambda a, b: ~(a | b) & M64,
    "s_xnor_b64": lambda a, b: ~(a ^ b) & M64, "s_and_not1_b64": lambda a, b: a & ~b & M64,
    "s_or_not1_b64": lambda a, b: (a | ~b) & M64,
    "s_lshl_b64": lambda a, b: (a << (b & 63)) & M64, "s_lshr_b64": lambda a, b: a >> (b & 63),
    "s_ashr_i64": lambda a, b: ((a - (a >> 63 << 64)) >> (b & 63)) & M64,
    "s_bfm_b64": lambda a, b: (((1 << (a & 63)) - 1) << (b & 63)) & M64,
    "s_bfe_u64": lambda a, b: (a >> (b & 63)) & ((1 << ((b >> 16) & 127)) - 1) if (b >> 16) & 127 else 0,
    "s_bfe_i64": None,
    "s_cselect_b64": lambda a, b: a,            # SCC = 1 (s_cmp_eq_u32 0, 0 before it)
    "s_bitset0_b64": None, "s_bitset1_b64": None,
    "s_bitreplicate_b64_b32": lambda a, b: sum(((a >> i) & 1) * 3 << (2 * i) for i in range(32)),
    "s_quadmask_b64": lambda a, b: sum((1 if (a >> (4 * i)) & 15 else 0) << i for i in range(16)),
    "s_wqm_b64": lambda a, b: sum((15 if (a >> (4 * i)) & 15 else 0) << (4 * i) for i in range(16)),
}


def _bfe_i64(a, b):
    width, off = (b >> 16) & 127, b & 63
    if not width:
        return 0
    v = (a >> off) & ((1 << width) - 1)
    return (v - (1 << width) if v >> (width - 1) & 1 else v) & M64


SALU_REFS["s_bfe_i64"] = _bfe_i64
SALU_REFS.pop("s_bitset0_b64")
SALU_REFS.pop("s_bitset1_b64")


@pytest.mark.parametrize("mnemonic", sorted(SALU_REFS))
def test_salu_64bit_results(mnemonic):
    ref = SALU_REFS[mnemonic]
    sources = 1 if mnemonic in ("s_mov_b64", "s_cmov_b64", "s_not_b64", "s_brev_b64", "s_bitreplicate_b64_b32",
                                "s_quadmask_b64", "s_wqm_b64") else 2
    for _ in range(4):
        a, b = (int(v) for v in RNG.integers(0, 2**64, 2, dtype=np.uint64))
        if mnemonic in ("s_bfe_u64", "s_bfe_i64"):      # a field inside the 64 bits (past bit 63
            off = int(RNG.integers(0, 64))                  # the manual's arithmetic shift decides)
            b = off | int(RNG.integers(0, 65 - off)) << 16
        if mnemonic == "s_bfm_b64":
            a, b = int(RNG.integers(0, 64)), int(RNG.integers(0, 64))
        src32 = mnemonic == "s_bitreplicate_b64_b32" or (mnemonic in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64",
                                                                      "s_bfm_b64", "s_bfe_u64", "s_bfe_i64"))
        a_reg = "s20" if mnemonic in ("s_bitreplicate_b64_b32", "s_bfm_b64") else "s[20:21]"
        b_reg = "s22" if src32 else "s[22:23]"
        if mnemonic == "s_bitreplicate_b64_b32":
            a &= 0xFFFFFFFF
        ops = f"{a_reg}, {b_reg}" if sources == 2 else a_reg
        src = loads("out") + f"""
            s_mov_b32 s20, {a & 0xFFFFFFFF:#x}
            s_mov_b32 s21, {a >> 32:#x}
            s_mov_b32 s22, {b & 0xFFFFFFFF:#x}
            s_mov_b32 s23, {b >> 32:#x}
            s_mov_b32 s24, 0xdeadbeef
            s_mov_b32 s25, 0xdeadbeef
            s_cmp_eq_u32 0, 0
            {mnemonic} s[24:25], {ops}
            v_mov_b32 v1, 0
            v_mov_b32 v2, s24
            v_mov_b32 v3, s25
            global_store_b32 v1, v2, s[4:5]
            global_store_b32 v1, v3, s[4:5] offset:4
            s_endpgm"""
        got, _ = launch(src, {"out": np.zeros(1, np.uint64)}, block=(1, 1, 1))
        assert int(got["out"][0]) == ref(a, b) & M64, (mnemonic, hex(a), hex(b))


def _scalar_run(body: str, regs: dict[int, int], out: list[int], wave=32) -> list[int]:
    """Run scalar code with SGPRs `regs` set; return the SGPRs `out` (their dwords)."""
    setup = "".join(f"s_mov_b32 s{r}, {v & 0xFFFFFFFF:#x}\n" for r, v in regs.items())
    stores = "".join(f"v_mov_b32 v2, s{r}\nglobal_store_b32 v1, v2, s[4:5] offset:{4 * i}\n" for i, r in enumerate(out))
    src = loads("out") + setup + body + "\nv_mov_b32 v1, 0\n" + stores + "s_endpgm"
    got, _ = launch(src, {"out": np.zeros(len(out), np.uint32)}, block=(wave, 1, 1), wave=wave)
    return got["out"].tolist()


EXEC_OPS = {"and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
            "nand": lambda s, e: ~(s & e) & M64, "nor": lambda s, e: ~(s | e) & M64, "xnor": lambda s, e: ~(s ^ e) & M64,
            "and_not0": lambda s, e: ~s & e & M64, "and_not1": lambda s, e: s & ~e & M64,
            "or_not0": lambda s, e: (~s | e) & M64, "or_not1": lambda s, e: (s | ~e) & M64}
EXEC_WRITERS = sorted(n for n in WIDE if re.fullmatch(r"s_\w+_(saveexec|wrexec)_b64", n))


@pytest.mark.parametrize("mnemonic", EXEC_WRITERS)
def test_wave64_exec_writers(mnemonic):
    """s_*_saveexec_b64: D0 = the old EXEC, EXEC = op(S0, EXEC); s_*_wrexec_b64: both = op(S0, EXEC)
    (the manual's descriptions). The new EXEC is read back through s_mov_b64 after it."""
    op = EXEC_OPS[re.fullmatch(r"s_(\w+)_(saveexec|wrexec)_b64", mnemonic).group(1)]
    for _ in range(3):
        s0, e = (int(v) for v in RNG.integers(1, 2**64, 2, dtype=np.uint64))
        got = _scalar_run(f"s_mov_b64 exec, s[22:23]\n{mnemonic} s[24:25], s[20:21]\ns_mov_b64 s[26:27], exec\n"
                          "s_mov_b64 exec, -1", {20: s0, 21: s0 >> 32, 22: e, 23: e >> 32}, [24, 25, 26, 27], wave=64)
        d0, new = got[0] | got[1] << 32, got[2] | got[3] << 32
        assert new == op(s0, e), mnemonic
        assert d0 == (e if "saveexec" in mnemonic else op(s0, e)), mnemonic


@pytest.mark.parametrize("mnemonic", ["s_bitset0_b64", "s_bitset1_b64"])
def test_bitset_b64_sets_one_bit_of_both_dwords(mnemonic):
    old = int(RNG.integers(0, 2**64, dtype=np.uint64))
    for bit in (3, 31, 32, 63):
        got = _scalar_run(f"s_mov_b32 s20, {bit}\n{mnemonic} s[24:25], s20", {24: old, 25: old >> 32}, [24, 25])
        want = old | 1 << bit if mnemonic.endswith("1_b64") else old & ~(1 << bit)
        assert got[0] | got[1] << 32 == want


@pytest.mark.parametrize("mnemonic", ["s_bcnt0_i32_b64", "s_bcnt1_i32_b64"])
def test_bcnt_b64_counts_both_dwords_into_one_register(mnemonic):
    """A 64-bit source, a 32-bit result: s25 beside the destination keeps its value."""
    v = int(RNG.integers(0, 2**64, dtype=np.uint64))
    got = _scalar_run(f"{mnemonic} s24, s[20:21]", {20: v, 21: v >> 32, 25: 0x12345678}, [24, 25])
    ones = bin(v).count("1")
    assert got == [ones if mnemonic.startswith("s_bcnt1") else 64 - ones, 0x12345678]


def test_movrels_b64_reads_and_movreld_b64_writes_the_pair_m0_above():
    """SGPR[addr].b64 is the pair addr, addr + 1 (s_movreld_b64 writes through the register
    file, so it has no D0 and the WIDE list does not name it)."""
    v = int(RNG.integers(0, 2**64, dtype=np.uint64))
    got = _scalar_run("s_mov_b32 m0, 2\ns_movrels_b64 s[24:25], s[20:21]", {22: v, 23: v >> 32}, [24, 25])
    assert got[0] | got[1] << 32 == v
    got = _scalar_run("s_mov_b32 m0, 4\ns_movreld_b64 s[20:21], s[22:23]", {22: v, 23: v >> 32}, [24, 25])
    assert got[0] | got[1] << 32 == v


# ---------------------------------------------------------------- sums of absolute differences
def _sad(a: int, b: int, acc: int, masked: bool) -> int:
    """acc + sum over bytes |a_i - b_i| (masked: bytes where b_i == 0 skipped: MSAD)."""
    return acc + sum(abs(((a >> 8 * i) & 255) - ((b >> 8 * i) & 255)) for i in range(4)
                     if not (masked and (b >> 8 * i) & 255 == 0))


SADS = {"v_qsad_pk_u16_u8": (False, 16, 2), "v_mqsad_pk_u16_u8": (True, 16, 2), "v_mqsad_u32_u8": (True, 32, 4)}


@pytest.mark.parametrize("mnemonic", sorted(SADS))
def test_quad_sads_every_element(mnemonic):
    """Four SADs of the 32-bit reference S1 against S0's byte windows [31:0], [39:8], [47:16],
    [55:24], each plus its element of S2 (16-bit elements packed in 64 bits, or four dwords)."""
    masked, bits, dwords = SADS[mnemonic]
    s0 = RNG.integers(0, 2**64, LANES, dtype=np.uint64)
    s1 = RNG.integers(0, 2**32, LANES, dtype=np.uint64).astype(np.uint32)
    s1 = np.where(RNG.random(LANES) < 0.3, s1 & np.uint32(0xFF00FF00), s1)      # zero bytes for MSAD
    acc = RNG.integers(0, 2**32, (LANES, 4), dtype=np.uint64).astype(np.uint32) >> np.uint32(34 - bits)
    s2 = (acc[:, 0] | acc[:, 1] << np.uint32(16)).astype(np.uint64) | \
        (acc[:, 2] | acc[:, 3] << np.uint32(16)).astype(np.uint64) << np.uint64(32) if bits == 16 else None
    s2_buf = s2 if bits == 16 else acc.reshape(-1)
    load_s2 = "global_load_b64 v[14:15], v5, s[8:9]" if bits == 16 else \
        "v_lshlrev_b32 v7, 4, v0\nglobal_load_b128 v[14:17], v7, s[8:9]"
    dst = "v[20:21]" if dwords == 2 else "v[20:23]"
    src2 = "v[14:15]" if dwords == 2 else "v[14:17]"
    src = loads("s0", "s1", "s2", "out") + f"""
        v_lshlrev_b32 v5, 3, v0
        v_lshlrev_b32 v6, 2, v0
        global_load_b64 v[10:11], v5, s[4:5]
        global_load_b32 v12, v6, s[6:7]
        {load_s2}
        s_waitcnt vmcnt(0)
        {mnemonic} {dst}, v[10:11], v12, {src2}
        v_lshlrev_b32 v7, 4, v0
        """ + "".join(f"global_store_b32 v7, v{20 + k}, s[10:11] offset:{4 * k}\n" for k in range(dwords)) + "s_endpgm"
    got, _ = launch(src, {"s0": s0, "s1": s1, "s2": s2_buf, "out": np.zeros(LANES * 4, np.uint32)},
                    block=(LANES, 1, 1), vgprs=32)
    out = got["out"].reshape(LANES, 4)
    for lane in range(LANES):
        a, b = int(s0[lane]), int(s1[lane])
        want = [_sad((a >> 8 * k) & 0xFFFFFFFF, b, int(acc[lane, k]), masked) & ((1 << bits) - 1) for k in range(4)]
        if bits == 16:
            want = [want[0] | want[1] << 16, want[2] | want[3] << 16]
        assert out[lane, :dwords].tolist() == want, (mnemonic, lane)


# ---------------------------------------------------------------- two-address exchange
XCHG_2ADDR = sorted(n for n in WIDE if n.startswith("ds_storexchg_2addr"))


@pytest.mark.parametrize("mnemonic", XCHG_2ADDR)
def test_ds_storexchg_2addr_returns_both_old_values(mnemonic):
    """Each lane swaps DATA / DATA2 into two elements (OFFSET0, OFFSET1, times 64 for STRIDE64)
    of its own and returns both old ones: every returned dword and every stored one."""
    elem = 8 if mnemonic.endswith("b64") else 4
    n = elem // 4
    scale = elem * (64 if "stride64" in mnemonic else 1)
    off0, off1 = 1, 2
    step = elem * (1 if "stride64" in mnemonic else 4)    # lane bases far enough apart: no element shared
    size = LANES * step + off1 * scale + elem
    lds0 = RNG.integers(0, 2**32, size // 4, dtype=np.uint64).astype(np.uint32)
    d = RNG.integers(0, 2**32, (LANES, 4), dtype=np.uint64).astype(np.uint32)
    fill = "".join(f"global_load_b32 v20, v21, s[4:5] offset:{4 * k}\ns_waitcnt vmcnt(0)\n"
                   f"ds_store_b32 v21, v20 offset:{4 * k}\n" for k in range(-(-size // 4 // LANES)))
    per = -(-size // 4 // LANES)
    data = "v[12:13], v[14:15]" if n == 2 else "v12, v14"
    dst = "v[24:27]" if n == 2 else "v[24:25]"
    src = loads("lds", "d", "ret", "after") + f"""
        v_mul_u32_u24 v21, {4 * per}, v0
        {fill}
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v7, 4, v0
        global_load_b128 v[12:15], v7, s[6:7]
        v_mul_u32_u24 v3, {step}, v0
        s_waitcnt vmcnt(0)
        {mnemonic} {dst}, v3, {data} offset0:{off0} offset1:{off1}
        s_waitcnt lgkmcnt(0)
        """ + "".join(f"global_store_b32 v7, v{24 + k}, s[8:9] offset:{4 * k}\n" for k in range(2 * n)) + \
        "".join(f"ds_load_b32 v20, v21 offset:{4 * k}\ns_waitcnt lgkmcnt(0)\nglobal_store_b32 v21, v20, s[10:11] "
                f"offset:{4 * k}\n" for k in range(per)) + "s_endpgm"
    padded = np.zeros(per * LANES, np.uint32)
    padded[:lds0.size] = lds0
    got, _ = launch(src, {"lds": padded, "d": d.reshape(-1), "ret": np.zeros(LANES * 4, np.uint32),
                          "after": np.zeros(per * LANES, np.uint32)}, block=(LANES, 1, 1), lds=per * LANES * 4,
                    vgprs=32)
    mem = padded.copy()
    ret = np.zeros((LANES, 4), np.uint32)
    for lane in range(LANES):         # lanes touch distinct elements: no order question
        for j, off in enumerate((off0, off1)):
            w = (lane * step + off * scale) // 4
            ret[lane, j * n:(j + 1) * n] = mem[w:w + n]
            mem[w:w + n] = d[lane, 2 * j:2 * j + n] if n == 2 else d[lane, 2 * j]
    assert (got["ret"].reshape(LANES, 4)[:, :2 * n] == ret[:, :2 * n]).all()
    assert (got["after"] == mem).all()


# ---------------------------------------------------------------- program counters
def test_pc_results_are_the_whole_64bit_address():
    """s_getpc_b64 / s_call_b64 / s_swappc_b64 write the address of the next instruction (the
    manual: PC + 4) as a 64-bit value in an SGPR pair."""
    import dsl
    from emu.launch import Dispatch
    from emu.machine import Machine
    from emu.memory import DeviceMemory
    mem = DeviceMemory()
    out = mem.alloc(64, "out")
    args = mem.alloc(8, "kernarg")
    mem.write(args, np.array([out], np.uint64))
    code = dsl.assemble("""
        s_load_b64 s[4:5], s[0:1], 0x0
        s_getpc_b64 s[20:21]
        s_call_b64 s[22:23], 1
        s_branch 2
        s_swappc_b64 s[24:25], s[22:23]
        s_endpgm
        s_waitcnt lgkmcnt(0)
        v_mov_b32 v1, 0
        v_mov_b32 v2, s20
        v_mov_b32 v3, s21
        v_mov_b32 v4, s22
        v_mov_b32 v5, s23
        v_mov_b32 v6, s24
        v_mov_b32 v7, s25
        global_store_b128 v1, v[2:5], s[4:5]
        global_store_b64 v1, v[6:7], s[4:5] offset:16
        s_endpgm""", ARCH)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    Machine(ARCH, mem).run(Dispatch("pc", at, grid=(1, 1, 1), block=(1, 1, 1), vgprs=8,
                                    user_sgprs=[args & 0xFFFFFFFF, args >> 32]))
    got = np.frombuffer(mem.read(out, 24), np.uint64)
    # s_load_b64 is 8 bytes: s_getpc_b64 sits at at + 8, s_call_b64 at at + 12 (jumping over
    # the s_branch at + 16 to s_swappc_b64 at + 20, which jumps back to that s_branch)
    assert got.tolist() == [at + 12, at + 16, at + 24]


# ---------------------------------------------------------------- coverage
def test_rdna35_wide_results_are_rdna3s():
    """The checks above run RDNA3's list; RDNA3.5 has no wide result RDNA3 lacks."""
    assert set(wide_results("gfx1151")) <= set(WIDE)


def test_every_wide_result_is_checked():
    checked = set(VALU_REFS) | set(SALU_REFS) | set(DS_LOADS) | set(SMEM_LOADS) | set(BUFFER_LOADS) | set(ATOMICS) | \
        set(_vector_loads("global") + _vector_loads("flat") + _vector_loads("scratch")) | set(EXEC_WRITERS) | \
        {"s_bitset0_b64", "s_bitset1_b64", "s_bcnt0_i32_b64", "s_bcnt1_i32_b64", "s_movrels_b64"} | set(SADS) | \
        set(XCHG_2ADDR) | {"s_getpc_b64", "s_call_b64", "s_swappc_b64"}
    unaccounted = set(WIDE) - checked - set(ELSEWHERE) - set(NOT_CHECKED)
    assert not unaccounted, f"wide results with no check: {sorted(unaccounted)}"
    assert len(checked & set(WIDE)) >= 140       # the families above found their instructions

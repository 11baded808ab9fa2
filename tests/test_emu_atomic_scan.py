"""Order-dependent atomics on shared addresses (emu/atomic_scan.py, switch scan_atomics) against
an independent lane-by-lane reference written here from the manuals' pseudocode (lanes sharing
an address apply one after another in lane order, wave-major) and against reference mode
(every fast path off: rounds): returned values, final memory, partial EXEC, LDS regions of
several work-groups, 32/64/128-bit data, and faults naming the first faulting lane."""
from __future__ import annotations

import re

import numpy as np
import pytest

import dsl
import isa
from emu.launch import Dispatch
from emu.machine import EmuFault, Machine
from emu.buffer import EVERYTHING, BufferMemory
from emu.memory import DeviceMemory, MemoryFault, RegionMemory
from emu.options import FAST, REFERENCE, activate, deactivate, options_from
from emu.table import load_semantics
from emu.semantics import Ctx

from .test_emu_machine import global_id, launch, loads

M32, M64 = 2**32 - 1, 2**64 - 1
F32_POOL = np.array([0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x40200000, 0x7FC00000, 0x7F800001,
                     0x7F800000, 0xFF800000, 0x00000001, 0xC0200000, 0xFFC00001], np.uint32)


F64_POOL = np.array([0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x4004000000000000, 0x7FF8000000000000,
                     0x7FF0000000000001, 0x7FF0000000000000, 0xFFF0000000000000, 1, 0xFFF8000000000001], np.uint64)


def _f32(bits: int) -> float:
    return float(np.uint32(bits).view(np.float32))


def _is_nan(bits: int) -> bool:
    return (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF != 0


# ---- the manuals' pseudocode, one lane at a time: (old word, this lane's inputs) -> new word

def rdna3_min_f32(m, d):            # MEM = src < tmp ? src : tmp (RDNA3 DS_MIN_F32 / GLOBAL_ATOMIC_MIN_F32)
    return d if _f32(d) < _f32(m) else m


def rdna3_max_f32(m, d):
    return d if _f32(d) > _f32(m) else m


def _rdna4_num_pick(m, d, d_wins):
    """RDNA4 *_MIN/MAX_NUM_F32: NaNs lose to numbers (two NaNs: DATA quieted); d_wins(d, m, both_zero)
    decides between numbers, signed zeros included."""
    if _is_nan(d) and _is_nan(m):
        return d | 0x400000
    if _is_nan(d):
        return m
    if _is_nan(m):
        return d
    both_zero = (m & 0x7FFFFFFF) == 0 and (d & 0x7FFFFFFF) == 0
    return d if d_wins(d, m, both_zero) else m


def rdna4_min_num_f32(m, d):        # -0 < +0
    return _rdna4_num_pick(m, d, lambda d, m, z: _f32(d) < _f32(m) or (z and d >> 31 and not m >> 31))


def rdna4_max_num_f32(m, d):
    return _rdna4_num_pick(m, d, lambda d, m, z: _f32(d) > _f32(m) or (z and not d >> 31 and m >> 31))


def _f64(bits: int) -> float:
    return float(np.uint64(bits).view(np.float64))


def max_f64(m, d):                  # MEM.f64 = src > tmp ? src : tmp (DS_MAX_RTN_F64)
    return d if _f64(d) > _f64(m) else m


def min_f64(m, d):
    return d if _f64(d) < _f64(m) else m


def add_f64(m, d):                  # Python floats are IEEE binary64, rounded to nearest even
    return int(np.float64(_f64(m) + _f64(d)).view(np.uint64))


def add_f32(m, d):                  # MEM.f = src + tmp, rounded to nearest even
    return int((np.float32(_f32(m)) + np.float32(_f32(d))).view(np.uint32))


def pk_add_f16(m, d):               # each f16 half added (the values here sum exactly in f32: one rounding)
    out = 0
    for shift in (0, 16):
        a = np.uint16((m >> shift) & 0xFFFF).view(np.float16)
        b = np.uint16((d >> shift) & 0xFFFF).view(np.float16)
        out |= int(np.float16(np.float32(a) + np.float32(b)).view(np.uint16)) << shift
    return out


def low_high(width):
    """(src, cmp) of a cmpswap whose DATA holds src in its low half and cmp in its high half."""
    return lambda d: (d & ((1 << width) - 1), d >> width)


CASES = {
    # name: (arch, inputs {name: kind}, width, new(old, inputs), lanes)
    "GLOBAL_ATOMIC_SWAP_B32": ("gfx1100", {"DATA": "u32"}, 32, lambda m, i: i["DATA"], 32),
    "GLOBAL_ATOMIC_SWAP_B64": ("gfx1100", {"DATA": "u64"}, 64, lambda m, i: i["DATA"], 32),
    "GLOBAL_ATOMIC_CMPSWAP_B32": ("gfx1100", {"DATA": "cmp64"}, 32,
                                  lambda m, i: (i["DATA"] & M32) if m == i["DATA"] >> 32 else m, 32),
    "GLOBAL_ATOMIC_INC_U32": ("gfx1100", {"DATA": "small"}, 32, lambda m, i: 0 if m >= i["DATA"] else m + 1, 32),
    "GLOBAL_ATOMIC_DEC_U32": ("gfx1100", {"DATA": "small"}, 32,
                              lambda m, i: i["DATA"] if m == 0 or m > i["DATA"] else m - 1, 32),
    "GLOBAL_ATOMIC_INC_U64": ("gfx1100", {"DATA": "small"}, 64, lambda m, i: 0 if m >= i["DATA"] else m + 1, 32),
    "GLOBAL_ATOMIC_MIN_F32": ("gfx1100", {"DATA": "f32"}, 32, lambda m, i: rdna3_min_f32(m, i["DATA"]), 32),
    "GLOBAL_ATOMIC_MAX_F32": ("gfx1100", {"DATA": "f32"}, 32, lambda m, i: rdna3_max_f32(m, i["DATA"]), 32),
    "GLOBAL_ATOMIC_ADD_F32": ("gfx1100", {"DATA": "real"}, 32, lambda m, i: add_f32(m, i["DATA"]), 32),
    "GLOBAL_ATOMIC_CSUB_U32": ("gfx1100", {"DATA": "small"}, 32,
                               lambda m, i: 0 if m < i["DATA"] else m - i["DATA"], 32),
    "DS_CMPSTORE_RTN_B32": ("gfx1100", {"DATA": "small", "DATA2": "small"}, 32,
                            lambda m, i: i["DATA"] if m == i["DATA2"] else m, 32),
    "DS_CMPSTORE_RTN_B64": ("gfx1100", {"DATA": "small64", "DATA2": "small64"}, 64,
                            lambda m, i: i["DATA"] if m == i["DATA2"] else m, 64),
    "DS_MSKOR_RTN_B32": ("gfx1100", {"DATA": "u32", "DATA2": "u32"}, 32,
                         lambda m, i: (m & ~i["DATA"] & M32) | i["DATA2"], 32),
    "DS_WRAP_RTN_B32": ("gfx1100", {"DATA": "small", "DATA2": "small"}, 32,
                        lambda m, i: m - i["DATA"] if m >= i["DATA"] else (m + i["DATA2"]) & M32, 32),
    "DS_MIN_RTN_F32": ("gfx1100", {"DATA": "f32"}, 32, lambda m, i: rdna3_min_f32(m, i["DATA"]), 32),
    "DS_ADD_RTN_F32": ("gfx1100", {"DATA": "real"}, 32, lambda m, i: add_f32(m, i["DATA"]), 64),
    "DS_STOREXCHG_RTN_B32": ("gfx1100", {"DATA": "u32"}, 32, lambda m, i: i["DATA"], 32),
    "DS_MIN_NUM_RTN_F32": ("gfx1201", {"DATA": "f32"}, 32, lambda m, i: rdna4_min_num_f32(m, i["DATA"]), 32),
    "GLOBAL_ATOMIC_MAX_NUM_F32": ("gfx1201", {"DATA": "f32"}, 32, lambda m, i: rdna4_max_num_f32(m, i["DATA"]), 32),
    "DS_COND_SUB_RTN_U32": ("gfx1201", {"DATA": "small"}, 32, lambda m, i: m - i["DATA"] if m >= i["DATA"] else m, 32),
    "GLOBAL_ATOMIC_PK_ADD_F16": ("gfx942", {"DATA": "f16x2"}, 32, lambda m, i: pk_add_f16(m, i["DATA"]), 64),
    "GLOBAL_ATOMIC_CMPSWAP_X2": ("gfx942", {"DATA": "cmp128"}, 64,
                                 lambda m, i: (i["DATA"] & M64) if m == i["DATA"] >> 64 else m, 64),
    "DS_CMPST_RTN_B32": ("gfx942", {"DATA": "small", "DATA2": "small"}, 32,       # gfx9: DATA is cmp, DATA2 src
                         lambda m, i: i["DATA2"] if m == i["DATA"] else m, 64),
    "GLOBAL_ATOMIC_DEC_X2": ("gfx942", {"DATA": "small"}, 64,
                             lambda m, i: i["DATA"] if m == 0 or m > i["DATA"] else m - 1, 64),
    "DS_ADD_RTN_F32 gfx942": ("gfx942", {"DATA": "real"}, 32, lambda m, i: add_f32(m, i["DATA"]), 64),
    "DS_MAX_RTN_F64 gfx942": ("gfx942", {"DATA": "f64"}, 64, lambda m, i: max_f64(m, i["DATA"]), 64),
    "DS_WRXCHG_RTN_B64": ("gfx942", {"DATA": "u64"}, 64, lambda m, i: i["DATA"], 64),
    "DS_INC_RTN_U32 gfx942": ("gfx942", {"DATA": "small"}, 32, lambda m, i: 0 if m >= i["DATA"] else m + 1, 64),
    "DS_CMPSTORE_RTN_B32 gfx1151": ("gfx1151", {"DATA": "small", "DATA2": "small"}, 32,
                                    lambda m, i: i["DATA"] if m == i["DATA2"] else m, 32),
    "DS_INC_RTN_U64 gfx1151": ("gfx1151", {"DATA": "small64"}, 64, lambda m, i: 0 if m >= i["DATA"] else m + 1, 64),
    "DS_MAX_RTN_F64 gfx1151": ("gfx1151", {"DATA": "f64"}, 64, lambda m, i: max_f64(m, i["DATA"]), 32),
    "DS_STOREXCHG_RTN_B64 gfx1151": ("gfx1151", {"DATA": "u64"}, 64, lambda m, i: i["DATA"], 64),
    "DS_ADD_RTN_F32 gfx1151": ("gfx1151", {"DATA": "real"}, 32, lambda m, i: add_f32(m, i["DATA"]), 32),
}


def _values(rng, kind: str, shape):
    """(array the semantic reads, Python ints the reference reads) of one input kind."""
    if kind in ("small", "small64"):
        v = rng.integers(0, 5, shape).astype(np.uint64 if kind == "small64" else np.uint32)
    elif kind == "u32":
        v = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    elif kind == "u64":
        v = rng.integers(0, 2**63, shape, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, shape, dtype=np.uint64)
    elif kind == "cmp64":                       # src | cmp << 32, cmp mostly the words' values
        v = rng.integers(0, 4, shape, dtype=np.uint64) | rng.integers(0, 4, shape, dtype=np.uint64) << np.uint64(32)
    elif kind == "f32cmp":                      # src | cmp << 32, both from the float pool
        v = F32_POOL[rng.integers(0, len(F32_POOL), shape)].astype(np.uint64) | \
            F32_POOL[rng.integers(0, len(F32_POOL), shape)].astype(np.uint64) << np.uint64(32)
    elif kind == "cmp128":                      # dwords: src lo, src hi, cmp lo, cmp hi
        v = np.zeros(shape + (4,), np.uint32)
        v[..., 0] = rng.integers(0, 4, shape)
        v[..., 1] = rng.integers(0, 2, shape)
        v[..., 2] = rng.integers(0, 4, shape)
        v[..., 3] = rng.integers(0, 2, shape)
        ints = [sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in v.reshape(-1, 4)]
        return v, np.array(ints, object).reshape(shape)
    elif kind == "f32":
        v = F32_POOL[rng.integers(0, len(F32_POOL), shape)]
    elif kind == "f64":
        v = F64_POOL[rng.integers(0, len(F64_POOL), shape)]
    elif kind == "real64":                      # magnitudes far apart: the order of the sums shows
        v = (rng.choice([1.0, -3.0, 1e17, 1e-3, 0.1, 7e16], shape) * rng.uniform(0.5, 2, shape)).view(np.uint64)
    elif kind == "real":                        # magnitudes far apart: the order of the sums shows
        v = (rng.choice([1.0, -3.0, 1e8, 1e-3, 0.1, 7e7], shape) * rng.uniform(0.5, 2, shape)).astype(np.float32).view(np.uint32)
    elif kind == "f16x2":                       # halves of n/2, |n| < 4096: sums exact in f32, rounded in f16
        halves = (rng.integers(-4096, 4096, shape + (2,)) / 2).astype(np.float16).view(np.uint16).astype(np.uint32)
        v = halves[..., 0] | halves[..., 1] << np.uint32(16)
    else:
        raise AssertionError(kind)
    return v, np.vectorize(int, otypes=[object])(v)


def _initial(rng, name, kind, words, width):
    if "F16" in name:
        return _values(rng, "f16x2", (words,))[0].astype(np.uint64)
    if kind in ("f32", "real", "f64", "real64"):
        return _values(rng, kind, (words,))[0].astype(np.uint64)
    return rng.integers(0, 4, words).astype(np.uint64)


def _random_lanes(rng, name, kinds: dict, words_n: int, width: int, shape):
    """Each lane's word slot and operand values, the initial words, and a random EXEC per wave
    (wave 0 with every lane on), drawn in this order from rng."""
    waves, lanes = shape
    slot = rng.integers(0, words_n, shape)
    inputs, ref_inputs = {}, {}
    for k, kind in kinds.items():
        inputs[k], ref_inputs[k] = _values(rng, kind, shape)
    init = _initial(rng, name, next(iter(kinds.values())), words_n, width)
    exec_mask = rng.integers(0, 2**lanes, (waves, 1), dtype=np.uint64)
    exec_mask[0, 0] = 2**lanes - 1
    active = ((exec_mask >> np.arange(lanes, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    return slot, inputs, ref_inputs, init, exec_mask, active


def _lane_by_lane(new, addr_keys, inputs, active, words: dict):
    """Each active lane in lane order (wave-major): its returned value and the words after."""
    words = dict(words)
    ret = {}
    for w, lane in zip(*np.nonzero(active)):
        key = addr_keys[w][lane]
        ret[w, lane] = words[key]
        words[key] = new(words[key], {k: v[w, lane] for k, v in inputs.items()})
    return ret, words


def _run(name, options, mem, ctx_inputs, exec_mask, lanes, cases=CASES):
    arch = cases[name][0]
    sem = load_semantics(arch).lookup(name.split()[0])
    token = activate(options)
    try:
        return sem.execute(Ctx(lanes=lanes, exec_mask=exec_mask, inputs=ctx_inputs, mem=mem))
    finally:
        deactivate(token)


def _returned(out, shape, width):
    r = np.asarray(out["RETURN_DATA"])
    if r.ndim == 3:                             # dwords
        r = sum(r[..., k].astype(object) << (32 * k) for k in range(r.shape[-1]))
    return np.broadcast_to(r, shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_conflicting_atomics_match_lane_order_and_reference_mode(name, monkeypatch):
    """Global instructions on global memory, DS ones on two work-groups' LDS regions; the
    fast mode takes the scan (not rounds) and agrees with the lane-by-lane reference, as do
    reference mode and the fast mode without the scan. CDNA's DS pseudocode adds the
    instruction offset to ADDR itself (CalcDsAddr): the words are at ADDR + offset, and the
    scan finds them there too."""
    import emu.atomic_scan
    arch, kinds, width, new, lanes = CASES[name]
    space = "lds" if name.startswith("DS_") else "global"
    extra = 8 if space == "lds" and arch == "gfx942" else 0      # the DS offset CalcDsAddr adds
    scanned = []
    real_scan = emu.atomic_scan.scan
    monkeypatch.setattr(emu.atomic_scan, "scan", lambda *a: scanned.append(real_scan(*a)) or scanned[-1])
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    waves, words_n, nbytes = 4, 5, width // 8
    shape = (waves, lanes)
    slot, inputs, ref_inputs, init, exec_mask, active = _random_lanes(rng, name, kinds, words_n, width, shape)
    if space == "global":
        def fresh():
            mem = DeviceMemory()
            base = mem.alloc(words_n * nbytes + 64, "words")
            mem.write(base, init.astype(np.uint64 if width == 64 else np.uint32))
            return mem, base
        _, base = fresh()
        addr = (np.uint64(base) + slot.astype(np.uint64) * np.uint64(nbytes))
        keys = slot.tolist()
        words = {s: int(init[s]) for s in range(words_n)}
    else:                                           # waves 0-1 in one work-group's LDS, 2-3 in another's
        region = 256
        regions = np.array([[0], [0], [region], [region]], np.int64)
        def fresh():
            data = np.zeros(2 * region, np.uint8)
            dt = np.uint64 if width == 64 else np.uint32
            for g in range(2):
                data[g * region + extra:g * region + extra + words_n * nbytes] = init.astype(dt).view(np.uint8)
            return RegionMemory("LDS", data, region, regions), 0
        addr = slot.astype(np.uint64) * np.uint64(nbytes)
        keys = [[(w // 2, int(s)) for s in row] for w, row in enumerate(slot)]
        words = {(g, s): int(init[s]) for g in range(2) for s in range(words_n)}
    ret_want, words_want = _lane_by_lane(new, keys, ref_inputs, active, words)
    modes = (("fast", FAST), ("by depth", options_from(off=["one_pass_swaps", "cmpswap_successes"])), ("reference", REFERENCE),
             ("no scan", options_from(off=["scan_atomics"])))
    for label, options in modes:
        mem, base = fresh()
        fields = {"OFFSET0": extra, "OFFSET1": 0} if extra else {}
        out = _run(name, options, mem, dict(inputs, ADDR=addr, **fields), exec_mask, lanes)
        got = _returned(out, shape, width)
        assert {(w, lane): int(got[w, lane]) for w, lane in ret_want} == ret_want, label
        if space == "global":
            raw = np.frombuffer(mem.read(base, words_n * nbytes), np.uint64 if width == 64 else np.uint32)
            assert [int(v) for v in raw] == [words_want[s] for s in range(words_n)], label
        else:
            dt = np.uint64 if width == 64 else np.uint32
            got_words = {(g, s): int(mem.data[g * region + extra:].view(dt)[s]) for g in range(2) for s in range(words_n)}
            assert got_words == words_want, label
    assert len(scanned) == 2 and None not in scanned        # the scan ran, in the first two modes only


BUFFER_CASES = {
    # name: (arch, inputs {name: kind}, width, new(old, inputs), lanes), as CASES
    "BUFFER_ATOMIC_SWAP_B32": ("gfx1100", {"DATA": "u32"}, 32, lambda m, i: i["DATA"], 32),
    "BUFFER_ATOMIC_CMPSWAP_B32": ("gfx1100", {"DATA": "cmp64"}, 32,
                                  lambda m, i: (i["DATA"] & M32) if m == i["DATA"] >> 32 else m, 64),
    "BUFFER_ATOMIC_CMPSWAP_F32": ("gfx1100", {"DATA": "f32cmp"}, 32,      # compared as floats: -0 == +0, NaN != NaN
                                  lambda m, i: (i["DATA"] & M32) if _f32(m) == _f32(i["DATA"] >> 32) else m, 32),
    "BUFFER_ATOMIC_INC_U32": ("gfx1100", {"DATA": "small"}, 32, lambda m, i: 0 if m >= i["DATA"] else m + 1, 64),
    "BUFFER_ATOMIC_MAX_F32": ("gfx1100", {"DATA": "f32"}, 32, lambda m, i: rdna3_max_f32(m, i["DATA"]), 32),
    "BUFFER_ATOMIC_ADD_U32": ("gfx1100", {"DATA": "u32"}, 32, lambda m, i: (m + i["DATA"]) & M32, 32),
    "BUFFER_ATOMIC_DEC_U64": ("gfx1100", {"DATA": "small"}, 64,
                              lambda m, i: i["DATA"] if m == 0 or m > i["DATA"] else m - 1, 32),
    "BUFFER_ATOMIC_ADD_F32 gfx1151": ("gfx1151", {"DATA": "real"}, 32, lambda m, i: add_f32(m, i["DATA"]), 32),
    "BUFFER_ATOMIC_CSUB_U32 gfx1151": ("gfx1151", {"DATA": "small"}, 32,
                                       lambda m, i: 0 if m < i["DATA"] else m - i["DATA"], 64),
    "BUFFER_ATOMIC_CMPSWAP_B64 gfx1151": ("gfx1151", {"DATA": "cmp128"}, 64,
                                          lambda m, i: (i["DATA"] & M64) if m == i["DATA"] >> 64 else m, 64),
    "BUFFER_ATOMIC_MAX_U64 gfx1151": ("gfx1151", {"DATA": "u64"}, 64, lambda m, i: max(m, i["DATA"]), 32),
    "BUFFER_ATOMIC_SWAP_B64 gfx1151": ("gfx1151", {"DATA": "u64"}, 64, lambda m, i: i["DATA"], 32),
    "BUFFER_ATOMIC_ADD": ("gfx942", {"DATA": "u32"}, 32, lambda m, i: (m + i["DATA"]) & M32, 64),
    "BUFFER_ATOMIC_CMPSWAP": ("gfx942", {"DATA": "cmp64"}, 32,
                              lambda m, i: (i["DATA"] & M32) if m == i["DATA"] >> 32 else m, 64),
    "BUFFER_ATOMIC_CMPSWAP_X2": ("gfx942", {"DATA": "cmp128"}, 64,
                                 lambda m, i: (i["DATA"] & M64) if m == i["DATA"] >> 64 else m, 64),
    "BUFFER_ATOMIC_SWAP_X2": ("gfx942", {"DATA": "u64"}, 64, lambda m, i: i["DATA"], 64),
    "BUFFER_ATOMIC_ADD_F64": ("gfx942", {"DATA": "real64"}, 64, lambda m, i: add_f64(m, i["DATA"]), 64),
    "BUFFER_ATOMIC_MIN_F64": ("gfx942", {"DATA": "f64"}, 64, lambda m, i: min_f64(m, i["DATA"]), 64),
    "BUFFER_ATOMIC_PK_ADD_F16": ("gfx942", {"DATA": "f16x2"}, 32, lambda m, i: pk_add_f16(m, i["DATA"]), 64),
    "BUFFER_ATOMIC_DEC_X2": ("gfx942", {"DATA": "small"}, 64,
                             lambda m, i: i["DATA"] if m == 0 or m > i["DATA"] else m - 1, 64),
    "BUFFER_ATOMIC_INC": ("gfx942", {"DATA": "small"}, 32, lambda m, i: 0 if m >= i["DATA"] else m + 1, 64),
    "BUFFER_ATOMIC_MAX_NUM_F32 gfx1201": ("gfx1201", {"DATA": "f32"}, 32, lambda m, i: rdna4_max_num_f32(m, i["DATA"]), 32),
    "BUFFER_ATOMIC_CMPSWAP_B32 gfx1201": ("gfx1201", {"DATA": "cmp64"}, 32,
                                          lambda m, i: (i["DATA"] & M32) if m == i["DATA"] >> 32 else m, 64),
    "BUFFER_ATOMIC_SUB_CLAMP_U32 gfx1201": ("gfx1201", {"DATA": "small"}, 32,
                                            lambda m, i: 0 if m < i["DATA"] else m - i["DATA"], 32),
}


@pytest.mark.parametrize("name", sorted(BUFFER_CASES))
def test_buffer_atomics_in_range_lanes_in_order_others_dropped(name, monkeypatch):
    """Buffer atomics on words that lanes share, through a buffer whose range ends inside the
    last word but one: an access is in range when it ends at the limit or before (RDNA3 Table
    46, "offset + payload > num_records" is out) or, on CDNA3, when it starts before it
    (9.1.5.1 tests the first byte), so that word is out on RDNA and in on CDNA; some lanes have
    no range at all (an unbound resource) and some no bound (a private buffer), as lanes of
    one address may. Lanes in range apply in lane order; the others return 0 and write
    nothing (RDNA3 9.4.1, CDNA3 9.1.5.1). Fast mode reads each word once (no rounds), and
    agrees with the lane-by-lane reference as reference mode and rounds do."""
    arch, kinds, width, new, lanes = BUFFER_CASES[name]
    first_byte = arch == "gfx942"
    rng = np.random.default_rng(sum(map(ord, name)))
    waves, words_n, nbytes = 4, 7, width // 8
    shape = (waves, lanes)
    slot, inputs, ref_inputs, init, exec_mask, active = _random_lanes(rng, name, kinds, words_n, width, shape)
    dt = np.uint64 if width == 64 else np.uint32

    def fresh():
        mem = DeviceMemory()
        base = mem.alloc(words_n * nbytes + 64, "words")
        mem.write(base, init.astype(dt))
        return mem, base
    _, base = fresh()                               # every fresh() allocates at the same address
    addr = np.uint64(base) + slot.astype(np.uint64) * np.uint64(nbytes)
    cut = base + (words_n - 2) * nbytes + 2         # inside word words_n - 2
    kind = rng.choice(3, shape, p=[0.8, 0.1, 0.1])  # 0: the cut, 1: unbound (no range), 2: unchecked
    limit = np.where(kind == 0, cut, np.where(kind == 1, 0, EVERYTHING)).astype(np.int64)
    a = addr.astype(np.int64)
    in_range = (a < limit) if first_byte else (a + nbytes <= limit)
    assert in_range[kind == 0].any() and (~in_range[kind == 0]).any()
    ret_want, words_want = _lane_by_lane(new, slot.tolist(), ref_inputs, active & in_range,
                                         {s: int(init[s]) for s in range(words_n)})
    for w, lane in zip(*np.nonzero(active & ~in_range)):
        ret_want[w, lane] = 0
    reads = []
    modes = (("fast", FAST), ("by depth", options_from(off=["one_pass_swaps", "cmpswap_successes"])),
             ("rounds", options_from(off=["buffer_atomics_in_range"])), ("reference", REFERENCE))
    for label, options in modes:
        mem, _ = fresh()
        real_load = mem.load
        monkeypatch.setattr(mem, "load", lambda *a: reads.append(label) or real_load(*a))
        out = _run(name, options, BufferMemory(mem, limit, first_byte), dict(inputs, ADDR=addr), exec_mask, lanes,
                   BUFFER_CASES)
        got = _returned(out, shape, width)
        assert {(w, lane): int(got[w, lane]) for w, lane in ret_want} == ret_want, label
        raw = np.frombuffer(mem.read(base, words_n * nbytes), dt)
        assert [int(v) for v in raw] == [words_want[s] for s in range(words_n)], label
    # fast: one call for the lanes out of range, one on memory for the others (a pseudocode's
    # `MEM += ` reads again); rounds: a call per conflict depth
    assert reads.count("fast") <= 4 and reads.count("reference") >= 10, reads


def _one_word(name, data, init, monkeypatch):
    """`name` by 128 waves x 32 lanes on one word: (returned values, the word after, the
    batch sizes of the scan's semantic calls)."""
    import emu.atomic_scan as scan
    calls = []
    real = scan.Ctx
    monkeypatch.setattr(scan, "Ctx", lambda **k: calls.append(k["exec_mask"].shape[0]) or real(**k))
    mem = DeviceMemory()
    base = mem.alloc(64, "word")
    mem.write(base, np.array([init], np.uint32))
    addr = np.full(data.shape, base, np.uint64)
    sem = load_semantics("gfx1100").lookup(name)
    token = activate(FAST)
    try:
        out = sem.execute(Ctx(lanes=32, exec_mask=np.full((data.shape[0], 1), 2**32 - 1, np.uint64),
                              inputs={"ADDR": addr, "DATA": data}, mem=mem))
    finally:
        deactivate(token)
    return np.asarray(out["RETURN_DATA"]).reshape(-1), int(np.frombuffer(mem.read(base, 4), np.uint32)[0]), calls


def test_scan_runs_per_conflict_depth_not_per_lane(monkeypatch):
    """4096 lanes incrementing one counter (limit above the count): the semantic runs once per
    conflict depth, the first (lane 0, on the launch's batch) and every later one on a one-wave
    batch of its own; lane k returns init + k."""
    ret, word, calls = _one_word("GLOBAL_ATOMIC_INC_U32", np.full((128, 32), 10**6, np.uint32), 99, monkeypatch)
    assert (ret == 99 + np.arange(4096)).all() and word == 99 + 4096
    assert calls == [1] * 4095


def test_swap_scan_is_one_pass(monkeypatch):
    """4096 lanes swapping into one word: no semantic call at all; each lane gets the data of
    the lane before it (the first the old word), the word the last lane's data."""
    ret, word, calls = _one_word("GLOBAL_ATOMIC_SWAP_B32", np.arange(4096, dtype=np.uint32).reshape(128, 32), 99,
                                 monkeypatch)
    assert ret[0] == 99 and (ret[1:] == np.arange(4095)).all() and word == 4095
    assert calls == []


def test_cmpswap_scan_loops_over_successes(monkeypatch):
    """4096 lanes trying to take one lock (cmp 0, src id + 1): no semantic call; lane 0 takes it,
    every other lane sees 1. Then a CAS loop's round on a counter holding 5 (cmp 5, src 6 for
    even lanes, cmp 6, src 7 for odd ones): the exchanges chain 5 -> 6 -> 7 at lanes 0 and 1."""
    lock = (np.arange(4096, dtype=np.uint64) + np.uint64(1)).reshape(128, 32)      # cmp (bits 63:32) = 0
    ret, word, calls = _one_word("GLOBAL_ATOMIC_CMPSWAP_B32", lock, 0, monkeypatch)
    assert ret[0] == 0 and (ret[1:] == 1).all() and word == 1 and calls == []
    odd = np.arange(4096).reshape(128, 32) % 2 == 1
    cas = np.where(odd, 7 | 6 << 32, 6 | 5 << 32).astype(np.uint64)
    ret, word, calls = _one_word("GLOBAL_ATOMIC_CMPSWAP_B32", cas, 5, monkeypatch)
    assert ret[:2].tolist() == [5, 6] and (ret[2:] == 7).all() and word == 7 and calls == []


@pytest.mark.parametrize("options", [FAST, REFERENCE], ids=["fast", "reference"])
def test_scan_fault_names_the_first_faulting_lane(options):
    """A conflicting swap with lanes (1, 5) and (2, 7) past the buffer: the fault names (1, 5)
    and its address, in either mode, and memory is left as it was."""
    mem = DeviceMemory()
    base = mem.alloc(16, "words")
    mem.write(base, np.arange(4, dtype=np.uint32))
    addr = np.full((3, 32), base, np.uint64)
    addr[1, 5] = addr[2, 7] = base + 0x10000
    sem = load_semantics("gfx1100").lookup("GLOBAL_ATOMIC_SWAP_B32")
    token = activate(options)
    try:
        with pytest.raises(MemoryFault) as e:
            sem.execute(Ctx(lanes=32, exec_mask=np.full((3, 1), 2**32 - 1, np.uint64),
                            inputs={"ADDR": addr, "DATA": np.ones((3, 32), np.uint32)}, mem=mem))
    finally:
        deactivate(token)
    assert e.value.position == (1, 5) and e.value.address == base + 0x10000
    assert np.frombuffer(mem.read(base, 16), np.uint32).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("options", [FAST, REFERENCE], ids=["fast", "reference"])
def test_buffer_fault_names_the_first_in_range_lane_outside_memory(options):
    """A conflicting buffer swap: lane (0, 3) is out of range at an address outside memory
    (dropped: no fault), lanes (1, 5) and (2, 7) in range (no bound) but past the allocation:
    the fault names (1, 5) in either mode. In lane order (1, 5) comes second at its address, so
    the first lane of every other address has applied (word 0 holds lane (0, 0)'s data) and no
    later one has."""
    mem = DeviceMemory()
    base = mem.alloc(16, "words")
    mem.write(base, np.arange(4, dtype=np.uint32))
    addr = np.full((3, 32), base, np.uint64)
    addr[0, 3] = addr[1, 5] = addr[2, 7] = base + 0x10000
    limit = np.full((3, 32), base + 16, np.int64)
    limit[1, 5] = limit[2, 7] = EVERYTHING
    sem = load_semantics("gfx1100").lookup("BUFFER_ATOMIC_SWAP_B32")
    token = activate(options)
    try:
        with pytest.raises(MemoryFault) as e:
            sem.execute(Ctx(lanes=32, exec_mask=np.full((3, 1), 2**32 - 1, np.uint64),
                            inputs={"ADDR": addr, "DATA": np.ones((3, 32), np.uint32)}, mem=BufferMemory(mem, limit)))
    finally:
        deactivate(token)
    assert e.value.position == (1, 5) and e.value.address == base + 0x10000
    assert np.frombuffer(mem.read(base, 16), np.uint32).tolist() == [1, 1, 2, 3]


@pytest.mark.parametrize("off", ["", "scan_atomics"], ids=["scan", "rounds"])
def test_machine_fault_of_conflicting_cmpswap_names_wave_lane_and_address(off, monkeypatch):
    """Through the machine: lanes sharing four words, work-item 37 (wave 1, lane 5) far past
    the buffer: the report names that lane, the instruction, its address and the buffer."""
    monkeypatch.setenv("WAVESMITH_EMU_OFF", off)
    src = loads("mem") + global_id(64) + """
        v_and_b32 v3, 3, v1
        v_lshlrev_b32 v3, 2, v3
        v_cmp_eq_u32 vcc_lo, 37, v1
        v_cndmask_b32 v3, v3, 0x100000, vcc_lo
        v_mov_b32 v4, 1
        v_mov_b32 v5, 0
        global_atomic_cmpswap_b32 v6, v3, v[4:5], s[4:5] glc
        s_endpgm"""
    with pytest.raises(EmuFault) as e:
        launch(src, {"mem": np.zeros(4, np.uint32)}, block=(64, 1, 1))
    msg = str(e.value)
    assert "global_atomic_cmpswap_b32" in msg and "wave 1, lane 5 (work-item (37, 0, 0))" in msg, msg
    assert f"global address 0x" in msg and "nearest buffer" in msg, msg


@pytest.mark.parametrize("off", ["", "scan_atomics"], ids=["scan", "rounds"])
def test_machine_lock_acquired_by_one_lane_per_word(off, monkeypatch):
    """A spin-lock's first try: every lane of two waves does cmpswap(lock[i % 3], cmp 0, src
    1 + its id) with lanes >= 48 off: the first active lane of each lock in lane order takes it
    (returns 0, the lock holds its id + 1), every later one sees that value."""
    monkeypatch.setenv("WAVESMITH_EMU_OFF", off)
    src = loads("locks", "ret") + global_id(64) + """
        v_mul_hi_u32 v3, v1, 0xaaaaaaab
        v_lshrrev_b32 v3, 1, v3
        v_mul_u32_u24 v3, v3, 3
        v_sub_nc_u32 v3, v1, v3
        v_lshlrev_b32 v3, 2, v3
        v_add_nc_u32 v4, 1, v1
        v_mov_b32 v5, 0
        v_cmpx_gt_u32 48, v1
        global_atomic_cmpswap_b32 v6, v3, v[4:5], s[4:5] glc
        s_waitcnt vmcnt(0)
        global_store_b32 v2, v6, s[6:7]
        s_endpgm"""
    got, _ = launch(src, {"locks": np.zeros(3, np.uint32), "ret": np.full(64, 0xDEAD, np.uint32)}, block=(64, 1, 1))
    locks, want = [0, 0, 0], []
    for i in range(48):
        want.append(locks[i % 3])
        if locks[i % 3] == 0:
            locks[i % 3] = i + 1
    assert got["locks"].tolist() == locks == [1, 2, 3]
    assert got["ret"].tolist() == want + [0xDEAD] * 16


def _modes(off: str, monkeypatch) -> list:
    """Switch `off` (or "reference": all) off for the machine; the list the scan's results go to."""
    import emu.atomic_scan
    if off == "reference":
        monkeypatch.setenv("WAVESMITH_EMU_REFERENCE", "1")
    else:
        monkeypatch.setenv("WAVESMITH_EMU_OFF", off)
    scanned = []
    real_scan = emu.atomic_scan.scan
    monkeypatch.setattr(emu.atomic_scan, "scan", lambda *a: scanned.append(real_scan(*a)) or scanned[-1])
    return scanned


def _inc_in_lane_order(init, bins, limit, in_range):
    """buffer_atomic_inc's reference (MEM = tmp >= src ? 0 : tmp + 1, the old value returned)
    lane after lane; lanes out of range return 0 and write nothing."""
    words, ret = [int(v) for v in init], []
    for b, ok in zip(bins, in_range):
        ret.append(words[b] if ok else 0)
        if ok:
            words[b] = 0 if words[b] >= limit else words[b] + 1
    return words, ret


@pytest.mark.parametrize("arch,wave", [("gfx1100", 32), ("gfx1100", 64), ("gfx1151", 32)])
@pytest.mark.parametrize("off", ["", "buffer_atomics_in_range", "reference"])
def test_machine_buffer_inc_with_num_records_cutting_the_bins(arch, wave, off, monkeypatch):
    """64 work-items: buffer_atomic_inc_u32 glc at bin (id % 8) * 4 of a raw buffer with
    num_records 22, limit 5 (the counters wrap, so the order shows): bins 0..4 end by byte 20
    and are in range, bin 5 (bytes 20..23) is not (RDNA3 Table 46: offset + payload >
    num_records), nor 6, 7. Each mode agrees with the lane-by-lane reference."""
    from .test_emu_buffer import run as run_rdna, store_out
    scanned = _modes(off, monkeypatch)
    init = np.array([0, 1, 2, 3, 4, 5, 6, 7], np.uint32)
    body = "v_and_b32 v1, 7, v0\nv_lshlrev_b32 v1, 2, v1\nv_mov_b32 v2, 5\n" \
           "buffer_atomic_inc_u32 v2, v1, s[8:11], 0 offen glc\ns_waitcnt vmcnt(0)\n" + store_out(2)
    stored, out = run_rdna(body, init.copy(), rsrc=dict(num_records=22), wave=wave, arch=arch)
    bins = np.arange(64) % 8
    words, ret = _inc_in_lane_order(init, bins, 5, 4 * bins + 4 <= 22)
    assert stored.tolist() == words and out[:64].tolist() == ret
    assert len(scanned) == (0 if off else 1) and None not in scanned     # fast: scanned (one batch)


@pytest.mark.parametrize("off", ["", "buffer_atomics_in_range", "reference"])
def test_machine_gfx942_buffer_inc_in_range_by_first_byte(off, monkeypatch):
    """gfx942, wave64: buffer_atomic_inc sc0 (GLC) at bin (id % 8) * 4, num_records 21: CDNA3
    9.1.5.1 checks where an access starts (offset >= num_records is out), so bins 0..5 (bin 5
    at byte 20) are in range, 6 and 7 not; limit 5. Each mode agrees with the reference."""
    from .test_emu_buffer_cdna import run as run_cdna, store_result, vsharp
    scanned = _modes(off, monkeypatch)
    init = np.array([0, 1, 2, 3, 4, 5, 6, 7], np.uint32)
    body = vsharp(0, num_records=21) + """
    v_and_b32 v3, 7, v0
    v_lshlrev_b32 v3, 2, v3
    v_mov_b32 v2, 5
    buffer_atomic_inc v2, v3, s[8:11], 0 offen sc0
    s_waitcnt vmcnt(0)
""" + store_result("v2")
    got = run_cdna(body, {"a": init.copy(), "out": np.zeros(64, np.uint32)})
    bins = np.arange(64) % 8
    words, ret = _inc_in_lane_order(init, bins, 5, 4 * bins < 21)
    assert got["a"].tolist() == words and got["out"].tolist() == ret
    assert len(scanned) == (0 if off else 1) and None not in scanned


@pytest.mark.parametrize("off", ["", "scan_atomics", "reference"])
def test_machine_gfx942_ds_inc_at_an_instruction_offset(off, monkeypatch):
    """gfx942, two work-groups of 128 (two wave64 waves each): ds_inc_rtn_u32 offset:8 with limit
    5 on LDS word 2 + (id % 4) (CDNA's CalcDsAddr adds the offset to the address VGPR), the
    words first set to 0..3; the returned values and the words after, per work-group, against
    the lane-by-lane pseudocode (MEM = tmp >= src ? 0 : tmp + 1)."""
    scanned = _modes(off, monkeypatch)
    src = """
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dwordx2 s[6:7], s[0:1], 0x8
    v_and_b32 v1, 3, v0
    v_lshlrev_b32 v1, 2, v1
    s_mov_b64 s[20:21], exec
    v_cmpx_gt_u32 vcc, 4, v0
    v_lshrrev_b32 v4, 2, v1
    ds_write_b32 v1, v4 offset:8
    s_mov_b64 exec, s[20:21]
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_mov_b32 v2, 5
    ds_inc_rtn_u32 v3, v1, v2 offset:8
    s_waitcnt lgkmcnt(0)
    s_barrier
    s_lshl_b32 s22, s16, 7
    v_add_u32 v5, s22, v0
    v_lshlrev_b32 v5, 2, v5
    s_waitcnt lgkmcnt(0)
    global_store_dword v5, v3, s[4:5]
    v_cmpx_gt_u32 vcc, 4, v0
    ds_read_b32 v6, v1 offset:8
    s_lshl_b32 s23, s16, 4
    v_add_u32 v7, s23, v1
    s_waitcnt lgkmcnt(0)
    global_store_dword v7, v6, s[6:7]
    s_endpgm"""
    got, _ = launch(src, {"ret": np.zeros(256, np.uint32), "words": np.zeros(8, np.uint32)}, grid=(2, 1, 1),
                    block=(128, 1, 1), wave=64, arch="gfx942", lds=64)
    ret, words = [], []
    for group in range(2):
        w = [0, 1, 2, 3]
        for i in range(128):
            ret.append(w[i % 4])
            w[i % 4] = 0 if w[i % 4] >= 5 else w[i % 4] + 1
        words += w
    assert got["ret"].tolist() == ret and got["words"].tolist() == words
    assert len(scanned) == (0 if off else 1) and None not in scanned


# ---- every buffer atomic of a target, random data and addresses: fast mode against reference mode

def _random_buffer_atomic(arch: str, d, wave: int, seed: int, options):
    """One launch of `d` (2 work-groups of 256) on random words of a raw buffer: addresses from
    the first data dword masked to 48 words (so lanes conflict ~20 deep), a random EXEC, a
    num_records that cuts the words or not, data from the fuzzer's special values (NaN, inf,
    denormals, extreme integers). Returns (the words, every lane's data registers after)."""
    from dsl.signature import data_registers
    from isa.mnemonics import text_mnemonic
    from .emu_fuzz import special_dwords
    from .test_emu_buffer import vsharp as rdna_vsharp
    from .test_emu_buffer_cdna import RAW_WORD3
    rng = np.random.default_rng(seed)
    lanes = 512
    width = 8 if re.search(r"64|X2", d.name) else 4
    dwords = data_registers(d)
    mem = DeviceMemory()
    words = mem.alloc(48 * width, "words")
    mem.write(words, special_dwords(rng, 48 * width // 4))
    data = mem.alloc(lanes * 16, "data")
    mem.write(data, special_dwords(rng, lanes * 4))
    out = mem.alloc(lanes * 16, "out")
    records = int(rng.choice([48 * width, 37 * width - 2, 11 * width]))
    if arch == "gfx942":
        rsrc = [words & 0xFFFFFFFF, (words >> 32) & 0xFFFF, records, RAW_WORD3]
    else:
        rsrc = rdna_vsharp(words, num_records=records)
    exec_bits = [int(x) for x in rng.integers(0, 2**32, 16, dtype=np.uint64)]
    args = mem.alloc(64 + 8 * len(exec_bits), "kernarg")
    mem.write(args, np.array(rsrc + [data & 0xFFFFFFFF, data >> 32, out & 0xFFFFFFFF, out >> 32], np.uint32))
    gfx9 = arch == "gfx942"
    regs = "v10" if dwords == 1 else f"v[10:{9 + dwords}]"
    mnemonic = text_mnemonic(d.name, isa.load(arch).traits.family)
    exec_sets = "\n".join(f"s_mov_b32 exec_{half}, {exec_bits[i]:#x}" for i, half in
                          enumerate(["lo", "hi"] if wave == 64 else ["lo"]))
    src = f"""
    {'s_load_dwordx4' if gfx9 else 's_load_b128'} s[8:11], s[0:1], 0x0
    {'s_load_dwordx4' if gfx9 else 's_load_b128'} s[4:7], s[0:1], 0x10
    s_waitcnt lgkmcnt(0)
    s_lshl_b32 s20, s16, 8
    {'v_add_u32' if gfx9 else 'v_add_nc_u32'} v1, s20, v0
    v_lshlrev_b32 v1, 4, v1
    {'global_load_dwordx4' if gfx9 else 'global_load_b128'} v[10:13], v1, s[4:5]
    s_waitcnt vmcnt(0)
    v_and_b32 v2, 0x3f, v10
    v_mul_u32_u24 v2, {width}, v2
    v_min_u32 v2, {47 * width}, v2
    s_mov_b64 s[22:23], exec
    {exec_sets}
    {mnemonic} {regs}, v2, s[8:11], 0 offen {'sc0' if gfx9 else 'glc'}
    s_waitcnt vmcnt(0)
    s_mov_b64 exec, s[22:23]
    {'global_store_dwordx4' if gfx9 else 'global_store_b128'} v1, v[10:13], s[6:7]
    s_endpgm"""
    code = dsl.assemble(src, arch, wave)
    at = mem.alloc(len(code), "code")
    mem.write(at, code)
    Machine(arch, mem, options=options).run(Dispatch("random_buffer_atomic", at, grid=(2, 1, 1), block=(256, 1, 1),
                                                     wave_size=wave, vgprs=16, user_sgprs=[args & 0xFFFFFFFF, args >> 32],
                                                     user_sgpr_count=16, workgroup_id=(True, False, False)))
    return mem.read(words, 48 * width), mem.read(out, lanes * 16)


@pytest.mark.parametrize("arch,wave", [("gfx1100", 32), ("gfx1100", 64), ("gfx1151", 32), ("gfx942", 64)])
def test_every_buffer_atomic_agrees_with_reference_mode_on_random_data(arch, wave):
    """Every MUBUF atomic of the target, on random words, data, EXEC and num_records with lanes
    of two work-groups conflicting: the words and every lane's registers after are the same
    bits in fast mode (out-of-range lanes apart, the rest combined or scanned) and in
    reference mode (rounds)."""
    atomics = [d for d in isa.load(arch).instructions if d.format == "MUBUF" and "_ATOMIC_" in d.name]
    assert len(atomics) >= 25
    for i, d in enumerate(atomics):
        fast = _random_buffer_atomic(arch, d, wave, 1000 * wave + i, FAST)
        reference = _random_buffer_atomic(arch, d, wave, 1000 * wave + i, REFERENCE)
        assert fast == reference, d.name

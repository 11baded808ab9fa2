#!/usr/bin/env python3
"""Emulator speed of conflicting buffer and LDS atomics: histograms whose lanes share bins,
each launch in fast mode against the same launch with the atomics in rounds, in this process.

The shared kernel corpus has no buffer-atomic or LDS histogram, so the kernels are written here
in assembly (one per dialect), 2^14 values, one per work-item, 64 bins:

  buffer: per value v, buffer_atomic_add_u32 of 1 at bin (v & 63) and buffer_atomic_add_f32 of
          ((v >> 8) & 7) at float bin (v & 63) through a raw V# whose num_records (496 bytes)
          leaves the last four float bins out of range (their lanes read 0, write nothing);
          gfx1100 (wave32), gfx1151 (wave32), gfx942 (wave64).
  lds:    per work-group, bins in LDS zeroed, ds_add_u32 / ds_add_f32 (the float bins at DS
          offset 256: CDNA's pseudocode adds it to the address itself), a barrier, and the
          work-group's 128 bins stored to global memory; gfx1151 (wave32), gfx942 (wave64).
  flat-lds: the lds kernel with flat_atomic_add_u32 / flat_atomic_add_f32 at the bins' addresses
          in the shared aperture (each work-group's own LDS); gfx1151, gfx942.

Rows: fast (EmuOptions defaults), "no scan" (scan_atomics and buffer_atomics_in_range off:
float adds and buffers in rounds, integer sums still combined on LDS/global), and "rounds"
(every atomic fast path off); for flat-lds "flat rounds" is fast mode with flat_aperture_atomics
off (lanes in rounds by flat address: one bin's offset in every work-group is one round's word).
Each result is checked against numpy (weights are small integers, so the float sums are exact in
any order). CPU time of this process, best of
--repeat after one warm-up launch.

    python bench/bench_emu_atomics.py [--repeat 5] [--n 16384]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl  # noqa: E402
from emu.launch import Dispatch  # noqa: E402
from emu.machine import Machine  # noqa: E402
from emu.memory import DeviceMemory  # noqa: E402
from emu.options import FAST, options_from  # noqa: E402

BINS, BLOCK = 64, 256
BUFFER_RECORDS = 2 * BINS * 4 - 16          # the last four float bins out of range
NO_SCAN = options_from(off=["scan_atomics", "buffer_atomics_in_range"])
ROUNDS = options_from(off=["scan_atomics", "buffer_atomics_in_range", "combine_atomic_sums",
                           "combine_atomic_reductions", "flat_aperture_atomics"])
FLAT_ROUNDS = options_from(off=["flat_aperture_atomics"])

# kernarg: V# (4 dwords) | data address (2 dwords) | out address (2 dwords); s16 = work-group id
PROLOGUE = """
    {load4} s[8:11], s[0:1], 0x0
    {load4} s[4:7], s[0:1], 0x10
    s_waitcnt lgkmcnt(0)
    s_lshl_b32 s20, s16, 8
    {add} v1, s20, v0
    v_lshlrev_b32 v1, 2, v1
    {gload} v2, v1, s[4:5]
    s_waitcnt vmcnt(0)
    v_and_b32 v3, 63, v2
    v_lshlrev_b32 v3, 2, v3
    v_bfe_u32 v5, v2, 8, 3
    v_cvt_f32_u32 v5, v5
    v_mov_b32 v4, 1
"""
# the same prologue in each dialect's mnemonics
RDNA_PROLOGUE = PROLOGUE.format(load4="s_load_b128", add="v_add_nc_u32", gload="global_load_b32")
GFX9_PROLOGUE = PROLOGUE.format(load4="s_load_dwordx4", add="v_add_u32", gload="global_load_dword")
KERNELS = {
    ("buffer", "gfx1100"): RDNA_PROLOGUE + """
    buffer_atomic_add_u32 v4, v3, s[8:11], 0 offen
    buffer_atomic_add_f32 v5, v3, s[8:11], 0 offen offset:256
    s_endpgm""",
    ("buffer", "gfx942"): GFX9_PROLOGUE + """
    buffer_atomic_add v4, v3, s[8:11], 0 offen
    buffer_atomic_add_f32 v5, v3, s[8:11], 0 offen offset:256
    s_endpgm""",
    ("lds", "gfx1151"): RDNA_PROLOGUE + """
    v_lshlrev_b32 v6, 2, v0
    v_mov_b32 v7, 0
    s_mov_b32 s21, exec_lo
    v_cmpx_gt_u32 128, v0
    ds_store_b32 v6, v7
    s_mov_b32 exec_lo, s21
    s_waitcnt lgkmcnt(0)
    s_barrier
    ds_add_u32 v3, v4
    ds_add_f32 v3, v5 offset:256
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_cmpx_gt_u32 128, v0
    ds_load_b32 v8, v6
    s_lshl_b32 s22, s16, 9
    v_add_nc_u32 v9, s22, v6
    s_waitcnt lgkmcnt(0)
    global_store_b32 v9, v8, s[6:7]
    s_endpgm""",
    ("lds", "gfx942"): GFX9_PROLOGUE + """
    v_lshlrev_b32 v6, 2, v0
    v_mov_b32 v7, 0
    s_mov_b64 s[22:23], exec
    v_cmpx_gt_u32 vcc, 128, v0
    ds_write_b32 v6, v7
    s_mov_b64 exec, s[22:23]
    s_waitcnt lgkmcnt(0)
    s_barrier
    ds_add_u32 v3, v4
    ds_add_f32 v3, v5 offset:256
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_cmpx_gt_u32 vcc, 128, v0
    ds_read_b32 v8, v6
    s_lshl_b32 s24, s16, 9
    v_add_u32 v9, s24, v6
    s_waitcnt lgkmcnt(0)
    global_store_dword v9, v8, s[6:7]
    s_endpgm""",
}
# flat-lds: the lds kernel with its two atomics as FLAT atomics through the shared aperture
_FLAT_ATOMICS = {
    "gfx1151": """
    s_mov_b64 s[24:25], src_shared_base
    v_mov_b32 v11, s25
    v_mov_b32 v10, v3
    flat_atomic_add_u32 v[10:11], v4
    v_add_nc_u32 v10, 0x100, v3
    flat_atomic_add_f32 v[10:11], v5
    s_waitcnt vmcnt(0) lgkmcnt(0)""",
    "gfx942": """
    s_mov_b64 s[24:25], src_shared_base
    v_mov_b32 v11, s25
    v_mov_b32 v10, v3
    flat_atomic_add v[10:11], v4
    v_add_u32 v10, 0x100, v3
    flat_atomic_add_f32 v[10:11], v5
    s_waitcnt vmcnt(0) lgkmcnt(0)""",
}
for _arch, _flat in _FLAT_ATOMICS.items():
    _ds = "    ds_add_u32 v3, v4\n    ds_add_f32 v3, v5 offset:256\n    s_waitcnt lgkmcnt(0)"
    assert _ds in KERNELS["lds", _arch]
    KERNELS["flat-lds", _arch] = KERNELS["lds", _arch].replace(_ds, _flat.strip("\n"))
KERNELS[("buffer", "gfx1151")] = KERNELS[("buffer", "gfx1100")]
WAVE = {"gfx1100": 32, "gfx1151": 32, "gfx942": 64}


def vsharp(arch: str, base: int, num_records: int) -> list[int]:
    """A raw buffer resource over `base`: RDNA3 Table 47 (32_FLOAT format, identity DST_SEL,
    OOB_SELECT 3: offset + payload checked against num_records) or the GFX9 V# (CDNA3 Table 47:
    DFMT 32, NFMT float: not the unbound resource's INVALID format)."""
    word1 = (base >> 32) & 0xFFFF
    if arch == "gfx942":
        return [base & 0xFFFFFFFF, word1, num_records, (4 << 15) | (7 << 12)]
    dst_sel = 4 | 5 << 3 | 6 << 6 | 7 << 9
    return [base & 0xFFFFFFFF, word1, num_records, dst_sel | 22 << 12 | 3 << 28]


class Histogram:
    """One kernel on one target, its memory set up, ready to launch again (bins re-zeroed)."""

    def __init__(self, kind: str, arch: str, n: int, options):
        self.kind, self.arch, self.n = kind, arch, n
        self.values = np.random.default_rng(18).integers(0, 100000, n).astype(np.uint32)
        self.groups = n // BLOCK
        self.mem = DeviceMemory()
        self.data = self.mem.alloc(self.values.nbytes, "data")
        self.mem.write(self.data, self.values)
        out_words = 2 * BINS * (self.groups if kind != "buffer" else 1)
        self.out = self.mem.alloc(4 * out_words, "bins")
        self.out_words = out_words
        args = self.mem.alloc(32, "kernarg")
        self.mem.write(args, np.array(vsharp(arch, self.out, BUFFER_RECORDS)
                                      + [self.data & 0xFFFFFFFF, self.data >> 32, self.out & 0xFFFFFFFF,
                                         self.out >> 32], np.uint32))
        code = dsl.assemble(KERNELS[kind, arch], arch, WAVE[arch])
        at = self.mem.alloc(len(code), "code")
        self.mem.write(at, code)
        self.machine = Machine(arch, self.mem, options=options)
        self.dispatch = Dispatch(f"{kind}_histogram", at, grid=(self.groups, 1, 1), block=(BLOCK, 1, 1),
                                 wave_size=WAVE[arch], vgprs=16, user_sgprs=[args & 0xFFFFFFFF, args >> 32],
                                 user_sgpr_count=16, workgroup_id=(True, False, False),
                                 lds_size=2 * BINS * 4 if kind != "buffer" else 0)

    def __call__(self):
        self.mem.write(self.out, np.zeros(self.out_words, np.uint32))
        return self.machine.run(self.dispatch)

    def check(self) -> str:
        got = np.frombuffer(self.mem.read(self.out, 4 * self.out_words), np.uint32)
        weight = ((self.values >> 8) & 7).astype(np.float32)
        bins = self.values & 63
        if self.kind != "buffer":
            got = got.reshape(self.groups, 2 * BINS)
            group = np.arange(self.n) // BLOCK
            counts = np.zeros((self.groups, BINS), np.uint32)
            np.add.at(counts, (group, bins), 1)
            sums = np.zeros((self.groups, BINS), np.float32)
            np.add.at(sums, (group, bins), weight)
            want = np.concatenate([counts, sums.view(np.uint32)], axis=1)
        else:
            counts = np.bincount(bins, minlength=BINS).astype(np.uint32)
            sums = np.bincount(bins, weights=weight, minlength=BINS).astype(np.float32)
            sums[BINS - 4:] = 0                             # out of range: dropped
            want = np.concatenate([counts, sums.view(np.uint32)])
        return "matches numpy" if np.array_equal(got, want) else "MISMATCH"


def best(run, repeat: int) -> tuple[float, object]:
    stats = run()                                       # warm-up: decoding, semantics
    times = []
    for _ in range(repeat):
        t = time.process_time()
        stats = run()
        times.append(time.process_time() - t)
    return min(times), stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--n", type=int, default=16384, help="values (a multiple of 256)")
    args = ap.parse_args()
    for kind, arch in [("buffer", "gfx1100"), ("buffer", "gfx1151"), ("buffer", "gfx942"),
                       ("lds", "gfx1151"), ("lds", "gfx942"), ("flat-lds", "gfx1151"), ("flat-lds", "gfx942")]:
        rows = []
        fewer = max(1, args.repeat // 2)
        others = (("flat rounds", FLAT_ROUNDS, fewer),) if kind == "flat-lds" else (("no scan", NO_SCAN, fewer),)
        for label, options, repeat in (("fast", FAST, args.repeat),) + others + (("rounds", ROUNDS, fewer),):
            h = Histogram(kind, arch, args.n, options)
            cpu, stats = best(h, repeat)
            rows.append((label, cpu, h.check()))
        fast = rows[0][1]
        print(f"{kind} histogram ({arch}, wave{WAVE[arch]}, {args.n} values, {stats.waves} waves): "
              + "; ".join(f"{label} {cpu * 1e3:.1f} ms CPU ({cpu / fast:.1f}x fast) {check}"
                          for label, cpu, check in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Timing parameters per architecture: the one table of cycle counts the model uses.

Every figure is in shader-clock cycles between *issue* timestamps (the traces in
../shared/timing hold issue times). Where a value was measured it says where; values marked
"calibrated" are measured on run 0 of the shared gfx1100 traces (tests/test_timing_traces.py
scores them on the other runs); the rest are estimates and say so.
"""
from __future__ import annotations

from dataclasses import field, replace

from isa.records import dataclass


@dataclass(frozen=True)
class ArchTiming:
    name: str
    clock_ghz: float                 # shader clock the reports convert cycles with
    cus: int                         # compute units
    simds_per_cu: int
    waves_per_simd: int
    # --- VALU
    valu_latency: int = 5            # dependent VALU issues this long after its producer (traces: 5)
    trans_latency: int = 9           # ... after a transcendental producer (estimate; not in the traces)
    valu_occupancy: dict = field(default_factory=lambda: {
        # cycles the SIMD's VALU is busy after issuing one wave32 instruction of the class
        # (discover_ops: FP64 32-48, mostly 36; transcendental 4 between trans ops only)
        "plain": 1, "trans": 4, "int64": 2, "wide_mul": 4, "fp64": 36, "wmma": 34})
    # FP64 issued after a VALU op of another class: the SIMD's VALU is busy for a figure of its
    # opcode (discover_ops: the gap to the next instruction, the same in all 4 runs; an FP64
    # op right after another FP64 op takes `valu_occupancy['fp64']`, 36, whatever its opcode;
    # opcodes not listed: 36). No ISA fact orders them (add 32, fma 36, div_scale 44).
    fp64_first_occupancy: dict = field(default_factory=lambda: {
        "v_add_f64": 32, "v_ceil_f64": 32, "v_cvt_f32_f64": 32, "v_cvt_u32_f64": 32, "v_rcp_f64": 32,
        "v_rndne_f64": 32, "v_cvt_f64_f32": 33, "v_min_f64": 34, "v_ldexp_f64": 39, "v_div_fmas_f64": 40,
        "v_rsq_f64": 40, "v_div_scale_f64": 44, "v_floor_f64": 44, "v_trig_preop_f64": 48})
    # WMMA: issued 1 apart into the matrix core's queue; each runs 34 cycles from 7 after
    # issue; 2 more VALU ops pass, then each VALU op waits for the next WMMA to finish
    # (discover_ops: six WMMAs, then VALU ops 34 apart)
    wmma_start: int = 7
    wmma_bypass: int = 2
    wave64_passes: int = 2           # a wave64 VALU instruction issues in two passes
    valu_mask_latency: int = 1       # VALU -> VALU through VCC / an SGPR (carry chains: 1)
    memory_to_valu: int = 1          # loaded VGPR -> VALU that reads it, from the data's return (gemm: mostly 1 after the wait)
    # VALU results written to SGPRs (compare masks, carries): at most 7 in flight, each for 16
    # cycles after its passes are done (discover_ops: in runs of VOPC the 8th waits until 17
    # after the 1st, 18 when that was a two-pass 64-bit compare)
    valu_sgpr_inflight: int = 7
    valu_sgpr_cycles: int = 16
    valu_to_memory: int = 18         # a VGPR a VALU wrote, used by a memory instruction (traces: 17-18)
    valu_to_scalar: int = 18         # an SGPR/VCC/EXEC a VALU wrote, read by SALU or a branch (v_cmpx -> execz: 16-18)
    salu_writes_valu_source: int = 8  # SALU overwriting an SGPR an issued VALU still reads (gemm: 7-8)
    lds_to_valu: int = 7             # a VALU instruction issues this long after the wave's last LDS instruction
                                     # (gemm: ds_load_b128 -> s_waitcnt -> v_add 7 in every traced wave)
    vmem_to_scalar: int = 3          # SALU, s_clause, s_waitcnt, ... issue this long after the wave's last VMEM
                                     # instruction (gemm: global_load_b64 -> s_clause 3 in every traced wave;
                                     # discover_ops: a scalar load right after a global store 1)
    salu_to_smem: int = 9            # a scalar load issues this long after the wave's last SALU instruction
                                     # (gemm: s_lshl_b32 -> s_load_b64 9, 20 waves; SMEM after SMEM: 1)
    # --- SALU and control
    salu_latency: int = 1            # SALU -> SALU through SCC or VCC (discover_ops: 1, at times 2)
    salu_sgpr_latency: int = 2       # SALU -> SALU through another SGPR (gemm: 2)
    salu_to_valu_mask: int = 16      # SALU-written VCC/SGPR pair read by a VALU op as a lane mask (discover_ops: 16)
    hwreg_latency: int = 7           # s_getreg/s_setreg issue this long after the SALU queue drained (discover_ops: 15-17)
    salu_cycles: int = 2             # the SALU executes one instruction per 2 cycles ...
    salu_queue: int = 4              # ... behind a queue: after a stall ~8 issue 1 apart, then 2 apart (discover_ops)
    branch_not_taken: int = 3        # a conditional branch that falls through -> next issue (gemm: 3)
    branch_taken: int = 8            # a taken branch -> target issue, code already fetched (estimate)
    branch_refill_bytes: int = 64    # a taken branch waits until this much code past the target is fetched
    barrier_latency: int = 18        # last wave's s_barrier -> release (traces: 16-21)
    # --- memory (cold caches: every trace follows a GPU reset)
    smem_latency: int = 1322         # calibrated (score.calibrate on run 0 of the traces)
    vmem_load_latency: int = 801     # calibrated, unloaded: what is left of the traced waits after the line
                                     # pipe below (score.calibrate: 801; E_3's lone wave shows 720-785, the
                                     # matmul's 1024 waves 1440-1590 before the pipe's share is taken off)
    vmem_store_latency: int = 288    # store -> acknowledged, calibrated (traces: store -> wave end 252-344)
    # the vector L0 (one per WGP) passes one 128-byte line per cycle (128 B/clk; an estimate
    # from the RDNA L0's published width, not fitted), shared by the WGP's outstanding vector
    # memory instructions (memory.py); the latencies above are those of an idle WGP
    vmem_lines_per_cycle: float = 1.0
    cus_per_wgp: int = 2
    lds_latency: int = 33            # LDS op -> its s_waitcnt (traces: 31-38), conflict-free
    # LDS bank conflicts (lds.py): 64 dword-wide banks per WGP (manual 1.2.2.1, 12.1), a
    # half-wave served per pass, each pass beyond the conflict-free count one more cycle of
    # the CU's LDS (12.5: "one cycle for wave32 ... as many as 64 cycles")
    lds_banks: int = 64
    lds_pass_cycles: int = 1
    waitcnt_resume: int = 1          # a satisfied s_waitcnt issues this long after the data returns
    # --- instruction fetch and launch
    fetch_block: int = 128           # bytes per instruction fetch (a code line)
    fetch_latency: int = 368         # cold line, requested -> there (discover_ops: median of the stalled lines)
    fetch_window: int = 192          # a wave's fetch requests the lines up to this many bytes past its PC
                                     # (discover_ops: the stalled lines arrive 368 after the PC came within
                                     # 192 bytes, deviation 37; 256 bytes: 397, deviation 50; 128: 264, deviation 108)
    launch_latency: int = 556        # wave dispatch -> first instruction of a CU's first wave, its code
                                     # line fetched cold (calibrated; traces: 490-575, E_3 1172-1263)
    launch_setup: int = 0            # wave dispatch -> first issue when its code is already fetched (estimate:
                                     # the matmul's later waves issue as soon as the first's block is there)

    def with_(self, **changes) -> "ArchTiming":
        return replace(self, **changes)


RDNA3 = ArchTiming(name="rdna3", clock_ghz=2.5, cus=96, simds_per_cu=2, waves_per_simd=16)

# LLVM processor name -> parameters. RDNA3.5 reuses RDNA3's figures until traces of it exist.
TABLE = {
    "gfx1100": RDNA3,
    "gfx1101": RDNA3.with_(cus=60),
    "gfx1102": RDNA3.with_(cus=32),
    "gfx1103": RDNA3.with_(cus=12),
    "gfx1150": RDNA3.with_(name="rdna3.5", cus=16),
    "gfx1151": RDNA3.with_(name="rdna3.5", cus=40),
    "gfx1152": RDNA3.with_(name="rdna3.5", cus=8),
}


class TimingError(ValueError):
    """The timing model cannot run this (unknown target, bad parameters)."""


def timing_for(arch: str) -> ArchTiming:
    try:
        return TABLE[arch]
    except KeyError:
        raise TimingError(f"no timing parameters for {arch!r} (known: {', '.join(TABLE)})") from None

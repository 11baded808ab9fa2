"""`wavesmith demo`: the main job end to end — build a kernel with the DSL, write it as an HSA
code object, launch it on Device("emu"), check it against numpy, and show the machine code
and the launch statistics."""
from __future__ import annotations

import importlib
import time

import numpy as np

N = 100_000
BLOCK = 256


def build_saxpy(arch: str):
    """y[i] = a * x[i] + y[i] for i < n, written with the DSL (dsl.rdna3 / dsl.rdna3_5).
    Kernel arguments (x, y, a, n) sit at kernarg offsets 0, 8, 16, 20; the kernarg pointer
    arrives in s[0:1] and the work-group id in s2."""
    r = importlib.import_module("dsl." + dsl_family(arch).replace(".", "_"))
    s, v = r.s, r.v
    k = r.Kernel(arch, name="saxpy")
    k += r.s_load_b128(s[4:7], s[0:1], 0)                # x, y
    k += r.s_load_b64(s[8:9], s[0:1], 16)                # a, n
    k += r.s_lshl_b32(s[10], s[2], BLOCK.bit_length() - 1)
    k += r.s_waitcnt(0)
    k += r.v_add_nc_u32(v[1], s[10], v[0])               # global id
    k += r.v_cmpx_gt_u32(s[9], v[1])                     # lanes at or past n switch off
    k += r.s_cbranch_execz("done")
    k += r.v_lshlrev_b32(v[1], 2, v[1])
    k += r.global_load_b32(v[2], v[1], s[4:5])
    k += r.global_load_b32(v[3], v[1], s[6:7])
    k += r.s_waitcnt(0)
    k += r.v_fmac_f32(v[3], s[8], v[2])                  # y += a * x, rounded once
    k += r.global_store_b32(v[1], v[3], s[6:7])
    k.label("done")
    k += r.s_endpgm()
    return k


def dsl_family(arch: str) -> str:
    """The architecture family of `arch` the demo runs on: its kernel is written in the gfx11
    syntax's DSL (dsl.rdna3, dsl.rdna3_5, ...) and runs on the emulator; ValueError naming the
    targets it runs on otherwise."""
    import importlib.util

    import isa
    from emu.families import FAMILIES as EMULATED
    family = isa.resolve_arch(arch)
    ready = {f: t for f, t in isa.FAMILY_TARGETS.items()
             if f in EMULATED and isa.traits(f).dialect == "gfx11"
             and importlib.util.find_spec("dsl." + f.replace(".", "_")) is not None}
    if family not in ready:
        raise ValueError(f"the demo's kernel is written for the gfx11 syntax's DSL and the emulator, not for "
                         f"{arch} ({family}); it runs on " + "; ".join(f"{f}: {', '.join(t)}" for f, t in ready.items()))
    return family


def demo(arch: str = "gfx1100") -> int:
    import dsl
    dsl_family(arch)
    from runtime import Device
    from runtime.codeobj import KernelArg, read_code_object
    from runtime.writer import from_dsl_kernel

    print(f"wavesmith demo — DSL kernel -> code object -> Device('emu', arch='{arch}') -> numpy check\n")
    k = build_saxpy(arch)
    args = [KernelArg(0, 8, "global_buffer", "x", "global"), KernelArg(8, 8, "global_buffer", "y", "global"),
            KernelArg(16, 4, "by_value", "a"), KernelArg(20, 4, "by_value", "n")]
    hsaco = from_dsl_kernel(k, "saxpy", args, user_sgpr_kernarg_segment_ptr=1)
    info = read_code_object(hsaco).kernels["saxpy"]
    print(f"1. kernel 'saxpy' built with the DSL, written as a {len(hsaco)}-byte HSA code object "
          f"({info.wave_size}-lane waves, {info.vgpr_count} VGPRs, {info.sgpr_count} SGPRs):\n")
    print("   " + dsl.disassemble(k.assemble(), arch).replace("\n", "\n   "))

    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    a = np.float32(2.5)
    dev = Device("emu", arch=arch)
    xb, yb = dev.alloc(x.nbytes, "x").copyin(x), dev.alloc(y.nbytes, "y").copyin(y)
    prg = dev.load(hsaco)
    t = time.perf_counter()
    stats = prg.launch("saxpy", grid=(-(-N // BLOCK), 1, 1), block=(BLOCK, 1, 1), args=[xb, yb, a, np.uint32(N)])
    wall = time.perf_counter() - t
    got = yb.copyout(np.float32)
    want = (a.astype(np.float64) * x + y).astype(np.float32)        # one rounding, as the fused v_fmac
    ok = np.array_equal(got, want)
    print(f"\n2. launched on Device('emu'): grid {-(-N // BLOCK)} x block {BLOCK} over n = {N}")
    print(f"   {stats}")
    print(f"   wall time {wall * 1e3:.0f} ms")
    print(f"\n3. result vs numpy (a * x + y in float64, rounded to float32): {'identical' if ok else 'DIFFERENT'} "
          f"for all {N} elements; y[:4] = {np.array2string(got[:4], precision=4)}")
    return 0 if ok else 1

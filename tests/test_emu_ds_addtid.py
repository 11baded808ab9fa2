"""DS_STORE_ADDTID_B32 / DS_LOAD_ADDTID_B32 (CDNA: DS_WRITE_ADDTID_B32 / DS_READ_ADDTID_B32): LDS
addressed by lane ID, no ADDR VGPR. The RDNA3 ISA manual's code (section 16.15 "LDS & GDS
Instructions", opcodes 176 / 177, PDF page 542; the same code in the CDNA3 manual's section 12.12,
opcodes 29 / 182):

    MEM[32'I({ OFFSET1, OFFSET0 } + M0[15 : 0]) + laneID.i * 4].u = DATA0.u
    RETURN_DATA.u = MEM[32'I({ OFFSET1, OFFSET0 } + M0[15 : 0]) + laneID.i * 4].u

and its section 12.5 (PDF page 136): "LDS_Addr = LDS_BASE + {InstOffset1, InstOffset0} +
TID(0..63)*4 + M0 ... no part of the address comes from a VGPR. M0 must be DWORD-aligned." So each
active lane stores / loads the dword at byte offset + M0 + lane * 4 of the group's LDS. (The two
texts differ on M0's high half, M0[15:0] against M0: the code's M0[15:0] is taken, isa.errata's
*-ds-append-m0-address entries give the evidence, and runs with the high half set check it.) The
expected LDS contents and registers are that formula in numpy; the LDS is filled and read back
around it by ds_store_b32 / ds_load_b32 at lane * 4 (the ordinary VGPR address path), in the
fast and the reference modes, wave32 and wave64, partial EXEC. Then ds_append / ds_consume: their
counter at M0[15:0] + offset, on gfx1100, gfx1201 and gfx942, and LLVM's code generation that
puts it there."""
from __future__ import annotations

import numpy as np
import pytest

from emu.options import FAST, REFERENCE
from .test_emu_machine import launch

STORE_M0, STORE_OFFSET = 8, 16               # dword 6 + lane
LOAD_M0, LOAD_OFFSET = 4, 12                  # dword 4 + lane
REGIONS = 3                                  # LDS dwords 0 .. 3 * wave - 1 filled and read back

# each target's spelling of the same program: (mnemonics, exec-mask compare)
SYNTAX = {
    "gfx1100": dict(store="ds_store_b32", load="ds_load_b32", store_tid="ds_store_addtid_b32",
                    load_tid="ds_load_addtid_b32", gstore="global_store_b32", add="v_add_nc_u32",
                    cmpx="v_cmpx_ne_u32 0, v20", cmpx2="v_cmpx_ne_u32 1, v20", sload="s_load_b64"),
    "gfx942": dict(store="ds_write_b32", load="ds_read_b32", store_tid="ds_write_addtid_b32",
                   load_tid="ds_read_addtid_b32", gstore="global_store_dword", add="v_add_u32",
                   cmpx="v_cmpx_ne_u32 vcc, 0, v20", cmpx2="v_cmpx_ne_u32 vcc, 1, v20", sload="s_load_dwordx2"),
}


def program(arch: str, wave: int, m0_high: int = 0) -> str:
    """`m0_high`: M0's high half beside the offsets in its low half (not part of the address)."""
    s = SYNTAX[arch]
    exec_all = "s_mov_b32 exec_lo, -1" if wave == 32 else "s_mov_b64 exec, -1"
    fill = "\n".join(f"""
        v_mov_b32 v3, {0xA0000000 + k * wave:#x}
        {s['add']} v3, v3, v0
        {s['store']} v1, v3 offset:{k * wave * 4}""" for k in range(REGIONS))
    back = "\n".join(f"""
        {s['load']} v{10 + k}, v1 offset:{k * wave * 4}""" for k in range(REGIONS))
    outs = "\n".join(f"""
        {s['gstore']} v1, v{10 + k}, s[{6 + 2 * k}:{7 + 2 * k}]""" for k in range(REGIONS))
    # s[4+2i:5+2i] = buffer i's address (tests.test_emu_machine.loads, in the target's spelling)
    buffers = "\n".join(f"{s['sload']} s[{4 + 2 * i}:{5 + 2 * i}], s[0:1], {8 * i:#x}" for i in range(1 + REGIONS))
    return buffers + f"""
        s_waitcnt lgkmcnt(0)
        v_lshlrev_b32 v1, 2, v0                    // v1 = lane * 4
        {fill}
        s_waitcnt lgkmcnt(0)
        v_mul_u32_u24 v4, 7, v0
        {s['add']} v4, 0x5000, v4                  // data: 0x5000 + lane * 7
        v_mov_b32 v2, 0xdead
        v_cvt_f32_u32 v20, v0                      // v20 = lane % 3, then lane % 5
        v_mul_f32 v20, 0x3eaaaaab, v20
        v_floor_f32 v20, v20
        v_cvt_u32_f32 v20, v20
        v_mul_u32_u24 v20, 3, v20
        v_sub_u32 v20, v0, v20
        s_mov_b32 m0, {m0_high << 16 | STORE_M0:#x}
        {s['cmpx']}                                // lanes with lane % 3 == 0 store nothing
        {s['store_tid']} v4 offset:{STORE_OFFSET}
        s_waitcnt lgkmcnt(0)
        {exec_all}
        v_cvt_f32_u32 v20, v0
        v_mul_f32 v20, 0x3e4ccccd, v20
        v_floor_f32 v20, v20
        v_cvt_u32_f32 v20, v20
        v_mul_u32_u24 v20, 5, v20
        v_sub_u32 v20, v0, v20
        s_mov_b32 m0, {m0_high << 16 | LOAD_M0:#x}
        {s['cmpx2']}                               // lanes with lane % 5 == 1 load nothing
        {s['load_tid']} v2 offset:{LOAD_OFFSET}
        s_waitcnt lgkmcnt(0)
        {exec_all}
        {back}
        s_waitcnt lgkmcnt(0)
        {s['gstore']} v1, v2, s[4:5]
        {outs}
        s_waitcnt vmcnt(0)
        s_endpgm"""


def expected(wave: int):
    """The manual's formula in numpy: the LDS after the store, the registers the load returns."""
    lane = np.arange(wave)
    lds = (0xA0000000 + np.arange(REGIONS * wave)).astype(np.uint32)
    stores = lane % 3 != 0
    at = (STORE_OFFSET + STORE_M0 + lane * 4) // 4
    lds[at[stores]] = (0x5000 + lane * 7).astype(np.uint32)[stores]
    loads_on = lane % 5 != 1
    at = (LOAD_OFFSET + LOAD_M0 + lane * 4) // 4
    v2 = np.where(loads_on, lds[at], 0xDEAD).astype(np.uint32)
    return lds, v2


@pytest.mark.parametrize("mode", ["fast", "reference"])
@pytest.mark.parametrize("arch,wave,m0_high", [("gfx1100", 32, 0), ("gfx1100", 64, 0), ("gfx942", 64, 0),
                                              ("gfx1100", 32, 0xABCD), ("gfx942", 64, 0x0004)])
def test_ds_addtid_store_and_load_address_by_lane_id(arch, wave, m0_high, mode):
    """With M0's high half set (0x0004 would move a whole-M0 address by 256 KiB, past the LDS) the
    address is still M0[15:0]'s, as the code of every manual reads it (isa.errata's
    *-ds-append-m0-address entries weigh the section formula's whole M0 against it)."""
    bufs = {"v2": np.zeros(wave, np.uint32), **{f"lds{k}": np.zeros(wave, np.uint32) for k in range(REGIONS)}}
    out, _ = launch(program(arch, wave, m0_high), bufs, block=(wave, 1, 1), wave=wave, arch=arch,
                    lds=REGIONS * wave * 4, options=FAST if mode == "fast" else REFERENCE)
    lds, v2 = expected(wave)
    got = np.concatenate([out[f"lds{k}"] for k in range(REGIONS)])
    assert (got == lds).all(), np.flatnonzero(got != lds)
    assert (out["v2"] == v2).all(), np.flatnonzero(out["v2"] != v2)


# ds_append / ds_consume: the counter's address (isa.errata's *-ds-append-m0-address)
APPEND_SYNTAX = {
    "gfx1100": ("s_load_b64", "s_waitcnt lgkmcnt(0)", "ds_store_b32", "ds_load_b32", "global_store_b32"),
    "gfx1201": ("s_load_b64", "s_wait_kmcnt 0", "ds_store_b32", "ds_load_b32", "global_store_b32"),
    "gfx942": ("s_load_dwordx2", "s_waitcnt lgkmcnt(0)", "ds_write_b32", "ds_read_b32", "global_store_dword"),
}
APPEND_OFFSET, M0_LOW, M0_HIGH = 16, 32, 8       # counters at 16 (offset alone), 48 (M0[15:0] + offset),
CANDIDATES = (16, 48, 24)                        # 24 (M0[31:16] + offset, the GDS table's base)


def append_program(arch: str, op: str) -> str:
    sload, wait, store, load, gstore = APPEND_SYNTAX[arch]
    wait_ds = "s_wait_dscnt 0" if arch == "gfx1201" else "s_waitcnt lgkmcnt(0)"
    init = "\n".join(f"v_mov_b32 v2, {1000 * (k + 1)}\n{store} v1, v2 offset:{at}" for k, at in enumerate(CANDIDATES))
    back = "\n".join(f"{load} v{10 + k}, v1 offset:{at}" for k, at in enumerate(CANDIDATES))
    outs = "\n".join(f"{gstore} v1, v{10 + k}, s[4:5] offset:{4 + 4 * k}" for k in range(len(CANDIDATES)))
    return f"""
        {sload} s[4:5], s[0:1], 0x0
        {wait}
        v_mov_b32 v1, 0
        {init}
        {wait_ds}
        s_mov_b32 m0, {M0_HIGH << 16 | M0_LOW:#x}
        {op} v3 offset:{APPEND_OFFSET}
        {wait_ds}
        {back}
        {wait_ds}
        v_readfirstlane_b32 s8, v3
        v_mov_b32 v3, s8
        {gstore} v1, v3, s[4:5]
        {outs}
        s_endpgm"""


@pytest.mark.parametrize("mode", ["fast", "reference"])
@pytest.mark.parametrize("arch,wave", [("gfx1100", 32), ("gfx1201", 32), ("gfx942", 64)])
@pytest.mark.parametrize("op,sign", [("ds_append", 1), ("ds_consume", -1)])
def test_ds_append_counter_at_m0_low_half_plus_offset(arch, wave, op, sign, mode):
    """Three candidate counters (offset alone, as RDNA4's code and CDNA's description read; M0[15:0]
    + offset; M0[31:16] + offset, the GDS table's base): only M0[15:0] + offset changes, by the
    wave's lane count (24 of `wave` lanes run), and the lanes get its old value."""
    out, _ = launch(append_program(arch, op), {"out": np.zeros(4, np.uint32)}, block=(24, 1, 1), wave=wave,
                    arch=arch, lds=64, options=FAST if mode == "fast" else REFERENCE,
                    **({"workgroup_id_ttmps": True} if arch == "gfx1201" else {}))
    assert list(out["out"]) == [2000, 1000, (2000 + sign * 24) % 2**32, 3000]


@pytest.mark.parametrize("arch", ["gfx1100", "gfx1201", "gfx942"])
def test_llvm_puts_the_append_counter_address_in_m0(arch, tmp_path):
    """The erratum's evidence: llc-22 compiles llvm.amdgcn.ds.append on an LDS pointer p + 16 to
    m0 = p and offset:16 (the counter at M0 + offset), on each target; and the generated memory
    effects of ds_append / ds_consume read M0 in every family."""
    import re
    import subprocess
    import isa
    from isa.memory_access import memory_effects
    from .llvm_tools import tool
    for name in ("DS_APPEND", "DS_CONSUME"):
        d = isa.load(arch).lookup(name)[0]
        assert "M0" in memory_effects(d).implicit, (arch, name)
        if not arch.startswith("gfx9"):
            assert "M0[15 : 0] + offset" in d.pcode, d.pcode
    ir = tmp_path / "append.ll"
    ir.write_text("""declare i32 @llvm.amdgcn.ds.append.p3(ptr addrspace(3), i1)
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %lds) {
  %p = getelementptr i32, ptr addrspace(3) %lds, i32 4
  %r = call i32 @llvm.amdgcn.ds.append.p3(ptr addrspace(3) %p, i1 false)
  store i32 %r, ptr addrspace(1) %out
  ret void
}
""")
    asm = subprocess.run([tool("llc"), "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={arch}", str(ir), "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    moves = re.findall(r"s_mov_b32 m0, (s\d+)", asm)
    assert moves and re.search(r"ds_append v\d+ offset:16\b", asm), asm
    # the SGPR moved into m0 holds the kernel argument %lds (kernarg bytes 8..11)
    n = int(moves[0][1:])
    assert re.search(rf"s_load_(?:b32|dword) s{n}, s\[\d+:\d+\], 0x8\b", asm) or \
        re.search(rf"s_load_b96 s\[{n - 2}:{n}\], s\[\d+:\d+\], 0x0\b", asm), asm


@pytest.mark.parametrize("target", ["gfx1100", "gfx1201", "gfx942"])
def test_append_memory_effects_agree_with_the_emulator(target):
    """tests/effects_check_memory.py on ds_append / ds_consume with every register perturbed: the
    model (M0 read, the counter read and written) and the emulator agree. (Before the RDNA4
    erratum gfx1201's model did not read M0: "undeclared_input: s125->mem:lds".)"""
    from tests.effects_check import disagreements
    from tests.effects_check_memory import KNOWN, MemoryChecker
    checker = MemoryChecker(target)
    found = [d for d in checker.instructions if d.name in ("DS_APPEND", "DS_CONSUME")]
    assert len(found) == 2
    results = [checker.run(d, np.random.default_rng([0, k, 7]), None) for k, d in enumerate(found)]
    assert not any(r.skipped for r in results), [r.skipped for r in results]
    assert disagreements(results, KNOWN) == []

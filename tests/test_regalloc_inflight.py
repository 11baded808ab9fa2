"""Load results arrive late: a load's registers stay taken until a wait guarantees its data
is there (dsl/inflight.py, RDNA3 ISA 5.6: VM_CNT loads complete in issue order, so
`vmcnt(N)` covers only the loads with N or more younger ones). Run on the emulator with the
late arrival made explicit: the emulator completes memory at issue, so the test loads into
spare registers and copies the data into the load's own registers at the last moment the
hardware may write it (right before the wait that covers it), then compares with numpy."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dsl.asm import Call
from dsl.inflight import releases
from dsl.operands import OperandError
from dsl.rdna3 import *  # noqa: F403
from tests.regalloc_check import verify
from tests.test_emu_machine import launch

N = 32
SPARE = 60            # v60..v63: where the late data waits in the test's rewrite


def vmcnt(n):
    return Call("vmcnt", (n,))


def kernel_with_partly_read_load():
    """a (older) and q (younger, only q[0] read); vmcnt(1) guarantees a, not q; x is made
    between the waits while q's unread dwords may still be arriving."""
    k = Kernel("gfx1100")
    pin, pout, off = k.sreg(2, name="pin"), k.sreg(2, name="pout"), k.vreg(name="off")
    k += s_load_b64(pin, s[0:1], 0)
    k += s_load_b64(pout, s[0:1], 8)
    k += s_waitcnt(0)
    k += v_lshlrev_b32(off, 4, v[0])                 # 16 bytes of input per work-item
    a, q, x = k.vreg(name="a"), k.vreg(4, name="q"), k.vreg(name="x")
    k += global_load_b32(a, off, pin, offset=N * 16)
    k += global_load_b128(q, off, pin)
    k += s_waitcnt(vmcnt(1))                         # a is here; q may not be
    k += v_add_nc_u32(x, a, 5)
    k += s_waitcnt(vmcnt(0))
    k += global_store_b32(off, x, pout)              # off stays live: x cannot take its register
    k += global_store_b32(off, q[0], pout, offset=4)
    k += global_store_b32(off, a, pout, offset=8)
    k += s_endpgm()
    return k


def late(text: str) -> str:
    """The physical kernel with global_load_b128's data landing right before the second
    s_waitcnt (the one that covers it) instead of at issue."""
    lines, dest, waits = [], None, 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("global_load_b128"):
            mn, rest = stripped.split(None, 1)
            dest, tail = rest.split(",", 1)
            lines.append(f"{mn} v[{SPARE}:{SPARE + 3}],{tail}")
            continue
        if stripped.startswith("s_waitcnt") and dest is not None:
            waits += 1
            if waits == 2:
                lo = int(dest.strip()[2:-1].split(":")[0])
                lines.append(f"s_waitcnt vmcnt(0)")       # the emulator's copy must read arrived data
                lines += [f"v_mov_b32 v{lo + j}, v{SPARE + j}" for j in range(4)]
        lines.append(line)
    assert waits == 2
    return "\n".join(lines)


def test_partly_read_load_stays_reserved_until_the_wait_that_covers_it():
    k = kernel_with_partly_read_load()
    prog, alloc = k.program(), k.allocate()
    verify(prog, alloc)
    assert alloc.vgprs <= SPARE
    rng = np.random.default_rng(3)
    data = rng.integers(0, 1 << 20, 8 * N, dtype=np.uint32)
    out, _ = launch(late(str(k.physical())), {"in": data, "out": np.zeros(4 * N, np.uint32)},
                    block=(N, 1, 1), vgprs=64)
    tid = np.arange(N)
    a = data[4 * N + 4 * tid]                       # byte offset 16 * tid + 16 * N
    np.testing.assert_array_equal(out["out"].reshape(N, 4)[:, :3].T, [a + 5, data[4 * tid], a])

    # x must not sit on any of q's registers (it is written while q's data may arrive)
    x_at = next(i for i, ins in enumerate(prog.instrs) if ins.text.startswith("v_add_nc_u32"))
    load_at = next(i for i, ins in enumerate(prog.instrs) if ins.text.startswith("global_load_b128"))
    q_regs = set(range(alloc.physical(prog.instrs[load_at].defs[0], load_at),
                       alloc.physical(prog.instrs[load_at].defs[0], load_at) + 4))
    assert alloc.physical(prog.instrs[x_at].defs[0], x_at) not in q_regs


def test_releases_follow_the_counter_order():
    """Where each load's registers are released: the kernarg pointers (SMEM, any order) at
    lgkmcnt(0), a at vmcnt(1), q only at vmcnt(0)."""
    k = kernel_with_partly_read_load()
    prog = k.program()
    rel = releases(k, prog)
    text = {i: prog.instrs[i].text for i in rel}
    names = {i: {prog.virtuals[r.reg].name for r in refs if r.virtual} for i, refs in rel.items()}
    waits = [i for i in sorted(rel) if text[i].startswith("s_waitcnt")]
    assert [names[i] for i in waits] == [{"pin", "pout"}, {"a"}, {"q"}]


def released_names(k):
    prog = k.program()
    return {prog.instrs[i].text.split()[0]: {prog.virtuals[r.reg].name for r in refs if r.virtual}
            for i, refs in releases(k, prog).items()}


def test_a_path_around_the_wait_keeps_the_load_pending():
    """The wait on one path does not cover the load on the other: released there and, for
    the path around it, only at the end (so q's registers stay taken after the join)."""
    k = Kernel("gfx1100")
    q = k.vreg(4, name="q")
    k += global_load_b128(q, v[0], s[0:1])
    k += s_cmp_eq_u32(s[4], 0)
    k += s_cbranch_scc1("skip")
    k += s_waitcnt(vmcnt(0))
    k.label("skip")
    k += global_store_b32(v[0], v[1], s[0:1])
    k += s_endpgm()
    assert released_names(k) == {"s_waitcnt": {"q"}, "s_endpgm": {"q"}}


def test_waits_that_do_not_cover():
    """lgkmcnt does not cover a VM load; vmcnt(1) does not cover the youngest load; a DS load
    is covered by lgkmcnt(N) once N DS ops follow it, an SMEM load only by lgkmcnt(0). (A count
    from an SGPR is refused by the encoder, as by LLVM's assembler: isa.errata.NULL_ONLY_SDST.)"""
    k = Kernel("gfx1100")
    q, d, m = k.vreg(name="q"), k.vreg(name="d"), k.sreg(name="m")
    k += global_load_b32(q, v[0], s[0:1])
    k += s_load_b32(m, s[0:1], 0)
    k += ds_load_b32(d, v[0])
    k += ds_store_b32(v[0], v[1])
    k += s_waitcnt(Call("lgkmcnt", (1,)))            # d: one DS op after it -> covered; m: not
    with pytest.raises(OperandError, match="sdst: must be null"):
        k += s_waitcnt_vmcnt(s[10], 0)
    k += s_waitcnt(vmcnt(1))                         # q is the youngest VM load: not covered
    k += s_waitcnt_lgkmcnt(null, 0)                  # m
    k += s_waitcnt_vmcnt(null, 0)                    # q
    k += s_endpgm()
    prog = k.program()
    rel = {i: {prog.virtuals[r.reg].name for r in refs if r.virtual} for i, refs in releases(k, prog).items()}
    assert rel == {4: {"d"}, 6: {"m"}, 7: {"q"}}


def test_wait_counts_of_the_split_waits():
    """s_waitcnt_vmcnt null, N waits for N (the count is SIMM16 when SDST is null, manual
    SOPK); with an SGPR the count is a run-time value, so nothing is known to be waited for."""
    import isa
    from dsl.inflight import wait_counts
    spec = isa.load("gfx1100")
    k = Kernel("gfx1100")
    k += s_waitcnt_vmcnt(null, 3)
    k += s_waitcnt_lgkmcnt(null, 0)
    # the SGPR form is decoded code only (the encoder refuses it): SDST (bits 22:16) = s5
    word = int.from_bytes(k.items[1].data, "little") & ~(0x7F << 16) | 5 << 16
    from_sgpr = SimpleNamespace(record=k.items[1].record, data=word.to_bytes(4, "little"))
    assert [wait_counts(inst, spec) for inst in (*k.items, from_sgpr)] == [{"VM": 3}, {"LGKM": 0}, {}]

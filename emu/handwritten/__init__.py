"""The only hand-written semantics: instructions whose manual entry has no usable pseudocode.

Everything else is generated from the PDF (emu/pcode). Entries here are either control
events the machine acts on (no data effect: s_endpgm, s_barrier, waits, hints), MODE
writers, or data-parallel operations the manual describes in prose, C or matrix notation
(`lanes.py`: ds_bpermute/permute/swizzle; `wmma.py`: WMMA).
"""
from __future__ import annotations

import numpy as np

from ..semantics import Operand, Semantic
from . import lanes, wmma

# instruction -> control event for the machine; the semantic itself writes nothing
CONTROL = {
    "S_ENDPGM": "end", "S_ENDPGM_SAVED": "end", "S_CODE_END": "end",
    "S_BARRIER": "barrier",
    "S_WAITCNT": "wait", "S_WAITCNT_VSCNT": "wait", "S_WAITCNT_VMCNT": "wait", "S_WAITCNT_EXPCNT": "wait",
    "S_WAITCNT_LGKMCNT": "wait", "S_WAITCNT_DEPCTR": "wait", "S_WAIT_IDLE": "wait", "S_WAIT_EVENT": "wait",
    "S_SLEEP": "sleep", "S_WAKEUP": "wakeup",
    "S_ENDPGM_ORDERED_PS_DONE": "end", "S_SETHALT": "halt", "S_TRAP": "trap",
    "S_SENDMSG": "message", "S_SENDMSGHALT": "message",
    "S_SETKILL": "nop",             # pixel-shader kill mask: no effect on compute waves
    # scheduling and cache hints: no architectural effect in an emulator that executes in order
    "S_NOP": "nop", "S_CLAUSE": "nop", "S_DELAY_ALU": "nop", "S_SET_INST_PREFETCH_DISTANCE": "nop",
    "S_SETPRIO": "nop", "S_INCPERFLEVEL": "nop", "S_DECPERFLEVEL": "nop", "S_ICACHE_INV": "nop",
    "S_TTRACEDATA": "nop", "S_TTRACEDATA_IMM": "nop", "S_DCACHE_INV": "nop", "S_GL1_INV": "nop",
    "BUFFER_GL0_INV": "nop", "BUFFER_GL1_INV": "nop", "V_NOP": "nop", "V_PIPEFLUSH": "nop",
}


def _nothing(ctx):
    return {}


def _set_mode_field(lo: int, width: int):
    """s_round_mode / s_denorm_mode: SIMM16[width-1:0] replaces MODE[lo+width-1:lo]
    (FP_ROUND is MODE[3:0], FP_DENORM MODE[7:4]; isa tables 'mode')."""
    mask = ((1 << width) - 1) << lo

    def fn(ctx):
        simm = int(ctx.get("SIMM16")) & ((1 << width) - 1)
        mode = np.asarray(ctx.mode, np.uint64).reshape(-1, 1)
        return {"MODE": (mode & np.uint64(~mask & 0xFFFFFFFF)) | np.uint64(simm << lo)}
    return fn


MODE_WRITERS = {"S_ROUND_MODE": _set_mode_field(0, 4), "S_DENORM_MODE": _set_mode_field(4, 4)}


def _op(name: str, bits: int = 32, ty: str = "b32") -> Operand:
    return Operand(name, bits, ty)


# data-parallel hand-written semantics: name -> (function, reads, writes, what it does)
_ADDR, _DATA, _RET = _op("ADDR", 64, "u64"), _op("DATA"), _op("RETURN_DATA")
DATA_PARALLEL = {
    "DS_BPERMUTE_B32": (lanes.ds_bpermute, (_ADDR, _DATA), (_RET,), "lane i <- DATA[lane (ADDR/4) % 32 of its half]"),
    "DS_PERMUTE_B32": (lanes.ds_permute, (_ADDR, _DATA), (_RET,), "DATA -> lane (ADDR/4) % 32 of its half"),
    "DS_SWIZZLE_B32": (lanes.ds_swizzle, (_op("OFFSET", 16, "u16"), _DATA), (_RET,),
                       "lane i <- DATA[swizzle pattern of OFFSET]"),
}


def semantic(name: str, scalar: bool) -> Semantic | None:
    if name in wmma.VARIANTS:
        reads, writes = wmma.operands(name)
        return Semantic(name, lambda ctx: wmma.execute(name, ctx), "hand-written", reads, writes,
                        cross_lane=False, source="D = A x B + C, 16x16 matrices across the wave "
                        "(manual 7.9; OPSEL/NEG bits raw, see emu/handwritten/wmma.py)")
    if name in DATA_PARALLEL:
        fn, reads, writes, what = DATA_PARALLEL[name]
        return Semantic(name, fn, "hand-written", {o.name: o for o in reads}, {o.name: o for o in writes},
                        scalar=scalar, source=what)
    if name in MODE_WRITERS:
        return Semantic(name, MODE_WRITERS[name], "hand-written", reads={"SIMM16": Operand("SIMM16", 16, "u16")},
                        writes={"MODE": Operand("MODE", 32, "u32")}, scalar=True,
                        source="MODE field <- SIMM16 (the manual describes it in prose)")
    if name in CONTROL:
        return Semantic(name, _nothing, "hand-written", scalar=scalar, control=CONTROL[name],
                        source=f"machine event: {CONTROL[name]}")
    return None

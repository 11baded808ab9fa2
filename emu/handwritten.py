"""The only hand-written semantics: instructions whose manual entry has no usable pseudocode.

Everything else is generated from the PDF (emu/pcode). Entries here are either control
events the machine acts on (no data effect: s_endpgm, s_barrier, waits, hints) or
data-parallel operations the manual describes in prose or matrix notation (WMMA, ds_swizzle).
"""
from __future__ import annotations

from .semantics import Semantic

# instruction -> control event for the machine; the semantic itself writes nothing
CONTROL = {
    "S_ENDPGM": "end", "S_ENDPGM_SAVED": "end", "S_CODE_END": "end",
    "S_BARRIER": "barrier",
    "S_WAITCNT": "wait", "S_WAITCNT_VSCNT": "wait", "S_WAITCNT_VMCNT": "wait", "S_WAITCNT_EXPCNT": "wait",
    "S_WAITCNT_LGKMCNT": "wait", "S_WAITCNT_DEPCTR": "wait", "S_WAIT_IDLE": "wait", "S_WAIT_EVENT": "wait",
    "S_SLEEP": "sleep",
    # scheduling and cache hints: no architectural effect in an emulator that executes in order
    "S_NOP": "nop", "S_CLAUSE": "nop", "S_DELAY_ALU": "nop", "S_SET_INST_PREFETCH_DISTANCE": "nop",
    "S_SETPRIO": "nop", "S_INCPERFLEVEL": "nop", "S_DECPERFLEVEL": "nop", "S_ICACHE_INV": "nop",
    "S_TTRACEDATA": "nop", "S_TTRACEDATA_IMM": "nop", "S_DCACHE_INV": "nop", "S_GL1_INV": "nop",
    "BUFFER_GL0_INV": "nop", "BUFFER_GL1_INV": "nop", "V_NOP": "nop", "V_PIPEFLUSH": "nop",
}


def _nothing(ctx):
    return {}


def semantic(name: str, scalar: bool) -> Semantic | None:
    if name in CONTROL:
        return Semantic(name, _nothing, "hand-written", scalar=scalar, control=CONTROL[name],
                        source=f"machine event: {CONTROL[name]}")
    return None

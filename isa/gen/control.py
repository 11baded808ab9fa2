"""The generator's reading of what an instruction does to the wave's flow rather than to data: ending the wave, waiting on
counters, idling, hinting the scheduler. Read from the manual's pseudocode and descriptions,
the same on every family.

    from isa.gen.control import read_control
    c = read_control(d, spec.tables)  # d: an isa InstrDef (isa.control.control answers from the tables)
    c.ends_wave, c.waits, ...     # the facts isa/control.py's docstring lists

Where each comes from:
- waits: RDNA3's SOPK waits in code (`vmcnt <= S0.u[5:0] + S1.u[5:0]`: a comparison statement
  of a counter with a bit range of S0 plus S1, read from the syntax tree of the one grammar,
  isa/pcode/pcode.lark, as gen/effects.py reads it); RDNA4's in the
  description ("Wait until LOADCNT is less than or equal to SIMM16[13:8] and DSCNT is less than
  or equal to SIMM16[5:0]"); a wait on "the counts of outstanding ..." in several fields takes
  the manual's s_waitcnt table (`tables["waitcnt"]`: VM, LGKM, EXP and CDNA's VM_HI). Counter
  names are the manual's without CNT (VM, VS, LGKM, EXP; LOAD, STORE, DS, KM, SAMPLE, BVH).
- wait_all: the description waits for "all ... counters at zero" or is "Equivalent to S_WAIT_IDLE".
- ends_wave: the description "End of program; ... terminate wavefront".
- nop_bits: the pseudocode is one loop from 0 to a SIMM16 bit range (`for i in 0U :
  SIMM16.u16[3 : 0].u32 do nop() endfor`) whose body is only `nop()` (the syntax tree too).
- message_reply: "SSRC[7:0] contains the message type encoded in the instruction directly ...
  the result is written to SDST" (the description; there is no code); reply_dwords: two where
  a 32-bit reply "fills the upper bits of SDST with zero" (S_SENDMSG_RTN_B64), else one ("only
  the lower 32 bits are written to SDST").
- delay / clause / barrier: the description's first sentence ("Insert delay between dependent
  SALU/VALU instructions", "Mark the beginning of a clause", "Synchronize waves within a
  threadgroup", "Wait for a barrier to complete").
- barrier_in_simm16: the description "The SIMM16 argument specifies which barrier" (RDNA4's
  s_barrier_wait names its barrier in SIMM16; s_barrier waits on the work-group's).
CDNA's S_ENDPGM_ORDERED_PS_DONE, which its manuals omit, gets RDNA3's description from an
erratum (isa/errata.py), so it ends the wave like the others."""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Tree

from ..fact_types import Control
from .effects import access, name_of, number, tree

_UNTIL_WAIT = re.compile(r"\b([A-Z]+)CNT is less than or equal to SIMM16\[(\d+):(\d+)\]")
_TABLE_WAIT = re.compile(r"^Wait for the counts of outstanding .* at or below the specified levels\b")
_WAIT_ALL = re.compile(r"^Wait for all activity .*counters at zero|^Equivalent to S_WAIT_IDLE\b")
_ENDS = re.compile(r"^End of program;.*\bterminate wavefront\b")
_DELAY = re.compile(r"^Insert delay between dependent\b")
_CLAUSE = re.compile(r"^Mark the beginning of a clause\b")
_MESSAGE_REPLY = re.compile(r"^Send a message\b.*\bSSRC\[7:0\] contains the message type encoded in the "
                            r"instruction directly\b.*\bresult is written to SDST\b")
_UPPER_BITS_ZEROED = re.compile(r"\bfills the upper bits of SDST with zero\b")
_BARRIER_IN_SIMM16 = re.compile(r"\bThe SIMM16 argument specifies which barrier\b")
_BARRIER = re.compile(r"^Synchronize waves within a threadgroup\b|^Wait for a barrier to complete\b")


def _is(node, kind: str) -> bool:
    return isinstance(node, Tree) and node.data == kind


def _statements(root) -> list:
    """The top-level statements of a parsed block (none for a block the grammar does not parse)."""
    return [s for s in root.children[0].children if isinstance(s, Tree)] if root is not None else []


def _bit_range(node, register: str) -> tuple[int, int] | None:
    """(hi, lo) of `register.T[hi : lo]` (a type after the range allowed: `SIMM16.u16[3 : 0].u32`)."""
    base, ops = access(node)
    ranges = [op for op in ops if op.data == "slice"]
    if name_of(base) != register or len(ranges) != 1 or any(op.data not in ("field", "slice") for op in ops):
        return None
    hi, lo = number(ranges[0].children[1]), number(ranges[0].children[2])
    return (hi, lo) if hi is not None and lo is not None else None


def _binop(node, op: str) -> tuple | None:
    """(left, right) of `left op right`."""
    if _is(node, "binop") and len(node.children) == 3 and str(node.children[1]) == op:
        return node.children[0], node.children[2]
    return None


@lru_cache(maxsize=None)
def sopk_waits(pcode: str | None) -> tuple:
    """((counter, hi, lo), ...) of the code's statements `vmcnt <= S0.u[5:0] + S1.u[5:0]`: a
    counter (a name ending in cnt, the manual's without CNT, upper case) compared with a bit
    range of S0 plus S1 (RDNA3's SOPK s_waitcnt_*: the count is SIMM16 plus an SGPR)."""
    out = []
    for s in _statements(tree(pcode) if pcode else None):
        compare = _binop(s.children[0], "<=") if s.data == "expr_stmt" else None
        counter = name_of(compare[0]) if compare else None
        total = _binop(compare[1], "+") if compare else None
        if not counter or not counter.endswith("cnt") or total is None:
            continue
        bits = _bit_range(total[0], "S0")
        if bits is not None and name_of(access(total[1])[0]) == "S1":
            out.append((counter[:-3].upper(), *bits))
    return tuple(out)


@lru_cache(maxsize=None)
def nop_bits(pcode: str | None) -> tuple[int, int] | None:
    """(hi, lo) where the whole code is `for i in 0U : SIMM16.T[hi : lo].T do nop() endfor`."""
    body = _statements(tree(pcode) if pcode else None)
    if len(body) != 1 or not _is(body[0], "for_"):
        return None
    _, start, end, block = body[0].children
    inner = [s for s in block.children if isinstance(s, Tree)]
    if not _is(start, "number") or str(start.children[0]).rstrip("U") != "0" or len(inner) != 1:
        return None
    call = inner[0].children[0] if _is(inner[0], "expr_stmt") else None
    if not _is(call, "call") or [str(c) for c in call.children] != ["nop"]:
        return None
    return _bit_range(end, "SIMM16")


@lru_cache(maxsize=None)
def message_reply(description: str | None) -> bool:
    """The description says the instruction sends a message whose type is the SSRC0 field's code
    itself ("SSRC[7:0] contains the message type encoded in the instruction directly") and writes
    the reply to SDST: s_sendmsg_rtn_b32/b64. That field's code is a number, never an operand."""
    return bool(_MESSAGE_REPLY.search(description or ""))


def read_control(d, tables: dict | None) -> Control:
    """The flow facts of `d`, read from its manual entry; `tables`: its spec's tables."""
    desc, pcode = d.description or "", d.pcode or ""
    sopk = sopk_waits(pcode)
    waits = sopk or \
        tuple((c, int(hi), int(lo)) for c, hi, lo in _UNTIL_WAIT.findall(desc))
    table = not waits and bool(_TABLE_WAIT.search(desc))
    if table:
        waits = tuple((tables or {}).get("waitcnt", ()))
    nop = nop_bits(pcode)
    return Control(ends_wave=bool(_ENDS.search(desc)), waits=waits, wait_all=bool(_WAIT_ALL.search(desc)),
                   count_sgpr=bool(sopk), all_ones_skips=table and bool(waits), nop_bits=nop,
                   delay=bool(_DELAY.search(desc)), clause=bool(_CLAUSE.search(desc)),
                   barrier=bool(_BARRIER.search(desc)),
                   barrier_in_simm16=bool(_BARRIER_IN_SIMM16.search(desc)), message_reply=message_reply(desc),
                   reply_dwords=(2 if _UPPER_BITS_ZEROED.search(desc) else 1) if message_reply(desc) else 0)


def waits_from_table(d) -> bool:
    """`d` waits on the counts of the manual's s_waitcnt table (its description names no fields of
    its own): the counters come from the family's tables["waitcnt"]."""
    return not read_control(d, None).waits and bool(_TABLE_WAIT.search(d.description or ""))

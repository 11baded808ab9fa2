"""What an instruction does to the wave's flow rather than to data: ending the wave, waiting on
counters, idling, hinting the scheduler. The generator reads each instruction's pseudocode and
description once (isa/gen/control.py tells how) and writes the answers to
isa/generated/<family>/control.py; `control` answers from there.

    from isa.control import control
    c = control(d, spec.tables)       # d: an isa InstrDef
    c.ends_wave     # s_endpgm*: "End of program; ... terminate wavefront"
    c.waits         # (('LOAD', 13, 8), ('DS', 5, 0)): counters and the SIMM16 bits holding each count
    c.wait_all      # s_wait_idle (and RDNA4's s_waitcnt, "Equivalent to S_WAIT_IDLE"): every counter to 0
    c.count_sgpr    # RDNA3's s_waitcnt_vmcnt ...: the count is SIMM16 plus an SGPR (S0 + S1)
    c.all_ones_skips  # s_waitcnt (the table's layout): a field of all ones does not wait
    c.nop_bits      # s_nop: (3, 0), the SIMM16 bits counting its idle states
    c.delay, c.clause, c.barrier   # s_delay_alu, s_clause, s_barrier (and RDNA4's s_barrier_wait)
    c.message_reply # s_sendmsg_rtn_*: SSRC0 is the message type, the reply lands in SDST
    c.reply_dwords  # ... in this many SGPRs: 2 for s_sendmsg_rtn_b64, 1 for _b32

A wait on "the counts of outstanding ..." in several fields (s_waitcnt) takes its counters from
the `tables` given (the manual's s_waitcnt table, `tables["waitcnt"]`), so the table records
only that it does. A copy of an InstrDef is answered as the instruction it copies, code no loaded
family has is refused (FactsError; the rule for every generated fact: isa/fact_tables.py)."""
from __future__ import annotations

from .fact_tables import FactsError, locate, table  # noqa: F401  (FactsError: what the readers raise)
from .fact_types import Control



_FIELDS = tuple(Control.__dataclass_fields__)
_NOTHING = Control()


def stored(c: Control, from_table: bool) -> tuple | None:
    """A Control read without tables, and whether its waits are the s_waitcnt table's, as the
    generated table holds it (None: nothing to say)."""
    if c == _NOTHING and not from_table:
        return None
    return tuple(getattr(c, f) for f in _FIELDS) + (from_table,)


def _read(d, tables: dict | None) -> Control:
    at = locate(d)                      # a copy (same code and description): the instruction it copies
    if at is None:                      # an entry without code that no family holds
        return _NOTHING
    family, i = at
    row = table(family, "control").CONTROL.get(i)
    if row is None:
        return _NOTHING
    *fields, from_table = row
    if not from_table:
        return Control(*fields)
    waits = tuple((tables or {}).get("waitcnt", ()))     # a field of all ones does not wait
    return Control(**{**dict(zip(_FIELDS, fields)), "waits": waits, "all_ones_skips": bool(waits)})


_KNOWN: dict = {}      # (InstrDef, id(tables)) -> (tables, Control): read once per definition


def control(d, tables: dict | None = None) -> Control:
    """The flow facts of `d` (an isa InstrDef); `tables`: its spec's tables (the s_waitcnt layout).
    Remembered per definition and tables object: the compiler asks for every instruction it
    places, several times per kernel."""
    key = (d, id(tables))
    known = _KNOWN.get(key)
    if known is not None and known[0] is tables:
        return known[1]
    c = _read(d, tables)
    _KNOWN[key] = (tables, c)
    return c

"""CDNA (gfx942, gfx950) memory instructions' flag modifiers as LLVM 22's assembler reads them:
the order its matcher takes them in (the cache-policy flags sc0 nt sc1, SMEM's glc, in any order
among themselves, the rest in LLVM's printed order), the negated flags it takes (`nosc0`, `nont`,
`nogds`, SMEM's `noglc`: the flag absent; dsl/negated_flags.py's table), and `gds`, which CDNA
takes on the wave-sync instructions only (isa.memory_access.gds_only). Measured with LLVM 22
by tests/test_dsl_asm_memflags.py (tests/memflag_cases.py's "cdna" cases)."""
from __future__ import annotations

from isa.memory_access import gds_only

from . import negated_flags
from .operands import OperandError

_CPOL = ("sc0", "sc1", "nt", "glc")


def _ranks(*groups: str) -> dict:
    """{modifier: rank} from the groups in LLVM's order; "cpol" stands for the cache-policy flags."""
    return {m: i for i, g in enumerate(groups) for m in (_CPOL if g == "cpol" else g.split())}


_FLAT = _ranks("offset", "cpol")
ORDER = {"FLAT": _FLAT, "GLOBAL": _FLAT, "SCRATCH": _FLAT,
         "MUBUF": _ranks("idxen", "offen", "offset", "cpol", "lds"),
         "MTBUF": _ranks("format", "idxen", "offen", "offset", "cpol"),
         "DS": _ranks("offset offset0", "offset1", "gds"),
         "SMEM": _ranks("offset", "cpol")}


def memory_flags(d, family: str, mods: dict, error=OperandError) -> dict:
    """`mods` of the memory instruction `d` without its negated flags, after the checks LLVM's
    assembler makes; raises `error` (message, modifier=the flag refused) otherwise."""
    name, fmt = d.name.lower(), d.format
    if fmt == "DS" and "nogds" in mods and gds_only(d):
        raise error(f"{name}: nogds is not allowed: the instruction works on the global wave sync only",
                    modifier="nogds")
    try:
        kept = negated_flags.take_negated(name, family, fmt, mods)
    except OperandError as e:
        raise error(str(e), modifier=e.modifier) from None
    order, last, last_key = ORDER.get(fmt, {}), None, None
    for key in mods:
        rank = order.get(negated_flags.positive(key, family, fmt) or key)
        if rank is None:
            continue
        if last is not None and rank < last:
            raise error(f"{name}: {key}: comes before {last_key} in LLVM's syntax", modifier=key)
        last, last_key = rank, key
    if fmt == "DS" and "gds" in kept and not gds_only(d):
        raise error(f"{name}: gds modifier is not supported on this GPU (CDNA has no global data share; "
                    f"gds is written on the wave-sync instructions, ds_gws_*, only)", modifier="gds")
    return kept

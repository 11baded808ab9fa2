"""Which sources of an instruction must be registers, from its pseudocode: worked out once by the
generator (isa/gen/facts.py) and read through isa.facts.source_limits.

- a source whose register number the code reads, `addr = SRC0.u32`, `VGPR[lane][SRC0.u32]`
  (isa.code_facts.register_number_sources: s_movrels*, v_movrels*, v_readlane; not this lane's
  own `VGPR[laneId][SRC0.u32]`, a value): a register, the number of which is the operand; not a
  field whose bits the code takes (`M0[15 : 12] = SRC1.u32[3 : 0]`, "the direct content of raw
  S1 field": s_set_gpr_idx_on's mode). Where the code also reads that code as a signed number
  (RDNA4's barrier ids: `IsM0(SRC0.u32) ? M0[4 : 0] : SRC0.i32`) the operand is the inline
  constant the code stands for or M0: ('Sn', 'inline'), no literal (the manual, RDNA4 section
  5.6.2, page 58: "Barrier instructions can use M0 or an inline constant to refer to the barrier
  number");
- a source the code jumps to, `PC = S0.i64` outside any condition with no return address
  (s_setpc_b64, s_rfe_b64; isa.effects' jump and pc_sources): the 64-bit address a register pair
  holds. Not s_swappc_b64's, which the code copies to a local first (`jump_addr = S0.i64`), nor
  CDNA's s_cbranch_g_fork's, a conditional `PC = 64'I(S1.u64)`.

The others are ('Sn', 'register'): no constant, literal or memory aperture. Where LLVM's syntax limits a
source otherwise, a `source_limits` erratum (isa/errata.py) gives its limits: 'register', or
'inline' (a register or an inline constant, no literal)."""
from __future__ import annotations

from ..code_facts import register_number_sources
from .effects import effects


def source_limits(pcode: str | None, description: str | None = None) -> tuple[tuple[str, str], ...]:
    """(('S0', 'register'), ...) of the sources the code reads as a register, by number or as a
    jump's address, or as an inline constant's code ('inline')."""
    if not pcode:
        return ()
    fx = effects(pcode)
    sliced = {name for name, _, hi, _ in fx.uses if hi is not None}
    numbered = {n for n in register_number_sources(pcode) if f"SRC{n}" not in sliced}
    found = {f"S{n}": "inline" if (f"SRC{n}", "i32") in fx.field_types else "register" for n in numbered}
    if fx.jump:
        found |= {s: "register" for s in fx.pc_sources if s.startswith("S")}
    return tuple(sorted(found.items()))

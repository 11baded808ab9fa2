"""S_SETREG_B32 / S_SETREG_IMM32_B32: write a bit field of a hardware register.

SIMM16 = hwreg(id, offset, size): ID = SIMM16[5:0], OFFSET = SIMM16[10:6], SIZE - 1 =
SIMM16[15:11]; the instruction writes "some or all of the LSBs of the source" into bits
[offset + size - 1 : offset] of register ID and leaves every other bit as it was (the
description in the manual's SOPK chapter). The pseudocode beside it builds
`mask = (1 << size) - 1` without shifting it by the offset, which would clear the field
for any offset > 0 and keep bits the description says change; the description wins here.

Writable bits (the pseudocode's writeableBitMask(id, priv)) come from `isa`'s tables: MODE's
defined fields (table `mode`) and who may write each register (table `hwreg_writable`, which the
generator reads from the manual's register table: RDNA3's "read / write" and "write-only", CDNA's
"R/W.", RDNA4's Writable? "Yes": all bits; "only writable when priv=1", "writable only while in
trap handler", RDNA4's "PRIV": all bits in a privileged wave, none otherwise; a write-only
register is accepted with no modelled effect); read-only registers keep their value. An ID the table does
not list is an error naming it. MODE writes take effect from the next instruction
(the machine keeps MODE in the wave state: denormal flushing, IEEE).
"""
from __future__ import annotations

import numpy as np

from ..semantics import SemanticsError

PRIV_BIT = 5                 # STATUS.PRIV (isa table `status`)


def writeable_masks(spec) -> dict[int, tuple[int, int]]:
    """hwreg id -> (mask when not privileged, mask when privileged), from who may write each
    register (the generated tables["hwreg_writable"]: 'yes', 'priv' or 'no', read from the
    manual's register table) and MODE's defined fields (tables["mode"])."""
    mode_bits = 0
    for _, hi, lo, _ in spec.tables["mode"]:
        mode_bits |= ((1 << (hi - lo + 1)) - 1) << lo
    names = {reg: name for reg, name, _ in spec.tables["hwreg"]}
    out = {}
    for reg, who in spec.tables["hwreg_writable"]:
        full = mode_bits if names[reg] == "MODE" else 0xFFFFFFFF
        out[reg] = {"yes": (full, full), "priv": (0, full), "no": (0, 0)}[who]
    return out


def source(name: str, spec) -> str:
    """What s_setreg writes: the 32-bit literal (SIMM32) where its pseudocode reads one
    (s_setreg_imm32_b32; isa.effects' literal, kept on disk by emu.facts), else S0."""
    from ..facts import reads_literal
    return "SIMM32" if any(reads_literal(d) for d in spec.lookup(name)) else "S0"


def setreg(name: str, spec):
    masks = writeable_masks(spec)
    source_name = source(name, spec)

    def run(ctx):
        simm16 = int(ctx.get("SIMM16", name))
        reg, offset, size = simm16 & 0x3F, (simm16 >> 6) & 0x1F, ((simm16 >> 11) & 0x1F) + 1
        if reg not in masks:
            raise SemanticsError(f"{name.lower()}: hwreg id {reg} is not a hardware register of "
                                 f"{spec.arch} (known: {', '.join(str(r) for r in sorted(masks))})")
        user, privileged = masks[reg]
        priv = (np.asarray(ctx.status, np.uint64).reshape(-1, 1) >> np.uint64(PRIV_BIT)) & np.uint64(1)
        field = (((1 << size) - 1) << offset) & 0xFFFFFFFF
        mask = np.where(priv != 0, np.uint64(field & privileged), np.uint64(field & user))
        value = (np.asarray(ctx.get(source_name, name), np.uint64).reshape(-1, 1) << np.uint64(offset)) & mask
        old = np.asarray(ctx.hwreg.read(reg), np.uint64).reshape(-1, 1)
        ctx.hwreg.write(reg, None, ((old & ~mask) | value).astype(np.uint32))
        return {}
    return run

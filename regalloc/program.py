"""The abstract program the allocator works on: per instruction, which registers it reads
and writes, where control can go next, and the pairing rules (VOPD banks) it imposes.
dsl/ builds one from a Kernel; nothing here knows instruction names or encodings."""
from __future__ import annotations

from dataclasses import field

from isa.records import dataclass


@dataclass(frozen=True)
class Ref:
    """`count` consecutive registers of `file` ('v', 's' or 'a': CDNA's AGPRs): dwords offset..offset+count-1
    of virtual register `reg`, or physical registers reg..reg+count-1 if not virtual."""
    file: str
    reg: int
    offset: int = 0
    count: int = 1
    virtual: bool = True


@dataclass
class Step:
    """One instruction as the allocator sees it: the registers it reads and writes, where control
    goes next, and the rules it puts on its registers (dsl/ fills it from the instruction's
    generated operand effects)."""
    uses: tuple[Ref, ...] = ()
    # Registers written. A write that keeps part of a register's old value (a 16-bit half,
    # a conditional move, a D16 load) is listed in `uses` as well.
    defs: tuple[Ref, ...] = ()
    target: int | None = None        # index of the instruction a branch may jump to
    falls_through: bool = True       # False after s_branch / s_endpgm
    text: str = ""                   # how to name the instruction in messages
    copy: tuple[Ref, Ref] | None = None   # (dst, src) of a plain move: give both one register if possible
    # (a, b, m): the first registers of a and b must differ modulo m (VOPD banks and parities)
    distinct_mod: tuple[tuple[Ref, Ref, int], ...] = ()
    # Changes which lanes are active (writes EXEC): VGPR writes it may reach can be partial.
    writes_exec: bool = False
    # Reads VGPRs in lanes other than the active ones (v_readlane, DPP, permlanes).
    reads_all_lanes: bool = False


@dataclass(frozen=True)
class Virtual:
    file: str        # 'v', 's' or 'a'
    width: int       # dwords, 1..16
    name: str


@dataclass
class Program:
    instrs: list[Step] = field(default_factory=list)
    virtuals: list[Virtual] = field(default_factory=list)

    def where(self, i: int) -> str:
        """'instruction 12 (v_add_f32 %a, %b, %c)' for messages."""
        if i >= len(self.instrs):
            return "the end of the program"
        text = self.instrs[i].text
        return f"instruction {i}" + (f" ({text})" if text else "")


def blocks(prog: Program) -> tuple[list[tuple[int, int]], list[list[int]]]:
    """Basic blocks as [start, end) instruction ranges, and each block's successor blocks."""
    n = len(prog.instrs)
    leaders = {0} if n else set()
    for i, ins in enumerate(prog.instrs):
        if ins.target is not None:
            if not 0 <= ins.target <= n:
                raise ValueError(f"{prog.where(i)}: branch target {ins.target} is outside the program")
            leaders.add(ins.target)
        if ins.target is not None or not ins.falls_through:
            leaders.add(i + 1)
    starts = sorted(x for x in leaders if x < n)
    spans = [(s, e) for s, e in zip(starts, starts[1:] + [n])]
    index = {s: b for b, (s, _) in enumerate(spans)}
    succs = []
    for b, (s, e) in enumerate(spans):
        last = prog.instrs[e - 1]
        out = []
        if last.falls_through and e < n:
            out.append(b + 1)
        if last.target is not None and last.target < n and index[last.target] not in out:
            out.append(index[last.target])
        succs.append(out)
    return spans, succs

"""The frontend's pipeline: IR Program -> isel (virtual registers) -> s_waitcnt -> register
allocation and encoding (dsl) -> HSA code object (runtime.writer); and `run()`, which
launches a compiled kernel on Device("emu") with numpy arrays."""
from __future__ import annotations

import numpy as np

from isa.records import dataclass

from .ir import Program
from .combine import combine_loads, drop_unused
from .dead import drop_dead
from .isel import Selector
from .loops import optimize_loops
from .schedule import schedule_loads
from .waitcnt import insert_waitcnt


@dataclass
class Compiled:
    name: str
    hsaco: bytes
    args: list            # runtime.codeobj.KernelArg, buffers then vars
    kernel: object        # the dsl.Kernel (virtual registers; .physical() for the allocated one)
    stats: dict

    def disassemble(self) -> str:
        import dsl
        return dsl.disassemble(self.kernel.assemble(), self.kernel.arch)


def compile_program(prog: Program, arch: str = "gfx1100", wave_size: int | None = None,
                    unroll: bool = True, combine: bool = True, schedule: bool | int = True) -> Compiled:
    """`unroll=False` keeps every loop (frontend/loops.py still hoists and simplifies);
    `combine=False` keeps every load as written (frontend/combine.py); `schedule=False` keeps
    the loads where they are (frontend/schedule.py; a number: that window in dwords)."""
    from runtime.codeobj import KernelArg
    from runtime.writer import from_dsl_kernel
    ir = optimize_loops(prog, unroll)
    ir = drop_unused(combine_loads(ir) if combine else ir)
    if schedule:
        ir = schedule_loads(ir) if schedule is True else schedule_loads(ir, int(schedule))
    sel = Selector(ir, arch, wave_size)
    k = sel.run()
    dead = drop_dead(k)
    waits = insert_waitcnt(k)
    args, off = [], 0
    for b in prog.buffers:
        args.append(KernelArg(off, 8, "global_buffer", b.name, "global"))
        off += 8
    for v in prog.vars:
        args.append(KernelArg(off, 4, "by_value", v.name))
        off += 4
    hsaco = from_dsl_kernel(k, prog.name, args, **sel.directives())
    # instructions: of the machine code (after allocation: spill code in, removed copies out)
    stats = dict(k.stats(), instructions=len(k.physical().items), waitcnts=waits["waits"], dead=dead)
    return Compiled(prog.name, hsaco, args, k, stats)


def run(prog: Program | Compiled, arrays: dict, grid=(1, 1, 1), block=(1, 1, 1), vars: dict | None = None,
        arch: str = "gfx1100", device=None) -> dict:
    """Compile (if needed) and launch on Device("emu"); `arrays` maps buffer names to numpy
    arrays (copied in); returns {name: array after the launch}."""
    from runtime import Device
    c = prog if isinstance(prog, Compiled) else compile_program(prog, arch)
    dev = device or Device("emu", arch=c.kernel.arch)
    bufs, argv = {}, []
    for a in c.args:
        if a.value_kind == "global_buffer":
            arr = np.ascontiguousarray(arrays[a.name])
            bufs[a.name] = (dev.alloc(max(arr.nbytes, 4), a.name).copyin(arr), arr.dtype, arr.shape)
            argv.append(bufs[a.name][0])
        else:
            argv.append(np.array((vars or {})[a.name]).astype(np.int32)[()])
    dev.load(c.hsaco).launch(c.name, grid=tuple(grid), block=tuple(block), args=argv)
    return {name: b.copyout(dt)[:int(np.prod(shape))].reshape(shape) for name, (b, dt, shape) in bufs.items()}

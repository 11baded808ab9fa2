"""Step-through debugger over the functional machine: the launch runs in a worker thread
and pauses in the machine's tracer hook (called after every batch step) whenever the focused
wave has executed an instruction the user asked to stop at. While paused, the tables read the
machine's own live state (the same arrays the next instruction reads), so they are the
emulator's state at that step, not a copy.

    from emu.debug import Debugger
    dbg = Debugger(prg, "saxpy", grid, block, args)       # runtime Program + launch arguments
    dbg.step()              # run until the focused wave (default 0) executed one instruction
    print(dbg.where())      # wave, PC, the instruction just executed, the next one
    print(dbg.vgprs(range(4), view="f32"))   # lanes x registers; '*' marks changed values
    dbg.breakpoint(0x100c4d38); dbg.cont()    # run to a PC (the focused wave executing it)
    dbg.cont()              # to the end; dbg.finished, dbg.stats
"""
from __future__ import annotations

import threading
from collections import Counter

import numpy as np

from .wave import VCC_LO


class DebugError(ValueError):
    pass


VIEWS = ("hex", "f32", "i32", "u32", "f16")


def _fmt(values: np.ndarray, view: str) -> list[str]:
    v = np.asarray(values, np.uint32)
    if view == "hex":
        return [f"{int(x):08x}" for x in v]
    if view == "f32":
        return [f"{float(x):.6g}" for x in v.view(np.float32)]
    if view == "i32":
        return [str(int(x)) for x in v.view(np.int32)]
    if view == "u32":
        return [str(int(x)) for x in v]
    if view == "f16":
        lo = (v & 0xFFFF).astype(np.uint16).view(np.float16)
        hi = (v >> 16).astype(np.uint16).view(np.float16)
        return [f"{float(a):.4g}|{float(b):.4g}" for a, b in zip(lo, hi)]
    raise DebugError(f"view {view!r}: one of {', '.join(VIEWS)}")


class Debugger:
    def __init__(self, program, kernel: str, grid, block, args=(), wave: int = 0, budget: int | None = None):
        self.program, self.machine = program, program.device.machine
        if self.machine.tracer is not None:
            raise DebugError("the device's machine is already being traced")
        self.focus = wave
        self.breakpoints: set[int] = set()
        self.hits: Counter = Counter()          # PC -> times the focused wave executed it
        self.executed = 0                       # instructions the focused wave executed
        self.finished, self.stats, self.error = False, None, None
        self._want = None                        # pause after this many executed instructions
        self._paused = threading.Event()
        self._resume = threading.Event()
        self._state = None                       # (prepared, WaveState, local wave) while paused
        self._last: dict = {}                     # register snapshots at the previous pause ('*' marks)
        self._args = (kernel, grid, block, list(args), budget)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.machine.tracer = self._trace
        self._want = 0                            # pause before the first instruction completes? no: after it
        self._thread.start()
        self._wait()

    # ------------------------------------------------------------------ worker side
    def _run(self):
        kernel, grid, block, args, budget = self._args
        try:
            self.stats = self.program.launch(kernel, grid, block, args, budget=budget)
        except Exception as e:        # reported to the user by the next command
            self.error = e
        finally:
            self.finished = True
            self.machine.tracer = None
            self._state = None
            self._paused.set()

    def _trace(self, p, st, sel):
        chunk = self.machine.trace_chunk
        local = self.focus - chunk.first * chunk.per_group
        if not 0 <= local < st.waves:
            return
        idx = np.arange(st.waves)[sel] if isinstance(sel, slice) else np.asarray(sel)
        if local not in idx:
            return
        self.executed += 1
        self.hits[p.pc] += 1
        next_pc = int(st.pc[local]) & 0xFFFF_FFFF_FFFF_FFFF
        stop = (self._want is not None and self.executed >= self._want) or next_pc in self.breakpoints
        if stop:
            self._state = (p, st, local, next_pc)
            self._resume.clear()
            self._paused.set()
            self._resume.wait()

    def _wait(self):
        self._paused.wait()
        self._paused.clear()
        if self.error is not None and self.finished:
            e, self.error = self.error, None
            raise DebugError(f"the launch stopped: {e}")

    def _go(self):
        if self.finished:
            raise DebugError("the kernel has finished")
        self._state = None
        self._resume.set()
        self._wait()

    # ------------------------------------------------------------------ commands
    def step(self, n: int = 1):
        """Run until the focused wave executed n more instructions (or a breakpoint)."""
        if n < 1:
            raise DebugError("step count must be at least 1")
        self._snapshot()
        self._want = self.executed + n
        self._go()

    def cont(self):
        """Run until the focused wave reaches a breakpoint, or to the end."""
        self._snapshot()
        self._want = None
        self._go()

    def breakpoint(self, pc: int):
        self.breakpoints.add(int(pc))

    def _live(self):
        if self._state is None:
            raise DebugError("no paused wave (the kernel finished)" if self.finished else "not paused")
        return self._state

    def where(self) -> str:
        if self.finished:
            return f"finished: {self.stats}" if self.stats is not None else "finished"
        p, st, local, next_pc = self._live()
        text = self.machine.text(p.inst)
        try:
            nxt = self.machine.text(self.machine.decode(next_pc))
        except Exception:
            nxt = "?"
        return (f"wave {self.focus}: executed {self.executed} instructions; last 0x{p.pc:x} {text}\n"
                f"next 0x{next_pc:x} {nxt}")

    def vgpr_values(self, regs) -> np.ndarray:
        """(lanes, len(regs)) uint32 of the focused wave, live."""
        _, st, local, _ = self._live()
        regs = list(regs)
        bad = [r for r in regs if not 0 <= r < st.vgprs]
        if bad:
            raise DebugError(f"v{bad[0]}: the wave has {st.vgprs} VGPRs")
        return st.vgpr[regs, local, :].T.copy()

    def sgpr_values(self, regs) -> np.ndarray:
        _, st, local, _ = self._live()
        regs = list(regs)
        bad = [r for r in regs if not 0 <= r < 128]
        if bad:
            raise DebugError(f"s{bad[0]}: SGPRs are s0..s105 and the special codes up to 127")
        return st.sgpr[regs, local].copy()

    def special(self) -> dict:
        _, st, local, _ = self._live()
        sel = slice(local, local + 1)
        return {"exec": int(st.exec_mask(sel)[0, 0]), "vcc": int(st.read_mask(sel, VCC_LO)[0, 0]),
                "scc": int(st.scc[local, 0]), "m0": int(st.sgpr[st.m0, local]), "pc": self._state[3]}

    def _snapshot(self):
        if self._state is None:
            return
        _, st, local, _ = self._state
        self._last = {"v": st.vgpr[:, local, :].copy(), "s": st.sgpr[:, local].copy()}

    def vgprs(self, regs=range(8), view: str = "hex", lanes=None) -> str:
        """Table of lanes x registers; a value that changed since the previous pause ends in '*'."""
        regs = list(regs)
        vals = self.vgpr_values(regs)
        lanes = range(vals.shape[0]) if lanes is None else lanes
        old = self._last.get("v")
        cols = [[c + ("*" if old is not None and old[r, lane] != vals[lane, k] else " ")
                 for lane, c in zip(lanes, _fmt(vals[list(lanes), k], view))] for k, r in enumerate(regs)]
        width = max([len(f"v{r}") for r in regs] + [len(c) for col in cols for c in col]) + 1
        out = ["lane " + "".join(f"v{r}".rjust(width) for r in regs)]
        for i, lane in enumerate(lanes):
            out.append(f"{lane:>4} " + "".join(col[i].rjust(width) for col in cols))
        return "\n".join(out)

    def sgprs(self, regs=range(16), view: str = "hex") -> str:
        regs = list(regs)
        vals = self.sgpr_values(regs)
        old = self._last.get("s")
        cells = [f"s{r}={c}{'*' if old is not None and old[r] != vals[k] else ''}"
                 for k, (r, c) in enumerate(zip(regs, _fmt(vals, view)))]
        sp = self.special()
        cells += [f"exec={sp['exec']:x}", f"vcc={sp['vcc']:x}", f"scc={sp['scc']}", f"m0={sp['m0']:x}"]
        return "  ".join(cells)

    def memory(self, address: int, nbytes: int = 64, view: str = "hex") -> str:
        data = self.program.device.memory.read(int(address), int(nbytes) // 4 * 4)
        vals = np.frombuffer(data, np.uint32)
        return "\n".join(f"0x{address + 16 * i:x}: " + " ".join(_fmt(vals[4 * i:4 * i + 4], view))
                         for i in range(-(-len(vals) // 4)))

    def hit_table(self) -> str:
        return "\n".join(f"0x{pc:x} {n:>6}  {self.machine.text(self.machine.decode(pc))}"
                         for pc, n in sorted(self.hits.items()))

    def close(self):
        """Let the launch run to its end without stopping."""
        self.breakpoints.clear()
        if not self.finished:
            self._want = None
            self._state = None
            self._resume.set()
            self._thread.join()

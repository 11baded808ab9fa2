"""Shared body of dsl.rdna3 / dsl.rdna3_5: registers, specials, Kernel and one function
per instruction of the architecture."""
from __future__ import annotations

from .kernel import Kernel, build_namespace
from .operands import (Lit, Mod, Reg, exec, exec_hi, exec_lo, lit, m0, neg, null, off, s, scc, ttmp, v, vcc,
                       vcc_hi, vcc_lo)

COMMON = {"Kernel": Kernel, "Lit": Lit, "Mod": Mod, "Reg": Reg, "exec": exec, "exec_hi": exec_hi,
          "exec_lo": exec_lo, "lit": lit, "m0": m0, "neg": neg, "null": null, "off": off, "s": s, "scc": scc,
          "ttmp": ttmp, "v": v, "vcc": vcc, "vcc_hi": vcc_hi, "vcc_lo": vcc_lo}


def namespace(arch: str) -> dict:
    ns = dict(COMMON)
    ns.update(build_namespace(arch))
    return ns

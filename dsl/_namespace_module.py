"""Shared body of dsl.rdna3 / dsl.rdna3_5 (and, through namespace_gfx9, dsl.cdna3 / dsl.cdna4):
registers, specials, Kernel and one function per instruction of the architecture."""
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


def namespace_gfx9(arch: str) -> dict:
    """dsl.cdna3 / dsl.cdna4: the gfx9 syntax's functions (kernel_gfx9.py), the AGPR file `a`,
    and `Mod` for modifiers on constants; no true16 halves, `null` or `lit`."""
    from .kernel_gfx9 import a, build_namespace as build_gfx9
    ns = {k: v for k, v in COMMON.items() if k not in ("Lit", "lit", "null")}
    ns["a"] = a
    ns.update(build_gfx9(arch))
    return ns

"""Inline constants that fill both 16-bit halves of a source (the generated tables["inline_replicated"],
from the manuals' "Inline constants with DOT2_F16_F16 and DOT2_BF16_BF16 / For these 2 instructions,
the inline constant for sources 0 and 1 replicate the inline constant value into bits[31:16]": RDNA3
7.2.1 p. 67, RDNA3.5 p. 69; RDNA4 p. 80 names V_DOT2_F32_BF16 and V_DOT2_F32_F16 too) against the
manuals' text and on the emulator with numpy's f16 arithmetic.

LLVM 22 is no reference here: its assembler encodes 1.0 (0x3c00) as the inline constant and
0x3c003c00 as a literal on every one of these sources alike (gfx1100, gfx1201), so it says nothing
of what the hardware reads in bits 31:16."""
from __future__ import annotations

import os

import numpy as np
import pytest

import isa

from .test_emu_machine import launch, loads

RDNA3 = {("V_DOT2_BF16_BF16", (0, 1)), ("V_DOT2_F16_F16", (0, 1))}
WANT = {"rdna3": (RDNA3, 67), "rdna3.5": (RDNA3, 69),
        "rdna4": (RDNA3 | {("V_DOT2_F32_BF16", (0, 1)), ("V_DOT2_F32_F16", (0, 1))}, 80),
        "cdna3": (set(), None), "cdna4": (set(), None)}


@pytest.mark.parametrize("family", sorted(WANT))
def test_tables_name_what_the_manual_says(family):
    rows = isa.load(family).tables.get("inline_replicated", [])
    names, page = WANT[family]
    assert {(name, sources) for name, sources, _ in rows} == names
    assert {p for *_, p in rows} <= {page}


def test_the_rdna4_paragraph_is_the_one_read():
    """The Markdown conversion's paragraph (the shared spec text), read here by plain search."""
    path = os.path.join(os.environ.get("WAVESMITH_SHARED", "/work/shared"), "spec_text", "rdna4_isa.md")
    if not os.path.exists(path):
        pytest.skip("no RDNA4 Markdown manual")
    text = open(path, encoding="utf-8").read().replace("\\_", "_")
    at = text.index("Inline constants with:")
    head = text[at:text.index("\n", at)]
    assert all(name in head for name in ("V_DOT2_F32_BF16", "V_DOT2_F32_F16", "V_DOT2_F16_F16", "DOT2_BF16_BF16"))
    assert "the inline constant for sources 0 and 1 replicate the inline constant value into bits[31:16]" in text[at:at + 600]


def _run(arch: str, body: str, v0: int) -> int:
    src = loads("out") + f"v_mov_b32 v0, {v0:#x}\n{body}\nv_mov_b32 v40, 0\nglobal_store_b32 v40, v1, s[4:5]\ns_endpgm"
    got, _ = launch(src, {"out": np.zeros(1, np.uint32)}, block=(1, 1, 1), arch=arch, vgprs=48)
    return int(got["out"][0])


def _h(*values) -> int:
    return int(np.array(values, np.float16).view(np.uint32)[0])


@pytest.mark.parametrize("arch, body, replicated", [
    ("gfx1100", "v_dot2_f16_f16 v1, 1.0, v0, 0", True),          # listed: (1, 1) . (1.5, 2.5) = 4.0
    ("gfx1201", "v_dot2_f16_f16 v1, v0, 1.0, 0", True),
    ("gfx1201", "v_dot2_f32_f16 v1, 1.0, v0, 0", True),          # RDNA4 lists it: 4.0
    ("gfx1100", "v_dot2_f32_f16 v1, 1.0, v0, 0", False),         # RDNA3 does not: (1, 0) . (1.5, 2.5) = 1.5
    ("gfx1100", "v_pk_mul_f16 v1, 1.0, v0", False),              # packed math: zeros above (7.5.1)
])
def test_inline_constant_halves_on_the_emulator(arch, body, replicated):
    got = _run(arch, body, _h(1.5, 2.5))
    if "f32" in body.split()[0]:
        assert np.uint32(got).view(np.float32) == (4.0 if replicated else 1.5)
    elif body.startswith("v_pk_mul"):
        assert got == _h(1.5, 0.0)
    else:
        assert got & 0xFFFF == int(np.float16(4.0).view(np.uint16))

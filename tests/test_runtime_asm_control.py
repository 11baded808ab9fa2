"""Conditional assembly (`.if` family) and macros (`.macro`/`.endm`, `\\@`, `\\()`, :req/:vararg,
defaults, `.exitm`, `.purgem`) in runtime/asm_module.py: the bytes of sources exercising them are
compared with llvm-mc-22's object for the same source, the macro example kernel runs on the
emulator against numpy, and errors name the line, the macro and the invocation."""
from __future__ import annotations

import re

import numpy as np
import pytest

from dsl.asm import AsmError
from runtime.asm_module import assemble_module
from runtime.codeobj import read_code_object
from .test_runtime_asm_module import EXAMPLES, _llvm_object

# Each arm that runs leaves a distinct s_nop, so the bytes show which arms the assembler chose.
CONDITIONALS = r"""	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
	.set A, 3
	.set Z, 0
defined_label:
.if A
	s_nop 1
.endif
.if Z
	s_nop 2
.endif
.ifeq Z
	s_nop 3
.endif
.ifne A
	s_nop 4
.endif
.ifgt A-4
	s_nop 5
.endif
.ifge A-3
	s_nop 6
.endif
.iflt Z-1
	s_nop 7
.endif
.ifle A
	s_nop 8
.endif
.ifdef A
	s_nop 9
.endif
.ifdef defined_label
	s_nop 10
.endif
.ifdef nothing
	s_nop 11
.endif
.ifndef nothing
	s_nop 12
.endif
.ifnotdef A
	s_nop 13
.endif
.ifdef later_label
	s_nop 14
.endif
.ifb
	s_nop 15
.endif
.ifnb x
	s_nop 0xf
.endif
.ifc abc, abc
	s_nop 1
.endif
.ifc abc,abd
	s_nop 2
.endif
.ifnc a, b
	s_nop 3
.endif
.ifeqs "x y", "x y"
	s_nop 4
.endif
.ifnes "x", "x"
	s_nop 5
.endif
.if A > 2
  .if Z
	s_nop 6
  .elseif A == 3
	s_nop 7
    .if 1
	s_nop 8
    .else
	s_nop 9
    .endif
  .else
	s_nop 10
  .endif
.elseif 1
	s_nop 11
.else
	s_nop 12
.endif
.if Z
	s_nop 13
.elseif Z
	s_nop 14
.else
	s_nop 15
.endif
	.rept 2
	.if A - 3
	s_nop 1
	.else
	s_nop 2
	.endif
	.endr
later_label:
	s_endpgm
"""

MACROS = r"""	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.text
.macro movs dst, src=7
	s_mov_b32 \dst, \src
.endm
.macro pair base, lo, hi
	s_mov_b32 \base\()_lo, \lo
	s_mov_b32 \base\()_hi, \hi
.endm
.macro nops first, rest:vararg
	s_nop \first
	.ifnb \rest
	nops \rest
	.endif
.endm
.macro unique
	s_branch .Lu\@
.Lu\@:
.endm
.macro maybe_exit value
	.if \value > 4
	.exitm
	.endif
	s_nop \value
.endm
.macro add3 d, a, b, c
	v_add_nc_u32_e32 \d, \a, \b
	v_add_nc_u32_e32 \d, \d, \c
.endm
start:
	movs s1
	movs s2, 0x1234
	pair vcc, 1, 2
	pair exec, -1, 0
	nops 1, 2, 3, 4
	unique
	unique
	maybe_exit 3
	maybe_exit 9
	add3 v1, s3, v2, v4
	.rept 3
	movs s5, 3
	.endr
.purgem movs
.macro movs dst
	s_mov_b32 \dst, 99
.endm
	movs s6
	s_endpgm
"""


@pytest.mark.parametrize("name, source", [("conditionals", CONDITIONALS), ("macros", MACROS)])
def test_text_matches_llvm_mc(name, source, tmp_path):
    src = tmp_path / f"{name}.s"
    src.write_text(source)
    llvm, _ = _llvm_object(src, tmp_path)
    ours = read_code_object(assemble_module(source, filename=src.name)).elf.section(".text").data
    assert len(ours) > 40 and ours == llvm[".text"]


def test_macro_example_runs_on_the_emulator():
    """examples/macro_polynomial.s (also checked byte for byte against llvm-mc-22 with the other
    examples): y = 0.5x^3 + 0.5x^2 + 0.5x + 1 for the first n elements, the rest untouched."""
    from runtime import Device
    n = 300
    x = np.random.default_rng(1).uniform(-2, 2, 512).astype(np.float32)
    dev = Device("emu", arch="gfx1100")
    xb = dev.alloc(x.nbytes, "x").copyin(x)
    yb = dev.alloc(x.nbytes, "y").copyin(np.full(512, 7.0, np.float32))
    hsaco = assemble_module((EXAMPLES / "macro_polynomial.s").read_text(), filename="macro_polynomial.s")
    dev.load(hsaco).launch("polynomial", grid=(2, 1, 1), block=(256, 1, 1), args=[xb, yb, np.uint32(n)])
    got = yb.copyout(np.float32)
    x64 = x[:n].astype(np.float64)
    want = 0.5 * x64 ** 3 + 0.5 * x64 ** 2 + 0.5 * x64 + 1
    np.testing.assert_allclose(got[:n], want, rtol=1e-5, atol=1e-6)
    assert (got[n:] == 7.0).all()


ADD3 = ".macro add3 d, a, b, c\n\tv_add_nc_u32_e32 \\d, \\a, \\b\n\tv_add_nc_u32_e32 \\d, \\d, \\c\n.endm\n"


@pytest.mark.parametrize("body, message", [
    (ADD3 + "add3 v1, v2, s3, v4\n", "4:27: v_add_nc_u32: src1 must be a VGPR in the 32-bit encoding, got s3\n"
                                     "    v_add_nc_u32_e32 v1, v2, s3\n"
                                     "                             ^\n  in expansion of macro add3 at line 7"),
    (ADD3 + "add3 v1, v2, v3, v4, v5\n", "7:1: macro add3 takes 4 argument(s); got 5"),
    (".macro m x:req\ns_nop \\x\n.endm\nm\n", "6:1: macro m: missing value for required parameter 'x'"),
    (".macro m x\ns_nop \\y\n.endm\nm 1\n", "6:1: macro m: its body names \\y, which is not one of its parameters (x)"),
    (".macro m\nm\n.endm\nm\n", "macro m: expansions nested 20 deep"),
    (".macro m x\n v_bogus \\x\n.endm\nm 1\n", "4:2: unknown instruction 'v_bogus' for rdna3\n    v_bogus 1\n"
                                                "    ^\n  in expansion of macro m at line 6"),
    (".macro m\n", "3:1: .macro has no .endm"),
    (".macro m a, a\n.endm\n", "3:1: .macro m: parameter 'a' given twice"),
    (".macro m\n.endm\n.macro m\n.endm\n", "5:1: macro m is already defined (at line 3)"),
    (".exitm\n", "3:1: .exitm outside a macro"),
    (".purgem zz\n", "3:1: .purgem: no macro named 'zz'"),
    (".if 1\ns_nop 0\n", "3:1: .if has no .endif"),
    (".endif\n", "3:1: .endif without .if"),
    (".if 1\n.else\n.else\n.endif\n", "5:1: .else after .else (the conditional opens at line 3)"),
    (".if undefined_sym\n.endif\n", "3:1: .if: undefined symbol 'undefined_sym'"),
    (".ifdef 1x\n.endif\n", "3:1: .ifdef takes one symbol name; got '1x'"),
    (".ifc a\n.endif\n", "3:1: .ifc compares two strings separated by a comma"),
])
def test_errors_name_the_line_and_the_macro(body, message):
    with pytest.raises(AsmError, match=re.escape(message)):
        assemble_module('.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.text\n' + body)

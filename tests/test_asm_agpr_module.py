"""AGPR operands (a0, a[0:15]) in whole `.s` files: `wavesmith asm` turns a gfx942 / gfx950 kernel
whose MFMA accumulates in AGPRs into the `.text` and kernel descriptor that llvm-mc-22 + ld.lld-22
make of the same file, and refuses the AGPRs on RDNA targets at their line:column, as llvm-mc-22
refuses them there."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.llvm_tools import tool

KERNEL = """\
	.amdgcn_target "amdgcn-amd-amdhsa--{target}"
	.text
	.globl mfma_acc
	.p2align 8
	.type mfma_acc,@function
mfma_acc:
	v_accvgpr_write_b32 a0, v4
	v_accvgpr_write_b32 a1, 1.0
	v_accvgpr_mov_b32 a2, a1
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
	v_mfma_f32_16x16x16_f16 a[16:19], v[0:1], v[2:3], a[16:19]
	s_nop 7
	s_nop 7
	v_accvgpr_read_b32 v5, a3
	global_store_dword v[6:7], a4, off
	s_endpgm
.Lfunc_end0:
	.size mfma_acc, .Lfunc_end0-mfma_acc

	.rodata
	.p2align 6
	.amdhsa_kernel mfma_acc
	.amdhsa_next_free_vgpr 40
	.amdhsa_next_free_sgpr 8
	.amdhsa_accum_offset 12
	.end_amdhsa_kernel
"""


def _wavesmith_asm(src, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "wavesmith.py"), "asm", str(src), *argv],
                          capture_output=True, text=True)


def _section(obj, name: str) -> bytes:
    dst = obj.with_suffix(obj.suffix + name)
    subprocess.run([tool("llvm-objcopy"), "-O", "binary", f"--only-section={name}", str(obj), str(dst)], check=True)
    return dst.read_bytes()


def _symbol(obj, name: str) -> int:
    out = subprocess.run([tool("llvm-readelf"), "-s", str(obj)], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^\s*\d+:\s+([0-9a-f]+)\s.*\s{re.escape(name)}$", out, re.M)
    assert m, f"{name} not among {obj}'s symbols"
    return int(m.group(1), 16)


def _section_addr(obj, name: str) -> int:
    out = subprocess.run([tool("llvm-readelf"), "-S", str(obj)], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"\s{re.escape(name)}\s+\S+\s+([0-9a-f]+)", out)
    return int(m.group(1), 16)


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_agpr_kernel_assembles_to_llvms_text_and_descriptor(target, tmp_path):
    src = tmp_path / "k.s"
    src.write_text(KERNEL.format(target=target))
    obj, theirs, ours = tmp_path / "k.o", tmp_path / "llvm.hsaco", tmp_path / "ours.hsaco"
    subprocess.run([tool("llvm-mc"), "-triple", "amdgcn-amd-amdhsa", f"-mcpu={target}", "-filetype=obj",
                    str(src), "-o", str(obj)], check=True)
    subprocess.run([tool("ld.lld"), "-shared", str(obj), "-o", str(theirs)], check=True)
    p = _wavesmith_asm(src, "-o", str(ours))
    assert p.returncode == 0, p.stderr
    text = _section(ours, ".text")
    assert text == _section(theirs, ".text")
    assert bytes.fromhex("0080ccd300050204") in text        # the 32x32x8 MFMA with a[0:15] (ACC bits set)
    descriptors = [_section(o, ".rodata")[_symbol(o, "mfma_acc.kd") - _section_addr(o, ".rodata"):][:64]
                   for o in (ours, theirs)]
    # bytes 16..23 (kernel_code_entry_byte_offset) are equal too when both linkers lay out alike;
    # they depend on section placement, so compare the rest exactly
    assert descriptors[0][:16] + descriptors[0][24:] == descriptors[1][:16] + descriptors[1][24:]
    assert descriptors[0] != bytes(64)


@pytest.mark.parametrize("target", ["gfx1100", "gfx1151"])
def test_agprs_are_refused_on_rdna_at_their_line_and_column(target, tmp_path):
    src = tmp_path / "k.s"
    src.write_text("\tv_mov_b32 v0, v1\n\tv_add_f32 v0, v2, a1\n")
    llvm = subprocess.run([tool("llvm-mc"), "-triple", "amdgcn-amd-amdhsa", f"-mcpu={target}", str(src)],
                          capture_output=True, text=True)
    assert llvm.returncode != 0 and "k.s:2:20: error" in llvm.stderr
    out = tmp_path / "k.hsaco"
    p = _wavesmith_asm(src, "--arch", target, "-o", str(out))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "k.s:2:20:" in p.stderr and "a1" in p.stderr and "accumulation registers" in p.stderr, p.stderr
    assert not out.exists()


def test_the_gfx942_kernel_is_refused_for_gfx1100_naming_the_first_agpr(tmp_path):
    src = tmp_path / "k.s"
    src.write_text(KERNEL.format(target="gfx942").split("\n", 1)[1].replace("v_accvgpr_write_b32 a0, v4",
                                                                         "v_mov_b32 v0, a0", 1))
    p = _wavesmith_asm(src, "--arch", "gfx1100", "-o", str(tmp_path / "k.hsaco"))
    assert p.returncode == 1 and "k.s:6:16:" in p.stderr and "a0" in p.stderr, p.stderr

"""`wavesmith disasm FILE.hsaco` and `wavesmith readobj` on the shared clang code objects:
the printed code is what llvm-objdump-22 -d prints, and bad files get one clear error line."""
from __future__ import annotations

import pytest

import wavesmith
from .conftest import shared_path
from .llvm_tools import run, tool


def _code_objects():
    """The shared code objects of the targets the disassembler reads (gfx11, gfx12, gfx942, gfx950)."""
    import json
    from .conftest import SHARED
    for manifest in sorted((SHARED / "kernels").glob("*/manifest.json")):
        for target, filename in json.loads(manifest.read_text())["code_objects"].items():
            if target.startswith(("gfx11", "gfx12")) or target in ("gfx942", "gfx950"):
                yield pytest.param(manifest.parent / filename, target, id=f"{manifest.parent.name}-{target}")


@pytest.mark.parametrize("path, target", list(_code_objects()))
def test_disasm_prints_what_llvm_objdump_prints(path, target, capsys):
    """Every function of .text (the kernel and clang's __clang_ocl_kern_imp_* beside it, the
    s_code_end padding), with addresses, dwords and branch targets, line for line as
    llvm-objdump-22 -d prints it (wave64 objects with +wavefrontsize64, as the corpus says)."""
    argv = [tool("llvm-objdump"), "-d", str(path)]
    if target.endswith("-w64"):
        argv.insert(1, "--mattr=+wavefrontsize64")
    theirs = run(*argv).split("Disassembly of section", 1)[1].splitlines()
    assert wavesmith.main(["disasm", str(path)]) == 0
    ours = capsys.readouterr().out.split("Disassembly of section", 1)[1].splitlines()
    assert len(theirs) > 100 and "__clang_ocl_kern_imp_" in "\n".join(theirs)
    assert [(i, a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if a.rstrip() != b.rstrip()][:5] == []
    assert len(ours) == len(theirs)


def test_disasm_of_a_target_without_isa_is_an_error_naming_it(tmp_path, capsys):
    """A code object whose e_flags name a processor without generated ISA (gfx90a here, by
    rewriting gfx950's EF_AMDGPU_MACH byte) is refused with one line naming the file and target."""
    data = bytearray(shared_path("kernels", "reduce_sum_lds", "gfx950.hsaco").read_bytes())
    flags_at = 0x30                                    # e_flags in the ELF64 header
    assert data[flags_at] == 0x4f                      # EF_AMDGPU_MACH_AMDGCN_GFX950
    data[flags_at] = 0x3f                              # EF_AMDGPU_MACH_AMDGCN_GFX90A
    path = tmp_path / "gfx90a.hsaco"
    path.write_bytes(bytes(data))
    assert wavesmith.main(["disasm", str(path)]) == 2
    err = capsys.readouterr().err
    assert "gfx90a.hsaco" in err and "gfx90a" in err and "Traceback" not in err


def test_readobj_lists_arguments_and_descriptor(capsys):
    path = shared_path("kernels", "sgemm_tiled_lds", "gfx1151.hsaco")
    assert wavesmith.main(["readobj", str(path)]) == 0
    out = capsys.readouterr().out
    assert "kernel sgemm_tiled_lds" in out and ".amdhsa_group_segment_fixed_size 2112" in out
    assert out.count("global_buffer") == 3


def test_truncated_code_object_is_one_clear_error(tmp_path, capsys):
    data = shared_path("kernels", "sgemm_naive", "gfx1100.hsaco").read_bytes()
    bad = tmp_path / "cut.hsaco"
    bad.write_bytes(data[:3000])
    assert wavesmith.main(["disasm", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cut.hsaco" in err and "truncated" in err and "Traceback" not in err


def test_asm_writes_a_code_object_that_disasm_reads_back(tmp_path, capsys):
    from pathlib import Path
    from runtime.codeobj import read_code_object
    src = Path(__file__).resolve().parent.parent / "examples" / "lds_reduce.s"
    out = tmp_path / "lds_reduce.hsaco"
    assert wavesmith.main(["asm", str(src), "-o", str(out)]) == 0
    co = read_code_object(out.read_bytes())
    assert co.target == "gfx1100" and co.kernels["lds_reduce"].descriptor.group_segment_fixed_size == 1024
    capsys.readouterr()
    assert wavesmith.main(["disasm", str(out)]) == 0
    text = capsys.readouterr().out
    assert "<lds_reduce>:" in text and "\tds_load_2addr_b32 v[2:3], v4 offset1:1 " in text


def test_asm_errors_name_file_line_and_column(tmp_path, capsys):
    src = tmp_path / "bad.s"
    src.write_text('.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.text\nk:\n  s_endpgm\n.rodata\n'
                   '.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 1\n.end_amdhsa_kernel\n')
    assert wavesmith.main(["asm", str(src), "-o", str(tmp_path / "bad.hsaco")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:8:1: .amdhsa_kernel k: .amdhsa_next_free_sgpr is required" in err
    assert not (tmp_path / "bad.hsaco").exists()

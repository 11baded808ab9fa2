"""`wavesmith disasm FILE.hsaco` and `wavesmith readobj` on the shared clang code objects:
the printed code is what dsl.disassemble gives for the kernel's bytes as llvm-objdump-22
delimits them, and bad files get one clear error line."""
from __future__ import annotations

import wavesmith
from dsl import disassemble
from .conftest import shared_path
from .llvm_tools import objdump_symbols


def test_disasm_prints_each_kernel_under_its_label(capsys):
    path = shared_path("kernels", "reduce_sum_lds", "gfx1100-w64.hsaco")
    assert wavesmith.main(["disasm", str(path)]) == 0
    out = capsys.readouterr().out
    code = objdump_symbols(path, ["reduce_sum_lds"], "+wavefrontsize64")["reduce_sum_lds"]
    body = out.split("reduce_sum_lds:", 1)[1].split("\n", 1)[1]
    assert [line.strip() for line in body.strip().splitlines()] == \
        disassemble(bytes(code["bytes"]), "gfx1100", wave_size=64).splitlines()
    assert "wave64" in out and "__clang_ocl_kern_imp_reduce_sum_lds" in out


def test_disasm_of_a_target_without_isa_says_so(capsys):
    path = shared_path("kernels", "reduce_sum_lds", "gfx942.hsaco")
    assert wavesmith.main(["disasm", str(path)]) == 0
    out = capsys.readouterr().out
    assert "reduce_sum_lds:" in out and "cannot disassemble gfx942 code" in out


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
    assert "lds_reduce:" in text and "ds_load_2addr_b32 v[2:3], v4 offset1:1" in text


def test_asm_errors_name_file_line_and_column(tmp_path, capsys):
    src = tmp_path / "bad.s"
    src.write_text('.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.text\nk:\n  s_endpgm\n.rodata\n'
                   '.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 1\n.end_amdhsa_kernel\n')
    assert wavesmith.main(["asm", str(src), "-o", str(tmp_path / "bad.hsaco")]) == 1
    err = capsys.readouterr().err
    assert f"{src}:8:1: .amdhsa_kernel k: .amdhsa_next_free_sgpr is required" in err
    assert not (tmp_path / "bad.hsaco").exists()

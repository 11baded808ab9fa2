"""The `wavesmith` command on bad input (issue 15, class 14): one clear error line and exit
status 1 or 2, never a traceback (--debug shows it), outputs written whole or not at all."""
from __future__ import annotations

import errno
import os

import pytest

import wavesmith

GOOD = '.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"\n.text\nk:\n s_endpgm\n'


def cli(capsys, *argv) -> tuple[int, str, str]:
    rc = wavesmith.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


@pytest.fixture
def good(tmp_path):
    src = tmp_path / "good.s"
    src.write_text(GOOD)
    return src


def test_output_into_a_missing_directory_is_one_line(capsys, good, tmp_path):
    rc, _, err = cli(capsys, "asm", str(good), "-o", str(tmp_path / "nowhere" / "k.hsaco"))
    assert rc == 2 and err.count("\n") == 1 and "does not exist" in err


def test_output_that_cannot_be_written_leaves_no_file(capsys, good, tmp_path, monkeypatch):
    """A full disk while writing: neither the output nor a temporary file is left behind."""
    out = tmp_path / "k.hsaco"

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)
    rc, _, err = cli(capsys, "asm", str(good), "-o", str(out))
    assert rc == 2 and "No space left on device" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == [good]


def test_output_replaces_an_old_file_whole(capsys, good, tmp_path):
    out = tmp_path / "k.hsaco"
    out.write_bytes(b"old")
    rc, _, _ = cli(capsys, "asm", str(good), "-o", str(out))
    assert rc == 0 and out.read_bytes()[:4] == b"\x7fELF"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.s", "k.hsaco"]


def test_output_into_a_read_only_place_is_one_line(capsys, good):
    rc, _, err = cli(capsys, "asm", str(good), "-o", "/proc/k.hsaco")
    assert rc == 2 and "cannot write" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["asm", "disasm", "readobj"])
def test_unreadable_and_directory_inputs_say_why(capsys, command, tmp_path):
    rc, _, err = cli(capsys, command, "/proc/self/mem")           # exists, cannot be read
    assert rc == 2 and "cannot read" in err and err.count("\n") == 1
    rc, _, err = cli(capsys, command, str(tmp_path))
    assert rc == 2 and "is a directory" in err and "no such file" not in err
    rc, _, err = cli(capsys, command, str(tmp_path / "missing.s"))
    assert rc == 2 and "no such file" in err


def test_gen_with_an_unreadable_pdf_is_one_line(capsys, monkeypatch):
    import isa.gen

    def unreadable(args):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "spec_pdfs/AMD_rdna3_isa.pdf")
    monkeypatch.setattr(isa.gen, "run", unreadable)
    rc, _, err = cli(capsys, "gen", "--arch", "rdna3")
    assert rc == 2 and err == "wavesmith gen: error: spec_pdfs/AMD_rdna3_isa.pdf: Permission denied\n"


def test_an_error_names_the_file_once_and_shortens_a_huge_line(capsys, tmp_path):
    src = tmp_path / "abs.s"
    src.write_text(GOOD + ".rodata\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 1\n")
    rc, _, err = cli(capsys, "asm", str(src), "-o", str(tmp_path / "k.hsaco"))
    assert rc == 1 and err.startswith(f"{src}:") and err.count(f"{src}:") == 1
    src.write_text(GOOD + ".data\n.long " + "1+" * 500_000 + "x\n")
    rc, _, err = cli(capsys, "asm", str(src), "-o", str(tmp_path / "k.hsaco"))
    assert rc == 1 and len(err) < 1000 and err.startswith(f"{src}:6:1:")
    assert not (tmp_path / "k.hsaco").exists()


def test_readobj_prints_an_integer_address_space(capsys, tmp_path):
    src = tmp_path / "k.s"
    src.write_text(GOOD + ".rodata\n.amdhsa_kernel k\n .amdhsa_next_free_vgpr 1\n .amdhsa_next_free_sgpr 1\n"
                   ".end_amdhsa_kernel\n.amdgpu_metadata\n---\namdhsa.version: [1, 2]\namdhsa.kernels:\n"
                   "  - {.name: k, .symbol: k.kd, .args: [{.offset: 0, .size: 8, .value_kind: global_buffer, "
                   ".address_space: 1}]}\n...\n.end_amdgpu_metadata\n")
    assert cli(capsys, "asm", str(src), "-o", str(tmp_path / "k.hsaco"))[0] == 0
    rc, out, _ = cli(capsys, "readobj", str(tmp_path / "k.hsaco"))
    assert rc == 0 and "global_buffer" in out and " 1" in out.split("global_buffer", 1)[1].split("\n")[0]


def test_demo_on_an_arch_without_a_dsl_names_the_ones_that_have_one(capsys):
    rc, _, err = cli(capsys, "demo", "--arch", "gfx942")
    assert rc == 2 and "gfx942 (cdna3)" in err and "gfx1100" in err and "gfx1151" in err


def test_an_internal_error_is_one_line_and_debug_shows_the_traceback(capsys, monkeypatch, good):
    import runtime.cli

    def bug(args):
        raise KeyError("oops")
    monkeypatch.setattr(runtime.cli, "run_readobj", bug)
    rc, _, err = cli(capsys, "readobj", str(good))
    assert rc == 2 and "internal error: KeyError" in err and "--debug" in err and err.count("\n") == 1
    with pytest.raises(KeyError):
        wavesmith.main(["readobj", str(good), "--debug"])


def test_a_warning_is_one_line_about_the_input(capsys, tmp_path):
    src = tmp_path / "w.txt"
    src.write_text("0xf4 0xf5 0xf6 0xf7 0x00 0x00 0x00 0x00")       # an SMEM opcode rdna3 does not define
    rc, out, err = cli(capsys, "disasm", str(src))
    assert rc == 0 and ".long 0xf7f6f5f4" in out
    assert err.startswith("wavesmith disasm: warning: offset 0x0:") and err.count("\n") == 1

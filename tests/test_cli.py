"""The wavesmith command line."""
import subprocess
import sys

import pytest

import wavesmith


def run(*args):
    return subprocess.run([sys.executable, "-m", "wavesmith", *args], capture_output=True, text=True, timeout=120)


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0 and "demo" in out.stdout and "gen" in out.stdout


def test_gen_help_explains_lookup_and_check():
    out = run("gen", "--help")
    assert "--check" in out.stdout and "WAVESMITH_SPEC_DIR" in out.stdout


def test_gen_stats_needs_no_pdf(capsys):
    assert wavesmith.main(["gen", "--stats", "--arch", "rdna3"]) == 0
    out = capsys.readouterr().out
    assert "VOP3P" in out and "with pseudocode" in out


def test_demo_runs_a_dsl_kernel_on_the_emulator(capsys):
    assert wavesmith.main(["demo", "--dsl"]) == 0
    out = capsys.readouterr().out
    assert "v_fmac_f32" in out and "s_endpgm" in out            # the disassembly
    assert "lane-ops" in out and "identical for all" in out     # launch statistics, numpy check


def test_isa_tour_decodes_with_generated_tables(capsys):
    assert wavesmith.main(["demo", "--isa"]) == 0
    out = capsys.readouterr().out
    assert "v_dual_mul_f32 :: v_dual_add_f32" in out and "s_endpgm" in out


def test_gen_with_wrong_pdf_fails_cleanly(tmp_path):
    (tmp_path / "AMD_rdna3_isa.pdf").write_bytes(b"not a pdf")
    out = run("gen", "--arch", "rdna3", "--pdf-dir", str(tmp_path), "--check")
    assert out.returncode == 2 and "sha256 mismatch" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("bad", [["demo", "--arch", "gfx9999"]])
def test_bad_target_is_reported(bad):
    out = run(*bad)
    assert out.returncode != 0 and "unknown target" in out.stderr and "Traceback" not in out.stderr

"""`wavesmith demo`: a small model through tinygrad on WAVESMITH. The probabilities are checked
here against numpy (float64) independently of the demo's own check; the disassembly it prints
against llvm-objdump-22 on the same code objects (when installed); the statistics against the
code objects' descriptors."""
from __future__ import annotations

import re

import numpy as np
import pytest

import wavesmith

pytest.importorskip("tinygrad")


def _softmax_mlp(x, w1, b1, w2, b2):
    z = np.maximum(x.astype(np.float64) @ w1.astype(np.float64) + b1, 0.0) @ w2.astype(np.float64) + b2
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def model_run():
    from frontend.tinygrad.demo import run_model, weights
    probs, _, kernels = run_model("gfx1100")
    return probs, _softmax_mlp(*weights()), kernels


def test_model_matches_numpy(model_run):
    probs, want, kernels = model_run
    assert probs.shape == want.shape == (8, 10)
    np.testing.assert_allclose(probs, want, rtol=1e-5, atol=1e-6)
    assert len(kernels) >= 2 and all(recs for _, recs in kernels)   # every kernel shown was launched


def test_kernel_statistics_agree_with_the_code_objects(model_run):
    from runtime.codeobj import read_code_object
    for c, recs in model_run[2]:
        info = read_code_object(c.hsaco).kernels[c.name]
        assert c.stats["vgprs"] <= info.vgpr_count and c.stats["sgprs"] <= info.sgpr_count, (c.name, c.stats)
        assert c.stats["instructions"] == len(c.disassemble().strip().splitlines())
        assert all(r.stats.instructions > 0 and r.seconds > 0 for r in recs)


def test_disassembly_is_what_llvm_objdump_prints(model_run, tmp_path):
    from tests.llvm_tools import objdump_symbols
    for c, _ in model_run[2]:
        path = tmp_path / f"{c.name}.hsaco"
        path.write_bytes(c.hsaco)
        theirs = objdump_symbols(path, [c.name])[c.name]["text"]
        ours = c.disassemble().strip().splitlines()
        # branch targets: LLVM prints a label, we print the offset; compare the rest exactly
        strip = lambda s: re.sub(r"^(s_cbranch_\w+|s_branch)\s+\S+.*$", r"\1", s.strip())
        assert [strip(x) for x in ours] == [strip(x) for x in theirs], c.name


def test_demo_command_prints_check_statistics_and_disassembly(capsys):
    assert wavesmith.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "DIFFERENT" not in out
    assert re.search(r"kernel\s+instrs\s+VGPRs\s+SGPRs", out)
    assert "v_fma_f32" in out and "s_endpgm" in out and "global_load_b32" in out


def test_demo_on_another_arch_in_the_same_process_is_a_clear_error(capsys):
    import frontend.tinygrad  # noqa: F401
    from tinygrad import Device
    Device["WAVESMITH"]
    assert wavesmith.main(["demo", "--arch", "gfx1151"]) == 2
    assert "new process" in capsys.readouterr().err

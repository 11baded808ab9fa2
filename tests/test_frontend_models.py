"""Small models end to end through tinygrad on WAVESMITH (frontend/ -> Device("emu")),
checked against tinygrad on its CPU device (clang-compiled C, an independent backend):
an MNIST-sized MLP forward pass and one training step (backward, SGD), a small CNN (conv,
relu, max-pool, linear, log-softmax) and a transformer block (layernorm, causal attention,
GELU, residuals, softmax)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

pytest.importorskip("tinygrad")
if shutil.which("clang-22") is None and shutil.which("clang") is None:
    pytest.fail("tinygrad's CPU device (the reference here) needs clang (.ci/run installs clang-22)",
                pytrace=False)


@pytest.fixture(autouse=True)
def _cc(monkeypatch):
    monkeypatch.setenv("CC", "clang-22" if shutil.which("clang-22") else "clang")
    import frontend.tinygrad  # noqa: F401


def mlp_step(dev):
    from tinygrad import Tensor
    from tinygrad.helpers import Context
    from tinygrad.nn.optim import SGD
    rng = np.random.default_rng(0)
    w1 = Tensor(rng.standard_normal((784, 32)).astype(np.float32) * 0.05, device=dev)
    w2 = Tensor(rng.standard_normal((32, 10)).astype(np.float32) * 0.1, device=dev)
    x = Tensor(rng.standard_normal((8, 784)).astype(np.float32), device=dev)
    y = Tensor(rng.integers(0, 10, 8).astype(np.int32), device=dev)
    opt = SGD([w1, w2], lr=0.1)
    with Context(TRAINING=1):
        out = (x @ w1).relu() @ w2
        loss = out.sparse_categorical_crossentropy(y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [t.numpy() for t in (out, loss, w1, w2)]


def cnn(dev):
    from tinygrad import Tensor
    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((2, 3, 12, 12)).astype(np.float32), device=dev)
    w = Tensor(rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3, device=dev)
    w2 = Tensor(rng.standard_normal((4 * 5 * 5, 10)).astype(np.float32) * 0.1, device=dev)
    h = x.conv2d(w).relu().max_pool2d(2)
    return [(h.reshape(2, -1) @ w2).log_softmax().numpy()]


def transformer_block(dev):
    from tinygrad import Tensor
    rng = np.random.default_rng(1)
    x = Tensor(rng.standard_normal((2, 8, 16)).astype(np.float32), device=dev)
    wq, wk, wv, w1 = (Tensor(rng.standard_normal((16, 16)).astype(np.float32) * 0.2, device=dev) for _ in range(4))
    h = x.layernorm()
    y = x + (h @ wq).scaled_dot_product_attention(h @ wk, h @ wv, is_causal=True)
    y = y + (y.layernorm() @ w1).gelu()
    return [y.softmax(-1).numpy()]


@pytest.mark.parametrize("model", [mlp_step, cnn, transformer_block], ids=lambda f: f.__name__)
def test_model_matches_tinygrad_cpu(model):
    got, want = model("WAVESMITH"), model("CPU")
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)

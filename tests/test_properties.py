"""Properties that hold for every shape, checked with hypothesis over random ones."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mha


@st.composite
def layers(draw: st.DrawFn, batch: bool = False):
    """A random sentence and multi-head weights: (X, W_q, W_k, W_v, W_o)."""
    n = draw(st.integers(1, 8))
    h = draw(st.integers(1, 4))
    d_k = draw(st.integers(1, 5))
    d_v = draw(st.integers(1, 5))
    d_model = draw(st.integers(1, 10))
    seed = draw(st.integers(0, 2**31 - 1))
    g = torch.Generator().manual_seed(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=torch.float64, generator=g)

    X = randn(3, n, d_model) if batch else randn(n, d_model)
    return (
        X,
        randn(h, d_model, d_k),
        randn(h, d_model, d_k),
        randn(h, d_model, d_v),
        randn(h * d_v, d_model),
    )


@settings(max_examples=60, deadline=None)
@given(layers())
def test_rows_sum_to_one(layer) -> None:
    _, weights = mha.multi_head_attention(*layer)
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1], dtype=torch.float64))
    assert (weights >= 0).all()


@settings(max_examples=60, deadline=None)
@given(layers(), st.randoms(use_true_random=False))
def test_permuting_words_permutes_output(layer, rnd) -> None:
    X, *W = layer
    perm = list(range(X.shape[0]))
    rnd.shuffle(perm)
    p = torch.tensor(perm)
    out, weights = mha.multi_head_attention(X, *W)
    out_p, weights_p = mha.multi_head_attention(X[p], *W)
    torch.testing.assert_close(out_p, out[p], rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(weights_p, weights[:, p][:, :, p], rtol=1e-9, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(layers())
def test_one_head_equals_single_head(layer) -> None:
    X, W_q, W_k, W_v, W_o = layer
    d_v = W_v.shape[-1]
    out, weights = mha.multi_head_attention(X, W_q[:1], W_k[:1], W_v[:1], W_o[:d_v])
    ref, ref_w = mha.single_head(X, W_q[0], W_k[0], W_v[0])  # (n, d_v), (n, n)
    torch.testing.assert_close(weights[0], ref_w, rtol=0, atol=1e-12)
    torch.testing.assert_close(out, ref @ W_o[:d_v], rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(layers(batch=True))
def test_batched_equals_loop_over_sentences(layer) -> None:
    X, *W = layer
    out, weights = mha.multi_head_attention(X, *W)
    for b in range(X.shape[0]):
        out_b, weights_b = mha.multi_head_attention(X[b], *W)
        torch.testing.assert_close(out[b], out_b, rtol=0, atol=1e-12)
        torch.testing.assert_close(weights[b], weights_b, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(layers(batch=True))
def test_concat_times_w_o_is_sum_of_per_head_blocks(layer) -> None:
    X, W_q, W_k, W_v, W_o = layer
    h, d_v = W_v.shape[0], W_v.shape[-1]
    H, _ = mha.all_heads(X, W_q, W_k, W_v)  # (b, h, n, d_v)
    blocks = sum(H[:, i] @ W_o[i * d_v : (i + 1) * d_v] for i in range(h))  # (b, n, d_model)
    torch.testing.assert_close(mha.concat_heads(H) @ W_o, blocks, rtol=1e-10, atol=1e-10)
    out, _ = mha.multi_head_attention(X, W_q, W_k, W_v, W_o)
    torch.testing.assert_close(out, blocks, rtol=1e-10, atol=1e-10)

"""Properties that hold for every shape, checked with hypothesis over random ones."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import mha
from mha.stats import wilson_interval


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


@st.composite
def attention_layers(draw: st.DrawFn):
    """Random shapes with d_k != d_v, a batch, and g key/value groups dividing h."""
    b, n, d_model = draw(st.integers(1, 3)), draw(st.integers(1, 7)), draw(st.integers(1, 9))
    d_k = draw(st.integers(1, 9))
    d_v = draw(st.integers(1, 9).filter(lambda v: v != d_k))
    h = draw(st.integers(1, 6))
    g = draw(st.sampled_from([d for d in range(1, h + 1) if h % d == 0]))
    gen = torch.Generator().manual_seed(draw(st.integers(0, 2**31 - 1)))

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=torch.float64, generator=gen)

    X = randn(b, n, d_model)  # (b, n, d_model)
    return (
        X,
        randn(h, d_model, d_k),
        randn(g, d_model, d_k),
        randn(g, d_model, d_v),
        randn(h * d_v, d_model),
    )


def _sdpa_heads(X, W_q, W_k, W_v):
    """Every head by PyTorch's scaled_dot_product_attention: (b, h, n, d_v), (b, h, n, n)."""
    Q = torch.einsum("bnd,hdk->bhnk", X, W_q)  # (b, h, n, d_k)
    K = torch.einsum("bnd,gdk->bgnk", X, W_k)  # (b, g, n, d_k)
    V = torch.einsum("bnd,gdv->bgnv", X, W_v)  # (b, g, n, d_v)
    n = X.shape[1]
    eye = torch.eye(n, dtype=X.dtype).expand(*K.shape[:2], n, n)  # values that return weights
    H = F.scaled_dot_product_attention(Q, K, V, enable_gqa=True)  # (b, h, n, d_v)
    return H, F.scaled_dot_product_attention(Q, K, eye, enable_gqa=True)  # (b, h, n, n)


@settings(max_examples=80, deadline=None)
@given(attention_layers())
def test_grouped_heads_equal_pytorchs_attention(layer) -> None:
    X, W_q, W_k, W_v, _ = layer
    H, weights = mha.grouped_heads(X, W_q, W_k, W_v)  # (b, h, n, d_v), (b, h, n, n)
    want_H, want_w = _sdpa_heads(X, W_q, W_k, W_v)
    torch.testing.assert_close(H, want_H, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(weights, want_w, rtol=1e-9, atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(attention_layers())
def test_multi_head_attention_equals_pytorchs_attention(layer) -> None:
    X, W_q, W_k, W_v, W_o = layer
    h = W_q.shape[0]
    W_k, W_v = (
        W_k.repeat_interleave(h // W_k.shape[0], 0),
        W_v.repeat_interleave(h // W_v.shape[0], 0),
    )  # (h, d_model, d_k), (h, d_model, d_v): one key/value head per query head
    out, weights = mha.multi_head_attention(X, W_q, W_k, W_v, W_o)  # (b, n, d_model)
    H, want_w = _sdpa_heads(X, W_q, W_k, W_v)  # (b, h, n, d_v)
    concat = H.transpose(1, 2).flatten(2)  # (b, n, h*d_v)
    torch.testing.assert_close(out, concat @ W_o, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(weights, want_w, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- the Wilson interval

CONFIDENCE = st.floats(0.5, 0.999999)


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(1, 10_000))
    return draw(st.integers(0, n)), n


@settings(max_examples=500, deadline=None)
@given(counts(), CONFIDENCE)
def test_wilson_interval_holds_the_share_inside_zero_and_one(kn, confidence: float) -> None:
    k, n = kn
    low, high = wilson_interval(k, n, confidence)
    assert 0.0 <= low <= k / n <= high <= 1.0, (k, n, confidence, low, high)


@settings(max_examples=300, deadline=None)
@given(counts(), CONFIDENCE)
def test_wilson_interval_is_symmetric_in_successes_and_failures(kn, confidence: float) -> None:
    k, n = kn
    low, high = wilson_interval(k, n, confidence)
    low_f, high_f = wilson_interval(n - k, n, confidence)
    assert low == pytest.approx(1 - high_f, abs=1e-12)
    assert high == pytest.approx(1 - low_f, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(counts(), CONFIDENCE, CONFIDENCE)
def test_wilson_intervals_nest_as_the_confidence_grows(kn, c1: float, c2: float) -> None:
    k, n = kn
    lo_c, hi_c = sorted((c1, c2))
    narrow, wide = wilson_interval(k, n, lo_c), wilson_interval(k, n, hi_c)
    assert wide[0] <= narrow[0] + 1e-15 and narrow[1] <= wide[1] + 1e-15


def test_no_successes_or_no_failures_give_exact_ends() -> None:
    """At k = 0 the low end is exactly 0 and at k = n the high end exactly 1 (the closed
    form alone leaves them off by round-off, e.g. 2e-17 at k = 0, n = 5, 75 %)."""
    edges = [(k, n, c) for n in range(1, 60) for k in (0, n) for c in (0.9, 0.95, 0.99)]
    assert all(wilson_interval(k, n, c)[0] >= 0.0 for k, n, c in edges)
    assert all(wilson_interval(k, n, c)[1] <= 1.0 for k, n, c in edges)
    assert {wilson_interval(0, n, c)[0] for _, n, c in edges} == {0.0}
    assert {wilson_interval(n, n, c)[1] for _, n, c in edges} == {1.0}


@settings(max_examples=200, deadline=None)
@given(counts(), CONFIDENCE)
def test_wilson_ends_are_where_the_score_test_just_rejects(kn, confidence: float) -> None:
    """Each end p of the interval solves (k/n - p)^2 = z^2 p (1 - p) / n (the score test's
    boundary), found here as the roots of that quadratic by numpy, not by the closed form."""
    k, n = kn
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p_hat, a = k / n, z * z / n
    roots = sorted(np.roots([1 + a, -(2 * p_hat + a), p_hat * p_hat]).real)  # two real roots
    got = wilson_interval(k, n, confidence)
    assert got == pytest.approx((max(0.0, roots[0]), min(1.0, roots[1])), abs=1e-9)


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.1])
def test_wilson_interval_rejects_a_confidence_outside_zero_and_one(confidence: float) -> None:
    with pytest.raises(ValueError, match=f"strictly between 0 and 1, got {confidence}"):
        wilson_interval(3, 10, confidence)

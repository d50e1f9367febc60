"""mha's attention against PyTorch's own, and the chapter's claims about shapes (C7, C14)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import mha
from mha import toy

SHAPES = [  # (n, d_model, h)
    (5, 9, 3),
    (1, 4, 1),
    (7, 8, 2),
    (6, 12, 4),
    (10, 16, 8),
    (3, 6, 6),
]


def _torch_mha(d_model: int, h: int, seed: int) -> torch.nn.MultiheadAttention:
    torch.manual_seed(seed)
    layer = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True)
    layer = layer.double()
    for p in layer.parameters():  # default init leaves some zero; make every weight count
        torch.nn.init.normal_(p, std=d_model**-0.5)
    return layer


def _our_weights(layer: torch.nn.MultiheadAttention, h: int):
    """Map torch's (3*d, d) in_proj and (d, d) out_proj, written y = x A^T, to mha's heads."""
    d = layer.embed_dim
    A_q, A_k, A_v = layer.in_proj_weight.detach().split(d)  # (d, d) each
    W_q = mha.split_heads(A_q.T, h)  # (h, d, d_k)
    W_k = mha.split_heads(A_k.T, h)  # (h, d, d_k)
    W_v = mha.split_heads(A_v.T, h)  # (h, d, d_k)
    W_o = layer.out_proj.weight.detach().T  # (h*d_k, d)
    return W_q, W_k, W_v, W_o


@pytest.mark.parametrize(("n", "d_model", "h"), SHAPES)
def test_matches_torch_multihead_attention(n: int, d_model: int, h: int) -> None:
    layer = _torch_mha(d_model, h, seed=n * 100 + d_model)
    X = torch.randn(2, n, d_model, dtype=torch.float64, generator=torch.Generator().manual_seed(n))
    want, want_w = layer(X, X, X, need_weights=True, average_attn_weights=False)
    got, got_w = mha.multi_head_attention(X, *_our_weights(layer, h))
    torch.testing.assert_close(got, want, rtol=0, atol=1e-9)
    torch.testing.assert_close(got_w, want_w, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("n", "d_model", "h"), SHAPES)
def test_heads_match_scaled_dot_product_attention(n: int, d_model: int, h: int) -> None:
    g = torch.Generator().manual_seed(h)
    X = torch.randn(n, d_model, dtype=torch.float64, generator=g)
    W_q, W_k, W_v = (
        torch.randn(h, d_model, d_model // h, dtype=torch.float64, generator=g) for _ in range(3)
    )
    got, _ = mha.all_heads(X, W_q, W_k, W_v)  # (h, n, d_k)
    want = F.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)  # (h, n, d_k)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-9)


def test_causal_mask_matches_torch() -> None:
    g = torch.Generator().manual_seed(1)
    Q, K, V = (torch.randn(3, 6, 4, dtype=torch.float64, generator=g) for _ in range(3))
    got, w = mha.scaled_dot_product(Q, K, V, mask=mha.causal_mask(6))
    want = F.scaled_dot_product_attention(Q, K, V, is_causal=True)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-9)
    assert torch.all(w.triu(1) == 0)


def test_each_head_returns_n_by_d_k() -> None:  # C7
    W_q, W_k, W_v = toy.designed_heads()
    H, weights = mha.all_heads(toy.X, W_q, W_k, W_v)
    assert H.shape == (3, 5, 3)
    assert weights.shape == (3, 5, 5)
    eye = torch.eye(5, dtype=torch.float64)  # values that return the weights
    for i in range(3):
        Q, K, V = toy.X @ W_q[i], toy.X @ W_k[i], toy.X @ W_v[i]  # (5, 3) each
        out_i, w_i = mha.single_head(toy.X, W_q[i], W_k[i], W_v[i])
        want = F.scaled_dot_product_attention(Q, K, V)  # (5, 3)
        torch.testing.assert_close(out_i, want, rtol=0, atol=1e-12)
        torch.testing.assert_close(H[i], want, rtol=0, atol=1e-12)
        torch.testing.assert_close(weights[i], F.scaled_dot_product_attention(Q, K, eye))
        torch.testing.assert_close(w_i, weights[i], rtol=0, atol=1e-12)


@pytest.mark.parametrize("batched", [False, True])
def test_leading_dimension_equals_loop_over_heads(batched: bool) -> None:  # C14
    X = (
        toy.X.expand(4, 5, 9) + 0.1 * torch.randn(4, 5, 9, dtype=torch.float64)
        if batched
        else toy.X
    )
    W_q, W_k, W_v = toy.random_heads(3, 3, seed=7)
    W_o = toy.random_output(3, 3, seed=7)
    out, w = mha.multi_head_attention(X, W_q, W_k, W_v, W_o)
    out_loop, w_loop = mha.multi_head_attention_loop(X, W_q, W_k, W_v, W_o)
    torch.testing.assert_close(out, out_loop, rtol=0, atol=1e-12)
    torch.testing.assert_close(w, w_loop, rtol=0, atol=1e-12)
    assert out.shape == (*X.shape[:-1], 9)


def test_chapter_listing_is_reference_behaviour() -> None:
    """The chapter's code, typed in as printed, agrees with mha (W_o square, d_v = d_k)."""

    def chapter(X, W_q, W_k, W_v, W_o):
        Q, K, V = X @ W_q, X @ W_k, X @ W_v
        d_k = Q.shape[-1]
        scores = Q @ K.transpose(-2, -1)
        weights = torch.softmax(scores / d_k**0.5, dim=-1)
        heads = weights @ V
        concat = heads.transpose(0, 1).reshape(heads.shape[1], -1)
        return concat @ W_o, weights

    W = toy.random_heads(3, 3, seed=3)
    W_o = toy.random_output(3, 3, seed=3)
    want, want_w = chapter(toy.X, *W, W_o)
    got, got_w = mha.multi_head_attention(toy.X, *W, W_o)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    torch.testing.assert_close(got_w, want_w, rtol=0, atol=1e-12)


def test_softmax_stays_finite_for_huge_scores() -> None:
    Q = torch.tensor([[1e4, 0.0], [-1e4, 1e4]], dtype=torch.float64)  # (2, 2)
    K = torch.tensor([[1e4, 1.0], [1.0, 1e4]], dtype=torch.float64)  # scores ~ 1e8
    V = torch.eye(2, dtype=torch.float64)
    out, w = mha.scaled_dot_product(Q, K, V)
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    torch.testing.assert_close(w.sum(-1), torch.ones(2, dtype=torch.float64))
    # Each row's two scores differ by about 7e7: all the weight goes to the larger one.
    assert torch.equal(w, V) and torch.equal(out, V)
    # Every word equal: every score is the same 3.2e9, so each row is exactly uniform
    # and every output is the mean of three equal values 4e4 summed over 4 columns.
    X = torch.full((3, 4), 1e4, dtype=torch.float32)
    W = torch.ones(1, 4, 4, dtype=torch.float32)
    out, w = mha.multi_head_attention(X, W, W, W, torch.ones(4, 4))
    torch.testing.assert_close(w, torch.full((1, 3, 3), 1 / 3), rtol=1e-6, atol=0)
    torch.testing.assert_close(out, torch.full((3, 4), 1.6e5), rtol=1e-6, atol=0)


def test_split_heads_cuts_columns() -> None:
    W = torch.arange(36, dtype=torch.float64).reshape(6, 6)
    S = mha.split_heads(W, 3)  # (3, 6, 2)
    assert S.shape == (3, 6, 2)
    assert torch.equal(S[1], W[:, 2:4])


def test_window_mask_keeps_the_band_and_its_argument_checks() -> None:
    got = mha.window_mask(6, 2)  # (6, 6)
    want = [[abs(i - j) <= 2 for j in range(6)] for i in range(6)]
    assert got.tolist() == want
    assert mha.window_mask(4, 0).equal(torch.eye(4, dtype=torch.bool))
    assert mha.window_mask(3, 5).all()
    with pytest.raises(ValueError, match="n must be a positive int"):
        mha.window_mask(0)
    with pytest.raises(ValueError, match="radius must be an int >= 0"):
        mha.window_mask(3, -1)


def test_causal_mask_of_a_wider_key_set_and_its_argument_checks() -> None:
    got = mha.causal_mask(2, 4)  # (2, 4)
    want = [[j <= i for j in range(4)] for i in range(2)]
    assert got.tolist() == want
    with pytest.raises(ValueError, match="n_q must be a positive int"):
        mha.causal_mask(0, 3)
    with pytest.raises(ValueError, match="n_k must be a positive int"):
        mha.causal_mask(3, 0)

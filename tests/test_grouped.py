"""Heads that share keys and values (grouped-query attention): the function, its costs, its view."""

from __future__ import annotations

import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention
from torch.utils.flop_counter import FlopCounterMode

import mha
from mha import toy

HG = [(8, 8), (8, 4), (8, 2), (8, 1), (3, 1), (3, 3), (6, 2), (1, 1)]  # (h, g)


def _weights(h: int, g: int, d_model: int, d_k: int, d_v: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    W_q = torch.randn(h, d_model, d_k, generator=gen, dtype=torch.float64)  # (h, d_model, d_k)
    W_k = torch.randn(g, d_model, d_k, generator=gen, dtype=torch.float64)  # (g, d_model, d_k)
    W_v = torch.randn(g, d_model, d_v, generator=gen, dtype=torch.float64)  # (g, d_model, d_v)
    return W_q, W_k, W_v


@pytest.mark.parametrize(("h", "g"), HG)
def test_grouped_heads_match_pytorch_enable_gqa(h: int, g: int) -> None:
    d_model, d_k, d_v = 12, 4, 3
    W_q, W_k, W_v = _weights(h, g, d_model, d_k, d_v, seed=10 * h + g)
    X = torch.randn(2, 5, d_model, generator=torch.Generator().manual_seed(h), dtype=torch.float64)
    H, weights = mha.grouped_heads(X, W_q, W_k, W_v)  # (2, h, 5, d_v), (2, h, 5, 5)
    assert H.shape == (2, h, 5, d_v) and weights.shape == (2, h, 5, 5)
    Q = torch.einsum("bnd,hdk->bhnk", X, W_q)  # (2, h, 5, d_k)
    K = torch.einsum("bnd,gdk->bgnk", X, W_k)  # (2, g, 5, d_k)
    V = torch.einsum("bnd,gdk->bgnk", X, W_v)  # (2, g, 5, d_v)
    want = scaled_dot_product_attention(Q, K, V, enable_gqa=True)  # (2, h, 5, d_v)
    torch.testing.assert_close(H, want, rtol=0, atol=1e-12)
    eye = torch.eye(5, dtype=torch.float64).expand(2, g, 5, 5)  # values that return weights
    torch.testing.assert_close(
        weights, scaled_dot_product_attention(Q, K, eye, enable_gqa=True), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize(("h", "g"), HG)
def test_grouped_heads_equal_all_heads_with_repeated_keys_and_values(h: int, g: int) -> None:
    W_q, W_k, W_v = _weights(h, g, 9, 3, 3, seed=h + 100 * g)
    H, weights = mha.grouped_heads(toy.X, W_q, W_k, W_v)
    W_k_rep, W_v_rep = (W.repeat_interleave(h // g, dim=0) for W in (W_k, W_v))  # (h, 9, 3)
    H_all, w_all = mha.all_heads(toy.X, W_q, W_k_rep, W_v_rep)
    torch.testing.assert_close(H, H_all, rtol=0, atol=1e-12)
    torch.testing.assert_close(weights, w_all, rtol=0, atol=1e-12)
    # Give every query head head 0's W_q: then two heads agree exactly when they read the
    # same keys and values, i.e. when they are in the same group (heads j*h/g .. (j+1)*h/g-1).
    H_same, _ = mha.grouped_heads(toy.X, W_q[:1].expand_as(W_q), W_k, W_v)  # (h, 5, 3)
    for i in range(h):
        same_group = i // (h // g) == 0
        assert torch.allclose(H_same[i], H_same[0], rtol=0, atol=1e-12) == same_group, (i, g)


def test_grouped_heads_reject_uneven_groups_naming_shapes() -> None:
    W_q, W_k, W_v = _weights(8, 3, 9, 3, 3, seed=0)
    with pytest.raises(ValueError, match=r"W_k \(3, 9, 3\) .* divide the h = 8 .* W_q \(8, 9, 3\)"):
        mha.grouped_heads(toy.X, W_q, W_k, W_v)
    W_q, W_k, W_v = _weights(4, 2, 9, 3, 3, seed=0)
    with pytest.raises(ValueError, match=r"W_k \(2, 9, 3\) and W_v \(1, 9, 3\) must hold one"):
        mha.grouped_heads(toy.X, W_q, W_k, W_v[:1])
    with pytest.raises(ValueError, match=r"W_k \(2, 8, 3\) expects word vectors of width 8"):
        mha.grouped_heads(toy.X, W_q, W_k[:, :8], W_v)
    with pytest.raises(ValueError, match=r"W_q \(4, 9, 3\) vs W_k \(2, 9, 2\)"):
        mha.grouped_heads(toy.X, W_q, W_k[..., :2], W_v)
    with pytest.raises(ValueError, match=r"W_v must be \(g, d_model, d_k\), got \(9, 3\)"):
        mha.grouped_heads(toy.X, W_q, W_k, W_v[0])


@pytest.mark.parametrize(("n", "d_model", "h", "g"), [(5, 9, 3, 1), (64, 64, 8, 2), (16, 32, 4, 4)])
def test_grouped_cost_matches_tensors_and_a_flop_counter(n: int, d_model: int, h: int, g: int):
    c = mha.layer_cost(n, d_model, h, kv_groups=g)
    d_k = d_model // h
    W_q, W_k, W_v = (w.float() for w in _weights(h, g, d_model, d_k, d_k, seed=n))
    W_o = toy.random_output(h, d_k, d_model=d_model).float()  # (h*d_k, d_model)
    X = torch.randn(n, d_model, generator=torch.Generator().manual_seed(n))  # (n, d_model)
    assert W_q.numel() == c.params_per_role
    assert W_k.numel() == W_v.numel() == c.params_kv_per_role == g * d_model * d_k
    assert W_q.numel() + W_k.numel() + W_v.numel() == c.params_without_out
    assert c.params_total == c.params_without_out + W_o.numel()
    K, V = mha.project(X, W_k), mha.project(X, W_v)  # (g, n, d_k) each: what a cache keeps
    assert (K.numel() + V.numel()) // n == c.kv_cache_per_token == 2 * g * d_k
    with FlopCounterMode(display=False) as proj_k:
        mha.project(X, W_k)
    assert proj_k.get_total_flops() == 2 * c.projection_kv_per_role
    with FlopCounterMode(display=False) as heads:
        H, _ = mha.grouped_heads(X, W_q, W_k, W_v)  # (h, n, d_k)
    assert heads.get_total_flops() == 2 * c.macs_without_out
    Q = mha.project(X, W_q)  # (h, n, d_k)
    with FlopCounterMode(display=False) as attend:
        scaled_dot_product_attention(Q, K, V, enable_gqa=True)
    assert attend.get_total_flops() == 2 * (c.scoring + c.blending)
    with FlopCounterMode(display=False) as out:
        mha.concat_heads(H) @ W_o
    assert out.get_total_flops() == 2 * c.output
    assert c.macs_total == c.macs_without_out + c.output


def test_sharing_saves_only_keys_and_values() -> None:
    mha_cost = mha.layer_cost(512, 512, 8)
    for g in (1, 2, 4, 8):
        c = mha.layer_cost(512, 512, 8, kv_groups=g)
        assert c.kv_cache_per_token * 8 == mha_cost.kv_cache_per_token * g
        assert c.params_kv_per_role * 8 == mha_cost.params_per_role * g
        assert c.params_per_role == mha_cost.params_per_role  # W^Q untouched
        assert c.projection_per_role == mha_cost.projection_per_role
        assert (c.scoring, c.blending, c.output) == (
            mha_cost.scoring,
            mha_cost.blending,
            mha_cost.output,
        )
    assert mha.layer_cost(512, 512, 8, kv_groups=8) == mha_cost
    assert mha_cost.kv_cache_per_token == 2 * 512  # 2 * h * d_k


def test_layer_cost_rejects_groups_that_do_not_divide_h() -> None:
    with pytest.raises(ValueError, match="h = 8 query heads cannot share g = 3"):
        mha.layer_cost(5, 512, 8, kv_groups=3)
    with pytest.raises(ValueError, match="kv_groups must be a positive int"):
        mha.layer_cost(5, 512, 8, kv_groups=0)

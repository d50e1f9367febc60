"""The cost accounting (C8–C11, C13) against real tensors and a FLOP counter."""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import mha
from mha import toy


@pytest.mark.parametrize(("d_model", "h", "d_k"), [(9, 3, 3), (512, 8, 64)])
def test_narrow_head_shapes(d_model: int, h: int, d_k: int) -> None:  # C8
    W_q, W_k, W_v = toy.random_heads(h, seed=0, d_model=d_model)
    assert W_q.shape == (h, d_model, d_k)
    n = 5
    X = torch.randn(n, d_model, dtype=torch.float64)
    H, _ = mha.all_heads(X, W_q, W_k, W_v)
    assert H.shape == (h, n, d_k)
    assert mha.concat_heads(H).shape == (n, d_model)


@pytest.mark.parametrize("h", [1, 2, 4, 8, 16])
def test_parameters_per_role_are_d_model_squared(h: int) -> None:  # C9, C13
    d_model = 64
    W_q, W_k, W_v = toy.random_heads(h, seed=1, d_model=d_model)
    W_o = toy.random_output(h, d_model // h, d_model=d_model)
    c = mha.layer_cost(n=10, d_model=d_model, h=h)
    assert W_q.numel() == W_k.numel() == W_v.numel() == c.params_per_role == d_model**2
    assert W_q.numel() + W_k.numel() + W_v.numel() == c.params_without_out == 3 * d_model**2
    assert W_o.numel() == c.params_out == d_model**2
    assert c.params_total == 4 * d_model**2


@pytest.mark.parametrize(("n", "d_model", "h"), [(5, 9, 3), (64, 64, 8), (32, 48, 4), (17, 16, 1)])
def test_multiply_adds_match_a_flop_counter(n: int, d_model: int, h: int) -> None:  # C10, C11
    c = mha.layer_cost(n, d_model, h)
    assert c.projection_per_role == n * d_model**2
    assert c.scoring == c.blending == n * n * d_model
    X = torch.randn(n, d_model)
    W_q, W_k, W_v = (w.float() for w in toy.random_heads(h, seed=2, d_model=d_model))
    W_o = toy.random_output(h, d_model // h, d_model=d_model).float()

    with FlopCounterMode(display=False) as proj:
        Q = X @ W_q
    assert proj.get_total_flops() == 2 * c.projection_per_role
    K, V = X @ W_k, X @ W_v
    with FlopCounterMode(display=False) as attn:
        mha.scaled_dot_product(Q, K, V)
    assert attn.get_total_flops() == 2 * (c.scoring + c.blending)
    with FlopCounterMode(display=False) as whole:
        mha.multi_head_attention(X, W_q, W_k, W_v, W_o)
    assert whole.get_total_flops() == 2 * c.macs_total


def test_full_width_heads_cost_h_times_more() -> None:
    narrow, wide = mha.layer_cost(5, 9, 3), mha.layer_cost(5, 9, 3, d_k=9)
    one = mha.layer_cost(5, 9, 1)
    assert narrow.macs_total == one.macs_total
    assert narrow.params_total == one.params_total
    assert wide.macs_total == 3 * one.macs_total
    assert wide.params_total == 3 * one.params_total


def test_cost_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="d_model = 10 into h = 3"):
        mha.layer_cost(5, 10, 3)
    with pytest.raises(ValueError, match="n must be a positive int"):
        mha.layer_cost(0, 9, 3)

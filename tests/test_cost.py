"""The cost accounting (C8–C11, C13) against real tensors and a FLOP counter."""

from __future__ import annotations

import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention
from torch.utils.flop_counter import FlopCounterMode

import mha
from mha import toy


@pytest.mark.parametrize(("d_model", "h", "d_k"), [(9, 3, 3), (512, 8, 64)])
def test_narrow_heads_fill_d_model_and_concat_keeps_each_heads_numbers(
    d_model: int, h: int, d_k: int
) -> None:  # C8
    W_q, W_k, W_v = toy.random_heads(h, seed=0, d_model=d_model)
    assert W_q.shape == (h, d_model, d_k)
    n = 5
    X = torch.randn(n, d_model, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    H, _ = mha.all_heads(X, W_q, W_k, W_v)  # (h, n, d_k)
    C = mha.concat_heads(H)  # (n, d_model)
    assert C.shape == (n, d_model)
    for i in range(h):  # head i, computed on its own, is block i of the concatenation
        want = scaled_dot_product_attention(X @ W_q[i], X @ W_k[i], X @ W_v[i])  # (n, d_k)
        torch.testing.assert_close(C[:, i * d_k : (i + 1) * d_k], want, rtol=0, atol=1e-10)


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


def _flops(fn, *args) -> int:
    """FLOPs that PyTorch's own counter sees in ``fn(*args)``."""
    with FlopCounterMode(display=False) as counter:
        fn(*args)
    return counter.get_total_flops()


# (n, d_model, h, d_k, g): heads at full width (h*d_k != d_model), widths that do not
# divide d_model, n != d_model and shared keys/values, so that no two formulas coincide.
UNEVEN = [(7, 12, 3, 12, 3), (5, 10, 4, 3, 2), (6, 9, 2, 9, 1), (11, 8, 6, 5, 3), (4, 16, 1, 7, 1)]


@pytest.mark.parametrize(("n", "d_model", "h", "d_k", "g"), UNEVEN)
def test_every_cost_field_matches_real_tensors_and_the_flop_counter(
    n: int, d_model: int, h: int, d_k: int, g: int
) -> None:
    """Every field of Cost, against numel() of the layer's own weights and the FLOPs
    PyTorch counts (two per multiply-add) in each stage, computed with torch alone."""
    c = mha.layer_cost(n, d_model, h, d_k=d_k, kv_groups=g)
    gen = torch.Generator().manual_seed(n)
    X = torch.randn(n, d_model, generator=gen)  # (n, d_model)
    W_q = torch.randn(h, d_model, d_k, generator=gen)  # (h, d_model, d_k)
    W_k = torch.randn(g, d_model, d_k, generator=gen)  # (g, d_model, d_k)
    W_v = torch.randn(g, d_model, d_k, generator=gen)  # (g, d_model, d_v), d_v = d_k
    W_o = torch.randn(h * d_k, d_model, generator=gen)  # (h*d_v, d_model)
    assert (c.n, c.d_model, c.h, c.d_k, c.kv_groups) == (n, d_model, h, d_k, g)
    assert c.params_per_role == W_q.numel()
    assert c.params_kv_per_role == W_k.numel() == W_v.numel()
    assert c.params_out == W_o.numel()
    assert c.params_without_out == W_q.numel() + W_k.numel() + W_v.numel()
    assert c.params_total == W_q.numel() + W_k.numel() + W_v.numel() + W_o.numel()

    def proj(W: torch.Tensor) -> torch.Tensor:
        return torch.bmm(X.expand(W.shape[0], n, d_model), W)  # (heads, n, d_k)

    Q, K, V = proj(W_q), proj(W_k), proj(W_v)  # (h | g, n, d_k)
    assert 2 * c.projection_per_role == _flops(proj, W_q)
    assert 2 * c.projection_kv_per_role == _flops(proj, W_k) == _flops(proj, W_v)
    assert 2 * c.projection == _flops(proj, W_q) + _flops(proj, W_k) + _flops(proj, W_v)
    K, V = K.repeat_interleave(h // g, 0), V.repeat_interleave(h // g, 0)  # (h, n, d_k)
    weights = torch.softmax(torch.bmm(Q, K.transpose(1, 2)), -1)  # (h, n, n)
    assert 2 * c.scoring == _flops(torch.bmm, Q, K.transpose(1, 2))
    assert 2 * c.blending == _flops(torch.bmm, weights, V)
    concat = torch.bmm(weights, V).transpose(0, 1).reshape(n, h * d_k)  # (n, h*d_v)
    assert 2 * c.output == _flops(torch.matmul, concat, W_o)
    # What a key/value cache keeps per word: every key and value head's row.
    assert c.kv_cache_per_token == (proj(W_k).numel() + proj(W_v).numel()) // n
    # The whole layer, as mha computes it, costs what the fields add up to.
    assert 2 * c.macs_without_out == _flops(mha.grouped_heads, X, W_q, W_k, W_v)
    assert c.macs_total == c.macs_without_out + c.output
    if g == h:
        assert 2 * c.macs_total == _flops(mha.multi_head_attention, X, W_q, W_k, W_v, W_o)
    # The table and widget view of the same counts: every field, and the two sums.
    d = c.as_dict()
    assert 2 * d["macs_without_out"] == _flops(mha.grouped_heads, X, W_q, W_k, W_v)
    assert d["macs_total"] == d["macs_without_out"] + d["output"]
    assert d["params_out"] == W_o.numel() and d["kv_cache_per_token"] == c.kv_cache_per_token
    assert len(d) == 19


@pytest.mark.parametrize(("n", "d_model", "h", "d_k", "d_v"), [(6, 10, 2, 3, 7), (5, 9, 3, 9, 2)])
def test_a_layer_with_d_v_not_d_k_costs_what_each_width_says(
    n: int, d_model: int, h: int, d_k: int, d_v: int
) -> None:
    """mha's layer with d_v != d_k does exactly the matrix products Cost's formulas name,
    each with its own width: scoring n^2 d_k, blending n^2 d_v, output n h d_v d_model.
    Cost itself has one head width, so its d_v fields are checked at d_v = d_k above and
    here against the layer priced once at d_k and once at d_v."""
    gen = torch.Generator().manual_seed(d_v)
    X = torch.randn(n, d_model, generator=gen)  # (n, d_model)
    W_q, W_k = (torch.randn(h, d_model, d_k, generator=gen) for _ in range(2))  # (h, d_model, d_k)
    W_v = torch.randn(h, d_model, d_v, generator=gen)  # (h, d_model, d_v)
    W_o = torch.randn(h * d_v, d_model, generator=gen)  # (h*d_v, d_model)
    at_k, at_v = (mha.layer_cost(n, d_model, h, d_k=w) for w in (d_k, d_v))
    want = (
        2 * at_k.projection_per_role
        + at_v.projection_per_role
        + at_k.scoring
        + at_v.blending
        + at_v.output
    )  # multiply-adds: W^Q and W^K at d_k, W^V, blending and W^O at d_v
    assert _flops(mha.multi_head_attention, X, W_q, W_k, W_v, W_o) == 2 * want
    assert W_o.numel() == at_v.params_out and W_v.numel() == at_v.params_per_role


@pytest.mark.parametrize("name", ["n", "d_model", "h", "d_k"])
@pytest.mark.parametrize("bad", [0, -1, 1.5, "3"])
def test_layer_cost_names_the_bad_argument(name: str, bad: object) -> None:
    args = {"n": 5, "d_model": 9, "h": 3, "d_k": 3} | {name: bad}
    with pytest.raises(ValueError, match=rf"^{name} must be a positive int, got {bad!r}$"):
        mha.layer_cost(**args)


def test_layer_cost_takes_heads_one_column_wide() -> None:
    cost = mha.layer_cost(5, 9, 3, d_k=1)  # d_k = 1 is the narrowest head there is
    assert cost.params_per_role == 3 * 9 * 1  # h * d_model * d_k

"""Bad input fails at the boundary with a message that names the shapes."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import toy


def good():
    W_q, W_k, W_v = toy.random_heads(3, 3)
    return toy.X.clone(), W_q, W_k, W_v, toy.random_output(3, 3)


def test_mismatched_widths() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(ValueError, match=r"W_q \(3, 8, 3\).*X \(5, 9\)"):
        mha.multi_head_attention(X, W_q[:, :8], W_k, W_v, W_o)


def test_mismatched_head_counts() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(ValueError, match=r"same number of heads.*W_k \(2, 9, 3\)"):
        mha.multi_head_attention(X, W_q, W_k[:2], W_v, W_o)


def test_query_key_width_mismatch() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(ValueError, match=r"W_q \(3, 9, 3\) vs W_k \(3, 9, 2\)"):
        mha.multi_head_attention(X, W_q, W_k[..., :2], W_v, W_o)


def test_w_o_rows_must_be_h_times_d_v() -> None:
    X, W_q, W_k, W_v, _ = good()
    with pytest.raises(
        ValueError, match=r"W_o must be \(h\*d_v, d_model\) = \(9, 9\).*got \(8, 9\)"
    ):
        mha.multi_head_attention(X, W_q, W_k, W_v, torch.zeros(8, 9, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"d_model = 9 columns"):
        mha.multi_head_attention(X, W_q, W_k, W_v, torch.zeros(9, 7, dtype=torch.float64))


def test_d_model_not_divisible_by_h() -> None:
    with pytest.raises(ValueError, match=r"d_model = 9 into h = 4"):
        toy.random_heads(4)
    with pytest.raises(ValueError, match=r"d_model = 9 into h = 2"):
        mha.split_heads(torch.zeros(9, 9), 2)


def test_integer_dtypes() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(TypeError, match=r"X has dtype torch.int64.*floating-point"):
        mha.multi_head_attention(X.long(), W_q, W_k, W_v, W_o)
    with pytest.raises(TypeError, match=r"W_v has dtype torch.int32"):
        mha.single_head(X, W_q[0], W_k[0], W_v[0].int())


def test_mixed_dtypes() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(TypeError, match=r"X: torch.float32, W_q: torch.float64"):
        mha.multi_head_attention(X.float(), W_q, W_k, W_v, W_o)


def test_empty_sentence() -> None:
    _, W_q, W_k, W_v, W_o = good()
    with pytest.raises(ValueError, match=r"empty sentence.*\(0, 9\)"):
        mha.multi_head_attention(torch.zeros(0, 9, dtype=torch.float64), W_q, W_k, W_v, W_o)


def test_not_a_tensor_and_wrong_rank() -> None:
    X, W_q, W_k, W_v, W_o = good()
    with pytest.raises(TypeError, match=r"X must be a torch\.Tensor, got list"):
        mha.multi_head_attention(X.tolist(), W_q, W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"X must be \(n, d_model\).*got \(9,\)"):
        mha.multi_head_attention(X[0], W_q, W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"W_q must be \(h, d_model, d_k\), got \(9, 3\)"):
        mha.multi_head_attention(X, W_q[0], W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"W_q must be \(d_model, d_k\), got \(3, 9, 3\)"):
        mha.single_head(X, W_q, W_k[0], W_v[0])


def test_bad_masks() -> None:
    Q = torch.randn(4, 2)
    wrong = r"mask must be boolean \(n_q, n_k\) = \(4, 4\), got torch.bool \(3, 3\)"
    with pytest.raises(ValueError, match=wrong):
        mha.scaled_dot_product(Q, Q, Q, mask=torch.ones(3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="at least one key; rows \\[0, 1, 2, 3\\]"):
        mha.scaled_dot_product(Q, Q, Q, mask=torch.zeros(4, 4, dtype=torch.bool))

"""Tests for mha.concat and the figures in mha.concat_plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention

import mha
from mha import toy
from mha.concat import (
    cell_labels,
    columns_touched,
    concat_of_heads,
    decode,
    head_maps,
    layer_output,
    qk_maps,
)
from mha.figures.concat import concat_matrix, reach, reshape_steps
from mha.figures.cost import cost_vs_heads


def test_without_output_projection_each_head_reaches_only_its_block() -> None:
    W_q, W_k, W_v = toy.designed_heads()
    touched = columns_touched(toy.X, W_q, W_k, W_v)
    expected = torch.block_diag(*[torch.ones(1, 3, dtype=torch.bool)] * 3)
    assert torch.equal(touched, expected)


def test_with_output_projection_every_head_reaches_every_column() -> None:
    W_q, W_k, W_v = toy.random_heads(3)
    touched = columns_touched(toy.X, W_q, W_k, W_v, toy.random_output(3, 3))
    assert touched.shape == (3, 9)
    assert touched.all()


def test_layer_output_matches_multi_head_attention() -> None:
    W_q, W_k, W_v = toy.random_heads(3)
    W_o = toy.random_output(3, 3)
    # Each head by PyTorch's attention, laid side by side with torch.cat: no mha code.
    heads = [
        scaled_dot_product_attention(toy.X @ W_q[i], toy.X @ W_k[i], toy.X @ W_v[i])  # (5, 3)
        for i in range(3)
    ]
    concat = torch.cat(heads, dim=-1)  # (5, 9)
    torch.testing.assert_close(layer_output(toy.X, W_q, W_k, W_v), concat, rtol=0, atol=1e-12)
    torch.testing.assert_close(
        layer_output(toy.X, W_q, W_k, W_v, W_o), concat @ W_o, rtol=0, atol=1e-12
    )


def test_cell_labels_follow_the_heads_through_concat() -> None:
    h, n, d_v = 3, 5, 2
    L = cell_labels(h, n, d_v)
    C = mha.concat_heads(L.double()).long()
    for word in range(n):
        for col in range(h * d_v):
            head, w, comp = decode(int(C[word, col]), n, d_v)
            assert (head, w, comp) == (col // d_v, word, col % d_v)


def test_reshape_without_transpose_puts_numbers_in_wrong_rows() -> None:
    L = cell_labels(3, 5, 3)
    wrong = L.reshape(5, 9)
    words = [[decode(int(v), 5, 3)[1] for v in row] for row in wrong]
    assert any(w != r for r, row in enumerate(words) for w in row)


def test_cell_labels_reject_empty() -> None:
    with pytest.raises(ValueError, match="positive"):
        cell_labels(0, 5, 3)


def test_figures_draw() -> None:
    W_q, W_k, W_v = toy.designed_heads()
    H, _ = mha.all_heads(toy.X, W_q, W_k, W_v)
    fig, (a, b) = plt.subplots(1, 2)
    concat_matrix(a, mha.concat_heads(H), toy.SENTENCE, 3)
    assert len(a.patches) == 5 * 9 + 3  # cells plus one frame per head
    reach(b, columns_touched(toy.X, W_q, W_k, W_v))
    assert len(b.patches) == 3 * 9
    with pytest.raises(ValueError, match="multiple of h"):
        concat_matrix(a, torch.zeros(5, 8), toy.SENTENCE, 3)
    plt.close(fig)
    fig = reshape_steps(toy.SENTENCE)
    assert len(fig.axes) == 4
    plt.close(fig)
    fig = cost_vs_heads(512, 512, (1, 2, 4))
    assert len(fig.axes) == 2
    assert len(fig.axes[0].lines) == 2 and len(fig.axes[1].lines) == 4
    plt.close(fig)


def test_each_head_map_has_rank_at_most_d_v() -> None:
    _, _, W_v = toy.designed_heads()  # (3, 9, 3)
    maps = head_maps(W_v, toy.random_output(3, 3))  # (3, 9, 9)
    assert maps.shape == (3, 9, 9)
    assert torch.linalg.matrix_rank(maps).tolist() == [3, 3, 3]
    for h, d_v in ((1, 9), (2, 4), (4, 2), (9, 1)):
        _, _, W_v = toy.random_heads(h, d_v, seed=3)
        ranks = torch.linalg.matrix_rank(head_maps(W_v, toy.random_output(h, d_v)))  # (h,)
        assert (ranks == d_v).all(), (h, d_v, ranks)


def test_layer_output_is_the_sum_over_heads_of_weights_times_x_times_map() -> None:
    cases = [(*toy.designed_heads(), toy.random_output(3, 3))]
    for h, d_k in ((1, 9), (3, 3), (2, 5), (4, 2)):
        cases.append((*toy.random_heads(h, d_k, seed=4), toy.random_output(h, d_k, seed=4)))
    for W_q, W_k, W_v, W_o in cases:
        out, weights = mha.multi_head_attention(toy.X, W_q, W_k, W_v, W_o)  # (5, 9), (h, 5, 5)
        maps = head_maps(W_v, W_o)  # (h, 9, 9)
        summed = sum(weights[i] @ toy.X @ maps[i] for i in range(len(maps)))  # (5, 9)
        torch.testing.assert_close(summed, out, rtol=0, atol=1e-12)


def test_head_maps_checks_shapes() -> None:
    _, _, W_v = toy.designed_heads()
    with pytest.raises(ValueError, match=r"W_o must be \(h\*d_v, d_model\) = \(9, 9\)"):
        head_maps(W_v, toy.random_output(2, 3))
    with pytest.raises(ValueError, match=r"W_v must be \(h, d_model, d_v\), got \(9, 3\)"):
        head_maps(W_v[0], toy.random_output(3, 3))


def test_qk_maps_give_the_scores_that_the_weights_come_from() -> None:
    from mha.concat import qk_maps

    for W_q, W_k, W_v in (toy.designed_heads(), toy.random_heads(4, 2, seed=3)):
        _, weights = mha.all_heads(toy.X, W_q, W_k, W_v)  # (h, 5, 5)
        d_k = W_q.shape[-1]
        scores = toy.X @ qk_maps(W_q, W_k) @ toy.X.T / d_k**0.5  # (h, 5, 5)
        # softmax(s) = w means log w = s - (a constant per row)
        gap = torch.log(weights) - scores  # (h, 5, 5)
        assert torch.allclose(gap, gap[..., :1].expand_as(gap), atol=1e-9)
        one = qk_maps(W_q, W_k)[0]  # entry [f, g] = sum over columns of W_q[0, f] W_k[0, g]
        assert one[2, 3] == pytest.approx(
            float(sum(W_q[0, 2, c] * W_k[0, 3, c] for c in range(d_k)))
        )


def test_qk_maps_have_rank_at_most_d_k_and_check_shapes() -> None:
    from mha.concat import qk_maps

    ranks = torch.linalg.matrix_rank(qk_maps(*toy.random_heads(3, 2)[:2]))  # (3,)
    assert ranks.tolist() == [2, 2, 2]
    W_q, W_k, _ = toy.random_heads(3)
    with pytest.raises(ValueError, match=r"W_q \(3, 9, 3\) .* W_k \(2, 9, 3\)"):
        qk_maps(W_q, W_k[:2])


@pytest.mark.parametrize(("h", "d_k", "seed"), [(3, 3, 0), (2, 2, 5)])
def test_concat_of_heads_is_torchs_heads_side_by_side(h: int, d_k: int, seed: int) -> None:
    W_q, W_k, W_v = toy.random_heads(h, d_k, seed)  # (h, 9, d_k) each
    want = torch.cat(
        [
            scaled_dot_product_attention(toy.X @ W_q[i], toy.X @ W_k[i], toy.X @ W_v[i])
            for i in range(h)
        ],
        dim=-1,
    )  # (5, h*d_k)
    torch.testing.assert_close(concat_of_heads(h, d_k, seed), want, rtol=0, atol=1e-12)


def test_qk_maps_name_the_bad_argument() -> None:
    W = torch.zeros(2, 9, 3, dtype=torch.float64)  # (h, d_model, d_k)
    with pytest.raises(TypeError, match=r"^W_q must be a torch\.Tensor"):
        qk_maps([[0.0]], W)
    with pytest.raises(TypeError, match=r"^W_k has dtype torch\.int64"):
        qk_maps(W, torch.zeros(2, 9, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"^W_q and W_k must both be \(h, d_model, d_k\)"):
        qk_maps(W, W[:, :, :2])


def test_an_output_column_that_w_o_never_writes_is_touched_by_no_head() -> None:
    W_q, W_k, W_v = toy.random_heads(3)
    W_o = toy.random_output(3, 3).clone()  # (9, 9)
    W_o[:, 4] = 0.0  # output column 4 reads no column of the concatenation
    touched = columns_touched(toy.X, W_q, W_k, W_v, W_o)  # (3, 9)
    expected = torch.ones(3, 9, dtype=torch.bool)
    expected[:, 4] = False
    assert torch.equal(touched, expected)


def test_cell_labels_of_one_cell_and_of_an_empty_axis() -> None:
    assert cell_labels(1, 1, 1).tolist() == [[[0]]]
    for h, n, d_v in ((0, 2, 2), (2, 0, 2), (2, 2, 0)):
        with pytest.raises(ValueError, match="must be positive"):
            cell_labels(h, n, d_v)

"""Why the scores are divided by √d_k (chapter 1): variance, saturation, gradients, the view."""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch
from torch.distributions import Categorical

from mha import scaling, toy
from mha.figures.scaling import saturation_panels, variance_lines


def relative_standard_error(d_k: int, pairs: int) -> float:
    """Standard error of a sample variance of ``q · k``, relative to ``d_k``.

    With ``N(0, 1)`` entries, ``E[(q · k)^4] = 3 d_k^2 + 6 d_k``, so the square of a
    score has variance ``2 d_k^2 + 6 d_k``.
    """
    return math.sqrt((2 * d_k**2 + 6 * d_k) / pairs) / d_k


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_score_variance_is_d_k_undivided_and_one_divided(seed: int) -> None:
    pairs = 10_000
    measured = scaling.score_variance(scaling.WIDTHS, pairs, seed)
    for d_k, raw, divided in zip(
        scaling.WIDTHS, measured["unscaled"], measured["scaled"], strict=True
    ):
        tol = 4 * relative_standard_error(d_k, pairs)
        assert raw == pytest.approx(d_k, rel=tol), d_k
        assert divided == pytest.approx(1.0, rel=tol), d_k


def test_random_pairs_are_seeded_and_widened_pairs_are_prefixes() -> None:
    q, K = scaling.random_qk(8, 50, 3, seed=4)
    assert q.shape == (50, 8) and K.shape == (50, 3, 8) and q.dtype == torch.float64
    q2, K2 = scaling.random_qk(8, 50, 3, seed=4)
    assert torch.equal(q, q2) and torch.equal(K, K2)
    q3, _ = scaling.random_qk(8, 50, 3, seed=5)
    assert not torch.equal(q, q3)
    for d_k, qd, Kd in scaling.widened((1, 2, 8), 50, 3, seed=4):
        assert torch.equal(qd, q[:, :d_k]) and torch.equal(Kd, K[:, :, :d_k])
    with pytest.raises(ValueError, match="positive"):
        scaling.random_qk(0, 5)


def test_scores_are_dot_products_divided_by_sqrt_d_k() -> None:
    q, K = scaling.random_qk(16, 4, 5, seed=0)  # (4, 16), (4, 5, 16)
    by_loops = torch.tensor([[float(q[r] @ K[r, j]) for j in range(5)] for r in range(4)])
    torch.testing.assert_close(scaling.scores(q, K, scaled=False), by_loops.double())
    torch.testing.assert_close(scaling.scores(q, K, scaled=True), by_loops.double() / 4)


def test_entropy_in_bits() -> None:
    rows = torch.tensor([[0.2] * 5, [1.0, 0, 0, 0, 0], [0.5, 0.25, 0.25, 0, 0]]).double()
    assert scaling.entropy(rows).tolist() == pytest.approx([math.log2(5), 0.0, 1.5])
    w = torch.softmax(torch.randn(7, 5, generator=torch.Generator().manual_seed(0)), -1)
    want = Categorical(probs=w).entropy() / math.log(2)
    torch.testing.assert_close(scaling.entropy(w), want)


def test_score_gradient_is_the_softmax_jacobian_times_upstream() -> None:
    g = torch.Generator().manual_seed(3)
    s = 3 * torch.randn(6, 5, generator=g, dtype=torch.float64)  # (6, 5)
    u = torch.randn(6, 5, generator=g, dtype=torch.float64)  # (6, 5)
    w = torch.softmax(s, dim=-1)
    # dw_j/ds_l = w_j (delta_jl - w_l), so (J u)_l = w_l (u_l - sum_j w_j u_j).
    want = w * (u - (w * u).sum(dim=-1, keepdim=True))
    torch.testing.assert_close(scaling.score_gradient(s, u), want)
    one_hot = torch.tensor([[50.0, 0, 0, 0, 0]], dtype=torch.float64)
    assert scaling.score_gradient(one_hot, u[:1]).norm() < 1e-15


def test_undivided_rows_saturate_as_d_k_grows_and_divided_rows_do_not() -> None:
    sat = scaling.saturation(scaling.WIDTHS, n=5, rows=1_000, seed=7)
    un, sc = sat["unscaled"], sat["scaled"]
    for m in ("max_weight", "entropy", "gradient"):
        assert un[m][0] == sc[m][0]  # d_k = 1 divides by 1
    increasing = [b > a for a, b in itertools.pairwise(un["max_weight"])]
    decreasing = [b < a for a, b in itertools.pairwise(un["entropy"])]
    assert all(increasing) and all(decreasing)
    assert all(b < a for a, b in itertools.pairwise(un["gradient"]))
    assert un["max_weight"][-1] > 0.9 and un["entropy"][-1] < 0.3
    assert un["gradient"][0] / un["gradient"][-1] > 1e3
    assert max(sc["max_weight"]) - min(sc["max_weight"]) < 0.1
    assert max(sc["entropy"]) - min(sc["entropy"]) < 0.15
    assert max(sc["gradient"]) / min(sc["gradient"]) < 1.15


def test_fixed_length_queries_at_width_one_are_plus_or_minus_one() -> None:
    # At d_k = 1 a query of length 1 is +1 or -1, so the divided scores are +-K:
    # the mean largest weight recomputed from random_qk by that route.
    q, K = scaling.random_qk(1, 300, 5, seed=3)  # (300, 1), (300, 5, 1)
    s = torch.sign(q) * K[..., 0]  # (300, 5)
    want = float(torch.softmax(s, dim=-1).max(dim=-1).values.mean())
    got = scaling.saturation((1,), n=5, rows=300, seed=3, fixed_length=True)
    assert abs(got["scaled"]["max_weight"][0] - want) < 1e-12
    free = scaling.saturation((1,), n=5, rows=300, seed=3)
    assert abs(free["scaled"]["max_weight"][0] - want) > 0.01  # the length did matter


def test_the_head_widens_by_adding_columns() -> None:
    W_q, W_k, _ = toy.random_heads(1, max(scaling.VIEW_WIDTHS), 0)
    Q, K = toy.X @ W_q[0], toy.X @ W_k[0]  # (5, 1024) each
    narrow, wide = scaling.head_scores(4, False), scaling.head_scores(16, False)
    added = sum(torch.outer(Q[:, c], K[:, c]) for c in range(4, 16))  # columns 4..15
    torch.testing.assert_close(wide, narrow + added)
    torch.testing.assert_close(scaling.head_scores(16, True), wide / 4)
    assert scaling.head_row(16, True).sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="between 1 and 1024"):
        scaling.head_scores(2048, True)


def test_the_figures_draw_both_kinds_of_score_and_the_closed_forms() -> None:
    variances = {"unscaled": [1.0, 2.1, 3.9], "scaled": [1.0, 1.05, 0.97]}
    _, ax = plt.subplots()
    variance_lines(ax, [1, 2, 4], variances)
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
    assert lines["closed form: d_k"] == [1, 2, 4]
    assert lines["closed form: 1"] == [1.0, 1.0, 1.0]
    assert lines["q·k (not divided)"] == variances["unscaled"]
    assert lines["q·k / √d_k"] == variances["scaled"]
    sat = {
        "unscaled": {"max_weight": [0.4, 0.9], "entropy": [2.0, 0.2], "gradient": [0.3, 1e-4]},
        "scaled": {"max_weight": [0.4, 0.45], "entropy": [2.0, 1.9], "gradient": [0.3, 0.31]},
    }
    fig = saturation_panels([1, 2], sat, 5, "t")
    assert len(fig.axes) == 3
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "q·k (not divided)",
        "q·k / √d_k",
    ]
    for ax, key in zip(fig.axes, ("max_weight", "entropy", "gradient"), strict=True):
        drawn = {line.get_label(): list(line.get_ydata()) for line in ax.get_lines()}
        assert drawn["q·k (not divided)"] == sat["unscaled"][key]
        assert drawn["q·k / √d_k"] == sat["scaled"][key]
    evens = [
        [line.get_ydata()[0] for line in ax.get_lines() if line.get_ls() == ":"] for ax in fig.axes
    ]
    assert evens == [[pytest.approx(0.2)], [pytest.approx(math.log2(5))], []]
    assert fig.axes[2].get_yscale() == "log"
    plt.close("all")

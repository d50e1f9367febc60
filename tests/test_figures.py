"""The figures draw what they are given: bar heights, printed values, hatching, legends."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

import mha
from mha import budget, style, toy
from mha.figures.attention import growth, heatmap, matrix_and_row, stacked_rows
from mha.figures.mask import before_after


def test_mask_figure_hatches_forbidden_cells() -> None:
    w = torch.full((5, 5), 0.2, dtype=torch.float64)
    forbidden = ~mha.causal_mask(5)
    fig = before_after(w, w, forbidden, toy.SENTENCE, toy.SENTENCE)
    assert len(fig.axes[1].patches) == int(forbidden.sum()) == 10
    assert len(fig.axes[0].patches) == 0
    plt.close(fig)
    with pytest.raises(ValueError, match="must all be"):
        before_after(w, w[:3], forbidden, toy.SENTENCE, toy.SENTENCE)


def test_matrix_and_row_draws_the_framed_row_as_bars() -> None:
    _, weights = budget.single_head_attention()  # (5, 5)
    fig = matrix_and_row(weights, toy.SENTENCE, toy.CHASED, "W")
    left, right = fig.axes
    heights = [p.get_height() for p in right.patches]
    assert heights == pytest.approx(weights[toy.CHASED].tolist())
    printed = [t.get_text() for t in left.texts]
    assert printed == [f"{v:.2f}" for v in weights.flatten().tolist()]
    plt.close(fig)


def test_heatmap_text_meets_wcag_aa_on_every_cell() -> None:
    _, ax = plt.subplots()
    values = torch.linspace(0, 1, 25, dtype=torch.float64).reshape(5, 5)
    heatmap(ax, values, toy.SENTENCE, toy.SENTENCE)
    for text, v in zip(ax.texts, values.flatten().tolist(), strict=True):
        ratio = style.contrast(matplotlib.colors.to_hex(text.get_color()), style.weight_colour(v))
        assert ratio >= 4.5, (v, ratio)
    plt.close("all")


def test_stacked_rows_fill_to_one_and_growth_labels_each_curve() -> None:
    rows = torch.stack([budget.chased_tilted(t) for t in budget.TILTS])  # (17, 5)
    _, ax = plt.subplots()
    stacked_rows(ax, budget.TILTS, rows, toy.SENTENCE, "tilt")
    top = ax.collections[-1].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(reversed(toy.SENTENCE))
    _, ax2 = plt.subplots()
    growth(ax2, [1, 2, 4], {"a": [1, 2, 4], "b": [1, 4, 16]}, "x", "y")
    assert [line.get_label() for line in ax2.get_lines()] == ["a", "b"]
    assert list(ax2.get_lines()[1].get_ydata()) == [1, 4, 16]
    plt.close("all")


def test_weight_colour_is_the_colormaps_own_colour() -> None:
    """The table behind weight_colour gives what matplotlib's cividis gives, edges included."""
    values = [*torch.rand(2000, generator=torch.Generator().manual_seed(0)).tolist()]
    values += [i / 256 for i in range(257)] + [-0.5, 1.5, 0.999999]
    for v in values:
        want = matplotlib.colors.to_hex(style.CMAP(min(max(v, 0.0), 1.0)))
        assert style.weight_colour(v) == want, v
    assert style.weight_colour(2.0, vmax=4.0) == style.weight_colour(0.5)

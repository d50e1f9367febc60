"""The budget of one head (C2) and what breaks without the softmax (C4)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
import torch

from mha import budget, plots, toy
from mha import widgets as mw


def test_scores_give_the_chapters_row() -> None:  # C1
    row = torch.softmax(budget.single_head_scores()[toy.CHASED], dim=-1)
    torch.testing.assert_close(row, torch.tensor(toy.CHASED_ROW, dtype=torch.float64))
    _, weights = budget.single_head_attention()
    torch.testing.assert_close(weights[toy.CHASED], row)


@pytest.mark.parametrize("t", [-4.0, -1.5, 0.0, 0.5, 3.0, 40.0])
def test_tilt_keeps_the_budget(t: float) -> None:  # C2
    base, row = budget.chased_tilted(0.0), budget.chased_tilted(t)
    assert abs(float(row.sum()) - 1.0) < 1e-12
    gain = row[toy.MOUSE] - base[toy.MOUSE]
    others = (row - base).sum() - gain
    assert abs(float(gain + others)) < 1e-12
    assert float(row[toy.CAT] + row[toy.MOUSE]) <= 1.0
    if t > 0:
        assert row[toy.MOUSE] > base[toy.MOUSE] and row[toy.CAT] < base[toy.CAT]


def test_tilt_zero_is_identity_and_rejects_a_matrix() -> None:
    torch.testing.assert_close(budget.chased_tilted(0.0), torch.tensor(toy.CHASED_ROW).double())
    with pytest.raises(ValueError, match=r"\(n,\)"):
        budget.tilt(torch.zeros(5, 5, dtype=torch.float64), 1.0)


def test_budget_views_match_expected() -> None:
    control, stack = budget.budget_switch()
    assert len(stack.children) == len(budget.TILTS)
    control.value = 2.0
    html = mw.visible_html(stack)
    assert 'data-tilt="2.0"' in html
    e = mw.expected("budget", tilt="2.0")
    assert e is not None
    assert f'data-key="b-4" data-value="{e["b-4"]:.6g}"' in html


def test_softmax_blend_is_bounded_and_others_run_away() -> None:  # C4
    scales = [1, 2, 4, 8, 16, 32]
    norms = budget.blend_norms(scales)
    bound = norms["bound"][0]
    assert all(v <= bound + 1e-12 for v in norms["softmax"])
    assert norms["raw"][-1] == pytest.approx(32 * norms["raw"][0])
    assert norms["exp"][-1] > 1e6 * bound


def test_blends_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="must be"):
        budget.blends(torch.zeros(5, 4, dtype=torch.float64), torch.zeros(5, 3))


def test_new_plots_draw() -> None:
    _, weights = budget.single_head_attention()
    fig = plots.matrix_and_row(weights, toy.SENTENCE, toy.CHASED, "W")
    assert len(fig.axes) == 2
    rows = torch.stack([budget.chased_tilted(t) for t in budget.TILTS])
    _, ax = plt.subplots()
    plots.stacked_rows(ax, budget.TILTS, rows, toy.SENTENCE, "tilt")
    plots.growth(ax, [1, 2], {"a": [1, 2]}, "x", "y")
    plt.close("all")

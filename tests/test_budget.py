"""One head's budget (chapter 1): the tilted row, its view, and what breaks without a softmax."""

from __future__ import annotations

import pytest
import torch

from mha import budget, toy


def test_scores_give_the_chapters_row() -> None:
    row = torch.softmax(budget.single_head_scores()[toy.CHASED], dim=-1)
    torch.testing.assert_close(row, torch.tensor(toy.CHASED_ROW, dtype=torch.float64))
    _, weights = budget.single_head_attention()
    torch.testing.assert_close(weights[toy.CHASED], row)


@pytest.mark.parametrize("t", [-4.0, -1.5, 0.5, 3.0, 40.0])
def test_tilt_moves_weight_from_cat_to_mouse_and_keeps_the_budget(t: float) -> None:
    base, row = budget.chased_tilted(0.0), budget.chased_tilted(t)
    assert abs(float(row.sum()) - 1.0) < 1e-12
    # Closed form: only two scores move, so every weight is the old one times exp(shift)
    # over the new normaliser.
    shift = torch.zeros(5, dtype=torch.float64)
    shift[toy.MOUSE], shift[toy.CAT] = t, -t
    z = float((base * torch.exp(shift)).sum())
    torch.testing.assert_close(row, base * torch.exp(shift) / z, rtol=0, atol=1e-12)
    if t > 0:
        assert row[toy.MOUSE] > base[toy.MOUSE] and row[toy.CAT] < base[toy.CAT]
    else:
        assert row[toy.MOUSE] < base[toy.MOUSE] and row[toy.CAT] > base[toy.CAT]


def test_tilted_rows_batch_is_the_closed_form_row_by_row() -> None:
    tilts = torch.tensor([-10.0, -0.6, 0.0, 0.25, 7.0], dtype=torch.float64)  # (5,)
    rows = budget.chased_tilted_rows(tilts)  # (5, 5)
    base = torch.tensor(toy.CHASED_ROW, dtype=torch.float64)  # (5,)
    for t, row in zip(tilts.tolist(), rows, strict=True):
        # Closed form from the rounded row: weights are proportional to base * exp(shift).
        shift = torch.zeros(5, dtype=torch.float64)
        shift[toy.MOUSE], shift[toy.CAT] = t, -t
        expected = base * torch.exp(shift)  # (5,)
        torch.testing.assert_close(row, expected / expected.sum(), rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"\(T,\)"):
        budget.chased_tilted_rows(torch.zeros(2, 2))


def test_tilt_zero_is_identity_and_rejects_a_matrix() -> None:
    torch.testing.assert_close(budget.chased_tilted(0.0), torch.tensor(toy.CHASED_ROW).double())
    with pytest.raises(ValueError, match=r"\(n,\)"):
        budget.tilt(torch.zeros(5, 5, dtype=torch.float64), 1.0)


def test_softmax_blend_is_bounded_and_others_run_away() -> None:
    scales = [1, 2, 4, 8, 16, 32]
    norms = budget.blend_norms(scales)
    bound = norms["bound"][0]
    assert all(v <= bound + 1e-12 for v in norms["softmax"])
    assert norms["raw"][-1] == pytest.approx(32 * norms["raw"][0])
    assert norms["exp"][-1] > 1e6 * bound


def test_blends_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="must be"):
        budget.blends(torch.zeros(5, 4, dtype=torch.float64), torch.zeros(5, 3))


@pytest.mark.parametrize(
    ("scores", "V"),
    [((3, 3), (4, 2)), ((3, 4), (4, 2)), ((3, 3, 3), (3, 2))],
    ids=["V-too-long", "scores-not-square", "scores-3-d"],
)
def test_blends_rejects_each_bad_shape_alone(scores: tuple, V: tuple) -> None:
    with pytest.raises(ValueError, match=r"must be \(n, n\)"):
        budget.blends(torch.zeros(scores, dtype=torch.float64), torch.zeros(V, dtype=torch.float64))


def test_blend_norms_at_scale_one_are_the_chapters_row_and_the_longest_value() -> None:
    _, _, W_v = toy.single_head_weights()  # (9, 9)
    V = toy.X @ W_v  # (5, 9)
    norms = budget.blend_norms([1.0])
    blend = torch.tensor(toy.CHASED_ROW, dtype=torch.float64) @ V  # (9,)
    assert norms["softmax"][0] == pytest.approx(float(blend.norm()), rel=1e-9)
    longest = max(sum(x * x for x in row) ** 0.5 for row in V.tolist())
    assert norms["bound"] == [pytest.approx(longest, rel=1e-12)]

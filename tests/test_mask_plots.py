"""Tests for mha.mask_plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

import mha
from mha import toy
from mha.mask_plots import before_after


def test_mask_figure_hatches_forbidden_cells() -> None:
    w = torch.full((5, 5), 0.2, dtype=torch.float64)
    forbidden = ~mha.causal_mask(5)
    fig = before_after(w, w, forbidden, toy.SENTENCE, toy.SENTENCE)
    assert len(fig.axes[1].patches) == int(forbidden.sum()) == 10
    assert len(fig.axes[0].patches) == 0
    plt.close(fig)
    with pytest.raises(ValueError, match="must all be"):
        before_after(w, w[:3], forbidden, toy.SENTENCE, toy.SENTENCE)

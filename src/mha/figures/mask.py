"""Figures of attention weights before and after a mask.

Cells a mask forbids are hatched on white and show a dash in place of their
weight (exactly 0), as in the book's mask view, so a reader cannot mistake
"forbidden" for "allowed but rounds to 0.00", and nothing relies on colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from torch import Tensor

from mha.figures import TITLE, WIDTH
from mha.figures.attention import heatmap


def before_after(
    before: Tensor,
    after: Tensor,
    forbidden: Tensor,
    rows: Sequence[str],
    cols: Sequence[str],
    titles: tuple[str, str] = ("no mask", "causal mask"),
    ylabel: str = "query (word asking)",
) -> Figure:
    """Two weight tables side by side, the forbidden cells of the second hatched, with a dash.

    Args:
        before: weights without the mask, ``(len(rows), len(cols))``.
        after: weights with the mask, same shape.
        forbidden: boolean, same shape: True where the mask forbids reading.
        rows, cols: labels (query words or heads; key words).
        titles: the two panel titles.
        ylabel: label of the rows.
    """
    if not (before.shape == after.shape == forbidden.shape == (len(rows), len(cols))):
        raise ValueError(
            f"before {tuple(before.shape)}, after {tuple(after.shape)} and forbidden "
            f"{tuple(forbidden.shape)} must all be ({len(rows)}, {len(cols)})"
        )
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH, 0.55 * len(rows) + 1.7), sharey=True)
    for ax, w, title, blank in zip(axes, (before, after), titles, (None, forbidden), strict=True):
        heatmap(ax, w, rows, cols, blank=blank)
        ax.set_title(title, fontsize=TITLE)
    for r, c in forbidden.nonzero().tolist():
        axes[1].add_patch(
            Rectangle(
                (c - 0.5, r - 0.5),
                1,
                1,
                facecolor="white",
                hatch="///",
                edgecolor="#b0b0b0",
                linewidth=0.0,
                zorder=2,
            )
        )
    axes[0].set_ylabel(ylabel)
    axes[1].set_ylabel("")
    fig.tight_layout()
    return fig

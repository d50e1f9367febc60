"""Figures of attention weights before and after a mask.

Cells a mask forbids are hatched as well as showing their weight (exactly
0.00), so a reader can tell "forbidden" from "allowed but small" without
relying on colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from torch import Tensor

from mha.figures.attention import heatmap
from mha.style import OKABE_ITO


def before_after(
    before: Tensor,
    after: Tensor,
    forbidden: Tensor,
    rows: Sequence[str],
    cols: Sequence[str],
    titles: tuple[str, str] = ("no mask", "causal mask"),
    ylabel: str = "query (word asking)",
) -> Figure:
    """Two weight tables side by side, the forbidden cells of the second hatched.

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
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.75 * len(rows) + 1.9), sharey=True)
    for ax, w, title in zip(axes, (before, after), titles, strict=True):
        heatmap(ax, w, rows, cols, title)
    for r, c in forbidden.nonzero().tolist():
        axes[1].add_patch(
            Rectangle(
                (c - 0.5, r - 0.5),
                1,
                1,
                fill=False,
                hatch="///",
                edgecolor=OKABE_ITO[5],
                linewidth=0.0,
            )
        )
    axes[0].set_ylabel(ylabel)
    axes[1].set_ylabel("")
    fig.tight_layout()
    return fig

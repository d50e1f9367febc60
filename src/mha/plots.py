"""Matplotlib figures of attention, labelled with the words of the sentence.

Colours: ``cividis`` for weights (readable with the common colour-vision
deficiencies and in greyscale) and the Okabe-Ito palette for categories such
as heads. Every weight drawn is also printed, so no reading depends on colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

# Okabe & Ito (2008), the colour-blind-safe qualitative palette.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
HEAD_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
CMAP = "cividis"


def _text_colour(value: float, vmax: float) -> str:
    return "black" if value / vmax > 0.55 else "white"


def heatmap(
    ax: Axes,
    weights: Tensor,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str = "",
    vmax: float = 1.0,
    fmt: str = "{:.2f}",
) -> None:
    """Draw a weight table ``(len(rows), len(cols))`` with every value printed.

    Rows are queries (the word asking), columns keys (the word read).
    """
    w = weights.detach().cpu().double().numpy()
    ax.imshow(w, cmap=CMAP, vmin=0.0, vmax=vmax)
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("key (word read)")
    ax.set_ylabel("query (word asking)")
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            ax.text(
                j,
                i,
                fmt.format(w[i, j]),
                ha="center",
                va="center",
                fontsize=9,
                color=_text_colour(w[i, j], vmax),
            )
    if title:
        ax.set_title(title)


def row_bars(
    ax: Axes,
    row: Tensor,
    words: Sequence[str],
    title: str = "",
    colour: str = HEAD_COLOURS[0],
    ylim: float = 1.0,
) -> None:
    """Draw one attention row ``(n,)`` as bars over the words, each bar labelled."""
    r = row.detach().cpu().double().numpy()
    positions = range(len(words))
    ax.bar(positions, r, color=colour, edgecolor="black", linewidth=0.6)
    ax.set_xticks(positions, words)
    ax.set_ylim(0, ylim)
    ax.set_ylabel("attention weight")
    for j, v in enumerate(r):
        ax.text(j, v + 0.02 * ylim, f"{v:.2f}", ha="center", va="bottom", fontsize=9)
    if title:
        ax.set_title(title)
    ax.spines[["top", "right"]].set_visible(False)


def head_rows(weights: Tensor, words: Sequence[str], query: int, title: str = "") -> Figure:
    """One panel per head, each showing head ``i``'s row for word ``query``.

    Args:
        weights: ``(h, n, n)``.
        words: the ``n`` words.
        query: which word's row to draw.
    """
    h = weights.shape[0]
    fig, axes = plt.subplots(1, h, figsize=(3.2 * h, 2.8), sharey=True, squeeze=False)
    for i, ax in enumerate(axes[0]):
        row_bars(ax, weights[i, query], words, f"head {i + 1}", HEAD_COLOURS[i % 6])
        if i:
            ax.set_ylabel("")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig

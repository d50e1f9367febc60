"""One picture of a whole multi-head layer, for one word of the sentence.

Each head's row of weights for the word, the average each head delivers, the
averages laid side by side (concatenated), and ``W^O`` turning them into the
word's output. Heads have the Okabe-Ito colours of :mod:`mha.style` and their
own hatching, and every number drawn is also printed, so no reading depends on
colour. Text is at least 9 pt (the superscript of ``W^O`` 7.7 pt) on a figure
about 6.5 inches wide, the PDF's text column (:data:`mha.figures.WIDTH`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from torch import Tensor

from mha.style import SIGNED_CMAP, head_colour, tint

FONT = 11  # the figure's text, in pt at its own size; the values over the bars are 2 pt smaller
HATCHES = ("", "////", "....", "\\\\\\\\", "xxxx", "++++")  # as mha.figures.concat


def _cells(
    ax: Axes, x0: float, y: float, values: Sequence[float], head: int | None, w: float = 1.0
) -> None:
    """A row of cells ``w`` wide from ``x0`` at height ``y``, each printing its value."""
    for j, v in enumerate(values):
        face = "#eeeeee" if head is None else tint(head_colour(head), alpha=0.3)
        hatch = "" if head is None else HATCHES[head % len(HATCHES)]
        ax.add_patch(
            Rectangle(
                (x0 + j * w, y), w, 1, facecolor=face, edgecolor="#444", linewidth=0.8, hatch=hatch
            )
        )
        ax.text(
            x0 + (j + 0.5) * w,
            y + 0.5,
            f"{v:.2f}",
            ha="center",
            va="center",
            fontsize=FONT,
            bbox={"boxstyle": "square,pad=0.12", "facecolor": "white", "edgecolor": "none"},
        )


def _arrow(ax: Axes, x: float, y0: float, y1: float, label: str) -> None:
    ax.annotate(
        "", xy=(x, y1), xytext=(x, y0), arrowprops={"arrowstyle": "-|>", "color": "#333", "lw": 1.4}
    )
    ax.text(x + 0.15, (y0 + y1) / 2, label, ha="left", va="center", fontsize=FONT)


def whole_layer(
    rows: Tensor,
    heads: Tensor,
    concat: Tensor,
    W_o: Tensor,
    out: Tensor,
    words: Sequence[str],
    word: str,
) -> Figure:
    """Draw a multi-head layer at one word: rows, averages, concatenation, ``W^O``, output.

    Args:
        rows: ``(h, n)``, the word's row of weights in each head.
        heads: ``(h, d_v)``, the average each head delivers to the word.
        concat: ``(h*d_v,)``, the heads' averages side by side (must equal ``heads``
            flattened head by head).
        W_o: ``(h*d_v, d_model)``, the output projection, drawn as a grid of colours.
        out: ``(d_model,)``, the word's output, ``concat @ W_o``.
        words: the ``n`` words of the sentence, to label the bars.
        word: the word whose rows are drawn, for the titles.

    Returns:
        The figure: one bar chart per head on top, the rest drawn below them.
    """
    h, n = rows.shape
    d_v = heads.shape[-1]
    d_model = W_o.shape[-1]
    if heads.shape[0] != h or len(words) != n:
        raise ValueError(f"rows {tuple(rows.shape)}, heads {tuple(heads.shape)} and {n} words")
    if tuple(concat.shape) != (h * d_v,) or tuple(W_o.shape) != (h * d_v, d_model):
        raise ValueError(f"concat {tuple(concat.shape)} and W_o {tuple(W_o.shape)} for h*d_v")
    if not torch.equal(concat, heads.reshape(-1)):
        raise ValueError("concat must be the heads' averages side by side")
    if not torch.allclose(out, concat @ W_o):
        raise ValueError("out must be concat @ W_o")

    fig = plt.figure(figsize=(6.8, 6.3))
    grid = fig.add_gridspec(2, h, height_ratios=[1, 1.55], hspace=0.5, wspace=0.12)
    for i in range(h):
        ax = fig.add_subplot(grid[0, i])
        r = rows[i].detach().cpu().double().tolist()
        ax.bar(range(n), r, color=tint(head_colour(i), 0.75), edgecolor="black", hatch=HATCHES[i])
        for j, v in enumerate(r):
            ax.text(j, v + 0.03, f"{v:.2f}", ha="center", va="bottom", fontsize=FONT - 2)
        ax.set_ylim(0, 1.12)
        ax.set_xticks(range(n), words, rotation=40, ha="right", fontsize=FONT)
        ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"] if i == 0 else [], fontsize=FONT)
        ax.set_title(f"head {i + 1}: {word}'s row", fontsize=FONT + 1, color=head_colour(i))
        ax.spines[["top", "right"]].set_visible(False)

    ax = fig.add_subplot(grid[1, :])
    width = h * d_v
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(9.9, -0.5)  # y grows downwards, as the page is read
    ax.axis("off")
    head_vals = heads.detach().cpu().double().tolist()
    for i in range(h):  # each head's average, apart, under its own row
        _cells(ax, i * d_v + 0.3, 0.3, head_vals[i], i, w=(d_v - 0.6) / d_v)
    ax.text(
        width / 2,
        0.15,
        f"each head's average for {word}: {d_v} numbers",
        ha="center",
        va="bottom",
        fontsize=FONT,
    )
    _arrow(ax, width / 2, 1.45, 2.35, "concatenate: lay them side by side")
    for i in range(h):
        _cells(ax, i * d_v, 2.5, head_vals[i], i)
        ax.add_patch(
            Rectangle((i * d_v, 2.5), d_v, 1, fill=False, edgecolor=head_colour(i), linewidth=2.5)
        )
    ax.text(width + 0.1, 3.0, f"{width}\nnumbers", ha="left", va="center", fontsize=FONT)

    # W^O as a grid of signed colours, one cell per weight
    w = W_o.detach().cpu().double()
    vmax = float(w.abs().max())
    side = 0.4  # cell size of the grid
    gx, gy = width / 2 - side * d_model / 2, 4.0
    for a in range(w.shape[0]):
        for b in range(d_model):
            colour = SIGNED_CMAP(0.5 + 0.5 * float(w[a, b]) / vmax)
            ax.add_patch(
                Rectangle(
                    (gx + b * side, gy + a * side),
                    side,
                    side,
                    facecolor=colour,
                    lw=0.3,
                    edgecolor="white",
                )
            )
    for i in range(h):  # the rows of W^O that multiply head i's numbers
        ax.add_patch(
            Rectangle((gx - 0.18, gy + i * d_v * side), 0.12, d_v * side, color=head_colour(i))
        )
    ax.text(
        gx - 0.35,
        gy + side * w.shape[0] / 2,
        f"multiply by $W^O$\n({w.shape[0]} × {d_model} weights:\none row per number above)",
        ha="right",
        va="center",
        fontsize=FONT,
    )
    ax.text(
        gx + side * d_model + 0.3,
        gy + side * w.shape[0] / 2,
        "purple: positive\norange: negative",
        ha="left",
        va="center",
        fontsize=FONT,
    )
    _arrow(ax, width / 2, gy + side * w.shape[0] + 0.05, 8.05, "")
    _cells(ax, (width - d_model) / 2, 8.15, out.detach().cpu().double().tolist(), None)
    ax.text(
        width / 2,
        9.25,
        f"{word}'s output: {d_model} numbers, each mixing every head",
        ha="center",
        va="top",
        fontsize=FONT,
    )
    return fig

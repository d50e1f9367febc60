"""Matplotlib figures of attention weights, labelled with the words of the sentence.

Colours come from :mod:`mha.style`: ``cividis`` for weights and the Okabe-Ito
palette for categories such as heads. Every weight drawn is also printed,
so no reading depends on colour.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

from mha.figures import TITLE, WIDTH
from mha.style import CMAP_NAME, HEAD_COLOURS, OKABE_ITO, head_colour, text_on, weight_colour

DASH = "\u2013"  # an en dash, the mask view's mark for a forbidden pair
DASH_COLOUR = "#222222"  # on the white-and-grey hatching of a forbidden cell


def heatmap(
    ax: Axes,
    weights: Tensor,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str = "",
    vmax: float = 1.0,
    fmt: str = "{:.2f}",
    blank: Tensor | None = None,
) -> None:
    """Draw a weight table ``(len(rows), len(cols))`` with every value printed.

    Rows are queries (the word asking), columns keys (the word read). Cells where
    the boolean ``blank`` (same shape) is True print a dash instead of their value
    (a pair a mask forbids, as in the book's mask view); the caller draws over them.
    """
    w = weights.detach().cpu().double().numpy()
    if blank is not None and tuple(blank.shape) != w.shape:
        raise ValueError(f"blank {tuple(blank.shape)} must have the shape of weights {w.shape}")
    hide = blank.cpu().numpy() if blank is not None else None
    ax.imshow(w, cmap=CMAP_NAME, vmin=0.0, vmax=vmax)
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel("key (word read)")
    ax.set_ylabel("query (word asking)")
    for i in range(w.shape[0]):
        for j in range(w.shape[1]):
            hidden = hide is not None and bool(hide[i, j])
            ax.text(
                j,
                i,
                DASH if hidden else fmt.format(w[i, j]),
                ha="center",
                va="center",
                fontsize=13 if hidden else 9,
                color=DASH_COLOUR if hidden else text_on(weight_colour(w[i, j], vmax)),
                zorder=3,
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
    fig, axes = plt.subplots(1, h, figsize=(WIDTH, 2.8), sharey=True, squeeze=False)
    for i, ax in enumerate(axes[0]):
        row_bars(ax, weights[i, query], words, f"head {i + 1}", head_colour(i))
        if i:
            ax.set_ylabel("")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def matrix_and_row(
    weights: Tensor, words: Sequence[str], query: int, matrix_title: str = ""
) -> Figure:
    """A weight table ``(n, n)`` with row ``query`` framed, and that row as bars beside it.

    The frame and the bars show the same numbers, so the reader sees where the
    one row they are reading sits in the whole table.
    """
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(WIDTH, 3.4), gridspec_kw={"width_ratios": [1.05, 1]}
    )
    heatmap(left, weights, words, words)
    left.set_title(matrix_title, fontsize=TITLE)
    n = weights.shape[-1]
    left.add_patch(
        plt.Rectangle((-0.5, query - 0.5), n, 1, fill=False, edgecolor=OKABE_ITO[5], linewidth=2.5)
    )
    row_bars(right, weights[query], words)
    right.set_title(f"row of “{words[query]}” (framed at left)", fontsize=TITLE)
    right.set_xticks(range(len(words)), words, rotation=30, ha="right")
    right.set_xlabel("key (word read)")
    fig.tight_layout()
    return fig


# The thinnest band (weight) that is labelled inside; thinner bands are named in the legend.
LABELLED_BAND = 0.07
BAND_HATCHES = ("", "//", "..", "\\\\", "xx", "++")


def stacked_rows(
    ax: Axes, xs: Sequence[float], rows: Tensor, words: Sequence[str], xlabel: str
) -> None:
    """Stack the weights of one row ``(len(xs), n)`` as it changes with ``xs``.

    Each band is one word's weight; the bands always fill the axis to 1 when
    every row sums to one. Words are labelled in the legend, and inside every band that is
    at least ``LABELLED_BAND`` thick somewhere.
    """
    r = rows.detach().cpu().double().numpy().T  # (n, len(xs))
    colours = [OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(words))]
    # White hatching, one pattern per band, keeps the bands apart in grayscale too.
    hatches = [BAND_HATCHES[i % len(BAND_HATCHES)] for i in range(len(words))]
    ax.stackplot(
        list(xs), r, labels=list(words), colors=colours, edgecolor="white", lw=0.5, hatch=hatches
    )
    # Each band also carries its word where it is widest (away from the edges), so that the
    # bands read without their colours (in grayscale, in print).
    tops = r.cumsum(axis=0)  # (n, len(xs))
    inner = slice(len(xs) // 10, len(xs) - len(xs) // 10 or None)
    for i, word in enumerate(words):
        j = inner.start + int(r[i, inner].argmax())
        if r[i, j] >= LABELLED_BAND:
            y = tops[i, j] - r[i, j] / 2
            ax.text(
                xs[j],
                y,
                word,
                ha="center",
                va="center",
                color=text_on(colours[i]),
                bbox={"boxstyle": "round,pad=0.2", "facecolor": colours[i], "edgecolor": "none"},
            )
    ax.set_xlim(min(xs), max(xs))
    ax.set_ylim(0, 1.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("weight (stacked)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, reverse=True)
    ax.spines[["top", "right"]].set_visible(False)


def growth(
    ax: Axes,
    xs: Sequence[float],
    curves: dict[str, Sequence[float]],
    xlabel: str,
    ylabel: str,
) -> None:
    """Curves on log-log axes, one colour and one marker per curve, labelled in a legend."""
    markers = ("o", "s", "^", "D", "v", "x")
    for i, (label, ys) in enumerate(curves.items()):
        ax.plot(xs, ys, marker=markers[i % 6], color=head_colour(i), label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)

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


def matrix_and_row(
    weights: Tensor, words: Sequence[str], query: int, matrix_title: str = ""
) -> Figure:
    """A weight table ``(n, n)`` with row ``query`` framed, and that row as bars beside it.

    The frame and the bars show the same numbers, so the reader sees where the
    one row they are reading sits in the whole table.
    """
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(11, 4.6), gridspec_kw={"width_ratios": [1.05, 1]}
    )
    heatmap(left, weights, words, words, matrix_title)
    n = weights.shape[-1]
    left.add_patch(
        plt.Rectangle((-0.5, query - 0.5), n, 1, fill=False, edgecolor=OKABE_ITO[5], linewidth=2.5)
    )
    row_bars(right, weights[query], words, f"row of “{words[query]}” (framed at left)")
    right.set_xlabel("key (word read)")
    fig.tight_layout()
    return fig


def stacked_rows(
    ax: Axes, xs: Sequence[float], rows: Tensor, words: Sequence[str], xlabel: str
) -> None:
    """Stack the weights of one row ``(len(xs), n)`` as it changes with ``xs``.

    Each band is one word's weight; the bands always fill the axis to 1 when
    every row sums to one. Words are labelled in the legend and in the bands.
    """
    r = rows.detach().cpu().double().numpy().T  # (n, len(xs))
    colours = [OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(words))]
    ax.stackplot(list(xs), r, labels=list(words), colors=colours, edgecolor="white", lw=0.5)
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
        ax.plot(xs, ys, marker=markers[i % 6], color=HEAD_COLOURS[i % 6], label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)


def rows_before_after(
    before: Sequence[Tensor], after: Sequence[Tensor], words: Sequence[str], labels: Sequence[str]
) -> Figure:
    """Every head's row for one word, before and after training, one line of panels per run.

    Args:
        before, after: one ``(h, n)`` tensor per run: head ``i``'s row in row ``i``.
        words: the ``n`` words (the columns).
        labels: one label per run, e.g. ``"seed 0"``.
    """
    runs, h = len(before), before[0].shape[0]
    fig, axes = plt.subplots(
        runs, 2, figsize=(10.5, 0.55 * h * runs + 0.9 * runs + 0.6), squeeze=False
    )
    heads = [f"head {i + 1}" for i in range(h)]
    for r in range(runs):
        for c, (rows, when) in enumerate(((before[r], "before"), (after[r], "after training"))):
            ax = axes[r, c]
            heatmap(ax, rows, heads, words, f"{labels[r]}, {when}")
            ax.set_ylabel("")
            if r < runs - 1:
                ax.set_xlabel("")
    fig.tight_layout()
    return fig


def loss_curves(
    ax: Axes, curves: dict[str, Sequence[tuple[Sequence[float], Sequence[float]]]], ylabel: str
) -> None:
    """Several runs per group on a log y axis: one colour per group, one line per run.

    Args:
        curves: ``{group label: [(steps, values), ...]}``, e.g. one group per ``h``.
    """
    styles = ("-", "--", ":", "-.")
    for g, (label, runs) in enumerate(curves.items()):
        for r, (xs, ys) in enumerate(runs):
            ax.plot(
                xs,
                ys,
                color=HEAD_COLOURS[g % 6],
                linestyle=styles[r % 4],
                label=label if r == 0 else None,
            )
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(ylabel)
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)


def spread_curves(ax: Axes, curves: dict[str, Sequence[float]], floor: float = 1e-18) -> None:
    """Between-head differences over training on a log y axis.

    A value of exactly 0 cannot sit on a log axis, so it is drawn at ``floor``
    and the axis label says so.
    """
    markers = ("o", "s", "^")
    for i, (label, ys) in enumerate(curves.items()):
        ys = [max(float(y), floor) for y in ys]
        ax.plot(
            range(len(ys)),
            ys,
            color=HEAD_COLOURS[i % 6],
            marker=markers[i % 3],
            markevery=max(len(ys) // 10, 1),
            label=label,
        )
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(f"largest difference between heads\n(exactly 0 is drawn at {floor:.0e})")
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)

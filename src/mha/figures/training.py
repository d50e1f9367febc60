"""Figures of training runs: loss curves, differences between heads, rows before and after.

Each run is told apart by line style as well as colour (:mod:`mha.style`), so
no reading depends on colour alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from torch import Tensor

from mha.figures import TITLE, WIDTH
from mha.figures.attention import heatmap
from mha.style import head_colour


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
        runs, 2, figsize=(WIDTH, 0.4 * h * runs + 0.75 * runs + 0.3), squeeze=False
    )
    heads = [f"head {i + 1}" for i in range(h)]
    for r in range(runs):
        for c, (rows, when) in enumerate(((before[r], "before"), (after[r], "after training"))):
            ax = axes[r, c]
            heatmap(ax, rows, heads, words)
            ax.set_title(f"{labels[r]}, {when}", fontsize=TITLE)
            ax.set_ylabel("")
            if r < runs - 1:
                ax.set_xlabel("")
    fig.tight_layout()
    return fig


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
            color=head_colour(i),
            marker=markers[i % 3],
            markevery=max(len(ys) // 10, 1),
            label=label,
        )
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel(f"largest difference between heads\n(exactly 0 is drawn at {floor:.0e})")
    ax.legend(frameon=False)
    ax.spines[["top", "right"]].set_visible(False)


def loss_grid(
    panels: dict[str, Sequence[tuple[Sequence[float], Sequence[float], bool]]], ylabel: str
) -> Figure:
    """One small panel per setting, one line per run, on a shared log y axis.

    Args:
        panels: ``{title: [(steps, values, solved), ...]}``; runs that did not solve the
            task are drawn dashed and darker, so solved and unsolved differ by line style.
        ylabel: the y axis label (drawn once per row of panels).
    """
    cols = 3
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(WIDTH, 2.1 * rows), sharex=True, sharey=True, squeeze=False
    )
    for ax, (title, runs) in zip(axes.flat, panels.items(), strict=False):
        for xs, ys, solved in runs:
            style = {"color": head_colour(0), "linestyle": "-", "linewidth": 1, "alpha": 0.8}
            if not solved:
                style = {"color": head_colour(5), "linestyle": "--", "linewidth": 1.6}
            ax.plot(xs, ys, **style)
        ax.set_yscale("log")
        ax.set_title(title.replace(" (", "\n("), fontsize=TITLE)  # a remark on a line of its own
        ax.spines[["top", "right"]].set_visible(False)
    for ax in axes.flat[len(panels) :]:
        ax.axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1]:
        ax.set_xlabel("training step")
    fig.tight_layout()
    return fig


def noun_weight_scatter(ax: Axes, subject: Tensor, obj: Tensor, title: str) -> None:
    """The weight a verb row gives the subject (x) and the object (y), one dot per sentence,
    under the line ``x + y = 1`` that no softmax row can cross."""
    ax.plot([0, 1], [1, 0], color="#555555", linestyle=":", linewidth=1.5)
    ax.text(
        0.6,
        0.52,
        "subject + object = 1",
        rotation=-45,
        rotation_mode="anchor",
        ha="center",
        va="center",
        fontsize=9,
        color="#333333",
    )
    ax.scatter(subject, obj, s=9, alpha=0.5, color=head_colour(0), edgecolors="none")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel("weight on the subject")
    ax.set_ylabel("weight on the object")
    ax.set_title(title, fontsize=TITLE)
    ax.spines[["top", "right"]].set_visible(False)


def solved_by_variant(
    groups: dict[str, dict[str, tuple[float, float, float, Sequence[float]]]],
    per_run: str,
    bar: float | None = None,
) -> Figure:
    """Two panels comparing kinds of layer setting by setting, one marker and colour per kind.

    Left: the share of seeds that solved the task, with its 95 % interval as an error bar.
    Right: one number per run (one marker per seed), e.g. its held-out accuracy.

    Args:
        groups: ``{kind: {setting label: (share solved, low, high, per-run values)}}``;
            settings with the same label share a place on the x axis, each kind an offset.
        per_run: the right panel's y label.
        bar: if given, a dotted line at this height in the right panel.
    """
    labels = list(dict.fromkeys(x for g in groups.values() for x in g))
    markers = ("o", "^", "s", "D")
    fig, (left, right) = plt.subplots(1, 2, figsize=(WIDTH, 3.6))
    width = 0.6 / max(len(groups), 1)
    for k, (kind, settings) in enumerate(groups.items()):
        shift = (k - (len(groups) - 1) / 2) * width
        style = {"color": head_colour(k), "marker": markers[k % 4], "linestyle": "none"}
        xs = [labels.index(x) + shift for x in settings]
        share, low, high = ([v[i] for v in settings.values()] for i in range(3))  # (settings,)
        below = [s - lo for s, lo in zip(share, low, strict=True)]  # (settings,)
        above = [hi - s for s, hi in zip(share, high, strict=True)]  # (settings,)
        left.errorbar(xs, share, yerr=[below, above], capsize=4, markersize=8, label=kind, **style)
        for x, v in zip(xs, settings.values(), strict=True):
            values = list(v[3])
            spread = [x + 0.7 * width * ((i % 5) / 4 - 0.5) for i in range(len(values))]
            right.plot(spread, values, markersize=6, alpha=0.75, **style)
    for ax in (left, right):
        ax.set_xticks(range(len(labels)), labels)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.spines[["top", "right"]].set_visible(False)
    left.set_ylim(-0.03, 1.03)
    left.set_ylabel("share of seeds that solved the task\n(bar: 95 % interval)")
    left.legend(frameon=False, loc="lower right")
    if bar is not None:
        right.axhline(bar, color="#555555", linestyle=":", linewidth=1.5)
    right.set_ylabel(per_run)
    fig.tight_layout()
    return fig

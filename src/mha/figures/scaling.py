"""Figures of what dividing the scores by √d_k does, measured at many widths.

The undivided and the divided scores are told apart by colour, marker and line
style, and named in each legend, so no reading depends on colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from mha.figures import WIDTH
from mha.style import head_colour

# How each kind of score is drawn: (legend label, colour, marker, line style).
CURVES = {
    "unscaled": ("q·k (not divided)", head_colour(1), "o", "-"),
    "scaled": ("q·k / √d_k", head_colour(0), "s", "--"),
}


def _curve(ax: Axes, widths: Sequence[int], ys: Sequence[float], kind: str) -> None:
    label, colour, marker, style = CURVES[kind]
    ax.plot(widths, ys, marker=marker, ls=style, color=colour, label=label)


def _width_axis(ax: Axes, widths: Sequence[int]) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(widths), [str(w) for w in widths])
    ax.set_xlabel("head width d_k")
    ax.spines[["top", "right"]].set_visible(False)


def variance_lines(ax: Axes, widths: Sequence[int], measured: dict[str, Sequence[float]]) -> None:
    """Measured variance of the scores against ``d_k`` on log-log axes, over the closed
    forms ``d_k`` and 1 drawn as wide grey bands.

    Args:
        widths: the widths measured.
        measured: ``{"unscaled", "scaled"}`` -> one variance per width
            (:func:`mha.scaling.score_variance`).
    """
    band = {"color": "#bbbbbb", "lw": 6, "solid_capstyle": "round", "zorder": 1}
    ax.plot(widths, list(widths), label="closed form: d_k", **band)
    ax.plot(widths, [1.0] * len(widths), label="closed form: 1", ls="--", **band)
    for kind in ("unscaled", "scaled"):
        _curve(ax, widths, measured[kind], kind)
    _width_axis(ax, widths)
    ax.set_yscale("log", base=2)
    ticks = [4**i for i in range(math.ceil(math.log(max(widths), 4)) + 1)]
    ax.set_yticks(ticks, [str(t) for t in ticks])
    ax.set_ylabel("variance of the scores")
    ax.legend(frameon=False)


def saturation_panels(
    widths: Sequence[int],
    measured: dict[str, dict[str, Sequence[float]]],
    n: int,
    title: str = "",
) -> Figure:
    """Three panels against ``d_k``: a row's largest weight, its entropy, and the
    gradient that reaches its scores, for undivided and divided scores.

    Args:
        widths: the widths measured.
        measured: ``{"unscaled", "scaled"}`` -> ``{"max_weight", "entropy", "gradient"}``
            -> one number per width (:func:`mha.scaling.saturation`).
        n: keys per row, for the reference lines of an even row (``1/n``, ``log2 n``).
        title: the figure's title, if any.
    """
    fig, axes = plt.subplots(1, 3, figsize=(WIDTH, 3.2))
    panels = (
        ("max_weight", "largest weight (mean)", 1 / n),
        ("entropy", "entropy in bits (mean)", math.log2(n)),
        ("gradient", "gradient length (median)", None),
    )
    every_other = list(widths)[::3]
    for ax, (key, panel_title, even) in zip(axes, panels, strict=True):
        if even is not None:
            ax.axhline(even, color="black", lw=0.8, ls=":")
            ax.annotate(
                "even row",
                (widths[-1], even),
                xytext=(0, 3),
                textcoords="offset points",
                ha="right",
                va="bottom",
                fontsize=9,
            )
        for kind in ("unscaled", "scaled"):
            _curve(ax, widths, measured[kind][key], kind)
        _width_axis(ax, widths)
        ax.set_xticks(every_other, [str(w) for w in every_other])
        ax.set_title(panel_title, fontsize=9.5)
    axes[0].set_ylim(0, 1.02)
    axes[1].set_ylim(0, math.log2(n) * 1.1)
    axes[2].set_yscale("log")
    handles, labels = axes[0].get_legend_handles_labels()
    top = 0.92 if title else 1.0
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, top), ncols=2)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, top - 0.05))
    return fig

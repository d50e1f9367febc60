"""Figures of what a layer costs as the number of heads grows.

Two kinds of heads are drawn side by side: narrow heads (``d_k = d_model / h``,
solid lines), whose counts do not move with ``h``, and heads that stay full
width (``d_k = d_model``, dashed lines), whose counts grow ``h``-fold. Colours
are from the Okabe-Ito palette and every line is also told apart by its
marker and line style, so nothing depends on colour alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator

from mha.cost import layer_cost
from mha.figures import TITLE, WIDTH
from mha.style import OKABE_ITO

# (Cost attribute(s), label, colour, marker) for each series.
_PARAMS = (("params_without_out",), "parameters in $W^Q, W^K, W^V$", OKABE_ITO[4], "o")
_MACS = (
    (("projection",), "projection of $Q, K, V$", OKABE_ITO[5], "s"),
    (("scoring", "blending"), "scoring + blending", OKABE_ITO[2], "^"),
)


def _series(n: int, d_model: int, hs: Sequence[int], keys: Sequence[str], wide: bool) -> list[int]:
    out = []
    for h in hs:
        c = layer_cost(n, d_model, h, d_model if wide else None).as_dict()
        out.append(sum(c[k] for k in keys))
    return out


def _tick(value: float, _pos: object = None) -> str:
    """``2e8`` as ``2×10⁸`` (mathtext), for a log axis labelled at 1, 2 and 5 per decade."""
    exponent = math.floor(math.log10(value) + 1e-9)
    mantissa = round(value / 10**exponent)
    return f"${mantissa}\\times10^{{{exponent}}}$"


def cost_vs_heads(n: int, d_model: int, hs: Sequence[int]) -> Figure:
    """Parameters (left) and multiply-adds (right) against the number of heads ``h``.

    Every count is the layer's total over the three roles (query, key, value); ``W^O``
    is not included. Each narrow (flat) line is labelled with its value.

    Args:
        n: words in the sentence.
        d_model: width of the word vectors; every ``h`` in ``hs`` must divide it.
        hs: the numbers of heads to draw, e.g. ``(1, 2, 4, 8, 16)``.
    """
    fig, (ax_p, ax_m) = plt.subplots(1, 2, figsize=(WIDTH, 5.6))
    panels = ((ax_p, (_PARAMS,), "parameters"), (ax_m, _MACS, "multiply-adds"))
    for ax, series, ylabel in panels:
        for keys, label, colour, marker in series:
            for wide, style in ((False, "-"), (True, "--")):
                ys = _series(n, d_model, hs, keys, wide)
                kind = "full width, $d_k = d_{model}$" if wide else "narrow, $d_k = d_{model}/h$"
                ax.plot(
                    hs,
                    ys,
                    linestyle=style,
                    marker=marker,
                    color=colour,
                    markerfacecolor="white" if wide else colour,
                    label=f"{label}, {kind}",
                )
                if not wide:  # the flat line's value, printed above its right end
                    ax.annotate(
                        f"{ys[-1]:,}",
                        (hs[-1], ys[-1]),
                        textcoords="offset points",
                        xytext=(0, 6),
                        ha="right",
                        fontsize=9,
                        color="black",
                    )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(list(hs), [str(h) for h in hs])
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(_tick))
        ax.minorticks_off()
        ax.set_xlabel("number of heads $h$", fontsize=11)
        ax.set_ylabel(ylabel, fontsize=11)
        ax.tick_params(labelsize=10)
        ax.grid(True, which="major", alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    ax_p.set_title("parameters: flat when\nheads narrow", fontsize=TITLE)
    ax_m.set_title(f"multiply-adds for n = {n} words", fontsize=TITLE)
    fig.suptitle(f"cost of one layer, $d_{{model}}$ = {d_model}", fontsize=11)
    handles = [h for ax in (ax_p, ax_m) for h in ax.get_legend_handles_labels()[0]]
    labels = [lab for ax in (ax_p, ax_m) for lab in ax.get_legend_handles_labels()[1]]
    fig.legend(handles, labels, fontsize=10, frameon=False, loc="lower center", ncols=1)
    fig.tight_layout(rect=(0, 0.25, 1, 1))
    return fig

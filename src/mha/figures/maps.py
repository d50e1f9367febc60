"""Each head's value-and-output map ``W^V_i W^O_i`` as a grid of printed numbers.

Rows are the features of the word a head reads, columns the output columns it
writes. Every non-zero entry is printed on a cell coloured by its sign and size
(``mha.style.SIGNED_CMAP``); exact zeros are left blank, so the figure can be
read without telling colours apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from mha.figures import TITLE, WIDTH
from mha.style import SIGNED_CMAP, signed_colour, text_on

KEY = (
    "Printed: each entry of the map.\n"
    "Blank: exactly zero.\n"
    "Purple: positive. Orange: negative.\n"
    "Darker: larger in size."
)


def head_maps_grid(
    maps: Tensor,
    features: Sequence[str],
    titles: Sequence[str],
    fontsize: float = 7.5,
    columns: int = 2,
) -> Figure:
    """Draw ``maps (h, d_model, d_model)``, one panel per head, ``columns`` panels a row.

    Args:
        maps: each head's ``d_model x d_model`` map, e.g. from :func:`mha.concat.head_maps`.
        features: names of the ``d_model`` input features (row labels, first panel).
        titles: one title per head.
        fontsize: size of the printed values.
        columns: panels per row; a spare panel in the last row holds a key to the colours.

    Returns:
        The figure; panel ``i`` holds one printed text per non-zero entry of ``maps[i]``.
    """
    m = maps.detach().cpu().double().numpy()
    h, rows, cols = m.shape
    if len(features) != rows or len(titles) != h:
        raise ValueError(
            f"maps {tuple(m.shape)} need {rows} feature names and {h} titles, "
            f"got {len(features)} and {len(titles)}"
        )
    vmax = float(abs(m).max()) or 1.0
    cmap = SIGNED_CMAP.with_extremes(bad="#ffffff")  # exact zeros: blank
    ncols = min(h, columns)
    nrows = -(-h // ncols)
    fig, grid = plt.subplots(
        nrows,
        ncols,
        figsize=(WIDTH, 3.3 * nrows),
        squeeze=False,
        layout="compressed",
    )
    axes = grid.flatten()
    for ax in axes[h:]:  # spare panels: a key to the figure instead
        ax.axis("off")
        ax.text(0.05, 0.5, KEY, ha="left", va="center", fontsize=9, transform=ax.transAxes)
    for i, ax in enumerate(axes[:h]):
        shown = np.ma.masked_equal(m[i], 0.0)  # (rows, cols)
        ax.imshow(shown, cmap=cmap, vmin=-vmax, vmax=vmax, extent=(0, cols, rows, 0))
        for r, c in zip(*np.nonzero(m[i]), strict=True):
            v = float(m[i, r, c])
            ax.text(
                c + 0.5,
                r + 0.5,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=fontsize,
                color=text_on(signed_colour(v, vmax)),
            )
        ax.set_xticks([c + 0.5 for c in range(cols)], [str(c + 1) for c in range(cols)])
        ax.set_yticks([r + 0.5 for r in range(rows)], list(features) if i % ncols == 0 else [])
        ax.set_xticks(range(cols + 1), minor=True)
        ax.set_yticks(range(rows + 1), minor=True)
        ax.grid(which="minor", color="#bbb", linewidth=0.4)
        ax.set_xlabel("output column")
        ax.tick_params(which="both", length=0)
        ax.spines[:].set_visible(False)
        ax.set_title(titles[i], fontsize=TITLE)
    for ax in axes[:h:ncols]:
        ax.set_ylabel("feature of the word read")
    return fig

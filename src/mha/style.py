"""The book's colours, shared by the figures (:mod:`mha.figures`) and the views
(:mod:`mha.views`), so a head or a weight looks the same in both.

* ``CMAP``: ``cividis`` for weights in [0, 1], designed to read the same with
  the common colour-vision deficiencies and in greyscale.
* ``SIGNED_CMAP``: ``PuOr`` (purple to orange through white), ColorBrewer's
  colour-blind-safe diverging scale, for signed numbers such as weights of ``W^O``.
* ``OKABE_ITO`` and ``HEAD_COLOURS``: the Okabe & Ito (2008) colour-blind-safe
  palette, for categories such as heads.
* :func:`text_on`: black or white text on a coloured cell, whichever has the
  higher WCAG contrast ratio.

This is the one module at the package's top level that imports matplotlib; the
maths modules never import it.
"""

from __future__ import annotations

import functools

import matplotlib as mpl

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
HEAD_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
CMAP_NAME = "cividis"
CMAP = mpl.colormaps[CMAP_NAME]
SIGNED_CMAP = mpl.colormaps["PuOr"]


def head_colour(i: int) -> str:
    """The colour of head ``i`` (0-based), cycling through :data:`HEAD_COLOURS`."""
    return HEAD_COLOURS[i % len(HEAD_COLOURS)]


def weight_colour(value: float, vmax: float = 1.0) -> str:
    """The ``cividis`` colour of a weight ``value`` on a scale from 0 to ``vmax``, as hex."""
    x = min(max(value / vmax, 0.0), 1.0)
    return _HEX[min(int(x * CMAP.N), CMAP.N - 1)]  # the entry CMAP(x) picks, from a table


# CMAP(x) for a float x in [0, 1] is entry int(x * N) of its table (N - 1 for x = 1), so
# this table gives the same colours without matplotlib's per-call work (views colour
# thousands of cells).
_HEX = [mpl.colors.to_hex(CMAP(i)) for i in range(CMAP.N)]


def signed_colour(value: float, vmax: float) -> str:
    """The ``PuOr`` colour of a signed ``value`` on a scale from ``-vmax`` to ``vmax``, as hex."""
    return mpl.colors.to_hex(SIGNED_CMAP(0.5 + 0.5 * min(max(value / vmax, -1.0), 1.0)))


def luminance(colour: str) -> float:
    """WCAG relative luminance of a colour (0 for black, 1 for white)."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in mpl.colors.to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two colours, from 1 (none) to 21 (black on white)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@functools.cache
def text_on(background: str) -> str:
    """``"#000000"`` or ``"#ffffff"``, whichever reads better on ``background``."""
    black, white = "#000000", "#ffffff"
    return black if contrast(black, background) >= contrast(white, background) else white


def tint(colour: str, alpha: float = 0.3) -> str:
    """A light version of ``colour`` mixed with white, so black text stays readable on it."""
    r, g, b = mpl.colors.to_rgb(colour)
    return mpl.colors.to_hex(tuple(1 - alpha + alpha * x for x in (r, g, b)))

"""Figures as palette PNGs: the same pictures as matplotlib's PNGs in about a quarter of
the bytes (0.21-0.29 for the figures of chapters 1 and 4), for the site.

A figure holds a few colours and their anti-aliased edges, which 256 palette entries draw
without a visible difference; matplotlib writes every PNG in full colour (RGBA), and neither
``savefig`` (``pil_kwargs``) nor Pillow's PNG writer quantises. :func:`palette_png` draws a
figure as IPython's inline backend does, then quantises it.

An IPython extension: ``%load_ext mha.figures.png`` makes a kernel show every figure as
:func:`palette_png`, through IPython's display formatters. The book's build loads it in its
kernels (the IPython profile that ``book/_ext/execution.py`` writes), so the site's figures are
palette PNGs as the notebooks are executed; the PDF uses the vector copy (``application/pdf``)
of each figure. JupyterLab and Colab, which do not load it, show matplotlib's own PNGs.
"""

from __future__ import annotations

from io import BytesIO

from IPython.core.interactiveshell import InteractiveShell
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure
from PIL import Image


def palette_png(fig: Figure) -> bytes | None:
    """``fig`` as a PNG of at most 256 colours (no dithering; zlib's best compression), drawn
    and cropped as the inline backend draws it; None for a figure with nothing in it, as
    there. The image keeps its size ``(height, width)`` in pixels and its transparency."""
    data = print_figure(fig, "png")  # RGBA, (height, width, 4)
    if data is None:
        return None
    with Image.open(BytesIO(data)) as image:
        palette = image.convert("RGBA").quantize(
            256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )  # P, (height, width): indices into 256 RGBA entries
    out = BytesIO()
    palette.save(out, format="PNG", optimize=True)
    return out.getvalue()


def load_ipython_extension(ip: InteractiveShell) -> None:
    """``%load_ext mha.figures.png``: ``ip`` shows every figure's PNG as :func:`palette_png`.
    The inline backend is set up first: setting it up registers its own PNG writer for figures,
    which this one then replaces (its other formats, such as PDF, stay)."""
    ip.enable_matplotlib("inline")
    ip.display_formatter.formatters["image/png"].for_type(Figure, palette_png)

"""Figure captions in JupyterLab, read from the figure cells that hold them.

A figure of the book is a code cell whose metadata holds its caption and its label
(``mystnb: figure: {caption, name}``). The book's build (myst-nb) draws the cell's output
as a numbered figure with that caption. JupyterLab's MyST renderer, jupyterlab-myst 2.7,
reads markdown cells only: it shows no caption for a code cell, and a ``{numref}`` to the
cell's label shows the bare label.

So each figure cell is followed by a markdown cell that only JupyterLab shows (tagged
``remove-cell``, which myst-nb drops), :func:`lab_figure`'s text::

    :::{figure}
    :name: fig-whole-layer
    {eval}`caption("fig-whole-layer")`
    :::

jupyterlab-myst numbers that figure (each chapter's first markdown cell, also for
JupyterLab only, sets the number of its first figure to the book's) and resolves
``{numref}`fig-whole-layer``` to it. Its caption is :func:`caption`, which reads the
caption from the figure cell's metadata in the notebook file: the caption is typed once.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from mha.views.text import Shown

NOTEBOOK_SUFFIXES = (".md", ".ipynb")


# A caption's emphasis, ``*word*``.
EMPHASIS = re.compile(r"\*([^*\n]+)\*")


class Caption(Shown):
    """A caption, as typed in the figure cell; shown as plain text, its emphasis unmarked.

    Not as Markdown: jupyterlab-myst 2.7 draws a text/markdown expression result in a Lumino
    widget that a React effect attaches, and in about one chapter run in ten on a busy machine
    it left one caption blank although the kernel's answer was there (and rendering the cell
    again blanked another); its plain-text results, every number of the prose, never failed.
    JupyterLab's captions lose their italics; the site's are myst-nb's, from the metadata.
    The shown text starts with a space: jupyterlab-myst puts the caption right after its
    "Figure N:", with no space between (the Markdown form was a paragraph of its own)."""

    def __repr__(self) -> str:
        return " " + EMPHASIS.sub(r"\1", str(self))


@functools.cache
def _cells(path: Path, mtime_ns: int, size: int) -> list:
    import jupytext  # the reader JupyterLab opens the chapters with

    return jupytext.read(path, fmt="md:myst" if path.suffix == ".md" else None).cells


def _figures(path: Path, mtime_ns: int, size: int) -> dict[str, str]:
    figures = [c.metadata.get("mystnb", {}).get("figure", {}) for c in _cells(path, mtime_ns, size)]
    return {f["name"]: f["caption"] for f in figures if "name" in f and "caption" in f}


def figure_alts(path: Path) -> dict[str, str]:
    """``{source: alt text}`` of the figure cells of the notebook at ``path`` (their
    ``mystnb: image: alt``), keyed by the cell's code, stripped."""
    stat = path.stat()
    cells = _cells(path, stat.st_mtime_ns, stat.st_size)
    images = {c.source.strip(): c.metadata.get("mystnb", {}).get("image", {}) for c in cells}
    return {source: image["alt"] for source, image in images.items() if image.get("alt")}


def figure_captions(path: Path) -> dict[str, str]:
    """``{name: caption}`` of the figure cells of the notebook at ``path`` (``.md`` or
    ``.ipynb``), as saved (read again when the file changes)."""
    stat = path.stat()
    return _figures(path, stat.st_mtime_ns, stat.st_size)


def caption(name: str, folder: Path | None = None) -> Caption:
    """The caption of the figure cell labelled ``name``, from the notebooks in ``folder``
    (default: the working folder, where the kernel of a notebook starts)."""
    folder = Path.cwd() if folder is None else folder
    for path in sorted(folder.iterdir()):
        if path.suffix in NOTEBOOK_SUFFIXES and path.is_file():
            found = figure_captions(path).get(name)
            if found is not None:
                return Caption(found)
    raise LookupError(f"no figure cell labelled {name!r} in the notebooks of {folder}")


def lab_figure(name: str) -> str:
    """The markdown cell that shows figure ``name``'s caption, numbered, in JupyterLab."""
    return f':::{{figure}}\n:name: {name}\n{{eval}}`caption("{name}")`\n:::'


# What a chapter says first in JupyterLab, where its numbers and captions are ``{eval}``
# expressions that show their code until the kernel has answered. Worded to read as true
# before and after Run All.
RUN_FIRST = (
    "> **Run the cells first** (*Run* ▸ *Run All Cells*). The numbers in this text{captions}"
    " come from the code cells: until the cells have run, each shows in its place the code"
    " that computes it."
)


def run_first(figures: bool) -> str:
    """:data:`RUN_FIRST` for a page with ``figures`` (their captions are named) or without."""
    return RUN_FIRST.format(captions=" and the figures' captions" if figures else "")


def lab_first_cell(figure_start: int | None) -> str:
    """The page's first markdown cell, which only JupyterLab shows: front matter that numbers
    the chapter's figures from ``figure_start`` (the book's number of its first figure; None
    for a page without figures, which has none), then :func:`run_first`."""
    if figure_start is None:
        return run_first(figures=False)
    front = (
        "---\n"
        "# JupyterLab only: number this chapter's figures as the book does"
        " (mha.views.captions).\n"
        f"numbering:\n  figure:\n    start: {figure_start}\n"
        "---\n\n"
    )
    return front + run_first(figures=True)


def _alt_of(code: str, folder: Path) -> str | None:
    """The alt text of the figure cell whose code is ``code``, in the notebooks of ``folder``."""
    for path in sorted(folder.iterdir()):
        if path.suffix in NOTEBOOK_SUFFIXES and path.is_file():
            found = figure_alts(path).get(code.strip())
            if found is not None:
                return found
    return None


def describe_figures(shell=None) -> None:
    """In a kernel that a Jupyter server started (JupyterLab), show each figure of a figure
    cell as an image with that cell's alt text (``mystnb: image: alt``): JupyterLab 4.5 draws
    a PNG output with no ``alt`` at all. A figure then also has an HTML form, ``<img alt>``,
    which JupyterLab prefers to the PNG. Elsewhere (the book's build, nbclient, a plain
    IPython) it does nothing, so the site's figures stay PNG outputs with the alt text that
    myst-nb gives them."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None or "JPY_SESSION_NAME" not in os.environ:
        return
    import base64
    import html

    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure

    running = {"alt": None}
    formatter = shell.display_formatter.formatters["text/html"]

    def before(info) -> None:
        running["alt"] = _alt_of(info.raw_cell or "", Path.cwd())
        formatter.for_type(Figure, as_html)  # (again: in case the backend was loaded again)

    def as_html(fig: Figure) -> str | None:
        if running["alt"] is None:
            return None  # (no alt text known: the PNG alone, as before)
        png = base64.b64encode(print_figure(fig, "png", bbox_inches="tight")).decode()
        alt = html.escape(running["alt"], quote=True)
        return f'<img src="data:image/png;base64,{png}" alt="{alt}">'

    import matplotlib.pyplot as plt

    plt.close(plt.figure())  # (loads the inline backend now, which drops Figure's formatters)
    formatter.for_type(Figure, as_html)
    shell.events.register("pre_run_cell", before)

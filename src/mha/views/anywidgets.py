"""What the book's anywidget views share: their base class, its traits and their modules.

Each view is drawn by an ES module of ``static/`` (``static/<view>.mjs``), which imports the
maths (``static/mha_views.mjs``) and the HTML pieces (``static/view_html.mjs``). esbuild
bundles each view into one self-contained module, ``dist/<view>.js`` (``npm run build``, which
``make book``, ``make lab`` and ``make test`` run: ``build.mjs``): the widget's ``_esm``, a
path that anywidget reads, as JupyterLab and Colab need. The site serves every view once, in
``book/_ext/static/mha-views.js``, and its pages' saved widget state names the view instead of
carrying its module (book/_ext/static_widgets.py).
"""

from __future__ import annotations

import importlib.resources
import itertools
from pathlib import Path

import anywidget
import traitlets

from mha.style import _HEX, text_on
from mha.views.html import STYLE

DIST = Path(str(importlib.resources.files("mha.views") / "dist"))


def palette() -> list[list[str]]:
    """The weight colour scale (mha.style.weight_colour's table), each with its text colour."""
    return [[c, text_on(c)] for c in _HEX]


def view_css() -> str:
    """The book's view styles (mha.views.html.STYLE) without their ``<style>`` tags."""
    return STYLE.removeprefix("<style>").removesuffix("</style>")


_LINKS: dict[str, itertools.count] = {}


def next_link(prefix: str) -> str:
    """``prefix-N`` for the N-th view of that kind made in this kernel (on a page, in page
    order): the view's name in permalinks (``#budget-1:tilt=+1.5``)."""
    return f"{prefix}-{next(_LINKS.setdefault(prefix, itertools.count(1)))}"


class View(anywidget.AnyWidget):
    """Base of every view of the book: its module, ``dist/<module>.js`` (``class
    BudgetView(View, module="budget_view", link="budget")``); the book's view styles
    (``view_css``) and weight colours (``palette``); and ``link``, the view's name in the
    page's URL fragment (a permalink on the site), by default ``<link>-N`` for the N-th view
    of its kind (:func:`next_link`). Subclasses add their own traits."""

    palette = traitlets.List().tag(sync=True)
    view_css = traitlets.Unicode().tag(sync=True)
    link = traitlets.Unicode("").tag(sync=True)

    def __init_subclass__(cls, module: str = "", link: str = "", **kwargs: object) -> None:
        if module:
            cls.module, cls.link_prefix = module, link or module
            if (DIST / f"{module}.js").is_file():  # anywidget reads it (anywidget's FileContents)
                cls._esm = DIST / f"{module}.js"
        super().__init_subclass__(**kwargs)

    def __init__(self, **kwargs: object) -> None:
        if not hasattr(self, "_esm"):
            raise FileNotFoundError(
                f"{DIST / self.module}.js is not built: run `npm ci && npm run build` "
                "(make book and make lab run it)"
            )
        kwargs.setdefault("palette", palette())
        kwargs.setdefault("view_css", view_css())
        if not kwargs.get("link"):
            kwargs["link"] = next_link(self.link_prefix)
        super().__init__(**kwargs)

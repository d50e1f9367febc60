"""Every widget's first view in the page's HTML, readable before (and without) JavaScript.

The HTML manager (embed.js, 1.9 MB) draws a page's widgets only after it has been
downloaded, compiled and run, and has built every widget model of the page: on this
book's pages that is most of a second after the text is there. So at ``html-page-context``
this extension writes, before each widget's ``<script type=".../widget-view+json">``, the
DOM that the HTML manager would draw for it from the page's saved widget state, in a
``<div class="widget-subarea mha-static-widget">``: the same elements, classes and inline
styles (``@jupyter-widgets/controls`` 5.0's views, ``nouislider``'s handle position), the
views' HTML as saved. Its controls are ``inert`` (they do nothing until the HTML manager
runs). The widgets' style sheets, which embed.js injects when it runs, are served as one
static file on widget pages (:data:`WIDGET_CSS`, built from the same npm files), so the
static copy looks as the live widget will.

``static/mha-offline-widgets.js`` then hides the live widget (``mha-book.css``:
``.mha-static-widget + .widget-subarea``) until it is drawn completely and has the same
elements, classes, inline styles and text as the static copy, and swaps the two in one
DOM change: the reader sees no flash; with no JavaScript, the first views stay readable.

Only the widget models the book uses are drawn (``widget_dom.RENDERERS``), and only with the
settings they are drawn with here; anything else (another model, a vertical slider, an
icon...) draws no static copy for that widget and warns, so that the ``-W`` build fails
rather than silently losing the first view.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging
from widget_dom import Renderer, UnsupportedWidgetError, static_copy

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = ROOT / "node_modules"

# The style sheets that embed.js injects for the core widgets, in its order, without
# Font Awesome (icons, which static copies never draw) and Lumino's styles for widgets the
# book has none of (tab bars, menus, dock panels...). @import lines are dropped: the
# imported files are in the list, as embed.js's bundle inlines them; url('data:...') is
# written url(data:...), as its css-loader writes it. The last two files are JupyterLab's
# colour and size variables, which embed.js injects only when the page does not define
# them (htmlmanager.ts: no --jp-layout-color0): with this sheet it does not inject them.
WIDGET_CSS_SOURCES = [
    "@jupyter-widgets/html-manager/css/output.css",
    "@lumino/widgets/style/widget.css",
    "@jupyter-widgets/controls/css/lumino.css",
    "@jupyter-widgets/controls/css/nouislider.css",
    "@jupyter-widgets/controls/css/widgets-base.css",
    "@jupyter-widgets/controls/css/materialcolors.css",
    "@jupyter-widgets/controls/css/labvariables.css",
]
WIDGET_CSS = "_vendor/mha-widgets.css"  # in the built site

VIEW_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script


def add_static_views(body: str, state: dict, where: str) -> tuple[str, int]:
    """``body`` with a static copy before each widget view script; and how many were drawn."""
    renderer = Renderer(state)
    drawn = 0

    def one(m: re.Match[str]) -> str:
        nonlocal drawn
        model_id = json.loads(html.unescape(m.group(1)))["model_id"]
        try:
            copy = static_copy(renderer, model_id)
        except (UnsupportedWidgetError, KeyError, IndexError, TypeError) as e:
            logger.warning(
                f"static_widgets: {where}: widget {model_id} has no static first view ({e}): "
                "draw it in book/_ext/static_widgets.py, or the page shows it only after "
                "embed.js has run"
            )
            return m.group(0)
        drawn += 1
        return copy + m.group(0)

    return VIEW_RE.sub(one, body), drawn


def widget_css() -> str:
    """The widgets' style sheets as embed.js injects them, as one file (see WIDGET_CSS)."""
    parts = []
    for rel in WIDGET_CSS_SOURCES:
        text = (NODE_MODULES / rel).read_text(encoding="utf-8")
        text = re.sub(r"^@import [^;]*;\s*$", "", text, flags=re.M)
        text = re.sub(r"url\('(data:[^')]*)'\)", r"url(\1)", text)
        parts.append(f"/* {rel} */\n{text.strip()}\n")
    return "\n".join(parts)


def write_widget_css(app: Sphinx) -> None:
    """Write WIDGET_CSS (when it changed). Pages are written again when this module, the
    static files or package-lock.json change: execution.py's ``mha_build_code``."""
    if app.builder.format != "html":
        return
    text = widget_css()
    dst = Path(app.outdir) / WIDGET_CSS
    if not dst.is_file() or dst.read_text(encoding="utf-8") != text:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(text, encoding="utf-8")


def on_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html" or "body" not in context:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    js = NbMetadataCollector.get_js_files(app.env, pagename)
    if STATE_KEY not in js:
        return
    state = json.loads(js[STATE_KEY][1]["body"])
    context["body"], drawn = add_static_views(context["body"], state, pagename)
    if drawn:
        # After the theme's style sheets, where embed.js's own <style>s will go.
        app.add_css_file("../" + WIDGET_CSS, priority=900)


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", write_widget_css)
    # After myst-nb's handler (priority 500), which registers the page's widget state.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

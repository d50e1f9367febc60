"""Why this file: every widget's first view is in the page's HTML, readable before (and
without) JavaScript, drawn at build time by the widget's own module; and the page names each
widget's module instead of carrying its text, which the site serves once.

Stands in for: no upstream option; myst-nb's widget output draws nothing before (or without)
JavaScript, and saves each widget's module (anywidget's ``_esm``) in the page's widget state.

Every widget of the site is an anywidget view of the book (``widget_loader.py`` fails the
build otherwise), whose module is one of esbuild's bundles of ``src/mha/views/static``
(``src/mha/views/build.mjs``, ``npm run build``): in the kernel, ``_esm`` is the text of
``dist/<view>.js``. When a page has been read, each such ``_esm`` in its saved widget state is
replaced by the view's name, ``_mha_view`` (``budget_view``...): the site loads every view
once per page from ``_static/mha-views.js`` (``static/mha-views.js``, a classic script
that sets ``mhaViews``: Chromium runs no module script from a ``file://`` page), and our host
(``static/mha-anywidget-host.js``) draws each view with ``mhaViews[_mha_view]``.

At ``html-page-context`` this extension runs each view's ``renderView(state, {inert: true})``
from that same ``mha-views.js`` in Node (``anywidget_static.mjs``) and writes the HTML it
gives before the view's ``<script type=".../widget-view+json">``, in a
``<div class="widget-subarea mha-static-widget">``, its controls ``inert`` (they do nothing
until the live view replaces the copy). There is then one implementation of each view, run
in Node for the first view and in the browser for the live one.

Our host draws the live view into a ``div.widget-subarea`` of its own and, once drawn, puts
it in the copy's place in one DOM change, marked ``data-mha-takeover="exact"`` when it has the
same elements, classes, inline styles and text as the copy (the browser tests check it): the
reader sees the same view, now working. A view that cannot be drawn here warns, so that the
``-W`` build fails rather than silently losing the first view.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

ANYWIDGET_STATIC = Path(__file__).with_name("anywidget_static.mjs")
# esbuild's bundles of the views (src/mha/views/build.mjs), found without importing mha.
DIST = Path(importlib.util.find_spec("mha").submodule_search_locations[0]) / "views" / "dist"
SITE_VIEWS = Path(__file__).parent / "static" / "mha-views.js"  # every view: _static/mha-views.js
VIEW_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script


class UnsupportedWidgetError(ValueError):
    """A widget whose first view cannot be drawn at build time."""


def view_names() -> dict[str, str]:
    """The name of each view bundled for the kernel (``dist/<name>.js``), by its text."""
    return {p.read_text(encoding="utf-8"): p.stem for p in sorted(DIST.glob("*.js"))}


def name_views(state: dict, names: dict[str, str]) -> dict:
    """A page's saved widget ``state`` with each anywidget model's ``_esm`` that is one of the
    book's view bundles (``names``: :func:`view_names`) replaced by that view's name,
    ``_mha_view``; any other model as it was."""
    models = {}
    for model_id, m in state["state"].items():
        s = m["state"]
        if m["model_module"] == "anywidget" and s.get("_esm") in names:
            s = {k: v for k, v in s.items() if k != "_esm"} | {"_mha_view": names[s["_esm"]]}
        models[model_id] = {**m, "state": s}
    return {**state, "state": models}


def on_read(app: Sphinx, doctree: nodes.document) -> None:
    """Once a page is read: its saved widget state names each view instead of carrying its
    module (myst-nb writes this state into the page)."""
    from myst_nb.core.render import sanitize_script_content
    from myst_nb.sphinx_ import NbMetadataCollector

    docname = app.env.docname
    js = NbMetadataCollector.get_js_files(app.env, docname)
    if STATE_KEY not in js:
        return
    uri, kwargs = js[STATE_KEY]
    state = name_views(json.loads(kwargs["body"]), view_names())
    body = sanitize_script_content(json.dumps(state))
    NbMetadataCollector.add_js_file(app.env, docname, STATE_KEY, uri, {**kwargs, "body": body})


def render_anywidgets(states: list[dict]) -> list[str]:
    """The first views of the book's anywidget models (their saved states, each naming its
    view in ``_mha_view``), drawn by the site's ``mha-views.js``."""
    jobs = [{"view": s["_mha_view"], "state": s} for s in states]
    if shutil.which("node") is None:
        raise UnsupportedWidgetError("Node.js is needed to draw anywidget first views")
    run = subprocess.run(
        ["node", str(ANYWIDGET_STATIC), str(SITE_VIEWS)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise UnsupportedWidgetError(f"anywidget_static.mjs failed: {run.stderr.strip()[-400:]}")
    return json.loads(run.stdout)


def anywidget_state(models: dict, model_id: str) -> dict:
    """The saved state of anywidget model ``model_id`` of a page's saved ``models``."""
    m = models.get(model_id)
    if m is None:
        raise UnsupportedWidgetError(f"model {model_id} is not in the page's widget state")
    if m["model_module"] != "anywidget":
        raise UnsupportedWidgetError(f"{m['model_name']} is not an anywidget view")
    if "_mha_view" not in m["state"]:
        raise UnsupportedWidgetError("its module is none of the book's views (src/mha/views)")
    return m["state"]


def static_copy(model_id: str, view: str) -> str:
    """The static first view ``view`` of widget ``model_id``, as HTML to put before its view
    script."""
    return f'<div class="widget-subarea mha-static-widget" data-model-id="{model_id}">{view}</div>'


def add_static_views(body: str, state: dict, where: str) -> tuple[str, int]:
    """``body`` with a static copy before each widget view script; and how many were drawn.
    Every view of the page is drawn by one Node process."""
    ids = [json.loads(html.unescape(m.group(1)))["model_id"] for m in VIEW_RE.finditer(body)]
    states, problems = {}, {}
    for model_id in ids:
        try:
            states[model_id] = anywidget_state(state["state"], model_id)
        except (UnsupportedWidgetError, KeyError, TypeError) as e:
            problems[model_id] = e
    views: dict[str, str] = {}
    if states:
        try:
            views = dict(zip(states, render_anywidgets(list(states.values())), strict=True))
        except UnsupportedWidgetError as e:
            problems |= dict.fromkeys(states, e)
    for model_id, e in problems.items():
        logger.warning(
            f"static_widgets: {where}: widget {model_id} has no static first view ({e}): "
            "the page shows it only once its module has run in the browser"
        )

    drawn = 0

    def one(m: re.Match[str]) -> str:
        nonlocal drawn
        model_id = json.loads(html.unescape(m.group(1)))["model_id"]
        if model_id not in views:
            return m.group(0)
        drawn += 1
        return static_copy(model_id, views[model_id]) + m.group(0)

    return VIEW_RE.sub(one, body), drawn


def on_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html" or "body" not in context:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    js = NbMetadataCollector.get_js_files(app.env, pagename)
    if STATE_KEY not in js:
        return
    state = json.loads(js[STATE_KEY][1]["body"])
    context["body"], _ = add_static_views(context["body"], state, pagename)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", on_read)
    # After myst-nb's handler (priority 500), which registers the page's widget state.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

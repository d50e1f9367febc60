"""Why this file: every widget's first view is in the page's HTML, readable before (and
without) JavaScript, drawn at build time by the widget's own module.

Stands in for: no upstream option; myst-nb's widget output draws nothing before (or without)
JavaScript.

Every widget of the site is an anywidget view (``widget_loader.py`` fails the build
otherwise), whose ES module travels in the page's saved widget state (its ``_esm`` trait).
At ``html-page-context`` this extension runs each view's module in Node
(``anywidget_static.mjs``: its ``renderView(state, {inert: true})``) and writes the HTML it
gives before the view's ``<script type=".../widget-view+json">``, in a
``<div class="widget-subarea mha-static-widget">``, its controls ``inert`` (they do nothing
until the live view replaces the copy). There is then one implementation of each view, run
in Node for the first view and in the browser for the live one.

Our host (``static/mha-anywidget-host.js``) draws the live view into a
``div.widget-subarea`` of its own and, once drawn, puts it in the copy's place in one DOM
change, marked ``data-mha-takeover="exact"`` when it has the same elements, classes, inline
styles and text as the copy (the browser tests check it): the reader sees the same view, now
working. A view that cannot be drawn here warns, so that the ``-W`` build fails rather than
silently losing the first view.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

ANYWIDGET_STATIC = Path(__file__).with_name("anywidget_static.mjs")
VIEW_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script


class UnsupportedWidgetError(ValueError):
    """A widget whose first view cannot be drawn at build time."""


def render_anywidgets(states: list[dict]) -> list[str]:
    """The first views of anywidget models (their saved states), drawn by their modules."""
    jobs = [{"esm": s["_esm"], "state": s} for s in states]
    if shutil.which("node") is None:
        raise UnsupportedWidgetError("Node.js is needed to draw anywidget first views")
    run = subprocess.run(
        ["node", str(ANYWIDGET_STATIC)], input=json.dumps(jobs), capture_output=True, text=True
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
    # After myst-nb's handler (priority 500), which registers the page's widget state.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}

"""The book's widget pages: every widget is a view computed in the reader's browser.

Every widget of the built site is an anywidget view (its module computes what it shows from
small inputs), none an ipywidgets control over precomputed views: so every page loads our
own small host instead of the HTML manager (book/_ext/static_widgets.py; test_pages.py checks
what each page loads). test_static_views.py loads every widget page (without JavaScript, then
live over http and from file://); each view's own browser tests move its controls and check
its numbers: test_heads_view.py, test_slider_views.py, test_trained_view.py, test_mask_view.py
and test_exercise_view.py.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser import harness

STATE_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)


def _widget_pages() -> list[str]:
    return [
        p
        for p in harness.book_pages()
        if "application/vnd.jupyter.widget-state+json"
        in (harness.SITE / p).read_text(encoding="utf-8")
    ]


WIDGET_PAGES = harness.or_missing(_widget_pages(), "page with widget state")


def test_book_has_widget_pages():
    assert _widget_pages(), "no page of the built book holds widget state"


@pytest.mark.parametrize("rel", WIDGET_PAGES)
def test_every_widget_is_a_view_computed_in_the_browser(rel, site):
    found = STATE_RE.search((site / rel).read_text(encoding="utf-8"))
    models = json.loads(found.group(1))["state"].values()
    kinds = {(m["model_module"], m["model_name"]) for m in models}
    assert kinds <= {("anywidget", "AnyModel"), ("@jupyter-widgets/base", "LayoutModel")}, kinds


@pytest.mark.parametrize("rel", WIDGET_PAGES)
def test_a_page_loads_the_views_once_and_its_state_carries_no_module(rel, site):
    """The page's saved state names each widget's view (static_widgets.py); the views come
    from one script, _static/mha-views.js, whatever the number of widgets."""
    html = (site / rel).read_text(encoding="utf-8")
    found = STATE_RE.search(html)
    models = [m["state"] for m in json.loads(found.group(1))["state"].values()]
    views = [s for s in models if "_view_module" in s and s["_view_module"] == "anywidget"]
    assert views and all("_esm" not in s and s["_mha_view"].endswith("_view") for s in views)
    assert len(re.findall(r'<script src="[^"]*_static/mha-views\.js\b', html)) == 1
    assert "export default" not in found.group(1)  # no module text in the state

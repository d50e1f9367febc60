"""book/_ext/widget_loader.py: the build stops on a page whose widgets our host cannot draw.

The browser tests of the views (tests/browser/test_heads_view.py, test_mask_view.py...) check
the host on the built site over http and from file://; these check which saved states it
takes, on small inputs.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

from tests.book_ext import widget_loader as wl


def _model(module: str, name: str, **state: object) -> dict:
    return {"model_module": module, "model_name": name, "state": state}


def _hosted_page(**extra: object) -> dict:
    """A page's saved state: one view of the book (named as static_widgets.py names it) and a
    blank layout."""
    layout = _model("@jupyter-widgets/base", "LayoutModel", _view_name="LayoutView", width=None)
    view = _model("anywidget", "AnyModel", _mha_view="budget_view", layout="IPY_MODEL_L")
    view["state"].update(extra)
    return {"state": {"L": layout, "V": view}}


def test_a_page_of_anywidget_views_only_has_nothing_the_host_cannot_draw():
    assert wl.problems(_hosted_page()) == []


def test_each_widget_the_host_cannot_draw_is_named_with_why():
    state = _hosted_page()
    state["state"]["S"] = _model("@jupyter-widgets/controls", "IntSliderModel", value=1)
    assert wl.problems(state) == [
        "widget S (@jupyter-widgets/controls IntSliderModel): not an anywidget view: "
        "the site has no ipywidgets widget manager"
    ]
    state = _hosted_page()
    state["state"]["L"]["state"]["width"] = "50%"  # a layout that sets a style
    assert [p.split(":")[0] for p in wl.problems(state)] == [
        "widget L (@jupyter-widgets/base LayoutModel)",
        "widget V (anywidget AnyModel)",  # its layout is not blank
    ]
    state = _hosted_page(_esm="export default {}")  # a module that is none of the book's views
    del state["state"]["V"]["state"]["_mha_view"]
    (other,) = wl.problems(state)
    assert other.startswith("widget V (anywidget AnyModel): its module is none of the book's")
    (ref,) = wl.problems(_hosted_page(other="IPY_MODEL_L"))
    assert "its trait other refers to a model" in ref
    assert wl.problems({"state": {"L": _hosted_page()["state"]["L"]}}) == [
        "no anywidget view in the page's widget state"
    ]


def _app() -> SimpleNamespace:
    return SimpleNamespace(builder=SimpleNamespace(format="html"), env=None)


def test_the_build_fails_naming_the_page_and_the_widget(monkeypatch):
    import json

    from myst_nb.sphinx_ import NbMetadataCollector

    state = _hosted_page()
    state["state"]["S"] = _model("@jupyter-widgets/controls", "IntSliderModel", value=1)
    scripts = {wl.STATE_KEY: (None, {"body": json.dumps(state)})}
    monkeypatch.setattr(NbMetadataCollector, "get_js_files", lambda env, page: scripts)
    with pytest.raises(ExtensionError, match=r"page notebooks/x: .*widget S \(.*IntSliderModel"):
        wl.on_page(_app(), "notebooks/x", "page.html", {}, None)
    scripts[wl.STATE_KEY] = (None, {"body": json.dumps(_hosted_page())})
    wl.on_page(_app(), "notebooks/x", "page.html", {}, None)  # a page the host serves: no error

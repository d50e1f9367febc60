"""book/_ext/static_widgets.py names each widget's module in the page's saved state, stops the
build on a page whose widgets our host cannot draw, and draws every other widget's first view
with its module, in Node.

The browser tests (tests/browser/test_static_views.py, test_heads_view.py...) check the built
book's copies against the live views, and the host over http and from file://; these check
the naming, which saved states the host takes, and the copy on one real view, on small inputs.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from sphinx.errors import ExtensionError

from tests.book_ext import static_widgets as sw

VIEW = '<script type="application/vnd.jupyter.widget-view+json">{{"model_id": "{}"}}</script>'


def _model(module: str, name: str, **state: object) -> dict:
    return {"model_module": module, "model_name": name, "state": state}


def _hosted_page(**extra: object) -> dict:
    """A page's saved state: one view of the book (named as :func:`sw.name_views` names it)
    and a blank layout."""
    layout = _model("@jupyter-widgets/base", "LayoutModel", _view_name="LayoutView", width=None)
    view = _model("anywidget", "AnyModel", _mha_view="budget_view", layout="IPY_MODEL_L")
    view["state"].update(extra)
    return {"state": {"L": layout, "V": view}}


def test_each_module_of_the_books_views_is_named_and_any_other_kept():
    from mha.views.budget import budget_view
    from mha.views.mask_view import chapter6_mask_view

    budget, mask = budget_view().get_state(), chapter6_mask_view(["a", "b", "c"]).get_state()
    other = {**budget, "_esm": "export default {render() {}}"}
    models = {
        k: {"model_module": "anywidget", "model_name": "AnyModel", "state": s}
        for k, s in (("b", budget), ("m", mask), ("o", other))
    }
    named = sw.name_views({"state": models}, sw.view_names())["state"]
    assert {k: named[k]["state"].get("_mha_view") for k in named} == {
        "b": "budget_view",
        "m": "mask_view",
        "o": None,
    }
    assert "_esm" not in named["b"]["state"] and named["o"]["state"] == other
    assert named["b"]["state"] == {k: v for k, v in budget.items() if k != "_esm"} | {
        "_mha_view": "budget_view"
    }


def test_a_page_of_anywidget_views_only_has_nothing_the_host_cannot_draw():
    assert sw.problems(_hosted_page(), ["V"]) == []


def test_each_widget_the_host_cannot_draw_is_named_with_why():
    state = _hosted_page()
    state["state"]["S"] = _model("@jupyter-widgets/controls", "IntSliderModel", value=1)
    assert sw.problems(state, ["V", "S"]) == [
        "widget S (@jupyter-widgets/controls IntSliderModel): not an anywidget view: "
        "the site has no ipywidgets widget manager"
    ]
    state = _hosted_page()
    state["state"]["L"]["state"]["width"] = "50%"  # a layout that sets a style
    assert [p.split(":")[0] for p in sw.problems(state, ["V"])] == [
        "widget L (@jupyter-widgets/base LayoutModel)",
        "widget V (anywidget AnyModel)",  # its layout is not blank
    ]
    state = _hosted_page(_esm="export default {}")  # a module that is none of the book's views
    del state["state"]["V"]["state"]["_mha_view"]
    (other,) = sw.problems(state, ["V"])
    assert other.startswith("widget V (anywidget AnyModel): its module is none of the book's")
    (ref,) = sw.problems(_hosted_page(other="IPY_MODEL_L"), ["V"])
    assert "its trait other refers to a model" in ref
    assert sw.problems(_hosted_page(), ["V", "X"]) == ["widget X: not in the page's widget state"]
    assert sw.problems({"state": {"L": _hosted_page()["state"]["L"]}}, []) == [
        "no anywidget view in the page's widget state"
    ]


def _saved(widget) -> dict:
    """A page's saved state holding ``widget`` as "w" and its layout, as myst-nb saves it,
    its module named as static_widgets.py names it once the page is read."""
    layout = widget.layout
    saved = {
        "state": {
            "w": _model("anywidget", "AnyModel", **widget.get_state()),
            layout.model_id: _model("@jupyter-widgets/base", "LayoutModel", **layout.get_state()),
        }
    }
    return sw.name_views(saved, sw.view_names())


def _on_page(monkeypatch, state: dict, body: str) -> dict:
    """The page context after static_widgets' handler, on a page whose HTML is ``body`` and
    whose saved widget state (as myst-nb registers it) is ``state``."""
    from myst_nb.sphinx_ import NbMetadataCollector

    scripts = {sw.STATE_KEY: (None, {"body": json.dumps(state)})}
    monkeypatch.setattr(NbMetadataCollector, "get_js_files", lambda env, page: scripts)
    app = SimpleNamespace(builder=SimpleNamespace(format="html"), env=None)
    context = {"body": body}
    sw.on_page(app, "notebooks/x", "page.html", context, {})  # a doctree with no files
    return context


def test_the_first_view_of_an_anywidget_is_its_modules_with_inert_controls(monkeypatch):
    from mha.views.mask_view import chapter6_mask_view

    saved = _saved(chapter6_mask_view(["a", "b", "c"]))
    body = _on_page(monkeypatch, saved, "<p>x</p>" + VIEW.format("w"))["body"]
    assert body.startswith("<p>x</p>") and body.endswith(VIEW.format("w"))
    copy = body[len("<p>x</p>") : body.index("<script")]
    head = '<div class="widget-subarea mha-static-widget" data-model-id="w"><div class="mha-view'
    assert copy.startswith(head) and copy.endswith("</div>")
    assert re.search(r"<fieldset [^>]*\binert\b", copy)


def test_the_build_fails_naming_the_page_and_the_widget(monkeypatch):
    from mha.views.mask_view import chapter6_mask_view

    saved = _saved(chapter6_mask_view(["a", "b", "c"]))
    saved["state"]["S"] = _model("@jupyter-widgets/controls", "IntSliderModel", value=1)
    body = VIEW.format("w") + VIEW.format("S")
    with pytest.raises(ExtensionError, match=r"page notebooks/x: .*widget S \(.*IntSliderModel"):
        _on_page(monkeypatch, saved, body)
    with pytest.raises(ExtensionError, match=r"widget s: not in the page's widget state"):
        _on_page(monkeypatch, _saved(chapter6_mask_view(["a"])), VIEW.format("s"))


def test_elements_loaded_on_demand_leave_the_page_for_files_named_by_their_hash():
    from mha.views.trained_view import trained_view

    saved = _saved(trained_view(setting=(2, 6)))
    weights = list(saved["state"]["w"]["state"]["weights"])
    files = sw.split_lazy(saved)
    s = saved["state"]["w"]["state"]
    assert s["weights"] == [None, weights[1], None, None, None, None]
    names = s["_mha_files"]["weights"]
    assert names[1] is None and len(set(names) - {None}) == 5 == len(files)
    for k, name in enumerate(names):
        if name:  # the file hands the element to the host's mhaData
            assert files[name] == f'mhaData("{name}", "{weights[k]}");\n'

"""book/_ext/static_widgets.py names each widget's module in the page's saved state and
draws each widget's first view with that module, in Node.

The browser tests (tests/browser/test_static_views.py) check the built book's copies
against the live views pixel for pixel; these check the naming and the copy on one real
view, and what happens to a widget it cannot draw.
"""

from __future__ import annotations

import logging
import re

from tests.book_ext import static_widgets as sw

VIEW = '<script type="application/vnd.jupyter.widget-view+json">{{"model_id": "{}"}}</script>'


def _saved(widget) -> dict:
    """A page's saved state holding ``widget`` as "w" and its layout, as myst-nb saves it,
    its module named as static_widgets.py names it once the page is read."""
    layout = widget.layout
    saved = {
        "state": {
            "w": {
                "model_name": "AnyModel",
                "model_module": "anywidget",
                "state": widget.get_state(),
            },
            layout.model_id: {
                "model_name": "LayoutModel",
                "model_module": "@jupyter-widgets/base",
                "state": layout.get_state(),
            },
        }
    }
    return sw.name_views(saved, sw.view_names())


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


def test_the_first_view_of_an_anywidget_is_its_modules_with_inert_controls():
    from mha.views.mask_view import chapter6_mask_view

    widget = chapter6_mask_view(["a", "b", "c"])
    body, drawn = sw.add_static_views("<p>x</p>" + VIEW.format("w"), _saved(widget), "p")
    assert drawn == 1 and body.startswith("<p>x</p>") and body.endswith(VIEW.format("w"))
    copy = body[len("<p>x</p>") : body.index("<script")]
    head = '<div class="widget-subarea mha-static-widget" data-model-id="w"><div class="mha-view'
    assert copy.startswith(head) and copy.endswith("</div>")
    assert re.search(r"<fieldset [^>]*\binert\b", copy)


def test_a_widget_it_cannot_draw_keeps_its_script_alone_and_warns(caplog):
    state = {"state": {"s": {"model_name": "IntSliderModel", "model_module": "x", "state": {}}}}
    body = VIEW.format("s")
    with caplog.at_level(logging.WARNING):
        out, drawn = sw.add_static_views(body, state, "chapter")
    assert (out, drawn) == (body, 0)
    assert "widget s has no static first view (IntSliderModel is not an anywidget" in caplog.text

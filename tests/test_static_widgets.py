"""book/_ext/static_widgets.py draws a widget's first view from saved widget state.

The browser tests (tests/browser/test_static_views.py) check the built book's copies
against the live widgets pixel for pixel; these check the drawing rules on small states.
"""

from __future__ import annotations

import logging
import re

import pytest

from tests.book_ext import static_widgets as sw

VIEW = '<script type="application/vnd.jupyter.widget-view+json">{{"model_id": "{}"}}</script>'


def _state(**models: tuple[str, dict]) -> dict:
    return {"state": {k: {"model_name": n, "state": s} for k, (n, s) in models.items()}}


def _html(value: str) -> tuple[str, dict]:
    return ("HTMLModel", {"value": value, "description": "", "layout": "IPY_MODEL_lay"})


def _panel(index: int, labels: list[str]) -> dict:
    slider = {
        "description": "tilt",
        "_options_labels": labels,
        "index": index,
        "layout": "IPY_MODEL_lay",
        "style": "IPY_MODEL_sty",
    }
    return _state(
        root=("VBoxModel", {"children": ["IPY_MODEL_row", "IPY_MODEL_stack"]}),
        row=("HBoxModel", {"children": ["IPY_MODEL_slider"]}),
        slider=("SelectionSliderModel", slider),
        stack=(
            "StackModel",
            {"children": [f"IPY_MODEL_v{i}" for i in range(len(labels))], "selected_index": index},
        ),
        lay=("LayoutModel", {"_view_name": "LayoutView", "width": "320px", "flex_flow": None}),
        sty=("SliderStyleModel", {"description_width": "initial", "handle_color": None}),
        **{f"v{i}": _html(f'<div class="mha-view">view {i}</div>') for i in range(len(labels))},
    )


def test_the_copy_shows_the_selected_view_with_inert_controls_and_the_handle_in_place():
    body, drawn = sw.add_static_views(
        "<p>x</p>" + VIEW.format("root"), _panel(2, list("abcde")), "p"
    )
    assert drawn == 1
    copy = body[: body.index("<script")]
    assert 'class="widget-subarea mha-static-widget" data-model-id="root"' in copy
    assert "view 2" in copy and "view 1" not in copy and "view 3" not in copy
    # index 2 of 0..4 is 50 %: nouislider moves the origin by 10 * (50 - 100) %.
    assert 'style="transform: translate(-500%, 0px); z-index: 4;"' in copy
    assert '<div class="widget-readout" contenteditable="true">c</div>' in copy
    assert re.search(r'widget-slider widget-inline-hbox" inert style="width: 320px;"', copy)
    assert '<label class="widget-label" style="width: initial;">tilt</label>' in copy
    assert body.endswith(VIEW.format("root"))


@pytest.mark.parametrize(("index", "n", "shift"), [(0, 5, "-1000"), (4, 5, "0"), (1, 3, "-500")])
def test_the_handle_sits_where_nouislider_puts_it(index, n, shift):
    body, _ = sw.add_static_views(VIEW.format("root"), _panel(index, list("abcde"[:n])), "p")
    assert f"translate({shift}%, 0px)" in body


def test_a_widget_it_cannot_draw_keeps_its_script_alone_and_warns(caplog):
    state = _panel(0, ["a", "b"])
    state["state"]["row"]["model_name"] = "GridBoxModel"
    body = VIEW.format("root")
    with caplog.at_level(logging.WARNING):
        out, drawn = sw.add_static_views(body, state, "chapter")
    assert (out, drawn) == (body, 0)
    assert "no static drawing for GridBoxModel" in caplog.text


def test_an_html_value_with_a_script_is_not_copied():
    with pytest.raises(sw.UnsupportedWidgetError):
        sw.static_copy(sw.Renderer(_state(w=_html("<script>alert(1)</script>"))), "w")


def test_the_style_sheet_inlines_no_import():
    css = sw.widget_css()
    assert "@import" not in css.replace("/* @import", "")
    assert ".lm-Widget {" in css and ".widget-slider" in css and "--jp-layout-color0" in css

"""book/_ext/widget_loader.py: which pages load the HTML manager's AMD bundle, and the bundle.

The browser tests (tests/browser/test_mask_view.py) check the route on the built site over
http and from file://; these check its pieces on small inputs and on the npm files.
"""

from __future__ import annotations

import re

import pytest
from sphinx.errors import ExtensionError

from tests.book_ext import static_widgets as sw
from tests.book_ext import widget_loader as wl


def _state(*modules: str) -> dict:
    return {"state": {f"m{i}": {"model_module": m, "state": {}} for i, m in enumerate(modules)}}


def test_only_pages_with_a_non_core_model_load_the_amd_bundle():
    assert not wl.needs_amd(_state("@jupyter-widgets/controls", "@jupyter-widgets/base"))
    assert wl.needs_amd(_state("@jupyter-widgets/controls", "anywidget"))


def _model(module: str, name: str, **state: object) -> dict:
    return {"model_module": module, "model_name": name, "state": state}


def _hosted_page(**extra: object) -> dict:
    """A page's saved state: one anywidget view with its module inline and a blank layout."""
    layout = _model("@jupyter-widgets/base", "LayoutModel", _view_name="LayoutView", width=None)
    view = _model("anywidget", "AnyModel", _esm="export default {}", layout="IPY_MODEL_L")
    view["state"].update(extra)
    return {"state": {"L": layout, "V": view}}


def test_a_page_of_anywidget_views_only_loads_our_host():
    assert wl.can_host(_hosted_page())
    state = _hosted_page()
    state["state"]["S"] = _model("@jupyter-widgets/controls", "IntSliderModel", value=1)
    assert not wl.can_host(state)  # a core widget needs the HTML manager
    state = _hosted_page()
    state["state"]["L"]["state"]["width"] = "50%"
    assert not wl.can_host(state)  # a layout that sets a style: the manager applies it
    assert not wl.can_host(_hosted_page(_esm="https://example.org/x.js"))  # not inline
    assert not wl.can_host(_hosted_page(other="IPY_MODEL_L"))  # a reference to another model
    assert not wl.can_host({"state": {"L": _hosted_page()["state"]["L"]}})  # no view at all


def test_the_host_takes_embed_js_place():
    from types import SimpleNamespace

    class Js(SimpleNamespace):
        def __init__(self, filename: str, priority: int = 500, **attributes: str) -> None:
            super().__init__(filename=filename, priority=priority, attributes=attributes)

    embed = Js("_static/../_vendor/" + wl.STANDALONE, defer="defer")
    context = {"script_files": [Js("_static/a.js"), embed, Js("_static/b.js")]}
    wl.use_host_script(context)
    names = [s.filename for s in context["script_files"]]
    assert names == ["_static/a.js", "_static/" + wl.HOST, "_static/b.js"]
    assert context["script_files"][1].attributes == {"defer": "defer"}


def test_the_sites_bundle_is_npms_less_ipywidgets_7():
    text = wl.AMD_SOURCE.read_text(encoding="utf-8")
    kept = wl.amd_bundle(text)
    names = re.findall(r'^define\("([^"]+)"', kept, re.M)
    assert names == [
        "@jupyter-widgets/base",
        "@jupyter-widgets/controls",
        "@jupyter-widgets/html-manager",
        "@jupyter-widgets/html-manager/dist/libembed-amd",
    ]
    assert len(kept) < len(text) - 800_000  # ipywidgets 7's modules are most of a megabyte
    starts = [m.start() for m in wl.BUNDLE_START.finditer(kept)]
    blocks = [kept[a:b] for a, b in zip(starts, [*starts[1:], len(kept)], strict=True)]
    assert all(block in text for block in blocks)  # whole bundles, as npm ships them


def test_a_bundle_laid_out_otherwise_fails_the_build():
    with pytest.raises(ExtensionError, match="check DROPPED"):
        wl.amd_bundle('/*! For license information please see a.txt */\ndefine("x",[],1)')


def test_an_anywidget_saved_without_its_view_traits_warns(caplog):
    state = {"state": {"w": {"model_module": "anywidget", "state": {"_model_name": "AnyModel"}}}}
    with caplog.at_level("WARNING"):
        wl.check_traits(state, "page")
    assert "_view_name" in caplog.text and "#339" in caplog.text


def test_the_first_view_of_an_anywidget_is_its_modules_with_inert_controls():
    from mha.views.mask_view import chapter6_mask_view

    widget = chapter6_mask_view(["a", "b", "c"])
    state, layout = widget.get_state(), widget.layout
    saved = {
        "state": {
            "w": {"model_name": "AnyModel", "model_module": "anywidget", "state": state},
            layout.model_id: {"model_name": "LayoutModel", "state": layout.get_state()},
        }
    }
    html = sw.static_copy(sw.Renderer(saved), "w")
    assert html.startswith('<div class="widget-subarea mha-static-widget" data-model-id="w">')
    assert '<div class="lm-Widget jupyter-widgets-disconnected"><div class="mha-view' in html
    assert re.search(r"<fieldset [^>]*\binert\b", html)

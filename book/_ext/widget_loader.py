"""Why this file: the site draws its widgets with our own small anywidget host, and with no
widget manager; this extension stops the build on a page whose widgets the host cannot draw.

Stands in for: myst-nb's default ``nb_ipywidgets_js`` (require.js and the ipywidgets HTML
manager, from a CDN).

Every page that holds widget state loads the book's views, once (``mha-views.js``, esbuild's
bundle), and ``static/mha-anywidget-host.js`` (a few KB, ours; ``_config.yml``'s
``nb_ipywidgets_js``, which myst-nb adds to such pages only). The host gives each view the
little an anywidget module asks of its model (get, set, on, off; no kernel to save to) and
draws it with the view the saved state names (``_mha_view``: static_widgets.py). Checked by
the browser tests of the views (``tests/browser/test_heads_view.py``, ``test_mask_view.py``...)
over http and from ``file://``.

The host draws the book's anywidget views only: not ipywidgets' core widgets (sliders,
boxes...), nor a layout that sets a style. The site used to fall back to the ipywidgets HTML
manager on such a page (1.9 MB of ``embed.js``; with anywidget, require.js
and the manager's 2.8 MB AMD bundle). Once every widget of the book was an anywidget view no
page reached that fallback, so it went, and with it the npm copies it needed: a page the host
cannot serve fails the build here (``problems`` names each widget and why), instead of
shipping a page whose widgets never draw. Such a widget is to be written as an anywidget view
(``mha.views.anywidgets``); the manager's route is in the git history (issue 22).
"""

from __future__ import annotations

import json

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script
MODEL_REF = "IPY_MODEL_"


def _blank_layout(model: dict) -> bool:
    """A LayoutModel that sets no style (every public trait None): nothing for a host to do."""
    s = model["state"]
    return model["model_name"] == "LayoutModel" and all(
        v is None for k, v in s.items() if not k.startswith("_")
    )


def _model_problem(models: dict, m: dict) -> str | None:
    """Why the host cannot draw model ``m`` of a page's saved ``models``; None if it can."""
    if m["model_module"] != "anywidget":
        return "not an anywidget view: the site has no ipywidgets widget manager"
    if not isinstance(m["state"].get("_mha_view"), str):
        return "its module is none of the book's views (static_widgets.py names them)"
    for name, value in m["state"].items():
        if isinstance(value, str) and value.startswith(MODEL_REF):
            ref = models.get(value.removeprefix(MODEL_REF))
            if name != "layout" or ref is None or not _blank_layout(ref):
                return f"its trait {name} refers to a model the host does not draw"
    return None


def problems(state: dict) -> list[str]:
    """What our host (static/mha-anywidget-host.js) cannot draw of a page's saved widget
    ``state``, one line a widget; [] when it can draw them all. It draws anywidget models
    whose module is one of the book's views (``_mha_view``, which static_widgets.py writes in
    place of the module's text) that refer to no model but a blank layout; blank layouts need
    nothing."""
    models = state["state"]
    out = []
    for model_id, m in models.items():
        if _blank_layout(m):
            continue
        why = _model_problem(models, m)
        if why:
            out.append(f"widget {model_id} ({m['model_module']} {m['model_name']}): {why}")
    if not out and not any(m["model_module"] == "anywidget" for m in models.values()):
        out.append("no anywidget view in the page's widget state")
    return out


def on_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Fail the build on a page holding a widget that the host cannot draw."""
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    js = NbMetadataCollector.get_js_files(app.env, pagename)
    if STATE_KEY not in js:
        return
    found = problems(json.loads(js[STATE_KEY][1]["body"]))
    if found:
        raise ExtensionError(
            f"widget_loader: page {pagename}: the site's anywidget host cannot draw "
            + "; ".join(found)
            + ". Write the widget as an anywidget view (mha.views.anywidgets): see "
            "book/_ext/widget_loader.py"
        )


def setup(app: Sphinx) -> dict:
    # After myst-nb's handler (priority 500), which registers the page's scripts.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
